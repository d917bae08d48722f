/*
 * test_fork_fake.c: a child made by fork() while another thread of the
 * parent holds one of the library's locks must still get through a
 * snapshot, trims, statistics reads, a spec resolution and allocations
 * (docs/semantics.md, "fork"). fork() copies only the calling thread, so a
 * lock held elsewhere at that moment would stay held in the child forever;
 * the library's fork handlers (lib/core/fork.h) take every lock first.
 *
 * Each case parks a thread inside a lock: in a callback the library runs
 * under its lock (mr_track_resource_foreach, mr_factory_foreach), or in an
 * upstream a cache calls while it holds its slots (a trim). The thread goes
 * on when the prepare handler finds the lock taken (the test hook
 * mri_fork_set_wait_hook), so the handler then gets the lock; without the
 * handlers the fork happens with the lock held. One more lock is not the
 * library's: glibc's gmtime_r holds one that no fork handler can take, so
 * the child must not need it (a stand-in below makes that deterministic).
 * A last case forks again and again while a thread allocates, frees,
 * trims, creates and destroys resources over host memory.
 *
 * Nothing here waits for time. A fork handler that waits for a lock
 * without telling the hook (core/fork.h forbids it) leaves the parked
 * thread parked and the fork waiting: meson's timeout reports that hang.
 * A child that hangs dies of its alarm, a last resort whose limit only a
 * hang reaches (test_watchdog_seconds), and the test says which child.
 *
 * Built twice: FORK_CACHE selects the cache case alone (fake.context.fork_cache).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/fork.h"
#include "fake_test.h"

#define CHILD_SECONDS 60 /* before test_watchdog_seconds */

/* ThreadSanitizer: a forked child inherits the parent's other threads as
 * finished and never joins them (they are the parent's): not leaks. A
 * child's first resource starts the library's decay thread again
 * (core/decay.h), which TSan refuses after a multi-threaded fork unless
 * die_after_fork=0. Races and deadlocks are still reported. TSAN_OPTIONS,
 * set by .ci/run, adds to these defaults. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
const char *__tsan_default_options(void);
const char *__tsan_default_options(void) { return "report_thread_leaks=0:die_after_fork=0"; }
#endif
#endif

/* ---- a thread parked inside a lock ---------------------------------------- */

static struct {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  bool armed;   /* the next park() waits */
  bool holding; /* a thread waits in park() */
  bool go;
  bool forked; /* the parent's fork() returned */
} gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false, false, false};

static void gate_arm(void) {
  pthread_mutex_lock(&gate.mutex);
  gate.armed = true;
  gate.holding = gate.go = gate.forked = false;
  pthread_mutex_unlock(&gate.mutex);
}

/* Called with a library lock held: wait there until let go. */
static void park(void) {
  pthread_mutex_lock(&gate.mutex);
  if (gate.armed) {
    gate.armed = false;
    gate.holding = true;
    pthread_cond_broadcast(&gate.cond);
    while (!gate.go) pthread_cond_wait(&gate.cond, &gate.mutex);
  }
  pthread_mutex_unlock(&gate.mutex);
}

static void wait_until_parked(void) {
  pthread_mutex_lock(&gate.mutex);
  while (!gate.holding) pthread_cond_wait(&gate.cond, &gate.mutex);
  pthread_mutex_unlock(&gate.mutex);
}

static void let_go(void) {
  pthread_mutex_lock(&gate.mutex);
  gate.go = true;
  pthread_cond_broadcast(&gate.cond);
  pthread_mutex_unlock(&gate.mutex);
}

/* The fork handler found a lock held: the parked thread may go on now. */
static void on_fork_wait(void) { let_go(); }

static void mark_forked(void) {
  pthread_mutex_lock(&gate.mutex);
  gate.forked = true;
  pthread_cond_broadcast(&gate.cond);
  pthread_mutex_unlock(&gate.mutex);
}

/* A holder run on its own thread, which then stays until the fork is
 * over: let go by the fork handler, it gives the library's lock back and
 * would otherwise exit while fork() runs, and an exiting thread frees its
 * own memory. A sanitizer's allocator that takes no lock across fork (see
 * FORK_UNDER_SANITIZER below) then left its lock held in the child, which
 * hung at its first allocation (fake.context.fork under ASan, about 1 run
 * in 20-60 on a loaded machine). */
typedef struct holder_call {
  void *(*holder)(void *);
  void *arg;
} holder_call;

static void *hold_then_wait_for_fork(void *arg) {
  holder_call *call = arg;
  void *r = call->holder(call->arg);
  pthread_mutex_lock(&gate.mutex);
  while (!gate.forked) pthread_cond_wait(&gate.cond, &gate.mutex);
  pthread_mutex_unlock(&gate.mutex);
  return r;
}

/* ---- the child ------------------------------------------------------------- */

static const mr_tag tags[] = {
    {"tracked", "track(host)"},
    {"temp", "arena(device, chunk=1MiB)"},
    {"staging", "fixed(pinned, block=64KiB, count=4)"},
    {"counted", "limit(stats(host), bytes=1GiB)"},
    {"wide", "align(host, alignment=4KiB)"},
};
#define TAG_COUNT ((int)MRI_ARRAY_SIZE(tags))

static mr_context *make_context(const char *overrides) {
  mr_context_desc desc = {.size = sizeof desc,
                          .library = "forklib",
                          .tags = tags,
                          .tag_count = MRI_ARRAY_SIZE(tags),
                          .overrides = overrides};
  mr_context *ctx = NULL;
  assert_ok(mr_context_create(&desc, &ctx));
  return ctx;
}

static int child_failed(int code, const char *what) {
  fprintf(stderr, "fork child: %s: %s\n", what, mr_last_error());
  return code;
}

/* What the child does: every kind of call that takes a lock. 0 if all of
 * it worked. */
static int child_work(mr_context *ctx, mr_resource *extra) {
  mr_snapshot *snap = NULL;
  if (mr_snapshot_take(NULL, &snap) != MR_OK) return child_failed(2, "snapshot");
  FILE *out = fopen("/dev/null", "w");
  mr_status written = out != NULL ? mr_snapshot_write_json(snap, out) : MR_ERR_INVALID_ARGUMENT;
  if (written == MR_OK) written = mr_snapshot_write_text(snap, out);
  if (out != NULL) fclose(out);
  mr_snapshot_destroy(snap);
  if (written != MR_OK) return child_failed(10, "writing the snapshot");
  for (int t = 0; t < TAG_COUNT; t++) {
    mr_resource *mr = mr_context_get_mr(ctx, t);
    void *p = NULL;
    if (mr_allocate(mr, 8192, 0, NULL, &p) != MR_OK) return child_failed(3, tags[t].name);
    if (mr_deallocate(mr, p, 8192, 0, NULL) != MR_OK) return child_failed(4, tags[t].name);
    if (mr_resource_trim(mr) != MR_OK) return child_failed(5, tags[t].name);
    mr_stats stats;
    mr_stats_init(&stats);
    if (mr_context_get_stats(ctx, t, -1, &stats) != MR_OK) return child_failed(6, tags[t].name);
  }
  if (extra != NULL) {
    void *p = NULL;
    if (mr_allocate(extra, 512, 0, NULL, &p) != MR_OK ||
        mr_deallocate(extra, p, 512, 0, NULL) != MR_OK || mr_resource_trim(extra) != MR_OK)
      return child_failed(7, mr_resource_describe(extra));
    mr_cache_stats cs = {.size = sizeof cs};
    if (mr_cache_resource_get_stats(extra, &cs) != MR_OK)
      return child_failed(8, "cache statistics");
  }
  mr_resource *spec = NULL;
  if (mr_resource_from_spec("stats(host)", 0, &spec) != MR_OK) return child_failed(9, "spec");
  mr_resource_release(spec);
  return 0;
}

/* Fork; the child runs child_work under an alarm. Then let the parked
 * thread go (if the fork handlers did not already) and check the child. */
static void fork_and_check(mr_context *ctx, mr_resource *extra, const char *what) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    alarm(test_watchdog_seconds(CHILD_SECONDS));
    _exit(child_work(ctx, extra));
  }
  mark_forked();
  let_go();
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  if (WIFSIGNALED(status)) {
    print_error("%s: the forked child %s\n", what,
                WTERMSIG(status) == SIGALRM ? "hung (a lock held at fork stayed held)"
                                            : strsignal(WTERMSIG(status)));
    fail();
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    print_error("%s: the forked child failed (exit %d)\n", what, WEXITSTATUS(status));
    fail();
  }
}

/* Run `holder` on a thread, fork while it is parked inside a lock, check
 * the child, and join the thread. */
static void fork_while_held(void *(*holder)(void *), void *arg, mr_context *ctx, mr_resource *extra,
                            const char *what) {
  gate_arm();
  pthread_t thread;
  holder_call call = {holder, arg};
  assert_int_equal(pthread_create(&thread, NULL, hold_then_wait_for_fork, &call), 0);
  wait_until_parked();
  mri_fork_set_wait_hook(on_fork_wait);
  fork_and_check(ctx, extra, what);
  mri_fork_set_wait_hook(NULL);
  assert_int_equal(pthread_join(thread, NULL), 0);
}

#ifndef FORK_CACHE

/* ---- a track's lock ---------------------------------------------------------- */

static void park_in_record(void *user, const mr_track_record *rec) { park(); }

static void *hold_track(void *arg) {
  size_t count = 0;
  if (mr_track_resource_foreach(arg, park_in_record, NULL, &count) != MR_OK) abort();
  return NULL;
}

static void test_fork_while_track_held(void **state) {
  mr_context *ctx = make_context(NULL);
  mr_resource *tracked = mr_context_get_mr(ctx, 0);
  /* The track under the tag's statistics wrapper. */
  mr_resource *track = mr_resource_upstream(tracked);
  void *p = NULL;
  assert_ok(mr_allocate(tracked, 256, 0, NULL, &p));
  fork_while_held(hold_track, track, ctx, NULL, "track's lock");
  assert_ok(mr_deallocate(tracked, p, 256, 0, NULL));
  mr_context_destroy(ctx);
}

/* ---- the registry of resource names ------------------------------------------- */

static void park_in_name(void *user, const char *name) { park(); }

static void *hold_registry(void *arg) {
  mr_factory_foreach(park_in_name, NULL);
  return NULL;
}

static void test_fork_while_registry_held(void **state) {
  mr_context *ctx = make_context(NULL);
  fork_while_held(hold_registry, NULL, ctx, NULL, "the registry of names");
  mr_context_destroy(ctx);
}

/* ---- a thread inside gmtime_r ------------------------------------------------------ */

/* glibc's gmtime_r (and localtime_r) holds a process-wide lock
 * (tzset_lock) that fork() leaves as it was: a child forked while another
 * thread is inside it waits forever at its first call. A snapshot's time
 * once came from gmtime_r, so a child's snapshot hung when the fork landed
 * in another thread's snapshot (unit.python.fork, 1 child in a few
 * thousand on a busy machine) or in the application's own time formatting.
 * This stand-in, which the library's calls would reach too (the
 * executable's definition comes first), holds a lock of its own the same
 * way, across park(); in a forked child it says the lock is held instead
 * of waiting for it. */
static pthread_mutex_t gmtime_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tm *(*real_gmtime_r)(const time_t *, struct tm *);
static pid_t gmtime_parent; /* 0: the stand-in only forwards */

struct tm *gmtime_r(const time_t *t, struct tm *out) {
  if (gmtime_parent == 0) return real_gmtime_r != NULL ? real_gmtime_r(t, out) : NULL;
  if (getpid() != gmtime_parent) {
    if (pthread_mutex_trylock(&gmtime_lock) != 0) {
      fprintf(stderr, "fork child: gmtime_r called while its lock was held at fork (glibc's "
                      "would wait forever)\n");
      _exit(11);
    }
  } else {
    pthread_mutex_lock(&gmtime_lock);
    park();
  }
  struct tm *r = real_gmtime_r(t, out);
  pthread_mutex_unlock(&gmtime_lock);
  return r;
}

/* An application thread formats a time. */
static void *hold_gmtime(void *arg) {
  time_t now = time(NULL);
  struct tm utc;
  if (gmtime_r(&now, &utc) == NULL) abort();
  return NULL;
}

static void test_fork_while_gmtime_held(void **state) {
  void *symbol = dlsym(RTLD_NEXT, "gmtime_r"); /* POSIX: it converts */
  memcpy(&real_gmtime_r, &symbol, sizeof symbol);
  assert_non_null(real_gmtime_r);
  gmtime_parent = getpid();
  mr_context *ctx = make_context(NULL);
  fork_while_held(hold_gmtime, NULL, ctx, NULL, "gmtime_r's lock");
  mr_context_destroy(ctx);
  gmtime_parent = 0;
}

/* ---- forks while a thread works -------------------------------------------------- */

static const char *const busy_specs[] = {
    "track(host)",
    "stats(host)",
    "arena(host, chunk=1MiB)",
    "fixed(host, block=4KiB)",
    "limit(host, bytes=1GiB)",
    "align(host, alignment=4KiB)",
    "bin(host)",
};

typedef struct busy_job {
  mr_context *ctx;
  _Atomic bool stop;
  long rounds;
  int failed;
} busy_job;

/* Over host memory only: a thread inside the fake driver at the fork would
 * leave the fake's own lock held in the child (the fake is not the
 * library). */
static void *busy(void *arg) {
  busy_job *job = arg;
  while (!atomic_load(&job->stop)) {
    for (size_t i = 0; i < MRI_ARRAY_SIZE(busy_specs); i++) {
      mr_resource *mr = NULL;
      void *p[4];
      if (mr_resource_from_spec(busy_specs[i], 0, &mr) != MR_OK) {
        job->failed++;
        continue;
      }
      for (int k = 0; k < 4; k++)
        if (mr_allocate(mr, 1024u << k, 0, NULL, &p[k]) != MR_OK) job->failed++;
      for (int k = 0; k < 4; k++)
        if (mr_deallocate(mr, p[k], 1024u << k, 0, NULL) != MR_OK) job->failed++;
      if (mr_resource_trim(mr) != MR_OK) job->failed++;
      mr_resource_release(mr);
    }
    void *q = NULL;
    mr_resource *tracked = mr_context_get_mr_on(job->ctx, 0, 0); /* asks no driver */
    if (mr_allocate(tracked, 512, 0, NULL, &q) != MR_OK ||
        mr_deallocate(tracked, q, 512, 0, NULL) != MR_OK)
      job->failed++;
    mr_stats stats;
    mr_stats_init(&stats);
    if (mr_context_get_stats(job->ctx, 0, -1, &stats) != MR_OK) job->failed++;
    job->rounds++;
  }
  return NULL;
}

/* AddressSanitizer before LLVM 17, and ThreadSanitizer before LLVM 19
 * (llvm/llvm-project#96600), take no lock of their allocator across
 * fork(): a child forked while the busy thread is inside malloc or free
 * (ASan's quarantine unmapping a large block, say) inherits the
 * allocator's lock held, and hangs at its first allocation, whatever mrctx
 * does. (Seen under Debian's clang 14 TSan: 1 child in about 500 hung
 * until its alarm.) ThreadSanitizer checks nothing in a child of a
 * multithreaded fork anyway. The held-lock forks above are deterministic
 * and run everywhere. */
#if defined(__SANITIZE_ADDRESS__)
#define FORK_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FORK_UNDER_SANITIZER 1
#elif __has_feature(thread_sanitizer) && defined(__clang_major__) && __clang_major__ < 19
#define FORK_UNDER_SANITIZER 1
#endif
#endif

static void test_forks_while_busy(void **state) {
#ifdef FORK_UNDER_SANITIZER
  skip();
#endif
  mr_context *ctx = make_context("temp=arena(host, chunk=1MiB); staging=fixed(host, block=64KiB)");
  busy_job job = {.ctx = ctx};
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, busy, &job), 0);
  for (int i = 0; i < 20; i++) fork_and_check(ctx, NULL, "a fork while a thread works");
  atomic_store(&job.stop, true);
  assert_int_equal(pthread_join(thread, NULL), 0);
  assert_int_equal(job.failed, 0);
  mr_context_destroy(ctx);
}

/* Every lock registers and unregisters with its object: creating and
 * destroying resources leaves the registry as it was. */
static void test_registry_follows_resources(void **state) {
  size_t before = mri_fork_registered();
  mr_resource *mr = NULL;
  assert_ok(mr_resource_from_spec("track(arena(fixed(stats(host), block=4KiB)))", 0, &mr));
  assert_true(mri_fork_registered() > before);
  mr_resource_release(mr);
  assert_int_equal(mri_fork_registered(), before);
}

#else /* FORK_CACHE */

/* ---- a cache's slots --------------------------------------------------------------- */

/* Host memory whose free parks the caller (when armed): a cache's trim
 * frees upstream with its slots and shared lock held. */
static mr_status slow_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                               void **ptr) {
  *ptr = aligned_alloc(256, (bytes + 255) & ~(size_t)255);
  return *ptr != NULL ? MR_OK : MR_ERR_OUT_OF_MEMORY;
}

static mr_status slow_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                 mr_stream stream) {
  park();
  free(ptr);
  return MR_OK;
}

static const mr_resource_ops slow_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "slow",
    .allocate = slow_allocate,
    .deallocate = slow_deallocate,
};

static mr_status slow_factory(void *user, const mr_spec_args *args, mr_resource **out) {
  return mr_resource_create(&slow_ops, NULL, NULL, out);
}

static void *hold_cache(void *arg) {
  if (mr_resource_trim(arg) != MR_OK) abort();
  return NULL;
}

static void test_fork_while_cache_held(void **state) {
  assert_ok(mr_register_factory("fork_slow", slow_factory, NULL));
  mr_context *ctx = make_context("wide=cache(fork_slow)");
  mr_resource *cached = mr_context_get_mr(ctx, 4);
  mr_resource *cache = mr_resource_upstream(cached);
  void *p = NULL;
  assert_ok(mr_allocate(cached, 512, 0, NULL, &p));
  assert_ok(mr_deallocate(cached, p, 512, 0, NULL)); /* kept: the trim frees it */
  fork_while_held(hold_cache, cache, ctx, cache, "a cache's slots");
  mr_context_destroy(ctx);
}

#endif /* FORK_CACHE */

int main(void) {
  const struct CMUnitTest tests[] = {
#ifndef FORK_CACHE
      cmocka_unit_test_setup(test_fork_while_track_held, fake_test_setup),
      cmocka_unit_test_setup(test_fork_while_registry_held, fake_test_setup),
      cmocka_unit_test_setup(test_fork_while_gmtime_held, fake_test_setup),
      cmocka_unit_test_setup(test_forks_while_busy, fake_test_setup),
      cmocka_unit_test(test_registry_follows_resources),
#else
      cmocka_unit_test_setup(test_fork_while_cache_held, fake_test_setup),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

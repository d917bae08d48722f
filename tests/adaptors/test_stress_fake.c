/*
 * test_stress_fake.c: many threads, every adaptor that keeps or wraps
 * memory, and driver calls failing at random (suite fake).
 *
 * First every spec below and a context of them all are built while 5% of
 * driver calls fail: each build must succeed or fail cleanly and leave
 * nothing behind. Then each spec is built with mr_resource_from_spec and
 * hammered on its own (so a leak names its spec); then a context whose tags
 * are the same specs is hammered through ctx_get_mr, all tags at once. A
 * hammer is:
 *  - 8 threads allocating and freeing at random: sizes 1 B - 4 MiB (spread
 *    evenly over the powers of two), alignment 0, 256 or 4096, on four
 *    streams of their own (cuStreamCreate through the fake) and the legacy
 *    stream, at most 16 blocks live each; a tenth of the frees go to
 *    another of the thread's streams than the allocation's. Five streams
 *    are more than a cache slot has bins, so caches spill bins too.
 *  - 2 of the 8 are lanes of short-lived threads: each runs a few hundred
 *    operations, frees everything, destroys its streams and exits while
 *    the others go on (a cache hands an exiting thread's blocks to its
 *    shared pool);
 *  - one more thread, with no context of its own, calls mr_resource_trim
 *    every 10-30 ms;
 *  - 1% of the fake driver's calls fail: the first half of the run with
 *    CUDA_ERROR_OUT_OF_MEMORY, the second with CUDA_ERROR_UNKNOWN. Each
 *    half lasts its time and then until a driver call has failed in it, so
 *    a busy machine that gives the threads little of that time makes the
 *    run longer, not pointless.
 *
 * What must hold:
 *  - every failure is clean: MR_ERR_OUT_OF_MEMORY or MR_ERR_DRIVER, the
 *    pointer NULL, a message set; success is a non-NULL pointer aligned as
 *    asked (never MR_OK with NULL);
 *  - no block is handed out twice: each keeps its owner's stamp until freed;
 *  - a failed free leaves the block with the caller (the library's
 *    contract): the thread retries until it succeeds, and a retry that says
 *    the block is not allocated here is a bug;
 *  - every thread frees all it allocated; then, with failures off, every
 *    resource trims cleanly, the context's per-tag statistics (and the
 *    stats, limit and track adaptors' own counts) are back to zero, and
 *    once everything is released the fake holds no allocation, no event
 *    and no stream.
 * Threads record problems instead of asserting (cmocka cannot fail a test
 * from another thread); each test prints what it found and fails at the
 * end, so one run reports everything.
 *
 * cuEventDestroy never fails at random here: the library can do nothing
 * about a failed destroy (it ignores the result, as any caller would), so a
 * failure there would only show up as a leaked event that says nothing
 * about mrctx.
 *
 * MRCTX_STRESS_MS: milliseconds of hammering per test, at least (default
 * 300; 1000 under AddressSanitizer or ThreadSanitizer, which slow
 * everything down).
 * MRCTX_STRESS_SEED: the seed of the threads' choices and of the failures
 * (default 1). With threads, a seed fixes the sequences, not the
 * interleaving.
 * MRCTX_STRESS_EXEMPT: entry points that never fail at random, e.g.
 * "cuMemFreeAsync,cuEventRecord", to narrow a finding down.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "fake_test.h"

enum {
  WORKERS = 8,     /* threads allocating at any time */
  CHURN_LANES = 2, /* of which this many are short-lived, one after another */
  STREAMS = 4,     /* created per thread, besides the legacy stream */
  MAX_LIVE = 16,   /* blocks per thread */
  FREE_TRIES = 10000,
};

#define MAX_BYTES ((size_t)4 << 20)
#define FAILURE_RATE 0.01

/* ---- what is hammered ------------------------------------------------------ */

typedef struct stress_spec {
  const char *tag; /* the context's tag name */
  const char *spec;
  size_t alignment; /* what the resource guarantees at least */
} stress_spec;

static const stress_spec stress_specs[] = {
    {"cache", "cache(device)", 256},
    {"retry_cache", "retry(cache(device))", 256},
    /* A cache often full: frees past its budget go upstream, shared blocks
     * are released to make room. */
    {"small_cache", "cache(device, max=8MiB)", 256},
    {"arena", "arena(device, chunk=1MiB)", 256},
    {"fixed", "fixed(device, block=64KiB, count=8)", 256},
    {"bin", "bin(device, min=256B, max=64KiB, count=4)", 256},
    {"pinned_cache", "cache(pinned)", 256},
    {"limited", "stats(limit(device, bytes=64MiB))", 256},
    {"tracked", "track(device)", 256},
    {"aligned", "align(device, alignment=4096)", 4096},
    {"expandable", "expandable(reserve=1GiB)", 256},
    {"cache_expandable", "cache(expandable(reserve=1GiB))", 256},
    {"expandable_large", "expandable(large_page=4MiB, reserve=1GiB)", 256},
};
#define SPEC_COUNT (sizeof stress_specs / sizeof stress_specs[0])

typedef struct target {
  const stress_spec *spec;
  mr_resource *mr; /* built from the spec; NULL for a context tag */
  int tag;         /* the context tag, -1 for a spec */
} target;

typedef struct run {
  target targets[SPEC_COUNT];
  int target_count;
  mr_context *ctx;
  _Atomic bool stop;
  /* What happened, for the summary. */
  _Atomic long allocations, allocation_failures, frees, free_failures, trims, trim_failures,
      exited_threads;
} run;

/* Sanitizers slow every operation down 5-20 times: give them longer. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define STRESS_DEFAULT_MS 1000
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define STRESS_DEFAULT_MS 1000
#endif
#endif
#ifndef STRESS_DEFAULT_MS
#define STRESS_DEFAULT_MS 300
#endif

static long stress_ms(void) {
  const char *text = getenv("MRCTX_STRESS_MS");
  long ms = text != NULL ? strtol(text, NULL, 10) : 0;
  return ms > 0 ? ms : STRESS_DEFAULT_MS;
}

static unsigned stress_seed(void) {
  const char *text = getenv("MRCTX_STRESS_SEED");
  return text != NULL ? (unsigned)strtoul(text, NULL, 10) : 1u;
}

/* MRCTX_STRESS_EXEMPT: entry points (comma-separated) that never fail at
 * random, besides cuEventDestroy; for narrowing a finding down by hand. */
static void exempt_entry_points(void) {
  fake_cuda_fail_randomly_exempt("cuEventDestroy", true);
  const char *text = getenv("MRCTX_STRESS_EXEMPT");
  if (text == NULL) return;
  char copy[1024];
  snprintf(copy, sizeof copy, "%s", text);
  char *saved = NULL;
  for (char *name = strtok_r(copy, ", ", &saved); name != NULL; name = strtok_r(NULL, ", ", &saved))
    fake_cuda_fail_randomly_exempt(name, true);
}

static void sleep_ms(long ms) {
  struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0) {
  }
}

/* ---- problems: recorded by any thread, reported by the test --------------- */

#define MAX_KINDS 32

typedef struct problem_kind {
  const char *kind;
  long count;
  char first[512];
} problem_kind;

static pthread_mutex_t problems_lock = PTHREAD_MUTEX_INITIALIZER;
static problem_kind problems[MAX_KINDS];
static int problem_kinds;
static long problem_total;

static void problem(const char *kind, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static void problem(const char *kind, const char *format, ...) {
  pthread_mutex_lock(&problems_lock);
  problem_total++;
  problem_kind *k = NULL;
  for (int i = 0; i < problem_kinds && k == NULL; i++)
    if (strcmp(problems[i].kind, kind) == 0) k = &problems[i];
  if (k == NULL && problem_kinds < MAX_KINDS) {
    k = &problems[problem_kinds++];
    k->kind = kind;
    va_list args;
    va_start(args, format);
    vsnprintf(k->first, sizeof k->first, format, args);
    va_end(args);
  }
  if (k != NULL) k->count++;
  pthread_mutex_unlock(&problems_lock);
}

static void problems_clear(void) {
  pthread_mutex_lock(&problems_lock);
  memset(problems, 0, sizeof problems);
  problem_kinds = 0;
  problem_total = 0;
  pthread_mutex_unlock(&problems_lock);
}

/* Print every kind of problem with its count and first instance; fail the
 * test if there was any. */
static void report_problems(const char *what) {
  pthread_mutex_lock(&problems_lock);
  long total = problem_total;
  for (int i = 0; i < problem_kinds; i++)
    print_error("%s: %s: %ld time%s; first: %s\n", what, problems[i].kind, problems[i].count,
                problems[i].count == 1 ? "" : "s", problems[i].first);
  pthread_mutex_unlock(&problems_lock);
  if (total > 0) fail_msg("%s: %ld problem%s (above)", what, total, total == 1 ? "" : "s");
}

static bool expected_failure(mr_status st) {
  return st == MR_ERR_OUT_OF_MEMORY || st == MR_ERR_DRIVER;
}

/* ---- one thread's work ------------------------------------------------------ */

typedef struct block {
  void *ptr;
  size_t bytes, alignment;
  mr_stream stream;
  mr_resource *mr;
  const target *target;
  uint64_t stamp;
} block;

typedef struct worker {
  run *r;
  int id;
  uint64_t rng;
  long ops_left;                  /* < 0: until told to stop */
  mr_stream streams[STREAMS + 1]; /* [0]: the legacy stream */
  int stream_count;
  block live[MAX_LIVE];
  int live_count;
  uint64_t next_stamp;
} worker;

static uint64_t next_rand(worker *w) { return test_rand(&w->rng); }

/* 1 B - 4 MiB, each power of two as likely as the next. */
static size_t random_size(worker *w) {
  unsigned e = (unsigned)(next_rand(w) % 23);
  if (e == 22) return MAX_BYTES;
  size_t base = (size_t)1 << e;
  return base + (size_t)(next_rand(w) % base);
}

static const char *target_name(const target *t) {
  return t->tag >= 0 ? t->spec->tag : t->spec->spec;
}

static mr_resource *target_resource(run *r, const target *t) {
  if (t->tag < 0) return t->mr;
  mr_resource *mr = ctx_get_mr(r->ctx, t->tag);
  if (mr == NULL) problem("ctx_get_mr returned NULL", "tag %s: %s", t->spec->tag, mr_last_error());
  return mr;
}

/* The owner's stamp: its low bytes at the start of the block (up to 8, not
 * reaching the last byte), its top byte in the last byte. */
static size_t stamp_prefix(const block *b) {
  return b->bytes - 1 < sizeof b->stamp ? b->bytes - 1 : sizeof b->stamp;
}

static void stamp_block(const block *b) {
  memcpy(b->ptr, &b->stamp, stamp_prefix(b));
  ((unsigned char *)b->ptr)[b->bytes - 1] = (unsigned char)(b->stamp >> 56);
}

static bool stamp_intact(const block *b) {
  uint64_t seen = 0, expected = 0;
  memcpy(&seen, b->ptr, stamp_prefix(b));
  memcpy(&expected, &b->stamp, stamp_prefix(b));
  return seen == expected &&
         ((unsigned char *)b->ptr)[b->bytes - 1] == (unsigned char)(b->stamp >> 56);
}

static void do_allocate(worker *w) {
  run *r = w->r;
  const target *t = &r->targets[next_rand(w) % (uint64_t)r->target_count];
  static const size_t alignments[] = {0, 256, 4096};
  block b = {
      .bytes = random_size(w),
      .alignment = alignments[next_rand(w) % 3],
      .stream = w->streams[next_rand(w) % (uint64_t)w->stream_count],
      .target = t,
      /* Unique per block; the top byte (also the last byte's stamp) is
       * never 0, so zeroed memory does not pass. */
      .stamp = ((uint64_t)(w->id % 255 + 1) << 56) | w->next_stamp++,
  };
  b.mr = target_resource(r, t);
  if (b.mr == NULL) return;
  void *p = (void *)&b; /* must be replaced: the result or NULL */
  mr_clear_error();
  mr_status st = mr_allocate(b.mr, b.bytes, b.alignment, b.stream, &p);
  if (st != MR_OK) {
    atomic_fetch_add(&r->allocation_failures, 1);
    if (p != NULL)
      problem("a failed allocation left the pointer set",
              "%s: %zu bytes, alignment %zu: %s, pointer %p: %s", target_name(t), b.bytes,
              b.alignment, mr_status_name(st), p, mr_last_error());
    if (!expected_failure(st))
      problem("an allocation failed with an unexpected status", "%s: %zu bytes: %s: %s",
              target_name(t), b.bytes, mr_status_name(st), mr_last_error());
    if (mr_last_error()[0] == '\0')
      problem("an allocation failed without a message", "%s: %zu bytes: %s", target_name(t),
              b.bytes, mr_status_name(st));
    return;
  }
  atomic_fetch_add(&r->allocations, 1);
  if (p == NULL) {
    problem("MR_OK with a NULL pointer", "%s: %zu bytes, alignment %zu, stream %p", target_name(t),
            b.bytes, b.alignment, (void *)b.stream);
    return;
  }
  size_t need = b.alignment > t->spec->alignment ? b.alignment : t->spec->alignment;
  if ((uintptr_t)p % need != 0)
    problem("a pointer is not aligned as asked", "%s: %p for %zu bytes aligned to %zu",
            target_name(t), p, b.bytes, need);
  b.ptr = p;
  stamp_block(&b);
  w->live[w->live_count++] = b;
}

/* Free live block i, retrying a failed free until it succeeds. */
static void do_free(worker *w, int i) {
  run *r = w->r;
  block b = w->live[i];
  w->live[i] = w->live[--w->live_count];
  const char *name = target_name(b.target);
  if (!stamp_intact(&b))
    problem("a block changed while its owner held it (handed out twice?)",
            "%s: %p, %zu bytes, alignment %zu", name, b.ptr, b.bytes, b.alignment);
  mr_stream stream = b.stream;
  if (next_rand(w) % 10 == 0) stream = w->streams[next_rand(w) % (uint64_t)w->stream_count];
  char first_error[256] = "";
  mr_status first_status = MR_OK;
  for (int tries = 1;; tries++) {
    mr_status st = mr_deallocate(b.mr, b.ptr, b.bytes, b.alignment, stream);
    if (st == MR_OK) break;
    atomic_fetch_add(&r->free_failures, 1);
    if (st == MR_ERR_INVALID_ARGUMENT) {
      if (tries == 1)
        problem("the free of a live block was refused", "%s: %p, %zu bytes, alignment %zu: %s",
                name, b.ptr, b.bytes, b.alignment, mr_last_error());
      else
        problem("a failed free lost the block: the retry says it is not allocated here",
                "%s: %p, %zu bytes, alignment %zu, stream %p: first %s (%s), then after %d "
                "tries: %s",
                name, b.ptr, b.bytes, b.alignment, (void *)stream, mr_status_name(first_status),
                first_error, tries, mr_last_error());
      return; /* whose it is now is unknown: off our books */
    }
    if (tries == 1) {
      first_status = st;
      snprintf(first_error, sizeof first_error, "%s", mr_last_error());
    }
    if (!expected_failure(st))
      problem("a free failed with an unexpected status", "%s: %p, %zu bytes: %s: %s", name, b.ptr,
              b.bytes, mr_status_name(st), mr_last_error());
    if (tries == FREE_TRIES) {
      problem("a free never succeeded", "%s: %p, %zu bytes: %d tries, last: %s", name, b.ptr,
              b.bytes, tries, mr_last_error());
      return;
    }
  }
  atomic_fetch_add(&r->frees, 1);
}

/* A driver call of the test's own: retried past the random failures. */
#define RETRY_DRIVER(call)                                                                   \
  do {                                                                                       \
    CUresult r_ = CUDA_ERROR_UNKNOWN;                                                        \
    for (int t_ = 0; t_ < 1000 && r_ != CUDA_SUCCESS; t_++) r_ = (call);                     \
    if (r_ != CUDA_SUCCESS) problem("the test's own driver call kept failing", "%s", #call); \
  } while (0)

static void *worker_main(void *arg) {
  worker *w = arg;
  const mri_cuda_api *cu = mri_cuda();
  mr_status bound = MR_ERR_DRIVER;
  for (int t = 0; t < 1000 && bound != MR_OK; t++) bound = mri_ensure_context(0);
  if (bound != MR_OK) {
    problem("no context for a worker", "%s", mr_last_error());
    return NULL;
  }
  w->streams[0] = NULL;
  w->stream_count = 1;
  for (int i = 0; i < STREAMS; i++) {
    CUstream s = NULL;
    RETRY_DRIVER(cu->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    if (s != NULL) w->streams[w->stream_count++] = (mr_stream)s;
  }
  while (!atomic_load(&w->r->stop) && w->ops_left != 0) {
    if (w->ops_left > 0) w->ops_left--;
    bool allocate = w->live_count == 0 || (w->live_count < MAX_LIVE && next_rand(w) % 2 == 0);
    if (allocate)
      do_allocate(w);
    else
      do_free(w, (int)(next_rand(w) % (uint64_t)w->live_count));
  }
  while (w->live_count > 0) do_free(w, w->live_count - 1);
  /* The streams go before the thread does: nothing may name them again. */
  for (int i = 1; i < w->stream_count; i++)
    RETRY_DRIVER(cu->cuStreamDestroy((CUstream)w->streams[i]));
  return NULL;
}

typedef struct lane {
  run *r;
  int id;
  uint64_t rng;
} lane;

/* Short-lived threads, one after another, until told to stop. */
static void *lane_main(void *arg) {
  lane *l = arg;
  for (int generation = 0; !atomic_load(&l->r->stop); generation++) {
    worker *w = calloc(1, sizeof *w);
    if (w == NULL) {
      problem("the test ran out of host memory", "lane %d", l->id);
      return NULL;
    }
    *w = (worker){.r = l->r,
                  .id = l->id * 1000 + generation,
                  .rng = test_rand(&l->rng) | 1,
                  .ops_left = 50 + (long)(test_rand(&l->rng) % 250)};
    pthread_t t;
    if (pthread_create(&t, NULL, worker_main, w) != 0) {
      free(w);
      problem("pthread_create failed", "lane %d", l->id);
      return NULL;
    }
    pthread_join(t, NULL);
    free(w);
    atomic_fetch_add(&l->r->exited_threads, 1);
  }
  return NULL;
}

typedef struct trimmer {
  run *r;
  uint64_t rng;
} trimmer;

/* Trims now and then, from a thread with no context of its own. */
static void *trim_main(void *arg) {
  trimmer *tr = arg;
  run *r = tr->r;
  while (!atomic_load(&r->stop)) {
    sleep_ms(10 + (long)(test_rand(&tr->rng) % 20));
    const target *t = &r->targets[test_rand(&tr->rng) % (uint64_t)r->target_count];
    mr_resource *mr = t->tag < 0 ? t->mr : mr_context_get_mr_on(r->ctx, t->tag, 0);
    mr_clear_error();
    mr_status st = mr_resource_trim(mr);
    atomic_fetch_add(&r->trims, 1);
    if (st == MR_OK) continue;
    atomic_fetch_add(&r->trim_failures, 1);
    if (!expected_failure(st))
      problem("a trim failed with an unexpected status", "%s: %s: %s", target_name(t),
              mr_status_name(st), mr_last_error());
    if (mr_last_error()[0] == '\0')
      problem("a trim failed without a message", "%s: %s", target_name(t), mr_status_name(st));
  }
  return NULL;
}

/* ---- the run ---------------------------------------------------------------- */

static void hammer(run *r) {
  unsigned seed = stress_seed();
  long ms = stress_ms();
  exempt_entry_points();
  long failed_before = fake_cuda_random_failures();
  fake_cuda_fail_randomly(FAILURE_RATE, seed, CUDA_ERROR_OUT_OF_MEMORY);

  uint64_t rng = 0x9e3779b97f4a7c15ull * (seed + 1);
  worker workers[WORKERS - CHURN_LANES];
  lane lanes[CHURN_LANES];
  trimmer tr = {.r = r, .rng = test_rand(&rng) | 1};
  pthread_t threads[WORKERS + 1];
  int started = 0;
  for (int i = 0; i < WORKERS - CHURN_LANES; i++) {
    workers[i] = (worker){.r = r, .id = i, .rng = test_rand(&rng) | 1, .ops_left = -1};
    if (pthread_create(&threads[started], NULL, worker_main, &workers[i]) == 0) started++;
  }
  for (int i = 0; i < CHURN_LANES; i++) {
    lanes[i] = (lane){.r = r, .id = WORKERS + i, .rng = test_rand(&rng) | 1};
    if (pthread_create(&threads[started], NULL, lane_main, &lanes[i]) == 0) started++;
  }
  if (pthread_create(&threads[started], NULL, trim_main, &tr) == 0) started++;
  if (started != WORKERS + 1) problem("pthread_create failed", "%d of %d", started, WORKERS + 1);

  /* The sleeps only set how long the threads work; the failures are waited
   * for (meson's timeout catches threads that never call the driver). */
  sleep_ms(ms / 2);
  while (fake_cuda_random_failures() == failed_before) sleep_ms(5);
  fake_cuda_fail_randomly(FAILURE_RATE, seed + 1, CUDA_ERROR_UNKNOWN);
  long first_half = fake_cuda_random_failures();
  sleep_ms(ms - ms / 2);
  while (fake_cuda_random_failures() == first_half) sleep_ms(5);
  /* The threads free what they hold with failures still on, then exit. */
  atomic_store(&r->stop, true);
  for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
  fake_cuda_fail_randomly(0, 0, CUDA_SUCCESS);

  print_message("    %ld allocations (%ld failed), %ld frees (%ld failed tries), %ld trims "
                "(%ld failed), %ld short-lived threads exited, %ld driver calls failed\n",
                atomic_load(&r->allocations), atomic_load(&r->allocation_failures),
                atomic_load(&r->frees), atomic_load(&r->free_failures), atomic_load(&r->trims),
                atomic_load(&r->trim_failures), atomic_load(&r->exited_threads),
                fake_cuda_random_failures());
}

/* With failures off and every block freed: trim each resource, and check
 * the counts that must be back to zero. */
static void settle_and_check(run *r) {
  for (int i = 0; i < r->target_count; i++) {
    const target *t = &r->targets[i];
    int devices = t->tag < 0 ? 1 : mr_context_device_count(r->ctx);
    for (int d = 0; d < devices; d++) {
      mr_resource *mr = t->tag < 0 ? t->mr : mr_context_get_mr_on(r->ctx, t->tag, d);
      if (mr_resource_trim(mr) != MR_OK)
        problem("a trim failed with failures off", "%s on device %d: %s", target_name(t), d,
                mr_last_error());
    }
    if (t->tag >= 0) {
      mr_stats s;
      mr_stats_init(&s);
      if (mr_context_get_stats(r->ctx, t->tag, -1, &s) != MR_OK)
        problem("per-tag statistics could not be read", "%s: %s", target_name(t), mr_last_error());
      else if (s.current_bytes != 0 || s.current_count != 0)
        problem("per-tag statistics were not back to zero",
                "tag %s: current %" PRIu64 " bytes in %" PRIu64 " blocks (total %" PRIu64
                " blocks)",
                target_name(t), s.current_bytes, s.current_count, s.total_count);
      continue;
    }
    /* The spec-built adaptors' own books. */
    if (strncmp(t->spec->spec, "stats(limit(", 12) == 0) {
      mr_stats s;
      mr_stats_init(&s);
      size_t used = 0;
      if (mr_stats_resource_get(t->mr, &s) != MR_OK ||
          mr_limit_resource_used(mr_resource_upstream(t->mr), &used) != MR_OK)
        problem("stats or limit could not be read", "%s: %s", target_name(t), mr_last_error());
      else if (s.current_bytes != 0 || s.current_count != 0 || used != 0)
        problem("stats and limit were not back to zero",
                "%s: stats %" PRIu64 " bytes in %" PRIu64 " blocks, limit %zu bytes used",
                target_name(t), s.current_bytes, s.current_count, used);
    } else if (strncmp(t->spec->spec, "track(", 6) == 0) {
      size_t count = 0;
      if (mr_track_resource_foreach(t->mr, NULL, NULL, &count) != MR_OK || count != 0)
        problem("track still lists allocations", "%s: %zu", target_name(t), count);
    }
  }
}

/* Release everything, then the fake must hold nothing. */
static void release_and_check_fake(run *r, const char *what) {
  for (int i = 0; i < r->target_count; i++) mr_resource_release(r->targets[i].mr);
  mr_context_destroy(r->ctx);
  long allocations = fake_cuda_live_allocations();
  long events = fake_cuda_live_events();
  long streams = fake_cuda_live_streams();
  if (allocations != 0 || events != 0)
    problem("the fake driver still holds memory or events after everything was released",
            "%s: %ld live allocation%s, %ld live event%s", what, allocations,
            allocations == 1 ? "" : "s", events, events == 1 ? "" : "s");
  if (streams != 0) problem("the test left streams behind", "%s: %ld", what, streams);
}

/* One spec from mr_resource_from_spec; the state is its stress_spec. */
static void test_spec(void **state) {
  const stress_spec *spec = *state;
  problems_clear();
  run *r = calloc(1, sizeof *r);
  assert_non_null(r);
  r->targets[0] = (target){.spec = spec, .tag = -1};
  r->target_count = 1;
  assert_ok(mr_resource_from_spec(spec->spec, 0, &r->targets[0].mr));
  hammer(r);
  settle_and_check(r);
  release_and_check_fake(r, spec->spec);
  free(r);
  report_problems(spec->spec);
}

static mr_tag context_tags[SPEC_COUNT];

static mr_context_desc context_desc(void) {
  for (size_t i = 0; i < SPEC_COUNT; i++)
    context_tags[i] = (mr_tag){stress_specs[i].tag, stress_specs[i].spec};
  return (mr_context_desc){.size = sizeof(mr_context_desc),
                           .library = "stress",
                           .tags = context_tags,
                           .tag_count = SPEC_COUNT};
}

/* Every spec as a tag of one context, all at once through ctx_get_mr. */
static void test_context(void **state) {
  problems_clear();
  run *r = calloc(1, sizeof *r);
  assert_non_null(r);
  mr_context_desc desc = context_desc();
  assert_ok(mr_context_create(&desc, &r->ctx));
  for (size_t i = 0; i < SPEC_COUNT; i++)
    r->targets[i] = (target){.spec = &stress_specs[i], .tag = (int)i};
  r->target_count = (int)SPEC_COUNT;
  hammer(r);
  settle_and_check(r);
  release_and_check_fake(r, "context");
  free(r);
  report_problems("context");
}

/* Building resources and contexts while driver calls fail: a clean error
 * or a working resource, and nothing left behind either way. Failures are
 * on only while building (a resource torn down while the driver fails its
 * frees is another matter), so whatever is left names the build. The frees
 * themselves never fail here: a failed build gives back what it took, and
 * when the driver refuses that too nothing can be given back (destruction
 * has no one to report to); the hammer tests cover failing frees, where
 * the caller keeps the block and tries again. */
static void check_nothing_left(const char *what, int round, mr_status st) {
  long allocations = fake_cuda_live_allocations(), events = fake_cuda_live_events();
  if (allocations == 0 && events == 0) return;
  problem("a build under failures left memory or events behind",
          "%s (round %d, %s: %s): %ld allocation%s, %ld event%s", what, round, mr_status_name(st),
          st == MR_OK ? "built" : mr_last_error(), allocations, allocations == 1 ? "" : "s", events,
          events == 1 ? "" : "s");
  fake_cuda_reset(); /* start the next build from nothing */
  mri_ensure_context(0);
}

static void test_creation_under_failures(void **state) {
  problems_clear();
  unsigned seed = stress_seed();
  int built = 0, refused = 0;
  long failed_calls = 0;
  for (int round = 0; round < 20; round++) {
    for (size_t i = 0; i <= SPEC_COUNT; i++) {
      const char *what = i < SPEC_COUNT ? stress_specs[i].spec : "context";
      exempt_entry_points();
      static const char *const frees[] = {"cuMemFreeAsync", "cuMemFree", "cuMemFreeHost"};
      for (size_t f = 0; f < sizeof frees / sizeof frees[0]; f++)
        fake_cuda_fail_randomly_exempt(frees[f], true);
      long failed_before = fake_cuda_random_failures();
      fake_cuda_fail_randomly(0.05, seed++, CUDA_ERROR_UNKNOWN);
      mr_resource *mr = NULL;
      mr_context *ctx = NULL;
      mr_status st;
      mr_clear_error();
      if (i < SPEC_COUNT) {
        mr = (mr_resource *)&mr; /* must be replaced */
        st = mr_resource_from_spec(what, 0, &mr);
      } else {
        mr_context_desc desc = context_desc();
        ctx = (mr_context *)&ctx;
        st = mr_context_create(&desc, &ctx);
      }
      failed_calls += fake_cuda_random_failures() - failed_before;
      fake_cuda_fail_randomly(0, 0, CUDA_SUCCESS);
      void *made = i < SPEC_COUNT ? (void *)mr : (void *)ctx;
      if (st == MR_OK && made == NULL) problem("MR_OK without a result", "%s", what);
      if (st != MR_OK && (made != NULL || mr_last_error()[0] == '\0'))
        problem("a failed build was not clean", "%s: %s, result %p: %s", what, mr_status_name(st),
                made, mr_last_error());
      if (st == MR_OK) {
        built++;
        mr_resource_release(mr);
        mr_context_destroy(ctx);
      } else {
        refused++;
      }
      check_nothing_left(what, round, st);
    }
  }
  print_message("    %d built, %d refused, %ld driver calls failed\n", built, refused,
                failed_calls);
  report_problems("creation");
}

int main(void) {
  struct CMUnitTest tests[SPEC_COUNT + 2];
  size_t n = 0;
  tests[n++] = (struct CMUnitTest){"creation under failures", test_creation_under_failures,
                                   fake_test_setup, NULL, NULL};
  for (size_t i = 0; i < SPEC_COUNT; i++)
    tests[n++] = (struct CMUnitTest){stress_specs[i].spec, test_spec, fake_test_setup, NULL,
                                     (void *)&stress_specs[i]};
  tests[n++] = (struct CMUnitTest){"context with every spec as a tag", test_context,
                                   fake_test_setup, NULL, NULL};
  return _cmocka_run_group_tests("stress", tests, n, NULL, NULL);
}

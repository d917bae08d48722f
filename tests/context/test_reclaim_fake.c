/*
 * test_reclaim_fake.c (fake): one process, one memory. Two libraries share
 * a 16 GiB fake device. Library A (its own context, a tag of cache, arena,
 * fixed, stats(cache) or plain device) allocates 11 GiB and frees it;
 * library B (another context, a `device` tag) then asks for 8 GiB, which
 * only the process-wide reclaim of A's idle memory can give it. With A's
 * memory live, B fails cleanly, its message says what the reclaim took
 * back, and A's bytes are intact. Also: A's memory idle in the stacks of
 * another thread that is still alive, cudaMalloc users (sync_device) after
 * a plain `device` tag freed, and threads that run out together. And what
 * operators see of it: the idle memory and reclaims in snapshots and
 * print_stats, MRCTX_VERBOSE's line per reclaim, the out-of-memory dump,
 * and the message of an allocation that still fails.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context/context_internal.h"
#include "context/snapshot_internal.h"
#include "core/reclaim.h"
#include "fake_test.h"

#define MiB ((size_t)1 << 20)
/* The table's unit: GiB, or MiB under a sanitizer, whose bookkeeping of
 * every byte freed (ThreadSanitizer's) would take minutes per GiB. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifdef SANITIZED
#define UNIT MiB
#define UNIT_NAME "MiB"
#else
#define UNIT ((size_t)1 << 30)
#define UNIT_NAME "GiB"
#endif
#define A_BLOCKS 11

enum { WORK };

typedef struct library {
  mr_context *ctx;
  mr_tag tag;
  char overrides[256];
} library;

/* A context whose one tag is `spec` on device 0 and host memory on the
 * others (a fixed resource takes its first slab at creation). */
static void library_create(library *lib, const char *name, const char *spec) {
  int devices = 0;
  assert_ok(mr_device_count(&devices));
  lib->tag = (mr_tag){"work", spec};
  lib->overrides[0] = '\0';
  for (int d = 1; d < devices; d++) {
    size_t used = strlen(lib->overrides);
    snprintf(lib->overrides + used, sizeof lib->overrides - used, "work@%d=host;", d);
  }
  mr_context_desc desc = {.size = sizeof desc,
                          .library = name,
                          .tags = &lib->tag,
                          .tag_count = 1,
                          .overrides = lib->overrides};
  assert_ok(mr_context_create(&desc, &lib->ctx));
}

/* A's bytes: a pattern at the start and end of each block (fake device
 * memory is host memory). */
static void write_pattern(void *p, size_t bytes, unsigned char seed) {
  memset(p, seed, 4096);
  memset((char *)p + bytes - 4096, seed ^ 0xff, 4096);
}

static bool pattern_intact(const void *p, size_t bytes, unsigned char seed) {
  const unsigned char *c = p;
  for (size_t i = 0; i < 4096; i++)
    if (c[i] != seed || c[bytes - 4096 + i] != (unsigned char)(seed ^ 0xff)) return false;
  return true;
}

static void a_allocate(mr_resource *mr, void **blocks) {
  for (int i = 0; i < A_BLOCKS; i++) {
    assert_ok(mr_allocate(mr, UNIT, 0, NULL, &blocks[i]));
    write_pattern(blocks[i], UNIT, (unsigned char)(0x30 + i));
  }
}

static void a_free(mr_resource *mr, void **blocks) {
  for (int i = 0; i < A_BLOCKS; i++) {
    assert_ok(mr_deallocate(mr, blocks[i], UNIT, 0, NULL));
    blocks[i] = NULL;
  }
}

static int setup(void **state) {
  int rc = fake_test_setup(state);
  if (rc == 0 && fake_cuda_set_total_memory(0, 16 * UNIT) != CUDA_SUCCESS) rc = -1;
  return rc;
}

/* The table, one row: A = `a_spec` allocates 11 UNIT; B (`b_spec`)
 * asks for 8 UNIT, with A's memory live (must fail cleanly, A intact) and
 * after A freed it (must succeed), trimming the driver pools (`trims`) or
 * not: an adaptor's idle memory goes back to the default pool beneath it,
 * where B's allocation from that pool finds it without a trim, which would
 * unmap the memory only for B to map it again (about a millisecond per GiB
 * on an H200); cuMemAlloc (sync_device) needs the trim. */
static void table_row_trims(const char *a_spec, const char *b_spec, bool trims) {
  library a, b;
  library_create(&a, "liba", a_spec);
  library_create(&b, "libb", b_spec);
  mr_resource *amr = mr_context_get_mr_on(a.ctx, WORK, 0);
  mr_resource *bmr = mr_context_get_mr_on(b.ctx, WORK, 0);
  void *blocks[A_BLOCKS];
  a_allocate(amr, blocks);

  void *p = NULL;
  assert_status(mr_allocate(bmr, 8 * UNIT, 0, NULL, &p), MR_ERR_OUT_OF_MEMORY);
  assert_null(p);
  assert_error_contains("process-wide reclaim took back");
  for (int i = 0; i < A_BLOCKS; i++)
    assert_true(pattern_intact(blocks[i], UNIT, (unsigned char)(0x30 + i)));

  a_free(amr, blocks);
  long trims_before = fake_cuda_calls("cuMemPoolTrimTo");
  assert_ok(mr_allocate(bmr, 8 * UNIT, 0, NULL, &p));
  assert_non_null(p);
  assert_int_equal(fake_cuda_calls("cuMemPoolTrimTo") > trims_before, trims);
  memset(p, 0x5a, 4096);
  assert_ok(mr_deallocate(bmr, p, 8 * UNIT, 0, NULL));
  mr_context_destroy(b.ctx);
  mr_context_destroy(a.ctx);
}

static void table_row(const char *a_spec, const char *b_spec) {
  table_row_trims(a_spec, b_spec, strcmp(b_spec, "sync_device") == 0);
}

static void test_cache(void **state) { table_row("cache(device)", "device"); }
static void test_arena(void **state) { table_row("arena(device, chunk=1" UNIT_NAME ")", "device"); }
static void test_fixed(void **state) {
  table_row("fixed(device, block=1" UNIT_NAME ", count=11)", "device");
}
static void test_stats_cache(void **state) { table_row("stats(cache(device))", "device"); }
/* Plain device: its freed memory stays reserved in the default pool, whose
 * release threshold mrctx raised; B's pool allocation reuses it anyway,
 * but cuMemAlloc (sync_device, as PyTorch's and cuBLAS's cudaMalloc) gets
 * it only from the reclaim's trim of that pool. */
static void test_device(void **state) { table_row("device", "device"); }
static void test_device_then_cuda_malloc(void **state) { table_row("device", "sync_device"); }

/* A's memory idle in the stacks and heaps of a thread that is still alive
 * (it waits for the test to let it end). */
typedef struct worker {
  mr_resource *mr;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int phase; /* 1: allocated and freed; 2: may end */
  mr_status status;
} worker;

static void *worker_main(void *arg) {
  worker *w = arg;
  fake_bind(0);
  void *blocks[A_BLOCKS];
  void *small[16];
  mr_status st = MR_OK;
  for (int i = 0; i < A_BLOCKS && st == MR_OK; i++)
    st = mr_allocate(w->mr, UNIT, 0, NULL, &blocks[i]);
  for (int i = 0; i < 16 && st == MR_OK; i++) st = mr_allocate(w->mr, 64 << 10, 0, NULL, &small[i]);
  for (int i = 0; i < 16 && st == MR_OK; i++)
    st = mr_deallocate(w->mr, small[i], 64 << 10, 0, NULL);
  for (int i = 0; i < A_BLOCKS && st == MR_OK; i++)
    st = mr_deallocate(w->mr, blocks[i], UNIT, 0, NULL);
  pthread_mutex_lock(&w->lock);
  w->status = st;
  w->phase = 1;
  pthread_cond_broadcast(&w->cond);
  while (w->phase != 2) pthread_cond_wait(&w->cond, &w->lock);
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

static void test_idle_on_a_live_thread(void **state) {
  library a, b;
  library_create(&a, "liba", "cache(device)");
  library_create(&b, "libb", "device");
  worker w = {.mr = mr_context_get_mr_on(a.ctx, WORK, 0)};
  pthread_mutex_init(&w.lock, NULL);
  pthread_cond_init(&w.cond, NULL);
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, worker_main, &w), 0);
  pthread_mutex_lock(&w.lock);
  while (w.phase != 1) pthread_cond_wait(&w.cond, &w.lock);
  pthread_mutex_unlock(&w.lock);
  assert_ok(w.status);
  /* The context's chain ends in retry(cache(device)). */
  mr_resource *cache = w.mr;
  while (cache != NULL && strcmp(mr_resource_name(cache), "cache") != 0)
    cache = mr_resource_upstream(cache);
  assert_non_null(cache);
  mr_cache_stats stats = {.size = sizeof stats};
  assert_ok(mr_cache_resource_get_stats(cache, &stats));
  assert_true(stats.cached_bytes >= A_BLOCKS * UNIT);

  /* The whole device: every byte A keeps, its thread's stacks included,
   * must go back. */
  mr_resource *bmr = mr_context_get_mr_on(b.ctx, WORK, 0);
  void *p = NULL;
  assert_ok(mr_allocate(bmr, 16 * UNIT, 0, NULL, &p));
  assert_ok(mr_deallocate(bmr, p, 16 * UNIT, 0, NULL));
  assert_ok(mr_cache_resource_get_stats(cache, &stats));
  assert_int_equal(stats.cached_bytes, 0);

  pthread_mutex_lock(&w.lock);
  w.phase = 2;
  pthread_cond_broadcast(&w.cond);
  pthread_mutex_unlock(&w.lock);
  pthread_join(thread, NULL);
  pthread_cond_destroy(&w.cond);
  pthread_mutex_destroy(&w.lock);
  mr_context_destroy(b.ctx);
  mr_context_destroy(a.ctx);
}

/* On demand: mr_release_idle gives back what A keeps idle (its chunks,
 * then the default pool's reservation they went to) and says how much,
 * each byte once; the fake device's memory is all free again. */
static void test_release_idle(void **state) {
  library a;
  library_create(&a, "liba", "arena(device, chunk=1" UNIT_NAME ")");
  mr_resource *amr = mr_context_get_mr_on(a.ctx, WORK, 0);
  void *blocks[A_BLOCKS];
  a_allocate(amr, blocks);
  a_free(amr, blocks);
  uint64_t free_before = 0, total = 0;
  assert_ok(mr_device_get_memory(0, &free_before, &total));
  assert_true(free_before <= total - A_BLOCKS * UNIT);
  size_t released = 0;
  assert_status(mr_release_idle(-2, 0, &released), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("device -2");
  assert_ok(mr_release_idle(1, 0, &released)); /* another device: nothing of A's */
  assert_int_equal(released, 0);
  assert_ok(mr_release_idle(0, 0, &released));
  assert_int_equal(released, A_BLOCKS * UNIT);
  uint64_t free_after = 0;
  assert_ok(mr_device_get_memory(0, &free_after, &total));
  assert_int_equal(free_after, total);
  assert_ok(mr_release_idle(-1, 0, NULL));
  mr_context_destroy(a.ctx);
}

/* keep=yes: what A keeps idle stays A's, whatever runs out; B's failure
 * says how much stayed idle; A's own trim still gives it back. A bin's
 * keep covers its classes. C and the spec build the same object. */
static void test_keep(void **state) {
  library a, b;
  library_create(&a, "liba", "fixed(device, block=1" UNIT_NAME ", count=11, keep=yes)");
  library_create(&b, "libb", "device");
  mr_resource *amr = mr_context_get_mr_on(a.ctx, WORK, 0);
  mr_resource *fixed = amr;
  while (fixed != NULL && strcmp(mr_resource_name(fixed), "fixed") != 0)
    fixed = mr_resource_upstream(fixed);
  assert_non_null(fixed);
  assert_string_equal(mr_resource_describe(fixed),
                      "fixed(device, block=1" UNIT_NAME ", count=11, keep=yes)");
  void *blocks[A_BLOCKS];
  a_allocate(amr, blocks);
  a_free(amr, blocks);

  mr_resource *bmr = mr_context_get_mr_on(b.ctx, WORK, 0);
  void *p = NULL;
  assert_status(mr_allocate(bmr, 8 * UNIT, 0, NULL, &p), MR_ERR_OUT_OF_MEMORY);
  assert_error_contains("11.0 " UNIT_NAME " stays idle");
  size_t released = 1;
  assert_ok(mr_release_idle(0, 0, &released));
  assert_int_equal(released, 0);

  assert_ok(mr_resource_trim(fixed));
  assert_ok(mr_allocate(bmr, 8 * UNIT, 0, NULL, &p));
  assert_ok(mr_deallocate(bmr, p, 8 * UNIT, 0, NULL));
  mr_context_destroy(b.ctx);
  mr_context_destroy(a.ctx);

  /* keep=no, and a bin's classes (the default pool emptied first: it
   * keeps what B and A's trim gave it). */
  assert_ok(mr_release_idle(0, 0, NULL));
  mr_resource *bin = NULL;
  assert_ok(mr_resource_from_spec("bin(device, min=1MiB, max=2MiB, count=4, keep=yes)", 0, &bin));
  assert_string_equal(mr_resource_describe(bin),
                      "bin(device, min=1MiB, max=2MiB, count=4, keep=yes)");
  assert_ok(mr_release_idle(0, 0, &released));
  assert_int_equal(released, 0);
  assert_ok(mr_resource_keep_idle(bin, false));
  assert_string_equal(mr_resource_describe(bin), "bin(device, min=1MiB, max=2MiB, count=4)");
  assert_ok(mr_release_idle(0, 0, &released));
  assert_int_equal(released, 12 * MiB);
  mr_resource_release(bin);

  mr_resource *device = NULL;
  assert_ok(mr_resource_from_spec("device", 0, &device));
  assert_status(mr_resource_keep_idle(device, true), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("keeps no idle memory");
  mr_resource *cache = NULL;
  assert_status(mr_resource_from_spec("cache(device, keep=maybe)", 0, &cache), MR_ERR_CONFIG);
  assert_ok(mr_resource_from_spec("cache(device, keep=no)", 0, &cache));
  assert_string_equal(mr_resource_describe(cache), "cache(device)");
  mr_resource_release(cache);
  mr_resource_release(device);
}

/* Threads that run out together: each keeps 16 MiB idle in a cache of its
 * own, then all ask a shared `device` resource for 16 MiB on a 64 MiB
 * device at once. Each allocation needs the others' idle memory; all
 * succeed, and they share reclaims (at most one per thread, fewer when
 * they overlap). */
#define RACERS 4

typedef struct racer {
  mr_resource *own, *shared;
  pthread_barrier_t *barrier;
  mr_status kept, got;
  void *p;
} racer;

static void *racer_main(void *arg) {
  racer *r = arg;
  fake_bind(0);
  void *p = NULL;
  r->kept = mr_allocate(r->own, 16 * MiB, 0, NULL, &p);
  if (r->kept == MR_OK) r->kept = mr_deallocate(r->own, p, 16 * MiB, 0, NULL);
  pthread_barrier_wait(r->barrier);
  r->got = mr_allocate(r->shared, 16 * MiB, 0, NULL, &r->p);
  return NULL;
}

static void test_concurrent_failures_share_reclaims(void **state) {
  assert_int_equal(fake_cuda_set_total_memory(0, 64 * MiB), CUDA_SUCCESS);
  mr_resource *device = NULL;
  assert_ok(mr_resource_from_spec("device", 0, &device));
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, RACERS);
  racer racers[RACERS];
  pthread_t threads[RACERS];
  for (int i = 0; i < RACERS; i++) {
    racers[i] = (racer){.shared = device, .barrier = &barrier};
    assert_ok(mr_resource_from_spec("cache(device)", 0, &racers[i].own));
  }
  uint64_t before = mri_reclaim_generation();
  for (int i = 0; i < RACERS; i++)
    assert_int_equal(pthread_create(&threads[i], NULL, racer_main, &racers[i]), 0);
  for (int i = 0; i < RACERS; i++) pthread_join(threads[i], NULL);
  uint64_t reclaims = mri_reclaim_generation() - before;
  for (int i = 0; i < RACERS; i++) {
    assert_ok(racers[i].kept);
    assert_ok(racers[i].got);
    assert_ok(mr_deallocate(device, racers[i].p, 16 * MiB, 0, NULL));
    mr_resource_release(racers[i].own);
  }
  assert_in_range(reclaims, 1, RACERS);
  pthread_barrier_destroy(&barrier);
  mr_resource_release(device);
}

/* Reclaims while other threads allocate and free in the caches they
 * reclaim from (ThreadSanitizer runs this): every allocation succeeds,
 * every block keeps its bytes, nothing deadlocks. */
#define CHURNERS 3
#define CHURN_ROUNDS 2000

typedef struct churner {
  mr_resource *mr;
  atomic_int *running;
  int bad;
} churner;

static void *churn_main(void *arg) {
  churner *c = arg;
  fake_bind(0);
  for (int round = 0; round < CHURN_ROUNDS; round++) {
    size_t bytes = (size_t)(256 << (round % 12)); /* 256 B to 512 KiB: the threads' stacks */
    unsigned char *p = NULL;
    if (mr_allocate(c->mr, bytes, 0, NULL, (void **)&p) != MR_OK) {
      c->bad++;
      continue;
    }
    p[0] = p[bytes - 1] = (unsigned char)round;
    if (p[0] != (unsigned char)round || p[bytes - 1] != (unsigned char)round) c->bad++;
    if (mr_deallocate(c->mr, p, bytes, 0, NULL) != MR_OK) c->bad++;
  }
  atomic_fetch_sub(c->running, 1);
  return NULL;
}

static void test_reclaim_during_allocations(void **state) {
  mr_resource *shared = NULL, *own[CHURNERS];
  assert_ok(mr_resource_from_spec("cache(device)", 0, &shared));
  atomic_int running = CHURNERS;
  churner churners[CHURNERS];
  pthread_t threads[CHURNERS];
  for (int i = 0; i < CHURNERS; i++) {
    assert_ok(mr_resource_from_spec("cache(device)", 0, &own[i]));
    /* Half share a cache, half have their own. */
    churners[i] = (churner){.mr = i % 2 ? own[i] : shared, .running = &running};
    assert_int_equal(pthread_create(&threads[i], NULL, churn_main, &churners[i]), 0);
  }
  /* At least one reclaim, even when the churners end first. */
  size_t reclaims = 0;
  do {
    assert_ok(mr_release_idle(0, 0, NULL));
    reclaims++;
  } while (atomic_load(&running) > 0);
  for (int i = 0; i < CHURNERS; i++) {
    pthread_join(threads[i], NULL);
    assert_int_equal(churners[i].bad, 0);
    mr_resource_release(own[i]);
  }
  assert_true(reclaims > 0);
  mr_resource_release(shared);
}

/* ---- what operators see ------------------------------------------------------------ */

/* The slot of `library`'s tag on device 0 in `snap`. */
static const mri_snap_slot *slot_of(const mr_snapshot *snap, const char *name) {
  for (size_t c = 0; c < snap->context_count; c++)
    if (strcmp(snap->contexts[c].library, name) == 0) return &snap->contexts[c].tags[0].slots[0];
  fail_msg("no context of %s in the snapshot", name);
  return NULL;
}

/* The process's list's entry named after `owner`. */
static const mri_snap_idle *listed(const mr_snapshot *snap, const char *owner) {
  assert_true(snap->has_idle);
  for (size_t i = 0; i < snap->idle_count; i++)
    if (snap->idle[i].owner != NULL && strcmp(snap->idle[i].owner, owner) == 0)
      return &snap->idle[i];
  fail_msg("%s is not in the snapshot's idle_memory", owner);
  return NULL;
}

/* What `write` puts out, as a string (malloc'd). */
static char *text_of(mr_status (*write)(const mr_snapshot *, FILE *), const mr_snapshot *snap) {
  char *text = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  assert_non_null(out);
  assert_ok(write(snap, out));
  assert_int_equal(fclose(out), 0);
  return text;
}

/* The JSON of `snap` read back writes the same bytes. */
static void assert_round_trip(const mr_snapshot *snap) {
  char *json = text_of(mr_snapshot_write_json, snap);
  mr_snapshot *back = NULL;
  assert_ok(mr_snapshot_read(json, strlen(json), &back));
  char *again = text_of(mr_snapshot_write_json, back);
  assert_string_equal(json, again);
  free(again);
  free(json);
  mr_snapshot_destroy(back);
}

/* A snapshot, print_stats and the `mrctx snapshot` tables show what a
 * tag's cache keeps idle, none of it after mr_release_idle, and what the
 * reclaims took back: one on demand, one when another library ran out. */
static void test_snapshot_shows_idle_and_reclaims(void **state) {
  library a, b;
  library_create(&a, "liba", "cache(device)");
  library_create(&b, "libb", "device");
  mr_resource *amr = mr_context_get_mr_on(a.ctx, WORK, 0);
  void *blocks[A_BLOCKS];
  a_allocate(amr, blocks);
  a_free(amr, blocks);

  mr_snapshot *snap = NULL;
  assert_ok(mr_snapshot_take(NULL, &snap));
  const mri_snap_slot *s = slot_of(snap, "liba");
  assert_int_equal(s->idle_count, 1);
  assert_string_equal(s->idle[0].resource, "cache(device)");
  /* What the cache holds: A's blocks, rounded up to its segments (1 MiB
   * blocks under a sanitizer take 2 MiB segments). */
  uint64_t held = s->idle[0].idle_bytes;
  assert_in_range(held, A_BLOCKS * UNIT, 2 * A_BLOCKS * UNIT);
  assert_int_equal(s->idle[0].reclaims, 0);
  assert_false(s->idle[0].keep);
  assert_int_equal(slot_of(snap, "libb")->idle_count, 0); /* device keeps nothing itself */
  assert_int_equal(listed(snap, "liba:work")->idle_bytes, held);
  assert_int_equal(listed(snap, "liba:work")->device, 0);
  char *text = text_of(mr_snapshot_write_text, snap);
  assert_non_null(strstr(text, "\nidle memory, most first"));
  char human[32], line[160];
  mri_format_bytes_human(held, human, sizeof human);
  snprintf(line, sizeof line,
           "\nliba:work        0 %10s        0        0 B     0.000  cache(device)\n", human);
  assert_non_null(strstr(text, line));
  free(text);
  assert_round_trip(snap);
  mr_snapshot_destroy(snap);

  char *stats = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&stats, &length);
  assert_ok(mr_context_print_stats(a.ctx, out));
  assert_int_equal(fclose(out), 0);
  assert_non_null(strstr(stats, "\nidle memory (the process-wide reclaim"));
  snprintf(line, sizeof line, "\nwork      0 %10s        0        0 B     0.000  cache(device)\n",
           human);
  assert_non_null(strstr(stats, line));
  free(stats);

  /* On demand: nothing idle after, one reclaim that took it all. */
  assert_ok(mr_release_idle(0, 0, NULL));
  assert_ok(mr_snapshot_take(NULL, &snap));
  s = slot_of(snap, "liba");
  assert_int_equal(s->idle[0].idle_bytes, 0);
  assert_int_equal(s->idle[0].reclaims, 1);
  assert_int_equal(s->idle[0].reclaimed_bytes, held);
  mr_snapshot_destroy(snap);

  /* Another library runs out: the reclaim it triggers is counted too. */
  a_allocate(amr, blocks);
  a_free(amr, blocks);
  mr_resource *bmr = mr_context_get_mr_on(b.ctx, WORK, 0);
  void *p = NULL;
  assert_ok(mr_allocate(bmr, 8 * UNIT, 0, NULL, &p));
  assert_ok(mr_snapshot_take(NULL, &snap));
  s = slot_of(snap, "liba");
  assert_int_equal(s->idle[0].idle_bytes, 0);
  assert_int_equal(s->idle[0].reclaims, 2);
  assert_int_equal(s->idle[0].reclaimed_bytes, 2 * held);
  assert_true(s->idle[0].reclaim_ns > 0);
  assert_round_trip(snap);
  mr_snapshot_destroy(snap);
  assert_ok(mr_deallocate(bmr, p, 8 * UNIT, 0, NULL));
  mr_context_destroy(b.ctx);
  mr_context_destroy(a.ctx);
}

/* Everything `run` writes on stderr (malloc'd). */
static char *capture_stderr(void (*run)(void *), void *arg) {
  fflush(stderr);
  char path[] = "/tmp/mrctx-reclaim-stderr-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  int saved = dup(2);
  assert_int_equal(dup2(fd, 2), 2);
  run(arg);
  fflush(stderr);
  assert_int_equal(dup2(saved, 2), 2);
  close(saved);
  close(fd);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char *said = calloc(1, 8192);
  assert_non_null(said);
  size_t n = fread(said, 1, 8191, f);
  said[n] = '\0';
  fclose(f);
  unlink(path);
  return said;
}

typedef struct two_libraries {
  library a, b;
  mr_status got;
} two_libraries;

/* A frees 11 UNIT into its cache; B asks for 8 (a reclaim); then an
 * on-demand reclaim of everything that finds nothing. */
static void run_out_and_release(void *arg) {
  two_libraries *t = arg;
  mr_resource *amr = mr_context_get_mr_on(t->a.ctx, WORK, 0);
  void *blocks[A_BLOCKS];
  a_allocate(amr, blocks);
  a_free(amr, blocks);
  mr_resource *bmr = mr_context_get_mr_on(t->b.ctx, WORK, 0);
  void *p = NULL;
  t->got = mr_allocate(bmr, 8 * UNIT, 0, NULL, &p);
  if (t->got == MR_OK) t->got = mr_deallocate(bmr, p, 8 * UNIT, 0, NULL);
  if (t->got == MR_OK) t->got = mr_release_idle(-1, 0, NULL);
}

/* keep= and idle= give a resource a new description: a driver pool's
 * reclaimer, which names the pool by its description, names it by the new
 * one (it kept the freed one before, and the snapshot read it). */
static void test_renamed_pool_in_reports(void **state) {
  mr_resource *pool = NULL;
  assert_ok(mr_resource_from_spec("pool(kind=device)", 0, &pool));
  void *p = NULL;
  assert_ok(mr_allocate(pool, UNIT, 0, NULL, &p));
  assert_ok(mr_deallocate(pool, p, UNIT, 0, NULL));
  assert_ok(mr_resource_keep_idle(pool, true));
  assert_ok(mr_resource_set_idle_time(pool, 5 * UINT64_C(1000000000)));
  const char *now = mr_resource_describe(pool);
  assert_non_null(strstr(now, "keep=yes"));
  mr_snapshot *snap = NULL;
  assert_ok(mr_snapshot_take(NULL, &snap));
  assert_true(snap->has_idle);
  size_t found = 0;
  for (size_t i = 0; i < snap->idle_count; i++) found += strcmp(snap->idle[i].resource, now) == 0;
  assert_int_equal(found, 1);
  mr_snapshot_destroy(snap);
  mr_resource_release(pool);
}

/* MRCTX_VERBOSE: one line per reclaim, saying what started it, what it
 * took back from how many resources, and how long it took. */
static void test_verbose_line_per_reclaim(void **state) {
  assert_int_equal(setenv("MRCTX_VERBOSE", "1", 1), 0);
  mri_reclaim_forget_env();
  two_libraries t;
  library_create(&t.a, "liba", "cache(device)");
  library_create(&t.b, "libb", "device");
  char *said = capture_stderr(run_out_and_release, &t);
  assert_int_equal(unsetenv("MRCTX_VERBOSE"), 0);
  mri_reclaim_forget_env();
  assert_ok(t.got);
  const char *oom =
      strstr(said, "mrctx: reclaim (out of memory on device 0 for 8.0 " UNIT_NAME "): took back ");
  if (oom == NULL) fail_msg("no reclaim line for the out of memory in:\n%s", said);
  assert_non_null(strstr(oom, " ms; 0 B stays idle\n"));
  const char *request =
      strstr(said, "mrctx: reclaim (release_idle on every device, everything): took back ");
  if (request == NULL) fail_msg("no reclaim line for mr_release_idle in:\n%s", said);
  assert_true(request > oom);
  free(said);
  mr_context_destroy(t.b.ctx);
  mr_context_destroy(t.a.ctx);
}

/* An allocation that still fails after the reclaim: its message names the
 * other libraries' tags that held idle memory, most first (one kept by
 * keep=yes, one taken back), and the out-of-memory dump records what was
 * idle where and what the reclaim took back. */
static void test_failure_names_idle_elsewhere(void **state) {
  char path[] = "/tmp/mrctx-reclaim-oom-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(setenv("MRCTX_OOM_SNAPSHOT", path, 1), 0);
  mri_oom_forget_env();
  library a, c, b;
  library_create(&a, "liba", "fixed(device, block=1" UNIT_NAME ", count=11, keep=yes)");
  library_create(&c, "libc", "cache(device)");
  library_create(&b, "libb", "device");
  void *blocks[A_BLOCKS];
  mr_resource *amr = mr_context_get_mr_on(a.ctx, WORK, 0);
  a_allocate(amr, blocks);
  a_free(amr, blocks);
  mr_resource *cmr = mr_context_get_mr_on(c.ctx, WORK, 0);
  void *two = NULL;
  assert_ok(mr_allocate(cmr, 2 * UNIT, 0, NULL, &two));
  assert_ok(mr_deallocate(cmr, two, 2 * UNIT, 0, NULL));

  mr_resource *bmr = mr_context_get_mr_on(b.ctx, WORK, 0);
  void *p = NULL;
  assert_status(mr_allocate(bmr, 8 * UNIT, 0, NULL, &p), MR_ERR_OUT_OF_MEMORY);
  assert_error_contains("; idle on device 0 in other libraries' tags before the reclaim, most "
                        "first: liba:work 11.0 " UNIT_NAME " (stays idle: keep=yes), libc:work "
                        "2.0 " UNIT_NAME " (taken back)");
  assert_int_equal(unsetenv("MRCTX_OOM_SNAPSHOT"), 0);
  mri_oom_forget_env();

  FILE *f = fopen(path, "r");
  assert_non_null(f);
  static char json[1 << 20];
  size_t n = fread(json, 1, sizeof json - 1, f);
  fclose(f);
  unlink(path);
  json[n] = '\0';
  mr_snapshot *snap = NULL;
  assert_ok(mr_snapshot_read(json, n, &snap));
  assert_true(snap->has_oom);
  assert_true(snap->oom.has_reclaim);
  assert_false(snap->oom.reclaim_shared);
  assert_int_equal(snap->oom.reclaim_released, 2 * UNIT);
  assert_int_equal(snap->oom.reclaim_kept, A_BLOCKS * UNIT);
  assert_non_null(strstr(snap->oom.message, "liba:work 11.0 " UNIT_NAME " (stays idle: keep=yes)"));
  const mri_snap_idle *kept = listed(snap, "liba:work");
  assert_true(kept->keep);
  assert_int_equal(kept->idle_bytes, A_BLOCKS * UNIT);
  assert_int_equal(kept->reclaims, 0);
  const mri_snap_idle *taken = listed(snap, "libc:work");
  assert_int_equal(taken->idle_bytes, 0);
  assert_int_equal(taken->reclaims, 1);
  assert_int_equal(taken->reclaimed_bytes, 2 * UNIT);
  char *text = text_of(mr_snapshot_write_text, snap);
  assert_non_null(
      strstr(text, "\n  the process-wide reclaim before it took back 2.0 " UNIT_NAME " from "));
  assert_non_null(strstr(text, "; 11.0 " UNIT_NAME " stayed idle\n"));
  free(text);
  mr_snapshot_destroy(snap);

  /* Nothing idle elsewhere: said so. */
  assert_ok(mr_resource_trim(mr_resource_upstream(amr)));
  assert_ok(mr_release_idle(0, 0, NULL));
  a_allocate(amr, blocks);
  assert_status(mr_allocate(bmr, 8 * UNIT, 0, NULL, &p), MR_ERR_OUT_OF_MEMORY);
  assert_error_contains("; no other library's tag held idle memory on device 0");
  a_free(amr, blocks);
  mr_context_destroy(b.ctx);
  mr_context_destroy(c.ctx);
  mr_context_destroy(a.ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_cache, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_arena, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_fixed, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_stats_cache, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_device, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_device_then_cuda_malloc, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_idle_on_a_live_thread, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_release_idle, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_keep, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_concurrent_failures_share_reclaims, setup,
                                      fake_teardown),
      cmocka_unit_test_setup_teardown(test_reclaim_during_allocations, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_snapshot_shows_idle_and_reclaims, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_verbose_line_per_reclaim, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_failure_names_idle_elsewhere, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_renamed_pool_in_reports, setup, fake_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

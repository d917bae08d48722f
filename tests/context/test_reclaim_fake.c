/*
 * test_reclaim_fake.c (fake): one process, one memory. Two libraries share
 * a 16 GiB fake device. Library A (its own context, a tag of cache, arena,
 * fixed, stats(cache) or plain device) allocates 11 GiB and frees it;
 * library B (another context, a `device` tag) then asks for 8 GiB, which
 * only the process-wide reclaim of A's idle memory can give it. With A's
 * memory live, B fails cleanly, its message says what the reclaim took
 * back, and A's bytes are intact. Also: A's memory idle in the stacks of
 * another thread that is still alive, cudaMalloc users (sync_device) after
 * a plain `device` tag freed, and threads that run out together.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
 * after A freed it (must succeed). */
static void table_row(const char *a_spec, const char *b_spec) {
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
  assert_ok(mr_allocate(bmr, 8 * UNIT, 0, NULL, &p));
  assert_non_null(p);
  memset(p, 0x5a, 4096);
  assert_ok(mr_deallocate(bmr, p, 8 * UNIT, 0, NULL));
  mr_context_destroy(b.ctx);
  mr_context_destroy(a.ctx);
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
  size_t reclaims = 0;
  while (atomic_load(&running) > 0) {
    assert_ok(mr_release_idle(0, 0, NULL));
    reclaims++;
  }
  for (int i = 0; i < CHURNERS; i++) {
    pthread_join(threads[i], NULL);
    assert_int_equal(churners[i].bad, 0);
    mr_resource_release(own[i]);
  }
  assert_true(reclaims > 0);
  mr_resource_release(shared);
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
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

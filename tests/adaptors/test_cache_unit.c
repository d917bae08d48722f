/*
 * test_cache_unit.c: the cache adaptor over host memory (no driver).
 *
 * A faulty_resource upstream counts every upstream call, so the tests see
 * exactly when the cache serves a request itself and when it asks upstream.
 */
#include <pthread.h>
#include <stdlib.h>

#include "test_util.h"

/* Stream handles are opaque to a cache over host memory; any distinct
 * values name distinct streams. */
#define STREAM_A ((mr_stream)(uintptr_t)0x1000)
#define STREAM_B ((mr_stream)(uintptr_t)0x2000)

typedef struct fixture {
  mr_resource *upstream;
  faulty_resource *faulty;
  mr_resource *cache;
} fixture;

static void fixture_make(fixture *f, bool stream_ordered, size_t max_cached) {
  faulty_config config = {.stream_ordered = stream_ordered};
  assert_ok(faulty_resource_create(&config, &f->upstream, &f->faulty));
  assert_ok(mr_cache_resource_create(f->upstream, max_cached, &f->cache));
}

static void fixture_free(fixture *f) {
  mr_resource_release(f->cache);
  /* Destroying the cache gave every block back. */
  assert_int_equal(faulty_live_blocks(f->faulty), 0);
  assert_int_equal(faulty_bad_frees(f->faulty), 0);
  mr_resource_release(f->upstream);
}

static mr_cache_stats cache_stats(mr_resource *cache) {
  mr_cache_stats st = {.size = sizeof st};
  assert_ok(mr_cache_resource_get_stats(cache, &st));
  return st;
}

static void test_same_stream_reuse(void **state) {
  fixture f;
  fixture_make(&f, true, 0);
  void *p = NULL, *q = NULL;
  assert_ok(mr_allocate(f.cache, 1000, 0, STREAM_A, &p));
  assert_non_null(p);
  assert_int_equal((uintptr_t)p % 256, 0);
  memset(p, 0xab, 1000);
  assert_ok(mr_deallocate(f.cache, p, 1000, 0, STREAM_A));
  /* Same class (897..1024 B), same stream: the same block, no upstream call. */
  assert_ok(mr_allocate(f.cache, 1024, 0, STREAM_A, &q));
  assert_ptr_equal(p, q);
  assert_int_equal(faulty_allocations(f.faulty), 1);
  mr_cache_stats st = cache_stats(f.cache);
  assert_int_equal(st.hits, 1);
  assert_int_equal(st.misses, 1);
  assert_int_equal(st.cached_blocks, 0);
  assert_ok(mr_deallocate(f.cache, q, 1024, 0, STREAM_A));
  st = cache_stats(f.cache);
  assert_int_equal(st.cached_blocks, 1);
  assert_int_equal(st.cached_bytes, 1024);
  fixture_free(&f);
}

static void test_size_classes(void **state) {
  fixture f;
  fixture_make(&f, true, 0);
  void *p = NULL, *q = NULL;
  /* 300 B rounds to the 320 B class: 257..320 share it, 321 does not. */
  assert_ok(mr_allocate(f.cache, 300, 0, STREAM_A, &p));
  assert_ok(mr_deallocate(f.cache, p, 300, 0, STREAM_A));
  assert_ok(mr_allocate(f.cache, 321, 0, STREAM_A, &q));
  assert_ptr_not_equal(p, q);
  assert_ok(mr_deallocate(f.cache, q, 321, 0, STREAM_A));
  assert_ok(mr_allocate(f.cache, 257, 0, STREAM_A, &q));
  assert_ptr_equal(p, q);
  assert_ok(mr_deallocate(f.cache, q, 257, 0, STREAM_A));
  /* Tiny requests share the 256 B class. */
  assert_ok(mr_allocate(f.cache, 1, 0, STREAM_A, &p));
  assert_ok(mr_deallocate(f.cache, p, 1, 0, STREAM_A));
  assert_ok(mr_allocate(f.cache, 256, 0, STREAM_A, &q));
  assert_ptr_equal(p, q);
  assert_ok(mr_deallocate(f.cache, q, 256, 0, STREAM_A));
  fixture_free(&f);
}

static void test_contract_edges(void **state) {
  fixture f;
  fixture_make(&f, true, 0);
  void *p = (void *)1;
  assert_ok(mr_allocate(f.cache, 0, 0, STREAM_A, &p));
  assert_null(p);
  assert_int_equal(faulty_allocations(f.faulty), 0);
  assert_ok(mr_deallocate(f.cache, NULL, 100, 0, STREAM_A));
  assert_status(mr_allocate(f.cache, 64, 3, STREAM_A, &p), MR_ERR_INVALID_ARGUMENT);
  assert_null(p);
  /* 4096-byte alignment: served by over-allocating from the cache. */
  assert_ok(mr_allocate(f.cache, 100, 4096, STREAM_A, &p));
  assert_int_equal((uintptr_t)p % 4096, 0);
  assert_ok(mr_deallocate(f.cache, p, 100, 4096, STREAM_A));
  /* Past the largest class (64 MiB) requests go straight upstream. */
  size_t big = ((size_t)64 << 20) + 1;
  long before = faulty_allocations(f.faulty);
  assert_ok(mr_allocate(f.cache, big, 0, STREAM_A, &p));
  assert_int_equal(faulty_allocations(f.faulty), before + 1);
  assert_ok(mr_deallocate(f.cache, p, big, 0, STREAM_A));
  assert_int_equal(faulty_live_bytes(f.faulty) < big, true);
  mr_cache_stats st = cache_stats(f.cache);
  assert_int_equal(st.bypassed, 1);
  fixture_free(&f);
}

/* With a stream-ordered upstream and no driver (no events), a block freed on
 * A is never handed to B before a trim has synchronized. */
static void test_other_stream_waits(void **state) {
  fixture f;
  fixture_make(&f, true, 0);
  void *p = NULL, *q = NULL;
  assert_ok(mr_allocate(f.cache, 4096, 0, STREAM_A, &p));
  assert_ok(mr_deallocate(f.cache, p, 4096, 0, STREAM_A));
  assert_ok(mr_allocate(f.cache, 4096, 0, STREAM_B, &q));
  assert_ptr_not_equal(p, q);
  assert_int_equal(faulty_allocations(f.faulty), 2);
  assert_ok(mr_deallocate(f.cache, q, 4096, 0, STREAM_B));
  assert_ok(mr_resource_trim(f.cache));
  assert_int_equal(faulty_live_blocks(f.faulty), 0);
  assert_int_equal(faulty_trims(f.faulty), 1); /* the trim was passed on */
  fixture_free(&f);
}

/* Pageable host memory has no streams to order: every stream shares one
 * bin, and any stream reuses a block at once. */
static void test_host_upstream_ignores_streams(void **state) {
  fixture f;
  fixture_make(&f, false, 0);
  void *p = NULL, *q = NULL;
  assert_ok(mr_allocate(f.cache, 4096, 0, STREAM_A, &p));
  assert_ok(mr_deallocate(f.cache, p, 4096, 0, STREAM_A));
  assert_ok(mr_allocate(f.cache, 4096, 0, STREAM_B, &q));
  assert_ptr_equal(p, q);
  assert_int_equal(cache_stats(f.cache).cross_stream, 0);
  assert_int_equal(cache_stats(f.cache).hits, 1);
  assert_ok(mr_deallocate(f.cache, q, 4096, 0, STREAM_B));
  fixture_free(&f);
}

/* More streams than a thread keeps bins for: older bins move to the shared
 * pool; their blocks come back on the same stream, and nothing leaks. */
static void test_many_streams(void **state) {
  fixture f;
  fixture_make(&f, true, 0);
  enum { STREAMS = 9 };
  void *p[STREAMS];
  for (int i = 0; i < STREAMS; i++) {
    mr_stream s = (mr_stream)(uintptr_t)(0x1000 * (i + 1));
    assert_ok(mr_allocate(f.cache, 512, 0, s, &p[i]));
    assert_ok(mr_deallocate(f.cache, p[i], 512, 0, s));
  }
  long upstream_allocations = faulty_allocations(f.faulty);
  for (int i = 0; i < STREAMS; i++) {
    mr_stream s = (mr_stream)(uintptr_t)(0x1000 * (i + 1));
    void *q = NULL;
    assert_ok(mr_allocate(f.cache, 512, 0, s, &q));
    assert_ptr_equal(q, p[i]);
    assert_ok(mr_deallocate(f.cache, q, 512, 0, s));
  }
  assert_int_equal(faulty_allocations(f.faulty), upstream_allocations);
  fixture_free(&f);
}

static void test_cap(void **state) {
  fixture f;
  size_t cap = (size_t)1 << 20;
  fixture_make(&f, true, cap);
  enum { N = 64 };
  void *p[N];
  for (int i = 0; i < N; i++) assert_ok(mr_allocate(f.cache, 64 << 10, 0, STREAM_A, &p[i]));
  for (int i = 0; i < N; i++) assert_ok(mr_deallocate(f.cache, p[i], 64 << 10, 0, STREAM_A));
  mr_cache_stats st = cache_stats(f.cache);
  assert_true(st.cached_bytes <= cap);
  assert_true(st.cached_bytes >= cap / 2);
  /* What the cache could not keep went back upstream at once. */
  assert_int_equal(faulty_live_bytes(f.faulty), st.cached_bytes);
  assert_string_equal(mr_resource_describe(f.cache), "cache(faulty, max=1MiB)");
  fixture_free(&f);
}

static void test_trim_returns_everything(void **state) {
  fixture f;
  fixture_make(&f, true, 0);
  void *keep = NULL;
  assert_ok(mr_allocate(f.cache, 777, 0, STREAM_A, &keep));
  for (int i = 0; i < 20; i++) {
    void *p = NULL;
    size_t n = 1000 * (size_t)(i + 1);
    assert_ok(mr_allocate(f.cache, n, 0, i % 2 ? STREAM_A : STREAM_B, &p));
    assert_ok(mr_deallocate(f.cache, p, n, 0, i % 2 ? STREAM_A : STREAM_B));
  }
  assert_true(cache_stats(f.cache).cached_blocks > 0);
  assert_ok(mr_resource_trim(f.cache));
  mr_cache_stats st = cache_stats(f.cache);
  assert_int_equal(st.cached_blocks, 0);
  assert_int_equal(st.cached_bytes, 0);
  assert_true(st.trims > 0);
  /* Only the block in use is still out. */
  assert_int_equal(faulty_live_blocks(f.faulty), 1);
  assert_ok(mr_deallocate(f.cache, keep, 777, 0, STREAM_A));
  fixture_free(&f);
}

static void test_upstream_failure(void **state) {
  fixture f;
  fixture_make(&f, true, 0);
  faulty_set_fail(f.faulty, 1, 1);
  void *p = (void *)1;
  assert_status(mr_allocate(f.cache, 100, 0, STREAM_A, &p), MR_ERR_OUT_OF_MEMORY);
  assert_null(p);
  assert_error_contains("fails on purpose");
  /* Cached blocks are given back and the allocation retried on OOM. */
  void *a = NULL, *b = NULL;
  assert_ok(mr_allocate(f.cache, 2048, 0, STREAM_A, &a));
  assert_ok(mr_deallocate(f.cache, a, 2048, 0, STREAM_A));
  faulty_set_fail(f.faulty, faulty_allocations(f.faulty) + 1, 1);
  assert_ok(mr_allocate(f.cache, 100000, 0, STREAM_A, &b));
  assert_int_equal(cache_stats(f.cache).cached_blocks, 0);
  assert_ok(mr_deallocate(f.cache, b, 100000, 0, STREAM_A));
  /* Other errors are not retried. */
  faulty_config config = {.fail_at = 1, .fail_count = 10, .fail_status = MR_ERR_DRIVER};
  mr_resource *up2;
  faulty_resource *faulty2;
  assert_ok(faulty_resource_create(&config, &up2, &faulty2));
  mr_resource *cache2;
  assert_ok(mr_cache_resource_create(up2, 0, &cache2));
  assert_status(mr_allocate(cache2, 100, 0, STREAM_A, &p), MR_ERR_DRIVER);
  assert_int_equal(faulty_allocations(faulty2), 1);
  mr_resource_release(cache2);
  mr_resource_release(up2);
  fixture_free(&f);
}

typedef struct worker {
  mr_resource *cache;
  mr_stream stream;
  uint64_t seed;
  long pairs;
} worker;

static void *worker_main(void *arg) {
  worker *w = arg;
  enum { LIVE = 64 };
  void *p[LIVE] = {0};
  size_t n[LIVE] = {0};
  for (long i = 0; i < w->pairs; i++) {
    int k = (int)(test_rand(&w->seed) % LIVE);
    if (p[k] != NULL && mr_deallocate(w->cache, p[k], n[k], 0, w->stream) != MR_OK) return "free";
    n[k] = 256 + test_rand(&w->seed) % (1 << 20);
    if (mr_allocate(w->cache, n[k], 0, w->stream, &p[k]) != MR_OK) return "allocate";
    ((unsigned char *)p[k])[0] = (unsigned char)i;
    ((unsigned char *)p[k])[n[k] - 1] = (unsigned char)i;
  }
  for (int k = 0; k < LIVE; k++)
    if (p[k] != NULL && mr_deallocate(w->cache, p[k], n[k], 0, w->stream) != MR_OK) return "free";
  return NULL;
}

/* 8 threads, each on its own stream; some threads exit and hand their
 * blocks over. Every count comes out exact. */
static void test_threads(void **state) {
  fixture f;
  fixture_make(&f, true, (size_t)256 << 20);
  enum { THREADS = 8, PAIRS = 20000 };
  pthread_t threads[THREADS];
  worker workers[THREADS];
  for (int i = 0; i < THREADS; i++) {
    workers[i] = (worker){f.cache, (mr_stream)(uintptr_t)(0x10000 * (i + 1)), 1234567u + (uint64_t)i,
                          PAIRS};
    assert_int_equal(pthread_create(&threads[i], NULL, worker_main, &workers[i]), 0);
  }
  for (int i = 0; i < THREADS; i++) {
    void *result = (void *)1;
    pthread_join(threads[i], &result);
    assert_null(result);
  }
  mr_cache_stats st = cache_stats(f.cache);
  assert_int_equal(st.hits + st.misses, (uint64_t)THREADS * PAIRS);
  assert_int_equal(st.misses, (uint64_t)faulty_allocations(f.faulty));
  /* Everything is free: the upstream holds exactly what the cache keeps. */
  assert_int_equal(faulty_live_blocks(f.faulty), st.cached_blocks);
  assert_int_equal(faulty_live_bytes(f.faulty), st.cached_bytes);
  assert_true(st.cached_bytes <= ((size_t)256 << 20));
  fixture_free(&f);
}

static void *exit_after_free(void *arg) {
  mr_resource *cache = arg;
  void *p = NULL;
  if (mr_allocate(cache, 8192, 0, STREAM_A, &p) != MR_OK) return "allocate";
  if (mr_deallocate(cache, p, 8192, 0, STREAM_A) != MR_OK) return "free";
  return p;
}

/* A thread that exits hands its blocks to the shared pool. */
static void test_thread_exit_hands_over(void **state) {
  fixture f;
  fixture_make(&f, true, 0);
  pthread_t t;
  void *freed = NULL;
  assert_int_equal(pthread_create(&t, NULL, exit_after_free, f.cache), 0);
  pthread_join(t, &freed);
  assert_non_null(freed);
  void *p = NULL;
  assert_ok(mr_allocate(f.cache, 8192, 0, STREAM_A, &p));
  assert_ptr_equal(p, freed);
  assert_int_equal(faulty_allocations(f.faulty), 1);
  assert_ok(mr_deallocate(f.cache, p, 8192, 0, STREAM_A));
  fixture_free(&f);
}

static void test_errors(void **state) {
  mr_resource *out = (mr_resource *)1;
  assert_status(mr_cache_resource_create(NULL, 0, &out), MR_ERR_INVALID_ARGUMENT);
  assert_null(out);
  mr_resource *host;
  assert_ok(mr_host_resource_create(&host));
  mr_cache_stats st = {.size = sizeof st};
  assert_status(mr_cache_resource_get_stats(host, &st), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("not a cache");
  mr_resource *cache;
  assert_ok(mr_cache_resource_create(host, 0, &cache));
  assert_string_equal(mr_resource_describe(cache), "cache(host)");
  assert_ptr_equal(mr_resource_upstream(cache), host);
  st.size = 4;
  assert_status(mr_cache_resource_get_stats(cache, &st), MR_ERR_INVALID_ARGUMENT);
  mr_resource_props props = {.size = sizeof props};
  assert_ok(mr_resource_get_props(cache, &props));
  assert_int_equal(props.kind, MR_MEMORY_HOST);
  mr_resource_release(cache);
  mr_resource_release(host);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_stream_reuse),
      cmocka_unit_test(test_size_classes),
      cmocka_unit_test(test_contract_edges),
      cmocka_unit_test(test_other_stream_waits),
      cmocka_unit_test(test_host_upstream_ignores_streams),
      cmocka_unit_test(test_many_streams),
      cmocka_unit_test(test_cap),
      cmocka_unit_test(test_trim_returns_everything),
      cmocka_unit_test(test_upstream_failure),
      cmocka_unit_test(test_threads),
      cmocka_unit_test(test_thread_exit_hands_over),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

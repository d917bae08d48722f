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
  /* One small segment came from upstream; the rest of it is free. */
  assert_int_equal(faulty_allocations(f.faulty), 1);
  assert_int_equal(faulty_live_bytes(f.faulty), (size_t)2 << 20);
  mr_cache_stats st = cache_stats(f.cache);
  assert_int_equal(st.cached_bytes, ((size_t)2 << 20) - 1024);
  assert_ok(mr_deallocate(f.cache, p, 1000, 0, STREAM_A));
  /* Same class (769..1024 B), same stream: the same block, no upstream call. */
  assert_ok(mr_allocate(f.cache, 1024, 0, STREAM_A, &q));
  assert_ptr_equal(p, q);
  assert_int_equal(faulty_allocations(f.faulty), 1);
  st = cache_stats(f.cache);
  assert_int_equal(st.hits, 1);
  assert_int_equal(st.misses, 1);
  assert_ok(mr_deallocate(f.cache, q, 1024, 0, STREAM_A));
  /* Everything is free: the cache holds exactly what it took upstream. */
  st = cache_stats(f.cache);
  assert_int_equal(st.cached_bytes, faulty_live_bytes(f.faulty));
  fixture_free(&f);
}

static void test_size_classes(void **state) {
  fixture f;
  fixture_make(&f, true, 0);
  void *p = NULL, *q = NULL;
  /* 300 B rounds to the 512 B class: 257..512 share it, 513 does not. */
  assert_ok(mr_allocate(f.cache, 300, 0, STREAM_A, &p));
  assert_ok(mr_deallocate(f.cache, p, 300, 0, STREAM_A));
  assert_ok(mr_allocate(f.cache, 513, 0, STREAM_A, &q));
  assert_ptr_not_equal(p, q);
  assert_ok(mr_deallocate(f.cache, q, 513, 0, STREAM_A));
  assert_ok(mr_allocate(f.cache, 512, 0, STREAM_A, &q));
  assert_ptr_equal(p, q);
  assert_ok(mr_deallocate(f.cache, q, 512, 0, STREAM_A));
  /* Above 1 KiB, four classes per power of two: 1025..1280 share. */
  assert_ok(mr_allocate(f.cache, 1025, 0, STREAM_A, &p));
  assert_ok(mr_deallocate(f.cache, p, 1025, 0, STREAM_A));
  assert_ok(mr_allocate(f.cache, 1280, 0, STREAM_A, &q));
  assert_ptr_equal(p, q);
  assert_ok(mr_deallocate(f.cache, q, 1280, 0, STREAM_A));
  /* Tiny requests share the 256 B class. */
  assert_ok(mr_allocate(f.cache, 1, 0, STREAM_A, &p));
  assert_ok(mr_deallocate(f.cache, p, 1, 0, STREAM_A));
  assert_ok(mr_allocate(f.cache, 256, 0, STREAM_A, &q));
  assert_ptr_equal(p, q);
  assert_ok(mr_deallocate(f.cache, q, 256, 0, STREAM_A));
  /* All of it came from one segment. */
  assert_int_equal(faulty_allocations(f.faulty), 1);
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
  /* A large block gets a segment of its own (rounded to 2 MiB), kept when
   * freed and handed out again. */
  size_t big = ((size_t)64 << 20) + 1;
  long before = faulty_allocations(f.faulty);
  assert_ok(mr_allocate(f.cache, big, 0, STREAM_A, &p));
  assert_int_equal(faulty_allocations(f.faulty), before + 1);
  assert_ok(mr_deallocate(f.cache, p, big, 0, STREAM_A));
  void *q = NULL;
  assert_ok(mr_allocate(f.cache, big, 0, STREAM_A, &q));
  assert_ptr_equal(p, q);
  assert_int_equal(faulty_allocations(f.faulty), before + 1);
  assert_ok(mr_deallocate(f.cache, q, big, 0, STREAM_A));
  mr_cache_stats st = cache_stats(f.cache);
  assert_int_equal(st.bypassed, 0);
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
  /* Nor does a large block, whose segment is idle but uncovered. */
  size_t big = (size_t)3 << 20;
  void *r = NULL, *t = NULL;
  assert_ok(mr_allocate(f.cache, big, 0, STREAM_A, &r));
  assert_ok(mr_deallocate(f.cache, r, big, 0, STREAM_A));
  assert_ok(mr_allocate(f.cache, big, 0, STREAM_B, &t));
  assert_true((uintptr_t)t + big <= (uintptr_t)r || (uintptr_t)r + big <= (uintptr_t)t);
  assert_ok(mr_deallocate(f.cache, t, big, 0, STREAM_B));
  assert_ok(mr_deallocate(f.cache, q, 4096, 0, STREAM_B));
  assert_ok(mr_resource_trim(f.cache));
  assert_int_equal(faulty_live_blocks(f.faulty), 0);
  assert_int_equal(faulty_trims(f.faulty), 1); /* the trim was passed on */
  fixture_free(&f);
}

/* Pageable host memory has no streams to order: every stream shares one
 * heap and one stack, and any stream reuses a block at once. */
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

/* More streams than a thread keeps stacks for: older stacks go back to
 * their streams' heaps; their blocks come back on the same stream, and
 * nothing leaks. */
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

/* Past the cap, idle segments go back upstream. */
static void test_cap(void **state) {
  fixture f;
  size_t cap = (size_t)1 << 20;
  fixture_make(&f, true, cap);
  enum { N = 64 };
  void *p[N];
  for (int i = 0; i < N; i++) assert_ok(mr_allocate(f.cache, 64 << 10, 0, STREAM_A, &p[i]));
  assert_int_equal(faulty_allocations(f.faulty), 2); /* two 2 MiB segments */
  for (int i = 0; i < N; i++) assert_ok(mr_deallocate(f.cache, p[i], 64 << 10, 0, STREAM_A));
  mr_cache_stats st = cache_stats(f.cache);
  /* The segment that emptied (2 MiB, over the cap) went back; the other
   * holds the blocks this thread's stack keeps. */
  assert_true(st.trims >= 1);
  assert_int_equal(faulty_live_bytes(f.faulty), (size_t)2 << 20);
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
    size_t n = 150000 * (size_t)(i + 1);
    assert_ok(mr_allocate(f.cache, n, 0, i % 2 ? STREAM_A : STREAM_B, &p));
    assert_ok(mr_deallocate(f.cache, p, n, 0, i % 2 ? STREAM_A : STREAM_B));
  }
  assert_true(cache_stats(f.cache).cached_blocks > 0);
  assert_true(faulty_live_blocks(f.faulty) > 1);
  assert_ok(mr_resource_trim(f.cache));
  mr_cache_stats st = cache_stats(f.cache);
  assert_true(st.trims > 0);
  /* Only the segment of the block in use is still out; its free rest is
   * all the cache holds. */
  assert_int_equal(faulty_live_blocks(f.faulty), 1);
  assert_int_equal(st.cached_bytes, ((size_t)2 << 20) - 1024);
  assert_int_equal(st.cached_blocks, 1);
  assert_ok(mr_deallocate(f.cache, keep, 777, 0, STREAM_A));
  assert_ok(mr_resource_trim(f.cache));
  assert_int_equal(faulty_live_blocks(f.faulty), 0);
  fixture_free(&f);
}

static void test_upstream_failure(void **state) {
  fixture f;
  fixture_make(&f, true, 0);
  /* The segment, again after a trim, then the block alone: all refused. */
  faulty_set_fail(f.faulty, 1, 3);
  void *p = (void *)1;
  assert_status(mr_allocate(f.cache, 100, 0, STREAM_A, &p), MR_ERR_OUT_OF_MEMORY);
  assert_null(p);
  assert_error_contains("out of memory for a segment of 2.0 MiB (and for the 256 B block alone)");
  assert_error_contains("fails on purpose");
  /* No room for a segment, but for the block alone. */
  faulty_set_fail(f.faulty, faulty_allocations(f.faulty) + 1, 2);
  assert_ok(mr_allocate(f.cache, 100, 0, STREAM_A, &p));
  assert_int_equal(faulty_live_bytes(f.faulty), 256);
  assert_ok(mr_deallocate(f.cache, p, 100, 0, STREAM_A));
  assert_ok(mr_resource_trim(f.cache));
  /* Idle segments are given back and the allocation retried on OOM. */
  void *a = NULL, *b = NULL;
  assert_ok(mr_allocate(f.cache, (size_t)4 << 20, 0, STREAM_A, &a));
  assert_ok(mr_deallocate(f.cache, a, (size_t)4 << 20, 0, STREAM_A));
  assert_int_equal(faulty_live_bytes(f.faulty), (size_t)20 << 20);
  faulty_set_fail(f.faulty, faulty_allocations(f.faulty) + 1, 1);
  assert_ok(mr_allocate(f.cache, (size_t)30 << 20, 0, STREAM_A, &b));
  assert_int_equal(faulty_live_bytes(f.faulty), (size_t)30 << 20);
  assert_int_equal(cache_stats(f.cache).cached_blocks, 0);
  assert_ok(mr_deallocate(f.cache, b, (size_t)30 << 20, 0, STREAM_A));
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

/* Large blocks are cut from idle segments by best fit, and freed
 * neighbours merge back: a segment made for 12 MiB serves 5 and 7, then 12
 * again, with one upstream allocation. */
static void test_large_split_and_merge(void **state) {
  fixture f;
  fixture_make(&f, true, 0);
  const size_t MiB = (size_t)1 << 20;
  void *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  assert_ok(mr_allocate(f.cache, 12 * MiB, 0, STREAM_A, &a));
  assert_ok(mr_deallocate(f.cache, a, 12 * MiB, 0, STREAM_A));
  assert_ok(mr_allocate(f.cache, 5 * MiB, 0, STREAM_A, &b));
  assert_ptr_equal(b, a);
  assert_ok(mr_allocate(f.cache, 7 * MiB, 0, STREAM_A, &c));
  assert_ptr_equal(c, (char *)a + 5 * MiB);
  assert_int_equal(cache_stats(f.cache).cached_bytes, 0);
  /* Freed in either order, the two merge back into the whole segment. */
  assert_ok(mr_deallocate(f.cache, c, 7 * MiB, 0, STREAM_A));
  assert_ok(mr_deallocate(f.cache, b, 5 * MiB, 0, STREAM_A));
  assert_ok(mr_allocate(f.cache, 12 * MiB, 0, STREAM_A, &d));
  assert_ptr_equal(d, a);
  assert_int_equal(faulty_allocations(f.faulty), 1);
  mr_cache_stats st = cache_stats(f.cache);
  assert_int_equal(st.misses, 1);
  assert_int_equal(st.hits, 3);
  /* The best fit, not the first: of a 3 MiB and a 5.5 MiB hole, a 3 MiB
   * request takes the 3 MiB one. */
  assert_ok(mr_deallocate(f.cache, d, 12 * MiB, 0, STREAM_A));
  void *x[4];
  size_t sizes[4] = {3 * MiB, 2 * MiB, 5 * MiB + MiB / 2, MiB + MiB / 2};
  for (int i = 0; i < 4; i++) assert_ok(mr_allocate(f.cache, sizes[i], 0, STREAM_A, &x[i]));
  assert_ok(mr_deallocate(f.cache, x[0], sizes[0], 0, STREAM_A)); /* hole of 3 at 0 */
  assert_ok(mr_deallocate(f.cache, x[2], sizes[2], 0, STREAM_A)); /* hole of 5.5 at 5 */
  void *y = NULL;
  assert_ok(mr_allocate(f.cache, 3 * MiB, 0, STREAM_A, &y));
  assert_ptr_equal(y, x[0]);
  assert_ok(mr_deallocate(f.cache, y, 3 * MiB, 0, STREAM_A));
  assert_ok(mr_deallocate(f.cache, x[1], sizes[1], 0, STREAM_A));
  assert_ok(mr_deallocate(f.cache, x[3], sizes[3], 0, STREAM_A));
  assert_int_equal(faulty_allocations(f.faulty), 1);
  assert_int_equal(cache_stats(f.cache).cached_bytes, 12 * MiB);
  fixture_free(&f);
}

/* A request leaves alone an idle segment much larger than the one it would
 * grow: cutting its block there would pin the whole segment, and the next
 * request of the segment's size would grow another. A request close
 * enough in size still cuts it, and where the upstream has no room for the
 * new segment the idle one goes back first. */
static void test_large_idle_segment_not_pinned(void **state) {
  fixture f;
  fixture_make(&f, true, 0);
  const size_t MiB = (size_t)1 << 20;
  void *big = NULL, *a = NULL, *b = NULL, *c = NULL;
  assert_ok(mr_allocate(f.cache, 200 * MiB, 0, STREAM_A, &big));
  assert_ok(mr_deallocate(f.cache, big, 200 * MiB, 0, STREAM_A));
  /* 8 MiB would grow a 20 MiB segment: not cut from the idle 200 MiB. */
  assert_ok(mr_allocate(f.cache, 8 * MiB, 0, STREAM_A, &a));
  assert_true((char *)a + 8 * MiB <= (char *)big || (char *)a >= (char *)big + 200 * MiB);
  assert_int_equal(faulty_allocations(f.faulty), 2);
  assert_int_equal(faulty_live_bytes(f.faulty), 220 * MiB);
  /* The next 200 MiB request finds its segment whole. */
  assert_ok(mr_allocate(f.cache, 200 * MiB, 0, STREAM_A, &b));
  assert_ptr_equal(b, big);
  assert_ok(mr_deallocate(f.cache, b, 200 * MiB, 0, STREAM_A));
  /* 60 MiB: the idle segment is within four times its size, so it is cut. */
  assert_ok(mr_allocate(f.cache, 60 * MiB, 0, STREAM_A, &c));
  assert_ptr_equal(c, big);
  assert_int_equal(faulty_allocations(f.faulty), 2);
  mr_cache_stats st = cache_stats(f.cache);
  assert_int_equal(st.misses, 2);
  assert_int_equal(st.hits, 2);
  assert_ok(mr_deallocate(f.cache, c, 60 * MiB, 0, STREAM_A));
  assert_ok(mr_deallocate(f.cache, a, 8 * MiB, 0, STREAM_A));
  /* No room upstream for a new segment: the cache gives back its idle
   * segments and asks again, and the request gets its own 20 MiB. */
  assert_ok(mr_allocate(f.cache, 200 * MiB, 0, STREAM_A, &b));
  assert_ok(mr_deallocate(f.cache, b, 200 * MiB, 0, STREAM_A));
  assert_ok(mr_resource_trim(f.cache));
  assert_ok(mr_allocate(f.cache, 200 * MiB, 0, STREAM_A, &b));
  assert_ok(mr_deallocate(f.cache, b, 200 * MiB, 0, STREAM_A));
  faulty_set_fail(f.faulty, faulty_allocations(f.faulty) + 1, 1);
  assert_ok(mr_allocate(f.cache, 8 * MiB, 0, STREAM_A, &a));
  assert_int_equal(faulty_live_bytes(f.faulty), 20 * MiB);
  memset(a, 0x5a, 8 * MiB);
  assert_ok(mr_deallocate(f.cache, a, 8 * MiB, 0, STREAM_A));
  fixture_free(&f);
}

/* A pool whose growth only cycles memory through the upstream (every new
 * segment made room for by giving back an idle one that did not fit)
 * widens its margin once it gave back its whole recent peak, and narrows
 * it again after a window whose most held fit the narrow margin. Over
 * vspace: addresses only, so the pool can be large enough (16 GiB) for
 * its margin, a sixteenth, to pass the 64 MiB floor. */
static void test_margin_widens_when_growth_only_cycles(void **state) {
  mr_resource *vspace = NULL, *cache = NULL;
  assert_ok(vspace_resource_create(&vspace));
  assert_ok(mr_cache_resource_create(vspace, 0, &cache));
  const size_t MiB = (size_t)1 << 20, GiB = MiB << 10;
  void *base = NULL, *p = NULL;
  assert_ok(mr_allocate(cache, 16 * GiB, 0, STREAM_A, &base));
  /* Each request 2 MiB larger than the last: none fits an idle segment. */
  size_t most = 0;
  for (int i = 0; i < 100; i++) {
    size_t bytes = 256 * MiB + (size_t)i * 2 * MiB;
    assert_ok(mr_allocate(cache, bytes, 0, STREAM_A, &p));
    assert_ok(mr_deallocate(cache, p, bytes, 0, STREAM_A));
    mr_cache_stats st = cache_stats(cache);
    if (i < 50) {
      /* A sixteenth of the 16.3 GiB peak, and the segment just freed. */
      assert_true(st.cached_bytes < GiB + GiB / 2);
      most = st.cached_bytes;
    }
    if (i == 49) assert_true(st.trims >= 40);
  }
  /* 16 GiB given back by now: an eighth. */
  assert_true(cache_stats(cache).cached_bytes > 2 * GiB);
  assert_true(cache_stats(cache).cached_bytes > most + GiB / 2);
  /* Nothing idle held for two windows of takes (CACHE_PEAK_WINDOW, 16384
   * each): the narrow margin would have done, so it comes back. */
  assert_ok(mr_resource_trim(cache));
  for (int i = 0; i < 2 * 16384 + 16; i++) {
    assert_ok(mr_allocate(cache, 2 * MiB, 0, STREAM_A, &p));
    assert_ok(mr_deallocate(cache, p, 2 * MiB, 0, STREAM_A));
  }
  for (int i = 0; i < 30; i++) {
    size_t bytes = 256 * MiB + (size_t)i * 2 * MiB;
    assert_ok(mr_allocate(cache, bytes, 0, STREAM_A, &p));
    assert_ok(mr_deallocate(cache, p, bytes, 0, STREAM_A));
    assert_true(cache_stats(cache).cached_bytes < GiB + GiB / 2);
  }
  assert_ok(mr_deallocate(cache, base, 16 * GiB, 0, STREAM_A));
  mr_resource_release(cache);
  mr_resource_release(vspace);
}

/* Small blocks of every class share segments, and memory freed in one
 * class serves another once it reaches the heap (a trim empties the
 * threads' stacks into it): 31 blocks of 64 KiB become a 1 MiB block. */
static void test_small_classes_share_memory(void **state) {
  fixture f;
  fixture_make(&f, true, 0);
  enum { N = 32 };
  void *p[N];
  for (int i = 0; i < N; i++) assert_ok(mr_allocate(f.cache, 64 << 10, 0, STREAM_A, &p[i]));
  assert_int_equal(faulty_allocations(f.faulty), 1);
  for (int i = 0; i < N; i++) assert_ptr_equal(p[i], (char *)p[0] + ((size_t)i << 16));
  /* p[31] stays in use, so the trim keeps the segment. */
  for (int i = 0; i < N - 1; i++) assert_ok(mr_deallocate(f.cache, p[i], 64 << 10, 0, STREAM_A));
  assert_ok(mr_resource_trim(f.cache));
  assert_int_equal(faulty_live_blocks(f.faulty), 1);
  void *q = NULL;
  assert_ok(mr_allocate(f.cache, 1 << 20, 0, STREAM_A, &q));
  assert_ptr_equal(q, p[0]);
  assert_int_equal(faulty_allocations(f.faulty), 1);
  assert_ok(mr_deallocate(f.cache, q, 1 << 20, 0, STREAM_A));
  assert_ok(mr_deallocate(f.cache, p[N - 1], 64 << 10, 0, STREAM_A));
  fixture_free(&f);
}

/* Trim gives back whole segments only: one that still has a block in use
 * stays (its free rest with it), and goes at the next trim once freed. */
static void test_trim_split_segments(void **state) {
  fixture f;
  fixture_make(&f, true, 0);
  const size_t MiB = (size_t)1 << 20;
  void *a = NULL, *b = NULL, *c = NULL;
  assert_ok(mr_allocate(f.cache, 4 * MiB, 0, STREAM_A, &a));  /* a 20 MiB segment */
  assert_ok(mr_allocate(f.cache, 4 * MiB, 0, STREAM_A, &b));  /* the same one */
  assert_ok(mr_allocate(f.cache, 14 * MiB, 0, STREAM_A, &c)); /* its own */
  assert_ptr_equal(b, (char *)a + 4 * MiB);
  assert_ok(mr_deallocate(f.cache, a, 4 * MiB, 0, STREAM_A));
  assert_ok(mr_deallocate(f.cache, c, 14 * MiB, 0, STREAM_A));
  assert_int_equal(faulty_live_blocks(f.faulty), 2);
  assert_ok(mr_resource_trim(f.cache));
  assert_int_equal(faulty_live_blocks(f.faulty), 1);
  assert_int_equal(faulty_live_bytes(f.faulty), 20 * MiB);
  assert_int_equal(cache_stats(f.cache).cached_bytes, 16 * MiB);
  assert_ok(mr_deallocate(f.cache, b, 4 * MiB, 0, STREAM_A));
  assert_ok(mr_resource_trim(f.cache));
  assert_int_equal(faulty_live_blocks(f.faulty), 0);
  assert_int_equal(cache_stats(f.cache).cached_bytes, 0);
  fixture_free(&f);
}

/* A free with another size than the allocation's is refused, and the
 * block stays the caller's; so is a pointer the cache never handed out. */
static void test_wrong_frees(void **state) {
  fixture f;
  fixture_make(&f, true, 0);
  void *p = NULL;
  assert_ok(mr_allocate(f.cache, (size_t)3 << 20, 0, STREAM_A, &p));
  assert_status(mr_deallocate(f.cache, p, (size_t)5 << 20, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("freed with 5242880");
  assert_ok(mr_deallocate(f.cache, p, (size_t)3 << 20, 0, STREAM_A));
  assert_status(mr_deallocate(f.cache, p, (size_t)3 << 20, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("was not allocated here, or was freed already");
  int local;
  assert_status(mr_deallocate(f.cache, &local, (size_t)2 << 20, 0, STREAM_A),
                MR_ERR_INVALID_ARGUMENT);
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
    workers[i] =
        (worker){f.cache, (mr_stream)(uintptr_t)(0x10000 * (i + 1)), 1234567u + (uint64_t)i, PAIRS};
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
  assert_int_equal(faulty_live_bytes(f.faulty), st.cached_bytes);
  /* The threads' last stacks went to their streams' heaps when they
   * exited, past the cap; the next free on a live stream that reaches a
   * heap gives idle segments back (waiting for the device once: no event
   * covers the dead streams' frees) until the cap holds. */
  void *big = NULL;
  assert_ok(mr_allocate(f.cache, (size_t)2 << 20, 0, STREAM_A, &big));
  assert_ok(mr_deallocate(f.cache, big, (size_t)2 << 20, 0, STREAM_A));
  size_t idle_max = ((size_t)256 << 20) + (size_t)THREADS * ((size_t)2 << 20);
  assert_true(faulty_live_bytes(f.faulty) <= idle_max);
  fixture_free(&f);
}

static void *exit_after_free(void *arg) {
  mr_resource *cache = arg;
  void *p = NULL;
  if (mr_allocate(cache, 8192, 0, STREAM_A, &p) != MR_OK) return "allocate";
  if (mr_deallocate(cache, p, 8192, 0, STREAM_A) != MR_OK) return "free";
  return p;
}

/* A thread that exits hands its blocks to its stream's heap. */
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
      cmocka_unit_test(test_large_split_and_merge),
      cmocka_unit_test(test_large_idle_segment_not_pinned),
      cmocka_unit_test(test_margin_widens_when_growth_only_cycles),
      cmocka_unit_test(test_small_classes_share_memory),
      cmocka_unit_test(test_trim_split_segments),
      cmocka_unit_test(test_wrong_frees),
      cmocka_unit_test(test_threads),
      cmocka_unit_test(test_thread_exit_hands_over),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_torch_control_fake.c: the PyTorch shim's control allocator and
 * timing counters in C, over the fake driver (suite fake), so the
 * sanitizer builds see them (the Python tests cannot run there: ctypes
 * cannot load an instrumented library into an uninstrumented interpreter).
 *
 * The shim's C part is compiled into this program. The control is once
 * per process and never gives memory back, so the tests share one fake
 * (no reset between them) and read its counters as differences.
 *  - Its table grows past its first size: every block still comes back at
 *    its exact size and stream afterwards, and no other block does.
 *  - Threads on shared streams: no block is handed out twice, a block
 *    comes back only at the size and stream it was freed with, and the
 *    counters add up.
 *  - The timing counters add up across threads, and reset.
 *  - A route's memory fraction and empty_cache (PyTorch's controls), with
 *    threads allocating through the route while another sets fractions
 *    and empties the cache.
 * Threads record problems instead of asserting (cmocka cannot fail a test
 * from another thread).
 */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "_torch_alloc.h"
#include "fake_test.h"

static void *control_alloc(size_t size, int device, CUstream stream) {
  mr_status status = MR_ERR_STATE;
  void *ptr = mrctx_torch_control_route_alloc((ssize_t)size, device, stream, &status);
  if (status != MR_OK || ptr == NULL) fail_msg("control alloc of %zu: %s", size, mr_last_error());
  return ptr;
}

static mrctx_torch_control_stats control_now(void) {
  mrctx_torch_control_stats s;
  mrctx_torch_control_read(&s);
  return s;
}

/* 300 sizes on two streams: 600 lists, so the table (64 slots at first,
 * kept at most half full) is rebuilt several times while it holds blocks. */
static void test_table_growth_keeps_every_block(void **state) {
  (void)state;
  enum { SIZES = 300 };
  fake_bind(0);
  CUstream a = fake_new_stream(), b = fake_new_stream();
  mrctx_torch_control_stats before = control_now();
  static void *on_a[SIZES], *on_b[SIZES];
  for (int i = 0; i < SIZES; i++) {
    size_t size = 4096 + (size_t)i * 512;
    on_a[i] = control_alloc(size, 0, a);
    on_b[i] = control_alloc(size, 0, b);
  }
  for (int i = 0; i < SIZES; i++) {
    size_t size = 4096 + (size_t)i * 512;
    mrctx_torch_control_free(on_a[i], (ssize_t)size, 0, a);
    mrctx_torch_control_free(on_b[i], (ssize_t)size, 0, b);
  }
  mrctx_torch_control_stats mid = control_now();
  assert_true(mid.lists - before.lists >= 2 * SIZES);
  assert_int_equal(mid.cached_blocks - before.cached_blocks, 2 * SIZES);
  /* Backwards, b first: each comes back from its own list. */
  for (int i = SIZES - 1; i >= 0; i--) {
    size_t size = 4096 + (size_t)i * 512;
    assert_ptr_equal(control_alloc(size, 0, b), on_b[i]);
    assert_ptr_equal(control_alloc(size, 0, a), on_a[i]);
  }
  mrctx_torch_control_stats after = control_now();
  assert_int_equal(after.hits - mid.hits, 2 * SIZES);
  assert_int_equal(after.misses - mid.misses, 0);
  assert_int_equal(after.cached_blocks, before.cached_blocks);
  /* A size between two of them is a miss, not the neighbour's block. */
  void *odd = control_alloc(4096 + 256, 0, a);
  for (int i = 0; i < SIZES; i++) assert_ptr_not_equal(odd, on_a[i]);
  assert_int_equal(control_now().misses - after.misses, 1);
  mrctx_torch_control_free(odd, 4096 + 256, 0, a);
  for (int i = 0; i < SIZES; i++) {
    size_t size = 4096 + (size_t)i * 512;
    mrctx_torch_control_free(on_a[i], (ssize_t)size, 0, a);
    mrctx_torch_control_free(on_b[i], (ssize_t)size, 0, b);
  }
  /* The streams stay: the control keeps blocks freed on them. */
}

/* ---- threads ---------------------------------------------------------------- */

enum { THREADS = 4, OPS = 20000, LIVE = 8, SLOTS = 1 << 14 };

static atomic_int problems;
static void problem(const char *what, void *ptr) {
  if (atomic_fetch_add(&problems, 1) < 10) fprintf(stderr, "problem: %s (%p)\n", what, ptr);
}

/* Every block the threads have seen: who holds it, and the size and stream
 * it was last freed with. An open-addressing table under one lock. */
typedef struct seen {
  void *ptr;
  size_t size;
  CUstream stream;
  int held;
} seen;
static seen table[SLOTS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static seen *seen_slot(void *ptr) {
  size_t i = ((uintptr_t)ptr >> 8) * 0x9e3779b97f4a7c15ULL % SLOTS;
  while (table[i].ptr != NULL && table[i].ptr != ptr) i = (i + 1) % SLOTS;
  return &table[i];
}

typedef struct worker {
  CUstream stream;
  unsigned seed;
  unsigned long long allocs, frees;
} worker;

static void *worker_main(void *arg) {
  worker *w = arg;
  if (mri_ensure_context(0) != MR_OK) {
    problem("no context", NULL);
    return NULL;
  }
  void *live[LIVE];
  size_t sizes[LIVE];
  int count = 0;
  for (int op = 0; op < OPS; op++) {
    if (count == 0 || (count < LIVE && rand_r(&w->seed) % 2 == 0)) {
      size_t size = (size_t)256 << (rand_r(&w->seed) % 6);
      mr_status status = MR_ERR_STATE;
      void *ptr = mrctx_torch_control_route_alloc((ssize_t)size, 0, w->stream, &status);
      if (status != MR_OK || ptr == NULL) {
        problem("allocation failed", ptr);
        continue;
      }
      pthread_mutex_lock(&table_lock);
      seen *s = seen_slot(ptr);
      if (s->ptr == NULL) {
        *s = (seen){.ptr = ptr};
      } else if (s->held) {
        problem("a block handed out twice", ptr);
      } else if (s->size != size || s->stream != w->stream) {
        problem("a block came back at another size or stream", ptr);
      }
      s->held = 1;
      pthread_mutex_unlock(&table_lock);
      live[count] = ptr;
      sizes[count++] = size;
      w->allocs++;
    } else {
      int k = (int)(rand_r(&w->seed) % (unsigned)count);
      void *ptr = live[k];
      size_t size = sizes[k];
      live[k] = live[--count];
      sizes[k] = sizes[count];
      pthread_mutex_lock(&table_lock);
      seen *s = seen_slot(ptr);
      *s = (seen){.ptr = ptr, .size = size, .stream = w->stream, .held = 0};
      pthread_mutex_unlock(&table_lock);
      /* Timed, as PyTorch would call it under MRCTX_TORCH_TIMING=1. */
      mrctx_torch_control_free_timed(ptr, (ssize_t)size, 0, w->stream);
      w->frees++;
    }
  }
  while (count > 0) {
    count--;
    pthread_mutex_lock(&table_lock);
    seen *s = seen_slot(live[count]);
    *s = (seen){.ptr = live[count], .size = sizes[count], .stream = w->stream, .held = 0};
    pthread_mutex_unlock(&table_lock);
    mrctx_torch_control_free_timed(live[count], (ssize_t)sizes[count], 0, w->stream);
    w->frees++;
  }
  return NULL;
}

static void test_threads_on_shared_streams(void **state) {
  (void)state;
  fake_bind(0);
  CUstream streams[2] = {fake_new_stream(), fake_new_stream()};
  mrctx_torch_timing_reset();
  mrctx_torch_control_stats before = control_now();
  worker workers[THREADS];
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; i++) {
    workers[i] = (worker){.stream = streams[i % 2], .seed = 7u + (unsigned)i};
    assert_int_equal(pthread_create(&threads[i], NULL, worker_main, &workers[i]), 0);
  }
  unsigned long long allocs = 0, frees = 0;
  for (int i = 0; i < THREADS; i++) {
    pthread_join(threads[i], NULL);
    allocs += workers[i].allocs;
    frees += workers[i].frees;
  }
  assert_int_equal(atomic_load(&problems), 0);
  mrctx_torch_control_stats after = control_now();
  assert_int_equal(allocs, frees);
  assert_int_equal((after.hits - before.hits) + (after.misses - before.misses), allocs);
  assert_int_equal(after.frees - before.frees, frees);
  assert_int_equal(after.failed - before.failed, 0);
  /* Never given back: every block taken from the driver is in a list. */
  assert_int_equal(after.cached_blocks - before.cached_blocks, after.misses - before.misses);
  assert_int_equal(after.cached_bytes - before.cached_bytes,
                   after.reserved_bytes - before.reserved_bytes);
  assert_int_equal(after.live_bytes, before.live_bytes);
  assert_true(after.hits - before.hits > allocs / 2); /* six sizes, two streams */
  mrctx_torch_timing t;
  mrctx_torch_timing_read(&t);
  assert_int_equal(t.free.calls, frees);
  assert_int_equal(t.alloc.calls, 0); /* the untimed allocation counts nothing */
  assert_true(t.free.ns >= t.free.max_ns);
  assert_true(t.free.slow_calls <= t.free.calls);
  mrctx_torch_timing_reset();
  mrctx_torch_timing_read(&t);
  assert_int_equal(t.free.calls + t.free.ns + t.free.max_ns + t.free.slow_calls, 0);
}

/* The longest call and the slow ones, from a start time in the past. */
static void test_timing_slow_and_longest(void **state) {
  (void)state;
  mrctx_torch_timing_reset();
  unsigned long long now = mrctx_torch_clock_ns();
  mrctx_torch_time_record(MRCTX_TORCH_TIME_ALLOC, now - 50000); /* at least 50 us ago */
  mrctx_torch_time_record(MRCTX_TORCH_TIME_ALLOC, mrctx_torch_clock_ns());
  mrctx_torch_timing t;
  mrctx_torch_timing_read(&t);
  assert_int_equal(t.alloc.calls, 2);
  assert_true(t.alloc.max_ns >= 50000);
  assert_true(t.alloc.ns >= t.alloc.max_ns);
  assert_true(t.alloc.slow_calls >= 1);
  assert_int_equal(t.free.calls, 0);
  mrctx_torch_timing_reset();
}

/* ---- PyTorch's controls on a route ------------------------------------------ */

/* Route 2, freed through its MemPool pair (the shim's C part). */
enum { CONTROL_ROUTE = 2, CONTROL_THREADS = 3, CONTROL_ROUNDS = 300 };
void mrctx_torch_pool_free_2(void *ptr, ssize_t size, int device, void *stream);

typedef struct control_worker {
  pthread_t thread;
  int device;
  atomic_int *stop;
  int problems;
} control_worker;

static void *control_worker_main(void *arg) {
  control_worker *w = arg;
  for (int i = 0; !atomic_load(w->stop) && i < CONTROL_ROUNDS * 10; i++) {
    mr_status st = MR_OK;
    size_t size = (size_t)(i % 7 + 1) << 16;
    void *ptr = mrctx_torch_route_alloc(CONTROL_ROUTE, (ssize_t)size, w->device, NULL, &st);
    /* Out of memory is the fraction's; anything else is a problem. */
    if (st != MR_OK && st != MR_ERR_OUT_OF_MEMORY) w->problems++;
    if (st == MR_OK && ptr == NULL) w->problems++;
    if (ptr != NULL) mrctx_torch_pool_free_2(ptr, (ssize_t)size, w->device, NULL);
  }
  return NULL;
}

static void test_route_fraction_and_empty_cache(void **state) {
  (void)state;
  mr_tag tags[] = {{"c", "cache(device)"}};
  mr_context_desc desc = {
      .size = sizeof desc, .library = "torchroute", .tags = tags, .tag_count = 1};
  mr_context *ctx = NULL;
  assert_int_equal(mr_context_create(&desc, &ctx), MR_OK);
  int count = mr_context_device_count(ctx);
  mr_resource **mrs = calloc((size_t)count, sizeof *mrs);
  assert_non_null(mrs);
  for (int d = 0; d < count; d++) mrs[d] = mr_context_get_mr_on(ctx, 0, d);
  assert_int_equal(mrctx_torch_bind(CONTROL_ROUTE, "torchroute/c", mrs, count), 0);
  free(mrs);

  /* One device: 1/1024 of 16 GiB, 16 MiB (the fake backs memory with the
   * host's: small sizes). */
  assert_int_equal(mrctx_torch_route_set_fraction(CONTROL_ROUTE, 1.0 / 1024, 1), MR_OK);
  assert_true(mrctx_torch_route_limit(CONTROL_ROUTE, 1) == 16ULL << 20);
  assert_true(mrctx_torch_route_limit(CONTROL_ROUTE, 0) == ULLONG_MAX);
  mr_status st = MR_OK;
  void *a = mrctx_torch_route_alloc(CONTROL_ROUTE, 12LL << 20, 1, NULL, &st);
  assert_int_equal(st, MR_OK);
  assert_null(mrctx_torch_route_alloc(CONTROL_ROUTE, 8LL << 20, 1, NULL, &st));
  assert_int_equal(st, MR_ERR_OUT_OF_MEMORY);
  assert_non_null(strstr(mr_last_error(), "set_per_process_memory_fraction"));
  mrctx_torch_pool_free_2(a, 12LL << 20, 1, NULL);
  assert_int_equal(mrctx_torch_route_empty_cache(CONTROL_ROUTE), MR_OK);
  mr_cache_stats cache;
  memset(&cache, 0, sizeof cache);
  cache.size = sizeof cache;
  mr_resource *mr = mr_context_get_mr_on(ctx, 0, 1);
  while (mr != NULL && mr_cache_resource_get_stats(mr, &cache) != MR_OK)
    mr = mr_resource_upstream(mr);
  assert_non_null(mr);
  assert_int_equal(cache.cached_bytes, 0);

  /* Threads allocate on devices 0 and 1 while this one sets fractions and
   * empties the cache (the sanitizer builds look for races). */
  atomic_int stop = 0;
  control_worker workers[CONTROL_THREADS];
  for (int i = 0; i < CONTROL_THREADS; i++) {
    workers[i] = (control_worker){.device = i % 2, .stop = &stop};
    assert_int_equal(pthread_create(&workers[i].thread, NULL, control_worker_main, &workers[i]), 0);
  }
  for (int i = 0; i < CONTROL_ROUNDS; i++) {
    assert_int_equal(mrctx_torch_route_set_fraction(CONTROL_ROUTE, i % 2 ? 1.0 : 0.0, i % 2),
                     MR_OK);
    assert_int_equal(mrctx_torch_route_empty_cache(CONTROL_ROUTE), MR_OK);
  }
  atomic_store(&stop, 1);
  for (int i = 0; i < CONTROL_THREADS; i++) {
    pthread_join(workers[i].thread, NULL);
    assert_int_equal(workers[i].problems, 0);
  }
  mr_stats stats;
  mr_stats_init(&stats);
  assert_int_equal(mr_context_get_stats(ctx, 0, -1, &stats), MR_OK);
  assert_int_equal(stats.current_bytes, 0);
  mr_context_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table_growth_keeps_every_block),
      cmocka_unit_test(test_threads_on_shared_streams),
      cmocka_unit_test(test_timing_slow_and_longest),
      cmocka_unit_test(test_route_fraction_and_empty_cache),
  };
  return cmocka_run_group_tests(tests, fake_group_setup, NULL);
}

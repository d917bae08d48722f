/*
 * test_cache_gpu.c: the cache over the real driver pools (suite gpu).
 * Exits 77 without a driver or device.
 */
#include <pthread.h>
#include <stdlib.h>

#include "gpu_util.h"

static mr_resource *device_cache(size_t max) {
  mr_resource *device = NULL, *cache = NULL;
  assert_ok(mr_device_resource_create(0, &device));
  assert_ok(mr_cache_resource_create(device, max, &cache));
  mr_resource_release(device); /* the cache holds it */
  return cache;
}

static mr_cache_stats stats_of(mr_resource *cache) {
  mr_cache_stats st = {.size = sizeof st};
  assert_ok(mr_cache_resource_get_stats(cache, &st));
  return st;
}

static void test_memory_works_and_is_reused(void **state) {
  mr_resource *cache = device_cache(0);
  mr_stream s = gpu_stream_create();
  size_t sizes[] = {4, 1024, 1 << 20, (size_t)64 << 20, (size_t)65 << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    void *p = NULL, *q = NULL;
    assert_ok(mr_allocate(cache, sizes[i], 0, s, &p));
    assert_int_equal((uintptr_t)p % 256, 0);
    gpu_fill(p, sizes[i], (unsigned char)(i + 1), s);
    assert_true(gpu_all_equal(p, sizes[i], (unsigned char)(i + 1), s));
    assert_ok(mr_deallocate(cache, p, sizes[i], 0, s));
    assert_ok(mr_allocate(cache, sizes[i], 0, s, &q));
    if (sizes[i] <= ((size_t)64 << 20)) assert_ptr_equal(p, q); /* same stream: reused */
    assert_ok(mr_deallocate(cache, q, sizes[i], 0, s));
  }
  void *p = NULL;
  assert_ok(mr_allocate(cache, 1000, 4096, s, &p));
  assert_int_equal((uintptr_t)p % 4096, 0);
  assert_ok(mr_deallocate(cache, p, 1000, 4096, s));
  /* 1 PiB: out of memory, cleanly, after the cache gave back what it held. */
  p = (void *)1;
  assert_status(mr_allocate(cache, (size_t)1 << 50, 0, s, &p), MR_ERR_OUT_OF_MEMORY);
  assert_null(p);
  gpu_check(mri_cuda()->cuStreamSynchronize((CUstream)s));
  gpu_stream_destroy(s);
  mr_resource_release(cache);
}

/* A block freed on A while a slow kernel still runs on A is not handed to
 * B; once an event shows A got past the free, B may have it. */
static void test_cross_stream_waits_for_the_event(void **state) {
  mr_resource *cache = device_cache(0);
  mr_stream a = gpu_stream_create(), b = gpu_stream_create();
  const mri_cuda_api *cu = mri_cuda();
  /* Use both streams so this thread records events on its frees. */
  void *warm = NULL;
  assert_ok(mr_allocate(cache, 64, 0, b, &warm));
  assert_ok(mr_deallocate(cache, warm, 64, 0, b));

  enum { N = 32 };
  void *blocks[N];
  for (int i = 0; i < N; i++) assert_ok(mr_allocate(cache, 1 << 20, 0, a, &blocks[i]));
  gpu_spin(a, 300ull * 1000 * 1000); /* 300 ms */
  for (int i = 0; i < N; i++) assert_ok(mr_deallocate(cache, blocks[i], 1 << 20, 0, a));
  assert_int_equal(cu->cuStreamQuery((CUstream)a), CUDA_ERROR_NOT_READY);
  for (int i = 0; i < N; i++) {
    void *p = NULL;
    assert_ok(mr_allocate(cache, 1 << 20, 0, b, &p));
    for (int j = 0; j < N; j++) {
      if (p == blocks[j] && cu->cuStreamQuery((CUstream)a) == CUDA_ERROR_NOT_READY) {
        print_error("block %p freed on A was handed to B while A still runs\n", p);
        fail();
      }
    }
    gpu_fill(p, 1 << 20, 7, b);
    assert_ok(mr_deallocate(cache, p, 1 << 20, 0, b));
  }
  gpu_check(cu->cuStreamSynchronize((CUstream)a));
  gpu_check(cu->cuStreamSynchronize((CUstream)b));
  /* Now A is done: once B's own block is taken, A's covered blocks serve B. */
  uint64_t cross_before = stats_of(cache).cross_stream;
  void *p[N + 1];
  for (int i = 0; i <= N; i++) assert_ok(mr_allocate(cache, 1 << 20, 0, b, &p[i]));
  for (int i = 0; i <= N; i++) assert_ok(mr_deallocate(cache, p[i], 1 << 20, 0, b));
  assert_true(stats_of(cache).cross_stream > cross_before);
  gpu_check(cu->cuStreamSynchronize((CUstream)b));
  gpu_stream_destroy(a);
  gpu_stream_destroy(b);
  mr_resource_release(cache);
}

/* Allocations during capture bypass the cache; the graph runs; the cache is
 * intact afterwards. */
static void test_capture_is_graph_safe(void **state) {
  mr_resource *cache = device_cache(0);
  const mri_cuda_api *cu = mri_cuda();
  mr_stream s = gpu_stream_create();
  void *cached = NULL;
  assert_ok(mr_allocate(cache, 4096, 0, s, &cached));
  assert_ok(mr_deallocate(cache, cached, 4096, 0, s));
  gpu_check(cu->cuStreamBeginCapture((CUstream)s, CU_STREAM_CAPTURE_MODE_RELAXED));
  void *p = NULL;
  assert_ok(mr_allocate(cache, 4096, 0, s, &p));
  assert_ptr_not_equal(p, cached); /* not the cached block: a graph allocation */
  gpu_fill(p, 4096, 3, s);
  assert_ok(mr_deallocate(cache, p, 4096, 0, s));
  CUgraph graph = NULL;
  gpu_check(cu->cuStreamEndCapture((CUstream)s, &graph));
  assert_int_equal(stats_of(cache).bypassed, 1);
  CUgraphExec exec = NULL;
  gpu_check(cu->cuGraphInstantiateWithFlags(&exec, graph, 0));
  for (int i = 0; i < 3; i++) gpu_check(cu->cuGraphLaunch(exec, (CUstream)s));
  gpu_check(cu->cuStreamSynchronize((CUstream)s));
  gpu_check(cu->cuGraphExecDestroy(exec));
  gpu_check(cu->cuGraphDestroy(graph));
  /* The block cached before the capture is still there for the stream. */
  void *again = NULL;
  assert_ok(mr_allocate(cache, 4096, 0, s, &again));
  assert_ptr_equal(again, cached);
  assert_ok(mr_deallocate(cache, again, 4096, 0, s));
  gpu_check(cu->cuStreamSynchronize((CUstream)s));
  gpu_stream_destroy(s);
  mr_resource_release(cache);
}

typedef struct worker {
  mr_resource *cache;
  int pairs;
  const char *error;
} worker;

static void *worker_main(void *arg) {
  worker *w = arg;
  gpu_bind_thread();
  CUstream s = NULL;
  if (mri_cuda()->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
    w->error = "stream";
    return NULL;
  }
  void *p[64] = {0};
  size_t n[64] = {0};
  uint64_t seed = (uint64_t)(uintptr_t)w;
  for (int i = 0; i < w->pairs && w->error == NULL; i++) {
    int k = (int)(test_rand(&seed) % 64);
    if (p[k] && mr_deallocate(w->cache, p[k], n[k], 0, (mr_stream)s) != MR_OK) w->error = "free";
    n[k] = 256 + test_rand(&seed) % (1 << 20);
    if (mr_allocate(w->cache, n[k], 0, (mr_stream)s, &p[k]) != MR_OK) w->error = "allocate";
  }
  for (int k = 0; k < 64; k++)
    if (p[k] && mr_deallocate(w->cache, p[k], n[k], 0, (mr_stream)s) != MR_OK)
      w->error = "deallocate";
  mri_cuda()->cuStreamSynchronize(s);
  mri_cuda()->cuStreamDestroy(s);
  return NULL;
}

static void test_threads_and_trim(void **state) {
  mr_resource *cache = device_cache((size_t)512 << 20);
  enum { THREADS = 16 };
  pthread_t t[THREADS];
  worker w[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker){cache, 20000, NULL};
    pthread_create(&t[i], NULL, worker_main, &w[i]);
  }
  for (int i = 0; i < THREADS; i++) {
    pthread_join(t[i], NULL);
    if (w[i].error) print_error("thread %d: %s: %s\n", i, w[i].error, mr_last_error());
    assert_null(w[i].error);
  }
  mr_cache_stats st = stats_of(cache);
  assert_int_equal(st.hits + st.misses, (uint64_t)THREADS * 20000);
  /* The threads exited: their stacks went to their streams' heaps, where
   * the memory waits (no live stream to free it on) until a trim. */
  mr_pool_info before = {.size = sizeof before}, after = {.size = sizeof after};
  mr_resource *device = mr_resource_upstream(cache);
  assert_ok(mr_pool_resource_get_info(device, &before));
  assert_ok(mr_resource_trim(cache));
  gpu_check(mri_cuda()->cuStreamSynchronize(NULL)); /* trim frees on the legacy stream */
  assert_ok(mr_pool_resource_get_info(device, &after));
  assert_int_equal(stats_of(cache).cached_bytes, 0);
  /* The pool may round sizes up, so at least the cached bytes came back. */
  assert_true(before.used_bytes - after.used_bytes >= st.cached_bytes);
  mr_resource_release(cache);
}

static void test_pinned_cache_host_access(void **state) {
  mr_resource *pinned = NULL, *cache = NULL;
  assert_ok(mr_pinned_resource_create(0, &pinned));
  assert_ok(mr_cache_resource_create(pinned, 0, &cache));
  mr_stream s = gpu_stream_create();
  void *p = NULL;
  assert_ok(mr_allocate(cache, 1 << 20, 0, s, &p));
  gpu_check(mri_cuda()->cuStreamSynchronize((CUstream)s));
  memset(p, 9, 1 << 20); /* the host writes pinned memory */
  assert_true(gpu_all_equal(p, 1 << 20, 9, s));
  gpu_fill(p, 1 << 20, 4, s); /* a kernel writes it */
  gpu_check(mri_cuda()->cuStreamSynchronize((CUstream)s));
  assert_int_equal(((unsigned char *)p)[12345], 4);
  assert_ok(mr_deallocate(cache, p, 1 << 20, 0, s));
  gpu_check(mri_cuda()->cuStreamSynchronize((CUstream)s));
  gpu_stream_destroy(s);
  mr_resource_release(cache);
  mr_resource_release(pinned);
}

int main(void) {
  GPU_TEST_REQUIRE();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_memory_works_and_is_reused),
      cmocka_unit_test(test_cross_stream_waits_for_the_event),
      cmocka_unit_test(test_capture_is_graph_safe),
      cmocka_unit_test(test_threads_and_trim),
      cmocka_unit_test(test_pinned_cache_host_access),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

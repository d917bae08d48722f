/*
 * test_cache_fake.c: the cache's stream ordering, capture handling, trim
 * and driver failures, over the fake driver (suite fake). The fake's busy
 * streams keep events incomplete, which proves reuse waits for them.
 */
#include <pthread.h>
#include <stdlib.h>

#include "fake_test.h"

static mr_resource *device_cache(void) {
  mr_resource *device = NULL, *cache = NULL;
  assert_ok(mr_device_resource_create(0, &device));
  assert_ok(mr_cache_resource_create(device, 0, &cache));
  mr_resource_release(device);
  return cache;
}

static mr_cache_stats stats_of(mr_resource *cache) {
  mr_cache_stats st = {.size = sizeof st};
  assert_ok(mr_cache_resource_get_stats(cache, &st));
  return st;
}

static void test_cross_stream_needs_completed_event(void **state) {
  mr_resource *cache = device_cache();
  CUstream a = fake_new_stream(), b = fake_new_stream();
  /* This thread uses two streams, so its frees get covered by events. */
  void *p = NULL;
  assert_ok(mr_allocate(cache, 64, 0, (mr_stream)b, &p));
  assert_ok(mr_deallocate(cache, p, 64, 0, (mr_stream)b));
  enum { N = 16 };
  void *blocks[N];
  for (int i = 0; i < N; i++) assert_ok(mr_allocate(cache, 4096, 0, (mr_stream)a, &blocks[i]));
  assert_int_equal(fake_cuda_set_stream_busy(a, true), CUDA_SUCCESS);
  long records = fake_cuda_calls("cuEventRecord");
  for (int i = 0; i < N; i++) assert_ok(mr_deallocate(cache, blocks[i], 4096, 0, (mr_stream)a));
  assert_int_equal(fake_cuda_calls("cuEventRecord"), records + 1); /* one per 16 frees */
  /* A is busy: B gets fresh memory, never A's blocks. */
  void *q = NULL;
  assert_ok(mr_allocate(cache, 4096, 0, (mr_stream)b, &q));
  for (int i = 0; i < N; i++) assert_ptr_not_equal(q, blocks[i]);
  assert_int_equal(stats_of(cache).cross_stream, 0);
  assert_ok(mr_deallocate(cache, q, 4096, 0, (mr_stream)b));
  /* A got past the frees: B may now take A's blocks (after its own). */
  assert_int_equal(fake_cuda_set_stream_busy(a, false), CUDA_SUCCESS);
  void *r[2];
  assert_ok(mr_allocate(cache, 4096, 0, (mr_stream)b, &r[0])); /* B's own block */
  assert_ptr_equal(r[0], q);
  assert_ok(mr_allocate(cache, 4096, 0, (mr_stream)b, &r[1]));
  bool from_a = false;
  for (int i = 0; i < N; i++) from_a |= r[1] == blocks[i];
  assert_true(from_a);
  assert_int_equal(stats_of(cache).cross_stream, 1);
  for (int i = 0; i < 2; i++) assert_ok(mr_deallocate(cache, r[i], 4096, 0, (mr_stream)b));
  mr_resource_release(cache);
  fake_cu()->cuStreamDestroy(a);
  fake_cu()->cuStreamDestroy(b);
  assert_int_equal(fake_cuda_live_allocations(), 0);
}

/* One stream only: no event is ever recorded, whatever the traffic. */
static void test_single_stream_records_nothing(void **state) {
  mr_resource *cache = device_cache();
  CUstream a = fake_new_stream();
  long events = fake_cuda_calls("cuEventRecord");
  for (int i = 0; i < 1000; i++) {
    void *p = NULL;
    assert_ok(mr_allocate(cache, 100 + (size_t)i * 37, 0, (mr_stream)a, &p));
    assert_ok(mr_deallocate(cache, p, 100 + (size_t)i * 37, 0, (mr_stream)a));
  }
  assert_int_equal(fake_cuda_calls("cuEventRecord"), events);
  assert_int_equal(fake_cuda_calls("cuEventQuery"), 0);
  mr_resource_release(cache);
  fake_cu()->cuStreamDestroy(a);
  assert_int_equal(fake_cuda_live_allocations(), 0);
  assert_int_equal(fake_cuda_live_events(), 0);
}

static void test_capture_bypasses(void **state) {
  mr_resource *cache = device_cache();
  CUstream s = fake_new_stream();
  void *cached = NULL;
  assert_ok(mr_allocate(cache, 4096, 0, (mr_stream)s, &cached));
  assert_ok(mr_deallocate(cache, cached, 4096, 0, (mr_stream)s));
  long live = fake_cuda_live_allocations();
  assert_int_equal(fake_cuda_set_stream_capturing(s, true), CUDA_SUCCESS);
  void *p = NULL;
  assert_ok(mr_allocate(cache, 4096, 0, (mr_stream)s, &p));
  assert_ptr_not_equal(p, cached);
  assert_int_equal(fake_cuda_live_allocations(), live + 1);
  assert_ok(mr_deallocate(cache, p, 4096, 0, (mr_stream)s));
  assert_int_equal(fake_cuda_live_allocations(), live); /* went straight upstream */
  assert_int_equal(stats_of(cache).bypassed, 1);
  assert_int_equal(fake_cuda_set_stream_capturing(s, false), CUDA_SUCCESS);
  void *again = NULL;
  assert_ok(mr_allocate(cache, 4096, 0, (mr_stream)s, &again));
  assert_ptr_equal(again, cached);
  assert_ok(mr_deallocate(cache, again, 4096, 0, (mr_stream)s));
  mr_resource_release(cache);
  fake_cu()->cuStreamDestroy(s);
  assert_int_equal(fake_cuda_live_allocations(), 0);
}

static void test_driver_failures(void **state) {
  mr_resource *cache = device_cache();
  CUstream s = fake_new_stream();
  /* The capture check fails: the allocation fails cleanly. */
  fake_cuda_fail("cuStreamIsCapturing", 1, 1, CUDA_ERROR_INVALID_HANDLE);
  void *p = (void *)1;
  assert_status(mr_allocate(cache, 100, 0, (mr_stream)s, &p), MR_ERR_DRIVER);
  assert_null(p);
  assert_error_contains("CUDA_ERROR_INVALID_HANDLE");
  /* Upstream out of memory: the cache gives back what it holds, retries. */
  void *held = NULL;
  assert_ok(mr_allocate(cache, 8192, 0, (mr_stream)s, &held));
  assert_ok(mr_deallocate(cache, held, 8192, 0, (mr_stream)s));
  long syncs = fake_cuda_calls("cuCtxSynchronize");
  fake_cuda_fail("cuMemAllocFromPoolAsync", 1, 1, CUDA_ERROR_OUT_OF_MEMORY);
  assert_ok(mr_allocate(cache, 1 << 20, 0, (mr_stream)s, &p));
  assert_true(fake_cuda_calls("cuCtxSynchronize") > syncs);
  assert_int_equal(stats_of(cache).cached_blocks, 0);
  assert_ok(mr_deallocate(cache, p, 1 << 20, 0, (mr_stream)s));
  /* Out of memory that trimming cannot fix is reported as such. */
  fake_cuda_fail("cuMemAllocFromPoolAsync", 1, 2, CUDA_ERROR_OUT_OF_MEMORY);
  p = (void *)1;
  assert_status(mr_allocate(cache, 3 << 20, 0, (mr_stream)s, &p), MR_ERR_OUT_OF_MEMORY);
  assert_null(p);
  assert_error_contains("after returning every cached block");
  /* A failed trim (the device cannot be synchronized) keeps the blocks. */
  assert_ok(mr_allocate(cache, 8192, 0, (mr_stream)s, &held));
  assert_ok(mr_deallocate(cache, held, 8192, 0, (mr_stream)s));
  fake_cuda_fail("cuCtxSynchronize", 1, 1, CUDA_ERROR_LAUNCH_FAILED);
  assert_status(mr_resource_trim(cache), MR_ERR_DRIVER);
  assert_error_contains("cache: trimming");
  assert_int_equal(stats_of(cache).cached_blocks, 1);
  assert_ok(mr_resource_trim(cache));
  assert_int_equal(stats_of(cache).cached_blocks, 0);
  mr_resource_release(cache);
  fake_cu()->cuStreamDestroy(s);
  assert_int_equal(fake_cuda_live_allocations(), 0);
}

/* A block whose upstream free fails is never dropped: trim reports the
 * failure and keeps it, a later trim gives it back; a free of a graph
 * allocation that fails upstream stays the caller's. A failing stream ID
 * query fails the call cleanly. */
static void test_failed_upstream_frees_keep_blocks(void **state) {
  mr_resource *cache = device_cache();
  CUstream s = fake_new_stream();
  void *blocks[4];
  for (int i = 0; i < 4; i++) assert_ok(mr_allocate(cache, 4096 << i, 0, (mr_stream)s, &blocks[i]));
  for (int i = 0; i < 4; i++) assert_ok(mr_deallocate(cache, blocks[i], 4096 << i, 0, (mr_stream)s));
  assert_int_equal(stats_of(cache).cached_blocks, 4);
  fake_cuda_fail("cuMemFreeAsync", 2, 1, CUDA_ERROR_LAUNCH_FAILED);
  assert_status(mr_resource_trim(cache), MR_ERR_DRIVER);
  assert_error_contains("giving a block back upstream");
  assert_int_equal(stats_of(cache).cached_blocks, 3); /* one went back before the failure */
  assert_int_equal(fake_cuda_live_allocations(), 3);
  assert_ok(mr_resource_trim(cache));
  assert_int_equal(stats_of(cache).cached_blocks, 0);
  assert_int_equal(fake_cuda_live_allocations(), 0);

  /* A graph allocation whose free fails stays recorded: the retry works. */
  void *g = NULL;
  assert_int_equal(fake_cuda_set_stream_capturing(s, true), CUDA_SUCCESS);
  assert_ok(mr_allocate(cache, 4096, 0, (mr_stream)s, &g));
  fake_cuda_fail("cuMemFreeAsync", 1, 1, CUDA_ERROR_LAUNCH_FAILED);
  assert_status(mr_deallocate(cache, g, 4096, 0, (mr_stream)s), MR_ERR_DRIVER);
  assert_ok(mr_deallocate(cache, g, 4096, 0, (mr_stream)s));
  assert_int_equal(fake_cuda_set_stream_capturing(s, false), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_live_allocations(), 0);

  /* The stream's ID cannot be read: allocate and free fail, nothing lost. */
  void *p = NULL;
  assert_ok(mr_allocate(cache, 4096, 0, (mr_stream)s, &p));
  fake_cuda_fail("cuStreamGetId", 1, 1, CUDA_ERROR_INVALID_HANDLE);
  assert_status(mr_deallocate(cache, p, 4096, 0, (mr_stream)s), MR_ERR_DRIVER);
  assert_error_contains("cuStreamGetId");
  fake_cuda_fail("cuStreamGetId", 1, 1, CUDA_ERROR_INVALID_HANDLE);
  void *q = (void *)1;
  assert_status(mr_allocate(cache, 4096, 0, (mr_stream)s, &q), MR_ERR_DRIVER);
  assert_null(q);
  assert_ok(mr_deallocate(cache, p, 4096, 0, (mr_stream)s));
  mr_resource_release(cache);
  fake_cu()->cuStreamDestroy(s);
  assert_int_equal(fake_cuda_live_allocations(), 0);
  assert_int_equal(fake_cuda_live_events(), 0);
}

/* Streams created and destroyed one after another (one per request, say)
 * leave blocks no event covers. Once they pass a quarter of the cap, one
 * device synchronization makes them all reusable instead of growing. */
static void test_dead_streams_settle(void **state) {
  mr_resource *device = NULL, *cache = NULL;
  assert_ok(mr_device_resource_create(0, &device));
  assert_ok(mr_cache_resource_create(device, (size_t)8 << 20, &cache)); /* 8 MiB cap */
  mr_resource_release(device);
  long syncs = fake_cuda_calls("cuCtxSynchronize");
  for (int round = 0; round < 64; round++) {
    CUstream s = fake_new_stream();
    void *p = NULL;
    assert_ok(mr_allocate(cache, 256 << 10, 0, (mr_stream)s, &p));
    assert_int_equal(fake_cuda_set_stream_busy(s, true), CUDA_SUCCESS);
    assert_ok(mr_deallocate(cache, p, 256 << 10, 0, (mr_stream)s));
    fake_cu()->cuStreamDestroy(s); /* its work runs on until a synchronization */
  }
  /* 64 requests of 256 KiB, but memory stays near the 8 MiB cap. */
  assert_true(fake_cuda_calls("cuCtxSynchronize") > syncs);
  assert_true(fake_cuda_used_memory(0) <= (size_t)12 << 20);
  assert_true(stats_of(cache).hits > 0);
  mr_resource_release(cache);
  assert_int_equal(fake_cuda_live_allocations(), 0);
}

/* The legacy stream belongs to a context: NULL on device 1 is not NULL on
 * device 0, so a block freed there is not reused without an event. */
static void test_legacy_stream_is_per_device(void **state) {
  mr_resource *pinned = NULL, *cache = NULL;
  assert_ok(mr_pinned_resource_create(0, &pinned));
  assert_ok(mr_cache_resource_create(pinned, 0, &cache));
  void *p = NULL, *q = NULL;
  assert_ok(mr_allocate(cache, 4096, 0, NULL, &p));
  assert_ok(mr_deallocate(cache, p, 4096, 0, NULL));
  CUcontext ctx1 = NULL;
  assert_ok(mri_primary_context(1, &ctx1));
  CUcontext ctx0 = fake_cuda_current_context();
  assert_int_equal(fake_cu()->cuCtxSetCurrent(ctx1), CUDA_SUCCESS);
  assert_ok(mr_allocate(cache, 4096, 0, NULL, &q));
  assert_ptr_not_equal(p, q);
  assert_ok(mr_deallocate(cache, q, 4096, 0, NULL));
  assert_int_equal(fake_cu()->cuCtxSetCurrent(ctx0), CUDA_SUCCESS);
  assert_ok(mr_allocate(cache, 4096, 0, NULL, &q));
  assert_ptr_equal(p, q); /* back on device 0's legacy stream */
  assert_ok(mr_deallocate(cache, q, 4096, 0, NULL));
  mr_resource_release(cache);
  mr_resource_release(pinned);
  assert_int_equal(fake_cuda_live_allocations(), 0);
}

static void *free_then_exit(void *arg) {
  mr_resource *cache = arg;
  const mri_cuda_api *cu = mri_cuda();
  if (mri_ensure_context(0) != MR_OK) return NULL;
  CUstream s = NULL;
  cu->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
  void *p = NULL;
  bool ok = mr_allocate(cache, 4096, 0, (mr_stream)s, &p) == MR_OK &&
            mr_deallocate(cache, p, 4096, 0, (mr_stream)s) == MR_OK;
  cu->cuStreamDestroy(s); /* the stream is gone before anyone else asks */
  return ok ? p : NULL;
}

/* A thread that exits hands its blocks to the shared pool; with its stream
 * destroyed and no event, they wait for a trim: the cache never names the
 * dead stream again. */
static void test_exited_thread_dead_stream(void **state) {
  mr_resource *cache = device_cache();
  pthread_t t;
  void *freed = NULL;
  pthread_create(&t, NULL, free_then_exit, cache);
  pthread_join(t, &freed);
  assert_non_null(freed);
  CUstream s = fake_new_stream();
  void *p = NULL;
  long records = fake_cuda_calls("cuEventRecord");
  assert_ok(mr_allocate(cache, 4096, 0, (mr_stream)s, &p));
  assert_ptr_not_equal(p, freed);
  assert_int_equal(fake_cuda_calls("cuEventRecord"), records);
  assert_ok(mr_deallocate(cache, p, 4096, 0, (mr_stream)s));
  assert_ok(mr_resource_trim(cache)); /* synchronizes, then frees everything */
  assert_int_equal(stats_of(cache).cached_blocks, 0);
  mr_resource_release(cache);
  fake_cu()->cuStreamDestroy(s);
  assert_int_equal(fake_cuda_live_allocations(), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_cross_stream_needs_completed_event, fake_test_setup),
      cmocka_unit_test_setup(test_single_stream_records_nothing, fake_test_setup),
      cmocka_unit_test_setup(test_capture_bypasses, fake_test_setup),
      cmocka_unit_test_setup(test_driver_failures, fake_test_setup),
      cmocka_unit_test_setup(test_legacy_stream_is_per_device, fake_test_setup),
      cmocka_unit_test_setup(test_exited_thread_dead_stream, fake_test_setup),
      cmocka_unit_test_setup(test_failed_upstream_frees_keep_blocks, fake_test_setup),
      cmocka_unit_test_setup(test_dead_streams_settle, fake_test_setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

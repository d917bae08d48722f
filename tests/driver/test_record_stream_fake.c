/*
 * test_record_stream_fake.c: mr_record_stream over the fake driver: what a
 * free of a recorded block waits for (the freeing stream waits for an event
 * on each recorded stream; a synchronous free waits on the host), what it
 * skips (the freeing stream itself, a stream recorded twice), a recorded
 * stream destroyed before the free (its context is waited for), errors
 * (the record stays and the block is not freed), and threads. The fake's
 * streams keep work pending while marked busy, and a stream that waits for
 * an event keeps its later work pending with it, as on a GPU.
 */
#include <pthread.h>
#include <string.h>

#include "fake_test.h"

static bool stream_pending(CUstream s) {
  return fake_cu()->cuStreamQuery(s) == CUDA_ERROR_NOT_READY;
}

static void test_arguments(void **state) {
  mr_resource *mr = NULL;
  assert_ok(mr_resource_from_spec("cache(device)", 0, &mr));
  assert_int_equal(mr_record_stream(NULL, (void *)0x1000, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(mr_last_error(), "resource is NULL"));
  assert_int_equal(mr_record_stream(mr, NULL, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(mr_last_error(), "pointer is NULL"));
  mr_resource_release(mr);
}

/* The freeing stream waits for the recorded one: another stream does not
 * get the block while the recorded stream is busy, and does once it is
 * done. */
static void test_free_waits_for_recorded_stream(void **state) {
  mr_resource *mr = NULL;
  assert_ok(mr_resource_from_spec("cache(device)", 0, &mr));
  CUstream s = fake_new_stream(), r = fake_new_stream(), b = fake_new_stream();
  void *x = NULL, *y = NULL;
  assert_ok(mr_allocate(mr, 4096, 0, (mr_stream)s, &x));
  assert_int_equal(fake_cuda_set_stream_busy(r, true), CUDA_SUCCESS);
  assert_ok(mr_record_stream(mr, x, (mr_stream)r));
  long waits = fake_cuda_calls("cuStreamWaitEvent");
  assert_ok(mr_deallocate(mr, x, 4096, 0, (mr_stream)s));
  assert_int_equal(fake_cuda_calls("cuStreamWaitEvent"), waits + 1);
  assert_true(stream_pending(s)); /* S now waits for R's work */
  assert_ok(mr_allocate(mr, 4096, 0, (mr_stream)b, &y));
  assert_ptr_not_equal(y, x);
  assert_ok(mr_deallocate(mr, y, 4096, 0, (mr_stream)b));
  /* R done: S passes, and the block may go anywhere. */
  assert_int_equal(fake_cuda_set_stream_busy(r, false), CUDA_SUCCESS);
  assert_false(stream_pending(s));
  /* The record went with the free: later frees wait for nothing. */
  assert_ok(mr_allocate(mr, 4096, 0, (mr_stream)s, &x));
  assert_ok(mr_deallocate(mr, x, 4096, 0, (mr_stream)s));
  assert_int_equal(fake_cuda_calls("cuStreamWaitEvent"), waits + 1);
  assert_int_equal(atomic_load(&mri_recorded_blocks), 0);
  assert_int_equal(fake_cuda_live_events(), 0);
  assert_ok(mr_resource_trim(mr));
  mr_resource_release(mr);
  fake_cu()->cuStreamDestroy(s);
  fake_cu()->cuStreamDestroy(r);
  fake_cu()->cuStreamDestroy(b);
}

/* The freeing stream itself, and one stream recorded twice: no extra wait. */
static void test_own_stream_and_duplicates(void **state) {
  mr_resource *mr = NULL;
  assert_ok(mr_resource_from_spec("device", 0, &mr));
  CUstream s = fake_new_stream(), r = fake_new_stream();
  void *x = NULL;
  assert_ok(mr_allocate(mr, 4096, 0, (mr_stream)s, &x));
  assert_ok(mr_record_stream(mr, x, (mr_stream)s));
  assert_ok(mr_record_stream(mr, x, (mr_stream)r));
  assert_ok(mr_record_stream(mr, x, (mr_stream)r));
  long waits = fake_cuda_calls("cuStreamWaitEvent");
  assert_ok(mr_deallocate(mr, x, 4096, 0, (mr_stream)s));
  assert_int_equal(fake_cuda_calls("cuStreamWaitEvent"), waits + 1);
  /* The legacy stream recorded, the block freed on it: nothing to wait for. */
  assert_ok(mr_allocate(mr, 4096, 0, NULL, &x));
  assert_ok(mr_record_stream(mr, x, NULL));
  assert_ok(mr_deallocate(mr, x, 4096, 0, NULL));
  assert_int_equal(fake_cuda_calls("cuStreamWaitEvent"), waits + 1);
  assert_int_equal(atomic_load(&mri_recorded_blocks), 0);
  mr_resource_release(mr);
  fake_cu()->cuStreamDestroy(s);
  fake_cu()->cuStreamDestroy(r);
}

/* A recorded stream destroyed before the free, its handle given to a new
 * stream: the free cannot record on it (the handle names another stream
 * now), so it waits for the context, which finishes the work it left. */
static void test_destroyed_recorded_stream(void **state) {
  mr_resource *mr = NULL;
  assert_ok(mr_resource_from_spec("cache(device)", 0, &mr));
  CUstream s = fake_new_stream(), r = fake_new_stream(), b = fake_new_stream();
  void *x = NULL, *y = NULL;
  assert_ok(mr_allocate(mr, 4096, 0, (mr_stream)s, &x));
  assert_int_equal(fake_cuda_set_stream_busy(r, true), CUDA_SUCCESS);
  assert_ok(mr_record_stream(mr, x, (mr_stream)r));
  assert_int_equal(fake_cu()->cuStreamDestroy(r), CUDA_SUCCESS);
  CUstream again = fake_new_stream();
  assert_ptr_equal(again, r); /* the fake reuses handles, as the driver may */
  long syncs = fake_cuda_calls("cuCtxSynchronize");
  long records = fake_cuda_calls("cuEventRecord");
  assert_ok(mr_deallocate(mr, x, 4096, 0, (mr_stream)s));
  assert_int_equal(fake_cuda_calls("cuCtxSynchronize"), syncs + 1);
  assert_int_equal(fake_cuda_calls("cuEventRecord"), records); /* not on the new stream */
  assert_ok(mr_allocate(mr, 4096, 0, (mr_stream)b, &y));
  assert_ok(mr_deallocate(mr, y, 4096, 0, (mr_stream)b));
  assert_ok(mr_resource_trim(mr));
  mr_resource_release(mr);
  fake_cu()->cuStreamDestroy(s);
  fake_cu()->cuStreamDestroy(again);
  fake_cu()->cuStreamDestroy(b);
}

/* A synchronous free, and a resource whose frees are not stream-ordered:
 * the host waits for the recorded stream's event. */
static void test_host_waits(void **state) {
  static const char *const specs[] = {"device", "sync_device"};
  for (size_t i = 0; i < MRI_ARRAY_SIZE(specs); i++) {
    mr_resource *mr = NULL;
    assert_ok(mr_resource_from_spec(specs[i], 0, &mr));
    CUstream r = fake_new_stream();
    void *x = NULL;
    assert_ok(mr_allocate_sync(mr, 4096, 0, &x));
    assert_ok(mr_record_stream(mr, x, (mr_stream)r));
    long host_waits = fake_cuda_calls("cuEventSynchronize");
    long waits = fake_cuda_calls("cuStreamWaitEvent");
    if (i == 0)
      assert_ok(mr_deallocate_sync(mr, x, 4096, 0));
    else
      assert_ok(mr_deallocate(mr, x, 4096, 0, NULL));
    assert_int_equal(fake_cuda_calls("cuEventSynchronize"), host_waits + 1);
    assert_int_equal(fake_cuda_calls("cuStreamWaitEvent"), waits);
    mr_resource_release(mr);
    fake_cu()->cuStreamDestroy(r);
  }
}

/* A wait that cannot be made fails the free: the block stays allocated and
 * recorded, and the next free waits and succeeds. */
static void test_failed_wait_keeps_the_block(void **state) {
  mr_resource *mr = NULL;
  assert_ok(mr_resource_from_spec("stats(device)", 0, &mr));
  CUstream s = fake_new_stream(), r = fake_new_stream();
  void *x = NULL;
  assert_ok(mr_allocate(mr, 4096, 0, (mr_stream)s, &x));
  assert_ok(mr_record_stream(mr, x, (mr_stream)r));
  fake_cuda_fail("cuEventRecord", 1, 1, CUDA_ERROR_LAUNCH_FAILED);
  assert_int_equal(mr_deallocate(mr, x, 4096, 0, (mr_stream)s), MR_ERR_DRIVER);
  assert_non_null(strstr(mr_last_error(), "recorded stream"));
  assert_non_null(strstr(mr_last_error(), "CUDA_ERROR_LAUNCH_FAILED"));
  assert_int_equal(fake_cuda_allocation_device(x), 0); /* still allocated */
  assert_int_equal(atomic_load(&mri_recorded_blocks), 1);
  long waits = fake_cuda_calls("cuStreamWaitEvent");
  assert_ok(mr_deallocate(mr, x, 4096, 0, (mr_stream)s));
  assert_int_equal(fake_cuda_calls("cuStreamWaitEvent"), waits + 1);
  assert_int_equal(atomic_load(&mri_recorded_blocks), 0);
  assert_int_equal(fake_cuda_live_events(), 0);
  mr_resource_release(mr);
  fake_cu()->cuStreamDestroy(s);
  fake_cu()->cuStreamDestroy(r);
}

/* Threads record and free their own blocks at once (ThreadSanitizer runs
 * the fake suite in CI). */
typedef struct worker {
  mr_resource *mr;
  CUstream s, r;
  int failures;
} worker;

static void *record_and_free(void *arg) {
  worker *w = arg;
  if (mri_ensure_context(0) != MR_OK) {
    w->failures++;
    return NULL;
  }
  for (int i = 0; i < 500; i++) {
    void *p = NULL;
    size_t bytes = 256 + (size_t)(i % 7) * 1024;
    if (mr_allocate(w->mr, bytes, 0, (mr_stream)w->s, &p) != MR_OK ||
        mr_record_stream(w->mr, p, (mr_stream)w->r) != MR_OK ||
        (i % 3 == 0 && mr_record_stream(w->mr, p, (mr_stream)w->s) != MR_OK) ||
        mr_deallocate(w->mr, p, bytes, 0, (mr_stream)w->s) != MR_OK)
      w->failures++;
  }
  return NULL;
}

static void test_threads(void **state) {
  mr_resource *mr = NULL;
  assert_ok(mr_resource_from_spec("cache(device)", 0, &mr));
  enum { THREADS = 4 };
  worker workers[THREADS];
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++) {
    workers[t] = (worker){.mr = mr, .s = fake_new_stream(), .r = fake_new_stream()};
    assert_int_equal(pthread_create(&threads[t], NULL, record_and_free, &workers[t]), 0);
  }
  for (int t = 0; t < THREADS; t++) {
    pthread_join(threads[t], NULL);
    assert_int_equal(workers[t].failures, 0);
  }
  assert_int_equal(atomic_load(&mri_recorded_blocks), 0);
  assert_int_equal(fake_cuda_live_events(), 0);
  assert_ok(mr_resource_trim(mr));
  mr_resource_release(mr);
  for (int t = 0; t < THREADS; t++) {
    fake_cu()->cuStreamDestroy(workers[t].s);
    fake_cu()->cuStreamDestroy(workers[t].r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_arguments, fake_test_setup),
      cmocka_unit_test_setup(test_free_waits_for_recorded_stream, fake_test_setup),
      cmocka_unit_test_setup(test_own_stream_and_duplicates, fake_test_setup),
      cmocka_unit_test_setup(test_destroyed_recorded_stream, fake_test_setup),
      cmocka_unit_test_setup(test_host_waits, fake_test_setup),
      cmocka_unit_test_setup(test_failed_wait_keeps_the_block, fake_test_setup),
      cmocka_unit_test_setup(test_threads, fake_test_setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

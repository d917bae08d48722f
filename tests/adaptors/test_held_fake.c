/*
 * test_held_fake.c: the held-stream scenarios (tests/support/held_streams.h)
 * for every resource that keeps memory, over the fake driver, whose streams
 * keep their work pending after destruction and hand their handles to the
 * next stream, as the real driver does. The fake writes memory at once, so
 * here the pointers are what is checked; the gpu suite checks bytes too.
 */
#include <pthread.h>

#include "fake_test.h"
#include "held_specs.h"
#include "held_streams.h"

static int setup(void **state) {
  int rc = fake_test_setup(state);
  if (rc == 0) held_streams_init(120);
  return rc;
}

static void test_every_resource(void **state) {
  for (size_t i = 0; i < MRI_ARRAY_SIZE(held_specs); i++) {
    held_all(held_specs[i], 4096);
    /* Everything went back: trim synchronized the device and returned it
     * all, and the adaptors are gone. Only the gate word is left. */
    assert_int_equal(fake_cuda_live_allocations(), 1);
  }
  for (size_t i = 0; i < MRI_ARRAY_SIZE(held_large_specs); i++) {
    held_all(held_large_specs[i], HELD_LARGE_BLOCK);
    assert_int_equal(fake_cuda_live_allocations(), 1);
  }
  assert_int_equal(fake_cuda_live_events(), 0);
}

/* The handle check is real here: the fake hands a destroyed stream's handle
 * to the next stream, so the scenario above met a reused handle. */
static void test_fake_reuses_handles(void **state) {
  CUstream a = fake_new_stream();
  assert_int_equal(fake_cu()->cuStreamDestroy(a), CUDA_SUCCESS);
  CUstream b = fake_new_stream();
  assert_ptr_equal(a, b);
  fake_cu()->cuStreamDestroy(b);
}

static void *allocate_on_per_thread_stream(void *arg) {
  mr_resource *mr = arg;
  void *p = NULL;
  mr_status st = mr_allocate(mr, 4096, 0, (mr_stream)CU_STREAM_PER_THREAD, &p);
  if (st == MR_OK) st = mr_deallocate(mr, p, 4096, 0, (mr_stream)CU_STREAM_PER_THREAD);
  return (void *)(intptr_t)st;
}

/* A thread with no current context allocates on the per-thread stream: the
 * resource makes its device's context current, as `device` alone does. */
static void test_per_thread_stream_without_context(void **state) {
  static const char *const specs[] = {"device", "cache(device)", "arena(device, chunk=1MiB)",
                                      "fixed(device, block=4KiB, count=4)"};
  for (size_t i = 0; i < MRI_ARRAY_SIZE(specs); i++) {
    mr_resource *mr = NULL;
    assert_ok(mr_resource_from_spec(specs[i], 0, &mr));
    pthread_t t;
    void *result = NULL;
    pthread_create(&t, NULL, allocate_on_per_thread_stream, mr);
    pthread_join(t, &result);
    if ((mr_status)(intptr_t)result != MR_OK) {
      print_error("%s on a thread without a context: %s\n", specs[i],
                  mr_status_name((mr_status)(intptr_t)result));
      fail();
    }
    mr_resource_release(mr);
  }
}

/* mr_record_stream through adaptors over keeping resources (held_all ran
 * it on each keeping resource). The fake's pools and synchronous memory
 * hand addresses out again as malloc does, ignoring streams, so the
 * driver's own pools are checked on the GPU only (test_held_gpu.c). */
static void test_recorded_stream_everywhere(void **state) {
  static const char *const specs[] = {"stats(cache(device))", "limit(cache(device), bytes=1GiB)",
                                      "track(arena(device, chunk=1MiB))"};
  for (size_t i = 0; i < MRI_ARRAY_SIZE(specs); i++) {
    mr_resource *mr = NULL;
    assert_ok(mr_resource_from_spec(specs[i], 0, &mr));
    held_recorded_stream(mr, 4096);
    held_recorded_stream(mr, (size_t)1 << 20);
    assert_ok(mr_resource_trim(mr));
    mr_resource_release(mr);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_fake_reuses_handles, fake_test_setup),
      cmocka_unit_test_setup(test_every_resource, setup),
      cmocka_unit_test_setup(test_recorded_stream_everywhere, setup),
      cmocka_unit_test_setup(test_per_thread_stream_without_context, fake_test_setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

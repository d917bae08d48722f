/*
 * test_sizes_fake.c: the size contract (assert_size_contract,
 * adaptor_test.h) over the fake driver: every driver resource, and every
 * adaptor that keeps memory over them, on a created stream. Sizes whose
 * rounding would pass SIZE_MAX are refused before anything changes (the
 * driver resources refuse what the driver's 2 MiB granularity would wrap
 * without asking it), the resource goes on handing out honest blocks that
 * do not overlap, and when it is destroyed the fake holds nothing.
 */
#include <stdio.h>

#include "adaptor_test.h"
#include "fake_test.h"

static const char *const specs[] = {
    "device",
    "device_default",
    "pinned",
    "managed",
    "pool(kind=device)",
    "pool(kind=pinned)",
    "pool(kind=managed)",
    "expandable",
    "expandable(page=4MiB, reserve=1GiB)",
    "sync_device",
    "sync_pinned",
    "sync_managed",
    "cache(device)",
    "cache(pinned)",
    "cache(managed)",
    "cache(pool(kind=device))",
    "cache(expandable)",
    "expandable(large_page=4MiB)",
    "cache(sync_device)",
    "cache(host)",
    "retry(cache(device))",
    "arena(device, chunk=1MiB)",
    "arena(pinned, chunk=1MiB)",
    "arena(sync_device, chunk=1MiB)",
    "fixed(device, block=64KiB, count=4)",
    "fixed(pinned, block=64KiB, count=4)",
    "bin(device, min=256B, max=64KiB, count=4)",
    "bin(sync_managed, min=256B, max=64KiB, count=4)",
    "align(device, alignment=4KiB)",
    "limit(device, bytes=1GiB)",
    "stats(device)",
    "track(device)",
    "retry(device)",
    "stats(track(cache(device)))",
};

static void test_contract(void **state) {
  const char *spec = *state;
  mr_resource *mr = NULL;
  if (mr_resource_from_spec(spec, 0, &mr) != MR_OK) {
    print_error("%s: %s\n", spec, mr_last_error());
    fail();
  }
  CUstream stream = fake_new_stream();
  assert_size_contract(mr, (mr_stream)stream);
  mr_resource_release(mr);
  assert_int_equal(fake_cu()->cuStreamDestroy(stream), CUDA_SUCCESS);
}

/* The driver resources' refusal names the resource and the size, and the
 * driver is not asked. */
static void test_driver_refuses_without_asking(void **state) {
  mr_resource *mr = NULL;
  assert_ok(mr_resource_from_spec("pool(kind=device)", 0, &mr));
  long calls = fake_cuda_calls("cuMemAllocFromPoolAsync");
  void *p = (void *)1;
  assert_status(mr_allocate(mr, SIZE_MAX - 511, 0, NULL, &p), MR_ERR_OUT_OF_MEMORY);
  assert_null(p);
  assert_error_contains("device pool (device 0)");
  assert_error_contains("18446744073709551104");
  assert_int_equal(fake_cuda_calls("cuMemAllocFromPoolAsync"), calls);
  mr_resource_release(mr);
  assert_ok(mr_resource_from_spec("sync_pinned", 0, &mr));
  calls = fake_cuda_calls("cuMemHostAlloc");
  assert_status(mr_allocate_sync(mr, SIZE_MAX, 0, &p), MR_ERR_OUT_OF_MEMORY);
  assert_error_contains("sync_pinned (device 0)");
  assert_int_equal(fake_cuda_calls("cuMemHostAlloc"), calls);
  mr_resource_release(mr);
}

int main(void) {
  struct CMUnitTest tests[MRI_ARRAY_SIZE(specs) + 1];
  size_t n = 0;
  for (size_t i = 0; i < MRI_ARRAY_SIZE(specs); i++)
    tests[n++] = (struct CMUnitTest){.name = specs[i],
                                     .test_func = test_contract,
                                     .setup_func = fake_test_setup,
                                     .teardown_func = fake_teardown,
                                     .initial_state = (void *)specs[i]};
  tests[n++] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(
      test_driver_refuses_without_asking, fake_test_setup, fake_teardown);
  return _cmocka_run_group_tests("sizes_fake", tests, n, NULL, NULL);
}

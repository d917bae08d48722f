/*
 * test_device_map_fake.c: the device map over the fake driver's four
 * devices: a slot per device, each starting with that device's current
 * pool, and the process-wide map following the thread's current device.
 */
#include "driver/cuda_driver.h"
#include "fakecuda.h"
#include "test_util.h"

static void test_one_slot_per_device(void **state) {
  mr_device_map *map;
  assert_ok(mr_device_map_create(&map));
  assert_int_equal(mr_device_map_size(map), fake_cuda_device_count());
  for (int d = 0; d < mr_device_map_size(map); d++) {
    mr_resource *mr = mr_device_map_get(map, d);
    assert_non_null(mr);
    assert_string_equal(mr_resource_describe(mr), "device");
    mr_resource_props props = {.size = sizeof props};
    assert_ok(mr_resource_get_props(mr, &props));
    assert_int_equal(props.device, d);
    void *p = NULL;
    assert_ok(mr_allocate(mr, 4096, 0, NULL, &p));
    assert_int_equal(fake_cuda_allocation_device(p), d);
    assert_ok(mr_deallocate(mr, p, 4096, 0, NULL));
  }
  assert_null(mr_device_map_get(map, fake_cuda_device_count()));
  assert_error_contains("out of range");
  mr_device_map_destroy(map);
}

static void test_current_device_follows_the_context(void **state) {
  const mri_cuda_api *cu = mri_cuda();
  mr_resource *on2 = mr_get_per_device_resource(2);
  assert_non_null(on2);
  CUcontext ctx2 = NULL;
  assert_ok(mri_primary_context(2, &ctx2));
  CUcontext before = fake_cuda_current_context();
  assert_int_equal(cu->cuCtxSetCurrent(ctx2), CUDA_SUCCESS);
  assert_ptr_equal(mr_get_current_device_resource(), on2);
  mr_resource *host, *previous = NULL;
  assert_ok(mr_host_resource_create(&host));
  assert_ok(mr_set_current_device_resource(host, &previous)); /* device 2's slot */
  assert_ptr_equal(previous, on2);
  assert_ptr_equal(mr_get_per_device_resource(2), host);
  assert_ptr_not_equal(mr_get_per_device_resource(1), host);
  assert_ok(mr_reset_current_device_resource(NULL));
  assert_string_equal(mr_resource_describe(mr_get_per_device_resource(2)), "device");
  assert_int_equal(cu->cuCtxSetCurrent(before), CUDA_SUCCESS);
  mr_resource_release(previous);
  mr_resource_release(host);
}

/* A device without pool support starts with the synchronous fallback. */
static void test_initial_resource_without_pools(void **state) {
  assert_int_equal(fake_cuda_set_attribute(3, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 0),
                   CUDA_SUCCESS);
  mr_device_map *map;
  assert_ok(mr_device_map_create(&map));
  assert_non_null(strstr(mr_resource_describe(mr_device_map_get(map, 3)), "sync_device"));
  mr_device_map_destroy(map);
  assert_int_equal(fake_cuda_set_attribute(3, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 1),
                   CUDA_SUCCESS);
}

int main(void) {
  if (mr_driver_load() != MR_OK || mri_ensure_context(0) != MR_OK) {
    fprintf(stderr, "the fake driver did not load: %s\n", mr_last_error());
    return 1;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_slot_per_device),
      cmocka_unit_test(test_current_device_follows_the_context),
      cmocka_unit_test(test_initial_resource_without_pools),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

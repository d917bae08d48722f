/*
 * How loading the driver ends when it cannot be used, one outcome per
 * process (the library loads the driver once; meson runs this executable
 * once per mode). The fake is configured before the library first loads it.
 *   no-device            cuInit finds no device: MR_ERR_NO_DEVICE, count 0
 *   init-failure         cuInit fails: MR_ERR_NO_DRIVER naming the error
 *   old-driver           a CUDA 12.8 driver: MR_ERR_NO_DRIVER naming 13.0
 *   missing-entry-point  cuGetProcAddress lacks one: MR_ERR_NO_DRIVER
 * In every mode the host resource still works and every failure repeats
 * the same message.
 */
#include <stdio.h>
#include <string.h>

#include "driver/cuda_api.h"
#include "driver_cases.h"
#include "fakecuda.h"
#include "test_util.h"

static const char *mode;
static mr_status expected_status;
static const char *expected_message;

static int configure(void **state) {
  if (strcmp(mode, "no-device") == 0) {
    if (fake_cuda_set_device_count(0) != CUDA_SUCCESS) return -1;
    expected_status = MR_ERR_NO_DEVICE;
    expected_message = "the CUDA driver found no device (cuInit: CUDA_ERROR_NO_DEVICE)";
  } else if (strcmp(mode, "init-failure") == 0) {
    fake_cuda_fail("cuInit", 1, 1, CUDA_ERROR_SYSTEM_DRIVER_MISMATCH);
    expected_status = MR_ERR_NO_DRIVER;
    expected_message =
        "the CUDA driver failed to start (cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)";
  } else if (strcmp(mode, "old-driver") == 0) {
    fake_cuda_set_driver_version(12080);
    expected_status = MR_ERR_NO_DRIVER;
    expected_message = "the CUDA driver is version 12.8; mrctx needs 13.0 or newer";
  } else if (strcmp(mode, "missing-entry-point") == 0) {
    /* The 5th entry point asked for is cuDeviceGetCount. */
    fake_cuda_fail("cuGetProcAddress", 5, 1, CUDA_ERROR_NOT_FOUND);
    expected_status = MR_ERR_NO_DRIVER;
    expected_message = "lacks cuDeviceGetCount (ABI of CUDA 2000";
  } else {
    print_error("unknown mode %s\n", mode);
    return -1;
  }
  return 0;
}

static void test_load_reports_the_outcome(void **state) {
  for (int i = 0; i < 3; i++) {
    mr_clear_error();
    assert_status(mr_driver_load(), expected_status);
    assert_error_contains(expected_message);
  }
  /* The library asked cuInit once, however often it was asked to load. */
  long init_calls = fake_cuda_calls("cuInit");
  assert_true(init_calls <= 1);
  assert_null(mri_cuda());
}

static void test_queries(void **state) {
  int count = -1, version = -1;
  if (expected_status == MR_ERR_NO_DEVICE) {
    assert_ok(mr_device_count(&count)); /* a driver and no device: 0 */
  } else {
    assert_status(mr_device_count(&count), expected_status);
    assert_error_contains(expected_message);
  }
  assert_int_equal(count, 0);
  assert_status(mr_driver_version(&version), expected_status);
  assert_int_equal(version, 0);
  assert_int_equal(mr_current_device(), 0);
  mr_device_info info = {.size = sizeof info};
  assert_status(mr_device_get_info(0, &info), expected_status);
  mr_pool_info pool_info = {.size = sizeof pool_info};
  assert_status(mr_driver_pool_get_info(MR_DRIVER_POOL_PINNED_DEFAULT, 0, &pool_info),
                expected_status);
  assert_error_contains(expected_message);
}

static void test_constructors(void **state) {
  for (size_t i = 0; i < driver_case_count; i++) {
    mr_resource *mr = (mr_resource *)&mr;
    assert_status(driver_cases[i].create(0, &mr), expected_status);
    assert_null(mr);
    assert_error_contains(driver_cases[i].spec);
    assert_error_contains(expected_message);
  }
}

static void test_host_still_works(void **state) {
  mr_resource *host = NULL;
  assert_ok(mr_host_resource_create(&host));
  void *p = NULL;
  assert_ok(mr_allocate(host, 1000, 4096, NULL, &p));
  memset(p, 1, 1000);
  assert_ok(mr_deallocate(host, p, 1000, 4096, NULL));
  mr_resource_release(host);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s no-device|init-failure|old-driver|missing-entry-point\n", argv[0]);
    return 2;
  }
  mode = argv[1];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_load_reports_the_outcome),
      cmocka_unit_test(test_queries),
      cmocka_unit_test(test_constructors),
      cmocka_unit_test(test_host_still_works),
  };
  return cmocka_run_group_tests_name(mode, tests, configure, NULL);
}

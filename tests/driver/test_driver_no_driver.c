/*
 * A process whose driver library cannot be opened (MRCTX_CUDA_DRIVER names
 * a file that does not exist): every driver entry says MR_ERR_NO_DRIVER and
 * names the library, mr_device_count gives 0, and the host resource and the
 * core keep working.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_cases.h"
#include "test_util.h"

/* What every message must contain: the library that could not be opened
 * (with the toolkit's headers), or why the build has no driver layer. */
static const char *expected_reason(void) {
#if MRCTX_HAVE_CUDA
  return getenv("MRCTX_CUDA_DRIVER");
#else
  return "built without CUDA support";
#endif
}

static void test_load(void **state) {
  assert_non_null(expected_reason());
  for (int i = 0; i < 2; i++) {
    mr_clear_error();
    assert_status(mr_driver_load(), MR_ERR_NO_DRIVER);
    assert_error_contains(expected_reason());
  }
#if MRCTX_HAVE_CUDA
  assert_error_contains("could not be loaded");
  assert_error_contains("MRCTX_CUDA_DRIVER names this library");
#endif
}

static void test_queries(void **state) {
  int count = -1, version = -1;
  assert_status(mr_device_count(&count), MR_ERR_NO_DRIVER);
  assert_int_equal(count, 0);
  assert_error_contains(expected_reason());
  assert_status(mr_driver_version(&version), MR_ERR_NO_DRIVER);
  assert_int_equal(version, 0);
  assert_error_contains(expected_reason());
  assert_int_equal(mr_current_device(), 0);
  mr_device_info info = {.size = sizeof info};
  assert_status(mr_device_get_info(0, &info), MR_ERR_NO_DRIVER);
  mr_pool_info pool_info = {.size = sizeof pool_info};
  assert_status(mr_driver_pool_get_info(MR_DRIVER_POOL_DEVICE_CURRENT, 0, &pool_info),
                MR_ERR_NO_DRIVER);
  assert_error_contains(expected_reason());
}

static void test_every_constructor(void **state) {
  for (size_t i = 0; i < driver_case_count; i++) {
    /* The spec's name; a build without the driver layer does not know the
     * pool's arguments. */
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(driver_cases[i].spec, "("),
             driver_cases[i].spec);
    for (int device = -1; device < 2; device++) {
      mr_resource *mr = (mr_resource *)&mr;
      assert_status(driver_cases[i].create(device, &mr), MR_ERR_NO_DRIVER);
      assert_null(mr);
      assert_error_contains(name);
      assert_error_contains(expected_reason());
    }
  }
}

static void test_host_and_core_work(void **state) {
  mr_resource *host = NULL;
  assert_ok(mr_host_resource_create(&host));
  void *p = NULL;
  assert_ok(mr_allocate(host, 12345, 4096, NULL, &p));
  assert_int_equal((uintptr_t)p % 4096, 0);
  memset(p, 7, 12345);
  assert_ok(mr_deallocate(host, p, 12345, 4096, NULL));
  assert_ok(mr_allocate_sync(host, 64, 0, &p));
  assert_ok(mr_deallocate_sync(host, p, 64, 0));
  assert_ok(mr_resource_synchronize(host, NULL));
  /* Not a pool resource; a build without the driver layer says so first. */
  mr_pool_info info = {.size = sizeof info};
#if MRCTX_HAVE_CUDA
  assert_status(mr_pool_resource_get_info(host, &info), MR_ERR_INVALID_ARGUMENT);
#else
  assert_status(mr_pool_resource_get_info(host, &info), MR_ERR_NO_DRIVER);
#endif
  mr_resource_release(host);
  assert_string_equal(mr_status_name(MR_ERR_NO_DRIVER), "MR_ERR_NO_DRIVER");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_load),
      cmocka_unit_test(test_queries),
      cmocka_unit_test(test_every_constructor),
      cmocka_unit_test(test_host_and_core_work),
  };
  return cmocka_run_group_tests_name("no driver", tests, NULL, NULL);
}

/*
 * test_multi_device_gpu.c: the multi-device cases (multi_device_cases.c) on
 * real GPUs, every visible device. Skips (exit 77) without a driver or with
 * fewer than two devices; a pair of devices without peer access skips the
 * peer-pool copy for that pair, saying so.
 */
#include <stdio.h>

#include "gpu_util.h"
#include "multi_device_cases.h"

int main(void) {
  if (mr_driver_load() != MR_OK) {
    fprintf(stderr, "skipping: %s\n", mr_last_error());
    return GPU_TEST_SKIP;
  }
  int count = 0;
  if (mr_device_count(&count) != MR_OK || count < 2) {
    fprintf(stderr, "skipping: %d CUDA device%s visible; the multi-device tests need at least 2\n",
            count, count == 1 ? "" : "s");
    return GPU_TEST_SKIP;
  }
  gpu_bind_thread();
  fprintf(stderr, "multi-device tests on %d devices\n", count);
  const struct CMUnitTest tests[] = {MULTI_DEVICE_TESTS};
  return cmocka_run_group_tests_name("multi-device on the GPUs", tests, NULL, NULL);
}

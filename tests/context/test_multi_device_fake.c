/*
 * test_multi_device_fake.c: the multi-device cases (multi_device_cases.c)
 * over the fake driver's devices (4 by default). The fake moves bytes with
 * memcpy and keeps access grants as bookkeeping, so here the cases prove
 * which device and pool every call reaches, not that hardware honours it;
 * gpu.context.multi_device runs the same cases on real GPUs.
 */
#include <stdio.h>

#include "driver/cuda_api.h"
#include "fakecuda.h"
#include "multi_device_cases.h"

/* The fake must be left as the cases found it: nothing allocated, no pool,
 * stream or event of theirs still there. */
static int check_clean(void **state) {
  (void)state;
  if (fake_cuda_live_allocations() != 0 || fake_cuda_live_pools() != 0 ||
      fake_cuda_live_streams() != 0 || fake_cuda_live_events() != 0) {
    print_error("the fake holds %ld allocations, %ld pools, %ld streams, %ld events after the "
                "case\n",
                fake_cuda_live_allocations(), fake_cuda_live_pools(), fake_cuda_live_streams(),
                fake_cuda_live_events());
    return -1;
  }
  return 0;
}

int main(void) {
  if (mr_driver_load() != MR_OK || mri_ensure_context(0) != MR_OK) {
    fprintf(stderr, "the fake driver did not load: %s\n", mr_last_error());
    return 1;
  }
  if (fake_cuda_device_count() < 2) {
    fprintf(stderr, "the fake driver shows %d devices; these tests need at least 2\n",
            fake_cuda_device_count());
    return 1;
  }
  const struct CMUnitTest tests[] = {MULTI_DEVICE_TESTS};
  return cmocka_run_group_tests_name("multi-device (fake driver)", tests, NULL, check_clean);
}

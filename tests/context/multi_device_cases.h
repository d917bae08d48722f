/*
 * multi_device_cases.h: the multi-device tests, one source for two suites:
 * fake.context.multi_device (the fake driver's devices) and
 * gpu.context.multi_device (real GPUs; it skips on fewer than two). Every
 * case runs on every visible device, whatever their number. Driver calls
 * go through the library's loaded table (mri_cuda()), so both suites run
 * the same code; what the fake cannot stand for is said per case.
 */
#ifndef MRCTX_TESTS_MULTI_DEVICE_CASES_H
#define MRCTX_TESTS_MULTI_DEVICE_CASES_H

#include "test_util.h"

/* The driver must be loaded with at least two devices before the group
 * runs; each case starts and ends with device 0's context current. */
void md_test_tags_resolve_on_every_device(void **state);
void md_test_allocations_land_on_their_device(void **state);
void md_test_get_mr_follows_the_current_device(void **state);
void md_test_pinned_reachable_from_every_device(void **state);
void md_test_peer_pool(void **state);
void md_test_device_map_one_thread_per_device(void **state);

#define MULTI_DEVICE_TESTS                                          \
  cmocka_unit_test(md_test_tags_resolve_on_every_device),           \
      cmocka_unit_test(md_test_allocations_land_on_their_device),   \
      cmocka_unit_test(md_test_get_mr_follows_the_current_device),  \
      cmocka_unit_test(md_test_pinned_reachable_from_every_device), \
      cmocka_unit_test(md_test_peer_pool),                          \
      cmocka_unit_test(md_test_device_map_one_thread_per_device)

#endif

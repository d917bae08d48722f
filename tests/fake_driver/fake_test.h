/*
 * fake_test.h: what tests over the fake driver share: a fresh fake per test
 * with device 0's context current, and streams to order work on.
 */
#ifndef MRCTX_FAKE_TEST_H
#define MRCTX_FAKE_TEST_H

#include "driver/cuda_api.h"
#include "fakecuda.h"
#include "test_util.h"

/* The driver table, set by fake_test_setup. */
static const mri_cuda_api *cu;

/* cmocka setup: reset the fake, load it, make device 0's context current. */
static inline int fake_test_setup(void **state) {
  (void)state;
  fake_cuda_reset();
  if (mr_driver_load() != MR_OK) return -1;
  cu = mri_cuda();
  return mri_ensure_context(0) == MR_OK ? 0 : -1;
}

/* A non-blocking stream on the current context. */
static inline CUstream new_stream(void) {
  CUstream s = NULL;
  assert_int_equal(cu->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  return s;
}

#endif

/*
 * gpu_util.h: helpers for the gpu suite (real GPU). Each gpu test's main
 * starts with GPU_TEST_REQUIRE(): exit 77 (skip) when there is no driver or
 * no device. Extra driver calls go through the library's own loaded table
 * (mri_cuda()), so the tests link nothing from CUDA either.
 */
#ifndef MRCTX_GPU_UTIL_H
#define MRCTX_GPU_UTIL_H

#include "driver/cuda_api.h"
#include "test_util.h"

#define GPU_TEST_SKIP 77

/* 0 if a GPU is there (and device 0's primary context is now current on
 * this thread), GPU_TEST_SKIP otherwise (with a line on stderr saying why). */
int gpu_test_init(void);

#define GPU_TEST_REQUIRE()     \
  do {                         \
    int rc_ = gpu_test_init(); \
    if (rc_ != 0) return rc_;  \
  } while (0)

/* Make device 0's primary context current on the calling thread (threads
 * started by a test need it before raw driver calls). */
void gpu_bind_thread(void);

/* Abort the test with the driver's error name if `call` fails. */
#define gpu_check(call)                                                                          \
  do {                                                                                           \
    CUresult r_ = (call);                                                                        \
    if (r_ != CUDA_SUCCESS) {                                                                    \
      print_error("%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, mri_cuda_error_name(r_)); \
      fail();                                                                                    \
    }                                                                                            \
  } while (0)

/* A non-blocking stream; destroy with gpu_stream_destroy. */
mr_stream gpu_stream_create(void);
void gpu_stream_destroy(mr_stream stream);

/* Enqueue a kernel that busy-waits `ns` nanoseconds on `stream`. */
void gpu_spin(mr_stream stream, unsigned long long ns);
/* Enqueue a kernel that sets n bytes at device-accessible p to v. */
void gpu_fill(void *p, size_t n, unsigned char v, mr_stream stream);
/* Copy n bytes from device-accessible src to host dst on `stream` and wait;
 * then return true if every byte is v. */
bool gpu_all_equal(const void *src, size_t n, unsigned char v, mr_stream stream);

#endif

#include <stdio.h>
#include <stdlib.h>

#include "gpu_kernels_ptx.h"
#include "gpu_util.h"

static CUmodule module;
static CUfunction spin_fn, fill_fn;

int gpu_test_init(void) {
  mr_status st = mr_driver_load();
  if (st != MR_OK) {
    fprintf(stderr, "skipping: %s\n", mr_last_error());
    return GPU_TEST_SKIP;
  }
  int count = 0;
  if (mr_device_count(&count) != MR_OK || count == 0) {
    fprintf(stderr, "skipping: no CUDA device\n");
    return GPU_TEST_SKIP;
  }
  gpu_bind_thread();
  const mri_cuda_api *cu = mri_cuda();
  CUresult r = cu->cuModuleLoadData(&module, gpu_kernels_ptx);
  if (r == CUDA_SUCCESS) r = cu->cuModuleGetFunction(&spin_fn, module, "mrctx_spin");
  if (r == CUDA_SUCCESS) r = cu->cuModuleGetFunction(&fill_fn, module, "mrctx_fill");
  if (r != CUDA_SUCCESS) {
    fprintf(stderr, "gpu tests: cannot load the test kernels: %s\n", mri_cuda_error_name(r));
    return 1;
  }
  return 0;
}

void gpu_bind_thread(void) {
  if (mri_ensure_context(0) != MR_OK) {
    fprintf(stderr, "gpu tests: no context: %s\n", mr_last_error());
    abort();
  }
}

mr_stream gpu_stream_create(void) {
  CUstream s = NULL;
  gpu_check(mri_cuda()->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  return (mr_stream)s;
}

void gpu_stream_destroy(mr_stream stream) {
  gpu_check(mri_cuda()->cuStreamDestroy((CUstream)stream));
}

void gpu_spin(mr_stream stream, unsigned long long ns) {
  void *args[] = {&ns};
  gpu_check(mri_cuda()->cuLaunchKernel(spin_fn, 1, 1, 1, 1, 1, 1, 0, (CUstream)stream, args, NULL));
}

void gpu_fill(void *p, size_t n, unsigned char v, mr_stream stream) {
  unsigned long long count = n;
  CUdeviceptr dp = (CUdeviceptr)(uintptr_t)p;
  void *args[] = {&dp, &count, &v};
  unsigned blocks = (unsigned)((n + 255) / 256);
  if (blocks > 1024) blocks = 1024;
  if (blocks == 0) blocks = 1;
  gpu_check(mri_cuda()->cuLaunchKernel(fill_fn, blocks, 1, 1, 256, 1, 1, 0, (CUstream)stream, args,
                                       NULL));
}

bool gpu_all_equal(const void *src, size_t n, unsigned char v, mr_stream stream) {
  unsigned char *host = malloc(n);
  if (host == NULL) return false;
  const mri_cuda_api *cu = mri_cuda();
  gpu_check(cu->cuMemcpyAsync((CUdeviceptr)(uintptr_t)host, (CUdeviceptr)(uintptr_t)src, n,
                              (CUstream)stream));
  gpu_check(cu->cuStreamSynchronize((CUstream)stream));
  bool ok = true;
  for (size_t i = 0; i < n && ok; i++) ok = host[i] == v;
  free(host);
  return ok;
}

/*
 * bench_cuda.c: the driver entry points the benchmark's baselines need,
 * opened the way mrctx opens them (driver_open.h).
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "driver_open.h"

bool bench_cuda_open(bench_cuda *cu, char *why, size_t cap) {
  memset(cu, 0, sizeof *cu);
  mrctx_get_proc_fn get_proc;
  if (!mrctx_driver_open(&get_proc, why, cap)) return false;
#define BENCH_LOAD(name, version) MRCTX_DRIVER_LOAD(get_proc, cu, name, #name, version, why, cap)
  BENCH_LOAD(cuInit, 2000);
  BENCH_LOAD(cuDriverGetVersion, 2020);
  BENCH_LOAD(cuDeviceGet, 2000);
  BENCH_LOAD(cuDeviceGetName, 2000);
  BENCH_LOAD(cuDevicePrimaryCtxRetain, 7000);
  BENCH_LOAD(cuCtxSetCurrent, 4000);
  BENCH_LOAD(cuCtxGetDevice, 13000);
  BENCH_LOAD(cuCtxGetCurrent, 4000);
  BENCH_LOAD(cuCtxSynchronize, 13000);
  BENCH_LOAD(cuStreamCreate, 2000);
  BENCH_LOAD(cuStreamDestroy, 4000);
  BENCH_LOAD(cuStreamSynchronize, 2000);
  BENCH_LOAD(cuStreamGetId, 12000);
  BENCH_LOAD(cuStreamIsCapturing, 10000);
  BENCH_LOAD(cuMemGetMemPool, 13000);
  BENCH_LOAD(cuMemGetDefaultMemPool, 13000);
  BENCH_LOAD(cuMemPoolSetAttribute, 11020);
  BENCH_LOAD(cuMemPoolGetAttribute, 11020);
  BENCH_LOAD(cuMemPoolTrimTo, 11020);
  BENCH_LOAD(cuMemAllocFromPoolAsync, 11020);
  BENCH_LOAD(cuMemFreeAsync, 11020);
  BENCH_LOAD(cuMemHostAlloc, 2020);
  BENCH_LOAD(cuMemFreeHost, 2000);
#undef BENCH_LOAD

  CUdevice dev;
  CUresult r = cu->cuInit(0);
  if (r == CUDA_SUCCESS) r = cu->cuDriverGetVersion(&cu->version);
  if (r == CUDA_SUCCESS) r = cu->cuDeviceGet(&dev, 0);
  if (r == CUDA_SUCCESS) r = cu->cuDeviceGetName(cu->device_name, sizeof cu->device_name, dev);
  if (r == CUDA_SUCCESS) r = cu->cuDevicePrimaryCtxRetain(&cu->context, dev);
  if (r == CUDA_SUCCESS) r = cu->cuCtxSetCurrent(cu->context);
  CUmemLocation device_location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0};
  CUmemLocation host_location = {.type = CU_MEM_LOCATION_TYPE_HOST, .id = 0};
  if (r == CUDA_SUCCESS)
    r = cu->cuMemGetMemPool(&cu->device_pool, &device_location, CU_MEM_ALLOCATION_TYPE_PINNED);
  if (r == CUDA_SUCCESS)
    r = cu->cuMemGetDefaultMemPool(&cu->device_default_pool, &device_location,
                                   CU_MEM_ALLOCATION_TYPE_PINNED);
  if (r == CUDA_SUCCESS)
    r = cu->cuMemGetDefaultMemPool(&cu->pinned_pool, &host_location, CU_MEM_ALLOCATION_TYPE_PINNED);
  /* The baselines get the same treatment mrctx gives a default pool: keep
   * freed memory, or every synchronization would hand it back to the OS. */
  cuuint64_t keep_all = UINT64_MAX;
  if (r == CUDA_SUCCESS)
    r = cu->cuMemPoolSetAttribute(cu->device_pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep_all);
  if (r == CUDA_SUCCESS)
    r = cu->cuMemPoolSetAttribute(cu->pinned_pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep_all);
  if (r != CUDA_SUCCESS) {
    snprintf(why, cap, "cannot set up device 0 (CUDA error %d)", (int)r);
    return false;
  }
  return true;
}

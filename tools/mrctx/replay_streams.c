/*
 * replay_streams.c: streams for `mrctx replay`, from the driver opened the
 * way mrctx opens it (driver_open.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cudaTypedefs.h>

#include "driver_open.h"
#include "replay_streams.h"

/* The driver's entry points, loaded by the first replay_streams_create. */
static struct {
  PFN_cuInit_v2000 cuInit;
  PFN_cuDeviceGet_v2000 cuDeviceGet;
  PFN_cuDevicePrimaryCtxRetain_v7000 cuDevicePrimaryCtxRetain;
  PFN_cuCtxSetCurrent_v4000 cuCtxSetCurrent;
  PFN_cuStreamCreate_v2000 cuStreamCreate;
  PFN_cuStreamDestroy_v4000 cuStreamDestroy;
} cu;

static bool load(char *why, size_t cap) {
  if (cu.cuStreamDestroy != NULL) return true;
  mrctx_get_proc_fn get_proc;
  if (!mrctx_driver_open(&get_proc, why, cap)) return false;
#define REPLAY_LOAD(name, version) \
  MRCTX_DRIVER_LOAD(get_proc, &cu, name, #name, version, why, cap)
  REPLAY_LOAD(cuInit, 2000);
  REPLAY_LOAD(cuDeviceGet, 2000);
  REPLAY_LOAD(cuDevicePrimaryCtxRetain, 7000);
  REPLAY_LOAD(cuCtxSetCurrent, 4000);
  REPLAY_LOAD(cuStreamCreate, 2000);
  REPLAY_LOAD(cuStreamDestroy, 4000);
#undef REPLAY_LOAD
  return true;
}

/* Values the driver itself gives meaning to, used as they are. */
static bool is_builtin(uint64_t value) {
  return value == 0 || value == (uintptr_t)CU_STREAM_LEGACY ||
         value == (uintptr_t)CU_STREAM_PER_THREAD;
}

bool replay_streams_create(int device, const uint64_t *values, size_t count, mr_stream *out,
                           char *why, size_t cap) {
  if (!load(why, cap)) return false;
  CUdevice dev;
  CUcontext ctx;
  const char *step = "cuInit";
  CUresult r = cu.cuInit(0);
  if (r == CUDA_SUCCESS) {
    step = "cuDeviceGet";
    r = cu.cuDeviceGet(&dev, device);
  }
  if (r == CUDA_SUCCESS) {
    step = "cuDevicePrimaryCtxRetain";
    r = cu.cuDevicePrimaryCtxRetain(&ctx, dev);
  }
  if (r == CUDA_SUCCESS) {
    step = "cuCtxSetCurrent";
    r = cu.cuCtxSetCurrent(ctx);
  }
  for (size_t i = 0; i < count && r == CUDA_SUCCESS; i++) {
    out[i] = (mr_stream)(uintptr_t)values[i];
    if (is_builtin(values[i])) continue;
    CUstream stream = NULL;
    step = "cuStreamCreate";
    r = cu.cuStreamCreate(&stream, CU_STREAM_DEFAULT);
    if (r != CUDA_SUCCESS) {
      replay_streams_destroy(values, i, out);
      break;
    }
    out[i] = stream;
  }
  if (r != CUDA_SUCCESS) {
    snprintf(why, cap, "device %d: %s failed (CUDA error %d)", device, step, (int)r);
    return false;
  }
  return true;
}

void replay_streams_destroy(const uint64_t *values, size_t count, mr_stream *streams) {
  for (size_t i = 0; i < count; i++)
    if (!is_builtin(values[i])) cu.cuStreamDestroy(streams[i]);
}

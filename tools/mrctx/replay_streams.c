/*
 * replay_streams.c: streams for `mrctx replay`, from the driver opened the
 * way mrctx opens it (driver_open.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cudaTypedefs.h>

#include "driver_open.h"
#include "replay_streams.h"

/* The driver's entry points, loaded by the first call (under load_lock:
 * replay threads may be the first). */
static struct {
  PFN_cuInit_v2000 cuInit;
  PFN_cuDeviceGet_v2000 cuDeviceGet;
  PFN_cuDevicePrimaryCtxRetain_v7000 cuDevicePrimaryCtxRetain;
  PFN_cuCtxSetCurrent_v4000 cuCtxSetCurrent;
  PFN_cuStreamCreate_v2000 cuStreamCreate;
  PFN_cuStreamDestroy_v4000 cuStreamDestroy;
} cu;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static bool loaded;

static bool load_entries(char *why, size_t cap) {
  mrctx_get_proc_fn get_proc;
  if (!mrctx_driver_open(&get_proc, why, cap)) return false;
#define REPLAY_LOAD(name, version) MRCTX_DRIVER_LOAD(get_proc, &cu, name, #name, version, why, cap)
  REPLAY_LOAD(cuInit, 2000);
  REPLAY_LOAD(cuDeviceGet, 2000);
  REPLAY_LOAD(cuDevicePrimaryCtxRetain, 7000);
  REPLAY_LOAD(cuCtxSetCurrent, 4000);
  REPLAY_LOAD(cuStreamCreate, 2000);
  REPLAY_LOAD(cuStreamDestroy, 4000);
#undef REPLAY_LOAD
  return true;
}

static bool load(char *why, size_t cap) {
  pthread_mutex_lock(&load_lock);
  if (!loaded) loaded = load_entries(why, cap);
  bool ok = loaded;
  pthread_mutex_unlock(&load_lock);
  return ok;
}

/* Values the driver itself gives meaning to, used as they are. */
static bool is_builtin(uint64_t value) {
  return value == 0 || value == (uintptr_t)CU_STREAM_LEGACY ||
         value == (uintptr_t)CU_STREAM_PER_THREAD;
}

/* The primary context of each device retained here: retained once, made
 * current on as many threads as ask. */
static CUcontext retained[1024];
static pthread_mutex_t retained_lock = PTHREAD_MUTEX_INITIALIZER;

static CUresult make_current(int device, const char **step) {
  CUdevice dev;
  *step = "cuInit";
  CUresult r = cu.cuInit(0);
  if (r == CUDA_SUCCESS && (device < 0 || device >= 1024)) r = CUDA_ERROR_INVALID_DEVICE;
  if (r == CUDA_SUCCESS) {
    *step = "cuDeviceGet";
    r = cu.cuDeviceGet(&dev, device);
  }
  pthread_mutex_lock(&retained_lock);
  if (r == CUDA_SUCCESS && retained[device] == NULL) {
    *step = "cuDevicePrimaryCtxRetain";
    r = cu.cuDevicePrimaryCtxRetain(&retained[device], dev);
    if (r != CUDA_SUCCESS) retained[device] = NULL;
  }
  CUcontext ctx = r == CUDA_SUCCESS ? retained[device] : NULL;
  pthread_mutex_unlock(&retained_lock);
  if (r == CUDA_SUCCESS) {
    *step = "cuCtxSetCurrent";
    r = cu.cuCtxSetCurrent(ctx);
  }
  return r;
}

bool replay_streams_make_current(int device, char *why, size_t cap) {
  if (!load(why, cap)) return false;
  const char *step;
  CUresult r = make_current(device, &step);
  if (r != CUDA_SUCCESS) {
    snprintf(why, cap, "device %d: %s failed (CUDA error %d)", device, step, (int)r);
    return false;
  }
  return true;
}

bool replay_streams_create(int device, const uint64_t *values, size_t count, mr_stream *out,
                           char *why, size_t cap) {
  if (!load(why, cap)) return false;
  const char *step;
  CUresult r = make_current(device, &step);
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

/*
 * fakecuda.c: a fake CUDA driver over host memory, for the fake test suite.
 * What it models and what it does not is in fakecuda.h; how its files
 * divide the work, in fakecuda_internal.h. Here: initialization, error
 * names, devices, contexts, and cuGetProcAddress, through which the loader
 * finds every entry point.
 */
#include <stdio.h>
#include <string.h>

#include "fakecuda_internal.h"

/* ---- initialization, version, errors -------------------------------------- */

static CUresult do_init(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (device_count == 0) return CUDA_ERROR_NO_DEVICE;
  initialized = true;
  return CUDA_SUCCESS;
}

CUresult fake_cuInit(unsigned int flags) { FAKE_CALL(cuInit, NO_INIT, do_init(flags)); }

static CUresult do_driver_get_version(int *version) {
  if (version == NULL) return CUDA_ERROR_INVALID_VALUE;
  *version = driver_version;
  return CUDA_SUCCESS;
}

CUresult fake_cuDriverGetVersion(int *version) {
  FAKE_CALL(cuDriverGetVersion, NO_INIT, do_driver_get_version(version));
}

#define FAKE_ERRORS(X)                                                                            \
  X(CUDA_SUCCESS, "no error")                                                                     \
  X(CUDA_ERROR_INVALID_VALUE, "invalid argument")                                                 \
  X(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")                                                    \
  X(CUDA_ERROR_NOT_INITIALIZED, "initialization error")                                           \
  X(CUDA_ERROR_DEINITIALIZED, "driver shutting down")                                             \
  X(CUDA_ERROR_STUB_LIBRARY, "CUDA driver is a stub library")                                     \
  X(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, "the call requires a newer driver")                    \
  X(CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA-capable device(s) is/are busy or unavailable")           \
  X(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected")                                   \
  X(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal")                                          \
  X(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid")                                   \
  X(CUDA_ERROR_INVALID_CONTEXT, "invalid device context")                                         \
  X(CUDA_ERROR_ECC_UNCORRECTABLE, "uncorrectable ECC error encountered")                          \
  X(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "peer access is not supported between these two devices") \
  X(CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed")                                       \
  X(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle")                                         \
  X(CUDA_ERROR_ILLEGAL_STATE, "the operation is not permitted in the current state")              \
  X(CUDA_ERROR_NOT_FOUND, "named symbol not found")                                               \
  X(CUDA_ERROR_NOT_READY, "device not ready")                                                     \
  X(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered")                       \
  X(CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure")                                       \
  X(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access has not been enabled")                       \
  X(CUDA_ERROR_NOT_PERMITTED, "operation not permitted")                                          \
  X(CUDA_ERROR_NOT_SUPPORTED, "operation not supported")                                          \
  X(CUDA_ERROR_SYSTEM_NOT_READY, "system not yet initialized")                                    \
  X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,                                                            \
    "system has unsupported display driver / cuda driver combination")                            \
  X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "operation not permitted when stream is capturing")    \
  X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,                                                        \
    "operation failed due to a previous error during capture")                                    \
  X(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,                                                           \
    "operation would make the legacy stream depend on a capturing blocking stream")               \
  X(CUDA_ERROR_CAPTURED_EVENT,                                                                    \
    "operation not permitted on an event last recorded in a capturing stream")                    \
  X(CUDA_ERROR_TIMEOUT, "wait operation timed out")                                               \
  X(CUDA_ERROR_UNKNOWN, "unknown error")

static const struct {
  CUresult code;
  const char *name, *description;
} error_table[] = {
#define FAKE_ERROR_ROW_(code, description) {code, #code, description},
    FAKE_ERRORS(FAKE_ERROR_ROW_)
#undef FAKE_ERROR_ROW_
};

static CUresult describe_error(CUresult error, const char **out, bool name) {
  if (out == NULL) return CUDA_ERROR_INVALID_VALUE;
  *out = NULL;
  for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++) {
    if (error_table[i].code == error) {
      *out = name ? error_table[i].name : error_table[i].description;
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_INVALID_VALUE;
}

/* Error names work before cuInit and after shutdown, as in the driver. */
CUresult fake_cuGetErrorName(CUresult error, const char **name) {
  FAKE_CALL(cuGetErrorName, ANY_TIME, describe_error(error, name, true));
}

CUresult fake_cuGetErrorString(CUresult error, const char **text) {
  FAKE_CALL(cuGetErrorString, ANY_TIME, describe_error(error, text, false));
}

/* ---- devices -------------------------------------------------------------- */

static CUresult do_device_get_count(int *count) {
  if (count == NULL) return CUDA_ERROR_INVALID_VALUE;
  *count = device_count;
  return CUDA_SUCCESS;
}

CUresult fake_cuDeviceGetCount(int *count) {
  FAKE_CALL(cuDeviceGetCount, NEEDS_INIT, do_device_get_count(count));
}

static CUresult do_device_get(CUdevice *device, int ordinal) {
  if (device == NULL) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(ordinal)) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult fake_cuDeviceGet(CUdevice *device, int ordinal) {
  FAKE_CALL(cuDeviceGet, NEEDS_INIT, do_device_get(device, ordinal));
}

static CUresult do_device_get_name(char *name, int len, CUdevice dev) {
  if (name == NULL || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  snprintf(name, (size_t)len, "%s", devices[dev].name);
  return CUDA_SUCCESS;
}

CUresult fake_cuDeviceGetName(char *name, int len, CUdevice dev) {
  FAKE_CALL(cuDeviceGetName, NEEDS_INIT, do_device_get_name(name, len, dev));
}

static CUresult do_device_total_mem(size_t *bytes, CUdevice dev) {
  if (bytes == NULL) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = devices[dev].total_memory;
  return CUDA_SUCCESS;
}

CUresult fake_cuDeviceTotalMem(size_t *bytes, CUdevice dev) {
  FAKE_CALL(cuDeviceTotalMem, NEEDS_INIT, do_device_total_mem(bytes, dev));
}

static CUresult do_device_get_attribute(int *value, CUdevice_attribute attribute, CUdevice dev) {
  if (value == NULL || (int)attribute <= 0 || attribute >= CU_DEVICE_ATTRIBUTE_MAX)
    return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  *value = devices[dev].attributes[attribute];
  return CUDA_SUCCESS;
}

CUresult fake_cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice dev) {
  FAKE_CALL(cuDeviceGetAttribute, NEEDS_INIT, do_device_get_attribute(value, attribute, dev));
}

static CUresult do_device_can_access_peer(int *can, CUdevice dev, CUdevice peer) {
  if (can == NULL) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev) || !valid_device(peer)) return CUDA_ERROR_INVALID_DEVICE;
  *can = dev != peer && devices[dev].peer[peer];
  return CUDA_SUCCESS;
}

CUresult fake_cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer) {
  FAKE_CALL(cuDeviceCanAccessPeer, NEEDS_INIT, do_device_can_access_peer(can, dev, peer));
}

/* ---- contexts ------------------------------------------------------------- */

static CUresult do_primary_retain(CUcontext *ctx, CUdevice dev) {
  if (ctx == NULL) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  devices[dev].primary_retains++;
  *ctx = &devices[dev].primary;
  return CUDA_SUCCESS;
}

CUresult fake_cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev) {
  FAKE_CALL(cuDevicePrimaryCtxRetain, NEEDS_INIT, do_primary_retain(ctx, dev));
}

static CUresult do_primary_release(CUdevice dev) {
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  if (devices[dev].primary_retains == 0) return CUDA_ERROR_INVALID_CONTEXT;
  devices[dev].primary_retains--;
  return CUDA_SUCCESS;
}

CUresult fake_cuDevicePrimaryCtxRelease(CUdevice dev) {
  FAKE_CALL(cuDevicePrimaryCtxRelease, NEEDS_INIT, do_primary_release(dev));
}

/* Active while anyone holds a retain on it, as the driver says. */
static CUresult do_primary_get_state(CUdevice dev, unsigned int *flags, int *active) {
  if (flags == NULL || active == NULL) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  *flags = 0;
  *active = devices[dev].primary_retains > 0;
  return CUDA_SUCCESS;
}

CUresult fake_cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active) {
  FAKE_CALL(cuDevicePrimaryCtxGetState, NEEDS_INIT, do_primary_get_state(dev, flags, active));
}

static CUresult do_ctx_get_current(CUcontext *ctx) {
  if (ctx == NULL) return CUDA_ERROR_INVALID_VALUE;
  *ctx = current_ctx();
  return CUDA_SUCCESS;
}

CUresult fake_cuCtxGetCurrent(CUcontext *ctx) {
  FAKE_CALL(cuCtxGetCurrent, NEEDS_INIT, do_ctx_get_current(ctx));
}

/* As the driver documents: replace the top of the stack; NULL pops it. */
static CUresult do_ctx_set_current(CUcontext ctx) {
  if (ctx == NULL) {
    if (ctx_depth > 0) ctx_depth--;
    return CUDA_SUCCESS;
  }
  if (!valid_ctx(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  if (ctx_depth == 0) ctx_depth = 1;
  ctx_stack[ctx_depth - 1] = ctx;
  return CUDA_SUCCESS;
}

CUresult fake_cuCtxSetCurrent(CUcontext ctx) {
  FAKE_CALL(cuCtxSetCurrent, NEEDS_INIT, do_ctx_set_current(ctx));
}

static CUresult do_ctx_push(CUcontext ctx) {
  if (ctx == NULL || !valid_ctx(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  if (ctx_depth == FAKE_CONTEXT_STACK) return CUDA_ERROR_OUT_OF_MEMORY;
  ctx_stack[ctx_depth++] = ctx;
  return CUDA_SUCCESS;
}

CUresult fake_cuCtxPushCurrent(CUcontext ctx) {
  FAKE_CALL(cuCtxPushCurrent, NEEDS_INIT, do_ctx_push(ctx));
}

static CUresult do_ctx_pop(CUcontext *ctx) {
  if (ctx_depth == 0) return CUDA_ERROR_INVALID_CONTEXT;
  CUcontext top = ctx_stack[--ctx_depth];
  if (ctx != NULL) *ctx = top;
  return CUDA_SUCCESS;
}

CUresult fake_cuCtxPopCurrent(CUcontext *ctx) {
  FAKE_CALL(cuCtxPopCurrent, NEEDS_INIT, do_ctx_pop(ctx));
}

/* The context a CUDA 13.0 call names: NULL means the current one. */
static CUresult resolve_ctx(CUcontext ctx, CUcontext *out) {
  *out = ctx != NULL ? ctx : current_ctx();
  if (*out == NULL || !valid_ctx(*out)) return CUDA_ERROR_INVALID_CONTEXT;
  return CUDA_SUCCESS;
}

static CUresult do_ctx_get_device(CUdevice *device, CUcontext ctx) {
  if (device == NULL) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = resolve_ctx(ctx, &ctx);
  if (r != CUDA_SUCCESS) return r;
  *device = ctx->device;
  return CUDA_SUCCESS;
}

CUresult fake_cuCtxGetDevice(CUdevice *device, CUcontext ctx) {
  FAKE_CALL(cuCtxGetDevice, NEEDS_INIT, do_ctx_get_device(device, ctx));
}

static CUresult do_ctx_synchronize(CUcontext ctx) {
  CUresult r = resolve_ctx(ctx, &ctx);
  if (r != CUDA_SUCCESS) return r;
  r = capture_conflict(true, NULL);
  if (r != CUDA_SUCCESS) return r;
  for (fake_work *w = works; w != NULL; w = w->next)
    if (w->ctx == ctx) w->done = true;
  release_all_pools();
  return CUDA_SUCCESS;
}

CUresult fake_cuCtxSynchronize(CUcontext ctx) {
  FAKE_CALL(cuCtxSynchronize, NEEDS_INIT, do_ctx_synchronize(ctx));
}

/* ---- cuGetProcAddress ------------------------------------------------------------ */

typedef void (*fake_fn)(void);

/* Each entry point in the one ABI the fake implements, and the CUDA version
 * that ABI appeared in. */
static const struct {
  const char *name;
  int version;
  fake_fn fn;
} proc_table[] = {
#define FAKE_PROC_ROW_(name, version) {#name, version, (fake_fn)fake_##name},
    MRI_CUDA_ENTRY_POINTS(FAKE_PROC_ROW_)
#undef FAKE_PROC_ROW_
};

static CUresult do_get_proc_address(const char *symbol, void **pfn, int cuda_version,
                                    cuuint64_t flags, CUdriverProcAddressQueryResult *status) {
  if (symbol == NULL || pfn == NULL) return CUDA_ERROR_INVALID_VALUE;
  const cuuint64_t known =
      CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
  if ((flags & ~known) != 0) return CUDA_ERROR_INVALID_VALUE;
  *pfn = NULL;
  for (size_t i = 0; i < sizeof proc_table / sizeof proc_table[0]; i++) {
    if (strcmp(proc_table[i].name, symbol) != 0) continue;
    /* The driver hands out the newest ABI at or below cuda_version; the fake
     * has only one, so an older request finds nothing. */
    if (cuda_version < proc_table[i].version) {
      if (status != NULL) *status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
      return CUDA_ERROR_NOT_FOUND;
    }
    /* dlsym-style: a function pointer handed out as an object pointer. */
    memcpy(pfn, &proc_table[i].fn, sizeof proc_table[i].fn);
    if (status != NULL) *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
  }
  if (status != NULL) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}

FAKE_CUDA_API CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version,
                                           cuuint64_t flags,
                                           CUdriverProcAddressQueryResult *status) {
  FAKE_CALL(cuGetProcAddress, NO_INIT,
            do_get_proc_address(symbol, pfn, cuda_version, flags, status));
}

/*
 * driver/cuda_api.h (driver-private): the CUDA driver entry points, loaded
 * at run time, and the helpers the driver's own files share. It includes
 * cuda.h, so only the driver's .c files and the tests include it; the
 * layers above use driver/driver_internal.h, which this header includes.
 *
 * The table is filled once (dlopen + cuGetProcAddress for CUDA 13.0) and
 * never changes afterwards, so readers need no lock: mri_cuda() is one
 * acquire load.
 */
#ifndef MRCTX_LIB_DRIVER_CUDA_API_H
#define MRCTX_LIB_DRIVER_CUDA_API_H

#include <cuda.h>
#include <cudaTypedefs.h>

#include "driver/driver_internal.h"

/* The entry points mrctx calls, in one list: X(name, version). `version` is
 * the CUDA version of the ABI we ask cuGetProcAddress for: the newest one at
 * or below 13.0, whose signature cudaTypedefs.h spells PFN_<name>_v<version>
 * (13.0 changed some, e.g. cuCtxGetDevice and cuCtxSynchronize now take a
 * context, NULL meaning the current one). The table, the loader and the fake
 * test driver are generated from this list. */
#define MRI_CUDA_ENTRY_POINTS(X)               \
  X(cuInit, 2000)                              \
  X(cuDriverGetVersion, 2020)                  \
  X(cuGetErrorName, 6000)                      \
  X(cuGetErrorString, 6000)                    \
  X(cuDeviceGetCount, 2000)                    \
  X(cuDeviceGet, 2000)                         \
  X(cuDeviceGetName, 2000)                     \
  X(cuDeviceTotalMem, 3020)                    \
  X(cuDeviceGetAttribute, 2000)                \
  X(cuDeviceCanAccessPeer, 4000)               \
  X(cuDeviceGetUuid, 11040)                    \
  X(cuDevicePrimaryCtxRetain, 7000)            \
  X(cuDevicePrimaryCtxRelease, 11000)          \
  X(cuDevicePrimaryCtxGetState, 7000)          \
  X(cuCtxGetCurrent, 4000)                     \
  X(cuCtxSetCurrent, 4000)                     \
  X(cuCtxPushCurrent, 4000)                    \
  X(cuCtxPopCurrent, 4000)                     \
  X(cuCtxGetDevice, 13000)                     \
  X(cuCtxSynchronize, 13000)                   \
  X(cuMemGetInfo, 3020)                        \
  X(cuMemGetDefaultMemPool, 13000)             \
  X(cuMemGetMemPool, 13000)                    \
  X(cuMemSetMemPool, 13000)                    \
  X(cuMemPoolCreate, 11020)                    \
  X(cuMemPoolDestroy, 11020)                   \
  X(cuMemPoolSetAttribute, 11020)              \
  X(cuMemPoolGetAttribute, 11020)              \
  X(cuMemPoolSetAccess, 11020)                 \
  X(cuMemPoolGetAccess, 11020)                 \
  X(cuMemPoolTrimTo, 11020)                    \
  X(cuMemPoolExportToShareableHandle, 11020)   \
  X(cuMemPoolImportFromShareableHandle, 11020) \
  X(cuMemPoolExportPointer, 11020)             \
  X(cuMemPoolImportPointer, 11020)             \
  X(cuMemAllocFromPoolAsync, 11020)            \
  X(cuMemFreeAsync, 11020)                     \
  X(cuMemAlloc, 3020)                          \
  X(cuMemFree, 3020)                           \
  X(cuMemHostAlloc, 2020)                      \
  X(cuMemFreeHost, 2000)                       \
  X(cuMemAllocManaged, 6000)                   \
  X(cuMemAddressReserve, 10020)                \
  X(cuMemAddressFree, 10020)                   \
  X(cuMemCreate, 10020)                        \
  X(cuMemRelease, 10020)                       \
  X(cuMemMap, 10020)                           \
  X(cuMemUnmap, 10020)                         \
  X(cuMemSetAccess, 10020)                     \
  X(cuMemGetAllocationGranularity, 10020)      \
  X(cuMemExportToShareableHandle, 10020)       \
  X(cuMemImportFromShareableHandle, 10020)     \
  X(cuMemsetD8Async, 3020)                     \
  X(cuMemcpyAsync, 4000)                       \
  X(cuPointerGetAttribute, 4000)               \
  X(cuStreamCreate, 2000)                      \
  X(cuStreamDestroy, 4000)                     \
  X(cuStreamSynchronize, 2000)                 \
  X(cuStreamQuery, 2000)                       \
  X(cuStreamIsCapturing, 10000)                \
  X(cuStreamGetId, 12000)                      \
  X(cuStreamGetCtx, 9020)                      \
  X(cuStreamWaitValue32, 11070)                \
  X(cuStreamWaitEvent, 3020)                   \
  X(cuStreamBeginCapture, 10010)               \
  X(cuStreamEndCapture, 10000)                 \
  X(cuThreadExchangeStreamCaptureMode, 10010)  \
  X(cuGraphInstantiateWithFlags, 11040)        \
  X(cuGraphLaunch, 10000)                      \
  X(cuGraphExecDestroy, 10000)                 \
  X(cuGraphDestroy, 10000)                     \
  X(cuEventCreate, 2000)                       \
  X(cuEventRecord, 2000)                       \
  X(cuEventQuery, 2000)                        \
  X(cuEventSynchronize, 2000)                  \
  X(cuEventDestroy, 4000)                      \
  X(cuModuleLoadData, 2000)                    \
  X(cuModuleUnload, 2000)                      \
  X(cuModuleGetFunction, 2000)                 \
  X(cuLaunchKernel, 4000)

typedef struct mri_cuda_api {
#define MRI_CUDA_FIELD_(name, version) PFN_##name##_v##version name;
  MRI_CUDA_ENTRY_POINTS(MRI_CUDA_FIELD_)
#undef MRI_CUDA_FIELD_
  int version;      /* cuDriverGetVersion */
  int device_count; /* cuDeviceGetCount at load */
} mri_cuda_api;

/* Set once the driver loaded successfully; NULL before and on failure. */
extern _Atomic(const mri_cuda_api *) mri_cuda_table;

/* The driver table if it is loaded, without trying to load it. */
static inline const mri_cuda_api *mri_cuda(void) {
  return atomic_load_explicit(&mri_cuda_table, memory_order_acquire);
}

/* Load the driver (once; later calls repeat the first result and message).
 * OUT: *cu on success. MR_ERR_NO_DRIVER or MR_ERR_NO_DEVICE otherwise. */
mr_status mri_cuda_load(const mri_cuda_api **cu);

/* Map a driver result to a status and set the message:
 * "<what>: <CUDA_ERROR_NAME>: <driver's description>". Out-of-memory
 * results map to MR_ERR_OUT_OF_MEMORY, CUDA_ERROR_INVALID_DEVICE to
 * MR_ERR_NO_DEVICE, NOT_SUPPORTED to MR_ERR_UNSUPPORTED, the rest to
 * MR_ERR_DRIVER. */
mr_status mri_cuda_fail(CUresult result, const char *what_format, ...)
    __attribute__((format(printf, 2, 3)));

/* The error name for a result ("CUDA_ERROR_OUT_OF_MEMORY"), or
 * "CUDA_ERROR_<n>" for one the driver does not know. */
const char *mri_cuda_error_name(CUresult result);

/* Check `device` is a valid ordinal (loads the driver). */
mr_status mri_check_device(int device);

/* `device`'s primary context, retained once and kept for the process. */
mr_status mri_primary_context(int device, CUcontext *ctx);

/* Make `device`'s primary context current for a call that works on the
 * current context (cuMemAlloc, cuCtxSynchronize), unless it already is;
 * undo with mri_pop_context(pushed). */
mr_status mri_push_context(int device, bool *pushed);
void mri_pop_context(bool pushed);

/* A default-stream handle (NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD)
 * names a stream of the calling thread's current context. Before a driver
 * call that names one, a thread without a context gets `device`'s primary
 * context (-1: device 0), as the runtime would: cheaper, and quieter under
 * compute-sanitizer, than failing first. Checked once per thread; call the
 * slow form with `recheck` after the driver said the thread has no context
 * (it then makes one current whatever the handle). */
mr_status mri_stream_context_slow(mr_stream stream, int device, bool recheck);
extern _Thread_local bool mri_tls_context_checked;
static inline mr_status mri_stream_context(mr_stream stream, int device) {
  /* Handles 0, 1 and 2 are the default streams. */
  if (MRI_LIKELY((uintptr_t)stream > 2 || mri_tls_context_checked)) return MR_OK;
  return mri_stream_context_slow(stream, device, false);
}

/* r = call, a driver call naming `stream`: with the context made current
 * first where a default stream needs one, and once more if the driver says
 * the thread has none. Returns from the caller if no context can be made
 * current. */
#define MRI_CALL_ON_STREAM(stream, device, r, call)        \
  do {                                                     \
    mr_status st_ = mri_stream_context(stream, device);    \
    if (MRI_UNLIKELY(st_ != MR_OK)) return st_;            \
    r = (call);                                            \
    if (MRI_UNLIKELY(r == CUDA_ERROR_INVALID_CONTEXT)) {   \
      st_ = mri_stream_context_slow(stream, device, true); \
      if (st_ != MR_OK) return st_;                        \
      r = (call);                                          \
    }                                                      \
  } while (0)

/* True if `stream` is capturing a graph. The legacy stream never is. (The
 * sync resources' frees ask this; allocations ask mri_stream_query.) */
mr_status mri_stream_is_capturing(mr_stream stream, bool *capturing);

#endif /* MRCTX_LIB_DRIVER_CUDA_API_H */

/*
 * driver/cuda_driver.h (internal): the CUDA driver entry points, loaded at run
 * time, and the helpers the other layers use.
 *
 * The table is filled once (dlopen + cuGetProcAddress for CUDA 13.0) and
 * never changes afterwards, so readers need no lock: mri_cuda() is one
 * acquire load.
 */
#ifndef MRCTX_LIB_DRIVER_CUDA_DRIVER_H
#define MRCTX_LIB_DRIVER_CUDA_DRIVER_H

#include "core/core.h"

#if MRCTX_HAVE_CUDA
#include <cuda.h>
#else
/* Without the toolkit's headers only opaque handles are needed. */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
#define CUDA_SUCCESS 0
#endif

/* The entry points mrctx calls, in one list: X(name). The table, the loader
 * and the fake test driver are generated from it. */
#define MRI_CUDA_ENTRY_POINTS(X)  \
  X(cuInit)                       \
  X(cuDriverGetVersion)           \
  X(cuGetErrorName)               \
  X(cuGetErrorString)             \
  X(cuDeviceGetCount)             \
  X(cuDeviceGet)                  \
  X(cuDeviceGetName)              \
  X(cuDeviceTotalMem)             \
  X(cuDeviceGetAttribute)         \
  X(cuDeviceCanAccessPeer)        \
  X(cuDevicePrimaryCtxRetain)     \
  X(cuDevicePrimaryCtxRelease)    \
  X(cuCtxGetCurrent)              \
  X(cuCtxSetCurrent)              \
  X(cuCtxPushCurrent)             \
  X(cuCtxPopCurrent)              \
  X(cuCtxGetDevice)               \
  X(cuCtxSynchronize)             \
  X(cuMemGetInfo)                 \
  X(cuMemGetDefaultMemPool)       \
  X(cuMemGetMemPool)              \
  X(cuMemSetMemPool)              \
  X(cuMemPoolCreate)              \
  X(cuMemPoolDestroy)             \
  X(cuMemPoolSetAttribute)        \
  X(cuMemPoolGetAttribute)        \
  X(cuMemPoolSetAccess)           \
  X(cuMemPoolTrimTo)              \
  X(cuMemAllocFromPoolAsync)      \
  X(cuMemFreeAsync)               \
  X(cuMemAlloc)                   \
  X(cuMemFree)                    \
  X(cuMemHostAlloc)               \
  X(cuMemFreeHost)                \
  X(cuMemAllocManaged)            \
  X(cuMemsetD8Async)              \
  X(cuMemcpyAsync)                \
  X(cuStreamCreate)               \
  X(cuStreamDestroy)              \
  X(cuStreamSynchronize)          \
  X(cuStreamQuery)                \
  X(cuStreamIsCapturing)          \
  X(cuStreamWaitEvent)            \
  X(cuStreamBeginCapture)         \
  X(cuStreamEndCapture)           \
  X(cuGraphInstantiate)           \
  X(cuGraphLaunch)                \
  X(cuGraphExecDestroy)           \
  X(cuGraphDestroy)               \
  X(cuEventCreate)                \
  X(cuEventRecord)                \
  X(cuEventQuery)                 \
  X(cuEventSynchronize)           \
  X(cuEventDestroy)               \
  X(cuModuleLoadData)             \
  X(cuModuleUnload)               \
  X(cuModuleGetFunction)          \
  X(cuLaunchKernel)

#if MRCTX_HAVE_CUDA
typedef struct mri_cuda_api {
#define MRI_CUDA_FIELD_(name) __typeof__(&name) name;
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
#endif

/* Check `device` is a valid ordinal (loads the driver). */
mr_status mri_check_device(int device);

/* The calling thread's current device, 0 if none or no driver; never loads
 * the driver (no driver loaded means no device can be current). */
int mri_current_device(void);

/* Make sure the calling thread has a current context: if it has none, make
 * `device`'s primary context current (what the CUDA runtime does on first
 * use). A thread that has a context keeps it. */
mr_status mri_ensure_context(int device);

#if MRCTX_HAVE_CUDA
/* `device`'s primary context, retained once and kept for the process. */
mr_status mri_primary_context(int device, CUcontext *ctx);
#endif

/* Make `device`'s primary context current for a call that works on the
 * current context (cuMemAlloc, cuCtxSynchronize), unless it already is;
 * undo with mri_pop_context(pushed). */
mr_status mri_push_context(int device, bool *pushed);
void mri_pop_context(bool pushed);

/* True if `stream` is capturing a graph. The legacy stream never is. */
mr_status mri_stream_is_capturing(mr_stream stream, bool *capturing);

/* Events for stream-ordered reuse across streams. An event is created
 * without timing. Without a driver these are never called: host resources
 * have no streams to order. */
typedef struct CUevent_st *mri_event;
mr_status mri_event_create(mri_event *event);
void mri_event_destroy(mri_event event);
mr_status mri_event_record(mri_event event, mr_stream stream);
/* OUT: *done, true once the work recorded before the event has finished. */
mr_status mri_event_query(mri_event event, bool *done);
mr_status mri_event_synchronize(mri_event event);

/* Wait for `stream`; wait for every stream of the current context. */
mr_status mri_stream_synchronize(mr_stream stream);
mr_status mri_device_synchronize(int device);

/* Total memory of `device` in bytes (for sizes given in %). */
mr_status mri_device_total_memory(int device, uint64_t *bytes);

#endif /* MRCTX_LIB_DRIVER_CUDA_DRIVER_H */

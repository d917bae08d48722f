/*
 * loader.c: open the CUDA driver at run time and fill the entry-point table.
 *
 * dlopen("libcuda.so.1") (or $MRCTX_CUDA_DRIVER), dlsym one symbol,
 * cuGetProcAddress_v2, and ask it for every entry point at CUDA 13.0 with
 * legacy default-stream semantics (NULL is the legacy stream; callers pass
 * CU_STREAM_PER_THREAD explicitly for the per-thread stream). Nothing links
 * against libcuda, so the library loads where there is no driver.
 *
 * Loading happens once; its outcome (and message) is kept, and every later
 * caller gets the same answer.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/decay.h"
#include "core/nvtx.h"
#include "core/variables.h"
#include "driver/cuda_api.h"

#define MRI_CUDA_REQUIRED_VERSION 13000

_Atomic(const mri_cuda_api *) mri_cuda_table;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static mri_cuda_api loaded;
static mr_status load_status;
static char load_message[512];
static void *driver_handle;

typedef CUresult (*get_proc_address_fn)(const char *symbol, void **pfn, int cuda_version,
                                        cuuint64_t flags, CUdriverProcAddressQueryResult *status);

static void load_fail(mr_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static void load_fail(mr_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(load_message, sizeof load_message, format, args);
  va_end(args);
  load_status = status;
}

/* For NVTX tools (core/nvtx.h): whether `ptr` is in memory from one of the
 * driver's stream-ordered pools, and (where asked) whether it starts that
 * allocation. An address the driver does not know (host memory of malloc)
 * is no pool's. */
static bool pool_memory_query(const void *ptr, bool *starts_allocation) {
  const mri_cuda_api *cu = mri_cuda();
  CUmemoryPool pool = NULL;
  CUdeviceptr address = (CUdeviceptr)(uintptr_t)ptr, start = 0;
  if (cu == NULL ||
      cu->cuPointerGetAttribute(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, address) !=
          CUDA_SUCCESS ||
      pool == NULL)
    return false;
  if (starts_allocation != NULL)
    *starts_allocation = cu->cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                                   address) == CUDA_SUCCESS &&
                         start == address;
  return true;
}

/* The decay's ticks run in the relaxed capture mode (core/decay.h). */
static int capture_relax(void) {
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  if (loaded.cuThreadExchangeStreamCaptureMode(&mode) != CUDA_SUCCESS) return -1;
  return (int)mode;
}

static void capture_restore(int saved) {
  CUstreamCaptureMode mode = (CUstreamCaptureMode)saved;
  (void)loaded.cuThreadExchangeStreamCaptureMode(&mode);
}

static void load_driver(void) {
  const char *path = mri_variable_get(MRI_VAR_CUDA_DRIVER);
  bool overridden = path != NULL && path[0] != '\0';
  if (!overridden) path = "libcuda.so.1";

  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) {
    const char *why = dlerror();
    load_fail(MR_ERR_NO_DRIVER, "the CUDA driver could not be loaded: %s%s",
              why != NULL ? why : path,
              overridden ? " (MRCTX_CUDA_DRIVER names this library)"
                         : " (is the NVIDIA driver installed? MRCTX_CUDA_DRIVER "
                           "may name another library)");
    return;
  }
  /* dlsym returns an object pointer; POSIX guarantees it converts. */
  void *symbol = dlsym(handle, "cuGetProcAddress_v2");
  get_proc_address_fn get_proc = NULL;
  memcpy(&get_proc, &symbol, sizeof symbol);
  if (get_proc == NULL) {
    load_fail(MR_ERR_NO_DRIVER,
              "the CUDA driver %s has no cuGetProcAddress_v2: it is older than "
              "CUDA 12.0 (mrctx needs a CUDA 13.0 driver)",
              path);
    dlclose(handle);
    return;
  }

  mri_cuda_api t;
  memset(&t, 0, sizeof t);
#define MRI_LOAD_ENTRY_(name, version)                                                     \
  {                                                                                        \
    void *fn = NULL;                                                                       \
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;           \
    CUresult r = get_proc(#name, &fn, version, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found); \
    if (r != CUDA_SUCCESS || fn == NULL || found != CU_GET_PROC_ADDRESS_SUCCESS) {         \
      load_fail(MR_ERR_NO_DRIVER,                                                          \
                "the CUDA driver %s lacks %s (ABI of CUDA %d; error %d, "                  \
                "query result %d): mrctx needs a CUDA 13.0 driver (580 or "                \
                "newer)",                                                                  \
                path, #name, version, (int)r, (int)found);                                 \
      dlclose(handle);                                                                     \
      return;                                                                              \
    }                                                                                      \
    memcpy(&t.name, &fn, sizeof fn);                                                       \
  }
  MRI_CUDA_ENTRY_POINTS(MRI_LOAD_ENTRY_)
#undef MRI_LOAD_ENTRY_

  CUresult r = t.cuInit(0);
  if (r != CUDA_SUCCESS) {
    const char *name = NULL;
    if (t.cuGetErrorName(r, &name) != CUDA_SUCCESS || name == NULL) name = "unknown error";
    if (r == CUDA_ERROR_NO_DEVICE) {
      load_fail(MR_ERR_NO_DEVICE, "the CUDA driver found no device (cuInit: %s)", name);
    } else {
      load_fail(MR_ERR_NO_DRIVER, "the CUDA driver failed to start (cuInit: %s)", name);
    }
    /* Keep the library open: the driver may have registered handlers. */
    driver_handle = handle;
    return;
  }
  if (t.cuDriverGetVersion(&t.version) != CUDA_SUCCESS) t.version = 0;
  if (t.version < MRI_CUDA_REQUIRED_VERSION) {
    load_fail(MR_ERR_NO_DRIVER, "the CUDA driver is version %d.%d; mrctx needs 13.0 or newer",
              t.version / 1000, (t.version % 1000) / 10);
    driver_handle = handle;
    return;
  }
  if (t.cuDeviceGetCount(&t.device_count) != CUDA_SUCCESS) t.device_count = 0;

  driver_handle = handle;
  loaded = t;
  load_status = MR_OK;
  atomic_store_explicit(&mri_cuda_table, &loaded, memory_order_release);
  mri_nvtx_set_pool_query(pool_memory_query);
  mri_decay_set_capture_hooks(capture_relax, capture_restore);
}

mr_status mri_cuda_load(const mri_cuda_api **cu) {
  const mri_cuda_api *t = mri_cuda();
  if (MRI_LIKELY(t != NULL)) {
    if (cu != NULL) *cu = t;
    return MR_OK;
  }
  pthread_once(&load_once, load_driver);
  t = mri_cuda();
  if (cu != NULL) *cu = t;
  if (t != NULL) return MR_OK;
  return mri_error(load_status, "%s", load_message);
}

mr_status mr_driver_load(void) { return mri_cuda_load(NULL); }

const char *mri_cuda_error_name(CUresult result) {
  const mri_cuda_api *cu = mri_cuda();
  const char *name = NULL;
  if (cu != NULL && cu->cuGetErrorName(result, &name) == CUDA_SUCCESS && name != NULL) return name;
  static _Thread_local char unknown[32];
  snprintf(unknown, sizeof unknown, "CUDA_ERROR_%d", (int)result);
  return unknown;
}

mr_status mri_cuda_fail(CUresult result, const char *what_format, ...) {
  char what[MRI_ERROR_CAPACITY / 2];
  va_list args;
  va_start(args, what_format);
  vsnprintf(what, sizeof what, what_format, args);
  va_end(args);

  mr_status status;
  switch (result) {
  case CUDA_ERROR_OUT_OF_MEMORY:
    status = MR_ERR_OUT_OF_MEMORY;
    break;
  case CUDA_ERROR_INVALID_DEVICE:
  case CUDA_ERROR_NO_DEVICE:
    status = MR_ERR_NO_DEVICE;
    break;
  case CUDA_ERROR_NOT_SUPPORTED:
    status = MR_ERR_UNSUPPORTED;
    break;
  default:
    status = MR_ERR_DRIVER;
    break;
  }
  const mri_cuda_api *cu = mri_cuda();
  const char *description = NULL;
  if (cu == NULL || cu->cuGetErrorString(result, &description) != CUDA_SUCCESS) description = NULL;
  if (description != NULL)
    return mri_error(status, "%s: %s (%s)", what, mri_cuda_error_name(result), description);
  return mri_error(status, "%s: %s", what, mri_cuda_error_name(result));
}

mr_status mr_driver_version(int *version) {
  if (version == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_driver_version: version is NULL");
  *version = 0;
  const mri_cuda_api *cu;
  mr_status st = mri_cuda_load(&cu);
  if (st != MR_OK) return st;
  *version = cu->version;
  return MR_OK;
}

mr_status mr_device_count(int *count) {
  if (count == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_device_count: count is NULL");
  *count = 0;
  const mri_cuda_api *cu;
  mr_status st = mri_cuda_load(&cu);
  if (st == MR_ERR_NO_DEVICE) return MR_OK; /* a driver and no device: 0 */
  if (st != MR_OK) return st;
  *count = cu->device_count;
  return MR_OK;
}

mr_status mri_check_device(int device) {
  const mri_cuda_api *cu;
  mr_status st = mri_cuda_load(&cu);
  if (st != MR_OK) return st;
  if (device < 0 || device >= cu->device_count)
    return mri_error(MR_ERR_NO_DEVICE,
                     "device %d does not exist: the driver shows %d device%s (0..%d)", device,
                     cu->device_count, cu->device_count == 1 ? "" : "s", cu->device_count - 1);
  return MR_OK;
}

int mri_current_device(void) {
  const mri_cuda_api *cu = mri_cuda();
  if (MRI_UNLIKELY(cu == NULL)) return 0;
  CUdevice device;
  if (MRI_UNLIKELY(cu->cuCtxGetDevice(&device, NULL) != CUDA_SUCCESS)) return 0;
  return (int)device;
}

bool mri_driver_loaded(void) { return mri_cuda() != NULL; }

int mr_current_device(void) {
  /* The public form loads the driver; the internal one never does. */
  if (mri_cuda_load(NULL) != MR_OK) return 0;
  return mri_current_device();
}

/* Primary contexts, retained once per device and kept for the life of the
 * process, as the CUDA runtime does: a context mrctx made current must not be
 * destroyed under the thread's feet by a balancing release. */
static pthread_mutex_t primary_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext *primary_contexts;
static mri_fork_lockable primary_fork;
__attribute__((constructor)) static void primary_fork_register(void) {
  mri_fork_register_mutex(&primary_fork, &primary_lock, MRI_FORK_RANK_LEAF);
}

/* The driver shut down at process exit: every context, stream and block is
 * gone with it. Context handling then has nothing to do, and what frees,
 * waits and stream-ID queries for frees ask of it counts as done. */
static inline bool shut_down(CUresult r) { return r == CUDA_ERROR_DEINITIALIZED; }

/* mri_primary_context, also saying (*gone) when it failed because the
 * driver shut down. */
static mr_status primary_context(int device, CUcontext *ctx, bool *gone) {
  *gone = false;
  *ctx = NULL;
  mr_status st = mri_check_device(device);
  if (st != MR_OK) return st;
  const mri_cuda_api *cu = mri_cuda();
  pthread_mutex_lock(&primary_lock);
  if (primary_contexts == NULL) {
    primary_contexts = mri_host_calloc((size_t)cu->device_count, sizeof *primary_contexts);
    if (primary_contexts == NULL) {
      pthread_mutex_unlock(&primary_lock);
      return mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory for context handles");
    }
  }
  if (primary_contexts[device] == NULL) {
    CUdevice dev;
    CUresult r = cu->cuDeviceGet(&dev, device);
    if (r == CUDA_SUCCESS) r = cu->cuDevicePrimaryCtxRetain(&primary_contexts[device], dev);
    if (r != CUDA_SUCCESS) {
      primary_contexts[device] = NULL;
      pthread_mutex_unlock(&primary_lock);
      *gone = shut_down(r);
      return mri_cuda_fail(r, "retaining the primary context of device %d", device);
    }
  }
  *ctx = primary_contexts[device];
  pthread_mutex_unlock(&primary_lock);
  return MR_OK;
}

mr_status mri_primary_context(int device, CUcontext *ctx) {
  bool gone;
  return primary_context(device, ctx, &gone);
}

mr_status mri_ensure_context(int device) {
  const mri_cuda_api *cu;
  mr_status st = mri_cuda_load(&cu);
  if (st != MR_OK) return st;
  CUcontext current = NULL;
  CUresult r = cu->cuCtxGetCurrent(&current);
  if (r == CUDA_SUCCESS && current != NULL) return MR_OK;
  /* After the driver shut down there is no context to make current; the
   * caller's own driver call reports the shutdown (frees take it as done). */
  if (shut_down(r)) return MR_OK;
  CUcontext primary;
  bool gone;
  st = primary_context(device < 0 ? 0 : device, &primary, &gone);
  if (gone) return MR_OK;
  if (st != MR_OK) return st;
  r = cu->cuCtxSetCurrent(primary);
  if (shut_down(r)) return MR_OK;
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuCtxSetCurrent(device %d)", device);
  return MR_OK;
}

mr_status mri_push_context(int device, bool *pushed) {
  *pushed = false;
  const mri_cuda_api *cu;
  mr_status st = mri_cuda_load(&cu);
  if (st != MR_OK) return st;
  CUcontext primary;
  bool gone;
  st = primary_context(device < 0 ? 0 : device, &primary, &gone);
  /* After the driver shut down at exit there is no context to push; the
   * caller's own call reports the shutdown (frees treat it as done). */
  if (gone) return MR_OK;
  if (st != MR_OK) return st;
  CUcontext current = NULL;
  if (cu->cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == primary) return MR_OK;
  CUresult r = cu->cuCtxPushCurrent(primary);
  if (shut_down(r)) return MR_OK;
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuCtxPushCurrent(device %d)", device);
  *pushed = true;
  return MR_OK;
}

void mri_pop_context(bool pushed) {
  if (!pushed) return;
  CUcontext popped;
  mri_cuda()->cuCtxPopCurrent(&popped);
}

static inline bool is_default_stream(mr_stream stream) {
  return stream == NULL || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD;
}

_Thread_local bool mri_tls_context_checked;

mr_status mri_stream_context_slow(mr_stream stream, int device, bool recheck) {
  if (!is_default_stream(stream)) return recheck ? mri_ensure_context(device) : MR_OK;
  if (mri_tls_context_checked && !recheck) return MR_OK;
  mr_status st = mri_ensure_context(device);
  mri_tls_context_checked = st == MR_OK;
  return st;
}

static mr_status capture_status(const mri_cuda_api *cu, mr_stream stream, int device,
                                bool *capturing) {
  *capturing = false;
  /* The legacy stream cannot capture. */
  if (stream == NULL || stream == CU_STREAM_LEGACY) return MR_OK;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult r;
  MRI_CALL_ON_STREAM(stream, device, r, cu->cuStreamIsCapturing((CUstream)stream, &status));
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuStreamIsCapturing(stream %p)", (void *)stream);
  *capturing = status != CU_STREAM_CAPTURE_STATUS_NONE;
  return MR_OK;
}

mr_status mri_stream_is_capturing(mr_stream stream, bool *capturing) {
  *capturing = false;
  const mri_cuda_api *cu = mri_cuda();
  if (cu == NULL) return MR_OK;
  return capture_status(cu, stream, -1, capturing);
}

mr_status mri_stream_get_id(mr_stream stream, int device, mri_stream_id *id) {
  const mri_cuda_api *cu = mri_cuda();
  if (MRI_UNLIKELY(cu == NULL)) {
    *id = (mri_stream_id)(uintptr_t)stream;
    return MR_OK;
  }
  unsigned long long value = 0;
  CUresult r;
  MRI_CALL_ON_STREAM(stream, device, r, cu->cuStreamGetId((CUstream)stream, &value));
  if (MRI_UNLIKELY(shut_down(r))) {
    /* Every stream went with the driver, and the memory freed on it: the
     * free has nothing left to order. */
    *id = MRI_STREAM_ID_SHUT_DOWN;
    return MR_OK;
  }
  if (MRI_UNLIKELY(r != CUDA_SUCCESS)) {
    *id = 0;
    return mri_cuda_fail(r, "cuStreamGetId(stream %p)", (void *)stream);
  }
  *id = value;
  return MR_OK;
}

mr_status mri_stream_query(mr_stream stream, int device, mri_stream_info *info) {
  info->id = 0;
  info->capturing = false;
  const mri_cuda_api *cu = mri_cuda();
  if (MRI_LIKELY(cu != NULL)) {
    /* The capture check first: cuStreamGetId on a capturing stream fails
     * (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) and invalidates the capture. */
    mr_status st = capture_status(cu, stream, device, &info->capturing);
    if (MRI_UNLIKELY(st != MR_OK) || info->capturing) return st;
  }
  mr_status st = mri_stream_get_id(stream, device, &info->id);
  /* An allocation after the driver shut down fails: what a cache or arena
   * kept went with the driver (the legacy stream's capture check above
   * asks the driver nothing). */
  if (MRI_UNLIKELY(st == MR_OK && info->id == MRI_STREAM_ID_SHUT_DOWN && cu != NULL)) {
    info->id = 0;
    return mri_cuda_fail(CUDA_ERROR_DEINITIALIZED, "cuStreamGetId(stream %p)", (void *)stream);
  }
  return st;
}

mr_status mri_event_create(mri_event *event) {
  *event = NULL;
  const mri_cuda_api *cu;
  mr_status st = mri_cuda_load(&cu);
  if (st != MR_OK) return st;
  CUevent e;
  CUresult r = cu->cuEventCreate(&e, CU_EVENT_DISABLE_TIMING);
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuEventCreate");
  *event = e;
  return MR_OK;
}

void mri_event_destroy(mri_event event) {
  const mri_cuda_api *cu = mri_cuda();
  if (cu != NULL && event != NULL) cu->cuEventDestroy(event);
}

mr_status mri_event_record(mri_event event, mr_stream stream) {
  const mri_cuda_api *cu = mri_cuda();
  if (cu == NULL) return mri_error(MR_ERR_NO_DRIVER, "event record without a driver");
  CUresult r = cu->cuEventRecord(event, (CUstream)stream);
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuEventRecord");
  return MR_OK;
}

mr_status mri_event_query(mri_event event, bool *done) {
  *done = false;
  const mri_cuda_api *cu = mri_cuda();
  if (cu == NULL) return mri_error(MR_ERR_NO_DRIVER, "event query without a driver");
  CUresult r = cu->cuEventQuery(event);
  if (r == CUDA_SUCCESS) {
    *done = true;
    return MR_OK;
  }
  if (r == CUDA_ERROR_NOT_READY) return MR_OK;
  return mri_cuda_fail(r, "cuEventQuery");
}

mr_status mri_event_synchronize(mri_event event) {
  const mri_cuda_api *cu = mri_cuda();
  if (cu == NULL) return mri_error(MR_ERR_NO_DRIVER, "event wait without a driver");
  CUresult r = cu->cuEventSynchronize(event);
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuEventSynchronize");
  return MR_OK;
}

mr_status mri_stream_synchronize(mr_stream stream) {
  const mri_cuda_api *cu;
  mr_status st = mri_cuda_load(&cu);
  if (st != MR_OK) return st;
  if (is_default_stream(stream)) {
    /* No context on this thread: its default streams hold no work of its
     * (asked first: failing the call would be an API error). */
    CUcontext current = NULL;
    if (cu->cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == NULL) return MR_OK;
  }
  CUresult r = cu->cuStreamSynchronize((CUstream)stream);
  if (r == CUDA_ERROR_INVALID_CONTEXT && is_default_stream(stream)) return MR_OK;
  /* The driver shut down at exit: nothing is pending any more. */
  if (r == CUDA_ERROR_DEINITIALIZED) return MR_OK;
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuStreamSynchronize(stream %p)", (void *)stream);
  return MR_OK;
}

mr_status mri_device_synchronize(int device) {
  bool pushed;
  mr_status st = mri_push_context(device, &pushed);
  if (st != MR_OK) return st;
  CUresult r = mri_cuda()->cuCtxSynchronize(NULL);
  mri_pop_context(pushed);
  if (r == CUDA_ERROR_DEINITIALIZED) return MR_OK;
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "synchronizing device %d", device);
  return MR_OK;
}

mr_status mri_synchronize_devices(int device) {
  const mri_cuda_api *cu = mri_cuda();
  if (cu == NULL) return MR_OK;
  if (device >= 0) return mri_device_synchronize(device);
  mr_status st = MR_OK;
  for (int d = 0; st == MR_OK && d < cu->device_count; d++) st = mri_device_synchronize(d);
  return st;
}

mr_status mri_device_total_memory(int device, uint64_t *bytes) {
  *bytes = 0;
  mr_status st = mri_check_device(device);
  if (st != MR_OK) return st;
  const mri_cuda_api *cu = mri_cuda();
  CUdevice dev;
  CUresult r = cu->cuDeviceGet(&dev, device);
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuDeviceGet(%d)", device);
  size_t total = 0;
  r = cu->cuDeviceTotalMem(&total, dev);
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuDeviceTotalMem(device %d)", device);
  *bytes = total;
  return MR_OK;
}

/* The legacy stream's ID per thread, remembered for the context it belongs
 * to: cuStreamGetId(NULL) costs 34 ns on an H200, cuCtxGetCurrent 10. A
 * context handle that comes back for a new context after the old one was
 * destroyed maps to the old legacy stream's ID, whose work is over: one
 * stream keeps one key, and no key stands for two live streams. */
static _Thread_local CUcontext legacy_context;
static _Thread_local mri_stream_id legacy_id;

mr_status mri_legacy_stream_id(int device, mri_stream_id *id) {
  const mri_cuda_api *cu = mri_cuda();
  if (MRI_LIKELY(cu != NULL)) {
    CUcontext current = NULL;
    if (MRI_LIKELY(cu->cuCtxGetCurrent(&current) == CUDA_SUCCESS && current != NULL &&
                   current == legacy_context)) {
      *id = legacy_id;
      return MR_OK;
    }
  }
  mr_status st = mri_stream_get_id(NULL, device, id);
  if (st != MR_OK || cu == NULL || *id == MRI_STREAM_ID_SHUT_DOWN) return st;
  /* mri_stream_get_id made a context current if the thread had none. */
  CUcontext current = NULL;
  if (cu->cuCtxGetCurrent(&current) == CUDA_SUCCESS && current != NULL) {
    legacy_context = current;
    legacy_id = *id;
  }
  return MR_OK;
}

/*
 * fakecuda.h: the control API of the fake CUDA driver (tests only).
 *
 * libfakecuda implements, over host memory, every entry point mrctx loads
 * (MRI_CUDA_ENTRY_POINTS in lib/driver/cuda_api.h) in exactly the ABI the
 * loader asks for (cudaTypedefs.h's PFN_<name>_v<version>, checked at
 * compile time), and exports cuGetProcAddress_v2 so the library's loader
 * opens it like the real driver; asked for an older version than that, it
 * answers CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT. Tests set
 * MRCTX_CUDA_DRIVER to its path (the
 * `fake_env` of tests/fake_driver/meson.build). A test that links the fake
 * (fakecuda_dep) and lets the loader dlopen the same path talks to the same
 * loaded instance, so what it configures here is what the library sees.
 *
 * It proves error paths and multi-device bookkeeping, not CUDA itself:
 *  - 4 devices by default (0..16, set before the first cuInit, or with the
 *    environment variable FAKECUDA_DEVICES), each "Fake CUDA Device N" with
 *    16 GiB, compute capability 9.0, device and host memory pools, managed
 *    memory and concurrent managed access; any attribute can be changed.
 *    Every device can reach every other as a peer unless told otherwise.
 *  - Memory is real, writable host memory aligned to 256 bytes. It is
 *    charged to a device (device pools, cuMemAlloc) or to the host (pinned
 *    and managed memory, 64 GiB by default); a request past what is left is
 *    CUDA_ERROR_OUT_OF_MEMORY. Pools count exact requested bytes: used grows
 *    and shrinks with allocations, reserved grows on demand (within maxSize)
 *    and shrinks to max(used, release threshold) at every synchronization
 *    (cuStreamSynchronize, cuEventSynchronize, cuCtxSynchronize) and to
 *    max(used, keep) on cuMemPoolTrimTo. Frees take effect at once.
 *  - Calls that need a current context (cuMemAlloc, cuMemHostAlloc,
 *    cuMemAllocManaged, cuMemFree, cuMemFreeHost, cuMemGetInfo,
 *    cuStreamCreate, cuEventCreate, cuCtxSynchronize, and anything on the
 *    NULL / CU_STREAM_LEGACY / CU_STREAM_PER_THREAD stream) fail with
 *    CUDA_ERROR_INVALID_CONTEXT on a thread that has none. Each primary
 *    context has its own legacy and per-thread stream.
 *  - Streams can be marked busy: events recorded on a busy stream report
 *    CUDA_ERROR_NOT_READY (and cuStreamQuery too) until the test marks the
 *    stream idle or someone synchronizes it (waiting lets the work finish).
 *    cuStreamWaitValue32 (CU_STREAM_WAIT_VALUE_GEQ only) makes a stream busy
 *    until the test writes the awaited value to the host word. Synchronizing
 *    the legacy stream finishes the work of every blocking stream of that
 *    context, synchronizing the context all of its work. The per-thread
 *    stream is never marked busy.
 *  - As on a GPU, a stream destroyed while busy leaves its work running
 *    (events recorded on it stay NOT_READY until that work finishes: a
 *    context synchronization, or the awaited value), and the next
 *    cuStreamCreate returns the destroyed stream's handle again. Every
 *    stream has a cuStreamGetId ID that is never reused; the legacy stream's
 *    is per context, the per-thread stream's per context and thread.
 *  - Capture is a flag per stream; cuStreamBeginCapture sets it and
 *    cuStreamEndCapture clears it (returning a NULL graph). As on the real
 *    driver, cuStreamGetId and cuStreamSynchronize on a capturing stream fail with
 *    CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates the capture
 *    (cuStreamEndCapture then returns CUDA_ERROR_STREAM_CAPTURE_INVALIDATED). Modules,
 *    kernels and graphs are CUDA_ERROR_NOT_SUPPORTED.
 *  - cuPointerGetAttribute answers the device an allocation is charged to
 *    (CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL), the pool it came from
 *    (..._MEMPOOL_HANDLE), where it starts and its size (..._RANGE_START_ADDR,
 *    ..._RANGE_SIZE), for any address inside a live allocation.
 *  - Pools made with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR are shared
 *    between real processes through a memfd (fakecuda_ipc.c); importing a
 *    pointer maps the whole allocation the exporter made, as the driver
 *    does, and each device has its own UUID ("fakecuda-dev" and the
 *    ordinal).
 *    Copies (cuMemcpyAsync) do not check pool access: the access flags are
 *    bookkeeping, read back with cuMemPoolGetAccess.
 *  - Virtual memory management (cuMemAddressReserve, cuMemCreate, cuMemMap,
 *    cuMemSetAccess, cuMemUnmap, cuMemRelease, cuMemAddressFree, and the
 *    export and import of handles as POSIX file descriptors) over real
 *    address space: a mapped page without access faults as it would on a
 *    GPU; fakecuda_vmm.c says what is modelled. The device attribute
 *    VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED (1 by default) set to 0 makes
 *    cuMemCreate and cuMemGetAllocationGranularity CUDA_ERROR_NOT_SUPPORTED.
 *  - Before cuInit every call but cuInit, cuDriverGetVersion, cuGetErrorName
 *    and cuGetErrorString returns CUDA_ERROR_NOT_INITIALIZED.
 *
 * Every function here and every fake entry point is thread-safe (one lock).
 */
#ifndef MRCTX_TESTS_FAKECUDA_H
#define MRCTX_TESTS_FAKECUDA_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda.h>

#define FAKE_CUDA_API __attribute__((visibility("default")))
#define FAKE_CUDA_MAX_DEVICES 16

/* ---- configuration ------------------------------------------------------ */

/* How many devices (0..FAKE_CUDA_MAX_DEVICES). Only before the first
 * successful cuInit (CUDA_ERROR_ILLEGAL_STATE after); with 0, cuInit returns
 * CUDA_ERROR_NO_DEVICE. A load outcome is per process: the library loads
 * the driver once. */
FAKE_CUDA_API CUresult fake_cuda_set_device_count(int count);
FAKE_CUDA_API int fake_cuda_device_count(void);

FAKE_CUDA_API CUresult fake_cuda_set_device_name(int device, const char *name);
FAKE_CUDA_API CUresult fake_cuda_set_total_memory(int device, size_t bytes);
/* Any attribute below CU_DEVICE_ATTRIBUTE_MAX; unset ones read 0. */
FAKE_CUDA_API CUresult fake_cuda_set_attribute(int device, CUdevice_attribute attribute, int value);
/* Whether `device` can access `peer`'s memory (cuDeviceCanAccessPeer). */
FAKE_CUDA_API CUresult fake_cuda_set_peer_access(int device, int peer, bool can);
/* The host memory pinned and managed allocations are charged against. */
FAKE_CUDA_API void fake_cuda_set_host_memory(size_t bytes);
/* What cuDriverGetVersion reports (13000 by default). */
FAKE_CUDA_API void fake_cuda_set_driver_version(int version);
/* Act as the driver does after it shut down at process exit: every call
 * except cuGetErrorName/cuGetErrorString returns CUDA_ERROR_DEINITIALIZED
 * and changes nothing. fake_cuda_reset() ends it. */
FAKE_CUDA_API void fake_cuda_set_deinitialized(bool deinitialized);

/* ---- failure injection and counters ------------------------------------- */

/*
 * Make calls of `entry_point` (its cuda.h base name without version suffix,
 * "cuMemAlloc", or "cuGetProcAddress") fail: counting from now, the
 * nth_call-th call (1-based) and the count - 1 after it return `error`
 * without side effects. count <= 0 clears the entry's failure. A name that
 * is not an entry point aborts the test (it is a typo in the test).
 */
FAKE_CUDA_API void fake_cuda_fail(const char *entry_point, long nth_call, long count,
                                  CUresult error);
/* Calls of `entry_point` since the last reset (failed ones included). */
FAKE_CUDA_API long fake_cuda_calls(const char *entry_point);

/* Restore every default (attributes, names, memory sizes, version, host
 * memory), free every allocation, created pool, stream and event, reset the
 * default pools and make them current again, clear failures, counters and
 * busy/capture flags, and pop the calling thread's context stack. The device
 * count and the initialized state stay (the library keeps them), and so do
 * context and default-pool handles. */
FAKE_CUDA_API void fake_cuda_reset(void);

/* ---- inspection ---------------------------------------------------------- */

/* Live allocations of every kind (pool, cuMemAlloc, cuMemHostAlloc,
 * cuMemAllocManaged). */
FAKE_CUDA_API long fake_cuda_live_allocations(void);
/* Pools made by cuMemPoolCreate not yet gone (a destroyed pool goes once
 * its last allocation is freed). */
FAKE_CUDA_API long fake_cuda_live_pools(void);
FAKE_CUDA_API long fake_cuda_live_streams(void);
FAKE_CUDA_API long fake_cuda_live_events(void);

/* Bytes charged to `device` (pool reservations and cuMemAlloc), or to the
 * host with device -1. */
FAKE_CUDA_API size_t fake_cuda_used_memory(int device);
/* The device an allocation is charged to, -1 for the host, -2 if `ptr` is
 * not the start of a live allocation. */
FAKE_CUDA_API int fake_cuda_allocation_device(const void *ptr);
/* The pool an allocation came from; NULL if it did not come from one. */
FAKE_CUDA_API CUmemoryPool fake_cuda_allocation_pool(const void *ptr);
/* Bytes mapped by pointer imports (cuMemPoolImportPointer) not yet freed,
 * over every imported pool: each import counts its whole allocation. */
FAKE_CUDA_API size_t fake_cuda_imported_bytes(void);
/* The access `device` has to `pool` (cuMemPoolSetAccess), PROT_NONE for an
 * invalid pool or device. */
FAKE_CUDA_API CUmemAccess_flags fake_cuda_pool_access(CUmemoryPool pool, int device);
/* Virtual memory management (cuMemAddressReserve, cuMemCreate, cuMemMap;
 * fakecuda_vmm.c): granularity 2 MiB on every device; physical memory is
 * charged to its device (fake_cuda_used_memory counts it) from cuMemCreate
 * until it is released and unmapped. */
typedef struct fake_vmm_books {
  size_t reserved_ranges; /* cuMemAddressReserve not yet freed */
  size_t reserved_bytes;
  size_t mapped_bytes;   /* cuMemMap not yet unmapped */
  size_t handles;        /* physical handles alive (created or imported) */
  size_t physical_bytes; /* of the created ones (imported ones are another
                            process's) */
} fake_vmm_books;
FAKE_CUDA_API fake_vmm_books fake_cuda_vmm_books(void);

/* The calling thread's current context (NULL if none), without counting a
 * call. */
FAKE_CUDA_API CUcontext fake_cuda_current_context(void);

/* ---- streams -------------------------------------------------------------- */

/* Mark a stream busy (events recorded on it stay NOT_READY) or idle. NULL or
 * CU_STREAM_LEGACY mean the calling thread's current context's legacy stream
 * (CUDA_ERROR_INVALID_CONTEXT without one); CU_STREAM_PER_THREAD is
 * CUDA_ERROR_NOT_SUPPORTED; an unknown stream CUDA_ERROR_INVALID_HANDLE. */
FAKE_CUDA_API CUresult fake_cuda_set_stream_busy(CUstream stream, bool busy);

/* Take (true) or give up (false) the lock every entry point runs under, as
 * a thread inside an entry point holds it: for the test that a child made
 * by fork() meanwhile still calls the fake. */
FAKE_CUDA_API void fake_cuda_hold_lock(bool hold);
/* Mark a created stream capturing or not (cuStreamIsCapturing reports it). */
FAKE_CUDA_API CUresult fake_cuda_set_stream_capturing(CUstream stream, bool capturing);

/* ---- random failures ------------------------------------------------------ */

/*
 * Make each call of any entry point fail with `error`, with probability
 * `probability` (0.01: one call in a hundred), without side effects, as
 * fake_cuda_fail does for one call. Deterministic per seed: the draws come
 * from one generator seeded with `seed`, taken under the fake's lock in call
 * order, so a single-threaded run repeats exactly (with threads, which call
 * gets which draw follows the interleaving). Never failed at random:
 * cuInit, cuDriverGetVersion, cuGetErrorName, cuGetErrorString and
 * cuGetProcAddress (loading, initialization, error messages), and any entry
 * point made exempt below. A failure chosen with fake_cuda_fail comes
 * first. probability <= 0 (or error CUDA_SUCCESS) turns random failures off;
 * fake_cuda_reset() does too, and forgets exemptions and the count.
 * Thread-safe.
 */
FAKE_CUDA_API void fake_cuda_fail_randomly(double probability, unsigned seed, CUresult error);
/* Exempt `entry_point` (a name as for fake_cuda_fail) from random failures,
 * or subject it again (the five above may be subjected too). */
FAKE_CUDA_API void fake_cuda_fail_randomly_exempt(const char *entry_point, bool exempt);
/* Calls failed at random since the last reset. */
FAKE_CUDA_API long fake_cuda_random_failures(void);

#endif /* MRCTX_TESTS_FAKECUDA_H */

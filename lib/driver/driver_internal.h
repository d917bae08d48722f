/*
 * driver/driver_internal.h (internal): what the layers above the driver
 * (adaptors, config, context) use from it, without CUDA's types. cuda.h
 * stays inside lib/driver (driver/cuda_api.h); tools/dev/check-layers (the
 * unit test unit.layers) keeps it so.
 *
 * Both builds implement every function here: the driver build (loader.c,
 * sync.c) and the build without the toolkit's headers (no_cuda.c), where
 * there is never a driver. None is inline, and none needs to be for speed:
 * the cache calls mri_stream_query / mri_stream_get_id on every allocate
 * and deallocate, and those were out-of-line calls before CUDA's types
 * left this header too; the inline parts of a stream query (the default-
 * stream context check, MRI_CALL_ON_STREAM in driver/cuda_api.h) are
 * inlined inside them, in loader.c.
 */
#ifndef MRCTX_LIB_DRIVER_DRIVER_INTERNAL_H
#define MRCTX_LIB_DRIVER_DRIVER_INTERNAL_H

#include "core/core.h"

/* mr_pool_resource_create's checks of its arguments, the same with and
 * without a driver: `out` not NULL (*out becomes NULL), `desc` read as a
 * versioned struct into `given` (defaults past its size), kind, access and
 * sizes valid. */
mr_status mri_pool_desc_read(const mr_pool_desc *desc, mr_resource **out, mr_pool_desc *given);

/* mr_expandable_resource_create's checks of its arguments, as
 * mri_pool_desc_read's: `out` not NULL (*out becomes NULL), `desc` (NULL:
 * the defaults) read as a versioned struct into `given`, handle type
 * valid, sizes that fit size_t. */
mr_status mri_expandable_desc_read(const mr_expandable_desc *desc, mr_resource **out,
                                   mr_expandable_desc *given);

/* Whether `mr` is a pool(...) resource (mr_pool_resource_create): the
 * driver pool it allocates from is its own, destroyed with it, not a
 * default or current pool. Told by its ops table, not its name or
 * description. NULL, and every resource of a build without a driver, is
 * not one. */
bool mri_pool_is_owned(const mr_resource *mr);

/* What the driver rounds every allocation up to at most: device memory
 * comes in 2 MiB pages. A size that this rounding would take past
 * SIZE_MAX is refused before the driver sees it (mri_size_overflow), so
 * that no driver, real or not, is trusted to notice the wrap. */
#define MRI_DRIVER_GRANULARITY ((size_t)2 << 20)

static inline bool mri_driver_size_fits(size_t bytes) {
  size_t rounded;
  return mri_round_up_checked(bytes, MRI_DRIVER_GRANULARITY, &rounded);
}

/* The memory a pool (or sync resource) of `kind` holds. */
static inline mr_memory_kind mri_pool_memory_kind(mr_pool_kind kind) {
  switch (kind) {
  case MR_POOL_DEVICE:
    return MR_MEMORY_DEVICE;
  case MR_POOL_PINNED:
    return MR_MEMORY_PINNED;
  case MR_POOL_MANAGED:
    break;
  }
  return MR_MEMORY_MANAGED;
}

/* sync_device, sync_pinned or sync_managed (kind DEVICE, PINNED, MANAGED)
 * on `device`. `reason`, if not NULL, says why it stands in for a pool and
 * is kept in the description as spec text: sync_device(reason="device 3
 * has no device memory-pool support"), which the spec language reads back
 * to the same resource and description. */
mr_status mri_sync_resource_create(mr_pool_kind kind, int device, const char *reason,
                                   mr_resource **out);

/* The calling thread's current device, 0 if none or no driver; never loads
 * the driver (no driver loaded means no device can be current). */
int mri_current_device(void);

/* True once the driver is loaded (never loads it): what reads the driver's
 * state without wanting to start it (snapshots) asks first. */
bool mri_driver_loaded(void);

/* Make sure the calling thread has a current context: if it has none, make
 * `device`'s primary context current (what the CUDA runtime does on first
 * use). A thread that has a context keeps it. After the driver shut down
 * (process exit) there is none to make current: MR_OK, and the caller's
 * next driver call says CUDA_ERROR_DEINITIALIZED (which frees take as
 * done). */
mr_status mri_ensure_context(int device);

/* A stream's identity. A handle is not one: once a stream is destroyed the
 * driver hands its handle to the next stream created, while the destroyed
 * stream's work may still be running. The driver's stream ID
 * (cuStreamGetId) is unique for the life of the process, so memory the
 * reuse adaptors keep is keyed by it. The legacy and per-thread default
 * streams have IDs of their own per context (and per thread). Without a
 * loaded driver the handle's value stands in (host-only resources). */
typedef uint64_t mri_stream_id;

/* What an allocation must know of its stream: the ID and whether it is
 * capturing a graph. On a thread without a current context, a default-
 * stream handle (NULL, legacy, per-thread) means `device`'s primary context
 * (made current first, as the runtime would; -1: device 0). */
typedef struct mri_stream_info {
  mri_stream_id id;
  bool capturing;
} mri_stream_info;

mr_status mri_stream_query(mr_stream stream, int device, mri_stream_info *info);
/* The ID alone (for frees, which never capture-check). The driver refuses
 * it for a capturing stream (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, and the
 * capture is invalidated): as with cuMemFreeAsync, memory freed during a
 * capture must be a graph allocation, which the adaptors recognise before
 * asking. mri_stream_query asks for the ID only when not capturing.
 * After the driver shut down at process exit (CUDA_ERROR_DEINITIALIZED)
 * every stream is gone, and all the memory with it: this returns MR_OK with
 * the ID MRI_STREAM_ID_SHUT_DOWN, so the free succeeds (as
 * docs/semantics.md promises), while mri_stream_query, which allocations
 * ask, still fails: nothing can be allocated any more. */
mr_status mri_stream_get_id(mr_stream stream, int device, mri_stream_id *id);
#define MRI_STREAM_ID_SHUT_DOWN UINT64_MAX

/* mri_stream_get_id(NULL, ...), the legacy default stream of the calling
 * thread's current context, for the paths that ask it on every call (the
 * cache): one cuCtxGetCurrent while the thread stays in the context it
 * last asked in. */
mr_status mri_legacy_stream_id(int device, mri_stream_id *id);

/* Events for stream-ordered reuse across streams. An event is created
 * without timing. The handle is the same type as CUevent, an incomplete
 * struct here (as mr_stream is CUstream's). Without a driver these are
 * never called: host resources have no streams to order. */
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

/* Wait for all work on `device`, or on every device when `device` < 0 (for
 * pinned and managed memory, which any device may be using). Without a
 * loaded driver there is no work to wait for: MR_OK. */
mr_status mri_synchronize_devices(int device);

/* Total memory of `device` in bytes (for sizes given in %). */
mr_status mri_device_total_memory(int device, uint64_t *bytes);

/* mr_device_get_memory, only where `device`'s primary context is active
 * already (the process uses the device): a snapshot must not create a
 * context, which costs device memory. false where it is not, or the
 * driver is not loaded, or the call failed. */
bool mri_device_memory_if_active(int device, uint64_t *free_bytes, uint64_t *total_bytes);

#endif /* MRCTX_LIB_DRIVER_DRIVER_INTERNAL_H */

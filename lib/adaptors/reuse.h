/*
 * adaptors/reuse.h (internal): bookkeeping shared by the adaptors that keep
 * memory for reuse (arena, fixed): stream-ordered reuse through events, an
 * index from address ranges to their owners, and pass-through allocations
 * that are too large to keep.
 *
 * None of this is thread-safe: each adaptor holds its own lock around it.
 */
#ifndef MRCTX_LIB_ADAPTORS_REUSE_H
#define MRCTX_LIB_ADAPTORS_REUSE_H

#include "driver/driver_internal.h"
#include "core/ptrmap.h"

/* ---- stream-ordered reuse --------------------------------------------------
 *
 * Memory freed on stream S may be reused at once by work on S; by work on
 * any other stream only once S has passed the free. Streams are told apart
 * by their driver IDs, never by handle: a destroyed stream's handle is the
 * next stream's, while the destroyed stream's work may still run. An
 * mri_stream_waits holds, for one piece of memory (a chunk, a block), an
 * event per stream that freed into it, recorded at the free, when that
 * stream is known to be alive. Recording is never deferred to a later
 * time: the stream may be destroyed by then. Reuse checks query the events
 * and never block. */

typedef struct mri_stream_wait {
  mri_stream_id id; /* the stream that freed */
  mri_event event;  /* created on first use, kept for reuse until fini */
} mri_stream_wait;

typedef struct mri_stream_waits {
  mri_stream_wait *items; /* [0, count) pending; [count, capacity) spare */
  uint32_t count, capacity;
} mri_stream_waits;

/* Note that memory was freed on `stream`: (re)record that stream's event so
 * other streams can tell when it got past the free. If no event can be made
 * or recorded, wait for the stream instead (then nothing is pending for it).
 * Fails only if that fails too; the memory must then stay in use. `device`
 * is the device whose primary context is made current for a thread that
 * has none (-1: device 0, as the CUDA runtime would). */
mr_status mri_waits_note_free(mri_stream_waits *waits, mr_stream stream, mri_stream_id id,
                              int device);

/* True if the memory may be reused by work on stream `id` now: every event
 * recorded on another stream has completed. Completed events are dropped.
 * Never blocks. */
bool mri_waits_ready_for(mri_stream_waits *waits, mri_stream_id id);

/* True if every recorded event has completed (the memory is idle for every
 * stream and may go back upstream). Never blocks. */
bool mri_waits_ready_all(mri_stream_waits *waits);

/* Block until every recorded event has completed (for destruction; errors,
 * such as a driver already shut down at exit, are ignored: then no work can
 * use the memory any more). */
void mri_waits_wait_all(mri_stream_waits *waits);

/* Forget the pending events (the memory changed hands on a stream that may
 * use it); the event objects are kept for reuse. */
static inline void mri_waits_clear(mri_stream_waits *waits) { waits->count = 0; }

/* Destroy the events and free the list. */
void mri_waits_fini(mri_stream_waits *waits);

/* ---- address ranges ---------------------------------------------------------
 * A sorted array of [base, base + size) ranges (chunks, slabs) with an owner
 * each, for finding the range a pointer belongs to in O(log n). */

typedef struct mri_range {
  uintptr_t base;
  size_t size;
  void *owner;
} mri_range;

typedef struct mri_range_index {
  mri_range *items;
  size_t count, capacity;
} mri_range_index;

/* Make room for `capacity` ranges, so inserts up to that cannot fail.
 * MR_ERR_OUT_OF_MEMORY (message set) if the index cannot grow. */
mr_status mri_range_reserve(mri_range_index *index, size_t capacity);
/* MR_ERR_OUT_OF_MEMORY (message set) if the index cannot grow. */
mr_status mri_range_insert(mri_range_index *index, uintptr_t base, size_t size, void *owner);
/* Remove the range starting at `base` (no-op if none). */
void mri_range_remove(mri_range_index *index, uintptr_t base);
/* The owner of the range that contains `ptr`, or NULL. */
void *mri_range_find(const mri_range_index *index, const void *ptr);
void mri_range_fini(mri_range_index *index);

/* ---- pass-through allocations ------------------------------------------------
 * Requests too large to keep go straight upstream; they are remembered
 * (pointer -> bytes, alignment) so a free is routed back and so
 * destruction can return any left outstanding. */

/* Allocate upstream and remember it. `what` names the adaptor in messages. */
mr_status mri_passthrough_allocate(mri_ptrmap *map, pthread_mutex_t *lock, mr_resource *upstream,
                                   const char *what, size_t bytes, size_t alignment,
                                   mr_stream stream, void **ptr);
/* Free a remembered pass-through allocation upstream. A pointer that is
 * not one is MR_ERR_INVALID_ARGUMENT ("not allocated here"), as is a size
 * that does not match (the record then stays). */
mr_status mri_passthrough_deallocate(mri_ptrmap *map, pthread_mutex_t *lock, mr_resource *upstream,
                                     const char *what, void *ptr, size_t bytes, mr_stream stream);
/* Return every remembered allocation upstream, on the legacy stream
 * (destruction: the caller should have freed them all). */
void mri_passthrough_release_all(mri_ptrmap *map, mr_resource *upstream);

/* True if reuse of memory from `props` must follow streams: the upstream
 * orders frees by stream, or device work may touch the memory. Pageable
 * host memory (no device access, not stream-ordered) is reused at once. */
static inline bool mri_reuse_follows_streams(const mr_resource_props *props) {
  return props->stream_ordered || props->device_accessible;
}

/* The key under which an adaptor that keeps memory (arena, fixed) files
 * memory used on `stream`: the stream's ID when reuse follows streams
 * (`ordered`), else 0 (one key: pageable host memory is reused anywhere).
 * For an allocation (`capturing` not NULL) also whether the stream is
 * capturing a graph: such an allocation must not get reusable memory (the
 * graph may run long after the adaptor handed it out again), so it goes
 * straight upstream (graph allocation nodes in the driver pools) as a
 * pass-through allocation, whose free goes back upstream too. `device` is
 * the upstream's (see mri_stream_query); `what` names the adaptor in
 * messages. */
mr_status mri_reuse_key(bool ordered, int device, mr_stream stream, const char *what,
                        mri_stream_id *key, bool *capturing);

#endif

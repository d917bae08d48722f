/*
 * reuse.c: stream-ordered reuse, range index and pass-through allocations
 * for the adaptors that keep memory (arena, fixed).
 */
#include <stdlib.h>
#include <string.h>

#include "adaptors/reuse.h"

/* ---- stream-ordered reuse ------------------------------------------------- */

static mri_stream_wait *find_wait(mri_stream_waits *waits, mri_stream_id id) {
  for (uint32_t i = 0; i < waits->count; i++)
    if (waits->items[i].id == id) return &waits->items[i];
  return NULL;
}

static void drop_wait(mri_stream_waits *waits, uint32_t i) {
  /* Swap with the last pending entry, keeping its event object as a spare. */
  mri_stream_wait done = waits->items[i];
  waits->items[i] = waits->items[--waits->count];
  waits->items[waits->count] = done;
}

/* Record `stream`'s event in a spare slot (or the stream's own slot). */
static mr_status record_wait(mri_stream_wait *slot, mr_stream stream, mri_stream_id id,
                             int device) {
  if (slot->event == NULL) {
    /* An event is created in the calling thread's context; a thread that
     * has none gets `device`'s primary context (device 0's for -1). */
    mr_status st = mri_ensure_context(device);
    if (st == MR_OK) st = mri_event_create(&slot->event);
    if (st != MR_OK) return st;
  }
  slot->id = id;
  return mri_event_record(slot->event, stream);
}

mr_status mri_waits_note_free(mri_stream_waits *waits, mr_stream stream, mri_stream_id id,
                              int device) {
  mri_stream_wait *slot = find_wait(waits, id);
  mr_status st = MR_ERR_OUT_OF_MEMORY;
  if (slot != NULL) {
    st = record_wait(slot, stream, id, device);
  } else {
    if (waits->count == waits->capacity) {
      uint32_t capacity = waits->capacity ? waits->capacity * 2 : 2;
      mri_stream_wait *items = mri_host_realloc(waits->items, capacity * sizeof *items);
      if (items != NULL) {
        memset(items + waits->capacity, 0, (capacity - waits->capacity) * sizeof *items);
        waits->items = items;
        waits->capacity = capacity;
      }
    }
    if (waits->count < waits->capacity) {
      st = record_wait(&waits->items[waits->count], stream, id, device);
      if (st == MR_OK) waits->count++;
    }
  }
  if (st == MR_OK) return MR_OK;
  /* No event: make the free complete instead. Rare (a driver error, a
   * thread whose context does not own the stream), and correct. */
  mr_status sync = mri_stream_synchronize(stream);
  if (sync != MR_OK)
    return mri_error_prefix(sync, "cannot order reuse after a free on stream %p", (void *)stream);
  if (slot != NULL) drop_wait(waits, (uint32_t)(slot - waits->items));
  return MR_OK;
}

static bool ready_except(mri_stream_waits *waits, bool any_stream, mri_stream_id id) {
  for (uint32_t i = 0; i < waits->count;) {
    mri_stream_wait *w = &waits->items[i];
    if (!any_stream && w->id == id) {
      i++;
      continue;
    }
    bool done = false;
    /* A failed query counts as not done: the memory is not handed out. */
    if (mri_event_query(w->event, &done) != MR_OK || !done) return false;
    drop_wait(waits, i);
  }
  return true;
}

bool mri_waits_ready_for(mri_stream_waits *waits, mri_stream_id id) {
  return waits->count == 0 || ready_except(waits, false, id);
}

bool mri_waits_ready_all(mri_stream_waits *waits) {
  return waits->count == 0 || ready_except(waits, true, 0);
}

void mri_waits_wait_all(mri_stream_waits *waits) {
  for (uint32_t i = 0; i < waits->count; i++) mri_event_synchronize(waits->items[i].event);
  waits->count = 0;
}

void mri_waits_fini(mri_stream_waits *waits) {
  for (uint32_t i = 0; i < waits->capacity; i++)
    if (waits->items[i].event != NULL) mri_event_destroy(waits->items[i].event);
  free(waits->items);
  waits->items = NULL;
  waits->count = waits->capacity = 0;
}

/* ---- address ranges -------------------------------------------------------- */

/* Index of the first range whose base is greater than `key`. */
static size_t upper_bound(const mri_range_index *index, uintptr_t key) {
  size_t lo = 0, hi = index->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (index->items[mid].base <= key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

mr_status mri_range_reserve(mri_range_index *index, size_t capacity) {
  if (capacity <= index->capacity) return MR_OK;
  if (capacity < index->capacity * 2) capacity = index->capacity * 2;
  if (capacity < 8) capacity = 8;
  mri_range *items = mri_host_realloc(index->items, capacity * sizeof *items);
  if (items == NULL)
    return mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory indexing %zu ranges of memory",
                     capacity);
  index->items = items;
  index->capacity = capacity;
  return MR_OK;
}

mr_status mri_range_insert(mri_range_index *index, uintptr_t base, size_t size, void *owner) {
  mr_status st = mri_range_reserve(index, index->count + 1);
  if (st != MR_OK) return st;
  size_t at = upper_bound(index, base);
  memmove(&index->items[at + 1], &index->items[at], (index->count - at) * sizeof *index->items);
  index->items[at] = (mri_range){base, size, owner};
  index->count++;
  return MR_OK;
}

void mri_range_remove(mri_range_index *index, uintptr_t base) {
  size_t at = upper_bound(index, base);
  if (at == 0 || index->items[at - 1].base != base) return;
  at--;
  memmove(&index->items[at], &index->items[at + 1], (index->count - at - 1) * sizeof *index->items);
  index->count--;
}

void *mri_range_find(const mri_range_index *index, const void *ptr) {
  uintptr_t p = (uintptr_t)ptr;
  size_t at = upper_bound(index, p);
  if (at == 0) return NULL;
  const mri_range *r = &index->items[at - 1];
  return p - r->base < r->size ? r->owner : NULL;
}

void mri_range_fini(mri_range_index *index) {
  free(index->items);
  index->items = NULL;
  index->count = index->capacity = 0;
}

/* ---- pass-through allocations --------------------------------------------- */

mr_status mri_passthrough_allocate(mri_ptrmap *map, pthread_mutex_t *lock, mr_resource *upstream,
                                   const char *what, size_t bytes, size_t alignment,
                                   mr_stream stream, void **ptr) {
  void *p = NULL;
  mr_status st = mri_allocate(upstream, bytes, alignment, stream, &p);
  if (st != MR_OK) return mri_error_prefix(st, "%s: upstream allocation of %zu bytes", what, bytes);
  pthread_mutex_lock(lock);
  st = mri_ptrmap_put(map, p, (mri_ptrmap_value){.bytes = bytes, .alignment = alignment});
  pthread_mutex_unlock(lock);
  if (st != MR_OK) {
    mri_deallocate(upstream, p, bytes, alignment, stream);
    return mri_error(MR_ERR_OUT_OF_MEMORY, "%s: out of host memory recording a %zu-byte allocation",
                     what, bytes);
  }
  *ptr = p;
  return MR_OK;
}

mr_status mri_passthrough_deallocate(mri_ptrmap *map, pthread_mutex_t *lock, mr_resource *upstream,
                                     const char *what, void *ptr, size_t bytes, mr_stream stream) {
  mri_ptrmap_value v;
  pthread_mutex_lock(lock);
  bool found = mri_ptrmap_take(map, ptr, &v);
  if (found && v.bytes != bytes) {
    /* Put it back: the caller's size is wrong, the block is still live. The
     * slot just freed is reused, so this cannot fail. */
    mri_ptrmap_put(map, ptr, v);
    pthread_mutex_unlock(lock);
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: %p was allocated with %zu bytes, not the %zu being freed", what, ptr,
                     v.bytes, bytes);
  }
  pthread_mutex_unlock(lock);
  if (!found) return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: %p was not allocated here", what, ptr);
  mr_status st = mri_deallocate(upstream, ptr, bytes, v.alignment, stream);
  if (st != MR_OK) {
    pthread_mutex_lock(lock);
    mri_ptrmap_put(map, ptr, v);
    pthread_mutex_unlock(lock);
    return mri_error_prefix(st, "%s: upstream free of %p (%zu bytes)", what, ptr, bytes);
  }
  return MR_OK;
}

typedef struct release_ctx {
  mr_resource *upstream;
} release_ctx;

static void release_one(void *user, const void *key, const mri_ptrmap_value *value) {
  release_ctx *ctx = user;
  /* The allocating stream may be gone by now; the legacy stream is not. */
  mri_deallocate(ctx->upstream, (void *)key, value->bytes, value->alignment, NULL);
}

void mri_passthrough_release_all(mri_ptrmap *map, mr_resource *upstream) {
  release_ctx ctx = {upstream};
  mri_ptrmap_foreach(map, release_one, &ctx);
}

mr_status mri_reuse_key(bool ordered, int device, mr_stream stream, const char *what,
                        mri_stream_id *key, bool *capturing) {
  *key = 0;
  if (capturing != NULL) *capturing = false;
  if (!ordered) return MR_OK;
  mr_status st;
  if (capturing != NULL) {
    mri_stream_info info;
    st = mri_stream_query(stream, device, &info);
    *key = info.id;
    *capturing = info.capturing;
  } else {
    st = mri_stream_get_id(stream, device, key);
  }
  if (st != MR_OK) return mri_error_prefix(st, "%s", what);
  return MR_OK;
}

/*
 * arena.c: "arena(UP, chunk=SIZE)": bump allocation for temporaries.
 *
 * Allocations are carved, 256-byte aligned, from chunks taken from upstream.
 * Each stream bump-allocates from a chunk of its own (its current chunk),
 * so a chunk is only ever handed out in one stream's order. A chunk counts
 * its live allocations; once all are freed it is reused:
 *  - a current chunk whose allocations were all freed on its own stream
 *    starts again from its base at once;
 *  - any other chunk becomes idle, with an event recorded on each stream
 *    that freed into it; an idle chunk goes to a stream once every event
 *    on the other streams has completed. The allocation path queries
 *    events and never blocks; if no idle chunk is ready it takes a new one.
 * Events are recorded at the moment a stream is known to be alive: at a
 * free by a stream other than the chunk's own, at the free that leaves a
 * chunk empty, and on the chunk's stream when it stops being current (in
 * an allocation on that stream). Frees on a chunk's own stream in between
 * need none. Chunks go back upstream (trim, destroy) on the legacy stream
 * once their events completed, so a stream destroyed after its last free
 * is never named again.
 * Streams are told apart by their driver IDs: a destroyed stream's handle
 * comes back for the next stream created, whose work is not ordered after
 * the old one's. A stream that goes away leaves its current chunk behind;
 * once the arena has served more than one stream, the free that empties a
 * current chunk on its own stream records an event, so another stream can
 * take the empty chunk over once that event completed (a single-stream
 * arena records nothing: its stream's next work is ordered after the
 * frees). Trim gives back every empty chunk.
 * Over pageable host memory streams do not matter and no events are used.
 * Requests larger than a chunk go straight upstream (remembered, so the free
 * goes back there). Chunk headers live on the host: device memory cannot
 * hold them. One mutex guards the bookkeeping; it is not held across
 * upstream calls, so an upstream that calls back into this arena (an OOM
 * handler that frees) cannot deadlock.
 * For NVTX tools each chunk is a heap and each allocation a region in it
 * (core/nvtx.h).
 */
#include <stdlib.h>
#include <string.h>

#include "adaptors/adaptors_internal.h"
#include "core/ptrmap.h"
#include "adaptors/reuse.h"
#include "core/debug.h"
#include "core/nvtx.h"

#define ARENA_ALIGNMENT MR_DEFAULT_ALIGNMENT

typedef struct arena_chunk {
  uintptr_t base;
  size_t offset;       /* bytes carved so far */
  size_t live;         /* allocations not yet freed */
  mri_stream_id owner; /* the stream it carves for while current */
  bool current;
  bool empty_recorded; /* emptied by its owner, and an event covers that */
  mri_stream_waits waits;
} arena_chunk;

typedef struct arena_state {
  mr_resource *upstream;
  char *description;
  size_t chunk_size;
  bool ordered;            /* reuse follows streams (events) */
  int device;              /* for event contexts; -1: the thread's */
  bool several_streams;    /* chunks went to more than one stream so far */
  mri_stream_id first_key; /* the stream of the first chunk */
  pthread_mutex_t lock;
  mri_fork_lockable lock_fork; /* `lock` across fork() (core/fork.h) */
  mri_range_index chunks;      /* every chunk, by base */
  size_t releasing;            /* chunks out of the index while trim returns them */
  /* Current chunks (one per stream) and idle ones (live == 0, not current,
   * newest last). Both arrays have room for every chunk, so moving a chunk
   * between them cannot fail. */
  arena_chunk **current, **idle;
  size_t current_count, idle_count, slots;
  mri_ptrmap *large;       /* requests larger than a chunk */
  mri_size_check check;    /* MRCTX_DEBUG: the live allocations' sizes */
  mri_reclaimer reclaimer; /* the process-wide reclaim's (core/reclaim.h) */
} arena_state;
MRI_ADAPTOR_STATE(arena_state);

static void remove_at(arena_chunk **array, size_t *count, size_t i) { array[i] = array[--*count]; }

static arena_chunk *find_current(const arena_state *a, mri_stream_id key, size_t *at) {
  for (size_t i = 0; i < a->current_count; i++) {
    if (a->current[i]->owner == key) {
      if (at != NULL) *at = i;
      return a->current[i];
    }
  }
  return NULL;
}

static void drop_current(arena_state *a, arena_chunk *c) {
  for (size_t i = 0; i < a->current_count; i++) {
    if (a->current[i] == c) {
      remove_at(a->current, &a->current_count, i);
      break;
    }
  }
  c->current = false;
}

static void drop_idle(arena_state *a, arena_chunk *c) {
  for (size_t i = 0; i < a->idle_count; i++) {
    if (a->idle[i] == c) {
      remove_at(a->idle, &a->idle_count, i);
      break;
    }
  }
}

/* The stream's current chunk is full: it stops being current. Its stream
 * records an event, so other streams can tell when the stream got past
 * everything it did with the chunk (the upstream allocation included). */
static mr_status retire(arena_state *a, arena_chunk *c, mr_stream stream) {
  if (a->ordered) {
    mr_status st = mri_waits_note_free(&c->waits, stream, c->owner, a->device);
    if (st != MR_OK) return mri_error_prefix(st, "%s", a->description);
  }
  drop_current(a, c);
  if (c->live == 0) a->idle[a->idle_count++] = c;
  return MR_OK;
}

static void note_stream(arena_state *a, mri_stream_id key) {
  if (a->chunks.count == 0 && !a->several_streams)
    a->first_key = key;
  else if (key != a->first_key)
    a->several_streams = true;
}

static void make_current(arena_state *a, arena_chunk *c, mri_stream_id key) {
  mri_waits_clear(&c->waits);
  c->offset = 0;
  c->owner = key;
  c->current = true;
  c->empty_recorded = false;
  a->current[a->current_count++] = c;
}

/* An idle chunk that work on `key` may use now, newest first. */
static arena_chunk *take_idle(arena_state *a, mri_stream_id key) {
  for (size_t i = a->idle_count; i-- > 0;) {
    arena_chunk *c = a->idle[i];
    if (!a->ordered || mri_waits_ready_for(&c->waits, key)) {
      remove_at(a->idle, &a->idle_count, i);
      return c;
    }
  }
  return NULL;
}

/* Another stream's empty current chunk that work on `key` may use now: its
 * owner emptied it and the event recorded then completed (the owner may be
 * gone; if not, it takes another chunk next time). */
static arena_chunk *take_abandoned(arena_state *a, mri_stream_id key) {
  for (size_t i = 0; i < a->current_count; i++) {
    arena_chunk *c = a->current[i];
    if (c->owner == key || c->live != 0 || !c->empty_recorded) continue;
    if (!mri_waits_ready_for(&c->waits, key)) continue;
    remove_at(a->current, &a->current_count, i);
    c->current = false;
    return c;
  }
  return NULL;
}

/* Register a new chunk (the lock held). Fails only for host memory. */
static mr_status add_chunk(arena_state *a, arena_chunk *c) {
  size_t count = a->chunks.count + a->releasing + 1;
  if (count > a->slots) {
    size_t slots = a->slots ? a->slots * 2 : 8;
    if (slots < count) slots = count;
    arena_chunk **current = mri_host_realloc(a->current, slots * sizeof *current);
    if (current == NULL) goto oom;
    a->current = current;
    arena_chunk **idle = mri_host_realloc(a->idle, slots * sizeof *idle);
    if (idle == NULL) goto oom;
    a->idle = idle;
    a->slots = slots;
  }
  if (mri_range_reserve(&a->chunks, count) != MR_OK) goto oom;
  return mri_range_insert(&a->chunks, c->base, a->chunk_size, c);
oom:
  return mri_error(MR_ERR_OUT_OF_MEMORY, "%s: out of host memory for chunk bookkeeping",
                   a->description);
}

/* `bytes` asked for, `need` of the chunk taken (rounded up). */
static void *carve(arena_chunk *c, size_t need, size_t bytes) {
  void *p = (void *)(c->base + c->offset);
  c->offset += need;
  c->live++;
  c->empty_recorded = false;
  mri_nvtx_region_add((void *)c->base, p, bytes);
  return p;
}

/* Take a new chunk from upstream on `stream` and carve `need` from it. */
static mr_status allocate_from_new_chunk(arena_state *a, size_t need, size_t bytes,
                                         mr_stream stream, mri_stream_id key, void **ptr) {
  arena_chunk *c = mri_calloc(1, sizeof *c);
  if (c == NULL) return mri_error_prefix(MR_ERR_OUT_OF_MEMORY, "%s", a->description);
  void *base = NULL;
  mr_status st = mri_allocate(a->upstream, a->chunk_size, ARENA_ALIGNMENT, stream, &base);
  if (st != MR_OK) {
    free(c);
    return mri_error_prefix(st, "%s: taking a new chunk from upstream", a->description);
  }
  c->base = (uintptr_t)base;
  mri_nvtx_heap_add(base, a->chunk_size, a->description);
  pthread_mutex_lock(&a->lock);
  note_stream(a, key);
  st = add_chunk(a, c);
  if (st != MR_OK) {
    pthread_mutex_unlock(&a->lock);
    mri_nvtx_heap_remove(base);
    mri_deallocate(a->upstream, base, a->chunk_size, ARENA_ALIGNMENT, stream);
    free(c);
    return st;
  }
  /* Another thread may have given the stream a current chunk meanwhile;
   * then this one serves just this request and turns idle when it is freed. */
  if (find_current(a, key, NULL) == NULL) {
    make_current(a, c, key);
  } else {
    c->owner = key;
  }
  *ptr = carve(c, need, bytes);
  pthread_mutex_unlock(&a->lock);
  return MR_OK;
}

static mr_status carve_for(arena_state *a, size_t bytes, size_t alignment, mr_stream stream,
                           void **ptr) {
  if (bytes > a->chunk_size)
    return mri_passthrough_allocate(a->large, &a->lock, a->upstream, a->description, bytes,
                                    alignment, stream, ptr);
  mri_stream_id key;
  bool capturing;
  mr_status st = mri_reuse_key(a->ordered, a->device, stream, a->description, &key, &capturing);
  if (st != MR_OK) return st;
  if (capturing)
    return mri_passthrough_allocate(a->large, &a->lock, a->upstream, a->description, bytes,
                                    alignment, stream, ptr);
  /* chunk_size is a multiple of the alignment, so this cannot overflow. */
  size_t need = (size_t)mri_align_up(bytes, ARENA_ALIGNMENT);
  pthread_mutex_lock(&a->lock);
  arena_chunk *c = find_current(a, key, NULL);
  if (c != NULL && c->offset + need > a->chunk_size) {
    st = retire(a, c, stream);
    if (st != MR_OK) {
      pthread_mutex_unlock(&a->lock);
      return st;
    }
    c = NULL;
  }
  if (c == NULL) {
    note_stream(a, key);
    c = take_idle(a, key);
    if (c == NULL && a->ordered) c = take_abandoned(a, key);
    if (c != NULL) make_current(a, c, key);
  }
  if (c != NULL) {
    *ptr = carve(c, need, bytes);
    pthread_mutex_unlock(&a->lock);
    return MR_OK;
  }
  pthread_mutex_unlock(&a->lock);
  return allocate_from_new_chunk(a, need, bytes, stream, key, ptr);
}

static mr_status release_allocation(arena_state *a, void *ptr, size_t bytes, mr_stream stream) {
  pthread_mutex_lock(&a->lock);
  arena_chunk *c = mri_range_find(&a->chunks, ptr);
  if (c == NULL) {
    /* Too large for a chunk, or allocated during a capture (whose stream
     * may still be capturing: it must not be asked for its ID). */
    pthread_mutex_unlock(&a->lock);
    return mri_passthrough_deallocate(a->large, &a->lock, a->upstream, a->description, ptr, bytes,
                                      stream);
  }
  mri_stream_id key;
  mr_status st = mri_reuse_key(a->ordered, a->device, stream, a->description, &key, NULL);
  if (st != MR_OK) {
    pthread_mutex_unlock(&a->lock);
    return st;
  }
  size_t at = (uintptr_t)ptr - c->base;
  size_t need = bytes <= a->chunk_size ? (size_t)mri_align_up(bytes, ARENA_ALIGNMENT) : SIZE_MAX;
  if (c->live == 0 || at % ARENA_ALIGNMENT != 0 || at >= c->offset || need > c->offset - at) {
    pthread_mutex_unlock(&a->lock);
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: %p (%zu bytes) is not a live allocation of this arena (freed "
                     "twice, or freed with another size?)",
                     a->description, ptr, bytes);
  }
  bool own_stream = c->current && c->owner == key;
  if (a->ordered && !own_stream) {
    /* Record the free now, while the stream is known to be alive: a free
     * the chunk's own stream does not order. Frees by the owner into its
     * current chunk need none (the owner's next work is ordered after
     * them; trim and destroy synchronize the device before returning
     * such a chunk). */
    st = mri_waits_note_free(&c->waits, stream, key, a->device);
    if (st != MR_OK) {
      pthread_mutex_unlock(&a->lock);
      return mri_error_prefix(st, "%s: freeing %p", a->description, ptr);
    }
  }
  mri_nvtx_region_remove(ptr);
  if (--c->live == 0) {
    if (!c->current) {
      a->idle[a->idle_count++] = c;
    } else if (!a->ordered || mri_waits_ready_for(&c->waits, c->owner)) {
      c->offset = 0; /* every free is ordered before the owner's next work */
      /* With other streams about, the owner may not come back: an event
       * lets them take the chunk over (no event: it waits for a trim). */
      if (a->ordered && own_stream && a->several_streams)
        c->empty_recorded = mri_waits_note_free(&c->waits, stream, key, a->device) == MR_OK;
    }
  }
  pthread_mutex_unlock(&a->lock);
  return MR_OK;
}

/* With MRCTX_DEBUG a free must match its allocation exactly
 * (core/debug.h); without, a size that fits what was carved there passes. */
static mr_status arena_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                void **ptr) {
  arena_state *a = self;
  mr_status st = carve_for(a, bytes, alignment, stream, ptr);
  if (MRI_UNLIKELY(st == MR_OK &&
                   mri_size_check_note(&a->check, *ptr, bytes, alignment) != MR_OK)) {
    if (release_allocation(a, *ptr, bytes, stream) != MR_OK) {
    }
    *ptr = NULL;
    return mri_size_check_note_failed(a->description, bytes);
  }
  return st;
}

static mr_status arena_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                  mr_stream stream) {
  arena_state *a = self;
  mr_status st = mri_size_check_take(&a->check, a->description, ptr, bytes, alignment);
  if (MRI_UNLIKELY(st != MR_OK)) return st;
  st = release_allocation(a, ptr, bytes, stream);
  if (MRI_UNLIKELY(st != MR_OK)) mri_size_check_restore(&a->check, ptr, bytes, alignment);
  return st;
}

/* Pick the chunks no stream can still be using (the lock held): those with
 * nothing live whose events (one per stream that freed into them, the
 * last free included) have all completed. Upstream gets them on the legacy
 * stream: the streams that used them may be gone by now. They leave the
 * bookkeeping; their room in it stays reserved (releasing) until they are
 * gone. */
/* `waited`: the device was synchronized after every free so far. Without
 * it, a chunk still current for its stream is left: its owner's frees
 * record no event (nothing says they are past) unless other streams use
 * the arena and an event covers its emptying. */
static size_t collect_unused_chunks(arena_state *a, arena_chunk **out, size_t most, bool waited) {
  size_t n = 0;
  for (size_t i = 0; i < a->chunks.count && n < most; i++) {
    arena_chunk *c = a->chunks.items[i].owner;
    if (a->ordered && !waited && c->current && !c->empty_recorded) continue;
    if (c->live == 0 && (!a->ordered || mri_waits_ready_all(&c->waits))) out[n++] = c;
  }
  for (size_t i = 0; i < n; i++) {
    if (out[i]->current)
      drop_current(a, out[i]);
    else
      drop_idle(a, out[i]);
    mri_range_remove(&a->chunks, out[i]->base);
  }
  a->releasing += n;
  return n;
}

/* Wait for the device(s), so every empty chunk is safe to give back even if
 * the streams that used it are gone; the lock is held, so no new use can
 * start meanwhile. */
static mr_status settle(arena_state *a) {
  if (!a->ordered) return MR_OK;
  mr_status st = mri_synchronize_devices(a->device);
  if (st != MR_OK) return mri_error_prefix(st, "%s: waiting for the device", a->description);
  for (size_t i = 0; i < a->chunks.count; i++) {
    arena_chunk *c = a->chunks.items[i].owner;
    if (c->live == 0) mri_waits_clear(&c->waits);
  }
  return MR_OK;
}

/* Give chunks nothing lives in back upstream, enough for `goal` bytes (0:
 * every one); *released gets their bytes. `wait`: after waiting for the
 * device; otherwise only chunks whose streams' work is known done (an
 * event query), for the decay, which never waits (core/decay.h). */
static mr_status arena_release(arena_state *a, size_t goal, bool wait, size_t *released) {
  *released = 0;
  pthread_mutex_lock(&a->lock);
  mr_status settled = wait ? settle(a) : MR_OK;
  if (settled != MR_OK) {
    pthread_mutex_unlock(&a->lock);
    return settled;
  }
  size_t chunk_count = a->chunks.count;
  size_t most = goal == 0 ? SIZE_MAX : goal / a->chunk_size + (goal % a->chunk_size != 0);
  arena_chunk **out = chunk_count ? mri_host_malloc(chunk_count * sizeof *out) : NULL;
  size_t n = out != NULL ? collect_unused_chunks(a, out, most, wait) : 0;
  pthread_mutex_unlock(&a->lock);
  if (chunk_count != 0 && out == NULL)
    return mri_error(MR_ERR_OUT_OF_MEMORY, "%s: trim: out of host memory", a->description);

  mr_status result = MR_OK;
  for (size_t i = 0; i < n; i++) {
    arena_chunk *c = out[i];
    mri_nvtx_heap_remove((void *)c->base);
    mr_status st = mri_deallocate(a->upstream, (void *)c->base, a->chunk_size, ARENA_ALIGNMENT,
                                  MRI_STREAM_PER_THREAD);
    pthread_mutex_lock(&a->lock);
    a->releasing--;
    if (st != MR_OK) {
      mri_nvtx_heap_add((void *)c->base, a->chunk_size, a->description);
      /* Upstream refused it: it is still ours, idle. Its room in the
       * bookkeeping was kept, so re-registering cannot fail. */
      if (result == MR_OK) result = mri_error_prefix(st, "%s: trim", a->description);
      mri_range_insert(&a->chunks, c->base, a->chunk_size, c);
      a->idle[a->idle_count++] = c;
      c = NULL;
    }
    pthread_mutex_unlock(&a->lock);
    if (c != NULL) {
      *released += a->chunk_size;
      mri_waits_fini(&c->waits);
      free(c);
    }
  }
  free(out);
  return result;
}

static mr_status arena_trim(void *self) {
  arena_state *a = self;
  size_t released;
  mr_status result = arena_release(a, 0, true, &released);
  mr_status st = mr_resource_trim(a->upstream);
  return result != MR_OK ? result : st;
}

/* The process-wide reclaim's way in: a trim not passed upstream. */
static mr_status arena_reclaim(void *obj, size_t goal, size_t *released) {
  (void)goal;
  return arena_release(obj, 0, true, released);
}

/* The decay's: `goal` bytes of chunks past their streams' work. */
static mr_status arena_decay(void *obj, size_t goal, size_t *released) {
  return arena_release(obj, goal, false, released);
}

/* Chunks nothing lives in. */
static size_t arena_idle(void *obj) {
  arena_state *a = obj;
  size_t unused = 0;
  pthread_mutex_lock(&a->lock);
  for (size_t i = 0; i < a->chunks.count; i++)
    unused += ((arena_chunk *)a->chunks.items[i].owner)->live == 0;
  pthread_mutex_unlock(&a->lock);
  return unused * a->chunk_size;
}

static void arena_destroy(void *self) {
  arena_state *a = self;
  mri_reclaimer_unregister(&a->reclaimer);
  settle(a); /* at process exit the driver may be gone: then so is the work */
  /* Every chunk goes back, in use or not (a caller should have freed all),
   * once the streams that freed into it got past the frees. */
  for (size_t i = 0; i < a->chunks.count; i++) {
    arena_chunk *c = a->chunks.items[i].owner;
    mri_waits_wait_all(&c->waits);
    mri_nvtx_heap_remove((void *)c->base);
    mri_deallocate(a->upstream, (void *)c->base, a->chunk_size, ARENA_ALIGNMENT, NULL);
    mri_waits_fini(&c->waits);
    free(c);
  }
  if (a->large != NULL) {
    mri_passthrough_release_all(a->large, a->upstream);
    mri_ptrmap_destroy(a->large);
  }
  mri_range_fini(&a->chunks);
  free(a->current);
  free(a->idle);
  mri_size_check_fini(&a->check);
  mri_fork_unregister(&a->lock_fork);
  pthread_mutex_destroy(&a->lock);
  mri_adaptor_free(a);
}

static const mr_resource_ops arena_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "arena",
    .allocate = arena_allocate,
    .deallocate = arena_deallocate,
    .synchronize = mri_forward_synchronize,
    .trim = arena_trim,
    .destroy = arena_destroy,
};

mr_status mr_arena_resource_create(mr_resource *upstream, size_t chunk, mr_resource **out) {
  mr_status st = mri_adaptor_check(&arena_ops, upstream, out);
  if (st != MR_OK) return st;
  if (chunk == 0) chunk = MR_ARENA_DEFAULT_CHUNK;
  /* Below 2^63 once rounded up, so the description parses back. */
  if (chunk > ((SIZE_MAX / 2) & ~(size_t)(ARENA_ALIGNMENT - 1)))
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "arena(%s): chunk size %zu is out of range (rounded up to a multiple of "
                     "%zu, it must stay below 2^63)",
                     mr_resource_describe(upstream), chunk, (size_t)ARENA_ALIGNMENT);
  size_t chunk_size = (size_t)mri_align_up(chunk, ARENA_ALIGNMENT);
  char size[32];
  mri_format_size(chunk_size, size, sizeof size);
  arena_state *a = mri_adaptor_alloc(sizeof *a, upstream, "arena(%s, chunk=%s)",
                                     mr_resource_describe(upstream), size);
  if (a == NULL) return MR_ERR_OUT_OF_MEMORY;
  a->chunk_size = chunk_size;
  a->ordered = mri_reuse_follows_streams(&upstream->props);
  a->device = upstream->props.device;
  pthread_mutex_init(&a->lock, NULL);
  mri_fork_register_mutex(&a->lock_fork, &a->lock, MRI_FORK_RANK_RESOURCE);
  mri_size_check_init(&a->check);
  a->large = mri_ptrmap_create();
  st = mri_adaptor_create(&arena_ops, a, MRI_ADAPTOR_KEEPS,
                          a->large != NULL ? MR_OK : MR_ERR_OUT_OF_MEMORY, out);
  if (st == MR_OK) {
    a->reclaimer = (mri_reclaimer){.release = arena_reclaim,
                                   .release_nowait = arena_decay,
                                   .idle = arena_idle,
                                   .obj = a,
                                   .device = mri_reclaim_device_of(&upstream->props),
                                   .what = a->description};
    mri_reclaimer_register(&a->reclaimer);
  }
  return st;
}

mr_status mri_arena_counts(const mr_resource *mr, size_t *chunks, size_t *idle, size_t *large) {
  arena_state *a = mr_resource_state(mr, &arena_ops);
  if (a == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s is not an arena", mr_resource_describe(mr));
  pthread_mutex_lock(&a->lock);
  size_t unused = 0;
  for (size_t i = 0; i < a->chunks.count; i++)
    unused += ((arena_chunk *)a->chunks.items[i].owner)->live == 0;
  *chunks = a->chunks.count;
  *idle = unused;
  *large = mri_ptrmap_count(a->large);
  pthread_mutex_unlock(&a->lock);
  return MR_OK;
}

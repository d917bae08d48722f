/*
 * fixed.c: "fixed(UP, block=SIZE, count=N)": fixed-size blocks, for pinned
 * staging buffers and as the size classes of bin(...).
 *
 * Blocks come in slabs of `count`, each slab one upstream allocation: the
 * first is taken at creation (synchronously, so its blocks are ready for
 * every stream), another each time every block is taken. Block addresses
 * are 256-byte aligned (the block size is rounded up to a multiple of 256).
 * A freed block is reused at once by work on the stream that freed it; by
 * another stream only after an event recorded at the free has completed
 * (the allocation path queries, never blocks, and grows a slab if no block
 * is ready). Blocks of a slab grown on stream S carry S's event likewise.
 * Over pageable host memory streams do not matter and no events are used.
 * Requests larger than a block go straight upstream. One mutex guards the
 * bookkeeping; upstream calls are made without it. For NVTX tools each
 * slab is a heap and each block handed out a region of the bytes asked for
 * (core/nvtx.h).
 */
#include <stdlib.h>
#include <string.h>

#include "adaptors/adaptors_internal.h"
#include "core/ptrmap.h"
#include "adaptors/reuse.h"
#include "core/debug.h"
#include "core/nvtx.h"

#define FIXED_ALIGNMENT MR_DEFAULT_ALIGNMENT

typedef struct fixed_slab fixed_slab;

typedef struct fixed_block {
  fixed_slab *slab;
  bool in_use;
  mri_stream_waits waits; /* the event of the last free */
} fixed_block;

struct fixed_slab {
  uintptr_t base;
  size_t free_count;
  bool releasing;
  mri_stream_waits ready; /* the slab's allocation on the stream it grew on */
  fixed_block blocks[];
};

typedef struct fixed_state {
  mr_resource *upstream;
  char *description;
  size_t block; /* block size and stride, a multiple of 256 */
  size_t count; /* blocks per slab */
  size_t slab_bytes;
  bool ordered;
  int device;
  pthread_mutex_t lock;
  mri_fork_lockable lock_fork; /* `lock` across fork() (core/fork.h) */
  mri_range_index slabs;
  size_t releasing; /* slabs out of the index while trim returns them */
  /* Free blocks, most recently freed last. Room for every block. */
  fixed_block **free_blocks;
  size_t free_count, free_capacity;
  mri_ptrmap *large;
  mri_size_check check;    /* MRCTX_DEBUG: the live blocks' sizes */
  mri_reclaimer reclaimer; /* the process-wide reclaim's (core/reclaim.h) */
} fixed_state;
MRI_ADAPTOR_STATE(fixed_state);

static void *block_address(const fixed_state *f, const fixed_block *b) {
  return (void *)(b->slab->base + (size_t)(b - b->slab->blocks) * f->block);
}

/* True if no event of another stream stands between `key` and the block. */
static bool cheap_ready(const mri_stream_waits *waits, mri_stream_id key) {
  for (uint32_t i = 0; i < waits->count; i++)
    if (waits->items[i].id != key) return false;
  return true;
}

static bool block_ready(fixed_block *b, mri_stream_id key, bool may_query) {
  if (!may_query) return cheap_ready(&b->slab->ready, key) && cheap_ready(&b->waits, key);
  return mri_waits_ready_for(&b->slab->ready, key) && mri_waits_ready_for(&b->waits, key);
}

/* A free block work on `key` may use now: first one that needs no driver
 * call, newest first; then one whose events have completed. */
static fixed_block *take_free(fixed_state *f, mri_stream_id key) {
  for (int pass = 0; pass < (f->ordered ? 2 : 1); pass++) {
    for (size_t i = f->free_count; i-- > 0;) {
      fixed_block *b = f->free_blocks[i];
      if (f->ordered && !block_ready(b, key, pass == 1)) continue;
      f->free_blocks[i] = f->free_blocks[--f->free_count];
      mri_waits_clear(&b->waits);
      b->in_use = true;
      b->slab->free_count--;
      return b;
    }
  }
  return NULL;
}

/* Make room for one more slab's blocks in the free list and the index.
 * After this, registering the slab cannot fail. */
static mr_status reserve_slab(fixed_state *f) {
  size_t slabs = f->slabs.count + f->releasing + 1;
  size_t needed = slabs * f->count;
  if (needed > f->free_capacity) {
    size_t capacity = f->free_capacity ? f->free_capacity * 2 : needed;
    if (capacity < needed) capacity = needed;
    fixed_block **blocks = mri_host_realloc(f->free_blocks, capacity * sizeof *blocks);
    if (blocks == NULL) goto oom;
    f->free_blocks = blocks;
    f->free_capacity = capacity;
  }
  if (mri_range_reserve(&f->slabs, slabs) != MR_OK) goto oom;
  return MR_OK;
oom:
  return mri_error(MR_ERR_OUT_OF_MEMORY, "%s: out of host memory for block bookkeeping",
                   f->description);
}

/* Index the slab and list its free blocks, lowest address on top (the lock
 * held, room reserved). */
static void register_slab(fixed_state *f, fixed_slab *s) {
  mri_range_insert(&f->slabs, s->base, f->slab_bytes, s);
  s->releasing = false;
  s->free_count = 0;
  for (size_t i = f->count; i-- > 0;) {
    if (s->blocks[i].in_use) continue;
    f->free_blocks[f->free_count++] = &s->blocks[i];
    s->free_count++;
  }
}

static fixed_slab *new_slab(fixed_state *f, void *base) {
  fixed_slab *s = mri_calloc(1, sizeof *s + f->count * sizeof(fixed_block));
  if (s == NULL) return NULL;
  s->base = (uintptr_t)base;
  for (size_t i = 0; i < f->count; i++) s->blocks[i].slab = s;
  return s;
}

static void free_slab(fixed_slab *s, size_t count) {
  for (size_t i = 0; i < count; i++) mri_waits_fini(&s->blocks[i].waits);
  mri_waits_fini(&s->ready);
  free(s);
}

/* Every block is taken: grow by a slab allocated on `stream`; its first
 * block serves this request of `bytes`. */
static mr_status grow(fixed_state *f, size_t bytes, mr_stream stream, mri_stream_id key,
                      void **ptr) {
  void *base = NULL;
  mr_status st = mri_allocate(f->upstream, f->slab_bytes, FIXED_ALIGNMENT, stream, &base);
  if (st != MR_OK)
    return mri_error_prefix(st, "%s: growing by %zu block%s", f->description, f->count,
                            f->count == 1 ? "" : "s");
  fixed_slab *s = new_slab(f, base);
  if (s == NULL) {
    st = mri_error_prefix(MR_ERR_OUT_OF_MEMORY, "%s", f->description);
    goto fail;
  }
  /* Other streams may use the new blocks once `stream` got past the
   * allocation. */
  if (f->ordered) {
    st = mri_waits_note_free(&s->ready, stream, key, f->device);
    if (st != MR_OK) {
      mri_error_prefix(st, "%s: growing", f->description);
      goto fail;
    }
  }
  pthread_mutex_lock(&f->lock);
  st = reserve_slab(f);
  if (st != MR_OK) {
    pthread_mutex_unlock(&f->lock);
    goto fail;
  }
  s->blocks[0].in_use = true;
  mri_nvtx_heap_add(base, f->slab_bytes, f->description);
  register_slab(f, s);
  pthread_mutex_unlock(&f->lock);
  mri_nvtx_region_add(base, base, bytes);
  *ptr = base;
  return MR_OK;
fail:
  if (s != NULL) free_slab(s, f->count);
  mri_deallocate(f->upstream, base, f->slab_bytes, FIXED_ALIGNMENT, stream);
  return st;
}

static mr_status take_block(fixed_state *f, size_t bytes, size_t alignment, mr_stream stream,
                            void **ptr) {
  if (bytes > f->block)
    return mri_passthrough_allocate(f->large, &f->lock, f->upstream, f->description, bytes,
                                    alignment, stream, ptr);
  mri_stream_id key;
  bool capturing;
  mr_status st = mri_reuse_key(f->ordered, f->device, stream, f->description, &key, &capturing);
  if (st != MR_OK) return st;
  if (capturing)
    return mri_passthrough_allocate(f->large, &f->lock, f->upstream, f->description, bytes,
                                    alignment, stream, ptr);
  pthread_mutex_lock(&f->lock);
  fixed_block *b = take_free(f, key);
  if (b != NULL) {
    *ptr = block_address(f, b);
    mri_nvtx_region_add((void *)b->slab->base, *ptr, bytes);
    pthread_mutex_unlock(&f->lock);
    return MR_OK;
  }
  pthread_mutex_unlock(&f->lock);
  return grow(f, bytes, stream, key, ptr);
}

static mr_status give_back(fixed_state *f, void *ptr, size_t bytes, mr_stream stream) {
  pthread_mutex_lock(&f->lock);
  fixed_slab *s = mri_range_find(&f->slabs, ptr);
  if (s == NULL) {
    /* Larger than a block, or allocated during a capture (whose stream may
     * still be capturing: it must not be asked for its ID). */
    pthread_mutex_unlock(&f->lock);
    return mri_passthrough_deallocate(f->large, &f->lock, f->upstream, f->description, ptr, bytes,
                                      stream);
  }
  mri_stream_id key;
  mr_status st = mri_reuse_key(f->ordered, f->device, stream, f->description, &key, NULL);
  if (st != MR_OK) {
    pthread_mutex_unlock(&f->lock);
    return st;
  }
  size_t at = (uintptr_t)ptr - s->base;
  fixed_block *b = &s->blocks[at / f->block];
  if (at % f->block != 0 || bytes > f->block || !b->in_use) {
    pthread_mutex_unlock(&f->lock);
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: %p (%zu bytes) is not a live block (freed twice, or freed with "
                     "another size?)",
                     f->description, ptr, bytes);
  }
  if (f->ordered) {
    st = mri_waits_note_free(&b->waits, stream, key, f->device);
    if (st != MR_OK) {
      pthread_mutex_unlock(&f->lock);
      return mri_error_prefix(st, "%s: freeing %p", f->description, ptr);
    }
  }
  mri_nvtx_region_remove(ptr);
  b->in_use = false;
  f->free_blocks[f->free_count++] = b;
  s->free_count++;
  pthread_mutex_unlock(&f->lock);
  return MR_OK;
}

/* With MRCTX_DEBUG a free must match its allocation exactly
 * (core/debug.h); without, any size up to the block is taken for a block. */
static mr_status fixed_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                void **ptr) {
  fixed_state *f = self;
  mr_status st = take_block(f, bytes, alignment, stream, ptr);
  if (MRI_UNLIKELY(st == MR_OK &&
                   mri_size_check_note(&f->check, *ptr, bytes, alignment) != MR_OK)) {
    if (give_back(f, *ptr, bytes, stream) != MR_OK) {
    }
    *ptr = NULL;
    return mri_size_check_note_failed(f->description, bytes);
  }
  return st;
}

static mr_status fixed_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                  mr_stream stream) {
  fixed_state *f = self;
  mr_status st = mri_size_check_take(&f->check, f->description, ptr, bytes, alignment);
  if (MRI_UNLIKELY(st != MR_OK)) return st;
  st = give_back(f, ptr, bytes, stream);
  if (MRI_UNLIKELY(st != MR_OK)) mri_size_check_restore(&f->check, ptr, bytes, alignment);
  return st;
}

/* Release every slab none of whose blocks is in use or awaited by a
 * stream (the lock held). OUT: the slabs, removed from the bookkeeping. */
static size_t collect_idle_slabs(fixed_state *f, fixed_slab **out, size_t most) {
  size_t n = 0;
  for (size_t i = 0; i < f->slabs.count && n < most; i++) {
    fixed_slab *s = f->slabs.items[i].owner;
    if (s->free_count != f->count) continue;
    bool ready = !f->ordered || mri_waits_ready_all(&s->ready);
    for (size_t j = 0; ready && j < f->count; j++) ready = mri_waits_ready_all(&s->blocks[j].waits);
    if (!ready) continue;
    s->releasing = true;
    out[n++] = s;
  }
  if (n == 0) return 0;
  size_t kept = 0;
  for (size_t i = 0; i < f->free_count; i++)
    if (!f->free_blocks[i]->slab->releasing) f->free_blocks[kept++] = f->free_blocks[i];
  f->free_count = kept;
  for (size_t i = 0; i < n; i++) mri_range_remove(&f->slabs, out[i]->base);
  f->releasing += n;
  return n;
}

/* Return idle slabs upstream (not passing the trim on), enough for `goal`
 * bytes (0: every one); *released (if not NULL) gets their bytes. */
static mr_status release_idle_slabs(fixed_state *f, size_t goal, size_t *released) {
  if (released != NULL) *released = 0;
  pthread_mutex_lock(&f->lock);
  size_t slab_count = f->slabs.count;
  size_t most = goal == 0 ? SIZE_MAX : goal / f->slab_bytes + (goal % f->slab_bytes != 0);
  fixed_slab **out = slab_count ? mri_host_malloc(slab_count * sizeof *out) : NULL;
  size_t n = out != NULL ? collect_idle_slabs(f, out, most) : 0;
  pthread_mutex_unlock(&f->lock);
  if (slab_count != 0 && out == NULL)
    return mri_error(MR_ERR_OUT_OF_MEMORY, "%s: trim: out of host memory", f->description);
  mr_status result = MR_OK;
  for (size_t i = 0; i < n; i++) {
    mri_nvtx_heap_remove((void *)out[i]->base);
    mr_status st = mri_deallocate(f->upstream, (void *)out[i]->base, f->slab_bytes, FIXED_ALIGNMENT,
                                  MRI_STREAM_PER_THREAD);
    if (st != MR_OK) {
      mri_nvtx_heap_add((void *)out[i]->base, f->slab_bytes, f->description);
      /* Still ours: put it back (its room was never given up). */
      if (result == MR_OK) result = mri_error_prefix(st, "%s: trim", f->description);
      pthread_mutex_lock(&f->lock);
      f->releasing--;
      register_slab(f, out[i]);
      pthread_mutex_unlock(&f->lock);
      continue;
    }
    free_slab(out[i], f->count);
    if (released != NULL) *released += f->slab_bytes;
    pthread_mutex_lock(&f->lock);
    f->releasing--;
    pthread_mutex_unlock(&f->lock);
  }
  free(out);
  return result;
}

static mr_status fixed_trim(void *self) {
  fixed_state *f = self;
  mr_status result = release_idle_slabs(f, 0, NULL);
  mr_status st = mr_resource_trim(f->upstream);
  return result != MR_OK ? result : st;
}

/* The process-wide reclaim's way in: the idle slabs, once the device got
 * past the work queued before their frees (a trim waits for nothing; a
 * reclaim waits, core/reclaim.h says why). */
static mr_status fixed_reclaim(void *obj, size_t goal, size_t *released) {
  fixed_state *f = obj;
  (void)goal;
  *released = 0;
  if (f->ordered) {
    mr_status st = mri_synchronize_devices(f->device);
    if (st != MR_OK) return mri_error_prefix(st, "%s: waiting for the device", f->description);
  }
  return release_idle_slabs(f, 0, released);
}

/* The decay's: `goal` bytes of idle slabs whose streams' work is known done
 * (an event query); it never waits for the device (core/decay.h). */
static mr_status fixed_decay(void *obj, size_t goal, size_t *released) {
  return release_idle_slabs(obj, goal, released);
}

/* Slabs none of whose blocks is taken. */
static size_t fixed_idle(void *obj) {
  fixed_state *f = obj;
  size_t idle = 0;
  pthread_mutex_lock(&f->lock);
  for (size_t i = 0; i < f->slabs.count; i++) {
    fixed_slab *s = f->slabs.items[i].owner;
    if (s->free_count == f->count) idle += f->slab_bytes;
  }
  pthread_mutex_unlock(&f->lock);
  return idle;
}

static void fixed_destroy(void *self) {
  fixed_state *f = self;
  mri_reclaimer_unregister(&f->reclaimer);
  for (size_t i = 0; i < f->slabs.count; i++) {
    fixed_slab *s = f->slabs.items[i].owner;
    mri_waits_wait_all(&s->ready);
    for (size_t j = 0; j < f->count; j++) mri_waits_wait_all(&s->blocks[j].waits);
    mri_nvtx_heap_remove((void *)s->base);
    mri_deallocate(f->upstream, (void *)s->base, f->slab_bytes, FIXED_ALIGNMENT, NULL);
    free_slab(s, f->count);
  }
  if (f->large != NULL) {
    mri_passthrough_release_all(f->large, f->upstream);
    mri_ptrmap_destroy(f->large);
  }
  mri_range_fini(&f->slabs);
  free(f->free_blocks);
  mri_size_check_fini(&f->check);
  mri_fork_unregister(&f->lock_fork);
  pthread_mutex_destroy(&f->lock);
  mri_adaptor_free(f);
}

static const mr_resource_ops fixed_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "fixed",
    .allocate = fixed_allocate,
    .deallocate = fixed_deallocate,
    .synchronize = mri_forward_synchronize,
    .trim = fixed_trim,
    .destroy = fixed_destroy,
};

/* The first slab, taken synchronously: its blocks are ready everywhere. */
static mr_status first_slab(fixed_state *f) {
  void *base = NULL;
  mr_status st = mr_allocate_sync(f->upstream, f->slab_bytes, FIXED_ALIGNMENT, &base);
  if (st != MR_OK) {
    char size[32];
    mri_format_size(f->slab_bytes, size, sizeof size);
    return mri_error_prefix(st, "%s: taking the first %zu block%s (%s) from upstream",
                            f->description, f->count, f->count == 1 ? "" : "s", size);
  }
  fixed_slab *s = new_slab(f, base);
  st = s != NULL ? reserve_slab(f) : MR_ERR_OUT_OF_MEMORY;
  if (st != MR_OK) {
    if (s != NULL) free_slab(s, f->count);
    /* The failure being reported is the bookkeeping's; a failed give-back
     * on the way out has nothing more to add. */
    if (mr_deallocate_sync(f->upstream, base, f->slab_bytes, FIXED_ALIGNMENT) != MR_OK) {
    }
    return mri_error_prefix(st, "%s", f->description);
  }
  mri_nvtx_heap_add(base, f->slab_bytes, f->description);
  register_slab(f, s);
  return MR_OK;
}

mr_status mr_fixed_resource_create(mr_resource *upstream, size_t block, size_t count,
                                   mr_resource **out) {
  mr_status st = mri_adaptor_check(&fixed_ops, upstream, out);
  if (st != MR_OK) return st;
  const char *up = mr_resource_describe(upstream);
  if (block == 0) block = MR_FIXED_DEFAULT_BLOCK;
  if (count == 0) count = MR_FIXED_DEFAULT_COUNT;
  /* Below 2^63 once rounded up, so the description parses back. */
  if (block > ((SIZE_MAX / 2) & ~(size_t)(FIXED_ALIGNMENT - 1)))
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "fixed(%s): block size %zu is out of range (rounded up to a multiple of "
                     "%zu, it must stay below 2^63)",
                     up, block, (size_t)FIXED_ALIGNMENT);
  size_t stride = (size_t)mri_align_up(block, FIXED_ALIGNMENT);
  if (count > SIZE_MAX / stride || count > UINT32_MAX)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "fixed(%s): count %zu is out of range (at most %zu blocks of %zu bytes "
                     "per slab)",
                     up, count, SIZE_MAX / stride < UINT32_MAX ? SIZE_MAX / stride : UINT32_MAX,
                     stride);
  char size[32];
  mri_format_size(stride, size, sizeof size);
  fixed_state *f =
      mri_adaptor_alloc(sizeof *f, upstream, "fixed(%s, block=%s, count=%zu)", up, size, count);
  if (f == NULL) return MR_ERR_OUT_OF_MEMORY;
  f->block = stride;
  f->count = count;
  f->slab_bytes = stride * count;
  f->ordered = mri_reuse_follows_streams(&upstream->props);
  f->device = upstream->props.device;
  pthread_mutex_init(&f->lock, NULL);
  mri_fork_register_mutex(&f->lock_fork, &f->lock, MRI_FORK_RANK_RESOURCE);
  mri_size_check_init(&f->check);
  f->large = mri_ptrmap_create();
  st = f->large == NULL ? MR_ERR_OUT_OF_MEMORY : MR_OK;
  /* Only described (mrctx resolve, core.h): no memory is taken. */
  bool build = !mri_describe_only();
  if (st == MR_OK && build) st = first_slab(f);
  st = mri_adaptor_create(&fixed_ops, f, MRI_ADAPTOR_KEEPS, st, out);
  if (st == MR_OK && build) {
    f->reclaimer = (mri_reclaimer){.release = fixed_reclaim,
                                   .release_nowait = fixed_decay,
                                   .idle = fixed_idle,
                                   .obj = f,
                                   .device = mri_reclaim_device_of(&upstream->props),
                                   .what = f->description};
    mri_reclaimer_register(&f->reclaimer);
  }
  return st;
}

mr_status mri_fixed_release_idle(mr_resource *mr) {
  fixed_state *f = mr_resource_state(mr, &fixed_ops);
  if (f == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s is not a fixed resource",
                     mr_resource_describe(mr));
  return release_idle_slabs(f, 0, NULL);
}

void mri_fixed_set_reclaim_group(mr_resource *mr, const void *group) {
  fixed_state *f = mr_resource_state(mr, &fixed_ops);
  if (f != NULL) mri_reclaimer_set_group(&f->reclaimer, group);
}

bool mri_fixed_owns(const mr_resource *mr, const void *ptr) {
  fixed_state *f = mr_resource_state(mr, &fixed_ops);
  if (f == NULL) return false;
  pthread_mutex_lock(&f->lock);
  mri_ptrmap_value unused;
  bool owns = mri_range_find(&f->slabs, ptr) != NULL || mri_ptrmap_get(f->large, ptr, &unused);
  pthread_mutex_unlock(&f->lock);
  return owns;
}

mr_status mri_fixed_counts(const mr_resource *mr, size_t *slabs, size_t *free_blocks,
                           size_t *large) {
  fixed_state *f = mr_resource_state(mr, &fixed_ops);
  if (f == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s is not a fixed resource",
                     mr_resource_describe(mr));
  pthread_mutex_lock(&f->lock);
  *slabs = f->slabs.count;
  *free_blocks = f->free_count;
  *large = mri_ptrmap_count(f->large);
  pthread_mutex_unlock(&f->lock);
  return MR_OK;
}

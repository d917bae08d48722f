/*
 * expandable.c: "expandable(page=SIZE, reserve=SIZE, ipc=none|fd)", device
 * memory over the driver's virtual memory management: what PyTorch's
 * expandable_segments does, as a resource any adaptor can sit on.
 *
 * Ranges. Each stream that allocates gets one reserved virtual address
 * range (cuMemAddressReserve, `reserve` bytes: by default the device's
 * total memory, so a range never runs out before the device does),
 * reserved at its first allocation. Blocks are cut from the range first-fit
 * at the lowest free address (256-byte granularity) from a sorted list of
 * free intervals that merges neighbours on free, so the used part of a
 * range stays low and compact. Physical memory backs only the pages
 * (`page` bytes, the driver's 2 MiB granularity by default) that a live
 * block touches: a page is created and mapped (cuMemCreate, cuMemMap,
 * cuMemSetAccess for the owning device) when the first block lands on it,
 * and counted by the live blocks on it. A cache over it -- cache(expandable)
 * -- gets segments that are neighbours in one range.
 *
 * Idle pages. A page whose last block is freed stays mapped (the next block
 * there costs no driver call). Idle pages go back (cuMemUnmap, cuMemRelease)
 * only on trim, on mr_release_idle and when any allocation of the process
 * runs out (the process-wide reclaim, core/reclaim.h), and only after the
 * stream's work on them is done: the free that leaves a page idle records
 * the range's event on its stream, and giving pages back waits for that
 * event (every earlier free on the range is on the same stream, so the last
 * event covers them all). A range with no live block and no mapped page
 * goes back whole (cuMemAddressFree).
 *
 * Stream order. A range belongs to one stream (by its driver ID, never its
 * handle): a block freed on it is reused at once by later work on that
 * stream, and never by another stream, which has its own range. A block
 * freed on another stream than its range's waits on the host for that
 * stream's work (an event) before it goes back: correct, and slow, so a
 * cache over expandable frees its segments on their own stream.
 *
 * Capture. An allocation on a stream capturing a graph comes from the
 * device's current driver pool (graph-safe, as the driver pools are), and
 * its free goes back there: mapping pages is not a stream operation a graph
 * can replay.
 *
 * Locks. One mutex per resource, held across the mapping calls; it is
 * never held while the process-wide reclaim runs (which takes it through
 * the reclaimer), so an allocation that runs out drops it, reclaims, and
 * tries once more.
 *
 * Costs. Three driver calls to map a page (about 10-30 us on an H200) and
 * two to give it back; none for a block that lands on mapped pages. Large
 * pages (page=20MiB, say) cut the calls for large blocks and waste up to a
 * page at the top of each range.
 *
 * IPC (ipc=fd). Pages are created shareable as POSIX file descriptors
 * (CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR); a block reaches another
 * process as the pages it touches (mr_ipc_pages_export / _import, at the
 * end of this file; docs/driver.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mrctx/ipc.h>

#include "driver/pool_resource.h"

#define BLOCK_GRANULE MR_DEFAULT_ALIGNMENT

typedef struct free_span {
  size_t offset, bytes;
} free_span;

typedef struct exp_range {
  mri_stream_id stream_id;
  bool large; /* the stream's range for blocks of large_page bytes or more */
  CUdeviceptr base;
  size_t page;                          /* its page: the resource's page or large_page */
  size_t size;                          /* reserved bytes: a multiple of the page */
  size_t pages;                         /* size / page */
  CUmemGenericAllocationHandle *handle; /* per page; 0: not mapped */
  uint32_t *live;                       /* live blocks on each page */
  free_span *free;                      /* sorted by offset, neighbours merged */
  size_t free_count, free_capacity;
  size_t live_blocks;
  size_t mapped_pages;
  size_t idle_pages; /* mapped, no live block on them */
  size_t idle_top;   /* no idle page at or above this index (recycle_page) */
  mri_event event;   /* recorded by the last free that left a page idle */
  bool event_pending;
  /* A free left a page idle and its event could not be recorded: no idle
   * page is known safe to move (recycle_page), and giving pages back waits
   * for the device. */
  bool uncovered;
  struct exp_range *next;
} exp_range;

typedef struct expandable_state {
  int device;
  size_t page;
  /* 0, or the page of blocks of at least this many bytes, in a range of
   * their own per stream (large_page=SIZE): fewer, larger physical
   * allocations to map and give back for large blocks, while small ones
   * keep small pages. */
  size_t large_page;
  size_t reserve; /* 0 until the first range: the device's total memory */
  mr_pool_handle handle_type;
  CUmemAllocationProp prop;
  pthread_mutex_t lock;
  mri_fork_lockable lock_fork;
  exp_range *ranges;
  long capture_blocks; /* blocks from the driver pool, allocated during a capture */
  /* Physical bytes mapped in every range, and the most at once since the
   * last reset (mr_expandable_resource_get_info). */
  size_t mapped_bytes, mapped_high;
  mri_reclaimer reclaimer;
} expandable_state;

/* ---- a range's free intervals ------------------------------------------------ */

static bool spans_reserve(exp_range *r, size_t count) {
  if (count <= r->free_capacity) return true;
  size_t capacity = r->free_capacity ? r->free_capacity * 2 : 16;
  free_span *grown = mri_host_realloc(r->free, capacity * sizeof *grown);
  if (grown == NULL) return false;
  r->free = grown;
  r->free_capacity = capacity;
  return true;
}

/* Cut `bytes` from the lowest free interval that holds them. */
static bool take_span(exp_range *r, size_t bytes, size_t *offset) {
  for (size_t i = 0; i < r->free_count; i++) {
    free_span *s = &r->free[i];
    if (s->bytes < bytes) continue;
    *offset = s->offset;
    s->offset += bytes;
    s->bytes -= bytes;
    if (s->bytes == 0) {
      memmove(s, s + 1, (r->free_count - i - 1) * sizeof *s);
      r->free_count--;
    }
    return true;
  }
  return false;
}

/* The index of the first free interval that starts after `offset`. */
static size_t span_after(const exp_range *r, size_t offset) {
  size_t lo = 0, hi = r->free_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (r->free[mid].offset <= offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Whether [offset, offset + bytes) overlaps a free interval (a double free
 * or a block that is not this size). */
static bool overlaps_free(const exp_range *r, size_t offset, size_t bytes) {
  size_t i = span_after(r, offset);
  if (i > 0 && r->free[i - 1].offset + r->free[i - 1].bytes > offset) return true;
  return i < r->free_count && r->free[i].offset < offset + bytes;
}

/* Put [offset, offset + bytes) back, merged with its neighbours. false only
 * if the list could not grow (the block then stays taken: leaked, never
 * handed out twice). */
static bool give_span(exp_range *r, size_t offset, size_t bytes) {
  size_t i = span_after(r, offset);
  bool left = i > 0 && r->free[i - 1].offset + r->free[i - 1].bytes == offset;
  bool right = i < r->free_count && offset + bytes == r->free[i].offset;
  if (left && right) {
    r->free[i - 1].bytes += bytes + r->free[i].bytes;
    memmove(&r->free[i], &r->free[i + 1], (r->free_count - i - 1) * sizeof *r->free);
    r->free_count--;
  } else if (left) {
    r->free[i - 1].bytes += bytes;
  } else if (right) {
    r->free[i].offset = offset;
    r->free[i].bytes += bytes;
  } else {
    if (!spans_reserve(r, r->free_count + 1)) return false;
    memmove(&r->free[i + 1], &r->free[i], (r->free_count - i) * sizeof *r->free);
    r->free[i] = (free_span){offset, bytes};
    r->free_count++;
  }
  return true;
}

/* ---- ranges and pages ---------------------------------------------------------- */

static void range_free(expandable_state *s, exp_range *r) {
  const mri_cuda_api *cu = mri_cuda();
  if (cu != NULL && r->base != 0) cu->cuMemAddressFree(r->base, r->size);
  if (r->event != NULL) mri_event_destroy(r->event);
  free(r->handle);
  free(r->live);
  free(r->free);
  free(r);
}

static mr_status range_new(expandable_state *s, mri_stream_id id, bool large, exp_range **out) {
  const mri_cuda_api *cu = mri_cuda();
  if (s->reserve == 0) {
    uint64_t total = 0;
    mr_status st = mri_device_total_memory(s->device, &total);
    if (st != MR_OK) return mri_error_prefix(st, "expandable (device %d)", s->device);
    size_t rounded;
    if (total > SIZE_MAX || !mri_round_up_checked((size_t)total, s->page, &rounded))
      return mri_error(MR_ERR_UNSUPPORTED, "expandable: device %d's memory does not fit size_t",
                       s->device);
    s->reserve = rounded;
  }
  size_t page = large ? s->large_page : s->page, size;
  if (!mri_round_up_checked(s->reserve, page, &size))
    return mri_error(MR_ERR_UNSUPPORTED, "expandable: %zu bytes in %zu-byte pages pass size_t",
                     s->reserve, page);
  exp_range *r = mri_host_calloc(1, sizeof *r);
  if (r == NULL) return mri_error(MR_ERR_OUT_OF_MEMORY, "expandable: no host memory for a range");
  r->stream_id = id;
  r->large = large;
  r->page = page;
  r->size = size;
  r->pages = size / page;
  r->handle = mri_host_calloc(r->pages, sizeof *r->handle);
  r->live = mri_host_calloc(r->pages, sizeof *r->live);
  if (r->handle == NULL || r->live == NULL || !spans_reserve(r, 1)) {
    range_free(s, r);
    return mri_error(MR_ERR_OUT_OF_MEMORY, "expandable: no host memory for a range's books");
  }
  r->free[0] = (free_span){0, r->size};
  r->free_count = 1;
  /* Aligned to the largest power of two the page is a multiple of: the
   * driver refuses an alignment that is not a power of two (page=20MiB),
   * and a mapping needs only the granule's, which divides it. */
  CUresult res = cu->cuMemAddressReserve(&r->base, r->size, page & (~page + 1), 0, 0);
  if (res != CUDA_SUCCESS) {
    r->base = 0;
    range_free(s, r);
    return mri_cuda_fail(res, "expandable: cuMemAddressReserve of %zu bytes (device %d)", size,
                         s->device);
  }
  r->next = s->ranges;
  s->ranges = r;
  *out = r;
  return MR_OK;
}

static exp_range *range_of_stream(const expandable_state *s, mri_stream_id id, bool large) {
  for (exp_range *r = s->ranges; r != NULL; r = r->next)
    if (r->stream_id == id && r->large == large) return r;
  return NULL;
}

static exp_range *range_of_ptr(const expandable_state *s, uintptr_t p) {
  for (exp_range *r = s->ranges; r != NULL; r = r->next)
    if (p >= (uintptr_t)r->base && p - (uintptr_t)r->base < r->size) return r;
  return NULL;
}

/* Map physical memory `h` at page `i` of `r` and grant the owning device
 * access; on failure nothing is mapped there (`h` stays the caller's). */
static CUresult map_handle(expandable_state *s, exp_range *r, size_t i,
                           CUmemGenericAllocationHandle h, const char **what) {
  const mri_cuda_api *cu = mri_cuda();
  CUdeviceptr at = r->base + (CUdeviceptr)(i * r->page);
  *what = "cuMemMap";
  CUresult res = cu->cuMemMap(at, r->page, 0, h, 0);
  if (res != CUDA_SUCCESS) return res;
  CUmemAccessDesc access = {
      .location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = s->device},
      .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
  };
  *what = "cuMemSetAccess";
  res = cu->cuMemSetAccess(at, r->page, &access, 1);
  if (res != CUDA_SUCCESS) cu->cuMemUnmap(at, r->page);
  return res;
}

/* Back page `i` of `r` with new physical memory the owning device may read
 * and write. On failure nothing of it is left. */
static CUresult map_page(expandable_state *s, exp_range *r, size_t i, const char **what) {
  const mri_cuda_api *cu = mri_cuda();
  CUmemGenericAllocationHandle h = 0;
  *what = "cuMemCreate";
  CUresult res = cu->cuMemCreate(&h, r->page, &s->prop, 0);
  if (res != CUDA_SUCCESS) return res;
  res = map_handle(s, r, i, h, what);
  if (res != CUDA_SUCCESS) {
    cu->cuMemRelease(h);
    return res;
  }
  r->handle[i] = h;
  r->mapped_pages++;
  r->idle_pages++; /* until the block that asked for it counts on it */
  if (i >= r->idle_top) r->idle_top = i + 1;
  s->mapped_bytes += r->page;
  if (s->mapped_bytes > s->mapped_high) s->mapped_high = s->mapped_bytes;
  return CUDA_SUCCESS;
}

/* An idle page's physical memory `h`, unmapped, goes back to the driver. */
static void release_idle_handle(expandable_state *s, exp_range *r, CUmemGenericAllocationHandle h) {
  mri_cuda()->cuMemRelease(h);
  r->mapped_pages--;
  r->idle_pages--;
  s->mapped_bytes -= r->page;
}

static CUresult unmap_page(expandable_state *s, exp_range *r, size_t i) {
  CUresult res = mri_cuda()->cuMemUnmap(r->base + (CUdeviceptr)(i * r->page), r->page);
  if (res == CUDA_SUCCESS || res == CUDA_ERROR_DEINITIALIZED) {
    release_idle_handle(s, r, r->handle[i]);
    r->handle[i] = 0;
    return CUDA_SUCCESS;
  }
  return res;
}

/* Back page `i` of `r` with the physical memory of one of its idle pages
 * (lock held), moved there (cuMemUnmap, cuMemMap, cuMemSetAccess: the
 * calls of a new page, cuMemCreate's replaced by cuMemUnmap), where the
 * stream's work on the idle pages is done: the event of the last free
 * that left a page idle completed (a query; it does not wait). A cache
 * over the range gives segments back and takes new ones at other
 * addresses (first fit, lowest first, leaves holes too small for them);
 * without this, every page the range ever touched would stay mapped until
 * a trim. The page moved is the highest idle one outside the block's own
 * pages, [first, last]: lower ones are where first fit lands next. False,
 * nothing changed, if none may move (the caller maps a new page); a
 * failure after the unmap gives that memory back to the driver. */
static bool recycle_page(expandable_state *s, exp_range *r, size_t i, size_t first, size_t last) {
  if (r->idle_pages == 0 || r->uncovered) return false;
  if (r->event_pending) {
    bool done = false;
    if (mri_event_query(r->event, &done) != MR_OK || !done) return false;
    r->event_pending = false;
  }
  /* From the highest page that may be idle down: none above j is, once j
   * is found, but the block's own, which it is about to use (a failure
   * puts idle_top back above them). */
  size_t j = r->idle_top;
  while (j-- > 0)
    if (r->handle[j] != 0 && r->live[j] == 0 && (j < first || j > last)) break;
  r->idle_top = j == SIZE_MAX ? 0 : j;
  if (j == SIZE_MAX) return false;
  const mri_cuda_api *cu = mri_cuda();
  CUmemGenericAllocationHandle h = r->handle[j];
  if (cu->cuMemUnmap(r->base + (CUdeviceptr)(j * r->page), r->page) != CUDA_SUCCESS) {
    r->idle_top = j + 1; /* still mapped, still idle */
    return false;
  }
  r->handle[j] = 0;
  const char *what = NULL;
  if (map_handle(s, r, i, h, &what) != CUDA_SUCCESS) {
    release_idle_handle(s, r, h);
    return false;
  }
  r->handle[i] = h; /* still mapped and idle, at its new place */
  return true;
}

/* Give back `r`'s idle pages (lock held), after the work of the frees that
 * left them idle; then the range itself if nothing is left on it. Stops
 * once `goal` bytes (0: all) went back. */
static mr_status range_release_idle(expandable_state *s, exp_range **link, size_t goal,
                                    size_t *released) {
  exp_range *r = *link;
  if (r->mapped_pages > 0 && r->uncovered) {
    /* An idle page's free has no event: wait for the whole device. */
    mr_status st = mri_device_synchronize(s->device);
    if (st != MR_OK)
      return mri_error_prefix(st, "expandable: waiting for the device's work before unmapping");
    r->uncovered = r->event_pending = false;
  } else if (r->mapped_pages > 0 && r->event_pending) {
    mr_status st = mri_event_synchronize(r->event);
    if (st != MR_OK)
      return mri_error_prefix(st, "expandable: waiting for a stream's frees before unmapping");
    r->event_pending = false;
  }
  for (size_t i = 0; i < r->pages && r->mapped_pages > 0; i++) {
    if (goal != 0 && *released >= goal) break;
    if (r->handle[i] == 0 || r->live[i] != 0) continue;
    CUresult res = unmap_page(s, r, i);
    if (res != CUDA_SUCCESS)
      return mri_cuda_fail(res, "expandable: cuMemUnmap of an idle page (device %d)", s->device);
    *released += r->page;
  }
  if (r->live_blocks == 0 && r->mapped_pages == 0) {
    *link = r->next;
    range_free(s, r);
  }
  return MR_OK;
}

static mr_status release_idle(expandable_state *s, size_t goal, size_t *released) {
  *released = 0;
  mr_status first = MR_OK;
  pthread_mutex_lock(&s->lock);
  for (exp_range **link = &s->ranges; *link != NULL;) {
    exp_range *r = *link;
    mr_status st = range_release_idle(s, link, goal, released);
    if (st != MR_OK && first == MR_OK) first = st;
    if (*link == r) link = &r->next; /* kept */
    if (goal != 0 && *released >= goal) break;
  }
  pthread_mutex_unlock(&s->lock);
  return first;
}

static size_t idle_bytes(expandable_state *s) {
  size_t idle = 0;
  pthread_mutex_lock(&s->lock);
  for (const exp_range *r = s->ranges; r != NULL; r = r->next) idle += r->idle_pages * r->page;
  pthread_mutex_unlock(&s->lock);
  return idle;
}

static mr_status reclaimer_release(void *obj, size_t goal, size_t *released) {
  return release_idle(obj, goal, released);
}

static size_t reclaimer_idle(void *obj) { return idle_bytes(obj); }

/* ---- allocation ------------------------------------------------------------------- */

/* Cut and back a block on `r` (lock held). *oom: the driver ran out. */
static mr_status range_allocate(expandable_state *s, exp_range *r, size_t asked, size_t bytes,
                                void **ptr, bool *oom) {
  size_t offset;
  /* Address space, not memory: the process-wide reclaim would not help. */
  if (!take_span(r, bytes, &offset))
    return mri_error(MR_ERR_OUT_OF_MEMORY,
                     "expandable: no %zu bytes free in the stream's reserved range of %zu bytes "
                     "(device %d; reserve=SIZE reserves more)",
                     asked, r->size, s->device);
  size_t first = offset / r->page, last = (offset + bytes - 1) / r->page;
  for (size_t i = first; i <= last; i++) {
    if (r->handle[i] != 0 || recycle_page(s, r, i, first, last)) continue;
    const char *what = NULL;
    CUresult res = map_page(s, r, i, &what);
    if (res != CUDA_SUCCESS) {
      /* Pages mapped for this block stay, idle, for the next one. */
      give_span(r, offset, bytes);
      if (last >= r->idle_top) r->idle_top = last + 1;
      *oom = res == CUDA_ERROR_OUT_OF_MEMORY;
      return mri_cuda_fail(res, "expandable: %s of a %zu-byte page for %zu bytes (device %d)", what,
                           r->page, asked, s->device);
    }
  }
  for (size_t i = first; i <= last; i++)
    if (r->live[i]++ == 0) r->idle_pages--;
  r->live_blocks++;
  *ptr = (void *)(uintptr_t)(r->base + (CUdeviceptr)offset);
  return MR_OK;
}

/* During a capture: from the device's current pool, as the graph needs. */
static mr_status capture_allocate(expandable_state *s, size_t bytes, mr_stream stream, void **ptr) {
  const mri_cuda_api *cu = mri_cuda();
  CUmemLocation where = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = s->device};
  CUmemoryPool pool = NULL;
  CUresult r = cu->cuMemGetMemPool(&pool, &where, CU_MEM_ALLOCATION_TYPE_PINNED);
  CUdeviceptr p = 0;
  if (r == CUDA_SUCCESS) r = cu->cuMemAllocFromPoolAsync(&p, bytes, pool, (CUstream)stream);
  if (r != CUDA_SUCCESS)
    return mri_cuda_fail(r, "expandable: %zu bytes during a capture, from device %d's pool", bytes,
                         s->device);
  pthread_mutex_lock(&s->lock);
  s->capture_blocks++;
  pthread_mutex_unlock(&s->lock);
  *ptr = (void *)(uintptr_t)p;
  return MR_OK;
}

static mr_status expandable_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                     void **ptr) {
  expandable_state *s = self;
  bool large = s->large_page != 0 && bytes >= s->large_page;
  size_t page = large ? s->large_page : s->page, rounded;
  if (!mri_round_up_checked(bytes, page, &rounded)) {
    char who[48];
    snprintf(who, sizeof who, "expandable (device %d)", s->device);
    return mri_size_overflow(who, bytes, page, "its pages");
  }
  rounded = (bytes + BLOCK_GRANULE - 1) & ~(BLOCK_GRANULE - 1);
  mri_stream_info info;
  mr_status st = mri_stream_query(stream, s->device, &info);
  if (st != MR_OK) return st;
  if (info.capturing) return capture_allocate(s, bytes, stream, ptr);
  mri_reclaim_result reclaimed = {0};
  for (;;) {
    bool oom = false;
    pthread_mutex_lock(&s->lock);
    exp_range *r = range_of_stream(s, info.id, large);
    st = r != NULL ? MR_OK : range_new(s, info.id, large, &r);
    if (st == MR_OK) st = range_allocate(s, r, bytes, rounded, ptr, &oom);
    uint64_t generation = mri_reclaim_generation();
    pthread_mutex_unlock(&s->lock);
    if (st == MR_OK) return MR_OK;
    *ptr = NULL;
    /* Out of memory: take idle memory back from the whole process (our own
     * idle pages in other streams' ranges too) and try again, each time a
     * stage further (core/reclaim.h) until none is left. */
    if (!oom || !mri_reclaim_after_oom(s->device, rounded, generation, &reclaimed))
      return oom ? mri_reclaim_explain(st, &reclaimed) : st;
  }
}

/* A block allocated during a capture, from the device's pool. */
static mr_status capture_deallocate(expandable_state *s, void *ptr, size_t bytes,
                                    mr_stream stream) {
  pthread_mutex_lock(&s->lock);
  bool captured = s->capture_blocks > 0;
  if (captured) s->capture_blocks--;
  pthread_mutex_unlock(&s->lock);
  if (!captured)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "expandable: %p (%zu bytes) was not allocated from this resource", ptr, bytes);
  CUresult res;
  const mri_cuda_api *cu = mri_cuda();
  MRI_CALL_ON_STREAM(stream, s->device, res,
                     cu->cuMemFreeAsync((CUdeviceptr)(uintptr_t)ptr, (CUstream)stream));
  if (res == CUDA_SUCCESS || res == CUDA_ERROR_DEINITIALIZED) return MR_OK;
  return mri_cuda_fail(res, "expandable: cuMemFreeAsync(%p) of a block allocated in a capture",
                       ptr);
}

/* Wait on the host for `stream`'s work so far. */
static mr_status wait_for_stream(expandable_state *s, mr_stream stream) {
  mri_event e = NULL;
  mr_status st = mri_ensure_context(s->device);
  if (st == MR_OK) st = mri_event_create(&e);
  if (st == MR_OK) st = mri_event_record(e, stream);
  if (st == MR_OK) st = mri_event_synchronize(e);
  if (e != NULL) mri_event_destroy(e);
  return st;
}

static mr_status expandable_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                       mr_stream stream) {
  expandable_state *s = self;
  uintptr_t p = (uintptr_t)ptr;
  size_t rounded = (bytes + BLOCK_GRANULE - 1) & ~(BLOCK_GRANULE - 1);
  pthread_mutex_lock(&s->lock);
  const exp_range *owner = range_of_ptr(s, p);
  mri_stream_id owner_id = owner != NULL ? owner->stream_id : 0;
  pthread_mutex_unlock(&s->lock);
  /* Not in a range: a block of a capture, whose stream may be capturing
   * still (its ID must not be asked then). */
  if (owner == NULL) return capture_deallocate(s, ptr, bytes, stream);

  mri_stream_id id = 0;
  mr_status st = mri_stream_get_id(stream, s->device, &id);
  if (st != MR_OK) return st;
  bool other_stream = id != owner_id && id != MRI_STREAM_ID_SHUT_DOWN;
  /* The range's stream may reuse the block at once: the freeing stream's
   * work on it must be done first. */
  if (other_stream && (st = wait_for_stream(s, stream)) != MR_OK)
    return mri_error_prefix(st, "expandable: freeing %p on another stream than its own", ptr);

  pthread_mutex_lock(&s->lock);
  exp_range *r = range_of_ptr(s, p);
  size_t offset = r != NULL ? p - (uintptr_t)r->base : 0;
  if (r == NULL || rounded == 0 || rounded > r->size - offset ||
      overlaps_free(r, offset, rounded)) {
    pthread_mutex_unlock(&s->lock);
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "expandable: %p (%zu bytes) is not a live block of this resource (freed "
                     "twice, or freed with another size)",
                     ptr, bytes);
  }
  if (!give_span(r, offset, rounded)) {
    pthread_mutex_unlock(&s->lock);
    return mri_error(MR_ERR_OUT_OF_MEMORY, "expandable: no host memory to free %p (kept)", ptr);
  }
  size_t first = offset / r->page, last = (offset + rounded - 1) / r->page;
  bool page_idle = false;
  for (size_t i = first; i <= last; i++)
    if (--r->live[i] == 0) {
      page_idle = true;
      r->idle_pages++;
      if (i >= r->idle_top) r->idle_top = i + 1;
    }
  r->live_blocks--;
  if (page_idle && !other_stream && id != MRI_STREAM_ID_SHUT_DOWN) {
    /* Unmapping waits for this: the stream's work on the idle pages.
     * Recording fails only when the driver does; the pages then wait for
     * the next free's event (or the destroy) to go back. */
    if ((r->event != NULL || mri_event_create(&r->event) == MR_OK) &&
        mri_event_record(r->event, stream) == MR_OK)
      r->event_pending = true;
    else
      r->uncovered = true;
  }
  pthread_mutex_unlock(&s->lock);
  return MR_OK;
}

static mr_status expandable_synchronize(void *self, mr_stream stream) {
  return mri_stream_synchronize(stream);
}

static mr_status expandable_trim(void *self) {
  size_t released = 0;
  return release_idle(self, 0, &released);
}

static void expandable_destroy(void *self) {
  expandable_state *s = self;
  mri_reclaimer_unregister(&s->reclaimer);
  mri_fork_unregister(&s->lock_fork);
  while (s->ranges != NULL) {
    exp_range *r = s->ranges;
    if (r->live_blocks > 0) {
      /* Blocks still live (a caller's bug): their pages stay mapped, and
       * the range reserved, for as long as the process runs. */
      s->ranges = r->next;
      continue;
    }
    size_t released = 0;
    if (range_release_idle(s, &s->ranges, 0, &released) != MR_OK || s->ranges == r) {
      s->ranges = r->next; /* could not unmap (driver gone): leave it */
    }
  }
  pthread_mutex_destroy(&s->lock);
  free(s);
}

static const mr_resource_ops expandable_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "expandable",
    .allocate = expandable_allocate,
    .deallocate = expandable_deallocate,
    .synchronize = expandable_synchronize,
    .trim = expandable_trim,
    .destroy = expandable_destroy,
};

/* ---- what it holds ---------------------------------------------------------------------- */

static mr_status expandable_of(const mr_resource *mr, const char *who, expandable_state **out) {
  *out = mr_resource_state(mr, &expandable_ops);
  if (*out == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: %s is not an expandable resource", who,
                     mr != NULL ? mr_resource_describe(mr) : "NULL");
  return MR_OK;
}

mr_status mr_expandable_resource_get_info(const mr_resource *mr, mr_expandable_info *info) {
  if (info == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_expandable_resource_get_info: info is NULL");
  expandable_state *s = NULL;
  mr_status st = expandable_of(mr, "mr_expandable_resource_get_info", &s);
  if (st != MR_OK) return st;
  mr_expandable_info full = {.size = sizeof full,
                             .device = s->device,
                             .page_size = s->page,
                             .large_page_size = s->large_page};
  pthread_mutex_lock(&s->lock);
  for (const exp_range *r = s->ranges; r != NULL; r = r->next) {
    full.ranges++;
    full.reserved_bytes += r->size;
    full.live_blocks += r->live_blocks;
    full.idle_bytes += r->idle_pages * r->page;
  }
  full.live_blocks += (uint64_t)s->capture_blocks;
  full.mapped_bytes = s->mapped_bytes;
  full.mapped_high = s->mapped_high;
  pthread_mutex_unlock(&s->lock);
  return MRI_STRUCT_WRITE(info, &full, mr_expandable_info, live_blocks,
                          "mr_expandable_resource_get_info");
}

mr_status mr_expandable_resource_reset_peak(const mr_resource *mr) {
  expandable_state *s = NULL;
  mr_status st = expandable_of(mr, "mr_expandable_resource_reset_peak", &s);
  if (st != MR_OK) return st;
  pthread_mutex_lock(&s->lock);
  s->mapped_high = s->mapped_bytes;
  pthread_mutex_unlock(&s->lock);
  return MR_OK;
}

/* ---- construction -------------------------------------------------------------------- */

static void describe(const mr_expandable_desc *d, size_t page, size_t large_page, char *buf,
                     size_t cap) {
  char size[32];
  int n = snprintf(buf, cap, "expandable");
  const char *sep = "(";
  if (page != MRI_DRIVER_GRANULARITY && n >= 0 && (size_t)n < cap) {
    mri_format_size(page, size, sizeof size);
    n += snprintf(buf + n, cap - (size_t)n, "%spage=%s", sep, size);
    sep = ", ";
  }
  if (large_page != 0 && n >= 0 && (size_t)n < cap) {
    mri_format_size(large_page, size, sizeof size);
    n += snprintf(buf + n, cap - (size_t)n, "%slarge_page=%s", sep, size);
    sep = ", ";
  }
  if (d->reserve_size != 0 && n >= 0 && (size_t)n < cap) {
    mri_format_size(d->reserve_size, size, sizeof size);
    n += snprintf(buf + n, cap - (size_t)n, "%sreserve=%s", sep, size);
    sep = ", ";
  }
  if (d->handle_type == MR_POOL_HANDLE_FD && n >= 0 && (size_t)n < cap) {
    n += snprintf(buf + n, cap - (size_t)n, "%sipc=fd", sep);
    sep = ", ";
  }
  if (sep[0] == ',' && n >= 0 && (size_t)n < cap) snprintf(buf + n, cap - (size_t)n, ")");
}

mr_status mr_expandable_resource_create(int device, const mr_expandable_desc *desc,
                                        mr_resource **out) {
  mr_expandable_desc given;
  mr_status st = mri_expandable_desc_read(desc, out, &given);
  if (st != MR_OK) return st;
  st = mri_check_device(device);
  if (st != MR_OK) return mri_error_prefix(st, "expandable");
  int vmm = 0;
  st = mri_device_attribute(device, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, &vmm);
  if (st != MR_OK) return mri_error_prefix(st, "expandable");
  if (!vmm)
    return mri_error(MR_ERR_UNSUPPORTED,
                     "expandable: device %d has no virtual memory management "
                     "(CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED is 0); use "
                     "device or pool(...) there",
                     device);
  if (given.handle_type == MR_POOL_HANDLE_FD) {
    int fd_ok = 0;
    st = mri_device_attribute(
        device, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, &fd_ok);
    if (st != MR_OK) return mri_error_prefix(st, "expandable(ipc=fd)");
    if (!fd_ok)
      return mri_error(MR_ERR_UNSUPPORTED,
                       "expandable(ipc=fd): device %d cannot share memory as POSIX file "
                       "descriptors",
                       device);
  }

  CUmemAllocationProp prop;
  memset(&prop, 0, sizeof prop);
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location = (CUmemLocation){.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = device};
  prop.requestedHandleTypes = given.handle_type == MR_POOL_HANDLE_FD
                                  ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
                                  : CU_MEM_HANDLE_TYPE_NONE;
  size_t granularity = 0;
  CUresult r = mri_cuda()->cuMemGetAllocationGranularity(&granularity, &prop,
                                                         CU_MEM_ALLOC_GRANULARITY_MINIMUM);
  if (r != CUDA_SUCCESS)
    return mri_cuda_fail(r, "expandable: cuMemGetAllocationGranularity (device %d)", device);
  if (granularity == 0 || !mri_is_pow2(granularity)) granularity = MRI_DRIVER_GRANULARITY;
  /* A page is a whole number of the driver's granules (page=3MiB is 4MiB
   * where the granule is 2MiB); the description says what it became. */
  size_t page = given.page_size != 0 ? (size_t)given.page_size : granularity;
  size_t reserve = 0, large_page = 0;
  if (!mri_round_up_checked(page, granularity, &page) ||
      (given.reserve_size != 0 &&
       !mri_round_up_checked((size_t)given.reserve_size, page, &reserve)) ||
      (given.large_page_size != 0 &&
       !mri_round_up_checked((size_t)given.large_page_size, granularity, &large_page)))
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "expandable: page=%llu, large_page=%llu or reserve=%llu is too large",
                     (unsigned long long)given.page_size, (unsigned long long)given.large_page_size,
                     (unsigned long long)given.reserve_size);
  if (large_page != 0 && large_page <= page) {
    char small[32], large[32];
    mri_format_size(page, small, sizeof small);
    mri_format_size(large_page, large, sizeof large);
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "expandable: large_page=%s is not larger than page=%s (granules of the "
                     "driver's %zu bytes): leave large_page out for one page size",
                     large, small, granularity);
  }
  given.reserve_size = reserve;
  char description[160];
  describe(&given, page, large_page, description, sizeof description);

  mr_resource_props props =
      mri_memory_kind_props(MR_MEMORY_DEVICE, device, true, MR_DEFAULT_ALIGNMENT);
  if (mri_describe_only()) return mri_described_resource_create(&props, description, NULL, out);

  expandable_state *s = mri_calloc(1, sizeof *s);
  if (s == NULL) return MR_ERR_OUT_OF_MEMORY;
  s->device = device;
  s->page = page;
  s->large_page = large_page;
  s->reserve = reserve;
  s->handle_type = given.handle_type;
  s->prop = prop;
  pthread_mutex_init(&s->lock, NULL);
  st = mri_resource_create(&expandable_ops, s, &props, NULL, description, out);
  if (st != MR_OK) {
    pthread_mutex_destroy(&s->lock);
    free(s);
    return st;
  }
  mri_fork_register_mutex(&s->lock_fork, &s->lock, MRI_FORK_RANK_RESOURCE);
  s->reclaimer = (mri_reclaimer){.release = reclaimer_release,
                                 .idle = reclaimer_idle,
                                 .obj = s,
                                 .device = device,
                                 .what = (*out)->description,
                                 .pool = true};
  mri_reclaimer_register(&s->reclaimer);
  return MR_OK;
}

/* ---- blocks shared with other processes (ipc=fd) ------------------------------------ */

/* Sharing a block shares the pages it touches: one descriptor per page
 * (cuMemExportToShareableHandle), and in the importer a reserved range of
 * as many pages, each imported, mapped and granted to the importer's
 * device, the block at its offset in the first page. The importer's
 * mappings keep the physical pages alive whatever the exporter does later
 * (the driver counts them), but the exporter must not free the block
 * before every importer closed it: a freed block's pages may serve the
 * exporter's next block. */

mr_status mr_ipc_pages_export(const mr_resource *mr, const void *ptr, size_t bytes,
                              mr_ipc_pages *out, int *fds, size_t fd_capacity) {
  if (out == NULL || fds == NULL || ptr == NULL || bytes == 0)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_pages_export: out, fds and ptr must not be NULL, bytes not 0");
  memset(out, 0, sizeof *out);
  expandable_state *s = mr != NULL ? mr_resource_state(mr, &expandable_ops) : NULL;
  if (s == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_ipc_pages_export: %s is not expandable(...)",
                     mr != NULL ? mr_resource_describe(mr) : "NULL");
  if (s->handle_type != MR_POOL_HANDLE_FD)
    return mri_error(MR_ERR_UNSUPPORTED,
                     "mr_ipc_pages_export: %s was made without ipc=fd: its pages cannot be "
                     "shared",
                     mr_resource_describe(mr));
  const mri_cuda_api *cu = mri_cuda();
  size_t rounded = (bytes + BLOCK_GRANULE - 1) & ~(BLOCK_GRANULE - 1);
  pthread_mutex_lock(&s->lock);
  exp_range *r = range_of_ptr(s, (uintptr_t)ptr);
  size_t offset = r != NULL ? (uintptr_t)ptr - (uintptr_t)r->base : 0;
  if (r == NULL || rounded < bytes || rounded > r->size - offset ||
      overlaps_free(r, offset, rounded)) {
    pthread_mutex_unlock(&s->lock);
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_pages_export: %p (%zu bytes) is not a live block of %s", ptr, bytes,
                     mr_resource_describe(mr));
  }
  size_t page = r->page;
  size_t first = offset / page, last = (offset + rounded - 1) / page;
  size_t count = last - first + 1;
  if (count > fd_capacity || count > UINT32_MAX) {
    pthread_mutex_unlock(&s->lock);
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_pages_export: %p (%zu bytes) spans %zu pages, room for %zu "
                     "descriptors was given",
                     ptr, bytes, count, fd_capacity);
  }
  CUresult res = CUDA_SUCCESS;
  size_t made = 0;
  for (; made < count && res == CUDA_SUCCESS; made++) {
    int fd = -1;
    res = cu->cuMemExportToShareableHandle(&fd, r->handle[first + made],
                                           CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    fds[made] = fd;
  }
  pthread_mutex_unlock(&s->lock);
  if (res != CUDA_SUCCESS) {
    for (size_t i = 0; i + 1 < made; i++) close(fds[i]);
    return mri_cuda_fail(res, "mr_ipc_pages_export: cuMemExportToShareableHandle of page %zu",
                         first + made - 1);
  }
  *out = (mr_ipc_pages){.magic = MR_IPC_MAGIC,
                        .version = 1,
                        .page_size = page,
                        .offset = offset - first * page,
                        .bytes = bytes,
                        .page_count = (uint32_t)count,
                        .exporter_device = s->device};
  return MR_OK;
}

/* Imports alive in this process, for mr_ipc_pages_close. */
typedef struct page_import {
  CUdeviceptr base;
  size_t size, page, pages, mapped;
  uintptr_t ptr;
  CUmemGenericAllocationHandle *handle;
  struct page_import *next;
} page_import;

static pthread_mutex_t imports_lock = PTHREAD_MUTEX_INITIALIZER;
static page_import *imports;
static mri_fork_lockable imports_fork;
static pthread_once_t imports_once = PTHREAD_ONCE_INIT;

static void imports_register_fork(void) {
  mri_fork_register_mutex(&imports_fork, &imports_lock, MRI_FORK_RANK_LEAF);
}

static void import_undo(page_import *im) {
  const mri_cuda_api *cu = mri_cuda();
  for (size_t i = 0; i < im->pages; i++) {
    if (i < im->mapped) cu->cuMemUnmap(im->base + (CUdeviceptr)(i * im->page), im->page);
    if (im->handle[i] != 0) cu->cuMemRelease(im->handle[i]);
  }
  if (im->base != 0) cu->cuMemAddressFree(im->base, im->size);
  free(im->handle);
  free(im);
}

mr_status mr_ipc_pages_import(int device, const mr_ipc_pages *pages, const int *fds, void **ptr) {
  if (ptr == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_ipc_pages_import: ptr is NULL");
  *ptr = NULL;
  if (pages == NULL || fds == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_pages_import: pages and fds must not be NULL");
  bool zero = true;
  for (size_t i = 0; i < sizeof pages->reserved; i++) zero = zero && pages->reserved[i] == 0;
  if (pages->magic != MR_IPC_MAGIC || pages->version != 1 || !zero || pages->page_size == 0 ||
      pages->page_size % MRI_DRIVER_GRANULARITY != 0 || pages->page_size > SIZE_MAX / 2 ||
      pages->page_count == 0 || pages->page_count > SIZE_MAX / pages->page_size ||
      pages->offset >= pages->page_size || pages->bytes == 0 ||
      pages->bytes > (uint64_t)pages->page_count * pages->page_size - pages->offset)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_pages_import: not a record from mr_ipc_pages_export (magic, version, "
                     "reserved bytes, page size %llu, %u pages, offset %llu and %llu bytes must "
                     "agree)",
                     (unsigned long long)pages->page_size, (unsigned)pages->page_count,
                     (unsigned long long)pages->offset, (unsigned long long)pages->bytes);
  mr_status st = mri_check_device(device);
  if (st != MR_OK) return mri_error_prefix(st, "mr_ipc_pages_import");
  const mri_cuda_api *cu = mri_cuda();
  page_import *im = mri_host_calloc(1, sizeof *im);
  if (im != NULL) im->handle = mri_host_calloc(pages->page_count, sizeof *im->handle);
  if (im == NULL || im->handle == NULL) {
    free(im);
    return mri_error(MR_ERR_OUT_OF_MEMORY, "mr_ipc_pages_import: no host memory for its books");
  }
  im->page = (size_t)pages->page_size;
  im->pages = pages->page_count;
  im->size = im->page * im->pages;
  CUresult res = cu->cuMemAddressReserve(&im->base, im->size, im->page, 0, 0);
  const char *what = "cuMemAddressReserve";
  CUmemAccessDesc access = {.location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = device},
                            .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  for (size_t i = 0; i < im->pages && res == CUDA_SUCCESS; i++) {
    what = "cuMemImportFromShareableHandle";
    res = cu->cuMemImportFromShareableHandle(&im->handle[i], (void *)(intptr_t)fds[i],
                                             CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    if (res != CUDA_SUCCESS) {
      im->handle[i] = 0;
      break;
    }
    what = "cuMemMap";
    res = cu->cuMemMap(im->base + (CUdeviceptr)(i * im->page), im->page, 0, im->handle[i], 0);
    if (res == CUDA_SUCCESS) im->mapped = i + 1;
  }
  if (res == CUDA_SUCCESS) {
    what = "cuMemSetAccess";
    res = cu->cuMemSetAccess(im->base, im->size, &access, 1);
  }
  if (res != CUDA_SUCCESS) {
    if (strcmp(what, "cuMemAddressReserve") == 0) im->base = 0;
    import_undo(im);
    return mri_cuda_fail(res, "mr_ipc_pages_import: %s (%u pages of %llu bytes, device %d)", what,
                         (unsigned)pages->page_count, (unsigned long long)pages->page_size, device);
  }
  im->ptr = (uintptr_t)im->base + (uintptr_t)pages->offset;
  pthread_once(&imports_once, imports_register_fork);
  pthread_mutex_lock(&imports_lock);
  im->next = imports;
  imports = im;
  pthread_mutex_unlock(&imports_lock);
  *ptr = (void *)im->ptr;
  return MR_OK;
}

mr_status mr_ipc_pages_close(void *ptr) {
  page_import *found = NULL;
  pthread_mutex_lock(&imports_lock);
  for (page_import **link = &imports; *link != NULL; link = &(*link)->next)
    if ((*link)->ptr == (uintptr_t)ptr && ptr != NULL) {
      found = *link;
      *link = found->next;
      break;
    }
  pthread_mutex_unlock(&imports_lock);
  if (found == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_pages_close: %p is not a block mr_ipc_pages_import mapped (or it was "
                     "closed already)",
                     ptr);
  import_undo(found);
  return MR_OK;
}

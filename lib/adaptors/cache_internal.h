/*
 * adaptors/cache_internal.h (internal): the second tier of cache(UP), the
 * per-stream heaps that cache.c's per-thread stacks sit on.
 *
 * A heap holds the memory one stream may reuse at once: segments taken from
 * the upstream, cut into blocks. An allocation takes the best-fitting free
 * block and splits off what it does not need; a free merges the block with
 * its free neighbours, so memory freed in one size serves requests of
 * another, and a segment whose blocks are all free (idle) can go back
 * upstream whole.
 *
 * Two pools per heap, as PyTorch's allocator keeps: small blocks (requests
 * up to CACHE_SMALL_MAX, in the cache's size classes) come from segments of
 * CACHE_SMALL_SEGMENT bytes, large blocks from segments sized for them, so
 * that small blocks never pin a large segment.
 *
 * None of this takes a lock: the caller holds the heap's.
 */
#ifndef MRCTX_LIB_ADAPTORS_CACHE_INTERNAL_H
#define MRCTX_LIB_ADAPTORS_CACHE_INTERNAL_H

#include <sched.h>

#include "adaptors/adaptors_internal.h"
#include "core/ptrmap.h"
#include "driver/driver_internal.h"

/* ---- a small lock ---------------------------------------------------------
 * For the heaps and the records: held for a few hundred nanoseconds at
 * most (an event record is the longest), so a waiter spins briefly, then
 * yields the CPU. Half the cost of a mutex when nobody waits. */
typedef struct cache_lock {
  _Atomic int held;
} cache_lock;

static inline void cache_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

void mri_cache_lock_wait(cache_lock *l);

static inline void cache_lock_take(cache_lock *l) {
  if (MRI_UNLIKELY(atomic_exchange_explicit(&l->held, 1, memory_order_acquire)))
    mri_cache_lock_wait(l);
}

static inline void cache_lock_give(cache_lock *l) {
  atomic_store_explicit(&l->held, 0, memory_order_release);
}

#define CACHE_ALIGNMENT ((size_t)MR_DEFAULT_ALIGNMENT)
#define CACHE_SMALL_MAX ((size_t)1 << 20)
#define CACHE_SMALL_SEGMENT ((size_t)2 << 20)
/* Large requests are cut at this granularity (PyTorch cuts at 512 B). */
#define CACHE_LARGE_ROUND ((size_t)512)

typedef struct cache_block cache_block;
typedef struct cache_segment cache_segment;
typedef struct cache_heap cache_heap;

typedef enum cache_block_state {
  BLOCK_FREE,    /* in its pool's free index */
  BLOCK_USED,    /* handed out (or held by a thread's stack in cache.c) */
  BLOCK_PENDING, /* freed on another stream than its heap's: waits on `wait` */
} cache_block_state;

/* Host-side record of a block of device (or host) memory. */
struct cache_block {
  uintptr_t addr;
  size_t size;                        /* bytes of the segment it covers */
  size_t asked;                       /* used: the carve size its allocation asked for */
  cache_block *prev, *next;           /* neighbours in the segment, by address */
  cache_block *link_prev, *link_next; /* free: its bucket's list; pending: the heap's */
  cache_segment *segment;
  uint32_t bucket;
  uint8_t state;
  /* Free or pending: when it was freed. `stamp` is the number of the
   * heap's event record that covers the free (0: never freed, safe);
   * `epoch` the cache's synchronization epoch at the free. */
  uint64_t stamp, epoch;
  struct cache_wait *wait; /* pending: the event recorded after the free, or NULL */
};

struct cache_segment {
  uintptr_t base;
  size_t size;
  cache_block *first; /* its blocks, by address; the one free block when idle */
  cache_heap *heap;
  cache_segment *prev, *next; /* the heap's segments */
  size_t used;                /* blocks not free (used or pending) */
  bool small;
  /* Set when the segment became idle (used fell to 0). */
  uint64_t idle_stamp, idle_epoch;
};

/* An event recorded on a stream after frees into other heaps' blocks,
 * shared by the pending blocks it covers. */
typedef struct cache_wait {
  mri_event event;
  _Atomic int refs;
  _Atomic bool done;
} cache_wait;

/* Free blocks by size: buckets of 16 per power of two, a bitmap of the
 * non-empty ones. A request looks for the best fit in its own bucket, then
 * takes from the next non-empty one (every block there fits). */
#define INDEX_MIN_SHIFT 8
#define INDEX_MAX_SHIFT 48
#define INDEX_SUB_SHIFT 4
#define INDEX_BUCKETS ((INDEX_MAX_SHIFT - INDEX_MIN_SHIFT) << INDEX_SUB_SHIFT)
#define INDEX_WORDS (INDEX_BUCKETS / 64)

typedef struct cache_index {
  cache_block *lists[INDEX_BUCKETS];
  uint64_t bitmap[INDEX_WORDS];
  size_t blocks;
} cache_index;

typedef struct cache_pool {
  cache_index index;
  size_t segment_bytes; /* held from upstream */
  size_t free_bytes;    /* in free blocks */
  size_t idle_bytes;    /* in idle segments */
  /* The least idle_bytes since the decay last looked (core/decay.h): kept
   * where an idle segment gets used, off the fast path. */
  size_t idle_low;
  size_t segments, idle_segments;
  /* The most bytes in use lately: the highest of this window of takes and
   * the one before (cache_pool_peak), what a pool about to grow compares
   * its segments with. */
  size_t high, high_before;
  uint32_t takes;
  /* The margin (cache_pool_limit): `widen` halvings of IDLE_SHARE; the
   * bytes grow() gave back to stay within it this window (`cycled`), and
   * the most segment_bytes held this window (`held_high`). */
  uint32_t widen;
  size_t cycled, held_high;
} cache_pool;

/* Takes per window of the recent peak: long enough to span a training
 * step's allocations, short enough to forget a phase that ended. */
#define CACHE_PEAK_WINDOW 16384

static inline size_t cache_pool_peak(const cache_pool *p) {
  return p->high > p->high_before ? p->high : p->high_before;
}

/* The margin a pool may grow past its recent peak in use before it gives
 * idle segments back (cache.c's grow): IDLE_SHARE-th of the peak, at
 * least IDLE_FLOOR. An eighth held mrctx bench's handoff at 1.13x of its
 * peak live over the fake driver, a sixteenth at 1.08x, with large (1.15x)
 * and the GPT trace (1.06x, 99.77% hits) unchanged; a 24th or 32nd took
 * the trace to 1.04x but its hits to 99.4%: every step then gave back and
 * took again.
 *
 * A pool that passes its whole recent peak through the upstream within
 * one window, giving idle segments back to stay within the margin and
 * growing new ones right after, doubles its margin (up to IDLE_WIDEN_MAX
 * times); a window whose most held would have fit the narrower margin
 * halves it again. Such a pool uses its segments one after another, not
 * at once: ResNet-50's training step asks for 147 MiB, then 153 MiB once
 * the first is free, then 294, 297 and 299 MiB, so the segment made for
 * each is idle, and a little too small, when the next comes. With a
 * sixteenth the cache gave back and grew 8 segments a step; the driver's
 * pool, which keeps what it is given back, reserved 7.5 GiB for the
 * cache's 6.15 GiB, more than PyTorch's 7.0. With the margin doubled:
 * 0.03 segments a step, the pool 6.97 GiB for the cache's 6.4 (an H100,
 * 2026-12-06). */
#define IDLE_SHARE 16
#define IDLE_FLOOR ((size_t)64 << 20)
#define IDLE_WIDEN_MAX 1

/* The most segment bytes a pool keeps before it gives idle ones back, with
 * its margin halved `widen` times. */
static inline size_t cache_pool_limit(const cache_pool *p, uint32_t widen) {
  size_t peak = cache_pool_peak(p);
  size_t margin = peak / (IDLE_SHARE >> widen);
  return peak + (margin > IDLE_FLOOR ? margin : IDLE_FLOOR);
}

/* Used blocks by address: an open-addressing table of 16-byte entries
 * (linear probing, backward-shift deletion), half full at most. The core's
 * mri_ptrmap keeps a 32-byte record per entry; this is on the path of
 * every block that reaches a heap, so it keeps only the record's pointer. */
typedef struct cache_map_entry {
  uintptr_t addr; /* 0: empty */
  cache_block *block;
} cache_map_entry;

typedef struct cache_map {
  cache_map_entry *slots;
  size_t mask, count;
} cache_map;

/* Where heaps get records for blocks: one per cache, shared by its heaps
 * (a heap keeps a few spare ones of its own). Records come in batches that
 * live until the cache is destroyed. Its lock is the innermost. */
typedef struct cache_records {
  cache_lock lock;
  cache_block *free;
  void **batches;
  size_t batch_count, batch_capacity;
} cache_records;

struct cache_heap {
  cache_lock lock;
  mri_stream_id key; /* its stream's ID (0: the one heap of a host cache) */
  cache_pool small, large;
  cache_map blocks; /* every used block's record, by address */
  cache_segment *segments;
  cache_block *pending; /* freed here on other streams, not yet covered */
  size_t pending_bytes;
  _Atomic size_t *idle_total; /* the cache's count of idle segment bytes, or NULL */
  cache_records *records;
  cache_block *spare; /* records ready for new blocks */
  size_t spare_count;
  /* Coverage: `event` was last recorded on this heap's stream as record
   * number `records_made`; a free stamped n is safe for every stream once
   * record n completed (records_done >= n). */
  mri_event event;
  uint64_t records_made, records_done;
  uint32_t frees_since_record;
  uint64_t cover_gen; /* the cache's count of starved misses at its last record */
  /* Threads' stacks that point here (cache.c): a heap is freed only when
   * none do and it holds nothing. */
  int bins;
  /* cache.c's drain_own_stack, hints read and written without the lock:
   * the slot (index + 1; 0 none) that drained a stack here last, and how
   * many growths to leave undrained since two threads drained in turn. */
  _Atomic int drain_slot;
  _Atomic uint32_t drain_skip;
  cache_heap *table_next; /* cache.c's table of heaps */
};

/* ---- blocks and segments (cache_heap.c); heap locked ---------------------- */

/* The bytes a request of `bytes` takes in the large pool, into *size;
 * false when that rounding would pass SIZE_MAX (cache.c refuses such a
 * request before it reaches a heap). */
static inline bool cache_large_size(size_t bytes, size_t *size) {
  return mri_round_up_checked(bytes, CACHE_LARGE_ROUND, size);
}

/* `idle_total`, if not NULL, is kept up to date with the bytes of the
 * heap's idle segments (shared by every heap of a cache: only a cache with
 * a cap counts them). False if host memory ran out. */
bool mri_cache_heap_init(cache_heap *h, mri_stream_id key, cache_records *records,
                         _Atomic size_t *idle_total);
/* Free what the heap's bookkeeping holds (not the memory: the segments
 * must have gone back upstream or to another heap); its spare records go
 * back to the cache's. */
void mri_cache_heap_fini(cache_heap *h);

/* The best-fitting free block of at least `size` bytes in the small or
 * large pool, split so that it covers `size` (the rest stays free, where
 * worth keeping apart, and where host memory allows a record for it);
 * marked used. NULL if none fits, or if the best fit is a whole idle
 * segment of more than `uncut` bytes (cache.c's uncut_limit says why). */
cache_block *mri_cache_heap_take(cache_heap *h, bool small, size_t size, size_t uncut);

/* Add a segment of `size` bytes at `base` to the small or large pool, as
 * one free block. False (nothing changed) if host memory ran out. */
bool mri_cache_heap_add_segment(cache_heap *h, bool small, uintptr_t base, size_t size);

/* Give a used or pending block back to its heap's free index, merging it
 * with free neighbours; stamps it with the heap's record count and `epoch`.
 * Returns the segment if it became idle. */
cache_segment *mri_cache_heap_release(cache_heap *h, cache_block *b, uint64_t epoch);

/* Take an idle segment out of its heap (its one free block leaves the
 * index and travels with it); the caller returns its memory upstream
 * (then mri_cache_segment_free) or adds it to another heap (mri_cache_heap_adopt). */
void mri_cache_heap_detach(cache_heap *h, cache_segment *s);
/* Forget a detached segment whose memory went back upstream. */
void mri_cache_segment_free(cache_heap *h, cache_segment *s);
/* Put a detached idle segment into heap `h`. `covered`: every free into it
 * is known to be past (it moves to another stream, or was never used), so
 * it counts as never freed; otherwise it keeps its stamps (it goes back
 * where it was because its upstream free failed). */
void mri_cache_heap_adopt(cache_heap *h, cache_segment *s, bool covered);

/* Park a used block freed on another stream: it joins the free index once
 * `wait` completes or a device synchronization after `epoch` finished.
 * `wait` (may be NULL) gains a reference. */
void mri_cache_heap_park(cache_heap *h, cache_block *b, cache_wait *wait, uint64_t epoch);

/* Release the pending blocks that are safe now: their event completed or
 * the cache synchronized the device after they were freed (`safe_epoch`:
 * frees stamped below it are safe). Returns the bytes released. */
size_t mri_cache_heap_settle_pending(cache_heap *h, uint64_t safe_epoch);

/* Whether an idle segment's memory may be used by another stream now. */
bool mri_cache_segment_ready(cache_heap *h, const cache_segment *s, uint64_t safe_epoch);

/* Query the heap's event: true if frees stamped before its last record are
 * now safe for every stream (records_done advanced). */
bool mri_cache_heap_poll(cache_heap *h);

void mri_cache_wait_release(cache_wait *w);

/* The map of a heap's used blocks. Put fails (false) only if the table
 * cannot grow; take and get return NULL where `addr` is not there. */
bool mri_cache_map_put(cache_map *m, uintptr_t addr, cache_block *b);
cache_block *mri_cache_map_take(cache_map *m, uintptr_t addr);
cache_block *mri_cache_map_get(const cache_map *m, uintptr_t addr);

/* A block record from the heap's spares (NULL if host memory ran out). */
cache_block *mri_cache_record_new(cache_heap *h);
void mri_cache_record_free(cache_heap *h, cache_block *b);

/* The records' batches, freed when the cache is destroyed. */
void mri_cache_records_init(cache_records *r);
void mri_cache_records_fini(cache_records *r);

#endif

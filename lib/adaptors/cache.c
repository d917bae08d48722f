/*
 * cache.c: "cache(UP, max=SIZE)", the stream-aware caching allocator.
 *
 * Two tiers. Memory comes from the upstream in segments, kept in one heap
 * per stream (cache_heap.c): the best-fitting free block is split to size,
 * and a freed block merges with its free neighbours, as PyTorch's caching
 * allocator does, so memory freed in one size serves another and a segment
 * whose blocks are all free can go back whole. On top, each thread keeps a
 * few freed small blocks (up to 1 MiB, in size classes) per stream on
 * stacks of its own: the common path — same thread, same stream, a class
 * its stack holds — pops or pushes there without a lock, a shared write or
 * a driver call beyond the stream's identity.
 *
 * Stream order. A block freed on stream S is reused at once by later work
 * on S: a thread's stacks and a heap each belong to one stream. Memory
 * moves to another stream only whole segments at a time, once every free
 * into the segment is known to be past: an event recorded on S after the
 * frees has completed, or a device synchronization (trim, settle) started
 * after them. Events are recorded only inside a deallocate on S (the one
 * moment the caller guarantees S is alive), and only after another stream
 * missed and found no idle segment ready: a program whose streams each
 * live on their own memory (one stream, or one per thread) never records. A
 * block freed on another stream than the one it was allocated on waits in
 * its heap (pending) until an event recorded on the freeing stream
 * completes.
 *
 * Stream identity. Streams are told apart by their driver IDs
 * (cuStreamGetId), never by handle: a destroyed stream's handle comes back
 * for the next stream created while the old one's work may still run. The
 * legacy default stream (what PyTorch and CuPy use) has an ID per context;
 * it cannot capture, so its allocations skip the capture check, and its ID
 * is remembered per thread for the context current then (one
 * cuCtxGetCurrent per call).
 *
 * Threads. A thread's stacks are its own: the owner announces each use
 * with a plain store and an asymmetric barrier (core/asym_barrier.h);
 * trim and fork, which must empty or freeze every thread's stacks, make
 * owners take the slot's lock for a while instead. A block one thread
 * frees and another allocates (PyTorch's autograd thread frees what the
 * main thread allocated) meets in the heap of their stream: small blocks
 * once the freeing thread's stack is full, large ones at once.
 *
 * Large blocks. Requests above 1 MiB go to the heaps directly, cut at
 * 512-byte granularity from segments of 20 MiB (requests up to 10 MiB) or
 * of the request rounded to 2 MiB. Before a heap grows it gives idle
 * segments beyond a margin back upstream, so the upstream pool makes the
 * new segment from their memory rather than growing too; idle small
 * segments beyond the small pool's margin go first (SMALL_IDLE_FLOOR). A
 * pool whose give-backs only make room for its next growth widens its
 * margin (cache_internal.h, cache_pool_limit).
 *
 * Capture. An allocation on a stream that is capturing a graph goes
 * straight upstream (the driver pools make graph-safe memory) and is
 * remembered, so its free goes straight upstream too. As with the driver
 * itself, memory freed during a capture must have been allocated during it.
 *
 * Failures. A segment whose upstream free fails stays in the cache (trim
 * reports the error); nothing is ever dropped. Out of memory upstream, the
 * cache gives back every idle segment and asks once more.
 *
 * Bounds. At most `max` bytes sit idle where they could go back upstream
 * (threads' stacks and idle segments): a free past it gives idle segments
 * back. Free space inside a segment that still has blocks in use goes back
 * with the segment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adaptors/adaptors_internal.h"
#include "adaptors/cache_internal.h"
#include "adaptors/reuse.h"
#include "core/asym_barrier.h"
#include "core/debug.h"
#include "core/nvtx.h"

/* ---- size classes (small blocks) ---------------------------------------- */

/* Small blocks are cut at their class's size, so that any block a thread's
 * stack holds for a class serves every request of that class, and every
 * block starts 256-byte aligned: 256-byte steps up to 1 KiB, then four
 * classes per power of two up to 1 MiB (at most 25% lost to rounding, 8%
 * on average over sizes spread evenly). Eight classes per power of two
 * halved that rounding but not the books (mrctx bench's pairs, over the
 * fake driver: 1.43x either way, the stacks' byte bound and the drain
 * before growth did the rest), and scattered a thread's random sizes over
 * twice as many stacks: a pair of 256 B-1 MiB took 1.6 times as long
 * (cache(host): 52 against 81 ns), two threads on one stream 2.5 times. */
#define CLASS_COUNT 44

static inline unsigned class_of(size_t bytes) {
  if (bytes <= 1024) return bytes <= 256 ? 0 : (unsigned)((bytes - 1) >> 8);
  size_t t = bytes - 1;
  unsigned e = 63u - (unsigned)__builtin_clzll((unsigned long long)t);
  return 4u + (e - 10u) * 4u + (unsigned)((t >> (e - 2)) & 3u);
}

#define CLASS_SIZE_(c)              \
  ((c) < 4 ? (size_t)((c) + 1) << 8 \
           : ((size_t)1 << (10 + ((c)-4) / 4)) + ((size_t)(((c)-4) % 4 + 1) << (8 + ((c)-4) / 4)))
#define CLASS_SIZES_4_(c) CLASS_SIZE_(c), CLASS_SIZE_(c + 1), CLASS_SIZE_(c + 2), CLASS_SIZE_(c + 3)
#define CLASS_SIZES_16_(c) \
  CLASS_SIZES_4_(c), CLASS_SIZES_4_(c + 4), CLASS_SIZES_4_(c + 8), CLASS_SIZES_4_(c + 12)
static const size_t class_sizes[CLASS_COUNT] = {
    CLASS_SIZES_16_(0), CLASS_SIZES_16_(16), CLASS_SIZES_4_(32),
    CLASS_SIZES_4_(36), CLASS_SIZES_4_(40),
};
_Static_assert(CLASS_SIZE_(4) == 1280 && CLASS_SIZE_(CLASS_COUNT - 1) == CACHE_SMALL_MAX,
               "the classes step from 1 KiB and end at CACHE_SMALL_MAX");


/* ---- tunables ------------------------------------------------------------- */

#define BINS_PER_SLOT 4
/* Blocks per class a thread keeps per stream (the room its stacks have),
 * and the bytes all of a thread's stacks, every stream's together, may
 * hold: a quarter of what the small pool of the stream it last freed on has
 * in use, between the floor and the ceiling (an eighth, 1 to 16 MiB, took
 * the books of mrctx bench's pairs from 1.43x to 1.37x but sent so many
 * more of its random sizes to the heap's lock that a pair's own work took
 * 1.5 times as long). Those bytes are memory held
 * from upstream that no request can use but the thread's own of the same
 * class, so they are what reserved/requested pays for the stacks; and a
 * heap about to grow takes back the growing thread's stack of its stream
 * first (drain_own_stack), so at a new peak they cost little. */
#define STACK_DEPTH 16
#define STACK_SHARE 4
#define STACK_BUDGET_FLOOR ((size_t)2 << 20)
#define STACK_BUDGET_CEILING ((size_t)32 << 20)
#define REBUDGET_EVERY 32
/* Growths without a drain once two threads drained one heap in turn. */
#define DRAIN_SKIP 256
/* A heap on a cache that has seen several streams records an event after
 * this many frees (or when a segment empties), so other streams can take
 * its idle segments. */
#define RECORD_EVERY 16
/* Large requests up to this size share segments of LARGE_SEGMENT bytes;
 * larger ones get a segment of their own, rounded to SEGMENT_ROUND. */
#define LARGE_SHARED_MAX ((size_t)10 << 20)
#define LARGE_SEGMENT ((size_t)20 << 20)
#define SEGMENT_ROUND ((size_t)2 << 20)
/* Idle small segments. No small request ever needs a new segment while
 * one is idle (any fits), so they wait only for the small pool's own
 * pattern: a free that empties one while the pool's idle segments add up
 * to more than twice its recent peak in use (at least this much) gives
 * the excess back upstream at once (the usage fell: a phase ended); and
 * before the large pool grows, idle small segments beyond an eighth of
 * the small pool's recent peak (at least this much) go back first, so that
 * the upstream pool makes the large segment from their memory. A pattern
 * that repeats (a training step empties and refills its segments) stays
 * within both and keeps them. */
#define SMALL_IDLE_FLOOR (2 * CACHE_SMALL_SEGMENT)

/* ---- data ------------------------------------------------------------------ */

/* A thread's small blocks freed on one stream. Written by the owner only
 * (see cache_slot); `counts` are read by statistics. */
typedef struct thread_bin {
  mri_stream_id key;
  bool in_use;
  uint64_t last_use;
  cache_heap *heap;   /* `key`'s heap (a reference) */
  uint32_t overflows; /* frees that found the stacks full */
  _Atomic uint32_t counts[CLASS_COUNT];
  void *items[CLASS_COUNT][STACK_DEPTH];
} thread_bin;

/* One thread's stacks. The owner uses them without a lock while nobody
 * revokes (in_op announces it); `lock` is taken by revokers, and by the
 * owner while any revoker is about and when it changes which streams its
 * bins are for. Counters are written by the owner alone, read by anyone. */
typedef struct cache_slot {
  _Atomic int in_op;
  _Atomic int revokers;
  pthread_mutex_t lock;
  int index;
  int mru; /* the bin used last: checked first */
  uint64_t tick;
  /* The bytes the stacks of all its bins hold (read by statistics and the
   * reclaim), and the most they may: the bound is the thread's, not a
   * stream's or a class's. */
  _Atomic size_t stack_bytes;
  size_t budget;
  _Atomic uint64_t hits, misses, cross_stream, bypassed;
  thread_bin bins[BINS_PER_SLOT];
} __attribute__((aligned(MRI_CACHE_LINE))) cache_slot;

typedef struct cache_state {
  mr_resource *upstream;
  char *description;
  size_t max_idle; /* SIZE_MAX: no cap */
  bool ordered;    /* reuse follows streams: device work may use the memory */
  int device;      /* upstream's device, -1 for host-side memory */
  bool ready;      /* fully made: destroy trims */

  _Atomic(cache_slot *) slots[MRI_MAX_SLOTS];
  _Atomic int slots_high; /* slots[] at and above this index are NULL */

  /* Heaps by stream key, under table_lock; a heap is freed once no bin
   * points to it and it holds nothing. */
  pthread_mutex_t table_lock;
  cache_heap **table;
  size_t table_mask, heap_count;
  _Atomic size_t live_heaps; /* read without the lock: several streams seen? */
  /* Misses that found no idle segment of another stream ready for them.
   * A heap records an event (which other streams need before they take its
   * idle segments) only once per such miss: a program whose streams each
   * live on their own memory records none. */
  _Atomic uint64_t starved;

  cache_records records;

  /* Device synchronizations: a free stamped with epoch e is safe for every
   * stream once safe_epoch > e. */
  _Atomic uint64_t epoch, safe_epoch;
  _Atomic size_t idle_bytes; /* idle segments of all heaps, kept only with a cap */

  pthread_mutex_t capture_lock;
  mri_ptrmap *captured; /* ptr -> {bytes, alignment}: graph allocations */
  _Atomic size_t captured_live;

  /* Threads without a slot, and segments given back. */
  _Atomic uint64_t shared_hits, shared_misses, shared_cross, shared_bypassed, released;

  mri_fork_lockable fork; /* every lock above, across fork() */
  mri_size_check check;   /* MRCTX_DEBUG: the live blocks' sizes */

  struct cache_state *prev, *next; /* registry, for thread-exit and fork hooks */
  mri_reclaimer reclaimer;         /* the process-wide reclaim's (core/reclaim.h) */
} cache_state;
MRI_ADAPTOR_STATE(cache_state);

static mr_status cache_trim(void *self);
static void flush_slot(cache_state *c, cache_slot *s, bool drop_bins);

/* Visit every heap: `for (cache_heap *h = ...)` over the table. table_lock
 * held. */
#define FOR_EACH_HEAP(c, h)                                                                       \
  for (size_t i_ = 0; (c)->table != NULL && i_ <= (c)->table_mask; i_++)                          \
    for (cache_heap *h = (c)->table[i_], *h##_next_; h != NULL && (h##_next_ = h->table_next, 1); \
         h = h##_next_)


static inline bool capped(const cache_state *c) { return c->max_idle != SIZE_MAX; }

/* ---- owners and revokers ----------------------------------------------------- */

#if defined(__SANITIZE_THREAD__)
#define OWNER_LOCK_FREE 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define OWNER_LOCK_FREE 0
#endif
#endif
#ifndef OWNER_LOCK_FREE
#define OWNER_LOCK_FREE 1
#endif

/* The owner's way in: true if it may use its stacks without the lock (then
 * slot_exit ends the use); false while a revoker is about (then it takes
 * the lock). ThreadSanitizer cannot see the asymmetric barrier, so under
 * it owners always lock. */
static inline bool slot_enter(cache_slot *s) {
#if OWNER_LOCK_FREE
  atomic_store_explicit(&s->in_op, 1, memory_order_relaxed);
  mri_asym_light();
  if (MRI_LIKELY(atomic_load_explicit(&s->revokers, memory_order_relaxed) == 0)) return true;
  atomic_store_explicit(&s->in_op, 0, memory_order_release);
#else
  (void)s;
#endif
  return false;
}

static inline void slot_exit(cache_slot *s) {
  atomic_store_explicit(&s->in_op, 0, memory_order_release);
}

/* Take `n` slots from their owners: each owner finishes the use it is in,
 * and uses the lock from then on until slots_return. Locks in index
 * order. `for_fork`: the fork handler is asking (core/fork.h). */
static void slots_revoke(cache_slot **slots, int n, bool for_fork) {
  for (int i = 0; i < n; i++)
    atomic_fetch_add_explicit(&slots[i]->revokers, 1, memory_order_seq_cst);
  mri_asym_heavy();
  for (int i = 0; i < n; i++) {
    unsigned spins = 0;
    if (for_fork && atomic_load_explicit(&slots[i]->in_op, memory_order_acquire))
      mri_fork_waiting();
    while (atomic_load_explicit(&slots[i]->in_op, memory_order_acquire)) {
      if (++spins < 128)
        cache_cpu_relax();
      else
        sched_yield();
    }
    if (for_fork)
      mri_fork_lock_mutex(&slots[i]->lock);
    else
      pthread_mutex_lock(&slots[i]->lock);
  }
}

static void slots_return(cache_slot **slots, int n) {
  for (int i = n; i-- > 0;) {
    pthread_mutex_unlock(&slots[i]->lock);
    atomic_fetch_sub_explicit(&slots[i]->revokers, 1, memory_order_release);
  }
}

/* Every slot of `c`, in index order. */
static int all_slots(cache_state *c, cache_slot **out) {
  int n = 0;
  int high = atomic_load_explicit(&c->slots_high, memory_order_acquire);
  for (int i = 0; i < high; i++) {
    cache_slot *s = atomic_load_explicit(&c->slots[i], memory_order_acquire);
    if (s != NULL) out[n++] = s;
  }
  return n;
}

static inline void bump(_Atomic uint64_t *counter) {
  atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + 1,
                        memory_order_relaxed);
}

/* ---- registry: live caches, for thread exit and fork --------------------------- */

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static cache_state *registry;
static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

static void on_thread_exit(int slot) {
  pthread_mutex_lock(&registry_lock);
  for (cache_state *c = registry; c != NULL; c = c->next) {
    cache_slot *s = atomic_load_explicit(&c->slots[slot], memory_order_acquire);
    if (s == NULL) continue;
    pthread_mutex_lock(&s->lock);
    flush_slot(c, s, true);
    pthread_mutex_unlock(&s->lock);
  }
  pthread_mutex_unlock(&registry_lock);
}

/* fork(): the child has only the forking thread, so every lock of every
 * cache is taken before (each owner finishing the use it is in) and given
 * back after, in the parent and the child alike (core/fork.h: the
 * registry at MRI_FORK_RANK_REGISTRY, each cache at
 * MRI_FORK_RANK_RESOURCE, in the order of the normal paths: slots, the
 * table, the heaps, the records, captures). In the child the parent's
 * other threads' stacks keep their blocks until a trim. */
static void lock_cache(void *obj) {
  cache_state *c = obj;
  cache_slot *slots[MRI_MAX_SLOTS];
  int n = all_slots(c, slots);
  slots_revoke(slots, n, true);
  mri_fork_lock_mutex(&c->table_lock);
  FOR_EACH_HEAP(c, h) mri_fork_lock_spin(&h->lock.held);
  mri_fork_lock_spin(&c->records.lock.held);
  mri_fork_lock_mutex(&c->capture_lock);
}

static void unlock_cache(void *obj) {
  cache_state *c = obj;
  pthread_mutex_unlock(&c->capture_lock);
  cache_lock_give(&c->records.lock);
  FOR_EACH_HEAP(c, h) cache_lock_give(&h->lock);
  pthread_mutex_unlock(&c->table_lock);
  cache_slot *slots[MRI_MAX_SLOTS];
  slots_return(slots, all_slots(c, slots));
}

static void registry_lock_fork(void *obj) { mri_fork_lock_mutex(obj); }
static void registry_unlock_fork(void *obj) { pthread_mutex_unlock(obj); }
static void asym_nothing(void *obj) { (void)obj; }
static void asym_child(void *obj) {
  (void)obj;
  mri_asym_fork_child();
}

static mri_fork_lockable registry_fork = {.rank = MRI_FORK_RANK_REGISTRY,
                                          .lock = registry_lock_fork,
                                          .unlock = registry_unlock_fork,
                                          .obj = &registry_lock};
/* The child registers for membarrier anew before any cache is unlocked
 * (children run highest rank first). */
static mri_fork_lockable asym_fork = {
    .rank = MRI_FORK_RANK_LEAF, .lock = asym_nothing, .unlock = asym_nothing, .child = asym_child};

static void install_hooks(void) {
  mri_asym_init();
  mri_thread_slot_on_exit(on_thread_exit);
  mri_fork_register(&registry_fork);
  mri_fork_register(&asym_fork);
}

static void registry_add(cache_state *c) {
  pthread_once(&hooks_once, install_hooks);
  pthread_mutex_lock(&registry_lock);
  c->next = registry;
  if (registry != NULL) registry->prev = c;
  registry = c;
  pthread_mutex_unlock(&registry_lock);
}

static void registry_remove(cache_state *c) {
  pthread_mutex_lock(&registry_lock);
  if (c->prev != NULL)
    c->prev->next = c->next;
  else if (registry == c)
    registry = c->next;
  if (c->next != NULL) c->next->prev = c->prev;
  c->prev = c->next = NULL;
  pthread_mutex_unlock(&registry_lock);
}

/* ---- heaps by stream ----------------------------------------------------------- */

static inline size_t key_hash(mri_stream_id key) {
  uint64_t x = key * 0x9E3779B97F4A7C15ull;
  return (size_t)(x ^ (x >> 29));
}

static bool table_grow(cache_state *c) {
  size_t mask = c->table == NULL ? 15 : c->table_mask * 2 + 1;
  cache_heap **table = mri_host_calloc(mask + 1, sizeof *table);
  if (table == NULL) return c->table != NULL; /* a full table still works */
  for (size_t i = 0; c->table != NULL && i <= c->table_mask; i++) {
    cache_heap *next;
    for (cache_heap *h = c->table[i]; h != NULL; h = next) {
      next = h->table_next;
      size_t j = key_hash(h->key) & mask;
      h->table_next = table[j];
      table[j] = h;
    }
  }
  free(c->table);
  c->table = table;
  c->table_mask = mask;
  return true;
}

/* `key`'s heap, made if need be; NULL if host memory ran out. table_lock
 * held. */
static cache_heap *heap_find_locked(cache_state *c, mri_stream_id key) {
  if (c->table != NULL)
    for (cache_heap *h = c->table[key_hash(key) & c->table_mask]; h != NULL; h = h->table_next)
      if (h->key == key) return h;
  if ((c->table == NULL || c->heap_count >= 2 * (c->table_mask + 1)) && !table_grow(c)) return NULL;
  cache_heap *h = mri_host_malloc(sizeof *h);
  if (h == NULL) return NULL;
  if (!mri_cache_heap_init(h, key, &c->records, capped(c) ? &c->idle_bytes : NULL)) {
    mri_cache_heap_fini(h);
    free(h);
    return NULL;
  }
  size_t j = key_hash(key) & c->table_mask;
  h->table_next = c->table[j];
  c->table[j] = h;
  c->heap_count++;
  atomic_store_explicit(&c->live_heaps, c->heap_count, memory_order_relaxed);
  return h;
}

/* `key`'s heap with a reference (for a bin, or a caller without one). */
static cache_heap *heap_get(cache_state *c, mri_stream_id key) {
  pthread_mutex_lock(&c->table_lock);
  cache_heap *h = heap_find_locked(c, key);
  if (h != NULL) h->bins++;
  pthread_mutex_unlock(&c->table_lock);
  return h;
}

/* Unlink and free `h` if nothing points to it and it holds nothing;
 * table_lock held, h's lock not. */
static void heap_reclaim_locked(cache_state *c, cache_heap *h) {
  if (h->bins > 0) return;
  cache_lock_take(&h->lock);
  bool empty = h->segments == NULL && h->pending == NULL;
  cache_lock_give(&h->lock);
  if (!empty) return;
  cache_heap **link = &c->table[key_hash(h->key) & c->table_mask];
  while (*link != h) link = &(*link)->table_next;
  *link = h->table_next;
  c->heap_count--;
  atomic_store_explicit(&c->live_heaps, c->heap_count, memory_order_relaxed);
  mri_cache_heap_fini(h);
  free(h);
}

static void heap_put(cache_state *c, cache_heap *h) {
  if (h == NULL) return;
  pthread_mutex_lock(&c->table_lock);
  h->bins--;
  heap_reclaim_locked(c, h);
  pthread_mutex_unlock(&c->table_lock);
}

/* With an NVTX tool attached (never on the common path otherwise): each
 * segment is a heap of the tool's, each block handed out a region in it.
 * The block's segment is looked up in the heaps' maps. */
static void nvtx_block_out(cache_state *c, const void *ptr, size_t bytes) {
  pthread_mutex_lock(&c->table_lock);
  FOR_EACH_HEAP(c, x) {
    cache_lock_take(&x->lock);
    cache_block *b = mri_cache_map_get(&x->blocks, (uintptr_t)ptr);
    cache_lock_give(&x->lock);
    if (b != NULL) {
      /* The block is the caller's now: its segment stays. */
      mri_nvtx_region_add((void *)b->segment->base, ptr, bytes);
      break;
    }
  }
  pthread_mutex_unlock(&c->table_lock);
}

static inline mr_status nvtx_out_(cache_state *c, mr_status st, void *const *ptr, size_t bytes) {
  if (mri_nvtx_on() && st == MR_OK) nvtx_block_out(c, *ptr, bytes);
  return st;
}

/* ---- coverage: events on a heap's stream -------------------------------------- */

/* Record `h`'s event on `stream`, its own stream, alive: the caller is
 * freeing on it. Every free into `h` so far becomes covered once the event
 * completes. Heap locked. Without an event, frees stay uncovered: only a
 * device synchronization then lets other streams have the memory. */
static void heap_record(cache_state *c, cache_heap *h, mr_stream stream) {
  if (h->event == NULL &&
      (mri_ensure_context(c->device) != MR_OK || mri_event_create(&h->event) != MR_OK)) {
    h->event = NULL;
    return;
  }
  if (mri_event_record(h->event, stream) != MR_OK) return;
  h->records_made++;
  h->frees_since_record = 0;
}

/* After `freed` blocks went back into `h` on its own stream (alive), one
 * of them emptying a segment when `emptied`: once a stream starved since
 * h's last event, record one for the other streams when a segment emptied
 * or RECORD_EVERY frees passed. Heap locked. */
static void cover_own_frees(cache_state *c, cache_heap *h, mr_stream stream, bool emptied,
                            uint32_t freed) {
  if (!c->ordered || atomic_load_explicit(&c->live_heaps, memory_order_relaxed) <= 1) return;
  uint64_t starved = atomic_load_explicit(&c->starved, memory_order_relaxed);
  if (starved == h->cover_gen) return;
  h->frees_since_record += freed;
  if (emptied || h->frees_since_record >= RECORD_EVERY) {
    heap_record(c, h, stream);
    h->cover_gen = starved;
  }
}

/* An event on `stream` (alive) covering a free there into another stream's
 * heap; NULL if none could be made (the block then waits for a device
 * synchronization). */
static cache_wait *wait_on(cache_state *c, mr_stream stream) {
  cache_wait *w = mri_host_malloc(sizeof *w);
  if (w == NULL) return NULL;
  w->event = NULL;
  if (mri_ensure_context(c->device) != MR_OK || mri_event_create(&w->event) != MR_OK ||
      mri_event_record(w->event, stream) != MR_OK) {
    if (w->event != NULL) mri_event_destroy(w->event);
    free(w);
    return NULL;
  }
  atomic_init(&w->refs, 1);
  atomic_init(&w->done, false);
  return w;
}

/* Wait for the device(s): every free stamped before is safe for every
 * stream afterwards. */
static mr_status settle(cache_state *c) {
  uint64_t e = atomic_fetch_add_explicit(&c->epoch, 1, memory_order_acq_rel);
  mr_status st = mri_synchronize_devices(c->device);
  if (st != MR_OK) return mri_error_prefix(st, "cache: waiting for the device");
  uint64_t safe = atomic_load_explicit(&c->safe_epoch, memory_order_relaxed);
  while (safe <= e &&
         !atomic_compare_exchange_weak_explicit(&c->safe_epoch, &safe, e + 1, memory_order_acq_rel,
                                                memory_order_relaxed)) {
  }
  return MR_OK;
}

static inline uint64_t current_epoch(cache_state *c) {
  return atomic_load_explicit(&c->epoch, memory_order_acquire);
}

static inline uint64_t safe_epoch(cache_state *c) {
  return atomic_load_explicit(&c->safe_epoch, memory_order_acquire);
}

/* ---- giving segments back -------------------------------------------------------- */

/* Idle segments on their way upstream: detached under their heap's lock,
 * freed after it (an upstream may be another adaptor with locks of its
 * own), put back where their free fails. */
typedef struct segment_list {
  cache_segment *first;
} segment_list;

static void list_push(segment_list *l, cache_segment *s) {
  s->next = l->first;
  l->first = s;
}

/* The idle bytes a small pool keeps (SMALL_IDLE_FLOOR): `times` its
 * recent peak in use, where `times` 0 means an eighth. Heap locked. */
static inline size_t small_idle_keep(const cache_pool *p, size_t times) {
  size_t peak = cache_pool_peak(p);
  size_t keep = times == 0 ? peak / 8 : (peak > SIZE_MAX / times ? SIZE_MAX : peak * times);
  return keep > SMALL_IDLE_FLOOR ? keep : SMALL_IDLE_FLOOR;
}

/* Detach the idle segments of `h`'s pool until its idle bytes are at most
 * `keep`, the largest first. Heap locked. */
static void take_idle(cache_heap *h, bool small, size_t keep, segment_list *out) {
  cache_pool *p = small ? &h->small : &h->large;
  while (p->idle_bytes > keep) {
    cache_segment *victim = NULL;
    for (cache_segment *s = h->segments; s != NULL; s = s->next)
      if (s->used == 0 && s->small == small && (victim == NULL || s->size > victim->size))
        victim = s;
    if (victim == NULL) return;
    mri_cache_heap_detach(h, victim);
    list_push(out, victim);
  }
}

/* Free the listed segments of `h` upstream on `stream` (alive, and safe
 * for every one of them: h's own stream, or the per-thread default stream
 * after a device synchronization, MRI_STREAM_PER_THREAD). Heap not locked. Returns the first failure;
 * what failed goes back into `h`, and from then on belongs to whichever
 * thread takes it there: it is not touched again after the lock is given
 * (another thread may detach it at once and free its record). */
static mr_status give_back(cache_state *c, cache_heap *h, segment_list *l, mr_stream stream) {
  mr_status first = MR_OK;
  cache_segment *next;
  for (cache_segment *s = l->first; s != NULL; s = next) {
    next = s->next;
    mri_nvtx_heap_remove((void *)s->base);
    mr_status st = mri_deallocate(c->upstream, (void *)s->base, s->size, CACHE_ALIGNMENT, stream);
    /* Still detached, so still this thread's: named again before it goes
     * back where others can take it. */
    if (st != MR_OK) mri_nvtx_heap_add((void *)s->base, s->size, c->description);
    cache_lock_take(&h->lock);
    if (st == MR_OK) {
      mri_cache_segment_free(h, s);
    } else {
      mri_cache_heap_adopt(h, s, false);
      if (first == MR_OK) first = st;
    }
    cache_lock_give(&h->lock);
    if (st == MR_OK) atomic_fetch_add_explicit(&c->released, 1, memory_order_relaxed);
  }
  l->first = NULL;
  return first;
}

/* ---- taking memory from other streams ------------------------------------------- */

/* An idle segment of another heap that `own` may use now, for a request of
 * `size` in the small or large pool (any size: `size` 0), of at most
 * `most` bytes: the smallest that fits. Detached from its heap, which
 * *from says; NULL if none. table_lock held. */
static cache_segment *find_ready_segment(cache_state *c, cache_heap *own, bool small, size_t size,
                                         size_t most, cache_heap **from) {
  uint64_t safe = safe_epoch(c);
  FOR_EACH_HEAP(c, x) {
    if (x == own) continue;
    cache_lock_take(&x->lock);
    /* Blocks freed there on other streams may be done now, and with them
     * a segment idle. */
    if (x->pending != NULL) mri_cache_heap_settle_pending(x, safe);
    cache_pool *p = small ? &x->small : &x->large;
    cache_segment *best = NULL;
    if (p->idle_segments > 0) {
      mri_cache_heap_poll(x);
      for (cache_segment *s = x->segments; s != NULL; s = s->next)
        if (s->used == 0 && s->small == small && s->size >= size && s->size <= most &&
            mri_cache_segment_ready(x, s, safe) && (best == NULL || s->size < best->size))
          best = s;
    }
    if (best != NULL) mri_cache_heap_detach(x, best);
    cache_lock_give(&x->lock);
    if (best != NULL) {
      *from = x;
      return best;
    }
  }
  return NULL;
}

/* Idle bytes in heaps other than `own` that no event covers yet. */
static size_t stranded_bytes(cache_state *c, cache_heap *own) {
  size_t total = 0;
  uint64_t safe = safe_epoch(c);
  FOR_EACH_HEAP(c, x) {
    if (x == own) continue;
    cache_lock_take(&x->lock);
    mri_cache_heap_poll(x);
    for (cache_segment *s = x->segments; s != NULL; s = s->next)
      if (s->used == 0 && !mri_cache_segment_ready(x, s, safe)) total += s->size;
    total += x->pending_bytes;
    cache_lock_give(&x->lock);
  }
  return total;
}

/* How much idle memory no event covers is worth a device synchronization
 * (streams destroyed one after another leave such memory behind). */
static inline size_t settle_threshold(const cache_state *c) {
  return c->max_idle / 4 < IDLE_FLOOR ? c->max_idle / 4 : IDLE_FLOOR;
}

/* Move a ready idle segment of another stream's heap, of at most `uncut`
 * bytes (uncut_limit), into `h`. When none is ready but other heaps hold
 * much idle memory no event covers (streams that were destroyed, threads
 * that left), wait for the device once and look again. */
static bool adopt_segment(cache_state *c, cache_heap *h, bool small, size_t size, size_t uncut) {
  if (atomic_load_explicit(&c->live_heaps, memory_order_relaxed) < 2) return false;
  cache_heap *from = NULL;
  pthread_mutex_lock(&c->table_lock);
  cache_segment *s = find_ready_segment(c, h, small, size, uncut, &from);
  if (s == NULL && stranded_bytes(c, h) >= settle_threshold(c)) {
    pthread_mutex_unlock(&c->table_lock);
    if (settle(c) != MR_OK) return false;
    pthread_mutex_lock(&c->table_lock);
    s = find_ready_segment(c, h, small, size, uncut, &from);
  }
  if (s != NULL) heap_reclaim_locked(c, from);
  pthread_mutex_unlock(&c->table_lock);
  if (s == NULL) {
    atomic_fetch_add_explicit(&c->starved, 1, memory_order_relaxed);
    return false;
  }
  cache_lock_take(&h->lock);
  mri_cache_heap_adopt(h, s, true);
  cache_lock_give(&h->lock);
  return true;
}

/* Past the cap after a free on `stream` (alive), with `own`'s idle
 * segments already gone: give back other streams' idle segments that are
 * safe for every stream now, on `stream`; when none is but some is
 * stranded (streams destroyed, threads gone), wait for the device once. */
static void reduce_idle(cache_state *c, cache_heap *own, mr_stream stream) {
  if (!c->ordered || atomic_load_explicit(&c->live_heaps, memory_order_relaxed) < 2) return;
  bool settled = false;
  while (atomic_load_explicit(&c->idle_bytes, memory_order_relaxed) > c->max_idle) {
    cache_heap *from = NULL;
    pthread_mutex_lock(&c->table_lock);
    cache_segment *s = find_ready_segment(c, own, true, 0, SIZE_MAX, &from);
    if (s == NULL) s = find_ready_segment(c, own, false, 0, SIZE_MAX, &from);
    if (s == NULL) {
      bool stranded = !settled && stranded_bytes(c, own) > 0;
      pthread_mutex_unlock(&c->table_lock);
      if (!stranded || settle(c) != MR_OK) return;
      settled = true;
      continue;
    }
    /* `from` stays: heaps are freed only under table_lock. */
    segment_list l = {NULL};
    list_push(&l, s);
    mr_status st = give_back(c, from, &l, stream);
    heap_reclaim_locked(c, from);
    pthread_mutex_unlock(&c->table_lock);
    if (st != MR_OK) return;
  }
}

/* ---- allocate -------------------------------------------------------------------- */

typedef enum counter { COUNT_HIT, COUNT_MISS, COUNT_CROSS_HIT, COUNT_BYPASS } counter;

/* Count a slow-path event: in the calling thread's slot (only its owner
 * writes it), or in the shared counters for a thread without one. */
static void count(cache_state *c, cache_slot *s, counter what) {
  if (s != NULL) {
    switch (what) {
    case COUNT_CROSS_HIT:
      bump(&s->cross_stream);
      /* fall through */
    case COUNT_HIT:
      bump(&s->hits);
      break;
    case COUNT_MISS:
      bump(&s->misses);
      break;
    case COUNT_BYPASS:
      bump(&s->bypassed);
      break;
    }
    return;
  }
  _Atomic uint64_t *shared = what == COUNT_MISS     ? &c->shared_misses
                             : what == COUNT_BYPASS ? &c->shared_bypassed
                                                    : &c->shared_hits;
  atomic_fetch_add_explicit(shared, 1, memory_order_relaxed);
  if (what == COUNT_CROSS_HIT) atomic_fetch_add_explicit(&c->shared_cross, 1, memory_order_relaxed);
}

static mr_status bypass_allocate(cache_state *c, cache_slot *s, size_t bytes, size_t alignment,
                                 mr_stream stream, void **ptr) __attribute__((noinline));
static mr_status bypass_allocate(cache_state *c, cache_slot *s, size_t bytes, size_t alignment,
                                 mr_stream stream, void **ptr) {
  mr_status st = mri_allocate(c->upstream, bytes, alignment, stream, ptr);
  if (st != MR_OK) return st;
  pthread_mutex_lock(&c->capture_lock);
  st =
      mri_ptrmap_put(c->captured, *ptr, (mri_ptrmap_value){.bytes = bytes, .alignment = alignment});
  if (st == MR_OK) atomic_fetch_add_explicit(&c->captured_live, 1, memory_order_relaxed);
  pthread_mutex_unlock(&c->capture_lock);
  if (st != MR_OK) {
    mri_deallocate(c->upstream, *ptr, bytes, alignment, stream);
    *ptr = NULL;
    return mri_error(st, "cache: out of host memory recording a graph allocation");
  }
  count(c, s, COUNT_BYPASS);
  return MR_OK;
}

/* The segment a heap's pool grows by for a request of `size`, into
 * *bytes; false when the rounding would pass SIZE_MAX (cache_take refuses
 * such sizes first: this is the last guard, before the heap changes). */
static bool segment_size(bool small, size_t size, size_t *bytes) {
  if (small) {
    *bytes = CACHE_SMALL_SEGMENT;
  } else if (size <= LARGE_SHARED_MAX) {
    *bytes = LARGE_SEGMENT;
  } else {
    return mri_round_up_checked(size, SEGMENT_ROUND, bytes);
  }
  return true;
}

/* The largest idle segment a request may cut its block from. A cut pins
 * the whole segment: while the block lives, the rest serves only smaller
 * requests, and the next request of the segment's own size (the same
 * point of the next training step) finds no block and grows another. So
 * a large request leaves alone an idle segment of more than UNCUT_FACTOR
 * times the segment grow() would make for it, and grows that one instead,
 * within the margin grow() keeps (past it, idle segments go back first,
 * the largest first). The GPT training trace cut 36-96 MiB blocks from
 * idle 500 MiB segments: mrctx bench over the fake driver, peak held over
 * peak live, trace 1.14x -> 1.06x, large 1.20x -> 1.15x, hits 99.97% ->
 * 99.81% on large (factors 3 and 6: 1.09x/1.18x and 1.10x/1.16x). Small
 * segments are all one size: any serves any small request. */
#define UNCUT_FACTOR 4

static inline size_t uncut_limit(bool small, size_t size) {
  if (small) return SIZE_MAX;
  size_t own = size <= LARGE_SHARED_MAX ? LARGE_SEGMENT : size;
  return own > SIZE_MAX / UNCUT_FACTOR ? SIZE_MAX : own * UNCUT_FACTOR;
}

/* Whether a request of `bytes` above CACHE_SMALL_MAX has sizes in the
 * large pool: its block rounded to CACHE_LARGE_ROUND, and that block's own
 * segment rounded to SEGMENT_ROUND (a multiple of it), both within
 * SIZE_MAX. Otherwise the rounding wraps to a small size and the heap
 * would hand out a block of a few bytes, or none, for it. */
static mr_status refuse_oversized(const cache_state *c, size_t bytes) __attribute__((noinline));
static mr_status refuse_oversized(const cache_state *c, size_t bytes) {
  return mri_size_overflow(c->description, bytes, SEGMENT_ROUND, "the cache's large segments");
}

/* A large request failed: the heap's message speaks of its block and
 * segment, rounded; this says what the caller asked for. */
static mr_status large_failed(const cache_state *c, mr_status st, size_t bytes)
    __attribute__((noinline));
static mr_status large_failed(const cache_state *c, mr_status st, size_t bytes) {
  return mri_error_prefix(st, "%s: allocating %zu bytes", c->description, bytes);
}

static inline bool large_sizes_fit(size_t bytes) {
  size_t segment;
  return mri_round_up_checked(bytes, SEGMENT_ROUND, &segment);
}

/* Memory for a new segment of `*bytes` on `stream`, for a block of
 * `size`. Out of memory, give back everything idle (a trim) and ask once
 * more; then for the block alone (*bytes becomes `size`). */
static mr_status upstream_segment(cache_state *c, size_t *bytes, size_t size, mr_stream stream,
                                  void **ptr) {
  mr_status st = mri_allocate(c->upstream, *bytes, CACHE_ALIGNMENT, stream, ptr);
  if (MRI_LIKELY(st == MR_OK) || st != MR_ERR_OUT_OF_MEMORY) return st;
  char saved[MRI_ERROR_CAPACITY];
  snprintf(saved, sizeof saved, "%s", mr_last_error());
  cache_trim(c);
  st = mri_allocate(c->upstream, *bytes, CACHE_ALIGNMENT, stream, ptr);
  if (st == MR_ERR_OUT_OF_MEMORY && *bytes > size) {
    st = mri_allocate(c->upstream, size, CACHE_ALIGNMENT, stream, ptr);
    if (st == MR_OK) *bytes = size;
  }
  if (st == MR_ERR_OUT_OF_MEMORY) {
    char segment[32], block[32];
    mri_format_bytes_human(*bytes, segment, sizeof segment);
    mri_format_bytes_human(size, block, sizeof block);
    return mri_error(st,
                     "cache: out of memory for a segment of %s (and for the %s block alone) "
                     "after returning every idle segment: %s",
                     segment, block, saved);
  }
  return st;
}

/* A free block of `size` from `h`, recorded as handed out; an idle
 * segment of more than `uncut` bytes is not cut for it (uncut_limit). Heap
 * locked. On failure to record it (host memory), it goes back; *failed
 * says so. */
static cache_block *take_locked(cache_state *c, cache_heap *h, bool small, size_t size,
                                size_t uncut, bool *failed) {
  *failed = false;
  if (MRI_UNLIKELY(h->pending != NULL)) mri_cache_heap_settle_pending(h, safe_epoch(c));
  cache_block *b = mri_cache_heap_take(h, small, size, uncut);
  if (b != NULL && MRI_UNLIKELY(!mri_cache_map_put(&h->blocks, b->addr, b))) {
    mri_cache_heap_release(h, b, current_epoch(c));
    *failed = true;
    return NULL;
  }
  return b;
}

static mr_status no_host_memory(void) {
  return mri_error(MR_ERR_OUT_OF_MEMORY, "cache: out of host memory for its records");
}

/* A new segment for `h`'s pool, and the block from it. When the pool's
 * segments would pass its recent peak in use by more than the margin
 * (cache_pool_limit), idle segments go back first, on this stream (h's
 * own), so the upstream makes the new segment from their memory rather
 * than growing. A pattern that repeats (a training step) stays under the
 * margin and keeps its segments; one that drifts gives back what it no
 * longer uses; one that gives back its whole peak within a window only to
 * grow again widens the margin. */
static mr_status grow(cache_state *c, cache_slot *s, cache_heap *h, bool small, size_t size,
                      mr_stream stream, void **ptr) {
  size_t bytes;
  if (!segment_size(small, size, &bytes)) return refuse_oversized(c, size);
  segment_list idle = {NULL};
  cache_lock_take(&h->lock);
  cache_pool *p = small ? &h->small : &h->large;
  size_t limit = cache_pool_limit(p, p->widen);
  size_t after; /* the pool's segments with this one; saturates near SIZE_MAX */
  if (mri_add_overflows(p->segment_bytes, bytes, &after)) after = SIZE_MAX;
  if (after > limit && p->idle_bytes > 0) {
    size_t over = after - limit, idle_before = p->idle_bytes;
    take_idle(h, small, p->idle_bytes > over ? p->idle_bytes - over : 0, &idle);
    p->cycled += idle_before - p->idle_bytes;
    if (p->cycled >= cache_pool_peak(p) && p->widen < IDLE_WIDEN_MAX) {
      p->widen++;
      p->cycled = 0;
    }
  }
  if (!small) take_idle(h, true, small_idle_keep(&h->small, 0), &idle);
  cache_lock_give(&h->lock);
  give_back(c, h, &idle, stream);
  void *base = NULL;
  mr_status st = upstream_segment(c, &bytes, size, stream, &base);
  if (st != MR_OK) return st;
  bool failed = false;
  cache_block *b = NULL;
  cache_lock_take(&h->lock);
  if (mri_cache_heap_add_segment(h, small, (uintptr_t)base, bytes))
    b = take_locked(c, h, small, size, SIZE_MAX, &failed);
  cache_lock_give(&h->lock);
  if (b == NULL) {
    /* Host memory ran out for the records: the segment, if it got in, is
     * idle and stays for the next request. */
    if (!failed) mri_deallocate(c->upstream, base, bytes, CACHE_ALIGNMENT, stream);
    return no_host_memory();
  }
  mri_nvtx_heap_add(base, bytes, c->description);
  *ptr = (void *)b->addr;
  count(c, s, COUNT_MISS);
  return MR_OK;
}

static bool drain_own_stack(cache_state *c, cache_slot *s, cache_heap *h, mr_stream stream);

/* From `h` (the heap of the allocating stream): a free block, else the
 * blocks of the thread's own stack of the stream (merged back with their
 * neighbours), else an idle segment another stream is done with, else a
 * new segment. The own stack comes before the other streams: it takes only
 * this heap's lock, where adopting takes the cache's table lock and looks
 * at every heap, and with stacks bounded in bytes a thread's heap runs dry
 * often while its stack holds what it needs (mrctx bench's threads rows,
 * one stream per thread, took 2.2 times as long at 8 threads and 5.9 at 16
 * on an H100 with adopting first). */
static mr_status heap_allocate(cache_state *c, cache_slot *s, cache_heap *h, bool small,
                               size_t size, mr_stream stream, void **ptr) {
  bool failed;
  size_t uncut = uncut_limit(small, size);
  cache_lock_take(&h->lock);
  cache_block *b = take_locked(c, h, small, size, uncut, &failed);
  cache_lock_give(&h->lock);
  if (b != NULL) {
    *ptr = (void *)b->addr;
    count(c, s, COUNT_HIT);
    return MR_OK;
  }
  if (failed) return no_host_memory();
  if (small && s != NULL && drain_own_stack(c, s, h, stream)) {
    cache_lock_take(&h->lock);
    b = take_locked(c, h, small, size, uncut, &failed);
    cache_lock_give(&h->lock);
    if (b != NULL) {
      *ptr = (void *)b->addr;
      count(c, s, COUNT_HIT);
      return MR_OK;
    }
    if (failed) return no_host_memory();
  }
  if (c->ordered && adopt_segment(c, h, small, size, uncut)) {
    cache_lock_take(&h->lock);
    b = take_locked(c, h, small, size, uncut, &failed);
    cache_lock_give(&h->lock);
    if (b != NULL) {
      *ptr = (void *)b->addr;
      count(c, s, COUNT_CROSS_HIT);
      return MR_OK;
    }
    if (failed) return no_host_memory();
  }
  return grow(c, s, h, small, size, stream, ptr);
}

/* ---- slots and bins ------------------------------------------------------------- */

static cache_slot *slot_create(cache_state *c, int index) {
  cache_slot *s = mri_host_aligned_alloc(MRI_CACHE_LINE, sizeof *s);
  if (s == NULL) return NULL;
  memset(s, 0, sizeof *s);
  pthread_mutex_init(&s->lock, NULL);
  s->index = index;
  s->budget = STACK_BUDGET_FLOOR;
  atomic_store_explicit(&c->slots[index], s, memory_order_release);
  int high = atomic_load_explicit(&c->slots_high, memory_order_relaxed);
  while (high < index + 1 &&
         !atomic_compare_exchange_weak_explicit(&c->slots_high, &high, index + 1,
                                                memory_order_release, memory_order_relaxed)) {
  }
  return s;
}

static inline cache_slot *my_slot(cache_state *c) {
  int index = mri_thread_slot();
  if (MRI_UNLIKELY(index < 0)) return NULL;
  cache_slot *s = atomic_load_explicit(&c->slots[index], memory_order_relaxed);
  if (MRI_LIKELY(s != NULL)) return s;
  return slot_create(c, index);
}

static inline thread_bin *find_bin(cache_slot *s, mri_stream_id key) {
  thread_bin *b = &s->bins[s->mru];
  if (MRI_LIKELY(b->in_use && b->key == key)) return b;
  for (int i = 0; i < BINS_PER_SLOT; i++) {
    if (s->bins[i].in_use && s->bins[i].key == key) {
      s->mru = i;
      return &s->bins[i];
    }
  }
  return NULL;
}

static mr_status give_block(cache_state *c, cache_heap *hint, void *ptr, size_t bytes, size_t size,
                            mri_stream_id key, mr_stream stream, bool alive, bool tidy);

/* Give back to the heaps every block a bin holds. `alive`: the caller is
 * using the bin's stream (`stream`) right now. Slot locked (or the owner's,
 * announced). */
static void flush_bin(cache_state *c, cache_slot *s, thread_bin *b, mr_stream stream, bool alive) {
  for (unsigned k = 0; k < CLASS_COUNT; k++) {
    uint32_t n = atomic_load_explicit(&b->counts[k], memory_order_relaxed);
    for (uint32_t i = n; i-- > 0;) {
      give_block(c, b->heap, b->items[k][i], class_sizes[k], class_sizes[k], b->key, stream, alive,
                 false);
      atomic_store_explicit(&b->counts[k], i, memory_order_relaxed);
      atomic_fetch_sub_explicit(&s->stack_bytes, class_sizes[k], memory_order_relaxed);
    }
  }
}

/* Empty every bin of `s` (thread exit, trim); with `drop_bins`, also let
 * go of their heaps. Slot locked. */
static void flush_slot(cache_state *c, cache_slot *s, bool drop_bins) {
  for (int i = 0; i < BINS_PER_SLOT; i++) {
    thread_bin *b = &s->bins[i];
    if (!b->in_use) continue;
    flush_bin(c, s, b, NULL, false);
    if (drop_bins) {
      heap_put(c, b->heap);
      b->heap = NULL;
      b->in_use = false;
    }
  }
}

/* drain_own_stack's flush: the blocks of `b`, the caller's stack of `h`'s
 * own stream (alive), go back into `h` under one taking of its lock rather
 * than one per block. A drain gives back a whole stack at once, and taking
 * the lock per block made two threads on one stream wait on each other
 * (mrctx bench's threads, 2 threads, cache(host) over the fake driver:
 * 110 against 75 ns a pair). What is not `h`'s, or was allocated with
 * another size, and everything of a capped cache (whose frees may give
 * segments back), goes the one-block way. Slot locked. */
static void flush_own_bin(cache_state *c, cache_slot *s, thread_bin *b, cache_heap *h,
                          mr_stream stream) {
  if (!capped(c)) {
    uint64_t epoch = current_epoch(c);
    bool emptied = false;
    uint32_t freed = 0;
    cache_lock_take(&h->lock);
    for (unsigned k = 0; k < CLASS_COUNT; k++) {
      uint32_t n = atomic_load_explicit(&b->counts[k], memory_order_relaxed), kept = 0;
      for (uint32_t i = 0; i < n; i++) {
        void *ptr = b->items[k][i];
        cache_block *blk = mri_cache_map_take(&h->blocks, (uintptr_t)ptr);
        if (blk != NULL && blk->asked != class_sizes[k]) {
          mri_cache_map_put(&h->blocks, (uintptr_t)ptr, blk); /* its slot is free */
          blk = NULL;
        }
        if (blk == NULL) {
          b->items[k][kept++] = ptr;
          continue;
        }
        if (mri_cache_heap_release(h, blk, epoch) != NULL) emptied = true;
        freed++;
        atomic_fetch_sub_explicit(&s->stack_bytes, class_sizes[k], memory_order_relaxed);
      }
      atomic_store_explicit(&b->counts[k], kept, memory_order_relaxed);
    }
    cover_own_frees(c, h, stream, emptied, freed); /* once for the whole batch */
    cache_lock_give(&h->lock);
  }
  flush_bin(c, s, b, stream, true);
}

/* Before `h`'s small pool grows: the calling thread's stack of h's stream
 * goes back into it (the caller is on that stream, alive), so that the
 * blocks it holds for requests that may never come merge with their free
 * neighbours and serve this one; at a new peak the stacks then cost no
 * segment. Only the owner's own stack: another thread's would need a
 * revoke. True if it gave anything back. No lock held. */
static bool drain_own_stack(cache_state *c, cache_slot *s, cache_heap *h, mr_stream stream) {
  if (atomic_load_explicit(&s->stack_bytes, memory_order_relaxed) == 0) return false;
  /* Threads sharing a stream drain in turn: each drain empties a stack that
   * its thread then refills through the heap's lock, against the other's,
   * so that two threads' pairs took 1.3-1.5 times as long (mrctx bench's
   * threads on an H100). Where a second thread drains here, the heap grows
   * instead for the next DRAIN_SKIP growths (the books of one stream's
   * threads, as before the drain), then tries again. */
  int last = atomic_exchange_explicit(&h->drain_slot, s->index + 1, memory_order_relaxed);
  if (last != 0 && last != s->index + 1) {
    atomic_store_explicit(&h->drain_skip, DRAIN_SKIP, memory_order_relaxed);
    return false;
  }
  uint32_t skip = atomic_load_explicit(&h->drain_skip, memory_order_relaxed);
  if (skip > 0) {
    atomic_store_explicit(&h->drain_skip, skip - 1, memory_order_relaxed);
    return false;
  }
  bool drained = false;
  pthread_mutex_lock(&s->lock);
  thread_bin *b = find_bin(s, h->key);
  if (b != NULL && b->heap == h) {
    for (unsigned k = 0; k < CLASS_COUNT && !drained; k++)
      drained = atomic_load_explicit(&b->counts[k], memory_order_relaxed) > 0;
    if (drained) flush_own_bin(c, s, b, h, stream);
  }
  pthread_mutex_unlock(&s->lock);
  return drained;
}

/* The bin for `key`, made by emptying the least recently used if need be;
 * NULL if host memory ran out. Slot locked. */
static thread_bin *bin_for(cache_state *c, cache_slot *s, mri_stream_id key) {
  thread_bin *b = find_bin(s, key);
  if (b != NULL) return b;
  cache_heap *h = heap_get(c, key);
  if (h == NULL) return NULL;
  thread_bin *victim = NULL;
  for (int i = 0; i < BINS_PER_SLOT; i++) {
    if (!s->bins[i].in_use) {
      victim = &s->bins[i];
      break;
    }
    if (victim == NULL || s->bins[i].last_use < victim->last_use) victim = &s->bins[i];
  }
  if (victim->in_use) {
    flush_bin(c, s, victim, NULL, false);
    heap_put(c, victim->heap);
  }
  victim->in_use = true;
  victim->key = key;
  victim->heap = h;
  victim->last_use = ++s->tick;
  s->mru = (int)(victim - s->bins);
  return victim;
}

/* The calling thread's heap for `key`: its bin's (read without a lock on
 * the owner's path), its bin made if need be. A thread without a slot (or
 * when host memory ran out for a bin) borrows a reference (*borrowed),
 * which heap_put gives back. NULL if host memory ran out. */
static cache_heap *thread_heap(cache_state *c, cache_slot *s, mri_stream_id key, bool *borrowed) {
  *borrowed = false;
  if (s != NULL) {
    if (slot_enter(s)) {
      thread_bin *b = find_bin(s, key);
      cache_heap *h = b != NULL ? b->heap : NULL;
      slot_exit(s);
      if (h != NULL) return h;
    }
    pthread_mutex_lock(&s->lock);
    thread_bin *b = bin_for(c, s, key);
    cache_heap *h = b != NULL ? b->heap : NULL;
    pthread_mutex_unlock(&s->lock);
    if (h != NULL) return h;
  }
  *borrowed = true;
  return heap_get(c, key);
}

/* Raise or lower the thread's budget to its share (STACK_SHARE) of what the small pool
 * of `b`'s stream has in use. Slot locked. */
static void rebudget(cache_slot *s, thread_bin *b) {
  cache_lock_take(&b->heap->lock);
  const cache_pool *p = &b->heap->small;
  size_t in_use = p->segment_bytes - p->free_bytes;
  cache_lock_give(&b->heap->lock);
  size_t budget = in_use / STACK_SHARE;
  if (budget < STACK_BUDGET_FLOOR) budget = STACK_BUDGET_FLOOR;
  if (budget > STACK_BUDGET_CEILING) budget = STACK_BUDGET_CEILING;
  s->budget = budget;
}

/* After the budget fell: give blocks back from the thread's stacks until
 * they hold no more than it, the largest classes first, from `b` (the
 * caller's stream, alive) before the other bins (whose streams may be
 * gone: their blocks wait as after a trim's flush). Slot locked. */
static void fit_budget(cache_state *c, cache_slot *s, thread_bin *b, mr_stream stream) {
  for (int i = -1; i < BINS_PER_SLOT; i++) {
    thread_bin *x = i < 0 ? b : &s->bins[i];
    if (!x->in_use || (i >= 0 && x == b)) continue;
    for (unsigned k = CLASS_COUNT; k-- > 0;) {
      uint32_t n = atomic_load_explicit(&x->counts[k], memory_order_relaxed);
      while (n > 0 && atomic_load_explicit(&s->stack_bytes, memory_order_relaxed) > s->budget) {
        n--;
        give_block(c, x->heap, x->items[k][n], class_sizes[k], class_sizes[k], x->key,
                   x == b ? stream : NULL, x == b, false);
        atomic_store_explicit(&x->counts[k], n, memory_order_relaxed);
        atomic_fetch_sub_explicit(&s->stack_bytes, class_sizes[k], memory_order_relaxed);
      }
    }
  }
}

/* ---- the common paths -------------------------------------------------------- */

/* The key of `stream`: its ID where reuse follows streams. For an
 * allocation (`capturing` not NULL) also whether it is capturing. */
static inline mr_status stream_key(cache_state *c, mr_stream stream, mri_stream_id *key,
                                   bool *capturing) {
  *key = 0;
  if (!c->ordered) return MR_OK;
  mr_status st;
  if (stream == NULL || stream == (mr_stream)(uintptr_t)1 /* CU_STREAM_LEGACY */) {
    st = mri_legacy_stream_id(c->device, key);
  } else if (capturing != NULL) {
    mri_stream_info info;
    st = mri_stream_query(stream, c->device, &info);
    *capturing = info.capturing;
    *key = info.id;
  } else {
    st = mri_stream_get_id(stream, c->device, key);
  }
  return st;
}

/* Pop a block of class k from the thread's stack for `key`, under the
 * slot's lock (a revoker is about). */
static void *locked_pop(cache_slot *s, mri_stream_id key, unsigned k) {
  void *p = NULL;
  pthread_mutex_lock(&s->lock);
  thread_bin *b = find_bin(s, key);
  uint32_t n = b != NULL ? atomic_load_explicit(&b->counts[k], memory_order_relaxed) : 0;
  if (n > 0) {
    p = b->items[k][n - 1];
    atomic_store_explicit(&b->counts[k], n - 1, memory_order_relaxed);
    atomic_fetch_sub_explicit(&s->stack_bytes, class_sizes[k], memory_order_relaxed);
    bump(&s->hits);
  }
  pthread_mutex_unlock(&s->lock);
  return p;
}

static mr_status heap_path_allocate(cache_state *c, cache_slot *s, bool small, size_t size,
                                    mri_stream_id key, mr_stream stream, void **ptr)
    __attribute__((noinline));
static mr_status heap_path_allocate(cache_state *c, cache_slot *s, bool small, size_t size,
                                    mri_stream_id key, mr_stream stream, void **ptr) {
  /* The stack of another of the thread's streams than the latest one, and
   * the heap of the stream; or, with a revoker about, the same under the
   * slot's lock. */
  cache_heap *h = NULL;
  if (s != NULL) {
    unsigned k = small ? class_of(size) : 0;
    if (slot_enter(s)) {
      thread_bin *b = find_bin(s, key);
      uint32_t n = 0;
      if (b != NULL) {
        h = b->heap;
        n = small ? atomic_load_explicit(&b->counts[k], memory_order_relaxed) : 0;
        if (n > 0) {
          *ptr = b->items[k][n - 1];
          atomic_store_explicit(&b->counts[k], n - 1, memory_order_relaxed);
          atomic_store_explicit(&s->stack_bytes,
                                atomic_load_explicit(&s->stack_bytes, memory_order_relaxed) -
                                    class_sizes[k],
                                memory_order_relaxed);
          bump(&s->hits);
        }
      }
      slot_exit(s);
      if (n > 0) return MR_OK;
    } else if (small && (*ptr = locked_pop(s, key, k)) != NULL) {
      return MR_OK;
    }
  }
  bool borrowed = false;
  if (h == NULL && (h = thread_heap(c, s, key, &borrowed)) == NULL)
    return mri_error(MR_ERR_OUT_OF_MEMORY, "cache: out of host memory");
  mr_status st = heap_allocate(c, s, h, small, size, stream, ptr);
  if (borrowed) heap_put(c, h);
  return st;
}

static inline __attribute__((always_inline)) mr_status
cache_take(cache_state *c, size_t bytes, size_t alignment, mr_stream stream, void **ptr) {
  /* Before anything changes (a thread slot, a stream's heap). */
  if (MRI_UNLIKELY(bytes > CACHE_SMALL_MAX) && MRI_UNLIKELY(!large_sizes_fit(bytes)))
    return refuse_oversized(c, bytes);
  mri_stream_id key;
  bool capturing = false;
  mr_status st = stream_key(c, stream, &key, &capturing);
  if (MRI_UNLIKELY(st != MR_OK)) return mri_error_prefix(st, "cache");
  cache_slot *s = my_slot(c);
  if (MRI_UNLIKELY(capturing)) return bypass_allocate(c, s, bytes, alignment, stream, ptr);
  if (MRI_UNLIKELY(key == MRI_STREAM_ID_SHUT_DOWN))
    return mri_error(MR_ERR_DRIVER, "cache: the CUDA driver has shut down");
  if (MRI_UNLIKELY(bytes > CACHE_SMALL_MAX)) {
    size_t size = bytes;
    cache_large_size(bytes, &size); /* within SIZE_MAX: large_sizes_fit said so */
    st = heap_path_allocate(c, s, false, size, key, stream, ptr);
    if (MRI_UNLIKELY(st != MR_OK)) return large_failed(c, st, bytes);
    return nvtx_out_(c, st, ptr, bytes);
  }
  unsigned k = class_of(bytes);
  if (MRI_LIKELY(s != NULL) && MRI_LIKELY(slot_enter(s))) {
    thread_bin *b = &s->bins[s->mru];
    uint32_t n = atomic_load_explicit(&b->counts[k], memory_order_relaxed);
    if (MRI_LIKELY(b->key == key && b->in_use && n > 0)) {
      *ptr = b->items[k][n - 1];
      atomic_store_explicit(&b->counts[k], n - 1, memory_order_relaxed);
      atomic_store_explicit(&s->stack_bytes,
                            atomic_load_explicit(&s->stack_bytes, memory_order_relaxed) -
                                class_sizes[k],
                            memory_order_relaxed);
      bump(&s->hits);
      slot_exit(s);
      return nvtx_out_(c, MR_OK, ptr, bytes);
    }
    slot_exit(s);
  }
  return nvtx_out_(c, heap_path_allocate(c, s, true, class_sizes[k], key, stream, ptr), ptr, bytes);
}

/* ---- deallocate ------------------------------------------------------------------- */

/* A free that finds no record: not this cache's block, or freed twice. */
static mr_status not_ours(cache_state *c, const void *ptr, size_t bytes) {
  return mri_error(MR_ERR_INVALID_ARGUMENT,
                   "%s: %p (%zu bytes) was not allocated here, or was freed already",
                   c->description, ptr, bytes);
}

/* The heap that handed out `ptr`, other than `tried`, with the block taken
 * out of its map; NULL if none did. */
static cache_heap *find_owner(cache_state *c, cache_heap *tried, const void *ptr,
                              cache_block **out) {
  cache_heap *found = NULL;
  pthread_mutex_lock(&c->table_lock);
  FOR_EACH_HEAP(c, x) {
    if (x == tried) continue;
    cache_lock_take(&x->lock);
    cache_block *b = mri_cache_map_take(&x->blocks, (uintptr_t)ptr);
    cache_lock_give(&x->lock);
    if (b != NULL) {
      found = x;
      *out = b;
      break;
    }
  }
  /* The block is out of every map, so its segment (and heap) stays. */
  pthread_mutex_unlock(&c->table_lock);
  return found;
}

/* Give a block back, freed on stream `key` (`stream`, alive when `alive`),
 * `bytes` by the caller's count, `size` by the cache's. `tidy`: a small
 * segment it empties may go back upstream (small_idle_keep; not while a
 * heap about to grow takes a stack back). `hint` is the heap
 * of `key` if known: where a block freed on its own stream is. A block of
 * another stream's heap waits there for an event on the freeing stream
 * (pending); over a host upstream it is free at once. Past the cap, idle
 * segments go upstream. */
static mr_status give_block(cache_state *c, cache_heap *hint, void *ptr, size_t bytes, size_t size,
                            mri_stream_id key, mr_stream stream, bool alive, bool tidy) {
  if (key == MRI_STREAM_ID_SHUT_DOWN) alive = false; /* nothing runs any more */
  cache_heap *h = hint;
  cache_block *b = NULL;
  if (h != NULL) {
    cache_lock_take(&h->lock);
    b = mri_cache_map_take(&h->blocks, (uintptr_t)ptr);
    if (b == NULL) cache_lock_give(&h->lock);
  }
  if (b == NULL) {
    h = find_owner(c, hint, ptr, &b);
    if (h == NULL) return not_ours(c, ptr, bytes);
    cache_lock_take(&h->lock);
  }
  /* h is locked and b out of its map. */
  if (MRI_UNLIKELY(b->asked != size)) {
    size_t asked = b->asked;
    mri_cache_map_put(&h->blocks, (uintptr_t)ptr, b); /* its slot is free: cannot fail */
    cache_lock_give(&h->lock);
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: %p was allocated as a block of %zu bytes and freed with %zu "
                     "(which takes %zu): deallocate needs the allocation's size",
                     c->description, ptr, asked, bytes, size);
  }
  uint64_t epoch = current_epoch(c);
  bool own = !c->ordered || h->key == key || key == MRI_STREAM_ID_SHUT_DOWN;
  segment_list over = {NULL};
  if (own) {
    cache_segment *idle = mri_cache_heap_release(h, b, epoch);
    if (alive) cover_own_frees(c, h, stream, idle != NULL, 1);
    if (MRI_UNLIKELY(capped(c) && alive &&
                     atomic_load_explicit(&c->idle_bytes, memory_order_relaxed) > c->max_idle)) {
      take_idle(h, true, 0, &over);
      take_idle(h, false, 0, &over);
    } else if (idle != NULL && idle->small && alive && tidy) {
      size_t keep = small_idle_keep(&h->small, 2);
      if (keep < h->small.idle_bytes) take_idle(h, true, keep, &over);
    }
    cache_lock_give(&h->lock);
  } else {
    /* The event is recorded outside the heap's lock; the block is out of
     * every list meanwhile, the caller's still. */
    cache_lock_give(&h->lock);
    cache_wait *w = alive ? wait_on(c, stream) : NULL;
    cache_lock_take(&h->lock);
    mri_cache_heap_park(h, b, w, epoch);
    cache_lock_give(&h->lock);
    mri_cache_wait_release(w); /* the parked block holds its own reference */
  }
  if (over.first != NULL) give_back(c, h, &over, stream);
  if (MRI_UNLIKELY(capped(c) && alive &&
                   atomic_load_explicit(&c->idle_bytes, memory_order_relaxed) > c->max_idle))
    reduce_idle(c, h, stream);
  return MR_OK;
}

/* Push onto a thread's stack if it has room, under the slot's lock or the
 * owner's announcement; true if kept. */
static bool push(cache_slot *s, thread_bin *b, void *ptr, unsigned k) {
  uint32_t n = atomic_load_explicit(&b->counts[k], memory_order_relaxed);
  size_t held = atomic_load_explicit(&s->stack_bytes, memory_order_relaxed);
  if (held + class_sizes[k] > s->budget || n == STACK_DEPTH) return false;
  b->items[k][n] = ptr;
  atomic_store_explicit(&b->counts[k], n + 1, memory_order_relaxed);
  atomic_store_explicit(&s->stack_bytes, held + class_sizes[k], memory_order_relaxed);
  return true;
}

static mr_status heap_path_free(cache_state *c, cache_slot *s, void *ptr, size_t bytes, size_t size,
                                mri_stream_id key, mr_stream stream) __attribute__((noinline));
static mr_status heap_path_free(cache_state *c, cache_slot *s, void *ptr, size_t bytes, size_t size,
                                mri_stream_id key, mr_stream stream) {
  /* A stack that is not the latest one, a full one (then the heap; now
   * and then its budget is revised first), a new stream's, or a revoker
   * about. */
  bool small = size <= CACHE_SMALL_MAX;
  cache_heap *h = NULL;
  if (s != NULL) {
    unsigned k = small ? class_of(size) : 0;
    bool kept = false, locked_path = true;
    if (slot_enter(s)) {
      thread_bin *b = find_bin(s, key);
      if (b != NULL) {
        b->last_use = ++s->tick;
        h = b->heap;
        locked_path = false;
        if (small && !(kept = push(s, b, ptr, k)))
          locked_path = ++b->overflows % REBUDGET_EVERY == 0;
      }
      slot_exit(s);
      if (kept) return MR_OK;
    }
    if (locked_path) {
      pthread_mutex_lock(&s->lock);
      thread_bin *b = bin_for(c, s, key);
      if (b != NULL) {
        b->last_use = ++s->tick;
        h = b->heap;
        if (small && !(kept = push(s, b, ptr, k))) {
          rebudget(s, b);
          fit_budget(c, s, b, stream);
          kept = push(s, b, ptr, k);
        }
      }
      pthread_mutex_unlock(&s->lock);
      if (kept) return MR_OK;
    }
  }
  bool borrowed = false;
  if (h == NULL) h = thread_heap(c, s, key, &borrowed);
  mr_status st = give_block(c, h, ptr, bytes, size, key, stream, true, true);
  if (borrowed) heap_put(c, h);
  return st;
}

static mr_status captured_free(cache_state *c, void *ptr, mr_stream stream, bool *done)
    __attribute__((noinline));
static mr_status captured_free(cache_state *c, void *ptr, mr_stream stream, bool *done) {
  mri_ptrmap_value v;
  pthread_mutex_lock(&c->capture_lock);
  *done = mri_ptrmap_take(c->captured, ptr, &v);
  if (*done) atomic_fetch_sub_explicit(&c->captured_live, 1, memory_order_relaxed);
  pthread_mutex_unlock(&c->capture_lock);
  if (!*done) return MR_OK;
  mr_status st = mri_deallocate(c->upstream, ptr, v.bytes, v.alignment, stream);
  if (st != MR_OK) {
    /* Still the caller's: keep the record (the slot just freed is reused,
     * so this cannot fail). */
    pthread_mutex_lock(&c->capture_lock);
    mri_ptrmap_put(c->captured, ptr, v);
    atomic_fetch_add_explicit(&c->captured_live, 1, memory_order_relaxed);
    pthread_mutex_unlock(&c->capture_lock);
  }
  return st;
}

static inline __attribute__((always_inline)) mr_status cache_give(cache_state *c, void *ptr,
                                                                  size_t bytes, mr_stream stream) {
  if (MRI_UNLIKELY(atomic_load_explicit(&c->captured_live, memory_order_relaxed) > 0)) {
    bool done;
    mr_status st = captured_free(c, ptr, stream, &done);
    if (done) return st;
  }
  /* No block is that large (its allocation was refused): a wrapped size
   * would file the pointer under a small class. */
  size_t size = 0;
  if (MRI_UNLIKELY(bytes > CACHE_SMALL_MAX) &&
      MRI_UNLIKELY(!large_sizes_fit(bytes) || !cache_large_size(bytes, &size)))
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: %p freed with %zu bytes, more than any block of the cache can be "
                     "(freed with another size?); nothing was freed",
                     c->description, ptr, bytes);
  mri_stream_id key;
  mr_status st = stream_key(c, stream, &key, NULL);
  if (MRI_UNLIKELY(st != MR_OK)) return mri_error_prefix(st, "cache: freeing %p", ptr);
  mri_nvtx_region_remove(ptr);
  cache_slot *s = my_slot(c);
  if (MRI_UNLIKELY(bytes > CACHE_SMALL_MAX))
    return heap_path_free(c, s, ptr, bytes, size, key, stream);
  unsigned k = class_of(bytes);
  if (MRI_LIKELY(s != NULL) && MRI_LIKELY(slot_enter(s))) {
    thread_bin *b = &s->bins[s->mru];
    uint32_t n = atomic_load_explicit(&b->counts[k], memory_order_relaxed);
    size_t held = atomic_load_explicit(&s->stack_bytes, memory_order_relaxed);
    if (MRI_LIKELY(b->key == key && b->in_use && n < STACK_DEPTH &&
                   held + class_sizes[k] <= s->budget)) {
      b->items[k][n] = ptr;
      atomic_store_explicit(&b->counts[k], n + 1, memory_order_relaxed);
      atomic_store_explicit(&s->stack_bytes, held + class_sizes[k], memory_order_relaxed);
      slot_exit(s);
      return MR_OK;
    }
    slot_exit(s);
  }
  return heap_path_free(c, s, ptr, bytes, class_sizes[k], key, stream);
}

/* With MRCTX_DEBUG a free must match its allocation exactly (core/debug.h):
 * a block's stack is its class's, so a wrong size would hand it out again
 * as a larger block. Without, the heap path refuses a size whose block is
 * not the one allocated; the threads' stacks cannot tell. The checked
 * paths are apart, so the common path pays one test of a flag. */
static mr_status checked_allocate(cache_state *c, size_t bytes, size_t alignment, mr_stream stream,
                                  void **ptr) __attribute__((noinline));
static mr_status checked_allocate(cache_state *c, size_t bytes, size_t alignment, mr_stream stream,
                                  void **ptr) {
  mr_status st = cache_take(c, bytes, alignment, stream, ptr);
  if (st == MR_OK && mri_size_check_note(&c->check, *ptr, bytes, alignment) != MR_OK) {
    if (cache_give(c, *ptr, bytes, stream) != MR_OK) {
    }
    *ptr = NULL;
    return mri_size_check_note_failed(c->description, bytes);
  }
  return st;
}

static mr_status checked_deallocate(cache_state *c, void *ptr, size_t bytes, size_t alignment,
                                    mr_stream stream) __attribute__((noinline));
static mr_status checked_deallocate(cache_state *c, void *ptr, size_t bytes, size_t alignment,
                                    mr_stream stream) {
  mr_status st = mri_size_check_take(&c->check, c->description, ptr, bytes, alignment);
  if (st != MR_OK) return st;
  st = cache_give(c, ptr, bytes, stream);
  if (st != MR_OK) mri_size_check_restore(&c->check, ptr, bytes, alignment);
  return st;
}

static mr_status cache_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                void **ptr) {
  cache_state *c = self;
  if (MRI_UNLIKELY(c->check.on)) return checked_allocate(c, bytes, alignment, stream, ptr);
  return cache_take(c, bytes, alignment, stream, ptr);
}

static mr_status cache_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                  mr_stream stream) {
  cache_state *c = self;
  if (MRI_UNLIKELY(c->check.on)) return checked_deallocate(c, ptr, bytes, alignment, stream);
  return cache_give(c, ptr, bytes, stream);
}

/* ---- trim, destroy ----------------------------------------------------------------- */

/* A new decay window for `h`: its pools' low-water marks of idle bytes
 * start again from what is idle now. Heap locked. */
static void reset_lows(cache_heap *h) {
  h->small.idle_low = h->small.idle_bytes;
  h->large.idle_low = h->large.idle_bytes;
}

/* After a device synchronization (settle), give each heap's idle segments
 * back upstream on the per-thread stream: all of them, or with `lows` only
 * what stayed idle through the decay's window (each pool's low-water
 * mark), which then starts a new window. *released grows by what went.
 * Returns the first failure; what failed stays cached. */
static mr_status give_back_heaps(cache_state *c, bool lows, size_t *released) {
  mr_status st = MR_OK;
  uint64_t safe = safe_epoch(c);
  pthread_mutex_lock(&c->table_lock);
  FOR_EACH_HEAP(c, h) {
    if (st != MR_OK) break;
    segment_list idle = {NULL};
    cache_lock_take(&h->lock);
    mri_cache_heap_settle_pending(h, safe);
    take_idle(h, true, lows ? h->small.idle_bytes - h->small.idle_low : 0, &idle);
    take_idle(h, false, lows ? h->large.idle_bytes - h->large.idle_low : 0, &idle);
    if (lows) reset_lows(h);
    cache_lock_give(&h->lock);
    size_t bytes = 0;
    for (cache_segment *seg = idle.first; seg != NULL; seg = seg->next) bytes += seg->size;
    st = give_back(c, h, &idle, MRI_STREAM_PER_THREAD);
    if (st == MR_OK) *released += bytes;
    heap_reclaim_locked(c, h);
  }
  pthread_mutex_unlock(&c->table_lock);
  return st;
}

/* Give every idle segment back upstream: threads' stacks are emptied into
 * the heaps first (each owner finishing the use it is in), then the
 * device is synchronized, so that every free so far is past and every idle
 * segment can be freed on the legacy stream. A segment whose upstream free
 * fails stays cached, and the first failure is reported. */
static mr_status cache_release_all(cache_state *c, size_t *released) {
  *released = 0;
  cache_slot *slots[MRI_MAX_SLOTS];
  int n = all_slots(c, slots);
  slots_revoke(slots, n, false);
  for (int i = 0; i < n; i++) flush_slot(c, slots[i], false);
  slots_return(slots, n);
  mr_status st = c->ordered ? settle(c) : MR_OK;
  if (st != MR_OK) return mri_error_prefix(st, "cache: trimming");
  st = give_back_heaps(c, false, released);
  if (st != MR_OK) return mri_error_prefix(st, "cache: trim: giving a segment back upstream");
  return MR_OK;
}

static mr_status cache_trim(void *self) {
  size_t released;
  mr_status st = cache_release_all(self, &released);
  if (st != MR_OK) return st;
  return mr_resource_trim(((cache_state *)self)->upstream);
}

/* The process-wide reclaim's way in: every thread's stacks and every idle
 * segment, as a trim, without passing it upstream (the pools below are
 * reclaimed on their own, and one marked keep stays as it is). */
static mr_status cache_reclaim(void *obj, size_t goal, size_t *released) {
  (void)goal;
  return cache_release_all(obj, released);
}

/* The decay's way in (core/decay.h): a new window, and with `release` the
 * idle segments that stayed idle since the previous call -- each pool's low-water mark of idle bytes,
 * which count_idle keeps where an idle segment gets used -- go back, the
 * largest first, and a new window starts. Threads' stacks stay: they are
 * the fast path, bounded, and their blocks keep their segments in use. The
 * device is waited for first, as a trim does (idle segments carry no
 * event to query), but only when something stayed idle. */
static mr_status cache_decay(void *obj, bool release, size_t *released) {
  cache_state *c = obj;
  *released = 0;
  bool due = false;
  pthread_mutex_lock(&c->table_lock);
  FOR_EACH_HEAP(c, h) {
    cache_lock_take(&h->lock);
    due = due || (release && h->small.idle_low + h->large.idle_low > 0);
    cache_lock_give(&h->lock);
  }
  if (!due) {
    FOR_EACH_HEAP(c, h) {
      cache_lock_take(&h->lock);
      reset_lows(h);
      cache_lock_give(&h->lock);
    }
  }
  pthread_mutex_unlock(&c->table_lock);
  if (!due) return MR_OK;
  /* The low-water marks only fall meanwhile: what they say after the wait
   * stayed idle through it too. */
  mr_status st = c->ordered ? settle(c) : MR_OK;
  if (st != MR_OK) return mri_error_prefix(st, "cache: giving idle memory back");
  st = give_back_heaps(c, true, released);
  if (st != MR_OK) return mri_error_prefix(st, "cache: giving idle memory back upstream");
  return MR_OK;
}

/* Idle now: the threads' stacks and the heaps' idle segments. */
static size_t cache_idle(void *obj) {
  cache_state *c = obj;
  size_t idle = 0;
  for (int i = 0; i < MRI_MAX_SLOTS; i++) {
    cache_slot *s = atomic_load_explicit(&c->slots[i], memory_order_acquire);
    if (s == NULL) continue;
    idle += atomic_load_explicit(&s->stack_bytes, memory_order_relaxed);
  }
  pthread_mutex_lock(&c->table_lock);
  FOR_EACH_HEAP(c, h) {
    cache_lock_take(&h->lock);
    idle += h->small.idle_bytes + h->large.idle_bytes + h->pending_bytes;
    cache_lock_give(&h->lock);
  }
  pthread_mutex_unlock(&c->table_lock);
  return idle;
}

static void cache_destroy(void *self) {
  cache_state *c = self;
  mri_reclaimer_unregister(&c->reclaimer);
  mri_fork_unregister(&c->fork);
  registry_remove(c);
  /* Errors are ignored: at process exit the driver may be gone, and then
   * so is the memory. */
  if (c->ready) cache_trim(c);
  for (int i = 0; i < MRI_MAX_SLOTS; i++) {
    cache_slot *s = atomic_load_explicit(&c->slots[i], memory_order_relaxed);
    if (s == NULL) continue;
    flush_slot(c, s, true);
    pthread_mutex_destroy(&s->lock);
    free(s);
  }
  /* What a failed trim left, and blocks never freed: best effort, nothing
   * can use them any more. */
  FOR_EACH_HEAP(c, h) {
    for (cache_block *b = h->pending; b != NULL; b = b->link_next) mri_cache_wait_release(b->wait);
    cache_segment *snext;
    for (cache_segment *s = h->segments; s != NULL; s = snext) {
      snext = s->next;
      mri_nvtx_heap_remove((void *)s->base);
      mri_deallocate(c->upstream, (void *)s->base, s->size, CACHE_ALIGNMENT, NULL);
      free(s);
    }
    mri_cache_heap_fini(h);
    free(h);
  }
  free(c->table);
  mri_cache_records_fini(&c->records);
  mri_size_check_fini(&c->check);
  mri_ptrmap_destroy(c->captured);
  pthread_mutex_destroy(&c->capture_lock);
  pthread_mutex_destroy(&c->table_lock);
  mri_adaptor_free(c);
}

static const mr_resource_ops cache_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "cache",
    .allocate = cache_allocate,
    .deallocate = cache_deallocate,
    .synchronize = mri_forward_synchronize,
    .trim = cache_trim,
    .destroy = cache_destroy,
};

mr_status mr_cache_resource_create(mr_resource *upstream, size_t max_cached, mr_resource **out) {
  mr_status st = mri_adaptor_check(&cache_ops, upstream, out);
  if (st != MR_OK) return st;
  /* No cap (0 or SIZE_MAX) is left out, so "cache(device)" stays so. */
  bool cap = max_cached != 0 && max_cached != SIZE_MAX;
  char size[32];
  mri_format_size(max_cached, size, sizeof size);
  cache_state *c =
      !cap ? mri_adaptor_alloc(sizeof *c, upstream, "cache(%s)", mr_resource_describe(upstream))
           : mri_adaptor_alloc(sizeof *c, upstream, "cache(%s, max=%s)",
                               mr_resource_describe(upstream), size);
  if (c == NULL) return MR_ERR_OUT_OF_MEMORY;
  pthread_mutex_init(&c->table_lock, NULL);
  pthread_mutex_init(&c->capture_lock, NULL);
  mri_cache_records_init(&c->records);
  atomic_init(&c->epoch, 1);
  atomic_init(&c->safe_epoch, 1);
  c->max_idle = cap ? max_cached : SIZE_MAX;
  c->ordered = mri_reuse_follows_streams(&upstream->props);
  c->device = upstream->props.kind == MR_MEMORY_DEVICE ? upstream->props.device : -1;
  mri_size_check_init(&c->check);
  c->captured = mri_ptrmap_create();
  st = c->captured != NULL ? MR_OK : mri_error(MR_ERR_OUT_OF_MEMORY, "cache: out of host memory");
  st = mri_adaptor_create(&cache_ops, c, MRI_ADAPTOR_KEEPS, st, out);
  if (st == MR_OK) {
    c->ready = true;
    registry_add(c);
    c->reclaimer = (mri_reclaimer){.release = cache_reclaim,
                                   .idle = cache_idle,
                                   .release_window = cache_decay,
                                   .obj = c,
                                   .device = mri_reclaim_device_of(&upstream->props),
                                   .what = c->description};
    mri_reclaimer_register(&c->reclaimer);
    c->fork = (mri_fork_lockable){
        .rank = MRI_FORK_RANK_RESOURCE, .lock = lock_cache, .unlock = unlock_cache, .obj = c};
    mri_fork_register(&c->fork);
  }
  return st;
}

bool mri_is_cache(const mr_resource *mr) { return mr_resource_state(mr, &cache_ops) != NULL; }

mr_status mr_cache_resource_get_stats(const mr_resource *mr, mr_cache_stats *stats) {
  if (stats == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_cache_resource_get_stats: stats is NULL");
  cache_state *c = mr_resource_state(mr, &cache_ops);
  if (c == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_cache_resource_get_stats: %s is not a cache",
                     mr_resource_describe(mr));
  /* Summed here, then copied out as far as the caller's struct goes. The
   * threads' counters are read as they stand: no thread is stopped. */
  mr_cache_stats sum = {.size = sizeof sum};
  for (int i = 0; i < MRI_MAX_SLOTS; i++) {
    cache_slot *s = atomic_load_explicit(&c->slots[i], memory_order_acquire);
    if (s == NULL) continue;
    sum.hits += atomic_load_explicit(&s->hits, memory_order_relaxed);
    sum.misses += atomic_load_explicit(&s->misses, memory_order_relaxed);
    sum.cross_stream += atomic_load_explicit(&s->cross_stream, memory_order_relaxed);
    sum.bypassed += atomic_load_explicit(&s->bypassed, memory_order_relaxed);
    sum.cached_bytes += atomic_load_explicit(&s->stack_bytes, memory_order_relaxed);
    for (int j = 0; j < BINS_PER_SLOT; j++) {
      thread_bin *b = &s->bins[j];
      for (unsigned k = 0; k < CLASS_COUNT; k++)
        sum.cached_blocks += atomic_load_explicit(&b->counts[k], memory_order_relaxed);
    }
  }
  sum.hits += atomic_load_explicit(&c->shared_hits, memory_order_relaxed);
  sum.misses += atomic_load_explicit(&c->shared_misses, memory_order_relaxed);
  sum.cross_stream += atomic_load_explicit(&c->shared_cross, memory_order_relaxed);
  sum.bypassed += atomic_load_explicit(&c->shared_bypassed, memory_order_relaxed);
  sum.trims = atomic_load_explicit(&c->released, memory_order_relaxed);
  pthread_mutex_lock(&c->table_lock);
  FOR_EACH_HEAP(c, h) {
    cache_lock_take(&h->lock);
    sum.cached_bytes += h->small.free_bytes + h->large.free_bytes + h->pending_bytes;
    sum.cached_blocks += h->small.index.blocks + h->large.index.blocks;
    cache_lock_give(&h->lock);
  }
  pthread_mutex_unlock(&c->table_lock);
  return MRI_STRUCT_WRITE(stats, &sum, mr_cache_stats, trims, "mr_cache_resource_get_stats");
}

mr_status mri_cache_thread_stacks(const mr_resource *mr, size_t *bytes, size_t *bound) {
  *bytes = *bound = 0;
  cache_state *c = mr_resource_state(mr, &cache_ops);
  if (c == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s is not a cache", mr_resource_describe(mr));
  int index = mri_thread_slot();
  cache_slot *s = index < 0 ? NULL : atomic_load_explicit(&c->slots[index], memory_order_acquire);
  if (s == NULL) return MR_OK;
  pthread_mutex_lock(&s->lock);
  *bytes = atomic_load_explicit(&s->stack_bytes, memory_order_relaxed);
  *bound = s->budget;
  pthread_mutex_unlock(&s->lock);
  return MR_OK;
}

/*
 * cache.c: "cache(UP, max=SIZE)", the fast stream-aware cache.
 *
 * Freed blocks are kept per thread (a thread slot) and per stream, in size
 * classes (four per power of two from 256 B to 64 MiB; larger requests go
 * straight upstream). The common path — same thread, same stream, a class
 * the bin holds — pops a host-side array under the slot's own lock, which
 * only trim ever contends: no driver call besides the capture check, no
 * shared cache line.
 *
 * Stream order. A block freed on stream S is reused at once by later work on
 * S. Another stream may have it only once an event recorded on S after the
 * free has completed. Events are recorded only inside a deallocate call on
 * S (the one moment the caller guarantees S is alive), and only by threads
 * that use several streams, once every RECORD_EVERY frees; a thread that
 * sticks to one stream never records. Blocks an event does not cover yet
 * ("uncovered") stay with their stream, or wait for a device
 * synchronization: a trim, or a settle, which a miss makes when uncovered
 * blocks of the shared pool pass a quarter of `max` (streams that are
 * created and destroyed one after another leave such blocks behind).
 * Every upstream that device work can touch is treated so, including the
 * synchronous ones (sync_device, sync_pinned, sync_managed): their frees
 * are immediate, but the work that used a block may still be running.
 *
 * Stream identity. Streams are told apart by their driver IDs
 * (cuStreamGetId), never by handle: a destroyed stream's handle comes back
 * for the next stream created while the old one's work may still run. The
 * legacy and per-thread streams have IDs of their own per context (and
 * thread). Finding the ID is one more driver call on each allocate and
 * deallocate (see `mrctx bench`).
 *
 * Sharing. Blocks move to a shared pool (one mutex) when a thread exits,
 * when a thread juggles more streams than a slot has bins, and never on the
 * common path. A miss looks in the slot's other streams, then in the other
 * threads' slots (a block freed there on the same stream is reusable at
 * once: one thread allocating what another frees, as PyTorch's autograd
 * does, is served from the cache; a slot another thread holds right then
 * is passed over, never waited for), then in the shared pool, then asks
 * upstream.
 *
 * Large blocks. Classes above 1 MiB hold real memory, and blocks cannot be
 * split: a cache that kept every large size it has seen would hold several
 * times a model's working set once the sizes in use shift. So idle large
 * blocks stay under a limit (an eighth of the large bytes in use, at least
 * 64 MiB, at most a quarter of `max` and 256 MiB): a large free past it
 * goes upstream, and before a large miss goes upstream past it, ready idle
 * large blocks of at least the new block's size go back first, on the
 * allocating stream, so that the upstream pool makes the new block from
 * their memory.
 *
 * Capture. An allocation on a stream that is capturing a graph goes
 * straight upstream (the driver pools make graph-safe memory) and is
 * remembered, so its free goes straight upstream too. As with the driver
 * itself, memory freed during a capture must have been allocated during it.
 *
 * Failures. A block whose upstream free fails stays in the cache (trim
 * reports the error); nothing is ever dropped.
 *
 * Bounds. At most `max` bytes sit unused in the cache. Slots reserve budget
 * from one shared counter in grant-sized steps, so the counter is touched
 * once per many operations; a free that finds no budget goes upstream.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adaptors/adaptors_internal.h"
#include "adaptors/reuse.h"
#include "core/nvtx.h"

#define MIN_CLASS_SHIFT 8   /* 256 B */
#define LARGE_SHIFT 20      /* 1 MiB */
#define MAX_CLASS_SHIFT 26  /* 64 MiB */
/* Classes 0 to LARGE_CLASS - 1 hold up to 1 MiB; the classes above are
 * "large": an idle large block costs real memory (see make_way). */
#define LARGE_CLASS (1 + (LARGE_SHIFT - MIN_CLASS_SHIFT) * 4)
#define CLASS_COUNT (LARGE_CLASS + (MAX_CLASS_SHIFT - LARGE_SHIFT) * 8)
#define MAX_CACHED_BLOCK ((size_t)1 << MAX_CLASS_SHIFT)
#define BINS_PER_SLOT 4
#define RECORD_EVERY 16
#define BLOCK_ALIGNMENT MR_DEFAULT_ALIGNMENT
#define LARGE_IDLE_MAX ((size_t)256 << 20)
#define LARGE_IDLE_FLOOR ((size_t)64 << 20)

/* ---- size classes ------------------------------------------------------- */

/* Class 0 holds up to 256 B; then (2^e, 2^(e+1)] splits into four classes
 * up to 1 MiB (at most 25% lost to rounding, on blocks that cost little)
 * and eight above it (at most 12.5%: a model's working set is mostly large
 * blocks, and every byte rounded up is reserved). */
static inline unsigned class_of(size_t bytes) {
  if (bytes <= ((size_t)1 << MIN_CLASS_SHIFT)) return 0;
  size_t t = bytes - 1;
  unsigned e = 63u - (unsigned)__builtin_clzll((unsigned long long)t);
  if (e < LARGE_SHIFT) return 1u + (e - MIN_CLASS_SHIFT) * 4u + (unsigned)((t >> (e - 2)) & 3u);
  return LARGE_CLASS + (e - LARGE_SHIFT) * 8u + (unsigned)((t >> (e - 3)) & 7u);
}

/* The size of every class, filled once (class_size is on the common path). */
#define SMALL_CLASS_SIZE_(c) \
  ((c) == 0 ? (size_t)1 << MIN_CLASS_SHIFT \
            : ((size_t)1 << (MIN_CLASS_SHIFT + ((c) - 1) / 4)) + \
                  ((size_t)(((c) - 1) % 4 + 1) << (MIN_CLASS_SHIFT + ((c) - 1) / 4 - 2)))
#define LARGE_CLASS_SIZE_(j) \
  (((size_t)1 << (LARGE_SHIFT + (j) / 8)) + ((size_t)((j) % 8 + 1) << (LARGE_SHIFT + (j) / 8 - 3)))
#define CLASS_SIZE_(c) \
  ((c) < LARGE_CLASS ? SMALL_CLASS_SIZE_(c) : LARGE_CLASS_SIZE_((c) - LARGE_CLASS))
#define CLASS_SIZES_4_(c) CLASS_SIZE_(c), CLASS_SIZE_(c + 1), CLASS_SIZE_(c + 2), CLASS_SIZE_(c + 3)
#define CLASS_SIZES_16_(c) \
  CLASS_SIZES_4_(c), CLASS_SIZES_4_(c + 4), CLASS_SIZES_4_(c + 8), CLASS_SIZES_4_(c + 12)
static const size_t class_sizes[CLASS_COUNT] = {
    CLASS_SIZES_16_(0),  CLASS_SIZES_16_(16), CLASS_SIZES_16_(32), CLASS_SIZES_16_(48),
    CLASS_SIZES_16_(64), CLASS_SIZES_16_(80), CLASS_SIZE_(96),
};
_Static_assert(CLASS_COUNT == 97, "class_sizes lists every class");
_Static_assert(CLASS_SIZE_(LARGE_CLASS - 1) == (size_t)1 << LARGE_SHIFT &&
                   CLASS_SIZE_(CLASS_COUNT - 1) == MAX_CACHED_BLOCK,
               "the classes end at 1 MiB and at MAX_CACHED_BLOCK");

static inline size_t class_size(unsigned c) { return class_sizes[c]; }


/* ---- data --------------------------------------------------------------- */

/* The free blocks of one class on one stream: a stack whose bottom
 * `covered` entries were freed before the bin's event was last recorded. */
typedef struct block_stack {
  void **items;
  uint32_t count, capacity, covered;
} block_stack;

typedef struct stream_bin {
  mri_stream_id stream; /* the stream's ID (0 for all streams over host memory) */
  bool in_use;
  bool event_recorded; /* `event` holds a record covering `covered` blocks */
  bool event_done;     /* that record was seen complete */
  uint32_t frees_since_record;
  uint64_t last_use;
  mri_event event;
  block_stack classes[CLASS_COUNT];
} stream_bin;

/* Owned by one thread slot; `lock` is taken by the owner on every operation
 * and by others only to trim, to read statistics, or when the owner exits. */
typedef struct cache_slot {
  _Atomic int lock;
  int index; /* in cache_state.slots: where its steals start looking */
  int bins_in_use;
  int mru; /* the bin used last: checked first */
  uint64_t tick;
  size_t cached_bytes, cached_blocks, grant;
  uint64_t hits, misses, cross_stream, bypassed;
  stream_bin bins[BINS_PER_SLOT];
} __attribute__((aligned(MRI_CACHE_LINE))) cache_slot;

/* A completed-or-not event shared by blocks spilled to the shared pool. */
typedef struct shared_event {
  mri_event event;
  int refs;
  bool done;
} shared_event;

typedef struct shared_block {
  void *ptr;
  mri_stream_id stream; /* freed on; reusable at once on the same stream */
  shared_event *event;  /* covers the free, or NULL */
  uint64_t epoch;       /* c->epoch at the free: safe once a device
                           synchronization started after it finished */
  bool safe;            /* reusable anywhere now (pageable host upstream) */
} shared_block;

typedef struct shared_class {
  shared_block *items;
  size_t count, capacity;
} shared_class;

typedef struct cache_state {
  mr_resource *upstream;
  char *description;
  size_t max_cached;
  size_t grant_unit;
  bool ordered; /* reuse follows streams: device work may use the memory */
  int device;   /* upstream's device, -1 for host-side memory */

  _Atomic(cache_slot *) slots[MRI_MAX_SLOTS];
  _Atomic int slots_high;  /* slots[] at and above this index are NULL */
  _Atomic size_t reserved; /* slot grants + shared bytes, at most max_cached */
  _Atomic size_t idle_large;   /* cached bytes of large classes, slots and shared */
  _Atomic int64_t live_large;  /* large blocks handed out and not yet freed */
  size_t large_idle_max;       /* the most idle_large a free or a miss leaves */

  pthread_mutex_t lock; /* everything below */
  shared_class shared[CLASS_COUNT];
  size_t shared_bytes;
  /* Written under `lock`; read without it by a miss, which skips the lock
   * while the shared pool is empty (a stale value only costs a miss). */
  _Atomic size_t shared_blocks;
  /* Device synchronizations: a shared block put with epoch < safe_epoch was
   * freed before one of them started, and is safe for every stream. */
  uint64_t epoch, safe_epoch;
  size_t uncovered_bytes; /* shared blocks waiting for a synchronization */
  mri_ptrmap *captured; /* ptr -> {bytes, alignment}: graph allocations */
  _Atomic size_t captured_live;
  uint64_t shared_hits, shared_misses, shared_bypassed, trimmed;
  _Atomic uint64_t trimmed_large; /* given back by make_way */

  struct cache_state *prev, *next; /* registry, for thread-exit hooks */
} cache_state;
MRI_ADAPTOR_STATE(cache_state);

/* ---- registry: live caches, so an exiting thread can hand its blocks over */

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static cache_state *registry;

static void spill_slot(cache_state *c, cache_slot *s);

static void on_thread_exit(int slot) {
  pthread_mutex_lock(&registry_lock);
  for (cache_state *c = registry; c != NULL; c = c->next) {
    cache_slot *s = atomic_load_explicit(&c->slots[slot], memory_order_acquire);
    if (s != NULL) spill_slot(c, s);
  }
  pthread_mutex_unlock(&registry_lock);
}

static void registry_add(cache_state *c) {
  mri_thread_slot_on_exit(on_thread_exit);
  pthread_mutex_lock(&registry_lock);
  c->next = registry;
  if (registry != NULL) registry->prev = c;
  registry = c;
  pthread_mutex_unlock(&registry_lock);
}

static void registry_remove(cache_state *c) {
  pthread_mutex_lock(&registry_lock);
  if (c->prev != NULL) c->prev->next = c->next;
  else if (registry == c) registry = c->next;
  if (c->next != NULL) c->next->prev = c->prev;
  pthread_mutex_unlock(&registry_lock);
}

/* ---- locks -------------------------------------------------------------- */

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Contended only by trim and statistics readers, which may hold a slot for
 * a while (trim synchronizes the device): spin briefly, then yield the CPU
 * rather than burn it. */
static void slot_lock_contended(cache_slot *s) __attribute__((noinline));
static void slot_lock_contended(cache_slot *s) {
  unsigned spins = 0;
  do {
    while (atomic_load_explicit(&s->lock, memory_order_relaxed)) {
      if (++spins < 128)
        cpu_relax();
      else
        sched_yield();
    }
  } while (atomic_exchange_explicit(&s->lock, 1, memory_order_acquire));
}

static inline void slot_lock(cache_slot *s) {
  if (MRI_UNLIKELY(atomic_exchange_explicit(&s->lock, 1, memory_order_acquire)))
    slot_lock_contended(s);
}

/* Take another thread's slot only if it is free now: a thief never waits
 * for an owner (nor spins on its line while the owner works). */
static inline bool slot_try_lock(cache_slot *s) {
  return !atomic_load_explicit(&s->lock, memory_order_relaxed) &&
         !atomic_exchange_explicit(&s->lock, 1, memory_order_acquire);
}

static inline void slot_unlock(cache_slot *s) {
  atomic_store_explicit(&s->lock, 0, memory_order_release);
}

/* ---- budget ------------------------------------------------------------- */

/* Reserve `bytes` more of the shared budget; false when it would pass max. */
static bool reserve(cache_state *c, size_t bytes) {
  size_t seen = atomic_load_explicit(&c->reserved, memory_order_relaxed);
  do {
    if (bytes > c->max_cached || seen > c->max_cached - bytes) return false;
  } while (!atomic_compare_exchange_weak_explicit(&c->reserved, &seen, seen + bytes,
                                                  memory_order_relaxed, memory_order_relaxed));
  return true;
}

static void unreserve(cache_state *c, size_t bytes) {
  atomic_fetch_sub_explicit(&c->reserved, bytes, memory_order_relaxed);
}

/* ---- stacks --------------------------------------------------------------- */

static bool stack_push(block_stack *st, void *p) {
  if (MRI_UNLIKELY(st->count == st->capacity)) {
    uint32_t capacity = st->capacity ? st->capacity * 2 : 16;
    void **items = mri_host_realloc(st->items, capacity * sizeof *items);
    if (items == NULL) return false;
    st->items = items;
    st->capacity = capacity;
  }
  st->items[st->count++] = p;
  return true;
}

static inline void *stack_pop(block_stack *st) {
  void *p = st->items[--st->count];
  if (st->covered > st->count) st->covered = st->count;
  return p;
}

/* Take a covered block, keeping the covered entries at the bottom. */
static void *stack_take_covered(block_stack *st) {
  uint32_t i = st->covered - 1;
  void *p = st->items[i];
  st->items[i] = st->items[st->count - 1];
  st->count--;
  st->covered--;
  return p;
}

static inline void count_large(cache_state *c, unsigned k, int sign) {
  if (sign > 0)
    atomic_fetch_add_explicit(&c->idle_large, class_size(k), memory_order_relaxed);
  else
    atomic_fetch_sub_explicit(&c->idle_large, class_size(k), memory_order_relaxed);
}

/* How many idle large bytes the cache keeps now: an eighth of the large
 * bytes in use, at least LARGE_IDLE_FLOOR, at most large_idle_max. Idle
 * blocks beyond that would raise the upstream pool's peak by more than the
 * few driver calls they save. */
static inline size_t large_idle_limit(cache_state *c) {
  int64_t live = atomic_load_explicit(&c->live_large, memory_order_relaxed);
  size_t limit = live > 0 ? (size_t)live / 8 : 0;
  if (limit < LARGE_IDLE_FLOOR) limit = LARGE_IDLE_FLOOR;
  return limit < c->large_idle_max ? limit : c->large_idle_max;
}

static inline void count_live_large(cache_state *c, unsigned k, int sign) {
  atomic_fetch_add_explicit(&c->live_large, sign * (int64_t)class_size(k), memory_order_relaxed);
}

/* A block of class k entered (+1) or left (-1) a slot's bins; slot locked. */
static inline void slot_count_block(cache_state *c, cache_slot *s, unsigned k, int sign) {
  size_t size = class_size(k);
  if (sign > 0) {
    s->cached_bytes += size;
    s->cached_blocks++;
  } else {
    s->cached_bytes -= size;
    s->cached_blocks--;
  }
  if (MRI_UNLIKELY(k >= LARGE_CLASS)) count_large(c, k, sign);
}

/* ---- events --------------------------------------------------------------- */

static bool shared_event_done(shared_event *e) {
  if (!e->done) {
    bool done = false;
    if (mri_event_query(e->event, &done) == MR_OK && done) e->done = true;
  }
  return e->done;
}

/* Drop a reference; c->lock held (every reference lives in the shared
 * pool, except the one spill_bin holds while it fills the pool). */
static void shared_event_release(shared_event *e) {
  if (e != NULL && --e->refs == 0) {
    mri_event_destroy(e->event);
    free(e);
  }
}

static bool bin_event_done(stream_bin *b) {
  if (!b->event_recorded) return false;
  if (!b->event_done) {
    bool done = false;
    if (mri_event_query(b->event, &done) == MR_OK && done) b->event_done = true;
  }
  return b->event_done;
}

/* Record the bin's event on `stream`, the bin's stream: every block freed so
 * far becomes covered. Only called while a deallocate on that stream is in
 * progress (the one time it is known to be alive). */
static void bin_record(cache_state *c, stream_bin *b, mr_stream stream) {
  if (b->event == NULL) {
    /* An event belongs to the current context: a thread without one gets
     * the upstream's device's (as the runtime would). */
    if (mri_ensure_context(c->device) != MR_OK || mri_event_create(&b->event) != MR_OK) {
      b->event = NULL;
      return; /* no event: blocks stay uncovered; correctness is unaffected */
    }
  }
  if (mri_event_record(b->event, stream) != MR_OK) return;
  b->event_recorded = true;
  b->event_done = false;
  b->frees_since_record = 0;
  for (unsigned k = 0; k < CLASS_COUNT; k++) b->classes[k].covered = b->classes[k].count;
}

/* ---- the shared pool (c->lock held) --------------------------------------- */

/* Room for `more` blocks of class k, so that putting them cannot fail. */
static bool shared_reserve(cache_state *c, unsigned k, size_t more) {
  shared_class *sc = &c->shared[k];
  if (sc->count + more <= sc->capacity) return true;
  size_t capacity = sc->capacity ? sc->capacity * 2 : 16;
  if (capacity < sc->count + more) capacity = sc->count + more;
  shared_block *items = mri_host_realloc(sc->items, capacity * sizeof *items);
  if (items == NULL) return false;
  sc->items = items;
  sc->capacity = capacity;
  return true;
}

/* A block that only a device synchronization can make safe for others. */
static inline bool uncovered(const cache_state *c, const shared_block *b) {
  return !b->safe && b->event == NULL && b->epoch >= c->safe_epoch;
}

static bool shared_put(cache_state *c, unsigned k, shared_block blk) {
  if (!shared_reserve(c, k, 1)) return false;
  shared_class *sc = &c->shared[k];
  sc->items[sc->count++] = blk;
  if (blk.event != NULL) blk.event->refs++;
  if (uncovered(c, &blk)) c->uncovered_bytes += class_size(k);
  c->shared_bytes += class_size(k);
  atomic_fetch_add_explicit(&c->shared_blocks, 1, memory_order_relaxed);
  if (k >= LARGE_CLASS) count_large(c, k, +1);
  return true;
}

static bool shared_block_ready(cache_state *c, const shared_block *b, mri_stream_id stream) {
  return b->safe || b->stream == stream || b->epoch < c->safe_epoch ||
         (b->event != NULL && shared_event_done(b->event));
}

/* Remove entry i of class k; its bytes leave the cache's budget. */
static void *shared_remove(cache_state *c, unsigned k, size_t i) {
  shared_class *sc = &c->shared[k];
  shared_block *b = &sc->items[i];
  void *p = b->ptr;
  if (uncovered(c, b)) c->uncovered_bytes -= class_size(k);
  shared_event_release(b->event);
  *b = sc->items[--sc->count];
  c->shared_bytes -= class_size(k);
  atomic_fetch_sub_explicit(&c->shared_blocks, 1, memory_order_relaxed);
  if (k >= LARGE_CLASS) count_large(c, k, -1);
  unreserve(c, class_size(k));
  return p;
}

/* Give entry i of class k back upstream, freeing on `stream` (alive: its
 * caller is using it; the legacy stream for trim). Kept on failure. */
static mr_status shared_release(cache_state *c, unsigned k, size_t i, mr_stream stream) {
  mr_status st = mri_deallocate(c->upstream, c->shared[k].items[i].ptr, class_size(k),
                                BLOCK_ALIGNMENT, stream);
  if (st != MR_OK) return st;
  shared_remove(c, k, i);
  c->trimmed++;
  return MR_OK;
}

/* Move a bin's blocks to the shared pool; the slot's lock is held. Touches
 * no stream: the bin's stream may be gone already. Blocks for which the
 * pool has no room (host memory ran out) stay in the bin, uncovered, and
 * the bin stays in use; returns true if it emptied. */
static bool spill_bin(cache_state *c, cache_slot *s, stream_bin *b) {
  pthread_mutex_lock(&c->lock);
  shared_event *ev = NULL;
  if (b->event_recorded) {
    ev = mri_host_malloc(sizeof *ev);
    if (ev != NULL) {
      *ev = (shared_event){.event = b->event, .refs = 1, .done = b->event_done};
      b->event = NULL; /* ownership moves to the shared event */
    }
  }
  bool emptied = true;
  for (unsigned k = 0; k < CLASS_COUNT; k++) {
    block_stack *st = &b->classes[k];
    if (st->count == 0) continue;
    if (!shared_reserve(c, k, st->count)) {
      emptied = false;
      st->covered = 0; /* its event (if any) now belongs to the pool */
      continue;
    }
    for (uint32_t i = 0; i < st->count; i++) {
      shared_put(c, k, (shared_block){
                           .ptr = st->items[i],
                           .stream = b->stream,
                           .event = i < st->covered && ev != NULL ? ev : NULL,
                           .epoch = c->epoch,
                           .safe = !c->ordered,
                       });
    }
    /* The bytes now count as the shared pool's, not the slot's grant. */
    s->grant -= (size_t)st->count * class_size(k);
    for (uint32_t i = 0; i < st->count; i++) slot_count_block(c, s, k, -1);
    st->count = st->covered = 0;
  }
  shared_event_release(ev); /* spill_bin's own reference */
  pthread_mutex_unlock(&c->lock);
  b->event_recorded = b->event_done = false;
  b->frees_since_record = 0;
  if (!emptied) return false;
  if (b->event != NULL) {
    mri_event_destroy(b->event);
    b->event = NULL;
  }
  b->in_use = false;
  s->bins_in_use--;
  return true;
}

static void spill_slot(cache_state *c, cache_slot *s) {
  slot_lock(s);
  for (int i = 0; i < BINS_PER_SLOT; i++)
    if (s->bins[i].in_use) spill_bin(c, s, &s->bins[i]);
  /* Budget the slot reserved but no longer fills goes back. */
  unreserve(c, s->grant - s->cached_bytes);
  s->grant = s->cached_bytes;
  slot_unlock(s);
}

/* ---- slots and bins ------------------------------------------------------- */

static cache_slot *slot_create(cache_state *c, int index) {
  cache_slot *s = mri_host_aligned_alloc(MRI_CACHE_LINE, sizeof *s);
  if (s == NULL) return NULL;
  memset(s, 0, sizeof *s);
  s->index = index;
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

static inline stream_bin *find_bin(cache_slot *s, mri_stream_id stream) {
  stream_bin *b = &s->bins[s->mru];
  if (MRI_LIKELY(b->in_use && b->stream == stream)) return b;
  for (int i = 0; i < BINS_PER_SLOT; i++) {
    if (s->bins[i].in_use && s->bins[i].stream == stream) {
      s->mru = i;
      return &s->bins[i];
    }
  }
  return NULL;
}

/* The bin for `stream`, making room by spilling the least recently used;
 * NULL if none could be emptied. */
static stream_bin *new_bin(cache_state *c, cache_slot *s, mri_stream_id stream)
    __attribute__((noinline));

static inline stream_bin *bin_for_free(cache_state *c, cache_slot *s, mri_stream_id stream) {
  stream_bin *b = find_bin(s, stream);
  if (MRI_LIKELY(b != NULL)) return b;
  return new_bin(c, s, stream);
}

static stream_bin *new_bin(cache_state *c, cache_slot *s, mri_stream_id stream) {
  stream_bin *victim = NULL;
  for (int i = 0; i < BINS_PER_SLOT; i++) {
    if (!s->bins[i].in_use) {
      victim = &s->bins[i];
      break;
    }
    if (victim == NULL || s->bins[i].last_use < victim->last_use) victim = &s->bins[i];
  }
  if (victim->in_use && !spill_bin(c, s, victim)) return NULL;
  victim->in_use = true;
  victim->stream = stream;
  s->bins_in_use++;
  s->mru = (int)(victim - s->bins);
  return victim;
}

/* ---- upstream ------------------------------------------------------------- */

static mr_status cache_trim(void *self);

/* A block of class k from upstream; on out-of-memory, give back everything
 * cached and try once more. */
static mr_status upstream_block(cache_state *c, unsigned k, mr_stream stream, void **ptr) {
  mr_status st = mri_allocate(c->upstream, class_size(k), BLOCK_ALIGNMENT, stream, ptr);
  if (MRI_LIKELY(st == MR_OK) || st != MR_ERR_OUT_OF_MEMORY) return st;
  if (atomic_load_explicit(&c->reserved, memory_order_relaxed) == 0) return st;
  char saved[MRI_ERROR_CAPACITY];
  snprintf(saved, sizeof saved, "%s", mr_last_error());
  cache_trim(c);
  st = mri_allocate(c->upstream, class_size(k), BLOCK_ALIGNMENT, stream, ptr);
  if (st == MR_ERR_OUT_OF_MEMORY)
    return mri_error(st, "cache: still out of memory after returning every cached block: %s",
                     saved);
  return st;
}

/* Wait for the device(s), so that every block the shared pool held when
 * the wait began is safe for every stream. Blocks put meanwhile carry the
 * new epoch and wait for the next one. */
static mr_status settle(cache_state *c) {
  pthread_mutex_lock(&c->lock);
  uint64_t epoch = c->epoch++;
  pthread_mutex_unlock(&c->lock);
  mr_status st = mri_synchronize_devices(c->device);
  if (st != MR_OK) return mri_error_prefix(st, "cache: waiting for the device");
  pthread_mutex_lock(&c->lock);
  if (c->safe_epoch <= epoch) {
    c->safe_epoch = epoch + 1;
    c->uncovered_bytes = 0;
    for (unsigned k = 0; k < CLASS_COUNT; k++)
      for (size_t i = 0; i < c->shared[k].count; i++)
        if (uncovered(c, &c->shared[k].items[i])) c->uncovered_bytes += class_size(k);
  }
  pthread_mutex_unlock(&c->lock);
  return MR_OK;
}

/* ---- allocate ------------------------------------------------------------- */

/* Which counter an event on the slow paths bumps. */
typedef enum counter { COUNT_HIT, COUNT_MISS, COUNT_CROSS_HIT, COUNT_BYPASS } counter;

/* Count a slow-path event: in the thread's slot, or in the shared counters
 * for a thread without one. */
static void count(cache_state *c, cache_slot *s, counter what) {
  if (s != NULL) {
    slot_lock(s);
    s->hits += what == COUNT_HIT || what == COUNT_CROSS_HIT;
    s->cross_stream += what == COUNT_CROSS_HIT;
    s->misses += what == COUNT_MISS;
    s->bypassed += what == COUNT_BYPASS;
    slot_unlock(s);
  } else {
    pthread_mutex_lock(&c->lock);
    c->shared_hits += what == COUNT_HIT || what == COUNT_CROSS_HIT;
    c->shared_misses += what == COUNT_MISS;
    c->shared_bypassed += what == COUNT_BYPASS;
    pthread_mutex_unlock(&c->lock);
  }
}

static void shrink_grant(cache_state *c, cache_slot *s) __attribute__((noinline));
static void shrink_grant(cache_state *c, cache_slot *s) {
  s->grant -= c->grant_unit;
  unreserve(c, c->grant_unit);
}

static mr_status bypass_allocate(cache_state *c, cache_slot *s, size_t bytes, size_t alignment,
                                 mr_stream stream, bool captured, void **ptr)
    __attribute__((noinline));
static mr_status bypass_allocate(cache_state *c, cache_slot *s, size_t bytes, size_t alignment,
                                 mr_stream stream, bool captured, void **ptr) {
  mr_status st = mri_allocate(c->upstream, bytes, alignment, stream, ptr);
  if (st != MR_OK) return st;
  if (captured) {
    pthread_mutex_lock(&c->lock);
    st = mri_ptrmap_put(c->captured, *ptr,
                        (mri_ptrmap_value){.bytes = bytes, .alignment = alignment});
    if (st == MR_OK) atomic_fetch_add_explicit(&c->captured_live, 1, memory_order_relaxed);
    pthread_mutex_unlock(&c->lock);
    if (st != MR_OK) {
      mri_deallocate(c->upstream, *ptr, bytes, alignment, stream);
      *ptr = NULL;
      return mri_error(st, "cache: out of host memory recording a graph allocation");
    }
  }
  count(c, s, COUNT_BYPASS);
  return MR_OK;
}

/* A block of class k freed on another of this slot's streams, if reuse is
 * allowed: any, when device work cannot touch the memory; else a covered
 * one whose event completed. Slot locked. */
static void *take_from_other_bins(cache_state *c, cache_slot *s, stream_bin *own, unsigned k) {
  for (int i = 0; i < BINS_PER_SLOT; i++) {
    stream_bin *b = &s->bins[i];
    if (!b->in_use || b == own || b->classes[k].count == 0) continue;
    if (!c->ordered) return stack_pop(&b->classes[k]);
    if (b->classes[k].covered > 0 && bin_event_done(b)) return stack_take_covered(&b->classes[k]);
  }
  return NULL;
}

/* A block of class k from another thread's slot: one freed on stream `id`
 * (reusable at once by later work on `id`, as in the driver's pools), else
 * what take_from_other_bins allows. PyTorch's autograd thread frees what its
 * main thread allocates and allocates what that one frees: without this,
 * each thread's bins fill with the sizes the other wants and both keep
 * missing. No lock of ours is held here, so waiting for the other slot's
 * lock cannot deadlock (trim and thread exit take slots before c->lock).
 * The block's budget goes back to the cache. */
static void *steal(cache_state *c, cache_slot *own, unsigned k, mri_stream_id id, bool *cross) {
  int high = atomic_load_explicit(&c->slots_high, memory_order_acquire);
  /* Each thief starts after its own slot, so that thieves spread over the
   * slots instead of all queueing on the first; a slot whose owner (or
   * another thief) holds it is passed over. */
  int start = own != NULL ? own->index + 1 : 0;
  for (int n = 0; n < high; n++) {
    int i = (start + n) % high;
    cache_slot *o = atomic_load_explicit(&c->slots[i], memory_order_acquire);
    if (o == NULL || o == own || !slot_try_lock(o)) continue;
    stream_bin *b = find_bin(o, id);
    void *p = NULL;
    if (b != NULL && b->classes[k].count > 0) {
      p = stack_pop(&b->classes[k]);
      *cross = false;
    } else if ((p = take_from_other_bins(c, o, b, k)) != NULL) {
      *cross = true;
    }
    if (p != NULL) {
      slot_count_block(c, o, k, -1);
      o->grant -= class_size(k);
      unreserve(c, class_size(k));
    }
    slot_unlock(o);
    if (p != NULL) return p;
  }
  return NULL;
}

static size_t release_shared(cache_state *c, size_t need, unsigned min_class, mr_stream stream,
                             mri_stream_id id);

/* Give the large blocks of slot o's bin for `id` back upstream on `stream`
 * (alive: the caller is using it; safe: the blocks were freed on it), the
 * largest first, until `need` bytes went; returns how many did. A block
 * whose free fails stays. */
static size_t release_slot_large(cache_state *c, cache_slot *o, size_t need, mr_stream stream,
                                 mri_stream_id id) {
  size_t released = 0;
  slot_lock(o);
  stream_bin *b = find_bin(o, id);
  for (unsigned k = CLASS_COUNT; b != NULL && k-- > LARGE_CLASS && released < need;) {
    block_stack *st = &b->classes[k];
    while (st->count > 0 && released < need) {
      if (mri_deallocate(c->upstream, st->items[st->count - 1], class_size(k), BLOCK_ALIGNMENT,
                         stream) != MR_OK)
        goto done;
      stack_pop(st);
      slot_count_block(c, o, k, -1);
      o->grant -= class_size(k);
      unreserve(c, class_size(k));
      released += class_size(k);
      atomic_fetch_add_explicit(&c->trimmed_large, 1, memory_order_relaxed);
    }
  }
done:
  slot_unlock(o);
  return released;
}

/* Before a large block of class k comes from upstream: when the cache
 * already holds more idle large bytes than large_idle_limit, give back ready
 * large blocks of at least that size first, so that the upstream pool makes
 * the new block from their memory instead of growing. Blocks cannot be
 * split, and a cache that kept every large size it has seen would hold
 * several times the working set once the sizes in use shift (a model's
 * activations in the forward pass, its gradients in the backward pass);
 * the driver's pool can reuse the memory for any size. */
static void make_way(cache_state *c, cache_slot *own, unsigned k, mr_stream stream,
                     mri_stream_id id) {
  size_t idle = atomic_load_explicit(&c->idle_large, memory_order_relaxed);
  size_t need = class_size(k);
  if (idle + need <= large_idle_limit(c)) return;
  int high = atomic_load_explicit(&c->slots_high, memory_order_acquire);
  size_t released = own != NULL ? release_slot_large(c, own, need, stream, id) : 0;
  for (int i = 0; i < high && released < need; i++) {
    cache_slot *o = atomic_load_explicit(&c->slots[i], memory_order_acquire);
    if (o != NULL && o != own) released += release_slot_large(c, o, need - released, stream, id);
  }
  if (released < need) release_shared(c, need - released, LARGE_CLASS, stream, id);
}

static void *take_from_shared(cache_state *c, unsigned k, mri_stream_id stream, bool *cross) {
  void *p = NULL;
  pthread_mutex_lock(&c->lock);
  shared_class *sc = &c->shared[k];
  /* Newest first: the most likely to be warm and on this stream. */
  for (size_t i = sc->count; i-- > 0;) {
    if (shared_block_ready(c, &sc->items[i], stream)) {
      *cross = sc->items[i].stream != stream;
      p = shared_remove(c, k, i);
      break;
    }
  }
  pthread_mutex_unlock(&c->lock);
  return p;
}

/* True when the shared pool holds so many uncovered blocks that waiting
 * for the device once is better than growing. */
static bool worth_settling(cache_state *c) {
  pthread_mutex_lock(&c->lock);
  bool worth = c->uncovered_bytes > 0 && c->uncovered_bytes >= c->max_cached / 4;
  pthread_mutex_unlock(&c->lock);
  return worth;
}

static mr_status cache_allocate_miss(cache_state *c, cache_slot *s, unsigned k, mr_stream stream,
                                     mri_stream_id id, void **ptr) __attribute__((noinline));
static mr_status cache_allocate_miss(cache_state *c, cache_slot *s, unsigned k, mr_stream stream,
                                     mri_stream_id id, void **ptr) {
  bool cross = false;
  void *p = NULL;
  if (s != NULL) {
    slot_lock(s);
    p = take_from_other_bins(c, s, find_bin(s, id), k);
    if (p != NULL) {
      slot_count_block(c, s, k, -1);
      s->cross_stream++;
      s->hits++;
    }
    slot_unlock(s);
    if (p != NULL) {
      *ptr = p;
      return MR_OK;
    }
  }
  p = steal(c, s, k, id, &cross);
  /* Uncovered blocks are shared blocks: an empty pool needs no settling. */
  bool shared = atomic_load_explicit(&c->shared_blocks, memory_order_relaxed) > 0;
  if (p == NULL && shared) p = take_from_shared(c, k, id, &cross);
  if (p == NULL && shared && worth_settling(c) && settle(c) == MR_OK)
    p = take_from_shared(c, k, id, &cross);
  if (p != NULL) {
    count(c, s, cross ? COUNT_CROSS_HIT : COUNT_HIT);
    *ptr = p;
    return MR_OK;
  }
  if (k >= LARGE_CLASS) make_way(c, s, k, stream, id);
  mr_status st = upstream_block(c, k, stream, ptr);
  if (st != MR_OK) return st;
  count(c, s, COUNT_MISS);
  return MR_OK;
}

static mr_status cache_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                void **ptr) {
  cache_state *c = self;
  cache_slot *s = my_slot(c);
  if (MRI_UNLIKELY(bytes > MAX_CACHED_BLOCK))
    return bypass_allocate(c, s, bytes, alignment, stream, false, ptr);
  mri_stream_id id = 0;
  if (c->ordered) {
    /* Two driver calls (~20 ns each on an H200): the stream's ID, and
     * whether it is capturing. */
    mri_stream_info info;
    mr_status st = mri_stream_query(stream, c->device, &info);
    if (MRI_UNLIKELY(st != MR_OK)) return mri_error_prefix(st, "cache");
    if (MRI_UNLIKELY(info.capturing)) return bypass_allocate(c, s, bytes, alignment, stream, true, ptr);
    id = info.id;
  }
  unsigned k = class_of(bytes);
  if (MRI_LIKELY(s != NULL)) {
    slot_lock(s);
    stream_bin *b = find_bin(s, id);
    if (MRI_LIKELY(b != NULL && b->classes[k].count > 0)) {
      *ptr = stack_pop(&b->classes[k]);
      b->last_use = ++s->tick;
      slot_count_block(c, s, k, -1);
      if (MRI_UNLIKELY(k >= LARGE_CLASS)) count_live_large(c, k, +1);
      s->hits++;
      /* Hand back budget the slot no longer needs, a grant at a time. */
      if (MRI_UNLIKELY(s->grant - s->cached_bytes > 2 * c->grant_unit)) shrink_grant(c, s);
      slot_unlock(s);
      return mri_nvtx_block_out(MR_OK, ptr, class_size(k), bytes, c->description);
    }
    slot_unlock(s);
  }
  mr_status st = cache_allocate_miss(c, s, k, stream, id, ptr);
  if (st == MR_OK && k >= LARGE_CLASS) count_live_large(c, k, +1);
  return mri_nvtx_block_out(st, ptr, class_size(k), bytes, c->description);
}

/* ---- deallocate ----------------------------------------------------------- */

/* Free the shared pool's ready blocks upstream until `need` bytes of budget
 * are back; frees on `stream`, which is alive (its caller is using it) and
 * is safe for a ready block: its freeing stream got past the free. */
static size_t release_shared(cache_state *c, size_t need, unsigned min_class, mr_stream stream,
                             mri_stream_id id) {
  size_t released = 0;
  pthread_mutex_lock(&c->lock);
  for (unsigned k = CLASS_COUNT; k-- > min_class && released < need;) {
    shared_class *sc = &c->shared[k];
    for (size_t i = sc->count; i-- > 0 && released < need;) {
      if (!shared_block_ready(c, &sc->items[i], id)) continue;
      if (shared_release(c, k, i, stream) != MR_OK) goto done; /* kept; try no further */
      released += class_size(k);
    }
  }
done:
  pthread_mutex_unlock(&c->lock);
  return released;
}

/* Room in the slot's grant for `size` more bytes, growing it if the shared
 * budget allows. Slot locked. */
static bool slot_make_room(cache_state *c, cache_slot *s, size_t size, mr_stream stream,
                           mri_stream_id id) {
  if (MRI_LIKELY(s->cached_bytes + size <= s->grant)) return true;
  size_t step = size > c->grant_unit ? size : c->grant_unit;
  if (reserve(c, step)) {
    s->grant += step;
    return true;
  }
  if (release_shared(c, step, 0, stream, id) > 0 && reserve(c, step)) {
    s->grant += step;
    return true;
  }
  return false;
}

/* A free the cache keeps no record of goes back upstream with the caller's
 * size (the cache's class size for blocks it made). */
static mr_status cache_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                  mr_stream stream) {
  cache_state *c = self;
  if (MRI_UNLIKELY(atomic_load_explicit(&c->captured_live, memory_order_relaxed) > 0)) {
    mri_ptrmap_value v;
    pthread_mutex_lock(&c->lock);
    bool captured = mri_ptrmap_take(c->captured, ptr, &v);
    if (captured) atomic_fetch_sub_explicit(&c->captured_live, 1, memory_order_relaxed);
    pthread_mutex_unlock(&c->lock);
    if (captured) {
      mr_status st = mri_deallocate(c->upstream, ptr, v.bytes, v.alignment, stream);
      if (st != MR_OK) {
        /* Still the caller's: keep the record (the slot just freed is
         * reused, so this cannot fail). */
        pthread_mutex_lock(&c->lock);
        mri_ptrmap_put(c->captured, ptr, v);
        atomic_fetch_add_explicit(&c->captured_live, 1, memory_order_relaxed);
        pthread_mutex_unlock(&c->lock);
      }
      return st;
    }
  }
  if (MRI_UNLIKELY(bytes > MAX_CACHED_BLOCK))
    return mri_deallocate(c->upstream, ptr, bytes, alignment, stream);
  unsigned k = class_of(bytes);
  size_t size = class_size(k);
  mri_nvtx_block_in(ptr);
  /* Idle large blocks stay under their limit: past it, the upstream pool
   * keeps the memory, where any size can reuse it. */
  if (MRI_UNLIKELY(k >= LARGE_CLASS)) {
    count_live_large(c, k, -1);
    if (atomic_load_explicit(&c->idle_large, memory_order_relaxed) + size > large_idle_limit(c))
      return mri_deallocate(c->upstream, ptr, size, BLOCK_ALIGNMENT, stream);
  }
  mri_stream_id id = 0;
  if (c->ordered) {
    mr_status st = mri_stream_get_id(stream, c->device, &id);
    if (MRI_UNLIKELY(st != MR_OK)) return mri_error_prefix(st, "cache: freeing %p", ptr);
  }
  cache_slot *s = my_slot(c);
  if (MRI_UNLIKELY(s == NULL)) {
    /* No slot for this thread: the shared pool takes it, if there is room. */
    if (!reserve(c, size)) return mri_deallocate(c->upstream, ptr, size, BLOCK_ALIGNMENT, stream);
    pthread_mutex_lock(&c->lock);
    bool kept = shared_put(c, k, (shared_block){.ptr = ptr, .stream = id, .epoch = c->epoch,
                                                .safe = !c->ordered});
    pthread_mutex_unlock(&c->lock);
    if (kept) return MR_OK;
    unreserve(c, size);
    return mri_deallocate(c->upstream, ptr, size, BLOCK_ALIGNMENT, stream);
  }
  slot_lock(s);
  stream_bin *b = bin_for_free(c, s, id);
  if (MRI_UNLIKELY(b == NULL || !slot_make_room(c, s, size, stream, id) ||
                   !stack_push(&b->classes[k], ptr))) {
    slot_unlock(s);
    return mri_deallocate(c->upstream, ptr, size, BLOCK_ALIGNMENT, stream);
  }
  slot_count_block(c, s, k, +1);
  b->last_use = ++s->tick;
  /* A thread on several streams covers its frees with an event now and
   * then, so its other streams (and other threads) can reuse them. */
  if (MRI_UNLIKELY(s->bins_in_use > 1) && c->ordered && ++b->frees_since_record >= RECORD_EVERY)
    bin_record(c, b, stream);
  slot_unlock(s);
  return MR_OK;
}

/* ---- trim, destroy -------------------------------------------------------- */

/* Give a bin's blocks back upstream on the legacy stream (the device was
 * synchronized). Stops at the first failure, keeping what is left. */
static mr_status free_bin_blocks(cache_state *c, cache_slot *s, stream_bin *b) {
  for (unsigned k = 0; k < CLASS_COUNT; k++) {
    block_stack *st = &b->classes[k];
    while (st->count > 0) {
      mr_status status = mri_deallocate(c->upstream, st->items[st->count - 1], class_size(k),
                                        BLOCK_ALIGNMENT, NULL);
      if (status != MR_OK) return status;
      stack_pop(st);
      slot_count_block(c, s, k, -1);
      c->trimmed++;
    }
  }
  return MR_OK;
}

/* Give every cached block back upstream. All slots are locked first (in
 * index order, then the shared lock: the same order as every other path),
 * so no block can be freed into the cache between the device
 * synchronization and the release; then each block's last use is finished
 * and it can be freed on the legacy stream. A block whose upstream free
 * fails stays cached, and the first failure is reported. */
static mr_status cache_trim(void *self) {
  cache_state *c = self;
  cache_slot *locked[MRI_MAX_SLOTS];
  int n = 0;
  for (int i = 0; i < MRI_MAX_SLOTS; i++) {
    cache_slot *s = atomic_load_explicit(&c->slots[i], memory_order_acquire);
    if (s != NULL) {
      slot_lock(s);
      locked[n++] = s;
    }
  }
  pthread_mutex_lock(&c->lock);
  mr_status st = c->ordered ? mri_synchronize_devices(c->device) : MR_OK;
  if (st != MR_OK) st = mri_error_prefix(st, "cache: trimming");
  if (st == MR_OK) {
    /* Everything in the cache was freed before the synchronization. */
    c->safe_epoch = ++c->epoch;
    c->uncovered_bytes = 0;
    for (int i = 0; i < n && st == MR_OK; i++) {
      cache_slot *s = locked[i];
      for (int j = 0; j < BINS_PER_SLOT && st == MR_OK; j++) {
        stream_bin *b = &s->bins[j];
        if (b->in_use) st = free_bin_blocks(c, s, b);
      }
      /* Budget the slot no longer fills goes back. */
      unreserve(c, s->grant - s->cached_bytes);
      s->grant = s->cached_bytes;
    }
    for (unsigned k = 0; k < CLASS_COUNT && st == MR_OK; k++) {
      while (c->shared[k].count > 0 && st == MR_OK)
        st = shared_release(c, k, c->shared[k].count - 1, NULL);
    }
    if (st != MR_OK) st = mri_error_prefix(st, "cache: trim: giving a block back upstream");
  }
  pthread_mutex_unlock(&c->lock);
  for (int i = n; i-- > 0;) slot_unlock(locked[i]);
  if (st != MR_OK) return st;
  return mr_resource_trim(c->upstream);
}

static void cache_destroy(void *self) {
  cache_state *c = self;
  registry_remove(c);
  /* Errors are ignored: at process exit the driver may be gone, and then so
   * is the memory. */
  cache_trim(c);
  /* What a failed trim left: best effort, nothing can use it any more. */
  for (int i = 0; i < MRI_MAX_SLOTS; i++) {
    cache_slot *s = atomic_load_explicit(&c->slots[i], memory_order_relaxed);
    if (s == NULL) continue;
    for (int j = 0; j < BINS_PER_SLOT; j++) {
      if (s->bins[j].event != NULL) mri_event_destroy(s->bins[j].event);
      for (unsigned k = 0; k < CLASS_COUNT; k++) {
        block_stack *st = &s->bins[j].classes[k];
        for (uint32_t b = 0; b < st->count; b++)
          mri_deallocate(c->upstream, st->items[b], class_size(k), BLOCK_ALIGNMENT, NULL);
        free(st->items);
      }
    }
    free(s);
  }
  for (unsigned k = 0; k < CLASS_COUNT; k++) {
    for (size_t i = 0; i < c->shared[k].count; i++) {
      mri_deallocate(c->upstream, c->shared[k].items[i].ptr, class_size(k), BLOCK_ALIGNMENT, NULL);
      shared_event_release(c->shared[k].items[i].event);
    }
    free(c->shared[k].items);
  }
  mri_ptrmap_destroy(c->captured);
  pthread_mutex_destroy(&c->lock);
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
  /* The default cap is left out, so "cache(device)" stays so. */
  char size[32];
  mri_format_size(max_cached, size, sizeof size);
  cache_state *c = max_cached == 0
                       ? mri_adaptor_alloc(sizeof *c, upstream, "cache(%s)",
                                           mr_resource_describe(upstream))
                       : mri_adaptor_alloc(sizeof *c, upstream, "cache(%s, max=%s)",
                                           mr_resource_describe(upstream), size);
  if (c == NULL) return MR_ERR_OUT_OF_MEMORY;
  c->captured = mri_ptrmap_create();
  if (c->captured == NULL) {
    mri_adaptor_free(c); /* nothing else was set up */
    return MR_ERR_OUT_OF_MEMORY;
  }
  pthread_mutex_init(&c->lock, NULL);
  c->max_cached = max_cached != 0 ? max_cached : MR_CACHE_DEFAULT_MAX;
  /* Slots take budget in steps of 1/256 of the cap, between 1 and 16 MiB:
   * a slot keeps up to two steps it does not use, and with larger steps the
   * slots of 16 threads held half of the default cap unused. */
  c->grant_unit = c->max_cached / 256;
  if (c->grant_unit < ((size_t)1 << 20)) c->grant_unit = (size_t)1 << 20;
  if (c->grant_unit > ((size_t)16 << 20)) c->grant_unit = (size_t)16 << 20;
  c->large_idle_max = c->max_cached / 4 < LARGE_IDLE_MAX ? c->max_cached / 4 : LARGE_IDLE_MAX;
  c->ordered = mri_reuse_follows_streams(&upstream->props);
  c->device = upstream->props.kind == MR_MEMORY_DEVICE ? upstream->props.device : -1;
  st = mri_adaptor_create(&cache_ops, c, MRI_ADAPTOR_KEEPS, MR_OK, out);
  if (st == MR_OK) registry_add(c);
  return st;
}

mr_status mr_cache_resource_get_stats(const mr_resource *mr, mr_cache_stats *stats) {
  if (stats == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_cache_resource_get_stats: stats is NULL");
  cache_state *c = mr_resource_state(mr, &cache_ops);
  if (c == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_cache_resource_get_stats: %s is not a cache",
                     mr_resource_describe(mr));
  /* Summed here, then copied out as far as the caller's struct goes. */
  mr_cache_stats sum = {.size = sizeof sum};
  for (int i = 0; i < MRI_MAX_SLOTS; i++) {
    cache_slot *s = atomic_load_explicit(&c->slots[i], memory_order_acquire);
    if (s == NULL) continue;
    slot_lock(s);
    sum.hits += s->hits;
    sum.misses += s->misses;
    sum.cross_stream += s->cross_stream;
    sum.bypassed += s->bypassed;
    sum.cached_bytes += s->cached_bytes;
    sum.cached_blocks += s->cached_blocks;
    slot_unlock(s);
  }
  pthread_mutex_lock(&c->lock);
  sum.hits += c->shared_hits;
  sum.misses += c->shared_misses;
  sum.bypassed += c->shared_bypassed;
  sum.cached_bytes += c->shared_bytes;
  sum.cached_blocks += atomic_load_explicit(&c->shared_blocks, memory_order_relaxed);
  sum.trims = c->trimmed + atomic_load_explicit(&c->trimmed_large, memory_order_relaxed);
  pthread_mutex_unlock(&c->lock);
  return MRI_STRUCT_WRITE(stats, &sum, mr_cache_stats, trims, "mr_cache_resource_get_stats");
}

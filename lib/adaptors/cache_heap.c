/*
 * cache_heap.c: the per-stream heaps of cache(UP) (cache_internal.h says
 * what they are): a free index by size, best fit, splitting and merging,
 * segments coming and going, and blocks freed on other streams waiting for
 * their event. Every function runs under the heap's lock, which the caller
 * holds; the record batches have a lock of their own, the innermost.
 */
#include <stdlib.h>
#include <string.h>

#include "adaptors/cache_internal.h"

void mri_cache_lock_wait(cache_lock *l) {
  unsigned spins = 0;
  do {
    while (atomic_load_explicit(&l->held, memory_order_relaxed)) {
      if (++spins < 128)
        cache_cpu_relax();
      else
        sched_yield();
    }
  } while (atomic_exchange_explicit(&l->held, 1, memory_order_acquire));
}

/* ---- the free index ----------------------------------------------------- */

/* Bucket of a free block of `size` bytes: 16 per power of two. Every block
 * in a bucket above a request's own is at least as large as the request. */
static inline unsigned bucket_of(size_t size) {
  unsigned e = 63u - (unsigned)__builtin_clzll((unsigned long long)size);
  if (e < INDEX_MIN_SHIFT) return 0;
  if (e >= INDEX_MAX_SHIFT) return INDEX_BUCKETS - 1;
  unsigned sub = (unsigned)(size >> (e - INDEX_SUB_SHIFT)) & ((1u << INDEX_SUB_SHIFT) - 1u);
  return ((e - INDEX_MIN_SHIFT) << INDEX_SUB_SHIFT) + sub;
}

static void index_insert(cache_index *ix, cache_block *b) {
  unsigned k = bucket_of(b->size);
  b->bucket = k;
  b->link_prev = NULL;
  b->link_next = ix->lists[k];
  if (b->link_next != NULL) b->link_next->link_prev = b;
  ix->lists[k] = b;
  ix->bitmap[k / 64] |= (uint64_t)1 << (k % 64);
  ix->blocks++;
}

static void index_remove(cache_index *ix, cache_block *b) {
  unsigned k = b->bucket;
  if (b->link_prev != NULL)
    b->link_prev->link_next = b->link_next;
  else
    ix->lists[k] = b->link_next;
  if (b->link_next != NULL) b->link_next->link_prev = b->link_prev;
  if (ix->lists[k] == NULL) ix->bitmap[k / 64] &= ~((uint64_t)1 << (k % 64));
  b->link_prev = b->link_next = NULL;
  ix->blocks--;
}

/* The first non-empty bucket at or after `from`, or -1. */
static int index_next(const cache_index *ix, unsigned from) {
  if (from >= INDEX_BUCKETS) return -1;
  unsigned w = from / 64;
  uint64_t bits = ix->bitmap[w] & (~(uint64_t)0 << (from % 64));
  for (;;) {
    if (bits != 0) return (int)(w * 64 + (unsigned)__builtin_ctzll(bits));
    if (++w == INDEX_WORDS) return -1;
    bits = ix->bitmap[w];
  }
}

/* How many blocks of a bucket a search looks at: lists are short in
 * practice, and a bound keeps a pathological one from costing much. */
#define SCAN_LIMIT 8

/* The best-fitting free block of at least `size` bytes: the smallest that
 * fits among the request's own bucket (an exact fit ends the search: a
 * model's shapes repeat, so its sizes do), else the smallest of the next
 * non-empty bucket. */
static cache_block *index_best(const cache_index *ix, size_t size) {
  unsigned k = bucket_of(size);
  cache_block *best = NULL;
  unsigned n = 0;
  for (cache_block *x = ix->lists[k]; x != NULL && n < SCAN_LIMIT; x = x->link_next, n++) {
    if (x->size >= size && (best == NULL || x->size < best->size)) {
      best = x;
      if (x->size == size) return best;
    }
  }
  if (best != NULL) return best;
  int j = index_next(ix, k + 1);
  if (j < 0) return NULL;
  best = ix->lists[j];
  n = 0;
  for (cache_block *x = best->link_next; x != NULL && n < SCAN_LIMIT; x = x->link_next, n++)
    if (x->size < best->size) best = x;
  return best;
}

/* ---- the map of used blocks --------------------------------------------- */

static inline size_t map_home(uintptr_t addr, size_t mask) {
  uint64_t x = (uint64_t)addr >> 8; /* blocks are 256-byte aligned */
  x *= 0x9E3779B97F4A7C15ull;
  return (size_t)(x >> 32) & mask;
}

static bool map_grow(cache_map *m) {
  size_t capacity = m->slots == NULL ? 64 : (m->mask + 1) * 2;
  cache_map_entry *slots = mri_host_calloc(capacity, sizeof *slots);
  if (slots == NULL) return false;
  for (size_t i = 0; m->slots != NULL && i <= m->mask; i++) {
    if (m->slots[i].addr == 0) continue;
    size_t j = map_home(m->slots[i].addr, capacity - 1);
    while (slots[j].addr != 0) j = (j + 1) & (capacity - 1);
    slots[j] = m->slots[i];
  }
  free(m->slots);
  m->slots = slots;
  m->mask = capacity - 1;
  return true;
}

bool mri_cache_map_put(cache_map *m, uintptr_t addr, cache_block *b) {
  if ((m->count + 1) * 2 > (m->slots != NULL ? m->mask + 1 : 0) && !map_grow(m)) return false;
  size_t i = map_home(addr, m->mask);
  while (m->slots[i].addr != 0 && m->slots[i].addr != addr) i = (i + 1) & m->mask;
  if (m->slots[i].addr == 0) m->count++;
  m->slots[i] = (cache_map_entry){addr, b};
  return true;
}

static cache_map_entry *map_find(const cache_map *m, uintptr_t addr) {
  if (m->slots == NULL || addr == 0) return NULL;
  for (size_t i = map_home(addr, m->mask);; i = (i + 1) & m->mask) {
    if (m->slots[i].addr == addr) return &m->slots[i];
    if (m->slots[i].addr == 0) return NULL;
  }
}

cache_block *mri_cache_map_get(const cache_map *m, uintptr_t addr) {
  cache_map_entry *e = map_find(m, addr);
  return e != NULL ? e->block : NULL;
}

cache_block *mri_cache_map_take(cache_map *m, uintptr_t addr) {
  cache_map_entry *e = map_find(m, addr);
  if (e == NULL) return NULL;
  cache_block *b = e->block;
  /* Backward shift: pull later members of the probe run into the hole. */
  size_t hole = (size_t)(e - m->slots);
  for (size_t i = (hole + 1) & m->mask; m->slots[i].addr != 0; i = (i + 1) & m->mask) {
    size_t home = map_home(m->slots[i].addr, m->mask);
    bool between = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
    if (!between) {
      m->slots[hole] = m->slots[i];
      hole = i;
    }
  }
  m->slots[hole].addr = 0;
  m->count--;
  return b;
}

/* ---- records ------------------------------------------------------------ */

#define RECORD_BATCH 64
#define SPARE_MAX 128

void mri_cache_records_init(cache_records *r) { memset(r, 0, sizeof *r); }

void mri_cache_records_fini(cache_records *r) {
  for (size_t i = 0; i < r->batch_count; i++) free(r->batches[i]);
  free(r->batches);
}

/* Refill a heap's spares from the cache's free records, making a batch if
 * there are none. */
static void new_batch(cache_records *r) {
  if (r->batch_count == r->batch_capacity) {
    size_t capacity = r->batch_capacity ? r->batch_capacity * 2 : 16;
    void **batches = mri_host_realloc(r->batches, capacity * sizeof *batches);
    if (batches == NULL) return;
    r->batches = batches;
    r->batch_capacity = capacity;
  }
  cache_block *batch = mri_host_malloc(RECORD_BATCH * sizeof *batch);
  if (batch == NULL) return;
  r->batches[r->batch_count++] = batch;
  for (int i = 0; i < RECORD_BATCH; i++) {
    batch[i].link_next = r->free;
    r->free = &batch[i];
  }
}

static void refill_spares(cache_heap *h) {
  cache_records *r = h->records;
  cache_lock_take(&r->lock);
  if (r->free == NULL) new_batch(r);
  for (int i = 0; i < RECORD_BATCH / 2 && r->free != NULL; i++) {
    cache_block *b = r->free;
    r->free = b->link_next;
    b->link_next = h->spare;
    h->spare = b;
    h->spare_count++;
  }
  cache_lock_give(&r->lock);
}

cache_block *mri_cache_record_new(cache_heap *h) {
  if (h->spare == NULL) refill_spares(h);
  cache_block *b = h->spare;
  if (b == NULL) return NULL;
  h->spare = b->link_next;
  h->spare_count--;
  memset(b, 0, sizeof *b);
  return b;
}

/* Give `count` spares back to the cache's free records. */
static void return_spares(cache_heap *h, size_t count) {
  cache_records *r = h->records;
  cache_lock_take(&r->lock);
  while (count-- > 0 && h->spare != NULL) {
    cache_block *b = h->spare;
    h->spare = b->link_next;
    h->spare_count--;
    b->link_next = r->free;
    r->free = b;
  }
  cache_lock_give(&r->lock);
}

void mri_cache_record_free(cache_heap *h, cache_block *b) {
  b->link_next = h->spare;
  h->spare = b;
  if (++h->spare_count > SPARE_MAX) return_spares(h, SPARE_MAX / 2);
}

/* ---- heaps ------------------------------------------------------------------ */

bool mri_cache_heap_init(cache_heap *h, mri_stream_id key, cache_records *records,
                         _Atomic size_t *idle_total) {
  memset(h, 0, sizeof *h);
  h->key = key;
  h->records = records;
  h->idle_total = idle_total;
  return map_grow(&h->blocks);
}

void mri_cache_heap_fini(cache_heap *h) {
  if (h->event != NULL) mri_event_destroy(h->event);
  return_spares(h, h->spare_count);
  free(h->blocks.slots);
}

static inline cache_pool *pool_of(cache_heap *h, const cache_segment *s) {
  return s->small ? &h->small : &h->large;
}

/* Whether the rest of a block cut to `size` is worth a block of its own.
 * Small blocks: any whole class step. Large ones: from an eighth of the
 * request (or 1 MiB) up; a smaller rest stays with the block (PyTorch keeps
 * up to 1 MiB so), as a sliver no large request could use. */
static inline bool worth_splitting(bool small, size_t size, size_t rest) {
  if (small) return rest >= CACHE_ALIGNMENT;
  size_t floor = size / 8 < CACHE_SMALL_MAX ? size / 8 : CACHE_SMALL_MAX;
  if (floor < CACHE_LARGE_ROUND) floor = CACHE_LARGE_ROUND;
  return rest >= floor;
}

/* An idle segment's count changes (+1: it became idle, -1: no longer). */
static void count_idle(cache_heap *h, cache_pool *p, cache_segment *s, int sign) {
  if (sign > 0) {
    p->idle_bytes += s->size;
    p->idle_segments++;
    if (h->idle_total != NULL)
      atomic_fetch_add_explicit(h->idle_total, s->size, memory_order_relaxed);
  } else {
    p->idle_bytes -= s->size;
    p->idle_segments--;
    if (p->idle_bytes < p->idle_low) p->idle_low = p->idle_bytes;
    if (h->idle_total != NULL)
      atomic_fetch_sub_explicit(h->idle_total, s->size, memory_order_relaxed);
  }
}

cache_block *mri_cache_heap_take(cache_heap *h, bool small, size_t size, size_t uncut) {
  cache_pool *p = small ? &h->small : &h->large;
  cache_block *b = index_best(&p->index, size);
  if (b == NULL || (b->segment->used == 0 && b->size > uncut)) return NULL;
  size_t rest = b->size - size;
  cache_block *r = worth_splitting(small, size, rest) ? mri_cache_record_new(h) : NULL;
  index_remove(&p->index, b);
  p->free_bytes -= b->size;
  if (b->segment->used++ == 0) count_idle(h, p, b->segment, -1);
  if (r != NULL) {
    r->addr = b->addr + size;
    r->size = rest;
    r->prev = b;
    r->next = b->next;
    r->segment = b->segment;
    r->state = BLOCK_FREE;
    r->stamp = b->stamp;
    r->epoch = b->epoch;
    if (b->next != NULL) b->next->prev = r;
    b->next = r;
    b->size = size;
    index_insert(&p->index, r);
    p->free_bytes += rest;
  }
  b->state = BLOCK_USED;
  b->asked = size;
  size_t in_use = p->segment_bytes - p->free_bytes;
  if (++p->takes >= CACHE_PEAK_WINDOW) {
    /* The margin narrows once a window's most held fit the narrower one. */
    if (p->widen > 0 && p->held_high <= cache_pool_limit(p, p->widen - 1)) p->widen--;
    p->cycled = 0;
    p->held_high = p->segment_bytes;
    p->high_before = p->high;
    p->high = in_use;
    p->takes = 0;
  } else if (in_use > p->high) {
    p->high = in_use;
  }
  return b;
}

bool mri_cache_heap_add_segment(cache_heap *h, bool small, uintptr_t base, size_t size) {
  cache_segment *s = mri_host_malloc(sizeof *s);
  if (s == NULL) return false;
  cache_block *b = mri_cache_record_new(h);
  if (b == NULL) {
    free(s);
    return false;
  }
  *s = (cache_segment){.base = base, .size = size, .first = b, .small = small};
  b->addr = base;
  b->size = size;
  b->segment = s;
  b->state = BLOCK_FREE;
  s->used = 0;
  mri_cache_heap_adopt(h, s, true);
  return true;
}

static inline uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Merge block `n` into its neighbour `b` (n is b's next; neither is in the
 * index); n's record goes back to the spares. */
static void absorb(cache_heap *h, cache_block *b, cache_block *n) {
  b->size += n->size;
  b->next = n->next;
  if (n->next != NULL) n->next->prev = b;
  b->stamp = max_u64(b->stamp, n->stamp);
  b->epoch = max_u64(b->epoch, n->epoch);
  mri_cache_record_free(h, n);
}

/* Free block `b` with the given stamps (0, 0: its free is known to be past
 * for every stream). */
static cache_segment *release_stamped(cache_heap *h, cache_block *b, uint64_t stamp,
                                      uint64_t epoch) {
  cache_segment *s = b->segment;
  cache_pool *p = pool_of(h, s);
  b->state = BLOCK_FREE;
  b->asked = 0;
  b->stamp = stamp;
  b->epoch = epoch;
  b->wait = NULL;
  p->free_bytes += b->size;
  if (b->prev != NULL && b->prev->state == BLOCK_FREE) {
    cache_block *prev = b->prev;
    index_remove(&p->index, prev);
    absorb(h, prev, b);
    b = prev;
  }
  if (b->next != NULL && b->next->state == BLOCK_FREE) {
    cache_block *next = b->next;
    index_remove(&p->index, next);
    absorb(h, b, next);
  }
  index_insert(&p->index, b);
  if (--s->used > 0) return NULL;
  count_idle(h, p, s, +1);
  s->idle_stamp = b->stamp;
  s->idle_epoch = b->epoch;
  return s;
}

cache_segment *mri_cache_heap_release(cache_heap *h, cache_block *b, uint64_t epoch) {
  return release_stamped(h, b, h->records_made + 1, epoch);
}

static void unlink_segment(cache_heap *h, cache_segment *s) {
  if (s->prev != NULL)
    s->prev->next = s->next;
  else
    h->segments = s->next;
  if (s->next != NULL) s->next->prev = s->prev;
  s->prev = s->next = NULL;
}

void mri_cache_heap_detach(cache_heap *h, cache_segment *s) {
  cache_pool *p = pool_of(h, s);
  index_remove(&p->index, s->first);
  p->free_bytes -= s->size;
  count_idle(h, p, s, -1);
  p->segments--;
  p->segment_bytes -= s->size;
  unlink_segment(h, s);
}

void mri_cache_segment_free(cache_heap *h, cache_segment *s) {
  mri_cache_record_free(h, s->first);
  free(s);
}

void mri_cache_heap_adopt(cache_heap *h, cache_segment *s, bool covered) {
  cache_pool *p = pool_of(h, s);
  s->heap = h;
  s->prev = NULL;
  s->next = h->segments;
  if (s->next != NULL) s->next->prev = s;
  h->segments = s;
  if (covered) {
    s->idle_stamp = s->idle_epoch = 0;
    s->first->stamp = s->first->epoch = 0;
  }
  p->segments++;
  p->segment_bytes += s->size;
  if (p->segment_bytes > p->held_high) p->held_high = p->segment_bytes;
  count_idle(h, p, s, +1);
  p->free_bytes += s->size;
  index_insert(&p->index, s->first);
}

/* ---- blocks freed on other streams -------------------------------------- */

void mri_cache_heap_park(cache_heap *h, cache_block *b, cache_wait *wait, uint64_t epoch) {
  b->state = BLOCK_PENDING;
  b->wait = wait;
  b->epoch = epoch;
  if (wait != NULL) atomic_fetch_add_explicit(&wait->refs, 1, memory_order_relaxed);
  b->link_prev = NULL;
  b->link_next = h->pending;
  if (h->pending != NULL) h->pending->link_prev = b;
  h->pending = b;
  h->pending_bytes += b->size;
}

void mri_cache_wait_release(cache_wait *w) {
  if (w != NULL && atomic_fetch_sub_explicit(&w->refs, 1, memory_order_acq_rel) == 1) {
    mri_event_destroy(w->event);
    free(w);
  }
}

static bool wait_done(cache_wait *w) {
  if (w == NULL) return false;
  if (atomic_load_explicit(&w->done, memory_order_acquire)) return true;
  bool done = false;
  if (mri_event_query(w->event, &done) == MR_OK && done) {
    atomic_store_explicit(&w->done, true, memory_order_release);
    return true;
  }
  return false;
}

size_t mri_cache_heap_settle_pending(cache_heap *h, uint64_t safe_epoch) {
  size_t released = 0;
  cache_block *next;
  for (cache_block *b = h->pending; b != NULL; b = next) {
    next = b->link_next;
    if (b->epoch >= safe_epoch && !wait_done(b->wait)) continue;
    if (b->link_prev != NULL)
      b->link_prev->link_next = b->link_next;
    else
      h->pending = b->link_next;
    if (b->link_next != NULL) b->link_next->link_prev = b->link_prev;
    h->pending_bytes -= b->size;
    released += b->size;
    mri_cache_wait_release(b->wait);
    /* Its free is past for every stream: it needs no record of this heap's. */
    release_stamped(h, b, 0, 0);
  }
  return released;
}

bool mri_cache_heap_poll(cache_heap *h) {
  if (h->event == NULL || h->records_done == h->records_made) return false;
  bool done = false;
  if (mri_event_query(h->event, &done) != MR_OK || !done) return false;
  h->records_done = h->records_made;
  return true;
}

bool mri_cache_segment_ready(cache_heap *h, const cache_segment *s, uint64_t safe_epoch) {
  return s->idle_stamp <= h->records_done || s->idle_epoch < safe_epoch;
}

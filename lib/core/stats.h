/*
 * core/stats.h (internal): the sharded statistics counters (stats.c) that
 * the stats adaptors, and so a context's per-tag wrappers, keep.
 */
#ifndef MRCTX_LIB_CORE_STATS_H
#define MRCTX_LIB_CORE_STATS_H

#include "core/core.h"

/* One thread slot's counters. Only the thread holding the slot writes them
 * (relaxed loads and stores: plain moves); anyone may read. The per-event
 * updates are inline: they sit on every allocation of every context tag. */
typedef struct mri_stats_shard {
  /* Monotonic totals. */
  _Atomic int64_t alloc_bytes, alloc_count, free_bytes, free_count, failed;
  /* This thread's view of the peaks. */
  _Atomic int64_t peak_bytes, peak_count;
  /* Owner-only bookkeeping for publishing (see stats.c). */
  int64_t pending_bytes, pending_count;
  int64_t base_bytes, base_count;
  /* The peak reset (mri_stats.reset_gen) this shard's view and peaks
   * belong to. Written by the owner, read by readers: a shard of an older
   * generation has no peak since the reset. */
  _Atomic uint32_t gen;
} __attribute__((aligned(MRI_CACHE_LINE))) mri_stats_shard;

/* Exact peaks (stats(UP, peak=exact)): what is live now and the most that
 * was, each one atomic shared by every thread, on a cache line of its own. */
typedef struct mri_stats_exact {
  _Atomic int64_t live_bytes, live_count;
  _Atomic int64_t peak_bytes, peak_count;
} __attribute__((aligned(MRI_CACHE_LINE))) mri_stats_exact;

typedef struct mri_stats {
  _Atomic(mri_stats_shard *) shards[MRI_MAX_SLOTS];
  /* Bumped by every peak reset (mri_stats_reset_peak); read on each
   * allocation, written only by a reset: a read-mostly line. */
  _Atomic uint32_t reset_gen;
  mri_stats_shard *overflow; /* threads without a slot, under overflow_lock */
  pthread_mutex_t overflow_lock;
  mri_fork_lockable overflow_fork; /* overflow_lock across fork() */
  _Atomic int64_t published_bytes, published_count;
  _Atomic int64_t peak_bytes, peak_count;
  mri_stats_exact *exact; /* NULL: the sharded peaks alone (the default) */
} mri_stats;

/* How far a thread's net change may drift before it is published. */
#define MRI_STATS_PUBLISH_BYTES ((int64_t)16 << 20)
#define MRI_STATS_PUBLISH_COUNT ((int64_t)256)

mr_status mri_stats_init(mri_stats *stats);
/* Also keep exact peaks (after mri_stats_init): the caller then reports
 * every event to mri_stats_exact_on_alloc / _on_free as well. */
mr_status mri_stats_keep_exact_peaks(mri_stats *stats);
void mri_stats_fini(mri_stats *stats);
/* Sum the shards. OUT: *out (its `size` must be set). With exact peaks,
 * the peaks are those. */
mr_status mri_stats_read(const mri_stats *stats, mr_stats *out);
/* Set the peaks (bytes and count) to what is live now, from any thread,
 * while others allocate: current and total values are untouched. Each
 * shard's view of the peak belongs to the reset generation it last
 * published in; a reset starts a new one, the readers ignore the views of
 * older ones, and an owner joins the new one at its next allocation by
 * publishing first (so its view starts from the shared total as it is
 * now, not as it was at its last publish). stats.c says what it promises. */
void mri_stats_reset_peak(mri_stats *stats);

/* The exact peaks' updates: one atomic add on the shared line per event,
 * and a compare-and-swap when the live value passes the peak. The order
 * of the adds is one order of all events, and the peak is the highest
 * running sum in it: the true peak of what was counted, whatever the
 * threads. */
void mri_stats_raise_to(_Atomic int64_t *field, int64_t value);

static inline void mri_stats_exact_on_alloc(mri_stats *stats, size_t bytes) {
  mri_stats_exact *e = stats->exact;
  int64_t b = atomic_fetch_add_explicit(&e->live_bytes, (int64_t)bytes, memory_order_relaxed) +
              (int64_t)bytes;
  int64_t c = atomic_fetch_add_explicit(&e->live_count, 1, memory_order_relaxed) + 1;
  if (b > atomic_load_explicit(&e->peak_bytes, memory_order_relaxed))
    mri_stats_raise_to(&e->peak_bytes, b);
  if (c > atomic_load_explicit(&e->peak_count, memory_order_relaxed))
    mri_stats_raise_to(&e->peak_count, c);
}

static inline void mri_stats_exact_on_free(mri_stats *stats, size_t bytes) {
  mri_stats_exact *e = stats->exact;
  atomic_fetch_sub_explicit(&e->live_bytes, (int64_t)bytes, memory_order_relaxed);
  atomic_fetch_sub_explicit(&e->live_count, 1, memory_order_relaxed);
}

/* The slow paths behind the inline updates (stats.c). */
mri_stats_shard *mri_stats_shard_create(mri_stats *stats, int slot);
void mri_stats_publish(mri_stats *stats, mri_stats_shard *shard);
void mri_stats_locked_event(mri_stats *stats, int64_t bytes, int64_t count, bool failed);

static inline void mri_stats_bump_(_Atomic int64_t *field, int64_t delta) {
  atomic_store_explicit(field, atomic_load_explicit(field, memory_order_relaxed) + delta,
                        memory_order_relaxed);
}

/* The calling thread's shard, or NULL: then the locked overflow path. */
static inline mri_stats_shard *mri_stats_my_shard_(mri_stats *stats) {
  int slot = mri_thread_slot();
  if (MRI_UNLIKELY(slot < 0)) return NULL;
  mri_stats_shard *s = atomic_load_explicit(&stats->shards[slot], memory_order_relaxed);
  if (MRI_LIKELY(s != NULL)) return s;
  return mri_stats_shard_create(stats, slot);
}

/* Record a net change in this thread's running view and raise its peaks,
 * or publish when the view drifted far enough. A change that drifts that
 * far is published before any peak is taken from it: the view adds this
 * thread's change to the shared total as of its last publish, which may
 * still hold what other threads freed since, so a large change added to it
 * would read high by as much as they freed. The publish takes the peak
 * from the shared total as it is now. */
static inline void mri_stats_record_(mri_stats *stats, mri_stats_shard *s, int64_t bytes,
                                     int64_t count) {
  s->pending_bytes += bytes;
  s->pending_count += count;
  if (MRI_UNLIKELY((uint64_t)(s->pending_bytes + MRI_STATS_PUBLISH_BYTES) >
                       (uint64_t)(2 * MRI_STATS_PUBLISH_BYTES) ||
                   (uint64_t)(s->pending_count + MRI_STATS_PUBLISH_COUNT) >
                       (uint64_t)(2 * MRI_STATS_PUBLISH_COUNT))) {
    mri_stats_publish(stats, s);
    return;
  }
  if (bytes > 0) {
    /* A peak reset since this shard last published: join it first. */
    if (MRI_UNLIKELY(atomic_load_explicit(&s->gen, memory_order_relaxed) !=
                     atomic_load_explicit(&stats->reset_gen, memory_order_relaxed))) {
      mri_stats_publish(stats, s);
      return;
    }
    int64_t view_bytes = s->base_bytes + s->pending_bytes;
    int64_t view_count = s->base_count + s->pending_count;
    if (view_bytes > atomic_load_explicit(&s->peak_bytes, memory_order_relaxed))
      atomic_store_explicit(&s->peak_bytes, view_bytes, memory_order_relaxed);
    if (view_count > atomic_load_explicit(&s->peak_count, memory_order_relaxed))
      atomic_store_explicit(&s->peak_count, view_count, memory_order_relaxed);
  }
}

/* Record one successful allocation / deallocation of `bytes`, or a failed
 * allocation. Thread-safe; no shared cache line in the common case. */
static inline void mri_stats_on_alloc(mri_stats *stats, size_t bytes) {
  mri_stats_shard *s = mri_stats_my_shard_(stats);
  if (MRI_UNLIKELY(s == NULL)) {
    mri_stats_locked_event(stats, (int64_t)bytes, 1, false);
    return;
  }
  mri_stats_bump_(&s->alloc_bytes, (int64_t)bytes);
  mri_stats_bump_(&s->alloc_count, 1);
  mri_stats_record_(stats, s, (int64_t)bytes, 1);
}

static inline void mri_stats_on_free(mri_stats *stats, size_t bytes) {
  mri_stats_shard *s = mri_stats_my_shard_(stats);
  if (MRI_UNLIKELY(s == NULL)) {
    mri_stats_locked_event(stats, -(int64_t)bytes, -1, false);
    return;
  }
  mri_stats_bump_(&s->free_bytes, (int64_t)bytes);
  mri_stats_bump_(&s->free_count, 1);
  mri_stats_record_(stats, s, -(int64_t)bytes, -1);
}

static inline void mri_stats_on_fail(mri_stats *stats) {
  mri_stats_shard *s = mri_stats_my_shard_(stats);
  if (MRI_UNLIKELY(s == NULL)) {
    mri_stats_locked_event(stats, 0, 0, true);
    return;
  }
  mri_stats_bump_(&s->failed, 1);
}

#endif /* MRCTX_LIB_CORE_STATS_H */

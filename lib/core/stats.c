/*
 * stats.c: sharded allocation statistics.
 *
 * Each thread slot has its own shard, written only by the thread that holds
 * the slot (relaxed loads and stores: plain moves, no lock prefix) and read
 * by anyone. Current and total values are sums over shards. For peaks, each
 * shard keeps a running net change that it publishes to one shared counter
 * only when it drifts past a threshold; between publishes the thread
 * compares "shared value at my last publish + my net change" with its own
 * peak. With one thread this is exactly the true peak; with several, what
 * the others hold unpublished (at most 16 MiB / 256 allocations each) is
 * missing from that view, whether they allocate at the same time or not.
 *
 * Peak resets (mri_stats_reset_peak) set the peaks to what is live now.
 * They cannot write a shard's view: its base and pending change are the
 * owner's, unlocked. A view left as it was would be wrong after a reset --
 * a thread that published while another still held 100 MiB, which was
 * freed since, would add its next allocation to those 100 MiB and show a
 * peak the reset should have forgotten. So a reset starts a new generation
 * (reset_gen): readers take a shard's peak only from a shard of the current
 * generation, and an owner whose shard is older publishes at its next
 * allocation (mri_stats_record_), which takes its base from the shared
 * total as it is now, and then starts its peaks from there. After a reset,
 * a peak is therefore bounded as before it, counted from the reset: the
 * most that was live at once since, read as stats.h says (exact for one
 * thread; with several, within 16 MiB / 256 allocations per thread). An
 * allocation or free made while the reset runs may count as made before
 * it or after it; either way current and total values are exact, and a
 * read never shows a peak below what is live.
 */
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"

void mri_stats_raise_to(_Atomic int64_t *field, int64_t value) {
  int64_t seen = atomic_load_explicit(field, memory_order_relaxed);
  while (value > seen && !atomic_compare_exchange_weak_explicit(
                             field, &seen, value, memory_order_relaxed, memory_order_relaxed)) {
  }
}

mr_status mri_stats_init(mri_stats *stats) {
  memset(stats, 0, sizeof *stats);
  stats->overflow = mri_host_aligned_alloc(MRI_CACHE_LINE, sizeof(mri_stats_shard));
  if (stats->overflow == NULL)
    return mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory for statistics");
  memset(stats->overflow, 0, sizeof *stats->overflow);
  pthread_mutex_init(&stats->overflow_lock, NULL);
  mri_fork_register_mutex(&stats->overflow_fork, &stats->overflow_lock, MRI_FORK_RANK_LEAF);
  return MR_OK;
}

mr_status mri_stats_keep_exact_peaks(mri_stats *stats) {
  stats->exact = mri_host_aligned_alloc(MRI_CACHE_LINE, sizeof *stats->exact);
  if (stats->exact == NULL)
    return mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory for statistics");
  memset(stats->exact, 0, sizeof *stats->exact);
  return MR_OK;
}

void mri_stats_fini(mri_stats *stats) {
  for (int i = 0; i < MRI_MAX_SLOTS; i++)
    free(atomic_load_explicit(&stats->shards[i], memory_order_relaxed));
  free(stats->overflow);
  free(stats->exact);
  mri_fork_unregister(&stats->overflow_fork);
  pthread_mutex_destroy(&stats->overflow_lock);
}

/* Add the shard's unpublished net change to the shared counters and take
 * the shared value as the shard's new base. A shard of an older reset
 * generation joins the current one here: its peaks start from that base.
 * The shard's own peaks are raised to it as well, so a reset that stores
 * the shared peak while this publish raises it loses nothing a reader can
 * see (the shard is of the reset's generation). */
void mri_stats_publish(mri_stats *stats, mri_stats_shard *s) {
  uint32_t gen = atomic_load_explicit(&stats->reset_gen, memory_order_acquire);
  int64_t bytes =
      atomic_fetch_add_explicit(&stats->published_bytes, s->pending_bytes, memory_order_relaxed) +
      s->pending_bytes;
  int64_t count =
      atomic_fetch_add_explicit(&stats->published_count, s->pending_count, memory_order_relaxed) +
      s->pending_count;
  mri_stats_raise_to(&stats->peak_bytes, bytes);
  mri_stats_raise_to(&stats->peak_count, count);
  s->base_bytes = bytes;
  s->base_count = count;
  s->pending_bytes = 0;
  s->pending_count = 0;
  if (atomic_load_explicit(&s->gen, memory_order_relaxed) != gen) {
    atomic_store_explicit(&s->peak_bytes, bytes, memory_order_relaxed);
    atomic_store_explicit(&s->peak_count, count, memory_order_relaxed);
    /* Release: a reader that sees the new generation sees these peaks. */
    atomic_store_explicit(&s->gen, gen, memory_order_release);
    return;
  }
  if (bytes > atomic_load_explicit(&s->peak_bytes, memory_order_relaxed))
    atomic_store_explicit(&s->peak_bytes, bytes, memory_order_relaxed);
  if (count > atomic_load_explicit(&s->peak_count, memory_order_relaxed))
    atomic_store_explicit(&s->peak_count, count, memory_order_relaxed);
}

mri_stats_shard *mri_stats_shard_create(mri_stats *stats, int slot) {
  mri_stats_shard *s = mri_host_aligned_alloc(MRI_CACHE_LINE, sizeof *s);
  if (s == NULL) return NULL; /* the caller falls back to the locked shard */
  memset(s, 0, sizeof *s);
  /* New: nothing to forget, so of the current generation already. */
  atomic_store_explicit(&s->gen, atomic_load_explicit(&stats->reset_gen, memory_order_acquire),
                        memory_order_relaxed);
  /* The slot's owner is the only thread that installs its shard. */
  atomic_store_explicit(&stats->shards[slot], s, memory_order_release);
  return s;
}

/* Threads without a slot (or whose shard could not be allocated) share the
 * overflow shard under its lock. */
void mri_stats_locked_event(mri_stats *stats, int64_t bytes, int64_t count, bool failed) {
  pthread_mutex_lock(&stats->overflow_lock);
  mri_stats_shard *s = stats->overflow;
  if (failed) {
    mri_stats_bump_(&s->failed, 1);
  } else if (count > 0) {
    mri_stats_bump_(&s->alloc_bytes, bytes);
    mri_stats_bump_(&s->alloc_count, count);
    mri_stats_record_(stats, s, bytes, count);
  } else {
    mri_stats_bump_(&s->free_bytes, -bytes);
    mri_stats_bump_(&s->free_count, -count);
    mri_stats_record_(stats, s, bytes, count);
  }
  pthread_mutex_unlock(&stats->overflow_lock);
}

/* The shards summed: totals add up, peaks take the largest thread's view. */
typedef struct shard_sum {
  int64_t alloc_bytes, alloc_count, free_bytes, free_count, failed;
  int64_t peak_bytes, peak_count;
} shard_sum;

/* `with_peaks`: whether the shard's peaks count (it is of the current
 * reset generation); its totals always do. */
static void add_shard(const mri_stats_shard *s, shard_sum *sum, uint32_t gen) {
  bool with_peaks =
      (int32_t)(atomic_load_explicit(&((mri_stats_shard *)s)->gen, memory_order_acquire) - gen) >=
      0;
  sum->alloc_bytes += atomic_load_explicit(&s->alloc_bytes, memory_order_relaxed);
  sum->alloc_count += atomic_load_explicit(&s->alloc_count, memory_order_relaxed);
  sum->free_bytes += atomic_load_explicit(&s->free_bytes, memory_order_relaxed);
  sum->free_count += atomic_load_explicit(&s->free_count, memory_order_relaxed);
  sum->failed += atomic_load_explicit(&s->failed, memory_order_relaxed);
  if (!with_peaks) return;
  int64_t pb = atomic_load_explicit(&s->peak_bytes, memory_order_relaxed);
  int64_t pc = atomic_load_explicit(&s->peak_count, memory_order_relaxed);
  if (pb > sum->peak_bytes) sum->peak_bytes = pb;
  if (pc > sum->peak_count) sum->peak_count = pc;
}

static void sum_shards(mri_stats *stats, shard_sum *sum) {
  uint32_t gen = atomic_load_explicit(&stats->reset_gen, memory_order_acquire);
  for (int i = 0; i < MRI_MAX_SLOTS; i++) {
    const mri_stats_shard *s = atomic_load_explicit(&stats->shards[i], memory_order_acquire);
    if (s != NULL) add_shard(s, sum, gen);
  }
  pthread_mutex_lock(&stats->overflow_lock);
  add_shard(stats->overflow, sum, gen);
  pthread_mutex_unlock(&stats->overflow_lock);
}

/* Store `value` in `peak`, then raise it to what `live` holds after the
 * store: an allocation whose add to `live` came before that read but which
 * read the old, higher peak (and so did not raise it) is not lost. */
static void reset_to_live(_Atomic int64_t *peak, _Atomic int64_t *live) {
  int64_t now = atomic_load_explicit(live, memory_order_seq_cst);
  atomic_store_explicit(peak, now > 0 ? now : 0, memory_order_seq_cst);
  mri_stats_raise_to(peak, atomic_fetch_add_explicit(live, 0, memory_order_seq_cst));
}

void mri_stats_reset_peak(mri_stats *stats) {
  /* First the new generation, so every shard view from now on is either
   * ignored or taken after its owner caught up with this reset. */
  atomic_fetch_add_explicit(&stats->reset_gen, 1, memory_order_seq_cst);
  shard_sum sum = {0};
  sum_shards(stats, &sum);
  int64_t current_bytes = sum.alloc_bytes - sum.free_bytes;
  int64_t current_count = sum.alloc_count - sum.free_count;
  /* What is live now, as exact as current_bytes is: the published total
   * may still hold what a thread freed and has not published. */
  atomic_store_explicit(&stats->peak_bytes, current_bytes > 0 ? current_bytes : 0,
                        memory_order_seq_cst);
  atomic_store_explicit(&stats->peak_count, current_count > 0 ? current_count : 0,
                        memory_order_seq_cst);
  if (stats->exact != NULL) {
    reset_to_live(&stats->exact->peak_bytes, &stats->exact->live_bytes);
    reset_to_live(&stats->exact->peak_count, &stats->exact->live_count);
  }
}

mr_status mri_stats_read(const mri_stats *stats, mr_stats *out) {
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "statistics: out is NULL");
  shard_sum sum = {0};
  sum_shards((mri_stats *)stats, &sum);

  int64_t current_bytes = sum.alloc_bytes - sum.free_bytes;
  int64_t current_count = sum.alloc_count - sum.free_count;
  int64_t peak_bytes = atomic_load_explicit(&stats->peak_bytes, memory_order_relaxed);
  int64_t peak_count = atomic_load_explicit(&stats->peak_count, memory_order_relaxed);
  if (sum.peak_bytes > peak_bytes) peak_bytes = sum.peak_bytes;
  if (sum.peak_count > peak_count) peak_count = sum.peak_count;
  if (stats->exact != NULL) {
    peak_bytes = atomic_load_explicit(&stats->exact->peak_bytes, memory_order_relaxed);
    peak_count = atomic_load_explicit(&stats->exact->peak_count, memory_order_relaxed);
  }
  if (current_bytes > peak_bytes) peak_bytes = current_bytes;
  if (current_count > peak_count) peak_count = current_count;

  mr_stats full = {
      .size = sizeof full,
      .current_bytes = current_bytes > 0 ? (uint64_t)current_bytes : 0,
      .peak_bytes = (uint64_t)peak_bytes,
      .total_bytes = (uint64_t)sum.alloc_bytes,
      .current_count = current_count > 0 ? (uint64_t)current_count : 0,
      .peak_count = (uint64_t)peak_count,
      .total_count = (uint64_t)sum.alloc_count,
      .failed_count = (uint64_t)sum.failed,
  };
  return MRI_STRUCT_WRITE(out, &full, mr_stats, failed_count, "statistics");
}

/* Whether a caller's mr_stats of `size` bytes has `field` (older headers
 * know fewer fields). */
#define MRI_STATS_HAS_(size, field) (MRI_SIZE_THROUGH(mr_stats, field) <= (size))

/* Whether `size` is one a header can give (docs/abi.md): mr_stats_add has
 * no status to refuse with, so it leaves such a struct alone. */
static bool stats_size_possible(size_t size) {
  return size <= sizeof(mr_stats) + MRI_STRUCT_MAX_GROWTH;
}

void mr_stats_add(mr_stats *a, const mr_stats *b) {
  if (a == NULL || b == NULL) return;
  if (!stats_size_possible(a->size) || !stats_size_possible(b->size)) return;
#define MRI_ADD_FIELD_(field, description) \
  if (MRI_STATS_HAS_(a->size, field) && MRI_STATS_HAS_(b->size, field)) a->field += b->field;
  MR_STATS_FIELDS(MRI_ADD_FIELD_)
#undef MRI_ADD_FIELD_
}

mr_status mr_stats_write_json(const mr_stats *stats, FILE *out) {
  if (stats == NULL || out == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_stats_write_json: NULL argument");
  /* Read as every struct given to the library is (a size no header has
   * refused, fields this library does not know must be zero), then written
   * as far as both the caller's struct and this library go. */
  mr_stats given = {0};
  mr_status st = MRI_STRUCT_READ(&given, stats, mr_stats, failed_count, "mr_stats_write_json");
  if (st != MR_OK) return st;
  size_t have = stats->size < sizeof given ? stats->size : sizeof given;
  const char *sep = "";
  fputc('{', out);
#define MRI_JSON_FIELD_(field, description)                                       \
  if (MRI_STATS_HAS_(have, field)) {                                              \
    fprintf(out, "%s\"" #field "\": %llu", sep, (unsigned long long)given.field); \
    sep = ", ";                                                                   \
  }
  MR_STATS_FIELDS(MRI_JSON_FIELD_)
#undef MRI_JSON_FIELD_
  fputc('}', out);
  return ferror(out) ? mri_error(MR_ERR_INVALID_ARGUMENT, "mr_stats_write_json: write failed")
                     : MR_OK;
}

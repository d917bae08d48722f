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
 */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

void mri_stats_raise_to(_Atomic int64_t *field, int64_t value) {
  int64_t seen = atomic_load_explicit(field, memory_order_relaxed);
  while (value > seen &&
         !atomic_compare_exchange_weak_explicit(field, &seen, value,
                                                memory_order_relaxed,
                                                memory_order_relaxed)) {
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
 * the shared value as the shard's new base. */
void mri_stats_publish(mri_stats *stats, mri_stats_shard *s) {
  int64_t bytes = atomic_fetch_add_explicit(&stats->published_bytes, s->pending_bytes,
                                            memory_order_relaxed) + s->pending_bytes;
  int64_t count = atomic_fetch_add_explicit(&stats->published_count, s->pending_count,
                                            memory_order_relaxed) + s->pending_count;
  mri_stats_raise_to(&stats->peak_bytes, bytes);
  mri_stats_raise_to(&stats->peak_count, count);
  s->base_bytes = bytes;
  s->base_count = count;
  s->pending_bytes = 0;
  s->pending_count = 0;
}

mri_stats_shard *mri_stats_shard_create(mri_stats *stats, int slot) {
  mri_stats_shard *s = mri_host_aligned_alloc(MRI_CACHE_LINE, sizeof *s);
  if (s == NULL) return NULL; /* the caller falls back to the locked shard */
  memset(s, 0, sizeof *s);
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

static void add_shard(const mri_stats_shard *s, shard_sum *sum) {
  sum->alloc_bytes += atomic_load_explicit(&s->alloc_bytes, memory_order_relaxed);
  sum->alloc_count += atomic_load_explicit(&s->alloc_count, memory_order_relaxed);
  sum->free_bytes += atomic_load_explicit(&s->free_bytes, memory_order_relaxed);
  sum->free_count += atomic_load_explicit(&s->free_count, memory_order_relaxed);
  sum->failed += atomic_load_explicit(&s->failed, memory_order_relaxed);
  int64_t pb = atomic_load_explicit(&s->peak_bytes, memory_order_relaxed);
  int64_t pc = atomic_load_explicit(&s->peak_count, memory_order_relaxed);
  if (pb > sum->peak_bytes) sum->peak_bytes = pb;
  if (pc > sum->peak_count) sum->peak_count = pc;
}

mr_status mri_stats_read(const mri_stats *stats, mr_stats *out) {
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "statistics: out is NULL");
  shard_sum sum = {0};
  for (int i = 0; i < MRI_MAX_SLOTS; i++) {
    const mri_stats_shard *s = atomic_load_explicit(&((mri_stats *)stats)->shards[i],
                                                    memory_order_acquire);
    if (s != NULL) add_shard(s, &sum);
  }
  pthread_mutex_lock(&((mri_stats *)stats)->overflow_lock);
  add_shard(stats->overflow, &sum);
  pthread_mutex_unlock(&((mri_stats *)stats)->overflow_lock);

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
#define MRI_ADD_FIELD_(field, description)                                               \
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
#define MRI_JSON_FIELD_(field, description)                                           \
  if (MRI_STATS_HAS_(have, field)) {                                                 \
    fprintf(out, "%s\"" #field "\": %llu", sep, (unsigned long long)given.field);      \
    sep = ", ";                                                                        \
  }
  MR_STATS_FIELDS(MRI_JSON_FIELD_)
#undef MRI_JSON_FIELD_
  fputc('}', out);
  return ferror(out) ? mri_error(MR_ERR_INVALID_ARGUMENT, "mr_stats_write_json: write failed")
                     : MR_OK;
}

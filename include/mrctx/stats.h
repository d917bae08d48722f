/**
 * @file
 * stats.h: allocation statistics.
 *
 * One counter mechanism serves the stats(UP) adaptor and the per-tag
 * statistics every context keeps. Counters are sharded per thread, so
 * keeping them on costs no shared cache line on the allocation path.
 *
 * Exactness: current and total values are exact whenever no allocation is in
 * flight. Peaks are exact when one thread does all the allocating and
 * freeing. With several threads — at once or taking turns — a peak may be
 * lower than the true instantaneous peak by at most (threads - 1) x 16 MiB
 * (bytes) or (threads - 1) x 256 (counts), and higher by at most threads x
 * 16 MiB or threads x 256: each thread publishes its running net change in
 * batches of that size, so what one thread holds unpublished is invisible
 * to another's peak (one thread holding 10 MiB while another allocates and
 * frees 15 MiB may show a peak of 15 MiB, not 25), and what others freed
 * since a thread last published is still in that thread's view. "threads"
 * counts every thread that allocated or freed through the counters.
 *
 * Exact peaks across threads take one shared atomic on every allocation
 * and free, which the default avoids: ask for them where they matter, with
 * stats(UP, peak=exact) (mr_stats_resource_create_peak). A context tag
 * whose spec is such a stats(...) (under the retry a context adds, or a
 * log or track) has exact per-tag peaks as well, read from that adaptor.
 */
#ifndef MRCTX_STATS_H
#define MRCTX_STATS_H

#include <stdio.h>
#include <string.h>

#include <mrctx/resource.h>

MR_EXTERN_C_BEGIN

/** The fields of mr_stats, one list for the struct, the table printer and the
 * JSON writer. X(field, description). Only ever appended. */
#define MR_STATS_FIELDS(X)                             \
  X(current_bytes, "bytes allocated now")              \
  X(peak_bytes, "most bytes allocated at once")        \
  X(total_bytes, "bytes allocated over the lifetime")  \
  X(current_count, "allocations live now")             \
  X(peak_count, "most allocations live at once")       \
  X(total_count, "allocations made over the lifetime") \
  X(failed_count, "allocations that failed")

/** Allocation statistics: the fields of MR_STATS_FIELDS, each a uint64_t. */
typedef struct mr_stats {
  size_t size; /**< sizeof(mr_stats): set it before a call that fills it */
#define MR_STATS_FIELD_(field, description) uint64_t field;
  MR_STATS_FIELDS(MR_STATS_FIELD_)
#undef MR_STATS_FIELD_
} mr_stats;

/** Initialise `stats` for a call that fills it: zeroes and sets `size`. */
static inline void mr_stats_init(mr_stats *stats) {
  memset(stats, 0, sizeof *stats);
  stats->size = sizeof(mr_stats);
}

/** Add `b` into `a` (peaks add too: the sum of peaks bounds the joint peak).
 * Only the fields both structs have (their `size`) are touched; a struct
 * whose size no header gives (more than 4 KiB past this library's) is left
 * alone and adds nothing. */
MR_API void mr_stats_add(mr_stats *a, const mr_stats *b);

/** Write one JSON object {"current_bytes": ..., ...}. */
MR_NODISCARD MR_API mr_status mr_stats_write_json(const mr_stats *stats, FILE *out);

MR_EXTERN_C_END

#endif /* MRCTX_STATS_H */

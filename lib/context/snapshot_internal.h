/*
 * context/snapshot_internal.h (internal): what a snapshot holds, shared by
 * the files that take it (snapshot.c), read and write it as JSON
 * (snapshot_json.c), write it as text (snapshot_text.c) and dump it at
 * out-of-memory (oom.c).
 *
 * A snapshot owns copies of everything it shows (strings included), so it
 * outlives the contexts it was taken from, and one read from JSON is the
 * same object as one taken live: the writers cannot tell them apart.
 */
#ifndef MRCTX_LIB_CONTEXT_SNAPSHOT_INTERNAL_H
#define MRCTX_LIB_CONTEXT_SNAPSHOT_INTERNAL_H

#include <sys/types.h>

#include "core/core.h"

/* One live block of a tracked tag. */
typedef struct mri_snap_block {
  uint64_t ptr, bytes, alignment, stream, age_ns;
  char **frames; /* with track(UP, stacks=N): its call site, named; else NULL */
  size_t frame_count;
} mri_snap_block;

/* A resource that keeps idle memory (core/reclaim.h): what it keeps idle
 * now and what the process-wide reclaims took back from it. */
typedef struct mri_snap_idle {
  char *resource; /* its description */
  char *owner;    /* the process's list: "library:tag" of the first tag that holds it, or NULL */
  int device;     /* the process's list: the device, -1 for host memory */
  bool keep;      /* keep=yes: out of process-wide reclaims */
  uint64_t idle_bytes, reclaims, reclaimed_bytes, reclaim_ns;
} mri_snap_idle;

/* One tag on one device. */
typedef struct mri_snap_slot {
  int device;
  char *spec;   /* the resolved spec text */
  char *origin; /* mr_spec_origin_name of where the spec came from */
  char *status; /* NULL, or the status name of a tag that cannot allocate here */
  char *reason; /* with status: why */
  char *shares; /* NULL, or the earlier tag whose resource this tag shares */
  mr_stats stats;
  bool has_cache;
  mr_cache_stats cache;
  bool has_track;
  uint64_t track_live_count, track_live_bytes;
  mri_snap_block *blocks; /* the largest live blocks, largest first */
  size_t block_count;
  /* The chain's resources that keep idle memory, outermost first (none:
   * the chain keeps nothing, or the snapshot predates these figures). */
  mri_snap_idle *idle;
  size_t idle_count;
} mri_snap_slot;

typedef struct mri_snap_tag {
  char *name;
  mri_snap_slot *slots; /* one per device slot of the context */
  size_t slot_count;
} mri_snap_tag;

typedef struct mri_snap_context {
  uint64_t id; /* creation order in the process, from 1 */
  /* 0: live when the snapshot was taken. Else the context was destroyed
   * before (MRCTX_STATS_AT_EXIT's report: destroyed.c), and this is how
   * many destroyed contexts of the library the record stands for: 1, or
   * more where older ones were merged into it. */
  uint64_t destroyed;
  char *library;
  int device_count;
  mri_snap_tag *tags;
  size_t tag_count;
} mri_snap_context;

/* One driver pool. `which` is "device_current", "device_default",
 * "pinned_default", "managed_default" or "owned" (a pool(...) resource's,
 * `owner` then names its library:tag). */
typedef struct mri_snap_pool {
  char *which;
  char *owner; /* NULL unless owned */
  mr_pool_info info;
  const void *resource; /* an owned pool's resource while taking; NULL when read */
} mri_snap_pool;

/* A device's free and total memory when the snapshot was taken. */
typedef struct mri_snap_device {
  int device;
  uint64_t free_bytes, total_bytes;
} mri_snap_device;

/* The allocation that ran out of memory, for a dump. */
typedef struct mri_snap_oom {
  char *library, *tag;
  int device;
  uint64_t bytes, stream;
  char *message;
  /* The process-wide reclaim before the failure, where one ran. */
  bool has_reclaim;
  bool reclaim_shared; /* another thread's reclaim, which it shared */
  uint64_t reclaim_released, reclaim_resources, reclaim_kept, reclaim_ns;
} mri_snap_oom;

struct mr_snapshot {
  char *mrctx_version;
  int64_t pid;
  char *host; /* NULL: not recorded (a file written before hosts were) */
  /* What the launcher said (RANK, LOCAL_RANK, WORLD_SIZE or their MPI and
   * Slurm counterparts); -1: not said. */
  int64_t rank, local_rank, world_size;
  uint64_t time_unix_ns;
  bool has_oom; /* trigger: out_of_memory (else request) */
  mri_snap_oom oom;
  mri_snap_context *contexts;
  size_t context_count;
  /* Destroyed contexts counted but kept in no record (destroyed.c). */
  uint64_t destroyed_not_kept;
  mri_snap_pool *pools;
  size_t pool_count;
  mri_snap_device *devices; /* devices whose memory was read */
  size_t device_count;
  /* Every resource of the process that keeps idle memory (context tags'
   * and those made directly, the driver's default pools), newest first;
   * has_idle false: not read (at exit, or a file written before). */
  bool has_idle;
  mri_snap_idle *idle;
  size_t idle_count;
};

/* Free an mri_snap_idle's strings. */
void mri_snap_idle_free(mri_snap_idle *idle, size_t count);

/* The UTC time of a snapshot as ISO 8601 with milliseconds
 * ("2025-06-01T10:00:00.123Z"). */
void mri_format_time_utc(uint64_t unix_ns, char *buf, size_t cap);

/* A snapshot taken now, the OOM record (copied) included when `oom` is
 * not NULL. Without `pools`, the driver is not called at all (at process
 * exit, when it may have shut down): no pools are listed. */
mr_status mri_snapshot_take(const mr_snapshot_options *options, const mri_snap_oom *oom, bool pools,
                            mr_snapshot **out);

/* A destroyed context's final figures, taken as it is destroyed (the
 * caller still holds it): as a snapshot records a live context, with the
 * cache's counters but without live blocks or pools, and with no driver
 * call. OUT: *out, its `destroyed` still 0 (the caller's to set); freed
 * with mri_snapshot_free_context. */
mr_status mri_snapshot_take_final(const mr_context *ctx, uint64_t id, mri_snap_context *out);
void mri_snapshot_free_context(mri_snap_context *c);

/* ---- destroyed contexts, for MRCTX_STATS_AT_EXIT (destroyed.c) ---- */

/* Start keeping destroyed contexts' final figures (once the variable is
 * read and set). Until then, and after mri_destroyed_stop, nothing is
 * kept and mri_destroyed_keep returns at once. */
void mri_destroyed_start(void);
/* Keep `ctx`'s final figures (from mr_context_destroy, before anything of
 * it is released). Out of host memory, it is counted as not kept. */
void mri_destroyed_keep(const mr_context *ctx, uint64_t id);
/* Call fn for every record kept, oldest first, under the records' lock;
 * *not_kept: the destroyed contexts counted but in no record. */
mr_status mri_destroyed_foreach(mr_status (*fn)(void *user, const mri_snap_context *c), void *user,
                                uint64_t *not_kept);
/* Append copies of the records to `snap` (after its live contexts). */
mr_status mri_destroyed_append(mr_snapshot *snap);
/* Stop keeping records and free those kept (the report is written). */
void mri_destroyed_stop(void);

/* The rows of the main table: one tag on one device that has allocated
 * (or failed to), in the snapshot's order. OUT: *rows (malloc'd, NULL when
 * none), *count; *idle: the slots left out. false without host memory. */
typedef struct mri_snap_row {
  const mri_snap_context *context;
  const mri_snap_tag *tag;
  const mri_snap_slot *slot;
} mri_snap_row;
bool mri_snapshot_rows(const mr_snapshot *snap, mri_snap_row **rows, size_t *count, size_t *idle);

/* "library:tag" of a row, escaped for the terminal (as much as fits). */
void mri_snap_row_label(const mri_snap_row *r, char *buf, size_t cap);

/* The line under a text table's first that says where the snapshot was
 * taken ("host gpu07, rank 1 of 2, local rank 1"); nothing where neither
 * host nor rank was recorded. */
void mri_write_launcher(FILE *out, const mr_snapshot *snap);

/* "12.0 GiB free of 16.0 GiB (25% in use)". */
void mri_write_device_memory(FILE *out, const mri_snap_device *device);

#endif

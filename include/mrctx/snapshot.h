/**
 * @file
 * snapshot.h: who holds the memory — snapshots of every live context, and
 * what happens when an allocation runs out of memory.
 *
 * A snapshot records, for every live context (every mr_context created and
 * not yet destroyed, in any library of the process), each tag on each
 * device: its resolved spec and where it came from, its statistics
 * (current, peak and total bytes and counts, failures), the cache's
 * counters where a cache(...) is in the chain, and, where a track(...) is
 * in the chain, the largest live blocks with their sizes, streams and
 * ages (and with track(UP, stacks=N), their call sites, named), and for
 * each resource of the chain that keeps idle memory, the bytes it keeps
 * idle and what the process-wide reclaims took back from it; and every
 * such resource of the process, by library:tag. It records
 * where it was taken (the host, and the rank its launcher set: see
 * mr_snapshot_info), the free and total memory of each device the process
 * uses, and each driver pool's reserved and used bytes (the
 * current and default device pools of every device, the pinned and managed
 * default pools, and the pools pool(...) resources own).
 *
 * @code
 *   mr_snapshot *snap;
 *   if (mr_snapshot_take(NULL, &snap) == MR_OK) {
 *     if (mr_snapshot_write_text(snap, stderr) != MR_OK) ... mr_last_error() ...
 *     mr_snapshot_destroy(snap);
 *   }
 * @endcode
 *
 * The JSON form is a documented, versioned schema ("schema":
 * "mrctx-snapshot", "version": 1; docs/observability.md): a file written
 * by one process can be read back by another (mr_snapshot_read, `mrctx
 * snapshot FILE`) and shown as the same text table.
 *
 * Threads: taking a snapshot is safe while other threads allocate, free,
 * and create or destroy contexts (a context being destroyed waits until
 * the snapshot has read it). It never allocates device memory and never
 * loads the CUDA driver: without a loaded driver it lists no pools.
 * Numbers read while other threads allocate are each exact but not taken
 * at one instant.
 */
#ifndef MRCTX_SNAPSHOT_H
#define MRCTX_SNAPSHOT_H

#include <stdio.h>

#include <mrctx/resource.h>
#include <mrctx/stats.h>

MR_EXTERN_C_BEGIN

/** A snapshot (opaque): taken from the live process or read from JSON. */
typedef struct mr_snapshot mr_snapshot;

/** @{ */
/** The "schema" and "version" of the JSON a snapshot is written as. A
 * reader of version 1 ignores members it does not know; a change that
 * would mislead such a reader gets a new version. */
#define MR_SNAPSHOT_SCHEMA "mrctx-snapshot"
#define MR_SNAPSHOT_VERSION 1
/** @} */

/** The largest live blocks listed per tag and device where a track(...) is
 * in the chain, when mr_snapshot_options.largest_blocks is 0. */
#define MR_SNAPSHOT_DEFAULT_BLOCKS 10

/** What mr_snapshot_take records. */
typedef struct mr_snapshot_options {
  size_t size;           /**< sizeof(mr_snapshot_options): required */
  size_t largest_blocks; /**< blocks listed per tracked tag and device;
                              0: MR_SNAPSHOT_DEFAULT_BLOCKS */
} mr_snapshot_options;

/** Take a snapshot of the process now. `options` may be NULL (the
 * defaults). OUT: *snapshot, owned by the caller (mr_snapshot_destroy).
 * Fails only for want of host memory or for bad options. */
MR_NODISCARD MR_API mr_status mr_snapshot_take(const mr_snapshot_options *options,
                                               mr_snapshot **snapshot);

/** Read a snapshot from its JSON text (`length` bytes; they need not end
 * with a NUL), as mr_snapshot_write_json or another process wrote it.
 * OUT: *snapshot. Text that is not JSON, or JSON that is not a version-1
 * mrctx snapshot, is MR_ERR_INVALID_ARGUMENT; mr_last_error() names the
 * line and column, or the member (contexts[0].tags[1].devices[0].stats)
 * and what is wrong with it. */
MR_NODISCARD MR_API mr_status mr_snapshot_read(const char *json, size_t length,
                                               mr_snapshot **snapshot);

/** Write the snapshot as one JSON object (and a newline). Reading it back
 * with mr_snapshot_read gives a snapshot that writes the same bytes. */
MR_NODISCARD MR_API mr_status mr_snapshot_write_json(const mr_snapshot *snapshot, FILE *out);

/** Write the snapshot as tables for people: memory by library, tag and
 * device (largest first), cache counters, idle memory by library:tag
 * (most first, with what reclaims took back), the largest live blocks, the
 * driver pools. Control characters, bytes that are not UTF-8 and the
 * backslash in its strings are written as \\xNN (the backslash as \\\\),
 * so no name can drive the terminal. */
MR_NODISCARD MR_API mr_status mr_snapshot_write_text(const mr_snapshot *snapshot, FILE *out);

/** Write the snapshot as PyTorch's memory_viz reads it
 * (pytorch.org/memory_viz, torch.cuda._memory_viz): the pickle that
 * torch.cuda.memory._snapshot() is saved as (binary: open `out` so). Each
 * block a track(...) lists is a segment of its own holding that block and
 * an allocation in its device's timeline (at the snapshot's time less its
 * age), each library:tag a pool of its own, the call site (with
 * track(UP, stacks=N)) the block's frames; tags without a track(...) have
 * no blocks to show (docs/observability.md). A block older than the
 * snapshot's time (a damaged file) is MR_ERR_INVALID_ARGUMENT. */
MR_NODISCARD MR_API mr_status mr_snapshot_write_memory_viz(const mr_snapshot *snapshot, FILE *out);

/** Free a snapshot. NULL is ignored. */
MR_API void mr_snapshot_destroy(mr_snapshot *snapshot);

/** When and why a snapshot was taken (mr_snapshot_get_info). */
typedef struct mr_snapshot_info {
  size_t size;           /**< sizeof(mr_snapshot_info): set it before the call */
  uint64_t time_unix_ns; /**< when it was taken: nanoseconds since 1970, UTC */
  int64_t pid;           /**< the process it was taken in */
  int out_of_memory;     /**< 1: written at an out-of-memory; 0: asked for */
  /** With out_of_memory: the library of the allocation that failed (the
   * snapshot's own string, valid while it lives); NULL otherwise. */
  const char *oom_library;
  const char *oom_tag;  /**< with out_of_memory: its tag; NULL otherwise */
  int oom_device;       /**< with out_of_memory: its device, else -1 */
  uint64_t oom_bytes;   /**< with out_of_memory: the size asked for, else 0 */
  size_t context_count; /**< the contexts it records */
  /** The host it was taken on (the snapshot's own string); NULL for a
   * file written before snapshots recorded it. */
  const char *host;
  /** What the process's launcher said, -1 where it said nothing: its rank
   * (RANK, else OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID), its rank on
   * its host (LOCAL_RANK, else OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID,
   * SLURM_LOCALID) and how many processes there are (WORLD_SIZE, else
   * OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS). */
  int64_t rank;
  int64_t local_rank; /**< see rank */
  int64_t world_size; /**< see rank */
} mr_snapshot_info;

/** OUT: *info (set info->size first). */
MR_NODISCARD MR_API mr_status mr_snapshot_get_info(const mr_snapshot *snapshot,
                                                   mr_snapshot_info *info);

/** One tag on one device of a snapshot, as mr_snapshot_foreach_tag hands
 * it over. Owned by the library, valid during the call; `size` says how
 * many bytes of it are valid (read a field only if it lies within). */
typedef struct mr_snapshot_tag_entry {
  size_t size;           /**< sizeof(mr_snapshot_tag_entry) as the library sees it */
  const char *library;   /**< the context's library */
  const char *tag;       /**< the tag */
  int device;            /**< the device slot */
  const char *spec;      /**< the resolved spec text */
  const mr_stats *stats; /**< the tag's statistics on that device */
} mr_snapshot_tag_entry;

/** Call `fn` for every tag on every device slot of every context the
 * snapshot records, in the snapshot's order (contexts, then tags, then
 * devices). */
MR_NODISCARD MR_API mr_status
mr_snapshot_foreach_tag(const mr_snapshot *snapshot,
                        void (*fn)(void *user, const mr_snapshot_tag_entry *entry), void *user);

/** One of the largest live blocks of a tracked tag on one device, as
 * mr_snapshot_foreach_block hands it over. Owned by the snapshot, valid
 * during the call; `size` says how many bytes of it are valid. */
typedef struct mr_snapshot_block {
  size_t size;         /**< sizeof(mr_snapshot_block) as the library sees it */
  const char *library; /**< the context's library */
  const char *tag;     /**< the tag */
  int device;          /**< the device slot */
  uint64_t ptr;        /**< the block's address */
  uint64_t bytes;      /**< its size */
  uint64_t alignment;  /**< its alignment */
  uint64_t stream;     /**< the stream it was allocated on (0: legacy default) */
  uint64_t age_ns;     /**< how long it had been live when the snapshot was taken */
  /** Its call site, innermost first, each frame named as
   * mr_track_describe_frame names it ("function+0xOFF (object)"); NULL
   * where the tracker keeps no stacks. */
  const char *const *frames;
  size_t frame_count; /**< the entries of `frames` */
} mr_snapshot_block;

/** Call `fn` for every block the snapshot lists (the largest live blocks
 * of each tracked tag and device), in the snapshot's order: contexts,
 * tags, devices, then largest first. */
MR_NODISCARD MR_API mr_status mr_snapshot_foreach_block(const mr_snapshot *snapshot,
                                                        void (*fn)(void *user,
                                                                   const mr_snapshot_block *block),
                                                        void *user);

/* ---- several processes ---------------------------------------------------
 *
 * The snapshots of several processes -- the ranks of a torchrun job, the
 * workers of a Dask cluster, each written by its own process -- shown as
 * one view: every tag on every device that has allocated, by host, process
 * (rank, then pid), device, library and tag, with totals per device (a
 * device is its host and ordinal) and overall, and each device's free and
 * total memory as the latest snapshot from its host read it. The snapshots
 * are given in an order of the caller's choosing (the files' order); each
 * is named in the view by its index in it ("process").
 */

/** @{ */
/** The "schema" and "version" of the merged view's JSON
 * (docs/observability.md): an output for programs and people; `mrctx
 * snapshot` and mr_snapshot_read read single snapshots, not this. */
#define MR_SNAPSHOT_MERGED_SCHEMA "mrctx-snapshot-merged"
#define MR_SNAPSHOT_MERGED_VERSION 1
/** @} */

/** Write `count` (at least 1) snapshots as one view, as tables: the
 * processes, the memory by host, process, device, library and tag, and
 * the totals by host and device. Strings are escaped as
 * mr_snapshot_write_text escapes them. */
MR_NODISCARD MR_API mr_status mr_snapshot_write_merged_text(const mr_snapshot *const *snapshots,
                                                            size_t count, FILE *out);

/** The same view as one JSON object (and a newline): "processes", "rows",
 * "devices" and "total" (docs/observability.md). */
MR_NODISCARD MR_API mr_status mr_snapshot_write_merged_json(const mr_snapshot *const *snapshots,
                                                            size_t count, FILE *out);

/* ---- out of memory -------------------------------------------------------
 *
 * When an allocation through a context fails with MR_ERR_OUT_OF_MEMORY --
 * after the chain's retry(...) gave up, where it has one (every default
 * device chain does) -- mrctx can record who held the memory:
 *  - if the environment variable MRCTX_OOM_SNAPSHOT names a file (read once,
 *    at the first out-of-memory; "%p" in it becomes the process id, "%%" a
 *    '%'), a JSON snapshot is written there, replacing the file each time
 *    (a regular file is replaced by a new one written beside it and
 *    renamed over it once whole, so a failed write keeps the previous
 *    one; a FIFO with a reader or a character device is written straight
 *    to and stays; a symbolic link to a file, a directory, a FIFO with no
 *    reader is left alone and nothing written);
 *  - the observer set with mr_set_oom_observer is called.
 * Neither happens unless asked for. The allocation returns its own status
 * and mr_last_error() message either way; a file that cannot be written is
 * reported on stderr (its path and the system's reason). Dumps from several
 * threads are written one at a time; an out-of-memory inside the observer
 * (or while a dump is written, on the same thread) records nothing more.
 */

/** What an observer is told. Owned by the library, valid during the call;
 * `size` says how many bytes of it are valid (read a field only if it lies
 * within). */
typedef struct mr_oom_event {
  size_t size;         /**< sizeof(mr_oom_event) as the library sees it */
  const char *library; /**< the context's library */
  const char *tag;     /**< the tag that failed */
  int device;          /**< the device of the tag's resource */
  size_t bytes;        /**< the size asked for */
  mr_stream stream;    /**< the stream asked for (NULL: legacy default) */
  const char *message; /**< the allocation's mr_last_error() */
  /** The snapshot file written ("%p" replaced), or NULL when
   * MRCTX_OOM_SNAPSHOT is not set or the file could not be written. */
  const char *snapshot_path;
} mr_oom_event;

/** Called after an allocation through a context failed for lack of memory,
 * on the allocating thread, with no mrctx lock held (several threads may
 * call it at once). It may take a snapshot, free memory (the allocation
 * is not retried: retry(...)'s mr_oom_handler is for that) or allocate. */
typedef void (*mr_oom_observer)(void *user, const mr_oom_event *event);

/** Set the process-wide observer; NULL removes it. */
MR_API void mr_set_oom_observer(mr_oom_observer observer, void *user);

MR_EXTERN_C_END

#endif /* MRCTX_SNAPSHOT_H */

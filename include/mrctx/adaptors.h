/**
 * @file
 * adaptors.h: resources that wrap an upstream resource.
 *
 * Each constructor takes a reference to `upstream` (the caller keeps its
 * own) and yields a new resource with one reference. The spec language
 * builds the same objects through these constructors: stats(UP,
 * peak=sharded|exact), log(UP,
 * file=PATH), limit(UP, bytes=SIZE), align(UP, alignment=SIZE), arena(UP,
 * chunk=SIZE), fixed(UP, block=SIZE, count=N), bin(UP, min=SIZE, max=SIZE,
 * count=N), retry(UP, attempts=N), track(UP, stacks=N), cache(UP, max=SIZE).
 *
 * All are thread-safe, keep the stream-order, alignment and size-0 rules of
 * resource.h, and pass mr_resource_trim() on to their upstream.
 *
 * A size or count of 0 means the default (the MR_*_DEFAULT_* macros below),
 * the same one a spec that leaves the parameter out gets: the spec language
 * passes 0 then. The exceptions are limit's bytes (0 refuses everything),
 * align's alignment and log's file, which have no default and must be
 * given. A NULL `upstream` or `out` is MR_ERR_INVALID_ARGUMENT.
 */
#ifndef MRCTX_ADAPTORS_H
#define MRCTX_ADAPTORS_H

#include <stdio.h>

#include <mrctx/resource.h>
#include <mrctx/stats.h>

MR_EXTERN_C_BEGIN

/* ---- stats(UP, peak=sharded|exact): current, peak and total ------------ */

/** How a stats adaptor keeps its peaks (stats(UP, peak=...)). */
typedef enum mr_stats_peak {
  /** The default: per-thread counters, no shared cache line on the
   * allocation path; with several threads the peaks are within the bound
   * stats.h states. */
  MR_STATS_PEAK_SHARDED = 0,
  /** Exact peaks across threads: the most bytes and allocations live at
   * once, whatever the threads. Costs one atomic add on a cache line every
   * thread shares per allocation and per free (and a compare-and-swap when
   * the peak rises). */
  MR_STATS_PEAK_EXACT = 1,
} mr_stats_peak;

/** Counts what is allocated through it (mr_stats_resource_get reads it),
 * with sharded peaks: mr_stats_resource_create_peak(upstream,
 * MR_STATS_PEAK_SHARDED, out). */
MR_NODISCARD MR_API mr_status mr_stats_resource_create(mr_resource *upstream, mr_resource **out);
/** stats(UP, peak=...): the same with a chosen way of keeping peaks. Any
 * other `peak` is MR_ERR_INVALID_ARGUMENT. */
MR_NODISCARD MR_API mr_status mr_stats_resource_create_peak(mr_resource *upstream,
                                                            mr_stats_peak peak, mr_resource **out);
/** OUT: *stats (set stats->size first, or use mr_stats_init). */
MR_NODISCARD MR_API mr_status mr_stats_resource_get(const mr_resource *mr, mr_stats *stats);
/** Set the peaks (peak_bytes and peak_count) to what is live now, so that
 * they say the most held at once from here on (a batch-size search, one
 * phase of a program); current, total and failed counts are untouched.
 * Safe while other threads allocate: an allocation or free racing with
 * the reset counts on one side of it or the other, and a peak is never
 * read below what is live. After the reset the peaks keep the bound of
 * <mrctx/stats.h>, counted from the reset (exact for one thread and for
 * peak=exact). A context tag whose spec is stats(UP, peak=exact) reads the
 * peaks of that adaptor: resetting either resets both.
 * MR_ERR_INVALID_ARGUMENT when `mr` is not a stats resource. */
MR_NODISCARD MR_API mr_status mr_stats_resource_reset_peak(mr_resource *mr);

/* ---- log(UP, file=PATH): one CSV line per event ------------------------- */

/** Writes rmm's logging-adaptor format, header
 * "Thread,Time,Action,Pointer,Size,Stream", actions "allocate",
 * "allocate failure" and "free". The header is written at creation. Lines
 * are buffered in memory and written by a background thread (which ends
 * when idle, so it never keeps a process alive), so file I/O never holds
 * allocating threads up; the file is complete once mr_log_resource_flush
 * returns, the resource is destroyed, or the process exits (exit(), return
 * from main, the last thread ending) with the log still live. */
MR_NODISCARD MR_API mr_status mr_log_resource_create(mr_resource *upstream, const char *path,
                                                     mr_resource **out);
/** Write everything logged so far to the file and flush it. */
MR_NODISCARD MR_API mr_status mr_log_resource_flush(mr_resource *mr);

/* ---- limit(UP, bytes=SIZE): refuse past a byte limit --------------------- */

/** Allocations that would take the bytes in use past `limit` fail with
 * MR_ERR_OUT_OF_MEMORY. Counted in requested bytes. `limit` has no default:
 * 0 refuses every allocation (a tag switched off). */
MR_NODISCARD MR_API mr_status mr_limit_resource_create(mr_resource *upstream, size_t limit,
                                                       mr_resource **out);
/** OUT: bytes in use through the limit now. */
MR_NODISCARD MR_API mr_status mr_limit_resource_used(const mr_resource *mr, size_t *used);

/* ---- align(UP, alignment=SIZE): a larger minimum alignment --------------- */

/** The largest alignment align takes: 2 GiB. Where the upstream serves less
 * natively every request is over-allocated by up to the alignment, so a
 * larger one would waste that much per allocation (and near 2^63 overflow). */
#define MR_ALIGN_MAX_ALIGNMENT ((size_t)1 << 31)

/** `alignment`: a power of two, at most MR_ALIGN_MAX_ALIGNMENT; otherwise
 * (0 included: there is no default) MR_ERR_INVALID_ARGUMENT. */
MR_NODISCARD MR_API mr_status mr_align_resource_create(mr_resource *upstream, size_t alignment,
                                                       mr_resource **out);

/* ---- arena(UP, chunk=SIZE): bump allocation for temporaries -------------- */

/** The chunk size of `chunk` 0: 64 MiB. */
#define MR_ARENA_DEFAULT_CHUNK ((size_t)64 << 20)

/** Carves allocations out of chunks of `chunk` bytes (rounded up to a
 * multiple of 256; 0: MR_ARENA_DEFAULT_CHUNK) taken from upstream on first
 * use. A chunk is reused once every allocation in it is freed: at once for
 * work on the stream that freed last, on another stream only after an event
 * shows that stream got past the frees. Requests larger than a chunk go
 * straight upstream. Destroying the arena returns every chunk. */
MR_NODISCARD MR_API mr_status mr_arena_resource_create(mr_resource *upstream, size_t chunk,
                                                       mr_resource **out);

/* ---- fixed(UP, block=SIZE, count=N): fixed-size blocks ------------------- */

/** @{ */
/** The block size of `block` 0 (1 MiB) and the blocks per slab of `count` 0. */
#define MR_FIXED_DEFAULT_BLOCK ((size_t)1 << 20)
#define MR_FIXED_DEFAULT_COUNT ((size_t)16)
/** @} */

/** Takes `count` blocks of `block` bytes (rounded up to a multiple of 256)
 * from upstream at creation (one upstream allocation), and `count` more
 * each time it runs out. Requests of at most `block` bytes get one block;
 * larger ones go upstream. Blocks are reused in stream order as arena
 * chunks are. */
MR_NODISCARD MR_API mr_status mr_fixed_resource_create(mr_resource *upstream, size_t block,
                                                       size_t count, mr_resource **out);

/* ---- bin(UP, min=SIZE, max=SIZE, count=N): size classes ------------------ */

/** @{ */
/** The smallest and largest size class of `min` 0 and `max` 0 (256 B and
 * 64 KiB), and the blocks per class of `count` 0. */
#define MR_BIN_DEFAULT_MIN ((size_t)256)
#define MR_BIN_DEFAULT_MAX ((size_t)64 << 10)
#define MR_BIN_DEFAULT_COUNT ((size_t)64)
/** @} */

/** Power-of-two size classes from `min` to `max` (powers of two, 256 <= min
 * <= max, at most 48 classes), each a fixed(UP, block=class, count=N), so
 * every class takes its blocks at creation; larger requests go to UP. */
MR_NODISCARD MR_API mr_status mr_bin_resource_create(mr_resource *upstream, size_t min, size_t max,
                                                     size_t count, mr_resource **out);

/* ---- retry(UP, attempts=N): recover from transient out-of-memory --------- */

/**
 * Called by retry resources after they have synchronized and trimmed and an
 * allocation still fails. It may free memory; return true to try again.
 * `attempt` counts from 1. Runs on the allocating thread, with no mrctx lock
 * held.
 */
typedef bool (*mr_oom_handler)(void *user, mr_resource *mr, size_t bytes, mr_stream stream,
                               int attempt);

/** The process-wide handler used by retry resources that have none of their
 * own (those built from specs). NULL removes it. */
MR_API void mr_set_oom_handler(mr_oom_handler handler, void *user);

/** The retries of `attempts` 0. */
#define MR_RETRY_DEFAULT_ATTEMPTS 3

/** On MR_ERR_OUT_OF_MEMORY: synchronize the stream and retry; then the
 * device, trim the whole chain (caches, arenas, fixed blocks) and retry;
 * then ask the handler (`handler` or, if NULL, the process-wide one) and
 * retry while it returns true, at most `attempts` times in all (0:
 * MR_RETRY_DEFAULT_ATTEMPTS; negative is MR_ERR_INVALID_ARGUMENT). The
 * description leaves the default count out: "retry(device)". */
MR_NODISCARD MR_API mr_status mr_retry_resource_create(mr_resource *upstream, int attempts,
                                                       mr_oom_handler handler, void *user,
                                                       mr_resource **out);

/* ---- track(UP, stacks=N): find leaks, and who allocated ---------------- */

/** Filled by the library; `size` says how many bytes of it are valid (read
 * a field only if it lies within). */
typedef struct mr_track_record {
  size_t size;       /**< sizeof(mr_track_record) as the library sees it */
  void *ptr;         /**< the allocation */
  size_t bytes;      /**< its size, as allocated */
  size_t alignment;  /**< its alignment, as allocated */
  mr_stream stream;  /**< the stream it was allocated on */
  const char *owner; /**< "library:tag" of the context that owns the chain,
                          or "" where unknown */
  uint64_t age_ns;   /**< how long it has been live, in nanoseconds, when
                          the walk began */
  /** With stacks=N: the call site, innermost first: the frames the
   * registered frame source gave (a language runtime's, such as Python's:
   * mr_track_set_frame_source), then the return addresses of the innermost
   * frames of the allocating thread outside mrctx's own allocation path.
   * mr_track_describe_frame names either kind. Valid during the callback
   * only; NULL when the tracker keeps no stacks. */
  const void *const *frames;
  size_t frame_count; /**< the entries of `frames`, at most N; 0 without */
} mr_track_record;

/** The most frames track(UP, stacks=N) keeps per allocation. */
#define MR_TRACK_MAX_STACKS 32

/** Records every live allocation. On destroy, reports outstanding ones to
 * stderr (one line each). The same as mr_track_resource_create_stacks
 * with stacks 0. */
MR_NODISCARD MR_API mr_status mr_track_resource_create(mr_resource *upstream, mr_resource **out);

/** track(UP, stacks=N): with `stacks` > 0, also the call site of each live
 * allocation: the `stacks` innermost frames of the allocating thread
 * outside mrctx's allocation path (libc's backtrace(), at each allocation;
 * its cost is in docs/benchmarks.md), named only when reported (report,
 * snapshots, the out-of-memory dump). Frames are named from the dynamic
 * symbol table: a program's own functions need -rdynamic
 * (-Wl,--export-dynamic) to be named, else they show as file+offset for
 * addr2line. 0: no stacks, nothing captured. More than
 * MR_TRACK_MAX_STACKS is MR_ERR_INVALID_ARGUMENT. */
MR_NODISCARD MR_API mr_status mr_track_resource_create_stacks(mr_resource *upstream, size_t stacks,
                                                              mr_resource **out);
/** Call `fn` for each live allocation (under the tracker's lock: `fn` must
 * not allocate from this resource, nor create, release or trim resources,
 * nor fork: a fork waits for the lock). OUT: *count, may be NULL. */
MR_NODISCARD MR_API mr_status mr_track_resource_foreach(const mr_resource *mr,
                                                        void (*fn)(void *user,
                                                                   const mr_track_record *rec),
                                                        void *user, size_t *count);
/** Print the outstanding allocations, one line each (and under it, with
 * stacks, one line per frame: "    at NAME+0xOFF (OBJECT)"), and a total
 * line. */
MR_NODISCARD MR_API mr_status mr_track_resource_report(const mr_resource *mr, FILE *out);

/** A frame of mr_track_record.frames in words, into `buf` (`cap` bytes,
 * cut to fit): a frame source's frame as "function (file:line)"; a native
 * one as "function+0xOFF (object path)" where the dynamic symbol table
 * names the function, else "object path+0xOFF" (an offset for `addr2line
 * -e`), else the address. Returns buf. Takes the dynamic loader's lock: do
 * not call it from a foreach callback. */
MR_API const char *mr_track_describe_frame(const void *frame, char *buf, size_t cap);

/** One frame a frame source gives: a language runtime's, such as a line
 * of a Python script. The strings are the source's; they must stay valid
 * until the allocation that called the source returns (the library copies
 * each distinct frame once and keeps the copy for the process). */
typedef struct mr_track_frame {
  const char *file;     /**< the source file ("/home/me/train.py"); NULL: "?" */
  const char *function; /**< the function ("step"); NULL: "?" */
  uint32_t line;        /**< its line, from 1; 0 where unknown */
} mr_track_frame;

/** A frame source: fill up to `cap` frames of the calling thread (the one
 * allocating), innermost first, and return how many (0: none; more than
 * `cap` counts as `cap`). It is called on the allocating thread, inside
 * the allocation, by every track(UP, stacks=N) as it records a block
 * (`cap` is then N), possibly with an outer adaptor's lock held: it must be
 * quick, and must neither allocate from mrctx, nor wait for another thread
 * (a Python source must not take the GIL), nor fail -- it has no way to:
 * what it cannot give, it leaves out. */
typedef size_t (*mr_track_frame_source_fn)(void *user, mr_track_frame *frames, size_t cap);

/** Register the process's frame source (one for the whole process; the
 * last call wins), or with `fn` NULL remove it. The frames it gives come
 * first in each call site track(UP, stacks=N) records, the native frames
 * after them in the room left. Returns once no call of the previous
 * source is running: a runtime that removes its source before it shuts
 * down is never called afterwards. Without a source, stacks cost what
 * they did (one atomic load more); without stacks, nothing calls it. Must
 * not be called from inside a source. Always MR_OK. */
MR_NODISCARD MR_API mr_status mr_track_set_frame_source(mr_track_frame_source_fn fn, void *user);

/* ---- cache(UP, max=SIZE): the fast, stream-aware cache ------------------- */

/** `max_cached` 0: no cap. Idle memory then goes back upstream when the
 * upstream runs out (the cache gives back everything idle and asks again),
 * on mr_resource_trim(), and when a pool about to grow holds more than an
 * eighth above its recent peak in use. */
#define MR_CACHE_DEFAULT_MAX SIZE_MAX

/** The stream-aware caching allocator. Memory comes from upstream in
 * segments, one heap of them per stream: a request takes the best-fitting
 * free block and splits off the rest, a free merges the block with its
 * free neighbours, so memory freed in one size serves another. Each thread
 * keeps a few freed blocks up to 1 MiB per stream in size classes: its
 * common path (same thread, same stream, a class it holds) makes no driver
 * call besides the stream's identity and takes no lock. Memory moves to
 * another stream a whole idle segment at a time, after an event shows the
 * freeing stream passed the frees. Allocations on a capturing stream go
 * straight upstream (graph-safe). At most `max_cached` bytes sit idle
 * where they could go back (idle segments; 0: no cap, and the description
 * leaves it out: "cache(device)"). mr_resource_trim() gives back every
 * idle segment. */
MR_NODISCARD MR_API mr_status mr_cache_resource_create(mr_resource *upstream, size_t max_cached,
                                                       mr_resource **out);

/** What a cache has done and holds now (mr_cache_resource_get_stats). */
typedef struct mr_cache_stats {
  size_t size;            /**< sizeof(mr_cache_stats): set it before the call */
  uint64_t hits;          /**< served from the cache */
  uint64_t misses;        /**< served by upstream */
  uint64_t cross_stream;  /**< served from blocks freed on another stream */
  uint64_t bypassed;      /**< sent straight upstream (capture, too large) */
  uint64_t cached_bytes;  /**< unused bytes held now */
  uint64_t cached_blocks; /**< unused blocks held now */
  uint64_t trims;         /**< blocks returned upstream by trim, the cap, or
                               to make way for a large block */
} mr_cache_stats;

/** OUT: *stats (set stats->size first). */
MR_NODISCARD MR_API mr_status mr_cache_resource_get_stats(const mr_resource *mr,
                                                          mr_cache_stats *stats);

MR_EXTERN_C_END

#endif /* MRCTX_ADAPTORS_H */

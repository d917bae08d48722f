/*
 * bench.h: `mrctx bench`, shared between its files:
 *   cmd_bench.c         the command: options, --help, the runs, the output
 *   bench_harness.c     what every workload runs on: timing, rounds and
 *                       their median, peak reserved bytes, cache hit
 *                       counts, the allocators and the context of a run
 *   bench_workloads.c   the workloads and their table
 *   bench_targets.c     the targets, read from the results
 *   bench_allocators.c  the allocators under test; bench_cuda.c the driver
 *   bench_report.c      the table, the targets, JSON and SVG: it reads the
 *                       results only (each row names its baseline's label)
 *
 * The benchmark uses mrctx's public API only; for its baselines (the raw
 * driver pool, cuMemHostAlloc) and its streams it opens the driver itself.
 */
#ifndef MRCTX_TOOLS_BENCH_H
#define MRCTX_TOOLS_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <cuda.h>
#include <cudaTypedefs.h>

#include <mrctx/mrctx.h>

#include "replay_log.h"

/* ---- the driver, for baselines -------------------------------------------- */

typedef struct bench_cuda {
  PFN_cuInit_v2000 cuInit;
  PFN_cuDriverGetVersion_v2020 cuDriverGetVersion;
  PFN_cuDeviceGet_v2000 cuDeviceGet;
  PFN_cuDeviceGetName_v2000 cuDeviceGetName;
  PFN_cuDevicePrimaryCtxRetain_v7000 cuDevicePrimaryCtxRetain;
  PFN_cuCtxSetCurrent_v4000 cuCtxSetCurrent;
  PFN_cuCtxGetDevice_v13000 cuCtxGetDevice;
  PFN_cuCtxGetCurrent_v4000 cuCtxGetCurrent;
  PFN_cuCtxSynchronize_v13000 cuCtxSynchronize; /* NULL: the current context */
  PFN_cuStreamCreate_v2000 cuStreamCreate;
  PFN_cuStreamDestroy_v4000 cuStreamDestroy;
  PFN_cuStreamSynchronize_v2000 cuStreamSynchronize;
  PFN_cuStreamGetId_v12000 cuStreamGetId;
  PFN_cuStreamIsCapturing_v10000 cuStreamIsCapturing;
  PFN_cuMemGetMemPool_v13000 cuMemGetMemPool;
  PFN_cuMemGetDefaultMemPool_v13000 cuMemGetDefaultMemPool;
  PFN_cuMemPoolSetAttribute_v11020 cuMemPoolSetAttribute;
  PFN_cuMemPoolGetAttribute_v11020 cuMemPoolGetAttribute;
  PFN_cuMemPoolTrimTo_v11020 cuMemPoolTrimTo;
  PFN_cuMemAllocFromPoolAsync_v11020 cuMemAllocFromPoolAsync;
  PFN_cuMemFreeAsync_v11020 cuMemFreeAsync;
  PFN_cuMemHostAlloc_v2020 cuMemHostAlloc;
  PFN_cuMemFreeHost_v2000 cuMemFreeHost;
  CUcontext context; /* device 0's primary context */
  /* Device 0's current and default pools (the same pool unless someone
   * called cuMemSetMemPool), and the host-pinned default pool. */
  CUmemoryPool device_pool, device_default_pool, pinned_pool;
  int version;
  char device_name[128];
} bench_cuda;

/* Open the driver (or $MRCTX_CUDA_DRIVER) and device 0. On failure, false
 * and a reason in `why`. */
bool bench_cuda_open(bench_cuda *cu, char *why, size_t cap);

/* ---- allocators under test ------------------------------------------------- */

/* Every allocator is called through the same indirect calls, so none gets
 * an advantage from inlining. `alloc` returns 0 on success. */
typedef struct bench_allocator {
  const char *name;  /* e.g. "mrctx cache(device)" */
  const char *label; /* short key for JSON and charts, e.g. "cache" */
  void *state;
  int (*alloc)(void *state, size_t bytes, CUstream stream, void **ptr);
  void (*free)(void *state, void *ptr, size_t bytes, CUstream stream);
  /* Optional: release everything cached between workloads. */
  void (*trim)(void *state);
  /* The mrctx resource allocations go to (NULL for the peers): its chain is
   * searched for a cache, to report the hit rate. */
  mr_resource *mr;
  /* Where the most memory it held during a workload (its peak reserved) is
   * read: the driver pool its memory comes from, whose reserved high
   * watermark says it (the raw pools, and the mrctx chains that end in one
   * of the bench's pools); or, for the peers with books of their own, the
   * two calls below; or neither (the row says n/a). */
  CUmemoryPool pool;
  /* Or the expandable(...) resource an mrctx chain ends in (NULL where it
   * does not): the most physical memory its pages held, from its own books
   * (mr_expandable_resource_get_info's mapped_high). */
  mr_resource *pages;
  /* Optional: start a workload's peak (reset_peak), and the most bytes held
   * from the device since, cached or in use (peak_reserved; NaN if
   * unknown). `sample_reserved` is for allocators that report only what
   * they hold now (cub): the workloads call it whenever their requested
   * bytes reach a new high, and at their end. */
  void (*reset_peak)(void *state);
  void (*sample_reserved)(void *state);
  double (*peak_reserved)(void *state);
  /* A cache's own books: the stats(...) adaptor right below the chain's
   * cache (the bench's chains put one there), whose peak is the most the
   * cache held from upstream at once, in segments; NULL where there is
   * none. Beside the pool's reserved, it tells the cache's share of the
   * memory from the driver pool's. */
  mr_resource *books;
  /* Timed for reference only, never compared with the baseline or cub (it
   * allocates nothing, or other memory than they do): the rows that split
   * a cached pair into the driver's share and mrctx's own. */
  bool reference;
} bench_allocator;

/* A context tag: the allocation asks ctx_get_mr(ctx, tag), as a library's
 * allocation site does; the free goes to the resource kept from it. */
bench_allocator bench_tag_allocator(const char *name, const char *label, const bench_cuda *cu,
                                    mr_context *ctx, int tag);
/* A resource called directly (for a context's resource: kept, no lookup). */
bench_allocator bench_resource_allocator(const char *name, const char *label, const bench_cuda *cu,
                                         mr_resource *mr);
/* cuMemAllocFromPoolAsync / cuMemFreeAsync on `pool`. */
bench_allocator bench_pool_allocator(const char *name, const char *label, const bench_cuda *cu,
                                     CUmemoryPool pool);
/* cuMemHostAlloc / cuMemFreeHost. */
bench_allocator bench_host_alloc_allocator(const bench_cuda *cu);
/* The driver calls a cache(device) hit makes, allocating nothing. */
bench_allocator bench_stream_query_allocator(const bench_cuda *cu);
#if MRCTX_BENCH_CUB
/* cub::CachingDeviceAllocator (bench_cub.cu): with no cap on cached bytes
 * (`unbounded`: the configuration a user tuning for speed picks, label
 * "cub", the peer of every "vs cub" ratio), or as its default constructor
 * makes it (6 MiB cap; label "cub_default"). False if it cannot be made. */
bool bench_cub_open(bench_allocator *out, bool unbounded);
#endif
#if MRCTX_BENCH_RMM
#include "bench_rmm.h"
/* An rmm resource over cudaMalloc (bench_rmm.cpp), labels "rmm_pool" and
 * "rmm_arena". False, with the reason in `why`, if it cannot be made. */
bool bench_rmm_open(bench_allocator *out, bench_rmm_kind kind, char *why, size_t cap);
#endif
#if MRCTX_BENCH_TORCH
/* PyTorch's CUDA caching allocator (bench_torch.cpp), label "torch". False,
 * with the reason in `why`, if it cannot be used. */
bool bench_torch_open(bench_allocator *out, char *why, size_t cap);
#endif
void bench_allocator_close(bench_allocator *a);

/* ---- requested bytes --------------------------------------------------------- */

/* The bytes a workload has live, kept by the workload itself (so it is the
 * same for every allocator): its peak is the "requested" of
 * reserved/requested. One per thread of a workload, or one shared by
 * threads that take turns. */
typedef struct bench_usage {
  const bench_allocator *sampled; /* whose sample_reserved to call, or NULL */
  size_t live, peak;
} bench_usage;

static inline void bench_usage_alloc(bench_usage *u, size_t bytes) {
  u->live += bytes;
  if (u->live > u->peak) {
    u->peak = u->live;
    if (u->sampled != NULL) u->sampled->sample_reserved(u->sampled->state);
  }
}

static inline void bench_usage_free(bench_usage *u, size_t bytes) { u->live -= bytes; }

/* A workload's end, before its last frees: the last sample. */
static inline void bench_usage_end(const bench_usage *u) {
  if (u->sampled != NULL) u->sampled->sample_reserved(u->sampled->state);
}

/* ---- results --------------------------------------------------------------- */

/* At most this many runs of the suite (--runs). */
#define BENCH_MAX_RUNS 100

/* One measurement, in one run of the suite. */
typedef struct bench_result {
  const char *workload; /* a workload's name: "lookup", "pairs", ... (bench_workloads.c) */
  const char *sizes;    /* "256B-1MiB", ... or "" */
  const char *allocator;
  const char *label;
  /* The label of the row this one is compared with ("vs raw"): its
   * workload's baseline, the raw driver call of its kind. */
  const char *baseline;
  int threads;
  int run;               /* which run of the suite, from 0 */
  double ns_per_op;      /* per operation, per thread (pairs: one alloc + one free) */
  double mops;           /* aggregate million operations per second */
  long ops;              /* operations timed */
  long failures;         /* allocations that failed */
  double hit_rate;       /* a cache in the chain: hits / (hits + misses); NaN if none */
  double peak_requested; /* most bytes the workload had live; NaN if unknown */
  double peak_reserved;  /* most bytes the allocator held meanwhile; NaN if unknown */
  double peak_books;     /* most bytes its cache held from upstream (`books`); NaN if unknown */
  bool reference;        /* the allocator's `reference`: no "vs" ratios */
} bench_result;

typedef struct bench_results {
  bench_result *items;
  size_t count, capacity;
  int runs;          /* runs of the suite done */
  const char *trace; /* the trace workload's log, where it ran; else NULL */
} bench_results;

void bench_results_add(bench_results *r, bench_result result);
/* The result for (run, workload, sizes, label, threads), or NULL. Sizes
 * NULL: the workload's first row for `label` whatever its sizes and
 * threads (trace's rows name their log and run on its threads). */
const bench_result *bench_results_find(const bench_results *r, int run, const char *workload,
                                       const char *sizes, const char *label, int threads);

/* The least, median and most of a row's values over the runs, NaNs left
 * out (count: how many were not NaN). */
typedef struct bench_spread {
  double min, median, max;
  int count;
} bench_spread;

bench_spread bench_spread_of(const double *values, int n);

/* A target from the issue, checked against every run. */
typedef struct bench_target {
  const char *what;
  double wanted; /* the bound */
  bool at_most;  /* measured must be <= wanted (else >=) */
  const char *unit;
  bool every_run; /* met only if every run meets it (else: the median) */
  /* The ratio or value measured in each run; NaN where a row was missing
   * or had failures (the target is then not measured). */
  double measured[BENCH_MAX_RUNS];
} bench_target;

/* At most this many targets. */
#define BENCH_MAX_TARGETS 36

/* The targets, measured in run `run`, into `t` (BENCH_MAX_TARGETS
 * of them at most). Returns how many (bench_targets.c). */
size_t bench_make_targets(const bench_results *r, int run, bench_target *t);

/* ---- the report (bench_report.c) ------------------------------------------- */

/* What the SVG chart draws: on the left, the aggregate rate against threads
 * of one workload's rows; on the right, the ns per operation at one thread
 * of one workload's rows of one sizes column. */
typedef struct bench_chart {
  const char *scaling;          /* "threads" */
  const char *bars, *bar_sizes; /* "pairs", "256B-1MiB" */
} bench_chart;

void bench_print_table(FILE *out, const bench_results *r);
void bench_print_targets(FILE *out, const bench_target *targets, size_t count, int runs);
bool bench_write_json(const char *path, const bench_cuda *cu, const bench_results *r,
                      const bench_target *targets, size_t count);
bool bench_write_svg(const char *path, const bench_results *r, const bench_chart *chart);

/* ---- time, random numbers, CPUs (bench_harness.c) ---------------------------- */

static inline double bench_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static inline uint64_t bench_next_random(uint64_t *state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *state = x;
  return x;
}

/* lo..hi bytes, log-uniformly: as many blocks of 1-2 MiB as of 128-256 MiB
 * (sizes of tensors spread over orders of magnitude). Not for timed loops:
 * it costs a pow(). */
size_t bench_log_uniform(uint64_t *rng, size_t lo, size_t hi);

/* Keep the calling thread on CPU index + 1 (CPU 0 is left to the driver's
 * own threads where there are enough). */
void bench_pin_to_cpu(int index);

/* ---- a run of the suite ---------------------------------------------------- */

typedef struct bench_options {
  double seconds; /* per measurement */
  int max_threads;
  int runs;   /* of the whole suite */
  bool quiet; /* no progress on stderr */
  const char *only;
  const char *trace; /* --trace FILE: the trace workload's log, or NULL */
} bench_options;

/* A line of progress on stderr (replacing the last), unless --quiet. */
void bench_progress(const bench_options *o, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* The allocators under test; a workload lists those it times. */
typedef enum allocator_id {
  ALLOC_NONE,           /* ends a workload's list */
  ALLOC_RAW,            /* cuMemAllocFromPoolAsync on the device's pool */
  ALLOC_DEVICE,         /* ctx_get_mr -> device */
  ALLOC_DEVICE_DEFAULT, /* ctx_get_mr -> device_default */
  ALLOC_CACHE,          /* cache(device), kept from the context: per-tag statistics */
  ALLOC_CACHE_LOOKUP,   /* ctx_get_mr -> cache(device) */
  ALLOC_CACHE_BARE,     /* the same chain built directly: no statistics */
  ALLOC_ARENA,          /* arena(device, chunk=64MiB) */
  ALLOC_RAW_PINNED,     /* cuMemAllocFromPoolAsync on the pinned pool */
  ALLOC_HOST_ALLOC,     /* cuMemHostAlloc */
  ALLOC_FIXED,          /* fixed(pinned, block=4MiB, count=32) */
  ALLOC_PINNED_CACHE,   /* cache(pinned) */
  ALLOC_CUB,            /* cub, no cap on cached bytes: the "vs cub" peer */
  ALLOC_CUB_DEFAULT,    /* cub as default-constructed (6 MiB cap), for reference */
  ALLOC_TORCH,          /* PyTorch's CUDA caching allocator */
  ALLOC_DRIVER_CALLS,   /* a cached pair's driver calls alone, no memory */
  ALLOC_HOST_CACHE,     /* cache(host): the cache's own work, no driver calls */
  ALLOC_CACHE_SLABS,    /* cache(bin(device, ...)): misses carved from slabs */
  ALLOC_CACHE_EXACT,    /* stats(cache(device), peak=exact), kept: exact per-tag peaks */
  ALLOC_TRACK,          /* track(cache(host)): a tracker's own cost, no driver calls */
  ALLOC_TRACK_STACKS,   /* track(cache(host), stacks=8): and each allocation's call site */
  ALLOC_RMM_POOL,       /* rmm's pool_memory_resource over cudaMalloc */
  ALLOC_RMM_ARENA,      /* rmm's arena_memory_resource over cudaMalloc */
  ALLOC_COUNT
} allocator_id;

#define MAX_WORKLOAD_ALLOCATORS 14
/* Measurements taken ROUNDS times, interleaved, keep the median. */
#define ROUNDS 3
#define MAX_WORKLOAD_CASES 4

/* One range of request sizes a workload is timed with. */
typedef struct workload_case {
  const char *sizes; /* the results' sizes column; NULL past a workload's last case */
  size_t lo, hi;     /* requests are lo..hi bytes */
  bool log_uniform;  /* drawn log-uniformly (else uniformly) */
  /* On the legacy default stream (what PyTorch and CuPy use) rather than a
   * stream of the thread's own. */
  bool legacy_stream;
} workload_case;

/* What a run of the suite holds: the options, the driver, the benchmark's
 * context, the allocators and the results so far. */
typedef struct bench_run {
  const bench_options *o;
  bench_cuda cu;
  int run;         /* which run of the suite, from 0 */
  char prefix[32]; /* "run 2/5: " for progress, or "" for one run */
  mr_context *ctx;
  bench_allocator allocators[ALLOC_COUNT];
  mr_resource *device_mr, *books_mr, *cache_mr, *bare_cache; /* the statistics-free cache's chain */
  mr_resource *host_mr, *host_cache;                         /* cache(host) */
  mr_resource *track, *track_stacks;                         /* track(cache(host)), with stacks=8 */
  /* The trace workload's log, read once before the first run (NULL: the
   * workload is skipped), and a stream for each of its Stream values. */
  const replay_log *trace;
  const mr_stream *trace_streams;
  char trace_label[32]; /* its sizes column: "138,893 events" */
  bench_results results;
} bench_run;

typedef struct bench_workload bench_workload;

/* One measurement: allocator `a` on case `c` with `threads` threads. It
 * fills in the workload's peak requested bytes (NaN where its threads'
 * own counts cannot tell it: they are not added up while they run); the
 * caller adds the run and the peak reserved. */
typedef bench_result (*measure_fn)(const bench_run *b, const bench_workload *w,
                                   const workload_case *c, int threads, bench_allocator *a);

/* A row of the workload table. */
struct bench_workload {
  const char *name;     /* its --only name and the results' workload column */
  const char *baseline; /* the label of the row its results are compared with */
  /* Runs the workload and adds its results: bench_run_each for all but lookup. */
  void (*run)(bench_run *b, const bench_workload *w);
  /* What bench_run_each reads: */
  measure_fn measure;
  allocator_id allocators[MAX_WORKLOAD_ALLOCATORS]; /* in the results' order */
  workload_case cases[MAX_WORKLOAD_CASES + 1];
  int live;           /* pair workloads: blocks each thread keeps live */
  bool rounds;        /* ROUNDS interleaved rounds, the median kept */
  bool scale_threads; /* each case at 1, 2, 4, ... and --threads threads */
};

/* The context's tags (bench_harness.c names them). */
enum {
  TAG_DEVICE,
  TAG_DEVICE_DEFAULT,
  TAG_CACHE,
  TAG_ARENA,
  TAG_STAGING_FIXED,
  TAG_STAGING_CACHE,
  TAG_SLABS,
  TAG_CACHE_EXACT,
  TAG_COUNT
};

/* The workloads, in the order they run and are reported (bench_workloads.c),
 * and the notes printed under the table. */
extern const bench_workload bench_workloads[];
extern const size_t bench_workload_count;
extern const char bench_table_notes[];

/* ---- the harness (bench_harness.c) ------------------------------------------ */

/* Add `r`, a result of workload `w` in this run, to the run's results. */
void bench_add(bench_run *b, const bench_workload *w, bench_result r);
/* The hits and misses so far of the cache in `a`'s chain (0 without one). */
void bench_cache_counts(const bench_allocator *a, uint64_t *hits, uint64_t *misses);
/* One measurement, with the peak reserved bytes around it. */
bench_result bench_measure(const bench_run *b, const bench_workload *w, const workload_case *c,
                           int threads, bench_allocator *a);
/* A workload's `run` for most: every allocator on every case. */
void bench_run_each(bench_run *b, const bench_workload *w);
/* Whether --only selects `workload`. */
bool bench_selected(const bench_options *o, const char *workload);
/* The benchmark's context (printed why not, if it cannot be made). */
bool bench_create_context(bench_run *b);
/* The trace workload's log, for every run; see bench_harness.c. */
bool bench_open_trace(bench_run *b, replay_log *log, mr_stream **streams);
void bench_close_trace(bench_run *b, replay_log *log, mr_stream *streams);
/* One run of the suite: fresh context and allocators, every selected
 * workload. False if mrctx's own allocators could not be made. */
bool bench_run_suite(bench_run *b);

#endif

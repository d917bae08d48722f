/*
 * bench.h: `mrctx bench`, shared between its files.
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

#include <cuda.h>
#include <cudaTypedefs.h>

#include <mrctx/mrctx.h>

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
  /* Optional: start a workload's peak (reset_peak), and the most bytes held
   * from the device since, cached or in use (peak_reserved; NaN if
   * unknown). `sample_reserved` is for allocators that report only what
   * they hold now (cub): the workloads call it whenever their requested
   * bytes reach a new high, and at their end. */
  void (*reset_peak)(void *state);
  void (*sample_reserved)(void *state);
  double (*peak_reserved)(void *state);
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
bench_allocator bench_resource_allocator(const char *name, const char *label,
                                         const bench_cuda *cu, mr_resource *mr);
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
  const char *workload; /* a workload's name: "lookup", "pairs", ... (cmd_bench.c) */
  const char *sizes;    /* "256B-1MiB", ... or "" */
  const char *allocator;
  const char *label;
  int threads;
  int run;            /* which run of the suite, from 0 */
  double ns_per_op;   /* per operation, per thread (pairs: one alloc + one free) */
  double mops;        /* aggregate million operations per second */
  long ops;           /* operations timed */
  long failures;      /* allocations that failed */
  double hit_rate;    /* a cache in the chain: hits / (hits + misses); NaN if none */
  double peak_requested; /* most bytes the workload had live; NaN if unknown */
  double peak_reserved;  /* most bytes the allocator held meanwhile; NaN if unknown */
  bool reference;        /* the allocator's `reference`: no "vs" ratios */
} bench_result;

typedef struct bench_results {
  bench_result *items;
  size_t count, capacity;
  int runs; /* runs of the suite done */
  const char *trace; /* the trace workload's log, where it ran; else NULL */
} bench_results;

void bench_results_add(bench_results *r, bench_result result);
/* The result for (run, workload, sizes, label, threads), or NULL. */
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
  double wanted;   /* the bound */
  bool at_most;    /* measured must be <= wanted (else >=) */
  const char *unit;
  bool every_run;  /* met only if every run meets it (else: the median) */
  /* The ratio or value measured in each run; NaN where a row was missing
   * or had failures (the target is then not measured). */
  double measured[BENCH_MAX_RUNS];
} bench_target;

/* The label of the row a workload's results are compared with (the raw
 * driver call of its kind), from the workload table in cmd_bench.c; NULL
 * for a name that is not a workload. */
const char *bench_workload_baseline(const char *workload);

void bench_print_table(FILE *out, const bench_results *r);
void bench_print_targets(FILE *out, const bench_target *targets, size_t count, int runs);
bool bench_write_json(const char *path, const bench_cuda *cu, const bench_results *r,
                      const bench_target *targets, size_t count);
bool bench_write_svg(const char *path, const bench_results *r);

#endif

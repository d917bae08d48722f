/*
 * bench_allocators.c: the allocators `mrctx bench` compares, behind one
 * interface: mrctx resources (through a context, the way a library calls
 * them, or directly), the raw driver pools, cuMemHostAlloc, cub, rmm and
 * PyTorch's caching allocator.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "commands.h"

/* ---- mrctx -------------------------------------------------------------- */

/* The bench's driver pool an mrctx chain ends in, or NULL: its reserved
 * memory is then the chain's (nothing else allocates from it while a
 * workload runs). A chain that ends elsewhere (an owned pool(...), a
 * synchronous resource; MRCTX_BENCH_MEMORY can make any) has no pool
 * whose watermark the bench reads, and its rows say n/a. */
/* The stats adaptor right below the first cache of `mr`'s chain (see
 * bench_allocator's `books`), or NULL. */
static mr_resource *books_of(mr_resource *mr) {
  for (mr_resource *x = mr; x != NULL; x = mr_resource_upstream(x)) {
    mr_cache_stats cs = {.size = sizeof cs};
    if (mr_cache_resource_get_stats(x, &cs) != MR_OK) continue;
    mr_resource *below = mr_resource_upstream(x);
    mr_stats st;
    mr_stats_init(&st);
    return below != NULL && mr_stats_resource_get(below, &st) == MR_OK ? below : NULL;
  }
  return NULL;
}

static CUmemoryPool pool_of(const bench_cuda *cu, mr_resource *mr) {
  if (mr == NULL) return NULL;
  mr_resource *root = mr;
  while (mr_resource_upstream(root) != NULL) root = mr_resource_upstream(root);
  mr_pool_info info = {.size = sizeof info};
  if (mr_pool_resource_get_info(root, &info) != MR_OK) return NULL;
  if (info.kind == MR_POOL_DEVICE && info.device == 0 && info.is_current) return cu->device_pool;
  if (info.kind == MR_POOL_DEVICE && info.device == 0 && info.is_default)
    return cu->device_default_pool;
  if (info.kind == MR_POOL_PINNED && info.is_default) return cu->pinned_pool;
  return NULL;
}

/* The expandable(...) resource `mr`'s chain ends in, or NULL. */
static mr_resource *pages_of(mr_resource *mr) {
  if (mr == NULL) return NULL;
  mr_resource *root = mr;
  while (mr_resource_upstream(root) != NULL) root = mr_resource_upstream(root);
  mr_expandable_info info = {.size = sizeof info};
  return mr_expandable_resource_get_info(root, &info) == MR_OK ? root : NULL;
}

/* Through a context: the allocation site asks ctx_get_mr for its tag, as a
 * library does; the free goes to the resource the allocation came from,
 * which the caller kept (as a buffer object keeps its resource). */
typedef struct tag_state {
  mr_context *ctx;
  int tag;
} tag_state;

/* A free or trim that fails leaves the measurement meaningless (memory the
 * run thinks it returned is still held): stop with the reason. */
static void check_or_exit(mr_status st, const char *what) {
  if (st == MR_OK) return;
  fprintf(stderr, "mrctx bench: %s failed: %s\n", what, mr_last_error());
  exit(MRCTX_EXIT_FAILURE);
}

static int tag_alloc(void *state, size_t bytes, CUstream stream, void **ptr) {
  tag_state *t = state;
  return mr_allocate(ctx_get_mr(t->ctx, t->tag), bytes, 0, (mr_stream)stream, ptr) != MR_OK;
}

static void tag_free(void *state, void *ptr, size_t bytes, CUstream stream) {
  tag_state *t = state;
  /* The resource this thread's allocation came from: the current device's
   * entry, fetched without the device lookup, as a kept pointer would be. */
  check_or_exit(
      mr_deallocate(mr_context_get_mr_on(t->ctx, t->tag, 0), ptr, bytes, 0, (mr_stream)stream),
      "mr_deallocate");
}

static void tag_trim(void *state) {
  tag_state *t = state;
  check_or_exit(mr_resource_trim(mr_context_get_mr_on(t->ctx, t->tag, 0)), "mr_resource_trim");
}

bench_allocator bench_tag_allocator(const char *name, const char *label, const bench_cuda *cu,
                                    mr_context *ctx, int tag) {
  tag_state *t = malloc(sizeof *t);
  if (t != NULL) *t = (tag_state){ctx, tag};
  mr_resource *mr = mr_context_get_mr_on(ctx, tag, 0);
  return (bench_allocator){.name = name,
                           .label = label,
                           .state = t,
                           .alloc = tag_alloc,
                           .free = tag_free,
                           .trim = tag_trim,
                           .mr = mr,
                           .pool = pool_of(cu, mr),
                           .pages = pages_of(mr),
                           .books = books_of(mr)};
}

/* A resource called directly: no context, no per-tag statistics. */
static int resource_alloc(void *state, size_t bytes, CUstream stream, void **ptr) {
  return mr_allocate(state, bytes, 0, (mr_stream)stream, ptr) != MR_OK;
}

static void resource_free(void *state, void *ptr, size_t bytes, CUstream stream) {
  check_or_exit(mr_deallocate(state, ptr, bytes, 0, (mr_stream)stream), "mr_deallocate");
}

static void resource_trim(void *state) {
  check_or_exit(mr_resource_trim(state), "mr_resource_trim");
}

bench_allocator bench_resource_allocator(const char *name, const char *label, const bench_cuda *cu,
                                         mr_resource *mr) {
  return (bench_allocator){.name = name,
                           .label = label,
                           .state = mr,
                           .alloc = resource_alloc,
                           .free = resource_free,
                           .trim = resource_trim,
                           .mr = mr,
                           .pool = pool_of(cu, mr),
                           .pages = pages_of(mr),
                           .books = books_of(mr)};
}

/* ---- the raw driver ------------------------------------------------------ */

typedef struct pool_state {
  const bench_cuda *cu;
  CUmemoryPool pool;
} pool_state;

static int pool_alloc(void *state, size_t bytes, CUstream stream, void **ptr) {
  pool_state *p = state;
  CUdeviceptr d = 0;
  CUresult r = p->cu->cuMemAllocFromPoolAsync(&d, bytes, p->pool, stream);
  *ptr = (void *)(uintptr_t)d;
  return r != CUDA_SUCCESS;
}

static void pool_free(void *state, void *ptr, size_t bytes, CUstream stream) {
  pool_state *p = state;
  p->cu->cuMemFreeAsync((CUdeviceptr)(uintptr_t)ptr, stream);
}

bench_allocator bench_pool_allocator(const char *name, const char *label, const bench_cuda *cu,
                                     CUmemoryPool pool) {
  pool_state *p = malloc(sizeof *p);
  if (p != NULL) *p = (pool_state){cu, pool};
  return (bench_allocator){.name = name,
                           .label = label,
                           .state = p,
                           .alloc = pool_alloc,
                           .free = pool_free,
                           .pool = pool};
}

static int host_alloc(void *state, size_t bytes, CUstream stream, void **ptr) {
  const bench_cuda *cu = state;
  return cu->cuMemHostAlloc(ptr, bytes, 0) != CUDA_SUCCESS;
}

static void host_free(void *state, void *ptr, size_t bytes, CUstream stream) {
  const bench_cuda *cu = state;
  cu->cuMemFreeHost(ptr);
}

bench_allocator bench_host_alloc_allocator(const bench_cuda *cu) {
  return (bench_allocator){.name = "cuMemHostAlloc + cuMemFreeHost",
                           .label = "cuMemHostAlloc",
                           .state = (void *)cu,
                           .alloc = host_alloc,
                           .free = host_free};
}

/* ---- the driver's share of a cached pair ---------------------------------- */

/* No memory at all: only the driver calls a cache(device) hit makes (the
 * stream's ID and the capture check on the allocation, the stream's ID on
 * the free). Run beside the cache, at every thread count, it says how much
 * of a cached pair, and of its scaling, is the driver's and how much is
 * mrctx's own. The "blocks" are tokens, never dereferenced. */
static int stream_query_alloc(void *state, size_t bytes, CUstream stream, void **ptr) {
  const bench_cuda *cu = state;
  unsigned long long id = 0;
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (cu->cuStreamIsCapturing(stream, &capture) != CUDA_SUCCESS ||
      cu->cuStreamGetId(stream, &id) != CUDA_SUCCESS)
    return 1;
  *ptr = (void *)(uintptr_t)(((uintptr_t)id << 1) | 1u);
  return 0;
}

static void stream_query_free(void *state, void *ptr, size_t bytes, CUstream stream) {
  const bench_cuda *cu = state;
  unsigned long long id = 0;
  cu->cuStreamGetId(stream, &id);
}

bench_allocator bench_stream_query_allocator(const bench_cuda *cu) {
  return (bench_allocator){.name = "driver calls of a cached pair (no memory)",
                           .label = "driver_calls",
                           .state = (void *)cu,
                           .alloc = stream_query_alloc,
                           .free = stream_query_free,
                           .reference = true};
}

/* ---- cub ------------------------------------------------------------------ */

#if MRCTX_BENCH_CUB
#include "bench_cub.h"

/* cub tells what it holds now (cached + live), not its most: the peak is
 * the largest of the samples the workloads take (bench_usage). */
typedef struct cub_state {
  void *cub;
  double base, peak;
} cub_state;

static int cub_alloc(void *state, size_t bytes, CUstream stream, void **ptr) {
  return bench_cub_allocate(((cub_state *)state)->cub, ptr, bytes, stream);
}

static void cub_free(void *state, void *ptr, size_t bytes, CUstream stream) {
  bench_cub_deallocate(((cub_state *)state)->cub, ptr);
}

static void cub_trim(void *state) { bench_cub_trim(((cub_state *)state)->cub); }

static void cub_reset_peak(void *state) {
  cub_state *c = state;
  c->base = c->peak = (double)bench_cub_reserved(c->cub);
}

static void cub_sample(void *state) {
  cub_state *c = state;
  c->peak = fmax(c->peak, (double)bench_cub_reserved(c->cub));
}

static double cub_peak(void *state) {
  cub_state *c = state;
  return c->peak - c->base;
}

bool bench_cub_open(bench_allocator *out, bool unbounded) {
  cub_state *c = malloc(sizeof *c);
  if (c == NULL) return false;
  *c = (cub_state){.cub = bench_cub_create(unbounded)};
  if (c->cub == NULL) {
    free(c);
    return false;
  }
  *out = (bench_allocator){.name = unbounded ? "cub CachingDeviceAllocator, no cap"
                                             : "cub CachingDeviceAllocator() (6 MiB cap)",
                           .label = unbounded ? "cub" : "cub_default",
                           .state = c,
                           .alloc = cub_alloc,
                           .free = cub_free,
                           .trim = cub_trim,
                           .reset_peak = cub_reset_peak,
                           .sample_reserved = cub_sample,
                           .peak_reserved = cub_peak};
  return true;
}
#endif

/* ---- rmm ------------------------------------------------------------------ */

#if MRCTX_BENCH_RMM
#include "bench_rmm.h"

/* The state is the peer itself (bench_rmm.cpp). */
static int rmm_alloc(void *state, size_t bytes, CUstream stream, void **ptr) {
  return bench_rmm_allocate(state, ptr, bytes, stream);
}

static void rmm_free(void *state, void *ptr, size_t bytes, CUstream stream) {
  bench_rmm_deallocate(state, ptr, bytes, stream);
}

/* A trim that fails leaves no resource to time: the measurement would be
 * meaningless, as for PyTorch's. */
static void rmm_trim(void *state) {
  if (bench_rmm_trim(state) != 0) {
    fprintf(stderr, "mrctx bench: remaking an rmm resource failed\n");
    exit(MRCTX_EXIT_FAILURE);
  }
}

/* The trim before each measurement makes the resource afresh, so the peak
 * its statistics adaptor kept since is the workload's, exact, and counts
 * all it held: the arena's global arena, taken when it is made, included.
 * No reset and no sampling, unlike cub's books. */
static double rmm_peak(void *state) { return (double)bench_rmm_peak_reserved(state); }

static void rmm_reset_peak(void *state) { bench_rmm_reset_peak(state); }

bool bench_rmm_open(bench_allocator *out, bench_rmm_kind kind, char *why, size_t cap) {
  void *rmm = bench_rmm_create(kind, why, cap);
  if (rmm == NULL) return false;
  bool pool = kind == BENCH_RMM_POOL;
  *out = (bench_allocator){.name = pool ? "rmm pool_memory_resource(cuda, 0)"
                                        : "rmm arena_memory_resource(cuda)",
                           .label = pool ? "rmm_pool" : "rmm_arena",
                           .state = rmm,
                           .alloc = rmm_alloc,
                           .free = rmm_free,
                           .trim = rmm_trim,
                           .reset_peak = rmm_reset_peak,
                           .peak_reserved = rmm_peak};
  return true;
}
#endif

/* ---- PyTorch ---------------------------------------------------------------- */

#if MRCTX_BENCH_TORCH
#include "bench_torch.h"

/* PyTorch's allocator is one per process: no state of ours. */
static int torch_alloc(void *state, size_t bytes, CUstream stream, void **ptr) {
  return bench_torch_allocate(ptr, bytes, stream);
}

/* As for mrctx's frees: a refused free or trim leaves the measurement
 * meaningless. */
static void torch_free(void *state, void *ptr, size_t bytes, CUstream stream) {
  if (bench_torch_deallocate(ptr) != 0) {
    fprintf(stderr, "mrctx bench: PyTorch's raw_delete refused %p\n", ptr);
    exit(MRCTX_EXIT_FAILURE);
  }
}

static void torch_trim(void *state) {
  if (bench_torch_trim() != 0) {
    fprintf(stderr, "mrctx bench: PyTorch's emptyCache failed\n");
    exit(MRCTX_EXIT_FAILURE);
  }
}

static void torch_reset_peak(void *state) { bench_torch_reset_peak(); }
static double torch_peak(void *state) { return bench_torch_peak_reserved(); }

bool bench_torch_open(bench_allocator *out, char *why, size_t cap) {
  if (!bench_torch_init(why, cap)) return false;
  *out = (bench_allocator){.name =
                               "PyTorch CUDACachingAllocator (torch " MRCTX_BENCH_TORCH_VERSION ")",
                           .label = "torch",
                           .alloc = torch_alloc,
                           .free = torch_free,
                           .trim = torch_trim,
                           .reset_peak = torch_reset_peak,
                           .peak_reserved = torch_peak};
  return true;
}
#endif

void bench_allocator_close(bench_allocator *a) {
#if MRCTX_BENCH_RMM
  if (a->alloc == rmm_alloc) {
    bench_rmm_destroy(a->state);
    return;
  }
#endif
#if MRCTX_BENCH_CUB
  if (a->alloc == cub_alloc) {
    bench_cub_destroy(((cub_state *)a->state)->cub);
    free(a->state);
    return;
  }
#endif
#if MRCTX_BENCH_TORCH
  if (a->alloc == torch_alloc) {
    torch_trim(NULL); /* the allocator stays: it is the process's */
    return;
  }
#endif
  if (a->alloc == tag_alloc || a->alloc == pool_alloc) free(a->state);
}

/*
 * bench_allocators.c: the allocators `mrctx bench` compares, behind one
 * interface: mrctx resources (through a context, the way a library calls
 * them, or directly), the raw driver pools, cuMemHostAlloc, and cub.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "commands.h"

/* ---- mrctx -------------------------------------------------------------- */

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

bench_allocator bench_tag_allocator(const char *name, const char *label, mr_context *ctx,
                                    int tag) {
  tag_state *t = malloc(sizeof *t);
  if (t != NULL) *t = (tag_state){ctx, tag};
  return (bench_allocator){name, label, t, tag_alloc, tag_free, tag_trim,
                           mr_context_get_mr_on(ctx, tag, 0)};
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

bench_allocator bench_resource_allocator(const char *name, const char *label, mr_resource *mr) {
  return (bench_allocator){name, label, mr, resource_alloc, resource_free, resource_trim, mr};
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
  return (bench_allocator){name, label, p, pool_alloc, pool_free, NULL, NULL};
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
  return (bench_allocator){"cuMemHostAlloc + cuMemFreeHost", "cuMemHostAlloc", (void *)cu,
                           host_alloc, host_free, NULL, NULL};
}

/* ---- cub ------------------------------------------------------------------ */

#if MRCTX_BENCH_CUB
#include "bench_cub.h"

static int cub_alloc(void *state, size_t bytes, CUstream stream, void **ptr) {
  return bench_cub_allocate(state, ptr, bytes, stream);
}

static void cub_free(void *state, void *ptr, size_t bytes, CUstream stream) {
  bench_cub_deallocate(state, ptr);
}

static void cub_trim(void *state) { bench_cub_trim(state); }

bool bench_cub_open(bench_allocator *out, bool unbounded) {
  void *cub = bench_cub_create(unbounded);
  if (cub == NULL) return false;
  *out = unbounded ? (bench_allocator){"cub CachingDeviceAllocator, no cap", "cub", cub,
                                       cub_alloc, cub_free, cub_trim, NULL}
                   : (bench_allocator){"cub CachingDeviceAllocator() (6 MiB cap)",
                                       "cub_default", cub, cub_alloc, cub_free, cub_trim, NULL};
  return true;
}

static void bench_cub_close(bench_allocator *a) { bench_cub_destroy(a->state); }
#endif

void bench_allocator_close(bench_allocator *a) {
#if MRCTX_BENCH_CUB
  if (a->alloc == cub_alloc) {
    bench_cub_close(a);
    return;
  }
#endif
  if (a->alloc == tag_alloc || a->alloc == pool_alloc) free(a->state);
}

/* bench_rmm.h: the C face of bench_rmm.cpp. */
#ifndef MRCTX_TOOLS_BENCH_RMM_H
#define MRCTX_TOOLS_BENCH_RMM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The rmm resources the bench times, each over rmm::mr::cuda_memory_resource
 * (cudaMalloc) on device 0, as rmm's users build them. */
typedef enum bench_rmm_kind {
  /* pool_memory_resource(cuda, initial 0): grows from cudaMalloc as it
   * needs, and keeps it; coalescing best fit, one free list per stream. */
  BENCH_RMM_POOL,
  /* arena_memory_resource(cuda) with its default global arena, half the
   * device's free memory taken at construction; per-thread arenas. */
  BENCH_RMM_ARENA,
} bench_rmm_kind;

/* A peer of `kind`, or NULL with the reason in `why` (rmm's exception's
 * message, or no device). */
void *bench_rmm_create(bench_rmm_kind kind, char *why, size_t cap);
void bench_rmm_destroy(void *rmm);
/* 0 on success. `stream` is a CUstream / cudaStream_t (NULL: the legacy
 * stream). Any thread. */
int bench_rmm_allocate(void *rmm, void **ptr, size_t bytes, void *stream);
/* rmm's deallocate needs the size and the stream the block is freed on. */
void bench_rmm_deallocate(void *rmm, void *ptr, size_t bytes, void *stream);
/* Give everything back to cudaMalloc: rmm's pool and arena keep what they
 * took until they are destroyed, so the resource is made again (the caller
 * holds no block of it). 0 on success. */
int bench_rmm_trim(void *rmm);
/* The most bytes it held from cudaMalloc at once since the last reset,
 * across the trims since (a workload trims before its row reads the
 * peak): a statistics_resource_adaptor between it and
 * cuda_memory_resource counts them. rmm's arena reserves part of the
 * device's free memory when it is made: that reservation counts. */
size_t bench_rmm_peak_reserved(void *rmm);
/* Start a measurement's peak, after the trim that remade the resource:
 * from what it holds now. */
void bench_rmm_reset_peak(void *rmm);

#ifdef __cplusplus
}
#endif

#endif

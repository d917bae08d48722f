/* bench_cub.h: the C face of bench_cub.cu. */
#ifndef MRCTX_TOOLS_BENCH_CUB_H
#define MRCTX_TOOLS_BENCH_CUB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A cub::CachingDeviceAllocator on device 0 with the default bins (8^3..8^7
 * bytes), or NULL: `unbounded` nonzero caches without a cap
 * (CachingDeviceAllocator(8, 3, 7, INVALID_SIZE)); zero is the default
 * constructor's (6 MiB cached at most). */
void *bench_cub_create(int unbounded);
void bench_cub_destroy(void *cub);
/* 0 on success. `stream` is a CUstream / cudaStream_t. */
int bench_cub_allocate(void *cub, void **ptr, size_t bytes, void *stream);
void bench_cub_deallocate(void *cub, void *ptr);
void bench_cub_trim(void *cub);
/* The bytes it holds on device 0 now, cached and handed out (under its
 * lock: any thread may ask). */
size_t bench_cub_reserved(void *cub);

#ifdef __cplusplus
}
#endif

#endif

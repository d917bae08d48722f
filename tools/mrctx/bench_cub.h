/* bench_cub.h: the C face of bench_cub.cu. */
#ifndef MRCTX_TOOLS_BENCH_CUB_H
#define MRCTX_TOOLS_BENCH_CUB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A default-constructed cub::CachingDeviceAllocator on device 0 (bins of
 * 8^3..8^7 bytes, 6 MiB cached at most), or NULL. */
void *bench_cub_create(void);
void bench_cub_destroy(void *cub);
/* 0 on success. `stream` is a CUstream / cudaStream_t. */
int bench_cub_allocate(void *cub, void **ptr, size_t bytes, void *stream);
void bench_cub_deallocate(void *cub, void *ptr);
void bench_cub_trim(void *cub);

#ifdef __cplusplus
}
#endif

#endif

/* bench_torch.h: the C face of bench_torch.cpp. */
#ifndef MRCTX_TOOLS_BENCH_TORCH_H
#define MRCTX_TOOLS_BENCH_TORCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Make PyTorch's CUDA caching allocator ready on every device (it is one
 * per process; calling again is harmless). 0, with the reason in `why`,
 * where it cannot be used: no device, or another allocator backend chosen
 * by PYTORCH_CUDA_ALLOC_CONF. */
int bench_torch_init(char *why, size_t cap);
/* 0 on success. `stream` is a CUstream / cudaStream_t; the current device
 * (device 0 in the bench). Any thread. */
int bench_torch_allocate(void **ptr, size_t bytes, void *stream);
/* 0 on success: 1 means PyTorch refused (the pointer was not its). */
int bench_torch_deallocate(void *ptr);
/* Give every cached, unused block back to the driver (emptyCache); 0 on
 * success. */
int bench_torch_trim(void);
/* Start a peak; then the most bytes it held on device 0 since (its own
 * reserved-bytes statistic, cached and in use, less what it held at the
 * start), or NaN if the statistics cannot be read. */
void bench_torch_reset_peak(void);
double bench_torch_peak_reserved(void);

#ifdef __cplusplus
}
#endif

#endif

/*
 * _torch_alloc.h: what _torch_alloc.c and _torch_oom.cpp share (internal to
 * the PyTorch shim; see _torch_alloc.c).
 */
#ifndef MRCTX_TORCH_ALLOC_H
#define MRCTX_TORCH_ALLOC_H

#include <pthread.h>
#include <sys/types.h>

#include <mrctx/mrctx.h>

/* Route 0 is the default allocator; 1..8 the MemPool pairs. */
#define MRCTX_TORCH_ROUTES 9

MR_EXTERN_C_BEGIN

/* Exported for Python (ctypes) and PyTorch. */
int mrctx_torch_route_count(void);
/* Bind route `index`, named `name` ("library/tag") in messages, to one
 * resource per device (each retained; the caller keeps its own
 * references). Once only: 0, or -1 with mr_last_error(). */
int mrctx_torch_bind(int index, const char *name, mr_resource *const *resources,
                     int device_count);
int mrctx_torch_bound(int index);
void mrctx_torch_free(void *ptr, ssize_t size, int device, void *stream);
unsigned long long mrctx_torch_failed_frees(void);
void mrctx_torch_last_free_error(char *buf, size_t cap);

/* The bound route's "library/tag". */
const char *mrctx_torch_route_name(int index);

/* Allocate `size` bytes on `device` through route `index`; NULL on failure
 * (and for size 0), with *status and mr_last_error() saying why. No lock. */
void *mrctx_torch_route_alloc(int index, ssize_t size, int device, void *stream,
                              mr_status *status);

MR_EXTERN_C_END

#endif

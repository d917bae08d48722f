/*
 * _torch_alloc.c: PyTorch's CUDAPluggableAllocator over mrctx tags.
 *
 * PyTorch loads this module with ctypes and calls a pair of functions
 *   void *alloc(ssize_t size, int device, cudaStream_t stream)
 *   void free(void *ptr, ssize_t size, int device, cudaStream_t stream)
 * for every allocation (mrctx.torch.use) or, under torch.cuda.MemPool, for
 * every segment of a pool (mrctx.torch.pool). Each pair serves one *route*:
 * the resources of one (context, tag), one per device, bound once by
 * mrctx_torch_bind from Python and then never changed, so the pairs read
 * one atomic pointer and take no lock. Route 0 is the default allocator
 * (mrctx_torch_alloc in _torch_oom.cpp / mrctx_torch_free); routes 1..8 are
 * the numbered pairs mrctx_torch_pool_alloc_N / mrctx_torch_pool_free_N for
 * MemPools.
 *
 * A route holds a reference to each of its resources and is never freed:
 * PyTorch may free into it until the process ends, after the Python context
 * is gone. Memory is freed on the stream it was allocated on (PyTorch hands
 * back the stream it recorded), stream-ordered, so a block can be reused at
 * once by later work on that stream.
 *
 * Failures: a pool route's alloc returns NULL, which PyTorch's caching
 * allocator turns into torch.OutOfMemoryError; the default route throws
 * instead (_torch_oom.cpp), since PyTorch does not check that pointer. A
 * free that fails cannot be reported to PyTorch: it is counted
 * (mrctx_torch_failed_frees) and its message kept for Python to show.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <mrctx/mrctx.h>

#include "_torch_alloc.h"

#define EXPORT __attribute__((visibility("default")))

typedef struct route {
  char name[128]; /* "library/tag", for messages */
  int device_count;
  mr_resource *mr[]; /* one reference each, per device */
} route;

static _Atomic(route *) routes[MRCTX_TORCH_ROUTES];
static atomic_ullong failed_frees;
static pthread_mutex_t free_error_lock = PTHREAD_MUTEX_INITIALIZER;
static char free_error[512];

EXPORT int mrctx_torch_route_count(void) { return MRCTX_TORCH_ROUTES; }

EXPORT int mrctx_torch_bind(int index, const char *name, mr_resource *const *resources,
                            int device_count) {
  if (index < 0 || index >= MRCTX_TORCH_ROUTES || name == NULL || resources == NULL ||
      device_count <= 0) {
    mr_error(MR_ERR_INVALID_ARGUMENT, "mrctx_torch_bind: route %d, %d devices: invalid", index,
             device_count);
    return -1;
  }
  route *r = malloc(sizeof *r + (size_t)device_count * sizeof r->mr[0]);
  if (r == NULL) {
    mr_error(MR_ERR_OUT_OF_MEMORY, "mrctx_torch_bind: out of host memory");
    return -1;
  }
  snprintf(r->name, sizeof r->name, "%s", name);
  r->device_count = device_count;
  for (int d = 0; d < device_count; d++) r->mr[d] = mr_resource_retain(resources[d]);
  route *expected = NULL;
  if (!atomic_compare_exchange_strong(&routes[index], &expected, r)) {
    for (int d = 0; d < device_count; d++) mr_resource_release(r->mr[d]);
    free(r);
    mr_error(MR_ERR_STATE, "mrctx_torch_bind: route %d is already bound (memory may still be "
             "live in it, so it is never rebound)", index);
    return -1;
  }
  return 0;
}

EXPORT int mrctx_torch_bound(int index) {
  return index >= 0 && index < MRCTX_TORCH_ROUTES &&
         atomic_load_explicit(&routes[index], memory_order_acquire) != NULL;
}

const char *mrctx_torch_route_name(int index) {
  route *r = atomic_load_explicit(&routes[index], memory_order_acquire);
  return r != NULL ? r->name : "an unbound route";
}

void *mrctx_torch_route_alloc(int index, ssize_t size, int device, void *stream,
                              mr_status *status) {
  route *r = atomic_load_explicit(&routes[index], memory_order_acquire);
  void *ptr = NULL;
  if (r == NULL) {
    *status = mr_error(MR_ERR_STATE, "mrctx torch allocator: route %d is not bound", index);
  } else if (size < 0 || device < 0 || device >= r->device_count) {
    *status = mr_error(MR_ERR_INVALID_ARGUMENT,
                       "mrctx torch allocator (%s): %zd bytes on device %d: it has %d "
                       "device(s)", r->name, size, device, r->device_count);
  } else {
    *status = mr_allocate(r->mr[device], (size_t)size, 0, (mr_stream)stream, &ptr);
  }
  return ptr;
}

static void route_free(int index, void *ptr, ssize_t size, int device, void *stream) {
  route *r = atomic_load_explicit(&routes[index], memory_order_acquire);
  if (ptr == NULL) return;
  mr_status st;
  if (r == NULL || device < 0 || device >= r->device_count || size < 0)
    st = mr_error(MR_ERR_INVALID_ARGUMENT, "mrctx torch allocator (%s): freeing %p (%zd bytes) "
                  "on device %d: not a block of route %d",
                  r != NULL ? r->name : "unbound", ptr, size, device, index);
  else
    st = mr_deallocate(r->mr[device], ptr, (size_t)size, 0, (mr_stream)stream);
  if (st == MR_OK) return;
  atomic_fetch_add_explicit(&failed_frees, 1, memory_order_relaxed);
  pthread_mutex_lock(&free_error_lock);
  snprintf(free_error, sizeof free_error, "%s", mr_last_error());
  pthread_mutex_unlock(&free_error_lock);
}

EXPORT void mrctx_torch_free(void *ptr, ssize_t size, int device, void *stream) {
  route_free(0, ptr, size, device, stream);
}

EXPORT unsigned long long mrctx_torch_failed_frees(void) {
  return atomic_load_explicit(&failed_frees, memory_order_relaxed);
}

/* The last failed free's message, copied into buf (cap bytes). */
EXPORT void mrctx_torch_last_free_error(char *buf, size_t cap) {
  if (cap == 0) return;
  pthread_mutex_lock(&free_error_lock);
  snprintf(buf, cap, "%s", free_error);
  pthread_mutex_unlock(&free_error_lock);
}

/* The MemPool routes: a pair per route, since PyTorch gives the functions
 * no user argument. They return NULL on failure: the caching allocator over
 * a MemPool reports that as torch.OutOfMemoryError. */
#define MRCTX_TORCH_POOL_PAIR(n)                                                     \
  EXPORT void *mrctx_torch_pool_alloc_##n(ssize_t size, int device, void *stream);   \
  void *mrctx_torch_pool_alloc_##n(ssize_t size, int device, void *stream) {         \
    mr_status st;                                                                    \
    return mrctx_torch_route_alloc(n, size, device, stream, &st);                    \
  }                                                                                  \
  EXPORT void mrctx_torch_pool_free_##n(void *ptr, ssize_t size, int device,         \
                                        void *stream);                               \
  void mrctx_torch_pool_free_##n(void *ptr, ssize_t size, int device, void *stream) { \
    route_free(n, ptr, size, device, stream);                                        \
  }
MRCTX_TORCH_POOL_PAIR(1)
MRCTX_TORCH_POOL_PAIR(2)
MRCTX_TORCH_POOL_PAIR(3)
MRCTX_TORCH_POOL_PAIR(4)
MRCTX_TORCH_POOL_PAIR(5)
MRCTX_TORCH_POOL_PAIR(6)
MRCTX_TORCH_POOL_PAIR(7)
MRCTX_TORCH_POOL_PAIR(8)

/*
 * fakecuda_memory.c: the fake CUDA driver's memory: pools (default,
 * current and created; stream-ordered allocation from them) and the
 * synchronous allocations, memset and copies.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fakecuda_internal.h"

/* ---- memory: pools ---------------------------------------------------------- */

static CUresult do_mem_get_info(size_t *free_bytes, size_t *total) {
  if (free_bytes == NULL || total == NULL) return CUDA_ERROR_INVALID_VALUE;
  CUcontext ctx = current_ctx();
  if (ctx == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  const fake_device *dev = &devices[ctx->device];
  *total = dev->total_memory;
  *free_bytes = dev->used < dev->total_memory ? dev->total_memory - dev->used : 0;
  return CUDA_SUCCESS;
}

CUresult fake_cuMemGetInfo(size_t *free_bytes, size_t *total) {
  FAKE_CALL(cuMemGetInfo, NEEDS_INIT, do_mem_get_info(free_bytes, total));
}

static CUresult do_get_default_pool(CUmemoryPool *pool, CUmemLocation *location,
                                    CUmemAllocationType type) {
  if (pool == NULL) return CUDA_ERROR_INVALID_VALUE;
  fake_location *loc;
  CUresult r = find_location(location, type, &loc);
  if (r != CUDA_SUCCESS) return r;
  *pool = &loc->default_pool;
  return CUDA_SUCCESS;
}

CUresult fake_cuMemGetDefaultMemPool(CUmemoryPool *pool, CUmemLocation *location,
                                     CUmemAllocationType type) {
  FAKE_CALL(cuMemGetDefaultMemPool, NEEDS_INIT, do_get_default_pool(pool, location, type));
}

static CUresult do_get_mem_pool(CUmemoryPool *pool, CUmemLocation *location,
                                CUmemAllocationType type) {
  if (pool == NULL) return CUDA_ERROR_INVALID_VALUE;
  fake_location *loc;
  CUresult r = find_location(location, type, &loc);
  if (r != CUDA_SUCCESS) return r;
  *pool = loc->current;
  return CUDA_SUCCESS;
}

CUresult fake_cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *location,
                              CUmemAllocationType type) {
  FAKE_CALL(cuMemGetMemPool, NEEDS_INIT, do_get_mem_pool(pool, location, type));
}

static bool same_location(const CUmemLocation *a, const CUmemLocation *b) {
  if (a->type != b->type) return false;
  return a->type == CU_MEM_LOCATION_TYPE_HOST || a->type == CU_MEM_LOCATION_TYPE_NONE ||
         a->id == b->id;
}

static CUresult do_set_mem_pool(CUmemLocation *location, CUmemAllocationType type,
                                CUmemoryPool pool) {
  fake_location *loc;
  CUresult r = find_location(location, type, &loc);
  if (r != CUDA_SUCCESS) return r;
  struct CUmemPoolHandle_st *p = find_pool(pool);
  if (p == NULL || p->imported || p->type != type || !same_location(&p->location, location))
    return CUDA_ERROR_INVALID_VALUE;
  loc->current = p;
  return CUDA_SUCCESS;
}

CUresult fake_cuMemSetMemPool(CUmemLocation *location, CUmemAllocationType type,
                              CUmemoryPool pool) {
  FAKE_CALL(cuMemSetMemPool, NEEDS_INIT, do_set_mem_pool(location, type, pool));
}

static CUresult do_pool_create(CUmemoryPool *pool, const CUmemPoolProps *props) {
  if (pool == NULL || props == NULL) return CUDA_ERROR_INVALID_VALUE;
  fake_location *loc;
  CUresult r = find_location(&props->location, props->allocType, &loc);
  if (r != CUDA_SUCCESS) return r;
  /* Host pools are not IPC capable (cuMemPoolCreate); nor, here, managed
   * ones. */
  if ((props->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
       props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED) &&
      props->handleTypes != CU_MEM_HANDLE_TYPE_NONE)
    return CUDA_ERROR_INVALID_VALUE;
  struct CUmemPoolHandle_st *p = malloc(sizeof *p);
  if (p == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
  pool_init(p, props->location, props->allocType, false);
  p->max_size = props->maxSize;
  if (props->handleTypes != CU_MEM_HANDLE_TYPE_NONE) {
    r = ipc_pool_init(p, props->handleTypes);
    if (r != CUDA_SUCCESS) {
      free(p);
      return r;
    }
  }
  p->next = pools;
  pools = p;
  *pool = p;
  return CUDA_SUCCESS;
}

CUresult fake_cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props) {
  FAKE_CALL(cuMemPoolCreate, NEEDS_INIT, do_pool_create(pool, props));
}

static CUresult do_pool_destroy(CUmemoryPool pool) {
  struct CUmemPoolHandle_st *p = find_pool(pool);
  if (p == NULL || p->is_default) return CUDA_ERROR_INVALID_VALUE;
  /* Destroying a current pool makes the default current again. */
  for (int i = 0; i < LOC_COUNT; i++)
    if (locations[i].current == p) locations[i].current = &locations[i].default_pool;
  if (p->live_allocations > 0)
    p->destroyed = true; /* goes when its last allocation is freed */
  else
    unlink_pool(p);
  return CUDA_SUCCESS;
}

CUresult fake_cuMemPoolDestroy(CUmemoryPool pool) {
  FAKE_CALL(cuMemPoolDestroy, NEEDS_INIT, do_pool_destroy(pool));
}

static CUresult do_pool_set_attribute(CUmemoryPool pool, CUmemPool_attribute attribute,
                                      void *value) {
  struct CUmemPoolHandle_st *p = find_pool(pool);
  if (p == NULL || value == NULL) return CUDA_ERROR_INVALID_VALUE;
  cuuint64_t v64;
  switch (attribute) {
  case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    p->reuse_follow_event = *(int *)value;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    p->reuse_opportunistic = *(int *)value;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
    p->reuse_internal = *(int *)value;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
    memcpy(&p->release_threshold, value, sizeof p->release_threshold);
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: /* may only be reset, with 0 */
    memcpy(&v64, value, sizeof v64);
    if (v64 != 0) return CUDA_ERROR_INVALID_VALUE;
    p->reserved_high = p->reserved;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
    memcpy(&v64, value, sizeof v64);
    if (v64 != 0) return CUDA_ERROR_INVALID_VALUE;
    p->used_high = p->used;
    return CUDA_SUCCESS;
  default: /* the current values are read-only */
    return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult fake_cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attribute, void *value) {
  FAKE_CALL(cuMemPoolSetAttribute, NEEDS_INIT, do_pool_set_attribute(pool, attribute, value));
}

static CUresult do_pool_get_attribute(CUmemoryPool pool, CUmemPool_attribute attribute,
                                      void *value) {
  const struct CUmemPoolHandle_st *p = find_pool(pool);
  if (p == NULL || value == NULL) return CUDA_ERROR_INVALID_VALUE;
  const cuuint64_t *v64 = NULL;
  switch (attribute) {
  case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    *(int *)value = p->reuse_follow_event;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    *(int *)value = p->reuse_opportunistic;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
    *(int *)value = p->reuse_internal;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
    v64 = &p->release_threshold;
    break;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
    v64 = &p->reserved;
    break;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
    v64 = &p->reserved_high;
    break;
  case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
    v64 = &p->used;
    break;
  case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
    v64 = &p->used_high;
    break;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
  memcpy(value, v64, sizeof *v64);
  return CUDA_SUCCESS;
}

CUresult fake_cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attribute, void *value) {
  FAKE_CALL(cuMemPoolGetAttribute, NEEDS_INIT, do_pool_get_attribute(pool, attribute, value));
}

/* All descriptors are checked before any is applied: a failure changes
 * nothing. The owner of a device pool always keeps read-write access; a
 * peer needs cuDeviceCanAccessPeer. */
static CUresult do_pool_set_access(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count) {
  struct CUmemPoolHandle_st *p = find_pool(pool);
  if (p == NULL || (map == NULL && count > 0)) return CUDA_ERROR_INVALID_VALUE;
  int owner = pool_device(p);
  for (size_t i = 0; i < count; i++) {
    const CUmemAccessDesc *d = &map[i];
    if (d->location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_device(d->location.id)) return CUDA_ERROR_INVALID_DEVICE;
    if (d->flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && d->flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
        d->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
      return CUDA_ERROR_INVALID_VALUE;
    if (owner >= 0 && d->location.id == owner) {
      if (d->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) return CUDA_ERROR_INVALID_VALUE;
    } else if (owner >= 0 && d->flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
               !devices[d->location.id].peer[owner]) {
      return CUDA_ERROR_INVALID_DEVICE;
    }
  }
  for (size_t i = 0; i < count; i++) p->access[map[i].location.id] = map[i].flags;
  return CUDA_SUCCESS;
}

CUresult fake_cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count) {
  FAKE_CALL(cuMemPoolSetAccess, NEEDS_INIT, do_pool_set_access(pool, map, count));
}

/* The owner of a device pool reads read-write, as cuMemPoolSetAccess keeps it. */
static CUresult do_pool_get_access(CUmemAccess_flags *flags, CUmemoryPool pool,
                                   const CUmemLocation *location) {
  struct CUmemPoolHandle_st *p = find_pool(pool);
  if (p == NULL || flags == NULL || location == NULL) return CUDA_ERROR_INVALID_VALUE;
  if (location->type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(location->id)) return CUDA_ERROR_INVALID_DEVICE;
  *flags = p->access[location->id];
  return CUDA_SUCCESS;
}

CUresult fake_cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool pool,
                                 CUmemLocation *location) {
  FAKE_CALL(cuMemPoolGetAccess, NEEDS_INIT, do_pool_get_access(flags, pool, location));
}

static CUresult do_pool_trim_to(CUmemoryPool pool, size_t keep) {
  struct CUmemPoolHandle_st *p = find_pool(pool);
  if (p == NULL) return CUDA_ERROR_INVALID_VALUE;
  release_pool_memory(p, keep);
  return CUDA_SUCCESS;
}

CUresult fake_cuMemPoolTrimTo(CUmemoryPool pool, size_t keep) {
  FAKE_CALL(cuMemPoolTrimTo, NEEDS_INIT, do_pool_trim_to(pool, keep));
}

/* Memory comes from the pool's idle reservation first; the rest is newly
 * reserved, within the pool's maxSize and its location's capacity. */
static CUresult do_alloc_from_pool(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
                                   CUstream stream) {
  if (dptr == NULL || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  struct CUmemPoolHandle_st *p = find_pool(pool);
  /* Imported pools do not allocate (cuMemPoolImportFromShareableHandle). */
  if (p == NULL || p->imported) return CUDA_ERROR_INVALID_VALUE;
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  cuuint64_t idle = p->reserved - p->used;
  cuuint64_t grow = bytes > idle ? bytes - idle : 0;
  if (grow > 0) {
    if (p->max_size != 0 && (grow > p->max_size || p->reserved > p->max_size - grow))
      return CUDA_ERROR_OUT_OF_MEMORY;
    r = charge(pool_device(p), (size_t)grow);
    if (r != CUDA_SUCCESS) return r;
  }
  void *ptr;
  if (p->ipc_fd >= 0) {
    r = ipc_pool_carve(p, bytes, &ptr);
    if (r == CUDA_SUCCESS) r = new_alloc_at(ptr, bytes, pool_device(p), p);
  } else {
    r = new_alloc(bytes, ALLOC_POOL, pool_device(p), p, &ptr);
  }
  if (r != CUDA_SUCCESS) {
    uncharge(pool_device(p), (size_t)grow);
    return r;
  }
  p->reserved += grow;
  if (p->reserved > p->reserved_high) p->reserved_high = p->reserved;
  p->used += bytes;
  if (p->used > p->used_high) p->used_high = p->used;
  p->live_allocations++;
  *dptr = (CUdeviceptr)(uintptr_t)ptr;
  return CUDA_SUCCESS;
}

CUresult fake_cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
                                      CUstream stream) {
  FAKE_CALL(cuMemAllocFromPoolAsync, NEEDS_INIT, do_alloc_from_pool(dptr, bytes, pool, stream));
}

static CUresult do_free_async(CUdeviceptr dptr, CUstream stream) {
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r == CUDA_SUCCESS) r = capture_conflict(false, s);
  if (r != CUDA_SUCCESS) return r;
  if (dptr == 0) return CUDA_SUCCESS;
  return free_alloc((void *)(uintptr_t)dptr, KIND_BIT(ALLOC_POOL) | FREE_UNOBSERVED);
}

CUresult fake_cuMemFreeAsync(CUdeviceptr dptr, CUstream stream) {
  FAKE_CALL(cuMemFreeAsync, NEEDS_INIT, do_free_async(dptr, stream));
}

/* ---- memory: synchronous ------------------------------------------------------ */

static CUresult alloc_charged(size_t bytes, enum alloc_kind kind, int charged_to, void **out) {
  CUresult r = charge(charged_to, bytes);
  if (r != CUDA_SUCCESS) return r;
  r = new_alloc(bytes, kind, charged_to, NULL, out);
  if (r != CUDA_SUCCESS) uncharge(charged_to, bytes);
  return r;
}

static CUresult do_mem_alloc(CUdeviceptr *dptr, size_t bytes) {
  if (dptr == NULL || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  CUcontext ctx = current_ctx();
  if (ctx == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  void *p;
  CUresult r = alloc_charged(bytes, ALLOC_DEVICE, ctx->device, &p);
  if (r == CUDA_SUCCESS) *dptr = (CUdeviceptr)(uintptr_t)p;
  return r;
}

CUresult fake_cuMemAlloc(CUdeviceptr *dptr, size_t bytes) {
  FAKE_CALL(cuMemAlloc, NEEDS_INIT, do_mem_alloc(dptr, bytes));
}

/* cuMemFree also takes pool and managed memory, as the driver does. */
static CUresult do_mem_free(CUdeviceptr dptr) {
  if (current_ctx() == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  if (dptr == 0) return CUDA_SUCCESS;
  return free_alloc((void *)(uintptr_t)dptr,
                    KIND_BIT(ALLOC_DEVICE) | KIND_BIT(ALLOC_MANAGED) | KIND_BIT(ALLOC_POOL));
}

CUresult fake_cuMemFree(CUdeviceptr dptr) { FAKE_CALL(cuMemFree, NEEDS_INIT, do_mem_free(dptr)); }

static CUresult do_host_alloc(void **pp, size_t bytes, unsigned int flags) {
  const unsigned known =
      CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED;
  if (pp == NULL || bytes == 0 || (flags & ~known) != 0) return CUDA_ERROR_INVALID_VALUE;
  if (current_ctx() == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  return alloc_charged(bytes, ALLOC_HOST, -1, pp);
}

CUresult fake_cuMemHostAlloc(void **pp, size_t bytes, unsigned int flags) {
  FAKE_CALL(cuMemHostAlloc, NEEDS_INIT, do_host_alloc(pp, bytes, flags));
}

static CUresult do_free_host(void *p) {
  if (current_ctx() == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  return free_alloc(p, KIND_BIT(ALLOC_HOST));
}

CUresult fake_cuMemFreeHost(void *p) { FAKE_CALL(cuMemFreeHost, NEEDS_INIT, do_free_host(p)); }

static CUresult do_alloc_managed(CUdeviceptr *dptr, size_t bytes, unsigned int flags) {
  if (dptr == NULL || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST) return CUDA_ERROR_INVALID_VALUE;
  CUcontext ctx = current_ctx();
  if (ctx == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  if (!devices[ctx->device].attributes[CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY])
    return CUDA_ERROR_NOT_SUPPORTED;
  void *p;
  CUresult r = alloc_charged(bytes, ALLOC_MANAGED, -1, &p);
  if (r == CUDA_SUCCESS) *dptr = (CUdeviceptr)(uintptr_t)p;
  return r;
}

CUresult fake_cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned int flags) {
  FAKE_CALL(cuMemAllocManaged, NEEDS_INIT, do_alloc_managed(dptr, bytes, flags));
}

static CUresult do_memset_d8(CUdeviceptr dst, unsigned char value, size_t n, CUstream stream) {
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  if (n == 0) return CUDA_SUCCESS;
  if (!inside_alloc((uintptr_t)dst, n) && !vmm_accessible((uintptr_t)dst, n))
    return CUDA_ERROR_INVALID_VALUE;
  memset((void *)(uintptr_t)dst, value, n);
  return CUDA_SUCCESS;
}

CUresult fake_cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t n, CUstream stream) {
  FAKE_CALL(cuMemsetD8Async, NEEDS_INIT, do_memset_d8(dst, value, n, stream));
}

/* Either side may be ordinary host memory (unified addressing). */
static CUresult do_memcpy(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream stream) {
  struct CUstream_st *s;
  CUresult r = resolve_stream(stream, &s);
  if (r != CUDA_SUCCESS) return r;
  if (n == 0) return CUDA_SUCCESS;
  if (dst == 0 || src == 0) return CUDA_ERROR_INVALID_VALUE;
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  return CUDA_SUCCESS;
}

CUresult fake_cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream stream) {
  FAKE_CALL(cuMemcpyAsync, NEEDS_INIT, do_memcpy(dst, src, n, stream));
}

/* Four attributes of any address inside a live allocation: the device it
 * lives on (memory charged to a device; host and managed memory are
 * CUDA_ERROR_NOT_SUPPORTED, not modelled), the pool it came from (NULL
 * for memory from no pool), where the allocation starts and its size (an
 * import's is the whole allocation the exporter made). Any other pointer
 * is CUDA_ERROR_INVALID_VALUE, any other attribute
 * CUDA_ERROR_NOT_SUPPORTED. */
static CUresult do_pointer_get_attribute(void *data, CUpointer_attribute attribute,
                                         CUdeviceptr ptr) {
  const fake_alloc *a = find_alloc_containing((uintptr_t)ptr);
  if (a == NULL || data == NULL) return CUDA_ERROR_INVALID_VALUE;
  switch (attribute) {
  case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
    if (a->charged_to < 0) return CUDA_ERROR_NOT_SUPPORTED;
    *(int *)data = a->charged_to;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
    *(CUmemoryPool *)data = a->pool;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    *(CUdeviceptr *)data = (CUdeviceptr)(uintptr_t)a->ptr;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
    *(size_t *)data = a->bytes;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_NOT_SUPPORTED;
  }
}

CUresult fake_cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  FAKE_CALL(cuPointerGetAttribute, NEEDS_INIT, do_pointer_get_attribute(data, attribute, ptr));
}

/*
 * pool_resource.c: allocation from a driver memory pool, stream-ordered
 * (cuMemAllocFromPoolAsync / cuMemFreeAsync), for every pool-backed kind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/pool_resource.h"

void mri_pool_location(mr_pool_kind kind, int device, CUmemLocation *location,
                       CUmemAllocationType *type) {
  switch (kind) {
  case MR_POOL_DEVICE:
    *location = (CUmemLocation){.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = device};
    *type = CU_MEM_ALLOCATION_TYPE_PINNED;
    break;
  case MR_POOL_PINNED:
    *location = (CUmemLocation){.type = CU_MEM_LOCATION_TYPE_HOST, .id = 0};
    *type = CU_MEM_ALLOCATION_TYPE_PINNED;
    break;
  case MR_POOL_MANAGED:
  default:
    *location = (CUmemLocation){.type = CU_MEM_LOCATION_TYPE_NONE, .id = 0};
    *type = CU_MEM_ALLOCATION_TYPE_MANAGED;
    break;
  }
}

mr_status mri_device_attribute(int device, CUdevice_attribute attribute, int *value) {
  const mri_cuda_api *cu = mri_cuda();
  CUdevice dev;
  CUresult r = cu->cuDeviceGet(&dev, device);
  if (r == CUDA_SUCCESS) r = cu->cuDeviceGetAttribute(value, attribute, dev);
  if (r != CUDA_SUCCESS)
    return mri_cuda_fail(r, "reading attribute %d of device %d", (int)attribute, device);
  return MR_OK;
}

mr_status mri_require_managed_memory(const char *what, int device) {
  int value = 0;
  mr_status st = mri_device_attribute(device, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, &value);
  if (st != MR_OK) return mri_error_prefix(st, "%s", what);
  if (!value)
    return mri_error(MR_ERR_UNSUPPORTED, "%s: device %d cannot allocate managed memory", what,
                     device);
  return MR_OK;
}

mr_status mri_pool_supported(mr_pool_kind kind, int device, bool *supported) {
  *supported = false;
  int value = 0;
  mr_status st;
  switch (kind) {
  case MR_POOL_DEVICE:
    st = mri_device_attribute(device, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, &value);
    break;
  case MR_POOL_PINNED:
    st = mri_device_attribute(device, CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED, &value);
    break;
  case MR_POOL_MANAGED:
    /* Managed pools need pool support and managed memory on the device. */
    st = mri_device_attribute(device, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, &value);
    if (st == MR_OK && value)
      st = mri_device_attribute(device, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, &value);
    break;
  default:
    return mri_error(MR_ERR_INVALID_ARGUMENT, "unknown pool kind %d", (int)kind);
  }
  if (st != MR_OK) return st;
  *supported = value != 0;
  return MR_OK;
}

mr_status mri_pool_grant_access(CUmemoryPool pool, mr_pool_kind kind, int owner) {
  const mri_cuda_api *cu = mri_cuda();
  int count = cu->device_count;
  CUmemAccessDesc *descs = mri_calloc((size_t)count, sizeof *descs);
  if (descs == NULL) return MR_ERR_OUT_OF_MEMORY;
  size_t n = 0;
  CUresult r = CUDA_SUCCESS;
  for (int d = 0; d < count; d++) {
    if (kind == MR_POOL_DEVICE) {
      if (d == owner) continue; /* the owner always has access */
      CUdevice peer, owner_dev;
      int can = 0;
      r = cu->cuDeviceGet(&peer, d);
      if (r == CUDA_SUCCESS) r = cu->cuDeviceGet(&owner_dev, owner);
      if (r == CUDA_SUCCESS) r = cu->cuDeviceCanAccessPeer(&can, peer, owner_dev);
      if (r != CUDA_SUCCESS) {
        free(descs);
        return mri_cuda_fail(r, "asking whether device %d can reach device %d's pool", d, owner);
      }
      if (!can) continue;
    }
    descs[n].location = (CUmemLocation){.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = d};
    descs[n].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    n++;
  }
  if (n > 0) r = cu->cuMemPoolSetAccess(pool, descs, n);
  free(descs);
  if (r != CUDA_SUCCESS)
    return mri_cuda_fail(r, "granting %zu device%s access to a %s pool", n, n == 1 ? "" : "s",
                         mr_pool_kind_name(kind));
  return MR_OK;
}

/* ---- idle memory of pools, for the process-wide reclaim -------------------- */

/* Give `pool`'s idle reservation back to the system. cuMemPoolTrimTo
 * releases only memory no allocation holds and whose frees the host has
 * seen complete: the devices are synchronized first (stream order: the
 * reclaim waits, core/reclaim.h says why), so that memory freed just before
 * (an adaptor's trim in this same reclaim) goes back too. */
static mr_status pool_release_reserved(CUmemoryPool pool, mr_pool_kind kind, int device,
                                       size_t *released) {
  *released = 0;
  const mri_cuda_api *cu = mri_cuda();
  if (cu == NULL) return MR_OK;
  mr_status st = mri_synchronize_devices(kind == MR_POOL_DEVICE ? device : -1);
  if (st != MR_OK) return mri_error_prefix(st, "reclaiming a %s pool", mr_pool_kind_name(kind));
  cuuint64_t before = 0, after = 0;
  CUresult r = cu->cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &before);
  if (r == CUDA_SUCCESS) r = cu->cuMemPoolTrimTo(pool, 0);
  if (r == CUDA_SUCCESS)
    r = cu->cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &after);
  if (r == CUDA_ERROR_DEINITIALIZED) return MR_OK;
  if (r != CUDA_SUCCESS)
    return mri_cuda_fail(r, "cuMemPoolTrimTo(%s pool, device %d)", mr_pool_kind_name(kind), device);
  *released = before > after ? (size_t)(before - after) : 0;
  return MR_OK;
}

/* The decay's (core/decay.h): give back about `goal` bytes of `pool`'s
 * idle reservation without waiting for the device's other work.
 * cuMemPoolTrimTo keeps what allocations hold and memory whose frees the
 * host has not yet seen complete. What the decay's adaptors gave the pool
 * this tick was freed on this thread's per-thread default stream, so that
 * stream is synchronized first: without it the trim kept every byte, and
 * nothing on the thread ever synchronizes (on the H100, 55 GiB a cache gave
 * back stayed reserved for good). The wait is for those frees only: the
 * adaptors give back no memory whose streams are still busy. */
static mr_status pool_decay_reserved(CUmemoryPool pool, mr_pool_kind kind, int device, size_t goal,
                                     size_t *released) {
  *released = 0;
  const mri_cuda_api *cu = mri_cuda();
  if (cu == NULL) return MR_OK;
  CUresult r;
  MRI_CALL_ON_STREAM(MRI_STREAM_PER_THREAD, device, r,
                     cu->cuStreamSynchronize((CUstream)MRI_STREAM_PER_THREAD));
  if (r != CUDA_SUCCESS && r != CUDA_ERROR_DEINITIALIZED)
    return mri_cuda_fail(r, "synchronizing the decay's frees to a %s pool (device %d)",
                         mr_pool_kind_name(kind), device);
  cuuint64_t before = 0, after = 0;
  r = cu->cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &before);
  if (r == CUDA_SUCCESS) r = cu->cuMemPoolTrimTo(pool, before > goal ? (size_t)(before - goal) : 0);
  if (r == CUDA_SUCCESS)
    r = cu->cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &after);
  if (r == CUDA_ERROR_DEINITIALIZED) return MR_OK;
  if (r != CUDA_SUCCESS)
    return mri_cuda_fail(r, "cuMemPoolTrimTo(%s pool, device %d)", mr_pool_kind_name(kind), device);
  *released = before > after ? (size_t)(before - after) : 0;
  return MR_OK;
}

/* Reserved and not in use. */
static size_t pool_idle_reserved(CUmemoryPool pool) {
  const mri_cuda_api *cu = mri_cuda();
  cuuint64_t reserved = 0, used = 0;
  if (cu == NULL ||
      cu->cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved) !=
          CUDA_SUCCESS ||
      cu->cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used) != CUDA_SUCCESS)
    return 0;
  return reserved > used ? (size_t)(reserved - used) : 0;
}

static mr_status owned_pool_release(void *obj, size_t goal, size_t *released) {
  mri_pool_state *s = obj;
  (void)goal;
  return pool_release_reserved(s->pool, s->kind, s->device, released);
}

static mr_status owned_pool_decay(void *obj, size_t goal, size_t *released) {
  mri_pool_state *s = obj;
  return pool_decay_reserved(s->pool, s->kind, s->device, goal, released);
}

static size_t owned_pool_idle(void *obj) {
  return pool_idle_reserved(((mri_pool_state *)obj)->pool);
}

/* Default pools whose release threshold mrctx raised: they keep what the
 * process frees, so each is registered for reclaims, once, for the rest of
 * the process (the driver's default pools live as long). */
typedef struct default_pool_reclaimer {
  mri_reclaimer reclaimer;
  CUmemoryPool pool;
  mr_pool_kind kind;
  int device;
} default_pool_reclaimer;

#define MAX_DEFAULT_POOL_RECLAIMERS 256
static default_pool_reclaimer default_reclaimers[MAX_DEFAULT_POOL_RECLAIMERS];
static size_t default_reclaimer_count;
static pthread_mutex_t default_reclaimer_lock = PTHREAD_MUTEX_INITIALIZER;

static mr_status default_pool_release(void *obj, size_t goal, size_t *released) {
  default_pool_reclaimer *d = obj;
  (void)goal;
  return pool_release_reserved(d->pool, d->kind, d->device, released);
}

static mr_status default_pool_decay(void *obj, size_t goal, size_t *released) {
  default_pool_reclaimer *d = obj;
  return pool_decay_reserved(d->pool, d->kind, d->device, goal, released);
}

static size_t default_pool_idle(void *obj) {
  return pool_idle_reserved(((default_pool_reclaimer *)obj)->pool);
}

static void register_default_pool(CUmemoryPool pool, mr_pool_kind kind, int device) {
  default_pool_reclaimer *d = NULL;
  pthread_mutex_lock(&default_reclaimer_lock);
  bool known = false;
  for (size_t i = 0; i < default_reclaimer_count; i++)
    known = known || default_reclaimers[i].pool == pool;
  if (!known && default_reclaimer_count < MAX_DEFAULT_POOL_RECLAIMERS) {
    d = &default_reclaimers[default_reclaimer_count++];
    *d = (default_pool_reclaimer){.pool = pool, .kind = kind, .device = device};
    d->reclaimer = (mri_reclaimer){.release = default_pool_release,
                                   .release_nowait = default_pool_decay,
                                   .idle = default_pool_idle,
                                   .obj = d,
                                   .device = mri_pool_reclaim_device(kind, device),
                                   .what = kind == MR_POOL_DEVICE   ? "the default device pool"
                                           : kind == MR_POOL_PINNED ? "the default pinned pool"
                                                                    : "the default managed pool",
                                   .pool = true};
  }
  pthread_mutex_unlock(&default_reclaimer_lock);
  if (d != NULL) mri_reclaimer_register(&d->reclaimer);
}

bool mri_pool_reclaim_after_oom(mr_pool_kind kind, int device, size_t bytes,
                                mri_reclaim_result *result) {
  uint64_t generation = mri_reclaim_generation();
  return mri_reclaim_after_oom(mri_pool_reclaim_device(kind, device), bytes, generation, result);
}

/* A default pool whose release threshold is 0 hands memory back to the OS
 * at every synchronization, so allocation stalls; raise it to the maximum
 * the first time we use it, and register the pool for the process-wide
 * reclaim, which gives what it keeps back when anything runs out, and for
 * the decay, which gives back what stayed reserved above use for an idle
 * time (core/decay.h): the threshold keeps the working set between
 * synchronizations, the idle time bounds how long the rest stays. Pools
 * the application set or created are left as they are. */
static mr_status apply_threshold_rule(mri_pool_state *s, CUmemoryPool pool) {
  const mri_cuda_api *cu = mri_cuda();
  if (!s->owned) {
    CUmemoryPool default_pool = NULL;
    CUresult r = cu->cuMemGetDefaultMemPool(&default_pool, &s->location, s->type);
    if (r != CUDA_SUCCESS)
      return mri_cuda_fail(r, "cuMemGetDefaultMemPool(%s)", mr_pool_kind_name(s->kind));
    if (pool == default_pool) {
      cuuint64_t threshold = 0;
      r = cu->cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
      if (r == CUDA_SUCCESS && threshold == 0) {
        threshold = UINT64_MAX;
        r = cu->cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
      }
      if (r == CUDA_SUCCESS && threshold == UINT64_MAX)
        register_default_pool(pool, s->kind, s->device);
      if (r != CUDA_SUCCESS)
        return mri_cuda_fail(r, "raising the release threshold of the default %s pool",
                             mr_pool_kind_name(s->kind));
    }
  }
  atomic_store_explicit(&s->checked_pool, pool, memory_order_relaxed);
  return MR_OK;
}

static const char *pool_what(const mri_pool_state *s) {
  switch (s->kind) {
  case MR_POOL_DEVICE:
    return "device";
  case MR_POOL_PINNED:
    return "pinned";
  default:
    return "managed";
  }
}

static mr_status refuse_oversized(const mri_pool_state *s, size_t bytes) __attribute__((noinline));
static mr_status refuse_oversized(const mri_pool_state *s, size_t bytes) {
  char who[64];
  snprintf(who, sizeof who, "%s pool (device %d)", pool_what(s), s->device);
  return mri_size_overflow(who, bytes, MRI_DRIVER_GRANULARITY, "the driver's granularity");
}

static mr_status pool_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                               void **ptr) {
  mri_pool_state *s = self;
  if (MRI_UNLIKELY(!mri_driver_size_fits(bytes))) return refuse_oversized(s, bytes);
  const mri_cuda_api *cu = mri_cuda();
  CUmemoryPool pool = s->pool;
  CUresult r;
  if (s->follow_current) {
    r = cu->cuMemGetMemPool(&pool, &s->location, s->type);
    if (MRI_UNLIKELY(r != CUDA_SUCCESS))
      return mri_cuda_fail(r, "cuMemGetMemPool(device %d)", s->device);
  }
  if (MRI_UNLIKELY(pool != atomic_load_explicit(&s->checked_pool, memory_order_relaxed))) {
    mr_status st = apply_threshold_rule(s, pool);
    if (st != MR_OK) return st;
  }
  CUdeviceptr dptr = 0;
  /* A thread with no current context, on a default stream: do what the
   * runtime would first (and again if the driver still finds none). */
  MRI_CALL_ON_STREAM(stream, s->device, r,
                     cu->cuMemAllocFromPoolAsync(&dptr, bytes, pool, (CUstream)stream));
  if (MRI_UNLIKELY(r != CUDA_SUCCESS)) {
    mri_reclaim_result reclaimed = {0};
    /* Out of memory: take idle memory back from the whole process, then
     * once more; then from the reclaimers outside mrctx, and once more
     * (core/reclaim.h). */
    while (r == CUDA_ERROR_OUT_OF_MEMORY &&
           mri_pool_reclaim_after_oom(s->kind, s->device, bytes, &reclaimed))
      MRI_CALL_ON_STREAM(stream, s->device, r,
                         cu->cuMemAllocFromPoolAsync(&dptr, bytes, pool, (CUstream)stream));
    if (r != CUDA_SUCCESS) {
      *ptr = NULL;
      mr_status st =
          mri_cuda_fail(r, "%s pool: cuMemAllocFromPoolAsync of %zu bytes (device %d, stream %p)",
                        pool_what(s), bytes, s->device, (void *)stream);
      return r == CUDA_ERROR_OUT_OF_MEMORY ? mri_reclaim_explain(st, &reclaimed) : st;
    }
  }
  *ptr = (void *)(uintptr_t)dptr;
  return MR_OK;
}

static mr_status pool_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                 mr_stream stream) {
  mri_pool_state *s = self;
  const mri_cuda_api *cu = mri_cuda();
  CUresult r;
  MRI_CALL_ON_STREAM(stream, s->device, r,
                     cu->cuMemFreeAsync((CUdeviceptr)(uintptr_t)ptr, (CUstream)stream));
  /* After the driver shut down at process exit the memory is gone already. */
  if (MRI_LIKELY(r == CUDA_SUCCESS || r == CUDA_ERROR_DEINITIALIZED)) return MR_OK;
  return mri_cuda_fail(r, "%s pool: cuMemFreeAsync(%p, %zu bytes, stream %p)", pool_what(s), ptr,
                       bytes, (void *)stream);
}

static mr_status pool_synchronize(void *self, mr_stream stream) {
  return mri_stream_synchronize(stream);
}

static mr_status pool_trim(void *self) {
  /* Give the pool's idle memory back: only for pools we own. A shared
   * default pool's contents belong to the whole process. */
  mri_pool_state *s = self;
  if (!s->owned) return MR_OK;
  CUresult r = mri_cuda()->cuMemPoolTrimTo(s->pool, 0);
  if (r != CUDA_SUCCESS && r != CUDA_ERROR_DEINITIALIZED)
    return mri_cuda_fail(r, "cuMemPoolTrimTo(owned %s pool)", pool_what(s));
  return MR_OK;
}

static void pool_destroy(void *self) {
  mri_pool_state *s = self;
  mri_reclaimer_unregister(&s->reclaimer);
  const mri_cuda_api *cu = mri_cuda();
  /* The driver frees an owned pool once its last allocation is freed. */
  if (s->owned && cu != NULL) cu->cuMemPoolDestroy(s->pool);
  free(s);
}

static const mr_resource_ops pool_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "pool",
    .allocate = pool_allocate,
    .deallocate = pool_deallocate,
    .synchronize = pool_synchronize,
    .trim = pool_trim,
    .destroy = pool_destroy,
};

mr_status mri_pool_resource_create(mri_pool_state *state, const char *description,
                                   mr_resource **out) {
  mr_resource_props props = mri_memory_kind_props(mri_pool_memory_kind(state->kind), state->device,
                                                  true, MR_DEFAULT_ALIGNMENT);
  if (mri_describe_only()) {
    mr_status st = mri_described_resource_create(&props, description, NULL, out);
    if (st == MR_OK) free(state);
    return st;
  }
  atomic_init(&state->checked_pool, NULL);
  mr_status st = mri_resource_create(&pool_ops, state, &props, NULL, description, out);
  if (st == MR_OK && state->owned) {
    state->reclaimer =
        (mri_reclaimer){.release = owned_pool_release,
                        .release_nowait = owned_pool_decay,
                        .idle = owned_pool_idle,
                        .obj = state,
                        .device = mri_pool_reclaim_device(state->kind, state->device),
                        .what = (*out)->description,
                        .pool = true};
    mri_reclaimer_register(&state->reclaimer);
  }
  return st;
}

mr_status mri_pool_info(CUmemoryPool pool, mr_pool_kind kind, int device, mr_pool_info *info) {
  const mri_cuda_api *cu = mri_cuda();
  CUmemLocation location;
  CUmemAllocationType type;
  mri_pool_location(kind, device, &location, &type);
  CUmemoryPool default_pool = NULL, current_pool = NULL;
  CUresult r = cu->cuMemGetDefaultMemPool(&default_pool, &location, type);
  if (r != CUDA_SUCCESS)
    return mri_cuda_fail(r, "cuMemGetDefaultMemPool(%s pool, device %d)", mr_pool_kind_name(kind),
                         device);
  r = cu->cuMemGetMemPool(&current_pool, &location, type);
  if (r != CUDA_SUCCESS)
    return mri_cuda_fail(r, "cuMemGetMemPool(%s pool, device %d)", mr_pool_kind_name(kind), device);
  memset(info, 0, sizeof *info);
  info->size = sizeof *info;
  info->kind = kind;
  info->device = kind == MR_POOL_DEVICE ? device : -1;
  info->is_default = pool == default_pool;
  info->is_current = pool == current_pool;
  static const struct {
    CUmemPool_attribute attribute;
    size_t offset;
  } fields[] = {
      {CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, offsetof(mr_pool_info, release_threshold)},
      {CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, offsetof(mr_pool_info, reserved_bytes)},
      {CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, offsetof(mr_pool_info, reserved_high)},
      {CU_MEMPOOL_ATTR_USED_MEM_CURRENT, offsetof(mr_pool_info, used_bytes)},
      {CU_MEMPOOL_ATTR_USED_MEM_HIGH, offsetof(mr_pool_info, used_high)},
  };
  for (size_t i = 0; i < MRI_ARRAY_SIZE(fields); i++) {
    cuuint64_t value = 0;
    r = cu->cuMemPoolGetAttribute(pool, fields[i].attribute, &value);
    if (r != CUDA_SUCCESS)
      return mri_cuda_fail(r, "reading attribute %d of a %s pool", (int)fields[i].attribute,
                           mr_pool_kind_name(kind));
    memcpy((char *)info + fields[i].offset, &(uint64_t){value}, sizeof(uint64_t));
  }
  return MR_OK;
}

mr_status mri_pool_reset_peak(CUmemoryPool pool, mr_pool_kind kind) {
  /* The driver takes only 0 for the high-water marks, which sets each to
   * its current value. Both are set: a failure of the second leaves the
   * first reset, which is what the caller asked for in part. */
  static const CUmemPool_attribute highs[] = {CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH,
                                              CU_MEMPOOL_ATTR_USED_MEM_HIGH};
  const mri_cuda_api *cu = mri_cuda();
  for (size_t i = 0; i < MRI_ARRAY_SIZE(highs); i++) {
    cuuint64_t zero = 0;
    CUresult r = cu->cuMemPoolSetAttribute(pool, highs[i], &zero);
    if (r != CUDA_SUCCESS)
      return mri_cuda_fail(r, "resetting the %s high-water mark of a %s pool",
                           i == 0 ? "reserved" : "used", mr_pool_kind_name(kind));
  }
  return MR_OK;
}

mri_pool_state *mri_pool_state_of(const mr_resource *mr) {
  return mr != NULL ? mr_resource_state(mr, &pool_ops) : NULL;
}

bool mri_pool_is_owned(const mr_resource *mr) {
  const mri_pool_state *s = mri_pool_state_of(mr);
  return s != NULL && s->owned;
}

/* The pool a pool-backed resource allocates from now, or an error naming
 * the caller. */
static mr_status resource_pool(const mr_resource *mr, const char *what, mri_pool_state **out,
                               CUmemoryPool *pool) {
  mri_pool_state *s = mr_resource_state(mr, &pool_ops);
  if (s == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: %s is not allocated from a driver pool", what,
                     mr_resource_describe(mr));
  *pool = s->pool;
  if (s->follow_current) {
    CUresult r = mri_cuda()->cuMemGetMemPool(pool, &s->location, s->type);
    if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuMemGetMemPool(device %d)", s->device);
  }
  *out = s;
  return MR_OK;
}

mr_status mr_pool_resource_get_info(const mr_resource *mr, mr_pool_info *info) {
  if (info == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_pool_resource_get_info: info is NULL");
  mri_pool_state *s = NULL;
  CUmemoryPool pool = NULL;
  mr_status st = resource_pool(mr, "mr_pool_resource_get_info", &s, &pool);
  if (st != MR_OK) return st;
  mr_pool_info full;
  st = mri_pool_info(pool, s->kind, s->device, &full);
  if (st != MR_OK) return st;
  return MRI_STRUCT_WRITE(info, &full, mr_pool_info, used_high, "mr_pool_resource_get_info");
}

mr_status mr_pool_resource_reset_peak(const mr_resource *mr) {
  mri_pool_state *s = NULL;
  CUmemoryPool pool = NULL;
  mr_status st = resource_pool(mr, "mr_pool_resource_reset_peak", &s, &pool);
  if (st != MR_OK) return st;
  return mri_pool_reset_peak(pool, s->kind);
}

/*
 * sync.c: the synchronous legacy resources, for devices without pools and
 * for comparison: sync_device (cuMemAlloc), sync_pinned (cuMemHostAlloc,
 * portable and device-mapped) and sync_managed (cuMemAllocManaged, attached
 * globally). They allocate in the device's primary context. Memory is
 * usable on return; a free on a stream first waits for that stream, so work
 * queued before the free still sees the memory.
 */
#include <stdio.h>
#include <stdlib.h>

#include "driver/pool_resource.h"

typedef struct sync_state {
  int device;
  mr_pool_kind kind;
} sync_state;

static const char *sync_name(mr_pool_kind kind) {
  switch (kind) {
  case MR_POOL_DEVICE:
    return "sync_device";
  case MR_POOL_PINNED:
    return "sync_pinned";
  default:
    return "sync_managed";
  }
}

/* Whether `stream` is capturing a graph. Created streams, and the
 * per-thread stream of a thread that has a context (one without has no
 * per-thread work, and asking would make a context current); the legacy
 * stream never captures, and after the driver shut down at exit nothing
 * does. */
static mr_status stream_capturing(mr_stream stream, bool *capturing) {
  *capturing = false;
  const mri_cuda_api *cu = mri_cuda();
  if (cu == NULL || stream == NULL || stream == (mr_stream)CU_STREAM_LEGACY) return MR_OK;
  if (stream == (mr_stream)CU_STREAM_PER_THREAD) {
    CUcontext current = NULL;
    if (cu->cuCtxGetCurrent(&current) != CUDA_SUCCESS || current == NULL) return MR_OK;
  }
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult r = cu->cuStreamIsCapturing((CUstream)stream, &status);
  if (r == CUDA_ERROR_DEINITIALIZED) return MR_OK;
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuStreamIsCapturing(stream %p)", (void *)stream);
  *capturing = status != CU_STREAM_CAPTURE_STATUS_NONE;
  return MR_OK;
}

static mr_status sync_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                               void **ptr) {
  sync_state *s = self;
  if (!mri_driver_size_fits(bytes)) {
    char who[64];
    snprintf(who, sizeof who, "%s (device %d)", sync_name(s->kind), s->device);
    return mri_size_overflow(who, bytes, MRI_DRIVER_GRANULARITY, "the driver's granularity");
  }
  const mri_cuda_api *cu = mri_cuda();
  /* A capture gets no synchronous memory: freeing it waits for the stream,
   * which the capture (and the graph's later launches) forbid, so it could
   * not be freed in the capture either. Refused, as the free is; the
   * pool-backed resources make graph allocations instead. */
  bool capturing;
  mr_status st = stream_capturing(stream, &capturing);
  if (st != MR_OK) return mri_error_prefix(st, "%s", sync_name(s->kind));
  if (capturing)
    return mri_error(MR_ERR_UNSUPPORTED,
                     "%s: cannot allocate %zu bytes on stream %p while it captures a graph: "
                     "synchronous memory is not graph-safe (its free waits for the stream); "
                     "allocate from a pool-backed resource (device) during a capture",
                     sync_name(s->kind), bytes, (void *)stream);
  bool pushed;
  st = mri_push_context(s->device, &pushed);
  if (st != MR_OK) return st;
  CUresult r;
  const char *call;
  mri_reclaim_result reclaimed = {0};
again:
  switch (s->kind) {
  case MR_POOL_DEVICE: {
    CUdeviceptr p = 0;
    call = "cuMemAlloc";
    r = cu->cuMemAlloc(&p, bytes);
    *ptr = (void *)(uintptr_t)p;
    break;
  }
  case MR_POOL_PINNED:
    call = "cuMemHostAlloc";
    r = cu->cuMemHostAlloc(ptr, bytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
    break;
  default: {
    CUdeviceptr p = 0;
    call = "cuMemAllocManaged";
    r = cu->cuMemAllocManaged(&p, bytes, CU_MEM_ATTACH_GLOBAL);
    *ptr = (void *)(uintptr_t)p;
    break;
  }
  }
  /* Out of memory: take idle memory back from the whole process (the
   * driver pools' reservations included, which cuMemAlloc cannot use),
   * then once more; then from the reclaimers outside mrctx, and once more
   * (core/reclaim.h: each call goes one stage further). */
  if (r == CUDA_ERROR_OUT_OF_MEMORY &&
      mri_pool_reclaim_after_oom(s->kind, s->device, bytes, &reclaimed))
    goto again;
  mri_pop_context(pushed);
  if (r != CUDA_SUCCESS) {
    *ptr = NULL;
    st = mri_cuda_fail(r, "%s: %s of %zu bytes (device %d)", sync_name(s->kind), call, bytes,
                       s->device);
    return r == CUDA_ERROR_OUT_OF_MEMORY ? mri_reclaim_explain(st, &reclaimed) : st;
  }
  return MR_OK;
}

static mr_status sync_free(sync_state *s, void *ptr, size_t bytes) {
  const mri_cuda_api *cu = mri_cuda();
  bool pushed;
  mr_status st = mri_push_context(s->device, &pushed);
  if (st != MR_OK) return st;
  CUresult r = s->kind == MR_POOL_PINNED ? cu->cuMemFreeHost(ptr)
                                         : cu->cuMemFree((CUdeviceptr)(uintptr_t)ptr);
  mri_pop_context(pushed);
  if (r == CUDA_SUCCESS || r == CUDA_ERROR_DEINITIALIZED) return MR_OK;
  return mri_cuda_fail(r, "%s: freeing %p (%zu bytes)", sync_name(s->kind), ptr, bytes);
}

static mr_status sync_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                 mr_stream stream) {
  /* Work queued on `stream` before this call may still use the memory, so
   * the stream is waited for; a capturing stream cannot be (waiting would
   * invalidate the caller's capture, and the graph's work has not even
   * run): refused, the memory stays the caller's. */
  const char *name = sync_name(((sync_state *)self)->kind);
  bool capturing = false;
  mr_status st = stream_capturing(stream, &capturing);
  if (st != MR_OK) return mri_error_prefix(st, "%s: freeing %p", name, ptr);
  if (capturing)
    return mri_error(MR_ERR_UNSUPPORTED,
                     "%s: cannot free %p on stream %p while it captures a graph (a "
                     "synchronous free waits for the stream); free it after the capture",
                     name, ptr, (void *)stream);
  st = mri_stream_synchronize(stream);
  if (st != MR_OK) return st;
  return sync_free(self, ptr, bytes);
}

static mr_status sync_allocate_sync(void *self, size_t bytes, size_t alignment, void **ptr) {
  return sync_allocate(self, bytes, alignment, NULL, ptr);
}

static mr_status sync_deallocate_sync(void *self, void *ptr, size_t bytes, size_t alignment) {
  return sync_deallocate(self, ptr, bytes, alignment, NULL);
}

static mr_status sync_synchronize(void *self, mr_stream stream) {
  return mri_stream_synchronize(stream);
}

static const mr_resource_ops sync_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "sync",
    .allocate = sync_allocate,
    .deallocate = sync_deallocate,
    .allocate_sync = sync_allocate_sync,
    .deallocate_sync = sync_deallocate_sync,
    .synchronize = sync_synchronize,
    .destroy = free,
};

static mr_status create_sync(mr_pool_kind kind, int device, const char *description,
                             mr_resource **out);

mr_status mri_sync_resource_create(mr_pool_kind kind, int device, const char *reason,
                                   mr_resource **out) {
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: out is NULL", sync_name(kind));
  *out = NULL;
  /* A description is spec text and never holds a comment: the reason is a
   * quoted parameter, which sync_*(reason=...) reads back. */
  char *description = NULL;
  if (reason != NULL) {
    char *quoted;
    mr_status st = mri_spec_quote(sync_name(kind), reason, &quoted);
    if (st != MR_OK) return st;
    description = mri_asprintf("%s(reason=%s)", sync_name(kind), quoted);
    free(quoted);
    if (description == NULL) return MR_ERR_OUT_OF_MEMORY;
  }
  mr_status st =
      create_sync(kind, device, description != NULL ? description : sync_name(kind), out);
  free(description);
  return st;
}

static mr_status create_sync(mr_pool_kind kind, int device, const char *description,
                             mr_resource **out) {
  mr_status st = mri_check_device(device);
  if (st != MR_OK) return mri_error_prefix(st, "%s", sync_name(kind));
  if (kind == MR_POOL_MANAGED) {
    st = mri_require_managed_memory(sync_name(kind), device);
    if (st != MR_OK) return st;
  }
  sync_state *s = mri_calloc(1, sizeof *s);
  if (s == NULL) return MR_ERR_OUT_OF_MEMORY;
  s->device = device;
  s->kind = kind;
  mr_resource_props props =
      mri_memory_kind_props(mri_pool_memory_kind(kind), device, false, MR_DEFAULT_ALIGNMENT);
  st = mri_resource_create(&sync_ops, s, &props, NULL, description, out);
  if (st != MR_OK) free(s);
  return st;
}

mr_status mr_sync_device_resource_create(int device, mr_resource **out) {
  return mri_sync_resource_create(MR_POOL_DEVICE, device, NULL, out);
}

mr_status mr_sync_pinned_resource_create(int device, mr_resource **out) {
  return mri_sync_resource_create(MR_POOL_PINNED, device, NULL, out);
}

mr_status mr_sync_managed_resource_create(int device, mr_resource **out) {
  return mri_sync_resource_create(MR_POOL_MANAGED, device, NULL, out);
}

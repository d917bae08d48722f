/*
 * pool.c: "pool(kind=..., release=..., max=..., initial=..., access=...,
 * ipc=...)", a driver memory pool the resource creates, configures and owns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/pool_resource.h"

/* The spec text that rebuilds this pool; defaults are left out. */
static void describe_pool(const mr_pool_desc *d, char *buf, size_t cap) {
  char size[32];
  int n = snprintf(buf, cap, "pool(kind=%s", mr_pool_kind_name(d->kind));
  if (d->release_threshold != MR_POOL_RELEASE_MAX && n >= 0 && (size_t)n < cap) {
    mri_format_size(d->release_threshold, size, sizeof size);
    n += snprintf(buf + n, cap - (size_t)n, ", release=%s", size);
  }
  if (d->max_size != 0 && n >= 0 && (size_t)n < cap) {
    mri_format_size(d->max_size, size, sizeof size);
    n += snprintf(buf + n, cap - (size_t)n, ", max=%s", size);
  }
  if (d->initial_size != 0 && n >= 0 && (size_t)n < cap) {
    mri_format_size(d->initial_size, size, sizeof size);
    n += snprintf(buf + n, cap - (size_t)n, ", initial=%s", size);
  }
  if (d->access == MR_POOL_ACCESS_NONE && n >= 0 && (size_t)n < cap)
    n += snprintf(buf + n, cap - (size_t)n, ", access=none");
  if (d->handle_type == MR_POOL_HANDLE_FD && n >= 0 && (size_t)n < cap)
    n += snprintf(buf + n, cap - (size_t)n, ", ipc=fd");
  if (n >= 0 && (size_t)n < cap) snprintf(buf + n, cap - (size_t)n, ")");
}

/* Reserve `bytes` up front: allocate and free on the legacy stream, then wait;
 * the pool keeps the memory as long as the release threshold allows. */
static mr_status reserve_initial(mri_pool_state *s, uint64_t bytes) {
  const mri_cuda_api *cu = mri_cuda();
  mr_status st = mri_ensure_context(s->device);
  if (st != MR_OK) return st;
  CUdeviceptr p = 0;
  CUresult r = cu->cuMemAllocFromPoolAsync(&p, (size_t)bytes, s->pool, NULL);
  if (r != CUDA_SUCCESS)
    return mri_cuda_fail(r, "pool: reserving initial=%llu bytes", (unsigned long long)bytes);
  r = cu->cuMemFreeAsync(p, NULL);
  if (r != CUDA_SUCCESS) {
    /* An outstanding block would keep the pool alive after its destruction:
     * free it synchronously instead. */
    st = mri_cuda_fail(r, "pool: returning the initial reservation");
    cu->cuMemFree(p);
    return st;
  }
  r = cu->cuStreamSynchronize(NULL);
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "pool: waiting for the initial reservation");
  return MR_OK;
}

mr_status mr_pool_resource_create(int device, const mr_pool_desc *desc, mr_resource **out) {
  mr_pool_desc given;
  mr_status st = mri_pool_desc_read(desc, out, &given);
  if (st != MR_OK) return st;
  desc = &given;

  char description[160];
  describe_pool(desc, description, sizeof description);
  st = mri_check_device(device);
  if (st != MR_OK) return mri_error_prefix(st, "%s", description);
  if (desc->kind == MR_POOL_MANAGED) {
    st = mri_require_managed_memory(description, device);
    if (st != MR_OK) return st;
  }
  bool supported = false;
  st = mri_pool_supported(desc->kind, device, &supported);
  if (st != MR_OK) return mri_error_prefix(st, "%s", description);
  if (!supported)
    return mri_error(
        MR_ERR_UNSUPPORTED, "%s: device %d has no %s memory-pool support (sync_%s works there)",
        description, device, mr_pool_kind_name(desc->kind), mr_pool_kind_name(desc->kind));
  if (desc->handle_type == MR_POOL_HANDLE_FD) {
    st = mri_ipc_check_device(description, device);
    if (st != MR_OK) return st;
  }

  const mri_cuda_api *cu = mri_cuda();
  mri_pool_state *s = mri_calloc(1, sizeof *s);
  if (s == NULL) return MR_ERR_OUT_OF_MEMORY;
  s->device = device;
  s->kind = desc->kind;
  s->owned = true;
  s->handle_type = desc->handle_type;
  if (s->handle_type != MR_POOL_HANDLE_NONE) s->ipc_id = mri_ipc_new_pool_id();
  mri_pool_location(desc->kind, device, &s->location, &s->type);
  /* Only described (mrctx resolve, core.h): no pool is created, and no
   * memory reserved; everything above was checked as for a real one. */
  if (mri_describe_only()) {
    st = mri_pool_resource_create(s, description, out);
    if (st != MR_OK) free(s);
    return st;
  }

  CUmemPoolProps props;
  memset(&props, 0, sizeof props);
  props.allocType = s->type;
  props.handleTypes = desc->handle_type == MR_POOL_HANDLE_FD
                          ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
                          : CU_MEM_HANDLE_TYPE_NONE;
  props.location = s->location;
  props.maxSize = (size_t)desc->max_size;
  CUresult r = cu->cuMemPoolCreate(&s->pool, &props);
  if (r != CUDA_SUCCESS) {
    free(s);
    return mri_cuda_fail(r, "%s: cuMemPoolCreate on device %d", description, device);
  }
  cuuint64_t threshold = desc->release_threshold;
  r = cu->cuMemPoolSetAttribute(s->pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
  if (r != CUDA_SUCCESS) {
    st = mri_cuda_fail(r, "%s: setting the release threshold", description);
  } else if (desc->access == MR_POOL_ACCESS_ALL && desc->kind != MR_POOL_MANAGED) {
    st = mri_pool_grant_access(s->pool, desc->kind, device);
  }
  if (st == MR_OK && desc->initial_size > 0) st = reserve_initial(s, desc->initial_size);
  if (st == MR_OK) st = mri_pool_resource_create(s, description, out);
  if (st != MR_OK) {
    cu->cuMemPoolDestroy(s->pool);
    free(s);
  }
  return st;
}

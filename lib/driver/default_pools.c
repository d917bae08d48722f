/*
 * default_pools.c: the resources over the driver's own pools:
 *   device          the device's current pool, looked up at every allocation
 *                   so an application's cuMemSetMemPool is honoured;
 *   device_default  the device's default pool;
 *   pinned          the host-pinned default pool, readable and writable from
 *                   every device;
 *   managed         the managed default pool (no preferred location).
 * Where the device or driver lacks the pool, the synchronous resource of the
 * same memory kind stands in, and its description says why:
 * sync_device(reason="...").
 */
#include <stdio.h>
#include <stdlib.h>

#include "driver/pool_resource.h"

static mr_status create_default_pool(const char *what, mr_pool_kind kind, int device,
                                     bool follow_current, mr_resource **out) {
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: out is NULL", what);
  *out = NULL;
  mr_status st = mri_check_device(device);
  if (st != MR_OK) return mri_error_prefix(st, "%s", what);
  /* Without managed memory the synchronous fallback could not serve either. */
  if (kind == MR_POOL_MANAGED) {
    st = mri_require_managed_memory(what, device);
    if (st != MR_OK) return st;
  }
  char reason[160];
  bool supported = false;
  st = mri_pool_supported(kind, device, &supported);
  if (st != MR_OK) return mri_error_prefix(st, "%s", what);
  if (!supported) {
    snprintf(reason, sizeof reason, "device %d has no %s memory-pool support", device,
             mr_pool_kind_name(kind));
    return mri_sync_resource_create(kind, device, reason, out);
  }

  mri_pool_state *s = mri_calloc(1, sizeof *s);
  if (s == NULL) return MR_ERR_OUT_OF_MEMORY;
  s->device = device;
  s->kind = kind;
  s->follow_current = follow_current;
  mri_pool_location(kind, device, &s->location, &s->type);
  if (!follow_current) {
    CUresult r = mri_cuda()->cuMemGetDefaultMemPool(&s->pool, &s->location, s->type);
    if (r == CUDA_ERROR_NOT_SUPPORTED) {
      free(s);
      snprintf(reason, sizeof reason, "the driver has no default %s pool (%s)",
               mr_pool_kind_name(kind), mri_cuda_error_name(r));
      return mri_sync_resource_create(kind, device, reason, out);
    }
    if (r != CUDA_SUCCESS) {
      free(s);
      return mri_cuda_fail(r, "%s: cuMemGetDefaultMemPool(device %d)", what, device);
    }
  }
  /* A host pool is reachable from the CPU only until devices are granted
   * access; `pinned` promises every device may read and write it. Not
   * while only describing (core.h): the default pool is left as it is. */
  if (kind == MR_POOL_PINNED && !mri_describe_only())
    st = mri_pool_grant_access(s->pool, kind, device);
  if (st == MR_OK) st = mri_pool_resource_create(s, what, out);
  if (st != MR_OK) free(s);
  return st;
}

mr_status mr_device_resource_create(int device, mr_resource **out) {
  return create_default_pool("device", MR_POOL_DEVICE, device, true, out);
}

mr_status mr_device_default_resource_create(int device, mr_resource **out) {
  return create_default_pool("device_default", MR_POOL_DEVICE, device, false, out);
}

mr_status mr_pinned_resource_create(int device, mr_resource **out) {
  return create_default_pool("pinned", MR_POOL_PINNED, device, false, out);
}

mr_status mr_managed_resource_create(int device, mr_resource **out) {
  return create_default_pool("managed", MR_POOL_MANAGED, device, false, out);
}

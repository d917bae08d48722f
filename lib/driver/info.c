/*
 * info.c: what `mrctx info` and applications read about devices and pools.
 * Reading never changes a pool; mr_driver_pool_reset_peak resets its
 * high-water marks, and nothing else.
 */
#include <stdio.h>
#include <string.h>

#include "driver/pool_resource.h"

mr_status mr_device_get_info(int device, mr_device_info *info) {
  if (info == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_device_get_info: info is NULL");
  mr_status st = mri_check_device(device);
  if (st != MR_OK) return st;
  const mri_cuda_api *cu = mri_cuda();
  /* Filled whole here, then copied out as far as the caller's struct goes. */
  mr_device_info full = {.size = sizeof full, .device = device};
  CUdevice dev;
  CUresult r = cu->cuDeviceGet(&dev, device);
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuDeviceGet(%d)", device);
  r = cu->cuDeviceGetName(full.name, (int)sizeof full.name, dev);
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuDeviceGetName(device %d)", device);
  size_t total = 0;
  r = cu->cuDeviceTotalMem(&total, dev);
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuDeviceTotalMem(device %d)", device);
  full.total_memory = total;
  static const struct {
    CUdevice_attribute attribute;
    const char *name;
  } attributes[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability"},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability"},
      {CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, "memory pools"},
      {CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED, "host memory pools"},
      {CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, "managed memory"},
      {CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, "concurrent managed access"},
  };
  int values[MRI_ARRAY_SIZE(attributes)];
  for (size_t i = 0; i < MRI_ARRAY_SIZE(attributes); i++) {
    values[i] = 0;
    r = cu->cuDeviceGetAttribute(&values[i], attributes[i].attribute, dev);
    if (r != CUDA_SUCCESS)
      return mri_cuda_fail(r, "reading %s of device %d", attributes[i].name, device);
  }
  full.compute_capability_major = values[0];
  full.compute_capability_minor = values[1];
  full.memory_pools_supported = values[2] != 0;
  full.host_memory_pools_supported = values[3] != 0;
  full.managed_memory = values[4] != 0;
  full.concurrent_managed_access = values[5] != 0;
  return MRI_STRUCT_WRITE(info, &full, mr_device_info, concurrent_managed_access,
                          "mr_device_get_info");
}

mr_status mr_device_get_memory(int device, uint64_t *free_bytes, uint64_t *total_bytes) {
  if (free_bytes != NULL) *free_bytes = 0;
  if (total_bytes != NULL) *total_bytes = 0;
  if (free_bytes == NULL || total_bytes == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_device_get_memory: %s is NULL",
                     free_bytes == NULL ? "free_bytes" : "total_bytes");
  mr_status st = mri_check_device(device);
  if (st != MR_OK) return st;
  /* cuMemGetInfo reads the current context's device: the device's primary
   * context is made current for the call (and the caller's put back). */
  bool pushed;
  st = mri_push_context(device, &pushed);
  if (st != MR_OK) return st;
  size_t free_now = 0, total = 0;
  CUresult r = mri_cuda()->cuMemGetInfo(&free_now, &total);
  mri_pop_context(pushed);
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuMemGetInfo(device %d)", device);
  *free_bytes = free_now;
  *total_bytes = total;
  return MR_OK;
}

bool mri_device_memory_if_active(int device, uint64_t *free_bytes, uint64_t *total_bytes) {
  const mri_cuda_api *cu = mri_cuda();
  if (cu == NULL) return false;
  CUdevice dev;
  unsigned int flags = 0;
  int active = 0;
  if (cu->cuDeviceGet(&dev, device) != CUDA_SUCCESS ||
      cu->cuDevicePrimaryCtxGetState(dev, &flags, &active) != CUDA_SUCCESS || !active)
    return false;
  return mr_device_get_memory(device, free_bytes, total_bytes) == MR_OK;
}

/* The driver's pool `which` for `device`. OUT: *kind, *pool. `what` names
 * the caller in messages. */
static mr_status driver_pool(const char *what, mr_driver_pool which, int device,
                             mr_pool_kind *kind_out, CUmemoryPool *pool_out) {
  mr_status st = mri_check_device(device);
  if (st != MR_OK) return st;
  mr_pool_kind kind = MR_POOL_DEVICE; /* set by driver_pool on success */
  bool current = false;
  switch (which) {
  case MR_DRIVER_POOL_DEVICE_CURRENT:
    kind = MR_POOL_DEVICE;
    current = true;
    break;
  case MR_DRIVER_POOL_DEVICE_DEFAULT:
    kind = MR_POOL_DEVICE;
    break;
  case MR_DRIVER_POOL_PINNED_DEFAULT:
    kind = MR_POOL_PINNED;
    break;
  case MR_DRIVER_POOL_MANAGED_DEFAULT:
    kind = MR_POOL_MANAGED;
    break;
  default:
    return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: unknown pool %d", what, (int)which);
  }
  bool supported = false;
  st = mri_pool_supported(kind, device, &supported);
  if (st != MR_OK) return st;
  if (!supported)
    return mri_error(MR_ERR_UNSUPPORTED, "device %d has no %s memory-pool support", device,
                     mr_pool_kind_name(kind));
  const mri_cuda_api *cu = mri_cuda();
  CUmemLocation location;
  CUmemAllocationType type;
  mri_pool_location(kind, device, &location, &type);
  CUmemoryPool pool = NULL;
  CUresult r = current ? cu->cuMemGetMemPool(&pool, &location, type)
                       : cu->cuMemGetDefaultMemPool(&pool, &location, type);
  if (r != CUDA_SUCCESS)
    return mri_cuda_fail(r, "%s(%s pool, device %d)",
                         current ? "cuMemGetMemPool" : "cuMemGetDefaultMemPool",
                         mr_pool_kind_name(kind), device);
  *kind_out = kind;
  *pool_out = pool;
  return MR_OK;
}

mr_status mr_driver_pool_get_info(mr_driver_pool which, int device, mr_pool_info *info) {
  if (info == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_driver_pool_get_info: info is NULL");
  mr_pool_kind kind = MR_POOL_DEVICE; /* set by driver_pool on success */
  CUmemoryPool pool = NULL;
  mr_status st = driver_pool("mr_driver_pool_get_info", which, device, &kind, &pool);
  if (st != MR_OK) return st;
  mr_pool_info full;
  st = mri_pool_info(pool, kind, device, &full);
  if (st != MR_OK) return st;
  return MRI_STRUCT_WRITE(info, &full, mr_pool_info, used_high, "mr_driver_pool_get_info");
}

mr_status mr_driver_pool_reset_peak(mr_driver_pool which, int device) {
  mr_pool_kind kind = MR_POOL_DEVICE; /* set by driver_pool on success */
  CUmemoryPool pool = NULL;
  mr_status st = driver_pool("mr_driver_pool_reset_peak", which, device, &kind, &pool);
  if (st != MR_OK) return st;
  return mri_pool_reset_peak(pool, kind);
}

mr_status mr_driver_pool_trim(mr_driver_pool which, int device, uint64_t keep_bytes) {
  mr_pool_kind kind = MR_POOL_DEVICE; /* set by driver_pool on success */
  CUmemoryPool pool = NULL;
  mr_status st = driver_pool("mr_driver_pool_trim", which, device, &kind, &pool);
  if (st != MR_OK) return st;
  /* A block freed on a stream is idle once the stream's work before the
   * free is done. */
  st = mri_device_synchronize(device);
  if (st != MR_OK) return st;
  CUresult r = mri_cuda()->cuMemPoolTrimTo(pool, (size_t)keep_bytes);
  if (r != CUDA_SUCCESS && r != CUDA_ERROR_DEINITIALIZED)
    return mri_cuda_fail(r, "cuMemPoolTrimTo(%s pool of device %d, keep %llu bytes)",
                         mr_pool_kind_name(kind), device, (unsigned long long)keep_bytes);
  return MR_OK;
}

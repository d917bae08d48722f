/*
 * info.c: what `mrctx info` and applications read about devices and pools.
 * Reading never changes a pool.
 */
#include <stdio.h>
#include <string.h>

#include "driver/pool_resource.h"

static mr_status check_size(const char *what, size_t given, size_t expected) {
  if (given < expected)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: the struct's size field is %zu, expected %zu (set it to sizeof)",
                     what, given, expected);
  return MR_OK;
}

mr_status mr_device_get_info(int device, mr_device_info *info) {
  if (info == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_device_get_info: info is NULL");
  mr_status st = check_size("mr_device_get_info", info->size, sizeof *info);
  if (st != MR_OK) return st;
  st = mri_check_device(device);
  if (st != MR_OK) return st;
  const mri_cuda_api *cu = mri_cuda();
  size_t size = info->size;
  memset(info, 0, size);
  info->size = size;
  info->device = device;
  CUdevice dev;
  CUresult r = cu->cuDeviceGet(&dev, device);
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuDeviceGet(%d)", device);
  r = cu->cuDeviceGetName(info->name, (int)sizeof info->name, dev);
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuDeviceGetName(device %d)", device);
  size_t total = 0;
  r = cu->cuDeviceTotalMem(&total, dev);
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuDeviceTotalMem(device %d)", device);
  info->total_memory = total;
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
  info->compute_capability_major = values[0];
  info->compute_capability_minor = values[1];
  info->memory_pools_supported = values[2] != 0;
  info->host_memory_pools_supported = values[3] != 0;
  info->managed_memory = values[4] != 0;
  info->concurrent_managed_access = values[5] != 0;
  return MR_OK;
}

mr_status mr_driver_pool_get_info(mr_driver_pool which, int device, mr_pool_info *info) {
  if (info == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_driver_pool_get_info: info is NULL");
  mr_status st = check_size("mr_driver_pool_get_info", info->size, sizeof *info);
  if (st != MR_OK) return st;
  st = mri_check_device(device);
  if (st != MR_OK) return st;
  mr_pool_kind kind;
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
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_driver_pool_get_info: unknown pool %d",
                     (int)which);
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
  return mri_pool_info(pool, kind, device, info);
}

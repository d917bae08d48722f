/*
 * pool_desc.c: pool kinds' names and the checks of a pool's description.
 * They need no driver, so this file is built with and without the
 * toolkit's headers (the no-CUDA build's pool() fails, but an application
 * may still print a kind, and a bad description is refused the same way
 * in both builds). A description's defaults are mr_pool_desc_init, inline
 * in driver.h (docs/abi.md).
 */
#include "driver/driver_internal.h"

const char *mr_pool_kind_name(mr_pool_kind kind) {
  switch (kind) {
  case MR_POOL_DEVICE:
    return "device";
  case MR_POOL_PINNED:
    return "pinned";
  case MR_POOL_MANAGED:
    return "managed";
  }
  return "unknown";
}

mr_status mri_pool_desc_read(const mr_pool_desc *desc, mr_resource **out, mr_pool_desc *given) {
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "pool: out is NULL");
  *out = NULL;
  if (desc == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "pool: desc is NULL");
  /* Fields past the caller's size take mr_pool_desc_init's defaults. */
  mr_pool_desc_init(given, MR_POOL_DEVICE);
  mr_status st = MRI_STRUCT_READ(given, desc, mr_pool_desc, access, "mr_pool_resource_create");
  if (st != MR_OK) return st;
  if (given->kind != MR_POOL_DEVICE && given->kind != MR_POOL_PINNED &&
      given->kind != MR_POOL_MANAGED)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "pool: unknown kind %d", (int)given->kind);
  if (given->access != MR_POOL_ACCESS_ALL && given->access != MR_POOL_ACCESS_NONE)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "pool: unknown access %d", (int)given->access);
  if (given->handle_type != MR_POOL_HANDLE_NONE && given->handle_type != MR_POOL_HANDLE_FD)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "pool: unknown handle type %d",
                     (int)given->handle_type);
  /* The driver shares only device pools between processes: a pool at the
   * HOST location (pinned) is not IPC capable (cuMemPoolCreate), and
   * managed memory is never shared between processes. */
  if (given->handle_type != MR_POOL_HANDLE_NONE && given->kind != MR_POOL_DEVICE)
    return mri_error(MR_ERR_UNSUPPORTED,
                     "pool(kind=%s, ipc=fd): only device pools can be shared between "
                     "processes (the driver's pinned host pools are not IPC capable and "
                     "managed memory cannot be shared); use pool(kind=device, ipc=fd)",
                     mr_pool_kind_name(given->kind));
  if (given->max_size != 0 && given->initial_size > given->max_size)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "pool: initial=%llu bytes is more than max=%llu bytes",
                     (unsigned long long)given->initial_size, (unsigned long long)given->max_size);
  if (given->max_size > SIZE_MAX || given->initial_size > SIZE_MAX)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "pool: sizes do not fit this platform's size_t");
  return MR_OK;
}

mr_status mri_expandable_desc_read(const mr_expandable_desc *desc, mr_resource **out,
                                   mr_expandable_desc *given) {
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "expandable: out is NULL");
  *out = NULL;
  mr_expandable_desc_init(given);
  if (desc == NULL) return MR_OK;
  mr_status st = MRI_STRUCT_READ(given, desc, mr_expandable_desc, handle_type,
                                 "mr_expandable_resource_create");
  if (st != MR_OK) return st;
  if (given->handle_type != MR_POOL_HANDLE_NONE && given->handle_type != MR_POOL_HANDLE_FD)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "expandable: unknown handle type %d",
                     (int)given->handle_type);
  if (given->page_size > SIZE_MAX / 2 || given->reserve_size > SIZE_MAX / 2 ||
      given->large_page_size > SIZE_MAX / 2)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "expandable: page=%llu, large_page=%llu or reserve=%llu bytes is more than "
                     "this platform can address",
                     (unsigned long long)given->page_size,
                     (unsigned long long)given->large_page_size,
                     (unsigned long long)given->reserve_size);
  return MR_OK;
}

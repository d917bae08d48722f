/*
 * no_cuda.c: the driver layer of a build without the CUDA toolkit's
 * headers (-Dcuda=disabled, or no toolkit found). The driver really is
 * unavailable to such a build: every entry says so with MR_ERR_NO_DRIVER,
 * and host resources, adaptors, configuration and contexts work as on a
 * machine without a GPU. It implements the public driver API (but what
 * needs no driver, in pool_desc.c, built either way) and
 * driver/driver_internal.h; what only the driver's own files use
 * (driver/cuda_api.h) has no counterpart here.
 */
#include <string.h>

#include <mrctx/ipc.h>

#include "driver/driver_internal.h"

static mr_status no_driver(const char *what) {
  return mri_error(MR_ERR_NO_DRIVER,
                   "%s: this mrctx was built without CUDA support (the toolkit's "
                   "headers were not found or -Dcuda=disabled)",
                   what);
}

mr_status mr_driver_load(void) { return no_driver("loading the CUDA driver"); }

mr_status mr_driver_version(int *version) {
  if (version != NULL) *version = 0;
  return no_driver("mr_driver_version");
}

mr_status mr_device_count(int *count) {
  if (count != NULL) *count = 0;
  return no_driver("mr_device_count");
}

int mr_current_device(void) { return 0; }

mr_status mr_device_get_info(int device, mr_device_info *info) {
  return no_driver("mr_device_get_info");
}

mr_status mr_driver_pool_get_info(mr_driver_pool which, int device, mr_pool_info *info) {
  return no_driver("mr_driver_pool_get_info");
}

mr_status mr_device_get_memory(int device, uint64_t *free_bytes, uint64_t *total_bytes) {
  if (free_bytes != NULL) *free_bytes = 0;
  if (total_bytes != NULL) *total_bytes = 0;
  return no_driver("mr_device_get_memory");
}

bool mri_device_memory_if_active(int device, uint64_t *free_bytes, uint64_t *total_bytes) {
  return false;
}

mr_status mr_pool_resource_get_info(const mr_resource *mr, mr_pool_info *info) {
  return no_driver("mr_pool_resource_get_info");
}

mr_status mr_driver_pool_reset_peak(mr_driver_pool which, int device) {
  return no_driver("mr_driver_pool_reset_peak");
}

mr_status mr_pool_resource_reset_peak(const mr_resource *mr) {
  return no_driver("mr_pool_resource_reset_peak");
}

mr_status mr_driver_pool_trim(mr_driver_pool which, int device, uint64_t keep_bytes) {
  return no_driver("mr_driver_pool_trim");
}

mr_status mr_expandable_resource_create(int device, const mr_expandable_desc *desc,
                                        mr_resource **out) {
  mr_expandable_desc given;
  mr_status st = mri_expandable_desc_read(desc, out, &given);
  if (st != MR_OK) return st;
  return no_driver("expandable");
}

mr_status mr_expandable_resource_get_info(const mr_resource *mr, mr_expandable_info *info) {
  return no_driver("mr_expandable_resource_get_info");
}

mr_status mr_expandable_resource_reset_peak(const mr_resource *mr) {
  return no_driver("mr_expandable_resource_reset_peak");
}

mr_status mr_ipc_pages_export(const mr_resource *mr, const void *ptr, size_t bytes,
                              mr_ipc_pages *out, int *fds, size_t fd_capacity) {
  if (out != NULL) memset(out, 0, sizeof *out);
  return no_driver("mr_ipc_pages_export");
}

mr_status mr_ipc_pages_import(int device, const mr_ipc_pages *pages, const int *fds, void **ptr) {
  if (ptr != NULL) *ptr = NULL;
  return no_driver("mr_ipc_pages_import");
}

mr_status mr_ipc_pages_close(void *ptr) { return no_driver("mr_ipc_pages_close"); }

#define MRI_NO_DRIVER_CONSTRUCTOR_(function, spec)    \
  mr_status function(int device, mr_resource **out) { \
    if (out != NULL) *out = NULL;                     \
    return no_driver(spec);                           \
  }
MRI_NO_DRIVER_CONSTRUCTOR_(mr_device_resource_create, "device")
MRI_NO_DRIVER_CONSTRUCTOR_(mr_device_default_resource_create, "device_default")
MRI_NO_DRIVER_CONSTRUCTOR_(mr_pinned_resource_create, "pinned")
MRI_NO_DRIVER_CONSTRUCTOR_(mr_managed_resource_create, "managed")
MRI_NO_DRIVER_CONSTRUCTOR_(mr_sync_device_resource_create, "sync_device")
MRI_NO_DRIVER_CONSTRUCTOR_(mr_sync_pinned_resource_create, "sync_pinned")
MRI_NO_DRIVER_CONSTRUCTOR_(mr_sync_managed_resource_create, "sync_managed")
#undef MRI_NO_DRIVER_CONSTRUCTOR_

mr_status mri_sync_resource_create(mr_pool_kind kind, int device, const char *reason,
                                   mr_resource **out) {
  if (out != NULL) *out = NULL;
  return no_driver(kind == MR_POOL_DEVICE   ? "sync_device"
                   : kind == MR_POOL_PINNED ? "sync_pinned"
                                            : "sync_managed");
}

bool mri_pool_is_owned(const mr_resource *mr) {
  (void)mr;
  return false; /* no pool(...) resource is ever made without a driver */
}

mr_status mr_pool_resource_create(int device, const mr_pool_desc *desc, mr_resource **out) {
  mr_pool_desc given;
  mr_status st = mri_pool_desc_read(desc, out, &given);
  if (st != MR_OK) return st;
  return no_driver("pool");
}

mr_status mr_ipc_pool_export(const mr_resource *mr, int *fd, mr_ipc_pool_data *data) {
  if (fd != NULL) *fd = -1;
  return no_driver("mr_ipc_pool_export");
}

mr_status mr_ipc_pool_import(int fd, const mr_ipc_pool_data *data, mr_resource **out) {
  if (out != NULL) *out = NULL;
  return no_driver("mr_ipc_pool_import");
}

mr_status mr_ipc_ptr_export(const mr_resource *mr, const void *ptr, size_t bytes, mr_ipc_ptr *out) {
  return no_driver("mr_ipc_ptr_export");
}

mr_status mr_ipc_ptr_import(mr_resource *imported, const mr_ipc_ptr *ipc, void **ptr) {
  if (ptr != NULL) *ptr = NULL;
  return no_driver("mr_ipc_ptr_import");
}

mr_status mr_ipc_imports_live(const mr_resource *imported, size_t *live) {
  if (live != NULL) *live = 0;
  return no_driver("mr_ipc_imports_live");
}

int mri_current_device(void) { return 0; }
bool mri_driver_loaded(void) { return false; }
mr_status mri_ensure_context(int device) { return no_driver("making a context current"); }
mr_status mri_stream_get_id(mr_stream stream, int device, mri_stream_id *id) {
  *id = (mri_stream_id)(uintptr_t)stream; /* host memory only: handles will do */
  return MR_OK;
}
mr_status mri_legacy_stream_id(int device, mri_stream_id *id) {
  return mri_stream_get_id(NULL, device, id);
}
mr_status mri_stream_query(mr_stream stream, int device, mri_stream_info *info) {
  info->capturing = false;
  return mri_stream_get_id(stream, device, &info->id);
}
mr_status mri_event_create(mri_event *event) {
  *event = NULL;
  return no_driver("creating an event");
}
void mri_event_destroy(mri_event event) {}
mr_status mri_event_record(mri_event event, mr_stream stream) { return no_driver("cuEventRecord"); }
mr_status mri_event_query(mri_event event, bool *done) {
  *done = true;
  return no_driver("cuEventQuery");
}
mr_status mri_event_synchronize(mri_event event) { return no_driver("cuEventSynchronize"); }
mr_status mri_stream_synchronize(mr_stream stream) {
  /* No driver: no stream can hold work. */
  return MR_OK;
}
mr_status mri_device_synchronize(int device) { return no_driver("synchronizing a device"); }
mr_status mri_synchronize_devices(int device) { return MR_OK; }
mr_status mri_device_total_memory(int device, uint64_t *bytes) {
  *bytes = 0;
  return no_driver("reading device memory size");
}

/* No driver: no stream work to wait for, so nothing to record. */
mr_status mr_record_stream(mr_resource *mr, void *ptr, mr_stream stream) {
  (void)stream;
  if (mr == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_record_stream: resource is NULL");
  if (ptr == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_record_stream: pointer is NULL");
  return MR_OK;
}

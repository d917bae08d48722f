/*
 * ipc.c: pools shared between processes (<mrctx/ipc.h>): exporting a pool
 * made with pool(ipc=fd) and its blocks, and the resource an importing
 * process frees imported blocks through. The socket helpers, which need
 * no driver, are in ipc_socket.c.
 *
 * The driver's rules (cuMemPoolImportPointer, cuMemPoolImportFromShareable-
 * Handle), which docs/driver.md states for users: an imported pool cannot
 * allocate; imported memory is freed by each importer before the exporter
 * frees it; an importer must not read before the exporter's allocation and
 * writes are complete. What one process can see, this file enforces: the
 * imported resource refuses to allocate, refuses a block of another pool,
 * a block imported twice and a free of what is not a live import, and
 * reports the imports still live when it is destroyed.
 *
 * Records are bytes from another process, so no field is taken on trust;
 * each is checked against the driver where it can answer
 * (cuPointerGetAttribute, cuMemPoolGetAccess) and against what an exporter
 * writes where it cannot. The exporter records a size only if the block
 * [ptr, ptr + bytes) lies inside one allocation of the exported pool, from
 * its start. The importer refuses a pool record whose device is not the
 * one the driver's pool is on, and, after cuMemPoolImportPointer (which
 * maps the whole allocation), a block that is not the start of an
 * allocation of that pool on that device at least as long as the record
 * says; the mapping is undone then. Without that, a record whose size was
 * raised lets the importer read, and believe it owns, the exporter's
 * blocks that were never exported.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <mrctx/ipc.h>

#include "core/fork.h"
#include "core/ptrmap.h"
#include "driver/pool_resource.h"

#define MRI_IPC_VERSION 1u

/* ---- creating IPC pools (pool.c) ------------------------------------------ */

mr_status mri_ipc_check_device(const char *what, int device) {
  int handles = 0;
  mr_status st =
      mri_device_attribute(device, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, &handles);
  if (st != MR_OK) return mri_error_prefix(st, "%s", what);
  if (!(handles & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
    return mri_error(MR_ERR_UNSUPPORTED,
                     "%s: device %d cannot share pool memory as file descriptors (the "
                     "driver's supported handle types for pools are 0x%x)",
                     what, device, (unsigned)handles);
  return MR_OK;
}

uint64_t mri_ipc_new_pool_id(void) {
  uint64_t id = 0;
  ssize_t n;
  do {
    n = getrandom(&id, sizeof id, 0);
  } while (n < 0 && errno == EINTR);
  if (n != (ssize_t)sizeof id) {
    /* No entropy source: the process and the time tell pools apart well
     * enough for a check that only catches mistakes. */
    static _Atomic uint64_t counter;
    uint64_t x = ((uint64_t)getpid() << 32) ^ mri_monotonic_ns() ^
                 atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    id = x;
  }
  return id != 0 ? id : 1;
}

/* ---- exporting --------------------------------------------------------------- */

/* The state of an owned pool made with ipc=fd, or an error naming `what`. */
static mr_status ipc_pool(const mr_resource *mr, const char *what, mri_pool_state **out) {
  *out = NULL;
  if (mr == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "%s: resource is NULL", what);
  mri_pool_state *s = mri_pool_state_of(mr);
  if (s == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: %s is not a pool resource (export the pool(kind=device, ipc=fd) "
                     "itself, not an adaptor over it or an imported pool)",
                     what, mr_resource_describe(mr));
  if (!s->owned || s->handle_type != MR_POOL_HANDLE_FD)
    return mri_error(MR_ERR_UNSUPPORTED,
                     "%s: %s was not created to be shared between processes: create it "
                     "as pool(kind=device, ipc=fd) (mr_pool_desc.handle_type = "
                     "MR_POOL_HANDLE_FD)",
                     what, mr_resource_describe(mr));
  *out = s;
  return MR_OK;
}

static mr_status device_uuid(int device, unsigned char uuid[16]) {
  const mri_cuda_api *cu = mri_cuda();
  CUdevice dev;
  CUuuid id;
  CUresult r = cu->cuDeviceGet(&dev, device);
  if (r == CUDA_SUCCESS) r = cu->cuDeviceGetUuid(&id, dev);
  if (r != CUDA_SUCCESS) return mri_cuda_fail(r, "cuDeviceGetUuid(device %d)", device);
  memcpy(uuid, id.bytes, 16);
  return MR_OK;
}

mr_status mr_ipc_pool_export(const mr_resource *mr, int *fd, mr_ipc_pool_data *data) {
  if (fd == NULL || data == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_ipc_pool_export: %s is NULL",
                     fd == NULL ? "fd" : "data");
  *fd = -1;
  memset(data, 0, sizeof *data);
  mri_pool_state *s;
  mr_status st = ipc_pool(mr, "mr_ipc_pool_export", &s);
  if (st != MR_OK) return st;
  mr_ipc_pool_data d = {.magic = MR_IPC_MAGIC,
                        .version = MRI_IPC_VERSION,
                        .pool_id = s->ipc_id,
                        .kind = (int32_t)s->kind,
                        .exporter_device = s->device,
                        .exporter_pid = (int64_t)getpid()};
  st = device_uuid(s->device, d.device_uuid);
  /* The driver's pool calls want a context, as the runtime would make. */
  if (st == MR_OK) st = mri_ensure_context(s->device);
  if (st != MR_OK) return st;
  int handle = -1;
  CUresult r = mri_cuda()->cuMemPoolExportToShareableHandle(
      &handle, s->pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
  if (r != CUDA_SUCCESS)
    return mri_cuda_fail(r, "mr_ipc_pool_export: cuMemPoolExportToShareableHandle(%s)",
                         mr_resource_describe(mr));
  *fd = handle;
  *data = d;
  return MR_OK;
}

mr_status mr_ipc_ptr_export(const mr_resource *mr, const void *ptr, size_t bytes, mr_ipc_ptr *out) {
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_ipc_ptr_export: out is NULL");
  memset(out, 0, sizeof *out);
  mri_pool_state *s;
  mr_status st = ipc_pool(mr, "mr_ipc_ptr_export", &s);
  if (st != MR_OK) return st;
  if (ptr == NULL || bytes == 0)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_ptr_export: %s (a block of at least one byte is exported)",
                     ptr == NULL ? "ptr is NULL" : "bytes is 0");
  st = mri_ensure_context(s->device);
  if (st != MR_OK) return st;
  /* The driver's word on the block, not the caller's: the record's size
   * is what every importer will believe it may read and free. */
  const mri_cuda_api *cu = mri_cuda();
  CUdeviceptr address = (CUdeviceptr)(uintptr_t)ptr, start = 0;
  CUmemoryPool pool = NULL;
  size_t range = 0;
  int ordinal = -1;
  CUresult r = cu->cuPointerGetAttribute(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, address);
  if (r != CUDA_SUCCESS || pool != s->pool)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_ptr_export: %p was not allocated from %s (or was freed)", ptr,
                     mr_resource_describe(mr));
  r = cu->cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, address);
  if (r == CUDA_SUCCESS)
    r = cu->cuPointerGetAttribute(&range, CU_POINTER_ATTRIBUTE_RANGE_SIZE, address);
  if (r == CUDA_SUCCESS)
    r = cu->cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, address);
  if (r != CUDA_SUCCESS)
    return mri_cuda_fail(r,
                         "mr_ipc_ptr_export: cuPointerGetAttribute(%p): the range of its "
                         "allocation",
                         ptr);
  if (ordinal != s->device)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_ptr_export: %p is memory of device %d and %s is on device %d", ptr,
                     ordinal, mr_resource_describe(mr), s->device);
  if (start != address)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_ptr_export: %p (%zu bytes) is inside a block of %s, not its start: "
                     "the driver's allocation is [0x%llx, 0x%llx), %zu bytes (blocks allocated "
                     "with an alignment above 256 bytes cannot be exported)",
                     ptr, bytes, mr_resource_describe(mr), (unsigned long long)start,
                     (unsigned long long)(start + range), range);
  if (bytes > range)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_ptr_export: %p with %zu bytes runs past its block: the driver's "
                     "allocation is [0x%llx, 0x%llx), %zu bytes (export the size it was "
                     "allocated with, or less)",
                     ptr, bytes, (unsigned long long)start, (unsigned long long)(start + range),
                     range);
  CUmemPoolPtrExportData data;
  memset(&data, 0, sizeof data);
  r = cu->cuMemPoolExportPointer(&data, address);
  if (r == CUDA_ERROR_INVALID_VALUE) {
    /* Seen with driver 580 (CUDA 13.0): a pointer of a pool whose handle
     * was never exported is refused as an invalid value. Exporting the
     * pool's handle once (and closing it: the caller sends its own with
     * mr_ipc_pool_send) lets the pointer go, whatever the caller's order. */
    int handle = -1;
    if (cu->cuMemPoolExportToShareableHandle(
            &handle, s->pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) == CUDA_SUCCESS) {
      close(handle);
      r = cu->cuMemPoolExportPointer(&data, address);
    }
  }
  if (r != CUDA_SUCCESS)
    return mri_cuda_fail(r, "mr_ipc_ptr_export: cuMemPoolExportPointer(%p)", ptr);
  _Static_assert(sizeof data == sizeof out->data, "the driver's export data is 64 bytes");
  memcpy(out->data, &data, sizeof out->data);
  out->pool_id = s->ipc_id;
  out->bytes = bytes;
  out->magic = MR_IPC_MAGIC;
  out->version = MRI_IPC_VERSION;
  return MR_OK;
}

/* ---- the imported pool --------------------------------------------------------- */

typedef struct import_state {
  CUmemoryPool pool;
  int device;       /* this process's ordinal of the pool's device */
  uint64_t pool_id; /* the exporter's ID of the pool */
  int64_t exporter_pid;
  unsigned char uuid[16]; /* the device the pool's record named */
  pthread_mutex_t lock;
  mri_fork_lockable lock_fork;
  mri_ptrmap *live; /* imported block -> {bytes, raw: its 64 bytes of export data} */
  char description[96];
} import_state;

static mr_status import_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                 void **ptr) {
  import_state *s = self;
  *ptr = NULL;
  return mri_error(MR_ERR_UNSUPPORTED,
                   "%s: an imported pool cannot allocate (the driver's rule: its memory is "
                   "allocated by the exporting process, pid %lld; import its blocks with "
                   "mr_ipc_ptr_import)",
                   s->description, (long long)s->exporter_pid);
}

/* cuMemFreeAsync of an import; after the driver shut down at process exit
 * the mapping is gone already. */
static mr_status free_import(const import_state *s, void *ptr, size_t bytes, mr_stream stream) {
  const mri_cuda_api *cu = mri_cuda();
  CUresult r;
  MRI_CALL_ON_STREAM(stream, s->device, r,
                     cu->cuMemFreeAsync((CUdeviceptr)(uintptr_t)ptr, (CUstream)stream));
  if (r == CUDA_SUCCESS || r == CUDA_ERROR_DEINITIALIZED) return MR_OK;
  return mri_cuda_fail(r, "%s: cuMemFreeAsync(imported %p, %zu bytes, stream %p)", s->description,
                       ptr, bytes, (void *)stream);
}

static mr_status import_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                   mr_stream stream) {
  import_state *s = self;
  mri_ptrmap_value value;
  pthread_mutex_lock(&s->lock);
  bool found = mri_ptrmap_take(s->live, ptr, &value);
  if (found && value.bytes != bytes) {
    mr_status st = mri_ptrmap_put(s->live, ptr, value);
    pthread_mutex_unlock(&s->lock);
    if (st != MR_OK) return st;
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: freeing the import at %p with %zu bytes; it was imported with "
                     "%zu (mr_ipc_ptr.bytes)",
                     s->description, ptr, bytes, value.bytes);
  }
  pthread_mutex_unlock(&s->lock);
  if (!found)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: %p is not a live import of this pool (freed already, or imported "
                     "into another resource)",
                     s->description, ptr);
  mr_status st = free_import(s, ptr, bytes, stream);
  if (st != MR_OK) {
    pthread_mutex_lock(&s->lock);
    mr_status put = mri_ptrmap_put(s->live, ptr, value);
    pthread_mutex_unlock(&s->lock);
    if (put != MR_OK) free(value.raw);
    return st;
  }
  free(value.raw);
  return MR_OK;
}

static mr_status import_synchronize(void *self, mr_stream stream) {
  return mri_stream_synchronize(stream);
}

typedef struct leak_report {
  const import_state *s;
  size_t shown, total_bytes;
} leak_report;

static void report_one(void *user, const void *key, const mri_ptrmap_value *value) {
  leak_report *r = user;
  r->total_bytes += value->bytes;
  if (r->shown++ < 16) fprintf(stderr, "mrctx: leak:   %p  %zu bytes\n", key, value->bytes);
}

static void free_record(void *user, const void *key, const mri_ptrmap_value *value) {
  free(value->raw);
}

static void import_destroy(void *self) {
  import_state *s = self;
  size_t live = mri_ptrmap_count(s->live);
  if (live != 0) {
    /* As track(...) reports what was never freed. The driver keeps the
     * blocks mapped (and the exporter's memory held) until this process
     * frees them or exits. */
    fprintf(stderr, "mrctx: leak: %s: %zu imported block%s never freed:\n", s->description, live,
            live == 1 ? "" : "s");
    leak_report r = {.s = s};
    mri_ptrmap_foreach(s->live, report_one, &r);
    if (r.shown > 16) fprintf(stderr, "mrctx: leak:   ... and %zu more\n", r.shown - 16);
    fprintf(stderr, "mrctx: leak: %s: %zu bytes in all\n", s->description, r.total_bytes);
    fflush(stderr);
  }
  mri_ptrmap_foreach(s->live, free_record, NULL);
  mri_ptrmap_destroy(s->live);
  /* The driver lets the pool go once its last import is freed. */
  const mri_cuda_api *cu = mri_cuda();
  if (cu != NULL) cu->cuMemPoolDestroy(s->pool);
  mri_fork_unregister(&s->lock_fork);
  pthread_mutex_destroy(&s->lock);
  free(s);
}

static const mr_resource_ops import_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "ipc_import",
    .allocate = import_allocate,
    .deallocate = import_deallocate,
    .synchronize = import_synchronize,
    .destroy = import_destroy,
};

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi -L writes it. */
typedef struct uuid_text {
  char text[48];
} uuid_text;

static uuid_text format_uuid(const unsigned char uuid[16]) {
  uuid_text t;
  int n = snprintf(t.text, sizeof t.text, "GPU-");
  for (int i = 0; i < 16; i++)
    n += snprintf(t.text + n, sizeof t.text - (size_t)n, "%s%02x",
                  i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", uuid[i]);
  return t;
}

/* A device's UUID as text, or "(UUID unknown)" where the driver fails. */
static uuid_text device_uuid_text(int device) {
  unsigned char uuid[16];
  if (device_uuid(device, uuid) == MR_OK) return format_uuid(uuid);
  uuid_text t;
  snprintf(t.text, sizeof t.text, "(UUID unknown)");
  return t;
}

/* This process's ordinal of the device with `uuid`. */
static mr_status device_with_uuid(const unsigned char uuid[16], int *device) {
  const mri_cuda_api *cu = mri_cuda();
  for (int d = 0; d < cu->device_count; d++) {
    unsigned char mine[16];
    mr_status st = device_uuid(d, mine);
    if (st != MR_OK) return st;
    if (memcmp(mine, uuid, 16) == 0) {
      *device = d;
      return MR_OK;
    }
  }
  return mri_error(MR_ERR_NO_DEVICE,
                   "mr_ipc_pool_import: the pool's device (%s) is not one of the %d "
                   "this process sees (is CUDA_VISIBLE_DEVICES narrower here?)",
                   format_uuid(uuid).text, cu->device_count);
}

/* Whether an imported pool lives on `device`, the one its record names.
 * The driver gives a pool's own device read-write access, always, and an
 * imported pool no other device's until this process grants it (an import
 * does not inherit the exporter's grants): a pool that `device` cannot
 * reach while another device can is that other device's, and the record
 * lies. Where no device reports access, nothing is known here, and the
 * device each imported block is memory of is checked instead
 * (mr_ipc_ptr_import). */
static mr_status check_pool_device(CUmemoryPool pool, int device,
                                   const unsigned char record_uuid[16]) {
  const mri_cuda_api *cu = mri_cuda();
  int resident = -1;
  for (int d = 0; d < cu->device_count; d++) {
    CUmemLocation where = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = d};
    CUmemAccess_flags flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    CUresult r = cu->cuMemPoolGetAccess(&flags, pool, &where);
    if (r != CUDA_SUCCESS)
      return mri_cuda_fail(r, "mr_ipc_pool_import: cuMemPoolGetAccess(imported pool, device %d)",
                           d);
    if (flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) continue;
    if (d == device) return MR_OK;
    if (resident < 0) resident = d;
  }
  if (resident < 0) return MR_OK;
  return mri_error(MR_ERR_INVALID_ARGUMENT,
                   "mr_ipc_pool_import: the record names the pool's device as %s (device %d "
                   "here), but the driver's pool is on device %d (%s): the record does not "
                   "belong to this descriptor, or was altered",
                   format_uuid(record_uuid).text, device, resident,
                   device_uuid_text(resident).text);
}

/* The device this process uses the memory from needs read-write access
 * to the imported pool (the driver's sample grants it where missing). */
static mr_status grant_access(CUmemoryPool pool, int device) {
  const mri_cuda_api *cu = mri_cuda();
  CUmemLocation where = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = device};
  CUmemAccess_flags flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
  CUresult r = cu->cuMemPoolGetAccess(&flags, pool, &where);
  if (r == CUDA_SUCCESS && flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) {
    CUmemAccessDesc access = {.location = where, .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    r = cu->cuMemPoolSetAccess(pool, &access, 1);
  }
  if (r != CUDA_SUCCESS)
    return mri_cuda_fail(r, "mr_ipc_pool_import: granting device %d access to the imported pool",
                         device);
  return MR_OK;
}

static mr_status check_record(uint32_t magic, uint32_t version, const char *what) {
  if (magic != MR_IPC_MAGIC)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: not an mrctx IPC record (magic 0x%08x): the bytes were not made by "
                     "mr_ipc_pool_export / mr_ipc_ptr_export, or were damaged in transit",
                     what, (unsigned)magic);
  if (version != MRI_IPC_VERSION)
    return mri_error(MR_ERR_UNSUPPORTED,
                     "%s: IPC record version %u; this mrctx (%s) reads version %u", what,
                     (unsigned)version, mr_version(), MRI_IPC_VERSION);
  return MR_OK;
}

static bool all_zero(const unsigned char *bytes, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (bytes[i] != 0) return false;
  return true;
}

mr_status mr_ipc_pool_import(int fd, const mr_ipc_pool_data *data, mr_resource **out) {
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_ipc_pool_import: out is NULL");
  *out = NULL;
  if (data == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_ipc_pool_import: data is NULL");
  if (fd < 0)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_ipc_pool_import: fd %d is not a file descriptor",
                     fd);
  mr_status st = check_record(data->magic, data->version, "mr_ipc_pool_import");
  if (st != MR_OK) return st;
  if (data->kind != MR_POOL_DEVICE)
    return mri_error(MR_ERR_UNSUPPORTED,
                     "mr_ipc_pool_import: a %s pool (kind %d) cannot be shared between processes",
                     mr_pool_kind_name((mr_pool_kind)data->kind), (int)data->kind);
  /* Fields no exporter writes: a record damaged or made by hand. */
  if (data->pool_id == 0 || data->exporter_pid <= 0 || data->exporter_device < 0 ||
      !all_zero(data->reserved, sizeof data->reserved))
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_pool_import: the record cannot come from mr_ipc_pool_export "
                     "(pool ID %016llx, exporter pid %lld, exporter device %d, reserved bytes "
                     "%s): it was damaged in transit or made by hand",
                     (unsigned long long)data->pool_id, (long long)data->exporter_pid,
                     (int)data->exporter_device,
                     all_zero(data->reserved, sizeof data->reserved) ? "zero" : "not zero");
  const mri_cuda_api *cu;
  st = mri_cuda_load(&cu);
  if (st != MR_OK) return mri_error_prefix(st, "mr_ipc_pool_import");
  int device = -1;
  st = device_with_uuid(data->device_uuid, &device);
  if (st == MR_OK) st = mri_ensure_context(device);
  if (st != MR_OK) return st;

  import_state *s = mri_calloc(1, sizeof *s);
  if (s == NULL) return MR_ERR_OUT_OF_MEMORY;
  s->device = device;
  s->pool_id = data->pool_id;
  s->exporter_pid = data->exporter_pid;
  memcpy(s->uuid, data->device_uuid, sizeof s->uuid);
  snprintf(s->description, sizeof s->description, "ipc_import(device=%d, pid=%lld)", device,
           (long long)data->exporter_pid);
  s->live = mri_ptrmap_create();
  if (s->live == NULL) {
    free(s);
    return mri_error(MR_ERR_OUT_OF_MEMORY, "mr_ipc_pool_import: out of host memory");
  }
  CUresult r = cu->cuMemPoolImportFromShareableHandle(&s->pool, (void *)(uintptr_t)fd,
                                                      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
  if (r != CUDA_SUCCESS) {
    mri_ptrmap_destroy(s->live);
    free(s);
    return mri_cuda_fail(r, "mr_ipc_pool_import: cuMemPoolImportFromShareableHandle(fd %d)", fd);
  }
  st = check_pool_device(s->pool, device, data->device_uuid);
  if (st == MR_OK) st = grant_access(s->pool, device);
  if (st == MR_OK) {
    pthread_mutex_init(&s->lock, NULL);
    mri_fork_register_mutex(&s->lock_fork, &s->lock, MRI_FORK_RANK_RESOURCE);
    mr_resource_props props =
        mri_memory_kind_props(MR_MEMORY_DEVICE, device, true, MR_DEFAULT_ALIGNMENT);
    st = mri_resource_create(&import_ops, s, &props, NULL, s->description, out);
    if (st == MR_OK) return MR_OK;
    mri_fork_unregister(&s->lock_fork);
    pthread_mutex_destroy(&s->lock);
  }
  cu->cuMemPoolDestroy(s->pool);
  mri_ptrmap_destroy(s->live);
  free(s);
  return st;
}

static mr_status import_state_of(const mr_resource *mr, const char *what, import_state **out) {
  *out = mr != NULL ? mr_resource_state(mr, &import_ops) : NULL;
  if (*out == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: %s is not an imported pool (mr_ipc_pool_import makes one)", what,
                     mr != NULL ? mr_resource_describe(mr) : "NULL");
  return MR_OK;
}

typedef struct find_data {
  const unsigned char *data;
  const void *found;
} find_data;

static void find_same(void *user, const void *key, const mri_ptrmap_value *value) {
  find_data *f = user;
  if (f->found == NULL && memcmp(value->raw, f->data, 64) == 0) f->found = key;
}

/* What the driver mapped at `dptr` (from this imported pool, as asked)
 * must be what the record promises: the start of one allocation, on the
 * pool's device, at least ipc->bytes long (the importer reads, and frees, that many). Otherwise
 * the mapping is undone and the record refused: a record whose size was
 * raised would let the importer read the exporter's other blocks. */
static mr_status check_import(const import_state *s, const mr_ipc_ptr *ipc, CUdeviceptr dptr) {
  const mri_cuda_api *cu = mri_cuda();
  CUdeviceptr start = 0;
  size_t range = 0;
  int ordinal = -1;
  CUresult r = cu->cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, dptr);
  if (r == CUDA_SUCCESS)
    r = cu->cuPointerGetAttribute(&range, CU_POINTER_ATTRIBUTE_RANGE_SIZE, dptr);
  if (r == CUDA_SUCCESS)
    r = cu->cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, dptr);
  mr_status st = MR_OK;
  if (r != CUDA_SUCCESS) {
    st = mri_cuda_fail(r,
                       "mr_ipc_ptr_import: cuPointerGetAttribute(imported 0x%llx): the range "
                       "of its allocation",
                       (unsigned long long)dptr);
    start = 0;
  } else if (ordinal != s->device) {
    st = mri_error(MR_ERR_INVALID_ARGUMENT,
                   "mr_ipc_ptr_import: the block is memory of device %d (%s), but its pool's "
                   "record named %s (device %d here): the pool record was altered",
                   ordinal, device_uuid_text(ordinal).text, format_uuid(s->uuid).text, s->device);
  } else if (start != dptr) {
    st = mri_error(MR_ERR_INVALID_ARGUMENT,
                   "mr_ipc_ptr_import: the record's export data names 0x%llx, inside the "
                   "allocation [0x%llx, 0x%llx) and not its start: it was damaged or made "
                   "by hand",
                   (unsigned long long)dptr, (unsigned long long)start,
                   (unsigned long long)(start + range));
  } else if (ipc->bytes > range) {
    st = mri_error(MR_ERR_INVALID_ARGUMENT,
                   "mr_ipc_ptr_import: the record says %llu bytes, but the block the driver "
                   "mapped is %zu bytes ([0x%llx, 0x%llx)): a record larger than its block "
                   "is refused (it was altered, or exported with a wrong size)",
                   (unsigned long long)ipc->bytes, range, (unsigned long long)start,
                   (unsigned long long)(start + range));
  }
  /* The driver mapped the allocation whatever address it returned; undo
   * it (cuMemFree takes imported memory, as the driver documents). */
  if (st != MR_OK) cu->cuMemFree(start != 0 ? start : dptr);
  return st;
}

mr_status mr_ipc_ptr_import(mr_resource *imported, const mr_ipc_ptr *ipc, void **ptr) {
  if (ptr == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_ipc_ptr_import: ptr is NULL");
  *ptr = NULL;
  import_state *s;
  mr_status st = import_state_of(imported, "mr_ipc_ptr_import", &s);
  if (st != MR_OK) return st;
  if (ipc == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_ipc_ptr_import: ipc is NULL");
  st = check_record(ipc->magic, ipc->version, "mr_ipc_ptr_import");
  if (st != MR_OK) return st;
  if (ipc->pool_id != s->pool_id)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_ptr_import: the block belongs to pool %016llx and %s is pool "
                     "%016llx: import it into the resource its own pool was imported as",
                     (unsigned long long)ipc->pool_id, s->description,
                     (unsigned long long)s->pool_id);
  if (ipc->bytes == 0 || ipc->bytes > SIZE_MAX || ipc->bytes > PTRDIFF_MAX ||
      !all_zero(ipc->reserved, sizeof ipc->reserved))
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_ptr_import: the record cannot come from mr_ipc_ptr_export (size "
                     "%llu, reserved bytes %s): it was damaged in transit or made by hand",
                     (unsigned long long)ipc->bytes,
                     all_zero(ipc->reserved, sizeof ipc->reserved) ? "zero" : "not zero");
  st = mri_ensure_context(s->device);
  if (st != MR_OK) return st;
  unsigned char *record = mri_host_malloc(sizeof ipc->data);
  if (record == NULL)
    return mri_error(MR_ERR_OUT_OF_MEMORY, "mr_ipc_ptr_import: out of host memory");
  memcpy(record, ipc->data, sizeof ipc->data);

  /* Checked and recorded under the lock, so that two threads cannot both
   * import the same block. */
  pthread_mutex_lock(&s->lock);
  find_data same = {.data = record};
  mri_ptrmap_foreach(s->live, find_same, &same);
  if (same.found != NULL) {
    pthread_mutex_unlock(&s->lock);
    free(record);
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_ipc_ptr_import: this block is imported already, at %p, and not yet "
                     "freed: use that pointer (each block is imported once per process)",
                     same.found);
  }
  CUmemPoolPtrExportData data;
  memcpy(&data, record, sizeof data);
  CUdeviceptr dptr = 0;
  CUresult r = mri_cuda()->cuMemPoolImportPointer(&dptr, s->pool, &data);
  if (r != CUDA_SUCCESS) {
    pthread_mutex_unlock(&s->lock);
    free(record);
    return mri_cuda_fail(r, "mr_ipc_ptr_import: cuMemPoolImportPointer(%s)", s->description);
  }
  st = check_import(s, ipc, dptr);
  if (st != MR_OK) {
    pthread_mutex_unlock(&s->lock);
    free(record);
    return st;
  }
  mri_ptrmap_value value = {.bytes = (size_t)ipc->bytes, .alignment = MR_DEFAULT_ALIGNMENT};
  value.raw = record;
  st = mri_ptrmap_put(s->live, (void *)(uintptr_t)dptr, value);
  pthread_mutex_unlock(&s->lock);
  if (st != MR_OK) {
    mri_cuda()->cuMemFree(dptr);
    free(record);
    return mri_error(MR_ERR_OUT_OF_MEMORY, "mr_ipc_ptr_import: out of host memory");
  }
  *ptr = (void *)(uintptr_t)dptr;
  return MR_OK;
}

mr_status mr_ipc_imports_live(const mr_resource *imported, size_t *live) {
  if (live == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_ipc_imports_live: live is NULL");
  *live = 0;
  import_state *s;
  mr_status st = import_state_of(imported, "mr_ipc_imports_live", &s);
  if (st != MR_OK) return st;
  pthread_mutex_lock(&s->lock);
  *live = mri_ptrmap_count(s->live);
  pthread_mutex_unlock(&s->lock);
  return MR_OK;
}

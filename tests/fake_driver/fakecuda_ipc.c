/*
 * fakecuda_ipc.c: the fake CUDA driver's pools shared between processes,
 * and device UUIDs (which tell an importer which device a pool is on).
 *
 * Two real processes share bytes: a pool created with handle type
 * CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR carves its allocations from a
 * memfd (MAP_SHARED, mapped whole); exporting the pool hands out a
 * duplicate of the memfd, importing it maps the memfd in the importer;
 * a pointer's export data carries the pool's ID and the allocation's
 * offset, and importing it is the importer's base plus the offset. The
 * memfd's first MiB names the pool (its ID and device) and lists every
 * allocation carved from it (offset and size), so an importer knows what
 * it imported. As the real driver does, it refuses to export a pool
 * without handle types or a pointer of such a pool, to allocate from an
 * imported pool, and to import a pointer into another pool than its own;
 * and importing a pointer maps the whole allocation the exporter made,
 * whatever size the caller believes it has (cuPointerGetAttribute's
 * RANGE_SIZE of the import tells it). Export data whose offset falls
 * inside an allocation rather than at its start maps that allocation and
 * returns the address the data names, as a driver that trusted the bytes
 * would: the library's own check of the range is what refuses it.
 *
 * Exporter's memory is carved at increasing offsets and never reused (the
 * memfd is sparse: only touched pages cost memory), which is enough for
 * tests. What the fake cannot see, it does not check: an exporter freeing
 * a block before its importers did.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakecuda_internal.h"

#define FAKE_IPC_MAGIC 0x4350496b616646ull /* "FakeIPC" */
#define FAKE_IPC_SPAN ((size_t)1 << 30)    /* each shared pool's address range */
#define FAKE_IPC_HEADER ((size_t)1 << 20)  /* the first MiB: fake_ipc_header and its table */

/* One allocation carved from a shared pool, as every process sees it. */
typedef struct fake_ipc_block {
  unsigned long long offset, bytes;
} fake_ipc_block;

typedef struct fake_ipc_header {
  unsigned long long magic;
  unsigned long long pool_id;
  int device;
  unsigned blocks; /* entries of `table` written (the exporter appends; atomic) */
  fake_ipc_block table[];
} fake_ipc_header;

#define FAKE_IPC_MAX_BLOCKS ((FAKE_IPC_HEADER - sizeof(fake_ipc_header)) / sizeof(fake_ipc_block))

/* What CUmemPoolPtrExportData holds in the fake (64 bytes in all). The
 * size is not in it: an import maps what the table says. */
typedef struct fake_ipc_export {
  unsigned long long magic;
  unsigned long long pool_id;
  unsigned long long offset;
} fake_ipc_export;

_Static_assert(sizeof(fake_ipc_export) <= sizeof(CUmemPoolPtrExportData),
               "the fake's export data fits the driver's");

static CUresult map_pool(struct CUmemPoolHandle_st *p, int fd) {
  void *base = mmap(NULL, FAKE_IPC_SPAN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  p->ipc_fd = fd;
  p->ipc_base = base;
  p->ipc_span = FAKE_IPC_SPAN;
  return CUDA_SUCCESS;
}

CUresult ipc_pool_init(struct CUmemPoolHandle_st *p, CUmemAllocationHandleType handle_types) {
  if (handle_types != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_NOT_SUPPORTED;
  int device = p->location.id;
  if (!(devices[device].attributes[CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES] &
        handle_types))
    return CUDA_ERROR_NOT_SUPPORTED;
  int fd = memfd_create("fakecuda-ipc-pool", MFD_CLOEXEC);
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  if (ftruncate(fd, (off_t)FAKE_IPC_SPAN) != 0 || map_pool(p, fd) != CUDA_SUCCESS) {
    close(fd);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  unsigned long long id = 0;
  if (getrandom(&id, sizeof id, 0) != (ssize_t)sizeof id) id = (unsigned long long)getpid();
  fake_ipc_header header = {.magic = FAKE_IPC_MAGIC, .pool_id = id, .device = device};
  memcpy(p->ipc_base, &header, sizeof header);
  p->ipc_id = id;
  p->ipc_next = FAKE_IPC_HEADER;
  return CUDA_SUCCESS;
}

void ipc_pool_release(struct CUmemPoolHandle_st *p) {
  if (p->ipc_fd < 0) return;
  munmap(p->ipc_base, p->ipc_span);
  close(p->ipc_fd);
  p->ipc_fd = -1;
  p->ipc_base = NULL;
}

/* The table entry is written before the count that publishes it: an
 * importer in another process reads the count first. */
CUresult ipc_pool_carve(struct CUmemPoolHandle_st *p, size_t bytes, void **out) {
  fake_ipc_header *h = (fake_ipc_header *)p->ipc_base;
  unsigned n = __atomic_load_n(&h->blocks, __ATOMIC_RELAXED);
  size_t offset = p->ipc_next;
  size_t rounded = (bytes + 255) & ~(size_t)255;
  if (n >= FAKE_IPC_MAX_BLOCKS || rounded < bytes || rounded > p->ipc_span - offset)
    return CUDA_ERROR_OUT_OF_MEMORY;
  h->table[n] = (fake_ipc_block){.offset = offset, .bytes = bytes};
  __atomic_store_n(&h->blocks, n + 1, __ATOMIC_RELEASE);
  p->ipc_next = offset + rounded;
  *out = p->ipc_base + offset;
  return CUDA_SUCCESS;
}

/* The allocation whose bytes include `offset` (offsets increase along the
 * table), or NULL. */
static const fake_ipc_block *ipc_block_containing(const struct CUmemPoolHandle_st *p,
                                                  unsigned long long offset) {
  const fake_ipc_header *h = (const fake_ipc_header *)p->ipc_base;
  unsigned n = __atomic_load_n(&h->blocks, __ATOMIC_ACQUIRE);
  if (n > FAKE_IPC_MAX_BLOCKS) return NULL;
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (h->table[mid].offset <= offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) return NULL;
  const fake_ipc_block *b = &h->table[lo - 1];
  return offset - b->offset < b->bytes ? b : NULL;
}

/* ---- pools ------------------------------------------------------------------ */

static CUresult do_export_pool(void *handle_out, CUmemoryPool pool, CUmemAllocationHandleType type,
                               unsigned long long flags) {
  struct CUmemPoolHandle_st *p = find_pool(pool);
  if (handle_out == NULL || p == NULL || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  /* A pool made without that handle type cannot be exported as one. */
  if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || p->ipc_fd < 0 || p->imported)
    return CUDA_ERROR_INVALID_VALUE;
  int fd = fcntl(p->ipc_fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  p->handle_exported = true;
  memcpy(handle_out, &fd, sizeof fd);
  return CUDA_SUCCESS;
}

CUresult fake_cuMemPoolExportToShareableHandle(void *handle_out, CUmemoryPool pool,
                                               CUmemAllocationHandleType type,
                                               unsigned long long flags) {
  FAKE_CALL(cuMemPoolExportToShareableHandle, NEEDS_INIT,
            do_export_pool(handle_out, pool, type, flags));
}

/* The descriptor stays the caller's: the pool keeps a duplicate. */
static CUresult do_import_pool(CUmemoryPool *pool_out, void *handle, CUmemAllocationHandleType type,
                               unsigned long long flags) {
  if (pool_out == NULL || flags != 0 || type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return CUDA_ERROR_INVALID_VALUE;
  int given = (int)(intptr_t)handle;
  struct stat st;
  if (given < 0 || fstat(given, &st) != 0 || (size_t)st.st_size < FAKE_IPC_SPAN)
    return CUDA_ERROR_INVALID_VALUE;
  int fd = fcntl(given, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  struct CUmemPoolHandle_st *p = malloc(sizeof *p);
  if (p == NULL) {
    close(fd);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  fake_ipc_header header;
  CUresult r = map_pool(p, fd);
  if (r != CUDA_SUCCESS) {
    close(fd);
    free(p);
    return r;
  }
  memcpy(&header, p->ipc_base, sizeof header);
  if (header.magic != FAKE_IPC_MAGIC || !valid_device(header.device)) {
    munmap(p->ipc_base, p->ipc_span);
    close(fd);
    free(p);
    return CUDA_ERROR_INVALID_VALUE;
  }
  unsigned char *base = p->ipc_base;
  size_t span = p->ipc_span;
  CUmemLocation where = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = header.device};
  pool_init(p, where, CU_MEM_ALLOCATION_TYPE_PINNED, false);
  p->ipc_fd = fd;
  p->ipc_base = base;
  p->ipc_span = span;
  p->ipc_id = header.pool_id;
  p->imported = true;
  p->next = pools;
  pools = p;
  *pool_out = p;
  return CUDA_SUCCESS;
}

CUresult fake_cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out, void *handle,
                                                 CUmemAllocationHandleType type,
                                                 unsigned long long flags) {
  FAKE_CALL(cuMemPoolImportFromShareableHandle, NEEDS_INIT,
            do_import_pool(pool_out, handle, type, flags));
}

/* ---- pointers ------------------------------------------------------------------ */

static CUresult do_export_pointer(CUmemPoolPtrExportData *data, CUdeviceptr ptr) {
  if (data == NULL) return CUDA_ERROR_INVALID_VALUE;
  const fake_alloc *a = find_alloc((const void *)(uintptr_t)ptr);
  if (a == NULL || a->kind != ALLOC_POOL) return CUDA_ERROR_INVALID_VALUE;
  const struct CUmemPoolHandle_st *p = a->pool;
  /* As driver 580 on the GPU: refused until the pool's handle was exported. */
  if (p->ipc_fd < 0 || p->imported || !p->handle_exported) return CUDA_ERROR_INVALID_VALUE;
  fake_ipc_export e = {.magic = FAKE_IPC_MAGIC,
                       .pool_id = p->ipc_id,
                       .offset = (unsigned long long)((unsigned char *)a->ptr - p->ipc_base)};
  memset(data, 0, sizeof *data);
  memcpy(data, &e, sizeof e);
  return CUDA_SUCCESS;
}

CUresult fake_cuMemPoolExportPointer(CUmemPoolPtrExportData *data, CUdeviceptr ptr) {
  FAKE_CALL(cuMemPoolExportPointer, NEEDS_INIT, do_export_pointer(data, ptr));
}

static CUresult do_import_pointer(CUdeviceptr *ptr_out, CUmemoryPool pool,
                                  CUmemPoolPtrExportData *data) {
  struct CUmemPoolHandle_st *p = find_pool(pool);
  if (ptr_out == NULL || data == NULL || p == NULL || !p->imported) return CUDA_ERROR_INVALID_VALUE;
  fake_ipc_export e;
  memcpy(&e, data, sizeof e);
  /* Another pool's pointer, or bytes that are no export data. */
  if (e.magic != FAKE_IPC_MAGIC || e.pool_id != p->ipc_id || e.offset < FAKE_IPC_HEADER ||
      e.offset >= p->ipc_span)
    return CUDA_ERROR_INVALID_VALUE;
  /* The whole allocation is mapped, whatever the caller thinks its size. */
  const fake_ipc_block *b = ipc_block_containing(p, e.offset);
  if (b == NULL || b->bytes == 0 || b->bytes > p->ipc_span - b->offset)
    return CUDA_ERROR_INVALID_VALUE;
  CUresult r = new_alloc_at(p->ipc_base + b->offset, (size_t)b->bytes, pool_device(p), p);
  if (r != CUDA_SUCCESS) return r;
  p->used += b->bytes;
  if (p->used > p->used_high) p->used_high = p->used;
  p->live_allocations++;
  *ptr_out = (CUdeviceptr)(uintptr_t)(p->ipc_base + e.offset);
  return CUDA_SUCCESS;
}

CUresult fake_cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool,
                                     CUmemPoolPtrExportData *data) {
  FAKE_CALL(cuMemPoolImportPointer, NEEDS_INIT, do_import_pointer(ptr_out, pool, data));
}

/* ---- device UUIDs ----------------------------------------------------------------- */

/* The same in every process: "fakecuda-dev" and the ordinal. */
static CUresult do_device_get_uuid(CUuuid *uuid, CUdevice dev) {
  if (uuid == NULL) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(dev)) return CUDA_ERROR_INVALID_DEVICE;
  memset(uuid, 0, sizeof *uuid);
  memcpy(uuid->bytes, "fakecuda-dev", 12);
  uuid->bytes[15] = (char)dev;
  return CUDA_SUCCESS;
}

CUresult fake_cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) {
  FAKE_CALL(cuDeviceGetUuid, NEEDS_INIT, do_device_get_uuid(uuid, dev));
}

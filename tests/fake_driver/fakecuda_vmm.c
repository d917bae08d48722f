/*
 * fakecuda_vmm.c: the fake CUDA driver's virtual memory management
 * (cuMemAddressReserve, cuMemCreate, cuMemMap, cuMemSetAccess, ...), over
 * real host address space, so that what the library maps is memory a test
 * can read and write, and what it forgets to map or grant faults.
 *
 *  - A reserved range is an anonymous PROT_NONE mapping (MAP_NORESERVE:
 *    reserving 16 GiB costs nothing); the device pointer is its address.
 *  - Physical memory (cuMemCreate) is a memfd of the handle's size, charged
 *    to its device at creation (so it counts against
 *    fake_cuda_set_total_memory, with pools and cuMemAlloc) and uncharged
 *    once the handle is released and no mapping uses it, as on the driver.
 *    Its last page (past the size) names it: a magic and the device, which
 *    an import reads back.
 *  - cuMemMap maps the memfd over the reservation PROT_NONE; cuMemSetAccess
 *    makes it readable and writable (any device granted PROT_READWRITE),
 *    so a library that maps but never grants access faults, as a kernel
 *    would. cuMemUnmap puts the reservation's PROT_NONE back. Mapping and
 *    unmapping take whole pages of the granularity (2 MiB), unmapping only
 *    whole mappings; freeing a range that still has mappings is refused.
 *  - A handle created with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR is
 *    exported as a duplicate of its memfd; importing the descriptor makes
 *    a handle over the same memfd in any process (nothing is charged
 *    there: the memory is the exporter's), so two processes share bytes.
 *
 * Tests read the books (fake_cuda_vmm_*): reserved bytes, mapped bytes,
 * live handles and their bytes. memset and copies accept mapped ranges
 * with access.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakecuda_internal.h"

#define FAKE_VMM_MAGIC 0x4d4d566b616646ull /* "FakeVMM" */
#define FAKE_VMM_TRAILER ((size_t)4096)

typedef struct fake_phys {
  int fd;
  size_t size;
  int device;
  bool imported;   /* another process's memory: not charged here */
  bool exportable; /* created with POSIX_FILE_DESCRIPTOR */
  bool released;   /* cuMemRelease called; goes once unmapped */
  long maps;
  struct fake_phys *next;
} fake_phys;

typedef struct fake_reservation {
  uintptr_t base;
  size_t size;
  struct fake_reservation *next;
} fake_reservation;

typedef struct fake_mapping {
  uintptr_t ptr;
  size_t size;
  fake_phys *phys;
  bool access;
  struct fake_mapping *next;
} fake_mapping;

static fake_phys *physicals;
static fake_reservation *reservations;
static fake_mapping *mappings;

typedef struct fake_vmm_trailer {
  unsigned long long magic;
  unsigned long long size;
  int device;
} fake_vmm_trailer;

static fake_phys *find_phys(CUmemGenericAllocationHandle handle) {
  for (fake_phys *p = physicals; p != NULL; p = p->next)
    if ((CUmemGenericAllocationHandle)(uintptr_t)p == handle && !p->released) return p;
  return NULL;
}

static void phys_free_if_unused(fake_phys *p) {
  if (!p->released || p->maps > 0) return;
  for (fake_phys **link = &physicals; *link != NULL; link = &(*link)->next)
    if (*link == p) {
      *link = p->next;
      break;
    }
  if (!p->imported) uncharge(p->device, p->size);
  close(p->fd);
  free(p);
}

static bool granular(size_t x) { return x % FAKE_VMM_GRANULARITY == 0; }

static bool valid_prop(const CUmemAllocationProp *prop) {
  return prop != NULL && prop->type == CU_MEM_ALLOCATION_TYPE_PINNED &&
         prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE && valid_device(prop->location.id);
}

/* ---- granularity, reservations ---------------------------------------------- */

static CUresult do_granularity(size_t *granularity, const CUmemAllocationProp *prop,
                               CUmemAllocationGranularity_flags option) {
  if (granularity == NULL || !valid_prop(prop)) return CUDA_ERROR_INVALID_VALUE;
  if (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
    return CUDA_ERROR_INVALID_VALUE;
  if (!devices[prop->location.id]
           .attributes[CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED])
    return CUDA_ERROR_NOT_SUPPORTED;
  *granularity = FAKE_VMM_GRANULARITY;
  return CUDA_SUCCESS;
}

CUresult fake_cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                            CUmemAllocationGranularity_flags option) {
  FAKE_CALL(cuMemGetAllocationGranularity, NEEDS_INIT, do_granularity(granularity, prop, option));
}

static CUresult do_address_reserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                   CUdeviceptr addr, unsigned long long flags) {
  (void)addr; /* a hint the driver may ignore; the fake does */
  if (ptr == NULL || size == 0 || !granular(size) || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (alignment != 0 && (alignment & (alignment - 1)) != 0) return CUDA_ERROR_INVALID_VALUE;
  if (alignment < FAKE_VMM_GRANULARITY) alignment = FAKE_VMM_GRANULARITY;
  size_t span;
  if (__builtin_add_overflow(size, alignment, &span)) return CUDA_ERROR_OUT_OF_MEMORY;
  fake_reservation *res = malloc(sizeof *res);
  if (res == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
  void *raw = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) {
    free(res);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  uintptr_t base = ((uintptr_t)raw + alignment - 1) & ~(uintptr_t)(alignment - 1);
  if (base > (uintptr_t)raw) munmap(raw, base - (uintptr_t)raw);
  size_t tail = (uintptr_t)raw + span - (base + size);
  if (tail > 0) munmap((void *)(base + size), tail);
  *res = (fake_reservation){.base = base, .size = size, .next = reservations};
  reservations = res;
  *ptr = (CUdeviceptr)base;
  return CUDA_SUCCESS;
}

CUresult fake_cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
                                  unsigned long long flags) {
  FAKE_CALL(cuMemAddressReserve, NEEDS_INIT, do_address_reserve(ptr, size, alignment, addr, flags));
}

static fake_reservation *reservation_holding(uintptr_t ptr, size_t size) {
  for (fake_reservation *r = reservations; r != NULL; r = r->next)
    if (ptr >= r->base && ptr - r->base <= r->size && size <= r->size - (ptr - r->base)) return r;
  return NULL;
}

static bool any_mapping_in(uintptr_t ptr, size_t size) {
  for (const fake_mapping *m = mappings; m != NULL; m = m->next)
    if (m->ptr < ptr + size && ptr < m->ptr + m->size) return true;
  return false;
}

static CUresult do_address_free(CUdeviceptr ptr, size_t size) {
  for (fake_reservation **link = &reservations; *link != NULL; link = &(*link)->next) {
    fake_reservation *r = *link;
    if (r->base != (uintptr_t)ptr || r->size != size) continue;
    /* The driver wants every mapping of the range unmapped first. */
    if (any_mapping_in(r->base, r->size)) return CUDA_ERROR_INVALID_VALUE;
    *link = r->next;
    munmap((void *)r->base, r->size);
    free(r);
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult fake_cuMemAddressFree(CUdeviceptr ptr, size_t size) {
  FAKE_CALL(cuMemAddressFree, NEEDS_INIT, do_address_free(ptr, size));
}

/* ---- physical memory ------------------------------------------------------------ */

static CUresult new_phys(int fd, size_t size, int device, bool imported, bool exportable,
                         CUmemGenericAllocationHandle *handle) {
  fake_phys *p = malloc(sizeof *p);
  if (p == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
  *p = (fake_phys){.fd = fd,
                   .size = size,
                   .device = device,
                   .imported = imported,
                   .exportable = exportable,
                   .next = physicals};
  physicals = p;
  *handle = (CUmemGenericAllocationHandle)(uintptr_t)p;
  return CUDA_SUCCESS;
}

static CUresult do_mem_create(CUmemGenericAllocationHandle *handle, size_t size,
                              const CUmemAllocationProp *prop, unsigned long long flags) {
  if (handle == NULL || !valid_prop(prop) || size == 0 || flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  int device = prop->location.id;
  if (!devices[device].attributes[CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED])
    return CUDA_ERROR_NOT_SUPPORTED;
  if (!granular(size)) return CUDA_ERROR_INVALID_VALUE;
  if (prop->requestedHandleTypes != CU_MEM_HANDLE_TYPE_NONE &&
      prop->requestedHandleTypes != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return CUDA_ERROR_NOT_SUPPORTED;
  CUresult r = charge(device, size);
  if (r != CUDA_SUCCESS) return r;
  int fd = memfd_create("fakecuda-vmm", MFD_CLOEXEC);
  fake_vmm_trailer trailer = {.magic = FAKE_VMM_MAGIC, .size = size, .device = device};
  if (fd < 0 || ftruncate(fd, (off_t)(size + FAKE_VMM_TRAILER)) != 0 ||
      pwrite(fd, &trailer, sizeof trailer, (off_t)size) != (ssize_t)sizeof trailer) {
    if (fd >= 0) close(fd);
    uncharge(device, size);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  r = new_phys(fd, size, device, false,
               prop->requestedHandleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, handle);
  if (r != CUDA_SUCCESS) {
    close(fd);
    uncharge(device, size);
  }
  return r;
}

CUresult fake_cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                          const CUmemAllocationProp *prop, unsigned long long flags) {
  FAKE_CALL(cuMemCreate, NEEDS_INIT, do_mem_create(handle, size, prop, flags));
}

static CUresult do_mem_release(CUmemGenericAllocationHandle handle) {
  fake_phys *p = find_phys(handle);
  if (p == NULL) return CUDA_ERROR_INVALID_VALUE;
  p->released = true;
  phys_free_if_unused(p);
  return CUDA_SUCCESS;
}

CUresult fake_cuMemRelease(CUmemGenericAllocationHandle handle) {
  FAKE_CALL(cuMemRelease, NEEDS_INIT, do_mem_release(handle));
}

/* ---- mapping ----------------------------------------------------------------------- */

static CUresult do_mem_map(CUdeviceptr ptr, size_t size, size_t offset,
                           CUmemGenericAllocationHandle handle, unsigned long long flags) {
  fake_phys *p = find_phys(handle);
  uintptr_t at = (uintptr_t)ptr;
  if (p == NULL || flags != 0 || size == 0 || !granular(at) || !granular(size) ||
      !granular(offset) || offset > p->size || size > p->size - offset)
    return CUDA_ERROR_INVALID_VALUE;
  if (reservation_holding(at, size) == NULL || any_mapping_in(at, size))
    return CUDA_ERROR_INVALID_VALUE;
  fake_mapping *m = malloc(sizeof *m);
  if (m == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
  if (mmap((void *)at, size, PROT_NONE, MAP_SHARED | MAP_FIXED, p->fd, (off_t)offset) ==
      MAP_FAILED) {
    free(m);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *m = (fake_mapping){.ptr = at, .size = size, .phys = p, .next = mappings};
  mappings = m;
  p->maps++;
  return CUDA_SUCCESS;
}

CUresult fake_cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                       CUmemGenericAllocationHandle handle, unsigned long long flags) {
  FAKE_CALL(cuMemMap, NEEDS_INIT, do_mem_map(ptr, size, offset, handle, flags));
}

static void unmap_one(fake_mapping *m) {
  mmap((void *)m->ptr, m->size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
       -1, 0);
  fake_phys *p = m->phys;
  p->maps--;
  free(m);
  phys_free_if_unused(p);
}

/* Whether [ptr, ptr + size) is covered exactly by whole mappings. */
static bool covered_by_mappings(uintptr_t ptr, size_t size, bool whole) {
  uintptr_t at = ptr, end = ptr + size;
  while (at < end) {
    const fake_mapping *found = NULL;
    for (const fake_mapping *m = mappings; m != NULL && found == NULL; m = m->next)
      if (at >= m->ptr && at < m->ptr + m->size) found = m;
    if (found == NULL || (whole && (found->ptr != at || found->ptr + found->size > end)))
      return false;
    at = found->ptr + found->size;
  }
  return true;
}

static CUresult do_mem_unmap(CUdeviceptr ptr, size_t size) {
  uintptr_t at = (uintptr_t)ptr;
  if (size == 0 || !covered_by_mappings(at, size, true)) return CUDA_ERROR_INVALID_VALUE;
  for (fake_mapping **link = &mappings; *link != NULL;) {
    fake_mapping *m = *link;
    if (m->ptr >= at && m->ptr < at + size) {
      *link = m->next;
      unmap_one(m);
    } else {
      link = &m->next;
    }
  }
  return CUDA_SUCCESS;
}

CUresult fake_cuMemUnmap(CUdeviceptr ptr, size_t size) {
  FAKE_CALL(cuMemUnmap, NEEDS_INIT, do_mem_unmap(ptr, size));
}

static CUresult do_set_access(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
                              size_t count) {
  uintptr_t at = (uintptr_t)ptr;
  if (desc == NULL || count == 0 || size == 0 || !covered_by_mappings(at, size, false))
    return CUDA_ERROR_INVALID_VALUE;
  bool granted = false;
  for (size_t i = 0; i < count; i++) {
    if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE || !valid_device(desc[i].location.id))
      return CUDA_ERROR_INVALID_DEVICE;
    granted = granted || desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  }
  if (mprotect((void *)at, size, granted ? PROT_READ | PROT_WRITE : PROT_NONE) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  for (fake_mapping *m = mappings; m != NULL; m = m->next)
    if (m->ptr < at + size && at < m->ptr + m->size) m->access = granted;
  return CUDA_SUCCESS;
}

CUresult fake_cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
                             size_t count) {
  FAKE_CALL(cuMemSetAccess, NEEDS_INIT, do_set_access(ptr, size, desc, count));
}

bool vmm_accessible(uintptr_t ptr, size_t size) {
  uintptr_t at = ptr, end = ptr + size;
  if (end < ptr) return false;
  while (at < end) {
    const fake_mapping *found = NULL;
    for (const fake_mapping *m = mappings; m != NULL && found == NULL; m = m->next)
      if (at >= m->ptr && at < m->ptr + m->size) found = m;
    if (found == NULL || !found->access) return false;
    at = found->ptr + found->size;
  }
  return true;
}

/* ---- sharing between processes ----------------------------------------------------- */

static CUresult do_export(void *shareable, CUmemGenericAllocationHandle handle,
                          CUmemAllocationHandleType type, unsigned long long flags) {
  fake_phys *p = find_phys(handle);
  if (shareable == NULL || p == NULL || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || !p->exportable)
    return CUDA_ERROR_INVALID_VALUE;
  int fd = fcntl(p->fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  memcpy(shareable, &fd, sizeof fd);
  return CUDA_SUCCESS;
}

CUresult fake_cuMemExportToShareableHandle(void *shareable, CUmemGenericAllocationHandle handle,
                                           CUmemAllocationHandleType type,
                                           unsigned long long flags) {
  FAKE_CALL(cuMemExportToShareableHandle, NEEDS_INIT, do_export(shareable, handle, type, flags));
}

/* The descriptor stays the caller's: the handle keeps a duplicate. */
static CUresult do_import(CUmemGenericAllocationHandle *handle, void *os_handle,
                          CUmemAllocationHandleType type) {
  if (handle == NULL || type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return CUDA_ERROR_INVALID_VALUE;
  int given = (int)(intptr_t)os_handle;
  struct stat st;
  if (given < 0 || fstat(given, &st) != 0 || (size_t)st.st_size <= FAKE_VMM_TRAILER)
    return CUDA_ERROR_INVALID_VALUE;
  fake_vmm_trailer trailer;
  size_t size = (size_t)st.st_size - FAKE_VMM_TRAILER;
  if (pread(given, &trailer, sizeof trailer, (off_t)size) != (ssize_t)sizeof trailer ||
      trailer.magic != FAKE_VMM_MAGIC || trailer.size != size || !valid_device(trailer.device))
    return CUDA_ERROR_INVALID_VALUE;
  int fd = fcntl(given, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  CUresult r = new_phys(fd, size, trailer.device, true, true, handle);
  if (r != CUDA_SUCCESS) close(fd);
  return r;
}

CUresult fake_cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *os_handle,
                                             CUmemAllocationHandleType type) {
  FAKE_CALL(cuMemImportFromShareableHandle, NEEDS_INIT, do_import(handle, os_handle, type));
}

/* ---- reset and books ---------------------------------------------------------------- */

void vmm_reset(void) {
  while (mappings != NULL) {
    fake_mapping *m = mappings;
    mappings = m->next;
    unmap_one(m);
  }
  while (reservations != NULL) {
    fake_reservation *r = reservations;
    reservations = r->next;
    munmap((void *)r->base, r->size);
    free(r);
  }
  while (physicals != NULL) {
    fake_phys *p = physicals;
    physicals = p->next;
    close(p->fd);
    free(p);
  }
}

fake_vmm_books vmm_books(void) {
  fake_vmm_books b = {0};
  for (const fake_reservation *r = reservations; r != NULL; r = r->next) {
    b.reserved_ranges++;
    b.reserved_bytes += r->size;
  }
  for (const fake_mapping *m = mappings; m != NULL; m = m->next) b.mapped_bytes += m->size;
  for (const fake_phys *p = physicals; p != NULL; p = p->next) {
    b.handles++;
    if (!p->imported) b.physical_bytes += p->size;
  }
  return b;
}

/*
 * test_vmm_fake.c: the fake driver's virtual memory management
 * (fakecuda_vmm.c), which expandable(...) stands on in the fake suite:
 * granularity, reserved ranges, physical pages charged to the device,
 * mappings that need access before they can be touched, misuse the driver
 * refuses, and pages shared by two processes through a file descriptor.
 */
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_test.h"

#define MiB ((size_t)1 << 20)

static CUmemAllocationProp device_prop(int device, bool shareable) {
  CUmemAllocationProp prop;
  memset(&prop, 0, sizeof prop);
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location = (CUmemLocation){.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = device};
  prop.requestedHandleTypes =
      shareable ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR : CU_MEM_HANDLE_TYPE_NONE;
  return prop;
}

static CUresult grant(const mri_cuda_api *cu, CUdeviceptr at, size_t bytes, int device) {
  CUmemAccessDesc access = {.location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = device},
                            .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  return cu->cuMemSetAccess(at, bytes, &access, 1);
}

static void test_granularity(void **state) {
  const mri_cuda_api *cu = fake_cu();
  CUmemAllocationProp prop = device_prop(1, false);
  size_t g = 0;
  assert_int_equal(cu->cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
                   CUDA_SUCCESS);
  assert_int_equal(g, 2 * MiB);
  assert_int_equal(
      cu->cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
      CUDA_SUCCESS);
  assert_int_equal(g, 2 * MiB);
  /* A device without virtual memory management says so. */
  fake_cuda_set_attribute(1, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0);
  assert_int_equal(cu->cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
                   CUDA_ERROR_NOT_SUPPORTED);
  CUmemGenericAllocationHandle h = 0;
  assert_int_equal(cu->cuMemCreate(&h, 2 * MiB, &prop, 0), CUDA_ERROR_NOT_SUPPORTED);
  /* Sizes that are not a whole number of granules. */
  prop = device_prop(0, false);
  assert_int_equal(cu->cuMemCreate(&h, MiB, &prop, 0), CUDA_ERROR_INVALID_VALUE);
  CUdeviceptr base = 0;
  assert_int_equal(cu->cuMemAddressReserve(&base, 3 * MiB, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
  fake_cuda_set_attribute(1, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 1);
}

/* Reserve, create, map, grant, use, then give everything back: the books
 * follow each step, and physical memory is charged to the device until it
 * is both released and unmapped. */
static void test_map_and_books(void **state) {
  const mri_cuda_api *cu = fake_cu();
  CUmemAllocationProp prop = device_prop(0, false);
  CUdeviceptr base = 0;
  assert_int_equal(cu->cuMemAddressReserve(&base, 64 * MiB, 2 * MiB, 0, 0), CUDA_SUCCESS);
  assert_int_equal(base % (2 * MiB), 0);
  fake_vmm_books b = fake_cuda_vmm_books();
  assert_int_equal(b.reserved_ranges, 1);
  assert_int_equal(b.reserved_bytes, 64 * MiB);
  assert_int_equal(b.mapped_bytes, 0);
  assert_int_equal(fake_cuda_used_memory(0), 0); /* address space costs no memory */

  CUmemGenericAllocationHandle h = 0;
  assert_int_equal(cu->cuMemCreate(&h, 4 * MiB, &prop, 0), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_used_memory(0), 4 * MiB);
  assert_int_equal(cu->cuMemMap(base + 2 * MiB, 4 * MiB, 0, h, 0), CUDA_SUCCESS);
  /* Mapped twice over, or mapped outside any reservation: refused. */
  assert_int_equal(cu->cuMemMap(base + 4 * MiB, 2 * MiB, 0, h, 0), CUDA_ERROR_INVALID_VALUE);
  assert_int_equal(cu->cuMemMap(base + 64 * MiB, 2 * MiB, 0, h, 0), CUDA_ERROR_INVALID_VALUE);
  /* Access only where something is mapped. */
  assert_int_equal(grant(cu, base, 4 * MiB, 0), CUDA_ERROR_INVALID_VALUE);
  assert_int_equal(grant(cu, base + 2 * MiB, 4 * MiB, 0), CUDA_SUCCESS);
  unsigned char *p = (unsigned char *)(uintptr_t)(base + 2 * MiB);
  memset(p, 0x5a, 4 * MiB);
  assert_int_equal(p[4 * MiB - 1], 0x5a);
  /* The driver's memset and copies take mapped memory. */
  assert_int_equal(cu->cuMemsetD8Async(base + 3 * MiB, 0x11, MiB, NULL), CUDA_SUCCESS);
  assert_int_equal(p[MiB], 0x11);
  b = fake_cuda_vmm_books();
  assert_int_equal(b.mapped_bytes, 4 * MiB);
  assert_int_equal(b.handles, 1);
  assert_int_equal(b.physical_bytes, 4 * MiB);

  /* Released while mapped: the memory stays until the mapping goes. */
  assert_int_equal(cu->cuMemRelease(h), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_used_memory(0), 4 * MiB);
  /* The range cannot go while mapped; only whole mappings unmap. */
  assert_int_equal(cu->cuMemAddressFree(base, 64 * MiB), CUDA_ERROR_INVALID_VALUE);
  assert_int_equal(cu->cuMemUnmap(base + 2 * MiB, 2 * MiB), CUDA_ERROR_INVALID_VALUE);
  assert_int_equal(cu->cuMemUnmap(base + 2 * MiB, 4 * MiB), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_used_memory(0), 0);
  b = fake_cuda_vmm_books();
  assert_int_equal(b.mapped_bytes, 0);
  assert_int_equal(b.handles, 0);
  assert_int_equal(cu->cuMemAddressFree(base, 64 * MiB), CUDA_SUCCESS);
  assert_fake_clean();
}

/* Physical memory counts against the device's total, with everything
 * else charged there. */
static void test_out_of_memory(void **state) {
  const mri_cuda_api *cu = fake_cu();
  assert_int_equal(fake_cuda_set_total_memory(0, 6 * MiB), CUDA_SUCCESS);
  CUmemAllocationProp prop = device_prop(0, false);
  CUmemGenericAllocationHandle a = 0, b = 0;
  assert_int_equal(cu->cuMemCreate(&a, 4 * MiB, &prop, 0), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemCreate(&b, 4 * MiB, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);
  assert_int_equal(cu->cuMemRelease(a), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemCreate(&b, 4 * MiB, &prop, 0), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemRelease(b), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemRelease(b), CUDA_ERROR_INVALID_VALUE); /* gone */
  assert_fake_clean();
}

/* Two processes share bytes: the parent exports a page as a descriptor,
 * the child (fork) imports and maps it, reads what the parent wrote and
 * answers in the same page. */
static void test_export_to_another_process(void **state) {
  const mri_cuda_api *cu = fake_cu();
  CUmemAllocationProp prop = device_prop(0, true);
  CUmemGenericAllocationHandle h = 0;
  CUdeviceptr base = 0;
  assert_int_equal(cu->cuMemCreate(&h, 2 * MiB, &prop, 0), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemAddressReserve(&base, 2 * MiB, 0, 0, 0), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemMap(base, 2 * MiB, 0, h, 0), CUDA_SUCCESS);
  assert_int_equal(grant(cu, base, 2 * MiB, 0), CUDA_SUCCESS);
  char *p = (char *)(uintptr_t)base;
  strcpy(p, "from the parent");
  int fd = -1;
  assert_int_equal(
      cu->cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
      CUDA_SUCCESS);
  assert_true(fd >= 0);

  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    /* No cmocka here: the exit status says what went wrong. */
    CUmemGenericAllocationHandle imported = 0;
    CUdeviceptr at = 0;
    if (cu->cuMemImportFromShareableHandle(&imported, (void *)(intptr_t)fd,
                                           CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) !=
        CUDA_SUCCESS)
      _exit(2);
    if (cu->cuMemAddressReserve(&at, 2 * MiB, 0, 0, 0) != CUDA_SUCCESS ||
        cu->cuMemMap(at, 2 * MiB, 0, imported, 0) != CUDA_SUCCESS ||
        grant(cu, at, 2 * MiB, 0) != CUDA_SUCCESS)
      _exit(3);
    char *q = (char *)(uintptr_t)at;
    if (at == base || strcmp(q, "from the parent") != 0) _exit(4);
    strcpy(q + MiB, "from the child");
    if (cu->cuMemUnmap(at, 2 * MiB) != CUDA_SUCCESS || cu->cuMemRelease(imported) != CUDA_SUCCESS ||
        cu->cuMemAddressFree(at, 2 * MiB) != CUDA_SUCCESS)
      _exit(5);
    _exit(0);
  }
  int status = 0;
  assert_int_equal(waitpid(child, &status, 0), child);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  assert_string_equal(p + MiB, "from the child");
  close(fd);

  /* A handle made without a shareable type cannot be exported. */
  CUmemAllocationProp plain = device_prop(0, false);
  CUmemGenericAllocationHandle local = 0;
  int other = -1;
  assert_int_equal(cu->cuMemCreate(&local, 2 * MiB, &plain, 0), CUDA_SUCCESS);
  assert_int_equal(
      cu->cuMemExportToShareableHandle(&other, local, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
      CUDA_ERROR_INVALID_VALUE);
  /* Nor is any descriptor a handle. */
  CUmemGenericAllocationHandle bogus = 0;
  assert_int_equal(cu->cuMemImportFromShareableHandle(&bogus, (void *)(intptr_t)0,
                                                      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
                   CUDA_ERROR_INVALID_VALUE);
  assert_int_equal(cu->cuMemRelease(local), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemUnmap(base, 2 * MiB), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemRelease(h), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemAddressFree(base, 2 * MiB), CUDA_SUCCESS);
  assert_fake_clean();
}

/* A child made by fork() while another thread is inside the fake (its
 * lock held) calls the fake all the same: the lock is not inherited held.
 * Before, the child waited for ever (mrctx's idle-memory thread calling
 * the driver at a fork hung fake.driver.expandable_ipc 1 time in 30). */
typedef struct holder {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  bool holding, release;
} holder;

static void *hold_fake_lock(void *arg) {
  holder *h = arg;
  fake_cuda_hold_lock(true);
  pthread_mutex_lock(&h->mutex);
  h->holding = true;
  pthread_cond_broadcast(&h->cond);
  while (!h->release) pthread_cond_wait(&h->cond, &h->mutex);
  pthread_mutex_unlock(&h->mutex);
  fake_cuda_hold_lock(false);
  return NULL;
}

static void test_fork_while_another_thread_is_inside(void **state) {
  const mri_cuda_api *cu = fake_cu();
  holder h = {.mutex = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, hold_fake_lock, &h), 0);
  pthread_mutex_lock(&h.mutex);
  while (!h.holding) pthread_cond_wait(&h.cond, &h.mutex);
  pthread_mutex_unlock(&h.mutex);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    /* A guard, not an order: a child stuck on the lock dies of it. */
    alarm(10);
    int count = 0;
    _exit(cu->cuDeviceGetCount(&count) == CUDA_SUCCESS && count > 0 ? 0 : 2);
  }
  int status = 0;
  assert_int_equal(waitpid(child, &status, 0), child);
  pthread_mutex_lock(&h.mutex);
  h.release = true;
  pthread_cond_broadcast(&h.cond);
  pthread_mutex_unlock(&h.mutex);
  assert_int_equal(pthread_join(thread, NULL), 0);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_granularity, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_map_and_books, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_out_of_memory, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_fork_while_another_thread_is_inside, fake_test_setup,
                                      fake_teardown),
      cmocka_unit_test_setup_teardown(test_export_to_another_process, fake_test_setup,
                                      fake_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

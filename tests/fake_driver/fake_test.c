#include <pthread.h>
#include <stdio.h>

#include "driver/pool_resource.h"
#include "fake_test.h"

int fake_test_setup(void **state) {
  (void)state;
  fake_cuda_reset();
  if (mr_driver_load() != MR_OK) {
    print_error("the fake driver did not load: %s\n", mr_last_error());
    return -1;
  }
  return mri_ensure_context(0) == MR_OK ? 0 : -1;
}

int fake_group_setup(void **state) {
  if (mr_driver_load() != MR_OK) {
    print_error("the fake driver did not load: %s\n", mr_last_error());
    return -1;
  }
  fake_cuda_reset();
  return 0;
}

static bool fake_is_clean(char *why, size_t cap) {
  long allocations = fake_cuda_live_allocations(), pools = fake_cuda_live_pools();
  long streams = fake_cuda_live_streams(), events = fake_cuda_live_events();
  fake_vmm_books vmm = fake_cuda_vmm_books();
  snprintf(why, cap,
           "%ld allocations, %ld created pools, %ld streams, %ld events, %zu reserved ranges, "
           "%zu physical handles",
           allocations, pools, streams, events, vmm.reserved_ranges, vmm.handles);
  return allocations == 0 && pools == 0 && streams == 0 && events == 0 &&
         vmm.reserved_ranges == 0 && vmm.handles == 0;
}

void assert_fake_clean_at(const char *file, int line) {
  char why[160];
  if (!fake_is_clean(why, sizeof why)) {
    print_error("%s:%d: the fake driver still holds %s\n", file, line, why);
    fail();
  }
}

int fake_teardown(void **state) {
  char why[160];
  bool clean = fake_is_clean(why, sizeof why);
  fake_cuda_reset();
  if (!clean) {
    print_error("leaked into the fake driver: %s\n", why);
    return -1;
  }
  return 0;
}

const mri_cuda_api *fake_cu(void) {
  const mri_cuda_api *cu = mri_cuda();
  assert_non_null(cu);
  return cu;
}

CUstream fake_new_stream(void) {
  CUstream stream = NULL;
  assert_int_equal(fake_cu()->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  return stream;
}

void fake_bind(int device) { assert_ok(mri_ensure_context(device)); }

int fake_current_device(void) {
  CUdevice device;
  if (fake_cu()->cuCtxGetDevice(&device, NULL) != CUDA_SUCCESS) return -1;
  return (int)device;
}

static cuuint64_t pool_attribute(CUmemoryPool pool, CUmemPool_attribute attribute) {
  cuuint64_t value = 0;
  assert_int_equal(fake_cu()->cuMemPoolGetAttribute(pool, attribute, &value), CUDA_SUCCESS);
  return value;
}

cuuint64_t fake_pool_threshold(CUmemoryPool pool) {
  return pool_attribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD);
}

cuuint64_t fake_pool_used(CUmemoryPool pool) {
  return pool_attribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT);
}

CUmemoryPool fake_default_pool(mr_pool_kind kind, int device) {
  CUmemLocation location;
  CUmemAllocationType type;
  mri_pool_location(kind, device, &location, &type);
  CUmemoryPool pool = NULL;
  assert_int_equal(fake_cu()->cuMemGetDefaultMemPool(&pool, &location, type), CUDA_SUCCESS);
  return pool;
}

typedef struct thread_call {
  void (*fn)(void *arg);
  void *arg;
} thread_call;

static void *thread_main(void *p) {
  thread_call *call = p;
  call->fn(call->arg);
  return NULL;
}

void fake_run_thread(void (*fn)(void *arg), void *arg) {
  thread_call call = {fn, arg};
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, thread_main, &call), 0);
  assert_int_equal(pthread_join(thread, NULL), 0);
}

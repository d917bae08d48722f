/*
 * The fake driver itself: that the library's loader and the test talk to one
 * instance, and that the behaviour other fake-suite tests rely on holds.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "fake_test.h"

/* The loader's table points into the same loaded object as the control API
 * this test linked, so configuring the fake configures what mrctx sees. */
static void test_loader_and_test_share_one_instance(void **state) {
  const mri_cuda_api *cu = fake_cu();
  Dl_info from_table, from_control;
  void *table_fn, *control_fn;
  memcpy(&table_fn, &cu->cuInit, sizeof table_fn);
  void (*reset)(void) = fake_cuda_reset;
  memcpy(&control_fn, &reset, sizeof control_fn);
  assert_int_not_equal(dladdr(table_fn, &from_table), 0);
  assert_int_not_equal(dladdr(control_fn, &from_control), 0);
  assert_ptr_equal(from_table.dli_fbase, from_control.dli_fbase);

  assert_int_equal(fake_cuda_set_device_name(1, "Shared Instance"), CUDA_SUCCESS);
  mr_device_info info = {.size = sizeof info};
  assert_ok(mr_device_get_info(1, &info));
  assert_string_equal(info.name, "Shared Instance");
  /* The count is fixed once cuInit ran, as in a real process. */
  assert_int_equal(fake_cuda_set_device_count(2), CUDA_ERROR_ILLEGAL_STATE);
  assert_int_equal(fake_cuda_device_count(), 4);
}

static void test_failure_injection_counts_from_now(void **state) {
  const mri_cuda_api *cu = fake_cu();
  int count = 0;
  assert_int_equal(cu->cuDeviceGetCount(&count), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_calls("cuDeviceGetCount"), 1);
  fake_cuda_fail("cuDeviceGetCount", 2, 2, CUDA_ERROR_UNKNOWN);
  assert_int_equal(cu->cuDeviceGetCount(&count), CUDA_SUCCESS);
  assert_int_equal(cu->cuDeviceGetCount(&count), CUDA_ERROR_UNKNOWN);
  assert_int_equal(cu->cuDeviceGetCount(&count), CUDA_ERROR_UNKNOWN);
  assert_int_equal(cu->cuDeviceGetCount(&count), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_calls("cuDeviceGetCount"), 5);

  /* A failing call has no side effects. */
  fake_bind(0);
  fake_cuda_fail("cuMemAlloc", 1, 1, CUDA_ERROR_OUT_OF_MEMORY);
  CUdeviceptr p = 0;
  assert_int_equal(cu->cuMemAlloc(&p, 4096), CUDA_ERROR_OUT_OF_MEMORY);
  assert_int_equal(fake_cuda_live_allocations(), 0);
  assert_int_equal(fake_cuda_used_memory(0), 0);

  /* count <= 0 clears; reset clears failures and counters. */
  fake_cuda_fail("cuDeviceGetCount", 1, 5, CUDA_ERROR_UNKNOWN);
  fake_cuda_fail("cuDeviceGetCount", 1, 0, CUDA_SUCCESS);
  assert_int_equal(cu->cuDeviceGetCount(&count), CUDA_SUCCESS);
  fake_cuda_fail("cuDeviceGetCount", 1, 5, CUDA_ERROR_UNKNOWN);
  fake_cuda_reset();
  assert_int_equal(fake_cuda_calls("cuDeviceGetCount"), 0);
  assert_int_equal(cu->cuDeviceGetCount(&count), CUDA_SUCCESS);
  assert_int_equal(count, 4);
}

static void test_error_names(void **state) {
  const mri_cuda_api *cu = fake_cu();
  const char *text = NULL;
  assert_int_equal(cu->cuGetErrorName(CUDA_ERROR_OUT_OF_MEMORY, &text), CUDA_SUCCESS);
  assert_string_equal(text, "CUDA_ERROR_OUT_OF_MEMORY");
  assert_int_equal(cu->cuGetErrorName(CUDA_ERROR_INVALID_CONTEXT, &text), CUDA_SUCCESS);
  assert_string_equal(text, "CUDA_ERROR_INVALID_CONTEXT");
  assert_int_equal(cu->cuGetErrorString(CUDA_ERROR_NOT_READY, &text), CUDA_SUCCESS);
  assert_string_equal(text, "device not ready");
  assert_int_equal(cu->cuGetErrorName((CUresult)12345, &text), CUDA_ERROR_INVALID_VALUE);
  assert_null(text);
  /* The library's helper falls back to the number for codes the driver
   * does not know. */
  assert_string_equal(mri_cuda_error_name((CUresult)12345), "CUDA_ERROR_12345");
}

static void test_get_proc_address(void **state) {
  void *fn = &fn;
  CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SUCCESS;
  assert_int_equal(
      cuGetProcAddress_v2("cuNoSuchCall", &fn, 13000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found),
      CUDA_ERROR_NOT_FOUND);
  assert_null(fn);
  assert_int_equal(found, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  assert_int_equal(cuGetProcAddress_v2("cuMemGetDefaultMemPool", &fn, 12080,
                                       CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found),
                   CUDA_ERROR_NOT_FOUND);
  assert_int_equal(found, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  assert_int_equal(
      cuGetProcAddress_v2("cuMemAlloc", &fn, 13000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found),
      CUDA_SUCCESS);
  assert_int_equal(found, CU_GET_PROC_ADDRESS_SUCCESS);
  void *loaded;
  memcpy(&loaded, &fake_cu()->cuMemAlloc, sizeof loaded);
  assert_ptr_equal(fn, loaded);
}

static void test_contexts(void **state) {
  const mri_cuda_api *cu = fake_cu();
  CUdeviceptr p = 0;
  CUcontext ctx0, ctx2, popped = NULL;
  assert_null(fake_cuda_current_context()); /* the reset popped it */
  assert_int_equal(cu->cuMemAlloc(&p, 256), CUDA_ERROR_INVALID_CONTEXT);
  assert_int_equal(cu->cuCtxSynchronize(NULL), CUDA_ERROR_INVALID_CONTEXT);
  assert_int_equal(cu->cuCtxPopCurrent(&popped), CUDA_ERROR_INVALID_CONTEXT);
  CUdevice device;
  assert_int_equal(cu->cuCtxGetDevice(&device, NULL), CUDA_ERROR_INVALID_CONTEXT);

  assert_int_equal(cu->cuDevicePrimaryCtxRetain(&ctx0, 0), CUDA_SUCCESS);
  assert_int_equal(cu->cuDevicePrimaryCtxRetain(&ctx2, 2), CUDA_SUCCESS);
  /* The CUDA 13.0 forms name a context; NULL means the current one. */
  assert_int_equal(cu->cuCtxGetDevice(&device, ctx2), CUDA_SUCCESS);
  assert_int_equal(device, 2);
  assert_int_equal(cu->cuCtxSynchronize(ctx0), CUDA_SUCCESS);
  assert_int_equal(cu->cuCtxSetCurrent(ctx0), CUDA_SUCCESS);
  assert_int_equal(fake_current_device(), 0);
  assert_int_equal(cu->cuCtxPushCurrent(ctx2), CUDA_SUCCESS);
  assert_int_equal(fake_current_device(), 2);
  assert_int_equal(cu->cuCtxPopCurrent(&popped), CUDA_SUCCESS);
  assert_ptr_equal(popped, ctx2);
  assert_int_equal(fake_current_device(), 0);
  /* Setting NULL pops the top, as the driver documents. */
  assert_int_equal(cu->cuCtxSetCurrent(NULL), CUDA_SUCCESS);
  assert_null(fake_cuda_current_context());
  assert_int_equal(cu->cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
  assert_int_equal(cu->cuDevicePrimaryCtxRelease(2), CUDA_SUCCESS);
}

static CUmemoryPool create_pool(CUmemLocationType type, int id, CUmemAllocationType alloc,
                                size_t max_size) {
  CUmemPoolProps props;
  memset(&props, 0, sizeof props);
  props.allocType = alloc;
  props.location = (CUmemLocation){.type = type, .id = id};
  props.maxSize = max_size;
  CUmemoryPool pool = NULL;
  assert_int_equal(fake_cu()->cuMemPoolCreate(&pool, &props), CUDA_SUCCESS);
  return pool;
}

static void test_pool_locations(void **state) {
  const mri_cuda_api *cu = fake_cu();
  CUmemoryPool pool;
  static const struct {
    CUmemLocationType type;
    int id;
    CUmemAllocationType alloc;
    CUresult expected;
  } cases[] = {
      {CU_MEM_LOCATION_TYPE_DEVICE, 1, CU_MEM_ALLOCATION_TYPE_PINNED, CUDA_SUCCESS},
      {CU_MEM_LOCATION_TYPE_DEVICE, 1, CU_MEM_ALLOCATION_TYPE_MANAGED, CUDA_SUCCESS},
      {CU_MEM_LOCATION_TYPE_HOST, 0, CU_MEM_ALLOCATION_TYPE_PINNED, CUDA_SUCCESS},
      {CU_MEM_LOCATION_TYPE_HOST, 0, CU_MEM_ALLOCATION_TYPE_MANAGED, CUDA_SUCCESS},
      {CU_MEM_LOCATION_TYPE_HOST_NUMA, 0, CU_MEM_ALLOCATION_TYPE_PINNED, CUDA_SUCCESS},
      {CU_MEM_LOCATION_TYPE_NONE, 0, CU_MEM_ALLOCATION_TYPE_MANAGED, CUDA_SUCCESS},
      {CU_MEM_LOCATION_TYPE_NONE, 0, CU_MEM_ALLOCATION_TYPE_PINNED, CUDA_ERROR_INVALID_VALUE},
      {CU_MEM_LOCATION_TYPE_HOST_NUMA, 7, CU_MEM_ALLOCATION_TYPE_PINNED, CUDA_ERROR_INVALID_VALUE},
      {CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, 0, CU_MEM_ALLOCATION_TYPE_PINNED,
       CUDA_ERROR_INVALID_VALUE},
      {CU_MEM_LOCATION_TYPE_DEVICE, 9, CU_MEM_ALLOCATION_TYPE_PINNED, CUDA_ERROR_INVALID_DEVICE},
      {CU_MEM_LOCATION_TYPE_DEVICE, 0, CU_MEM_ALLOCATION_TYPE_INVALID, CUDA_ERROR_INVALID_VALUE},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    CUmemLocation location = {.type = cases[i].type, .id = cases[i].id};
    assert_int_equal(cu->cuMemGetDefaultMemPool(&pool, &location, cases[i].alloc),
                     cases[i].expected);
    CUmemoryPool current;
    assert_int_equal(cu->cuMemGetMemPool(&current, &location, cases[i].alloc), cases[i].expected);
    if (cases[i].expected == CUDA_SUCCESS) assert_ptr_equal(current, pool);
  }

  /* Without pool support the device's pools are not there. */
  assert_int_equal(fake_cuda_set_attribute(3, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 0),
                   CUDA_SUCCESS);
  CUmemLocation dev3 = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 3};
  assert_int_equal(cu->cuMemGetDefaultMemPool(&pool, &dev3, CU_MEM_ALLOCATION_TYPE_PINNED),
                   CUDA_ERROR_NOT_SUPPORTED);

  /* The current pool must match the location it is set for. */
  CUmemoryPool mine = create_pool(CU_MEM_LOCATION_TYPE_DEVICE, 1, CU_MEM_ALLOCATION_TYPE_PINNED, 0);
  CUmemLocation dev0 = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0};
  CUmemLocation dev1 = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 1};
  assert_int_equal(cu->cuMemSetMemPool(&dev0, CU_MEM_ALLOCATION_TYPE_PINNED, mine),
                   CUDA_ERROR_INVALID_VALUE);
  assert_int_equal(cu->cuMemSetMemPool(&dev1, CU_MEM_ALLOCATION_TYPE_PINNED, mine), CUDA_SUCCESS);
  CUmemoryPool current;
  assert_int_equal(cu->cuMemGetMemPool(&current, &dev1, CU_MEM_ALLOCATION_TYPE_PINNED),
                   CUDA_SUCCESS);
  assert_ptr_equal(current, mine);
  /* Destroying the current pool makes the default current again. */
  assert_int_equal(cu->cuMemPoolDestroy(mine), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemGetMemPool(&current, &dev1, CU_MEM_ALLOCATION_TYPE_PINNED),
                   CUDA_SUCCESS);
  assert_ptr_equal(current, fake_default_pool(MR_POOL_DEVICE, 1));
  assert_int_equal(cu->cuMemPoolDestroy(current), CUDA_ERROR_INVALID_VALUE);
}

static void test_pool_accounting(void **state) {
  const mri_cuda_api *cu = fake_cu();
  CUmemoryPool pool =
      create_pool(CU_MEM_LOCATION_TYPE_DEVICE, 2, CU_MEM_ALLOCATION_TYPE_PINNED, (size_t)8 << 20);
  CUstream stream;
  fake_bind(0);
  assert_int_equal(cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  CUdeviceptr a = 0, b = 0, c = 0;
  assert_int_equal(cu->cuMemAllocFromPoolAsync(&a, 3 << 20, pool, stream), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemAllocFromPoolAsync(&b, 4 << 20, pool, stream), CUDA_SUCCESS);
  assert_int_equal(a % 256, 0);
  memset((void *)(uintptr_t)a, 0xab, 3 << 20); /* real, writable memory */
  assert_int_equal(fake_cuda_allocation_device((void *)(uintptr_t)a), 2);
  assert_ptr_equal(fake_cuda_allocation_pool((void *)(uintptr_t)a), pool);
  assert_int_equal(fake_cuda_used_memory(2), 7 << 20);
  /* maxSize is 8 MiB: 2 more MiB do not fit. */
  assert_int_equal(cu->cuMemAllocFromPoolAsync(&c, 2 << 20, pool, stream),
                   CUDA_ERROR_OUT_OF_MEMORY);
  assert_int_equal(cu->cuMemFreeAsync(b, stream), CUDA_SUCCESS);
  assert_int_equal(fake_pool_used(pool), 3 << 20);
  /* Freed memory stays reserved until a synchronization releases what is
   * above the threshold (0 here). */
  assert_int_equal(fake_cuda_used_memory(2), 7 << 20);
  assert_int_equal(cu->cuStreamSynchronize(stream), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_used_memory(2), 3 << 20);
  /* A threshold keeps memory; trimming gives it back. */
  cuuint64_t keep = UINT64_MAX;
  assert_int_equal(cu->cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep),
                   CUDA_SUCCESS);
  assert_int_equal(cu->cuMemAllocFromPoolAsync(&b, 4 << 20, pool, stream), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemFreeAsync(b, stream), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamSynchronize(stream), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_used_memory(2), 7 << 20);
  assert_int_equal(cu->cuMemPoolTrimTo(pool, 0), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_used_memory(2), 3 << 20);
  cuuint64_t high = 0;
  assert_int_equal(cu->cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &high),
                   CUDA_SUCCESS);
  assert_int_equal(high, 7 << 20);
  /* A destroyed pool with an allocation lives until it is freed. */
  assert_int_equal(cu->cuMemPoolDestroy(pool), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_live_pools(), 1);
  assert_int_equal(cu->cuMemAllocFromPoolAsync(&c, 256, pool, stream), CUDA_ERROR_INVALID_VALUE);
  assert_int_equal(cu->cuMemFreeAsync(a, stream), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_live_pools(), 0);
  assert_int_equal(fake_cuda_used_memory(2), 0);
  /* Past a device's capacity. */
  CUmemoryPool dflt = fake_default_pool(MR_POOL_DEVICE, 1);
  assert_int_equal(cu->cuMemAllocFromPoolAsync(&c, (size_t)1 << 50, dflt, stream),
                   CUDA_ERROR_OUT_OF_MEMORY);
  assert_int_equal(cu->cuMemFreeAsync(a, stream), CUDA_ERROR_INVALID_VALUE); /* already freed */
  assert_int_equal(cu->cuStreamDestroy(stream), CUDA_SUCCESS);
}

static void test_pool_access(void **state) {
  const mri_cuda_api *cu = fake_cu();
  CUmemoryPool pool = create_pool(CU_MEM_LOCATION_TYPE_DEVICE, 0, CU_MEM_ALLOCATION_TYPE_PINNED, 0);
  assert_int_equal(fake_cuda_pool_access(pool, 0), CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
  assert_int_equal(fake_cuda_pool_access(pool, 1), CU_MEM_ACCESS_FLAGS_PROT_NONE);
  assert_int_equal(fake_cuda_set_peer_access(2, 0, false), CUDA_SUCCESS);
  CUmemAccessDesc descs[2] = {
      {.location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 1},
       .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE},
      {.location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 2},
       .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE},
  };
  /* Device 2 cannot reach device 0: nothing changes. */
  assert_int_equal(cu->cuMemPoolSetAccess(pool, descs, 2), CUDA_ERROR_INVALID_DEVICE);
  assert_int_equal(fake_cuda_pool_access(pool, 1), CU_MEM_ACCESS_FLAGS_PROT_NONE);
  assert_int_equal(cu->cuMemPoolSetAccess(pool, descs, 1), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_pool_access(pool, 1), CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
  assert_int_equal(cu->cuMemPoolDestroy(pool), CUDA_SUCCESS);
}

static void test_events_follow_busy_streams(void **state) {
  const mri_cuda_api *cu = fake_cu();
  fake_bind(1);
  CUstream stream;
  CUevent event;
  assert_int_equal(cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  assert_int_equal(cu->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  assert_int_equal(cu->cuEventQuery(event), CUDA_SUCCESS); /* never recorded */
  assert_int_equal(fake_cuda_set_stream_busy(stream, true), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamQuery(stream), CUDA_ERROR_NOT_READY);
  assert_int_equal(cu->cuEventRecord(event, stream), CUDA_SUCCESS);
  assert_int_equal(cu->cuEventQuery(event), CUDA_ERROR_NOT_READY);
  assert_int_equal(fake_cuda_set_stream_busy(stream, false), CUDA_SUCCESS);
  assert_int_equal(cu->cuEventQuery(event), CUDA_SUCCESS);
  /* Busy again: the earlier event is still done; a new record is not. */
  assert_int_equal(fake_cuda_set_stream_busy(stream, true), CUDA_SUCCESS);
  assert_int_equal(cu->cuEventQuery(event), CUDA_SUCCESS);
  assert_int_equal(cu->cuEventRecord(event, stream), CUDA_SUCCESS);
  assert_int_equal(cu->cuEventQuery(event), CUDA_ERROR_NOT_READY);
  /* Waiting lets the work finish. */
  assert_int_equal(cu->cuEventSynchronize(event), CUDA_SUCCESS);
  assert_int_equal(cu->cuEventQuery(event), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamQuery(stream), CUDA_SUCCESS);

  /* The legacy stream finishes blocking streams; a destroyed stream's
   * work runs on, and its handle is the next stream's. */
  CUstream blocking;
  assert_int_equal(cu->cuStreamCreate(&blocking, 0), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_set_stream_busy(blocking, true), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_set_stream_busy(stream, true), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_set_stream_busy(NULL, true), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamQuery(NULL), CUDA_ERROR_NOT_READY);
  assert_int_equal(cu->cuStreamSynchronize(NULL), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamQuery(NULL), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamQuery(blocking), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamQuery(stream), CUDA_ERROR_NOT_READY);
  assert_int_equal(cu->cuEventRecord(event, stream), CUDA_SUCCESS);
  unsigned long long old_id = 0, new_id = 0;
  assert_int_equal(cu->cuStreamGetId(stream, &old_id), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamDestroy(stream), CUDA_SUCCESS);
  assert_int_equal(cu->cuEventQuery(event), CUDA_ERROR_NOT_READY);
  assert_int_equal(fake_cuda_set_stream_busy(stream, true), CUDA_ERROR_INVALID_HANDLE);
  CUstream again;
  assert_int_equal(cu->cuStreamCreate(&again, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  assert_ptr_equal(again, stream);
  assert_int_equal(cu->cuStreamGetId(again, &new_id), CUDA_SUCCESS);
  assert_true(new_id != old_id);
  assert_int_equal(cu->cuStreamQuery(again), CUDA_SUCCESS); /* the new stream is idle */
  assert_int_equal(cu->cuEventQuery(event), CUDA_ERROR_NOT_READY);
  assert_int_equal(cu->cuCtxSynchronize(NULL), CUDA_SUCCESS); /* finishes all of it */
  assert_int_equal(cu->cuEventQuery(event), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamDestroy(again), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_set_stream_busy(CU_STREAM_PER_THREAD, true), CUDA_ERROR_NOT_SUPPORTED);
  assert_int_equal(cu->cuEventDestroy(event), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamDestroy(blocking), CUDA_SUCCESS);
  assert_int_equal(cu->cuEventQuery(event), CUDA_ERROR_INVALID_HANDLE);
}

/* On another thread: no cmocka check here (they longjmp into the test's
 * thread); the test checks the id it leaves, 0 on failure. */
static void *per_thread_id(void *arg) {
  const mri_cuda_api *cu = fake_cu();
  if (mri_ensure_context(0) != MR_OK ||
      cu->cuStreamGetId(CU_STREAM_PER_THREAD, arg) != CUDA_SUCCESS)
    *(unsigned long long *)arg = 0;
  return NULL;
}

/* Stream IDs are never reused; the default streams have theirs per context
 * (and per thread); cuStreamWaitValue32 holds a stream until the host
 * writes the value, even after the stream is destroyed. */
static void test_stream_ids_and_gates(void **state) {
  const mri_cuda_api *cu = fake_cu();
  unsigned long long legacy0 = 0, legacy1 = 0, mine = 0, other = 0;
  assert_int_equal(cu->cuStreamGetId(NULL, &legacy0), CUDA_ERROR_INVALID_CONTEXT);
  fake_bind(0);
  assert_int_equal(cu->cuStreamGetId(NULL, &legacy0), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamGetId(CU_STREAM_PER_THREAD, &mine), CUDA_SUCCESS);
  CUcontext ctx0, ctx1;
  assert_ok(mri_primary_context(0, &ctx0));
  assert_ok(mri_primary_context(1, &ctx1));
  assert_int_equal(cu->cuCtxSetCurrent(ctx1), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamGetId(CU_STREAM_LEGACY, &legacy1), CUDA_SUCCESS);
  assert_true(legacy0 != legacy1);
  assert_int_equal(cu->cuCtxSetCurrent(ctx0), CUDA_SUCCESS);
  pthread_t t;
  pthread_create(&t, NULL, per_thread_id, &other);
  pthread_join(t, NULL);
  assert_true(other != 0 && other != mine && mine != legacy0);

  static volatile cuuint32_t gate;
  gate = 0;
  CUstream s;
  CUevent e;
  assert_int_equal(cu->cuStreamCreate(&s, 0), CUDA_SUCCESS);
  assert_int_equal(cu->cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamWaitValue32(s, (CUdeviceptr)(uintptr_t)&gate, 1, 0x3),
                   CUDA_ERROR_NOT_SUPPORTED);
  assert_int_equal(
      cu->cuStreamWaitValue32(s, (CUdeviceptr)(uintptr_t)&gate, 1, CU_STREAM_WAIT_VALUE_GEQ),
      CUDA_SUCCESS);
  assert_int_equal(cu->cuEventRecord(e, s), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamDestroy(s), CUDA_SUCCESS);
  assert_int_equal(cu->cuEventQuery(e), CUDA_ERROR_NOT_READY);
  gate = 1;
  assert_int_equal(cu->cuEventQuery(e), CUDA_SUCCESS);
  assert_int_equal(cu->cuEventDestroy(e), CUDA_SUCCESS);
}

static void test_capture_flags(void **state) {
  const mri_cuda_api *cu = fake_cu();
  fake_bind(0);
  CUstream stream;
  CUstreamCaptureStatus status;
  assert_int_equal(cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamIsCapturing(stream, &status), CUDA_SUCCESS);
  assert_int_equal(status, CU_STREAM_CAPTURE_STATUS_NONE);
  assert_int_equal(fake_cuda_set_stream_capturing(stream, true), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamIsCapturing(stream, &status), CUDA_SUCCESS);
  assert_int_equal(status, CU_STREAM_CAPTURE_STATUS_ACTIVE);
  bool capturing = false;
  assert_ok(mri_stream_is_capturing(stream, &capturing));
  assert_true(capturing);
  CUgraph graph = (CUgraph)&graph;
  assert_int_equal(cu->cuStreamEndCapture(stream, &graph), CUDA_SUCCESS);
  assert_null(graph);
  assert_int_equal(cu->cuStreamEndCapture(stream, &graph), CUDA_ERROR_ILLEGAL_STATE);
  assert_int_equal(cu->cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
  assert_ok(mri_stream_is_capturing(stream, &capturing));
  assert_true(capturing);
  assert_int_equal(cu->cuStreamBeginCapture(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL),
                   CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  assert_int_equal(cu->cuGraphInstantiateWithFlags(NULL, NULL, 0), CUDA_ERROR_NOT_SUPPORTED);
  assert_int_equal(cu->cuModuleLoadData(NULL, ""), CUDA_ERROR_NOT_SUPPORTED);
  assert_int_equal(cu->cuStreamDestroy(stream), CUDA_SUCCESS);
}

/* Calls that work on the NULL stream need a context; an explicit stream
 * carries its own. */
static void test_context_rules_for_streams(void **state) {
  const mri_cuda_api *cu = fake_cu();
  CUmemoryPool pool = fake_default_pool(MR_POOL_DEVICE, 0);
  CUdeviceptr p = 0;
  assert_int_equal(cu->cuMemAllocFromPoolAsync(&p, 256, pool, NULL), CUDA_ERROR_INVALID_CONTEXT);
  assert_int_equal(cu->cuMemAllocFromPoolAsync(&p, 256, pool, CU_STREAM_PER_THREAD),
                   CUDA_ERROR_INVALID_CONTEXT);
  fake_bind(0);
  CUstream stream;
  assert_int_equal(cu->cuStreamCreate(&stream, 0), CUDA_SUCCESS);
  assert_int_equal(cu->cuCtxSetCurrent(NULL), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemAllocFromPoolAsync(&p, 256, pool, stream), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemsetD8Async(p, 7, 256, stream), CUDA_SUCCESS);
  assert_int_equal(cu->cuMemsetD8Async(p + 1, 7, 256, stream), CUDA_ERROR_INVALID_VALUE);
  assert_int_equal(cu->cuMemFreeAsync(p, NULL), CUDA_ERROR_INVALID_CONTEXT);
  assert_int_equal(cu->cuMemFreeAsync(p, stream), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamDestroy(stream), CUDA_SUCCESS);
}

static void test_shutdown(void **state) {
  const mri_cuda_api *cu = fake_cu();
  fake_bind(0);
  CUdeviceptr p = 0;
  assert_int_equal(cu->cuMemAlloc(&p, 1024), CUDA_SUCCESS);
  fake_cuda_set_deinitialized(true);
  assert_int_equal(cu->cuMemFree(p), CUDA_ERROR_DEINITIALIZED);
  const char *name = NULL;
  assert_int_equal(cu->cuGetErrorName(CUDA_ERROR_DEINITIALIZED, &name), CUDA_SUCCESS);
  assert_string_equal(name, "CUDA_ERROR_DEINITIALIZED");
  fake_cuda_reset(); /* frees the block the "shut down" driver kept */
  assert_int_equal(fake_cuda_live_allocations(), 0);
  assert_int_equal(cu->cuCtxSynchronize(NULL), CUDA_ERROR_INVALID_CONTEXT);
}

/* Which of `n` cuDeviceGetCount calls fail, as a bit mask. */
static uint64_t random_pattern(int n) {
  int count = 0;
  uint64_t failed = 0;
  for (int i = 0; i < n; i++)
    if (fake_cu()->cuDeviceGetCount(&count) != CUDA_SUCCESS) failed |= (uint64_t)1 << i;
  return failed;
}

static void test_random_failures(void **state) {
  const mri_cuda_api *cu = fake_cu();
  int count = 0;
  /* The same seed, the same calls fail; another seed, others. */
  fake_cuda_fail_randomly(0.25, 7, CUDA_ERROR_UNKNOWN);
  uint64_t first = random_pattern(64);
  long failed = fake_cuda_random_failures();
  assert_int_equal(failed, __builtin_popcountll(first));
  assert_true(failed > 4 && failed < 40);
  fake_cuda_fail_randomly(0.25, 7, CUDA_ERROR_UNKNOWN);
  assert_int_equal(random_pattern(64), first);
  fake_cuda_fail_randomly(0.25, 8, CUDA_ERROR_UNKNOWN);
  assert_int_not_equal(random_pattern(64), first);
  /* A failed call has no side effects and returns the chosen error. */
  fake_bind(0);
  fake_cuda_fail_randomly(1.0, 1, CUDA_ERROR_OUT_OF_MEMORY);
  CUdeviceptr p = 0;
  assert_int_equal(cu->cuMemAlloc(&p, 4096), CUDA_ERROR_OUT_OF_MEMORY);
  assert_int_equal(fake_cuda_live_allocations(), 0);
  /* Loading, initialization and error names never fail at random. */
  const char *name = NULL;
  assert_int_equal(cu->cuGetErrorName(CUDA_ERROR_UNKNOWN, &name), CUDA_SUCCESS);
  assert_int_equal(cu->cuInit(0), CUDA_SUCCESS);
  assert_int_equal(cu->cuDriverGetVersion(&count), CUDA_SUCCESS);
  /* Exemptions. */
  fake_cuda_fail_randomly_exempt("cuDeviceGetCount", true);
  assert_int_equal(random_pattern(16), 0);
  fake_cuda_fail_randomly_exempt("cuDeviceGetCount", false);
  assert_int_equal(random_pattern(2), 3);
  /* Probability 0 turns it off; so does a reset, which forgets exemptions. */
  fake_cuda_fail_randomly(0, 1, CUDA_ERROR_UNKNOWN);
  assert_int_equal(random_pattern(16), 0);
  fake_cuda_fail_randomly_exempt("cuDeviceGetCount", true);
  fake_cuda_fail_randomly(1.0, 1, CUDA_ERROR_UNKNOWN);
  fake_cuda_reset();
  assert_int_equal(fake_cuda_random_failures(), 0);
  assert_int_equal(random_pattern(16), 0);
  fake_cuda_fail_randomly(1.0, 1, CUDA_ERROR_UNKNOWN);
  assert_int_equal(random_pattern(2), 3);
  fake_cuda_fail_randomly(0, 0, CUDA_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_loader_and_test_share_one_instance, fake_teardown),
      cmocka_unit_test_teardown(test_failure_injection_counts_from_now, fake_teardown),
      cmocka_unit_test_teardown(test_error_names, fake_teardown),
      cmocka_unit_test_teardown(test_get_proc_address, fake_teardown),
      cmocka_unit_test_teardown(test_contexts, fake_teardown),
      cmocka_unit_test_teardown(test_pool_locations, fake_teardown),
      cmocka_unit_test_teardown(test_pool_accounting, fake_teardown),
      cmocka_unit_test_teardown(test_pool_access, fake_teardown),
      cmocka_unit_test_teardown(test_events_follow_busy_streams, fake_teardown),
      cmocka_unit_test_teardown(test_stream_ids_and_gates, fake_teardown),
      cmocka_unit_test_teardown(test_capture_flags, fake_teardown),
      cmocka_unit_test_teardown(test_context_rules_for_streams, fake_teardown),
      cmocka_unit_test_teardown(test_shutdown, fake_teardown),
      cmocka_unit_test_teardown(test_random_failures, fake_teardown),
  };
  return cmocka_run_group_tests_name("fake driver", tests, fake_group_setup, NULL);
}

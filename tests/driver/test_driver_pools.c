/*
 * Which pool each resource uses and what it does to it: the release-threshold
 * rule, the application's current pool, access grants, fallbacks where the
 * device lacks pools, and the information calls.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "driver/pool_resource.h"
#include "driver_cases.h"
#include "fake_test.h"

static mr_resource *create_case(const char *spec, int device) {
  mr_resource *mr = NULL;
  mr_status st = driver_case_named(spec)->create(device, &mr);
  if (st != MR_OK) {
    print_error("creating %s on device %d: %s\n", spec, device, mr_last_error());
    fail();
  }
  return mr;
}

static void *allocate(mr_resource *mr, size_t bytes) {
  void *p = NULL;
  mr_status st = mr_allocate(mr, bytes, 0, NULL, &p);
  if (st != MR_OK) {
    print_error("%s: allocating %zu bytes: %s\n", mr_resource_describe(mr), bytes, mr_last_error());
    fail();
  }
  return p;
}

static CUmemoryPool create_app_pool(int device) {
  CUmemPoolProps props;
  memset(&props, 0, sizeof props);
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location = (CUmemLocation){.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = device};
  CUmemoryPool pool = NULL;
  assert_int_equal(fake_cu()->cuMemPoolCreate(&pool, &props), CUDA_SUCCESS);
  return pool;
}

static void set_current_device_pool(int device, CUmemoryPool pool) {
  CUmemLocation location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = device};
  assert_int_equal(fake_cu()->cuMemSetMemPool(&location, CU_MEM_ALLOCATION_TYPE_PINNED, pool),
                   CUDA_SUCCESS);
}

/* A default pool with threshold 0 is raised to the maximum at the first
 * allocation, not at creation; reading information does not raise it. */
static void test_default_pool_threshold_raised_at_first_use(void **state) {
  static const char *const specs[] = {"device", "device_default", "pinned", "managed"};
  for (size_t i = 0; i < MRI_ARRAY_SIZE(specs); i++) {
    const driver_case *c = driver_case_named(specs[i]);
    CUmemoryPool pool = fake_default_pool(c->pool_kind, 1);
    mr_resource *mr = create_case(specs[i], 1);
    assert_int_equal(fake_pool_threshold(pool), 0);
    mr_pool_info info = {.size = sizeof info};
    assert_ok(mr_pool_resource_get_info(mr, &info));
    assert_true(info.is_default);
    assert_true(info.is_current);
    assert_int_equal(info.release_threshold, 0);
    assert_int_equal(fake_pool_threshold(pool), 0);
    void *p = allocate(mr, 1000);
    assert_int_equal(fake_pool_threshold(pool), UINT64_MAX);
    assert_ok(mr_pool_resource_get_info(mr, &info));
    assert_int_equal(info.release_threshold, MR_POOL_RELEASE_MAX);
    assert_ok(mr_deallocate(mr, p, 1000, 0, NULL));
    mr_resource_release(mr);
    fake_cuda_reset();
  }
}

/* A default pool whose threshold the application chose is left alone. */
static void test_default_pool_threshold_set_by_application_is_kept(void **state) {
  CUmemoryPool pool = fake_default_pool(MR_POOL_DEVICE, 0);
  cuuint64_t mine = (cuuint64_t)5 << 20;
  assert_int_equal(fake_cu()->cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &mine),
                   CUDA_SUCCESS);
  mr_resource *mr = create_case("device", 0);
  void *p = allocate(mr, 4096);
  assert_int_equal(fake_pool_threshold(pool), (cuuint64_t)5 << 20);
  assert_ok(mr_deallocate(mr, p, 4096, 0, NULL));
  mr_resource_release(mr);
}

/* `device` allocates from the pool the application set current, before or
 * after the resource was created, and never modifies it; device_default
 * keeps using the default pool. */
static void test_device_follows_application_current_pool(void **state) {
  CUmemoryPool dflt = fake_default_pool(MR_POOL_DEVICE, 2);
  CUmemoryPool app = create_app_pool(2);
  mr_resource *device = create_case("device", 2);
  mr_resource *device_default = create_case("device_default", 2);

  void *p = allocate(device, 1 << 20);
  assert_ptr_equal(fake_cuda_allocation_pool(p), dflt);
  assert_ok(mr_deallocate(device, p, 1 << 20, 0, NULL));

  set_current_device_pool(2, app);
  p = allocate(device, 1 << 20);
  assert_ptr_equal(fake_cuda_allocation_pool(p), app);
  assert_int_equal(fake_pool_threshold(app), 0); /* the application's pool: untouched */
  mr_pool_info info = {.size = sizeof info};
  assert_ok(mr_pool_resource_get_info(device, &info));
  assert_false(info.is_default);
  assert_true(info.is_current);
  assert_int_equal(info.used_bytes, 1 << 20);
  void *q = allocate(device_default, 4096);
  assert_ptr_equal(fake_cuda_allocation_pool(q), dflt);
  assert_ok(mr_deallocate(device_default, q, 4096, 0, NULL));
  assert_ok(mr_deallocate(device, p, 1 << 20, 0, NULL));

  /* Restored: back to the default pool. */
  set_current_device_pool(2, dflt);
  p = allocate(device, 1 << 20);
  assert_ptr_equal(fake_cuda_allocation_pool(p), dflt);
  assert_ok(mr_deallocate(device, p, 1 << 20, 0, NULL));
  assert_int_equal(fake_pool_threshold(app), 0);
  mr_resource_release(device);
  mr_resource_release(device_default);
  assert_int_equal(fake_cu()->cuMemPoolDestroy(app), CUDA_SUCCESS);
}

/* An application pool current before mrctx ever ran: the default pool is
 * not touched either, since mrctx does not use it. */
static void test_application_pool_set_before_creation(void **state) {
  CUmemoryPool dflt = fake_default_pool(MR_POOL_DEVICE, 3);
  CUmemoryPool app = create_app_pool(3);
  set_current_device_pool(3, app);
  mr_resource *mr = create_case("device", 3);
  void *p = allocate(mr, 12345);
  assert_ptr_equal(fake_cuda_allocation_pool(p), app);
  assert_int_equal(fake_pool_threshold(app), 0);
  assert_int_equal(fake_pool_threshold(dflt), 0);
  assert_ok(mr_deallocate(mr, p, 12345, 0, NULL));
  mr_resource_release(mr);
  assert_int_equal(fake_cu()->cuMemPoolDestroy(app), CUDA_SUCCESS);
}

/* An owned pool gets its configured threshold, and keeps it. */
static void test_owned_pool_threshold(void **state) {
  static const uint64_t thresholds[] = {0, 1 << 20, MR_POOL_RELEASE_MAX};
  for (size_t i = 0; i < MRI_ARRAY_SIZE(thresholds); i++) {
    mr_pool_desc desc;
    mr_pool_desc_init(&desc, MR_POOL_DEVICE);
    desc.release_threshold = thresholds[i];
    mr_resource *mr = NULL;
    assert_ok(mr_pool_resource_create(1, &desc, &mr));
    void *p = allocate(mr, 4 << 20);
    CUmemoryPool pool = fake_cuda_allocation_pool(p);
    assert_int_equal(fake_pool_threshold(pool), thresholds[i]);
    assert_ok(mr_deallocate(mr, p, 4 << 20, 0, NULL));
    assert_ok(mr_resource_synchronize(mr, NULL));
    mr_pool_info info = {.size = sizeof info};
    assert_ok(mr_pool_resource_get_info(mr, &info));
    uint64_t kept = thresholds[i] < (4 << 20) ? thresholds[i] : (uint64_t)4 << 20;
    assert_int_equal(info.reserved_bytes, kept);
    mr_resource_release(mr);
    assert_fake_clean();
  }
}

/* pinned lets every device read and write the host pool; device pools
 * grant peers that can reach them; access=none grants nothing. */
static void test_access_grants(void **state) {
  mr_resource *pinned = create_case("pinned", 0);
  CUmemoryPool host_pool = fake_default_pool(MR_POOL_PINNED, 0);
  for (int d = 0; d < 4; d++)
    assert_int_equal(fake_cuda_pool_access(host_pool, d), CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
  mr_resource_release(pinned);

  assert_int_equal(fake_cuda_set_peer_access(2, 0, false), CUDA_SUCCESS);
  mr_pool_desc desc;
  mr_pool_desc_init(&desc, MR_POOL_DEVICE);
  mr_resource *all = NULL, *none = NULL;
  assert_ok(mr_pool_resource_create(0, &desc, &all));
  desc.access = MR_POOL_ACCESS_NONE;
  assert_ok(mr_pool_resource_create(0, &desc, &none));
  void *p = allocate(all, 256), *q = allocate(none, 256);
  CUmemoryPool all_pool = fake_cuda_allocation_pool(p), none_pool = fake_cuda_allocation_pool(q);
  static const CUmemAccess_flags expected_all[] = {
      CU_MEM_ACCESS_FLAGS_PROT_READWRITE, CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
      CU_MEM_ACCESS_FLAGS_PROT_NONE, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  for (int d = 0; d < 4; d++) {
    assert_int_equal(fake_cuda_pool_access(all_pool, d), expected_all[d]);
    assert_int_equal(fake_cuda_pool_access(none_pool, d),
                     d == 0 ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE : CU_MEM_ACCESS_FLAGS_PROT_NONE);
  }
  assert_ok(mr_deallocate(all, p, 256, 0, NULL));
  assert_ok(mr_deallocate(none, q, 256, 0, NULL));
  mr_resource_release(all);
  mr_resource_release(none);

  mr_pool_desc_init(&desc, MR_POOL_PINNED);
  mr_resource *pinned_all = NULL, *pinned_none = NULL;
  assert_ok(mr_pool_resource_create(1, &desc, &pinned_all));
  desc.access = MR_POOL_ACCESS_NONE;
  assert_ok(mr_pool_resource_create(1, &desc, &pinned_none));
  p = allocate(pinned_all, 256);
  q = allocate(pinned_none, 256);
  for (int d = 0; d < 4; d++) {
    assert_int_equal(fake_cuda_pool_access(fake_cuda_allocation_pool(p), d),
                     CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    assert_int_equal(fake_cuda_pool_access(fake_cuda_allocation_pool(q), d),
                     CU_MEM_ACCESS_FLAGS_PROT_NONE);
  }
  assert_ok(mr_deallocate(pinned_all, p, 256, 0, NULL));
  assert_ok(mr_deallocate(pinned_none, q, 256, 0, NULL));
  mr_resource_release(pinned_all);
  mr_resource_release(pinned_none);
}

/* A resource falls back to its synchronous form where the device has no
 * pool of its kind, and says why; an owned pool cannot, and says so. */
static void test_fallbacks_without_pool_support(void **state) {
  assert_int_equal(fake_cuda_set_attribute(3, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 0),
                   CUDA_SUCCESS);
  assert_int_equal(fake_cuda_set_attribute(3, CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED, 0),
                   CUDA_SUCCESS);
  static const struct {
    const char *spec, *description;
    const char *alloc_call;
  } cases[] = {
      {"device", "sync_device(reason=\"device 3 has no device memory-pool support\")",
       "cuMemAlloc"},
      {"device_default", "sync_device(reason=\"device 3 has no device memory-pool support\")",
       "cuMemAlloc"},
      {"pinned", "sync_pinned(reason=\"device 3 has no pinned memory-pool support\")",
       "cuMemHostAlloc"},
      {"managed", "sync_managed(reason=\"device 3 has no managed memory-pool support\")",
       "cuMemAllocManaged"},
  };
  for (size_t i = 0; i < MRI_ARRAY_SIZE(cases); i++) {
    mr_resource *mr = create_case(cases[i].spec, 3);
    assert_string_equal(mr_resource_describe(mr), cases[i].description);
    assert_string_equal(mr_resource_name(mr), "sync");
    mr_resource_props props = {.size = sizeof props};
    assert_ok(mr_resource_get_props(mr, &props));
    assert_false(props.stream_ordered);
    long before = fake_cuda_calls(cases[i].alloc_call);
    void *p = allocate(mr, 4096);
    assert_int_equal(fake_cuda_calls(cases[i].alloc_call), before + 1);
    mr_pool_info info = {.size = sizeof info};
    assert_status(mr_pool_resource_get_info(mr, &info), MR_ERR_INVALID_ARGUMENT);
    assert_error_contains("not allocated from a driver pool");
    assert_ok(mr_deallocate(mr, p, 4096, 0, NULL));
    /* The description is spec text, nested or not, and parses back to the
     * same resource and description (the reason is a note it carries). */
    char spec[256];
    snprintf(spec, sizeof spec, "arena(%s, chunk=1MiB)", mr_resource_describe(mr));
    mr_resource *again = NULL, *nested = NULL;
    assert_ok(mr_resource_from_spec(cases[i].description, 3, &again));
    assert_string_equal(mr_resource_describe(again), cases[i].description);
    assert_string_equal(mr_resource_name(again), "sync");
    assert_ok(mr_resource_from_spec(spec, 3, &nested));
    assert_string_equal(mr_resource_describe(nested), spec);
    mr_resource_release(nested);
    mr_resource_release(again);
    mr_resource_release(mr);
  }
  static const mr_pool_kind kinds[] = {MR_POOL_DEVICE, MR_POOL_PINNED, MR_POOL_MANAGED};
  for (size_t i = 0; i < MRI_ARRAY_SIZE(kinds); i++) {
    mr_pool_desc desc;
    mr_pool_desc_init(&desc, kinds[i]);
    mr_resource *mr = (mr_resource *)&mr;
    assert_status(mr_pool_resource_create(3, &desc, &mr), MR_ERR_UNSUPPORTED);
    assert_null(mr);
    char expected[128];
    snprintf(expected, sizeof expected, "pool(kind=%s): device 3 has no %s memory-pool support",
             mr_pool_kind_name(kinds[i]), mr_pool_kind_name(kinds[i]));
    assert_error_contains(expected);
  }
  /* The other devices still have their pools. */
  mr_resource *mr = create_case("device", 2);
  assert_string_equal(mr_resource_describe(mr), "device");
  mr_resource_release(mr);
  assert_fake_clean();
}

/* A driver without a default pool (CUDA_ERROR_NOT_SUPPORTED from
 * cuMemGetDefaultMemPool) gets the synchronous form too. */
static void test_fallback_when_driver_has_no_default_pool(void **state) {
  fake_cuda_fail("cuMemGetDefaultMemPool", 1, 1, CUDA_ERROR_NOT_SUPPORTED);
  mr_resource *mr = create_case("pinned", 0);
  assert_string_equal(mr_resource_describe(mr),
                      "sync_pinned(reason=\"the driver has no default pinned pool "
                      "(CUDA_ERROR_NOT_SUPPORTED)\")");
  mr_resource_release(mr);
}

/* Without managed memory neither a managed pool nor cuMemAllocManaged can
 * serve: creation fails. */
static void test_no_managed_memory(void **state) {
  assert_int_equal(fake_cuda_set_attribute(1, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 0), CUDA_SUCCESS);
  static const char *const specs[] = {"managed", "pool(kind=managed)", "sync_managed"};
  for (size_t i = 0; i < MRI_ARRAY_SIZE(specs); i++) {
    mr_resource *mr = (mr_resource *)&mr;
    assert_status(driver_case_named(specs[i])->create(1, &mr), MR_ERR_UNSUPPORTED);
    assert_null(mr);
    assert_error_contains("device 1 cannot allocate managed memory");
    assert_error_contains(specs[i]);
  }
  assert_fake_clean();
}

/* Free and total memory of a device: the fake's total, less what it has
 * handed out on that device (pools' reservations and cuMemAlloc alike), and
 * the other devices untouched. */
static void test_device_memory(void **state) {
  assert_int_equal(fake_cuda_set_total_memory(1, (size_t)8 << 30), CUDA_SUCCESS);
  uint64_t free_bytes = 1, total = 1;
  assert_ok(mr_device_get_memory(1, &free_bytes, &total));
  assert_int_equal(total, (uint64_t)8 << 30);
  assert_int_equal(free_bytes, total - fake_cuda_used_memory(1));
  uint64_t before = free_bytes;

  mr_resource *mr = NULL;
  assert_ok(mr_sync_device_resource_create(1, &mr));
  void *p = NULL;
  assert_ok(mr_allocate_sync(mr, (size_t)3 << 20, 0, &p));
  assert_ok(mr_device_get_memory(1, &free_bytes, &total));
  assert_int_equal(free_bytes, before - ((uint64_t)3 << 20));
  uint64_t free0 = 0, total0 = 0;
  assert_ok(mr_device_get_memory(0, &free0, &total0));
  assert_int_equal(free0, total0 - fake_cuda_used_memory(0));
  assert_true(free0 > free_bytes);
  assert_ok(mr_deallocate_sync(mr, p, (size_t)3 << 20, 0));
  mr_resource_release(mr);
  assert_ok(mr_device_get_memory(1, &free_bytes, &total));
  assert_int_equal(free_bytes, before);

  /* The caller's context is left current. */
  const mri_cuda_api *cu = fake_cu();
  CUcontext mine = NULL, now = NULL;
  assert_int_equal(cu->cuDevicePrimaryCtxRetain(&mine, 2), CUDA_SUCCESS);
  assert_int_equal(cu->cuCtxPushCurrent(mine), CUDA_SUCCESS);
  assert_ok(mr_device_get_memory(1, &free_bytes, &total));
  assert_int_equal(fake_current_device(), 2);
  assert_int_equal(cu->cuCtxPopCurrent(&now), CUDA_SUCCESS);
  assert_ptr_equal(now, mine);
  assert_int_equal(cu->cuDevicePrimaryCtxRelease(2), CUDA_SUCCESS);

  assert_status(mr_device_get_memory(4, &free_bytes, &total), MR_ERR_NO_DEVICE);
  assert_int_equal(free_bytes, 0);
  assert_int_equal(total, 0);
  assert_error_contains("device 4 does not exist");
  assert_status(mr_device_get_memory(0, NULL, &total), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("free_bytes is NULL");
  assert_status(mr_device_get_memory(0, &free_bytes, NULL), MR_ERR_INVALID_ARGUMENT);
  fake_cuda_fail("cuMemGetInfo", 1, 1, CUDA_ERROR_UNKNOWN);
  assert_status(mr_device_get_memory(0, &free_bytes, &total), MR_ERR_DRIVER);
  assert_error_contains("cuMemGetInfo(device 0): CUDA_ERROR_UNKNOWN");
  fake_cuda_fail("cuMemGetInfo", 0, 0, CUDA_SUCCESS);
}

static void test_device_info(void **state) {
  assert_int_equal(fake_cuda_set_device_name(2, "Fake H200"), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_set_total_memory(2, (size_t)141 << 30), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_set_attribute(2, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 7),
                   CUDA_SUCCESS);
  assert_int_equal(fake_cuda_set_attribute(2, CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED, 0),
                   CUDA_SUCCESS);
  assert_int_equal(fake_cuda_set_attribute(2, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, 0),
                   CUDA_SUCCESS);
  mr_device_info info = {.size = sizeof info};
  assert_ok(mr_device_get_info(2, &info));
  assert_int_equal(info.size, sizeof info);
  assert_int_equal(info.device, 2);
  assert_string_equal(info.name, "Fake H200");
  assert_int_equal(info.total_memory, (uint64_t)141 << 30);
  assert_int_equal(info.compute_capability_major, 9);
  assert_int_equal(info.compute_capability_minor, 7);
  assert_true(info.memory_pools_supported);
  assert_false(info.host_memory_pools_supported);
  assert_true(info.managed_memory);
  assert_false(info.concurrent_managed_access);

  assert_status(mr_device_get_info(4, &info), MR_ERR_NO_DEVICE);
  assert_error_contains("device 4 does not exist");
  assert_status(mr_device_get_info(0, NULL), MR_ERR_INVALID_ARGUMENT);
  info.size = offsetof(mr_device_info, concurrent_managed_access); /* older than any release */
  assert_status(mr_device_get_info(0, &info), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("size");

  static const char *const calls[] = {"cuDeviceGet", "cuDeviceGetName", "cuDeviceTotalMem",
                                      "cuDeviceGetAttribute"};
  for (size_t i = 0; i < MRI_ARRAY_SIZE(calls); i++) {
    fake_cuda_fail(calls[i], 1, 1, CUDA_ERROR_UNKNOWN);
    info.size = sizeof info;
    assert_status(mr_device_get_info(0, &info), MR_ERR_DRIVER);
    assert_error_contains("CUDA_ERROR_UNKNOWN");
    fake_cuda_fail(calls[i], 0, 0, CUDA_SUCCESS);
  }

  int version = 0, count = 0;
  assert_ok(mr_driver_version(&version));
  assert_int_equal(version, 13000);
  assert_ok(mr_device_count(&count));
  assert_int_equal(count, 4);
  assert_status(mr_driver_version(NULL), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_device_count(NULL), MR_ERR_INVALID_ARGUMENT);
}

static void test_driver_pool_info(void **state) {
  static const struct {
    mr_driver_pool which;
    mr_pool_kind kind;
    int device;
  } cases[] = {
      {MR_DRIVER_POOL_DEVICE_CURRENT, MR_POOL_DEVICE, 1},
      {MR_DRIVER_POOL_DEVICE_DEFAULT, MR_POOL_DEVICE, 1},
      {MR_DRIVER_POOL_PINNED_DEFAULT, MR_POOL_PINNED, -1},
      {MR_DRIVER_POOL_MANAGED_DEFAULT, MR_POOL_MANAGED, -1},
  };
  for (size_t i = 0; i < MRI_ARRAY_SIZE(cases); i++) {
    mr_pool_info info = {.size = sizeof info};
    assert_ok(mr_driver_pool_get_info(cases[i].which, 1, &info));
    assert_int_equal(info.kind, cases[i].kind);
    assert_int_equal(info.device, cases[i].device);
    assert_true(info.is_default);
    assert_true(info.is_current);
    assert_int_equal(info.release_threshold, 0); /* reading changes nothing */
    assert_int_equal(info.used_bytes, 0);
  }
  assert_int_equal(fake_pool_threshold(fake_default_pool(MR_POOL_DEVICE, 1)), 0);

  /* Usage shows; an application pool shows as current, not default. */
  mr_resource *mr = create_case("device", 1);
  void *p = allocate(mr, 3000);
  mr_pool_info info = {.size = sizeof info};
  assert_ok(mr_driver_pool_get_info(MR_DRIVER_POOL_DEVICE_DEFAULT, 1, &info));
  assert_int_equal(info.used_bytes, 3000);
  assert_int_equal(info.used_high, 3000);
  assert_int_equal(info.reserved_bytes, 3000);
  assert_int_equal(info.release_threshold, MR_POOL_RELEASE_MAX);
  CUmemoryPool app = create_app_pool(1);
  set_current_device_pool(1, app);
  assert_ok(mr_driver_pool_get_info(MR_DRIVER_POOL_DEVICE_CURRENT, 1, &info));
  assert_false(info.is_default);
  assert_true(info.is_current);
  assert_int_equal(info.used_bytes, 0);
  assert_ok(mr_driver_pool_get_info(MR_DRIVER_POOL_DEVICE_DEFAULT, 1, &info));
  assert_true(info.is_default);
  assert_false(info.is_current);
  assert_ok(mr_deallocate(mr, p, 3000, 0, NULL));
  mr_resource_release(mr);
  assert_int_equal(fake_cu()->cuMemPoolDestroy(app), CUDA_SUCCESS);

  /* Errors. */
  assert_status(mr_driver_pool_get_info((mr_driver_pool)9, 0, &info), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("unknown pool 9");
  assert_status(mr_driver_pool_get_info(MR_DRIVER_POOL_DEVICE_DEFAULT, 5, &info), MR_ERR_NO_DEVICE);
  assert_status(mr_driver_pool_get_info(MR_DRIVER_POOL_DEVICE_DEFAULT, 0, NULL),
                MR_ERR_INVALID_ARGUMENT);
  info.size = 8;
  assert_status(mr_driver_pool_get_info(MR_DRIVER_POOL_DEVICE_DEFAULT, 0, &info),
                MR_ERR_INVALID_ARGUMENT);
  info.size = sizeof info;
  assert_int_equal(fake_cuda_set_attribute(0, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 0),
                   CUDA_SUCCESS);
  assert_status(mr_driver_pool_get_info(MR_DRIVER_POOL_DEVICE_CURRENT, 0, &info),
                MR_ERR_UNSUPPORTED);
  assert_error_contains("device 0 has no device memory-pool support");
  /* Injected driver failures: test_driver_errors.c. */
}

static void test_pool_resource_info_errors(void **state) {
  mr_pool_info info = {.size = sizeof info};
  mr_resource *host = NULL;
  assert_ok(mr_host_resource_create(&host));
  assert_status(mr_pool_resource_get_info(host, &info), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("host is not allocated from a driver pool");
  mr_resource_release(host);
  mr_resource *mr = create_case("device", 0);
  assert_status(mr_pool_resource_get_info(mr, NULL), MR_ERR_INVALID_ARGUMENT);
  info.size = 4;
  assert_status(mr_pool_resource_get_info(mr, &info), MR_ERR_INVALID_ARGUMENT);
  info.size = sizeof info;
  fake_cuda_fail("cuMemGetMemPool", 1, 1, CUDA_ERROR_UNKNOWN);
  assert_status(mr_pool_resource_get_info(mr, &info), MR_ERR_DRIVER);
  assert_error_contains("cuMemGetMemPool(device 0)");
  assert_error_contains("CUDA_ERROR_UNKNOWN");
  mr_resource_release(mr);
}

/* The driver pools' high-water marks reset to what they hold now: through
 * a pool-backed resource (following the device's current pool) and by
 * which pool. */
static mr_pool_info pool_info_of(mr_driver_pool which, int device) {
  mr_pool_info info = {.size = sizeof info};
  assert_ok(mr_driver_pool_get_info(which, device, &info));
  return info;
}

static void test_pool_reset_peak(void **state) {
  mr_resource *mr = create_case("device", 1);
  void *a = allocate(mr, 3000), *b = allocate(mr, 5000);
  assert_ok(mr_deallocate(mr, b, 5000, 0, NULL));
  mr_pool_info info = pool_info_of(MR_DRIVER_POOL_DEVICE_DEFAULT, 1);
  assert_int_equal(info.used_bytes, 3000);
  assert_int_equal(info.used_high, 8000);
  assert_int_equal(info.reserved_high, 8000);
  assert_ok(mr_pool_resource_reset_peak(mr));
  info = pool_info_of(MR_DRIVER_POOL_DEVICE_DEFAULT, 1);
  assert_int_equal(info.used_high, 3000);
  assert_int_equal(info.reserved_high, info.reserved_bytes);
  assert_int_equal(info.used_bytes, 3000); /* only the marks change */
  b = allocate(mr, 1000);
  assert_ok(mr_deallocate(mr, b, 1000, 0, NULL));
  assert_int_equal(pool_info_of(MR_DRIVER_POOL_DEVICE_DEFAULT, 1).used_high, 4000);
  /* By which pool: the device's current one is the default here. */
  assert_ok(mr_driver_pool_reset_peak(MR_DRIVER_POOL_DEVICE_CURRENT, 1));
  assert_int_equal(pool_info_of(MR_DRIVER_POOL_DEVICE_DEFAULT, 1).used_high, 3000);
  /* An application pool made current: the resource follows it. */
  CUmemoryPool app = create_app_pool(1);
  set_current_device_pool(1, app);
  b = allocate(mr, 7000);
  assert_ok(mr_deallocate(mr, b, 7000, 0, NULL));
  assert_int_equal(pool_info_of(MR_DRIVER_POOL_DEVICE_CURRENT, 1).used_high, 7000);
  assert_ok(mr_pool_resource_reset_peak(mr));
  assert_int_equal(pool_info_of(MR_DRIVER_POOL_DEVICE_CURRENT, 1).used_high, 0);
  set_current_device_pool(1, fake_default_pool(MR_POOL_DEVICE, 1));
  assert_int_equal(fake_cu()->cuMemPoolDestroy(app), CUDA_SUCCESS);
  /* Pinned and managed default pools. */
  for (int kind = 0; kind < 2; kind++) {
    mr_resource *host_side = create_case(kind == 0 ? "pinned" : "managed", 0);
    mr_driver_pool which =
        kind == 0 ? MR_DRIVER_POOL_PINNED_DEFAULT : MR_DRIVER_POOL_MANAGED_DEFAULT;
    b = allocate(host_side, 4096);
    assert_ok(mr_deallocate(host_side, b, 4096, 0, NULL));
    assert_int_equal(pool_info_of(which, 0).used_high, 4096);
    assert_ok(mr_driver_pool_reset_peak(which, 0));
    assert_int_equal(pool_info_of(which, 0).used_high, 0);
    mr_resource_release(host_side);
  }

  /* Errors. */
  mr_resource *host = NULL;
  assert_ok(mr_host_resource_create(&host));
  assert_status(mr_pool_resource_reset_peak(host), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("mr_pool_resource_reset_peak: host is not allocated from a driver pool");
  mr_resource_release(host);
  assert_status(mr_pool_resource_reset_peak(NULL), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_driver_pool_reset_peak((mr_driver_pool)9, 0), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("mr_driver_pool_reset_peak: unknown pool 9");
  assert_status(mr_driver_pool_reset_peak(MR_DRIVER_POOL_DEVICE_DEFAULT, 5), MR_ERR_NO_DEVICE);
  assert_status(mr_driver_pool_reset_peak(MR_DRIVER_POOL_DEVICE_DEFAULT, -1), MR_ERR_NO_DEVICE);
  fake_cuda_fail("cuMemPoolSetAttribute", 1, 1, CUDA_ERROR_UNKNOWN);
  assert_status(mr_pool_resource_reset_peak(mr), MR_ERR_DRIVER);
  assert_error_contains("resetting the reserved high-water mark of a device pool");
  assert_error_contains("CUDA_ERROR_UNKNOWN");
  fake_cuda_fail("cuMemPoolSetAttribute", 2, 1, CUDA_ERROR_UNKNOWN);
  assert_status(mr_driver_pool_reset_peak(MR_DRIVER_POOL_DEVICE_DEFAULT, 1), MR_ERR_DRIVER);
  assert_error_contains("resetting the used high-water mark of a device pool");
  fake_cuda_fail("cuMemGetMemPool", 1, 1, CUDA_ERROR_UNKNOWN);
  assert_status(mr_pool_resource_reset_peak(mr), MR_ERR_DRIVER);
  assert_error_contains("cuMemGetMemPool(device 1)");
  assert_ok(mr_deallocate(mr, a, 3000, 0, NULL));
  mr_resource_release(mr);
}

typedef struct current_device_report {
  int before, after_bind;
} current_device_report;

static void current_device_on_thread(void *arg) {
  current_device_report *r = arg;
  r->before = mr_current_device();
  mri_ensure_context(3);
  r->after_bind = mr_current_device();
}

static void test_current_device(void **state) {
  current_device_report r = {-1, -1};
  fake_run_thread(current_device_on_thread, &r);
  assert_int_equal(r.before, 0); /* no context: 0, as the runtime picks */
  assert_int_equal(r.after_bind, 3);
  assert_int_equal(mri_current_device(), 0);
  fake_bind(2);
  assert_int_equal(mr_current_device(), 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_pool_reset_peak, fake_teardown),
      cmocka_unit_test_teardown(test_default_pool_threshold_raised_at_first_use, fake_teardown),
      cmocka_unit_test_teardown(test_default_pool_threshold_set_by_application_is_kept,
                                fake_teardown),
      cmocka_unit_test_teardown(test_device_follows_application_current_pool, fake_teardown),
      cmocka_unit_test_teardown(test_application_pool_set_before_creation, fake_teardown),
      cmocka_unit_test_teardown(test_owned_pool_threshold, fake_teardown),
      cmocka_unit_test_teardown(test_access_grants, fake_teardown),
      cmocka_unit_test_teardown(test_fallbacks_without_pool_support, fake_teardown),
      cmocka_unit_test_teardown(test_fallback_when_driver_has_no_default_pool, fake_teardown),
      cmocka_unit_test_teardown(test_no_managed_memory, fake_teardown),
      cmocka_unit_test_teardown(test_device_info, fake_teardown),
      cmocka_unit_test_teardown(test_device_memory, fake_teardown),
      cmocka_unit_test_teardown(test_driver_pool_info, fake_teardown),
      cmocka_unit_test_teardown(test_pool_resource_info_errors, fake_teardown),
      cmocka_unit_test_teardown(test_current_device, fake_teardown),
  };
  return cmocka_run_group_tests_name("driver pools", tests, fake_group_setup, NULL);
}

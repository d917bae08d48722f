/*
 * The driver resources on a real GPU (suite gpu; exit 77 without a driver or
 * device). Every resource of driver_cases.c on device 0:
 *  - sizes 0, 4 B, 1 KiB, 1 MiB, 1 GiB; 1 PiB fails with MR_ERR_OUT_OF_MEMORY
 *    (not asked of managed resources: an oversized managed request can hang
 *    the GPU); 256- and 4096-byte alignment;
 *  - the memory works: a kernel fills it on a stream and a copy reads it
 *    back; pinned and managed memory is also written and read by the host;
 *  - two 8-byte allocations differ; 100 random sizes up to 5 MiB; random
 *    interleaving ending with the pool's used bytes back where they were;
 *  - the legacy (NULL), per-thread and a non-blocking stream; allocated on
 *    one thread, freed on another that has no context;
 *  - pool(max=64MiB) hands out 64 MiB and refuses the next with
 *    out-of-memory;
 *  - `device` follows an application's cuMemSetMemPool; a default pool's
 *    release threshold is raised at first use, an application's pool keeps
 *    the threshold it set.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/pool_resource.h"
#include "driver_cases.h"
#include "gpu_util.h"

#define DEVICE 0
#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)

static mr_resource *create_case(const driver_case *c) {
  mr_resource *mr = NULL;
  mr_status st = c->create(DEVICE, &mr);
  if (st != MR_OK) {
    print_error("creating %s on device %d: %s: %s\n", c->spec, DEVICE, mr_status_name(st),
                mr_last_error());
    fail();
  }
  return mr;
}

static void *allocate(const driver_case *c, mr_resource *mr, size_t bytes, size_t alignment,
                      mr_stream stream) {
  void *p = NULL;
  mr_status st = mr_allocate(mr, bytes, alignment, stream, &p);
  if (st != MR_OK) {
    print_error("%s: allocating %zu bytes aligned to %zu on stream %p: %s: %s\n", c->spec, bytes,
                alignment, (void *)stream, mr_status_name(st), mr_last_error());
    fail();
  }
  if (bytes > 0) assert_non_null(p);
  return p;
}

static void deallocate(const driver_case *c, mr_resource *mr, void *p, size_t bytes,
                       size_t alignment, mr_stream stream) {
  mr_status st = mr_deallocate(mr, p, bytes, alignment, stream);
  if (st != MR_OK) {
    print_error("%s: freeing %zu bytes at %p on stream %p: %s\n", c->spec, bytes, p, (void *)stream,
                mr_last_error());
    fail();
  }
}

/* Fill on the GPU, then read back: all of it up to 2 MiB, else the first and
 * last MiB (the fill covers everything either way). */
static void check_memory_works(const driver_case *c, void *p, size_t bytes, unsigned char v,
                               mr_stream stream) {
  gpu_fill(p, bytes, v, stream);
  bool ok;
  if (bytes <= 2 * MiB) {
    ok = gpu_all_equal(p, bytes, v, stream);
  } else {
    ok = gpu_all_equal(p, MiB, v, stream) && gpu_all_equal((char *)p + bytes - MiB, MiB, v, stream);
  }
  if (!ok) {
    print_error("%s: %zu bytes at %p did not read back as 0x%02x after a fill on stream %p\n",
                c->spec, bytes, p, v, (void *)stream);
    fail();
  }
}

static uint64_t pool_used(const driver_case *c, mr_resource *mr) {
  mr_pool_info info = {.size = sizeof info};
  mr_status st = mr_resource_synchronize(mr, NULL);
  if (st == MR_OK) st = mr_pool_resource_get_info(mr, &info);
  if (st != MR_OK) {
    print_error("%s: reading pool information: %s\n", c->spec, mr_last_error());
    fail();
  }
  return info.used_bytes;
}

static bool is_managed(const driver_case *c) { return c->kind == MR_MEMORY_MANAGED; }

static void test_sizes(void **state) {
  static const size_t sizes[] = {4, 1024, MiB, GiB};
  mr_stream stream = gpu_stream_create();
  for (size_t i = 0; i < driver_case_count; i++) {
    const driver_case *c = &driver_cases[i];
    mr_resource *mr = create_case(c);
    void *p = &p;
    assert_ok(mr_allocate(mr, 0, 0, stream, &p));
    assert_null(p);
    assert_ok(mr_deallocate(mr, NULL, 0, 0, stream));
    for (size_t s = 0; s < MRI_ARRAY_SIZE(sizes); s++) {
      p = allocate(c, mr, sizes[s], 0, stream);
      assert_int_equal((uintptr_t)p % 256, 0);
      check_memory_works(c, p, sizes[s], (unsigned char)(0x11 * (s + 1)), stream);
      deallocate(c, mr, p, sizes[s], 0, stream);
    }
    assert_ok(mr_resource_synchronize(mr, stream));
    mr_resource_release(mr);
  }
  gpu_stream_destroy(stream);
}

static void test_out_of_memory(void **state) {
  const size_t one_pib = (size_t)1 << 50;
  for (size_t i = 0; i < driver_case_count; i++) {
    const driver_case *c = &driver_cases[i];
    if (is_managed(c)) continue;
    mr_resource *mr = create_case(c);
    void *p = &p;
    mr_status st = mr_allocate(mr, one_pib, 0, NULL, &p);
    if (st != MR_ERR_OUT_OF_MEMORY || p != NULL) {
      print_error("%s: 1 PiB gave %s and %p, expected MR_ERR_OUT_OF_MEMORY and NULL: %s\n", c->spec,
                  mr_status_name(st), p, mr_last_error());
      fail();
    }
    /* Still usable afterwards. */
    p = allocate(c, mr, MiB, 0, NULL);
    check_memory_works(c, p, MiB, 0x3c, NULL);
    deallocate(c, mr, p, MiB, 0, NULL);
    mr_resource_release(mr);
  }
}

static void test_alignment(void **state) {
  static const size_t alignments[] = {256, 4096};
  static const size_t sizes[] = {8, 1000, 3 * MiB + 5};
  mr_stream stream = gpu_stream_create();
  for (size_t i = 0; i < driver_case_count; i++) {
    const driver_case *c = &driver_cases[i];
    mr_resource *mr = create_case(c);
    for (size_t a = 0; a < MRI_ARRAY_SIZE(alignments); a++) {
      for (size_t s = 0; s < MRI_ARRAY_SIZE(sizes); s++) {
        void *p = allocate(c, mr, sizes[s], alignments[a], stream);
        if ((uintptr_t)p % alignments[a] != 0) {
          print_error("%s: %p is not aligned to %zu\n", c->spec, p, alignments[a]);
          fail();
        }
        check_memory_works(c, p, sizes[s], 0x5a, stream);
        deallocate(c, mr, p, sizes[s], alignments[a], stream);
      }
    }
    mr_resource_release(mr);
  }
  gpu_stream_destroy(stream);
}

/* Pinned and managed memory: the host writes what the GPU reads and reads
 * what the GPU wrote. */
static void test_host_access(void **state) {
  const size_t bytes = 3 * MiB;
  mr_stream stream = gpu_stream_create();
  for (size_t i = 0; i < driver_case_count; i++) {
    const driver_case *c = &driver_cases[i];
    if (c->kind == MR_MEMORY_DEVICE) continue;
    mr_resource *mr = create_case(c);
    mr_resource_props props = {.size = sizeof props};
    assert_ok(mr_resource_get_props(mr, &props));
    assert_true(props.host_accessible);
    unsigned char *p = allocate(c, mr, bytes, 0, stream);
    /* The allocation is ordered on `stream`: wait before the host touches it. */
    gpu_check(mri_cuda()->cuStreamSynchronize((CUstream)stream));
    memset(p, 0x77, bytes);
    if (!gpu_all_equal(p, bytes, 0x77, stream)) {
      print_error("%s: the GPU did not read what the host wrote\n", c->spec);
      fail();
    }
    gpu_fill(p, bytes, 0x99, stream);
    gpu_check(mri_cuda()->cuStreamSynchronize((CUstream)stream));
    for (size_t k = 0; k < bytes; k++) {
      if (p[k] != 0x99) {
        print_error("%s: the host read 0x%02x at byte %zu, the GPU wrote 0x99\n", c->spec, p[k], k);
        fail();
      }
    }
    deallocate(c, mr, p, bytes, 0, stream);
    mr_resource_release(mr);
  }
  gpu_stream_destroy(stream);
}

static void test_two_small_allocations_differ(void **state) {
  for (size_t i = 0; i < driver_case_count; i++) {
    const driver_case *c = &driver_cases[i];
    mr_resource *mr = create_case(c);
    void *a = allocate(c, mr, 8, 0, NULL), *b = allocate(c, mr, 8, 0, NULL);
    assert_ptr_not_equal(a, b);
    gpu_fill(a, 8, 1, NULL);
    gpu_fill(b, 8, 2, NULL);
    assert_true(gpu_all_equal(a, 8, 1, NULL));
    assert_true(gpu_all_equal(b, 8, 2, NULL));
    deallocate(c, mr, a, 8, 0, NULL);
    deallocate(c, mr, b, 8, 0, NULL);
    mr_resource_release(mr);
  }
}

/* 100 random sizes up to 5 MiB, all freed; then random interleaving that
 * ends with nothing outstanding, and the pool's used bytes come back. */
static void test_random_sizes(void **state) {
  enum { COUNT = 100 };
  const size_t max_bytes = 5 * MiB;
  mr_stream stream = gpu_stream_create();
  for (size_t i = 0; i < driver_case_count; i++) {
    const driver_case *c = &driver_cases[i];
    mr_resource *mr = create_case(c);
    uint64_t used_before = c->pool_backed ? pool_used(c, mr) : 0;
    uint64_t seed = 0x243f6a8885a308d3ULL + i;
    void *ptrs[COUNT] = {0};
    size_t sizes[COUNT];
    for (int k = 0; k < COUNT; k++) {
      sizes[k] = 1 + test_rand(&seed) % max_bytes;
      ptrs[k] = allocate(c, mr, sizes[k], 0, stream);
    }
    gpu_fill(ptrs[COUNT - 1], sizes[COUNT - 1], 0x42, stream);
    assert_true(gpu_all_equal(ptrs[COUNT - 1], sizes[COUNT - 1], 0x42, stream));
    for (int k = 0; k < COUNT; k++) deallocate(c, mr, ptrs[k], sizes[k], 0, stream);
    memset(ptrs, 0, sizeof ptrs);
    for (int step = 0; step < 300; step++) {
      int k = (int)(test_rand(&seed) % COUNT);
      if (ptrs[k] == NULL) {
        sizes[k] = 1 + test_rand(&seed) % max_bytes;
        ptrs[k] = allocate(c, mr, sizes[k], 0, stream);
      } else {
        deallocate(c, mr, ptrs[k], sizes[k], 0, stream);
        ptrs[k] = NULL;
      }
    }
    for (int k = 0; k < COUNT; k++)
      if (ptrs[k] != NULL) deallocate(c, mr, ptrs[k], sizes[k], 0, stream);
    assert_ok(mr_resource_synchronize(mr, stream));
    if (c->pool_backed) {
      uint64_t used_after = pool_used(c, mr);
      if (used_after != used_before) {
        print_error("%s: the pool had %llu bytes in use before and %llu after freeing all\n",
                    c->spec, (unsigned long long)used_before, (unsigned long long)used_after);
        fail();
      }
    }
    mr_resource_release(mr);
  }
  gpu_stream_destroy(stream);
}

static void test_streams(void **state) {
  mr_stream non_blocking = gpu_stream_create();
  const mr_stream streams[] = {NULL, (mr_stream)CU_STREAM_PER_THREAD, non_blocking};
  for (size_t i = 0; i < driver_case_count; i++) {
    const driver_case *c = &driver_cases[i];
    mr_resource *mr = create_case(c);
    for (size_t s = 0; s < MRI_ARRAY_SIZE(streams); s++) {
      void *p = allocate(c, mr, 2 * MiB, 0, streams[s]);
      check_memory_works(c, p, 2 * MiB, (unsigned char)(s + 1), streams[s]);
      deallocate(c, mr, p, 2 * MiB, 0, streams[s]);
      assert_ok(mr_resource_synchronize(mr, streams[s]));
    }
    mr_resource_release(mr);
  }
  gpu_stream_destroy(non_blocking);
}

typedef struct thread_free {
  mr_resource *mr;
  void *ptr;
  size_t bytes;
  mr_status status;
  char error[512];
} thread_free;

/* A thread the test started: it has no current context. */
static void *free_on_thread(void *arg) {
  thread_free *t = arg;
  t->status = mr_deallocate(t->mr, t->ptr, t->bytes, 0, NULL);
  if (t->status == MR_OK) t->status = mr_resource_synchronize(t->mr, NULL);
  if (t->status != MR_OK) snprintf(t->error, sizeof t->error, "%s", mr_last_error());
  return NULL;
}

static void test_free_on_another_thread(void **state) {
  for (size_t i = 0; i < driver_case_count; i++) {
    const driver_case *c = &driver_cases[i];
    mr_resource *mr = create_case(c);
    thread_free t = {.mr = mr, .bytes = MiB};
    t.ptr = allocate(c, mr, t.bytes, 0, NULL);
    check_memory_works(c, t.ptr, t.bytes, 0x21, NULL);
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, free_on_thread, &t), 0);
    assert_int_equal(pthread_join(thread, NULL), 0);
    if (t.status != MR_OK) {
      print_error("%s: freeing on a thread without a context: %s\n", c->spec, t.error);
      fail();
    }
    mr_resource_release(mr);
  }
}

static cuuint64_t pool_attribute(CUmemoryPool pool, CUmemPool_attribute attribute) {
  cuuint64_t value = 0;
  gpu_check(mri_cuda()->cuMemPoolGetAttribute(pool, attribute, &value));
  return value;
}

static void set_threshold(CUmemoryPool pool, cuuint64_t threshold) {
  gpu_check(mri_cuda()->cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold));
}

static CUmemoryPool default_pool(mr_pool_kind kind) {
  CUmemLocation location;
  CUmemAllocationType type;
  mri_pool_location(kind, DEVICE, &location, &type);
  CUmemoryPool pool = NULL;
  gpu_check(mri_cuda()->cuMemGetDefaultMemPool(&pool, &location, type));
  return pool;
}

/* `device` allocates from the pool the application made current, and
 * leaves that pool's threshold alone; restoring the default restores it. */
static void test_application_current_pool(void **state) {
  const mri_cuda_api *cu = mri_cuda();
  const driver_case *c = driver_case_named("device");
  CUmemLocation location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = DEVICE};
  CUmemPoolProps props;
  memset(&props, 0, sizeof props);
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  props.location = location;
  CUmemoryPool app = NULL, dflt = default_pool(MR_POOL_DEVICE);
  gpu_check(cu->cuMemPoolCreate(&app, &props));
  const cuuint64_t app_threshold = 3 * MiB;
  set_threshold(app, app_threshold);

  mr_resource *mr = create_case(c);
  gpu_check(cu->cuMemSetMemPool(&location, CU_MEM_ALLOCATION_TYPE_PINNED, app));
  cuuint64_t app_used = pool_attribute(app, CU_MEMPOOL_ATTR_USED_MEM_CURRENT);
  cuuint64_t default_used = pool_attribute(dflt, CU_MEMPOOL_ATTR_USED_MEM_CURRENT);
  void *p = allocate(c, mr, 8 * MiB, 0, NULL);
  gpu_check(cu->cuStreamSynchronize(NULL));
  assert_true(pool_attribute(app, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) >= app_used + 8 * MiB);
  assert_int_equal(pool_attribute(dflt, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), default_used);
  assert_int_equal(pool_attribute(app, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD), app_threshold);
  mr_pool_info info = {.size = sizeof info};
  assert_ok(mr_pool_resource_get_info(mr, &info));
  assert_false(info.is_default);
  assert_true(info.is_current);
  check_memory_works(c, p, 8 * MiB, 0x6b, NULL);
  deallocate(c, mr, p, 8 * MiB, 0, NULL);
  gpu_check(cu->cuStreamSynchronize(NULL));
  assert_int_equal(pool_attribute(app, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), app_used);

  /* Restore the default: allocations go there again. */
  gpu_check(cu->cuMemSetMemPool(&location, CU_MEM_ALLOCATION_TYPE_PINNED, dflt));
  p = allocate(c, mr, 8 * MiB, 0, NULL);
  gpu_check(cu->cuStreamSynchronize(NULL));
  assert_true(pool_attribute(dflt, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) >= default_used + 8 * MiB);
  assert_int_equal(pool_attribute(app, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), app_used);
  deallocate(c, mr, p, 8 * MiB, 0, NULL);
  mr_resource_release(mr);
  assert_int_equal(pool_attribute(app, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD), app_threshold);
  gpu_check(cu->cuStreamSynchronize(NULL));
  gpu_check(cu->cuMemPoolDestroy(app));
}

/* pool(max=64MiB): the driver refuses the 65th MiB, with out-of-memory
 * and a message, and the pool goes on serving once memory is freed. 64 MiB
 * is a whole number of the driver's 32 MiB chunks; a max between chunks is
 * rounded up by the driver (docs/driver.md). */
static void test_pool_max(void **state) {
  mr_resource *mr = NULL;
  assert_ok(mr_resource_from_spec("pool(kind=device, max=64MiB)", DEVICE, &mr));
  void *blocks[65] = {0};
  size_t n = 0;
  mr_status st = MR_OK;
  while (n < MRI_ARRAY_SIZE(blocks)) {
    st = mr_allocate(mr, MiB, 0, NULL, &blocks[n]);
    if (st != MR_OK) break;
    n++;
  }
  if (n != 64 || st != MR_ERR_OUT_OF_MEMORY || strstr(mr_last_error(), "OUT_OF_MEMORY") == NULL) {
    print_error("pool(max=64MiB) handed out %zu blocks of 1 MiB, then %s: %s (expected 64, "
                "then MR_ERR_OUT_OF_MEMORY)\n",
                n, mr_status_name(st), mr_last_error());
    fail();
  }
  assert_ok(mr_deallocate(mr, blocks[0], MiB, 0, NULL));
  assert_ok(mr_allocate(mr, MiB, 0, NULL, &blocks[0]));
  for (size_t i = 0; i < n; i++) assert_ok(mr_deallocate(mr, blocks[i], MiB, 0, NULL));
  assert_ok(mr_resource_synchronize(mr, NULL));
  mr_resource_release(mr);
}

/* A default pool at threshold 0 is raised to the maximum at the first
 * allocation, not at creation. */
static void test_default_pool_threshold(void **state) {
  static const char *const specs[] = {"device_default", "device", "pinned", "managed"};
  for (size_t i = 0; i < MRI_ARRAY_SIZE(specs); i++) {
    const driver_case *c = driver_case_named(specs[i]);
    CUmemoryPool pool = default_pool(c->pool_kind);
    set_threshold(pool, 0); /* as a fresh process finds it */
    mr_resource *mr = create_case(c);
    assert_int_equal(pool_attribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD), 0);
    void *p = allocate(c, mr, MiB, 0, NULL);
    cuuint64_t raised = pool_attribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD);
    if (raised != UINT64_MAX) {
      print_error("%s: the default pool's release threshold is %llu after the first "
                  "allocation, expected UINT64_MAX\n",
                  c->spec, (unsigned long long)raised);
      fail();
    }
    deallocate(c, mr, p, MiB, 0, NULL);
    mr_resource_release(mr);
  }
}

int main(void) {
  GPU_TEST_REQUIRE();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_default_pool_threshold),
      cmocka_unit_test(test_application_current_pool),
      cmocka_unit_test(test_sizes),
      cmocka_unit_test(test_out_of_memory),
      cmocka_unit_test(test_pool_max),
      cmocka_unit_test(test_alignment),
      cmocka_unit_test(test_host_access),
      cmocka_unit_test(test_two_small_allocations_differ),
      cmocka_unit_test(test_random_sizes),
      cmocka_unit_test(test_streams),
      cmocka_unit_test(test_free_on_another_thread),
  };
  return cmocka_run_group_tests_name("driver on the GPU", tests, NULL, NULL);
}

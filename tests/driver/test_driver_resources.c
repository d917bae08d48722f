/*
 * Every driver resource over the fake driver: construction, properties,
 * descriptions, sizes and alignment, streams, threads, devices 0..3, and the
 * errors that need no injection (bad device ids, out of memory, arguments).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_cases.h"
#include "fake_test.h"

static mr_resource *create_case(const driver_case *c, int device) {
  mr_resource *mr = NULL;
  mr_status st = c->create(device, &mr);
  if (st != MR_OK) {
    print_error("creating %s on device %d: %s: %s\n", c->spec, device, mr_status_name(st),
                mr_last_error());
    fail();
  }
  return mr;
}

/* Allocate, check alignment and that the memory is writable, free. */
static void round_trip(const driver_case *c, mr_resource *mr, size_t bytes, size_t alignment,
                       mr_stream stream) {
  void *p = NULL;
  mr_status st = mr_allocate(mr, bytes, alignment, stream, &p);
  if (st != MR_OK) {
    print_error("%s: allocating %zu bytes aligned to %zu on stream %p: %s\n", c->spec, bytes,
                alignment, (void *)stream, mr_last_error());
    fail();
  }
  assert_non_null(p);
  size_t expected_alignment = alignment == 0 ? MR_DEFAULT_ALIGNMENT : alignment;
  if ((uintptr_t)p % expected_alignment != 0) {
    print_error("%s: %p is not aligned to %zu\n", c->spec, p, expected_alignment);
    fail();
  }
  memset(p, 0x5a, bytes); /* the fake's memory is host memory: ASan checks the bounds */
  assert_ok(mr_deallocate(mr, p, bytes, alignment, stream));
}

static void test_props_and_description(void **state) {
  for (size_t i = 0; i < driver_case_count; i++) {
    const driver_case *c = &driver_cases[i];
    mr_resource *mr = create_case(c, 1);
    assert_string_equal(mr_resource_describe(mr), c->spec);
    mr_resource_props props = {.size = sizeof props};
    assert_ok(mr_resource_get_props(mr, &props));
    assert_int_equal(props.kind, c->kind);
    assert_int_equal(props.device, c->per_device ? 1 : -1);
    assert_int_equal(props.host_accessible, c->kind != MR_MEMORY_DEVICE);
    assert_true(props.device_accessible);
    assert_int_equal(props.stream_ordered, c->pool_backed);
    assert_int_equal(props.native_alignment, MR_DEFAULT_ALIGNMENT);
    assert_string_equal(mr_resource_name(mr), c->pool_backed ? "pool" : "sync");
    assert_null(mr_resource_upstream(mr));
    mr_resource_release(mr);
  }
}

static void test_sizes_and_alignment(void **state) {
  static const size_t sizes[] = {1, 4, 8, 255, 256, 257, 1024, (size_t)1 << 20, (size_t)16 << 20};
  static const size_t alignments[] = {0, 1, 8, 256, 512, 4096, (size_t)1 << 16};
  for (size_t i = 0; i < driver_case_count; i++) {
    const driver_case *c = &driver_cases[i];
    mr_resource *mr = create_case(c, 0);
    for (size_t s = 0; s < MRI_ARRAY_SIZE(sizes); s++) round_trip(c, mr, sizes[s], 0, NULL);
    for (size_t a = 0; a < MRI_ARRAY_SIZE(alignments); a++)
      round_trip(c, mr, 1000, alignments[a], NULL);

    /* Size 0 touches nothing. */
    long before = fake_cuda_calls("cuMemAllocFromPoolAsync") + fake_cuda_calls("cuMemAlloc") +
                  fake_cuda_calls("cuMemHostAlloc") + fake_cuda_calls("cuMemAllocManaged");
    void *p = &p;
    assert_ok(mr_allocate(mr, 0, 0, NULL, &p));
    assert_null(p);
    assert_ok(mr_deallocate(mr, NULL, 0, 0, NULL));
    long after = fake_cuda_calls("cuMemAllocFromPoolAsync") + fake_cuda_calls("cuMemAlloc") +
                 fake_cuda_calls("cuMemHostAlloc") + fake_cuda_calls("cuMemAllocManaged");
    assert_int_equal(before, after);

    /* Not a power of two. */
    p = &p;
    assert_status(mr_allocate(mr, 64, 48, NULL, &p), MR_ERR_INVALID_ARGUMENT);
    assert_null(p);
    assert_error_contains("48");

    /* The synchronous forms. */
    assert_ok(mr_allocate_sync(mr, 4096, 0, &p));
    assert_non_null(p);
    memset(p, 1, 4096);
    assert_ok(mr_deallocate_sync(mr, p, 4096, 0));
    assert_ok(mr_allocate_sync(mr, 4096, 4096, &p));
    assert_int_equal((uintptr_t)p % 4096, 0);
    assert_ok(mr_deallocate_sync(mr, p, 4096, 4096));

    /* Two small allocations are different memory. */
    void *a = NULL, *b = NULL;
    assert_ok(mr_allocate(mr, 8, 0, NULL, &a));
    assert_ok(mr_allocate(mr, 8, 0, NULL, &b));
    assert_ptr_not_equal(a, b);
    assert_ok(mr_deallocate(mr, a, 8, 0, NULL));
    assert_ok(mr_deallocate(mr, b, 8, 0, NULL));

    assert_ok(mr_resource_synchronize(mr, NULL));
    mr_resource_release(mr);
    assert_fake_clean();
  }
}

/* Resources on devices 0..3 allocate on (and are charged to) their own
 * device; pinned and managed memory is charged to the host. */
static void test_devices_0_to_3(void **state) {
  for (size_t i = 0; i < driver_case_count; i++) {
    const driver_case *c = &driver_cases[i];
    for (int d = 0; d < 4; d++) {
      mr_resource *mr = create_case(c, d);
      size_t used_before[5];
      for (int k = -1; k < 4; k++) used_before[k + 1] = fake_cuda_used_memory(k);
      void *p = NULL;
      assert_ok(mr_allocate(mr, (size_t)3 << 20, 0, NULL, &p));
      int charged = c->per_device ? d : -1;
      if (fake_cuda_allocation_device(p) != charged) {
        print_error("%s on device %d: allocation charged to %d, expected %d\n", c->spec, d,
                    fake_cuda_allocation_device(p), charged);
        fail();
      }
      for (int k = -1; k < 4; k++) {
        size_t grew = fake_cuda_used_memory(k) - used_before[k + 1];
        assert_int_equal(grew, k == charged ? (size_t)3 << 20 : 0);
      }
      if (c->pool_backed) {
        mr_pool_info info = {.size = sizeof info};
        assert_ok(mr_pool_resource_get_info(mr, &info));
        assert_int_equal(info.kind, c->pool_kind);
        assert_int_equal(info.device, c->per_device ? d : -1);
        assert_int_equal(info.used_bytes, (uint64_t)3 << 20);
        CUmemoryPool from = fake_cuda_allocation_pool(p);
        assert_non_null(from);
        if (c->owned_pool)
          assert_ptr_not_equal(from, fake_default_pool(c->pool_kind, d));
        else
          assert_ptr_equal(from, fake_default_pool(c->pool_kind, d));
      } else {
        assert_null(fake_cuda_allocation_pool(p));
      }
      assert_ok(mr_deallocate(mr, p, (size_t)3 << 20, 0, NULL));
      mr_resource_release(mr);
      assert_fake_clean();
      fake_cuda_reset(); /* default pools keep freed memory: start each from empty */
    }
  }
}

static void test_invalid_devices(void **state) {
  static const int bad[] = {-1, 4, 16, 1000};
  for (size_t i = 0; i < driver_case_count; i++) {
    const driver_case *c = &driver_cases[i];
    for (size_t b = 0; b < MRI_ARRAY_SIZE(bad); b++) {
      mr_resource *mr = (mr_resource *)&mr;
      assert_status(c->create(bad[b], &mr), MR_ERR_NO_DEVICE);
      assert_null(mr);
      char device[32];
      snprintf(device, sizeof device, "device %d", bad[b]);
      assert_error_contains(device);
      assert_error_contains("4 devices");
    }
  }
  assert_fake_clean();
}

static void test_out_of_memory(void **state) {
  const size_t one_pib = (size_t)1 << 50;
  for (size_t i = 0; i < driver_case_count; i++) {
    const driver_case *c = &driver_cases[i];
    mr_resource *mr = create_case(c, 2);
    void *p = &p;
    assert_status(mr_allocate(mr, one_pib, 0, NULL, &p), MR_ERR_OUT_OF_MEMORY);
    assert_null(p);
    assert_error_contains("CUDA_ERROR_OUT_OF_MEMORY");
    assert_error_contains("1125899906842624");
    p = &p;
    assert_status(mr_allocate_sync(mr, one_pib, 0, &p), MR_ERR_OUT_OF_MEMORY);
    assert_null(p);
    /* Over-aligned: the size plus alignment overflows. */
    p = &p;
    assert_status(mr_allocate(mr, SIZE_MAX - 100, 4096, NULL, &p), MR_ERR_OUT_OF_MEMORY);
    assert_null(p);
    mr_resource_release(mr);
  }
  assert_fake_clean();
}

static void test_streams(void **state) {
  const mri_cuda_api *cu = fake_cu();
  fake_bind(0);
  CUstream blocking, non_blocking;
  assert_int_equal(cu->cuStreamCreate(&blocking, 0), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamCreate(&non_blocking, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  const mr_stream streams[] = {NULL, (mr_stream)CU_STREAM_LEGACY, (mr_stream)CU_STREAM_PER_THREAD,
                               blocking, non_blocking};
  for (size_t i = 0; i < driver_case_count; i++) {
    const driver_case *c = &driver_cases[i];
    mr_resource *mr = create_case(c, 0);
    for (size_t s = 0; s < MRI_ARRAY_SIZE(streams); s++) {
      round_trip(c, mr, 10000, 0, streams[s]);
      assert_ok(mr_resource_synchronize(mr, streams[s]));
    }
    /* Allocate on one stream, free on another. */
    void *p = NULL;
    assert_ok(mr_allocate(mr, 512, 0, non_blocking, &p));
    assert_ok(mr_deallocate(mr, p, 512, 0, blocking));
    mr_resource_release(mr);
  }
  /* A sync resource's free waits for the stream first: work queued before
   * the free may still use the memory. */
  mr_resource *sync = create_case(driver_case_named("sync_device"), 0);
  void *p = NULL;
  assert_ok(mr_allocate(sync, 512, 0, non_blocking, &p));
  assert_int_equal(fake_cuda_set_stream_busy(non_blocking, true), CUDA_SUCCESS);
  assert_ok(mr_deallocate(sync, p, 512, 0, non_blocking));
  assert_int_equal(cu->cuStreamQuery(non_blocking), CUDA_SUCCESS);
  mr_resource_release(sync);
  assert_int_equal(cu->cuStreamDestroy(blocking), CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamDestroy(non_blocking), CUDA_SUCCESS);
  assert_fake_clean();
}

/* What a thread saw, for the test to check after joining it. */
typedef struct thread_report {
  const driver_case *c;
  mr_resource *mr;
  int device;
  mr_stream stream;
  void *ptr;
  size_t bytes;
  mr_status alloc_status, free_status;
  int context_before, context_after; /* device of the current context, -1 none */
  char error[512];
} thread_report;

static void record_error(thread_report *r) {
  snprintf(r->error, sizeof r->error, "%s", mr_last_error());
}

static void allocate_on_thread(void *arg) {
  thread_report *r = arg;
  r->context_before = fake_current_device();
  r->alloc_status = mr_allocate(r->mr, r->bytes, 0, r->stream, &r->ptr);
  if (r->alloc_status != MR_OK) record_error(r);
  r->context_after = fake_current_device();
}

static void free_on_thread(void *arg) {
  thread_report *r = arg;
  r->context_before = fake_current_device();
  r->free_status = mr_deallocate(r->mr, r->ptr, r->bytes, 0, r->stream);
  if (r->free_status != MR_OK) record_error(r);
  r->context_after = fake_current_device();
}

/* A thread with no current context allocates on the legacy stream (and the
 * per-thread stream): pool resources make the device's primary context
 * current, as the runtime would; sync resources push it for the call only.
 * A block allocated on one thread is freed on another. */
static void test_threads_without_context(void **state) {
  const mr_stream streams[] = {NULL, (mr_stream)CU_STREAM_PER_THREAD};
  for (size_t i = 0; i < driver_case_count; i++) {
    const driver_case *c = &driver_cases[i];
    for (size_t s = 0; s < MRI_ARRAY_SIZE(streams); s++) {
      thread_report r = {.c = c, .mr = create_case(c, 2), .stream = streams[s], .bytes = 4096};
      fake_run_thread(allocate_on_thread, &r);
      if (r.alloc_status != MR_OK) {
        print_error("%s, stream %p, thread without context: %s\n", c->spec, (void *)streams[s],
                    r.error);
        fail();
      }
      assert_int_equal(r.context_before, -1);
      assert_int_equal(r.context_after, c->pool_backed ? 2 : -1);
      assert_int_equal(fake_cuda_allocation_device(r.ptr), c->per_device ? 2 : -1);
      fake_run_thread(free_on_thread, &r);
      if (r.free_status != MR_OK) {
        print_error("%s, stream %p, freeing on another thread without context: %s\n", c->spec,
                    (void *)streams[s], r.error);
        fail();
      }
      assert_int_equal(r.context_after, c->pool_backed ? 2 : -1);
      mr_resource_release(r.mr);
    }
  }
  assert_fake_clean();
}

/* A thread that has a context of another device keeps it. */
static void test_thread_context_is_kept(void **state) {
  for (size_t i = 0; i < driver_case_count; i++) {
    const driver_case *c = &driver_cases[i];
    mr_resource *mr = create_case(c, 3);
    fake_bind(1);
    void *p = NULL;
    assert_ok(mr_allocate(mr, 1000, 0, NULL, &p));
    assert_int_equal(fake_current_device(), 1);
    assert_int_equal(fake_cuda_allocation_device(p), c->per_device ? 3 : -1);
    assert_ok(mr_deallocate(mr, p, 1000, 0, NULL));
    assert_int_equal(fake_current_device(), 1);
    mr_resource_release(mr);
  }
  assert_fake_clean();
}

/* 100 random sizes, then all freed; and random interleaving ending with
 * nothing outstanding; the pool's used bytes come back. Sizes stay under
 * 1 MiB here (the gpu suite goes to 5 MiB): meson's MALLOC_PERTURB_ makes
 * the C library write every byte the fake allocates. */
#define RANDOM_MAX_BYTES ((size_t)1 << 20)
static void test_random_sizes(void **state) {
  enum { COUNT = 100 };
  for (size_t i = 0; i < driver_case_count; i++) {
    const driver_case *c = &driver_cases[i];
    mr_resource *mr = create_case(c, 1);
    mr_pool_info before = {.size = sizeof before}, after = {.size = sizeof after};
    if (c->pool_backed) assert_ok(mr_pool_resource_get_info(mr, &before));
    uint64_t seed = 0x9e3779b97f4a7c15ULL + i;
    void *ptrs[COUNT] = {0};
    size_t sizes[COUNT];
    for (int k = 0; k < COUNT; k++) {
      sizes[k] = 1 + test_rand(&seed) % RANDOM_MAX_BYTES;
      assert_ok(mr_allocate(mr, sizes[k], 0, NULL, &ptrs[k]));
    }
    for (int k = 0; k < COUNT; k++) assert_ok(mr_deallocate(mr, ptrs[k], sizes[k], 0, NULL));
    memset(ptrs, 0, sizeof ptrs);
    for (int step = 0; step < 200; step++) {
      int k = (int)(test_rand(&seed) % COUNT);
      if (ptrs[k] == NULL) {
        sizes[k] = 1 + test_rand(&seed) % RANDOM_MAX_BYTES;
        assert_ok(mr_allocate(mr, sizes[k], 0, NULL, &ptrs[k]));
      } else {
        assert_ok(mr_deallocate(mr, ptrs[k], sizes[k], 0, NULL));
        ptrs[k] = NULL;
      }
    }
    for (int k = 0; k < COUNT; k++)
      if (ptrs[k] != NULL) assert_ok(mr_deallocate(mr, ptrs[k], sizes[k], 0, NULL));
    if (c->pool_backed) {
      assert_ok(mr_pool_resource_get_info(mr, &after));
      assert_int_equal(after.used_bytes, before.used_bytes);
      assert_true(after.used_high >= RANDOM_MAX_BYTES);
    }
    mr_resource_release(mr);
    assert_fake_clean();
  }
}

/* Pools the resource owns give idle memory back on trim; the shared
 * default pools are not the resource's to trim. */
static void test_trim(void **state) {
  for (size_t i = 0; i < driver_case_count; i++) {
    const driver_case *c = &driver_cases[i];
    if (!c->pool_backed) continue;
    mr_resource *mr = create_case(c, 0);
    void *p = NULL;
    assert_ok(mr_allocate(mr, (size_t)8 << 20, 0, NULL, &p));
    assert_ok(mr_deallocate(mr, p, (size_t)8 << 20, 0, NULL));
    assert_ok(mr_resource_synchronize(mr, NULL));
    mr_pool_info info = {.size = sizeof info};
    assert_ok(mr_pool_resource_get_info(mr, &info));
    assert_int_equal(info.reserved_bytes, (uint64_t)8 << 20); /* threshold max: kept */
    assert_ok(mr_resource_trim(mr));
    assert_ok(mr_pool_resource_get_info(mr, &info));
    assert_int_equal(info.reserved_bytes, c->owned_pool ? 0 : (uint64_t)8 << 20);
    mr_resource_release(mr);
  }
  assert_fake_clean();
}

/* After the driver shut down at process exit, freeing and releasing must
 * not fail or crash: the memory went with the driver. */
static void test_free_after_driver_shutdown(void **state) {
  mr_resource *mrs[32];
  void *ptrs[32];
  size_t n = 0;
  fake_bind(0);
  CUstream stream;
  assert_int_equal(fake_cu()->cuStreamCreate(&stream, 0), CUDA_SUCCESS);
  for (size_t i = 0; i < driver_case_count; i++) {
    const mr_stream on[] = {NULL, (mr_stream)stream};
    for (size_t s = 0; s < MRI_ARRAY_SIZE(on); s++) {
      mrs[n] = create_case(&driver_cases[i], 1);
      assert_ok(mr_allocate(mrs[n], 2048, 0, on[s], &ptrs[n]));
      n++;
    }
  }
  fake_cuda_set_deinitialized(true);
  for (size_t k = 0; k < n; k++) {
    mr_stream on = k % 2 == 0 ? NULL : (mr_stream)stream;
    mr_status st = mr_deallocate(mrs[k], ptrs[k], 2048, 0, on);
    if (st != MR_OK) {
      print_error("%s: freeing after driver shutdown: %s\n", mr_resource_describe(mrs[k]),
                  mr_last_error());
      fail();
    }
    assert_ok(mr_resource_synchronize(mrs[k], on));
    mr_resource_release(mrs[k]);
  }
  fake_cuda_reset(); /* the "shut down" driver kept its memory: drop it */
}

static void test_argument_errors(void **state) {
  for (size_t i = 0; i < driver_case_count; i++) {
    assert_status(driver_cases[i].create(0, NULL), MR_ERR_INVALID_ARGUMENT);
    assert_error_contains("out is NULL");
  }
  mr_resource *mr = (mr_resource *)&mr;
  assert_status(mr_pool_resource_create(0, NULL, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  assert_error_contains("desc is NULL");

  mr_pool_desc desc;
  mr_pool_desc_init(&desc, (mr_pool_kind)7);
  mr = (mr_resource *)&mr;
  assert_status(mr_pool_resource_create(0, &desc, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  assert_error_contains("unknown kind 7");

  mr_pool_desc_init(&desc, MR_POOL_DEVICE);
  desc.access = (mr_pool_access)9;
  assert_status(mr_pool_resource_create(0, &desc, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("unknown access 9");

  mr_pool_desc_init(&desc, MR_POOL_DEVICE);
  desc.max_size = (uint64_t)1 << 20;
  desc.initial_size = (uint64_t)2 << 20;
  assert_status(mr_pool_resource_create(0, &desc, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("initial=2097152 bytes is more than max=1048576 bytes");

  /* The desc is a versioned struct (docs/abi.md): no size is an error; a
   * newer header's desc works while its extra fields are zero, and is
   * refused once one is set. */
  mr_pool_desc_init(&desc, MR_POOL_DEVICE);
  desc.size = 0;
  assert_status(mr_pool_resource_create(0, &desc, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("mr_pool_desc.size is 0");
  struct {
    mr_pool_desc known;
    uint64_t future;
  } newer;
  memset(&newer, 0, sizeof newer);
  mr_pool_desc_init(&newer.known, MR_POOL_DEVICE);
  newer.known.size = sizeof newer;
  newer.known.max_size = (uint64_t)64 << 20;
  assert_ok(mr_pool_resource_create(0, &newer.known, &mr));
  assert_string_equal(mr_resource_describe(mr), "pool(kind=device, max=64MiB)");
  mr_resource_release(mr);
  newer.future = 1;
  assert_status(mr_pool_resource_create(0, &newer.known, &mr), MR_ERR_UNSUPPORTED);
  assert_null(mr);

  /* A pool with an invalid device names the pool's spec. */
  mr_pool_desc_init(&desc, MR_POOL_PINNED);
  desc.release_threshold = 0;
  assert_status(mr_pool_resource_create(7, &desc, &mr), MR_ERR_NO_DEVICE);
  assert_error_contains("pool(kind=pinned, release=0B)");
  assert_error_contains("device 7 does not exist");

  mr_pool_desc_init(NULL, MR_POOL_DEVICE); /* ignored */
  mr_pool_desc_init(&desc, MR_POOL_MANAGED);
  assert_int_equal(desc.kind, MR_POOL_MANAGED);
  assert_int_equal(desc.release_threshold, MR_POOL_RELEASE_MAX);
  assert_int_equal(desc.max_size, 0);
  assert_int_equal(desc.initial_size, 0);
  assert_int_equal(desc.access, MR_POOL_ACCESS_ALL);
  assert_string_equal(mr_pool_kind_name(MR_POOL_PINNED), "pinned");
  assert_string_equal(mr_pool_kind_name((mr_pool_kind)42), "unknown");
  assert_fake_clean();
}

/* Pool resources with every parameter, and their descriptions. */
static void test_pool_parameters(void **state) {
  static const struct {
    mr_pool_kind kind;
    uint64_t release, max, initial;
    mr_pool_access access;
    const char *spec;
  } cases[] = {
      {MR_POOL_DEVICE, MR_POOL_RELEASE_MAX, 0, 0, MR_POOL_ACCESS_ALL, "pool(kind=device)"},
      {MR_POOL_DEVICE, (uint64_t)1 << 20, (uint64_t)64 << 20, (uint64_t)8 << 20,
       MR_POOL_ACCESS_NONE,
       "pool(kind=device, release=1MiB, max=64MiB, initial=8MiB, access=none)"},
      {MR_POOL_PINNED, 0, (uint64_t)32 << 20, 0, MR_POOL_ACCESS_ALL,
       "pool(kind=pinned, release=0B, max=32MiB)"},
      {MR_POOL_PINNED, MR_POOL_RELEASE_MAX, 0, (uint64_t)4 << 20, MR_POOL_ACCESS_NONE,
       "pool(kind=pinned, initial=4MiB, access=none)"},
      {MR_POOL_MANAGED, (uint64_t)3 << 30, 0, 0, MR_POOL_ACCESS_ALL,
       "pool(kind=managed, release=3GiB)"},
      /* Sizes that are no whole number of a larger unit stay exact. */
      {MR_POOL_DEVICE, 10241, (uint64_t)1536 << 10, 0, MR_POOL_ACCESS_ALL,
       "pool(kind=device, release=10241B, max=1536KiB)"},
      {MR_POOL_DEVICE, ((uint64_t)20 << 30) + 1024, 0, 0, MR_POOL_ACCESS_ALL,
       "pool(kind=device, release=20971521KiB)"},
  };
  for (size_t i = 0; i < MRI_ARRAY_SIZE(cases); i++) {
    mr_pool_desc desc;
    mr_pool_desc_init(&desc, cases[i].kind);
    desc.release_threshold = cases[i].release;
    desc.max_size = cases[i].max;
    desc.initial_size = cases[i].initial;
    desc.access = cases[i].access;
    mr_resource *mr = NULL;
    assert_ok(mr_pool_resource_create(0, &desc, &mr));
    assert_string_equal(mr_resource_describe(mr), cases[i].spec);
    mr_pool_info info = {.size = sizeof info};
    assert_ok(mr_pool_resource_get_info(mr, &info));
    assert_int_equal(info.release_threshold, cases[i].release);
    assert_false(info.is_default);
    assert_false(info.is_current);
    /* The initial reservation stays only up to the release threshold. */
    uint64_t kept = cases[i].initial < cases[i].release ? cases[i].initial : cases[i].release;
    assert_int_equal(info.reserved_bytes, kept);
    assert_int_equal(info.reserved_high, cases[i].initial);
    assert_int_equal(info.used_bytes, 0);
    if (cases[i].max != 0) {
      void *p = &p;
      assert_status(mr_allocate(mr, (size_t)cases[i].max + 1, 0, NULL, &p), MR_ERR_OUT_OF_MEMORY);
      assert_null(p);
      assert_ok(mr_allocate(mr, (size_t)cases[i].max, 0, NULL, &p));
      assert_ok(mr_deallocate(mr, p, (size_t)cases[i].max, 0, NULL));
    }
    mr_resource_release(mr);
    assert_fake_clean();
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_props_and_description, fake_teardown),
      cmocka_unit_test_teardown(test_sizes_and_alignment, fake_teardown),
      cmocka_unit_test_teardown(test_devices_0_to_3, fake_teardown),
      cmocka_unit_test_teardown(test_invalid_devices, fake_teardown),
      cmocka_unit_test_teardown(test_out_of_memory, fake_teardown),
      cmocka_unit_test_teardown(test_streams, fake_teardown),
      cmocka_unit_test_teardown(test_threads_without_context, fake_teardown),
      cmocka_unit_test_teardown(test_thread_context_is_kept, fake_teardown),
      cmocka_unit_test_teardown(test_random_sizes, fake_teardown),
      cmocka_unit_test_teardown(test_trim, fake_teardown),
      cmocka_unit_test_teardown(test_free_after_driver_shutdown, fake_teardown),
      cmocka_unit_test_teardown(test_argument_errors, fake_teardown),
      cmocka_unit_test_teardown(test_pool_parameters, fake_teardown),
  };
  return cmocka_run_group_tests_name("driver resources", tests, fake_group_setup, NULL);
}

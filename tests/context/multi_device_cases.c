/*
 * multi_device_cases.c: the multi-device cases (see multi_device_cases.h),
 * each on every visible device:
 *  - a context resolves every tag on every device, and `tag@1=...` changes
 *    device 1 only (descriptions and mr_context_get_source);
 *  - allocations from each device's resource (device, cache, arena, fixed,
 *    bin) land on that device (CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL), and
 *    freeing them after the thread switched to another device reaches the
 *    right device: the pool's used bytes and the tag's statistics return;
 *  - mr_context_get_mr follows the thread's current context;
 *  - `pinned` memory is granted to every device and a copy on each
 *    device's stream moves bytes device <-> pinned;
 *  - pool(kind=device, access=all) on each device is granted to its next
 *    device, which copies from it on its own stream; access=none grants it
 *    nothing (docs/driver.md, "Access");
 *  - the device map and the process-wide current-device resource with one
 *    thread per device, all at once.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "driver/cuda_api.h"
#include "multi_device_cases.h"

#define BLOCK 4096

static void check_cu(CUresult r, const char *call, int device, int line) {
  if (r != CUDA_SUCCESS) {
    print_error("multi_device_cases.c:%d: %s on device %d: %s\n", line, call, device,
                mri_cuda_error_name(r));
    fail();
  }
}
#define CU_OK(call, device) check_cu((call), #call, (device), __LINE__)

static int device_count(void) {
  int n = 0;
  assert_ok(mr_device_count(&n));
  assert_true(n >= 2);
  return n;
}

/* Make `device`'s primary context current on the calling thread. */
static void bind(int device) {
  CUcontext c = NULL;
  assert_ok(mri_primary_context(device, &c));
  CU_OK(mri_cuda()->cuCtxSetCurrent(c), device);
}

static CUstream new_stream(int device) {
  bind(device);
  CUstream s = NULL;
  CU_OK(mri_cuda()->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), device);
  return s;
}

static int device_of(const void *p) {
  int ordinal = -1;
  CU_OK(mri_cuda()->cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                          (CUdeviceptr)(uintptr_t)p),
        -1);
  return ordinal;
}

/* The access `device` has to the pool `p` came from. */
static CUmemAccess_flags pool_access_of(const void *p, int device) {
  CUmemoryPool pool = NULL;
  CU_OK(mri_cuda()->cuPointerGetAttribute(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
                                          (CUdeviceptr)(uintptr_t)p),
        device);
  assert_non_null(pool);
  CUmemLocation where = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = device};
  CUmemAccess_flags flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
  CU_OK(mri_cuda()->cuMemPoolGetAccess(&flags, pool, &where), device);
  return flags;
}

static size_t current_pool_used(int device) {
  mr_pool_info info = {.size = sizeof info};
  assert_ok(mr_driver_pool_get_info(MR_DRIVER_POOL_DEVICE_CURRENT, device, &info));
  return info.used_bytes;
}

enum { DEVICE, CACHED, ARENA, FIXED, BIN, STAGING, TAG_COUNT };
static const mr_tag tags[TAG_COUNT] = {
    [DEVICE] = {"device", "device"},
    [CACHED] = {"cached", "cache(device)"},
    [ARENA] = {"temp", "arena(device, chunk=1MiB)"},
    [FIXED] = {"fixed", "fixed(device, block=64KiB, count=4)"},
    [BIN] = {"small", "bin(device, min=256B, max=64KiB, count=4)"},
    [STAGING] = {"staging", "pinned"},
};

static mr_context *new_context(const char *overrides) {
  mr_context_desc desc = {.size = sizeof desc,
                          .library = "multi",
                          .tags = tags,
                          .tag_count = TAG_COUNT,
                          .overrides = overrides};
  mr_context *ctx = NULL;
  assert_ok(mr_context_create(&desc, &ctx));
  return ctx;
}

void md_test_tags_resolve_on_every_device(void **state) {
  (void)state;
  int n = device_count();
  mr_context *ctx = new_context("cached@1=cache(stats(device)); staging@1=host");
  assert_int_equal(mr_context_device_count(ctx), n);
  for (int d = 0; d < n; d++) {
    for (int t = 0; t < TAG_COUNT; t++) {
      mr_resource *mr = mr_context_get_mr_on(ctx, t, d);
      assert_non_null(mr);
      mr_spec_source s = {.size = sizeof s};
      assert_ok(mr_context_get_source(ctx, t, d, &s));
      assert_int_equal(s.status, MR_OK);
      bool overridden = d == 1 && (t == CACHED || t == STAGING);
      assert_int_equal(s.origin, overridden ? MR_SPEC_OVERRIDE : MR_SPEC_DEFAULT);
      mr_resource_props props = {.size = sizeof props};
      assert_ok(mr_resource_get_props(mr, &props));
      if (t == STAGING) {
        assert_int_equal(props.kind, overridden ? MR_MEMORY_HOST : MR_MEMORY_PINNED);
      } else {
        assert_int_equal(props.kind, MR_MEMORY_DEVICE);
        assert_int_equal(props.device, d);
      }
      /* Every device but 1 resolves the default exactly as device 0 does. */
      if (d > 0 && !overridden)
        assert_string_equal(mr_resource_describe(mr),
                            mr_resource_describe(mr_context_get_mr_on(ctx, t, 0)));
      /* Each device has resources of its own. */
      if (d > 0) assert_ptr_not_equal(mr, mr_context_get_mr_on(ctx, t, d - 1));
    }
    const char *cached = mr_resource_describe(mr_context_get_mr_on(ctx, CACHED, d));
    assert_true((strstr(cached, "stats(device)") != NULL) == (d == 1));
    assert_string_equal(mr_resource_describe(mr_context_get_mr_on(ctx, STAGING, d)),
                        d == 1 ? "host" : "retry(pinned)");
  }
  mr_context_destroy(ctx);
}

void md_test_allocations_land_on_their_device(void **state) {
  (void)state;
  const mri_cuda_api *cu = mri_cuda();
  int n = device_count();
  mr_context *ctx = new_context(NULL);
  for (int t = DEVICE; t <= BIN; t++) {
    for (int d = 0; d < n; d++) {
      int other = (d + 1) % n;
      CUstream stream = new_stream(d);
      size_t used_before[2] = {current_pool_used(d), current_pool_used(other)};
      mr_resource *mr = mr_context_get_mr_on(ctx, t, d);
      void *p[3] = {0};
      for (int i = 0; i < 3; i++) {
        assert_ok(mr_allocate(mr, BLOCK << i, 0, stream, &p[i]));
        assert_int_equal(device_of(p[i]), d);
      }
      /* The thread moves to another device before freeing. */
      bind(other);
      for (int i = 0; i < 3; i++) assert_ok(mr_deallocate(mr, p[i], BLOCK << i, 0, stream));
      mr_stats stats;
      mr_stats_init(&stats);
      assert_ok(mr_context_get_stats(ctx, t, d, &stats));
      assert_int_equal(stats.current_bytes, 0);
      assert_int_equal(stats.total_count, 3);
      CU_OK(cu->cuStreamSynchronize(stream), d);
      /* The other device's pool never saw the memory; the bare device
       * pool has all of it back. */
      assert_int_equal(current_pool_used(other), used_before[1]);
      if (t == DEVICE) assert_int_equal(current_pool_used(d), used_before[0]);
      bind(d);
      CU_OK(cu->cuStreamDestroy(stream), d);
    }
  }
  bind(0);
  mr_context_destroy(ctx);
}

void md_test_get_mr_follows_the_current_device(void **state) {
  (void)state;
  int n = device_count();
  mr_context *ctx = new_context("device@1=stats(device)");
  for (int d = n - 1; d >= 0; d--) {
    bind(d);
    assert_int_equal(mr_current_device(), d);
    for (int t = 0; t < TAG_COUNT; t++)
      assert_ptr_equal(mr_context_get_mr(ctx, t), mr_context_get_mr_on(ctx, t, d));
  }
  bind(1);
  assert_non_null(strstr(mr_resource_describe(ctx_get_mr(ctx, DEVICE)), "stats(device)"));
  bind(0);
  mr_context_destroy(ctx);
}

void md_test_pinned_reachable_from_every_device(void **state) {
  (void)state;
  const mri_cuda_api *cu = mri_cuda();
  int n = device_count();
  mr_context *ctx = new_context(NULL);
  /* One pinned buffer, taken on device 0, used by every device. */
  bind(0);
  mr_resource *pinned = mr_context_get_mr_on(ctx, STAGING, 0);
  unsigned char *host = NULL;
  assert_ok(mr_allocate_sync(pinned, BLOCK, 0, (void **)&host));
  for (int d = 0; d < n; d++) {
    assert_int_equal(pool_access_of(host, d), CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    CUstream stream = new_stream(d);
    void *dev = NULL;
    assert_ok(mr_allocate(mr_context_get_mr_on(ctx, DEVICE, d), BLOCK, 0, stream, &dev));
    unsigned char pattern = (unsigned char)(0x5A + d);
    memset(host, pattern, BLOCK);
    /* pinned -> device, then the host forgets, then device -> pinned. */
    CU_OK(
        cu->cuMemcpyAsync((CUdeviceptr)(uintptr_t)dev, (CUdeviceptr)(uintptr_t)host, BLOCK, stream),
        d);
    CU_OK(cu->cuStreamSynchronize(stream), d);
    memset(host, 0, BLOCK);
    CU_OK(
        cu->cuMemcpyAsync((CUdeviceptr)(uintptr_t)host, (CUdeviceptr)(uintptr_t)dev, BLOCK, stream),
        d);
    CU_OK(cu->cuStreamSynchronize(stream), d);
    for (size_t i = 0; i < BLOCK; i++)
      if (host[i] != pattern) {
        print_error("device %d: byte %zu of the pinned buffer is %#x, not %#x\n", d, i, host[i],
                    pattern);
        fail();
      }
    assert_ok(mr_deallocate(mr_context_get_mr_on(ctx, DEVICE, d), dev, BLOCK, 0, stream));
    CU_OK(cu->cuStreamSynchronize(stream), d);
    CU_OK(cu->cuStreamDestroy(stream), d);
  }
  bind(0);
  assert_ok(mr_deallocate_sync(pinned, host, BLOCK, 0));
  mr_context_destroy(ctx);
}

/* A pool on `owner`, read by `peer` on its own stream: the copy lands in
 * peer memory and comes back through pinned memory byte for byte. */
static void copy_from_peer_pool(mr_context *ctx, int owner, int peer) {
  const mri_cuda_api *cu = mri_cuda();
  mr_resource *pool = NULL;
  assert_ok(mr_resource_from_spec("pool(kind=device, access=all)", owner, &pool));
  CUstream owner_stream = new_stream(owner);
  void *src = NULL;
  assert_ok(mr_allocate(pool, BLOCK, 0, owner_stream, &src));
  assert_int_equal(device_of(src), owner);
  assert_int_equal(pool_access_of(src, peer), CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
  unsigned char pattern = (unsigned char)(0xA0 + owner);
  CU_OK(cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)src, pattern, BLOCK, owner_stream), owner);
  CU_OK(cu->cuStreamSynchronize(owner_stream), owner);

  CUstream peer_stream = new_stream(peer);
  void *dst = NULL;
  unsigned char *host = NULL;
  assert_ok(mr_allocate(mr_context_get_mr_on(ctx, DEVICE, peer), BLOCK, 0, peer_stream, &dst));
  assert_ok(
      mr_allocate(mr_context_get_mr_on(ctx, STAGING, peer), BLOCK, 0, peer_stream, (void **)&host));
  CU_OK(cu->cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, BLOCK,
                          peer_stream),
        peer);
  CU_OK(cu->cuMemcpyAsync((CUdeviceptr)(uintptr_t)host, (CUdeviceptr)(uintptr_t)dst, BLOCK,
                          peer_stream),
        peer);
  CU_OK(cu->cuStreamSynchronize(peer_stream), peer);
  for (size_t i = 0; i < BLOCK; i++)
    if (host[i] != pattern) {
      print_error("device %d reading device %d's pool: byte %zu is %#x, not %#x\n", peer, owner, i,
                  host[i], pattern);
      fail();
    }
  assert_ok(mr_deallocate(mr_context_get_mr_on(ctx, STAGING, peer), host, BLOCK, 0, peer_stream));
  assert_ok(mr_deallocate(mr_context_get_mr_on(ctx, DEVICE, peer), dst, BLOCK, 0, peer_stream));
  CU_OK(cu->cuStreamSynchronize(peer_stream), peer);
  CU_OK(cu->cuStreamDestroy(peer_stream), peer);
  bind(owner);
  assert_ok(mr_deallocate(pool, src, BLOCK, 0, owner_stream));
  CU_OK(cu->cuStreamSynchronize(owner_stream), owner);
  CU_OK(cu->cuStreamDestroy(owner_stream), owner);
  mr_resource_release(pool);
}

/* access=none: the owner keeps read-write access, no other device has any
 * (docs/driver.md: "keeps the memory private to the owning device"). */
static void private_pool(int owner, int n) {
  const mri_cuda_api *cu = mri_cuda();
  mr_resource *pool = NULL;
  assert_ok(mr_resource_from_spec("pool(kind=device, access=none)", owner, &pool));
  CUstream stream = new_stream(owner);
  void *p = NULL;
  assert_ok(mr_allocate(pool, BLOCK, 0, stream, &p));
  for (int d = 0; d < n; d++)
    assert_int_equal(pool_access_of(p, d), d == owner ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE
                                                      : CU_MEM_ACCESS_FLAGS_PROT_NONE);
  assert_ok(mr_deallocate(pool, p, BLOCK, 0, stream));
  CU_OK(cu->cuStreamSynchronize(stream), owner);
  CU_OK(cu->cuStreamDestroy(stream), owner);
  mr_resource_release(pool);
}

void md_test_peer_pool(void **state) {
  (void)state;
  const mri_cuda_api *cu = mri_cuda();
  int n = device_count();
  mr_context *ctx = new_context(NULL);
  int pairs = 0;
  for (int owner = 0; owner < n; owner++) {
    int peer = (owner + 1) % n;
    CUdevice owner_dev, peer_dev;
    int can = 0;
    CU_OK(cu->cuDeviceGet(&owner_dev, owner), owner);
    CU_OK(cu->cuDeviceGet(&peer_dev, peer), peer);
    CU_OK(cu->cuDeviceCanAccessPeer(&can, peer_dev, owner_dev), peer);
    private_pool(owner, n);
    if (!can) {
      fprintf(stderr, "device %d cannot access device %d as a peer: that pair is not tested\n",
              peer, owner);
      continue;
    }
    copy_from_peer_pool(ctx, owner, peer);
    pairs++;
  }
  bind(0);
  mr_context_destroy(ctx);
  if (pairs == 0) skip();
}

/* ---- the device map, one thread per device ------------------------------ */

#define MAP_ROUNDS 200

typedef struct map_job {
  int device;
  mr_device_map *map;
  pthread_barrier_t *start;
  char error[256]; /* empty if every check held */
} map_job;

#define JOB_FAIL(j, ...)                                 \
  do {                                                   \
    snprintf((j)->error, sizeof(j)->error, __VA_ARGS__); \
    goto out;                                            \
  } while (0)

/* Checks one resource allocates on the job's device, MAP_ROUNDS times. */
static bool allocate_here(map_job *j, mr_resource *mr, const char *what) {
  for (int i = 0; i < MAP_ROUNDS; i++) {
    void *p = NULL;
    mr_status st = mr_allocate_sync(mr, BLOCK, 0, &p);
    if (st != MR_OK) {
      snprintf(j->error, sizeof j->error, "device %d: %s: %s", j->device, what, mr_last_error());
      return false;
    }
    int ordinal = -1;
    CUresult r = mri_cuda()->cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                                   (CUdeviceptr)(uintptr_t)p);
    st = mr_deallocate_sync(mr, p, BLOCK, 0);
    if (r != CUDA_SUCCESS || ordinal != j->device || st != MR_OK) {
      snprintf(j->error, sizeof j->error, "device %d: %s: memory on device %d (%s), free: %s",
               j->device, what, ordinal, mri_cuda_error_name(r), mr_status_name(st));
      return false;
    }
  }
  return true;
}

static void *map_thread(void *arg) {
  map_job *j = arg;
  mr_resource *own = NULL, *previous = NULL, *map_previous = NULL, *gone = NULL, *map_gone = NULL;
  CUcontext c = NULL;
  bool bound =
      mri_primary_context(j->device, &c) == MR_OK && mri_cuda()->cuCtxSetCurrent(c) == CUDA_SUCCESS;
  pthread_barrier_wait(j->start); /* every thread, bound or not, or the others wait forever */
  if (!bound) JOB_FAIL(j, "device %d: cannot bind the thread", j->device);
  if (mr_get_current_device_resource() != mr_get_per_device_resource(j->device))
    JOB_FAIL(j, "device %d: the current device resource is another device's", j->device);
  if (!allocate_here(j, mr_get_current_device_resource(), "initial current resource")) goto out;
  if (mr_resource_from_spec("stats(device)", j->device, &own) != MR_OK)
    JOB_FAIL(j, "device %d: %s", j->device, mr_last_error());
  /* Every thread sets its own slot, at once, in both maps. */
  if (mr_set_current_device_resource(own, &previous) != MR_OK ||
      mr_device_map_set(j->map, j->device, own, &map_previous) != MR_OK)
    JOB_FAIL(j, "device %d: set: %s", j->device, mr_last_error());
  if (mr_get_current_device_resource() != own || mr_get_per_device_resource(j->device) != own ||
      mr_device_map_get(j->map, j->device) != own)
    JOB_FAIL(j, "device %d: get does not return what this thread set", j->device);
  if (!allocate_here(j, mr_get_current_device_resource(), "the resource set")) goto out;
  if (!allocate_here(j, mr_device_map_get(j->map, j->device), "the map's resource")) goto out;
  if (mr_reset_current_device_resource(&gone) != MR_OK ||
      mr_device_map_reset(j->map, j->device, &map_gone) != MR_OK)
    JOB_FAIL(j, "device %d: reset: %s", j->device, mr_last_error());
  if (gone != own || map_gone != own)
    JOB_FAIL(j, "device %d: reset returned another resource", j->device);
  if (mr_get_current_device_resource() != mr_get_per_device_resource(j->device) ||
      strcmp(mr_resource_describe(mr_get_current_device_resource()), "device") != 0)
    JOB_FAIL(j, "device %d: reset did not restore the initial resource", j->device);
out:
  mr_resource_release(gone);
  mr_resource_release(map_gone);
  mr_resource_release(previous);
  mr_resource_release(map_previous);
  mr_resource_release(own);
  return NULL;
}

void md_test_device_map_one_thread_per_device(void **state) {
  (void)state;
  int n = device_count();
  mr_device_map *map = NULL;
  assert_ok(mr_device_map_create(&map));
  assert_int_equal(mr_device_map_size(map), n);
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)n);
  map_job jobs[64];
  pthread_t threads[64];
  assert_true(n <= 64);
  for (int d = 0; d < n; d++) {
    jobs[d] = (map_job){.device = d, .map = map, .start = &start};
    assert_int_equal(pthread_create(&threads[d], NULL, map_thread, &jobs[d]), 0);
  }
  for (int d = 0; d < n; d++) pthread_join(threads[d], NULL);
  pthread_barrier_destroy(&start);
  mr_device_map_destroy(map);
  for (int d = 0; d < n; d++)
    if (jobs[d].error[0] != '\0') {
      print_error("%s\n", jobs[d].error);
      fail();
    }
}

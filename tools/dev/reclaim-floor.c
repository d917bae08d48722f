/*
 * reclaim-floor.c: what the driver itself takes to give idle device memory
 * back, the floor under a reclaim's time (docs/driver.md, "What a page
 * costs to give back"; docs/semantics.md, "One process, one memory").
 *
 * Two rounds of: N x 1 GiB allocated from the default pool, freed, and the
 * pool trimmed (at once, from the pool's reserve, one GiB at a time, and an
 * owned pool); the same with cuMemAlloc / cuMemFree; with one cuMemCreate
 * of 1 GiB each; then 10 GiB in 2 MiB and in 20 MiB pages, unmapped page by
 * page and in one cuMemUnmap. Needs N GiB free on device 0.
 *
 *   gcc -O2 -o /tmp/reclaim-floor tools/dev/reclaim-floor.c \
 *       -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda
 *   /tmp/reclaim-floor 50
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define CK(x)                    \
  do {                           \
    CUresult r_ = (x);           \
    if (r_) {                    \
      const char *s;             \
      cuGetErrorName(r_, &s);    \
      printf("%s: %s\n", #x, s); \
      exit(1);                   \
    }                            \
  } while (0)
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 50;
  size_t blk = (size_t)1 << 30;
  CUdevice dev;
  CUcontext ctx;
  CK(cuInit(0));
  CK(cuDeviceGet(&dev, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  CUdeviceptr *p = calloc(n, sizeof *p);
  for (int round = 0; round < 2; round++) {
    /* 1. default pool, stream-ordered */
    CUmemoryPool pool;
    CK(cuDeviceGetDefaultMemPool(&pool, dev));
    cuuint64_t thr = ~0ull;
    CK(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &thr));
    CUstream s;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    double t0 = now();
    for (int i = 0; i < n; i++) CK(cuMemAllocFromPoolAsync(&p[i], blk, pool, s));
    for (int i = 0; i < n; i++) CK(cuMemsetD8Async(p[i], 1, 4096, s));
    CK(cuStreamSynchronize(s));
    double t1 = now();
    for (int i = 0; i < n; i++) CK(cuMemFreeAsync(p[i], s));
    double t2 = now();
    CK(cuStreamSynchronize(s));
    double t3 = now();
    CK(cuCtxSynchronize());
    double t4 = now();
    CK(cuMemPoolTrimTo(pool, 0));
    double t5 = now();
    printf("pool: alloc+touch %.1f ms, %d frees %.2f ms, sync %.2f, ctxsync %.2f, trim %.1f ms "
           "(%.2f ms/GiB)\n",
           t1 - t0, n, t2 - t1, t3 - t2, t4 - t3, t5 - t4, (t5 - t4) / n);
    /* 1b. same, trimming while frees are issued in one pass per block */
    for (int i = 0; i < n; i++) CK(cuMemAllocFromPoolAsync(&p[i], blk, pool, s));
    CK(cuStreamSynchronize(s));
    for (int i = 0; i < n; i++) CK(cuMemFreeAsync(p[i], s));
    CK(cuStreamSynchronize(s));
    t0 = now();
    CK(cuMemPoolTrimTo(pool, 0));
    t1 = now();
    printf("pool (realloc from reserve, no touch): trim %.1f ms (%.2f ms/GiB)\n", t1 - t0,
           (t1 - t0) / n);
    /* 1c. trim in steps of one block */
    for (int i = 0; i < n; i++) CK(cuMemAllocFromPoolAsync(&p[i], blk, pool, s));
    CK(cuStreamSynchronize(s));
    for (int i = 0; i < n; i++) CK(cuMemFreeAsync(p[i], s));
    CK(cuStreamSynchronize(s));
    t0 = now();
    for (int i = n - 1; i >= 0; i--) CK(cuMemPoolTrimTo(pool, (size_t)i * blk));
    t1 = now();
    printf("pool, trim one GiB at a time: %.1f ms\n", t1 - t0);
    /* 1d. explicit pool with 2 MiB? no: owned pool */
    CUmemPoolProps props = {0};
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 0;
    CUmemoryPool own;
    CK(cuMemPoolCreate(&own, &props));
    CK(cuMemPoolSetAttribute(own, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &thr));
    for (int i = 0; i < n; i++) CK(cuMemAllocFromPoolAsync(&p[i], blk, own, s));
    for (int i = 0; i < n; i++) CK(cuMemsetD8Async(p[i], 1, 4096, s));
    CK(cuStreamSynchronize(s));
    for (int i = 0; i < n; i++) CK(cuMemFreeAsync(p[i], s));
    CK(cuStreamSynchronize(s));
    t0 = now();
    CK(cuMemPoolTrimTo(own, 0));
    t1 = now();
    printf("owned pool: trim %.1f ms (%.2f ms/GiB)\n", t1 - t0, (t1 - t0) / n);
    t0 = now();
    CK(cuMemPoolDestroy(own));
    t1 = now();
    printf("owned pool destroy (empty): %.2f ms\n", t1 - t0);
    /* 2. cuMemAlloc / cuMemFree */
    for (int i = 0; i < n; i++) CK(cuMemAlloc(&p[i], blk));
    for (int i = 0; i < n; i++) CK(cuMemsetD8(p[i], 1, 4096));
    CK(cuCtxSynchronize());
    t0 = now();
    for (int i = 0; i < n; i++) CK(cuMemFree(p[i]));
    t1 = now();
    printf("cuMemFree: %.1f ms (%.2f ms/GiB)\n", t1 - t0, (t1 - t0) / n);
    /* 3. VMM */
    CUmemAllocationProp vp = {0};
    vp.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    vp.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    vp.location.id = 0;
    CUmemGenericAllocationHandle *h = calloc(n, sizeof *h);
    CUmemAccessDesc ad = {.location = vp.location, .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    for (int i = 0; i < n; i++) {
      CK(cuMemAddressReserve(&p[i], blk, 0, 0, 0));
      CK(cuMemCreate(&h[i], blk, &vp, 0));
      CK(cuMemMap(p[i], blk, 0, h[i], 0));
      CK(cuMemSetAccess(p[i], blk, &ad, 1));
      CK(cuMemsetD8(p[i], 1, 4096));
    }
    CK(cuCtxSynchronize());
    t0 = now();
    for (int i = 0; i < n; i++) {
      CK(cuMemUnmap(p[i], blk));
      CK(cuMemRelease(h[i]));
    }
    t1 = now();
    for (int i = 0; i < n; i++) CK(cuMemAddressFree(p[i], blk));
    printf("VMM unmap+release: %.1f ms (%.2f ms/GiB)\n", t1 - t0, (t1 - t0) / n);
    /* 4. VMM with small pages: 10 GiB in 2 MiB and 20 MiB handles, one reserve */
    size_t pages[2] = {(size_t)2 << 20, (size_t)20 << 20};
    for (int k = 0; k < 2; k++) {
      size_t total = (size_t)10 << 30, pg = pages[k];
      total -= total % pg;
      size_t np = total / pg;
      CUdeviceptr base;
      CK(cuMemAddressReserve(&base, total, 0, 0, 0));
      CUmemGenericAllocationHandle *hh = calloc(np, sizeof *hh);
      t0 = now();
      for (size_t i = 0; i < np; i++) {
        CK(cuMemCreate(&hh[i], pg, &vp, 0));
        CK(cuMemMap(base + i * pg, pg, 0, hh[i], 0));
        CK(cuMemSetAccess(base + i * pg, pg, &ad, 1));
      }
      t1 = now();
      CK(cuMemsetD8(base, 1, total));
      CK(cuCtxSynchronize());
      t2 = now();
      for (size_t i = 0; i < np; i++) {
        CK(cuMemUnmap(base + i * pg, pg));
        CK(cuMemRelease(hh[i]));
      }
      t3 = now();
      printf("VMM %zu MiB pages, 10 GiB: map %.1f ms (%.2f ms/GiB), unmap+release %.1f ms (%.2f "
             "ms/GiB)\n",
             pg >> 20, t1 - t0, (t1 - t0) / 10, t3 - t2, (t3 - t2) / 10);
      /* one cuMemUnmap over the whole range */
      for (size_t i = 0; i < np; i++) {
        CK(cuMemCreate(&hh[i], pg, &vp, 0));
        CK(cuMemMap(base + i * pg, pg, 0, hh[i], 0));
        CK(cuMemSetAccess(base + i * pg, pg, &ad, 1));
      }
      CK(cuMemsetD8(base, 1, total));
      CK(cuCtxSynchronize());
      t2 = now();
      CUresult ru = cuMemUnmap(base, total);
      t3 = now();
      for (size_t i = 0; i < np; i++) CK(cuMemRelease(hh[i]));
      double t4 = now();
      printf("  one cuMemUnmap over the range: rc %d, %.1f ms, then releases %.1f ms\n", (int)ru,
             t3 - t2, t4 - t3);
      if (ru != CUDA_SUCCESS)
        for (size_t i = 0; i < np; i++) cuMemUnmap(base + i * pg, pg);
      CK(cuMemAddressFree(base, total));
      free(hh);
    }
    CK(cuStreamDestroy(s));
  }
  return 0;
}

// bench_cub.cu: cub's CachingDeviceAllocator as a peer in `mrctx bench`.
// Built only where nvcc is present; it is what many CUDA C++ codebases use
// today, so mrctx reports its speed against it.
#include <cub/util_allocator.cuh>

#include "bench_cub.h"

extern "C" void *bench_cub_create(int unbounded) {
  if (cudaSetDevice(0) != cudaSuccess) return nullptr;
  // Both use the default bins (512 B .. 2 MiB in powers of 8). The default
  // constructor caps the cache at 6 MiB, so a working set above that keeps
  // calling cudaMalloc/cudaFree: what much code gets, but not what a user
  // tuning for speed would choose. The unbounded one is that choice, and
  // the peer every "vs cub" ratio is taken against.
  if (unbounded)
    return new (std::nothrow)
        cub::CachingDeviceAllocator(8, 3, 7, cub::CachingDeviceAllocator::INVALID_SIZE);
  return new (std::nothrow) cub::CachingDeviceAllocator();
}

extern "C" void bench_cub_destroy(void *cub) {
  auto *a = static_cast<cub::CachingDeviceAllocator *>(cub);
  if (a == nullptr) return;
  a->FreeAllCached();
  delete a;
}

extern "C" int bench_cub_allocate(void *cub, void **ptr, size_t bytes, void *stream) {
  auto *a = static_cast<cub::CachingDeviceAllocator *>(cub);
  return a->DeviceAllocate(ptr, bytes, static_cast<cudaStream_t>(stream)) == cudaSuccess ? 0 : 1;
}

extern "C" void bench_cub_deallocate(void *cub, void *ptr) {
  static_cast<cub::CachingDeviceAllocator *>(cub)->DeviceFree(ptr);
}

extern "C" void bench_cub_trim(void *cub) {
  static_cast<cub::CachingDeviceAllocator *>(cub)->FreeAllCached();
}

extern "C" size_t bench_cub_reserved(void *cub) {
  auto *a = static_cast<cub::CachingDeviceAllocator *>(cub);
  // cub's own books: blocks in its cache (free) and handed out (live),
  // rounded up to their bins; blocks above its largest bin are counted
  // live at their requested size and freed on return.
  std::lock_guard<std::mutex> lock(a->mutex);
  const auto &bytes = a->cached_bytes[0];
  return bytes.free + bytes.live;
}

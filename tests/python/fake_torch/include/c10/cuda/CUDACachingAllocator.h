/*
 * The stand-in's c10/cuda/CUDACachingAllocator.h: the part of PyTorch's
 * allocator interface that mrctx's allocator helper
 * (python/mrctx/_torch_oom_helper.py) overrides, declared as PyTorch 2
 * declares it. The base class's out-of-line members live in the stand-in's
 * libc10_cuda.so (csrc/c10_cuda.cpp).
 */
#ifndef FAKE_TORCH_C10_CUDA_CACHING_ALLOCATOR_H
#define FAKE_TORCH_C10_CUDA_CACHING_ALLOCATOR_H

#include <c10/util/Exception.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <utility>

struct CUstream_st;
typedef CUstream_st *cudaStream_t; /* as cuda_runtime_api.h has it */

namespace c10 {
using DeviceIndex = int8_t;
} // namespace c10

namespace c10::cuda {
using MempoolId_t = std::pair<unsigned long long, unsigned long long>;

namespace CUDACachingAllocator {
class C10_API CUDAAllocator {
public:
  virtual ~CUDAAllocator();
  virtual void init(int device_count) = 0;
  virtual bool initialized() = 0;
  virtual void cacheInfo(c10::DeviceIndex device, size_t *largestBlock) = 0;
  /* PyTorch's default refuses, naming the allocator. */
  virtual bool checkPoolLiveAllocations(c10::DeviceIndex device, MempoolId_t mempool_id,
                                        const std::unordered_set<void *> &expected_live);
  virtual std::string name() = 0;
};
} // namespace CUDACachingAllocator
} // namespace c10::cuda

#endif

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

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

struct CUstream_st;
typedef CUstream_st *cudaStream_t; /* as cuda_runtime_api.h has it */

namespace c10 {
using DeviceIndex = int8_t;
enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
struct Device {
  Device(DeviceType type, DeviceIndex index) : type(type), index(index) {}
  DeviceType type;
  DeviceIndex index;
};
using DeleterFnPtr = void (*)(void *);

/* c10::DataPtr: the data, a context its deleter is called with, where. */
class DataPtr {
public:
  DataPtr(void *data, void *ctx, DeleterFnPtr deleter, Device device)
      : data_(data), ctx_(ctx), deleter_(deleter), device_(device) {}
  DataPtr(DataPtr &&o) noexcept
      : data_(o.data_), ctx_(o.ctx_), deleter_(o.deleter_), device_(o.device_) {
    o.deleter_ = nullptr;
  }
  DataPtr(const DataPtr &) = delete;
  DataPtr &operator=(const DataPtr &) = delete;
  ~DataPtr() {
    if (deleter_ != nullptr) deleter_(ctx_);
  }
  void *get() const { return data_; }
  DeleterFnPtr get_deleter() const { return deleter_; }
  /* Give up the deleter (the stand-in's torch._C._free_And_Remove_DeleterFn
   * does the freeing itself). */
  void release_deleter() { deleter_ = nullptr; }

private:
  void *data_;
  void *ctx_;
  DeleterFnPtr deleter_;
  Device device_;
};
} // namespace c10

namespace at {
using c10::DataPtr;
} // namespace at

/* c10/core/CachingDeviceAllocator.h's statistics, as PyTorch 2.11 has them
 * (the aggregate pool first in each StatArray). */
namespace c10::CachingAllocator {
struct Stat {
  int64_t current = 0;
  int64_t peak = 0;
  int64_t allocated = 0;
  int64_t freed = 0;
};
enum struct StatType : uint64_t { AGGREGATE = 0, SMALL_POOL = 1, LARGE_POOL = 2, NUM_TYPES = 3 };
typedef std::array<Stat, static_cast<size_t>(StatType::NUM_TYPES)> StatArray;
} // namespace c10::CachingAllocator

namespace c10::CachingDeviceAllocator {
using namespace c10::CachingAllocator;
struct DeviceStats {
  StatArray allocation;
  StatArray segment;
  StatArray active;
  StatArray inactive_split;
  StatArray allocated_bytes;
  StatArray reserved_bytes;
  StatArray active_bytes;
  StatArray inactive_split_bytes;
  StatArray requested_bytes;
  int64_t num_alloc_retries = 0;
  int64_t num_ooms = 0;
  Stat oversize_allocations;
  Stat oversize_segments;
  int64_t num_sync_all_streams = 0;
  int64_t num_device_alloc = 0;
  int64_t num_device_free = 0;
  int64_t max_split_size = 0;
};
} // namespace c10::CachingDeviceAllocator

namespace c10::cuda {
using MempoolId_t = std::pair<unsigned long long, unsigned long long>;

namespace CUDACachingAllocator {
struct AllocatorState {
  virtual ~AllocatorState() = default;
};

struct CheckpointDelta {
  std::vector<void *> ptrs_freed;
  std::vector<at::DataPtr> dataptrs_allocd;
};

class C10_API CUDAAllocator {
public:
  virtual ~CUDAAllocator();
  virtual void init(int device_count) = 0;
  virtual bool initialized() = 0;
  virtual c10::DeleterFnPtr raw_deleter() const = 0;
  virtual void cacheInfo(c10::DeviceIndex device, size_t *largestBlock) = 0;
  virtual void emptyCache(MempoolId_t mempool_id = {0, 0}) = 0;
  virtual c10::CachingDeviceAllocator::DeviceStats getDeviceStats(c10::DeviceIndex device) = 0;
  virtual void resetAccumulatedStats(c10::DeviceIndex device) = 0;
  virtual void resetPeakStats(c10::DeviceIndex device) = 0;
  virtual void releasePool(c10::DeviceIndex device, MempoolId_t mempool_id) = 0;
  /* PyTorch's defaults refuse, naming the allocator. */
  virtual int getPoolUseCount(c10::DeviceIndex device, MempoolId_t mempool_id);
  virtual void createOrIncrefPool(c10::DeviceIndex device, MempoolId_t mempool_id,
                                  std::shared_ptr<CUDAAllocator> allocator = nullptr);
  virtual void setUseOnOOM(c10::DeviceIndex device, MempoolId_t mempool_id, bool use_on_oom);
  virtual void setNoSplit(c10::DeviceIndex device, MempoolId_t mempool_id);
  virtual bool checkPoolLiveAllocations(c10::DeviceIndex device, MempoolId_t mempool_id,
                                        const std::unordered_set<void *> &expected_live);
  virtual std::shared_ptr<AllocatorState> getCheckpointState(c10::DeviceIndex device,
                                                             MempoolId_t id) = 0;
  virtual CheckpointDelta setCheckpointPoolState(c10::DeviceIndex device,
                                                 std::shared_ptr<AllocatorState> pps) = 0;
  virtual std::string name() = 0;
};
} // namespace CUDACachingAllocator
} // namespace c10::cuda

#endif

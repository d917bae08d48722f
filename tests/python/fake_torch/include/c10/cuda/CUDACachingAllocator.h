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
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
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

/* c10/core/Allocator.h: what an allocator's context recorder returns. */
struct GatheredContext {
  virtual ~GatheredContext() = default;
};

/* c10/util/ApproximateClock.h. */
inline int64_t getApproximateTime() {
  return std::chrono::steady_clock::now().time_since_epoch().count();
}
using approx_time_t = decltype(getApproximateTime());

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

/* Memory history and snapshots, as PyTorch 2.11 declares them. */
using CreateContextFn = std::shared_ptr<GatheredContext> (*)();
enum struct RecordContext { NEVER = 0, STATE = 1, ALLOC = 2, ALL = 3 };

struct BlockInfo {
  size_t size = 0;
  size_t requested_size = 0;
  int32_t gc_counter = 0;
  bool allocated = false;
  bool active = false;
  std::shared_ptr<GatheredContext> context_when_allocated;
};

struct SegmentInfo {
  c10::DeviceIndex device = 0;
  int32_t registration_counter = -1;
  size_t address = 0;
  size_t total_size = 0;
  size_t requested_size = 0;
  size_t allocated_size = 0;
  size_t active_size = 0;
  void *stream = nullptr;
  bool is_large = false;
  bool is_expandable = false;
  std::pair<unsigned long long, unsigned long long> owner_private_pool_id = {0, 0};
  std::vector<BlockInfo> blocks;
  std::shared_ptr<GatheredContext> context_when_allocated;
};

union trace_time_ {
  time_t t_;
  approx_time_t approx_t_;
};

struct TraceEntry {
  enum Action {
    ALLOC,
    FREE_REQUESTED,
    FREE_COMPLETED,
    SEGMENT_ALLOC,
    SEGMENT_FREE,
    SEGMENT_MAP,
    SEGMENT_UNMAP,
    SNAPSHOT,
    OOM
  };
  TraceEntry(Action action, c10::DeviceIndex device, size_t addr, size_t size, void *stream,
             std::pair<unsigned long long, unsigned long long> mempool, approx_time_t time,
             std::shared_ptr<GatheredContext> context = nullptr, std::string compile_context = "",
             std::string user_metadata = "")
      : action_(action), device_(device), addr_(addr), context_(std::move(context)),
        stream_(stream), size_(size), mempool_(std::move(mempool)),
        compile_context_(std::move(compile_context)), user_metadata_(std::move(user_metadata)) {
    time_.approx_t_ = time;
  }
  Action action_;
  c10::DeviceIndex device_;
  size_t addr_;
  std::shared_ptr<GatheredContext> context_;
  void *stream_{};
  size_t size_;
  std::pair<unsigned long long, unsigned long long> mempool_;
  trace_time_ time_{};
  std::string compile_context_;
  std::string user_metadata_;
};

inline TraceEntry::Action parseTraceEntryAction(std::string_view action) {
  constexpr std::pair<std::string_view, TraceEntry::Action> table[] = {
      {"alloc", TraceEntry::ALLOC},
      {"free_requested", TraceEntry::FREE_REQUESTED},
      {"free_completed", TraceEntry::FREE_COMPLETED},
      {"segment_alloc", TraceEntry::SEGMENT_ALLOC},
      {"segment_free", TraceEntry::SEGMENT_FREE},
      {"segment_map", TraceEntry::SEGMENT_MAP},
      {"segment_unmap", TraceEntry::SEGMENT_UNMAP},
      {"snapshot", TraceEntry::SNAPSHOT},
      {"oom", TraceEntry::OOM},
  };
  for (const auto &[k, v] : table)
    if (action == k) return v;
  TORCH_CHECK(false, "Unknown TraceEntry action: ", std::string(action));
  return TraceEntry::ALLOC;
}

struct AnnotationEntry {
  c10::DeviceIndex device_;
  trace_time_ time_{};
  std::unordered_map<std::string, std::string> metadata_;
};
} // namespace c10::CachingDeviceAllocator

namespace c10::cuda {
using MempoolId_t = std::pair<unsigned long long, unsigned long long>;

/* c10/cuda/CUDAFunctions.h: the calling thread's device (the stand-in's
 * is what its Python last allocated on, csrc/c10_cuda.cpp). */
C10_API DeviceIndex current_device();

namespace CUDACachingAllocator {
using c10::CachingDeviceAllocator::BlockInfo;
using c10::CachingDeviceAllocator::CreateContextFn;
using c10::CachingDeviceAllocator::RecordContext;
using c10::CachingDeviceAllocator::SegmentInfo;
using c10::CachingDeviceAllocator::TraceEntry;

struct AllocatorState {
  virtual ~AllocatorState() = default;
};

struct AllocatorConfigInfo {
  double garbage_collection_threshold;
  size_t max_split_size;
  size_t pinned_num_register_threads;
  bool expandable_segments;
  bool release_lock_on_malloc;
  bool pinned_use_host_register;
  bool graph_capture_record_stream_reuse;
  std::string last_allocator_settings;
  std::vector<size_t> roundup_power2_divisions;
};

struct SnapshotInfo {
  std::vector<CachingDeviceAllocator::SegmentInfo> segments;
  std::vector<std::vector<CachingDeviceAllocator::TraceEntry>> device_traces;
  std::vector<CachingDeviceAllocator::AnnotationEntry> external_annotations;
  AllocatorConfigInfo config_metadata;
};

struct CheckpointDelta {
  std::vector<void *> ptrs_freed;
  std::vector<at::DataPtr> dataptrs_allocd;
};

class C10_API CUDAAllocator {
public:
  virtual ~CUDAAllocator();
  /* c10::Allocator's: on the calling thread's device and current stream. */
  virtual c10::DataPtr allocate(size_t size) = 0;
  virtual void *raw_alloc(size_t nbytes) = 0;
  virtual void *raw_alloc_with_stream(size_t nbytes, cudaStream_t stream) = 0;
  virtual void raw_delete(void *ptr) = 0;
  virtual void init(int device_count) = 0;
  virtual bool initialized() = 0;
  virtual c10::DeleterFnPtr raw_deleter() const = 0;
  virtual double getMemoryFraction(c10::DeviceIndex device) = 0;
  virtual bool isHistoryEnabled(); /* PyTorch's default refuses */
  virtual void recordHistory(bool enabled, CreateContextFn context_recorder,
                             size_t alloc_trace_max_entries, RecordContext when, bool clearHistory,
                             const std::vector<std::string> &skip_actions) = 0;
  virtual SnapshotInfo snapshot(MempoolId_t mempool_id, bool include_traces = true) = 0;
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

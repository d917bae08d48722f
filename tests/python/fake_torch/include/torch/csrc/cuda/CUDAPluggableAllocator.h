/*
 * The stand-in's torch/csrc/cuda/CUDAPluggableAllocator.h: PyTorch's
 * pluggable allocator as PyTorch 2 declares it (its setters, its protected
 * functions, changeCurrentAllocator), for mrctx's allocator helper to
 * derive from. Its members live in the stand-in's libtorch_cuda.so
 * (csrc/torch_cuda.cpp), which also lets the stand-in's Python call the
 * current allocator as PyTorch's C++ would.
 */
#ifndef FAKE_TORCH_CUDA_PLUGGABLE_ALLOCATOR_H
#define FAKE_TORCH_CUDA_PLUGGABLE_ALLOCATOR_H

#include <c10/cuda/CUDACachingAllocator.h>

#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>

#define TORCH_CUDA_CPP_API __attribute__((visibility("default")))

namespace torch::cuda::CUDAPluggableAllocator {

TORCH_CUDA_CPP_API void changeCurrentAllocator(
    const std::shared_ptr<c10::cuda::CUDACachingAllocator::CUDAAllocator> &allocator);

/* As in PyTorch 2.11: declared here, defined in libtorch_cuda without
 * being exported (torch_cuda.cpp defines them hidden). */
struct _AllocationMetadata {
  _AllocationMetadata();
  _AllocationMetadata(size_t size, c10::DeviceIndex device_idx, cudaStream_t stream);
  size_t size;
  c10::DeviceIndex device_idx;
  cudaStream_t stream{};
};

struct TORCH_CUDA_CPP_API CUDAPluggableAllocator
    : public c10::cuda::CUDACachingAllocator::CUDAAllocator {
  CUDAPluggableAllocator(std::function<void *(size_t, int, cudaStream_t)> alloc_fn,
                         std::function<void(void *, size_t, int, cudaStream_t)> free_fn);
  ~CUDAPluggableAllocator() override = default;

  void set_init_fn(std::function<void(int)> init_fn);
  void set_reset_fn(std::function<void()> reset_fn);
  void set_memory_fraction_fn(std::function<void(double, int)> memory_fraction_fn);
  void set_record_stream_fn(std::function<void(void *ptr, cudaStream_t stream)> record_stream_fn);
  void set_begin_allocate_to_pool(
      std::function<void(int, c10::cuda::MempoolId_t, std::function<bool(cudaStream_t)>)> fn);
  void set_end_allocate_to_pool_fn(std::function<void(int, c10::cuda::MempoolId_t)> fn);
  void set_release_pool(std::function<void(int, c10::cuda::MempoolId_t)> fn);

  void *malloc(size_t size, c10::DeviceIndex device, cudaStream_t stream);
  c10::DataPtr allocate(size_t size) override;
  void *raw_alloc(size_t nbytes) override;
  void *raw_alloc_with_stream(size_t nbytes, cudaStream_t stream) override;
  void raw_delete(void *ptr) override;
  c10::DeleterFnPtr raw_deleter() const override;
  /* PyTorch's refuse, naming the call. */
  double getMemoryFraction(c10::DeviceIndex device) override;
  void recordHistory(bool enabled,
                     c10::cuda::CUDACachingAllocator::CreateContextFn context_recorder,
                     size_t alloc_trace_max_entries,
                     c10::cuda::CUDACachingAllocator::RecordContext when, bool clearHistory,
                     const std::vector<std::string> &skip_actions) override;
  c10::cuda::CUDACachingAllocator::SnapshotInfo snapshot(c10::cuda::MempoolId_t mempool,
                                                         bool include_traces = true) override;
  void init(int device_count) override;
  bool initialized() override;
  void cacheInfo(c10::DeviceIndex device, size_t *largestBlock) override;
  void emptyCache(c10::cuda::MempoolId_t mempool_id = {0, 0}) override;
  /* PyTorch's refuse, naming the call. */
  c10::CachingDeviceAllocator::DeviceStats getDeviceStats(c10::DeviceIndex device) override;
  void resetAccumulatedStats(c10::DeviceIndex device) override;
  void resetPeakStats(c10::DeviceIndex device) override;
  void releasePool(c10::DeviceIndex device, c10::cuda::MempoolId_t mempool_id) override;
  std::shared_ptr<c10::cuda::CUDACachingAllocator::AllocatorState>
  getCheckpointState(c10::DeviceIndex device, c10::cuda::MempoolId_t id) override;
  c10::cuda::CUDACachingAllocator::CheckpointDelta setCheckpointPoolState(
      c10::DeviceIndex device,
      std::shared_ptr<c10::cuda::CUDACachingAllocator::AllocatorState> pps) override;
  std::string name() override;

protected:
  std::function<void *(size_t, int, cudaStream_t)> alloc_fn_;
  std::function<void(void *, size_t, int, cudaStream_t)> free_fn_;
  std::function<void(int)> init_fn_;

public: /* the stand-in's libtorch_cuda.so calls them (fake_torch_cuda_*) */
  std::function<void()> reset_fn_;
  std::function<void(double, int)> memory_fraction_fn_;
  std::function<void(void *ptr, cudaStream_t stream)> record_stream_fn_;
  std::function<void(int, c10::cuda::MempoolId_t, std::function<bool(cudaStream_t)>)>
      begin_allocate_to_pool_fn_;
  std::function<void(int, c10::cuda::MempoolId_t)> end_allocate_to_pool_fn_;
  std::function<void(int, c10::cuda::MempoolId_t)> relase_pool_fn_;

protected:
  std::mutex allocator_mutex_;
  std::unordered_map<void *, _AllocationMetadata> allocation_metadata_;
  bool initialized_ = false;
};

} // namespace torch::cuda::CUDAPluggableAllocator

#endif

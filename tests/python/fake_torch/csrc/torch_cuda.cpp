/*
 * The stand-in's libtorch_cuda.so: PyTorch's pluggable allocator
 * (CUDAPluggableAllocator.cpp's behaviour: the functions, the metadata of
 * live blocks, cacheInfo refused) and changeCurrentAllocator, which holds
 * the allocator a C++ caller (mrctx's allocator helper) installs. The
 * stand-in's Python (torch/cuda/memory.py) calls that allocator through the
 * fake_torch_cuda_* functions, as PyTorch's C++ calls its current
 * allocator, and gets what it throws as a code and a message (ctypes
 * cannot catch a C++ exception): 0 done, 1 RuntimeError, 2
 * torch.OutOfMemoryError.
 */
#include <torch/csrc/cuda/CUDAPluggableAllocator.h>

#include "catch.h"

#include <cstdio>
#include <sys/types.h>

namespace torch::cuda::CUDAPluggableAllocator {

/* Not exported, as in PyTorch: a helper that constructs one must bring
 * its own. */
__attribute__((visibility("hidden"))) _AllocationMetadata::_AllocationMetadata()
    : size(0), device_idx(-1), stream{} {}
__attribute__((visibility("hidden")))
_AllocationMetadata::_AllocationMetadata(size_t size, c10::DeviceIndex device_idx,
                                         cudaStream_t stream)
    : size(size), device_idx(device_idx), stream(stream) {}

namespace {
std::shared_ptr<c10::cuda::CUDACachingAllocator::CUDAAllocator> current;
bool cuda_initialized = false;          /* the stand-in's torch.cuda.init() sets it */
thread_local cudaStream_t stream_now{}; /* getCurrentCUDAStream(), as the stand-in sets it */
} // namespace

CUDAPluggableAllocator::CUDAPluggableAllocator(
    std::function<void *(size_t, int, cudaStream_t)> alloc_fn,
    std::function<void(void *, size_t, int, cudaStream_t)> free_fn)
    : alloc_fn_(std::move(alloc_fn)), free_fn_(std::move(free_fn)) {}

void CUDAPluggableAllocator::set_init_fn(std::function<void(int)> f) { init_fn_ = std::move(f); }
void CUDAPluggableAllocator::set_reset_fn(std::function<void()> f) { reset_fn_ = std::move(f); }
void CUDAPluggableAllocator::set_memory_fraction_fn(std::function<void(double, int)> f) {
  memory_fraction_fn_ = std::move(f);
}
void CUDAPluggableAllocator::set_record_stream_fn(std::function<void(void *, cudaStream_t)> f) {
  record_stream_fn_ = std::move(f);
}
void CUDAPluggableAllocator::set_begin_allocate_to_pool(
    std::function<void(int, c10::cuda::MempoolId_t, std::function<bool(cudaStream_t)>)> f) {
  begin_allocate_to_pool_fn_ = std::move(f);
}
void CUDAPluggableAllocator::set_end_allocate_to_pool_fn(
    std::function<void(int, c10::cuda::MempoolId_t)> f) {
  end_allocate_to_pool_fn_ = std::move(f);
}
void CUDAPluggableAllocator::set_release_pool(std::function<void(int, c10::cuda::MempoolId_t)> f) {
  relase_pool_fn_ = std::move(f);
}

/* As PyTorch's: every id empties through the reset function. */
void CUDAPluggableAllocator::emptyCache(c10::cuda::MempoolId_t) {
  if (reset_fn_) reset_fn_();
}
void CUDAPluggableAllocator::releasePool(c10::DeviceIndex device, c10::cuda::MempoolId_t id) {
  if (relase_pool_fn_) relase_pool_fn_(device, id);
}

c10::CachingDeviceAllocator::DeviceStats CUDAPluggableAllocator::getDeviceStats(c10::DeviceIndex) {
  TORCH_CHECK(false, "CUDAPluggableAllocator does not yet support getDeviceStats. If you need it, "
                     "please file an issue describing your use case.");
  return {};
}
void CUDAPluggableAllocator::resetAccumulatedStats(c10::DeviceIndex) {
  TORCH_CHECK(false, "CUDAPluggableAllocator does not yet support resetAccumulatedStats. If you "
                     "need it, please file an issue describing your use case.");
}
void CUDAPluggableAllocator::resetPeakStats(c10::DeviceIndex) {
  TORCH_CHECK(false, "CUDAPluggableAllocator does not yet support resetPeakStats. If you need "
                     "it, please file an issue describing your use case.");
}

void *CUDAPluggableAllocator::malloc(size_t size, c10::DeviceIndex device, cudaStream_t stream) {
  void *r = alloc_fn_(size, device, stream);
  std::lock_guard<std::mutex> hold(allocator_mutex_);
  allocation_metadata_[r] = _AllocationMetadata(size, device, stream);
  return r;
}

/* As PyTorch's: on the current device and stream. */
c10::DataPtr CUDAPluggableAllocator::allocate(size_t size) {
  c10::DeviceIndex device = c10::cuda::current_device();
  void *r = malloc(size, device, stream_now);
  return {r, r, raw_deleter(), c10::Device(c10::DeviceType::CUDA, device)};
}

void *CUDAPluggableAllocator::raw_alloc(size_t size) {
  return malloc(size, c10::cuda::current_device(), stream_now);
}

void *CUDAPluggableAllocator::raw_alloc_with_stream(size_t size, cudaStream_t stream) {
  return malloc(size, c10::cuda::current_device(), stream);
}

double CUDAPluggableAllocator::getMemoryFraction(c10::DeviceIndex) {
  TORCH_CHECK(false, "CUDAPluggableAllocator does not yet support getMemoryFraction. If you "
                     "need it, please file an issue describing your use case.");
  return 0;
}

void CUDAPluggableAllocator::recordHistory(bool, c10::cuda::CUDACachingAllocator::CreateContextFn,
                                           size_t, c10::cuda::CUDACachingAllocator::RecordContext,
                                           bool, const std::vector<std::string> &) {
  TORCH_CHECK(false, "CUDAPluggableAllocator does not yet support recordHistory. If you need "
                     "it, please file an issue describing your use case.");
}

c10::cuda::CUDACachingAllocator::SnapshotInfo
CUDAPluggableAllocator::snapshot(c10::cuda::MempoolId_t, bool) {
  TORCH_CHECK(false, "CUDAPluggableAllocator does not yet support snapshot. If you need it, "
                     "please file an issue describing your use case.");
  return {};
}

void CUDAPluggableAllocator::raw_delete(void *ptr) {
  _AllocationMetadata m;
  {
    std::lock_guard<std::mutex> hold(allocator_mutex_);
    auto it = allocation_metadata_.find(ptr);
    TORCH_CHECK(it != allocation_metadata_.end(), "Trying to free a pointer not allocated here");
    m = it->second;
    allocation_metadata_.erase(it);
  }
  free_fn_(ptr, m.size, m.device_idx, m.stream);
}

void CUDAPluggableAllocator::init(int device_count) {
  if (init_fn_) init_fn_(device_count);
  initialized_ = true;
}

bool CUDAPluggableAllocator::initialized() { return initialized_; }

void CUDAPluggableAllocator::cacheInfo(c10::DeviceIndex, size_t *) {
  TORCH_CHECK(false, "CUDAPluggableAllocator does not yet support cacheInfo. If you need it, "
                     "please file an issue describing your use case.");
}

std::shared_ptr<c10::cuda::CUDACachingAllocator::AllocatorState>
CUDAPluggableAllocator::getCheckpointState(c10::DeviceIndex, c10::cuda::MempoolId_t) {
  TORCH_CHECK(false, "CUDAPluggableAllocator does not yet support getCheckpointState. If you "
                     "need it, please file an issue describing your use case.");
  return nullptr;
}

c10::cuda::CUDACachingAllocator::CheckpointDelta CUDAPluggableAllocator::setCheckpointPoolState(
    c10::DeviceIndex, std::shared_ptr<c10::cuda::CUDACachingAllocator::AllocatorState>) {
  TORCH_CHECK(false, "CUDAPluggableAllocator does not yet support setCheckpointPoolState. If you "
                     "need it, please file an issue describing your use case.");
  return {};
}

void custom_raw_deleter(void *ptr);

c10::DeleterFnPtr CUDAPluggableAllocator::raw_deleter() const { return &custom_raw_deleter; }

std::string CUDAPluggableAllocator::name() { return "pluggable"; }

/* As PyTorch's: a DataPtr's deleter frees through the current allocator. */
void custom_raw_deleter(void *ptr) { current->raw_delete(ptr); }

void changeCurrentAllocator(
    const std::shared_ptr<c10::cuda::CUDACachingAllocator::CUDAAllocator> &allocator) {
  TORCH_CHECK(!cuda_initialized, "Can't swap an already initialized allocator");
  current = allocator;
}

} // namespace torch::cuda::CUDAPluggableAllocator

namespace {
using torch::cuda::CUDAPluggableAllocator::CUDAPluggableAllocator;

CUDAPluggableAllocator *pluggable() {
  return dynamic_cast<CUDAPluggableAllocator *>(torch::cuda::CUDAPluggableAllocator::current.get());
}

} // namespace

#define FAKE extern "C" __attribute__((visibility("default")))

FAKE void fake_torch_cuda_set_initialized(int on) {
  torch::cuda::CUDAPluggableAllocator::cuda_initialized = on != 0;
}

/* Whether a C++ caller installed an allocator (and which: its name). */
FAKE int fake_torch_cuda_current(char *name, size_t cap) {
  auto *a = torch::cuda::CUDAPluggableAllocator::current.get();
  if (a != nullptr && name != nullptr) snprintf(name, cap, "%s", a->name().c_str());
  return a != nullptr;
}

extern "C" void fake_c10_cuda_set_device(int device);

/* A tensor's storage, as at::empty makes one: the current allocator's
 * allocate() on `device` and `stream` made current; the stand-in's Python
 * keeps the pointer and frees it through fake_torch_cuda_free (the
 * DataPtr's deleter, raw_delete). */
FAKE int fake_torch_cuda_alloc(ssize_t size, int device, void *stream, void **out, char *message,
                               size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    fake_c10_cuda_set_device(device);
    torch::cuda::CUDAPluggableAllocator::stream_now = static_cast<cudaStream_t>(stream);
    c10::DataPtr data =
        torch::cuda::CUDAPluggableAllocator::current->allocate(static_cast<size_t>(size));
    *out = data.get();
    data.release_deleter();
  });
}

FAKE int fake_torch_cuda_free(void *ptr, char *message, size_t cap) {
  return fake_torch_catch(message, cap,
                          [&] { torch::cuda::CUDAPluggableAllocator::current->raw_delete(ptr); });
}

FAKE int fake_torch_cuda_memory_fraction(int device, double *out, char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    *out = torch::cuda::CUDAPluggableAllocator::current->getMemoryFraction(
        static_cast<c10::DeviceIndex>(device));
  });
}

/* Memory history: the stand-in's context is the Python frames its
 * torch/cuda/memory.py hands over before each allocation
 * (fake_torch_cuda_set_frames), as PyTorch's recorder gathers Python's. */
namespace {
struct Frames final : c10::GatheredContext {
  explicit Frames(std::string text) : text(std::move(text)) {}
  std::string text;
};
thread_local std::string frames_now;
std::shared_ptr<c10::GatheredContext> gather_frames() {
  return std::make_shared<Frames>(frames_now);
}
} // namespace

FAKE void fake_torch_cuda_set_frames(const char *text) { frames_now = text != nullptr ? text : ""; }

/* torch._C._cuda_record_memory_history: skip is a comma-separated list. */
FAKE int fake_torch_cuda_record_history(int enabled, int when, size_t max_entries, int clear,
                                        const char *skip, char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    std::vector<std::string> actions;
    std::string all = skip != nullptr ? skip : "";
    for (size_t at = 0; at < all.size();) {
      size_t comma = all.find(',', at);
      if (comma == std::string::npos) comma = all.size();
      if (comma > at) actions.push_back(all.substr(at, comma - at));
      at = comma + 1;
    }
    torch::cuda::CUDAPluggableAllocator::current->recordHistory(
        enabled != 0, gather_frames, max_entries,
        static_cast<c10::cuda::CUDACachingAllocator::RecordContext>(when), clear != 0, actions);
  });
}

FAKE int fake_torch_cuda_history_enabled(int *out, char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    *out = torch::cuda::CUDAPluggableAllocator::current->isHistoryEnabled();
  });
}

/* torch._C._cuda_memorySnapshot, as text the stand-in's Python reads:
 * "S device address total_size requested allocated active stream large
 * pool_first pool_second", then its blocks "B size requested allocated
 * active|FRAMES", then "T device action addr size stream|FRAMES" per trace
 * entry, FRAMES the recorded frames with a 0x1f byte between them. *needed is the
 * text's length with its NUL; written only when it fits. */
FAKE int fake_torch_cuda_snapshot(unsigned long long first, unsigned long long second,
                                  int include_traces, char *out, size_t out_cap, size_t *needed,
                                  char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    auto info =
        torch::cuda::CUDAPluggableAllocator::current->snapshot({first, second}, include_traces);
    auto frames = [](const std::shared_ptr<c10::GatheredContext> &c) {
      auto *f = dynamic_cast<Frames *>(c.get());
      std::string text = f != nullptr ? f->text : "";
      for (char &ch : text)
        if (ch == '\n') ch = '\x1f';
      return text;
    };
    std::string text;
    char line[512];
    for (const auto &s : info.segments) {
      snprintf(line, sizeof line, "S %d %zu %zu %zu %zu %zu %p %d %llu %llu\n",
               static_cast<int>(s.device), s.address, s.total_size, s.requested_size,
               s.allocated_size, s.active_size, s.stream, s.is_large ? 1 : 0,
               s.owner_private_pool_id.first, s.owner_private_pool_id.second);
      text += line;
      for (const auto &b : s.blocks) {
        snprintf(line, sizeof line, "B %zu %zu %d %d|", b.size, b.requested_size,
                 b.allocated ? 1 : 0, b.active ? 1 : 0);
        text += line + frames(b.context_when_allocated) + "\n";
      }
    }
    for (const auto &trace : info.device_traces)
      for (const auto &e : trace) {
        snprintf(line, sizeof line, "T %d %d %zu %zu %p|", static_cast<int>(e.device_),
                 static_cast<int>(e.action_), e.addr_, e.size_, e.stream_);
        text += line + frames(e.context_) + "\n";
      }
    *needed = text.size() + 1;
    if (*needed <= out_cap) snprintf(out, out_cap, "%s", text.c_str());
  });
}

FAKE int fake_torch_cuda_cache_info(int device, size_t *largest, char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    torch::cuda::CUDAPluggableAllocator::current->cacheInfo(static_cast<c10::DeviceIndex>(device),
                                                            largest);
  });
}

/* *answer: 1 when the pool's live blocks are exactly `ptrs`. */
FAKE int fake_torch_cuda_check_pool_live(int device, unsigned long long first,
                                         unsigned long long second, void **ptrs, size_t count,
                                         int *answer, char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    std::unordered_set<void *> expected(ptrs, ptrs + count);
    *answer = torch::cuda::CUDAPluggableAllocator::current->checkPoolLiveAllocations(
        static_cast<c10::DeviceIndex>(device), {first, second}, expected);
  });
}

FAKE int fake_torch_cuda_empty_cache(char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    if (pluggable()->reset_fn_) pluggable()->reset_fn_();
  });
}

FAKE int fake_torch_cuda_set_fraction(double fraction, int device, char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    if (pluggable()->memory_fraction_fn_) pluggable()->memory_fraction_fn_(fraction, device);
  });
}

FAKE int fake_torch_cuda_record_stream(void *ptr, void *stream, char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    if (pluggable()->record_stream_fn_)
      pluggable()->record_stream_fn_(ptr, static_cast<cudaStream_t>(stream));
  });
}

/* beginAllocateToPool as torch.cuda.graph calls it: the filter takes
 * `only` (every stream when NULL). */
FAKE int fake_torch_cuda_begin_pool(int device, unsigned long long first, unsigned long long second,
                                    void *only, char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    std::function<bool(cudaStream_t)> filter;
    if (only != nullptr) filter = [only](cudaStream_t s) { return s == only; };
    pluggable()->begin_allocate_to_pool_fn_(device, {first, second}, filter);
  });
}

FAKE int fake_torch_cuda_end_pool(int device, unsigned long long first, unsigned long long second,
                                  char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    pluggable()->end_allocate_to_pool_fn_(device, {first, second});
  });
}

FAKE int fake_torch_cuda_release_pool(int device, unsigned long long first,
                                      unsigned long long second, char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    pluggable()->relase_pool_fn_(device, {first, second});
  });
}

/* torch.cuda.MemPool(use_on_oom, no_split)'s constructor and destructor,
 * as PyTorch 2.11's at::cuda::MemPool makes them, and its use_count(). */
FAKE int fake_torch_cuda_mempool_create(int device, unsigned long long first,
                                        unsigned long long second, int use_on_oom, int no_split,
                                        char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    auto &a = torch::cuda::CUDAPluggableAllocator::current;
    auto d = static_cast<c10::DeviceIndex>(device);
    a->createOrIncrefPool(d, {first, second});
    if (use_on_oom) a->setUseOnOOM(d, {first, second}, true);
    if (no_split) a->setNoSplit(d, {first, second});
  });
}

FAKE int fake_torch_cuda_mempool_destroy(int device, unsigned long long first,
                                         unsigned long long second, char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    auto &a = torch::cuda::CUDAPluggableAllocator::current;
    auto d = static_cast<c10::DeviceIndex>(device);
    a->setUseOnOOM(d, {first, second}, false);
    a->releasePool(d, {first, second});
    a->emptyCache({first, second});
  });
}

/* torch._C._cuda_memoryStats: the current allocator's getDeviceStats,
 * flattened for the stand-in's Python (torch/cuda/memory.py builds
 * PyTorch's nested dict from it): each StatArray's three pools
 * (aggregate, small, large) of four numbers, in DeviceStats' order, then
 * oversize_allocations and oversize_segments, then num_alloc_retries,
 * num_ooms, num_sync_all_streams, num_device_alloc, num_device_free,
 * max_split_size: 122 numbers. */
FAKE int fake_torch_cuda_device_stats(int device, int64_t *out, char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    auto s = torch::cuda::CUDAPluggableAllocator::current->getDeviceStats(
        static_cast<c10::DeviceIndex>(device));
    size_t n = 0;
    auto put = [&](const c10::CachingAllocator::Stat &st) {
      out[n++] = st.current;
      out[n++] = st.peak;
      out[n++] = st.allocated;
      out[n++] = st.freed;
    };
    for (const auto *a :
         {&s.allocation, &s.segment, &s.active, &s.inactive_split, &s.allocated_bytes,
          &s.reserved_bytes, &s.active_bytes, &s.inactive_split_bytes, &s.requested_bytes})
      for (const auto &st : *a) put(st);
    put(s.oversize_allocations);
    put(s.oversize_segments);
    for (int64_t v : {s.num_alloc_retries, s.num_ooms, s.num_sync_all_streams, s.num_device_alloc,
                      s.num_device_free, s.max_split_size})
      out[n++] = v;
  });
}

/* torch._C._cuda_resetPeakMemoryStats / _cuda_resetAccumulatedMemoryStats. */
FAKE int fake_torch_cuda_reset_stats(int device, int accumulated, char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    auto &a = torch::cuda::CUDAPluggableAllocator::current;
    if (accumulated)
      a->resetAccumulatedStats(static_cast<c10::DeviceIndex>(device));
    else
      a->resetPeakStats(static_cast<c10::DeviceIndex>(device));
  });
}

FAKE int fake_torch_cuda_pool_use_count(int device, unsigned long long first,
                                        unsigned long long second, int *count, char *message,
                                        size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    *count = torch::cuda::CUDAPluggableAllocator::current->getPoolUseCount(
        static_cast<c10::DeviceIndex>(device), {first, second});
  });
}

/* Inductor's graph trees: a saved state, kept here under a handle. */
namespace {
std::vector<std::shared_ptr<c10::cuda::CUDACachingAllocator::AllocatorState>> states;
std::vector<at::DataPtr> restored; /* the DataPtrs a restore handed back: "live storages" */
} // namespace

FAKE int fake_torch_cuda_checkpoint(int device, unsigned long long first, unsigned long long second,
                                    int *handle, char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    states.push_back(torch::cuda::CUDAPluggableAllocator::current->getCheckpointState(
        static_cast<c10::DeviceIndex>(device), {first, second}));
    *handle = static_cast<int>(states.size()) - 1;
  });
}

/* setCheckpointPoolState: the freed pointers to `freed` (their count in
 * *freed_count), the restored blocks' pointers to `allocd` (count in
 * *allocd_count); the stand-in keeps their DataPtrs (the storages PyTorch
 * gives them to) until fake_torch_cuda_drop_restored. */
FAKE int fake_torch_cuda_restore(int device, int handle, void **freed, size_t freed_cap,
                                 size_t *freed_count, void **allocd, size_t allocd_cap,
                                 size_t *allocd_count, char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] {
    auto delta = torch::cuda::CUDAPluggableAllocator::current->setCheckpointPoolState(
        static_cast<c10::DeviceIndex>(device), states.at(static_cast<size_t>(handle)));
    *freed_count = delta.ptrs_freed.size();
    for (size_t i = 0; i < delta.ptrs_freed.size() && i < freed_cap; i++)
      freed[i] = delta.ptrs_freed[i];
    *allocd_count = delta.dataptrs_allocd.size();
    for (size_t i = 0; i < delta.dataptrs_allocd.size() && i < allocd_cap; i++)
      allocd[i] = delta.dataptrs_allocd[i].get();
    for (auto &d : delta.dataptrs_allocd) restored.push_back(std::move(d));
  });
}

/* The restored storages die: their deleters free through the allocator. */
FAKE int fake_torch_cuda_drop_restored(char *message, size_t cap) {
  return fake_torch_catch(message, cap, [&] { restored.clear(); });
}

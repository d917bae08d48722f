"""torch.OutOfMemoryError from the PyTorch shim: a helper built against the
installed PyTorch (docs/integrations.md, "PyTorch").

PyTorch turns a C++ ``c10::OutOfMemoryError`` thrown by an allocator into
``torch.OutOfMemoryError``; any other exception becomes a RuntimeError. The
shim (_torch_alloc.so) links no part of PyTorch, so it cannot throw that
type itself: it throws through a function pointer Python sets
(``mrctx_torch_set_oom_thrower``) to ``mrctx_torch_throw_oom`` of a tiny
helper, compiled at the first use() or use_control() against the installed
PyTorch's headers (``torch.utils.cpp_extension.include_paths()``) and
linked to its libc10 (``library_paths()``), the same libc10.so PyTorch has
loaded (the loader matches its soname), with PyTorch's C++ ABI.

The built helper is kept in ``$XDG_CACHE_HOME/mrctx`` (``~/.cache/mrctx``)
under ``torch-VERSION-HASH/``, the hash over PyTorch's version, its
folder, its ABI, the compiler and the helper's source, so another PyTorch
builds its own; a file lock keeps two processes from building it at once.
A process that finds it there imports no part of PyTorch's build tools.
Where it cannot be had (no C++ compiler, no headers, a failed build) the
shim keeps throwing RuntimeError, and use() warns once saying why.

``MRCTX_TORCH_OOM_HELPER``: unset (or ``auto``) builds it at first use;
``0`` does not (RuntimeError, no warning); a path loads that prebuilt helper
(one shipped per PyTorch version).

The *allocator helper* (``_mrctx_torch_allocator.so``), built and kept the
same way, is PyTorch's own ``CUDAPluggableAllocator`` with answers added
that its pluggable form refuses: ``cacheInfo`` (cuDNN's algorithm search
under ``torch.backends.cudnn.benchmark``, pytorch#98481),
``checkPoolLiveAllocations`` and the checkpoints of torch.compile's CUDA
graph trees, torch.cuda.MemPool's ``createOrIncrefPool``,
``getPoolUseCount``, ``setUseOnOOM`` and ``setNoSplit`` (its destructor
calls ``setUseOnOOM`` for every pool), the statistics
(``getDeviceStats``, ``resetPeakStats``, ``resetAccumulatedStats``),
``getMemoryFraction``, and the memory history and snapshots of
``torch.cuda.memory._record_memory_history`` and ``_snapshot``
(``recordHistory``, ``isHistoryEnabled``, ``snapshot``). It
includes PyTorch's CUDA headers, so it also needs the CUDA runtime's
headers (the CUDA toolkit, or the ``nvidia-cuda-runtime`` wheel PyTorch
depends on), and links libtorch_cuda. ``MRCTX_TORCH_ALLOCATOR_HELPER``:
unset (or ``auto``) builds it at the first use(); ``0`` does not (use()
then installs the plain pluggable allocator: cuDNN's benchmark raises); a
path loads that one.
"""

from __future__ import annotations

import ctypes
import fcntl
import hashlib
import importlib
import json
import os
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path
from typing import Any, Optional

ENV = "MRCTX_TORCH_OOM_HELPER"
NAME = "_mrctx_torch_oom.so"

# The helper: C10_THROW_ERROR is how PyTorch itself throws its errors (the
# source location, then the message), in every PyTorch 2.
SOURCE = r"""
#include <c10/util/Exception.h>

extern "C" [[noreturn]] __attribute__((visibility("default"))) void
mrctx_torch_throw_oom(const char *message) {
  C10_THROW_ERROR(OutOfMemoryError, message);
}
"""

ALLOCATOR_ENV = "MRCTX_TORCH_ALLOCATOR_HELPER"
ALLOCATOR_NAME = "_mrctx_torch_allocator.so"

# The allocator helper: PyTorch's pluggable allocator, made from the shim's
# functions (their addresses in one array, in ALLOCATOR_ENTRIES' order),
# answering cacheInfo and checkPoolLiveAllocations from the shim, and made
# PyTorch's current allocator as torch.cuda.memory.change_current_allocator
# makes one. A hook whose address is 0 is not set.
ALLOCATOR_SOURCE = r"""
#include <torch/csrc/cuda/CUDAPluggableAllocator.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {
using Pluggable = torch::cuda::CUDAPluggableAllocator::CUDAPluggableAllocator;
typedef void *(*alloc_fn)(size_t, int, cudaStream_t);
typedef void (*free_fn)(void *, size_t, int, cudaStream_t);
typedef int (*cache_info_fn)(int, size_t *, char *, size_t);
typedef long (*pool_live_fn)(int, unsigned long long, unsigned long long, void **, size_t);
typedef void (*pool_incref_fn)(int, unsigned long long, unsigned long long);
typedef long (*pool_use_count_fn)(int, unsigned long long, unsigned long long);
typedef void (*pool_use_on_oom_fn)(int, unsigned long long, unsigned long long, int);
typedef void (*pool_no_split_fn)(int, unsigned long long, unsigned long long);
struct stat_numbers {  /* mrctx_torch_stat */
  long long current, peak, allocated, freed;
};
struct tag_stats {  /* mrctx_torch_device_stats */
  stat_numbers allocated_bytes, allocation, reserved_bytes, segment;
  long long num_ooms, num_device_alloc, num_device_free;
};
typedef int (*device_stats_fn)(int, tag_stats *, char *, size_t);
typedef int (*reset_stats_fn)(int, int, char *, size_t);
typedef double (*fraction_fn)(int, int);
struct pool_block {  /* mrctx_torch_pool_block */
  void *ptr;
  size_t size;
  void *stream;
};
typedef long (*pool_state_fn)(int, unsigned long long, unsigned long long, pool_block *, size_t);
typedef int (*pool_restore_fn)(int, unsigned long long, unsigned long long, const pool_block *,
                               size_t, void **, size_t, size_t *);

#ifndef MRCTX_TORCH_BASIC
}  // namespace
/* PyTorch declares the pluggable allocator's bookkeeping record in its
 * header and defines its constructors in libtorch_cuda without exporting
 * them (2.11): a restore records its blocks there (insert_or_assign, which
 * needs no default constructor), so the helper carries its own copy of
 * the one it uses, hidden, that constructs the record the same way. */
namespace torch::cuda::CUDAPluggableAllocator {
__attribute__((visibility("hidden")))
_AllocationMetadata::_AllocationMetadata(size_t size, c10::DeviceIndex device_idx,
                                         cudaStream_t stream)
    : size(size), device_idx(device_idx), stream(stream) {}
}  // namespace torch::cuda::CUDAPluggableAllocator
namespace {
/* A pool's saved state (getCheckpointState): its live blocks. */
struct PoolState final : c10::cuda::CUDACachingAllocator::AllocatorState {
  c10::DeviceIndex device;
  c10::cuda::MempoolId_t id;
  std::vector<pool_block> live;
};
#endif

struct Entries {
  alloc_fn alloc;
  free_fn free;
  cache_info_fn cache_info;
  pool_live_fn pool_live;
  pool_incref_fn pool_incref;
  pool_use_count_fn pool_use_count;
  pool_state_fn pool_state;
  pool_restore_fn pool_restore;
  pool_use_on_oom_fn pool_use_on_oom;
  pool_no_split_fn pool_no_split;
  device_stats_fn device_stats;
  reset_stats_fn reset_stats;
  fraction_fn fraction;
};

struct Allocator final : Pluggable {
  explicit Allocator(const Entries &e) : Pluggable(e.alloc, e.free), e_(e) {}

#ifndef MRCTX_TORCH_BASIC /* MemPool and Inductor's graph trees */
  void createOrIncrefPool(c10::DeviceIndex device, c10::cuda::MempoolId_t id,
                          std::shared_ptr<c10::cuda::CUDACachingAllocator::CUDAAllocator> other)
      override {
    TORCH_CHECK(other == nullptr || other.get() == this,
                "mrctx.torch.use: a MemPool with an allocator of its own is not served by the "
                "tag; use mrctx.torch.pool() for one over PyTorch's own allocator");
    e_.pool_incref(device, id.first, id.second);
  }

  int getPoolUseCount(c10::DeviceIndex device, c10::cuda::MempoolId_t id) override {
    return static_cast<int>(e_.pool_use_count(device, id.first, id.second));
  }

  /* MemPool(use_on_oom=True), and every MemPool's destructor (false). */
  void setUseOnOOM(c10::DeviceIndex device, c10::cuda::MempoolId_t id, bool use_on_oom) override {
    e_.pool_use_on_oom(device, id.first, id.second, use_on_oom ? 1 : 0);
  }

  /* MemPool(no_split=True). */
  void setNoSplit(c10::DeviceIndex device, c10::cuda::MempoolId_t id) override {
    e_.pool_no_split(device, id.first, id.second);
  }

  /* A MemPool's destructor empties its pool after releasing it: releasePool
   * already gave the tag every segment the pool no longer needs, and the
   * tag's own cache is not the pool's, so only {0, 0} (empty_cache) trims
   * the tag, as PyTorch's pluggable allocator does for every id. */
  void emptyCache(c10::cuda::MempoolId_t id) override {
    if (id.first == 0 && id.second == 0) Pluggable::emptyCache(id);
  }

  std::shared_ptr<c10::cuda::CUDACachingAllocator::AllocatorState>
  getCheckpointState(c10::DeviceIndex device, c10::cuda::MempoolId_t id) override {
    auto state = std::make_shared<PoolState>();
    state->device = device;
    state->id = id;
    long count = e_.pool_state(device, id.first, id.second, nullptr, 0);
    TORCH_CHECK(count >= 0, "getCheckpointState through mrctx: no private pool (", id.first, ", ",
                id.second, ") on device ", static_cast<int>(device));
    state->live.resize(static_cast<size_t>(count) + 16);
    count = e_.pool_state(device, id.first, id.second, state->live.data(), state->live.size());
    TORCH_CHECK(count >= 0 && static_cast<size_t>(count) <= state->live.size(),
                "getCheckpointState through mrctx: the pool changed while it was read");
    state->live.resize(static_cast<size_t>(count));
    return state;
  }

  c10::cuda::CUDACachingAllocator::CheckpointDelta
  setCheckpointPoolState(c10::DeviceIndex device,
                         std::shared_ptr<c10::cuda::CUDACachingAllocator::AllocatorState> pps)
      override {
    auto state = std::dynamic_pointer_cast<PoolState>(pps);
    TORCH_CHECK(state != nullptr && state->device == device,
                "setCheckpointPoolState through mrctx: not a state mrctx saved for device ",
                static_cast<int>(device));
    long held = e_.pool_state(device, state->id.first, state->id.second, nullptr, 0);
    std::vector<void *> freed(static_cast<size_t>(held > 0 ? held : 0) + 16);
    size_t freed_count = 0;
    TORCH_CHECK(e_.pool_restore(device, state->id.first, state->id.second, state->live.data(),
                                state->live.size(), freed.data(), freed.size(),
                                &freed_count) == 0 &&
                    freed_count <= freed.size(),
                "setCheckpointPoolState through mrctx: the pool (", state->id.first, ", ",
                state->id.second, ") no longer holds the saved blocks");
    c10::cuda::CUDACachingAllocator::CheckpointDelta delta;
    std::lock_guard<std::mutex> hold(allocator_mutex_);
    for (size_t i = 0; i < freed_count; i++) {
      allocation_metadata_.erase(freed[i]);
      delta.ptrs_freed.push_back(freed[i]);
    }
#ifndef MRCTX_TORCH_NO_HISTORY
    forget(delta.ptrs_freed); /* their frames: the blocks are freed */
#endif
    /* The saved blocks are PyTorch's allocations again, freed through this
     * allocator like any other. */
    for (const pool_block &b : state->live) {
      allocation_metadata_.insert_or_assign(
          b.ptr, torch::cuda::CUDAPluggableAllocator::_AllocationMetadata(
                     b.size, device, static_cast<cudaStream_t>(b.stream)));
      delta.dataptrs_allocd.emplace_back(b.ptr, b.ptr, raw_deleter(),
                                         c10::Device(c10::DeviceType::CUDA, device));
    }
    return delta;
  }

#endif

#ifndef MRCTX_TORCH_NO_STATS /* torch.cuda.memory_stats() and its kin */
  c10::CachingDeviceAllocator::DeviceStats getDeviceStats(c10::DeviceIndex device) override {
    tag_stats s{};
    char why[512] = "";
    TORCH_CHECK(e_.device_stats(device, &s, why, sizeof why) == 0,
                "getDeviceStats through mrctx: ", why);
    c10::CachingDeviceAllocator::DeviceStats out;
    /* mrctx has no small and large pools: the aggregate (first) only. */
    auto put = [](auto &array, const stat_numbers &n) {
      array[0].current = n.current;
      array[0].peak = n.peak;
      array[0].allocated = n.allocated;
      array[0].freed = n.freed;
    };
    put(out.allocated_bytes, s.allocated_bytes);
    put(out.active_bytes, s.allocated_bytes);
    put(out.requested_bytes, s.allocated_bytes);
    put(out.allocation, s.allocation);
    put(out.active, s.allocation);
    put(out.reserved_bytes, s.reserved_bytes);
    put(out.segment, s.segment);
    out.num_ooms = s.num_ooms;
    out.num_device_alloc = s.num_device_alloc;
    out.num_device_free = s.num_device_free;
    out.max_split_size = -1; /* no block is too large to split */
    return out;
  }

  void resetPeakStats(c10::DeviceIndex device) override { reset(device, 0, "resetPeakStats"); }

  void resetAccumulatedStats(c10::DeviceIndex device) override {
    reset(device, 1, "resetAccumulatedStats");
  }

  void reset(c10::DeviceIndex device, int accumulated, const char *what) {
    char why[512] = "";
    TORCH_CHECK(e_.reset_stats(device, accumulated, why, sizeof why) == 0, what,
                " through mrctx: ", why);
  }
#endif

#ifndef MRCTX_TORCH_NO_HISTORY /* memory history, snapshots, the fraction set */
  using When = c10::CachingDeviceAllocator::RecordContext;
  using Trace = c10::CachingDeviceAllocator::TraceEntry;
  using Context = std::shared_ptr<c10::GatheredContext>;

  /* torch.cuda.get_per_process_memory_fraction(): what the memory-fraction
   * hook set on the device (1.0 when none), as PyTorch's own allocator. */
  double getMemoryFraction(c10::DeviceIndex device) override {
    double fraction = e_.fraction(0, device);
    TORCH_CHECK(fraction >= 0.0, "getMemoryFraction through mrctx: device ",
                static_cast<int>(device), " is not one of the tag's");
    return fraction;
  }

  /* torch.cuda.memory._record_memory_history(): PyTorch's context recorder
   * (its Python, TorchScript and C++ frames) is asked at each allocation,
   * outside any lock, as PyTorch's own allocator asks it; the trace keeps
   * the last max_entries events per device. mrctx knows blocks, not how the
   * tag's cache lays them out, so each allocation is a segment of its own
   * (as mrctx.export_memory_viz writes them): "segment_alloc" then
   * "alloc", and a free "free_requested", "free_completed" (the tag keeps a
   * block from reuse until the streams that used it are done with it,
   * which PyTorch cannot see) then "segment_free". Allocations pay one
   * atomic load while history is off. */
  bool isHistoryEnabled() override { return recording_.load(std::memory_order_acquire); }

  void recordHistory(bool enabled, c10::cuda::CUDACachingAllocator::CreateContextFn recorder,
                     size_t max_entries, When when, bool clear,
                     const std::vector<std::string> &skip_actions) override {
    std::unordered_set<int> skip;
    for (const std::string &name : skip_actions)
      skip.insert(static_cast<int>(c10::CachingDeviceAllocator::parseTraceEntryAction(name)));
    TORCH_CHECK(!enabled || when == When::NEVER || recorder != nullptr,
                "recordHistory through mrctx: call stacks asked without a recorder");
    std::lock_guard<std::mutex> hold(history_mutex_);
    recorder_ = enabled ? recorder : nullptr;
    when_ = enabled ? when : When::NEVER;
    max_entries_ = enabled ? max_entries : 0;
    skip_ = std::move(skip);
    if (!enabled || clear) traces_.clear();
    if (!enabled) contexts_.clear();
    recording_.store(enabled, std::memory_order_release);
  }

  c10::DataPtr allocate(size_t size) override {
    if (!recording_.load(std::memory_order_acquire)) return Pluggable::allocate(size);
    return recorded(size, [&] { return Pluggable::allocate(size); },
                    [](const c10::DataPtr &p) { return p.get(); });
  }

  void *raw_alloc(size_t size) override {
    if (!recording_.load(std::memory_order_acquire)) return Pluggable::raw_alloc(size);
    return recorded(size, [&] { return Pluggable::raw_alloc(size); }, [](void *p) { return p; });
  }

  void *raw_alloc_with_stream(size_t size, cudaStream_t stream) override {
    if (!recording_.load(std::memory_order_acquire))
      return Pluggable::raw_alloc_with_stream(size, stream);
    return recorded(size, [&] { return Pluggable::raw_alloc_with_stream(size, stream); },
                    [](void *p) { return p; });
  }

  void raw_delete(void *ptr) override {
    if (recording_.load(std::memory_order_acquire)) record_free(ptr);
    Pluggable::raw_delete(ptr);
  }

  /* torch.cuda.memory_snapshot() and memory._snapshot(): every allocation
   * PyTorch holds through this allocator as a segment of one block (a
   * pool's only, for a pool's id), with the frames recorded at its
   * allocation while history was on, and the trace. */
  c10::cuda::CUDACachingAllocator::SnapshotInfo snapshot(c10::cuda::MempoolId_t pool,
                                                          bool include_traces) override {
    std::vector<std::pair<void *, torch::cuda::CUDAPluggableAllocator::_AllocationMetadata>> live;
    {
      std::lock_guard<std::mutex> hold(allocator_mutex_);
      live.assign(allocation_metadata_.begin(), allocation_metadata_.end());
    }
    if (pool.first != 0 || pool.second != 0) {
      std::unordered_set<void *> in_pool;
      std::unordered_set<int> devices;
      for (const auto &a : live) devices.insert(a.second.device_idx);
      for (int device : devices) {
        std::vector<void *> ptrs;
        if (live_blocks(static_cast<c10::DeviceIndex>(device), pool, ptrs))
          in_pool.insert(ptrs.begin(), ptrs.end());
      }
      live.erase(std::remove_if(live.begin(), live.end(),
                                [&](const auto &a) { return in_pool.count(a.first) == 0; }),
                 live.end());
    }
    std::sort(live.begin(), live.end(), [](const auto &a, const auto &b) {
      return a.second.device_idx != b.second.device_idx ? a.second.device_idx < b.second.device_idx
                                                        : a.first < b.first;
    });
    c10::cuda::CUDACachingAllocator::SnapshotInfo out;
    std::lock_guard<std::mutex> hold(history_mutex_);
    for (const auto &a : live) {
      c10::CachingDeviceAllocator::SegmentInfo segment;
      segment.device = a.second.device_idx;
      segment.address = reinterpret_cast<size_t>(a.first);
      segment.total_size = segment.requested_size = segment.allocated_size =
          segment.active_size = a.second.size;
      segment.stream = a.second.stream;
      segment.is_large = a.second.size > (1u << 20);
      segment.owner_private_pool_id = pool;
      c10::CachingDeviceAllocator::BlockInfo block;
      block.size = block.requested_size = a.second.size;
      block.allocated = block.active = true;
      auto context = contexts_.find(a.first);
      if (context != contexts_.end()) block.context_when_allocated = context->second;
      segment.context_when_allocated = block.context_when_allocated;
      segment.blocks.push_back(std::move(block));
      out.segments.push_back(std::move(segment));
    }
    if (include_traces)
      for (const auto &trace : traces_) out.device_traces.emplace_back(trace.begin(), trace.end());
    out.config_metadata.garbage_collection_threshold = 0.0;
    out.config_metadata.max_split_size = SIZE_MAX;
    out.config_metadata.pinned_num_register_threads = 0;
    out.config_metadata.expandable_segments = false;
    out.config_metadata.release_lock_on_malloc = false;
    out.config_metadata.pinned_use_host_register = false;
    out.config_metadata.graph_capture_record_stream_reuse = false;
    out.config_metadata.last_allocator_settings = "mrctx.torch.use";
    return out;
  }

private:
  /* The recorder's context when history keeps one at `least` (called
   * without a lock: it walks Python's frames). */
  Context gather(When least) {
    c10::cuda::CUDACachingAllocator::CreateContextFn recorder;
    {
      std::lock_guard<std::mutex> hold(history_mutex_);
      if (when_ < least) return nullptr;
      recorder = recorder_;
    }
    return recorder != nullptr ? recorder() : nullptr;
  }

  template <typename Call, typename Ptr>
  auto recorded(size_t size, Call call, Ptr ptr_of) -> decltype(call()) {
    Context context = gather(When::STATE);
    try {
      auto result = call();
      record_alloc(ptr_of(result), context);
      return result;
    } catch (const c10::OutOfMemoryError &) {
      /* As PyTorch's: the entry's address is what the device has free
       * (for mrctx, as cacheInfo answers: free plus its pool's unused). */
      c10::DeviceIndex device = c10::cuda::current_device();
      size_t free_bytes = 0;
      char why[256];
      if (e_.cache_info(device, &free_bytes, why, sizeof why) != 0) free_bytes = 0;
      std::lock_guard<std::mutex> hold(history_mutex_);
      add(Trace::OOM, device, reinterpret_cast<void *>(free_bytes), size, nullptr,
          when_ >= When::ALLOC ? context : nullptr);
      throw;
    }
  }

  bool metadata(void *ptr, torch::cuda::CUDAPluggableAllocator::_AllocationMetadata *out) {
    std::lock_guard<std::mutex> hold(allocator_mutex_);
    auto it = allocation_metadata_.find(ptr);
    if (it == allocation_metadata_.end()) return false;
    *out = it->second;
    return true;
  }

  void record_alloc(void *ptr, const Context &context) {
    torch::cuda::CUDAPluggableAllocator::_AllocationMetadata m(0, 0, nullptr);
    if (!metadata(ptr, &m)) return;
    std::lock_guard<std::mutex> hold(history_mutex_);
    if (!recording_.load(std::memory_order_relaxed)) return;
    if (context != nullptr) contexts_[ptr] = context;
    Context traced = when_ >= When::ALLOC ? context : nullptr;
    add(Trace::SEGMENT_ALLOC, m.device_idx, ptr, m.size, m.stream, traced);
    add(Trace::ALLOC, m.device_idx, ptr, m.size, m.stream, traced);
  }

  void record_free(void *ptr) {
    torch::cuda::CUDAPluggableAllocator::_AllocationMetadata m(0, 0, nullptr);
    if (!metadata(ptr, &m)) return;
    Context context = gather(When::ALL);
    std::lock_guard<std::mutex> hold(history_mutex_);
    contexts_.erase(ptr);
    add(Trace::FREE_REQUESTED, m.device_idx, ptr, m.size, m.stream, context);
    add(Trace::FREE_COMPLETED, m.device_idx, ptr, m.size, m.stream, context);
    add(Trace::SEGMENT_FREE, m.device_idx, ptr, m.size, m.stream, context);
  }

  void forget(const std::vector<void *> &ptrs) {
    std::lock_guard<std::mutex> hold(history_mutex_);
    for (void *ptr : ptrs) contexts_.erase(ptr);
  }

  /* Under history_mutex_. */
  void add(Trace::Action action, c10::DeviceIndex device, void *ptr, size_t size,
           cudaStream_t stream, const Context &context) {
    if (max_entries_ == 0 || device < 0 || skip_.count(static_cast<int>(action)) != 0) return;
    if (traces_.size() <= static_cast<size_t>(device))
      traces_.resize(static_cast<size_t>(device) + 1);
    std::deque<Trace> &trace = traces_[static_cast<size_t>(device)];
    if (trace.size() >= max_entries_) trace.pop_front();
    trace.emplace_back(action, device, reinterpret_cast<size_t>(ptr), size,
                       static_cast<void *>(stream), c10::cuda::MempoolId_t{0, 0},
                       c10::getApproximateTime(), context);
  }

  std::atomic<bool> recording_{false};
  std::mutex history_mutex_; /* the members below */
  c10::cuda::CUDACachingAllocator::CreateContextFn recorder_ = nullptr;
  When when_ = When::NEVER;
  size_t max_entries_ = 0;
  std::unordered_set<int> skip_;
  std::vector<std::deque<Trace>> traces_;           /* per device */
  std::unordered_map<void *, Context> contexts_; /* live allocations' frames */

public:
#endif

  void cacheInfo(c10::DeviceIndex device, size_t *largest) override {
    char why[512] = "";
    size_t answer = 0;
    TORCH_CHECK(e_.cache_info(device, &answer, why, sizeof why) == 0, "cacheInfo through mrctx: ",
                why);
    *largest = answer;
  }

  bool checkPoolLiveAllocations(c10::DeviceIndex device, c10::cuda::MempoolId_t id,
                                const std::unordered_set<void *> &expected) override {
    std::vector<void *> live;
    if (!live_blocks(device, id, live)) return expected.empty();
    if (live.size() != expected.size()) return false;
    for (void *ptr : live)
      if (expected.count(ptr) == 0) return false;
    return true;
  }

  /* A private pool's live blocks on `device` into `out`; false where there
   * is no such pool. Read again, larger, while the pool grows meanwhile. */
  bool live_blocks(c10::DeviceIndex device, c10::cuda::MempoolId_t id, std::vector<void *> &out) {
    for (;;) {
      long count = e_.pool_live(device, id.first, id.second, out.data(), out.size());
      if (count < 0) return false;
      if (static_cast<size_t>(count) <= out.size()) {
        out.resize(static_cast<size_t>(count));
        return true;
      }
      out.resize(static_cast<size_t>(count) + 16);
    }
  }

  Entries e_;
};
} // namespace

extern "C" __attribute__((visibility("default"))) int
mrctx_torch_install_allocator(void *const *entries, char *why, size_t cap) {
  try {
    Entries e{reinterpret_cast<alloc_fn>(entries[0]),
              reinterpret_cast<free_fn>(entries[1]),
              reinterpret_cast<cache_info_fn>(entries[2]),
              reinterpret_cast<pool_live_fn>(entries[3]),
              reinterpret_cast<pool_incref_fn>(entries[10]),
              reinterpret_cast<pool_use_count_fn>(entries[11]),
              reinterpret_cast<pool_state_fn>(entries[12]),
              reinterpret_cast<pool_restore_fn>(entries[13]),
              reinterpret_cast<pool_use_on_oom_fn>(entries[14]),
              reinterpret_cast<pool_no_split_fn>(entries[15]),
              reinterpret_cast<device_stats_fn>(entries[16]),
              reinterpret_cast<reset_stats_fn>(entries[17]),
              reinterpret_cast<fraction_fn>(entries[18])};
    auto allocator = std::make_shared<Allocator>(e);
    if (entries[4] != nullptr)
      allocator->set_reset_fn(reinterpret_cast<void (*)()>(entries[4]));
    if (entries[5] != nullptr)
      allocator->set_memory_fraction_fn(reinterpret_cast<void (*)(double, int)>(entries[5]));
    if (entries[6] != nullptr)
      allocator->set_begin_allocate_to_pool(
          reinterpret_cast<void (*)(int, c10::cuda::MempoolId_t,
                                    std::function<bool(cudaStream_t)>)>(entries[6]));
    if (entries[7] != nullptr)
      allocator->set_end_allocate_to_pool_fn(
          reinterpret_cast<void (*)(int, c10::cuda::MempoolId_t)>(entries[7]));
    if (entries[8] != nullptr)
      allocator->set_release_pool(
          reinterpret_cast<void (*)(int, c10::cuda::MempoolId_t)>(entries[8]));
    if (entries[9] != nullptr)
      allocator->set_record_stream_fn(
          reinterpret_cast<void (*)(void *, cudaStream_t)>(entries[9]));
    allocator->init(0);
    torch::cuda::CUDAPluggableAllocator::changeCurrentAllocator(allocator);
    return 0;
  } catch (const std::exception &error) {
    std::snprintf(why, cap, "%s", error.what());
    return -1;
  }
}
"""

# The shim's functions the allocator helper takes, in its array's order.
ALLOCATOR_ENTRIES = ("alloc", "free", "mrctx_torch_cache_info", "mrctx_torch_pool_live",
                     "mrctx_torch_empty_cache", "mrctx_torch_set_memory_fraction",
                     "mrctx_torch_begin_allocate_to_pool", "mrctx_torch_end_allocate_to_pool",
                     "mrctx_torch_release_pool", "mrctx_torch_record_stream",
                     "mrctx_torch_pools_incref", "mrctx_torch_pools_use_count",
                     "mrctx_torch_pool_state", "mrctx_torch_pool_restore",
                     "mrctx_torch_pools_set_use_on_oom", "mrctx_torch_pools_set_no_split",
                     "mrctx_torch_read_device_stats", "mrctx_torch_reset_stats",
                     "mrctx_torch_route_fraction")

_state: dict[str, Any] = {"loaded": None, "why": None, "warned": False}
_allocator: dict[str, Any] = {"loaded": None, "why": None, "warned": False}


class Unavailable(Exception):
    """Why the helper cannot be had here."""


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mrctx"


def _compiler() -> str:
    cxx = os.environ.get("CXX", "")
    if cxx:
        found = shutil.which(cxx)
        if found is None:
            raise Unavailable(f"CXX={cxx!r} is not a program")
        return found
    for name in ("c++", "g++", "clang++"):
        found = shutil.which(name)
        if found:
            return found
    raise Unavailable("no C++ compiler (c++, g++ or clang++ on PATH, or CXX)")


def _torch_paths(cuda: bool = False) -> tuple[list[str], list[str]]:
    """PyTorch's include and library folders (torch.utils.cpp_extension,
    imported only to build: it imports setuptools), with the CUDA
    runtime's headers for ``cuda``."""
    try:
        cpp_extension = importlib.import_module("torch.utils.cpp_extension")
    except Exception as error:  # ImportError, or anything its import raises
        raise Unavailable(f"torch.utils.cpp_extension cannot be imported ({error})") from error
    includes = [str(p) for p in cpp_extension.include_paths()]
    libraries = [str(p) for p in cpp_extension.library_paths()]
    if not any((Path(p) / "c10" / "util" / "Exception.h").is_file() for p in includes):
        raise Unavailable(f"this PyTorch has no C++ headers (c10/util/Exception.h under "
                          f"{includes})")
    if not any((Path(p) / "libc10.so").exists() for p in libraries):
        raise Unavailable(f"no libc10.so in PyTorch's library folders {libraries}")
    if cuda:
        includes += _cuda_includes(cpp_extension)
    return includes, libraries


def _cuda_includes(cpp_extension: Any) -> list[str]:
    """Where cuda_runtime_api.h is: the toolkit PyTorch's build tools find
    (CUDA_HOME), /usr/local/cuda, or the nvidia-cuda-runtime wheel beside
    PyTorch."""
    candidates = []
    home = getattr(cpp_extension, "CUDA_HOME", None) or os.environ.get("CUDA_HOME")
    if home:
        candidates.append(Path(home) / "include")
    candidates.append(Path("/usr/local/cuda/include"))
    site = Path(cpp_extension.__file__).resolve().parents[3]  # site-packages
    candidates += sorted(site.glob("nvidia/*/include")) + sorted(site.glob("nvidia/*/*/include"))
    for folder in candidates:
        if (folder / "cuda_runtime_api.h").is_file():
            return [str(folder)]
    raise Unavailable("no CUDA runtime headers (cuda_runtime_api.h under CUDA_HOME, "
                      "/usr/local/cuda or the nvidia wheels beside PyTorch)")


def _abi(torch: Any) -> int:
    """PyTorch's C++ ABI flag (_GLIBCXX_USE_CXX11_ABI)."""
    abi = getattr(getattr(torch, "_C", None), "_GLIBCXX_USE_CXX11_ABI", None)
    if abi is None:
        abi = torch.compiled_with_cxx11_abi() if hasattr(torch, "compiled_with_cxx11_abi") else 1
    return int(bool(abi))


def _first_errors(stderr: str) -> str:
    """The compiler's first error lines (the later ones follow from them)."""
    lines = [line.strip() for line in stderr.splitlines() if "error" in line.lower()]
    return " / ".join(lines[:2])[:500] if lines else stderr.strip()[-300:]


def _build(torch: Any, source_text: str = SOURCE, name: str = NAME,
           libs: tuple[str, ...] = ("c10",), cuda: bool = False) -> Path:
    """A helper for this PyTorch: from the cache, or built into it."""
    cxx = _compiler()
    abi = _abi(torch)
    # Which PyTorch: its version and its folder (its headers and libraries
    # are under it), read without importing cpp_extension.
    where = str(Path(torch.__file__).resolve().parent)
    key = json.dumps({"torch": str(torch.__version__), "where": where, "abi": abi,
                      "cxx": cxx, "source": source_text, "libs": list(libs)}, sort_keys=True)
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    version = "".join(c if c.isalnum() or c in ".+-" else "_" for c in str(torch.__version__))
    folder = cache_root() / f"torch-{version}-{digest}"
    target = folder / name
    # A source this compiler refused for this PyTorch stays refused: the
    # next process reads why instead of compiling it again.
    refused = folder / (name + ".failed")
    if target.is_file():
        return target
    if refused.is_file():
        raise Unavailable(refused.read_text())
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = open(folder / "build.lock", "w")
    except OSError as error:
        raise Unavailable(f"cannot write the cache folder {folder} ({error})") from error
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building it
        if target.is_file():
            return target
        if refused.is_file():
            raise Unavailable(refused.read_text())
        includes, libraries = _torch_paths(cuda)
        source = folder / (Path(name).stem.lstrip("_") + ".cpp")
        source.write_text(source_text)
        fd, partial = tempfile.mkstemp(prefix=".build-", suffix=".so", dir=folder)
        os.close(fd)
        errors = []
        try:
            for standard in ("-std=c++17", "-std=c++20"):
                command = [cxx, "-shared", "-fPIC", "-O1", standard,
                           f"-D_GLIBCXX_USE_CXX11_ABI={abi}",
                           *[f"-I{p}" for p in includes], str(source), "-o", partial,
                           *[f"-L{p}" for p in libraries],
                           *[f"-Wl,-rpath,{p}" for p in libraries], *[f"-l{lib}" for lib in libs]]
                try:
                    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
                except (OSError, subprocess.TimeoutExpired) as error:
                    raise Unavailable(f"{cxx} could not run ({error})") from error
                if done.returncode == 0:
                    os.replace(partial, target)  # whole, or not there
                    return target
                errors.append(f"{standard}: {_first_errors(done.stderr)}")
            why = f"{cxx} could not build it against PyTorch's headers: " + "; ".join(errors)
            refused.write_text(why)
            raise Unavailable(why)
        finally:
            if os.path.exists(partial):
                os.unlink(partial)


def _open(path: str, symbol: str) -> tuple[Any, Any]:
    """The helper at `path`, loaded, and its function `symbol`."""
    try:
        library = ctypes.CDLL(path)
        return library, getattr(library, symbol)
    except (OSError, AttributeError) as error:
        raise Unavailable(f"cannot load {path} ({error})") from error


def _load(path: str) -> int:
    """The thrower's address in the helper at `path`."""
    library, thrower = _open(path, "mrctx_torch_throw_oom")
    address = ctypes.cast(thrower, ctypes.c_void_p).value
    if not address:
        raise Unavailable(f"{path} has no mrctx_torch_throw_oom")
    _state["library"] = library  # never unloaded: the shim keeps its address
    return int(address)


def install(torch: Any, shim: Any, who: str) -> Optional[str]:
    """Give the shim the thrower of torch.OutOfMemoryError, once per
    process. Returns the helper's path, or None (the shim keeps throwing
    RuntimeError) after warning once why, unless MRCTX_TORCH_OOM_HELPER=0."""
    if _state["loaded"] is not None or _state["why"] is not None:
        return _state["loaded"]
    choice = os.environ.get(ENV, "")
    if choice == "0":
        _state["why"] = f"{ENV}=0"
        return None
    try:
        path = choice if choice not in ("", "auto") else str(_build(torch))
        address = _load(path)
    except Unavailable as error:
        _state["why"] = str(error)
        if not _state["warned"]:
            _state["warned"] = True
            warnings.warn(f"{who}: out of memory raises RuntimeError (\"CUDA out of memory. "
                          f"...\"), not torch.OutOfMemoryError: {error}. Set {ENV}=0 to "
                          "silence this", RuntimeWarning, stacklevel=3)
        return None
    shim.mrctx_torch_set_oom_thrower(ctypes.c_void_p(address))
    _state["loaded"], _state["why"] = path, None
    return path


def status() -> tuple[Optional[str], Optional[str]]:
    """(the helper's path, None) once installed; (None, why not) after a
    use() that could not have it; (None, None) before."""
    return _state["loaded"], _state["why"]


# The allocator helper's source in the order it is tried, each with what
# it goes without: a PyTorch whose headers or libraries refuse a part keeps
# the rest (cacheInfo and checkPoolLiveAllocations are in every one).
_NO_HISTORY = "#define MRCTX_TORCH_NO_HISTORY\n"
_HISTORY_LOST = ("torch.cuda.memory._record_memory_history(), memory_snapshot() and "
                 "get_per_process_memory_fraction() raise under use()")
ALLOCATOR_VARIANTS = (
    ("", ""),
    (_NO_HISTORY, _HISTORY_LOST),
    (_NO_HISTORY + "#define MRCTX_TORCH_NO_STATS\n",
     "torch.cuda.memory_stats(), memory_allocated() and their kin raise under use() unless "
     "use(..., patch=True) replaced them, and " + _HISTORY_LOST),
    (_NO_HISTORY + "#define MRCTX_TORCH_BASIC\n",
     "torch.cuda.MemPool and torch.compile(mode=\"reduce-overhead\") are not served on the "
     "tag, and " + _HISTORY_LOST),
    (_NO_HISTORY + "#define MRCTX_TORCH_NO_STATS\n#define MRCTX_TORCH_BASIC\n",
     "torch.cuda.MemPool and torch.compile(mode=\"reduce-overhead\") are not served on the tag, "
     "torch.cuda.memory_stats() and its kin raise unless patched, and " + _HISTORY_LOST),
)


def _build_allocator(torch: Any, who: str) -> tuple[str, Any, Any]:
    """The allocator helper, built and loaded (its path, library and install
    function): the whole source, or, where a PyTorch's headers refuse a
    part or its libraries lack what one needs, the source without that
    part (ALLOCATOR_VARIANTS), after warning once what is lost."""
    libs = ("torch_cuda", "c10_cuda", "c10")
    first_error: Optional[Unavailable] = None
    for defines, lost in ALLOCATOR_VARIANTS:
        try:
            path = str(_build(torch, defines + ALLOCATOR_SOURCE, ALLOCATOR_NAME, libs, cuda=True))
            opened = _open(path, "mrctx_torch_install_allocator")
        except Unavailable as error:
            if "could not build it" not in str(error) and "cannot load" not in str(error):
                raise
            first_error = first_error or error
            continue
        if first_error is not None:
            _allocator["partial"] = str(first_error)
            warnings.warn(f"{who}: {lost} (the allocator helper's answers to them do not build "
                          f"or load against this PyTorch: {first_error})", RuntimeWarning,
                          stacklevel=4)
        return (path, *opened)
    assert first_error is not None
    raise first_error


def install_allocator(torch: Any, shim: Any, alloc: str, free: str, who: str) -> bool:
    """Make the allocator helper over the shim's ``alloc``/``free`` pair and
    hooks PyTorch's current allocator. True when it is; False (after
    warning once why, unless MRCTX_TORCH_ALLOCATOR_HELPER=0) when the helper
    cannot be had, and the caller installs the plain pluggable allocator.
    Raises RuntimeError with PyTorch's refusal (an initialised allocator)."""
    choice = os.environ.get(ALLOCATOR_ENV, "")
    if choice == "0":
        _allocator["why"] = f"{ALLOCATOR_ENV}=0"
        return False
    try:
        if choice in ("", "auto"):
            path, library, install_fn = _build_allocator(torch, who)
        else:
            path = choice
            library, install_fn = _open(path, "mrctx_torch_install_allocator")
    except Unavailable as error:
        _allocator["why"] = str(error)
        if not _allocator["warned"]:
            _allocator["warned"] = True
            warnings.warn(f"{who}: PyTorch's plain pluggable allocator is used, under which "
                          f"torch.backends.cudnn.benchmark raises (no cacheInfo): {error}. Set "
                          f"{ALLOCATOR_ENV}=0 to silence this", RuntimeWarning, stacklevel=3)
        return False
    entries = (ctypes.c_void_p * len(ALLOCATOR_ENTRIES))()
    for i, name in enumerate(ALLOCATOR_ENTRIES):
        function = {"alloc": alloc, "free": free}.get(name, name)
        entries[i] = ctypes.cast(getattr(shim, function), ctypes.c_void_p).value
    install_fn.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_size_t]
    install_fn.restype = ctypes.c_int
    why = ctypes.create_string_buffer(1024)
    if install_fn(entries, why, len(why)) != 0:
        raise RuntimeError(why.value.decode(errors="replace"))
    _allocator["library"] = library  # never unloaded: PyTorch holds its allocator
    _allocator["loaded"], _allocator["why"] = path, None
    return True


def allocator_status() -> tuple[Optional[str], Optional[str]]:
    """The allocator helper's (path, None) once installed; (None, why not)
    after a use() that could not have it; (None, None) before."""
    return _allocator["loaded"], _allocator["why"]

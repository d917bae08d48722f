/*
 * _torch_oom.cpp: the allocation functions PyTorch's allocator swap loads
 * (route 0's and the control's, plain and timed) and the hooks of its
 * pluggable allocator that mrctx.torch.use() registers (empty_cache, the
 * memory fraction, the private pools of CUDA graphs, whose pools live in
 * _torch_pools.cpp): the C++ part of the PyTorch shim, since each reports
 * failure by throwing.
 *
 * Under torch.cuda.memory.change_current_allocator PyTorch does not check
 * the pointer the allocation function returns: a NULL would become a tensor
 * over address 0 and fail later, inside a kernel. So a failure here throws a
 * C++ exception, which PyTorch turns into a Python exception carrying the
 * message; for out of memory it starts "CUDA out of memory." as PyTorch's
 * own (tools that shrink a batch on OOM look for that text).
 *
 * Out of memory is thrown as c10::OutOfMemoryError, which PyTorch turns
 * into torch.OutOfMemoryError (a RuntimeError), when Python has set a
 * thrower (mrctx_torch_set_oom_thrower): a helper built against the
 * installed PyTorch's headers and its libc10 (mrctx/_torch_oom_helper.py),
 * since this shim links no part of PyTorch. Without one, and for every
 * other failure, it is a std::runtime_error: RuntimeError.
 */
#include <atomic>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "_torch_alloc.h"
#include "_torch_pools.h"

extern "C" __attribute__((visibility("default"))) void *mrctx_torch_alloc(ssize_t size, int device,
                                                                          void *stream);

extern "C" __attribute__((visibility("default"))) void *
mrctx_torch_alloc_timed(ssize_t size, int device, void *stream);
extern "C" __attribute__((visibility("default"))) void *
mrctx_torch_control_alloc(ssize_t size, int device, void *stream);
extern "C" __attribute__((visibility("default"))) void *
mrctx_torch_control_alloc_timed(ssize_t size, int device, void *stream);

/* The hooks, in the types PyTorch's CUDAPluggableAllocator casts them to
 * (torch/csrc/cuda/Module.cpp: set_reset_fn void(), set_memory_fraction_fn
 * void(double, int), set_begin_allocate_to_pool void(int, MempoolId_t,
 * std::function<bool(cudaStream_t)>), set_end_allocate_to_pool_fn and
 * set_release_pool void(int, MempoolId_t)); MempoolId_t is a pair of
 * unsigned long long, cudaStream_t a CUstream_st *. */
typedef mrctx_torch_pool_id mempool_id;
typedef mrctx_torch_stream_filter stream_filter;

extern "C" __attribute__((visibility("default"))) void mrctx_torch_free(void *ptr, ssize_t size,
                                                                        int device, void *stream);
extern "C" __attribute__((visibility("default"))) void
mrctx_torch_free_timed(void *ptr, ssize_t size, int device, void *stream);
extern "C" __attribute__((visibility("default"))) void mrctx_torch_empty_cache(void);
extern "C" __attribute__((visibility("default"))) void
mrctx_torch_set_memory_fraction(double fraction, int device);
extern "C" __attribute__((visibility("default"))) void
mrctx_torch_begin_allocate_to_pool(int device, mempool_id id, stream_filter filter);
extern "C" __attribute__((visibility("default"))) void
mrctx_torch_end_allocate_to_pool(int device, mempool_id id);
extern "C" __attribute__((visibility("default"))) void mrctx_torch_release_pool(int device,
                                                                                mempool_id id);
extern "C" __attribute__((visibility("default"))) void
mrctx_torch_record_stream(void *ptr, CUstream_st *stream);

extern "C" __attribute__((visibility("default"))) void mrctx_torch_set_oom_thrower(void *thrower);
extern "C" __attribute__((visibility("default"))) int mrctx_torch_oom_thrower_set(void);

namespace {
/* The helper's mrctx_torch_throw_oom: throws c10::OutOfMemoryError with the
 * message and never returns. Set once by Python before PyTorch can call the
 * allocation functions (use(), use_control()); read on failures only. */
typedef void (*oom_thrower)(const char *message);
std::atomic<oom_thrower> throw_oom{nullptr};
} // namespace

/* NULL goes back to std::runtime_error. The helper must stay loaded for the
 * rest of the process (Python never unloads it). */
void mrctx_torch_set_oom_thrower(void *thrower) {
  throw_oom.store(reinterpret_cast<oom_thrower>(thrower), std::memory_order_release);
}

int mrctx_torch_oom_thrower_set(void) {
  return throw_oom.load(std::memory_order_acquire) != nullptr;
}

[[noreturn]] static void fail(mr_status status, const char *who, ssize_t size, int device) {
  std::string message = status == MR_ERR_OUT_OF_MEMORY ? "CUDA out of memory. " : "";
  message += std::string("mrctx (") + who + ") could not allocate " + std::to_string(size) +
             " bytes on device " + std::to_string(device) + " (" + mr_status_name(status) +
             "): " + mr_last_error();
  oom_thrower thrower = throw_oom.load(std::memory_order_acquire);
  if (status == MR_ERR_OUT_OF_MEMORY && thrower != nullptr) {
    thrower(message.c_str());
    std::terminate(); /* a thrower that returned broke its contract */
  }
  throw std::runtime_error(message);
}

/* ---- Private pools (CUDA graphs, torch.cuda.use_mem_pool) -----------------
 *
 * PyTorch's hooks hand the pools (_torch_pools.cpp) its pool ids and
 * filters; route 0's allocation and free ask the pools first while any is
 * open or holds a block, which costs one relaxed load otherwise. */

void mrctx_torch_begin_allocate_to_pool(int device, mempool_id id, stream_filter filter) {
  mrctx_torch_pools_begin(device, id, std::move(filter));
}

void mrctx_torch_end_allocate_to_pool(int device, mempool_id id) {
  mrctx_torch_pools_end(device, id);
}

void mrctx_torch_release_pool(int device, mempool_id id) { mrctx_torch_pools_release(device, id); }

__attribute__((visibility("default"))) void *
mrctx_torch_route0_alloc(ssize_t size, int device, void *stream, mr_status *status) {
  if (mrctx_torch_pools_route()) {
    bool handled = false;
    void *ptr = mrctx_torch_pools_alloc(size, device, stream, status, &handled);
    if (handled) return ptr;
  }
  void *ptr = mrctx_torch_route_alloc(0, size, device, stream, status);
  if (ptr == nullptr && *status == MR_ERR_OUT_OF_MEMORY) {
    /* The tag ran out even after mrctx's reclaim: a MemPool made with
     * use_on_oom=True lends a free block, as PyTorch's allocator does. */
    void *lent = mrctx_torch_pools_alloc_on_oom(size, device, stream);
    if (lent != nullptr) {
      mrctx_torch_route_count_lent(0, device); /* not an out-of-memory for PyTorch */
      *status = MR_OK;
      return lent;
    }
  }
  return ptr;
}

__attribute__((visibility("default"))) void mrctx_torch_route0_free(void *ptr, ssize_t size,
                                                                    int device, void *stream) {
  if (ptr == nullptr) return;
  if (mrctx_torch_pools_free(ptr, size, device, stream)) return;
  mrctx_torch_route_free(0, ptr, size, device, stream);
}

void mrctx_torch_free(void *ptr, ssize_t size, int device, void *stream) {
  mrctx_torch_route0_free(ptr, size, device, stream);
}

void mrctx_torch_free_timed(void *ptr, ssize_t size, int device, void *stream) {
  unsigned long long start = mrctx_torch_clock_ns();
  mrctx_torch_route0_free(ptr, size, device, stream);
  mrctx_torch_time_record(MRCTX_TORCH_TIME_FREE, start);
}

/* ---- empty_cache and the memory fraction ----------------------------------- */

void mrctx_torch_empty_cache(void) {
  if (mrctx_torch_route_empty_cache(0) != MR_OK) throw std::runtime_error(mr_last_error());
}

void mrctx_torch_set_memory_fraction(double fraction, int device) {
  if (mrctx_torch_route_set_fraction(0, fraction, device) != MR_OK)
    throw std::runtime_error(mr_last_error());
}

/* ---- Tensor.record_stream -------------------------------------------------- *
 *
 * set_record_stream_fn's hook, void(void *, cudaStream_t): a block used on
 * a side stream is not handed out again until that stream's work queued
 * before the free has finished. A record that cannot be made throws: the
 * tensor's later free would otherwise let the side stream read memory
 * handed to someone else. */

void mrctx_torch_record_stream(void *ptr, CUstream_st *stream) {
  if (mrctx_torch_pools_record_stream(ptr)) return; /* kept by its pool until the pool goes */
  if (mrctx_torch_route_record_stream(0, ptr, stream) != MR_OK)
    throw std::runtime_error(mr_last_error());
}

/* ---- Allocation ------------------------------------------------------------ */

void *mrctx_torch_alloc(ssize_t size, int device, void *stream) {
  mr_status status = MR_OK;
  void *ptr = mrctx_torch_route0_alloc(size, device, stream, &status);
  if (status == MR_OK) return ptr;
  fail(status, mrctx_torch_route_name(0), size, device);
}

/* The same with MRCTX_TORCH_TIMING=1 (_torch_alloc.h); a failed call is
 * counted too, before it throws. */
void *mrctx_torch_alloc_timed(ssize_t size, int device, void *stream) {
  mr_status status = MR_OK;
  unsigned long long start = mrctx_torch_clock_ns();
  void *ptr = mrctx_torch_route0_alloc(size, device, stream, &status);
  mrctx_torch_time_record(MRCTX_TORCH_TIME_ALLOC, start);
  if (status == MR_OK) return ptr;
  fail(status, mrctx_torch_route_name(0), size, device);
}

/* The control allocator's (_torch_alloc.h), loaded the way route 0's is. */
void *mrctx_torch_control_alloc(ssize_t size, int device, void *stream) {
  mr_status status = MR_OK;
  void *ptr = mrctx_torch_control_route_alloc(size, device, stream, &status);
  if (status == MR_OK) return ptr;
  fail(status, "control", size, device);
}

void *mrctx_torch_control_alloc_timed(ssize_t size, int device, void *stream) {
  mr_status status = MR_OK;
  unsigned long long start = mrctx_torch_clock_ns();
  void *ptr = mrctx_torch_control_route_alloc(size, device, stream, &status);
  mrctx_torch_time_record(MRCTX_TORCH_TIME_ALLOC, start);
  if (status == MR_OK) return ptr;
  fail(status, "control", size, device);
}

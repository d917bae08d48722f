/*
 * _torch_oom.cpp: the allocation functions PyTorch's allocator swap loads
 * (route 0's and the control's, plain and timed), the one C++ part of the
 * PyTorch shim.
 *
 * Under torch.cuda.memory.change_current_allocator PyTorch does not check
 * the pointer the allocation function returns: a NULL would become a tensor
 * over address 0 and fail later, inside a kernel. So a failure here throws a
 * C++ exception, which PyTorch turns into a Python RuntimeError carrying
 * the message; for out of memory it starts "CUDA out of memory." as
 * PyTorch's own (tools that shrink a batch on OOM look for that text).
 * torch.OutOfMemoryError itself cannot be thrown without linking c10.
 */
#include <stdexcept>
#include <string>

#include "_torch_alloc.h"

extern "C" __attribute__((visibility("default"))) void *
mrctx_torch_alloc(ssize_t size, int device, void *stream);

extern "C" __attribute__((visibility("default"))) void *
mrctx_torch_alloc_timed(ssize_t size, int device, void *stream);
extern "C" __attribute__((visibility("default"))) void *
mrctx_torch_control_alloc(ssize_t size, int device, void *stream);
extern "C" __attribute__((visibility("default"))) void *
mrctx_torch_control_alloc_timed(ssize_t size, int device, void *stream);

[[noreturn]] static void fail(mr_status status, const char *who, ssize_t size, int device) {
  std::string message = status == MR_ERR_OUT_OF_MEMORY ? "CUDA out of memory. " : "";
  message += std::string("mrctx (") + who + ") could not allocate " + std::to_string(size) +
             " bytes on device " + std::to_string(device) + " (" + mr_status_name(status) +
             "): " + mr_last_error();
  throw std::runtime_error(message);
}

void *mrctx_torch_alloc(ssize_t size, int device, void *stream) {
  mr_status status = MR_OK;
  void *ptr = mrctx_torch_route_alloc(0, size, device, stream, &status);
  if (status == MR_OK) return ptr;
  fail(status, mrctx_torch_route_name(0), size, device);
}

/* The same with MRCTX_TORCH_TIMING=1 (_torch_alloc.h); a failed call is
 * counted too, before it throws. */
void *mrctx_torch_alloc_timed(ssize_t size, int device, void *stream) {
  mr_status status = MR_OK;
  unsigned long long start = mrctx_torch_clock_ns();
  void *ptr = mrctx_torch_route_alloc(0, size, device, stream, &status);
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

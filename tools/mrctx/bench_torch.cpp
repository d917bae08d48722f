// bench_torch.cpp: PyTorch's CUDA caching allocator as a peer in `mrctx
// bench`, through its C++ API (raw_alloc_with_stream / raw_delete): the
// allocator PyTorch programs run on, without the tensor bookkeeping above
// it. Built only where libtorch is found (meson option bench_torch), against
// torch's headers and libc10 / libc10_cuda; everything torch throws stays in
// this file.
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <string>

#include "bench_torch.h"

namespace {

namespace torch_alloc = c10::cuda::CUDACachingAllocator;

// A StatArray's first entry is StatType::AGGREGATE: the small-block and
// large-block pools together.
constexpr std::size_t kAggregate = 0;

// What the allocator held when the current peak started; -1 when the
// statistics could not be read.
std::int64_t reserved_base = -1;

// c10::Error's message goes on with a backtrace after its first line.
void first_line(char *why, std::size_t cap, const char *what) {
  std::snprintf(why, cap, "PyTorch: %.*s", static_cast<int>(std::strcspn(what, "\n")), what);
}

} // namespace

extern "C" int bench_torch_init(char *why, std::size_t cap) {
  try {
    int devices = c10::cuda::device_count();
    if (devices < 1) {
      std::snprintf(why, cap, "PyTorch sees no CUDA device");
      return 0;
    }
    torch_alloc::CUDAAllocator *allocator = torch_alloc::get();
    if (allocator == nullptr) {
      std::snprintf(why, cap, "PyTorch has no CUDA allocator");
      return 0;
    }
    // PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync swaps in an allocator
    // over the driver's pool, which is not the peer this row names.
    std::string backend = allocator->name();
    if (backend != "native") {
      std::snprintf(why, cap,
                    "PyTorch's allocator backend is '%s' (PYTORCH_CUDA_ALLOC_CONF), not its "
                    "caching allocator",
                    backend.c_str());
      return 0;
    }
    torch_alloc::init(devices);
    return 1;
  } catch (const std::exception &e) {
    first_line(why, cap, e.what());
  } catch (...) {
    std::snprintf(why, cap, "PyTorch: an unknown exception");
  }
  return 0;
}

extern "C" int bench_torch_allocate(void **ptr, std::size_t bytes, void *stream) {
  try {
    *ptr = torch_alloc::raw_alloc_with_stream(bytes, static_cast<cudaStream_t>(stream));
    return *ptr == nullptr;
  } catch (...) { // c10::OutOfMemoryError, or any other refusal
    *ptr = nullptr;
    return 1;
  }
}

extern "C" int bench_torch_deallocate(void *ptr) {
  try {
    torch_alloc::raw_delete(ptr);
    return 0;
  } catch (...) {
    return 1;
  }
}

extern "C" int bench_torch_trim(void) {
  try {
    torch_alloc::emptyCache();
    return 0;
  } catch (...) {
    return 1;
  }
}

extern "C" void bench_torch_reset_peak(void) {
  try {
    torch_alloc::resetPeakStats(0);
    reserved_base = torch_alloc::getDeviceStats(0).reserved_bytes[kAggregate].current;
  } catch (...) {
    reserved_base = -1;
  }
}

extern "C" double bench_torch_peak_reserved(void) {
  if (reserved_base < 0) return std::numeric_limits<double>::quiet_NaN();
  try {
    return static_cast<double>(torch_alloc::getDeviceStats(0).reserved_bytes[kAggregate].peak -
                               reserved_base);
  } catch (...) {
    return std::numeric_limits<double>::quiet_NaN();
  }
}

// bench_rmm.cpp: rmm's device memory resources as peers in `mrctx bench`.
// Built only with -Drmm=PREFIX (an rmm install: conda's librmm or what
// tools/dev/build-rmm makes), against that prefix's headers and the CCCL it
// was built with. Everything rmm throws stays in this file.
#include <rmm/cuda_stream_view.hpp>
#include <rmm/mr/arena_memory_resource.hpp>
#include <rmm/mr/cuda_memory_resource.hpp>
#include <rmm/mr/pool_memory_resource.hpp>
#include <rmm/mr/statistics_resource_adaptor.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <optional>

#include "bench_rmm.h"

namespace {

struct peer {
  bench_rmm_kind kind;
  // Below the pool or arena: what it takes from cudaMalloc, counted.
  std::optional<rmm::mr::statistics_resource_adaptor> upstream;
  std::optional<rmm::mr::pool_memory_resource> pool;
  std::optional<rmm::mr::arena_memory_resource> arena;
  // The peak of the resources a trim remade since the measurement began:
  // a workload trims before its row reads the peak, and a remade adaptor
  // counts from zero (the arena's from its reservation up front).
  std::size_t earlier_peak = 0;

  std::size_t peak() const {
    if (!upstream) return earlier_peak;
    auto bytes = upstream->get_bytes_counter().peak;
    auto now = bytes > 0 ? static_cast<std::size_t>(bytes) : 0;
    return now > earlier_peak ? now : earlier_peak;
  }

  void make() {
    upstream.emplace(rmm::mr::cuda_memory_resource{});
    if (kind == BENCH_RMM_POOL)
      pool.emplace(*upstream, 0); // a copy shares the adaptor's counters
    else
      arena.emplace(*upstream);
  }

  void unmake() {
    pool.reset();
    arena.reset();
    upstream.reset();
  }

  void *allocate(std::size_t bytes, rmm::cuda_stream_view stream) {
    return pool ? pool->allocate(stream, bytes, rmm::CUDA_ALLOCATION_ALIGNMENT)
                : arena->allocate(stream, bytes, rmm::CUDA_ALLOCATION_ALIGNMENT);
  }

  void deallocate(void *ptr, std::size_t bytes, rmm::cuda_stream_view stream) {
    if (pool)
      pool->deallocate(stream, ptr, bytes, rmm::CUDA_ALLOCATION_ALIGNMENT);
    else
      arena->deallocate(stream, ptr, bytes, rmm::CUDA_ALLOCATION_ALIGNMENT);
  }
};

void first_line(char *why, std::size_t cap, const char *what) {
  std::snprintf(why, cap, "rmm: %.*s", static_cast<int>(std::strcspn(what, "\n")), what);
}

} // namespace

extern "C" void *bench_rmm_create(bench_rmm_kind kind, char *why, std::size_t cap) {
  if (cudaSetDevice(0) != cudaSuccess) {
    std::snprintf(why, cap, "cudaSetDevice(0) failed");
    return nullptr;
  }
  auto *p = new (std::nothrow) peer{kind, {}, {}, {}};
  if (p == nullptr) {
    std::snprintf(why, cap, "out of host memory");
    return nullptr;
  }
  try {
    p->make();
    return p;
  } catch (const std::exception &e) {
    first_line(why, cap, e.what());
  } catch (...) {
    std::snprintf(why, cap, "rmm: an unknown exception");
  }
  delete p;
  return nullptr;
}

extern "C" void bench_rmm_destroy(void *rmm) { delete static_cast<peer *>(rmm); }

extern "C" int bench_rmm_allocate(void *rmm, void **ptr, std::size_t bytes, void *stream) {
  try {
    *ptr = static_cast<peer *>(rmm)->allocate(
        bytes, rmm::cuda_stream_view{static_cast<cudaStream_t>(stream)});
    return *ptr == nullptr;
  } catch (...) { // rmm::out_of_memory, or any other refusal
    *ptr = nullptr;
    return 1;
  }
}

extern "C" void bench_rmm_deallocate(void *rmm, void *ptr, std::size_t bytes, void *stream) {
  static_cast<peer *>(rmm)->deallocate(ptr, bytes,
                                       rmm::cuda_stream_view{static_cast<cudaStream_t>(stream)});
}

extern "C" int bench_rmm_trim(void *rmm) {
  auto *p = static_cast<peer *>(rmm);
  try {
    // Blocks freed on a stream may still be in use there: wait first, as
    // the pool's destructor frees its memory with cudaFree at once.
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    p->earlier_peak = p->peak();
    p->unmake();
    p->make();
    return 0;
  } catch (...) {
    return 1;
  }
}

extern "C" std::size_t bench_rmm_peak_reserved(void *rmm) {
  return static_cast<peer *>(rmm)->peak();
}

extern "C" void bench_rmm_reset_peak(void *rmm) {
  // Called right after the trim that starts a measurement: the remade
  // adaptor counts from what it holds (the arena's reservation); only the
  // peaks of the resources replaced before go.
  static_cast<peer *>(rmm)->earlier_peak = 0;
}

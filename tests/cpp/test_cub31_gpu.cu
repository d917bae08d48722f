// test_cub31_gpu.cu: test_cub_gpu.cu in CCCL 3.1+'s spelling of cuda::mr: a
// real CUB algorithm draws its temporary storage from a context's tag
// through mrctx::device_accessible_resource handed over as a
// cuda::mr::resource_ref (allocate/deallocate with the stream first), and
// keys from another tag through a cuda::mr::any_resource, which current
// rmm's device_buffer takes (CCCL 3.2 and later). Compiled by nvcc against
// whichever CCCL 3.1+ tests/cpp/meson.build found (a CUDA 13.1+ toolkit, or
// -Dcccl). docs/cpp.md quotes this file. Exit 77 (skip) without a driver or
// a device.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cuda/memory_resource>
#include <cuda/stream_ref>
#include <cuda_runtime_api.h>

#include <mrctx/mrctx.hpp>

#if MRCTX_CCCL_SPELLING != 301
#error "test_cub31_gpu.cu is for CCCL 3.1 and later 3.x"
#endif

// The concepts CCCL checks when the adaptor is handed to it.
static_assert(
    cuda::mr::resource_with<mrctx::device_accessible_resource, cuda::mr::device_accessible>);
static_assert(cuda::mr::synchronous_resource_with<mrctx::device_accessible_resource,
                                                  cuda::mr::device_accessible>);
static_assert(
    !cuda::mr::resource_with<mrctx::device_accessible_resource, cuda::mr::host_accessible>);

#define CHECK_CUDA(call)                                                                        \
  do {                                                                                          \
    cudaError_t e_ = (call);                                                                    \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_)); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

namespace {

// CCCL 3.1+: a cudf-style function takes a cuda::mr::resource_ref for its
// temporary storage; allocate and deallocate take the stream first.
cudaError_t sort_keys(const std::uint32_t *in, std::uint32_t *out, int n, cuda::stream_ref stream,
                      cuda::mr::resource_ref<cuda::mr::device_accessible> temp) {
  std::size_t bytes = 0;
  cudaError_t err = cub::DeviceRadixSort::SortKeys(nullptr, bytes, in, out, n, 0, 32, stream.get());
  if (err != cudaSuccess) return err;
  void *storage = temp.allocate(stream, bytes, 256); // throws mrctx::bad_alloc
  err = cub::DeviceRadixSort::SortKeys(storage, bytes, in, out, n, 0, 32, stream.get());
  temp.deallocate(stream, storage, bytes, 256);
  return err;
}

enum sorter_tag { SORTER_TEMP, SORTER_KEYS };

mrctx::context sorter_context() {
  return mrctx::context(
      {"sorter", {{"temp", "arena(device, chunk=64MiB)"}, {"keys", "device"}}, "SORTER_MEMORY"});
}

int fail(const char *what) {
  std::fprintf(stderr, "test_cub31_gpu: %s\n", what);
  return 1;
}

} // namespace

int main() {
  if (mr_driver_load() != MR_OK) {
    std::fprintf(stderr, "skipping: %s\n", mr_last_error());
    return 77;
  }
  int devices = 0;
  if (mr_device_count(&devices) != MR_OK || devices == 0) {
    std::fprintf(stderr, "skipping: no CUDA device\n");
    return 77;
  }
  unsetenv("SORTER_MEMORY");
  CHECK_CUDA(cudaSetDevice(0));
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  const std::size_t n = std::size_t(4) << 20;
  const std::size_t bytes = n * sizeof(std::uint32_t);
  std::vector<std::uint32_t> in(n), out(n), expected(n);
  std::mt19937 random(12345);
  for (auto &k : in) k = static_cast<std::uint32_t>(random());
  expected = in;
  std::sort(expected.begin(), expected.end());

  try {
    mrctx::context ctx = sorter_context();
    mrctx::device_accessible_resource temp(ctx.get(SORTER_TEMP));
#if CCCL_MINOR_VERSION >= 2
    // The keys through an owning any_resource, as rmm::device_buffer keeps it.
    cuda::mr::any_resource<cuda::mr::device_accessible> keys{
        mrctx::device_accessible_resource(ctx.get(SORTER_KEYS))};
#else
    mrctx::device_accessible_resource keys(ctx.get(SORTER_KEYS));
#endif
    auto *d_in = static_cast<std::uint32_t *>(keys.allocate(stream, bytes, 256));
    auto *d_out = static_cast<std::uint32_t *>(keys.allocate(stream, bytes, 256));
    CHECK_CUDA(cudaMemcpyAsync(d_in, in.data(), bytes, cudaMemcpyHostToDevice, stream));
    CHECK_CUDA(sort_keys(d_in, d_out, static_cast<int>(n), stream, temp));
    CHECK_CUDA(cudaMemcpyAsync(out.data(), d_out, bytes, cudaMemcpyDeviceToHost, stream));
    keys.deallocate(stream, d_in, bytes, 256);
    keys.deallocate(stream, d_out, bytes, 256);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    if (out != expected) return fail("the sorted keys differ from std::sort's");
    mr_stats t = ctx.stats(SORTER_TEMP);
    mr_stats k = ctx.stats(SORTER_KEYS);
    std::printf("temp: %llu allocation(s), %llu bytes; keys: %llu allocations, %llu bytes\n",
                (unsigned long long)t.total_count, (unsigned long long)t.total_bytes,
                (unsigned long long)k.total_count, (unsigned long long)k.total_bytes);
    if (t.total_count != 1 || t.total_bytes == 0 || t.current_bytes != 0)
      return fail("the sort's temporary storage did not come from the temp tag");
    if (k.total_count != 2 || k.total_bytes != 2 * bytes || k.current_bytes != 0)
      return fail("the keys did not come from the keys tag");

    // Synchronous allocation through the reference: usable on return.
    cuda::mr::resource_ref<cuda::mr::device_accessible> ref{temp};
    void *p = ref.allocate_sync(4096, 256);
    CHECK_CUDA(cudaMemset(p, 0, 4096));
    ref.deallocate_sync(p, 4096, 256);

    // A failed allocation reaches the caller through CCCL's reference as
    // mrctx::bad_alloc (CUB's size query touches no memory).
    setenv("SORTER_MEMORY", "temp=limit(device, bytes=1MiB)", 1);
    mrctx::context limited = sorter_context();
    unsetenv("SORTER_MEMORY");
    mrctx::device_accessible_resource small(limited.get(SORTER_TEMP));
    try {
      static_cast<void>(sort_keys(nullptr, nullptr, static_cast<int>(n), stream, small));
      return fail("1 MiB of temporary storage was enough to sort 16 MiB");
    } catch (const mrctx::bad_alloc &e) {
      if (e.status() != MR_ERR_OUT_OF_MEMORY) return fail(e.what());
    }

    // A host tag cannot stand in for device memory: the adaptor refuses it.
    setenv("SORTER_MEMORY", "temp=host", 1);
    mrctx::context host = sorter_context();
    unsetenv("SORTER_MEMORY");
    try {
      mrctx::device_accessible_resource refused(host.get(SORTER_TEMP));
      return fail("a host tag was accepted as device-accessible");
    } catch (const mrctx::error &e) {
      if (e.status() != MR_ERR_INVALID_ARGUMENT) return fail(e.what());
    }
  } catch (const std::exception &e) {
    return fail(e.what());
  }
  CHECK_CUDA(cudaStreamDestroy(stream));
  std::printf("test_cub31_gpu: %zu keys sorted through mrctx tags (CCCL %d.%d)\n", n,
              CCCL_MAJOR_VERSION, CCCL_MINOR_VERSION);
  return 0;
}

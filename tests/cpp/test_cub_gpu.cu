// test_cub_gpu.cu: a real CUB algorithm drawing its temporary storage from a
// context's tag through mrctx::device_accessible_resource, compiled by nvcc
// against the toolkit's CCCL. cub::DeviceRadixSort sorts 4 Mi keys whose
// buffers come from another tag; the host checks the result and the tags'
// statistics. docs/cpp.md quotes this file. Exit 77 (skip) without a driver
// or a device.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cuda/memory_resource>
#include <cuda/stream_ref>
#include <cuda_runtime_api.h>

#include <mrctx/mrctx.hpp>

// The concepts CCCL checks when the adaptor is handed to it.
static_assert(
    cuda::mr::async_resource_with<mrctx::device_accessible_resource, cuda::mr::device_accessible>);
static_assert(
    cuda::mr::async_resource_with<mrctx::host_device_accessible_resource, cuda::mr::host_accessible,
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

// A cudf-style function: it takes the memory resource for its temporary
// storage, and allocates and frees it on the stream the work runs on.
cudaError_t sort_keys(const std::uint32_t *in, std::uint32_t *out, int n, cuda::stream_ref stream,
                      cuda::mr::async_resource_ref<cuda::mr::device_accessible> temp) {
  std::size_t bytes = 0;
  cudaError_t err = cub::DeviceRadixSort::SortKeys(nullptr, bytes, in, out, n, 0, 32, stream.get());
  if (err != cudaSuccess) return err;
  void *storage = temp.allocate_async(bytes, 256, stream); // throws mrctx::bad_alloc
  err = cub::DeviceRadixSort::SortKeys(storage, bytes, in, out, n, 0, 32, stream.get());
  temp.deallocate_async(storage, bytes, 256, stream);
  return err;
}

// The library's tags and its context; SORTER_MEMORY overrides them.
enum sorter_tag { SORTER_TEMP, SORTER_KEYS };

mrctx::context sorter_context() {
  return mrctx::context(
      {"sorter", {{"temp", "arena(device, chunk=64MiB)"}, {"keys", "device"}}, "SORTER_MEMORY"});
}

// The application: keys from one tag, in mrctx::buffers, and temporary
// storage from another. The buffers are freed on `stream` when they go out
// of scope, after the copy back is queued: stream-ordered, no sync first.
void sort_on_the_gpu(const mrctx::context &ctx, const std::vector<std::uint32_t> &host_in,
                     std::vector<std::uint32_t> &host_out, cudaStream_t stream) {
  mrctx::device_accessible_resource temp(ctx.get(SORTER_TEMP));
  std::size_t bytes = host_in.size() * sizeof(std::uint32_t);
  {
    mrctx::buffer in(ctx.get(SORTER_KEYS), bytes, stream);
    mrctx::buffer out(ctx.get(SORTER_KEYS), bytes, stream);
    CHECK_CUDA(cudaMemcpyAsync(in.data(), host_in.data(), bytes, cudaMemcpyHostToDevice, stream));
    CHECK_CUDA(sort_keys(in.data_as<std::uint32_t>(), out.data_as<std::uint32_t>(),
                         static_cast<int>(host_in.size()), stream, temp));
    CHECK_CUDA(cudaMemcpyAsync(host_out.data(), out.data(), bytes, cudaMemcpyDeviceToHost, stream));
  } // in and out are freed here, on `stream`
  CHECK_CUDA(cudaStreamSynchronize(stream));
}

int fail(const char *what) {
  std::fprintf(stderr, "test_cub_gpu: %s\n", what);
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
  unsetenv("SORTER_MEMORY"); // the defaults first, whatever the caller's environment
  CHECK_CUDA(cudaSetDevice(0));
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  const std::size_t n = std::size_t(4) << 20;
  std::vector<std::uint32_t> in(n), out(n), expected(n);
  std::mt19937 random(12345);
  for (auto &k : in) k = static_cast<std::uint32_t>(random());
  expected = in;
  std::sort(expected.begin(), expected.end());

  try {
    // The defaults: a device arena for the temporary storage.
    mrctx::context ctx = sorter_context();
    sort_on_the_gpu(ctx, in, out, stream);
    if (out != expected) return fail("the sorted keys differ from std::sort's");
    mr_stats temp = ctx.stats(SORTER_TEMP);
    mr_stats keys = ctx.stats(SORTER_KEYS);
    std::printf("temp: %llu allocation(s), %llu bytes; keys: %llu allocations, %llu bytes\n",
                (unsigned long long)temp.total_count, (unsigned long long)temp.total_bytes,
                (unsigned long long)keys.total_count, (unsigned long long)keys.total_bytes);
    if (temp.total_count != 1 || temp.total_bytes == 0 || temp.current_bytes != 0)
      return fail("the sort's temporary storage did not come from the temp tag");
    if (keys.total_count != 2 || keys.total_bytes != 2 * n * sizeof(std::uint32_t) ||
        keys.current_bytes != 0)
      return fail("the keys did not come from the keys tag");

    // An operator's override, and the same result.
    setenv("SORTER_MEMORY", "temp=cache(device)", 1);
    mrctx::context cached = sorter_context();
    unsetenv("SORTER_MEMORY");
    std::fill(out.begin(), out.end(), 0u);
    sort_on_the_gpu(cached, in, out, stream);
    if (out != expected) return fail("the sorted keys differ with temp=cache(device)");
    // Device tags get the default retry around them: "retry(cache(device))".
    if (std::string(cached.get(SORTER_TEMP).describe()).find("cache(device)") == std::string::npos)
      return fail("SORTER_MEMORY was not applied");

    // A failed allocation reaches the caller through CCCL's resource_ref as
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
  std::printf("test_cub_gpu: %zu keys sorted through mrctx tags\n", n);
  return 0;
}

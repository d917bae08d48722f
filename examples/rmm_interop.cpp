// rmm_interop.cpp: an mrctx tag handed to current rmm (26.06 and later, on
// CCCL 3.3+): an rmm::device_buffer drawing its memory from a tag, a
// cudf-style function taking an rmm::device_async_resource_ref, and a tag as
// rmm's current device resource, which everything allocating with rmm's
// default (cudf among them) then uses. docs/cpp.md quotes this file.
//
/*
 * Built and run as the gpu test gpu.cpp.rmm when mrctx is configured with
 * -Drmm=PREFIX, an rmm install: conda's librmm, or one tools/dev/build-rmm
 * compiles from source. By hand, with the CCCL rmm was built with first on
 * the include path, and C++20 as rmm requires:
 *
 *   g++ -std=c++20 -I$CONDA_PREFIX/include/rapids -I$CONDA_PREFIX/include \
 *     -I/usr/local/cuda/include $(pkg-config --cflags mrctx) \
 *     examples/rmm_interop.cpp -o rmm_interop \
 *     -L$CONDA_PREFIX/lib -lrmm -L/usr/local/cuda/lib64 -lcudart \
 *     $(pkg-config --libs mrctx)
 *   ./rmm_interop            # exit 77 without a GPU
 *
 * rmm 25.12 to 26.04 (on CCCL 3.1 to 3.3) take an
 * rmm::device_async_resource_ref where 26.06 takes a cuda::mr::any_resource:
 * the buffers compile as they are, but refer to the adaptor object, which
 * must then outlive them, and rmm's current resource is set with
 * set_current_device_resource_ref.
 */
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include <cuda_runtime_api.h>
#include <rmm/cuda_stream.hpp>
#include <rmm/device_buffer.hpp>
#include <rmm/mr/per_device_resource.hpp>
#include <rmm/resource_ref.hpp>

// After rmm's headers: with CCCL 3.1+ already included, mrctx.hpp defines
// its CCCL adaptor without being asked (define MRCTX_WITH_CCCL to have it
// whatever the order).
#include <mrctx/mrctx.hpp>

static_assert(
    cuda::mr::resource_with<mrctx::device_accessible_resource, cuda::mr::device_accessible>);

namespace {

int fail(const char *what) {
  std::fprintf(stderr, "rmm_interop: %s\n", what);
  return 1;
}

// A cudf-style function: rmm's resource reference for what it returns.
rmm::device_buffer make_ones(std::size_t bytes, rmm::cuda_stream_view stream,
                             rmm::device_async_resource_ref mr) {
  rmm::device_buffer out(bytes, stream, mr);
  if (cudaMemsetAsync(out.data(), 1, bytes, stream.value()) != cudaSuccess)
    throw std::runtime_error("memset");
  return out;
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
  try {
    // The library's tags; IMGPROC_MEMORY lets an operator move them.
    enum imgproc_tag { FRAMES, SCRATCH };
    mrctx::context ctx({"imgproc",
                        {{"frames", "cache(device)"}, {"scratch", "arena(device, chunk=64MiB)"}},
                        "IMGPROC_MEMORY"});
    rmm::cuda_stream stream;
    const std::size_t bytes = std::size_t(1) << 20;

    // A tag handed to rmm: keep the adaptor alive as long as what uses it,
    // and the context longer still.
    mrctx::device_accessible_resource frames(ctx.get(FRAMES));
    {
      rmm::device_buffer buffer(bytes, stream.view(), frames);
      rmm::device_buffer ones = make_ones(bytes, stream.view(), frames);
      std::vector<unsigned char> host(bytes);
      cudaMemcpyAsync(host.data(), ones.data(), bytes, cudaMemcpyDeviceToHost, stream.value());
      stream.synchronize();
      if (host[0] != 1 || host[bytes - 1] != 1)
        return fail("the buffer's contents did not come back");
    } // both freed on the stream, to the tag
    mr_stats f = ctx.stats(FRAMES);
    if (f.total_count != 2 || f.current_bytes != 0)
      return fail("the buffers did not come from the frames tag");

    // A tag as rmm's current device resource: rmm keeps a copy of the
    // adaptor until it is replaced, so put the previous one back before the
    // context goes.
    mrctx::device_accessible_resource scratch(ctx.get(SCRATCH));
    auto previous = rmm::mr::set_current_device_resource(scratch);
    { rmm::device_buffer by_default(bytes, stream.view()); }
    rmm::mr::set_current_device_resource(std::move(previous));
    stream.synchronize();
    if (ctx.stats(SCRATCH).total_count != 1)
      return fail("rmm's default did not come from the scratch tag");

    // A host tag is refused where device memory is promised.
    mrctx::context host_ctx({"imgproc", {{"frames", "host"}, {"scratch", "host"}}});
    try {
      mrctx::device_accessible_resource refused(host_ctx.get(FRAMES));
      return fail("a host tag was accepted as device-accessible");
    } catch (const mrctx::error &e) {
      std::printf("refused, as it should be: %s\n", e.what());
    }
    ctx.print_stats(stdout);
  } catch (const std::exception &e) {
    return fail(e.what());
  }
  std::printf("rmm_interop: rmm buffers drawn from mrctx tags\n");
  return 0;
}

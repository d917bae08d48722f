"""torch.utils.cpp_extension of the stand-in: where PyTorch's C++ headers
and libraries are. The headers are the stand-in's own (fake_torch/include);
its libc10.so, libc10_cuda.so and libtorch_cuda.so are built by the test
build, in the folder MRCTX_FAKE_TORCH_LIB names (none: a PyTorch without
its libraries). CUDA_HOME is the stand-in's own (fake_torch/cuda: an empty
cuda_runtime_api.h)."""

import os

_HERE = os.path.dirname(os.path.abspath(__file__))
CUDA_HOME = os.path.normpath(os.path.join(_HERE, "..", "..", "cuda"))


def include_paths(device_type: str = "cpu") -> list:
    return [os.path.normpath(os.path.join(_HERE, "..", "..", "include"))]


def library_paths(device_type: str = "cpu") -> list:
    return [os.environ.get("MRCTX_FAKE_TORCH_LIB") or "/nonexistent/fake-torch-lib"]

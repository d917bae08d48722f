"""torch.utils.cpp_extension of the stand-in: where PyTorch's C++ headers
and libraries are. The headers are the stand-in's own (fake_torch/include);
its libc10.so is built by the test build, in the folder
MRCTX_FAKE_TORCH_LIB names (none: a PyTorch without its libraries)."""

import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def include_paths(device_type: str = "cpu") -> list:
    return [os.path.normpath(os.path.join(_HERE, "..", "..", "include"))]


def library_paths(device_type: str = "cpu") -> list:
    return [os.environ.get("MRCTX_FAKE_TORCH_LIB") or "/nonexistent/fake-torch-lib"]

"""A stand-in for PyTorch in mrctx's tests, where there is neither PyTorch
nor a GPU (tests/python/test_torch_parity.py puts this directory on
sys.path of a subprocess, over the fake CUDA driver).

It has the parts of torch.cuda that mrctx.torch and a training script
touch, and calls the pluggable allocator's functions through ctypes with
the types PyTorch's C++ uses (torch/csrc/cuda/CUDAPluggableAllocator.cpp,
torch/csrc/cuda/Module.cpp); where PyTorch raises for a pluggable allocator
(getDeviceStats, resetPeakStats, getMemoryFraction), so does this, with
PyTorch's message. Where the test build made its C++ part
(MRCTX_FAKE_TORCH_LIB: libc10.so and libfake_torch_python.so), the
allocation function is called through C++ that turns what it throws into
torch.OutOfMemoryError or RuntimeError, as PyTorch does; without it, a
throw would end the process. torch.cuda.memory.RECORD lists what was called:
("change_current_allocator", alloc_fn, free_fn) and (setter, address).
"""

__version__ = "0.0+mrctx.fake"


class OutOfMemoryError(RuntimeError):
    """torch.OutOfMemoryError: what PyTorch raises for c10::OutOfMemoryError
    (csrc/torch_python.cpp)."""


from . import _C, cuda  # noqa: E402,F401

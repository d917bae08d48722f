"""torch.cuda of the stand-in (see torch/__init__.py)."""

from .. import OutOfMemoryError  # noqa: F401  torch.cuda.OutOfMemoryError
from . import memory
from .memory import (  # noqa: F401  re-exported, as torch.cuda does
    change_current_allocator,
    empty_cache,
    get_per_process_memory_fraction,
    max_memory_allocated,
    max_memory_reserved,
    memory_allocated,
    memory_reserved,
    memory_snapshot,
    memory_stats,
    memory_stats_as_nested_dict,
    reset_accumulated_memory_stats,
    reset_peak_memory_stats,
    set_per_process_memory_fraction,
)

_initialized = False
_device = 0


def is_initialized() -> bool:
    return _initialized


def init() -> None:
    global _initialized
    _initialized = True
    lib = memory._torch_cuda()
    if lib is not None:  # PyTorch's C++ knows its allocator is initialised
        lib.fake_torch_cuda_set_initialized(1)


def current_device() -> int:
    return _device


def set_device(device: int) -> None:
    global _device
    _device = device


def empty(nbytes: int, device=None, stream=None) -> int:
    """A "tensor" of nbytes: the address the current allocator returns (as
    PyTorch's allocate() asks it, on the device's current stream)."""
    init()
    return memory._allocate(nbytes, _device if device is None else device, stream)


def free(ptr: int) -> None:
    memory._free(ptr)

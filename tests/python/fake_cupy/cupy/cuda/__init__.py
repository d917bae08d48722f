"""cupy.cuda of the stand-in (see cupy/__init__.py)."""

from . import memory, runtime, stream  # noqa: F401
from .memory import (  # noqa: F401  re-exported, as cupy.cuda does
    MemoryPointer,
    PinnedMemoryPointer,
    UnownedMemory,
    alloc,
    get_allocator,
    set_allocator,
    set_pinned_memory_allocator,
)
from .stream import ExternalStream, Stream, get_current_stream  # noqa: F401


class Device:
    """``with cupy.cuda.Device(d):`` makes d current on this thread."""

    def __init__(self, device: int = 0):
        self.id = device

    def __enter__(self):
        self._saved = runtime.getDevice()
        runtime.setDevice(self.id)
        return self

    def __exit__(self, *exc):
        runtime.setDevice(self._saved)

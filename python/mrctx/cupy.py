"""CuPy's memory through mrctx tags.

:func:`use` routes CuPy's device allocations (``cupy.cuda.set_allocator``)
to a tag, :func:`use_pinned` its pinned host allocations
(``cupy.cuda.set_pinned_memory_allocator``) to a pinned tag. Each block is
allocated on CuPy's current stream and freed, when CuPy drops its last
reference, on that same stream (stream-ordered; if that stream is gone by
then, on the legacy default stream, which orders after all blocking
streams). Out of memory raises CuPy's OutOfMemoryError (which is also an
mrctx.OutOfMemoryError) with mrctx's message.

The allocator holds its own references to the tag's resources, so closing
the context while CuPy holds memory is safe. Call :func:`reset` to give
CuPy back its own pools.
"""

from __future__ import annotations

import ctypes
from typing import Any, Callable

from . import _lib
from ._context import Context, Resource, TagKey
from ._errors import Error, NoDeviceError, OutOfMemoryError, check
from ._hooks import checked_tag, import_framework

HOOK = "mrctx.cupy"

# CuPy's pools that use()/use_pinned() routed to a tag: the package's
# reclaimer (mrctx._reclaimers) leaves those alone.
_routed: set[str] = set()


def routed() -> frozenset[str]:
    """Which of CuPy's allocations go to mrctx tags: "device" after use(),
    "pinned" after use_pinned(); empty after reset()."""
    return frozenset(_routed)


def _cupy() -> Any:
    return import_framework("cupy", HOOK, "cupy-cuda13x")


class _Block:
    """One allocation; frees itself when CuPy drops the last reference."""

    __slots__ = ("resource", "ptr", "size", "stream")

    def __init__(self, resource: Resource, ptr: int, size: int, stream: int):
        self.resource, self.ptr, self.size, self.stream = resource, ptr, size, stream

    def __del__(self) -> None:
        if not self.ptr:
            return
        try:
            self.resource.deallocate(self.ptr, self.size, 0, self.stream)
        except Error:
            try:  # the stream may have been destroyed since
                self.resource.deallocate(self.ptr, self.size, 0, 0)
            except Exception:
                pass
        except Exception:  # interpreter shutdown
            pass
        self.ptr = 0


def _oom_class(cupy: Any) -> type:
    base = cupy.cuda.memory.OutOfMemoryError

    class CupyOutOfMemoryError(base, OutOfMemoryError):  # type: ignore[misc, valid-type]
        """CuPy's OutOfMemoryError with mrctx's message."""

        def __init__(self, message: str, size: int):
            MemoryError.__init__(self, message)
            self.message, self._size, self._total, self._limit = message, size, -1, 0

        def __reduce__(self) -> Any:
            return (type(self), (self.message, self._size))

    return CupyOutOfMemoryError


def _allocator(ctx: Context, index: int, make: Callable[[_Block, int], Any]) -> Callable[[int], Any]:
    """allocate(size) over one resource per device, kept for the process."""
    cupy = _cupy()
    resources = [ctx.get_resource(index, d) for d in range(ctx.device_count)]
    where = f"library {ctx.library!r} tag {ctx.tags[index]!r}"
    oom = _oom_class(cupy)
    library = _lib.lib()
    get_device = cupy.cuda.runtime.getDevice
    current_stream = cupy.cuda.get_current_stream

    def allocate(size: int) -> Any:
        device = get_device()
        if device >= len(resources):
            raise NoDeviceError(f"{HOOK}: {where} has no device {device}")
        resource = resources[device]
        stream = current_stream().ptr
        ptr = ctypes.c_void_p()
        status = library.mr_allocate(resource.handle, size, 0, stream, ctypes.byref(ptr))
        if status == OutOfMemoryError.status:
            raise oom(f"{HOOK}: out of memory allocating {size} bytes on device {device} "
                      f"({where}): {_lib.text(library.mr_last_error())}", size)
        check(status, f"{HOOK}: {where}: ")
        return make(_Block(resource, ptr.value or 0, size, stream), device)

    return allocate


def use(ctx: Context, tag: TagKey) -> None:
    """Route CuPy's device allocations to ``tag`` (device or managed memory)
    from now on, for every thread. FrameworkError if the tag gives other
    memory; CuPy's allocator is then left as it was."""
    cupy = _cupy()
    index = checked_tag(ctx, tag, HOOK, ("device", "managed"))

    def make(block: _Block, device: int) -> Any:
        memory = cupy.cuda.UnownedMemory(block.ptr, block.size, block, device)
        return cupy.cuda.MemoryPointer(memory, 0)

    cupy.cuda.set_allocator(_allocator(ctx, index, make))
    _routed.add("device")


def use_pinned(ctx: Context, tag: TagKey) -> None:
    """Route CuPy's pinned host allocations to ``tag`` (pinned memory)."""
    cupy = _cupy()
    index = checked_tag(ctx, tag, HOOK, ("pinned",))

    def make(block: _Block, device: int) -> Any:
        return cupy.cuda.PinnedMemoryPointer(block, 0)

    cupy.cuda.set_pinned_memory_allocator(_allocator(ctx, index, make))
    _routed.add("pinned")


def reset() -> None:
    """Give CuPy back its default memory pools."""
    cupy = _cupy()
    cupy.cuda.set_allocator(cupy.get_default_memory_pool().malloc)
    cupy.cuda.set_pinned_memory_allocator(cupy.get_default_pinned_memory_pool().malloc)
    _routed.clear()

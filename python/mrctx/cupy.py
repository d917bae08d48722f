"""CuPy's memory through mrctx tags.

:func:`use` routes CuPy's device allocations (``cupy.cuda.set_allocator``)
to a tag, :func:`use_pinned` its pinned host allocations
(``cupy.cuda.set_pinned_memory_allocator``) to a pinned tag. Each block is
allocated on CuPy's current stream and freed, when CuPy drops its last
reference, on that same stream (stream-ordered; if that stream is gone by
then, on the legacy default stream, which orders after all blocking
streams). Out of memory raises CuPy's OutOfMemoryError (which is also an
mrctx.OutOfMemoryError) with mrctx's message.

Device memory goes through CuPy's ``CFunctionAllocator`` over the C pair
of ``_cupy_alloc.so`` (the "c" route): the allocation and the free are C,
which reads CuPy's current stream through the function CuPy exports for
Cython modules (``cupy.cuda.stream.get_current_stream_ptr``) and keeps each
block's size and stream for the free. One Python line remains per
allocation: CuPy (up to 14) turns a C allocator's NULL into a pointer at
address 0 instead of an error, so the package checks the pointer and
raises. Where the C route cannot be had (no shim, a CuPy without
``CFunctionAllocator`` or that function), the allocator is Python over
ctypes (the "python" route), as before; :func:`route` says which, and why.
Pinned memory is always Python: CuPy has no C allocator for it.

The allocator holds its own references to the tag's resources, so closing
the context while CuPy holds memory is safe. Call :func:`reset` to give
CuPy back its own pools.
"""

from __future__ import annotations

import ctypes
import importlib
import os
from typing import Any, Callable, Optional

from . import _check, _forksafe, _frames, _lib
from ._context import Context, Resource, TagKey
from ._errors import (Error, FrameworkError, NoDeviceError, OutOfMemoryError, StateError,
                      check)
from ._hooks import checked_tag, import_framework

HOOK = "mrctx.cupy"
ROUTES = ("auto", "c", "python")
# The C signature of cupy.cuda.stream's get_current_stream_ptr, as Cython
# names its capsule in the module's __pyx_capi__ (cdef intptr_t
# get_current_stream_ptr() in cupy/cuda/stream.pxd, CuPy 9 to 15).
STREAM_SIGNATURE = "intptr_t (void)"

# CuPy's pools that use()/use_pinned() routed to a tag: the package's
# reclaimer (mrctx._reclaimers) leaves those alone.
_routed: set[str] = set()


_lock = _forksafe.lock()
_shim: Optional[ctypes.CDLL] = None
_route: tuple[str, str] = ("", "")  # use()'s route ("c" or "python") and why


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
        depth = resource._frame_depth()  # track(..., stacks=N): the Python call site
        if depth:
            status = _frames.allocate(resource.handle, size, 0, stream, ptr, depth)
        else:
            status = library.mr_allocate(resource.handle, size, 0, stream, ctypes.byref(ptr))
        if status == OutOfMemoryError.status:
            raise oom(f"{HOOK}: out of memory allocating {size} bytes on device {device} "
                      f"({where}): {_lib.text(library.mr_last_error())}", size)
        check(status, f"{HOOK}: {where}: ")
        return make(_Block(resource, ptr.value or 0, size, stream), device)

    return allocate


def shim_path() -> str:
    """Where _cupy_alloc.so is: MRCTX_CUPY_ALLOC, next to the package, or the
    build tree libmrctx was loaded from."""
    path = _lib.companion_path("_cupy_alloc", "MRCTX_CUPY_ALLOC")
    if path is None:
        raise FileNotFoundError("_cupy_alloc.so is not next to the package nor in the build tree "
                                "(set MRCTX_CUPY_ALLOC to its path)")
    return path


def shim() -> ctypes.CDLL:
    """The loaded C pair (libmrctx first, so that it binds to the library
    the contexts live in). OSError or FileNotFoundError when it cannot be
    loaded."""
    global _shim
    with _lock:
        if _shim is None:
            _lib.lib()
            library = ctypes.CDLL(os.path.abspath(shim_path()))
            library.mrctx_cupy_bind.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                                ctypes.c_int, ctypes.c_void_p,
                                                ctypes.POINTER(ctypes.c_void_p)]
            library.mrctx_cupy_bind.restype = ctypes.c_int
            library.mrctx_cupy_unbind.argtypes = [ctypes.c_void_p]
            library.mrctx_cupy_unbind.restype = None
            library.mrctx_cupy_last_status.restype = ctypes.c_int
            library.mrctx_cupy_live_blocks.argtypes = [ctypes.c_void_p]
            library.mrctx_cupy_live_blocks.restype = ctypes.c_long
            library.mrctx_cupy_block_stream.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
            library.mrctx_cupy_block_stream.restype = ctypes.c_void_p
            library.mrctx_cupy_failed_frees.restype = ctypes.c_ulonglong
            library.mrctx_cupy_last_free_error.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
            library.mrctx_cupy_last_free_error.restype = None
            _shim = library
        return _shim


def _current_stream_function(cupy: Any) -> int:
    """The address of CuPy's C get_current_stream_ptr (see STREAM_SIGNATURE);
    LookupError saying why when this CuPy does not export it so."""
    try:
        module = importlib.import_module("cupy.cuda.stream")
    except ImportError as error:
        raise LookupError(f"cupy.cuda.stream cannot be imported ({error})") from error
    capsule = (getattr(module, "__pyx_capi__", None) or {}).get("get_current_stream_ptr")
    if capsule is None:
        raise LookupError("cupy.cuda.stream exports no get_current_stream_ptr for C "
                          "(__pyx_capi__)")
    # Function objects of this module's own (ctypes.pythonapi.NAME is
    # shared with whoever else sets its types; ["NAME"] makes a new one).
    get_name, get_pointer = ctypes.pythonapi["PyCapsule_GetName"], \
        ctypes.pythonapi["PyCapsule_GetPointer"]
    get_name.argtypes, get_name.restype = [ctypes.py_object], ctypes.c_char_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    get_pointer.restype = ctypes.c_void_p
    try:
        name = get_name(capsule)
    except Exception as error:  # not a capsule: ValueError from CPython
        raise LookupError(f"cupy.cuda.stream's get_current_stream_ptr is no capsule "
                          f"({error})") from error
    if name is None or name.decode(errors="replace") != STREAM_SIGNATURE:
        raise LookupError(f"cupy.cuda.stream's get_current_stream_ptr is {name!r}, not "
                          f"{STREAM_SIGNATURE!r}")
    address = get_pointer(capsule, name)
    if not address:
        raise LookupError("cupy.cuda.stream's get_current_stream_ptr has no address")
    return int(address)


class _Binding:
    """The C pair's param: one reference to the shim's binding, dropped when
    CuPy drops the allocator (blocks still live hold their own)."""

    __slots__ = ("shim", "handle")

    def __init__(self, shim: ctypes.CDLL, handle: int):
        self.shim, self.handle = shim, handle

    def live_blocks(self) -> int:
        return int(self.shim.mrctx_cupy_live_blocks(self.handle))

    def block_stream(self, ptr: int) -> int:
        return int(self.shim.mrctx_cupy_block_stream(self.handle, ptr) or 0)

    def __del__(self) -> None:
        handle, self.handle = self.handle, 0
        if handle:
            try:
                self.shim.mrctx_cupy_unbind(handle)
            except Exception:  # interpreter shutdown
                pass


_binding: Optional[_Binding] = None  # the C route's, for the tests


def _c_allocator(cupy: Any, ctx: Context, index: int) -> Callable[[int], Any]:
    """allocate(size) over CuPy's CFunctionAllocator and the C pair;
    LookupError saying why where that cannot be had."""
    global _binding
    memory = cupy.cuda.memory
    if not hasattr(memory, "CFunctionAllocator"):
        raise LookupError("this CuPy has no cupy.cuda.memory.CFunctionAllocator")
    stream_function = _current_stream_function(cupy)
    try:
        library = shim()
    except OSError as error:
        raise LookupError(f"the C pair cannot be loaded ({error})") from error
    where = f"library {ctx.library!r} tag {ctx.tags[index]!r}"
    count = ctx.device_count
    resources = (ctypes.c_void_p * count)(
        *[_lib.lib().mr_context_get_mr_on(ctx.handle, index, d) for d in range(count)])
    out = ctypes.c_void_p()
    check(library.mrctx_cupy_bind(where.encode(), resources, count, stream_function,
                                  ctypes.byref(out)), f"{HOOK}: {where}: ")
    handle = int(out.value or 0)
    binding = _Binding(library, handle)  # drops the reference if CuPy refuses the pair
    try:
        allocator = memory.CFunctionAllocator(
            handle, ctypes.cast(library.mrctx_cupy_malloc, ctypes.c_void_p).value,
            ctypes.cast(library.mrctx_cupy_free, ctypes.c_void_p).value, binding)
    except TypeError as error:
        raise LookupError(f"CuPy's CFunctionAllocator refused the C pair ({error})") from error
    malloc = allocator.malloc
    oom = _oom_class(cupy)
    last_status = library.mrctx_cupy_last_status
    get_device = cupy.cuda.runtime.getDevice

    def allocate(size: int) -> Any:
        pointer = malloc(size)
        if pointer.ptr or not size:
            return pointer
        # CuPy made a pointer at 0 of the C pair's NULL: say why instead.
        status = last_status()
        message = _lib.text(_lib.lib().mr_last_error())
        if status == OutOfMemoryError.status:
            raise oom(message, size)
        if status:
            check(status)
        raise StateError(f"{HOOK}: {where}: CuPy's CFunctionAllocator gave address 0 for "
                         f"{size} bytes on device {get_device()} with no error from mrctx")

    _binding = binding
    return allocate


def route() -> tuple[str, str]:
    """How use() routed CuPy's device allocations: ("c", "") through CuPy's
    CFunctionAllocator and the C pair, or ("python", why) through the Python
    allocator over ctypes; ("", "") before use() and after reset()."""
    return _route


def use(ctx: Context, tag: TagKey, route: str = "auto") -> None:
    """Route CuPy's device allocations to ``tag`` (device or managed memory)
    from now on, for every thread. FrameworkError if the tag gives other
    memory; CuPy's allocator is then left as it was.

    ``route``: "auto" (the C route where this CuPy and the package allow it,
    else Python; :func:`route` says which and why), "c" (FrameworkError,
    saying why, where it cannot be had) or "python" (the ctypes allocator,
    for comparing the two)."""
    global _route, _binding
    if not isinstance(route, str) or route not in ROUTES:
        raise _check.ArgumentError(f"{HOOK}.use: route={route!r} is not one of {ROUTES}")
    cupy = _cupy()
    index = checked_tag(ctx, tag, HOOK, ("device", "managed"))

    def make(block: _Block, device: int) -> Any:
        memory = cupy.cuda.UnownedMemory(block.ptr, block.size, block, device)
        return cupy.cuda.MemoryPointer(memory, 0)

    chosen, why = "python", "route='python' asked for"
    allocator: Optional[Callable[[int], Any]] = None
    if route != "python":
        try:
            allocator, chosen, why = _c_allocator(cupy, ctx, index), "c", ""
        except LookupError as error:
            if route == "c":
                raise FrameworkError(f"{HOOK}.use(route='c'): {error}; CuPy's allocator is "
                                     "left as it was") from error
            why = str(error)
    if allocator is None:
        allocator, _binding = _allocator(ctx, index, make), None
    cupy.cuda.set_allocator(allocator)
    _route = (chosen, why)
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
    global _route, _binding
    _route, _binding = ("", ""), None

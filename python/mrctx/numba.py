"""Numba's CUDA memory through mrctx tags: an External Memory Management
(EMM) plugin.

Select it before Numba touches the GPU, either in code::

    import mrctx.numba
    mrctx.numba.use(ctx, "device", pinned_tag="staging")

or from the environment, with no code change::

    NUMBA_CUDA_MEMORY_MANAGER=mrctx.numba

in which case the plugin makes its own context: library "numba", tags
"device" (default spec "device") and "pinned" ("pinned"), overridden by
MRCTX_NUMBA_MEMORY like any library's variable (for instance
``MRCTX_NUMBA_MEMORY='device=cache(device)'``); MRCTX_NUMBA_TAG and
MRCTX_NUMBA_PINNED_TAG pick other tag names of that context, and
MRCTX_NUMBA_PINNED_TAG=none keeps Numba's own pinned allocations.

Device memory is allocated and freed on the default stream Numba uses (the
legacy stream, or the per-thread one under
NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM), stream-ordered, so a block Numba
drops is freed after the work queued before it and never needs Numba's
deferred-cleanup list. Pinned allocations that must be mapped or
write-combined, and pinning of existing host memory, stay Numba's own.
IPC handles are not supported for mrctx memory (get_ipc_handle raises).
"""

from __future__ import annotations

import ctypes
import os
from typing import Any, Optional

from . import _forksafe
from ._context import Context, Resource, TagKey, device_memory
from ._errors import FrameworkError, UnsupportedError
from ._hooks import checked_tag, import_framework

HOOK = "mrctx.numba"

_numba_cuda = import_framework("numba.cuda", HOOK, "numba-cuda")
_driver = import_framework("numba.cuda.cudadrv.driver", HOOK, "numba-cuda")

_lock = _forksafe.lock()
_config: Optional[tuple[Context, int, Optional[int]]] = None  # (context, tag, pinned tag)


def _default_config() -> tuple[Context, int, Optional[int]]:
    ctx = Context("numba", {"device": "device", "pinned": "pinned"}, env_var="MRCTX_NUMBA_MEMORY")
    tag = checked_tag(ctx, os.environ.get("MRCTX_NUMBA_TAG", "device"), HOOK, ("device", "managed"))
    pinned_name = os.environ.get("MRCTX_NUMBA_PINNED_TAG", "pinned")
    pinned = None if pinned_name == "none" else checked_tag(ctx, pinned_name, HOOK, ("pinned",))
    return ctx, tag, pinned


def _configured() -> tuple[Context, int, Optional[int]]:
    global _config
    with _lock:
        if _config is None:
            _config = _default_config()
        return _config


def _stream() -> int:
    """The handle of Numba's default stream: 2 (CU_STREAM_PER_THREAD) under
    NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM, else 0 (legacy)."""
    config = getattr(_numba_cuda, "config", None)
    return 2 if getattr(config, "CUDA_PER_THREAD_DEFAULT_STREAM", False) else 0


def _pointer(ptr: int) -> Any:
    if ptr:
        return ctypes.c_void_p(ptr)
    binding = getattr(_driver, "binding", None)
    return binding.CUdeviceptr(0) if binding is not None else ctypes.c_void_p(0)


def _finalizer(resource: Resource, ptr: int, size: int, stream: int) -> Any:
    def free() -> None:
        try:
            resource.deallocate(ptr, size, 0, stream)
        except Exception:  # a finalizer must not raise (shutdown, destroyed context)
            pass
    return free


# Numba's HostOnlyCUDAMemoryManager, from the module imported when this hook is: a base class a type
# checker cannot name through a variable, so Any to it.
_ManagerBase: Any = _driver.HostOnlyCUDAMemoryManager


class MrctxNumbaManager(_ManagerBase):
    """The EMM plugin: device memory (and plain pinned host memory) from
    mrctx tags. Numba creates one per CUDA context. mempin, defer_cleanup
    (which only concerns the host allocations Numba keeps) and the host
    side of reset are HostOnlyCUDAMemoryManager's, a BaseCUDAMemoryManager."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._resources: dict[str, Resource] = {}

    def _resource(self, which: str) -> Optional[Resource]:
        resource = self._resources.get(which)
        if resource is None:
            ctx, tag, pinned = _configured()
            index = tag if which == "device" else pinned
            if index is None:
                return None
            device = self.context.device.id
            resource = ctx.get_resource(index, device)
            self._resources[which] = resource
        return resource

    def initialize(self) -> None:
        _configured()
        # As Numba's own manager: size the pending-deallocation list of the
        # host allocations left to Numba by the device's memory.
        if self.deallocations.memory_capacity == getattr(_driver, "_SizeNotSet", None):
            self.deallocations.memory_capacity = self.get_memory_info().total

    def memalloc(self, size: int) -> Any:
        resource = self._resource("device")
        assert resource is not None
        stream = _stream()
        ptr = resource.allocate(size, 0, stream)
        ctx = self.context
        return _driver.MemoryPointer(ctx, _pointer(ptr), size,
                                     finalizer=_finalizer(resource, ptr, size, stream))

    def memhostalloc(self, size: int, mapped: bool = False, portable: bool = False,
                     wc: bool = False) -> Any:
        resource = None if mapped or wc else self._resource("pinned")
        if resource is None:
            return super().memhostalloc(size, mapped, portable, wc)
        stream = _stream()
        ptr = resource.allocate(size, 0, stream)
        resource.synchronize(stream)  # host code may touch it at once
        return _driver.PinnedMemory(self.context, ptr, size,
                                    finalizer=_finalizer(resource, ptr, size, stream))

    def get_memory_info(self) -> Any:
        free, total = device_memory(self.context.device.id)
        return _driver.MemoryInfo(free=free, total=total)

    def get_ipc_handle(self, memory: Any) -> Any:
        ctx, tag, _ = _configured()
        raise UnsupportedError(f"{HOOK}: library {ctx.library!r} tag {ctx.tags[tag]!r}: memory "
                               "from mrctx cannot be shared over CUDA IPC")

    def reset(self) -> None:
        super().reset()
        for resource in self._resources.values():
            resource.trim()

    @property
    def interface_version(self) -> int:
        return 1


# What NUMBA_CUDA_MEMORY_MANAGER=mrctx.numba looks up.
_numba_memory_manager = MrctxNumbaManager


def use(ctx: Context, tag: TagKey, pinned_tag: Optional[TagKey] = None) -> None:
    """Make Numba allocate device memory from ``tag`` (device or managed
    memory) and, if given, plain pinned host memory from ``pinned_tag``.
    Call it before Numba creates its CUDA context; FrameworkError after,
    with Numba's allocator left in place."""
    global _config
    index = checked_tag(ctx, tag, HOOK, ("device", "managed"))
    pinned = None if pinned_tag is None else checked_tag(ctx, pinned_tag, HOOK, ("pinned",))
    devices = getattr(_driver.driver, "devices", None) or {}
    if any(getattr(device, "primary_context", None) is not None for device in devices.values()):
        raise FrameworkError(f"{HOOK}.use({ctx.library}/{ctx.tags[index]}): Numba has already "
                             "created its CUDA context; call use() before the first GPU "
                             "operation. Numba's own allocator stays in use.")
    with _lock:
        _config = (ctx, index, pinned)
    _numba_cuda.set_memory_manager(MrctxNumbaManager)


def context() -> Context:
    """The context the plugin allocates from (its own one, made from the
    environment, unless use() gave another). Read its statistics with
    ``mrctx.numba.context().stats()``."""
    return _configured()[0]


def configured() -> Optional[tuple[str, str]]:
    """(library, tag) the plugin allocates device memory from, once chosen."""
    if _config is None:
        return None
    ctx, tag, _ = _config
    return ctx.library, ctx.tags[tag]


__all__ = ["MrctxNumbaManager", "configured", "context", "use"]

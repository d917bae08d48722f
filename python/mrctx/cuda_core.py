"""A cuda.core MemoryResource over an mrctx tag.

    from cuda.core import Device
    import mrctx, mrctx.cuda_core
    mr = mrctx.cuda_core.TagMemoryResource(ctx, "temp", device=0)
    buffer = mr.allocate(1 << 20, stream=Device(0).create_stream())

Buffers are allocated on the stream given and freed, when closed or
collected, on the stream cuda.core passes (the one it recorded, the
allocation's, unless ``close(stream)`` names another; with none, the
allocation's), stream-ordered. The resource holds its own reference to the tag's
resource for its device, so it stays valid after the context is closed.
is_device_accessible, is_host_accessible, is_managed and device_id come
from the mrctx resource's properties.
"""

from __future__ import annotations

from typing import Any, Optional

from . import _check
from ._context import Context, TagKey
from ._errors import FrameworkError
from ._hooks import import_framework

HOOK = "mrctx.cuda_core"


def _cuda_core() -> Any:
    """cuda.core's module that has MemoryResource and Buffer (cuda.core from
    1.0; cuda.core.experimental before)."""
    for name in ("cuda.core", "cuda.core.experimental"):
        try:
            module = import_framework(name, HOOK, "cuda-core")
        except FrameworkError:
            continue
        if hasattr(module, "MemoryResource") and hasattr(module, "Buffer"):
            return module
    raise FrameworkError(f"{HOOK}: cuda.core (or cuda.core.experimental) with MemoryResource "
                         "and Buffer cannot be imported; install cuda-core")


_core = _cuda_core()


def _stream_handle(stream: Any, who: str) -> int:
    """A cuda.core Stream (or anything with __cuda_stream__ or .handle, or an
    int) as a CUstream handle; None is the legacy default stream.
    mrctx.ArgumentTypeError for anything else."""
    return _check.stream(who, "stream", stream)


# cuda.core's MemoryResource, from the module imported when this hook is: a base class a type
# checker cannot name through a variable, so Any to it.
_MemoryResourceBase: Any = _core.MemoryResource


class TagMemoryResource(_MemoryResourceBase):
    """cuda.core memory from ``tag`` of ``ctx`` on ``device`` (None: the
    calling thread's current device)."""

    def __init__(self, ctx: Context, tag: TagKey, device: Optional[int] = None):
        super().__init__()
        _check.context("TagMemoryResource", "ctx", ctx)
        self._resource = ctx.get_resource(tag, device)
        self._props = self._resource.props
        # Each live block's allocation stream: a cuda.core that does not
        # record it for the Buffer passes no stream to deallocate.
        self._streams: dict[int, int] = {}

    def allocate(self, size: int, stream: Any = None, **kwargs: Any) -> Any:
        stream = kwargs.pop("stream", stream)
        handle = _stream_handle(stream, "TagMemoryResource.allocate")
        size = _check.size("TagMemoryResource.allocate", "size", size)
        ptr = self._resource.allocate(size, 0, handle)
        self._streams[ptr] = handle
        try:
            return _core.Buffer.from_handle(ptr, size, mr=self, stream=stream)
        except TypeError:  # a cuda.core whose from_handle takes no stream
            return _core.Buffer.from_handle(ptr, size, mr=self)

    def deallocate(self, ptr: Any, size: int, stream: Any = None, **kwargs: Any) -> None:
        stream = kwargs.pop("stream", stream)
        who = "TagMemoryResource.deallocate"
        try:
            address = int(ptr)  # an int, or cuda.core's pointer objects
        except (TypeError, ValueError):
            raise _check._type_error(who, "ptr", "an address", ptr) from None
        address = _check.pointer(who, "ptr", address)
        size = _check.size(who, "size", size)
        handle = None if stream is None else _stream_handle(stream, who)
        allocated_on = self._streams.pop(address, 0)
        handle = allocated_on if handle is None else handle
        self._resource.deallocate(address, size, 0, handle)

    @property
    def is_device_accessible(self) -> bool:
        return self._props.device_accessible

    @property
    def is_host_accessible(self) -> bool:
        return self._props.host_accessible

    @property
    def is_managed(self) -> bool:
        return self._props.kind == "managed"

    @property
    def device_id(self) -> int:
        """The memory's device; -1 for pinned and managed memory."""
        return self._props.device

    @property
    def resource(self) -> Any:
        """The mrctx.Resource behind it."""
        return self._resource

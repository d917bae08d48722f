"""Contexts and resources over libmrctx's C API."""

from __future__ import annotations

import atexit
import ctypes
import os
import sys
from dataclasses import dataclass
from typing import (IO, TYPE_CHECKING, Any, Iterable, Mapping, NamedTuple, Optional, Union,
                    overload)

from . import _check, _forksafe, _frames, _lib, _scopes
from ._errors import (ClosedError, InvalidArgumentError, NoDeviceError, TagError, check,
                      failure)
from ._lib import sized, text
from ._results import PoolInfo, Stats

if TYPE_CHECKING:  # ipc imports this module
    from .ipc import SharedPool  # noqa: F401

TagKey = Union[str, int]

# mr_driver_pool, by the names the Python API uses.
DRIVER_POOLS = {"device": 0, "device_default": 1, "pinned": 2, "managed": 3}

# The MR_REQUIRE_* flags of mr_context_desc.tag_requires, by the names
# Context's ``requires`` uses.
REQUIREMENTS = {"device_accessible": 1 << 0, "host_accessible": 1 << 1,
                "stream_ordered": 1 << 2}


def version() -> str:
    """The loaded library's version ("0.2.0")."""
    return text(_lib.lib().mr_version())


def last_error() -> str:
    """This thread's message for its last failed mrctx call ("" if none)."""
    return text(_lib.lib().mr_last_error())


def driver_version() -> int:
    """The CUDA driver's version, 1000 * major + 10 * minor (13000 for 13.0).
    Raises NoDriverError without a driver."""
    value = ctypes.c_int(0)
    check(_lib.lib().mr_driver_version(ctypes.byref(value)))
    return value.value


def device_count() -> int:
    """How many devices the driver shows (0 with a driver and no device).
    Raises NoDriverError without a driver."""
    value = ctypes.c_int(0)
    check(_lib.lib().mr_device_count(ctypes.byref(value)))
    return value.value


def current_device() -> int:
    """The device of the calling thread's current CUDA context; 0 if it has
    none or there is no driver."""
    return int(_lib.lib().mr_current_device())


class DeviceMemory(NamedTuple):
    """A device's free and total memory in bytes (mrctx.device_memory)."""

    free: int
    total: int


def device_memory(device: Optional[int] = None) -> DeviceMemory:
    """How much of ``device``'s memory is free now and its total, in bytes
    (``(free, total)``, as torch.cuda.mem_get_info): the whole device's, every
    process's allocations counted, memory a pool keeps for reuse counted as
    taken. ``device`` None: the current device. Creates the device's primary
    context if no one has yet. Raises NoDriverError without a driver,
    NoDeviceError for a device that does not exist."""
    if device is None:
        device = current_device()
    device = _check.device("device_memory", "device", device)
    free, total = ctypes.c_uint64(0), ctypes.c_uint64(0)
    check(_lib.lib().mr_device_get_memory(device, ctypes.byref(free), ctypes.byref(total)),
        f"mrctx: device_memory({device}): ")
    return DeviceMemory(free.value, total.value)


def release_idle(device: int = -1, nbytes: int = 0) -> int:
    """Give idle memory back, process-wide (mr_release_idle): what every
    mrctx resource of the process keeps idle -- caches (every thread's
    stacks too), arenas, fixed blocks, bins, and the driver pools mrctx
    configured -- on ``device`` (-1: every device, and pinned and managed
    memory), except resources marked ``keep=yes``; ``nbytes``: stop once at
    least this much went back (0: everything). Live memory stays. Returns
    the bytes that went back, for PyTorch's or CuPy's own allocations, say,
    which cannot reach mrctx's idle memory themselves."""
    device = _check.device("release_idle", "device", device, lowest=-1)
    nbytes = _check.size("release_idle", "nbytes", nbytes)
    released = ctypes.c_size_t(0)
    check(_lib.lib().mr_release_idle(device, nbytes, ctypes.byref(released)),
          f"mrctx: release_idle({device}, {nbytes}): ")
    return released.value


def _pool_info(info: _lib.PoolInfo) -> PoolInfo:
    return PoolInfo(
        kind=_lib.pool_kind_name(info.kind),
        device=info.device,
        is_default=bool(info.is_default),
        is_current=bool(info.is_current),
        release_threshold=info.release_threshold,
        reserved_bytes=info.reserved_bytes,
        reserved_high=info.reserved_high,
        used_bytes=info.used_bytes,
        used_high=info.used_high,
    )


def driver_pool_info(which: str = "device", device: int = 0) -> PoolInfo:
    """One of the driver's pools as mrctx reports it: ``which`` is "device"
    (the device's current pool), "device_default", "pinned" or "managed".
    ``reserved_high`` is the most backing memory the pool has held. A
    PoolInfo; its dict access (``info["used_bytes"]``) is deprecated."""
    if not isinstance(which, str):
        raise _check._type_error("driver_pool_info", "which", "a str", which)
    if which not in DRIVER_POOLS:
        raise _check.ArgumentError(f"mrctx: driver_pool_info: which={which!r} is not one of "
                                   f"{sorted(DRIVER_POOLS)}")
    device = _check.device("driver_pool_info", "device", device, lowest=-1)
    info = sized(_lib.PoolInfo)
    check(_lib.lib().mr_driver_pool_get_info(DRIVER_POOLS[which], device, ctypes.byref(info)),
           f"mrctx: driver pool {which!r} of device {device}: ")
    return _pool_info(info)


def reset_driver_pool_peak(which: str = "device", device: int = 0) -> None:
    """Set the high-water marks (``reserved_high``, ``used_high`` of
    driver_pool_info) of one of the driver's pools to what it holds and
    hands out now. The pools are the process's: every reader of the marks
    sees the reset."""
    if not isinstance(which, str):
        raise _check._type_error("reset_driver_pool_peak", "which", "a str", which)
    if which not in DRIVER_POOLS:
        raise _check.ArgumentError(f"mrctx: reset_driver_pool_peak: which={which!r} is not one "
                                   f"of {sorted(DRIVER_POOLS)}")
    device = _check.device("reset_driver_pool_peak", "device", device, lowest=-1)
    check(_lib.lib().mr_driver_pool_reset_peak(DRIVER_POOLS[which], device),
        f"mrctx: driver pool {which!r} of device {device}: ")


@dataclass(frozen=True)
class Props:
    """What a resource hands out (mr_resource_props)."""

    kind: str  # "host", "pinned", "device" or "managed"
    device: int  # -1 where the memory is not on one device
    host_accessible: bool
    device_accessible: bool
    stream_ordered: bool
    native_alignment: int


class Resource:
    """One reference to an mrctx resource (``mr_resource``).

    Ownership: the object holds its own reference, released by close() (or
    when it is garbage-collected), so it stays valid even after the context
    it came from is closed. Memory from allocate() must be given back with
    deallocate() on this resource, with the same size and alignment, before
    the last reference goes.

    Streams are CUDA stream handles as integers (``torch.cuda.Stream.cuda_stream``,
    ``cupy.cuda.Stream.ptr``), or the stream objects themselves (anything with
    ``__cuda_stream__``, ``.cuda_stream``, ``.ptr`` or ``.handle``); 0 or None
    is the legacy default stream. Memory freed on stream S may be reused at
    once by work ordered after the free on S.

    Every method checks its arguments before it calls the C library:
    ArgumentTypeError (a TypeError) for a wrong type, ArgumentError (a
    ValueError) for a size, address or stream handle C cannot take.
    """

    def __init__(self, handle: int, what: str, place: Optional[str] = None):
        """Takes over one reference to ``handle``; ``what`` names it in
        messages ("library 'x' tag 'temp' on device 0"). ``place``: how the
        C library's own messages name it ("x:temp on device 0"); a message
        that starts with it already says where, and gets no second place."""
        self._handle: Optional[int] = None
        handle = _check.pointer("Resource", "handle", handle)
        if handle == 0:
            raise _check.ArgumentError("mrctx: Resource: handle is NULL")
        if not isinstance(what, str):
            raise _check._type_error("Resource", "what", "a str", what)
        self._handle = handle
        self._what = what
        self._place = place
        self._lock = _forksafe.lock()
        # How many Python frames an allocation captures for the chain's
        # track(..., stacks=N) (_frames.py); None until the first allocation.
        self._stack_depth: Optional[int] = None

    @property
    def handle(self) -> int:
        """The ``mr_resource *`` as an integer; borrowed, valid until close()."""
        if self._handle is None:
            raise ClosedError(f"mrctx: {self._what}: the resource is closed")
        return self._handle

    @property
    def closed(self) -> bool:
        return self._handle is None

    def close(self) -> None:
        """Drop this object's reference. Idempotent."""
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is not None:
            _lib.lib().mr_resource_release(handle)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: nothing left to release into
            pass

    def __enter__(self) -> "Resource":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else self.describe()
        return f"<mrctx.Resource {self._what}: {state}>"

    def _ok(self, status: int) -> None:
        if status != 0:
            raise failure(status, _prefix(self._what, self._place))

    def describe(self) -> str:
        """The resolved spec text, e.g. "cache(device)"."""
        return text(_lib.lib().mr_resource_describe(self.handle))

    @property
    def name(self) -> str:
        """The outermost resource's kind ("stats", "cache", "device", ...)."""
        return text(_lib.lib().mr_resource_name(self.handle))

    @property
    def props(self) -> Props:
        props = sized(_lib.ResourceProps)
        library = _lib.lib()
        status = library.mr_resource_get_props(self.handle, ctypes.byref(props))
        self._ok(status)
        return Props(
            kind=text(library.mr_memory_kind_name(props.kind)),
            device=props.device,
            host_accessible=bool(props.host_accessible),
            device_accessible=bool(props.device_accessible),
            stream_ordered=bool(props.stream_ordered),
            native_alignment=props.native_alignment,
        )

    def allocate(self, nbytes: int, alignment: int = 0, stream: int = 0) -> int:
        """Allocate ``nbytes`` (alignment 0: 256), stream-ordered on
        ``stream``. Returns the address (0 for size 0). The caller owns the
        memory and frees it with deallocate()."""
        who = f"{self._what}: allocate"
        nbytes = _check.size(who, "nbytes", nbytes)
        alignment = _check.alignment(who, "alignment", alignment)
        stream = _check.stream(who, "stream", stream)
        ptr = ctypes.c_void_p()
        depth = self._frame_depth()
        if depth:
            status = _frames.allocate(self.handle, nbytes, alignment, stream, ptr, depth)
        else:
            status = _lib.lib().mr_allocate(self.handle, nbytes, alignment, stream,
                                            ctypes.byref(ptr))
        self._ok(status)
        return ptr.value or 0

    def _frame_depth(self) -> int:
        """The Python frames an allocation captures for this chain's tracks
        with stacks (0: none; the plain ctypes call). Known once: a
        resource never changes."""
        depth = self._stack_depth
        if depth is None:
            _lib.lib()  # installs the frame source first
            depth = self._stack_depth = _frames.stack_depth(self.describe())
        return depth

    def deallocate(self, ptr: int, nbytes: int, alignment: int = 0, stream: int = 0) -> None:
        """Free memory from allocate() with the same size and alignment,
        stream-ordered on ``stream``. 0 is a no-op."""
        who = f"{self._what}: deallocate"
        ptr = _check.pointer(who, "ptr", ptr)
        nbytes = _check.size(who, "nbytes", nbytes)
        alignment = _check.alignment(who, "alignment", alignment)
        stream = _check.stream(who, "stream", stream)
        status = _lib.lib().mr_deallocate(self.handle, ptr, nbytes, alignment, stream)
        self._ok(status)

    def record_stream(self, ptr: int, stream: Any) -> None:
        """The live block ``ptr`` (from allocate()) is used by work on
        ``stream`` too, besides the stream it will be freed on: its free
        then waits for the work queued there before it, so the block is
        never handed out while that stream still reads it (PyTorch's
        ``Tensor.record_stream``; ``mr_record_stream``)."""
        who = f"{self._what}: record_stream"
        ptr = _check.pointer(who, "ptr", ptr)
        stream = _check.stream(who, "stream", stream)
        if not ptr:
            raise _check.ArgumentError(f"mrctx: {who}: ptr is 0 (a block of size 0 has nothing "
                                       "to record)")
        self._ok(_lib.lib().mr_record_stream(self.handle, ptr, stream))

    def export_pool(self) -> "SharedPool":
        """Export this pool to other processes: a SharedPool (a file
        descriptor and the pool's description) for ``mrctx.import_pool`` in
        the other process; pickle it through multiprocessing to send it.
        The resource must be a ``pool(kind=device, ipc=fd)`` itself
        (UnsupportedError for a pool made without ``ipc=fd``, ArgumentError
        for an adaptor over one). docs/driver.md has the rules."""
        from . import ipc

        return ipc.export_pool(self)

    def allocate_sync(self, nbytes: int, alignment: int = 0) -> int:
        """Allocate with no stream: usable by any stream or the host on return."""
        who = f"{self._what}: allocate_sync"
        nbytes = _check.size(who, "nbytes", nbytes)
        alignment = _check.alignment(who, "alignment", alignment)
        ptr = ctypes.c_void_p()
        depth = self._frame_depth()
        if depth:
            status = _frames.allocate(self.handle, nbytes, alignment, None, ptr, depth, sync=True)
        else:
            status = _lib.lib().mr_allocate_sync(self.handle, nbytes, alignment,
                                                 ctypes.byref(ptr))
        self._ok(status)
        return ptr.value or 0

    def deallocate_sync(self, ptr: int, nbytes: int, alignment: int = 0) -> None:
        """Free after all prior work on the legacy default stream."""
        who = f"{self._what}: deallocate_sync"
        ptr = _check.pointer(who, "ptr", ptr)
        nbytes = _check.size(who, "nbytes", nbytes)
        alignment = _check.alignment(who, "alignment", alignment)
        status = _lib.lib().mr_deallocate_sync(self.handle, ptr, nbytes, alignment)
        self._ok(status)

    def synchronize(self, stream: int = 0) -> None:
        """Wait until ``stream`` has finished its work."""
        stream = _check.stream(f"{self._what}: synchronize", "stream", stream)
        status = _lib.lib().mr_resource_synchronize(self.handle, stream)
        self._ok(status)

    def trim(self) -> None:
        """Give cached, unused memory in the whole chain back upstream."""
        status = _lib.lib().mr_resource_trim(self.handle)
        self._ok(status)

    def pool_info(self) -> PoolInfo:
        """The driver pool this resource allocates from now (see
        driver_pool_info): its own, or that of the first pool-backed
        resource down its chain of upstreams (a context's tags are wrapped
        in statistics and retry). InvalidArgumentError if there is none."""
        library = _lib.lib()
        info = sized(_lib.PoolInfo)
        mr = self.handle
        while mr:
            if library.mr_pool_resource_get_info(mr, ctypes.byref(info)) == 0:
                return _pool_info(info)
            mr = library.mr_resource_upstream(mr)
        raise InvalidArgumentError(f"mrctx: {self._what}: {self.describe()} allocates from no "
                                   "driver pool")

    def reset_pool_peak(self) -> None:
        """Reset the high-water marks of the driver pool this resource
        allocates from now (the pool pool_info() reads) to what the pool
        holds and hands out now; see reset_driver_pool_peak.
        InvalidArgumentError if it allocates from no driver pool."""
        library = _lib.lib()
        mr = self.handle
        info = sized(_lib.PoolInfo)
        while mr:
            if library.mr_pool_resource_get_info(mr, ctypes.byref(info)) == 0:
                status = library.mr_pool_resource_reset_peak(mr)
                self._ok(status)
                return
            mr = library.mr_resource_upstream(mr)
        library.mr_clear_error()
        raise InvalidArgumentError(f"mrctx: {self._what}: {self.describe()} allocates from no "
                                   "driver pool")

    def cache_stats(self) -> dict[str, int]:
        """The counters of the first cache down this resource's chain
        (mr_cache_resource_get_stats; a context wraps its tags in statistics
        and retry): ``hits``, ``misses``, ``cross_stream``, ``bypassed``,
        ``trims`` since it was made, and ``cached_bytes``, ``cached_blocks``
        held now. InvalidArgumentError if the chain has no cache."""
        return _cache_stats(self.handle, f"mrctx: {self._what}")


def _prefix(what: str, place: Optional[str]) -> str:
    """The prefix of a failed call's message: "mrctx: WHAT: ", or only
    "mrctx: " where this thread's message already starts with ``place``
    (an unavailable tag's reason names its library, tag and device), so
    that no message says the place twice."""
    if place is not None and text(_lib.lib().mr_last_error()).startswith(place + ":"):
        return "mrctx: "
    return f"mrctx: {what}: "


def _cache_stats(mr: int, who: str) -> dict[str, int]:
    library = _lib.lib()
    stats = sized(_lib.CacheStats)
    top = mr
    while mr:
        if library.mr_cache_resource_get_stats(mr, ctypes.byref(stats)) == 0:
            library.mr_clear_error()  # the links that were not caches said so
            return {field: int(getattr(stats, field)) for field in _lib.CACHE_STATS_FIELDS}
        mr = library.mr_resource_upstream(mr)
    raise InvalidArgumentError(f"{who}: {text(library.mr_resource_describe(top))} has no cache")


def resolve(spec: str, device: int = 0) -> Resource:
    """Build the resource one spec describes, for ``device``
    (mr_resource_from_spec). The caller owns the result: close() it."""
    spec_text = _check.text("resolve", "spec", spec)
    device = _check.device("resolve", "device", device)
    out = ctypes.c_void_p()
    check(_lib.lib().mr_resource_from_spec(spec_text, device, ctypes.byref(out)))
    # NULL reads as None; Resource refuses it as 0, were C ever to give it.
    return Resource(out.value or 0, f"spec {spec!r} on device {device}")


@dataclass(frozen=True)
class Source:
    """Where a tag's spec came from (mr_spec_source)."""

    origin: str  # "default", "override", "file" or "env"
    where: str  # the variable's or file's name; "" otherwise
    line: int
    spec: str  # as written
    status: str  # "MR_OK", or MR_ERR_NO_DRIVER / MR_ERR_NO_DEVICE when it could not be built
    reason: str  # why not; "" when status is MR_OK


@dataclass(frozen=True)
class Ignored:
    """An override for a device the context does not have (tag@N)."""

    tag: str
    device: int
    source: Source


def _source(library: ctypes.CDLL, s: _lib.SpecSource) -> Source:
    return Source(
        origin=text(library.mr_spec_origin_name(s.origin)),
        where=text(s.where),
        line=s.line,
        spec=text(s.spec),
        status=text(library.mr_status_name(s.status)),
        reason=text(s.reason),
    )


def _requirements(requires: object, tags: tuple[str, ...]) -> Optional[list[int]]:
    """Context's ``requires`` as one MR_REQUIRE_* set per tag, in tag order;
    None where nothing is required."""
    if requires is None:
        return None
    if not isinstance(requires, Mapping):
        raise _check._type_error("Context", "requires", "a mapping of tag name to requirement "
                                 "names, or None", requires)
    flags = [0] * len(tags)
    for name, wanted in requires.items():
        if name not in tags:
            raise TagError(f"mrctx: Context: requires names tag {name!r}, which the library does "
                           f"not declare (its tags: {', '.join(tags)})")
        if isinstance(wanted, str):
            wanted = [wanted]
        if isinstance(wanted, bytes) or not isinstance(wanted, Iterable):
            raise _check._type_error("Context", f"requires[{name!r}]", "requirement names "
                                     f"({', '.join(REQUIREMENTS)})", wanted)
        for word in wanted:
            if word not in REQUIREMENTS:
                raise _check.ArgumentError(f"mrctx: Context: requires[{name!r}]: {word!r} is not a "
                                    f"requirement (known: {', '.join(REQUIREMENTS)})")
            flags[tags.index(name)] |= REQUIREMENTS[word]
    return flags


def _tag_pairs(tags: object) -> list[tuple[str, str]]:
    """The (name, spec) pairs of Context's ``tags``, checked for shape (the
    text is checked by the caller)."""
    if isinstance(tags, Mapping):
        return list(tags.items())
    if isinstance(tags, (str, bytes)) or not isinstance(tags, Iterable):
        raise _check._type_error("Context", "tags", "a mapping of tag name to spec, or (name, "
                                 "spec) pairs", tags)
    pairs = []
    for entry in tags:
        if isinstance(entry, (str, bytes)) or not isinstance(entry, (tuple, list)) or \
                len(entry) != 2:
            raise _check._type_error("Context", "tags", "(name, spec) pairs; an entry", entry)
        pairs.append((entry[0], entry[1]))
    return pairs


def _write_stats_at_exit() -> None:
    """MRCTX_STATS_AT_EXIT's report, written while the contexts are live:
    Python destroys them at shutdown, before the C library's own exit
    handler would write it (mr_write_stats_at_exit, which then writes
    nothing more). Failures are reported on stderr by the library."""
    try:
        _lib.lib().mr_write_stats_at_exit()
    except Exception:  # the library is gone already: nothing to write
        pass


_stats_at_exit_lock = _forksafe.lock()
_stats_at_exit_registered = False


def _register_stats_at_exit() -> None:
    """Once a context exists, and only where the operator asked."""
    global _stats_at_exit_registered
    if _stats_at_exit_registered or not os.environ.get("MRCTX_STATS_AT_EXIT"):
        return
    with _stats_at_exit_lock:
        if not _stats_at_exit_registered:
            atexit.register(_write_stats_at_exit)
            _stats_at_exit_registered = True


class Context:
    """A library's memory policy: one resource per tag and device.

    ``tags`` maps each tag's name to its default spec, in tag order (tag i is
    the i-th entry): ``{"temp": "cache(device)", "pinned": "pinned"}``. The
    application overrides them, lowest first: ``overrides`` (its own text) <
    ``config_file`` < the environment variable ``env_var``. A bad spec from
    any source raises ConfigError quoting the text and its source.

    The context is immutable after creation and safe to use from any thread;
    close() must not race with use. Using a closed context raises
    ClosedError. Resources taken from it hold their own reference and stay
    valid after close(); memory allocated through it must be freed before.

    ``requires`` says what a tag's memory must be, by tag name:
    ``{"result": ["device_accessible", "stream_ordered"]}`` (names from
    REQUIREMENTS: device_accessible, host_accessible, stream_ordered). A
    spec from any source, the tag's default included, whose memory lacks
    one raises ConfigError naming the tag, device, source and what is
    missing: ``result=host`` for a tag kernels write, say.
    """

    def __init__(
        self,
        library: str,
        tags: Union[Mapping[str, str], Iterable[tuple[str, str]]],
        env_var: Optional[str] = None,
        config_file: Optional[str] = None,
        overrides: Optional[str] = None,
        requires: Optional[Mapping[str, Iterable[str]]] = None,
    ):
        self._handle: Optional[int] = None
        library_text = _check.text("Context", "library", library)
        pairs = _tag_pairs(tags)
        encoded = [(_check.text("Context", f"tag name {i}", name),
                    _check.text("Context", f"spec of tag {name!r}", spec))
                   for i, (name, spec) in enumerate(pairs)]
        env_text = _check.text("Context", "env_var", env_var, optional=True)
        config_path = _check.path("Context", "config_file", config_file, optional=True)
        overrides_text = _check.text("Context", "overrides", overrides, optional=True)
        if not pairs:
            raise TagError(f"mrctx: library {library!r}: a context needs at least one tag")
        requirements = _requirements(requires, tuple(name for name, _ in pairs))
        self._library = library
        self._tags = tuple(name for name, _ in pairs)
        array = (_lib.Tag * len(pairs))(*[_lib.Tag(n, s) for n, s in encoded])
        desc = sized(_lib.ContextDesc)
        desc.library = library_text
        desc.tags = array
        desc.tag_count = len(pairs)
        desc.env_var = env_text
        desc.config_file = config_path
        desc.overrides = overrides_text
        if requirements is not None:
            required = (ctypes.c_uint32 * len(requirements))(*requirements)
            desc.tag_requires = required
        handle = ctypes.c_void_p()
        check(_lib.lib().mr_context_create(ctypes.byref(desc), ctypes.byref(handle)))
        self._handle = handle.value
        self._device_count = int(_lib.lib().mr_context_device_count(self._handle))
        self._scopes = _scopes.Scopes(self)
        # (tag, device) -> the Python frames its allocations capture
        # (Resource._frame_depth): described once, the table never changes.
        self._stack_depths: dict[tuple[int, int], int] = {}
        _register_stats_at_exit()

    # ---- lifetime -----------------------------------------------------------

    @property
    def handle(self) -> int:
        """The ``mr_context *`` as an integer; valid until close()."""
        if self._handle is None:
            raise ClosedError(f"mrctx: the context of library {self._library!r} is closed")
        return self._handle

    @property
    def closed(self) -> bool:
        return self._handle is None

    def close(self) -> None:
        """Destroy the context (mr_context_destroy). Idempotent."""
        handle, self._handle = self._handle, None
        if handle is not None:
            _lib.lib().mr_context_destroy(handle)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{self._device_count} device slot(s)"
        return f"<mrctx.Context {self._library!r} tags={list(self._tags)} {state}>"

    # ---- tags and devices ---------------------------------------------------

    @property
    def library(self) -> str:
        return self._library

    @property
    def tags(self) -> tuple[str, ...]:
        """The tag names, in tag order."""
        return self._tags

    @property
    def device_count(self) -> int:
        """How many device slots the context has (1 without a driver)."""
        self.handle
        return self._device_count

    def tag_index(self, tag: TagKey) -> int:
        """The index of ``tag`` (a name or an index); TagError if the context
        has no such tag."""
        return self._index(tag)

    def _index(self, tag: object) -> int:
        """tag_index for whatever the caller passed: TagError for anything
        but a name or an index."""
        if isinstance(tag, bool) or not isinstance(tag, (str, int)):
            raise TagError(f"mrctx: library {self._library!r}: a tag is a name or an index, "
                           f"not {type(tag).__name__}")
        if isinstance(tag, int):
            if 0 <= tag < len(self._tags):
                return tag
        elif tag in self._tags:
            return self._tags.index(tag)
        raise TagError(f"mrctx: library {self._library!r} has no tag {tag!r} "
                       f"(its tags: {', '.join(self._tags)})")

    def tag_name(self, tag: TagKey) -> str:
        return self._tags[self.tag_index(tag)]

    def _device(self, device: Optional[int], who: str = "Context") -> int:
        d = current_device() if device is None else _check.integer(who, "device", device)
        if not 0 <= d < self._device_count:
            raise NoDeviceError(f"mrctx: library {self._library!r}: no device {d} "
                                f"(the context has {self._device_count} device slot(s))")
        return d

    def _where(self, tag: int, device: int) -> str:
        return f"library {self._library!r} tag {self._tags[tag]!r} on device {device}"

    def _place(self, tag: int, device: int) -> str:
        """How the C library's messages name the tag on the device."""
        return f"{self._library}:{self._tags[tag]} on device {device}"

    def _borrowed(self, tag: TagKey, device: Optional[int], who: str) -> tuple[int, int, int]:
        handle = self.handle
        index = self.tag_index(tag)
        d = self._device(device, who)
        mr = _lib.lib().mr_context_get_mr_on(handle, index, d)
        if not mr:
            raise failure(InvalidArgumentError.status, f"mrctx: {self._where(index, d)}: ")
        return mr, index, d

    # ---- resources ----------------------------------------------------------

    def get_resource(self, tag: TagKey, device: Optional[int] = None) -> Resource:
        """The resource for ``tag`` on ``device`` (None: the calling thread's
        current device). The Resource holds its own reference."""
        mr, index, d = self._borrowed(tag, device, "Context.get_resource")
        _lib.lib().mr_resource_retain(mr)
        resource = Resource(mr, self._where(index, d), self._place(index, d))
        depth = self._stack_depths.get((index, d))
        if depth is None:
            depth = self._stack_depths[(index, d)] = resource._frame_depth()
        resource._stack_depth = depth
        return resource

    def describe(self, tag: TagKey, device: Optional[int] = None) -> str:
        """The tag's resolved spec on ``device``, e.g. "stats(cache(device))"."""
        mr, _, _ = self._borrowed(tag, device, "Context.describe")
        return text(_lib.lib().mr_resource_describe(mr))

    def source(self, tag: TagKey, device: Optional[int] = None) -> Source:
        """Where the tag's spec on ``device`` came from."""
        handle = self.handle
        index = self.tag_index(tag)
        d = self._device(device, "Context.source")
        s = sized(_lib.SpecSource)
        library = _lib.lib()
        check(library.mr_context_get_source(handle, index, d, ctypes.byref(s)),
               f"mrctx: {self._where(index, d)}: ")
        return _source(library, s)

    @property
    def ignored(self) -> list[Ignored]:
        """Overrides for devices the context does not have, in source order."""
        handle = self.handle
        library = _lib.lib()
        found = []
        for i in range(library.mr_context_ignored_count(handle)):
            entry = sized(_lib.IgnoredEntry)
            check(library.mr_context_get_ignored(handle, i, ctypes.byref(entry)))
            found.append(Ignored(text(entry.tag), entry.device, _source(library, entry.source.contents)))
        return found

    def trim(self, tag: Optional[TagKey] = None) -> None:
        """Give cached, unused memory of one tag (or every tag) on every
        device back to its upstream."""
        indices = range(len(self._tags)) if tag is None else [self.tag_index(tag)]
        library = _lib.lib()
        for index in indices:
            for d in range(self.device_count):
                mr = library.mr_context_get_mr_on(self.handle, index, d)
                status = library.mr_resource_trim(mr)
                if status != 0:
                    raise failure(status, _prefix(self._where(index, d), self._place(index, d)))

    # ---- statistics ---------------------------------------------------------

    def _raw_stats(self, index: int, device: int) -> Stats:
        """The C library's statistics of one tag on one device (or -1)."""
        stats = sized(_lib.Stats)
        check(_lib.lib().mr_context_get_stats(self.handle, index, device, ctypes.byref(stats)),
               f"mrctx: library {self._library!r} tag {self._tags[index]!r}: ")
        return Stats(**{field: int(getattr(stats, field)) for field in _lib.STATS_FIELDS})

    def _raw_reset_peak(self, index: int, device: int) -> None:
        check(_lib.lib().mr_context_reset_peak(self.handle, index, device),
            f"mrctx: library {self._library!r} tag {self._tags[index]!r}: ")

    def _stats(self, index: int, device: int) -> Stats:
        """As _raw_stats, with the peaks that scopes' resets took away
        (summed over devices for -1, as the C library sums them)."""
        if not self._scopes.has_floors():
            return self._raw_stats(index, device)
        devices = range(self._device_count) if device == -1 else [device]
        total = dict.fromkeys(_lib.STATS_FIELDS, 0)
        for d in devices:
            one = self._scopes.adjusted((index, d), self._raw_stats(index, d))
            for field in _lib.STATS_FIELDS:
                total[field] += getattr(one, field)
        return Stats(**total)

    def _slots(self, who: str, tag: object, device: object) -> list[tuple[int, int]]:
        """The (tag, device) pairs ``tag`` (None: every tag; a name, an
        index, or a list of them) and ``device`` (-1: every device) name."""
        self.handle
        if tag is None:
            indices = list(range(len(self._tags)))
        elif isinstance(tag, (list, tuple, set, frozenset)):
            indices = list(dict.fromkeys(self._index(t) for t in tag))
            if not indices:
                raise TagError(f"mrctx: {who}: library {self._library!r}: no tag given "
                               "(None means every tag)")
        else:
            indices = [self._index(tag)]
        device = _check.integer(who, "device", device)
        if device == -1:
            devices = list(range(self._device_count))
        else:
            devices = [self._device(device, who)]
        return [(index, d) for index in indices for d in devices]

    def reset_peak(self, tag: Optional[Union[TagKey, Iterable[TagKey]]] = None,
                   device: int = -1) -> None:
        """Set the peaks (``peak_bytes``, ``peak_count``) of ``tag`` (None:
        every tag; or a list of tags) on ``device`` (-1: every device) to
        what is live now, so that stats() says the most held at once from
        here on: reset, run one step, read ``stats(tag).peak_bytes``, as
        ``torch.cuda.reset_peak_memory_stats`` is used. Current, total and
        failed counts are untouched. Safe while other threads allocate
        (mr_context_reset_peak); open scopes keep their own peaks."""
        self._scopes.reset_peak(self._slots("Context.reset_peak", tag, device))

    # ---- scopes -------------------------------------------------------------

    def scope(self, name: str, tags: Optional[Union[TagKey, Iterable[TagKey]]] = None
              ) -> _scopes.Scope:
        """``with ctx.scope("forward") as s:`` measures the block: what
        ``tags`` (None: every tag; a tag or a list of tags) allocated in it
        on every device, net and in all, how many allocations, and its peak
        -- the most held at once above what was held at its entry.
        ``s.result`` is then a ScopeStats, and the run is added to the
        scope's record under ``name`` (scope_records(), scope_report()).

        Scopes nest, and may be open on several threads at once; each
        counts every allocation its tags see meanwhile, from any thread,
        as the tags' statistics do. A scope resets its tags' peaks at entry
        (mr_context_reset_peak); what the reset takes away is kept for the
        scopes around it and for stats(), so neither loses a peak. Other
        readers of the C statistics (mr_context_print_stats, snapshots)
        show the peaks since the latest entry."""
        name = _scopes.scope_name("Context.scope", name)
        return _scopes.Scope(self._scopes, name, self._slots("Context.scope", tags, -1))

    def profile(self, name: Union[str, Any, None] = None,
                tags: Optional[Union[TagKey, Iterable[TagKey]]] = None) -> Any:
        """A decorator that runs each call of a function in a scope:
        ``@ctx.profile`` (named after the function), ``@ctx.profile("name")``
        or ``@ctx.profile(tags=["temp"])``. See scope()."""
        if tags is not None:
            self._slots("Context.profile", tags, -1)  # checked now, not at the first call
        return _scopes.decorator(lambda label: self.scope(label, tags), name, "Context.profile")

    def scope_records(self) -> dict[str, _scopes.ScopeRecord]:
        """Every scope name run so far and its ScopeRecord: calls, bytes
        and allocations added up, the largest peak of a run."""
        return self._scopes.records()

    def scope_report(self, ordered_by: str = "peak_bytes") -> str:
        """The table of scope_records(), most first by ``ordered_by``
        ("peak_bytes", "allocated_bytes", "allocations", "calls",
        "net_bytes", or "name" for A to Z)."""
        if not isinstance(ordered_by, str):
            raise _check._type_error("Context.scope_report", "ordered_by", "a str", ordered_by)
        return _scopes.report(self._library, self._scopes.records(), ordered_by)

    def print_scopes(self, file: Optional[IO[str]] = None, ordered_by: str = "peak_bytes") -> None:
        """Print scope_report() (to stdout by default); at the end of a
        program: ``atexit.register(ctx.print_scopes)``."""
        out = sys.stdout if file is None else _check.has_write("Context.print_scopes", "file",
                                                               file)
        out.write(self.scope_report(ordered_by))

    def clear_scopes(self) -> None:
        """Forget the records of finished scopes (open ones go on)."""
        self._scopes.clear()

    @overload
    def stats(self, tag: None = None, device: int = -1) -> dict[str, Stats]: ...

    @overload
    def stats(self, tag: TagKey, device: int = -1) -> Stats: ...

    def stats(self, tag: Optional[TagKey] = None,
              device: int = -1) -> Union[Stats, dict[str, Stats]]:
        """Per-tag statistics: for one tag a Stats (``current_bytes``,
        ``peak_bytes``, ``total_bytes``, ``current_count``, ``peak_count``,
        ``total_count``, ``failed_count``); without ``tag`` a dict of those
        by tag name. ``device`` -1 sums over devices. Always on; the C
        library reads them without a lock. The peaks are the most held at
        once since the context was made or since the last reset_peak()
        (scopes' own resets do not count). A Stats still reads as the dict
        0.2 returned (``s["peak_bytes"]``, ``dict(s)``); that is
        deprecated, and goes in the release after next."""
        device = _check.integer("Context.stats", "device", device)
        if device != -1:
            self._device(device, "Context.stats")
        if tag is not None:
            return self._stats(self.tag_index(tag), device)
        return {name: self._stats(i, device) for i, name in enumerate(self._tags)}

    def cache_stats(self, tag: TagKey, device: Optional[int] = None) -> dict[str, int]:
        """The counters of the cache in ``tag``'s chain on ``device`` (None:
        the calling thread's current device), as Resource.cache_stats():
        hits, misses, cross_stream, bypassed, trims, cached_bytes,
        cached_blocks. InvalidArgumentError where the tag has no cache."""
        mr, index, d = self._borrowed(tag, device, "Context.cache_stats")
        return _cache_stats(mr, f"mrctx: {self._where(index, d)}")

    def stats_text(self) -> str:
        """mr_context_print_stats' table as a string."""
        handle = self.handle
        status, table = _lib.write_to_string(lambda stream: _lib.lib().mr_context_print_stats(handle, stream))
        check(status, f"mrctx: library {self._library!r}: ")
        return table

    def print_stats(self, file: Optional[IO[str]] = None) -> None:
        """Print every tag's statistics as a table (to stdout by default)."""
        out = sys.stdout if file is None else _check.has_write("Context.print_stats", "file", file)
        out.write(self.stats_text())

"""PyTorch's CUDA memory through an mrctx tag.

Two ways, both through the small shim ``_torch_alloc.so`` that PyTorch's
``CUDAPluggableAllocator`` loads:

* :func:`use` makes a tag PyTorch's CUDA allocator for the whole process
  (``torch.cuda.memory.change_current_allocator``). It must run before
  PyTorch initialises CUDA (the first CUDA tensor, or anything that calls
  ``torch.cuda.init``); later it raises FrameworkError and PyTorch's own
  allocator stays. PyTorch's controls then act on the tag:
  ``torch.cuda.empty_cache()`` trims it and the device's driver pool,
  ``torch.cuda.set_per_process_memory_fraction(f, d)`` limits it to f of
  device d's memory. PyTorch's plain pluggable allocator keeps no
  statistics (``torch.cuda.memory_stats`` and the functions over it
  raise); the *allocator helper* below answers them from the tag, and so
  do this module's drop-ins of the same names (:func:`memory_stats`,
  :func:`memory_allocated`, :func:`max_memory_allocated`,
  :func:`memory_reserved`, :func:`max_memory_reserved`,
  :func:`reset_peak_memory_stats`, :func:`get_per_process_memory_fraction`)
  where the helper cannot be had; ``use(..., patch=True)`` installs them
  over torch.cuda's (:data:`PATCHED` lists what is replaced). CUDA graphs
  (``torch.cuda.graph``, ``make_graphed_callables``) get private pools over
  the tag (_torch_pools.cpp): a graph's blocks stay its own until it dies.
  cuDNN's benchmark, ``torch.cuda.MemPool()`` and
  ``torch.compile(mode="reduce-overhead")`` work through the *allocator
  helper* (PyTorch's pluggable allocator answering cacheInfo,
  createOrIncrefPool, MemPool's use_on_oom and no_split, the graph
  trees' checkpoints over the shim's pools, the statistics,
  getMemoryFraction, and the memory history and snapshots that
  pytorch.org/memory_viz reads, built at the first use();
  :func:`allocator_helper`; docs/integrations.md).
* Without code changes: ``MRCTX_TORCH=SPEC`` in the environment (the
  package's ``mrctx-torch.pth``, or ``python -m mrctx run script.py``)
  runs ``use(Context("torch", {"memory": SPEC},
  env_var="MRCTX_TORCH_MEMORY"), "memory", patch=True)`` right after
  ``import torch`` finishes (_mrctx_torch_env.py).
* :func:`pool` keeps PyTorch's caching allocator and returns a
  ``torch.cuda.MemPool`` whose segments come from a tag, for one region::

      with torch.cuda.use_mem_pool(mrctx.torch.pool(ctx, "optimizer")):
          optimizer.step()

  Up to 8 (context, tag) pairs per process can back pools.

Streams: a block is freed on the stream PyTorch allocated it on, stream-
ordered. ``Tensor.record_stream(s)`` is honoured through the pluggable
allocator's record-stream hook: the block is not handed out again until
the work queued on ``s`` before its free has finished (the freeing stream
waits for ``s``; ``mr_record_stream``). On a PyTorch whose pluggable
allocator has no such hook, :func:`use` warns that ``record_stream`` is
ignored there (memory used on another stream must then be synchronised
before it is freed).

Lifetime: the shim holds its own references to the tag's resources, so
closing the context while PyTorch still holds memory is safe; the memory
is freed into the resources when PyTorch frees it.

Failures: out of memory under :func:`use` and :func:`use_control` raises
``torch.OutOfMemoryError`` (a RuntimeError) starting "CUDA out of memory."
with mrctx's message (who, which tag, why): the shim throws
``c10::OutOfMemoryError`` through a helper built at the first use() against
the installed PyTorch (_torch_oom_helper.py; :func:`oom_helper`). Where it
cannot be built, a RuntimeError with the same message, and use() warns once
why. Under :func:`pool` it is PyTorch's own torch.OutOfMemoryError, with
PyTorch's message (the pool's functions return NULL, so that PyTorch can
free its cached segments and try again first).

Measuring (docs/integrations.md, "Inside a training step"):

* :func:`use_control` installs a *measurement control* instead of a tag: a
  trivial exact-size free list in the shim, loaded through
  CUDAPluggableAllocator exactly as :func:`use` loads a tag, so a workload
  shows what that path costs by itself. It never gives memory back; it is
  not an allocator to train with. :func:`control_stats` reads its hits,
  misses and frees.
* With ``MRCTX_TORCH_TIMING=1`` in the environment when :func:`use` or
  :func:`use_control` runs, PyTorch gets the shim's *timed* pair, which
  counts the calls, the nanoseconds spent inside them, the longest call and
  the calls over 10 us (:func:`timing`, :func:`reset_timing`). Without it
  PyTorch gets the plain pair, which counts nothing.
"""

from __future__ import annotations

import collections
import ctypes
import os
import sys
import warnings
from typing import Any, Optional

from . import _check, _forksafe, _lib, _torch_oom_helper
from ._context import Context, TagKey, current_device
from ._errors import FrameworkError, LibraryNotFoundError, NoDeviceError, StateError, check
from ._hooks import checked_tag, import_framework

HOOK = "mrctx.torch"
POOL_ROUTES = range(1, 9)  # route 0 is the default allocator's
TIMING_ENV = "MRCTX_TORCH_TIMING"
CONTROL = "control"  # what installed() says after use_control()
SLOW_NS = 10_000  # MRCTX_TORCH_SLOW_NS: a call over this counts as slow


class _ControlStats(ctypes.Structure):  # mrctx_torch_control_stats
    _fields_ = [(name, ctypes.c_ulonglong) for name in (
        "hits", "misses", "failed", "frees", "cached_blocks", "cached_bytes", "live_bytes",
        "peak_live_bytes", "reserved_bytes", "lists")]


class _TimingOp(ctypes.Structure):  # mrctx_torch_timing_op
    _fields_ = [(name, ctypes.c_ulonglong) for name in ("calls", "ns", "max_ns", "slow_calls")]


class _Timing(ctypes.Structure):  # mrctx_torch_timing
    _fields_ = [("alloc", _TimingOp), ("free", _TimingOp)]


# The pluggable allocator's hooks use() registers: (the setter on PyTorch's
# _CUDAPluggableAllocator, the shim's function). A PyTorch without a setter
# goes without that hook (the private pools' before 2.3 or so).
HOOKS = (
    ("set_reset_fn", "mrctx_torch_empty_cache"),
    ("set_memory_fraction_fn", "mrctx_torch_set_memory_fraction"),
    ("set_begin_allocate_to_pool", "mrctx_torch_begin_allocate_to_pool"),
    ("set_end_allocate_to_pool_fn", "mrctx_torch_end_allocate_to_pool"),
    ("set_release_pool", "mrctx_torch_release_pool"),
    ("set_record_stream_fn", "mrctx_torch_record_stream"),
)

# What use(..., patch=True) replaces, in torch.cuda and torch.cuda.memory
# both: the functions that raise for a pluggable allocator. memory_stats,
# memory_allocated, max_memory_allocated, memory_reserved,
# max_memory_reserved and memory_summary call memory_stats_as_nested_dict,
# so they answer from the tag without being replaced themselves.
PATCHED = ("memory_stats_as_nested_dict", "reset_peak_memory_stats",
           "reset_accumulated_memory_stats", "get_per_process_memory_fraction")


_lock = _forksafe.lock()
_shim: Optional[ctypes.CDLL] = None
_shim_path: Optional[str] = None
_bound: dict[int, tuple[int, int, str]] = {}  # route -> (context handle, tag, "library/tag")
_pool_allocators: dict[int, Any] = {}  # route -> CUDAPluggableAllocator
_installed: Optional[str] = None  # "library/tag" of use(), or CONTROL
_timed = False  # whether PyTorch got the timed pair
_used: Optional[tuple[Context, int]] = None  # use()'s context and tag, for the drop-ins
_originals: dict[str, Any] = {}  # torch.cuda's functions that patch() replaced


def shim_path() -> str:
    """Where the shim is: MRCTX_TORCH_ALLOC, next to the package, or the
    build tree libmrctx was loaded from."""
    path = _lib.companion_path("_torch_alloc", "MRCTX_TORCH_ALLOC")
    if path is None:
        raise LibraryNotFoundError(
            f"{HOOK}: the PyTorch shim _torch_alloc.so is not next to the package nor in the "
            "build tree (it needs a C++ compiler at build time); set MRCTX_TORCH_ALLOC to its path")
    return path


def shim() -> ctypes.CDLL:
    """The loaded shim. libmrctx is loaded first, so the shim binds to the
    same library instance the contexts live in."""
    global _shim, _shim_path
    with _lock:
        if _shim is None:
            _lib.lib()
            path = os.path.abspath(shim_path())
            try:
                library = ctypes.CDLL(path)
            except OSError as error:
                raise LibraryNotFoundError(f"{HOOK}: cannot load {path}: {error}") from error
            library.mrctx_torch_bind.argtypes = [ctypes.c_int, ctypes.c_char_p,
                                                 ctypes.POINTER(ctypes.c_void_p), ctypes.c_int]
            library.mrctx_torch_bind.restype = ctypes.c_int
            library.mrctx_torch_bound.argtypes = [ctypes.c_int]
            library.mrctx_torch_failed_frees.restype = ctypes.c_ulonglong
            library.mrctx_torch_last_free_error.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
            library.mrctx_torch_control_read.argtypes = [ctypes.POINTER(_ControlStats)]
            library.mrctx_torch_control_read.restype = None
            library.mrctx_torch_timing_read.argtypes = [ctypes.POINTER(_Timing)]
            library.mrctx_torch_timing_read.restype = None
            library.mrctx_torch_timing_reset.argtypes = []
            library.mrctx_torch_timing_reset.restype = None
            library.mrctx_torch_route_empty_cache.argtypes = [ctypes.c_int]
            library.mrctx_torch_route_empty_cache.restype = ctypes.c_int
            library.mrctx_torch_route_set_fraction.argtypes = [ctypes.c_int, ctypes.c_double,
                                                               ctypes.c_int]
            library.mrctx_torch_route_set_fraction.restype = ctypes.c_int
            library.mrctx_torch_route_fraction.argtypes = [ctypes.c_int, ctypes.c_int]
            library.mrctx_torch_route_fraction.restype = ctypes.c_double
            library.mrctx_torch_route_limit.argtypes = [ctypes.c_int, ctypes.c_int]
            library.mrctx_torch_route_limit.restype = ctypes.c_ulonglong
            library.mrctx_torch_route_refused.argtypes = [ctypes.c_int, ctypes.c_int]
            library.mrctx_torch_route_refused.restype = ctypes.c_ulonglong
            library.mrctx_torch_set_oom_thrower.argtypes = [ctypes.c_void_p]
            library.mrctx_torch_set_oom_thrower.restype = None
            library.mrctx_torch_oom_thrower_set.restype = ctypes.c_int
            _shim, _shim_path = library, path
        return _shim


def bind(route: int, ctx: Context, tag: TagKey) -> str:
    """Bind one of the shim's routes to a tag: the shim takes a reference to
    the tag's resource on every device. A route is bound once per process;
    binding it again to the same tag is a no-op, to another an error.
    Returns "library/tag". (The hooks call this; tests call it directly.)"""
    route = _check.integer(f"{HOOK}.bind", "route", route)
    if route != 0 and route not in POOL_ROUTES:
        raise _check.ArgumentError(f"{HOOK}.bind: route={route} is not a route (0 for use(), "
                                   f"{POOL_ROUTES[0]} to {POOL_ROUTES[-1]} for pools)")
    index = checked_tag(ctx, tag, HOOK, ("device", "managed"))
    name = f"{ctx.library}/{ctx.tags[index]}"
    library = shim()
    with _lock:
        if route in _bound:
            if _bound[route][:2] == (ctx.handle, index):
                return name
            raise FrameworkError(f"{HOOK}: route {route} already serves {_bound[route][2]}; "
                                 f"it cannot serve {name} too")
        count = ctx.device_count
        resources = (ctypes.c_void_p * count)(
            *[_lib.lib().mr_context_get_mr_on(ctx.handle, index, d) for d in range(count)])
        if library.mrctx_torch_bind(route, name.encode(), resources, count) != 0:
            message = _lib.text(_lib.lib().mr_last_error())
            raise StateError(f"{HOOK}: {name}: {message}")
        _bound[route] = (ctx.handle, index, name)
    return name


def failed_frees() -> tuple[int, str]:
    """How many frees from PyTorch failed (they cannot be reported to
    PyTorch), and the last one's message."""
    library = shim()
    buffer = ctypes.create_string_buffer(512)
    library.mrctx_torch_last_free_error(buffer, len(buffer))
    return int(library.mrctx_torch_failed_frees()), _lib.text(buffer.value)


def _torch() -> Any:
    torch = import_framework("torch", HOOK, "PyTorch")
    memory = getattr(torch.cuda, "memory", None)
    if memory is None or not hasattr(memory, "CUDAPluggableAllocator"):
        raise FrameworkError(f"{HOOK}: this PyTorch ({torch.__version__}) has no "
                             "torch.cuda.memory.CUDAPluggableAllocator")
    return torch


def use(ctx: Context, tag: TagKey, patch: bool = False) -> None:
    """Make ``tag`` of ``ctx`` PyTorch's CUDA allocator for this process.

    Call it before PyTorch initialises CUDA. Raises FrameworkError (naming
    the library and tag) if PyTorch already did, if another tag was
    installed, or if the tag does not give device or managed memory;
    PyTorch's own allocator is then left in place.

    ``torch.cuda.empty_cache()`` and ``set_per_process_memory_fraction``
    then act on the tag (the allocator's reset and memory-fraction hooks).
    With ``patch=True`` the functions of :data:`PATCHED` in ``torch.cuda``
    and ``torch.cuda.memory`` are replaced by this module's, so that
    ``torch.cuda.memory_stats()``, ``max_memory_allocated()`` and the rest
    answer from the tag instead of raising."""
    global _used
    _check.context(f"{HOOK}.use", "ctx", ctx)
    if not isinstance(patch, bool):
        raise _check._type_error(f"{HOOK}.use", "patch", "a bool", patch)
    torch = _torch()
    index = ctx.tag_index(tag)
    name = f"{ctx.library}/{ctx.tags[index]}"
    if _installed is not None:
        if _installed == name:
            if patch:
                _patch(torch)
            return
        raise FrameworkError(f"{HOOK}.use({name}): PyTorch already allocates through "
                             f"{_installed}; the allocator can be chosen once per process")
    if torch.cuda.is_initialized():
        raise FrameworkError(
            f"{HOOK}.use({name}): PyTorch has already initialised CUDA and its allocator; "
            "call mrctx.torch.use() before the first CUDA tensor. PyTorch's own allocator "
            "stays in use.")
    _timing_wanted(f"{HOOK}.use({name})")  # a bad value binds nothing
    bind(0, ctx, index)
    _install(torch, f"{HOOK}.use({name})", "mrctx_torch", name, hooks=True)
    _used = (ctx, index)
    if patch:
        _patch(torch)


def _timing_wanted(who: str) -> bool:
    value = os.environ.get(TIMING_ENV, "")
    if value not in ("", "0", "1"):
        raise FrameworkError(f"{who}: {TIMING_ENV}={value!r}: expected 1 (time the "
                             "allocator's calls) or 0")
    return value == "1"


def _install(torch: Any, who: str, prefix: str, name: str, hooks: bool = False) -> None:
    """Hand PyTorch the shim's pair ``prefix_alloc``/``prefix_free``, or
    their timed twins under MRCTX_TORCH_TIMING=1, and with ``hooks`` the
    shim's functions of HOOKS, before the allocator becomes current."""
    global _installed, _timed
    timed = _timing_wanted(who)
    suffix = "_timed" if timed else ""
    alloc, free = f"{prefix}_alloc{suffix}", f"{prefix}_free{suffix}"
    _torch_oom_helper.install(torch, shim(), who)  # before PyTorch can allocate
    if hooks:
        # PyTorch's pluggable allocator with cacheInfo and
        # checkPoolLiveAllocations answered, where it can be built.
        try:
            done = _torch_oom_helper.install_allocator(torch, shim(), alloc, free, who)
        except RuntimeError as error:
            raise FrameworkError(f"{who}: PyTorch refused the allocator ({error}); "
                                 "its own allocator stays in use") from error
        if done:
            _installed, _timed = name, timed
            return
    allocator = torch.cuda.memory.CUDAPluggableAllocator(_shim_path, alloc, free)
    if hooks:
        raw = allocator.allocator()
        library = shim()
        for setter, function in HOOKS:
            if hasattr(raw, setter):
                getattr(raw, setter)(ctypes.cast(getattr(library, function), ctypes.c_void_p).value)
            elif setter == "set_record_stream_fn":
                warnings.warn(
                    f"{who}: this PyTorch's pluggable allocator has no record-stream hook, so "
                    "Tensor.record_stream is ignored: memory used on another stream must be "
                    "synchronised before it is freed, or a later allocation may receive it "
                    "while that stream still reads it", RuntimeWarning, stacklevel=3)
    try:
        torch.cuda.memory.change_current_allocator(allocator)
    except RuntimeError as error:
        raise FrameworkError(f"{who}: PyTorch refused the allocator ({error}); "
                             "its own allocator stays in use") from error
    _installed, _timed = name, timed


def allocator_helper() -> tuple[Optional[str], Optional[str]]:
    """Whether use() installed the allocator helper (PyTorch's pluggable
    allocator answering cacheInfo, so cuDNN's benchmark runs): (its path,
    None) when it did; (None, why not) when use() installed the plain
    pluggable allocator; (None, None) before use()."""
    return _torch_oom_helper.allocator_status()


def oom_helper() -> tuple[Optional[str], Optional[str]]:
    """Whether out of memory under use()/use_control() is
    torch.OutOfMemoryError: (the helper's path, None) when it is; (None,
    why not) when it is a RuntimeError; (None, None) before either ran."""
    return _torch_oom_helper.status()


def context() -> Optional[Context]:
    """The context use() installed (MRCTX_TORCH's, library "torch"), or
    None."""
    return _used[0] if _used is not None else None


def installed() -> Optional[str]:
    """The "library/tag" that use() installed, "control" after
    use_control(), or None."""
    return _installed


def use_control() -> None:
    """Install the shim's *control allocator* as PyTorch's CUDA allocator:
    a measurement control, not an allocator to train with.

    It is loaded through CUDAPluggableAllocator exactly as :func:`use` loads
    a tag, and does the least an allocator can: a free list per (device,
    exact size, stream) under one mutex, a block reused only at its size on
    the stream it was freed on, misses from mrctx's ``device`` resource
    (the device's current driver pool). It never gives memory back, so a
    workload whose sizes drift holds every size it ever used. A workload's
    step time with it is what the pluggable path allows; compare a tag with
    that, not only with PyTorch's own allocator. Read its counters with
    :func:`control_stats`.

    Same rules as :func:`use`: before PyTorch initialises CUDA, once per
    process, and not after use() installed a tag (FrameworkError)."""
    torch = _torch()
    who = f"{HOOK}.use_control()"
    if _installed is not None:
        if _installed == CONTROL:
            return
        raise FrameworkError(f"{who}: PyTorch already allocates through {_installed}; the "
                             "allocator can be chosen once per process")
    if torch.cuda.is_initialized():
        raise FrameworkError(f"{who}: PyTorch has already initialised CUDA and its allocator; "
                             "call it before the first CUDA tensor. PyTorch's own allocator "
                             "stays in use.")
    shim()
    _install(torch, who, "mrctx_torch_control", CONTROL)


def control_stats() -> dict[str, int]:
    """The control allocator's counters since the process started: ``hits``
    (served from its lists), ``misses`` (from the driver pool), ``failed``,
    ``frees``, and what it holds now: ``cached_blocks``, ``cached_bytes``,
    ``live_bytes`` (handed out), ``peak_live_bytes``, ``reserved_bytes``
    (taken from the driver and kept), ``lists`` (distinct device, size and
    stream keys). Readable whether or not use_control() ran (all 0 then)."""
    stats = _ControlStats()
    shim().mrctx_torch_control_read(ctypes.byref(stats))
    return {name: int(getattr(stats, name)) for name, _ in _ControlStats._fields_}


def timed() -> bool:
    """Whether PyTorch got the timed pair (MRCTX_TORCH_TIMING=1 when use()
    or use_control() ran)."""
    return _timed


def timing() -> dict[str, dict[str, int]]:
    """What the timed pairs counted since the last reset_timing():
    ``{"alloc": {...}, "free": {...}}``, each with ``calls``, ``ns`` (the
    total inside the calls), ``max_ns`` (the longest call) and
    ``slow_calls`` (calls over 10 us: a driver call or a wait, not a list
    lookup). All 0 unless PyTorch got the timed pair (:func:`timed`)."""
    value = _Timing()
    shim().mrctx_torch_timing_read(ctypes.byref(value))
    return {op: {name: int(getattr(getattr(value, op), name)) for name, _ in _TimingOp._fields_}
            for op in ("alloc", "free")}


def reset_timing() -> None:
    """Zero the timing counters (at the start of the steps to measure; a
    call in flight on another thread may land on either side)."""
    shim().mrctx_torch_timing_reset()


# ---- Drop-ins for torch.cuda's statistics ------------------------------------
#
# PyTorch's plain pluggable allocator raises for getDeviceStats,
# resetPeakStats and getMemoryFraction, so torch.cuda.memory_stats() and
# every function over it fail under use() where the allocator helper cannot
# answer them. These have the same names, arguments and return shapes and
# answer from the tag use() installed; before use() (or after
# use_control()) they are torch.cuda's own.

def _device_index(device: Any, who: str) -> int:
    """PyTorch's device argument as an ordinal: None (the current device),
    an int, "cuda" / "cuda:N", or a torch.device. A negative ordinal is
    refused by every drop-in, as PyTorch's own allocator refuses it
    ("Invalid device argument -1": torch.cuda passes -1 through to it): it
    is not "every device", nor the current one."""
    if device is None:
        torch = sys.modules.get("torch")
        if torch is not None and torch.cuda.is_initialized():
            return int(torch.cuda.current_device())
        return current_device()
    if isinstance(device, str):
        kind, _, number = device.partition(":")
        if kind == "cuda" and (number == "" or number.isdigit()):
            return int(number) if number else _device_index(None, who)
        raise _check.ArgumentError(f"{HOOK}.{who}: device={device!r} is not a CUDA device "
                                   "('cuda' or 'cuda:N')")
    device_type = getattr(device, "type", None)
    if isinstance(device_type, str) and not isinstance(device, int):
        if device_type != "cuda":
            raise _check.ArgumentError(f"{HOOK}.{who}: device={device!r} is not a CUDA device")
        index = getattr(device, "index", None)
        return _device_index(index, who)
    index = _check.integer(f"{HOOK}.{who}", "device", device)
    if index < 0:
        raise NoDeviceError(f"{HOOK}.{who}: device={index} is not a device (PyTorch's allocator "
                            "refuses it too); None is the current device")
    return index


def _stat(current: int, peak: int, allocated: int, freed: int) -> dict[str, int]:
    return {"current": current, "peak": peak, "allocated": allocated, "freed": freed}


ZERO = _stat(0, 0, 0, 0)


class _PoolsInfo(ctypes.Structure):  # mrctx_torch_pools_info (_torch_pools.h)
    _fields_ = [(name, ctypes.c_ulonglong) for name in (
        "pools", "open", "uses", "held_bytes", "live_bytes", "live_blocks", "kept_blocks",
        "waiting_blocks", "segments", "free_blocks")]


def pools_info(device: int = -1) -> dict[str, int]:
    """What the private pools of CUDA graphs and use_mem_pool hold under
    use() on ``device`` (-1: every device): pools, open (captures under
    way), uses, held_bytes (their segments, live or free, all the tag's),
    live_bytes and live_blocks (handed out now), segments and free_blocks
    (how the segments are cut), kept_blocks (segments never given back:
    the device could not be waited for), waiting_blocks (segments released
    while a capture was under way: they go back after it)."""
    library = shim()
    library.mrctx_torch_pools_read.argtypes = [ctypes.c_int, ctypes.POINTER(_PoolsInfo)]
    library.mrctx_torch_pools_read.restype = None
    info = _PoolsInfo()
    library.mrctx_torch_pools_read(int(device), ctypes.byref(info))
    return {name: getattr(info, name) for name, _ in _PoolsInfo._fields_}


class _Stat(ctypes.Structure):  # mrctx_torch_stat (_torch_alloc.h)
    _fields_ = [(name, ctypes.c_longlong) for name in ("current", "peak", "allocated", "freed")]


class _DeviceStats(ctypes.Structure):  # mrctx_torch_device_stats (_torch_alloc.h)
    _fields_ = [("allocated_bytes", _Stat), ("allocation", _Stat), ("reserved_bytes", _Stat),
                ("segment", _Stat), ("num_ooms", ctypes.c_longlong),
                ("num_device_alloc", ctypes.c_longlong), ("num_device_free", ctypes.c_longlong)]


def _device_stats(device: int) -> _DeviceStats:
    """Route 0's tag on ``device`` as PyTorch's device statistics, from the
    shim (_torch_stats.c): the numbers the allocator helper gives PyTorch's
    getDeviceStats."""
    library = shim()
    library.mrctx_torch_route_device_stats.argtypes = [ctypes.c_int, ctypes.c_int,
                                                       ctypes.POINTER(_DeviceStats)]
    out = _DeviceStats()
    check(library.mrctx_torch_route_device_stats(0, device, ctypes.byref(out)), f"{HOOK}: ")
    return out


def _tag_stats(device: int) -> dict[str, Any]:
    """PyTorch's nested memory_stats from use()'s tag on one device
    (_torch_alloc.h says what each number is). The free blocks the private
    pools of CUDA graphs keep are the tag's, but PyTorch counts them
    reserved, not allocated: so are they here."""
    d = _device_stats(device)

    def stat(s: _Stat) -> dict[str, int]:
        return _stat(s.current, s.peak, s.allocated, s.freed)

    def pools(all_: dict[str, int]) -> dict[str, dict[str, int]]:
        # mrctx has no small and large pools: everything is under "all".
        return {"all": all_, "large_pool": dict(ZERO), "small_pool": dict(ZERO)}

    nbytes, count = stat(d.allocated_bytes), stat(d.allocation)
    return {
        "allocated_bytes": pools(nbytes), "active_bytes": pools(dict(nbytes)),
        "requested_bytes": pools(dict(nbytes)), "reserved_bytes": pools(stat(d.reserved_bytes)),
        "allocation": pools(count), "active": pools(dict(count)),
        "segment": pools(stat(d.segment)),
        "inactive_split": pools(dict(ZERO)), "inactive_split_bytes": pools(dict(ZERO)),
        "oversize_allocations": dict(ZERO), "oversize_segments": dict(ZERO),
        "num_alloc_retries": 0, "num_sync_all_streams": 0, "num_ooms": d.num_ooms,
        "num_device_alloc": d.num_device_alloc, "num_device_free": d.num_device_free,
        "max_split_size": -1,
    }


def _torch_own(name: str) -> Any:
    """torch.cuda's own function `name` (before patch() replaced it)."""
    if name in _originals:
        return _originals[name]
    torch = _torch()
    return getattr(torch.cuda.memory, name)


def _using() -> Optional[tuple[Context, int]]:
    """use()'s context and tag, or None where PyTorch allocates itself."""
    return _used if _installed is not None and _installed != CONTROL else None


def memory_stats_as_nested_dict(device: Any = None) -> dict[str, Any]:
    """torch.cuda.memory_stats_as_nested_dict, from the tag use() installed:
    ``allocated_bytes``, ``active_bytes`` and ``requested_bytes`` are the
    tag's bytes (current, peak since creation or the last reset, allocated
    and freed in all), ``allocation`` and ``active`` its allocations,
    ``reserved_bytes`` and ``segment`` add what the tag's cache keeps (their
    peaks are at least that; mrctx keeps no peak of them), ``num_ooms`` its
    failed allocations and those the memory fraction refused,
    ``num_device_alloc`` its cache's misses. The
    ``large_pool``/``small_pool`` splits, ``inactive_split*`` and
    ``oversize_*`` are 0, as PyTorch's cudaMallocAsync backend reports what
    it does not have."""
    if _using() is None:
        return _torch_own("memory_stats_as_nested_dict")(device)
    return _tag_stats(_device_index(device, "memory_stats"))


def memory_stats(device: Any = None) -> dict[str, Any]:
    """torch.cuda.memory_stats: memory_stats_as_nested_dict() flattened to
    "allocated_bytes.all.current" keys, sorted, in an OrderedDict."""
    result: list[tuple[str, Any]] = []

    def flatten(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                flatten(f"{prefix}.{key}" if prefix else str(key), inner)
        else:
            result.append((prefix, value))

    flatten("", memory_stats_as_nested_dict(device))
    return collections.OrderedDict(sorted(result))


def memory_allocated(device: Any = None) -> int:
    """torch.cuda.memory_allocated: the tag's bytes handed out now."""
    return int(memory_stats(device).get("allocated_bytes.all.current", 0))


def max_memory_allocated(device: Any = None) -> int:
    """torch.cuda.max_memory_allocated: the tag's peak bytes since it was
    made or since reset_peak_memory_stats()."""
    return int(memory_stats(device).get("allocated_bytes.all.peak", 0))


def memory_reserved(device: Any = None) -> int:
    """torch.cuda.memory_reserved: the tag's bytes and its cache's."""
    return int(memory_stats(device).get("reserved_bytes.all.current", 0))


def max_memory_reserved(device: Any = None) -> int:
    """torch.cuda.max_memory_reserved: at least the larger of the tag's
    peak and what it reserves now (mrctx keeps no peak of its cache)."""
    return int(memory_stats(device).get("reserved_bytes.all.peak", 0))


def reset_peak_memory_stats(device: Any = None) -> None:
    """torch.cuda.reset_peak_memory_stats: the tag's peaks on the device
    start again from what is live now (the shim's resetPeakStats, as
    Context.reset_peak does it)."""
    if _using() is None:
        _torch_own("reset_peak_memory_stats")(device)
        return
    d = _device_index(device, "reset_peak_memory_stats")
    check(shim().mrctx_torch_route_reset_peak(0, d), f"{HOOK}: ")


def reset_accumulated_memory_stats(device: Any = None) -> None:
    """torch.cuda.reset_accumulated_memory_stats: the totals and counts the
    statistics above report (allocated, freed, num_ooms, num_device_*)
    start again from 0 on the device; the tag's own statistics keep
    theirs."""
    if _using() is None:
        _torch_own("reset_accumulated_memory_stats")(device)
        return
    d = _device_index(device, "reset_accumulated_memory_stats")
    check(shim().mrctx_torch_route_reset_accumulated(0, d), f"{HOOK}: ")


def get_per_process_memory_fraction(device: Any = None) -> float:
    """torch.cuda.get_per_process_memory_fraction: the fraction
    set_per_process_memory_fraction set on the device (1.0 when none)."""
    used = _using()
    if used is None:
        return _torch_own("get_per_process_memory_fraction")(device)
    d = _device_index(device, "get_per_process_memory_fraction")
    fraction = shim().mrctx_torch_route_fraction(0, d)
    if fraction < 0:
        raise NoDeviceError(f"{HOOK}.get_per_process_memory_fraction: device {d} is not one of "
                            f"{_installed}'s")
    return float(fraction)


def memory_limit(device: Any = None) -> Optional[int]:
    """The byte limit set_per_process_memory_fraction put on use()'s tag on
    the device, or None when there is none."""
    if _using() is None:
        raise FrameworkError(f"{HOOK}.memory_limit: no tag is installed (mrctx.torch.use)")
    limit = int(shim().mrctx_torch_route_limit(0, _device_index(device, "memory_limit")))
    return None if limit == (1 << 64) - 1 else limit


def _patch(torch: Any) -> None:
    """Put this module's PATCHED functions in torch.cuda and
    torch.cuda.memory (once; the originals are kept for unpatch())."""
    with _lock:
        for name in PATCHED:
            ours = globals()[name]
            if name not in _originals:
                _originals[name] = getattr(torch.cuda.memory, name, None)
            for module in (torch.cuda.memory, torch.cuda):
                setattr(module, name, ours)


def unpatch() -> None:
    """Put back torch.cuda's own functions that use(..., patch=True)
    replaced."""
    torch = sys.modules.get("torch")
    with _lock:
        for name, original in list(_originals.items()):
            if torch is not None and original is not None:
                for module in (torch.cuda.memory, torch.cuda):
                    setattr(module, name, original)
            del _originals[name]


def pool(ctx: Context, tag: TagKey) -> Any:
    """A new ``torch.cuda.MemPool`` whose memory comes from ``tag`` of
    ``ctx``, under PyTorch's own caching allocator (which caches the pool's
    segments and frees them back to the tag when the pool goes or on
    ``torch.cuda.empty_cache()``). Route allocations to it with
    ``torch.cuda.use_mem_pool(pool)`` (this thread only). Up to 8 distinct
    (context, tag) pairs per process; FrameworkError past that, with
    use() (which already routes everything), or for a tag that does not give
    device or managed memory."""
    _check.context(f"{HOOK}.pool", "ctx", ctx)
    torch = _torch()
    index = ctx.tag_index(tag)
    name = f"{ctx.library}/{ctx.tags[index]}"
    if _installed is not None:
        raise FrameworkError(f"{HOOK}.pool({name}): every allocation already goes to "
                             f"{_installed} (mrctx.torch.use or use_control); MemPools need "
                             "PyTorch's own caching allocator")
    if not hasattr(torch.cuda, "MemPool"):
        raise FrameworkError(f"{HOOK}.pool({name}): this PyTorch ({torch.__version__}) has "
                             "no torch.cuda.MemPool")
    with _lock:
        route = next((r for r, b in _bound.items() if r in POOL_ROUTES and b[:2] == (ctx.handle, index)),
                     None)
        if route is None:
            route = next((r for r in POOL_ROUTES if r not in _bound), None)
    if route is None:
        raise FrameworkError(f"{HOOK}.pool({name}): all {len(POOL_ROUTES)} pool routes serve "
                             f"other tags ({', '.join(b[2] for b in _bound.values())})")
    bind(route, ctx, index)
    allocator = _pool_allocators.get(route)
    if allocator is None:
        allocator = torch.cuda.memory.CUDAPluggableAllocator(
            _shim_path, f"mrctx_torch_pool_alloc_{route}", f"mrctx_torch_pool_free_{route}")
        _pool_allocators[route] = allocator
    try:
        return torch.cuda.MemPool(allocator.allocator())
    except TypeError:  # a PyTorch whose MemPool takes the Python wrapper
        return torch.cuda.MemPool(allocator)

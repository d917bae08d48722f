"""Reclaimers: memory held outside mrctx that mrctx asks back when it runs
out (mr_reclaimer_register, include/mrctx/reclaim.h; docs/semantics.md,
"One process, one memory").

:func:`register_reclaimer` registers a Python function. The package also
registers one reclaimer per framework when it loads libmrctx -- PyTorch's
caching allocator, CuPy's default and pinned pools, Numba's pending
deallocations -- each of which does nothing until its framework is in
``sys.modules``: it looks there when it is called (on out of memory, or
from :func:`mrctx.release_idle`), never imports a framework, and costs
nothing before. That is cheaper and sturdier than an import hook (which
would sit on every import of the process and miss frameworks loaded by
other means) or a check on every allocation.

A callback is called from C, on the thread that ran out, holding none of
mrctx's locks; ctypes takes the GIL for it. An exception in it never
reaches C: it is reported once per reclaimer (a RuntimeWarning) and the
call counts as "gave nothing back"."""

from __future__ import annotations

import atexit
import ctypes
import sys
import warnings
from typing import Any, Callable, Optional

from . import _check, _forksafe, _lib
from ._errors import StateError, check

# mrctx/reclaim.h.
RECLAIM_HOST = -1  # MR_RECLAIM_HOST: pinned and managed memory
RECLAIM_ALL = -2  # MR_RECLAIM_ALL: every device and the host side

_SIZE_MAX = (1 << (8 * ctypes.sizeof(ctypes.c_size_t))) - 1
CALLBACK = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t)

_lock = _forksafe.lock()
# Every registered reclaimer, so that its ctypes callback lives as long as
# C may call it, whatever the caller keeps.
_registered: set["Reclaimer"] = set()
_frameworks: list["Reclaimer"] = []


class ReclaimerStats(dict):
    """calls, bytes (what the callback reported) and nanoseconds."""


class Reclaimer:
    """A registered reclaimer (from :func:`register_reclaimer`)."""

    def __init__(self, fn: Callable[[int, int], Optional[int]], name: str):
        self.name = name
        self._fn = fn
        self._warned = False
        self._handle: Optional[int] = None
        self._callback = CALLBACK(self._call)

    def _call(self, user: Any, device: int, nbytes: int) -> int:
        try:
            given = self._fn(device, nbytes)
            if given is None:
                return 0
            return min(max(int(given), 0), _SIZE_MAX)
        except BaseException as error:  # never into C
            if not self._warned:
                self._warned = True
                try:
                    warnings.warn(f"mrctx: reclaimer {self.name!r} raised {error!r}; it counts "
                                  "as giving nothing back (reported once)", RuntimeWarning)
                except BaseException:
                    pass
            return 0

    @property
    def registered(self) -> bool:
        return self._handle is not None

    def unregister(self) -> None:
        """Unregister: no call starts after, and this returns once no call
        runs on another thread. A second call does nothing."""
        with _lock:
            handle, self._handle = self._handle, None
        if handle is None:
            return
        # ctypes lets go of the GIL, so a call in flight on another thread
        # (which needs it) can end while this waits.
        try:
            check(_lib.lib().mr_reclaimer_unregister(handle),
                  f"mrctx: reclaimer {self.name!r}: unregister: ")
        finally:
            with _lock:
                _registered.discard(self)

    def stats(self) -> ReclaimerStats:
        """What the reclaimer did: calls, bytes it reported, nanoseconds."""
        handle = self._handle
        if handle is None:
            raise StateError(f"mrctx: reclaimer {self.name!r} is unregistered")
        stats = _lib.sized(_lib.ReclaimerStats)
        check(_lib.lib().mr_reclaimer_get_stats(handle, ctypes.byref(stats)),
              f"mrctx: reclaimer {self.name!r}: ")
        return ReclaimerStats(calls=int(stats.calls), bytes=int(stats.bytes),
                              nanoseconds=int(stats.nanoseconds))

    def __repr__(self) -> str:
        state = "registered" if self.registered else "unregistered"
        return f"<mrctx.Reclaimer {self.name!r} ({state})>"


def _register(library: ctypes.CDLL, fn: Callable[[int, int], Optional[int]], name: str) -> Reclaimer:
    reclaimer = Reclaimer(fn, name)
    handle = ctypes.c_void_p()
    with _lock:
        _registered.add(reclaimer)
    status = library.mr_reclaimer_register(reclaimer._callback, None, name.encode("utf-8"),
                                           ctypes.byref(handle))
    if status != 0:
        with _lock:
            _registered.discard(reclaimer)
        check(status, f"mrctx: register_reclaimer({name!r}): ")
    reclaimer._handle = handle.value
    return reclaimer


def register_reclaimer(fn: Callable[[int, int], Optional[int]],
                       name: Optional[str] = None) -> Reclaimer:
    """Register ``fn(device, nbytes)``, which mrctx calls after its own idle
    memory when an allocation runs out (and from :func:`mrctx.release_idle`):
    give back about ``nbytes`` (0: all you can) that you keep idle on
    ``device`` (-1: pinned and managed memory; -2: everything), and return
    the bytes given back, or 0 / None if none or you cannot tell (the
    allocation is retried either way). It runs on the thread that ran out,
    possibly on two threads at once. Keep the returned handle to
    ``unregister()``; the package keeps the callback alive until then."""
    if not callable(fn):
        raise _check._type_error("register_reclaimer", "fn", "a callable", fn)
    if name is None:
        name = getattr(fn, "__qualname__", None) or "reclaimer"
    _check.text("register_reclaimer", "name", name)  # a str without NUL
    return _register(_lib.lib(), fn, name)


# ---- the frameworks -------------------------------------------------------


def _torch_reclaim(device: int, nbytes: int) -> int:
    """PyTorch's caching allocator: torch.cuda.empty_cache(), unless PyTorch
    allocates through an mrctx tag (mrctx.torch.use: its cache is mrctx's
    own) or has not initialised CUDA (nothing cached, and this must not
    initialise it). Measured by memory_reserved."""
    torch = sys.modules.get("torch")
    if torch is None or device == RECLAIM_HOST:
        return 0
    ours = sys.modules.get("mrctx.torch")
    if ours is not None and ours.installed() is not None:
        return 0
    cuda = getattr(torch, "cuda", None)
    if cuda is None or not cuda.is_initialized():
        return 0
    devices = range(cuda.device_count()) if device == RECLAIM_ALL else [device]
    before = sum(cuda.memory_reserved(d) for d in devices)
    cuda.empty_cache()
    return max(0, before - sum(cuda.memory_reserved(d) for d in devices))


def _cupy_reclaim(device: int, nbytes: int) -> int:
    """CuPy's default memory pool (free_all_blocks per device, measured by
    total_bytes) and default pinned pool (free_all_blocks; it does not say
    how much), each unless mrctx.cupy routes that pool's allocations to a
    tag."""
    cupy = sys.modules.get("cupy")
    if cupy is None:
        return 0
    ours = sys.modules.get("mrctx.cupy")
    routed = ours.routed() if ours is not None else frozenset()
    given = 0
    if device != RECLAIM_HOST and "device" not in routed:
        pool = cupy.get_default_memory_pool()
        devices = (range(cupy.cuda.runtime.getDeviceCount()) if device == RECLAIM_ALL
                   else [device])
        for d in devices:
            with cupy.cuda.Device(d):
                before = pool.total_bytes()
                pool.free_all_blocks()
                given += max(0, before - pool.total_bytes())
    if device in (RECLAIM_HOST, RECLAIM_ALL) and "pinned" not in routed:
        cupy.get_default_pinned_memory_pool().free_all_blocks()
    return given


def _numba_reclaim(device: int, nbytes: int) -> int:
    """Numba's pending deallocations (its context's deallocations queue,
    flushed with clear()), in the contexts Numba made already (none is
    made here). Measured by the queue's byte count where Numba keeps
    one."""
    if "numba.cuda" not in sys.modules:
        return 0
    driver_module = sys.modules.get("numba.cuda.cudadrv.driver")
    driver = getattr(driver_module, "driver", None)
    if driver is None or not getattr(driver, "is_initialized", False):
        return 0
    given = 0
    for devnum, dev in list(getattr(driver, "devices", {}).items()):
        if device >= 0 and devnum != device:
            continue
        context = getattr(dev, "primary_context", None)
        if context is None:
            continue
        pending = getattr(context, "deallocations", None)
        if pending is None:  # numba-cuda keeps it in the memory manager
            pending = getattr(getattr(context, "memory_manager", None), "deallocations", None)
        if pending is None:
            continue
        before = int(getattr(pending, "_size", 0) or 0)
        context.push()
        try:
            pending.clear()
        finally:
            context.pop()
        given += max(0, before - int(getattr(pending, "_size", 0) or 0))
    return given


FRAMEWORKS = (
    ("torch: caching allocator (empty_cache)", _torch_reclaim),
    ("cupy: default memory and pinned pools (free_all_blocks)", _cupy_reclaim),
    ("numba: pending deallocations", _numba_reclaim),
)


def install_frameworks(library: ctypes.CDLL) -> None:
    """Register the frameworks' reclaimers, once, when libmrctx is loaded
    (_lib.lib calls this). A failure leaves the package working without
    them."""
    if _frameworks:
        return
    for name, fn in FRAMEWORKS:
        try:
            _frameworks.append(_register(library, fn, name))
        except Exception as error:  # the library is usable without them
            warnings.warn(f"mrctx: could not register the reclaimer {name!r}: {error}",
                          RuntimeWarning)


def framework_reclaimers() -> list[Reclaimer]:
    """The reclaimers the package registers for the frameworks, PyTorch's,
    CuPy's and Numba's, in that order (libmrctx is loaded first, which
    registers them); unregister() one to keep its framework's cache out of
    mrctx's reclaims."""
    _lib.lib()
    return list(_frameworks)


@atexit.register
def _unregister_all() -> None:
    # Before the interpreter goes: C must not call into it afterwards (a
    # thread that runs out during shutdown gets no Python callback).
    with _lock:
        every = list(_registered)
    for reclaimer in every:
        try:
            reclaimer.unregister()
        except Exception:
            pass

"""Finding and loading libmrctx, and its C declarations for ctypes.

Internal: the rest of the package goes through :func:`lib`. The library is
loaded on first use, not at import, so ``import mrctx`` works (and says
clearly what is missing) on a machine without it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import importlib
import os
from pathlib import Path
from typing import Callable, Optional, Type, TypeVar

from . import _forksafe
from ._errors import LibraryNotFoundError

# The SONAME's version (libmrctx.so.0.2): this package speaks that ABI.
ABI_VERSION = "0.2"

_PACKAGE_DIR = Path(__file__).resolve().parent

c_status = ctypes.c_int
c_resource_p = ctypes.c_void_p
c_context_p = ctypes.c_void_p


class Tag(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("default_spec", ctypes.c_char_p)]


class ContextDesc(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("library", ctypes.c_char_p),
        ("tags", ctypes.POINTER(Tag)),
        ("tag_count", ctypes.c_size_t),
        ("env_var", ctypes.c_char_p),
        ("config_file", ctypes.c_char_p),
        ("overrides", ctypes.c_char_p),
        ("flags", ctypes.c_uint32),
        ("tag_requires", ctypes.POINTER(ctypes.c_uint32)),
    ]


class ResourceProps(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("kind", ctypes.c_int),
        ("device", ctypes.c_int),
        ("host_accessible", ctypes.c_bool),
        ("device_accessible", ctypes.c_bool),
        ("stream_ordered", ctypes.c_bool),
        ("native_alignment", ctypes.c_size_t),
    ]


# The order of MR_STATS_FIELDS in include/mrctx/stats.h.
STATS_FIELDS = (
    "current_bytes",
    "peak_bytes",
    "total_bytes",
    "current_count",
    "peak_count",
    "total_count",
    "failed_count",
)


class Stats(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t)] + [(f, ctypes.c_uint64) for f in STATS_FIELDS]


# mr_spec_origin (include/mrctx/context.h): where a tag's spec came from,
# SpecSource.origin. unit.python.c_layouts checks each against the C enum.
SPEC_DEFAULT = 0  # MR_SPEC_DEFAULT: the tag's default_spec
SPEC_OVERRIDE = 1  # MR_SPEC_OVERRIDE: desc.overrides
SPEC_FILE = 2  # MR_SPEC_FILE: desc.config_file
SPEC_ENV = 3  # MR_SPEC_ENV: the environment variable


class SpecSource(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("origin", ctypes.c_int),
        ("where", ctypes.c_char_p),
        ("line", ctypes.c_int),
        ("spec", ctypes.c_char_p),
        ("status", c_status),
        ("reason", ctypes.c_char_p),
    ]


class IgnoredEntry(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("tag", ctypes.c_char_p),
        ("device", ctypes.c_int),
        ("source", ctypes.POINTER(SpecSource)),
    ]


# mr_pool_kind (include/mrctx/driver.h), PoolInfo.kind: the names
# mr_pool_kind_name gives, by value (MR_POOL_DEVICE, _PINNED, _MANAGED).
POOL_KINDS = ("device", "pinned", "managed")


def pool_kind_name(kind: int) -> str:
    """PoolInfo.kind's name; "unknown" for a value this package does not know."""
    return POOL_KINDS[kind] if 0 <= kind < len(POOL_KINDS) else "unknown"


class PoolInfo(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("kind", ctypes.c_int),
        ("device", ctypes.c_int),
        ("is_default", ctypes.c_bool),
        ("is_current", ctypes.c_bool),
        ("release_threshold", ctypes.c_uint64),
        ("reserved_bytes", ctypes.c_uint64),
        ("reserved_high", ctypes.c_uint64),
        ("used_bytes", ctypes.c_uint64),
        ("used_high", ctypes.c_uint64),
    ]


class DeviceInfo(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("device", ctypes.c_int),
        ("name", ctypes.c_char * 256),
        ("total_memory", ctypes.c_uint64),
        ("compute_capability_major", ctypes.c_int),
        ("compute_capability_minor", ctypes.c_int),
        ("memory_pools_supported", ctypes.c_bool),
        ("host_memory_pools_supported", ctypes.c_bool),
        ("managed_memory", ctypes.c_bool),
        ("concurrent_managed_access", ctypes.c_bool),
    ]


# mr_cache_stats (include/mrctx/adaptors.h), in its order.
CACHE_STATS_FIELDS = (
    "hits",
    "misses",
    "cross_stream",
    "bypassed",
    "cached_bytes",
    "cached_blocks",
    "trims",
)


class CacheStats(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t)] + [(f, ctypes.c_uint64) for f in CACHE_STATS_FIELDS]


class IpcPoolData(ctypes.Structure):
    """mr_ipc_pool_data (include/mrctx/ipc.h): what an importer needs with
    the pool's descriptor."""

    _fields_ = [
        ("magic", ctypes.c_uint32),
        ("version", ctypes.c_uint32),
        ("pool_id", ctypes.c_uint64),
        ("device_uuid", ctypes.c_ubyte * 16),
        ("kind", ctypes.c_int32),
        ("exporter_device", ctypes.c_int32),
        ("exporter_pid", ctypes.c_int64),
        ("reserved", ctypes.c_ubyte * 16),
    ]


class IpcPtr(ctypes.Structure):
    """mr_ipc_ptr (include/mrctx/ipc.h): one exported block."""

    _fields_ = [
        ("data", ctypes.c_ubyte * 64),
        ("pool_id", ctypes.c_uint64),
        ("bytes", ctypes.c_uint64),
        ("magic", ctypes.c_uint32),
        ("version", ctypes.c_uint32),
        ("reserved", ctypes.c_ubyte * 8),
    ]


class ReclaimerStats(ctypes.Structure):
    """mr_reclaimer_stats (include/mrctx/reclaim.h)."""
    _fields_ = [("size", ctypes.c_size_t), ("calls", ctypes.c_uint64),
                ("bytes", ctypes.c_uint64), ("nanoseconds", ctypes.c_uint64)]


class SnapshotOptions(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("largest_blocks", ctypes.c_size_t)]


_Struct = TypeVar("_Struct", bound=ctypes.Structure)


def sized(struct_type: Type[_Struct]) -> _Struct:
    """A zeroed struct with its leading ``size`` set, as every versioned
    struct of the C API needs (docs/abi.md); of the type given, so that a
    reader of its fields is checked against that struct."""
    value = struct_type()
    value.size = ctypes.sizeof(struct_type)
    return value


_P = ctypes.POINTER
_SIGNATURES: dict[str, tuple[object, list[object]]] = {
    "mr_version": (ctypes.c_char_p, []),
    "mr_status_name": (ctypes.c_char_p, [c_status]),
    "mr_last_error": (ctypes.c_char_p, []),
    "mr_clear_error": (None, []),
    "mr_driver_version": (c_status, [_P(ctypes.c_int)]),
    "mr_device_count": (c_status, [_P(ctypes.c_int)]),
    "mr_current_device": (ctypes.c_int, []),
    "mr_resource_retain": (c_resource_p, [c_resource_p]),
    "mr_resource_release": (None, [c_resource_p]),
    "mr_allocate": (c_status, [c_resource_p, ctypes.c_size_t, ctypes.c_size_t,
                               ctypes.c_void_p, _P(ctypes.c_void_p)]),
    "mr_deallocate": (c_status, [c_resource_p, ctypes.c_void_p, ctypes.c_size_t,
                                 ctypes.c_size_t, ctypes.c_void_p]),
    "mr_allocate_sync": (c_status, [c_resource_p, ctypes.c_size_t, ctypes.c_size_t,
                                    _P(ctypes.c_void_p)]),
    "mr_deallocate_sync": (c_status, [c_resource_p, ctypes.c_void_p, ctypes.c_size_t,
                                      ctypes.c_size_t]),
    "mr_resource_synchronize": (c_status, [c_resource_p, ctypes.c_void_p]),
    "mr_resource_trim": (c_status, [c_resource_p]),
    "mr_release_idle": (c_status, [ctypes.c_int, ctypes.c_size_t, _P(ctypes.c_size_t)]),
    "mr_reclaimer_register": (c_status, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p,
                                         _P(ctypes.c_void_p)]),
    "mr_reclaimer_unregister": (c_status, [ctypes.c_void_p]),
    "mr_reclaimer_get_stats": (c_status, [ctypes.c_void_p, _P(ReclaimerStats)]),
    "mr_record_stream": (c_status, [c_resource_p, ctypes.c_void_p, ctypes.c_void_p]),
    "mr_resource_get_props": (c_status, [c_resource_p, _P(ResourceProps)]),
    "mr_resource_describe": (ctypes.c_char_p, [c_resource_p]),
    "mr_track_set_frame_source": (c_status, [ctypes.c_void_p, ctypes.c_void_p]),
    "mr_resource_name": (ctypes.c_char_p, [c_resource_p]),
    "mr_resource_upstream": (c_resource_p, [c_resource_p]),
    "mr_resource_from_spec": (c_status, [ctypes.c_char_p, ctypes.c_int, _P(c_resource_p)]),
    "mr_pool_resource_get_info": (c_status, [c_resource_p, _P(PoolInfo)]),
    "mr_cache_resource_get_stats": (c_status, [c_resource_p, _P(CacheStats)]),
    "mr_driver_pool_get_info": (c_status, [ctypes.c_int, ctypes.c_int, _P(PoolInfo)]),
    "mr_driver_load": (c_status, []),
    "mr_device_get_info": (c_status, [ctypes.c_int, _P(DeviceInfo)]),
    "mr_device_get_memory": (c_status, [ctypes.c_int, _P(ctypes.c_uint64), _P(ctypes.c_uint64)]),
    "mr_context_create": (c_status, [_P(ContextDesc), _P(c_context_p)]),
    "mr_context_destroy": (None, [c_context_p]),
    "mr_context_get_mr_on": (c_resource_p, [c_context_p, ctypes.c_int, ctypes.c_int]),
    "mr_context_library": (ctypes.c_char_p, [c_context_p]),
    "mr_context_tag_count": (ctypes.c_size_t, [c_context_p]),
    "mr_context_tag_name": (ctypes.c_char_p, [c_context_p, ctypes.c_int]),
    "mr_context_device_count": (ctypes.c_int, [c_context_p]),
    "mr_context_get_source": (c_status, [c_context_p, ctypes.c_int, ctypes.c_int,
                                         _P(SpecSource)]),
    "mr_spec_origin_name": (ctypes.c_char_p, [ctypes.c_int]),
    "mr_memory_kind_name": (ctypes.c_char_p, [ctypes.c_int]),
    "mr_context_ignored_count": (ctypes.c_size_t, [c_context_p]),
    "mr_context_get_ignored": (c_status, [c_context_p, ctypes.c_size_t, _P(IgnoredEntry)]),
    "mr_context_get_stats": (c_status, [c_context_p, ctypes.c_int, ctypes.c_int, _P(Stats)]),
    "mr_context_reset_peak": (c_status, [c_context_p, ctypes.c_int, ctypes.c_int]),
    "mr_stats_resource_reset_peak": (c_status, [c_resource_p]),
    "mr_pool_resource_reset_peak": (c_status, [c_resource_p]),
    "mr_driver_pool_reset_peak": (c_status, [ctypes.c_int, ctypes.c_int]),
    "mr_context_print_stats": (c_status, [c_context_p, ctypes.c_void_p]),
    "mr_context_print_resolved": (c_status, [c_context_p, ctypes.c_void_p]),
    "mr_write_stats_at_exit": (c_status, []),
    "mr_snapshot_take": (c_status, [_P(SnapshotOptions), _P(ctypes.c_void_p)]),
    "mr_snapshot_read": (c_status, [ctypes.c_char_p, ctypes.c_size_t, _P(ctypes.c_void_p)]),
    "mr_snapshot_write_json": (c_status, [ctypes.c_void_p, ctypes.c_void_p]),
    "mr_snapshot_write_text": (c_status, [ctypes.c_void_p, ctypes.c_void_p]),
    "mr_snapshot_write_memory_viz": (c_status, [ctypes.c_void_p, ctypes.c_void_p]),
    "mr_snapshot_destroy": (None, [ctypes.c_void_p]),
    "mr_ipc_pool_export": (c_status, [c_resource_p, _P(ctypes.c_int), _P(IpcPoolData)]),
    "mr_ipc_pool_import": (c_status, [ctypes.c_int, _P(IpcPoolData), _P(c_resource_p)]),
    "mr_ipc_ptr_export": (c_status, [c_resource_p, ctypes.c_void_p, ctypes.c_size_t,
                                     _P(IpcPtr)]),
    "mr_ipc_ptr_import": (c_status, [c_resource_p, _P(IpcPtr), _P(ctypes.c_void_p)]),
    "mr_ipc_imports_live": (c_status, [c_resource_p, _P(ctypes.c_size_t)]),
    "mr_snapshot_write_merged_json": (c_status, [_P(ctypes.c_void_p), ctypes.c_size_t,
                                                 ctypes.c_void_p]),
    "mr_snapshot_write_merged_text": (c_status, [_P(ctypes.c_void_p), ctypes.c_size_t,
                                                 ctypes.c_void_p]),
}


def _declare(library: ctypes.CDLL) -> None:
    for name, (restype, argtypes) in _SIGNATURES.items():
        function = getattr(library, name)
        function.restype = restype
        function.argtypes = argtypes


def _checkout() -> Optional[Path]:
    """The source checkout this package is part of (python/mrctx of a tree
    with meson.build), or None for an installed package."""
    repo = _PACKAGE_DIR.parent.parent
    if _PACKAGE_DIR.parent.name == "python" and (repo / "meson.build").is_file() \
            and (repo / "python" / "meson.build").is_file():
        return repo
    return None


def _candidates() -> list[tuple[str, str]]:
    """(where, path) pairs in search order. The rule (docs/packaging.md;
    ``python -m mrctx info`` prints which one applied):

    1. MRCTX_LIBRARY, when set: that file and nothing else.
    2. Next to the package: a wheel's mrctx/libmrctx.so.0.2 (or
       meson-python's or auditwheel's copy beside the package).
    3. The prefix ``meson install`` installed the package with.
    4. In a source checkout (python/ on PYTHONPATH): the build directory
       MRCTX_BUILD_DIR names (relative to the checkout, or absolute), else
       build/: its lib/libmrctx.so.0.2, and nothing else -- never another
       build directory, never the system's copy.
    5. Otherwise the system's library search path.
    """
    found: list[tuple[str, str]] = []
    soname = f"libmrctx.so.{ABI_VERSION}"
    env = os.environ.get("MRCTX_LIBRARY")
    if env:
        found.append(("MRCTX_LIBRARY", env))
        return found  # the operator's choice: nothing else is tried
    for pattern in (soname, f"../.mrctx.mesonpy.libs/{soname}", f"../mrctx.libs/libmrctx*.so.{ABI_VERSION}"):
        for path in sorted(glob.glob(str(_PACKAGE_DIR / pattern))):
            found.append(("next to the package", path))
    try:
        # Written by python/meson.build at install, absent from the source
        # tree: imported by name, as a type checker of the tree cannot see it.
        _install = importlib.import_module("._install", __package__)
        found.append(("the install prefix", os.path.join(_install.LIBDIR, soname)))
    except ImportError:
        pass
    repo = _checkout()
    if repo is not None:
        build_dir = os.environ.get("MRCTX_BUILD_DIR")
        if build_dir:
            found.append((f"the source checkout's build directory, MRCTX_BUILD_DIR={build_dir}",
                          str(repo / build_dir / "lib" / soname)))
        else:
            found.append(("the source checkout's build directory build/, MRCTX_BUILD_DIR being unset",
                          str(repo / "build" / "lib" / soname)))
        return found  # a checkout uses its own build, not whatever else is installed
    system = ctypes.util.find_library("mrctx")
    if system:
        found.append(("the system's library path", system))
    return found


_lock = _forksafe.lock()
_library: Optional[ctypes.CDLL] = None
_library_path: Optional[str] = None
_library_where: Optional[str] = None


def lib() -> ctypes.CDLL:
    """The loaded libmrctx, with every function the package uses declared.

    Raises LibraryNotFoundError naming every place that was tried."""
    global _library, _library_path, _library_where
    if _library is not None:
        return _library
    with _lock:
        if _library is not None:
            return _library
        tried: list[str] = []
        for where, path in _candidates():
            try:
                library = ctypes.CDLL(path)
                _declare(library)
            except (OSError, AttributeError) as error:
                tried.append(f"{path} ({where}): {error}")
                continue
            _library, _library_path, _library_where = library, path, where
            # The frameworks' reclaimers, inert until each framework is
            # imported (_reclaimers.py says why here).
            from . import _reclaimers
            _reclaimers.install_frameworks(library)
            # Python call sites for track(UP, stacks=N) (_frames.py).
            from . import _frames
            _frames.install(library, path)
            return library
        if not tried:
            tried.append("no candidate found")
        hint = ("build it (meson setup build && ninja -C build), or set MRCTX_BUILD_DIR to "
                "the build directory to use or MRCTX_LIBRARY to the library's path"
                if _checkout() is not None and not os.environ.get("MRCTX_LIBRARY")
                else "set MRCTX_LIBRARY to the path of libmrctx.so." + ABI_VERSION)
        raise LibraryNotFoundError("mrctx: could not load libmrctx:\n  " + "\n  ".join(tried)
                                   + "\n" + hint)


def library_path() -> str:
    """The path libmrctx was loaded from (loading it if needed)."""
    lib()
    assert _library_path is not None
    return _library_path


def companion_path(stem: str, env: Optional[str] = None,
                   loaded_from: Optional[str] = None) -> Optional[str]:
    """Where one of the C modules built beside the package is
    (``_torch_alloc``, ``_cupy_alloc``, ``_callsites``): the path in the
    environment variable ``env`` (where it has one), next to the package,
    or in the build tree libmrctx was loaded from (``loaded_from``, for a
    caller inside lib()'s loading, else library_path()); None when none of
    those has it."""
    given = os.environ.get(env) if env is not None else None
    if given:
        return given
    here = sorted(glob.glob(str(Path(__file__).resolve().parent / f"{stem}*.so")))
    if here:
        return here[0]
    library = loaded_from if loaded_from is not None else library_path()
    build = Path(library).resolve().parent.parent / "python" / f"{stem}.so"
    return str(build) if build.exists() else None


def library_where() -> str:
    """Which step of the search rule (see _candidates) found the loaded
    libmrctx, e.g. "MRCTX_LIBRARY" or "next to the package"."""
    lib()
    assert _library_where is not None
    return _library_where


def write_to_string(write: Callable[[int], int]) -> tuple[int, str]:
    """Run ``write(FILE *)`` (a C call that writes to a stdio stream) into
    memory. Returns its status and what it wrote."""
    status, written = write_to_bytes(write)
    return status, written.decode("utf-8", "replace")


def write_to_bytes(write: Callable[[int], int]) -> tuple[int, bytes]:
    """write_to_string for what is not text (mr_snapshot_write_memory_viz's
    pickle): the bytes as written."""
    libc = ctypes.CDLL(None)
    libc.open_memstream.restype = ctypes.c_void_p
    libc.open_memstream.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t)]
    libc.fclose.argtypes = [ctypes.c_void_p]
    libc.free.argtypes = [ctypes.c_void_p]
    buffer, size = ctypes.c_void_p(), ctypes.c_size_t()
    stream = libc.open_memstream(ctypes.byref(buffer), ctypes.byref(size))
    if not stream:
        raise MemoryError("mrctx: open_memstream failed")
    status = write(stream)
    libc.fclose(stream)
    try:
        written = ctypes.string_at(buffer.value, size.value) if buffer.value else b""
    finally:
        libc.free(buffer)
    return status, written


def text(value: Optional[bytes]) -> str:
    return value.decode("utf-8", "replace") if value is not None else ""


def encode(value: Optional[str]) -> Optional[bytes]:
    return value.encode("utf-8") if value is not None else None

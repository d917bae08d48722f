"""mrctx for Python: memory resource contexts over libmrctx (ctypes).

A library declares its allocation kinds (tags) with a default spec each and
creates one Context; the application overrides any tag from text, a file or
an environment variable, without a rebuild::

    import mrctx
    ctx = mrctx.Context("mylib", {"temp": "cache(device)", "staging": "pinned"},
                        env_var="MYLIB_MEMORY")
    temp = ctx.get_resource("temp")
    ptr = temp.allocate(1 << 20, stream=stream_handle)
    ...
    temp.deallocate(ptr, 1 << 20, stream=stream_handle)
    print(ctx.stats("temp").peak_bytes)

Framework hooks route a framework's allocations to a tag: mrctx.torch,
mrctx.cupy, mrctx.numba (a Numba EMM plugin) and mrctx.cuda_core (a
cuda.core MemoryResource). They are imported on demand; none is needed to
import mrctx.

mrctx.snapshot() says who holds the memory now: every live context's tags
on every device, in any library of the process (mrctx.write_snapshot(path)
writes it for ``mrctx snapshot PATH``); mrctx.read_snapshot(path) reads such
a file back, the out-of-memory dump included (MRCTX_OOM_SNAPSHOT);
mrctx.merge_snapshots(paths) shows several processes' snapshots (the ranks
of a torchrun job, the workers of a Dask cluster: mrctx.dask) as one view;
mrctx.export_memory_viz(path) writes a snapshot as PyTorch's memory_viz
(pytorch.org/memory_viz) reads it.
snapshot() and read_snapshot() return a Snapshot, merge_snapshots() a
MergedSnapshot: TypedDicts, so a type checker knows the members of the
dicts they are. ``python -m mrctx`` runs the command's verbs (the mrctx command a wheel
carries; without it, info, resolve and snapshot are the package's own).

libmrctx is loaded on first use, from the first of: MRCTX_LIBRARY (that file
only); next to the package (a wheel); the prefix ``meson install`` used; in
a source checkout, the build directory MRCTX_BUILD_DIR names, else build/
(and nothing else); the system's library path. mrctx.library_path() says
which file was loaded, ``python -m mrctx info`` also why.
"""

from __future__ import annotations

from ._context import (
    Context,
    DeviceMemory,
    Ignored,
    Props,
    Resource,
    Source,
    current_device,
    device_count,
    device_memory,
    driver_pool_info,
    driver_version,
    last_error,
    release_idle,
    reset_driver_pool_peak,
    resolve,
    version,
)
from ._results import PoolInfo, Stats
from ._reclaimers import Reclaimer, framework_reclaimers, register_reclaimer
from ._scopes import Scope, ScopeRecord, ScopeStats, profiler
from .buffer import Buffer
from .ipc import SharedBuffer, SharedPool, import_pool, imported_pools
from ._errors import (
    ArgumentError,
    ArgumentTypeError,
    ClosedError,
    ConfigError,
    DriverError,
    Error,
    FrameworkError,
    InvalidArgumentError,
    LibraryNotFoundError,
    NoDeviceError,
    NoDriverError,
    OutOfMemoryError,
    StateError,
    TagError,
    UnsupportedError,
)
from ._lib import library_path
from ._snapshot import (
    MergedSnapshot,
    Snapshot,
    export_memory_viz,
    merge_snapshots,
    merge_snapshots_text,
    read_snapshot,
    snapshot,
    snapshot_json,
    snapshot_text,
    write_snapshot,
)

__all__ = [
    "ArgumentError",
    "ArgumentTypeError",
    "Buffer",
    "ClosedError",
    "ConfigError",
    "Context",
    "DeviceMemory",
    "DriverError",
    "Error",
    "FrameworkError",
    "Ignored",
    "InvalidArgumentError",
    "LibraryNotFoundError",
    "MergedSnapshot",
    "NoDeviceError",
    "NoDriverError",
    "OutOfMemoryError",
    "PoolInfo",
    "Props",
    "Reclaimer",
    "Resource",
    "Scope",
    "ScopeRecord",
    "ScopeStats",
    "SharedBuffer",
    "SharedPool",
    "Snapshot",
    "Source",
    "StateError",
    "Stats",
    "TagError",
    "UnsupportedError",
    "current_device",
    "device_count",
    "device_memory",
    "driver_pool_info",
    "driver_version",
    "import_pool",
    "imported_pools",
    "last_error",
    "library_path",
    "release_idle",
    "register_reclaimer",
    "framework_reclaimers",
    "export_memory_viz",
    "merge_snapshots",
    "merge_snapshots_text",
    "profiler",
    "read_snapshot",
    "reset_driver_pool_peak",
    "resolve",
    "snapshot",
    "snapshot_json",
    "snapshot_text",
    "version",
    "write_snapshot",
]

"""Snapshots: who holds the memory, by library, tag and device.

A snapshot covers every live context of the process, whatever library (C,
C++ or Python) created it, and the CUDA driver's pools. Its JSON form is
schema "mrctx-snapshot", version 1 (docs/observability.md); ``mrctx
snapshot FILE`` shows a written one as tables.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import itertools
import json
import os
import stat
from typing import Any, Callable, Iterable, List, Optional, Sequence, TypedDict, Union

from . import _check, _lib
from ._errors import InvalidArgumentError, check

# ---- the JSON's shapes ------------------------------------------------------
# What snapshot(), read_snapshot() and merge_snapshots() return, for type
# checkers: plain dicts at run time (json.loads), read as d["member"].
# Members docs/observability.md calls "only where ..." or "absent ..." are
# in the total=False classes; a reader of version 1 may meet members added
# later, which these do not list. Byte counts, counts and ages are ints,
# addresses and streams "0x..." strings.


class SnapshotStats(TypedDict):
    """A tag's statistics on one device (the fields of mr_stats)."""

    current_bytes: int
    peak_bytes: int
    total_bytes: int
    current_count: int
    peak_count: int
    total_count: int
    failed_count: int


class SnapshotCache(TypedDict):
    """A cache(...)'s counters (the fields of mr_cache_stats)."""

    hits: int
    misses: int
    cross_stream: int
    bypassed: int
    cached_bytes: int
    cached_blocks: int
    trims: int


class _TrackedBlockRequired(TypedDict):
    ptr: str
    bytes: int
    alignment: int
    stream: str
    age_ns: int


class TrackedBlock(_TrackedBlockRequired, total=False):
    """One of a track(...)'s largest live blocks; ``frames`` (its call
    site, innermost first) where the tracker keeps stacks."""

    frames: List[str]


class SnapshotTrack(TypedDict):
    """A track(...)'s live blocks: how many, their bytes, the largest."""

    live_count: int
    live_bytes: int
    largest: List[TrackedBlock]


class _IdleFigures(TypedDict):
    idle_bytes: int
    reclaims: int
    reclaimed_bytes: int
    reclaim_ns: int


class IdleResource(_IdleFigures):
    """A resource that keeps idle memory, and what process-wide reclaims
    took back from it."""

    resource: str
    keep: bool


class SnapshotIdle(_IdleFigures):
    """The sums over a tag's resources that keep idle memory, and each."""

    resources: List[IdleResource]


class _TagDeviceRequired(TypedDict):
    device: int
    spec: str
    origin: str  # "default", "override", "file", "env"
    stats: SnapshotStats


class TagDevice(_TagDeviceRequired, total=False):
    """One tag on one device slot; the members below only where they
    apply: ``status`` and ``reason`` where the tag cannot allocate there,
    ``shares`` where it shares another tag's resource."""

    status: str
    reason: str
    shares: str
    cache: SnapshotCache
    idle: SnapshotIdle
    track: SnapshotTrack


class SnapshotTag(TypedDict):
    """One tag of a context, on each of its device slots."""

    tag: str
    devices: List[TagDevice]


class _SnapshotContextRequired(TypedDict):
    id: int
    library: str
    device_count: int
    tags: List[SnapshotTag]


class SnapshotContext(_SnapshotContextRequired, total=False):
    """A context; ``destroyed`` only in MRCTX_STATS_AT_EXIT's report, for
    an entry that stands for destroyed contexts."""

    destroyed: int


class _SnapshotPoolRequired(TypedDict):
    pool: str  # "device_current", "device_default", "pinned_default", ...
    kind: str  # "device", "pinned", "managed"
    device: int  # -1 for host and managed pools
    is_default: bool
    is_current: bool
    release_threshold: int
    reserved_bytes: int
    reserved_high: int
    used_bytes: int
    used_high: int


class SnapshotPool(_SnapshotPoolRequired, total=False):
    """One of the driver's pools; ``owner`` (library:tag) for an owned
    pool(...)."""

    owner: str


class SnapshotDevice(TypedDict):
    """A device's free and total memory, every process's use counted."""

    device: int
    free_bytes: int
    total_bytes: int


class _IdleMemoryRequired(IdleResource):
    device: int  # -1: host memory


class IdleMemory(_IdleMemoryRequired, total=False):
    """A resource of the process that keeps idle memory; ``owner`` (the
    first library:tag whose chain holds it) where a context's tag does."""

    owner: str


class OomReclaim(TypedDict):
    """The process-wide reclaim before an out-of-memory failure: what it
    took back (zeros where it shared another thread's), what stayed idle,
    how long it took."""

    shared: bool
    released_bytes: int
    resources: int
    kept_bytes: int
    ns: int


class _OutOfMemoryRequired(TypedDict):
    library: str
    tag: str
    device: int
    bytes: int
    stream: str
    message: str


class OutOfMemory(_OutOfMemoryRequired, total=False):
    """The allocation whose failure took the snapshot; ``reclaim`` where
    the process-wide reclaim ran first and did not make room."""

    reclaim: OomReclaim


class _SnapshotRequired(TypedDict):
    schema: str  # "mrctx-snapshot"
    version: int
    mrctx_version: str
    pid: int
    time_unix_ns: int
    time: str
    trigger: str  # "request" or "out_of_memory"
    contexts: List[SnapshotContext]
    pools: List[SnapshotPool]


class Snapshot(_SnapshotRequired, total=False):
    """A snapshot, schema "mrctx-snapshot" version 1: the members below
    only where docs/observability.md says they are there (``rank`` and its
    kin where the launcher set them, ``out_of_memory`` for the dump,
    ``devices`` where one was read)."""

    host: str
    rank: int
    local_rank: int
    world_size: int
    out_of_memory: OutOfMemory
    destroyed_not_kept: int
    devices: List[SnapshotDevice]
    idle_memory: List[IdleMemory]


class MergedOutOfMemory(TypedDict):
    """The allocation that failed, for a merged out-of-memory dump."""

    library: str
    tag: str
    device: int
    bytes: int


class _MergedProcessRequired(TypedDict):
    process: int
    host: str
    pid: int
    rank: Optional[int]
    local_rank: Optional[int]
    world_size: Optional[int]
    time_unix_ns: int
    time: str
    trigger: str
    mrctx_version: str


class MergedProcess(_MergedProcessRequired, total=False):
    """One input of merge_snapshots, ``process`` its index; None where
    the snapshot does not say. ``out_of_memory`` (library, tag, device,
    bytes) for a dump; ``worker`` (the Dask worker's address) in what
    mrctx.dask.snapshots returns."""

    out_of_memory: MergedOutOfMemory
    worker: str


class _MergedRowRequired(TypedDict):
    process: int
    host: str
    pid: int
    rank: Optional[int]
    device: int
    library: str
    tag: str
    spec: str
    stats: SnapshotStats


class MergedRow(_MergedRowRequired, total=False):
    """A tag on a device slot of one process that has allocated."""

    shares: str


class MergedDevice(TypedDict):
    """A host's device: its rows' sums and its memory (None where no
    snapshot from its host read it)."""

    host: str
    device: int
    current_bytes: int
    peak_bytes: int
    processes: int
    free_bytes: Optional[int]
    total_bytes: Optional[int]


class MergedTotal(TypedDict):
    """Sums over every row and input."""

    current_bytes: int
    processes: int
    hosts: int
    rows: int
    idle_slots: int


class MergedSnapshot(TypedDict):
    """Several snapshots as one view, schema "mrctx-snapshot-merged"
    version 1."""

    schema: str
    version: int
    processes: List[MergedProcess]
    rows: List[MergedRow]
    devices: List[MergedDevice]
    total: MergedTotal


def _take(largest_blocks: int) -> ctypes.c_void_p:
    options = _lib.sized(_lib.SnapshotOptions)
    options.largest_blocks = largest_blocks
    handle = ctypes.c_void_p()
    check(_lib.lib().mr_snapshot_take(ctypes.byref(options), ctypes.byref(handle)))
    return handle


def _render(handle: ctypes.c_void_p, writer: str) -> str:
    """The snapshot ``handle`` written with ``writer`` (mr_snapshot_write_json
    or _text) as text; the handle is destroyed, whatever happens."""
    library = _lib.lib()
    try:
        status, written = _lib.write_to_string(lambda stream: getattr(library, writer)(handle, stream))
    finally:
        library.mr_snapshot_destroy(handle)
    check(status)
    return written


def _write(largest_blocks: int, writer: str, who: str) -> str:
    largest_blocks = _check.size(who, "largest_blocks", largest_blocks)
    return _render(_take(largest_blocks), writer)


def snapshot_json(largest_blocks: int = 0) -> str:
    """A snapshot taken now, as its JSON text. ``largest_blocks``: how many
    of the largest live blocks to list per tag and device where a
    ``track(...)`` is in the chain (0: the library's default, 10)."""
    return _write(largest_blocks, "mr_snapshot_write_json", "snapshot_json")


def snapshot(largest_blocks: int = 0) -> Snapshot:
    """A snapshot taken now, as the parsed JSON: ``{"schema":
    "mrctx-snapshot", "version": 1, "contexts": [{"library": ..., "tags":
    [{"tag": ..., "devices": [{"device": 0, "spec": ..., "stats": {...},
    ...}]}]}], "pools": [...], ...}``: a Snapshot, whose members a type
    checker knows."""
    return json.loads(_write(largest_blocks, "mr_snapshot_write_json", "snapshot"))


def snapshot_text(largest_blocks: int = 0) -> str:
    """A snapshot taken now, as the tables ``mrctx snapshot`` prints."""
    return _write(largest_blocks, "mr_snapshot_write_text", "snapshot_text")


def write_snapshot(path: Union[str, "os.PathLike[str]"], largest_blocks: int = 0) -> None:
    """Take a snapshot now and write it to ``path`` as JSON, for ``mrctx
    snapshot PATH`` to show. The path is treated as every file mrctx writes
    (docs/observability.md, "What an output path may name"): a regular file
    there is replaced by a new one written beside it and renamed over it
    once whole (a failed write keeps the old one); a FIFO with a reader or
    a character device is written straight to and stays; a symbolic link
    to a file, a directory and a FIFO with no reader raise OSError, and the
    path is left as it was."""
    _check.path("write_snapshot", "path", path)
    text = _write(largest_blocks, "mr_snapshot_write_json", "write_snapshot")
    _write_output(path, text.encode("utf-8"), "write_snapshot")


# How many live blocks per tracked tag and device export_memory_viz lists
# by default: memory_viz draws every block it is given, so more than a
# snapshot's usual 10; a bound, since the snapshot makes room for that
# many per tracked slot before it walks the tracker.
MEMORY_VIZ_BLOCKS = 10000


def export_memory_viz(path: Union[str, "os.PathLike[str]"],
                      largest_blocks: int = MEMORY_VIZ_BLOCKS) -> None:
    """Take a snapshot now and write it to ``path`` as PyTorch's memory_viz
    reads it: the pickle ``torch.cuda.memory._dump_snapshot`` writes, which
    pytorch.org/memory_viz and ``torch.cuda._memory_viz`` open. Each live
    block of a tag with ``track(...)`` in its chain (the ``largest_blocks``
    largest per tag and device) is a segment of its own and an allocation
    in its device's timeline, with its call site under
    ``track(UP, stacks=N)``; each library:tag is a pool of its own
    (docs/observability.md). The library writes it
    (mr_snapshot_write_memory_viz), as ``mrctx export --format memory_viz
    SNAPSHOT.json`` does for a written snapshot. ``path`` is treated as
    write_snapshot treats it."""
    _check.path("export_memory_viz", "path", path)
    largest_blocks = _check.size("export_memory_viz", "largest_blocks", largest_blocks)
    handle = _take(largest_blocks)
    library = _lib.lib()
    try:
        status, data = _lib.write_to_bytes(
            lambda stream: library.mr_snapshot_write_memory_viz(handle, stream))
    finally:
        library.mr_snapshot_destroy(handle)
    check(status)
    _write_output(path, data, "export_memory_viz")


def _is_stream(mode: int) -> bool:
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _type_words(mode: int) -> str:
    for test, words in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"),
                        (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                        (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                        (stat.S_ISREG, "a regular file")):
        if test(mode):
            return words
    return "not a plain file"


def _refused(error: int, who: str, why: str, path) -> OSError:
    return OSError(error, f"mrctx: {who}: cannot write the file: {why}", os.fsdecode(path))


def _write_fd(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _write_direct(path, data: bytes, follow: bool, who: str) -> None:
    """Straight to the FIFO, device or socket at ``path``: never created,
    truncated or removed. The open does not wait for a FIFO's reader."""
    flags = os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(path, flags if follow else flags | os.O_NOFOLLOW)
    except OSError as e:
        if e.errno == errno.ENXIO and stat.S_ISFIFO(os.stat(path).st_mode):
            raise _refused(errno.ENXIO, who, "it is a FIFO with no reader (mrctx does not wait "
                           "for one)", path) from None
        raise
    try:
        if not _is_stream(os.fstat(fd).st_mode):
            raise _refused(errno.EAGAIN, who, "it changed while being opened; nothing written",
                           path)
        os.set_blocking(fd, True)  # a slow reader is waited for, no byte lost
        _write_fd(fd, data)
    finally:
        os.close(fd)


_serial = itertools.count()


def _write_output(path, data: bytes, who: str) -> None:
    """``data`` to ``path`` as lib/core/file_write.h writes an output."""
    try:
        there = os.lstat(path)
    except FileNotFoundError:
        there = None
    if there is not None and stat.S_ISLNK(there.st_mode):
        try:
            mode = os.stat(path).st_mode
        except OSError:
            mode = None
        if mode is None or not _is_stream(mode):
            raise _refused(errno.ELOOP, who, "it is a symbolic link to %s (mrctx does not write "
                           "through a link to a file nor replace the link: name the file itself)"
                           % ("nothing" if mode is None else _type_words(mode)), path)
        return _write_direct(path, data, True, who)
    if there is not None and _is_stream(there.st_mode):
        return _write_direct(path, data, False, who)
    if there is not None and not stat.S_ISREG(there.st_mode):
        raise _refused(errno.EISDIR if stat.S_ISDIR(there.st_mode) else errno.EINVAL, who,
                       "it is %s (mrctx writes a regular file, a FIFO, a character device or a "
                       "socket)" % _type_words(there.st_mode), path)
    # A new file beside it, created exclusively and never through a link,
    # renamed over the path once whole.
    base = os.fsencode(path)
    while True:
        temp = base + b".tmp-%d-%d" % (os.getpid(), next(_serial))
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW |
                         os.O_CLOEXEC, 0o666)
            break
        except FileExistsError:
            continue
    try:
        try:
            if there is not None:
                os.fchmod(fd, stat.S_IMODE(there.st_mode))
            _write_fd(fd, data)
        finally:
            os.close(fd)
        os.replace(temp, base)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def _read(path: Union[str, "os.PathLike[str]"], writer: str, who: str) -> str:
    """Read the snapshot file at ``path`` with mr_snapshot_read (which
    checks it against the schema) and write it back with ``writer``."""
    _check.path(who, "path", path)
    with open(path, "rb") as f:
        data = f.read(_SNAPSHOT_MAX + 1)
    return _parse(data, os.fsdecode(path), writer)


def _parse(data: bytes, where: str, writer: str) -> str:
    """``data`` read as a snapshot and written back with ``writer``;
    ``where`` names it in errors."""
    if len(data) > _SNAPSHOT_MAX:
        raise InvalidArgumentError(f"mrctx: {where}: larger than 256 MiB, which no snapshot is")
    handle = ctypes.c_void_p()
    check(_lib.lib().mr_snapshot_read(data, len(data), ctypes.byref(handle)), f"mrctx: {where}: ")
    return _render(handle, writer)


# The most a snapshot file may hold, as `mrctx snapshot` reads them.
_SNAPSHOT_MAX = 256 << 20


def read_snapshot(path: Union[str, "os.PathLike[str]"]) -> Snapshot:
    """Read a snapshot file -- the out-of-memory dump MRCTX_OOM_SNAPSHOT
    names, or what write_snapshot() or mr_snapshot_write_json wrote, in this
    process or another -- as the dict snapshot() returns. The file is
    checked against the schema as ``mrctx snapshot`` checks it: one that is
    not a snapshot raises InvalidArgumentError (a ValueError) naming the
    file and the line, column or member that is wrong; one that cannot be
    opened, OSError. ``python -m mrctx snapshot PATH`` prints it as tables."""
    return json.loads(_read(path, "mr_snapshot_write_json", "read_snapshot"))


# What merge_snapshots takes: a snapshot file's path, or a snapshot as
# snapshot() and read_snapshot() return it.
SnapshotSource = Union[str, bytes, "os.PathLike[str]", Snapshot, "dict[str, Any]"]


def _source_bytes(source: SnapshotSource, index: int, who: str) -> tuple[bytes, str]:
    """A source's JSON and the name errors give it: the file's path, or
    ``snapshots[i]`` for a dict."""
    if isinstance(source, dict):
        return json.dumps(source).encode("utf-8"), f"snapshots[{index}]"
    _check.path(who, f"snapshots[{index}]", source)
    with open(source, "rb") as f:
        return f.read(_SNAPSHOT_MAX + 1), os.fsdecode(source)


def _merged(sources: "Iterable[SnapshotSource]", writer: str, who: str) -> str:
    if isinstance(sources, (str, bytes, dict, os.PathLike)):
        raise _check._type_error(who, "snapshots", "a list of paths or snapshot dicts", sources)
    loaders = [functools.partial(_source_bytes, source, i, who) for i, source in enumerate(sources)]
    if not loaders:
        raise InvalidArgumentError(f"mrctx: {who}: no snapshots to merge")
    return _merge_loaded(loaders, writer)


def _merge_loaded(loaders: "Sequence[Callable[[], tuple[bytes, str]]]", writer: str) -> str:
    """Each loader's snapshot read (and checked) in turn, then all written
    with ``writer``: mr_snapshot_write_merged_*, or, for one snapshot,
    mr_snapshot_write_*. A loader gives the JSON and the name errors give
    it."""
    library = _lib.lib()
    handles = (ctypes.c_void_p * len(loaders))()
    try:
        for i, load in enumerate(loaders):
            data, where = load()
            if len(data) > _SNAPSHOT_MAX:
                raise InvalidArgumentError(f"mrctx: {where}: larger than 256 MiB, which no "
                                           "snapshot is")
            handle = ctypes.c_void_p()
            check(library.mr_snapshot_read(data, len(data), ctypes.byref(handle)), f"mrctx: {where}: ")
            handles[i] = handle.value
        if "merged" in writer:
            write = lambda stream: getattr(library, writer)(handles, len(loaders), stream)
        else:
            write = lambda stream: getattr(library, writer)(handles[0], stream)
        status, written = _lib.write_to_string(write)
    finally:
        for address in handles:  # each an int, or None where not read
            if address:
                library.mr_snapshot_destroy(address)
    check(status)
    return written


def merge_snapshots(snapshots: "Iterable[SnapshotSource]") -> MergedSnapshot:
    """Several processes' snapshots as one view -- each a file's path (what
    write_snapshot, the out-of-memory dump or mr_snapshot_write_json wrote,
    in any process on any host) or a dict snapshot() returned -- as ``mrctx
    snapshot A.json B.json --json`` gives it: ``{"schema":
    "mrctx-snapshot-merged", "version": 1, "processes": [...], "rows":
    [...], "devices": [...], "total": {...}}`` (docs/observability.md).
    ``rows`` has one entry per tag and device of each process that has
    allocated, ordered by host, rank, pid, device, library and tag, each
    with ``process`` (its index in ``snapshots``), ``host``, ``pid``,
    ``rank`` (None where unknown), ``device``, ``library``, ``tag``,
    ``spec`` and ``stats``; ``devices`` the totals per host and device with
    the device's free and total memory where read. A file that is not a
    snapshot raises InvalidArgumentError naming it; one that cannot be
    opened, OSError."""
    return json.loads(_merged(snapshots, "mr_snapshot_write_merged_json", "merge_snapshots"))


def merge_snapshots_text(snapshots: "Iterable[SnapshotSource]") -> str:
    """merge_snapshots as the tables ``mrctx snapshot A.json B.json``
    prints."""
    return _merged(snapshots, "mr_snapshot_write_merged_text", "merge_snapshots_text")


def read_snapshot_text(path: Union[str, "os.PathLike[str]"]) -> str:
    """A snapshot file as the tables ``mrctx snapshot PATH`` prints."""
    return _read(path, "mr_snapshot_write_text", "read_snapshot_text")

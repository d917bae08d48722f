"""Snapshots: who holds the memory, by library, tag and device.

A snapshot covers every live context of the process, whatever library (C,
C++ or Python) created it, and the CUDA driver's pools. Its JSON form is
schema "mrctx-snapshot", version 1 (docs/observability.md); ``mrctx
snapshot FILE`` shows a written one as tables.
"""

from __future__ import annotations

import ctypes
import json
import os
from typing import Callable, Iterable, Union

from . import _check, _lib
from ._errors import InvalidArgumentError, check


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


def snapshot(largest_blocks: int = 0) -> dict:
    """A snapshot taken now, as the parsed JSON: ``{"schema":
    "mrctx-snapshot", "version": 1, "contexts": [{"library": ..., "tags":
    [{"tag": ..., "devices": [{"device": 0, "spec": ..., "stats": {...},
    ...}]}]}], "pools": [...], ...}``."""
    return json.loads(_write(largest_blocks, "mr_snapshot_write_json", "snapshot"))


def snapshot_text(largest_blocks: int = 0) -> str:
    """A snapshot taken now, as the tables ``mrctx snapshot`` prints."""
    return _write(largest_blocks, "mr_snapshot_write_text", "snapshot_text")


def write_snapshot(path: Union[str, "os.PathLike[str]"], largest_blocks: int = 0) -> None:
    """Take a snapshot now and write it to ``path`` as JSON (replacing the
    file), for ``mrctx snapshot PATH`` to show."""
    _check.path("write_snapshot", "path", path)
    text = _write(largest_blocks, "mr_snapshot_write_json", "write_snapshot")
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)


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


def read_snapshot(path: Union[str, "os.PathLike[str]"]) -> dict:
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
SnapshotSource = Union[str, bytes, "os.PathLike[str]", dict]


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
    loaders = [(lambda i=i, source=source: _source_bytes(source, i, who))
               for i, source in enumerate(sources)]
    if not loaders:
        raise InvalidArgumentError(f"mrctx: {who}: no snapshots to merge")
    return _merge_loaded(loaders, writer)


def _merge_loaded(loaders: "list[Callable[[], tuple[bytes, str]]]", writer: str) -> str:
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
        for handle in handles:
            if handle:
                library.mr_snapshot_destroy(handle)
    check(status)
    return written


def merge_snapshots(snapshots: "Iterable[SnapshotSource]") -> dict:
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

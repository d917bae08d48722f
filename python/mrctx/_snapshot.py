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
from typing import Union

from . import _check, _lib
from ._context import _ok
from ._errors import error_for


def _take(largest_blocks: int) -> ctypes.c_void_p:
    options = _lib.sized(_lib.SnapshotOptions)
    options.largest_blocks = largest_blocks
    handle = ctypes.c_void_p()
    _ok(_lib.lib().mr_snapshot_take(ctypes.byref(options), ctypes.byref(handle)))
    return handle


def _write(largest_blocks: int, writer: str, who: str) -> str:
    largest_blocks = _check.size(who, "largest_blocks", largest_blocks)
    library = _lib.lib()
    handle = _take(largest_blocks)
    try:
        status, written = _lib.write_to_string(lambda stream: getattr(library, writer)(handle, stream))
    finally:
        library.mr_snapshot_destroy(handle)
    _ok(status)
    return written


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
        raise error_for(1, "MR_ERR_INVALID_ARGUMENT",
                        f"mrctx: {where}: larger than 256 MiB, which no snapshot is")
    library = _lib.lib()
    handle = ctypes.c_void_p()
    _ok(library.mr_snapshot_read(data, len(data), ctypes.byref(handle)), f"mrctx: {where}: ")
    try:
        status, written = _lib.write_to_string(lambda stream: getattr(library, writer)(handle, stream))
    finally:
        library.mr_snapshot_destroy(handle)
    _ok(status)
    return written


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


def read_snapshot_text(path: Union[str, "os.PathLike[str]"]) -> str:
    """A snapshot file as the tables ``mrctx snapshot PATH`` prints."""
    return _read(path, "mr_snapshot_write_text", "read_snapshot_text")

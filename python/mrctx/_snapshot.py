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

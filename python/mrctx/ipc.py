"""Pools shared between processes (docs/driver.md, "Sharing a pool between
processes"; the C API is <mrctx/ipc.h>).

A pool created with ``pool(kind=device, ipc=fd)`` can be exported and its
blocks handed to another process on the same host::

    # exporter
    pool = mrctx.resolve("pool(kind=device, ipc=fd)")
    buf = mrctx.Buffer(pool, 1 << 20)
    ... write buf ...
    queue.put(buf)             # pickling exports it (multiprocessing)
    done.wait()                # the receiver released its import
    buf.release()

    # importer (another process)
    buf = queue.get()          # an imported Buffer: same bytes, no copy
    ... read buf ...
    buf.release()              # frees the import and waits for the free
    done.set()

Pickling a Buffer (or a SharedPool, a SharedBuffer) passes the pool's file
descriptor with ``multiprocessing.reduction.DupFd``, so it travels through
multiprocessing's queues, pipes and process arguments; plain ``pickle`` to
a file cannot carry a descriptor. The exporting side synchronizes the
Buffer's stream before it exports, so the receiver reads finished writes.

The rules are the driver's: the receiver frees each import once (its
Buffer's release does, and waits until the free is done); the sender
frees its Buffer only after every receiver released theirs -- mrctx cannot
see another process, so that one is yours to keep (an Event, a reply on
the queue). An imported pool cannot allocate. Each process imports a pool
once and keeps it for its life (``imported_pools()`` lists them).
"""

from __future__ import annotations

import ctypes
import os
from typing import Any, Optional

from . import _check, _forksafe, _lib
from ._errors import ClosedError, check

_POOL_DATA_SIZE = ctypes.sizeof(_lib.IpcPoolData)
_PTR_SIZE = ctypes.sizeof(_lib.IpcPtr)


class SharedPool:
    """An exported pool: a file descriptor this object owns (closed by
    close() or when collected) and the 64 bytes of ``mr_ipc_pool_data``.
    Give it to :func:`import_pool` in another process; pickling it (with
    multiprocessing) sends a duplicate of the descriptor."""

    def __init__(self, fd: int, data: bytes):
        if not isinstance(fd, int) or fd < 0:
            raise _check.ArgumentError(f"mrctx: SharedPool: fd {fd!r} is not a file descriptor")
        if not isinstance(data, (bytes, bytearray)) or len(data) != _POOL_DATA_SIZE:
            raise _check.ArgumentError(f"mrctx: SharedPool: data must be the {_POOL_DATA_SIZE} "
                                       "bytes of mr_ipc_pool_data")
        self._fd: Optional[int] = fd
        self.data = bytes(data)

    @property
    def fd(self) -> int:
        if self._fd is None:
            raise ClosedError("mrctx: SharedPool: the descriptor is closed")
        return self._fd

    @property
    def pool_id(self) -> int:
        return _lib.IpcPoolData.from_buffer_copy(self.data).pool_id

    @property
    def exporter_pid(self) -> int:
        return _lib.IpcPoolData.from_buffer_copy(self.data).exporter_pid

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __reduce__(self) -> Any:
        from multiprocessing import reduction

        return (_rebuild_shared_pool, (reduction.DupFd(self.fd), self.data))

    def __repr__(self) -> str:
        state = "closed" if self._fd is None else f"fd {self._fd}"
        return f"<mrctx.SharedPool {self.pool_id:016x} of pid {self.exporter_pid}, {state}>"


def _rebuild_shared_pool(dup: Any, data: bytes) -> SharedPool:
    return SharedPool(dup.detach(), data)


class SharedBuffer:
    """An exported block: its pool (a SharedPool) and the 96 bytes of
    ``mr_ipc_ptr``. ``Buffer.import_(shared)`` maps it in another process."""

    def __init__(self, pool: SharedPool, record: bytes):
        if not isinstance(pool, SharedPool):
            raise _check._type_error("SharedBuffer", "pool", "an mrctx.SharedPool", pool)
        if not isinstance(record, (bytes, bytearray)) or len(record) != _PTR_SIZE:
            raise _check.ArgumentError(f"mrctx: SharedBuffer: record must be the {_PTR_SIZE} "
                                       "bytes of mr_ipc_ptr")
        self.pool = pool
        self.record = bytes(record)

    @property
    def size(self) -> int:
        return _lib.IpcPtr.from_buffer_copy(self.record).bytes

    def __reduce__(self) -> Any:
        return (SharedBuffer, (self.pool, self.record))

    def __repr__(self) -> str:
        return f"<mrctx.SharedBuffer {self.size} bytes of {self.pool!r}>"


def export_pool(resource: Any) -> SharedPool:
    """A SharedPool for ``resource``, a pool(kind=device, ipc=fd) resource
    itself (not an adaptor over it). UnsupportedError for a pool made
    without ipc=fd."""
    fd = ctypes.c_int(-1)
    data = _lib.sized(_lib.IpcPoolData)
    status = _lib.lib().mr_ipc_pool_export(resource.handle, ctypes.byref(fd), ctypes.byref(data))
    check(status, f"mrctx: {resource._what}: export_pool: ")
    return SharedPool(fd.value, bytes(data))


# pool ID -> the imported Resource: one import per pool per process.
_imported: dict[int, Any] = {}
_imported_lock = _forksafe.lock()


def import_pool(shared: SharedPool) -> Any:
    """The Resource over the pool ``shared`` describes, imported into this
    process once (a later call for the same pool returns the same one). It
    cannot allocate; it frees the blocks imported through it. Closes
    ``shared``'s descriptor."""
    from ._context import Resource

    if not isinstance(shared, SharedPool):
        raise _check._type_error("import_pool", "shared", "an mrctx.SharedPool (from "
                                 "Resource.export_pool in another process)", shared)
    try:
        with _imported_lock:
            resource = _imported.get(shared.pool_id)
            if resource is not None and not resource.closed:
                return resource
            data = _lib.IpcPoolData.from_buffer_copy(shared.data)
            handle = ctypes.c_void_p()
            status = _lib.lib().mr_ipc_pool_import(shared.fd, ctypes.byref(data),
                                                   ctypes.byref(handle))
            check(status, "mrctx: import_pool: ")
            what = f"pool {shared.pool_id:016x} imported from pid {shared.exporter_pid}"
            resource = Resource(handle.value or 0, what)  # NULL (None) is refused as 0
            _imported[shared.pool_id] = resource
            return resource
    finally:
        shared.close()


def imported_pools() -> list[Any]:
    """The pools this process imported (Resources), oldest first."""
    with _imported_lock:
        return list(_imported.values())


def export_block(resource: Any, ptr: int, size: int) -> bytes:
    """The 96-byte ``mr_ipc_ptr`` of the block at ``ptr`` of ``resource``."""
    record = _lib.IpcPtr()
    status = _lib.lib().mr_ipc_ptr_export(resource.handle, ptr, size, ctypes.byref(record))
    check(status, f"mrctx: {resource._what}: export: ")
    return bytes(record)


def import_block(resource: Any, record: bytes) -> int:
    """Map the block ``record`` describes; its address."""
    rec = _lib.IpcPtr.from_buffer_copy(record)
    ptr = ctypes.c_void_p()
    status = _lib.lib().mr_ipc_ptr_import(resource.handle, ctypes.byref(rec), ctypes.byref(ptr))
    check(status, f"mrctx: {resource._what}: import: ")
    return ptr.value or 0


def imports_live(resource: Any) -> int:
    """How many blocks imported through ``resource`` are not yet freed."""
    live = ctypes.c_size_t()
    status = _lib.lib().mr_ipc_imports_live(resource.handle, ctypes.byref(live))
    check(status, f"mrctx: {resource._what}: imports_live: ")
    return live.value

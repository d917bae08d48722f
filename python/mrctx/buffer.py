"""mrctx.Buffer: memory that knows its size, its stream and its resource.

``Resource.allocate`` returns a bare address, and the caller must give the
same size (and alignment, and the right stream) back to ``deallocate``; a
wrong size is refused where a resource checks it, and elsewhere frees the
wrong amount. A Buffer keeps all of that::

    buf = mrctx.Buffer((ctx, "temp"), 1 << 20, stream=s)   # or a Resource
    kernel(buf.ptr, buf.size, stream=s)
    buf.release()            # freed on s; or `with mrctx.Buffer(...) as buf:`

It is freed once: by release() (close() is the same), at the end of a
``with`` block, or when it is garbage-collected. After that every
attribute but ``closed`` raises ClosedError.

Frameworks take it without a copy: ``__cuda_array_interface__`` (version 3)
where the memory is device-accessible (CuPy, Numba, PyTorch's
``torch.as_tensor``), and DLPack (``__dlpack__``/``__dlpack_device__``) for
every kind: ``torch.from_dlpack(buf)``, ``cupy.from_dlpack(buf)``,
``numpy.from_dlpack(buf)`` for host memory. Each is a one-dimensional array
of ``size`` bytes (uint8). A DLPack export holds the Buffer alive until the
consumer lets it go, and release() refuses to free while one does.
"""

from __future__ import annotations

import ctypes
import warnings
from typing import TYPE_CHECKING, Any, Optional

from . import _check, _forksafe, _lib
from ._context import Context, Props, Resource
from ._errors import ClosedError, StateError

if TYPE_CHECKING:  # ipc imports this module's neighbours
    from .ipc import SharedBuffer  # noqa: F401

# DLDeviceType (dlpack.h) per memory kind.
DL_CPU, DL_CUDA, DL_CUDA_HOST, DL_CUDA_MANAGED = 1, 2, 3, 13
_DEVICE_TYPES = {"host": DL_CPU, "device": DL_CUDA, "pinned": DL_CUDA_HOST, "managed": DL_CUDA_MANAGED}

# ---- DLPack's structs (dlpack.h, v1.0 ABI) ------------------------------------


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


# void (*deleter)(DLManagedTensor *self), and the versioned one's alike.
_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", _Deleter)]


class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", _DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", _Deleter), ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


_DL_UINT = 1  # kDLUInt
_CAPSULE = b"dltensor"
_CAPSULE_VERSIONED = b"dltensor_versioned"

# Live exports: the managed tensor's address -> (the struct, its shape and
# strides, the Buffer). The deleter drops the entry, and with it the
# Buffer's last reference from DLPack.
_exports: dict[int, tuple[Any, ...]] = {}
_exports_lock = _forksafe.lock()


@_Deleter
def _dlpack_deleter(address: Optional[int]) -> None:
    """DLManagedTensor.deleter: the consumer is done (or the capsule was
    never consumed). May run on any thread; ctypes takes the GIL."""
    if address is None:
        return
    with _exports_lock:
        entry = _exports.pop(address, None)
    if entry is not None:
        entry[-1]._export_done()


# The C API's capsule calls, as function objects of this module's own
# (ctypes.pythonapi["name"] makes a new one; ctypes.pythonapi.name is shared
# with whoever else sets its argtypes).
_PyCapsule_Destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_capsule_new = ctypes.pythonapi["PyCapsule_New"]
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _PyCapsule_Destructor]
_capsule_is_valid = ctypes.pythonapi["PyCapsule_IsValid"]
_capsule_is_valid.restype = ctypes.c_int
_capsule_is_valid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_capsule_pointer = ctypes.pythonapi["PyCapsule_GetPointer"]
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]


def _capsule_destructor_for(name: bytes) -> Any:
    @_PyCapsule_Destructor
    def destructor(capsule: Optional[int]) -> None:
        # A consumer that took the tensor renamed the capsule ("used_...")
        # and calls the deleter itself; one never consumed is deleted here.
        if capsule and _capsule_is_valid(capsule, name):
            _dlpack_deleter(_capsule_pointer(capsule, name))

    return destructor


_DESTRUCTORS = {name: _capsule_destructor_for(name) for name in (_CAPSULE, _CAPSULE_VERSIONED)}


def _stream_owner(stream: Any) -> Any:
    """The stream object a Buffer keeps alive while it may still free on
    its handle: a framework's stream (CuPy's, cuda.core's) destroys the
    CUDA stream when collected, and a free on a destroyed stream fails.
    None for a bare handle, whose lifetime is the caller's."""
    return None if stream is None or isinstance(stream, int) else stream


def _cai_stream(stream: int) -> int:
    """A stream handle as __cuda_array_interface__ says it: 0 (the legacy
    default stream) is ambiguous there and written 1."""
    return 1 if stream == 0 else stream


class Buffer:
    """``size`` bytes from a resource, freed on its stream when released.

    ``source`` is a Resource, or a ``(context, tag)`` pair (the tag's
    resource on ``device``, None: the calling thread's current device). The
    Buffer holds its own reference to the resource, so it stays valid after
    the Resource or the context is closed. ``stream`` is as
    Resource.allocate takes it (None or 0: the legacy default stream), or
    a framework's stream object, which the Buffer keeps alive until it is
    freed on it; ``alignment`` 0 is 256 bytes. Raises what allocate raises
    (OutOfMemoryError, ...).
    """

    def __init__(self, source: Any, size: int, stream: Any = None, *, alignment: int = 0,
                 device: Optional[int] = None):
        self._ptr: Optional[int] = None
        self._lock = _forksafe.lock()
        self._exports = 0
        who = "Buffer"
        size = _check.size(who, "size", size)
        alignment = _check.alignment(who, "alignment", alignment)
        stream_handle = _check.stream(who, "stream", stream)
        if isinstance(source, Resource):
            if device is not None:
                raise _check.ArgumentError("mrctx: Buffer: device= is for a (context, tag) "
                                           "source; a Resource has its own device")
            handle = source.handle  # ClosedError for a closed Resource
            _lib.lib().mr_resource_retain(handle)
            resource = Resource(handle, source._what)
        elif isinstance(source, tuple) and len(source) == 2 and isinstance(source[0], Context):
            resource = source[0].get_resource(source[1], device)
        else:
            raise _check._type_error(who, "source", "an mrctx.Resource or a (Context, tag) "
                                     "pair", source)
        try:
            props = resource.props
            ptr = resource.allocate(size, alignment, stream_handle)
        except BaseException:
            resource.close()
            raise
        self._resource = resource
        self._props = props
        self._size = size
        self._alignment = alignment
        self._stream = stream_handle
        self._stream_owner = _stream_owner(stream)
        self._imported = False
        self._ptr = ptr

    # ---- lifetime -----------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._ptr is None

    def _live(self) -> int:
        ptr = self._ptr
        if ptr is None:
            raise ClosedError("mrctx: the Buffer is released")
        return ptr

    def release(self) -> None:
        """Free the memory on the Buffer's stream (with its size and
        alignment) and drop its reference to the resource. Idempotent.
        StateError while a DLPack export still holds the Buffer; a failed
        free raises what deallocate raises and leaves the Buffer released
        (the memory is then lost, never freed twice)."""
        with self._lock:
            if self._ptr is None:
                return
            if self._exports:
                raise StateError(f"mrctx: Buffer of {self._size} bytes: {self._exports} DLPack "
                                 "export(s) still use it; release it after the consumer lets "
                                 "go (or drop the Buffer and let them keep it alive)")
            ptr, self._ptr = self._ptr, None
        resource = self._resource
        try:
            resource.deallocate(ptr, self._size, self._alignment, self._stream)
            # An import's free must be done before its exporter frees
            # (docs/driver.md): it is, when release() returns.
            if self._imported:
                resource.synchronize(self._stream)
        finally:
            resource.close()
            self._stream_owner = None

    close = release

    # ---- other processes (mrctx.ipc) ---------------------------------------------

    def export(self) -> "SharedBuffer":
        """This Buffer for another process: a SharedBuffer (its pool's
        descriptor and the block's record) that ``Buffer.import_`` maps
        there without a copy. The resource must be a ``pool(kind=device,
        ipc=fd)`` itself. The Buffer's stream is synchronized first, so the
        other process reads finished writes. Keep this Buffer until every
        importer released its import (docs/driver.md). Pickling a Buffer
        through multiprocessing exports it."""
        from . import ipc

        ptr = self._live()
        if self._imported:
            raise StateError("mrctx: Buffer.export: this Buffer is itself an import; only "
                             "its exporter may share it")
        pool = ipc.export_pool(self._resource)
        try:
            record = ipc.export_block(self._resource, ptr, self._size)
            # After the export, which made the pool's device's context
            # current on this thread (a multiprocessing feeder thread has
            # none), so that the default stream waited for is the one the
            # Buffer's work went to.
            self._resource.synchronize(self._stream)
        except BaseException:
            pool.close()
            raise
        return ipc.SharedBuffer(pool, record)

    @classmethod
    def import_(cls, shared: "SharedBuffer", stream: Any = None) -> "Buffer":
        """The block ``shared`` describes (from ``Buffer.export`` in
        another process), mapped here: a Buffer of the same size over the
        same memory, whose release frees the import on ``stream`` and waits
        for that free. Its pool is imported once per process
        (``mrctx.import_pool``)."""
        from . import ipc

        if not isinstance(shared, ipc.SharedBuffer):
            raise _check._type_error("Buffer.import_", "shared", "an mrctx.SharedBuffer",
                                     shared)
        stream_handle = _check.stream("Buffer.import_", "stream", stream)
        pool = ipc.import_pool(shared.pool)
        handle = pool.handle
        _lib.lib().mr_resource_retain(handle)
        resource = Resource(handle, pool._what)
        try:
            props = resource.props
            ptr = ipc.import_block(resource, shared.record)
        except BaseException:
            resource.close()
            raise
        self = cls.__new__(cls)
        self._lock = _forksafe.lock()
        self._exports = 0
        self._resource = resource
        self._props = props
        self._size = shared.size
        self._alignment = 0
        self._stream = stream_handle
        self._stream_owner = _stream_owner(stream)
        self._imported = True
        self._ptr = ptr
        return self

    @property
    def imported(self) -> bool:
        """True for a Buffer imported from another process."""
        self._live()
        return self._imported

    def __reduce__(self) -> Any:
        return (Buffer.import_, (self.export(),))

    def __enter__(self) -> "Buffer":
        self._live()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __del__(self) -> None:
        if getattr(self, "_ptr", None) is None:
            return
        try:
            self.release()
        except Exception as error:  # not raisable from here: say so
            try:
                warnings.warn(f"mrctx: a Buffer could not be freed when it was collected: {error}",
                              ResourceWarning, stacklevel=1)
            except Exception:  # interpreter shutdown
                pass

    def __repr__(self) -> str:
        if self._ptr is None:
            return "<mrctx.Buffer released>"
        return (f"<mrctx.Buffer {self._size} bytes at {self._ptr:#x} on stream "
                f"{self._stream:#x} from {self._resource._what}>")

    # ---- what it is ----------------------------------------------------------

    @property
    def ptr(self) -> int:
        """The address (0 for size 0)."""
        return self._live()

    @property
    def size(self) -> int:
        """The size in bytes, as allocated."""
        self._live()
        return self._size

    nbytes = size

    def __len__(self) -> int:
        return self.size

    @property
    def alignment(self) -> int:
        self._live()
        return self._alignment

    @property
    def stream(self) -> int:
        """The stream it was allocated on and will be freed on, as a handle."""
        self._live()
        return self._stream

    def set_stream(self, stream: Any) -> None:
        """Free on ``stream`` instead. The caller orders it after the last
        use of the memory on the old stream (an event, a synchronize)."""
        handle = _check.stream("Buffer.set_stream", "stream", stream)
        with self._lock:
            self._live()
            self._stream = handle
            self._stream_owner = _stream_owner(stream)

    @property
    def resource(self) -> Resource:
        """The resource it came from (the Buffer's own reference: do not
        close it)."""
        self._live()
        return self._resource

    @property
    def props(self) -> Props:
        """The resource's properties: kind, device, accessibility."""
        self._live()
        return self._props

    # ---- frameworks ----------------------------------------------------------

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """Version 3 of the CUDA Array Interface, for device-accessible
        memory (device, pinned, managed); an AttributeError for host memory,
        so that frameworks see it has none. ``stream`` is the Buffer's
        stream (1 for the legacy default stream) where the resource is
        stream-ordered: the consumer orders its work after it. None where
        the memory was ready when allocated."""
        ptr = self._live()
        if not self._props.device_accessible:
            raise AttributeError(f"mrctx: a Buffer of {self._props.kind} memory is not "
                                 "device-accessible: it has no __cuda_array_interface__ (use "
                                 "DLPack)")
        return {
            "version": 3,
            "shape": (self._size,),
            "typestr": "|u1",
            "data": (ptr, False),
            "strides": None,
            "descr": [("", "|u1")],
            "stream": _cai_stream(self._stream) if self._props.stream_ordered else None,
        }

    def __dlpack_device__(self) -> tuple[int, int]:
        """(DLDeviceType, device id): kDLCPU (1) for host memory, kDLCUDA (2)
        for device memory, kDLCUDAHost (3) for pinned, kDLCUDAManaged (13)
        for managed."""
        self._live()
        kind = _DEVICE_TYPES.get(self._props.kind, DL_CPU)
        device = self._props.device if self._props.device >= 0 else 0
        return kind, (0 if kind in (DL_CPU, DL_CUDA_HOST) else device)

    def __dlpack__(self, *, stream: Any = None, max_version: Optional[tuple[int, int]] = None,
                   dl_device: Optional[tuple[int, int]] = None,
                   copy: Optional[bool] = None) -> Any:
        """A DLPack capsule of the bytes, without a copy: "dltensor_versioned"
        (DLPack 1.0) when the consumer's ``max_version`` is 1.0 or later,
        else the legacy "dltensor". ``stream``: the consumer's stream, as the
        DLPack protocol says (None: the legacy default stream for CUDA; -1:
        no synchronization); where it is not the Buffer's stream, the
        Buffer's stream is synchronized first. ``dl_device=(1, 0)`` (kDLCPU)
        is granted for pinned and managed memory too, without a copy: the
        CPU reads it where it is, once the Buffer's stream is synchronized.
        The export keeps the Buffer alive until the consumer calls the
        deleter."""
        ptr = self._live()
        if copy is True:
            raise BufferError("mrctx: Buffer.__dlpack__: copy=True: a Buffer exports its own "
                              "memory and does not copy")
        device = self.__dlpack_device__()
        if dl_device is not None and tuple(dl_device) != device:
            if tuple(dl_device) != (DL_CPU, 0) or not self._props.host_accessible:
                raise BufferError(f"mrctx: Buffer.__dlpack__: the memory is on DLPack device "
                                  f"{device}, not {tuple(dl_device)}, and a Buffer does not "
                                  "copy")
            device = (DL_CPU, 0)  # pinned or managed, asked for as the CPU's
        if device[0] == DL_CPU:
            if stream is not None and stream != -1:
                raise BufferError(f"mrctx: Buffer.__dlpack__: stream={stream!r} for host memory "
                                  "(only None)")
            if self._props.stream_ordered and stream != -1:  # the CPU has no stream to wait on
                self._resource.synchronize(self._stream)
        elif self._props.stream_ordered and stream != -1:
            theirs = 0 if stream is None else _check.stream("Buffer.__dlpack__", "stream",
                                                            stream)
            if _cai_stream(theirs) != _cai_stream(self._stream):
                self._resource.synchronize(self._stream)
        versioned = max_version is not None and tuple(max_version) >= (1, 0)
        shape = (ctypes.c_int64 * 1)(self._size)
        strides = (ctypes.c_int64 * 1)(1)
        tensor = _DLTensor(data=ptr, device=_DLDevice(*device), ndim=1,
                           dtype=_DLDataType(_DL_UINT, 8, 1),
                           shape=ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64)),
                           strides=ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64)),
                           byte_offset=0)
        if versioned:
            managed: Any = _DLManagedTensorVersioned(version=_DLPackVersion(1, 0),
                                                     manager_ctx=None, deleter=_dlpack_deleter,
                                                     flags=0, dl_tensor=tensor)
            name = _CAPSULE_VERSIONED
        else:
            managed = _DLManagedTensor(dl_tensor=tensor, manager_ctx=None,
                                       deleter=_dlpack_deleter)
            name = _CAPSULE
        address = ctypes.addressof(managed)
        with self._lock:
            self._live()
            self._exports += 1
        with _exports_lock:
            _exports[address] = (managed, shape, strides, self)
        try:
            return _capsule_new(address, name, _DESTRUCTORS[name])
        except BaseException:
            _dlpack_deleter(address)
            raise

    def _export_done(self) -> None:
        with self._lock:
            self._exports -= 1


def live_exports() -> int:
    """How many DLPack exports of Buffers consumers still hold (tests)."""
    with _exports_lock:
        return len(_exports)

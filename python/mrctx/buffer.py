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
of ``size`` bytes (uint8).

The memory lives while any view of it does. A view holds the Buffer: a
DLPack export until the consumer calls its deleter, and a CUDA Array
Interface consumer for as long as its array lives (CuPy's ``cupy.asarray``
keeps it as the memory's owner, Numba's ``cuda.as_cuda_array`` likewise,
``torch.as_tensor`` in the tensor's deleter). release() after a view was
made therefore does not free at once: the Buffer is released for its owner
(``closed``), and the memory goes when the Buffer is collected -- when the
views and the owner's own names have let it go. How many views of the
interface live cannot be counted, so once ``__cuda_array_interface__`` was
read that is the rule even after they are gone: ``del buf`` frees then.
"""

from __future__ import annotations

import ctypes
import glob
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from . import _check, _forksafe, _lib
from ._context import Context, Props, Resource
from ._errors import ClosedError, LibraryNotFoundError, StateError

if TYPE_CHECKING:  # ipc imports this module's neighbours
    from .ipc import SharedBuffer  # noqa: F401

# DLDeviceType (dlpack.h) per memory kind.
DL_CPU, DL_CUDA, DL_CUDA_HOST, DL_CUDA_MANAGED = 1, 2, 3, 13
_DEVICE_TYPES = {"host": DL_CPU, "device": DL_CUDA, "pinned": DL_CUDA_HOST, "managed": DL_CUDA_MANAGED}

# ---- DLPack's capsules, made in C (_dlpack.c) -------------------------------------

_CAPSULE = b"dltensor"
_CAPSULE_VERSIONED = b"dltensor_versioned"


class _DLPackPython(ctypes.Structure):
    """The CPython calls _dlpack.c makes (mrctx_dlpack_python there), as
    function pointers: the module links no libpython."""
    _fields_ = [("size", ctypes.c_size_t)] + [(name, ctypes.c_void_p) for name in (
        "capsule_is_valid", "capsule_get_pointer", "gil_ensure", "gil_release", "err_fetch",
        "err_restore", "incref", "decref", "is_initialized")]


_PYTHON_CALLS = ("PyCapsule_IsValid", "PyCapsule_GetPointer", "PyGILState_Ensure",
                 "PyGILState_Release", "PyErr_Fetch", "PyErr_Restore", "Py_IncRef", "Py_DecRef",
                 "Py_IsInitialized")

_dlpack_lock = _forksafe.lock()
_dlpack_module: Optional[ctypes.PyDLL] = None
# Its capsule destructor's address, set with it under _dlpack_lock.
_dlpack_destructor = ctypes.c_void_p()


def _dlpack_path() -> str:
    """Where _dlpack.so is: next to the package (installed), or in the
    build tree libmrctx was loaded from."""
    here = sorted(glob.glob(str(Path(__file__).resolve().parent / "_dlpack*.so")))
    if here:
        return here[0]
    build = Path(_lib.library_path()).resolve().parent.parent / "python" / "_dlpack.so"
    if build.exists():
        return str(build)
    raise LibraryNotFoundError("mrctx: Buffer.__dlpack__: _dlpack.so (the package's DLPack "
                               "module) is not next to the package nor in the build tree; "
                               "reinstall the package")


def _dlpack() -> ctypes.PyDLL:
    """The loaded DLPack module. PyDLL: its calls hold the GIL, as the
    references it takes need."""
    global _dlpack_module
    with _dlpack_lock:
        if _dlpack_module is None:
            path = _dlpack_path()
            try:
                module = ctypes.PyDLL(path)
            except OSError as error:
                raise LibraryNotFoundError(f"mrctx: cannot load {path}: {error}") from error
            module.mrctx_dlpack_init.argtypes = [ctypes.POINTER(_DLPackPython)]
            module.mrctx_dlpack_init.restype = ctypes.c_int
            module.mrctx_dlpack_export.argtypes = [
                ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int,
                ctypes.py_object, ctypes.POINTER(ctypes.c_long)]
            module.mrctx_dlpack_export.restype = ctypes.c_void_p
            module.mrctx_dlpack_discard.argtypes = [ctypes.c_void_p, ctypes.c_int]
            module.mrctx_dlpack_discard.restype = None
            module.mrctx_dlpack_live.argtypes = [ctypes.POINTER(ctypes.c_long)]
            module.mrctx_dlpack_live.restype = ctypes.c_long
            calls = _DLPackPython(ctypes.sizeof(_DLPackPython), *(
                ctypes.cast(ctypes.pythonapi[name], ctypes.c_void_p).value
                for name in _PYTHON_CALLS))
            if module.mrctx_dlpack_init(ctypes.byref(calls)) != 0:
                raise LibraryNotFoundError(f"mrctx: {path} is not the package's own version")
            _dlpack_destructor.value = ctypes.cast(module.mrctx_dlpack_capsule_destructor,
                                                   ctypes.c_void_p).value
            _dlpack_module = module
        return _dlpack_module


# PyCapsule_New, as a function object of this module's own (ctypes.pythonapi
# ["name"] makes a new one; ctypes.pythonapi.name is shared with whoever else
# sets its argtypes). Its destructor is _dlpack.c's.
_capsule_new = ctypes.pythonapi["PyCapsule_New"]
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


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
        self._pending: Optional[int] = None
        self._lock = _forksafe.lock()
        self._views_unknown = False
        self._dlpack_live = ctypes.c_long(0)
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
            resource = Resource(handle, source._what, source._place)
            resource._stack_depth = source._stack_depth  # the same chain
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
        Where a view may still use the memory (a DLPack export not let go,
        or ``__cuda_array_interface__`` read at all), the Buffer is
        released all the same (``closed``) but the memory is freed only
        when the Buffer is collected, which no view's reference allows
        before the view is gone. A failed free raises what deallocate
        raises and leaves the Buffer released (the memory is then lost,
        never freed twice); one at collection is a ResourceWarning."""
        with self._lock:
            if self._ptr is None:
                return
            ptr, self._ptr = self._ptr, None
            if self._views_unknown or self._dlpack_live.value > 0:
                self._pending = ptr  # __del__ frees it
                return
        self._free(ptr)

    def _free(self, ptr: int) -> None:
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
        self._pending = None
        self._views_unknown = False
        self._dlpack_live = ctypes.c_long(0)
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
        # Nothing refers to the Buffer any more, views included: what
        # release() left for this point, or the memory itself, is freed.
        ptr = getattr(self, "_ptr", None)
        if ptr is None:
            ptr = getattr(self, "_pending", None)
        if ptr is None:
            return
        self._ptr = self._pending = None
        try:
            self._free(ptr)
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

    def record_stream(self, stream: Any) -> None:
        """Work on ``stream`` (another stream than the Buffer's) uses the
        memory: when the Buffer is freed, the memory is not handed out again
        until the work queued on ``stream`` before the free has finished
        (``mr_record_stream``). A stream object (CuPy's, PyTorch's,
        cuda.core's) or a handle; nothing to do for an empty Buffer."""
        handle = _check.stream("Buffer.record_stream", "stream", stream)
        with self._lock:
            self._live()
            if self._ptr:
                self._resource.record_stream(self._ptr, handle)

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
        the memory was ready when allocated.

        The consumer keeps the Buffer as its array's owner, and the memory
        lives while the Buffer does: from this read on, release() leaves
        the free to the Buffer's collection (the class's docstring)."""
        if not self._props.device_accessible:
            self._live()
            raise AttributeError(f"mrctx: a Buffer of {self._props.kind} memory is not "
                                 "device-accessible: it has no __cuda_array_interface__ (use "
                                 "DLPack)")
        with self._lock:
            ptr = self._live()
            self._views_unknown = True
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
        The export keeps the Buffer, and so the memory, alive until the
        consumer calls the deleter (release() meanwhile leaves the free to
        the Buffer's collection). The capsule, its destructor and the
        deleter are C (_dlpack.c): a consumer may drop the capsule with an
        exception pending or call the deleter from any thread."""
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
        module = _dlpack()
        with self._lock:
            self._live()
            managed = module.mrctx_dlpack_export(ptr, device[0], device[1], self._size,
                                                 int(versioned), self, self._dlpack_live)
        if not managed:
            raise MemoryError("mrctx: Buffer.__dlpack__: no memory for the DLPack tensor")
        try:
            return _capsule_new(managed, _CAPSULE_VERSIONED if versioned else _CAPSULE,
                                _dlpack_destructor)
        except BaseException:
            module.mrctx_dlpack_discard(managed, int(versioned))
            raise


def live_exports() -> int:
    """How many DLPack exports of Buffers consumers still hold (tests)."""
    if _dlpack_module is None:
        return 0
    return int(_dlpack_module.mrctx_dlpack_live(None))

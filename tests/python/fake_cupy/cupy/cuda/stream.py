"""cupy.cuda.stream of the stand-in: the current stream per thread (a
handle; 0 is the legacy default stream), and get_current_stream_ptr for C
in __pyx_capi__, as CuPy's Cython module exports it."""

import ctypes
import threading

_local = threading.local()
CALLS = [0]  # how many times C asked for the current stream


class Stream:
    """A stream handle; ``with stream:`` makes it current on this thread."""

    def __init__(self, ptr: int = 0):
        self.ptr = ptr

    def __enter__(self):
        self._saved = getattr(_local, "stream", None)
        _local.stream = self
        return self

    def __exit__(self, *exc):
        _local.stream = self._saved

    def synchronize(self) -> None:
        pass


ExternalStream = Stream
_null = Stream(0)


def get_current_stream(device_id: int = -1) -> Stream:
    return getattr(_local, "stream", None) or _null


@ctypes.CFUNCTYPE(ctypes.c_ssize_t)
def _get_current_stream_ptr() -> int:
    CALLS[0] += 1
    return get_current_stream().ptr


SIGNATURE = b"intptr_t (void)"


def capsule(address: int, name: bytes):
    """A PyCapsule over address named name (kept alive by the module)."""
    new = ctypes.pythonapi["PyCapsule_New"]  # a function object of its own
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    new.restype = ctypes.py_object
    return new(address, name, None)


__pyx_capi__ = {
    "get_current_stream_ptr": capsule(
        ctypes.cast(_get_current_stream_ptr, ctypes.c_void_p).value, SIGNATURE),
}

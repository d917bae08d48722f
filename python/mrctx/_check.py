"""Argument checks: every public function and method checks its arguments
here before it calls into libmrctx.

ctypes converts silently where C would not: an int past its C type wraps
(``allocate(2**64 + 16)`` asked for 16 bytes, ``device=2**32`` was device
0, a size of -1 was 2**64 - 1), and a str is cut at its first NUL
(``env_var="PATH\\0X"`` read $PATH); other mistakes surfaced as
AttributeError, ctypes.ArgumentError or UnicodeEncodeError. Here they are
refused first: ArgumentTypeError (a TypeError) for a wrong type,
ArgumentError (a ValueError) for a value C cannot take, each naming the
call, the argument and the value.

Internal: ``who`` is the call as the user wrote it ("Resource.allocate").
"""

from __future__ import annotations

import ctypes
import operator
import os
from typing import Any, Optional

from ._errors import ArgumentError, ArgumentTypeError

SIZE_MAX = (1 << (8 * ctypes.sizeof(ctypes.c_size_t))) - 1
POINTER_MAX = (1 << (8 * ctypes.sizeof(ctypes.c_void_p))) - 1
INT_MAX = (1 << (8 * ctypes.sizeof(ctypes.c_int) - 1)) - 1

_SIZE_MAX_TEXT = f"2**{8 * ctypes.sizeof(ctypes.c_size_t)} - 1"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _type_error(who: str, name: str, wanted: str, value: Any) -> ArgumentTypeError:
    return ArgumentTypeError(f"mrctx: {who}: {name} must be {wanted}, not "
                             f"{type(value).__name__} ({_shown(value)})")


def integer(who: str, name: str, value: Any) -> int:
    """``value`` as an int: an int or anything with __index__ (a NumPy
    integer), never a bool, a float or a str."""
    if isinstance(value, bool):
        raise _type_error(who, name, "an int", value)
    try:
        return operator.index(value)
    except TypeError:
        raise _type_error(who, name, "an int", value) from None


def size(who: str, name: str, value: Any) -> int:
    """A size_t: 0 to 2**64 - 1."""
    number = integer(who, name, value)
    if number < 0:
        raise ArgumentError(f"mrctx: {who}: {name}={number} is negative; a size is 0 or more")
    if number > SIZE_MAX:
        raise ArgumentError(f"mrctx: {who}: {name}={number} is more than {_SIZE_MAX_TEXT}, the "
                            "largest size")
    return number


def alignment(who: str, name: str, value: Any) -> int:
    """An alignment as C takes it (a size_t). Whether it is 0 or a power of
    two the C library checks, before it does anything, in a message that
    names the resource."""
    number = integer(who, name, value)
    if not 0 <= number <= SIZE_MAX:
        raise ArgumentError(f"mrctx: {who}: {name}={number} is not a power of two (or 0 for "
                            "the default, 256)")
    return number


def pointer(who: str, name: str, value: Any) -> int:
    """An address: an int from 0 (NULL) to the largest pointer."""
    number = integer(who, name, value)
    if not 0 <= number <= POINTER_MAX:
        raise ArgumentError(f"mrctx: {who}: {name}={number:#x} is not an address (0 to "
                            f"{POINTER_MAX:#x})")
    return number


def device(who: str, name: str, value: Any, lowest: int = 0) -> int:
    """A device number as C takes it: an int from ``lowest`` (0, or -1
    where the call gives -1 a meaning) to the largest C int."""
    number = integer(who, name, value)
    if not lowest <= number <= INT_MAX:
        meaning = " (-1: every device)" if lowest == -1 else ""
        raise ArgumentError(f"mrctx: {who}: {name}={number} is out of range: a device is "
                            f"{lowest} to {INT_MAX}{meaning}")
    return number


def _no_nul(who: str, name: str, text: str) -> None:
    at = text.find("\0")
    if at >= 0:
        raise ArgumentError(f"mrctx: {who}: {name} {_shown(text)} contains a NUL character at "
                            f"index {at}; C strings end there, so the rest would be lost")


def text(who: str, name: str, value: Any, optional: bool = False) -> Optional[bytes]:
    """A str for C: no NUL, and valid Unicode (UTF-8 cannot encode a lone
    surrogate). Returns its UTF-8 bytes; None for None where ``optional``."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _type_error(who, name, "a str" + (" or None" if optional else ""), value)
    _no_nul(who, name, value)
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as error:
        bad = value[error.start]
        raise ArgumentError(
            f"mrctx: {who}: {name} {_shown(value)} is not valid text: a lone surrogate "
            f"{bad!r} at index {error.start} (a str decoded from bytes with "
            "errors='surrogateescape'? decode it properly first)") from None


def path(who: str, name: str, value: Any, optional: bool = False) -> Optional[bytes]:
    """A file name for C: a str, bytes or os.PathLike without NUL, encoded
    as the operating system does (os.fsencode), so a name that was not
    valid UTF-8 on disk comes back to the same bytes."""
    if value is None and optional:
        return None
    try:
        name_value = os.fspath(value)
    except TypeError:
        raise _type_error(who, name, "a path (str, bytes or os.PathLike)" +
                          (" or None" if optional else ""), value) from None
    if isinstance(name_value, bytes):
        if b"\0" in name_value:
            raise ArgumentError(f"mrctx: {who}: {name} {_shown(name_value)} contains a NUL byte "
                                f"at index {name_value.index(0)}; C strings end there")
        return name_value
    _no_nul(who, name, name_value)
    return os.fsencode(name_value)


def stream(who: str, name: str, value: Any) -> int:
    """A CUstream handle as an int: None or an int (0 is the legacy default
    stream, 2 the per-thread one), or a framework's stream object: one with
    ``__cuda_stream__`` (cuda.core, recent CuPy and PyTorch), ``.cuda_stream``
    (PyTorch), ``.ptr`` (CuPy) or ``.handle`` (cuda.core, Numba)."""
    if value is None:
        return 0
    handle: Any = value
    if not isinstance(value, int) or isinstance(value, bool):
        protocol = getattr(value, "__cuda_stream__", None)
        if protocol is not None:
            try:
                handle = (protocol() if callable(protocol) else protocol)[1]
            except Exception as error:
                raise ArgumentTypeError(f"mrctx: {who}: {name}: {type(value).__name__}."
                                        f"__cuda_stream__ gave no handle ({error})") from None
        else:
            for attribute in ("cuda_stream", "ptr", "handle"):
                found = getattr(value, attribute, None)
                if found is not None:
                    handle = found
                    break
            else:
                raise _type_error(who, name, "a CUDA stream: an int handle, None, or a stream "
                                  "object (with __cuda_stream__, .cuda_stream, .ptr or .handle)",
                                  value)
    if isinstance(handle, ctypes.c_void_p):
        handle = handle.value or 0
    if isinstance(handle, bool) or not isinstance(handle, int):
        try:
            handle = int(handle)  # cuda-python's CUstream and its kin
        except (TypeError, ValueError):
            raise _type_error(who, name, "a CUDA stream handle", handle) from None
    if not 0 <= handle <= POINTER_MAX:
        raise ArgumentError(f"mrctx: {who}: {name}={handle} is not a stream handle (0 to "
                            f"{POINTER_MAX:#x})")
    return handle


def has_write(who: str, name: str, value: Any) -> Any:
    if not callable(getattr(value, "write", None)):
        raise _type_error(who, name, "a text file (with write())", value)
    return value


def context(who: str, name: str, value: Any) -> Any:
    from ._context import Context  # _context imports this module

    if not isinstance(value, Context):
        raise _type_error(who, name, "an mrctx.Context", value)
    return value

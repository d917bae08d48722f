"""mrctx's exceptions: one class per status code of the C library.

Every error raised by a call into libmrctx is an :class:`Error` carrying the
status name (``MR_ERR_CONFIG``) and the calling thread's ``mr_last_error()``
message, which says what failed and why. The subclasses also derive from the
matching built-in exception where one fits, so ``except MemoryError`` and
``except ValueError`` work as a Python programmer expects.
"""

from __future__ import annotations


class Error(Exception):
    """A failed mrctx call. ``status`` is the C status code, ``status_name``
    its name, ``message`` what mr_last_error() said."""

    status: int = -1
    status_name: str = "MR_ERR_UNKNOWN"

    def __init__(self, message: str, status: int | None = None, status_name: str | None = None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        if status_name is not None:
            self.status_name = status_name


class InvalidArgumentError(Error, ValueError):
    status, status_name = 1, "MR_ERR_INVALID_ARGUMENT"


class OutOfMemoryError(Error, MemoryError):
    status, status_name = 2, "MR_ERR_OUT_OF_MEMORY"


class NoDriverError(Error):
    status, status_name = 3, "MR_ERR_NO_DRIVER"


class NoDeviceError(Error):
    status, status_name = 4, "MR_ERR_NO_DEVICE"


class UnsupportedError(Error):
    status, status_name = 5, "MR_ERR_UNSUPPORTED"


class ConfigError(Error, ValueError):
    status, status_name = 6, "MR_ERR_CONFIG"


class DriverError(Error):
    status, status_name = 7, "MR_ERR_DRIVER"


class StateError(Error):
    status, status_name = 8, "MR_ERR_STATE"


class ClosedError(StateError):
    """Use of a context or resource after close(): refused on the Python
    side, so the C library never sees a dangling handle."""


class TagError(InvalidArgumentError, LookupError):
    """A tag the context does not have (by name or index)."""


class ArgumentError(InvalidArgumentError):
    """An argument refused by the Python package before any call into the C
    library: a number out of range for its C type (a size below 0 or past
    2**64 - 1, a device past a C int), text C cannot carry (a NUL, a lone
    surrogate). Also a ValueError. The message names the argument."""


class ArgumentTypeError(Error, TypeError):
    """An argument of the wrong type (a float or bool where an int is meant,
    None or bytes where text is), refused before any call into the C
    library. Also a TypeError; status MR_ERR_INVALID_ARGUMENT. The message
    names the argument and the type given."""

    status, status_name = 1, "MR_ERR_INVALID_ARGUMENT"


class LibraryNotFoundError(Error, OSError):
    """libmrctx (or the PyTorch shim) could not be loaded; the message lists
    every place tried."""


class FrameworkError(Error, RuntimeError):
    """A framework hook that cannot be installed: the framework is missing,
    too old, or already committed to another allocator."""


_BY_STATUS: dict[int, type[Error]] = {
    cls.status: cls
    for cls in (InvalidArgumentError, OutOfMemoryError, NoDriverError, NoDeviceError,
                UnsupportedError, ConfigError, DriverError, StateError)
}


def error_for(status: int, status_name: str, message: str) -> Error:
    """The exception for a status the C library returned."""
    cls = _BY_STATUS.get(status, Error)
    return cls(message, status, status_name)


def failure(status: int, prefix: str = "") -> Error:
    """The exception for a failed C call's ``status``: its class, its C
    name, and ``prefix`` followed by this thread's mr_last_error() (the
    status's name where the library left no message)."""
    from . import _lib  # _lib imports this module

    library = _lib.lib()
    name = _lib.text(library.mr_status_name(status))
    return error_for(status, name, prefix + (_lib.text(library.mr_last_error()) or name))


def check(status: int, prefix: str = "") -> None:
    """Raise failure(status, prefix) unless ``status`` is MR_OK (0): the one
    check every call into libmrctx that returns an mr_status goes through."""
    if status != 0:
        raise failure(status, prefix)

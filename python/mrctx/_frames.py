"""Python call sites for ``track(UP, stacks=N)`` (docs/observability.md,
"Python call sites").

The C module _callsites.so is registered as libmrctx's frame source when the
library is loaded (install()): a block a track with stacks records then
names the Python lines that asked for it before its native frames. _callsites.c
says how: it reads Python frames only on a thread that holds the GIL, or
from the frames allocate() below captured before it released the GIL.

allocate() is the package's own allocation call for a resource whose chain
keeps stacks (``Resource.allocate``, ``allocate_sync`` and what is built on
them); every other resource keeps the plain ctypes call, so call sites cost
nothing where no track keeps stacks. Where _callsites.so cannot be loaded the
package works as before, with native frames only.
"""
import atexit
import ctypes
import os
import re
import sys
from typing import Any, Optional

from . import _forksafe

_NAMES = (sys.intern("co_filename"), sys.intern("co_name"))
# The package's own folder: its frames are skipped (the user's line first).
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


class _FramesPython(ctypes.Structure):
    """The CPython calls _callsites.c makes (mrctx_frames_python there), as
    function pointers: the module links no libpython."""
    _fields_ = [("size", ctypes.c_size_t)] + [(name, ctypes.c_void_p) for name in (
        "this_thread_state", "current_thread_state", "gil_check", "get_frame", "frame_back",
        "frame_code", "frame_line", "get_attr", "utf8", "incref", "decref", "err_fetch",
        "err_restore", "gc_disable", "gc_enable", "save_thread", "restore_thread", "co_filename",
        "co_name")] + [("package_dir", ctypes.c_char_p)]


def _python_call(*names: str) -> Optional[int]:
    """The address of the first of ``names`` this interpreter exports."""
    for name in names:
        try:
            return ctypes.cast(ctypes.pythonapi[name], ctypes.c_void_p).value
        except AttributeError:
            continue
    return None


_lock = _forksafe.lock()
_module: Optional[ctypes.PyDLL] = None
_library: Any = None  # libmrctx, once the source is registered with it
_allocate = _allocate_sync = ctypes.c_void_p()


def install(library: Any, library_path: str) -> None:
    """Register _callsites.so as ``library``'s frame source, and remove it at
    exit (atexit: before the interpreter finalizes, which the source must
    never be called into). Leaves native frames only where the module is
    missing or of another version."""
    global _module, _library, _allocate, _allocate_sync
    with _lock:
        if _module is not None:
            return
        from . import _lib  # loading libmrctx, which calls this
        path = _lib.companion_path("_callsites", loaded_from=library_path)
        if path is None:
            return
        try:
            module = ctypes.PyDLL(path)
        except OSError:
            return
        required = ("PyGILState_GetThisThreadState", "PyGILState_Check", "PyEval_GetFrame",
                    "PyFrame_GetBack", "PyFrame_GetCode", "PyFrame_GetLineNumber",
                    "PyObject_GetAttr", "PyUnicode_AsUTF8AndSize", "Py_IncRef", "Py_DecRef",
                    "PyErr_Fetch", "PyErr_Restore", "PyEval_SaveThread", "PyEval_RestoreThread")
        calls = {name: _python_call(name) for name in required}
        if None in calls.values():
            return  # an interpreter without the frame calls (before 3.9)
        table = _FramesPython(
            size=ctypes.sizeof(_FramesPython),
            this_thread_state=calls["PyGILState_GetThisThreadState"],
            current_thread_state=_python_call("PyThreadState_GetUnchecked",
                                              "_PyThreadState_UncheckedGet"),
            gil_check=calls["PyGILState_Check"],
            get_frame=calls["PyEval_GetFrame"],
            frame_back=calls["PyFrame_GetBack"],
            frame_code=calls["PyFrame_GetCode"],
            frame_line=calls["PyFrame_GetLineNumber"],
            get_attr=calls["PyObject_GetAttr"],
            utf8=calls["PyUnicode_AsUTF8AndSize"],
            incref=calls["Py_IncRef"],
            decref=calls["Py_DecRef"],
            err_fetch=calls["PyErr_Fetch"],
            err_restore=calls["PyErr_Restore"],
            gc_disable=_python_call("PyGC_Disable"),
            gc_enable=_python_call("PyGC_Enable"),
            save_thread=calls["PyEval_SaveThread"],
            restore_thread=calls["PyEval_RestoreThread"],
            co_filename=id(_NAMES[0]),  # kept alive by _NAMES
            co_name=id(_NAMES[1]),
            package_dir=_PACKAGE_DIR.encode())
        module.mrctx_frames_init.argtypes = [ctypes.POINTER(_FramesPython)]
        module.mrctx_frames_init.restype = ctypes.c_int
        if module.mrctx_frames_init(ctypes.byref(table)) != 0:
            return
        module.mrctx_frames_allocate.argtypes = [
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t,
            ctypes.c_size_t, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
        module.mrctx_frames_allocate.restype = ctypes.c_int
        _allocate = ctypes.cast(library.mr_allocate, ctypes.c_void_p)
        _allocate_sync = ctypes.cast(library.mr_allocate_sync, ctypes.c_void_p)
        source = ctypes.cast(module.mrctx_frames_source, ctypes.c_void_p)
        if library.mr_track_set_frame_source(source, None) != 0:
            return
        _module, _library = module, library
        atexit.register(_remove)


def _remove() -> None:
    """Unregister the source (atexit): mr_track_set_frame_source returns
    once no call of it is running, so libmrctx, which may still allocate
    from other threads or later exit handlers, never calls into a finalized
    interpreter."""
    global _module
    with _lock:
        if _module is not None and _library is not None:
            _library.mr_track_set_frame_source(None, None)
            _module = None


_STACKS = re.compile(r"\bstacks=(\d+)")


def stack_depth(description: str) -> int:
    """The largest N of the track(..., stacks=N) in a resource's resolved
    description (0: none, or call sites cannot be had): how many Python
    frames allocate() captures for it."""
    if _module is None:
        return 0
    return max((int(n) for n in _STACKS.findall(description)), default=0)


def allocate(handle: int, nbytes: int, alignment: int, stream: Optional[int],
             ptr: ctypes.c_void_p, depth: int, sync: bool = False) -> int:
    """mr_allocate (mr_allocate_sync with ``sync``) on ``handle`` with the
    caller's ``depth`` innermost frames captured for the chain's tracks;
    the GIL released around the allocation. Returns the status."""
    module = _module
    if module is None:  # removed at exit: the plain call
        from . import _lib
        library = _lib.lib()
        if sync:
            return int(library.mr_allocate_sync(handle, nbytes, alignment, ctypes.byref(ptr)))
        return int(library.mr_allocate(handle, nbytes, alignment, stream, ctypes.byref(ptr)))
    return int(module.mrctx_frames_allocate(_allocate, _allocate_sync, 1 if sync else 0, handle,
                                            nbytes, alignment, stream, ctypes.byref(ptr), depth))

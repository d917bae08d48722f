"""torch.OutOfMemoryError from the PyTorch shim: a helper built against the
installed PyTorch (docs/integrations.md, "PyTorch").

PyTorch turns a C++ ``c10::OutOfMemoryError`` thrown by an allocator into
``torch.OutOfMemoryError``; any other exception becomes a RuntimeError. The
shim (_torch_alloc.so) links no part of PyTorch, so it cannot throw that
type itself: it throws through a function pointer Python sets
(``mrctx_torch_set_oom_thrower``) to ``mrctx_torch_throw_oom`` of a tiny
helper, compiled at the first use() or use_control() against the installed
PyTorch's headers (``torch.utils.cpp_extension.include_paths()``) and
linked to its libc10 (``library_paths()``), the same libc10.so PyTorch has
loaded (the loader matches its soname), with PyTorch's C++ ABI.

The built helper is kept in ``$XDG_CACHE_HOME/mrctx`` (``~/.cache/mrctx``)
under ``torch-VERSION-HASH/``, the hash over PyTorch's version, its
folder, its ABI, the compiler and the helper's source, so another PyTorch
builds its own; a file lock keeps two processes from building it at once.
A process that finds it there imports no part of PyTorch's build tools.
Where it cannot be had (no C++ compiler, no headers, a failed build) the
shim keeps throwing RuntimeError, and use() warns once saying why.

``MRCTX_TORCH_OOM_HELPER``: unset (or ``auto``) builds it at first use;
``0`` does not (RuntimeError, no warning); a path loads that prebuilt helper
(one shipped per PyTorch version).
"""

from __future__ import annotations

import ctypes
import fcntl
import hashlib
import importlib
import json
import os
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path
from typing import Any, Optional

ENV = "MRCTX_TORCH_OOM_HELPER"
NAME = "_mrctx_torch_oom.so"

# The helper: C10_THROW_ERROR is how PyTorch itself throws its errors (the
# source location, then the message), in every PyTorch 2.
SOURCE = r"""
#include <c10/util/Exception.h>

extern "C" [[noreturn]] __attribute__((visibility("default"))) void
mrctx_torch_throw_oom(const char *message) {
  C10_THROW_ERROR(OutOfMemoryError, message);
}
"""

_state: dict[str, Any] = {"loaded": None, "why": None, "warned": False}


class Unavailable(Exception):
    """Why the helper cannot be had here."""


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mrctx"


def _compiler() -> str:
    cxx = os.environ.get("CXX", "")
    if cxx:
        found = shutil.which(cxx)
        if found is None:
            raise Unavailable(f"CXX={cxx!r} is not a program")
        return found
    for name in ("c++", "g++", "clang++"):
        found = shutil.which(name)
        if found:
            return found
    raise Unavailable("no C++ compiler (c++, g++ or clang++ on PATH, or CXX)")


def _torch_paths() -> tuple[list[str], list[str]]:
    """PyTorch's include and library folders (torch.utils.cpp_extension,
    imported only to build: it imports setuptools)."""
    try:
        cpp_extension = importlib.import_module("torch.utils.cpp_extension")
    except Exception as error:  # ImportError, or anything its import raises
        raise Unavailable(f"torch.utils.cpp_extension cannot be imported ({error})") from error
    includes = [str(p) for p in cpp_extension.include_paths()]
    libraries = [str(p) for p in cpp_extension.library_paths()]
    if not any((Path(p) / "c10" / "util" / "Exception.h").is_file() for p in includes):
        raise Unavailable(f"this PyTorch has no C++ headers (c10/util/Exception.h under "
                          f"{includes})")
    if not any((Path(p) / "libc10.so").exists() for p in libraries):
        raise Unavailable(f"no libc10.so in PyTorch's library folders {libraries}")
    return includes, libraries


def _abi(torch: Any) -> int:
    """PyTorch's C++ ABI flag (_GLIBCXX_USE_CXX11_ABI)."""
    abi = getattr(getattr(torch, "_C", None), "_GLIBCXX_USE_CXX11_ABI", None)
    if abi is None:
        abi = torch.compiled_with_cxx11_abi() if hasattr(torch, "compiled_with_cxx11_abi") else 1
    return int(bool(abi))


def _first_errors(stderr: str) -> str:
    """The compiler's first error lines (the later ones follow from them)."""
    lines = [line.strip() for line in stderr.splitlines() if "error" in line.lower()]
    return " / ".join(lines[:2])[:500] if lines else stderr.strip()[-300:]


def _build(torch: Any) -> Path:
    """The helper for this PyTorch: from the cache, or built into it."""
    cxx = _compiler()
    abi = _abi(torch)
    # Which PyTorch: its version and its folder (its headers and libc10
    # are under it), read without importing cpp_extension.
    where = str(Path(torch.__file__).resolve().parent)
    key = json.dumps({"torch": str(torch.__version__), "where": where, "abi": abi,
                      "cxx": cxx, "source": SOURCE}, sort_keys=True)
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    version = "".join(c if c.isalnum() or c in ".+-" else "_" for c in str(torch.__version__))
    folder = cache_root() / f"torch-{version}-{digest}"
    target = folder / NAME
    if target.is_file():
        return target
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = open(folder / "build.lock", "w")
    except OSError as error:
        raise Unavailable(f"cannot write the cache folder {folder} ({error})") from error
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building it
        if target.is_file():
            return target
        includes, libraries = _torch_paths()
        source = folder / "mrctx_torch_oom.cpp"
        source.write_text(SOURCE)
        fd, partial = tempfile.mkstemp(prefix=".build-", suffix=".so", dir=folder)
        os.close(fd)
        errors = []
        try:
            for standard in ("-std=c++17", "-std=c++20"):
                command = [cxx, "-shared", "-fPIC", "-O1", standard,
                           f"-D_GLIBCXX_USE_CXX11_ABI={abi}",
                           *[f"-I{p}" for p in includes], str(source), "-o", partial,
                           *[f"-L{p}" for p in libraries],
                           *[f"-Wl,-rpath,{p}" for p in libraries], "-lc10"]
                try:
                    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
                except (OSError, subprocess.TimeoutExpired) as error:
                    raise Unavailable(f"{cxx} could not run ({error})") from error
                if done.returncode == 0:
                    os.replace(partial, target)  # whole, or not there
                    return target
                errors.append(f"{standard}: {_first_errors(done.stderr)}")
            raise Unavailable(f"{cxx} could not build it against PyTorch's headers: "
                              + "; ".join(errors))
        finally:
            if os.path.exists(partial):
                os.unlink(partial)


def _load(path: str) -> int:
    """The thrower's address in the helper at `path`."""
    try:
        library = ctypes.CDLL(path)
        address = ctypes.cast(library.mrctx_torch_throw_oom, ctypes.c_void_p).value
    except (OSError, AttributeError) as error:
        raise Unavailable(f"cannot load {path} ({error})") from error
    if not address:
        raise Unavailable(f"{path} has no mrctx_torch_throw_oom")
    _state["library"] = library  # never unloaded: the shim keeps its address
    return int(address)


def install(torch: Any, shim: Any, who: str) -> Optional[str]:
    """Give the shim the thrower of torch.OutOfMemoryError, once per
    process. Returns the helper's path, or None (the shim keeps throwing
    RuntimeError) after warning once why, unless MRCTX_TORCH_OOM_HELPER=0."""
    if _state["loaded"] is not None or _state["why"] is not None:
        return _state["loaded"]
    choice = os.environ.get(ENV, "")
    if choice == "0":
        _state["why"] = f"{ENV}=0"
        return None
    try:
        path = choice if choice not in ("", "auto") else str(_build(torch))
        address = _load(path)
    except Unavailable as error:
        _state["why"] = str(error)
        if not _state["warned"]:
            _state["warned"] = True
            warnings.warn(f"{who}: out of memory raises RuntimeError (\"CUDA out of memory. "
                          f"...\"), not torch.OutOfMemoryError: {error}. Set {ENV}=0 to "
                          "silence this", RuntimeWarning, stacklevel=3)
        return None
    shim.mrctx_torch_set_oom_thrower(ctypes.c_void_p(address))
    _state["loaded"], _state["why"] = path, None
    return path


def status() -> tuple[Optional[str], Optional[str]]:
    """(the helper's path, None) once installed; (None, why not) after a
    use() that could not have it; (None, None) before."""
    return _state["loaded"], _state["why"]

"""MRCTX_TORCH: PyTorch on an mrctx tag without code changes.

With ``MRCTX_TORCH=SPEC`` in the environment (``MRCTX_TORCH='cache(device)'``),
right after ``import torch`` finishes, before anything can allocate CUDA
memory, mrctx makes a context of library "torch" with one tag "memory"
whose default spec is SPEC (overridden like any library's, by
MRCTX_TORCH_MEMORY: ``MRCTX_TORCH_MEMORY='memory=limit(cache(device),
bytes=40GiB)'``) and calls ``mrctx.torch.use(ctx, "memory", patch=True)``.
``mrctx.torch.context()`` returns that context.

How it runs: the package installs ``mrctx-torch.pth`` beside itself in
site-packages, whose one line Python's site module runs at every start:
with MRCTX_TORCH unset or empty it is one dictionary lookup, and nothing is
imported. Set, it imports this module (the standard library's importlib
only), which puts a finder first on sys.meta_path that waits for "torch";
mrctx itself is imported after torch is. ``python -m mrctx run script.py``
does the same for a checkout that is not installed (a .pth is read only
from site directories).

A bad value, or anything that stops use() (a tag that does not give device
memory, a PyTorch too old for the pluggable allocator), is printed once on
stderr, starting "mrctx: MRCTX_TORCH=" (a spec's error is placed in
MRCTX_TORCH, not in the tag's default spec), and PyTorch keeps its own
allocator: the program runs, as it would without the variable. With
MRCTX_TORCH_STRICT=1 it is an exception instead, raised by ``import torch``
(mrctx.FrameworkError, from the error that stopped it): for a job that must
not run on PyTorch's allocator by mistake.
"""

import os
import sys

VARIABLE = "MRCTX_TORCH"
LIBRARY = "torch"
TAG = "memory"
OVERRIDES = "MRCTX_TORCH_MEMORY"
STRICT = "MRCTX_TORCH_STRICT"

_done = False


def wanted() -> bool:
    return bool(os.environ.get(VARIABLE, ""))


def setup() -> None:
    """Make the context and install it (once); report failure on stderr."""
    global _done
    if _done:
        return
    _done = True
    spec = os.environ.get(VARIABLE, "")
    strict = os.environ.get(STRICT, "")
    try:
        if strict not in ("", "0", "1"):
            raise ValueError(f"{STRICT}={strict!r}: expected 1 (a bad {VARIABLE} raises) or 0")
        import mrctx
        import mrctx.torch
        ctx = mrctx.Context(LIBRARY, {TAG: spec}, env_var=OVERRIDES)
        mrctx.torch.use(ctx, TAG, patch=True)
    except Exception as error:
        # The spec is the variable's: say so, not "default spec of torch tag".
        why = str(error).replace(f"default spec of {LIBRARY} tag '{TAG}'", VARIABLE)
        if strict == "1":
            import mrctx
            raise mrctx.FrameworkError(f"mrctx: {VARIABLE}={spec!r} ({STRICT}=1): {why}") from error
        # The program goes on, on PyTorch's own allocator.
        sys.stderr.write(f"mrctx: {VARIABLE}={spec!r}: PyTorch keeps its own CUDA allocator: "
                         f"{why}\n")
        sys.stderr.flush()


class _TorchFinder:
    """A sys.meta_path finder that finds nothing itself: when "torch" is
    imported it asks the finders after it for torch's spec and wraps the
    loader's exec_module, so that setup() runs once torch's module has run
    to its end. It leaves sys.meta_path at its first use."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        _remove()
        import importlib.util
        spec = importlib.util.find_spec("torch")
        loader = getattr(spec, "loader", None) if spec is not None else None
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module):
            run(module)
            setup()

        loader.exec_module = exec_module
        return spec


_finder = _TorchFinder()


def _remove() -> None:
    try:
        sys.meta_path.remove(_finder)
    except ValueError:
        pass


def install() -> None:
    """Arrange for setup() after ``import torch`` (now, if torch is already
    imported); nothing when MRCTX_TORCH is unset or empty."""
    if not wanted():
        return
    if "torch" in sys.modules:
        setup()
    elif _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)

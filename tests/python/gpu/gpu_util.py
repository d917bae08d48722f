"""Helpers of the framework tests on a real GPU (suite gpu)."""

import os
import subprocess
import sys
import textwrap

import pytest

import mrctx


def require_gpu() -> None:
    """Skip unless the real driver shows a device."""
    try:
        if mrctx.device_count() > 0:
            return
    except mrctx.Error as error:
        pytest.skip(f"no CUDA driver: {error}")
    pytest.skip("no CUDA device")


def require(module: str) -> None:
    pytest.importorskip(module, reason=f"{module} is not installed for {sys.executable}")


def run(code: str, **env: str) -> str:
    """Run ``code`` in a fresh interpreter (a framework's allocator is chosen
    once per process) and return its output; fail with all of it, so the
    log says which step broke. The script prints "PASS" last."""
    full_env = dict(os.environ, **env)
    full_env.pop("MRCTX_CUDA_DRIVER", None)
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full_env,
                            capture_output=True, text=True, timeout=300)
    output = result.stdout + result.stderr
    if result.returncode != 0 or "PASS" not in result.stdout:
        pytest.fail(f"exit {result.returncode}\n{output}", pytrace=False)
    print(output)
    return output

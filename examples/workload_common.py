"""What the workload scripts share: arguments, the allocator under test,
step timing and the one JSON line of results.

Allocators:
  torch         PyTorch's own caching allocator (scripts that use PyTorch)
  cupy          CuPy's default memory pool (cupy_pipeline.py)
  mrctx-cache   mrctx's cache(device) through the framework hook
  mrctx-device  mrctx's device (the driver's current pool) through the hook

For the mrctx allocators the tag's spec can be overridden without editing
the script, through the context's environment variable
(MRCTX_WORKLOAD_MEMORY, e.g. 'memory=cache(device, max=16GiB)'); the JSON
line reports the spec that ran.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any, Callable, Optional

# The mrctx package of this checkout, unless one is installed or on PYTHONPATH.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import mrctx  # noqa: E402

DEFAULT_SPECS = {"mrctx-cache": "cache(device)", "mrctx-device": "device"}
ENV_VAR = "MRCTX_WORKLOAD_MEMORY"
TAG = "memory"


def parse(description: str, allocators: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--allocator", choices=allocators, default=allocators[0])
    parser.add_argument("--steps", type=int, default=50, help="timed steps")
    parser.add_argument("--warmup", type=int, default=10, help="untimed steps first")
    parser.add_argument("--device", type=int, default=0)
    return parser.parse_args()


def mrctx_context(allocator: str, library: str) -> Optional[mrctx.Context]:
    """The workload's context for an mrctx allocator (None otherwise)."""
    if allocator not in DEFAULT_SPECS:
        return None
    return mrctx.Context(library, {TAG: DEFAULT_SPECS[allocator]}, env_var=ENV_VAR)


def time_steps(step: Callable[[int], None], sync: Callable[[], None], warmup: int,
               steps: int) -> list[float]:
    """Run warmup + steps steps; the wall time of each timed one in ms,
    synchronised at both ends."""
    for i in range(warmup):
        step(i)
    sync()
    times = []
    for i in range(steps):
        start = time.perf_counter()
        step(warmup + i)
        sync()
        times.append((time.perf_counter() - start) * 1e3)
    return times


def mrctx_peaks(ctx: mrctx.Context, device: int) -> dict[str, Any]:
    """Peak device memory under mrctx: what the driver's pool reserved at
    most (the memory the process held) and the tag's own peak (what the
    framework asked for at once)."""
    pool = mrctx.driver_pool_info("device", device)
    return {
        "peak_reserved_bytes": pool["reserved_high"],
        "peak_used_bytes": ctx.stats(TAG)["peak_bytes"],
        "pool_used_high_bytes": pool["used_high"],
        "spec": ctx.describe(TAG, device),
        "spec_origin": ctx.source(TAG, device).origin,
        "tag_stats": ctx.stats(TAG),
    }


def report(script: str, args: argparse.Namespace, times: list[float], **extra: Any) -> None:
    """Print the one JSON line of results."""
    result = {
        "script": script,
        "allocator": args.allocator,
        "steps": args.steps,
        "warmup": args.warmup,
        "ms_per_step_median": statistics.median(times),
        "ms_per_step_mean": statistics.fmean(times),
        "ms_per_step_min": min(times),
        "ms_per_step_max": max(times),
        "mrctx_version": mrctx.version(),
        **extra,
    }
    print(json.dumps(result, sort_keys=True), flush=True)

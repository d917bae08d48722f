"""What the workload scripts share: arguments, the allocator under test,
step timing and the one JSON line of results.

Allocators:
  torch              PyTorch's own caching allocator (scripts that use PyTorch)
  cupy               CuPy's default memory pool (cupy_pipeline.py)
  mrctx-cache        mrctx's cache(device) through the framework hook
  mrctx-device       mrctx's device (the driver's current pool) through the hook
  pluggable-control  PyTorch scripts: the shim's control allocator
                     (mrctx.torch.use_control), a trivial exact-size free
                     list loaded through CUDAPluggableAllocator as the mrctx
                     hook is: what that path costs by itself. A measurement
                     control: it never gives memory back.

For the mrctx allocators the tag's spec can be overridden without editing
the script, through the context's environment variable
(MRCTX_WORKLOAD_MEMORY, e.g. 'memory=cache(device, max=16GiB)'); the JSON
line reports the spec that ran.

Counters per timed step (StepCounters; docs/integrations.md, "Inside a
training step"): allocations, frees, hits and misses, from the cache's
statistics (mrctx-cache), the tag's (mrctx-device: every allocation is a
driver pool call), the control's own, or PyTorch's memory_stats (torch: a
miss is a new segment, a cudaMalloc). With MRCTX_TORCH_TIMING=1 the
pluggable allocators also report the time spent inside the allocator's
calls, the longest call and the calls over 10 us.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from typing import Any, Callable, Optional

# The mrctx package of this checkout, unless one is installed or on PYTHONPATH.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import mrctx  # noqa: E402
import mrctx.torch  # noqa: E402  (PyTorch itself is imported only when a hook is used)

DEFAULT_SPECS = {"mrctx-cache": "cache(device)", "mrctx-device": "device"}
ENV_VAR = "MRCTX_WORKLOAD_MEMORY"
TAG = "memory"
CONTROL = "pluggable-control"
TORCH_ALLOCATORS = ["torch", "mrctx-cache", "mrctx-device", CONTROL]


def parse(description: str, allocators: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--allocator", choices=allocators, default=allocators[0])
    parser.add_argument("--steps", type=int, default=50, help="timed steps")
    parser.add_argument("--warmup", type=int, default=10, help="untimed steps first")
    parser.add_argument("--device", type=int, default=0)
    parser.add_argument("--cudnn-benchmark", action="store_true",
                        help="torch.backends.cudnn.benchmark = True (PyTorch workloads)")
    parser.add_argument("--graph", action="store_true",
                        help="capture the whole training step in a CUDA graph and replay it "
                             "(workloads that support it)")
    return parser.parse_args()


def mrctx_context(allocator: str, library: str) -> Optional[mrctx.Context]:
    """The workload's context for an mrctx allocator (None otherwise)."""
    if allocator not in DEFAULT_SPECS:
        return None
    return mrctx.Context(library, {TAG: DEFAULT_SPECS[allocator]}, env_var=ENV_VAR)


def install_torch(allocator: str, library: str) -> Optional[mrctx.Context]:
    """Make ``allocator`` PyTorch's (before CUDA initialises): a tag of a
    new context for mrctx-*, the shim's control for pluggable-control,
    nothing for torch. Returns the context (None if there is none)."""
    ctx = mrctx_context(allocator, library)
    if ctx is not None:
        mrctx.torch.use(ctx, TAG)
    elif allocator == CONTROL:
        mrctx.torch.use_control()
    return ctx


def torch_peaks(allocator: str, ctx: Optional[mrctx.Context], device: int) -> dict[str, Any]:
    """Peak device memory of a PyTorch workload, as mrctx_peaks for the
    mrctx allocators; for PyTorch's own, its reserved and allocated peaks;
    for the control, the driver pool's reserved high and the control's own
    peak of live bytes (and its counters)."""
    if ctx is not None:
        return mrctx_peaks(ctx, device)
    if allocator == CONTROL:
        control = mrctx.torch.control_stats()
        return {"peak_reserved_bytes": mrctx.driver_pool_info("device", device).reserved_high,
                "peak_used_bytes": control["peak_live_bytes"], "control_stats": control}
    import torch
    return {"peak_reserved_bytes": torch.cuda.max_memory_reserved(device),
            "peak_used_bytes": torch.cuda.max_memory_allocated(device)}


def _per_step(value: Optional[float], steps: int) -> Optional[float]:
    return None if value is None else value / steps


class StepCounters:
    """What the allocator did during the timed steps: a snapshot of its
    counters at start() and at stop(), reported per step by result().

    Where the counts come from (``counters_from``):
      cache    mrctx-cache: the cache's hits and misses (and bypassed,
               cross_stream, trims); allocations and frees from the tag's
               statistics
      tag      mrctx-device (no cache): every allocation is a driver pool
               call, so misses = allocations
      control  pluggable-control: the control's own hits, misses, frees
      torch    PyTorch's memory_stats(): allocations and frees of blocks; a
               miss is a new segment (a cudaMalloc)
    With MRCTX_TORCH_TIMING=1 (mrctx.torch.timed()) the pluggable ones add
    the time inside the allocator's calls: start() resets those counters.
    """

    def __init__(self, allocator: str, ctx: Optional[mrctx.Context], device: int) -> None:
        self.allocator, self.ctx, self.device = allocator, ctx, device
        self.source: Optional[str] = None
        if ctx is not None:
            try:
                ctx.cache_stats(TAG, device)
                self.source = "cache"
            except mrctx.InvalidArgumentError:
                self.source = "tag"
        elif allocator == CONTROL:
            self.source = "control"
        elif allocator == "torch":
            self.source = "torch"
        self.timed = False
        if self.source in ("cache", "tag", "control"):
            self.timed = mrctx.torch.timed()
        self.before: dict[str, float] = {}
        self.after: dict[str, float] = {}
        self.timing: Optional[dict[str, dict[str, int]]] = None

    def _read(self) -> dict[str, float]:
        """Cumulative counts: allocs, frees, hits, misses and extras."""
        if self.source in ("cache", "tag"):
            assert self.ctx is not None
            tag = self.ctx.stats(TAG, self.device)
            counts = {"allocs": tag.total_count,
                      "frees": tag.total_count - tag.current_count}
            if self.source == "cache":
                cache = self.ctx.cache_stats(TAG, self.device)
                counts.update(hits=cache["hits"], misses=cache["misses"],
                              bypassed=cache["bypassed"], cross_stream=cache["cross_stream"],
                              trims=cache["trims"])
            else:
                counts.update(hits=0, misses=tag.total_count)
            return counts
        if self.source == "control":
            control = mrctx.torch.control_stats()
            return {"allocs": control["hits"] + control["misses"], "frees": control["frees"],
                    "hits": control["hits"], "misses": control["misses"]}
        if self.source == "torch":
            import torch
            stats = torch.cuda.memory_stats(self.device)
            allocs = stats.get("allocation.all.allocated", 0)
            misses = stats.get("segment.all.allocated", 0)
            return {"allocs": allocs, "frees": stats.get("allocation.all.freed", 0),
                    "hits": allocs - misses, "misses": misses,
                    "segment_frees": stats.get("segment.all.freed", 0),
                    "alloc_retries": stats.get("num_alloc_retries", 0),
                    "sync_all_streams": stats.get("num_sync_all_streams", 0)}
        return {}

    def start(self) -> None:
        if self.timed:
            mrctx.torch.reset_timing()
        self.before = self._read()

    def stop(self) -> None:
        self.after = self._read()
        if self.timed:
            self.timing = mrctx.torch.timing()

    def result(self, steps: int) -> dict[str, Any]:
        """Per-step averages over the timed steps, for the JSON line. A
        counter this allocator does not have is None."""
        if not self.after:
            self.stop()
        moved = {k: self.after[k] - self.before.get(k, 0) for k in self.after}
        lookups = None
        if "hits" in moved:
            lookups = moved["hits"] + moved["misses"] + moved.get("bypassed", 0)
        result: dict[str, Any] = {
            "counters_from": self.source,
            "allocs_per_step": _per_step(moved.get("allocs"), steps),
            "frees_per_step": _per_step(moved.get("frees"), steps),
            "hits_per_step": _per_step(moved.get("hits"), steps),
            "misses_per_step": _per_step(moved.get("misses"), steps),
            "hit_rate": moved["hits"] / lookups if lookups else None,
        }
        for extra in ("bypassed", "cross_stream", "trims", "segment_frees", "alloc_retries",
                      "sync_all_streams"):
            if extra in moved:
                result[f"{extra}_per_step"] = _per_step(moved[extra], steps)
        timing = self.timing
        for op in ("alloc", "free"):
            t = timing[op] if timing else None
            result[f"{op}_calls_per_step"] = _per_step(t["calls"], steps) if t else None
            result[f"{op}_ns_per_step"] = _per_step(t["ns"], steps) if t else None
            result[f"{op}_max_ns"] = t["max_ns"] if t else None
            result[f"{op}_slow_per_step"] = _per_step(t["slow_calls"], steps) if t else None
        result["allocator_ms_per_step"] = (
            (timing["alloc"]["ns"] + timing["free"]["ns"]) / steps / 1e6 if timing else None)
        return result


def time_steps(step: Callable[[int], None], sync: Callable[[], None], warmup: int,
               steps: int, counters: Optional[StepCounters] = None) -> list[float]:
    """Run warmup + steps steps; the wall time of each timed one in ms,
    synchronised at both ends. ``counters`` are read after the warm-up's
    synchronisation and after the last step's."""
    for i in range(warmup):
        step(i)
    sync()
    if counters is not None:
        counters.start()
    times = []
    for i in range(steps):
        start = time.perf_counter()
        step(warmup + i)
        sync()
        times.append((time.perf_counter() - start) * 1e3)
    if counters is not None:
        counters.stop()
    return times


def mrctx_peaks(ctx: mrctx.Context, device: int) -> dict[str, Any]:
    """Peak device memory under mrctx: what the driver's pool reserved at
    most (the memory the process held) and the tag's own peak (what the
    framework asked for at once)."""
    pool = mrctx.driver_pool_info("device", device)
    return {
        "peak_reserved_bytes": pool.reserved_high,
        "peak_used_bytes": ctx.stats(TAG).peak_bytes,
        "pool_used_high_bytes": pool.used_high,
        "spec": ctx.describe(TAG, device),
        "spec_origin": ctx.source(TAG, device).origin,
        "tag_stats": dataclasses.asdict(ctx.stats(TAG)),
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

#!/usr/bin/env python3
"""Two libraries and PyTorch share one GPU: what library A keeps idle,
library B and PyTorch can use (docs/semantics.md, "One process, one memory").

Library A (its own mrctx context, one tag) touches a fraction of the device
(70% by default) in 1 GiB blocks and frees it; its resource keeps the memory
idle (a cache's segments, an arena's chunks, fixed blocks, or the driver
pool mrctx configured). Then library B (another context, a `device` tag)
asks for half the device in one block, and PyTorch's own allocator does the
same. Each row is one spec of A's tag; each cell says whether the request
succeeded and how long it took (B's time includes the process-wide reclaim
that gave A's idle memory back; the B cells add what that reclaim took back
from A and how long it spent there, from the snapshot's idle_memory).

    python3 examples/two_libraries_share.py            # the table
    python3 examples/two_libraries_share.py --check    # exit 1 unless every cell is ok
    python3 examples/two_libraries_share.py --json     # one JSON line per row

Columns:
  B alone             the control: B's request with A holding nothing (the
                      time the driver takes to map the memory by itself).
  B, A idle here      A allocated and freed on this thread.
  B, A idle elsewhere A allocated and freed on another thread, which stays
                      alive (its cache stacks hold the memory) while B asks.
  B, A live           A's blocks are still allocated: B must fail cleanly
                      and A's bytes must be intact ("fails, intact" is ok).
  torch, at once      PyTorch's own allocator asks right after A freed: it
                      cannot call back into mrctx, so this fails unless
                      A's idle memory went back by itself (the idle time).
  torch, release_idle PyTorch asks after mrctx.release_idle() (the cell says
                      how long release_idle took for how many GiB).
  torch, after idle   A's spec with `idle=` (--idle, default 1s): PyTorch
                      asks once the device's free memory shows A's idle
                      memory went back by itself (the cell says after how
                      long); `device` rows follow MRCTX_IDLE_TIME instead.
  B, torch idle       (last row) PyTorch's caching allocator holds the
                      fraction cached; B's request succeeds through the
                      reclaimer mrctx registers for PyTorch.

Before the table, a control line: the same blocks allocated with cuMemAlloc
(`sync_device`) and freed with cuMemFree, timed -- what the driver itself
takes to unmap that much memory, the floor under release_idle's time.

The PyTorch columns need torch with CUDA; the example runs without it (and
over the fake driver, as the test suite does) with those cells "-".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from typing import Callable, Optional

import workload_common  # noqa: F401  (puts this checkout's mrctx on the path)
import mrctx

GiB = 1 << 30
FAKE = "fakecuda" in os.environ.get("MRCTX_CUDA_DRIVER", "")


def load_torch():
    """torch with CUDA, or None (over the fake driver, never)."""
    if FAKE:
        return None
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


class Bytes:
    """Writes and checks a byte pattern in device memory: over the fake
    driver device memory is host memory; on a GPU, through CuPy or torch."""

    def __init__(self, torch):
        self.torch = torch
        self.cupy = None
        if not FAKE and torch is None:
            try:
                import cupy
                self.cupy = cupy
            except ImportError:
                pass

    @property
    def usable(self) -> bool:
        return FAKE or self.torch is not None or self.cupy is not None

    def _view(self, ptr: int, n: int):
        if self.torch is not None:
            class View:  # the CUDA Array Interface over raw device memory
                __cuda_array_interface__ = {"shape": (n,), "typestr": "|u1",
                                            "data": (ptr, False), "version": 3}
            return self.torch.as_tensor(View(), device="cuda")
        memory = self.cupy.cuda.UnownedMemory(ptr, n, self)
        return self.cupy.ndarray((n,), self.cupy.uint8,
                                 self.cupy.cuda.MemoryPointer(memory, 0))

    def fill(self, ptr: int, n: int, value: int) -> None:
        if FAKE:
            import ctypes
            ctypes.memset(ptr, value, n)
        else:
            view = self._view(ptr, n)
            if self.torch is not None:
                view.fill_(value)
            else:
                view.fill(value)

    def equal(self, ptr: int, n: int, value: int) -> bool:
        if FAKE:
            import ctypes
            data = ctypes.string_at(ptr, n)
            return data.count(value.to_bytes(1, "little")) == n
        return bool((self._view(ptr, n) == value).all())


def touch(resource: mrctx.Resource, total: int, block: int) -> list[int]:
    """Allocate `total` bytes in `block`-sized pieces on `resource`."""
    ptrs = []
    for _ in range(total // block):
        ptrs.append(resource.allocate(block))
    return ptrs


def release(resource: mrctx.Resource, ptrs: list[int], block: int) -> None:
    for ptr in ptrs:
        resource.deallocate(ptr, block)
    resource.synchronize()


def attempt(fn: Callable[[], Callable[[], None]]) -> str:
    """Run fn (which returns its cleanup); "ok N ms" or "OOM"."""
    start = time.perf_counter()
    try:
        cleanup = fn()
    except MemoryError:
        return "OOM"
    except RuntimeError as error:  # torch's out of memory before 2.5 and under shims
        if "out of memory" not in str(error).lower():
            raise
        return "OOM"
    ms = (time.perf_counter() - start) * 1e3
    cleanup()
    return f"ok {ms:.0f} ms"


def b_asks(ctx_b: mrctx.Context, nbytes: int) -> Callable[[], None]:
    resource = ctx_b.get_resource("work", 0)
    ptr = resource.allocate(nbytes)

    def cleanup() -> None:
        resource.deallocate(ptr, nbytes)
        resource.synchronize()
        resource.close()
    return cleanup


def torch_asks(torch, nbytes: int) -> Callable[[], None]:
    tensor = torch.empty(nbytes, dtype=torch.uint8, device="cuda")

    def cleanup() -> None:
        nonlocal tensor
        del tensor
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    return cleanup


def reclaimed(library: str) -> str:
    """What the process-wide reclaims took back from `library`'s resources
    so far, and how long they took there (the snapshot's idle_memory)."""
    nbytes = ns = 0
    for entry in mrctx.snapshot().get("idle_memory", []):
        if entry.get("owner", "").startswith(library + ":"):
            nbytes += entry["reclaimed_bytes"]
            ns += entry["reclaim_ns"]
    return f" (reclaim: {nbytes / GiB:.0f} GiB in {ns / 1e6:.0f} ms)" if nbytes else ""


def row(spec: str, args, torch, patterns: Bytes) -> dict[str, str]:
    free, total = mrctx.device_memory(0)
    block = args.block
    a_bytes = int(total * args.fraction_a) // block * block
    b_bytes = int(total * args.fraction_b)
    cells: dict[str, str] = {}

    def fresh() -> tuple[mrctx.Context, mrctx.Context]:
        return (mrctx.Context("libA", {"work": spec.format(count=a_bytes // block)}),
                mrctx.Context("libB", {"work": "device"}))

    def settle() -> None:
        mrctx.release_idle(-1, 0)
        if torch is not None:
            torch.cuda.empty_cache()

    # The control: B's request on a device where A holds nothing, so that
    # B's times below show what the reclaim adds to the mapping itself.
    ctx_a, ctx_b = fresh()
    cells["B alone"] = attempt(lambda: b_asks(ctx_b, b_bytes))
    ctx_a.close(), ctx_b.close()
    settle()

    # A idle on this thread.
    ctx_a, ctx_b = fresh()
    a = ctx_a.get_resource("work", 0)
    release(a, touch(a, a_bytes, block), block)
    cells["B, A idle here"] = attempt(lambda: b_asks(ctx_b, b_bytes)) + reclaimed("libA")
    a.close(), ctx_a.close(), ctx_b.close()
    settle()

    # A idle on another thread, alive while B asks.
    ctx_a, ctx_b = fresh()
    a = ctx_a.get_resource("work", 0)
    freed, done = threading.Event(), threading.Event()

    def other_thread() -> None:
        release(a, touch(a, a_bytes, block), block)
        freed.set()
        done.wait()
    worker = threading.Thread(target=other_thread)
    worker.start()
    freed.wait()
    cells["B, A idle elsewhere"] = attempt(lambda: b_asks(ctx_b, b_bytes)) + reclaimed("libA")
    done.set()
    worker.join()
    a.close(), ctx_a.close(), ctx_b.close()
    settle()

    # A live: B fails cleanly, A's bytes intact.
    ctx_a, ctx_b = fresh()
    a = ctx_a.get_resource("work", 0)
    ptrs = touch(a, a_bytes, block)
    # The pattern covers each block, or its two ends (--pattern-bytes).
    span = block if args.pattern_bytes == 0 else min(block, args.pattern_bytes)
    regions = [(ptr + offset, 0x5A + i % 7) for i, ptr in enumerate(ptrs)
               for offset in sorted({0, block - span})]
    if patterns.usable:
        for where, value in regions:
            patterns.fill(where, span, value)
    result = attempt(lambda: b_asks(ctx_b, b_bytes))
    intact = not patterns.usable or all(patterns.equal(where, span, value)
                                        for where, value in regions)
    if result == "OOM":
        cells["B, A live"] = "fails, intact" if intact else "fails, CORRUPT"
    else:
        cells["B, A live"] = f"NOT REFUSED ({result})"
    release(a, ptrs, block)
    a.close(), ctx_a.close(), ctx_b.close()
    settle()

    if torch is None:
        cells["torch, at once"] = cells["torch, release_idle"] = "-"
        return cells

    # PyTorch's own allocator after A freed: at once, then after release_idle().
    ctx_a = mrctx.Context("libA", {"work": spec.format(count=a_bytes // block)})
    a = ctx_a.get_resource("work", 0)
    release(a, touch(a, a_bytes, block), block)
    cells["torch, at once"] = attempt(lambda: torch_asks(torch, b_bytes))
    start = time.perf_counter()
    released = mrctx.release_idle(-1, 0)
    took = (time.perf_counter() - start) * 1e3
    cells["torch, release_idle"] = (attempt(lambda: torch_asks(torch, b_bytes))
                                    + f" (release_idle: {released / GiB:.0f} GiB in {took:.0f} ms)")
    a.close(), ctx_a.close()
    settle()

    # PyTorch's own allocator once A's idle memory went back by itself.
    if not spec.endswith(")"):
        cells["torch, after idle"] = "-"
        return cells
    idle_spec = with_idle(spec, args.idle)
    ctx_a = mrctx.Context("libA", {"work": idle_spec.format(count=a_bytes // block)})
    a = ctx_a.get_resource("work", 0)
    release(a, touch(a, a_bytes, block), block)
    start = time.perf_counter()
    deadline = start + 20 * parse_seconds(args.idle) + 5
    while mrctx.device_memory(0)[0] < b_bytes + (1 << 30) and time.perf_counter() < deadline:
        time.sleep(0.02)
    waited = time.perf_counter() - start
    cells["torch, after idle"] = (attempt(lambda: torch_asks(torch, b_bytes))
                                  + f" (back by itself after {waited:.1f} s)")
    a.close(), ctx_a.close()
    settle()
    return cells


def with_idle(spec: str, idle: str) -> str:
    """The spec with idle= on its keeping adaptor (inside stats(...))."""
    if spec.startswith("stats(") and spec.endswith(")"):
        return "stats(" + with_idle(spec[len("stats("):-1], idle) + ")"
    return spec[:-1] + f", idle={idle})"


def parse_seconds(text: str) -> float:
    """'500ms', '1s', '2m' -> seconds (the spec's idle= units)."""
    for unit, scale in (("us", 1e-6), ("ms", 1e-3), ("s", 1.0), ("m", 60.0), ("h", 3600.0)):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * scale
    raise ValueError(f"--idle {text}: a unit is required (us, ms, s, m, h)")


def driver_floor(args) -> str:
    """Allocate A's blocks with cuMemAlloc and time their cuMemFree."""
    free, total = mrctx.device_memory(0)
    a_bytes = int(total * args.fraction_a) // args.block * args.block
    with mrctx.Context("floor", {"work": "sync_device"}) as ctx:
        resource = ctx.get_resource("work", 0)
        ptrs = touch(resource, a_bytes, args.block)
        start = time.perf_counter()
        release(resource, ptrs, args.block)
        took = (time.perf_counter() - start) * 1e3
        resource.close()
    return (f"# driver floor: cuMemFree of {a_bytes / GiB:.0f} GiB in "
            f"{args.block / GiB:g} GiB blocks took {took:.0f} ms")


def torch_row(args, torch) -> dict[str, str]:
    """PyTorch's caching allocator holds the fraction cached; B asks."""
    free, total = mrctx.device_memory(0)
    a_bytes = int(total * args.fraction_a) // args.block * args.block
    tensors = [torch.empty(args.block, dtype=torch.uint8, device="cuda")
               for _ in range(a_bytes // args.block)]
    del tensors
    torch.cuda.synchronize()
    reserved = torch.cuda.memory_reserved()
    with mrctx.Context("libB", {"work": "device"}) as ctx_b:
        cell = attempt(lambda: b_asks(ctx_b, int(total * args.fraction_b)))
    torch.cuda.empty_cache()
    return {"B, torch idle": cell + f" (torch had {reserved / GiB:.0f} GiB cached)"}


SPECS = [
    "device",
    "cache(device)",
    "arena(device, chunk=1GiB)",
    "fixed(device, block=1GiB, count=1)",
    "stats(cache(device))",
]


def ok(cell: str) -> bool:
    return cell.startswith("ok") or cell in ("fails, intact", "-")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fraction-a", type=float, default=0.7,
                        help="what library A touches and frees (default 0.7)")
    parser.add_argument("--fraction-b", type=float, default=0.5,
                        help="what B and PyTorch ask for in one block (default 0.5)")
    parser.add_argument("--block", type=int, default=GiB, help="A's block size (default 1 GiB)")
    parser.add_argument("--pattern-bytes", type=int, default=0,
                        help="check this many bytes at each end of A's live blocks (default 0: all)")
    parser.add_argument("--spec", action="append",
                        help="A's spec ({count}: the blocks A touches); default: the five rows")
    parser.add_argument("--idle", default="1s",
                        help="A's idle= for the 'torch, after idle' column (default 1s)")
    parser.add_argument("--no-torch", action="store_true", help="leave the PyTorch cells out")
    parser.add_argument("--json", action="store_true", help="one JSON line per row")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 unless every cell is ok (torch 'at once' excepted)")
    args = parser.parse_args()

    torch = None if args.no_torch else load_torch()
    patterns = Bytes(torch)
    free, total = mrctx.device_memory(0)
    print(f"# device 0: {total / GiB:.1f} GiB, {free / GiB:.1f} GiB free; A touches "
          f"{args.fraction_a:.0%}, B and PyTorch ask {args.fraction_b:.0%}", flush=True)
    print(driver_floor(args), flush=True)
    rows: list[tuple[str, dict[str, str]]] = []
    for spec in args.spec or SPECS:
        try:
            cells = row(spec, args, torch, patterns)
        except mrctx.Error as error:  # A's own allocations failed: say so, go on
            cells = {"B alone": f"ERROR: {error}"}
            mrctx.release_idle(-1, 0)
        rows.append((spec, cells))
        if args.json:
            print(json.dumps({"spec": spec, **cells}), flush=True)
    if torch is not None:
        cells = torch_row(args, torch)
        rows.append(("PyTorch's own allocator", cells))
        if args.json:
            print(json.dumps({"spec": "torch", **cells}), flush=True)

    columns: list[str] = []
    for _, cells in rows:
        columns += [c for c in cells if c not in columns]
    print("| library A's memory | " + " | ".join(columns) + " |")
    print("| --- " * (len(columns) + 1) + "|")
    for spec, cells in rows:
        print(f"| `{spec}` | " + " | ".join(cells.get(c, "") for c in columns) + " |")

    bad: list[str] = []
    for spec, cells in rows:
        for column, cell in cells.items():
            if column != "torch, at once" and not ok(cell):
                bad.append(f"{spec}: {column}: {cell}")
    if args.check and bad:
        print("not ok:\n  " + "\n  ".join(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A batch-size search under mrctx.torch.use: the largest batch whose
training step stays within a memory budget, read from the tag's peak after
ctx.reset_peak() -- what torch.cuda.reset_peak_memory_stats() and
max_memory_allocated() do under PyTorch's own allocator, and which a
pluggable allocator does not have.

    python3 examples/batch_size_search.py --budget 4GiB
    SEARCH_MEMORY='memory=device' python3 examples/batch_size_search.py

Each batch size runs one step (forward, backward, optimizer) in a scope;
one line per batch says the tag's peak since the reset, the scope's own
peak and the driver pool's used high-water mark since its reset. The last
line is JSON. With --check it also checks what the search relies on (the
peak of a smaller step after a larger one is the smaller step's, not the
larger's) and prints PASS: tests/python/gpu/test_torch.py runs it so.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

# The mrctx package of this checkout, unless one is installed or on PYTHONPATH.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402

import mrctx  # noqa: E402
import mrctx.torch  # noqa: E402

UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def size(text: str) -> int:
    for unit, factor in UNITS.items():
        if text.endswith(unit):
            return int(float(text[:-len(unit)]) * factor)
    return int(text)


def step(model: torch.nn.Module, optimizer: torch.optim.Optimizer, batch: int, width: int) -> None:
    x = torch.randn(batch, width, device="cuda")
    loss = model(x).square().mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    del x, loss


def measure(ctx: mrctx.Context, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
            batch: int, width: int, device: int) -> dict[str, int]:
    torch.cuda.synchronize()
    # What a cache kept from the last step goes back to the pool, so that
    # the pool's mark, too, is this step's.
    ctx.trim("memory")
    ctx.reset_peak("memory")
    mrctx.reset_driver_pool_peak("device", device)
    entry = ctx.stats("memory").current_bytes  # the weights and the optimizer's state
    with ctx.scope(f"batch {batch}") as scope:
        step(model, optimizer, batch, width)
        torch.cuda.synchronize()
    return {"batch": batch, "peak_bytes": ctx.stats("memory").peak_bytes,
            "scope_peak_bytes": scope.result.peak_bytes, "entry_bytes": entry,
            "pool_used_high": mrctx.driver_pool_info("device", device).used_high}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=size, default=size("4GiB"),
                        help="the most the tag may hold during a step (default 4GiB)")
    parser.add_argument("--width", type=int, default=4096)
    parser.add_argument("--first", type=int, default=64, help="the first batch size")
    parser.add_argument("--last", type=int, default=1 << 16, help="the largest batch tried")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()

    ctx = mrctx.Context("search", {"memory": "cache(device)"}, env_var="SEARCH_MEMORY")
    mrctx.torch.use(ctx, "memory")  # before the first CUDA tensor
    device = torch.cuda.current_device()
    model = torch.nn.Sequential(torch.nn.Linear(args.width, 4 * args.width), torch.nn.GELU(),
                                torch.nn.Linear(4 * args.width, args.width)).cuda()
    optimizer = torch.optim.AdamW(model.parameters())
    step(model, optimizer, args.first, args.width)  # the optimizer's state, once

    results, best = [], None
    batch = args.first
    while batch <= args.last:
        result = measure(ctx, model, optimizer, batch, args.width, device)
        results.append(result)
        fits = result["peak_bytes"] <= args.budget
        print(f"batch {batch:>6}: peak {result['peak_bytes'] / 2**20:10.1f} MiB "
              f"(the step's own {result['scope_peak_bytes'] / 2**20:.1f} MiB), pool used high "
              f"{result['pool_used_high'] / 2**20:.1f} MiB: {'fits' if fits else 'too large'}")
        if not fits:
            break
        best = batch
        batch *= 2

    failures = []
    if args.check and len(results) < 2:
        failures.append("fewer than two batch sizes ran: lower --first, raise --last or --budget")
    elif args.check:
        # Backward allocates on PyTorch's autograd thread: with the default
        # sharded peaks a peak may read up to 16 MiB per thread off
        # (<mrctx/stats.h>), so neighbours are compared within that.
        slack = 32 << 20
        for small, large in zip(results, results[1:]):
            if small["peak_bytes"] > large["peak_bytes"] + slack:
                failures.append(f"peak of batch {large['batch']} is below batch "
                                f"{small['batch']}'s")
        if len(results) >= 2 and results[-1]["peak_bytes"] < results[0]["peak_bytes"] + 2 * slack:
            failures.append("the peaks hardly grew with the batch: raise --last or --width")
        for r in results:
            # The scope's peak is the tag's peak above what it held at entry.
            if abs(r["scope_peak_bytes"] - (r["peak_bytes"] - r["entry_bytes"])) > slack:
                failures.append(f"batch {r['batch']}: scope peak {r['scope_peak_bytes']} is not "
                                f"the tag's {r['peak_bytes']} less {r['entry_bytes']} at entry")
        # After the largest step, the smallest again: its own peak, not the
        # largest's, which a peak without a reset would still show.
        again = measure(ctx, model, optimizer, results[0]["batch"], args.width, device)
        if again["peak_bytes"] >= results[-1]["peak_bytes"]:
            failures.append(f"batch {again['batch']} after batch {results[-1]['batch']}: peak "
                            f"{again['peak_bytes']} is not below {results[-1]['peak_bytes']}: the "
                            "reset did not take")
        if again["pool_used_high"] >= results[-1]["pool_used_high"]:
            failures.append("the driver pool's used high-water mark did not reset")
        low, high = sorted((again["peak_bytes"], results[0]["peak_bytes"]))
        if high > low * 1.25 + slack:
            failures.append(f"batch {again['batch']} twice: peaks {results[0]['peak_bytes']} and "
                            f"{again['peak_bytes']} differ")
    ctx.print_scopes()
    print(json.dumps({"budget": args.budget, "largest_batch": best, "steps": results,
                      "spec": ctx.describe("memory", device), "failures": failures}))
    for failure in failures:
        print("FAIL:", failure)
    if args.check and not failures:
        print("PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

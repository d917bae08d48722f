#!/usr/bin/env python3
"""What one allocation costs through each allocator, from PyTorch: the
time of torch.empty + free for a mix of sizes (256 B to 4 MiB, 64 live),
after a warm-up, in ns per pair. Under mrctx this includes PyTorch's
pluggable wrapper (its own map under a mutex) and the shim;
pluggable-control is the same path over a trivial exact-size free list (the
least any pluggable allocator can cost).

    python3 examples/alloc_cost.py --allocator {torch,mrctx-cache,mrctx-device,pluggable-control} \\
        --steps 50 --warmup 10
"""

from __future__ import annotations

import torch

import workload_common as common

PAIRS_PER_STEP = 10_000


def main() -> None:
    args = common.parse(__doc__.splitlines()[0], common.TORCH_ALLOCATORS)
    ctx = common.install_torch(args.allocator, "alloc_cost")
    device = torch.device("cuda", args.device)
    torch.cuda.set_device(device)
    sizes = [256 << (i % 15) for i in range(64)]
    live: list[torch.Tensor] = [torch.empty(s, dtype=torch.uint8, device=device) for s in sizes]

    def step(_: int) -> None:
        for i in range(PAIRS_PER_STEP):
            k = i & 63
            live[k] = torch.empty(sizes[k], dtype=torch.uint8, device=device)

    counters = common.StepCounters(args.allocator, ctx, args.device)
    times = common.time_steps(step, torch.cuda.synchronize, args.warmup, args.steps, counters)
    ns = [t * 1e6 / PAIRS_PER_STEP for t in times]
    extra = {"torch_version": torch.__version__, "pairs_per_step": PAIRS_PER_STEP,
             "ns_per_pair_median": sorted(ns)[len(ns) // 2], "ns_per_pair_min": min(ns)}
    extra.update(common.torch_peaks(args.allocator, ctx, args.device))
    extra.update(counters.result(args.steps))
    common.report("alloc_cost", args, times, **extra)


if __name__ == "__main__":
    main()

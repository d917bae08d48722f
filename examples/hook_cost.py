#!/usr/bin/env python3
"""What an allocation and its free cost from Python through mrctx's ctypes
calls, with no framework: Resource.allocate + Resource.deallocate of one
block size on a cache(device) tag, which serves every pair from what it
holds, so the time is Python's and the library's, not the driver's. The
framework hooks that are Python make the same calls per block, besides the
framework's own: mrctx.numba, mrctx.cupy's pinned memory, and its device
memory where it falls back to the Python route (mrctx.cupy.route();
the C route makes no ctypes call per block). Runs on a GPU, or without one
over the fake driver (MRCTX_CUDA_DRIVER=build/tests/fake_driver/libfakecuda.so).

    python3 examples/hook_cost.py [--pairs 100000] [--repeats 5] [--bytes 1048576]
"""

from __future__ import annotations

import argparse
import json
import time

import mrctx


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--bytes", type=int, default=1 << 20)
    args = parser.parse_args()
    with mrctx.Context("hook_cost", {"blocks": "cache(device)"}) as ctx:
        blocks = ctx.get_resource("blocks", mrctx.current_device())
        blocks.deallocate(blocks.allocate(args.bytes), args.bytes)  # the cache's first miss
        us = []
        for _ in range(args.repeats):
            start = time.perf_counter_ns()
            for _ in range(args.pairs):
                ptr = blocks.allocate(args.bytes)
                blocks.deallocate(ptr, args.bytes)
            us.append((time.perf_counter_ns() - start) / args.pairs / 1000)
        hits = ctx.cache_stats("blocks", mrctx.current_device())["hits"]
    us.sort()
    print(json.dumps({"example": "hook_cost", "bytes": args.bytes, "pairs": args.pairs,
                      "us_per_pair_median": round(us[len(us) // 2], 3),
                      "us_per_pair_min": round(us[0], 3), "cache_hits": hits}))


if __name__ == "__main__":
    main()

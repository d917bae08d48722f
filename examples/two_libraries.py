#!/usr/bin/env python3
"""PyTorch and CuPy in one process, each with its own mrctx context and
environment variable: MYTORCH_MEMORY changes only PyTorch's memory,
MYCUPY_MEMORY only CuPy's. Both libraries' per-tag statistics are printed at
exit, and one JSON line gives each tag's spec and where it came from.

    python3 examples/two_libraries.py --steps 50 --warmup 10
    MYCUPY_MEMORY='arrays=cache(device)' python3 examples/two_libraries.py
"""

from __future__ import annotations

import argparse
import atexit
import dataclasses
import json
import sys

import cupy
import numpy
import torch

import workload_common  # noqa: F401  (puts this checkout's mrctx on the path)
import mrctx
import mrctx.cupy
import mrctx.torch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=10)
    args = parser.parse_args()

    mytorch = mrctx.Context("mytorch", {"tensors": "cache(device)"}, env_var="MYTORCH_MEMORY")
    mycupy = mrctx.Context("mycupy", {"arrays": "device", "staging": "pinned"},
                           env_var="MYCUPY_MEMORY")
    mrctx.torch.use(mytorch, "tensors")
    mrctx.cupy.use(mycupy, "arrays")
    mrctx.cupy.use_pinned(mycupy, "staging")

    def print_stats() -> None:
        mytorch.print_stats(sys.stdout)
        mycupy.print_stats(sys.stdout)

    atexit.register(print_stats)

    model = torch.nn.Sequential(torch.nn.Linear(2048, 8192), torch.nn.GELU(),
                                torch.nn.Linear(8192, 2048)).cuda()
    optimizer = torch.optim.AdamW(model.parameters())
    for step in range(args.warmup + args.steps):
        loss = model(torch.randn(512, 2048, device="cuda")).square().mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        # CuPy works on PyTorch's output, through DLPack, and on its own data.
        activations = cupy.from_dlpack(model[0].weight.detach())
        spectrum = cupy.fft.rfft(cupy.sort(activations.ravel()))
        staging = cupy.cuda.alloc_pinned_memory(1024 * spectrum.itemsize)
        spectrum[:1024].get(out=numpy.frombuffer(staging, spectrum.dtype, 1024))
        del activations, spectrum, staging
    torch.cuda.synchronize()

    specs = {}
    for ctx in (mytorch, mycupy):
        for tag in ctx.tags:
            source = ctx.source(tag, 0)
            specs[f"{ctx.library}/{tag}"] = {
                "spec": ctx.describe(tag, 0), "origin": source.origin, "where": source.where,
                "stats": dataclasses.asdict(ctx.stats(tag))}
    print(json.dumps({"script": "two_libraries", "steps": args.steps, "tags": specs},
                     sort_keys=True), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The batch-size search most training scripts do: grow the batch until a
step raises torch.OutOfMemoryError, keep the largest that ran, on
PyTorch's own allocator or under mrctx.torch.use, in the same memory.

    python3 examples/batch_size_oom.py --allocator torch --memory 8GiB
    python3 examples/batch_size_oom.py --allocator mrctx --memory 8GiB

The process may use --memory of the device (set_per_process_memory_fraction,
which both allocators honour); the batch doubles from --first until a step
fails, then the gap between the last that ran and the first that failed is
halved --refine times. Each failed step is caught as torch.OutOfMemoryError
(under mrctx too: the shim throws PyTorch's own type), its tensors are
dropped and the cache emptied, and the search goes on, as a user's script
does. The last line is JSON with the largest batch; tests/python/gpu/
test_torch.py runs both allocators and compares them.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys

# The mrctx package of this checkout, unless one is installed or on PYTHONPATH.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402

UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def size(text: str) -> int:
    for unit, factor in UNITS.items():
        if text.endswith(unit):
            return int(float(text[:-len(unit)]) * factor)
    return int(text)


def runs(model: torch.nn.Module, optimizer: torch.optim.Optimizer, batch: int,
         width: int) -> bool:
    """One training step at `batch`: True if it ran, False if it raised
    torch.OutOfMemoryError (whatever it held is given back first)."""
    try:
        x = torch.randn(batch, width, device="cuda")
        loss = model(x).square().mean()
        loss.backward()
        optimizer.step()
        torch.cuda.synchronize()
        ran = True
    except torch.OutOfMemoryError as error:
        print(f"batch {batch:>7}: torch.OutOfMemoryError: {str(error).splitlines()[0][:160]}")
        ran = False
    # What a failed step held is dropped with its frame; both allocators
    # then give their idle memory back, so each step starts alike.
    optimizer.zero_grad(set_to_none=True)
    x = loss = None
    gc.collect()
    torch.cuda.empty_cache()
    return ran


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--allocator", choices=("torch", "mrctx"), default="mrctx")
    parser.add_argument("--spec", default="cache(device)", help="the tag's spec under mrctx")
    parser.add_argument("--memory", type=size, default=size("8GiB"),
                        help="what the process may use of the device (default 8GiB)")
    parser.add_argument("--width", type=int, default=4096)
    parser.add_argument("--first", type=int, default=256, help="the first batch size")
    parser.add_argument("--refine", type=int, default=3,
                        help="halvings of the gap after the first failure (default 3)")
    args = parser.parse_args()

    if args.allocator == "mrctx":
        import mrctx
        import mrctx.torch
        ctx = mrctx.Context("oomsearch", {"memory": args.spec})
        mrctx.torch.use(ctx, "memory")  # before the first CUDA tensor
    total = torch.cuda.get_device_properties(0).total_memory
    if args.memory > total:
        print(f"--memory {args.memory} is more than the device's {total} bytes")
        return 2
    torch.cuda.set_per_process_memory_fraction(args.memory / total)
    model = torch.nn.Sequential(torch.nn.Linear(args.width, 4 * args.width), torch.nn.GELU(),
                                torch.nn.Linear(4 * args.width, args.width)).cuda()
    optimizer = torch.optim.AdamW(model.parameters())
    if not runs(model, optimizer, 1, args.width):  # the optimizer's state, once
        print("not even a batch of 1 fits: raise --memory")
        return 2

    ran, failed, batch = 0, 0, args.first
    while True:
        if runs(model, optimizer, batch, args.width):
            print(f"batch {batch:>7}: ran")
            ran, batch = batch, batch * 2
        else:
            failed = batch
            break
    for _ in range(args.refine):
        batch = (ran + failed) // 2
        if batch in (ran, failed):
            break
        if runs(model, optimizer, batch, args.width):
            print(f"batch {batch:>7}: ran")
            ran = batch
        else:
            failed = batch
    print(json.dumps({"allocator": args.allocator, "memory": args.memory,
                      "largest_batch": ran, "first_failed": failed,
                      "spec": args.spec if args.allocator == "mrctx" else None}))
    return 0 if ran > 0 else 1


if __name__ == "__main__":
    sys.exit(main())

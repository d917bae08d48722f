#!/usr/bin/env python3
"""Data-parallel training (DDP) under torchrun with every rank's memory on
mrctx tags, configured by one environment variable, and one view of all
ranks' memory at the end.

    torchrun --nproc_per_node=2 examples/torchrun_ddp.py --steps 20 --check
    TRAIN_MEMORY='memory=cache(device)' torchrun --nproc_per_node=2 examples/torchrun_ddp.py

Every rank makes the same context (library "train", tag "memory", default
spec "cache(device)"), overridden by TRAIN_MEMORY as any library's
variable is: the operator changes every rank's memory with one variable
and no code change (``TRAIN_MEMORY='memory=cache(device); memory@1=device'``
gives the ranks on device 1 the driver pool itself). PyTorch allocates
through the tag (mrctx.torch.use, before CUDA starts); each rank works on
the device LOCAL_RANK names (modulo the devices there are: with one GPU,
every rank shares it), so the tag resolves on that device. The backend is
gloo, which needs no NCCL and lets ranks share a GPU.

At the end each rank writes its snapshot (snapshot-rank<R>.json in --out),
which records its host and rank (RANK, LOCAL_RANK, WORLD_SIZE); rank 0
merges them (mrctx.merge_snapshots) and prints one table by host, rank,
device, library and tag. --check exits non-zero unless every rank's rows
are in the merged view with memory allocated through the tag.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import workload_common  # noqa: F401  (puts this checkout's mrctx on the path)
import mrctx

LIBRARY, TAG, DEFAULT_SPEC = "train", "memory", "cache(device)"
ENV_VAR = "TRAIN_MEMORY"


def snapshot_path(out: Path, rank: int) -> Path:
    return out / f"snapshot-rank{rank}.json"


def check_merged(merged: dict, world_size: int, library: str = LIBRARY,
                 tag: str = TAG) -> list[str]:
    """What is wrong with the merged view of a run of ``world_size`` ranks:
    each rank must be one process of the view and have a row for
    ``library:tag`` that allocated. Empty when all is well."""
    problems = []
    ranks = sorted(p["rank"] for p in merged["processes"] if p["rank"] is not None)
    if ranks != list(range(world_size)):
        problems.append(f"the merged view has ranks {ranks}, not 0 to {world_size - 1}")
    for rank in range(world_size):
        rows = [r for r in merged["rows"] if r["rank"] == rank and r["library"] == library
                and r["tag"] == tag]
        if not rows:
            problems.append(f"rank {rank}: no row for {library}:{tag}")
        elif not any(r["stats"]["total_count"] > 0 for r in rows):
            problems.append(f"rank {rank}: {library}:{tag} never allocated")
    return problems


def merge_and_report(out: Path, world_size: int, check: bool) -> int:
    """Rank 0's part: merge every rank's snapshot, print the table, and
    with ``check`` say what is missing. The exit status."""
    paths = [snapshot_path(out, rank) for rank in range(world_size)]
    print(mrctx.merge_snapshots_text(paths), end="")
    if not check:
        return 0
    problems = check_merged(mrctx.merge_snapshots(paths), world_size)
    for problem in problems:
        print(f"torchrun_ddp --check: {problem}", file=sys.stderr)
    if not problems:
        print(f"torchrun_ddp --check: all {world_size} ranks are in the merged view")
    return 1 if problems else 0


def train(args: argparse.Namespace) -> int:
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    import mrctx.torch

    rank = int(os.environ.get("RANK", "0"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    world_size = int(os.environ.get("WORLD_SIZE", "1"))

    # Before CUDA starts: PyTorch's allocations go through the tag.
    ctx = mrctx.Context(LIBRARY, {TAG: DEFAULT_SPEC}, env_var=ENV_VAR)
    mrctx.torch.use(ctx, TAG)
    device = local_rank % torch.cuda.device_count()
    torch.cuda.set_device(device)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(args.width, 4 * args.width), torch.nn.GELU(),
        torch.nn.Linear(4 * args.width, args.width)).cuda()
    ddp = DistributedDataParallel(model, device_ids=[device])
    optimizer = torch.optim.AdamW(ddp.parameters(), lr=1e-3)
    generator = torch.Generator(device="cuda").manual_seed(1000 + rank)
    for step in range(args.steps):
        x = torch.randn(args.batch, args.width, device="cuda", generator=generator)
        loss = (ddp(x) - x).pow(2).mean()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if rank == 0 and (step + 1) % max(1, args.steps // 4) == 0:
            print(f"step {step + 1}/{args.steps}: loss {loss.item():.4f}", flush=True)
    torch.cuda.synchronize()

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    mrctx.write_snapshot(snapshot_path(out, rank))
    with ctx.get_resource(TAG, device) as resource:
        print(f"rank {rank}: device {device}, {TAG}={resource.describe()}: "
              f"{ctx.stats(TAG, device).peak_bytes >> 20} MiB at peak", flush=True)
    dist.barrier()  # every snapshot written before rank 0 reads them
    status = merge_and_report(out, world_size, args.check) if rank == 0 else 0
    dist.destroy_process_group()
    return status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--width", type=int, default=1024)
    parser.add_argument("--out", default="torchrun-snapshots",
                        help="where each rank writes snapshot-rank<R>.json")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 unless every rank's rows are in the merged view")
    return train(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Share a CUDA tensor's memory with another process through mrctx, where
torch.multiprocessing cannot (its CUDA tensor sharing asks the allocator for
an IPC handle, and PyTorch's pluggable allocator, which mrctx.torch.use
installs, refuses: docs/integrations.md, "Pools shared between processes").

The parent allocates a Buffer from pool(kind=device, ipc=fd), views it as a
float32 tensor (DLPack, no copy), fills it on the GPU, and puts the Buffer
on a multiprocessing queue. The child (spawned) gets an imported Buffer over
the same device memory, views it as a tensor, checks every value on the GPU,
doubles it in place, releases its view and the import, and says so; the
parent then sees the doubled values and frees. Prints one JSON line.

    python3 examples/ipc_torch.py [--elements N] [--device D]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys

import torch

import mrctx

SPEC = "pool(kind=device, ipc=fd)"


def child(queue: "multiprocessing.Queue", replies: "multiprocessing.Queue", device: int) -> None:
    try:
        torch.cuda.set_device(device)
        buf = queue.get(timeout=120)  # an imported mrctx.Buffer: the parent's memory
        tensor = torch.from_dlpack(buf).view(torch.float32)
        expected = torch.arange(tensor.numel(), device=tensor.device, dtype=torch.float32)
        same = bool(torch.equal(tensor, expected))
        tensor.mul_(2)
        torch.cuda.synchronize()
        del tensor  # the view holds the Buffer through DLPack
        buf.release()  # frees the import and waits for the free
        replies.put({"pid": os.getpid(), "imported": True, "values_match": same})
    except BaseException as error:
        replies.put({"pid": os.getpid(), "error": f"{type(error).__name__}: {error}"})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=1 << 24)
    parser.add_argument("--device", type=int, default=0)
    args = parser.parse_args()
    torch.cuda.set_device(args.device)

    pool = mrctx.resolve(SPEC, args.device)
    buf = mrctx.Buffer(pool, args.elements * 4)
    tensor = torch.from_dlpack(buf).view(torch.float32)
    torch.arange(args.elements, out=tensor, dtype=torch.float32)
    torch.cuda.synchronize()

    context = multiprocessing.get_context("spawn")  # CUDA does not survive fork
    queue, replies = context.Queue(), context.Queue()
    worker = context.Process(target=child, args=(queue, replies, args.device))
    worker.start()
    queue.put(buf)  # pickling exports the pool's descriptor and the block
    reply = replies.get(timeout=300)
    worker.join(120)

    doubled = bool(torch.equal(tensor, 2 * torch.arange(args.elements, device=tensor.device,
                                                          dtype=torch.float32)))
    del tensor
    buf.release()  # after the child's release: the driver's rule
    pool.synchronize(0)  # the free done on its stream, not only queued
    used = pool.pool_info().used_bytes
    pool.close()
    ok = (reply.get("values_match") is True and doubled and worker.exitcode == 0 and used == 0)
    print(json.dumps({"example": "ipc_torch", "ok": ok, "elements": args.elements,
                      "child": reply, "parent_sees_child_writes": doubled,
                      "pool_used_bytes_after": used, "torch": torch.__version__,
                      "device": torch.cuda.get_device_name(args.device)}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

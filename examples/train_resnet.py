#!/usr/bin/env python3
"""torchvision's ResNet-50 (random weights) trained on random images:
batch 128, 224x224, AdamW, bf16 autocast. Times each step and reports peak
device memory as one JSON line.

    python3 examples/train_resnet.py --allocator {torch,mrctx-cache,mrctx-device} --steps 50 --warmup 10
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
import torchvision

import workload_common as common

BATCH, CLASSES = 128, 1000


def main() -> None:
    args = common.parse(__doc__.splitlines()[0], ["torch", "mrctx-cache", "mrctx-device"])
    ctx = common.mrctx_context(args.allocator, "train_resnet")
    if ctx is not None:
        import mrctx.torch
        mrctx.torch.use(ctx, common.TAG)
    device = torch.device("cuda", args.device)
    torch.cuda.set_device(device)
    torch.manual_seed(0)
    model = torchvision.models.resnet50(weights=None).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def step(_: int) -> None:
        images = torch.randn(BATCH, 3, 224, 224, device=device)
        labels = torch.randint(0, CLASSES, (BATCH,), device=device)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    times = common.time_steps(step, torch.cuda.synchronize, args.warmup, args.steps)
    extra = {"torch_version": torch.__version__, "device_name": torch.cuda.get_device_name(device)}
    if ctx is None:
        extra.update(peak_reserved_bytes=torch.cuda.max_memory_reserved(device),
                     peak_used_bytes=torch.cuda.max_memory_allocated(device))
    else:
        extra.update(common.mrctx_peaks(ctx, args.device))
    common.report("train_resnet", args, times, **extra)


if __name__ == "__main__":
    main()

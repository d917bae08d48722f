#!/usr/bin/env python3
"""torchvision's ResNet-50 (random weights) trained on random images:
batch 128, 224x224, AdamW, bf16 autocast. Times each step and reports peak
device memory and the allocator's counters per step as one JSON line
(MRCTX_TORCH_TIMING=1 adds the time inside the allocator's calls).

    python3 examples/train_resnet.py --allocator {torch,mrctx-cache,mrctx-device,pluggable-control} \\
        --steps 50 --warmup 10 [--cudnn-benchmark]

--cudnn-benchmark turns on cuDNN's algorithm search
(torch.backends.cudnn.benchmark), as vision training usually does.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
import torchvision

import workload_common as common

BATCH, CLASSES = 128, 1000


def main() -> None:
    args = common.parse(__doc__.splitlines()[0], common.TORCH_ALLOCATORS)
    ctx = common.install_torch(args.allocator, "train_resnet")
    device = torch.device("cuda", args.device)
    torch.cuda.set_device(device)
    torch.backends.cudnn.benchmark = args.cudnn_benchmark
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

    counters = common.StepCounters(args.allocator, ctx, args.device)
    times = common.time_steps(step, torch.cuda.synchronize, args.warmup, args.steps, counters)
    extra = {"cudnn_benchmark": args.cudnn_benchmark, "torch_version": torch.__version__,
             "device_name": torch.cuda.get_device_name(device)}
    extra.update(common.torch_peaks(args.allocator, ctx, args.device))
    extra.update(counters.result(args.steps))
    common.report("train_resnet", args, times, **extra)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A GPT-style transformer trained on random tokens: 12 layers, width 768,
12 heads, sequence 512, batch 16, AdamW, bf16 autocast. Times each step and
reports peak device memory and the allocator's counters per step as one JSON
line (MRCTX_TORCH_TIMING=1 adds the time inside the allocator's calls).

    python3 examples/train_gpt.py --allocator {torch,mrctx-cache,mrctx-device,pluggable-control} \\
        --steps 50 --warmup 10 [--graph]

--graph captures the whole step (forward, backward, a capturable AdamW's
step) in one CUDA graph after three warm-up steps on a side stream, as
PyTorch's docs show ("whole-network capture"), and each step copies new
tokens into the graph's input and replays it.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

import workload_common as common

LAYERS, WIDTH, HEADS, SEQ, BATCH, VOCAB = 12, 768, 12, 512, 16, 50304


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(WIDTH)
        self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
        self.proj = nn.Linear(WIDTH, WIDTH)
        self.ln2 = nn.LayerNorm(WIDTH)
        self.fc = nn.Linear(WIDTH, 4 * WIDTH)
        self.out = nn.Linear(4 * WIDTH, WIDTH)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(WIDTH, dim=2)
        q, k, v = (z.view(b, t, HEADS, c // HEADS).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, c))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.tokens = nn.Embedding(VOCAB, WIDTH)
        self.positions = nn.Embedding(SEQ, WIDTH)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, VOCAB, bias=False)
        self.head.weight = self.tokens.weight
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * LAYERS))

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = self.tokens(idx) + self.positions(torch.arange(idx.shape[1], device=idx.device))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))


def main() -> None:
    args = common.parse(__doc__.splitlines()[0], common.TORCH_ALLOCATORS)
    ctx = common.install_torch(args.allocator, "train_gpt")
    device = torch.device("cuda", args.device)
    torch.cuda.set_device(device)
    torch.manual_seed(0)
    model = GPT().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, capturable=args.graph)

    def train(tokens: torch.Tensor) -> torch.Tensor:
        # Autocast's weight cache must be off inside a capture (PyTorch's docs).
        with torch.autocast("cuda", dtype=torch.bfloat16, cache_enabled=not args.graph):
            logits = model(tokens[:, :-1])
            loss = F.cross_entropy(logits.view(-1, VOCAB), tokens[:, 1:].reshape(-1))
        loss.backward()
        optimizer.step()
        return loss

    def step(_: int) -> None:
        tokens = torch.randint(0, VOCAB, (BATCH, SEQ + 1), device=device)
        train(tokens)
        optimizer.zero_grad(set_to_none=True)

    if args.graph:
        static = torch.randint(0, VOCAB, (BATCH, SEQ + 1), device=device)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                optimizer.zero_grad(set_to_none=True)
                train(static)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        optimizer.zero_grad(set_to_none=True)
        with torch.cuda.graph(graph):
            train(static)

        def step(_: int) -> None:  # noqa: F811  the graphed step
            static.copy_(torch.randint(0, VOCAB, (BATCH, SEQ + 1), device=device))
            graph.replay()

    counters = common.StepCounters(args.allocator, ctx, args.device)
    times = common.time_steps(step, torch.cuda.synchronize, args.warmup, args.steps, counters)
    extra = {"graph": args.graph, "torch_version": torch.__version__,
             "device_name": torch.cuda.get_device_name(device)}
    extra.update(common.torch_peaks(args.allocator, ctx, args.device))
    extra.update(counters.result(args.steps))
    common.report("train_gpt", args, times, **extra)


if __name__ == "__main__":
    main()

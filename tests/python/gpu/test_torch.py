"""mrctx.torch on a real GPU: PyTorch's allocations through a tag
(CUDAPluggableAllocator), MemPool routing, and the bad inputs of issue 10.
Each scenario runs in its own process and prints its steps."""

import pytest

from gpu_util import require, require_gpu, run


@pytest.fixture(autouse=True)
def _gpu():
    require_gpu()
    require("torch")


def test_use_routes_every_allocation():
    run("""
        import threading
        import torch
        import mrctx, mrctx.torch
        ctx = mrctx.Context("torchtest", {"act": "cache(device)", "cpu": "host"})
        MiB = 1 << 20

        # Bad input first: nothing may reach PyTorch.
        for tag, error in (("cpu", mrctx.FrameworkError), ("nope", mrctx.TagError)):
            try:
                mrctx.torch.use(ctx, tag)
                raise SystemExit(f"use({tag}) did not raise")
            except error as e:
                print("refused:", e)
                assert "torchtest" in str(e) and tag in str(e)
        closed = mrctx.Context("closedlib", {"t": "device"}); closed.close()
        try:
            mrctx.torch.use(closed, "t"); raise SystemExit("closed context accepted")
        except mrctx.ClosedError as e:
            print("refused:", e)

        mrctx.torch.use(ctx, "act")
        print("installed:", mrctx.torch.installed())
        x = torch.empty(16 * MiB // 4, device="cuda")
        stats = ctx.stats("act")
        print("after 16 MiB tensor:", stats)
        assert stats["current_bytes"] >= 16 * MiB, stats
        del x
        assert ctx.stats("act")["current_bytes"] == 0, ctx.stats("act")

        # A side stream: freed on the stream it was allocated on.
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            y = torch.ones(MiB, device="cuda") * 2
            total = float(y.sum())
            del y
        torch.cuda.synchronize()
        assert total == 2 * MiB, total

        # Training steps: autograd frees on its own threads.
        model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(),
                                    torch.nn.Linear(4096, 1024)).cuda()
        opt = torch.optim.AdamW(model.parameters())
        for _ in range(5):
            loss = model(torch.randn(256, 1024, device="cuda")).square().mean()
            loss.backward(); opt.step(); opt.zero_grad()
        torch.cuda.synchronize()
        print("after training:", ctx.stats("act"))
        assert ctx.stats("act")["total_count"] > 20

        # Out of memory: a clear error, and PyTorch keeps working.
        try:
            torch.empty(1 << 50, dtype=torch.uint8, device="cuda")
            raise SystemExit("a 1 PiB tensor was allocated")
        except RuntimeError as e:
            print("OOM:", type(e).__name__, str(e)[:300])
            assert "CUDA out of memory" in str(e) and "mrctx" in str(e), e
        assert float(torch.ones(10, device="cuda").sum()) == 10

        # A second allocator, or a pool on top, is refused.
        for call in (lambda: mrctx.torch.use(ctx, "cpu"), lambda: mrctx.torch.pool(ctx, "act")):
            try:
                call(); raise SystemExit("accepted after use()")
            except mrctx.FrameworkError as e:
                print("refused:", e)
        count, message = mrctx.torch.failed_frees()
        assert count == 0, message
        ctx.print_stats()
        print("PASS")
        """)


def test_use_after_pytorch_initialised_cuda():
    run("""
        import torch
        import mrctx, mrctx.torch
        before = torch.zeros(4, device="cuda")
        ctx = mrctx.Context("latelib", {"act": "device"})
        try:
            mrctx.torch.use(ctx, "act")
            raise SystemExit("use() after CUDA init did not raise")
        except mrctx.FrameworkError as e:
            print("refused:", e)
            assert "latelib/act" in str(e) and "already initialised" in str(e)
        assert float(torch.ones(8, device="cuda").sum()) == 8
        assert torch.cuda.max_memory_reserved() > 0  # PyTorch's own allocator
        print("PASS")
        """)


def test_mempool_routes_a_region():
    run("""
        import gc
        import torch
        import mrctx, mrctx.torch
        ctx = mrctx.Context("pooltest", {"opt": "device", "act": "cache(device)", "cpu": "host"})
        MiB = 1 << 20
        try:
            mrctx.torch.pool(ctx, "cpu"); raise SystemExit("host tag accepted")
        except mrctx.FrameworkError as e:
            print("refused:", e)
        pool = mrctx.torch.pool(ctx, "opt")
        outside = torch.empty(32 * MiB // 4, device="cuda")
        with torch.cuda.use_mem_pool(pool):
            inside = torch.empty(64 * MiB // 4, device="cuda")
        stats = ctx.stats("opt")
        print("pool tag:", stats, "act tag:", ctx.stats("act"))
        assert stats["current_bytes"] >= 64 * MiB, stats
        assert stats["current_bytes"] < 96 * MiB, "the region outside the pool was counted"
        with torch.cuda.use_mem_pool(pool):
            try:
                torch.empty(1 << 50, dtype=torch.uint8, device="cuda")
                raise SystemExit("1 PiB allocated")
            except torch.OutOfMemoryError as e:
                print("OOM in the pool:", str(e)[:200])
        second = mrctx.torch.pool(ctx, "act")
        with torch.cuda.use_mem_pool(second):
            t = torch.ones(MiB, device="cuda")
        assert ctx.stats("act")["current_bytes"] >= 4 * MiB
        del inside, t, outside
        del pool, second
        gc.collect()
        torch.cuda.empty_cache()
        torch.cuda.synchronize()
        print("after the pools are gone:", ctx.stats())
        count, message = mrctx.torch.failed_frees()
        assert count == 0, message
        print("PASS")
        """)

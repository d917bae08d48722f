"""mrctx.export_memory_viz on a real GPU, read back by PyTorch's own
memory_viz reader (torch.cuda._memory_viz): PyTorch's allocations through
a tracked tag with call sites and a library's own tracked tag, each its
own pool. Runs in its own process (mrctx.torch.use takes over PyTorch's
allocator for the process)."""

import os

import pytest

from gpu_util import require, require_gpu, run

CHECKER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def _gpu():
    require_gpu()
    require("torch")


def test_pytorch_reads_the_export(tmp_path):
    path = tmp_path / "viz.pickle"
    run(f"""
        import inspect, pickle, sys
        sys.path.insert(0, {CHECKER_DIR!r})
        import torch
        import torch.cuda._memory_viz as mv
        import mrctx, mrctx.torch
        import memory_viz_check

        ctx = mrctx.Context("vizgpu", {{"act": "track(cache(device), stacks=16)",
                                       "temp": "track(device)"}})
        mrctx.torch.use(ctx, "act")
        model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(),
                                    torch.nn.Linear(4096, 1024)).cuda()
        opt = torch.optim.AdamW(model.parameters())
        for _ in range(3):
            loss = model(torch.randn(64, 1024, device="cuda")).square().mean()
            loss.backward()
            opt.step()
            opt.zero_grad()
        torch.cuda.synchronize()
        temp = ctx.get_resource("temp")
        ptr = temp.allocate(8 << 20)
        mrctx.export_memory_viz({str(path)!r})
        with open({str(path)!r}, "rb") as f:
            raw = f.read()
        problems = memory_viz_check.problems(raw)
        assert not problems, problems
        data = pickle.loads(raw)

        pools = dict((name, pool) for pool, name in memory_viz_check.owners(data)[0].items())
        print("pools:", pools)
        assert set(pools) >= {{"vizgpu:act", "vizgpu:temp"}}, pools
        live = ctx.stats("act")["current_count"]
        act = [s for s in data["segments"] if s["frames"][-1]["name"] == "vizgpu:act"]
        print("act: live", live, "segments", len(act))
        assert len(act) == min(live, 10000) and live > 0
        assert any(len(s["blocks"][0]["frames"]) > 1 for s in act), "no call sites"
        assert [s["total_size"] for s in data["segments"]
                if s["frames"][-1]["name"] == "vizgpu:temp"] == [8 << 20]

        # PyTorch's own reader: every function of torch.cuda._memory_viz
        # that takes a snapshot (the flame graphs given a stand-in for
        # flamegraph.pl, which they would download).
        lines = lambda text: text
        print(mv.segsum(data)[:2000])
        print(mv.trace(data)[-2000:])
        flame = mv.memory(data, format_flamegraph=lines)
        assert "vizgpu:act" in flame and "vizgpu:temp" in flame, flame[:2000]
        assert "vizgpu:act" in mv.segments(data, format_flamegraph=lines)
        for plot in ("trace_plot", "segment_plot"):
            html = getattr(mv, plot)(data)
            assert "snapshot.pickle" in html and "MemoryViz.js" in html, html[:500]
        if hasattr(mv, "compare"):
            mv.compare(data["segments"], data["segments"], format_flamegraph=lines)

        temp.deallocate(ptr, 8 << 20)
        print("PASS")
        """)


def test_keys_beside_pytorchs_own_snapshot(tmp_path):
    """PyTorch's own snapshot (its caching allocator, history recorded)
    beside mrctx's: the keys of a segment, a block and a trace entry that
    PyTorch writes and mrctx does not are printed; those the reader needs
    must be in both."""
    path = tmp_path / "viz.pickle"
    run(f"""
        import pickle
        import torch
        import mrctx

        torch.cuda.memory._record_memory_history(max_entries=1000)
        x = torch.empty(4 << 20, device="cuda")
        y = torch.empty(1000, device="cuda")
        del y
        theirs = torch.cuda.memory._snapshot()
        ctx = mrctx.Context("vizkeys", {{"t": "track(device, stacks=4)"}})
        r = ctx.get_resource("t")
        ptr = r.allocate(1 << 20)
        mrctx.export_memory_viz({str(path)!r})
        with open({str(path)!r}, "rb") as f:
            ours = pickle.load(f)
        r.deallocate(ptr, 1 << 20)

        def keys(snap):
            seg = next(s for s in snap["segments"] if s["blocks"])
            block = next(b for s in snap["segments"] for b in s["blocks"]
                         if b["state"] == "active_allocated")
            entry = next(e for t in snap["device_traces"] for e in t if e["action"] == "alloc")
            return set(seg), set(block), set(entry)

        needed = ({{"device", "address", "total_size", "allocated_size", "stream", "blocks"}},
                  {{"size", "state", "requested_size", "frames"}},
                  {{"action", "addr", "size", "stream", "frames"}})
        print("torch", torch.__version__)
        for what, t, o, n in zip(("segment", "block", "trace entry"), keys(theirs), keys(ours),
                                 needed):
            print(what, "PyTorch's only:", sorted(t - o), "mrctx's only:", sorted(o - t))
            assert n <= t and n <= o, (what, n - t, n - o)
        del x
        print("PASS")
        """)

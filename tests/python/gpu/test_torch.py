"""mrctx.torch on a real GPU: PyTorch's allocations through a tag
(CUDAPluggableAllocator), MemPool routing, and the bad inputs of issue 10.
Each scenario runs in its own process and prints its steps."""

import os

import pytest

from gpu_util import require, require_gpu, run

# memory_viz_check.py: what PyTorch's memory_viz page reads, checked.
CHECKER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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


@pytest.mark.parametrize("route", ["use", "control", "pool"])
def test_out_of_memory_is_torch_outofmemoryerror(route, tmp_path):
    """Issue 37, item 3: `except torch.OutOfMemoryError` catches mrctx's
    out of memory under use() and use_control() (the shim throws
    c10::OutOfMemoryError through the helper built at use() against this
    PyTorch, into a fresh cache), with mrctx's message; RuntimeError
    catches it too. Under pool() the error is PyTorch's own, after PyTorch
    gave back its cached segments and tried again."""
    run("""
        import contextlib, warnings
        import torch
        import mrctx, mrctx.torch
        route = ROUTE
        MiB = 1 << 20
        ctx = mrctx.Context("oomtest", {"act": "limit(cache(device), bytes=64MiB)"})
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if route == "use":
                mrctx.torch.use(ctx, "act")
            elif route == "control":
                mrctx.torch.use_control()
        print("helper:", mrctx.torch.oom_helper(), [str(w.message) for w in caught])
        # The helper must build here (a compiler and PyTorch's headers).
        assert not any("OutOfMemoryError" in str(w.message) for w in caught), caught
        if route != "pool":
            assert mrctx.torch.oom_helper()[0] is not None, mrctx.torch.oom_helper()
        pool = mrctx.torch.pool(ctx, "act") if route == "pool" else None

        with torch.cuda.use_mem_pool(pool) if pool is not None else contextlib.nullcontext():
            kept = torch.empty(48 * MiB, dtype=torch.uint8, device="cuda")
            size = (1 << 50) if route == "control" else 32 * MiB
            try:
                torch.empty(size, dtype=torch.uint8, device="cuda")
                raise SystemExit("allocated past the limit")
            except torch.OutOfMemoryError as e:
                assert isinstance(e, RuntimeError)
                print(route, "OOM:", type(e).__name__, str(e)[:400])
                if route != "pool":
                    assert str(e).startswith("CUDA out of memory. mrctx ("), e
                    assert ("control" if route == "control" else "oomtest/act") in str(e), e
            del kept
            t = torch.ones(MiB, device="cuda")  # PyTorch allocates on
            assert float(t.sum()) == MiB
            del t
        print("PASS")
        """.replace("ROUTE", repr(route)), XDG_CACHE_HOME=str(tmp_path))


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


def test_control_allocator_and_timing():
    """The measurement control (mrctx.torch.use_control): PyTorch runs over
    it, a block comes back only at its size on its stream, it never gives
    memory back, and MRCTX_TORCH_TIMING=1 hands PyTorch the timed pair."""
    run("""
        import torch
        import mrctx, mrctx.torch
        MiB = 1 << 20
        mrctx.torch.use_control()
        assert mrctx.torch.installed() == "control" and mrctx.torch.timed()
        ctx = mrctx.Context("controltest", {"t": "device"})
        for call in (lambda: mrctx.torch.use(ctx, "t"), lambda: mrctx.torch.pool(ctx, "t")):
            try:
                call(); raise SystemExit("accepted after use_control()")
            except mrctx.FrameworkError as e:
                print("refused:", e)
        mrctx.torch.use_control()  # again: a no-op

        before = mrctx.torch.control_stats()
        x = torch.empty(MiB, dtype=torch.uint8, device="cuda")
        p = x.data_ptr()
        del x
        y = torch.empty(MiB, dtype=torch.uint8, device="cuda")
        assert y.data_ptr() == p, "the same size on the same stream: the same block"
        del y
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            z = torch.ones(MiB, dtype=torch.uint8, device="cuda")
            assert z.data_ptr() != p, "a block freed on one stream went to another"
            total = int(z.sum())
            del z
        torch.cuda.synchronize()
        assert total == MiB
        stats = mrctx.torch.control_stats()
        print("control:", stats)
        assert stats["hits"] - before["hits"] >= 1 and stats["misses"] - before["misses"] >= 2

        model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(),
                                    torch.nn.Linear(4096, 1024)).cuda()
        opt = torch.optim.AdamW(model.parameters())
        mrctx.torch.reset_timing()
        mid = mrctx.torch.control_stats()
        for _ in range(5):
            loss = model(torch.randn(256, 1024, device="cuda")).square().mean()
            loss.backward(); opt.step(); opt.zero_grad()
        torch.cuda.synchronize()
        after = mrctx.torch.control_stats()
        timing = mrctx.torch.timing()
        print("training steps:", after, timing)
        allocs = after["hits"] + after["misses"] - mid["hits"] - mid["misses"]
        assert allocs > 20 and after["hits"] > mid["hits"], (mid, after)
        assert timing["alloc"]["calls"] == allocs, (allocs, timing)
        assert timing["free"]["calls"] >= after["frees"] - mid["frees"], timing
        assert after["reserved_bytes"] >= after["live_bytes"] + after["cached_bytes"]

        try:
            torch.empty(1 << 50, dtype=torch.uint8, device="cuda")
            raise SystemExit("a 1 PiB tensor was allocated")
        except RuntimeError as e:
            print("OOM:", str(e)[:300])
            assert "CUDA out of memory" in str(e) and "control" in str(e), e
        assert float(torch.ones(10, device="cuda").sum()) == 10
        count, message = mrctx.torch.failed_frees()
        assert count == 0, message
        print("PASS")
        """, MRCTX_TORCH_TIMING="1")


def test_timing_of_a_tag_only_when_asked():
    """use() hands PyTorch the plain pair unless MRCTX_TORCH_TIMING=1."""
    code = """
        import os, torch
        import mrctx, mrctx.torch
        ctx = mrctx.Context("timingtest", {"act": "cache(device)"})
        mrctx.torch.use(ctx, "act")
        timed = os.environ.get("MRCTX_TORCH_TIMING") == "1"
        assert mrctx.torch.timed() == timed
        before = ctx.stats("act")["total_count"]
        for _ in range(10):
            x = torch.empty(1 << 20, device="cuda"); del x
        torch.cuda.synchronize()
        allocs = ctx.stats("act")["total_count"] - before
        calls = mrctx.torch.timing()["alloc"]["calls"]
        print("allocations", allocs, "timed calls", calls, "cache", ctx.cache_stats("act"))
        assert calls == (allocs if timed else 0) and allocs >= 10
        print("PASS")
        """
    run(code, MRCTX_TORCH_TIMING="1")
    run(code, MRCTX_TORCH_TIMING="0")
    out = run("""
        import torch, mrctx, mrctx.torch
        ctx = mrctx.Context("timingbad", {"act": "device"})
        try:
            mrctx.torch.use(ctx, "act"); raise SystemExit("MRCTX_TORCH_TIMING=yes accepted")
        except mrctx.FrameworkError as e:
            print("refused:", e)
            assert "MRCTX_TORCH_TIMING" in str(e)
        assert mrctx.torch.installed() is None
        print("PASS")
        """, MRCTX_TORCH_TIMING="yes")
    assert "refused" in out


def test_workload_line_has_counters():
    """The workload scripts' JSON line carries the per-step counters, for
    the control and a tag, timed."""
    import json
    import os
    import subprocess
    import sys
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                          "examples", "alloc_cost.py")
    env = dict(os.environ, MRCTX_TORCH_TIMING="1")
    env.pop("MRCTX_CUDA_DRIVER", None)
    for allocator, source in (("pluggable-control", "control"), ("mrctx-cache", "cache"),
                              ("mrctx-device", "tag"), ("torch", "torch")):
        done = subprocess.run([sys.executable, script, "--allocator", allocator, "--steps", "2",
                               "--warmup", "1"], env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        line = json.loads(done.stdout.splitlines()[-1])
        print(allocator, {k: v for k, v in line.items() if "step" in k or k == "hit_rate"})
        assert line["counters_from"] == source
        assert line["allocs_per_step"] >= 10_000 and line["frees_per_step"] >= 10_000
        assert line["hits_per_step"] + line["misses_per_step"] >= 10_000 * 0.99
        if allocator == "torch":
            assert line["alloc_ns_per_step"] is None  # PyTorch's own: not through the shim
        else:
            assert line["alloc_calls_per_step"] == line["allocs_per_step"]
            assert line["allocator_ms_per_step"] > 0


def test_batch_size_search_with_reset_peak():
    """Issue 23: a batch-size search under mrctx.torch.use, reading the
    tag's peak after ctx.reset_peak() (examples/batch_size_search.py
    --check: each larger batch peaks higher, the smallest batch run again
    after the largest peaks as it did the first time, the scope's peak is
    the tag's above what it held at entry, and the driver pool's mark
    resets too)."""
    import os
    import subprocess
    import sys
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                          "examples", "batch_size_search.py")
    env = dict(os.environ)
    env.pop("MRCTX_CUDA_DRIVER", None)
    for spec in ("memory=cache(device)", "memory=device", "memory=stats(cache(device), peak=exact)"):
        done = subprocess.run([sys.executable, script, "--check", "--width", "1024", "--first",
                               "32", "--last", "8192", "--budget", "64GiB"],
                              env=dict(env, SEARCH_MEMORY=spec), capture_output=True, text=True,
                              timeout=300)
        print(spec, done.stdout[-3000:], done.stderr[-3000:])
        assert done.returncode == 0 and done.stdout.rstrip().endswith("PASS"), spec


def test_batch_size_search_by_out_of_memory_finds_pytorchs_batch():
    """Issue 37's target: the search most scripts do (grow the batch until
    torch.OutOfMemoryError, examples/batch_size_oom.py) runs under
    mrctx.torch.use as on PyTorch's own allocator, in the same memory, and
    ends at the same batch."""
    import json
    import os
    import subprocess
    import sys
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                          "examples", "batch_size_oom.py")
    env = dict(os.environ)
    env.pop("MRCTX_CUDA_DRIVER", None)
    found = {}
    for allocator in ("torch", "mrctx"):
        done = subprocess.run([sys.executable, script, "--allocator", allocator, "--memory",
                               "8GiB"], env=env, capture_output=True, text=True, timeout=300)
        print(allocator, done.stdout[-2500:], done.stderr[-2500:])
        assert done.returncode == 0, allocator
        assert "torch.OutOfMemoryError" in done.stdout, allocator
        found[allocator] = json.loads(done.stdout.strip().splitlines()[-1])
    print("found:", found)
    assert found["mrctx"]["largest_batch"] == found["torch"]["largest_batch"], found


# ---- Issue 23, item 3: PyTorch's controls under mrctx.torch.use -------------

def test_empty_cache_trims_the_tag_and_the_pool():
    """torch.cuda.empty_cache() trims the tag's cache and the device's
    driver pool: the pool's reserved memory drops."""
    run("""
        import torch
        import mrctx, mrctx.torch
        MiB = 1 << 20
        ctx = mrctx.Context("emptytest", {"act": "cache(device)"})
        mrctx.torch.use(ctx, "act")
        xs = [torch.empty(n * MiB, dtype=torch.uint8, device="cuda") for n in (64, 128, 256)]
        del xs
        torch.cuda.synchronize()
        before = mrctx.driver_pool_info("device", 0)
        cached = ctx.cache_stats("act", 0)["cached_bytes"]
        print("before:", before, "cached:", cached)
        assert cached >= 448 * MiB and before["reserved_bytes"] >= 448 * MiB
        torch.cuda.empty_cache()
        after = mrctx.driver_pool_info("device", 0)
        print("after:", after, ctx.cache_stats("act", 0))
        assert ctx.cache_stats("act", 0)["cached_bytes"] == 0
        assert after["reserved_bytes"] <= before["reserved_bytes"] - 448 * MiB, (before, after)
        y = torch.ones(MiB, device="cuda")  # and it allocates again
        assert float(y.sum()) == MiB
        print("PASS")
        """)


def test_memory_fraction_limits_the_tag():
    run("""
        import torch
        import mrctx, mrctx.torch
        ctx = mrctx.Context("fractiontest", {"act": "cache(device)"})
        mrctx.torch.use(ctx, "act", patch=True)
        total = torch.cuda.get_device_properties(0).total_memory
        torch.cuda.set_per_process_memory_fraction(0.1, 0)
        assert torch.cuda.get_per_process_memory_fraction(0) == 0.1
        assert mrctx.torch.memory_limit(0) == int(total * 0.1), mrctx.torch.memory_limit(0)
        ok = torch.empty(int(total * 0.05), dtype=torch.uint8, device="cuda")
        try:
            torch.empty(int(total * 0.06), dtype=torch.uint8, device="cuda")
            raise SystemExit("an allocation past the fraction succeeded")
        except RuntimeError as e:
            print("refused:", str(e)[:400])
            assert "CUDA out of memory" in str(e), e
            assert "set_per_process_memory_fraction" in str(e) and "fractiontest/act" in str(e)
        del ok
        more = torch.empty(int(total * 0.06), dtype=torch.uint8, device="cuda")  # fits now
        del more
        torch.cuda.set_per_process_memory_fraction(1.0, 0)
        assert mrctx.torch.memory_limit(0) is None
        print("PASS")
        """)


def test_statistics_answer_from_the_tag():
    run("""
        import torch
        import mrctx, mrctx.torch
        MiB = 1 << 20
        ctx = mrctx.Context("statstest", {"act": "cache(device)"})
        mrctx.torch.use(ctx, "act")
        x = torch.empty(MiB, device="cuda")
        # PyTorch's own functions, answered by the allocator helper
        # (getDeviceStats): the drop-ins' numbers, without the patch.
        assert mrctx.torch.allocator_helper()[0] is not None, mrctx.torch.allocator_helper()
        assert torch.cuda.memory_allocated() == ctx.stats("act", 0)["current_bytes"] >= 4 * MiB
        theirs, ours = torch.cuda.memory_stats(), mrctx.torch.memory_stats()
        assert {k: theirs.get(k) for k in ours} == dict(ours), (theirs, ours)
        torch.cuda.reset_accumulated_memory_stats()
        assert torch.cuda.memory_stats()["allocation.all.allocated"] == 0
        print(torch.cuda.memory_summary(abbreviated=True))
        mrctx.torch.use(ctx, "act", patch=True)
        assert torch.cuda.memory_allocated() == ctx.stats("act", 0)["current_bytes"] >= 4 * MiB
        y = torch.empty(16 * MiB, device="cuda")
        del y
        peak = torch.cuda.max_memory_allocated()
        assert peak >= 68 * MiB, peak
        torch.cuda.reset_peak_memory_stats()
        assert torch.cuda.max_memory_allocated() < peak
        assert torch.cuda.memory_reserved() >= torch.cuda.memory_allocated()
        stats = torch.cuda.memory_stats()
        assert stats["allocated_bytes.all.current"] == torch.cuda.memory_allocated()
        print(torch.cuda.memory_summary(abbreviated=True))
        print("PASS")
        """)


def test_memory_history_and_memory_viz_from_pytorch_on_the_tag(tmp_path):
    """PyTorch's own memory_viz path under use(), as its users run it:
    torch.cuda.memory._record_memory_history(), a few training steps, then
    _dump_snapshot(); the allocator helper answers recordHistory and
    snapshot (PyTorch's pluggable allocator refuses both). PyTorch's own
    reader (torch.cuda._memory_viz) reads the file; the live blocks are
    PyTorch's tensors, with the Python frames that allocated them; the
    trace has every allocation and free, an out-of-memory too; and
    get_per_process_memory_fraction() answers what was set."""
    path = tmp_path / "snapshot.pickle"
    run(f"""
        import pickle, sys
        sys.path.insert(0, {CHECKER_DIR!r})
        import torch
        import torch.cuda._memory_viz as mv
        import mrctx, mrctx.torch
        import memory_viz_check
        ctx = mrctx.Context("histgpu", {{"act": "cache(device)"}})
        mrctx.torch.use(ctx, "act")
        assert mrctx.torch.allocator_helper()[1] is None, mrctx.torch.allocator_helper()
        torch.cuda.set_per_process_memory_fraction(0.5)
        assert torch.cuda.get_per_process_memory_fraction() == 0.5

        torch.cuda.memory._record_memory_history(max_entries=100000)
        model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(),
                                    torch.nn.Linear(4096, 1024)).cuda()
        opt = torch.optim.AdamW(model.parameters())

        def train_step():
            loss = model(torch.randn(64, 1024, device="cuda")).square().mean()
            loss.backward()
            opt.step()
            opt.zero_grad()

        for _ in range(3):
            train_step()
        try:
            torch.empty(1 << 40, dtype=torch.uint8, device="cuda")
            raise SystemExit("1 TiB allocated")
        except torch.OutOfMemoryError:
            pass
        torch.cuda.synchronize()
        torch.cuda.memory._dump_snapshot({str(path)!r})
        with open({str(path)!r}, "rb") as f:
            raw = f.read()
        problems = memory_viz_check.problems(raw)
        assert not problems, problems
        data = pickle.loads(raw)

        # Segments: PyTorch's live tensors (the parameters and AdamW's
        # state), each a segment of one block, with their frames.
        live = {{p.data_ptr() for p in model.parameters()}}
        live |= {{t.data_ptr() for s in opt.state.values() for t in s.values()
                 if torch.is_tensor(t) and t.is_cuda}}
        addresses = {{s["address"] for s in data["segments"]}}
        assert live <= addresses, (len(live - addresses), len(addresses))
        used = sum(s["allocated_size"] for s in data["segments"])
        assert used == torch.cuda.memory_allocated() or used <= ctx.stats("act", 0)["current_bytes"]
        names = {{f["name"] for s in data["segments"] for f in s["blocks"][0]["frames"]}}
        assert "train_step" in names, sorted(names)[:40]
        files = {{f["filename"] for s in data["segments"] for f in s["blocks"][0]["frames"]}}
        print("frames:", len(names), "names,", len(files), "files")

        # The trace: allocations and frees in pairs, the out-of-memory.
        (trace,) = data["device_traces"][:1]
        actions = [e["action"] for e in trace]
        print({{a: actions.count(a) for a in set(actions)}})
        assert actions.count("alloc") > 20 and actions.count("free_completed") > 10
        assert actions.count("alloc") == actions.count("segment_alloc")
        oom = [e for e in trace if e["action"] == "oom"]
        assert len(oom) == 1 and oom[0]["size"] == 1 << 40, oom
        assert any(f["name"] == "train_step" for e in trace if e["action"] == "alloc"
                   for f in e["frames"])

        # PyTorch's own reader, as pytorch.org/memory_viz reads it.
        lines = lambda text: text
        print(mv.segsum(data)[:1000])
        print(mv.trace(data)[-1000:])
        assert "train_step" in mv.memory(data, format_flamegraph=lines)
        for plot in ("trace_plot", "segment_plot"):
            html = getattr(mv, plot)(data)
            assert "MemoryViz.js" in html, html[:500]
        assert torch.cuda.memory_snapshot() and torch.cuda.memory._snapshot()["segments"]

        torch.cuda.memory._record_memory_history(enabled=None)
        assert torch.cuda.memory._snapshot()["device_traces"] in ([], [[]])
        print("PASS")
        """)


def test_cudnn_benchmark_runs_on_the_tag():
    """cudnn.benchmark=True asks the allocator's cacheInfo, which PyTorch's
    plain pluggable allocator refuses (pytorch#98481); the allocator helper
    answers it. Results equal benchmark off; the search's workspaces came
    from the tag and went back to it."""
    run("""
        import torch
        import mrctx, mrctx.torch
        ctx = mrctx.Context("cudnntest", {"act": "cache(device)"})
        mrctx.torch.use(ctx, "act")
        print("allocator helper:", mrctx.torch.allocator_helper())
        assert mrctx.torch.allocator_helper()[1] is None, mrctx.torch.allocator_helper()
        torch.manual_seed(0)
        conv = torch.nn.Sequential(torch.nn.Conv2d(3, 64, 7, stride=2, padding=3),
                                   torch.nn.ReLU(), torch.nn.Conv2d(64, 64, 3, padding=1)).cuda()
        x = torch.randn(16, 3, 128, 128, device="cuda")
        torch.backends.cudnn.benchmark = False
        plain = conv(x)
        torch.backends.cudnn.benchmark = True
        searched = conv(x)
        y = searched.sum()
        y.backward()
        torch.cuda.synchronize()
        print("max difference", float((plain - searched).abs().max()))
        assert torch.allclose(plain, searched, rtol=1e-3, atol=1e-3)
        stats = ctx.stats("act")
        print("tag:", stats.total_count, "allocations, peak", stats.peak_bytes)
        assert stats.total_count > 0
        del plain, searched, y, x, conv
        torch.cuda.synchronize()
        assert ctx.stats("act").current_bytes == 0, ctx.stats("act")
        print("PASS")
        """)


def test_cudnn_benchmark_without_the_allocator_helper_fails_as_documented():
    """MRCTX_TORCH_ALLOCATOR_HELPER=0: PyTorch's plain pluggable allocator,
    whose cacheInfo raises (docs/troubleshooting.md)."""
    out = run("""
            import torch
            import mrctx, mrctx.torch
            ctx = mrctx.Context("cudnntest", {"act": "cache(device)"})
            mrctx.torch.use(ctx, "act")
            conv = torch.nn.Conv2d(3, 16, 3).cuda()
            torch.backends.cudnn.benchmark = True
            try:
                conv(torch.randn(8, 3, 65, 65, device="cuda"))
                torch.cuda.synchronize()
                print("cudnn.benchmark ran under the plain pluggable allocator")
            except RuntimeError as e:
                print("cudnn.benchmark:", str(e)[:300])
                assert "cacheInfo" in str(e), e
            print("PASS")
            """, MRCTX_TORCH_ALLOCATOR_HELPER="0")
    assert "cudnn.benchmark" in out


GRAPH_PRELUDE = """
        import ctypes, gc
        import torch
        import mrctx, mrctx.torch
        ctx = mrctx.Context("graphtest", {"act": "cache(device)"})
        mrctx.torch.use(ctx, "act")
        shim = mrctx.torch.shim()
        def pools():
            return mrctx.torch.pools_info(-1)
        shim.mrctx_torch_pool_live.restype = ctypes.c_long
        shim.mrctx_torch_pool_live.argtypes = [ctypes.c_int, ctypes.c_ulonglong, ctypes.c_ulonglong,
                                               ctypes.c_void_p, ctypes.c_size_t]
        def pool_blocks(pool):
            out = (ctypes.c_void_p * 4096)()
            n = shim.mrctx_torch_pool_live(0, pool[0], pool[1], out, 4096)
            return [p for p in out[:max(n, 0)]]
        shim.mrctx_torch_pool_segments.restype = ctypes.c_long
        shim.mrctx_torch_pool_segments.argtypes = [
            ctypes.c_int, ctypes.c_ulonglong, ctypes.c_ulonglong, ctypes.c_void_p,
            ctypes.c_void_p, ctypes.c_size_t]
        def pool_segments(pool):
            bases, sizes = (ctypes.c_void_p * 4096)(), (ctypes.c_size_t * 4096)()
            n = shim.mrctx_torch_pool_segments(0, pool[0], pool[1], bases, sizes, 4096)
            return list(zip(bases[:max(n, 0)], sizes[:max(n, 0)]))
        def in_pool(t, segments):
            start, end = t.data_ptr(), t.data_ptr() + max(t.untyped_storage().nbytes(), 1)
            return any(start < b + n and b < end for b, n in segments)
"""


def test_cuda_graph_replays_equal_eager_and_keep_their_memory():
    """torch.cuda.graph on a tag: replays equal eager; while the graph lives
    no eager allocation (any stream, any size) lands in memory its pool
    holds, however much is freed and allocated meanwhile (held-memory
    check); its memory is the tag's while it lives and goes back to the tag
    when it dies."""
    run(GRAPH_PRELUDE + """
        x = torch.randn(2048, 2048, device="cuda")
        w = torch.randn(2048, 2048, device="cuda")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm up, as PyTorch's docs do
            for _ in range(3):
                y = (x @ w).relu() + 1
        torch.cuda.current_stream().wait_stream(side)
        del y
        # cuBLAS keeps a workspace per stream it ran on, allocated through the
        # allocator (the capture stream's inside the graph's pool) and freed
        # only by this: cleared before counting and at the end.
        torch.cuda.synchronize()
        torch._C._cuda_clearCublasWorkspaces()
        base = ctx.stats("act").current_bytes
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            tmp = x @ w
            y = tmp.relu() + 1
            del tmp  # freed during the capture: stays the graph's
        print("captured:", pools(), "tag bytes", base, "->", ctx.stats("act").current_bytes)
        assert pools()["held_bytes"] >= 2 * 2048 * 2048 * 4, pools()
        held = pool_blocks(g.pool())
        segments = pool_segments(g.pool())
        print("pool", g.pool(), "live blocks", len(held), "segments", segments)
        assert y.data_ptr() in held  # y, and cuBLAS's workspace for the capture stream
        eager = []
        for step in range(20):
            x.copy_(torch.randn_like(x))
            g.replay()
            with torch.cuda.stream(side if step % 2 else torch.cuda.current_stream()):
                for k in range(30):
                    t = torch.empty((k % 13 + 1) * (1 << 18), device="cuda")
                    t.fill_(step)
                    eager.append(t)
            for t in eager:
                assert not in_pool(t, segments), "eager got graph memory"
            eager = eager[-40:]
            torch.cuda.current_stream().wait_stream(side)
            torch.cuda.synchronize()
            assert torch.allclose(y, (x @ w).relu() + 1, rtol=1e-3, atol=1e-3), step
        print("20 replays equal eager; eager allocations never in the graph's memory")
        del eager, t
        torch.cuda.synchronize()
        during = ctx.stats("act").current_bytes
        del y
        g.reset()
        del g
        gc.collect()
        torch.cuda.synchronize()
        torch._C._cuda_clearCublasWorkspaces()
        after = ctx.stats("act").current_bytes
        print("graph gone:", pools(), "tag bytes", during, "->", after)
        assert pools()["pools"] == 0 and pools()["kept_blocks"] == 0, pools()
        assert after == base, (after, base)
        print("PASS")
        """)


def test_make_graphed_callables_trains_as_eager():
    """make_graphed_callables (forward and backward graphs sharing one pool)
    trains a model step for step as the same model run eagerly."""
    run(GRAPH_PRELUDE + """
        torch.manual_seed(0)
        def model():
            return torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(),
                                       torch.nn.Linear(1024, 10)).cuda()
        graphed, ref = model(), model()
        ref.load_state_dict(graphed.state_dict())
        x = torch.randn(64, 512, device="cuda", requires_grad=False)
        graphed = torch.cuda.make_graphed_callables(graphed, (x,))
        opt = torch.optim.SGD(graphed.parameters(), lr=0.1)
        ropt = torch.optim.SGD(ref.parameters(), lr=0.1)
        for step in range(10):
            x = torch.randn(64, 512, device="cuda")
            t = torch.randint(0, 10, (64,), device="cuda")
            a = torch.nn.functional.cross_entropy(graphed(x), t)
            opt.zero_grad(); a.backward(); opt.step()
            b = torch.nn.functional.cross_entropy(ref(x), t)
            ropt.zero_grad(); b.backward(); ropt.step()
            assert abs(float(a) - float(b)) < 1e-4, (step, float(a), float(b))
        print("10 steps equal eager; pools", pools())
        assert pools()["pools"] >= 1
        print("PASS")
        """)


def test_graphs_sharing_a_pool_and_outputs_outliving_them():
    """torch.cuda.graph(pool=g1.pool()): two graphs in one pool, replayed in
    capture order; the pool goes when both are gone, an output still held
    then goes back to the tag when freed."""
    run(GRAPH_PRELUDE + """
        a = torch.ones(1 << 22, device="cuda")
        base = ctx.stats("act").current_bytes
        g1, g2 = torch.cuda.CUDAGraph(), torch.cuda.CUDAGraph()
        with torch.cuda.graph(g1):
            b = a * 2
        with torch.cuda.graph(g2, pool=g1.pool()):
            c = b + 1
        for value in (1.0, 3.0):
            a.fill_(value)
            g1.replay()
            g2.replay()
            torch.cuda.synchronize()
            assert float(c[0]) == value * 2 + 1 and float(b[-1]) == value * 2
        print("shared pool:", pools())
        del g1
        gc.collect()
        assert pools()["pools"] == 1, pools()
        del g2, b
        gc.collect()
        torch.cuda.synchronize()
        print("graphs gone, c held:", pools())
        assert pools()["live_blocks"] == 1 and pools()["uses"] == 0, pools()
        del c
        torch.cuda.synchronize()
        assert pools()["pools"] == 0 and ctx.stats("act").current_bytes == base, pools()
        print("PASS")
        """)


def test_mempool_and_use_mem_pool_on_the_tag():
    """torch.cuda.MemPool() and use_mem_pool under use(): the block's
    allocations go to the pool over the tag and stay until the pool dies."""
    run(GRAPH_PRELUDE + """
        base = ctx.stats("act").current_bytes
        pool = torch.cuda.MemPool()
        with torch.cuda.use_mem_pool(pool):
            x = torch.ones(1 << 22, device="cuda")
            y = torch.empty(1 << 20, device="cuda")
        del y
        print("in the pool:", pools(), "use count", pool.use_count())
        assert pools()["held_bytes"] >= (1 << 24) + (1 << 22), pools()
        z = torch.empty(1 << 20, device="cuda")  # outside the block: not the pool's
        assert not in_pool(z, pool_segments(pool.id))
        assert float(x.sum()) == float(1 << 22)
        del x, z, pool
        gc.collect()
        torch.cuda.synchronize()
        print("pool gone:", pools())
        assert pools()["pools"] == 0 and ctx.stats("act").current_bytes == base, pools()
        print("PASS")
        """)


def test_mempool_use_on_oom_and_no_split_on_the_tag():
    """torch.cuda.MemPool(use_on_oom=True): once the tag is out of memory,
    an allocation outside the pool takes the pool's free memory, and never
    that of a pool without the flag (PyTorch's own test of the flag, with
    the tag's memory limit for the device's); MemPool(no_split=True): each
    block is a whole segment of its rounded size."""
    run(GRAPH_PRELUDE + """
        MiB = 1 << 20
        nelem = MiB // 4
        total = torch.cuda.get_device_properties(0).total_memory
        base = ctx.stats("act").current_bytes
        use = torch.cuda.MemPool(use_on_oom=True)
        keep = torch.cuda.MemPool()
        torch.cuda.set_per_process_memory_fraction((base + 81 * MiB) / total, 0)
        with torch.cuda.use_mem_pool(keep):
            a = torch.ones(40 * nelem, device="cuda")
        with torch.cuda.use_mem_pool(use):
            b = torch.ones(40 * nelem, device="cuda")
        try:
            torch.empty(40 * nelem, device="cuda")
            raise SystemExit("allocated past the limit")
        except torch.OutOfMemoryError:
            pass
        del a, b
        c = torch.ones(30 * nelem, device="cuda")  # the tag cannot: use lends
        assert in_pool(c, pool_segments(use.id)) and float(c.sum()) == 30 * nelem
        assert not in_pool(c, pool_segments(keep.id))
        try:
            torch.empty(30 * nelem, device="cuda")  # keep's 40 MiB are not lent
            raise SystemExit("a pool without use_on_oom lent its memory")
        except torch.OutOfMemoryError as e:
            print("refused:", str(e)[:160])
        del c
        torch.cuda.set_per_process_memory_fraction(1.0, 0)

        whole = torch.cuda.MemPool(no_split=True)
        with torch.cuda.use_mem_pool(whole):
            x = torch.empty(1000, dtype=torch.uint8, device="cuda")
            y = torch.empty(3 * MiB, dtype=torch.uint8, device="cuda")
        sizes = sorted(n for _, n in pool_segments(whole.id))
        print("no_split segments:", sizes)
        assert sizes == [1024, 3 * MiB], sizes
        del x, y, use, keep, whole
        gc.collect()
        torch.cuda.synchronize()
        assert pools()["pools"] == 0 and ctx.stats("act").current_bytes == base, pools()
        print("PASS")
        """)


def test_torch_compile_reduce_overhead_on_the_tag():
    """torch.compile(mode="reduce-overhead"): CUDA graph trees over the tag,
    inference and a few training steps, results equal eager."""
    run(GRAPH_PRELUDE + """
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(),
                                    torch.nn.Linear(256, 256)).cuda()
        inp = torch.randn(64, 256, device="cuda")
        compiled = torch.compile(model, mode="reduce-overhead")
        with torch.no_grad():
            for _ in range(4):
                out = compiled(inp).clone()
            ref = model(inp)
        torch.cuda.synchronize()
        assert torch.allclose(out, ref, rtol=1e-4, atol=1e-4)
        print("inference equals eager; pools", pools())
        assert pools()["pools"] >= 1
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        for _ in range(4):
            loss = compiled(inp).sum()
            loss.backward()
            opt.step()
            opt.zero_grad()
        torch.cuda.synchronize()
        print("training steps ran; pools", pools())
        print("PASS")
        """)


def test_mrctx_torch_switch_puts_a_subprocess_on_the_tag(tmp_path):
    """MRCTX_TORCH=SPEC with no code change: through python -m mrctx run
    (a checkout) and through the .pth (site.addsitedir on a copy)."""
    import os
    import shutil
    import subprocess
    import sys
    script = tmp_path / "train.py"
    script.write_text(
        "import torch, mrctx.torch\n"
        "x = torch.empty(1 << 24, device='cuda')\n"
        "ctx = mrctx.torch.context()\n"
        "assert mrctx.torch.installed() == 'torch/memory', mrctx.torch.installed()\n"
        "assert ctx.stats('memory', 0)['current_bytes'] >= 1 << 26, ctx.stats('memory', 0)\n"
        "assert torch.cuda.memory_allocated() == ctx.stats('memory', 0)['current_bytes']\n"
        "print('on the tag:', ctx.stats('memory', 0))\n")
    python_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                              "python")
    env = dict(os.environ, MRCTX_TORCH="cache(device)")
    env.pop("MRCTX_CUDA_DRIVER", None)
    done = subprocess.run([sys.executable, "-m", "mrctx", "run", str(script)], env=env,
                          capture_output=True, text=True, timeout=300)
    print(done.stdout, done.stderr)
    assert done.returncode == 0 and "on the tag" in done.stdout
    site = tmp_path / "site"
    site.mkdir()
    for name in ("_mrctx_torch_env.py", "mrctx-torch.pth"):
        shutil.copy(os.path.join(python_dir, name), site / name)
    done = subprocess.run([sys.executable, "-c", f"import site; site.addsitedir({str(site)!r}); "
                           f"exec(open({str(script)!r}).read())"], env=env,
                          capture_output=True, text=True, timeout=300)
    print(done.stdout, done.stderr)
    assert done.returncode == 0 and "on the tag" in done.stdout


# ---- Issue 23, item 4: owning buffers ----------------------------------------

def test_buffer_as_a_tensor():
    """mrctx.Buffer under PyTorch: a view through DLPack and through the CUDA
    Array Interface shares the Buffer's memory, work on the Buffer's stream
    needs no synchronization, a view keeps the memory past release() until
    it and the Buffer are gone, and pinned memory is read by numpy where it
    is."""
    run("""
        import gc
        import numpy
        import torch
        import mrctx
        MiB = 1 << 20
        ctx = mrctx.Context("buftest", {"temp": "cache(device)", "pin": "pinned"})
        s = torch.cuda.Stream()
        buf = mrctx.Buffer((ctx, "temp"), 4 * MiB, stream=s.cuda_stream)
        assert buf.size == 4 * MiB and buf.stream == s.cuda_stream
        assert buf.__dlpack_device__() == (2, torch.cuda.current_device())
        with torch.cuda.stream(s):  # PyTorch passes s: the Buffer's own stream
            t = torch.from_dlpack(buf).view(torch.float32)
            assert t.data_ptr() == buf.ptr and t.numel() == MiB and t.is_cuda
            t.fill_(2.0)
            total = t.sum()
        s.synchronize()
        assert float(total) == 2.0 * MiB
        # Released under a live DLPack view: closed, the memory kept.
        buf.release()
        assert buf.closed and ctx.stats("temp").current_bytes == 4 * MiB
        del buf
        gc.collect()
        assert ctx.stats("temp").current_bytes == 4 * MiB
        assert float(t.sum()) == 2.0 * MiB
        del t, total
        gc.collect()  # freed on s
        assert ctx.stats("temp").current_bytes == 0, ctx.stats("temp")
        # No view held at release(): freed there.
        buf = mrctx.Buffer((ctx, "temp"), MiB, stream=s.cuda_stream)
        with torch.cuda.stream(s):
            torch.from_dlpack(buf).fill_(1)
        buf.release()
        assert ctx.stats("temp").current_bytes == 0, ctx.stats("temp")

        # The tensor keeps a Buffer nobody else names; freed when it goes.
        x = torch.from_dlpack(mrctx.Buffer((ctx, "temp"), MiB))
        gc.collect()
        assert ctx.stats("temp").current_bytes == MiB
        x.fill_(7)
        assert int(x.sum()) == 7 * MiB
        del x
        gc.collect()
        assert ctx.stats("temp").current_bytes == 0

        # The CUDA Array Interface: torch.as_tensor shares the memory.
        with mrctx.Buffer((ctx, "temp"), MiB) as b:
            y = torch.as_tensor(b, device="cuda")
            assert y.data_ptr() == b.ptr and y.dtype == torch.uint8 and y.numel() == MiB
            y.fill_(1)
            assert int(y.sum(dtype=torch.int64)) == MiB
            del y
        gc.collect()
        assert ctx.stats("temp").current_bytes == MiB  # b read the interface: it frees
        del b
        gc.collect()
        assert ctx.stats("temp").current_bytes == 0

        # Pinned: the GPU writes it through the interface, numpy reads it in place.
        p = mrctx.Buffer((ctx, "pin"), MiB)
        g = torch.as_tensor(p, device="cuda")
        g.fill_(3)
        torch.cuda.synchronize()
        h = numpy.from_dlpack(p)
        print("numpy over pinned:", h.dtype, h.shape, h.ctypes.data == p.ptr)
        assert h.ctypes.data == p.ptr and int(h[:16].sum()) == 48
        del g, h, p
        gc.collect()
        assert ctx.stats("pin").current_bytes == 0, ctx.stats("pin")
        print("PASS")
        """)


def test_views_outlive_the_with_block():
    """Issue 34, item 3: `with mrctx.Buffer(...) as buf: t =
    torch.as_tensor(buf, device="cuda")` (or torch.from_dlpack) leaves `t`
    on memory that lives until `t` and `buf` are gone; the next Buffer
    gets other memory. torch.as_tensor keeps the Buffer (Py_INCREF in
    tensor_from_cuda_array_interface); this checks it does. Item 4:
    numpy.from_dlpack of device memory raises numpy's error and the Buffer
    is intact."""
    run("""
        import gc
        import numpy
        import torch
        import mrctx
        from mrctx import buffer as mbuffer
        ctx = mrctx.Context("torchviews", {"temp": "cache(device)"})
        n = 1 << 20
        mine = torch.frombuffer(bytearray(b"MINE!!!!"), dtype=torch.uint8).cuda()
        theirs = torch.frombuffer(bytearray(b"OTHER!!!"), dtype=torch.uint8).cuda()
        for make in (lambda b: torch.as_tensor(b, device="cuda"), torch.from_dlpack):
            with mrctx.Buffer((ctx, "temp"), n) as buf:
                t = make(buf)
                t[:8] = mine
            assert buf.closed
            with mrctx.Buffer((ctx, "temp"), n) as other:
                assert other.ptr != t.data_ptr()
                o = torch.as_tensor(other, device="cuda")
                o[:8] = theirs
                del o
            del other
            seen = bytes(t[:8].cpu().numpy())
            print("view reads:", seen)
            assert seen == b"MINE!!!!", seen
            del buf
            gc.collect()
            assert ctx.stats("temp").current_bytes == n, ctx.stats("temp")
            del t
            gc.collect()
            assert ctx.stats("temp").current_bytes == 0, ctx.stats("temp")

        if hasattr(numpy, "from_dlpack"):
            buf = mrctx.Buffer((ctx, "temp"), n)
            try:
                numpy.from_dlpack(buf)
                raise SystemExit("numpy took device memory")
            except (RuntimeError, BufferError, TypeError, ValueError) as e:
                assert not isinstance(e, SystemError), e
                print("numpy refused:", type(e).__name__, e)
            assert mbuffer.live_exports() == 0
            buf.release()
            assert ctx.stats("temp").current_bytes == 0, ctx.stats("temp")
        print("PASS")
        """)


def test_record_stream_keeps_memory_from_the_main_stream():
    """Tensor.record_stream under use(): a tensor that a side stream reads
    late (torch.cuda._sleep, then a copy) is recorded on it and freed; a
    new tensor of its size filled on the main stream must not be what the
    side stream copies. Run under PyTorch's own allocator too (control) and
    under cache(device), device and arena(...) tags, 5 trials each."""
    run("""
        import sys, subprocess, textwrap
        trial = textwrap.dedent('''
            import sys, torch, mrctx, mrctx.torch
            spec = sys.argv[1]
            if spec != "pytorch":
                ctx = mrctx.Context("rs", {"t": spec})
                mrctx.torch.use(ctx, "t")
            n = 64 << 20
            main = torch.cuda.current_stream()
            side = torch.cuda.Stream()
            bad = 0
            for trial in range(5):
                x = torch.full((n // 4,), 1.0, device="cuda")
                out = torch.empty_like(x)
                side.wait_stream(main)
                with torch.cuda.stream(side):
                    torch.cuda._sleep(200_000_000)  # the side stream reads late
                    out.copy_(x)
                x.record_stream(side)
                del x
                y = torch.full((n // 4,), 7.0, device="cuda")  # main stream, same size
                torch.cuda.synchronize()
                if float(out.max()) != 1.0 or float(out.min()) != 1.0:
                    bad += 1
                del y, out
            print(spec, "trials that copied the new tensor's bytes:", bad)
            sys.exit(1 if bad else 0)
        ''')
        for spec in ("pytorch", "cache(device)", "device", "arena(device, chunk=256MiB)"):
            r = subprocess.run([sys.executable, "-c", trial, spec], capture_output=True, text=True)
            print(r.stdout.strip(), r.stderr.strip()[-2000:])
            assert r.returncode == 0, (spec, r.returncode)
        print("PASS")
    """)


def test_torch_cache_and_mrctx_share_the_device():
    """Issue 35's targets, both ways, with PyTorch's own allocator (not on a
    tag). PyTorch keeps 70% of the device cached: an mrctx tag's 50% comes
    through the package's torch reclaimer. mrctx keeps 70% idle in a cache:
    PyTorch's 50% comes after mrctx.release_idle() (PyTorch does not ask
    mrctx when it runs out)."""
    run("""
        import torch
        import mrctx
        free, total = torch.cuda.mem_get_info()
        chunk = 1 << 30
        big = int(total * 0.7) // chunk
        half = int(total * 0.5) // chunk * chunk
        print(f"device: {total / chunk:.1f} GiB, {free / chunk:.1f} free")

        # PyTorch's cache holds 70%: mrctx's 50% needs it back.
        blocks = [torch.empty(chunk, dtype=torch.uint8, device="cuda") for _ in range(big)]
        del blocks
        reserved = torch.cuda.memory_reserved()
        print(f"PyTorch keeps {reserved / chunk:.1f} GiB cached")
        assert reserved >= big * chunk
        torch_reclaimer = mrctx.framework_reclaimers()[0]
        ctx = mrctx.Context("sharelib", {"work": "device"})
        resource = ctx.get_resource("work", 0)
        ptr = resource.allocate(half)
        stats = torch_reclaimer.stats()
        print(f"mrctx got {half / chunk:.0f} GiB; torch reclaimer: {stats}")
        assert stats["calls"] >= 1 and stats["bytes"] >= half // 2, stats
        assert torch.cuda.memory_reserved() < reserved
        resource.deallocate(ptr, half)
        resource.synchronize()

        # mrctx keeps 70% idle: PyTorch's 50% after release_idle.
        cache = mrctx.Context("cachelib", {"work": "cache(device)"})
        cached = cache.get_resource("work", 0)
        ptrs = [cached.allocate(chunk) for _ in range(big)]
        for p in ptrs:
            cached.deallocate(p, chunk)
        try:
            x = torch.empty(half, dtype=torch.uint8, device="cuda")
            print("PyTorch got its 50% before release_idle (the idle time returned it)")
            del x
        except RuntimeError as error:  # torch.OutOfMemoryError
            assert "out of memory" in str(error), error
            print("PyTorch ran out with mrctx's memory idle, as documented")
        released = mrctx.release_idle()
        print(f"release_idle gave back {released / chunk:.1f} GiB")
        x = torch.empty(half, dtype=torch.uint8, device="cuda")
        del x
        cache.close()
        ctx.close()
        print("PASS")
    """)

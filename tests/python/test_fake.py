"""The Python package over the fake CUDA driver (suite fake): device tags on
four fake devices, per-device overrides and statistics, out of memory,
driver pool counters, and the PyTorch shim's routes with device memory.
The fake proves bookkeeping and error paths, not CUDA."""

import ctypes
import gc
import os

import pytest
from conftest import assert_shape

import mrctx
import mrctx.torch as mtorch

FAKE = os.environ.get("MRCTX_CUDA_DRIVER", "")


@pytest.fixture(scope="module")
def fake():
    """The fake driver's control API: the same loaded instance as the
    library's, as both open the same path."""
    if "fakecuda" not in FAKE:
        pytest.skip("MRCTX_CUDA_DRIVER is not the fake driver")
    return ctypes.CDLL(FAKE)


def test_driver_and_devices(fake):
    assert mrctx.device_count() == fake.fake_cuda_device_count() == 4
    assert mrctx.driver_version() >= 13000


def test_device_tags_on_every_device(library_name, fake):
    with mrctx.Context(library_name, {"temp": "cache(device)", "out": "device"}) as ctx:
        assert ctx.device_count == 4
        for device in range(4):
            resource = ctx.get_resource("temp", device)
            props = resource.props
            assert props.kind == "device" and props.device == device and props.device_accessible
            ptr = resource.allocate(1 << 20)
            assert ptr
            resource.deallocate(ptr, 1 << 20)
        per_device = [ctx.stats("temp", device=d)["total_count"] for d in range(4)]
        assert per_device == [1, 1, 1, 1]
        assert ctx.stats("temp")["total_count"] == 4
        assert ctx.stats()["out"]["total_count"] == 0
        with pytest.raises(mrctx.NoDeviceError) as info:
            ctx.get_resource("temp", 7)
        assert "no device 7" in str(info.value)


def test_per_device_overrides(library_name, monkeypatch):
    variable = f"{library_name.upper()}_MEMORY"
    monkeypatch.setenv(variable, "temp@2=limit(device, bytes=1MiB); temp@9=device")
    with mrctx.Context(library_name, {"temp": "device"}, env_var=variable) as ctx:
        assert "limit" in ctx.describe("temp", 2)
        assert "limit" not in ctx.describe("temp", 1)
        assert ctx.source("temp", 2).origin == "env"
        assert ctx.source("temp", 1).origin == "default"
        assert [(e.tag, e.device) for e in ctx.ignored] == [("temp", 9)]
        with pytest.raises(mrctx.OutOfMemoryError) as info:
            ctx.get_resource("temp", 2).allocate(2 << 20)
        assert f"library {library_name!r} tag 'temp' on device 2" in str(info.value)
        assert "limit of 1048576 bytes" in str(info.value)


def test_driver_out_of_memory(library_name):
    with mrctx.Context(library_name, {"big": "device"}) as ctx:
        with pytest.raises(mrctx.OutOfMemoryError) as info:
            ctx.get_resource("big", 0).allocate(1 << 40)
        assert "CUDA_ERROR_OUT_OF_MEMORY" in str(info.value)
        assert ctx.stats("big")["failed_count"] >= 1


def test_pool_information(library_name):
    with mrctx.Context(library_name, {"d": "device"}) as ctx:
        resource = ctx.get_resource("d", 1)
        ptr = resource.allocate(8 << 20)
        info = resource.pool_info()
        assert info["kind"] == "device" and info["device"] == 1
        assert info["used_bytes"] >= 8 << 20 and info["reserved_high"] >= 8 << 20
        assert mrctx.driver_pool_info("device", 1)["reserved_high"] >= 8 << 20
        resource.deallocate(ptr, 8 << 20)
        resource.synchronize()
    with pytest.raises(ValueError):
        mrctx.driver_pool_info("nope", 0)


def test_pool_info_is_typed(library_name):
    """pool_info() and driver_pool_info() give a frozen mrctx.PoolInfo,
    which still reads as the dict of 0.2 (deprecated)."""
    with mrctx.Context(library_name, {"d": "device"}) as ctx:
        resource = ctx.get_resource("d", 1)
        ptr = resource.allocate(8 << 20)
        info = resource.pool_info()
        assert isinstance(info, mrctx.PoolInfo)
        assert (info.kind, info.device, info.is_current) == ("device", 1, True)
        assert info.used_bytes >= 8 << 20 and info.reserved_high >= info.used_high >= 8 << 20
        assert repr(info).startswith("PoolInfo(kind='device', device=1, ")
        driver = mrctx.driver_pool_info("device", 1)
        assert isinstance(driver, mrctx.PoolInfo) and driver.reserved_high >= 8 << 20
        assert dict(info) == {f: getattr(info, f) for f in info.keys()} == info
        assert info["kind"] == "device"
        resource.deallocate(ptr, 8 << 20)
        resource.synchronize()


def test_streams_and_injected_failures(library_name, fake):
    """Blocks freed on a stream are reused at once on it (the per-thread
    default stream here); a driver failure is a DriverError naming it."""
    per_thread = 2  # CU_STREAM_PER_THREAD
    # What earlier tests left to the garbage collector (a pytest.raises
    # traceback holds a test's frame, and its Resources, in a cycle) goes
    # first, not in the middle of this count.
    gc.collect()
    live = fake.fake_cuda_live_allocations()
    with mrctx.Context(library_name, {"s": "cache(device)", "d": "device"}) as ctx:
        resource = ctx.get_resource("s", 0)
        ptr = resource.allocate(4096, stream=per_thread)
        resource.deallocate(ptr, 4096, stream=per_thread)
        again = resource.allocate(4096, stream=per_thread)
        assert again == ptr
        resource.deallocate(again, 4096, stream=per_thread)
        resource.synchronize(per_thread)
        ctx.trim()
        assert fake.fake_cuda_live_allocations() == live
        fake.fake_cuda_fail(b"cuMemAllocFromPoolAsync", 1, 100, 999)  # CUDA_ERROR_UNKNOWN
        try:
            with pytest.raises(mrctx.DriverError) as info:
                ctx.get_resource("d", 1).allocate(4096, stream=per_thread)
        finally:
            fake.fake_cuda_fail(b"cuMemAllocFromPoolAsync", 1, 0, 0)
        assert "CUDA_ERROR_UNKNOWN" in str(info.value)
        assert f"library {library_name!r} tag 'd' on device 1" in str(info.value)


def test_torch_shim_with_device_memory(library_name):
    try:
        shim = mtorch.shim()
    except mrctx.LibraryNotFoundError as error:
        pytest.skip(f"no PyTorch shim in this build: {error}")
    alloc = shim.mrctx_torch_pool_alloc_6
    alloc.restype = ctypes.c_void_p
    alloc.argtypes = [ctypes.c_ssize_t, ctypes.c_int, ctypes.c_void_p]
    free = shim.mrctx_torch_pool_free_6
    free.argtypes = [ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int, ctypes.c_void_p]
    ctx = mrctx.Context(library_name, {"act": "cache(device)"})
    mtorch.bind(6, ctx, "act")
    pointers = [(alloc(3 << 20, device, None), device) for device in (0, 3)]
    assert all(ptr for ptr, _ in pointers)
    assert ctx.stats("act")["current_bytes"] == 6 << 20
    assert ctx.stats("act", device=3)["current_bytes"] == 3 << 20
    assert alloc(1 << 40, 0, None) is None  # out of memory: NULL, as PyTorch's pools expect
    assert "out of memory" in mrctx.last_error().lower()
    ctx.close()  # the route keeps the resources: PyTorch may free later
    failed_before, _ = mtorch.failed_frees()
    for ptr, device in pointers:
        free(ptr, 3 << 20, device, None)
    assert mtorch.failed_frees()[0] == failed_before


def test_snapshot_two_libraries(library_name, fake):
    other = library_name + "_codec"
    with mrctx.Context(library_name, {"temp": "track(device)"}) as solver, \
            mrctx.Context(other, {"frames": "device"}) as codec:
        temp, frames = solver.get_resource("temp", 1), codec.get_resource("frames", 1)
        a, b = temp.allocate(3 << 20), frames.allocate(5 << 20)
        snap = mrctx.snapshot()
        held = {}
        for context in snap["contexts"]:
            for tag in context["tags"]:
                for slot in tag["devices"]:
                    if slot["stats"]["current_bytes"]:
                        held[(context["library"], tag["tag"], slot["device"])] = slot["stats"]["current_bytes"]
        assert held[(library_name, "temp", 1)] == 3 << 20
        assert held[(other, "frames", 1)] == 5 << 20
        (tracked,) = [t for c in snap["contexts"] if c["library"] == library_name for t in c["tags"]]
        assert tracked["devices"][1]["track"]["largest"][0]["bytes"] == 3 << 20
        pools = {(p["pool"], p["device"]): p for p in snap["pools"]}
        assert pools[("device_current", 1)]["used_bytes"] >= 8 << 20
        assert ("pinned_default", -1) in pools and ("managed_default", -1) in pools
        temp.deallocate(a, 3 << 20)
        frames.deallocate(b, 5 << 20)


def test_export_memory_viz_devices_and_call_sites(library_name, fake, tmp_path):
    """Device blocks of two libraries on two fake devices, one tag with
    call sites: each device's segments and timeline, each library:tag a
    pool, the call site's frames named as PyTorch's with the owner last."""
    import pickle

    import memory_viz_check
    other = library_name + "_codec"
    with mrctx.Context(library_name, {"temp": "track(device, stacks=8)"}) as solver, \
            mrctx.Context(other, {"frames": "track(cache(device))"}) as codec:
        temp, frames = solver.get_resource("temp", 2), codec.get_resource("frames", 1)
        a, b, c = temp.allocate(3 << 20), temp.allocate(4096), frames.allocate(5 << 20)
        path = tmp_path / "viz.pickle"
        mrctx.export_memory_viz(path)
        data = path.read_bytes()
        assert memory_viz_check.problems(data) == []
        viz = pickle.loads(data)
        assert len(viz["device_traces"]) >= 3
        owned = {(s["device"], s["address"], s["total_size"], s["frames"][-1]["name"])
                 for s in viz["segments"]}
        assert {(2, a, 3 << 20, f"{library_name}:temp"), (2, b, 4096, f"{library_name}:temp"),
                (1, c, 5 << 20, f"{other}:frames")} <= owned
        seg = {s["address"]: s for s in viz["segments"]}
        assert seg[b]["segment_type"] == "small" and seg[a]["segment_type"] == "large"
        assert seg[a]["segment_pool_id"] != seg[c]["segment_pool_id"]
        sited = seg[a]["blocks"][0]["frames"]
        assert len(sited) > 1, sited  # the call site, then the owner
        assert sited[-1] == {"filename": "mrctx", "line": 0, "name": f"{library_name}:temp"}
        assert all(f["name"] and f["filename"] for f in sited[:-1]), sited
        assert seg[c]["blocks"][0]["frames"] == [
            {"filename": "mrctx", "line": 0, "name": f"{other}:frames"}]  # no stacks there
        trace = [e for e in viz["device_traces"][2] if e["action"] in ("segment_alloc", "alloc")
                 and e["category"] == f"{library_name}:temp"]
        assert sorted((e["action"], e["addr"]) for e in trace) == sorted(
            [("segment_alloc", a), ("alloc", a), ("segment_alloc", b), ("alloc", b)])
        temp.deallocate(a, 3 << 20)
        temp.deallocate(b, 4096)
        frames.deallocate(c, 5 << 20)


def test_memory_viz_demo_example(fake, tmp_path):
    """examples/memory_viz_demo.py, whose file docs/observability.md's
    memory_viz pictures show: a file memory_viz opens, with every block it
    says is live a segment of one of its three library:tag pools, each
    block with its call site and its owner last, and each tag's blocks in
    the timeline in the order they were allocated."""
    import pathlib
    import pickle
    import subprocess
    import sys

    import memory_viz_check
    script = pathlib.Path(__file__).resolve().parents[2] / "examples" / "memory_viz_demo.py"
    path = tmp_path / "demo.pickle"
    run = subprocess.run([sys.executable, str(script), str(path), "--device", "1"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "mrctx: leak" not in run.stderr, run.stderr  # it frees what it took
    data = path.read_bytes()
    assert memory_viz_check.problems(data) == []
    viz = pickle.loads(data)
    owners = ["solver:weights", "solver:temp", "codec:frames"]
    assert [p["name"] for p in viz["allocator_settings"]["pools"]] == owners
    live = int(run.stdout.split(": ")[2].split()[0])
    assert len(viz["segments"]) == live >= 6 + 5, run.stdout  # the weights, the ring
    for seg in viz["segments"]:
        assert seg["device"] == 1
        (block,) = seg["blocks"]
        assert block["frames"][-1]["name"] in owners
        assert len(block["frames"]) > 1, block  # stacks=8: the call site first
    allocs = [e for e in viz["device_traces"][1] if e["action"] == "alloc"]
    assert len(allocs) == live
    weights = [e["size"] for e in allocs if e["category"] == "solver:weights"]
    assert weights == [(8 + 4 * layer) << 20 for layer in range(6)]
    # The weights were allocated before any other block, and the timeline
    # says so across tags too: each tag's ages count to the snapshot's
    # moment, not to when that tag was walked (walking a tag with room for
    # 10,000 blocks took milliseconds, and the tags walked later were drawn
    # that much too early, before the weights).
    categories = [e["category"] for e in allocs]
    assert categories[:6] == ["solver:weights"] * 6, categories


def test_bad_sizes_never_reach_the_driver(library_name, fake):
    """A negative size used to wrap to 2**64 - 1: the pool refused it, and the
    context's retry synchronized the device before giving up. Now it is
    refused before any call into the library."""
    with mrctx.Context(library_name, {"d": "device"}) as ctx:
        resource = ctx.get_resource("d", 0)
        gc.collect()  # earlier tests' objects, whose destruction synchronizes
        fake.fake_cuda_reset()
        for bad in (-1, 2**64 + 16, True, 1.5):
            with pytest.raises((mrctx.ArgumentError, mrctx.ArgumentTypeError)) as info:
                resource.allocate(bad)
            assert "nbytes" in str(info.value)
        with pytest.raises(mrctx.ArgumentError):
            resource.synchronize(-5)
        for entry in (b"cuCtxSynchronize", b"cuStreamSynchronize", b"cuMemAllocFromPoolAsync",
                      b"cuMemPoolTrimTo"):
            assert fake.fake_cuda_calls(entry) == 0, entry
        assert ctx.stats("d")["failed_count"] == 0
        with pytest.raises(mrctx.ArgumentError):
            mrctx.resolve("device", device=2**32)  # was device 0
        with pytest.raises(mrctx.ArgumentError):
            mrctx.driver_pool_info("device", 2**32 + 1)  # was device 1


def test_stats_at_exit_sees_the_contexts_python_holds(tmp_path, fake):
    """MRCTX_STATS_AT_EXIT from Python: the interpreter destroys its
    contexts at shutdown, before the C library's exit handler runs, which
    then found none ("0 live contexts"). The package writes the report from
    an atexit handler instead, once, while they are live."""
    import re
    import subprocess
    import sys

    code = ("import mrctx\n"
            "ctx = mrctx.Context('atexitlib', {'temp': 'cache(device)', 'out': 'device'})\n"
            "buf = mrctx.Buffer(ctx.get_resource('temp', 1), 3 << 20)\n")
    snapshot = tmp_path / "exit-%p.json"
    for target in ("stderr", str(snapshot)):
        env = dict(os.environ, MRCTX_STATS_AT_EXIT=target)
        run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        if target == "stderr":
            assert run.stderr.count("mrctx: memory in use at exit of pid") == 1, run.stderr
            assert ": 1 live context\natexitlib memory by tag\n" in run.stderr, run.stderr
            row = r"^temp +1 +3\.0 MiB +3\.0 MiB +3\.0 MiB +1 +1 +0$"
            assert re.search(row, run.stderr, re.M), run.stderr
        else:
            (written,) = tmp_path.glob("exit-*.json")
            snap = mrctx.read_snapshot(str(written))
            libraries = [c["library"] for c in snap["contexts"]]
            assert libraries == ["atexitlib"], libraries


def test_stats_at_exit_lists_closed_contexts(tmp_path, fake):
    """MRCTX_STATS_AT_EXIT after ctx.close(): the report lists the closed
    context, marked as destroyed, with its final figures (it found "0 live
    contexts" before)."""
    import re
    import subprocess
    import sys

    code = ("import mrctx\n"
            "ctx = mrctx.Context('closedlib', {'temp': 'device'})\n"
            "with mrctx.Buffer(ctx.get_resource('temp', 1), 3 << 20):\n"
            "    pass\n"
            "ctx.close()\n")
    snapshot = tmp_path / "exit-%p.json"
    for target in ("stderr", str(snapshot)):
        env = dict(os.environ, MRCTX_STATS_AT_EXIT=target)
        run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        if target == "stderr":
            assert ": 0 live contexts, 1 destroyed\nclosedlib memory by tag (destroyed)\n" \
                in run.stderr, run.stderr
            row = r"^temp +1 +0 B +3\.0 MiB +3\.0 MiB +0 +1 +0$"
            assert re.search(row, run.stderr, re.M), run.stderr
        else:
            (written,) = tmp_path.glob("exit-*.json")
            snap = mrctx.read_snapshot(str(written))
            (context,) = snap["contexts"]
            assert context["library"] == "closedlib", context
            assert context["destroyed"] == 1, context
            (temp,) = context["tags"]
            assert temp["devices"][1]["stats"]["peak_bytes"] == 3 << 20, temp


def test_hook_cost_example_runs(fake):
    """examples/hook_cost.py, which docs/integrations.md quotes: its pairs
    are all served by the cache (so it times Python and the library, not
    the driver). Its times are not checked here."""
    import json
    import pathlib
    import subprocess
    import sys

    script = pathlib.Path(__file__).resolve().parents[2] / "examples" / "hook_cost.py"
    run = subprocess.run([sys.executable, str(script), "--pairs", "1000", "--repeats", "2"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["example"] == "hook_cost" and result["pairs"] == 1000
    assert result["cache_hits"] == 2000, result
    assert 0 < result["us_per_pair_min"] <= result["us_per_pair_median"]


def test_release_idle(library_name, fake):
    """mrctx.release_idle gives back what a cache keeps idle, and says how
    much; its arguments are checked before they reach C."""
    # Devices 1 and 2: earlier tests leave resources on 0 and 3 that hold
    # memory of a fake reset since (the PyTorch route keeps its own).
    gc.collect()
    with mrctx.Context(library_name, {"temp": "cache(device)"}) as ctx:
        resource = ctx.get_resource("temp", 1)
        ptr = resource.allocate(64 << 20)
        resource.deallocate(ptr, 64 << 20)
        assert mrctx.release_idle(device=2) == 0
        assert mrctx.release_idle(device=1) == 64 << 20
        assert mrctx.release_idle(device=1, nbytes=1) == 0
        with pytest.raises(ValueError):
            mrctx.release_idle(device=-2)
        with pytest.raises(ValueError):
            mrctx.release_idle(nbytes=-1)


def test_snapshot_idle_memory(library_name, fake):
    """The snapshot dict says what a tag's cache keeps idle, per tag (its
    chain's resources) and for the whole process, and what reclaims took
    back from it."""
    gc.collect()
    with mrctx.Context(library_name, {"temp": "cache(device)"}) as ctx:
        resource = ctx.get_resource("temp", 1)
        ptr = resource.allocate(64 << 20)
        resource.deallocate(ptr, 64 << 20)

        def figures():
            snap = mrctx.snapshot()
            assert_shape(snap, mrctx.Snapshot)  # idle, idle_memory, pools, devices
            (context,) = [c for c in snap["contexts"] if c["library"] == library_name]
            idle = context["tags"][0]["devices"][1]["idle"]
            listed = [i for i in snap["idle_memory"] if i.get("owner") == library_name + ":temp"
                      and i["device"] == 1]
            return idle, listed

        idle, listed = figures()
        assert idle["idle_bytes"] == 64 << 20 and idle["reclaims"] == 0
        assert idle["resources"] == [{"resource": "cache(device)", "keep": False,
                                      "idle_bytes": 64 << 20, "reclaims": 0,
                                      "reclaimed_bytes": 0, "reclaim_ns": 0}]
        assert [i["idle_bytes"] for i in listed] == [64 << 20]
        assert "idle memory, most first" in mrctx.snapshot_text()
        assert mrctx.release_idle(device=1) == 64 << 20
        idle, listed = figures()
        assert idle["idle_bytes"] == 0
        assert idle["reclaims"] == 1 and idle["reclaimed_bytes"] == 64 << 20
        assert idle["reclaim_ns"] > 0
        assert listed[0]["reclaims"] == 1

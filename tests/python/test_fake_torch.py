"""The PyTorch shim's measurement parts over the fake CUDA driver (suite
fake), called through ctypes as PyTorch's CUDAPluggableAllocator would call
them: the control allocator (a trivial exact-size free list), the timed
allocation pairs (MRCTX_TORCH_TIMING), the cache statistics the workloads
read per step, and the workloads' per-step counters. No PyTorch needed.

One process for the file: the shim's route 0 and the control are once per
process, so the tests read counters as differences."""

import ctypes
import gc
import os
import sys

import pytest

import mrctx
import mrctx.torch as mtorch

FAKE = os.environ.get("MRCTX_CUDA_DRIVER", "")
MiB = 1 << 20
PER_THREAD = 2  # CU_STREAM_PER_THREAD: a second stream besides NULL (legacy)
ALLOC = [ctypes.c_ssize_t, ctypes.c_int, ctypes.c_void_p]
FREE = [ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int, ctypes.c_void_p]


@pytest.fixture(scope="module")
def fake():
    if "fakecuda" not in FAKE:
        pytest.skip("MRCTX_CUDA_DRIVER is not the fake driver")
    return ctypes.CDLL(FAKE)


@pytest.fixture(scope="module")
def shim():
    try:
        library = mtorch.shim()
    except mrctx.LibraryNotFoundError as error:
        pytest.skip(f"no PyTorch shim in this build: {error}")
    return library


def function(shim, name, argtypes, restype=None):
    """One of the shim's functions, declared as PyTorch calls it."""
    f = getattr(shim, name)
    f.argtypes = argtypes
    f.restype = restype
    return f


def try_alloc(shim):
    """The control's allocation that reports failure instead of throwing
    (the exported C++ one throws, which ctypes cannot catch)."""
    return function(shim, "mrctx_torch_control_route_alloc", ALLOC + [ctypes.POINTER(ctypes.c_int)],
                    ctypes.c_void_p)


def delta(after, before):
    return {k: after[k] - before[k] for k in before}


def test_control_reuses_a_block_only_at_its_size_and_stream(shim, fake):
    alloc = function(shim, "mrctx_torch_control_alloc", ALLOC, ctypes.c_void_p)
    free = function(shim, "mrctx_torch_control_free", FREE)
    gc.collect()
    driver_before = fake.fake_cuda_calls(b"cuMemAllocFromPoolAsync")
    live_before = fake.fake_cuda_live_allocations()
    before = mtorch.control_stats()

    a = alloc(MiB, 1, PER_THREAD)
    assert a
    free(a, MiB, 1, PER_THREAD)
    other_stream = alloc(MiB, 1, None)  # a is free, but on PER_THREAD: never for another stream
    assert other_stream and other_stream != a
    assert alloc(MiB, 1, PER_THREAD) == a  # same size, same stream: the block itself
    other_size = alloc(MiB + 256, 1, PER_THREAD)  # exact size only
    assert other_size and other_size not in (a, other_stream)
    other_device = alloc(MiB, 2, PER_THREAD)
    assert other_device and fake.fake_cuda_allocation_device(ctypes.c_void_p(other_device)) == 2
    assert fake.fake_cuda_allocation_device(ctypes.c_void_p(a)) == 1

    moved = delta(mtorch.control_stats(), before)
    assert moved["hits"] == 1 and moved["misses"] == 4 and moved["frees"] == 1, moved
    assert moved["live_bytes"] == 4 * MiB + 256, moved
    assert moved["reserved_bytes"] == 4 * MiB + 256, moved
    assert moved["cached_blocks"] == 0 and moved["failed"] == 0, moved
    # Only the misses reached the driver.
    assert fake.fake_cuda_calls(b"cuMemAllocFromPoolAsync") - driver_before == 4

    for ptr, size, device, stream in ((a, MiB, 1, PER_THREAD), (other_stream, MiB, 1, None),
                                      (other_size, MiB + 256, 1, PER_THREAD),
                                      (other_device, MiB, 2, PER_THREAD)):
        free(ptr, size, device, stream)
    after = mtorch.control_stats()
    moved = delta(after, before)
    assert moved["frees"] == 5 and moved["cached_blocks"] == 4, moved
    assert moved["cached_bytes"] == 4 * MiB + 256 and moved["live_bytes"] == 0, moved
    assert after["peak_live_bytes"] >= 4 * MiB + 256
    # A measurement control: it never gives memory back.
    assert fake.fake_cuda_live_allocations() - live_before == 4

    # Each cached block comes back on its own stream, and nothing else does
    # (other_stream was freed last: the top of a list that ignored streams).
    assert alloc(MiB, 1, PER_THREAD) == a
    assert alloc(MiB, 1, None) == other_stream
    assert alloc(MiB, 1, PER_THREAD) not in (a, other_stream, 0, None)  # the list is empty: a miss
    moved = delta(mtorch.control_stats(), after)
    assert moved["hits"] == 2 and moved["misses"] == 1, moved


def test_control_size_zero_and_null(shim):
    alloc = try_alloc(shim)
    free = function(shim, "mrctx_torch_control_free", FREE)
    before = mtorch.control_stats()
    failed = mtorch.failed_frees()[0]
    status = ctypes.c_int(-1)
    assert alloc(0, 0, None, ctypes.byref(status)) is None and status.value == 0
    free(None, 0, 0, None)
    free(None, MiB, 99, None)  # NULL is a no-op, whatever comes with it
    assert delta(mtorch.control_stats(), before) == {k: 0 for k in before}
    assert mtorch.failed_frees()[0] == failed


def test_control_bad_input_and_driver_failure(shim, fake):
    alloc = try_alloc(shim)
    free = function(shim, "mrctx_torch_control_free", FREE)
    status = ctypes.c_int(0)
    for size, device, what in ((MiB, -1, "device -1"), (MiB, 7, "device 7"),
                               (MiB, 1 << 20, "device 1048576"), (-5, 0, "-5 bytes")):
        assert alloc(size, device, None, ctypes.byref(status)) is None
        assert status.value != 0
        message = mrctx.last_error()
        assert "control" in message and what in message, message

    # The driver fails the miss: the error says so, and nothing is counted
    # as served.
    before = mtorch.control_stats()
    # CUDA_ERROR_OUT_OF_MEMORY twice: the allocation, and its retry after
    # the package's framework reclaimers (registered, if inert, in every
    # process that loads libmrctx) were asked.
    fake.fake_cuda_fail(b"cuMemAllocFromPoolAsync", 1, 2, 2)
    try:
        assert alloc(3 * MiB, 0, None, ctypes.byref(status)) is None
    finally:
        fake.fake_cuda_fail(b"cuMemAllocFromPoolAsync", 1, 0, 0)
    assert status.value == 2  # MR_ERR_OUT_OF_MEMORY
    message = mrctx.last_error()
    assert "control" in message and "3145728" in message and "never" in message, message
    moved = delta(mtorch.control_stats(), before)
    assert moved["failed"] == 1 and moved["misses"] == 0 and moved["live_bytes"] == 0, moved

    # Frees the control cannot take are counted, with their message.
    failed, _ = mtorch.failed_frees()
    free(0x1000, MiB, 3, None)  # the control never allocated on device 3
    free(0x1000, -1, 0, None)
    free(0x1000, MiB, 500, None)
    count, message = mtorch.failed_frees()
    assert count == failed + 3
    assert "control" in message and "device 500" in message, message
    assert delta(mtorch.control_stats(), before)["frees"] == 0


def test_timed_pairs_count_calls_and_the_untimed_ones_do_not(shim, library_name):
    control_alloc = function(shim, "mrctx_torch_control_alloc_timed", ALLOC, ctypes.c_void_p)
    control_free = function(shim, "mrctx_torch_control_free_timed", FREE)
    route_alloc = function(shim, "mrctx_torch_alloc_timed", ALLOC, ctypes.c_void_p)
    route_free = function(shim, "mrctx_torch_free_timed", FREE)
    plain_alloc = function(shim, "mrctx_torch_alloc", ALLOC, ctypes.c_void_p)
    plain_free = function(shim, "mrctx_torch_free", FREE)
    ctx = mrctx.Context(library_name, {"act": "cache(device)"})
    mtorch.bind(0, ctx, "act")

    mtorch.reset_timing()
    assert mtorch.timing() == {op: {"calls": 0, "ns": 0, "max_ns": 0, "slow_calls": 0}
                               for op in ("alloc", "free")}
    for size in (MiB, 2 * MiB, MiB):
        ptr = plain_alloc(size, 0, None)
        plain_free(ptr, size, 0, None)
    assert mtorch.timing()["alloc"]["calls"] == 0  # the default pair pays nothing
    assert mtorch.timing()["free"]["calls"] == 0

    for size in (MiB, 2 * MiB, MiB):
        ptr = route_alloc(size, 0, None)
        assert ptr
        route_free(ptr, size, 0, None)
    ptr = control_alloc(5 * MiB, 0, None)
    control_free(ptr, 5 * MiB, 0, None)
    control_free(None, 0, 0, None)  # PyTorch frees NULL too: a call like any other
    timing = mtorch.timing()
    assert timing["alloc"]["calls"] == 4 and timing["free"]["calls"] == 5, timing
    for op in timing.values():
        assert op["ns"] >= op["max_ns"] and op["slow_calls"] <= op["calls"], timing
    mtorch.reset_timing()
    assert mtorch.timing()["alloc"] == {"calls": 0, "ns": 0, "max_ns": 0, "slow_calls": 0}
    assert ctx.stats("act")["current_bytes"] == 0
    ctx.close()


def test_cache_stats_of_a_tag(library_name, fake):
    with mrctx.Context(library_name, {"c": "cache(device)", "d": "device"}) as ctx:
        resource = ctx.get_resource("c", 1)
        before = ctx.cache_stats("c", 1)
        assert set(before) >= {"hits", "misses", "cross_stream", "bypassed", "cached_bytes",
                               "cached_blocks", "trims"}
        ptr = resource.allocate(MiB, stream=PER_THREAD)
        resource.deallocate(ptr, MiB, stream=PER_THREAD)
        again = resource.allocate(MiB, stream=PER_THREAD)
        moved = delta(ctx.cache_stats("c", 1), before)
        assert moved["misses"] == 1 and moved["hits"] == 1, moved
        assert resource.cache_stats()["hits"] == ctx.cache_stats("c", 1)["hits"]
        assert ctx.cache_stats("c", 0)["hits"] == 0  # per device
        resource.deallocate(again, MiB, stream=PER_THREAD)
        resource.close()
        with pytest.raises(mrctx.InvalidArgumentError) as info:
            ctx.cache_stats("d", 0)
        assert "no cache" in str(info.value) and "'d'" in str(info.value)
        with pytest.raises(mrctx.TagError):
            ctx.cache_stats("nope", 0)
        with pytest.raises(mrctx.NoDeviceError):
            ctx.cache_stats("c", 9)


def _workload_common():
    examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
    sys.path.insert(0, examples)
    try:
        import workload_common
    finally:
        sys.path.remove(examples)
    return workload_common


def test_workload_counters_per_step(library_name, fake, shim):
    common = _workload_common()
    assert "pluggable-control" in common.TORCH_ALLOCATORS
    ctx = mrctx.Context(library_name, {common.TAG: "cache(device)"})
    resource = ctx.get_resource(common.TAG, 0)
    counters = common.StepCounters("mrctx-cache", ctx, 0)
    counters.start()
    for _ in range(2):  # two "steps": 3 allocations, 3 frees each; 1 miss in all
        for _ in range(3):
            ptr = resource.allocate(MiB, stream=PER_THREAD)
            resource.deallocate(ptr, MiB, stream=PER_THREAD)
    result = counters.result(2)
    assert result["allocs_per_step"] == 3 and result["frees_per_step"] == 3, result
    assert result["misses_per_step"] == 0.5 and result["hits_per_step"] == 2.5, result
    assert result["hit_rate"] == pytest.approx(5 / 6), result
    assert result["counters_from"] == "cache"
    assert result["alloc_ns_per_step"] is None  # not timed: MRCTX_TORCH_TIMING unset
    resource.close()
    ctx.close()

    # No cache: every allocation is a driver pool call.
    ctx = mrctx.Context(library_name + "_device", {common.TAG: "device"})
    resource = ctx.get_resource(common.TAG, 1)
    counters = common.StepCounters("mrctx-device", ctx, 1)
    counters.start()
    for _ in range(3):
        ptr = resource.allocate(MiB, stream=PER_THREAD)
        resource.deallocate(ptr, MiB, stream=PER_THREAD)
    result = counters.result(3)
    assert result["counters_from"] == "tag"
    assert result["allocs_per_step"] == result["misses_per_step"] == 1, result
    assert result["hits_per_step"] == 0 and result["hit_rate"] == 0, result
    resource.close()
    ctx.close()

    # An allocator with no counters of its own (CuPy's pool): all None.
    result = common.StepCounters("cupy", None, 0).result(5)
    assert result["counters_from"] is None and result["allocs_per_step"] is None

    alloc = function(shim, "mrctx_torch_control_alloc", ALLOC, ctypes.c_void_p)
    free = function(shim, "mrctx_torch_control_free", FREE)
    counters = common.StepCounters("pluggable-control", None, 0)
    counters.start()
    for _ in range(4):
        ptr = alloc(7 * MiB, 0, PER_THREAD)
        free(ptr, 7 * MiB, 0, PER_THREAD)
    result = counters.result(4)
    assert result["counters_from"] == "control"
    assert result["allocs_per_step"] == 1 and result["frees_per_step"] == 1, result
    assert result["misses_per_step"] == 0.25 and result["hits_per_step"] == 0.75, result


FAKE_WORKLOAD = '''
import argparse, json
parser = argparse.ArgumentParser()
parser.add_argument("--allocator")
parser.add_argument("--steps", type=int)
args = parser.parse_args()
counters = {
    "pluggable-control": {"counters_from": "control", "allocs_per_step": 10.0, "hits_per_step": 9.0,
                          "misses_per_step": 1.0, "hit_rate": 0.9, "allocator_ms_per_step": 0.5,
                          "alloc_max_ns": 12000},
    "mrctx-cache": {"counters_from": "cache", "allocs_per_step": 10.0, "hits_per_step": 8.0,
                    "misses_per_step": 2.0, "hit_rate": 0.8, "allocator_ms_per_step": None},
}[args.allocator]
with open(args.allocator + ".count", "a+") as f:
    f.seek(0)
    run = len(f.read())
    f.write("x")
# The runs' step times 10, 11, 14 and misses 1, 2, 3 (by run number).
print(json.dumps({"ms_per_step_median": [10.0, 11.0, 14.0][run], "peak_reserved_bytes": 1 << 30,
                  **counters, "misses_per_step": counters["misses_per_step"] + run}))
'''


def test_run_interleaved_reports_counter_medians(tmp_path):
    import json
    import subprocess
    script = tmp_path / "workload.py"
    script.write_text(FAKE_WORKLOAD)
    runner = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                          "run_interleaved.py")
    done = subprocess.run([sys.executable, runner, "--runs", "3", str(script), "pluggable-control",
                           "mrctx-cache", "--", "--steps", "5"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(done.stdout.splitlines()[-1])["results"]
    control, cache = summary["pluggable-control"], summary["mrctx-cache"]
    assert control["ms_per_step"]["median"] == 11.0
    assert control["ms_per_step"]["spread_percent"] == pytest.approx(100 * 4 / 11)
    assert control["counters_from"] == "control" and cache["counters_from"] == "cache"
    assert control["counters"]["misses_per_step"] == 2.0  # the median of 1, 2, 3
    assert control["counters"]["hit_rate"] == 0.9
    assert control["counters"]["alloc_max_ns"] == 12000
    assert cache["counters"]["allocator_ms_per_step"] is None  # not timed
    table = done.stdout
    assert "hit rate" in table and "90.0%" in table and "80.0%" in table, table


def test_record_stream_keeps_the_block_from_other_streams(shim, library_name, fake):
    """Tensor.record_stream through the hook (mrctx_torch_record_stream,
    as PyTorch calls it): a block freed on its stream while a recorded
    stream is still busy is not handed to another stream until that stream
    is done. Here the recorded stream is the legacy one (the fake marks it
    busy) and the block lives on the per-thread stream."""
    route_alloc = function(shim, "mrctx_torch_alloc", ALLOC, ctypes.c_void_p)
    route_free = function(shim, "mrctx_torch_free", FREE)
    record = function(shim, "mrctx_torch_route_record_stream",
                      [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p], ctypes.c_int)
    hook = function(shim, "mrctx_torch_record_stream", [ctypes.c_void_p, ctypes.c_void_p])
    ctx = mrctx.Context(library_name, {"act": "cache(device)"})
    try:
        mtorch.bind(0, ctx, "act")
    except mrctx.FrameworkError:
        pass  # route 0 is once per process: an earlier test bound it to a cache(device) tag
    failed = mtorch.failed_frees()[0]
    fake.fake_cuda_set_stream_busy.argtypes = [ctypes.c_void_p, ctypes.c_bool]
    waits = fake.fake_cuda_calls(b"cuStreamWaitEvent")

    x = route_alloc(MiB, 0, PER_THREAD)
    assert fake.fake_cuda_set_stream_busy(None, True) == 0
    hook(x, None)  # the exported hook PyTorch calls: it throws only on failure
    route_free(x, MiB, 0, PER_THREAD)
    y = route_alloc(MiB, 0, None)
    assert y != x  # the recorded stream is still busy
    assert fake.fake_cuda_calls(b"cuStreamWaitEvent") == waits + 1
    assert fake.fake_cuda_set_stream_busy(None, False) == 0
    route_free(y, MiB, 0, None)

    # Bad input is an error with a message, not a crash.
    assert record(0, None, None) == 1  # MR_ERR_INVALID_ARGUMENT
    assert "Tensor.record_stream" in mrctx.last_error() and "NULL" in mrctx.last_error()
    assert record(99, x, None) != 0
    assert mtorch.failed_frees()[0] == failed
    ctx.close()

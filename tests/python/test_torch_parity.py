"""PyTorch's controls under mrctx.torch.use, over the fake CUDA driver and a
stand-in for PyTorch (tests/python/fake_torch, which calls the pluggable
allocator's functions through ctypes as PyTorch's C++ does): empty_cache()
trims the tag and the driver pool, the memory fraction limits the tag, the
statistics drop-ins and patch=True, private pools refused, and the
MRCTX_TORCH switch (the .pth, python -m mrctx run). Suite fake.

Each scenario that installs an allocator runs in its own interpreter: the
allocator, like PyTorch's, is chosen once per process."""

import ctypes
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import mrctx
import mrctx.torch as mtorch

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE_TORCH = os.path.join(HERE, "fake_torch")
PYTHON_DIR = os.path.join(HERE, "..", "..", "python")
FAKE = os.environ.get("MRCTX_CUDA_DRIVER", "")
MiB = 1 << 20
GiB = 1 << 30
MR_ERR_OUT_OF_MEMORY, MR_ERR_STATE, MR_ERR_UNSUPPORTED, MR_ERR_INVALID_ARGUMENT = 2, 8, 5, 1


@pytest.fixture(scope="module", autouse=True)
def fake():
    if "fakecuda" not in FAKE:
        pytest.skip("MRCTX_CUDA_DRIVER is not the fake driver")
    try:
        mtorch.shim()
    except mrctx.LibraryNotFoundError as error:
        pytest.skip(f"no PyTorch shim in this build: {error}")


@pytest.fixture(scope="module", autouse=True)
def helper_cache(tmp_path_factory):
    """Where mrctx builds its torch.OutOfMemoryError helper in these tests
    (XDG_CACHE_HOME, inherited by every interpreter run() starts): built
    once against the stand-in's headers, never in the user's cache."""
    folder = tmp_path_factory.mktemp("xdg-cache")
    saved = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(folder)
    yield folder
    if saved is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = saved


def run(code: str, *, site: str = "", args=None, **env: str) -> subprocess.CompletedProcess:
    """Run ``code`` (or ``args``) in a fresh interpreter with the stand-in
    torch importable; fail with its output unless it printed PASS."""
    full = dict(os.environ, **env)
    paths = [FAKE_TORCH, PYTHON_DIR] + ([site] if site else [])
    full["PYTHONPATH"] = os.pathsep.join(paths + [full.get("PYTHONPATH", "")])
    for name, value in env.items():
        if value is None:
            full.pop(name)
    command = args if args is not None else [sys.executable, "-c", textwrap.dedent(code)]
    done = subprocess.run(command, env=full, capture_output=True, text=True, timeout=120)
    return done


def passed(done: subprocess.CompletedProcess) -> str:
    output = done.stdout + done.stderr
    assert done.returncode == 0 and "PASS" in done.stdout, output
    return output


PRELUDE = """
    import ctypes, sys
    import torch
    import mrctx, mrctx.torch as mt
    MiB, GiB = 1 << 20, 1 << 30
    shim = mt.shim()
    def address(name):
        return ctypes.cast(getattr(shim, name), ctypes.c_void_p).value
    shim.mrctx_torch_free.argtypes = [ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int,
                                      ctypes.c_void_p]
"""


HOOKS_BODY = """
    ctx = mrctx.Context("parity", {"act": "cache(device)"})
    mt.use(ctx, "act")
    print("allocator helper:", mt.allocator_helper())
    if "HELPER" in sys.argv:
        assert mt.allocator_helper()[0].endswith("_mrctx_torch_allocator.so")
        assert torch.cuda.memory._cpp_current()
        assert not [r for r in torch.cuda.memory.RECORD if r[0] == "change_current_allocator"]
    else:
        assert mt.allocator_helper() == (None, "MRCTX_TORCH_ALLOCATOR_HELPER=0")
        hooks = dict(h for h in torch.cuda.memory.RECORD if h[0].startswith("set_"))
        print("registered:", sorted(hooks))
        assert torch.cuda.memory.RECORD[-1][0] == "change_current_allocator"
        for setter, function in mt.HOOKS:
            assert hooks[setter] == address(function), (setter, function)

    # Three blocks through PyTorch's path on device 1, freed: the cache keeps
    # them, the driver pool still holds them.
    torch.cuda.set_device(1)
    blocks = [torch.cuda.empty(n * MiB) for n in (1, 2, 4)]
    assert ctx.stats("act", 1)["current_bytes"] == 7 * MiB
    for b in blocks:
        torch.cuda.free(b)
    assert ctx.cache_stats("act", 1)["cached_bytes"] >= 7 * MiB  # in the cache's sizes
    before = mrctx.driver_pool_info("device", 1)
    assert before["reserved_bytes"] >= 7 * MiB, before
    untouched = mrctx.driver_pool_info("device", 0)

    torch.cuda.empty_cache()
    after = mrctx.driver_pool_info("device", 1)
    print("pool before", before["reserved_bytes"], "after", after["reserved_bytes"])
    assert ctx.cache_stats("act", 1)["cached_bytes"] == 0
    assert ctx.cache_stats("act", 1)["trims"] >= 1
    assert after["reserved_bytes"] == after["used_bytes"] == 0, after
    # A device the tag never served is left alone.
    assert mrctx.driver_pool_info("device", 0) == untouched
    # And a live block stays live.
    keep = torch.cuda.empty(3 * MiB)
    torch.cuda.empty_cache()
    assert mrctx.driver_pool_info("device", 1)["used_bytes"] >= 3 * MiB
    torch.cuda.free(keep)
    print("PASS")
"""


@pytest.mark.parametrize("helper", ["auto", "0"])
def test_use_registers_the_hooks_and_empty_cache_trims(helper):
    """Through the allocator helper (PyTorch's allocator made in C++, the
    hooks set there) and through the plain pluggable allocator Python makes
    (MRCTX_TORCH_ALLOCATOR_HELPER=0)."""
    if helper == "auto" and not os.environ.get("MRCTX_FAKE_TORCH_LIB"):
        pytest.skip("no C++ part of the PyTorch stand-in in this build")
    words = ["HELPER"] if helper == "auto" else []
    passed(run("", args=[sys.executable, "-c", textwrap.dedent(PRELUDE + HOOKS_BODY), *words],
               MRCTX_TORCH_ALLOCATOR_HELPER=helper))


def test_memory_fraction_limits_the_tag():
    passed(run(PRELUDE + """
    ctx = mrctx.Context("fraction", {"act": "cache(device)"})
    mt.use(ctx, "act")
    total = 16 * GiB  # the fake driver's devices
    share = 1 / 1024  # 16 MiB: small, since the fake driver backs memory with the host's
    assert mt.memory_limit(0) is None
    torch.cuda.set_per_process_memory_fraction(share, 0)
    assert mt.memory_limit(0) == 16 * MiB, mt.memory_limit(0)
    assert mt.memory_limit(1) is None  # per device, as PyTorch's
    assert mt.get_per_process_memory_fraction(0) == share
    assert mt.get_per_process_memory_fraction("cuda:1") == 1.0

    a = torch.cuda.empty(12 * MiB)  # within 16 MiB
    alloc = shim.mrctx_torch_route_alloc
    alloc.argtypes = [ctypes.c_int, ctypes.c_ssize_t, ctypes.c_int, ctypes.c_void_p,
                      ctypes.POINTER(ctypes.c_int)]
    alloc.restype = ctypes.c_void_p
    status = ctypes.c_int(0)
    assert alloc(0, 8 * MiB, 0, None, ctypes.byref(status)) is None
    assert status.value == 2, status.value  # MR_ERR_OUT_OF_MEMORY
    message = mrctx.last_error()
    print("refused:", message)
    for words in ("fraction/act", str(16 * MiB), str(total), "set_per_process_memory_fraction",
                  str(12 * MiB), "0.000976562"):
        assert words in message, (words, message)
    assert ctx.stats("act", 0)["current_bytes"] == 12 * MiB  # nothing allocated
    # The tag never saw the refusal; PyTorch's count of OOMs has it.
    assert ctx.stats("act", 0).failed_count == 0
    assert mt.memory_stats(0)["num_ooms"] == 1 and mt.memory_stats(1)["num_ooms"] == 0
    assert shim.mrctx_torch_route_refused(0, 9) == 0 and shim.mrctx_torch_route_refused(5, 0) == 0
    b = torch.cuda.empty(4 * MiB)  # exactly up to the limit
    torch.cuda.free(b)
    torch.cuda.free(a)
    big = alloc(0, 8 * MiB, 0, None, ctypes.byref(status))  # fits again once freed
    assert big and status.value == 0
    mt.shim().mrctx_torch_free(big, 8 * MiB, 0, None)

    torch.cuda.set_per_process_memory_fraction(0.0, 0)  # nothing at all
    assert alloc(0, 1, 0, None, ctypes.byref(status)) is None and status.value == 2
    assert mt.memory_stats(0)["num_ooms"] == 2
    torch.cuda.set_per_process_memory_fraction(1.0, 0)  # the whole device: no limit
    assert mt.memory_limit(0) is None and mt.get_per_process_memory_fraction(0) == 1.0
    ptr = alloc(0, 40 * MiB, 0, None, ctypes.byref(status))
    assert ptr and status.value == 0
    mt.shim().mrctx_torch_free(ptr, 40 * MiB, 0, None)

    # Bad input to the shim's entry (PyTorch checks the range itself).
    for fraction, device in ((1.5, 0), (-0.1, 0), (float("nan"), 0), (0.5, 9), (0.5, -1)):
        assert shim.mrctx_torch_route_set_fraction(0, fraction, device) == 1
        assert "from 0 to 1" in mrctx.last_error(), mrctx.last_error()
    assert shim.mrctx_torch_route_set_fraction(7, 0.5, 0) == 8  # an unbound route
    assert "not bound" in mrctx.last_error()
    print("PASS")
    """))


@pytest.mark.parametrize("helper", ["auto", "0"])
def test_statistics_drop_ins_and_patch(helper):
    """mrctx.torch's statistics drop-ins, and torch.cuda's own: answered by
    the allocator helper (getDeviceStats, resetPeakStats), refused by
    PyTorch's plain pluggable allocator unless patch=True replaces them."""
    if helper == "auto" and not os.environ.get("MRCTX_FAKE_TORCH_LIB"):
        pytest.skip("no C++ part of the PyTorch stand-in in this build")
    passed(run("", args=[sys.executable, "-c", textwrap.dedent(PRELUDE + """
    ctx = mrctx.Context("stats", {"act": "cache(device)", "plain": "device"})
    mt.use(ctx, "act")
    torch.cuda.init()
    helper = mt.allocator_helper()[0] is not None
    assert helper == (sys.argv[-1] == "auto"), mt.allocator_helper()
    refused = []
    if not helper:
        refused += [torch.cuda.get_per_process_memory_fraction, torch.cuda.memory_stats,
                    torch.cuda.max_memory_allocated, torch.cuda.reset_peak_memory_stats]
    for call in refused:
        try:
            call(0)
            raise SystemExit(f"{call.__name__} answered under a pluggable allocator")
        except RuntimeError as e:
            assert "does not yet support" in str(e)

    a = torch.cuda.empty(8 * MiB)
    b = torch.cuda.empty(2 * MiB)
    torch.cuda.free(b)
    assert mt.memory_allocated(0) == 8 * MiB
    assert mt.max_memory_allocated(0) == 10 * MiB
    cache = ctx.cache_stats("act", 0)
    assert cache["cached_bytes"] >= 2 * MiB
    assert mt.memory_reserved(0) == 8 * MiB + cache["cached_bytes"]  # handed out, and cached
    assert mt.max_memory_reserved(0) == mt.memory_reserved(0)
    stats = mt.memory_stats(0)
    assert list(stats) == sorted(stats)
    needed = [f"{m}.{p}.{k}" for m in ("allocated_bytes", "active_bytes", "requested_bytes",
                                       "reserved_bytes", "inactive_split_bytes", "allocation",
                                       "active", "segment", "inactive_split")
              for p in ("all", "large_pool", "small_pool")
              for k in ("current", "peak", "allocated", "freed")]
    needed += [f"oversize_{w}.{k}" for w in ("allocations", "segments")
               for k in ("current", "peak", "allocated", "freed")]
    needed += ["num_alloc_retries", "num_ooms", "num_sync_all_streams", "num_device_alloc",
               "num_device_free", "max_split_size"]
    assert set(needed) <= set(stats), sorted(set(needed) - set(stats))
    assert all(isinstance(v, int) for v in stats.values())
    assert stats["allocation.all.current"] == 1 and stats["allocation.all.allocated"] == 2
    assert stats["allocated_bytes.all.freed"] == 2 * MiB
    assert stats["segment.all.current"] == 1 + cache["cached_blocks"]
    nested = mt.memory_stats_as_nested_dict(0)
    assert nested["allocated_bytes"]["all"]["current"] == 8 * MiB

    # Devices as PyTorch names them; the current device by default.
    assert mt.memory_allocated("cuda:0") == mt.memory_allocated(None) == 8 * MiB
    class Device:  # a torch.device
        type, index = "cuda", 1
    assert mt.memory_allocated(Device()) == 0
    for bad, error in (("cpu", mrctx.ArgumentError), ("cuda:x", mrctx.ArgumentError),
                       (1.5, mrctx.ArgumentTypeError), (7, mrctx.NoDeviceError)):
        try:
            mt.memory_allocated(bad)
            raise SystemExit(f"device {bad!r} accepted")
        except error as e:
            print("refused:", e)

    # patch=True: torch.cuda's own names answer from the tag.
    mt.use(ctx, "act", patch=True)
    assert torch.cuda.memory_allocated(0) == 8 * MiB
    assert torch.cuda.memory.max_memory_allocated() == 10 * MiB
    torch.cuda.reset_peak_memory_stats(0)
    assert torch.cuda.max_memory_allocated(0) == 8 * MiB
    assert ctx.stats("act", 0)["peak_bytes"] == 8 * MiB
    c = torch.cuda.empty(MiB)
    assert torch.cuda.max_memory_allocated(0) == 9 * MiB
    torch.cuda.set_per_process_memory_fraction(0.5)
    assert torch.cuda.get_per_process_memory_fraction() == 0.5
    assert torch.cuda.memory_stats()["allocated_bytes.all.current"] == 9 * MiB
    for name in mt.PATCHED:
        assert getattr(torch.cuda, name) is getattr(mt, name)
        assert getattr(torch.cuda.memory, name) is getattr(mt, name)
    torch.cuda.reset_accumulated_memory_stats(0)  # the drop-in, helper or not
    assert mt.memory_stats(0)["allocation.all.allocated"] == 0
    assert mt.memory_stats(0)["allocated_bytes.all.current"] == 9 * MiB
    mt.unpatch()
    assert torch.cuda.memory_allocated is not mt.memory_allocated
    if helper:
        # PyTorch's own functions, answered through getDeviceStats: the
        # same numbers as the drop-ins, every key of PyTorch's dict.
        assert torch.cuda.get_per_process_memory_fraction(0) == 0.5  # getMemoryFraction
        assert torch.cuda.get_per_process_memory_fraction(1) == 1.0
        assert torch.cuda.memory_allocated(0) == 9 * MiB
        assert torch.cuda.memory_stats(0) == mt.memory_stats(0), (
            torch.cuda.memory_stats(0), mt.memory_stats(0))
        torch.cuda.reset_peak_memory_stats(0)
        assert ctx.stats("act", 0)["peak_bytes"] == 9 * MiB
        c2 = torch.cuda.empty(MiB)
        torch.cuda.free(c2)
        before = torch.cuda.memory_stats(0)
        assert before["allocation.all.allocated"] == 1, before  # c2, since the reset above
        torch.cuda.reset_accumulated_memory_stats(0)
        after = torch.cuda.memory_stats(0)
        assert after["allocation.all.allocated"] == 0 and after["num_device_alloc"] == 0, after
        assert after["allocated_bytes.all.current"] == 9 * MiB  # current is not a total
        d = torch.cuda.empty(MiB)
        assert torch.cuda.memory_stats(0)["allocation.all.allocated"] == 1
        assert mt.memory_stats(0)["allocation.all.allocated"] == 1
        torch.cuda.free(d)
        try:
            torch.cuda.memory_stats(7)
            raise SystemExit("device 7 answered")
        except RuntimeError as e:
            assert "device 7" in str(e), e
    else:
        try:
            torch.cuda.memory_allocated(0)
            raise SystemExit("unpatch() left the drop-ins")
        except RuntimeError:
            pass
    torch.cuda.free(c)
    torch.cuda.free(a)
    try:
        mt.use(ctx, "act", patch="yes")
        raise SystemExit("patch='yes' accepted")
    except mrctx.ArgumentTypeError as e:
        print("refused:", e)
    print("PASS")
    """), helper], MRCTX_TORCH_ALLOCATOR_HELPER=helper))


def test_drop_ins_refuse_device_minus_one():
    """Issue 34, item 10: one rule for device=-1 in every drop-in. PyTorch
    passes -1 through (torch.cuda._utils._get_device_index) and its own
    allocator refuses it ("Invalid device argument -1: did you call
    init?"); none means every device. reset_peak_memory_stats(-1) reset
    every device's peaks, and memory_limit(-1) answered 0."""
    passed(run(PRELUDE + """
    ctx = mrctx.Context("minus", {"act": "device"})
    mt.use(ctx, "act", patch=True)
    torch.cuda.init()
    a = torch.cuda.empty(4 * MiB)
    torch.cuda.free(a)
    torch.cuda.set_device(1)
    b = torch.cuda.empty(2 * MiB)
    torch.cuda.free(b)
    torch.cuda.set_device(0)
    assert (mt.max_memory_allocated(0), mt.max_memory_allocated(1)) == (4 * MiB, 2 * MiB)
    calls = [getattr(mt, name) for name in (
        "memory_stats", "memory_stats_as_nested_dict", "memory_allocated",
        "max_memory_allocated", "memory_reserved", "max_memory_reserved",
        "reset_peak_memory_stats", "get_per_process_memory_fraction", "memory_limit")]
    calls += [getattr(torch.cuda, name) for name in mt.PATCHED]
    for call in calls:
        for device in (-1, -2, "cuda:-1"):
            try:
                call(device)
                raise SystemExit(f"{call.__name__}({device!r}) accepted")
            except (mrctx.NoDeviceError, mrctx.ArgumentError) as e:
                assert "-1" in str(e) or "-2" in str(e), e
                refused = str(e)
    print("refused:", refused)
    # Nothing was reset anywhere.
    assert (mt.max_memory_allocated(0), mt.max_memory_allocated(1)) == (4 * MiB, 2 * MiB)
    # None is the current device, as PyTorch has it.
    torch.cuda.set_device(1)
    mt.reset_peak_memory_stats()
    assert (mt.max_memory_allocated(0), mt.max_memory_allocated(1)) == (4 * MiB, 0)
    print("PASS")
    """))


def test_drop_ins_are_pytorchs_own_before_use():
    passed(run(PRELUDE + """
    torch.cuda.init()
    assert mt.memory_allocated(0) == 0 and mt.get_per_process_memory_fraction(0) == 1.0
    mt.reset_peak_memory_stats(0)
    try:
        mt.memory_limit(0)
        raise SystemExit("memory_limit without use()")
    except mrctx.FrameworkError as e:
        assert "mrctx.torch.use" in str(e)
    print("PASS")
    """))


POOLS = """
    import os
    def pools():
        return mt.pools_info(-1)
    fake = ctypes.CDLL(os.environ["MRCTX_CUDA_DRIVER"])
    get = fake.cuGetProcAddress_v2
    get.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int,
                    ctypes.c_ulonglong, ctypes.c_void_p]
    def driver(name, *argtypes):
        fn = ctypes.c_void_p()
        assert get(name.encode(), ctypes.byref(fn), 13000, 1, None) == 0, name
        return ctypes.CFUNCTYPE(ctypes.c_int, *argtypes)(fn.value)
    stream_create = driver("cuStreamCreate", ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint)
    begin_capture = driver("cuStreamBeginCapture", ctypes.c_void_p, ctypes.c_int)
    end_capture = driver("cuStreamEndCapture", ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
    retain = driver("cuDevicePrimaryCtxRetain", ctypes.POINTER(ctypes.c_void_p), ctypes.c_int)
    set_current = driver("cuCtxSetCurrent", ctypes.c_void_p)
    primary = ctypes.c_void_p()
    assert driver("cuInit", ctypes.c_uint)(0) == 0
    assert retain(ctypes.byref(primary), 0) == 0 and set_current(primary) == 0
    def new_stream():
        s = ctypes.c_void_p()
        assert stream_create(ctypes.byref(s), 1) == 0
        return s.value
    memory = torch.cuda.memory
"""


def test_private_pools_keep_a_graphs_memory_until_released():
    """A CUDA graph's private pool through the allocator helper, as
    torch.cuda.graph drives it: allocations on the capturing stream go to
    the pool (new segments from the tag on the per-thread stream, cut into
    blocks and reused within the pool: 20 MiB for a 2 MiB request, 2 MiB for
    1 MiB), a block freed during the capture goes back to the pool, one
    made before the capture and freed on it joins the pool as a segment,
    other streams are untouched; after the capture the pool keeps every
    segment (no byte of it handed to another allocation) until released,
    when they go back to the tag; checkPoolLiveAllocations and cacheInfo
    answer."""
    if not os.environ.get("MRCTX_FAKE_TORCH_LIB"):
        pytest.skip("no C++ part of the PyTorch stand-in in this build")
    passed(run(PRELUDE + POOLS + """
    import os
    ctx = mrctx.Context("graphs", {"act": "cache(device)"})
    mt.use(ctx, "act")
    assert mt.allocator_helper()[1] is None, mt.allocator_helper()
    assert memory._cache_info(0) > 0  # cuDNN's benchmark question, answered
    capture, other = new_stream(), new_stream()
    before = torch.cuda.empty(3 * MiB, stream=capture)  # made before the capture
    outside = torch.cuda.empty(MiB, stream=other)
    base = ctx.stats("act").current_bytes
    pool = (7, 0)
    memory._begin_pool(0, pool, capture)
    assert begin_capture(capture, 0) == 0  # global mode, as torch.cuda.graph
    a = torch.cuda.empty(2 * MiB, stream=capture)
    b = torch.cuda.empty(MiB, stream=capture)
    assert pools()["live_blocks"] == 2, pools()
    torch.cuda.free(a)  # freed during the capture: the pool's again
    c = torch.cuda.empty(2 * MiB, stream=capture)
    assert c == a, "the capture reuses its own freed block"
    torch.cuda.free(before)  # made before, freed on the capturing stream: joins the pool
    d = torch.cuda.empty(MiB, stream=other)  # another stream: not the pool's
    graph = ctypes.c_void_p()
    assert end_capture(capture, ctypes.byref(graph)) == 0
    memory._end_pool(0, pool)
    info = pools()
    print("after capture:", info)
    held = 20 * MiB + 2 * MiB + 3 * MiB  # a's and b's segments, and the block made before
    assert info["held_bytes"] == held and info["live_blocks"] == 2, info
    assert info["segments"] == 3 and info["free_blocks"] == 3, info
    assert memory._check_pool_live(0, pool, {b, c})
    assert not memory._check_pool_live(0, pool, {b})
    # While the graph lives no byte of the pool goes to anyone else.
    segments = [(c, 20 * MiB), (b, 2 * MiB), (before, 3 * MiB)]
    torch.cuda.free(b)
    torch.cuda.free(c)
    for size in (MiB, 2 * MiB, 3 * MiB):
        for stream in (capture, other, None):
            x = torch.cuda.empty(size, stream=stream)
            assert all(x + size <= start or x >= start + n for start, n in segments), (size, stream)
            torch.cuda.free(x)
    assert ctx.stats("act").current_bytes == base - 3 * MiB + held + MiB, ctx.stats("act")
    # PyTorch counts a pool's free blocks reserved, not allocated: so do the drop-ins.
    assert mt.pools_info(0)["held_bytes"] == held and mt.pools_info(0)["live_bytes"] == 0
    assert mt.memory_allocated(0) == ctx.stats("act").current_bytes - held
    assert mt.memory_reserved(0) >= ctx.stats("act").current_bytes
    memory._release_pool(0, pool)  # the graph dies
    info = pools()
    print("released:", info)
    assert info["pools"] == 0 and info["held_bytes"] == 0 and info["kept_blocks"] == 0, info
    assert ctx.stats("act").current_bytes == base - 3 * MiB + MiB, ctx.stats("act")
    torch.cuda.free(d)
    torch.cuda.free(outside)
    assert ctx.stats("act").current_bytes == 0
    print("PASS")
    """))


def test_private_pool_outputs_outlive_the_graph_and_pools_are_shared():
    """Two graphs share a pool (torch.cuda.graph(pool=g1.pool())): it goes
    only when both are released; a graph's output still held then goes to
    the tag when freed; a use_mem_pool-style pool (not captured) allocates
    on its own stream; record_stream keeps a block out of reuse; a pool
    released without its end closes."""
    if not os.environ.get("MRCTX_FAKE_TORCH_LIB"):
        pytest.skip("no C++ part of the PyTorch stand-in in this build")
    passed(run(PRELUDE + POOLS + """
    ctx = mrctx.Context("graphs2", {"act": "cache(device)"})
    mt.use(ctx, "act")
    s = new_stream()
    pool = (3, 0)
    for graph in range(2):  # two captures into one pool
        memory._begin_pool(0, pool, s)
        assert begin_capture(s, 0) == 0
        if graph == 0:
            out = torch.cuda.empty(4 * MiB, stream=s)
            shared = torch.cuda.empty(MiB, stream=s)
            memory._record_stream(shared, new_stream())
            torch.cuda.free(shared)  # kept, not reused
        else:
            again = torch.cuda.empty(MiB, stream=s)
            assert again != shared
            torch.cuda.free(again)
        g = ctypes.c_void_p()
        assert end_capture(s, ctypes.byref(g)) == 0
        memory._end_pool(0, pool)
    assert pools()["uses"] == 2, pools()
    memory._release_pool(0, pool)
    # out's 20 MiB segment, and a 2 MiB one for the 1 MiB blocks
    assert pools()["pools"] == 1 and pools()["held_bytes"] == 22 * MiB, pools()
    memory._release_pool(0, pool)
    info = pools()
    assert info["uses"] == 0 and info["held_bytes"] == 20 * MiB and info["live_blocks"] == 1, info
    assert ctx.stats("act").current_bytes == 20 * MiB
    torch.cuda.free(out)  # the graph's output, after the graph: its segment to the tag
    assert pools()["pools"] == 0 and ctx.stats("act").current_bytes == 0, pools()

    # use_mem_pool: not captured, so the tag allocates on the request's stream.
    memory._begin_pool(0, (9, 9), s)
    x = torch.cuda.empty(MiB, stream=s)
    torch.cuda.free(x)
    y = torch.cuda.empty(MiB, stream=s)
    assert y == x and pools()["held_bytes"] == 2 * MiB
    memory._release_pool(0, (9, 9))  # released without its end: closed too
    assert pools()["open"] == 0 and pools()["uses"] == 0
    z = torch.cuda.empty(MiB, stream=s)  # no pool: an ordinary block
    assert pools()["held_bytes"] == 2 * MiB
    torch.cuda.free(y)
    torch.cuda.free(z)
    assert pools()["pools"] == 0 and ctx.stats("act").current_bytes == 0, pools()
    print("PASS")
    """))


def test_mempool_and_graph_tree_checkpoints():
    """torch.cuda.MemPool() (createOrIncrefPool, use_count) and Inductor's
    graph trees (getCheckpointState / setCheckpointPoolState) through the
    allocator helper: a saved pool state made live again frees what was
    allocated since, hands back DataPtrs whose deleters free into the pool,
    and nothing reaches the tag before the pool is released."""
    if not os.environ.get("MRCTX_FAKE_TORCH_LIB"):
        pytest.skip("no C++ part of the PyTorch stand-in in this build")
    passed(run(PRELUDE + POOLS + """
    ctx = mrctx.Context("trees", {"act": "cache(device)"})
    mt.use(ctx, "act")
    torch.cuda.memory._record_memory_history()  # a restore's frees forget their frames
    s = new_stream()
    pool = (11, 0)
    memory._mempool_create(0, pool)  # MemPool(): one use before any allocation
    assert memory._pool_use_count(0, pool) == 1 and pools()["pools"] == 1
    memory._begin_pool(0, pool, s)   # use_mem_pool / a recording
    assert memory._pool_use_count(0, pool) == 2
    a = torch.cuda.empty(2 * MiB, stream=s)
    b = torch.cuda.empty(MiB, stream=s)
    state = memory._checkpoint(0, pool)   # after the recording: a and b live
    for p in (a, b):                      # the tree frees the path's storages
        torch.cuda.free(p)
    c = torch.cuda.empty(2 * MiB, stream=s)  # another recording reuses a's block
    assert c == a
    d = torch.cuda.empty(4 * MiB, stream=s)
    held = pools()["held_bytes"]
    freed, allocd = memory._restore(0, state)
    print("restore: freed", len(freed), "live again", len(allocd))
    # Every block live at the restore is freed (c is a's block: in both).
    assert sorted(freed) == sorted([c, d]) and sorted(allocd) == sorted([a, b]), (freed, allocd)
    assert memory._check_pool_live(0, pool, {a, b})
    assert pools()["held_bytes"] == held and pools()["live_bytes"] == 3 * MiB, pools()
    # The snapshot: a and b live again, with no frames (not c's, which
    # the restore freed at a's address).
    segs = {s["address"]: s for s in torch.cuda.memory._snapshot()["segments"]}
    assert set(segs) == {a, b} and segs[a]["blocks"][0]["frames"] == [], segs
    memory._drop_restored()  # the restored storages die: their blocks go back to the pool
    assert memory._check_pool_live(0, pool, set()) and pools()["held_bytes"] == held
    memory._end_pool(0, pool)
    memory._release_pool(0, pool)
    assert memory._pool_use_count(0, pool) == 1  # the MemPool itself still holds it
    memory._mempool_destroy(0, pool)         # the MemPool dies
    assert pools()["pools"] == 0 and ctx.stats("act").current_bytes == 0, pools()
    try:
        memory._restore(0, state)            # a state of a pool that is gone
        raise SystemExit("restored a released pool")
    except RuntimeError as e:
        assert "no longer holds" in str(e), e
    print("PASS")
    """))


def test_mempool_use_on_oom_and_no_split():
    """torch.cuda.MemPool(use_on_oom=True): an allocation outside the pool
    that the tag refuses borrows the pool's free memory, which stays the
    pool's; MemPool(no_split=True): each block is a whole segment of its
    rounded size. The destructor (setUseOnOOM(false), releasePool,
    emptyCache(pool)) gives the segments back to the tag without trimming
    the tag's own cache."""
    if not os.environ.get("MRCTX_FAKE_TORCH_LIB"):
        pytest.skip("no C++ part of the PyTorch stand-in in this build")
    passed(run(PRELUDE + POOLS + """
    ctx = mrctx.Context("mempools", {"act": "cache(device)"})
    mt.use(ctx, "act")
    s = new_stream()
    shim.mrctx_torch_pool_segments.restype = ctypes.c_long
    shim.mrctx_torch_pool_segments.argtypes = [
        ctypes.c_int, ctypes.c_ulonglong, ctypes.c_ulonglong, ctypes.POINTER(ctypes.c_void_p),
        ctypes.POINTER(ctypes.c_size_t), ctypes.c_size_t]
    def segments(pool):
        base, size = (ctypes.c_void_p * 16)(), (ctypes.c_size_t * 16)()
        n = shim.mrctx_torch_pool_segments(0, pool[0], pool[1], base, size, 16)
        return [(base[i], size[i]) for i in range(n)]
    def inside(ptr, pool):
        return any(b <= ptr < b + n for b, n in segments(pool))

    lender = (0, 21)
    memory._mempool_create(0, lender, use_on_oom=True)
    memory._begin_pool(0, lender, s)
    a = torch.cuda.empty(12 * MiB, stream=s)
    memory._end_pool(0, lender)
    memory._release_pool(0, lender)  # use_mem_pool's exit
    torch.cuda.free(a)               # free in the pool, not the tag's
    assert pools()["held_bytes"] == 12 * MiB and pools()["live_bytes"] == 0, pools()
    torch.cuda.set_per_process_memory_fraction(1 / 1024, 0)  # the tag: 16 MiB, 12 held
    ooms = mt.memory_stats(0)["num_ooms"]
    b = torch.cuda.empty(8 * MiB, stream=s)   # the tag cannot: the pool lends
    assert inside(b, lender) and pools()["live_bytes"] == 8 * MiB, pools()
    # A lent block is no out-of-memory, as in PyTorch's allocator.
    assert mt.memory_stats(0)["num_ooms"] == ooms, mt.memory_stats(0)["num_ooms"]
    c = torch.cuda.empty(2 * MiB, stream=s)   # the tag still can: not the pool's
    assert not inside(c, lender)
    try:
        torch.cuda.empty(8 * MiB, stream=s)   # neither: 4 MiB left in the pool
        raise SystemExit("allocated past the limit")
    except torch.OutOfMemoryError as e:
        print("refused:", e)
    assert mt.memory_stats(0)["num_ooms"] == ooms + 1
    other = new_stream()
    try:
        torch.cuda.empty(4 * MiB, stream=other)  # 4 MiB free in the pool, but s's
        raise SystemExit("lent a block to another stream")
    except torch.OutOfMemoryError:
        pass
    torch.cuda.free(b)                        # back to the pool
    torch.cuda.free(c)
    assert pools()["live_bytes"] == 0 and pools()["free_blocks"] == 1, pools()
    torch.cuda.set_per_process_memory_fraction(1.0, 0)

    whole = (0, 22)
    memory._mempool_create(0, whole, no_split=True)
    memory._begin_pool(0, whole, s)
    x = torch.cuda.empty(1000, stream=s)
    y = torch.cuda.empty(3 * MiB, stream=s)
    print("no_split segments:", segments(whole))
    assert sorted(n for _, n in segments(whole)) == [1024, 3 * MiB], segments(whole)
    torch.cuda.free(y)
    z = torch.cuda.empty(2 * MiB, stream=s)   # the whole 3 MiB block, not a piece
    assert z == y and pools()["free_blocks"] == 1, pools()  # the lender's only
    memory._end_pool(0, whole)
    memory._release_pool(0, whole)  # use_mem_pool's exit
    torch.cuda.free(x)
    torch.cuda.free(z)

    cached = ctx.cache_stats("act", 0)["cached_bytes"]
    for pool in (lender, whole):
        memory._mempool_destroy(0, pool)
    assert pools()["pools"] == 0 and ctx.stats("act").current_bytes == 0, pools()
    # The segments went back to the tag's cache, which emptyCache(pool)
    # leaves as it is (empty_cache trims it).
    assert ctx.cache_stats("act", 0)["cached_bytes"] >= cached + 12 * MiB + 3 * MiB, \
        ctx.cache_stats("act", 0)
    torch.cuda.empty_cache()
    assert ctx.cache_stats("act", 0)["cached_bytes"] == 0
    print("PASS")
    """))


def test_memory_history_and_snapshot_through_the_helper():
    """torch.cuda.memory._record_memory_history(), _snapshot() and
    memory_snapshot() under use(), answered by the allocator helper
    (recordHistory, snapshot, which PyTorch's pluggable allocator
    refuses): every live allocation a segment of one block with the Python
    frames that asked while history was on; the trace "segment_alloc",
    "alloc", then "free_requested", "free_completed", "segment_free", and
    "oom"; "state" keeps frames and no trace; max_entries keeps the last
    events; skip_actions leaves actions out; a pool's id gives the pool's
    blocks only; history off forgets the trace. What it writes passes
    memory_viz's checks (memory_viz_check.py)."""
    if not os.environ.get("MRCTX_FAKE_TORCH_LIB"):
        pytest.skip("no C++ part of the PyTorch stand-in in this build")
    passed(run(PRELUDE + f"""
    sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})
    import pickle
    import memory_viz_check
    ctx = mrctx.Context("hist", {{"act": "cache(device)"}})
    mt.use(ctx, "act")
    torch.cuda.init()
    assert mt.allocator_helper()[0] is not None, mt.allocator_helper()

    before = torch.cuda.empty(3 * MiB)  # before history: no frames, no events
    torch.cuda.memory._record_memory_history(max_entries=100000)

    def make_activations(n):
        return [torch.cuda.empty(n) for _ in range(2)]

    acts = make_activations(2 * MiB)
    gone = torch.cuda.empty(5 * MiB)
    torch.cuda.free(gone)
    try:
        torch.cuda.empty(64 * GiB)
        raise SystemExit("64 GiB on a 16 GiB device")
    except torch.OutOfMemoryError:
        pass
    snap = torch.cuda.memory._snapshot()
    segs = {{s["address"]: s for s in snap["segments"]}}
    assert set(segs) == {{before}} | set(acts), sorted(segs)
    for a in acts:
        s = segs[a]
        assert s["total_size"] == 2 * MiB and s["allocated_size"] == 2 * MiB
        (b,) = s["blocks"]
        assert b["state"] == "active_allocated" and b["size"] == 2 * MiB
        assert b["frames"][0]["name"] in ("<listcomp>", "make_activations"), b["frames"]
        assert any(f["name"] == "make_activations" for f in b["frames"]), b["frames"]
    assert segs[before]["blocks"][0]["frames"] == []
    (trace,) = snap["device_traces"]
    actions = [(e["action"], e.get("addr")) for e in trace]
    expected = [("segment_alloc", acts[0]), ("alloc", acts[0]),
                ("segment_alloc", acts[1]), ("alloc", acts[1]),
                ("segment_alloc", gone), ("alloc", gone),
                ("free_requested", gone), ("free_completed", gone), ("segment_free", gone),
                ("oom", None)]  # PyTorch writes device_free, not addr, for an oom
    assert actions == expected, actions
    assert trace[-1]["size"] == 64 * GiB and 15 * GiB < trace[-1]["device_free"] <= 16 * GiB
    assert all(e["frames"] for e in trace), trace
    assert torch.cuda.memory_snapshot() == snap["segments"]

    # What PyTorch's memory_viz reads, as torch.cuda.memory._dump_snapshot
    # pickles it.
    problems = memory_viz_check.problems(pickle.dumps(snap, protocol=4))
    assert not problems, problems

    # max_entries keeps the last events; skip_actions leaves some out.
    torch.cuda.memory._record_memory_history(max_entries=3, clear_history=True)
    x = torch.cuda.empty(MiB)
    torch.cuda.free(x)
    assert [e["action"] for e in torch.cuda.memory._snapshot()["device_traces"][0]] == [
        "free_requested", "free_completed", "segment_free"]
    torch.cuda.memory._record_memory_history(clear_history=True,
                                             skip_actions=["segment_alloc", "segment_free"])
    x = torch.cuda.empty(MiB)
    torch.cuda.free(x)
    assert [e["action"] for e in torch.cuda.memory._snapshot()["device_traces"][0]] == [
        "alloc", "free_requested", "free_completed"]
    try:
        torch.cuda.memory._record_memory_history(skip_actions=["no_such_action"])
        raise SystemExit("an unknown action was taken")
    except RuntimeError as e:
        assert "no_such_action" in str(e), e

    # "state": frames of live blocks, no trace.
    torch.cuda.memory._record_memory_history(enabled="state", clear_history=True)
    y = torch.cuda.empty(MiB)
    snap = torch.cuda.memory._snapshot()
    assert snap["device_traces"] == [], snap["device_traces"]
    assert any(f["name"] == "<module>" for s in snap["segments"] if s["address"] == y
               for f in s["blocks"][0]["frames"])

    # A pool's id: that pool's blocks only.
    torch.cuda.memory._begin_pool(0, (7, 0))
    p = torch.cuda.empty(MiB)
    torch.cuda.memory._end_pool(0, (7, 0))
    assert [s["address"] for s in torch.cuda.memory_snapshot((7, 0))] == [p]
    torch.cuda.free(p)
    torch.cuda.memory._release_pool(0, (7, 0))

    # Off: no trace, no frames kept; the segments are still there.
    torch.cuda.memory._record_memory_history(enabled=None)
    snap = torch.cuda.memory._snapshot()
    assert snap["device_traces"] == []
    assert all(not s["blocks"][0]["frames"] for s in snap["segments"])
    assert len(snap["segments"]) == 4  # before, acts, y
    for ptr in [before, y] + acts:
        torch.cuda.free(ptr)
    assert torch.cuda.memory._snapshot()["segments"] == []
    print("PASS")
    """))


def test_allocator_helper_without_its_history_answers(tmp_path):
    """A PyTorch whose snapshot types the helper's history answers do not
    build against keeps every other answer (statistics and MemPool's), with
    a warning saying what is lost; torch.cuda.memory._snapshot() then
    raises as under PyTorch's plain pluggable allocator."""
    if not os.environ.get("MRCTX_FAKE_TORCH_LIB"):
        pytest.skip("no C++ part of the PyTorch stand-in in this build")
    include = standin_headers_with(tmp_path, "std::vector<BlockInfo> blocks;",
                                   "std::vector<BlockInfo> block_list;")
    passed(run(PRELUDE + use_against_headers(include, "nohist") + """
    assert len(warned) == 1 and "_record_memory_history" in warned[0], warned
    assert "blocks" in warned[0] and "MemPool" not in warned[0], warned
    a = torch.cuda.empty(MiB)
    assert torch.cuda.memory_allocated(0) == MiB  # getDeviceStats still answers
    torch.cuda.memory._mempool_create(0, (1, 1))  # MemPool still served
    torch.cuda.memory._mempool_destroy(0, (1, 1))
    for call in (torch.cuda.memory._snapshot, torch.cuda.memory._record_memory_history,
                 torch.cuda.get_per_process_memory_fraction):
        try:
            call()
            raise SystemExit(f"{call.__name__} answered")
        except RuntimeError as e:
            assert "does not yet support" in str(e), e
    torch.cuda.free(a)
    print("PASS")
    """, XDG_CACHE_HOME=str(tmp_path / "cache")))


def use_against_headers(include, name: str) -> str:
    """Code (after PRELUDE) that makes mrctx.torch build its helpers
    against the headers under `include` (standin_headers_with) and calls
    use() on a context `name`, leaving the warnings it gave in `warned`."""
    return f"""
    import time, warnings
    import torch.utils.cpp_extension as ce
    ce.include_paths = lambda *a: [{str(include)!r}]
    start = time.monotonic()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ctx = mrctx.Context({name!r}, {{"act": "cache(device)"}})
        mt.use(ctx, "act")
    warned = [str(w.message) for w in caught]
    print("warned:", warned, "in", round(time.monotonic() - start, 1), "s")
"""


def standin_headers_with(tmp_path, old: str, new: str):
    """A copy of the stand-in's headers under tmp_path whose
    CUDACachingAllocator.h has `old` replaced by `new` (a PyTorch whose
    headers differ there); returns its include folder."""
    include = tmp_path / "include"
    shutil.copytree(os.path.join(FAKE_TORCH, "include"), include)
    header = include / "c10" / "cuda" / "CUDACachingAllocator.h"
    text = header.read_text()
    assert old in text, old
    header.write_text(text.replace(old, new))
    return include


@pytest.mark.parametrize("change, named", [
    # the answers do not build: CheckpointDelta's member named otherwise
    ("std::vector<void *> freed_pointers;", "ptrs_freed"),
    # they build but do not load: a constructor the header declares and the
    # library does not export (as PyTorch 2.11 does with _AllocationMetadata's)
    ("CheckpointDelta();\n  std::vector<void *> ptrs_freed;", "undefined symbol"),
], ids=["build", "load"])
def test_allocator_helper_without_its_mempool_answers(tmp_path, change, named):
    """A PyTorch whose headers refuse the helper's MemPool and graph-tree
    answers, or whose libraries lack what they need (both keep every
    class's layout), gets the helper without them, with a warning saying
    so: cacheInfo is still answered."""
    if not os.environ.get("MRCTX_FAKE_TORCH_LIB"):
        pytest.skip("no C++ part of the PyTorch stand-in in this build")
    include = standin_headers_with(tmp_path, "std::vector<void *> ptrs_freed;", change)
    passed(run(PRELUDE + use_against_headers(include, "basic") + f"""
    assert len(warned) == 1 and "MemPool" in warned[0] and {named!r} in warned[0], warned
    assert mt.allocator_helper()[1] is None
    assert torch.cuda.memory._cache_info(0) > 0
    try:
        torch.cuda.memory._mempool_create(0, (1, 1))
        raise SystemExit("MemPool served without its answer")
    except RuntimeError as e:
        assert "does not yet support createOrIncrefPool" in str(e), e
    print("PASS")
    """, XDG_CACHE_HOME=str(tmp_path / "cache")))


def test_allocator_helper_without_its_statistics_answers(tmp_path):
    """A PyTorch whose DeviceStats the helper's statistics answers do not
    build against keeps every other answer (MemPool's included), with a
    warning saying what is lost: torch.cuda.memory_stats() raises as
    under the plain pluggable allocator, and the drop-ins still answer.
    The refusal is remembered: the next process does not compile it
    again."""
    if not os.environ.get("MRCTX_FAKE_TORCH_LIB"):
        pytest.skip("no C++ part of the PyTorch stand-in in this build")
    include = standin_headers_with(tmp_path, "int64_t num_device_free = 0;",
                                   "int64_t device_frees = 0;")
    code = PRELUDE + use_against_headers(include, "nostats") + """
    assert len(warned) == 1 and "memory_stats" in warned[0] and "num_device_free" in warned[0]
    assert "MemPool" not in warned[0], warned
    torch.cuda.memory._mempool_create(0, (1, 1))  # MemPool still served
    torch.cuda.memory._mempool_destroy(0, (1, 1))
    a = torch.cuda.empty(MiB)
    try:
        torch.cuda.memory_stats(0)
        raise SystemExit("getDeviceStats answered")
    except RuntimeError as e:
        assert "does not yet support getDeviceStats" in str(e), e
    assert mt.memory_allocated(0) == MiB
    torch.cuda.free(a)
    print("PASS")
    """
    cache = str(tmp_path / "cache")
    passed(run(code, XDG_CACHE_HOME=cache))
    # Refused: the whole source and the one without history, both over
    # the statistics (each variant is kept apart, by its source's hash).
    refused = sorted(p.name for p in (tmp_path / "cache").rglob("*.failed"))
    assert refused == ["_mrctx_torch_allocator.so.failed"] * 2, refused
    # The next process reads the refusal instead of compiling again.
    out = passed(run(code, XDG_CACHE_HOME=cache))
    assert "num_device_free" in out


def test_cache_info_and_pools_without_the_allocator_helper():
    """MRCTX_TORCH_ALLOCATOR_HELPER=0: PyTorch's plain pluggable allocator,
    whose cacheInfo refuses (cuDNN's benchmark then raises), as before."""
    passed(run(PRELUDE + """
    ctx = mrctx.Context("plain", {"act": "cache(device)"})
    mt.use(ctx, "act")
    assert mt.allocator_helper() == (None, "MRCTX_TORCH_ALLOCATOR_HELPER=0")
    try:
        torch.cuda.memory._cache_info(0)
        raise SystemExit("cacheInfo answered")
    except RuntimeError as e:
        assert "does not yet support cacheInfo" in str(e), e
    print("PASS")
    """, MRCTX_TORCH_ALLOCATOR_HELPER="0"))


def test_cache_info_within_the_memory_fraction():
    if not os.environ.get("MRCTX_FAKE_TORCH_LIB"):
        pytest.skip("no C++ part of the PyTorch stand-in in this build")
    passed(run(PRELUDE + """
    ctx = mrctx.Context("cinfo", {"act": "cache(device)"})
    mt.use(ctx, "act")
    whole = torch.cuda.memory._cache_info(0)
    free, total = mrctx.device_memory(0) if hasattr(mrctx, "device_memory") else (whole, 0)
    print("cacheInfo", whole)
    assert whole >= 15 * GiB, whole  # the fake's 16 GiB device, nearly all free
    torch.cuda.set_per_process_memory_fraction(1 / 1024, 0)  # 16 MiB
    held = torch.cuda.empty(10 * MiB)
    assert torch.cuda.memory._cache_info(0) == 16 * MiB - 10 * MiB
    torch.cuda.free(held)
    print("PASS")
    """))


def test_empty_cache_and_fraction_on_unbound_or_failing_routes(library_name):
    """The shim's entries report what failed (PyTorch gets it as the
    exception its hooks throw)."""
    shim = mtorch.shim()
    assert shim.mrctx_torch_route_empty_cache(8) == MR_ERR_STATE
    assert "route 8 is not bound" in mrctx.last_error()
    assert shim.mrctx_torch_route_empty_cache(-1) == MR_ERR_STATE
    assert shim.mrctx_torch_route_fraction(8, 0) == -1.0
    ctx = mrctx.Context(library_name, {"c": "cache(device)"})
    mtorch.bind(8, ctx, "c")
    assert shim.mrctx_torch_route_empty_cache(8) == 0  # nothing served yet: nothing to do
    resource = ctx.get_resource("c", 0)
    ptr = resource.allocate(MiB)
    resource.deallocate(ptr, MiB)
    fake = ctypes.CDLL(FAKE)
    fake.fake_cuda_fail(b"cuMemPoolTrimTo", 1, 1, 1)  # CUDA_ERROR_INVALID_VALUE
    try:
        assert shim.mrctx_torch_route_empty_cache(8) != 0
    finally:
        fake.fake_cuda_fail(b"cuMemPoolTrimTo", 1, 0, 0)
    message = mrctx.last_error()
    assert "empty_cache" in message and library_name + "/c" in message, message
    assert "device 0" in message and "cuMemPoolTrimTo" in message, message
    assert shim.mrctx_torch_route_empty_cache(8) == 0
    assert ctx.cache_stats("c", 0)["cached_bytes"] == 0
    resource.close()


# ---- MRCTX_TORCH -------------------------------------------------------------

@pytest.fixture
def site(tmp_path):
    """A site directory holding what the package installs at the top of
    site-packages."""
    for name in ("_mrctx_torch_env.py", "mrctx-torch.pth"):
        shutil.copy(os.path.join(PYTHON_DIR, name), tmp_path / name)
    return str(tmp_path)


SITE = """
    import site, sys
    site.addsitedir({site!r})  # reads mrctx-torch.pth as Python does at start
"""


def test_switch_puts_torch_on_the_tag(site):
    passed(run(SITE.format(site=site) + """
    assert "_mrctx_torch_env" in sys.modules and "mrctx" not in sys.modules
    assert "torch" not in sys.modules
    import torch
    import mrctx, mrctx.torch as mt
    assert mt.installed() == "torch/memory", mt.installed()
    ctx = mt.context()
    assert ctx.library == "torch" and ctx.source("memory").spec == "cache(device)"
    a = torch.cuda.empty(5 << 20)
    assert ctx.stats("memory", 0)["current_bytes"] == 5 << 20
    assert torch.cuda.memory_allocated(0) == 5 << 20  # patched
    torch.cuda.free(a)
    torch.cuda.empty_cache()
    assert ctx.cache_stats("memory", 0)["cached_bytes"] == 0
    print("PASS")
    """, MRCTX_TORCH="cache(device)"))


def test_switch_overridden_by_its_variable(site):
    passed(run(SITE.format(site=site) + """
    import torch, mrctx.torch as mt
    source = mt.context().source("memory")
    assert source.spec == "device" and source.origin == "env", source
    print("PASS")
    """, MRCTX_TORCH="cache(device)", MRCTX_TORCH_MEMORY="memory=device"))


def test_switch_unset_costs_an_import_of_nothing(site):
    for value in (None, ""):
        passed(run(SITE.format(site=site) + """
    import torch
    assert "_mrctx_torch_env" not in sys.modules and "mrctx" not in sys.modules
    assert not [r for r in torch.cuda.memory.RECORD if r[0] == "change_current_allocator"]
    print("PASS")
    """, MRCTX_TORCH=value))


def test_switch_bad_value_says_so_once_and_leaves_torch_alone(site):
    for value, words in (("cache(", "cache("), ("pinned", "pinned memory"),
                         ("nosuch(device)", "nosuch")):
        done = run(SITE.format(site=site) + """
    import torch
    import torch.cuda  # imported again: nothing more is said
    import mrctx.torch as mt
    assert mt.installed() is None
    assert not [r for r in torch.cuda.memory.RECORD if r[0] == "change_current_allocator"]
    print("PASS")
    """, MRCTX_TORCH=value)
        out = passed(done)
        lines = [line for line in done.stderr.splitlines() if line.startswith("mrctx:")]
        assert len(lines) == 1, out
        assert lines[0].startswith(f"mrctx: MRCTX_TORCH={value!r}: "), lines
        assert "PyTorch keeps its own" in lines[0] and words in done.stderr, done.stderr
        # A spec's error is placed in the variable, not in "default spec of torch tag".
        assert "default spec of" not in done.stderr, done.stderr
    done = run(SITE.format(site=site) + "    import torch\n", MRCTX_TORCH="cach(device)")
    assert done.returncode == 0, done.stderr
    assert "MRCTX_TORCH, column 1: unknown resource 'cach'" in done.stderr, done.stderr


def test_switch_strict_raises_at_import(site):
    """MRCTX_TORCH_STRICT=1: a bad value stops `import torch` with an error
    naming the variable, instead of running on PyTorch's own allocator."""
    done = run(SITE.format(site=site) + """
    import mrctx
    try:
        import torch
    except mrctx.FrameworkError as e:
        print("raised:", e)
        assert isinstance(e.__cause__, mrctx.ConfigError), repr(e.__cause__)
        print("PASS")
    """, MRCTX_TORCH="cach(device)", MRCTX_TORCH_STRICT="1")
    passed(done)
    assert ("raised: mrctx: MRCTX_TORCH='cach(device)' (MRCTX_TORCH_STRICT=1): "
            "MRCTX_TORCH, column 1: unknown resource 'cach'") in done.stdout, done.stdout
    assert "PyTorch keeps its own" not in done.stderr, done.stderr
    # A good value is as without it; a bad MRCTX_TORCH_STRICT is said, not ignored.
    passed(run(SITE.format(site=site) + """
    import torch, mrctx.torch as mt
    assert mt.installed() == "torch/memory"
    print("PASS")
    """, MRCTX_TORCH="device", MRCTX_TORCH_STRICT="1"))
    done = run(SITE.format(site=site) + "    import torch\n", MRCTX_TORCH="device",
               MRCTX_TORCH_STRICT="yes")
    assert "MRCTX_TORCH_STRICT='yes': expected 1" in done.stderr, done.stderr


def test_python_m_mrctx_run(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import sys
        import torch
        import mrctx.torch as mt
        print("installed:", mt.installed(), "args:", sys.argv[1:], "name:", __name__)
        a = torch.cuda.empty(1 << 20)
        assert mt.context().stats("memory", 0)["current_bytes"] == 1 << 20
        print("PASS")
        sys.exit(3)
        """))
    done = run("", args=[sys.executable, "-m", "mrctx", "run", str(script), "--lr", "1"],
               MRCTX_TORCH="device")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "installed: torch/memory args: ['--lr', '1'] name: __main__" in done.stdout, done.stdout
    done = run("", args=[sys.executable, "-m", "mrctx", "run", str(script)], MRCTX_TORCH=None)
    assert done.returncode != 0 and "installed: None" in done.stdout  # no switch: PyTorch's own
    done = run("", args=[sys.executable, "-m", "mrctx", "run"])
    assert done.returncode == 2 and "usage:" in done.stderr


# ---- torch.OutOfMemoryError (issue 37, item 3) --------------------------------
#
# The stand-in's C++ part (fake_torch/csrc) catches what the allocation
# function throws as PyTorch does; mrctx's helper is built against the
# stand-in's c10 headers and libc10.so, so the whole path runs: the build,
# its cache and lock, the shim's throw through the helper, the catch by type
# in another library.

OOM = PRELUDE + """
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ctx = mrctx.Context("oomlib", {"act": "limit(cache(device), bytes=4MiB)"})
        if "CONTROL" in sys.argv:
            mt.use_control()
        else:
            mt.use(ctx, "act")
    warned = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    print("helper:", mt.oom_helper(), "warned:", warned)
    a = torch.cuda.empty(3 * MiB)
    try:
        torch.cuda.empty((1 << 50) if "CONTROL" in sys.argv else 2 * MiB)
        raise SystemExit("past the limit")
    except RuntimeError as e:  # old catches still work
        kind, message = type(e), str(e)
    print("raised:", kind.__name__, message[:400])
    assert message.startswith("CUDA out of memory. mrctx ("), message
    assert ("control" if "CONTROL" in sys.argv else "oomlib/act") in message, message
    if "CACHED" in sys.argv:  # found in the cache: no build tools imported
        assert "torch.utils.cpp_extension" not in sys.modules
    if "TORCH_OOM" in sys.argv:
        assert kind is torch.OutOfMemoryError and not warned, (kind, warned)
        assert shim.mrctx_torch_oom_thrower_set() == 1 and mt.oom_helper()[1] is None
    else:
        assert kind is RuntimeError, kind
        assert shim.mrctx_torch_oom_thrower_set() == 0 and mt.oom_helper()[0] is None
        print("why:", mt.oom_helper()[1])
        for words in sys.argv[sys.argv.index("WHY") + 1:]:
            assert words in mt.oom_helper()[1], (words, mt.oom_helper())
            assert "WARNED" not in sys.argv or any(words in w for w in warned), warned
        assert len(warned) == (1 if "WARNED" in sys.argv else 0), warned
    torch.cuda.free(a)
    b = torch.cuda.empty(MiB)  # the allocator works on
    torch.cuda.free(b)
    print("PASS")
"""


def run_oom(*words: str, **env: str) -> subprocess.CompletedProcess:
    # The OOM helper alone: the allocator helper (tested below) would build
    # and warn beside it.
    env.setdefault("MRCTX_TORCH_ALLOCATOR_HELPER", "0")
    return run("", args=[sys.executable, "-c", textwrap.dedent(OOM), *words], **env)


def helpers(cache) -> list:
    """The torch.OutOfMemoryError helpers built under `cache`."""
    return sorted(p for p in cache.rglob("*") if p.is_file() and p.name == "_mrctx_torch_oom.so")


def test_out_of_memory_is_torch_outofmemoryerror(helper_cache):
    if not os.environ.get("MRCTX_FAKE_TORCH_LIB"):
        pytest.skip("no C++ part of the PyTorch stand-in in this build")
    print(passed(run_oom("TORCH_OOM")))
    built = helpers(helper_cache)
    assert len(built) == 1 and built[0].name == "_mrctx_torch_oom.so", built
    assert built[0].parent.name.startswith("torch-0.0+mrctx.fake-"), built
    assert not list(built[0].parent.glob(".build-*"))  # no half-built file left
    stamp = built[0].stat().st_mtime_ns
    passed(run_oom("TORCH_OOM", "CONTROL", "CACHED"))  # the control throws it too, from the cache
    assert helpers(helper_cache) == built and built[0].stat().st_mtime_ns == stamp
    # A prebuilt helper (one shipped per PyTorch version), with no cache.
    passed(run_oom("TORCH_OOM", MRCTX_TORCH_OOM_HELPER=str(built[0]),
                   XDG_CACHE_HOME="/nonexistent/cache"))


@pytest.mark.parametrize("compiler", ["g++", "clang++"])
def test_helper_builds_with_either_compiler(tmp_path, compiler):
    if not os.environ.get("MRCTX_FAKE_TORCH_LIB"):
        pytest.skip("no C++ part of the PyTorch stand-in in this build")
    if shutil.which(compiler) is None:
        pytest.skip(f"no {compiler}")
    passed(run_oom("TORCH_OOM", CXX=compiler, XDG_CACHE_HOME=str(tmp_path)))
    assert len(helpers(tmp_path)) == 1


def test_two_processes_build_the_helper_once(tmp_path):
    """Two interpreters that find no helper build it under one lock: both
    get torch.OutOfMemoryError, and the cache holds one helper."""
    if not os.environ.get("MRCTX_FAKE_TORCH_LIB"):
        pytest.skip("no C++ part of the PyTorch stand-in in this build")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path), MRCTX_TORCH_ALLOCATOR_HELPER="0")
    env["PYTHONPATH"] = os.pathsep.join([FAKE_TORCH, PYTHON_DIR, env.get("PYTHONPATH", "")])
    command = [sys.executable, "-c", textwrap.dedent(OOM), "TORCH_OOM"]
    both = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True) for _ in range(2)]
    for process in both:
        output, _ = process.communicate(timeout=300)
        assert process.returncode == 0 and "PASS" in output, output
    built = helpers(tmp_path)
    assert len(built) == 1, built
    assert not list(built[0].parent.glob(".build-*"))


@pytest.mark.parametrize("setup, words", [
    ({"CXX": "/nonexistent/c++"}, ["WARNED", "WHY", "CXX='/nonexistent/c++'"]),
    ({"MRCTX_TORCH_OOM_HELPER": "0"}, ["WHY", "MRCTX_TORCH_OOM_HELPER=0"]),
    ({"MRCTX_TORCH_OOM_HELPER": "/nonexistent/helper.so"},
     ["WARNED", "WHY", "cannot load /nonexistent/helper.so"]),
    ({"HEADERS": "none"}, ["WARNED", "WHY", "no C++ headers"]),
    ({"HEADERS": "broken"}, ["WARNED", "WHY", "could not build it", "mrctx_broken_header"]),
])
def test_runtime_error_where_the_helper_cannot_be_had(tmp_path, setup, words):
    """No compiler, no headers, a failed build, a helper that will not load,
    or MRCTX_TORCH_OOM_HELPER=0: RuntimeError with mrctx's message, and a
    warning saying why (not for =0)."""
    if not os.environ.get("MRCTX_FAKE_TORCH_LIB"):
        pytest.skip("no C++ part of the PyTorch stand-in in this build")
    env = {k: v for k, v in setup.items() if k != "HEADERS"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    env["MRCTX_TORCH_ALLOCATOR_HELPER"] = "0"
    code = OOM
    headers = setup.get("HEADERS")
    if headers:
        include = tmp_path / "include"
        if headers == "broken":
            (include / "c10" / "util").mkdir(parents=True)
            (include / "c10" / "util" / "Exception.h").write_text("mrctx_broken_header;\n")
        code = code.replace('    import warnings\n', '    import warnings\n'
                            '    import torch.utils.cpp_extension as ce\n'
                            f'    ce.include_paths = lambda *a: [{str(include)!r}]\n', 1)
    passed(run("", args=[sys.executable, "-c", textwrap.dedent(code), *words], **env))
    assert not helpers(tmp_path)

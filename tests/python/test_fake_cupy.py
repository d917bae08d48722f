"""mrctx.cupy through a stand-in for CuPy (fake_cupy/) over the fake CUDA
driver (suite fake): the C route (CuPy's CFunctionAllocator over
_cupy_alloc.so's pair, called through ctypes as CuPy's Cython calls it),
its streams, sizes and errors, and the Python route it falls back to where
CuPy gives no C way. No CuPy needed."""

import ctypes
import gc
import os
import random
import sys
import threading

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_cupy"))

import cupy  # noqa: E402  the stand-in
import mrctx  # noqa: E402
import mrctx.cupy as mcupy  # noqa: E402

FAKE = os.environ.get("MRCTX_CUDA_DRIVER", "")
MiB = 1 << 20
PER_THREAD = 2  # CU_STREAM_PER_THREAD: a stream besides the legacy one
CUDA_ERROR_INVALID_HANDLE = 400


@pytest.fixture(scope="module")
def fake():
    if "fakecuda" not in FAKE:
        pytest.skip("MRCTX_CUDA_DRIVER is not the fake driver")
    assert cupy.__version__.endswith("mrctx.fake"), cupy.__file__
    library = ctypes.CDLL(FAKE)
    library.fake_cuda_fail.argtypes = [ctypes.c_char_p, ctypes.c_long, ctypes.c_long, ctypes.c_int]
    return library


@pytest.fixture()
def ctx(fake):
    context = mrctx.Context("cupyfake", {"temp": "cache(device)", "raw": "device",
                                         "small": "limit(device, bytes=1MiB)", "cpu": "host"})
    yield context
    mcupy.reset()
    gc.collect()
    cupy.cuda.runtime.setDevice(0)
    context.close()


def failed_frees():
    return mcupy.shim().mrctx_cupy_failed_frees()


def test_c_route_allocates_on_the_current_stream_and_frees_on_it(ctx):
    mcupy.use(ctx, "temp")
    assert mcupy.route() == ("c", "")
    binding = mcupy._binding
    frees_before, asked = failed_frees(), cupy.cuda.stream.CALLS[0]
    a = cupy.cuda.alloc(MiB)
    assert a.ptr and ctx.stats("temp").current_bytes == MiB
    assert binding.block_stream(a.ptr) == 0  # the legacy default stream: CuPy's null stream
    with cupy.cuda.Stream(PER_THREAD):
        b = cupy.cuda.alloc(3 * MiB)
    assert binding.block_stream(b.ptr) == PER_THREAD
    assert cupy.cuda.stream.CALLS[0] == asked + 2  # C read CuPy's stream for each
    assert binding.live_blocks() == 2
    # Freed where CuPy drops the memory, with no size or stream given: the
    # binding's own.
    del b
    gc.collect()
    assert binding.live_blocks() == 1 and ctx.stats("temp").current_bytes == MiB
    del a
    gc.collect()
    assert binding.live_blocks() == 0 and ctx.stats("temp").current_bytes == 0
    assert failed_frees() == frees_before
    # A size of 0 never reaches the pair (as in CuPy): address 0, no error.
    assert cupy.cuda.alloc(0).ptr == 0 and binding.live_blocks() == 0


def test_free_falls_back_to_the_legacy_stream(ctx, fake):
    mcupy.use(ctx, "raw")  # the driver pool: each free is a cuMemFreeAsync
    binding = mcupy._binding
    with cupy.cuda.Stream(PER_THREAD):
        a = cupy.cuda.alloc(MiB)
        b = cupy.cuda.alloc(MiB)
    before = failed_frees()
    # The block's stream refuses the free (destroyed since): the legacy
    # stream takes it.
    fake.fake_cuda_fail(b"cuMemFreeAsync", 1, 1, CUDA_ERROR_INVALID_HANDLE)
    del a
    gc.collect()
    assert failed_frees() == before and ctx.stats("raw").current_bytes == MiB
    # Both refuse: counted, with the message, and the block is no longer
    # the binding's (CuPy will not free it again).
    fake.fake_cuda_fail(b"cuMemFreeAsync", 1, 2, CUDA_ERROR_INVALID_HANDLE)
    del b
    gc.collect()
    assert failed_frees() == before + 1
    buf = ctypes.create_string_buffer(512)
    mcupy.shim().mrctx_cupy_last_free_error(buf, len(buf))
    assert b"cuMemFreeAsync" in buf.value, buf.value
    assert binding.live_blocks() == 0


def test_out_of_memory_is_cupys_error_with_mrctxs_message(ctx):
    mcupy.use(ctx, "small")
    assert mcupy.route()[0] == "c"
    kept = cupy.cuda.alloc(MiB // 2)
    with pytest.raises(cupy.cuda.memory.OutOfMemoryError) as caught:
        cupy.cuda.alloc(MiB)
    error = caught.value
    assert isinstance(error, mrctx.OutOfMemoryError) and isinstance(error, MemoryError)
    text = str(error)
    assert "mrctx.cupy: out of memory allocating 1048576 bytes on device 0" in text, text
    assert "'cupyfake'" in text and "'small'" in text and "limit(" in text, text
    assert mcupy._binding.live_blocks() == 1  # the failure left nothing behind
    del kept
    gc.collect()
    assert ctx.stats("small").current_bytes == 0
    b = cupy.cuda.alloc(MiB)  # and the tag serves again
    assert b.ptr
    del b


def test_a_device_the_tag_lacks(ctx):
    mcupy.use(ctx, "temp")
    cupy.cuda.runtime.setDevice(ctx.device_count)
    with pytest.raises(mrctx.NoDeviceError) as caught:
        cupy.cuda.alloc(MiB)
    assert f"has no device {ctx.device_count}" in str(caught.value)
    assert "'cupyfake'" in str(caught.value)


def test_blocks_outlive_the_allocator_and_the_context(ctx, fake):
    mcupy.use(ctx, "raw")
    with cupy.cuda.Stream(PER_THREAD):
        a = cupy.cuda.alloc(2 * MiB)
    used = fake.fake_cuda_used_memory(0)
    before = failed_frees()
    mcupy.reset()
    assert mcupy.route() == ("", "")
    gc.collect()  # CuPy dropped the allocator and its owner: the block keeps the binding
    ctx.close()
    del a
    gc.collect()
    assert failed_frees() == before
    mrctx.release_idle()
    assert fake.fake_cuda_used_memory(0) <= used - 2 * MiB


def test_a_free_of_no_block_is_counted_not_crashed(ctx):
    mcupy.use(ctx, "temp")
    binding = mcupy._binding
    a = cupy.cuda.alloc(MiB)
    before = failed_frees()
    free = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)(
        ctypes.cast(mcupy.shim().mrctx_cupy_free, ctypes.c_void_p).value)
    free(binding.handle, a.ptr + 256, 0)  # inside a block, not one
    free(None, a.ptr, 0)  # no binding
    free(binding.handle, None, 0)  # NULL: nothing
    assert failed_frees() == before + 2
    buf = ctypes.create_string_buffer(512)
    mcupy.shim().mrctx_cupy_last_free_error(buf, len(buf))
    assert b"no binding" in buf.value
    assert binding.live_blocks() == 1
    del a
    gc.collect()
    assert binding.live_blocks() == 0 and failed_frees() == before + 2


def test_many_blocks_and_threads(ctx):
    """The binding's map through growth and removals in any order, from
    two threads on two streams."""
    mcupy.use(ctx, "temp")
    binding = mcupy._binding
    errors = []

    def churn(seed, stream):
        try:
            rng = random.Random(seed)
            with cupy.cuda.Stream(stream):
                held = []
                for _ in range(3000):
                    if held and rng.random() < 0.45:
                        held.pop(rng.randrange(len(held)))
                    else:
                        held.append(cupy.cuda.alloc(rng.choice((256, 4096, 65536, MiB))))
                del held
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=churn, args=(s, st)) for s, st in ((1, 0), (2, PER_THREAD))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    gc.collect()
    assert not errors, errors
    assert binding.live_blocks() == 0 and ctx.stats("temp").current_bytes == 0


@pytest.mark.parametrize("break_it, why", [
    ("no_capi", "exports no get_current_stream_ptr"),
    ("signature", "not 'intptr_t (void)'"),
    ("not_a_capsule", "is no capsule"),
    ("no_cfunction", "no cupy.cuda.memory.CFunctionAllocator"),
    ("no_shim", "cannot be loaded"),
])
def test_python_route_where_cupy_gives_no_c_way(ctx, monkeypatch, break_it, why):
    if break_it == "no_capi":
        monkeypatch.setattr(cupy.cuda.stream, "__pyx_capi__", {})
    elif break_it == "signature":
        address = ctypes.cast(cupy.cuda.stream._get_current_stream_ptr, ctypes.c_void_p).value
        monkeypatch.setattr(cupy.cuda.stream, "__pyx_capi__", {
            "get_current_stream_ptr": cupy.cuda.stream.capsule(address, b"intptr_t (int)")})
    elif break_it == "not_a_capsule":
        monkeypatch.setattr(cupy.cuda.stream, "__pyx_capi__", {"get_current_stream_ptr": 7})
    elif break_it == "no_cfunction":
        monkeypatch.delattr(cupy.cuda.memory, "CFunctionAllocator")
    else:
        monkeypatch.setattr(mcupy, "_shim", None)
        monkeypatch.setenv("MRCTX_CUPY_ALLOC", "/nonexistent/_cupy_alloc.so")
    with pytest.raises(mrctx.FrameworkError) as caught:
        mcupy.use(ctx, "temp", route="c")
    assert why in str(caught.value), str(caught.value)
    assert mcupy.route() == ("", "") and cupy.cuda.get_allocator() == \
        cupy.get_default_memory_pool().malloc
    mcupy.use(ctx, "temp")
    chosen, reason = mcupy.route()
    assert chosen == "python" and why in reason, reason
    with cupy.cuda.Stream(PER_THREAD):
        a = cupy.cuda.alloc(MiB)
    assert a.ptr and ctx.stats("temp").current_bytes == MiB
    del a
    gc.collect()
    assert ctx.stats("temp").current_bytes == 0
    with pytest.raises(cupy.cuda.memory.OutOfMemoryError):
        mcupy.use(ctx, "small")
        cupy.cuda.alloc(2 * MiB)


def test_route_argument(ctx):
    with pytest.raises(mrctx.ArgumentError):
        mcupy.use(ctx, "temp", route="C")
    with pytest.raises(mrctx.FrameworkError):
        mcupy.use(ctx, "cpu")
    assert mcupy.route() == ("", "")
    mcupy.use(ctx, "temp", route="python")
    assert mcupy.route() == ("python", "route='python' asked for")
    mcupy.use(ctx, "temp", route="c")
    assert mcupy.route() == ("c", "")

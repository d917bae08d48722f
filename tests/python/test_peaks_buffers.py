"""Peak resets, scopes and mrctx.Buffer (issue 23, items 2 and 4).

Tests whose names contain "fake" need the fake CUDA driver (suite fake:
device memory, the driver pools' high-water marks); the others run
without a driver (suite unit: host tags and host memory)."""

import ctypes
import gc
import io
import os
import threading
import weakref

import pytest

import mrctx
from mrctx import buffer as mbuffer

KiB = 1 << 10
MiB = 1 << 20
FAKE = os.environ.get("MRCTX_CUDA_DRIVER", "")


@pytest.fixture(scope="module")
def fake():
    if "fakecuda" not in FAKE:
        pytest.skip("MRCTX_CUDA_DRIVER is not the fake driver")
    return ctypes.CDLL(FAKE)


def hold(resource, sizes):
    return [(resource.allocate(n), n) for n in sizes]


def free(resource, blocks):
    for ptr, n in blocks:
        resource.deallocate(ptr, n)


# ---- reset_peak --------------------------------------------------------------


def test_reset_peak_one_tag_and_all(library_name):
    with mrctx.Context(library_name, {"a": "host", "b": "cache(host)"}) as ctx:
        a, b = ctx.get_resource("a"), ctx.get_resource("b")
        kept = hold(a, [KiB]) + hold(b, [KiB])
        free(a, hold(a, [3 * KiB]))
        free(b, hold(b, [3 * KiB]))
        assert ctx.stats("a")["peak_bytes"] == ctx.stats("b")["peak_bytes"] == 4 * KiB
        ctx.reset_peak("a")
        assert ctx.stats("a")["peak_bytes"] == KiB
        assert ctx.stats("a")["peak_count"] == 1
        assert ctx.stats("a")["total_bytes"] == 4 * KiB  # untouched
        assert ctx.stats("b")["peak_bytes"] == 4 * KiB
        ctx.reset_peak()
        assert ctx.stats("b")["peak_bytes"] == KiB
        ctx.reset_peak(["a", 1], device=0)
        free(a, kept[:1])
        free(b, kept[1:])
        ctx.reset_peak(device=-1)
        assert {s["peak_bytes"] for s in ctx.stats().values()} == {0}


def test_reset_peak_batch_size_search(library_name):
    """The loop PyTorch users write with reset_peak_memory_stats."""
    with mrctx.Context(library_name, {"act": "cache(host)"}) as ctx:
        act = ctx.get_resource("act")
        weights = hold(act, [64 * KiB])
        peaks = {}
        for batch in (1, 2, 4, 8):
            ctx.reset_peak()
            free(act, hold(act, [batch * KiB] * 4))  # one step: four activations
            peaks[batch] = ctx.stats("act")["peak_bytes"] - 64 * KiB
        assert peaks == {1: 4 * KiB, 2: 8 * KiB, 4: 16 * KiB, 8: 32 * KiB}
        free(act, weights)


def test_reset_peak_errors(library_name):
    with mrctx.Context(library_name, {"a": "host"}) as ctx:
        with pytest.raises(mrctx.TagError, match="no tag 'nope'"):
            ctx.reset_peak("nope")
        with pytest.raises(mrctx.TagError, match="no tag 5"):
            ctx.reset_peak(5)
        with pytest.raises(mrctx.TagError, match="no tag given"):
            ctx.reset_peak([])
        past = ctx.device_count
        with pytest.raises(mrctx.NoDeviceError, match=f"no device {past}"):
            ctx.reset_peak("a", device=past)
        with pytest.raises(mrctx.NoDeviceError):
            ctx.reset_peak("a", device=-2)
        with pytest.raises(mrctx.ArgumentTypeError, match="device must be an int"):
            ctx.reset_peak("a", device=0.5)
    with pytest.raises(mrctx.ClosedError):
        ctx.reset_peak()


# ---- scopes ------------------------------------------------------------------


def test_scope_counts_a_block(library_name):
    with mrctx.Context(library_name, {"t": "host", "other": "host"}) as ctx:
        t, other = ctx.get_resource("t"), ctx.get_resource("other")
        before = hold(t, [10 * KiB])
        with ctx.scope("step") as s:
            assert s.result is None
            kept = hold(t, [KiB, 2 * KiB])
            free(t, hold(t, [5 * KiB]))
            free(t, before)
            free(other, hold(other, [100 * KiB]))
        r = s.result
        assert r.name == "step" and r.tags == ("t", "other")
        assert r.allocations == 4
        assert r.allocated_bytes == 108 * KiB
        assert r.net_bytes == 3 * KiB - 10 * KiB
        # Above what was held at entry: 3 + 5 KiB on t, 100 KiB on other.
        assert r.peak_bytes == 108 * KiB
        assert r.failed == 0
        with ctx.scope("only t", tags="t") as s:
            free(other, hold(other, [100 * KiB]))
            free(t, hold(t, [KiB]))
        assert s.result.tags == ("t",)
        assert s.result.peak_bytes == KiB and s.result.allocations == 1
        free(t, kept)


def test_nested_scopes_keep_their_own_peaks(library_name):
    with mrctx.Context(library_name, {"t": "host"}) as ctx:
        t = ctx.get_resource("t")
        free(t, hold(t, [50 * KiB]))  # before any scope: the tag's peak
        with ctx.scope("outer") as outer:
            big = hold(t, [20 * KiB])
            free(t, big)  # the outer scope's peak so far: 20 KiB
            kept = hold(t, [KiB])
            with ctx.scope("inner") as inner:
                free(t, hold(t, [4 * KiB]))
            with ctx.scope("inner") as again:
                free(t, hold(t, [2 * KiB]))
            free(t, kept)
        assert inner.result.peak_bytes == 4 * KiB
        assert again.result.peak_bytes == 2 * KiB
        # The inner scopes' resets did not take the outer's 20 KiB away.
        assert outer.result.peak_bytes == 20 * KiB
        assert outer.result.allocations == 4
        # Nor the tag's own peak from before.
        assert ctx.stats("t")["peak_bytes"] == 50 * KiB
        records = ctx.scope_records()
        assert records["inner"].calls == 2
        assert records["inner"].peak_bytes == 4 * KiB
        assert records["inner"].allocations == 2
        assert records["outer"].calls == 1
        # An explicit reset forgets what the scopes kept for stats().
        ctx.reset_peak()
        assert ctx.stats("t")["peak_bytes"] == 0


def test_reset_inside_a_scope_keeps_the_scope_peak(library_name):
    with mrctx.Context(library_name, {"t": "host"}) as ctx:
        t = ctx.get_resource("t")
        with ctx.scope("outer") as outer:
            free(t, hold(t, [8 * KiB]))
            ctx.reset_peak()
            free(t, hold(t, [KiB]))
            assert ctx.stats("t")["peak_bytes"] == KiB
        assert outer.result.peak_bytes == 8 * KiB


def test_scopes_on_threads(library_name):
    """Scopes open at once on two threads (not nested): each keeps its
    peak, whatever the other's entry and exit reset. Exact peaks: with the
    default sharded ones, what one thread holds unpublished (up to 16 MiB)
    is not in another's view of the peak (<mrctx/stats.h>)."""
    with mrctx.Context(library_name, {"t": "stats(host, peak=exact)"}) as ctx:
        t = ctx.get_resource("t")
        a_in, b_out = threading.Event(), threading.Event()
        results = {}

        def thread_a():
            with ctx.scope("a") as s:
                block = hold(t, [16 * KiB])
                a_in.set()
                b_out.wait()
                free(t, block)
            results["a"] = s.result

        def thread_b():
            a_in.wait()
            with ctx.scope("b") as s:
                free(t, hold(t, [KiB]))
            results["b"] = s.result
            b_out.set()

        threads = [threading.Thread(target=thread_a), threading.Thread(target=thread_b)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert results["b"].peak_bytes == KiB
        assert results["a"].peak_bytes == 17 * KiB  # its own 16 and b's 1, at once
        assert ctx.stats("t")["peak_bytes"] == 17 * KiB


def test_context_still_goes_with_its_last_reference(library_name):
    """Scopes keep no cycle through the context: dropping it closes it at
    once, not at the garbage collector's next run."""
    import weakref
    gc.disable()
    try:
        ctx = mrctx.Context(library_name, {"t": "host"})
        with ctx.scope("s"):
            pass
        gone = weakref.ref(ctx)
        del ctx
        assert gone() is None
    finally:
        gc.enable()


def test_profile_decorators_and_report(library_name):
    with mrctx.Context(library_name, {"t": "host"}) as ctx:
        t = ctx.get_resource("t")

        @ctx.profile
        def forward(n):
            free(t, hold(t, [n]))
            return n

        @ctx.profile("backward")
        def backward():
            free(t, hold(t, [3 * KiB, 3 * KiB]))

        @mrctx.profiler(ctx, tags=["t"])
        def step():
            forward(KiB)
            backward()

        assert forward(2 * KiB) == 2 * KiB
        step()
        step()
        records = ctx.scope_records()
        qualname = forward.__wrapped__.__qualname__
        assert set(records) == {qualname, "backward", step.__wrapped__.__qualname__}
        assert records[qualname].calls == 3
        assert records[qualname].peak_bytes == 2 * KiB
        assert records[qualname].allocated_bytes == 4 * KiB
        assert records["backward"].peak_bytes == 6 * KiB
        assert records[step.__wrapped__.__qualname__].peak_bytes == 6 * KiB
        report = ctx.scope_report()
        lines = report.splitlines()
        assert lines[0] == f"{library_name} scopes, by peak bytes"
        assert lines[1].split() == ["scope", "calls", "peak", "allocated", "allocs", "net",
                                    "failures"]
        assert lines[2].split()[:4] == ["backward", "2", "6.0", "KiB"]
        by_calls = ctx.scope_report("calls").splitlines()
        assert by_calls[2].startswith(qualname)
        out = io.StringIO()
        ctx.print_scopes(out, ordered_by="name")
        assert out.getvalue().splitlines()[2].startswith("backward")
        ctx.clear_scopes()
        assert ctx.scope_records() == {}
        assert "(no scope has run)" in ctx.scope_report()


def test_scope_errors(library_name):
    with mrctx.Context(library_name, {"t": "host"}) as ctx:
        with pytest.raises(mrctx.ArgumentTypeError, match="name must be a str"):
            ctx.scope(3)
        with pytest.raises(mrctx.ArgumentError, match="not empty"):
            ctx.scope("")
        with pytest.raises(mrctx.TagError):
            ctx.scope("x", tags="nope")
        with pytest.raises(mrctx.TagError):
            ctx.profile("x", tags=["nope"])
        with pytest.raises(mrctx.ArgumentError, match="ordered_by='size'"):
            ctx.scope_report("size")
        with pytest.raises(mrctx.ArgumentTypeError, match="ctx must be an mrctx.Context"):
            mrctx.profiler("not a context")
        s = ctx.scope("once")
        with s:
            with pytest.raises(mrctx.ArgumentError, match="already open"):
                s.__enter__()
        # An exception in the block still closes the scope and records it.
        with pytest.raises(KeyError):
            with ctx.scope("raises"):
                raise KeyError("x")
        assert ctx.scope_records()["raises"].calls == 1


# ---- Buffer ------------------------------------------------------------------


def test_buffer_host_lifetime(library_name):
    with mrctx.Context(library_name, {"t": "host"}) as ctx:
        buf = mrctx.Buffer((ctx, "t"), 3000)
        assert buf.size == len(buf) == buf.nbytes == 3000
        assert buf.ptr % 256 == 0 and buf.stream == 0 and buf.alignment == 0
        assert buf.props.kind == "host"
        ctypes.memset(buf.ptr, 0x5A, buf.size)
        assert ctx.stats("t")["current_bytes"] == 3000
        buf.release()
        assert buf.closed
        assert ctx.stats("t")["current_bytes"] == 0
        buf.release()  # idempotent: never freed twice
        assert ctx.stats("t")["total_count"] == 1
        for attribute in ("ptr", "size", "stream", "alignment", "resource", "props",
                          "__cuda_array_interface__"):
            with pytest.raises(mrctx.ClosedError):
                getattr(buf, attribute)
        with pytest.raises(mrctx.ClosedError):
            buf.__dlpack__()
        with pytest.raises(mrctx.ClosedError):
            buf.__dlpack_device__()
        assert "released" in repr(buf)

        # A context manager, and from a Resource with an alignment.
        resource = ctx.get_resource("t")
        with mrctx.Buffer(resource, 100, alignment=4096) as buf:
            assert buf.ptr % 4096 == 0
            assert "100 bytes" in repr(buf)
        assert buf.closed
        # The Buffer holds its own reference: closing the Resource and the
        # context does not take the memory away.
        buf = mrctx.Buffer(resource, 64)
        resource.close()
    ctypes.memset(buf.ptr, 1, 64)
    buf.release()


def test_buffer_freed_when_collected(library_name):
    with mrctx.Context(library_name, {"t": "host"}) as ctx:
        buf = mrctx.Buffer((ctx, "t"), 1000, stream=None)
        assert ctx.stats("t")["current_count"] == 1
        del buf
        gc.collect()
        assert ctx.stats("t")["current_count"] == 0
        # Size 0: no memory, no call upstream, still a Buffer.
        with mrctx.Buffer((ctx, 0), 0) as empty:
            assert empty.ptr == 0 and empty.size == 0
        assert ctx.stats("t")["total_count"] == 1


def test_buffer_errors(library_name):
    with mrctx.Context(library_name, {"t": "host", "small": "limit(host, bytes=1KiB)"}) as ctx:
        with pytest.raises(mrctx.ArgumentTypeError, match="source must be an mrctx.Resource"):
            mrctx.Buffer(1234, 10)
        with pytest.raises(mrctx.ArgumentTypeError):
            mrctx.Buffer((ctx, "t", 0), 10)
        with pytest.raises(mrctx.ArgumentError, match="size=-1 is negative"):
            mrctx.Buffer((ctx, "t"), -1)
        with pytest.raises(mrctx.ArgumentTypeError, match="size must be an int"):
            mrctx.Buffer((ctx, "t"), 1.5)
        with pytest.raises(mrctx.InvalidArgumentError):
            mrctx.Buffer((ctx, "t"), 10, alignment=3)
        with pytest.raises(mrctx.TagError):
            mrctx.Buffer((ctx, "nope"), 10)
        with pytest.raises(mrctx.ArgumentError, match="device= is for"):
            mrctx.Buffer(ctx.get_resource("t"), 10, device=0)
        with pytest.raises(mrctx.OutOfMemoryError):
            mrctx.Buffer((ctx, "small"), 4 * KiB)
        closed = ctx.get_resource("t")
        closed.close()
        with pytest.raises(mrctx.ClosedError):
            mrctx.Buffer(closed, 10)
        assert ctx.stats("t")["current_count"] == 0
        # Host memory has no CUDA Array Interface.
        with mrctx.Buffer((ctx, "t"), 10) as buf:
            assert not hasattr(buf, "__cuda_array_interface__")
            with pytest.raises(BufferError, match="copy=True"):
                buf.__dlpack__(copy=True)
            with pytest.raises(BufferError, match="not \\(2, 0\\)"):
                buf.__dlpack__(dl_device=(2, 0))
            with pytest.raises(BufferError, match="stream=5"):
                buf.__dlpack__(stream=5)


# DLPack's structs (dlpack.h, v1.0 ABI), as a consumer reads them.
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)  # a C call: the GIL is released


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", _Deleter)]


class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", _DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", _Deleter), ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


def _consume(capsule, versioned):
    """What a DLPack consumer does, with ctypes: take the tensor out of the
    capsule (renaming it), read it, and call its deleter when done."""
    get_pointer = ctypes.pythonapi["PyCapsule_GetPointer"]  # our own function objects
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    set_name = ctypes.pythonapi["PyCapsule_SetName"]
    set_name.argtypes = [ctypes.py_object, ctypes.c_char_p]
    name = b"dltensor_versioned" if versioned else b"dltensor"
    address = get_pointer(capsule, name)
    struct = _DLManagedTensorVersioned if versioned else _DLManagedTensor
    managed = struct.from_address(address)
    _consume.used_names.append(b"used_" + name)  # the name must outlive the capsule
    assert set_name(capsule, _consume.used_names[-1]) == 0
    tensor = managed.dl_tensor
    seen = {
        "data": tensor.data or 0,
        "device": (tensor.device.device_type, tensor.device.device_id),
        "ndim": tensor.ndim,
        "dtype": (tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes),
        "shape": tensor.shape[0],
        "strides": tensor.strides[0],
        "offset": tensor.byte_offset,
    }
    if versioned:
        seen["version"] = (managed.version.major, managed.version.minor)
        seen["flags"] = managed.flags
    return seen, lambda: managed.deleter(address)


_consume.used_names = []


@pytest.mark.parametrize("versioned", [False, True])
def test_buffer_dlpack_host(library_name, versioned):
    with mrctx.Context(library_name, {"t": "host"}) as ctx:
        buf = mrctx.Buffer((ctx, "t"), 256)
        ctypes.memset(buf.ptr, 7, 256)
        assert buf.__dlpack_device__() == (1, 0)
        capsule = buf.__dlpack__(max_version=(1, 1) if versioned else None)
        seen, done = _consume(capsule, versioned)
        assert seen["data"] == buf.ptr and seen["device"] == (1, 0)
        assert (seen["ndim"], seen["dtype"], seen["shape"], seen["strides"], seen["offset"]) == \
            (1, (1, 8, 1), 256, 1, 0)
        if versioned:
            assert seen["version"] == (1, 0) and seen["flags"] == 0
        # While the consumer holds it, release() releases the Buffer but
        # not the memory, and collecting the Buffer waits for the export.
        assert mbuffer.live_exports() == 1
        address = buf.ptr
        buf.release()
        assert buf.closed
        with pytest.raises(mrctx.ClosedError):
            buf.__dlpack__()
        del buf, capsule
        gc.collect()
        assert ctx.stats("t")["current_bytes"] == 256
        assert ctypes.string_at(address, 4) == b"\x07" * 4
        # The consumer lets go from a thread of its own, without the GIL
        # (PyTorch frees a tensor's storage so): the memory goes with it.
        let_go = threading.Thread(target=done)
        let_go.start()
        let_go.join()
        assert mbuffer.live_exports() == 0
        assert ctx.stats("t")["current_bytes"] == 0


def test_buffer_dlpack_never_consumed(library_name):
    with mrctx.Context(library_name, {"t": "host"}) as ctx:
        buf = mrctx.Buffer((ctx, "t"), 64)
        for max_version in (None, (1, 0), (0, 8)):
            capsule = buf.__dlpack__(max_version=max_version)
            assert mbuffer.live_exports() == 1
            del capsule  # the capsule's destructor calls the deleter
            assert mbuffer.live_exports() == 0
        buf.release()
        assert ctx.stats("t")["current_bytes"] == 0


def test_buffer_dlpack_numpy(library_name):
    np = pytest.importorskip("numpy")
    if not hasattr(np, "from_dlpack"):
        pytest.skip("numpy has no from_dlpack")
    with mrctx.Context(library_name, {"t": "host"}) as ctx:
        buf = mrctx.Buffer((ctx, "t"), 16)
        ctypes.memset(buf.ptr, 3, 16)
        array = np.from_dlpack(buf)
        assert array.dtype == np.uint8 and array.shape == (16,)
        assert int(array.sum()) == 48
        ctypes.memset(buf.ptr, 9, 1)  # the same memory, not a copy
        assert int(array[0]) == 9
        del buf
        gc.collect()
        assert ctx.stats("t")["current_bytes"] == 16  # numpy holds it
        del array
        gc.collect()
        assert ctx.stats("t")["current_bytes"] == 0
        # The README's pattern: the view outlives the with block.
        with mrctx.Buffer((ctx, "t"), 16) as buf:
            ctypes.memset(buf.ptr, 5, 16)
            array = np.from_dlpack(buf)
        assert buf.closed and int(array.sum()) == 80
        del buf
        gc.collect()
        assert ctx.stats("t")["current_bytes"] == 16  # numpy holds it
        del array
        gc.collect()
        assert ctx.stats("t")["current_bytes"] == 0 and mbuffer.live_exports() == 0


# ---- over the fake driver ----------------------------------------------------


def test_fake_buffer_device_interfaces(library_name, fake):
    with mrctx.Context(library_name, {"dev": "device", "pin": "pinned", "man": "managed",
                                      "sync": "sync_device"}) as ctx:
        stream = 2  # the per-thread default stream: a handle the fake knows
        with mrctx.Buffer((ctx, "dev"), MiB, stream=stream, device=2) as buf:
            cai = buf.__cuda_array_interface__
            assert cai == {"version": 3, "shape": (MiB,), "typestr": "|u1",
                           "data": (buf.ptr, False), "strides": None, "descr": [("", "|u1")],
                           "stream": stream}
            assert buf.__dlpack_device__() == (2, 2)
            assert ctx.stats("dev", device=2)["current_bytes"] == MiB
            capsule = buf.__dlpack__(stream=stream, max_version=(1, 0))
            seen, done = _consume(capsule, True)
            assert seen["device"] == (2, 2) and seen["data"] == buf.ptr
            done()
        # The interface was read: the memory goes with the Buffer itself.
        assert ctx.stats("dev", device=2)["current_bytes"] == MiB
        del buf
        gc.collect()
        assert ctx.stats("dev", device=2)["current_bytes"] == 0
        # A stream object is kept alive until the Buffer is freed on it (a
        # collected CuPy or cuda.core stream destroys its CUDA stream).
        class Stream:
            ptr = 2

        given, other = Stream(), Stream()
        alive, other_alive = weakref.ref(given), weakref.ref(other)
        buf = mrctx.Buffer((ctx, "dev"), 10, stream=given, device=0)
        del given
        gc.collect()
        assert alive() is not None and buf.stream == 2
        buf.set_stream(other)
        del other
        gc.collect()
        assert alive() is None and other_alive() is not None
        buf.release()
        gc.collect()
        assert other_alive() is None
        # The legacy default stream is 1 in the interface (0 is not allowed).
        with mrctx.Buffer((ctx, "dev"), 10, device=0) as buf:
            assert buf.__cuda_array_interface__["stream"] == 1
            buf.set_stream(2)
            assert buf.__cuda_array_interface__["stream"] == 2
            assert buf.stream == 2
        with mrctx.Buffer((ctx, "pin"), 10, device=0) as buf:
            assert buf.__dlpack_device__() == (3, 0)
            assert buf.__cuda_array_interface__["data"] == (buf.ptr, False)
            # Asked for as the CPU's (numpy's from_dlpack may): the same
            # bytes as kDLCPU; a CPU consumer has no stream.
            seen, done = _consume(buf.__dlpack__(dl_device=(1, 0), max_version=(1, 0)), True)
            assert seen["device"] == (1, 0) and seen["data"] == buf.ptr
            done()
            with pytest.raises(BufferError, match="stream=2 for host memory"):
                buf.__dlpack__(dl_device=(1, 0), stream=2)
        with mrctx.Buffer((ctx, "man"), 10, device=1) as buf:
            assert buf.__dlpack_device__()[0] == 13
            seen, done = _consume(buf.__dlpack__(dl_device=(1, 0)), False)
            assert seen["device"] == (1, 0)
            done()
        # Device memory is not the CPU's: refused, never copied.
        with mrctx.Buffer((ctx, "dev"), 10, device=0) as buf:
            with pytest.raises(BufferError, match="not \\(1, 0\\)"):
                buf.__dlpack__(dl_device=(1, 0))
        # Memory ready when allocated: no stream to order after.
        with mrctx.Buffer((ctx, "sync"), 10, device=3) as buf:
            assert buf.__cuda_array_interface__["stream"] is None
            assert buf.__dlpack_device__() == (2, 3)


class _CudaArrayView:
    """What a consumer of the CUDA Array Interface keeps: the pointer and
    size it read, and the object it read them from as the owner of the
    memory (CuPy's UnownedMemory(owner=obj), Numba's as_cuda_array,
    torch.as_tensor's deleter). The fake driver's device memory is host
    memory, so the view reads and writes it with ctypes."""

    def __init__(self, obj):
        cai = obj.__cuda_array_interface__
        self.ptr, self.size, self.owner = cai["data"][0], cai["shape"][0], obj

    def read(self, n):
        return ctypes.string_at(self.ptr, n)


def test_fake_buffer_cuda_array_view_keeps_the_memory(library_name, fake):
    """Issue 34, item 3: a view through the CUDA Array Interface made in a
    with block (the README's pattern) keeps the memory after the block;
    the next Buffer gets other memory; the memory goes with the last
    reference to the Buffer."""
    with mrctx.Context(library_name, {"dev": "device"}) as ctx:
        with mrctx.Buffer((ctx, "dev"), 64, device=0) as buf:
            view = _CudaArrayView(buf)
            ctypes.memmove(view.ptr, b"MINE!!!!", 8)
        assert buf.closed
        with pytest.raises(mrctx.ClosedError):
            buf.__cuda_array_interface__
        assert ctx.stats("dev", 0)["current_bytes"] == 64
        with mrctx.Buffer((ctx, "dev"), 64, device=0) as other:
            assert other.ptr != view.ptr
            ctypes.memmove(other.ptr, b"OTHER!!!", 8)
            assert view.read(8) == b"MINE!!!!"
        del other
        del buf
        gc.collect()
        assert view.read(8) == b"MINE!!!!"
        assert ctx.stats("dev", 0)["current_bytes"] == 64
        del view
        gc.collect()
        assert ctx.stats("dev", 0)["current_bytes"] == 0
        # Views through both protocols: the memory waits for both.
        buf = mrctx.Buffer((ctx, "dev"), 32, device=1)
        view = _CudaArrayView(buf)
        seen, done = _consume(buf.__dlpack__(max_version=(1, 0)), True)
        buf.release()
        del buf
        gc.collect()
        assert ctx.stats("dev", 1)["current_bytes"] == 32
        done()
        assert ctx.stats("dev", 1)["current_bytes"] == 32  # the view still holds it
        del view
        gc.collect()
        assert ctx.stats("dev", 1)["current_bytes"] == 0
        # No view: release() frees at once, as before.
        with mrctx.Buffer((ctx, "dev"), 16, device=0) as buf:
            pass
        assert ctx.stats("dev", 0)["current_bytes"] == 0
        assert mbuffer.live_exports() == 0


def test_fake_numpy_refuses_device_memory_and_the_buffer_is_intact(library_name, fake):
    """Issue 34, item 4: numpy.from_dlpack of device memory raises numpy's
    own error (it drops the capsule with that error pending), the export is
    let go, and the Buffer releases and frees as usual."""
    np = pytest.importorskip("numpy")
    if not hasattr(np, "from_dlpack"):
        pytest.skip("numpy has no from_dlpack")
    with mrctx.Context(library_name, {"dev": "device"}) as ctx:
        buf = mrctx.Buffer((ctx, "dev"), 128, device=0)
        for _ in range(3):
            with pytest.raises((RuntimeError, BufferError, TypeError, ValueError)) as raised:
                np.from_dlpack(buf)
            assert not isinstance(raised.value, SystemError), raised.value
            print("numpy refused:", type(raised.value).__name__, raised.value)
            assert mbuffer.live_exports() == 0
        buf.release()
        assert ctx.stats("dev", 0)["current_bytes"] == 0


def test_fake_driver_pool_peaks(library_name, fake):
    with mrctx.Context(library_name, {"dev": "device"}) as ctx:
        resource = ctx.get_resource("dev", 1)
        mrctx.reset_driver_pool_peak("device_default", 1)
        kept = resource.allocate(3000)
        resource.deallocate(resource.allocate(5000), 5000)
        assert mrctx.driver_pool_info("device_default", 1)["used_high"] == 8000
        resource.reset_pool_peak()  # down through the tag's statistics and retry
        info = mrctx.driver_pool_info("device_default", 1)
        assert info["used_high"] == 3000 and info["used_bytes"] == 3000
        assert info["reserved_high"] == info["reserved_bytes"]
        resource.deallocate(resource.allocate(1000), 1000)
        mrctx.reset_driver_pool_peak("device", 1)
        assert mrctx.driver_pool_info("device", 1)["used_high"] == 3000
        resource.deallocate(kept, 3000)
        with pytest.raises(mrctx.ArgumentError, match="which='gpu'"):
            mrctx.reset_driver_pool_peak("gpu", 0)
        with pytest.raises(mrctx.NoDeviceError):
            mrctx.reset_driver_pool_peak("device", 9)
        with mrctx.resolve("host") as host:
            with pytest.raises(mrctx.InvalidArgumentError, match="no driver pool"):
                host.reset_pool_peak()


def test_fake_buffer_record_stream(library_name, fake):
    """Buffer.record_stream: freed while the recorded stream (here the
    legacy one, which the fake can mark busy) still has work, the memory
    goes to no other stream until that work is done; the free on the
    Buffer's own stream waited for it (cuStreamWaitEvent)."""
    fake.fake_cuda_set_stream_busy.argtypes = [ctypes.c_void_p, ctypes.c_bool]
    with mrctx.Context(library_name, {"t": "cache(device)"}) as ctx:
        buf = mrctx.Buffer((ctx, "t"), 4096, stream=2)  # the per-thread stream
        ptr = buf.ptr
        waits = fake.fake_cuda_calls(b"cuStreamWaitEvent")
        assert fake.fake_cuda_set_stream_busy(None, True) == 0
        try:
            buf.record_stream(None)  # the legacy stream reads it too
            buf.release()
            assert fake.fake_cuda_calls(b"cuStreamWaitEvent") == waits + 1
            with mrctx.Buffer((ctx, "t"), 4096, stream=None) as other:
                assert other.ptr != ptr
        finally:
            assert fake.fake_cuda_set_stream_busy(None, False) == 0
        # Bad input: an error, and the Buffer is as it was.
        with mrctx.Buffer((ctx, "t"), 4096, stream=2) as buf:
            with pytest.raises(mrctx.ArgumentTypeError):
                buf.record_stream("stream")
            with pytest.raises(mrctx.ArgumentError):
                ctx.get_resource("t").record_stream(0, None)
        with mrctx.Buffer((ctx, "t"), 0) as empty:
            empty.record_stream(None)  # size 0: nothing to record

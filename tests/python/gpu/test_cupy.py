"""mrctx.cupy on a real GPU: CuPy's device and pinned allocations through
tags, freed on their streams, and the bad inputs of issue 10."""

import pytest

from gpu_util import require, require_gpu, run


@pytest.fixture(autouse=True)
def _gpu():
    require_gpu()
    require("cupy")


def test_device_and_pinned_allocations():
    run("""
        import gc
        import cupy
        import mrctx, mrctx.cupy
        ctx = mrctx.Context("cupytest", {"temp": "cache(device)", "pin": "pinned", "cpu": "host"})
        MiB = 1 << 20

        for call, error in ((lambda: mrctx.cupy.use(ctx, "cpu"), mrctx.FrameworkError),
                            (lambda: mrctx.cupy.use(ctx, "nope"), mrctx.TagError),
                            (lambda: mrctx.cupy.use_pinned(ctx, "temp"), mrctx.FrameworkError)):
            try:
                call(); raise SystemExit("bad input accepted")
            except error as e:
                print("refused:", e)
                assert "cupytest" in str(e)
        assert int(cupy.arange(10).sum()) == 45  # CuPy's own pool still works

        mrctx.cupy.use(ctx, "temp")
        a = cupy.arange(4 * MiB, dtype=cupy.float32)
        stats = ctx.stats("temp")
        print("after 16 MiB array:", stats)
        assert stats["current_bytes"] >= 16 * MiB, stats
        b = cupy.sort(a[::-1]); f = cupy.fft.fft(a[:MiB]); s = float(a.sum())
        del a, b, f
        gc.collect()
        # cuFFT plans are cached with their work area (allocated through the tag).
        cupy.fft.config.get_plan_cache().clear()
        assert ctx.stats("temp")["current_bytes"] == 0, ctx.stats("temp")

        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            c = cupy.ones(MiB, dtype=cupy.float32) * 3
            assert float(c.sum()) == 3 * MiB
            del c
        stream.synchronize()

        try:
            cupy.empty(1 << 50, dtype=cupy.uint8)
            raise SystemExit("1 PiB allocated")
        except cupy.cuda.memory.OutOfMemoryError as e:
            assert isinstance(e, mrctx.OutOfMemoryError)
            print("OOM:", str(e)[:300])
        assert int(cupy.arange(10).sum()) == 45

        mrctx.cupy.use_pinned(ctx, "pin")
        host = cupy.cuda.alloc_pinned_memory(MiB)
        print("pinned tag:", ctx.stats("pin"))
        assert ctx.stats("pin")["current_bytes"] >= MiB
        d = cupy.empty(MiB // 4, dtype=cupy.float32)
        d.set(cupy.asnumpy(cupy.ones(MiB // 4, dtype=cupy.float32)))
        del host, d
        gc.collect()
        ctx.close()  # CuPy may still hold memory: the allocator keeps its references
        e = cupy.zeros(1024)
        del e
        mrctx.cupy.reset()
        assert int(cupy.arange(10).sum()) == 45
        print("PASS")
        """)


def test_c_route():
    """Issue 37, item 5: use() installs CuPy's CFunctionAllocator over the C
    pair (no Python of mrctx's per free, one pointer check per allocation):
    bytes written and read back, blocks on CuPy's current stream and freed
    on it, out of memory as CuPy's OutOfMemoryError with mrctx's message;
    and the same through route="python"."""
    run("""
        import gc
        import numpy
        import cupy
        import mrctx, mrctx.cupy
        MiB = 1 << 20
        ctx = mrctx.Context("cupyc", {"temp": "cache(device)",
                                      "small": "limit(cache(device), bytes=64MiB)"})
        for route in ("c", "python"):
            mrctx.cupy.use(ctx, "temp", route=route)
            print(route, "route:", mrctx.cupy.route())
            assert mrctx.cupy.route()[0] == route, mrctx.cupy.route()
            a = cupy.arange(4 * MiB, dtype=cupy.int32)
            assert ctx.stats("temp").current_bytes >= 16 * MiB
            expected = numpy.arange(4 * MiB, dtype=numpy.int32)
            assert (cupy.asnumpy(a) == expected).all()
            s = cupy.cuda.Stream(non_blocking=True)
            with s:
                b = cupy.full(MiB, 7, dtype=cupy.int64)
                if route == "c":
                    assert mrctx.cupy._binding.block_stream(b.data.ptr) == s.ptr
                c = b * 3
                total = int(c.sum())
                del b, c
            s.synchronize()
            assert total == 21 * MiB, total
            # Blocks freed on s are reused on s; other streams' data intact.
            with s:
                d = cupy.zeros(MiB, dtype=cupy.int64)
                assert int(d.sum()) == 0
                del d
            s.synchronize()
            assert (cupy.asnumpy(a) == expected).all()
            del a
            gc.collect()
            assert ctx.stats("temp").current_bytes == 0, ctx.stats("temp")

            mrctx.cupy.use(ctx, "small", route=route)
            kept = cupy.empty(48 * MiB, dtype=cupy.uint8)
            try:
                cupy.empty(32 * MiB, dtype=cupy.uint8)
                raise SystemExit("past the limit")
            except cupy.cuda.memory.OutOfMemoryError as e:
                assert isinstance(e, mrctx.OutOfMemoryError)
                assert "'cupyc'" in str(e) and "'small'" in str(e), str(e)
                print(route, "OOM:", str(e)[:300])
            del kept
            gc.collect()
            assert ctx.stats("small").current_bytes == 0
        mrctx.cupy.reset()
        ctx.close()
        print("PASS")
        """)


def test_buffer_as_a_cupy_array():
    """mrctx.Buffer under CuPy (issue 23, item 4): cupy.asarray through the
    CUDA Array Interface and cupy.from_dlpack share the Buffer's memory; a
    view on another stream sees the writes of the Buffer's; the view keeps
    the Buffer alive."""
    run("""
        import gc
        import cupy
        import mrctx
        MiB = 1 << 20
        ctx = mrctx.Context("cupybuf", {"temp": "cache(device)"})
        s = cupy.cuda.Stream(non_blocking=True)
        buf = mrctx.Buffer((ctx, "temp"), 4 * MiB, stream=s.ptr)
        with s:
            a = cupy.asarray(buf).view(cupy.float32)
            assert a.data.ptr == buf.ptr and a.size == MiB
            a[:] = 5
            total = a.sum()
        s.synchronize()
        assert float(total) == 5 * MiB
        del a, total
        # DLPack on the legacy default stream: the Buffer's stream s is
        # synchronized before the consumer gets it.
        with s:
            v = cupy.asarray(buf).view(cupy.float32)
            v *= 2  # queued on s, not waited for here
            del v
        b = cupy.from_dlpack(buf)
        assert b.data.ptr == buf.ptr
        assert float(b.view(cupy.float32).sum()) == 10 * MiB
        del b
        gc.collect()
        buf.release()
        # The interface was read: the memory goes with the Buffer itself.
        assert buf.closed and ctx.stats("temp").current_bytes == 4 * MiB
        del buf
        gc.collect()
        assert ctx.stats("temp").current_bytes == 0, ctx.stats("temp")
        # Given CuPy's stream object, the Buffer keeps it (and its CUDA
        # stream) alive for the free.
        t = cupy.cuda.Stream(non_blocking=True)
        held = mrctx.Buffer((ctx, "temp"), MiB, stream=t)
        with t:
            cupy.asarray(held)[:] = 9
        del t
        gc.collect()
        held.release()
        del held
        gc.collect()
        assert ctx.stats("temp").current_bytes == 0, ctx.stats("temp")
        kept = cupy.asarray(mrctx.Buffer((ctx, "temp"), MiB))  # the array holds the Buffer
        gc.collect()
        kept[:] = 1
        assert int(kept.sum()) == MiB and ctx.stats("temp").current_bytes == MiB
        del kept
        gc.collect()
        assert ctx.stats("temp").current_bytes == 0
        print("PASS")
        """)


def test_views_outlive_the_with_block():
    """Issue 34, item 3: the README's pattern, `with mrctx.Buffer(...) as
    buf: a = cupy.asarray(buf)`, leaves `a` on memory that lives until `a`
    and `buf` are gone: the next Buffer gets other memory, and `a` reads
    what it wrote. cupy.from_dlpack likewise. Item 4: numpy.from_dlpack of
    device memory raises numpy's error and the Buffer is intact."""
    run("""
        import gc
        import numpy
        import cupy
        import mrctx
        from mrctx import buffer as mbuffer
        ctx = mrctx.Context("cupyviews", {"temp": "cache(device)"})
        n = 1 << 20
        for make in (cupy.asarray, cupy.from_dlpack):
            with mrctx.Buffer((ctx, "temp"), n) as buf:
                a = make(buf)
                a[:8] = cupy.asarray(numpy.frombuffer(b"MINE!!!!", dtype=numpy.uint8))
            assert buf.closed
            with mrctx.Buffer((ctx, "temp"), n) as other:
                assert other.ptr != a.data.ptr, make
                b = cupy.asarray(other)
                b[:8] = cupy.asarray(numpy.frombuffer(b"OTHER!!!", dtype=numpy.uint8))
                del b
            del other
            seen = bytes(cupy.asnumpy(a[:8]))
            print(make.__name__, "view reads:", seen)
            assert seen == b"MINE!!!!", seen
            del buf
            gc.collect()
            assert ctx.stats("temp").current_bytes == n, ctx.stats("temp")
            del a
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

"""mrctx.cuda_core on a real GPU: a cuda.core MemoryResource over a tag."""

import pytest

from gpu_util import require, require_gpu, run


@pytest.fixture(autouse=True)
def _gpu():
    require_gpu()
    require("cuda.core")


def test_memory_resource():
    run("""
        import gc
        import mrctx, mrctx.cuda_core
        core = mrctx.cuda_core._core
        device = core.Device(0)
        device.set_current()
        stream = device.create_stream()
        ctx = mrctx.Context("coretest", {"temp": "cache(device)", "pin": "pinned"})
        mr = mrctx.cuda_core.TagMemoryResource(ctx, "temp", 0)
        assert mr.is_device_accessible and not mr.is_host_accessible and mr.device_id == 0
        buffer = mr.allocate(1 << 20, stream=stream)
        print("buffer:", buffer, "stats:", ctx.stats("temp"))
        assert buffer.size == 1 << 20 and ctx.stats("temp")["current_bytes"] == 1 << 20
        buffer.close()
        stream.sync()
        assert ctx.stats("temp")["current_bytes"] == 0, ctx.stats("temp")
        pinned = mrctx.cuda_core.TagMemoryResource(ctx, "pin", 0)
        assert pinned.is_host_accessible and pinned.is_device_accessible
        b = pinned.allocate(4096, stream=stream)
        del b
        gc.collect()
        try:
            mrctx.cuda_core.TagMemoryResource(ctx, "nope", 0); raise SystemExit("accepted")
        except mrctx.TagError as e:
            print("refused:", e)
        ctx.close()
        try:
            mrctx.cuda_core.TagMemoryResource(ctx, "temp", 0); raise SystemExit("accepted")
        except mrctx.ClosedError as e:
            print("refused:", e)
        c = mr.allocate(4096, stream=stream)  # the resource keeps its reference
        c.close()
        print("PASS")
        """)

"""mrctx.numba on a real GPU: the EMM plugin, chosen in code and through
NUMBA_CUDA_MEMORY_MANAGER, and the bad inputs of issue 10."""

import pytest

from gpu_util import require, require_gpu, run


@pytest.fixture(autouse=True)
def _gpu():
    require_gpu()
    require("numba.cuda")


def test_selected_by_environment():
    run("""
        import numpy as np
        from numba import cuda
        import mrctx, mrctx.numba
        d = cuda.to_device(np.arange(1 << 20, dtype=np.float32))
        ctx = mrctx.numba.context()
        print("plugin:", mrctx.numba.configured(), ctx.describe("device"))
        assert "cache" in ctx.describe("device")
        stats = ctx.stats("device")
        print("after 4 MiB array:", stats)
        assert stats["current_bytes"] >= 4 << 20, stats
        assert float(d.copy_to_host().sum()) == float(np.arange(1 << 20, dtype=np.float32).sum())
        del d
        assert ctx.stats("device")["current_bytes"] == 0
        p = cuda.pinned_array(1 << 18, dtype=np.float32)
        print("pinned:", ctx.stats("pinned"))
        assert ctx.stats("pinned")["current_bytes"] >= 1 << 20
        del p
        e = cuda.device_array(256)
        try:
            e.get_ipc_handle()
            raise SystemExit("IPC handle made")
        except mrctx.UnsupportedError as error:
            print("refused:", error)
        print("PASS")
        """, NUMBA_CUDA_MEMORY_MANAGER="mrctx.numba",
        MRCTX_NUMBA_MEMORY="device=cache(device)")


def test_chosen_in_code():
    run("""
        import numpy as np
        import mrctx, mrctx.numba
        from numba import cuda
        ctx = mrctx.Context("numbatest", {"dev": "device", "cpu": "host"})
        for tag, error in (("cpu", mrctx.FrameworkError), ("nope", mrctx.TagError)):
            try:
                mrctx.numba.use(ctx, tag); raise SystemExit("bad input accepted")
            except error as e:
                print("refused:", e)
                assert "numbatest" in str(e)
        mrctx.numba.use(ctx, "dev")
        d = cuda.device_array(1 << 20, dtype=np.float64)
        assert ctx.stats("dev")["current_bytes"] >= 8 << 20, ctx.stats("dev")
        stream = cuda.stream()
        h = cuda.to_device(np.ones(1000), stream=stream)
        stream.synchronize()
        del d, h
        print("after free:", ctx.stats("dev"))
        try:
            mrctx.numba.use(mrctx.Context("late", {"x": "device"}), "x")
            raise SystemExit("use() after Numba's context accepted")
        except mrctx.FrameworkError as e:
            print("refused:", e)
        print("PASS")
        """)

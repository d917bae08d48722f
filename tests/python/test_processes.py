"""Many processes, one view (suite fake): each device's free and total
memory, the host and launcher rank a snapshot records, and snapshots of
several processes merged into one table (mrctx.merge_snapshots)."""

import ctypes
import os

import pytest

import mrctx

FAKE = os.environ.get("MRCTX_CUDA_DRIVER", "")


@pytest.fixture(scope="module")
def fake():
    """The fake driver's control API (the library's own loaded instance)."""
    if "fakecuda" not in FAKE:
        pytest.skip("MRCTX_CUDA_DRIVER is not the fake driver")
    library = ctypes.CDLL(FAKE)
    library.fake_cuda_used_memory.restype = ctypes.c_size_t
    return library


# ---- device memory -------------------------------------------------------------

def test_device_memory_follows_allocations(library_name, fake):
    free, total = mrctx.device_memory(1)
    assert total == 16 << 30  # the fake's default
    assert free == total - fake.fake_cuda_used_memory(1)
    with mrctx.Context(library_name, {"temp": "sync_device"}) as ctx:
        temp = ctx.get_resource("temp", 1)
        ptr = temp.allocate(5 << 20)
        after = mrctx.device_memory(1)
        assert after.free == free - (5 << 20) and after.total == total
        assert mrctx.device_memory(0).free == mrctx.device_memory(0).total - fake.fake_cuda_used_memory(0)
        temp.deallocate(ptr, 5 << 20)
    assert mrctx.device_memory(1) == (free, total)
    assert mrctx.device_memory() == mrctx.device_memory(mrctx.current_device())


def test_device_memory_errors(fake):
    with pytest.raises(mrctx.NoDeviceError, match="device_memory\\(7\\).*device 7 does not exist"):
        mrctx.device_memory(7)
    with pytest.raises(mrctx.ArgumentError, match="device=-1 is out of range"):
        mrctx.device_memory(-1)
    with pytest.raises(TypeError):
        mrctx.device_memory("0")
    fake.fake_cuda_fail(b"cuMemGetInfo", 1, 1, 999)  # CUDA_ERROR_UNKNOWN
    try:
        with pytest.raises(mrctx.DriverError, match="cuMemGetInfo\\(device 0\\): CUDA_ERROR_UNKNOWN"):
            mrctx.device_memory(0)
    finally:
        fake.fake_cuda_fail(b"cuMemGetInfo", 0, 0, 0)

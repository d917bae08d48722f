"""Reclaimers over the fake CUDA driver (suite fake): memory a framework
keeps cached makes an mrctx allocation fail, until a reclaimer gives it
back. Stand-ins for PyTorch, CuPy and Numba (modules put in sys.modules,
with counters) hold fake device memory through cuMemAlloc (a sync_device
resource: live blocks, which mrctx's own reclaim never takes) on a 64 MiB
fake device; the package's framework reclaimers find them there only once
they are "imported". No framework needed."""

import ctypes
import os
import sys
import types
import warnings

import pytest

import mrctx
import mrctx.cupy as mcupy
import mrctx.torch as mtorch

FAKE = os.environ.get("MRCTX_CUDA_DRIVER", "")
MiB = 1 << 20
DEVICE = 1  # a device of its own: 64 MiB
FRAMEWORKS = ("torch", "cupy", "numba", "numba.cuda", "numba.cuda.cudadrv.driver")


@pytest.fixture(scope="module")
def fake():
    if "fakecuda" not in FAKE:
        pytest.skip("MRCTX_CUDA_DRIVER is not the fake driver")
    library = ctypes.CDLL(FAKE)
    assert library.fake_cuda_set_total_memory(DEVICE, ctypes.c_size_t(64 * MiB)) == 0
    return library


@pytest.fixture()
def device(fake):
    """An mrctx `device` resource on DEVICE, and no framework imported; at
    the end the device is empty again."""
    for name in FRAMEWORKS:
        assert name not in sys.modules, f"{name} is really imported here"
    resource = mrctx.resolve("device", DEVICE)
    yield resource
    for name in FRAMEWORKS:
        sys.modules.pop(name, None)
    resource.close()
    mrctx.release_idle()
    assert fake.fake_cuda_used_memory(DEVICE) == 0


class Holder:
    """A framework's cache: live cuMemAlloc blocks of 8 MiB."""

    def __init__(self, blocks):
        self.resource = mrctx.resolve("sync_device", DEVICE)
        self.blocks = [self.resource.allocate_sync(8 * MiB) for _ in range(blocks)]
        self.frees = 0

    def held(self):
        return len(self.blocks) * 8 * MiB

    def free_all(self):
        self.frees += 1
        given = self.held()
        for ptr in self.blocks:
            self.resource.deallocate_sync(ptr, 8 * MiB)
        self.blocks = []
        return given


def fails(resource, nbytes=32 * MiB):
    with pytest.raises(mrctx.OutOfMemoryError):
        resource.allocate(nbytes)


def succeeds(resource, nbytes=32 * MiB):
    ptr = resource.allocate(nbytes)
    assert ptr
    resource.deallocate(ptr, nbytes)


def test_register_reclaimer(device):
    holder = Holder(6)  # 48 of 64 MiB
    fails(device)
    calls = []

    def give_back(dev, nbytes):
        calls.append((dev, nbytes))
        return holder.free_all()

    reclaimer = mrctx.register_reclaimer(give_back, name="holder")
    assert reclaimer.registered and reclaimer.name == "holder"
    succeeds(device)
    assert calls == [(DEVICE, 32 * MiB)]
    assert reclaimer.stats() == {"calls": 1, "bytes": 48 * MiB,
                                 "nanoseconds": reclaimer.stats()["nanoseconds"]}
    # mrctx.release_idle asks it too (after mrctx's own), and counts it.
    holder.blocks = [holder.resource.allocate_sync(8 * MiB)]
    assert mrctx.release_idle(device=DEVICE) >= 8 * MiB
    assert calls[-1] == (DEVICE, 0)
    reclaimer.unregister()
    reclaimer.unregister()  # a second time: nothing
    assert not reclaimer.registered
    with pytest.raises(mrctx.StateError):
        reclaimer.stats()
    with pytest.raises(mrctx.ArgumentTypeError):
        mrctx.register_reclaimer(42)


def test_a_raising_callback_warns_once(device):
    holder = Holder(6)

    def broken(dev, nbytes):
        raise RuntimeError("no")

    reclaimer = mrctx.register_reclaimer(broken)
    with pytest.warns(RuntimeWarning, match="raised RuntimeError"):
        fails(device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fails(device)
    assert reclaimer.stats()["calls"] == 2
    reclaimer.unregister()
    holder.free_all()


def fake_torch(holder):
    torch = types.ModuleType("torch")
    cuda = types.SimpleNamespace(empty_cache_calls=0)

    def empty_cache():
        cuda.empty_cache_calls += 1
        holder.free_all()

    cuda.empty_cache = empty_cache
    cuda.is_initialized = lambda: True
    cuda.device_count = lambda: 4
    cuda.memory_reserved = lambda d: holder.held() if d == DEVICE else 0
    torch.cuda = cuda
    return torch


def test_torch_caching_allocator(device, monkeypatch):
    holder = Holder(6)
    assert [r.name.split(":")[0] for r in mrctx.framework_reclaimers()] == [
        "torch", "cupy", "numba"]
    fails(device)  # the reclaimer is registered, but torch is not imported
    torch = fake_torch(holder)
    monkeypatch.setitem(sys.modules, "torch", torch)
    # PyTorch on an mrctx tag: its cache is mrctx's own, left alone.
    monkeypatch.setattr(mtorch, "_installed", "lib/tag")
    fails(device)
    assert torch.cuda.empty_cache_calls == 0
    monkeypatch.setattr(mtorch, "_installed", None)
    succeeds(device)
    assert torch.cuda.empty_cache_calls == 1
    stats = mrctx.framework_reclaimers()[0].stats()
    assert stats["bytes"] == 48 * MiB


def fake_cupy(holder, pinned_holder):
    cupy = types.ModuleType("cupy")
    current = [0]

    class Pool:
        def total_bytes(self):
            return holder.held() if current[0] == DEVICE else 0

        def free_all_blocks(self):
            if current[0] == DEVICE:
                holder.free_all()

    class PinnedPool:
        def free_all_blocks(self):
            pinned_holder.append(1)

    class Device:
        def __init__(self, d):
            self.d = d

        def __enter__(self):
            self.saved, current[0] = current[0], self.d

        def __exit__(self, *exc):
            current[0] = self.saved

    pool, pinned = Pool(), PinnedPool()
    cupy.get_default_memory_pool = lambda: pool
    cupy.get_default_pinned_memory_pool = lambda: pinned
    cupy.cuda = types.SimpleNamespace(
        Device=Device, runtime=types.SimpleNamespace(getDeviceCount=lambda: 4))
    return cupy


def test_cupy_pools(device, monkeypatch):
    holder = Holder(6)
    pinned_frees = []
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy(holder, pinned_frees))
    monkeypatch.setattr(mcupy, "_routed", {"device", "pinned"})
    fails(device)
    assert holder.frees == 0
    monkeypatch.setattr(mcupy, "_routed", set())
    succeeds(device)
    assert holder.frees == 1
    assert pinned_frees == []  # device memory ran out: the pinned pool stays
    assert mrctx.framework_reclaimers()[1].stats()["bytes"] == 48 * MiB
    mrctx.release_idle()  # everything: the pinned pool too
    assert pinned_frees == [1]


def fake_numba(holder, monkeypatch):
    class Pending:
        def __init__(self):
            self._size = holder.held()

        def clear(self):
            holder.free_all()
            self._size = 0

    class Context:
        def __init__(self):
            self.memory_manager = types.SimpleNamespace(deallocations=Pending())
            self.pushed = 0

        def push(self):
            self.pushed += 1

        def pop(self):
            pass

    context = Context()
    driver = types.SimpleNamespace(
        is_initialized=True,
        devices={0: types.SimpleNamespace(primary_context=None),
                 DEVICE: types.SimpleNamespace(primary_context=context)})
    monkeypatch.setitem(sys.modules, "numba", types.ModuleType("numba"))
    monkeypatch.setitem(sys.modules, "numba.cuda", types.ModuleType("numba.cuda"))
    module = types.ModuleType("numba.cuda.cudadrv.driver")
    module.driver = driver
    monkeypatch.setitem(sys.modules, "numba.cuda.cudadrv.driver", module)
    return context


def test_numba_pending_deallocations(device, monkeypatch):
    holder = Holder(6)
    fails(device)
    context = fake_numba(holder, monkeypatch)
    succeeds(device)
    assert holder.frees == 1 and context.pushed == 1
    assert mrctx.framework_reclaimers()[2].stats()["bytes"] == 48 * MiB


def test_framework_reclaimers_as_a_program_s_first_call():
    """framework_reclaimers() as the first call of a program loads libmrctx,
    which registers the three (it answered an empty list before, and
    gpu.python.torch on an H100 failed on that)."""
    import subprocess
    import sys
    code = ("import mrctx; print([r.name.split(':')[0] "
            "for r in mrctx.framework_reclaimers()])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "['torch', 'cupy', 'numba']", out.stdout + out.stderr

"""Many processes, one view (suite fake): each device's free and total
memory, the host and launcher rank a snapshot records, and snapshots of
several processes merged into one table (mrctx.merge_snapshots)."""

import ctypes
import json
import os

import pytest
from conftest import assert_shape

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


# ---- where a snapshot was taken, and device memory in it --------------------------

LAUNCHER = ("RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "LOCAL_RANK",
            "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "WORLD_SIZE",
            "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS")


@pytest.fixture
def no_launcher(monkeypatch):
    for name in LAUNCHER:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_snapshot_names_host_and_ranks(no_launcher):
    import socket
    snap = mrctx.snapshot()
    assert snap["host"] == socket.gethostname()
    assert "rank" not in snap and "world_size" not in snap
    no_launcher.setenv("RANK", "1")
    no_launcher.setenv("LOCAL_RANK", "1")
    no_launcher.setenv("WORLD_SIZE", "2")
    snap = mrctx.snapshot()
    assert (snap["rank"], snap["local_rank"], snap["world_size"]) == (1, 1, 2)
    assert "\nhost %s, rank 1 of 2, local rank 1\n" % socket.gethostname() in mrctx.snapshot_text()
    no_launcher.delenv("RANK")
    no_launcher.setenv("SLURM_PROCID", "6")
    assert mrctx.snapshot()["rank"] == 6


def test_snapshot_lists_device_memory(library_name, fake):
    with mrctx.Context(library_name, {"temp": "device"}) as ctx:
        temp = ctx.get_resource("temp", 1)
        ptr = temp.allocate(4 << 20)
        snap = mrctx.snapshot()
        assert_shape(snap, mrctx.Snapshot)
        devices = {d["device"]: d for d in snap["devices"]}
        assert devices[1] == {"device": 1, "free_bytes": mrctx.device_memory(1).free,
                              "total_bytes": 16 << 30}
        assert devices[1]["free_bytes"] <= (16 << 30) - (4 << 20)
        assert "\ndevice memory (every process's use counts)\ndevice " in mrctx.snapshot_text()
        temp.deallocate(ptr, 4 << 20)


# ---- merged snapshots -------------------------------------------------------------

def _as_process(snap, host, rank, pid, world_size=2):
    snap = dict(snap, host=host, rank=rank, local_rank=rank, world_size=world_size, pid=pid)
    snap["devices"] = [{"device": 0, "free_bytes": 1 << 30, "total_bytes": 2 << 30}]
    return snap


def test_merge_two_processes(library_name, tmp_path, no_launcher):
    with mrctx.Context(library_name, {"temp": "host", "idle": "host"}) as ctx:
        temp = ctx.get_resource("temp", 0)  # the device the rows are on
        ptr = temp.allocate(3 << 20)
        snap = mrctx.snapshot()
        temp.deallocate(ptr, 3 << 20)
    rank1 = tmp_path / "rank1.json"
    rank1.write_text(json.dumps(_as_process(snap, "gpu07", 1, 4243)))
    # A path and a dict, rank 1 given first.
    merged = mrctx.merge_snapshots([rank1, _as_process(snap, "gpu07", 0, 4242)])
    assert_shape(merged, mrctx.MergedSnapshot)
    assert merged["schema"] == "mrctx-snapshot-merged" and merged["version"] == 1
    assert [(p["process"], p["rank"], p["pid"]) for p in merged["processes"]] == \
        [(0, 1, 4243), (1, 0, 4242)]
    mine = [r for r in merged["rows"] if r["library"] == library_name]
    assert [(r["process"], r["rank"], r["tag"], r["stats"]["current_bytes"]) for r in mine] == \
        [(1, 0, "temp", 3 << 20), (0, 1, "temp", 3 << 20)]
    assert all(r["host"] == "gpu07" and r["spec"] == "host" for r in mine)
    (device,) = [d for d in merged["devices"] if d["device"] == 0]
    assert device["host"] == "gpu07" and device["processes"] == 2
    assert (device["free_bytes"], device["total_bytes"]) == (1 << 30, 2 << 30)
    assert merged["total"]["processes"] == 2 and merged["total"]["hosts"] == 1
    text = mrctx.merge_snapshots_text([str(rank1), _as_process(snap, "gpu07", 0, 4242)])
    assert text.startswith("mrctx: 2 snapshots of 1 host\n")
    assert "%s:temp" % library_name in text


def test_merge_three_and_the_same_pid_on_two_hosts(library_name):
    with mrctx.Context(library_name, {"temp": "host"}) as ctx:
        temp = ctx.get_resource("temp", 0)  # the device the rows are on
        ptr = temp.allocate(1 << 20)
        snap = mrctx.snapshot()
        temp.deallocate(ptr, 1 << 20)
    merged = mrctx.merge_snapshots([_as_process(snap, "b", 2, 100, 3),
                                    _as_process(snap, "a", 0, 100, 3),
                                    _as_process(snap, "a", 1, 101, 3)])
    mine = [(r["host"], r["rank"], r["pid"]) for r in merged["rows"]
            if r["library"] == library_name]
    assert mine == [("a", 0, 100), ("a", 1, 101), ("b", 2, 100)]
    hosts = {(d["host"], d["device"]): d["processes"] for d in merged["devices"]}
    assert hosts[("a", 0)] == 2 and hosts[("b", 0)] == 1
    assert merged["total"]["hosts"] == 2


def test_merge_errors(tmp_path):
    good = mrctx.snapshot()
    bad = tmp_path / "rank1.json"
    bad.write_text('{"schema": "mrctx-snapshot", "version": 1}')
    with pytest.raises(mrctx.InvalidArgumentError, match="rank1.json: .*\"mrctx_version\" is missing"):
        mrctx.merge_snapshots([good, bad])
    with pytest.raises(mrctx.InvalidArgumentError, match="snapshots\\[1\\]: .*not an mrctx snapshot"):
        mrctx.merge_snapshots([good, {"schema": "other"}])
    with pytest.raises(FileNotFoundError):
        mrctx.merge_snapshots([good, tmp_path / "missing.json"])
    with pytest.raises(mrctx.InvalidArgumentError, match="no snapshots to merge"):
        mrctx.merge_snapshots([])
    with pytest.raises(TypeError, match="a list of paths or snapshot dicts"):
        mrctx.merge_snapshots(str(bad))
    with pytest.raises(TypeError):
        mrctx.merge_snapshots([good, 42])


# ---- examples/torchrun_ddp.py: what runs without PyTorch ---------------------------

def _torchrun_example():
    import importlib.util
    import pathlib
    import sys
    examples = pathlib.Path(__file__).resolve().parents[2] / "examples"
    sys.path.insert(0, str(examples))
    try:
        spec = importlib.util.spec_from_file_location("torchrun_ddp", examples / "torchrun_ddp.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)  # imports no torch: train() does
    finally:
        sys.path.remove(str(examples))
    return module


def test_torchrun_example_merge_and_check(tmp_path, no_launcher, capsys):
    example = _torchrun_example()
    with mrctx.Context(example.LIBRARY, {example.TAG: "host"}) as ctx:
        memory = ctx.get_resource(example.TAG, 0)
        for rank in (1, 0):  # as two ranks would, each writing its own file
            no_launcher.setenv("RANK", str(rank))
            no_launcher.setenv("LOCAL_RANK", str(rank))
            no_launcher.setenv("WORLD_SIZE", "2")
            ptr = memory.allocate((rank + 1) << 20)
            mrctx.write_snapshot(example.snapshot_path(tmp_path, rank))
            memory.deallocate(ptr, (rank + 1) << 20)
    assert example.merge_and_report(tmp_path, 2, check=True) == 0
    out = capsys.readouterr().out
    assert out.startswith("mrctx: 2 snapshots of 1 host\n")
    assert "all 2 ranks are in the merged view" in out

    merged = mrctx.merge_snapshots([example.snapshot_path(tmp_path, r) for r in (0, 1)])
    assert example.check_merged(merged, 2) == []
    assert example.check_merged(merged, 3) == ["the merged view has ranks [0, 1], not 0 to 2",
                                               "rank 2: no row for train:memory"]
    one = mrctx.merge_snapshots([example.snapshot_path(tmp_path, 0)])
    assert example.check_merged(one, 2) == ["the merged view has ranks [0], not 0 to 1",
                                            "rank 1: no row for train:memory"]
    example.snapshot_path(tmp_path, 1).unlink()
    with pytest.raises(FileNotFoundError):
        example.merge_and_report(tmp_path, 2, check=True)

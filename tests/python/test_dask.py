"""mrctx.dask over the fake driver (suite fake): a LocalCluster of two
worker processes, the plugin registered, a task on each worker allocating
through a tag, and every worker's statistics and snapshot gathered. Needs
Dask's distributed (Debian: python3-distributed, which .ci/run installs)."""

import os

import pytest

distributed = pytest.importorskip(
    "distributed", reason="Dask's distributed is not installed (Debian: python3-distributed); "
    "the mrctx.dask test needs it")

import mrctx  # noqa: E402
import mrctx.dask  # noqa: E402

FAKE = os.environ.get("MRCTX_CUDA_DRIVER", "")


@pytest.fixture(scope="module")
def client():
    if "fakecuda" not in FAKE:
        pytest.skip("MRCTX_CUDA_DRIVER is not the fake driver")
    # The workers inherit this process's environment: MRCTX_CUDA_DRIVER (the
    # fake), MRCTX_LIBRARY and PYTHONPATH reach them.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, scheduler_port=0) as cluster, \
            distributed.Client(cluster) as client:
        yield client


def test_plugin_tasks_and_gathered_statistics(client):
    mrctx.dask.register(client, "daskjob", {"work": "device", "staging": "host"},
                        overrides="work=stats(device)")
    workers = sorted(client.scheduler_info()["workers"])
    assert len(workers) == 2

    def allocate(nbytes):
        import os
        import mrctx.dask
        ctx = mrctx.dask.context("daskjob")
        ctx.get_resource("work", 0).allocate(nbytes)  # left live: the stats show it
        return os.getpid(), ctx.get_resource("work", 0).describe()

    sizes = {workers[0]: 1 << 20, workers[1]: 3 << 20}
    done = {w: client.submit(allocate, n, workers=[w], pure=False).result()
            for w, n in sizes.items()}
    pids = {w: pid for w, (pid, _) in done.items()}
    assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()
    assert all(spec.startswith("stats(device") or "stats(" in spec for _, spec in done.values())

    gathered = mrctx.dask.stats(client)
    assert sorted(gathered) == workers
    for w, n in sizes.items():
        assert gathered[w]["daskjob"]["work"]["current_bytes"] == n
        assert gathered[w]["daskjob"]["work"]["total_count"] == 1
        assert gathered[w]["daskjob"]["staging"]["current_bytes"] == 0
    assert mrctx.dask.stats(client, "daskjob") == gathered

    merged = mrctx.dask.snapshots(client)
    assert merged["total"]["processes"] == 2
    by_pid = {p["pid"]: p for p in merged["processes"]}
    assert {by_pid[pid]["worker"] for pid in pids.values()} == set(workers)
    rows = {(r["pid"], r["tag"]): r["stats"]["current_bytes"] for r in merged["rows"]
            if r["library"] == "daskjob"}
    assert rows == {(pids[w], "work"): n for w, n in sizes.items()}
    text = mrctx.dask.snapshots_text(client)
    assert text.startswith("mrctx: 2 snapshots of 1 host\n") and "daskjob:work" in text

    # Registering again keeps each worker's context (and its live bytes).
    mrctx.dask.register(client, "daskjob", {"work": "device"})
    assert mrctx.dask.stats(client, "daskjob") == gathered


def test_bad_spec_is_reported(client):
    with pytest.raises(mrctx.ConfigError, match="bogus"):
        mrctx.dask.register(client, "badjob", {"work": "bogus(device)"})


def test_context_outside_a_worker():
    with pytest.raises(mrctx.StateError, match="no context for library 'nowhere'"):
        mrctx.dask.context("nowhere")

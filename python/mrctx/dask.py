"""mrctx on every worker of a Dask cluster: a worker plugin, as dask-cuda
sets each worker's rmm pool, and the per-tag statistics and snapshots of
every worker gathered in one call.

On the client::

    from dask.distributed import Client
    import mrctx.dask

    client = Client(cluster)
    mrctx.dask.register(client, "etl", {"device": "cache(device)", "pinned": "pinned"},
                        env_var="ETL_MEMORY", cupy="device")
    ...
    mrctx.dask.stats(client)        # {worker address: {"etl": {"device": Stats, ...}}}
    print(mrctx.dask.snapshots_text(client))   # every worker, one table

In a task, ``mrctx.dask.context("etl")`` is the worker's context. Each
worker makes its own context in the plugin's ``setup`` (Dask runs it when
the plugin is registered and on every worker that joins later), from the
same tags and specs, the override text if given, and the environment
variable (read on the worker, so an operator can set it per worker) if
named; CuPy, Numba and PyTorch are put on the tags asked for with
mrctx.cupy, mrctx.numba and mrctx.torch. One worker per process, as
dask-cuda runs them (``LocalCluster(processes=True)``): the contexts live
in the process, one per library.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from . import _forksafe
from ._context import Context
from ._errors import StateError
from ._hooks import import_framework
from ._snapshot import MergedSnapshot, Snapshot, merge_snapshots, merge_snapshots_text, snapshot

HOOK = "mrctx.dask"

_distributed = import_framework("distributed", HOOK, "distributed")

_lock = _forksafe.lock()
_contexts: dict[str, Context] = {}  # this worker process's, by library


# Dask's WorkerPlugin, from the module imported when this hook is: a base class a type
# checker cannot name through a variable, so Any to it.
_WorkerPluginBase: Any = _distributed.WorkerPlugin


class MrctxPlugin(_WorkerPluginBase):
    """Makes the context ``library`` with ``tags`` ({tag: default spec}) on
    each worker, overridden by ``overrides`` (text, as Context takes it)
    and the environment variable ``env_var`` (read on the worker), and
    routes CuPy (``cupy``), Numba (``numba``, with ``numba_pinned``) and
    PyTorch (``torch``) to the tags named. The plugin is pickled and sent
    to the workers: its arguments are plain data."""

    def __init__(self, library: str, tags: Mapping[str, str], env_var: Optional[str] = None,
                 overrides: Optional[str] = None, cupy: Optional[str] = None,
                 numba: Optional[str] = None, numba_pinned: Optional[str] = None,
                 torch: Optional[str] = None):
        self.library = library
        self.tags = dict(tags)
        self.env_var = env_var
        self.overrides = overrides
        self.hooks = {"cupy": cupy, "numba": numba, "torch": torch}
        self.numba_pinned = numba_pinned
        self.name = f"mrctx-{library}"  # one plugin per library; registering again replaces it

    def setup(self, worker: Any = None) -> None:
        with _lock:
            if self.library in _contexts:  # registered again: the first context stays
                return
            ctx = Context(self.library, self.tags, env_var=self.env_var,
                          overrides=self.overrides)
            _contexts[self.library] = ctx
        if self.hooks["cupy"] is not None:
            from . import cupy as mcupy
            mcupy.use(ctx, self.hooks["cupy"])
        if self.hooks["numba"] is not None:
            from . import numba as mnumba
            mnumba.use(ctx, self.hooks["numba"], self.numba_pinned)
        if self.hooks["torch"] is not None:
            from . import torch as mtorch
            mtorch.use(ctx, self.hooks["torch"])


def register(client: Any, library: str, tags: Mapping[str, str], **options: Any) -> MrctxPlugin:
    """Register MrctxPlugin(library, tags, **options) with ``client``'s
    cluster: every worker, present and to come, makes the context. Returns
    the plugin. A worker whose setup fails (a bad spec, a framework
    missing) is reported by Dask with the error."""
    plugin = MrctxPlugin(library, tags, **options)
    register_plugin = getattr(client, "register_plugin", None)  # distributed 2023.9 and later
    if register_plugin is not None:
        register_plugin(plugin, name=plugin.name)
    else:
        client.register_worker_plugin(plugin, name=plugin.name)
    return plugin


def context(library: Optional[str] = None) -> Context:
    """This worker's context for ``library`` (None: its only one), as the
    plugin made it; for tasks. StateError where the plugin has not run."""
    with _lock:
        if library is None and len(_contexts) == 1:
            return next(iter(_contexts.values()))
        ctx = _contexts.get(library) if library is not None else None
        known = sorted(_contexts)
    if ctx is None:
        wanted = f"library {library!r}" if library is not None else "a library"
        raise StateError(f"{HOOK}: no context for {wanted} in this process (the plugin made: "
                         f"{known or 'none'}); register MrctxPlugin with the client first, and "
                         "call this in a task on a worker")
    return ctx


def _worker_stats(library: Optional[str]) -> dict:
    with _lock:
        contexts = dict(_contexts)
    if library is not None:
        contexts = {library: context(library)}
    return {name: ctx.stats() for name, ctx in contexts.items()}


def stats(client: Any, library: Optional[str] = None) -> dict[str, dict]:
    """Every worker's per-tag statistics, gathered with ``client.run``:
    ``{worker address: {library: {tag: mrctx.Stats}}}``
    (each tag summed over its devices), for every library the plugin made
    there, or only ``library``."""
    return client.run(_worker_stats, library)


def _worker_snapshot(largest_blocks: int) -> Snapshot:
    return snapshot(largest_blocks)


def snapshots(client: Any, largest_blocks: int = 0) -> MergedSnapshot:
    """A snapshot of every worker process, taken now with ``client.run``
    and merged into one view (mrctx.merge_snapshots): rows by host,
    process, device, library and tag, totals per device. Each worker's
    address is in ``processes[i]["worker"]``."""
    taken = client.run(_worker_snapshot, largest_blocks)
    addresses = sorted(taken)
    merged = merge_snapshots([taken[a] for a in addresses])
    for process in merged["processes"]:
        process["worker"] = addresses[process["process"]]
    return merged


def snapshots_text(client: Any, largest_blocks: int = 0) -> str:
    """snapshots() as the tables ``mrctx snapshot A.json B.json`` prints
    (processes in the order of their workers' addresses)."""
    taken = client.run(_worker_snapshot, largest_blocks)
    return merge_snapshots_text([taken[a] for a in sorted(taken)])


__all__ = ["MrctxPlugin", "context", "register", "snapshots", "snapshots_text", "stats"]

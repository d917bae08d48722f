"""The Python package without a driver (suite unit): host tags, errors,
statistics, the override sources, use after close, the PyTorch shim's
routes."""

import ctypes
import json
import os
import subprocess
import sys
import threading

import pytest
from conftest import assert_shape

import mrctx
import mrctx.torch as mtorch


def test_version_and_library():
    assert mrctx.version().count(".") == 2
    assert os.path.exists(mrctx.library_path())


def test_host_tags_allocate_and_count(library_name):
    with mrctx.Context(library_name, {"plain": "host", "cached": "cache(host)"}) as ctx:
        assert ctx.tags == ("plain", "cached")
        assert ctx.device_count == 1
        for tag in ("plain", "cached", 0, 1):
            resource = ctx.get_resource(tag)
            ptr = resource.allocate(4096)
            assert ptr % 256 == 0
            ctypes.memset(ptr, 0x5A, 4096)
            resource.deallocate(ptr, 4096)
            resource.close()
        stats = ctx.stats()
        assert set(stats) == {"plain", "cached"}
        assert stats["plain"] == ctx.stats("plain") == ctx.stats(0)
        assert stats["plain"]["total_count"] == 2
        assert stats["plain"]["total_bytes"] == 8192
        assert stats["plain"]["peak_bytes"] == 4096
        assert stats["plain"]["current_bytes"] == 0
        assert set(stats["cached"]) == {"current_bytes", "peak_bytes", "total_bytes",
                                        "current_count", "peak_count", "total_count",
                                        "failed_count"}
        assert ctx.stats("cached", device=0)["total_count"] == 2
        ctx.trim()
        ctx.trim("cached")


def test_stats_are_typed_and_still_read_as_the_old_dict(library_name):
    """stats() gives a frozen, typed mrctx.Stats read by attribute; the
    dict access of 0.2 still works for one release (deprecated)."""
    import dataclasses

    with mrctx.Context(library_name, {"t": "host"}) as ctx:
        resource = ctx.get_resource("t")
        ptr = resource.allocate(1000)
        s = ctx.stats("t")
        assert isinstance(s, mrctx.Stats)
        assert (s.current_bytes, s.current_count, s.peak_bytes) == (1000, 1, 1000)
        assert s.failed_count == 0
        assert repr(s).startswith("Stats(current_bytes=1000, peak_bytes=1000, ")
        with pytest.raises(dataclasses.FrozenInstanceError):
            s.peak_bytes = 0
        assert isinstance(ctx.stats()["t"], mrctx.Stats)
        old = {"current_bytes": 1000, "peak_bytes": 1000, "total_bytes": 1000,
               "current_count": 1, "peak_count": 1, "total_count": 1, "failed_count": 0}
        assert s == old and old == s and dict(s) == old and dataclasses.asdict(s) == old
        assert s != {**old, "failed_count": 1}
        assert s["peak_bytes"] == 1000 and s.get("peak_bytes") == 1000 and s.get("nope") is None
        assert "peak_bytes" in s and "nope" not in s and len(s) == 7
        assert list(s.keys()) == list(old) and list(s.values()) == list(old.values())
        assert dict(s.items()) == old and list(s) == list(old)
        with pytest.raises(KeyError):
            s["nope"]
        assert s == ctx.stats("t") and hash(s) == hash(ctx.stats("t"))
        resource.deallocate(ptr, 1000)
        assert s != ctx.stats("t")


def test_size_zero_and_live_bytes(library_name):
    with mrctx.Context(library_name, {"t": "host"}) as ctx:
        resource = ctx.get_resource("t")
        assert resource.allocate(0) == 0
        resource.deallocate(0, 0)
        ptr = resource.allocate(1000)
        assert ctx.stats("t")["current_bytes"] == 1000
        assert ctx.stats("t")["current_count"] == 1
        resource.deallocate(ptr, 1000)
        assert ctx.stats("t")["current_bytes"] == 0


def test_print_stats(library_name, capsys):
    with mrctx.Context(library_name, {"alpha": "host", "beta": "host"}) as ctx:
        resource = ctx.get_resource("alpha")
        resource.deallocate(resource.allocate(100), 100)
        ctx.print_stats()
        table = capsys.readouterr().out
        assert library_name in table
        assert "alpha" in table and "beta" in table
        assert ctx.stats_text() == table


def test_tags_by_name_and_index(library_name):
    with mrctx.Context(library_name, [("a", "host"), ("b", "cache(host)")]) as ctx:
        assert ctx.tag_index("b") == 1
        assert ctx.tag_name(1) == "b"
        assert ctx.describe("b") == ctx.describe(1)
        for bad in ("c", 2, -1):
            with pytest.raises(mrctx.TagError) as info:
                ctx.get_resource(bad)
            assert library_name in str(info.value)
            assert repr(bad) in str(info.value)
            assert "a, b" in str(info.value)
        with pytest.raises(mrctx.TagError):
            ctx.tag_index(1.5)
        with pytest.raises(LookupError):
            ctx.stats("nope")


def test_precedence_of_sources(library_name, tmp_path, monkeypatch):
    config = tmp_path / "memory.conf"
    config.write_text("# the file\nb = limit(host, bytes=2MiB)\nc = limit(host, bytes=2MiB)\n")
    variable = f"{library_name.upper()}_MEMORY"
    monkeypatch.setenv(variable, "c=limit(host, bytes=3MiB)")
    tags = {name: "host" for name in "xabc"}
    with mrctx.Context(library_name, tags, env_var=variable, config_file=str(config),
                       overrides="a=limit(host, bytes=1MiB); b=limit(host, bytes=1MiB); "
                                 "c=limit(host, bytes=1MiB)") as ctx:
        assert ctx.source("x").origin == "default"
        assert ctx.describe("x").endswith("host")
        assert ctx.source("a").origin == "override"
        assert "1MiB" in ctx.describe("a")
        source = ctx.source("b")
        assert source.origin == "file" and source.where == str(config) and source.line == 2
        assert "2MiB" in ctx.describe("b")
        source = ctx.source("c")
        assert source.origin == "env" and source.where == variable
        assert source.spec == "limit(host, bytes=3MiB)"
        assert source.status == "MR_OK" and source.reason == ""
        assert "3MiB" in ctx.describe("c")


def test_env_var_applies_only_when_named(library_name, monkeypatch):
    monkeypatch.setenv("MRCTX_PY_UNUSED_MEMORY", "t=cache(host)")
    with mrctx.Context(library_name, {"t": "host"}) as ctx:
        assert ctx.source("t").origin == "default"


def test_ignored_entries(library_name):
    with mrctx.Context(library_name, {"t": "host"}, overrides="t@5=cache(host); t@0=host") as ctx:
        ignored = ctx.ignored
        assert len(ignored) == 1
        assert ignored[0].tag == "t" and ignored[0].device == 5
        assert ignored[0].source.origin == "override"
        assert ignored[0].source.spec == "cache(host)"


def test_config_errors(library_name, tmp_path):
    with pytest.raises(mrctx.ConfigError) as info:
        mrctx.Context(library_name, {"t": "host"}, overrides="t=cache(host")
    error = info.value
    assert isinstance(error, ValueError)
    assert error.status_name == "MR_ERR_CONFIG" and error.status == 6
    assert "cache(host" in str(error) and "column" in str(error)
    with pytest.raises(mrctx.ConfigError) as info:
        mrctx.Context(library_name, {"t": "nonsense"})
    assert "nonsense" in str(info.value)
    missing = tmp_path / "missing.conf"
    with pytest.raises(mrctx.Error) as info:
        mrctx.Context(library_name, {"t": "host"}, config_file=str(missing))
    assert str(missing) in str(info.value)
    with pytest.raises(mrctx.TagError):
        mrctx.Context(library_name, {})


def test_requirements(library_name, monkeypatch):
    # What the library requires of a tag's memory, checked against every
    # source; without a driver the device tags are stand-ins of their kind.
    tags = {"result": "device", "staging": "pinned", "scratch": "host"}
    requires = {"result": ["device_accessible", "stream_ordered"],
                "staging": {"device_accessible", "host_accessible"},
                "scratch": "host_accessible"}
    with mrctx.Context(library_name, tags, requires=requires) as ctx:
        assert ctx.tags == ("result", "staging", "scratch")
    with pytest.raises(mrctx.ConfigError) as info:
        mrctx.Context(library_name, tags, overrides="result=host", requires=requires)
    message = str(info.value)
    assert f"{library_name}: tag 'result' needs device-accessible, stream-ordered memory" in message
    assert "on device 0 the override text gives it 'host': pageable host memory" in message
    monkeypatch.setenv("PYREQ_MEMORY", "scratch=device")
    with pytest.raises(mrctx.ConfigError) as info:
        mrctx.Context(library_name, tags, env_var="PYREQ_MEMORY", requires=requires)
    assert "the environment variable PYREQ_MEMORY gives it 'device'" in str(info.value)
    assert "not host-accessible" in str(info.value)
    # Without requires, the same override is taken.
    with mrctx.Context(library_name, tags, overrides="result=host") as ctx:
        assert ctx.describe("result") == "host"
    # Refused before C: a tag or a requirement that does not exist.
    with pytest.raises(mrctx.TagError):
        mrctx.Context(library_name, tags, requires={"results": ["device_accessible"]})
    with pytest.raises(mrctx.ArgumentError):
        mrctx.Context(library_name, tags, requires={"result": ["on_device"]})
    with pytest.raises(mrctx.ArgumentTypeError):
        mrctx.Context(library_name, tags, requires=["result"])


def test_device_tags_without_driver(library_name):
    with mrctx.Context(library_name, {"dev": "cache(device)"}) as ctx:
        source = ctx.source("dev")
        assert source.status == "MR_ERR_NO_DRIVER" and source.reason
        with pytest.raises(mrctx.NoDriverError) as info:
            ctx.get_resource("dev").allocate(1024)
        assert f"{library_name}:dev" in str(info.value)
        assert info.value.status_name == "MR_ERR_NO_DRIVER"
        assert ctx.stats("dev")["failed_count"] == 1
        # The place is said once: the unavailable tag's reason names it.
        for allocate in (lambda: ctx.get_resource("dev", 0).allocate(1024),
                         lambda: mrctx.Buffer((ctx, "dev"), 1024, device=0),
                         lambda: mrctx.Buffer(ctx.get_resource("dev", 0), 1024)):
            with pytest.raises(mrctx.NoDriverError) as info:
                allocate()
            message = str(info.value)
            assert message.startswith(f"mrctx: {library_name}:dev on device 0: "), message
            assert message.count("on device 0") == 1 and "tag 'dev'" not in message, message
    with pytest.raises(mrctx.NoDriverError):
        mrctx.device_count()
    with pytest.raises(mrctx.NoDriverError):
        mrctx.driver_version()
    assert mrctx.current_device() == 0


def test_out_of_memory_and_bad_alignment(library_name):
    with mrctx.Context(library_name, {"small": "limit(host, bytes=1KiB)"}) as ctx:
        resource = ctx.get_resource("small")
        with pytest.raises(mrctx.OutOfMemoryError) as info:
            resource.allocate(4096)
        assert isinstance(info.value, MemoryError)
        assert "4096" in str(info.value)
        with pytest.raises(mrctx.InvalidArgumentError) as info:
            resource.allocate(64, alignment=48)
        assert isinstance(info.value, ValueError)
        assert "48" in str(info.value)
        assert info.value.message.endswith(mrctx.last_error())
        assert f"library {library_name!r} tag 'small' on device 0" in info.value.message


def test_use_after_close(library_name):
    ctx = mrctx.Context(library_name, {"t": "host"})
    resource = ctx.get_resource("t")
    ctx.close()
    ctx.close()
    assert ctx.closed and "closed" in repr(ctx)
    for call in (lambda: ctx.get_resource("t"), lambda: ctx.stats(), lambda: ctx.describe("t"),
                 lambda: ctx.source("t"), lambda: ctx.ignored, lambda: ctx.trim(),
                 lambda: ctx.print_stats(), lambda: ctx.device_count, lambda: ctx.handle):
        with pytest.raises(mrctx.ClosedError) as info:
            call()
        assert library_name in str(info.value)
        assert isinstance(info.value, mrctx.StateError)
    # A resource taken before close keeps its own reference.
    ptr = resource.allocate(128)
    resource.deallocate(ptr, 128)
    resource.close()
    with pytest.raises(mrctx.ClosedError):
        resource.allocate(128)


def test_resolve_and_props():
    with mrctx.resolve("cache(host)") as resource:
        assert resource.describe() == "cache(host)"
        assert resource.name == "cache"
        props = resource.props
        assert props.kind == "host" and props.device == -1
        assert props.host_accessible and not props.device_accessible
        ptr = resource.allocate_sync(512, alignment=4096)
        assert ptr % 4096 == 0
        resource.deallocate_sync(ptr, 512, alignment=4096)
        resource.synchronize()
        resource.trim()
        with pytest.raises(mrctx.InvalidArgumentError):
            resource.pool_info()
    with pytest.raises(mrctx.ConfigError):
        mrctx.resolve("@other")
    with pytest.raises(mrctx.ConfigError):
        mrctx.resolve("cache(")


def test_errors_are_per_thread(library_name):
    with pytest.raises(mrctx.ConfigError):
        mrctx.resolve("main_thread_spec(")
    main_message = mrctx.last_error()
    seen = []

    def other():
        seen.append(mrctx.last_error())
        try:
            mrctx.resolve("other_thread_spec(")
        except mrctx.ConfigError as error:
            seen.append(str(error))

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert seen[0] == ""
    assert "other_thread_spec" in seen[1]
    assert mrctx.last_error() == main_message


def test_library_not_found():
    env = dict(os.environ, MRCTX_LIBRARY="/nonexistent/libmrctx.so.0.2")
    code = ("import mrctx\n"
            "try:\n    mrctx.version()\n"
            "except mrctx.LibraryNotFoundError as e:\n    print('missing:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    assert "missing:" in out and "/nonexistent/libmrctx.so.0.2" in out and "MRCTX_LIBRARY" in out


def test_framework_hooks_without_frameworks(library_name):
    """Where a framework is missing the hook says so; a host tag is refused."""
    with mrctx.Context(library_name, {"t": "host"}) as ctx:
        try:
            import torch  # noqa: F401
        except ImportError:
            with pytest.raises(mrctx.FrameworkError) as info:
                mtorch.use(ctx, "t")
            assert "torch" in str(info.value)
        with pytest.raises(mrctx.FrameworkError) as info:
            mtorch.bind(8, ctx, "t")
        message = str(info.value)
        assert library_name in message and "'t'" in message and "host memory" in message


@pytest.fixture
def shim():
    try:
        return mtorch.shim()
    except mrctx.LibraryNotFoundError as error:
        pytest.skip(f"no PyTorch shim in this build: {error}")


def test_torch_shim_routes(library_name, shim):
    """The shim's MemPool route over a managed-kind tag stand-in: without a
    driver the tag's allocations fail, so the route returns NULL and counts
    nothing; a bad device is refused."""
    alloc = shim.mrctx_torch_pool_alloc_7
    alloc.restype = ctypes.c_void_p
    alloc.argtypes = [ctypes.c_ssize_t, ctypes.c_int, ctypes.c_void_p]
    free = shim.mrctx_torch_pool_free_7
    free.argtypes = [ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int, ctypes.c_void_p]
    assert alloc(1024, 0, None) is None  # not bound yet
    assert "route 7 is not bound" in mrctx.last_error()
    with mrctx.Context(library_name, {"weights": "device"}) as ctx:
        assert mtorch.bind(7, ctx, "weights") == f"{library_name}/weights"
        assert mtorch.bind(7, ctx, "weights") == f"{library_name}/weights"
        with mrctx.Context(library_name + "b", {"other": "device"}) as other:
            with pytest.raises(mrctx.FrameworkError) as info:
                mtorch.bind(7, other, "other")
            assert f"{library_name}/weights" in str(info.value)
        assert alloc(1024, 0, None) is None
        assert f"{library_name}:weights on device 0" in mrctx.last_error()
        assert ctx.stats("weights")["failed_count"] == 1
        assert alloc(1024, 3, None) is None
        assert "device 3" in mrctx.last_error()
    # Freeing into the route after the context is closed is safe.
    before, _ = mtorch.failed_frees()
    free(0x1000, 1024, 5, None)
    count, message = mtorch.failed_frees()
    assert count == before + 1 and "device 5" in message
    free(None, 0, 0, None)
    assert mtorch.failed_frees()[0] == count


def _find_tag(snap, library, tag):
    (context,) = [c for c in snap["contexts"] if c["library"] == library]
    (entry,) = [t for t in context["tags"] if t["tag"] == tag]
    return entry["devices"]


def test_snapshot(library_name, tmp_path):
    other = library_name + "_other"
    with mrctx.Context(library_name, {"kept": "track(host)", "plain": "host"}) as ctx, \
            mrctx.Context(other, {"cached": "cache(host)"}) as ctx2:
        kept, cached = ctx.get_resource("kept"), ctx2.get_resource("cached")
        blocks = [kept.allocate(size) for size in (1000, 5000, 3000)]
        ptr = cached.allocate(1 << 20)
        snap = mrctx.snapshot(largest_blocks=2)
        assert_shape(snap, mrctx.Snapshot)  # what the types promise (track, cache)
        assert snap["schema"] == "mrctx-snapshot" and snap["version"] == 1
        assert snap["trigger"] == "request" and snap["pid"] == os.getpid()
        assert snap["pools"] == []  # no driver
        (slot,) = _find_tag(snap, library_name, "kept")
        assert slot["spec"] == "track(host)" and slot["stats"]["current_bytes"] == 9000
        assert slot["track"]["live_count"] == 3
        assert [b["bytes"] for b in slot["track"]["largest"]] == [5000, 3000]
        (slot,) = _find_tag(snap, other, "cached")
        assert slot["stats"]["current_bytes"] == 1 << 20 and slot["cache"]["misses"] == 1
        text = mrctx.snapshot_text()
        assert f"{other}:cached" in text and "1.0 MiB" in text
        path = tmp_path / "snap.json"
        mrctx.write_snapshot(path)
        written = json.loads(path.read_text())
        assert_shape(written, mrctx.Snapshot)
        assert_shape(mrctx.read_snapshot(path), mrctx.Snapshot)
        assert _find_tag(written, library_name, "plain")[0]["stats"]["total_count"] == 0
        for size, block in zip((1000, 5000, 3000), blocks):
            kept.deallocate(block, size)
        cached.deallocate(ptr, 1 << 20)
    assert all(c["library"] != library_name for c in mrctx.snapshot()["contexts"])
    with pytest.raises(ValueError):
        mrctx.snapshot(largest_blocks=-1)


def test_export_memory_viz(library_name, tmp_path):
    """mrctx.export_memory_viz writes what PyTorch's memory_viz opens
    (memory_viz_check.py mirrors its reader): the tracked blocks as
    segments and allocations, each library:tag a pool of its own."""
    import pickle

    import memory_viz_check
    other = library_name + "_other"
    with mrctx.Context(library_name, {"kept": "track(host)", "plain": "host"}) as ctx, \
            mrctx.Context(other, {"seen": "track(host)"}) as ctx2:
        kept, seen = ctx.get_resource("kept"), ctx2.get_resource("seen")
        blocks = [(kept.allocate(size), size) for size in (1000, 5000, 3000)]
        blocks.append((seen.allocate(7000), 7000))
        path = tmp_path / "viz.pickle"
        mrctx.export_memory_viz(path)
        data = path.read_bytes()
        assert memory_viz_check.problems(data) == []
        viz = pickle.loads(data)
        mine = [s for s in viz["segments"]
                if s["frames"][-1]["name"] in (f"{library_name}:kept", f"{other}:seen")]
        assert sorted((s["address"], s["total_size"]) for s in mine) == sorted(blocks)
        pools = {name: pool for pool, name in memory_viz_check.owners(viz)[0].items()}
        assert pools[f"{library_name}:kept"] != pools[f"{other}:seen"]
        for s in mine:
            assert s["segment_pool_id"] == pools[s["frames"][-1]["name"]]
        allocs = [e for e in viz["device_traces"][0] if e["action"] == "alloc"
                  and e["category"] in pools]
        assert {(e["addr"], e["size"]) for e in allocs} >= set(blocks)
        # largest_blocks bounds the blocks per tag and device.
        mrctx.export_memory_viz(path, largest_blocks=1)
        viz = pickle.loads(path.read_bytes())
        assert sorted(s["total_size"] for s in viz["segments"]
                      if s["frames"][-1]["name"] == f"{library_name}:kept") == [5000]
        for ptr, size in blocks[:3]:
            kept.deallocate(ptr, size)
        seen.deallocate(*blocks[3])
    with pytest.raises(ValueError):
        mrctx.export_memory_viz(path, largest_blocks=-1)
    with pytest.raises(TypeError):
        mrctx.export_memory_viz(42)
    with pytest.raises(OSError):
        mrctx.export_memory_viz(tmp_path)  # a directory


# ---- arguments are checked before any C call -----------------------------------


def _refused(kind, call, *words):
    """`call()` raises `kind` (an mrctx.Error) whose message names every word
    (the argument, the value)."""
    with pytest.raises(kind) as info:
        call()
    error = info.value
    assert isinstance(error, mrctx.Error)
    assert error.status_name == "MR_ERR_INVALID_ARGUMENT"
    for word in words:
        assert word in str(error), (word, str(error))
    return error


def test_sizes_are_checked(library_name):
    """2**64 + 16 used to hand out 16 bytes; -1 wrapped to 2**64 - 1; bools,
    floats and strings reached ctypes."""
    with mrctx.Context(library_name, {"t": "host"}) as ctx:
        resource = ctx.get_resource("t")
        for call in (resource.allocate, resource.allocate_sync):
            error = _refused(mrctx.ArgumentError, lambda: call(2**64 + 16), "nbytes",
                             "18446744073709551632", "2**64 - 1",
                             f"library {library_name!r} tag 't' on device 0")
            assert isinstance(error, ValueError) and isinstance(error, mrctx.InvalidArgumentError)
            _refused(mrctx.ArgumentError, lambda: call(-1), "nbytes", "-1", "negative")
            for bad, shown in ((True, "bool"), (1.5, "float"), ("10", "str"), (None, "NoneType")):
                error = _refused(mrctx.ArgumentTypeError, lambda: call(bad), "nbytes", shown)
                assert isinstance(error, TypeError)
            # Not a power of two: the C library's check, naming the resource.
            with pytest.raises(mrctx.InvalidArgumentError) as info:
                call(64, alignment=48)
            assert "48" in str(info.value) and "tag 't'" in str(info.value)
            _refused(mrctx.ArgumentError, lambda: call(64, alignment=-256), "alignment")
            _refused(mrctx.ArgumentTypeError, lambda: call(64, alignment=256.0), "alignment")
        ptr = resource.allocate(100)
        _refused(mrctx.ArgumentError, lambda: resource.deallocate(ptr, -100), "nbytes")
        _refused(mrctx.ArgumentError, lambda: resource.deallocate(ptr, 2**64 + 100), "nbytes")
        _refused(mrctx.ArgumentError, lambda: resource.deallocate(-ptr, 100), "ptr")
        _refused(mrctx.ArgumentTypeError, lambda: resource.deallocate(str(ptr), 100), "ptr")
        _refused(mrctx.ArgumentTypeError, lambda: resource.deallocate_sync(ptr, 100.0), "nbytes")
        _refused(mrctx.ArgumentTypeError, lambda: resource.deallocate(ptr, 100, stream="0"),
                 "stream")
        _refused(mrctx.ArgumentError, lambda: resource.deallocate(ptr, 100, stream=-1), "stream")
        _refused(mrctx.ArgumentError, lambda: resource.synchronize(2**64), "stream")
        # Nothing reached the library: one allocation, no failure, still live.
        stats = ctx.stats("t")
        assert stats["total_count"] == 1 and stats["failed_count"] == 0
        assert stats["current_bytes"] == 100
        resource.deallocate(ptr, 100)


def test_streams_accept_stream_objects(library_name):
    class CupyLike:
        ptr = 0

    class TorchLike:
        cuda_stream = 0

    class CoreLike:
        def __cuda_stream__(self):
            return (0, 0)

    class NumbaLike:
        handle = ctypes.c_void_p(None)

    with mrctx.Context(library_name, {"t": "host"}) as ctx:
        resource = ctx.get_resource("t")
        for stream in (None, 0, CupyLike(), TorchLike(), CoreLike(), NumbaLike()):
            resource.deallocate(resource.allocate(64, stream=stream), 64, stream=stream)
            resource.synchronize(stream)
        _refused(mrctx.ArgumentTypeError, lambda: resource.synchronize(object()), "stream",
                 "object")


def test_devices_are_checked(library_name):
    """device=2**32 used to resolve for device 0."""
    _refused(mrctx.ArgumentError, lambda: mrctx.resolve("host", device=2**32), "device",
             "4294967296")
    _refused(mrctx.ArgumentError, lambda: mrctx.resolve("host", device=-2), "device", "-2")
    _refused(mrctx.ArgumentError, lambda: mrctx.resolve("host", device=-1), "device", "-1")
    _refused(mrctx.ArgumentTypeError, lambda: mrctx.resolve("host", device=0.0), "device", "float")
    _refused(mrctx.ArgumentTypeError, lambda: mrctx.resolve("host", device=False), "device", "bool")
    _refused(mrctx.ArgumentError, lambda: mrctx.driver_pool_info("pinned", 2**32), "device")
    _refused(mrctx.ArgumentError, lambda: mrctx.driver_pool_info("pinned", -2), "device")
    _refused(mrctx.ArgumentError, lambda: mrctx.driver_pool_info("nope"), "which", "nope")
    _refused(mrctx.ArgumentTypeError, lambda: mrctx.driver_pool_info(0), "which", "int")
    with mrctx.Context(library_name, {"t": "host"}) as ctx:
        for call in (ctx.get_resource, ctx.describe, ctx.source):
            _refused(mrctx.ArgumentTypeError, lambda: call("t", 0.0), "device", "float")
            _refused(mrctx.ArgumentTypeError, lambda: call("t", True), "device", "bool")
            with pytest.raises(mrctx.NoDeviceError):
                call("t", 2**32)
        _refused(mrctx.ArgumentTypeError, lambda: ctx.stats("t", device="0"), "device", "str")
        with pytest.raises(mrctx.NoDeviceError):
            ctx.stats("t", device=-2)
        _refused(mrctx.ArgumentTypeError, lambda: ctx.print_stats(file=3), "file", "int")


def test_text_is_checked(library_name, monkeypatch):
    """env_var="PATH\\0X" used to read $PATH; lone surrogates gave
    UnicodeEncodeError; None where text is needed, AttributeError."""
    monkeypatch.setenv("MRCTX_PY_NUL_TEST", "t=limit(host, bytes=1MiB)")
    error = _refused(mrctx.ArgumentError,
                     lambda: mrctx.Context(library_name, {"t": "host"},
                                           env_var="MRCTX_PY_NUL_TEST\0X"),
                     "env_var", "NUL", "index 17")
    assert isinstance(error, ValueError)
    for where, make in (
        ("library", lambda bad: mrctx.Context(bad, {"t": "host"})),
        ("tag name", lambda bad: mrctx.Context(library_name, {bad: "host"})),
        ("spec", lambda bad: mrctx.Context(library_name, {"t": bad})),
        ("env_var", lambda bad: mrctx.Context(library_name, {"t": "host"}, env_var=bad)),
        ("overrides", lambda bad: mrctx.Context(library_name, {"t": "host"}, overrides=bad)),
        ("spec", lambda bad: mrctx.resolve(bad)),
    ):
        _refused(mrctx.ArgumentError, lambda: make("ho\0st"), where, "NUL")
        _refused(mrctx.ArgumentError, lambda: make("ho\udcffst"), where, "surrogate", "\\udcff")
        _refused(mrctx.ArgumentTypeError, lambda: make(b"host"), where, "bytes")
    _refused(mrctx.ArgumentTypeError, lambda: mrctx.resolve(None), "spec", "NoneType")
    _refused(mrctx.ArgumentTypeError, lambda: mrctx.Context(None, {"t": "host"}), "library",
             "NoneType")
    _refused(mrctx.ArgumentTypeError, lambda: mrctx.Context(library_name, {"t": None}), "spec")
    _refused(mrctx.ArgumentTypeError, lambda: mrctx.Context(library_name, "t=host"), "tags",
             "str")
    _refused(mrctx.ArgumentTypeError, lambda: mrctx.Context(library_name, [("t",)]), "tags")
    _refused(mrctx.ArgumentTypeError, lambda: mrctx.Context(library_name, 5), "tags", "int")
    _refused(mrctx.ArgumentTypeError,
             lambda: mrctx.Context(library_name, {"t": "host"}, config_file=3), "config_file")
    # A config file's name is a path: an undecodable name (surrogateescape)
    # is the file's bytes, not a mistake; a NUL is refused.
    _refused(mrctx.ArgumentError,
             lambda: mrctx.Context(library_name, {"t": "host"}, config_file="a\0b"),
             "config_file", "NUL")
    with pytest.raises(mrctx.Error) as info:
        mrctx.Context(library_name, {"t": "host"}, config_file="/nonexistent/\udcff.conf")
    assert not isinstance(info.value, (mrctx.ArgumentError, mrctx.ArgumentTypeError))


def test_snapshot_arguments_are_checked(tmp_path):
    _refused(mrctx.ArgumentError, lambda: mrctx.snapshot(largest_blocks=-1), "largest_blocks")
    _refused(mrctx.ArgumentError, lambda: mrctx.snapshot_json(2**64), "largest_blocks")
    _refused(mrctx.ArgumentTypeError, lambda: mrctx.snapshot_text(1.0), "largest_blocks")
    _refused(mrctx.ArgumentTypeError, lambda: mrctx.write_snapshot(None), "path")
    _refused(mrctx.ArgumentTypeError,
             lambda: mrctx.write_snapshot(tmp_path / "s.json", largest_blocks="3"),
             "largest_blocks")
    assert not (tmp_path / "s.json").exists()


def test_hooks_check_their_context(library_name):
    with pytest.raises(mrctx.ArgumentTypeError) as info:
        mtorch.bind(8, "not a context", "t")
    assert "ctx" in str(info.value) and "str" in str(info.value)
    with mrctx.Context(library_name, {"t": "host"}) as ctx:
        for route in (9, -1, 2**32):
            _refused(mrctx.ArgumentError, lambda: mtorch.bind(route, ctx, "t"), "route")
        _refused(mrctx.ArgumentTypeError, lambda: mtorch.bind(1.0, ctx, "t"), "route")


# ---- write_snapshot: what the path names ------------------------------------------------------

def _fifo_reader(path):
    """A FIFO's read end open (so a writer that does not wait finds a
    reader) and a thread reading it until the writers have gone; returns a
    function that, once the writer is done, gives what arrived. It comes and
    goes as a writer itself first, so a writer that never came gives b""
    instead of leaving the thread waiting."""
    import select
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    got = []

    def read():
        while True:
            select.select([fd], [], [])  # data, or the writers gone
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                return
            got.append(chunk)

    thread = threading.Thread(target=read)
    thread.start()

    def finish():
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
        thread.join()
        os.close(fd)
        return b"".join(got)

    return finish


def test_write_snapshot_replaces_a_file_never_in_place(tmp_path):
    # Another name of the old file keeps its contents; the new file has the
    # old one's permissions; nothing is left beside it.
    path, other = tmp_path / "snap.json", tmp_path / "other-name"
    path.write_text("old\n")
    os.chmod(path, 0o600)
    os.link(path, other)
    mrctx.write_snapshot(path)
    assert other.read_text() == "old\n"
    assert json.loads(path.read_text())["schema"] == "mrctx-snapshot"
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other-name", "snap.json"]


def test_write_snapshot_refuses_a_link_to_a_file(tmp_path):
    victim, link = tmp_path / "victim", tmp_path / "snap.json"
    victim.write_text("the victim's data\n")
    link.symlink_to(victim)
    with pytest.raises(OSError, match="it is a symbolic link to a regular file"):
        mrctx.write_snapshot(link)
    assert victim.read_text() == "the victim's data\n"
    assert link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["snap.json", "victim"]


def test_write_snapshot_into_a_fifo(tmp_path):
    fifo = tmp_path / "snap.json"
    os.mkfifo(fifo)
    # No reader: an error at once, not a hang (the alarm is a guard: a
    # writer that waits fails the test instead of holding it forever).
    import signal

    def waited(signum, frame):
        raise TimeoutError("write_snapshot waited for the FIFO's reader")

    old = signal.signal(signal.SIGALRM, waited)
    signal.alarm(20)
    try:
        with pytest.raises(OSError, match="it is a FIFO with no reader"):
            mrctx.write_snapshot(fifo)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    # A reader: the snapshot arrives, and the FIFO stays.
    finish = _fifo_reader(fifo)
    try:
        mrctx.write_snapshot(fifo)
    finally:
        data = finish()
    assert json.loads(data)["schema"] == "mrctx-snapshot"
    import stat
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_write_snapshot_into_a_device(tmp_path):
    import stat
    if os.geteuid() != 0:
        pytest.skip("a character device needs mknod, which needs root")
    device = tmp_path / "null"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    mrctx.write_snapshot(device)
    assert stat.S_ISCHR(os.lstat(device).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["null"]

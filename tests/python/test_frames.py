"""Python call sites under track(UP, stacks=N) (suite fake): an allocation
made through the package names the test's own line, innermost first, in
snapshots and in the memory_viz export; one made with the GIL released by
someone else gets native frames only; the package's frames are skipped.
docs/observability.md, "Python call sites"."""

import ctypes
import inspect
import os
import pickle
import threading

import pytest

import mrctx
from mrctx import _frames, _lib

HERE = os.path.abspath(__file__)


def _line() -> int:
    """The caller's line: the line a test's allocation is on."""
    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    return frame.f_back.f_lineno


def _frames_of(library: str, tag: str, device: int = 0) -> list:
    """The frames of each live block of ``library``'s ``tag``, in the
    snapshot's order (largest first)."""
    for context in mrctx.snapshot()["contexts"]:
        if context["library"] != library:
            continue
        for entry in context["tags"]:
            if entry["tag"] != tag:
                continue
            for d in entry["devices"]:
                if d["device"] == device:
                    return [block.get("frames", []) for block in d["track"]["largest"]]
    raise AssertionError(f"{library}:{tag} is not in the snapshot")


def test_resource_allocate_names_the_line(library_name):
    with mrctx.Context(library_name, {"scratch": "track(host, stacks=8)"}) as ctx:
        resource = ctx.get_resource("scratch")
        ptr = resource.allocate(4096); line = _line()  # noqa: E702 (one line)
        (frames,) = _frames_of(library_name, "scratch")
        # Innermost first: this function's line, then its caller's (pytest);
        # no frame of the package's own (Resource.allocate, _frames.py).
        assert frames[0] == f"test_resource_allocate_names_the_line ({HERE}:{line})"
        assert len(frames) == 8
        package = os.path.dirname(mrctx.__file__)
        assert not any(package in frame for frame in frames)
        resource.deallocate(ptr, 4096)
        ptr = resource.allocate_sync(64); line = _line()  # noqa: E702
        (frames,) = _frames_of(library_name, "scratch")
        assert frames[0] == f"test_resource_allocate_names_the_line ({HERE}:{line})"
        resource.deallocate_sync(ptr, 64)


def _helper_allocates(buffer_source, size):
    """A user's function between the test and the package: the innermost."""
    return mrctx.Buffer(buffer_source, size), _line()


def test_device_tag_buffer_and_memory_viz(library_name, tmp_path):
    if "fakecuda" not in os.environ.get("MRCTX_CUDA_DRIVER", ""):
        pytest.skip("MRCTX_CUDA_DRIVER is not the fake driver")
    with mrctx.Context(library_name, {"temp": "track(cache(device), stacks=4)"}) as ctx:
        (buffer, inner), outer = _helper_allocates((ctx, "temp"), 1 << 20), _line()
        (frames,) = _frames_of(library_name, "temp")
        assert frames[:2] == [f"_helper_allocates ({HERE}:{inner})",
                              f"test_device_tag_buffer_and_memory_viz ({HERE}:{outer})"]
        # memory_viz shows the Python frames as PyTorch writes its own:
        # filename, line, function.
        path = tmp_path / "viz.pickle"
        mrctx.export_memory_viz(path)
        with open(path, "rb") as f:
            viz = pickle.load(f)
        owner = f"{library_name}:temp"
        (segment,) = [s for s in viz["segments"]
                      if any(frame["name"] == owner for b in s["blocks"]
                             for frame in b["frames"])]
        viz_frames = segment["blocks"][0]["frames"]
        assert viz_frames[0] == {"filename": HERE, "line": inner, "name": "_helper_allocates"}
        assert viz_frames[1] == {"filename": HERE, "line": outer,
                                 "name": "test_device_tag_buffer_and_memory_viz"}
        assert viz_frames[-1] == {"filename": "mrctx", "line": 0, "name": owner}
        buffer.close()


def test_gil_released_elsewhere_gives_native_frames(library_name):
    """A C-side allocation with the GIL released (here: libmrctx's
    mr_allocate called straight through ctypes.CDLL, which releases it, as
    a PyTorch autograd thread has no GIL) reads no Python frames: the
    source never takes the GIL inside an allocation."""
    with mrctx.Context(library_name, {"scratch": "track(host, stacks=4)"}) as ctx:
        resource = ctx.get_resource("scratch")
        ptr = ctypes.c_void_p()
        assert _lib.lib().mr_allocate(resource.handle, 256, 0, None, ctypes.byref(ptr)) == 0
        (frames,) = _frames_of(library_name, "scratch")
        assert frames and not any(HERE in frame for frame in frames)
        resource.deallocate(ptr.value, 256)
        # From another thread, the same.
        done = []
        thread = threading.Thread(target=lambda: done.append(
            _lib.lib().mr_allocate(resource.handle, 256, 0, None, ctypes.byref(ptr))))
        thread.start()
        thread.join()
        assert done == [0]
        (frames,) = _frames_of(library_name, "scratch")
        assert not any(HERE in frame for frame in frames)
        resource.deallocate(ptr.value, 256)


def test_gil_held_reads_live_frames(library_name):
    """A C caller that holds the GIL (CuPy's C allocator, the PyTorch shim
    called with the GIL held; here ctypes.PyDLL) gets the live frames,
    from any Python thread."""
    with mrctx.Context(library_name, {"scratch": "track(host, stacks=4)"}) as ctx:
        resource = ctx.get_resource("scratch")
        holding = ctypes.PyDLL(_lib.library_path())
        holding.mr_allocate.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t,
                                        ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
        holding.mr_allocate.restype = ctypes.c_int
        results = []

        def allocate():
            ptr = ctypes.c_void_p()
            status = holding.mr_allocate(resource.handle, 512, 0, None, ctypes.byref(ptr)); line = _line()  # noqa: E501,E702
            results.append((status, ptr.value, line))

        thread = threading.Thread(target=allocate)
        thread.start()
        thread.join()
        ((status, ptr, line),) = results
        assert status == 0
        (frames,) = _frames_of(library_name, "scratch")
        assert frames[0] == f"allocate ({HERE}:{line})"
        resource.deallocate(ptr, 512)


def test_threads_each_name_their_own_line(library_name):
    with mrctx.Context(library_name, {"scratch": "track(host, stacks=2)"}) as ctx:
        resource = ctx.get_resource("scratch")
        lines = {}
        start = threading.Barrier(4)

        def worker(n):
            start.wait()
            for _ in range(50):
                ptr = resource.allocate(1024 + n); lines[n] = _line()  # noqa: E702
                resource.deallocate(ptr, 1024 + n)
            lines[(n, "ptr")] = resource.allocate(1024 + n)

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        blocks = _frames_of(library_name, "scratch")  # largest first: n = 3, 2, 1, 0
        assert [frames[0] for frames in blocks] == [
            f"worker ({HERE}:{lines[n] + 2})" for n in (3, 2, 1, 0)]
        for n in range(4):
            resource.deallocate(lines[(n, "ptr")], 1024 + n)


def test_no_stacks_no_capture(library_name):
    """Without stacks the package makes the plain call (no frames, no
    capture), and with a failed allocation the frames' path raises what the
    plain one does."""
    with mrctx.Context(library_name, {"plain": "track(host)",
                                      "small": "track(limit(host, bytes=1KiB), stacks=4)"}) as ctx:
        assert ctx.get_resource("plain")._frame_depth() == 0
        small = ctx.get_resource("small")
        assert small._frame_depth() == 4
        with pytest.raises(mrctx.OutOfMemoryError) as info:
            small.allocate(4096)
        assert "limit" in str(info.value)
        ptr = small.allocate(16)
        small.deallocate(ptr, 16)


def test_removed_source_is_not_called(library_name):
    """After the package removes its source (at exit), allocations carry
    native frames only; installing it again brings the Python frames back."""
    with mrctx.Context(library_name, {"scratch": "track(host, stacks=4)"}) as ctx:
        resource = ctx.get_resource("scratch")
        _frames._remove()
        try:
            ptr = resource.allocate(128)
            (frames,) = _frames_of(library_name, "scratch")
            assert not any(HERE in frame for frame in frames)
            resource.deallocate(ptr, 128)
        finally:
            _frames.install(_lib.lib(), _lib.library_path())
        ptr = resource.allocate(128); line = _line()  # noqa: E702
        (frames,) = _frames_of(library_name, "scratch")
        assert frames[0] == f"test_removed_source_is_not_called ({HERE}:{line})"
        resource.deallocate(ptr, 128)

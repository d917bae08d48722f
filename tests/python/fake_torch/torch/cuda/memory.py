"""torch.cuda.memory of the stand-in (see torch/__init__.py)."""

import collections
import ctypes
import os
import sys
import traceback


RECORD: list = []

_ALLOC = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int, ctypes.c_void_p)
_FREE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int, ctypes.c_void_p)
_RESET = ctypes.CFUNCTYPE(None)
_FRACTION = ctypes.CFUNCTYPE(None, ctypes.c_double, ctypes.c_int)


def _cuda():
    import torch.cuda
    return torch.cuda


def _pluggable(what: str) -> RuntimeError:
    return RuntimeError(f"CUDAPluggableAllocator does not yet support {what}. If you need it, "
                        "please file an issue describing your use case.")


class _CUDAPluggableAllocator:
    """torch._C._cuda_CUDAAllocator: the function pointers, and the set_*
    methods of Module.cpp, each taking an address."""

    def __init__(self, alloc_fn: int, free_fn: int):
        self.alloc_fn, self.free_fn = alloc_fn, free_fn
        self.hooks: dict = {}


def _setter(name):
    def set_hook(self, address: int) -> None:
        assert isinstance(address, int) and address, (name, address)
        self.hooks[name] = address
        RECORD.append((name, address))
    set_hook.__name__ = name
    return set_hook


for _name in ("set_init_fn", "set_reset_fn", "set_memory_fraction_fn", "set_base_alloc_fn",
              "set_record_stream_fn", "set_begin_allocate_to_pool", "set_end_allocate_to_pool_fn",
              "set_release_pool"):
    setattr(_CUDAPluggableAllocator, _name, _setter(_name))


class CUDAPluggableAllocator:
    """As torch.cuda.memory.CUDAPluggableAllocator: loads the library with
    ctypes and takes the two functions' addresses."""

    def __init__(self, path_to_so_file: str, alloc_fn_name: str, free_fn_name: str):
        library = ctypes.CDLL(path_to_so_file)
        alloc_fn = ctypes.cast(getattr(library, alloc_fn_name), ctypes.c_void_p).value
        free_fn = ctypes.cast(getattr(library, free_fn_name), ctypes.c_void_p).value
        assert alloc_fn is not None and free_fn is not None
        self._allocator = _CUDAPluggableAllocator(alloc_fn, free_fn)

    def allocator(self):
        return self._allocator


_current = None  # the pluggable allocator change_current_allocator installed
_live: dict = {}  # address -> (size, device, stream): PyTorch's allocation_metadata_


def change_current_allocator(allocator) -> None:
    global _current
    if _cuda().is_initialized():
        raise RuntimeError("Can't swap an already initialized allocator")
    _current = allocator.allocator()
    RECORD.append(("change_current_allocator", _current.alloc_fn, _current.free_fn))


_catcher = []  # the C++ part's library, once looked for
_cuda_lib = []  # its libtorch_cuda.so, once looked for


def _torch_cuda():
    """The stand-in's libtorch_cuda.so (None without the C++ part)."""
    if not _cuda_lib:
        folder = os.environ.get("MRCTX_FAKE_TORCH_LIB", "")
        path = os.path.join(folder, "libtorch_cuda.so")
        _cuda_lib.append(ctypes.CDLL(path) if folder and os.path.exists(path) else None)
        lib = _cuda_lib[0]
        if lib is not None:
            lib.fake_torch_cuda_alloc.argtypes = [
                ctypes.c_ssize_t, ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                ctypes.c_char_p, ctypes.c_size_t]
            lib.fake_torch_cuda_free.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                                 ctypes.c_size_t]
            lib.fake_torch_cuda_cache_info.argtypes = [
                ctypes.c_int, ctypes.POINTER(ctypes.c_size_t), ctypes.c_char_p, ctypes.c_size_t]
            lib.fake_torch_cuda_check_pool_live.argtypes = [
                ctypes.c_int, ctypes.c_ulonglong, ctypes.c_ulonglong,
                ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t, ctypes.POINTER(ctypes.c_int),
                ctypes.c_char_p, ctypes.c_size_t]
            lib.fake_torch_cuda_set_fraction.argtypes = [ctypes.c_double, ctypes.c_int,
                                                         ctypes.c_char_p, ctypes.c_size_t]
            lib.fake_torch_cuda_record_stream.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                                          ctypes.c_char_p, ctypes.c_size_t]
            for name in ("begin", "end", "release"):
                extra = [ctypes.c_void_p] if name == "begin" else []
                getattr(lib, f"fake_torch_cuda_{name}_pool").argtypes = [
                    ctypes.c_int, ctypes.c_ulonglong, ctypes.c_ulonglong, *extra,
                    ctypes.c_char_p, ctypes.c_size_t]
            lib.fake_torch_cuda_current.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
            pool_args = [ctypes.c_int, ctypes.c_ulonglong, ctypes.c_ulonglong]
            lib.fake_torch_cuda_mempool_create.argtypes = pool_args + [
                ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
            lib.fake_torch_cuda_mempool_destroy.argtypes = pool_args + [ctypes.c_char_p,
                                                                       ctypes.c_size_t]
            lib.fake_torch_cuda_pool_use_count.argtypes = pool_args + [
                ctypes.POINTER(ctypes.c_int), ctypes.c_char_p, ctypes.c_size_t]
            lib.fake_torch_cuda_checkpoint.argtypes = pool_args + [
                ctypes.POINTER(ctypes.c_int), ctypes.c_char_p, ctypes.c_size_t]
            lib.fake_torch_cuda_restore.argtypes = [
                ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t,
                ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_void_p),
                ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t), ctypes.c_char_p,
                ctypes.c_size_t]
            lib.fake_torch_cuda_drop_restored.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
            lib.fake_torch_cuda_device_stats.argtypes = [
                ctypes.c_int, ctypes.POINTER(ctypes.c_int64), ctypes.c_char_p, ctypes.c_size_t]
            lib.fake_torch_cuda_reset_stats.argtypes = [ctypes.c_int, ctypes.c_int,
                                                        ctypes.c_char_p, ctypes.c_size_t]
            lib.fake_torch_cuda_memory_fraction.argtypes = [
                ctypes.c_int, ctypes.POINTER(ctypes.c_double), ctypes.c_char_p, ctypes.c_size_t]
            lib.fake_torch_cuda_set_frames.argtypes = [ctypes.c_char_p]
            lib.fake_torch_cuda_record_history.argtypes = [
                ctypes.c_int, ctypes.c_int, ctypes.c_size_t, ctypes.c_int, ctypes.c_char_p,
                ctypes.c_char_p, ctypes.c_size_t]
            lib.fake_torch_cuda_history_enabled.argtypes = [
                ctypes.POINTER(ctypes.c_int), ctypes.c_char_p, ctypes.c_size_t]
            lib.fake_torch_cuda_snapshot.argtypes = [
                ctypes.c_ulonglong, ctypes.c_ulonglong, ctypes.c_int, ctypes.c_char_p,
                ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t), ctypes.c_char_p,
                ctypes.c_size_t]
    return _cuda_lib[0]


def _cpp_current() -> bool:
    """Whether a C++ caller (mrctx's allocator helper) installed the
    allocator through changeCurrentAllocator."""
    lib = _torch_cuda()
    return lib is not None and lib.fake_torch_cuda_current(None, 0) == 1


def _cpp(name: str, *args):
    """Call fake_torch_cuda_NAME(*args, message, cap) and raise what the
    C++ threw, as PyTorch's bindings do."""
    message = ctypes.create_string_buffer(4096)
    code = getattr(_torch_cuda(), f"fake_torch_cuda_{name}")(*args, message, len(message))
    if code == 2:
        import torch
        raise torch.OutOfMemoryError(message.value.decode())
    if code != 0:
        raise RuntimeError(message.value.decode())


def _pluggable_current() -> bool:
    return _current is not None or _cpp_current()


def _cache_info(device: int) -> int:
    """What cuDNN's algorithm search asks the allocator
    (CUDACachingAllocator::cacheInfo); the stand-in's own allocator answers
    a fixed 1 GiB."""
    _cuda().init()
    if _current is not None:
        raise _pluggable("cacheInfo")
    if not _cpp_current():
        return 1 << 30
    largest = ctypes.c_size_t()
    _cpp("cache_info", device, ctypes.byref(largest))
    return largest.value


def _check_pool_live(device: int, pool: tuple, live: set) -> bool:
    """torch._C._cuda_checkPoolLiveAllocations."""
    if not _cpp_current():
        raise RuntimeError("the stand-in's checkPoolLiveAllocations needs an allocator "
                           "installed from C++")
    ptrs = (ctypes.c_void_p * max(len(live), 1))(*live)
    answer = ctypes.c_int()
    _cpp("check_pool_live", device, pool[0], pool[1], ptrs, len(live), ctypes.byref(answer))
    return bool(answer.value)


def _begin_pool(device: int, pool: tuple, stream=None) -> None:
    """beginAllocateToPool, as torch.cuda.graph calls it (the filter takes
    `stream`; None: every stream)."""
    if _current is not None:
        address = _current.hooks.get("set_begin_allocate_to_pool")
        raise RuntimeError("the stand-in calls private pools only through an allocator "
                           f"installed from C++ (hook at {address})")
    _cpp("begin_pool", device, pool[0], pool[1], stream)


def _end_pool(device: int, pool: tuple) -> None:
    _cpp("end_pool", device, pool[0], pool[1])


def _release_pool(device: int, pool: tuple) -> None:
    _cpp("release_pool", device, pool[0], pool[1])


def _mempool_create(device: int, pool: tuple, use_on_oom: bool = False,
                    no_split: bool = False) -> None:
    """torch.cuda.MemPool(use_on_oom=, no_split=)'s constructor:
    createOrIncrefPool, then setUseOnOOM / setNoSplit when asked."""
    _cpp("mempool_create", device, pool[0], pool[1], int(use_on_oom), int(no_split))


def _mempool_destroy(device: int, pool: tuple) -> None:
    """Its destructor (PyTorch 2.11): setUseOnOOM(false), releasePool,
    emptyCache(pool)."""
    _cpp("mempool_destroy", device, pool[0], pool[1])


def _pool_use_count(device: int, pool: tuple) -> int:
    count = ctypes.c_int()
    _cpp("pool_use_count", device, pool[0], pool[1], ctypes.byref(count))
    return count.value


def _checkpoint(device: int, pool: tuple) -> int:
    """torch._C._cuda_getCheckpointState: a handle to the saved state."""
    handle = ctypes.c_int()
    _cpp("checkpoint", device, pool[0], pool[1], ctypes.byref(handle))
    return handle.value


def _restore(device: int, handle: int) -> tuple:
    """setCheckpointPoolState: (pointers freed, pointers made live again);
    the stand-in holds the latter's DataPtrs until _drop_restored()."""
    freed = (ctypes.c_void_p * 256)()
    allocd = (ctypes.c_void_p * 256)()
    nf, na = ctypes.c_size_t(), ctypes.c_size_t()
    _cpp("restore", device, handle, freed, 256, ctypes.byref(nf), allocd, 256, ctypes.byref(na))
    for p in freed[:nf.value]:  # no longer PyTorch's allocations
        _live.pop(p, None)
    return list(freed[:nf.value]), list(allocd[:na.value])


def _drop_restored() -> None:
    _cpp("drop_restored")


def _forget(ptr: int) -> None:
    """A storage whose deleter the stand-in's caller took over."""
    _live.pop(ptr, None)


def _record_stream(ptr: int, stream) -> None:
    if _cpp_current():
        _cpp("record_stream", ptr, stream)


def _call_alloc(fn: int, nbytes: int, device: int, stream) -> int:
    """The allocation function, through the C++ part where there is one."""
    if not _catcher:
        folder = os.environ.get("MRCTX_FAKE_TORCH_LIB", "")
        path = os.path.join(folder, "libfake_torch_python.so")
        _catcher.append(ctypes.CDLL(path) if folder and os.path.exists(path) else None)
        if _catcher[0] is not None:
            _catcher[0].fake_torch_call_alloc.argtypes = [
                ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int, ctypes.c_void_p,
                ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_size_t]
    if _catcher[0] is None:
        return _ALLOC(fn)(nbytes, device, stream)
    out, message = ctypes.c_void_p(), ctypes.create_string_buffer(4096)
    code = _catcher[0].fake_torch_call_alloc(fn, nbytes, device, stream, ctypes.byref(out),
                                             message, len(message))
    if code == 2:
        import torch
        raise torch.OutOfMemoryError(message.value.decode())
    if code != 0:
        raise RuntimeError(message.value.decode())
    return out.value


def _hand_frames() -> None:
    """While history is on: what PyTorch's context recorder gathers, the
    Python frames that asked (the caller of torch.cuda.empty or free
    first), as "name (file:line)"."""
    if _history[0]:
        frames = traceback.extract_stack()[-4::-1]
        _torch_cuda().fake_torch_cuda_set_frames("\n".join(
            f"{f.name} ({f.filename}:{f.lineno})" for f in frames).encode())


def _allocate(nbytes: int, device: int, stream) -> int:
    if _current is None and _cpp_current():
        _hand_frames()
        out = ctypes.c_void_p()
        _cpp("alloc", nbytes, device, stream, ctypes.byref(out))
        _live[out.value] = (nbytes, device, stream)
        return out.value
    assert _current is not None, "the stand-in has no allocator of its own"
    ptr = _call_alloc(_current.alloc_fn, nbytes, device, stream)
    _live[ptr] = (nbytes, device, stream)
    return ptr


def _free(ptr: int) -> None:
    nbytes, device, stream = _live.pop(ptr)
    if _current is None and _cpp_current():
        _hand_frames()
        _cpp("free", ptr)
        return
    _FREE(_current.free_fn)(ptr, nbytes, device, stream)


def empty_cache() -> None:
    if _cuda().is_initialized() and _current is None and _cpp_current():
        _cpp("empty_cache")
    elif _cuda().is_initialized() and _current is not None:
        address = _current.hooks.get("set_reset_fn")
        if address:
            _RESET(address)()


def set_per_process_memory_fraction(fraction, device=None) -> None:
    _cuda().init()
    if device is None:
        device = _cuda().current_device()
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    if _current is None and _cpp_current():
        _cpp("set_fraction", fraction, device)
    elif _current is not None:
        address = _current.hooks.get("set_memory_fraction_fn")
        if address:
            _FRACTION(address)(fraction, device)


def get_per_process_memory_fraction(device=None) -> float:
    _cuda().init()
    if _current is None and _cpp_current():
        out = ctypes.c_double()
        _cpp("memory_fraction", _device_index(device), ctypes.byref(out))
        return out.value
    if _pluggable_current():
        raise _pluggable("getMemoryFraction")
    return 1.0


_history = [False]  # whether _allocate hands the C++ part the caller's frames
_WHEN = {None: 0, "state": 1, "alloc": 2, "all": 3}
_ACTIONS = ("alloc", "free_requested", "free_completed", "segment_alloc", "segment_free",
            "segment_map", "segment_unmap", "snapshot", "oom")


def _record_memory_history(enabled="all", context="all", stacks="all", max_entries=sys.maxsize,
                           device=None, clear_history=False, compile_context=False,
                           global_record_annotations=False, skip_actions=None) -> None:
    """PyTorch 2.11's: the current allocator's recordHistory (its pluggable
    allocator refuses); "state" keeps no trace, only live blocks' frames."""
    _cuda().init()
    if _current is not None:
        raise _pluggable("recordHistory")
    if not _cpp_current():
        return
    on = enabled is not None
    entries = 0 if enabled == "state" else min(max_entries, 2**63 - 1)
    _cpp("record_history", int(on), _WHEN[context] if on else 0, entries, int(clear_history),
         ",".join(skip_actions or ()).encode())
    flag = ctypes.c_int()
    _cpp("history_enabled", ctypes.byref(flag))
    _history[0] = bool(flag.value)


def _frames(text: str) -> list:
    frames = []
    for line in filter(None, text.split("\x1f")):
        name, _, where = line.rpartition(" (")
        filename, _, lineno = where.rstrip(")").rpartition(":")
        frames.append({"filename": filename, "line": int(lineno), "name": name})
    return frames


def _snapshot(device=None, mempool_id=(0, 0), include_traces=True) -> dict:
    """torch._C._cuda_memorySnapshot as a dict, with the keys PyTorch's
    conversion writes that mrctx's tests read."""
    _cuda().init()
    if _current is not None:
        raise _pluggable("snapshot")
    if not _cpp_current():
        return {"segments": [], "device_traces": []}
    needed = ctypes.c_size_t()
    _cpp("snapshot", mempool_id[0], mempool_id[1], int(include_traces), None, 0,
         ctypes.byref(needed))
    buffer = ctypes.create_string_buffer(needed.value + 4096)
    _cpp("snapshot", mempool_id[0], mempool_id[1], int(include_traces), buffer, len(buffer),
         ctypes.byref(needed))
    segments, traces = [], {}
    for line in buffer.value.decode().splitlines():
        head, _, frames = line.partition("|")
        f = head.split()
        if f[0] == "S":
            segments.append({"device": int(f[1]), "address": int(f[2]), "total_size": int(f[3]),
                             "requested_size": int(f[4]), "allocated_size": int(f[5]),
                             "active_size": int(f[6]), "stream": int(f[7], 16) if f[7] != "(nil)"
                             else 0, "segment_type": "large" if f[8] == "1" else "small",
                             "segment_pool_id": (int(f[9]), int(f[10])), "blocks": []})
        elif f[0] == "B":
            state = ("active_allocated" if f[3] == "1" else
                     "active_pending_free" if f[4] == "1" else "inactive")
            segments[-1]["blocks"].append({"size": int(f[1]), "requested_size": int(f[2]),
                                           "state": state, "frames": _frames(frames)})
        else:
            entry = {"action": _ACTIONS[int(f[2])], "addr": int(f[3]), "size": int(f[4]),
                     "stream": int(f[5], 16) if f[5] != "(nil)" else 0,
                     "frames": _frames(frames)}
            if entry["action"] == "oom":  # PyTorch's: the address is what was free
                entry["device_free"] = entry.pop("addr")
            traces.setdefault(int(f[1]), []).append(entry)
    for s in segments:  # a block's address: the segment's plus the sizes before it
        at = s["address"]
        for b in s["blocks"]:
            b["address"] = at
            at += b["size"]
    count = max(traces, default=-1) + 1
    return {"segments": segments, "device_traces": [traces.get(d, []) for d in range(count)]}


def memory_snapshot(mempool_id=None, include_traces=True) -> list:
    return _snapshot(mempool_id=mempool_id or (0, 0), include_traces=include_traces)["segments"]


_STAT_ARRAYS = ("allocation", "segment", "active", "inactive_split", "allocated_bytes",
                "reserved_bytes", "active_bytes", "inactive_split_bytes", "requested_bytes")


def _device_index(device) -> int:
    return _cuda().current_device() if device is None else int(device)


def memory_stats_as_nested_dict(device=None) -> dict:
    """PyTorch's: the current allocator's getDeviceStats as a nested dict
    (torch/csrc/cuda/Module.cpp's memoryStats); a C++ allocator (mrctx's
    helper) is asked, PyTorch's plain pluggable allocator refuses."""
    if not _cuda().is_initialized():
        return {}
    if _cpp_current():
        flat = (ctypes.c_int64 * 122)()
        _cpp("device_stats", _device_index(device), flat)
        values = iter(flat)

        def stat():
            return {k: next(values) for k in ("current", "peak", "allocated", "freed")}

        result = {name: {pool: stat() for pool in ("all", "small_pool", "large_pool")}
                  for name in _STAT_ARRAYS}
        result["oversize_allocations"] = stat()
        result["oversize_segments"] = stat()
        for name in ("num_alloc_retries", "num_ooms", "num_sync_all_streams",
                     "num_device_alloc", "num_device_free", "max_split_size"):
            result[name] = next(values)
        return result
    if _pluggable_current():
        raise _pluggable("getDeviceStats")
    return {"allocated_bytes": {"all": {"current": 0, "peak": 0, "allocated": 0, "freed": 0}}}


def memory_stats(device=None) -> dict:
    result = []

    def _recurse_add_to_result(prefix, obj):
        if isinstance(obj, dict):
            if len(prefix) > 0:
                prefix += "."
            for k, v in obj.items():
                _recurse_add_to_result(prefix + str(k), v)
        else:
            result.append((prefix, obj))

    _recurse_add_to_result("", memory_stats_as_nested_dict(device=device))
    result.sort()
    return collections.OrderedDict(result)


def reset_peak_memory_stats(device=None) -> None:
    if _cpp_current():
        _cpp("reset_stats", _device_index(device), 0)
    elif _pluggable_current():
        raise _pluggable("resetPeakStats")


def reset_accumulated_memory_stats(device=None) -> None:
    if _cpp_current():
        _cpp("reset_stats", _device_index(device), 1)
    elif _pluggable_current():
        raise _pluggable("resetAccumulatedStats")


def memory_allocated(device=None) -> int:
    return memory_stats(device=device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None) -> int:
    return memory_stats(device=device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None) -> int:
    return memory_stats(device=device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None) -> int:
    return memory_stats(device=device).get("reserved_bytes.all.peak", 0)

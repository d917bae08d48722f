"""``python -m mrctx`` and the ``mrctx`` script a wheel installs: the mrctx
command's verbs through the package.

    python -m mrctx VERB [ARGS...]     (info, resolve, snapshot, export,
                                        replay, plot, bench: man mrctx)
    python -m mrctx run SCRIPT [ARGS...] | run -m MODULE [ARGS...]

Every verb but ``run`` is the C command's: where the package carries it (a
wheel does, beside this file) the process becomes that command (execv),
so there is one implementation of each verb (``info`` first says which
libmrctx the package loads and why). Where it does not (a source
checkout on PYTHONPATH), info, resolve and snapshot fall back to the
re-implementations below, which print what the C command prints (``info``
first says which libmrctx was loaded and why); export, replay, plot and
bench say that they need the command. Exit status: 0 success, 1 failure,
2 bad usage, 3 (info) no driver or no device.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
from typing import Any, Callable, Optional, TextIO

from . import _lib
from ._errors import (ConfigError, Error, InvalidArgumentError, NoDeviceError, NoDriverError,
                      UnsupportedError)

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_UNAVAILABLE = 0, 1, 2, 3
PROG = "python -m mrctx"

_POOL_MAX = (1 << 64) - 1


def _bundled_tool() -> Optional[str]:
    """The C command a wheel carries next to the package, if any."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mrctx")
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


# The C command's verbs (its --help list). With the command beside the
# package, every one of them is the command's; without it, those in VERBS
# below fall back to this module, and the others are refused with a reason.
TOOL_VERBS = ("info", "resolve", "replay", "plot", "export", "snapshot", "bench")


def _exec_tool(tool: str, args: list[str]) -> None:
    """Become the C command (does not return). Python ignores SIGPIPE and
    an ignored signal stays ignored across execv: the command would see
    EPIPE and say "Broken pipe" under `mrctx snapshot FILE | head`, so the
    default action (a quiet end) comes back first."""
    sys.stdout.flush()
    sys.stderr.flush()
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    os.execv(tool, ["mrctx"] + args)


def _say_which_library() -> None:
    """`info`'s first line through the package: which libmrctx Python
    loads and why (the command's own lines follow; --json is the
    command's alone)."""
    try:
        sys.stdout.write(f"libmrctx: {_lib.library_path()} ({_lib.library_where()})\n")
    except Error as e:
        sys.stdout.write(f"libmrctx: not loaded: {e}\n")


def _usage(out: TextIO) -> None:
    tool = _bundled_tool()
    out.write(
        f"usage: {PROG} VERB [ARGS]\n"
        f"       {PROG} VERB --help\n"
        f"       {PROG} --version\n"
        "\n"
        "The mrctx command's verbs, through the Python package:\n"
        "  info       the CUDA driver, the devices and their memory pools\n"
        "  resolve    show what a context's tags and overrides resolve to\n"
        "  snapshot   show a snapshot file: who held the memory, by library and tag\n"
        "  export     write logs or snapshots for Perfetto or PyTorch's memory_viz\n"
        "  replay     replay an allocation log against resource specs\n"
        "  plot       draw memory in use over time from allocation logs as SVG\n"
        "  bench      time mrctx against the raw driver pools on a GPU\n"
        "  run        run a Python script or module with MRCTX_TORCH's switch, as\n"
        "             an installed package's mrctx-torch.pth does\n"
        + ("All but run are the mrctx command's, which this package carries.\n" if tool else
           "This install does not carry the mrctx command (a wheel does): info (which\n"
           "also says which libmrctx was loaded and why), resolve and snapshot are\n"
           "the package's own; export, replay, plot and bench need the command\n"
           "(build it: docs/packaging.md).\n")
        + "\n"
        "environment, read by the package:\n"
        "  MRCTX_LIBRARY         the libmrctx to load, and no other\n"
        "  MRCTX_BUILD_DIR       in a source checkout: the build directory to load it\n"
        "                        from (default build/)\n"
        "  MRCTX_TORCH=SPEC      PyTorch's CUDA memory on a tag of that spec from\n"
        "                        `import torch` on, no code change (installed package,\n"
        "                        or `run`)\n"
        "  MRCTX_TORCH_MEMORY    overrides for that context (library torch, tag memory)\n"
        "  MRCTX_TORCH_STRICT=1  a bad MRCTX_TORCH raises at `import torch` instead of\n"
        "                        a warning and PyTorch's own allocator\n"
        "  MRCTX_TORCH_TIMING=1  time PyTorch's calls into the tag (mrctx.torch.timing)\n"
        "  MRCTX_TORCH_ALLOC     the PyTorch shim to load (default: the package's)\n"
        "  MRCTX_TORCH_OOM_HELPER  0: out of memory under mrctx.torch is RuntimeError,\n"
        "                        not torch.OutOfMemoryError (no helper built); PATH:\n"
        "                        the helper to load (default: built at first use)\n"
        "  MRCTX_TORCH_ALLOCATOR_HELPER  0: PyTorch's plain pluggable allocator (no\n"
        "                        cacheInfo: cuDNN's benchmark raises); PATH: the\n"
        "                        helper to load (default: built at first use)\n"
        "  MRCTX_CUPY_ALLOC      mrctx.cupy's C pair to load (default: the package's)\n"
        "  MRCTX_NUMBA_MEMORY    overrides for Numba's context under\n"
        "                        NUMBA_CUDA_MEMORY_MANAGER=mrctx.numba (tags device,\n"
        "                        pinned); MRCTX_NUMBA_TAG, MRCTX_NUMBA_PINNED_TAG (or\n"
        "                        none) pick others\n"
        "read by the library in any program that uses it:\n"
        "  MRCTX_CUDA_DRIVER     the driver library to load instead of libcuda.so.1\n"
        "  MRCTX_DEBUG=1         check the size of every free in arena, fixed, bin\n"
        "                        and cache; refuse a wrong one\n"
        "  MRCTX_OOM_SNAPSHOT    write a snapshot there when an allocation through a\n"
        "                        context runs out of memory (%p: the process id)\n"
        "  MRCTX_STATS_AT_EXIT   stderr|PATH: at exit, every context's per-tag table\n"
        "                        there, live or destroyed (a snapshot for PATH.json)\n"
        "  MRCTX_VERBOSE=1       print each context's resolved table at creation\n"
        "  and each library's own variable (MYLIB_MEMORY) overriding its tags\n"
        "\n"
        "Exit status: 0 success, 1 failure, 2 bad usage, 3 (info) no driver or device.\n")


def _text(value: Optional[bytes]) -> str:
    return _lib.text(value)


def _last_error(library: ctypes.CDLL) -> str:
    return _text(library.mr_last_error())


def format_bytes(n: int) -> str:
    """A byte count for people, as the C command writes it ("16 GiB")."""
    if n < 1024:
        return f"{n} B"
    units = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")
    unit, value = 0, float(n)
    while value >= 1024.0 and unit < 6:
        value /= 1024.0
        unit += 1
    return f"{value:.0f} {units[unit]}" if n % (1 << (10 * unit)) == 0 else f"{value:.1f} {units[unit]}"


def _wants_help(args: list[str]) -> bool:
    return any(a in ("-h", "--help") for a in args)


# ---- info -------------------------------------------------------------------

_INFO_USAGE = f"""usage: {PROG} info [--json]

Say which libmrctx was loaded and why (MRCTX_LIBRARY, next to the package,
the install prefix, a source checkout's build directory, the system's
library path), then, as `mrctx info`: the CUDA driver's version, each device
(its total and free memory) and the driver's memory pools. Reading changes
no pool.

  --json   the same as one JSON object

Exit status: 0 shown, 1 a device or pool could not be read, 2 bad usage,
3 no driver or no device (one line says why).
"""


def _pool(library: ctypes.CDLL, which: int, device: int) -> dict:
    info = _lib.sized(_lib.PoolInfo)
    status = library.mr_driver_pool_get_info(which, device, ctypes.byref(info))
    if status != 0:
        return {"available": False, "status": status, "reason": _last_error(library)}
    return {"available": True, "kind": _lib.pool_kind_name(info.kind),
            "device": info.device, "is_default": bool(info.is_default),
            "is_current": bool(info.is_current),
            "release_threshold": "max" if info.release_threshold == _POOL_MAX
            else int(info.release_threshold),
            "reserved_bytes": int(info.reserved_bytes), "reserved_high": int(info.reserved_high),
            "used_bytes": int(info.used_bytes), "used_high": int(info.used_high)}


def _pool_failed(pool: dict) -> bool:
    # A device without such a pool is information, not a failure.
    return not pool["available"] and pool["status"] != UnsupportedError.status


def _pool_json(pool: dict) -> dict:
    return {k: v for k, v in pool.items() if k != "status"}


def _pool_usage(pool: dict) -> str:
    threshold = pool["release_threshold"]
    return (f"release threshold {threshold if threshold == 'max' else format_bytes(threshold)}, "
            f"reserved {format_bytes(pool['reserved_bytes'])} "
            f"(peak {format_bytes(pool['reserved_high'])}), used "
            f"{format_bytes(pool['used_bytes'])} (peak {format_bytes(pool['used_high'])})")


def _field(label: str, value: str) -> str:
    return f"  {label:<27} {value}"


def _pool_line(label: str, pool: dict) -> str:
    return _field(label, _pool_usage(pool) if pool["available"] else f"unavailable: {pool['reason']}")


def info(args: list[str], out: Optional[TextIO] = None, err: Optional[TextIO] = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    if _wants_help(args):
        out.write(_INFO_USAGE)
        return EXIT_OK
    as_json = False
    for arg in args:
        if arg == "--json":
            as_json = True
        else:
            err.write(f"{PROG} info: unknown argument '{arg}'\n")
            err.write(_INFO_USAGE)
            return EXIT_USAGE
    library = _lib.lib()
    where = {"library": _lib.library_path(), "library_from": _lib.library_where()}
    version = _text(library.mr_version())
    status = library.mr_driver_load()
    if status in (NoDriverError.status, NoDeviceError.status):
        if as_json:
            out.write(json.dumps({"mrctx": version, **where, "error": _last_error(library)}) + "\n")
        else:
            out.write(f"libmrctx: {where['library']} ({where['library_from']})\n")
            out.write(f"mrctx info: {_last_error(library)}\n")
        return EXIT_UNAVAILABLE
    driver, count = ctypes.c_int(0), ctypes.c_int(0)
    if status == 0:
        status = library.mr_driver_version(ctypes.byref(driver))
    if status == 0:
        status = library.mr_device_count(ctypes.byref(count))
    if status != 0:
        err.write(f"{PROG} info: {_last_error(library)}\n")
        return EXIT_FAILURE

    failed = False
    devices: list[dict[str, Any]] = []  # one JSON object per device
    for d in range(count.value):
        raw = _lib.sized(_lib.DeviceInfo)
        status = library.mr_device_get_info(d, ctypes.byref(raw))
        if status != 0:
            devices.append({"device": d, "available": False, "reason": _last_error(library)})
            failed = True
            continue
        current, default = _pool(library, 0, d), _pool(library, 1, d)
        failed |= _pool_failed(current) or _pool_failed(default)
        free, total = ctypes.c_uint64(0), ctypes.c_uint64(0)
        free_memory: Optional[int] = int(free.value) if library.mr_device_get_memory(
            d, ctypes.byref(free), ctypes.byref(total)) == 0 else None
        free_reason = _last_error(library) if free_memory is None else ""
        devices.append({"device": d, "available": True, "name": _text(raw.name),
                        "total_memory": int(raw.total_memory),
                        "compute_capability": f"{raw.compute_capability_major}."
                                              f"{raw.compute_capability_minor}",
                        "memory_pools": bool(raw.memory_pools_supported),
                        "host_memory_pools": bool(raw.host_memory_pools_supported),
                        "managed_memory": bool(raw.managed_memory),
                        "concurrent_managed_access": bool(raw.concurrent_managed_access),
                        "free_memory": free_memory, "free_reason": free_reason,
                        "current_pool": current, "default_pool": default})
    pinned, managed = _pool(library, 2, 0), _pool(library, 3, 0)
    failed |= _pool_failed(pinned) or _pool_failed(managed)

    if as_json:
        shown = []
        for entry in devices:
            dev = dict(entry)
            dev.pop("free_reason", None)
            for key in ("current_pool", "default_pool"):
                if key in dev:
                    dev[key] = _pool_json(dev[key])
            shown.append(dev)
        out.write(json.dumps({"mrctx": version, **where, "driver_version": driver.value,
                              "devices": shown, "pinned_default_pool": _pool_json(pinned),
                              "managed_default_pool": _pool_json(managed)}) + "\n")
        return EXIT_FAILURE if failed else EXIT_OK

    yes = {True: "yes", False: "no"}
    lines = [f"mrctx {version}",
             f"libmrctx: {where['library']} ({where['library_from']})",
             f"CUDA driver: {driver.value // 1000}.{(driver.value % 1000) // 10}",
             f"devices: {count.value}"]
    for dev in devices:
        lines.append("")
        if not dev["available"]:
            lines.append(f"device {dev['device']}: unavailable: {dev['reason']}")
            continue
        lines += [f"device {dev['device']}: {dev['name']}",
                  _field("total memory:", format_bytes(dev["total_memory"])),
                  _field("free memory:", format_bytes(dev["free_memory"])
                         if dev["free_memory"] is not None else "unavailable: " + dev["free_reason"]),
                  _field("compute capability:", dev["compute_capability"]),
                  _field("memory pools:", yes[dev["memory_pools"]]),
                  _field("host memory pools:", yes[dev["host_memory_pools"]]),
                  _field("managed memory:", yes[dev["managed_memory"]]),
                  _field("concurrent managed access:", yes[dev["concurrent_managed_access"]])]
        current = dev["current_pool"]
        if current["available"] and current["is_default"]:
            lines.append(_field("current pool:", "the default pool"))
        elif current["available"]:
            lines.append(_field("current pool:", "set by the application: " + _pool_usage(current)))
        else:
            lines.append(_pool_line("current pool:", current))
        lines.append(_pool_line("default pool:", dev["default_pool"]))
    lines += ["", "host pools:", _pool_line("pinned default pool:", pinned),
              _pool_line("managed default pool:", managed)]
    out.write("\n".join(lines) + "\n")
    return EXIT_FAILURE if failed else EXIT_OK


# ---- resolve ----------------------------------------------------------------

_RESOLVE_USAGE = f"""usage: {PROG} resolve --tag NAME=SPEC [--tag NAME=SPEC ...] [--env VAR]
                     [--config FILE] [--set TEXT] [--library NAME]

Resolve a context with these tags, as a library would, and show for each
tag and device the resource it resolves to and where its spec came from.
Nothing is built: no file is written (a log's file is left as it is), no
pool is created, no memory is taken. A log's file that creation would
refuse (its directory missing or not writable) is an error here too.

  --tag NAME=SPEC  a tag and its default spec (the library's choice)
  --env VAR        read overrides from the environment variable VAR
  --config FILE    read overrides from FILE (an error if it is missing)
  --set TEXT       override text, as the application would pass it
  --library NAME   the library's name in messages (default: resolve)
  -h, --help       show this help

Precedence, lowest first: --tag < --set < --config < --env.
Exit status: 0 resolved, 2 bad usage or a bad spec, 1 anything else.
"""


def resolve(args: list[str], out: Optional[TextIO] = None, err: Optional[TextIO] = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    if _wants_help(args):
        out.write(_RESOLVE_USAGE)
        return EXIT_OK
    tags: list[tuple[bytes, bytes]] = []
    values: dict[str, Optional[bytes]] = {"--env": None, "--config": None, "--set": None,
                                          "--library": b"resolve"}
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, value = arg.partition("=")
        if name not in ("--tag", *values):
            err.write(f"{PROG} resolve: unknown argument '{arg}'\n\n")
            err.write(_RESOLVE_USAGE)
            return EXIT_USAGE
        if not eq:
            if i + 1 >= len(args):
                err.write(f"{PROG} resolve: {name} needs a value\n")
                return EXIT_USAGE
            i += 1
            value = args[i]
        encoded = os.fsencode(value)
        if b"\0" in encoded:
            err.write(f"{PROG} resolve: {name}: a NUL byte ends a C string\n")
            return EXIT_USAGE
        if name == "--tag":
            tag, teq, spec = encoded.partition(b"=")
            if not teq or not tag:
                err.write(f"{PROG} resolve: --tag wants NAME=SPEC, got '{value}'\n")
                return EXIT_USAGE
            tags.append((tag, spec))
        else:
            values[name] = encoded
        i += 1
    if not tags:
        err.write(f"{PROG} resolve: give at least one --tag NAME=SPEC (see --help)\n")
        return EXIT_USAGE

    library = _lib.lib()
    array = (_lib.Tag * len(tags))(*[_lib.Tag(n, s) for n, s in tags])
    desc = _lib.sized(_lib.ContextDesc)
    desc.library = values["--library"]
    desc.tags = array
    desc.tag_count = len(tags)
    desc.env_var = values["--env"]
    desc.config_file = values["--config"]
    desc.overrides = values["--set"]
    desc.flags = 1  # MR_CONTEXT_DESCRIBE_ONLY: build nothing, take nothing
    handle = ctypes.c_void_p()
    status = library.mr_context_create(ctypes.byref(desc), ctypes.byref(handle))
    if status != 0:
        err.write(f"{PROG} resolve: {_last_error(library)}\n")
        bad_input = status in (ConfigError.status, InvalidArgumentError.status)
        return EXIT_USAGE if bad_input else EXIT_FAILURE
    try:
        return _resolve_table(library, handle, out, err)
    finally:
        library.mr_context_destroy(handle)


def _resolve_table(library: ctypes.CDLL, ctx: ctypes.c_void_p, out: TextIO, err: TextIO) -> int:
    """The library's table (mr_context_print_resolved), as the C command
    prints it, written to `out`."""
    status, table = _lib.write_to_string(lambda stream: library.mr_context_print_resolved(ctx, stream))
    if status != 0:
        err.write(f"{PROG} resolve: {_last_error(library)}\n")
        return EXIT_FAILURE
    out.write(table)
    return EXIT_OK


# ---- snapshot ---------------------------------------------------------------

_SNAPSHOT_USAGE = f"""usage: {PROG} snapshot FILE [FILE...] [--json] [--merged]

Show a snapshot of who held the memory -- a JSON file written by
mr_snapshot_write_json, by the out-of-memory dump (MRCTX_OOM_SNAPSHOT) or
by Python's mrctx.write_snapshot -- as tables: memory by library, tag and
device, caches, the largest live blocks, device memory, the driver pools,
as `mrctx snapshot` shows it (mrctx.read_snapshot(FILE) gives it as a dict).

Several files (one per process: the ranks of a torchrun job, the workers
of a Dask cluster) are merged into one view: memory by host, process
(rank and pid), device, library and tag, with totals per host and device
and overall (mrctx.merge_snapshots gives it as a dict). FILE - reads
standard input (once). A file larger than 256 MiB is refused.

  --json      one file: write it back as JSON (checked, in the canonical
              form); several: the merged view as JSON (schema
              mrctx-snapshot-merged)
  --merged    show even one file as the merged view
  -h, --help  show this help

Exit status: 0 shown, 1 a file cannot be read or is not a snapshot (the
message names it), 2 bad usage.
"""


def _snapshot_loader(path: str) -> "Callable[[], tuple[bytes, str]]":
    from ._snapshot import _SNAPSHOT_MAX

    def load() -> tuple[bytes, str]:
        if path == "-":
            return sys.stdin.buffer.read(_SNAPSHOT_MAX + 1), "standard input"
        try:
            with open(path, "rb") as f:
                return f.read(_SNAPSHOT_MAX + 1), path
        except OSError as e:
            raise _CannotOpen(path, e) from e
    return load


class _CannotOpen(Exception):
    def __init__(self, path: str, error: OSError):
        super().__init__(f"cannot open '{path}': {error.strerror or error}")


def snapshot(args: list[str], out: Optional[TextIO] = None, err: Optional[TextIO] = None) -> int:
    from ._snapshot import _merge_loaded

    out, err = out or sys.stdout, err or sys.stderr

    if _wants_help(args):
        out.write(_SNAPSHOT_USAGE)
        return EXIT_OK
    paths: list[str] = []
    as_json = merged = False
    for arg in args:  # options anywhere, as the command's getopt_long takes them
        if arg == "--json":
            as_json = True
        elif arg == "--merged":
            merged = True
        elif arg.startswith("-") and arg != "-":
            err.write(f"{PROG} snapshot: unknown option '{arg}' ({PROG} snapshot --help)\n")
            return EXIT_USAGE
        else:
            paths.append(arg)
    if not paths:
        err.write(f"{PROG} snapshot: which file? ({PROG} snapshot FILE...; --help says more)\n")
        return EXIT_USAGE
    if paths.count("-") > 1:
        err.write(f"{PROG} snapshot: standard input (-) can be read once only\n")
        return EXIT_USAGE
    kind = "merged_" if merged or len(paths) > 1 else ""
    writer = f"mr_snapshot_write_{kind}{'json' if as_json else 'text'}"
    try:
        text = _merge_loaded([_snapshot_loader(path) for path in paths], writer)
    except Error as e:  # not a snapshot (named where), or no libmrctx
        err.write(f"{PROG} snapshot: {str(e).removeprefix('mrctx: ')}\n")
        return EXIT_FAILURE
    except _CannotOpen as e:
        err.write(f"{PROG} snapshot: {e}\n")
        return EXIT_FAILURE
    out.write(text)
    return EXIT_OK


# ---- run --------------------------------------------------------------------

_RUN_USAGE = f"""usage: {PROG} run SCRIPT [ARGS...]
       {PROG} run -m MODULE [ARGS...]

Run a Python script (or module, as python -m does) in this interpreter with
the MRCTX_TORCH switch installed, as the mrctx-torch.pth of an installed
package does at every start: with MRCTX_TORCH=SPEC, right after the program
imports torch, PyTorch allocates through the tag "memory" of a context
"torch" whose default spec is SPEC (docs/integrations.md, "PyTorch"). For a
checkout that is not installed (a .pth is read only in site directories).
The exit status is the program's.
"""


def run(args: list[str], out: Optional[TextIO] = None, err: Optional[TextIO] = None) -> int:
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    if args[:1] in (["-h"], ["--help"]):
        out.write(_RUN_USAGE)
        return EXIT_OK
    if not args or (args[0] == "-m" and len(args) < 2):
        err.write(_RUN_USAGE)
        return EXIT_USAGE
    import runpy

    import _mrctx_torch_env
    _mrctx_torch_env.install()
    if args[0] == "-m":
        sys.argv = args[1:]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(args)
        sys.path.insert(0, os.path.dirname(os.path.abspath(args[0])))
        runpy.run_path(args[0], run_name="__main__")
    return EXIT_OK


# ---- the command ------------------------------------------------------------

VERBS: dict[str, Callable[..., int]] = {"info": info, "resolve": resolve, "snapshot": snapshot,
                                        "run": run}


def main(argv: Optional[list[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        _usage(sys.stderr)
        return EXIT_USAGE
    first = args[0]
    if first in ("-h", "--help") or (first == "help" and len(args) == 1):
        _usage(sys.stdout)
        return EXIT_OK
    if first == "--version":
        try:
            print(f"mrctx {_lib.text(_lib.lib().mr_version())}")
        except Error as e:
            sys.stderr.write(f"{e}\n")
            return EXIT_FAILURE
        return EXIT_OK
    if first == "help":
        first, args = args[1], [args[1], "--help"]
    if first.startswith("-"):
        sys.stderr.write(f"{PROG}: unknown option '{first}' ({PROG} --help lists the verbs)\n")
        return EXIT_USAGE
    tool = _bundled_tool()
    if first in TOOL_VERBS and tool is not None:
        if first == "info" and not any(a.startswith("-") for a in args[1:]):
            _say_which_library()
        _exec_tool(tool, args)
    verb = VERBS.get(first)
    if verb is None:
        if first in TOOL_VERBS:
            sys.stderr.write(f"{PROG}: {first} is a verb of the mrctx command, which this "
                             "install does not carry (a wheel does; or build it: "
                             "docs/packaging.md)\n")
            return EXIT_USAGE
        sys.stderr.write(f"{PROG}: unknown verb '{first}' ({PROG} --help lists them)\n")
        return EXIT_USAGE
    try:
        return verb(args[1:])
    except Error as e:  # the library could not be loaded, and the like
        sys.stderr.write(f"{e}\n")
        return EXIT_FAILURE


def tool_main() -> int:
    """The ``mrctx`` command a wheel installs: the C command it carries
    (every verb), or, where the wheel has none, this module's verbs."""
    tool = _bundled_tool()
    if tool is not None and sys.argv[1:2] != ["run"]:
        _exec_tool(tool, sys.argv[1:])
    return main()


if __name__ == "__main__":
    sys.exit(main())

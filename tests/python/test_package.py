"""The package as a user meets it: which libmrctx it loads (the rule is in
mrctx/_lib.py and docs/packaging.md), ``python -m mrctx`` against the C
command, and reading a snapshot file back (mrctx.read_snapshot).

Run by unit.python.package (``-k "not fake"``) and fake.python.package
(``-k fake``, over the fake driver). MRCTX_LIBRARY names this build's
libmrctx; MRCTX_TEST_TOOL its mrctx command, where it was built.
"""

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mrctx

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent.parent
OOM_DUMP = SOURCE / "tests" / "tools" / "snapshot-oom.json"
LIBRARY = os.environ["MRCTX_LIBRARY"]
SONAME = "libmrctx.so.0.2"
TOOL = os.environ.get("MRCTX_TEST_TOOL")
NO_DRIVER = "/nonexistent/libcuda-for-unit-tests.so"

needs_tool = pytest.mark.skipif(not TOOL, reason="the mrctx command was not built")


def run(args, env=None, pythonpath=None, cwd="/"):
    """python ARGS in a fresh process, MRCTX_LIBRARY unset unless given."""
    merged = {k: v for k, v in os.environ.items()
              if k not in ("MRCTX_LIBRARY", "MRCTX_BUILD_DIR", "PYTHONPATH")}
    merged["PYTHONPATH"] = str(pythonpath or SOURCE / "python")
    merged.update(env or {})
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=merged,
                          cwd=cwd, timeout=120)


def run_tool(args, env=None):
    return subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **(env or {})))


LOADED = "import mrctx, mrctx._lib as l; print(mrctx.library_path()); print(l.library_where())"


def checkout(tmp_path, builds):
    """A copy of the package in a tree that looks like a checkout, with a
    copy of libmrctx in each build directory named (the last the newest)."""
    repo = tmp_path / "repo"
    shutil.copytree(SOURCE / "python" / "mrctx", repo / "python" / "mrctx",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (repo / "meson.build").write_text("project('mrctx')\n")
    (repo / "python" / "meson.build").write_text("\n")
    for age, build in enumerate(builds):
        lib = repo / build / "lib" / SONAME
        lib.parent.mkdir(parents=True)
        shutil.copy(LIBRARY, lib)
        os.utime(lib, (1_000_000_000 + age * 1000, 1_000_000_000 + age * 1000))
    return repo


# ---- which libmrctx ---------------------------------------------------------

def test_no_shared_module_shadows_a_python_module():
    """A C module installed beside the package must not share a name with
    one of its .py modules: `from . import _frames` imports _frames.so
    before _frames.py (extension modules come first in the import
    system's search), and a ctypes module has no PyInit, so the installed
    package failed to import (the build tree, where the .so files sit in
    build/python, did not show it)."""
    import re
    meson = (SOURCE / "python" / "meson.build").read_text()
    shared = set(re.findall(r"shared_module\('([A-Za-z0-9_]+)'", meson))
    assert shared, "python/meson.build names no shared_module"
    python = {p.stem for p in (SOURCE / "python" / "mrctx").glob("*.py")}
    assert not shared & python, f"C modules named like Python modules: {sorted(shared & python)}"


def test_checkout_loads_build_not_the_newest(tmp_path):
    """A checkout with build/ and a newer build-docs/ loads build/."""
    repo = checkout(tmp_path, ["build", "build-docs"])
    p = run(["-c", LOADED], pythonpath=repo / "python")
    assert p.returncode == 0, p.stderr
    path, where = p.stdout.splitlines()
    assert path == str(repo / "build" / "lib" / SONAME)
    assert "build/" in where and "MRCTX_BUILD_DIR" in where


def test_checkout_build_dir_variable(tmp_path):
    repo = checkout(tmp_path, ["build", "build-docs", "build-other"])
    for value, chosen in (("build-docs", repo / "build-docs"),
                          (str(repo / "build-other"), repo / "build-other")):
        p = run(["-c", LOADED], env={"MRCTX_BUILD_DIR": value}, pythonpath=repo / "python")
        assert p.returncode == 0, p.stderr
        path, where = p.stdout.splitlines()
        assert path == str(chosen / "lib" / SONAME)
        assert where.endswith("MRCTX_BUILD_DIR=" + value)


def test_checkout_without_its_build_says_so(tmp_path):
    """No build/: an error naming what was tried and how to fix it; the
    other build directory and the system's copy are not taken instead."""
    repo = checkout(tmp_path, ["build-docs"])
    p = run(["-c", "import mrctx\ntry:\n mrctx.version()\nexcept mrctx.LibraryNotFoundError as e:"
                   "\n print('missing:', e)"], pythonpath=repo / "python")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("missing:"), p.stdout
    assert str(repo / "build" / "lib" / SONAME) in p.stdout
    assert "meson setup build" in p.stdout and "MRCTX_BUILD_DIR" in p.stdout
    assert "build-docs" not in p.stdout


def test_library_variable_wins(tmp_path):
    repo = checkout(tmp_path, ["build"])
    p = run(["-c", LOADED], env={"MRCTX_LIBRARY": LIBRARY, "MRCTX_BUILD_DIR": "nowhere"},
            pythonpath=repo / "python")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [LIBRARY, "MRCTX_LIBRARY"]


def test_installed_loads_next_to_the_package(tmp_path):
    """A wheel's layout: libmrctx.so.0.2 beside the package's files."""
    site = tmp_path / "site"
    shutil.copytree(SOURCE / "python" / "mrctx", site / "mrctx",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(LIBRARY, site / "mrctx" / SONAME)
    p = run(["-c", LOADED], pythonpath=site)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [str(site / "mrctx" / SONAME), "next to the package"]
    p = run(["-m", "mrctx", "info"], env={"MRCTX_CUDA_DRIVER": NO_DRIVER}, pythonpath=site)
    assert p.returncode == 3, p.stdout + p.stderr
    assert p.stdout.splitlines()[0] == f"libmrctx: {site / 'mrctx' / SONAME} (next to the package)"


# ---- python -m mrctx ----------------------------------------------------------

def test_info_without_a_driver():
    env = {"MRCTX_LIBRARY": LIBRARY, "MRCTX_CUDA_DRIVER": NO_DRIVER}
    p = run(["-m", "mrctx", "info"], env=env)
    assert p.returncode == 3 and p.stderr == "", p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 2 and lines[0] == f"libmrctx: {LIBRARY} (MRCTX_LIBRARY)", p.stdout
    # (A build without the toolkit's headers says it was built without CUDA.)
    assert lines[1].startswith("mrctx info: ") and ("driver" in lines[1] or "CUDA" in lines[1])
    p = run(["-m", "mrctx", "info", "--json"], env=env)
    info = json.loads(p.stdout)
    assert p.returncode == 3 and info["library"] == LIBRARY and info["error"] in lines[1]
    assert info["library_from"] == "MRCTX_LIBRARY"


def main(args, capsys):
    """python -m mrctx ARGS in this process: (exit status, stdout, stderr)."""
    from mrctx.__main__ import main as command

    capsys.readouterr()
    status = command(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_usage(capsys):
    status, out, err = main([], capsys)
    assert status == 2 and "usage: python -m mrctx VERB" in err
    for args in (["--help"], ["help"]):
        status, out, err = main(args, capsys)
        assert status == 0 and "usage: python -m mrctx VERB" in out
        assert "MRCTX_BUILD_DIR" in out and "MRCTX_LIBRARY" in out
    for verb in ("info", "resolve", "snapshot"):
        for args in ([verb, "--help"], ["help", verb]):
            status, out, err = main(args, capsys)
            assert status == 0 and out.startswith(f"usage: python -m mrctx {verb}")
    status, out, err = main(["--version"], capsys)
    assert status == 0 and out == f"mrctx {mrctx.version()}\n"
    for args, message in ((["frobnicate"], "unknown verb 'frobnicate'"),
                          (["--bogus"], "unknown option '--bogus'"),
                          (["info", "--bogus"], "unknown argument '--bogus'")):
        status, out, err = main(args, capsys)
        assert status == 2 and message in err and out == "", err
    # export, replay, plot and bench are the C command's; without it, a clear refusal.
    for verb in ("export", "replay", "plot", "bench"):
        status, out, err = main([verb, "x.csv"], capsys)
        assert status == 2 and f"{verb} is a verb of the mrctx command" in err


def test_usage_lists_every_variable(capsys):
    """Every MRCTX_ variable the package reads (a quoted name in its
    sources) is in --help, with the library's own."""
    package = HERE.parent.parent / "python"
    read = set()
    for source in list((package / "mrctx").glob("*.py")) + list(package.glob("*.py")):
        read |= set(re.findall(r"[\"'](MRCTX_[A-Z0-9_]+)[\"']", source.read_text()))
    assert {"MRCTX_TORCH", "MRCTX_LIBRARY", "MRCTX_NUMBA_MEMORY"} <= read, read
    status, out, err = main(["--help"], capsys)
    library = {"MRCTX_CUDA_DRIVER", "MRCTX_DEBUG", "MRCTX_OOM_SNAPSHOT", "MRCTX_VERBOSE"}
    missing = sorted(name for name in read | library if not re.search(rf"\b{name}\b", out))
    assert status == 0 and not missing, missing


def test_without_a_library():
    p = run(["-m", "mrctx", "snapshot", str(OOM_DUMP)], env={"MRCTX_LIBRARY": "/nonexistent/x.so"})
    assert p.returncode == 1 and "could not load libmrctx" in p.stderr and "/nonexistent/x.so" in p.stderr


RESOLVE_CASES = [
    ["--tag", "temp=cache(device)", "--tag", "result=device", "--set", "temp@5=host"],
    ["--tag", "t=host", "--env", "H8_TEST_MEMORY", "--library", "mylib"],
    ["--tag", "t=host", "--library", "my\x1b[2Jlib"],
    ["--tag=t=log(host, file=/nonexistent/dir/x.csv)", "--set=t=stats(host)"],
    ["--tag", "a=bogus("],
    ["--tag", "a=host", "--config", "/nonexistent/mrctx.conf"],
    ["--tag", "noequals"],
    ["--tag"],
    [],
    ["--frob"],
]


def compare_with_tool(args, env, capsys, monkeypatch):
    """The C command and python -m mrctx (in this process) print the same:
    for resolve, the library's one table (mr_context_print_resolved)."""
    c = run_tool(args, env=env)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    status, out, err = main(args, capsys)
    assert (status, out) == (c.returncode, c.stdout), (args, out, c.stdout, err)
    assert err == c.stderr.replace("mrctx ", "python -m mrctx ", 1).replace(
        "usage: mrctx", "usage: python -m mrctx").replace("(mrctx snapshot", "(python -m mrctx snapshot"), \
        (args, err, c.stderr)


@needs_tool
@pytest.mark.parametrize("args", RESOLVE_CASES)
def test_resolve_as_the_command(args, capsys, monkeypatch):
    compare_with_tool(["resolve", *args], {"H8_TEST_MEMORY": "t=device\nt@2=pinned"},
                      capsys, monkeypatch)


def test_resolve_is_the_library_table(capsys):
    """python -m mrctx resolve prints the library's table: the caller's
    names escaped as mr_context_print_resolved escapes them, to the given
    stream."""
    status, out, err = main(["resolve", "--tag", "t=host", "--library", "my\x1b[2Jlib"], capsys)
    assert (status, err) == (0, "")
    assert out == ("my\\x1b[2Jlib: 1 tag, 1 device\n\n"
                   "tag  device  resource  source\n"
                   "t    0       host      default\n"), out
    stream = io.StringIO()
    from mrctx.__main__ import resolve
    assert resolve(["--tag", "t=host"], out=stream) == 0
    assert stream.getvalue().startswith("resolve: 1 tag, 1 device\n"), stream.getvalue()


@needs_tool
@pytest.mark.parametrize("args", [[str(OOM_DUMP)], [str(OOM_DUMP), "--json"],
                                  [str(SOURCE / "README.md")], ["/nonexistent/dump.json"],
                                  [], ["a", "b"], ["--frob"], [str(OOM_DUMP), str(OOM_DUMP)],
                                  ["--json", str(OOM_DUMP), str(OOM_DUMP)],
                                  [str(OOM_DUMP), "--merged"], ["-", "-"],
                                  [str(OOM_DUMP), str(SOURCE / "README.md")]])
def test_snapshot_as_the_command(args, capsys, monkeypatch):
    compare_with_tool(["snapshot", *args], {}, capsys, monkeypatch)


def test_snapshot_from_standard_input():
    merged = dict(os.environ, PYTHONPATH=str(SOURCE / "python"), MRCTX_LIBRARY=LIBRARY)
    with open(OOM_DUMP, "rb") as dump:
        p = subprocess.run([sys.executable, "-m", "mrctx", "snapshot", "-"], stdin=dump,
                           capture_output=True, text=True, env=merged, timeout=120)
    assert p.returncode == 0 and p.stdout == mrctx._snapshot.read_snapshot_text(OOM_DUMP)


# ---- python -m mrctx with the command beside the package (a wheel's layout) ----

def with_tool(tmp_path):
    """A copy of the package with the built mrctx command beside it, as a
    wheel carries it (a link: the command finds its libmrctx by run path)."""
    site = tmp_path / "site"
    shutil.copytree(SOURCE / "python" / "mrctx", site / "mrctx",
                    ignore=shutil.ignore_patterns("__pycache__"))
    os.symlink(TOOL, site / "mrctx" / "mrctx")
    return site


def tool_verbs():
    """The verbs `mrctx --help` lists."""
    out = run_tool(["--help"]).stdout
    block = out.split("verbs:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines() if line.startswith("  ")]


@needs_tool
def test_every_verb_of_the_command_is_forwarded(tmp_path):
    """Every verb of the C command's --help is accepted by python -m mrctx
    and is the command's own (its help, word for word); without the command
    each is either the package's fallback or refused with the reason."""
    verbs = tool_verbs()
    # bench only where the command was built with CUDA (not in a -Dcuda=disabled build).
    assert {"info", "resolve", "snapshot", "export", "replay", "plot"} <= set(verbs)
    site = with_tool(tmp_path)
    for verb in verbs:
        c = run_tool([verb, "--help"])
        p = run(["-m", "mrctx", verb, "--help"], env={"MRCTX_LIBRARY": LIBRARY}, pythonpath=site)
        assert (p.returncode, p.stdout) == (c.returncode, c.stdout), (verb, p.stderr)
        assert "unknown verb" not in p.stderr
        p = run(["-m", "mrctx", verb, "--help"], env={"MRCTX_LIBRARY": LIBRARY})
        assert "unknown verb" not in p.stderr, (verb, p.stderr)
        assert p.returncode == 0 or "a verb of the mrctx command" in p.stderr, (verb, p.stderr)


@needs_tool
def test_forwarded_verb_ends_quietly_on_a_closed_pipe(tmp_path):
    """`mrctx snapshot FILE | head` through the package: the command dies of
    SIGPIPE, as it does from a shell, instead of saying "Broken pipe"."""
    import signal

    site = with_tool(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=str(site), MRCTX_LIBRARY=LIBRARY)
    script = ("import sys; from mrctx.__main__ import tool_main; "
              f"sys.argv = ['mrctx', 'snapshot', {str(OOM_DUMP)!r}]; sys.exit(tool_main())")
    for entry in (["-m", "mrctx", "snapshot", str(OOM_DUMP)], ["-c", script]):  # pip's script
        read, write = os.pipe()
        os.close(read)  # the reader has left before anything is written
        try:
            p = subprocess.run([sys.executable, *entry], stdout=write, stderr=subprocess.PIPE,
                               text=True, env=env, timeout=120)
        finally:
            os.close(write)
        assert "Broken pipe" not in p.stderr and p.stderr == "", (entry, p.stderr)
        assert p.returncode == -signal.SIGPIPE, (entry, p.returncode, p.stderr)


# ---- read_snapshot -------------------------------------------------------------

def test_read_snapshot_of_the_oom_dump():
    dump = mrctx.read_snapshot(OOM_DUMP)
    assert dump["schema"] == "mrctx-snapshot" and dump["version"] == 1
    assert dump["out_of_memory"]["tag"] == "results"
    # The canonical form: the same as the file read as JSON, whatever its spacing.
    with open(OOM_DUMP, encoding="utf-8") as f:
        assert dump == json.load(f)
    assert mrctx.read_snapshot(str(OOM_DUMP).encode()) == dump


def test_read_snapshot_of_write_snapshot(tmp_path, library_name):
    path = tmp_path / "now.json"
    with mrctx.Context(library_name, {"scratch": "host"}) as ctx:
        r = ctx.get_resource("scratch", 0)
        p = r.allocate(4096)
        mrctx.write_snapshot(path)
        r.deallocate(p, 4096)
    read = mrctx.read_snapshot(path)
    ours = [c for c in read["contexts"] if c["library"] == library_name]
    assert len(ours) == 1
    assert ours[0]["tags"][0]["devices"][0]["stats"]["current_bytes"] == 4096


def test_read_snapshot_errors(tmp_path):
    with pytest.raises(mrctx.InvalidArgumentError) as info:
        mrctx.read_snapshot(SOURCE / "README.md")
    assert str(info.value).startswith(f"mrctx: {SOURCE / 'README.md'}: ")
    assert "line 1, column 1" in str(info.value)
    assert isinstance(info.value, ValueError)
    other = tmp_path / "other.json"
    other.write_text('{"schema": "something-else", "version": 1}')
    with pytest.raises(mrctx.InvalidArgumentError) as info:
        mrctx.read_snapshot(other)
    assert "schema" in str(info.value)
    with pytest.raises(FileNotFoundError):
        mrctx.read_snapshot(tmp_path / "missing.json")
    with pytest.raises(mrctx.ArgumentTypeError):
        mrctx.read_snapshot(42)
    with pytest.raises(mrctx.ArgumentError):
        mrctx.read_snapshot("a\0b")


# ---- over the fake driver ---------------------------------------------------------

fake = pytest.mark.skipif(not os.path.isfile(os.environ.get("MRCTX_CUDA_DRIVER", "")),
                          reason="MRCTX_CUDA_DRIVER names no driver (the fake suite sets it)")


@fake
@needs_tool
def test_fake_info_as_the_command():
    driver = {"MRCTX_CUDA_DRIVER": os.environ["MRCTX_CUDA_DRIVER"]}
    for extra in ({}, {"FAKECUDA_DEVICES": "2"}, {"FAKECUDA_DEVICES": "0"}):
        c = run_tool(["info"], env={**driver, **extra})
        p = run(["-m", "mrctx", "info"], env={**driver, **extra, "MRCTX_LIBRARY": LIBRARY})
        lines = p.stdout.splitlines(keepends=True)
        where = f"libmrctx: {LIBRARY} (MRCTX_LIBRARY)\n"
        assert where in lines, p.stdout
        lines.remove(where)
        assert (p.returncode, "".join(lines), p.stderr) == (c.returncode, c.stdout, c.stderr), extra
    c = run_tool(["info", "--json"], env=driver)
    p = run(["-m", "mrctx", "info", "--json"], env={**driver, "MRCTX_LIBRARY": LIBRARY})
    ours, theirs = json.loads(p.stdout), json.loads(c.stdout)
    assert ours.pop("library") == LIBRARY and ours.pop("library_from") == "MRCTX_LIBRARY"
    assert (p.returncode, ours) == (c.returncode, theirs)


@fake
@needs_tool
def test_fake_resolve_as_the_command(capsys, monkeypatch):
    compare_with_tool(["resolve", "--tag", "t=cache(device)", "--env", "H8_TEST_MEMORY"],
                      {"H8_TEST_MEMORY": "t=device\nt@2=pinned\nt@9=managed"}, capsys, monkeypatch)


def test_every_module_is_installed():
    """python/meson.build installs every module of the package: a module it
    leaves out is missing from `meson install`, `pip install .` and the
    wheel (tools/dev/build-wheel), though the tests here, run from the source
    tree, would pass."""
    listed = set(re.findall(r"'mrctx/([A-Za-z0-9_]+\.py)'",
                         (SOURCE / "python" / "meson.build").read_text()))
    present = {p.name for p in (SOURCE / "python" / "mrctx").glob("*.py")}
    assert present - listed == set(), "not in python/meson.build's install_sources"
    assert listed - present == set(), "in python/meson.build but not in python/mrctx"


def test_the_package_ships_py_typed(tmp_path):
    """mrctx is typed (PEP 561): python/mrctx/py.typed is installed by
    python/meson.build, listed among the installed files, and packed into
    the wheel by tools/dev/mrctx_wheel.py (from a stage laid out as `meson
    install` lays it out)."""
    import importlib.util

    assert (SOURCE / "python" / "mrctx" / "py.typed").is_file()
    assert "'mrctx/py.typed'" in (SOURCE / "python" / "meson.build").read_text()
    installed = (SOURCE / "tests" / "consumers" / "installed-files.txt").read_text().split("\n")
    assert "lib/python3/dist-packages/mrctx/py.typed" in installed
    spec = importlib.util.spec_from_file_location("mrctx_wheel",
                                                  SOURCE / "tools" / "dev" / "mrctx_wheel.py")
    wheel = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(wheel)
    site = tmp_path / "lib" / "python3" / "dist-packages"
    (site / "mrctx").mkdir(parents=True)
    for name in ("mrctx/__init__.py", "mrctx/py.typed", "_mrctx_torch_env.py",
                 "mrctx-torch.pth"):
        (site / name).write_text("")
    (tmp_path / "lib" / "libmrctx.so.0.2.0").write_text("")
    packed = [name for name, _ in wheel.runtime_files(tmp_path, "0.2")]
    assert "mrctx/py.typed" in packed

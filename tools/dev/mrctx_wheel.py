"""mrctx_wheel: builds the Python package's wheel; also the PEP 517 build
backend of pyproject.toml, so ``pip install .`` needs no build backend from
PyPI (no meson-python): only Meson, Ninja and a C compiler (and a C++ one
for the PyTorch shim) on PATH.

    tools/dev/build-wheel [--out DIR] [--build-dir DIR] [-DOPTION=VALUE ...]

The wheel holds what the package needs at run time and nothing else:

    mrctx/*.py                the package (what python/meson.build installs)
    mrctx/py.typed            the package's type hints are to be used (PEP 561)
    mrctx/libmrctx.so.0.2     the library, under its SONAME
    mrctx/_cupy_alloc.so      mrctx.cupy's allocation pair (C, for CuPy's CFunctionAllocator)
    mrctx/_dlpack.so          mrctx.Buffer's DLPack capsules (C, loaded by ctypes)
    mrctx/_callsites.so       Python call sites for track(stacks=N) (C, loaded by ctypes)
    mrctx/_torch_alloc.so     the PyTorch shim (where a C++ compiler was found)
    _mrctx_torch_env.py,      MRCTX_TORCH's switch (docs/integrations.md), beside
    mrctx-torch.pth           the package, where site reads .pth files
    mrctx/mrctx               the mrctx command (C), run by the `mrctx` script
    mrctx-V.dist-info/        METADATA, WHEEL, RECORD, entry_points.txt, LICENSE

no headers, pkg-config or CMake files, static library or man pages. Every
binary finds libmrctx beside it (RUNPATH $ORIGIN). The package is ctypes and
the binaries do not link libpython, so the tag is py3-none-PLATFORM: one
wheel installs into any CPython >= 3.9 of that platform. PLATFORM is the
manylinux_2_X_ARCH its binaries truly meet (tools/dev/wheel_policy.py reads
the glibc and libstdc++ symbol versions they need, and tools/dev/check-wheel
checks a built wheel's tag against them): the glibc of the machine it is built on
sets X only as far as the binaries use symbols of that glibc.
"""

from __future__ import annotations

import base64
import csv
import glob
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Iterable, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
import wheel_policy  # noqa: E402  (tools/dev/, beside this file)

SOURCE = Path(__file__).resolve().parent.parent.parent

# The Meson options of the wheel's build: the library (shared only), the
# command, the package and its shim; nothing else. $ORIGIN: each binary
# finds libmrctx.so.0.2 in its own directory, where the wheel puts them all.
MESON_OPTIONS = [
    "--buildtype=release",
    "--prefix=/usr/local",
    "--libdir=lib",
    "-Ddefault_library=shared",
    "-Dpython=enabled",
    "-Dtools=enabled",
    "-Dtests=disabled",
    "-Dfuzz=disabled",
    "-Dman=disabled",
    "-Ddocs=disabled",
    "-Dbench_cub=disabled",
    "-Dbench_torch=disabled",
    "-Dc_link_args=-Wl,-rpath,$ORIGIN",
    "-Dcpp_link_args=-Wl,-rpath,$ORIGIN",
]
INSTALL_TAGS = "runtime,python-runtime"


class BuildError(RuntimeError):
    pass


def _say(message: str) -> None:
    print(f"mrctx_wheel: {message}", file=sys.stderr, flush=True)


# ---- the project's metadata ---------------------------------------------------

def _project_table() -> dict:
    """pyproject.toml's [project] table (tomllib where Python has it, else
    the simple `key = "value"` lines this project's table is made of)."""
    text = (SOURCE / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib  # Python 3.11+

        return tomllib.loads(text)["project"]
    except ImportError:
        pass
    table: dict = {}
    section = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]").strip()
        elif section == "project" and "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            value = value.strip()
            m = re.fullmatch(r'"([^"]*)"', value)
            if m:
                table[key.strip()] = m.group(1)
            m = re.fullmatch(r'\{\s*text\s*=\s*"([^"]*)"\s*\}', value)
            if m:
                table[key.strip()] = {"text": m.group(1)}
    return table


def _meson_version() -> str:
    m = re.search(r"version:\s*'([^']+)'", (SOURCE / "meson.build").read_text(encoding="utf-8"))
    if not m:
        raise BuildError("meson.build has no version: '...' in project()")
    return m.group(1)


def _metadata() -> tuple[str, str, str]:
    """(name, version, METADATA text). The version is meson.build's;
    pyproject.toml must say the same."""
    project = _project_table()
    version = _meson_version()
    if project.get("version") != version:
        raise BuildError(f"pyproject.toml says version {project.get('version')!r}, "
                         f"meson.build {version!r}: make them the same")
    name = project["name"]
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {name}",
        f"Version: {version}",
        f"Summary: {project.get('description', '')}",
        f"Requires-Python: {project.get('requires-python', '>=3.9')}",
        f"License: {project.get('license', {}).get('text', '')}",
        "Description-Content-Type: text/markdown",
    ]
    readme = (SOURCE / "README.md").read_text(encoding="utf-8")
    return name, version, "\n".join(lines) + "\n\n" + readme


def _platform_tag(files: list[tuple[str, Path]]) -> str:
    """manylinux_2_X_ARCH for the binaries among `files`, as
    tools/dev/check-wheel checks it; the interpreter's platform
    (linux_x86_64, macosx_...) only where none of them is ELF."""
    binaries = {arcname: data for arcname, path in files
                if (data := path.read_bytes())[:4] == b"\x7fELF"}
    try:
        found = wheel_policy.policy(binaries)
    except wheel_policy.PolicyError as e:
        raise BuildError(f"no manylinux tag fits the wheel: {e}") from None
    if found is None:
        return re.sub(r"[^A-Za-z0-9]", "_", sysconfig.get_platform())
    _say(f"tag {found.tag}: " + "; ".join(found.because))
    return found.tag


def wheel_name(version: str, platform: str) -> str:
    return f"mrctx-{version}-py3-none-{platform}.whl"


# ---- building -------------------------------------------------------------------

def _tool(name: str) -> Optional[str]:
    return os.environ.get(name.upper()) or shutil.which(name)


def missing_tools() -> list[str]:
    """What the build needs on PATH and cannot find, as PyPI names."""
    return [name for name in ("meson", "ninja") if _tool(name) is None]


def _run(command: list[str], cwd: Optional[Path] = None) -> None:
    _say("$ " + " ".join(command))
    # The tools' output goes to stderr: pip shows it when the build fails.
    result = subprocess.run(command, cwd=cwd, stdout=sys.stderr, stderr=sys.stderr)
    if result.returncode != 0:
        raise BuildError(f"{command[0]} failed (exit {result.returncode}): see its output above")


def build_tree(build_dir: Path, stage: Path, setup_args: Iterable[str] = ()) -> None:
    """Configure (once), build and install the runtime files into `stage`."""
    absent = missing_tools()
    if absent:
        raise BuildError(f"building mrctx needs {' and '.join(absent)} on PATH "
                         "(Debian: apt-get install meson ninja-build; conda: conda install "
                         "meson ninja; or pip install meson ninja), and a C compiler")
    meson = _tool("meson")
    assert meson is not None
    if not (build_dir / "build.ninja").exists():
        _run([meson, "setup", str(build_dir), str(SOURCE), *MESON_OPTIONS, *setup_args])
    elif list(setup_args):
        _run([meson, "configure", str(build_dir), *setup_args])
    _run([meson, "compile", "-C", str(build_dir)])
    if stage.exists():
        shutil.rmtree(stage)
    _run([meson, "install", "-C", str(build_dir), "--no-rebuild", "--quiet",
          "--destdir", str(stage), "--tags", INSTALL_TAGS])


def _one(paths: list[str], what: str) -> Path:
    if len(paths) != 1:
        raise BuildError(f"the install should hold one {what}, found {len(paths)}: {paths}")
    return Path(paths[0])


def runtime_files(stage: Path, abi: str) -> list[tuple[str, Path]]:
    """(path in the wheel, file in the stage) for everything the wheel
    carries, from a `meson install --tags runtime,python-runtime`."""
    package = _one(glob.glob(str(stage / "**" / "mrctx" / "__init__.py"), recursive=True),
                   "mrctx/__init__.py").parent
    files: list[tuple[str, Path]] = []
    for path in sorted(package.iterdir()):
        if path.name == "_install.py":
            continue  # the install prefix: the wheel's library is beside the package
        if path.suffix == ".py" or path.name in ("_cupy_alloc.so", "_dlpack.so", "_callsites.so",
                                                 "_torch_alloc.so", "py.typed"):
            files.append((f"mrctx/{path.name}", path))
        elif path.is_file():
            raise BuildError(f"unexpected file in the installed package: {path.name}")
    # MRCTX_TORCH's switch, beside the package at the top of site-packages.
    for name in ("_mrctx_torch_env.py", "mrctx-torch.pth"):
        if not (package.parent / name).is_file():
            raise BuildError(f"the install has no {name} beside the package")
        files.append((name, package.parent / name))
    library = _one(glob.glob(str(stage / "**" / f"libmrctx.so.{abi}.*"), recursive=True),
                   f"libmrctx.so.{abi}.*")
    files.append((f"mrctx/libmrctx.so.{abi}", library))
    tools = glob.glob(str(stage / "**" / "bin" / "mrctx"), recursive=True)
    if tools:
        files.append(("mrctx/mrctx", _one(tools, "bin/mrctx")))
    return files


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def write_wheel(out_dir: Path, files: list[tuple[str, Path]]) -> Path:
    name, version, metadata = _metadata()
    platform = _platform_tag(files)
    dist_info = f"{name}-{version}.dist-info"
    entries: list[tuple[str, bytes, int]] = []
    for arcname, path in files:
        mode = 0o755 if os.access(path, os.X_OK) and not arcname.endswith(".py") else 0o644
        entries.append((arcname, path.read_bytes(), mode))
    entries.append((f"{dist_info}/METADATA", metadata.encode("utf-8"), 0o644))
    entries.append((f"{dist_info}/WHEEL", (
        "Wheel-Version: 1.0\n"
        "Generator: mrctx_wheel (tools/dev/mrctx_wheel.py)\n"
        "Root-Is-Purelib: false\n"
        f"Tag: py3-none-{platform}\n").encode("ascii"), 0o644))
    # The `mrctx` command: the C command the wheel carries, or where it has
    # none, python -m mrctx (pyproject.toml's [project.scripts]).
    entries.append((f"{dist_info}/entry_points.txt",
                    b"[console_scripts]\nmrctx = mrctx.__main__:tool_main\n", 0o644))
    entries.append((f"{dist_info}/LICENSE", (SOURCE / "LICENSE").read_bytes(), 0o644))
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for arcname, data, _ in entries:
        writer.writerow([arcname, _record_hash(data), len(data)])
    writer.writerow([f"{dist_info}/RECORD", "", ""])
    entries.append((f"{dist_info}/RECORD", record.getvalue().encode("utf-8"), 0o644))

    out_dir.mkdir(parents=True, exist_ok=True)
    wheel = out_dir / wheel_name(version, platform)
    # A fixed timestamp (SOURCE_DATE_EPOCH where set): the same tree makes
    # the same archive.
    stamp = time.gmtime(max(int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")), 315532800))
    partial = wheel.with_name(wheel.name + ".part")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, data, mode in entries:
            info = zipfile.ZipInfo(arcname, date_time=stamp[:6])
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    partial.replace(wheel)
    return wheel


def _abi_version() -> str:
    major, minor = _meson_version().split(".")[:2]
    return f"0.{minor}" if major == "0" else major


def build(out_dir: Path, build_dir: Optional[Path] = None, setup_args: Iterable[str] = ()) -> Path:
    """Build the wheel into `out_dir`; returns its path. `build_dir` is
    kept (and reused) when given, else a temporary one is removed after."""
    work = Path(tempfile.mkdtemp(prefix="mrctx-wheel-"))
    try:
        tree = work / "build" if build_dir is None else build_dir.resolve()
        stage = work / "stage"
        build_tree(tree, stage, setup_args)
        wheel = write_wheel(out_dir, runtime_files(stage, _abi_version()))
        _say(f"wrote {wheel}")
        return wheel
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---- PEP 517 ----------------------------------------------------------------------

def _setup_args(config_settings: Optional[dict]) -> list[str]:
    value = (config_settings or {}).get("setup-args", [])
    return [value] if isinstance(value, str) else list(value)


def get_requires_for_build_wheel(config_settings: Optional[dict] = None) -> list[str]:
    # Only what is not on PATH already: offline, with Meson and Ninja
    # installed (Debian's, conda's), pip fetches nothing.
    return [{"meson": "meson>=1.0", "ninja": "ninja"}[name] for name in missing_tools()]


def get_requires_for_build_sdist(config_settings: Optional[dict] = None) -> list[str]:
    return []


def build_wheel(wheel_directory: str, config_settings: Optional[dict] = None,
                metadata_directory: Optional[str] = None) -> str:
    build_dir = (config_settings or {}).get("build-dir")
    try:
        wheel = build(Path(wheel_directory), Path(build_dir) if build_dir else None,
                      _setup_args(config_settings))
    except BuildError as e:
        _say(str(e))
        raise SystemExit(f"mrctx_wheel: {e}") from None
    return wheel.name


def build_sdist(sdist_directory: str, config_settings: Optional[dict] = None) -> str:
    """The committed tree (git ls-files) as mrctx-V.tar.gz with PKG-INFO."""
    name, version, metadata = _metadata()
    listed = subprocess.run(["git", "-C", str(SOURCE), "ls-files", "-z"], capture_output=True)
    if listed.returncode != 0:
        raise SystemExit("mrctx_wheel: an sdist is made from a git checkout (git ls-files failed)")
    base = f"{name}-{version}"
    out = Path(sdist_directory) / f"{base}.tar.gz"
    with tarfile.open(out, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for relative in sorted(p for p in listed.stdout.decode().split("\0") if p):
            path = SOURCE / relative
            if path.is_file():
                tar.add(path, arcname=f"{base}/{relative}", recursive=False)
        data = metadata.encode("utf-8")
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(data)
        info.mode = 0o644
        tar.addfile(info, io.BytesIO(data))
    return out.name


def main(argv: Optional[list[str]] = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="tools/dev/build-wheel",
        description="Build the mrctx wheel: the Python package, libmrctx, the PyTorch shim "
                    "and the mrctx command, for any CPython >= 3.9 of this platform. Needs "
                    "meson, ninja and a C compiler (a C++ one for the shim).")
    parser.add_argument("--out", default=str(SOURCE / "dist"),
                        help="where the wheel goes (default: dist/ of the checkout)")
    parser.add_argument("--build-dir", help="a Meson build directory to use and keep "
                        "(default: a temporary one)")
    args, setup_args = parser.parse_known_args(argv)
    bad = [a for a in setup_args if not a.startswith("-D")]
    if bad:
        parser.error(f"unknown arguments {bad} (Meson options are -DNAME=VALUE)")
    try:
        wheel = build(Path(args.out), Path(args.build_dir) if args.build_dir else None, setup_args)
    except BuildError as e:
        print(f"build-wheel: {e}", file=sys.stderr)
        return 1
    print(wheel)
    return 0

#!/usr/bin/env python3
"""check_wheel_tag.py: the wheel's manylinux tag is what its binaries need.

    check_wheel_tag.py SOURCE_ROOT LIBMRCTX MRCTX_EXE

With this build's library and command as the wheel's binaries:

1. tools/dev/mrctx_wheel.py's write_wheel (what tools/dev/build-wheel and
   `pip install .` run) names and tags the wheel manylinux_2_X_ARCH, X the
   highest GLIBC_2.X the binaries need as readelf --version-info lists it
   (where readelf is found), never linux_ARCH;
2. tools/dev/check-wheel accepts that wheel, and refuses copies of it tagged
   linux_x86_64 (the old tag, which no index takes), a lower glibc (pip
   would install it where it cannot load), a higher one, or whose WHEEL
   file says another tag than its name.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path


def retag(wheel, out_dir, tag, wheel_file_tag=None):
    """A copy of `wheel` whose file name (and WHEEL's Tag) say `tag`."""
    name = re.sub(r"-py3-none-[^-]+\.whl$", f"-py3-none-{tag}.whl", os.path.basename(wheel))
    target = os.path.join(out_dir, name)
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(target, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.endswith(".dist-info/WHEEL"):
                data = re.sub(rb"Tag: py3-none-\S+",
                              b"Tag: py3-none-" + (wheel_file_tag or tag).encode(), data)
            dst.writestr(info, data)
    return target


def readelf_glibc(paths):
    """The highest GLIBC_2.X in readelf's version needs, or None."""
    readelf = shutil.which("readelf")
    if readelf is None:
        return None
    found = set()
    for path in paths:
        out = subprocess.run([readelf, "--version-info", "-W", path], capture_output=True,
                             text=True, check=True).stdout
        found |= {int(m) for m in re.findall(r"Name: GLIBC_2\.(\d+)", out)}
    return max(found)


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root, library, tool = sys.argv[1:]
    sys.path.insert(0, os.path.join(root, "tools", "dev"))
    import mrctx_wheel  # noqa: E402

    check = os.path.join(root, "tools", "dev", "check-wheel")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        wheel = str(mrctx_wheel.write_wheel(Path(tmp) / "dist", [
            ("mrctx/libmrctx.so.0.2", Path(library)), ("mrctx/mrctx", Path(tool))]))
        m = re.search(r"-py3-none-manylinux_2_(\d+)_(\w+)\.whl$", wheel)
        if m is None:
            failures.append(f"write_wheel made {os.path.basename(wheel)}, not a manylinux_2_X tag")
            minor, arch = 17, "x86_64"
        else:
            minor, arch = int(m.group(1)), m.group(2)
            wanted = readelf_glibc([library, tool])
            if wanted is not None and wanted != minor:
                failures.append(f"write_wheel tagged manylinux_2_{minor}, readelf lists "
                                f"GLIBC_2.{wanted} as the highest version needed")
        cases = [
            (wheel, 0, "as built"),
            (retag(wheel, tmp, f"linux_{arch}"), 1, "tagged linux_ARCH"),
            (retag(wheel, tmp, f"manylinux_2_{minor - 1}_{arch}"), 1, "a glibc too low"),
            (retag(wheel, tmp, f"manylinux_2_{minor + 1}_{arch}"), 1, "a glibc too high"),
            (retag(wheel, tmp, f"manylinux_2_{minor}_{arch}", f"linux_{arch}"), 1,
             "a WHEEL file that says linux_ARCH"),
        ]
        for path, status, what in cases:
            run = subprocess.run([sys.executable, check, path], capture_output=True, text=True)
            shown = f"$ tools/dev/check-wheel {os.path.basename(path)}\n{run.stdout}{run.stderr}"
            if run.returncode != status:
                failures.append(f"{what}: wanted exit {status}, got {run.returncode}\n{shown}")
            else:
                print(f"check_wheel_tag: {what}: exit {status}\n{shown}")
    for failure in failures:
        print(f"check_wheel_tag: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""check_types.py: the package's types check, and pyflakes finds nothing.

    check_types.py PACKAGE_DIR CACHE_DIR

The package ships py.typed, so its annotations are a promise to every user
who runs a type checker over code that calls it. This runs, with the
interpreter that runs it,

    python -m pyflakes PACKAGE_DIR       (Debian: pyflakes3)
    python -m mypy PACKAGE_DIR           (Debian: python3-mypy)

mypy checking every function body (--check-untyped-defs) for the oldest
Python the package supports (pyproject.toml's requires-python, 3.9), with
its cache in CACHE_DIR (the build tree, not the sources). Exit status 1 on
any finding, each printed; 77 (Meson's "skipped") where pyflakes or mypy
is not installed for this interpreter, except under CI=true, where that
fails: README.md's apt line installs both.
"""

import importlib.util
import os
import subprocess
import sys

SKIP = 77

# The oldest Python the package supports (pyproject.toml's requires-python):
# mypy flags what that one would not run.
OLDEST_PYTHON = "3.9"


def missing_tools() -> list[str]:
    """The Debian packages of the checkers this interpreter lacks."""
    wanted = {"pyflakes": "pyflakes3", "mypy": "python3-mypy"}
    return [package for module, package in wanted.items()
            if importlib.util.find_spec(module) is None]


def run(name: str, args: list[str]) -> bool:
    """Run one checker; True where it found nothing."""
    done = subprocess.run([sys.executable, "-m"] + args, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    output = (done.stdout + done.stderr).strip()
    if done.returncode != 0:
        print(f"check_types: {name} found:\n{output}")
        return False
    print(f"check_types: {name}: clean" + (f" ({output.splitlines()[-1]})" if output else ""))
    return True


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    package, cache = sys.argv[1], sys.argv[2]
    missing = missing_tools()
    if missing:
        reason = (f"{sys.executable} lacks {' and '.join(missing)} "
                  "(README.md's apt line installs them)")
        if os.environ.get("CI", "").lower() == "true":
            print(f"check_types: CI=true: this test must run, not skip: {reason}")
            return 1
        print(f"check_types: skipped: {reason}")
        return SKIP
    clean = run("pyflakes", ["pyflakes", package])
    clean &= run("mypy", ["mypy", "--python-version", OLDEST_PYTHON, "--check-untyped-defs",
                          "--warn-unused-ignores", "--show-error-codes",
                          "--cache-dir", cache, package])
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())

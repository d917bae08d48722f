#!/usr/bin/env python3
"""check_symbols.py: every symbol the built libraries define for others to
see carries the library's prefix.

    check_symbols.py NM LIBRARY...

For each LIBRARY (libmrctx.a and libmrctx.so, as the build makes them), the
defined global symbols that `NM` lists must be:

  - in a shared library (.so), the exported ones (`nm -D`) and the global
    ones of its symbol table (`nm -g`): `mr_` names, the public API that
    lib/mrctx.map exports and lib/libmrctx.abi records, besides the version
    node (MRCTX_0, an absolute symbol). Internals (mri_) are hidden there.
  - in a static library (.a): `mr_` or `mri_` names. A function shared by two
    of the library's files is mri_-named (or static, if only one file uses
    it), so that it cannot clash with a name of the program linked with it.
    The one exception is NVTX's header-only implementation (nvtx3, when the
    build has it): its `nvtx...`/`InitializeInjectionNvtx...` globals are
    NVTX's own names, defined weak on purpose so that every copy in a
    program becomes one (nvtxDetail/nvtxLinkOnce.h); only weak ones pass.

Prints each other symbol as LIBRARY: TYPE NAME, and exits 1 if there is one.
"""
import re
import subprocess
import sys

WEAK = set("VvWw")
NVTX = re.compile(r"^(nvtx|InitializeInjectionNvtx)\w*$")


def defined_globals(nm, path, dynamic):
    """[(type letter, name)] of the defined global symbols of `path`."""
    args = [nm, "-D" if dynamic else "-g", "--defined-only", path]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        fields = line.split()
        # "VALUE TYPE NAME"; archive member headers ("name.o:") and blank
        # lines have other shapes.
        if len(fields) == 3 and len(fields[1]) == 1:
            found.append((fields[1], fields[2]))
    return found


def problems_of(nm, path):
    problems = []
    if path.endswith(".a"):
        for kind, name in defined_globals(nm, path, False):
            if name.startswith(("mr_", "mri_")):
                continue
            if kind in WEAK and NVTX.match(name):
                continue
            problems.append(f"{path}: {kind} {name} (not mr_/mri_)")
    else:
        for dynamic in (True, False):
            for kind, name in defined_globals(nm, path, dynamic):
                if name.startswith("mr_") or (kind == "A" and name == "MRCTX_0"):
                    continue
                table = "exported" if dynamic else "global"
                problems.append(f"{path}: {kind} {name} ({table}, not mr_)")
    return problems


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    nm, libraries = sys.argv[1], sys.argv[2:]
    problems = []
    for path in libraries:
        problems.extend(problems_of(nm, path))
    for p in problems:
        print(p)
    if problems:
        print(f"check_symbols: {len(problems)} symbol(s) without the library's prefix: make them "
              "static, or name them mri_ (internal) or mr_ (public)")
        return 1
    print(f"check_symbols: every global symbol of {len(libraries)} librar"
          f"{'y' if len(libraries) == 1 else 'ies'} is prefixed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

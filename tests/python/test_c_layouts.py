"""The Python package's view of the C API against the C headers themselves
(suite unit): every ctypes struct the package binds has the C struct's
field names, in its order, at its offsets and sizes, and the same total
size; every status the package maps to an exception has the value and name
of the C enum's member; the stats and cache-stats field lists follow the C
structs. Nothing here is copied from the headers by hand: the test writes a
C translation unit from the package's own tables and lets the compiler
(MRCTX_TEST_CC, with MRCTX_TEST_CFLAGS naming the include directories)
check it and print the layouts."""

import ctypes
import os
import re
import shlex
import subprocess
import tempfile

import pytest

from mrctx import _errors, _lib

CC = os.environ.get("MRCTX_TEST_CC", "")
CFLAGS = os.environ.get("MRCTX_TEST_CFLAGS", "")


def _c_name(cls: type) -> str:
    """ContextDesc -> mr_context_desc."""
    return "mr_" + re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()


def _structs() -> list[type]:
    return [value for value in vars(_lib).values()
            if isinstance(value, type) and issubclass(value, ctypes.Structure)
            and value is not ctypes.Structure]


def _field_size(ctype: type) -> int:
    return ctypes.sizeof(ctype)


def _compile_and_run(source: str) -> str:
    if not CC:
        pytest.skip("MRCTX_TEST_CC is not set (meson sets it)")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "layouts.c")
        exe = os.path.join(tmp, "layouts")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        built = subprocess.run(shlex.split(CC) + shlex.split(CFLAGS) + ["-std=c11", path, "-o", exe],
                               capture_output=True, text=True, check=False)
        assert built.returncode == 0, ("the package's tables do not compile against the C "
                                       "headers:\n" + built.stdout + built.stderr)
        ran = subprocess.run([exe], capture_output=True, text=True, check=True)
        return ran.stdout


def test_structs_match_the_headers():
    structs = _structs()
    assert structs, "no ctypes structs found in mrctx._lib"
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <mrctx/mrctx.h>",
             "#include <mrctx/snapshot.h>", "int main(void) {"]
    for cls in structs:
        c = _c_name(cls)
        lines.append(f'  printf("{cls.__name__} sizeof %zu\\n", sizeof({c}));')
        for name, _ in cls._fields_:
            # A name the C struct lacks fails to compile: the message names it.
            lines.append(f'  printf("{cls.__name__} {name} %zu %zu\\n", '
                         f'offsetof({c}, {name}), sizeof((({c} *)0)->{name}));')
    lines += ["  return 0;", "}"]
    out = _compile_and_run("\n".join(lines) + "\n")
    c_layout = {}
    for line in out.splitlines():
        parts = line.split()
        if parts[1] == "sizeof":
            c_layout[(parts[0], None)] = int(parts[2])
        else:
            c_layout[(parts[0], parts[1])] = (int(parts[2]), int(parts[3]))
    mismatches = []
    for cls in structs:
        if ctypes.sizeof(cls) != c_layout[(cls.__name__, None)]:
            mismatches.append(f"{cls.__name__}: {ctypes.sizeof(cls)} bytes, {_c_name(cls)} "
                              f"{c_layout[(cls.__name__, None)]} (a field missing or extra)")
        for name, ctype in cls._fields_:
            py = (getattr(cls, name).offset, _field_size(ctype))
            if py != c_layout[(cls.__name__, name)]:
                mismatches.append(f"{cls.__name__}.{name}: offset/size {py} in Python, "
                                  f"{c_layout[(cls.__name__, name)]} in C")
    assert not mismatches, "\n".join(mismatches)


def test_field_lists_follow_the_c_order():
    """STATS_FIELDS and CACHE_STATS_FIELDS are the C structs' fields after
    `size`, in order (offsets strictly rising, nothing between)."""
    for cls, fields in ((_lib.Stats, _lib.STATS_FIELDS), (_lib.CacheStats, _lib.CACHE_STATS_FIELDS)):
        assert [name for name, _ in cls._fields_[1:]] == list(fields)
    # The offsets and the total size are checked against C above.


def test_statuses_match_the_enum():
    """Each C status (MR_STATUS_LIST, printed by the compiler's program) has
    its exception class with its value and name, and no class claims a
    status the C list lacks."""
    out = _compile_and_run(
        "#include <stdio.h>\n#include <mrctx/mrctx.h>\n"
        "#define PRINT_(name, value, description) printf(\"%s %d\\n\", #name, (int)(value));\n"
        "int main(void) { MR_STATUS_LIST(PRINT_) return 0; }\n")
    c_statuses = {name: int(value) for name, value in (line.split() for line in out.splitlines())}
    assert c_statuses.get("MR_OK") == 0
    by_name = {cls.status_name: cls for cls in _errors._BY_STATUS.values()}
    problems = []
    for name, value in c_statuses.items():
        if name == "MR_OK":
            continue
        cls = by_name.get(name)
        if cls is None:
            problems.append(f"{name} ({value}) has no exception class in mrctx._errors")
        elif cls.status != value or _errors._BY_STATUS.get(value) is not cls:
            problems.append(f"{name} is {value} in C, {cls.__name__}.status is {cls.status}")
    for cls in vars(_errors).values():
        if (isinstance(cls, type) and issubclass(cls, _errors.Error) and cls is not _errors.Error
                and "status_name" in vars(cls)):
            if c_statuses.get(cls.status_name) != cls.status:
                problems.append(f"{cls.__name__}: {cls.status_name} = {cls.status} is not in C's list")
    assert not problems, "\n".join(problems)


# The package's names for C enum members and flags: (Python value, C name).
# A member renamed or renumbered in C fails the static assertions below.
def _enum_constants() -> list[tuple[str, int, str]]:
    from mrctx import _context

    pairs = [("_lib.SPEC_DEFAULT", _lib.SPEC_DEFAULT, "MR_SPEC_DEFAULT"),
             ("_lib.SPEC_OVERRIDE", _lib.SPEC_OVERRIDE, "MR_SPEC_OVERRIDE"),
             ("_lib.SPEC_FILE", _lib.SPEC_FILE, "MR_SPEC_FILE"),
             ("_lib.SPEC_ENV", _lib.SPEC_ENV, "MR_SPEC_ENV")]
    pairs += [(f"_lib.POOL_KINDS[{value}]", value, f"MR_POOL_{name.upper()}")
              for value, name in enumerate(_lib.POOL_KINDS)]
    pools = {"device": "MR_DRIVER_POOL_DEVICE_CURRENT", "device_default":
             "MR_DRIVER_POOL_DEVICE_DEFAULT", "pinned": "MR_DRIVER_POOL_PINNED_DEFAULT",
             "managed": "MR_DRIVER_POOL_MANAGED_DEFAULT"}
    pairs += [(f"DRIVER_POOLS[{name!r}]", value, pools[name])
              for name, value in _context.DRIVER_POOLS.items()]
    pairs += [(f"REQUIREMENTS[{name!r}]", value, f"MR_REQUIRE_{name.upper()}")
              for name, value in _context.REQUIREMENTS.items()]
    return pairs


def test_enum_constants_match_the_headers():
    """SpecSource.origin's SPEC_* names, the pool kinds, the driver pools
    and the requirement flags the package uses have the C enum members'
    and macros' values: a static assertion each, so that a mismatch (or a
    member renamed in C) fails to compile with a message naming it."""
    lines = ["#include <mrctx/mrctx.h>"]
    for python_name, value, c_name in _enum_constants():
        lines.append(f'_Static_assert({c_name} == {value}, "{python_name} is {value}, '
                     f'{c_name} is not");')
    lines += ["int main(void) { return 0; }"]
    _compile_and_run("\n".join(lines) + "\n")

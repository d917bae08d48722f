"""wheel_policy: which manylinux tag the wheel's binaries truly meet.

A manylinux_2_X wheel (PEP 600) must load on every mainstream distribution
with glibc 2.X or later. What decides X is what the binaries ask the
dynamic loader for: the symbol versions they need (GLIBC_2.34 from
libc.so.6, GLIBCXX_3.4.29 from libstdc++.so.6, ...) and the libraries they
name (DT_NEEDED), which must be ones every such system has. This module
reads both from the ELF files themselves (their .gnu.version_r and
.dynamic sections), with no readelf, objdump or auditwheel, and gives

  - the lowest glibc 2.X that provides every GLIBC_ version needed, raised
    where a libstdc++, libgcc_s or zlib version needed first shipped with
    a later glibc (the floors below, from auditwheel's manylinux policies:
    the oldest distribution of a glibc carries that libstdc++), and
  - the tag manylinux_2_X_ARCH.

tools/dev/mrctx_wheel.py tags the wheel with it; tools/dev/check-wheel
checks a built wheel's tag against its binaries (CI runs it).
"""

from __future__ import annotations

import struct
import zipfile
from dataclasses import dataclass, field
from typing import Optional

# Libraries every manylinux system has (auditwheel's lib_whitelist, the
# same for every policy from manylinux_2_17 on, x86_64 and aarch64).
SYSTEM_LIBRARIES = frozenset({
    "libatomic.so.1", "libgcc_s.so.1", "libstdc++.so.6", "libm.so.6", "libanl.so.1",
    "libdl.so.2", "librt.so.1", "libc.so.6", "libnsl.so.1", "libutil.so.1",
    "libpthread.so.0", "libresolv.so.2", "libexpat.so.1", "libz.so.1",
    "libX11.so.6", "libXext.so.6", "libXrender.so.1", "libICE.so.6", "libSM.so.6",
    "libGL.so.1", "libgobject-2.0.so.0", "libgthread-2.0.so.0", "libglib-2.0.so.0",
    # The dynamic loader itself, which glibc's own libraries name.
    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "ld-linux.so.2",
})

# The glibc of the oldest policy that has a version of another system
# library, for the x86_64 lists of auditwheel's manylinux-policy.json:
# (prefix, highest version, that policy's glibc), lowest first. A version
# above every entry is newer than any policy known here: refused.
_FLOORS: dict[str, list[tuple[tuple[int, ...], tuple[int, int]]]] = {
    "GLIBCXX_": [((3, 4, 8), (2, 5)), ((3, 4, 13), (2, 12)), ((3, 4, 19), (2, 17)),
                 ((3, 4, 22), (2, 24)), ((3, 4, 24), (2, 27)), ((3, 4, 28), (2, 31)),
                 ((3, 4, 29), (2, 34)), ((3, 4, 30), (2, 35)), ((3, 4, 33), (2, 39))],
    "CXXABI_": [((1, 3, 1), (2, 5)), ((1, 3, 3), (2, 12)), ((1, 3, 7), (2, 17)),
                ((1, 3, 10), (2, 24)), ((1, 3, 11), (2, 27)), ((1, 3, 12), (2, 31)),
                ((1, 3, 13), (2, 34)), ((1, 3, 15), (2, 39))],
    "GCC_": [((4, 2, 0), (2, 5)), ((4, 3, 0), (2, 12)), ((4, 8, 0), (2, 17)),
             ((7, 0, 0), (2, 27)), ((12, 0, 0), (2, 35)), ((14, 0, 0), (2, 39))],
    "ZLIB_": [((1, 2, 2, 4), (2, 12)), ((1, 2, 5, 2), (2, 17)), ((1, 2, 9), (2, 27)),
              ((1, 2, 12), (2, 37))],
}
# Versions named by a word, not a number.
_NAMED = {"CXXABI_TM_1": (2, 17), "CXXABI_FLOAT128": (2, 24), "GLIBC_ABI_DT_RELR": (2, 36)}

_MACHINES = {62: "x86_64", 183: "aarch64", 3: "i686", 21: "ppc64le", 22: "s390x"}

SHT_DYNAMIC = 6
SHT_GNU_VERNEED = 0x6FFFFFFE
DT_NEEDED = 1


class PolicyError(ValueError):
    """A binary the wheel cannot carry under any manylinux tag known here."""


@dataclass
class ElfNeeds:
    """What one ELF file asks the loader for."""

    machine: str
    needed: list[str] = field(default_factory=list)          # DT_NEEDED
    versions: list[tuple[str, str]] = field(default_factory=list)  # (library, version)


def read_elf(data: bytes) -> Optional[ElfNeeds]:
    """The libraries and symbol versions an ELF file needs; None for a file
    that is not ELF (a script, the package's .py files)."""
    if data[:4] != b"\x7fELF":
        return None
    wide = data[4] == 2
    end = "<" if data[5] == 1 else ">"
    try:
        machine = struct.unpack_from(end + "H", data, 18)[0]
        if wide:
            shoff, = struct.unpack_from(end + "Q", data, 0x28)
            shentsize, shnum = struct.unpack_from(end + "HH", data, 0x3A)
            header = end + "IIQQQQIIQQ"
        else:
            shoff, = struct.unpack_from(end + "I", data, 0x20)
            shentsize, shnum = struct.unpack_from(end + "HH", data, 0x2E)
            header = end + "IIIIIIIIII"
        sections = [struct.unpack_from(header, data, shoff + i * shentsize)
                    for i in range(shnum)]
    except struct.error as e:
        raise PolicyError(f"a truncated ELF file ({e})") from None

    def string(section: int, offset: int) -> str:
        base = sections[section][4] + offset
        return data[base:data.index(b"\0", base)].decode("ascii", "replace")

    needs = ElfNeeds(_MACHINES.get(machine, f"machine{machine}"))
    for _, kind, _, _, offset, size, link, count, _, _ in sections:
        if kind == SHT_DYNAMIC:
            entry = end + ("qQ" if wide else "iI")
            step = struct.calcsize(entry)
            for at in range(offset, offset + size, step):
                tag, value = struct.unpack_from(entry, data, at)
                if tag == DT_NEEDED:
                    needs.needed.append(string(link, value))
        elif kind == SHT_GNU_VERNEED:
            at = offset
            for _ in range(count):  # Elf_Verneed, then its Elf_Vernaux chain
                _, aux_count, file_name, aux, next_need = struct.unpack_from(end + "HHIII", data, at)
                library = string(link, file_name)
                aux_at = at + aux
                for _ in range(aux_count):
                    _, _, _, name, next_aux = struct.unpack_from(end + "IHHII", data, aux_at)
                    needs.versions.append((library, string(link, name)))
                    aux_at += next_aux
                if not next_need:
                    break
                at += next_need
    return needs


def _numbers(text: str) -> Optional[tuple[int, ...]]:
    try:
        return tuple(int(part) for part in text.split("."))
    except ValueError:
        return None


def glibc_floor(version: str) -> tuple[int, int]:
    """The lowest glibc whose systems provide this symbol version."""
    if version in _NAMED:
        return _NAMED[version]
    if version.startswith("GLIBC_"):
        numbers = _numbers(version[len("GLIBC_"):])
        if numbers and len(numbers) >= 2 and numbers[0] == 2:
            return (2, numbers[1])
        raise PolicyError(f"{version} is no public glibc version (GLIBC_PRIVATE is glibc's own)")
    for prefix, floors in _FLOORS.items():
        if version.startswith(prefix):
            numbers = _numbers(version[len(prefix):])
            if numbers is None:
                break
            for highest, glibc in floors:
                if numbers <= highest:
                    return glibc
            raise PolicyError(f"{version} is newer than any manylinux policy known to "
                              "tools/dev/wheel_policy.py (add the newer policy's floor there)")
    raise PolicyError(f"{version}: a symbol version of no library manylinux allows")


@dataclass
class Policy:
    """The manylinux tag a set of binaries meets, and why."""

    glibc: tuple[int, int]
    arch: str
    because: list[str]  # "GLIBC_2.34 (libc.so.6): mrctx/libmrctx.so.0.2, ..."

    @property
    def tag(self) -> str:
        return f"manylinux_{self.glibc[0]}_{self.glibc[1]}_{self.arch}"


def policy(binaries: dict[str, bytes]) -> Optional[Policy]:
    """The lowest manylinux tag every ELF file of `binaries` (name in the
    wheel -> contents) meets; None if none is ELF. A library one of them
    needs must be a system library of the policy or one of `binaries`
    (the wheel's libmrctx); anything else raises PolicyError."""
    bundled = {name.rsplit("/", 1)[-1] for name in binaries}
    floor = (2, 5)
    where: dict[str, list[str]] = {}
    arches = set()
    for name, data in sorted(binaries.items()):
        needs = read_elf(data)
        if needs is None:
            continue
        arches.add(needs.machine)
        for library in needs.needed:
            if library not in SYSTEM_LIBRARIES and library not in bundled:
                raise PolicyError(f"{name} needs {library}, which is neither in the wheel "
                                  "nor a library every manylinux system has")
        for library, version in needs.versions:
            if library in bundled:
                continue
            floor = max(floor, glibc_floor(version))
            where.setdefault(f"{version} ({library})", []).append(name)
    if not arches:
        return None
    if len(arches) != 1:
        raise PolicyError(f"binaries of several machines in one wheel: {sorted(arches)}")
    because = [f"{version}: {', '.join(sorted(set(names)))}"
               for version, names in sorted(where.items())
               if glibc_floor(version.split(" ")[0]) == floor]
    return Policy(floor, arches.pop(), because)


def wheel_binaries(wheel: str) -> dict[str, bytes]:
    """Every file of a wheel that is ELF, by its name in the wheel."""
    with zipfile.ZipFile(wheel) as z:
        return {name: data for name in z.namelist()
                if (data := z.read(name))[:4] == b"\x7fELF"}

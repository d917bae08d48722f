#!/usr/bin/env python3
"""check_vendored.py: each folder of tests/vendor keeps the code of others
as tests/vendor/cccl/README.md says: a README.md, the upstream's LICENSE,
and a VENDORED that names the upstream, version, date and what was taken,
and whose sha256 line matches the tarball it names; the tarball holds
plain files under relative paths only (tests/cpp/unpack_vendored.py
unpacks it at configure time). A header refreshed by hand, a tarball
replaced without its VENDORED, or a missing license fails here.

    check_vendored.py VENDOR_DIR
"""
import hashlib
import pathlib
import sys
import tarfile

FIELDS = ("upstream", "version", "date", "taken", "sha256")


def check(folder: pathlib.Path) -> list[str]:
    problems = [f"{folder}/{n} is missing" for n in ("README.md", "LICENSE", "VENDORED")
                if not (folder / n).is_file()]
    if problems:
        return problems
    fields = {}
    for line in (folder / "VENDORED").read_text().splitlines():
        key, sep, value = line.partition(":")
        if sep and not line.startswith(" "):
            fields[key] = value.strip()
    problems += [f"{folder}/VENDORED has no '{k}:' line" for k in FIELDS if not fields.get(k)]
    if "sha256" not in fields:
        return problems
    digest, _, name = fields["sha256"].partition("  ")
    tarball = folder / name
    if not name or not tarball.is_file():
        return problems + [f"{folder}/VENDORED: sha256 names '{name}', which is not in {folder}"]
    actual = hashlib.sha256(tarball.read_bytes()).hexdigest()
    if actual != digest:
        problems.append(f"{tarball}: sha256 {actual}, VENDORED says {digest}: "
                        "refresh it with tools/dev/vendor-cccl, not by hand")
    with tarfile.open(tarball) as tar:
        for m in tar.getmembers():
            if not m.isfile() or m.name.startswith("/") or ".." in m.name.split("/"):
                problems.append(f"{tarball}: {m.name}: not a plain file under a relative path")
    return problems


def main() -> int:
    vendor = pathlib.Path(sys.argv[1])
    folders = sorted(p for p in vendor.iterdir() if p.is_dir())
    if not folders:
        print(f"check_vendored: no folder in {vendor}")
        return 1
    problems = [p for folder in folders for p in check(folder)]
    for p in problems:
        print("check_vendored: " + p)
    if problems:
        return 1
    print(f"check_vendored: {', '.join(f.name for f in folders)}: license, provenance and sha256 kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""unpack_vendored.py: unpack a vendored tarball into a build directory,
for Meson's configure step (tests/cpp/meson.build unpacks
tests/vendor/cccl/include.tar.xz).

    unpack_vendored.py TARBALL DEST

DEST is emptied and the tarball's members written under it, with the time
of now (what was built against older headers is rebuilt), unless DEST's
`sha256` file already names the tarball's sha256: a reconfigure that finds
the same tarball leaves the files, and their times, as they are, so that
nothing is rebuilt. Python's tarfile only: no network, no tar or xz
program needed. Links and paths out of DEST are refused.
"""
import hashlib
import os
import pathlib
import shutil
import sys
import tarfile


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: unpack_vendored.py TARBALL DEST", file=sys.stderr)
        return 2
    tarball, dest = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    sha256 = hashlib.sha256(tarball.read_bytes()).hexdigest()
    stamp = dest / "sha256"
    if stamp.is_file() and stamp.read_text().strip() == sha256:
        return 0
    shutil.rmtree(dest, ignore_errors=True)
    with tarfile.open(tarball) as tar:
        for member in tar.getmembers():
            if not (member.isfile() or member.isdir()) or member.name.startswith("/") \
                    or ".." in pathlib.PurePosixPath(member.name).parts:
                print(f"unpack_vendored.py: {tarball}: {member.name}: not a plain file inside the tarball",
                      file=sys.stderr)
                return 1
        # Python 3.12+ asks for a filter (and warns without one); the members
        # were checked above either way.
        kw = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(dest, **kw)
        # The members' times are the tarball's fixed ones (1970): give them
        # now, so that what was built against the old headers is rebuilt.
        for member in tar.getmembers():
            os.utime(dest / member.name)
    stamp.write_text(sha256 + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

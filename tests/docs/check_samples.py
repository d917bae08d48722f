#!/usr/bin/env python3
"""check_samples.py: the docs' samples of `mrctx snapshot` are what the
command prints.

    check_samples.py ROOT MRCTX

Each fenced block of README.md and docs/*.md whose first line is
`$ mrctx snapshot oom-4242.json` shows tests/tools/snapshot-oom.json (an
out-of-memory dump, host and device memory included): the rest of the block
must be what `MRCTX snapshot` prints for that file, line for line. A line of
the block may leave part of a long line out with "...": the parts around it
must then be found in that order in the printed line. Exits 1 naming each
block that differs, and when there is no such block.
"""
import glob
import os
import re
import subprocess
import sys

COMMAND = "$ mrctx snapshot oom-4242.json"


def line_matches(shown, printed):
    if "..." not in shown:
        return shown == printed
    parts = shown.split("...")
    if not printed.startswith(parts[0]) or not printed.endswith(parts[-1]):
        return False
    at = len(parts[0])
    for part in parts[1:-1]:
        found = printed.find(part, at)
        if found < 0:
            return False
        at = found + len(part)
    return at <= len(printed) - len(parts[-1])


def main():
    root, mrctx = sys.argv[1], sys.argv[2]
    dump = os.path.join(root, "tests", "tools", "snapshot-oom.json")
    printed = subprocess.run([mrctx, "snapshot", dump], capture_output=True, text=True,
                             timeout=60)
    if printed.returncode != 0:
        print(f"check_samples: mrctx snapshot {dump} failed:\n{printed.stderr}")
        return 1
    wanted = printed.stdout.splitlines()
    failures, checked = [], 0
    for path in [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs",
                                                                                 "*.md"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for block in re.findall(r"^```\w*\n(.*?)^```$", text, re.S | re.M):
            lines = block.splitlines()
            if not lines or lines[0] != COMMAND:
                continue
            checked += 1
            shown = lines[1:]
            bad = [i for i, (s, p) in enumerate(zip(shown, wanted)) if not line_matches(s, p)]
            if bad or len(shown) != len(wanted):
                at = bad[0] if bad else min(len(shown), len(wanted))
                failures.append(f"{os.path.relpath(path, root)}: the sample of `mrctx snapshot` "
                                f"differs from what it prints at its line {at + 2}:\n"
                                f"  shown:   {shown[at] if at < len(shown) else '(nothing)'}\n"
                                f"  printed: {wanted[at] if at < len(wanted) else '(nothing)'}")
    if checked == 0:
        failures.append(f"no block starts with '{COMMAND}'")
    for failure in failures:
        print("check_samples: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""check_env.py: every environment variable the library and the command
read is documented where a user looks for it.

    check_env.py ROOT MRCTX

The variables are those lib/ and tools/ read by name (getenv("NAME"), and
the .env_var = "NAME" of the command's own contexts). Each must appear in
`MRCTX --help`, in the ENVIRONMENT section of docs/man/mrctx.1.scd and in
the Environment table of README.md. Exits 1 naming each one missing.
"""
import glob
import os
import re
import subprocess
import sys

READ = re.compile(r'(?:getenv\s*\(\s*|\.env_var\s*=\s*)"([A-Z][A-Z0-9_]*)"')


def section(text, start, end_pattern):
    at = text.find(start)
    if at < 0:
        return ""
    rest = text[at + len(start):]
    m = re.search(end_pattern, rest, re.M)
    return rest[:m.start()] if m else rest


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root, mrctx = sys.argv[1], sys.argv[2]
    names = set()
    for pattern in ("lib/**/*.c", "lib/**/*.h", "tools/**/*.c", "tools/**/*.cpp", "tools/**/*.h"):
        for path in glob.glob(os.path.join(root, pattern), recursive=True):
            with open(path, encoding="utf-8") as f:
                names.update(READ.findall(f.read()))
    if not names:
        print("check_env: found no variable read in lib/ and tools/", file=sys.stderr)
        return 1
    help_text = subprocess.run([mrctx, "--help"], capture_output=True, text=True, timeout=60).stdout
    with open(os.path.join(root, "docs", "man", "mrctx.1.scd"), encoding="utf-8") as f:
        man = section(f.read(), "\n# ENVIRONMENT\n", r"^# ")
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        readme = section(f.read(), "\n## Environment\n", r"^## ")
    places = (("mrctx --help", help_text), ("docs/man/mrctx.1.scd's ENVIRONMENT", man),
              ("README.md's Environment table", readme))
    missing = [(name, where) for name in sorted(names) for where, text in places
               if not re.search(r"(?<![A-Z0-9_])" + name + r"(?![A-Z0-9_])", text)]
    for name, where in missing:
        print(f"check_env: {name} (read in lib/ or tools/) is not in {where}", file=sys.stderr)
    if missing:
        return 1
    print(f"check_env: {', '.join(sorted(names))}: each in --help, the man page and README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())

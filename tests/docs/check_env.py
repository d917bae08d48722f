#!/usr/bin/env python3
"""check_env.py: mrctx's environment variables are read in one place and
documented where a user looks for them.

    check_env.py ROOT MRCTX

The table of lib/core/variables.c names every MRCTX_* variable the library
and the command read (and NVTX_INJECTION64_PATH); mri_variable_get is their
one getenv. This fails, naming each problem, where
  - a C or C++ file of lib/ or tools/ other than lib/core/variables.c calls
    getenv("MRCTX_..."), or names an MRCTX_* context variable
    (.env_var = "MRCTX_...") that is not in the table;
  - a table entry is missing from `MRCTX --help`, from the ENVIRONMENT
    section of docs/man/mrctx.1.scd, from the rows of README.md's
    Environment table (a row beginning with the name) or from the page its
    .doc names;
  - any other variable lib/ and tools/ read by name (getenv("NAME"),
    .env_var = "NAME") is missing from --help, the man page or README.md.
"""
import glob
import os
import re
import subprocess
import sys

TABLE = "lib/core/variables.c"
READ = re.compile(r'(?:getenv\s*\(\s*|\.env_var\s*=\s*)"([A-Z][A-Z0-9_]*)"')
GETENV_MRCTX = re.compile(r'getenv\s*\(\s*"MRCTX_')
ENTRY = re.compile(r'\.name\s*=\s*"([A-Z][A-Z0-9_]*)".*?\.doc\s*=\s*"([^"]+)"', re.S)


def section(text, start, end_pattern):
    at = text.find(start)
    if at < 0:
        return ""
    rest = text[at + len(start):]
    m = re.search(end_pattern, rest, re.M)
    return rest[:m.start()] if m else rest


def named(name, text):
    return re.search(r"(?<![A-Z0-9_])" + name + r"(?![A-Z0-9_])", text) is not None


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root, mrctx = sys.argv[1], sys.argv[2]
    problems = []
    with open(os.path.join(root, TABLE), encoding="utf-8") as f:
        table = dict(ENTRY.findall(f.read()))
    if not table:
        problems.append(f"{TABLE}: found no entry (.name = ... .doc = ...)")
    others = set()
    for pattern in ("lib/**/*.c", "lib/**/*.h", "tools/**/*.c", "tools/**/*.cpp", "tools/**/*.h"):
        for path in sorted(glob.glob(os.path.join(root, pattern), recursive=True)):
            rel = os.path.relpath(path, root)
            if rel == TABLE:
                continue
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for number, line in enumerate(text.split("\n"), 1):
                if GETENV_MRCTX.search(line):
                    problems.append(f"{rel}:{number}: getenv of an MRCTX_ variable: read it "
                                    f"with mri_variable_get (its entry in {TABLE})")
            for name in READ.findall(text):
                if name.startswith("MRCTX_") and name not in table:
                    problems.append(f"{rel}: {name} is not in {TABLE}'s table")
                elif name not in table:
                    others.add(name)
    help_text = subprocess.run([mrctx, "--help"], capture_output=True, text=True, timeout=60).stdout
    with open(os.path.join(root, "docs", "man", "mrctx.1.scd"), encoding="utf-8") as f:
        man = section(f.read(), "\n# ENVIRONMENT\n", r"^# ")
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        readme = section(f.read(), "\n## Environment\n", r"^## ")
    rows = set(re.findall(r"^\| `([A-Z][A-Z0-9_]*)", readme, re.M))
    places = (("mrctx --help", help_text), ("docs/man/mrctx.1.scd's ENVIRONMENT", man))
    for name, doc in sorted(table.items()):
        for where, text in places:
            if not named(name, text):
                problems.append(f"{name} ({TABLE}) is not in {where}")
        if name not in rows:
            problems.append(f"{name} ({TABLE}) has no row in README.md's Environment table")
        try:
            with open(os.path.join(root, doc), encoding="utf-8") as f:
                documented = named(name, f.read())
        except OSError as e:
            problems.append(f"{name} ({TABLE}): its page {doc} cannot be read: {e.strerror}")
        else:
            if not documented:
                problems.append(f"{name} ({TABLE}) is not in its page {doc}")
    for name in sorted(others):
        for where, text in places + (("README.md's Environment table", readme),):
            if not named(name, text):
                problems.append(f"{name} (read in lib/ or tools/) is not in {where}")
    for problem in problems:
        print(f"check_env: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"check_env: {', '.join(sorted(table))}: read through {TABLE}, each in --help, the "
          f"man page, README.md's table and its page"
          + (f"; {', '.join(sorted(others))}: in --help, the man page and README.md"
             if others else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

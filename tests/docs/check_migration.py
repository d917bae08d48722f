#!/usr/bin/env python3
"""check_migration.py: every mrctx name docs/migrating-from-rmm.md gives a
Python user exists.

    check_migration.py ROOT

Each `mrctx.NAME[.NAME...]` in a code span of the guide (calls and
arguments stripped: `mrctx.cupy.use(ctx, "temp")` is mrctx.cupy.use) is
imported from ROOT/python and looked up attribute by attribute. A module
that needs a framework this machine lacks (mrctx.numba needs Numba) is read
instead: its name must be defined at its top level. Exits 1 naming each
name that does not resolve, and when the guide's Python table names none.
"""
import ast
import importlib
import os
import re
import sys

# Not a file name: include/mrctx/mrctx.hpp.
NAME = re.compile(r"(?<![/\w])mrctx(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?![\w/])")
FILES = re.compile(r"\.(?:h|hpp|c|py|md|pc|so)$")


def defined_at_top(path, name):
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return True
    return False


def resolves(root, dotted):
    parts = dotted.split(".")
    # The longest importable module, then attributes.
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            obj = importlib.import_module(module_name)
        except ModuleNotFoundError as e:
            if e.name is not None and (e.name == module_name or
                                       module_name.startswith(e.name + ".")):
                continue  # not a module: an attribute of a shorter one
            return read_instead(root, parts, cut)
        except Exception:  # the module exists, but needs what is missing here
            return read_instead(root, parts, cut)
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def read_instead(root, parts, cut):
    """A module that cannot be imported here (mrctx.numba without Numba):
    the name after it must be defined at its top level."""
    for cut in range(cut, 0, -1):
        path = os.path.join(root, "python", *parts[:cut]) + ".py"
        if os.path.isfile(path):
            return cut == len(parts) or (cut + 1 == len(parts) and
                                         defined_at_top(path, parts[cut]))
    return False


def main():
    root = sys.argv[1]
    sys.path.insert(0, os.path.join(root, "python"))
    with open(os.path.join(root, "docs", "migrating-from-rmm.md"), encoding="utf-8") as f:
        text = f.read()
    python = text.split("\n## Python\n", 1)
    if len(python) != 2:
        print("check_migration: docs/migrating-from-rmm.md has no '## Python' section")
        return 1
    names = set()
    for span in re.findall(r"`([^`\n]+)`", text):
        names |= {n for n in NAME.findall(span) if not FILES.search(n)}
    table = set()
    for span in re.findall(r"`([^`\n]+)`", python[1].split("\n## ", 1)[0]):
        table |= set(NAME.findall(span))
    missing = sorted(n for n in names if not resolves(root, n))
    for name in missing:
        print(f"check_migration: docs/migrating-from-rmm.md names {name}, which does not exist")
    if len(table) < 10:
        print(f"check_migration: the Python table names {len(table)} mrctx names: {sorted(table)}")
        return 1
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())

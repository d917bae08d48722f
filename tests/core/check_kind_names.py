#!/usr/bin/env python3
"""check_kind_names.py: built-in resource kinds are told apart by type.

    check_kind_names.py ROOT

The library's own kinds of resource (cache, retry, track, pool, ...) are
told apart by their ops table (mr_resource_state, or the typed predicates
built on it: mri_is_cache, mri_is_retry, mri_pool_is_owned, ...), never by
the name or description a resource reports: an application's resource may
give its ops any name, "cache" included, and a misspelt string compiles
where a misspelt function does not.

The kind names are those of the library's ops tables (`.name = "cache"` in
lib/). In the C and C++ sources of lib/, tools/ and include/ this fails on

  - a call to a comparison or predicate (a function whose name ends in
    `cmp` or `_is`, such as strcmp, strncmp, memcmp or a string-taking
    mri_resource_is, and strstr) with a kind name as a string argument,
    alone or as the start of a spec ("pool(");
  - a comparison or search (a `...cmp` call, strstr) of what
    mr_resource_name or mr_resource_describe returns, whatever with;

and in python/mrctx on `==`/`!=` against a kind name, on
`.startswith("KIND")` and on `"KIND(" in ...`. Prints each as FILE:LINE: text, and exits 1 if there
is one.
"""
import os
import re
import sys

OPS_NAME = re.compile(r'\.name\s*=\s*"([a-z_]+)"')
CALL = re.compile(r"\b(\w*(?:cmp|_is)|strstr|strcasestr)\s*\(")
STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
RESOURCE_TEXT = re.compile(r"\bmr_resource_(?:name|describe)\s*\(")
C_SOURCES = (".c", ".h", ".cpp", ".hpp", ".cu")


def source_files(root, folders, suffixes):
    for folder in folders:
        for base, dirs, names in os.walk(os.path.join(root, folder)):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
            for name in sorted(names):
                if name.endswith(suffixes):
                    yield os.path.join(base, name)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def kind_names(root):
    names = set()
    for path in source_files(root, ["lib"], (".c",)):
        text = read(path)
        for m in re.finditer(r"mr_resource_ops\s+\w+\s*=\s*\{(.*?)\};", text, re.S):
            names.update(OPS_NAME.findall(m.group(1)))
    return names


def strip_comments(text):
    """`text` with C comments blanked (newlines kept, so lines still count)."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"/\*.*?\*/|//[^\n]*", blank, text, flags=re.S)


def arguments(text, start):
    """The text between the parenthesis that opens at `start` - 1 and the one
    that closes it (strings skipped), or the rest of the text."""
    depth, i = 1, start
    while i < len(text) and depth > 0:
        c = text[i]
        if c == '"':
            m = STRING.match(text, i)
            i = m.end() if m else i + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        i += 1
    return text[start:i - 1]


def names_a_kind(literal, kinds):
    return any(literal == k or literal.startswith(k + "(") for k in kinds)


def check_c(path, kinds, problems):
    text = strip_comments(read(path))
    for m in CALL.finditer(text):
        args = arguments(text, m.end())
        literals = [s.group(1) for s in STRING.finditer(args)]
        why = None
        if not m.group(1).endswith("_is") and RESOURCE_TEXT.search(args):
            why = "compares a resource's name or description"
        elif any(names_a_kind(s, kinds) for s in literals):
            why = "compares with a built-in kind's name"
        if why:
            line = text.count("\n", 0, m.start()) + 1
            problems.append(f"{path}:{line}: {why}: {m.group(0)}{' '.join(args.split())})")


def check_python(path, kinds, problems):
    alternatives = "|".join(sorted(re.escape(k) for k in kinds))
    pattern = re.compile(rf'(?:[=!]=\s*["\'](?:{alternatives})["\']|["\'](?:{alternatives})["\']\s*[=!]='
                         rf'|\.startswith\(\s*["\'](?:{alternatives})\b'
                         rf'|["\'](?:{alternatives})\(["\']\s+in\b)')
    for number, line in enumerate(read(path).splitlines(), 1):
        code = line.split("#", 1)[0]
        if pattern.search(code):
            problems.append(f"{path}:{number}: compares with a built-in kind's name: {line.strip()}")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    kinds = kind_names(root)
    if not {"cache", "retry", "track", "pool"} <= kinds:
        print(f"check_kind_names: found only {sorted(kinds)} as lib/'s ops names; is {root} the tree?")
        return 1
    problems = []
    for path in source_files(root, ["lib", "tools", "include"], C_SOURCES):
        check_c(path, kinds, problems)
    for path in source_files(root, [os.path.join("python", "mrctx")], (".py",)):
        check_python(path, kinds, problems)
    for p in problems:
        print(os.path.relpath(p.split(":", 1)[0], root) + ":" + p.split(":", 1)[1])
    if problems:
        print(f"check_kind_names: {len(problems)} place(s) tell a built-in kind by its name; use its "
              "type (mr_resource_state with the kind's ops, or mri_is_cache and kin)")
        return 1
    print(f"check_kind_names: no name comparisons of the {len(kinds)} built-in kinds")
    return 0


if __name__ == "__main__":
    sys.exit(main())

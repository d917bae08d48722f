#!/usr/bin/env python3
"""check_readme_apt.py: README.md's apt line installs what the tests need,
and it is the line CI runs.

    check_readme_apt.py ROOT

README.md marks its apt line with a comment starting "<!-- apt-line:";
the ```sh block after it must be the one line

    apt-get update && apt-get install -y PACKAGE...

that .ci/run finds by the same mark and runs as written (.ci/run must
still do so: it names the mark and runs "$readme_apt"). The line must
install pytest (python3-pytest) and, for every module a unit or fake
Python test imports with pytest.importorskip (tests/python/*.py; the gpu
suite's frameworks are not Debian packages), its Debian package
python3-MODULE, and the checkers tests/python/check_types.py runs
(python3-mypy, pyflakes3): a test that skips on a fresh machine following README.md
is a test nobody runs.
"""
import glob
import os
import re
import sys

MARK = "<!-- apt-line:"
LINE = re.compile(r"apt-get update && apt-get install -y((?: [a-z0-9][a-z0-9.+-]*)+)")


def readme_line(text):
    """The line after the mark, or an error message."""
    marks = text.count(MARK)
    if marks != 1:
        return None, f"README.md has {marks} '{MARK}' marks, not one"
    after = text[text.index(MARK):].split("\n")
    # The mark's line, then ```sh, the line, ```.
    if len(after) < 4 or after[1] != "```sh" or after[3] != "```":
        return None, f"the mark is not followed by a ```sh block of one line: {after[1:4]}"
    if not LINE.fullmatch(after[2]):
        return None, ("the apt line is not 'apt-get update && apt-get install -y PACKAGE...': "
                      + after[2])
    return after[2], None


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = sys.argv[1]
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        line, error = readme_line(f.read())
    if error:
        print(f"check_readme_apt: {error}", file=sys.stderr)
        return 1
    packages = set(LINE.fullmatch(line).group(1).split())
    problems = []
    with open(os.path.join(root, ".ci", "run"), encoding="utf-8") as f:
        ci = f.read()
    if MARK not in ci or '"$readme_apt"' not in ci:
        problems.append(f".ci/run no longer finds the line by '{MARK}' and runs \"$readme_apt\"")
    modules = {"pytest": "tests/python/run_pytest.py"}
    # The checkers unit.python.types runs (tests/python/check_types.py),
    # by their Debian packages.
    tools = {"python3-mypy": "mypy", "pyflakes3": "pyflakes"}
    for package, tool in sorted(tools.items()):
        if package not in packages:
            problems.append(f"tests/python/check_types.py runs {tool}: README.md's apt line "
                            f"does not install {package}")
    for path in sorted(glob.glob(os.path.join(root, "tests", "python", "*.py"))):
        with open(path, encoding="utf-8") as f:
            for module in re.findall(r"importorskip\(\s*[\"']([A-Za-z0-9_]+)", f.read()):
                modules.setdefault(module, os.path.relpath(path, root))
    for module, where in sorted(modules.items()):
        package = "python3-" + module.replace("_", "-").lower()
        if package not in packages:
            problems.append(f"{where} needs the module {module}: README.md's apt line "
                            f"does not install {package}")
    for problem in problems:
        print(f"check_readme_apt: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"check_readme_apt: README.md's apt line installs {len(packages)} packages, "
          f"among them the Python modules the tests import ({', '.join(sorted(modules))}), "
          "and .ci/run runs it")
    return 0


if __name__ == "__main__":
    sys.exit(main())

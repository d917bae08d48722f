#!/usr/bin/env python3
"""check_doc.py: every ```cpp block of a page is compiled and tested code.

Each block must appear word for word (trailing spaces aside) in one of the
source files given, which the test suites build and run, so the page's
examples cannot drift from code that works. Usage:

    check_doc.py PAGE.md SOURCE...
"""
import re
import sys


def normalize(text):
    return "\n".join(line.rstrip() for line in text.splitlines())


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    page = sys.argv[1]
    with open(page, encoding="utf-8") as f:
        text = f.read()
    sources = {}
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            sources[path] = normalize(f.read())
    blocks = [(text.count("\n", 0, m.start()) + 2, normalize(m.group(1)))
              for m in re.finditer(r"^```cpp\n(.*?)^```$", text, re.S | re.M)]
    if not blocks:
        print(f"{page}: no ```cpp blocks", file=sys.stderr)
        return 1
    missing = [line for line, block in blocks
               if not any(block in source for source in sources.values())]
    for line in missing:
        print(f"{page}:{line}: this ```cpp block is not in {', '.join(sources)}",
              file=sys.stderr)
    if missing:
        return 1
    print(f"{page}: {len(blocks)} cpp blocks, each found in {', '.join(sources)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

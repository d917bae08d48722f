#!/usr/bin/env python3
"""check_links.py: every relative link of the pages resolves.

    check_links.py ROOT [PAGE.md...]

Without pages: ROOT's README.md and every docs/*.md.

For each Markdown link or image `[text](target)` of each page (outside code
blocks and code spans) whose target is not a URL (http:, https:, mailto:):
the file it names, relative to the page, must exist in ROOT's tree, and an
`#anchor` must match a heading of the page it points into (GitHub's rule:
the heading's text lowercased, punctuation but `-` and `_` dropped, spaces
as `-`, a repeated heading's anchor suffixed -1, -2, ...) or an explicit
`<a id="...">`/`<a name="...">`. Prints each broken link as
PAGE:LINE: target: why, and exits 1 if there is one. A page that cites an
issue by number ("issue 22"), which its readers cannot open, fails too.
"""
import glob
import os
import re
import sys

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"", re.I)


def prose_lines(text):
    """(line number, line) for every line outside fenced code blocks, with
    code spans blanked out."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, re.sub(r"`+[^`]*`+", lambda m: " " * len(m.group(0)), line)


def slug(heading):
    """GitHub's anchor for a heading's Markdown text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").replace("*", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        found, seen = set(), {}
        fenced = False
        for line in text.splitlines():
            if FENCE.match(line):
                fenced = not fenced
                continue
            if fenced:
                continue
            found.update(HTML_ANCHOR.findall(line))
            m = HEADING.match(line)
            if m:
                base = slug(m.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
        cache[path] = found
    return cache[path]


def check(root, page):
    problems = []
    with open(page, encoding="utf-8") as f:
        text = f.read()
    base = os.path.dirname(os.path.abspath(page))
    for number, line in prose_lines(text):
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                continue  # a URL
            path, _, anchor = target.partition("#")
            where = os.path.normpath(os.path.join(base, path)) if path else os.path.abspath(page)
            if not os.path.abspath(where).startswith(os.path.abspath(root)):
                problems.append((number, target, "outside the source tree"))
                continue
            if not os.path.exists(where):
                problems.append((number, target, "no such file"))
                continue
            if anchor and where.endswith(".md") and anchor not in anchors(where):
                problems.append((number, target, f"no heading with the anchor #{anchor} in "
                                 f"{os.path.relpath(where, root)}"))
    return problems


ISSUE = re.compile(r"\bissues? *#?[0-9]+|\bissue-[0-9]+", re.I)


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = sys.argv[1]
    pages = sys.argv[2:] or [os.path.join(root, "README.md")] + sorted(
        glob.glob(os.path.join(root, "docs", "*.md")))
    broken = 0
    links = 0
    for page in pages:
        with open(page, encoding="utf-8") as f:
            links += sum(len(LINK.findall(line)) for _, line in prose_lines(f.read()))
        for number, target, why in check(root, page):
            print(f"{os.path.relpath(page, root)}:{number}: {target}: {why}", file=sys.stderr)
            broken += 1
        # A reader cannot open the project's issues: the docs say what an
        # issue settled, not its number (CHANGELOG.md may cite them).
        with open(page, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                cited = ISSUE.search(line)
                if cited:
                    print(f"{os.path.relpath(page, root)}:{number}: cites '{cited.group(0)}', "
                          "an issue readers cannot see: say what it settled", file=sys.stderr)
                    broken += 1
    if broken:
        return 1
    print(f"check_links: {links} links in {len(pages)} pages, every relative one resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())

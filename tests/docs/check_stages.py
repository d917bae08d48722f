#!/usr/bin/env python3
"""check_stages.py: README.md's count of CI stages is .ci/run's.

    check_stages.py ROOT

A stage of .ci/run is a comment line starting "# N." or "# N" and a
letter (1, 1b, 1c, 2, ...). README.md must say "all N stages", N in words
or digits.
"""
import os
import re
import sys

WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"]


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = sys.argv[1]
    with open(os.path.join(root, ".ci", "run"), encoding="utf-8") as f:
        stages = re.findall(r"^# (\d+[a-z]?)\. ", f.read(), re.M)
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        said = re.findall(r"all\s+(\w+)\s+stages", f.read())
    wanted = {str(len(stages))} | ({WORDS[len(stages)]} if len(stages) < len(WORDS) else set())
    if not said or any(n not in wanted for n in said):
        print(f"check_stages: .ci/run has {len(stages)} stages ({', '.join(stages)}); "
              f"README.md says {said or 'nothing of all N stages'}", file=sys.stderr)
        return 1
    print(f"check_stages: {len(stages)} stages, as README.md says")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Checks that every line a fix wrote into a lit test's copy is at most LIMIT
characters wide.

  max_fixed_width.py ORIGINAL FIXED LIMIT

The lines the fix wrote are those of FIXED that ORIGINAL does not have (by a
line diff); CHECK lines are not counted.
"""
import difflib
import re
import sys


def main(original, fixed, limit):
    old = open(original, encoding="utf-8").read().splitlines()
    new = open(fixed, encoding="utf-8").read().splitlines()
    written = []
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(
            a=old, b=new, autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            written += new[j1:j2]
    written = [l for l in written if not re.search(r"//\s*CHECK-", l)]
    if not written:
        sys.exit(f"{fixed}: no line was written by a fix")
    wide = [l for l in written if len(l) > limit]
    for l in wide:
        print(f"{len(l)} > {limit}: {l}")
    if wide:
        sys.exit(1)
    print(f"{len(written)} fixed lines, the widest "
          f"{max(len(l) for l in written)} <= {limit}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))

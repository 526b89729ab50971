#!/usr/bin/env python3
"""Runs one torch-tidy check on a lit test file and verifies its output.

Usage (from a RUN: line):
  check_torch_tidy.py [--config=YAML] [--check-suffix=S] [--no-fix]
                      TEST.cpp CHECK_NAME TMP_PREFIX
                      [-- EXTRA_COMPILER_ARGS...]

The test file carries its own expectations:
  CHECK-MESSAGES: lines  warnings (and notes) that must appear, in order;
                         any other warning or error fails the test.
  CHECK-NOTES:    lines  as CHECK-MESSAGES, but every note must be listed too.
  CHECK-FIXES:    lines  the file after `clang-tidy --fix` (checked only when
                         present).
With --check-suffix=S the prefixes are CHECK-MESSAGES-S, CHECK-NOTES-S and
CHECK-FIXES-S, so one file can hold several runs. A run with no matching
CHECK-MESSAGES/CHECK-NOTES line must produce no diagnostic.
Environment (set by lit.cfg.py): TORCH_TIDY_CLANG_TIDY, TORCH_TIDY_MODULE,
TORCH_TIDY_FILECHECK, TORCH_TIDY_MOCK_INCLUDE, TORCH_TIDY_INCLUDE.
"""
import os
import re
import shutil
import subprocess
import sys


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, **kw)


def clang_tidy_env():
    """The environment for clang-tidy: with a sanitized module, its runtime
    preloaded (TORCH_TIDY_PRELOAD, set by lit.cfg.py)."""
    env = dict(os.environ)
    preload = env.get("TORCH_TIDY_PRELOAD")
    if preload:
        env["LD_PRELOAD"] = preload
        env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1"
    return env


def filecheck(prefix, check_file, text, implicit_not):
    cmd = [os.environ["TORCH_TIDY_FILECHECK"], check_file,
           f"--check-prefix={prefix}", "--strict-whitespace",
           "--dump-input=fail"]
    for pattern in implicit_not:
        cmd.append(f"--implicit-check-not={pattern}")
    res = subprocess.run(cmd, input=text, text=True, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    if res.returncode != 0:
        sys.stdout.write(res.stdout)
        sys.exit(f"FileCheck {prefix} failed")


def main(argv):
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    config = None
    suffix = ""
    want_fix = True
    positional = []
    for a in argv:
        if a.startswith("--config="):
            config = a[len("--config="):]
        elif a.startswith("--check-suffix="):
            suffix = "-" + a[len("--check-suffix="):]
        elif a == "--no-fix":
            want_fix = False
        else:
            positional.append(a)
    if len(positional) != 3:
        sys.exit(__doc__)
    test_file, check_name, tmp = positional
    src = open(test_file, encoding="utf-8").read()
    has_fixes = f"CHECK-FIXES{suffix}:" in src
    has_notes = f"CHECK-NOTES{suffix}:" in src

    os.makedirs(os.path.dirname(os.path.abspath(tmp)), exist_ok=True)
    work = tmp + os.path.splitext(test_file)[1]
    # The copy keeps the CHECK lines (so [[@LINE]] stays right) and is what
    # --fix rewrites.
    shutil.copyfile(test_file, work)

    cmd = [os.environ["TORCH_TIDY_CLANG_TIDY"],
           f"--load={os.environ['TORCH_TIDY_MODULE']}",
           f"-checks=-*,{check_name}", "--quiet"]
    if config:
        cmd.append(f"--config={config}")
    if has_fixes and want_fix:
        cmd.append("--fix-notes")  # --fix, and a fix on a note (a schema)
    cmd += [work, "--", "-std=c++17",
            "-isystem", os.environ["TORCH_TIDY_MOCK_INCLUDE"],
            "-I", os.environ["TORCH_TIDY_INCLUDE"]] + extra
    res = run(cmd, env=clang_tidy_env())
    out = res.stdout
    # clang-tidy exits non-zero on compiler errors; tests that expect them
    # check the text. A crash (signal) or a sanitizer report is always a
    # failure.
    if res.returncode < 0 or "Stack dump" in out or "PLEASE submit a bug" in out \
            or "ERROR: AddressSanitizer" in out:
        sys.stdout.write(out)
        sys.exit("clang-tidy crashed")

    prefix = ("CHECK-NOTES" if has_notes else "CHECK-MESSAGES") + suffix
    implicit = ["{{warning|error}}:"] + (["note:"] if has_notes else [])
    if prefix + ":" in src:
        filecheck(prefix, test_file, out, implicit)
    else:
        bad = [l for l in out.splitlines()
               if re.search(r"(warning|error):", l)
               and "warnings generated" not in l]
        if bad:
            sys.stdout.write(out)
            sys.exit("expected no diagnostics")
    if has_fixes:
        fixed = open(work, encoding="utf-8").read()
        # Check against the fixed file with CHECK lines removed, so a CHECK
        # line cannot match itself.
        stripped = "\n".join(l for l in fixed.splitlines()
                             if not re.search(r"//\s*CHECK-", l))
        filecheck("CHECK-FIXES" + suffix, test_file, stripped, [])


if __name__ == "__main__":
    main(sys.argv[1:])

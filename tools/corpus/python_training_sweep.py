#!/usr/bin/env python3
"""torch-tidy-py over public training code (issue 78): each repository of
tools/corpus/python_training.txt at its pinned commit, its Python files that
mention torch linted in one run (so that calls across its files are
followed), with the defaults and with --flag-read any. Prints, per
repository, the files, those that did not parse, the compiled regions, the
warnings (default and audit) and the time; writes the warnings and regions
to OUT/<owner+name>/{default,any}.txt for reading. Not in CI: the mirrors
come from the session's fetch (MIRROR/<owner+name>, a git directory).

  python3 tools/corpus/python_training_sweep.py [--mirror /work/.mirror]
      [--out build/python-training] [--python VENV_PYTHON] [--only NAME]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LIST = os.path.join(HERE, "python_training.txt")
TOOL = os.path.join(ROOT, "tools", "torch-tidy", "torch-tidy-py")


def repos(only=None):
    out = []
    with open(LIST) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, commit, domain, *note = line.split(None, 3)
            if only and only not in name:
                continue
            out.append((name, commit, domain, note[0] if note else ""))
    return out


def git_dir(mirror, name):
    d = os.path.join(mirror, name.replace("/", "+"))
    return os.path.join(d, "repo") if os.path.isdir(os.path.join(d, "repo")) else d


def export(gd, commit, dest):
    """The Python files that mention torch, at commit, under dest."""
    names = subprocess.run(["git", "--git-dir", gd, "grep", "-l", "-E", r"\btorch\b", commit,
                            "--", "*.py"], capture_output=True, text=True).stdout.split("\n")
    files = []
    for entry in names:
        if not entry:
            continue
        path = entry.split(":", 1)[1]
        text = subprocess.run(["git", "--git-dir", gd, "show", f"{commit}:{path}"],
                              capture_output=True).stdout
        target = os.path.join(dest, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(text)
        files.append(target)
    return sorted(files)


def lint(python, files, cwd, *options):
    start = time.time()
    res = subprocess.run([python, TOOL, "--list-regions", *options, *files], cwd=cwd,
                         capture_output=True, text=True)
    took = time.time() - start
    summary = re.search(r"torch-tidy-py: (\d+) file\(s\), (\d+) compiled region\(s\), "
                        r"(\d+) warning\(s\), (\d+) with a fix", res.stderr)
    failed = len(re.findall(r": error: ", res.stderr))
    return {"exit": res.returncode, "seconds": round(took, 1),
            "regions": int(summary.group(2)) if summary else None,
            "warnings": int(summary.group(3)) if summary else None,
            "fixes": int(summary.group(4)) if summary else None,
            "errors": failed, "stdout": res.stdout, "stderr": res.stderr}


def table(path):
    with open(path) as f:
        rows = json.load(f)
    print("| repository @ commit | domain | files | regions | warnings | with `--flag-read any` "
          "| not reported (not measured, or a reader whose loss cannot be told) | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        d, a = r["default"], r["any"]
        unmeasured = re.search(r"; (\d+) write\(s\) of a form", open(os.path.join(
            os.path.dirname(path), r["repo"].replace("/", "+") + "@" + r["commit"][:8],
            "default.txt")).read())
        print(f"| {r['repo']} @ {r['commit'][:8]} | {r['domain']} | {r['files']} | "
              f"{d['regions']} | {d['warnings']} | {a['warnings']} | "
              f"{unmeasured.group(1) if unmeasured else 0} | {d['seconds']} |")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", default="/work/.mirror")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "python-training"))
    ap.add_argument("--python", default=os.path.join(
        os.environ.get("TORCH_TIDY_CACHE") or os.path.expanduser("~/.cache/torch-tidy"),
        "venv-tools", "bin", "python"))
    ap.add_argument("--only", help="only the repositories whose name contains this")
    ap.add_argument("--table", action="store_true",
                    help="print OUT/summary.json as docs/reliability.md's table, and exit")
    args = ap.parse_args()
    if args.table:
        return table(os.path.join(args.out, "summary.json"))
    rows = []
    for name, commit, domain, note in repos(args.only):
        gd = git_dir(args.mirror, name)
        if not os.path.isdir(gd):
            print(f"{name}: no mirror at {gd} (fetch it first)")
            continue
        dest = os.path.join(args.out, name.replace("/", "+") + "@" + commit[:8])
        subprocess.run(["rm", "-rf", dest])
        files = export(gd, commit, dest)
        rel = [os.path.relpath(f, dest) for f in files]
        row = {"repo": name, "commit": commit, "domain": domain, "files": len(files)}
        for mode, options in (("default", ()), ("any", ("--flag-read", "any"))):
            r = lint(args.python, rel, dest, *options)
            with open(os.path.join(dest, f"{mode}.txt"), "w") as f:
                f.write(r.pop("stdout") + r.pop("stderr"))
            row[mode] = r
        rows.append(row)
        d, a = row["default"], row["any"]
        print(f"{name} @ {commit[:8]} ({domain}): {len(files)} files, {d['errors']} errors, "
              f"{d['regions']} regions, {d['warnings']} warnings ({a['warnings']} with "
              f"--flag-read any), {d['seconds']} s", flush=True)
    summary = os.path.join(args.out, "summary.json")
    if args.only and os.path.exists(summary):
        # a partial run updates its rows of the last whole one, in LIST's order
        with open(summary) as f:
            kept = {(r["repo"], r["commit"]): r for r in json.load(f)}
        kept.update({(r["repo"], r["commit"]): r for r in rows})
        rows = [kept[(n, c)] for n, c, _, _ in repos() if (n, c) in kept]
    with open(summary, "w") as f:
        json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Finds the first torch release whose torch.compile keeps requires_grad after
a Python setitem into a fresh tensor (outside CI: it downloads releases).

  first_release.py [--versions 2.8.0,2.9.0,...] [--also 2.10.0,...]
                   [--cache DIR] [--out FILE]

Releases are searched by bisection (the behaviour is assumed to change once,
from lost to kept); each one measured gets a venv under the cache
(TORCH_TIDY_CACHE or ~/.cache/torch-tidy, folder bisect/), made once. For
each, tools/ground-truth/release_probe.py runs the Python forms (setitem with
an advanced index, with an integer, index_copy_, and the two view writes)
under the eager and aot_eager backends; --also measures more releases beside
the bisection (for the other forms' history). Writes the measured rows as JSON
(docs/upstream/releases.json by default), prints a table per release and form,
and writes it into docs/upstream.md.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_VERSIONS = ["2.8.0", "2.9.0", "2.9.1", "2.10.0", "2.11.0", "2.12.0",
                    "2.12.1", "2.13.0", "2.14.0", "2.14.1", "2.15.0"]


def cache_root():
    return os.environ.get("TORCH_TIDY_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
        "torch-tidy")


def installed_version(py):
    res = subprocess.run([py, "-c", "import torch; print(torch.__version__)"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return res.stdout.strip().split("+")[0] if res.returncode == 0 else None


def venv_python(cache, version):
    """A venv with torch==version: bootstrap's when it has that version, else
    one made once under bisect/; None if pip fails."""
    for name in ("venv-torch-2.8.0", "venv-torch-latest"):
        py = os.path.join(cache, name, "bin", "python")
        if os.path.exists(os.path.join(cache, name, ".torch-tidy-ok")) and \
                installed_version(py) == version:
            return py
    d = os.path.join(cache, "bisect", "venv-torch-" + version)
    py = os.path.join(d, "bin", "python")
    stamp = os.path.join(d, ".torch-tidy-ok")
    if os.path.exists(stamp):
        return py
    print(f"first-release: installing torch=={version} into {d}", flush=True)
    subprocess.run([sys.executable, "-m", "venv", d], check=True)
    res = subprocess.run([py, "-m", "pip", "install", "-q", f"torch=={version}",
                          "numpy"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    if res.returncode != 0:
        print(res.stdout[-2000:])
        return None
    open(stamp, "w").close()
    return py


def measure(cache, version, memo):
    if version in memo:
        return memo[version]
    py = venv_python(cache, version)
    if py is None:
        memo[version] = None
        return None
    res = subprocess.run([py, os.path.join(HERE, "release_probe.py")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if res.returncode != 0:
        print(res.stderr[-2000:])
        memo[version] = None
        return None
    memo[version] = json.loads(res.stdout)
    return memo[version]


MARKER_BEGIN = "<!-- BEGIN GENERATED: tools/ground-truth/first_release.py -->"
MARKER_END = "<!-- END GENERATED -->"


def summary_table(rows):
    """One line per release, one cell per form: kept or lost on every
    compiled backend measured."""
    versions, forms = [], []
    for r in rows:
        if r["torch"] not in versions:
            versions.append(r["torch"])
        if r["form"] not in forms:
            forms.append(r["form"])
    lines = ["| torch | " + " | ".join(f"`{f}`" for f in forms) + " |",
             "|---|" + "---|" * len(forms)]
    for v in versions:
        cells = []
        for f in forms:
            kept = [r["kept"] for r in rows
                    if r["torch"] == v and r["form"] == f and r["backend"] != "none"]
            cells.append("kept" if all(kept) else "**lost**" if not any(kept) else "mixed")
        lines.append(f"| {v} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_upstream_page(table, first_keeping, last_losing):
    """Replaces the generated block of docs/upstream.md."""
    path = os.path.join(ROOT, "docs", "upstream.md")
    text = open(path).read()
    block = "\n".join([
        MARKER_BEGIN, "",
        f"Setitem keeps the flag from torch {first_keeping} on ({last_losing} is the last "
        "release that loses it). Compiled backends eager and aot_eager; a cell says whether "
        "`requires_grad` read after the write in the compiled function is eager's (True):",
        "", table, "", MARKER_END])
    if MARKER_BEGIN in text and MARKER_END in text:
        text = text[:text.index(MARKER_BEGIN)] + block + \
            text[text.index(MARKER_END) + len(MARKER_END):]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    with open(path, "w") as f:
        f.write(text)


def setitem_kept(result):
    """Every compiled backend keeps the flag after both setitem forms."""
    return all(r["kept"] for r in result["rows"]
               if r["form"].startswith("setitem") and r["backend"] != "none")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--versions", default=",".join(DEFAULT_VERSIONS))
    ap.add_argument("--also", default="", help="more releases to measure")
    ap.add_argument("--cache", default=cache_root())
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "upstream",
                                                  "releases.json"))
    args = ap.parse_args()
    versions = args.versions.split(",")
    memo = {}
    # Bisection over the releases: lo loses the flag, hi keeps it.
    lo, hi = 0, len(versions) - 1
    first, last = measure(args.cache, versions[lo], memo), measure(args.cache, versions[hi], memo)
    if first is None or last is None:
        raise SystemExit("first-release: could not measure the end points")
    if setitem_kept(first) or not setitem_kept(last):
        raise SystemExit(f"first-release: {versions[lo]} must lose and {versions[hi]} "
                         "keep the flag for a bisection")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        result = measure(args.cache, versions[mid], memo)
        if result is None:  # not installable: drop it and go on
            versions.pop(mid)
            hi -= 1
            continue
        if setitem_kept(result):
            hi = mid
        else:
            lo = mid
    first_keeping, last_losing = versions[hi], versions[lo]
    for v in filter(None, args.also.split(",")):
        measure(args.cache, v, memo)
        if v not in versions:
            versions.append(v)
    order = DEFAULT_VERSIONS + [v for v in versions if v not in DEFAULT_VERSIONS]
    rows = []
    for v in sorted(versions, key=order.index):
        if v in memo and memo[v]:
            rows.extend(memo[v]["rows"])
    summary = {"first_release_keeping_setitem": first_keeping,
               "last_release_losing_setitem": last_losing,
               "generated_by": "tools/ground-truth/first_release.py",
               "rows": rows}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    table = summary_table(rows)
    print(table)
    write_upstream_page(table, first_keeping, last_losing)
    print(f"first-release: setitem keeps the flag from torch {first_keeping} on "
          f"({last_losing} is the last that loses it); wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

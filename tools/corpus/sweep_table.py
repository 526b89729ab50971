#!/usr/bin/env python3
"""The ecosystem sweep's table (issue 38), from a `run.py --whole` report.

  sweep_table.py OUT/report.json [MORE/report.json ...] [--labels tools/corpus/labels.tsv]

Per project: files linted and how many did not parse, the operators, C++
kernels and fakes the project index found, the operators whose kernels no
linted file let the checks see (by cause), and the default run's
torch-op-undeclared-mutation warnings by the consequence class their message
states (silent, graph break, loud, traced, none: an aliasing return). With
labels: per class, how many a reader confirmed (hazard), found benign, or
left unclear, and the precision. Prints Markdown (docs/reliability.md). A project in a later report replaces
its rows of an earlier one (a re-run after a change). A report given with
--rerun (`run.py --whole --only LIST` over some files after a change)
replaces only those files' warnings; the project's counts stay the whole run's.
"""
import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "torch-tidy"))
from torch_tidy_project.report import finding_class  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = "torch-op-undeclared-mutation"
CLASSES = ["silent", "graph break", "loud", "traced", "none"]


def class_of(message):
    """The consequence class a warning's message states (torch-tidy-project's
    reading of it); 'none' where it states none."""
    return finding_class(message) or "none"


def read_labels(path):
    labels = {}
    if not path or not os.path.exists(path):
        return labels
    for line in open(path):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.rstrip("\n").split("\t")
        if len(parts) >= 7:
            labels[(parts[0], parts[1], int(parts[2]), parts[3])] = parts[5]
    return labels


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", nargs="+")
    ap.add_argument("--labels", default=os.path.join(HERE, "labels.tsv"))
    ap.add_argument("--rerun", action="append", default=[],
                    help="a report of some files linted again: replaces "
                         "those files' rows only")
    args = ap.parse_args()
    report = {"files": [], "projects": []}
    for path in args.report:
        r = json.load(open(path))
        again = {p["repo"] for p in r.get("projects", [])}
        report["files"] = [e for e in report["files"] if e["repo"] not in again] + r["files"]
        report["projects"] = [p for p in report["projects"] if p["repo"] not in again] + \
            r.get("projects", [])
    for path in args.rerun:
        again = {(e["repo"], e["path"]): e for e in json.load(open(path))["files"]}
        report["files"] = [again.pop((e["repo"], e["path"]), e)
                           for e in report["files"]] + list(again.values())
    labels = read_labels(args.labels)
    projects = {p["repo"]: p for p in report["projects"]}
    by_repo = collections.defaultdict(collections.Counter)
    judged = collections.defaultdict(collections.Counter)
    for e in report["files"]:
        run = e["runs"].get("default") or next(iter(e["runs"].values()))
        for w in run["warnings"]:
            if w["check"] != CHECK:
                continue
            cls = class_of(w["message"])
            by_repo[e["repo"]][cls] += 1
            label = labels.get((e["repo"], e["path"], w["line"], w["check"]), "unlabelled")
            judged[cls][label] += 1
    head = ["project", "files (did not parse)", "operators", "C++ kernels", "fakes",
            "operators with no kernel seen (cause)"] + [f"{c}" for c in CLASSES]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    totals = collections.Counter()
    for repo in sorted(projects):
        p = projects[repo]
        unseen = "; ".join(f"{n} {cause}" for cause, n in (p.get("kernels_unseen") or {}).items())
        row = [repo, f"{p['files']} ({p['did_not_parse']})", str(p.get("operators") or 0),
               str(p.get("kernels") or 0), str(p.get("fakes") or 0), unseen or "none"]
        row += [str(by_repo[repo][c]) for c in CLASSES]
        for c in CLASSES:
            totals[c] += by_repo[repo][c]
        totals["files"] += p["files"]
        totals["unparsed"] += p["did_not_parse"]
        totals["crashes"] += p.get("crashes", 0)
        totals["timeouts"] += p.get("timeouts", 0)
        print("| " + " | ".join(row) + " |")
    print(f"\n{len(projects)} projects, {totals['files']} files ({totals['unparsed']} did not "
          f"parse in full), {totals['crashes']} crashes, {totals['timeouts']} timeouts; "
          "warnings by class: " + ", ".join(f"{c} {totals[c]}" for c in CLASSES))
    if labels:
        print("\n| class | warnings | hazard | benign | unclear | unlabelled | precision |")
        print("|---|---|---|---|---|---|---|")
        for c in CLASSES:
            t = judged[c]
            n = sum(t.values())
            if not n:
                continue
            done = t["hazard"] + t["benign"]
            precision = f"{100 * t['hazard'] / done:.0f}%" if done else "-"
            print(f"| {c} | {n} | {t['hazard']} | {t['benign']} | {t['unclear']} | "
                  f"{t['unlabelled']} | {precision} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

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

  sweep_table.py REPORT... --tsv tools/corpus/sweep_results.tsv
      also writes the per-project rows, the committed results that
      tools/corpus/found_counts.py derives the pages' counts from;
  sweep_table.py --results tools/corpus/sweep_results.tsv
      prints the table from those committed rows (no report needed).
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


COLUMNS = ["project", "files", "did not parse", "operators", "C++ kernels", "fakes",
           "operators with no kernel seen (cause)"] + CLASSES


def rows_of_reports(paths, reruns):
    """The per-project rows (COLUMNS) of run.py --whole reports, and the
    warnings by class and label."""
    report = {"files": [], "projects": []}
    for path in paths:
        r = json.load(open(path))
        again = {p["repo"] for p in r.get("projects", [])}
        report["files"] = [e for e in report["files"] if e["repo"] not in again] + r["files"]
        report["projects"] = [p for p in report["projects"] if p["repo"] not in again] + \
            r.get("projects", [])
    for path in reruns:
        again = {(e["repo"], e["path"]): e for e in json.load(open(path))["files"]}
        report["files"] = [again.pop((e["repo"], e["path"]), e)
                           for e in report["files"]] + list(again.values())
    by_repo = collections.defaultdict(collections.Counter)
    warnings = []
    for e in report["files"]:
        run = e["runs"].get("default") or next(iter(e["runs"].values()))
        for w in run["warnings"]:
            if w["check"] != CHECK:
                continue
            cls = class_of(w["message"])
            by_repo[e["repo"]][cls] += 1
            warnings.append(((e["repo"], e["path"], w["line"], w["check"]), cls))
    rows = []
    totals = collections.Counter()
    for p in (report["projects"][i] for i in sorted(range(len(report["projects"])),
                                                    key=lambda i: report["projects"][i]["repo"])):
        unseen = "; ".join(f"{n} {cause}" for cause, n in (p.get("kernels_unseen") or {}).items())
        rows.append([p["repo"], p["files"], p["did_not_parse"], p.get("operators") or 0,
                     p.get("kernels") or 0, p.get("fakes") or 0, unseen or "none"]
                    + [by_repo[p["repo"]][c] for c in CLASSES])
        totals["crashes"] += p.get("crashes", 0)
        totals["timeouts"] += p.get("timeouts", 0)
    return rows, warnings, totals


def read_results(path):
    """The committed rows (sweep_results.tsv)."""
    rows = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        c = line.rstrip("\n").split("\t")
        rows.append([c[0]] + [int(x) for x in c[1:6]] + [c[6]] + [int(x) for x in c[7:]])
    return rows


def summary(rows, totals=None):
    """The line under the table."""
    linted = sum(1 for r in rows if r[1] > 0)
    text = (f"{len(rows)} projects listed, {linted} linted whole (at least one file), "
            f"{sum(r[1] for r in rows)} files ({sum(r[2] for r in rows)} did not parse in full)")
    if totals is not None:
        text += f", {totals['crashes']} crashes, {totals['timeouts']} timeouts"
    return text + "; warnings by class: " + ", ".join(
        f"{c} {sum(r[7 + i] for r in rows)}" for i, c in enumerate(CLASSES))


def markdown(rows):
    head = ["project", "files (did not parse)", "operators", "C++ kernels", "fakes",
            "operators with no kernel seen (cause)"] + CLASSES
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        out.append("| " + " | ".join([r[0], f"{r[1]} ({r[2]})"] + [str(x) for x in r[3:]]) + " |")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", nargs="*")
    ap.add_argument("--labels", default=os.path.join(HERE, "labels.tsv"))
    ap.add_argument("--rerun", action="append", default=[],
                    help="a report of some files linted again: replaces "
                         "those files' rows only")
    ap.add_argument("--tsv", help="also write the per-project rows here")
    ap.add_argument("--results", help="print the table of these committed rows instead")
    args = ap.parse_args()
    if args.results:
        rows = read_results(args.results)
        print("\n".join(markdown(rows)) + "\n\n" + summary(rows))
        return 0
    if not args.report:
        ap.error("a report (or --results) is needed")
    rows, warnings, totals = rows_of_reports(args.report, args.rerun)
    if args.tsv:
        with open(args.tsv, "w") as f:
            f.write("# The ecosystem sweep's results (sweep_table.py --tsv); columns: "
                    + ", ".join(COLUMNS) + "\n")
            for r in rows:
                f.write("\t".join(str(x) for x in r) + "\n")
    print("\n".join(markdown(rows)) + "\n\n" + summary(rows, totals))
    labels = read_labels(args.labels)
    judged = collections.defaultdict(collections.Counter)
    for key, cls in warnings:
        judged[cls][labels.get(key, "unlabelled")] += 1
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

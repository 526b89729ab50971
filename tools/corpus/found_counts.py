#!/usr/bin/env python3
"""The counts docs/found.md, docs/reliability.md and the README state, derived
from the committed lists: tools/corpus/found.tsv (the ledger, one row per
distinct operator), labels.tsv (the warnings behind each), sweep.txt and
sweep_results.tsv (the ecosystem sweep); a ledger project is one of the sweep's
or of issue 80's unseen libraries (unseen_libraries.txt).

  found_counts.py          prints every count and the sentence each page states it in
  found_counts.py check    fails where a page states another number, where a sentence that
                           states a count is gone, or where the ledger and labels.tsv disagree
                           (ctest docs-counts)

Counts are distinct operators; a warning per written argument makes more
warnings than operators, so warnings are counted apart.
"""
import argparse
import collections
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import sweep_table  # noqa: E402  (the committed sweep rows)

CHECK = "torch-op-undeclared-mutation"
PAGES = {"README": "README.md", "found": "docs/found.md", "reliability": "docs/reliability.md"}
# How docs/found.md's tables name a project in their first column.
BUG_TABLE_NAMES = {"sgl-kernel-xpu": "sgl-project/sgl-kernel-xpu",
                   "sgl-kernel-npu": "sgl-project/sgl-kernel-npu",
                   "pyg-lib": "pyg-team/pyg-lib", "flashinfer": "flashinfer-ai/flashinfer",
                   "sglang's CPU backend": "sgl-project/sglang",
                   "intel-extension-for-pytorch": "intel/intel-extension-for-pytorch"}
CLASS_WORDS = {"silent": "silent", "graph break": "graph-break", "loud": "loud",
               "none": "none", "not reported": "-"}


def rows_of(path, columns):
    out = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        parts = line.rstrip("\n").split("\t")
        out.append(dict(zip(columns, parts)))
    return out


def read_ledger(path=os.path.join(HERE, "found.tsv")):
    rows = rows_of(path, ["repo", "operator", "effect", "section", "class", "warnings"])
    for r in rows:
        r["warnings"] = [] if r["warnings"] == "-" else r["warnings"].split(",")
    return rows


def read_labels(path=os.path.join(HERE, "labels.tsv")):
    """{(repo, 'path:line'): label} of the check's labelled warnings."""
    return {(r["repo"], f"{r['path']}:{r['line']}"): r["label"]
            for r in rows_of(path, ["repo", "path", "line", "check", "class", "label"])
            if r["check"] == CHECK}


def sweep_projects(path=os.path.join(HERE, "sweep.txt")):
    return [line.split()[0] for line in open(path)
            if line.strip() and not line.startswith("#")]


def unseen_projects(path=os.path.join(HERE, "unseen_libraries.txt")):
    """Issue 80's unseen libraries, linted whole one by one
    (tools/corpus/unseen_libraries.py): a ledger project comes from these or
    from the sweep."""
    return sweep_projects(path)


class Counts:
    """Every count the pages state, from the committed lists."""

    def __init__(self):
        self.ledger = read_ledger()
        self.labels = read_labels()
        self.sweep = sweep_projects()
        self.unseen = unseen_projects()
        self.results = sweep_table.read_results(os.path.join(HERE, "sweep_results.tsv"))

    def problems(self):
        """Where the ledger and the labels disagree."""
        out = []
        seen = set()
        names = collections.Counter((r["repo"], r["operator"]) for r in self.ledger)
        out += [f"found.tsv: {repo} {op} has {n} rows" for (repo, op), n in names.items() if n > 1]
        for r in self.ledger:
            if r["repo"] not in self.sweep and r["repo"] not in self.unseen:
                out.append(f"found.tsv: {r['repo']} is in neither sweep.txt nor "
                           "unseen_libraries.txt")
            for w in r["warnings"]:
                seen.add((r["repo"], w))
                label = self.labels.get((r["repo"], w))
                if label != "hazard":
                    out.append(f"found.tsv: {r['repo']} {r['operator']}: warning {w} is "
                               f"labelled {label or 'nowhere'} in labels.tsv, not hazard")
        for (repo, w), label in sorted(self.labels.items()):
            if (repo in self.sweep or repo in self.unseen) and label == "hazard" \
                    and (repo, w) not in seen:
                out.append(f"labels.tsv: the hazard {repo} {w} belongs to no operator of "
                           "found.tsv")
        return out

    def select(self, **where):
        return [r for r in self.ledger
                if all((r[k] in v) if isinstance(v, tuple) else r[k] == v
                       for k, v in where.items())]

    @staticmethod
    def tally(rows):
        """(operators, warnings, {class: operators})."""
        classes = collections.Counter(r["class"] for r in rows)
        return len(rows), sum(len(r["warnings"]) for r in rows), dict(classes)

    def sweep_listed(self):
        return len(self.sweep)

    def sweep_linted(self):
        return sum(1 for r in self.results if r[1] > 0)


def table_rows(text, header_start):
    """The rows (cells) of the Markdown table whose header line starts so."""
    lines = text.splitlines()
    at = [i for i, line in enumerate(lines) if line.startswith(header_start)]
    if not at:
        return None
    out = []
    for line in lines[at[0] + 2:]:
        if not line.startswith("|"):
            break
        out.append([c.strip() for c in line.strip().strip("|").split("|")])
    return out


def stated_classes(cell):
    """{'graph-break': 24, ...} from 'graph break 24, loud 2'."""
    out = {}
    for word, n in re.findall(r"(silent|graph break|loud|none|not reported) (\d+)", cell):
        out[CLASS_WORDS[word]] = int(n)
    return out


def check_pages(counts, pages):
    """[(page, what, stated, derived)] of every count the pages state."""
    found, readme, rel = pages["found"], pages["README"], pages["reliability"]
    linted, listed = counts.sweep_linted(), counts.sweep_listed()
    out = []

    def sentence(page, text, pattern, derived, what):
        hits = re.findall(pattern, text)
        if not hits:
            out.append((page, what, "sentence missing: " + pattern, derived))
        for h in hits:
            out.append((page, what, int(h), derived))

    sentence("README", readme, r"sweep of (\d+) custom-operator libraries\s+linted whole", linted,
             "sweep projects linted whole")
    sentence("found", found, r"(\d+) projects\s+linted whole", linted,
             "sweep projects linted whole")
    sentence("reliability", rel, r"So (\d+) projects were linted whole", linted,
             "sweep projects linted whole")
    sentence("reliability", rel, r"`tools/corpus/sweep.txt` lists (\d+) public projects", listed,
             "sweep projects listed")
    table = sweep_table.markdown(counts.results)
    stated = "\n".join(table) + "\n\n" + sweep_table.summary(counts.results)
    out.append(("reliability", "the sweep's table and its summary line",
                "as sweep_table.py --results prints" if stated in rel else "differs",
                "as sweep_table.py --results prints"))
    sentence("reliability", rel, r"now has the (\d+) rows of its warnings",
             sum(1 for repo, _ in counts.labels if repo == "vllm-project/vllm-ascend"),
             "vllm-ascend's rows in labels.tsv")
    silent = [r for r in counts.results if r[7] > 0]
    hits = re.findall(r"The sweep's silent-class warnings are (\d+), in (\d+) projects", rel)
    out.append(("reliability", "the sweep's silent-class warnings, projects",
                tuple(int(x) for x in hits[0]) if hits else "sentence missing",
                (sum(r[7] for r in silent), len(silent))))
    fi = counts.select(repo="flashinfer-ai/flashinfer", section="twinned")
    sentence("found", found, r"torch-tidy reports (\d+) such operators", len(fi),
             "flashinfer's catch-all operators")

    # docs/found.md's table of classes: operators per project, twinned.
    rows = table_rows(found, "| project | registers (read at the pinned commit)")
    if rows is None:
        out.append(("found", "the table of classes", "table missing", "present"))
    for cells in rows or []:
        m = re.match(r"(.+?) \((?:latent, )?(\d+) operators", cells[0])
        if not m or m.group(1) not in BUG_TABLE_NAMES:
            out.append(("found", f"the table of classes: {cells[0]}", "unknown row", "a project"))
            continue
        n = len(counts.select(repo=BUG_TABLE_NAMES[m.group(1)], section="twinned"))
        out.append(("found", f"operators of {m.group(1)} (twinned)", int(m.group(2)), n))

    # The latent and side-effect tables: operators, warnings and classes.
    for header, effects, what in (
            ("| project @ commit | confirmed |", ("writes", "aliases"), "latent"),
            ("| project @ commit | side effects |", ("side-effect",), "side effects")):
        rows = table_rows(found, header)
        if rows is None:
            out.append(("found", f"the {what} table", "table missing", "present"))
            continue
        listed_repos = set()
        for cells in rows:
            repo = cells[0].split(" @ ")[0]
            listed_repos.add(repo)
            section = ("latent",) if what == "latent" else ("latent", "twinned")
            ops, warns, classes = Counts.tally(counts.select(repo=repo, section=section,
                                                             effect=effects))
            m = re.match(r"(\d+) operators? \((\d+) warnings?\)", cells[1])
            stated = (int(m.group(1)), int(m.group(2))) if m else cells[1][:40]
            out.append(("found", f"{what}: {repo} operators (warnings)", stated, (ops, warns)))
            out.append(("found", f"{what}: {repo} classes", stated_classes(cells[2]), classes))
        for repo in sorted({r["repo"] for r in counts.select(effect=effects)
                            if what != "latent" or r["section"] == "latent"} - listed_repos):
            out.append(("found", f"{what}: {repo}", "not in the table", "a row"))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", nargs="?", default="print", choices=["print", "check"])
    args = ap.parse_args()
    counts = Counts()
    pages = {k: open(os.path.join(ROOT, v)).read() for k, v in PAGES.items()}
    results = check_pages(counts, pages)
    ledger_problems = counts.problems()
    bad = list(ledger_problems)
    for page, what, stated, derived in results:
        ok = stated == derived
        if args.command == "print" or not ok:
            print(f"{'ok  ' if ok else 'DIFF'} {PAGES[page]}: {what}: states {stated}, "
                  f"the lists give {derived}")
        if not ok:
            bad.append(what)
    for p in ledger_problems:
        print("LEDGER " + p)
    ops = counts.ledger
    print(f"docs-counts: {len(ops)} operators in the ledger "
          f"({len(counts.select(section='twinned'))} twinned, "
          f"{len(counts.select(section='latent'))} latent; "
          f"{len(counts.select(effect='side-effect'))} side effects), "
          f"{counts.sweep_listed()} sweep projects listed, {counts.sweep_linted()} linted whole; "
          f"{len(results)} counts on the pages, {len(bad)} problems")
    return 1 if args.command == "check" and bad else 0


if __name__ == "__main__":
    sys.exit(main())

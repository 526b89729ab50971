"""CI shards: --shard K/N lints a stable share of a run's files, and
`torch-tidy-project merge` combines the shards' --json (and SARIF) into the
result one run over every file would give, with one exit status
(docs/incremental.md).

Every shard computes the same partition: the files after pruning, by their
paths relative to the project root, weighed by the per-file times of an
earlier run's JSON (--shard-times) where it has them, else by their size,
and dealt to the lightest shard, heaviest file first. The partition must not
depend on what one machine has cached, so a shard's own cache is not used
for it. A merge checks that its shards are the N of one run and that they
linted every file exactly once; otherwise it says what is missing and fails
(exit 2)."""
import hashlib
import json
import os
import re
import sys
from collections import Counter

from . import coverage as cov
from . import index, python_files, report, sarif
from .common import ProjectError, rel, write_json


def parse(text):
    """(K, N) of 'K/N', 1 <= K <= N; ValueError otherwise."""
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise ValueError(f"--shard {text}: expected K/N with 1 <= K <= N")
    return int(m.group(1)), int(m.group(2))


def earlier_times(path):
    """{relative path: seconds} of an earlier run's (or merge's) JSON."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise ProjectError(f"--shard-times {path}: cannot read it ({e})")
    times = doc.get("file_seconds") if isinstance(doc, dict) else None
    if not isinstance(times, dict):
        raise ProjectError(f"--shard-times {path}: no file_seconds (not a "
                           f"torch-tidy-project --json file)")
    return {k: float(v) for k, v in times.items()
            if isinstance(v, (int, float))}


def partition(files, root, n, times=None):
    """[[files of shard 1], ..., [files of shard N]]: each file in one
    shard, the shards' weights as even as greedy dealing makes them."""
    times = times or {}
    names = {f: rel(f, root) for f in files}
    known = [times[names[f]] for f in files if names[f] in times]
    # A file the earlier run did not lint weighs as its average file did;
    # with no times at all, files weigh by size (bytes).
    if known:
        fallback = sum(known) / len(known)
        weight = {f: times.get(names[f], fallback) for f in files}
    else:
        weight = {f: float(_size(f)) for f in files}
    order = sorted(files, key=lambda f: (-weight[f], names[f]))
    shards, loads = [[] for _ in range(n)], [0.0] * n
    for f in order:
        i = min(range(n), key=lambda j: (loads[j], j))
        shards[i].append(f)
        loads[i] += weight[f]
    return [sorted(s, key=lambda f: names[f]) for s in shards]


def _size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def digest(names):
    return hashlib.sha256("\n".join(sorted(names)).encode()).hexdigest()


def registration_files(index_json, root):
    """{operator: [relative files registering its C++ kernels]} for every
    operator the project defines: what a merge needs to count the
    operators whose kernels were not seen."""
    by_op = index.cpp_kernels(index_json)
    return {op: sorted({rel(os.path.realpath(k["file"]), root)
                        for k in by_op.get(op, [])})
            for op in index.operator_names(index_json)}


# What a merge reads of each shard's result.
NEEDED = ("root", "torch_tidy", "options", "findings", "warnings",
          "did_not_parse", "coverage", "index", "seconds", "project")
SHARD_NEEDED = ("index", "count", "files", "all_files", "all_files_digest",
                "index_digest", "registration_files")


def merge(docs, names):
    """The summary of one run from its shards' summaries (names: where each
    came from, for messages). ProjectError when they are not the N shards
    of one run, each once, together linting every file once."""
    if not docs:
        raise ProjectError("merge: no shard to merge")
    shards = []
    for d, name in zip(docs, names):
        if not isinstance(d, dict) or d.get("schema") != report.SCHEMA:
            raise ProjectError(f"merge: {name} is not a {report.SCHEMA} "
                               f"document")
        s = d.get("shard")
        if not isinstance(s, dict):
            raise ProjectError(f"merge: {name} is not a shard's result "
                               f"(run with --shard K/N)")
        missing = [k for k in NEEDED if k not in d] + \
            [f"shard.{k}" for k in SHARD_NEEDED if k not in s]
        if missing:
            raise ProjectError(f"merge: {name} lacks {', '.join(missing)} "
                               f"(a shard of another torch-tidy-project?)")
        shards.append((s, d, name))
    first, base, _ = shards[0]
    n = first["count"]
    for s, d, name in shards:
        for field, what in (("count", "a run of another shard count"),
                            ("all_files_digest", "a run over other files"),
                            ("index_digest", "a run of another project "
                             "index (another state of the project)")):
            if s[field] != first[field]:
                raise ProjectError(f"merge: {name} is {what} than "
                                   f"{shards[0][2]}")
        if d["root"] != base["root"] or \
                d["torch_tidy"]["version"] != base["torch_tidy"]["version"]:
            raise ProjectError(f"merge: {name} is of another project root "
                               f"or torch-tidy than {shards[0][2]}")
    seen = Counter(s["index"] for s, _, _ in shards)
    twice = sorted(k for k, c in seen.items() if c > 1)
    missing = sorted(set(range(1, n + 1)) - set(seen))
    if twice or missing:
        raise ProjectError(
            "merge: " + "; ".join(
                ([f"shard {', '.join(map(str, twice))} given twice"]
                 if twice else []) +
                ([f"shard {', '.join(map(str, missing))} of {n} missing"]
                 if missing else [])) +
            ": the result would not cover every file")
    every = first["all_files"]
    linted = Counter(f for s, _, _ in shards for f in s["files"])
    lost = sorted(set(every) - set(linted))
    doubled = sorted(f for f, c in linted.items() if c > 1)
    if lost or doubled:
        raise ProjectError(
            f"merge: the shards did not split the files as one run: "
            f"{len(lost)} linted by none (e.g. {(lost or ['-'])[0]}), "
            f"{len(doubled)} by two (e.g. {(doubled or ['-'])[0]}); give "
            f"every shard the same --shard-times (or none)")

    warnings, findings, unparsed, times = Counter(), [], {}, {}
    cache = {}
    seen = set()
    for s, d, _ in shards:
        # A warning in a shared header is given by a file of each shard
        # that includes it: one finding.
        for f in d["findings"]:
            key = report.finding_key(f)
            if key not in seen:
                seen.add(key)
                findings.append(f)
                warnings[f["check"]] += 1
        for cause, where in d["did_not_parse"].items():
            unparsed.setdefault(cause, []).extend(where)
        times.update(d.get("file_seconds", {}))
        for k, v in (d.get("cache") or {}).items():
            if isinstance(v, int) and not isinstance(v, bool):
                cache[k] = cache.get(k, 0) + v
            elif isinstance(v, list):
                cache[k] = sorted(cache.get(k, []) + v)
    for where in unparsed.values():
        where.sort()
    bad = {f for where in unparsed.values() for f in where}
    parsed = set(every) - bad
    # The project's headers a parsed file of any shard read.
    included = {f for s, _, _ in shards for f in s.get("included", [])}
    opts = base["options"]
    c = _coverage(base["coverage"], shards, parsed, bad, unparsed, len(every),
                  included)
    c["minimum"] = opts["min_coverage"]
    c["passed"] = cov.gate(c, opts["min_coverage"])
    c["unseen"] = [op for op, _, _ in cov.unseen(c)]
    c["bring_in"] = cov.bring_in(c)
    code, reasons, last = report.verdict(
        set(opts["fail_on"]), warnings, len(bad), c, opts["min_coverage"])
    code, reasons, last = python_files.gate(
        code, reasons, last,
        next((d.get("python") for _, d, _ in shards if d.get("python")), None),
        set(opts["fail_on"]))
    idx = base["index"]
    if idx is not None:
        idx = dict(idx, kernels_unseen=index.kernels_unseen(
            first["registration_files"], set(every), bad))
    merged = dict(base)
    merged.pop("shard")
    merged.update({
        "result": {"exit_status": code, "failed_on": reasons,
                   "last_line": last},
        "files_linted": len(every),
        "did_not_parse": dict(sorted(unparsed.items())),
        "warnings": dict(sorted(warnings.items())),
        "findings": sorted(findings, key=report.finding_order),
        "coverage": c,
        "seconds": max(d["seconds"] for _, d, _ in shards),
        "file_seconds": dict(sorted(times.items())),
        "index": idx,
        "cache": dict(cache, used=any((d.get("cache") or {}).get("used")
                                      for _, d, _ in shards)),
        "merged_shards": n,
        # The project's Python files: linted by the first shard.
        "python": next((d.get("python") for _, d, _ in shards if d.get("python")), None),
    })
    return merged


def _coverage(c, shards, parsed, bad, unparsed, linted, included=()):
    """The coverage of the whole run: a kernel is analysed where one of
    the files its body may be in parsed, or is a header of the project's
    that one of them read, in whichever shard."""
    credited = set(parsed) | set(included)
    by_op = json.loads(json.dumps(c["by_operator"]))
    # Kernels only the compiler saw registered (cov.with_compiler), in
    # whichever shard linted their file: as that shard counted them. They
    # come last in an operator's list; the others line up across shards.
    compiled = {}
    for _, s_d, _ in shards:
        for op, o in s_d["coverage"]["by_operator"].items():
            for k in o["kernels"]:
                if k.get("seen_by") == "compiler":
                    compiled.setdefault((op, k["key"], k["registered_at"]),
                                        (op, k))
    for op in list(by_op):
        o = by_op[op]
        kept = [k for k in o["kernels"] if k.get("seen_by") != "compiler"]
        if len(kept) != len(o["kernels"]) and not kept:
            del by_op[op]
        else:
            o["kernels"] = kept
    causes = {f: cause for cause, where in unparsed.items() for f in where}
    total = seen = 0
    for op, o in by_op.items():
        if o["status"] == cov.NO_KERNEL:
            continue
        for i, k in enumerate(o["kernels"]):
            total += 1
            if set(k["files"]) & credited:
                k["analysed"] = True
                k.pop("why", None)
                k.pop("bring_in", None)
                seen += 1
                continue
            k["analysed"] = False
            # Why, as the shard that could not analyse it said; a kernel
            # whose files did not parse in other shards than its own.
            said = [s_d["coverage"]["by_operator"][op]["kernels"][i]
                    for _, s_d, _ in shards]
            said = [x for x in said if not x["analysed"]]
            failed = sorted(set(k["files"]) & bad)
            if failed:
                cause = causes.get(failed[0])
                k["why"] = cov.NOT_PARSED
                k["bring_in"] = (f"{failed[0]}: what it lacks to parse" +
                                 (f" ({cause})" if cause else ""))
            elif said:
                k["why"], k["bring_in"] = said[0]["why"], said[0]["bring_in"]
        cov.restatus(o)
    for op, k in compiled.values():
        o = by_op.setdefault(op, {"analysed": True, "status": "analysed",
                                  "kernels": []})
        o["kernels"].append(k)
        total += 1
        seen += bool(k["analysed"])
        cov.restatus(o)
    shares = []
    if total:
        shares.append(seen / total)
    if linted:
        shares.append((linted - len(bad)) / linted)
    out = dict(c)
    out.update({
        "share": min(shares) if shares else None,
        "kernels": {"total": total, "analysed": seen},
        "operators": cov._operator_counts(by_op),
        "files": dict(c["files"], linted=linted, parsed=linted - len(bad)),
        "by_operator": by_op,
    })
    if c.get("approximate"):
        cov.approximate(out, c["approximate"])
    # The compiler's view is each shard's over its own files: together.
    views = [s_d["coverage"]["compiler"] for _, s_d, _ in shards
             if s_d["coverage"].get("compiler")]
    if views:
        out["compiler"] = {"files": sum(v["files"] for v in views)}
        for part in ("operators_only_compiler", "kernels_only_compiler",
                     "kernels_only_index"):
            out["compiler"][part] = sorted({x for v in views
                                            for x in v[part]})
        # Each shard names its own files (and every shard the same pruned
        # ones): together.
        unread = {}
        for v in views:
            for why, files in (v.get("not_read") or {}).items():
                unread.setdefault(why, set()).update(files)
        out["compiler"]["not_read"] = {why: sorted(files)
                                       for why, files in unread.items()
                                       if files}
    return out


def _write_error_outputs(args, message, docs):
    """--json and --sarif of a merge that failed (exit 2), so that CI reads
    the error rather than a missing file; project, root and options are the
    first readable shard's."""
    if not (args.json or args.sarif):
        return
    first = next((d for d in docs if isinstance(d, dict)), {})
    project = first.get("project") if isinstance(first.get("project"), str) \
        else os.getcwd()
    options = first.get("options") if isinstance(first.get("options"), dict) \
        else {"checks": "", "fail_on": [], "min_coverage": 0}
    summary = {
        "schema": report.SCHEMA,
        "result": {"exit_status": 2, "failed_on": ["error"],
                   "last_line": f"torch-tidy-project: ERROR: {message}"},
        "error": message, "project": project,
        "root": first.get("root") if isinstance(first.get("root"), str)
        else project,
        "options": options}
    try:
        if args.json:
            write_json(args.json, summary)
        if args.sarif:
            write_json(args.sarif, sarif.log(summary))
    except ProjectError as e:
        print(f"torch-tidy-project: the error's --json/--sarif could not be "
              f"written ({e})", file=sys.stderr, flush=True)


def main(argv, project_main):
    """torch-tidy-project merge SHARD.json... [--json OUT] [--sarif OUT]
    [SHARD.sarif...]."""
    import argparse
    p = argparse.ArgumentParser(
        prog="torch-tidy-project merge",
        description="Combine the --json results (and SARIF logs) of the "
        "shards of one run (--shard K/N) into the result of the whole run, "
        "with its summary, last line and exit status.")
    p.add_argument("inputs", nargs="+", metavar="SHARD.json|SHARD.sarif")
    p.add_argument("--json", metavar="FILE", help="write the merged result")
    p.add_argument("--sarif", metavar="FILE",
                   help="write one SARIF log: the shards' SARIF logs "
                   "combined where given, else made from the merged result")
    args = p.parse_args(argv)
    try:
        docs, names, logs = [], [], []
        for path in args.inputs:
            try:
                with open(path) as f:
                    doc = json.load(f)
            except (OSError, ValueError) as e:
                raise ProjectError(f"merge: {path}: cannot read it ({e})")
            if isinstance(doc, dict) and "runs" in doc and \
                    "version" in doc:
                logs.append(doc)
            else:
                docs.append(doc)
                names.append(path)
                if isinstance(doc, dict) and \
                        (doc.get("result") or {}).get("exit_status") == 2:
                    raise ProjectError(f"merge: {path} is the result of a "
                                       f"shard that stopped with an error: "
                                       f"{doc.get('error')}")
        if not docs:
            raise ProjectError("merge: no shard's --json given (the "
                               "verdict needs them; SARIF alone has no "
                               "coverage)")
        try:
            merged = merge(docs, names)
        except (KeyError, TypeError, ValueError, IndexError,
                AttributeError) as e:
            raise ProjectError(f"merge: a shard's result is malformed "
                               f"({e!r})")
        report.print_summary(merged, merged["project"])
        if args.json:
            write_json(args.json, merged)
        if logs and len(logs) != len(docs):
            raise ProjectError(f"merge: {len(logs)} SARIF logs for "
                               f"{len(docs)} shards")
        combined = sarif.combine(logs, merged) if logs else None
        if combined and len(combined["runs"][0]["results"]) != \
                len(merged["findings"]):
            raise ProjectError(
                f"merge: the SARIF logs hold "
                f"{len(combined['runs'][0]['results'])} results, the "
                f"shards' results {len(merged['findings'])} findings: not "
                f"the logs of these shards")
        if args.sarif:
            write_json(args.sarif, combined or sarif.log(merged))
    except ProjectError as e:
        print(f"torch-tidy-project: {e}", file=sys.stderr, flush=True)
        _write_error_outputs(args, str(e), docs)
        return 2
    print(merged["result"]["last_line"], flush=True)
    return merged["result"]["exit_status"]

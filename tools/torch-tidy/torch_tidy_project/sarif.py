"""A run's findings as one SARIF 2.1.0 log (--sarif), in the shape
torch-tidy-sarif gives a single file's: paths relative to the project root
(uriBaseId SRCROOT), notes as related locations (at the place a note names,
a Python fake or a schema in another file, where it names one), fix-its as
fixes. The run's invocation says its exit status and what it could not do
(a coverage failure, files that did not parse, operators not analysed, an
error that stopped it), so that a run that failed is never read as a clean
one. Shards' logs combine into the log of the whole run (`torch-tidy-project
merge`)."""
import os
import urllib.parse

from . import coverage as cov
from .report import coverage_text, threshold

VERSION = "2.1.0"
SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"


def _artifact(path, root):
    if os.path.isabs(path):
        return {"uri": "file://" + urllib.parse.quote(path)}
    return {"uri": urllib.parse.quote(path), "uriBaseId": "SRCROOT"}


def _location(where, root, message=None):
    loc = {"physicalLocation": {
        "artifactLocation": _artifact(where["file"], root),
        "region": {"startLine": where["line"],
                   "startColumn": where["column"]}}}
    if message is not None:
        loc["message"] = {"text": message}
    return loc


def _note_location(n, root):
    """A note's related location: where the note points the reader (its
    `about`, a file and line it names), else where it was reported."""
    about = n.get("about")
    if about:
        return {"physicalLocation": {
            "artifactLocation": _artifact(about["file"], root),
            "region": {"startLine": about["line"]}},
            "message": {"text": n["message"]}}
    return _location(n, root, n["message"])


def _result(f, root, rules):
    r = {"ruleId": f["check"], "ruleIndex": rules.index(f["check"]),
         "level": "error" if f["level"] in ("error", "fatal error")
         else "warning",
         "message": {"text": f["message"]},
         "locations": [_location(f, root)]}
    if f["notes"]:
        r["relatedLocations"] = [_note_location(n, root) for n in f["notes"]]
    fix = f.get("fix")
    if fix:
        by_file = {}
        for rep in fix["replacements"]:
            by_file.setdefault(rep["file"], []).append({
                "deletedRegion": {"charOffset": rep["offset"],
                                  "charLength": rep["length"]},
                "insertedContent": {"text": rep["text"]}})
        r["fixes"] = [{
            "description": {"text": f"rule: {fix['rule']}" if fix["rule"]
                            else "clang-tidy fix-it"},
            "artifactChanges": [{"artifactLocation": _artifact(p, root),
                                 "replacements": reps}
                                for p, reps in sorted(by_file.items())]}]
    return r


def _notification(ident, level, text, files=(), root=None):
    n = {"descriptor": {"id": ident}, "level": level, "message": {"text": text}}
    if files:
        n["locations"] = [{"physicalLocation": {
            "artifactLocation": _artifact(f, root)}} for f in files]
    return n


def invocation(summary):
    """The run's invocation: its exit status and last line, whether the run
    is a complete reading of the project (exit 0, 1, or a shard's 4), and
    toolExecutionNotifications for what it could not do."""
    result = summary["result"]
    code = result["exit_status"]
    root = summary.get("root") or "/"
    notes = []
    if summary.get("error"):
        notes.append(_notification("error", "error", summary["error"]))
    c = summary.get("coverage")
    if c and "coverage" in result.get("failed_on", []):
        notes.append(_notification(
            "coverage", "error",
            f"{coverage_text(c)}, below the {threshold(c['minimum'])} "
            f"--min-coverage asks: the run read too little of the project "
            f"to pass"))
    for cause, files in sorted((summary.get("did_not_parse") or {}).items()):
        notes.append(_notification(
            "did-not-parse", "warning",
            f"{len(files)} file{'s' if len(files) != 1 else ''} did not "
            f"parse ({cause}); their warnings and kernels are missing",
            files, root))
    if c:
        unseen = cov.unseen(c)
        if unseen:
            notes.append(_notification(
                "operators-not-analysed", "warning",
                f"{len(unseen)} operator{'s' if len(unseen) != 1 else ''} "
                f"whose C++ kernels were not (all) analysed: " + "; ".join(
                    f"{op} ({status})" for op, status, _ in unseen)))
    inv = {"executionSuccessful": code in (0, 1, 4), "exitCode": code,
           "exitCodeDescription": result["last_line"]}
    if notes:
        inv["toolExecutionNotifications"] = notes
    return inv


def _run(rules, results, root, summary=None):
    run = {"tool": {"driver": {
        "name": "torch-tidy",
        "informationUri": "https://clang.llvm.org/extra/clang-tidy/",
        "rules": [{"id": r, "name": r,
                   "help": {"text": f"See docs/checks/{r}.md in "
                            f"torch-tidy."}} for r in rules]}},
        "originalUriBaseIds": {"SRCROOT": {
            "uri": "file://" + urllib.parse.quote(root.rstrip("/") + "/")}},
        "results": results}
    if summary is not None:
        run["invocations"] = [invocation(summary)]
    return run


def log(summary):
    """The SARIF log of a run's (or a merge's) summary; a run stopped by an
    error (exit 2) gives a log with no results and its invocation."""
    findings = summary.get("findings") or []
    rules = sorted({f["check"] for f in findings})
    root = summary.get("root") or summary.get("project") or "/"
    results = sorted((_result(f, root, rules) for f in findings),
                     key=_order)
    return {"$schema": SCHEMA_URI, "version": VERSION,
            "runs": [_run(rules, results, root, summary)]}


def _order(result):
    loc = result["locations"][0]["physicalLocation"]
    region = loc.get("region", {})
    return (loc["artifactLocation"].get("uri", ""),
            region.get("startLine", 0), region.get("startColumn", 0),
            result.get("ruleId", ""))


def combine(logs, summary=None):
    """One log of the shards' logs: one run, rules merged, results in the
    order a single run gives them (file, line, column, check), and the
    merged run's invocation (summary: the merge's)."""
    root = None
    rules, results = set(), []
    for doc in logs:
        for run in doc.get("runs", []):
            base = run.get("originalUriBaseIds", {}).get("SRCROOT", {})
            root = root or urllib.parse.unquote(
                base.get("uri", "file:///")[len("file://"):])
            names = [r["id"] for r in run["tool"]["driver"]["rules"]]
            rules.update(names)
            results += run.get("results", [])
    rules = sorted(rules)
    for r in results:
        r["ruleIndex"] = rules.index(r["ruleId"])
    results.sort(key=_order)
    return {"$schema": SCHEMA_URI, "version": VERSION,
            "runs": [_run(rules, results, root or "/", summary)]}

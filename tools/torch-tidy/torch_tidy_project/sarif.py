"""A run's findings as one SARIF 2.1.0 log (--sarif), in the shape
torch-tidy-sarif gives a single file's: paths relative to the project root
(uriBaseId SRCROOT), notes as related locations, fix-its as fixes. Shards'
logs combine into the log of the whole run (`torch-tidy-project merge`)."""
import os
import urllib.parse

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


def _result(f, root, rules):
    r = {"ruleId": f["check"], "ruleIndex": rules.index(f["check"]),
         "level": "error" if f["level"] in ("error", "fatal error")
         else "warning",
         "message": {"text": f["message"]},
         "locations": [_location(f, root)]}
    if f["notes"]:
        r["relatedLocations"] = [_location(n, root, n["message"])
                                 for n in f["notes"]]
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


def _run(rules, results, root):
    return {"tool": {"driver": {
        "name": "torch-tidy",
        "informationUri": "https://clang.llvm.org/extra/clang-tidy/",
        "rules": [{"id": r, "name": r,
                   "help": {"text": f"See docs/checks/{r}.md in "
                            f"torch-tidy."}} for r in rules]}},
        "originalUriBaseIds": {"SRCROOT": {
            "uri": "file://" + urllib.parse.quote(root.rstrip("/") + "/")}},
        "results": results}


def log(summary):
    """The SARIF log of a run's (or a merge's) summary."""
    findings = summary["findings"]
    rules = sorted({f["check"] for f in findings})
    root = summary["root"]
    results = sorted((_result(f, root, rules) for f in findings),
                     key=_order)
    return {"$schema": SCHEMA_URI, "version": VERSION,
            "runs": [_run(rules, results, root)]}


def _order(result):
    loc = result["locations"][0]["physicalLocation"]
    region = loc.get("region", {})
    return (loc["artifactLocation"].get("uri", ""),
            region.get("startLine", 0), region.get("startColumn", 0),
            result.get("ruleId", ""))


def combine(logs):
    """One log of the shards' logs: one run, rules merged, results in the
    order a single run gives them (file, line, column, check)."""
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
            "runs": [_run(rules, results, root or "/")]}

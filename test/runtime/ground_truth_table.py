#!/usr/bin/env python3
"""Checks the runtime's compiled mode against docs/ground-truth.json.

For every torch 2.8.0 row on the Python path, the runtime's program for the
row's write form must report requires_grad after the write as the table's
rg_inside says: compiled backends (eager, aot_eager, inductor) against the
compiled mode, backend "none" against the eager mode. Exits 77 (skip) when
the table is missing or has no such rows.
"""
import json
import subprocess
import sys

SKIP = 77


def main():
    forms_binary, table_path = sys.argv[1], sys.argv[2]
    try:
        with open(table_path) as f:
            table = json.load(f)
    except FileNotFoundError:
        print(f"SKIPPED runtime-ground-truth-table: {table_path} does not exist yet")
        return SKIP
    rows = table["rows"] if isinstance(table, dict) else table
    report = {}
    for line in subprocess.run([forms_binary], check=True, capture_output=True,
                               text=True).stdout.splitlines():
        entry = json.loads(line)
        report[entry["form"]] = entry

    checked, disagreements, unknown = 0, [], set()
    for row in rows:
        if row.get("torch") != "2.8.0" or row.get("path") != "python":
            continue
        if row.get("error") is not None or row.get("rg_inside") is None:
            continue
        form = row["form"]
        if form not in report:
            unknown.add(form)
            continue
        compiled = row["backend"] != "none"
        ours = report[form][
            "compiled_requires_grad" if compiled else "eager_requires_grad"]
        checked += 1
        if compiled and row.get("wrong_branch") is not None:
            loses = not report[form]["compiled_branch_keeps_gradient"]
            if loses != row["wrong_branch"]:
                disagreements.append(
                    f"{form} (backend {row['backend']}): torch 2.8.0 wrong_branch="
                    f"{row['wrong_branch']}, runtime compiled branch loses gradient: {loses}")
        if ours != row["rg_inside"]:
            disagreements.append(
                f"{form} (backend {row['backend']}): torch 2.8.0 rg_inside="
                f"{row['rg_inside']}, runtime {'compiled' if compiled else 'eager'} mode {ours}")
    for form in sorted(unknown):
        print(f"note: the runtime has no program for form '{form}'")
    if checked == 0:
        print("SKIPPED runtime-ground-truth-table: no torch 2.8.0 python rows in the table")
        return SKIP
    for line in disagreements:
        print("DISAGREES:", line)
    print(f"{checked} table rows checked, {len(disagreements)} disagree")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())

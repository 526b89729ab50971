#!/usr/bin/env python3
"""Checks the runtime's compiled modes against docs/ground-truth.json.

For every row whose write form the runtime has a program for, the runtime
must report requires_grad after the write as the table's rg_inside says, and
a branch on it must lose the gradient exactly when the table says so:

  path python, torch 2.8.0           the write in the program, mode Compiled
  path python, the newest torch      the write in the program, CompiledNewest
  paths cpp_mutable_* (both torch)   the write in a C++ operator's kernel into
                                     its mutable argument (functional twins:
                                     the operator returns the result), mode
                                     Compiled / CompiledNewest

Backend "none" rows are checked against the eager mode. Exits 77 (skip) when
the table is missing or has no such rows.
"""
import json
import subprocess
import sys

SKIP = 77
MUTABLE_PATHS = ("cpp_mutable_composite", "cpp_mutable_cpu", "cpp_mutable_explicit")


def main():
    forms_binary, table_path = sys.argv[1], sys.argv[2]
    try:
        with open(table_path) as f:
            table = json.load(f)
    except FileNotFoundError:
        print(f"SKIPPED runtime-ground-truth-table: {table_path} does not exist yet")
        return SKIP
    rows = table["rows"] if isinstance(table, dict) else table
    versions = table.get("versions", {"2.8.0": "2.8.0"}) if isinstance(table, dict) else {}
    mode_of_version = {versions.get("2.8.0", "2.8.0"): "compiled"}
    if "latest" in versions:
        mode_of_version[versions["latest"]] = "compiled_newest"
    report = {}
    for line in subprocess.run([forms_binary], check=True, capture_output=True,
                               text=True).stdout.splitlines():
        entry = json.loads(line)
        report[entry["form"]] = entry

    checked, disagreements, unknown = 0, [], set()
    for row in rows:
        mode = mode_of_version.get(row.get("torch"))
        path = row.get("path")
        if mode is None or path not in ("python",) + MUTABLE_PATHS:
            continue
        if row.get("error") is not None or row.get("rg_inside") is None:
            continue
        form = row["form"]
        if form not in report:
            unknown.add(form)
            continue
        site = "operator_" if path in MUTABLE_PATHS else ""
        compiled = row["backend"] != "none"
        key = site + (mode if compiled else "eager")
        ours = report[form][key + "_requires_grad"]
        where = f"{path}/{form} (torch {row['torch']}, backend {row['backend']})"
        checked += 1
        if compiled and row.get("wrong_branch") is not None:
            loses = not report[form][key + "_branch_keeps_gradient"]
            if loses != row["wrong_branch"]:
                disagreements.append(
                    f"{where}: wrong_branch={row['wrong_branch']}, runtime {key} "
                    f"branch loses the gradient: {loses}")
        if compiled and not report[form][key + "_values_and_grads_equal_eager"]:
            disagreements.append(f"{where}: runtime {key} values or gradients differ "
                                 "from eager")
        if ours != row["rg_inside"]:
            disagreements.append(f"{where}: rg_inside={row['rg_inside']}, runtime {key} "
                                 f"reports {ours}")
    for form in sorted(unknown):
        print(f"note: the runtime has no program for form '{form}'")
    if checked == 0:
        print("SKIPPED runtime-ground-truth-table: no python or cpp_mutable rows in the table")
        return SKIP
    for line in disagreements:
        print("DISAGREES:", line)
    print(f"{checked} table rows checked, {len(disagreements)} disagree")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())

"""Fails if a rule id of RewriteRules.def has no `note: rule: <id>` check in
the lit fix-it tests of a style it applies to."""
import os
import re
import sys

tests_dir, table = sys.argv[1], sys.argv[2]
rules = re.findall(r'TORCH_TIDY_REWRITE_RULE\("([^"]+)",\s*(\w+)', open(table).read())
if not rules:
    sys.exit("no rules found in " + table)
# Which style each lit file runs: index-put-style.cpp runs both styles (its
# rules are IndexPut or Both); scatter-style.cpp runs FixStyle: scatter.
seen = {"IndexPut": set(), "Scatter": set()}
for name, styles in (("index-put-style.cpp", ("IndexPut",)),
                     ("scatter-style.cpp", ("Scatter",))):
    text = open(os.path.join(tests_dir, name)).read()
    for rid in re.findall(r"note: rule: ([\w-]+)", text):
        for s in styles:
            seen[s].add(rid)
# index-put-style.cpp's second run (FixStyle: scatter) covers the Both rules.
both_in_scatter = set(seen["IndexPut"])
missing = []
for rid, style in rules:
    if style in ("IndexPut", "Both") and rid not in seen["IndexPut"]:
        missing.append(f"{rid} (index_put style)")
    if style == "Scatter" and rid not in seen["Scatter"]:
        missing.append(f"{rid} (scatter style)")
    if style == "Both" and rid not in both_in_scatter:
        missing.append(f"{rid} (scatter style)")
if missing:
    sys.exit("rules without a lit fix-it test: " + ", ".join(missing))
print(f"{len(rules)} rules covered")

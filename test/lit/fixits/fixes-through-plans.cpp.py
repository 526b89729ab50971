"""Fails if a check emits a fix-it other than through lib/rewrite's FixPlan,
or if the planners and the rule table disagree."""
import os
import re
import sys

checks_dir, planners_dir, table, lit_dir = sys.argv[1:5]
failures = []


def sources(folder):
    for name in sorted(os.listdir(folder)):
        if name.endswith((".cpp", ".h")):
            path = os.path.join(folder, name)
            # Comments may name what the code may not use.
            text = re.sub(r"//[^\n]*", "", open(path).read())
            yield name, text


helper = "TorchTidyCheck.cpp"
for name, text in sources(checks_dir):
    if name == helper:
        continue
    for pattern, what in ((r"\bFixItHint\b", "builds a FixItHint"),
                          (r"\"rule: ", "writes a `rule:` note"),
                          (r"\"no fix: ", "writes a `no fix:` note")):
        if re.search(pattern, text):
            failures.append(f"checks/{name} {what}; plan the fix in "
                            f"lib/rewrite and emit it with addFix/noteFix")
helper_text = dict(sources(checks_dir)).get(helper, "")
if "FixItHint" not in helper_text or "FixPlan" not in helper_text:
    failures.append(f"checks/{helper} no longer emits FixPlans")

rules = re.findall(r'TORCH_TIDY_REWRITE_RULE\("([^"]+)",\s*(\w+)',
                   open(table).read())
if not rules:
    sys.exit("no rules found in " + table)
ids = {rid for rid, _ in rules}
named = set()
for name, text in sources(planners_dir):
    # FixPlan::fix, and planRewrite's Planner::fix and planTwin, by id.
    named |= set(re.findall(r'(?:fix|planTwin)\(\s*"([\w-]+)"', text))
for rid in sorted(named - ids):
    failures.append(f"a planner names rule {rid}, which is not in the table")
for rid in sorted(ids - named):
    failures.append(f"rule {rid} of the table is named by no planner in "
                    f"lib/rewrite/src")

noted = set()
for root, _, files in os.walk(lit_dir):
    for f in files:
        if f.endswith(".cpp"):
            noted |= set(re.findall(r"note: rule: ([\w-]+)",
                                    open(os.path.join(root, f)).read()))
for rid in sorted(ids - noted):
    failures.append(f"rule {rid} has no lit `note: rule: {rid}` check")

if failures:
    sys.exit("\n".join(failures))
print(f"{len(ids)} rules, all planned in lib/rewrite and emitted through "
      f"FixPlan")

// Every fix-it a check emits is planned in lib/rewrite: the checks build no
// FixItHint and write no `rule:` / `no fix:` note themselves (only
// TorchTidyCheck::addFix and noteFix do, from a FixPlan); every rule a
// planner names is a row of RewriteRules.def, and every row is named by a
// planner and by a lit `note: rule: <id>` check.
// RUN: %python %s.py %S/../../../checks %S/../../../lib/rewrite/src %S/../../../lib/rules/include/torch_tidy/rules/RewriteRules.def %S/..

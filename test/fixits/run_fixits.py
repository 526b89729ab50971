#!/usr/bin/env python3
"""Fix-it acceptance test for torch-compile-requires-grad-propagation on one
LibTorch tier, one FixStyle and StrictFixes on or off.

  run_fixits.py --tier NAME --style {auto,index_put,scatter} [--strict]
                --clang-tidy PATH --apply-replacements PATH --module PATH
                --source-dir REPO --include DIR [--include DIR ...]
                --lib-dir DIR [--cxx g++] --out DIR

Stages, each of which adds failures instead of stopping the run:
  1. table coverage: every rule of RewriteRules.def that applies to the style
     is the expected rule of some case in cases.cpp;
  2. clang-tidy --fix on a copy of cases.cpp: every case warns, with a
     `rule: <id>` note naming its expected rule (or, for `RULE: none`, a
     `no fix:` note and unchanged text);
  3. idempotence: a second --fix changes nothing and does not warn in fixed
     cases; the first run's --export-fixes, applied by
     clang-apply-replacements to a pristine copy, gives the same bytes;
  4. harness.cpp compiled against the tier runs original and fixed side by
     side (values, gradients, requires_grad).

Exit 0 when all pass, 1 on any failure, 77 (one line saying why) when the
tier's headers are missing.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import libtorch_tier  # noqa: E402
CHECK = "torch-compile-requires-grad-propagation"
STYLES = ("auto", "index_put", "scatter")
# RewriteRules.def's Style column, per FixStyle.
STYLE_COLUMN = {"auto": "Scatter", "index_put": "IndexPut",
                "scatter": "Scatter"}


class Case:
    """One function of cases.cpp and the rule its write must be fixed by."""

    def __init__(self, name, rules, first_line, last_line):
        self.name = name
        # "index_put" (the first id), "auto" and "strict" (StrictFixes in
        # FixStyle auto or scatter) -> rule id, or None for `RULE: none`
        self.rules = rules
        self.first_line = first_line
        self.last_line = last_line

    def expected(self, mode):
        """The rule for a mode: a FixStyle, with "-strict" for StrictFixes."""
        if mode.startswith("index_put"):
            return self.rules["index_put"]
        if mode.endswith("-strict"):
            return self.rules["strict"]
        return self.rules["auto"]


RULE_LINE = re.compile(r"^\s*// RULE:\s*(\S+)((?:\s+(?:auto|strict):\s*\S+)*)\s*$")
RULE_PAIR = re.compile(r"(auto|strict):\s*(\S+)")
RULE_MORE = re.compile(r"^\s*// (auto|strict):\s*(\S+)\s*$")
FUNCTION = re.compile(r"TORCH_TIDY_COMPILED\s+[\w:<>]+\s*[&*]?\s*(\w+)\s*\(")


def parse_cases(text):
    """Splits the cases file at its `// RULE:` lines. A case runs from its
    RULE line to the line before the next one, so the text of each case can
    be compared between the original and the fixed copy."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if RULE_LINE.match(line)]
    cases, problems = [], []
    for k, start in enumerate(starts):
        end = starts[k + 1] - 1 if k + 1 < len(starts) else len(lines) - 1
        body = "\n".join(lines[start:end + 1])
        m = FUNCTION.search(body)
        if not m:
            problems.append(f"no TORCH_TIDY_COMPILED function after the RULE "
                            f"line at line {start + 1}")
            continue
        rule, rest = RULE_LINE.match(lines[start]).groups()
        first = None if rule == "none" else rule
        pairs = dict(RULE_PAIR.findall(rest))
        # `// strict: <id>` (or `// auto: <id>`) on the lines right after.
        for line in lines[start + 1:end + 1]:
            more = RULE_MORE.match(line)
            if not more:
                break
            pairs[more.group(1)] = more.group(2)
        # `strict: none`: that mode keeps the warning without a fix.
        pairs = {k: None if v == "none" else v for k, v in pairs.items()}
        auto = pairs.get("auto", first)
        rules = {"index_put": first, "auto": auto,
                 "strict": pairs.get("strict", auto)}
        cases.append(Case(m.group(1), rules, start + 1, end + 1))
    return cases, problems


def case_texts(text):
    """The text of every case, in file order, for before/after comparison."""
    lines = text.splitlines()
    return ["\n".join(lines[c.first_line - 1:c.last_line])
            for c in parse_cases(text)[0]]


def parse_rules(path):
    """Rule id -> Style column of RewriteRules.def."""
    row = re.compile(r'TORCH_TIDY_REWRITE_RULE\(\s*"([^"]+)"\s*,\s*(\w+)')
    return dict(row.findall(open(path).read()))


def check_table(cases, rules, style):
    """Every rule usable in this style has a case, and every case names a
    rule of the table."""
    failures = []
    expected = {c.expected(style) for c in cases}
    column_of_style = STYLE_COLUMN[style.split("-")[0]]
    for rule_id, column in rules.items():
        if column in ("Both", column_of_style) and rule_id not in expected:
            failures.append(f"rule {rule_id} has no fix-it case for style "
                            f"{style}")
    for c in cases:
        rule_id = c.expected(style)
        if rule_id is not None and rule_id not in rules:
            failures.append(f"case {c.name} expects rule {rule_id}, which is "
                            f"not in RewriteRules.def")
    return failures


class Diagnostic:
    def __init__(self, line, message):
        self.line = line
        self.message = message
        self.notes = []


DIAG = re.compile(r"^(.*?):(\d+):\d+: (warning|note|error|fatal error): (.*)$")


def parse_diagnostics(output, path):
    """The check's warnings in `path`, each with the notes printed after it,
    and every compiler error anywhere."""
    warnings, errors = [], []
    current = None
    real = os.path.realpath(path)
    for line in output.splitlines():
        m = DIAG.match(line)
        if not m:
            continue
        file, lineno, kind, message = m.groups()
        if kind in ("error", "fatal error"):
            errors.append(line)
        elif kind == "warning":
            current = None
            if (message.endswith(f"[{CHECK}]")
                    and os.path.realpath(file) == real):
                current = Diagnostic(int(lineno), message)
                warnings.append(current)
        elif kind == "note" and current is not None:
            current.notes.append(message)
    return warnings, errors


def rule_notes(warning):
    return [n[len("rule:"):].strip() for n in warning.notes
            if n.startswith("rule:")]


def no_fix_notes(warning):
    return [n for n in warning.notes if n.startswith("no fix:")]


def in_case(warnings, case):
    return [w for w in warnings if case.first_line <= w.line <= case.last_line]


def check_first_run(cases, warnings, style, before, after):
    """Per case: warned, noted with the expected rule, text changed exactly
    when fixed. Returns (lines to print, failures)."""
    report, failures = [], []
    for case, old, new in zip(cases, before, after):
        expected = case.expected(style)
        problems = []
        mine = in_case(warnings, case)
        ids = [i for w in mine for i in rule_notes(w)]
        if not mine:
            problems.append(f"no warning for case {case.name}")
        elif expected is None:
            if ids:
                problems.append(f"case {case.name} is RULE: none but got "
                                f"rule: {', '.join(ids)}")
            if not all(no_fix_notes(w) for w in mine):
                problems.append(f"case {case.name} warns without a 'no fix:' "
                                f"note")
            if old != new:
                problems.append(f"case {case.name} is RULE: none but its text "
                                f"changed")
        else:
            if not ids:
                problems.append(f"no fix emitted for case {case.name} "
                                f"(expected rule: {expected})")
            elif any(i != expected for i in ids):
                problems.append(f"case {case.name} fixed by rule: "
                                f"{', '.join(ids)}, expected {expected}")
            if ids and old == new:
                problems.append(f"case {case.name} has a rule note but its "
                                f"text is unchanged")
        if problems:
            failures += problems
            report += [f"FAIL {p}" for p in problems]
        else:
            report.append(f"ok   {case.name}: "
                          f"{'no fix, warning kept' if expected is None else 'rule: ' + expected}")
    return report, failures


STRIP = re.compile(r"(\w+)\.view(?:_symint)?\(at::indexing::slicePrefix1sSize\(\1\.(?:sym_)?sizes\(\)\)\)")


CAST = re.compile(r"\.to\((\w+)\.options\(\)\)")


def fix_lengths(cases, style, before, after):
    """Per rule: the median length of the written statement, of its fix, and
    of the fix with the leading-unit-dim strip written as the bare value (the
    seed workaround's shape, `t = t.index_put({...}, v)`, plus the casts the
    rule keeps), and how many fixes keep a strip or a cast (each is left out
    where lib/analysis/ShapeFacts proves it cannot change the result).
    Lines to print; measured, not asserted (issue 18)."""
    import difflib
    import statistics
    by_rule = {}
    for case, old, new in zip(cases, before, after):
        rule = case.expected(style)
        if rule is None or old == new:
            continue
        a, b = old.splitlines(), new.splitlines()
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b).get_opcodes():
            if tag != "replace":
                continue
            # Consecutive writes fixed line for line count one by one; a
            # block whose line count changed (a named view removed with its
            # write) counts as one.
            pairs = (list(zip(a[i1:i2], b[j1:j2])) if i2 - i1 == j2 - j1
                     else [(a[i1:i2], b[j1:j2])])
            for w, f in pairs:
                w, f = ([w], [f]) if isinstance(w, str) else (w, f)
                written = " ".join(x.strip() for x in w)
                fixed = " ".join(x.strip() for x in f)
                shape = STRIP.sub(r"\1", fixed)
                by_rule.setdefault(rule, []).append(
                    (len(written), len(fixed), len(shape), shape != fixed,
                     bool(CAST.search(fixed)), fixed))
    lines = [f"fix length ({style}): rule, writes, median chars written -> fixed "
             f"(ratio), fixed without the leading-1s strip, fixes with a "
             f"strip, with a cast"]
    rows = [r for rule in by_rule.values() for r in rule]
    if rows:
        ratios = [r[1] / r[0] for r in rows]
        lines.append(f"  {'all fixed writes':32} {len(rows):3}  median "
                     f"ratio {statistics.median(ratios):4.2f}x, longest "
                     f"{max(ratios):4.2f}x, {sum('flatten()' in r[5] for r in rows)}"
                     f" with flatten()")
    for rule in sorted(by_rule):
        rows = by_rule[rule]
        w = statistics.median(r[0] for r in rows)
        f = statistics.median(r[1] for r in rows)
        sh = statistics.median(r[2] for r in rows)
        strips = sum(r[3] for r in rows)
        casts = sum(r[4] for r in rows)
        lines.append(f"  {rule:32} {len(rows):3}  {w:6.1f} -> {f:6.1f} "
                     f"({f / w:4.2f}x)  {sh:6.1f}  strip {strips}/{len(rows)}"
                     f"  cast {casts}/{len(rows)}")
    return lines


# FixColumnLimit's default, which the harness runs with.
FIX_COLUMN_LIMIT = 70


def check_widths(original_text, fixed_text):
    """Every line a fix wrote is at most FIX_COLUMN_LIMIT characters wide
    (issue 47): lines the diff adds, except those that keep a comment of the
    case's own (the fix does not lay out an author's comment)."""
    import difflib
    a, b = original_text.splitlines(), fixed_text.splitlines()
    written = []
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(
            None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            written += [l for l in b[j1:j2] if "//" not in l]
    wide = [l for l in written if len(l) > FIX_COLUMN_LIMIT]
    print(f"fixed lines: {len(written)}, the widest "
          f"{max((len(l) for l in written), default=0)} (limit "
          f"{FIX_COLUMN_LIMIT})")
    return [f"a fixed line is {len(l)} > {FIX_COLUMN_LIMIT} characters: {l}"
            for l in wide]


def check_second_run(warnings, errors, style, fixed_text, again_text):
    """The fixed copy is a fixed point of --fix and no longer warns where a
    fix was expected."""
    failures = [f"fixed copy does not compile: {e}" for e in errors[:10]]
    if again_text != fixed_text:
        failures.append("a second --fix run changed the fixed copy")
    fixed_cases = parse_cases(fixed_text)[0]
    for case in fixed_cases:
        if case.expected(style) is not None and in_case(warnings, case):
            failures.append(f"case {case.name} still warns after its fix")
    return failures


def start_clang_tidy(args, path, extra):
    config = (f"{{CheckOptions: {{{CHECK}.FixStyle: {args.style}, "
              f"{CHECK}.StrictFixes: {'true' if args.strict else 'false'}}}}}")
    cmd = [args.clang_tidy, f"--load={args.module}", f"-checks=-*,{CHECK}",
           f"--config={config}", *extra, path, "--", "-std=c++17",
           "-D_GLIBCXX_USE_CXX11_ABI=1",
           f"-I{os.path.join(args.source_dir, 'include')}",
           *libtorch_tier.isystem(args)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def finish(proc, what):
    """Waits for a clang-tidy run; a crash is a failure of its own."""
    out = proc.communicate()[0]
    if proc.returncode < 0 or "Stack dump" in out:
        print(out)
        return out, [f"clang-tidy crashed on {what}"]
    return out, []


def start_harness_build(args, work):
    cmd = libtorch_tier.harness_command(
        args, os.path.join(HERE, "harness.cpp"), os.path.join(work, "harness"),
        [work, os.path.join(args.source_dir, "include")])
    # The default's short fixes may throw on a value they assume away; with
    # StrictFixes the harness allows no throw at all.
    cmd.insert(1, f"-DTT_STRICT={1 if args.strict else 0}")
    return subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def run_harness(work, cases):
    """Runs every case by name, so a case without a driver fails."""
    res = subprocess.run([os.path.join(work, "harness")] +
                         [c.name for c in cases],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    print(res.stdout, end="")
    if res.returncode != 0:
        last = (res.stdout.strip().splitlines() or ["crashed"])[-1]
        return [f"harness: {last}"]
    return []


def copy_into(work, folder, src):
    os.makedirs(os.path.join(work, folder))
    dst = os.path.join(work, folder, "cases.cpp")
    shutil.copyfile(src, dst)
    return dst


def read(path):
    with open(path, newline="") as f:
        return f.read()


def verify_exported(args, yaml):
    """torch-tidy-verify over the exported fixes: the failures, one per fix
    it does not verify (a Schema rule is proven by the op-mutation-fixes
    ctests instead, and says so)."""
    if not os.path.exists(yaml):
        return [f"no exported fixes at {yaml}"]
    res = subprocess.run([args.verify, "--json", "--device", "cpu",
                          "--instances", "200", yaml],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        doc = json.loads(res.stdout)
    except ValueError:
        return [f"torch-tidy-verify gave no JSON (exit {res.returncode}): "
                f"{res.stderr.strip()[:300]}"]
    bad = [f"torch-tidy-verify: {f.get('rule')} at line {f.get('line')}: "
           f"{f.get('reason')}" for f in doc["fixes"]
           if f["status"] != "verified"
           and "op-mutation-fixes" not in (f.get("reason") or "")
           and "write-into-copy-fixes" not in (f.get("reason") or "")]
    print(f"torch-tidy-verify: {len(doc['fixes']) - len(bad)} of "
          f"{len(doc['fixes'])} exported fixes verified")
    return bad if doc["fixes"] else ["torch-tidy-verify: no fix exported"]


def main():
    ap = argparse.ArgumentParser()
    libtorch_tier.add_tier_arguments(ap)
    ap.add_argument("--style", required=True, choices=STYLES)
    ap.add_argument("--strict", action="store_true",
                    help="run with StrictFixes: true")
    ap.add_argument("--apply-replacements", required=True)
    ap.add_argument("--verify",
                    help="torch-tidy-verify: every exported fix must verify")
    args = ap.parse_args()
    name = f"fixits-{args.tier}-{args.style}" + ("-strict" if args.strict
                                                  else "")
    mode = args.style + ("-strict" if args.strict else "")

    if libtorch_tier.headers_missing(args, name):
        return 77
    if not os.path.exists(args.module):
        print(f"{name}: plugin {args.module} is not built "
              f"(build target TorchTidyModule)")
        return 1

    start = time.time()
    cases_src = os.path.join(HERE, "cases.cpp")
    rules_def = os.path.join(args.source_dir, "lib", "rules", "include",
                         "torch_tidy", "rules", "RewriteRules.def")
    original_text = read(cases_src)
    cases, failures = parse_cases(original_text)
    failures += check_table(cases, parse_rules(rules_def), mode)

    work = os.path.join(args.out, name)
    shutil.rmtree(work, ignore_errors=True)
    copy_into(work, "original", cases_src)
    fixed = copy_into(work, "fixed", cases_src)
    exported = copy_into(work, "export", cases_src)

    # One run fixes the copy and exports what it fixed (each run parses
    # LibTorch's headers: 20 s); the export is then pointed at a pristine
    # copy, verified and applied there below, and must give the same bytes.
    yaml = os.path.join(work, "export", "fixes.yaml")
    fix_run = start_clang_tidy(args, fixed, ["--fix", f"--export-fixes={yaml}"])
    fix_out, crashed = finish(fix_run, "the original copy")
    if os.path.exists(yaml):
        exported_yaml = read(yaml)
        if fixed not in exported_yaml:
            failures.append(f"the exported fixes do not name {fixed}")
        with open(yaml, "w") as f:
            f.write(exported_yaml.replace(fixed, exported))
    failures += crashed
    warnings, errors = parse_diagnostics(fix_out, fixed)
    failures += [f"cases.cpp does not compile: {e}" for e in errors[:10]]
    fixed_text = read(fixed)
    report, case_failures = check_first_run(
        cases, warnings, mode, case_texts(original_text),
        case_texts(fixed_text))
    print("\n".join(report))
    print("\n".join(fix_lengths(cases, mode, case_texts(original_text),
                                case_texts(fixed_text))))
    failures += case_failures
    failures += check_widths(original_text, fixed_text)
    t_fix = time.time() - start

    # The harness build (the slow part) overlaps the idempotence run.
    again = copy_into(work, "again", fixed)
    build = start_harness_build(args, work)
    again_run = start_clang_tidy(args, again, ["--fix"])

    # Every exported fix is one torch-tidy-verify proves (before the
    # replacements are applied: it reads the file they edit).
    if args.verify:
        failures += verify_exported(args, yaml)
    applied = subprocess.run([args.apply_replacements,
                              os.path.join(work, "export")],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
    if applied.returncode != 0:
        failures.append(f"clang-apply-replacements failed: "
                        f"{applied.stdout.strip()}")
    elif read(exported) != fixed_text:
        failures.append("--export-fixes + clang-apply-replacements differs "
                        "from --fix")

    again_out, crashed = finish(again_run, "the fixed copy")
    failures += crashed
    again_warnings, again_errors = parse_diagnostics(again_out, again)
    failures += check_second_run(again_warnings, again_errors,
                                 mode, fixed_text, read(again))
    t_tidy = time.time() - start

    build_out = build.communicate()[0]
    t_build = time.time() - start
    if build.returncode != 0:
        errors = [l for l in build_out.splitlines() if "error" in l]
        print("\n".join(errors[:30]))
        failures.append("harness.cpp does not compile against the fixed copy")
    else:
        failures += run_harness(work, cases)
    t_all = time.time() - start

    if failures:
        print(f"{name} failures:")
    for f in failures:
        print(f"  {f}")
    print(f"{name}: {len(cases)} cases; first --fix {t_fix:.0f}s, clang-tidy "
          f"stages {t_tidy:.0f}s, harness built {t_build:.0f}s, total "
          f"{t_all:.0f}s")
    print(f"{name}: {'passed' if not failures else f'{len(failures)} failed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

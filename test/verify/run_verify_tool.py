#!/usr/bin/env python3
"""Tests of torch-tidy-verify (build/bin/torch-tidy-verify).

  run_verify_tool.py --verify BIN --verify-wrong BIN --clang-tidy BIN
                     --module SO --source-dir REPO --out DIR
                     [--include DIR ...]

1. The bundled examples: clang-tidy --export-fixes on each file of
   examples/, then torch-tidy-verify: every fix verified, exit 0; --json
   says the same.
2. Every rule: the exported fixes of the fix-it cases (test/fixits/cases.cpp
   in FixStyle index_put and auto, strict or not, test/fixits-more/cases.cpp) name every rule of
   RewriteRules.def, and all are verified.
4. Every fix the lit suite's files export (the flagship's and the other
   runtime-proven checks' directories, with the mock LibTorch, each file's
   default configuration): all verified; a schema rule's fix is the only
   kind left unverified, and says why (proven against real torch instead).
3. Hand-written fixtures (Inputs/): a deliberately wrong rule compiled only
   into torch-tidy-verify-wrong-rule, an unknown rule, a fix without a rule
   note and a fix not of its rule's form are unverified (exit 1); a fix of
   another check is skipped (exit 0); unreadable, empty, malformed and
   wrongly shaped input and bad options exit 2 with a clear message.

Exit 0 when all pass, 1 otherwise.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    print(("PASS " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, **kw)


def export_fixes(args, source, out_yaml, checks, config=None):
    cmd = [args.clang_tidy, f"--load={args.module}", f"-checks=-*,{checks}",
           f"--export-fixes={out_yaml}"]
    if config:
        cmd.append(f"--config={config}")
    cmd += [source, "--", "-std=c++17", "-D_GLIBCXX_USE_CXX11_ABI=1",
            "-I", os.path.join(args.source_dir, "include")]
    for d in args.include:
        cmd += ["-isystem", d]
    res = run(cmd)
    if res.returncode != 0 or not os.path.exists(out_yaml):
        print(res.stdout[-2000:], res.stderr[-2000:])
    return res.returncode == 0 and os.path.exists(out_yaml)


def verify_json(args, yaml, binary=None):
    res = run([binary or args.verify, "--json", yaml])
    try:
        return res.returncode, json.loads(res.stdout)
    except json.JSONDecodeError:
        return res.returncode, None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--verify", required=True)
    p.add_argument("--verify-wrong", required=True)
    p.add_argument("--clang-tidy", required=True)
    p.add_argument("--module", required=True)
    p.add_argument("--source-dir", required=True)
    p.add_argument("--include", action="append", default=[])
    p.add_argument("--out", required=True)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    inputs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs")
    table = os.path.join(args.source_dir, "lib", "rules", "include",
                         "torch_tidy", "rules", "RewriteRules.def")
    # The rows proven on the runtime (Schema rows are proven against real
    # torch by the op-mutation-fixes tests).
    all_rules = {rid for rid, style in re.findall(
        r'TORCH_TIDY_REWRITE_RULE\("([^"]+)",\s*(\w+)', open(table).read())
        if style not in ("Schema", "LibTorch")}

    # Every clang-tidy run first, two at a time (most of this test's time).
    examples = os.path.join(args.source_dir, "examples")
    names = sorted(n for n in os.listdir(examples) if n.endswith(".cpp"))
    FIXLESS_EXAMPLES = {"skew_symmetric.cpp"}
    cases = [
        ("fixits/cases.cpp", "torch-compile-requires-grad-propagation",
         "{CheckOptions: {torch-compile-requires-grad-propagation.FixStyle: "
         "index_put}}"),
        ("fixits/cases.cpp", "torch-compile-requires-grad-propagation",
         "{CheckOptions: {torch-compile-requires-grad-propagation.FixStyle: "
         "auto}}"),
        ("fixits/cases.cpp", "torch-compile-requires-grad-propagation",
         "{CheckOptions: {torch-compile-requires-grad-propagation.FixStyle: "
         "auto, torch-compile-requires-grad-propagation.StrictFixes: true}}"),
        ("fixits-more/cases.cpp",
         "torch-index-assign-to-copy,torch-inplace-on-grad-leaf", None),
    ]
    jobs = [(os.path.join(examples, n), os.path.join(args.out, n + ".yaml"),
             "torch-*", None) for n in names]
    jobs += [(os.path.join(args.source_dir, "test", path),
              os.path.join(args.out, f"cases-{k}.yaml"), checks, config)
             for k, (path, checks, config) in enumerate(cases)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        exported = list(pool.map(lambda j: export_fixes(args, *j), jobs))
    exported = dict(zip([j[1] for j in jobs], exported))

    # 1. The bundled examples.
    total = 0
    for name in names:
        yaml = os.path.join(args.out, name + ".yaml")
        check(exported[yaml], f"examples/{name}: fixes exported")
        res = run([args.verify, yaml])
        m = re.search(r"(\d+) torch-tidy fix\(es\): (\d+) verified, "
                      r"(\d+) unverified", res.stdout)
        # The mutable-argument example's warnings carry no fix (the remedy
        # changes the operator's schema): nothing to verify, still exit 0.
        fixless = name in FIXLESS_EXAMPLES
        check(res.returncode == 0 and m and m.group(1) == m.group(2) and
              (int(m.group(1)) > 0) != fixless and m.group(3) == "0",
              f"examples/{name}: every fix verified, exit 0 "
              f"(exit {res.returncode}: {m.group(0) if m else res.stdout!r})")
        total += int(m.group(1)) if m else 0
        code, doc = verify_json(args, yaml)
        check(code == 0 and doc is not None and (bool(doc["fixes"]) != fixless) and
              all(f["status"] == "verified" and f["runs"] and
                  all(r["failed"] == 0 and r["instances"] >= 1000
                      for r in f["runs"]) for f in doc["fixes"]),
              f"examples/{name}: --json reports every fix verified on "
              f">= 1000 instances")
    print(f"examples: {total} fixes")

    # 2. Every rule, through the fix-it cases.
    seen = set()
    for k, (path, checks, config) in enumerate(cases):
        yaml = os.path.join(args.out, f"cases-{k}.yaml")
        if not exported[yaml]:
            check(False, f"test/{path}: fixes exported")
            continue
        code, doc = verify_json(args, yaml)
        ok = code == 0 and doc is not None
        if doc:
            bad = [f for f in doc["fixes"] if f["status"] != "verified"]
            for f in bad[:5]:
                print("  unverified:", f.get("rule"), f.get("reason"))
            ok = ok and not bad
            seen |= {f["rule"] for f in doc["fixes"]}
        check(ok, f"test/{path} ({config or checks}): every fix verified")
    check(seen == all_rules,
          f"the exported fixes name every rule of RewriteRules.def "
          f"(missing: {sorted(all_rules - seen)}, extra: "
          f"{sorted(seen - all_rules)})")

    # 3. Fixtures.
    def fixture(name):
        return os.path.join(inputs, name)

    res = run([args.verify_wrong, fixture("wrong-rule.yaml")])
    check(res.returncode == 1 and "UNVERIFIED" in res.stdout and
          "test-slice-scatter-drops-step" in res.stdout and
          "failed on cpu" in res.stdout,
          "a deliberately wrong rule is reported unverified, exit 1")
    res = run([args.verify_wrong, fixture("right-rule.yaml")])
    check(res.returncode == 0, "the wrong-rule build still verifies right rules")
    res = run([args.verify, fixture("wrong-rule.yaml")])
    check(res.returncode == 1 and "no verifier for rule" in res.stdout,
          "without the test rule compiled in, its id has no verifier, exit 1")
    for name, text in [("unknown-rule.yaml", "no verifier for rule"),
                       ("no-rule-note.yaml", "no 'rule: <id>' note"),
                       ("pattern-mismatch.yaml",
                        "does not have the form of rule 'index-copy'")]:
        res = run([args.verify, fixture(name)])
        check(res.returncode == 1 and text in res.stdout,
              f"{name}: unverified ({text}), exit 1")
    code, doc = verify_json(args, fixture("pattern-mismatch.yaml"))
    check(code == 1 and doc and doc["summary"]["unverified"] == 1 and
          doc["fixes"][0]["reason"], "--json carries the reason, exit 1")
    res = run([args.verify, fixture("other-check.yaml")])
    check(res.returncode == 0 and "0 torch-tidy fix(es)" in res.stdout and
          "1 diagnostic(s) of other checks skipped" in res.stdout,
          "fixes of other checks are skipped, exit 0")

    empty = os.path.join(args.out, "empty.yaml")
    open(empty, "w").close()
    unreadable = os.path.join(args.out, "unreadable.yaml")
    with open(unreadable, "w") as f:
        f.write("---\n")
    os.chmod(unreadable, 0)
    readable_anyway = os.access(unreadable, os.R_OK)  # root reads it anyway
    for argv, text, what in [
        ([os.path.join(args.out, "missing.yaml")], "cannot read",
         "a missing file"),
        ([args.out], "cannot read", "a directory"),
        ([empty], "is empty", "an empty file"),
        ([fixture("malformed.yaml")], "is not a clang-tidy export-fixes file",
         "malformed YAML"),
        ([fixture("wrong-shape.yaml")], "is not a clang-tidy export-fixes file",
         "YAML of the wrong shape"),
        (["--instances", "0", fixture("right-rule.yaml")], "--instances",
         "--instances 0"),
        (["--device", "tpu", fixture("right-rule.yaml")], "--device",
         "an unknown device"),
        (["--no-such-option", fixture("right-rule.yaml")], "no-such-option",
         "an unknown option"),
    ] + ([] if readable_anyway else
         [([unreadable], "cannot read", "an unreadable file")]):
        res = run([args.verify] + argv)
        check(res.returncode == 2 and text in res.stderr and
              "Stack dump" not in res.stderr,
              f"{what}: exit 2 with a clear message ({res.stderr.strip()[:120]!r})")
    os.chmod(unreadable, 0o644)
    if readable_anyway:
        print("NOTE the unreadable-file case is not checked: this user reads "
              "files without permission bits (root)")
    res = run([args.verify, "--device", "cuda", fixture("right-rule.yaml")])
    if res.returncode == 2:
        check("CUDA" in res.stderr or "cuda" in res.stderr,
              "--device cuda without a GPU: exit 2 and says why")
    else:
        check(res.returncode == 0 and "on cuda" in res.stdout,
              "--device cuda verifies on the GPU")

    # 4. Every fix the lit suite's files export.
    lit = os.path.join(args.source_dir, "test", "lit")
    mock = os.path.join(lit, "Inputs", "mock-libtorch")
    lit_files = sorted(
        os.path.join(lit, d, n)
        for d in ("compile-requires-grad-propagation", "index-assign-to-copy",
                  "inplace-on-grad-leaf", "fixits")
        for n in os.listdir(os.path.join(lit, d)) if n.endswith(".cpp"))

    def export_lit(path):
        out = os.path.join(args.out, "lit-" + os.path.basename(os.path.dirname(path))
                           + "-" + os.path.basename(path) + ".yaml")
        if os.path.exists(out):
            os.unlink(out)
        run([args.clang_tidy, f"--load={args.module}", "-checks=-*,torch-*",
             f"--export-fixes={out}", path, "--", "-std=c++17", "-isystem", mock,
             "-I", os.path.join(args.source_dir, "include")])
        return out if os.path.exists(out) and os.path.getsize(out) else None

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        lit_yamls = [y for y in pool.map(export_lit, lit_files) if y]
    lit_total, lit_bad = 0, []
    for yaml in lit_yamls:
        code, doc = verify_json(args, yaml)
        if doc is None:
            lit_bad.append(f"{yaml}: torch-tidy-verify gave no JSON (exit {code})")
            continue
        for f in doc["fixes"]:
            lit_total += 1
            if f["status"] != "verified" and "op-mutation-fixes" not in (f.get("reason") or ""):
                lit_bad.append(f"{os.path.basename(yaml)}: {f.get('rule')}: {f.get('reason')}")
    for b in lit_bad[:10]:
        print("  unverified:", b)
    check(lit_total > 0 and not lit_bad,
          f"lit: the {lit_total} fixes {len(lit_yamls)} of {len(lit_files)} lit files "
          f"export are all verified ({len(lit_bad)} not)")

    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

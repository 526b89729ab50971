#!/usr/bin/env python3
"""Where users work: each documented workflow run on a small sample project
(test/workflows/sample, a CMake project with compile_commands.json built
against the lit suite's mock LibTorch headers).

  run_workflows.py CASE --source-dir REPO --build-dir BUILD --llvm-bin DIR
                   --out DIR [--tools-python PY] [--torch-python PY]

CASE is one of:
  torch-tidy      build/bin/torch-tidy --list-checks names every check of
                  checks/Checks.def, and finds the bundled example's warning
                  without --load;
  pre-commit      the hook of .pre-commit-hooks.yaml through pre-commit
                  try-repo: a staged file with the bug fails the commit with
                  the warning, a clean staged file and a commit with no C++
                  files pass, and the hook's script alone with zero files is
                  success;
  sarif           torch-tidy-sarif on torch-tidy's output and --export-fixes
                  YAML, read back by two independent SARIF 2.1.0 consumers
                  from PyPI (the sarif-pydantic model and sarif-tools);
  ci-diff         docs/ci.md "changed lines only": clang-tidy-diff reports the
                  finding on a changed line and not the one on an unchanged
                  line;
  ci-project      docs/ci.md "whole project": run-clang-tidy -j 2 with -load;
  ci-build        docs/ci.md "inside the build": CMAKE_CXX_CLANG_TIDY fails
                  the build on the finding and passes a clean project;
  ci-fix-verify   docs/ci.md "fix and verify": --export-fixes, apply with
                  clang-apply-replacements, torch-tidy-verify, re-lint clean;
  extension       docs/extensions.md: a setup.py (torch.utils.cpp_extension)
                  project, test/workflows/extension, linted against the real
                  torch 2.8.0 headers (--torch-python) with torch-tidy-cdb and
                  run-clang-tidy: each planted finding, in the .cpp and the
                  .cu, at its line; nothing else; no compiler error.

Exit 0 on success, 1 on failure, 77 (one SKIPPED line naming the case and
why) when a needed PyPI tool, the torch venv or the CUDA toolkit is missing.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

CHECK = "torch-compile-requires-grad-propagation"
failures = []


def check(cond, what):
    print(("PASS " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run(cmd, cwd=None, env=None, shell=False):
    res = subprocess.run(cmd, cwd=cwd, env=env, shell=shell, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         executable="/bin/bash" if shell else None)
    return res.returncode, res.stdout


class Ctx:
    def __init__(self, args):
        self.args = args
        self.src = os.path.abspath(args.source_dir)
        self.build = os.path.abspath(args.build_dir)
        self.bin = os.path.join(self.build, "bin")
        self.llvm = args.llvm_bin
        self.out = os.path.abspath(args.out)
        self.mock = os.path.join(self.src, "test", "lit", "Inputs",
                                 "mock-libtorch")
        self.module = os.path.join(self.build, "lib", "TorchTidyModule.so")
        self.ver = re.search(r"llvm-(\d+)", self.llvm).group(1)

    def project(self, name, configure=True, git=False):
        """A fresh copy of the sample project, configured with
        compile_commands.json."""
        d = os.path.join(self.out, name)
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(os.path.join(self.src, "test", "workflows", "sample"),
                        d)
        if git:
            for cmd in (["git", "init", "-q"],
                        ["git", "config", "user.email", "t@example.com"],
                        ["git", "config", "user.name", "t"]):
                run(cmd, cwd=d)
        if configure:
            rc, out = self.configure(d)
            if rc != 0:
                print(out)
        return d

    def configure(self, d, extra=()):
        return run(["cmake", "-S", d, "-B", os.path.join(d, "build"),
                    "-G", "Ninja", f"-DCMAKE_CXX_COMPILER={self.llvm}/clang++",
                    f"-DTORCH_INCLUDE={self.mock}",
                    f"-DTORCH_TIDY_INCLUDE={self.src}/include", *extra])


def case_torch_tidy(c):
    table = open(os.path.join(c.src, "checks", "Checks.def")).read()
    names = set(re.findall(r'"(torch-[a-z0-9-]+)"', table))
    rc, out = run([os.path.join(c.bin, "torch-tidy"), "--list-checks",
                   "-checks=torch-*"])
    listed = set(re.findall(r"^\s+(torch-[a-z0-9-]+)$", out, re.M))
    check(rc == 0 and names and listed == names,
          f"torch-tidy --list-checks -checks='torch-*' lists {sorted(listed)}"
          f" (Checks.def: {sorted(names)})")
    rc, out = run([os.path.join(c.bin, "torch-tidy"), "--list-checks",
                   "-checks=*"])
    check("bugprone-use-after-move" in out and "modernize-use-nullptr" in out,
          "torch-tidy also has the upstream checks")
    example = os.path.join(c.src, "examples", "skew_symmetric.cpp")
    rc, out = run([os.path.join(c.bin, "torch-tidy"), "-checks=-*,torch-*",
                   example, "--", "-std=c++17", "-isystem", c.mock])
    check(rc == 0 and f"skew_symmetric.cpp:24:3: warning:" in out and
          f"[{CHECK}]" in out,
          "torch-tidy finds the bundled example's warning without --load")


def case_pre_commit(c):
    pc = os.path.join(os.path.dirname(c.args.tools_python or ""), "pre-commit")
    if not c.args.tools_python or not os.path.exists(pc):
        print("SKIPPED workflow-pre-commit: pre-commit is not installed (the "
              "tools venv from tools/bootstrap is missing)")
        return 77
    hook = os.path.join(c.src, "tools", "pre-commit", "torch-tidy-hook")
    rc, out = run([hook])
    check(rc == 0 and "no C++ files" in out,
          "the hook script with zero files: success")
    d = c.project("pre-commit", git=True)
    env = dict(os.environ, TORCH_TIDY_BIN=os.path.join(c.bin, "torch-tidy"),
               PRE_COMMIT_HOME=os.path.join(c.out, "pre-commit-home"))
    # try-repo runs the hook of the torch-tidy checkout (with its working
    # tree) on the staged files, as `git commit` would.
    try_repo = [pc, "try-repo", c.src, "torch-tidy", "--verbose"]
    with open(os.path.join(d, "README.md"), "w") as f:
        f.write("sample\n")
    run(["git", "add", "README.md"], cwd=d)
    rc, out = run(try_repo, cwd=d, env=env)
    check(rc == 0 and "Skipped" in out,
          f"no staged C++ files: the hook is skipped, exit 0 (exit {rc})")
    run(["git", "add", "src/clean.cpp"], cwd=d)
    rc, out = run(try_repo, cwd=d, env=env)
    check(rc == 0 and "Passed" in out,
          f"a clean staged C++ file passes (exit {rc})")
    run(["git", "add", "src/layers.cpp"], cwd=d)
    rc, out = run(try_repo, cwd=d, env=env)
    check(rc != 0 and f"[{CHECK}" in out and "layers.cpp:10:3" in out and
          f"torch-tidy-hook: checked by {c.bin}/torch-tidy" in out,
          f"a staged file with the pattern fails the hook with the warning, "
          f"naming the binary that ran (exit {rc})")
    if failures:
        print(out[-3000:])
    env_nobin = dict(env, TORCH_TIDY_BIN="", PATH="/usr/bin:/bin")
    rc, out = run([hook, "-p", os.path.join(d, "build"), "src/layers.cpp"],
                  cwd=d, env=env_nobin)
    check(rc == 1 and "no torch-tidy binary" in out,
          "without a binary the hook says how to get one, exit 1")
    # The Python hook (issue 60): torch-tidy-py on the staged Python files.
    py_hook = os.path.join(c.src, "tools", "pre-commit", "torch-tidy-py-hook")
    rc, out = run([py_hook])
    check(rc == 0 and "no Python files" in out,
          "the Python hook script with zero files: success")
    if run([c.args.tools_python, "-c", "import libcst"])[0] != 0:
        print("SKIPPED the torch-tidy-py hook: no LibCST in the tools venv")
        return
    env_py = dict(env, TORCH_TIDY_PYTHON=c.args.tools_python)
    try_py = [pc, "try-repo", c.src, "torch-tidy-py", "--verbose"]
    with open(os.path.join(d, "helpers.py"), "w") as f:
        f.write("import torch\n\n\ndef scale(x):\n    return x * 2\n")
    run(["git", "add", "helpers.py"], cwd=d)
    rc, out = run(try_py, cwd=d, env=env_py)
    check(rc == 0 and "Passed" in out,
          f"a clean staged Python file passes the torch-tidy-py hook (exit {rc})")
    shutil.copy(os.path.join(c.src, "examples", "skew_symmetric.py"),
                os.path.join(d, "model.py"))
    run(["git", "add", "model.py"], cwd=d)
    rc, out = run(try_py, cwd=d, env=env_py)
    check(rc != 0 and "model.py:17:5: warning: " in out and f"[{CHECK}]" in out,
          f"a staged Python file with the seed fails the torch-tidy-py hook with the "
          f"warning (exit {rc})")
    rc, out = run([py_hook, "model.py"], cwd=d,
                  env=dict(env, TORCH_TIDY_PYTHON="/bin/false"))
    check(rc == 1 and "cannot import LibCST" in out,
          "without LibCST the Python hook says how to get it, exit 1")


def tidy_output(c, d, extra=()):
    files = [os.path.join(d, "src", f) for f in ("layers.cpp", "clean.cpp")]
    return run([os.path.join(c.bin, "torch-tidy"), "-p",
                os.path.join(d, "build"), "-checks=-*,torch-*", *extra,
                *files])


def case_sarif(c):
    py = c.args.tools_python
    if not py or not os.path.exists(py):
        print("SKIPPED workflow-sarif: the SARIF consumers (sarif-pydantic, "
              "sarif-tools) are not installed (the tools venv from "
              "tools/bootstrap is missing)")
        return 77
    d = c.project("sarif")
    fixes = os.path.join(d, "fixes.yaml")
    rc, log = tidy_output(c, d, [f"--export-fixes={fixes}"])
    with open(os.path.join(d, "tidy.log"), "w") as f:
        f.write(log)
    sarif_bin = os.path.join(c.bin, "torch-tidy-sarif")
    outs = {}
    for name, argv in [("both", [os.path.join(d, "tidy.log"), "--fixes",
                                 fixes]),
                       ("log", [os.path.join(d, "tidy.log")]),
                       ("fixes", ["--fixes", fixes]),
                       ("relative", [os.path.join(d, "tidy.log"), "--fixes",
                                     fixes, "--source-root", d])]:
        path = os.path.join(d, name + ".sarif")
        rc, out = run([sarif_bin, *argv, "-o", path])
        check(rc == 0 and os.path.exists(path),
              f"torch-tidy-sarif ({name}) writes SARIF")
        outs[name] = path
    consumer = r'''
import json, sys
from sarif_pydantic import Sarif
from sarif import loader
path, expect_fixes = sys.argv[1], sys.argv[2] == "1"
log = Sarif.model_validate(json.load(open(path)))
assert log.version == "2.1.0", log.version
run = log.runs[0]
rules = [r.id for r in run.tool.driver.rules]
results = run.results
assert len(results) == 2, len(results)
for r in results:
    assert r.rule_id == "torch-compile-requires-grad-propagation", r.rule_id
    assert rules[r.rule_index] == r.rule_id
    loc = r.locations[0].physical_location
    assert loc.artifact_location.uri.endswith("src/layers.cpp"), loc.artifact_location.uri
    assert loc.region.start_line in (10, 17), loc.region.start_line
    assert "requires_grad" in r.message.text
    if expect_fixes:
        assert r.fixes, "no fixes"
        rep = r.fixes[0].artifact_changes[0].replacements[0]
        assert "index_" in rep.inserted_content.text, rep
        assert r.fixes[0].description.text.startswith("rule: ")
sf = loader.load_sarif_file(path)
assert sf.get_result_count() == 2, sf.get_result_count()
assert sf.get_distinct_tool_names() == ["torch-tidy"], sf.get_distinct_tool_names()
assert len(sf.get_records()) == 2
print("consumers accept", path, "with", len(results), "results")
'''
    for name, path in outs.items():
        rc, out = run([py, "-c", consumer, path,
                       "0" if name == "log" else "1"])
        check(rc == 0, f"sarif-pydantic and sarif-tools accept the {name} "
              f"SARIF: {out.strip()[-300:]}")
    # Malformed input: a clear error, exit 2.
    bad = os.path.join(d, "bad.yaml")
    with open(bad, "w") as f:
        f.write("Diagnostics: [\n")
    rc, out = run([sarif_bin, "--fixes", bad])
    check(rc == 2 and "not a clang-tidy export-fixes file" in out,
          "torch-tidy-sarif on malformed YAML: exit 2 and says why")
    rc, out = run([sarif_bin, os.path.join(d, "missing.log")])
    check(rc == 2 and "cannot read" in out, "missing log: exit 2")


def case_ci_diff(c):
    d = c.project("ci-diff", git=True)
    layers = os.path.join(d, "src", "layers.cpp")
    text = open(layers).read()
    # Commit the file without the index_copy_ write, then add it back: only
    # that line changes; the index_put_ finding is on an unchanged line.
    before = text.replace("  out.index_copy_(0, idx, src);\n", "")
    with open(layers, "w") as f:
        f.write(before)
    run(["git", "add", "-A"], cwd=d)
    run(["git", "commit", "-qm", "base"], cwd=d)
    with open(layers, "w") as f:
        f.write(text)
    # The recipe of docs/ci.md, verbatim but for paths.
    recipe = (f"git diff -U0 HEAD | clang-tidy-diff-{c.ver}.py -p1 -path build "
              f"-clang-tidy-binary {c.bin}/torch-tidy -checks='-*,torch-*'")
    rc, out = run(recipe, cwd=d, shell=True)
    check("layers.cpp:17:3: warning" in out and f"[{CHECK}]" in out,
          "clang-tidy-diff reports the finding on the changed line")
    check("layers.cpp:10:3" not in out,
          "and not the one on an unchanged line")


def case_ci_project(c):
    d = c.project("ci-project")
    rc, out = run([f"run-clang-tidy-{c.ver}", "-p", "build", "-j", "2",
                   f"-clang-tidy-binary={c.llvm}/clang-tidy",
                   f"-load={c.module}", "-checks=-*,torch-*", "-quiet"],
                  cwd=d)
    found = re.findall(r"layers\.cpp:(\d+):3: warning: .*\[" + CHECK, out)
    check(sorted(found) == ["10", "17"],
          f"run-clang-tidy -j 2 -load finds both findings ({found})")
    check("clean.cpp" not in "".join(re.findall(r".*warning.*", out)),
          "and nothing in the clean file")
    # The same project in one command, read back from --json as a CI
    # annotation would: each finding's message, notes and fix (issue 46).
    rc, out = run([os.path.join(c.bin, "torch-tidy-project"), "-j", "2",
                   "--json", "../ci-project.json"], cwd=d)
    s = load_json(os.path.join(c.out, "ci-project.json"))
    found = s.get("findings", [])
    layers = os.path.join(d, "src", "layers.cpp")
    fixes = [f["fix"] for f in found if f.get("fix")]
    check(rc == 1 and [f["line"] for f in found] == [10, 17] and
          all(f["file"] == "src/layers.cpp" and f["check"] == CHECK and
              f["message"] and f["notes"] and
              f["class"] == "stale requires_grad" for f in found) and
          len(fixes) == 2 and all(
              x["rule"] and x["replacements"][0]["file"] == "src/layers.cpp"
              and x["replacements"][0]["line"] == f["line"] and
              x["replacements"][0]["text"] for x, f in zip(fixes, found)) and
          "using the project's build/compile_commands.json" in out,
          f"torch-tidy-project --json on the project's own database: both "
          f"findings with their message, notes and fix (rule, replacement "
          f"at the finding's line) (exit {rc}): {json.dumps(found)[:600]}")
    validate(c, os.path.join(c.out, "ci-project.json"),
             "the sample project's --json")
    # The project's own .clang-tidy, unreadable by the bundled clang-tidy
    # (an empty CheckOptions:, issue 80): reported once, as configuration,
    # and the torch checks run without it; no file "did not parse".
    config = os.path.join(d, ".clang-tidy")
    with open(config, "w") as f:
        f.write("Checks: '-*,readability-*'\nCheckOptions:\n")
    rc, out = run([os.path.join(c.bin, "torch-tidy-project"), "-j", "2",
                   "--json", "../ci-project-config.json"], cwd=d)
    os.remove(config)
    s = load_json(os.path.join(c.out, "ci-project-config.json"))
    problems = s.get("configuration") or []
    check(rc == 1 and [f["line"] for f in s.get("findings", [])] == [10, 17] and
          not s.get("did_not_parse") and len(problems) == 1 and
          problems[0]["file"] == ".clang-tidy" and
          "expected a sequence or map" in problems[0]["error"] and
          problems[0]["files"] >= 2 and
          out.count("configuration: .clang-tidy cannot be read") == 1,
          f"an unreadable .clang-tidy is reported once, as configuration, "
          f"and the torch checks run without it (exit {rc}; configuration "
          f"{problems}; did_not_parse {s.get('did_not_parse')}): {out[-800:]}")
    validate(c, os.path.join(c.out, "ci-project-config.json"),
             "the --json of a run past an unreadable .clang-tidy")
    # A TensorFlow op file in the database (deepmd-kit's shape, issue 80):
    # counted apart, not linted; --other-framework-ops lints it (and it
    # does not parse here: no TensorFlow headers).
    db_path = os.path.join(d, "build", "compile_commands.json")
    with open(db_path) as f:
        db_text = f.read()
    entries = json.loads(db_text)
    tf_op = os.path.join(d, "src", "prod_force_op.cc")
    with open(tf_op, "w") as f:
        f.write('#include "tensorflow/core/framework/op.h"\n'
                'REGISTER_OP("ProdForce").Input("net_deriv: T");\n')
    extra = dict(entries[0])
    extra["file"] = tf_op
    for key in ("command", "arguments"):
        if key in extra:
            extra[key] = (extra[key].replace(entries[0]["file"], tf_op)
                          if isinstance(extra[key], str) else
                          [tf_op if a == entries[0]["file"] else a
                           for a in extra[key]])
    extra.pop("output", None)
    with open(db_path, "w") as f:
        json.dump(entries + [extra], f)
    rc, out = run([os.path.join(c.bin, "torch-tidy-project"), "-j", "2",
                   "--json", "../ci-project-tf.json"], cwd=d)
    s = load_json(os.path.join(c.out, "ci-project-tf.json"))
    skipped = s.get("files_skipped", {})
    check(rc == 1 and s.get("files_linted") == 2 and not s.get("did_not_parse")
          and any(k.startswith("TensorFlow operators") and v == 1
                  for k, v in skipped.items()),
          f"a TensorFlow op file is counted apart, not linted (exit {rc}; "
          f"linted {s.get('files_linted')}; skipped {skipped}; did_not_parse "
          f"{s.get('did_not_parse')})")
    rc, out = run([os.path.join(c.bin, "torch-tidy-project"), "-j", "2",
                   "--other-framework-ops", "--all-files", "--json",
                   "../ci-project-tf-on.json"],
                  cwd=d)
    s = load_json(os.path.join(c.out, "ci-project-tf-on.json"))
    check(s.get("files_linted") == 3 and "src/prod_force_op.cc" in json.dumps(
              s.get("did_not_parse")),
          f"--other-framework-ops --all-files lints it (linted "
          f"{s.get('files_linted')}; "
          f"did_not_parse {s.get('did_not_parse')})")
    os.remove(tf_op)
    with open(db_path, "w") as f:
        f.write(db_text)
    # The project's own Python in the same run (issue 60): a compiled
    # function with the seed's write joins the warnings, --json (with its
    # fix) and SARIF; without LibCST the run says it did not lint it.
    py = c.args.tools_python
    if not py or run([py, "-c", "import libcst"])[0] != 0:
        print("SKIPPED the project's Python in torch-tidy-project: no tools venv "
              "with LibCST (tools/bootstrap)")
        return
    shutil.copy(os.path.join(c.src, "examples", "skew_symmetric.py"),
                os.path.join(d, "src", "model.py"))
    rc, out = run([os.path.join(c.bin, "torch-tidy-project"), "-j", "2",
                   "--python-files", "off", "--json", "../ci-project-off.json"], cwd=d)
    check(rc == 1 and "model.py" not in out,
          f"--python-files off: the Python file is not linted (exit {rc})")
    rc, out = run([py, os.path.join(c.bin, "torch-tidy-project"), "-j", "2",
                   "--json", "../ci-project-py.json", "--sarif", "../ci-project-py.sarif"],
                  cwd=d)
    s = load_json(os.path.join(c.out, "ci-project-py.json"))
    found = [f for f in s.get("findings", []) if f["file"] == "src/model.py"]
    check(rc == 1 and [f["line"] for f in found] == [17, 18] and
          all(f["check"] == CHECK and f["fix"] and
              f["fix"]["rule"] == "index-put-advanced" and
              f["fix"]["replacements"][0]["file"] == "src/model.py" and
              "index_put(" in f["fix"]["replacements"][0]["text"] for f in found) and
          s["warnings"].get(CHECK) == 4 and
          (s.get("python") or {}).get("linted") == 1 and
          "python: 1 of 1 files that mention torch linted by torch-tidy-py" in out,
          f"torch-tidy-project lints the project's Python in the same run: both "
          f"writes of src/model.py with their fix in --json, 4 warnings in all "
          f"(exit {rc}): {json.dumps(found)[:400]} {out[-600:]}")
    sarif_doc = load_json(os.path.join(c.out, "ci-project-py.sarif"))
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for run_ in sarif_doc["runs"] for r in run_["results"]]
    check(sum(u.endswith("src/model.py") for u in uris) == 2,
          f"and in SARIF ({uris})")
    validate(c, os.path.join(c.out, "ci-project-py.json"),
             "the sample project's --json with its Python")
    # A gate never passes on the share it read: run under a Python without
    # LibCST (the torch venv's), the compiled Python is not linted, exit 3.
    tp = c.args.torch_python
    if tp and os.path.exists(tp) and run([tp, "-c", "import libcst"])[0] != 0:
        rc, out = run([tp, os.path.join(c.bin, "torch-tidy-project"), "-j", "2"], cwd=d)
        check(rc == 3 and "compile something and were not linted: LibCST is not installed"
              in last_line(out),
              f"without LibCST the gate does not pass on the C++ alone (exit {rc}): "
              f"{last_line(out)[-300:]}")
    rc, out = run([os.path.join(c.bin, "torch-tidy-project"), "-j", "2",
                   "--python-files", "on"], cwd=d,
                  env=dict(os.environ, PYTHONPATH=""))
    if run(["python3", "-c", "import libcst"])[0] != 0:
        check(rc == 2 and "--python-files on" in out and "LibCST" in out,
              f"--python-files on without LibCST: an error (exit {rc}): {out[-300:]}")


def case_ci_build(c):
    d = c.project("ci-build", configure=False)
    tidy = (f"{c.llvm}/clang-tidy;--load={c.module};-checks=-*,torch-*;"
            f"--warnings-as-errors=torch-*")
    rc, out = c.configure(d, [f"-DCMAKE_CXX_CLANG_TIDY={tidy}"])
    check(rc == 0, "configure with CMAKE_CXX_CLANG_TIDY")
    rc, out = run(["cmake", "--build", os.path.join(d, "build")])
    check(rc != 0 and "layers.cpp:10:3: error:" in out and
          f"[{CHECK},-warnings-as-errors]" in out,
          f"the build fails on the finding (exit {rc})")
    # The fixed project builds.
    layers = os.path.join(d, "src", "layers.cpp")
    os.remove(layers)
    shutil.copy(os.path.join(d, "src", "clean.cpp"), layers)
    text = open(layers).read().replace("skew_fixed", "skew_fixed2")
    open(layers, "w").write(text)
    rc, out = run(["cmake", "--build", os.path.join(d, "build")])
    check(rc == 0, f"a clean project builds with the check on (exit {rc})")


def case_ci_fix_verify(c):
    d = c.project("ci-fix-verify")
    fixes_dir = os.path.join(d, "fixes")
    os.makedirs(fixes_dir)
    fixes = os.path.join(fixes_dir, "layers.yaml")
    rc, out = tidy_output(c, d, [f"--export-fixes={fixes}"])
    check(os.path.exists(fixes), "--export-fixes writes the fixes")
    rc, out = run([os.path.join(c.bin, "torch-tidy-verify"), fixes])
    check(rc == 0 and "2 torch-tidy fix(es): 2 verified" in out,
          f"torch-tidy-verify: every fix verified (exit {rc})")
    rc, out = run([f"{c.llvm}/clang-apply-replacements", fixes_dir])
    check(rc == 0, "clang-apply-replacements applies them")
    text = open(os.path.join(d, "src", "layers.cpp")).read()
    check("matrix = matrix.index_put(" in text and
          "out = out.index_copy(" in text, "the file holds the rewrites")
    rc, out = tidy_output(c, d)
    check("warning" not in out, "re-linting finds nothing")
    rc, out = run(["cmake", "--build", os.path.join(d, "build")])
    check(rc == 0, "the fixed project still compiles")


# The planted findings of test/workflows/extension: (file, the statement that
# is reported, check). The lines are looked up in the sources.
EXTENSION_FINDINGS = [
    ("csrc/ops.cpp", "out.index_put_({Slice(0, rows.size(0))}, rows);", CHECK),
    ("csrc/ops.cpp", "x.div_(x.norm());", "torch-op-undeclared-mutation"),
    ("csrc/ops_cuda.cu", "out.index_put_({idx}, rows, /*accumulate=*/true);",
     CHECK),
    ("csrc/ops_cuda.cu", "x.clamp_(-limit, limit);",
     "torch-op-undeclared-mutation"),
]
# Operators that must not be reported: (file, first and last line of the
# kernel).
EXTENSION_CLEAN = [
    ("csrc/ops.cpp", "at::Tensor with_rows(", "}"),
    ("csrc/ops_cuda.cu", "at::Tensor scale_rows_cuda(", "}"),
]


def line_of(path, text, start=1):
    for n, line in enumerate(open(path).read().splitlines(), 1):
        if n >= start and text in line:
            return n
    return None


def case_extension(c):
    py = c.args.torch_python
    if not py or not os.path.exists(py):
        print("SKIPPED workflow-extension: no torch 2.8.0 venv "
              "(TORCH_TIDY_PYTHON_28 is empty; tools/bootstrap makes it)")
        return 77
    d = os.path.join(c.out, "extension")
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(os.path.join(c.src, "test", "workflows", "extension"), d)
    # The recipe of docs/extensions.md, verbatim but for paths.
    cdb = os.path.join(c.src, "tools", "torch-tidy", "torch-tidy-cdb")
    rc, out = run([cdb, "--python", py, "csrc"], cwd=d)
    if rc == 2 and "no CUDA toolkit" in out:
        print("SKIPPED workflow-extension: the sample's .cu needs a CUDA "
              "toolkit (" + out.strip() + ")")
        return 77
    check(rc == 0 and "2 entries (1 CUDA)" in out,
          f"torch-tidy-cdb writes compile_commands.json (exit {rc}): "
          f"{out.strip()[-300:]}")
    try:
        entries = json.load(open(os.path.join(d, "compile_commands.json")))
    except (OSError, ValueError):
        entries = []
    args = {os.path.relpath(e["file"], d): e["arguments"] for e in entries}
    check(sorted(args) == ["csrc/ops.cpp", "csrc/ops_cuda.cu"] and
          len(entries) == 2, f"one entry per source ({sorted(args)})")
    cpp, cu = args.get("csrc/ops.cpp", []), args.get("csrc/ops_cuda.cu", [])
    for name, a in (("ops.cpp", cpp), ("ops_cuda.cu", cu)):
        check(a[:1] == ["clang++"] and "-std=c++17" in a and
              "-DTORCH_EXTENSION_NAME=extension" in a and
              "-DTORCH_API_INCLUDE_EXTENSION_H" in a and
              "-D_GLIBCXX_USE_CXX11_ABI=1" in a and
              any(x.endswith(os.path.join("torch", "include")) for x in a),
              f"{name}: clang++ with cpp_extension's flags and torch's "
              f"include paths")
    check("-x" not in cpp and "cuda" not in cpp,
          "ops.cpp is parsed as C++")
    check(cu[cu.index("-x") + 1:cu.index("-x") + 2] == ["cuda"]
          if "-x" in cu else False,
          "ops_cuda.cu is parsed as CUDA (-x cuda)")
    check("--cuda-host-only" in cu and "-Wno-unknown-cuda-version" in cu and
          any(x.startswith("--cuda-path=") for x in cu),
          "ops_cuda.cu: --cuda-host-only --cuda-path= "
          "-Wno-unknown-cuda-version")

    # --setup-py: the flags come from setup.py's own extension (issue 31).
    rc, out = run([cdb, "--python", py, "--setup-py", "setup.py", "-o",
                   "from-setup/compile_commands.json"], cwd=d)
    check(rc == 0 and "2 entries (1 CUDA)" in out,
          f"torch-tidy-cdb --setup-py setup.py (exit {rc}): "
          f"{out.strip()[-300:]}")
    try:
        entries = json.load(open(os.path.join(
            d, "from-setup", "compile_commands.json")))
    except (OSError, ValueError):
        entries = []
    sargs = {os.path.relpath(e["file"], d): e["arguments"] for e in entries}
    scpp, scu = sargs.get("csrc/ops.cpp", []), sargs.get("csrc/ops_cuda.cu", [])
    csrc = "-I" + os.path.join(os.path.realpath(d), "csrc")
    for name, a in (("ops.cpp", scpp), ("ops_cuda.cu", scu)):
        check("-DTORCH_EXTENSION_NAME=_C" in a and "-DWITH_PYTHON" in a and
              any(os.path.realpath(x[2:]) == csrc[2:] for x in a
                  if x.startswith("-I")) and "-O2" not in a and
              not any(x.startswith("-I") and x.endswith(
                  os.path.join("torch", "include")) for x in a),
              f"--setup-py, {name}: the extension's name, define_macros, "
              f"include_dirs; no -O2; torch's headers stay system headers "
              f"({[x for x in a if x[:2] in ('-D', '-I')]})")
    check("-DTIDY_EXT_CUDA" in scu and "-DTIDY_EXT_CUDA" not in scpp and
          "-DTIDY_EXT_CPU" in scpp and "-DTIDY_EXT_CPU" not in scu,
          "--setup-py: cxx's -D flags for the .cpp source, nvcc's for the "
          ".cu source, as BuildExtension compiles them")

    # One command for the whole project (issue 31): no compile database
    # yet, so torch-tidy-project reads setup.py, lints both files and sums up.
    one = os.path.join(c.out, "extension-one-command")
    shutil.rmtree(one, ignore_errors=True)
    shutil.copytree(os.path.join(c.src, "test", "workflows", "extension"), one)
    project = os.path.join(c.src, "tools", "torch-tidy", "torch-tidy-project")
    rc, out = run([project, "--python", py, "--torch-tidy",
                   f"{c.bin}/torch-tidy", "-j", "2"], cwd=one)
    check(rc == 1 and "reading setup.py (setup() recording its extensions"
          in out and
          "torch-tidy-project: 2 files, 0 did not parse, 4 warnings" in out and
          re.search(r"^\s+2 torch-compile-requires-grad-propagation$", out,
                    re.M) and
          re.search(r"^\s+2 torch-op-undeclared-mutation$", out, re.M) and
          "[2/2]" in out,
          f"torch-tidy-project: one command, progress, summary, exit 1 on "
          f"warnings (exit {rc}): {out.strip()[-400:]}")
    check(not os.path.exists(os.path.join(one, "compile_commands.json")) and
          os.path.isfile(os.path.join(one, ".torch-tidy",
                                      "compile_commands.json")),
          "the database it made is in .torch-tidy/, not the project's root")
    rc, out = run([project, "--python", py, "--torch-tidy",
                   f"{c.bin}/torch-tidy", "--fail-on", "never", "ops_cuda"],
                  cwd=one)
    check(rc == 0 and "torch-tidy-project: 1 files, 0 did not parse, "
          "2 warnings" in out and "using the project's" not in out and
          out.strip().splitlines()[-1].startswith(
              "torch-tidy-project: done (--fail-on never): 2 warnings"),
          f"torch-tidy-project FILE_REGEX --fail-on never: the database made "
          f"again (not taken for the project's own), one file, exit 0 "
          f"(exit {rc}): {out.strip()[-300:]}")
    # The kernel's body in a header both files include (csrc/norm.h): its
    # warning is shown (clang-tidy's header filter set to the project's own
    # headers) and counted once, though both files report it.
    hdr = os.path.join(c.out, "extension-header")
    shutil.rmtree(hdr, ignore_errors=True)
    shutil.copytree(os.path.join(c.src, "test", "workflows", "extension"), hdr)
    ops = os.path.join(hdr, "csrc", "ops.cpp")
    text = open(ops).read()
    body = text[text.index("// Divides by the norm"):
                text.index("} // namespace tidy_ext")]
    with open(ops, "w") as f:
        f.write(text.replace(body, "").replace(
            "#include <torch/library.h>\n",
            "#include <torch/library.h>\n#include \"norm.h\"\n"))
    with open(os.path.join(hdr, "csrc", "norm.h"), "w") as f:
        f.write("#pragma once\n#include <torch/extension.h>\n"
                "namespace tidy_ext {\n" +
                body.replace("at::Tensor normalize_cpu",
                             "inline at::Tensor normalize_cpu") + "}\n")
    cu = os.path.join(hdr, "csrc", "ops_cuda.cu")
    text = open(cu).read()
    with open(cu, "w") as f:
        f.write('#include "norm.h"\n' + text)
    rc, out = run([project, "--python", py, "--torch-tidy",
                   f"{c.bin}/torch-tidy", "-j", "2", "--json",
                   "../extension-header.json"], cwd=hdr)
    s = load_json(os.path.join(c.out, "extension-header.json")) or {}
    in_header = [(x["file"], x["check"]) for x in s.get("findings", [])
                 if x["file"] == "csrc/norm.h"]
    check(rc == 1 and "2 files, 0 did not parse, 4 warnings" in out and
          out.count("norm.h:") >= 2 and
          in_header == [("csrc/norm.h", "torch-op-undeclared-mutation")],
          f"a kernel's write in a header of the project's: shown, and "
          f"counted once though both files that include it report it "
          f"(exit {rc}, {in_header}): {out.strip()[-400:]}")
    empty = os.path.join(c.out, "extension-empty")
    os.makedirs(empty, exist_ok=True)
    rc, out = run([project, "--torch-tidy", f"{c.bin}/torch-tidy"], cwd=empty)
    check(rc == 2 and "no compile_commands.json" in out,
          f"torch-tidy-project without a database or setup.py: exit 2, says "
          f"why (exit {rc}): {out.strip()[-200:]}")
    rc, out = run([project, "--torch-tidy", shutil.which("clang-tidy-19") or
                   "/usr/bin/clang-tidy-19"], cwd=one)
    check(rc == 2 and "has no torch-tidy checks" in out,
          f"torch-tidy-project refuses a plain clang-tidy (exit {rc}): "
          f"{out.strip()[-200:]}")

    recipe = (f"run-clang-tidy-{c.ver} -clang-tidy-binary {c.bin}/torch-tidy "
              f"-checks='-*,torch-*' -p .")
    rc, out = run(recipe, cwd=d, shell=True)
    with open(os.path.join(d, "tidy.log"), "w") as f:
        f.write(out)
    check(rc == 0, f"run-clang-tidy exits 0 (exit {rc})")
    errors = [l for l in out.splitlines() if re.search(r": error: ", l)]
    check(not errors and "Found compiler error" not in out,
          f"no compiler error: the torch and CUDA headers parse ({errors[:3]})")
    found = set()
    for m in re.finditer(r"^(.*?):(\d+):\d+: warning: .* \[(torch-[\w-]+)\]$",
                         out, re.M):
        found.add((os.path.relpath(m.group(1), d), int(m.group(2)),
                   m.group(3)))
    expected = set()
    for rel, text, check_name in EXTENSION_FINDINGS:
        line = line_of(os.path.join(d, rel), text)
        expected.add((rel, line, check_name))
        check((rel, line, check_name) in found,
              f"{rel}:{line}: warning [{check_name}] ({text})")
    for rel, first, last in EXTENSION_CLEAN:
        start = line_of(os.path.join(d, rel), first)
        end = line_of(os.path.join(d, rel), last, start or 1)
        hits = [f for f in found if start and end and f[0] == rel and
                start <= f[1] <= end]
        check(start and end and not hits,
              f"{rel}:{start}-{end}: the clean operator is not reported "
              f"({hits})")
    check(found == expected,
          f"exactly the planted findings (missing: "
          f"{sorted(expected - found)}; others: {sorted(found - expected)})")
    if failures:
        print(out[-4000:])


def case_cmake_projects(c):
    """The first hour on a CMake-built operator library (issue 37): one
    `torch-tidy-project --python PY` per project, the build tree's copy of
    the script (so the torch-tidy beside it), with Debian's LibTorch 1.13
    installed too; no flag by hand."""
    py = c.args.torch_python
    if not py:
        print("SKIPPED workflow-cmake-projects: no torch 2.8.0 venv "
              "(tools/bootstrap)")
        return 77
    if not shutil.which("cmake"):
        print("SKIPPED workflow-cmake-projects: no cmake on PATH")
        return 77
    debian_torch = "/usr/lib/x86_64-linux-gnu/cmake/Torch/TorchConfig.cmake"
    check(os.path.isfile(debian_torch),
          "Debian's LibTorch 1.13 is installed (find_package(Torch) alone "
          "would take it)")
    project = os.path.join(c.bin, "torch-tidy-project")
    tidy = os.path.join(c.bin, "torch-tidy")
    site = run([py, "-c", "import torch.utils; "
                "print(torch.utils.cmake_prefix_path)"])[1].strip()
    torch_headers = os.path.realpath(os.path.join(
        site, "..", "..", "include", "torch", "csrc", "api", "include"))

    def fresh(name, source):
        d = os.path.join(c.out, name)
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(os.path.join(c.src, "test", "workflows", source), d)
        return d

    def summary(d):
        try:
            return json.load(open(os.path.join(d, "summary.json")))
        except (OSError, ValueError):
            return {}

    # A setup.py that drives CMake: find_package(Torch), find_package(ZLIB),
    # setup.py's -D options, Python fakes.
    lib = fresh("cmake-lib", "cmake-lib")
    rc, out = run([project, "--python", py, "-j", "2", "--json",
                   "summary.json"], cwd=lib)
    with open(os.path.join(lib, "out.log"), "w") as f:
        f.write(out)
    s = summary(lib)
    check(rc == 1 and "setup.py drives CMake" in out,
          f"setup.py driving CMake: one command, exit 1 on its warnings "
          f"(exit {rc}): {out.strip()[-600:]}")
    check("the options its build_ext computed: -DTIDY_LIB_FLAVOUR=workflow "
          "-DTIDY_LIB_WITH_ZLIB=ON" in out,
          "the -D options setup.py's build_ext computes reach CMake (run "
          "with cmake recording; the paths it computes are torch-tidy's own)")
    db = s.get("database", {})
    check(db.get("how") == "cmake" and
          list(db.get("libtorch", {})) == ["2.8.0"] and
          os.path.realpath(db["libtorch"]["2.8.0"]) == torch_headers,
          f"the database names the torch of --python, not Debian's 1.13 "
          f"({db})")
    check(s.get("files_linted") == 3 and s.get("did_not_parse") == {} and
          "3 files, 0 did not parse, 2 warnings" in out,
          f"every file parses (zlib.h and the CMake definitions included): "
          f"{s.get('did_not_parse')}")
    idx = s.get("index") or {}
    check(idx.get("operators") == 3 and
          idx.get("kernels_by_key") == {"CPU": 3} and idx.get("fakes") == 2,
          f"the summary counts 3 operators, 3 CPU kernels, 2 fakes ({idx})")
    check(re.search(r"^  project: 3 operators defined, 3 kernels \(CPU 3\), "
                    r"2 fake registrations \(2 torch\.library\.register_fake\)",
                    out, re.M) is not None,
          "the printed summary says the same")
    kernels = os.path.join(lib, "csrc", "kernels.cpp")
    write = line_of(kernels, "x.mul_(s);")
    check(re.search(rf"kernels\.cpp:{write}:3: warning: mul_ writes into "
                    rf"argument 'x' of operator 'tidy_lib::scale_rows'.*"
                    rf"\(silent\)", out) is not None and
          "fakes.py:5 (torch.library.register_fake)" in out,
          "the planted undeclared mutation, silent: the fake of fakes.py is "
          "named")
    check(idx.get("kernels_unseen") == {} and
          "  coverage 100%: 3 of 3 C++ kernels analysed, 3 of 3 files parsed"
          in out,
          f"every operator's kernels were linted ({idx.get('kernels_unseen')})")
    rc, out = run([project, "--python", py, "--json", "summary.json",
                   r"ops\.cpp$"], cwd=lib)
    unseen = (summary(lib).get("index") or {}).get("kernels_unseen")
    check(unseen == {"registered only in files not linted": 3} and
          "coverage 0%: 0 of 3 C++ kernels analysed, 1 of 1 files parsed"
          in out,
          f"linting the schemas alone: the 3 operators' kernels unseen, "
          f"by cause ({unseen})")
    check(rc == 3 and out.strip().splitlines()[-1].startswith(
              "torch-tidy-project: FAIL (warnings, coverage)") and
          "a run without FILE_REGEX" in out,
          f"... and the run is not green: exit 3, the last line says "
          f"coverage (exit {rc}): {out.strip().splitlines()[-1][:300]}")
    check(s.get("torch_tidy", {}).get("path") == os.path.realpath(tidy) and
          f"torch-tidy is {os.path.realpath(tidy)} (torch-tidy " in out and
          s["torch_tidy"].get("version") and s["torch_tidy"].get("llvm"),
          f"the torch-tidy beside the script, named with its version "
          f"({s.get('torch_tidy')})")

    # The same library built the way big operator libraries build theirs
    # (issue 80): CMake run from setup.py's build_clib, and a binding
    # extension with sources that setup() compiles itself. Before, the
    # extension alone was linted (no word of CMake).
    clib = fresh("cmake-clib", "cmake-lib")
    for name in ("setup.py", os.path.join("csrc", "bind.cpp")):
        shutil.copy(os.path.join(c.src, "test", "workflows", "cmake-clib",
                                 name), os.path.join(clib, name))
    rc, out = run([project, "--python", py, "-j", "2", "--json",
                   "summary.json"], cwd=clib)
    s = summary(clib)
    idx = s.get("index") or {}
    check("setup.py drives CMake; the options its build_clib computed: "
          "-DTIDY_LIB_FLAVOUR=workflow -DTIDY_LIB_WITH_ZLIB=ON" in out and
          s.get("database", {}).get("how") == "cmake",
          f"build_clib's configure recorded, the branch it takes by default "
          f"(not the gpu one): {out.strip()[-600:]}")
    check(rc == 1 and s.get("files_linted") == 4 and
          s.get("did_not_parse") == {} and idx.get("operators") == 4 and
          idx.get("kernels_by_key") == {"CPU": 4} and
          "which setup() compiles itself" in out and
          re.search(r"bind\.cpp:\d+:3: warning: add_ writes into argument "
                    r"'x' of operator 'tidy_lib::shifted'", out),
          f"CMake's 3 files and the binding extension's 1 linted together, "
          f"the binding's undeclared write found (exit {rc}, "
          f"{s.get('files_linted')} files, {idx})")

    # A dispatch layer (issue 80): the registered functions hand `out` to
    # dispatch stubs whose kernels, registered in kernels/shrink.cpp, write
    # it; one operator's schema inferred by the project's helper. The
    # kernels' file is linted (it registers no operator), the writes are
    # judged against the schemas (written, inferred), the return of a
    # handed-off argument gets no copy fix, and the inferred operator counts
    # as defined.
    stub = fresh("cmake-stub", "cmake-stub")
    rc, out = run([project, "--python", py, "-j", "2", "--json",
                   "summary.json"], cwd=stub)
    s = summary(stub)
    idx = s.get("index") or {}
    check(rc == 1 and s.get("files_linted") == 2 and
          s.get("did_not_parse") == {} and
          s.get("warnings") == {"torch-op-undeclared-mutation": 3} and
          idx.get("operators") == 2 and
          idx.get("kernels_by_key") == {"CPU": 2} and
          "coverage 100%: 2 of 2 C++ kernels analysed" in out,
          f"the stub project: 2 files linted, 3 warnings, 2 operators (one "
          f"inferred) with their kernels (exit {rc}): {out.strip()[-700:]}")
    check(re.search(r"shrink\.cpp:\d+:5: warning: a write through data_ptr "
                    r"writes into argument 'out' of operator "
                    r"'stub_lib::shrink'", out) and
          "is the kernel of dispatch stub 'shrink_stub', which 'shrink_cpu' "
          "calls in" in out and
          re.search(r"shrink\.cpp:\d+:3: warning: a write through data_ptr "
                    r"writes into argument 'out' of operator "
                    r"'stub_lib::lora'", out) and
          "is inferred from the C++ signature of 'stub_lib::lora_cpu' by the "
          "project's define_inferred" in out and
          "no fix: the kernel hands 'out' to dispatch stub 'lora_stub'" in out,
          f"the writes behind the stubs found, their paths and schemas named, "
          f"the return not copied: {out.strip()[-900:]}")

    # A Python-declared schema over a C++ write (issue 80, item 7): a
    # custom op whose mutates_args lists nothing hands `out` to a function
    # its pybind11 module binds, which writes it; the file registers no
    # operator and is linted because a custom op calls its function.
    pyb = fresh("pybind-op", "pybind-op")
    rc, out = run([project, "--python", py, "-j", "2", "--json",
                   "summary.json"], cwd=pyb)
    s = summary(pyb)
    fill = os.path.join(pyb, "csrc", "fill.cpp")
    check(rc == 1 and s.get("files_linted") == 1 and
          s.get("did_not_parse") == {} and
          s.get("warnings") == {"torch-op-undeclared-mutation": 1} and
          re.search(rf"fill\.cpp:{line_of(fill, 'rows.add_(src)')}:\d+: "
                    rf"warning: add_ writes into 'out', which the Python "
                    rf"custom op 'pybind_op::add_rows' \(\S+ops\.py:9\) "
                    rf"passes to 'add_rows' from its argument 'out' without "
                    rf"listing it in mutates_args", out) and
          "compiled callers lose the write, silently" in out,
          f"the pybind11-bound function's write found against the custom "
          f"op's mutates_args, the declared one and the op's own tensor "
          f"left alone (exit {rc}): {out.strip()[-900:]}")

    # A plain CMake project: a C++ Meta kernel is its fake. Its build
    # compiles a vendored library (third_party/vend: a schema in one file,
    # its kernel in another), which the project index reads because the
    # build compiles it.
    plain = fresh("cmake-plain", "cmake-plain")
    rc, out = run([project, "--python", py, "-j", "2", "--json",
                   "summary.json"], cwd=plain)
    s = summary(plain)
    idx = s.get("index") or {}
    check(rc == 1 and "a CMake project" in out and
          s.get("warnings") == {CHECK: 1,
                                "torch-op-undeclared-mutation": 1} and
          s.get("files_linted") == 4 and s.get("did_not_parse") == {} and
          list(s.get("database", {}).get("libtorch", {})) == ["2.8.0"] and
          idx.get("operators") == 3 and idx.get("kernels_by_key") ==
          {"CPU": 2} and idx.get("fakes") == 1,
          f"plain CMake: one command, every file parses, 3 operators (two "
          f"vendored), 2 CPU kernels, 1 Meta fake; a write into a mutable "
          f"argument and the vendored kernel's undeclared write, exit 1 "
          f"(exit {rc}): {out.strip()[-600:]}")
    vend = os.path.join(plain, "third_party", "vend", "cpu.cpp")
    check(re.search(rf"cpu\.cpp:{line_of(vend, 'x.mul_(s)')}:\d+: warning: "
                    rf"mul_ writes into argument 'x' of operator "
                    rf"'vend::scaled_sum'", out) is not None and
          "  coverage 100%: 3 of 3 C++ kernels analysed" in out,
          "the vendored kernel's write is reported against the schema of "
          "another vendored file, and its kernel counts in coverage")
    negate = f"vend::negate CPU at third_party/vend/cpu.cpp:" \
        f"{line_of(vend, 'VEND_NEGATE;')}"
    check((s.get("coverage", {}).get("compiler") or {}).get(
              "kernels_only_compiler") == [negate] and
          "1 C++ kernels the compiler saw registered, not read by the index "
          f"(counted above): {negate}" in out,
          f"a kernel registered through a macro of another file, which the "
          f"index does not expand, is seen as the compiler sees it, named "
          f"and counted ({(s.get('coverage') or {}).get('compiler')})")

    check(s.get("files_skipped", {}).get(
              "cannot warn under the enabled checks (no schema, registration, "
              "kernel, compiled region or write they look for)") == 1 and
          "1 files skipped: no enabled check can warn there" in out,
          f"src/util.cpp, where no check can warn, is skipped and said "
          f"({s.get('files_skipped')})")
    unread = (s.get("coverage", {}).get("compiler") or {}).get("not_read")
    check(unread and list(unread.values()) == [["src/util.cpp"]] and
          "1 files of the database the compiler did not read" in out and
          ": src/util.cpp" in out,
          f"... and named as a file whose registrations the compiler did "
          f"not read ({unread})")
    rc_all, out_all = run([project, "--python", py, "-j", "2", "--all-files",
                           "--json", "all.json"], cwd=plain)
    every = {}
    try:
        every = json.load(open(os.path.join(plain, "all.json")))
    except (OSError, ValueError):
        pass
    check(rc_all == 1 and every.get("files_linted") == 5 and
          every.get("findings") == s.get("findings") and s.get("findings") and
          every.get("cache", {}).get("replayed", 0) >= 1 and
          (every["coverage"].get("compiler") or {}).get(
              "kernels_only_compiler") == [negate] and
          every["coverage"]["compiler"].get("not_read") == {},
          f"--all-files lints the skipped file too, and finds the same, "
          f"the compiler's view of the files it replays from the cache "
          f"included "
          f"({every.get('findings')} vs {s.get('findings')})")

    # The docs' old line: CMake alone finds Debian's 1.13.
    stale = fresh("cmake-mismatch", "cmake-plain")
    rc_cfg, cfg = run(["cmake", "-S", ".", "-B", "build",
                       "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"], cwd=stale)
    rc, out = run([project, "--python", py], cwd=stale)
    check(rc_cfg == 0 and rc == 2 and "names LibTorch 1.13.0" in out and
          "--python's torch is 2.8.0" in out and
          "--allow-torch-mismatch" in out,
          f"a database made against 1.13 with --python naming 2.8 is refused, "
          f"both versions named (exit {rc}): {out.strip()[-500:]}")
    rc, out = run([project, "--python", py, "--allow-torch-mismatch",
                   r"(kernels|cpu)\.cpp$"], cwd=stale)
    check(rc == 1 and "torch: LibTorch 1.13.0" in out and
          "2 files, 0 did not parse" in out,
          f"--allow-torch-mismatch lints it and says which torch "
          f"(exit {rc}): {out.strip()[-300:]}")

    # A package CMake cannot find: one line, with Debian's name.
    missing = os.path.join(c.out, "cmake-missing")
    shutil.rmtree(missing, ignore_errors=True)
    os.makedirs(missing)
    with open(os.path.join(missing, "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.18)\nproject(m CXX)\n"
                "find_package(Torch REQUIRED)\n"
                "find_package(FFmpeg REQUIRED)\n")
    rc, out = run([project, "--python", py], cwd=missing)
    said = [l for l in out.splitlines() if "could not configure" in l]
    check(rc == 2 and len(said) == 1 and
          "a package is missing: FFmpeg (Debian: apt-get install "
          "libavcodec-dev" in said[0],
          f"configure fails: one line naming the package and Debian's "
          f"(exit {rc}): {out.strip()[-400:]}")


def git_snapshot(d):
    """A fresh git repository of d, committed: what a user's checkout is."""
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"],
                ["git", "-c", "user.email=t@example.com", "-c", "user.name=t",
                 "commit", "-qm", "import"]):
        run(cmd, cwd=d)


def check_tree_clean(d):
    """Nothing but .torch-tidy/ added to a git checkout (git status, ignored
    files included)."""
    added = run(["git", "status", "--porcelain", "--ignored"],
                cwd=d)[1].splitlines()
    check(added == ["!! .torch-tidy/"],
          f"nothing but .torch-tidy/ is added to the project's tree (git "
          f"status --ignored): {added}")


def cuda_toolkit():
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    return cuda if os.path.isfile(os.path.join(cuda, "include", "cuda.h")) \
        else None


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def validate(c, document, what):
    """document against docs/torch-tidy-project.schema.json, with the
    jsonschema package of the tools venv (an independent validator)."""
    py = c.args.tools_python
    if not py or run([py, "-c", "import jsonschema"])[0] != 0:
        print(f"SKIPPED schema validation of {what}: no tools venv with "
              f"jsonschema (tools/bootstrap)")
        return
    schema = os.path.join(c.src, "docs", "torch-tidy-project.schema.json")
    rc, out = run([py, "-c",
                   "import json, sys, jsonschema\n"
                   "schema = json.load(open(sys.argv[1]))\n"
                   "jsonschema.Draft202012Validator.check_schema(schema)\n"
                   "jsonschema.validate(json.load(open(sys.argv[2])), schema,"
                   " cls=jsonschema.Draft202012Validator)\n"
                   "print('valid')", schema, document])
    check(rc == 0 and "valid" in out,
          f"{what} is valid against docs/torch-tidy-project.schema.json "
          f"(jsonschema): {out.strip()[-400:]}")


def last_line(out):
    lines = out.strip().splitlines()
    return lines[-1] if lines else ""


# One switch of advice: `--env NAME=VALUE` or `-D NAME=VALUE` at the start
# of one alternative of a "to bring it in" line.
ADVICE = re.compile(r"^(--env|-D) (\w+)=([^\s);,]+)")


def advice_of(summary):
    """Every switch a run's --json advises, in order, without repeats: those
    of each kernel left out (coverage's bring_in, "file: A or B"), and the
    example an exit-2 error gives ("e.g. --env X=1"). A switch said to have
    been given already is a reason, not advice."""
    texts = [k.get("bring_in", "") for o in (summary.get("coverage") or {})
             .get("by_operator", {}).values() for k in o.get("kernels", [])]
    texts += re.findall(r"e\.g\. ((?:--env|-D) [^\s);,]+)",
                        summary.get("error", ""))
    out = []
    for text in texts:
        for part in text.split(": ", 1)[-1].split(" or "):
            m = ADVICE.match(part.strip())
            if m and "was given" not in part and \
                    (m.group(1), f"{m.group(2)}={m.group(3)}") not in out:
                out.append((m.group(1), f"{m.group(2)}={m.group(3)}"))
    return out


def follow_advice(c, project, py, d, base, summary, name):
    """Issue 80 (3): follows every switch the run `base` advised (its --json
    summary), one at a time on top of base: each must change what the run
    compiles (kernels analysed, files linted, or an exit 2 gone), or the
    rerun must say the switch was given and why it did not; and a switch
    given is never advised again. Returns {"--env X=Y": the rerun's
    summary}."""
    advised = advice_of(summary)
    check(advised, f"{name}: the run advises at least one switch to follow "
          f"({(summary.get('coverage') or {}).get('kernels')})")
    before = ((summary.get("coverage") or {}).get("kernels") or {}) \
        .get("analysed", 0)
    results = {}
    for i, (flag, setting) in enumerate(advised):
        out_json = os.path.join(c.out, f"{name}-advice-{i}.json")
        rc, out = run([project, "--python", py, "-j", "2"] + base +
                      [flag, setting, "--json", out_json], cwd=d)
        after = load_json(out_json)
        kernels = (after.get("coverage") or {}).get("kernels") or {}
        changed = (kernels.get("analysed", 0) > before or
                   after.get("files_linted") != summary.get("files_linted") or
                   (summary.get("result", {}).get("exit_status") == 2 and
                    rc != 2))
        reason = f"{flag} {setting} was given and does not compile it" in out
        check(changed or reason,
              f"{name}: following {flag} {setting} changes what is compiled "
              f"({summary.get('files_linted')} -> {after.get('files_linted')} "
              f"files, {before} -> {kernels.get('analysed')} kernels "
              f"analysed) or says why not (exit {rc}): {last_line(out)}")
        check((flag, setting) not in advice_of(after),
              f"{name}: {flag} {setting}, given, is not advised again "
              f"({advice_of(after)})")
        results[f"{flag} {setting}"] = after
    print(f"  {name}: followed {len(advised)} advised switch(es): "
          f"{', '.join(f'{f} {v}' for f, v in advised)}")
    return results


def case_env_switched(c):
    """Issue 46: extensions switched on by environment variables only, and
    a coverage gate that is never falsely green."""
    py = c.args.torch_python
    if not py:
        print("SKIPPED workflow-env-switched: no torch 2.8.0 venv "
              "(tools/bootstrap)")
        return 77
    if not cuda_toolkit():
        print("SKIPPED workflow-env-switched: its CUDAExtension needs a CUDA "
              "toolkit (no include/cuda.h under $CUDA_HOME or "
              "/usr/local/cuda)")
        return 77
    project = os.path.join(c.bin, "torch-tidy-project")
    d = os.path.join(c.out, "env-switched")
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(os.path.join(c.src, "test", "workflows", "env-switched"),
                    d)
    git_snapshot(d)
    kernels_cu = os.path.join(d, "csrc", "cuda", "kernels.cu")

    # No variables: setup.py defines no extension at all.
    rc, out = run([project, "--python", py, "-j", "2", "--json",
                   "../env-none.json", "--sarif", "../env-none.sarif"], cwd=d)
    none = load_json(os.path.join(c.out, "env-none.json"))
    none_log = load_json(os.path.join(c.out, "env-none.sarif"))
    inv = (none_log.get("runs") or [{}])[0].get("invocations", [{}])[0]
    check(none.get("result", {}).get("exit_status") == 2 and
          "defines no extension sources" in none.get("error", "") and
          inv.get("exitCode") == 2 and inv.get("executionSuccessful") is False
          and "defines no extension sources" in json.dumps(inv),
          f"exit 2 writes --json and --sarif saying why ({none.get('result')}, "
          f"{inv})")
    validate(c, os.path.join(c.out, "env-none.json"),
             "the exit-2 run's --json")
    check(rc == 2 and "defines no extension sources" in out and
          "ENVX_BUILD_CPU, ENVX_BUILD_CUDA" in out and "--env" in out and
          "the 6 operators the project registers (envx::clip_, envx::count, "
          "envx::fill_rows_, envx::normalize, envx::scale, envx::shift)" in out
          and "csrc/cuda/kernels.cu" in out,
          f"without its variables: exit 2, naming the variables setup.py "
          f"reads and the files that register operators no database entry "
          f"covers (exit {rc}): {out.strip()[-700:]}")

    follow_advice(c, project, py, d, [], none, "env-none")

    # The CPU extension alone: most kernels are left out.
    rc, out = run([project, "--python", py, "-j", "2", "--env",
                   "ENVX_BUILD_CPU=1", "--json", "../env-cpu.json",
                   "--sarif", "../env-cpu.sarif"], cwd=d)
    s = load_json(os.path.join(c.out, "env-cpu.json"))
    inv = (load_json(os.path.join(c.out, "env-cpu.sarif")).get("runs") or
           [{}])[0].get("invocations", [{}])[0]
    said = {n["descriptor"]["id"]: n["level"]
            for n in inv.get("toolExecutionNotifications", [])}
    check(inv.get("exitCode") == 3 and inv.get("executionSuccessful") is False
          and said.get("coverage") == "error" and
          said.get("operators-not-analysed") == "warning",
          f"exit 3's SARIF: an unsuccessful invocation with the coverage "
          f"failure and the operators not analysed ({inv})")
    cov = s.get("coverage", {})
    last = last_line(out)
    check(rc == 3 and last.startswith("torch-tidy-project: FAIL (coverage): "
                                      "0 warnings") and
          "below 90% (--min-coverage)" in last and
          all(op in last for op in ("envx::clip_", "envx::count",
                                    "envx::fill_rows_", "envx::normalize",
                                    "envx::scale")) and
          "envx::shift" not in last and "--env ENVX_BUILD_CUDA=1" in last,
          f"the CPU variable alone: 0 warnings but exit 3; the last line "
          f"names the 5 operators whose CUDA kernels were not seen and the "
          f"variable that brings them in (exit {rc}): {last}")
    clip = cov.get("by_operator", {}).get("envx::clip_", {})
    check(s.get("files_linted") == 2 and cov.get("passed") is False and
          cov.get("kernels") == {"total": 7, "analysed": 2} and
          clip.get("status") == "not analysed" and
          clip.get("kernels", [{}])[0].get("why") ==
          "left out by the build's configuration" and
          cov["by_operator"]["envx::scale"]["status"] == "partly analysed" and
          cov["by_operator"]["envx::shift"]["status"] == "analysed" and
          "ENVX_BUILD_CUDA" in (s.get("build") or {}).get("variables_read",
                                                          []),
          f"--json: coverage per operator and kernel, with why ({cov.get('kernels')}, "
          f"{clip})")
    validate(c, os.path.join(c.out, "env-cpu.json"),
             "the CPU-only run's --json")
    follow_advice(c, project, py, d, ["--env", "ENVX_BUILD_CPU=1"], s,
                  "env-cpu")
    check(cov.get("counted_from") == "index" and "does not import" in
          cov.get("registry", {}).get("not_read", ""),
          f"envx not built: coverage counted on the index, saying torch's "
          f"registry was not read and why ({cov.get('registry')})")

    # Issue 58 item 2: the CPU extension built (as CI builds it to run its
    # tests) in a copy beside the checkout, importable through PYTHONPATH:
    # coverage is counted on torch's registry, where the five CUDA kernels
    # the build did not compile count for nothing and are named.
    built = os.path.join(c.out, "env-switched-built")
    shutil.rmtree(built, ignore_errors=True)
    shutil.copytree(os.path.join(c.src, "test", "workflows", "env-switched"),
                    built)
    brc, bout = run([py, "setup.py", "build_ext", "--inplace"], cwd=built,
                    env=dict(os.environ, ENVX_BUILD_CPU="1", MAX_JOBS="2"))
    check(brc == 0, f"envx's CPU extension builds ({bout.strip()[-300:]})")
    rc, out = run([project, "--python", py, "-j", "2", "--env",
                   "ENVX_BUILD_CPU=1", "--env", f"PYTHONPATH={built}",
                   "--json", "../env-registry.json"], cwd=d)
    s = load_json(os.path.join(c.out, "env-registry.json"))
    cov = s.get("coverage", {})
    reg = cov.get("registry", {})
    check(rc == 0 and cov.get("counted_from") == "registry" and
          cov.get("kernels") == {"total": 2, "analysed": 2} and
          reg.get("operators") == 6 and reg.get("imported") == ["envx"] and
          len(reg.get("libraries_loaded", [])) == 1 and
          sorted(x.split()[0] for x in reg.get("only_in_index", [])) ==
          ["envx::clip_", "envx::count", "envx::fill_rows_",
           "envx::normalize", "envx::scale"] and
          reg.get("only_in_registry") == [] and
          "counted on torch's registry: 6 operators, 2 C++ kernels" in out and
          "5 in the sources, not in the registry" in out and
          last_line(out).startswith("torch-tidy-project: PASS: 0 warnings; "
                                    "coverage 100%"),
          f"the built CPU extension: coverage counted on torch's registry, "
          f"2 of 2 kernels, the 5 CUDA kernels named as not built, exit 0 "
          f"(exit {rc}, {cov.get('kernels')}, {reg}): {out.strip()[-900:]}")
    validate(c, os.path.join(c.out, "env-registry.json"),
             "the registry-counted run's --json")
    # What the checks read of the registry: one file, named by its content,
    # with each operator's CPU kernel at the project's file.
    folder = os.path.join(d, ".torch-tidy", "registry")
    written = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    sites = load_json(os.path.join(folder, written[0])) if written else {}
    shift = (sites or {}).get("operators", {}).get("envx::shift", [])
    check(len(written) == 1 and written[0].startswith("sites-") and
          sites.get("torch") and
          [(x["key"], os.path.relpath(x["file"], os.path.realpath(d)))
           for x in shift] == [("CPU", "csrc/cpu/kernels.cpp")],
          f"the registry's sites for torch-tidy ($TORCH_TIDY_PROJECT_"
          f"REGISTRY): one file, envx::shift's CPU kernel at csrc/cpu/"
          f"kernels.cpp ({written}, {shift})")
    rc, out = run([project, "--python", py, "-j", "2", "--env",
                   "ENVX_BUILD_CPU=1", "--registry", "envx_nosuch"], cwd=d)
    check(rc == 2 and "--registry envx_nosuch: the project's package does "
          "not import" in out and "ModuleNotFoundError" in out,
          f"--registry naming a package that does not import: exit 2, "
          f"saying why (exit {rc}): {out.strip()[-400:]}")

    # Both: every file that registers or defines a kernel is linted.
    rc, out = run([project, "--python", py, "-j", "2", "--env",
                   "ENVX_BUILD_CPU=1", "--env", "ENVX_BUILD_CUDA=1", "--json",
                   "../env-full.json"], cwd=d)
    s = load_json(os.path.join(c.out, "env-full.json"))
    cov = s.get("coverage", {})
    linted = sorted(os.path.relpath(e["file"], d) for e in load_json(
        os.path.join(d, ".torch-tidy", "compile_commands.json")) or [])
    check(rc == 1 and s.get("files_linted") == 3 and
          linted == ["csrc/cpu/kernels.cpp", "csrc/cuda/kernels.cu",
                     "csrc/ops.cpp"] and s.get("did_not_parse") == {} and
          cov.get("share") == 1.0 and cov.get("passed") is True and
          last_line(out).startswith("torch-tidy-project: FAIL (warnings): "
                                    "1 warning; coverage 100%"),
          f"--env ENVX_BUILD_CPU=1 --env ENVX_BUILD_CUDA=1: the 3 files that "
          f"register or define kernels, all parsed, coverage 100%, exit 1 on "
          f"the planted warning (exit {rc}, {linted}): {last_line(out)}")
    found = [(f["file"], f["line"], f["check"], f["class"])
             for f in s.get("findings", [])]
    check(found == [("csrc/cuda/kernels.cu",
                     line_of(kernels_cu, "x.div_(x.norm());"),
                     "torch-op-undeclared-mutation", "graph break")],
          f"the planted write in the CUDA kernel, graph break (no fake is "
          f"registered): {found}")
    check_tree_clean(d)


def case_skbuild(c):
    """Issue 46: a scikit-build-core project, CMake sources in source/,
    its own backend computing the options, .cu kernels, Python fakes at the
    root: one command at the root."""
    py = c.args.torch_python
    if not py:
        print("SKIPPED workflow-skbuild: no torch 2.8.0 venv (tools/bootstrap)")
        return 77
    if run([py, "-c", "import scikit_build_core"])[0] != 0:
        print("SKIPPED workflow-skbuild: the torch 2.8.0 venv has no "
              "scikit-build-core (tools/bootstrap adds it)")
        return 77
    if not cuda_toolkit():
        print("SKIPPED workflow-skbuild: its .cu kernels need a CUDA toolkit")
        return 77
    project = os.path.join(c.bin, "torch-tidy-project")
    d = os.path.join(c.out, "skbuild")
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(os.path.join(c.src, "test", "workflows", "skbuild"), d)
    git_snapshot(d)
    site = run([py, "-c", "import torch, os; "
                "print(os.path.dirname(torch.__file__))"])[1].strip()
    cu = os.path.join(d, "source", "cuda_kernels.cu")

    rc, out = run([project, "--python", py, "-j", "2", "--json",
                   "../skbuild-first.json"], cwd=d)
    s = load_json(os.path.join(c.out, "skbuild-first.json"))
    db = s.get("database", {})
    check(rc == 3 and "backend skbx_backend drives CMake" in out and
          "-DSKBX_FLAVOUR=workflow -DSKBX_WITH_CPU=ON -DSKBX_WITH_CUDA=ON"
          in out and db.get("how") == "cmake" and
          db.get("cmake_source") == "source" and
          db.get("nvcc_entries_translated") == 1,
          f"one command at the root: the backend's computed options reach "
          f"CMake, the .cu's nvcc entry becomes a clang one (exit {rc}): "
          f"{out.strip()[-900:]}")
    entries = load_json(os.path.join(d, ".torch-tidy",
                                     "compile_commands.json")) or []
    cu_args = next((e.get("arguments", []) for e in entries
                    if e["file"].endswith("cuda_kernels.cu")), [])
    torch_dirs = [a for a in cu_args if "torch/include" in a]
    check(cu_args[:1] == ["clang++"] and "--cuda-host-only" in cu_args and
          torch_dirs and all(os.path.realpath(a).startswith(
              os.path.realpath(site)) for a in torch_dirs) and
          not any(a.startswith(("-gencode", "-Xcudafe", "--expt"))
                  for a in cu_args),
          f"the .cu entry is clang's, with the project's torch "
          f"({torch_dirs[:1]}), nvcc's own options dropped")
    check(s.get("files_linted") == 3 and s.get("did_not_parse") == {} and
          list(db.get("libtorch", {})) == ["2.8.0"] and
          os.path.realpath(s.get("root", "")) == os.path.realpath(d),
          f"every file parsed, with torch 2.8.0 only; the root is the "
          f"repository's ({s.get('did_not_parse')}, {db.get('libtorch')}, "
          f"{s.get('root')})")
    found = [f for f in s.get("findings", [])
             if f["check"] == "torch-op-undeclared-mutation"]
    write = line_of(cu, "x.mul_(s);")
    check(len(found) == 1 and found[0]["file"] == "source/cuda_kernels.cu"
          and found[0]["line"] == write and found[0]["class"] == "silent" and
          any("skbx/fakes.py:" in n["message"] for n in found[0]["notes"]),
          f"the planted write, read from --json: class silent, the fake in "
          f"skbx/fakes.py at the root named in a note ({found})")
    validate(c, os.path.join(c.out, "skbuild-first.json"),
             "the scikit-build-core run's --json")
    # Issue 58 (7): the extra operator's file is built where the backend
    # passes SKBX_WITH_EXTRA, which it does where SKBX_KERNELS is "extra";
    # the advice is that, not the option that shares its words.
    cov = s.get("coverage", {})
    twice = cov.get("by_operator", {}).get("skbx::twice", {})
    advice = [k.get("bring_in", "") for k in twice.get("kernels", [])]
    want = ("source/extra_kernels.cc: --env SKBX_KERNELS=extra (the build "
            "passes -DSKBX_WITH_EXTRA, if() at source/CMakeLists.txt:")
    check(len(advice) == 1 and advice[0].startswith(want) and
          "SKBX_EXTRA_CHECKS" not in out,
          f"the unseen kernel's advice is the backend's variable for the "
          f"if() around its file ({advice})")
    s3 = follow_advice(c, project, py, d, [], s, "skbuild").get(
        "--env SKBX_KERNELS=extra", {})
    cov3 = s3.get("coverage", {})
    check(s3.get("result", {}).get("exit_status") == 1 and
          s3.get("files_linted") == 4 and
          cov3.get("kernels", {}).get("analysed") ==
          cov3.get("kernels", {}).get("total") == 4,
          f"the advice followed brings the kernel in: 4 of 4 kernels "
          f"({s3.get('result')}, {cov3.get('kernels')})")

    rc2, out2 = run([project, "--python", py, "-j", "2", "--json",
                     "../skbuild-second.json"], cwd=d)
    s2 = load_json(os.path.join(c.out, "skbuild-second.json"))
    check(rc2 == rc and s2.get("database", {}).get("path") == db.get("path")
          and s2.get("database", {}).get("origin") == db.get("origin") and
          s2.get("findings") == s.get("findings") and s.get("findings"),
          f"a second run: the same database and the same findings (exit "
          f"{rc2})")
    check_tree_clean(d)


CASES = {"torch-tidy": case_torch_tidy, "pre-commit": case_pre_commit,
         "sarif": case_sarif, "ci-diff": case_ci_diff,
         "ci-project": case_ci_project, "ci-build": case_ci_build,
         "ci-fix-verify": case_ci_fix_verify, "extension": case_extension,
         "cmake-projects": case_cmake_projects,
         "env-switched": case_env_switched, "skbuild": case_skbuild}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case", choices=sorted(CASES))
    p.add_argument("--source-dir", required=True)
    p.add_argument("--build-dir", required=True)
    p.add_argument("--llvm-bin", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--tools-python", default="")
    p.add_argument("--torch-python", default="",
                   help="python of the torch 2.8.0 venv (extension)")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    code = CASES[args.case](Ctx(args))
    if code == 77:
        return 77
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

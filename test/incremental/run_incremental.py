#!/usr/bin/env python3
"""Incremental runs and CI shards of torch-tidy-project (issue 49), end to
end with the real torch-tidy on a small operator library built against the
lit suite's mock LibTorch headers: schemas in one file, kernels in others,
a shared header, a Python fake.

  run_incremental.py --source-dir REPO --build-dir BUILD --out DIR

After each kind of change (a kernel file, a header, a schema, a Python fake,
the compile flags, the torch-tidy binary, the check configuration) the
incremental run must lint exactly the files whose key changed and give the
findings a --no-cache run gives on the same tree; a stale replay fails.
Then a corrupt and a foreign cache (ignored with one line), and shards
N = 1, 2, 3 merged against one run (findings, coverage, exit status, SARIF),
and merges that must refuse (a shard missing or given twice).
Exit 0 when every point holds, 1 otherwise."""
import argparse
import json
import os
import shutil
import subprocess
import sys

failures = []


def check(cond, what):
    print(("PASS " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


OPS = """\
#include <torch/library.h>
TORCH_LIBRARY(demo, m) {
  m.def("scale(Tensor x, float s) -> ()");
  m.def("shift(Tensor x, float s) -> ()");
  m.def("plain(Tensor x) -> Tensor");
}
"""
SCALE = """\
#include <torch/extension.h>
namespace demo {
void scale_cpu(const at::Tensor &x, double s) {
  x.mul_(s);
}
} // namespace demo
TORCH_LIBRARY_IMPL(demo, CPU, m) { m.impl("scale", &demo::scale_cpu); }
"""
COMMON = """\
#pragma once
#include <torch/extension.h>
inline void bump(const at::Tensor &x, double s) { x.add_(s); }
"""
SHIFT = """\
#include "common.h"
namespace demo {
void shift_cpu(const at::Tensor &x, double s) { bump(x, s); }
} // namespace demo
TORCH_LIBRARY_IMPL(demo, CPU, m) { m.impl("shift", &demo::shift_cpu); }
"""
PLAIN = """\
#include <torch/extension.h>
namespace demo {
at::Tensor plain_cpu(const at::Tensor &x) { return x.clone(); }
} // namespace demo
TORCH_LIBRARY_IMPL(demo, CPU, m) { m.impl("plain", &demo::plain_cpu); }
"""
FAKES = """\
import torch
"""
KERNEL_FILES = ["csrc/ops.cpp", "csrc/plain.cpp", "csrc/scale.cpp",
                "csrc/shift.cpp"]


class Project:
    def __init__(self, args, name):
        self.args = args
        self.dir = os.path.join(os.path.abspath(args.out), name)
        shutil.rmtree(self.dir, ignore_errors=True)
        self.mock = os.path.join(os.path.abspath(args.source_dir), "test",
                                 "lit", "Inputs", "mock-libtorch")
        self.tool = os.path.join(os.path.abspath(args.source_dir), "tools",
                                 "torch-tidy", "torch-tidy-project")
        self.tidy = os.path.join(os.path.abspath(args.build_dir), "bin",
                                 "torch-tidy")
        self.flags = {f: [] for f in KERNEL_FILES}
        for path, text in (("setup.py", "# the project's marker\n"),
                           ("csrc/ops.cpp", OPS), ("csrc/scale.cpp", SCALE),
                           ("csrc/common.h", COMMON),
                           ("csrc/shift.cpp", SHIFT),
                           ("csrc/plain.cpp", PLAIN),
                           ("demo/__init__.py", ""),
                           ("demo/fakes.py", FAKES)):
            self.write(path, text)
        self.database()
        self.runs = 0

    def write(self, path, text):
        p = os.path.join(self.dir, path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)

    def edit(self, path, old, new):
        p = os.path.join(self.dir, path)
        with open(p) as f:
            text = f.read()
        assert old in text, (path, old)
        self.write(path, text.replace(old, new, 1))

    def database(self):
        entries = [{"directory": self.dir, "file": f,
                    "arguments": ["clang++", "-std=c++17", *self.flags[f],
                                  "-I", self.mock, "-c", f]}
                   for f in KERNEL_FILES]
        self.write("compile_commands.json", json.dumps(entries, indent=1))

    def run(self, *extra, tidy=None):
        """(exit status, JSON summary, output) of torch-tidy-project."""
        self.runs += 1
        out = os.path.join(os.path.abspath(self.args.out),
                           f"{os.path.basename(self.dir)}-{self.runs}.json")
        cmd = [sys.executable, self.tool, "-p", self.dir, "-j", "2",
               "--torch-tidy", tidy or self.tidy, "--json", out, *extra]
        res = subprocess.run(cmd, capture_output=True, text=True)
        try:
            with open(out) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            doc = None
        if doc is None:
            print(res.stdout[-3000:], res.stderr[-3000:])
        return res.returncode, doc, res.stdout + res.stderr


def same(a, b):
    """The parts of two summaries a run's answer is: findings, warnings,
    files that did not parse, coverage, verdict."""
    keys = ("findings", "warnings", "did_not_parse", "files_linted")
    ca, cb = dict(a["coverage"]), dict(b["coverage"])
    return all(a[k] == b[k] for k in keys) and ca == cb and \
        a["result"] == b["result"]


def step(p, what, expect, *extra, tidy=None):
    """An incremental run after a change: it lints exactly `expect` and
    answers as a --no-cache run does."""
    code, doc, out = p.run(*extra, tidy=tidy)
    ncode, full, _ = p.run("--no-cache", *extra, tidy=tidy)
    if doc is None or full is None:
        check(False, f"{what}: both runs wrote their JSON")
        return None
    linted = sorted(doc["cache"].get("relinted", []))
    check(linted == sorted(expect),
          f"{what}: re-linted {linted}, expected {sorted(expect)}")
    check(same(doc, full) and code == ncode,
          f"{what}: the incremental run's findings, coverage and exit "
          f"status are a --no-cache run's ({len(doc['findings'])} "
          f"findings)")
    check(not full["cache"]["used"], f"{what}: --no-cache used no cache")
    return doc


def validate(args, paths, what):
    """The documents against docs/torch-tidy-project.schema.json, with the
    jsonschema of the tools venv (an independent validator)."""
    py = args.tools_python
    if not py or subprocess.run([py, "-c", "import jsonschema"],
                                capture_output=True).returncode != 0:
        print(f"SKIPPED schema validation of {what}: no tools venv with "
              f"jsonschema (tools/bootstrap)")
        return
    schema = os.path.join(args.source_dir, "docs",
                          "torch-tidy-project.schema.json")
    res = subprocess.run(
        [py, "-c", "import json, sys, jsonschema\n"
         "schema = json.load(open(sys.argv[1]))\n"
         "for p in sys.argv[2:]:\n"
         "    jsonschema.validate(json.load(open(p)), schema,\n"
         "                        cls=jsonschema.Draft202012Validator)\n"
         "print('valid')", schema, *paths], capture_output=True, text=True)
    check(res.returncode == 0 and "valid" in res.stdout,
          f"{what} valid against docs/torch-tidy-project.schema.json: "
          f"{(res.stdout + res.stderr).strip()[-400:]}")


def messages(doc, path):
    return [f["message"] for f in doc["findings"] if f["file"] == path]


def incremental(args):
    p = Project(args, "incremental")
    code, first, out = p.run()
    check(first is not None and first["cache"]["used"] and
          sorted(first["cache"]["relinted"]) == KERNEL_FILES,
          "cold run: every file linted and kept")
    check("cache: 0 of 4 files replayed, 4 to lint (4 new)" in out,
          "cold run: says how many files it lints and why")
    check(first["cache"].get("kept") == 4, "cold run: 4 results kept")
    check(any(f["check"] == "torch-op-undeclared-mutation" and
              f["file"] == "csrc/scale.cpp" for f in first["findings"]) and
          any(f["file"] == "csrc/shift.cpp" for f in first["findings"]),
          "cold run: the planted undeclared mutations are found")
    doc = step(p, "no change", [])
    if doc:
        check(doc["cache"]["replayed"] == 4, "no change: 4 files replayed")

    p.edit("csrc/scale.cpp", "  x.mul_(s);\n", "  x.mul_(s * 1);\n")
    step(p, "a kernel file", ["csrc/scale.cpp"])
    # A line more moves the file's registration: the index's facts of the
    # operator change, and the schema's file reads them.
    p.edit("csrc/scale.cpp", "  x.mul_(s * 1);\n", "  x.mul_(s);\n  (void)s;\n")
    step(p, "a kernel file, its registration moved",
         ["csrc/ops.cpp", "csrc/scale.cpp"])

    p.edit("csrc/common.h", "{ x.add_(s); }", "{ (void)x, (void)s; }")
    doc = step(p, "a header", ["csrc/shift.cpp"])
    if doc:
        check(messages(doc, "csrc/shift.cpp") == [],
              "a header: the finding through the header is gone")
    p.edit("csrc/common.h", "{ (void)x, (void)s; }", "{ x.add_(s); }")
    step(p, "the header back", ["csrc/shift.cpp"])

    before = messages(doc, "csrc/scale.cpp") if doc else []
    p.edit("csrc/ops.cpp", "scale(Tensor x,", "scale(Tensor(a!) x,")
    doc = step(p, "a schema", ["csrc/ops.cpp", "csrc/scale.cpp"])
    if doc:
        check(before and messages(doc, "csrc/scale.cpp") != before,
              "a schema: scale.cpp's finding changed with its schema")

    shift_before = messages(doc, "csrc/shift.cpp") if doc else []
    p.write("demo/fakes.py", FAKES + """
@torch.library.register_fake("demo::shift")
def _(x, s):
    return None
""")
    doc = step(p, "a Python fake", ["csrc/ops.cpp", "csrc/shift.cpp"])
    if doc:
        check(shift_before and messages(doc, "csrc/shift.cpp") !=
              shift_before,
              "a Python fake: shift.cpp's consequence changed with it")

    p.flags["csrc/plain.cpp"] = ["-DDEMO_FLAG=1"]
    p.database()
    step(p, "the compile flags", ["csrc/plain.cpp"])

    # A header made where the include path finds it before the one clang
    # read: nothing clang read changed, but the file would parse otherwise.
    p.flags["csrc/plain.cpp"] = ["-I", os.path.join(p.dir, "override")]
    p.database()
    step(p, "an include folder before the others", ["csrc/plain.cpp"])
    p.write("override/torch/extension.h",
            f'#include "{p.mock}/torch/extension.h"\n'
            "#define DEMO_OVERRIDE 1\n")
    code, doc, _ = p.run("--no-cache")
    check(doc is not None and doc["cache"]["used"] is False,
          "the shadowing header parses")
    step(p, "a header that shadows one clang read", ["csrc/plain.cpp"])

    # Another torch-tidy: the same binary with a byte more (the loader
    # ignores what follows the ELF's sections).
    other = os.path.join(p.dir, "..", "torch-tidy-other")
    shutil.copy2(p.tidy, other)
    with open(other, "ab") as f:
        f.write(b"\0")
    step(p, "the binary", KERNEL_FILES, tidy=other)
    step(p, "the binary back", KERNEL_FILES)

    p.write("csrc/.clang-tidy", "CheckOptions:\n"
            "  torch-op-undeclared-mutation.ConsequenceFilter: all\n")
    step(p, "the configuration (.clang-tidy)", KERNEL_FILES)
    step(p, "the configuration (--checks)", KERNEL_FILES,
         "--checks=-*,torch-op-undeclared-mutation")

    p.run()  # the cache holds every file's current result again
    cache = os.path.join(p.dir, ".torch-tidy", "cache")
    entries = sorted(os.listdir(os.path.join(cache, "files")))
    with open(os.path.join(cache, "files", entries[0]), "wb") as f:
        f.write(b"not gzip")
    code, doc, out = p.run()
    check(doc is not None and len(doc["cache"]["relinted"]) == 1 and
          out.count("ignoring a corrupt cache entry") == 1,
          "a corrupt entry: ignored with one line, its file linted again")
    with open(os.path.join(cache, "meta.json"), "w") as f:
        f.write("{broken")
    code, doc, out = p.run()
    check(doc is not None and len(doc["cache"]["relinted"]) == 4 and
          out.count("ignoring the cache") == 1,
          "a corrupt cache: ignored with one line, every file linted")
    with open(os.path.join(cache, "meta.json")) as f:
        meta = json.load(f)
    meta["version"] = 999
    with open(os.path.join(cache, "meta.json"), "w") as f:
        json.dump(meta, f)
    code, doc, out = p.run()
    check(doc is not None and len(doc["cache"]["relinted"]) == 4 and
          "version 999" in out and out.count("ignoring the cache") == 1,
          "a foreign cache version: ignored with one line, every file "
          "linted")
    code, doc, out = p.run()
    check(doc is not None and doc["cache"]["relinted"] == [],
          "after a foreign cache: the rebuilt cache is used")


def killed(args):
    """A run killed part way keeps what it finished: each file's result is
    kept as it completes, and the next run lints only the rest."""
    p = Project(args, "killed")
    wrapper = os.path.join(p.dir, "..", "torch-tidy-killing")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\n"
                "# kills torch-tidy-project when asked to lint $TT_KILL_AT\n"
                'case "$*" in *"$TT_KILL_AT"*) '
                '[ -n "$TT_KILL_AT" ] && kill -9 $PPID && exit 1 ;; esac\n'
                f'exec "{p.tidy}" "$@"\n')
    os.chmod(wrapper, 0o755)
    os.environ["TT_KILL_AT"] = "csrc/shift.cpp"
    try:
        code, doc, out = p.run("-j", "1", tidy=wrapper)
    finally:
        del os.environ["TT_KILL_AT"]
    check(doc is None and code == -9,
          f"the run was killed at the fourth file (exit {code})")
    code, doc, out = p.run("-j", "1", tidy=wrapper)
    check(doc is not None and
          "cache: 3 of 4 files replayed, 1 to lint (1 new)" in out and
          doc["cache"]["relinted"] == ["csrc/shift.cpp"],
          f"the next run replays the three files the killed one finished "
          f"and lints the fourth: {out[-600:]}")
    code_full, full, _ = p.run("-j", "1", "--no-cache", tidy=wrapper)
    check(doc is not None and full is not None and same(doc, full),
          "and answers as a --no-cache run does")


def sharded(args):
    p = Project(args, "shards")
    code, one, _ = p.run("--no-cache", "--sarif",
                         os.path.join(p.dir, "..", "one.sarif"))
    with open(os.path.join(p.dir, "..", "one.sarif")) as f:
        one_sarif = json.load(f)
    check(one is not None and code == 1, "one run: fails on its warnings")
    merge = [sys.executable, p.tool, "merge"]
    for n in (1, 2, 3):
        jsons, sarifs, files = [], [], []
        for k in range(1, n + 1):
            j = os.path.join(p.dir, "..", f"shard-{k}-of-{n}.json")
            s = os.path.join(p.dir, "..", f"shard-{k}-of-{n}.sarif")
            kcode, _, _ = p.run("--no-cache", "--shard", f"{k}/{n}",
                                "--json", j, "--sarif", s)
            with open(j) as f:
                doc = json.load(f)
            files += doc["shard"]["files"]
            check(kcode == 4, f"shard {k}/{n}: exits 4, no verdict and never "
                  f"a pass (the merge judges)")
            jsons.append(j)
            sarifs.append(s)
        check(sorted(files) == KERNEL_FILES,
              f"N={n}: the shards split the files, each once")
        out = os.path.join(p.dir, "..", f"merged-{n}.json")
        out_sarif = os.path.join(p.dir, "..", f"merged-{n}.sarif")
        res = subprocess.run(merge + jsons + sarifs + ["--json", out,
                                                        "--sarif",
                                                        out_sarif],
                             capture_output=True, text=True)
        with open(out) as f:
            merged = json.load(f)
        with open(out_sarif) as f:
            merged_sarif = json.load(f)
        check(res.returncode == code and same(merged, one),
              f"N={n}: the merge's findings, coverage and exit status "
              f"({res.returncode}) are one run's ({code})")
        validate(p.args, jsons + [out], f"N={n}: the shards' and the "
                 f"merge's JSON")
        check(res.stdout.strip().splitlines()[-1] ==
              one["result"]["last_line"],
              f"N={n}: the merge's last line is one run's")
        check(merged_sarif["runs"][0]["results"] ==
              one_sarif["runs"][0]["results"] and
              merged_sarif["runs"][0]["tool"] == one_sarif["runs"][0]["tool"],
              f"N={n}: the merged SARIF is one run's")
    res = subprocess.run(merge + jsons[:2], capture_output=True, text=True)
    check(res.returncode == 2 and "shard 3 of 3 missing" in res.stderr,
          "a merge without a shard refuses (exit 2)")
    res = subprocess.run(merge + jsons + jsons[:1], capture_output=True,
                         text=True)
    check(res.returncode == 2 and "given twice" in res.stderr,
          "a merge with a shard twice refuses (exit 2)")
    # A shard of another state of the project: a schema changed between.
    p.edit("csrc/ops.cpp", "plain(Tensor x)", "plain(Tensor y)")
    later = os.path.join(p.dir, "..", "later-3-of-3.json")
    p.run("--no-cache", "--shard", "3/3", "--json", later)
    res = subprocess.run(merge + jsons[:2] + [later], capture_output=True,
                         text=True)
    check(res.returncode == 2 and "another project index" in res.stderr,
          "a merge of shards of two states of the project refuses (exit 2)")
    res = subprocess.run(merge + jsons + sarifs[:1], capture_output=True,
                         text=True)
    check(res.returncode == 2 and "SARIF logs for" in res.stderr,
          "a merge with SARIF logs of only some shards refuses (exit 2)")
    times = os.path.join(p.dir, "..", "times.json")
    with open(times, "w") as f:
        json.dump({"file_seconds": {"csrc/ops.cpp": 100.0,
                                    "csrc/plain.cpp": 1.0,
                                    "csrc/scale.cpp": 1.0}}, f)
    parts = []
    for k in (1, 2):
        j = os.path.join(p.dir, "..", f"timed-{k}.json")
        p.run("--shard", f"{k}/2", "--shard-times", times, "--json", j)
        with open(j) as f:
            parts.append(json.load(f)["shard"]["files"])
    check(parts[0] == ["csrc/ops.cpp"] and len(parts[1]) == 3,
          "--shard-times: the slow file gets a shard of its own (a file "
          "without a time weighs the average)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tools-python", default="")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    incremental(args)
    killed(args)
    sharded(args)
    if failures:
        print(f"{len(failures)} failed:\n  " + "\n  ".join(failures))
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Mutation fuzzing of the torch-tidy checks.

  fuzz.py --clang-tidy PATH --module PATH [--mutants 20000] [--seed 1]
          [--real-headers 0] [--torch-include DIR ...] [--batch 40]
          [--jobs 2] [--timeout 300] [--preload LIB] [--out DIR] [--clang PATH]

Takes the lit inputs (test/lit/**/*.cpp, on the mock LibTorch headers) and,
with --real-headers K, K translation units of the real-header integration
generator (test/integration, on the real <torch/torch.h> of --torch-include),
and mutates their tokens: deletes one, duplicates one, swaps two neighbours
or two tokens anywhere (1 to 4 edits per mutant, seeded). Every mutant is
linted with every torch-* check, in one of three configurations in turn
(`RegionMode: all` with `FreshTargetsInKernels`, the defaults, the defaults
with `CompiledFunctions` naming every function), with fixes exported, so
that the rewrite planner runs too. Lit mutants go to clang-tidy in batches
(one process per batch); a batch that fails is rerun mutant by mutant to
name the culprit, which is kept under OUT/crashes with its command.

A failure is a crash (a signal, clang's stack dump, a sanitizer report) or a
timeout; compiler errors are expected and counted. Prints one summary line
and exits 1 on any failure. --preload runs clang-tidy with a sanitizer
runtime preloaded (for a module built with -fsanitize=address).
"""
import argparse
import concurrent.futures
import glob
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "integration"))

TOKEN = re.compile(r"""
    //[^\n]*                      # line comment (RUN/CHECK lines stay whole)
  | /\*.*?\*/                     # block comment
  | R"\((?:.|\n)*?\)"             # raw string
  | "(?:\\.|[^"\\\n])*"           # string literal
  | '(?:\\.|[^'\\\n])*'           # character literal
  | \#\s*\w+                      # preprocessor directive name
  | [A-Za-z_]\w*                  # identifier or keyword
  | \d[\w.']*                     # number
  | ::|->|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\+\+|--|[-+*/%&|^!~<>=]=?
  | [{}()\[\];,.?:]
  | \S                            # anything else, one character
""", re.X | re.S)

CONFIGS = [
    "{CheckOptions: {torch-compile-requires-grad-propagation.RegionMode: all, "
    "torch-compile-requires-grad-propagation.FreshTargetsInKernels: true}}",
    "",
    "{CheckOptions: {torch-compile-requires-grad-propagation.CompiledFunctions: '.*'}}",
]
SOURCE_ECHO = re.compile(r"^\s*\d*\s*\|")
FAILURE = re.compile(r"^(Stack dump:|PLEASE submit a bug|==\d+==ERROR: AddressSanitizer|"
                     r".*runtime error: |LLVM ERROR:|.*Assertion .* failed)", re.M)


def tokens(text):
    """The text as (start, end) spans of tokens; what lies between them is
    whitespace and stays put."""
    return [m.span() for m in TOKEN.finditer(text)]


def mutate(text, rng, first=0):
    """1 to 4 token edits at or after offset `first` (the real-header
    prelude stays intact)."""
    spans = [s for s in tokens(text) if s[0] >= first]
    pieces = [text[a:b] for a, b in spans]
    if len(pieces) < 2:
        return text, []
    edits = []
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(pieces))
        op = rng.choice(["delete", "duplicate", "swap", "swap-far"])
        if op == "delete":
            pieces[i] = ""
        elif op == "duplicate":
            pieces[i] = pieces[i] + " " + pieces[i]
        elif op == "swap" and i + 1 < len(pieces):
            pieces[i], pieces[i + 1] = pieces[i + 1], pieces[i]
        else:
            j = rng.randrange(len(pieces))
            pieces[i], pieces[j] = pieces[j], pieces[i]
            op = "swap-far"
        edits.append(f"{op}@{spans[i][0]}")
    out, pos = [], 0
    for (a, b), piece in zip(spans, pieces):
        out.append(text[pos:a])
        out.append(piece)
        pos = b
    out.append(text[pos:])
    return "".join(out), edits


class Runner:
    def __init__(self, args):
        self.args = args
        self.env = dict(os.environ)
        if args.preload:
            self.env["LD_PRELOAD"] = args.preload
            self.env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1"

    def command(self, files, config, flags, fixes):
        cmd = [self.args.clang_tidy, f"--load={self.args.module}",
               "-checks=-*,torch-*", f"--export-fixes={fixes}"]
        if config:
            cmd.append(f"--config={config}")
        return cmd + files + ["--", "-std=c++17"] + flags

    def run(self, files, config, flags, timeout):
        """(failure kind or None, output, errors seen)"""
        fixes = files[0] + ".fixes.yaml"
        cmd = self.command(files, config, flags, fixes)
        try:
            res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True, errors="replace", timeout=timeout,
                                 env=self.env)
        except subprocess.TimeoutExpired:
            return "timeout", "", 0, cmd
        out = res.stdout
        errors = len(re.findall(r": error: ", out))
        # Clang echoes source lines under its diagnostics ("  15 | ..."); a
        # mutant's comment may say "Stack dump" there (the robustness tests'
        # RUN lines do), which is not a crash.
        tool_lines = "\n".join(l for l in out.splitlines() if not SOURCE_ECHO.match(l))
        if res.returncode < 0 or FAILURE.search(tool_lines):
            return "crash", out, errors, cmd
        return None, out, errors, cmd


def precompiled_mock(args, out, flags):
    """The mock headers as a precompiled header (a third of the time per lit
    mutant goes to parsing them and the standard headers they include), made
    with the clang beside clang-tidy; [] where that fails."""
    clang = args.clang or os.path.join(os.path.dirname(args.clang_tidy), "clang++")
    prelude = os.path.join(out, "mock-prelude.h")
    with open(prelude, "w") as f:
        for h in ("torch/torch.h", "torch/extension.h", "torch/library.h", "ATen/ATen.h"):
            f.write(f"#include <{h}>\n")
    pch = prelude + ".pch"
    res = subprocess.run([clang, "-x", "c++-header", "-std=c++17"] + flags +
                         [prelude, "-o", pch], capture_output=True, text=True)
    if res.returncode != 0:
        print(f"fuzz: no precompiled mock headers ({clang}: {res.stderr.strip()[:200]}); "
              "parsing them per mutant")
        return []
    return ["-include-pch", pch]


def lit_inputs():
    files = sorted(glob.glob(os.path.join(ROOT, "test", "lit", "**", "*.cpp"),
                             recursive=True))
    return [f for f in files if os.sep + "Inputs" + os.sep not in f]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clang-tidy", required=True)
    ap.add_argument("--module", required=True)
    ap.add_argument("--clang", default="",
                    help="clang++ of clang-tidy's LLVM (default: beside clang-tidy)")
    ap.add_argument("--mutants", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--real-headers", type=int, default=0)
    ap.add_argument("--real-functions", type=int, default=24)
    ap.add_argument("--torch-include", action="append", default=[])
    ap.add_argument("--batch", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--preload", default="")
    ap.add_argument("--out", default="")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    out = args.out or tempfile.mkdtemp(prefix="torch-tidy-fuzz-")
    work = os.path.join(out, "mutants")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    runner = Runner(args)
    mock = ["-isystem", os.path.join(ROOT, "test", "lit", "Inputs", "mock-libtorch"),
            "-I", os.path.join(ROOT, "include")]
    mock += precompiled_mock(args, out, mock)

    # Lit mutants, in batches.
    seeds = [(path, open(path).read()) for path in lit_inputs()]
    jobs = []
    batch = []
    for n in range(args.mutants):
        path, text = seeds[rng.randrange(len(seeds))]
        mutant, edits = mutate(text, rng)
        name = os.path.join(work, f"m{n:06d}-{os.path.basename(path)}")
        with open(name, "w") as f:
            f.write(f"// fuzz: {os.path.relpath(path, ROOT)} {' '.join(edits)}\n")
            f.write(mutant)
        batch.append(name)
        if len(batch) == args.batch or n + 1 == args.mutants:
            jobs.append((batch, CONFIGS[len(jobs) % len(CONFIGS)], mock))
            batch = []

    # Real-header mutants: one generated translation unit each, mutated
    # after its includes.
    real = 0
    if args.real_headers:
        if not any(os.path.exists(os.path.join(d, "torch", "torch.h"))
                   for d in args.torch_include):
            print(f"fuzz: SKIPPED real-header mutants: <torch/torch.h> not found in "
                  f"{args.torch_include}")
        else:
            import generate_real_header_cases as gen
            base = os.path.join(work, "real-headers-seed.cpp")
            gen.generate(args.real_functions, base)
            text = open(base).read()
            body = text.index(gen.HEADER) + len(gen.HEADER)
            flags = sum((["-isystem", d] for d in args.torch_include), []) + \
                ["-I", os.path.join(ROOT, "include")]
            for k in range(args.real_headers):
                mutant, edits = mutate(text, rng, first=body)
                name = os.path.join(work, f"r{k:05d}-real-headers.cpp")
                with open(name, "w") as f:
                    f.write(mutant)
                jobs.append(([name], CONFIGS[k % len(CONFIGS)], flags))
                real += 1

    start = time.time()
    failures, errors = [], 0

    def do(job):
        files, config, flags = job
        kind, text, errs, cmd = runner.run(files, config, flags,
                                           args.timeout * max(1, len(files) // 10))
        if kind is None:
            return [], errs, files
        if len(files) == 1:
            return [(kind, files[0], cmd, text)], errs, files
        found = []
        for f in files:  # name the culprit
            k, t, e, c = runner.run([f], config, flags, args.timeout)
            if k:
                found.append((k, f, c, t))
        if not found:  # failed only together: keep the batch
            found.append((kind, " ".join(files), cmd, text))
        return found, errs, files

    done = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for k, (found, errs, files) in enumerate(pool.map(do, jobs)):
            errors += errs
            failures += found
            done += len(files)
            for kind, f, _, _ in found:
                print(f"fuzz: {kind.upper()} {f}", flush=True)
            if (k + 1) % 25 == 0:  # progress, for long runs
                print(f"fuzz: {done} mutants done, {len(failures)} failures, "
                      f"{time.time() - start:.0f} s", flush=True)
    seconds = time.time() - start

    crash_dir = os.path.join(out, "crashes")
    for i, (kind, files, cmd, text) in enumerate(failures):
        os.makedirs(crash_dir, exist_ok=True)
        keep = os.path.join(crash_dir, f"{kind}-{i}")
        os.makedirs(keep)
        for f in files.split():
            shutil.copy(f, keep)
        with open(os.path.join(keep, "command.txt"), "w") as f:
            f.write(" ".join(cmd) + "\n\n" + text[-20000:])
        print(f"fuzz: {kind.upper()}: {files} (kept in {keep})")
    total = args.mutants + real
    crashes = sum(1 for f in failures if f[0] == "crash")
    timeouts = sum(1 for f in failures if f[0] == "timeout")
    print(f"fuzz: {total} mutants ({args.mutants} of {len(seeds)} lit inputs, "
          f"{real} real-header translation units), seed {args.seed}: "
          f"{crashes} crashes, {timeouts} timeouts, {errors} compiler errors reported, "
          f"{seconds:.0f} s, {total / max(seconds, 1e-9):.1f} mutants/s")
    if not failures and not args.out:
        shutil.rmtree(out, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

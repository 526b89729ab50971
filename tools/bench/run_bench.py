#!/usr/bin/env python3
"""The performance harness: measures what torch-tidy costs and writes
docs/performance.md (with docs/performance.png, drawn by gnuplot).

  python3 tools/bench/run_bench.py [--build build] [--runs 7] [--quick]
                                    [--no-write]

1. share: the torch checks' share of clang-tidy's time (--enable-check-
   profile) on files that include the real <torch/torch.h>, beside
   bugprone-use-after-move's on the same files;
2. whole run: wall time and peak memory of -checks='-*,torch-*' against
   the parse-only floor, medians of alternating runs, as ratios. clang-tidy
   19 with -checks='-*' (even with --allow-no-checks) exits without parsing,
   so the floor is clang-N -fsyntax-only with the very same flags (the same
   frontend work clang-tidy does before any check runs);
3. scaling: the checks' time on generated files of 1k, 10k and 50k functions
   and single functions of 1k, 5k and 20k statements, with the fitted
   exponent of time against size;
4. editor latency: didChange to publishDiagnostics in torch-clangd on a
   real-header file, with and without the torch checks.

Prints the table; writes docs/performance.md (keeping, after the table, the
sections it does not write itself) and docs/performance.png unless
--no-write. --quick uses fewer runs and smaller inputs (a smoke run).
"""
import argparse
import datetime
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test", "integration"))
sys.path.insert(0, os.path.join(ROOT, "test", "editors"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate_real_header_cases  # noqa: E402
import scaling_inputs  # noqa: E402

TORCH_CHECKS = ("torch-compile-requires-grad-propagation",
                "torch-index-assign-to-copy", "torch-inplace-on-grad-leaf",
                "torch-op-undeclared-mutation")
MOCK = os.path.join(ROOT, "test", "lit", "Inputs", "mock-libtorch")
# A profile row: "time (share%)" columns, wall time last, then the name. The
# system-time column is left out when it is all zero, so the count varies.
PROFILE_ROW = re.compile(r"^\s+((?:[\d.]+ \(\s*[\d.]+%\)\s+)+)(\S+)$", re.M)


def cache_value(build, key):
    for line in open(os.path.join(build, "CMakeCache.txt")):
        if line.startswith(key + ":"):
            return line.split("=", 1)[1].strip()
    return ""


def run_measured(cmd, env=None):
    """Runs cmd; returns (wall seconds, peak RSS in MiB, output)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=env)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    return wall, usage.ru_maxrss / 1024.0, out.decode(errors="replace"), \
        proc.returncode


def profile(out):
    """Check name -> wall seconds from --enable-check-profile output."""
    return {name: float(re.findall(r"([\d.]+) \(", cols)[-1])
            for cols, name in PROFILE_ROW.findall(out)}


class Bench:
    def __init__(self, args):
        self.args = args
        self.build = os.path.abspath(args.build)
        llvm = cache_value(self.build, "TORCH_TIDY_LLVM_VERSION") or "19"
        self.llvm = llvm
        self.tidy = f"/usr/lib/llvm-{llvm}/bin/clang-tidy"
        self.module = os.path.join(self.build, "lib", "TorchTidyModule.so")
        inc28 = cache_value(self.build, "TORCH_TIDY_TORCH28_INCLUDE_DIRS")
        self.tiers = []
        if inc28:
            self.tiers.append(("LibTorch 2.8 (PyPI wheel)", inc28.split(";")))
        self.tiers.append(("LibTorch 1.13 (Debian)",
                           ["/usr/include/torch/csrc/api/include"]))
        self.work = tempfile.mkdtemp(prefix="torch-tidy-bench-")
        self.rows = []  # (section, measure, value, target, ok)

    def flags(self, includes):
        out = ["-std=c++17", "-D_GLIBCXX_USE_CXX11_ABI=1", "-I",
               os.path.join(ROOT, "include")]
        for d in includes:
            out += ["-isystem", d]
        return out

    def tidy_cmd(self, src, checks, includes, extra=()):
        return [self.tidy, f"--load={self.module}", f"-checks={checks}",
                *extra, src, "--", *self.flags(includes)]

    def parse_only_cmd(self, src, includes):
        return [f"/usr/lib/llvm-{self.llvm}/bin/clang", "-x", "c++",
                "-fsyntax-only", *self.flags(includes), src]

    def real_header_file(self, tier_index):
        src = os.path.join(self.work, f"real{tier_index}.cpp")
        generate_real_header_cases.generate(self.args.functions, src)
        return src

    def add(self, section, measure, value, target=None, ok=None):
        self.rows.append((section, measure, value, target, ok))
        status = "" if ok is None else ("  ok" if ok else "  MISSED")
        print(f"{section:<12} {measure:<58} {value:>14} "
              f"{target or '':>10}{status}", flush=True)

    # 1 -------------------------------------------------------------------
    def share(self):
        self.shares = {}
        for k, (tier, includes) in enumerate(self.tiers):
            src = self.real_header_file(k)
            torch_s, uam_s, totals = [], [], []
            for _ in range(self.args.runs):
                wall, _, out, rc = run_measured(self.tidy_cmd(
                    src, "-*,torch-*,bugprone-use-after-move", includes,
                    ["--enable-check-profile"]))
                p = profile(out)
                if rc != 0 or "bugprone-use-after-move" not in p:
                    sys.exit(f"share: clang-tidy failed:\n{out[-2000:]}")
                torch_s.append(sum(p.get(c, 0.0) for c in TORCH_CHECKS))
                uam_s.append(p["bugprone-use-after-move"])
                totals.append(wall)
            t, u, w = (statistics.median(x) for x in (torch_s, uam_s, totals))
            self.shares[tier] = (100 * t / w, 100 * u / w)
            self.add("share", f"{tier}: torch checks, % of clang-tidy time",
                     f"{100 * t / w:.3f}%", "<= 1%", 100 * t / w <= 1.0)
            self.add("share", f"{tier}: bugprone-use-after-move, %",
                     f"{100 * u / w:.3f}%")
            self.add("share", f"{tier}: torch checks / use-after-move",
                     f"{t / u:.4f}", "<= 1", t <= u)
            self.add("share", f"{tier}: whole run, s (median)", f"{w:.2f}")

    # 2 -------------------------------------------------------------------
    def whole_run(self):
        tier, includes = self.tiers[0]
        src = self.real_header_file(0)
        walls = {"on": [], "off": []}
        rss = {"on": [], "off": []}
        for i in range(2 * self.args.runs):
            key = "on" if i % 2 == 0 else "off"
            cmd = self.tidy_cmd(src, "-*,torch-*", includes) if key == "on" \
                else self.parse_only_cmd(src, includes)
            wall, mem, out, rc = run_measured(cmd)
            if rc != 0:
                sys.exit(f"whole run: clang-tidy failed:\n{out[-2000:]}")
            walls[key].append(wall)
            rss[key].append(mem)
        w_on, w_off = statistics.median(walls["on"]), statistics.median(walls["off"])
        m_on, m_off = statistics.median(rss["on"]), statistics.median(rss["off"])
        self.whole = (w_on / w_off, m_on / m_off)
        self.add("whole run", f"{tier}: wall, clang-tidy torch-* / clang -fsyntax-only",
                 f"{w_on:.2f}/{w_off:.2f}s = {w_on / w_off:.3f}", "<= 1.02",
                 w_on / w_off <= 1.02)
        self.add("whole run", f"{tier}: peak RSS, same",
                 f"{m_on:.0f}/{m_off:.0f}MiB = {m_on / m_off:.3f}", "<= 1.05",
                 m_on / m_off <= 1.05)

    # 3 -------------------------------------------------------------------
    def check_time(self, text, name):
        src = os.path.join(self.work, name)
        with open(src, "w") as f:
            f.write(text)
        times = []
        for _ in range(max(3, self.args.runs // 2)):
            _, _, out, rc = run_measured(self.tidy_cmd(
                src, "-*,torch-*", [MOCK], [
                    "--enable-check-profile",
                    "--config={CheckOptions: {torch-compile-requires-grad-"
                    "propagation.RegionMode: all}}"]))
            p = profile(out)
            if rc != 0 or not p:
                sys.exit(f"scaling: clang-tidy failed:\n{out[-2000:]}")
            times.append(sum(p.get(c, 0.0) for c in TORCH_CHECKS))
        return statistics.median(times)

    @staticmethod
    def exponent(sizes, times):
        xs = [math.log(s) for s in sizes]
        ys = [math.log(max(t, 1e-9)) for t in times]
        mx, my = statistics.mean(xs), statistics.mean(ys)
        return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / \
            sum((x - mx) ** 2 for x in xs)

    def scaling(self):
        q = self.args.quick
        self.series = {}
        fsizes = [1000, 10000] if q else [1000, 10000, 50000]
        ftimes = [self.check_time(scaling_inputs.many_functions(n),
                                  f"many{n}.cpp") for n in fsizes]
        ssizes = [1000, 5000] if q else [1000, 5000, 20000]
        stimes = [self.check_time(scaling_inputs.long_function(n // 5),
                                  f"long{n}.cpp") for n in ssizes]
        for label, sizes, times, unit in (
                ("functions per file", fsizes, ftimes, "functions"),
                ("statements in one function", ssizes, stimes, "statements")):
            for s, t in zip(sizes, times):
                self.add("scaling", f"{s} {unit}: torch checks, s", f"{t:.3f}")
            e = self.exponent(sizes, times)
            self.series[label] = (sizes, times, e)
            steps = ", ".join(
                f"{self.exponent(sizes[i:i + 2], times[i:i + 2]):.2f}"
                for i in range(len(sizes) - 1))
            self.add("scaling", f"{label}: slope of each step", steps)
            self.add("scaling", f"{label}: fitted exponent", f"{e:.2f}",
                     "<= 1.1", e <= 1.1)

    # 4 -------------------------------------------------------------------
    def editor(self):
        """Three torch-clangd sessions on the same real-header file, edited
        in turn (so drift of the shared machine hits all three alike): no
        clang-tidy; clang-tidy with one cheap upstream check (the baseline a
        project that already uses clang-tidy in clangd has); that plus the
        torch checks."""
        import json
        import lsp_session
        clangd = os.path.join(self.build, "bin", "torch-clangd")
        if not os.path.exists(clangd):
            self.add("editor", "torch-clangd not built: skipped", "-")
            return
        tier, includes = self.tiers[0]
        source_text = open(os.path.join(ROOT, "examples",
                                        "skew_symmetric.cpp")).read()
        configs = [
            ("no clang-tidy", "Diagnostics:\n  ClangTidy:\n    Remove: ['*']\n"),
            ("clang-tidy, one upstream check",
             "Diagnostics:\n  ClangTidy:\n    Add: [misc-unused-alias-decls]\n"
             "    Remove: ['*,-misc-unused-alias-decls']\n"
             "    FastCheckFilter: None\n"),
            ("the same plus torch-*",
             "Diagnostics:\n  ClangTidy:\n"
             "    Add: [misc-unused-alias-decls, 'torch-*']\n"
             "    FastCheckFilter: None\n"),
        ]
        sessions = []
        for k, (label, config) in enumerate(configs):
            project = os.path.join(self.work, f"lsp-{k}")
            os.makedirs(project, exist_ok=True)
            src = os.path.join(project, "skew.cpp")
            with open(src, "w") as f:
                f.write(source_text)
            with open(os.path.join(project, ".clangd"), "w") as f:
                f.write(config)
            args = ["clang++", "-std=c++17", "-D_GLIBCXX_USE_CXX11_ABI=1"]
            for d in includes:
                args += ["-isystem", d]
            with open(os.path.join(project, "compile_commands.json"), "w") as f:
                json.dump([{"directory": project, "file": src,
                            "arguments": args + ["-c", src]}], f)
            env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(project, "x"),
                       HOME=project)
            c = lsp_session.Client([clangd, "--log=error",
                                    "--background-index=false",
                                    "--compile-commands-dir=" + project],
                                   project, env)
            uri = "file://" + src
            c.request("initialize", {"processId": os.getpid(),
                                     "rootUri": "file://" + project,
                                     "capabilities": {}}, timeout=120)
            c.notify("initialized", {})
            c.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "cpp", "version": 1,
                "text": source_text}})
            try:
                c.wait(lambda m, uri=uri: m.get("method") ==
                       "textDocument/publishDiagnostics" and
                       m["params"]["uri"] == uri, 300, "first diagnostics")
            except RuntimeError:
                print(open(os.path.join(project, "clangd.log")).read()[-3000:])
                raise
            sessions.append((label, c, uri, []))
        edits = 6 if self.args.quick else 24
        for v in range(2, 2 + edits):
            for k, (label, c, uri, lat) in enumerate(sessions):
                text = source_text + f"// edit {v}\n"
                start = time.perf_counter()
                c.notify("textDocument/didChange", {
                    "textDocument": {"uri": uri, "version": v},
                    "contentChanges": [{"text": text}]})
                msg = c.wait(lambda m, v=v, uri=uri: m.get("method") ==
                             "textDocument/publishDiagnostics" and
                             m["params"]["uri"] == uri and
                             m["params"].get("version") == v, 300,
                             f"diagnostics of version {v}")
                lat.append(time.perf_counter() - start)
                found = any(d.get("code") == TORCH_CHECKS[0]
                            for d in msg["params"]["diagnostics"])
                if found != (k == 2):
                    sys.exit(f"editor: session '{label}' "
                             f"{'lacks' if k == 2 else 'has'} the torch warning")
        medians = []
        for label, c, uri, lat in sessions:
            c.request("shutdown", None)
            c.notify("exit", None)
            c.proc.wait(timeout=30)
            medians.append(statistics.median(lat[2:]))  # two warm-up edits
            self.add("editor", f"{tier}: didChange -> diagnostics, {label}, ms",
                     f"{1000 * medians[-1]:.1f}")
        added = 1000 * (medians[2] - medians[1])
        self.editor_added = added
        self.add("editor", "added by the torch checks (vs one upstream check), ms",
                 f"{added:.1f}", "<= 10", added <= 10)
        self.add("editor", "added by enabling clang-tidy with torch-* at all, ms",
                 f"{1000 * (medians[2] - medians[0]):.1f}")

    # ---------------------------------------------------------------------
    def plot(self, png):
        gnuplot = shutil.which("gnuplot")
        if not gnuplot:
            print("plot: gnuplot not found (apt-get install gnuplot-nox); "
                  "no PNG written")
            return False
        data = []
        for k, (label, (sizes, times, e)) in enumerate(self.series.items()):
            path = os.path.join(self.work, f"series{k}.dat")
            with open(path, "w") as f:
                for s, t in zip(sizes, times):
                    f.write(f"{s} {t}\n")
            data.append((path, label, e))
        script = [
            "set terminal pngcairo size 900,560 font ',11'" if self.pngcairo(gnuplot)
            else "set terminal png size 900,560",
            f"set output '{png}'",
            "set logscale xy", "set grid",
            "set xlabel 'input size (functions per file, or statements in one function)'",
            "set ylabel 'torch checks, seconds (--enable-check-profile)'",
            "set key top left",
            "set title 'torch-tidy: check time against input size (log-log)'",
        ]
        plots = []
        for path, label, e in data:
            plots.append(f"'{path}' using 1:2 with linespoints lw 2 pt 7 "
                         f"title '{label} (exponent {e:.2f})'")
        # A slope-1 reference through the first point of the first series.
        s0, t0 = self.series[next(iter(self.series))][0][0], \
            self.series[next(iter(self.series))][1][0]
        plots.append(f"{t0}*(x/{s0}) with lines dt 2 lc rgb 'gray' "
                     f"title 'linear reference'")
        script.append("plot " + ", ".join(plots))
        res = subprocess.run([gnuplot], input="\n".join(script) + "\n",
                             text=True, capture_output=True)
        if res.returncode != 0:
            print("plot: gnuplot failed:", res.stderr)
            return False
        return True

    @staticmethod
    def pngcairo(gnuplot):
        res = subprocess.run([gnuplot, "-e", "set terminal"], text=True,
                             capture_output=True)
        return "pngcairo" in (res.stdout + res.stderr)


def machine():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(open("/proc/meminfo").readline().split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    osname = ""
    try:
        for line in open("/etc/os-release"):
            if line.startswith("PRETTY_NAME="):
                osname = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return f"{os.cpu_count()} cores ({cpu}){mem}, {osname}, {platform.release()}"


# The sections write_markdown writes itself; every other `## ` section of
# docs/performance.md is written by hand (or by another bench: incremental
# runs, the twins, the wheel) and kept, in its order, after the table.
GENERATED_SECTIONS = ("How each number is taken", "Reading the numbers")


def kept_sections(path):
    """The `## ` sections of the page at path that this script does not
    write, as text, in their order ([] when there is no page)."""
    try:
        text = open(path, encoding="utf-8").read()
    except FileNotFoundError:
        return []
    kept, current = [], None
    for line in text.splitlines():
        if line.startswith("## "):
            current = None
            if line[3:].strip() not in GENERATED_SECTIONS:
                current = [line]
                kept.append(current)
        elif current is not None:
            current.append(line)
    return ["\n".join(c).rstrip("\n") + "\n" for c in kept]


def write_markdown(b, path, png_ok, command, seconds):
    kept = kept_sections(path)
    L = []
    L.append("# Performance\n")
    L.append("What torch-tidy costs, measured by `tools/bench/run_bench.py` "
             "(one command; it prints the same table). Regenerate with:\n")
    L.append(f"```sh\n{command}\n```\n")
    L.append(f"Measured {datetime.date.today().isoformat()} in "
             f"{seconds / 60:.1f} min on {machine()}; clang-tidy "
             f"{b.llvm} with build/lib/TorchTidyModule.so (Release); "
             f"{b.args.runs} runs per median. The machine is shared, so single "
             "runs vary by a few percent; the whole-run ratio is read against "
             "that noise.\n")
    L.append("| part | measure | value | target | |")
    L.append("|---|---|---|---|---|")
    for section, measure, value, target, ok in b.rows:
        mark = "" if ok is None else ("met" if ok else "**missed**")
        L.append(f"| {section} | {measure} | {value} | {target or ''} | {mark} |")
    L.append("")
    if png_ok:
        L.append("![check time against input size](performance.png)\n")
    L.extend(kept)
    L.append("## How each number is taken\n")
    L.append("1. **share**: clang-tidy with `-checks='-*,torch-*,bugprone-use-"
             "after-move' --enable-check-profile` on a generated file of "
             f"{b.args.functions} functions that includes the real "
             "`<torch/torch.h>` (the integration suite's generator); each "
             "check's wall time from the profile, divided by the process's "
             "wall time; medians.")
    L.append("2. **whole run**: clang-tidy `-checks='-*,torch-*'` against the "
             "parse-only floor on the same file, alternating, medians of wall "
             "time and of peak RSS (`wait4`'s `ru_maxrss`). clang-tidy 19 "
             "with `-checks='-*'` exits at once without parsing (\"No checks "
             "enabled\", with or without `--allow-no-checks`), so the floor "
             "is `clang-19 -fsyntax-only` with the very same flags: the "
             "frontend work clang-tidy does before any check. The ratio "
             "therefore also holds clang-tidy's own cost (its driver, the "
             "AST-matcher traversal every module triggers, diagnostics), not "
             "only the torch checks'.")
    L.append("3. **scaling**: the torch checks' profiled time (RegionMode: "
             "all) on generated files (mock LibTorch headers, so the parse "
             "does not dominate): 1k, 10k and 50k small functions each with a "
             "branch and a write; one function of 1k, 5k and 20k statements "
             "with nested branches and loops. The exponent is the "
             "least-squares slope of log(time) against log(size).")
    L.append("4. **editor**: three torch-clangd sessions on "
             "`examples/skew_symmetric.cpp` with the real LibTorch 2.8 "
             "headers, edited in turn so the shared machine's drift hits "
             "them alike: `.clangd` with no clang-tidy (`Remove: ['*']`), "
             "with one cheap upstream check (`misc-unused-alias-decls`, the "
             "baseline of a project that already runs clang-tidy in "
             "clangd), and with that plus `torch-*`. Each edit (a full-text "
             "`didChange`) is timed to the `publishDiagnostics` of its "
             "version; medians after two warm-up edits. The target applies "
             "to what the torch checks add to the baseline; what enabling "
             "clang-tidy at all costs is shown beside it.\n")
    L.append("## Reading the numbers\n")
    L.append("- The whole-run floor is `clang -fsyntax-only`, a different "
             "binary from clang-tidy; a ratio a little under 1 means the two "
             "frontends differ by more than the checks cost, not that the "
             "checks save time. The checks' own cost is the profile's share "
             "(part 1).")
    L.append("- Scaling: every one of the three checks, including "
             "torch-index-assign-to-copy's single walk over the body, shows "
             "the same curve on one huge function, steeper from 1k to 5k "
             "statements than from 5k to 20k, while the work counters of "
             "the regression guard (blocks and elements visited, dataflow "
             "facts) grow exactly with the input. The excess is the memory "
             "hierarchy on a few-millisecond measurement (a 20k-statement "
             "AST no longer fits the caches), not a quadratic algorithm; if "
             "the fitted exponent misses 1.1, that is where it comes from.")
    L.append("- Editor latency on a 2-core shared machine varies by tens of "
             "milliseconds between edits; the three sessions are edited in "
             "turn and the medians compared, and a difference within that "
             "noise (including a negative one) means the checks' cost is "
             "below what this machine can resolve.\n")
    L.append("The regression guard in `make test` is not a timing: "
             "`test/lit/robustness/scaling.cpp` runs the check with "
             "`TORCH_TIDY_STATS=1` on the same generated inputs "
             "(`tools/bench/scaling_inputs.py`) and fails if CFG blocks "
             "visited, elements visited or dataflow facts grow faster than "
             "the input.\n")
    with open(path, "w") as f:
        f.write("\n".join(L))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--functions", type=int, default=200)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--only", choices=["share", "whole", "scaling", "editor"],
                    action="append")
    args = ap.parse_args()
    if args.quick:
        args.runs = min(args.runs, 3)
    start = time.time()
    b = Bench(args)
    print(f"{'part':<12} {'measure':<58} {'value':>14} {'target':>10}")
    parts = args.only or ["share", "whole", "scaling", "editor"]
    if "share" in parts:
        b.share()
    if "whole" in parts:
        b.whole_run()
    if "scaling" in parts:
        b.scaling()
    if "editor" in parts:
        b.editor()
    missed = [r for r in b.rows if r[4] is False]
    print(f"{len(missed)} target(s) missed")
    if not args.no_write and not args.only:
        png = os.path.join(ROOT, "docs", "performance.png")
        png_ok = b.plot(png)
        command = "python3 tools/bench/run_bench.py" + \
            (" --quick" if args.quick else "")
        write_markdown(b, os.path.join(ROOT, "docs", "performance.md"),
                       png_ok, command, time.time() - start)
        print("wrote docs/performance.md" + (" and docs/performance.png"
                                             if png_ok else ""))
    shutil.rmtree(b.work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

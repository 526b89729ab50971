#!/usr/bin/env python3
"""Ground truth for torch-write-into-copy (issue 48): a write into the result
of a method that returns its receiver when nothing needs changing and a copy
otherwise reaches the receiver only in the first case.

Two parts:

  LibTorch (C++): write_into_copy.cpp, built against each --libtorch and run
  on CPU, writes (an ATen in-place op and a raw data_ptr write) into the
  result of contiguous(), to(dtype), to(kCPU), contiguous(memory_format),
  to(options, ..., memory_format), cpu(), to(kHalf), toType(), reshape(),
  flatten() and expect_contiguous(), for a receiver that needs no copy and
  one that does (transposed, another dtype, another memory format).

  PyTorch (--python): CPU operators declaring `Tensor(a!)` whose kernels
  write into `out.contiguous()` (add_ and a raw pointer loop) and into
  `self.to(kFloat)` (clamp_min_), and `acc.cpu()` (add_), called eager and
  under torch.compile(fullgraph=True) (aot_eager, inductor) with a receiver
  that needs no copy and one that does; and opcheck on each, with both
  samples: its test_schema and its whole default suite.

  write_into_copy.py --libtorch LABEL=TORCH_DIR|debian [...]
                     --python LABEL=PYTHON [...] [--json OUT]
      measures, checks that every write reaches its receiver exactly when
      the method returned it (no copy), that compiled calls see what eager
      calls see, and that opcheck passes every case (the bug is invisible
      to it); prints the table, writes it as JSON with --json. Exit 0 when
      all hold, 1 otherwise, 77 when nothing could run (SKIP said by name).

TORCH_DIR is a torch wheel's package folder (include/, lib/); `debian` is
Debian's libtorch-dev (1.13). Builds are kept in
~/.cache/torch-tidy/write-into-copy, keyed by the source and the LibTorch.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import extension_build  # noqa: E402
import undeclared_mutation as um  # noqa: E402  (shared helpers)

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "write_into_copy.cpp")
CACHE = os.path.join(extension_build.cache_root(), "write-into-copy")
BACKENDS = ["aot_eager", "inductor"]

KERNEL = r'''
#include <torch/library.h>
#include <ATen/ATen.h>
void contig_add(at::Tensor out) { out.contiguous().add_(1); }
void contig_raw(at::Tensor out) {
  at::Tensor c = out.contiguous();
  float *p = c.data_ptr<float>();
  for (int64_t i = 0; i < c.numel(); ++i)
    p[i] += 1;
}
void to_float_clamp(at::Tensor self) { self.to(at::kFloat).clamp_min_(0); }
void cpu_add(at::Tensor acc) { acc.cpu().add_(1); }
TORCH_LIBRARY(tt_wic, m) {
  m.def("contig_add(Tensor(a!) out) -> ()");
  m.def("contig_raw(Tensor(a!) out) -> ()");
  m.def("to_float_clamp(Tensor(a!) self) -> ()");
  m.def("cpu_add(Tensor(a!) acc) -> ()");
}
TORCH_LIBRARY_IMPL(tt_wic, CPU, m) {
  m.impl("contig_add", &contig_add);
  m.impl("contig_raw", &contig_raw);
  m.impl("to_float_clamp", &to_float_clamp);
  m.impl("cpu_add", &cpu_add);
}
'''


def samples(torch):
    """op -> [(sample, receiver-maker, whether it needs a copy)]."""
    def plain():
        return torch.randn(3, 4)

    def transposed():
        return torch.randn(4, 3).t()

    def negative_double():
        return -torch.rand(3, 4, dtype=torch.float64)

    def negative_float():
        return -torch.rand(3, 4)
    return {
        "contig_add": [("contiguous", plain, False),
                       ("transposed", transposed, True)],
        "contig_raw": [("contiguous", plain, False),
                       ("transposed", transposed, True)],
        "to_float_clamp": [("float32", negative_float, False),
                           ("float64", negative_double, True)],
        "cpu_add": [("cpu", plain, False)],
    }


def measure():
    import logging
    import warnings
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR",
                          tempfile.mkdtemp(prefix="tt-wic-ind-"))
    import torch
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    um.load_inline_operators(torch, "tt_wic", KERNEL)
    version = torch.__version__.split("+")[0]
    for name in ("contig_add", "contig_raw", "to_float_clamp", "cpu_add"):
        torch.library.register_fake(f"tt_wic::{name}")(lambda x: None)
    for name, cases in samples(torch).items():
        op = getattr(torch.ops.tt_wic, name)

        def f(x, op=op):
            op(x)
            return x * 1
        for sample, make, copies in cases:
            torch.manual_seed(0)
            x = make()
            before = x.clone()
            op(x)
            eager = "reaches" if not torch.equal(before, x) else "lost"
            print(f"ROW {version} {name} {sample} eager {eager}", flush=True)
            for backend in BACKENDS:
                torch._dynamo.reset()
                torch.manual_seed(0)
                x = make()
                before = x.clone()
                try:
                    torch.compile(f, backend=backend, fullgraph=True)(x)
                    got = "reaches" if not torch.equal(before, x) else "lost"
                except Exception as e:  # what compiling raised
                    got = "error"
                    print(f"# {name} {sample} {backend}: "
                          f"{type(e).__name__}: {str(e)[:200]}")
                print(f"ROW {version} {name} {sample} {backend} {got}",
                      flush=True)
            for utils, label in ((("test_schema",), "opcheck_schema"),
                                 (None, "opcheck_all")):
                torch.manual_seed(0)
                try:
                    kw = {"test_utils": utils} if utils else {}
                    torch.library.opcheck(op, (make(),), **kw)
                    verdict = "pass"
                except Exception as e:
                    verdict = "fail:" + type(e.__cause__ or e).__name__
                    print(f"# {name} {sample} {label}: {str(e)[:300]}")
                print(f"ROW {version} {name} {sample} {label} {verdict}",
                      flush=True)


def libtorch_flags(where):
    """(compile flags, link flags) for a LibTorch, or (None, why) when it is
    missing."""
    if where == "debian":
        api = "/usr/include/torch/csrc/api/include"
        if not os.path.exists(os.path.join(api, "torch", "torch.h")):
            return None, f"no Debian libtorch-dev ({api})"
        return ["-isystem", api], ["-ltorch", "-ltorch_cpu", "-lc10"]
    inc = os.path.join(where, "include")
    if not os.path.exists(os.path.join(inc, "torch", "csrc", "api",
                                       "include", "torch", "torch.h")):
        return None, f"no LibTorch headers in {inc}"
    lib = os.path.join(where, "lib")
    flags = ["-D_GLIBCXX_USE_CXX11_ABI=1", "-isystem", inc, "-isystem",
             os.path.join(inc, "torch", "csrc", "api", "include")]
    libs = [f"-L{lib}", f"-Wl,-rpath,{lib}", "-ltorch", "-ltorch_cpu",
            "-lc10"]
    return flags, libs


def libtorch_build(label, where, sources=(SOURCE,), name="write_into_copy"):
    """(binary, None) built from sources against a LibTorch (kept between
    runs, keyed by their text), or (None, why) when it is missing or, with
    why starting "build failed", does not build."""
    flags, libs = libtorch_flags(where)
    if flags is None:
        return None, libs
    text = b"".join(open(s, "rb").read() for s in sources)
    key = hashlib.sha256(text + repr((flags, libs)).encode()).hexdigest()[:16]
    binary = os.path.join(CACHE, f"{name}-{label}-{key}")
    if not os.path.exists(binary):
        os.makedirs(CACHE, exist_ok=True)
        tmp = binary + ".tmp"
        res = subprocess.run(["g++", "-std=c++17", "-O0", *flags, *sources,
                              "-o", tmp, *libs], capture_output=True,
                             text=True)
        if res.returncode:
            return None, f"build failed: {res.stderr[-1500:]}"
        os.replace(tmp, binary)
    return binary, None


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--libtorch", action="append", default=[],
                   help="LABEL=TORCH_DIR or LABEL=debian")
    p.add_argument("--python", action="append", default=[], help="LABEL=PYTHON")
    p.add_argument("--json", help="write the table here")
    p.add_argument("--expect", help="the committed table "
                   "(docs/ground-truth-write-into-copy.json): a LibTorch "
                   "version's rows, or the reference torch's, that differ "
                   "from it are a failure")
    p.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.measure:
        measure()
        return 0
    problems, table, ran = [], {"libtorch": {}, "python": {}}, []
    for spec in args.libtorch:
        label, _, where = spec.partition("=")
        binary, why = libtorch_build(label, where)
        if binary is None:
            if why.startswith("build failed"):
                problems.append(f"LibTorch {label}: {why}")
            else:
                print(f"SKIP write-into-copy LibTorch {label}: {why}")
            continue
        res = subprocess.run([binary], capture_output=True, text=True)
        rows = [l.split("\t") for l in res.stdout.splitlines()
                if l.count("\t") == 4]
        if res.returncode or not rows:
            problems.append(f"LibTorch {label}: the measurement failed: "
                            f"{res.stderr[-800:]}")
            continue
        ran.append(label)
        table["libtorch"][label] = rows
        for method, receiver, form, copies, reaches in rows:
            want = "reaches" if copies == "same" else "lost"
            if reaches != want:
                problems.append(f"LibTorch {label} {method} {receiver} "
                                f"{form}: {copies} but {reaches}")
        needs_copy = {(m, r) for m, r, _, c, _ in rows if c == "copy"}
        print(f"LibTorch {label}: {len(rows)} writes; lost into a copy: "
              + ", ".join(sorted(f"{m}({r})" for m, r in needs_copy)))
    measured, failed = um.measure_under_venvs(args.python, __file__,
                                              "write-into-copy")
    problems += failed
    for label, rows in measured:
        ran.append(label)
        got = {(r[2], r[3], r[4]): r[5] for r in rows}
        table["python"][label] = sorted(
            [list(k) + [v] for k, v in got.items()])
        for (op, sample, column), value in sorted(got.items()):
            if column in ("eager",) + tuple(BACKENDS):
                copies = sample in ("transposed", "float64")
                want = "lost" if copies else "reaches"
                if value != want:
                    problems.append(f"torch {label} {op} {sample} {column}: "
                                    f"{value}, expected {want}")
            elif value != "pass":
                problems.append(f"torch {label} {op} {sample} {column}: "
                                f"{value}, expected pass (opcheck does not "
                                f"see the lost write)")
        print(f"torch {rows[0][1]}: " + "; ".join(
            f"{op} {sample}: " + ", ".join(
                f"{c} {got.get((op, sample, c))}"
                for c in ["eager"] + BACKENDS + ["opcheck_schema",
                                                 "opcheck_all"])
            for op, sample in sorted({(k[0], k[1]) for k in got})))
    if args.expect:
        with open(args.expect) as f:
            expected = json.load(f)
        for part in ("libtorch", "python"):
            for label, rows in table[part].items():
                want = expected.get(part, {}).get(label)
                if part == "python" and label != "2.8.0":
                    continue  # "latest" moves with PyPI
                if want is None:
                    problems.append(f"{args.expect} has no {part} {label}")
                elif sorted(map(list, rows)) != sorted(map(list, want)):
                    problems.append(f"{part} {label}: the table differs from "
                                    f"{args.expect}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(table, f, indent=1, sort_keys=True)
            f.write("\n")
    return um.venv_script_verdict(
        problems, ran, "write-into-copy",
        f"every write reaches its receiver exactly when the method returned "
        f"it, under {len(ran)} LibTorch/torch version(s); opcheck passes "
        f"every case")


if __name__ == "__main__":
    sys.exit(main())

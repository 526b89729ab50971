#!/usr/bin/env python3
"""Generates a translation unit on the real <torch/torch.h> with N functions,
half hazardous and half benign, drawn from the check's rules.

  generate_real_header_cases.py N OUT.cpp

Each hazardous function's flagged line ends with `// expect-warning`; the
runner compares the set of flagged lines with the check's warnings. A line
another torch-tidy check must flag ends with `// expect: <check>`; every
other line must stay quiet for every check.

Fresh-local hazards sit in functions marked compiled (the annotation of
include/torch_tidy/compiled.h); the same bodies registered as plain
CompositeImplicitAutograd kernels stay quiet with default options. Operators
with a mutable (`Tensor(a!)`) argument write into it from the kernel,
registered with the spellings of TORCH_LIBRARY.
"""
import sys

HEADER = """#include <torch/torch.h>
#include <torch/library.h>
using torch::indexing::Slice;
using torch::indexing::None;
#define COMPILED [[clang::annotate("torch_tidy::compiled")]]
"""

# Kernels of operators with a mutable argument `m`; {k} a unique index.
MUTABLE_HAZARDOUS = [
    "m.index_put_({{Slice(), {k}}}, v); // expect-warning",
    "m.index({{Slice(), {k}}}) = v; // expect-warning",
    "m[{k}] = v; // expect-warning",
    "m.narrow(0, 0, 1).copy_(v); // expect-warning",
    "auto w = m.select(0, {k});\n  w.copy_(v); // expect-warning",
    "m.copy_(v); // expect-warning",
    "m.fill_(v.sum()); // expect-warning",
    "m.add_(v); // expect-warning",
    "m.index_copy_(0, idx, v); // expect-warning",
    "m.masked_scatter_(mask, v); // expect-warning",
    "at::Tensor &r = m;\n  r.scatter_(0, idx, v); // expect-warning",
    "if (flag) {{\n    m.mul_(v); // expect-warning\n  }}",
]
MUTABLE_BENIGN = [
    "m.copy_(v.detach());",
    "m.fill_(1.0);",
    "m.index_put_({{{k}}}, torch::arange(4));",
    "{{\n    torch::NoGradGuard guard;\n    m.copy_(v);\n  }}",
    "m.zero_();",
]
# How a mutable operator is registered: (def, impl in TORCH_LIBRARY_IMPL(CPU)).
MUTABLE_REGISTRATIONS = [
    ('m.def("{s}", &g{i});', None),
    ('m.def("{s}", TORCH_FN(g{i}));', None),
    ('m.def("{s}");', 'm.impl("g{i}", &g{i});'),
    ('m.def("{s}");\n  m.impl("g{i}", torch::dispatch(c10::DispatchKey::CPU, &g{i}));',
     None),
]

# Hazardous bodies: {t} target factory, {n} unique index; `v`, `idx`, `mask`
# are parameters that may require grad.
HAZARDOUS = [
    "auto m = {t};\n  m.index_put_({{Slice(), {k}}}, v); // expect-warning",
    "auto m = {t};\n  m.index({{Slice(), {k}}}) = v; // expect-warning",
    "auto m = {t};\n  m[{k}] = v; // expect-warning",
    "auto m = {t};\n  m.select(0, {k}).copy_(v); // expect-warning",
    "auto m = {t};\n  m.narrow(0, 0, 1).copy_(v); // expect-warning",
    "auto m = {t};\n  m.slice(1, 0, 2).copy_(v); // expect-warning",
    "auto m = {t};\n  auto view = m.select(0, {k});\n  view.copy_(v); // expect-warning",
    "auto m = {t};\n  m.index_copy_(0, idx, v); // expect-warning",
    "auto m = {t};\n  m.masked_scatter_(mask, v); // expect-warning",
    "auto m = {t};\n  m.scatter_(0, idx, v); // expect-warning",
    "auto m = {t};\n  m.masked_fill_(mask, v.sum()); // expect-warning",
    "auto m = {t};\n  m.index_fill_(0, idx, v.sum()); // expect-warning",
    "auto m = {t};\n  at::index_put_(m, c10::List<c10::optional<at::Tensor>>({{idx}}), v); // expect-warning",
    "auto m = {t};\n  if (flag) {{\n    m.index_put_({{{k}}}, v * 2); // expect-warning\n  }}",
    "auto m = {t};\n  for (int i = 0; i < 2; ++i)\n    m.select(0, i).copy_(v.exp()); // expect-warning",
]
TARGETS = [
    "torch::zeros({{4, 4}})",
    "at::zeros({{4, 4}})",
    "torch::empty({{4, 4}})",
    "torch::ones({{4, 4}}).contiguous()",
    "torch::zeros_like(v)",
    "v.new_zeros({{4, 4}})",
    "torch::full({{4, 4}}, 1.0)",
    "torch::zeros({{4, 4}}, torch::dtype(torch::kFloat).requires_grad(false))",
    "torch::randn({{4, 4}})",
    # The seed's own factory, options spelled from v's parts (issue 28).
    "torch::zeros({{4, 4}}, v.device())",
    "torch::zeros({{4, 4}}, torch::TensorOptions().device(v.device()).dtype(v.dtype()))",
    "torch::zeros({{4, 4}}, torch::dtype(v.dtype()).device(v.device()))",
    "torch::zeros({{4, 4}}, torch::device(v.device()))",
    "at::zeros({{4, 4}}, at::device(v.device()).dtype(at::kFloat))",
]
BENIGN = [
    "auto m = {t};\n  m.index_put_({{Slice(), {k}}}, v.detach());",
    "auto m = {t};\n  m.index_put_({{Slice(), {k}}}, 1.0);",
    "auto m = {t};\n  {{\n    torch::NoGradGuard guard;\n    m.index_put_({{{k}}}, v);\n  }}",
    # Benign for the flagship, but an in-place write into a leaf that
    # requires grad: autograd throws there.
    "auto m = torch::zeros({{4, 4}}, torch::requires_grad()).clone();\n  m.index_put_({{{k}}}, v);",
    "auto m = {t};\n  m = m + v;\n  m.index_put_({{{k}}}, v);",
    "auto m = v * 2;\n  m.index_put_({{{k}}}, v);",
    "auto m = {t};\n  m.index_put_({{{k}}}, torch::arange(4));",
    "auto m = {t};\n  m.index_put_({{{k}}}, idx.to(torch::kLong));",
    "auto m = {t};\n  auto r = m.index({{idx}});\n  m = r;",
    "auto m = {t};\n  m.copy_(v);",
    "auto m = {t};\n  m.index_put_({{{k}}}, torch::zeros({{4}}));",
    "auto m = {t};\n  {{\n    c10::InferenceMode guard;\n    m.select(0, {k}).copy_(v);\n  }}",
    # Options the analysis cannot see may ask for grad: no target.
    "auto m = torch::zeros({{4, 4}}, v.options().requires_grad(flag));\n  m.index_put_({{{k}}}, v);",
]


def generate(n, out):
    parts = [HEADER]
    defs, cpu_impls = [], []
    generate_mutable(n // 4, parts, defs, cpu_impls)
    for i in range(n):
        hazardous = i % 2 == 0
        j = i // 2
        t = TARGETS[j % len(TARGETS)].format()
        if hazardous:
            body = HAZARDOUS[j % len(HAZARDOUS)].format(t=t, k=j % 4)
        else:
            body = BENIGN[j % len(BENIGN)].format(t=t, k=j % 4)
        # Every fifth benign function is hazardous code registered below
        # autograd (CPU): not a compiled region, so not flagged.
        below_autograd = not hazardous and j % 5 == 0
        if below_autograd:
            body = HAZARDOUS[j % len(HAZARDOUS)].format(t=t, k=j % 4).replace(
                " // expect-warning", "")
        # Every third hazardous-looking body is a plain kernel, not marked
        # compiled: quiet by default (FreshTargetsInKernels is off).
        plain_kernel = hazardous and j % 3 == 2
        if plain_kernel:
            body = body.replace(" // expect-warning", "")
        marker = "COMPILED " if hazardous and not plain_kernel else ""
        parts.append(
            f"{marker}at::Tensor f{i}(const at::Tensor &v, const at::Tensor &idx,\n"
            f"                const at::Tensor &mask, bool flag) {{\n"
            f"  {body}\n  return m;\n}}\n")
        schema = f"f{i}(Tensor v, Tensor idx, Tensor mask, bool flag) -> Tensor"
        if below_autograd:
            defs.append(f'  m.def("{schema}");')
            cpu_impls.append(f'  m.impl("f{i}", &f{i});')
        else:
            defs.append(f'  m.def("{schema}", &f{i});')
    parts.append("TORCH_LIBRARY(tt_real, m) {\n" + "\n".join(defs) + "\n}\n")
    parts.append("TORCH_LIBRARY_IMPL(tt_real, CPU, m) {\n" +
                 "\n".join(cpu_impls) + "\n}\n")
    open(out, "w").write("\n".join(parts))


def generate_mutable(n, parts, defs, cpu_impls):
    """Operators g0..g{n-1} with a mutable argument, half of them writing a
    value that may require grad into it."""
    for i in range(n):
        hazardous = i % 2 == 0
        j = i // 2
        table = MUTABLE_HAZARDOUS if hazardous else MUTABLE_BENIGN
        body = table[j % len(table)].format(k=j % 4)
        parts.append(
            f"void g{i}(at::Tensor &m, const at::Tensor &v, const at::Tensor &idx,\n"
            f"          const at::Tensor &mask, bool flag) {{\n  {body}\n}}\n")
        schema = (f"g{i}(Tensor(a!) m, Tensor v, Tensor idx, Tensor mask, "
                  f"bool flag) -> ()")
        define, impl = MUTABLE_REGISTRATIONS[i % len(MUTABLE_REGISTRATIONS)]
        defs.append("  " + define.format(s=schema, i=i))
        if impl:
            cpu_impls.append("  " + impl.format(i=i))


if __name__ == "__main__":
    generate(int(sys.argv[1]), sys.argv[2])

#!/usr/bin/env python3
"""opcheck on kernels that write an argument's metadata, not its values.

torch-op-undeclared-mutation reports the in-place methods isMetadataWrite
(lib/libtorch/src/LibTorchApi.cpp) names when a kernel calls them on a
tensor argument its schema does not declare mutable. This builds, per
method, a CPU operator whose kernel calls it on `m` (the call changes m's
sizes, strides or storage), once with `Tensor m` and once with
`Tensor(a!) m`, plus the autograd-metadata methods the check does not
report (detach_, requires_grad_), and runs opcheck's test_schema on each.

  metadata_writes.py --python LABEL=PYTHON [--python ...]
      measures under each torch and checks: every method the check reports
      fails test_schema undeclared and passes declared; the ones it does not
      report pass undeclared. Exit 0 when all hold, 1 otherwise, 77 when no
      torch could run (SKIP said by name).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import undeclared_mutation as um  # noqa: E402  (shared helpers)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SOURCE = os.path.join(ROOT, "lib", "libtorch", "src", "LibTorchApi.cpp")

# method -> (the kernel's statement on m, m's shape, v's shape): inputs for
# which the call changes m's metadata.
BODIES = {
    "resize_": ("m.resize_({2, 6});", (4, 3), (2, 3)),
    "resize_as_": ("m.resize_as_(v);", (4, 3), (2, 3)),
    "set_": ("m.set_(v);", (4, 3), (2, 3)),
    "set_data": ("m.set_data(v.clone());", (4, 3), (2, 3)),
    "squeeze_": ("m.squeeze_();", (4, 1, 3), (2, 3)),
    "unsqueeze_": ("m.unsqueeze_(0);", (4, 3), (2, 3)),
    "transpose_": ("m.transpose_(0, 1);", (4, 3), (2, 3)),
    "t_": ("m.t_();", (4, 3), (2, 3)),
    "swapdims_": ("m.swapdims_(0, 1);", (4, 3), (2, 3)),
    "swapaxes_": ("m.swapaxes_(0, 1);", (4, 3), (2, 3)),
    "as_strided_": ("m.as_strided_({3, 4}, {1, 3});", (4, 3), (2, 3)),
}
# Autograd metadata: not reported (opcheck passes).
NOT_REPORTED = {
    "detach_": ("m.detach_();", (4, 3), (2, 3)),
    "requires_grad_": ("m.requires_grad_(false);", (4, 3), (2, 3)),
}


def reported_methods():
    """The names isMetadataWrite lists."""
    text = open(SOURCE).read()
    body = text[text.index("bool isMetadataWrite("):]
    body = body[:body.index("}\n")]
    return set(re.findall(r'"(\w+)"', body))


def op_name(method, declared):
    return method.strip("_") + ("_decl" if declared else "_op")


def generate():
    lines = ["#include <ATen/ATen.h>", "#include <torch/library.h>", ""]
    defs, impls = [], []
    for method, (body, _, _) in {**BODIES, **NOT_REPORTED}.items():
        lines.append(f"void k_{method}(const at::Tensor &m, const at::Tensor &v) {{ {body} }}")
        for declared in (False, True):
            m = "Tensor(a!) m" if declared else "Tensor m"
            defs.append(f'  m.def("{op_name(method, declared)}({m}, Tensor v) -> ()");')
            impls.append(f'  m.impl("{op_name(method, declared)}", &k_{method});')
    lines += ["TORCH_LIBRARY(tt_md, m) {"] + defs + ["}", "",
              "TORCH_LIBRARY_IMPL(tt_md, CPU, m) {"] + impls + ["}", ""]
    return "\n".join(lines)


def measure():
    import torch
    um.load_inline_operators(torch, "tt_md", generate())
    for method, (_, ms, vs) in {**BODIES, **NOT_REPORTED}.items():
        for declared in (False, True):
            op = getattr(torch.ops.tt_md, op_name(method, declared))
            try:
                torch.library.opcheck(op, (torch.randn(*ms), torch.randn(*vs)),
                                      test_utils="test_schema")
                verdict = "pass"
            except Exception as e:
                text = str(e.__cause__ or e)
                verdict = "mutation" if "not defined as mutable" in text else \
                    "error: " + text.splitlines()[0][:120]
            print(f"ROW {torch.__version__.split('+')[0]} {method} "
                  f"{'declared' if declared else 'undeclared'} {verdict}")


def main():
    args = um.venv_script_args(__doc__, measure)
    if args is None:
        return 0
    reported = reported_methods()
    problems = []
    if reported != set(BODIES):
        problems.append(f"isMetadataWrite names {sorted(reported)}, this measures "
                        f"{sorted(BODIES)}")
    measured, failed = um.measure_under_venvs(args.python, __file__, "metadata-writes")
    problems += failed
    for _, rows in measured:
        for _, version, method, decl, verdict in (r[:5] for r in rows):
            print(f"torch {version} {method:15s} {decl:10s} {verdict}")
            if method in BODIES:
                want = "mutation" if decl == "undeclared" else "pass"
            else:
                want = "pass"
            if verdict != want:
                problems.append(f"torch {version}: {method} {decl}: {verdict}, "
                                f"the check assumes {want}")
    return um.venv_script_verdict(
        problems, measured, "metadata-writes",
        f"opcheck agrees with the check on {len(BODIES) + len(NOT_REPORTED)} "
        f"methods under {len(measured)} torch version(s)")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Measures the LoRA (punica) operators of intel-extension-for-pytorch's
released CPU wheel under torch.compile, called the way its own
`ipex.llm.functional.bgmv_*` and vLLM's IPEX backend call them: the output
tensor is passed in, the operator's result is ignored, and `out` is read
back. Their schemas are inferred from the C++ signatures
(construct_function_schema_and_register), so no argument is declared
mutable, while the kernels behind the dispatch stubs write `out`; the
package registers a Meta kernel for each that returns a new tensor.
torch-tidy reports the writes (docs/found.md, "intel-extension-for-pytorch").

  pip install --no-deps --target SITE intel_extension_for_pytorch==2.8.0
  PYTHONPATH=SITE VENV_2.8.0/bin/python tools/corpus/ipex_punica.py

Prints one row per operator and backend: whether the compiled call
(fullgraph=True) gives the uncompiled call's values, and whether what it
returns in `out` is all zeros (the unwritten buffer); and opcheck's
test_schema verdict."""
import sys

import torch

try:
    import intel_extension_for_pytorch  # noqa: F401  registers torch_ipex::
except ImportError as e:
    sys.exit(f"SKIPPED ipex_punica: intel_extension_for_pytorch does not "
             f"import ({e})")

OPS = torch.ops.torch_ipex
B, HIDDEN, RANK, LORAS = 4, 32, 8, 2
DT = torch.bfloat16  # the kernels compute bf16 and half only


def cases():
    """(operator, its tensors, its other arguments) as the callers pass
    them: `out` first."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(B, HIDDEN, generator=g).to(DT)
    idx = torch.tensor([0, 1, 0, 1])
    a = torch.randn(LORAS, RANK, HIDDEN, generator=g).to(DT)
    h = torch.randn(B, RANK, generator=g).to(DT)
    b = torch.randn(LORAS, HIDDEN, RANK, generator=g).to(DT)
    yield ("punica_bgmv_shrink", (torch.zeros(B, RANK, dtype=DT), x, a, idx),
           (0.5,))
    yield ("punica_bgmv_expand", (torch.zeros(B, HIDDEN, dtype=DT), h, b,
                                  idx), (False,))
    yield ("punica_bgmv_expand_slice",
           (torch.zeros(B, 2 * HIDDEN, dtype=DT), h, b, idx),
           (0, HIDDEN, False))


def caller_of(op, extra):
    def caller(out, *rest):
        op(out, *rest, *extra)  # the result ignored, as the callers do
        return out * 1
    return caller


def main():
    print(f"torch {torch.__version__}, intel_extension_for_pytorch "
          f"{intel_extension_for_pytorch.__version__}")
    print("| operator | schema | backend | equal to uncompiled | all zeros |")
    print("|---|---|---|---|---|")
    for name, args, extra in cases():
        op = getattr(OPS, name)
        schema = str(op.default._schema)
        caller = caller_of(op, extra)
        ref = caller(*[a.clone() for a in args])
        assert ref.abs().sum() > 0, f"{name}: the uncompiled call wrote nothing"
        for backend in ("aot_eager", "inductor"):
            torch._dynamo.reset()
            try:
                got = torch.compile(caller, backend=backend, fullgraph=True)(
                    *[a.clone() for a in args])
                row = (str(torch.equal(got, ref)),
                       str(bool(got.abs().sum() == 0)))
            except Exception as e:  # noqa: BLE001 (reported as measured)
                row = (f"raised {type(e).__name__}", "")
            print(f"| {name} | `{schema}` | {backend} | {row[0]} | {row[1]} |")
        try:
            torch.library.opcheck(
                op.default, tuple(a.clone() for a in args) + extra,
                test_utils=("test_schema",))
            verdict = "passes"
        except Exception as e:  # noqa: BLE001
            verdict = str(e).splitlines()[0][:160]
        print(f"| {name} | opcheck test_schema: {verdict} ||||")


if __name__ == "__main__":
    main()

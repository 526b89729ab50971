#!/usr/bin/env python3
"""sglang's fused_add_rmsnorm_cpu under chained callers (docs/found.md).

sgl-kernel's CPU schema declares `input` mutable and not `residual`, which
the kernel writes. The found twin measures one call whose caller reads
`residual` after it. sglang's decoder layers chain the calls: each layer's
norms take the residual the previous call wrote, and the model's forward is
compiled with sglang's settings (inductor freezing, no_grad, dynamic=False,
the operator made an inductor fallback). This measures a CPU twin of the
operator (sglang's kernel body in ATen, sglang's no-op fake) under:

  single         one call, `x` and `residual` returned (the found twin's caller)
  chained        two decoder layers, four calls, the residual of each call
                 feeding the next, both returned
  model          LlamaModel's shape: layer 0 takes residual = hidden states,
                 every later norm is fused, the final norm too, only the
                 hidden states returned
  model-sglang   `model` as an nn.Module whose weight is a parameter,
                 compiled as sglang's CPU graph runner compiles it

each under aot_eager and inductor, and prints per caller and backend
whether every returned tensor equals the uncompiled one.

  VENV/bin/python sglang_chain.py          (one torch)
  sglang_chain.py --python LABEL=PYTHON ... (each, from any python)
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import undeclared_mutation as um  # noqa: E402  (shared helpers)

KERNEL = r'''
#include <ATen/ATen.h>
#include <torch/library.h>
void k(at::Tensor &input, at::Tensor &residual, const at::Tensor &weight,
       double eps) {
  residual.add_(input);
  input.copy_(residual * at::rsqrt(residual.pow(2).mean(-1, true) + eps) *
              weight);
}
TORCH_LIBRARY(tt_sgl_chain, m) {
  m.def("fused_add_rmsnorm_cpu(Tensor(a!) input, Tensor residual, "
        "Tensor weight, float eps) -> ()");
}
TORCH_LIBRARY_IMPL(tt_sgl_chain, CPU, m) {
  m.impl("fused_add_rmsnorm_cpu", &k);
}
'''


def measure():
    import torch
    um.load_inline_operators(torch, "tt_sgl_chain", KERNEL)
    # sglang's fake for it (register_fake_ops): returns nothing.
    torch.library.register_fake("tt_sgl_chain::fused_add_rmsnorm_cpu")(
        lambda *a, **k: None)
    op = torch.ops.tt_sgl_chain.fused_add_rmsnorm_cpu
    eps = 1e-6

    def norm(h, w):
        return h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps) * w

    def single(x, residual, w):
        x, residual = x * 1, residual * 1
        op(x, residual, w, eps)
        return [x * 2, residual * 2]

    def chained(x, residual, w):
        x, residual = x * 1, residual * 1
        for _ in range(2):
            op(x, residual, w, eps)  # input_layernorm(x, residual)
            x = x.tanh()  # attention's stand-in
            op(x, residual, w, eps)  # post_attention_layernorm
            x = x.sigmoid()  # the MLP's stand-in
        return [x * 2, residual * 2]

    def model(x, residual, w):
        h = x * 1
        residual = h
        h = norm(h, w)
        for layer in range(2):
            if layer > 0:
                op(h, residual, w, eps)
            h = h.tanh()
            op(h, residual, w, eps)
            h = h.sigmoid()
        op(h, residual, w, eps)  # the model's final norm
        return [h * 2]

    class Model(torch.nn.Module):
        def __init__(self, w):
            super().__init__()
            self.weight = torch.nn.Parameter(w)

        def forward(self, x, residual):
            return model(x, residual, self.weight.data)

    g = torch.Generator().manual_seed(20261127)
    x, residual, w = (torch.randn(2, 4, generator=g), torch.randn(2, 4, generator=g),
                      torch.randn(4, generator=g))
    results = []

    def same(want, got):
        return all(torch.allclose(a, b, atol=1e-5) for a, b in zip(want, got))

    for name, fn in [("single", single), ("chained", chained), ("model", model)]:
        want = fn(x, residual, w)
        for backend in ["aot_eager", "inductor"]:
            torch._dynamo.reset()
            got = torch.compile(fn, backend=backend)(x, residual, w)
            results.append((name, backend, same(want, got)))
    # sglang's CPU graph runner: set_torch_compile_config() and patch_model().
    import torch._inductor.config as inductor_config
    from torch._inductor.lowering import lowerings, make_fallback
    if op.default not in lowerings:
        make_fallback(op.default, warn=False)
    mod = Model(w)
    with torch.no_grad(), inductor_config.patch(freezing=True):
        want = mod(x, residual)
        for backend in ["aot_eager", "inductor"]:
            torch._dynamo.reset()
            got = torch.compile(torch.no_grad()(mod.forward), backend=backend,
                                dynamic=False)(x, residual)
            results.append(("model-sglang", backend, same(want, got)))
    for name, backend, ok in results:
        print(f"torch {torch.__version__.split('+')[0]} {name:13s} {backend:9s} "
              f"{'same' if ok else 'differs'}")


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--python", action="append", default=[], help="LABEL=PYTHON")
    args = p.parse_args()
    if not args.python:
        measure()
        return 0
    rc = 0
    for spec in args.python:
        label, _, python = spec.partition("=")
        if not os.path.exists(python):
            print(f"SKIP sglang-chain torch {label}: no venv python ({python})")
            continue
        res = subprocess.run([python, os.path.abspath(__file__)], capture_output=True,
                             text=True)
        sys.stdout.write("".join(l + "\n" for l in res.stdout.splitlines()
                                 if l.startswith("torch ")))
        if res.returncode:
            sys.stdout.write(res.stderr[-2000:])
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())

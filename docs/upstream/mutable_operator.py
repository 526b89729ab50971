"""torch.compile reports requires_grad=False for a tensor that a custom C++
operator wrote into through its mutable (`Tensor(a!)`) argument.

The compiled caller makes a buffer without grad and passes it to an
operator whose kernel writes a value that requires grad into it. Uncompiled,
the buffer requires grad after the call; compiled, the caller reads False on
every backend, so a branch on it drops the gradient. A functional operator
that returns the written tensor keeps the flag. Run: python mutable_operator.py
(builds the operator with torch.utils.cpp_extension.load_inline)
"""
import os
import tempfile

import torch
import torch.utils.cpp_extension

SOURCE = r"""
#include <ATen/ATen.h>
#include <torch/library.h>

void put_rows_(at::Tensor &m, const at::Tensor &v) {
  m.narrow(0, 0, v.size(0)).copy_(v);  // also index_put_, copy_, add_, ...
}
at::Tensor put_rows(const at::Tensor &m, const at::Tensor &v) {
  return m.slice_scatter(v, 0, 0, v.size(0));  // the functional twin
}
TORCH_LIBRARY(upstream_repro, m) {
  m.def("put_rows_(Tensor(a!) m, Tensor v) -> ()", &put_rows_);
  m.def("put_rows(Tensor m, Tensor v) -> Tensor", &put_rows);
}
"""


def mutating(v):
    m = torch.zeros(3, 4)
    torch.ops.upstream_repro.put_rows_(m, v)
    if not m.requires_grad:  # user code that skips work without grad
        m = m.detach()
    return m.sum()


def functional(v):
    m = torch.zeros(3, 4)
    m = torch.ops.upstream_repro.put_rows(m, v)
    if not m.requires_grad:
        m = m.detach()
    return m.sum()


def main():
    build = os.path.join(tempfile.gettempdir(), "upstream_repro-" + torch.__version__)
    os.makedirs(build, exist_ok=True)
    torch.utils.cpp_extension.load_inline(
        "upstream_repro", cpp_sources=SOURCE, is_python_module=False,
        build_directory=build)
    v = torch.randn(2, 4, requires_grad=True)
    lost = True
    for fn in (mutating, functional):
        eager = fn(v).requires_grad
        compiled = {b: torch.compile(fn, backend=b)(v).requires_grad
                    for b in ("eager", "aot_eager", "inductor")}
        print(f"torch {torch.__version__} {fn.__name__}: uncompiled "
              f"requires_grad={eager}, compiled {compiled}")
        if fn is mutating:
            lost = lost and eager and not any(compiled.values())
        else:
            lost = lost and eager and all(compiled.values())
    print("REPRODUCED" if lost else "NOT REPRODUCED")
    return 0 if lost else 1


if __name__ == "__main__":
    raise SystemExit(main())

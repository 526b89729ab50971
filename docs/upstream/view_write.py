"""torch.compile reports requires_grad=False after a write through a view.

A tensor created without grad receives, through a view, values that require
grad. Uncompiled, it requires grad afterwards; compiled, code reading
`requires_grad` sees False, so a branch on it drops the gradient. Setitem
(`m[1:3] = v`) keeps the flag on recent releases; `narrow(...).copy_` and a
named view (`w = m[1:3]; w.copy_(v)`) do not. Run: python view_write.py
"""
import torch


def f(v):
    m = torch.zeros(3, 4)
    m.narrow(0, 1, 2).copy_(v)  # also: w = m[1:3]; w.copy_(v)
    if not m.requires_grad:  # user code that skips work without grad
        m = m.detach()
    return m.sum()


def main():
    v = torch.randn(2, 4, requires_grad=True)
    eager = f(v).requires_grad
    compiled = {b: torch.compile(f, backend=b)(v).requires_grad
                for b in ("eager", "aot_eager", "inductor")}
    print(f"torch {torch.__version__}: uncompiled requires_grad={eager}, "
          f"compiled {compiled}")
    lost = eager and not any(compiled.values())
    print("REPRODUCED" if lost else "NOT REPRODUCED")
    return 0 if lost else 1


if __name__ == "__main__":
    raise SystemExit(main())

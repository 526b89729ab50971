# Schemas declared from Python.
import torch

lib = torch.library.Library("extp", "FRAGMENT")
lib.define("accumulate(Tensor x, Tensor? out=None) -> Tensor")
torch.library.define("extp::grad_into(Tensor(a!) m, Tensor v) -> ()")

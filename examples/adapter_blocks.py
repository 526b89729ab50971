# The seed where training code keeps it: an orthogonal fine-tuning (OFT)
# adapter builds its skew-symmetric matrix with an in-place indexed write
# into torch.zeros, each transformer block is compiled on its own under
# activation checkpointing, and the adapted activations reach a quantized
# matmul written as an autograd.Function (the shape of OneTrainer's OFT
# adapter before its out-of-place fix, pytorch/pytorch#169179).
#
# Nothing reads `requires_grad` here: Dynamo does, at Int8Matmul.apply. On
# torch 2.8.0 (measured: docs/ground-truth.md, paths python_function_opaque
# and python_function_derived, form setitem_adv_) it takes the rotated input
# for one that does not require grad where the block's input does not (a
# frozen model's first block), traces the Function's forward inline and
# never runs its backward: the adapter's weight gets no gradient. torch
# 2.15.0 keeps the flag after setitem.
#
#   python examples/adapter_blocks.py        (with torch: the gradients)
#   torch-tidy-py examples/adapter_blocks.py (the warning and its fix)
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

# For tools/ground-truth/python_twins.py: the write reported, the parameters
# whose gradients count, what compiling does to them (measured).
TWIN = {"write_line": 58, "params": "layers.0.proj.oft",
        "expect": {"2.8.0": "none", "latest": "same"}}


class Int8Matmul(torch.autograd.Function):
    """x @ w.t() with x quantized to int8 on the fly (no autograd in the
    forward, as in a fused kernel); the backward is the float matmul."""

    @staticmethod
    def forward(ctx, x, weight, scale):
        ctx.save_for_backward(weight, scale)
        with torch.no_grad():
            q = torch.round(x / scale).clamp(-127, 127)
            return (q @ weight.t()) * scale

    @staticmethod
    def backward(ctx, grad):
        weight, scale = ctx.saved_tensors
        grad_x = grad @ weight if ctx.needs_input_grad[0] else None
        return grad_x, None, None


class OFTRotation(nn.Module):
    def __init__(self, blocks, block_size):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(blocks, block_size * (block_size - 1) // 2) * 0.1)
        rows, cols = torch.triu_indices(block_size, block_size, 1)
        self.register_buffer("rows", rows, persistent=False)
        self.register_buffer("cols", cols, persistent=False)
        self.block_size = block_size

    def _skew_symmetric(self, vec):
        matrix = torch.zeros(vec.shape[0], self.block_size, self.block_size,
                             device=vec.device, dtype=vec.dtype)
        matrix[:, self.rows, self.cols] = vec
        return matrix - matrix.transpose(-2, -1)

    def forward(self, x):
        q = self._skew_symmetric(self.weight)
        eye = torch.eye(self.block_size, dtype=q.dtype).expand_as(q)
        rotation = torch.linalg.solve(eye + q, eye - q)
        blocks = x.view(x.shape[0], -1, self.block_size)
        return torch.einsum("bnk,nkj->bnj", blocks, rotation).reshape(x.shape)


class QuantLinear(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("weight", torch.randn(features, features))
        self.register_buffer("scale", torch.tensor(0.01))
        self.oft = OFTRotation(features // 4, 4)

    def forward(self, x):
        return Int8Matmul.apply(self.oft(x), self.weight, self.scale)


class Block(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.proj = QuantLinear(features)

    def forward(self, x):
        return checkpoint(self.proj, x, use_reentrant=False)


class Model(nn.Module):
    def __init__(self, features=8, depth=2):
        super().__init__()
        self.layers = nn.ModuleList([Block(features) for _ in range(depth)])
        self.head = nn.Linear(features, 1)  # trained too: the loss requires grad

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.head(x)


def setup():
    torch.manual_seed(0)
    return Model(), (torch.randn(4, 8),)  # a frozen model's activations: no grad


def compile_model(model, backend):
    for block in model.layers:
        block.compile(backend=backend)


def train_step(model, x):
    model.zero_grad()
    model(x).sum().backward()
    grad = model.layers[0].proj.oft.weight.grad
    return None if grad is None else grad.clone()


def main():
    model, (x,) = setup()
    eager = train_step(model, x)
    compile_model(model, "aot_eager")
    compiled = train_step(model, x)
    print(f"torch {torch.__version__}: the first adapter's weight gradient, uncompiled: "
          f"{'none' if eager is None else 'computed'}; compiled: "
          + ("none" if compiled is None else
             "the same" if torch.allclose(compiled, eager) else "different"))


if __name__ == "__main__":
    main()

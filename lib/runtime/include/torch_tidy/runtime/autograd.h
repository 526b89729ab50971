// Tape-based reverse-mode autograd, micrograd-style: an op records one Node
// whose backward closure sits next to the op's forward code.
#pragma once

#include "torch_tidy/runtime/tensor.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace torch_tidy::runtime {

/// Where a gradient flows: the node that produced a tensor (or a leaf's
/// accumulator). A null node means "does not require grad".
struct Edge {
  std::shared_ptr<Node> node;
  Shape sizes; // of the input, to check and reduce incoming gradients
  DType dtype = DType::Float32;
  bool valid() const { return node != nullptr; }
};

/// Maps the gradient of an op's output to one gradient per input (an
/// undefined Tensor means zero).
using BackwardFn = std::function<std::vector<Tensor>(const Tensor &grad)>;

class Node {
public:
  Node(std::string name, std::vector<Edge> next, BackwardFn backward)
      : name_(std::move(name)), next_(std::move(next)),
        backward_(std::move(backward)) {}
  virtual ~Node() = default;

  const std::string &name() const { return name_; }
  const std::vector<Edge> &next_edges() const { return next_; }
  virtual std::vector<Tensor> apply(const Tensor &grad) {
    return backward_(grad);
  }

private:
  std::string name_;
  std::vector<Edge> next_;
  BackwardFn backward_;
};

/// A tensor kept for backward with the version it had, so a later in-place
/// write is reported instead of silently giving wrong gradients.
class SavedTensor {
public:
  SavedTensor() = default;
  explicit SavedTensor(const Tensor &tensor);
  Tensor unpack() const;

private:
  Tensor tensor_;
  std::int64_t version_ = 0;
};

/// The edge gradients of `tensor` flow into.
Edge gradient_edge(const Tensor &tensor);
/// True when grad mode is on and some input requires grad.
bool any_requires_grad(const std::vector<Tensor> &inputs);

/// Attaches history to the result of an out-of-place op.
void record(Tensor &output, const char *name, const std::vector<Tensor> &inputs,
            BackwardFn backward);

/// Attaches history to `self` after an in-place write. backward returns
/// {grad of self's old value, grads of other_inputs...}. When self is a view,
/// the base's history is rebased with a CopySlices node, as PyTorch does.
void record_inplace(Tensor &self, const char *name,
                    const std::vector<Tensor> &other_inputs,
                    BackwardFn backward);

/// After an in-place op called on `self`: in ExecutionMode::CompiledNewest
/// the flag compiled code reads for `self` is refreshed (the newest torch
/// refreshes a tensor's metadata after an in-place op on it, not its base's
/// after a write through a view). record_inplace calls it.
void note_inplace_write(Tensor &self);

/// Rejects in-place writes autograd cannot represent (leaves that require
/// grad, views of them) and bumps the version counter.
void check_inplace(const Tensor &self);

/// Gradients of the scalar `output` with respect to `inputs`. Unused inputs
/// are an error unless allow_unused, then they get an undefined Tensor.
std::vector<Tensor> grad(const Tensor &output,
                         const std::vector<Tensor> &inputs,
                         bool allow_unused = false);

} // namespace torch_tidy::runtime

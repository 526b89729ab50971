// Recording history (including CopySlices for writes into views) and the
// backward pass behind grad().
#include "internal.h"

#include "torch_tidy/runtime/mode.h"

#include <functional>
#include <unordered_map>
#include <unordered_set>

namespace torch_tidy::runtime {

using detail::empty_strided;

SavedTensor::SavedTensor(const Tensor &tensor)
    : tensor_(tensor), version_(tensor.defined() ? tensor.version() : 0) {}

Tensor SavedTensor::unpack() const {
  TT_CHECK(!tensor_.defined() || tensor_.version() == version_,
           "one of the variables needed for gradient computation has been "
           "modified by an inplace operation: is at version ",
           tensor_.version(), "; expected version ", version_, " instead.");
  return tensor_;
}

Edge gradient_edge(const Tensor &tensor) {
  Edge edge{nullptr, tensor.sizes(), tensor.dtype()};
  TensorImpl &impl = tensor.impl();
  if (auto fn = tensor.grad_fn()) {
    edge.node = fn;
  } else if (impl.leaf_requires_grad) {
    // A leaf's gradient is collected by its accumulator node.
    if (!impl.accumulator)
      impl.accumulator = std::make_shared<Node>(
          "AccumulateGrad", std::vector<Edge>{},
          [](const Tensor &) { return std::vector<Tensor>{}; });
    edge.node = impl.accumulator;
  }
  return edge;
}

bool any_requires_grad(const std::vector<Tensor> &inputs) {
  if (!grad_mode_enabled())
    return false;
  for (const Tensor &t : inputs)
    if (t.defined() && t.requires_grad_eager())
      return true;
  return false;
}

static std::vector<Edge> edges_of(const std::vector<Tensor> &inputs) {
  std::vector<Edge> edges;
  for (const Tensor &t : inputs)
    edges.push_back(t.defined() ? gradient_edge(t) : Edge{});
  return edges;
}

void record(Tensor &output, const char *name, const std::vector<Tensor> &inputs,
            BackwardFn backward) {
  // Integer and bool results are not differentiable, as in PyTorch.
  if (!any_requires_grad(inputs) || !is_floating(output.dtype()))
    return;
  TensorImpl &impl = output.impl();
  impl.grad_fn =
      std::make_shared<Node>(name, edges_of(inputs), std::move(backward));
  impl.grad_fn_version = output.version();
  impl.requires_grad_at_creation = true;
}

void check_inplace(const Tensor &self) {
  if (grad_mode_enabled()) {
    const TensorImpl &impl = self.impl();
    TT_CHECK(
        !(impl.base == nullptr && self.is_leaf() && impl.leaf_requires_grad),
        "a leaf Variable that requires grad is being used in an "
        "in-place operation.");
    TT_CHECK(!(impl.base && impl.base->grad_fn == nullptr &&
               impl.base->leaf_requires_grad),
             "a view of a leaf Variable that requires grad is being used in "
             "an in-place operation.");
  }
}

// CopySlices: the base's new history. The write's own backward runs on the
// slice of the base's gradient where the view lives; the rest of the base's
// gradient flows to the base's previous history unchanged.
static std::shared_ptr<Node> make_copy_slices(const Tensor &base,
                                              const Tensor &view,
                                              std::vector<Edge> edges,
                                              BackwardFn write_backward) {
  Shape base_sizes = base.sizes(), base_strides = base.strides();
  Shape view_sizes = view.sizes(), view_strides = view.strides();
  std::int64_t view_offset = view.storage_offset() - base.storage_offset();
  bool base_needs_grad = edges[0].valid();
  return std::make_shared<Node>(
      "CopySlices", std::move(edges), [=](const Tensor &grad) {
        Tensor result = empty_strided(base_sizes, base_strides, grad.dtype(),
                                      grad.device());
        result.copy_(grad);
        Tensor grad_slice =
            result.as_strided(view_sizes, view_strides, view_offset);
        std::vector<Tensor> grads = write_backward(grad_slice.clone());
        // As PyTorch: the base's own gradient is only formed when its old
        // history needs one, and then through copy_ (which rejects a view
        // whose elements alias).
        if (!base_needs_grad) {
          grads[0] = Tensor();
          return grads;
        }
        grad_slice.copy_(grads[0].defined() ? grads[0]
                                            : zeros_like(grad_slice));
        grads[0] = result;
        return grads;
      });
}

static void record_inplace_history(Tensor &self, const char *name,
                                   const std::vector<Tensor> &other_inputs,
                                   BackwardFn backward) {
  self.impl().storage->bump_version();
  std::vector<Tensor> inputs = other_inputs;
  inputs.insert(inputs.begin(), self);
  if (!any_requires_grad(inputs) || !is_floating(self.dtype()))
    return;
  std::vector<Edge> edges = edges_of(other_inputs);
  if (!self.is_view()) {
    edges.insert(edges.begin(), gradient_edge(self));
    self.impl().grad_fn =
        std::make_shared<Node>(name, std::move(edges), std::move(backward));
    self.impl().grad_fn_version = self.version();
    return;
  }
  Tensor base(self.impl().base);
  edges.insert(edges.begin(), gradient_edge(base));
  base.impl().grad_fn =
      make_copy_slices(base, self, std::move(edges), std::move(backward));
  base.impl().grad_fn_version = base.version();
  // The view's history now comes from the base; Tensor::grad_fn() rebuilds
  // it on next use because the versions differ.
  self.impl().grad_fn_version = -1;
}

void note_inplace_write(Tensor &self) {
  if (execution_mode() == ExecutionMode::CompiledNewest)
    self.impl().requires_grad_at_creation = self.requires_grad_eager();
}

void record_inplace(Tensor &self, const char *name,
                    const std::vector<Tensor> &other_inputs,
                    BackwardFn backward) {
  record_inplace_history(self, name, other_inputs, std::move(backward));
  note_inplace_write(self);
}

std::shared_ptr<Node> detail::make_view_of_base_node(const Tensor &base,
                                                     const Tensor &view) {
  Shape base_sizes = base.sizes(), base_strides = base.strides();
  Shape view_sizes = view.sizes(), view_strides = view.strides();
  std::int64_t view_offset = view.storage_offset() - base.storage_offset();
  return std::make_shared<Node>(
      "AsStridedBackward", std::vector<Edge>{gradient_edge(base)},
      [=](const Tensor &grad) {
        Tensor result = empty_strided(base_sizes, base_strides, grad.dtype(),
                                      grad.device());
        result.fill_(0);
        // Accumulate: an expanded view maps several elements to one.
        Tensor slot = result.as_strided(view_sizes, view_strides, view_offset);
        backend_for(grad.device())
            .accumulate(slot.ref(), grad.contiguous().ref());
        return std::vector<Tensor>{result};
      });
}

namespace {

// Checks one gradient against its input's metadata and reduces broadcast
// dims, as PyTorch's validate_outputs does.
Tensor validate_gradient(const Node &node, std::size_t i, Tensor grad) {
  const Edge &edge = node.next_edges()[i];
  if (grad.sizes() != edge.sizes) {
    const Shape &want = edge.sizes;
    const Shape &got = grad.sizes();
    bool expandable = want.size() <= got.size();
    for (std::size_t k = 0; expandable && k < want.size(); ++k) {
      std::int64_t w = want[want.size() - 1 - k], g = got[got.size() - 1 - k];
      expandable = w == g || w == 1;
    }
    TT_CHECK(expandable, "Function ", node.name(),
             " returned an invalid gradient at index ", i, " - got ",
             detail::to_string(got), " but expected shape compatible with ",
             detail::to_string(want));
    grad = grad.sum_to(want);
  }
  return grad.dtype() == edge.dtype ? grad : grad.to(edge.dtype);
}

} // namespace

std::vector<Tensor> grad(const Tensor &output,
                         const std::vector<Tensor> &inputs, bool allow_unused) {
  TT_CHECK(output.requires_grad_eager(), "element 0 of tensors does not "
                                         "require grad and does not have a "
                                         "grad_fn");
  TT_CHECK(output.numel() == 1,
           "grad can be implicitly created only for scalar outputs");
  NoGradGuard no_grad;

  std::vector<Node *> targets;
  for (const Tensor &input : inputs) {
    Edge edge = gradient_edge(input);
    TT_CHECK(edge.valid(), "One of the differentiated Tensors does not "
                           "require grad");
    targets.push_back(edge.node.get());
  }
  std::unordered_set<Node *> target_set(targets.begin(), targets.end());

  // Post-order walk; a node is needed when a target is at or below it.
  std::shared_ptr<Node> root = gradient_edge(output).node;
  std::vector<Node *> post_order;
  std::unordered_map<Node *, bool> needed;
  std::function<bool(Node *)> visit = [&](Node *node) {
    auto found = needed.find(node);
    if (found != needed.end())
      return found->second;
    needed[node] = false;
    bool below = false;
    for (const Edge &edge : node->next_edges())
      if (edge.valid())
        below = visit(edge.node.get()) || below;
    post_order.push_back(node);
    return needed[node] = below || target_set.count(node) > 0;
  };
  visit(root.get());

  std::unordered_map<Node *, Tensor> pending; // summed incoming gradients
  std::unordered_map<Node *, Tensor> captured;
  Tensor seed = empty(output.sizes(), {output.dtype(), output.device()});
  seed.fill_(1);
  pending[root.get()] = seed;
  // Reverse post-order is a topological order from the output down.
  for (auto it = post_order.rbegin(); it != post_order.rend(); ++it) {
    Node *node = *it;
    Tensor incoming = pending[node];
    if (!needed[node] || !incoming.defined())
      continue;
    if (target_set.count(node))
      captured[node] = incoming;
    bool feeds_target = false;
    for (const Edge &edge : node->next_edges())
      feeds_target = feeds_target || (edge.valid() && needed[edge.node.get()]);
    if (!feeds_target)
      continue;
    std::vector<Tensor> grads = node->apply(incoming);
    for (std::size_t i = 0; i < node->next_edges().size(); ++i) {
      const Edge &edge = node->next_edges()[i];
      if (!edge.valid() || !needed[edge.node.get()] || !grads[i].defined())
        continue;
      Tensor g = validate_gradient(*node, i, grads[i]);
      Tensor &slot = pending[edge.node.get()];
      slot = slot.defined() ? slot.add(g) : g;
    }
  }

  std::vector<Tensor> result;
  for (Node *target : targets) {
    auto found = captured.find(target);
    TT_CHECK(found != captured.end() || allow_unused,
             "One of the differentiated Tensors appears to not have been used "
             "in the graph. Set allow_unused=True if this is the desired "
             "behavior.");
    result.push_back(found != captured.end() ? found->second : Tensor());
  }
  return result;
}

} // namespace torch_tidy::runtime

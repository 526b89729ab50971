// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.RegionMode: all}}"
// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t-named \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.CompiledFunctions: 'named_.*'}}" \
// RUN:   --check-suffix=NAMED
// The benign classes of the public corpus (docs/reliability.md), with
// `RegionMode: all`: code that runs with grad mode off (custom autograd
// Functions, explicit backward functions, helpers called only under a
// no-grad guard) and buffers handed to raw kernels are quiet; targets made
// fresh by a later assignment and values tied with std::tie are reported.
#include <torch/torch.h>
#include <tuple>
using torch::indexing::Slice;

// Custom autograd Function: LibTorch runs forward with grad mode off, and
// backward with it off unless a higher-order graph is asked for.
struct Scale : public torch::autograd::Function<Scale> {
  static at::Tensor forward(torch::autograd::AutogradContext *ctx,
                            at::Tensor v) {
    auto out = torch::zeros({3});
    out.index_put_({Slice(0, 2)}, v);
    auto inner = [&] {
      auto o = torch::zeros({3});
      o.index_put_({Slice(0, 2)}, v);
      return o;
    };
    return inner();
  }
  static torch::autograd::variable_list
  backward(torch::autograd::AutogradContext *ctx,
           torch::autograd::variable_list grads) {
    auto g = torch::zeros({3});
    g.index_put_({Slice(0, 2)}, grads[0]);
    return {g};
  }
  // Another method of the class is an ordinary function.
  static at::Tensor helper(at::Tensor v) {
    auto out = torch::zeros({3});
    out.index_put_({Slice(0, 2)}, v);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_put_ into 'out'
    return out;
  }
};

// Explicit backward functions, by name.
at::Tensor my_op_backward(const at::Tensor &grad) {
  auto gi = torch::zeros({3});
  gi.index_put_({Slice(0, 2)}, grad);
  return gi;
}
at::Tensor attn_bwd_kernel(const at::Tensor &grad) {
  auto gi = torch::zeros({3});
  gi.index_put_({Slice(0, 2)}, grad);
  return gi;
}

// A helper whose every call runs under a no-grad guard or from a backward.
at::Tensor fill_rows(const at::Tensor &v) {
  auto out = torch::zeros({3});
  out.index_put_({Slice(0, 2)}, v);
  return out;
}
at::Tensor infer(const at::Tensor &v) {
  torch::NoGradGuard guard;
  return fill_rows(v);
}
at::Tensor grad_of_fill_backward(const at::Tensor &v) { return fill_rows(v); }

// One call with grad on is enough to keep the helper.
at::Tensor fill_cols(const at::Tensor &v) {
  auto out = torch::zeros({3});
  out.index_put_({Slice(0, 2)}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'out'
  return out;
}
at::Tensor infer_cols(const at::Tensor &v) {
  torch::NoGradGuard guard;
  return fill_cols(v);
}
at::Tensor train_cols(const at::Tensor &v) { return fill_cols(v); }

// A buffer handed to a raw kernel through data_ptr or an accessor.
void raw_kernel(float *p);
at::Tensor raw(const at::Tensor &v) {
  auto out = torch::zeros({3});
  out.index_put_({Slice(0, 2)}, v);
  raw_kernel(out.data_ptr<float>());
  auto acc_out = torch::zeros({3});
  acc_out.index_put_({Slice(0, 2)}, v);
  auto a = acc_out.accessor<float, 1>();
  // Another tensor of the same function is still reported.
  auto other = torch::zeros({3});
  other.index_put_({Slice(0, 2)}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'other'
  return out + acc_out + other;
}

// Fresh by an assignment after the declaration.
at::Tensor late(const at::Tensor &v, torch::Device dev) {
  torch::Tensor a, b;
  a = torch::zeros({3, 4}).to(dev);
  a.index_put_({Slice(0, 2)}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'a'
  return a;
}

// Values tied with std::tie may require grad.
std::tuple<at::Tensor, at::Tensor> split_two(const at::Tensor &x);
at::Tensor tied(const at::Tensor &x) {
  torch::Tensor p, q;
  std::tie(p, q) = split_two(x);
  auto out = torch::zeros({3});
  out.index_put_({Slice(0, 1)}, p);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'out'
  return out;
}

// A function the user names stays a region even when it is a backward.
at::Tensor named_backward(const at::Tensor &grad) {
  auto gi = torch::zeros({3});
  gi.index_put_({Slice(0, 2)}, grad);
  // CHECK-MESSAGES-NAMED: :[[@LINE-1]]:3: warning: in-place index_put_ into 'gi'
  return gi;
}

// Numbers read from a tensor carry no grad: a tensor built from them on the
// host does not either (koba-jon/pytorch_cpp's YOLO losses in the corpus).
at::Tensor gains(const at::Tensor &input, const at::Tensor &v) {
  auto gain = torch::ones({7});
  auto xyxy = torch::tensor({(double)input.size(2), (double)input.size(1)});
  gain.index_put_({Slice(2, 4)}, xyxy);
  gain.index_put_({Slice(0, 2)}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'gain'
  return gain;
}

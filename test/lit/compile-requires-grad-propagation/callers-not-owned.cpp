// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.RegionMode: all}}" \
// RUN:   -- -I%inputs
// In-file calls decide whether a function runs with grad off, or whether a
// value with grad reaches its parameters, only where no other file can
// call it: static functions, functions in an anonymous namespace, free
// functions declared nowhere else, private or protected members of a class
// defined here, lambdas. A function declared in a header, a public or
// virtual member, `extern "C"` and exported functions have callers this
// file does not show, so the calls it shows (under NoGradGuard here, with
// values without grad) prove nothing.
#include "splat-model.h"
#include <torch/torch.h>
using torch::indexing::Slice;

// Declared in the header and called elsewhere with grad on: reported,
// although the one call here is under NoGradGuard.
at::Tensor GaussianModel::forward(const at::Tensor &means) {
  auto cov = torch::zeros({3, 3}, means.options());
  cov.index_put_({Slice(0, 2)}, means * scales);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'cov'
  return cov;
}
at::Tensor render(const at::Tensor &means) {
  auto image = torch::zeros({3}, means.options());
  image.index({Slice(0, 2)}) = means;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'image'
  return image;
}

// An image-captioning decoder: a buffer made on the features' device, filled
// step by step with the output of a layer (a member, so it may require
// grad); public, so the training code elsewhere calls it with grad on.
struct Linear {
  at::Tensor operator()(const at::Tensor &x) const;
};
struct Decoder {
  Linear head;
  at::Tensor forward(const at::Tensor &features, int64_t steps, int64_t vocab) {
    auto outputs = torch::zeros({features.size(0), steps, vocab}, features.device());
    auto hidden = features;
    for (int64_t t = 0; t < steps; ++t) {
      auto logits = head(hidden);
      outputs.index_put_({Slice(), t}, logits);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: in-place index_put_ into 'outputs'
      hidden = logits;
    }
    return outputs;
  }
};

// Owned by this file: judged by the calls below, all under NoGradGuard.
static at::Tensor by_static(const at::Tensor &v) {
  auto out = torch::zeros({3});
  out.index_put_({Slice(0, 2)}, v);
  return out;
}
namespace {
at::Tensor in_anonymous_namespace(const at::Tensor &v) {
  auto out = torch::zeros({3});
  out.index_put_({Slice(0, 2)}, v);
  return out;
}
} // namespace
at::Tensor declared_nowhere_else(const at::Tensor &v) {
  auto out = torch::zeros({3});
  out.index_put_({Slice(0, 2)}, v);
  return out;
}

class Local {
public:
  at::Tensor run(const at::Tensor &v) {
    torch::NoGradGuard guard;
    return step(v) + shared(v);
  }
  // Public: callable wherever Local is; judged as a region.
  at::Tensor shared(const at::Tensor &v) {
    auto out = torch::zeros({3});
    out.index_put_({Slice(0, 2)}, v);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_put_ into 'out'
    return out;
  }
  // Virtual: an override elsewhere may call it.
  virtual at::Tensor hook(const at::Tensor &v) {
    auto out = torch::zeros({3});
    out.index_put_({Slice(0, 2)}, v);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_put_ into 'out'
    return out;
  }

private:
  // Private, of a class defined here: only this file calls it.
  at::Tensor step(const at::Tensor &v) {
    auto out = torch::zeros({3});
    out.index_put_({Slice(0, 2)}, v);
    return out;
  }
};

extern "C" void c_entry(at::Tensor *v) {
  auto out = torch::zeros({3});
  out.index_put_({Slice(0, 2)}, *v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'out'
}
__attribute__((visibility("default"))) at::Tensor exported(const at::Tensor &v) {
  auto out = torch::zeros({3});
  out.index_put_({Slice(0, 2)}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'out'
  return out;
}

// Callers decide the grad of a value that comes only through parameters
// only for functions this file owns: here every call passes host data.
at::Tensor corr_public(const at::Tensor &X, const at::Tensor &K);
struct Textbook {
  static at::Tensor corr(const at::Tensor &X, const at::Tensor &K) {
    auto Y = torch::zeros({2});
    Y.index_put_({0}, (X * K).sum());
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_put_ into 'Y'
    return Y;
  }
};
static at::Tensor corr_static(const at::Tensor &X, const at::Tensor &K) {
  auto Y = torch::zeros({2});
  Y.index_put_({0}, (X * K).sum());
  return Y;
}

int main() {
  auto host = torch::tensor({1.0, 2.0});
  {
    torch::NoGradGuard guard;
    GaussianModel model;
    model.forward(host);
    Decoder().forward(host, 3, 5);
    render(host);
    by_static(host);
    in_anonymous_namespace(host);
    declared_nowhere_else(host);
    Local().run(host);
    Local().hook(host);
    c_entry(&host);
    exported(host);
  }
  Textbook::corr(host, host);
  corr_static(host, host);
  return 0;
}

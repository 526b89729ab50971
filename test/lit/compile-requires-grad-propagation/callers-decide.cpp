// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.RegionMode: all}}" \
// RUN:   -- -I%inputs
// A helper writing a parameter into a fresh local: the value carries grad
// only if a caller's argument does. When the file shows every call of the
// helper (declared only here, never named except to call it) and each
// passes a value without grad, the write is quiet; one call with a value
// that may require grad, an escaping helper or a helper declared in a
// header keeps it reported (the corpus class: textbook helpers such as
// corr2d(X, K) called from main() with tensors built from host numbers).
#include "callers-decide.h"
#include <torch/torch.h>
using torch::indexing::Slice;

torch::Tensor corr(torch::Tensor X, torch::Tensor K) {
  auto Y = torch::zeros({2});
  Y.index_put_({0}, (X * K).sum());
  return Y;
}

// Passes its own parameter on: quiet when its callers pass no grad.
torch::Tensor relay(torch::Tensor X) { return corr(X, X); }

torch::Tensor fromModel(torch::Tensor X, torch::Tensor K) {
  auto Y = torch::zeros({2});
  Y.index_put_({0}, (X * K).sum());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index_put_ into 'Y'
  return Y;
}

torch::Tensor escapes(torch::Tensor X) {
  auto Y = torch::zeros({2});
  Y.index({Slice(0, 1)}) = X;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'Y'
  return Y;
}

torch::Tensor neverCalled(torch::Tensor X) {
  auto Y = torch::zeros({2});
  Y.index({Slice(0, 1)}) = X;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'Y'
  return Y;
}

torch::Tensor declaredInHeader(torch::Tensor X) {
  auto Y = torch::zeros({2});
  Y.index({Slice(0, 1)}) = X;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place index(...) assignment into 'Y'
  return Y;
}

int main() {
  auto X = torch::tensor({1.0, 2.0});
  auto K = torch::ones({2});
  corr(X, K);
  corr(torch::zeros({2}), X.detach());
  relay(X);
  {
    torch::NoGradGuard Guard;
    auto W = torch::randn({2}, torch::requires_grad());
    corr(W, W);
  }
  auto W = torch::randn({2}, torch::requires_grad());
  fromModel(X, K);
  fromModel(X, W);
  escapes(X);
  auto *F = &escapes;
  declaredInHeader(X);
  return F != nullptr;
}

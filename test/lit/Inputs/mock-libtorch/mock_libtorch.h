// A small stand-in for LibTorch's headers, so lit tests parse in milliseconds.
// It mirrors the real declarations torch-tidy matches on: the namespaces
// (at, c10, torch, torch::indexing), the at::Tensor methods and overloads, the
// factories, the guard types and the shape of the TORCH_LIBRARY* macros. The
// integration suite checks the same rules against the real headers.
#pragma once
#include "mock_aten.h"

// torch:: re-exports ATen and adds its own variable factories, as the real
// torch/csrc/autograd/generated/variable_factories.h does.
namespace torch {
using namespace at;
using at::Tensor;
using c10::DispatchKey;
namespace indexing = at::indexing;
Tensor zeros(at::IntArrayRef size, at::TensorOptions options = {});
Tensor ones(at::IntArrayRef size, at::TensorOptions options = {});
Tensor empty(at::IntArrayRef size, at::TensorOptions options = {});
Tensor full(at::IntArrayRef size, const at::Scalar &v,
            at::TensorOptions options = {});
Tensor randn(at::IntArrayRef size, at::TensorOptions options = {});
Tensor eye(int64_t n, at::TensorOptions options = {});
Tensor zeros_like(const Tensor &t, at::TensorOptions options = {});
Tensor empty_like(const Tensor &t, at::TensorOptions options = {});
Tensor ones_like(const Tensor &t, at::TensorOptions options = {});
Tensor arange(const at::Scalar &end, at::TensorOptions options = {});
Tensor tensor(at::ArrayRef<double> values, at::TensorOptions options = {});
using NoGradGuard = at::NoGradGuard;
using AutoGradMode = at::AutoGradMode;
namespace autograd {
using Variable = at::Tensor;
using variable_list = std::vector<Variable>;
struct AutogradContext {
  void save_for_backward(variable_list to_save);
  variable_list get_saved_variables() const;
};
// Custom autograd functions: struct F : Function<F> { static ... forward(
// AutogradContext *, ...); static variable_list backward(AutogradContext *,
// variable_list); }; F::apply(...).
template <class T> struct Function {
  template <typename... Args> static auto apply(Args &&...args) {
    return T::forward(static_cast<AutogradContext *>(nullptr),
                      std::forward<Args>(args)...);
  }
};
} // namespace autograd

} // namespace torch

#include "mock_torch_library.h"

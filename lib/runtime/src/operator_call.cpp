// Calling a C++ operator from compiled code.
#include "torch_tidy/runtime/operator_call.h"

#include "torch_tidy/runtime/mode.h"

namespace torch_tidy::runtime {

void call_operator(const std::function<void()> &kernel) {
  ModeGuard eager(ExecutionMode::Eager);
  kernel();
  // Nothing is refreshed: the caller's snapshot of every argument stays.
}

Tensor call_operator_returning(const std::function<Tensor()> &kernel) {
  Tensor result;
  {
    ModeGuard eager(ExecutionMode::Eager);
    result = kernel();
  }
  if (result.defined())
    result.impl().requires_grad_at_creation = result.requires_grad_eager();
  return result;
}

} // namespace torch_tidy::runtime

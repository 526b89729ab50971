// Execution modes: eager (PyTorch's eager semantics) and compiled (what
// Dynamo reports, DESIGN.md section 6).
#pragma once

namespace torch_tidy::runtime {

enum class ExecutionMode { Eager, Compiled };

/// In Compiled mode Tensor::requires_grad() reports the value taken when the
/// tensor was created and is not refreshed by in-place writes (Dynamo keeps
/// its own metadata copy). Values and the autograd graph are unchanged.
ExecutionMode execution_mode();

/// Sets the mode for the current thread for the guard's lifetime.
class ModeGuard {
public:
  explicit ModeGuard(ExecutionMode mode);
  ~ModeGuard();
  ModeGuard(const ModeGuard &) = delete;
  ModeGuard &operator=(const ModeGuard &) = delete;

private:
  ExecutionMode previous_;
};

/// Whether ops record history (torch::NoGradGuard's switch).
bool grad_mode_enabled();
class NoGradGuard {
public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard &) = delete;
  NoGradGuard &operator=(const NoGradGuard &) = delete;

private:
  bool previous_;
};

} // namespace torch_tidy::runtime

// Execution modes: eager (PyTorch's eager semantics) and compiled (what
// Dynamo reports, docs/design.md section 4).
#pragma once

namespace torch_tidy::runtime {

/// Eager: PyTorch's eager semantics.
/// Compiled: what code traced by torch.compile sees on torch 2.8.0 (the
///   version the bug was reported on): Tensor::requires_grad() reports the
///   value taken when the tensor was created and is not refreshed by in-place
///   writes (Dynamo keeps its own metadata copy).
/// CompiledNewest: the newest torch measured (docs/ground-truth.md): the
///   value is refreshed after an in-place op on the tensor itself (setitem,
///   index_copy_, ...), not after a write through a view of it
///   (t.narrow(...).copy_(v), a named view), and never by an operator's
///   write into its mutable argument (call_operator).
/// Values and the autograd graph are the same in every mode.
enum class ExecutionMode { Eager, Compiled, CompiledNewest };

ExecutionMode execution_mode();
/// Compiled or CompiledNewest.
bool is_compiled_mode();

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

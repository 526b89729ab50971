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

/// Which torch's eager semantics the runtime follows where torch versions
/// differ (the differential suite compares it with the LibTorch it links;
/// the fixes are verified under the reference's, 2.8). The rules that
/// changed, each with the versions measured:
///  - a boolean mask followed by more indices: torch 2.8 gives the mask one
///    slot when it applies the basic indices, so an index after a
///    multi-dim mask applies one dim further left; torch 2.11 and 2.15
///    (measured) give it one slot per mask dim, as NumPy does. 2.9 and 2.10
///    are unmeasured and follow 2.8.
///  - clamp(self, min=tensor)'s gradient at a tie: torch 2.8 and 2.11
///    (measured) give self all of it and min none; torch 2.15 (measured)
///    computes it as torch.maximum's, half each (a NaN: each all of it).
///    2.12 to 2.14 are unmeasured and follow 2.11.
struct TorchSemantics {
  int major = 2, minor = 8;
  bool mask_takes_each_dim() const;
  bool clamp_splits_ties() const;
};

TorchSemantics torch_semantics();

/// Sets the semantics for the current thread for the guard's lifetime.
class SemanticsGuard {
public:
  explicit SemanticsGuard(TorchSemantics semantics);
  ~SemanticsGuard();
  SemanticsGuard(const SemanticsGuard &) = delete;
  SemanticsGuard &operator=(const SemanticsGuard &) = delete;

private:
  TorchSemantics previous_;
};

} // namespace torch_tidy::runtime

#include "torch_tidy/runtime/mode.h"

namespace torch_tidy::runtime {

namespace {
thread_local ExecutionMode current_mode = ExecutionMode::Eager;
thread_local bool grad_enabled = true;
thread_local TorchSemantics current_semantics;

bool at_least(const TorchSemantics &s, int major, int minor) {
  return s.major > major || (s.major == major && s.minor >= minor);
}
} // namespace

ExecutionMode execution_mode() { return current_mode; }
bool is_compiled_mode() { return current_mode != ExecutionMode::Eager; }

ModeGuard::ModeGuard(ExecutionMode mode) : previous_(current_mode) {
  current_mode = mode;
}
ModeGuard::~ModeGuard() { current_mode = previous_; }

bool grad_mode_enabled() { return grad_enabled; }

NoGradGuard::NoGradGuard() : previous_(grad_enabled) { grad_enabled = false; }
NoGradGuard::~NoGradGuard() { grad_enabled = previous_; }

bool TorchSemantics::mask_takes_each_dim() const {
  return at_least(*this, 2, 11);
}
bool TorchSemantics::clamp_splits_ties() const {
  return at_least(*this, 2, 15);
}

TorchSemantics torch_semantics() { return current_semantics; }

SemanticsGuard::SemanticsGuard(TorchSemantics semantics)
    : previous_(current_semantics) {
  current_semantics = semantics;
}
SemanticsGuard::~SemanticsGuard() { current_semantics = previous_; }

} // namespace torch_tidy::runtime

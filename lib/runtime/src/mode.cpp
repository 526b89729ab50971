#include "torch_tidy/runtime/mode.h"

namespace torch_tidy::runtime {

namespace {
thread_local ExecutionMode current_mode = ExecutionMode::Eager;
thread_local bool grad_enabled = true;
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

} // namespace torch_tidy::runtime

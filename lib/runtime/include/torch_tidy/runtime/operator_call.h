// Calling a C++ operator from compiled code: how the caller sees an
// operator's writes into its mutable (`Tensor(a!)`) arguments and the
// tensors it returns (docs/ground-truth.md, paths cpp_composite and
// cpp_mutable_*).
#pragma once

#include "torch_tidy/runtime/tensor.h"

#include <functional>

namespace torch_tidy::runtime {

/// Runs `kernel` as the body of an operator called from the current mode.
/// The kernel runs with eager semantics whatever the mode: torch.compile
/// runs an operator on fake tensors under real autograd, so a kernel reads
/// the right requires_grad (measured: C++ kernel bodies see it on every
/// version). The caller's own tensors that the kernel writes into (its
/// mutable arguments) keep the requires_grad() the caller saw before the
/// call in both compiled modes: measured lost on torch 2.8.0 and the newest
/// torch, for every write form and kernel key. Values and gradients are
/// eager's.
void call_operator(const std::function<void()> &kernel);

/// The same for an operator that returns a tensor: the result is new to
/// the caller, so its requires_grad() is taken when the call returns
/// (measured: a functional twin, which returns the written copy, keeps the
/// flag everywhere).
Tensor call_operator_returning(const std::function<Tensor()> &kernel);

} // namespace torch_tidy::runtime

//===- NoGradScope.h - Is a statement under a no-grad guard? ---*- C++ -*-===//
#ifndef TORCH_TIDY_ANALYSIS_NOGRADSCOPE_H
#define TORCH_TIDY_ANALYSIS_NOGRADSCOPE_H

namespace clang {
class ParentMap;
class Stmt;
} // namespace clang

namespace torch_tidy {

/// True if a guard that disables autograd (torch::NoGradGuard,
/// at::AutoGradMode(false), c10::InferenceMode) is declared earlier in a
/// block enclosing S, so it is alive when S runs. PM covers S's function.
bool isInNoGradScope(const clang::Stmt *S, const clang::ParentMap &PM);

} // namespace torch_tidy

#endif

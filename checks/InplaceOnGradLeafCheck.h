//===- InplaceOnGradLeafCheck.h -------------------------------*- C++ -*-===//
#ifndef TORCH_TIDY_CHECKS_INPLACEONGRADLEAFCHECK_H
#define TORCH_TIDY_CHECKS_INPLACEONGRADLEAFCHECK_H

#include "TorchTidyCheck.h"

namespace torch_tidy {

/// Finds in-place writes into a local leaf tensor that requires grad
/// (created with requires_grad(true) or after requires_grad_()) outside a
/// no-grad scope: autograd throws "a leaf Variable that requires grad is
/// being used in an in-place operation".
///
/// For the user-facing documentation see:
/// docs/checks/torch-inplace-on-grad-leaf.md
class InplaceOnGradLeafCheck : public TorchTidyCheck {
public:
  using TorchTidyCheck::TorchTidyCheck;
  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  void checkFunction(const clang::FunctionDecl *FD, clang::ASTContext &Ctx);
};

} // namespace torch_tidy

#endif

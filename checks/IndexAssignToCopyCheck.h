//===- IndexAssignToCopyCheck.h -------------------------------*- C++ -*-===//
#ifndef TORCH_TIDY_CHECKS_INDEXASSIGNTOCOPYCHECK_H
#define TORCH_TIDY_CHECKS_INDEXASSIGNTOCOPYCHECK_H

#include "TorchTidyCheck.h"
#include "clang/AST/ParentMap.h"

namespace torch_tidy {

/// Finds in-place writes into the result of advanced indexing
/// (t.index({..., tensor, ...}) = v, .copy_(v), .zero_(), .add_(x), ...):
/// that result is a new tensor, so the write is lost and t is unchanged.
///
/// For the user-facing documentation see:
/// docs/checks/torch-index-assign-to-copy.md
class IndexAssignToCopyCheck : public TorchTidyCheck {
public:
  using TorchTidyCheck::TorchTidyCheck;
  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  void checkWrite(const clang::Expr *Candidate, clang::ASTContext &Ctx,
                  const clang::ParentMap &PM);
};

} // namespace torch_tidy

#endif

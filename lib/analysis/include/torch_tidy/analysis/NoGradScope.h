//===- NoGradScope.h - Is a statement under a no-grad guard? ---*- C++ -*-===//
#ifndef TORCH_TIDY_ANALYSIS_NOGRADSCOPE_H
#define TORCH_TIDY_ANALYSIS_NOGRADSCOPE_H

#include "clang/AST/ParentMap.h"
#include "llvm/ADT/DenseMap.h"

namespace clang {
class CompoundStmt;
class Stmt;
} // namespace clang

namespace torch_tidy {

/// Answers, for statements of one function body, whether a guard that
/// disables autograd (torch::NoGradGuard, at::AutoGradMode(false),
/// c10::InferenceMode) is declared earlier in an enclosing block, so it is
/// alive when the statement runs. Each block is scanned once, so asking for
/// every write of a long function stays linear.
class NoGradScopes {
public:
  explicit NoGradScopes(clang::Stmt *Body) : Parents(Body) {}
  bool contains(const clang::Stmt *S);

private:
  struct BlockInfo {
    llvm::DenseMap<const clang::Stmt *, unsigned> ChildIndex;
    unsigned FirstGuard = ~0u; ///< index of the first guard declaration
  };
  const BlockInfo &info(const clang::CompoundStmt *Block);

  clang::ParentMap Parents;
  llvm::DenseMap<const clang::CompoundStmt *, BlockInfo> Blocks;
};

} // namespace torch_tidy

#endif

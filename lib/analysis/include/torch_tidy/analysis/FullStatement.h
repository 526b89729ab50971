//===- FullStatement.h - Is an expression a whole statement? ---*- C++ -*-===//
//
// Fix-its that replace an expression by one with another value (index_put_
// returns the indexed tensor, not the temporary) or wrap it in a block need
// the expression to be a statement of its own, whose value is discarded.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_ANALYSIS_FULLSTATEMENT_H
#define TORCH_TIDY_ANALYSIS_FULLSTATEMENT_H

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"

namespace torch_tidy {

/// The compound statement E is a direct statement of, looking through the
/// ExprWithCleanups around it; null if E is part of a larger expression or
/// statement. Parents come from the enclosing function's ParentMap: the
/// ASTContext's parent map would be built for the whole translation unit,
/// LibTorch's headers included (seconds per file).
inline const clang::CompoundStmt *
enclosingBlockOfStatement(const clang::Expr *E, const clang::ParentMap &PM) {
  const clang::Stmt *S = E;
  for (int Depth = 0; Depth < 4; ++Depth) {
    const clang::Stmt *P = PM.getParent(S);
    if (!P)
      return nullptr;
    if (const auto *Block = llvm::dyn_cast<clang::CompoundStmt>(P))
      return Block;
    const auto *Cleanups = llvm::dyn_cast<clang::ExprWithCleanups>(P);
    if (!Cleanups)
      return nullptr;
    S = Cleanups;
  }
  return nullptr;
}

} // namespace torch_tidy

#endif

//===- FullStatement.h - Is an expression a whole statement? ---*- C++ -*-===//
//
// Fix-its that replace an expression by one with another value (index_put_
// returns the indexed tensor, not the temporary) or wrap it in a block need
// the expression to be a statement of its own, whose value is discarded.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_ANALYSIS_FULLSTATEMENT_H
#define TORCH_TIDY_ANALYSIS_FULLSTATEMENT_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"

namespace torch_tidy {

/// The compound statement E is a direct statement of, looking through the
/// ExprWithCleanups around it; null if E is part of a larger expression or
/// statement.
inline const clang::CompoundStmt *
enclosingBlockOfStatement(const clang::Expr *E, clang::ASTContext &Ctx) {
  const clang::Stmt *S = E;
  for (int Depth = 0; Depth < 4; ++Depth) {
    auto Parents = Ctx.getParents(*S);
    if (Parents.size() != 1)
      return nullptr;
    if (const auto *Block = Parents[0].get<clang::CompoundStmt>())
      return Block;
    const auto *Cleanups = Parents[0].get<clang::ExprWithCleanups>();
    if (!Cleanups)
      return nullptr;
    S = Cleanups;
  }
  return nullptr;
}

} // namespace torch_tidy

#endif

//===- FullStatement.h - Is an expression a whole statement? ---*- C++ -*-===//
//
// Fix-its that replace an expression by one with another value (index_put_
// returns the indexed tensor, not the temporary, `t = t.op(...)` assigns) or
// wrap it in a block need the expression to be a statement of its own, whose
// value is discarded. Parents come from the enclosing function's ParentMap:
// the ASTContext's parent map would be built for the whole translation unit,
// LibTorch's headers included (seconds per file).
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_ANALYSIS_FULLSTATEMENT_H
#define TORCH_TIDY_ANALYSIS_FULLSTATEMENT_H

#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"

namespace torch_tidy {

/// Where S stands once the ExprWithCleanups and temporaries around it are
/// looked through: the outermost of them (or S) and its parent.
struct StatementPosition {
  const clang::Stmt *Outer = nullptr;
  const clang::Stmt *Parent = nullptr;
};
StatementPosition statementPosition(const clang::Stmt *S,
                                    const clang::ParentMap &PM);

/// The compound statement S is a direct statement of; null if S is part of a
/// larger expression or statement.
const clang::CompoundStmt *
enclosingBlockOfStatement(const clang::Stmt *S, const clang::ParentMap &PM);

/// Whether S is a statement of its own, its value discarded: a statement of
/// a block, the body of an if, for, while or do, or a labelled statement.
bool isWholeStatement(const clang::Stmt *S, const clang::ParentMap &PM);

} // namespace torch_tidy

#endif

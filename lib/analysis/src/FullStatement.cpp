//===- FullStatement.cpp - Is an expression a whole statement? ------------===//

#include "torch_tidy/analysis/FullStatement.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;

namespace torch_tidy {

StatementPosition statementPosition(const Stmt *S, const ParentMap &PM) {
  const Stmt *P = PM.getParent(S);
  while (isa_and_nonnull<ExprWithCleanups, CXXBindTemporaryExpr,
                         MaterializeTemporaryExpr>(P)) {
    S = P;
    P = PM.getParent(P);
  }
  return {S, P};
}

const CompoundStmt *enclosingBlockOfStatement(const Stmt *S,
                                              const ParentMap &PM) {
  return dyn_cast_or_null<CompoundStmt>(statementPosition(S, PM).Parent);
}

bool isWholeStatement(const Stmt *S, const ParentMap &PM) {
  auto [Outer, P] = statementPosition(S, PM);
  if (!P || isa<Expr>(P))
    return false;
  if (const auto *If = dyn_cast<IfStmt>(P))
    return Outer == If->getThen() || Outer == If->getElse();
  if (const auto *For = dyn_cast<ForStmt>(P))
    return Outer == For->getBody();
  if (const auto *While = dyn_cast<WhileStmt>(P))
    return Outer == While->getBody();
  if (const auto *Do = dyn_cast<DoStmt>(P))
    return Outer == Do->getBody();
  return isa<CompoundStmt, SwitchCase, LabelStmt, AttributedStmt>(P);
}

} // namespace torch_tidy

//===- NoGradScope.cpp - Is a statement under a no-grad guard? ------------===//

#include "torch_tidy/analysis/NoGradScope.h"
#include "torch_tidy/analysis/LibTorchApi.h"

#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"

using namespace clang;

namespace torch_tidy {

static bool declaresNoGradGuard(const Stmt *S) {
  const auto *DS = dyn_cast<DeclStmt>(S);
  if (!DS)
    return false;
  for (const Decl *D : DS->decls())
    if (const auto *V = dyn_cast<VarDecl>(D);
        V && libtorch::isNoGradGuardDecl(V))
      return true;
  return false;
}

bool isInNoGradScope(const Stmt *S, const ParentMap &PM) {
  for (const Stmt *Child = S, *Parent = PM.getParent(S); Parent;
       Child = Parent, Parent = PM.getParent(Parent)) {
    const auto *Block = dyn_cast<CompoundStmt>(Parent);
    if (!Block)
      continue;
    for (const Stmt *Sibling : Block->body()) {
      if (Sibling == Child)
        break;
      if (declaresNoGradGuard(Sibling))
        return true;
    }
  }
  return false;
}

} // namespace torch_tidy

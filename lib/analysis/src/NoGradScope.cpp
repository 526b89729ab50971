//===- NoGradScope.cpp - Is a statement under a no-grad guard? ------------===//

#include "torch_tidy/analysis/NoGradScope.h"
#include "torch_tidy/libtorch/LibTorchApi.h"

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

const NoGradScopes::BlockInfo &NoGradScopes::info(const CompoundStmt *Block) {
  auto [It, Inserted] = Blocks.try_emplace(Block);
  if (Inserted) {
    unsigned I = 0;
    for (const Stmt *Child : Block->body()) {
      It->second.ChildIndex[Child] = I;
      if (It->second.FirstGuard == ~0u && declaresNoGradGuard(Child))
        It->second.FirstGuard = I;
      ++I;
    }
  }
  return It->second;
}

bool NoGradScopes::contains(const Stmt *S) {
  for (const Stmt *Child = S, *Parent = Parents.getParent(S); Parent;
       Child = Parent, Parent = Parents.getParent(Parent)) {
    const auto *Block = dyn_cast<CompoundStmt>(Parent);
    if (!Block)
      continue;
    const BlockInfo &Info = info(Block);
    auto It = Info.ChildIndex.find(Child);
    if (It != Info.ChildIndex.end() && Info.FirstGuard < It->second)
      return true;
  }
  return false;
}

} // namespace torch_tidy

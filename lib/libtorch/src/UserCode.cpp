//===- UserCode.cpp - The user's functions of a translation unit ----------===//

#include "torch_tidy/libtorch/UserCode.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;

namespace torch_tidy {
namespace {
class FunctionVisitor : public RecursiveASTVisitor<FunctionVisitor> {
public:
  FunctionVisitor(llvm::function_ref<void(const FunctionDecl *)> F,
                  bool IncludeDependent)
      : F(F), IncludeDependent(IncludeDependent) {}
  bool VisitFunctionDecl(FunctionDecl *FD) {
    report(FD);
    return true;
  }
  bool VisitLambdaExpr(LambdaExpr *L) {
    report(L->getCallOperator());
    return true;
  }

private:
  void report(const FunctionDecl *FD) {
    if (FD && FD->doesThisDeclarationHaveABody() &&
        (IncludeDependent || !FD->isDependentContext()) &&
        Seen.insert(FD).second)
      F(FD);
  }
  llvm::function_ref<void(const FunctionDecl *)> F;
  bool IncludeDependent;
  llvm::SmallPtrSet<const FunctionDecl *, 32> Seen;
};
} // namespace

bool isUserDecl(const Decl *D) {
  if (!D ||
      D->getASTContext().getSourceManager().isInSystemHeader(D->getLocation()))
    return false;
  // The outermost named namespace around D (or D itself).
  const NamespaceDecl *Outer = dyn_cast<NamespaceDecl>(D);
  for (const DeclContext *C = D->getDeclContext(); C; C = C->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(C))
      Outer = NS;
  if (!Outer || !Outer->getIdentifier())
    return true;
  static const llvm::StringSet<> Names = {
      "at", "c10", "torch", "caffe2", "std", "__gnu_cxx", "pybind11"};
  return !Names.contains(Outer->getName());
}

bool isUserSpelled(const Expr *E, const SourceManager &SM) {
  if (!E)
    return false;
  SourceLocation Loc = E->getExprLoc();
  return !SM.isInSystemHeader(SM.getExpansionLoc(Loc)) &&
         !SM.isInSystemMacro(Loc);
}

const FunctionDecl *userDefinition(const FunctionDecl *FD) {
  if (!FD)
    return nullptr;
  if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
    FD = Pattern;
  const FunctionDecl *Def = nullptr;
  if (!FD->hasBody(Def) || !Def)
    return nullptr;
  if (Def->getASTContext().getSourceManager().isInSystemHeader(
          Def->getLocation()))
    return nullptr;
  return Def;
}

void forEachUserFunction(const TranslationUnitDecl *TU,
                         llvm::function_ref<void(const FunctionDecl *)> F,
                         bool IncludeDependent) {
  FunctionVisitor V(F, IncludeDependent);
  for (Decl *D : TU->decls())
    if (isUserDecl(D))
      V.TraverseDecl(D);
}

} // namespace torch_tidy

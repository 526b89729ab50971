//===- UserCode.cpp - The user's functions of a translation unit ----------===//

#include "torch_tidy/analysis/UserCode.h"

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

bool isUserTopLevelDecl(const Decl *D, const SourceManager &SM) {
  if (SM.isInSystemHeader(D->getLocation()))
    return false;
  const auto *NS = dyn_cast<NamespaceDecl>(D);
  if (!NS || !NS->getIdentifier())
    return true;
  static const llvm::StringSet<> Names = {
      "at", "c10", "torch", "caffe2", "std", "__gnu_cxx", "pybind11"};
  return !Names.contains(NS->getName());
}

void forEachUserFunction(const TranslationUnitDecl *TU,
                         llvm::function_ref<void(const FunctionDecl *)> F,
                         bool IncludeDependent) {
  const SourceManager &SM = TU->getASTContext().getSourceManager();
  FunctionVisitor V(F, IncludeDependent);
  for (Decl *D : TU->decls())
    if (!SM.isInSystemHeader(D->getLocation()))
      V.TraverseDecl(D);
}

} // namespace torch_tidy

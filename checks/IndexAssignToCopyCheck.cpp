//===- IndexAssignToCopyCheck.cpp -----------------------------------------===//

#include "IndexAssignToCopyCheck.h"

#include "torch_tidy/analysis/SourceText.h"
#include "torch_tidy/libtorch/LibTorchApi.h"
#include "torch_tidy/libtorch/UserCode.h"
#include "torch_tidy/rewrite/CheckFixes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torch_tidy {

void IndexAssignToCopyCheck::registerMatchers(MatchFinder *F) {
  // One match per translation unit; the candidate writes are then found in
  // the user's functions only (template patterns included, instantiations
  // not), each function with its own ParentMap (docs/performance.md).
  F->addMatcher(translationUnitDecl().bind("tu"), this);
}

namespace {
/// The candidate writes of one function body: operator calls and calls of
/// methods whose name ends in '_'. Lambdas and local classes are functions
/// of their own (forEachUserFunction visits them), so they are skipped here.
class CandidateFinder : public RecursiveASTVisitor<CandidateFinder> {
public:
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool TraverseCXXRecordDecl(CXXRecordDecl *) { return true; }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *E) {
    Found.push_back(E);
    return true;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *E) {
    const CXXMethodDecl *MD = E->getMethodDecl();
    if (MD && MD->getIdentifier() && MD->getName().ends_with("_"))
      Found.push_back(E);
    return true;
  }
  std::vector<const Expr *> Found;
};
} // namespace

void IndexAssignToCopyCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *TU = Result.Nodes.getNodeAs<TranslationUnitDecl>("tu");
  if (!TU)
    return;
  ASTContext &Ctx = *Result.Context;
  const SourceManager &SM = Ctx.getSourceManager();
  forEachUserFunction(
      TU,
      [&](const FunctionDecl *FD) {
        CandidateFinder Finder;
        Finder.TraverseStmt(FD->getBody());
        if (Finder.Found.empty())
          return;
        ParentMap PM(FD->getBody());
        for (const Expr *E : Finder.Found)
          if (isUserSpelled(E, SM))
            checkWrite(E, Ctx, PM);
      },
      /*IncludeDependent=*/true);
}

void IndexAssignToCopyCheck::checkWrite(const Expr *Candidate, ASTContext &Ctx,
                                        const ParentMap &PM) {
  const Expr *Write = nullptr;
  const Expr *Indexed = nullptr; // the t.index({...}) call
  StringRef Form;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Candidate)) {
    const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
    bool IntoTemporary = Op->getOperator() == OO_Equal && MD &&
                         MD->getRefQualifier() == RQ_RValue;
    if (!IntoTemporary && !libtorch::isCompoundAssignOnTensor(Op))
      return;
    Write = Op;
    Indexed = Op->getArg(0);
    Form = Op->getOperator() == OO_Equal ? "assignment" : "compound assignment";
  } else if (const auto *Call = dyn_cast<CXXMemberCallExpr>(Candidate)) {
    if (!libtorch::isInPlaceValueMethod(Call))
      return;
    Write = Call;
    Indexed = Call->getImplicitObjectArgument();
    Form = Call->getMethodDecl()->getName();
  }
  if (!Write)
    return;
  // The copy may be written through a view of it: t.index({idx}).select(..).
  CopyIndexWrite W;
  W.Write = Write;
  Indexed = libtorch::viewChainRoot(Indexed, &W.ThroughView,
                                    /*StopAtCopyingIndex=*/true);
  if (!Indexed || !libtorch::isCopyingIndexCall(Indexed))
    return;
  W.IndexCall = cast<CXXMemberCallExpr>(Indexed);
  std::string ObjectText =
      messageText(W.IndexCall->getImplicitObjectArgument(), Ctx, 80);
  FixPlan Plan = planIndexPutIntoCopy(W, PM, Ctx);
  // Macro expansions report at the use of the macro.
  SourceLocation Loc =
      Ctx.getSourceManager().getExpansionLoc(Write->getBeginLoc());
  {
    auto D =
        diag(Loc, "%0 into the result of advanced indexing of '%1' is lost: "
                  "index() with a tensor or mask index returns a new tensor, "
                  "not a view, so '%1' is left unchanged; use index_put_")
        << Form << ObjectText << Write->getSourceRange();
    addFix(D, Plan);
  }
  noteFix(Loc, Plan);
}

} // namespace torch_tidy

//===- InplaceOnGradLeafCheck.cpp -----------------------------------------===//

#include "InplaceOnGradLeafCheck.h"

#include "torch_tidy/analysis/GradLeafAnalysis.h"
#include "torch_tidy/libtorch/UserCode.h"
#include "torch_tidy/rewrite/CheckFixes.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torch_tidy {

void InplaceOnGradLeafCheck::registerMatchers(MatchFinder *F) {
  // One match per translation unit, then only the user's functions: a
  // functionDecl matcher is evaluated on every function of the LibTorch
  // headers (2.5 s of a 20 s run on 200 functions, docs/performance.md).
  F->addMatcher(translationUnitDecl().bind("tu"), this);
}

void InplaceOnGradLeafCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *TU = Result.Nodes.getNodeAs<TranslationUnitDecl>("tu");
  if (!TU)
    return;
  forEachUserFunction(
      TU, [&](const FunctionDecl *FD) { checkFunction(FD, *Result.Context); });
}

void InplaceOnGradLeafCheck::checkFunction(const FunctionDecl *FD,
                                           ASTContext &Ctx) {
  NoGradGuardPlanner Planner(FD);
  for (const LeafWrite &W : findLeafWrites(FD->getBody())) {
    FixPlan Plan = Planner.plan(W, Ctx);
    {
      auto D = diag(W.Write->getBeginLoc(),
                    "in-place write into '%0', a leaf tensor that requires "
                    "grad, outside a no-grad scope: autograd throws 'a leaf "
                    "Variable that requires grad is being used in an "
                    "in-place operation'; initialise it under "
                    "torch::NoGradGuard")
               << W.Leaf->getName() << W.Write->getSourceRange();
      addFix(D, Plan);
    }
    diag(W.Origin->getBeginLoc(), "'%0' becomes a leaf that requires grad here",
         DiagnosticIDs::Note)
        << W.Leaf->getName();
    noteFix(W.Write->getBeginLoc(), Plan);
  }
}

} // namespace torch_tidy

//===- InplaceOnGradLeafCheck.cpp -----------------------------------------===//

#include "InplaceOnGradLeafCheck.h"

#include "torch_tidy/analysis/GradLeafAnalysis.h"
#include "torch_tidy/analysis/UserCode.h"
#include "torch_tidy/rewrite/OutOfPlaceRewrite.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torch_tidy {

void InplaceOnGradLeafCheck::registerMatchers(MatchFinder *F) {
  // One match per translation unit, then only the user's functions: a
  // functionDecl matcher is evaluated on every function of the LibTorch
  // headers (2.5 s of a 20 s run on 200 functions, docs/performance.md).
  F->addMatcher(translationUnitDecl().bind("tu"), this);
}

namespace {
bool declaresName(const Stmt *S, StringRef Name) {
  if (!S)
    return false;
  if (const auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (const auto *ND = dyn_cast<NamedDecl>(D);
          ND && ND->getIdentifier() && ND->getName() == Name)
        return true;
  for (const Stmt *Child : S->children())
    if (declaresName(Child, Name))
      return true;
  return false;
}

} // namespace

void InplaceOnGradLeafCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *TU = Result.Nodes.getNodeAs<TranslationUnitDecl>("tu");
  if (!TU)
    return;
  forEachUserFunction(
      TU, [&](const FunctionDecl *FD) { checkFunction(FD, *Result.Context); });
}

void InplaceOnGradLeafCheck::checkFunction(const FunctionDecl *FD,
                                           ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<LeafWrite> Found = findLeafWrites(FD->getBody());
  bool NameTaken = !Found.empty() &&
                   (declaresName(FD->getBody(), "no_grad") ||
                    llvm::any_of(FD->parameters(), [](const ParmVarDecl *P) {
                      return P->getName() == "no_grad";
                    }));
  for (LeafWrite &W : Found) {
    SourceLocation Semi;
    if (W.Fixable) {
      Semi = Lexer::findLocationAfterToken(W.Write->getEndLoc(), tok::semi, SM,
                                           Ctx.getLangOpts(), false);
      if (Semi.isInvalid()) {
        W.Fixable = false;
        W.NoFixReason = "the statement's end is not found";
      } else if (NameTaken) {
        W.Fixable = false;
        W.NoFixReason = "the function already declares a 'no_grad'";
      }
    }
    {
      auto D = diag(W.Write->getBeginLoc(),
                    "in-place write into '%0', a leaf tensor that requires "
                    "grad, outside a no-grad scope: autograd throws 'a leaf "
                    "Variable that requires grad is being used in an "
                    "in-place operation'; initialise it under "
                    "torch::NoGradGuard")
               << W.Leaf->getName() << W.Write->getSourceRange();
      if (W.Fixable)
        D << FixItHint::CreateInsertion(W.Write->getBeginLoc(),
                                        "{ torch::NoGradGuard no_grad; ")
          << FixItHint::CreateInsertion(Semi, " }");
    }
    diag(W.Origin->getBeginLoc(), "'%0' becomes a leaf that requires grad here",
         DiagnosticIDs::Note)
        << W.Leaf->getName();
    if (!W.Fixable)
      diag(W.Write->getBeginLoc(), "no fix: %0", DiagnosticIDs::Note)
          << W.NoFixReason;
    else
      diag(W.Write->getBeginLoc(), "rule: %0", DiagnosticIDs::Note)
          << findRewriteRule("no-grad-guard")->Id;
  }
}

} // namespace torch_tidy

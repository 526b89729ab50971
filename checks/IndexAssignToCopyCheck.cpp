//===- IndexAssignToCopyCheck.cpp -----------------------------------------===//

#include "IndexAssignToCopyCheck.h"

#include "torch_tidy/analysis/FullStatement.h"
#include "torch_tidy/analysis/LibTorchApi.h"
#include "torch_tidy/analysis/UserCode.h"
#include "torch_tidy/rewrite/OutOfPlaceRewrite.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

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
          if (!SM.isInSystemHeader(SM.getExpansionLoc(E->getBeginLoc())))
            checkWrite(E, Ctx, PM);
      },
      /*IncludeDependent=*/true);
}

namespace {
StringRef sourceText(SourceRange R, const ASTContext &Ctx) {
  return Lexer::getSourceText(CharSourceRange::getTokenRange(R),
                              Ctx.getSourceManager(), Ctx.getLangOpts());
}

/// What replaces the write: the index_put_ value, or why there is none.
struct FixPlan {
  std::string Value;
  std::string NoFixReason;
  /// A tensor value: copy_ casts it to the target's dtype (and device), and
  /// index_put_ requires them equal, so the fix casts it.
  bool CastTensor = false;
};

FixPlan planValue(const Expr *Write, const ASTContext &Ctx) {
  auto Text = [&](const Expr *E) {
    return sourceText(E->getSourceRange(), Ctx).str();
  };
  // The value's text, ready for a member call when it is a tensor.
  auto Value = [&](const Expr *E) {
    FixPlan P{Text(E), ""};
    if (libtorch::isTensorType(E->getType())) {
      if (!canTakeMemberCall(E))
        P.Value = "(" + P.Value + ")";
      P.CastTensor = true;
    }
    return P;
  };
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Write)) {
    if (Op->getOperator() == OO_Equal)
      return Value(Op->getArg(1));
    return {"", "a compound assignment on the copy; 't.index_put_(I, x, "
                "/*accumulate=*/true)' differs from it when indices repeat"};
  }
  const auto *Call = cast<CXXMemberCallExpr>(Write);
  StringRef Name = Call->getMethodDecl()->getName();
  auto ExplicitArgs = llvm::count_if(Call->arguments(), [](const Expr *A) {
    return !isa<CXXDefaultArgExpr>(A);
  });
  if ((Name == "copy_" || Name == "fill_") && ExplicitArgs == 1)
    return Value(Call->getArg(0));
  if (Name == "zero_" && ExplicitArgs == 0)
    return {"0", ""};
  return {"", ("'" + Name +
               "' has no exact index_put_ form (index_put_ with "
               "accumulate=true differs from add_ when indices repeat); "
               "write the new values with index_put_ by hand")
                  .str()};
}
} // namespace

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
  bool ThroughView = false;
  while (Indexed && !libtorch::isCopyingIndexCall(Indexed) &&
         libtorch::isViewProducingCall(Indexed)) {
    Indexed = libtorch::viewObject(Indexed);
    ThroughView = true;
  }
  if (!Indexed || !libtorch::isCopyingIndexCall(Indexed))
    return;
  const auto *IndexCall =
      cast<CXXMemberCallExpr>(libtorch::ignoreTensorWrappers(Indexed));
  const Expr *Object = IndexCall->getImplicitObjectArgument();
  std::string ObjectText = sourceText(Object->getSourceRange(), Ctx).str();

  FixPlan Plan = planValue(Write, Ctx);
  const auto *ObjectRef =
      dyn_cast<DeclRefExpr>(libtorch::ignoreTensorWrappers(Object));
  if (Plan.NoFixReason.empty()) {
    if (ThroughView)
      Plan.NoFixReason = "the write goes through a view of the copy";
    else if (!ObjectRef || !isa<VarDecl>(ObjectRef->getDecl()))
      Plan.NoFixReason = "the indexed tensor is not a named variable";
    else if (ObjectRef->getType().isConstQualified())
      // index_put_ with a TensorIndex list is a non-const method.
      Plan.NoFixReason = "'" + ObjectText +
                         "' is const, and index_put_ with a TensorIndex list "
                         "needs a non-const tensor";
    else if (!libtorch::indexListElements(IndexCall->getArg(0)))
      Plan.NoFixReason = "the index list is not a braced list";
    else if (!enclosingBlockOfStatement(Write, PM))
      Plan.NoFixReason = "the write's value is used";
    else if (Write->getBeginLoc().isMacroID() || Write->getEndLoc().isMacroID())
      Plan.NoFixReason = "the write is in a macro";
  }
  // Macro expansions report at the use of the macro.
  SourceLocation Loc =
      Ctx.getSourceManager().getExpansionLoc(Write->getBeginLoc());
  {
    auto D =
        diag(Loc, "%0 into the result of advanced indexing of '%1' is lost: "
                  "index() with a tensor or mask index returns a new tensor, "
                  "not a view, so '%1' is left unchanged; use index_put_")
        << Form << ObjectText << Write->getSourceRange();
    if (Plan.NoFixReason.empty())
      D << FixItHint::CreateReplacement(
          CharSourceRange::getTokenRange(Write->getSourceRange()),
          ObjectText + ".index_put_(" +
              sourceText(IndexCall->getArg(0)->getSourceRange(), Ctx).str() +
              ", " + Plan.Value +
              (Plan.CastTensor ? ".to(" + ObjectText + ".options())" : "") +
              ")");
  }
  if (!Plan.NoFixReason.empty())
    diag(Loc, "no fix: %0", DiagnosticIDs::Note) << Plan.NoFixReason;
  else
    diag(Loc, "rule: %0", DiagnosticIDs::Note)
        << findRewriteRule("index-put-into-copy")->Id;
}

} // namespace torch_tidy

//===- CompileRequiresGradPropagationCheck.cpp ----------------------------===//

#include "CompileRequiresGradPropagationCheck.h"

#include "torch_tidy/analysis/GradFlowAnalysis.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include <functional>

using namespace clang;
using namespace clang::ast_matchers;

namespace clang::tidy {
llvm::ArrayRef<std::pair<torch_tidy::RegionMode, StringRef>>
OptionEnumMapping<torch_tidy::RegionMode>::getEnumMapping() {
  static constexpr std::pair<torch_tidy::RegionMode, StringRef> Mapping[] = {
      {torch_tidy::RegionMode::Auto, "auto"},
      {torch_tidy::RegionMode::All, "all"}};
  return Mapping;
}
} // namespace clang::tidy

namespace torch_tidy {

CompileRequiresGradPropagationCheck::CompileRequiresGradPropagationCheck(
    StringRef Name, tidy::ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      Mode(Options.get("RegionMode", RegionMode::Auto)),
      CompiledFunctions(Options.get("CompiledFunctions", "")) {
  CompiledRegionFinder Probe(Mode, CompiledFunctions);
  if (!CompiledFunctions.empty() && !Probe.hasNameFilter())
    configurationDiag("invalid regular expression '%0' in option "
                      "'CompiledFunctions': %1; the option is ignored")
        << CompiledFunctions << Probe.regexError();
}

CompileRequiresGradPropagationCheck::~CompileRequiresGradPropagationCheck() =
    default;

void CompileRequiresGradPropagationCheck::storeOptions(
    tidy::ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "RegionMode", Mode);
  Options.store(Opts, "CompiledFunctions", CompiledFunctions);
}

void CompileRequiresGradPropagationCheck::registerMatchers(MatchFinder *F) {
  auto LibraryInitVar =
      varDecl(hasType(hasUnqualifiedDesugaredType(recordType(hasDeclaration(
          cxxRecordDecl(hasName("::torch::detail::TorchLibraryInit")))))));
  auto LibraryMethod = cxxMethodDecl(hasAnyName("def", "impl"),
                                     ofClass(hasName("::torch::Library")));
  F->addMatcher(LibraryInitVar.bind("library-init"), this);
  F->addMatcher(cxxMemberCallExpr(callee(LibraryMethod),
                                  forFunction(functionDecl().bind("init-fn")))
                    .bind("library-call"),
                this);
  // Roots by annotation are cheap to find; roots by name (or every function)
  // need every definition outside system headers.
  if (Mode == RegionMode::All || !CompiledFunctions.empty())
    F->addMatcher(functionDecl(isDefinition(), unless(isImplicit()),
                               unless(isExpansionInSystemHeader()))
                      .bind("function"),
                  this);
  else
    F->addMatcher(
        functionDecl(isDefinition(), hasAttr(attr::Annotate)).bind("function"),
        this);
}

void CompileRequiresGradPropagationCheck::onStartOfTranslationUnit() {
  Finder = std::make_unique<CompiledRegionFinder>(Mode, CompiledFunctions);
  Ctx = nullptr;
}

void CompileRequiresGradPropagationCheck::check(
    const MatchFinder::MatchResult &Result) {
  Ctx = Result.Context;
  if (!Finder)
    onStartOfTranslationUnit();
  if (const auto *V = Result.Nodes.getNodeAs<VarDecl>("library-init"))
    Finder->addLibraryInit(V);
  else if (const auto *C =
               Result.Nodes.getNodeAs<CXXMemberCallExpr>("library-call"))
    Finder->addLibraryCall(C, Result.Nodes.getNodeAs<FunctionDecl>("init-fn"));
  else if (const auto *FD = Result.Nodes.getNodeAs<FunctionDecl>("function"))
    Finder->addFunction(FD);
}

void CompileRequiresGradPropagationCheck::onEndOfTranslationUnit() {
  if (Ctx && Finder)
    reportRegions();
  Finder.reset();
  Ctx = nullptr;
}

namespace {
/// The source text of E, shortened for a message.
std::string spelling(const Expr *E, const ASTContext &Ctx) {
  StringRef Text =
      Lexer::getSourceText(CharSourceRange::getTokenRange(E->getSourceRange()),
                           Ctx.getSourceManager(), Ctx.getLangOpts());
  std::string S;
  for (char C : Text)
    if (!(C == ' ' && !S.empty() && S.back() == ' ') && C != '\n')
      S.push_back(C);
  if (S.empty())
    return "the value";
  if (S.size() > 40)
    S = S.substr(0, 37) + "...";
  return S;
}

std::string describeRegion(const FunctionDecl *FD, const RegionReason &Why) {
  std::string Name = FD->getQualifiedNameAsString();
  switch (Why.K) {
  case RegionReason::Registered:
    return "'" + Name +
           "' runs inside torch.compile: it is registered here as a "
           "CompositeImplicitAutograd kernel";
  case RegionReason::CalledFrom:
    return "'" + Name + "' runs inside torch.compile: it is reached from '" +
           Why.Caller->getQualifiedNameAsString() + "' here";
  default:
    return "";
  }
}
} // namespace

void CompileRequiresGradPropagationCheck::reportRegions() {
  GradFlowAnalysis Flow(*Ctx);
  const SourceManager &SM = Ctx->getSourceManager();

  struct Report {
    SourceLocation Loc;
    std::function<void()> Emit;
  };
  std::vector<Report> Reports;

  for (const auto &[FD, Why] : Finder->computeRegions()) {
    const FunctionFlowResult &R = Flow.analyse(FD);
    auto RegionNote = [&, FD = FD, Why = Why] {
      std::string Text = describeRegion(FD, Why);
      if (!Text.empty() && Why.Site)
        diag(Why.Site->getBeginLoc(), Text, DiagnosticIDs::Note);
    };
    for (const HazardousWrite &W : R.Writes)
      Reports.push_back({W.Write.Write->getBeginLoc(), [&, W, RegionNote] {
                           diag(W.Write.Write->getBeginLoc(),
                                "in-place %0 into '%1', which was created "
                                "without gradient tracking, from '%2', which "
                                "may require grad: under torch.compile '%1' "
                                "can keep reporting requires_grad() == false, "
                                "and code that branches on it drops gradients")
                               << writeKindName(W.Write.Kind)
                               << W.Target->getName()
                               << spelling(W.Write.Source, *Ctx)
                               << W.Write.Write->getSourceRange();
                           diag(W.TargetOrigin->getBeginLoc(),
                                "'%0' is created here without requires_grad",
                                DiagnosticIDs::Note)
                               << W.Target->getName();
                           RegionNote();
                         }});
    for (const HazardousCall &C : R.Calls)
      Reports.push_back({C.Call->getBeginLoc(), [&, C, RegionNote] {
                           diag(C.Call->getBeginLoc(),
                                "'%0' writes in place (%1) into '%2', which "
                                "was created without gradient tracking, from "
                                "a value that may require grad: under "
                                "torch.compile '%2' can keep reporting "
                                "requires_grad() == false, and code that "
                                "branches on it drops gradients")
                               << C.Callee->getQualifiedNameAsString()
                               << writeKindName(C.Inner.Write.Kind)
                               << C.Target->getName()
                               << C.Call->getSourceRange();
                           diag(C.Inner.Write.Write->getBeginLoc(),
                                "the in-place write from '%0' is here",
                                DiagnosticIDs::Note)
                               << spelling(C.Inner.Write.Source, *Ctx);
                           diag(C.TargetOrigin->getBeginLoc(),
                                "'%0' is created here without requires_grad",
                                DiagnosticIDs::Note)
                               << C.Target->getName();
                           RegionNote();
                         }});
  }
  std::stable_sort(Reports.begin(), Reports.end(),
                   [&](const Report &A, const Report &B) {
                     return SM.isBeforeInTranslationUnit(A.Loc, B.Loc);
                   });
  for (const Report &Rep : Reports)
    Rep.Emit();
}

} // namespace torch_tidy

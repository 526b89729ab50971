//===- CompileRequiresGradPropagationCheck.cpp ----------------------------===//

#include "CompileRequiresGradPropagationCheck.h"

#include "torch_tidy/analysis/GradFlowAnalysis.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
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
llvm::ArrayRef<std::pair<torch_tidy::FixStyle, StringRef>>
OptionEnumMapping<torch_tidy::FixStyle>::getEnumMapping() {
  static constexpr std::pair<torch_tidy::FixStyle, StringRef> Mapping[] = {
      {torch_tidy::FixStyle::IndexPut, "index_put"},
      {torch_tidy::FixStyle::Scatter, "scatter"}};
  return Mapping;
}
} // namespace clang::tidy

namespace torch_tidy {

CompileRequiresGradPropagationCheck::CompileRequiresGradPropagationCheck(
    StringRef Name, tidy::ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      Mode(Options.get("RegionMode", RegionMode::Auto)),
      CompiledFunctions(Options.get("CompiledFunctions", "")),
      Style(Options.get("FixStyle", FixStyle::IndexPut)),
      LibTorchVersionOption(Options.get("LibTorchVersion", "auto")) {
  if (LibTorchVersionOption != "auto" &&
      !llvm::Regex("^[0-9]+\\.[0-9]+$").match(LibTorchVersionOption))
    configurationDiag("invalid value '%0' for option 'LibTorchVersion': "
                      "expected 'auto' or MAJOR.MINOR, such as 2.8; using "
                      "'auto'")
        << LibTorchVersionOption;
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
  Options.store(Opts, "FixStyle", Style);
  Options.store(Opts, "LibTorchVersion", LibTorchVersionOption);
}

void CompileRequiresGradPropagationCheck::registerPPCallbacks(
    const SourceManager &, Preprocessor *PP, Preprocessor *) {
  this->PP = PP;
}

static std::optional<int> macroInt(Preprocessor &PP, StringRef Name) {
  const MacroInfo *MI = PP.getMacroInfo(&PP.getIdentifierTable().get(Name));
  if (!MI || MI->getNumTokens() != 1 ||
      !MI->getReplacementToken(0).is(tok::numeric_constant))
    return std::nullopt;
  // Through the preprocessor, not Token::getLiteralData(): a macro read from
  // a precompiled preamble (clangd) has tokens without literal data.
  SmallString<16> Buffer;
  bool Invalid = false;
  StringRef Text = PP.getSpelling(MI->getReplacementToken(0), Buffer, &Invalid);
  int Value = 0;
  if (Invalid || Text.getAsInteger(10, Value))
    return std::nullopt;
  return Value;
}

LibTorchVersion CompileRequiresGradPropagationCheck::libTorchVersion() const {
  LibTorchVersion V;
  StringRef Opt = LibTorchVersionOption;
  if (Opt != "auto") {
    auto [Major, Minor] = Opt.split('.');
    int Ma = 0, Mi = 0;
    if (!Major.getAsInteger(10, Ma) && !Minor.getAsInteger(10, Mi))
      return {Ma, Mi};
  }
  if (PP)
    if (auto Major = macroInt(*PP, "TORCH_VERSION_MAJOR")) {
      V.Major = *Major;
      V.Minor = macroInt(*PP, "TORCH_VERSION_MINOR").value_or(0);
    }
  return V;
}

void CompileRequiresGradPropagationCheck::registerMatchers(MatchFinder *F) {
  // One match per translation unit: the region finder then walks only the
  // user's code, so the cost does not grow with LibTorch's headers (matchers
  // would visit every node of <torch/torch.h>).
  F->addMatcher(translationUnitDecl().bind("tu"), this);
}

void CompileRequiresGradPropagationCheck::check(
    const MatchFinder::MatchResult &Result) {
  const auto *TU = Result.Nodes.getNodeAs<TranslationUnitDecl>("tu");
  if (!TU)
    return;
  CompiledRegionFinder Finder(Mode, CompiledFunctions);
  Finder.collect(TU);
  reportRegions(Finder, *Result.Context);
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

void CompileRequiresGradPropagationCheck::reportRegions(
    CompiledRegionFinder &Finder, ASTContext &Context) {
  ASTContext *Ctx = &Context;
  GradFlowAnalysis Flow(Context);
  const LibTorchVersion Version = libTorchVersion();
  const SourceManager &SM = Context.getSourceManager();

  struct Report {
    SourceLocation Loc;
    std::function<void()> Emit;
  };
  std::vector<Report> Reports;

  for (const auto &[FD, Why] : Finder.computeRegions()) {
    const FunctionFlowResult &R = Flow.analyse(FD);
    auto Rewrites = R.Writes.empty()
                        ? nullptr
                        : std::make_shared<FunctionRewriteContext>(FD);
    auto RegionNote = [&, FD = FD, Why = Why] {
      std::string Text = describeRegion(FD, Why);
      if (!Text.empty() && Why.Site)
        diag(Why.Site->getBeginLoc(), Text, DiagnosticIDs::Note);
    };
    for (const HazardousWrite &W : R.Writes)
      Reports.push_back(
          {W.Write.Write->getBeginLoc(), [&, W, RegionNote, Rewrites] {
             RewritePlan Plan = planRewrite(W.Write, W.Target, *Rewrites, *Ctx,
                                            Style, Version);
             {
               auto D = diag(W.Write.Write->getBeginLoc(),
                             "in-place %0 into '%1', which was created "
                             "without gradient tracking, from '%2', "
                             "which may require grad: torch.compile "
                             "can lose requires_grad after such "
                             "writes, and code that branches on it "
                             "drops gradients; the out-of-place form "
                             "keeps it")
                        << writeKindName(W.Write.Kind) << W.Target->getName()
                        << spelling(W.Write.Source, *Ctx)
                        << W.Write.Write->getSourceRange();
               if (Plan.Rule)
                 D << FixItHint::CreateReplacement(Plan.Range,
                                                   Plan.Replacement);
             } // Emits the warning before its notes.
             diag(W.TargetOrigin->getBeginLoc(),
                  "'%0' is created here without requires_grad",
                  DiagnosticIDs::Note)
                 << W.Target->getName();
             RegionNote();
             if (Plan.Rule)
               diag(W.Write.Write->getBeginLoc(), "rule: %0",
                    DiagnosticIDs::Note)
                   << Plan.Rule->Id;
             else
               diag(W.Write.Write->getBeginLoc(), "no fix: %0",
                    DiagnosticIDs::Note)
                   << Plan.NoFixReason;
           }});
    for (const HazardousCall &C : R.Calls)
      Reports.push_back({C.Call->getBeginLoc(), [&, C, RegionNote] {
                           diag(C.Call->getBeginLoc(),
                                "'%0' writes in place (%1) into '%2', which "
                                "was created without gradient tracking, from "
                                "a value that may require grad: torch.compile "
                                "can lose requires_grad after such writes, "
                                "and code that branches on it drops "
                                "gradients; the out-of-place form keeps it")
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
                           diag(C.Call->getBeginLoc(),
                                "no fix: the write is in '%0'; rewrite it "
                                "there to the out-of-place form",
                                DiagnosticIDs::Note)
                               << C.Callee->getQualifiedNameAsString();
                         }});
  }
  // TORCH_TIDY_STATS=1 prints the analysis's work counters (used by the
  // scaling regression test, which needs counts, not timings).
  if (const char *Env = std::getenv("TORCH_TIDY_STATS"); Env && *Env == '1') {
    const FlowStats &S = Flow.stats();
    llvm::errs() << "torch-tidy-stats: functions-analysed="
                 << S.FunctionsAnalysed
                 << " functions-skipped=" << S.FunctionsSkipped
                 << " cfg-blocks=" << S.CFGBlocks
                 << " blocks-visited=" << S.BlocksVisited
                 << " elements-visited=" << S.ElementsVisited
                 << " state-entries=" << S.StateEntries
                 << " max-state=" << S.MaxStateSize << "\n";
  }
  std::stable_sort(Reports.begin(), Reports.end(),
                   [&](const Report &A, const Report &B) {
                     return SM.isBeforeInTranslationUnit(A.Loc, B.Loc);
                   });
  for (const Report &Rep : Reports)
    Rep.Emit();
}

} // namespace torch_tidy

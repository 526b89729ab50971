//===- CompileRequiresGradPropagationCheck.cpp ----------------------------===//

#include "CompileRequiresGradPropagationCheck.h"

#include "torch_tidy/analysis/GradFlowAnalysis.h"
#include "torch_tidy/analysis/GroundTruth.h"
#include "torch_tidy/analysis/SourceText.h"
#include "torch_tidy/libtorch/LibTorchApi.h"
#include "torch_tidy/libtorch/UserCode.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
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
      {torch_tidy::FixStyle::Auto, "auto"},
      {torch_tidy::FixStyle::IndexPut, "index_put"},
      {torch_tidy::FixStyle::Scatter, "scatter"}};
  return Mapping;
}
} // namespace clang::tidy

namespace torch_tidy {

CompileRequiresGradPropagationCheck::CompileRequiresGradPropagationCheck(
    StringRef Name, tidy::ClangTidyContext *Context)
    : TorchTidyCheck(Name, Context),
      Mode(Options.get("RegionMode", RegionMode::Auto)),
      CompiledFunctions(Options.get("CompiledFunctions", "")),
      Style(Options.get("FixStyle", FixStyle::Auto)),
      StrictFixes(boolOption("StrictFixes", false)),
      LibTorchVersionOption(Options.get("LibTorchVersion", "auto")),
      ProjectRoot(projectRootOption()),
      FreshTargetsInKernels(boolOption("FreshTargetsInKernels", false)),
      FixColumnLimit(Options.get("FixColumnLimit", 70u)) {
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
  storeBool(Opts, "StrictFixes", StrictFixes);
  Options.store(Opts, "LibTorchVersion", LibTorchVersionOption);
  storeBool(Opts, "FreshTargetsInKernels", FreshTargetsInKernels);
  Options.store(Opts, "FixColumnLimit", FixColumnLimit);
  Options.store(Opts, "ProjectRoot", ProjectRoot);
}

void CompileRequiresGradPropagationCheck::registerPPCallbacks(
    const SourceManager &SM, Preprocessor *PP, Preprocessor *ModuleExpanderPP) {
  TorchTidyCheck::registerPPCallbacks(SM, PP, ModuleExpanderPP);
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

/// A diagnostic and its notes, emitted after all are collected so that they
/// come out in source order.
struct CompileRequiresGradPropagationCheck::Report {
  SourceLocation Loc;
  std::function<void()> Emit;
};

void CompileRequiresGradPropagationCheck::check(
    const MatchFinder::MatchResult &Result) {
  const auto *TU = Result.Nodes.getNodeAs<TranslationUnitDecl>("tu");
  if (!TU)
    return;
  CompiledRegionFinder Finder(Mode, CompiledFunctions, FreshTargetsInKernels);
  Finder.collect(TU);
  ASTContext &Context = *Result.Context;
  useProject(Finder.operators(), Context.getSourceManager(), ProjectRoot);
  GradFlowAnalysis Flow(Context);
  std::vector<Report> Reports;
  reportRegions(Finder, Flow, Context, Reports);
  reportMutableArguments(Finder.operators(), Flow, Context, Reports);
  reportSchemaProblems(Finder.operators(), Context, Reports);
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
  const SourceManager &SM = Context.getSourceManager();
  std::stable_sort(Reports.begin(), Reports.end(),
                   [&](const Report &A, const Report &B) {
                     return SM.isBeforeInTranslationUnit(A.Loc, B.Loc);
                   });
  for (const Report &Rep : Reports)
    Rep.Emit();
}

namespace {

/// How a note names a kernel or region: 'ns::f', or "the lambda".
std::string functionName(const FunctionDecl *FD) {
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
      MD && MD->getParent()->isLambda())
    return "the lambda";
  return "'" + FD->getQualifiedNameAsString() + "'";
}

std::string describeRegion(const FunctionDecl *FD, const RegionReason &Why) {
  std::string Name = functionName(FD);
  switch (Why.K) {
  case RegionReason::Registered:
    return Name + " runs inside torch.compile: it is registered here as a "
                  "CompositeImplicitAutograd kernel";
  case RegionReason::CalledFrom:
    return Name + " runs inside torch.compile: it is reached from " +
           functionName(Why.Caller) + " here";
  default:
    return "";
  }
}

/// Whether a write into a fresh local lands in a view of it beyond the
/// write's own indexing: t.narrow(...).copy_(v), a named view, t[0][1] = v.
/// Python's setitem (t[...] = v) and in-place ops on the tensor itself keep
/// requires_grad on the newest torch; writes through a view do not.
bool writesThroughView(const InPlaceWrite &W, const VarDecl *Target) {
  const Expr *E = libtorch::ignoreTensorWrappers(W.Receiver);
  if (W.Kind == WriteKind::IndexAssign || W.Kind == WriteKind::SubscriptAssign)
    E = libtorch::ignoreTensorWrappers(libtorch::viewObject(E));
  if (!E)
    return false;
  if (libtorch::isViewProducingCall(E))
    return true;
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return V && V != Target && !V->getType()->isReferenceType();
}

/// What was measured for a fresh-local write of this form, for messages.
std::string freshWriteMeasurement(const InPlaceWrite &W, const VarDecl *Target,
                                  bool InKernel) {
  if (InKernel)
    return "enabled by FreshTargetsInKernels: in Python this write loses "
           "requires_grad under torch.compile on torch " +
           ground_truth::ReferenceVersion.str() +
           ", while in this C++ kernel the flag was measured right on " +
           ground_truth::BothVersions.str() +
           "; the out-of-place form keeps it everywhere";
  std::string Versions =
      ground_truth::newestLosesFreshWrite(W.Kind, writesThroughView(W, Target))
          ? ground_truth::BothVersions.str()
          : "torch " + ground_truth::ReferenceVersion.str() + " (torch " +
                ground_truth::NewestVersion.str() + " keeps it for this form)";
  return "torch.compile loses requires_grad after such writes (measured in "
         "Python on " +
         Versions +
         "), and code that branches on it drops gradients; the out-of-place "
         "form keeps it";
}

/// Whether a value that may require grad can reach parameter P of FD from a
/// caller. No only when the translation unit shows every call of FD
/// (CompiledRegionFinder::allCallSites) and each passes a value that never
/// requires grad, runs with grad mode off, or passes its own parameters for
/// which the same holds (a few callers deep). Answers are memoised per
/// (function, parameter), so the walk is linear in the call sites; a
/// question asked again while it is being answered (recursion) is answered
/// yes.
class CallerGrad {
public:
  CallerGrad(CompiledRegionFinder &Finder, GradFlowAnalysis &Flow)
      : Finder(Finder), Flow(Flow) {}

  bool reachesAny(const FunctionDecl *FD, ArrayRef<unsigned> Params,
                  unsigned Depth = 0) {
    return llvm::any_of(Params,
                        [&](unsigned P) { return reaches(FD, P, Depth); });
  }

private:
  bool reaches(const FunctionDecl *FD, unsigned P, unsigned Depth) {
    auto [It, New] = Memo.try_emplace({FD, P}, true);
    if (!New)
      return It->second;
    bool Result = compute(FD, P, Depth);
    Memo[{FD, P}] = Result;
    return Result;
  }

  bool compute(const FunctionDecl *FD, unsigned P, unsigned Depth) {
    const auto *Sites = Finder.allCallSites(FD);
    if (!Sites || Depth > 3)
      return true;
    for (const auto &[Call, Caller] : *Sites) {
      if (Finder.runsWithGradOff(Caller))
        continue;
      const FunctionDecl *Def = userDefinition(Caller);
      if (!Def)
        return true;
      const FunctionFlowResult &R = Flow.analyse(Def);
      const CallArguments *Args = nullptr;
      for (const CallArguments &CA : R.CallArgs)
        if (CA.Call == Call)
          Args = &CA;
      if (!Args || P >= Args->Params.size())
        return true;
      const ArgumentGrad &G = Args->Params[P];
      if (G.K == ArgumentGrad::Maybe)
        return true;
      if (G.K == ArgumentGrad::FromParams) {
        llvm::SmallVector<unsigned, 2> Next;
        for (unsigned I = 0; I < 64; ++I)
          if (G.Params & (uint64_t(1) << I))
            Next.push_back(I);
        if (reachesAny(Caller, Next, Depth + 1))
          return true;
      }
    }
    return false;
  }

  CompiledRegionFinder &Finder;
  GradFlowAnalysis &Flow;
  llvm::DenseMap<std::pair<const FunctionDecl *, unsigned>, bool> Memo;
};

/// The functional variant to suggest for an operator that writes into its
/// mutable arguments: the arguments without '(a!)' and without keyword-only
/// outputs (`*, Tensor(a!) out`), returning a tensor, named as PyTorch names
/// functional twins: without the trailing '_' of an in-place name, the base
/// name of an out= overload, else the name with "_functional".
std::string functionalSchemaSuggestion(const RegisteredOperator &Op) {
  const OperatorSchema &S = *Op.Schema;
  std::string Args;
  bool DroppedOutputs = false, KeywordOnly = false;
  for (const SchemaArgument &A : S.Arguments) {
    if (A.KeywordOnly && A.isMutable()) {
      DroppedOutputs = true;
      continue;
    }
    if (!Args.empty())
      Args += ", ";
    if (A.KeywordOnly && !KeywordOnly) {
      Args += "*, ";
      KeywordOnly = true;
    }
    Args += A.Type + " " + A.Name;
  }
  std::string Name = S.Name;
  if (Name.size() > 1 && Name.back() == '_')
    Name.pop_back();
  else if (!DroppedOutputs)
    Name += "_functional";
  return Name + "(" + Args + ") -> Tensor";
}
} // namespace

void CompileRequiresGradPropagationCheck::reportRegions(
    CompiledRegionFinder &Finder, GradFlowAnalysis &Flow, ASTContext &Context,
    std::vector<Report> &Out) {
  ASTContext *Ctx = &Context;
  const LibTorchVersion Version = libTorchVersion();

  CallerGrad Callers(Finder, Flow);
  for (const auto &[FD, Why] : Finder.computeRegions()) {
    const FunctionFlowResult &R = Flow.analyse(FD);
    auto Rewrites = R.Writes.empty()
                        ? nullptr
                        : std::make_shared<FunctionRewriteContext>(FD);
    // A kernel region (or one reached from a kernel) exists only with
    // FreshTargetsInKernels; its message says what was measured there.
    bool InKernel = Why.RootKind == RegionReason::Registered;
    auto RegionNote = [this, FD = FD, Why = Why] {
      std::string Text = describeRegion(FD, Why);
      if (!Text.empty() && Why.Site)
        diag(Why.Site->getBeginLoc(), Text, DiagnosticIDs::Note);
    };
    // A helper's write whose grad comes only through its parameters is not
    // reported when every call in the file passes values without grad.
    auto NoGradFromCallers = [&, FD = FD](ArrayRef<unsigned> Params) {
      return !Params.empty() && !Callers.reachesAny(FD, Params);
    };
    for (const HazardousWrite &W : R.Writes)
      if (!NoGradFromCallers(W.GradOnlyFromParams))
        Out.push_back(
            {W.Write.Write->getBeginLoc(),
             [this, Ctx, Version, W, RegionNote, Rewrites, InKernel] {
               FixPlan Plan =
                   planRewrite(W.Write, W.Target, *Rewrites, *Ctx,
                               {Style, StrictFixes, Version, FixColumnLimit},
                               W.Captured ? &*W.Captured : nullptr);
               {
                 auto D = diag(W.Write.Write->getBeginLoc(),
                               "in-place %0 into '%1', which was created "
                               "without gradient tracking, from '%2', "
                               "which may require grad: %3")
                          << writeName(W.Write) << W.Target->getName()
                          << messageText(W.Write.Source, *Ctx)
                          << freshWriteMeasurement(W.Write, W.Target, InKernel)
                          << W.Write.Write->getSourceRange();
                 addFix(D, Plan);
               } // Emits the warning before its notes.
               diag(W.TargetOrigin->getBeginLoc(),
                    "'%0' is created here without requires_grad",
                    DiagnosticIDs::Note)
                   << W.Target->getName();
               if (W.Captured)
                 captureNote(W.Target, *W.Captured);
               RegionNote();
               noteFix(W.Write.Write->getBeginLoc(), Plan);
             }});
    for (const HazardousCall &C : R.Calls)
      if (!NoGradFromCallers(C.GradOnlyFromParams))
        Out.push_back(
            {C.Call->getBeginLoc(), [this, Ctx, C, RegionNote, InKernel] {
               diag(C.Call->getBeginLoc(),
                    "'%0' writes in place (%1) into '%2', which "
                    "was created without gradient tracking, from "
                    "a value that may require grad: %3")
                   << C.Callee->getQualifiedNameAsString()
                   << writeName(C.Inner.Write) << C.Target->getName()
                   << freshWriteMeasurement(C.Inner.Write, C.Target, InKernel)
                   << C.Call->getSourceRange();
               diag(C.Inner.Write.Write->getBeginLoc(),
                    "the in-place write from '%0' is here", DiagnosticIDs::Note)
                   << messageText(C.Inner.Write.Source, *Ctx);
               diag(C.TargetOrigin->getBeginLoc(),
                    "'%0' is created here without requires_grad",
                    DiagnosticIDs::Note)
                   << C.Target->getName();
               if (C.Captured)
                 captureNote(C.Target, *C.Captured);
               RegionNote();
               noteFix(C.Call->getBeginLoc(),
                       FixPlan::noFix("the write is in '" +
                                      C.Callee->getQualifiedNameAsString() +
                                      "'; rewrite it there to the "
                                      "out-of-place form"));
             }});
  }
}

void CompileRequiresGradPropagationCheck::captureNote(
    const VarDecl *Target, const CapturedWrite &Captured) {
  SourceLocation Loc = Captured.Lambda->getBeginLoc();
  switch (Captured.How) {
  case CapturedWrite::ByReference:
    diag(Loc, "the lambda made here captures '%0' by reference",
         DiagnosticIDs::Note)
        << Target->getName();
    break;
  case CapturedWrite::ByValue:
    diag(Loc,
         "the lambda made here captures '%0' by value, a handle that shares "
         "its data",
         DiagnosticIDs::Note)
        << Target->getName();
    break;
  case CapturedWrite::ThroughView:
    if (Captured.View)
      diag(Loc, "the lambda made here captures '%0', a view of '%1'",
           DiagnosticIDs::Note)
          << Captured.View->getName() << Target->getName();
    else
      diag(Loc, "the lambda made here captures a view of '%0'",
           DiagnosticIDs::Note)
          << Target->getName();
    break;
  }
}

void CompileRequiresGradPropagationCheck::reportMutableArguments(
    const OperatorModel &Operators, GradFlowAnalysis &Flow, ASTContext &Context,
    std::vector<Report> &Out) {
  ASTContext *Ctx = &Context;
  llvm::DenseSet<const Expr *> Reported;
  for (const RegisteredOperator &Op : Operators.operators()) {
    if (!Op.Schema || Op.Schema->NameOnly)
      continue;
    const OperatorSchema &Schema = *Op.Schema;
    if (llvm::none_of(Schema.Arguments, [](const SchemaArgument &A) {
          return A.isTensor() && A.isMutable();
        }))
      continue;
    for (const KernelRegistration &K : Op.Kernels) {
      if (Mode != RegionMode::All &&
          !ground_truth::mutableArgumentLossMeasured(K.DispatchKey))
        continue;
      const FunctionDecl *Def = userDefinition(K.Kernel);
      if (!Def)
        continue;
      for (const ParamWrite &PW : Flow.analyse(Def).ParamWrites) {
        std::optional<unsigned> ArgIndex =
            Op.schemaArgumentOf(K, PW.ParamIndex);
        if (!ArgIndex)
          continue;
        const SchemaArgument &Arg = Schema.Arguments[*ArgIndex];
        if (!Arg.isTensor() || !Arg.isMutable())
          continue;
        const Expr *Site =
            PW.Via ? static_cast<const Expr *>(PW.Via) : PW.Write.Write;
        if (!Reported.insert(Site).second)
          continue;
        Out.push_back(
            {Site->getBeginLoc(), [this, Ctx, PW, Site, K, Op = &Op, ArgIndex] {
               const SchemaArgument &Arg = Op->Schema->Arguments[*ArgIndex];
               diag(Site->getBeginLoc(),
                    "in-place %0 into mutable argument '%1' of "
                    "operator '%2' from '%3', "
                    "which may require grad: a torch.compile'd "
                    "caller keeps reading requires_grad() == false "
                    "for the tensor it passed (measured on %4), and "
                    "code that branches on it drops gradients")
                   << writeName(PW.Write) << Arg.Name << Op->qualifiedName()
                   << messageText(PW.SourceAtVia ? PW.SourceAtVia
                                                 : PW.Write.Source,
                                  *Ctx)
                   << ground_truth::BothVersions << Site->getSourceRange();
               if (PW.Via)
                 diag(PW.Write.Write->getBeginLoc(),
                      "the in-place %0 is here, in '%1'", DiagnosticIDs::Note)
                     << writeName(PW.Write)
                     << PW.WriteFunction->getQualifiedNameAsString();
               if (Op->SchemaLiteral && Arg.Alias)
                 diag(OperatorModel::locationInLiteral(Op->SchemaLiteral,
                                                       Arg.Alias->Begin, *Ctx),
                      "'%0' is declared mutable here", DiagnosticIDs::Note)
                     << Arg.Name;
               else if (!Op->SchemaFile.empty())
                 diag(K.where(), "'%0' is declared mutable in %1:%2",
                      DiagnosticIDs::Note)
                     << Arg.Name << Op->SchemaFile << Op->SchemaLine;
               if (K.Site)
                 diag(K.Site->getBeginLoc(),
                      "%0 is registered here as the %1 kernel of '%2'",
                      DiagnosticIDs::Note)
                     << functionName(K.Kernel) << K.DispatchKey
                     << Op->qualifiedName();
               else
                 diag(K.where(),
                      "%0 is registered as the %1 kernel of '%2' in %3:%4",
                      DiagnosticIDs::Note)
                     << functionName(K.Kernel) << K.DispatchKey
                     << Op->qualifiedName() << K.RegisteredIn
                     << K.RegisteredLine;
               noteFix(Site->getBeginLoc(),
                       FixPlan::noFix("make a functional variant that "
                                      "returns the written tensor, such as '" +
                                      functionalSchemaSuggestion(*Op) +
                                      "', and have callers use its result"));
             }});
      }
    }
  }
}

void CompileRequiresGradPropagationCheck::reportSchemaProblems(
    const OperatorModel &Operators, ASTContext &Context,
    std::vector<Report> &Out) {
  ASTContext *Ctx = &Context;
  for (const SchemaProblem &P : Operators.schemaProblems()) {
    SourceLocation Loc =
        OperatorModel::locationInLiteral(P.Literal, P.Error.Offset, *Ctx);
    Out.push_back({Loc, [this, Loc, P] {
                     // A remark, not a warning: torch-tidy's reading may be
                     // the one at fault, and --warnings-as-errors must not
                     // turn it into a failed build.
                     diag(Loc,
                          "cannot parse the operator schema: %0; "
                          "torch-tidy does not check this operator's kernels",
                          DiagnosticIDs::Remark)
                         << P.Error.Message;
                   }});
  }
}

} // namespace torch_tidy

//===- OpUndeclaredMutationCheck.cpp --------------------------------------===//

#include "OpUndeclaredMutationCheck.h"

#include "torch_tidy/analysis/ArgumentMutation.h"
#include "torch_tidy/analysis/GroundTruth.h"
#include "torch_tidy/libtorch/UserCode.h"
#include "torch_tidy/operators/Consequence.h"
#include "torch_tidy/operators/OperatorModel.h"
#include "torch_tidy/operators/ProjectOperators.h"
#include "torch_tidy/rewrite/CheckFixes.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>
#include <set>

using namespace clang;
using namespace clang::ast_matchers;

namespace torch_tidy {

OpUndeclaredMutationCheck::OpUndeclaredMutationCheck(
    StringRef Name, tidy::ClangTidyContext *Context)
    : TorchTidyCheck(Name, Context),
      CompositeKernels(boolOption("CompositeKernels", false)),
      Aliasing(boolOption("Aliasing", true)),
      ConsequenceFilter(Options.get("Consequence", "any").trim().lower()),
      ProjectRoot(projectRootOption()) {
  if (ConsequenceFilter != "any" && ConsequenceFilter != "silent")
    configurationDiag("invalid configuration value '%0' for option "
                      "'Consequence'; expected 'any' or 'silent'; using 'any'")
        << ConsequenceFilter;
}

void OpUndeclaredMutationCheck::storeOptions(
    tidy::ClangTidyOptions::OptionMap &Opts) {
  storeBool(Opts, "CompositeKernels", CompositeKernels);
  storeBool(Opts, "Aliasing", Aliasing);
  Options.store(Opts, "Consequence",
                ConsequenceFilter == "silent" ? "silent" : "any");
  Options.store(Opts, "ProjectRoot", ProjectRoot);
}

void OpUndeclaredMutationCheck::registerMatchers(MatchFinder *F) {
  // One match per translation unit; only the user's code is walked.
  F->addMatcher(translationUnitDecl().bind("tu"), this);
}

void OpUndeclaredMutationCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *TU = Result.Nodes.getNodeAs<TranslationUnitDecl>("tu");
  if (!TU)
    return;
  OperatorModel Model;
  Model.collect(TU);
  useProject(Model, Result.Context->getSourceManager(), ProjectRoot);
  ArgumentMutationAnalysis Analysis;
  FixedReturns.clear();
  for (const RegisteredOperator &Op : Model.operators())
    checkOperator(Op, Analysis, *Result.Context);
  checkPybindCallees(Analysis, *Result.Context);
  // What needs no parse (a schema that returns nothing and declares nothing
  // mutable, its kernels and fakes from the project index) is reported
  // whatever the parse.
  if (Result.Context->getDiagnostics().hasErrorOccurred())
    reportFromIndex(Model, *Result.Context);
}

bool OpUndeclaredMutationCheck::reports(const KernelRegistration &K,
                                        Consequence Class) const {
  // A catch-all kernel through memory (loud) is reported by default: its
  // write is invisible to opcheck's test_schema (rows catchall_raw*) and
  // compiling fails on it; one written with ATen ops (traced) keeps its
  // writes under torch.compile.
  return CompositeKernels || K.DispatchKey != "CompositeImplicitAutograd" ||
         Class == Consequence::Loud;
}

namespace {

/// Why a returned argument is fixed with a copy, not by declaring the alias
/// (tools/ground-truth/alias_returns.py measures each clause).
constexpr llvm::StringLiteral ALIAS_NOTE =
    "a copy, because keeping the alias ('Tensor(a) %0 -> Tensor(a)' and a "
    "view of '%0') fails opcheck's test_aot_dispatch_dynamic and "
    "torch.compile with aot_eager and inductor (%1): torch does not "
    "functionalize a custom operator whose output aliases an input";

/// What torch.compile does with an undeclared alias on the newest torch
/// (alias-returns-opcheck, tools/ground-truth/alias_returns.py: columns
/// "warns" and BACKEND_strict): its first call checks custom operators'
/// outputs for aliases of their inputs and warns, the values unchanged, or
/// raises where torch._functorch.config.error_on_custom_op_aliasing is set,
/// which it is by default where the environment sets CI. Torch 2.8.0 has no
/// such check. {0}: the newest torch measured.
constexpr llvm::StringLiteral ALIAS_COMPILE =
    ", and torch.compile (aot_eager, inductor) on torch {0} warns that this "
    "will become an error (it raises where the environment sets CI)";

/// The argument as the fix declares it: `Tensor(a!) m`, `Tensor(a!)[] ts`,
/// `Tensor(a!)? m`.
std::string declaredMutable(const SchemaArgument &A,
                            const std::string &Letter) {
  return "Tensor(" + (Letter.empty() ? std::string("a") : Letter) + "!)" +
         (A.IsList ? "[]" : "") + (A.IsOptional ? "?" : "") + " " + A.Name;
}

/// How a note names a kernel: 'ns::f', or "the lambda".
std::string kernelName(const FunctionDecl *Kernel) {
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Kernel);
      MD && MD->getParent()->isLambda())
    return "the lambda";
  return "'" + Kernel->getQualifiedNameAsString() + "'";
}

/// Whether the schema allows a kernel below autograd to return argument A
/// (Direct: its own tensor, else a view of it), as opcheck's test_schema
/// judges it (measured): the single return must share an alias set with A;
/// returning the input itself needs the written form (`-> Tensor(a!)`,
/// PyTorch's in-place convention).
bool returnDeclared(const OperatorSchema &S, const SchemaArgument &A,
                    bool Direct, int Element) {
  if (S.VarRets)
    return true;
  // One tensor returned: judged against a single return. An element of a
  // tuple built in the return: against that return of the schema.
  if (Element < 0 ? S.Returns.size() != 1
                  : static_cast<size_t>(Element) >= S.Returns.size())
    return true; // no return, or a tuple variable: not judged
  const SchemaArgument &Ret = S.Returns[Element < 0 ? 0 : Element];
  if (!Ret.Alias || !A.Alias)
    return false;
  const AliasAnnotation &R = *Ret.Alias;
  bool Shared = llvm::any_of(A.Alias->Sets, [&](const std::string &Set) {
    return llvm::is_contained(R.Sets, Set);
  });
  return Shared && (!Direct || R.IsWrite);
}

const Expr *siteOf(const ArgumentWrite &W) {
  return W.Via ? static_cast<const Expr *>(W.Via) : W.Write;
}

/// Every kernel and fake of Op: this translation unit's registrations and
/// the project's other files'.
std::vector<KernelSite> sitesOf(const RegisteredOperator &Op,
                                const SourceManager &SM) {
  std::vector<KernelSite> Sites;
  for (const KernelRegistration &K : Op.Kernels) {
    if (!K.Site)
      continue; // registered in another file: among the project's sites
    SourceLocation L = SM.getFileLoc(K.Site->getBeginLoc());
    Sites.push_back({K.DispatchKey, "", "", SM.getPresumedLineNumber(L)});
  }
  Sites.insert(Sites.end(), Op.ProjectSites.begin(), Op.ProjectSites.end());
  return Sites;
}

/// Whether a catch-all kernel of Op may write through memory: one here
/// does (or hands memory to a launcher whose declaration does not say what
/// it writes), or none has its body here (a catch-all kernel elsewhere is
/// typically a CUDA or C++ kernel on raw pointers).
bool catchAllThroughMemory(const RegisteredOperator &Op,
                           ArgumentMutationAnalysis &Analysis) {
  bool Seen = false;
  for (const KernelRegistration &K : Op.Kernels)
    if (isCatchAllKey(K.DispatchKey) && K.Kernel && userDefinition(K.Kernel)) {
      Seen = true;
      const ArgumentMutationResult &R = Analysis.analyse(K.Kernel);
      if (R.OpaqueMemory)
        return true;
      for (const ArgumentWrite &W : R.Writes)
        if (W.ThroughMemory)
          return true;
    }
  return !Seen;
}

bool hasAutogradKernel(llvm::ArrayRef<KernelSite> Sites) {
  return llvm::any_of(Sites,
                      [](const KernelSite &K) { return isAutogradKey(K.Key); });
}

/// What a message says torch.compile does with an operator.
struct ConsequenceFacts {
  Consequence Class = Consequence::GraphBreak;
  /// The operator returns nothing and declares no argument mutable.
  bool Void = false;
  /// Say that whatever its kernels do goes with a dropped call.
  bool Effects = false;
  /// The kernel returns the argument it writes (inductor's stale read was
  /// measured on the reference version only).
  bool ReturnsWritten = false;
  /// An Autograd kernel is registered: Dynamo runs it on fake tensors, and
  /// one that marks the argument dirty fails there (measured on the
  /// pyg-lib twins, docs/found.md).
  bool Autograd = false;
  /// The operator declares another argument mutable (sglang's
  /// fused_add_rmsnorm_cpu): inductor's stale read was measured on both
  /// versions for chained calls, on the reference version only for one call
  /// (docs/found.md).
  bool DeclaresOther = false;
  /// The fake and an unnamed fake among the operator's sites, if any: the
  /// condition a fake is registered under, and where the index met a fake
  /// it could not name, narrow or leave open the class.
  const KernelSite *Fake = nullptr;
  const KernelSite *Unnamed = nullptr;
  /// A torch._dynamo.disallow_in_graph mark: calls through it keep the
  /// call; the silent class holds for direct torch.ops calls.
  const KernelSite *Disallow = nullptr;
  /// Calls of the operator inside Python custom ops: compiled callers of
  /// those custom ops see the write only where the custom op declares it.
  std::vector<const KernelSite *> Opaque;
  /// A backend kernel is registered beside a catch-all one: measured
  /// traced on the reference version only (row catchall_aten_device).
  bool BackendBesideCatchAll = false;

  /// The facts the operator's kernel sites give (its Autograd kernel, its
  /// fake, an unnamed fake, a disallow_in_graph mark, a backend kernel
  /// beside a catch-all one).
  ConsequenceFacts &withSites(llvm::ArrayRef<KernelSite> Sites) {
    Autograd = hasAutogradKernel(Sites);
    Fake = fakeSite(Sites);
    Unnamed = unnamedFakeSite(Sites);
    Disallow = disallowSite(Sites);
    Opaque = opaqueCallerSites(Sites);
    BackendBesideCatchAll = backendBesideCatchAll(Sites);
    return *this;
  }
  ConsequenceFacts &declaresOther(bool Value) {
    DeclaresOther = Value;
    return *this;
  }
};

/// "file:line" of a site registered in another file.
std::string whereOf(const KernelSite &S) {
  return S.File + ":" + std::to_string(S.Line);
}

/// The class's word in a message with its condition: "silent", "silent
/// where `if x:` holds (f.py:3; a graph break otherwise)".
std::string classWord(const ConsequenceFacts &F, llvm::StringRef Word) {
  if (F.Class == Consequence::Silent && (F.Disallow || !F.Opaque.empty())) {
    std::string Out = (Word + " for direct torch.ops calls").str();
    if (F.Disallow)
      Out += "; calls through its torch._dynamo.disallow_in_graph wrapper "
             "break the graph and run";
    if (!F.Opaque.empty())
      Out += "; calls inside a Python custom op follow what it declares "
             "mutable";
    return Out;
  }
  if (F.Class == Consequence::Silent && F.Fake && !F.Fake->Condition.empty())
    return (Word +
            " where the fake's condition holds: it is registered "
            "under `" +
            F.Fake->Condition + "`" +
            (F.Fake->File.empty() ? std::string() : " at " + whereOf(*F.Fake)) +
            "; a graph break where it does not")
        .str();
  return Word.str();
}

/// The class, its condition and what was measured, for a message.
std::string consequenceText(const ConsequenceFacts &F) {
  std::string Measured =
      (" (measured on " + ground_truth::BothVersions + ")").str();
  if (!F.Void && F.ReturnsWritten && !F.Autograd)
    Measured = (" (measured on torch " + ground_truth::ReferenceVersion +
                "; on torch " + ground_truth::NewestVersion +
                " a caller that reads what the kernel returns, the argument "
                "it writes, got the written values, and one that ignores "
                "the result did not)")
                   .str();
  else if (!F.Void && F.DeclaresOther && !F.Autograd)
    Measured = (" (measured on " + ground_truth::BothVersions + ": on " +
                ground_truth::NewestVersion +
                " a single call gave the written values, calls chained "
                "through an intermediate of the compiled graph did not)")
                   .str();
  std::string Gone =
      F.Effects ? ", and with them whatever its kernels do (tensor writes, "
                  "files, communication)"
                : "";
  std::string Dirty = "its Autograd kernel runs on fake tensors too, and "
                      "one that marks the argument dirty fails to compile";
  std::string Silent = classWord(F, "silent");
  switch (F.Class) {
  case Consequence::Silent:
    return (F.Void ? "its calls vanish under torch.compile (" + Silent +
                         "): with the fake kernel registered for it, "
                         "aot_eager and inductor drop them" +
                         Gone
                   : "torch.compile gives wrong values (" + Silent +
                         "): with the fake kernel registered for it, "
                         "inductor computes with the unwritten values") +
           (F.Autograd ? ", unless " + Dirty : std::string()) + Measured;
  case Consequence::Unknown: {
    bool KeyNotRead = F.Unnamed && F.Unnamed->Key == NotReadKey;
    return "what torch.compile does with its calls is not known here "
           "(unknown: " +
           std::string(KeyNotRead
                           ? "the project registers a kernel for it whose "
                             "dispatch key this analysis could not read, "
                           : "the project registers fakes this analysis "
                             "could not name, ") +
           (F.Unnamed ? whereOf(*F.Unnamed) : std::string("?")) + "): if " +
           (KeyNotRead ? "it is" : "one of them is") + " its fake, " +
           (F.Void ? "aot_eager and inductor drop its calls" + Gone
                   : std::string("inductor computes with the unwritten "
                                 "values")) +
           ", silently; if " + (KeyNotRead ? "it is not" : "none is") +
           ", Dynamo graph-breaks at them" + Measured;
  }
  case Consequence::GraphBreak:
    return std::string("torch.compile graph-breaks at its calls (graph "
                       "break): no fake kernel is registered for it in the "
                       "project, so Dynamo runs them eagerly and "
                       "fullgraph=True fails; once one is, ") +
           (F.Autograd ? Dirty
            : F.Void ? "aot_eager and inductor drop them" + Gone + ", silently"
                     : std::string("inductor computes with the unwritten "
                                   "values, silently")) +
           Measured;
  case Consequence::Loud:
    return "torch.compile fails at its calls where its catch-all kernel "
           "reads or writes tensor data through pointers (loud): Dynamo runs "
           "that kernel on fake tensors, which have none, whatever else is "
           "registered beside it (a device or Meta kernel), and torch "
           "refuses a fake for it" +
           Measured;
  case Consequence::Traced:
    if (F.BackendBesideCatchAll)
      return ("torch.compile traces through its catch-all kernel (traced on "
              "torch " +
              ground_truth::ReferenceVersion +
              ", the writes kept; with a backend kernel beside the catch-all "
              "one, torch " +
              ground_truth::NewestVersion +
              "'s aot_eager dropped the writes and inductor failed to "
              "compile)")
          .str();
    return "torch.compile traces through its catch-all kernel and keeps the "
           "writes (traced)" +
           Measured;
  }
  return "";
}

/// A schema that returns nothing and declares no argument mutable while it
/// takes a tensor: torch.compile's treatment of its calls follows the
/// consequence class whatever its kernels do.
bool returnsNothingDeclaresNothing(const OperatorSchema &S) {
  return S.Returns.empty() && !S.VarRets &&
         llvm::none_of(S.Arguments,
                       [](const SchemaArgument &A) { return A.isMutable(); }) &&
         llvm::any_of(S.Arguments, [](const SchemaArgument &A) {
           return A.BaseType == "Tensor";
         });
}

/// What `Consequence: silent` keeps: the silent class, and the unknown one
/// (a fake the index could not name may make it silent).
bool mayBeSilent(Consequence C) {
  return C == Consequence::Silent || C == Consequence::Unknown;
}

/// Where opcheck's test_schema was measured failing: kernels below
/// autograd (a catch-all kernel decomposes, and passes).
/// What torch.compile does with a metadata write of an argument (the fake
/// decides) and with a write through a method that returns its receiver
/// where it makes no copy, with a fake registered (tools/ground-truth/
/// write_conditions.py measures each clause).
constexpr llvm::StringLiteral METADATA_CONSEQUENCE =
    "what torch.compile does depends on the fake (silent): inductor raises "
    "where the fake returns the unwritten shape, and computes with the "
    "unwritten metadata, silently, where it returns the written one; "
    "aot_eager gave eager's values with both (measured on %0, with "
    "unsqueeze_, t_ and resize_, the caller reading the argument after the "
    "call)";
constexpr llvm::StringLiteral CONDITIONAL_CONSEQUENCE =
    "where no copy is made, inductor computes with the unwritten values "
    "(silent); aot_eager gave eager's values (measured on %0 with a fake, "
    "through to(dtype) and contiguous(), the kernel's result read)";

/// The consequence a write's message states: Text (the class's), or, with a
/// fake registered (silent), the measured one of a metadata write or of a
/// write through a method that returns its receiver.
std::string conditionalConsequence(const ArgumentWrite &W, Consequence Class,
                                   std::string Text) {
  if (Class != Consequence::Silent)
    return Text;
  auto Format = [](StringRef Pattern, StringRef A, StringRef B) {
    std::string Out = Pattern.str();
    for (auto [Key, Value] : {std::pair<StringRef, StringRef>{"%0", A},
                              std::pair<StringRef, StringRef>{"%1", B}})
      for (size_t I = Out.find(Key.str()); I != std::string::npos;
           I = Out.find(Key.str(), I + Value.size()))
        Out.replace(I, Key.size(), Value.str());
    return Out;
  };
  if (W.Metadata)
    return Format(METADATA_CONSEQUENCE, ground_truth::BothVersions, "");
  if (W.Copy && copyingMethodOf(W.Copy))
    return Format(CONDITIONAL_CONSEQUENCE, ground_truth::BothVersions, "");
  return Text;
}

/// " wherever M() returns its receiver (it copies only where the receiver
/// ...)": the condition under which a write or return through Copy, a
/// method that returns its receiver or a copy, reaches the argument; empty
/// where Copy is null or not a measured copying method.
std::string copyCondition(const CXXMemberCallExpr *Copy) {
  const ground_truth::CopyingMethod *M = Copy ? copyingMethodOf(Copy) : nullptr;
  if (!M)
    return "";
  return (" wherever " + M->Method +
          "() returns its receiver (it copies only where the receiver " +
          M->When + ")")
      .str();
}

bool opcheckFails(Consequence C) {
  return C == Consequence::Silent || C == Consequence::GraphBreak ||
         C == Consequence::Unknown;
}

} // namespace

void OpUndeclaredMutationCheck::noteFake(SourceLocation Loc,
                                         const RegisteredOperator &Op,
                                         const KernelSite &Fake) {
  if (Fake.File.empty()) {
    // Registered in this translation unit: point at it.
    for (const KernelRegistration &K : Op.Kernels)
      if (K.Site && K.DispatchKey == Fake.Key) {
        diag(K.Site->getBeginLoc(),
             "the fake kernel of '%0': its %1 kernel, registered here",
             DiagnosticIDs::Note)
            << Op.qualifiedName() << K.DispatchKey;
        return;
      }
  }
  noteFakeAt(Loc, Op.qualifiedName(), Fake);
}

void OpUndeclaredMutationCheck::noteRegistry(SourceLocation Loc,
                                             StringRef Operator,
                                             StringRef Torch) {
  if (Torch.empty())
    return;
  diag(Loc,
       "what '%0' registers (its kernels per dispatch key and its fake) is "
       "read from torch %1's registry, where torch-tidy-project imported the "
       "project's build",
       DiagnosticIDs::Note)
      << Operator << Torch;
}

void OpUndeclaredMutationCheck::noteFakeAt(SourceLocation Loc,
                                           StringRef Operator,
                                           const KernelSite &Fake) {
  // torch's registry keeps no place for a kernel registered from Python.
  std::string Where = Fake.File;
  if (Fake.Line)
    Where += ":" + std::to_string(Fake.Line);
  diag(Loc, "the fake kernel of '%0' is registered in %1 (%2%3)",
       DiagnosticIDs::Note)
      << Operator << Where << (Fake.Key == "Fake" ? "" : Fake.Key + " kernel, ")
      << Fake.How;
}

void OpUndeclaredMutationCheck::noteOpaqueCallers(
    SourceLocation Loc, StringRef Operator, ArrayRef<KernelSite> Sites,
    std::optional<unsigned> Argument, StringRef ArgumentName) {
  for (const KernelSite *S : opaqueCallerSites(Sites)) {
    // Per argument (Declares): '1' listed in mutates_args, '0' not, 'u'
    // mutates_args="unknown", '?' not read. The outcomes measured on both
    // versions (tools/ground-truth/opaque_callers.py): listed or "unknown"
    // keep the write (and a void operator's calls), unlisted lose them.
    StringRef D = S->Declares;
    unsigned What;
    if (Argument) {
      char C = *Argument < D.size() ? D[*Argument] : '?';
      What = C == '1' ? 0 : C == 'u' ? 1 : C == '0' ? 2 : 3;
    } else {
      What = D.contains('1')                ? 4
             : D.contains('u')              ? 5
             : D.contains('?') || D.empty() ? 7
                                            : 6;
    }
    diag(Loc,
         "'%0' is called inside %1 in %2:%3, which torch.compile calls as "
         "one operator without tracing into it: %select{"
         // 0
         "its mutates_args lists the argument it passes for '%4', so compiled "
         "callers "
         "of it see the write|"
         // 1
         "its mutates_args is \"unknown\", which torch takes as any "
         "argument written, so compiled callers of it see the write|"
         // 2
         "its mutates_args does not list the argument it passes for '%4', so "
         "compiled "
         "callers of it lose the write too, silently|"
         // 3
         "the argument it passes for '%4' or its mutates_args could not be "
         "read here; "
         "compiled callers of it see the write where mutates_args lists it "
         "or is \"unknown\", and lose it where it does not|"
         // 4
         "its mutates_args lists an argument it passes, so compiled callers "
         "of it keep its calls|"
         // 5
         "its mutates_args is \"unknown\", which torch takes as any "
         "argument written, so compiled callers of it keep its calls|"
         // 6
         "it declares nothing mutable, so compiled callers of it lose its "
         "calls, and what the kernel does, silently|"
         // 7
         "its mutates_args could not be read here; compiled callers of it "
         "keep its calls where mutates_args lists an argument passed or is "
         "\"unknown\", and lose them where it lists none}5 (measured on %6)",
         DiagnosticIDs::Note)
        << Operator << S->How << S->File << S->Line << ArgumentName << What
        << ground_truth::BothVersions;
  }
}

void OpUndeclaredMutationCheck::checkPybindCallees(
    ArgumentMutationAnalysis &Analysis, ASTContext &Ctx) {
  std::shared_ptr<const ProjectOperators> Project =
      projectOperators(Ctx.getSourceManager(), ProjectRoot);
  if (!Project || !Project->hasPybindCalls())
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  // The main file's function definitions, namespaces and extern "C" blocks
  // entered.
  std::vector<const FunctionDecl *> Functions;
  std::vector<const DeclContext *> Work{Ctx.getTranslationUnitDecl()};
  while (!Work.empty()) {
    const DeclContext *DC = Work.back();
    Work.pop_back();
    for (const Decl *D : DC->decls()) {
      if (isa<NamespaceDecl, LinkageSpecDecl>(D)) {
        Work.push_back(cast<DeclContext>(D));
        continue;
      }
      const auto *FD = dyn_cast<FunctionDecl>(D);
      if (FD && FD->doesThisDeclarationHaveABody() && FD->getIdentifier() &&
          SM.isInMainFile(SM.getExpansionLoc(FD->getLocation())))
        Functions.push_back(FD);
    }
  }
  std::set<std::pair<const Expr *, std::string>> Seen;
  // The module this translation unit's build makes (-DTORCH_EXTENSION_NAME):
  // a call of another module's function of the same name is not a call of
  // this one (SageAttention binds one name in its _qattn_sm89 and
  // _qattn_sm90).
  std::string Module = extensionName();
  for (const FunctionDecl *FD : Functions) {
    std::vector<const DeclaredKernel *> Callers =
        Project->pybindCallers(FD->getName());
    if (!Module.empty())
      llvm::erase_if(Callers, [&](const DeclaredKernel *C) {
        return StringRef(C->Function).rsplit('.').first != Module;
      });
    if (Callers.empty())
      continue;
    const ArgumentMutationResult &R = Analysis.analyse(FD);
    for (const ArgumentWrite &W : R.Writes) {
      if (W.Metadata || W.ParamIndex >= FD->getNumParams())
        continue;
      for (const DeclaredKernel *C : Callers) {
        StringRef D = C->Site.Declares;
        // '0': a parameter of the custom op its mutates_args does not list.
        if (W.ParamIndex >= D.size() || D[W.ParamIndex] != '0')
          continue;
        SmallVector<StringRef, 4> Args;
        StringRef(C->Site.How).split(Args, PybindArgumentSeparator);
        if (W.ParamIndex >= Args.size())
          continue;
        std::string Outer = C->Namespace + "::" + C->Name;
        const Expr *Site = siteOf(W);
        if (!Seen.insert({Site, Outer + "/" + Args[W.ParamIndex].str()}).second)
          continue;
        bool HasFake = llvm::any_of(
            Project->kernels(C->Namespace, C->Name),
            [](const DeclaredKernel *K) { return K->Site.Key == "Fake"; });
        if (ConsequenceFilter == "silent" && !HasFake)
          continue; // a compile error, not silent
        SourceLocation At = written(Site->getBeginLoc());
        // tools/ground-truth/opaque_callers.py, rows pybind_in_unlisted
        // (a fake: the write lost) and pybind_in_unlisted_nofake (an error).
        diag(At, "%0 writes into '%1'%9, which the Python custom op '%2' "
                 "(%3:%4) passes to '%5' from its argument '%6' without "
                 "listing it in mutates_args: torch.compile calls the custom "
                 "op as one operator without tracing into it, so %select{"
                 "compiled callers lose the write, silently, as with an "
                 "undeclared write in a C++ operator with a fake kernel|"
                 "compiling a call of it fails (no fake kernel of it is "
                 "registered here; with one, compiled callers would lose the "
                 "write silently)}7 (measured on %8); list '%6' in its "
                 "mutates_args")
            << W.Form << FD->getParamDecl(W.ParamIndex)->getName() << Outer
            << C->Site.File << C->Site.Line << FD->getName()
            << Args[W.ParamIndex].trim() << static_cast<unsigned>(!HasFake)
            << ground_truth::BothVersions << copyCondition(W.Copy)
            << written(Site->getSourceRange());
        if (W.Via)
          diag(W.Write->getBeginLoc(), "the write is here, in '%0'",
               DiagnosticIDs::Note)
              << W.WriteFunction->getQualifiedNameAsString();
      }
    }
  }
}

void OpUndeclaredMutationCheck::noteDisallowed(SourceLocation Loc,
                                               StringRef Operator,
                                               ArrayRef<KernelSite> Sites) {
  const KernelSite *Mark = disallowSite(Sites);
  if (!Mark)
    return;
  diag(Loc,
       "'%0' is marked torch._dynamo.disallow_in_graph in %1:%2: calls "
       "through what that mark returns break the graph and run, keeping what "
       "the kernel does (fullgraph=True fails on them); calls of "
       "torch.ops.%3 itself are the ones this warning is about (measured on "
       "%4)",
       DiagnosticIDs::Note)
      << Operator << Mark->File << Mark->Line
      << llvm::StringRef(Operator).split("::").first.str() + "." +
             llvm::StringRef(Operator).split("::").second.str()
      << ground_truth::BothVersions;
}

void OpUndeclaredMutationCheck::diagVoid(SourceLocation At, StringRef Operator,
                                         bool Inferred, Consequence Class,
                                         ArrayRef<KernelSite> Sites) {
  ConsequenceFacts F{Class, /*Void=*/true, /*Effects=*/true};
  F.withSites(Sites);
  diag(At, "operator '%0' returns nothing and its schema declares no "
           "argument mutable%select{|, as LibTorch infers it from the C++ "
           "signature of m.def(name, fn)}1: %2; declare the argument its "
           "kernels write 'Tensor(a!)'%select{| in a schema string}1 "
           "%select{(a declared mutation keeps the call, measured; where "
           "they write no tensor, as for files or communication, declaring "
           "a tensor argument mutable keeps the call all the same, "
           "measured)|and register the kernel for its device instead of as "
           "a catch-all (then opcheck passes and the writes are kept, "
           "measured)}3")
      << Operator << static_cast<unsigned>(Inferred) << consequenceText(F)
      << static_cast<unsigned>(Class == Consequence::Loud);
}

void OpUndeclaredMutationCheck::reportFromIndex(const OperatorModel &Model,
                                                ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::shared_ptr<const ProjectOperators> Project =
      projectOperators(SM, ProjectRoot);
  OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
  if (!Project || !Main)
    return;
  llvm::SmallString<256> MainPath;
  if (llvm::sys::fs::real_path(Main->getName(), MainPath))
    return;
  // What the parse saw defined here is reported (or not) from the AST.
  llvm::StringSet<> Parsed;
  for (const RegisteredOperator &Op : Model.operators())
    if (Op.DefSite)
      Parsed.insert(Op.Namespace + "::" + Op.Name);
  for (const DeclaredSchema &D : Project->schemas()) {
    llvm::SmallString<256> File;
    if (llvm::sys::fs::real_path(D.File, File) || File != MainPath)
      continue;
    SchemaParseResult P = parseOperatorSchema(D.Schema);
    if (!P || P.Schema->NameOnly || P.Schema->VarArgs)
      continue;
    const OperatorSchema &S = *P.Schema;
    std::string Ns = S.Namespace.empty() ? D.Namespace : S.Namespace;
    if (Ns.empty() || Parsed.contains(Ns + "::" + S.Name))
      continue;
    if (!returnsNothingDeclaresNothing(S))
      continue;
    std::vector<KernelSite> Sites =
        Project->projectSites(Ns, S.Name, MainPath, /*IncludeFile=*/true);
    // No kernel body is seen here: a catch-all one counts as through
    // memory, as in the parsed case.
    Consequence Class = consequenceOf(Sites, /*RawCatchAll=*/true);
    if (ConsequenceFilter == "silent" && !mayBeSilent(Class))
      continue;
    // At the schema literal's opening quote on its line.
    SourceLocation At = SM.translateLineCol(SM.getMainFileID(), D.Line, 1);
    StringRef Line = StringRef(SM.getCharacterData(At)).split('\n').first;
    size_t Name = Line.find(S.Name + "(");
    if (Name != StringRef::npos) {
      size_t Quote = Line.rfind('"', Name);
      At = At.getLocWithOffset(Quote != StringRef::npos ? Quote : Name);
    }
    std::string Qualified = qualifiedOperatorName(Ns, S.Name, S.Overload);
    diagVoid(At, Qualified, /*Inferred=*/false, Class, Sites);
    diag(At,
         "read from the schema's text (the project index): this file did "
         "not parse where '%0' is defined",
         DiagnosticIDs::Note)
        << Qualified;
    if (const KernelSite *Fake = fakeSite(Sites))
      noteFakeAt(At, Qualified, *Fake);
    noteDisallowed(At, Qualified, Sites);
    noteRegistry(At, Qualified,
                 Project->registrySites(Ns, S.Name) ? Project->registryTorch()
                                                    : "");
    noteOpaqueCallers(At, Qualified, Sites, std::nullopt, "");
    noteFix(At, FixPlan::noFix("this file did not parse; which argument the "
                               "kernels of '" +
                               Qualified + "' write is not known here"));
  }
}

void OpUndeclaredMutationCheck::noteRegistration(const KernelRegistration &K,
                                                 const RegisteredOperator &Op) {
  if (K.Through)
    diag(K.Kernel->getLocation(),
         "%0 is the kernel of dispatch stub '%1', which '%2' calls in %3:%4; "
         "'%2' is registered as the %5 kernel of '%6' in %7:%8",
         DiagnosticIDs::Note)
        << kernelName(K.Kernel) << K.Through->Stub << K.Through->Caller
        << K.Through->CallerFile << K.Through->CallerLine << K.DispatchKey
        << Op.qualifiedName() << K.RegisteredIn << K.RegisteredLine;
  else if (K.Site)
    diag(K.Site->getBeginLoc(),
         "%0 is registered here as the %1 kernel of '%2'", DiagnosticIDs::Note)
        << kernelName(K.Kernel) << K.DispatchKey << Op.qualifiedName();
  else
    diag(K.Kernel->getLocation(),
         "%0 is registered as the %1 kernel of '%2' in %3:%4",
         DiagnosticIDs::Note)
        << kernelName(K.Kernel) << K.DispatchKey << Op.qualifiedName()
        << K.RegisteredIn << K.RegisteredLine;
}

void OpUndeclaredMutationCheck::checkOperator(
    const RegisteredOperator &Op, ArgumentMutationAnalysis &Analysis,
    ASTContext &Ctx) {
  if (!Op.Schema || Op.Schema->NameOnly || Op.Schema->VarArgs)
    return;
  const OperatorSchema &S = *Op.Schema;
  const SourceManager &SM = Ctx.getSourceManager();

  std::vector<KernelSite> Sites = sitesOf(Op, SM);
  Consequence Class = consequenceOf(Sites, catchAllThroughMemory(Op, Analysis));
  const KernelSite *Fake = fakeSite(Sites);
  if (ConsequenceFilter == "silent" && !mayBeSilent(Class))
    return;
  bool Autograd = hasAutogradKernel(Sites);

  struct Found {
    const ArgumentWrite *W;
    const KernelRegistration *K;
  };
  struct Returned {
    const ArgumentReturn *R;
    const KernelRegistration *K;
  };
  std::map<unsigned, std::vector<Found>> Writes;  // by schema argument
  std::map<unsigned, std::vector<Returned>> Rets; // by schema argument
  // One report per write and argument: a kernel registered for several
  // keys is analysed once per registration, and one call may write several
  // arguments (a launcher handed `y` and `s`).
  std::set<std::pair<const Expr *, unsigned>> SeenSites;
  for (const KernelRegistration &K : Op.Kernels) {
    if (!K.Kernel || !reports(K, Class))
      continue;
    const ArgumentMutationResult &R = Analysis.analyse(K.Kernel);
    for (const ArgumentWrite &W : R.Writes) {
      std::optional<unsigned> I = Op.schemaArgumentOf(K, W.ParamIndex);
      if (!I)
        continue;
      const SchemaArgument &A = S.Arguments[*I];
      // A tensor, or a list of them (`Tensor[]`: a write into an element).
      if (A.BaseType != "Tensor" || A.isMutable())
        continue;
      // cpu() in a CUDA kernel, cuda() in a CPU kernel: always a copy there,
      // so the write never reaches the argument.
      if (const ground_truth::CopyingMethod *M =
              W.Copy ? copyingMethodOf(W.Copy) : nullptr;
          M && ground_truth::deviceMoveAlwaysCopies(*M, K.DispatchKey))
        continue;
      if (!SeenSites.insert({siteOf(W), *I}).second)
        continue;
      Writes[*I].push_back({&W, &K});
    }
    for (const ArgumentReturn &Ret : R.Returns) {
      std::optional<unsigned> I = Op.schemaArgumentOf(K, Ret.ParamIndex);
      if (const ground_truth::CopyingMethod *M =
              Ret.Copy ? copyingMethodOf(Ret.Copy) : nullptr;
          M && ground_truth::deviceMoveAlwaysCopies(*M, K.DispatchKey))
        continue; // a copy there: no alias of the argument is returned
      if (I && S.Arguments[*I].isTensor() &&
          !returnDeclared(S, S.Arguments[*I], Ret.Direct, Ret.Element))
        Rets[*I].push_back({&Ret, &K});
    }
  }
  // An operator that returns nothing and declares no argument mutable:
  // whatever its kernels do (tensor writes, files, communication), the
  // consequence class says what torch.compile does with its calls. Reported
  // at the schema, unless a write of its kernel is reported here.
  bool ReturnsNothing = S.Returns.empty() && !S.VarRets;
  bool DeclaresMutation = llvm::any_of(
      S.Arguments, [](const SchemaArgument &A) { return A.isMutable(); });
  bool Void = returnsNothingDeclaresNothing(S);
  bool KernelHere = llvm::any_of(Op.Kernels, [](const KernelRegistration &K) {
    return K.Kernel && userDefinition(K.Kernel);
  });
  if (Void && Writes.empty() && Op.DefSite &&
      (Op.SchemaLiteral || Op.SchemaInferred) &&
      (Class != Consequence::Traced || CompositeKernels)) {
    SourceLocation At =
        written(Op.SchemaLiteral ? Op.SchemaLiteral->getBeginLoc()
                                 : Op.DefSite->getExprLoc());
    diagVoid(At, Op.qualifiedName(), Op.SchemaInferred, Class, Sites);
    if (Fake)
      noteFake(At, Op, *Fake);
    noteDisallowed(At, Op.qualifiedName(), Sites);
    noteRegistry(At, Op.qualifiedName(), Op.RegistryTorch);
    noteOpaqueCallers(At, Op.qualifiedName(), Sites, std::nullopt, "");
    // A catch-all kernel's writes are not reported (CompositeKernels off),
    // but they name the argument to declare.
    std::string CatchAllWrites;
    for (const KernelRegistration &K : Op.Kernels) {
      if (!K.Kernel || !userDefinition(K.Kernel) || reports(K, Class))
        continue;
      for (const ArgumentWrite &W : Analysis.analyse(K.Kernel).Writes)
        if (std::optional<unsigned> I = Op.schemaArgumentOf(K, W.ParamIndex);
            I && S.Arguments[*I].BaseType == "Tensor" &&
            !StringRef(CatchAllWrites).contains("'" + S.Arguments[*I].Name))
          CatchAllWrites += (CatchAllWrites.empty() ? "'" : ", '") +
                            S.Arguments[*I].Name + "'";
    }
    noteFix(At, FixPlan::noFix(
                    !CatchAllWrites.empty()
                        ? "its catch-all kernel writes " + CatchAllWrites +
                              "; the fix declares it and registers the kernel "
                              "for its device, a change of registration "
                              "torch-tidy does not rewrite"
                    : KernelHere
                        ? "its kernels here write no tensor argument; "
                          "which argument to declare is a reading of them"
                        : "no kernel of '" + Op.qualifiedName() +
                              "' is defined in this translation unit; which "
                              "argument it writes is not known here"));
  }
  if (Writes.empty() && (!Aliasing || Rets.empty()))
    return;

  // The fix that stops an argument's writes, where every one is incidental:
  // a metadata write on one of the kernel's own handles, or an in-place op on
  // a conversion's result whose value is used. None for an argument the
  // kernel returns (its caller reads it back) or a write in a helper.
  auto StopWriting = [&](const std::vector<Found> &List, bool Returned,
                         ASTContext &Ctx) {
    if (Returned)
      return FixPlan::noFix("the kernel returns it");
    FixPlan All;
    for (const Found &F : List) {
      const ArgumentWrite &W = *F.W;
      if (W.Via || W.Unseen || W.WriteFunction != F.K->Kernel)
        return FixPlan::noFix("the write is in a function it calls");
      FixPlan One = W.Metadata
                        ? planMetadataOutOfPlace(W.Write, F.K->Kernel, Ctx)
                    : W.Copy ? planCopyWriteOutOfPlace(W.Write, Ctx)
                             : FixPlan::noFix("the write is the kernel's "
                                              "own");
      if (!One.hasFix())
        return One;
      if (All.hasFix() && All.Rule != One.Rule)
        return FixPlan::noFix("its writes take different fixes");
      if (!All.hasFix())
        All = std::move(One);
      else
        All.Edits.insert(All.Edits.end(), One.Edits.begin(), One.Edits.end());
    }
    return All;
  };

  SchemaAnnotationPlanner Annotations(Op);
  // Whether each written argument's write gets a fix here: a return of it
  // gets a copy only beside that fix (declared and copied, or no longer
  // written), never alone (the write would stay undeclared).
  std::map<unsigned, bool> WriteFixed;
  for (auto &[ArgIndex, List] : Writes) {
    std::stable_sort(
        List.begin(), List.end(), [&](const Found &A, const Found &B) {
          return SM.isBeforeInTranslationUnit(siteOf(*A.W)->getBeginLoc(),
                                              siteOf(*B.W)->getBeginLoc());
        });
    const SchemaArgument &A = S.Arguments[ArgIndex];
    const Found &First = List.front();
    auto [Plan, Letter] = Annotations.plan(A, Ctx);
    // Where the write is incidental (a reshape for the kernel's own use, an
    // in-place op on a conversion's result), the remedy is to stop it.
    FixPlan Stop = StopWriting(List, Rets.count(ArgIndex) > 0, Ctx);
    std::string Remedy =
        Op.SchemaHelper.empty()
            ? "declare it '" + declaredMutable(A, Letter) + "'"
            : "define the operator with a schema string that declares it '" +
                  declaredMutable(A, Letter) + "'";
    if (Stop.hasFix()) {
      Plan = std::move(Stop);
      StringRef Rule = Plan.Rule->Id;
      Remedy = Rule == "metadata-out-of-place"
                   ? "stop writing it: rebind the kernel's own handle to "
                     "the out-of-place form (the caller's tensor keeps its "
                     "shape)"
               : Rule == "metadata-to-local"
                   ? "stop writing it: bind the out-of-place form to a new "
                     "local and use that after (the caller's tensor keeps "
                     "its shape)"
                   : "stop writing it: the out-of-place form gives the same "
                     "value";
    } else if (First.W->Metadata) {
      Plan = FixPlan::noFix(
          "a write of the argument's metadata: declaring it 'Tensor(a!)' "
          "makes opcheck's test_schema pass (measured), but what "
          "torch.compile does with a declared metadata mutation of an "
          "operator's input is not measured; stopping the write: " +
          Stop.NoFixReason);
      Remedy =
          "stop writing it, or declare it '" + declaredMutable(A, Letter) + "'";
    }
    // A write through a method that returns its receiver where it makes no
    // copy reaches the argument only there.
    std::string Where =
        First.W->Metadata ? std::string() : copyCondition(First.W->Copy);
    // A catch-all kernel through memory fails to compile whatever its schema
    // declares: the remedy is a declaration and a device registration.
    bool LoudCatchAll =
        Class == Consequence::Loud && isCatchAllKey(First.K->DispatchKey);
    if (LoudCatchAll && Plan.hasFix())
      Plan = FixPlan::noFix("its catch-all kernel writes '" + A.Name +
                            "' through memory; the fix declares it and "
                            "registers the kernel for its device, a change "
                            "of registration torch-tidy does not rewrite");
    WriteFixed[ArgIndex] = Plan.hasFix();
    const Expr *Site = siteOf(*First.W);
    SourceLocation At = written(Site->getBeginLoc());
    // The schema is usually on another line: its fix goes on the note there.
    bool FixHere = fixOnLineOf(Plan, At);
    bool FixNoted = FixHere || !Plan.hasFix();
    {
      auto D = diag(At, "%0 writes into argument '%1' of operator '%2'%7, "
                        "which its schema does not declare mutable: "
                        "%3%select{|; torch.library.opcheck fails "
                        "test_schema}4; %5%select{| and "
                        "register the kernel for its device instead of as a "
                        "catch-all (then opcheck passes and the writes are "
                        "kept, measured)}6")
               << First.W->Form << A.Name << Op.qualifiedName()
               << conditionalConsequence(
                      *First.W, Class,
                      consequenceText(ConsequenceFacts{
                          Class, ReturnsNothing && !DeclaresMutation,
                          /*Effects=*/false, Rets.count(ArgIndex) > 0}
                                          .withSites(Sites)
                                          .declaresOther(DeclaresMutation)))
               << static_cast<unsigned>(opcheckFails(Class)) << Remedy
               << static_cast<unsigned>(LoudCatchAll) << Where
               << written(Site->getSourceRange());
      if (FixHere)
        addFix(D, Plan);
    }
    if (Fake)
      noteFake(At, Op, *Fake);
    noteDisallowed(At, Op.qualifiedName(), Sites);
    noteRegistry(At, Op.qualifiedName(), Op.RegistryTorch);
    noteOpaqueCallers(At, Op.qualifiedName(), Sites, ArgIndex, A.Name);
    if (First.W->Via)
      diag(First.W->Write->getBeginLoc(), "the write is here, in '%0'",
           DiagnosticIDs::Note)
          << First.W->WriteFunction->getQualifiedNameAsString();
    if (const ParmVarDecl *P = First.W->Unseen) {
      const auto *Callee = cast<FunctionDecl>(P->getDeclContext());
      diag(P->getLocation(),
           "'%0' is not defined in this translation unit; its parameter "
           "'%1' takes %select{a non-const pointer|a view of the memory}2",
           DiagnosticIDs::Note)
          << Callee->getQualifiedNameAsString() << P->getName()
          << static_cast<unsigned>(
                 P->getType().getNonReferenceType()->isRecordType());
    }
    for (size_t I = 1; I < List.size() && I < 4; ++I)
      diag(siteOf(*List[I].W)->getBeginLoc(), "'%0' is also written here (%1)",
           DiagnosticIDs::Note)
          << A.Name << List[I].W->Form;
    if (Op.SchemaLiteral && !Op.SchemaInferred) {
      auto N =
          diag(OperatorModel::locationInLiteral(Op.SchemaLiteral, A.Begin, Ctx),
               "'%0' is declared here %select{without an alias annotation|"
               "without '!' in its alias annotation}1%select{|; the fix "
               "declares it '%2'}3",
               DiagnosticIDs::Note)
          << A.Name << static_cast<unsigned>(A.Alias.has_value())
          << declaredMutable(A, Letter) << static_cast<unsigned>(!FixNoted);
      if (!FixNoted)
        addFix(N, Plan);
      FixNoted = true;
    } else if (!Op.SchemaHelper.empty())
      diag(First.K->where(),
           "the schema of '%0' is inferred from the C++ signature of '%1' by "
           "the project's %2 (%3:%4), as LibTorch infers it: no argument is "
           "declared mutable",
           DiagnosticIDs::Note)
          << Op.qualifiedName() << Op.SchemaFunction << Op.SchemaHelper
          << Op.SchemaFile << Op.SchemaLine;
    else if (!Op.SchemaFile.empty() && !Op.SchemaInferred)
      diag(First.K->where(),
           "the schema of '%0' is declared in %1:%2, with '%3' %select{without "
           "an alias annotation|without '!' in its alias annotation}4",
           DiagnosticIDs::Note)
          << Op.qualifiedName() << Op.SchemaFile << Op.SchemaLine << A.Name
          << static_cast<unsigned>(A.Alias.has_value());
    if (!FixNoted) {
      auto N = diag(Plan.Edits.front().Range.getBegin(),
                    "the fix of '%0' is here", DiagnosticIDs::Note)
               << A.Name;
      addFix(N, Plan);
    }
    noteRegistration(*First.K, Op);
    noteFix(At, Plan);
  }

  if (!Aliasing)
    return;
  for (const auto &[ArgIndex, List] : Rets) {
    const SchemaArgument &A = S.Arguments[ArgIndex];
    for (const Returned &R : List) {
      const Expr *Value = R.R->Value;
      // An Autograd kernel may mark the argument dirty, which needs the
      // argument itself returned: a copy here would break the uncompiled
      // call (measured on the pyg-lib twins) until that kernel changes.
      // A kernel that also writes the argument, or hands it to a dispatch
      // stub whose kernel may: a copy of the result alone leaves that write
      // undeclared (opcheck still fails, and a caller that ignores the
      // result loses the write once a fake exists).
      auto Handed = R.K->HandedToStub.find(R.R->ParamIndex);
      FixPlan Plan =
          Handed != R.K->HandedToStub.end()
              ? FixPlan::noFix("the kernel hands '" + A.Name + "' to " +
                               Handed->second +
                               ", which may write it: returning a copy "
                               "would leave such a write undeclared")
          : Autograd
              ? FixPlan::noFix("'" + Op.qualifiedName() +
                               "' has an Autograd kernel, which may mark '" +
                               A.Name +
                               "' dirty and then needs it returned; return a "
                               "copy here once that kernel no longer does")
          : Writes.count(ArgIndex) && !WriteFixed[ArgIndex]
              ? FixPlan::noFix("the kernel also writes '" + A.Name +
                               "', which gets no fix here: returning a copy "
                               "alone would leave that write undeclared")
          // A fake for a tuple of the arguments typically returns them too
          // (sglang's rotary_embedding_cpu: `(query, key)`): a copy in the
          // kernel alone leaves the two disagreeing on aliasing, so the fix
          // is a reader's, in both places.
          : R.R->Element >= 0
              ? FixPlan::noFix(
                    "an element of a returned tuple: copy it ('" + A.Name +
                    ".clone()'; opcheck passes and compiled values equal "
                    "eager's, measured) and make the operator's fake return "
                    "a new tensor there too, which torch-tidy does not "
                    "rewrite, so it leaves both to you")
              : planReturnClone(Value, Ctx);
      // One kernel may serve several operators: one fix per return.
      bool FixHere = Plan.hasFix() && FixedReturns.insert(Value).second;
      {
        // Where the value passes a method that returns its receiver or a
        // copy, it aliases the argument only where no copy is made.
        std::string Where = copyCondition(R.R->Copy);
        bool Tuple = R.R->Element >= 0;
        const SchemaArgument *Ret =
            S.Returns.empty() ? nullptr : &S.Returns[Tuple ? R.R->Element : 0];
        // Declared as an alias, written or not: torch.compile's check of
        // custom operators' aliases does not apply.
        bool Declared = A.Alias && Ret && Ret->Alias;
        auto D = diag(Value->getBeginLoc(),
                      "the kernel returns %select{a view of |}0argument "
                      "'%1' of operator '%2'%select{| as element %5 of its "
                      "result}4%6%select{, which the schema does "
                      "not declare as aliasing %select{its|that}4 output|, "
                      "which a kernel below autograd may only do for a "
                      "written alias ('-> Tensor(a!)')}3: "
                      "torch.library.opcheck fails test_schema%7; %8")
                 << static_cast<unsigned>(R.R->Direct) << A.Name
                 << Op.qualifiedName() << static_cast<unsigned>(Declared)
                 << static_cast<unsigned>(Tuple) << R.R->Element << Where
                 << written(Value->getSourceRange())
                 << (Declared ? std::string()
                              : llvm::formatv(ALIAS_COMPILE.data(),
                                              ground_truth::NewestVersion)
                                    .str())
                 << (Handed != R.K->HandedToStub.end()
                         ? "it hands '" + A.Name + "' to " + Handed->second +
                               ", whose kernel may write it: see that "
                               "kernel's report before copying"
                     : Writes.count(ArgIndex) && !WriteFixed[ArgIndex]
                         ? "it also writes '" + A.Name +
                               "', which gets no fix here: declare "
                               "it '" +
                               declaredMutable(A, "a") +
                               "' and return a copy, both (a copy alone "
                               "leaves the write undeclared)"
                         : std::string("return a copy"));
        if (FixHere)
          addFix(D, Plan);
      }
      diag(Value->getBeginLoc(), ALIAS_NOTE, DiagnosticIDs::Note)
          << A.Name << ground_truth::BothVersions;
      noteRegistration(*R.K, Op);
      // A return fixed under another operator's warning gets no note here.
      if (FixHere || !Plan.hasFix())
        noteFix(Value->getBeginLoc(), Plan);
    }
  }
}

} // namespace torch_tidy

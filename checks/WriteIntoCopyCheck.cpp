//===- WriteIntoCopyCheck.cpp ---------------------------------------------===//

#include "WriteIntoCopyCheck.h"

#include "torch_tidy/analysis/ArgumentMutation.h"
#include "torch_tidy/analysis/GroundTruth.h"
#include "torch_tidy/analysis/SourceText.h"
#include "torch_tidy/libtorch/LibTorchApi.h"
#include "torch_tidy/libtorch/UserCode.h"
#include "torch_tidy/operators/OperatorModel.h"
#include "torch_tidy/rewrite/CheckFixes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace torch_tidy {

using ground_truth::CopyCondition;
using ground_truth::CopyingMethod;

WriteIntoCopyCheck::WriteIntoCopyCheck(StringRef Name,
                                       tidy::ClangTidyContext *Context)
    : TorchTidyCheck(Name, Context),
      ReadAfterWrite(boolOption("ReadAfterWrite", true)),
      ProjectRoot(projectRootOption()) {}

void WriteIntoCopyCheck::storeOptions(tidy::ClangTidyOptions::OptionMap &Opts) {
  storeBool(Opts, "ReadAfterWrite", ReadAfterWrite);
  Options.store(Opts, "ProjectRoot", ProjectRoot);
}

void WriteIntoCopyCheck::registerMatchers(MatchFinder *F) {
  // One match per translation unit; only the user's code is walked.
  F->addMatcher(translationUnitDecl().bind("tu"), this);
}

namespace {

/// The methods whose call on the receiver tests what the copy depends on.
bool testsCondition(StringRef Method, CopyCondition C) {
  switch (C) {
  case CopyCondition::Layout:
    return Method == "is_contiguous";
  case CopyCondition::MemoryFormat:
    return Method == "is_contiguous" || Method == "suggest_memory_format";
  case CopyCondition::Dtype:
    return Method == "scalar_type" || Method == "dtype";
  case CopyCondition::Options:
    return Method == "scalar_type" || Method == "dtype" ||
           Method == "is_contiguous" || Method == "suggest_memory_format" ||
           Method == "options";
  case CopyCondition::Device:
    return Method == "is_cuda" || Method == "is_cpu" || Method == "device" ||
           Method == "get_device";
  }
  return false;
}

/// Whether a kernel registered under Key runs for every backend (a
/// catch-all or an autograd kernel).
bool isCatchAll(StringRef Key) {
  return Key.starts_with("Composite") || Key == "CatchAll" || Key.empty() ||
         Key == "Autograd" || Key == "ADInplaceOrView";
}

/// Whether a kernel registered under Key may be handed tensors of the
/// device type a device move copies from ("cuda" for cpu(), "cpu" for
/// cuda()): a kernel for that backend, or one every backend reaches.
bool keyReachedFrom(StringRef Key, StringRef From) {
  if (isCatchAll(Key))
    return true;
  if (From == "cuda")
    return Key == "CUDA" || Key == "AutogradCUDA";
  return Key == "CPU" || Key == "AutogradCPU";
}

/// The variable E names, through views of it (`out.select(0, i)`,
/// `out[b][g]`).
const VarDecl *rootVar(const Expr *E) {
  for (int Depth = 0; E && Depth < 32; ++Depth) {
    E = libtorch::ignoreTensorWrappers(libtorch::viewChainRoot(E));
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return dyn_cast<VarDecl>(Ref->getDecl());
    const auto *Sub = dyn_cast<CXXOperatorCallExpr>(E);
    if (!Sub || Sub->getOperator() != OO_Subscript || Sub->getNumArgs() != 2 ||
        !libtorch::isTensorType(Sub->getArg(0)->getType()))
      return nullptr;
    E = Sub->getArg(0);
  }
  return nullptr;
}

/// Whether S refers to V.
bool mentions(const Stmt *S, const VarDecl *V) {
  if (!S || !V)
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
    return Ref->getDecl() == V;
  for (const Stmt *Child : S->children())
    if (mentions(Child, V))
      return true;
  return false;
}

/// Whether Cond calls, on V, a method that tests condition C
/// (`out.is_contiguous()`, `self.scalar_type() == at::kFloat`).
bool testsOn(const Stmt *Cond, const VarDecl *V, CopyCondition C) {
  if (!Cond)
    return false;
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(Cond))
    if (const CXXMethodDecl *M = Call->getMethodDecl();
        M && M->getIdentifier() && testsCondition(M->getName(), C) &&
        rootVar(Call->getImplicitObjectArgument()) == V)
      return true;
  for (const Stmt *Child : Cond->children())
    if (testsOn(Child, V, C))
      return true;
  return false;
}

/// Whether S cannot complete normally: it returns, throws, calls a noreturn
/// function (TORCH_CHECK's torchCheckFail), or jumps out of a loop.
bool leaves(const Stmt *S) {
  if (!S)
    return false;
  if (isa<ReturnStmt, CXXThrowExpr, BreakStmt, ContinueStmt, GotoStmt>(S))
    return true;
  if (isa<LambdaExpr>(S))
    return false;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *F = Call->getDirectCallee(); F && F->isNoReturn())
      return true;
  for (const Stmt *Child : S->children())
    if (leaves(Child))
      return true;
  return false;
}

/// The guards in Body that rule out the copy a condition-C method would
/// make of V before the code at Before: a TORCH_CHECK or
/// TORCH_INTERNAL_ASSERT (an if that cannot complete), an early return or
/// throw on it, an assert, an if around the code, and `V = V.contiguous()`
/// rebinding V to a tensor that needs no copy.
class GuardFinder : public RecursiveASTVisitor<GuardFinder> {
public:
  GuardFinder(const VarDecl *V, CopyCondition C, SourceLocation Before,
              const SourceManager &SM)
      : V(V), C(C), Before(Before), SM(SM) {}
  bool VisitIfStmt(IfStmt *If) {
    if (!startsBefore(If) || !testsOn(If->getCond(), V, C))
      return true;
    if (leaves(If->getThen()) || encloses(If))
      Found = true;
    return true;
  }
  bool VisitConditionalOperator(ConditionalOperator *Op) {
    // assert(out.is_contiguous()): cond ? void(0) : __assert_fail(...).
    if (startsBefore(Op) && testsOn(Op->getCond(), V, C) &&
        (leaves(Op->getTrueExpr()) || leaves(Op->getFalseExpr())))
      Found = true;
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Op) {
    // out = out.contiguous(): from here out is its contiguous tensor.
    if (Op->getOperator() != OO_Equal || Op->getNumArgs() != 2 ||
        !startsBefore(Op))
      return true;
    const auto *Ref =
        dyn_cast<DeclRefExpr>(libtorch::ignoreTensorWrappers(Op->getArg(0)));
    if (!Ref || Ref->getDecl() != V)
      return true;
    const auto *Call = dyn_cast<CXXMemberCallExpr>(
        libtorch::ignoreTensorWrappers(Op->getArg(1)));
    if (const CopyingMethod *M = Call ? copyingMethodOf(Call) : nullptr;
        M && (M->Condition == C || C == CopyCondition::Options) &&
        rootVar(Call->getImplicitObjectArgument()) == V)
      Found = true;
    return true;
  }
  bool Found = false;

private:
  bool startsBefore(const Stmt *S) const {
    return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(S->getBeginLoc()),
                                        Before);
  }
  bool encloses(const Stmt *S) const {
    SourceLocation E = SM.getExpansionRange(S->getEndLoc()).getEnd();
    return !SM.isBeforeInTranslationUnit(E, Before);
  }
  const VarDecl *V;
  CopyCondition C;
  SourceLocation Before;
  const SourceManager &SM;
};

bool guarded(const FunctionDecl *F, const VarDecl *V, CopyCondition C,
             SourceLocation Before, const SourceManager &SM) {
  if (!F || !F->getBody() || !V)
    return false;
  GuardFinder G(V, C, Before, SM);
  G.TraverseStmt(const_cast<Stmt *>(F->getBody()));
  return G.Found;
}

/// Whether F's body holds Loc.
bool holds(const FunctionDecl *F, SourceLocation Loc, const SourceManager &SM) {
  if (!F || !F->getBody())
    return false;
  SourceRange R = F->getBody()->getSourceRange();
  SourceLocation B = SM.getExpansionLoc(R.getBegin());
  SourceLocation E = SM.getExpansionRange(R.getEnd()).getEnd();
  return !SM.isBeforeInTranslationUnit(Loc, B) &&
         !SM.isBeforeInTranslationUnit(E, Loc);
}

/// Methods that read a tensor's metadata, not its values.
bool readsMetadataOnly(StringRef Name) {
  static const llvm::StringSet<> Names = {"size",
                                          "sizes",
                                          "sym_size",
                                          "sym_sizes",
                                          "dim",
                                          "ndimension",
                                          "numel",
                                          "sym_numel",
                                          "stride",
                                          "strides",
                                          "options",
                                          "dtype",
                                          "scalar_type",
                                          "device",
                                          "get_device",
                                          "is_cuda",
                                          "is_cpu",
                                          "is_contiguous",
                                          "defined",
                                          "layout",
                                          "suggest_memory_format",
                                          "is_alias_of",
                                          "is_same",
                                          "element_size",
                                          "itemsize",
                                          "nbytes",
                                          "storage_offset",
                                          "is_floating_point",
                                          "is_complex",
                                          "requires_grad",
                                          "is_sparse",
                                          "is_meta",
                                          "has_storage"};
  return Names.contains(Name);
}

/// The first use of P's values in Body after Loc that is not a write-back
/// into P (`P.copy_(...)`): a use that sees the values the write meant to
/// leave there.
/// Whether one statement of a function can run after another: its
/// control-flow graph's blocks, one reachable from the other (a read in the
/// other branch of the `if` around a write cannot, deepmd-kit's
/// `if (double) f<double>(g); else f<float>(g);`). Where either is not in
/// the graph (a lambda's body), or there is none, it may.
class RunsAfter {
public:
  RunsAfter(const FunctionDecl *FD, ASTContext &Ctx) : PM(FD->getBody()) {
    CFG::BuildOptions Options;
    Options.setAllAlwaysAdd();
    Graph = CFG::buildCFG(FD, FD->getBody(), &Ctx, Options);
    if (Graph)
      for (const CFGBlock *B : *Graph)
        for (const CFGElement &E : *B)
          if (std::optional<CFGStmt> S = E.getAs<CFGStmt>())
            BlockOf.try_emplace(S->getStmt(), B);
  }
  bool mayRunAfter(const Stmt *To, const Stmt *From) const {
    const CFGBlock *A = blockOf(From), *B = blockOf(To);
    if (!A || !B || A == B)
      return true;
    llvm::SmallVector<const CFGBlock *, 16> Work = {A};
    llvm::DenseSet<const CFGBlock *> Seen = {A};
    while (!Work.empty())
      for (const CFGBlock::AdjacentBlock &Next : Work.pop_back_val()->succs())
        if (const CFGBlock *N = Next.getReachableBlock()) {
          if (N == B)
            return true;
          if (Seen.insert(N).second)
            Work.push_back(N);
        }
    return false;
  }

private:
  const CFGBlock *blockOf(const Stmt *S) const {
    for (; S; S = PM.getParent(S))
      if (auto It = BlockOf.find(S); It != BlockOf.end())
        return It->second;
    return nullptr;
  }
  ParentMap PM;
  std::unique_ptr<CFG> Graph;
  llvm::DenseMap<const Stmt *, const CFGBlock *> BlockOf;
};

class ReadFinder : public RecursiveASTVisitor<ReadFinder> {
public:
  ReadFinder(const VarDecl *P, SourceLocation After, const SourceManager &SM,
             const Stmt *Write = nullptr, const RunsAfter *Order = nullptr)
      : P(P), After(After), SM(SM), Write(Write), Order(Order) {}
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
    if (const CXXMethodDecl *M = Call->getMethodDecl();
        M && M->getIdentifier() &&
        (readsMetadataOnly(M->getName()) || M->getName() == "copy_"))
      if (const auto *Ref =
              dyn_cast<DeclRefExpr>(libtorch::ignoreTensorWrappers(
                  Call->getImplicitObjectArgument()));
          Ref && Ref->getDecl() == P)
        Skip.insert(Ref);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (Read || Ref->getDecl() != P || Skip.contains(Ref))
      return true;
    SourceLocation L = SM.getExpansionLoc(Ref->getBeginLoc());
    if (SM.isBeforeInTranslationUnit(After, L) &&
        (!Write || !Order || Order->mayRunAfter(Ref, Write)))
      Read = Ref;
    return true;
  }
  // Calls are visited before the references under them (pre-order).
  const DeclRefExpr *Read = nullptr;

private:
  const VarDecl *P;
  SourceLocation After;
  const SourceManager &SM;
  const Stmt *Write;
  const RunsAfter *Order;
  llvm::DenseSet<const DeclRefExpr *> Skip;
};

/// Whether S is Target or holds it.
bool holdsStmt(const Stmt *S, const Stmt *Target) {
  if (!S)
    return false;
  if (S == Target)
    return true;
  for (const Stmt *Child : S->children())
    if (holdsStmt(Child, Target))
      return true;
  return false;
}

/// A write-back into the receiver t of what the copy holds: `t.copy_(x)`,
/// or an assignment into t or a view of it, `t[i] = x` (Tensor::operator=
/// copies into the view), where x refers to the copy's local or holds the
/// copying call itself (`out[b] = out[b].flatten(1).addmm_(...).view_as(
/// out[b]);`).
class WriteBackFinder : public RecursiveASTVisitor<WriteBackFinder> {
public:
  WriteBackFinder(const VarDecl *Receiver, const VarDecl *Local,
                  const CXXMemberCallExpr *Copy)
      : Receiver(Receiver), Local(Local), Copy(Copy) {}
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
    const CXXMethodDecl *M = Call->getMethodDecl();
    if (M && M->getIdentifier() && M->getName() == "copy_" &&
        Call->getNumArgs() >= 1 &&
        rootVar(Call->getImplicitObjectArgument()) == Receiver &&
        fromCopy(Call->getArg(0)))
      Found.push_back(Call);
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Op) {
    if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
        libtorch::isTensorType(Op->getArg(0)->getType()) &&
        !isa<DeclRefExpr>(libtorch::ignoreTensorWrappers(Op->getArg(0))) &&
        rootVar(Op->getArg(0)) == Receiver && fromCopy(Op->getArg(1)))
      Found.push_back(Op);
    return true;
  }
  std::vector<const Expr *> Found;

private:
  bool fromCopy(const Expr *E) const {
    return (Local && mentions(E, Local)) || holdsStmt(E, Copy);
  }
  const VarDecl *Receiver, *Local;
  const CXXMemberCallExpr *Copy;
};

/// The local a copying call's result is bound to: `auto c = t.contiguous();`
/// or `c = t.contiguous();` (null for a temporary).
const VarDecl *localOf(const CXXMemberCallExpr *Copy, const ParentMap &PM) {
  const Stmt *S = Copy;
  const Stmt *P = PM.getParent(S);
  while (P && (isa<ImplicitCastExpr, CXXBindTemporaryExpr,
                   MaterializeTemporaryExpr, ExprWithCleanups, ParenExpr>(P) ||
               (isa<CXXConstructExpr>(P) &&
                cast<CXXConstructExpr>(P)->getNumArgs() == 1))) {
    S = P;
    P = PM.getParent(P);
  }
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(P)) {
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D);
          V && V->getInit() &&
          V->getInit()->IgnoreImplicit() == cast<Expr>(S)->IgnoreImplicit())
        return V;
    return nullptr;
  }
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P);
      Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
      Op->getArg(1) == S)
    if (const auto *Ref = dyn_cast<DeclRefExpr>(
            libtorch::ignoreTensorWrappers(Op->getArg(0))))
      if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
          V && !isa<ParmVarDecl>(V))
        return V;
  return nullptr;
}

/// Why the code means to update a parameter: a note's text and where it
/// goes.
struct Intent {
  std::string Why;
  SourceLocation At;
};

} // namespace

void WriteIntoCopyCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *TU = Result.Nodes.getNodeAs<TranslationUnitDecl>("tu");
  if (!TU)
    return;
  ASTContext &Ctx = *Result.Context;
  const SourceManager &SM = Ctx.getSourceManager();
  OperatorModel Model;
  Model.collect(TU);
  useProject(Model, SM, ProjectRoot);
  // The registered kernels, by definition: their schemas say which
  // arguments they update.
  llvm::DenseMap<const FunctionDecl *,
                 std::vector<std::pair<const RegisteredOperator *,
                                       const KernelRegistration *>>>
      Kernels;
  for (const RegisteredOperator &Op : Model.operators())
    for (const KernelRegistration &K : Op.Kernels)
      if (const FunctionDecl *D = K.Kernel ? userDefinition(K.Kernel) : nullptr)
        Kernels[D].push_back({&Op, &K});
  ArgumentMutationAnalysis Analysis;
  Reported.clear();

  auto IntentOf = [&](const FunctionDecl *FD, unsigned P,
                      const ArgumentMutationResult &R, SourceLocation LastWrite,
                      const Stmt *LastStmt) -> std::optional<Intent> {
    const ParmVarDecl *Param = FD->getParamDecl(P);
    std::string Name = Param->getName().str();
    auto It = Kernels.find(FD);
    if (It != Kernels.end())
      for (auto [Op, K] : It->second) {
        if (!Op->Schema)
          continue;
        std::optional<unsigned> I = Op->schemaArgumentOf(*K, P);
        if (!I || *I >= Op->Schema->Arguments.size())
          continue;
        const SchemaArgument &A = Op->Schema->Arguments[*I];
        if (A.Alias && A.Alias->IsWrite)
          return Intent{"'" + A.Name +
                            "' is declared mutable in the schema "
                            "of '" +
                            Op->qualifiedName() + "'",
                        K->where()};
        return std::nullopt; // the schema says it is not updated
      }
    QualType T = Param->getType();
    if (T->isLValueReferenceType() && !T->getPointeeType().isConstQualified())
      return Intent{"'" + Name +
                        "' is taken as a non-const reference, "
                        "the convention for an output argument",
                    Param->getLocation()};
    for (const ArgumentReturn &Ret : R.Returns)
      if (Ret.ParamIndex == P && Ret.Direct)
        return Intent{"'" + Name + "' is returned", Ret.Return->getBeginLoc()};
    if (ReadAfterWrite && LastWrite.isValid()) {
      RunsAfter Order(FD, Ctx);
      ReadFinder F(Param, LastWrite, SM, LastStmt, &Order);
      F.TraverseStmt(const_cast<Stmt *>(FD->getBody()));
      if (F.Read)
        return Intent{"'" + Name + "' is read after the write",
                      F.Read->getBeginLoc()};
    }
    return std::nullopt;
  };

  forEachUserFunction(
      TU,
      [&](const FunctionDecl *FD) {
        // The receivers are parameters: a Tensor, an optional<Tensor>, a
        // list of tensors.
        if (FD->getNumParams() == 0)
          return;
        const ArgumentMutationResult &R = Analysis.analyse(FD);
        llvm::MapVector<const CXXMemberCallExpr *,
                        std::vector<const ArgumentWrite *>>
            ByCopy;
        for (const ArgumentWrite &W : R.Writes)
          if (W.Copy && !W.Metadata && !Reported.contains(W.Copy))
            ByCopy[W.Copy].push_back(&W);
        for (auto &[Copy, Writes] : ByCopy) {
          const CopyingMethod *Method = copyingMethodOf(Copy);
          if (!Method || !isUserSpelled(Copy, SM))
            continue;
          SourceLocation CopyLoc = SM.getExpansionLoc(Copy->getBeginLoc());
          // The function that makes the copy, and where in it each write
          // happens (the call of a helper that writes).
          const FunctionDecl *G = holds(FD, CopyLoc, SM) ? FD : nullptr;
          if (!G)
            for (const ArgumentWrite *W : Writes)
              if (holds(W->WriteFunction, CopyLoc, SM))
                G = W->WriteFunction;
          if (!G)
            continue;
          std::vector<const Stmt *> Sites;
          for (const ArgumentWrite *W : Writes)
            Sites.push_back(W->WriteFunction == G ? W->Write
                            : G == FD && W->Via
                                ? static_cast<const Stmt *>(W->Via)
                                : Copy);
          llvm::sort(Sites, [&](const Stmt *A, const Stmt *B) {
            return SM.isBeforeInTranslationUnit(
                SM.getExpansionLoc(A->getBeginLoc()),
                SM.getExpansionLoc(B->getBeginLoc()));
          });
          const Stmt *First = Sites.front(), *Last = Sites.back();
          const Stmt *LastStmt =
              G == FD ? Last
                      : (Writes.back()->Via
                             ? static_cast<const Stmt *>(Writes.back()->Via)
                             : Writes.back()->Write);
          SourceLocation LastInFD = SM.getExpansionLoc(LastStmt->getEndLoc());
          unsigned P = Writes.front()->ParamIndex;
          if (P >= FD->getNumParams())
            continue;
          std::optional<Intent> Why = IntentOf(FD, P, R, LastInFD, LastStmt);
          if (!Why)
            continue;
          // A device move copies only a tensor of another device: reported
          // in a kernel registered where such tensors arrive (a cpu() in a
          // CUDA or catch-all kernel), never in one they do not reach.
          std::optional<Intent> Reached;
          if (Method->Condition == CopyCondition::Device) {
            StringRef From = Method->When.contains("CUDA") ? "cuda" : "cpu";
            auto It = Kernels.find(FD);
            if (It == Kernels.end())
              continue; // not a registered kernel: its devices are not known
            for (auto [Op, K] : It->second)
              if (keyReachedFrom(K->DispatchKey, From)) {
                std::string Key = K->DispatchKey.empty()
                                      ? std::string("CompositeImplicitAutograd")
                                      : K->DispatchKey;
                Reached = Intent{
                    "'" + Op->qualifiedName() + "' has " +
                        (isCatchAll(Key)
                             ? "a catch-all kernel here (" + Key + "), which " +
                                   (From == "cuda" ? "CUDA" : "CPU") +
                                   " tensors reach"
                             : "this kernel for " + Key),
                    K->where()};
                break;
              }
            if (!Reached)
              continue;
          }
          // Guards that rule the copy out: in G on the receiver, and in
          // FD on the parameter (before its call of G).
          const VarDecl *Receiver = rootVar(Copy->getImplicitObjectArgument());
          if (guarded(G, Receiver, Method->Condition, CopyLoc, SM) ||
              (G != FD && guarded(FD, FD->getParamDecl(P), Method->Condition,
                                  SM.getExpansionLoc(
                                      Writes.front()->Via
                                          ? Writes.front()->Via->getBeginLoc()
                                          : CopyLoc),
                                  SM)))
            continue;
          ParentMap PM(G->getBody());
          const VarDecl *Local = localOf(Copy, PM);
          // A write-back of the local into the receiver after the last
          // write: on every path unless an unrelated condition holds it.
          const Expr *PartialWriteBack = nullptr;
          if (Receiver) {
            WriteBackFinder WB(Receiver, Local, Copy);
            WB.TraverseStmt(const_cast<Stmt *>(G->getBody()));
            bool Complete = false;
            for (const Expr *B : WB.Found) {
              // After the last write, or around it (an assignment whose
              // right side writes first).
              if (!SM.isBeforeInTranslationUnit(
                      SM.getExpansionLoc(Last->getBeginLoc()),
                      SM.getExpansionLoc(B->getBeginLoc())) &&
                  !holdsStmt(B, Last))
                continue;
              // The statements around the write-back but not around the
              // write: a branch or a loop there may skip it.
              bool OnEveryPath = true;
              for (const Stmt *S = PM.getParent(B); S && !holdsStmt(S, Last);
                   S = PM.getParent(S)) {
                const Expr *Cond = nullptr;
                if (const auto *If = dyn_cast<IfStmt>(S))
                  Cond = If->getCond();
                else if (const auto *C = dyn_cast<ConditionalOperator>(S))
                  Cond = C->getCond();
                else if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt,
                             SwitchStmt>(S))
                  OnEveryPath = false;
                if (Cond && !mentions(Cond, Local) && !mentions(Cond, Receiver))
                  OnEveryPath = false;
              }
              if (OnEveryPath)
                Complete = true;
              else if (!PartialWriteBack)
                PartialWriteBack = B;
            }
            if (Complete)
              continue;
          }
          Reported.insert(Copy);

          std::string Form = Writes.front()->Form;
          for (const ArgumentWrite *W : Writes)
            if (W->Write == First || W->Via == First)
              Form = W->Form;
          std::string Recv =
              messageText(Copy->getImplicitObjectArgument(), Ctx, 40);
          std::string ParamName = FD->getParamDecl(P)->getName().str();
          std::string Caller = G == FD ? "the caller's '" + ParamName + "'"
                                       : "'" + ParamName + "' of '" +
                                             FD->getNameAsString() + "'";
          SourceLocation Loc = written(First->getBeginLoc());
          FixPlan Plan =
              Method->Condition == CopyCondition::Device
                  ? FixPlan::noFix(
                        "no rule of RewriteRules.def moves a device copy's "
                        "values back yet; copy them into the receiver after "
                        "the last write (" +
                        FD->getParamDecl(P)->getName().str() +
                        ".copy_(...)), or write on its device")
                  : planWriteIntoCopy({Copy, Local, Receiver, Last, Method}, G,
                                      PartialWriteBack != nullptr, Ctx);
          {
            auto D =
                diag(Loc,
                     "write into '%1' (%0) is lost when '%2' %3: %4() then "
                     "returns a new tensor, and %5 is left "
                     "unchanged%6")
                << Form << messageText(Copy, Ctx, 50) << Recv
                << Method->When.str() << Method->Method.str() << Caller
                << (PartialWriteBack
                        ? "; the write-back at line " +
                              std::to_string(SM.getExpansionLineNumber(
                                  PartialWriteBack->getBeginLoc())) +
                              " runs on one path only"
                        : std::string("; no write-back copies it into the "
                                      "receiver"));
            if (fixOnLineOf(Plan, Loc))
              addFix(D, Plan);
          }
          if (G != FD && Writes.front()->Via)
            diag(written(Writes.front()->Via->getBeginLoc()),
                 "'%0' reaches the copy through this call", DiagnosticIDs::Note)
                << ParamName;
          diag(written(Why->At), "%0", DiagnosticIDs::Note) << Why->Why;
          if (Reached)
            diag(written(Reached->At), "%0", DiagnosticIDs::Note)
                << Reached->Why;
          if (!fixOnLineOf(Plan, Loc) && Plan.hasFix()) {
            auto N = diag(Plan.Edits.front().Range.getBegin(), "%0",
                          DiagnosticIDs::Note)
                     << (Plan.Rule->Id == "write-back-copy"
                             ? "the fix copies the result back here, after "
                               "the last write"
                             : "the fix checks here that no copy is made");
            addFix(N, Plan);
          }
          noteFix(Loc, Plan);
        }
      },
      /*IncludeDependent=*/true);
}

} // namespace torch_tidy

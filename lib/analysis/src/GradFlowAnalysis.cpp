//===- GradFlowAnalysis.cpp - Where fresh non-grad tensors flow -----------===//

#include "torch_tidy/analysis/GradFlowAnalysis.h"
#include "torch_tidy/analysis/NoGradScope.h"
#include "torch_tidy/libtorch/LibTorchApi.h"
#include "torch_tidy/libtorch/UserCode.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/Analyses/PostOrderCFGView.h"
#include "clang/Analysis/CFG.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include <algorithm>
#include <optional>
#include <queue>

using namespace clang;

namespace torch_tidy {

namespace {
using FlowState = llvm::SmallDenseMap<const VarDecl *, TensorFact, 8>;

/// Must-join of two facts: a variable is fresh after a merge only if it is
/// fresh on every incoming path.
TensorFact join(const TensorFact &A, const TensorFact &B) {
  if (A == B)
    return A;
  if (A.K != B.K)
    return TensorFact::maybeGrad();
  switch (A.K) {
  case TensorFact::Fresh: {
    TensorFact F = A;
    F.Written = A.Written || B.Written;
    return F;
  }
  case TensorFact::NonGrad:
    return A;
  default:
    return TensorFact::maybeGrad();
  }
}

void joinInto(FlowState &Into, const FlowState &From) {
  for (const auto &[V, F] : From) {
    auto It = Into.find(V);
    if (It == Into.end())
      Into[V] = F;
    else
      It->second = join(It->second, F);
  }
}

bool isLocalTensorVar(const VarDecl *V) {
  return V && (V->hasLocalStorage() || isa<ParmVarDecl>(V)) &&
         libtorch::isTensorType(V->getType());
}

const VarDecl *referencedVar(const Expr *E) {
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(
      E ? libtorch::ignoreTensorWrappers(E) : nullptr);
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

/// The parameters a value that may require grad carries grad through, as a
/// mask (bit I: parameter I); 0 when it may carry grad from anything else.
uint64_t gradParams(const TensorFact &F) {
  if (F.K == TensorFact::Param)
    return F.ParamIndex < 64 ? uint64_t(1) << F.ParamIndex : 0;
  return F.K == TensorFact::MaybeGrad ? F.FromParams : 0;
}

/// Whether a write into this fact, as a source, may carry grad.
bool mayRequireGrad(const TensorFact &F) {
  return F.K == TensorFact::MaybeGrad || F.K == TensorFact::Param ||
         (F.K == TensorFact::Fresh && F.Written);
}
} // namespace

class GradFlowAnalysis::FunctionRun {
public:
  FunctionRun(GradFlowAnalysis &Owner, const FunctionDecl *FD,
              FunctionFlowResult &Out)
      : Owner(Owner), FD(FD), Ctx(Owner.Ctx), Out(Out) {}

  void run();

private:
  struct Target {
    const VarDecl *Var = nullptr;
    bool ThroughView = false;
  };

  TensorFact factOf(const VarDecl *V, const FlowState &St) const;
  TensorFact classify(const Expr *E, const FlowState &St, int Depth = 0) const;
  TensorFact combineOperands(const Stmt *S, const FlowState &St,
                             int Depth) const;
  TensorFact bindingFact(const Expr *Init, const FlowState &St,
                         bool IsReference) const;
  Target resolveTarget(const Expr *E, const FlowState &St) const;
  void walk(const Stmt *S, FlowState &St);
  void handleExpr(const Expr *E, FlowState &St);
  void handleWrite(const InPlaceWrite &W, FlowState &St);
  void handleCall(const CallExpr *Call, FlowState &St);
  void assign(const VarDecl *V, TensorFact F, FlowState &St);
  bool underNoGrad(const Stmt *S);
  bool handedToRawKernel(const VarDecl *V);
  void analyseCapturingLambda(const LambdaExpr *L, const FlowState &St);
  bool worthAnalysing(const Stmt *S) const;
  struct Liveness {
    llvm::DenseMap<const VarDecl *, unsigned> Index;
    std::vector<llvm::BitVector> LiveOut; ///< by block id
  };
  static Liveness liveness(const CFG &Cfg);
  static void pruneDead(FlowState &St, const CFGBlock &B, const Liveness &L);

  GradFlowAnalysis &Owner;
  const FunctionDecl *FD;
  ASTContext &Ctx;
  FunctionFlowResult &Out;
  std::unique_ptr<NoGradScopes> Guards;
  std::optional<llvm::DenseSet<const VarDecl *>> RawAccessed;
  bool Recording = false;
  bool HasTensorParams = false;
  llvm::DenseSet<const Expr *> Recorded;
  llvm::DenseSet<const LambdaExpr *> LambdasSeen;
  /// A lambda's body analysed for the function it is written in: the
  /// entry state holds the enclosing function's facts where the lambda is
  /// made, and the lambda's own parameters are unknown values (its callers
  /// are not followed).
  std::optional<FlowState> Seed;
};

TensorFact GradFlowAnalysis::FunctionRun::factOf(const VarDecl *V,
                                                 const FlowState &St) const {
  for (int Hops = 0; V && Hops < 16; ++Hops) {
    auto It = St.find(V);
    if (It == St.end()) {
      if (const auto *P = dyn_cast<ParmVarDecl>(V))
        if (P->getDeclContext() == FD && !Seed)
          return {TensorFact::Param, nullptr, nullptr,
                  P->getFunctionScopeIndex()};
      return TensorFact::maybeGrad();
    }
    if (It->second.K != TensorFact::ViewOf)
      return It->second;
    V = It->second.Base;
  }
  return TensorFact::maybeGrad();
}

TensorFact GradFlowAnalysis::FunctionRun::combineOperands(const Stmt *S,
                                                          const FlowState &St,
                                                          int Depth) const {
  bool AnyGrad = false;
  uint64_t Params = 0; // the parameters all the grad comes through, if any
  bool OnlyParams = true;
  for (const Stmt *Child : S->children()) {
    const auto *E = dyn_cast_or_null<Expr>(Child);
    if (!E || isa<CXXDefaultArgExpr>(E))
      continue;
    // A number carries no grad, even one read from a tensor that does
    // (torch::tensor({(float)x.size(2)}), t.fill_(x.item<float>())).
    QualType T = E->getType();
    if (!T.isNull() && !E->isTypeDependent() &&
        (T->isArithmeticType() || T->isEnumeralType()))
      continue;
    TensorFact F = libtorch::isTensorType(E->getType())
                       ? classify(E, St, Depth + 1)
                       : combineOperands(E, St, Depth + 1);
    if (!mayRequireGrad(F))
      continue;
    AnyGrad = true;
    uint64_t P = gradParams(F);
    Params |= P;
    OnlyParams &= P != 0;
  }
  if (!AnyGrad)
    return TensorFact::nonGrad();
  TensorFact F = TensorFact::maybeGrad();
  if (OnlyParams)
    F.FromParams = Params;
  return F;
}

TensorFact GradFlowAnalysis::FunctionRun::classify(const Expr *E,
                                                   const FlowState &St,
                                                   int Depth) const {
  if (!E || Depth > 32)
    return TensorFact::maybeGrad();
  E = libtorch::ignoreTensorWrappers(E);
  if (E->isTypeDependent())
    return TensorFact::maybeGrad();
  if (!libtorch::isTensorType(E->getType()))
    return TensorFact::nonGrad(); // Scalars, literals, sizes.

  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    if (V && (V->hasLocalStorage() || isa<ParmVarDecl>(V)))
      return factOf(V, St);
    return TensorFact::maybeGrad(); // Globals.
  }
  // Members, and tensors read through pointers or from arrays.
  if (isa<MemberExpr>(E) || isa<ArraySubscriptExpr>(E))
    return TensorFact::maybeGrad();
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_Deref)
    return TensorFact::maybeGrad();
  if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(E)) {
    TensorFact A = classify(Cond->getTrueExpr(), St, Depth + 1);
    TensorFact B = classify(Cond->getFalseExpr(), St, Depth + 1);
    // `opt ? *opt : at::zeros(...)`: the fresh arm makes a hazardous target;
    // if the other arm may carry grad, so may the result as a source.
    if (A.K == TensorFact::Fresh || B.K == TensorFact::Fresh) {
      TensorFact F = A.K == TensorFact::Fresh ? A : B;
      F.Written |= mayRequireGrad(A) || mayRequireGrad(B);
      return F;
    }
    return mayRequireGrad(A) || mayRequireGrad(B) ? TensorFact::maybeGrad()
                                                  : TensorFact::nonGrad();
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call)
    return combineOperands(E, St, Depth);
  if (libtorch::isNonGradFactory(Call)) {
    // What the options ask for is read once per factory call: following an
    // options variable walks the function.
    auto [It, New] = Owner.FactoryMayRequireGrad.try_emplace(Call, false);
    if (New)
      It->second = libtorch::factoryMayRequireGrad(Call);
    if (It->second)
      return TensorFact::maybeGrad();
    // A tensor made with an integer or bool dtype (`zeros(..., kInt8)`) can
    // never require grad, so it is no target: a write into it casts the
    // values and drops the graph in eager mode too.
    return libtorch::producesNonGradValue(Call) ? TensorFact::nonGrad()
                                                : TensorFact::fresh(Call);
  }
  if (libtorch::producesNonGradValue(Call))
    return TensorFact::nonGrad();
  if (!libtorch::torchCallee(Call)) {
    // Operators on tensors are at:: functions; any other call's result may
    // require grad.
    return TensorFact::maybeGrad();
  }
  const FunctionDecl *Callee = Call->getDirectCallee();
  const StringRef Name =
      Callee->getIdentifier() ? Callee->getName() : StringRef(); // operators
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    if (libtorch::isRequiresGradSetter(Callee))
      return TensorFact::maybeGrad();
    if (libtorch::isFreshnessPreservingMethod(MC)) {
      TensorFact Obj = classify(MC->getImplicitObjectArgument(), St, Depth + 1);
      if (Obj.K == TensorFact::Fresh)
        return Obj;
    }
    // `torch::empty({n}).fill_(0)`, `.zero_()`: an in-place op returns its
    // object, still fresh; it has received grad if an operand carries some.
    if (libtorch::isInPlaceValueMethod(MC)) {
      TensorFact Obj = classify(MC->getImplicitObjectArgument(), St, Depth + 1);
      if (Obj.K == TensorFact::Fresh) {
        for (const Expr *Arg : MC->arguments())
          if (!isa<CXXDefaultArgExpr>(Arg) &&
              libtorch::isTensorType(Arg->getType()) &&
              mayRequireGrad(classify(Arg, St, Depth + 1)))
            Obj.Written = true;
        return Obj;
      }
    }
  }
  return combineOperands(Call, St, Depth);
}

TensorFact GradFlowAnalysis::FunctionRun::bindingFact(const Expr *Init,
                                                      const FlowState &St,
                                                      bool IsReference) const {
  if (!Init)
    return TensorFact::nonGrad(); // `torch::Tensor t;` is undefined.
  bool IsView = IsReference;
  const Expr *E = libtorch::viewChainRoot(Init, &IsView);
  if (IsView)
    if (const VarDecl *Base = referencedVar(E); isLocalTensorVar(Base)) {
      TensorFact F;
      F.K = TensorFact::ViewOf;
      F.Base = Base;
      return F;
    }
  return classify(Init, St);
}

GradFlowAnalysis::FunctionRun::Target
GradFlowAnalysis::FunctionRun::resolveTarget(const Expr *E,
                                             const FlowState &St) const {
  Target T;
  E = libtorch::viewChainRoot(E, &T.ThroughView);
  const VarDecl *V = referencedVar(E);
  if (!isLocalTensorVar(V))
    return T;
  for (int Hops = 0; Hops < 16; ++Hops) {
    auto It = St.find(V);
    if (It == St.end() || It->second.K != TensorFact::ViewOf)
      break;
    // A reference alias is not a slice, a named view is.
    if (!V->getType()->isReferenceType())
      T.ThroughView = true;
    V = It->second.Base;
  }
  T.Var = V;
  return T;
}

bool GradFlowAnalysis::FunctionRun::underNoGrad(const Stmt *S) {
  if (!Guards)
    Guards = std::make_unique<NoGradScopes>(FD->getBody());
  return Guards->contains(S);
}

/// Whether the function takes a raw pointer or accessor into V (data_ptr,
/// accessor, packed_accessor...), in its body or its lambdas: V is then a
/// buffer handed to a raw kernel, whose autograd flag the code does not
/// rely on.
bool GradFlowAnalysis::FunctionRun::handedToRawKernel(const VarDecl *V) {
  if (!RawAccessed) {
    RawAccessed.emplace();
    struct Finder : RecursiveASTVisitor<Finder> {
      llvm::DenseSet<const VarDecl *> &Out;
      explicit Finder(llvm::DenseSet<const VarDecl *> &Out) : Out(Out) {}
      bool VisitCXXMemberCallExpr(CXXMemberCallExpr *C) {
        const CXXMethodDecl *MD = C->getMethodDecl();
        if (!MD || !MD->getIdentifier() ||
            !libtorch::isTensorType(C->getObjectType()))
          return true;
        static const llvm::StringSet<> Raw = {
            "data_ptr",           "mutable_data_ptr",
            "const_data_ptr",     "accessor",
            "packed_accessor",    "packed_accessor32",
            "packed_accessor64",  "generic_packed_accessor",
            "unsafeGetTensorImpl"};
        if (Raw.contains(MD->getName()))
          if (const VarDecl *Var =
                  referencedVar(C->getImplicitObjectArgument()))
            Out.insert(Var);
        return true;
      }
    } F(*RawAccessed);
    F.TraverseStmt(FD->getBody());
  }
  return RawAccessed->contains(V);
}

void GradFlowAnalysis::FunctionRun::assign(const VarDecl *V, TensorFact F,
                                           FlowState &St) {
  // Assigning through a reference alias assigns the referenced variable.
  for (int Hops = 0; Hops < 16 && V->getType()->isReferenceType(); ++Hops) {
    auto It = St.find(V);
    if (It == St.end() || It->second.K != TensorFact::ViewOf)
      break;
    V = It->second.Base;
  }
  if (const auto *P = dyn_cast<ParmVarDecl>(V))
    if (P->getDeclContext() == FD && P->getType()->isLValueReferenceType() &&
        !P->getType().getNonReferenceType().isConstQualified()) {
      unsigned I = P->getFunctionScopeIndex();
      if (Out.ReassignedParams.size() <= I)
        Out.ReassignedParams.resize(I + 1);
      Out.ReassignedParams.set(I);
    }
  St[V] = F;
}

void GradFlowAnalysis::FunctionRun::handleWrite(const InPlaceWrite &W,
                                                FlowState &St) {
  Target T = resolveTarget(W.Receiver, St);
  if (!T.Var)
    return;
  TensorFact TF = factOf(T.Var, St);
  if (TF.K != TensorFact::Fresh && TF.K != TensorFact::Param)
    return;
  TensorFact First = classify(W.Source, St);
  TensorFact Other =
      W.OtherSource ? classify(W.OtherSource, St) : TensorFact::nonGrad();
  if (!(mayRequireGrad(First) || mayRequireGrad(Other)) || underNoGrad(W.Write))
    return;
  ParamWrite PW{W, TF.ParamIndex, FD, T.ThroughView};
  // Name the operand that carries the grad (index_add_(d, index, v): v).
  if (!mayRequireGrad(First))
    std::swap(PW.Write.Source, PW.Write.OtherSource);
  // A value that is one of the parameters carries grad only if the caller's
  // argument does.
  bool OnlyParams = true;
  for (const TensorFact &F : {First, Other}) {
    if (!mayRequireGrad(F))
      continue;
    uint64_t P = gradParams(F);
    OnlyParams &= P != 0;
    for (unsigned I = 0; I < 64; ++I)
      if (P & (uint64_t(1) << I) &&
          !llvm::is_contained(PW.GradOnlyFromParams, I))
        PW.GradOnlyFromParams.push_back(I);
  }
  if (!OnlyParams)
    PW.GradOnlyFromParams.clear();
  if (TF.K == TensorFact::Fresh) {
    // Any such write makes the tensor require grad in eager mode; only a
    // sliced or indexed one is reported for a fresh local.
    if (PW.countsForFreshTarget() && Recording &&
        Recorded.insert(W.Write).second && !handedToRawKernel(T.Var))
      Out.Writes.push_back({PW.Write, T.Var, TF.Origin, PW.GradOnlyFromParams});
    St[T.Var].Written = true;
    return;
  }
  if (Recording && Recorded.insert(W.Write).second)
    Out.ParamWrites.push_back(PW);
}

void GradFlowAnalysis::FunctionRun::handleCall(const CallExpr *Call,
                                               FlowState &St) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || libtorch::isInTorchNamespace(Callee) ||
      Callee->isInStdNamespace())
    return;
  // Arguments line up with parameters, except that an operator call on a
  // method passes the object as its first argument.
  unsigned Shift =
      isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
  auto ArgFor = [&](unsigned ParamIndex) -> const Expr * {
    unsigned I = ParamIndex + Shift;
    return I < Call->getNumArgs() ? Call->getArg(I) : nullptr;
  };
  const FunctionDecl *Def = userDefinition(Callee);
  if (!Def) {
    // Unknown body: a tensor passed by non-const reference may be replaced.
    for (unsigned I = 0; I < Callee->getNumParams(); ++I) {
      QualType PT = Callee->getParamDecl(I)->getType();
      if (PT->isLValueReferenceType() &&
          !PT.getNonReferenceType().isConstQualified())
        if (const VarDecl *V = referencedVar(ArgFor(I)); isLocalTensorVar(V))
          assign(V, TensorFact::maybeGrad(), St);
    }
    return;
  }
  if (Recording) {
    // For the callee's writes whose grad comes only through its parameters:
    // what this call passes for them.
    CallArguments CA{Call, {}};
    bool NoGrad = underNoGrad(Call);
    for (unsigned I = 0; I < Def->getNumParams(); ++I) {
      ArgumentGrad G;
      const Expr *Arg = ArgFor(I);
      if (Arg && libtorch::isTensorType(Def->getParamDecl(I)->getType())) {
        TensorFact F = classify(Arg, St);
        if (NoGrad || !mayRequireGrad(F))
          G.K = ArgumentGrad::None;
        else if (uint64_t P = gradParams(F))
          G = {ArgumentGrad::FromParams, P};
      }
      CA.Params.push_back(G);
    }
    Out.CallArgs.push_back(std::move(CA));
  }
  const FunctionFlowResult &Summary = Owner.analyse(Def);
  for (const ParamWrite &Inner : Summary.ParamWrites) {
    const Expr *Arg = ArgFor(Inner.ParamIndex);
    if (!Arg)
      continue;
    Target T = resolveTarget(Arg, St);
    if (!T.Var)
      continue;
    // Seen from here, the write goes through this call, and through a view
    // if the argument is one.
    ParamWrite PW = Inner;
    PW.ThroughView = Inner.ThroughView || T.ThroughView;
    PW.Via = Call;
    PW.SourceAtVia = nullptr;
    if (!Inner.GradOnlyFromParams.empty()) {
      // The value is the callee's parameter: it carries grad only if what
      // is passed for it may, and then only through our own parameters if
      // that is all it is.
      PW.GradOnlyFromParams.clear();
      bool AnyGrad = false, OnlyParams = true;
      for (unsigned P : Inner.GradOnlyFromParams) {
        const Expr *SourceArg = ArgFor(P);
        TensorFact F =
            SourceArg ? classify(SourceArg, St) : TensorFact::maybeGrad();
        if (!mayRequireGrad(F))
          continue;
        if (!AnyGrad)
          PW.SourceAtVia = SourceArg;
        AnyGrad = true;
        if (F.K == TensorFact::Param)
          PW.GradOnlyFromParams.push_back(F.ParamIndex);
        else
          OnlyParams = false;
      }
      if (!AnyGrad)
        continue;
      if (!OnlyParams)
        PW.GradOnlyFromParams.clear();
    }
    TensorFact TF = factOf(T.Var, St);
    if (TF.K == TensorFact::Fresh) {
      if (PW.countsForFreshTarget() && !underNoGrad(Call) && Recording &&
          Recorded.insert(Call).second && !handedToRawKernel(T.Var))
        Out.Calls.push_back(
            {Call, Callee, T.Var, TF.Origin, Inner, PW.GradOnlyFromParams});
      St[T.Var].Written = true;
    } else if (TF.K == TensorFact::Param && Recording && !underNoGrad(Call)) {
      PW.ParamIndex = TF.ParamIndex;
      Out.ParamWrites.push_back(PW);
    }
  }
  for (unsigned I : Summary.ReassignedParams.set_bits())
    if (const VarDecl *V = referencedVar(ArgFor(I)); isLocalTensorVar(V))
      assign(V, TensorFact::maybeGrad(), St);
}

/// Writes in L's body into the fresh locals of this function that L
/// captures are this function's writes: L's body is analysed from the facts
/// where L is made (a capture by reference sees the variable, one by value
/// a handle that shares its data), and the writes into captured targets
/// are recorded here, with how the lambda reaches them.
void GradFlowAnalysis::FunctionRun::analyseCapturingLambda(
    const LambdaExpr *L, const FlowState &St) {
  const CXXMethodDecl *Body = L->getCallOperator();
  // A lambda made under a no-grad guard is taken to run there.
  if (!Body || !Body->getBody() || underNoGrad(L))
    return;
  FlowState Entry = St;
  llvm::SmallDenseMap<const VarDecl *, bool, 4> ByReference;
  bool AnyTarget = false;
  for (const LambdaCapture &C : L->captures()) {
    const auto *V =
        C.capturesVariable() ? dyn_cast<VarDecl>(C.getCapturedVar()) : nullptr;
    if (!isLocalTensorVar(V))
      continue;
    ByReference[V] = C.getCaptureKind() == LCK_ByRef;
    TensorFact F = factOf(V, St);
    // The enclosing function's parameters keep their own facts, so that a
    // value from them carries grad only through them, as here.
    if (const auto *P = dyn_cast<ParmVarDecl>(V); P && !Entry.count(V))
      Entry[V] = F;
    AnyTarget |= F.K == TensorFact::Fresh;
  }
  if (!AnyTarget)
    return;
  FunctionFlowResult Inner;
  FunctionRun Run(Owner, Body, Inner);
  Run.Seed = std::move(Entry);
  Run.run();
  // Where the lambda reaches Target: its capture, and for a write in a
  // nested lambda, that lambda's too.
  auto Reach = [&](const VarDecl *Target, const Expr *Receiver,
                   const std::optional<CapturedWrite> &Deeper) {
    CapturedWrite CW;
    CW.Lambda = L;
    CW.Nested = Deeper.has_value();
    auto It = ByReference.find(Target);
    if (It == ByReference.end() ||
        (Deeper && Deeper->How == CapturedWrite::ThroughView)) {
      CW.How = CapturedWrite::ThroughView;
      const VarDecl *Root =
          Receiver ? referencedVar(libtorch::viewChainRoot(Receiver)) : nullptr;
      CW.View = Root && ByReference.count(Root)
                    ? Root
                    : (Deeper ? Deeper->View : nullptr);
    } else {
      CW.How =
          It->second && (!Deeper || Deeper->How == CapturedWrite::ByReference)
              ? CapturedWrite::ByReference
              : CapturedWrite::ByValue;
    }
    return CW;
  };
  auto Captured = [&](const VarDecl *Target) {
    // Declared outside the lambda: one of this function's locals.
    return !Body->Encloses(Target->getDeclContext()) &&
           Target->getDeclContext() != Body;
  };
  for (HazardousWrite &W : Inner.Writes)
    if (Captured(W.Target) && Recorded.insert(W.Write.Write).second &&
        !handedToRawKernel(W.Target)) {
      W.Captured = Reach(W.Target, W.Write.Receiver, W.Captured);
      Out.Writes.push_back(std::move(W));
    }
  for (HazardousCall &C : Inner.Calls)
    if (Captured(C.Target) && Recorded.insert(C.Call).second &&
        !handedToRawKernel(C.Target)) {
      C.Captured = Reach(C.Target, nullptr, C.Captured);
      Out.Calls.push_back(std::move(C));
    }
}

void GradFlowAnalysis::FunctionRun::handleExpr(const Expr *E, FlowState &St) {
  if (auto W = matchInPlaceWrite(E)) {
    handleWrite(*W, St);
    return;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
    // std::tie(a, b) = f(...): the tied locals take values the analysis
    // does not follow.
    if (const auto *Tie = dyn_cast<CallExpr>(Op->getArg(0)->IgnoreImplicit());
        Tie && Tie->getDirectCallee() &&
        Tie->getDirectCallee()->isInStdNamespace() &&
        Tie->getDirectCallee()->getIdentifier() &&
        Tie->getDirectCallee()->getName() == "tie") {
      for (const Expr *Arg : Tie->arguments())
        if (const VarDecl *V = referencedVar(Arg); isLocalTensorVar(V))
          assign(V, TensorFact::maybeGrad(), St);
      return;
    }
    const VarDecl *V = referencedVar(Op->getArg(0));
    if (isLocalTensorVar(V)) {
      assign(V, bindingFact(Op->getArg(1), St, /*IsReference=*/false), St);
      return;
    }
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    if (libtorch::isRequiresGradSetter(libtorch::torchCallee(MC))) {
      // requires_grad_(false) keeps the tensor non-grad.
      bool Off = false;
      if (MC->getNumArgs() == 1 && !isa<CXXDefaultArgExpr>(MC->getArg(0)))
        Off = !libtorch::boolLiteral(MC->getArg(0)).value_or(true);
      if (const VarDecl *V = referencedVar(MC->getImplicitObjectArgument());
          !Off && isLocalTensorVar(V))
        assign(V, TensorFact::maybeGrad(), St);
      return;
    }
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    handleCall(Call, St);
}

void GradFlowAnalysis::FunctionRun::walk(const Stmt *S, FlowState &St) {
  if (!S)
    return;
  if (const auto *L = dyn_cast<LambdaExpr>(S)) {
    // A lambda's body runs later; it is analysed as its own function, and,
    // for the locals of this one that it captures, here.
    if (Recording && LambdasSeen.insert(L).second)
      analyseCapturingLambda(L, St);
    return;
  }
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V)
        continue;
      if (V->hasInit())
        walk(V->getInit(), St);
      if (isLocalTensorVar(V))
        St[V] = bindingFact(V->getInit(), St, V->getType()->isReferenceType());
    }
    return;
  }
  for (const Stmt *Child : S->children())
    walk(Child, St);
  if (const auto *E = dyn_cast<Expr>(S))
    handleExpr(E, St);
}

/// Backward liveness of the tensor variables, one bit per variable and
/// block. Facts of variables dead at a block's end are dropped, so the state
/// stays as small as the set of live tensors; without it a long function
/// with many locals costs time and memory quadratic in its length.
GradFlowAnalysis::FunctionRun::Liveness
GradFlowAnalysis::FunctionRun::liveness(const CFG &Cfg) {
  Liveness L;
  unsigned NumBlocks = Cfg.getNumBlockIDs();
  std::vector<std::vector<unsigned>> Uses(NumBlocks), Defs(NumBlocks);
  struct Mentions : RecursiveASTVisitor<Mentions> {
    bool shouldVisitLambdaBody() const { return false; }
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      if (const auto *V = dyn_cast<VarDecl>(E->getDecl());
          V && isLocalTensorVar(V))
        Used.push_back(V);
      return true;
    }
    bool VisitVarDecl(VarDecl *V) {
      if (isLocalTensorVar(V))
        Declared.push_back(V);
      return true;
    }
    std::vector<const VarDecl *> Used, Declared;
  };
  auto IndexOf = [&](const VarDecl *V) {
    auto [It, New] = L.Index.try_emplace(V, L.Index.size());
    return It->second;
  };
  for (const CFGBlock *B : Cfg) {
    Mentions M;
    for (const CFGElement &Elem : *B)
      if (auto CS = Elem.getAs<CFGStmt>())
        M.TraverseStmt(const_cast<Stmt *>(CS->getStmt()));
    if (const Stmt *T = B->getTerminatorStmt())
      M.TraverseStmt(const_cast<Stmt *>(T));
    for (const VarDecl *V : M.Used)
      Uses[B->getBlockID()].push_back(IndexOf(V));
    for (const VarDecl *V : M.Declared)
      Defs[B->getBlockID()].push_back(IndexOf(V));
  }
  unsigned N = L.Index.size();
  L.LiveOut.assign(NumBlocks, llvm::BitVector(N));
  std::vector<llvm::BitVector> LiveIn(NumBlocks, llvm::BitVector(N));
  // Post-order visits successors first, so few passes are needed. Clang's
  // view, not llvm::po_begin: a CFG has null successors (unreachable
  // edges, after noreturn calls), which the generic traversal dereferences.
  PostOrderCFGView View(&Cfg);
  std::vector<const CFGBlock *> Order(View.begin(), View.end());
  std::reverse(Order.begin(), Order.end());
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const CFGBlock *B : Order) {
      unsigned Id = B->getBlockID();
      llvm::BitVector Out(N);
      for (const CFGBlock *Succ : B->succs())
        if (Succ)
          Out |= LiveIn[Succ->getBlockID()];
      llvm::BitVector In = Out;
      for (unsigned D : Defs[Id])
        In.reset(D);
      for (unsigned U : Uses[Id])
        In.set(U);
      L.LiveOut[Id] = std::move(Out);
      if (In != LiveIn[Id]) {
        LiveIn[Id] = std::move(In);
        Changed = true;
      }
    }
  }
  return L;
}

void GradFlowAnalysis::FunctionRun::pruneDead(FlowState &St, const CFGBlock &B,
                                              const Liveness &L) {
  const llvm::BitVector &Live = L.LiveOut[B.getBlockID()];
  auto IsLive = [&](const VarDecl *V) {
    auto It = L.Index.find(V);
    return It == L.Index.end() || Live.test(It->second);
  };
  llvm::SmallPtrSet<const VarDecl *, 8> Keep;
  for (const auto &[V, F] : St) {
    if (!IsLive(V))
      continue;
    Keep.insert(V);
    // A live view keeps the variables it views.
    for (TensorFact G = F;
         G.K == TensorFact::ViewOf && Keep.insert(G.Base).second;) {
      auto It = St.find(G.Base);
      if (It == St.end())
        break;
      G = It->second;
    }
  }
  if (Keep.size() == St.size())
    return;
  FlowState Pruned;
  for (const auto &[V, F] : St)
    if (Keep.count(V))
      Pruned[V] = F;
  St = std::move(Pruned);
}

bool GradFlowAnalysis::FunctionRun::worthAnalysing(const Stmt *S) const {
  if (!S)
    return false;
  if (const auto *L = dyn_cast<LambdaExpr>(S))
    return llvm::any_of(L->captures(),
                        [](const LambdaCapture &C) {
                          const auto *V =
                              C.capturesVariable()
                                  ? dyn_cast<VarDecl>(C.getCapturedVar())
                                  : nullptr;
                          return isLocalTensorVar(V);
                        }) &&
           worthAnalysing(L->getBody());
  if (const auto *E = dyn_cast<Expr>(S)) {
    // In-place arithmetic (add_, ...) matters only for writes into
    // parameters (mutable operator arguments), so only with tensor ones.
    if (auto W = matchInPlaceWrite(E);
        W && (!W->OnlyMutableTargets || HasTensorParams))
      return true;
    // Assignments matter to callers when they replace a reference parameter.
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
        Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
        isLocalTensorVar(referencedVar(Op->getArg(0))))
      return true;
    if (const auto *Call = dyn_cast<CallExpr>(E))
      if (const FunctionDecl *Callee = Call->getDirectCallee();
          Callee && !libtorch::isInTorchNamespace(Callee) &&
          !Callee->isInStdNamespace() && userDefinition(Callee))
        return true;
  }
  for (const Stmt *Child : S->children())
    if (worthAnalysing(Child))
      return true;
  return false;
}

void GradFlowAnalysis::FunctionRun::run() {
  const Stmt *Body = FD->getBody();
  HasTensorParams = llvm::any_of(FD->parameters(), [](const ParmVarDecl *P) {
    return libtorch::isTensorType(P->getType());
  });
  if (!Body || !worthAnalysing(Body)) {
    ++Owner.Stats.FunctionsSkipped;
    return;
  }
  CFG::BuildOptions Opts;
  Opts.AddImplicitDtors = false;
  Opts.AddTemporaryDtors = false;
  Opts.AddInitializers = false;
  std::unique_ptr<CFG> Cfg =
      CFG::buildCFG(FD, const_cast<Stmt *>(Body), &Ctx, Opts);
  if (!Cfg) {
    ++Owner.Stats.FunctionsSkipped;
    return;
  }
  ++Owner.Stats.FunctionsAnalysed;
  Owner.Stats.CFGBlocks += Cfg->getNumBlockIDs();

  // Visit blocks in reverse post-order; a worklist ordered by that rank
  // makes loops converge in a few passes (the lattice only descends).
  std::vector<unsigned> Rank(Cfg->getNumBlockIDs(), ~0u);
  std::vector<const CFGBlock *> ByRank;
  for (const CFGBlock *B : PostOrderCFGView(Cfg.get())) { // reverse post-order
    Rank[B->getBlockID()] = ByRank.size();
    ByRank.push_back(B);
  }
  std::vector<std::optional<FlowState>> In(Cfg->getNumBlockIDs());
  std::vector<std::optional<FlowState>> OutStates(Cfg->getNumBlockIDs());
  In[Cfg->getEntry().getBlockID()] = Seed ? *Seed : FlowState();
  const Liveness Live = liveness(*Cfg);

  auto Transfer = [&](const CFGBlock *B, FlowState St) {
    Owner.Stats.StateEntries += St.size();
    Owner.Stats.MaxStateSize =
        std::max<unsigned>(Owner.Stats.MaxStateSize, St.size());
    for (const CFGElement &Elem : *B)
      if (auto CS = Elem.getAs<CFGStmt>()) {
        ++Owner.Stats.ElementsVisited;
        walk(CS->getStmt(), St);
      }
    return St;
  };

  std::priority_queue<unsigned, std::vector<unsigned>, std::greater<>> Work;
  std::vector<bool> Queued(ByRank.size(), false);
  Work.push(0);
  Queued[0] = true;
  while (!Work.empty()) {
    unsigned R = Work.top();
    Work.pop();
    Queued[R] = false;
    const CFGBlock *B = ByRank[R];
    ++Owner.Stats.BlocksVisited;
    FlowState Result = Transfer(B, *In[B->getBlockID()]);
    pruneDead(Result, *B, Live);
    auto &Prev = OutStates[B->getBlockID()];
    if (Prev && *Prev == Result)
      continue;
    Prev = std::move(Result);
    for (const CFGBlock *Succ : B->succs()) {
      if (!Succ || Rank[Succ->getBlockID()] == ~0u)
        continue;
      FlowState Merged;
      bool Any = false;
      for (const CFGBlock *Pred : Succ->preds())
        if (Pred && OutStates[Pred->getBlockID()]) {
          if (!Any)
            Merged = *OutStates[Pred->getBlockID()];
          else
            joinInto(Merged, *OutStates[Pred->getBlockID()]);
          Any = true;
        }
      auto &SuccIn = In[Succ->getBlockID()];
      if (SuccIn && *SuccIn == Merged)
        continue;
      SuccIn = std::move(Merged);
      unsigned SR = Rank[Succ->getBlockID()];
      if (!Queued[SR]) {
        Queued[SR] = true;
        Work.push(SR);
      }
    }
  }

  // One recording pass over the fixpoint, so each write is reported once.
  Recording = true;
  for (const CFGBlock *B : ByRank)
    if (In[B->getBlockID()])
      Transfer(B, *In[B->getBlockID()]);
}

GradFlowAnalysis::GradFlowAnalysis(ASTContext &Ctx) : Ctx(Ctx) {}
GradFlowAnalysis::~GradFlowAnalysis() = default;

const FunctionFlowResult &GradFlowAnalysis::analyse(const FunctionDecl *FD) {
  static const FunctionFlowResult Empty;
  const FunctionDecl *Def = userDefinition(FD);
  if (!Def)
    return Empty;
  auto It = Results.find(Def);
  if (It != Results.end())
    return *It->second;
  // Recursion: callers in the cycle see an empty summary.
  if (!InProgress.insert(Def).second)
    return Empty;
  auto Result = std::make_unique<FunctionFlowResult>();
  FunctionRun(*this, Def, *Result).run();
  InProgress.erase(Def);
  return *(Results[Def] = std::move(Result));
}

} // namespace torch_tidy

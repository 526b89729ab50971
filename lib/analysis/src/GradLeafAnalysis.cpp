//===- GradLeafAnalysis.cpp - In-place writes into grad leaves ------------===//

#include "torch_tidy/analysis/GradLeafAnalysis.h"
#include "torch_tidy/analysis/FullStatement.h"
#include "torch_tidy/analysis/NoGradScope.h"
#include "torch_tidy/libtorch/LibTorchApi.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;

namespace torch_tidy {
namespace {

/// Walks one function body in source order and tracks, per local tensor,
/// whether it is provably a leaf that requires grad. Facts hold only for
/// statements inside the block where they were established (so they ran
/// before), and are dropped on anything that could change the tensor
/// behind the analysis's back: reassignment, aliasing, capture, a non-const
/// reference argument.
class LeafWriteFinder {
public:
  LeafWriteFinder(Stmt *Body) : Parents(Body), Scopes(Body) {}

  void visit(const Stmt *S);
  std::vector<LeafWrite> Found;

private:
  enum class State { Unknown, Fresh, Leaf };
  struct Var {
    State S = State::Unknown;
    const Stmt *Origin = nullptr;
    const CompoundStmt *Block = nullptr;
    bool Used = false;
  };

  /// The local variable a write lands in, through views; null if none.
  const DeclRefExpr *writtenVariable(const Expr *E) const;
  const DeclRefExpr *trackedRef(const Expr *E) const;
  void visitWrite(const Expr *E, const DeclRefExpr *Ref);
  void classifyInit(const VarDecl *V, const DeclStmt *DS);

  ParentMap Parents;
  NoGradScopes Scopes;
  llvm::DenseMap<const VarDecl *, Var> Vars;
  llvm::DenseSet<const DeclRefExpr *> NonUses;
  unsigned SuppressUses = 0;
};

bool isRequiresGradSetter(const CXXMemberCallExpr *Call) {
  return libtorch::isRequiresGradSetter(libtorch::torchCallee(Call));
}

/// requires_grad_() / requires_grad_(true) / set_requires_grad(true).
bool setsRequiresGradTrue(const CXXMemberCallExpr *Call) {
  if (Call->getNumArgs() == 0 || isa<CXXDefaultArgExpr>(Call->getArg(0)))
    return true;
  return libtorch::boolLiteral(Call->getArg(0)).value_or(false);
}

const DeclRefExpr *LeafWriteFinder::trackedRef(const Expr *E) const {
  const auto *Ref =
      dyn_cast_or_null<DeclRefExpr>(libtorch::ignoreTensorWrappers(E));
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return V && Vars.count(V) ? Ref : nullptr;
}

const DeclRefExpr *LeafWriteFinder::writtenVariable(const Expr *E) const {
  const Expr *Object = nullptr;
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
    if (libtorch::isInPlaceValueMethod(Call))
      Object = Call->getImplicitObjectArgument();
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
    if (libtorch::isCompoundAssignOnTensor(Op))
      Object = Op->getArg(0);
    else if (Op->getOperator() == OO_Equal && MD &&
             MD->getRefQualifier() == RQ_RValue &&
             libtorch::isViewProducingCall(Op->getArg(0)))
      Object = Op->getArg(0);
  } else if (const auto *Call = dyn_cast<CallExpr>(E)) {
    // at::index_put_(t, ...), at::fill_(t, ...), at::zero_(t).
    const FunctionDecl *FD = libtorch::torchCallee(Call);
    if (FD && !isa<CXXMethodDecl>(FD) && FD->getIdentifier() &&
        FD->getName().ends_with("_") && Call->getNumArgs() > 0 &&
        libtorch::isTensorType(Call->getArg(0)->getType()))
      Object = Call->getArg(0);
  }
  // Through views (t[i], t.slice(...), basic t.index({...})) to the base;
  // advanced indexing makes a copy, which torch-index-assign-to-copy flags.
  Object = libtorch::viewChainRoot(Object, nullptr,
                                   /*StopAtCopyingIndex=*/true);
  if (!Object || libtorch::isCopyingIndexCall(Object))
    return nullptr;
  return trackedRef(Object);
}

void LeafWriteFinder::classifyInit(const VarDecl *V, const DeclStmt *DS) {
  Var &State = Vars[V];
  State = Var();
  const CompoundStmt *Block = enclosingBlockOfStatement(DS, Parents);
  const auto *Call = dyn_cast_or_null<CallExpr>(
      V->getInit() ? libtorch::ignoreTensorWrappers(V->getInit()) : nullptr);
  if (!Block || !Call || V->getType()->isReferenceType())
    return;
  if (libtorch::factoryRequiresGrad(Call)) {
    State = {State::Leaf, DS, Block, false};
    return;
  }
  // torch::zeros(...).requires_grad_(): a fresh leaf made to require grad.
  if (const auto *Setter = dyn_cast<CXXMemberCallExpr>(Call);
      Setter && isRequiresGradSetter(Setter) && setsRequiresGradTrue(Setter)) {
    const auto *Inner = dyn_cast<CallExpr>(
        libtorch::ignoreTensorWrappers(Setter->getImplicitObjectArgument()));
    if (Inner && libtorch::isNonGradFactory(Inner))
      State = {State::Leaf, DS, Block, false};
    return;
  }
  if (libtorch::isNonGradFactory(Call) &&
      !libtorch::factoryMayRequireGrad(Call))
    State = {State::Fresh, DS, Block, false};
}

void LeafWriteFinder::visitWrite(const Expr *E, const DeclRefExpr *Ref) {
  NonUses.insert(Ref);
  const auto *V = cast<VarDecl>(Ref->getDecl());
  Var &State = Vars[V];
  bool UnderGuard = Scopes.contains(E);
  bool Flag = false;
  bool InLoop = false;
  if (State.S == State::Leaf && !UnderGuard) {
    // The write must be inside the block that established the leaf, so that
    // statement ran before it.
    for (const Stmt *P = Parents.getParent(E); P; P = Parents.getParent(P)) {
      if (P == State.Block) {
        Flag = true;
        break;
      }
      if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(P))
        InLoop = true;
    }
  }
  if (Flag) {
    LeafWrite W{E, V, State.Origin};
    W.UsedBefore = State.Used;
    W.InLoop = InLoop;
    W.Statement = enclosingBlockOfStatement(E, Parents) != nullptr;
    W.InMacro = E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID();
    Found.push_back(W);
  }
  // A write wrapped in no_grad (by the user or by the fix) records nothing,
  // so what it reads is not a use.
  bool Silent = UnderGuard || (Flag && Found.back().wrappable());
  SuppressUses += Silent;
  for (const Stmt *Child : E->children())
    visit(Child);
  SuppressUses -= Silent;
}

void LeafWriteFinder::visit(const Stmt *S) {
  if (!S)
    return;
  if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
    for (const LambdaCapture &C : Lambda->captures())
      if (C.capturesVariable())
        if (const auto *V = dyn_cast<VarDecl>(C.getCapturedVar()))
          if (Vars.count(V))
            Vars[V].S = State::Unknown;
    return; // Its body runs at unknown times.
  }
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D)) {
        visit(V->getInit());
        if (V->getType()->isReferenceType()) {
          // An alias: the analysis no longer sees every write.
          if (const DeclRefExpr *Ref = trackedRef(V->getInit()))
            Vars[cast<VarDecl>(Ref->getDecl())].S = State::Unknown;
        } else if (V->hasLocalStorage() && libtorch::isTensorType(V->getType()))
          classifyInit(V, DS);
      }
    return;
  }
  const auto *E = dyn_cast<Expr>(S);
  if (!E) {
    for (const Stmt *Child : S->children())
      visit(Child);
    return;
  }
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E);
      Call && isRequiresGradSetter(Call)) {
    if (const DeclRefExpr *Ref =
            trackedRef(Call->getImplicitObjectArgument())) {
      NonUses.insert(Ref);
      Var &State = Vars[cast<VarDecl>(Ref->getDecl())];
      const CompoundStmt *Block = enclosingBlockOfStatement(Call, Parents);
      if (!setsRequiresGradTrue(Call) || !Block)
        State.S = State::Unknown;
      else if (State.S == State::Fresh)
        State = {State::Leaf, Call, Block, State.Used};
    }
  }
  if (const DeclRefExpr *Ref = writtenVariable(E)) {
    visitWrite(E, Ref);
    return;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getOperator() == OO_Equal)
    if (const DeclRefExpr *Ref = trackedRef(Op->getArg(0))) {
      NonUses.insert(Ref);
      for (const Stmt *Child : E->children())
        visit(Child);
      Vars[cast<VarDecl>(Ref->getDecl())].S = State::Unknown;
      return;
    }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    // A non-const reference argument may rebind or detach the tensor.
    const FunctionDecl *FD = Call->getDirectCallee();
    unsigned Shift =
        isa<CXXOperatorCallExpr>(Call) && isa_and_nonnull<CXXMethodDecl>(FD)
            ? 1
            : 0;
    for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
      const DeclRefExpr *Ref = trackedRef(Call->getArg(I));
      if (!Ref)
        continue;
      QualType PT;
      if (FD && I >= Shift && I - Shift < FD->getNumParams())
        PT = FD->getParamDecl(I - Shift)->getType();
      if (!FD || (!PT.isNull() && PT->isReferenceType() &&
                  !PT.getNonReferenceType().isConstQualified()))
        Vars[cast<VarDecl>(Ref->getDecl())].S = State::Unknown;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
      if (const DeclRefExpr *Ref = trackedRef(MC->getImplicitObjectArgument()))
        if (const auto *MD = MC->getMethodDecl();
            MD && !MD->isConst() && !isRequiresGradSetter(MC))
          Vars[cast<VarDecl>(Ref->getDecl())].S = State::Unknown;
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_AddrOf)
    if (const DeclRefExpr *Ref = trackedRef(U->getSubExpr()))
      Vars[cast<VarDecl>(Ref->getDecl())].S = State::Unknown;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
        V && Vars.count(V) && !NonUses.count(Ref) && SuppressUses == 0)
      Vars[V].Used = true;
  for (const Stmt *Child : E->children())
    visit(Child);
}
} // namespace

std::vector<LeafWrite> findLeafWrites(Stmt *Body) {
  LeafWriteFinder Finder(Body);
  Finder.visit(Body);
  return std::move(Finder.Found);
}

} // namespace torch_tidy

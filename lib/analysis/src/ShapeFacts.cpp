//===- ShapeFacts.cpp - Ranks and options a function's text proves --------===//
//
// Every fact is an exact statement about all executions of the function:
// a local's fact is proven by induction over its init and its assignments
// (each must keep the fact, assuming it held before), a guard's fact holds
// after the guard because the guard leaves the function otherwise.
//
//===----------------------------------------------------------------------===//

#include "torch_tidy/analysis/ShapeFacts.h"
#include "torch_tidy/libtorch/LibTorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Builtins.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;

namespace torch_tidy {
namespace {

/// Stands for "the default dtype and device": factories called without
/// options.
const char DefaultOptions = 0;
/// Each public query may take this many steps; deeper proofs give up.
constexpr unsigned StepBudget = 1000;

StringRef calleeName(const CallExpr *Call) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  return FD && FD->getIdentifier() ? FD->getName() : StringRef();
}

const Expr *strip(const Expr *E) {
  return E ? libtorch::ignoreTensorWrappers(E)->IgnoreParens() : nullptr;
}

const VarDecl *refVar(const Expr *E) {
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(strip(E));
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

/// In-place methods that change a tensor's shape, dtype or storage.
bool changesShape(StringRef Method) {
  static const llvm::StringSet<> Names = {"resize_",
                                          "resize_as_",
                                          "unsqueeze_",
                                          "squeeze_",
                                          "t_",
                                          "transpose_",
                                          "swapdims_",
                                          "swapaxes_",
                                          "as_strided_",
                                          "set_",
                                          "sparse_resize_",
                                          "sparse_resize_and_clear_"};
  return Names.contains(Method);
}

/// Methods whose result has the receiver's rank, dtype and device.
bool keepsRankAndOptions(StringRef Method) {
  static const llvm::StringSet<> Names = {
      "clone",         "contiguous",     "detach",
      "slice",         "narrow",         "t",
      "transpose",     "permute",        "neg",
      "relu",          "index_put",      "index_fill",
      "index_copy",    "scatter",        "index_add",
      "slice_scatter", "select_scatter", "flip",
      "roll",          "movedim",        "swapdims",
      "swapaxes",      "clamp",          "requires_grad_",
      "floor",         "ceil",           "round"};
  return Names.contains(Method);
}

/// Methods whose result has the receiver's rank, but maybe not its dtype
/// (integers become floats, complex numbers reals).
bool keepsRank(StringRef Method) {
  static const llvm::StringSet<> Names = {"abs",     "exp",  "log",
                                          "sin",     "cos",  "tanh",
                                          "sigmoid", "sqrt", "reciprocal"};
  return keepsRankAndOptions(Method) || Names.contains(Method);
}

/// Free factories whose first argument is the size.
bool isSizedFactory(StringRef Name) {
  return Name == "zeros" || Name == "ones" || Name == "empty" ||
         Name == "rand" || Name == "randn" || Name == "full";
}

/// Factories that make the default dtype when given no options.
bool isDefaultDtypeFactory(StringRef Name) {
  return Name == "zeros" || Name == "ones" || Name == "empty" ||
         Name == "rand" || Name == "randn";
}

bool isLikeFactory(StringRef Name) { return Name.ends_with("_like"); }

/// `Y.options()`, with nothing changed: the tensor whose options are meant.
const Expr *optionsOf(const Expr *Opts) {
  const auto *Call = dyn_cast<CXXMemberCallExpr>(strip(Opts));
  if (calleeName(Call) != "options" || Call->getNumArgs() != 0)
    return nullptr;
  return Call->getImplicitObjectArgument();
}

/// A reference to at::kLong / at::kInt64 (or ScalarType::Long).
bool namesLong(const Expr *E) {
  E = E->IgnoreImplicit()->IgnoreParenImpCasts();
  // dtype(std::optional<ScalarType>) wraps the constant.
  if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E);
      Ctor && Ctor->getNumArgs() == 1)
    E = Ctor->getArg(0)->IgnoreImplicit()->IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const NamedDecl *D = Ref->getDecl();
    if (!D->getIdentifier())
      return false;
    StringRef N = D->getName();
    return N == "kLong" || N == "kInt64" ||
           (isa<EnumConstantDecl>(D) && N == "Long");
  }
  return false;
}

/// Options that ask for int64: `....dtype(at::kLong)`, `dtype(kLong)`.
bool optionsSayLong(const Expr *Opts) {
  const Expr *E = strip(Opts);
  if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E);
      Ctor && Ctor->getNumArgs() == 1)
    E = strip(Ctor->getArg(0));
  const auto *Call = dyn_cast<CallExpr>(E);
  if (calleeName(Call) != "dtype" || Call->getNumArgs() < 1)
    return namesLong(E);
  return namesLong(Call->getArg(Call->getNumArgs() - 1));
}

/// The statement leaves the function (or throws) on every path through it.
bool leaves(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *CS = dyn_cast<CompoundStmt>(S))
    return llvm::any_of(CS->body(), leaves);
  if (isa<ReturnStmt>(S))
    return true;
  const auto *E = dyn_cast<Expr>(S);
  if (!E)
    return false;
  E = E->IgnoreImplicit();
  if (const auto *C = dyn_cast<ExprWithCleanups>(E))
    E = C->getSubExpr()->IgnoreImplicit();
  if (isa<CXXThrowExpr>(E))
    return true;
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  return FD && FD->isNoReturn();
}

/// A guard's condition without casts and __builtin_expect (C10_UNLIKELY).
const Expr *condCore(const Expr *E) {
  while (E) {
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *C = dyn_cast<ExprWithCleanups>(Next))
      Next = C->getSubExpr();
    else if (const auto *Cast = dyn_cast<ExplicitCastExpr>(Next))
      Next = Cast->getSubExpr();
    else if (const auto *Call = dyn_cast<CallExpr>(Next);
             Call && Call->getBuiltinCallee() == Builtin::BI__builtin_expect)
      Next = Call->getArg(0);
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

/// How a factory's arguments from First on are given: every one left to
/// its default (Options null), or only the TensorOptions one written
/// (Options is it); nullopt if another argument is written (a dtype,
/// layout or memory format of its own, a generator, ...).
struct FactoryOptions {
  const Expr *Options = nullptr;
};
std::optional<FactoryOptions> factoryOptions(const CallExpr *Call,
                                             unsigned First) {
  const FunctionDecl *FD = Call->getDirectCallee();
  FactoryOptions Result;
  for (unsigned I = First; I < Call->getNumArgs(); ++I) {
    const Expr *A = Call->getArg(I);
    if (isa<CXXDefaultArgExpr>(A))
      continue;
    QualType T = FD && I < FD->getNumParams() ? FD->getParamDecl(I)->getType()
                                              : A->getType();
    const auto *RD =
        T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
    if (Result.Options || !RD || !RD->getIdentifier() ||
        RD->getName() != "TensorOptions")
      return std::nullopt;
    Result.Options = A;
  }
  return Result;
}

/// The number of leading arguments that are integers (or Scalars made
/// from integers).
unsigned integerPrefix(const CallExpr *Call) {
  unsigned N = 0;
  for (const Expr *A : Call->arguments()) {
    const Expr *Core = A->IgnoreImplicit();
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(Core);
        Ctor && Ctor->getNumArgs() == 1)
      Core = Ctor->getArg(0)->IgnoreImplicit();
    if (isa<CXXDefaultArgExpr>(A) || !Core->getType()->isIntegerType())
      break;
    ++N;
  }
  return N;
}

class Collector : public RecursiveASTVisitor<Collector> {
public:
  using Info = llvm::DenseMap<const VarDecl *,
                              std::pair<std::vector<const Expr *>, bool>>;
  Info Vars;

  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Op) {
    if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
      if (const auto *Ref =
              dyn_cast<DeclRefExpr>(Op->getArg(0)->IgnoreParenImpCasts()))
        if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
          Vars[V].first.push_back(Op->getArg(1));
    return true;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
    if (!changesShape(calleeName(Call)))
      return true;
    // Through in-place calls that return their object:
    // v.requires_grad_().unsqueeze_(0).
    const Expr *Obj = Call->getImplicitObjectArgument();
    while (const auto *Inner = dyn_cast<CXXMemberCallExpr>(strip(Obj))) {
      if (!calleeName(Inner).ends_with("_"))
        break;
      Obj = Inner->getImplicitObjectArgument();
    }
    if (const VarDecl *V = refVar(Obj))
      Vars[V].second = true;
    return true;
  }
  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *FD = Call->getDirectCallee();
    // A member operator's first argument is its object.
    unsigned Shift =
        isa<CXXOperatorCallExpr>(Call) && FD && isa<CXXMethodDecl>(FD) ? 1 : 0;
    const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
    // `r = v` makes r another name of v; `t.index(...) = v` (an rvalue
    // target) is copy_.
    bool Assign = Op && Op->getOperator() == OO_Equal &&
                  Op->getArg(0)->IgnoreImplicit()->isLValue();
    StringRef Name = calleeName(Call);
    for (unsigned I = Shift; I < Call->getNumArgs(); ++I) {
      const VarDecl *V = refVar(Call->getArg(I));
      if (!V)
        continue;
      // Tensor copies share their TensorImpl, and LibTorch's in-place
      // methods are const: a tensor handed to code other than LibTorch's
      // own operations, or copied into another variable, may change shape
      // or dtype there. So may one bound to a non-const reference.
      unsigned P = I - Shift;
      bool Escapes = !FD || !libtorch::isInTorchNamespace(FD) || Assign ||
                     changesShape(Name) || Name == "resize_output";
      if (!Escapes && P < FD->getNumParams()) {
        QualType T = FD->getParamDecl(P)->getType();
        Escapes =
            T->isReferenceType() && !T->getPointeeType().isConstQualified();
      }
      if (Escapes)
        Vars[V].second = true;
    }
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->getOpcode() == UO_AddrOf)
      if (const VarDecl *V = refVar(U->getSubExpr()))
        Vars[V].second = true;
    return true;
  }
  bool VisitVarDecl(VarDecl *D) {
    // `auto r = v;` or `at::Tensor &r = v;`: r is v under another name.
    if (D->hasInit())
      if (const VarDecl *V = refVar(D->getInit()))
        Vars[V].second = true;
    return true;
  }
  bool VisitGotoStmt(GotoStmt *) {
    HasGoto = true;
    return true;
  }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *) {
    HasGoto = true;
    return true;
  }
  bool HasGoto = false;
  bool VisitLambdaExpr(LambdaExpr *L) {
    // A capture, by reference or by copy (a copy shares the TensorImpl),
    // may be changed wherever the lambda runs.
    for (const LambdaCapture &C : L->captures())
      if (C.capturesVariable())
        if (const auto *V = dyn_cast<VarDecl>(C.getCapturedVar()))
          Vars[V].second = true;
    return true;
  }
};

} // namespace

ShapeFacts::ShapeFacts(const FunctionDecl *Function, ParentMap &Parents,
                       ASTContext &Ctx)
    : Parents(Parents), Ctx(Ctx), Body(Function->getBody()) {
  Collector C;
  C.TraverseDecl(const_cast<FunctionDecl *>(Function));
  HasGoto = C.HasGoto;
  for (auto &[V, Facts] : C.Vars) {
    VarInfo &I = Vars[V];
    I.Assigned = std::move(Facts.first);
    I.Unstable = Facts.second;
  }
}

bool ShapeFacts::spend() { return ++Budget <= StepBudget; }

const ShapeFacts::VarInfo *ShapeFacts::info(const VarDecl *V) const {
  auto It = Vars.find(V);
  return It == Vars.end() ? nullptr : &It->second;
}

std::optional<unsigned> ShapeFacts::rank(const Expr *E, const Stmt *At) {
  Budget = 0;
  return rankOf(E, At);
}

bool ShapeFacts::sameOptions(const Expr *A, const Expr *B) {
  Budget = 0;
  const void *RA = optionsRoot(A);
  return RA && RA == optionsRoot(B);
}

bool ShapeFacts::sameOptions(const Expr *A, const VarDecl *B) {
  Budget = 0;
  const void *RA = optionsRoot(A);
  return RA && RA == varOptionsRoot(B);
}

bool ShapeFacts::isLongTensor(const Expr *E) {
  Budget = 0;
  return longTensor(E);
}

std::optional<unsigned> ShapeFacts::varRank(const VarDecl *V, const Stmt *At) {
  const VarInfo *I = info(V);
  if (I && I->Unstable)
    return std::nullopt;
  if (auto It = AssumedRank.find(V); It != AssumedRank.end())
    return It->second;
  bool Local = !isa<ParmVarDecl>(V) && V->hasLocalStorage() &&
               !V->getType()->isReferenceType() && V->hasInit();
  if (Local) {
    std::optional<unsigned> R = rankOf(V->getInit(), At);
    if (R && I) {
      AssumedRank[V] = *R;
      for (const Expr *A : I->Assigned)
        if (rankOf(A, At) != R) {
          R.reset();
          break;
        }
      AssumedRank.erase(V);
    }
    if (R)
      return R;
  }
  if (I && !I->Assigned.empty())
    return std::nullopt;
  return guardedRank(V, At);
}

/// `v.dim() == K` (or `v.ndimension()`), either way round.
static std::optional<unsigned> dimEquals(const Expr *L, const Expr *R,
                                         const VarDecl *V, ASTContext &Ctx) {
  for (int Swap = 0; Swap < 2; ++Swap, std::swap(L, R)) {
    const auto *Call = dyn_cast<CXXMemberCallExpr>(L->IgnoreParenImpCasts());
    StringRef N = calleeName(Call);
    if ((N != "dim" && N != "ndimension") ||
        refVar(Call->getImplicitObjectArgument()) != V)
      continue;
    Expr::EvalResult Value;
    if (R->isValueDependent() || !R->EvaluateAsInt(Value, Ctx))
      continue;
    llvm::APSInt K = Value.Val.getInt();
    if (K.isNegative() || K.getActiveBits() > 16)
      continue;
    return unsigned(K.getZExtValue());
  }
  return std::nullopt;
}

/// The rank of V that holds where Cond is true (Negated: false).
static std::optional<unsigned> condRank(const Expr *Cond, bool Negated,
                                        const VarDecl *V, ASTContext &Ctx) {
  Cond = condCore(Cond);
  if (const auto *U = dyn_cast<UnaryOperator>(Cond);
      U && U->getOpcode() == UO_LNot)
    return condRank(U->getSubExpr(), !Negated, V, Ctx);
  const auto *B = dyn_cast<BinaryOperator>(Cond);
  if (!B)
    return std::nullopt;
  BinaryOperatorKind Op = B->getOpcode();
  // Where `A && B` holds, both hold; where `A || B` fails, both fail.
  if ((Op == BO_LAnd && !Negated) || (Op == BO_LOr && Negated)) {
    if (auto R = condRank(B->getLHS(), Negated, V, Ctx))
      return R;
    return condRank(B->getRHS(), Negated, V, Ctx);
  }
  if ((Op == BO_EQ && !Negated) || (Op == BO_NE && Negated))
    return dimEquals(B->getLHS(), B->getRHS(), V, Ctx);
  return std::nullopt;
}

std::optional<unsigned> ShapeFacts::guardedRank(const VarDecl *V,
                                                const Stmt *At) {
  // Guards that leave the function unless the rank holds, before At in a
  // block around it.
  if (HasGoto)
    return std::nullopt;
  const Stmt *S = At;
  for (const Stmt *P = Parents.getParent(S); P && spend();
       S = P, P = Parents.getParent(P)) {
    const auto *Block = dyn_cast<CompoundStmt>(P);
    if (!Block)
      continue;
    // A label or case between a guard and At is a way around the guard.
    std::optional<unsigned> Found;
    for (const Stmt *Child : Block->body()) {
      if (isa<SwitchCase>(Child) || isa<LabelStmt>(Child))
        Found.reset();
      if (Child == S)
        break;
      const auto *If = dyn_cast<IfStmt>(Child);
      if (!If || If->getElse() || If->getInit() || If->getConditionVariable() ||
          !leaves(If->getThen()))
        continue;
      if (auto R = condRank(If->getCond(), /*Negated=*/true, V, Ctx))
        Found = R;
    }
    if (Found)
      return Found;
    if (P == Body)
      break;
  }
  return std::nullopt;
}

std::optional<unsigned> ShapeFacts::rankOf(const Expr *E, const Stmt *At) {
  E = strip(E);
  if (!E || !spend())
    return std::nullopt;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    return V ? varRank(V, At) : std::nullopt;
  }
  // The size argument of a factory, view or reshape.
  auto SizeRank = [&](const Expr *A) -> std::optional<unsigned> {
    if (auto Elements = libtorch::indexListElements(A))
      return unsigned(Elements->size());
    const Expr *Core = strip(A);
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(Core);
        Ctor && Ctor->getNumArgs() == 1)
      Core = strip(Ctor->getArg(0));
    if (Core->getType()->isIntegerType())
      return 1u;
    const auto *Sizes = dyn_cast<CXXMemberCallExpr>(Core);
    StringRef N = calleeName(Sizes);
    if (N == "sizes" || N == "sym_sizes")
      return rankOf(Sizes->getImplicitObjectArgument(), At);
    return std::nullopt;
  };
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    OverloadedOperatorKind K = Op->getOperator();
    if (K == OO_Subscript && Op->getNumArgs() == 2) {
      // t[i] selects along dim 0 (t[tensor] too: select with its item).
      std::optional<unsigned> R = rankOf(Op->getArg(0), At);
      if (R && *R > 0)
        return *R - 1;
      return std::nullopt;
    }
    if (K == OO_Minus && Op->getNumArgs() == 1)
      return rankOf(Op->getArg(0), At);
    if ((K == OO_Plus || K == OO_Minus || K == OO_Star || K == OO_Slash) &&
        Op->getNumArgs() == 2) {
      bool T0 = libtorch::isTensorType(Op->getArg(0)->getType());
      bool T1 = libtorch::isTensorType(Op->getArg(1)->getType());
      if (T0 && T1) {
        auto R0 = rankOf(Op->getArg(0), At), R1 = rankOf(Op->getArg(1), At);
        if (R0 && R1)
          return std::max(*R0, *R1);
        return std::nullopt;
      }
      return rankOf(Op->getArg(T0 ? 0 : 1), At);
    }
    return std::nullopt;
  }
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
    StringRef N = calleeName(Call);
    const Expr *Obj = Call->getImplicitObjectArgument();
    unsigned Args = 0; // arguments written, not defaulted
    for (const Expr *A : Call->arguments())
      Args += !isa<CXXDefaultArgExpr>(A);
    if (keepsRank(N) || N == "to" || N == "cpu" || N == "cuda" ||
        N == "float" || N == "double" || N == "long" || N == "type_as")
      return rankOf(Obj, At);
    if (N == "select") {
      std::optional<unsigned> R = rankOf(Obj, At);
      if (R && *R > 0)
        return *R - 1;
      return std::nullopt;
    }
    if (N == "unsqueeze") {
      std::optional<unsigned> R = rankOf(Obj, At);
      return R ? std::optional<unsigned>(*R + 1) : std::nullopt;
    }
    if ((N == "expand_as" || N == "view_as" || N == "reshape_as") && Args == 1)
      return rankOf(Call->getArg(0), At);
    if ((N == "view" || N == "reshape" || N == "expand" || N == "new_zeros" ||
         N == "new_ones" || N == "new_empty" || N == "new_full") &&
        Call->getNumArgs() >= 1)
      return SizeRank(Call->getArg(0));
    if (N == "flatten" && Args == 0)
      return 1u;
    if (N == "nonzero")
      return 2u;
    if ((N == "sum" || N == "mean" || N == "item") && Args == 0)
      return 0u;
    return std::nullopt;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    StringRef N = calleeName(Call);
    if (N.empty() || !libtorch::isInTorchNamespace(Call->getDirectCallee()))
      return std::nullopt;
    if (isSizedFactory(N) && Call->getNumArgs() >= 1)
      return SizeRank(Call->getArg(0));
    if (N == "randint") {
      for (const Expr *A : Call->arguments())
        if (auto R = libtorch::indexListElements(A))
          return unsigned(R->size());
      return std::nullopt;
    }
    if (isLikeFactory(N) && Call->getNumArgs() >= 1)
      return rankOf(Call->getArg(0), At);
    if (N == "arange" || N == "linspace" || N == "logspace" || N == "randperm")
      return 1u;
    if (N == "triu_indices" || N == "tril_indices" || N == "eye")
      return 2u;
    return std::nullopt;
  }
  return std::nullopt;
}

const void *ShapeFacts::varOptionsRoot(const VarDecl *V) {
  const VarInfo *I = info(V);
  if (I && I->Unstable)
    return nullptr;
  bool Local = !isa<ParmVarDecl>(V) && V->hasLocalStorage() &&
               !V->getType()->isReferenceType() && V->hasInit();
  if (Local) {
    const void *R = optionsRoot(V->getInit());
    if (R && I && !I->Assigned.empty()) {
      if (AssumedRoot.contains(V))
        return R;
      AssumedRoot.insert(V);
      for (const Expr *A : I->Assigned)
        if (optionsRoot(A) != R) {
          R = nullptr;
          break;
        }
      AssumedRoot.erase(V);
    }
    if (R)
      return R;
  }
  // Never assigned: V keeps the dtype and device it came with.
  if (I && !I->Assigned.empty())
    return nullptr;
  return V;
}

const void *ShapeFacts::optionsRoot(const Expr *E) {
  E = strip(E);
  if (!E || !spend())
    return nullptr;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    return V ? varOptionsRoot(V) : nullptr;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    if ((Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2) ||
        (Op->getOperator() == OO_Minus && Op->getNumArgs() == 1))
      return optionsRoot(Op->getArg(0));
    return nullptr;
  }
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
    StringRef N = calleeName(Call);
    static const llvm::StringSet<> Views = {
        "view",   "reshape",   "expand",    "expand_as", "view_as",
        "select", "unsqueeze", "squeeze",   "flatten",   "unflatten",
        "index",  "repeat",    "reshape_as"};
    // view(ScalarType) reinterprets the bytes as another dtype.
    if (N == "view" && Call->getNumArgs() == 1 &&
        Call->getArg(0)->getType()->isEnumeralType())
      return nullptr;
    if (keepsRankAndOptions(N) || Views.contains(N))
      return optionsRoot(Call->getImplicitObjectArgument());
    if (N == "new_zeros" || N == "new_ones" || N == "new_empty")
      // Without options, new_* takes the receiver's.
      if (Call->getNumArgs() < 2 || isa<CXXDefaultArgExpr>(Call->getArg(1)))
        return optionsRoot(Call->getImplicitObjectArgument());
    return nullptr;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    StringRef N = calleeName(Call);
    if (N.empty() || !libtorch::isInTorchNamespace(Call->getDirectCallee()) ||
        Call->getNumArgs() == 0)
      return nullptr;
    if (isLikeFactory(N) && N != "full_like") {
      std::optional<FactoryOptions> O = factoryOptions(Call, 1);
      if (!O)
        return nullptr;
      if (!O->Options)
        return optionsRoot(Call->getArg(0));
      const Expr *Of = optionsOf(O->Options);
      return Of ? optionsRoot(Of) : nullptr;
    }
    if (isDefaultDtypeFactory(N)) {
      std::optional<FactoryOptions> O = factoryOptions(Call, 1);
      if (!O)
        return nullptr;
      if (!O->Options)
        return &DefaultOptions;
      const Expr *Of = optionsOf(O->Options);
      return Of ? optionsRoot(Of) : nullptr;
    }
    return nullptr;
  }
  return nullptr;
}

bool ShapeFacts::longTensor(const Expr *E) {
  E = strip(E);
  if (!E || !spend())
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    const VarInfo *I = V ? info(V) : nullptr;
    if (!V || (I && (I->Unstable || !I->Assigned.empty())) ||
        isa<ParmVarDecl>(V) || !V->hasLocalStorage() ||
        V->getType()->isReferenceType() || !V->hasInit())
      return false;
    return longTensor(V->getInit());
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    return Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2 &&
           longTensor(Op->getArg(0));
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
    StringRef N = calleeName(Call);
    if (N == "nonzero" || N == "argsort" || N == "argmax" || N == "argmin" ||
        N == "long")
      return true;
    if (N == "to" && Call->getNumArgs() >= 1)
      return optionsSayLong(Call->getArg(0));
    static const llvm::StringSet<> Keeps = {
        "view",   "reshape", "expand",    "expand_as", "select",  "slice",
        "narrow", "t",       "unsqueeze", "flatten",   "clone",   "contiguous",
        "detach", "index",   "repeat",    "transpose", "permute", "squeeze"};
    return Keeps.contains(N) && longTensor(Call->getImplicitObjectArgument());
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    StringRef N = calleeName(Call);
    if (N.empty() || !libtorch::isInTorchNamespace(Call->getDirectCallee()) ||
        Call->getNumArgs() == 0)
      return false;
    if (N != "triu_indices" && N != "tril_indices" && N != "randperm" &&
        N != "randint" && N != "arange")
      return false;
    // Integer bounds and sizes, then at most the options: int64 unless the
    // options ask for another dtype.
    unsigned Ints = integerPrefix(Call);
    if (N == "randint") // randint(low?, high, size, options)
      Ints += Ints < Call->getNumArgs() &&
              libtorch::indexListElements(Call->getArg(Ints));
    if (Ints == 0)
      return false;
    std::optional<FactoryOptions> O = factoryOptions(Call, Ints);
    return O && (!O->Options || optionsSayLong(O->Options));
  }
  return false;
}

std::optional<unsigned> ShapeFacts::indexedRankLowerBound(
    const Expr *Base, llvm::ArrayRef<const Expr *> Elements, const Stmt *At) {
  Budget = 0;
  std::optional<unsigned> BaseRank = rankOf(Base, At);
  unsigned Produced = 0, Consumed = 0, Advanced = 0;
  bool ConsumedKnown = true;
  for (const Expr *Element : Elements) {
    const Expr *A = Element->IgnoreImplicit();
    if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(A))
      A = B->getSubExpr()->IgnoreImplicit();
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(A);
        Ctor && Ctor->getNumArgs() == 1)
      A = Ctor->getArg(0)->IgnoreImplicit();
    QualType T = A->getType().getNonReferenceType().getCanonicalType();
    const auto *RD = T->getAsCXXRecordDecl();
    StringRef Record = RD && RD->getIdentifier() ? RD->getName() : StringRef();
    if (libtorch::isTensorType(T)) {
      std::optional<unsigned> R = rankOf(A, At);
      if (!R) {
        ConsumedKnown = false;
      } else if (longTensor(A)) {
        Advanced = std::max(Advanced, *R); // broadcast with the others
        Consumed += 1;
      } else { // a mask consumes its dims and makes one
        Advanced = std::max(Advanced, std::min(*R, 1u));
        Consumed += std::max(*R, 1u);
      }
    } else if (T->isBooleanType()) {
      Produced += 1;
    } else if (T->isIntegerType() || Record == "SymInt") {
      Consumed += 1;
    } else if (Record == "Slice") {
      Produced += 1;
      Consumed += 1;
    } else if (Record == "EllipsisIndexType") {
      // The dims it spans are counted below.
    } else if (Record == "nullopt_t") {
      Produced += 1;
    } else {
      return std::nullopt;
    }
  }
  unsigned Lower = Produced + Advanced;
  if (BaseRank && ConsumedKnown && *BaseRank > Consumed)
    Lower += *BaseRank - Consumed;
  return Lower;
}

} // namespace torch_tidy

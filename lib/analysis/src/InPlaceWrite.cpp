//===- InPlaceWrite.cpp - Recognise in-place tensor writes ----------------===//

#include "torch_tidy/analysis/InPlaceWrite.h"
#include "torch_tidy/libtorch/LibTorchApi.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace torch_tidy {

StringRef writeKindName(WriteKind K) {
  switch (K) {
  case WriteKind::IndexPut:
    return "index_put_";
  case WriteKind::IndexAssign:
    return "index(...) assignment";
  case WriteKind::SubscriptAssign:
    return "operator[] assignment";
  case WriteKind::ViewAssign:
    return "assignment into a view";
  case WriteKind::Copy:
    return "copy_";
  case WriteKind::Fill:
    return "fill_";
  case WriteKind::MaskedFill:
    return "masked_fill_";
  case WriteKind::IndexFill:
    return "index_fill_";
  case WriteKind::IndexCopy:
    return "index_copy_";
  case WriteKind::MaskedScatter:
    return "masked_scatter_";
  case WriteKind::Scatter:
    return "scatter_";
  case WriteKind::OtherInPlaceOp:
    return "in-place op";
  }
  llvm_unreachable("unknown write kind");
}

StringRef writeName(const InPlaceWrite &W) {
  return W.Kind == WriteKind::OtherInPlaceOp ? W.OpName : writeKindName(W.Kind);
}

/// The first two tensor operands of a call from argument First on.
static std::pair<const Expr *, const Expr *> tensorOperands(const CallExpr *C,
                                                            unsigned First) {
  const Expr *A = nullptr, *B = nullptr;
  for (unsigned I = First; I < C->getNumArgs(); ++I) {
    const Expr *Arg = C->getArg(I);
    if (isa<CXXDefaultArgExpr>(Arg))
      continue;
    // A tensor passed as an optional<Tensor> (clamp_(min)): the tensor.
    if (!libtorch::isTensorType(Arg->getType()))
      if (const Expr *Written = Arg->IgnoreImplicitAsWritten();
          libtorch::isTensorType(Written->getType()))
        Arg = Written;
    if (!libtorch::isTensorType(Arg->getType()))
      continue;
    if (!A)
      A = Arg;
    else if (!B)
      B = Arg;
  }
  return {A, B};
}

/// t.op_(..., v, ...) or at::op_(t, ..., v, ...) with a tensor operand: an
/// in-place value op other than the sliced and indexed writes.
static std::optional<InPlaceWrite>
matchOtherInPlaceOp(const CallExpr *C, const Expr *Receiver, unsigned First,
                    StringRef Name, StringRef Method = "") {
  auto [A, B] = tensorOperands(C, First);
  if (!A)
    return std::nullopt;
  InPlaceWrite W{WriteKind::OtherInPlaceOp, C, Receiver, A};
  W.OtherSource = B;
  W.OnlyMutableTargets = true;
  W.OpName = Name;
  W.Method = Method.empty() ? Name : Method;
  // div_ with a rounding mode is another overload (aten::div_.Tensor_mode)
  // than the one the ground truth measures through a view.
  if (const FunctionDecl *FD = C->getDirectCallee())
    if (llvm::any_of(FD->parameters(), [](const ParmVarDecl *P) {
          return P->getIdentifier() && P->getName() == "rounding_mode";
        }))
      W.Method = "div_.Tensor_mode";
  return W;
}

static bool isTensorArg(const CallExpr *Call, unsigned I) {
  return I < Call->getNumArgs() &&
         libtorch::isTensorType(Call->getArg(I)->getType());
}

/// Tensor methods that write a tensor value in place: name -> (kind, index
/// of the source argument, needs a view).
struct MethodWrite {
  WriteKind Kind;
  unsigned SourceArg;
  bool NeedsView;
};

static std::optional<MethodWrite> methodWrite(StringRef Name) {
  return llvm::StringSwitch<std::optional<MethodWrite>>(Name)
      .Case("index_put_", MethodWrite{WriteKind::IndexPut, 1, false})
      .Case("copy_", MethodWrite{WriteKind::Copy, 0, true})
      .Case("fill_", MethodWrite{WriteKind::Fill, 0, true})
      .Case("masked_fill_", MethodWrite{WriteKind::MaskedFill, 1, false})
      .Case("index_fill_", MethodWrite{WriteKind::IndexFill, 2, false})
      .Case("index_copy_", MethodWrite{WriteKind::IndexCopy, 2, false})
      .Case("masked_scatter_", MethodWrite{WriteKind::MaskedScatter, 1, false})
      .Case("scatter_", MethodWrite{WriteKind::Scatter, 2, false})
      .Default(std::nullopt);
}

static std::optional<InPlaceWrite>
matchMethodWrite(const CXXMemberCallExpr *C) {
  const FunctionDecl *FD = libtorch::torchCallee(C);
  if (!FD || !FD->getIdentifier())
    return std::nullopt;
  auto MW = methodWrite(FD->getName());
  if (!MW) {
    if (libtorch::isInPlaceValueMethod(C))
      return matchOtherInPlaceOp(C, C->getImplicitObjectArgument(), 0,
                                 FD->getName());
    return std::nullopt;
  }
  if (!isTensorArg(C, MW->SourceArg))
    return std::nullopt;
  return InPlaceWrite{MW->Kind,
                      C,
                      C->getImplicitObjectArgument(),
                      C->getArg(MW->SourceArg),
                      nullptr,
                      MW->NeedsView};
}

/// Whether FD is declared right in the top-level `at` or `torch` namespace
/// (inline namespaces aside), where ATen's operators are: helpers in nested
/// namespaces (at::functionalization::impl::replace_, at::native::...) are
/// not operators that write values.
static bool isOperatorNamespaceFunction(const FunctionDecl *FD) {
  const DeclContext *DC = FD->getDeclContext();
  while (DC && DC->isInlineNamespace())
    DC = DC->getParent();
  const auto *NS = dyn_cast_or_null<NamespaceDecl>(DC);
  if (!NS || !NS->getIdentifier() ||
      (NS->getName() != "at" && NS->getName() != "torch"))
    return false;
  const DeclContext *Outer = NS->getParent();
  while (Outer && Outer->isInlineNamespace())
    Outer = Outer->getParent();
  return Outer && Outer->isTranslationUnit();
}

/// at::index_put_(self, indices, values), at::fill_(self, value).
static std::optional<InPlaceWrite> matchFreeWrite(const CallExpr *C) {
  const FunctionDecl *FD = libtorch::torchCallee(C);
  if (!FD || !FD->getIdentifier() || isa<CXXMethodDecl>(FD) ||
      !isOperatorNamespaceFunction(FD) || !isTensorArg(C, 0))
    return std::nullopt;
  StringRef Name = FD->getName();
  if (Name == "index_put_")
    return isTensorArg(C, 2)
               ? std::optional(InPlaceWrite{WriteKind::IndexPut, C,
                                            C->getArg(0), C->getArg(2)})
               : std::nullopt;
  if (Name == "fill_")
    return isTensorArg(C, 1)
               ? std::optional(InPlaceWrite{WriteKind::Fill, C, C->getArg(0),
                                            C->getArg(1), nullptr, true})
               : std::nullopt;
  if (libtorch::isInPlaceValueFunction(FD))
    return matchOtherInPlaceOp(C, C->getArg(0), 1, Name);
  return std::nullopt;
}

/// `lhs = v` where lhs is a tensor temporary: Tensor::operator=(...) &&.
static std::optional<InPlaceWrite>
matchAssignIntoTemporary(const CXXOperatorCallExpr *Op) {
  if (Op->getOperator() != OO_Equal || Op->getNumArgs() != 2)
    return std::nullopt;
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
  if (!MD || MD->getRefQualifier() != RQ_RValue ||
      !libtorch::isTensorType(Op->getArg(0)->getType()) ||
      !libtorch::isTensorType(Op->getArg(1)->getType()))
    return std::nullopt;
  const Expr *Lhs = libtorch::ignoreTensorWrappers(Op->getArg(0));
  if (const auto *Sub = dyn_cast<CXXOperatorCallExpr>(Lhs);
      Sub && Sub->getOperator() == OO_Subscript)
    return InPlaceWrite{WriteKind::SubscriptAssign, Op, Lhs, Op->getArg(1)};
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(Lhs)) {
    const FunctionDecl *FD = libtorch::torchCallee(Call);
    if (FD && FD->getIdentifier() && FD->getName() == "index") {
      // With a tensor (advanced) index, index() returns a copy: the
      // assignment writes into a temporary and `t` is left unchanged.
      if (Call->getNumArgs() == 1 &&
          libtorch::isAdvancedIndexList(Call->getArg(0)))
        return std::nullopt;
      return InPlaceWrite{WriteKind::IndexAssign, Op, Lhs, Op->getArg(1)};
    }
  }
  return InPlaceWrite{WriteKind::ViewAssign, Op,      Lhs,
                      Op->getArg(1),         nullptr, true};
}

std::optional<InPlaceWrite> matchInPlaceWrite(const Expr *E) {
  if (!E)
    return std::nullopt;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    // t += v and kin: in-place arithmetic.
    if (libtorch::isCompoundAssignOnTensor(Op))
      return libtorch::isTensorType(Op->getArg(1)->getType())
                 ? matchOtherInPlaceOp(
                       Op, Op->getArg(0), 1,
                       getOperatorSpelling(Op->getOperator()),
                       libtorch::compoundAssignMethod(Op->getOperator()))
                 : std::nullopt;
    return matchAssignIntoTemporary(Op);
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E))
    return matchMethodWrite(MC);
  if (const auto *C = dyn_cast<CallExpr>(E))
    return matchFreeWrite(C);
  return std::nullopt;
}

} // namespace torch_tidy

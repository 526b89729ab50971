//===- LibTorchApi.cpp - What LibTorch's C++ names mean -------------------===//

#include "torch_tidy/analysis/LibTorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;

namespace torch_tidy {
namespace libtorch {

static const NamedDecl *recordOf(QualType T) {
  if (T.isNull())
    return nullptr;
  T = T.getNonReferenceType().getCanonicalType();
  if (T->isDependentType())
    return nullptr;
  return T->getAsCXXRecordDecl();
}

static bool isTensorRecord(const NamedDecl *D) {
  if (!D || !D->getIdentifier())
    return false;
  StringRef Name = D->getName();
  if (Name != "Tensor" && Name != "TensorBase")
    return false;
  const auto *NS = dyn_cast<NamespaceDecl>(D->getDeclContext());
  return NS && NS->getIdentifier() && NS->getName() == "at" &&
         NS->getDeclContext()->getRedeclContext()->isTranslationUnit();
}

bool isTensorType(QualType T) { return isTensorRecord(recordOf(T)); }

bool isInTorchNamespace(const Decl *D) {
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent()) {
    const auto *NS = dyn_cast<NamespaceDecl>(DC);
    if (!NS)
      continue;
    if (NS->getParent()->getRedeclContext()->isTranslationUnit())
      return NS->getIdentifier() &&
             (NS->getName() == "at" || NS->getName() == "torch" ||
              NS->getName() == "c10");
  }
  return false;
}

const FunctionDecl *torchCallee(const CallExpr *Call) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD)
    return nullptr;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    return isTensorRecord(MD->getParent()) ? FD : nullptr;
  return isInTorchNamespace(FD) ? FD : nullptr;
}

static StringRef calleeName(const CallExpr *Call) {
  const FunctionDecl *FD = torchCallee(Call);
  if (!FD || !FD->getIdentifier())
    return {};
  return FD->getName();
}

static bool isMethodCall(const CallExpr *Call) {
  return isa<CXXMemberCallExpr>(Call);
}

bool isNonGradFactory(const CallExpr *Call) {
  static const llvm::StringSet<> FreeFactories = {
      "zeros",     "ones",      "empty",      "full",         "rand",
      "randn",     "eye",       "zeros_like", "ones_like",    "empty_like",
      "full_like", "rand_like", "randn_like", "empty_strided"};
  static const llvm::StringSet<> MethodFactories = {"new_zeros", "new_ones",
                                                    "new_empty", "new_full"};
  StringRef Name = calleeName(Call);
  if (Name.empty())
    return false;
  return isMethodCall(Call) ? MethodFactories.contains(Name)
                            : FreeFactories.contains(Name);
}

/// Finds requires_grad(...) inside a TensorOptions expression. Returns true if
/// it asks for grad (any argument but a literal false). With Proven set, only
/// a literal true (or the default argument) counts, and options that cannot
/// be seen do not.
static bool optionsAskForGrad(const Expr *E, int Depth = 0,
                              bool Proven = false) {
  if (!E || Depth > 8)
    return false;
  E = E->IgnoreParenImpCasts();
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    // Tensor::options() carries dtype, device and layout, never
    // requires_grad.
    if (isa<CXXMemberCallExpr>(Call) && FD && FD->getIdentifier() &&
        FD->getName() == "options" &&
        isTensorRecord(cast<CXXMethodDecl>(FD)->getParent()))
      return false;
    if (FD && FD->getIdentifier() && FD->getName() == "requires_grad" &&
        FD->getNumParams() == 1) {
      if (Call->getNumArgs() == 0 || isa<CXXDefaultArgExpr>(Call->getArg(0)))
        return true;
      return boolLiteral(Call->getArg(0)).value_or(!Proven);
    }
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (isa<ParmVarDecl>(Ref->getDecl()))
      return !Proven; // Options from the caller: unknown.
    if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
      return !Proven && V->hasInit() &&
             optionsAskForGrad(V->getInit(), Depth + 1);
    return false;
  }
  for (const Stmt *Child : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(Child))
      if (optionsAskForGrad(CE, Depth + 1, Proven))
        return true;
  return false;
}

bool factoryRequiresGrad(const CallExpr *Call) {
  if (!isNonGradFactory(Call))
    return false;
  for (const Expr *Arg : Call->arguments()) {
    if (isa<CXXDefaultArgExpr>(Arg))
      continue;
    QualType T = Arg->getType().getNonReferenceType().getCanonicalType();
    const auto *RD = T->getAsCXXRecordDecl();
    if (RD && RD->getIdentifier() && RD->getName() == "TensorOptions" &&
        optionsAskForGrad(Arg, 0, /*Proven=*/true))
      return true;
  }
  return false;
}

bool factoryMayRequireGrad(const CallExpr *Call) {
  for (const Expr *Arg : Call->arguments()) {
    if (isa<CXXDefaultArgExpr>(Arg))
      continue;
    QualType T = Arg->getType().getNonReferenceType().getCanonicalType();
    const auto *RD = T->getAsCXXRecordDecl();
    if (!RD || !RD->getIdentifier() || RD->getName() != "TensorOptions")
      continue;
    if (optionsAskForGrad(Arg))
      return true;
  }
  return false;
}

static bool isIntegerOrBoolDtypeArg(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  while (true) {
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E)) {
      if (Ctor->getNumArgs() == 0)
        return false;
      E = Ctor->getArg(0)->IgnoreParenImpCasts();
      continue;
    }
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = M->getSubExpr()->IgnoreParenImpCasts();
      continue;
    }
    break;
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const ValueDecl *D = Ref ? Ref->getDecl() : nullptr;
  if (const auto *V = dyn_cast_or_null<VarDecl>(D)) {
    static const llvm::StringSet<> IntNames = {
        "kLong",  "kInt",   "kShort", "kChar", "kByte", "kBool",
        "kInt64", "kInt32", "kInt16", "kInt8", "kUInt8"};
    return IntNames.contains(V->getName());
  }
  if (const auto *EC = dyn_cast_or_null<EnumConstantDecl>(D)) {
    static const llvm::StringSet<> IntEnums = {"Long", "Int",  "Short",
                                               "Char", "Byte", "Bool"};
    return IntEnums.contains(EC->getName());
  }
  return false;
}

static bool containsIntegerOrBoolDtype(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *E = dyn_cast<Expr>(S); E && isIntegerOrBoolDtypeArg(E))
    return true;
  for (const Stmt *Child : S->children())
    if (containsIntegerOrBoolDtype(Child))
      return true;
  return false;
}

bool producesNonGradValue(const CallExpr *Call) {
  static const llvm::StringSet<> NonGrad = {
      "arange",   "range",       "triu_indices", "tril_indices", "randint",
      "randperm", "nonzero",     "argmax",       "argmin",       "argsort",
      "detach",   "gt",          "lt",           "ge",           "le",
      "eq",       "ne",          "logical_and",  "logical_or",   "logical_not",
      "isnan",    "isinf",       "isfinite",     "bucketize",    "searchsorted",
      "one_hot",  "multinomial", "bernoulli"};
  StringRef Name = calleeName(Call);
  if (Name.empty()) {
    // Comparison operators on tensors produce bool tensors.
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
      switch (Op->getOperator()) {
      case OO_Less:
      case OO_Greater:
      case OO_LessEqual:
      case OO_GreaterEqual:
      case OO_EqualEqual:
      case OO_ExclaimEqual:
        return Op->getNumArgs() > 0 && isTensorType(Op->getArg(0)->getType());
      default:
        return false;
      }
    }
    return false;
  }
  if (NonGrad.contains(Name))
    return true;
  // .to(kLong), .to(torch::kBool), toType(kLong), .to(device, kLong).
  if ((Name == "to" || Name == "toType" || Name == "type") &&
      isMethodCall(Call))
    for (const Expr *Arg : Call->arguments())
      if (isIntegerOrBoolDtypeArg(Arg))
        return true;
  // Factories asked for an integer dtype.
  if (isNonGradFactory(Call))
    for (const Expr *Arg : Call->arguments())
      if (containsIntegerOrBoolDtype(Arg))
        return true;
  return false;
}

bool isFreshnessPreservingMethod(const CXXMemberCallExpr *Call) {
  static const llvm::StringSet<> Same = {"to",         "cuda",   "cpu",
                                         "contiguous", "clone",  "pin_memory",
                                         "float",      "double", "type_as"};
  StringRef Name = calleeName(Call);
  return !Name.empty() && Same.contains(Name);
}

bool isViewProducingCall(const Expr *E) {
  static const llvm::StringSet<> Views = {
      "slice",     "narrow",    "select",     "index",   "transpose",
      "t",         "unsqueeze", "squeeze",    "view",    "expand",
      "diagonal",  "permute",   "as_strided", "view_as", "unflatten",
      "expand_as", "movedim",   "swapaxes",   "unfold",  "real",
      "imag",      "flatten",   "reshape",    "chunk",   "unbind"};
  E = ignoreTensorWrappers(E);
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    return Op->getOperator() == OO_Subscript &&
           isTensorType(Op->getArg(0)->getType());
  const auto *Call = dyn_cast<CXXMemberCallExpr>(E);
  StringRef Name = calleeName(Call);
  return !Name.empty() && Views.contains(Name);
}

const Expr *viewObject(const Expr *ViewCall) {
  ViewCall = ignoreTensorWrappers(ViewCall);
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(ViewCall))
    return Op->getArg(0);
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(ViewCall))
    return Call->getImplicitObjectArgument();
  return nullptr;
}

const Expr *viewChainRoot(const Expr *E, bool *ThroughView,
                          bool StopAtCopyingIndex) {
  E = ignoreTensorWrappers(E);
  while (E && isViewProducingCall(E) &&
         !(StopAtCopyingIndex && isCopyingIndexCall(E))) {
    E = ignoreTensorWrappers(viewObject(E));
    if (ThroughView)
      *ThroughView = true;
  }
  return E;
}

bool isRequiresGradSetter(const FunctionDecl *FD) {
  return FD && FD->getIdentifier() &&
         (FD->getName() == "requires_grad_" ||
          FD->getName() == "set_requires_grad");
}

bool isNoGradGuardDecl(const VarDecl *V) {
  const auto *RD = V->getType().getCanonicalType()->getAsCXXRecordDecl();
  if (!RD || !RD->getIdentifier() || !isInTorchNamespace(RD))
    return false;
  StringRef Name = RD->getName();
  if (Name == "NoGradGuard")
    return true;
  if (Name != "AutoGradMode" && Name != "InferenceMode")
    return false;
  // AutoGradMode(false) disables grad; InferenceMode() / InferenceMode(true)
  // enable inference mode. A non-literal argument is not proof either way.
  const auto *Ctor = dyn_cast_or_null<CXXConstructExpr>(
      V->getInit() ? V->getInit()->IgnoreImplicit() : nullptr);
  if (!Ctor)
    return false;
  bool WantEnabled = Name == "InferenceMode";
  if (Ctor->getNumArgs() == 0 || isa<CXXDefaultArgExpr>(Ctor->getArg(0)))
    return WantEnabled;
  std::optional<bool> Enabled = boolLiteral(Ctor->getArg(0));
  return Enabled && *Enabled == WantEnabled;
}

LibraryCall classifyLibraryCall(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *MD = Call->getMethodDecl();
  if (!MD || !MD->getIdentifier())
    return LibraryCall::None;
  const CXXRecordDecl *RD = MD->getParent();
  if (!RD->getIdentifier() || RD->getName() != "Library" ||
      !isInTorchNamespace(RD))
    return LibraryCall::None;
  if (MD->getName() == "def")
    return LibraryCall::Def;
  if (MD->getName() == "impl")
    return LibraryCall::Impl;
  return LibraryCall::None;
}

bool isTracedDispatchKey(StringRef Key) {
  return Key == "CompositeImplicitAutograd" ||
         Key == "CompositeImplicitAutogradNestedTensor";
}

IndexElement classifyIndexElement(const Expr *E) {
  E = E->IgnoreImplicit();
  if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
    E = B->getSubExpr()->IgnoreImplicit();
  const auto *Ctor = dyn_cast<CXXConstructExpr>(E);
  if (!Ctor || Ctor->getNumArgs() != 1)
    return IndexElement::Basic;
  const Expr *Arg = Ctor->getArg(0)->IgnoreImplicit();
  if (isTensorType(Arg->getType()))
    return IndexElement::Tensor;
  const auto *RD = Arg->getType()->getAsCXXRecordDecl();
  if (RD && RD->getIdentifier() && RD->getName() == "Slice") {
    const auto *SliceCtor =
        dyn_cast<CXXConstructExpr>(ignoreTensorWrappers(Arg));
    if (SliceCtor && llvm::all_of(SliceCtor->arguments(), [](const Expr *A) {
          return isa<CXXDefaultArgExpr>(A);
        }))
      return IndexElement::FullSlice;
  }
  return IndexElement::Basic;
}

std::optional<std::vector<const Expr *>> indexListElements(const Expr *Arg) {
  const Expr *E = Arg->IgnoreImplicit();
  if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E);
      Ctor && Ctor->getNumArgs() == 1)
    E = Ctor->getArg(0)->IgnoreImplicit();
  if (const auto *IL = dyn_cast<CXXStdInitializerListExpr>(E))
    E = IL->getSubExpr()->IgnoreImplicit();
  const auto *Init = dyn_cast<InitListExpr>(E);
  if (!Init)
    return std::nullopt;
  return std::vector<const Expr *>(Init->inits().begin(), Init->inits().end());
}

bool isAdvancedIndexList(const Expr *Arg) {
  auto Elements = indexListElements(Arg);
  return Elements && llvm::any_of(*Elements, [](const Expr *E) {
           return classifyIndexElement(E) == IndexElement::Tensor;
         });
}

bool isCopyingIndexCall(const Expr *E) {
  // t[tensor] is not here: Tensor::operator[](Tensor) selects with the
  // index's single integer, a view.
  const auto *Call = dyn_cast<CXXMemberCallExpr>(ignoreTensorWrappers(E));
  if (calleeName(Call) != "index" || Call->getNumArgs() != 1)
    return false;
  const Expr *Arg = Call->getArg(0);
  const auto *RD = Arg->getType().getNonReferenceType()->getAsCXXRecordDecl();
  if (RD && RD->getIdentifier() && RD->getName() == "List")
    return true;
  return isAdvancedIndexList(Arg);
}

static bool isInPlaceValueName(StringRef Name) {
  static const llvm::StringSet<> NotValueWrites = {
      "requires_grad_", "detach_",       "resize_", "resize_as_",
      "set_",           "share_memory_", "rename_", "retain_grad_"};
  return Name.size() > 1 && Name.ends_with("_") && !Name.starts_with("_") &&
         !NotValueWrites.contains(Name);
}

bool isInPlaceValueMethod(const CXXMemberCallExpr *Call) {
  return isInPlaceValueName(calleeName(Call));
}

bool isInPlaceValueFunction(const FunctionDecl *FD) {
  return FD && !isa<CXXMethodDecl>(FD) && FD->getIdentifier() &&
         isInTorchNamespace(FD) && FD->getNumParams() > 0 &&
         isTensorType(FD->getParamDecl(0)->getType()) &&
         isInPlaceValueName(FD->getName());
}

bool isCompoundAssignOnTensor(const CXXOperatorCallExpr *Op) {
  switch (Op->getOperator()) {
  case OO_PlusEqual:
  case OO_MinusEqual:
  case OO_StarEqual:
  case OO_SlashEqual:
  case OO_AmpEqual:
  case OO_PipeEqual:
  case OO_CaretEqual:
    return Op->getNumArgs() == 2 && isTensorType(Op->getArg(0)->getType());
  default:
    return false;
  }
}

std::optional<bool> boolLiteral(const Expr *E) {
  for (int Depth = 0; E && Depth < 8; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *B = dyn_cast<CXXBoolLiteralExpr>(E))
      return B->getValue();
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
      E = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
      E = B->getSubExpr();
    else if (const auto *C = dyn_cast<CXXConstructExpr>(E);
             C && C->getNumArgs() == 1)
      E = C->getArg(0);
    else
      return std::nullopt;
  }
  return std::nullopt;
}

const Expr *ignoreTensorWrappers(const Expr *E) {
  while (E) {
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *C = dyn_cast<ExprWithCleanups>(Next))
      Next = C->getSubExpr();
    else if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(Next))
      Next = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(Next))
      Next = B->getSubExpr();
    else if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(Next))
      Next = F->getSubExpr();
    else if (const auto *Ctor = dyn_cast<CXXConstructExpr>(Next)) {
      if (Ctor->getNumArgs() == 1 && isTensorType(Ctor->getType()) &&
          (Ctor->getConstructor()->isCopyOrMoveConstructor() ||
           isTensorType(Ctor->getArg(0)->getType())))
        Next = Ctor->getArg(0);
    }
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

} // namespace libtorch
} // namespace torch_tidy

//===- LibTorchApi.cpp - What LibTorch's C++ names mean -------------------===//

#include "torch_tidy/libtorch/LibTorchApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;

namespace torch_tidy {
namespace libtorch {

bool isMetadataWrite(StringRef Name) {
  static const llvm::StringSet<> Names = {
      "resize_",   "resize_as_", "set_",       "set_data",
      "squeeze_",  "unsqueeze_", "transpose_", "t_",
      "swapdims_", "swapaxes_",  "as_strided_"};
  return Names.contains(Name);
}

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

namespace {
/// A record or enum of LibTorch named Name (at::, c10::, caffe2::, torch::).
bool isLibTorchTypeNamed(QualType T, std::initializer_list<StringRef> Names) {
  T = T.getNonReferenceType().getCanonicalType();
  const NamedDecl *D = nullptr;
  if (const auto *RD = T->getAsCXXRecordDecl())
    D = RD;
  else if (const auto *ET = T->getAs<EnumType>())
    D = ET->getDecl();
  if (!D || !D->getIdentifier() || !llvm::is_contained(Names, D->getName()))
    return false;
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC);
        NS && NS->getParent()->getRedeclContext()->isTranslationUnit())
      return NS->getIdentifier() &&
             llvm::is_contained({"at", "c10", "torch", "caffe2"},
                                NS->getName());
  return false;
}

bool isTensorOptionsType(QualType T) {
  return isLibTorchTypeNamed(T, {"TensorOptions"});
}

/// The T of std::optional<T> / c10::optional<T>, or T itself.
QualType withoutOptional(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T->getAsCXXRecordDecl());
  if (Spec && Spec->getIdentifier() && Spec->getName() == "optional" &&
      Spec->getTemplateArgs().size() == 1 &&
      Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
    return Spec->getTemplateArgs()[0].getAsType().getCanonicalType();
  return T;
}

/// The parts of TensorOptions other than requires_grad, and what converts
/// to them: a value of one of these types never asks for grad.
bool isOptionsComponentType(QualType T) {
  T = withoutOptional(T);
  if (T->isPointerType() && T->getPointeeType()->isAnyCharacterType())
    return true; // a device string, "cuda:0"
  if (T->isIntegerType() && !T->isBooleanType())
    return true; // a device index
  return isLibTorchTypeNamed(T, {"Device", "DeviceType", "ScalarType", "Layout",
                                 "MemoryFormat", "TypeMeta"}) ||
         (T->getAsCXXRecordDecl() && T->getAsCXXRecordDecl()->getIdentifier() &&
          T->getAsCXXRecordDecl()->getName() == "basic_string");
}

GradRequest joinRequest(GradRequest A, GradRequest B) {
  return A == B ? A : GradRequest::Unknown;
}

/// Evaluates what options expressions ask for. Bottom (nullopt) is the
/// value of a variable while its own assignments are being read
/// (`o = o.dtype(kFloat)`): it leaves the join unchanged.
class OptionsEvaluator {
public:
  explicit OptionsEvaluator(ASTContext &Ctx) : Ctx(Ctx) {}
  std::optional<GradRequest> eval(const Expr *E, int Depth = 0);

private:
  std::optional<GradRequest> flag(const Expr *Arg, int Depth);
  std::optional<GradRequest> variable(const VarDecl *V, int Depth);
  ASTContext &Ctx;
  llvm::SmallPtrSet<const VarDecl *, 4> InProgress;
};

std::optional<GradRequest> OptionsEvaluator::eval(const Expr *E, int Depth) {
  if (!E || Depth > 16)
    return GradRequest::Unknown;
  if (const auto *D = dyn_cast<CXXDefaultArgExpr>(E))
    E = D->getExpr();
  E = ignoreTensorWrappers(E);
  if (E->isTypeDependent() || E->isValueDependent())
    return GradRequest::Unknown;
  if (!isTensorOptionsType(E->getType()))
    return isOptionsComponentType(E->getType())
               ? std::optional(GradRequest::No)
               : std::optional(GradRequest::Unknown);
  if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E)) {
    // A copy keeps what the original asks; every other constructor
    // (default, Device, ScalarType, Layout, ...) sets no requires_grad.
    if (Ctor->getConstructor()->isCopyOrMoveConstructor() &&
        Ctor->getNumArgs() == 1)
      return eval(Ctor->getArg(0), Depth + 1);
    return GradRequest::No;
  }
  if (isa<InitListExpr>(E) || isa<ImplicitValueInitExpr>(E))
    return GradRequest::No;
  if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(E)) {
    std::optional<GradRequest> A = eval(Cond->getTrueExpr(), Depth + 1);
    std::optional<GradRequest> B = eval(Cond->getFalseExpr(), Depth + 1);
    if (!A || !B)
      return A ? A : B;
    return joinRequest(*A, *B);
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    StringRef Name = MD && MD->getIdentifier() ? MD->getName() : StringRef();
    const Expr *Object = MC->getImplicitObjectArgument();
    // Tensor::options() carries dtype, device and layout, never
    // requires_grad.
    if (Name == "options" && Object && isTensorType(Object->getType()))
      return GradRequest::No;
    if (!Object || !isTensorOptionsType(Object->getType()))
      return GradRequest::Unknown;
    if (Name == "requires_grad" && MC->getNumArgs() == 1)
      return flag(MC->getArg(0), Depth);
    if (llvm::is_contained({"dtype", "device", "device_index", "layout",
                            "pinned_memory", "memory_format"},
                           Name))
      return eval(Object, Depth + 1);
    if (Name == "merge_in" && MC->getNumArgs() == 1) {
      std::optional<GradRequest> Into = eval(Object, Depth + 1);
      std::optional<GradRequest> From = eval(MC->getArg(0), Depth + 1);
      // The merged options' requires_grad, when set, wins.
      if (From == GradRequest::No)
        return Into;
      return From == GradRequest::Yes ? From
                                      : std::optional(GradRequest::Unknown);
    }
    return GradRequest::Unknown;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD || !isInTorchNamespace(FD) || isa<CXXMethodDecl>(FD))
      return GradRequest::Unknown; // user code: cannot be seen here
    // torch::requires_grad(b); every other LibTorch helper (dtype(),
    // device(), layout(), ...) sets something else.
    if (FD->getIdentifier() && FD->getName() == "requires_grad")
      return Call->getNumArgs() == 1 ? flag(Call->getArg(0), Depth)
                                     : GradRequest::Unknown;
    return GradRequest::No;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    if (!V || isa<ParmVarDecl>(V))
      return GradRequest::Unknown; // options from the caller
    return variable(V, Depth);
  }
  return GradRequest::Unknown; // members, calls through pointers, ...
}

/// The argument of requires_grad(...): a constant says Yes or No; unset
/// (nullopt) is No; anything else is Unknown.
std::optional<GradRequest> OptionsEvaluator::flag(const Expr *Arg, int Depth) {
  if (const auto *D = dyn_cast<CXXDefaultArgExpr>(Arg))
    Arg = D->getExpr();
  Arg = ignoreTensorWrappers(Arg);
  // std::optional<bool>(b), or an unset optional.
  while (const auto *Ctor = dyn_cast<CXXConstructExpr>(Arg)) {
    if (Ctor->getNumArgs() == 0)
      return GradRequest::No;
    Arg = ignoreTensorWrappers(Ctor->getArg(0));
  }
  QualType T = Arg->getType().getNonReferenceType().getCanonicalType();
  if (const auto *RD = T->getAsCXXRecordDecl();
      RD && RD->getIdentifier() && RD->getName() == "nullopt_t")
    return GradRequest::No;
  if (std::optional<bool> B = boolLiteral(Arg))
    return *B ? GradRequest::Yes : GradRequest::No;
  // A constant that is not a literal: `constexpr bool kGrad = false;`.
  bool Value = false;
  if (!Arg->isValueDependent() && Arg->EvaluateAsBooleanCondition(Value, Ctx))
    return Value ? GradRequest::Yes : GradRequest::No;
  return GradRequest::Unknown;
}

/// How a function body may change a local options variable V: the
/// right-hand sides of its assignments, or Escapes when its address is
/// taken, it is bound to a non-const reference or passed as one, or a
/// non-const method other than the setters is called on it.
struct OptionsAssignments : RecursiveASTVisitor<OptionsAssignments> {
  explicit OptionsAssignments(const VarDecl *V) : V(V) {}
  bool isV(const Expr *E) const {
    const auto *Ref =
        dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts() : nullptr);
    return Ref && Ref->getDecl() == V;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->getOpcode() == UO_AddrOf && isV(U->getSubExpr()))
      Escapes = true;
    return true;
  }
  bool VisitVarDecl(VarDecl *Other) {
    QualType T = Other->getType();
    if (T->isReferenceType() && !T.getNonReferenceType().isConstQualified() &&
        isV(Other->getInit()))
      Escapes = true;
    return true;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *MC) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (MD && !MD->isConst() && isV(MC->getImplicitObjectArgument()) &&
        !(MD->getIdentifier() && MD->getName() == "dtype"))
      Escapes = true; // dtype<T>() sets the dtype in place; nothing else may
    visitArguments(MD, {MC->getArgs(), MC->getNumArgs()});
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    if (isa<CXXMemberCallExpr>(C))
      return true;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(C);
        Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
        isV(Op->getArg(0))) {
      Values.push_back(Op->getArg(1));
      return true;
    }
    const FunctionDecl *FD = C->getDirectCallee();
    llvm::ArrayRef<const Expr *> Args(C->getArgs(), C->getNumArgs());
    // An operator that is a method takes its object as the first argument.
    if (isa<CXXOperatorCallExpr>(C) && FD && isa<CXXMethodDecl>(FD) &&
        !Args.empty()) {
      if (isV(Args.front()) && !cast<CXXMethodDecl>(FD)->isConst())
        Escapes = true;
      Args = Args.drop_front();
    }
    visitArguments(FD, Args);
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *C) {
    visitArguments(C->getConstructor(), {C->getArgs(), C->getNumArgs()});
    return true;
  }
  void visitArguments(const FunctionDecl *FD,
                      llvm::ArrayRef<const Expr *> Args) {
    for (unsigned I = 0; I < Args.size(); ++I) {
      if (!isV(Args[I]))
        continue;
      const ParmVarDecl *P =
          FD && I < FD->getNumParams() ? FD->getParamDecl(I) : nullptr;
      // An unknown callee or a variadic tail may write it.
      if (!P || (P->getType()->isReferenceType() &&
                 !P->getType().getNonReferenceType().isConstQualified()))
        Escapes = true;
    }
  }

  const VarDecl *V;
  std::vector<const Expr *> Values;
  bool Escapes = false;
};

std::optional<GradRequest> OptionsEvaluator::variable(const VarDecl *V,
                                                      int Depth) {
  if (V->getType()->isReferenceType())
    return V->hasInit() ? eval(V->getInit(), Depth + 1)
                        : std::optional(GradRequest::Unknown);
  if (!V->hasLocalStorage()) {
    // A constant global or static: its initializer; anything else may be
    // changed elsewhere.
    if (V->getType().isConstQualified() && V->hasInit())
      return eval(V->getInit(), Depth + 1);
    return GradRequest::Unknown;
  }
  if (!InProgress.insert(V).second)
    return std::nullopt; // o = o.dtype(...): what the other values say
  const auto *Owner =
      dyn_cast_or_null<FunctionDecl>(V->getParentFunctionOrMethod());
  const Stmt *Body = Owner ? Owner->getBody() : nullptr;
  std::optional<GradRequest> Result =
      V->hasInit() ? eval(V->getInit(), Depth + 1)
                   : std::optional(GradRequest::No); // default-constructed
  if (!Body) {
    Result = GradRequest::Unknown;
  } else {
    OptionsAssignments Walk(V);
    Walk.TraverseStmt(const_cast<Stmt *>(Body));
    if (Walk.Escapes)
      Result = GradRequest::Unknown;
    for (const Expr *Value : Walk.Values) {
      if (Result == GradRequest::Unknown)
        break;
      std::optional<GradRequest> R = eval(Value, Depth + 1);
      if (R)
        Result = Result ? joinRequest(*Result, *R) : R;
    }
  }
  InProgress.erase(V);
  return Result;
}
} // namespace

GradRequest optionsGradRequest(const Expr *E, ASTContext &Ctx) {
  return OptionsEvaluator(Ctx).eval(E).value_or(GradRequest::No);
}

GradRequest factoryGradRequest(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return GradRequest::Unknown;
  std::optional<GradRequest> Result;
  for (const Expr *Arg : Call->arguments()) {
    if (isa<CXXDefaultArgExpr>(Arg) || !isTensorOptionsType(Arg->getType()))
      continue;
    GradRequest R = optionsGradRequest(Arg, FD->getASTContext());
    Result = Result ? joinRequest(*Result, R) : R;
  }
  return Result.value_or(GradRequest::No);
}

bool factoryRequiresGrad(const CallExpr *Call) {
  return isNonGradFactory(Call) && factoryGradRequest(Call) == GradRequest::Yes;
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
  if (RD->getIdentifier() && RD->getName() == "RegisterOperators" &&
      isInTorchNamespace(RD) && MD->getName() == "op")
    return LibraryCall::RegisterOp;
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
  // Autograd, storage and shape metadata: the values stay as they are.
  static const llvm::StringSet<> NotValueWrites = {
      "requires_grad_", "detach_", "resize_",      "resize_as_", "set_",
      "share_memory_",  "rename_", "retain_grad_", "squeeze_",   "unsqueeze_",
      "transpose_",     "t_",      "swapdims_",    "swapaxes_",  "as_strided_"};
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

StringRef compoundAssignMethod(OverloadedOperatorKind Op) {
  switch (Op) {
  case OO_PlusEqual:
    return "add_";
  case OO_MinusEqual:
    return "sub_";
  case OO_StarEqual:
    return "mul_";
  case OO_SlashEqual:
    return "div_";
  case OO_AmpEqual:
    return "bitwise_and_";
  case OO_PipeEqual:
    return "bitwise_or_";
  case OO_CaretEqual:
    return "bitwise_xor_";
  default:
    return "";
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

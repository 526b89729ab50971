//===- OperatorModel.cpp - The operators a file registers -----------------===//

#include "torch_tidy/operators/OperatorModel.h"
#include "torch_tidy/libtorch/LibTorchApi.h"
#include "torch_tidy/libtorch/UserCode.h"
#include "torch_tidy/operators/Consequence.h"
#include "torch_tidy/operators/ProjectOperators.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace torch_tidy {

std::string RegisteredOperator::qualifiedName() const {
  return qualifiedOperatorName(Namespace, Name, Overload);
}

std::optional<unsigned>
RegisteredOperator::schemaArgumentOf(const KernelRegistration &K,
                                     unsigned ParamIndex) const {
  if (!Schema || Schema->NameOnly || Schema->VarArgs || !K.Kernel)
    return std::nullopt;
  if (K.Through) {
    // Behind a dispatch stub: the registered function's parameter the
    // stub call passes (the registered function lines up with the schema,
    // which the index cannot check without its declaration: its parameter
    // count is the schema's).
    if (K.Through->CallerParams.size() != Schema->Arguments.size() ||
        ParamIndex >= K.Through->ParamMap.size() ||
        K.Through->ParamMap[ParamIndex] < 0 ||
        static_cast<size_t>(K.Through->ParamMap[ParamIndex]) >=
            Schema->Arguments.size())
      return std::nullopt;
    return static_cast<unsigned>(K.Through->ParamMap[ParamIndex]);
  }
  unsigned Skip = K.TakesDispatchKeySet ? 1 : 0;
  if (K.Kernel->getNumParams() != Schema->Arguments.size() + Skip ||
      ParamIndex < Skip)
    return std::nullopt;
  return ParamIndex - Skip;
}

namespace {

/// The references a TorchLibraryInit construction makes: the init function
/// (inside lambdas too, as 1.13's TORCH_LIBRARY_IMPL hides the function
/// pointer in one) and the dispatch key.
class LibraryInitVisitor : public RecursiveASTVisitor<LibraryInitVisitor> {
public:
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (const auto *FD = dyn_cast<FunctionDecl>(Ref->getDecl())) {
      if (!libtorch::isInTorchNamespace(FD) && !FD->isInStdNamespace())
        Functions.push_back(FD);
    } else if (const auto *EC = dyn_cast<EnumConstantDecl>(Ref->getDecl())) {
      const auto *Enum = dyn_cast<EnumDecl>(EC->getDeclContext());
      if (Enum && Enum->getIdentifier() && Enum->getName() == "DispatchKey")
        Key = EC->getName().str();
      else if (Enum && Enum->getIdentifier() && Enum->getName() == "Kind")
        Kind = EC->getName().str();
    }
    return true;
  }
  std::vector<const FunctionDecl *> Functions;
  std::optional<std::string> Key;
  std::string Kind;
};

/// Finds the kernels a def/impl argument names.
class KernelVisitor : public RecursiveASTVisitor<KernelVisitor> {
public:
  // The lambda is the kernel; nothing inside it (its captures' initialisers
  // and its body name functions it calls, not kernels: a lambda kernel
  // calling ::memset was taken for two kernels, and got no schema).
  bool TraverseLambdaExpr(LambdaExpr *L) {
    Kernels.push_back(L->getCallOperator());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (const auto *FD = dyn_cast<FunctionDecl>(Ref->getDecl()))
      if (!libtorch::isInTorchNamespace(FD) && !FD->isInStdNamespace())
        Kernels.push_back(FD);
    return true;
  }
  bool VisitExpr(Expr *E) {
    // TORCH_FN(f) is c10::CompileTimeFunctionPointer<Sig, f>.
    const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
        E->getType()->getAsCXXRecordDecl());
    if (Spec && Spec->getName() == "CompileTimeFunctionPointer")
      for (const TemplateArgument &A : Spec->getTemplateArgs().asArray())
        if (A.getKind() == TemplateArgument::Declaration)
          if (const auto *FD = dyn_cast<FunctionDecl>(A.getAsDecl()))
            Kernels.push_back(FD);
    return true;
  }
  std::vector<const FunctionDecl *> Kernels;
};

/// The dispatch key named in a def/impl argument (torch::dispatch(key, f),
/// impl(name, key, f)), if any: a DispatchKey, or a DeviceType such as
/// c10::DeviceType::CPU or kCUDA, which names the backend's key.
class ExplicitKeyVisitor : public RecursiveASTVisitor<ExplicitKeyVisitor> {
public:
  bool shouldVisitLambdaBody() const { return false; }
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (const auto *EC = dyn_cast<EnumConstantDecl>(Ref->getDecl())) {
      const auto *Enum = dyn_cast<EnumDecl>(EC->getDeclContext());
      if (Enum && Enum->getIdentifier() &&
          (Enum->getName() == "DispatchKey" || Enum->getName() == "DeviceType"))
        Key = EC->getName().str();
    } else if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl())) {
      // constexpr DeviceType kCPU = DeviceType::CPU;
      const auto *ET = V->getType().getCanonicalType()->getAs<EnumType>();
      if (ET && ET->getDecl()->getIdentifier() &&
          ET->getDecl()->getName() == "DeviceType" && V->getIdentifier() &&
          V->getName().starts_with("k"))
        Key = V->getName().drop_front().str();
    }
    return true;
  }
  std::optional<std::string> Key;
};

/// Calls from a library's init function to functions that take the
/// torch::Library: helpers that register on the init function's behalf.
class LibraryPassingVisitor
    : public RecursiveASTVisitor<LibraryPassingVisitor> {
public:
  bool shouldVisitLambdaBody() const { return false; }
  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *Callee = C->getDirectCallee();
    if (!Callee || libtorch::isInTorchNamespace(Callee) ||
        Callee->isInStdNamespace())
      return true;
    for (const Expr *Arg : C->arguments()) {
      const auto *RD = Arg->getType()
                           .getNonReferenceType()
                           .getCanonicalType()
                           ->getAsCXXRecordDecl();
      if (RD && RD->getIdentifier() && RD->getName() == "Library" &&
          libtorch::isInTorchNamespace(RD)) {
        Helpers.push_back(Callee);
        break;
      }
    }
    return true;
  }
  std::vector<const FunctionDecl *> Helpers;
};

bool takesDispatchKeySet(const FunctionDecl *FD) {
  if (!FD || FD->getNumParams() == 0)
    return false;
  const auto *RD = FD->getParamDecl(0)
                       ->getType()
                       .getNonReferenceType()
                       .getCanonicalType()
                       ->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() && RD->getName() == "DispatchKeySet";
}

/// The schema LibTorch infers for m.def(name, fn): one argument per kernel
/// parameter, none of them annotated (measured: `Tensor&` parameters are
/// inferred as plain `Tensor`, see docs/ground-truth.md).
OperatorSchema inferSchema(const OperatorSchema &NameOnly,
                           const FunctionDecl *Kernel) {
  OperatorSchema S = NameOnly;
  S.NameOnly = false;
  unsigned Skip = takesDispatchKeySet(Kernel) ? 1 : 0;
  for (unsigned I = Skip; I < Kernel->getNumParams(); ++I) {
    SchemaArgument A;
    const ParmVarDecl *P = Kernel->getParamDecl(I);
    bool IsTensor = libtorch::isTensorType(P->getType());
    A.BaseType = IsTensor ? "Tensor" : "unknown";
    A.Type = A.BaseType;
    A.Name = P->getName().str();
    S.Arguments.push_back(std::move(A));
  }
  // A void kernel returns nothing (`-> ()`); any other, one value.
  QualType Ret = Kernel->getReturnType();
  if (!Ret->isVoidType()) {
    SchemaArgument R;
    R.BaseType = libtorch::isTensorType(Ret) ? "Tensor" : "unknown";
    R.Type = R.BaseType;
    S.Returns.push_back(std::move(R));
  }
  return S;
}

/// The `.schema("...")` argument inside a RegisterOperators::Options
/// expression, if any.
const Expr *optionsSchema(const Expr *Options) {
  class Finder : public RecursiveASTVisitor<Finder> {
  public:
    bool shouldVisitLambdaBody() const { return false; }
    bool VisitCXXMemberCallExpr(CXXMemberCallExpr *C) {
      const CXXMethodDecl *MD = C->getMethodDecl();
      if (!Found && MD && MD->getIdentifier() && MD->getName() == "schema" &&
          C->getNumArgs() == 1)
        Found = C->getArg(0);
      return true;
    }
    const Expr *Found = nullptr;
  } F;
  F.TraverseStmt(const_cast<Expr *>(Options));
  return F.Found;
}

const FunctionDecl *canonical(const FunctionDecl *FD) {
  return FD ? FD->getFirstDecl() : nullptr;
}

/// The registration facts of the user's code.
class RegistrationCollector
    : public RecursiveASTVisitor<RegistrationCollector> {
public:
  explicit RegistrationCollector(OperatorModel &Model) : Model(Model) {}
  bool TraverseDecl(Decl *D) {
    const auto *FD = dyn_cast_or_null<FunctionDecl>(D);
    bool Body = FD && FD->doesThisDeclarationHaveABody();
    if (Body)
      Enclosing.push_back(FD);
    bool Result = RecursiveASTVisitor::TraverseDecl(D);
    if (Body)
      Enclosing.pop_back();
    return Result;
  }
  bool VisitVarDecl(VarDecl *V) {
    const auto *RD = V->getType().getCanonicalType()->getAsCXXRecordDecl();
    if (RD && RD->getIdentifier() && RD->getName() == "TorchLibraryInit")
      Model.addLibraryInit(V);
    return true;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *C) {
    if (libtorch::classifyLibraryCall(C) != libtorch::LibraryCall::None)
      Model.addLibraryCall(C, Enclosing.empty() ? nullptr : Enclosing.back());
    return true;
  }

private:
  OperatorModel &Model;
  std::vector<const FunctionDecl *> Enclosing;
};

} // namespace

void OperatorModel::collect(const TranslationUnitDecl *TU) {
  this->TU = TU;
  RegistrationCollector Collector(*this);
  for (Decl *D : TU->decls())
    if (isUserDecl(D))
      Collector.TraverseDecl(D);
  finish();
}

const StringLiteral *OperatorModel::stringLiteralIn(const Expr *E) {
  for (int Depth = 0; E && Depth < 16; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *L = dyn_cast<StringLiteral>(E))
      return L;
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
      E = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
      E = B->getSubExpr();
    else if (const auto *C = dyn_cast<ExprWithCleanups>(E))
      E = C->getSubExpr();
    else if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(E))
      E = F->getSubExpr();
    else if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E);
             Ctor && Ctor->getNumArgs() >= 1)
      E = Ctor->getArg(0); // SelectiveStr<b>(n), std::string(n)
    else if (const auto *Call = dyn_cast<CallExpr>(E);
             Call && Call->getNumArgs() >= 1 && Call->getDirectCallee() &&
             Call->getDirectCallee()->getIdentifier() &&
             Call->getDirectCallee()->getName() == "schema" &&
             libtorch::isInTorchNamespace(Call->getDirectCallee()))
      E = Call->getArg(0); // torch::schema("...", aliasAnalysisKind)
    else
      return nullptr;
  }
  return nullptr;
}

SourceLocation OperatorModel::locationInLiteral(const StringLiteral *L,
                                                size_t Offset,
                                                const ASTContext &Ctx) {
  if (!L || !L->isOrdinary() || Offset > L->getByteLength())
    return L ? L->getBeginLoc() : SourceLocation();
  return L->getLocationOfByte(Offset, Ctx.getSourceManager(), Ctx.getLangOpts(),
                              Ctx.getTargetInfo());
}

std::vector<const FunctionDecl *> OperatorModel::kernelsIn(const Expr *Arg) {
  KernelVisitor V;
  V.TraverseStmt(const_cast<Expr *>(Arg));
  return V.Kernels;
}

void OperatorModel::addLibraryInit(const VarDecl *InitVar) {
  if (!InitVar->hasInit())
    return;
  const auto *Ctor = dyn_cast<CXXConstructExpr>(
      libtorch::ignoreTensorWrappers(InitVar->getInit()));
  LibraryInitVisitor V;
  V.TraverseStmt(const_cast<Expr *>(InitVar->getInit()));
  LibraryInfo Info;
  Info.K = V.Kind == "IMPL"       ? LibraryInfo::Impl
           : V.Kind == "FRAGMENT" ? LibraryInfo::Fragment
                                  : LibraryInfo::Def;
  Info.Key = V.Key;
  // TorchLibraryInit(kind, init_fn, ns, key, file, line).
  if (Ctor && Ctor->getNumArgs() >= 3)
    if (const StringLiteral *Ns = stringLiteralIn(Ctor->getArg(2));
        Ns && Ns->isOrdinary())
      Info.Namespace = Ns->getString().str();
  for (const FunctionDecl *FD : V.Functions)
    Libraries[canonical(FD)].push_back(Info);
}

void OperatorModel::addLibraryCall(const CXXMemberCallExpr *Call,
                                   const FunctionDecl *Enclosing) {
  Calls.push_back({Call, canonical(Enclosing)});
}

void OperatorModel::resolveHelpers() {
  // Helpers that an init function passes its library to register for that
  // library (transitively, a few levels deep).
  for (int Round = 0; Round < 4; ++Round) {
    bool Changed = false;
    auto Snapshot = Libraries;
    for (const auto &[Fn, Infos] : Snapshot) {
      const FunctionDecl *Def = nullptr;
      if (!Fn->hasBody(Def) || !Def)
        continue;
      LibraryPassingVisitor V;
      V.TraverseStmt(const_cast<Stmt *>(Def->getBody()));
      for (const FunctionDecl *Helper : V.Helpers) {
        auto &Target = Libraries[canonical(Helper)];
        for (const LibraryInfo &Info : Infos) {
          bool Known = false;
          for (const LibraryInfo &T : Target)
            Known |= T.Namespace == Info.Namespace && T.K == Info.K &&
                     T.Key == Info.Key;
          if (!Known) {
            Target.push_back(Info);
            Changed = true;
          }
        }
      }
    }
    if (!Changed)
      break;
  }
}

RegisteredOperator &OperatorModel::operatorNamed(const std::string &Ns,
                                                 const OperatorSchema &Name) {
  RegisteredOperator Op;
  Op.Namespace = Name.Namespace.empty() ? Ns : Name.Namespace;
  Op.Name = Name.Name;
  Op.Overload = Name.Overload;
  auto [It, Inserted] =
      OperatorIndex.try_emplace(Op.qualifiedName(), Operators.size());
  if (!Inserted)
    return Operators[It->second];
  Operators.push_back(std::move(Op));
  return Operators.back();
}

void OperatorModel::addCall(const CXXMemberCallExpr *Call,
                            const LibraryInfo *Lib) {
  libtorch::LibraryCall Kind = libtorch::classifyLibraryCall(Call);
  if (Kind == libtorch::LibraryCall::None || Call->getNumArgs() < 1)
    return;
  // The key given at the call wins over the library's; a library without a
  // key registers catch-all kernels, which are CompositeImplicitAutograd.
  std::optional<std::string> Key;
  std::vector<const FunctionDecl *> Kernels;
  // RegisterOperators::op(options): the schema is `.schema("...")` in the
  // options, the kernels and keys are in them too.
  const Expr *SchemaArg = Call->getArg(0);
  unsigned FirstKernelArg = 1;
  if (Kind == libtorch::LibraryCall::RegisterOp &&
      !stringLiteralIn(SchemaArg)) {
    SchemaArg = optionsSchema(SchemaArg);
    FirstKernelArg = 0;
  }
  for (unsigned I = FirstKernelArg; I < Call->getNumArgs(); ++I) {
    const Expr *Arg = Call->getArg(I);
    if (isa<CXXDefaultArgExpr>(Arg))
      continue;
    ExplicitKeyVisitor KV;
    KV.TraverseStmt(const_cast<Expr *>(Arg));
    if (KV.Key && !Key)
      Key = KV.Key;
    for (const FunctionDecl *K : kernelsIn(Arg))
      if (!llvm::is_contained(Kernels, K)) // kernel<decltype(f), &f>
        Kernels.push_back(K);
  }
  if (!Key && Lib && Lib->Key)
    Key = Lib->Key;
  std::string DispatchKey = Key.value_or("CompositeImplicitAutograd");
  std::string Ns = Lib ? Lib->Namespace : "";

  const StringLiteral *Literal =
      SchemaArg ? stringLiteralIn(SchemaArg) : nullptr;
  // RegisterOperators::op defines: it takes a schema or a name, as def does.
  bool Defines = Kind != libtorch::LibraryCall::Impl;
  std::optional<OperatorSchema> Parsed;
  if (Literal && Literal->isOrdinary()) {
    SchemaParseResult R = Defines ? parseOperatorSchema(Literal->getString())
                                  : parseOperatorName(Literal->getString());
    if (R)
      Parsed = std::move(*R.Schema);
    else
      Problems.push_back({Literal, Call, *R.Error});
  }

  RegisteredOperator *Op = nullptr;
  if (Parsed) {
    Op = &operatorNamed(Ns, *Parsed);
  } else {
    Operators.emplace_back(); // a name we cannot read: kernels only
    Op = &Operators.back();
    Op->Namespace = Ns;
  }
  if (Defines) {
    Op->DefSite = Call;
    if (Parsed && !Parsed->NameOnly) {
      Op->Schema = *Parsed;
      Op->SchemaLiteral = Literal;
    } else if (Parsed && Kernels.size() == 1) {
      Op->Schema = inferSchema(*Parsed, Kernels.front());
      Op->SchemaInferred = true;
    }
  }
  for (const FunctionDecl *K : Kernels)
    Op->Kernels.push_back({DispatchKey, K, Call, takesDispatchKeySet(K)});
}

void OperatorModel::finish() {
  resolveHelpers();
  for (const auto &[Call, Enclosing] : Calls) {
    auto It = Enclosing ? Libraries.find(Enclosing) : Libraries.end();
    if (It == Libraries.end()) {
      addCall(Call, nullptr);
      continue;
    }
    // Copies: addCall may add libraries' operators, not libraries.
    std::vector<LibraryInfo> Infos = It->second;
    for (const LibraryInfo &Info : Infos)
      addCall(Call, &Info);
  }
}

namespace {

/// `f` of a name written `ns::f` (or `f`).
StringRef simpleName(StringRef Written) {
  StringRef Last = Written.rsplit("::").second;
  return Last.empty() ? Written : Last;
}

/// Whether stub kernel S serves call C: the same stub, and a device the
/// call names (if it names one) that S is registered for.
bool serves(const StubKernel &S, const StubCall &C) {
  return S.Stub == C.Stub && (C.Device.empty() || C.Device == S.Device);
}

/// The functions of Defined (by simple name) that a registration's name,
/// qualified as written (`ns::f`), names: a function of that name in
/// another namespace is not it.
std::vector<const FunctionDecl *> functionsNamed(
    const llvm::StringMap<std::vector<const FunctionDecl *>> &Defined,
    StringRef Written) {
  StringRef Simple = simpleName(Written);
  std::vector<const FunctionDecl *> Named;
  auto It = Defined.find(Simple);
  if (It == Defined.end())
    return Named;
  for (const FunctionDecl *FD : It->second) {
    std::string Q = FD->getQualifiedNameAsString();
    if (Written == Simple || Q == Written ||
        StringRef(Q).ends_with(("::" + Written).str()))
      Named.push_back(FD);
  }
  return Named;
}

/// The operator's namespace as its schema says when the registration
/// names it by a macro (TORCH_EXTENSION_NAME).
std::string operatorNamespace(const ProjectOperators &Project,
                              const DeclaredKernel &K) {
  std::string Ns = K.Namespace;
  for (const DeclaredSchema *D : Project.find(K.Namespace, K.Name)) {
    StringRef S = D->Schema;
    size_t Colons = S.take_until([](char C) { return C == '('; }).find("::");
    Ns = Colons != StringRef::npos ? S.take_front(Colons).trim().str()
                                   : (D->Namespace.empty() ? Ns : D->Namespace);
    break;
  }
  return Ns;
}

} // namespace

void OperatorModel::useProject(const ProjectOperators &Project,
                               llvm::StringRef MainFile) {
  llvm::SmallString<256> Main(MainFile);
  if (!Main.empty() && !llvm::sys::fs::make_absolute(Main))
    llvm::sys::path::remove_dots(Main, true);
  addKernelsRegisteredElsewhere(Project, Main);
  addStubKernels(Project, Main);
  noteStubHandOffs(Project);
  for (RegisteredOperator &Op : Operators) {
    if (Op.Name.empty())
      continue;
    // The other files' registrations (torch's registry's where it was
    // read), and fakes of this package the index could not name.
    std::vector<KernelSite> Sites =
        Project.projectSites(Op.Namespace, Op.Name, Main);
    Op.ProjectSites.insert(Op.ProjectSites.end(), Sites.begin(), Sites.end());
    if (Project.registrySites(Op.Namespace, Op.Name))
      Op.RegistryTorch = Project.registryTorch();
    if (Op.Schema || Op.Kernels.empty())
      continue;
    for (const DeclaredSchema *D : Project.find(Op.Namespace, Op.Name)) {
      SchemaParseResult Parsed = parseOperatorSchema(D->Schema);
      if (!Parsed || Parsed.Schema->NameOnly ||
          Parsed.Schema->Overload != Op.Overload)
        continue;
      Op.Schema = std::move(Parsed.Schema);
      Op.SchemaFile = D->File;
      Op.SchemaLine = D->Line;
      break;
    }
    if (!Op.Schema)
      inferFromDefElsewhere(Op);
    if (!Op.Schema)
      inferFromHelper(Project, Op);
  }
}

void OperatorModel::noteStubHandOffs(const ProjectOperators &Project) {
  if (Project.stubCalls().empty())
    return;
  for (RegisteredOperator &Op : Operators)
    for (KernelRegistration &K : Op.Kernels) {
      if (!K.Kernel || K.Through || !K.Kernel->getIdentifier())
        continue;
      for (const StubCall &C : Project.stubCalls()) {
        if (C.Caller != K.Kernel->getName())
          continue;
        const StubKernel *SK = nullptr;
        for (const StubKernel &S : Project.stubKernels())
          if (serves(S, C)) {
            SK = &S;
            break;
          }
        if (!SK)
          continue;
        for (int P : C.ArgParams)
          if (P >= 0)
            K.HandedToStub.emplace(static_cast<unsigned>(P),
                                   "dispatch stub '" + C.Stub +
                                       "' (its kernel '" + SK->Function +
                                       "' is registered in " + SK->File + ":" +
                                       std::to_string(SK->Line) + ")");
      }
    }
}

void OperatorModel::inferFromHelper(const ProjectOperators &Project,
                                    RegisteredOperator &Op) {
  const DeclaredKernel *D = Project.inferredDefinition(Op.Namespace, Op.Name);
  if (!D)
    return;
  OperatorSchema NameOnly;
  NameOnly.Name = Op.Name;
  NameOnly.Overload = Op.Overload;
  NameOnly.NameOnly = true;
  auto Mark = [&](OperatorSchema S) {
    Op.Schema = std::move(S);
    Op.SchemaInferred = true;
    Op.SchemaFile = D->Site.File;
    Op.SchemaLine = D->Site.Line;
    Op.SchemaHelper = D->Site.How;
    Op.SchemaFunction = D->Function;
  };
  // The function's declaration here: its signature, as LibTorch reads it.
  if (TU) {
    llvm::StringMap<std::vector<const FunctionDecl *>> Declared;
    forEachUserFunction(TU, [&](const FunctionDecl *FD) {
      if (FD->getIdentifier() && !isa<CXXMethodDecl>(FD))
        Declared[FD->getName()].push_back(FD);
    });
    std::vector<const FunctionDecl *> Named =
        functionsNamed(Declared, D->Function);
    if (!Named.empty()) {
      Mark(inferSchema(NameOnly, Named.front()));
      return;
    }
  }
  // Else a kernel behind a stub that the function calls: the arguments the
  // call passes take the stub kernel's parameter types, named as the
  // function names its parameters; the others and the returns are unknown.
  for (const KernelRegistration &K : Op.Kernels) {
    if (!K.Through || K.Through->Caller != simpleName(D->Function) || !K.Kernel)
      continue;
    OperatorSchema S = NameOnly;
    S.NameOnly = false;
    S.VarRets = true;
    for (const std::string &P : K.Through->CallerParams) {
      SchemaArgument A;
      A.BaseType = A.Type = "unknown";
      A.Name = P;
      S.Arguments.push_back(std::move(A));
    }
    for (unsigned I = 0;
         I < K.Kernel->getNumParams() && I < K.Through->ParamMap.size(); ++I) {
      int J = K.Through->ParamMap[I];
      if (J >= 0 && static_cast<size_t>(J) < S.Arguments.size() &&
          libtorch::isTensorType(K.Kernel->getParamDecl(I)->getType()))
        S.Arguments[J].BaseType = S.Arguments[J].Type = "Tensor";
    }
    Mark(std::move(S));
    return;
  }
}

void OperatorModel::inferFromDefElsewhere(RegisteredOperator &Op) {
  // `m.def("name", &fn)` in another file, fn defined here and no schema
  // string for the operator anywhere: LibTorch infers the schema from fn's
  // C++ signature, as for a def in this file.
  for (const KernelRegistration &K : Op.Kernels) {
    if (K.Site || !K.Kernel || !isCatchAllKey(K.DispatchKey) ||
        K.RegisteredBy != "m.def")
      continue;
    OperatorSchema NameOnly;
    NameOnly.Name = Op.Name;
    NameOnly.Overload = Op.Overload;
    NameOnly.NameOnly = true;
    Op.Schema = inferSchema(NameOnly, K.Kernel);
    Op.SchemaInferred = true;
    Op.SchemaFile = K.RegisteredIn;
    Op.SchemaLine = K.RegisteredLine;
    return;
  }
}

void OperatorModel::addStubKernels(const ProjectOperators &Project,
                                   llvm::StringRef Main) {
  if (!TU || Project.stubKernels().empty())
    return;
  llvm::StringMap<std::vector<const FunctionDecl *>> Defined;
  forEachUserFunction(TU, [&](const FunctionDecl *FD) {
    if (FD->getIdentifier() && !isa<CXXMethodDecl>(FD) &&
        FD->doesThisDeclarationHaveABody())
      Defined[FD->getName()].push_back(FD);
  });
  for (const StubKernel &SK : Project.stubKernels()) {
    std::vector<const FunctionDecl *> Named =
        functionsNamed(Defined, SK.Function);
    if (Named.empty())
      continue;
    Project.noteFunctionRead(SK.Function);
    for (const StubCall &C : Project.stubCalls()) {
      if (!serves(SK, C))
        continue;
      // The operators whose registered function is the caller.
      for (const DeclaredKernel &K : Project.allKernels()) {
        if (K.Function.empty() || isFakeKey(K.Site.Key) ||
            K.Site.Key == CustomClassMethodKey)
          continue;
        if (simpleName(K.Function) != C.Caller)
          continue;
        OperatorSchema Name;
        Name.Name = K.Name;
        for (const FunctionDecl *FD : Named) {
          RegisteredOperator &Op =
              operatorNamed(operatorNamespace(Project, K), Name);
          KernelRegistration R;
          R.DispatchKey = K.Site.Key;
          R.Kernel = FD;
          R.RegisteredIn = K.Site.File;
          R.RegisteredLine = K.Site.Line;
          R.RegisteredBy = K.Site.How;
          KernelRegistration::StubPath P;
          P.Stub = C.Stub;
          P.Caller = C.Caller;
          P.CallerFile = C.File;
          P.CallerLine = C.Line;
          P.CallerParams = C.CallerParams;
          P.ParamMap = C.ArgParams;
          R.Through = std::move(P);
          Op.Kernels.push_back(std::move(R));
        }
      }
    }
  }
}

void OperatorModel::addKernelsRegisteredElsewhere(
    const ProjectOperators &Project, llvm::StringRef Main) {
  if (!TU)
    return;
  // The functions this file defines, by name; those it registers itself
  // are its own registrations' business.
  llvm::StringMap<std::vector<const FunctionDecl *>> Defined;
  llvm::SmallPtrSet<const FunctionDecl *, 16> Registered;
  for (const RegisteredOperator &Op : Operators)
    for (const KernelRegistration &K : Op.Kernels)
      if (K.Kernel)
        Registered.insert(K.Kernel->getCanonicalDecl());
  forEachUserFunction(TU, [&](const FunctionDecl *FD) {
    if (FD->getIdentifier() && !isa<CXXMethodDecl>(FD) &&
        !Registered.contains(FD->getCanonicalDecl()))
      Defined[FD->getName()].push_back(FD);
  });
  if (Defined.empty())
    return;
  for (const auto &Entry : Defined)
    Project.noteFunctionRead(Entry.getKey());
  for (const DeclaredKernel &K : Project.allKernels()) {
    if (K.Function.empty() || K.Site.File == Main || isFakeKey(K.Site.Key) ||
        K.Site.Key == CustomClassMethodKey)
      continue;
    std::vector<const FunctionDecl *> Named =
        functionsNamed(Defined, K.Function);
    if (Named.empty())
      continue;
    std::string Ns = operatorNamespace(Project, K);
    OperatorSchema Name;
    Name.Name = K.Name;
    for (const FunctionDecl *FD : Named) {
      RegisteredOperator &Op = operatorNamed(Ns, Name);
      KernelRegistration R;
      R.DispatchKey = K.Site.Key;
      R.Kernel = FD;
      R.TakesDispatchKeySet = takesDispatchKeySet(FD);
      R.RegisteredIn = K.Site.File;
      R.RegisteredLine = K.Site.Line;
      R.RegisteredBy = K.Site.How;
      Op.Kernels.push_back(std::move(R));
    }
  }
}

} // namespace torch_tidy

//===- CompiledRegionFinder.cpp - Which functions torch.compile traces ----===//

#include "torch_tidy/analysis/CompiledRegionFinder.h"
#include "torch_tidy/analysis/GradFlowAnalysis.h"
#include "torch_tidy/analysis/LibTorchApi.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;

namespace torch_tidy {

CompiledRegionFinder::CompiledRegionFinder(RegionMode Mode,
                                           StringRef CompiledFunctions)
    : Mode(Mode) {
  if (CompiledFunctions.empty())
    return;
  llvm::Regex R(("^(" + CompiledFunctions + ")$").str());
  if (R.isValid(RegexError))
    NameFilter.emplace(std::move(R));
}

namespace {
/// Collects the references a TorchLibraryInit construction makes: the init
/// function and the dispatch key (inside lambdas too, as 1.13's macro hides
/// the function pointer in one).
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
    }
    return true;
  }
  std::vector<const FunctionDecl *> Functions;
  std::optional<std::string> Key;
};

/// Finds the kernels a def/impl argument names.
class KernelVisitor : public RecursiveASTVisitor<KernelVisitor> {
public:
  bool shouldVisitLambdaBody() const { return false; }
  bool VisitLambdaExpr(LambdaExpr *L) {
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

/// The dispatch key named in a def/impl argument (torch::dispatch(key, f)
/// or an explicit key argument), if any.
class ExplicitKeyVisitor : public RecursiveASTVisitor<ExplicitKeyVisitor> {
public:
  bool shouldVisitLambdaBody() const { return false; }
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (const auto *EC = dyn_cast<EnumConstantDecl>(Ref->getDecl())) {
      const auto *Enum = dyn_cast<EnumDecl>(EC->getDeclContext());
      if (Enum && Enum->getIdentifier() &&
          (Enum->getName() == "DispatchKey" || Enum->getName() == "DeviceType"))
        Key = EC->getName().str();
    }
    return true;
  }
  std::optional<std::string> Key;
};

/// Collects the same-TU functions a region function reaches: direct callees
/// and lambdas defined in its body.
class CalleeVisitor : public RecursiveASTVisitor<CalleeVisitor> {
public:
  bool shouldVisitLambdaBody() const { return false; }
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool VisitLambdaExpr(LambdaExpr *L) {
    Reached.push_back({L->getCallOperator(), L});
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    if (const FunctionDecl *FD = C->getDirectCallee())
      if (!libtorch::isInTorchNamespace(FD) && !FD->isInStdNamespace())
        Reached.push_back({FD, C});
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *C) {
    const FunctionDecl *FD = C->getConstructor();
    if (FD && !libtorch::isInTorchNamespace(FD) && !FD->isInStdNamespace())
      Reached.push_back({FD, C});
    return true;
  }
  std::vector<std::pair<const FunctionDecl *, const Stmt *>> Reached;
};
} // namespace

namespace {
/// Walks user code and hands the region facts to the finder.
class RegionFactCollector : public RecursiveASTVisitor<RegionFactCollector> {
public:
  explicit RegionFactCollector(CompiledRegionFinder &Finder) : Finder(Finder) {}

  bool TraverseDecl(Decl *D) {
    const auto *FD = dyn_cast_or_null<FunctionDecl>(D);
    if (FD && FD->doesThisDeclarationHaveABody())
      Enclosing.push_back(FD);
    bool Result = RecursiveASTVisitor::TraverseDecl(D);
    if (FD && FD->doesThisDeclarationHaveABody())
      Enclosing.pop_back();
    return Result;
  }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->doesThisDeclarationHaveABody() && !FD->isImplicit())
      Finder.addFunction(FD);
    return true;
  }
  bool VisitLambdaExpr(LambdaExpr *L) {
    Finder.addFunction(L->getCallOperator());
    return true;
  }
  bool VisitVarDecl(VarDecl *V) {
    const auto *RD = V->getType().getCanonicalType()->getAsCXXRecordDecl();
    if (RD && RD->getIdentifier() && RD->getName() == "TorchLibraryInit")
      Finder.addLibraryInit(V);
    return true;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *C) {
    if (libtorch::classifyLibraryCall(C) != libtorch::LibraryCall::None)
      Finder.addLibraryCall(C, Enclosing.empty() ? nullptr : Enclosing.back());
    return true;
  }

private:
  CompiledRegionFinder &Finder;
  std::vector<const FunctionDecl *> Enclosing;
};

bool isLibraryNamespace(const Decl *D) {
  const auto *NS = dyn_cast<NamespaceDecl>(D);
  if (!NS || !NS->getIdentifier())
    return false;
  static const llvm::StringSet<> Names = {
      "at", "c10", "torch", "caffe2", "std", "__gnu_cxx", "pybind11"};
  return Names.contains(NS->getName());
}
} // namespace

void CompiledRegionFinder::collect(const TranslationUnitDecl *TU) {
  const SourceManager &SM = TU->getASTContext().getSourceManager();
  RegionFactCollector Collector(*this);
  for (Decl *D : TU->decls()) {
    if (SM.isInSystemHeader(D->getLocation()) || isLibraryNamespace(D))
      continue;
    Collector.TraverseDecl(D);
  }
}

void CompiledRegionFinder::addLibraryInit(const VarDecl *InitVar) {
  if (!InitVar->hasInit())
    return;
  LibraryInitVisitor V;
  V.TraverseStmt(const_cast<Expr *>(InitVar->getInit()));
  for (const FunctionDecl *FD : V.Functions) {
    LibraryInfo &Info = InitFunctions[FD->getFirstDecl()];
    Info.HasKey = V.Key.has_value();
    Info.Key = V.Key.value_or("");
  }
}

void CompiledRegionFinder::addLibraryCall(const CXXMemberCallExpr *Call,
                                          const FunctionDecl *Enclosing) {
  LibraryCalls.push_back({Call, Enclosing});
}

void CompiledRegionFinder::addFunction(const FunctionDecl *Definition) {
  // Only the annotation, the name filter or RegionMode: all make a root.
  if (Mode == RegionMode::All || NameFilter ||
      Definition->hasAttr<AnnotateAttr>())
    Functions.push_back(Definition);
}

std::vector<const FunctionDecl *>
CompiledRegionFinder::kernelsIn(const Expr *Arg) {
  KernelVisitor V;
  V.TraverseStmt(const_cast<Expr *>(Arg));
  return V.Kernels;
}

bool CompiledRegionFinder::isRegisteredAsTraced(
    const CXXMemberCallExpr *Call, const FunctionDecl *InitFn) const {
  // A key given at the call (torch::dispatch(k, f), impl(name, k, f)) wins
  // over the library's key; a library without a key registers catch-all
  // kernels, which are CompositeImplicitAutograd.
  for (unsigned I = 1; I < Call->getNumArgs(); ++I) {
    ExplicitKeyVisitor V;
    V.TraverseStmt(const_cast<Expr *>(Call->getArg(I)));
    if (V.Key)
      return libtorch::isTracedDispatchKey(*V.Key);
  }
  auto It =
      InitFn ? InitFunctions.find(InitFn->getFirstDecl()) : InitFunctions.end();
  if (It == InitFunctions.end() || !It->second.HasKey)
    return true;
  return libtorch::isTracedDispatchKey(It->second.Key);
}

llvm::MapVector<const FunctionDecl *, RegionReason>
CompiledRegionFinder::computeRegions() {
  llvm::MapVector<const FunctionDecl *, RegionReason> Regions;
  auto Add = [&](const FunctionDecl *FD, RegionReason Why) {
    if (const FunctionDecl *Def = GradFlowAnalysis::analysedDefinition(FD))
      Regions.insert({Def, Why});
  };

  for (const auto &[Call, InitFn] : LibraryCalls) {
    libtorch::LibraryCall Kind = libtorch::classifyLibraryCall(Call);
    if (Kind == libtorch::LibraryCall::None || Call->getNumArgs() < 2 ||
        !isRegisteredAsTraced(Call, InitFn))
      continue;
    for (unsigned I = 1; I < Call->getNumArgs(); ++I)
      for (const FunctionDecl *K : kernelsIn(Call->getArg(I)))
        Add(K, {RegionReason::Registered, Call, nullptr});
  }
  for (const FunctionDecl *FD : Functions) {
    if (Mode == RegionMode::All) {
      Add(FD, {RegionReason::AllFunctions});
      continue;
    }
    for (const auto *A : FD->specific_attrs<AnnotateAttr>())
      if (A->getAnnotation() == CompiledAnnotation)
        Add(FD, {RegionReason::Annotated});
    if (NameFilter && NameFilter->match(FD->getQualifiedNameAsString()))
      Add(FD, {RegionReason::NameMatch});
  }

  // (d): everything reachable from the roots in this translation unit.
  for (size_t I = 0; I < Regions.size(); ++I) {
    const FunctionDecl *Caller = Regions.begin()[I].first;
    CalleeVisitor V;
    V.TraverseStmt(const_cast<Stmt *>(Caller->getBody()));
    for (const auto &[Callee, Site] : V.Reached)
      Add(Callee, {RegionReason::CalledFrom, Site, Caller});
  }
  return Regions;
}

} // namespace torch_tidy

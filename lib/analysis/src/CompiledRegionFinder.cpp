//===- CompiledRegionFinder.cpp - Which functions torch.compile traces ----===//

#include "torch_tidy/analysis/CompiledRegionFinder.h"
#include "torch_tidy/libtorch/LibTorchApi.h"
#include "torch_tidy/libtorch/UserCode.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;

namespace torch_tidy {

CompiledRegionFinder::CompiledRegionFinder(RegionMode Mode,
                                           StringRef CompiledFunctions,
                                           bool KernelsAreRegions)
    : Mode(Mode), KernelsAreRegions(KernelsAreRegions) {
  if (CompiledFunctions.empty())
    return;
  llvm::Regex R(("^(" + CompiledFunctions + ")$").str());
  if (R.isValid(RegexError))
    NameFilter.emplace(std::move(R));
}

namespace {
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
  bool VisitCallExpr(CallExpr *C) {
    if (!Enclosing.empty())
      Finder.addCall(C, Enclosing.back());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (const auto *FD = dyn_cast<FunctionDecl>(E->getDecl()))
      Finder.addReference(FD, /*Unresolved=*/false);
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) {
    if (const auto *FD = dyn_cast<FunctionDecl>(E->getMemberDecl()))
      Finder.addReference(FD, /*Unresolved=*/false);
    return true;
  }
  bool VisitOverloadExpr(OverloadExpr *E) {
    for (const NamedDecl *D : E->decls()) {
      D = D->getUnderlyingDecl();
      if (const auto *FT = dyn_cast<FunctionTemplateDecl>(D))
        D = FT->getTemplatedDecl();
      if (const auto *FD = dyn_cast<FunctionDecl>(D))
        Finder.addReference(FD, /*Unresolved=*/true);
    }
    return true;
  }

private:
  CompiledRegionFinder &Finder;
  std::vector<const FunctionDecl *> Enclosing;
};

} // namespace

void CompiledRegionFinder::collect(const TranslationUnitDecl *TU) {
  RegionFactCollector Collector(*this);
  for (Decl *D : TU->decls())
    if (isUserDecl(D))
      Collector.TraverseDecl(D);
  Operators.collect(TU);
}

void CompiledRegionFinder::addFunction(const FunctionDecl *Definition) {
  // Only the annotation, the name filter or RegionMode: all make a root.
  if (Mode == RegionMode::All || NameFilter ||
      Definition->hasAttr<AnnotateAttr>())
    Functions.push_back(Definition);
}

void CompiledRegionFinder::addCall(const CallExpr *Call,
                                   const FunctionDecl *Caller) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (Callee && !libtorch::isInTorchNamespace(Callee) &&
      !Callee->isInStdNamespace())
    CallSites[Callee->getCanonicalDecl()].push_back({Call, Caller});
}

void CompiledRegionFinder::addReference(const FunctionDecl *FD,
                                        bool Unresolved) {
  unsigned &N = References[FD->getCanonicalDecl()];
  N = Unresolved || N == ~0u ? ~0u : N + 1;
}

namespace {
/// Whether no other translation unit can call FD: it is internal (static,
/// in an anonymous namespace, a member of a local or unnamed-namespace
/// class), or it is declared nowhere but the main file and is a free
/// function or a private or protected member (a class defined in a .cpp
/// file cannot be derived from elsewhere). A public or virtual member, a
/// function declared in a header, main(), `extern "C"` and exported
/// functions (visibility("default"), dllexport) may be called from code
/// this file does not show.
bool callableOnlyFromThisFile(const FunctionDecl *FD) {
  if (FD->isMain() || FD->isExternC() || FD->hasAttr<DLLExportAttr>())
    return false;
  for (const FunctionDecl *Redecl : FD->redecls())
    if (const auto *V = Redecl->getAttr<VisibilityAttr>();
        V && !V->isImplicit() && V->getVisibility() == VisibilityAttr::Default)
      return false;
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  if (MD && (MD->isVirtual() || MD->getParent()->isLambda()))
    return false;
  if (!FD->isExternallyVisible())
    return true;
  const SourceManager &SM = FD->getASTContext().getSourceManager();
  for (const FunctionDecl *Redecl : FD->redecls())
    if (!SM.isInMainFile(SM.getExpansionLoc(Redecl->getLocation())))
      return false;
  return !MD || MD->getAccess() != AS_public;
}
} // namespace

const llvm::SmallVectorImpl<CompiledRegionFinder::CallSite> *
CompiledRegionFinder::allCallSites(const FunctionDecl *FD) const {
  FD = FD->getCanonicalDecl();
  if (FD->getTemplatedKind() != FunctionDecl::TK_NonTemplate ||
      FD->isDependentContext() || !callableOnlyFromThisFile(FD))
    return nullptr;
  auto Sites = CallSites.find(FD);
  auto Refs = References.find(FD);
  if (Sites == CallSites.end() || Refs == References.end() ||
      Sites->second.empty() || Refs->second != Sites->second.size())
    return nullptr;
  return &Sites->second;
}

namespace {
/// forward/backward of a class deriving from torch::autograd::Function<T>:
/// LibTorch runs forward with grad mode off, and the engine runs backward
/// with it off unless a higher-order graph is asked for.
bool isAutogradFunctionBody(const FunctionDecl *FD) {
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  if (!MD || !MD->getIdentifier() ||
      (MD->getName() != "forward" && MD->getName() != "backward"))
    return false;
  const CXXRecordDecl *RD = MD->getParent()->getDefinition();
  if (!RD)
    return false;
  for (const CXXBaseSpecifier &B : RD->bases()) {
    const auto *Base = B.getType()->getAsCXXRecordDecl();
    if (Base && Base->getIdentifier() && Base->getName() == "Function" &&
        libtorch::isInTorchNamespace(Base))
      return true;
  }
  return false;
}

/// An explicit backward function: the name says so (my_op_backward,
/// BackwardKernel, attn_bwd).
bool isBackwardByName(const FunctionDecl *FD) {
  if (!FD->getIdentifier())
    return false;
  std::string Name = FD->getName().lower();
  return StringRef(Name).contains("backward") ||
         StringRef(Name).contains("_bwd") || StringRef(Name).starts_with("bwd");
}

/// The function a lambda's call operator is written in, if any.
const FunctionDecl *enclosingFunctionOfLambda(const FunctionDecl *FD) {
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  if (!MD || !MD->getParent()->isLambda())
    return nullptr;
  const DeclContext *DC = MD->getParent()->getDeclContext();
  while (DC && !isa<FunctionDecl>(DC))
    DC = DC->getParent();
  return dyn_cast_or_null<FunctionDecl>(DC);
}
} // namespace

bool CompiledRegionFinder::runsWithGradOff(const FunctionDecl *FD) {
  FD = FD->getCanonicalDecl();
  if (auto It = GradOff.find(FD); It != GradOff.end())
    return It->second;
  GradOff[FD] = false; // While in progress: recursion proves nothing.
  bool Off = false;
  if (isAutogradFunctionBody(FD) || isBackwardByName(FD)) {
    Off = true;
  } else if (const FunctionDecl *Outer = enclosingFunctionOfLambda(FD)) {
    Off = runsWithGradOff(Outer);
  } else if (const auto *Sites = allCallSites(FD)) {
    // Judged by its calls only where this file shows them all.
    Off = llvm::all_of(*Sites, [&](const auto &Site) {
      const auto &[Call, Caller] = Site;
      if (runsWithGradOff(Caller))
        return true;
      if (!Caller->getBody())
        return false;
      std::unique_ptr<NoGradScopes> &G = Guards[Caller];
      if (!G)
        G = std::make_unique<NoGradScopes>(Caller->getBody());
      return G->contains(Call);
    });
  }
  GradOff[FD] = Off;
  return Off;
}

llvm::MapVector<const FunctionDecl *, RegionReason>
CompiledRegionFinder::computeRegions() {
  llvm::MapVector<const FunctionDecl *, RegionReason> Regions;
  auto Add = [&](const FunctionDecl *FD, RegionReason Why) {
    if (const FunctionDecl *Def = userDefinition(FD))
      Regions.insert({Def, Why});
  };

  // (a): CompositeImplicitAutograd kernels, when they count as regions.
  if (KernelsAreRegions)
    for (const RegisteredOperator &Op : Operators.operators())
      for (const KernelRegistration &K : Op.Kernels)
        if (libtorch::isTracedDispatchKey(K.DispatchKey))
          Add(K.Kernel, {RegionReason::Registered, K.Site, nullptr});
  for (const FunctionDecl *FD : Functions) {
    if (Mode == RegionMode::All) {
      if (!runsWithGradOff(FD))
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
    RegionReason::Kind Root = Regions.begin()[I].second.RootKind;
    for (const auto &[Callee, Site] : V.Reached)
      if (!runsWithGradOff(Callee))
        Add(Callee, {RegionReason::CalledFrom, Site, Caller, Root});
  }
  return Regions;
}

} // namespace torch_tidy

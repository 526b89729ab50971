//===- ArgumentMutation.cpp - Which arguments a kernel writes into --------===//

#include "torch_tidy/analysis/ArgumentMutation.h"
#include "torch_tidy/analysis/GroundTruth.h"
#include "torch_tidy/libtorch/LibTorchApi.h"
#include "torch_tidy/libtorch/UserCode.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/CFG.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSet.h"
#include <optional>

using namespace clang;

namespace torch_tidy {
namespace {

StringRef nameOf(const FunctionDecl *FD) {
  return FD && FD->getIdentifier() ? FD->getName() : StringRef();
}

/// Tensor methods that may return their object or a view of it, beyond the
/// view calls LibTorchApi knows: detach() shares storage, contiguous() and
/// to(...) return the tensor itself when there is nothing to do.
bool isAliasReturningMethod(StringRef Name) {
  static const llvm::StringSet<> Names = {
      "detach",   "alias",        "contiguous", "expect_contiguous",
      "toType",   "to",           "cpu",        "cuda",
      "type_as",  "view_as",      "expand_as",  "requires_grad_",
      "align_as", "refine_names", "rename",     "set_requires_grad"};
  return Names.contains(Name);
}

/// A to(...) call told to copy (`m.to(at::kFloat, false, /*copy=*/true)`):
/// its result is never the receiver.
bool alwaysCopies(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *M = Call->getMethodDecl();
  if (nameOf(M) != "to")
    return false;
  for (unsigned I = 0; I < Call->getNumArgs() && I < M->getNumParams(); ++I) {
    const ParmVarDecl *P = M->getParamDecl(I);
    if (!P->getIdentifier() || P->getName() != "copy" ||
        isa<CXXDefaultArgExpr>(Call->getArg(I)))
      continue;
    const auto *B =
        dyn_cast<CXXBoolLiteralExpr>(Call->getArg(I)->IgnoreParenImpCasts());
    return B && B->getValue();
  }
  return false;
}

/// Methods that hand out the tensor's memory for raw writes.
bool isRawPointerMethod(StringRef Name) {
  return Name == "data_ptr" || Name == "mutable_data_ptr" || Name == "data";
}
bool isAccessorMethod(StringRef Name) {
  return Name == "accessor" || Name == "packed_accessor32" ||
         Name == "packed_accessor64" || Name == "generic_packed_accessor" ||
         Name == "packed_accessor";
}

/// std::optional<Tensor> / c10::optional<Tensor> (an `out=None` argument).
bool isOptionalTensorType(QualType T) {
  T = T.getNonReferenceType();
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  const auto *CTSD = dyn_cast_or_null<ClassTemplateSpecializationDecl>(RD);
  if (!CTSD || CTSD->getName() != "optional" ||
      CTSD->getTemplateArgs().size() != 1 ||
      CTSD->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return false;
  return libtorch::isTensorType(CTSD->getTemplateArgs()[0].getAsType());
}

/// c10::MaybeOwned<Tensor>, what expect_contiguous() returns: read through
/// `*` and `->` as an optional<Tensor> is.
bool isMaybeOwnedTensorType(QualType T) {
  T = T.getNonReferenceType();
  const auto *CTSD = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T->getAsCXXRecordDecl());
  return CTSD && CTSD->getName() == "MaybeOwned" &&
         CTSD->getTemplateArgs().size() == 1 &&
         CTSD->getTemplateArgs()[0].getKind() == TemplateArgument::Type &&
         libtorch::isTensorType(CTSD->getTemplateArgs()[0].getAsType());
}

/// A list of tensors: at::TensorList (c10::ArrayRef<Tensor>),
/// std::vector<Tensor>, c10::List<Tensor> (a `Tensor[]` argument).
bool isTensorListType(QualType T) {
  T = T.getNonReferenceType();
  const auto *CTSD = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T->getAsCXXRecordDecl());
  if (!CTSD || CTSD->getTemplateArgs().size() < 1 ||
      CTSD->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return false;
  StringRef Name = CTSD->getName();
  return (Name == "ArrayRef" || Name == "vector" || Name == "List") &&
         libtorch::isTensorType(CTSD->getTemplateArgs()[0].getAsType());
}

/// A parameter through which a callee can write memory it is handed: a
/// pointer to non-const, or a tensor accessor (TensorAccessor,
/// PackedTensorAccessor32, ... : their elements are writable).
bool isWritableMemoryType(QualType T) {
  T = T.getNonReferenceType();
  if (const auto *PT = T->getAs<PointerType>())
    return !PT->getPointeeType().isConstQualified() &&
           !PT->getPointeeType()->isFunctionType();
  if (const CXXRecordDecl *RD = T->getAsCXXRecordDecl())
    return RD->getIdentifier() && RD->getName().contains("Accessor");
  return false;
}

/// Whether a declaration's pointers tell its inputs from its outputs: it
/// takes at most one pointer to data, or takes some as pointers to const. A
/// launcher declared `f(float *w, float *u, float *y)` (every pointer
/// non-const, whatever it writes) says nothing by a missing `const`, so its
/// non-const pointers are not guessed to be written. Decls: a function's
/// parameters or a struct's fields.
template <class Decls> bool constTellsWrites(const Decls &Ds) {
  unsigned Data = 0;
  for (const auto *D : Ds) {
    const auto *PT =
        D->getType().getNonReferenceType()->template getAs<PointerType>();
    if (!PT || PT->getPointeeType()->isFunctionType())
      continue;
    if (PT->getPointeeType().isConstQualified())
      return true;
    ++Data;
  }
  return Data <= 1;
}

/// A pointer to (non-const) pointers, `T **w`: handed a tensor of
/// addresses, a callee writes through the addresses it holds, not into it.
bool isPointerArray(QualType T) {
  const auto *PT = T.getNonReferenceType()->getAs<PointerType>();
  return PT && PT->getPointeeType()->isPointerType();
}

/// A pointer a wrapper struct's field or constructor parameter writes
/// through: to non-const data, not an array of addresses (accessors aside).
bool isWritablePointer(QualType T) {
  return T.getNonReferenceType()->isPointerType() && isWritableMemoryType(T) &&
         !isPointerArray(T);
}

/// Standard algorithms and C functions that write through one of their
/// arguments: the index of the destination, by the number of arguments.
std::optional<unsigned> destinationOf(const FunctionDecl *Callee,
                                      unsigned NumArgs) {
  StringRef Name = nameOf(Callee);
  if (Name.empty())
    return std::nullopt;
  // SYCL's USM copies, by the queue or in a command group's handler:
  // memcpy(dest, src, n), memset(p, v, n), fill(p, v, n), copy(src, dest,
  // n).
  if (const auto *M = dyn_cast<CXXMethodDecl>(Callee)) {
    const CXXRecordDecl *Class = M->getParent();
    const DeclContext *NS = Class->getDeclContext();
    while (NS && NS->isInlineNamespace())
      NS = NS->getParent();
    const auto *N = dyn_cast_or_null<NamespaceDecl>(NS);
    if (N && N->getName() == "sycl" &&
        N->getDeclContext()->getRedeclContext()->isTranslationUnit() &&
        Class->getIdentifier() &&
        (Class->getName() == "queue" || Class->getName() == "handler")) {
      if (Name == "memcpy" || Name == "memset" || Name == "fill")
        return 0u;
      if (Name == "copy" && NumArgs >= 2)
        return 1u;
    }
    return std::nullopt;
  }
  const DeclContext *DC = Callee->getDeclContext()->getRedeclContext();
  bool InStd = DC->isStdNamespace();
  bool IsC = DC->isTranslationUnit() || InStd;
  if (IsC && (Name == "memcpy" || Name == "memmove" || Name == "memset" ||
              Name == "bzero"))
    return 0u;
  if (!InStd)
    return std::nullopt;
  static const llvm::StringSet<> First = {"iota",
                                          "fill",
                                          "fill_n",
                                          "generate",
                                          "generate_n",
                                          "reverse",
                                          "sort",
                                          "replace",
                                          "replace_if",
                                          "stable_sort",
                                          "shuffle",
                                          "rotate",
                                          "uninitialized_fill",
                                          "uninitialized_fill_n"};
  static const llvm::StringSet<> Third = {"copy",
                                          "copy_n",
                                          "copy_if",
                                          "copy_backward",
                                          "partial_sum",
                                          "adjacent_difference",
                                          "inclusive_scan",
                                          "exclusive_scan",
                                          "uninitialized_copy",
                                          "uninitialized_copy_n"};
  if (First.contains(Name))
    return 0u;
  if (Third.contains(Name) && NumArgs >= 3)
    return 2u;
  if (Name == "move" && NumArgs == 3)
    return 2u;
  if (Name == "transform")
    return NumArgs == 5 ? 3u : 2u;
  return std::nullopt;
}

/// CUDA and HIP atomics, and ATen's wrappers of them, which write through
/// their first argument (atomicAdd(p + i, v), gpuAtomicAdd(p, v),
/// at::native::fastAtomicAdd(p, i, n, v, fast)): their bodies, where a
/// header has them, are builtins the walk does not read as writes.
bool isAtomicWrite(const FunctionDecl *Callee) {
  StringRef Name = nameOf(Callee);
  if (Name.empty())
    return false;
  static const llvm::StringSet<> Atomics = {"atomicAdd",
                                            "atomicSub",
                                            "atomicExch",
                                            "atomicMin",
                                            "atomicMax",
                                            "atomicInc",
                                            "atomicDec",
                                            "atomicCAS",
                                            "atomicAnd",
                                            "atomicOr",
                                            "atomicXor",
                                            "atomicAddNoRet",
                                            "unsafeAtomicAdd",
                                            "gpuAtomicAdd",
                                            "gpuAtomicAddNoReturn",
                                            "gpuAtomicMul",
                                            "gpuAtomicMax",
                                            "gpuAtomicMin",
                                            "fastAtomicAdd",
                                            "fastSpecializedAtomicAdd"};
  for (StringRef Suffix : {"_block", "_system"})
    Name.consume_back(Suffix);
  return Atomics.contains(Name) && Callee->getNumParams() >= 1 &&
         Callee->getParamDecl(0)->getType()->isPointerType();
}

/// The operands an inline-assembly statement stores through: the first
/// address (`[%N]` or `[%[name]]`, `[$N]` once LLVM has numbered the
/// operands) of each PTX instruction that writes
/// memory (st, red, atom, stmatrix), as indices into its outputs then
/// inputs. A helper such as `red_add(float *p, float v) { asm volatile(
/// "red.global.add.f32 [%0], %1;" :: "l"(p), "f"(v)); }` writes through p.
llvm::SmallVector<unsigned> asmStoreOperands(const GCCAsmStmt *A,
                                             const ASTContext &Ctx) {
  llvm::SmallVector<unsigned> Out;
  std::string Generated = A->generateAsmString(Ctx);
  StringRef Text = Generated;
  auto IsWrite = [](StringRef Mnemonic) {
    return Mnemonic.starts_with("st.") || Mnemonic.starts_with("red.") ||
           Mnemonic.starts_with("atom.") || Mnemonic.starts_with("stmatrix.") ||
           Mnemonic.starts_with("cp.reduce.async.bulk");
  };
  while (!Text.empty()) {
    auto [Instr, Rest] = Text.split(';');
    Text = Rest;
    Instr = Instr.trim();
    // A predicate (@p st.global ...) and a label go first.
    if (Instr.starts_with("@"))
      Instr = Instr.split(' ').second.trim();
    StringRef Mnemonic = Instr.take_until(
        [](char C) { return C == ' ' || C == '\t' || C == '\n'; });
    if (!IsWrite(Mnemonic))
      continue;
    size_t Open = Instr.find("[$");
    unsigned N = 0;
    StringRef Operand =
        Open == StringRef::npos ? StringRef() : Instr.substr(Open + 2);
    if (!Operand.empty() && !Operand.consumeInteger(10, N))
      Out.push_back(N);
  }
  return Out;
}

/// For Callee = torch::autograd::Function<F>::apply, F::forward (a static
/// method with a body, whose first parameter is the autograd context).
const FunctionDecl *autogradForward(const FunctionDecl *Callee) {
  const auto *Apply = dyn_cast<CXXMethodDecl>(Callee);
  if (!Apply || !Apply->isStatic() || nameOf(Apply) != "apply")
    return nullptr;
  const auto *Base =
      dyn_cast<ClassTemplateSpecializationDecl>(Apply->getParent());
  if (!Base || Base->getName() != "Function" ||
      !libtorch::isInTorchNamespace(Base) ||
      Base->getTemplateArgs().size() != 1 ||
      Base->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return nullptr;
  const CXXRecordDecl *F =
      Base->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
  if (!F || !F->hasDefinition())
    return nullptr;
  for (const NamedDecl *D :
       F->lookup(&F->getASTContext().Idents.get("forward")))
    if (const auto *Forward = dyn_cast<CXXMethodDecl>(D);
        Forward && Forward->isStatic() && Forward->getNumParams() >= 1)
      return Forward;
  return nullptr;
}

class Walker : public RecursiveASTVisitor<Walker> {
public:
  Walker(ArgumentMutationAnalysis &Analysis, const FunctionDecl *FD,
         ArgumentMutationResult &Out)
      : Analysis(Analysis), FD(FD), Out(Out) {
    for (unsigned I = 0; I < FD->getNumParams(); ++I)
      if (libtorch::isTensorType(FD->getParamDecl(I)->getType())) {
        Alias[FD->getParamDecl(I)] = I;
        Direct.insert(FD->getParamDecl(I));
      } else if (isOptionalTensorType(FD->getParamDecl(I)->getType())) {
        Optional[FD->getParamDecl(I)] = I;
      } else if (isTensorListType(FD->getParamDecl(I)->getType())) {
        Lists[FD->getParamDecl(I)] = I;
      } else if (isWritableMemoryType(FD->getParamDecl(I)->getType())) {
        // A helper's pointer or accessor parameter: a caller that hands it
        // a tensor's memory learns of the writes through it.
        Raw[FD->getParamDecl(I)] = I;
      }
  }

  // --- conditional context: rebinding inside it does not end aliasing ----
#define TT_CONDITIONAL(Node)                                                   \
  bool Traverse##Node(Node *S) {                                               \
    ++Conditional;                                                             \
    bool R = RecursiveASTVisitor::Traverse##Node(S);                           \
    --Conditional;                                                             \
    return R;                                                                  \
  }
  TT_CONDITIONAL(IfStmt)
  TT_CONDITIONAL(ForStmt)
  TT_CONDITIONAL(WhileStmt)
  TT_CONDITIONAL(DoStmt)
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) {
    // for (auto &t : list): each t is an element of a Tensor[] argument.
    if (std::optional<unsigned> P = listParam(S->getRangeInit()))
      if (const VarDecl *V = S->getLoopVariable())
        Alias[V] = *P;
    ++Conditional;
    bool R = RecursiveASTVisitor::TraverseCXXForRangeStmt(S);
    --Conditional;
    return R;
  }
  TT_CONDITIONAL(SwitchStmt)
  TT_CONDITIONAL(ConditionalOperator)
#undef TT_CONDITIONAL
  bool TraverseLambdaExpr(LambdaExpr *L) {
    ++Conditional;
    ++LambdaDepth;
    bool R = RecursiveASTVisitor::TraverseLambdaExpr(L);
    --LambdaDepth;
    --Conditional;
    return R;
  }

  // --- aliases ------------------------------------------------------------
  bool VisitVarDecl(VarDecl *V) {
    if (isa<ParmVarDecl>(V) || !V->getInit())
      return true;
    const Expr *Init = V->getInit();
    if (libtorch::isTensorType(V->getType())) {
      bind(V, Init);
      return true;
    }
    if (isOptionalTensorType(V->getType())) {
      LastCopy = nullptr;
      if (std::optional<unsigned> P = optionalParam(Init)) {
        Optional[V] = *P;
        note(OptionalCopy, V);
      }
      return true;
    }
    if (isMaybeOwnedTensorType(V->getType())) {
      // auto c = t.expect_contiguous(); read as *c and c->.
      if (std::optional<unsigned> P = aliasedParam(Init)) {
        Optional[V] = *P;
        note(OptionalCopy, V);
      }
      return true;
    }
    if (isTensorListType(V->getType())) {
      // A local list of arguments, `std::vector<at::Tensor> ts = {a, b};`,
      // handed to a helper that writes its elements.
      llvm::SmallVector<unsigned, 4> Elements = listElements(Init);
      if (!Elements.empty())
        LocalLists[V] = {Elements.begin(), Elements.end()};
      return true;
    }
    if (V->getType()->isPointerType()) {
      if (!V->getType()->getPointeeType().isConstQualified())
        if (std::optional<unsigned> P = rawTarget(Init)) {
          Raw[V] = *P;
          note(RawCopy, V);
        }
      return true;
    }
    LastCopy = nullptr;
    if (std::optional<unsigned> P = accessorOf(Init)) {
      Raw[V] = *P;
      note(RawCopy, V);
      return true;
    }
    if (std::optional<unsigned> P = wrapperTarget(Init)) {
      Wrapped[V] = *P;
      note(WrappedCopy, V);
    }
    return true;
  }

  // --- writes -------------------------------------------------------------
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
    // at::vec::Vectorized<T>::store(p): a vectorised kernel's write.
    if (const CXXMethodDecl *M = Call->getMethodDecl();
        M && nameOf(M) == "store" && Call->getNumArgs() >= 1 &&
        libtorch::isInTorchNamespace(M->getParent())) {
      if (std::optional<unsigned> P = rawTarget(Call->getArg(0)))
        write(*P, Call, "a Vectorized store through data_ptr",
              /*ThroughMemory=*/true);
      return true;
    }
    // A write of the argument's own metadata, through it or a copy of its
    // handle (`at::Tensor t = m; t.resize_(...)`: the same tensor), not a
    // view's: that changes the view only.
    if (libtorch::isMetadataWrite(nameOf(Call->getMethodDecl()))) {
      const Expr *Obj = Call->getImplicitObjectArgument();
      if (isDirect(Obj))
        if (std::optional<unsigned> P = aliasedParam(Obj)) {
          write(*P, Call,
                nameOf(Call->getMethodDecl()).str() +
                    " (a write of its sizes, strides or storage)");
          Out.Writes.back().Metadata = true;
        }
      return true;
    }
    if (!libtorch::isInPlaceValueMethod(Call))
      return true;
    if (std::optional<unsigned> P =
            aliasedParam(Call->getImplicitObjectArgument()))
      write(*P, Call, nameOf(Call->getMethodDecl()).str());
    return true;
  }

  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Op) {
    if (Op->getNumArgs() != 2)
      return true;
    const Expr *Lhs = Op->getArg(0);
    if (!libtorch::isTensorType(Lhs->getType())) {
      // p[i] = x where the element is a class (at::Half, at::BFloat16,
      // c10::complex): its operator= or operator+= writes the element.
      if (Op->isAssignmentOp())
        if (std::optional<unsigned> P = rawTarget(Lhs))
          write(*P, Op, rawWriteForm(Lhs), /*ThroughMemory=*/true);
      return true;
    }
    if (libtorch::isCompoundAssignOnTensor(Op)) {
      if (std::optional<unsigned> P = aliasedParam(Lhs))
        write(*P, Op,
              ("operator" + StringRef(getOperatorSpelling(Op->getOperator())))
                  .str());
      return true;
    }
    if (Op->getOperator() != OO_Equal)
      return true;
    const Expr *Target = libtorch::ignoreTensorWrappers(Lhs);
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Target)) {
      // t = x on a named handle rebinds it; nothing is written.
      if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
        bind(V, Op->getArg(1));
      return true;
    }
    // view = x (Tensor::operator= on a temporary) copies into the view.
    if (libtorch::isCopyingIndexCall(Target))
      return true;
    if (std::optional<unsigned> P = aliasedParam(Target)) {
      std::string Form = "assignment into a view";
      if (const auto *Sub = dyn_cast<CXXOperatorCallExpr>(Target);
          Sub && Sub->getOperator() == OO_Subscript)
        Form = "operator[] assignment";
      else if (const auto *M = dyn_cast<CXXMemberCallExpr>(Target);
               M && nameOf(M->getMethodDecl()) == "index")
        Form = "index(...) assignment";
      write(*P, Op, Form);
    }
    return true;
  }

  bool VisitBinaryOperator(BinaryOperator *B) {
    if (!B->isAssignmentOp())
      return true;
    const Expr *Lhs = B->getLHS()->IgnoreParens();
    if (Lhs->getType()->isPointerType()) {
      // p = q rebinds the pointer; p += n moves it: neither writes memory.
      if (const auto *Ref = dyn_cast<DeclRefExpr>(Lhs);
          Ref && B->getOpcode() == BO_Assign)
        if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl())) {
          if (std::optional<unsigned> P = rawTarget(B->getRHS()))
            Raw[V] = *P;
          else if (Conditional == 0)
            Raw.erase(V);
          note(RawCopy, V);
        }
      return true;
    }
    if (std::optional<unsigned> P = rawTarget(Lhs))
      write(*P, B, rawWriteForm(Lhs), /*ThroughMemory=*/true);
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    // ++p moves a pointer; ++*p and ++a[i] write an element.
    if (U->isIncrementDecrementOp() &&
        !U->getSubExpr()->getType()->isPointerType())
      if (std::optional<unsigned> P = rawTarget(U->getSubExpr()))
        write(*P, U, rawWriteForm(U->getSubExpr()), /*ThroughMemory=*/true);
    return true;
  }

  bool VisitGCCAsmStmt(GCCAsmStmt *A) {
    for (unsigned I : asmStoreOperands(A, FD->getASTContext())) {
      const Expr *E = I < A->getNumOutputs() ? A->getOutputExpr(I)
                      : I - A->getNumOutputs() < A->getNumInputs()
                          ? A->getInputExpr(I - A->getNumOutputs())
                          : nullptr;
      if (!E || !E->IgnoreParenCasts()->getType()->isPointerType())
        continue;
      if (std::optional<unsigned> P = rawTarget(E))
        write(*P, E, "an inline-assembly store", /*ThroughMemory=*/true);
    }
    return true;
  }

  bool VisitCallExpr(CallExpr *Call) {
    if (isa<CXXOperatorCallExpr>(Call))
      return true;
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee)
      return true;
    // atomicAdd(p + i, v): an atomic update of the memory p points into.
    if (isAtomicWrite(Callee)) {
      if (Call->getNumArgs() >= 1)
        if (std::optional<unsigned> P = rawTarget(Call->getArg(0)))
          write(*P, Call, "an atomic update ('" + nameOf(Callee).str() + "')",
                /*ThroughMemory=*/true);
      return true;
    }
    // F::apply(a, b) of a custom autograd function (struct F :
    // torch::autograd::Function<F>) runs F::forward(ctx, a, b): what that
    // writes through its parameters after the context.
    unsigned ArgShift = 0;
    if (const FunctionDecl *Forward = autogradForward(Callee)) {
      Callee = Forward;
      ArgShift = 1;
    }
    bool IsMember = isa<CXXMemberCallExpr>(Call);
    // LibTorch free functions write into the arguments they take as
    // `Tensor &`: at::relu_(t), at::index_put_(t, ...), at::neg_out(t, x).
    if (!ArgShift && !IsMember && libtorch::isInTorchNamespace(Callee)) {
      for (unsigned I = 0; I < Call->getNumArgs() && I < Callee->getNumParams();
           ++I) {
        QualType T = Callee->getParamDecl(I)->getType();
        if (!T->isLValueReferenceType() ||
            T->getPointeeType().isConstQualified() ||
            !libtorch::isTensorType(T))
          continue;
        if (std::optional<unsigned> P = aliasedParam(Call->getArg(I)))
          write(*P, Call, Callee->getQualifiedNameAsString());
      }
      return true;
    }
    // Standard algorithms and C calls that write their destination:
    // std::iota(p, p + n, 0), std::copy(a, b, p), memcpy(p, q, n).
    if (std::optional<unsigned> D = destinationOf(Callee, Call->getNumArgs())) {
      if (*D < Call->getNumArgs())
        if (std::optional<unsigned> P = rawTarget(Call->getArg(*D)))
          write(*P, Call, Callee->getQualifiedNameAsString(),
                /*ThroughMemory=*/true);
      return true;
    }
    if (Callee->getDeclContext()->getRedeclContext()->isStdNamespace())
      return true;
    // A view struct of a tensor's writable memory (Strided1D<T>(
    // t.data_ptr<T>(), n)) handed to a method, or to a function whose body is
    // not here, may be written through.
    const FunctionDecl *Body = Callee->getDefinition();
    bool IsMethod = isa<CXXMethodDecl>(Callee);
    if ((IsMethod || !Body || !Body->hasBody()) &&
        !libtorch::isInTorchNamespace(Callee)) {
      unsigned Shift = isa<CXXOperatorCallExpr>(Call) && IsMethod ? 1 : 0;
      for (unsigned I = Shift; I < Call->getNumArgs(); ++I) {
        std::optional<unsigned> P = wrapperTarget(Call->getArg(I));
        if (!P)
          continue;
        const ParmVarDecl *Param = I - Shift < Callee->getNumParams()
                                       ? Callee->getParamDecl(I - Shift)
                                       : nullptr;
        std::string Type =
            Call->getArg(I)
                ->IgnoreImplicit()
                ->getType()
                .getUnqualifiedType()
                .getAsString(FD->getASTContext().getPrintingPolicy());
        std::string Form = "handing its memory, in a '" + Type + "', to '" +
                           Callee->getQualifiedNameAsString() + "'";
        bool Unseen = !Body || !Body->hasBody();
        Out.Writes.push_back(
            {*P, Call, FD, Form, nullptr, Unseen ? Param : nullptr, true});
        Out.Writes.back().Copy = LastCopy;
      }
    }
    // A static member function takes its arguments as a free function does;
    // other methods are not followed.
    if (!ArgShift && IsMethod && !cast<CXXMethodDecl>(Callee)->isStatic())
      return true;
    // A helper (or a CUDA kernel launch) whose body this file has: what it
    // writes through its own parameters.
    const FunctionDecl *Def = Callee->getDefinition();
    if (!Def) {
      if (const FunctionDecl *Pattern =
              Callee->getTemplateInstantiationPattern())
        Def = Pattern->getDefinition();
    }
    if (isUserDecl(Callee) && Def && Def->hasBody()) {
      if (Def == FD)
        return true;
      const ArgumentMutationResult &Sum = Analysis.analyse(Callee);
      Out.OpaqueMemory |= Sum.OpaqueMemory;
      // The helper's writes that differ only in the call they came through
      // (Via) are one write here: this call replaces Via. Without this, a
      // summary would grow with the product of the call counts along a
      // chain of helpers (pytorch3d's knn.cu ran out of memory).
      llvm::DenseSet<
          std::tuple<unsigned, const Expr *, const Expr *, const ParmVarDecl *>>
          Taken;
      for (const ArgumentWrite &W : Sum.Writes) {
        unsigned Key =
            W.ParamIndex * 4 + (W.ThroughMemory ? 2 : 0) + (W.Metadata ? 1 : 0);
        if (!Taken.insert({Key, W.Write, W.Copy, W.Unseen}).second)
          continue;
        if (W.ParamIndex < ArgShift ||
            W.ParamIndex - ArgShift >= Call->getNumArgs())
          continue;
        const Expr *Arg = Call->getArg(W.ParamIndex - ArgShift);
        std::optional<unsigned> P = aliasedParam(Arg);
        bool Memory = W.ThroughMemory;
        if (!P && (P = rawTarget(Arg)))
          Memory = true;
        if (P) {
          Out.Writes.push_back(
              {*P, W.Write, W.WriteFunction, W.Form, Call, W.Unseen, Memory});
          Out.Writes.back().Metadata = W.Metadata;
          Out.Writes.back().Copy = W.Copy ? W.Copy : LastCopy;
          continue;
        }
        // A helper that writes the elements of a list parameter (a
        // std::vector<Tensor>, at::TensorList or c10::List<Tensor>): each
        // argument the caller put in the list is written.
        if (isTensorListType(Def->getParamDecl(W.ParamIndex)->getType()))
          for (unsigned Element : listElements(Arg)) {
            Out.Writes.push_back({Element, W.Write, W.WriteFunction, W.Form,
                                  Call, W.Unseen, Memory});
            Out.Writes.back().Copy = W.Copy;
          }
      }
      return true;
    }
    if (ArgShift)
      return true; // F::forward's body is not here
    // A function whose body is not here: a tensor's memory handed to a
    // parameter that is a non-const pointer (or an accessor) may be written,
    // where the declaration's `const` tells inputs from outputs.
    if (!constTellsWrites(Callee->parameters())) {
      for (unsigned I = 0; I < Call->getNumArgs() && I < Callee->getNumParams();
           ++I)
        if (isWritableMemoryType(Callee->getParamDecl(I)->getType()) &&
            rawTarget(Call->getArg(I)))
          Out.OpaqueMemory = true;
      return true;
    }
    for (unsigned I = 0; I < Call->getNumArgs() && I < Callee->getNumParams();
         ++I) {
      const ParmVarDecl *Param = Callee->getParamDecl(I);
      if (!isWritableMemoryType(Param->getType()) ||
          isPointerArray(Param->getType()))
        continue;
      if (std::optional<unsigned> P = rawTarget(Call->getArg(I))) {
        std::string Form = "passing its memory to '" +
                           Callee->getQualifiedNameAsString() + "'";
        Out.Writes.push_back({*P, Call, FD, Form, nullptr, Param, true});
        Out.Writes.back().Copy = LastCopy;
      }
    }
    return true;
  }

  bool VisitReturnStmt(ReturnStmt *R) {
    const Expr *Value = R->getRetValue();
    if (LambdaDepth != 0 || !Value)
      return true;
    if (libtorch::isTensorType(Value->getType())) {
      returned(R, Value, -1);
      return true;
    }
    // A tuple of tensors: each element that is an argument or a view of it.
    std::vector<const Expr *> Elements = tupleElements(Value);
    for (unsigned I = 0; I < Elements.size(); ++I)
      if (libtorch::isTensorType(Elements[I]->getType()))
        returned(R, Elements[I], static_cast<int>(I));
    return true;
  }

private:
  /// Records Value, returned by R (as element Element of a tuple, or the
  /// whole return where Element is -1), if it is a parameter or a view of
  /// one.
  void returned(const ReturnStmt *R, const Expr *Value, int Element) {
    std::optional<unsigned> P = aliasedParam(Value);
    if (!P)
      return;
    const CXXMemberCallExpr *Copy = LastCopy;
    Out.Returns.push_back({*P, R, isDirect(Value)});
    Out.Returns.back().Element = Element;
    Out.Returns.back().Value = Value;
    Out.Returns.back().Copy = Copy;
  }

  /// The elements of a tuple a return builds in place: std::make_tuple(a,
  /// b), std::tie / std::forward_as_tuple / std::make_pair(a, b),
  /// std::tuple<...>(a, b), a braced {a, b}. None for anything else (a
  /// tuple variable, a call of the project's own).
  static std::vector<const Expr *> tupleElements(const Expr *E) {
    std::vector<const Expr *> Out;
    for (int Depth = 0; E && Depth < 8; ++Depth) {
      E = E->IgnoreImplicit();
      if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(E)) {
        E = F->getSubExpr();
        continue;
      }
      if (const auto *Init = dyn_cast<InitListExpr>(E)) {
        Out.assign(Init->inits().begin(), Init->inits().end());
        break;
      }
      const auto *RD = E->getType()->getAsCXXRecordDecl();
      bool Tuple = RD && RD->getIdentifier() && RD->isInStdNamespace() &&
                   (RD->getName() == "tuple" || RD->getName() == "pair");
      if (!Tuple)
        break;
      if (const auto *Call = dyn_cast<CallExpr>(E)) {
        const FunctionDecl *Callee = Call->getDirectCallee();
        StringRef Name =
            Callee && Callee->getIdentifier() ? Callee->getName() : StringRef();
        if (Callee && Callee->isInStdNamespace() &&
            (Name == "make_tuple" || Name == "tie" ||
             Name == "forward_as_tuple" || Name == "make_pair"))
          Out.assign(Call->arg_begin(), Call->arg_end());
        break;
      }
      if (const auto *C = dyn_cast<CXXConstructExpr>(E)) {
        // A copy or move of a tuple built in place: that tuple's elements.
        if (C->getNumArgs() == 1 &&
            C->getArg(0)->getType()->getAsCXXRecordDecl() == RD) {
          E = C->getArg(0);
          continue;
        }
        Out.assign(C->arg_begin(), C->arg_end());
      }
      break;
    }
    return Out;
  }

  void bind(const VarDecl *V, const Expr *Value) {
    std::optional<unsigned> P = aliasedParam(Value);
    const CXXMemberCallExpr *Copy = LastCopy;
    bool IsDirect = P && isDirect(Value);
    if (P)
      Alias[V] = *P;
    else if (Conditional == 0)
      Alias.erase(V);
    // A handle rebound to its own copy (`x = x.contiguous();`, `out =
    // out.reshape(...).transpose(1, 2);`) is the tensor the code means from
    // there on, whatever it held: not a write into a copy.
    if (P && Copy && !isa<ParmVarDecl>(V) && rootOf(Value) != V)
      AliasCopy[V] = Copy;
    else if (Conditional == 0)
      AliasCopy.erase(V);
    if (IsDirect)
      Direct.insert(V);
    else if (Conditional == 0)
      Direct.erase(V);
  }

  /// The variable a chain of method calls starts from (`x` of
  /// `x.reshape(...).transpose(1, 2)`), if any.
  static const VarDecl *rootOf(const Expr *E) {
    for (int Depth = 0; E && Depth < 32; ++Depth) {
      E = libtorch::ignoreTensorWrappers(E);
      if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
        return dyn_cast<VarDecl>(Ref->getDecl());
      const auto *Call = dyn_cast<CXXMemberCallExpr>(E);
      if (!Call)
        return nullptr;
      E = Call->getImplicitObjectArgument();
    }
    return nullptr;
  }

  /// E is a parameter's own tensor: its handle, a copy of the handle, or an
  /// in-place call on it (which returns its object).
  bool isDirect(const Expr *E, int Depth = 0) {
    if (!E || Depth > 32)
      return false;
    E = libtorch::ignoreTensorWrappers(E);
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return Direct.contains(dyn_cast<VarDecl>(Ref->getDecl()));
    if (const auto *C = dyn_cast<ConditionalOperator>(E))
      return isDirect(C->getTrueExpr(), Depth + 1) ||
             isDirect(C->getFalseExpr(), Depth + 1);
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
      return libtorch::isCompoundAssignOnTensor(Op) &&
             isDirect(Op->getArg(0), Depth + 1);
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E))
      return libtorch::isInPlaceValueMethod(Call) &&
             isDirect(Call->getImplicitObjectArgument(), Depth + 1);
    return false;
  }

  /// Every write: into the parameter the last aliasedParam, rawTarget or
  /// wrapperTarget found, through the copy it passed (LastCopy).
  void write(unsigned P, const Expr *E, std::string Form,
             bool ThroughMemory = false) {
    Out.Writes.push_back(
        {P, E, FD, std::move(Form), nullptr, nullptr, ThroughMemory});
    Out.Writes.back().Copy = LastCopy;
  }

  /// Records the copy the last lookup passed as V's.
  void note(llvm::DenseMap<const VarDecl *, const CXXMemberCallExpr *> &Map,
            const VarDecl *V) {
    if (LastCopy)
      Map[V] = LastCopy;
    else if (Conditional == 0)
      Map.erase(V);
  }
  /// The copy variable V was bound to, as the current lookup's.
  void
  passVar(const llvm::DenseMap<const VarDecl *, const CXXMemberCallExpr *> &Map,
          const Expr *E) {
    E = E ? E->IgnoreParenImpCasts() : nullptr;
    if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E))
      if (const CXXMemberCallExpr *C =
              Map.lookup(dyn_cast<VarDecl>(Ref->getDecl()));
          C && !LastCopy)
        LastCopy = C;
  }

  /// The parameter that E is, or is a view or alias of.
  std::optional<unsigned> aliasedParam(const Expr *E, int Depth = 0) {
    if (Depth == 0)
      LastCopy = nullptr;
    if (!E || Depth > 32)
      return std::nullopt;
    E = libtorch::ignoreTensorWrappers(E);
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      auto It = Alias.find(dyn_cast<VarDecl>(Ref->getDecl()));
      if (It != Alias.end()) {
        passVar(AliasCopy, Ref);
        return It->second;
      }
      return std::nullopt;
    }
    if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
      if (auto P = aliasedParam(C->getTrueExpr(), Depth + 1))
        return P;
      return aliasedParam(C->getFalseExpr(), Depth + 1);
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      if ((Op->getOperator() == OO_Star || Op->getOperator() == OO_Arrow) &&
          Op->getNumArgs() == 1)
        return optionalParam(Op->getArg(0));
      if (Op->getOperator() == OO_Subscript &&
          libtorch::isTensorType(Op->getArg(0)->getType()))
        return aliasedParam(Op->getArg(0), Depth + 1);
      // An element of a Tensor[] argument: list[i].
      if (Op->getOperator() == OO_Subscript)
        return listParam(Op->getArg(0));
      if (libtorch::isCompoundAssignOnTensor(Op))
        return aliasedParam(Op->getArg(0), Depth + 1);
      return std::nullopt;
    }
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
      StringRef Name = nameOf(Call->getMethodDecl());
      if (Name == "value" || Name == "operator*" || Name == "value_or")
        if (std::optional<unsigned> P =
                optionalParam(Call->getImplicitObjectArgument()))
          return P;
      if (Name == "at" || Name == "get" || Name == "front" || Name == "back")
        if (std::optional<unsigned> P =
                listParam(Call->getImplicitObjectArgument()))
          return P;
      if (!libtorch::torchCallee(Call) || libtorch::isCopyingIndexCall(Call))
        return std::nullopt;
      if (alwaysCopies(Call))
        return std::nullopt;
      if (libtorch::isViewProducingCall(Call) || isAliasReturningMethod(Name) ||
          libtorch::isInPlaceValueMethod(Call)) {
        std::optional<unsigned> P =
            aliasedParam(Call->getImplicitObjectArgument(), Depth + 1);
        if (P && !LastCopy && copyingMethodOf(Call))
          LastCopy = Call;
        return P;
      }
      return std::nullopt;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (!Callee || isa<CXXMethodDecl>(Callee) ||
          !libtorch::isInTorchNamespace(Callee) || Call->getNumArgs() == 0)
        return std::nullopt;
      static const llvm::StringSet<> FreeViews = {
          "narrow",     "select",    "slice",    "transpose", "view",
          "squeeze",    "unsqueeze", "permute",  "expand",    "diagonal",
          "as_strided", "reshape",   "flatten",  "detach",    "alias",
          "t",          "movedim",   "unflatten"};
      StringRef Name = nameOf(Callee);
      if (FreeViews.contains(Name) || libtorch::isInPlaceValueFunction(Callee))
        return aliasedParam(Call->getArg(0), Depth + 1);
    }
    return std::nullopt;
  }

  /// The parameter that the variable E names stands for in Map.
  static std::optional<unsigned>
  named(const llvm::DenseMap<const VarDecl *, unsigned> &Map, const Expr *E) {
    E = E ? E->IgnoreParenImpCasts() : nullptr;
    if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E)) {
      auto It = Map.find(dyn_cast<VarDecl>(Ref->getDecl()));
      if (It != Map.end())
        return It->second;
    }
    return std::nullopt;
  }
  /// The Tensor[] parameter E names.
  std::optional<unsigned> listParam(const Expr *E) { return named(Lists, E); }
  /// The parameters a list of tensors holds: `{a, b.narrow(0, 0, 1)}`,
  /// `std::vector<at::Tensor>{a, b}`, a Tensor[] parameter, a local list
  /// of them, or one of those converted (to at::TensorList, c10::List).
  llvm::SmallVector<unsigned, 4> listElements(const Expr *E, int Depth = 0) {
    llvm::SmallVector<unsigned, 4> Out;
    if (!E || Depth > 8)
      return Out;
    E = E->IgnoreImplicit();
    if (const auto *Temp = dyn_cast<CXXFunctionalCastExpr>(E))
      return listElements(Temp->getSubExpr(), Depth + 1);
    if (const auto *IL = dyn_cast<CXXStdInitializerListExpr>(E))
      return listElements(IL->getSubExpr(), Depth + 1);
    if (const auto *Init = dyn_cast<InitListExpr>(E)) {
      for (const Expr *Element : Init->inits())
        if (std::optional<unsigned> P = aliasedParam(Element))
          Out.push_back(*P);
        else
          llvm::append_range(Out, listElements(Element, Depth + 1));
      return Out;
    }
    if (const auto *C = dyn_cast<CXXConstructExpr>(E)) {
      // at::TensorList(t): a list of the one tensor.
      for (const Expr *Arg : C->arguments())
        if (std::optional<unsigned> P = libtorch::isTensorType(Arg->getType())
                                            ? aliasedParam(Arg)
                                            : std::nullopt)
          Out.push_back(*P);
        else
          llvm::append_range(Out, listElements(Arg, Depth + 1));
      return Out;
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      if (std::optional<unsigned> P = listParam(Ref))
        Out.push_back(*P);
      auto It = LocalLists.find(dyn_cast<VarDecl>(Ref->getDecl()));
      if (It != LocalLists.end())
        llvm::append_range(Out, It->second);
    }
    return Out;
  }
  /// The optional<Tensor> parameter E names (or a local copy of it).
  std::optional<unsigned> optionalParam(const Expr *E) {
    std::optional<unsigned> P = named(Optional, E);
    if (P)
      passVar(OptionalCopy, E);
    return P;
  }

  /// The parameter whose memory E points into: t.data_ptr<T>(), a pointer
  /// taken from it (plus an offset, or an element's address &p[i]), an
  /// accessor of it, or one element of those.
  std::optional<unsigned> rawTarget(const Expr *E, int Depth = 0) {
    if (Depth == 0)
      LastCopy = nullptr;
    if (!E || Depth > 32)
      return std::nullopt;
    E = E->IgnoreParenCasts();
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
      return rawTarget(A->getBase(), Depth + 1);
    if (const auto *U = dyn_cast<UnaryOperator>(E);
        U && (U->getOpcode() == UO_Deref || U->getOpcode() == UO_AddrOf ||
              (U->isIncrementDecrementOp() && U->getType()->isPointerType())))
      return rawTarget(U->getSubExpr(), Depth + 1);
    if (const auto *B = dyn_cast<BinaryOperator>(E);
        B && B->isCompoundAssignmentOp() && B->getType()->isPointerType())
      return rawTarget(B->getLHS(), Depth + 1);
    if (const auto *B = dyn_cast<BinaryOperator>(E);
        B && B->isAdditiveOp() && B->getType()->isPointerType())
      return rawTarget(B->getLHS()->getType()->isPointerType() ? B->getLHS()
                                                               : B->getRHS(),
                       Depth + 1);
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
        Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2 &&
        !libtorch::isTensorType(Op->getArg(0)->getType()))
      return rawTarget(Op->getArg(0), Depth + 1);
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      auto It = Raw.find(dyn_cast<VarDecl>(Ref->getDecl()));
      if (It != Raw.end()) {
        passVar(RawCopy, Ref);
        return It->second;
      }
      return std::nullopt;
    }
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E);
        Call && libtorch::torchCallee(Call)) {
      StringRef Name = nameOf(Call->getMethodDecl());
      if (isRawPointerMethod(Name) || isAccessorMethod(Name))
        return aliasedParam(Call->getImplicitObjectArgument());
    }
    return accessorOf(E);
  }

  /// The parameter an accessor expression (t.accessor<T, N>()) reads.
  std::optional<unsigned> accessorOf(const Expr *E) {
    E = E ? E->IgnoreImplicit() : nullptr;
    if (const auto *C = dyn_cast_or_null<CXXConstructExpr>(E);
        C && C->getNumArgs() == 1)
      E = C->getArg(0)->IgnoreImplicit();
    const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(E);
    if (!Call || !libtorch::torchCallee(Call) ||
        !isAccessorMethod(nameOf(Call->getMethodDecl())))
      return std::nullopt;
    return aliasedParam(Call->getImplicitObjectArgument());
  }

  /// The parameter whose writable memory a small view struct carries: a
  /// user class constructed from a non-const pointer into it
  /// (Strided1D<T>(t.data_ptr<T>(), n), Span{p, n}), or a local of one.
  std::optional<unsigned> wrapperTarget(const Expr *E, int Depth = 0) {
    if (Depth == 0)
      LastCopy = nullptr;
    if (!E || Depth > 8)
      return std::nullopt;
    E = E->IgnoreImplicit()->IgnoreParens()->IgnoreImplicit();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      auto It = Wrapped.find(dyn_cast<VarDecl>(Ref->getDecl()));
      if (It == Wrapped.end())
        return std::nullopt;
      passVar(WrappedCopy, Ref);
      return It->second;
    }
    if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(E))
      return wrapperTarget(F->getSubExpr(), Depth + 1);
    // A dependent initialiser in a template's pattern (`Kernel task(p, n)`,
    // a ParenListExpr) has no type.
    if (E->getType().isNull())
      return std::nullopt;
    const CXXRecordDecl *RD = E->getType()->getAsCXXRecordDecl();
    if (!RD || !isUserDecl(RD))
      return std::nullopt;
    // A struct of several pointers, none to const (`{void *sf; void *out;}`),
    // does not say which it writes through.
    if (const auto *C = dyn_cast<CXXConstructExpr>(E)) {
      const CXXConstructorDecl *Ctor = C->getConstructor();
      if (Ctor->isCopyOrMoveConstructor() && C->getNumArgs() >= 1)
        return wrapperTarget(C->getArg(0), Depth + 1);
      if (!constTellsWrites(Ctor->parameters()) ||
          !constTellsWrites(RD->fields()))
        return std::nullopt;
      for (unsigned I = 0; I < C->getNumArgs() && I < Ctor->getNumParams(); ++I)
        if (isWritablePointer(Ctor->getParamDecl(I)->getType()))
          if (std::optional<unsigned> P = rawTarget(C->getArg(I)))
            return P;
      return std::nullopt;
    }
    if (const auto *IL = dyn_cast<InitListExpr>(E)) {
      if (!constTellsWrites(RD->fields()))
        return std::nullopt;
      unsigned I = 0;
      for (const FieldDecl *Field : RD->fields()) {
        if (I >= IL->getNumInits())
          break;
        const Expr *Init = IL->getInit(I++);
        if (isWritablePointer(Field->getType()))
          if (std::optional<unsigned> P = rawTarget(Init))
            return P;
      }
    }
    return std::nullopt;
  }

  std::string rawWriteForm(const Expr *Lhs) {
    const Expr *E = Lhs->IgnoreParenCasts();
    while (true) {
      if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
        E = A->getBase()->IgnoreParenCasts();
      else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
               Op && Op->getOperator() == OO_Subscript)
        E = Op->getArg(0)->IgnoreParenCasts();
      else
        break;
    }
    QualType T = E->getType();
    if (T->isPointerType() || isa<UnaryOperator>(E))
      return "a write through data_ptr";
    return "a write through an accessor";
  }

  ArgumentMutationAnalysis &Analysis;
  const FunctionDecl *FD;
  ArgumentMutationResult &Out;
  llvm::DenseMap<const VarDecl *, unsigned> Alias; ///< handles and views
  llvm::DenseMap<const VarDecl *, unsigned> Raw;   ///< pointers, accessors
  /// Small view structs holding a tensor's writable memory.
  llvm::DenseMap<const VarDecl *, unsigned> Wrapped;
  llvm::DenseMap<const VarDecl *, unsigned> Optional; ///< optional<Tensor>
  llvm::DenseMap<const VarDecl *, unsigned> Lists;    ///< Tensor[] arguments
  /// Local lists of arguments and what they hold.
  llvm::DenseMap<const VarDecl *, std::vector<unsigned>> LocalLists;
  llvm::DenseSet<const VarDecl *> Direct; ///< the parameters' own handles
  /// The copying call (ArgumentWrite::Copy) each of the maps' variables
  /// was bound through, and the one the last lookup passed.
  llvm::DenseMap<const VarDecl *, const CXXMemberCallExpr *> AliasCopy, RawCopy,
      WrappedCopy, OptionalCopy;
  const CXXMemberCallExpr *LastCopy = nullptr;
  unsigned Conditional = 0, LambdaDepth = 0;
};

/// A return that cannot run (after TORCH_CHECK(false, ...), a throw or a
/// noreturn call) returns nothing: judged on the CFG, with branches on
/// constants pruned as the compiler would.
void dropUnreachableReturns(const FunctionDecl *Def,
                            ArgumentMutationResult &Result) {
  if (Result.Returns.empty())
    return;
  CFG::BuildOptions Options;
  Options.PruneTriviallyFalseEdges = true;
  std::unique_ptr<CFG> Graph =
      CFG::buildCFG(Def, Def->getBody(), &Def->getASTContext(), Options);
  if (!Graph)
    return; // no CFG: keep every return
  llvm::DenseSet<const Stmt *> Reachable;
  llvm::SmallVector<const CFGBlock *, 16> Work = {&Graph->getEntry()};
  llvm::DenseSet<const CFGBlock *> Seen = {&Graph->getEntry()};
  while (!Work.empty()) {
    const CFGBlock *B = Work.pop_back_val();
    for (const CFGElement &E : *B)
      if (std::optional<CFGStmt> S = E.getAs<CFGStmt>())
        Reachable.insert(S->getStmt());
    if (const Stmt *T = B->getTerminatorStmt())
      Reachable.insert(T);
    for (const CFGBlock::AdjacentBlock &Succ : B->succs())
      if (const CFGBlock *Next = Succ.getReachableBlock())
        if (Seen.insert(Next).second)
          Work.push_back(Next);
  }
  llvm::erase_if(Result.Returns, [&](const ArgumentReturn &R) {
    return !Reachable.contains(R.Return);
  });
}

} // namespace

/// "cpu" or "cuda" where E names that device type: at::kCPU,
/// c10::DeviceType::CUDA, torch::Device(at::kCUDA), torch::Device("cpu");
/// "" for anything else (a device held in a variable, another type).
static StringRef namedDevice(const Expr *E) {
  for (int Depth = 0; E && Depth < 8; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = MT->getSubExpr();
      continue;
    }
    if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E)) {
      E = B->getSubExpr();
      continue;
    }
    if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = F->getSubExpr();
      continue;
    }
    if (const auto *C = dyn_cast<CXXConstructExpr>(E)) {
      if (C->getNumArgs() == 0)
        return "";
      E = C->getArg(0);
      continue;
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      StringRef N = Ref->getDecl()->getName();
      if (!isa<EnumConstantDecl, VarDecl>(Ref->getDecl()))
        return "";
      if (N == "kCPU" || N == "CPU")
        return "cpu";
      if (N == "kCUDA" || N == "CUDA")
        return "cuda";
      return "";
    }
    if (const auto *S = dyn_cast<StringLiteral>(E)) {
      StringRef T = S->getString();
      if (T == "cpu")
        return "cpu";
      if (T == "cuda" || T.starts_with("cuda:"))
        return "cuda";
      return "";
    }
    return "";
  }
  return "";
}

const ground_truth::CopyingMethod *
copyingMethodOf(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *M = Call ? Call->getMethodDecl() : nullptr;
  StringRef Name = nameOf(M);
  if (Name.empty() ||
      !libtorch::isTensorType(M->getThisType()->getPointeeType()))
    return nullptr;
  auto Explicit = [&](unsigned I) {
    return I < Call->getNumArgs() && !isa<CXXDefaultArgExpr>(Call->getArg(I));
  };
  StringRef Form;
  if (Name == "contiguous") {
    Form = Explicit(0) ? "format" : "";
  } else if (Name == "cpu" || Name == "cuda") {
    Form = "";
  } else if (Name == "to" || Name == "toType") {
    if (!Explicit(0))
      return nullptr;
    // What the first argument is, before its conversion to the parameter's
    // type: to(at::kCPU) converts a DeviceType to TensorOptions.
    const Expr *A = Call->getArg(0)->IgnoreParenImpCasts();
    while (const auto *C = dyn_cast<CXXConstructExpr>(A)) {
      if (C->getNumArgs() != 1 || isa<CXXTemporaryObjectExpr>(C))
        break;
      A = C->getArg(0)->IgnoreParenImpCasts();
    }
    if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(A))
      A = MT->getSubExpr()->IgnoreParenImpCasts();
    QualType T = A->getType().getNonReferenceType().getUnqualifiedType();
    const auto *TD = T->getAsTagDecl();
    StringRef Type = TD && TD->getIdentifier() ? TD->getName() : "";
    if (Type == "ScalarType" || Type == "TypeMeta")
      Form = "dtype";
    else if (Type == "TensorOptions" && Name == "to")
      Form = "options";
    else if ((Type == "DeviceType" || Type == "Device") && Name == "to" &&
             !Explicit(1))
      Form = namedDevice(A); // to(at::kCPU), to(torch::Device("cuda"))
    else
      return nullptr; // another tensor: not measured
    if (Form.empty())
      return nullptr; // a device in a variable: which one is not known
    // to(device, dtype) moves across devices too.
    if (Name == "to" && Form == "dtype" &&
        M->getParamDecl(0)->getType()->getAsTagDecl() &&
        M->getParamDecl(0)->getType()->getAsTagDecl()->getName() == "Device")
      return nullptr;
  }
  return ground_truth::findCopyingMethod(Name, Form);
}

const ArgumentMutationResult &
ArgumentMutationAnalysis::analyse(const FunctionDecl *FD) {
  static const ArgumentMutationResult Empty;
  const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
  if (!Def && FD)
    if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
      Def = Pattern->getDefinition();
  if (!Def || !Def->hasBody())
    return Empty;
  auto It = Results.find(Def);
  if (It != Results.end())
    return *It->second;
  if (!InProgress.insert(Def).second)
    return Empty; // recursion: no summary yet
  auto Result = std::make_unique<ArgumentMutationResult>();
  Walker W(*this, Def, *Result);
  W.TraverseStmt(const_cast<Stmt *>(Def->getBody()));
  dropUnreachableReturns(Def, *Result);
  InProgress.erase(Def);
  return *(Results[Def] = std::move(Result));
}

} // namespace torch_tidy

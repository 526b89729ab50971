//===- CheckFixes.cpp - The fixes of the checks beside the flagship -------===//

#include "torch_tidy/rewrite/CheckFixes.h"
#include "torch_tidy/analysis/ArgumentMutation.h"
#include "torch_tidy/analysis/FullStatement.h"
#include "torch_tidy/analysis/GroundTruth.h"
#include "torch_tidy/analysis/SourceText.h"
#include "torch_tidy/libtorch/LibTorchApi.h"
#include "torch_tidy/rewrite/OutOfPlaceRewrite.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

using namespace clang;

namespace torch_tidy {

// ---- index-put-into-copy -------------------------------------------------

namespace {
/// What index_put_ writes: the value's text, or why there is none.
struct CopyValue {
  std::string Text;
  std::string NoFixReason;
  /// A tensor value: copy_ casts it to the target's dtype (and device), and
  /// index_put_ requires them equal, so the fix casts it.
  bool CastTensor = false;
};

CopyValue copyValue(const Expr *Write, const ASTContext &Ctx) {
  // The value's text, ready for a member call when it is a tensor.
  auto Value = [&](const Expr *E) {
    CopyValue V{sourceText(E, Ctx).str(), ""};
    if (libtorch::isTensorType(E->getType())) {
      if (!canTakeMemberCall(E))
        V.Text = "(" + V.Text + ")";
      V.CastTensor = true;
    }
    return V;
  };
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Write)) {
    if (Op->getOperator() == OO_Equal)
      return Value(Op->getArg(1));
    return {"", "a compound assignment on the copy; 't.index_put_(I, x, "
                "/*accumulate=*/true)' differs from it when indices repeat"};
  }
  const auto *Call = cast<CXXMemberCallExpr>(Write);
  StringRef Name = Call->getMethodDecl()->getName();
  auto ExplicitArgs = llvm::count_if(Call->arguments(), [](const Expr *A) {
    return !isa<CXXDefaultArgExpr>(A);
  });
  if ((Name == "copy_" || Name == "fill_") && ExplicitArgs == 1)
    return Value(Call->getArg(0));
  if (Name == "zero_" && ExplicitArgs == 0)
    return {"0", ""};
  return {"", ("'" + Name +
               "' has no exact index_put_ form (index_put_ with "
               "accumulate=true differs from add_ when indices repeat); "
               "write the new values with index_put_ by hand")
                  .str()};
}
} // namespace

FixPlan planIndexPutIntoCopy(const CopyIndexWrite &W, const ParentMap &Parents,
                             const ASTContext &Ctx) {
  CopyValue Value = copyValue(W.Write, Ctx);
  if (!Value.NoFixReason.empty())
    return FixPlan::noFix(Value.NoFixReason);
  const Expr *Object = W.IndexCall->getImplicitObjectArgument();
  std::string ObjectText = sourceText(Object, Ctx).str();
  const auto *ObjectRef =
      dyn_cast<DeclRefExpr>(libtorch::ignoreTensorWrappers(Object));
  if (W.ThroughView)
    return FixPlan::noFix("the write goes through a view of the copy");
  if (!ObjectRef || !isa<VarDecl>(ObjectRef->getDecl()))
    return FixPlan::noFix("the indexed tensor is not a named variable");
  if (ObjectRef->getType().isConstQualified())
    // index_put_ with a TensorIndex list is a non-const method.
    return FixPlan::noFix("'" + messageText(Object, Ctx, 80) +
                          "' is const, and index_put_ with a TensorIndex "
                          "list needs a non-const tensor");
  if (!libtorch::indexListElements(W.IndexCall->getArg(0)))
    return FixPlan::noFix("the index list is not a braced list");
  if (!enclosingBlockOfStatement(W.Write, Parents))
    return FixPlan::noFix("the write's value is used");
  if (W.Write->getBeginLoc().isMacroID() || W.Write->getEndLoc().isMacroID())
    return FixPlan::noFix("the write is in a macro");
  std::string Text =
      ObjectText + ".index_put_(" +
      sourceText(W.IndexCall->getArg(0), Ctx).str() + ", " + Value.Text +
      (Value.CastTensor ? ".to(" + ObjectText + ".options())" : "") + ")";
  return FixPlan::fix(
      "index-put-into-copy",
      {FixEdit::replace(
          CharSourceRange::getTokenRange(W.Write->getSourceRange()), Text)});
}

// ---- no-grad-guard -------------------------------------------------------

namespace {
bool declaresName(const Stmt *S, StringRef Name) {
  if (!S)
    return false;
  if (const auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (const auto *ND = dyn_cast<NamedDecl>(D);
          ND && ND->getIdentifier() && ND->getName() == Name)
        return true;
  for (const Stmt *Child : S->children())
    if (declaresName(Child, Name))
      return true;
  return false;
}
} // namespace

NoGradGuardPlanner::NoGradGuardPlanner(const FunctionDecl *Function)
    : Function(Function) {}

FixPlan NoGradGuardPlanner::plan(const LeafWrite &W, const ASTContext &Ctx) {
  std::string Leaf = W.Leaf->getName().str();
  switch (W.obstacle()) {
  case LeafWrite::Obstacle::UsedBefore:
    return FixPlan::noFix("'" + Leaf +
                          "' is used before this write; writing it under "
                          "no_grad would change what that use computed from");
  case LeafWrite::Obstacle::InLoop:
    return FixPlan::noFix("the write is in a loop, after uses of '" + Leaf +
                          "' in earlier iterations");
  case LeafWrite::Obstacle::NotStatement:
    return FixPlan::noFix("the write is part of a larger expression");
  case LeafWrite::Obstacle::InMacro:
    return FixPlan::noFix("the write is in a macro");
  case LeafWrite::Obstacle::None:
    break;
  }
  SourceLocation Semi = Lexer::findLocationAfterToken(
      W.Write->getEndLoc(), tok::semi, Ctx.getSourceManager(),
      Ctx.getLangOpts(), false);
  if (Semi.isInvalid())
    return FixPlan::noFix("the statement's end is not found");
  if (!NameTaken)
    NameTaken = declaresName(Function->getBody(), "no_grad") ||
                llvm::any_of(Function->parameters(), [](const ParmVarDecl *P) {
                  return P->getName() == "no_grad";
                });
  if (*NameTaken)
    return FixPlan::noFix("the function already declares a 'no_grad'");
  return FixPlan::fix("no-grad-guard",
                      {FixEdit::insert(W.Write->getBeginLoc(),
                                       "{ torch::NoGradGuard no_grad; "),
                       FixEdit::insert(Semi, " }")});
}

// ---- schema-mark-mutable -------------------------------------------------

namespace {
/// Alias-set letters the schema does not use yet, in order.
std::vector<std::string> freeAliasLetters(const OperatorSchema &S) {
  llvm::StringSet<> Used;
  auto Take = [&](const SchemaArgument &A) {
    if (!A.Alias)
      return;
    for (const std::string &Set : A.Alias->Sets)
      Used.insert(Set);
    for (const std::string &Set : A.Alias->AfterSets)
      Used.insert(Set);
  };
  for (const SchemaArgument &A : S.Arguments)
    Take(A);
  for (const SchemaArgument &A : S.Returns)
    Take(A);
  std::vector<std::string> Free;
  for (char C = 'a'; C <= 'z'; ++C)
    if (!Used.contains(std::string(1, C)))
      Free.push_back(std::string(1, C));
  return Free;
}

/// Why there is no fix-it for a schema that another file of the project
/// declares (the project index found it there).
std::string declaredElsewhere(const RegisteredOperator &Op) {
  return "the schema is declared in another file of the project (" +
         llvm::sys::path::filename(Op.SchemaFile).str() + ":" +
         std::to_string(Op.SchemaLine) + "); a fix-it edits only this file";
}

/// Where the annotation goes in the literal: right after the base type
/// `Tensor` of an argument or return; invalid when that is not writable.
SourceLocation annotationLocation(const RegisteredOperator &Op,
                                  const SchemaArgument &A,
                                  const ASTContext &Ctx, std::string &Why) {
  const StringLiteral *L = Op.SchemaLiteral;
  if (Op.SchemaInferred || !L) {
    Why = Op.SchemaInferred && !Op.SchemaHelper.empty()
              ? "the schema is inferred from the C++ signature of '" +
                    Op.SchemaFunction + "' by the project's " +
                    Op.SchemaHelper +
                    ", which never declares a mutation; define the operator "
                    "with a schema string"
          : Op.SchemaInferred
              ? "the schema is inferred from the kernel's C++ signature "
                "(m.def(name, fn)), which never declares a mutation; define "
                "the operator with a schema string"
          : !Op.SchemaFile.empty()
              ? declaredElsewhere(Op)
              : "the schema is not a string literal written in this file";
    return {};
  }
  size_t Offset = A.Begin + StringRef("Tensor").size();
  if (!L->isOrdinary() || L->getString().substr(A.Begin, 6) != "Tensor" ||
      Offset > L->getByteLength()) {
    Why = "the schema literal's text cannot be edited safely";
    return {};
  }
  SourceLocation Loc = OperatorModel::locationInLiteral(L, Offset, Ctx);
  if (Loc.isInvalid() || Loc.isMacroID()) {
    Why = "the schema literal comes from a macro expansion";
    return {};
  }
  return Loc;
}
} // namespace

SchemaAnnotationPlanner::SchemaAnnotationPlanner(const RegisteredOperator &Op)
    : Op(Op), FreeLetters(freeAliasLetters(*Op.Schema)) {}

SchemaAnnotationPlanner::Result
SchemaAnnotationPlanner::plan(const SchemaArgument &A, const ASTContext &Ctx) {
  std::string Why, Letter, Insert;
  SourceLocation ArgLoc;
  if (A.Alias) {
    // Tensor(a) m: the set is there; it is written: Tensor(a!) m.
    Letter = A.Alias->Sets.empty() ? "a" : A.Alias->Sets.front();
    if (A.Alias->Sets.size() != 1 || !A.Alias->AfterSets.empty() ||
        A.Alias->End == 0) {
      Why = "the argument's alias annotation is not a single set";
    } else if (!Op.SchemaFile.empty()) {
      Why = declaredElsewhere(Op);
    } else if (Op.SchemaInferred || !Op.SchemaLiteral ||
               !Op.SchemaLiteral->isOrdinary()) {
      Why = "the schema is not a string literal written in this file";
    } else {
      ArgLoc = OperatorModel::locationInLiteral(Op.SchemaLiteral,
                                                A.Alias->End - 1, Ctx);
      if (ArgLoc.isInvalid() || ArgLoc.isMacroID()) {
        Why = "the schema literal comes from a macro expansion";
        ArgLoc = {};
      }
      Insert = "!";
    }
  } else {
    ArgLoc = annotationLocation(Op, A, Ctx, Why);
    Letter = NextLetter < FreeLetters.size() ? FreeLetters[NextLetter++] : "";
    if (ArgLoc.isValid() && Letter.empty()) {
      Why = "every alias letter is already used in the schema";
      ArgLoc = {};
    }
    Insert = "(" + Letter + "!)";
  }
  if (ArgLoc.isInvalid())
    return {FixPlan::noFix(Why), Letter};
  return {
      FixPlan::fix("schema-mark-mutable", {FixEdit::insert(ArgLoc, Insert)}),
      Letter};
}

// ---- return-clone --------------------------------------------------------

FixPlan planReturnClone(const Expr *Value, const ASTContext &Ctx) {
  SourceRange Range = Value->getSourceRange();
  bool Fixable = Range.isValid() && !Range.getBegin().isMacroID() &&
                 !Range.getEnd().isMacroID();
  SourceLocation After =
      Fixable ? endOfToken(Range.getEnd(), Ctx) : SourceLocation();
  if (!Fixable || After.isInvalid())
    return FixPlan::noFix("the returned expression comes from a macro "
                          "expansion");
  const Expr *Bare = Value->IgnoreImplicit();
  if (const auto *C = dyn_cast<CXXConstructExpr>(Bare);
      C && C->getNumArgs() == 1)
    Bare = C->getArg(0)->IgnoreImplicit();
  if (isa<DeclRefExpr, CallExpr, ParenExpr, MemberExpr>(Bare))
    return FixPlan::fix("return-clone", {FixEdit::insert(After, ".clone()")});
  return FixPlan::fix("return-clone", {FixEdit::insert(Range.getBegin(), "("),
                                       FixEdit::insert(After, ").clone()")});
}

// ---- metadata-out-of-place, copy-write-out-of-place ---------------------

namespace {
/// The expression's parent, past implicit nodes (ExprWithCleanups, casts).
const Stmt *parentPastImplicit(const Expr *E, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(*E);
  while (Parents.size() == 1) {
    const Stmt *P = Parents[0].get<Stmt>();
    if (!P)
      return nullptr;
    if (!isa<ExprWithCleanups, ImplicitCastExpr, MaterializeTemporaryExpr,
             CXXBindTemporaryExpr>(P))
      return P;
    Parents = Ctx.getParents(*P);
  }
  return nullptr;
}

/// Whether E is a statement of its own (its value unused): in a block, or
/// the body of an if, a loop or a case.
bool isStatement(const Expr *E, ASTContext &Ctx) {
  const Stmt *P = parentPastImplicit(E, Ctx);
  if (!P)
    return false;
  if (isa<CompoundStmt, CaseStmt, DefaultStmt, LabelStmt>(P))
    return true;
  auto Is = [&](const Stmt *Body) {
    const auto *B = dyn_cast_or_null<Expr>(Body);
    return B && B->IgnoreImplicit() == E;
  };
  if (const auto *If = dyn_cast<IfStmt>(P))
    return Is(If->getThen()) || Is(If->getElse());
  if (const auto *W = dyn_cast<WhileStmt>(P))
    return Is(W->getBody());
  if (const auto *F = dyn_cast<ForStmt>(P))
    return Is(F->getBody());
  if (const auto *D = dyn_cast<DoStmt>(P))
    return Is(D->getBody());
  return false;
}

/// The edit that drops the trailing '_' of Call's method name
/// (`unsqueeze_` -> `unsqueeze`), if its name is spelled in the file.
std::optional<FixEdit> dropUnderscore(const CXXMemberCallExpr *Call,
                                      const ASTContext &Ctx) {
  const auto *ME = dyn_cast<MemberExpr>(Call->getCallee()->IgnoreParens());
  const CXXMethodDecl *M = Call->getMethodDecl();
  if (!ME || !M || !M->getIdentifier() || !M->getName().ends_with("_"))
    return std::nullopt;
  SourceLocation Name = ME->getMemberLoc();
  if (Name.isMacroID())
    return std::nullopt;
  unsigned Len = M->getName().size();
  SourceLocation Last = Name.getLocWithOffset(Len - 1);
  const SourceManager &SM = Ctx.getSourceManager();
  if (*SM.getCharacterData(Last) != '_')
    return std::nullopt;
  return FixEdit::replace(
      CharSourceRange::getCharRange(Last, Last.getLocWithOffset(1)), "");
}
} // namespace

FixPlan planMetadataOutOfPlace(const Expr *Write, const FunctionDecl *Kernel,
                               ASTContext &Ctx) {
  static const llvm::StringSet<> Methods = {
      "unsqueeze_", "squeeze_",  "t_",         "transpose_",
      "swapdims_",  "swapaxes_", "as_strided_"};
  const auto *Call = dyn_cast<CXXMemberCallExpr>(Write);
  const CXXMethodDecl *M = Call ? Call->getMethodDecl() : nullptr;
  if (!M || !M->getIdentifier() || !Methods.contains(M->getName()))
    return FixPlan::noFix(
        "'" +
        (M && M->getIdentifier() ? M->getName().str() : std::string("it")) +
        "' has no out-of-place form to rebind to");
  // The receiver: one of the kernel's own handles (a parameter or a local).
  const auto *Ref = dyn_cast<DeclRefExpr>(
      Call->getImplicitObjectArgument()->IgnoreParenImpCasts());
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  QualType T = V ? V->getType() : QualType();
  if (!V || !libtorch::isTensorType(T) || !V->getParentFunctionOrMethod() ||
      V->getParentFunctionOrMethod() != Kernel)
    return FixPlan::noFix("the write is not on one of the kernel's own "
                          "handles");
  // A by-value handle is rebound (`m = m.unsqueeze(1);`); a const one (a
  // `const at::Tensor &` parameter) gets a new local, its later uses
  // renamed. A non-const reference may be assigned later as the caller's.
  bool Rebind = !T->isReferenceType() && !T.isConstQualified();
  if (!Rebind && !T.getNonReferenceType().isConstQualified())
    return FixPlan::noFix("the kernel takes it by non-const reference, "
                          "whose later assignments would reach the caller");
  if (!isStatement(Call, Ctx))
    return FixPlan::noFix("the write's value is used where it is");
  // The handles bound to the same tensor as V (`auto s = scales;` binds s
  // and scales) see the new metadata in the kernel as written; rebinding V
  // leaves them alone. So none of them may be read after the write.
  class Bindings : public RecursiveASTVisitor<Bindings> {
  public:
    bool VisitVarDecl(VarDecl *D) {
      if (const VarDecl *From = handle(D->getInit()))
        Edges.push_back({D, From});
      return true;
    }
    bool VisitBinaryOperator(BinaryOperator *B) {
      bind(B->isAssignmentOp() ? B->getLHS() : nullptr, B->getRHS());
      return true;
    }
    bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) {
      if (C->getOperator() == OO_Equal && C->getNumArgs() == 2)
        bind(C->getArg(0), C->getArg(1));
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *R) {
      if (const auto *D = dyn_cast<VarDecl>(R->getDecl()))
        Refs.push_back({D, R});
      return true;
    }
    bool VisitLambdaExpr(LambdaExpr *L) {
      for (const LambdaCapture &C : L->captures())
        if (C.capturesVariable())
          if (const auto *D = dyn_cast<VarDecl>(C.getCapturedVar()))
            Captured.insert(D);
      return true;
    }
    static const VarDecl *handle(const Expr *E) {
      if (!E)
        return nullptr;
      E = E->IgnoreImplicit();
      if (const auto *C = dyn_cast<CXXConstructExpr>(E);
          C && C->getNumArgs() == 1)
        E = C->getArg(0)->IgnoreImplicit();
      const auto *R = dyn_cast<DeclRefExpr>(E);
      return R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
    }
    void bind(const Expr *L, const Expr *R) {
      const VarDecl *A = handle(L), *B = handle(R);
      if (A && B)
        Edges.push_back({A, B});
    }
    std::vector<std::pair<const VarDecl *, const VarDecl *>> Edges;
    std::vector<std::pair<const VarDecl *, const DeclRefExpr *>> Refs;
    llvm::SmallPtrSet<const VarDecl *, 4> Captured;
  } B;
  B.TraverseStmt(Kernel->getBody());
  llvm::SmallPtrSet<const VarDecl *, 8> Group = {V};
  for (bool Grew = true; Grew;) {
    Grew = false;
    for (auto [A, From] : B.Edges)
      if (Group.contains(A) != Group.contains(From)) {
        Group.insert(A);
        Group.insert(From);
        Grew = true;
      }
  }
  const SourceManager &SM = Ctx.getSourceManager();
  auto After = [&](const DeclRefExpr *R) {
    return SM.isBeforeInTranslationUnit(Call->getEndLoc(), R->getBeginLoc());
  };
  for (auto [D, R] : B.Refs)
    if (D != V && Group.contains(D) && After(R))
      return FixPlan::noFix("'" + D->getName().str() +
                            "', bound to the same tensor, is read after the "
                            "write and would keep the old metadata");
  std::optional<FixEdit> Drop = dropUnderscore(Call, Ctx);
  if (!Drop || Call->getBeginLoc().isMacroID())
    return FixPlan::noFix("the call comes from a macro expansion");
  if (Rebind)
    return FixPlan::fix(
        "metadata-out-of-place",
        {FixEdit::insert(Call->getBeginLoc(), V->getName().str() + " = "),
         *Drop});

  // A new local for the new shape, and V's later uses renamed to it: only
  // where the write runs whenever they do (a statement of the kernel's own
  // block), no lambda holds V, and no later use writes V again.
  if (parentPastImplicit(Call, Ctx) != Kernel->getBody())
    return FixPlan::noFix("the kernel takes it by const reference and the "
                          "write is inside a nested block: a new local "
                          "there would not reach its later uses");
  if (B.Captured.contains(V))
    return FixPlan::noFix("a lambda of the kernel captures '" +
                          V->getName().str() + "'");
  static const llvm::StringMap<StringRef> Suffix = {
      {"unsqueeze_", "unsqueezed"},
      {"squeeze_", "squeezed"},
      {"t_", "t"},
      {"transpose_", "transposed"},
      {"swapdims_", "transposed"},
      {"swapaxes_", "transposed"},
      {"as_strided_", "strided"}};
  std::string Name = (V->getName() + "_" + Suffix.lookup(M->getName())).str();
  // A name the kernel's text does not spell cannot capture or hide one of
  // its own uses.
  StringRef Text = sourceText(Kernel->getSourceRange(), Ctx);
  for (size_t At = Text.find(Name); At != StringRef::npos;
       At = Text.find(Name, At + 1)) {
    auto Ident = [](char C) { return isAlphanumeric(C) || C == '_'; };
    if ((At == 0 || !Ident(Text[At - 1])) &&
        (At + Name.size() >= Text.size() || !Ident(Text[At + Name.size()])))
      return FixPlan::noFix("the kernel already uses the name '" + Name +
                            "' a new local would take");
  }
  if (Text.empty())
    return FixPlan::noFix("the kernel's text is not in the file");
  std::vector<FixEdit> Edits = {
      FixEdit::insert(Call->getBeginLoc(), "auto " + Name + " = "), *Drop};
  llvm::SmallPtrSet<const void *, 8> Renamed;
  for (auto [D, R] : B.Refs) {
    if (D != V || !After(R))
      continue;
    // A use in a macro's argument (`TORCH_CHECK(s.size(1) == g, ...)`) is
    // renamed where the argument spells it, once however often the macro
    // expands it; one in a macro's own body cannot be.
    SourceLocation Loc = R->getLocation();
    if (Loc.isMacroID()) {
      if (!SM.isMacroArgExpansion(Loc))
        return FixPlan::noFix("'" + V->getName().str() +
                              "' is used in a macro's body after the write");
      Loc = SM.getSpellingLoc(Loc);
    }
    if (!Loc.isFileID() || !SM.isWrittenInSameFile(Loc, Call->getBeginLoc()))
      return FixPlan::noFix("'" + V->getName().str() +
                            "' is used after the write where the kernel's "
                            "file does not spell it");
    if (!Renamed.insert(Loc.getPtrEncoding()).second)
      continue;
    // `m.t_()` after the write: a second write, which the rename would hide.
    if (const auto *ME =
            dyn_cast_or_null<MemberExpr>(parentPastImplicit(R, Ctx)))
      if (const auto *MD = dyn_cast<CXXMethodDecl>(ME->getMemberDecl());
          MD && MD->getIdentifier() && MD->getName().ends_with("_"))
        return FixPlan::noFix("'" + V->getName().str() +
                              "' is written again after the write");
    Edits.push_back(
        FixEdit::replace(CharSourceRange::getCharRange(
                             Loc, Loc.getLocWithOffset(V->getName().size())),
                         Name));
  }
  if (!Kernel->getBody()->getEndLoc().isFileID())
    return FixPlan::noFix("the kernel's body ends in a macro expansion");
  // Every spelling of V's name after the write must be a use renamed: one
  // the AST does not hold (a macro argument that expands to nothing, as
  // TORCH_INTERNAL_ASSERT_DEBUG_ONLY's in a release build) would keep the
  // old shape where another configuration compiles it.
  for (SourceLocation L :
       identifierSpellings(endOfToken(Call->getEndLoc(), Ctx),
                           Kernel->getBody()->getEndLoc(), V->getName(), Ctx))
    if (!Renamed.contains(L.getPtrEncoding()))
      return FixPlan::noFix("'" + V->getName().str() +
                            "' is spelled after the write where this build "
                            "does not use it (a macro argument that expands "
                            "to nothing here?)");
  return FixPlan::fix("metadata-to-local", std::move(Edits));
}

FixPlan planCopyWriteOutOfPlace(const Expr *Write, ASTContext &Ctx) {
  static const llvm::StringSet<> Methods = {
      "add_",       "sub_",       "mul_",    "div_",        "clamp_",
      "clamp_min_", "clamp_max_", "neg_",    "abs_",        "exp_",
      "log_",       "sqrt_",      "rsqrt_",  "pow_",        "relu_",
      "sigmoid_",   "tanh_",      "square_", "reciprocal_", "masked_fill_"};
  const auto *Call = dyn_cast<CXXMemberCallExpr>(Write);
  const CXXMethodDecl *M = Call ? Call->getMethodDecl() : nullptr;
  if (!M || !M->getIdentifier() || !Methods.contains(M->getName()))
    return FixPlan::noFix("the write has no out-of-place form here");
  const auto *Receiver = dyn_cast<CXXMemberCallExpr>(
      Call->getImplicitObjectArgument()->IgnoreImplicit());
  if (!Receiver || !copyingMethodOf(Receiver))
    return FixPlan::noFix("the write is not on the result of a conversion");
  // `m.to(at::kFloat).mul_(s);` alone writes for the write's sake: the
  // declaration is the remedy there.
  if (isStatement(Call, Ctx))
    return FixPlan::noFix("the write's value is not used: the write is "
                          "what the statement does");
  std::optional<FixEdit> Drop = dropUnderscore(Call, Ctx);
  if (!Drop)
    return FixPlan::noFix("the call comes from a macro expansion");
  return FixPlan::fix("copy-write-out-of-place", {*Drop});
}

// ---- write-back-copy, check-no-copy ---------------------------------------

namespace {
/// The longest line a write-into-copy fix writes.
constexpr size_t FixWidth = 80;

/// The spaces and tabs before Loc on its line; none when other text is
/// there (the statement does not start its line).
std::optional<std::string> lineIndent(SourceLocation Loc,
                                      const SourceManager &SM) {
  auto [File, Offset] = SM.getDecomposedLoc(Loc);
  StringRef Buffer = SM.getBufferData(File);
  size_t Start = Buffer.rfind('\n', Offset ? Offset - 1 : 0);
  Start = Start == StringRef::npos || Offset == 0 ? 0 : Start + 1;
  StringRef Before = Buffer.slice(Start, Offset);
  if (Before.find_first_not_of(" \t") != StringRef::npos)
    return std::nullopt;
  return Before.str();
}

/// The statement of a block (a direct child of a CompoundStmt) that holds S,
/// and that block.
std::pair<const Stmt *, const CompoundStmt *>
blockStatement(const Stmt *S, const ParentMap &PM) {
  for (const Stmt *P = PM.getParent(S); P; S = P, P = PM.getParent(P))
    if (const auto *B = dyn_cast<CompoundStmt>(P))
      return {S, B};
  return {nullptr, nullptr};
}

/// Whether S (outside lambdas) holds a jump that leaves the block early.
bool jumpsOut(const Stmt *S) {
  if (!S || isa<LambdaExpr>(S))
    return false;
  if (isa<ReturnStmt, GotoStmt, BreakStmt, ContinueStmt, CoreturnStmt>(S))
    return true;
  for (const Stmt *Child : S->children())
    if (jumpsOut(Child))
      return true;
  return false;
}

bool isMaybeOwned(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() && RD->getName() == "MaybeOwned";
}

/// `if (!c.is_alias_of(out)) out.copy_(c);` after the statement of the last
/// write, or why not.
FixPlan planWriteBack(const CopyWrite &W, const ParentMap &PM,
                      const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (!W.Local)
    return FixPlan::noFix("no local holds the copy");
  if (!W.Receiver)
    return FixPlan::noFix("the copy is not made of a named tensor a "
                          "write-back could name");
  const Expr *Init = W.Local->getInit();
  if (!Init || Init->IgnoreImplicit() != W.Copy->IgnoreImplicit())
    if (!Init || !llvm::is_contained(Init->IgnoreImplicit()->children(),
                                     static_cast<const Stmt *>(W.Copy)))
      return FixPlan::noFix("the local is not declared from the copy");
  // The local's declaration and the last write's statement, in one block.
  const Stmt *Decl = nullptr;
  for (const Stmt *P = PM.getParent(W.Copy); P; P = PM.getParent(P))
    if (isa<DeclStmt>(P)) {
      Decl = P;
      break;
    }
  auto [DeclStatement, Block] =
      Decl ? blockStatement(Decl, PM)
           : std::pair<const Stmt *, const CompoundStmt *>();
  if (!Block || DeclStatement != Decl)
    return FixPlan::noFix("the copy is not declared in a block");
  SourceLocation LastLoc = SM.getExpansionLoc(W.LastWrite->getBeginLoc());
  const Stmt *Last = nullptr;
  bool Seen = false;
  for (const Stmt *S : Block->body()) {
    if (S == Decl)
      Seen = true;
    if (!Seen)
      continue;
    SourceLocation B = SM.getExpansionLoc(S->getBeginLoc());
    SourceLocation E = SM.getExpansionRange(S->getEndLoc()).getEnd();
    if (jumpsOut(S) && S != Decl)
      return FixPlan::noFix("a return or jump between the copy and its last "
                            "write would skip a write-back");
    if (!SM.isBeforeInTranslationUnit(LastLoc, B) &&
        !SM.isBeforeInTranslationUnit(E, LastLoc)) {
      Last = S;
      break;
    }
  }
  if (!Last || Last == Decl)
    return FixPlan::noFix("the last write is not a statement of the copy's "
                          "block");
  SourceLocation End = SM.getExpansionRange(Last->getEndLoc()).getEnd();
  // Past the statement's `;` (an expression, a declaration, a loop or if
  // whose body is one), else past its last token (a `}`).
  SourceLocation After = Lexer::findLocationAfterToken(
      End, tok::semi, SM, Ctx.getLangOpts(), false);
  if (After.isInvalid())
    After = endOfToken(End, Ctx);
  if (After.isInvalid() || After.isMacroID())
    return FixPlan::noFix("the end of the last write's statement is not "
                          "found");
  std::optional<std::string> Indent =
      lineIndent(SM.getExpansionLoc(Last->getBeginLoc()), SM);
  if (!Indent || Indent->find('\t') != std::string::npos)
    return FixPlan::noFix("the last write's statement does not start its "
                          "line, or is indented with tabs");
  std::string L = W.Local->getName().str(), R = W.Receiver->getName().str();
  bool Owned = isMaybeOwned(W.Local->getType());
  std::string Source = Owned ? "*" + L : L;
  if (W.Method->Method == "reshape" || W.Method->Method == "flatten")
    Source += ".view_as(" + R + ")";
  std::string Test =
      "if (!" + L + (Owned ? "->" : ".") + "is_alias_of(" + R + "))";
  std::string Copy = R + ".copy_(" + Source + ");";
  // As clang-format's LLVM style lays out an if: its body on a line of its
  // own.
  std::string Text = "\n" + *Indent + Test + "\n" + *Indent + "  " + Copy;
  if (Indent->size() + 2 + std::max(Test.size(), Copy.size()) > FixWidth)
    return FixPlan::noFix("the write-back would not fit in 80 columns");
  FixPlan Plan =
      FixPlan::fix("write-back-copy", {FixEdit::insert(After, Text)});
  Plan.Notes.push_back("the write-back runs only where " +
                       W.Method->Method.str() +
                       "() made a copy (is_alias_of is false), so '" + R +
                       "' keeps accepting every input and receives the writes");
  return Plan;
}

/// `TORCH_CHECK(out.is_contiguous(), "...");` before the statement that
/// makes the copy, or why not.
FixPlan planCheckNoCopy(const CopyWrite &W, const ParentMap &PM,
                        const ASTContext &Ctx, const std::string &Why) {
  const SourceManager &SM = Ctx.getSourceManager();
  const auto *Ref = dyn_cast<DeclRefExpr>(
      libtorch::ignoreTensorWrappers(W.Copy->getImplicitObjectArgument()));
  if (!Ref || !W.Receiver || Ref->getDecl() != W.Receiver)
    return FixPlan::noFix(W.Receiver ? Why + ", and the copy is not made "
                                             "of a named tensor a check "
                                             "could test"
                                     : Why);
  std::string R = W.Receiver->getName().str();
  std::string Cond, Must;
  auto ArgText = [&](unsigned I) -> std::string {
    if (I >= W.Copy->getNumArgs())
      return "";
    return sourceText(W.Copy->getArg(I), Ctx).str();
  };
  switch (W.Method->Condition) {
  case ground_truth::CopyCondition::Layout:
    Cond = R + ".is_contiguous()";
    Must = "contiguous";
    break;
  case ground_truth::CopyCondition::MemoryFormat:
    if (ArgText(0).empty())
      return FixPlan::noFix(Why + ", and the memory format is not written");
    Cond = R + ".is_contiguous(" + ArgText(0) + ")";
    Must = "contiguous in " + ArgText(0);
    break;
  case ground_truth::CopyCondition::Dtype: {
    std::string D = ArgText(0);
    if (D.empty() || D.find('"') != std::string::npos)
      return FixPlan::noFix(Why + ", and the dtype is not written");
    const auto *TD =
        W.Copy->getArg(0)->IgnoreImpCasts()->getType()->getAsTagDecl();
    bool Meta = TD && TD->getIdentifier() && TD->getName() == "TypeMeta";
    Cond = R + (Meta ? ".dtype() == " : ".scalar_type() == ") + D;
    Must = "of dtype " + D;
    break;
  }
  case ground_truth::CopyCondition::Options:
    return FixPlan::noFix(Why + ", and to(options) may copy for several "
                                "reasons a check would have to list");
  case ground_truth::CopyCondition::Device:
    return FixPlan::noFix(Why + ", and a device move is not checked here");
  }
  auto [Statement, Block] = blockStatement(W.Copy, PM);
  if (!Statement)
    return FixPlan::noFix(Why + ", and the copy is not in a block");
  SourceLocation Begin = Statement->getBeginLoc();
  if (Begin.isMacroID())
    return FixPlan::noFix(Why + ", and the copy's statement starts in a "
                                "macro");
  std::optional<std::string> Indent = lineIndent(Begin, SM);
  if (!Indent || Indent->find('\t') != std::string::npos)
    return FixPlan::noFix(Why + ", and the copy's statement does not start "
                                "its line, or is indented with tabs");
  std::string Message = "\"'" + R + "' must be " + Must + "\"";
  std::string Text = "TORCH_CHECK(" + Cond + ", " + Message + ");";
  if (Indent->size() + Text.size() > FixWidth)
    Text = "TORCH_CHECK(" + Cond + ",\n" + *Indent + "            " + Message +
           ");";
  llvm::SmallVector<StringRef> Lines;
  std::string Written = *Indent + Text;
  StringRef(Written).split(Lines, '\n');
  for (StringRef Line : Lines)
    if (Line.size() > FixWidth)
      return FixPlan::noFix(Why + ", and a check would not fit in 80 "
                                  "columns");
  FixPlan Plan = FixPlan::fix("check-no-copy",
                              {FixEdit::insert(Begin, Text + "\n" + *Indent)});
  Plan.Notes.push_back("a check, not a write-back, because " + Why +
                       ": the operator then fails with an error where '" + R +
                       "' " + W.Method->When.str() +
                       ", instead of losing the write");
  return Plan;
}
} // namespace

FixPlan planWriteIntoCopy(const CopyWrite &W, const FunctionDecl *Function,
                          bool PartialWriteBack, const ASTContext &Ctx) {
  if (!Function || !Function->getBody() || !W.Copy || !W.Method || !W.LastWrite)
    return FixPlan::noFix("the copy's function has no body here");
  ParentMap PM(Function->getBody());
  FixPlan WriteBack = planWriteBack(W, PM, Ctx);
  if (WriteBack.hasFix()) {
    if (PartialWriteBack)
      WriteBack.Notes.push_back("the write-back already there runs on one "
                                "path only; this one runs on every path");
    return WriteBack;
  }
  return planCheckNoCopy(W, PM, Ctx, WriteBack.NoFixReason);
}

} // namespace torch_tidy

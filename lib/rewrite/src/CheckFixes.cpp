//===- CheckFixes.cpp - The fixes of the checks beside the flagship -------===//

#include "torch_tidy/rewrite/CheckFixes.h"
#include "torch_tidy/analysis/FullStatement.h"
#include "torch_tidy/analysis/SourceText.h"
#include "torch_tidy/libtorch/LibTorchApi.h"
#include "torch_tidy/rewrite/OutOfPlaceRewrite.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
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
    Why = Op.SchemaInferred
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

FixPlan planReturnClone(const ReturnStmt *Return, const ASTContext &Ctx) {
  const Expr *Value = Return->getRetValue();
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

} // namespace torch_tidy

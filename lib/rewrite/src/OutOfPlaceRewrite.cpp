//===- OutOfPlaceRewrite.cpp - In-place writes to out-of-place form -------===//
//
// Every rule rewrites `<write>;` into `t = <out-of-place expression>;`.
// Forms whose out-of-place twin has the same semantics (index_copy_,
// masked_scatter_, ...) just drop the trailing underscore. Sliced and indexed
// writes are expressed through *positions*: the same view chain or index list
// applied to `arange(t.numel()).view(t.sizes())` yields, in the written
// region's own shape and element order, the flat position of every element
// written, so `t.flatten().index_put({positions}, v)` writes exactly those
// elements, with the value broadcast as copy_ broadcasts it. That form is
// exact but long; writes through select, slice, narrow, subscripts and basic
// index lists get the short scatter forms instead (`t = t.select_scatter(v,
// 0, i)`), which a reviewer reads at a glance, and index lists of tensors
// get `t = t.index_put({...}, v)`, the seed's own workaround.
//
//===----------------------------------------------------------------------===//

#include "torch_tidy/rewrite/OutOfPlaceRewrite.h"
#include "torch_tidy/analysis/FullStatement.h"
#include "torch_tidy/analysis/SourceText.h"
#include "torch_tidy/libtorch/LibTorchApi.h"
#include "torch_tidy/rewrite/StatementLayout.h"
#include "torch_tidy/rules/RuleForms.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

#include <variant>

using namespace clang;

namespace torch_tidy {
namespace {

/// The namespace whose factories a rewrite calls: "torch" where the C++
/// frontend is declared (torch::arange), "at" where only ATen is, "" where
/// neither is. A fix spells only names the file can see.
StringRef factoryNamespace(ASTContext &Ctx) {
  auto Declares = [&](StringRef Ns) {
    for (const Decl *D :
         Ctx.getTranslationUnitDecl()->lookup(&Ctx.Idents.get(Ns)))
      if (const auto *N = dyn_cast<NamespaceDecl>(D))
        if (!N->lookup(&Ctx.Idents.get("arange")).empty())
          return true;
    return false;
  };
  if (Declares("torch"))
    return "torch";
  if (Declares("at"))
    return "at";
  return "";
}

class Planner {
public:
  Planner(const InPlaceWrite &W, const VarDecl *Target,
          FunctionRewriteContext &Function, ASTContext &Ctx,
          const FixOptions &Options, const CapturedWrite *Captured)
      : W(W), Target(Target), Function(Function), Ctx(Ctx),
        SM(Ctx.getSourceManager()), Style(Options.Style),
        Strict(Options.Strict), Version(Options.Version),
        ColumnLimit(Options.ColumnLimit), FactoryNs(factoryNamespace(Ctx)),
        Captured(Captured) {}

  FixPlan plan();

private:
  FixPlan planWrite();
  /// The edit that removes the named view's declaration, which the fix
  /// leaves unused (its only use was the write): its whole line(s) where
  /// nothing else is on them.
  std::optional<FixEdit> removeAliasDecl() const;
  FixPlan noFix(std::string Reason) {
    return FixPlan::noFix(std::move(Reason));
  }
  FixPlan fix(StringRef RuleId, std::string Text) {
    if (RuleId.starts_with("index-put-positions") && FactoryNs.empty())
      return noFix("neither torch::arange nor at::arange is declared in this "
                   "file; include <ATen/ATen.h> to get a fix");
    return FixPlan::fix(
        RuleId, {FixEdit::replace(
                    CharSourceRange::getTokenRange(W.Write->getSourceRange()),
                    layOut(std::move(Text)))});
  }
  std::string layOut(std::string Text) const;

  std::string text(SourceRange R) const { return sourceText(R, Ctx).str(); }
  std::string text(const Stmt *S) const { return text(S->getSourceRange()); }
  std::string textBetween(SourceLocation B, SourceLocation E) const {
    return sourceTextBetween(B, E, Ctx).str();
  }
  SourceLocation endOfToken(SourceLocation L) const {
    return torch_tidy::endOfToken(L, Ctx);
  }

  bool isTargetRef(const Expr *E) const {
    const auto *Ref =
        dyn_cast_or_null<DeclRefExpr>(libtorch::ignoreTensorWrappers(E));
    return Ref && Ref->getDecl() == Target;
  }
  const DeclRefExpr *chainRoot(const Expr *E) const;
  std::optional<std::string> chainSuffix(const Expr *Receiver) const;
  std::optional<std::string> acceptAlias(const VarDecl *A);
  std::pair<const Stmt *, const CompoundStmt *> writeInBlock() const;
  std::optional<std::string> viewObstacle(const VarDecl *V, bool FromTargetOnly,
                                          const DeclStmt *&Found) const;
  std::optional<std::string> rebindObstacle(const VarDecl *V,
                                            bool FromTargetOnly) const;
  std::optional<FixEdit> rebindViews() const;
  std::optional<std::string> lambdaObstacle() const;
  bool usedAsStatement() const;
  bool isSimpleValue(const Expr *E) const;

  std::string name() const { return Target->getName().str(); }
  /// Whether the target's class (or a base) declares a method Name: the
  /// scatter forms came with LibTorch 1.11.
  bool targetHasMethod(StringRef Name) const {
    const auto *RD =
        Target->getType().getNonReferenceType()->getAsCXXRecordDecl();
    if (!RD || !RD->hasDefinition())
      return false;
    IdentifierInfo &Id = Ctx.Idents.get(Name);
    bool Found = !RD->lookup(&Id).empty();
    RD->forallBases([&](const CXXRecordDecl *Base) {
      Found |= !Base->lookup(&Id).empty();
      return true;
    });
    return Found;
  }
  std::string positions() const {
    return (FactoryNs + "::arange(" + name() + ".numel(), " + name() +
            ".options().dtype(" + FactoryNs + "::kLong)).view(" + name() +
            ".sizes())")
        .str();
  }
  std::string viaPositions(const std::string &Suffix,
                           const std::string &Value) const {
    return name() + " = " + name() + ".flatten().index_put({" + positions() +
           Suffix + "}, " + Value + ").view(" + name() + ".sizes())";
  }
  std::string stripLeadingOnes(const Expr *Value) const {
    std::string V = text(Value);
    if (Version.modern())
      return V + ".view_symint(at::indexing::slicePrefix1sSize(" + V +
             ".sym_sizes()))";
    return V + ".view(at::indexing::slicePrefix1sSize(" + V + ".sizes()))";
  }
  /// setitem's value: stripped of leading size-1 dims unless its rank is
  /// proven no larger than the indexed result's (then index_put's own
  /// broadcasting gives the same values, and the strip is left out).
  std::string setItemValue(const Expr *Base,
                           llvm::ArrayRef<const Expr *> Elements) const {
    ShapeFacts &Facts = Function.shapes(Ctx);
    std::optional<unsigned> ValueRank = Facts.rank(W.Source, W.Write);
    if (ValueRank && *ValueRank == 0)
      return text(W.Source);
    if (ValueRank && !Elements.empty())
      if (std::optional<unsigned> Result =
              Facts.indexedRankLowerBound(Base, Elements, W.Write);
          Result && *ValueRank <= *Result)
        return text(W.Source);
    return stripLeadingOnes(W.Source);
  }
  /// The value cast to the target's dtype and device, as copy_ casts it;
  /// left as it is when it provably has them already.
  std::string castToTarget(const std::string &Value) const {
    if (Function.shapes(Ctx).sameOptions(W.Source, Target))
      return Value;
    return Value + ".to(" + name() + ".options())";
  }
  /// The text of E, parenthesised unless a member call can follow it.
  std::string postfixOperand(const Expr *E) const {
    return canTakeMemberCall(E) ? text(E) : "(" + text(E) + ")";
  }

  /// One view step a scatter form writes back through: `select(d, i)` or
  /// `slice(d, a, b, s)`.
  struct ScatterStep {
    bool Select;
    std::string Args; ///< the scatter call's arguments after the value
    std::string View; ///< the step as a view of its base: `[i]`, `.slice(..)`
  };
  /// Notes on narrow steps with a start that may be negative.
  mutable std::vector<std::string> NarrowNotes;
  /// Why the write is no chain of steps a scatter form can write back.
  using Obstacle = std::optional<std::string>;
  /// A select spelled another way: Base.select(Dim, Index), Dim 1 where null.
  struct FoldedSelect {
    const Expr *Base;
    const Expr *Dim;
    const Expr *Index;
  };
  std::optional<FoldedSelect> foldedSelect(const Expr *E) const;
  Obstacle scatterFormObstacle(llvm::ArrayRef<ScatterStep> Steps) const;
  std::string fromTarget(const std::string &Text) const;
  Obstacle scatterSteps(const Expr *Written,
                        std::vector<ScatterStep> &Steps) const;
  Obstacle indexSteps(llvm::ArrayRef<const Expr *> Elements,
                      std::vector<ScatterStep> &Steps) const;
  std::string scatterCall(const std::string &Base,
                          llvm::ArrayRef<ScatterStep> Steps,
                          const std::string &Value) const;
  /// The scatter fix of a write into Written (indexed by Elements when
  /// given, as setitem does), or why there is none.
  std::variant<FixPlan, std::string>
  planScatter(const Expr *Written,
              std::optional<llvm::ArrayRef<const Expr *>> Elements,
              const std::string &WrittenText, bool SetItem);
  /// The scatter form of a copy into W.Receiver (copy_, fill_, assignment),
  /// in the styles that use one; else nothing, and why in WhyNotShort.
  std::optional<FixPlan> shortCopyForm(std::string &WhyNotShort) {
    if (Style == FixStyle::IndexPut)
      return std::nullopt;
    auto P = planScatter(W.Receiver, std::nullopt, text(W.Receiver),
                         /*SetItem=*/false);
    if (auto *Plan = std::get_if<FixPlan>(&P))
      return *Plan;
    WhyNotShort = std::get<std::string>(P);
    return std::nullopt;
  }
  /// The general form, with a note saying why the short one was not used.
  FixPlan generalForm(FixPlan Plan, const std::string &WhyNotShort) const {
    if (Plan.hasFix() && Style != FixStyle::IndexPut)
      Plan.Notes.push_back("the general form: no short form for this write (" +
                           WhyNotShort + ")");
    return Plan;
  }

  FixPlan planTwin(StringRef RuleId);
  FixPlan planIndexPut();
  FixPlan planSetItem(const Expr *Object, const Expr *IndexArg);
  FixPlan planAssignIntoIndex(const Expr *Object, const Expr *IndexArg,
                              bool Subscript);
  FixPlan planViewCopy();
  FixPlan planViewArithmetic();

  const InPlaceWrite &W;
  const VarDecl *Target;
  FunctionRewriteContext &Function;
  ASTContext &Ctx;
  const SourceManager &SM;
  FixStyle Style;
  bool Strict; ///< see FixOptions::Strict
  LibTorchVersion Version;
  unsigned ColumnLimit;          ///< see FixOptions::ColumnLimit
  StringRef FactoryNs;           ///< see factoryNamespace
  const CapturedWrite *Captured; ///< the write is in a lambda; see plan()
  /// A named view of Target the write goes through, once accepted, and
  /// its declaration.
  const VarDecl *Alias = nullptr;
  const DeclStmt *AliasDecl = nullptr;
  std::string AliasPrefix; ///< its view chain after Target
  /// Views of Target read after the write, bound again after it.
  std::vector<const VarDecl *> Rebinds;
};

const DeclRefExpr *Planner::chainRoot(const Expr *E) const {
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(libtorch::viewChainRoot(E));
  return Ref && (Ref->getDecl() == Target || (Alias && Ref->getDecl() == Alias))
             ? Ref
             : nullptr;
}

/// The text of a view chain after its root variable: for
/// `m.select(0, 1).narrow(0, 0, n)` it is `.select(0, 1).narrow(0, 0, n)`.
std::optional<std::string> Planner::chainSuffix(const Expr *Receiver) const {
  const DeclRefExpr *Root = chainRoot(Receiver);
  if (!Root || Root->getBeginLoc() != Receiver->getBeginLoc())
    return std::nullopt;
  SourceLocation End = endOfToken(Receiver->getEndLoc());
  std::string Prefix = Root->getDecl() == Alias ? AliasPrefix : "";
  return Prefix + textBetween(endOfToken(Root->getEndLoc()), End);
}

/// The statement of the write's block that holds the write, and that block.
std::pair<const Stmt *, const CompoundStmt *> Planner::writeInBlock() const {
  ParentMap &Parents = Function.parents();
  const Stmt *S = W.Write;
  const Stmt *P = Parents.getParent(S);
  while (P && !isa<CompoundStmt>(P)) {
    S = P;
    P = Parents.getParent(P);
  }
  return {S, dyn_cast_or_null<CompoundStmt>(P)};
}

/// Why V, a local view of the target (Root: its chain starts at the target
/// or at the accepted alias), cannot be spelled again at the write: its
/// declaration `auto V = t.<chain>;` is not in the write's block before the
/// write, or V, the target or a variable its chain reads is mentioned in
/// between (the chain would then name other elements at the write).
std::optional<std::string> Planner::viewObstacle(const VarDecl *V,
                                                 bool FromTargetOnly,
                                                 const DeclStmt *&Found) const {
  std::string Why = "'" + V->getName().str() + "' is a view of '" + name() +
                    "' whose later use the rewrite would change";
  if (!V->hasInit() || V->getType()->isReferenceType() || !V->hasLocalStorage())
    return Why;
  const Expr *Init = libtorch::ignoreTensorWrappers(V->getInit());
  if (!libtorch::isViewProducingCall(Init))
    return Why;
  const DeclRefExpr *Root = chainRoot(Init);
  if (!Root || Root->getBeginLoc() != Init->getBeginLoc() ||
      (FromTargetOnly && Root->getDecl() != Target))
    return Why;
  auto [S, Block] = writeInBlock();
  if (!Block)
    return Why;
  // What the chain reads besides its root: indices, sizes.
  llvm::SmallPtrSet<const Decl *, 8> Watched = {V, Target};
  class Collect : public RecursiveASTVisitor<Collect> {
  public:
    explicit Collect(llvm::SmallPtrSetImpl<const Decl *> &Out) : Out(Out) {}
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      if (isa<VarDecl>(E->getDecl()))
        Out.insert(E->getDecl());
      return true;
    }
    llvm::SmallPtrSetImpl<const Decl *> &Out;
  } C(Watched);
  C.TraverseStmt(const_cast<Expr *>(Init));
  // The target may be read in between (a const method, `t.select(0, 1)`,
  // or an in-place one, whose write the view shares), not bound anew nor
  // given new sizes or storage (set_, resize_: const methods too).
  ParentMap &Parents = Function.parents();
  class Mentions : public RecursiveASTVisitor<Mentions> {
  public:
    Mentions(const llvm::SmallPtrSetImpl<const Decl *> &Of,
             const VarDecl *Target, ParentMap &Parents)
        : Of(Of), Target(Target), Parents(Parents) {}
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      Found |= Of.contains(E->getDecl()) &&
               !(E->getDecl() == Target && isConstMethodObject(E));
      return !Found;
    }
    bool isConstMethodObject(const Expr *E) const {
      const Stmt *P = Parents.getParent(E);
      while (P && isa<ImplicitCastExpr, ParenExpr>(P))
        P = Parents.getParent(P);
      const auto *Member = dyn_cast_or_null<MemberExpr>(P);
      if (!Member)
        return false;
      const auto *Call =
          dyn_cast_or_null<CXXMemberCallExpr>(Parents.getParent(Member));
      const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
      return Method && Method->isConst() && Method->getIdentifier() &&
             !libtorch::isMetadataWrite(Method->getName());
    }
    const llvm::SmallPtrSetImpl<const Decl *> &Of;
    const VarDecl *Target;
    ParentMap &Parents;
    bool Found = false;
  };
  bool Declared = false;
  for (const Stmt *Child : Block->body()) {
    if (Child == S)
      break;
    if (const auto *DS = dyn_cast<DeclStmt>(Child);
        DS && llvm::is_contained(DS->decls(), V)) {
      Declared = true;
      Found = DS;
      continue;
    }
    if (!Declared)
      continue;
    Mentions M(Watched, Target, Parents);
    M.TraverseStmt(const_cast<Stmt *>(Child));
    if (M.Found)
      return Why;
  }
  if (!Declared || Found->getBeginLoc().isMacroID() ||
      Found->getEndLoc().isMacroID())
    return Why;
  return std::nullopt;
}

/// Why V, a view of the target read after the write, cannot be bound again
/// to the same view of the rewritten target right after the write
/// (`out = out.select_scatter(...); plane = out.select(2, 1);`), which
/// keeps every later read and write of V on the target as before.
std::optional<std::string> Planner::rebindObstacle(const VarDecl *V,
                                                   bool FromTargetOnly) const {
  const DeclStmt *Decl = nullptr;
  if (std::optional<std::string> Why = viewObstacle(V, FromTargetOnly, Decl))
    return Why;
  std::string Why = "'" + V->getName().str() + "' is a view of '" + name() +
                    "' read after the write, and ";
  if (V->getType().isConstQualified())
    return Why + "const: it cannot be bound again to the rewritten '" + name() +
           "'";
  if (!libtorch::isTensorType(V->getType()))
    return Why + "not a Tensor: it cannot be bound again";
  // The write is a statement of the block itself, so a statement after it
  // runs right after it (not after an if or a loop it is the body of).
  auto [S, Block] = writeInBlock();
  const Stmt *Whole = W.Write;
  for (const Stmt *P = Function.parents().getParent(Whole);
       P && !isa<CompoundStmt>(P) && isa<Expr>(P);
       P = Function.parents().getParent(P))
    Whole = P;
  if (Whole != S)
    return Why + "the write is not a statement of its block: the view "
                 "cannot be bound again right after it";
  if (Captured)
    return Why + "the write is in a lambda";
  return std::nullopt;
}

/// A write through a named view, `auto row = t.select(0, i); row.copy_(v);`,
/// is rewritten into t when the view is a local of the same block, declared
/// from a view chain of t, and neither it, t nor what the chain reads is
/// mentioned between its declaration and the write. A view not mentioned
/// after the write goes with the fix; one read after it is bound again to
/// the same view of the rewritten t (else it would still show the old
/// tensor).
std::optional<std::string> Planner::acceptAlias(const VarDecl *A) {
  const DeclStmt *Decl = nullptr;
  if (std::optional<std::string> Why =
          viewObstacle(A, /*FromTargetOnly=*/true, Decl))
    return Why;
  if (Function.usedAfter(A, W.Write, SM)) {
    if (std::optional<std::string> Why =
            rebindObstacle(A, /*FromTargetOnly=*/true))
      return Why;
    Rebinds.push_back(A);
  }
  const Expr *Init = libtorch::ignoreTensorWrappers(A->getInit());
  const DeclRefExpr *Root = chainRoot(Init);
  Alias = A;
  AliasDecl = Decl;
  AliasPrefix =
      textBetween(endOfToken(Root->getEndLoc()), endOfToken(Init->getEndLoc()));
  return std::nullopt;
}

/// Text, the write's replacement, laid out within the column limit where
/// the write is a whole statement (`  t[0] = v;`, `  if (c) t[0] = v;`);
/// a write inside a larger expression as it is.
std::string Planner::layOut(std::string Text) const {
  SourceLocation Begin = W.Write->getBeginLoc();
  if (ColumnLimit == 0 || Begin.isMacroID() || W.Write->getEndLoc().isMacroID())
    return Text;
  std::optional<Token> Semi =
      Lexer::findNextToken(W.Write->getEndLoc(), SM, Ctx.getLangOpts());
  if (!Semi || Semi->isNot(tok::semi))
    return Text;
  bool Invalid = false;
  StringRef Buffer = SM.getBufferData(SM.getFileID(Begin), &Invalid);
  if (Invalid)
    return Text;
  unsigned B = SM.getFileOffset(Begin);
  size_t LineBegin = Buffer.rfind('\n', B);
  LineBegin = LineBegin == StringRef::npos ? 0 : LineBegin + 1;
  // Code after the `;` on its line (a one-line lambda's ` };`) stays after
  // the statement's last line; a comment there is the author's to place.
  unsigned S = SM.getFileOffset(Semi->getLocation()) + 1;
  StringRef After = Buffer.slice(S, Buffer.find('\n', S)).rtrim();
  if (After.ltrim().starts_with("//") || After.ltrim().starts_with("/*"))
    After = "";
  return layOutStatement(Text, Buffer.slice(LineBegin, B), ColumnLimit,
                         After.size());
}

/// The statements that bind the views in Rebinds again after the write, on
/// their own lines at the write's indentation: `\n  plane = out.select(2,
/// 1);`, each the view's own initializer as written.
std::optional<FixEdit> Planner::rebindViews() const {
  if (Rebinds.empty())
    return std::nullopt;
  std::optional<Token> Semi =
      Lexer::findNextToken(W.Write->getEndLoc(), SM, Ctx.getLangOpts());
  if (!Semi || Semi->isNot(tok::semi) || Semi->getLocation().isMacroID())
    return std::nullopt;
  SourceLocation Begin = W.Write->getBeginLoc();
  bool Invalid = false;
  StringRef Buffer = SM.getBufferData(SM.getFileID(Begin), &Invalid);
  if (Invalid)
    return std::nullopt;
  unsigned B = SM.getFileOffset(Begin), LineBegin = B;
  while (LineBegin > 0 &&
         (Buffer[LineBegin - 1] == ' ' || Buffer[LineBegin - 1] == '\t'))
    --LineBegin;
  if (LineBegin > 0 && Buffer[LineBegin - 1] != '\n')
    return std::nullopt; // something else before the write on its line
  std::string Indent = Buffer.slice(LineBegin, B).str(), Text;
  for (const VarDecl *V : Rebinds) {
    SourceRange R = V->getInit()->getSourceRange();
    if (R.getBegin().isMacroID() || R.getEnd().isMacroID())
      return std::nullopt;
    std::string Line =
        "\n" + Indent + V->getName().str() + " = " + text(R) + ";";
    // The form RewriteRules.def gives this part, which the verifier reads.
    if (!rules::is_named_view_rebind_line(Line, nullptr, nullptr))
      return std::nullopt;
    Text += Line;
  }
  return FixEdit::insert(endOfToken(Semi->getLocation()), Text);
}

namespace {
/// E's parent, above the implicit nodes that wrap a lambda or a reference
/// to it (casts, temporaries, copies of the closure).
const Stmt *explicitParent(const Stmt *E, ParentMap &Parents) {
  const Stmt *P = Parents.getParent(E);
  while (P && (isa<ImplicitCastExpr>(P) || isa<MaterializeTemporaryExpr>(P) ||
               isa<CXXBindTemporaryExpr>(P) || isa<ExprWithCleanups>(P) ||
               isa<ParenExpr>(P) ||
               (isa<CXXConstructExpr>(P) &&
                cast<CXXConstructExpr>(P)->getNumArgs() == 1)))
    P = Parents.getParent(P);
  return P;
}

/// A call of the closure: `lambda(...)` with E as the object.
bool isClosureCall(const Stmt *E, const Stmt *Parent) {
  const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(Parent);
  return Op && Op->getOperator() == OO_Call && Op->getNumArgs() > 0 &&
         Op->getArg(0)->IgnoreImplicit() == E;
}
} // namespace

/// Why an assignment written in the lambda would not do what the write did:
/// it would not reach the function's variable, or the lambda runs where the
/// function cannot be sure when (handed to code that may keep it or run it
/// on several threads at once, as at::parallel_for does).
std::optional<std::string> Planner::lambdaObstacle() const {
  if (Captured->Nested)
    return "the write is in a lambda inside another lambda";
  switch (Captured->How) {
  case CapturedWrite::ThroughView:
    return "the lambda does not capture '" + name() + "' itself" +
           (Captured->View ? ", only '" + Captured->View->getName().str() +
                                 "', a view of it"
                           : std::string());
  case CapturedWrite::ByValue:
    return "the lambda captures '" + name() +
           "' by value: an assignment there would not change '" + name() +
           "' outside it; capture it by reference to get a fix";
  case CapturedWrite::ByReference:
    break;
  }
  ParentMap &Parents = Function.parents();
  const LambdaExpr *L = Captured->Lambda;
  const Stmt *P = explicitParent(L, Parents);
  if (isClosureCall(L, P))
    return std::nullopt; // called where it is made
  const auto *DS = dyn_cast_or_null<DeclStmt>(P);
  const auto *Closure = DS && DS->isSingleDecl()
                            ? dyn_cast<VarDecl>(DS->getSingleDecl())
                            : nullptr;
  if (!Closure || !Closure->hasLocalStorage() ||
      Closure->getType()->isReferenceType()) {
    std::string Why = "the lambda is handed ";
    if (const auto *Call = dyn_cast_or_null<CallExpr>(P);
        Call && Call->getDirectCallee() &&
        Call->getDirectCallee()->getIdentifier())
      Why += "to '" + Call->getDirectCallee()->getName().str() + "' ";
    else
      Why += "on ";
    return Why + "and may run later or on several threads at once; rewrite "
                 "the write outside the lambda";
  }
  // A named closure: every use must be a call in this function.
  class Uses : public RecursiveASTVisitor<Uses> {
  public:
    Uses(const VarDecl *V, ParentMap &Parents) : V(V), Parents(Parents) {}
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      if (E->getDecl() == V && !isClosureCall(E, explicitParent(E, Parents)))
        Escapes = true;
      return true;
    }
    const VarDecl *V;
    ParentMap &Parents;
    bool Escapes = false;
  } U(Closure, Parents);
  U.TraverseStmt(const_cast<Stmt *>(Function.function()->getBody()));
  if (U.Escapes)
    return "'" + Closure->getName().str() +
           "' is used other than by calling it here, so the lambda may run "
           "later or on several threads at once; rewrite the write outside "
           "the lambda";
  return std::nullopt;
}

bool Planner::usedAsStatement() const {
  return isWholeStatement(W.Write, Function.parents());
}

/// Values the rewrite may read twice: variables and members.
bool Planner::isSimpleValue(const Expr *E) const {
  E = E->IgnoreParenImpCasts();
  if (isa<DeclRefExpr>(E) || isa<CXXThisExpr>(E))
    return true;
  if (const auto *M = dyn_cast<MemberExpr>(E))
    return !M->isArrow() || isa<CXXThisExpr>(M->getBase()->IgnoreImpCasts())
               ? isSimpleValue(M->getBase())
               : false;
  return false;
}

/// t.op_(args) -> t = t.op(args), for ops whose out-of-place twin has the
/// same semantics.
FixPlan Planner::planTwin(StringRef RuleId) {
  const auto *Call = dyn_cast<CXXMemberCallExpr>(W.Write);
  if (!Call || !isTargetRef(Call->getImplicitObjectArgument()))
    return noFix("writes of this form into a view of '" + name() +
                 "' are not rewritten");
  const auto *Callee =
      dyn_cast<MemberExpr>(Call->getCallee()->IgnoreImpCasts());
  if (!Callee)
    return noFix("the call's spelling is not understood");
  SourceLocation NameLoc = Callee->getMemberLoc();
  std::string Name = Callee->getMemberDecl()->getName().str();
  Name.pop_back(); // drop the trailing underscore
  return fix(RuleId, name() + " = " +
                         textBetween(W.Write->getBeginLoc(), NameLoc) + Name +
                         textBetween(endOfToken(NameLoc),
                                     endOfToken(W.Write->getEndLoc())));
}

namespace {
bool isListType(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() && RD->getName() == "List";
}
} // namespace

/// t.index_put_({...}, v): LibTorch's set_item, which strips leading
/// size-1 dims of v. Full slices and tensors only, straight into the target,
/// become index_put with nullopt for the full slices (the very call set_item
/// makes); basic lists on a chain of views become scatter forms; anything
/// else goes through positions.
FixPlan Planner::planSetItem(const Expr *Object, const Expr *IndexArg) {
  auto Elements = libtorch::indexListElements(IndexArg);
  if (isTargetRef(Object) && Elements && !Elements->empty()) {
    bool AllAdvanced = true, AnyTensor = false;
    std::string List;
    for (const Expr *E : *Elements) {
      libtorch::IndexElement K = libtorch::classifyIndexElement(E);
      AllAdvanced &= K != libtorch::IndexElement::Basic;
      AnyTensor |= K == libtorch::IndexElement::Tensor;
      if (!List.empty())
        List += ", ";
      List += K == libtorch::IndexElement::FullSlice ? Version.nullopt().str()
                                                     : text(E);
    }
    if (AllAdvanced && AnyTensor) {
      std::string Value = setItemValue(Object, *Elements);
      bool Stripped = Value != text(W.Source);
      if (Stripped && !Strict) {
        FixPlan Plan =
            fix("index-put-advanced", name() + " = " + name() + ".index_put({" +
                                          List + "}, " + text(W.Source) + ")");
        Plan.Notes.push_back(
            "the fix assumes '" + text(W.Source) +
            "' has no more leading size-1 dims than the indexed result: "
            "setitem strips them, index_put throws on them (StrictFixes: "
            "true keeps the strip)");
        return Plan;
      }
      if (Stripped && !isSimpleValue(W.Source))
        return noFix("the value is an expression the rewrite would evaluate "
                     "twice; store it in a variable to get a fix");
      return fix("index-put-advanced", name() + " = " + name() +
                                           ".index_put({" + List + "}, " +
                                           Value + ")");
    }
  }
  std::string WhyNotShort =
      Strict ? "setitem's strip of leading size-1 dims needs the general "
               "form (StrictFixes: true)"
             : "";
  if (!Strict && Style != FixStyle::IndexPut && Elements) {
    auto P = planScatter(Object, llvm::ArrayRef<const Expr *>(*Elements),
                         text(Object) + ".index(" + text(IndexArg) + ")",
                         /*SetItem=*/true);
    if (auto *Plan = std::get_if<FixPlan>(&P))
      return *Plan;
    WhyNotShort = std::get<std::string>(P);
  } else if (!Elements) {
    WhyNotShort = "the index list is not spelled out here";
  }
  if (!isSimpleValue(W.Source))
    return noFix("the value is an expression the rewrite would evaluate "
                 "twice; store it in a variable to get a fix");
  std::optional<std::string> Suffix = chainSuffix(Object);
  if (!Suffix)
    return noFix("the written tensor is not a view chain of '" + name() + "'");
  std::string Value =
      setItemValue(Object, Elements ? llvm::ArrayRef<const Expr *>(*Elements)
                                    : llvm::ArrayRef<const Expr *>());
  return generalForm(
      fix("index-put-positions-setitem",
          viaPositions(*Suffix + ".index(" + text(IndexArg) + ")",
                       castToTarget(Value))),
      WhyNotShort);
}

/// t.index({...}) = v and t[i] = v: Tensor::operator=(...) && is copy_ into
/// the indexed view (no stripping, with casting).
FixPlan Planner::planAssignIntoIndex(const Expr *Object, const Expr *IndexArg,
                                     bool Subscript) {
  if (!Subscript && !libtorch::indexListElements(IndexArg))
    return noFix("the index list is not spelled out here, so it may hold "
                 "tensors (which make index() a copy)");
  std::string WhyNotShort;
  if (std::optional<FixPlan> Short = shortCopyForm(WhyNotShort))
    return *Short;
  std::optional<std::string> Suffix = chainSuffix(Object);
  if (!Suffix)
    return noFix("the written tensor is not a view chain of '" + name() + "'");
  std::string Index =
      Subscript ? "[" + text(IndexArg) + "]" : ".index(" + text(IndexArg) + ")";
  return generalForm(fix("index-put-positions-copy",
                         viaPositions(*Suffix + Index,
                                      castToTarget(postfixOperand(W.Source)))),
                     WhyNotShort);
}

FixPlan Planner::planIndexPut() {
  const auto *Call = cast<CallExpr>(W.Write);
  if (!isa<CXXMemberCallExpr>(Call)) {
    // at::index_put_(t, list, v[, acc]) -> t = at::index_put(t, ...).
    const auto *Ref =
        dyn_cast<DeclRefExpr>(Call->getCallee()->IgnoreImpCasts());
    if (!Ref || !isTargetRef(Call->getArg(0)))
      return noFix("the written tensor is not '" + name() + "' itself");
    SourceLocation NameLoc = Ref->getLocation();
    return fix(
        "index-put-list",
        name() + " = " + textBetween(W.Write->getBeginLoc(), NameLoc) +
            "index_put" +
            textBetween(endOfToken(NameLoc), endOfToken(W.Write->getEndLoc())));
  }
  const auto *MC = cast<CXXMemberCallExpr>(Call);
  if (isListType(MC->getArg(0)->getType()))
    return planTwin("index-put-list");
  return planSetItem(MC->getImplicitObjectArgument(), MC->getArg(0));
}

namespace {
std::string joinArgs(llvm::ArrayRef<std::string> Parts) {
  std::string S;
  for (const std::string &P : Parts)
    S += (S.empty() ? "" : ", ") + P;
  return S;
}

/// E under its implicit conversions to an index type (TensorIndex,
/// optional<SymInt>, SymInt...): what was written.
const Expr *underConversions(const Expr *E) {
  while (true) {
    E = E->IgnoreImplicit();
    if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E)) {
      E = B->getSubExpr();
      continue;
    }
    if (const auto *C = dyn_cast<CXXConstructExpr>(E);
        C && C->getNumArgs() == 1 && !isa<CXXTemporaryObjectExpr>(C)) {
      E = C->getArg(0);
      continue;
    }
    break;
  }
  return E;
}

/// Whether E is LibTorch's None (a nullopt_t), under its conversions.
bool isNone(const Expr *E) {
  E = underConversions(E);
  const auto *RD = E->getType().getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() && RD->getName() == "nullopt_t";
}

/// Whether E, under its conversions to an index type, has no side effects:
/// nothing that definitely has one (`i++`, `i = j`), and no call but a
/// Tensor's shape accessors (`v.size(0)`, `v.numel()`, ...), which a fix may
/// evaluate twice.
bool isPure(const Expr *E, const ASTContext &Ctx) {
  E = underConversions(E);
  if (E->HasSideEffects(Ctx, /*IncludePossibleEffects=*/false))
    return false;
  class Calls : public RecursiveASTVisitor<Calls> {
  public:
    bool VisitCallExpr(CallExpr *Call) {
      const auto *M = dyn_cast<CXXMemberCallExpr>(Call);
      const CXXMethodDecl *MD = M ? M->getMethodDecl() : nullptr;
      static const llvm::StringSet<> Accessors = {
          "size",   "sizes",   "numel",    "dim",       "ndimension",
          "stride", "strides", "sym_size", "sym_numel", "sym_sizes"};
      OnlyAccessors &=
          MD && MD->getIdentifier() && MD->isConst() &&
          Accessors.contains(MD->getName()) &&
          libtorch::isTensorType(M->getImplicitObjectArgument()->getType());
      return OnlyAccessors;
    }
    bool OnlyAccessors = true;
  } C;
  C.TraverseStmt(const_cast<Expr *>(E));
  return C.OnlyAccessors;
}

/// Whether `A + B` can be written without parentheses around B.
bool isPostfixOrLiteral(const Expr *E) {
  E = E->IgnoreImplicit();
  return isa<IntegerLiteral>(E) || canTakeMemberCall(E);
}

/// E as a call of the Tensor method Name, else null.
const CXXMemberCallExpr *methodCall(const Expr *E, StringRef Name) {
  const auto *Call =
      dyn_cast<CXXMemberCallExpr>(libtorch::ignoreTensorWrappers(E));
  const CXXMethodDecl *MD = Call ? Call->getMethodDecl() : nullptr;
  return MD && MD->getIdentifier() && MD->getName() == Name &&
                 libtorch::isTensorType(
                     Call->getImplicitObjectArgument()->getType())
             ? Call
             : nullptr;
}

/// The arguments Call spells (those before its defaulted ones).
llvm::SmallVector<const Expr *, 4> spelledArgs(const CallExpr *Call) {
  llvm::SmallVector<const Expr *, 4> Out;
  for (const Expr *A : Call->arguments()) {
    if (isa<CXXDefaultArgExpr>(A))
      break;
    Out.push_back(A);
  }
  return Out;
}

/// The value of an integer constant expression under its conversions.
std::optional<int64_t> integerValue(const Expr *E, const ASTContext &Ctx) {
  E = underConversions(E);
  Expr::EvalResult R;
  if (E->isValueDependent() || !E->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  return R.Val.getInt().getSExtValue();
}
} // namespace

/// A select spelled another way, folded before the fix picks its form:
/// `slice(d, i, i + 1).squeeze(d)` (literal i >= 0) and
/// `narrow(d, i, 1).squeeze(d)` are `select(d, i)`; `transpose(0, 1)[k]`,
/// `t()[k]` of a 2-D tensor and their `.select(0, k)` are `select(1, k)`.
std::optional<Planner::FoldedSelect>
Planner::foldedSelect(const Expr *E) const {
  auto SameDim = [&](const Expr *A, const Expr *B) {
    std::optional<int64_t> X = integerValue(A, Ctx), Y = integerValue(B, Ctx);
    if (X || Y)
      return X == Y;
    return text(underConversions(A)) == text(underConversions(B));
  };
  if (const CXXMemberCallExpr *Squeeze = methodCall(E, "squeeze")) {
    auto Dim = spelledArgs(Squeeze);
    if (Dim.size() != 1)
      return std::nullopt;
    const Expr *Inner = Squeeze->getImplicitObjectArgument();
    if (const CXXMemberCallExpr *Slice = methodCall(Inner, "slice")) {
      auto A = spelledArgs(Slice);
      if (A.size() < 3 || A.size() > 4 || !SameDim(A[0], Dim[0]) ||
          (A.size() == 4 && integerValue(A[3], Ctx) != 1))
        return std::nullopt;
      std::optional<int64_t> Start = integerValue(A[1], Ctx);
      std::optional<int64_t> End = integerValue(A[2], Ctx);
      if (!Start || !End || *Start < 0 || *End != *Start + 1)
        return std::nullopt;
      return FoldedSelect{Slice->getImplicitObjectArgument(), A[0], A[1]};
    }
    if (const CXXMemberCallExpr *Narrow = methodCall(Inner, "narrow")) {
      auto A = spelledArgs(Narrow);
      if (A.size() != 3 || !SameDim(A[0], Dim[0]) ||
          integerValue(A[2], Ctx) != 1)
        return std::nullopt;
      return FoldedSelect{Narrow->getImplicitObjectArgument(), A[0], A[1]};
    }
    return std::nullopt;
  }
  const Expr *Object = nullptr, *Index = nullptr;
  const Expr *Core = libtorch::ignoreTensorWrappers(E);
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Core);
      Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2 &&
      !libtorch::isTensorType(Op->getArg(1)->getType())) {
    Object = Op->getArg(0);
    Index = Op->getArg(1);
  } else if (const CXXMemberCallExpr *Select = methodCall(E, "select")) {
    auto A = spelledArgs(Select);
    if (A.size() == 2 && integerValue(A[0], Ctx) == 0) {
      Object = Select->getImplicitObjectArgument();
      Index = A[1];
    }
  }
  if (!Object)
    return std::nullopt;
  if (const CXXMemberCallExpr *T = methodCall(Object, "t")) {
    const Expr *Base = T->getImplicitObjectArgument();
    if (Function.shapes(Ctx).rank(Base, W.Write) != 2u)
      return std::nullopt;
    return FoldedSelect{Base, nullptr, Index};
  }
  if (const CXXMemberCallExpr *T = methodCall(Object, "transpose")) {
    auto A = spelledArgs(T);
    std::optional<int64_t> D0 =
        A.size() == 2 ? integerValue(A[0], Ctx) : std::nullopt;
    std::optional<int64_t> D1 =
        A.size() == 2 ? integerValue(A[1], Ctx) : std::nullopt;
    if (D0 && D1 && ((*D0 == 0 && *D1 == 1) || (*D0 == 1 && *D1 == 0)))
      return FoldedSelect{T->getImplicitObjectArgument(), nullptr, Index};
  }
  return std::nullopt;
}

/// The steps of Written, a view chain of the target: select, slice, narrow,
/// integer subscripts and basic index() lists. The steps' arguments are
/// spelled twice in a nested scatter (and in StrictFixes' expand_as), so
/// only side-effect-free ones are accepted.
Planner::Obstacle Planner::scatterSteps(const Expr *Written,
                                        std::vector<ScatterStep> &Steps) const {
  const Expr *E = libtorch::ignoreTensorWrappers(Written);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (Ref->getDecl() == Target)
      return std::nullopt;
    if (Alias && Ref->getDecl() == Alias)
      return scatterSteps(Alias->getInit(), Steps);
    return "the written tensor is not a view chain of '" + name() + "'";
  }
  auto Pure = [&](const Expr *A) { return isPure(A, Ctx); };
  const std::string Impure =
      "an index of the view has side effects, and the scatter form would "
      "evaluate it twice";
  // A select spelled as a one-element slice or narrow and a squeeze, or as
  // a subscript of a transpose: one select step.
  if (std::optional<FoldedSelect> F = foldedSelect(E)) {
    if (Obstacle Why = scatterSteps(F->Base, Steps))
      return Why;
    if ((F->Dim && !Pure(F->Dim)) || !Pure(F->Index))
      return Impure;
    std::string Args = (F->Dim ? text(underConversions(F->Dim)) : "1") + ", " +
                       text(underConversions(F->Index));
    Steps.push_back({true, Args, ".select(" + Args + ")"});
    return std::nullopt;
  }
  // unsqueeze(d).squeeze(d) is the tensor itself.
  if (const CXXMemberCallExpr *Squeeze = methodCall(E, "squeeze"))
    if (const CXXMemberCallExpr *Unsqueeze =
            methodCall(Squeeze->getImplicitObjectArgument(), "unsqueeze")) {
      auto A = spelledArgs(Squeeze), B = spelledArgs(Unsqueeze);
      std::optional<int64_t> D =
          A.size() == 1 ? integerValue(A[0], Ctx) : std::nullopt;
      if (D && B.size() == 1 && integerValue(B[0], Ctx) == D)
        return scatterSteps(Unsqueeze->getImplicitObjectArgument(), Steps);
    }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2) {
    const Expr *I = Op->getArg(1);
    if (libtorch::isTensorType(I->getType()))
      return "a subscript by a tensor has no scatter form";
    if (Obstacle Why = scatterSteps(Op->getArg(0), Steps))
      return Why;
    if (!Pure(I))
      return Impure;
    Steps.push_back({true, "0, " + text(I), "[" + text(I) + "]"});
    return std::nullopt;
  }
  const auto *Call = dyn_cast<CXXMemberCallExpr>(E);
  const CXXMethodDecl *MD = Call ? Call->getMethodDecl() : nullptr;
  if (!MD || !MD->getIdentifier())
    return "the written tensor is not a view chain of '" + name() + "'";
  StringRef Method = MD->getName();
  if (Method != "select" && Method != "slice" && Method != "narrow" &&
      Method != "index")
    return "'" + Method.str() + "' has no scatter form";
  if (Obstacle Why = scatterSteps(Call->getImplicitObjectArgument(), Steps))
    return Why;
  if (Method == "index") {
    auto Elements = Call->getNumArgs() == 1
                        ? libtorch::indexListElements(Call->getArg(0))
                        : std::nullopt;
    if (!Elements)
      return std::string("the index list is not spelled out here");
    return indexSteps(*Elements, Steps);
  }
  std::vector<std::string> Args;
  std::vector<const Expr *> ArgExprs;
  for (const Expr *A : Call->arguments()) {
    if (isa<CXXDefaultArgExpr>(A))
      break;
    if (!Pure(A))
      return Impure;
    Args.push_back(text(A));
    ArgExprs.push_back(A);
  }
  std::string View =
      textBetween(endOfToken(Call->getImplicitObjectArgument()->getEndLoc()),
                  endOfToken(Call->getEndLoc()));
  if (Method == "select" && Args.size() == 2) {
    Steps.push_back({true, joinArgs(Args), View});
    return std::nullopt;
  }
  if (Method == "slice") {
    Steps.push_back({false, joinArgs(Args), View});
    return std::nullopt;
  }
  if (Method == "narrow" && Args.size() == 3) {
    // narrow(d, a, n) is slice(d, a, a + n) for a >= 0; for a < 0 the two
    // differ only where a + n == 0, an empty slice, and slice_scatter then
    // throws on the value's size. StrictFixes wants a literal start.
    const auto *Start = dyn_cast<IntegerLiteral>(ArgExprs[1]->IgnoreImplicit());
    const auto *Length =
        dyn_cast<IntegerLiteral>(ArgExprs[2]->IgnoreImplicit());
    if (Strict && !Start)
      return std::string("narrow's start is not a literal, so it may be "
                         "negative (StrictFixes: true)");
    std::string End;
    if (Start && Start->getValue() == 0)
      End = Args[2];
    else if (Start && Length)
      End = std::to_string(Start->getValue().getZExtValue() +
                           Length->getValue().getZExtValue());
    else
      End = Args[1] + " + " +
            (isPostfixOrLiteral(ArgExprs[2]) ? Args[2] : "(" + Args[2] + ")");
    Steps.push_back({false, Args[0] + ", " + Args[1] + ", " + End, View});
    if (!Start)
      NarrowNotes.push_back("narrow(" + Args[0] + ", " + Args[1] + ", " +
                            Args[2] + ") is written as the slice from " +
                            Args[1] + " to " + End +
                            ": the same region unless " + Args[1] +
                            " is negative and the slice ends at 0, where "
                            "slice_scatter throws");
    return std::nullopt;
  }
  return "this '" + Method.str() + "' call is not understood";
}

/// The steps of a basic index list (integers, slices, full slices and one
/// Ellipsis), as select and slice steps. Dims before the Ellipsis count
/// from the front; after it from the back, which the scatter forms accept
/// as negative dims.
Planner::Obstacle Planner::indexSteps(llvm::ArrayRef<const Expr *> Elements,
                                      std::vector<ScatterStep> &Steps) const {
  enum Kind { Int, Slice, Full, Ellipsis };
  std::vector<Kind> Kinds;
  std::vector<const CXXConstructExpr *> Slices;
  for (const Expr *E : Elements) {
    const Expr *Core = E->IgnoreImplicit();
    if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(Core))
      Core = B->getSubExpr()->IgnoreImplicit();
    const auto *Ctor = dyn_cast<CXXConstructExpr>(Core);
    if (!Ctor || Ctor->getNumArgs() != 1)
      return std::string("an index element is not understood");
    const Expr *Arg = Ctor->getArg(0)->IgnoreImplicit();
    QualType T = Arg->getType().getNonReferenceType();
    if (libtorch::isTensorType(T))
      return std::string("the index list mixes tensors with integers or "
                         "slices");
    const auto *RD = T->getAsCXXRecordDecl();
    StringRef Record = RD && RD->getIdentifier() ? RD->getName() : StringRef();
    const CXXConstructExpr *SliceCtor = nullptr;
    if (Record == "Slice") {
      SliceCtor =
          dyn_cast<CXXConstructExpr>(libtorch::ignoreTensorWrappers(Arg));
      if (!SliceCtor)
        return std::string("a Slice is not spelled out here");
      bool AllDefault = llvm::all_of(SliceCtor->arguments(), [](const Expr *A) {
        return isa<CXXDefaultArgExpr>(A) || isNone(A);
      });
      Kinds.push_back(AllDefault ? Full : Slice);
    } else if (Record == "EllipsisIndexType" ||
               (T->isPointerType() || T->isArrayType())) {
      Kinds.push_back(Ellipsis);
    } else if (Record == "nullopt_t") {
      return std::string("None in the index list adds a dim");
    } else if (T->isBooleanType()) {
      return std::string("a boolean index adds a dim");
    } else if (T->isIntegerType()) {
      Kinds.push_back(Int);
    } else {
      return std::string("an index element is not understood");
    }
    Slices.push_back(SliceCtor);
  }
  if (llvm::count(Kinds, Ellipsis) > 1)
    return std::string("the index list has two Ellipses");
  auto EllipsisAt = llvm::find(Kinds, Ellipsis);
  std::int64_t After =
      EllipsisAt == Kinds.end() ? 0 : Kinds.end() - EllipsisAt - 1;
  std::int64_t Dim = 0; // before the Ellipsis: the dim in the current view
  bool PastEllipsis = false;
  for (size_t I = 0; I < Kinds.size(); ++I) {
    if (Kinds[I] == Ellipsis) {
      PastEllipsis = true;
      continue;
    }
    std::string D =
        PastEllipsis ? "-" + std::to_string(After--) : std::to_string(Dim);
    if (Kinds[I] == Full) {
      ++Dim;
      continue;
    }
    if (Kinds[I] == Int) {
      const Expr *Ctor =
          Elements[I]; // the element as written, e.g. `-1` or `row`
      if (!isPure(Ctor, Ctx))
        return std::string("an index of the view has side effects, and the "
                           "scatter form would evaluate it twice");
      std::string Args = D + ", " + text(Ctor);
      Steps.push_back(
          {true, Args,
           D == "0" ? "[" + text(Ctor) + "]" : ".select(" + Args + ")"});
      continue;
    }
    // Slice(start, stop, step): None start is 0 (steps are positive), a
    // None stop is the end (std::nullopt, or left out when last).
    std::optional<std::string> Bound[3];
    for (unsigned K = 0; K < 3 && K < Slices[I]->getNumArgs(); ++K) {
      const Expr *A = Slices[I]->getArg(K);
      if (isa<CXXDefaultArgExpr>(A) || isNone(A))
        continue;
      if (!isPure(A, Ctx))
        return std::string("an index of the view has side effects, and the "
                           "scatter form would evaluate it twice");
      Bound[K] = text(A);
    }
    std::vector<std::string> Parts = {D, Bound[0].value_or("0")};
    if (Bound[1] || Bound[2])
      Parts.push_back(Bound[1].value_or(Version.nullopt().str()));
    if (Bound[2])
      Parts.push_back(*Bound[2]);
    std::string Args = joinArgs(Parts);
    Steps.push_back({false, Args, ".slice(" + Args + ")"});
    ++Dim;
  }
  return std::nullopt;
}

std::string Planner::scatterCall(const std::string &Base,
                                 llvm::ArrayRef<ScatterStep> Steps,
                                 const std::string &Value) const {
  const ScatterStep &S = Steps.front();
  std::string Inner =
      Steps.size() == 1 ? Value
                        : scatterCall(Base + S.View, Steps.drop_front(), Value);
  return Base + (S.Select ? ".select_scatter(" : ".slice_scatter(") + Inner +
         (S.Args.empty() ? "" : ", " + S.Args) + ")";
}

/// Why the scatter forms cannot write back through Steps, if they cannot.
Planner::Obstacle
Planner::scatterFormObstacle(llvm::ArrayRef<ScatterStep> Steps) const {
  if (Steps.empty())
    return std::string("the write covers all of '" + name() + "'");
  for (const ScatterStep &S : Steps)
    if (!targetHasMethod(S.Select ? "select_scatter" : "slice_scatter"))
      return std::string("this LibTorch has no ") +
             (S.Select ? "select_scatter" : "slice_scatter");
  if (Steps.size() > 2)
    return "the write goes through " + std::to_string(Steps.size()) +
           " views; the scatter forms nest two at most";
  return std::nullopt;
}

/// Text written from the accepted named view, spelled from the target
/// instead: the view's declaration goes with the fix, so its name may not
/// appear in the fix (`top` -> `buf.slice(0, 0, 1).squeeze(0)`).
std::string Planner::fromTarget(const std::string &Text) const {
  StringRef T(Text);
  if (!Alias || !T.starts_with(Alias->getName()))
    return Text;
  StringRef Rest = T.drop_front(Alias->getName().size());
  if (!Rest.empty() && (isAlphanumeric(Rest.front()) || Rest.front() == '_'))
    return Text;
  return name() + AliasPrefix + Rest.str();
}

/// `t = t.select_scatter(v, d, i);`, `t = t.slice_scatter(v, d, a, b, s);`,
/// or two of them nested, `t = t.select_scatter(t[i].slice_scatter(v, 0, a,
/// b), 0, i);`. The scatter forms cast the value as copy_ does, but take it
/// only in the written region's exact shape: the default passes the value
/// as written (a value that copy_ or setitem would broadcast or strip makes
/// the fix throw, never compute something else) and says so; StrictFixes
/// broadcasts it with expand_as (and casts it, for the gradient's device).
std::variant<FixPlan, std::string>
Planner::planScatter(const Expr *Written,
                     std::optional<llvm::ArrayRef<const Expr *>> Elements,
                     const std::string &WrittenText, bool SetItem) {
  std::vector<ScatterStep> Steps;
  NarrowNotes.clear();
  if (Obstacle Why = scatterSteps(Written, Steps))
    return *Why;
  if (Elements)
    if (Obstacle Why = indexSteps(*Elements, Steps))
      return *Why;
  if (Obstacle Why = scatterFormObstacle(Steps))
    return *Why;
  bool Fill = W.Kind == WriteKind::Fill;
  if (Fill && !libtorch::isTensorType(W.Source->getType()))
    return std::string("the fill value is not a tensor");
  std::string ViewText = fromTarget(WrittenText);
  std::string Value = text(W.Source);
  std::vector<std::string> Notes;
  if (Strict)
    Value =
        castToTarget(postfixOperand(W.Source)) + ".expand_as(" + ViewText + ")";
  else if (Fill) // fill_ takes a 0-dim value
    Value = postfixOperand(W.Source) + ".expand_as(" + ViewText + ")";
  else
    Notes.push_back("the fix assumes '" + Value + "' has the shape of '" +
                    ViewText + "': " +
                    (Steps.size() == 2 ? "the scatter forms"
                     : Steps[0].Select ? "select_scatter"
                                       : "slice_scatter") +
                    " throw" + (Steps.size() == 2 ? "" : "s") + " where " +
                    (SetItem ? "setitem" : "copy_") + " would " +
                    (SetItem ? "strip or broadcast" : "broadcast") +
                    " it (StrictFixes: true keeps the broadcast)");
  std::string Text = name() + " = " + scatterCall(name(), Steps, Value);
  FixPlan Plan = Steps.size() == 2 ? fix("scatter-nested", Text)
                 : Steps[0].Select ? fix("select-scatter", Text)
                                   : fix("slice-scatter", Text);
  Plan.Notes = std::move(Notes);
  llvm::append_range(Plan.Notes, NarrowNotes);
  return Plan;
}

/// copy_, fill_ and assignment into a view chain of t.
FixPlan Planner::planViewCopy() {
  std::string WhyNotShort;
  if (std::optional<FixPlan> Short = shortCopyForm(WhyNotShort))
    return *Short;
  std::optional<std::string> Suffix = chainSuffix(W.Receiver);
  if (!Suffix)
    return noFix("writes through a named view of '" + name() +
                 "' are not rewritten");
  return generalForm(
      fix("index-put-positions-copy",
          viaPositions(*Suffix, castToTarget(postfixOperand(W.Source)))),
      WhyNotShort);
}

std::optional<FixEdit> Planner::removeAliasDecl() const {
  if (!AliasDecl || !AliasDecl->isSingleDecl() ||
      AliasDecl->getBeginLoc().isMacroID() ||
      AliasDecl->getEndLoc().isMacroID())
    return std::nullopt;
  SourceLocation Begin = AliasDecl->getBeginLoc();
  SourceLocation End = endOfToken(AliasDecl->getEndLoc());
  bool Invalid = false;
  StringRef Buffer = SM.getBufferData(SM.getFileID(Begin), &Invalid);
  if (Invalid)
    return std::nullopt;
  unsigned B = SM.getFileOffset(Begin), E = SM.getFileOffset(End);
  unsigned LineBegin = B;
  while (LineBegin > 0 &&
         (Buffer[LineBegin - 1] == ' ' || Buffer[LineBegin - 1] == '\t'))
    --LineBegin;
  unsigned LineEnd = E;
  while (LineEnd < Buffer.size() &&
         (Buffer[LineEnd] == ' ' || Buffer[LineEnd] == '\t'))
    ++LineEnd;
  // Only spaces before it on its first line and after it on its last: its
  // lines go. The removal runs from the statement to the next line's first
  // token where that line is indented alike (the next line then starts
  // where the statement did), else from the line break before it.
  // clang's fix-it merging drops a space on either side of a removal that
  // leaves two whitespace characters together, so neither edge may.
  if (LineBegin > 0 && Buffer[LineBegin - 1] == '\n' &&
      LineEnd < Buffer.size() && Buffer[LineEnd] == '\n') {
    unsigned Next = LineEnd + 1;
    while (Next < Buffer.size() &&
           (Buffer[Next] == ' ' || Buffer[Next] == '\t'))
      ++Next;
    if (Next < Buffer.size() && Buffer[Next] != '\n' &&
        Buffer.slice(LineEnd + 1, Next) == Buffer.slice(LineBegin, B)) {
      E = Next;
    } else {
      B = LineBegin - 1;
      E = LineEnd;
    }
  }
  SourceLocation FileStart = SM.getLocForStartOfFile(SM.getFileID(Begin));
  return FixEdit::replace(
      CharSourceRange::getCharRange(FileStart.getLocWithOffset(B),
                                    FileStart.getLocWithOffset(E)),
      "");
}

/// view.add_(v), view.sub_(v), view.mul_(v), view.div_(v), view.clamp_(min)
/// (or view += v, -=, *=, /=) through a view chain of t: the scatter of the
/// view's out-of-place result,
/// `t = t.slice_scatter(t.narrow(0, 4, 2).mul(v), 0, 4, 6);`. The value
/// broadcasts to the view (else the original throws), so the result has the
/// view's shape; the scatter casts it to t's dtype as the in-place op does.
FixPlan Planner::planViewArithmetic() {
  StringRef Op = W.Method;
  if (Op != "add_" && Op != "sub_" && Op != "mul_" && Op != "div_" &&
      Op != "clamp_")
    return noFix("in-place " + W.OpName.str() +
                 " through a view has no verified rewrite yet");
  // The one operand: view.op_(v), or view op= v (operator+= and kin call
  // the method with it).
  const Expr *Operand = nullptr;
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(W.Write);
      Call && spelledArgs(Call).size() == 1)
    Operand = Call->getArg(0);
  else if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(W.Write))
    Operand = Assign->getArg(1);
  if (!Operand)
    return noFix("only '" + Op.str() +
                 "(v)' with one operand is rewritten (not alpha, a rounding "
                 "mode, a max, or the free function)");
  std::vector<ScatterStep> Steps;
  NarrowNotes.clear();
  if (Obstacle Why = scatterSteps(W.Receiver, Steps))
    return noFix(*Why);
  if (Obstacle Why = scatterFormObstacle(Steps))
    return noFix(*Why);
  // The view spelled from the target (a named view's declaration goes).
  std::string Value = fromTarget(text(W.Receiver)) + "." +
                      Op.drop_back().str() + "(" + text(Operand) + ")";
  FixPlan Plan = fix("scatter-inplace-arith",
                     name() + " = " + scatterCall(name(), Steps, Value));
  llvm::append_range(Plan.Notes, NarrowNotes);
  return Plan;
}

FixPlan Planner::plan() {
  FixPlan Plan = planWrite();
  if (!Plan.hasFix())
    return Plan;
  // The named view the write went through, where nothing reads it after
  // the write, is left with no use: its declaration goes too, so no name
  // is left meaning the old tensor.
  if (Alias && !llvm::is_contained(Rebinds, Alias))
    if (std::optional<FixEdit> Remove = removeAliasDecl())
      Plan.Edits.insert(Plan.Edits.begin(), *Remove);
  // Views read after the write are bound again to the rewritten target.
  if (!Rebinds.empty()) {
    std::optional<FixEdit> Rebind = rebindViews();
    if (!Rebind)
      return noFix("'" + Rebinds.front()->getName().str() + "' is a view of '" +
                   name() +
                   "' read after the write, and the statement that "
                   "binds it again cannot be placed after the write");
    Plan.Edits.push_back(*Rebind);
    std::string Names;
    for (const VarDecl *V : Rebinds)
      Names += (Names.empty() ? "'" : ", '") + V->getName().str() + "'";
    Plan.Notes.push_back(Names + (Rebinds.size() == 1 ? " is" : " are") +
                         " bound again after the write to the same view of "
                         "the rewritten '" +
                         name() +
                         "', which later reads "
                         "and writes then see");
  }
  return Plan;
}

FixPlan Planner::planWrite() {
  if (W.Write->getBeginLoc().isMacroID() || W.Write->getEndLoc().isMacroID())
    return noFix("the write is inside a macro expansion");
  if (Ctx.getDiagnostics().hasUncompilableErrorOccurred())
    return noFix("the file has compile errors");
  if (W.Write->isInstantiationDependent())
    return noFix("the write depends on template parameters");
  if (Target->getType()->isReferenceType() || isa<ParmVarDecl>(Target))
    return noFix("'" + name() + "' is not a local tensor");
  if (!usedAsStatement())
    return noFix("the in-place call's result is used as a value");
  if (Captured) {
    if (std::optional<std::string> Why = lambdaObstacle())
      return noFix(*Why);
    // The lambda may run after any view of the target is taken.
    if (llvm::ArrayRef<const VarDecl *> Views = Function.viewsOf(Target);
        !Views.empty())
      return noFix("'" + Views.front()->getName().str() +
                   "' is another view of '" + name() +
                   "' and would not see the rewritten tensor");
  }
  // Through a named view of the target?
  if (const auto *Ref =
          dyn_cast_or_null<DeclRefExpr>(libtorch::viewChainRoot(W.Receiver));
      Ref && Ref->getDecl() != Target)
    if (const auto *A = dyn_cast<VarDecl>(Ref->getDecl()))
      if (std::optional<std::string> Why = acceptAlias(A))
        return noFix(*Why);
  for (const VarDecl *Other : Function.viewsOf(Target))
    // A view declared after the write is taken of the rewritten tensor; one
    // declared before and read after is bound again to it where it can be.
    if (Other != Alias &&
        SM.isBeforeInTranslationUnit(Other->getLocation(),
                                     W.Write->getBeginLoc()) &&
        Function.usedAfter(Other, W.Write, SM)) {
      if (rebindObstacle(Other, /*FromTargetOnly=*/true))
        return noFix("'" + Other->getName().str() + "' is another view of '" +
                     name() + "' and would not see the rewritten tensor");
      Rebinds.push_back(Other);
    }

  switch (W.Kind) {
  case WriteKind::IndexCopy:
    return planTwin("index-copy");
  case WriteKind::MaskedScatter:
    return planTwin("masked-scatter");
  case WriteKind::Scatter:
    return planTwin("scatter");
  case WriteKind::MaskedFill:
    return planTwin("masked-fill");
  case WriteKind::IndexFill:
    return planTwin("index-fill");
  case WriteKind::IndexPut:
    return planIndexPut();
  case WriteKind::IndexAssign: {
    const auto *Index =
        cast<CXXMemberCallExpr>(libtorch::ignoreTensorWrappers(W.Receiver));
    if (Index->getNumArgs() != 1)
      return noFix("the index list is not understood");
    return planAssignIntoIndex(Index->getImplicitObjectArgument(),
                               Index->getArg(0), /*Subscript=*/false);
  }
  case WriteKind::SubscriptAssign: {
    const auto *Sub =
        cast<CXXOperatorCallExpr>(libtorch::ignoreTensorWrappers(W.Receiver));
    return planAssignIntoIndex(Sub->getArg(0), Sub->getArg(1),
                               /*Subscript=*/true);
  }
  case WriteKind::Copy:
  case WriteKind::Fill:
  case WriteKind::ViewAssign:
    return planViewCopy();
  case WriteKind::OtherInPlaceOp:
    return planViewArithmetic();
  }
  return noFix("this write form has no rule");
}

} // namespace

bool canTakeMemberCall(const Expr *E) {
  const Expr *Core = E->IgnoreImplicit();
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Core))
    return Op->getOperator() == OO_Subscript || Op->getOperator() == OO_Call;
  return isa<DeclRefExpr>(Core) || isa<MemberExpr>(Core) ||
         isa<ParenExpr>(Core) || isa<CallExpr>(Core);
}

FunctionRewriteContext::FunctionRewriteContext(const FunctionDecl *Function)
    : Function(Function),
      Parents(std::make_unique<ParentMap>(Function->getBody())) {
  // Every local tensor bound to a view chain of, or a reference to, another
  // local: after a rewrite of that local it would still see the old tensor.
  class Finder : public RecursiveASTVisitor<Finder> {
  public:
    bool VisitVarDecl(VarDecl *V) {
      if (!V->hasInit() || !libtorch::isTensorType(V->getType()))
        return true;
      bool View = V->getType()->isReferenceType();
      const Expr *E = libtorch::viewChainRoot(V->getInit(), &View);
      if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E); View && Ref)
        if (const auto *Base = dyn_cast<VarDecl>(Ref->getDecl()))
          Views[Base].push_back(V);
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      if (const auto *V = dyn_cast<VarDecl>(E->getDecl());
          V && V->hasLocalStorage())
        Mentions[V].push_back(E->getBeginLoc());
      return true;
    }
    llvm::DenseMap<const VarDecl *, std::vector<const VarDecl *>> Views;
    llvm::DenseMap<const VarDecl *, std::vector<SourceLocation>> Mentions;
  } F;
  F.TraverseStmt(const_cast<Stmt *>(Function->getBody()));
  Views = std::move(F.Views);
  Mentions = std::move(F.Mentions);
}

bool FunctionRewriteContext::usedAfter(const VarDecl *V, const Stmt *Write,
                                       const SourceManager &SM) {
  auto It = Mentions.find(V);
  if (It == Mentions.end())
    return false;
  SourceLocation End = Write->getEndLoc();
  for (SourceLocation L : It->second)
    if (SM.isBeforeInTranslationUnit(End, L))
      return true;
  // Inside a loop, a mention anywhere in the loop runs again later.
  for (const Stmt *P = Parents->getParent(Write); P;
       P = Parents->getParent(P)) {
    if (!isa<ForStmt>(P) && !isa<WhileStmt>(P) && !isa<DoStmt>(P) &&
        !isa<CXXForRangeStmt>(P))
      continue;
    SourceRange R = P->getSourceRange();
    for (SourceLocation L : It->second)
      if (!SM.isBeforeInTranslationUnit(L, R.getBegin()) &&
          !SM.isBeforeInTranslationUnit(R.getEnd(), L))
        return true;
  }
  return false;
}

FunctionRewriteContext::~FunctionRewriteContext() = default;

FixPlan planRewrite(const InPlaceWrite &W, const VarDecl *Target,
                    FunctionRewriteContext &Function, ASTContext &Ctx,
                    const FixOptions &Options, const CapturedWrite *Captured) {
  return Planner(W, Target, Function, Ctx, Options, Captured).plan();
}

} // namespace torch_tidy

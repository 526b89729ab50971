//===- OutOfPlaceRewrite.h - In-place writes to out-of-place form -*- C++
//-*-===//
//
// Plans the fix-it for one flagged write: which rule of RewriteRules.def
// applies, and the replacement text; or why no fix can be offered (a macro,
// dependent template code, a used result, other views of the target...).
// The rewrite never changes what the code computes for inputs the original
// accepts: test/fixits compiles and runs every rule against real LibTorch.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_REWRITE_OUTOFPLACEREWRITE_H
#define TORCH_TIDY_REWRITE_OUTOFPLACEREWRITE_H

#include "torch_tidy/analysis/GradFlowAnalysis.h"
#include "torch_tidy/analysis/InPlaceWrite.h"
#include "torch_tidy/analysis/ShapeFacts.h"
#include "torch_tidy/rewrite/FixPlan.h"

#include "clang/AST/Decl.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include <memory>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class ParentMap;
class SourceManager;
class Stmt;
} // namespace clang

namespace torch_tidy {

/// FixStyle: which family of out-of-place forms a fix uses.
///   Auto: index_put for index lists of tensors and full slices, a scatter
///     form (slice_scatter, select_scatter, nested once) for writes through
///     select, slice, narrow, subscripts and basic index lists, the general
///     positions form for the rest.
///   IndexPut: index_put everywhere (the positions form for basic writes).
///   Scatter: scatter forms wherever one exists; today the same as Auto.
enum class FixStyle { Auto, IndexPut, Scatter };

/// Whether `E.method()` can be written after E's text without parentheses
/// (names, members, calls, subscripts, parenthesised expressions).
bool canTakeMemberCall(const clang::Expr *E);

/// API spellings that differ between LibTorch versions.
struct LibTorchVersion {
  int Major = 2;
  int Minor = 8;
  /// c10::optional became std::optional, and sizes got SymInt twins, in 2.x.
  bool modern() const { return Major >= 2; }
  llvm::StringRef nullopt() const {
    return modern() ? "std::nullopt" : "c10::nullopt";
  }
};

/// How fixes are spelled (the check's options).
struct FixOptions {
  FixStyle Style = FixStyle::Auto;
  /// StrictFixes: true keeps what makes a fix exact for every input the
  /// original accepts (the value's broadcast, cast and leading-dim strip);
  /// false (the default) leaves them out where the only difference is a
  /// throw on an unusual value, and says so in a note.
  bool Strict = false;
  LibTorchVersion Version;
  /// FixColumnLimit: a rewritten statement that starts its line and would
  /// run past this column is laid out over several lines
  /// (layOutStatement); 0 keeps it on one line.
  unsigned ColumnLimit = 70;
};

/// What the planner needs to know about the function around the writes,
/// computed once per function so planning every write of a long function
/// stays linear.
class FunctionRewriteContext {
public:
  explicit FunctionRewriteContext(const clang::FunctionDecl *Function);
  ~FunctionRewriteContext();
  const clang::FunctionDecl *function() const { return Function; }
  clang::ParentMap &parents() { return *Parents; }
  /// The locals that view or reference V.
  llvm::ArrayRef<const clang::VarDecl *>
  viewsOf(const clang::VarDecl *V) const {
    auto It = Views.find(V);
    return It == Views.end()
               ? llvm::ArrayRef<const clang::VarDecl *>()
               : llvm::ArrayRef<const clang::VarDecl *>(It->second);
  }

  /// Whether V may be read after Write runs: it is mentioned later in the
  /// source, or inside a loop around Write (the next iteration comes later).
  bool usedAfter(const clang::VarDecl *V, const clang::Stmt *Write,
                 const clang::SourceManager &SM);

  /// The function's shape facts, made on first use.
  ShapeFacts &shapes(clang::ASTContext &Ctx) {
    if (!Shapes)
      Shapes = std::make_unique<ShapeFacts>(Function, *Parents, Ctx);
    return *Shapes;
  }

private:
  const clang::FunctionDecl *Function;
  llvm::DenseMap<const clang::VarDecl *, std::vector<clang::SourceLocation>>
      Mentions;
  std::unique_ptr<clang::ParentMap> Parents;
  std::unique_ptr<ShapeFacts> Shapes;
  llvm::DenseMap<const clang::VarDecl *, std::vector<const clang::VarDecl *>>
      Views;
};

/// The fix of a write torch-compile-requires-grad-propagation flags: `t =
/// <out-of-place form>;` by a rule of Style IndexPut, Scatter or Both.
/// Captured: the write is in a lambda that captures Target (Function is then
/// the function the lambda is written in); the assignment is written in the
/// lambda only where it reaches Target and runs where the write did.
FixPlan planRewrite(const InPlaceWrite &W, const clang::VarDecl *Target,
                    FunctionRewriteContext &Function, clang::ASTContext &Ctx,
                    const FixOptions &Options,
                    const CapturedWrite *Captured = nullptr);

} // namespace torch_tidy

#endif

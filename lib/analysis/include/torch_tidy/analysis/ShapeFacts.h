//===- ShapeFacts.h - Ranks and options a function's text proves -*- C++
//-*-===//
//
// What the text of one function proves, without running it, about a tensor
// expression: its exact rank (number of dims) and which tensor it takes its
// dtype and device from. The rewrite rules use the facts to leave out what
// cannot change a fix's result: the leading-unit-dim strip of a setitem value
// whose rank cannot exceed the indexed result's, and the cast of a value made
// with the target's own options.
//
// Facts come from locals bound to factories with a braced size list
// (`torch::zeros({b, n, n}, v.options())`), shape-known producers (arange,
// triu_indices, nonzero), rank-preserving and rank-changing methods
// (select, unsqueeze, t, view, [i], ...), and, for any tensor that is never
// assigned, guards that throw before the query point
// (`TORCH_CHECK(v.dim() == 2, ...)`, `if (v.dim() != 2) throw ...;`).
// A local reassigned only with values of its own rank (`m = m.index_put(..)`)
// keeps its rank. Anything else, or a variable whose shape an in-place call
// (`unsqueeze_`, `resize_`, `set_`, ...) or a non-const reference may change,
// has no fact.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_ANALYSIS_SHAPEFACTS_H
#define TORCH_TIDY_ANALYSIS_SHAPEFACTS_H

#include "clang/AST/Expr.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <optional>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
class ParentMap;
class Stmt;
class VarDecl;
} // namespace clang

namespace torch_tidy {

class ShapeFacts {
public:
  ShapeFacts(const clang::FunctionDecl *Function, clang::ParentMap &Parents,
             clang::ASTContext &Ctx);

  /// The exact rank of tensor expression E wherever At runs, if proven.
  std::optional<unsigned> rank(const clang::Expr *E, const clang::Stmt *At);

  /// True if A and B provably have the same dtype and device (`.to(b
  /// .options())` on A would return A itself).
  bool sameOptions(const clang::Expr *A, const clang::Expr *B);
  bool sameOptions(const clang::Expr *A, const clang::VarDecl *B);

  /// True if E is provably an int64 tensor (an index, not a mask).
  bool isLongTensor(const clang::Expr *E);

  /// A lower bound on the rank of `Base.index(Elements)` (the indexed result
  /// of setitem), or nullopt when an element is not understood.
  std::optional<unsigned>
  indexedRankLowerBound(const clang::Expr *Base,
                        llvm::ArrayRef<const clang::Expr *> Elements,
                        const clang::Stmt *At);

private:
  struct VarInfo {
    std::vector<const clang::Expr *> Assigned; ///< right-hand sides
    bool Unstable = false; ///< shape may change in place, or escapes
  };
  std::optional<unsigned> rankOf(const clang::Expr *E, const clang::Stmt *At);
  std::optional<unsigned> varRank(const clang::VarDecl *V,
                                  const clang::Stmt *At);
  std::optional<unsigned> guardedRank(const clang::VarDecl *V,
                                      const clang::Stmt *At);
  const void *optionsRoot(const clang::Expr *E);
  const void *varOptionsRoot(const clang::VarDecl *V);
  bool longTensor(const clang::Expr *E);
  const VarInfo *info(const clang::VarDecl *V) const;
  bool spend();

  clang::ParentMap &Parents;
  clang::ASTContext &Ctx;
  const clang::Stmt *Body;
  llvm::DenseMap<const clang::VarDecl *, VarInfo> Vars;
  /// Induction hypotheses: the variables whose facts are being proven.
  llvm::DenseMap<const clang::VarDecl *, unsigned> AssumedRank;
  llvm::SmallPtrSet<const clang::VarDecl *, 4> AssumedRoot;
  unsigned Budget = 0;
  bool HasGoto = false; ///< a goto may jump past any guard
};

} // namespace torch_tidy

#endif

//===- GradLeafAnalysis.h - In-place writes into grad leaves ---*- C++ -*-===//
//
// Finds in-place writes into local tensors that are provably leaves that
// require grad (made by a factory with requires_grad(true), or after
// requires_grad_() / set_requires_grad(true) on a fresh factory result),
// outside any no-grad scope. Autograd throws on such writes ("a leaf Variable
// that requires grad is being used in an in-place operation").
//
// The walk is in source order over one function body: a fact holds only for
// statements inside the block where it was established (so it ran before),
// and is dropped on anything that could change the tensor behind the
// analysis's back (reassignment, aliasing, capture, a non-const reference
// argument, a non-const method).
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_ANALYSIS_GRADLEAFANALYSIS_H
#define TORCH_TIDY_ANALYSIS_GRADLEAFANALYSIS_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include <string>
#include <vector>

namespace torch_tidy {

/// One in-place write into a leaf that requires grad, with the facts that
/// decide whether wrapping it in a NoGradGuard block is safe
/// (lib/rewrite's planNoGradGuard).
struct LeafWrite {
  const clang::Expr *Write;
  const clang::VarDecl *Leaf;
  const clang::Stmt *Origin; ///< where the leaf was made to require grad
  bool UsedBefore = false;   ///< the leaf is read between Origin and Write
  bool InLoop = false; ///< a loop between Origin's block and Write repeats it
  bool Statement = false; ///< Write is a direct statement of a block
  bool InMacro = false;   ///< Write begins or ends in a macro expansion

  /// What keeps a NoGradGuard block around the write from changing nothing
  /// but the write's grad recording (the first that holds, in this order),
  /// or None. The one statement of the rule: the walk below (what the write
  /// reads is no use of the leaf where the fix applies) and the planner
  /// (NoGradGuardPlanner, which words each obstacle) both read it.
  enum class Obstacle { None, UsedBefore, InLoop, NotStatement, InMacro };
  Obstacle obstacle() const {
    if (UsedBefore)
      return Obstacle::UsedBefore;
    if (InLoop)
      return Obstacle::InLoop;
    if (!Statement)
      return Obstacle::NotStatement;
    if (InMacro)
      return Obstacle::InMacro;
    return Obstacle::None;
  }
  bool wrappable() const { return obstacle() == Obstacle::None; }
};

/// Every write into a grad leaf in Body.
std::vector<LeafWrite> findLeafWrites(clang::Stmt *Body);

} // namespace torch_tidy

#endif

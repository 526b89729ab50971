//===- CheckFixes.h - The fixes of the checks beside the flagship -*- C++
//-*-===//
//
// The planners of torch-index-assign-to-copy (index-put-into-copy),
// torch-inplace-on-grad-leaf (no-grad-guard) and torch-op-undeclared-mutation
// (schema-mark-mutable, return-clone). The flagship's rewrite is
// planRewrite (OutOfPlaceRewrite.h). Each returns a FixPlan: the rule and its
// edits, or why no fix is offered.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_REWRITE_CHECKFIXES_H
#define TORCH_TIDY_REWRITE_CHECKFIXES_H

#include "torch_tidy/analysis/GradLeafAnalysis.h"
#include "torch_tidy/operators/OperatorModel.h"
#include "torch_tidy/rewrite/FixPlan.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class ReturnStmt;
} // namespace clang

namespace torch_tidy {

/// A write into the copy that `t.index({I})` returns for an advanced index.
struct CopyIndexWrite {
  const clang::Expr *Write = nullptr; ///< assignment or in-place call
  const clang::CXXMemberCallExpr *IndexCall = nullptr; ///< t.index({I})
  bool ThroughView = false; ///< t.index({I}).select(...).copy_(v)
};

/// index-put-into-copy: `t.index({I}) = v` -> `t.index_put_({I}, v)`, with
/// the value cast to t's options where copy_ would cast it.
FixPlan planIndexPutIntoCopy(const CopyIndexWrite &W,
                             const clang::ParentMap &Parents,
                             const clang::ASTContext &Ctx);

/// no-grad-guard: `{ torch::NoGradGuard no_grad; <write>; }`, for the
/// writes of one function.
class NoGradGuardPlanner {
public:
  explicit NoGradGuardPlanner(const clang::FunctionDecl *Function);
  FixPlan plan(const LeafWrite &W, const clang::ASTContext &Ctx);

private:
  const clang::FunctionDecl *Function;
  std::optional<bool> NameTaken; ///< the function declares a 'no_grad'
};

/// schema-mark-mutable: `Tensor m` -> `Tensor(a!) m`, `Tensor(a) m` ->
/// `Tensor(a!) m`, with a fresh alias letter per argument of one operator.
class SchemaAnnotationPlanner {
public:
  explicit SchemaAnnotationPlanner(const RegisteredOperator &Op);
  struct Result {
    FixPlan Plan;
    std::string Letter; ///< the alias set the message names; "" if none free
  };
  Result plan(const SchemaArgument &A, const clang::ASTContext &Ctx);

private:
  const RegisteredOperator &Op;
  std::vector<std::string> FreeLetters;
  size_t NextLetter = 0;
};

/// return-clone: `return m;` -> `return m.clone();` (parenthesised where
/// the returned expression needs it). Value is the returned expression, or
/// the element of a tuple the return builds (`std::make_tuple(w, s)` ->
/// `std::make_tuple(w.clone(), s)`).
FixPlan planReturnClone(const clang::Expr *Value, const clang::ASTContext &Ctx);

/// metadata-out-of-place: `m.unsqueeze_(0);` on a kernel's by-value handle
/// (a by-value parameter, or a local `auto s = scales;`) of an argument its
/// schema does not declare mutable -> `m = m.unsqueeze(0);` (the kernel's
/// handle takes the new shape; the caller's tensor keeps its own). Only
/// where no other handle bound to the same tensor is read after the write
/// (it would keep the old metadata, where the write gave it the new).
/// metadata-to-local: that write on a const handle (`const at::Tensor
/// &m`), a statement of the kernel's own block -> `auto m_unsqueezed =
/// m.unsqueeze(0);`, m's later uses renamed to it; only where no lambda
/// captures m, m is not written again, and the kernel does not spell the
/// new name already.
FixPlan planMetadataOutOfPlace(const clang::Expr *Write,
                               const clang::FunctionDecl *Kernel,
                               clang::ASTContext &Ctx);

/// copy-write-out-of-place: an in-place method on a conversion's result
/// whose value is used (`at::linear(x.to(at::kFloat).mul_(s), w)`) ->
/// the out-of-place method (`.mul(s)`): the same value, and no write into
/// the argument where the conversion made no copy.
FixPlan planCopyWriteOutOfPlace(const clang::Expr *Write,
                                clang::ASTContext &Ctx);

namespace ground_truth {
struct CopyingMethod;
}

/// Writes into the result of a method that may return a copy of its
/// receiver (torch-write-into-copy).
struct CopyWrite {
  const clang::CXXMemberCallExpr *Copy = nullptr; ///< out.contiguous()
  /// The local holding the result (`auto c = out.contiguous();`), if any.
  const clang::VarDecl *Local = nullptr;
  /// The variable the method is called on (through views), if any.
  const clang::VarDecl *Receiver = nullptr;
  /// The last write, or the call in the copying function that makes it.
  const clang::Stmt *LastWrite = nullptr;
  const ground_truth::CopyingMethod *Method = nullptr;
};

/// write-back-copy: `if (!c.is_alias_of(out)) out.copy_(c);` on its own line
/// after the statement of the last write, where a local holds the copy and
/// that statement is in the local's block with no return between them;
/// else check-no-copy: `TORCH_CHECK(out.is_contiguous(), "...");` on its
/// own line before the statement that makes the copy. Lines stay within 80
/// columns. Function is the function that makes the copy.
FixPlan planWriteIntoCopy(const CopyWrite &W,
                          const clang::FunctionDecl *Function,
                          bool PartialWriteBack, const clang::ASTContext &Ctx);

} // namespace torch_tidy

#endif

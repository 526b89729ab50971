//===- InPlaceWrite.h - Recognise in-place tensor writes -------*- C++ -*-===//
//
// Turns an expression into a description of the in-place write it performs,
// if any: which tensor expression receives the data (possibly a view chain
// such as t.select(0, i).narrow(0, 0, n)), what is written, and in which
// spelling. Every write form listed in docs/design.md is recognised here, once.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_ANALYSIS_INPLACEWRITE_H
#define TORCH_TIDY_ANALYSIS_INPLACEWRITE_H

#include "clang/AST/Expr.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace torch_tidy {

enum class WriteKind {
  IndexPut,        // t.index_put_({...}, v), at::index_put_(t, {...}, v)
  IndexAssign,     // t.index({...}) = v
  SubscriptAssign, // t[i] = v
  ViewAssign,      // t.slice(...) = v (assignment into any other view)
  Copy,            // view.copy_(v)
  Fill,            // view.fill_(v) with a tensor v, at::fill_
  MaskedFill,      // t.masked_fill_(mask, v) with a tensor v
  IndexFill,       // t.index_fill_(dim, idx, v) with a tensor v
  IndexCopy,       // t.index_copy_(dim, idx, v)
  MaskedScatter,   // t.masked_scatter_(mask, v)
  Scatter,         // t.scatter_(dim, idx, v) with a tensor v
  /// Any other in-place value op with a tensor operand: t.add_(v),
  /// t.mul_(v), t.index_add_(d, i, v), at::add_(t, v)... Counted only for
  /// mutable operator arguments, where the ground truth measures them.
  OtherInPlaceOp,
};

/// A short, user-facing name of the write form ("index_put_", "copy_", ...).
llvm::StringRef writeKindName(WriteKind K);

struct InPlaceWrite {
  WriteKind Kind;
  /// The whole write expression (the call or the assignment).
  const clang::Expr *Write = nullptr;
  /// The tensor expression written into, before views are resolved. For
  /// IndexAssign and SubscriptAssign this is the indexed object.
  const clang::Expr *Receiver = nullptr;
  /// The value written (a tensor expression).
  const clang::Expr *Source = nullptr;
  /// A second tensor operand that is written in (addcmul_(a, b), ...).
  const clang::Expr *OtherSource = nullptr;
  /// copy_/fill_ into the whole tensor are not sliced or indexed writes;
  /// for a fresh local they count only when Receiver is a view.
  bool NeedsView = false;
  /// The write counts only when it lands in a mutable operator argument
  /// (OtherInPlaceOp).
  bool OnlyMutableTargets = false;
  /// OtherInPlaceOp: the method or function name ("add_"), or the operator
  /// ("+=").
  llvm::StringRef OpName;
  /// OtherInPlaceOp: the Tensor method that runs ("add_" for "+=", which
  /// TensorBody.h defines as `return add_(other);`), or the ATen overload
  /// where the name alone would say more than was measured
  /// ("div_.Tensor_mode": div_ with a rounding mode).
  llvm::StringRef Method;
};

/// The user-facing name of this write: the op's own name for
/// OtherInPlaceOp, else writeKindName().
llvm::StringRef writeName(const InPlaceWrite &W);

/// Recognises E as an in-place write of a tensor value into a tensor.
/// Writes of Scalars and writes in dependent (unresolved) code yield nothing.
std::optional<InPlaceWrite> matchInPlaceWrite(const clang::Expr *E);

} // namespace torch_tidy

#endif

//===- ArgumentMutation.h - Which arguments a kernel writes into -*- C++
//-*-===//
//
// For an operator's kernel: which tensor parameters it writes into (their
// values, whatever is written: Scalars and zero_() too), through the
// parameter itself, a view or alias of it (narrow, select, basic index(),
// operator[], detach(), contiguous(), a local copy of the handle), a free
// function that takes it as `Tensor &` (at::relu_(t), at::neg_out(t, x)),
// a same-file helper that writes into its own parameter, or a pointer or
// accessor taken from it (data_ptr<T>(), mutable_data_ptr<T>(), data<T>(),
// accessor<T, N>(), packed_accessor32/64<...>()), in the kernel or in the
// lambdas it runs (AT_DISPATCH_*, at::parallel_for), through pointer
// arithmetic and local pointers; a standard algorithm or C call whose
// destination is such a pointer (std::iota, std::fill, std::copy's output,
// memcpy, memset); a helper or CUDA kernel (a launch) with that memory as a
// pointer or accessor parameter it writes through; a function whose body is
// not here taking it as a non-const pointer (Unseen), where its declaration
// takes some pointers to const or one pointer only. An optional<Tensor>
// argument is followed through value(), * and ->. Also which parameters the
// kernel returns, or a view of them, at returns that can run (the CFG: not
// after TORCH_CHECK(false, ...), a throw or a noreturn call).
//
// The walk is in source order and flow-insensitive within a statement:
// rebinding a local handle (t = t.clone()) ends its aliasing, and branches
// are merged by keeping every alias either made. Advanced indexing returns a
// copy, so writes into t.index({mask}) leave t alone.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_ANALYSIS_ARGUMENTMUTATION_H
#define TORCH_TIDY_ANALYSIS_ARGUMENTMUTATION_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <memory>
#include <string>
#include <vector>

namespace torch_tidy {

/// A write into the values of a kernel's parameter.
struct ArgumentWrite {
  unsigned ParamIndex = 0;
  /// The write (a call, an assignment), in WriteFunction.
  const clang::Expr *Write = nullptr;
  const clang::FunctionDecl *WriteFunction = nullptr;
  /// How it writes, for messages: "index_put_", "index(...) assignment",
  /// "at::relu_", "a write through data_ptr", ...
  std::string Form;
  /// The call in the analysed function through which a helper writes; null
  /// when the write is in the analysed function itself.
  const clang::CallExpr *Via = nullptr;
  /// When the memory is handed to a function whose body is not in this
  /// translation unit: its parameter that is a non-const pointer or an
  /// accessor (the write is the call).
  const clang::ParmVarDecl *Unseen = nullptr;
  /// Through the tensor's memory (a pointer, an accessor, a C call or a
  /// function handed the memory), not a LibTorch operation: a catch-all
  /// kernel that does this cannot run on fake tensors.
  bool ThroughMemory = false;
  /// A write of the argument's metadata, not its values (`resize_`,
  /// `set_data`, `unsqueeze_`, ...): opcheck's test_schema rejects it where
  /// the metadata changes (measured on torch 2.8.0 and 2.15.0).
  bool Metadata = false;
  /// The write lands in the result of this call of a method that returns
  /// its receiver or a copy (`out.contiguous()`, `self.to(at::kFloat)`,
  /// docs/ground-truth-write-into-copy.md), made on the parameter or an
  /// alias of it, in WriteFunction or the analysed function; null when no
  /// such call is on the way. A handle rebound to its own copy (`x =
  /// x.contiguous();`, `out = out.reshape(...).transpose(1, 2);`) is the
  /// tensor the code works on from there: not counted.
  const clang::CXXMemberCallExpr *Copy = nullptr;
};

/// A return of a parameter, or of a view or alias of it.
struct ArgumentReturn {
  unsigned ParamIndex = 0;
  const clang::ReturnStmt *Return = nullptr;
  /// The parameter's own tensor (the same handle: `return m;`, a local copy
  /// of the handle, `return m.mul_(2);`), not a view of it.
  bool Direct = false;
  /// Which element of a tuple the return builds in place
  /// (`std::make_tuple(w, s)`, `{w.view(-1), s}`) this is; -1 for a return
  /// of one tensor.
  int Element = -1;
  /// The returned expression (the element, for a tuple).
  const clang::Expr *Value = nullptr;
  /// A method on the way that returns its receiver or a copy
  /// (`m.contiguous()`, `m.to(at::kFloat)`): the return aliases the
  /// argument only where it makes no copy. Null when none is.
  const clang::CXXMemberCallExpr *Copy = nullptr;
};

struct ArgumentMutationResult {
  std::vector<ArgumentWrite> Writes;
  std::vector<ArgumentReturn> Returns;
  /// A tensor's memory handed as a non-const pointer to a function whose
  /// body is not here and whose declaration does not tell inputs from
  /// outputs (every pointer non-const): not counted as a write, but a
  /// catch-all kernel that does it cannot run on fake tensors.
  bool OpaqueMemory = false;
};

namespace ground_truth {
struct CopyingMethod;
}

/// The measured copying method Call is (ground_truth::copyingMethods), by
/// its name and form: contiguous() / contiguous(fmt), expect_contiguous(),
/// reshape(), flatten(), to(dtype), to(options), toType(dtype); null for
/// any other call, to(device) among them.
const ground_truth::CopyingMethod *
copyingMethodOf(const clang::CXXMemberCallExpr *Call);

class ArgumentMutationAnalysis {
public:
  /// Analyses FD's definition once (memoised); helpers it calls are
  /// analysed on demand (recursion ends in an empty summary).
  const ArgumentMutationResult &analyse(const clang::FunctionDecl *FD);

private:
  llvm::DenseMap<const clang::FunctionDecl *,
                 std::unique_ptr<ArgumentMutationResult>>
      Results;
  llvm::DenseSet<const clang::FunctionDecl *> InProgress;
};

} // namespace torch_tidy

#endif

//===- LibTorchApi.h - What LibTorch's C++ names mean ----------*- C++ -*-===//
//
// The one place that knows LibTorch's API: which calls create tensors without
// gradient tracking, which ones return views, which ones write in place, which
// guards switch autograd off and which values can never require grad. Checks
// read like the rule they enforce by asking these questions instead of
// comparing names themselves.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_ANALYSIS_LIBTORCHAPI_H
#define TORCH_TIDY_ANALYSIS_LIBTORCHAPI_H

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
class VarDecl;
} // namespace clang

namespace torch_tidy {
namespace libtorch {

/// True for at::Tensor / at::TensorBase (and torch::Tensor, an alias), with
/// references and cv-qualifiers stripped.
bool isTensorType(clang::QualType T);

/// The in-place Tensor methods that write a tensor's metadata (its sizes,
/// strides or storage), not its values: resize_, set_, unsqueeze_, ...
/// opcheck's test_schema rejects each on an argument not declared mutable
/// where the metadata changes (tools/ground-truth/metadata_writes.py).
bool isMetadataWrite(llvm::StringRef Name);

/// True if D is declared in namespace at, torch, c10 or one nested in them.
bool isInTorchNamespace(const clang::Decl *D);

/// The callee of a call to a LibTorch free function or Tensor method, or null.
const clang::FunctionDecl *torchCallee(const clang::CallExpr *Call);

/// Factories whose result does not require grad unless asked to:
/// zeros, ones, empty, full, rand*, eye, *_like, Tensor::new_*.
bool isNonGradFactory(const clang::CallExpr *Call);

/// What a factory's options say about requires_grad: nothing that asks for
/// it (No), requires_grad(true) on every path (Yes), or something the
/// analysis cannot see or that differs between paths (Unknown).
enum class GradRequest { No, Yes, Unknown };

/// What a TensorOptions expression, or a value that converts to one (Device,
/// DeviceType, ScalarType, Layout, MemoryFormat, caffe2::TypeMeta, a device
/// string), asks for. Only `.requires_grad(b)` and `requires_grad(b)` can ask:
/// with a constant b, as it says; with another b, Unknown. `t.options()`,
/// the constructors and the dtype/device/layout setters never ask. A local
/// options variable is followed through its initializer and every
/// assignment; a parameter, a member, a non-const global or a call to user
/// code is Unknown.
GradRequest optionsGradRequest(const clang::Expr *E, clang::ASTContext &Ctx);

/// For a factory: the join of what its options arguments ask for; No when
/// it has none.
GradRequest factoryGradRequest(const clang::CallExpr *Call);

/// The factory's result may require grad: its options may ask for it.
inline bool factoryMayRequireGrad(const clang::CallExpr *Call) {
  return factoryGradRequest(Call) != GradRequest::No;
}

/// A non-grad factory whose options provably ask for requires_grad(true):
/// the result is a leaf that requires grad.
bool factoryRequiresGrad(const clang::CallExpr *Call);

/// Calls whose result never requires grad: integer/bool producers
/// (arange, triu_indices, nonzero, comparisons, .to(kLong)...) and detach().
bool producesNonGradValue(const clang::CallExpr *Call);

/// Tensor methods that return the same data, possibly moved or cast to a
/// floating dtype: .to(device), .cuda(), .cpu(), .contiguous(), .clone().
/// A fresh tensor stays fresh through them.
bool isFreshnessPreservingMethod(const clang::CXXMemberCallExpr *Call);

/// Tensor methods (and operator[]) whose result is a view of the object, or,
/// for index()/operator[], what an assignment writes through.
bool isViewProducingCall(const clang::Expr *E);

/// The object a view-producing call is taken from.
const clang::Expr *viewObject(const clang::Expr *ViewCall);

/// The root of E's view chain, with tensor wrappers stripped: for
/// `t.select(0, 1).narrow(0, 0, n)` it is `t`. ThroughView (if given) says
/// whether any view call was walked. With StopAtCopyingIndex the walk stops
/// at a t.index({...}) with an advanced index (a copy, not a view) and
/// returns that call.
const clang::Expr *viewChainRoot(const clang::Expr *E,
                                 bool *ThroughView = nullptr,
                                 bool StopAtCopyingIndex = false);

/// Tensor::requires_grad_ or Tensor::set_requires_grad: they change autograd
/// metadata, never values.
bool isRequiresGradSetter(const clang::FunctionDecl *FD);

/// A guard declaration that disables gradient recording for its scope:
/// torch::NoGradGuard, at::AutoGradMode(false), c10::InferenceMode (enabled).
bool isNoGradGuardDecl(const clang::VarDecl *V);

/// A torch::Library method call: def or impl.
/// A registration call: torch::Library's def and impl, or the older
/// c10::RegisterOperators().op(schema, fn[, options]) / .op(options), which
/// defines the operator and registers its kernels at once.
enum class LibraryCall { None, Def, Impl, RegisterOp };
LibraryCall classifyLibraryCall(const clang::CXXMemberCallExpr *Call);

/// Dispatch keys whose kernels run above autograd, so torch.compile traces
/// their bodies.
bool isTracedDispatchKey(llvm::StringRef Key);

/// One element of a braced TensorIndex list ({Slice(), 0, rows, ...}).
enum class IndexElement { FullSlice, Tensor, Basic };
IndexElement classifyIndexElement(const clang::Expr *Element);

/// The elements of a braced TensorIndex list argument; nullopt if the
/// argument is not a braced list (a vector variable, say).
std::optional<std::vector<const clang::Expr *>>
indexListElements(const clang::Expr *Arg);

/// A braced TensorIndex list with a tensor or boolean-mask element: indexing
/// with it is advanced indexing, so index() returns a copy, not a view.
bool isAdvancedIndexList(const clang::Expr *Arg);

/// t.index({...}) with an advanced index list (or a c10::List of tensors):
/// the result is a new tensor, so writing into it in place
/// leaves t unchanged.
bool isCopyingIndexCall(const clang::Expr *E);

/// Tensor methods that write into their object: the `*_` methods that
/// change its values (add_, zero_, copy_, index_put_, uniform_, ...). Not
/// requires_grad_ and detach_, which change autograd metadata only, nor
/// resize_/set_, which change storage.
bool isInPlaceValueMethod(const clang::CXXMemberCallExpr *Call);

/// Free functions that write into their first argument: at::add_(t, ...),
/// at::index_add_(t, ...) and the other `*_` value functions (not
/// requires_grad_ and kin, as above).
bool isInPlaceValueFunction(const clang::FunctionDecl *FD);

/// Compound assignment operators on a tensor (t += x, ...): add_ and kin.
bool isCompoundAssignOnTensor(const clang::CXXOperatorCallExpr *Op);

/// The Tensor method a compound assignment calls (TensorBody.h defines
/// `operator+=` as `return add_(other);`, and so on): "add_", "sub_",
/// "mul_", "div_", "bitwise_and_", "bitwise_or_", "bitwise_xor_"; empty for
/// any other operator.
llvm::StringRef compoundAssignMethod(clang::OverloadedOperatorKind Op);

/// The value of a bool literal, looking through conversions such as the
/// std::optional<bool> that TensorOptions::requires_grad takes.
std::optional<bool> boolLiteral(const clang::Expr *E);

/// Strips parens, implicit casts, temporaries, cleanups and Tensor copy/move
/// constructions.
const clang::Expr *ignoreTensorWrappers(const clang::Expr *E);

} // namespace libtorch
} // namespace torch_tidy

#endif

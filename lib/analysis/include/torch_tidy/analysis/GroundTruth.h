//===- GroundTruth.h - What the measurements say ---------------*- C++ -*-===//
//
// The facts of docs/ground-truth.md that the checks' defaults and messages
// rest on, in one place. tools/ground-truth re-measures them with real
// torch.compile, and the ctest `ground-truth-claims` fails when this file and
// docs/ground-truth.json disagree (versions, keys, forms).
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_ANALYSIS_GROUNDTRUTH_H
#define TORCH_TIDY_ANALYSIS_GROUNDTRUTH_H

#include "torch_tidy/analysis/InPlaceWrite.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace torch_tidy {
namespace ground_truth {

/// The version the bug was reported on, and the newest release measured.
inline constexpr llvm::StringLiteral ReferenceVersion = "2.8.0";
inline constexpr llvm::StringLiteral NewestVersion = "2.15.0";
/// "torch 2.8.0 and 2.15.0", for messages.
inline constexpr llvm::StringLiteral BothVersions = "torch 2.8.0 and 2.15.0";

/// Dispatch keys for which a kernel's write into a mutable (`Tensor(a!)`)
/// argument was measured to leave a compiled caller's requires_grad stale,
/// on both versions and every backend (paths cpp_mutable_composite,
/// cpp_mutable_cpu, cpp_mutable_explicit). The mechanism is the caller's
/// (Dynamo does not refresh a mutated argument's metadata after the call),
/// but only these keys were measured; others count under RegionMode: all.
bool mutableArgumentLossMeasured(llvm::StringRef DispatchKey);

/// Whether the newest torch still loses requires_grad after this Python
/// write form in compiled code (torch 2.8.0 loses it after every in-place
/// form): only writes through a view do (narrow/select/a named view, then
/// copy_), setitem and in-place ops on the tensor itself keep it.
bool newestLosesFreshWrite(WriteKind Kind, bool ThroughView);

/// In-place arithmetic into a fresh tensor, measured in Python (path
/// python_view_arith): through a view (narrow, select, a named view) every
/// one of these loses requires_grad under torch.compile on both versions;
/// into the whole tensor on the reference version only, which, as for a
/// whole-tensor copy_, is not reported for a fresh local.
bool freshViewArithmeticMeasured(llvm::StringRef OpName);

/// What a copy a method may make depends on (torch-write-into-copy).
enum class CopyCondition {
  Layout,       ///< strides: contiguous(), reshape(), flatten()
  MemoryFormat, ///< contiguous(fmt), to(options, ..., fmt)
  Dtype,        ///< to(dtype), toType(dtype)
  Options,      ///< to(options): dtype or memory format
  Device,       ///< cpu(), cuda(), to(device): the receiver's device
};

/// A method that returns its receiver when nothing needs changing and a new
/// tensor otherwise, for which docs/ground-truth-write-into-copy.json
/// measures a write into the result lost exactly when the receiver needs
/// the copy (LibTorch 2.8.0 and 1.13, CPU; `ground-truth-claims` checks
/// each Rows entry against that table and each Condition against the
/// message). The device moves' rows are those of a GPU run,
/// docs/ground-truth-device-moves.json (a CUDA tensor's cpu() and a CPU
/// tensor's cuda() lose the write; eager, aot_eager and inductor).
struct CopyingMethod {
  llvm::StringLiteral Method; ///< the C++ method, as called
  /// Which form: "" any call; "dtype", "options" the first argument's
  /// kind (to()); "format" with a memory-format argument (contiguous).
  llvm::StringLiteral Form;
  /// The rows of the table ('|'-separated) that measure this form.
  llvm::StringLiteral Rows;
  CopyCondition Condition;
  /// When the copy is made, for messages: "'x' <When>".
  llvm::StringLiteral When;
};
llvm::ArrayRef<CopyingMethod> copyingMethods();
/// The entry for Method called in Form, if measured.
const CopyingMethod *findCopyingMethod(llvm::StringRef Method,
                                       llvm::StringRef Form);
/// Whether M, a device move, always copies in a kernel registered under
/// dispatch key Key: cpu() or to(kCPU) in a CUDA kernel, cuda() or
/// to(kCUDA) in a CPU kernel (only tensors of the device it copies from
/// reach such a kernel). False for any other method or key.
bool deviceMoveAlwaysCopies(const CopyingMethod &M, llvm::StringRef Key);

} // namespace ground_truth
} // namespace torch_tidy

#endif

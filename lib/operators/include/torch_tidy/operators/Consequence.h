//===- Consequence.h - What torch.compile does with an operator -*- C++ -*-===//
//
// An operator whose kernel writes an argument its schema does not declare
// mutable (or that returns nothing and declares nothing mutable) fails
// torch.library.opcheck. What torch.compile then does depends on what the
// operator registers, measured on CPU for every registration shape in
// docs/ground-truth-registrations.json (tools/ground-truth/registrations.py):
//
//   Silent      a fake kernel exists (Python register_fake / impl_abstract, a
//               C++ Meta kernel, a CompositeExplicitAutograd kernel): Dynamo
//               puts the call in the graph, aot_eager and inductor drop a
//               `-> ()` call, and inductor reads the unwritten values of a
//               written argument.
//   GraphBreak  only backend kernels (CPU, CUDA, XPU, ..., Autograd): Dynamo
//               cannot trace the call, graph-breaks and runs it eagerly (the
//               writes are kept); fullgraph=True errors. It turns silent the
//               day a fake is registered.
//   Traced      a catch-all CompositeImplicitAutograd kernel written with
//               ATen ops (a device kernel beside it or not): Dynamo traces
//               through it and the writes are kept.
//   Loud        a catch-all CompositeImplicitAutograd kernel that writes
//               through raw pointers: compiling fails (fake tensors have no
//               data), whatever else is registered beside it (a device or
//               Meta kernel; torch refuses a Python fake for it).
//   Unknown     no fake is known, but the project registers fakes whose
//               operators the index could not name: silent if one of them
//               is this operator's, a graph break if none is.
//
// The ground-truth ctest `ground-truth-claims` checks that each class's
// rows (registrationRows) measure what its description says.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_OPERATORS_CONSEQUENCE_H
#define TORCH_TIDY_OPERATORS_CONSEQUENCE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace torch_tidy {

enum class Consequence { Silent, GraphBreak, Traced, Loud, Unknown };

/// Where one kernel or fake of an operator is registered.
struct KernelSite {
  /// The dispatch key ("Meta", "CPU", "CompositeImplicitAutograd" for a
  /// catch-all kernel), or "Fake" for a Python fake registration.
  std::string Key;
  /// How it is registered ("TORCH_LIBRARY_IMPL", "m.def", "register_fake",
  /// "impl_abstract", "Library.impl", ...), for messages.
  std::string How;
  std::string File; ///< absolute path; empty for this translation unit
  unsigned Line = 0;
  /// A Python registration under a condition: the header of the innermost
  /// `if` / `elif` / `else` block around it ("if enable_torch_compile:"),
  /// else empty. The class is measured for the condition holding.
  std::string Condition;
  /// An OpaqueCaller site: per positional argument of the call inside the
  /// Python custom op, '1' where the argument is a parameter the custom
  /// op's mutates_args lists, '0' where it is not, 'u' where mutates_args is
  /// "unknown", '?' where the index could not read it (a variable, a
  /// keyword argument). Empty for other sites.
  std::string Declares;
};

/// Whether a registration under Key gives the operator a fake (meta)
/// implementation that Dynamo traces with: "Fake" (Python), "Meta",
/// "CompositeExplicitAutograd" (and its NonFunctional variant).
bool isFakeKey(llvm::StringRef Key);

/// Whether Key is a catch-all kernel's (CompositeImplicitAutograd).
bool isCatchAllKey(llvm::StringRef Key);

/// Whether Key is an Autograd kernel's (Autograd, AutogradCPU, ...): Dynamo
/// runs it on fake tensors too.
bool isAutogradKey(llvm::StringRef Key);

/// The class for an operator with the given kernels and fakes (from this
/// translation unit and the project). RawCatchAll: a catch-all kernel writes
/// through raw pointers.
Consequence consequenceOf(llvm::ArrayRef<KernelSite> Sites, bool RawCatchAll);

/// The first fake registration among Sites, if any.
const KernelSite *fakeSite(llvm::ArrayRef<KernelSite> Sites);

/// The pseudo-key of a Python torch._dynamo.disallow_in_graph mark on the
/// operator: what the mark returns is called outside the graph (measured:
/// such calls keep the kernel's effects; direct torch.ops calls do not).
/// Neither a kernel nor a fake: it changes no class.
inline constexpr llvm::StringLiteral DisallowInGraphKey = "DisallowInGraph";

/// The pseudo-key of a Python fake registration whose operator the index
/// could not name (`register_fake(make_name(x))`): neither a kernel nor a
/// fake of any operator, it makes "no fake" unknown for the project's
/// operators that have none.
inline constexpr llvm::StringLiteral UnnamedFakeKey = "UnnamedFake";
/// The key of a Python registration whose dispatch key the index could not
/// read (an expression): of no kind, never counted a fake.
inline constexpr llvm::StringLiteral NotReadKey = "(key not read)";
/// The kernel torch.library.custom_op registers: the Python function it
/// decorates (an operator defined in Python, its schema inferred).
inline constexpr llvm::StringLiteral CustomOpKey = "CustomOp";
/// A TorchScript custom class's method (`class_<T>("Name").def("m", ...)`),
/// kept under the name "Name.m": not an operator, listed apart.
inline constexpr llvm::StringLiteral CustomClassMethodKey = "CustomClassMethod";

/// The pseudo-key of a call of the operator (`torch.ops.ns.op(m, v)`)
/// inside a Python `@torch.library.custom_op` function: torch.compile calls
/// the custom op as one operator and never sees this call. Measured on
/// torch 2.8.0 and 2.15.0 (tools/ground-truth/opaque_callers.py): the
/// operator's write (and a void operator's call) reaches a compiled caller
/// through the custom op where its mutates_args lists the argument passed
/// or is "unknown", and is lost there too, silently, where it lists none.
/// Neither a kernel nor a fake: it changes no class.
inline constexpr llvm::StringLiteral OpaqueCallerKey = "OpaqueCaller";

/// The OpaqueCaller sites among Sites.
std::vector<const KernelSite *>
opaqueCallerSites(llvm::ArrayRef<KernelSite> Sites);

/// The first disallow_in_graph mark among Sites, if any.
const KernelSite *disallowSite(llvm::ArrayRef<KernelSite> Sites);

/// Whether Sites register a backend kernel (not a catch-all one, a fake or
/// a mark) beside a catch-all one: the catch-all kernel still decides the
/// class, which was measured traced on the reference version only there
/// (row catchall_aten_device).
bool backendBesideCatchAll(llvm::ArrayRef<KernelSite> Sites);

/// The first unnamed fake among Sites, if any.
const KernelSite *unnamedFakeSite(llvm::ArrayRef<KernelSite> Sites);

/// "silent", "graph-break", "traced", "loud", "unknown": the names of
/// the Consequence option's values and of the docs' classes.
llvm::StringRef consequenceName(Consequence C);

/// The registration shapes of docs/ground-truth-registrations.json whose
/// measurements class C rests on (read by the claims ctest).
llvm::ArrayRef<llvm::StringLiteral> registrationRows(Consequence C);

} // namespace torch_tidy

#endif

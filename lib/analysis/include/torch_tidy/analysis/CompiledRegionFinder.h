//===- CompiledRegionFinder.h - Which functions torch.compile traces -*- C++
//-*-===//
//
// Where fresh-local writes are reported. A function's body is a compiled
// region when it is (a) registered as a CompositeImplicitAutograd kernel in
// this translation unit (m.def(schema, fn) in TORCH_LIBRARY /
// TORCH_LIBRARY_FRAGMENT, m.impl with no key, with that key, or in
// TORCH_LIBRARY_IMPL(ns, CompositeImplicitAutograd, m)) and the check's
// FreshTargetsInKernels option is on (the ground truth measured the flag
// right in such kernels, so they are opt-in), (b) annotated
// [[clang::annotate("torch_tidy::compiled")]], (c) named by the
// CompiledFunctions regex, or (d) called, directly or through lambdas, from
// one of those. Kernels for CPU, CUDA, Meta or CompositeExplicitAutograd run
// below autograd and are not regions.
//
// Functions that run with grad mode off are not regions unless the user
// names them (annotation, regex) or registers them: the forward and backward
// of a custom autograd Function (torch::autograd::Function<T>), explicit
// backward functions (named *backward* or *_bwd*), lambdas inside those, and
// helpers that only this file can call (allCallSites) whose every call is
// made from such a function or under a no-grad guard.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_ANALYSIS_COMPILEDREGIONFINDER_H
#define TORCH_TIDY_ANALYSIS_COMPILEDREGIONFINDER_H

#include "torch_tidy/analysis/NoGradScope.h"
#include "torch_tidy/operators/OperatorModel.h"

#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Regex.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace torch_tidy {

/// The annotation that marks a function as compiled (see
/// include/torch_tidy/compiled.h).
inline constexpr llvm::StringLiteral CompiledAnnotation =
    "torch_tidy::compiled";

enum class RegionMode { Auto, All };

struct RegionReason {
  enum Kind { Registered, Annotated, NameMatch, CalledFrom, AllFunctions };
  Kind K;
  /// Registered: the def/impl call. CalledFrom: the call or lambda.
  const clang::Stmt *Site = nullptr;
  /// CalledFrom: the function in the region that reaches this one.
  const clang::FunctionDecl *Caller = nullptr;
  /// The kind of the root this function is reached from (K for a root).
  Kind RootKind = K;
};

class CompiledRegionFinder {
public:
  /// KernelsAreRegions: whether CompositeImplicitAutograd kernels (rule (a))
  /// and what they call are regions; annotated and named functions always
  /// are.
  CompiledRegionFinder(RegionMode Mode, llvm::StringRef CompiledFunctions,
                       bool KernelsAreRegions = true);

  /// Collects the facts below from the user's code in TU: every top-level
  /// declaration outside system headers and outside LibTorch's and the
  /// standard library's namespaces, and the operators it registers. Walking
  /// only that code, rather than matching over the whole AST, keeps the
  /// check's cost independent of the size of <torch/torch.h>.
  void collect(const clang::TranslationUnitDecl *TU);

  /// A function that may be a root (collect() calls this).
  void addFunction(const clang::FunctionDecl *Definition);

  /// The operators registered in the translation unit (complete after
  /// collect()).
  OperatorModel &operators() { return Operators; }

  /// The functions (their analysed definitions) in a compiled region, each
  /// with the reason, in a deterministic order.
  llvm::MapVector<const clang::FunctionDecl *, RegionReason> computeRegions();

  /// Whether FD runs with grad mode off as far as this translation unit
  /// shows (see the file comment).
  bool runsWithGradOff(const clang::FunctionDecl *FD);

  /// A call from user code, for the grad-off rule (collect() calls this).
  void addCall(const clang::CallExpr *Call, const clang::FunctionDecl *Caller);
  /// A reference to a function in user code (collect() calls this), direct
  /// call or not; Unresolved: a dependent name that may denote it.
  void addReference(const clang::FunctionDecl *FD, bool Unresolved);

  using CallSite =
      std::pair<const clang::CallExpr *, const clang::FunctionDecl *>;
  /// Every call of FD, with the function containing it, when this
  /// translation unit shows them all: no other file can call FD (it is
  /// internal, or declared only in the main file and a free function or a
  /// private or protected non-virtual member; not main(), `extern "C"` or
  /// exported), it is no template, it is called at least once and it is
  /// never named except as the callee of those calls (no address taken, no
  /// dependent call that may resolve to it). Null otherwise.
  const llvm::SmallVectorImpl<CallSite> *
  allCallSites(const clang::FunctionDecl *FD) const;

  /// True if the regex option is set and valid; Error holds why not.
  bool hasNameFilter() const { return NameFilter.has_value(); }
  const std::string &regexError() const { return RegexError; }

private:
  RegionMode Mode;
  bool KernelsAreRegions;
  std::optional<llvm::Regex> NameFilter;
  std::string RegexError;
  OperatorModel Operators;
  std::vector<const clang::FunctionDecl *> Functions;
  /// Calls of each user function (by canonical declaration), with the
  /// function containing the call.
  llvm::DenseMap<
      const clang::FunctionDecl *,
      llvm::SmallVector<
          std::pair<const clang::CallExpr *, const clang::FunctionDecl *>, 2>>
      CallSites;
  /// References to each user function (by canonical declaration); ~0u once
  /// a dependent name may denote it.
  llvm::DenseMap<const clang::FunctionDecl *, unsigned> References;
  llvm::DenseMap<const clang::FunctionDecl *, bool> GradOff;
  llvm::DenseMap<const clang::FunctionDecl *, std::unique_ptr<NoGradScopes>>
      Guards;
};

} // namespace torch_tidy

#endif

//===- CompiledRegionFinder.h - Which functions torch.compile traces -*- C++
//-*-===//
//
// DESIGN section 4. A function's body runs inside a compiled region when it
// is (a) registered as a CompositeImplicitAutograd kernel in this translation
// unit (m.def(schema, fn) in TORCH_LIBRARY / TORCH_LIBRARY_FRAGMENT, m.impl
// with no key, with that key, or in TORCH_LIBRARY_IMPL(ns,
// CompositeImplicitAutograd, m)), (b) annotated
// [[clang::annotate("torch_tidy::compiled")]], (c) named by the
// CompiledFunctions regex, or (d) called, directly or through lambdas, from
// one of those. Kernels for CPU, CUDA, Meta or CompositeExplicitAutograd run
// below autograd and are not regions.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_ANALYSIS_COMPILEDREGIONFINDER_H
#define TORCH_TIDY_ANALYSIS_COMPILEDREGIONFINDER_H

#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Regex.h"
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
};

class CompiledRegionFinder {
public:
  CompiledRegionFinder(RegionMode Mode, llvm::StringRef CompiledFunctions);

  /// Collects the facts below from the user's code in TU: every top-level
  /// declaration outside system headers and outside LibTorch's and the
  /// standard library's namespaces. Walking only that code, rather than
  /// matching over the whole AST, keeps the check's cost independent of the
  /// size of <torch/torch.h>.
  void collect(const clang::TranslationUnitDecl *TU);

  /// Facts, one at a time (collect() calls these).
  void addLibraryInit(const clang::VarDecl *TorchLibraryInitVar);
  void addLibraryCall(const clang::CXXMemberCallExpr *DefOrImpl,
                      const clang::FunctionDecl *EnclosingFunction);
  void addFunction(const clang::FunctionDecl *Definition);

  /// The functions (their analysed definitions) in a compiled region, each
  /// with the reason, in a deterministic order.
  llvm::MapVector<const clang::FunctionDecl *, RegionReason> computeRegions();

  /// True if the regex option is set and valid; Error holds why not.
  bool hasNameFilter() const { return NameFilter.has_value(); }
  const std::string &regexError() const { return RegexError; }

  /// The functions that a kernel argument of def/impl names (function
  /// pointers, TORCH_FN(f), lambdas, torch::dispatch(key, f)).
  static std::vector<const clang::FunctionDecl *>
  kernelsIn(const clang::Expr *Arg);

private:
  struct LibraryInfo {
    bool HasKey = false;
    std::string Key; ///< DispatchKey name for TORCH_LIBRARY_IMPL
  };
  bool isRegisteredAsTraced(const clang::CXXMemberCallExpr *Call,
                            const clang::FunctionDecl *InitFn) const;

  RegionMode Mode;
  std::optional<llvm::Regex> NameFilter;
  std::string RegexError;
  llvm::DenseMap<const clang::FunctionDecl *, LibraryInfo> InitFunctions;
  std::vector<
      std::pair<const clang::CXXMemberCallExpr *, const clang::FunctionDecl *>>
      LibraryCalls;
  std::vector<const clang::FunctionDecl *> Functions;
};

} // namespace torch_tidy

#endif

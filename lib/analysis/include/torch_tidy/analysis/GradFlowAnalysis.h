//===- GradFlowAnalysis.h - Where fresh non-grad tensors flow --*- C++ -*-===//
//
// A forward, flow-sensitive analysis on clang's CFG of one function. For every
// local tensor variable it tracks whether it is *fresh-non-grad* (made here by
// a factory without requires_grad, on every path), a view of another local,
// known never to require grad, or possibly requiring grad. At each in-place
// write it then decides whether the target is fresh-non-grad and the source
// may require grad (docs/design.md), outside any no-grad scope.
//
// Functions are summarised for their callers: which tensor parameters they
// write in place from a value that may require grad, and which they may
// reassign. A caller that passes a fresh tensor to such a parameter is
// reported at the call site.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_ANALYSIS_GRADFLOWANALYSIS_H
#define TORCH_TIDY_ANALYSIS_GRADFLOWANALYSIS_H

#include "torch_tidy/analysis/GroundTruth.h"
#include "torch_tidy/analysis/InPlaceWrite.h"

#include "clang/AST/Decl.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallVector.h"
#include <memory>
#include <optional>
#include <vector>

namespace clang {
class ASTContext;
class CallExpr;
class LambdaExpr;
} // namespace clang

namespace torch_tidy {

/// What the analysis knows about one tensor value.
struct TensorFact {
  enum Kind : uint8_t {
    MaybeGrad, ///< may require grad (parameters, members, calls, unknown)
    NonGrad,   ///< never requires grad (literals, detach, integer tensors)
    Fresh,     ///< made here by a factory without requires_grad
    ViewOf,    ///< a view (or reference) of the local variable Base
    Param,     ///< the untouched value of parameter ParamIndex
  };
  Kind K = MaybeGrad;
  const clang::Expr *Origin = nullptr;  ///< Fresh: the factory call
  const clang::VarDecl *Base = nullptr; ///< ViewOf: the viewed variable
  unsigned ParamIndex = 0;
  /// Fresh only: it has received a write from a value that may require
  /// grad, so in eager mode it now requires grad itself.
  bool Written = false;
  /// MaybeGrad only: when nonzero, the value is computed from these
  /// parameters (bit I: parameter I) and carries grad only through them.
  uint64_t FromParams = 0;

  static TensorFact maybeGrad() { return {}; }
  static TensorFact nonGrad() { return {NonGrad}; }
  static TensorFact fresh(const clang::Expr *Origin) { return {Fresh, Origin}; }
  bool operator==(const TensorFact &O) const {
    return K == O.K && Origin == O.Origin && Base == O.Base &&
           ParamIndex == O.ParamIndex && Written == O.Written &&
           FromParams == O.FromParams;
  }
  bool operator!=(const TensorFact &O) const { return !(*this == O); }
};

/// An in-place write, from a value that may require grad, into (a view or
/// alias of) a parameter: the summary that callers use, and what the
/// mutable-argument rule reads for an operator's kernel.
struct ParamWrite {
  InPlaceWrite Write;
  unsigned ParamIndex;
  /// The function containing Write (may be deeper than the summarised one).
  const clang::FunctionDecl *WriteFunction;
  /// The write lands in a view of the parameter (t.narrow(...).copy_(v)),
  /// not in the whole tensor.
  bool ThroughView = false;
  /// The call in the summarised function through which the write happens;
  /// null when Write is in the summarised function itself.
  const clang::CallExpr *Via = nullptr;
  /// When the written value carries grad only if some parameters do (the
  /// source is a parameter, as in a helper `dst.copy_(src)`), those
  /// parameters; the caller decides from its arguments. Empty when the
  /// value may require grad whatever the arguments are.
  llvm::SmallVector<unsigned, 2> GradOnlyFromParams;
  /// The expression in the summarised function that carries the grad into
  /// Via (its argument for such a parameter), for messages; Write.Source
  /// when null.
  const clang::Expr *SourceAtVia = nullptr;

  /// Whether the write is a sliced or indexed write, the kind that counts
  /// for a fresh local target, or in-place arithmetic through a view of it
  /// (measured: python_view_arith).
  bool countsForFreshTarget() const {
    if (Write.Kind == WriteKind::OtherInPlaceOp)
      return ThroughView &&
             ground_truth::freshViewArithmeticMeasured(Write.Method);
    return !Write.OnlyMutableTargets && (!Write.NeedsView || ThroughView);
  }
};

/// How a write inside a lambda reaches a fresh local of the function the
/// lambda is written in.
struct CapturedWrite {
  const clang::LambdaExpr *Lambda = nullptr; ///< the outermost lambda
  enum Kind : uint8_t {
    ByReference, ///< every lambda on the way captures the target by reference
    ByValue,     ///< a capture by value: a copy of the handle, sharing the data
    ThroughView, ///< the target is not captured, a view of it is (View)
  };
  Kind How = ByValue;
  const clang::VarDecl *View = nullptr; ///< ThroughView: the view, if known
  bool Nested = false; ///< the write is in a lambda inside the lambda
};

/// An in-place write into a fresh-non-grad local from a value that may
/// require grad.
struct HazardousWrite {
  InPlaceWrite Write;
  const clang::VarDecl *Target;
  const clang::Expr *TargetOrigin; ///< the factory call that made Target
  /// When the written value carries grad only through some parameters of
  /// the function, those parameters (callers decide); empty otherwise.
  llvm::SmallVector<unsigned, 2> GradOnlyFromParams = {};
  /// Set when the write is in a lambda that captures Target.
  std::optional<CapturedWrite> Captured = std::nullopt;
};

/// A call that passes a fresh-non-grad local to a same-TU function which
/// writes into it in place from a value that may require grad.
struct HazardousCall {
  const clang::CallExpr *Call;
  const clang::FunctionDecl *Callee;
  const clang::VarDecl *Target;
  const clang::Expr *TargetOrigin;
  ParamWrite Inner;
  /// As for HazardousWrite: the caller's parameters the grad comes through.
  llvm::SmallVector<unsigned, 2> GradOnlyFromParams = {};
  /// Set when the call is in a lambda that captures Target.
  std::optional<CapturedWrite> Captured = std::nullopt;
};

/// What a call passes for one parameter of a same-TU callee, as far as
/// grad goes: a value that never requires grad (or the call runs under a
/// no-grad guard), one that may, or the caller's own untouched parameter.
struct ArgumentGrad {
  enum Kind : uint8_t { None, Maybe, FromParams };
  Kind K = Maybe;
  uint64_t Params = 0; ///< FromParams: the caller's parameters (bit I: I)
};

/// The arguments of one call to a same-TU function with a body.
struct CallArguments {
  const clang::CallExpr *Call;
  llvm::SmallVector<ArgumentGrad, 4> Params; ///< by the callee's parameter
};

/// Work counters, for the linear-scaling regression guard.
struct FlowStats {
  unsigned FunctionsAnalysed = 0;
  unsigned FunctionsSkipped = 0; ///< no write and no call worth a CFG
  unsigned BlocksVisited = 0;
  unsigned CFGBlocks = 0;
  unsigned ElementsVisited = 0;
  /// Sum, over block visits, of the facts carried in: linear when dead
  /// facts are pruned, quadratic in a long function when they are not.
  uint64_t StateEntries = 0;
  unsigned MaxStateSize = 0;
};

struct FunctionFlowResult {
  std::vector<HazardousWrite> Writes;
  std::vector<HazardousCall> Calls;
  std::vector<ParamWrite> ParamWrites;   ///< summary for callers
  llvm::SmallBitVector ReassignedParams; ///< summary for callers
  std::vector<CallArguments> CallArgs;   ///< what this function passes
};

class GradFlowAnalysis {
public:
  explicit GradFlowAnalysis(clang::ASTContext &Ctx);
  ~GradFlowAnalysis();

  /// Analyses FD's body once (memoised). Template instantiations are mapped
  /// to their pattern, so a template is analysed once.
  const FunctionFlowResult &analyse(const clang::FunctionDecl *FD);

  const FlowStats &stats() const { return Stats; }

private:
  class FunctionRun;
  clang::ASTContext &Ctx;
  llvm::DenseMap<const clang::FunctionDecl *,
                 std::unique_ptr<FunctionFlowResult>>
      Results;
  llvm::DenseSet<const clang::FunctionDecl *> InProgress;
  llvm::DenseMap<const clang::CallExpr *, bool> FactoryMayRequireGrad;
  FlowStats Stats;
};

} // namespace torch_tidy

#endif

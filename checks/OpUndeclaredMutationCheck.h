//===- OpUndeclaredMutationCheck.h ----------------------------*- C++ -*-===//
#ifndef TORCH_TIDY_CHECKS_OPUNDECLAREDMUTATIONCHECK_H
#define TORCH_TIDY_CHECKS_OPUNDECLAREDMUTATIONCHECK_H

#include "TorchTidyCheck.h"
#include "torch_tidy/operators/Consequence.h"
#include "llvm/ADT/DenseSet.h"

namespace torch_tidy {

struct RegisteredOperator;
class OperatorModel;
struct KernelRegistration;
struct KernelSite;
class ArgumentMutationAnalysis;

/// Finds operator kernels, registered in the translation unit, that write
/// into a tensor argument (or a view or alias of it) which the operator's
/// schema does not declare mutable (`Tensor(a!)`), and kernels that return
/// an argument or a view of it when the schema's return has no alias
/// annotation. torch.library.opcheck's test_schema rejects both; under
/// torch.compile the first gives silently wrong values. The fix-it adds the
/// annotation to the schema literal (mutation) or returns a copy (aliasing).
///
/// For the user-facing documentation see:
/// docs/checks/torch-op-undeclared-mutation.md
class OpUndeclaredMutationCheck : public TorchTidyCheck {
public:
  OpUndeclaredMutationCheck(llvm::StringRef Name,
                            clang::tidy::ClangTidyContext *Context);
  void storeOptions(clang::tidy::ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  bool reports(const KernelRegistration &K, Consequence Class) const;
  void checkOperator(const RegisteredOperator &Op,
                     ArgumentMutationAnalysis &Analysis,
                     clang::ASTContext &Ctx);
  /// Functions of this translation unit that a pybind11 module binds and a
  /// Python custom op calls: their writes into an argument the custom op
  /// passes from one of its own parameters without listing it in
  /// mutates_args.
  void checkPybindCallees(ArgumentMutationAnalysis &Analysis,
                          clang::ASTContext &Ctx);
  /// The note that says where kernel K of Op is registered.
  void noteRegistration(const KernelRegistration &K,
                        const RegisteredOperator &Op);
  /// The note that names the fake registration a silent consequence rests
  /// on, at Loc.
  void noteFake(clang::SourceLocation Loc, const RegisteredOperator &Op,
                const KernelSite &Fake);
  /// Says that Operator's registrations are torch's registry's (Torch its
  /// version; nothing when empty).
  void noteRegistry(clang::SourceLocation Loc, llvm::StringRef Operator,
                    llvm::StringRef Torch);
  void noteFakeAt(clang::SourceLocation Loc, llvm::StringRef Operator,
                  const KernelSite &Fake);
  /// Where the project marks the operator torch._dynamo.disallow_in_graph:
  /// the calls through that mark's result are exempt from the silent class.
  /// Where the project calls the operator inside a Python custom op: what
  /// compiled callers of that custom op see of the write of Argument (the
  /// schema argument's index and name; none for an operator that returns
  /// nothing and declares nothing), by what its mutates_args lists.
  void noteOpaqueCallers(clang::SourceLocation Loc, llvm::StringRef Operator,
                         llvm::ArrayRef<KernelSite> Sites,
                         std::optional<unsigned> Argument,
                         llvm::StringRef ArgumentName);
  void noteDisallowed(clang::SourceLocation Loc, llvm::StringRef Operator,
                      llvm::ArrayRef<KernelSite> Sites);
  /// The warning on an operator that returns nothing and declares nothing
  /// mutable.
  void diagVoid(clang::SourceLocation At, llvm::StringRef Operator,
                bool Inferred, Consequence Class,
                llvm::ArrayRef<KernelSite> Sites);
  /// In a file that did not parse: the operators defined in it that the
  /// parse missed, judged from the project index (their schemas' text,
  /// kernels and fakes) where that suffices (`-> ()` schemas).
  void reportFromIndex(const OperatorModel &Model, clang::ASTContext &Ctx);

  /// Also report kernels registered for CompositeImplicitAutograd, where
  /// opcheck passes and torch.compile gave eager's values (measured).
  const bool CompositeKernels;
  /// Report returns of an argument or a view of it without an alias
  /// annotation.
  const bool Aliasing;
  /// "any": every undeclared mutation; "silent": only operators whose
  /// consequence is silent for the project as it ships (a fake kernel is
  /// registered for them).
  const std::string ConsequenceFilter;
  /// Where the project is, for schemas declared in its other files.
  const std::string ProjectRoot;
  /// Returns already given their fix in this translation unit.
  llvm::DenseSet<const clang::Stmt *> FixedReturns;
};

} // namespace torch_tidy

#endif

//===- CompileRequiresGradPropagationCheck.h ------------------*- C++ -*-===//
#ifndef TORCH_TIDY_CHECKS_COMPILEREQUIRESGRADPROPAGATIONCHECK_H
#define TORCH_TIDY_CHECKS_COMPILEREQUIRESGRADPROPAGATIONCHECK_H

#include "torch_tidy/analysis/CompiledRegionFinder.h"
#include "torch_tidy/rewrite/OutOfPlaceRewrite.h"

#include "TorchTidyCheck.h"
#include <memory>
#include <vector>

namespace torch_tidy {

class GradFlowAnalysis;

/// Finds in-place writes, from a value that may require grad, that leave
/// torch.compile reporting requires_grad() == false: writes into an
/// operator's mutable (`Tensor(a!)`) argument, which a compiled caller owns,
/// and sliced or indexed writes into a tensor created without gradient
/// tracking in code the user marks as compiled.
///
/// For the user-facing documentation see:
/// docs/checks/torch-compile-requires-grad-propagation.md
class CompileRequiresGradPropagationCheck : public TorchTidyCheck {
public:
  CompileRequiresGradPropagationCheck(llvm::StringRef Name,
                                      clang::tidy::ClangTidyContext *Context);
  ~CompileRequiresGradPropagationCheck() override;
  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void registerPPCallbacks(const clang::SourceManager &SM,
                           clang::Preprocessor *PP,
                           clang::Preprocessor *ModuleExpanderPP) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void storeOptions(clang::tidy::ClangTidyOptions::OptionMap &Opts) override;

private:
  struct Report;
  void reportRegions(CompiledRegionFinder &Finder, GradFlowAnalysis &Flow,
                     clang::ASTContext &Context, std::vector<Report> &Out);
  /// The note that says how the lambda a write is in reaches Target.
  void captureNote(const clang::VarDecl *Target, const CapturedWrite &Captured);
  void reportMutableArguments(const OperatorModel &Operators,
                              GradFlowAnalysis &Flow,
                              clang::ASTContext &Context,
                              std::vector<Report> &Out);
  void reportSchemaProblems(const OperatorModel &Operators,
                            clang::ASTContext &Context,
                            std::vector<Report> &Out);

  /// The LibTorch version whose spellings fixes use: the option, or what
  /// torch/version.h says, or 2.8.
  LibTorchVersion libTorchVersion() const;

  const RegionMode Mode;
  const std::string CompiledFunctions;
  const FixStyle Style;
  const bool StrictFixes;
  const std::string LibTorchVersionOption;
  /// Where the project is, for schemas declared in its other files.
  const std::string ProjectRoot;
  const bool FreshTargetsInKernels;
  /// FixColumnLimit: the column a rewritten statement is laid out within
  /// (0: one line, as long as it is).
  const unsigned FixColumnLimit;
  clang::Preprocessor *PP = nullptr;
};

} // namespace torch_tidy

namespace clang::tidy {
template <> struct OptionEnumMapping<torch_tidy::RegionMode> {
  static llvm::ArrayRef<std::pair<torch_tidy::RegionMode, StringRef>>
  getEnumMapping();
};
template <> struct OptionEnumMapping<torch_tidy::FixStyle> {
  static llvm::ArrayRef<std::pair<torch_tidy::FixStyle, StringRef>>
  getEnumMapping();
};
} // namespace clang::tidy

#endif

//===- WriteIntoCopyCheck.h -----------------------------------*- C++ -*-===//
#ifndef TORCH_TIDY_CHECKS_WRITEINTOCOPYCHECK_H
#define TORCH_TIDY_CHECKS_WRITEINTOCOPYCHECK_H

#include "TorchTidyCheck.h"
#include "llvm/ADT/DenseSet.h"

namespace clang {
class CXXMemberCallExpr;
} // namespace clang

namespace torch_tidy {

struct ArgumentWrite;
struct ArgumentMutationResult;

/// Finds writes into the result of a method that returns its receiver when
/// nothing needs changing and a new tensor otherwise (`out.contiguous()`,
/// `self.to(at::kFloat)`, `out.reshape(...)`, ...), made on a tensor
/// argument the code means to update (declared `Tensor(a!)`, taken as
/// `Tensor &`, returned, or read after the write), with no write-back to it
/// on every path and no guard that rules the copy out. Where the copy is
/// made, the write is lost and the caller's tensor is left unchanged, in
/// eager mode and compiled; opcheck passes (measured,
/// docs/ground-truth-write-into-copy.md). The fix-it writes the copy back,
/// or, where no local holds it, checks that no copy is needed.
///
/// For the user-facing documentation see:
/// docs/checks/torch-write-into-copy.md
class WriteIntoCopyCheck : public TorchTidyCheck {
public:
  WriteIntoCopyCheck(llvm::StringRef Name,
                     clang::tidy::ClangTidyContext *Context);
  void storeOptions(clang::tidy::ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// Also report an argument whose only sign of being meant to be updated
  /// is that the function reads it after the write.
  const bool ReadAfterWrite;
  /// Where the project is, for schemas declared in its other files.
  const std::string ProjectRoot;
  /// The copying calls already reported in this translation unit.
  llvm::DenseSet<const clang::CXXMemberCallExpr *> Reported;
};

} // namespace torch_tidy

#endif

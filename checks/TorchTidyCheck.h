//===- TorchTidyCheck.h - What every torch-tidy check shares ---*- C++ -*-===//
#ifndef TORCH_TIDY_CHECKS_TORCHTIDYCHECK_H
#define TORCH_TIDY_CHECKS_TORCHTIDYCHECK_H

#include "clang-tidy/ClangTidyCheck.h"

namespace torch_tidy {

/// A clang-tidy check with the option helpers the torch checks share.
class TorchTidyCheck : public clang::tidy::ClangTidyCheck {
public:
  using ClangTidyCheck::ClangTidyCheck;

protected:
  /// A bool option, read as a string: OptionsView::get<bool> is a template
  /// specialisation whose mangled name differs between the compiler that
  /// built clang-tidy and g++, so a module built with g++ could not link
  /// against it. A value that is not a bool is reported and Default used.
  bool boolOption(llvm::StringRef Name, bool Default);
  /// Stores a bool option as boolOption reads it.
  void storeBool(clang::tidy::ClangTidyOptions::OptionMap &Opts,
                 llvm::StringRef Name, bool Value);
};

} // namespace torch_tidy

#endif

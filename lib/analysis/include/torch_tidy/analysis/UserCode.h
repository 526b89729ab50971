//===- UserCode.h - The user's functions of a translation unit -*- C++ -*-===//
//
// A check that analyses whole functions matches the translation unit once
// and walks only the user's code: an AST matcher on every FunctionDecl is
// evaluated on every function of <torch/torch.h> too, which costs seconds
// per file (docs/performance.md).
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_ANALYSIS_USERCODE_H
#define TORCH_TIDY_ANALYSIS_USERCODE_H

#include "clang/AST/Decl.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace torch_tidy {

/// A top-level declaration of the user's code: not in a system header and
/// not a namespace of a library (at, c10, torch, caffe2, std, __gnu_cxx,
/// pybind11), which a file may see through -I instead of -isystem.
bool isUserTopLevelDecl(const clang::Decl *D, const clang::SourceManager &SM);

/// Calls F on every function definition with a body outside system headers:
/// functions, methods, lambdas' call operators; never instantiations, and
/// template patterns (dependent bodies) only when IncludeDependent. Each
/// function once.
void forEachUserFunction(
    const clang::TranslationUnitDecl *TU,
    llvm::function_ref<void(const clang::FunctionDecl *)> F,
    bool IncludeDependent = false);

} // namespace torch_tidy

#endif

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
#include "clang/AST/Expr.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace torch_tidy {

/// The one policy for what is the user's code, which the checks walk and
/// report in: a declaration not in a system header and not inside a
/// namespace of a library (at, c10, torch, caffe2, std, __gnu_cxx,
/// pybind11), which a file may see through -I instead of -isystem.
bool isUserDecl(const clang::Decl *D);

/// Whether E is written in the user's code: the token that does E's work
/// (its getExprLoc(): the called member's name, an assignment's operator)
/// is neither expanded in a system header nor spelled by a macro of one. A
/// write a library macro's body spells is the library's code; a write the
/// user passes as a macro argument (TORCH_CHECK(...), a dispatch lambda) is
/// the user's, whichever token starts it.
bool isUserSpelled(const clang::Expr *E, const clang::SourceManager &SM);

/// Calls F on every function definition with a body in the user's code
/// (isUserDecl, tested on the top-level declarations): functions, methods,
/// lambdas' call operators; never instantiations, and template patterns
/// (dependent bodies) only when IncludeDependent. Each function once.
void forEachUserFunction(
    const clang::TranslationUnitDecl *TU,
    llvm::function_ref<void(const clang::FunctionDecl *)> F,
    bool IncludeDependent = false);

/// The body an analysis reads for FD, which the user's code calls or
/// registers: its definition, or for an instantiation the template
/// pattern's; null if there is none or it is in a system header. (A kernel
/// the user defines in namespace at is still read.)
const clang::FunctionDecl *userDefinition(const clang::FunctionDecl *FD);

} // namespace torch_tidy

#endif

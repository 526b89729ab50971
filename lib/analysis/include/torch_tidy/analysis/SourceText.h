//===- SourceText.h - The text of source ranges ----------------*- C++ -*-===//
//
// What messages quote and fixes copy: the text the user wrote. Empty where
// the range is invalid or spans files or macro expansions the lexer cannot
// map back.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_ANALYSIS_SOURCETEXT_H
#define TORCH_TIDY_ANALYSIS_SOURCETEXT_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/StringRef.h"

namespace torch_tidy {

/// The text of R's tokens, the last one included.
llvm::StringRef sourceText(clang::SourceRange R, const clang::ASTContext &Ctx);
inline llvm::StringRef sourceText(const clang::Stmt *S,
                                  const clang::ASTContext &Ctx) {
  return sourceText(S->getSourceRange(), Ctx);
}

/// The text from B up to, not including, E.
llvm::StringRef sourceTextBetween(clang::SourceLocation B,
                                  clang::SourceLocation E,
                                  const clang::ASTContext &Ctx);

/// The location just past the token that starts at L.
clang::SourceLocation endOfToken(clang::SourceLocation L,
                                 const clang::ASTContext &Ctx);

} // namespace torch_tidy

#endif

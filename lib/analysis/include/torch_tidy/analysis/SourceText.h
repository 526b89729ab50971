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
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace torch_tidy {

/// The text of R's tokens, the last one included.
llvm::StringRef sourceText(clang::SourceRange R, const clang::ASTContext &Ctx);
inline llvm::StringRef sourceText(const clang::Stmt *S,
                                  const clang::ASTContext &Ctx) {
  return sourceText(S->getSourceRange(), Ctx);
}

/// E as a message quotes it: its source text on one line, runs of spaces
/// folded, cut to MaxLength characters (ending in "..."). Where E has no
/// text of its own (written by a macro the lexer cannot map back), E as
/// Clang prints it, so a message never quotes ''.
std::string messageText(const clang::Expr *E, const clang::ASTContext &Ctx,
                        std::size_t MaxLength = 40);

/// The text from B up to, not including, E.
llvm::StringRef sourceTextBetween(clang::SourceLocation B,
                                  clang::SourceLocation E,
                                  const clang::ASTContext &Ctx);

/// The location just past the token that starts at L.
clang::SourceLocation endOfToken(clang::SourceLocation L,
                                 const clang::ASTContext &Ctx);

/// Where the file text from B up to E spells the identifier Name as a name
/// of its own: not after '.', '->' or '::' (a member, a qualified name), and
/// not in comments or string literals. What a rename of a local must cover,
/// macro arguments that expand to nothing included. Empty where B and E are
/// not locations of one file.
std::vector<clang::SourceLocation>
identifierSpellings(clang::SourceLocation B, clang::SourceLocation E,
                    llvm::StringRef Name, const clang::ASTContext &Ctx);

} // namespace torch_tidy

#endif

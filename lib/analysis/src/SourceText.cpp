//===- SourceText.cpp - The text of source ranges -------------------------===//

#include "torch_tidy/analysis/SourceText.h"

#include "clang/Lex/Lexer.h"

using namespace clang;

namespace torch_tidy {

StringRef sourceText(SourceRange R, const ASTContext &Ctx) {
  return Lexer::getSourceText(CharSourceRange::getTokenRange(R),
                              Ctx.getSourceManager(), Ctx.getLangOpts());
}

StringRef sourceTextBetween(SourceLocation B, SourceLocation E,
                            const ASTContext &Ctx) {
  return Lexer::getSourceText(CharSourceRange::getCharRange(B, E),
                              Ctx.getSourceManager(), Ctx.getLangOpts());
}

SourceLocation endOfToken(SourceLocation L, const ASTContext &Ctx) {
  return Lexer::getLocForEndOfToken(L, 0, Ctx.getSourceManager(),
                                    Ctx.getLangOpts());
}

} // namespace torch_tidy

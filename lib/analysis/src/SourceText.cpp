//===- SourceText.cpp - The text of source ranges -------------------------===//

#include "torch_tidy/analysis/SourceText.h"

#include "clang/Lex/Lexer.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace torch_tidy {

StringRef sourceText(SourceRange R, const ASTContext &Ctx) {
  return Lexer::getSourceText(CharSourceRange::getTokenRange(R),
                              Ctx.getSourceManager(), Ctx.getLangOpts());
}

std::string messageText(const Expr *E, const ASTContext &Ctx,
                        std::size_t MaxLength) {
  std::string Raw = sourceText(E, Ctx).str();
  if (Raw.empty()) {
    llvm::raw_string_ostream OS(Raw);
    E->printPretty(OS, nullptr, Ctx.getPrintingPolicy());
  }
  std::string Text;
  for (char C : Raw)
    if (!(C == ' ' && !Text.empty() && Text.back() == ' ') && C != '\n')
      Text.push_back(C);
  if (Text.size() > MaxLength && MaxLength > 3)
    Text = Text.substr(0, MaxLength - 3) + "...";
  return Text;
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

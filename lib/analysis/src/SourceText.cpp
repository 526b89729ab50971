//===- SourceText.cpp - The text of source ranges -------------------------===//

#include "torch_tidy/analysis/SourceText.h"

#include "clang/Basic/SourceManager.h"
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

std::vector<SourceLocation> identifierSpellings(SourceLocation B,
                                                SourceLocation E,
                                                StringRef Name,
                                                const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<SourceLocation> Found;
  if (!B.isFileID() || !E.isFileID() || !SM.isWrittenInSameFile(B, E) ||
      SM.isBeforeInTranslationUnit(E, B))
    return Found;
  auto [File, Begin] = SM.getDecomposedLoc(B);
  StringRef Buffer = SM.getBufferData(File);
  unsigned End = SM.getFileOffset(E);
  // The lexer reads up to the buffer's own end (its NUL); the tokens from E
  // on are not looked at.
  Lexer Raw(SM.getLocForStartOfFile(File), Ctx.getLangOpts(), Buffer.begin(),
            Buffer.begin() + Begin, Buffer.end());
  Token T;
  tok::TokenKind Before = tok::unknown;
  for (bool AtEnd = false; !AtEnd;) {
    AtEnd = Raw.LexFromRawLexer(T);
    if (T.is(tok::eof) || SM.getFileOffset(T.getLocation()) >= End)
      break;
    if (T.is(tok::raw_identifier) && T.getRawIdentifier() == Name &&
        Before != tok::period && Before != tok::arrow &&
        Before != tok::coloncolon)
      Found.push_back(T.getLocation());
    Before = T.getKind();
  }
  return Found;
}

} // namespace torch_tidy

//===- StatementLayout.cpp - A fix's statement within a column limit ------===//
//
// Part of torch-tidy.
//
//===----------------------------------------------------------------------===//

#include "torch_tidy/rewrite/StatementLayout.h"

#include "clang/Format/Format.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

using namespace llvm;

namespace torch_tidy {

unsigned widestLine(StringRef Text, unsigned FirstColumn) {
  SmallVector<StringRef, 8> Lines;
  Text.split(Lines, '\n');
  unsigned Widest = 0;
  for (size_t I = 0; I < Lines.size(); ++I)
    Widest = std::max<unsigned>(Widest, (I == 0 ? FirstColumn : 0) +
                                            Lines[I].rtrim('\r').size());
  return Widest;
}

namespace {
std::string withoutWhitespace(StringRef Text) {
  std::string Out;
  for (char C : Text)
    if (!isSpace(C))
      Out += C;
  return Out;
}
} // namespace

std::string layOutStatement(StringRef Text, StringRef LinePrefix,
                            unsigned ColumnLimit, unsigned LineSuffix) {
  // The statement's `;` follows Text, then the rest of its line.
  if (ColumnLimit == 0 ||
      widestLine(Text.str() + ";" + std::string(LineSuffix, ' '),
                 LinePrefix.size()) <= ColumnLimit)
    return Text.str();
  if (LinePrefix.find_first_of("\t\r\n") != StringRef::npos ||
      Text.contains("//") || Text.contains("/*") || Text.contains('#') ||
      Text.contains("R\""))
    return Text.str();
  // Laid out in a function body at clang-format's indent of 2, with the
  // limit shifted to the write's column. After code on its line (`if (c)
  // `), the statement is laid out as if it started a line at that column:
  // clang-format would move it to a line of its own.
  const unsigned BodyIndent = 2;
  if (ColumnLimit < LinePrefix.size() + LineSuffix + 20)
    return Text.str(); // no room to lay anything out
  clang::format::FormatStyle Style = clang::format::getLLVMStyle();
  Style.ColumnLimit = ColumnLimit - LinePrefix.size() - LineSuffix + BodyIndent;
  Style.BreakStringLiterals = false;
  const std::string Head = "void f() {\n" + std::string(BodyIndent, ' ');
  std::string Snippet = Head + Text.str() + ";\n}\n";
  clang::tooling::Replacements Edits = clang::format::reformat(
      Style, Snippet,
      {clang::tooling::Range(Head.size(), unsigned(Text.size()) + 1)},
      "<torch-tidy fix>");
  Expected<std::string> Formatted =
      clang::tooling::applyAllReplacements(Snippet, Edits);
  if (!Formatted) {
    consumeError(Formatted.takeError());
    return Text.str();
  }
  StringRef F = *Formatted;
  size_t End = F.rfind(";\n}");
  if (End == StringRef::npos || End < Head.size() || !F.consume_front(Head))
    return Text.str();
  StringRef Body = F.take_front(End - Head.size());
  SmallVector<StringRef, 8> Lines;
  Body.split(Lines, '\n');
  std::string Out = Lines.front().str();
  for (StringRef Line : ArrayRef(Lines).drop_front()) {
    if (!Line.consume_front(std::string(BodyIndent, ' ')))
      return Text.str();
    Out += "\n" + std::string(LinePrefix.size(), ' ') + Line.str();
  }
  if (withoutWhitespace(Out) != withoutWhitespace(Text) ||
      (!Out.empty() && isSpace(Out.front())))
    return Text.str();
  return Out;
}

} // namespace torch_tidy

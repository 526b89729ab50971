//===- StatementLayout.h - A fix's statement within a column limit --------===//
//
// Part of torch-tidy.
//
//===----------------------------------------------------------------------===//
//
// The rewrites spell a whole statement on one line; the general forms run to
// two hundred columns. Where such a statement starts its line, it is laid out
// as clang-format's LLVM style lays it out within the check's column limit,
// so the fixed code reads as the code around it does.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_REWRITE_STATEMENTLAYOUT_H
#define TORCH_TIDY_REWRITE_STATEMENTLAYOUT_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace torch_tidy {

/// The text of the statement `Text;`, which follows LinePrefix on its line
/// (its indentation, and any code before it, as `if (c) `) and is followed
/// by LineSuffix more characters of code (a one-line lambda's ` };`), laid
/// out within ColumnLimit columns (all of them included, each line of Text
/// kept LineSuffix short of the limit): Text itself where every line fits
/// or ColumnLimit is 0; else Text with line breaks placed by
/// clang-format (LLVM style) as if the statement started a line at its
/// column, so each continuation line is indented from the write's column.
/// Only whitespace changes: Text is returned as it is where the layout
/// would change anything else, where LinePrefix holds a tab, and where Text
/// holds a comment, a preprocessor line or a raw string literal.
std::string layOutStatement(llvm::StringRef Text, llvm::StringRef LinePrefix,
                            unsigned ColumnLimit, unsigned LineSuffix = 0);

/// The widest line of Text (the first line counted from column
/// FirstColumn), in characters.
unsigned widestLine(llvm::StringRef Text, unsigned FirstColumn);

} // namespace torch_tidy

#endif

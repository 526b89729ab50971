//===- ExportFixes.h - Reading clang-tidy --export-fixes YAML --*- C++ -*-===//
//
// Shared by torch-tidy-verify and torch-tidy-sarif: the documents of an
// export-fixes file, read with clang's own YAML schema, and line/column of
// file offsets.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_TOOLS_EXPORTFIXES_H
#define TORCH_TIDY_TOOLS_EXPORTFIXES_H

#include "clang/Tooling/Core/Diagnostic.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <utility>
#include <vector>

namespace torch_tidy {

/// Every document of the file (or stdin for "-"). Keys newer clang-tidy
/// versions add are ignored. The error says, in one line, why the file
/// cannot be read, is empty or is not export-fixes YAML.
llvm::Expected<std::vector<clang::tooling::TranslationUnitDiagnostics>>
readExportFixes(llvm::StringRef Path);

/// 1-based line and column of offsets into source files, each file read
/// once; {0, 0} when the file cannot be read or the offset is past its end.
class SourceLines {
public:
  std::pair<unsigned, unsigned> lineColumn(llvm::StringRef File,
                                           unsigned Offset);

private:
  llvm::StringMap<std::optional<std::vector<unsigned>>> Starts;
};

} // namespace torch_tidy

#endif

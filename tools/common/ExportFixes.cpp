//===- ExportFixes.cpp - Reading clang-tidy --export-fixes YAML -----------===//

#include "ExportFixes.h"

#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLTraits.h"

#include <algorithm>

using namespace llvm;
namespace tooling = clang::tooling;

namespace torch_tidy {

Expected<std::vector<tooling::TranslationUnitDiagnostics>>
readExportFixes(StringRef Path) {
  auto Buffer = MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/true);
  if (!Buffer)
    return createStringError(Buffer.getError(),
                             "cannot read '" + Path +
                                 "': " + Buffer.getError().message());
  StringRef Text = (*Buffer)->getBuffer();
  if (Text.trim().empty())
    return createStringError(
        inconvertibleErrorCode(),
        "'" + Path +
            "' is empty; expected the YAML of clang-tidy --export-fixes");
  // YAML errors are collected (the first one, with its position), not
  // printed raw; warnings (unknown keys) are dropped.
  std::string ParseError;
  auto OnDiag = [](const SMDiagnostic &D, void *Context) {
    auto &E = *static_cast<std::string *>(Context);
    if (D.getKind() == SourceMgr::DK_Error && E.empty())
      E = (Twine(D.getLineNo()) + ":" + Twine(D.getColumnNo() + 1) + ": " +
           D.getMessage())
              .str();
  };
  yaml::Input YIn(Text, nullptr, OnDiag, &ParseError);
  YIn.setAllowUnknownKeys(true);
  std::vector<tooling::TranslationUnitDiagnostics> Documents;
  do {
    tooling::TranslationUnitDiagnostics TU;
    YIn >> TU;
    if (YIn.error())
      return createStringError(
          YIn.error(),
          "'" + Path + "' is not a clang-tidy export-fixes file: " +
              (ParseError.empty() ? YIn.error().message() : ParseError));
    Documents.push_back(std::move(TU));
  } while (YIn.nextDocument());
  return Documents;
}

std::pair<unsigned, unsigned> SourceLines::lineColumn(StringRef File,
                                                      unsigned Offset) {
  auto It = Starts.find(File);
  if (It == Starts.end()) {
    std::optional<std::vector<unsigned>> Lines;
    if (auto Buffer = MemoryBuffer::getFile(File)) {
      Lines.emplace(1, 0);
      StringRef Text = (*Buffer)->getBuffer();
      for (size_t I = 0; I < Text.size(); ++I)
        if (Text[I] == '\n')
          Lines->push_back(unsigned(I + 1));
      Lines->push_back(unsigned(Text.size() + 1)); // one past the end
    }
    It = Starts.try_emplace(File, std::move(Lines)).first;
  }
  const auto &Lines = It->second;
  if (!Lines || Offset >= Lines->back())
    return {0, 0};
  auto Next = std::upper_bound(Lines->begin(), Lines->end() - 1, Offset);
  return {unsigned(Next - Lines->begin()), Offset - *(Next - 1) + 1};
}

} // namespace torch_tidy

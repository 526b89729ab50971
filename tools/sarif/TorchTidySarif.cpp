//===- TorchTidySarif.cpp - clang-tidy output to SARIF 2.1.0
//---------------===//
//
// torch-tidy-sarif [LOG|-] [--fixes FIXES.yaml] [--source-root DIR]
//                  [-o OUT.sarif]
//
// Converts clang-tidy's (or torch-tidy's) text output and/or the YAML of
// --export-fixes into one SARIF 2.1.0 log for code-scanning dashboards:
// a rule per check, a result per warning or error with its location and
// message, its notes as related locations, and its fix-it as a SARIF fix.
// With only a log, fixes are not known; with only the YAML, the results come
// from it. With both, each result takes the fixes of the YAML diagnostic with
// the same check, file, position and message.
//
// Exit status: 0 on success, 2 when an input cannot be read or parsed.
//
//===----------------------------------------------------------------------===//

#include "ExportFixes.h"

#include "clang/Tooling/Core/Diagnostic.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>

using namespace llvm;
namespace tooling = clang::tooling;

namespace {

cl::OptionCategory Category("torch-tidy-sarif options");
cl::opt<std::string> LogPath(cl::Positional,
                             cl::desc("[clang-tidy output, or - for stdin]"),
                             cl::cat(Category));
cl::opt<std::string> FixesPath("fixes",
                               cl::desc("YAML written by --export-fixes"),
                               cl::value_desc("file"), cl::cat(Category));
cl::opt<std::string>
    OutputPath("o", cl::desc("Write the SARIF here (default: stdout)"),
               cl::value_desc("file"), cl::cat(Category));
cl::opt<std::string> SourceRoot(
    "source-root",
    cl::desc("Files under this directory get URIs relative to it (uriBaseId "
             "SRCROOT), as code-scanning services expect"),
    cl::value_desc("dir"), cl::cat(Category));

struct Loc {
  std::string File;
  unsigned Line = 0, Column = 0; // 1-based; 0 when unknown
  std::optional<unsigned> Offset;
};

struct Note {
  Loc Where;
  std::string Message;
};

struct Edit {
  std::string File;
  unsigned Offset, Length;
  std::string Text;
};

struct Finding {
  std::string Check, Level, Message;
  Loc Where;
  std::vector<Note> Notes;
  std::vector<Edit> Edits;
  std::string FixNote; // "rule: <id>" when the fix names its rule
};

std::string error(const Twine &Message) {
  errs() << "torch-tidy-sarif: error: " << Message << "\n";
  return "";
}

/// Line and column of a location known by offset (from the YAML).
void fillLineColumn(torch_tidy::SourceLines &Lines, Loc &L) {
  if (!L.Offset || L.Line)
    return;
  std::tie(L.Line, L.Column) = Lines.lineColumn(L.File, *L.Offset);
}

std::string levelOf(StringRef Severity) {
  if (Severity == "error" || Severity == "fatal error")
    return "error";
  if (Severity == "warning")
    return "warning";
  return "note";
}

/// Parses clang-tidy's text output: `file:line:col: severity: message
/// [check]` lines; notes attach to the finding before them; source echoes,
/// carets and summaries are skipped.
bool parseLog(StringRef Text, std::vector<Finding> &Out) {
  Regex Line(
      "^(.+):([0-9]+):([0-9]+): (warning|error|fatal error|note|remark): "
      "(.*)$");
  Regex Check("^(.*) \\[([A-Za-z0-9_.,-]+)\\]$");
  SmallVector<StringRef, 8> Lines;
  Text.split(Lines, '\n');
  for (StringRef L : Lines) {
    L = L.rtrim("\r");
    SmallVector<StringRef, 6> M;
    if (!Line.match(L, &M))
      continue;
    Loc Where;
    Where.File = M[1].str();
    M[2].getAsInteger(10, Where.Line);
    M[3].getAsInteger(10, Where.Column);
    std::string Message = M[5].str();
    if (M[4] == "note") {
      if (!Out.empty())
        Out.back().Notes.push_back({Where, Message});
      continue;
    }
    Finding F;
    F.Level = levelOf(M[4]);
    F.Where = Where;
    SmallVector<StringRef, 3> C;
    if (Check.match(Message, &C)) {
      F.Message = C[1].str();
      // "check1,-warnings-as-errors" style suffixes name the first check.
      F.Check = C[2].split(',').first.str();
    } else {
      F.Message = Message;
      F.Check =
          F.Level == "error" ? "clang-diagnostic-error" : "clang-diagnostic";
    }
    Out.push_back(std::move(F));
  }
  return true;
}

std::vector<Finding>
fromYaml(const std::vector<tooling::TranslationUnitDiagnostics> &Docs) {
  std::vector<Finding> Out;
  auto edits = [](const tooling::DiagnosticMessage &M, std::vector<Edit> &E) {
    for (const auto &Entry : M.Fix)
      for (const tooling::Replacement &R : Entry.second)
        E.push_back({R.getFilePath().str(), R.getOffset(), R.getLength(),
                     R.getReplacementText().str()});
  };
  for (const auto &TU : Docs)
    for (const tooling::Diagnostic &D : TU.Diagnostics) {
      Finding F;
      F.Check = D.DiagnosticName;
      F.Level = D.DiagLevel == tooling::Diagnostic::Error     ? "error"
                : D.DiagLevel == tooling::Diagnostic::Warning ? "warning"
                                                              : "note";
      F.Message = D.Message.Message;
      F.Where.File = D.Message.FilePath;
      F.Where.Offset = D.Message.FileOffset;
      edits(D.Message, F.Edits);
      for (const tooling::DiagnosticMessage &N : D.Notes) {
        edits(N, F.Edits);
        Loc W;
        W.File = N.FilePath;
        W.Offset = N.FileOffset;
        F.Notes.push_back({W, N.Message});
        if (StringRef(N.Message).starts_with("rule: "))
          F.FixNote = N.Message;
      }
      Out.push_back(std::move(F));
    }
  return Out;
}

/// A file URI, or a path relative to --source-root (uriBaseId SRCROOT).
void artifact(json::OStream &J, StringRef File) {
  SmallString<256> Abs(File);
  sys::fs::make_absolute(Abs);
  sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  std::string Root = SourceRoot;
  J.attributeObject("artifactLocation", [&] {
    auto encode = [](StringRef P) {
      std::string S;
      for (char C : P) {
        if (isAlnum(C) || StringRef("/-_.~").contains(C))
          S += C;
        else {
          char Buf[4];
          snprintf(Buf, sizeof Buf, "%%%02X", unsigned(uint8_t(C)));
          S += Buf;
        }
      }
      return S;
    };
    if (!Root.empty()) {
      SmallString<256> R(Root);
      sys::fs::make_absolute(R);
      sys::path::remove_dots(R, true);
      std::string Prefix = (R.str().rtrim('/') + "/").str();
      if (StringRef(Abs).starts_with(Prefix)) {
        J.attribute("uri", encode(StringRef(Abs).drop_front(Prefix.size())));
        J.attribute("uriBaseId", "SRCROOT");
        return;
      }
    }
    J.attribute("uri", "file://" + encode(Abs));
  });
}

void region(json::OStream &J, const Loc &L) {
  J.attributeObject("region", [&] {
    if (L.Line) {
      J.attribute("startLine", int64_t(L.Line));
      J.attribute("startColumn", int64_t(L.Column));
    }
    if (L.Offset)
      J.attribute("charOffset", int64_t(*L.Offset));
  });
}

void location(json::OStream &J, const Loc &L, const std::string *Message) {
  J.object([&] {
    J.attributeObject("physicalLocation", [&] {
      artifact(J, L.File);
      if (L.Line || L.Offset)
        region(J, L);
    });
    if (Message)
      J.attributeObject("message", [&] { J.attribute("text", *Message); });
  });
}

const char *describe(StringRef Check) {
  if (Check == "torch-compile-requires-grad-propagation")
    return "In-place sliced or indexed write into a tensor created without "
           "gradient tracking, from a value that may require grad, in code "
           "torch.compile traces: requires_grad can read false afterwards.";
  if (Check == "torch-index-assign-to-copy")
    return "In-place write into the copy that advanced indexing returns: the "
           "indexed tensor is left unchanged.";
  if (Check == "torch-inplace-on-grad-leaf")
    return "In-place write into a leaf tensor that requires grad, outside a "
           "no-grad scope: autograd throws at run time.";
  if (Check == "torch-op-undeclared-mutation")
    return "An operator kernel writes into (or returns) an argument that its "
           "schema does not declare mutable (or aliased): inductor computes "
           "with the unwritten values and opcheck's test_schema fails.";
  return nullptr;
}

} // namespace

int main(int argc, const char **argv) {
  cl::HideUnrelatedOptions(Category);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "Converts clang-tidy output and --export-fixes YAML to SARIF "
          "2.1.0.\n",
          &errs()))
    return 2;
  if (LogPath.empty() && FixesPath.empty()) {
    error("give clang-tidy's output (a file or -), --fixes FIXES.yaml, or "
          "both");
    return 2;
  }
  std::vector<Finding> Findings;
  if (!LogPath.empty()) {
    auto Buffer = MemoryBuffer::getFileOrSTDIN(LogPath, /*IsText=*/true);
    if (!Buffer) {
      error("cannot read '" + LogPath + "': " + Buffer.getError().message());
      return 2;
    }
    parseLog((*Buffer)->getBuffer(), Findings);
  }
  std::vector<Finding> FromFixes;
  if (!FixesPath.empty()) {
    auto Docs = torch_tidy::readExportFixes(FixesPath);
    if (!Docs) {
      error(toString(Docs.takeError()));
      return 2;
    }
    FromFixes = fromYaml(*Docs);
  }

  torch_tidy::SourceLines Lines;
  for (Finding &F : FromFixes) {
    fillLineColumn(Lines, F.Where);
    for (Note &N : F.Notes)
      fillLineColumn(Lines, N.Where);
  }
  if (Findings.empty() && LogPath.empty()) {
    Findings = std::move(FromFixes);
  } else {
    // Each logged finding takes the fixes of its YAML twin.
    std::vector<bool> Used(FromFixes.size());
    for (Finding &F : Findings)
      for (size_t I = 0; I < FromFixes.size(); ++I) {
        const Finding &Y = FromFixes[I];
        if (Used[I] || Y.Check != F.Check || Y.Message != F.Message ||
            Y.Where.Line != F.Where.Line || Y.Where.Column != F.Where.Column ||
            !sys::fs::equivalent(Y.Where.File, F.Where.File))
          continue;
        Used[I] = true;
        F.Where.Offset = Y.Where.Offset;
        F.Edits = Y.Edits;
        F.FixNote = Y.FixNote;
        break;
      }
  }

  // Rules: one per check, in order of first appearance.
  std::vector<std::string> Rules;
  std::map<std::string, size_t> RuleIndex;
  for (const Finding &F : Findings)
    if (RuleIndex.emplace(F.Check, Rules.size()).second)
      Rules.push_back(F.Check);

  std::error_code EC;
  std::unique_ptr<raw_fd_ostream> File;
  if (!OutputPath.empty()) {
    File = std::make_unique<raw_fd_ostream>(OutputPath, EC);
    if (EC) {
      error("cannot write '" + OutputPath + "': " + EC.message());
      return 2;
    }
  }
  raw_ostream &OS = File ? *File : outs();
  json::OStream J(OS, 2);
  J.object([&] {
    J.attribute("$schema", "https://json.schemastore.org/sarif-2.1.0.json");
    J.attribute("version", "2.1.0");
    J.attributeArray("runs", [&] {
      J.object([&] {
        J.attributeObject("tool", [&] {
          J.attributeObject("driver", [&] {
            J.attribute("name", "torch-tidy");
            J.attribute("informationUri",
                        "https://clang.llvm.org/extra/clang-tidy/");
            J.attributeArray("rules", [&] {
              for (const std::string &R : Rules)
                J.object([&] {
                  J.attribute("id", R);
                  J.attribute("name", R);
                  if (const char *D = describe(R)) {
                    J.attributeObject("shortDescription",
                                      [&] { J.attribute("text", D); });
                    J.attributeObject("help", [&] {
                      J.attribute("text", "See docs/checks/" + R +
                                              ".md in torch-tidy.");
                    });
                  }
                });
            });
          });
        });
        if (!SourceRoot.empty()) {
          J.attributeObject("originalUriBaseIds", [&] {
            J.attributeObject("SRCROOT", [&] {
              SmallString<256> R(SourceRoot);
              sys::fs::make_absolute(R);
              sys::path::remove_dots(R, true);
              J.attribute("uri", "file://" + (R.str().rtrim('/') + "/").str());
            });
          });
        }
        J.attributeArray("results", [&] {
          for (const Finding &F : Findings)
            J.object([&] {
              J.attribute("ruleId", F.Check);
              J.attribute("ruleIndex", int64_t(RuleIndex[F.Check]));
              J.attribute("level", F.Level);
              J.attributeObject("message",
                                [&] { J.attribute("text", F.Message); });
              J.attributeArray("locations",
                               [&] { location(J, F.Where, nullptr); });
              if (!F.Notes.empty())
                J.attributeArray("relatedLocations", [&] {
                  for (const Note &N : F.Notes)
                    location(J, N.Where, &N.Message);
                });
              if (F.Edits.empty())
                return;
              J.attributeArray("fixes", [&] {
                J.object([&] {
                  J.attributeObject("description", [&] {
                    J.attribute("text", F.FixNote.empty()
                                            ? std::string("clang-tidy fix-it")
                                            : F.FixNote);
                  });
                  // One artifactChange per file.
                  std::map<std::string, std::vector<const Edit *>> ByFile;
                  for (const Edit &E : F.Edits)
                    ByFile[E.File].push_back(&E);
                  J.attributeArray("artifactChanges", [&] {
                    for (const auto &[Path, Edits] : ByFile)
                      J.object([&] {
                        artifact(J, Path);
                        J.attributeArray("replacements", [&] {
                          for (const Edit *E : Edits)
                            J.object([&] {
                              J.attributeObject("deletedRegion", [&] {
                                J.attribute("charOffset", int64_t(E->Offset));
                                J.attribute("charLength", int64_t(E->Length));
                              });
                              J.attributeObject("insertedContent", [&] {
                                J.attribute("text", E->Text);
                              });
                            });
                        });
                      });
                  });
                });
              });
            });
        });
      });
    });
  });
  OS << "\n";
  return 0;
}

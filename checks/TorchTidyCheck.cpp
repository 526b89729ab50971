//===- TorchTidyCheck.cpp -------------------------------------------------===//

#include "TorchTidyCheck.h"

#include "torch_tidy/operators/OperatorModel.h"
#include "torch_tidy/operators/ProjectOperators.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include <mutex>

using namespace clang;

namespace torch_tidy {

namespace {
/// Records each #include that finds no file.
class MissingHeaderRecorder : public PPCallbacks {
public:
  explicit MissingHeaderRecorder(
      std::shared_ptr<std::vector<std::string>> Missing)
      : Missing(std::move(Missing)) {}
  void InclusionDirective(SourceLocation, const Token &, StringRef FileName,
                          bool, CharSourceRange, OptionalFileEntryRef File,
                          StringRef, StringRef, const Module *, bool,
                          SrcMgr::CharacteristicKind) override {
    if (!File && !llvm::is_contained(*Missing, FileName))
      Missing->push_back(FileName.str());
  }

private:
  std::shared_ptr<std::vector<std::string>> Missing;
};
} // namespace

void TorchTidyCheck::registerPPCallbacks(const SourceManager &SM,
                                         Preprocessor *PP, Preprocessor *) {
  this->SM = &SM;
  this->PP = PP;
  MissingHeaders->clear();
  if (!PP)
    return;
  // Keep going past a missing header: a fatal error stops clang's semantic
  // analysis of what follows (kernel bodies among it); as an error it does
  // not.
  PP->getDiagnostics().setFatalsAsError(true);
  // Nor does a file full of errors from the missing header stop at clang's
  // error limit (as clangd does: the rest of the file is still read).
  PP->getDiagnostics().setErrorLimit(0);
  PP->addPPCallbacks(std::make_unique<MissingHeaderRecorder>(MissingHeaders));
}

std::string TorchTidyCheck::extensionName() const {
  if (!PP)
    return "";
  const IdentifierInfo *II = PP->getIdentifierInfo("TORCH_EXTENSION_NAME");
  const MacroInfo *MI = II ? PP->getMacroInfo(II) : nullptr;
  if (!MI || MI->getNumTokens() != 1 ||
      !MI->getReplacementToken(0).is(tok::identifier))
    return "";
  return MI->getReplacementToken(0).getIdentifierInfo()->getName().str();
}

std::string TorchTidyCheck::partlyParsedClause() const {
  if (MissingHeaders->empty())
    return "";
  std::string Names;
  for (size_t I = 0; I < MissingHeaders->size() && I < 3; ++I)
    Names += (I ? ", '" : "'") + (*MissingHeaders)[I] + "'";
  if (MissingHeaders->size() > 3)
    Names += ", ...";
  return "; this file parsed only in part (" + Names + " " +
         (MissingHeaders->size() == 1 ? "was" : "were") + " not found)";
}

SourceLocation TorchTidyCheck::written(SourceLocation Loc) const {
  return SM && Loc.isMacroID() ? SM->getFileLoc(Loc) : Loc;
}

CharSourceRange TorchTidyCheck::written(SourceRange R) const {
  return CharSourceRange::getTokenRange(written(R.getBegin()),
                                        written(R.getEnd()));
}

DiagnosticBuilder TorchTidyCheck::diag(SourceLocation Loc,
                                       StringRef Description,
                                       DiagnosticIDs::Level Level) {
  if (Level != DiagnosticIDs::Warning || MissingHeaders->empty())
    return ClangTidyCheck::diag(written(Loc), Description, Level);
  // The clause is plain text in a format string: '%' doubled.
  std::string Clause;
  for (char C : partlyParsedClause()) {
    Clause += C;
    if (C == '%')
      Clause += '%';
  }
  return ClangTidyCheck::diag(written(Loc), (Description + Clause).str(),
                              Level);
}

bool TorchTidyCheck::boolOption(StringRef Name, bool Default) {
  std::string Value = Options.get(Name, Default ? "true" : "false").str();
  StringRef V = StringRef(Value).trim();
  if (V.equals_insensitive("true") || V == "1")
    return true;
  if (V.equals_insensitive("false") || V == "0")
    return false;
  configurationDiag("invalid configuration value '%0' for option '%1'; "
                    "expected a bool (true or false); using '%2'")
      << Value << Name << (Default ? "true" : "false");
  return Default;
}

std::string TorchTidyCheck::projectRootOption() {
  std::string Value = "auto";
  if (std::optional<StringRef> V = Options.getLocalOrGlobal("ProjectRoot"))
    Value = V->trim().str();
  else if (std::optional<std::string> Env =
               llvm::sys::Process::GetEnv("TORCH_TIDY_PROJECT_ROOT");
           Env && !Env->empty())
    Value = *Env;
  if (Value != "auto" && Value != "none" && !Value.empty() &&
      !llvm::sys::fs::is_directory(Value))
    configurationDiag("invalid configuration value '%0' for option "
                      "'ProjectRoot': not a directory; expected 'auto', "
                      "'none' or the project's root directory; the "
                      "project's other files are not read")
        << Value;
  return Value;
}

std::shared_ptr<const ProjectOperators>
TorchTidyCheck::projectOperators(const SourceManager &SM, StringRef Setting) {
  OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
  if (!Main)
    return nullptr;
  std::optional<std::string> Root =
      ProjectOperators::findRoot(Main->getName(), Setting);
  if (!Root)
    return nullptr;
  // What torch's registry holds, as torch-tidy-project read it from the
  // project's build.
  std::string Registry;
  if (std::optional<std::string> Env =
          llvm::sys::Process::GetEnv("TORCH_TIDY_PROJECT_REGISTRY"))
    Registry = *Env;
  // The files the project's build compiles, as torch-tidy-project read
  // them from its database: vendored and generated ones are indexed too.
  std::string BuildFiles;
  if (std::optional<std::string> Env =
          llvm::sys::Process::GetEnv("TORCH_TIDY_PROJECT_FILES"))
    BuildFiles = *Env;
  std::shared_ptr<const ProjectOperators> Project = ProjectOperators::load(
      *Root, ProjectOperators::defaultCacheDir(), Registry, BuildFiles);
  // Said once per process (projectOperators is static: no check's
  // configurationDiag here).
  static std::once_flag Said;
  if (Project && !Project->registryError().empty())
    std::call_once(Said, [&] {
      llvm::errs() << "torch-tidy: TORCH_TIDY_PROJECT_REGISTRY: "
                   << Project->registryError()
                   << "; what the project's operators register is read from "
                      "its sources only\n";
    });
  return Project;
}

void TorchTidyCheck::harvestRegistrations(const OperatorModel &Model,
                                          const SourceManager &SM,
                                          StringRef Path) {
  OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
  if (!Main)
    return;
  // Where a call is written: the file and line of its expansion (a
  // project macro's call), by the file's real path.
  auto Place = [&](SourceLocation Loc) -> std::pair<std::string, unsigned> {
    SourceLocation Exp = SM.getExpansionLoc(Loc);
    OptionalFileEntryRef F = SM.getFileEntryRefForID(SM.getFileID(Exp));
    if (!F)
      return {"", 0};
    StringRef Real = F->getFileEntry().tryGetRealPathName();
    return {Real.empty() ? F->getName().str() : Real.str(),
            SM.getExpansionLineNumber(Exp)};
  };
  llvm::json::Array Regs;
  for (const RegisteredOperator &Op : Model.operators()) {
    if (Op.Name.empty() || Op.Namespace.empty())
      continue;
    std::string Name = Op.Namespace + "::" + Op.Name;
    if (Op.DefSite) {
      auto [File, Line] = Place(Op.DefSite->getBeginLoc());
      Regs.push_back(llvm::json::Object{{"operator", Op.qualifiedName()},
                                        {"kind", "schema"},
                                        {"inferred", Op.SchemaInferred},
                                        {"file", File},
                                        {"line", Line}});
    }
    for (const KernelRegistration &K : Op.Kernels) {
      if (!K.Site)
        continue; // registered in another file
      auto [File, Line] = Place(K.Site->getBeginLoc());
      Regs.push_back(llvm::json::Object{
          {"operator", Name},
          {"kind", "kernel"},
          {"key", K.DispatchKey},
          {"function", K.Kernel ? K.Kernel->getQualifiedNameAsString() : ""},
          {"defined", K.Kernel && K.Kernel->isDefined()},
          {"file", File},
          {"line", Line}});
    }
  }
  StringRef MainReal = Main->getFileEntry().tryGetRealPathName();
  llvm::json::Object Out{
      {"file", MainReal.empty() ? Main->getName().str() : MainReal.str()},
      {"registrations", std::move(Regs)}};
  // One line per translation unit, appended: a clang-tidy run over several
  // files writes each (JSON Lines).
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC,
                          llvm::sys::fs::OF_Text | llvm::sys::fs::OF_Append);
  if (!EC)
    OS << llvm::json::Value(std::move(Out)) << "\n";
}

void TorchTidyCheck::useProject(OperatorModel &Model, const SourceManager &SM,
                                StringRef Setting) {
  // What this translation unit registers, as the compiler sees it, for
  // torch-tidy-project to compare with the project index: once per
  // translation unit (several checks build a model of the same file).
  if (std::optional<std::string> Harvest =
          llvm::sys::Process::GetEnv("TORCH_TIDY_HARVEST")) {
    static std::mutex Lock;
    static llvm::StringSet<> Written;
    OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
    bool First = false;
    if (Main) {
      std::lock_guard<std::mutex> Hold(Lock);
      First = Written.insert(Main->getName()).second;
    }
    if (First)
      harvestRegistrations(Model, SM, *Harvest);
  }
  std::shared_ptr<const ProjectOperators> Project =
      projectOperators(SM, Setting);
  OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
  if (Project && Main)
    Model.useProject(*Project, Main->getName());
}

void TorchTidyCheck::storeBool(tidy::ClangTidyOptions::OptionMap &Opts,
                               StringRef Name, bool Value) {
  Options.store(Opts, Name, Value ? "true" : "false");
}

void TorchTidyCheck::addFix(DiagnosticBuilder &D, const FixPlan &Plan) {
  if (!Plan.hasFix())
    return;
  for (const FixEdit &E : Plan.Edits) {
    if (E.Range.getBegin() == E.Range.getEnd() && E.Range.isCharRange())
      D << FixItHint::CreateInsertion(E.Range.getBegin(), E.Text);
    else
      D << FixItHint::CreateReplacement(E.Range, E.Text);
  }
}

bool TorchTidyCheck::fixOnLineOf(const FixPlan &Plan,
                                 SourceLocation Loc) const {
  if (!SM)
    return true;
  SourceLocation At = SM->getFileLoc(Loc);
  FileID File = SM->getFileID(At);
  unsigned Line = SM->getSpellingLineNumber(At);
  for (const FixEdit &E : Plan.Edits) {
    for (SourceLocation L : {E.Range.getBegin(), E.Range.getEnd()}) {
      SourceLocation F = SM->getFileLoc(L);
      if (SM->getFileID(F) != File || SM->getSpellingLineNumber(F) != Line)
        return false;
    }
  }
  return true;
}

void TorchTidyCheck::noteFix(SourceLocation Loc, const FixPlan &Plan) {
  if (Plan.hasFix()) {
    diag(Loc, "rule: %0", DiagnosticIDs::Note) << Plan.Rule->Id;
    for (const std::string &Note : Plan.Notes)
      diag(Loc, "%0", DiagnosticIDs::Note) << Note;
  } else
    diag(Loc, "no fix: %0", DiagnosticIDs::Note) << Plan.NoFixReason;
}

} // namespace torch_tidy

//===- TorchTidyCheck.cpp -------------------------------------------------===//

#include "TorchTidyCheck.h"

#include "torch_tidy/operators/OperatorModel.h"
#include "torch_tidy/operators/ProjectOperators.h"

#include "clang/Basic/SourceManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"

using namespace clang;

namespace torch_tidy {

void TorchTidyCheck::registerPPCallbacks(const SourceManager &SM,
                                         Preprocessor *, Preprocessor *) {
  this->SM = &SM;
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
  return ClangTidyCheck::diag(written(Loc), Description, Level);
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
  return ProjectOperators::load(*Root, ProjectOperators::defaultCacheDir());
}

void TorchTidyCheck::useProject(OperatorModel &Model, const SourceManager &SM,
                                StringRef Setting) {
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

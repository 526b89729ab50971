//===- TorchTidyCheck.cpp -------------------------------------------------===//

#include "TorchTidyCheck.h"

using namespace clang;

namespace torch_tidy {

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

void TorchTidyCheck::noteFix(SourceLocation Loc, const FixPlan &Plan) {
  if (Plan.hasFix())
    diag(Loc, "rule: %0", DiagnosticIDs::Note) << Plan.Rule->Id;
  else
    diag(Loc, "no fix: %0", DiagnosticIDs::Note) << Plan.NoFixReason;
}

} // namespace torch_tidy

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

} // namespace torch_tidy

//===- TorchTidyCheck.h - What every torch-tidy check shares ---*- C++ -*-===//
#ifndef TORCH_TIDY_CHECKS_TORCHTIDYCHECK_H
#define TORCH_TIDY_CHECKS_TORCHTIDYCHECK_H

#include "torch_tidy/rewrite/FixPlan.h"

#include "clang-tidy/ClangTidyCheck.h"
#include <memory>
#include <string>
#include <vector>

namespace torch_tidy {

class ProjectOperators;
class OperatorModel;

/// A clang-tidy check with the option helpers the torch checks share.
class TorchTidyCheck : public clang::tidy::ClangTidyCheck {
public:
  using ClangTidyCheck::ClangTidyCheck;
  /// LibTorch is C++: no check runs on C or Objective-C translation units.
  bool isLanguageVersionSupported(
      const clang::LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  /// Remembers the translation unit's SourceManager, for diag(), and the
  /// headers its #includes do not find. A check that overrides this calls
  /// it. Parsing keeps going past a missing header (fatal errors count as
  /// errors, as clangd and libclang's "keep going" mode do): what follows
  /// is still parsed, and a finding there says the file parsed in part.
  void registerPPCallbacks(const clang::SourceManager &SM,
                           clang::Preprocessor *PP,
                           clang::Preprocessor *ModuleExpanderPP) override;

protected:
  /// The translation unit's TORCH_EXTENSION_NAME (the module its build
  /// names: `-DTORCH_EXTENSION_NAME=_C`), or empty where it has none.
  std::string extensionName() const;
  /// Every torch-tidy diagnostic: at the line the user wrote. Code in a
  /// macro argument (an AT_DISPATCH lambda, TORCH_CHECK) is reported where
  /// the argument is spelled, without the "expanded from macro" backtrace
  /// that would otherwise follow each warning and note. A warning in a
  /// translation unit whose #includes missed a header says so.
  clang::DiagnosticBuilder
  diag(clang::SourceLocation Loc, llvm::StringRef Description,
       clang::DiagnosticIDs::Level Level = clang::DiagnosticIDs::Warning);
  using ClangTidyCheck::diag;
  /// Loc, or where a macro location is written (its argument's spelling,
  /// else the macro's expansion).
  clang::SourceLocation written(clang::SourceLocation Loc) const;
  clang::CharSourceRange written(clang::SourceRange R) const;

  /// A bool option, read as a string: OptionsView::get<bool> is a template
  /// specialisation whose mangled name differs between the compiler that
  /// built clang-tidy and g++, so a module built with g++ could not link
  /// against it. A value that is not a bool is reported and Default used.
  bool boolOption(llvm::StringRef Name, bool Default);
  /// The ProjectRoot option: "auto" (the nearest ancestor of the linted file
  /// holding .git, setup.py, pyproject.toml or compile_commands.json),
  /// "none", or a directory. Local or global; where neither is set, the
  /// environment's TORCH_TIDY_PROJECT_ROOT, else "auto".
  std::string projectRootOption();
  /// The operators the project of SM's main file declares, in any of its
  /// files (lib/operators/ProjectOperators); null when the setting is "none"
  /// or the file is in no project.
  static std::shared_ptr<const ProjectOperators>
  projectOperators(const clang::SourceManager &SM, llvm::StringRef Setting);
  /// Gives Model what the project's other files say about its operators
  /// (schemas, kernels, fakes); nothing when there is no project. First,
  /// where $TORCH_TIDY_HARVEST names a file, appends there (once per
  /// translation unit) what it registers as the compiler sees it:
  /// macros expanded, with the file's own flags (harvestRegistrations).
  static void useProject(OperatorModel &Model, const clang::SourceManager &SM,
                         llvm::StringRef Setting);
  /// Appends the schemas and kernels Model's translation unit registers
  /// itself to Path, as one line of JSON: {"file": MAIN, "registrations":
  /// [{"operator": "ns::op[.overload]", "kind": "schema"|"kernel", "key",
  /// "inferred", "function", "file", "line"}]}, each at the line of the call as
  /// written (a macro's call site). Call before Model.useProject.
  static void harvestRegistrations(const OperatorModel &Model,
                                   const clang::SourceManager &SM,
                                   llvm::StringRef Path);
  /// Stores a bool option as boolOption reads it.
  void storeBool(clang::tidy::ClangTidyOptions::OptionMap &Opts,
                 llvm::StringRef Name, bool Value);

  /// The only way a torch-tidy check emits a fix-it: the edits of a plan
  /// made in lib/rewrite, attached to the warning D (none when the plan has
  /// no fix).
  static void addFix(clang::DiagnosticBuilder &D, const FixPlan &Plan);
  /// Whether every edit of Plan lies on the line of Loc (in its file). Only
  /// such a fix goes on the warning at Loc: clang labels a warning's source
  /// snippet with the first line of any fix-it range, so a fix elsewhere
  /// (a schema at the top of the file) would print the warning's line under
  /// the fix's number. A fix elsewhere goes on a note at its own line
  /// (applied by --fix-notes).
  bool fixOnLineOf(const FixPlan &Plan, clang::SourceLocation Loc) const;
  /// The note that names the plan's rule (`rule: <id>`, which
  /// torch-tidy-verify reads) or says why there is no fix (`no fix: ...`).
  void noteFix(clang::SourceLocation Loc, const FixPlan &Plan);

  /// "; this file parsed only in part ('x.h' was not found)", or "".
  std::string partlyParsedClause() const;

private:
  clang::Preprocessor *PP = nullptr;
  const clang::SourceManager *SM = nullptr;
  /// The headers the translation unit's #includes did not find, in order
  /// (shared with the preprocessor callback that records them).
  std::shared_ptr<std::vector<std::string>> MissingHeaders =
      std::make_shared<std::vector<std::string>>();
};

} // namespace torch_tidy

#endif

//===- FixPlan.h - What a check's fix-it is, or why there is none -*- C++
//-*-===//
//
// Every fix-it a torch-tidy check emits is a FixPlan made by a planner of
// lib/rewrite: the edits plus the row of RewriteRules.def they apply, or the
// reason no fix is offered. Checks attach plans with TorchTidyCheck::addFix
// and name them with TorchTidyCheck::noteFix (`rule: <id>` / `no fix: ...`);
// test/lit/fixits/fixes-through-plans.cpp fails if a check builds a fix-it
// any other way. The analyses (lib/analysis) report facts; the planners
// decide what is safe to rewrite.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_REWRITE_FIXPLAN_H
#define TORCH_TIDY_REWRITE_FIXPLAN_H

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace torch_tidy {

/// A row of RewriteRules.def.
struct RewriteRule {
  enum StyleKind { IndexPut, Scatter, Both, Other, Schema, LibTorch };
  llvm::StringRef Id;
  StyleKind Style;
  llvm::StringRef Before;
  llvm::StringRef After;
  /// The forms its edits take (torch_tidy/rules/RuleForms.h); empty for
  /// Schema rows.
  llvm::StringRef Forms;
};

/// Every rule, in the order of RewriteRules.def.
llvm::ArrayRef<RewriteRule> rewriteRules();
const RewriteRule *findRewriteRule(llvm::StringRef Id);

/// One edit: Range's text becomes Text (an empty char range inserts).
struct FixEdit {
  clang::CharSourceRange Range;
  std::string Text;

  static FixEdit replace(clang::CharSourceRange Range, std::string Text) {
    return {Range, std::move(Text)};
  }
  static FixEdit insert(clang::SourceLocation Loc, std::string Text) {
    return {clang::CharSourceRange::getCharRange(Loc, Loc), std::move(Text)};
  }
};

/// A fix-it (a rule and its edits) or the reason there is none.
struct FixPlan {
  const RewriteRule *Rule = nullptr; ///< null when no fix is offered
  std::vector<FixEdit> Edits;
  std::string NoFixReason;
  /// Further notes after `rule: <id>`: what the fix assumes of its inputs
  /// where it is shorter than the always-exact form, or why the general
  /// form was needed.
  std::vector<std::string> Notes;

  bool hasFix() const { return Rule != nullptr; }

  /// A fix by rule RuleId, which must be a row of RewriteRules.def, and
  /// whose edits must have one of the row's forms (else no fix, saying so).
  static FixPlan fix(llvm::StringRef RuleId, std::vector<FixEdit> Edits);
  static FixPlan noFix(std::string Reason);
};

} // namespace torch_tidy

#endif

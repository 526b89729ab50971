//===- RewriteRules.cpp - The table of rewrite rules ----------------------===//

#include "torch_tidy/rewrite/FixPlan.h"

#include "torch_tidy/rules/RuleForms.h"

#include <cassert>
#include <cstdlib>

namespace torch_tidy {

static const RewriteRule Rules[] = {
#define TORCH_TIDY_REWRITE_RULE(Id, Style, Before, After, Forms)               \
  {Id, RewriteRule::Style, Before, After, Forms},
#include "torch_tidy/rules/RewriteRules.def"
};

llvm::ArrayRef<RewriteRule> rewriteRules() { return Rules; }

const RewriteRule *findRewriteRule(llvm::StringRef Id) {
  for (const RewriteRule &R : Rules)
    if (R.Id == Id)
      return &R;
  return nullptr;
}

FixPlan FixPlan::fix(llvm::StringRef RuleId, std::vector<FixEdit> Edits) {
  FixPlan P;
  P.Rule = findRewriteRule(RuleId);
  // A planner naming a rule the table lacks is a bug in torch-tidy; the
  // lit suite names every rule, so this is never reached in a release.
  assert(P.Rule && "rule missing from RewriteRules.def");
  if (!P.Rule)
    return noFix("internal error: rule '" + RuleId.str() +
                 "' is not in the rule table");
  // The rule's edits must have its forms (RewriteRules.def's Forms column,
  // which torch-tidy-verify reads too). Deleting a named view's declaration
  // (an edit with no text) is a part any rule's fix may add; binding named
  // views again is added after (Planner::rebindViews checks its form). A
  // planner spelling another form is a bug in torch-tidy: the fix is
  // withheld rather than emitted unverifiable.
  if (!P.Rule->Forms.empty()) {
    std::vector<std::string> RuleTexts;
    for (const FixEdit &E : Edits)
      if (!E.Text.empty())
        RuleTexts.push_back(E.Text);
    if (!rules::matches_rule_forms(P.Rule->Forms, RuleTexts))
      return noFix("internal error: the fix of rule '" + RuleId.str() +
                   "' does not have a form of its row of RewriteRules.def");
  }
  P.Edits = std::move(Edits);
  return P;
}

FixPlan FixPlan::noFix(std::string Reason) {
  FixPlan P;
  P.NoFixReason = std::move(Reason);
  return P;
}

} // namespace torch_tidy

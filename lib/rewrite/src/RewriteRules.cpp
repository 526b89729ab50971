//===- RewriteRules.cpp - The table of rewrite rules ----------------------===//

#include "torch_tidy/rewrite/FixPlan.h"

#include <cassert>
#include <cstdlib>

namespace torch_tidy {

static const RewriteRule Rules[] = {
#define TORCH_TIDY_REWRITE_RULE(Id, Style, Before, After)                      \
  {Id, RewriteRule::Style, Before, After},
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
  P.Edits = std::move(Edits);
  return P;
}

FixPlan FixPlan::noFix(std::string Reason) {
  FixPlan P;
  P.NoFixReason = std::move(Reason);
  return P;
}

} // namespace torch_tidy

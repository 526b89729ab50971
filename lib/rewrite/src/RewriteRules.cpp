//===- RewriteRules.cpp - The table of rewrite rules ----------------------===//

#include "torch_tidy/rewrite/OutOfPlaceRewrite.h"

namespace torch_tidy {

static const RewriteRule Rules[] = {
#define TORCH_TIDY_REWRITE_RULE(Id, Style, Before, After)                      \
  {Id, RewriteRule::Style, Before, After},
#include "torch_tidy/rewrite/RewriteRules.def"
};

llvm::ArrayRef<RewriteRule> rewriteRules() { return Rules; }

const RewriteRule *findRewriteRule(llvm::StringRef Id) {
  for (const RewriteRule &R : Rules)
    if (R.Id == Id)
      return &R;
  return nullptr;
}

} // namespace torch_tidy

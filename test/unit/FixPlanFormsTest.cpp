// FixPlan::fix emits a fix only where its edits have a form of its rule's
// row of RewriteRules.def (the Forms column torch-tidy-verify reads too),
// so the planner cannot spell a fix the verifier would not accept.
#include "torch_tidy/rewrite/FixPlan.h"

#include <gtest/gtest.h>

using namespace torch_tidy;

namespace {

FixEdit edit(std::string Text) {
  return FixEdit::replace(clang::CharSourceRange(), std::move(Text));
}

TEST(FixPlanForms, AFixWithItsRulesFormIsEmitted) {
  FixPlan P = FixPlan::fix("index-copy", {edit("m = m.index_copy(0, i, v)")});
  EXPECT_TRUE(P.hasFix());
  EXPECT_EQ(P.Rule->Id, "index-copy");
  // A named view's declaration deleted (no text) is a part any fix adds.
  P = FixPlan::fix("slice-scatter",
                   {edit(""), edit("m = m.slice_scatter(v, 0, 1, 3)")});
  EXPECT_TRUE(P.hasFix());
  P = FixPlan::fix("no-grad-guard",
                   {edit("{ torch::NoGradGuard no_grad; "), edit(" }")});
  EXPECT_TRUE(P.hasFix());
}

TEST(FixPlanForms, AFixOffItsRulesFormIsWithheld) {
  // Another rule's text, another target, a second statement.
  for (const char *Text :
       {"m = m.index_copy(0, i, v)", "m = n.slice_scatter(v, 0, 1, 3)",
        "m = m.slice_scatter(v, 0, 1, 3); m.zero_()"}) {
    FixPlan P = FixPlan::fix("slice-scatter", {edit(Text)});
    EXPECT_FALSE(P.hasFix()) << Text;
    EXPECT_NE(P.NoFixReason.find("does not have a form of its row"),
              std::string::npos)
        << P.NoFixReason;
  }
  // One edit where the rule makes two.
  EXPECT_FALSE(
      FixPlan::fix("no-grad-guard", {edit("{ torch::NoGradGuard no_grad; ")})
          .hasFix());
}

TEST(FixPlanForms, SchemaRowsAreProvenOnRealTorchNotByForm) {
  EXPECT_TRUE(
      FixPlan::fix("return-clone", {edit("return m.clone();")}).hasFix());
}

// torch-write-into-copy's rows: the write-back, one or two lines, and the
// check, as the planner lays them out; another receiver or another method
// call is withheld.
TEST(FixPlanForms, WriteIntoCopyFixesHaveTheirRowsForms) {
  for (const char *Text :
       {"\n  if (!c.is_alias_of(out))\n    out.copy_(c);",
        "\n  if (!c->is_alias_of(out))\n    out.copy_(*c);",
        "\n  if (!flat.is_alias_of(out))\n    out.copy_(flat.view_as(out));"})
    EXPECT_TRUE(FixPlan::fix("write-back-copy", {edit(Text)}).hasFix()) << Text;
  for (const char *Text :
       {"\n  if (!c.is_alias_of(x))\n    out.copy_(c);",
        "\n  if (!c.is_same(out))\n    out.copy_(c);", "\n  out.copy_(c);"})
    EXPECT_FALSE(FixPlan::fix("write-back-copy", {edit(Text)}).hasFix())
        << Text;
  EXPECT_TRUE(FixPlan::fix("check-no-copy",
                           {edit("TORCH_CHECK(out.is_contiguous(), \"'out' "
                                 "must be contiguous\");\n  ")})
                  .hasFix());
  EXPECT_TRUE(
      FixPlan::fix("check-no-copy",
                   {edit("TORCH_CHECK(out.scalar_type() == at::kFloat,\n"
                         "              \"'out' must be of dtype "
                         "at::kFloat\");\n  ")})
          .hasFix());
  EXPECT_FALSE(
      FixPlan::fix("check-no-copy", {edit("AT_ASSERT(out.is_contiguous());")})
          .hasFix());
}

} // namespace

// layOutStatement lays a long fixed statement out within the column limit,
// changing only whitespace, and unwrap_lines reads the laid-out text back as
// the one-line text the rule's forms spell, so FixPlan::fix and
// torch-tidy-verify accept the laid-out fix.
#include "torch_tidy/rewrite/StatementLayout.h"
#include "torch_tidy/rewrite/FixPlan.h"
#include "torch_tidy/rules/RuleForms.h"

#include "llvm/ADT/StringRef.h"
#include <gtest/gtest.h>

using namespace torch_tidy;

namespace {

const char *const Nested = "out = out.select_scatter(out.select(2, "
                           "1).slice_scatter(x, 0, 1, 3), 2, 1)";
const char *const Positions =
    "m = m.flatten().index_put({torch::arange(m.numel(), "
    "m.options().dtype(torch::kLong)).view(m.sizes()).index({Slice(None, "
    "2), Slice(), Slice(i)})}, v.to(m.options())).view(m.sizes())";

TEST(StatementLayout, AStatementThatFitsStaysOnItsLine) {
  EXPECT_EQ(layOutStatement("m = m.select_scatter(v, 0, 1)", "  ", 70),
            "m = m.select_scatter(v, 0, 1)");
  // 0 turns the layout off.
  EXPECT_EQ(layOutStatement(Positions, "  ", 0), Positions);
}

TEST(StatementLayout, ALongStatementFitsTheLimitAndReadsBackTheSame) {
  for (const char *Text : {Nested, Positions})
    for (llvm::StringRef Prefix : {"", "  ", "        ", "  if (c) "})
      for (unsigned Limit : {60u, 70u, 80u}) {
        std::string Out = layOutStatement(Text, Prefix, Limit);
        // The statement's `;` follows the text.
        if (widestLine(std::string(Text) + ";", Prefix.size()) > Limit)
          EXPECT_NE(Out, Text) << Prefix.str() << Text;
        else
          EXPECT_EQ(Out, Text);
        EXPECT_LE(widestLine(Out + ";", Prefix.size()), Limit) << Out;
        EXPECT_EQ(rules::unwrap_lines(Out), Text) << Out;
        // Continuation lines start at least at the statement's column.
        llvm::StringRef Rest = llvm::StringRef(Out).split('\n').second;
        EXPECT_TRUE(Rest.empty() ||
                    Rest.starts_with(std::string(Prefix.size(), ' ')))
            << Out;
      }
}

TEST(StatementLayout, WhatItCannotLayOutSafelyIsLeftAsItIs) {
  // A comment would swallow the code after a break; a tab indent has no
  // column to keep.
  std::string Commented = std::string(Nested) + " /* kept */";
  EXPECT_EQ(layOutStatement(Commented, "  ", 60), Commented);
  EXPECT_EQ(layOutStatement(Nested, "\t", 60), Nested);
  // No room at all.
  EXPECT_EQ(layOutStatement(Nested, std::string(60, ' '), 70), Nested);
}

TEST(StatementLayout, ALaidOutFixKeepsItsRulesForm) {
  std::string Out = layOutStatement(Nested, "  ", 70);
  ASSERT_NE(Out.find('\n'), std::string::npos);
  FixPlan P = FixPlan::fix(
      "scatter-nested",
      {FixEdit::replace(clang::CharSourceRange(), std::move(Out))});
  EXPECT_TRUE(P.hasFix()) << P.NoFixReason;
}

TEST(StatementLayout, UnwrapKeepsLiteralsAndSpacesOnOneLine) {
  EXPECT_EQ(rules::unwrap_lines("f(a,\n      b)\n    .g(\"x\\n  y\")"),
            "f(a, b).g(\"x\\n  y\")");
  EXPECT_EQ(rules::unwrap_lines("t = t.f(  a)"), "t = t.f(  a)");
  EXPECT_EQ(rules::unwrap_lines("p\n    ->q"), "p->q");
}

} // namespace

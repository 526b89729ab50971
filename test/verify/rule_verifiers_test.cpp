// The rule verifiers themselves: every rule the checks can emit has one, the
// table gives its forms, and a deliberately wrong rewrite is caught.
#include "torch_tidy/rules/RuleForms.h"
#include "torch_tidy/verify/RuleVerifier.h"

#include <gtest/gtest.h>

#include <set>

using namespace torch_tidy::verify;
using rt::Tensor;

namespace {

// The Schema rows of RewriteRules.def (the fixes of
// torch-op-undeclared-mutation) are proven against real torch by the
// op-mutation-fixes tests; every other row is proven here.
TEST(RuleVerifiers, SchemaRulesAreProvenElsewhere) {
  EXPECT_TRUE(is_schema_rule("schema-mark-mutable"));
  EXPECT_TRUE(is_schema_rule("return-clone"));
  EXPECT_FALSE(is_schema_rule("index-copy"));
  EXPECT_FALSE(is_schema_rule("no-such-rule"));
  // torch-write-into-copy's rows are proven on real LibTorch.
  EXPECT_TRUE(is_libtorch_rule("write-back-copy"));
  EXPECT_TRUE(is_libtorch_rule("check-no-copy"));
  EXPECT_FALSE(is_libtorch_rule("return-clone"));
  for (const std::string &id : rewrite_rule_ids())
    EXPECT_FALSE(is_schema_rule(id) || is_libtorch_rule(id)) << id;
}

// Every other id of RewriteRules.def (the only ids the checks can emit: a
// fix is a FixPlan naming a row) has a verifier, and no verifier is
// orphaned.
TEST(RuleVerifiers, EveryRuleHasAVerifier) {
  ASSERT_FALSE(rewrite_rule_ids().empty());
  for (const std::string &id : rewrite_rule_ids())
    EXPECT_NE(find_rule_verifier(id), nullptr) << "rule " << id;
  std::set<std::string> ids(rewrite_rule_ids().begin(),
                            rewrite_rule_ids().end());
  for (const RuleVerifier &v : rule_verifiers())
    EXPECT_TRUE(ids.count(v.rule_id)) << "verifier " << v.rule_id;
}

TEST(RuleVerifiers, EveryRuleHasFormsAndInstancesHaveText) {
  Random r(1);
  for (const RuleVerifier &v : rule_verifiers()) {
    const torch_tidy::rules::RuleRow *row =
        torch_tidy::rules::find_rule_row(v.rule_id);
    ASSERT_NE(row, nullptr) << v.rule_id;
    EXPECT_FALSE(torch_tidy::rules::split_forms(row->forms).empty())
        << v.rule_id;
    Instance inst = v.make_instance(r);
    EXPECT_FALSE(inst.text.empty()) << v.rule_id;
    EXPECT_TRUE(inst.original && inst.rewrite) << v.rule_id;
  }
}

bool hasForm(const char *id, std::vector<std::string> texts) {
  const torch_tidy::rules::RuleRow *row = torch_tidy::rules::find_rule_row(id);
  return row && torch_tidy::rules::matches_rule_forms(row->forms, texts);
}

// The fix texts the checks emit (from the lit tests) have their rule's
// forms (RewriteRules.def's Forms column, which the planner checks too).
TEST(RuleVerifiers, FormsMatchTheChecksTexts) {
  const std::pair<const char *, const char *> texts[] = {
      {"index-put-list", "m = m.index_put(idx, v)"},
      {"index-put-list", "m = at::index_put(m, idx, v, true)"},
      {"index-put-list",
       "m = m.index_put(c10::List<std::optional<at::Tensor>>({rows}), v, "
       "true)"},
      {"index-put-advanced",
       "m = m.index_put({std::nullopt, rows, cols}, "
       "v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())))"},
      // The value as written, an expression (issue 47, item 7).
      {"index-put-advanced", "out = out.index_put({idx}, scaled.index({idx}))"},
      {"index-put-positions-setitem",
       "m = m.flatten().index_put({torch::arange(m.numel(), "
       "m.options().dtype(torch::kLong)).view(m.sizes()).index({0})}, "
       "v.view(at::indexing::slicePrefix1sSize(v.sizes())).to(m.options()))"
       ".view(m.sizes())"},
      {"index-put-positions-copy",
       "m = m.flatten().index_put({torch::arange(m.numel(), "
       "m.options().dtype(torch::kLong)).view(m.sizes()).select(0, 1)}, "
       "v.to(m.options())).view(m.sizes())"},
      {"index-put-positions-copy",
       "c = c.flatten().index_put({at::arange(c.numel(), "
       "c.options().dtype(at::kLong)).view(c.sizes())[0][1][2]}, "
       "v.to(c.options())).view(c.sizes())"},
      {"slice-scatter", "m = m.slice_scatter(v.to(m.options()).expand_as("
                        "m.narrow(1, 0, 2)), 1, 0, 0 + (2))"},
      {"select-scatter", "m = m.select_scatter(v.to(m.options()).expand_as("
                         "m.select(0, 1)), 0, 1)"},
      {"scatter-nested", "m = m.select_scatter(m[0].slice_scatter(v, 0, 1, "
                         "3), 0, 0)"},
      {"scatter-inplace-arith",
       "buf = buf.slice_scatter(buf.narrow(0, 2, 2).add(y), 0, 2, 4)"},
      {"scatter-inplace-arith",
       "buf = buf.select_scatter(buf.select(1, 3).sub(y.select(0, 0)), 1, "
       "3)"},
      {"index-copy", "m = m.index_copy(1, idx, v)"},
      {"masked-scatter", "m = m.masked_scatter(mask, v)"},
      {"scatter", "m = m.scatter(2, idx, v)"},
      {"masked-fill", "m = m.masked_fill(mask, v)"},
      {"index-fill", "m = m.index_fill(0, idx, v)"},
      {"index-put-into-copy", "t.index_put_({idx}, v.to(t.options()))"},
  };
  for (const auto &[id, text] : texts)
    EXPECT_TRUE(hasForm(id, {text})) << id << ": " << text;
  EXPECT_TRUE(
      hasForm("no-grad-guard", {"{ torch::NoGradGuard no_grad; ", " }"}));
}

// Texts of another rule, another target, or more than one statement do
// not have a rule's form.
TEST(RuleVerifiers, FormsRejectOtherTexts) {
  EXPECT_FALSE(hasForm("slice-scatter", {"m = m.index_copy(1, idx, v)"}));
  // The target rebound must be the target read.
  EXPECT_FALSE(hasForm("index-copy", {"m = n.index_copy(1, idx, v)"}));
  EXPECT_FALSE(hasForm("index-put-list", {"m = at::index_put(n, {i}, v)"}));
  // A second statement smuggled into a hole.
  EXPECT_FALSE(
      hasForm("masked-fill", {"m = m.masked_fill(mask, v); m.zero_()"}));
  EXPECT_FALSE(hasForm("masked-fill", {"m = m.masked_fill(mask, (v)"}));
  EXPECT_FALSE(hasForm("index-put-positions-copy",
                       {"m = m.flatten().index_put({torch::arange(m.numel(), "
                        "m.options().dtype(torch::kLong)).view(m.sizes())}, "
                        "v).view(n.sizes())"}));
  // A scatter-nested fix reads its target in the inner scatter.
  EXPECT_FALSE(hasForm("scatter-nested",
                       {"m = m.select_scatter(n[0].slice_scatter(v, 0, 1, 3), "
                        "0, 0)"}));
  EXPECT_FALSE(hasForm("no-grad-guard", {"{ torch::NoGradGuard no_grad; "}));
  EXPECT_FALSE(hasForm("schema-mark-mutable", {"anything"}));
}

// The parts any rule's fix may add: a named view's declaration deleted,
// and named views bound again.
TEST(RuleVerifiers, NamedViewParts) {
  using torch_tidy::rules::is_named_view_declaration;
  using torch_tidy::rules::is_named_view_rebind_line;
  EXPECT_TRUE(is_named_view_declaration("  auto col = buf.t()[2];\n"));
  EXPECT_TRUE(is_named_view_declaration("const at::Tensor &row = m[1];"));
  EXPECT_TRUE(is_named_view_declaration("torch::Tensor& r=m.select(0, 1);"));
  EXPECT_FALSE(is_named_view_declaration("auto a = m[0]; a.zero_();"));
  EXPECT_FALSE(is_named_view_declaration("int n = 3;"));
  std::string name, init;
  EXPECT_TRUE(
      is_named_view_rebind_line("\n  plane = out.select(2, 1);", &name, &init));
  EXPECT_EQ(name, "plane");
  EXPECT_EQ(init, "out.select(2, 1)");
  EXPECT_FALSE(is_named_view_rebind_line("\n  plane = out; out.zero_();",
                                         nullptr, nullptr));
  EXPECT_FALSE(
      is_named_view_rebind_line("plane = out.select(2, 1);", nullptr, nullptr));
}

// Wrong rewrites, each a plausible slip, must fail verification.
Instance with_rewrite(Instance inst, Program rewrite) {
  inst.rewrite = std::move(rewrite);
  return inst;
}

int failures(const std::string &base, Program (*wrong)(const Instance &)) {
  RuleVerifier v = *find_rule_verifier(base);
  auto make = v.make_instance;
  v.make_instance = [make, wrong](Random &r) {
    Instance inst = make(r);
    return with_rewrite(inst, wrong(inst));
  };
  return verify_rule(v, rt::Device::CPU, 300, 7).failed;
}

TEST(RuleVerifiers, CatchesARewriteThatReturnsTheTargetUnchanged) {
  EXPECT_GT(failures("slice-scatter",
                     [](const Instance &) -> Program {
                       return [](Tensor &t, const std::vector<Tensor> &) {
                         return t.clone();
                       };
                     }),
            0);
}

TEST(RuleVerifiers, CatchesARewriteThatKeepsTheInPlaceWrite) {
  // The in-place original as "rewrite": values equal, but compiled mode
  // reports requires_grad false.
  EXPECT_EQ(failures("index-copy",
                     [](const Instance &i) -> Program { return i.original; }),
            300);
}

TEST(RuleVerifiers, CatchesARewriteThatDetachesTheValue) {
  EXPECT_GT(failures("masked-scatter",
                     [](const Instance &i) -> Program {
                       Program rewrite = i.rewrite;
                       return
                           [rewrite](Tensor &t, const std::vector<Tensor> &in) {
                             std::vector<Tensor> detached;
                             for (const Tensor &x : in)
                               detached.push_back(x.detach());
                             return rewrite(t, detached);
                           };
                     }),
            0);
}

TEST(RuleVerifiers, AnAddedVerifierIsFound) {
  RuleVerifier v = *find_rule_verifier("scatter");
  v.rule_id = "test-added";
  add_rule_verifier(v);
  ASSERT_NE(find_rule_verifier("test-added"), nullptr);
  EXPECT_EQ(
      verify_rule(*find_rule_verifier("test-added"), rt::Device::CPU, 50, 3)
          .failed,
      0);
}

TEST(RuleVerifiers, UnavailableCudaIsReportedNotCrashed) {
  if (device_available(rt::Device::CUDA))
    GTEST_SKIP() << "a CUDA device is present";
  EXPECT_FALSE(device_available(rt::Device::CUDA));
}

} // namespace

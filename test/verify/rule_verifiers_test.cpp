// The rule verifiers themselves: every rule the checks can emit has one, the
// patterns are valid, and a deliberately wrong rewrite is caught.
#include "torch_tidy/verify/RuleVerifier.h"

#include <gtest/gtest.h>

#include <regex>
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
  for (const std::string &id : rewrite_rule_ids())
    EXPECT_FALSE(is_schema_rule(id)) << id;
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

TEST(RuleVerifiers, PatternsCompileAndInstancesHaveText) {
  Random r(1);
  for (const RuleVerifier &v : rule_verifiers()) {
    ASSERT_FALSE(v.fix_patterns.empty()) << v.rule_id;
    for (const std::string &p : v.fix_patterns)
      EXPECT_NO_THROW(std::regex{p}) << v.rule_id << ": " << p;
    Instance inst = v.make_instance(r);
    EXPECT_FALSE(inst.text.empty()) << v.rule_id;
    EXPECT_TRUE(inst.original && inst.rewrite) << v.rule_id;
  }
}

// The fix texts the checks emit (from the lit tests) match their rule.
TEST(RuleVerifiers, PatternsMatchTheChecksTexts) {
  const std::pair<const char *, const char *> texts[] = {
      {"index-put-list", "m = m.index_put(idx, v)"},
      {"index-put-list", "m = at::index_put(m, idx, v, true)"},
      {"index-put-advanced",
       "m = m.index_put({std::nullopt, rows, cols}, "
       "v.view_symint(at::indexing::slicePrefix1sSize(v.sym_sizes())))"},
      {"index-put-positions-setitem",
       "m = m.flatten().index_put({torch::arange(m.numel(), "
       "m.options().dtype(torch::kLong)).view(m.sizes()).index({0})}, "
       "v.view(at::indexing::slicePrefix1sSize(v.sizes())).to(m.options()))"
       ".view(m.sizes())"},
      {"index-put-positions-copy",
       "m = m.flatten().index_put({torch::arange(m.numel(), "
       "m.options().dtype(torch::kLong)).view(m.sizes()).select(0, 1)}, "
       "v.to(m.options())).view(m.sizes())"},
      {"slice-scatter", "m = m.slice_scatter(v.to(m.options()).expand_as("
                        "m.narrow(1, 0, 2)), 1, 0, 0 + (2))"},
      {"select-scatter", "m = m.select_scatter(v.to(m.options()).expand_as("
                         "m.select(0, 1)), 0, 1)"},
      {"index-copy", "m = m.index_copy(1, idx, v)"},
      {"masked-scatter", "m = m.masked_scatter(mask, v)"},
      {"scatter", "m = m.scatter(2, idx, v)"},
      {"masked-fill", "m = m.masked_fill(mask, v)"},
      {"index-fill", "m = m.index_fill(0, idx, v)"},
      {"index-put-into-copy", "t.index_put_({idx}, v.to(t.options()))"},
  };
  for (const auto &[id, text] : texts) {
    const RuleVerifier *v = find_rule_verifier(id);
    ASSERT_NE(v, nullptr) << id;
    EXPECT_TRUE(std::regex_search(text, std::regex(v->fix_patterns[0])))
        << id << ": " << text;
  }
  const RuleVerifier *slice = find_rule_verifier("slice-scatter");
  EXPECT_FALSE(std::regex_search("m = m.index_copy(1, idx, v)",
                                 std::regex(slice->fix_patterns[0])));
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

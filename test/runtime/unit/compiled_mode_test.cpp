// Acceptance 2: the compiled mode loses requires_grad after every in-place
// write form and after none of the out-of-place twins; apart from that flag,
// values and gradients equal eager.
#include "test_util.h"

#include "torch_tidy/runtime/write_forms.h"

#include <random>

namespace torch_tidy::runtime {
namespace {

Tensor source_for(const WriteForm &form) {
  Tensor v = randn(form.source_shape, 42);
  v.set_requires_grad(true);
  return v;
}

class WriteFormTest : public ::testing::TestWithParam<WriteForm> {};

TEST_P(WriteFormTest, EagerReportsTheFlag) {
  const WriteForm &form = GetParam();
  Tensor v = source_for(form);
  SeedProgramRun run = run_seed_program(form, v, true);
  EXPECT_TRUE(run.requires_grad_after_write);
  EXPECT_TRUE(run.loss.requires_grad());
}

TEST_P(WriteFormTest, CompiledLosesTheFlagExactlyForInPlaceForms) {
  const WriteForm &form = GetParam();
  Tensor v = source_for(form);
  ModeGuard compiled(ExecutionMode::Compiled);
  SeedProgramRun run = run_seed_program(form, v, false);
  EXPECT_EQ(run.requires_grad_after_write, !form.in_place);
  // The graph itself is intact: autograd still reaches the source.
  EXPECT_TRUE(run.result.requires_grad_eager());
}

TEST_P(WriteFormTest, BranchingOnTheStaleFlagDropsTheGradient) {
  const WriteForm &form = GetParam();
  Tensor v = source_for(form);
  ModeGuard compiled(ExecutionMode::Compiled);
  SeedProgramRun run = run_seed_program(form, v, true);
  EXPECT_EQ(run.loss.requires_grad_eager(), !form.in_place);
}

TEST_P(WriteFormTest, ValuesAndGradientsOtherwiseEqualEager) {
  const WriteForm &form = GetParam();
  Tensor v = source_for(form);
  SeedProgramRun eager = run_seed_program(form, v, false);
  std::vector<double> eager_grad = grad(eager.loss, {v})[0].to_doubles();
  ModeGuard compiled(ExecutionMode::Compiled);
  SeedProgramRun run = run_seed_program(form, v, false);
  EXPECT_EQ(run.result.to_doubles(), eager.result.to_doubles());
  EXPECT_EQ(grad(run.loss, {v})[0].to_doubles(), eager_grad);
  EXPECT_NE(eager.result.sum().item(), 0); // the write did something
}

// The newest torch keeps the flag after in-place ops on the tensor itself and
// loses it after writes through a view (docs/ground-truth.md).
bool newest_loses(const WriteForm &form) {
  return form.id == "narrow_copy_" || form.id == "select_copy_" ||
         form.id == "view_alias_copy_";
}

TEST_P(WriteFormTest, CompiledNewestLosesTheFlagOnlyThroughViews) {
  const WriteForm &form = GetParam();
  Tensor v = source_for(form);
  ModeGuard compiled(ExecutionMode::CompiledNewest);
  SeedProgramRun run = run_seed_program(form, v, true);
  EXPECT_EQ(run.requires_grad_after_write, !newest_loses(form));
  EXPECT_EQ(run.loss.requires_grad_eager(), !newest_loses(form));
}

// A C++ operator that writes into its mutable argument: the caller's flag is
// stale in both compiled modes for every in-place form; a functional twin's
// result keeps it; values and gradients are eager's.
TEST_P(WriteFormTest, OperatorWriteIntoMutableArgumentStaysStale) {
  const WriteForm &form = GetParam();
  Tensor v = source_for(form);
  SeedProgramRun eager = run_seed_program(form, v, false, WriteSite::Operator);
  EXPECT_TRUE(eager.requires_grad_after_write);
  std::vector<double> eager_grad = grad(eager.loss, {v})[0].to_doubles();
  for (ExecutionMode mode :
       {ExecutionMode::Compiled, ExecutionMode::CompiledNewest}) {
    ModeGuard compiled(mode);
    SeedProgramRun run = run_seed_program(form, v, false, WriteSite::Operator);
    EXPECT_EQ(run.requires_grad_after_write, !form.in_place);
    EXPECT_EQ(run.result.to_doubles(), eager.result.to_doubles());
    EXPECT_EQ(grad(run.loss, {v})[0].to_doubles(), eager_grad);
    SeedProgramRun branched =
        run_seed_program(form, v, true, WriteSite::Operator);
    EXPECT_EQ(branched.loss.requires_grad_eager(), !form.in_place);
  }
}

INSTANTIATE_TEST_SUITE_P(AllForms, WriteFormTest,
                         ::testing::ValuesIn(write_forms()),
                         [](const auto &info) { return info.param.id; });

TEST(CompiledMode, KernelBodiesReadTheLiveFlag) {
  Tensor v = testing::f32({1, 2}, {2}, true);
  for (ExecutionMode mode :
       {ExecutionMode::Compiled, ExecutionMode::CompiledNewest}) {
    ModeGuard compiled(mode);
    Tensor m = zeros({2});
    bool seen_inside = false;
    call_operator([&] {
      m.copy_(v);
      seen_inside = m.requires_grad(); // the kernel sees the true flag
    });
    EXPECT_TRUE(seen_inside);
    EXPECT_FALSE(m.requires_grad()); // the caller's stays stale
    EXPECT_TRUE(m.requires_grad_eager());
    EXPECT_EQ(execution_mode(), mode); // the mode is restored
  }
}

TEST(CompiledMode, OperatorResultsAreNewToTheCaller) {
  Tensor v = testing::f32({1, 2}, {2}, true);
  ModeGuard compiled(ExecutionMode::Compiled);
  Tensor m = zeros({2});
  Tensor out = call_operator_returning([&] {
    Tensor fresh = zeros({2});
    fresh.copy_(v); // a fresh local written in place, then returned
    return fresh;
  });
  EXPECT_TRUE(out.requires_grad());
  EXPECT_FALSE(m.requires_grad());
  // A kernel that throws leaves the mode as it was.
  EXPECT_THROW(call_operator([] { throw Error("kernel failed"); }), Error);
  EXPECT_EQ(execution_mode(), ExecutionMode::Compiled);
}

TEST(CompiledMode, FlagIsTakenAtCreation) {
  ModeGuard compiled(ExecutionMode::Compiled);
  Tensor a = testing::f32({1, 2}, {2}, true);
  EXPECT_TRUE(a.requires_grad());
  Tensor b = a * a; // created requiring grad
  EXPECT_TRUE(b.requires_grad());
  Tensor m = zeros({2});
  m.copy_(b);
  EXPECT_FALSE(m.requires_grad());
  EXPECT_TRUE(m.requires_grad_eager());
}

} // namespace
} // namespace torch_tidy::runtime

namespace torch_tidy::runtime {
namespace {

// docs/design.md (fix-it rules) on random shapes and indices: the seed write
// (before) and its index_put rewrite (after) agree on values and gradients in
// eager; the rewrite keeps requires_grad in compiled mode, the original loses
// it.
TEST(RewriteEquivalence, SetitemAdvancedVersusIndexPutOnRandomShapes) {
  std::mt19937_64 rng(11);
  auto pick = [&](std::int64_t n) { return std::int64_t(rng() % n); };
  for (int trial = 0; trial < 50; ++trial) {
    std::int64_t batch = 1 + pick(3), n = 2 + pick(3), k = 1 + pick(n);
    std::vector<double> rows(k), cols(k);
    for (std::int64_t i = 0; i < k; ++i) { // distinct (row, col) pairs
      rows[i] = double(i);
      cols[i] = double((i + pick(n)) % n);
    }
    Tensor r = from_doubles(rows, {k}, {DType::Int64});
    Tensor c = from_doubles(cols, {k}, {DType::Int64});
    Tensor vec = randn({batch, k}, 100 + trial);
    vec.set_requires_grad(true);
    Tensor w = randn({batch, n, n}, 200 + trial);
    auto before = [&] {
      Tensor m = zeros({batch, n, n});
      m.index_put_({Slice{}, r, c}, vec);
      return m;
    };
    auto after = [&] {
      return zeros({batch, n, n}).index_put({Slice{}, r, c}, vec);
    };
    Tensor eager_before = before(), eager_after = after();
    EXPECT_EQ(eager_before.to_doubles(), eager_after.to_doubles());
    EXPECT_EQ(grad((eager_before * w).sum(), {vec})[0].to_doubles(),
              grad((eager_after * w).sum(), {vec})[0].to_doubles());
    ModeGuard compiled(ExecutionMode::Compiled);
    EXPECT_FALSE(before().requires_grad());
    Tensor compiled_after = after();
    EXPECT_TRUE(compiled_after.requires_grad());
    EXPECT_EQ(compiled_after.to_doubles(), eager_after.to_doubles());
  }
}

} // namespace
} // namespace torch_tidy::runtime

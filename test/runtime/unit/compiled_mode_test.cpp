// Acceptance 2: the compiled mode loses requires_grad after every in-place
// write form and after none of the out-of-place twins; apart from that flag,
// values and gradients equal eager.
#include "test_util.h"

#include "torch_tidy/runtime/write_forms.h"

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

INSTANTIATE_TEST_SUITE_P(AllForms, WriteFormTest,
                         ::testing::ValuesIn(write_forms()),
                         [](const auto &info) { return info.param.id; });

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

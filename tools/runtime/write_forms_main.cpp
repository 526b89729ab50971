// Prints, per write form, what the runtime reports in eager and compiled
// mode, one JSON object per line (read by test/runtime/ground_truth_table.py).
#include "torch_tidy/runtime/runtime.h"
#include "torch_tidy/runtime/write_forms.h"

#include <iostream>

using namespace torch_tidy::runtime;

namespace {

const char *json(bool value) { return value ? "true" : "false"; }

struct FormReport {
  bool requires_grad, keeps_gradient_through_branch;
  std::vector<double> values, grads;
};

FormReport run(const WriteForm &form, ExecutionMode mode) {
  Tensor v = randn(form.source_shape, 7);
  v.set_requires_grad(true);
  ModeGuard guard(mode);
  FormReport report;
  SeedProgramRun plain = run_seed_program(form, v, false);
  report.requires_grad = plain.requires_grad_after_write;
  report.values = plain.result.to_doubles();
  report.grads = grad(plain.loss, {v})[0].to_doubles();
  SeedProgramRun branched = run_seed_program(form, v, true);
  report.keeps_gradient_through_branch = branched.loss.requires_grad_eager();
  return report;
}

} // namespace

int main() {
  for (const WriteForm &form : write_forms()) {
    FormReport eager = run(form, ExecutionMode::Eager);
    FormReport compiled = run(form, ExecutionMode::Compiled);
    std::cout << "{\"form\": \"" << form.id
              << "\", \"in_place\": " << json(form.in_place)
              << ", \"eager_requires_grad\": " << json(eager.requires_grad)
              << ", \"compiled_requires_grad\": "
              << json(compiled.requires_grad)
              << ", \"compiled_branch_keeps_gradient\": "
              << json(compiled.keeps_gradient_through_branch)
              << ", \"compiled_values_and_grads_equal_eager\": "
              << json(compiled.values == eager.values &&
                      compiled.grads == eager.grads)
              << "}\n";
  }
  return 0;
}

// Prints, per write form, what the runtime reports in eager and in both
// compiled modes, with the write in the program itself and in a C++
// operator's kernel, one JSON object per line (read by
// test/runtime/ground_truth_table.py).
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

FormReport run(const WriteForm &form, ExecutionMode mode, WriteSite site) {
  Tensor v = randn(form.source_shape, 7);
  v.set_requires_grad(true);
  ModeGuard guard(mode);
  FormReport report;
  SeedProgramRun plain = run_seed_program(form, v, false, site);
  report.requires_grad = plain.requires_grad_after_write;
  report.values = plain.result.to_doubles();
  report.grads = grad(plain.loss, {v})[0].to_doubles();
  SeedProgramRun branched = run_seed_program(form, v, true, site);
  report.keeps_gradient_through_branch = branched.loss.requires_grad_eager();
  return report;
}

} // namespace

int main() {
  const struct {
    const char *prefix;
    WriteSite site;
  } sites[] = {{"", WriteSite::Program}, {"operator_", WriteSite::Operator}};
  const struct {
    const char *name;
    ExecutionMode mode;
  } modes[] = {{"compiled", ExecutionMode::Compiled},
               {"compiled_newest", ExecutionMode::CompiledNewest}};
  for (const WriteForm &form : write_forms()) {
    std::cout << "{\"form\": \"" << form.id
              << "\", \"in_place\": " << json(form.in_place);
    for (const auto &site : sites) {
      FormReport eager = run(form, ExecutionMode::Eager, site.site);
      std::cout << ", \"" << site.prefix
                << "eager_requires_grad\": " << json(eager.requires_grad);
      for (const auto &mode : modes) {
        FormReport compiled = run(form, mode.mode, site.site);
        std::string key = std::string(site.prefix) + mode.name;
        std::cout << ", \"" << key
                  << "_requires_grad\": " << json(compiled.requires_grad)
                  << ", \"" << key << "_branch_keeps_gradient\": "
                  << json(compiled.keeps_gradient_through_branch) << ", \""
                  << key << "_values_and_grads_equal_eager\": "
                  << json(compiled.values == eager.values &&
                          compiled.grads == eager.grads);
      }
    }
    std::cout << "}\n";
  }
  return 0;
}

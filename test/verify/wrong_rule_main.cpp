// torch-tidy-verify with one deliberately wrong rule compiled in, for the
// tests only: "test-slice-scatter-drops-step" claims that
//   t.slice(1, a, b, s).copy_(v)  ->  t = t.slice_scatter(<v>, 1, a, b)
// which loses the step. torch-tidy-verify must report its fixes unverified.
#include "TorchTidyVerify.h"
#include "torch_tidy/verify/RuleVerifier.h"

#include <string>

using namespace torch_tidy::verify;
using rt::Tensor;

namespace {
Instance dropsStep(Random &r) {
  Instance inst;
  inst.target_shape = {4, 6};
  std::int64_t a = r.uniform(0, 2), b = r.uniform(3, 6), s = r.uniform(2, 3);
  std::int64_t len = (b - a + s - 1) / s;
  Input v{"v", {4, len}, rt::DType::Float32, {}, true};
  for (std::int64_t i = 0; i < 4 * len; ++i)
    v.values.push_back(double(i % 7) - 3);
  inst.inputs.push_back(v);
  inst.original = [=](Tensor &t, const std::vector<Tensor> &in) {
    t.slice(1, a, b, s).copy_(in[0]);
    return t;
  };
  inst.rewrite = [=](Tensor &t, const std::vector<Tensor> &in) {
    return t.slice_scatter(in[0].expand(t.slice(1, a, b, s).sizes()), 1, a,
                           b); // the step is dropped
  };
  inst.text = "t = torch::zeros([4,6], float32); t.slice(1, " +
              std::to_string(a) + ", " + std::to_string(b) + ", " +
              std::to_string(s) + ").copy_(v)";
  return inst;
}
} // namespace

int main(int argc, const char **argv) {
  RuleVerifier wrong = *find_rule_verifier("slice-scatter");
  wrong.rule_id = "test-slice-scatter-drops-step";
  wrong.varies = "a deliberately wrong rule (tests only)";
  wrong.make_instance = dropsStep;
  wrong.forms_row = "slice-scatter";
  add_rule_verifier(wrong);
  return torchTidyVerifyMain(argc, argv);
}

// Runs rule instances on the reference runtime and compares the programs.
#include "torch_tidy/verify/RuleVerifier.h"

#include "torch_tidy/runtime/backend.h"

#include <cmath>
#include <sstream>

namespace torch_tidy::verify {

bool device_available(rt::Device device) {
  if (device == rt::Device::CPU)
    return true;
  if (!rt::cuda_backend_compiled())
    return false;
  try {
    rt::cuda_backend();
    return true;
  } catch (const rt::Error &) {
    return false;
  }
}

namespace {

/// What one program run produced, read back to the host.
struct Run {
  std::optional<std::string> error;
  bool requires_grad = false; // as the mode reports it
  bool is_leaf = false;
  rt::Shape shape;
  rt::DType dtype = rt::DType::Float32;
  std::vector<double> values;
  /// Gradient of sum(result * weights) per grad-requiring input (or, for a
  /// leaf target, the target first); empty when the result has no history.
  std::vector<std::vector<double>> grads;
};

double weight(std::size_t i) { return double(std::int64_t(i * 7 % 9) - 4) / 4; }

enum class TargetKind { Plain, GradLeaf };

Run run_program(const Instance &inst, const Program &program, rt::Device device,
                rt::ExecutionMode mode, TargetKind target_kind) {
  rt::ModeGuard guard(mode);
  Run run;
  try {
    rt::Tensor target =
        inst.target_values.empty()
            ? rt::zeros(inst.target_shape, {inst.target_dtype, device})
            : rt::from_doubles(inst.target_values, inst.target_shape,
                               {inst.target_dtype, device});
    std::vector<rt::Tensor> in, wrt;
    if (target_kind == TargetKind::GradLeaf) {
      target.set_requires_grad(true);
      wrt.push_back(target);
    }
    for (const Input &input : inst.inputs) {
      rt::Tensor t =
          rt::from_doubles(input.values, input.shape, {input.dtype, device});
      if (input.requires_grad) {
        t.set_requires_grad(true);
        wrt.push_back(t);
      }
      in.push_back(t);
    }
    rt::Tensor result = program(target, in);
    run.requires_grad = result.requires_grad();
    run.is_leaf = result.is_leaf();
    run.shape = result.sizes();
    run.dtype = result.dtype();
    run.values = result.to_doubles();
    if (!result.requires_grad_eager() || wrt.empty())
      return run;
    std::vector<double> w(run.values.size());
    for (std::size_t i = 0; i < w.size(); ++i)
      w[i] = weight(i);
    rt::Tensor loss =
        result
            .mul(rt::from_doubles(w, result.sizes(), {result.dtype(), device}))
            .sum();
    for (const rt::Tensor &g : rt::grad(loss, wrt, /*allow_unused=*/true))
      run.grads.push_back(g.defined() ? g.to_doubles() : std::vector<double>{});
  } catch (const rt::Error &e) {
    run.error = e.what();
  }
  return run;
}

bool close(double a, double b, rt::DType dtype) {
  if (a == b || (std::isnan(a) && std::isnan(b)))
    return true;
  double tol = dtype == rt::DType::Float64 ? 1e-12 : 1e-5;
  return std::fabs(a - b) <= tol * (1 + std::fabs(a) + std::fabs(b));
}

/// Where `got` differs from `want` (same values, shape, dtype, gradients).
std::optional<std::string> compare(const char *what, const Run &want,
                                   const Run &got, bool grads) {
  std::ostringstream out;
  if (got.shape != want.shape || got.dtype != want.dtype) {
    out << what << " gives " << rt::name(got.dtype) << shape_text(got.shape)
        << ", the original " << rt::name(want.dtype) << shape_text(want.shape);
    return out.str();
  }
  for (std::size_t i = 0; i < want.values.size(); ++i)
    if (!close(want.values[i], got.values[i], want.dtype)) {
      out << what << " differs at element " << i << ": " << got.values[i]
          << " instead of " << want.values[i];
      return out.str();
    }
  if (!grads)
    return std::nullopt;
  if (got.grads.size() != want.grads.size())
    return std::string(what) + " has no gradient where the original has one";
  for (std::size_t k = 0; k < want.grads.size(); ++k) {
    const auto &a = want.grads[k], &b = got.grads[k];
    bool zero_a = a.empty(), zero_b = b.empty();
    std::size_t n = std::max(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
      double x = zero_a ? 0 : a.at(i), y = zero_b ? 0 : b.at(i);
      if (!close(x, y, rt::DType::Float32)) {
        out << what << "'s gradient of input " << k << " differs at element "
            << i << ": " << y << " instead of " << x;
        return out.str();
      }
    }
  }
  return std::nullopt;
}

const char *mode_name(rt::ExecutionMode m) {
  return m == rt::ExecutionMode::Eager ? "eager" : "compiled";
}

std::optional<std::string> check_same(const Instance &inst, rt::Device device) {
  using M = rt::ExecutionMode;
  Run original =
      run_program(inst, inst.original, device, M::Eager, TargetKind::Plain);
  if (original.error)
    return "the original raised (a generator bug): " + *original.error;
  if (!original.requires_grad)
    return std::string("the original does not require grad in eager mode");
  Run original_compiled =
      run_program(inst, inst.original, device, M::Compiled, TargetKind::Plain);
  if (original_compiled.error)
    return "the original raised in compiled mode: " + *original_compiled.error;
  if (original_compiled.requires_grad)
    return std::string(
        "the original keeps requires_grad in compiled mode: the instance does "
        "not show the bug the rule fixes");
  for (M mode : {M::Eager, M::Compiled}) {
    Run rewrite =
        run_program(inst, inst.rewrite, device, mode, TargetKind::Plain);
    std::string what = std::string("the rewrite (") + mode_name(mode) + ")";
    if (rewrite.error && inst.may_throw)
      continue; // loud, as the fix's note says
    if (rewrite.error)
      return what + " raised: " + *rewrite.error;
    if (!rewrite.requires_grad)
      return what + " reports requires_grad false";
    if (auto d = compare(what.c_str(), original, rewrite, /*grads=*/true))
      return d;
  }
  return std::nullopt;
}

std::optional<std::string> check_lost_write(const Instance &inst,
                                            rt::Device device) {
  using M = rt::ExecutionMode;
  Run original =
      run_program(inst, inst.original, device, M::Eager, TargetKind::Plain);
  if (original.error)
    return "the original raised (a generator bug): " + *original.error;
  for (double v : original.values)
    if (v != 0)
      return std::string("the original's write reached the target: the "
                         "instance does not show the lost write");
  Run intended =
      run_program(inst, inst.intended, device, M::Eager, TargetKind::Plain);
  if (intended.error)
    return "the intended write raised (a generator bug): " + *intended.error;
  for (M mode : {M::Eager, M::Compiled}) {
    Run rewrite =
        run_program(inst, inst.rewrite, device, mode, TargetKind::Plain);
    std::string what = std::string("the rewrite (") + mode_name(mode) + ")";
    if (rewrite.error)
      return what + " raised: " + *rewrite.error;
    if (mode == M::Eager && rewrite.requires_grad != intended.requires_grad)
      return what + " disagrees with the intended write on requires_grad";
    if (auto d = compare(what.c_str(), intended, rewrite, /*grads=*/true))
      return d;
  }
  return std::nullopt;
}

std::optional<std::string> check_leaf(const Instance &inst, rt::Device device) {
  using M = rt::ExecutionMode;
  Run original =
      run_program(inst, inst.original, device, M::Eager, TargetKind::GradLeaf);
  if (!original.error)
    return std::string("the original did not raise autograd's leaf error");
  if (original.error->find("leaf Variable that requires grad") ==
      std::string::npos)
    return "the original raised something else: " + *original.error;
  // The values the write gives a target that does not require grad.
  Run plain =
      run_program(inst, inst.original, device, M::Eager, TargetKind::Plain);
  if (plain.error)
    return "the write raised on a plain target (a generator bug): " +
           *plain.error;
  for (M mode : {M::Eager, M::Compiled}) {
    Run rewrite =
        run_program(inst, inst.rewrite, device, mode, TargetKind::GradLeaf);
    std::string what = std::string("the rewrite (") + mode_name(mode) + ")";
    if (rewrite.error)
      return what + " raised: " + *rewrite.error;
    if (!rewrite.requires_grad || !rewrite.is_leaf)
      return what + " leaves a target that is not a leaf requiring grad";
    if (auto d = compare(what.c_str(), plain, rewrite, /*grads=*/false))
      return d;
    // sum(target * w) has gradient w with respect to the leaf.
    if (rewrite.grads.empty() ||
        rewrite.grads[0].size() != rewrite.values.size())
      return what + ": the leaf gets no gradient";
    for (std::size_t i = 0; i < rewrite.values.size(); ++i)
      if (rewrite.grads[0][i] != weight(i))
        return what + ": the leaf's gradient is wrong";
  }
  return std::nullopt;
}

} // namespace

std::optional<std::string> check_instance(const Instance &instance,
                                          rt::Device device) {
  switch (instance.expect) {
  case Expectation::SameAsOriginal:
    return check_same(instance, device);
  case Expectation::OriginalLosesWrite:
    return check_lost_write(instance, device);
  case Expectation::OriginalThrowsLeafError:
    return check_leaf(instance, device);
  }
  return std::string("unknown expectation");
}

RuleReport verify_rule(const RuleVerifier &verifier, rt::Device device,
                       int instances, std::uint64_t seed) {
  RuleReport report;
  report.rule_id = verifier.rule_id;
  report.device = device;
  std::uint64_t h = 1469598103934665603ull; // FNV-1a of the id
  for (char c : verifier.rule_id)
    h = (h ^ std::uint8_t(c)) * 1099511628211ull;
  Random random(seed ^ h);
  for (int i = 0; i < instances; ++i) {
    // Generators probe shapes with the runtime; a draw the runtime rejects
    // is drawn again (a generator that keeps failing is a failure).
    std::optional<Instance> instance;
    std::string generation_error;
    for (int attempt = 0; attempt < 50 && !instance; ++attempt) {
      try {
        instance = verifier.make_instance(random);
      } catch (const std::exception &e) {
        generation_error = e.what();
      }
    }
    ++report.instances;
    if (!instance) {
      if (report.failed++ == 0)
        report.first_failure =
            "the generator failed 50 times: " + generation_error;
      continue;
    }
    std::optional<std::string> failure;
    try {
      failure = check_instance(*instance, device);
    } catch (const std::exception &e) {
      failure = std::string("unexpected exception: ") + e.what();
    }
    if (failure) {
      if (report.failed++ == 0)
        report.first_failure = instance->text + ": " + *failure;
    }
  }
  return report;
}

} // namespace torch_tidy::verify

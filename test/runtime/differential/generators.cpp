// Random case generators. Shapes of dependent operands (values of an
// index_put, the source of a slice_scatter) are read off the runtime; if the
// runtime got a shape wrong, LibTorch rejects the case and the suite fails.
#include "generators.h"

#include "program.h"

#include "torch_tidy/runtime/runtime.h"

#include <algorithm>
#include <cmath>

namespace torch_tidy::differential {

namespace rt = torch_tidy::runtime;

DType CaseGenerator::any_dtype() { return DType(uniform(0, 3)); }
DType CaseGenerator::float_dtype() {
  return chance(0.5) ? DType::Float32 : DType::Float64;
}

Shape CaseGenerator::shape(int min_dims, int max_dims) {
  return random_.shape(min_dims, max_dims, 4, /*zero_size=*/0.04);
}

Array CaseGenerator::array(const Shape &s, DType dtype, bool may_require_grad) {
  Array a{s, dtype, std::vector<double>(std::size_t(programs::numel(s))),
          false};
  for (double &v : a.values) {
    if (dtype == DType::Bool)
      v = double(chance(0.5));
    else if (dtype == DType::Int64)
      v = double(uniform(-5, 5));
    else
      v = double(uniform(-8, 8)) / 4.0; // dyadic: sums are exact
  }
  a.requires_grad =
      runtime::is_floating(dtype) && may_require_grad && chance(0.7);
  return a;
}

void CaseGenerator::divisor_values(Array &a) {
  if (a.dtype == DType::Bool)
    return;
  int lowest = runtime::is_floating(a.dtype) ? -2 : 0;
  for (double &v : a.values) {
    double magnitude = std::ldexp(1.0, int(uniform(lowest, 2)));
    v = chance(0.05) ? 0.0 : chance(0.5) ? magnitude : -magnitude;
  }
}

// Out-of-range positions (which both sides must reject) only where
// LibTorch raises instead of asserting on the device.
Array CaseGenerator::index_tensor(const Shape &s, std::int64_t size,
                                  bool unique) {
  return {s, DType::Int64,
          random_.positions(programs::numel(s), size, unique,
                            /*negative=*/0.2,
                            /*out_of_range=*/device_safe_ ? 0 : 0.03),
          false};
}

Array CaseGenerator::mask(const Shape &s) {
  return {s, DType::Bool, random_.mask(programs::numel(s)), false};
}

std::int64_t CaseGenerator::dim_of(std::int64_t ndim) {
  std::int64_t range = std::max<std::int64_t>(ndim, 1);
  if (chance(0.03))
    return chance(0.5) ? range : -range - 1;
  return uniform(-range, range - 1);
}

// A shape that broadcasts to `s`: dims dropped from the front or set to 1.
Shape CaseGenerator::broadcastable_to(const Shape &s) {
  Shape out(s.begin() + uniform(0, std::int64_t(s.size())), s.end());
  for (auto &size : out)
    if (chance(0.3))
      size = 1;
  return out;
}

std::optional<Shape> CaseGenerator::runtime_shape(const Case &c) {
  Outcome probe = run_on_runtime(c, "cpu");
  if (probe.error)
    return std::nullopt;
  return probe.result.shape;
}

std::vector<ViewStep> CaseGenerator::view_chain(Shape s, int steps) {
  std::vector<ViewStep> chain;
  for (int i = 0; i < steps; ++i) {
    std::int64_t n = std::int64_t(s.size());
    // Every kind but Subscript, which is select(0, i) spelled x[i].
    ViewStep step{ViewKind(uniform(0, int(ViewKind::Expand))), {}, {}};
    std::int64_t d = dim_of(n);
    std::int64_t size =
        n == 0 ? 1
               : s[std::size_t((d % std::max<std::int64_t>(n, 1) + n) %
                               std::max<std::int64_t>(n, 1))];
    switch (step.kind) {
    case ViewKind::Slice:
      step.ints = {d, uniform(-size - 1, size), uniform(-size, size + 1),
                   chance(0.05) ? 0 : uniform(1, 2)};
      break;
    case ViewKind::Narrow: {
      std::int64_t start = uniform(-size, size);
      std::int64_t max_length = start < 0 ? -start : size - start;
      step.ints = {d, start,
                   chance(0.05) ? max_length + 1 : uniform(0, max_length)};
      break;
    }
    case ViewKind::Select:
      step.ints = {d, chance(0.05) ? size : uniform(-size, size - 1)};
      break;
    case ViewKind::Transpose:
      step.ints = {d, dim_of(n)};
      break;
    case ViewKind::Unsqueeze:
      step.ints = {uniform(-n - 1, n)};
      break;
    case ViewKind::Squeeze:
      break;
    case ViewKind::SqueezeDim:
      step.ints = {d};
      break;
    case ViewKind::View:
      if (chance(0.4)) {
        step.shape = {-1};
      } else if (n >= 2 && chance(0.6)) {
        step.shape = Shape(s.begin(), s.end() - 2);
        step.shape.push_back(s[n - 2] * s[n - 1]);
      } else {
        step.shape = s;
        step.shape.insert(step.shape.begin(), 1);
        if (chance(0.3))
          step.shape.back() = -1;
      }
      break;
    case ViewKind::Expand:
      step.shape = s;
      for (auto &size_d : step.shape)
        size_d = size_d == 1 ? uniform(1, 3) : (chance(0.2) ? -1 : size_d);
      if (chance(0.3))
        step.shape.insert(step.shape.begin(), uniform(1, 2));
      break;
    case ViewKind::Subscript:
      break;
    }
    chain.push_back(step);
    Case probe;
    probe.op = "view";
    probe.inputs = {
        Array{s, DType::Float32,
              std::vector<double>(std::size_t(programs::numel(s)), 0.0)}};
    probe.views = {step};
    auto next = runtime_shape(probe);
    if (!next)
      break; // an erroring step ends the chain: both sides must reject it
    s = *next;
  }
  return chain;
}

std::vector<IndexSpec>
CaseGenerator::index_expression(const Shape &s,
                                bool tensors_and_full_slices_only) {
  std::vector<IndexSpec> out;
  std::int64_t n = std::int64_t(s.size());
  Shape block = shape(1, 2); // broadcast shape shared by tensor indices
  for (auto &b : block)
    b = std::max<std::int64_t>(b, 1);
  bool used_ellipsis = false;
  std::int64_t d = 0;
  int entries = int(uniform(1, std::min<std::int64_t>(n + 1, 4)));
  for (int e = 0; e < entries && d <= n; ++e) {
    std::int64_t size = d < n ? s[std::size_t(d)] : 1;
    IndexSpec spec;
    std::int64_t pick =
        tensors_and_full_slices_only ? (chance(0.65) ? 4 : 1) : uniform(0, 9);
    if (d == n && pick != 2 && pick != 3 && !chance(0.05))
      break; // nothing left to index (sometimes index anyway: an error)
    if (pick == 0) {
      spec.kind = IndexKind::Integer;
      spec.integer = chance(0.05) ? size : uniform(-size, size - 1);
      ++d;
    } else if (pick == 1) {
      spec.kind = IndexKind::Slice;
      if (!tensors_and_full_slices_only) {
        if (chance(0.6))
          spec.start = uniform(-size - 1, size);
        if (chance(0.6))
          spec.stop = uniform(-size - 1, size + 1);
        spec.step = uniform(1, 2);
      }
      ++d;
    } else if (pick == 2) {
      spec.kind = IndexKind::None;
    } else if (pick == 3) {
      if (used_ellipsis)
        continue;
      used_ellipsis = true;
      spec.kind = IndexKind::Ellipsis;
      d += uniform(0, std::max<std::int64_t>(n - d - 1, 0));
    } else if (pick <= 7 || n - d < 2) {
      spec.kind = IndexKind::Tensor;
      Shape t = chance(0.95) ? broadcastable_to(block) : shape(1, 2);
      if (t.empty())
        t = {1}; // 0-dim index tensors take a different path in LibTorch
      spec.tensor = index_tensor(t, size, false);
      ++d;
    } else {
      spec.kind = IndexKind::Tensor;
      std::int64_t k = uniform(1, std::min<std::int64_t>(2, n - d));
      Shape m(s.begin() + d, s.begin() + d + k);
      if (chance(0.05))
        m.back() += 1; // mask shape mismatch
      spec.tensor = mask(m);
      d += k;
    }
    out.push_back(spec);
  }
  if (out.empty() ||
      (tensors_and_full_slices_only && !programs::has_tensor(out))) {
    // The accumulate form needs a tensor index (LibTorch asserts otherwise).
    IndexSpec first;
    first.kind = IndexKind::Tensor;
    first.tensor = index_tensor({uniform(1, 3)}, n ? s[0] : 1, false);
    if (tensors_and_full_slices_only && !out.empty())
      out[0] = first;
    else
      out.push_back(first);
  }
  return out;
}

// Self plus where an in-place op writes: the leaf itself (rejected when it
// requires grad), a clone, or a view of a clone.
Case CaseGenerator::in_place_base(const std::string &family,
                                  const std::string &op, Array self) {
  Case c;
  c.family = family;
  c.op = op;
  double pick = random_.real01();
  c.write_into = pick < 0.1   ? WriteInto::Leaf
                 : pick < 0.6 ? WriteInto::Clone
                              : WriteInto::ViewOfClone;
  if (c.write_into == WriteInto::ViewOfClone)
    c.views = view_chain(self.shape, 1);
  // A quarter write from inside an operator's kernel into its mutable
  // argument (drawn apart from the rest, so the other draws are unchanged).
  c.through_operator = op_random_.uniform(0, 3) == 0;
  c.inputs = {std::move(self)};
  return c;
}

Shape CaseGenerator::target_shape(const Case &c) {
  Case view = c;
  view.op = "view";
  view.inputs.resize(1);
  view.inputs[0].requires_grad = false;
  return runtime_shape(view).value_or(c.inputs[0].shape);
}

} // namespace torch_tidy::differential

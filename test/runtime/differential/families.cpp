// One generator per op family: mostly valid programs, with a share of
// invalid arguments that both sides must reject.
#include "generators.h"

#include <functional>
#include <iterator>
#include <numeric>

namespace torch_tidy::differential {

Case CaseGenerator::next() {
  using Family = Case (CaseGenerator::*)();
  static const Family families[] = {&CaseGenerator::views,
                                    &CaseGenerator::view_writes,
                                    &CaseGenerator::factories,
                                    &CaseGenerator::copy_fill,
                                    &CaseGenerator::advanced_index,
                                    &CaseGenerator::index_put,
                                    &CaseGenerator::index_put,
                                    &CaseGenerator::index_copy_fill_select,
                                    &CaseGenerator::scatter_gather,
                                    &CaseGenerator::masked,
                                    &CaseGenerator::slice_select_scatter,
                                    &CaseGenerator::arithmetic,
                                    &CaseGenerator::sums,
                                    &CaseGenerator::advanced_index};
  Case c = (this->*families[counter_++ % std::size(families)])();
  c.weight_seed = counter_;
  return c;
}

Case CaseGenerator::views() {
  Case c;
  c.family = "views";
  c.op = "view";
  c.inputs = {array(shape(0, 4), any_dtype())};
  c.views = view_chain(c.inputs[0].shape, int(uniform(1, 3)));
  c.compare_layout = true;
  return c;
}

Case CaseGenerator::view_writes() {
  Array self = array(shape(1, 4), chance(0.7) ? float_dtype() : any_dtype());
  // copy_ and fill_, and the in-place arithmetic issue 39's rewrites prove.
  static const char *const arithmetic[] = {"add_", "sub_", "mul_", "div_",
                                           "clamp_"};
  const char *op = chance(0.6)   ? "copy_"
                   : chance(0.4) ? "fill_"
                                 : arithmetic[uniform(0, 4)];
  Case c = in_place_base("view_writes", op, std::move(self));
  if (c.write_into != WriteInto::ViewOfClone) {
    c.write_into = WriteInto::ViewOfClone;
    c.views = view_chain(c.inputs[0].shape, int(uniform(1, 2)));
  }
  Shape target = target_shape(c);
  c.scalar = double(uniform(-6, 6)) / 2;
  DType src_dtype = chance(0.8) ? c.inputs[0].dtype : any_dtype();
  bool differentiable = runtime::is_floating(c.inputs[0].dtype) &&
                        runtime::is_floating(src_dtype);
  c.inputs.push_back(array(chance(0.8) ? target : broadcastable_to(target),
                           src_dtype, differentiable));
  if (c.op == "div_")
    divisor_values(c.inputs.back());
  return c;
}

Case CaseGenerator::factories() {
  Case c;
  c.family = "factories";
  c.op = "factory";
  FactoryKind kind = FactoryKind(uniform(0, 6));
  c.ints = {std::int64_t(kind)};
  c.shape = shape(0, 3);
  c.dtype = any_dtype();
  c.scalar = double(uniform(-6, 6)) / 2;
  if (kind == FactoryKind::Arange) {
    c.ints.push_back(uniform(-5, 5));
    c.ints.push_back(uniform(-5, 5));
    c.ints.push_back(chance(0.1) ? 0 : (chance(0.5) ? 1 : -1) * uniform(1, 3));
  } else if (kind == FactoryKind::TriuIndices) {
    c.ints.push_back(uniform(0, 4));
    c.ints.push_back(uniform(0, 4));
    c.ints.push_back(uniform(-3, 3));
  }
  c.compare_values = kind != FactoryKind::Empty && kind != FactoryKind::Randn;
  if (kind == FactoryKind::Randn && chance(0.8))
    c.dtype = float_dtype();
  if (kind == FactoryKind::Arange && c.dtype == DType::Bool)
    c.dtype = DType::Int64;
  return c;
}

Case CaseGenerator::copy_fill() {
  Array self = array(shape(0, 4), any_dtype());
  bool copy = chance(0.7);
  Case c = in_place_base("copy_fill", copy ? "copy_" : "fill_", self);
  c.scalar = double(uniform(-6, 6)) / 2;
  if (copy) {
    Shape target = target_shape(c);
    Shape src = chance(0.7) ? target : broadcastable_to(target);
    if (chance(0.04))
      src = shape(1, 3); // usually not broadcastable
    c.inputs.push_back(array(src, chance(0.7) ? self.dtype : any_dtype(),
                             runtime::is_floating(self.dtype)));
  }
  return c;
}

Case CaseGenerator::advanced_index() {
  Case c;
  c.family = "index";
  c.op = "index";
  c.inputs = {array(shape(1, 4), chance(0.7) ? float_dtype() : any_dtype())};
  if (chance(0.2))
    c.views = view_chain(c.inputs[0].shape, 1);
  c.indices = index_expression(target_shape(c), false);
  return c;
}

Case CaseGenerator::index_put() {
  bool in_place = chance(0.6);
  Array self = array(shape(1, 4), chance(0.75) ? float_dtype() : any_dtype());
  Case c = in_place ? in_place_base("index_put", "index_put_", self)
                    : Case{"index_put", "index_put", {self}};
  c.flag = chance(0.3); // accumulate: only tensor indices and full slices
  if (!in_place && chance(0.2))
    c.views = view_chain(self.shape, 1);
  // Without accumulate, a quarter use at::index_put_'s optional-tensor list
  // (no setitem stripping of the value), like the accumulate form.
  c.raw_list = !c.flag && chance(0.25);
  c.indices = index_expression(target_shape(c), c.flag || c.raw_list);
  Case probe = c;
  probe.op = "index";
  probe.inputs[0].requires_grad = false;
  if (in_place && c.write_into != WriteInto::ViewOfClone)
    probe.views.clear();
  Shape result = runtime_shape(probe).value_or(Shape{2});
  Shape values = result;
  double pick = random_.real01();
  if (device_safe_ && !c.flag)
    pick = 0.25; // a 0-dim value: duplicate positions write the same
  if (pick < 0.2)
    values = broadcastable_to(result);
  else if (pick < 0.3)
    values = {};
  else if (pick < 0.35 && !c.flag)
    values.insert(values.begin(), 1); // setitem strips leading ones
  else if (pick < 0.38)
    values = shape(1, 2);
  DType dtype = chance(0.92) ? self.dtype : any_dtype();
  // A grad-requiring value of another dtype hits a LibTorch quirk the runtime
  // does not copy (set_item's fill_(Tensor) marks even an integer target as
  // requiring grad); see docs/runtime.md.
  c.inputs.push_back(array(values, dtype, dtype == self.dtype));
  return c;
}

Case CaseGenerator::index_copy_fill_select() {
  static const char *ops[] = {"index_copy_", "index_copy", "index_fill_",
                              "index_fill", "index_select"};
  std::string op = ops[uniform(0, 4)];
  Array self = array(shape(1, 3), chance(0.75) ? float_dtype() : any_dtype());
  Case c = op.back() == '_' ? in_place_base("index_dim", op, self)
                            : Case{"index_dim", op, {self}};
  Shape target = target_shape(c);
  std::int64_t n = std::int64_t(target.size());
  std::int64_t dim = dim_of(n);
  c.ints = {dim};
  std::int64_t wrapped = n == 0 ? 0 : ((dim % n) + n) % n;
  std::int64_t size = n == 0 ? 1 : target[std::size_t(wrapped)];
  std::int64_t count =
      uniform(size > 0 ? 1 : 0, std::max<std::int64_t>(size, 0));
  Shape index_shape = chance(0.05) ? Shape{count, 1} : Shape{count};
  Array index = index_tensor(index_shape, size, /*unique=*/true);
  if (device_safe_) // LibTorch's CUDA index_copy_ asserts on negatives
    for (double &v : index.values)
      v = v < 0 ? v + double(size) : v;
  if (chance(0.03))
    index.dtype = DType::Float32;
  c.inputs.push_back(index);
  c.scalar = double(uniform(-6, 6)) / 2;
  if (op.rfind("index_copy", 0) == 0) {
    Shape source = target;
    if (n > 0)
      source[std::size_t(wrapped)] = count;
    if (chance(0.05) && !source.empty())
      source.back() += 1;
    c.inputs.push_back(array(source, chance(0.92) ? self.dtype : any_dtype()));
  } else if (op.rfind("index_fill", 0) == 0 && chance(0.35)) {
    // A 0-dim value tensor (the form that carries a gradient).
    c.inputs.push_back(array({}, chance(0.9) ? self.dtype : float_dtype(),
                             runtime::is_floating(self.dtype)));
  }
  return c;
}

Case CaseGenerator::scatter_gather() {
  static const char *ops[] = {"scatter_", "scatter", "scatter_value_",
                              "scatter_value", "gather"};
  std::string op = ops[uniform(0, 4)];
  Array self = array(shape(1, 3), chance(0.75) ? float_dtype() : any_dtype());
  Case c = op.back() == '_' ? in_place_base("scatter_gather", op, self)
                            : Case{"scatter_gather", op, {self}};
  Shape target = target_shape(c);
  std::int64_t n = std::int64_t(target.size());
  std::int64_t dim = n == 0 ? 0 : uniform(0, n - 1);
  if (chance(0.1))
    dim -= n;
  c.ints = {dim};
  std::int64_t wrapped = n == 0 ? 0 : (dim + n) % n;
  // Index: at most the target's size in every dim; along `dim`, unique per
  // column so scatter's result does not depend on write order.
  Shape index_shape = target;
  for (std::size_t d = 0; d < index_shape.size(); ++d)
    index_shape[d] = index_shape[d] == 0 ? 0 : uniform(1, index_shape[d]);
  if (chance(0.04) && n > 0)
    index_shape[0] += 1;
  Array index{index_shape, DType::Int64,
              std::vector<double>(std::size_t(
                  std::accumulate(index_shape.begin(), index_shape.end(),
                                  std::int64_t(1), std::multiplies<>()))),
              false};
  std::int64_t size = n == 0 ? 1 : target[std::size_t(wrapped)];
  std::int64_t along = n == 0 ? 1 : index_shape[std::size_t(wrapped)];
  std::int64_t inner = 1;
  for (std::size_t d = std::size_t(wrapped) + 1; d < index_shape.size(); ++d)
    inner *= index_shape[d];
  std::int64_t columns =
      std::int64_t(index.values.size()) / std::max<std::int64_t>(along, 1);
  for (std::int64_t col = 0; col < columns; ++col) {
    Array perm = index_tensor({along}, size, /*unique=*/true);
    std::int64_t outer = col / std::max<std::int64_t>(inner, 1),
                 in = col % std::max<std::int64_t>(inner, 1);
    for (std::int64_t k = 0; k < along; ++k) {
      double v = perm.values[std::size_t(k)];
      if (v < 0 && (device_safe_ || !chance(0.1)))
        v += double(size); // negatives are errors here; keep them rare
      index.values[std::size_t((outer * along + k) * inner + in)] = v;
    }
  }
  c.inputs.push_back(index);
  c.scalar = double(uniform(-6, 6)) / 2;
  if (op == "scatter_" || op == "scatter") {
    Shape src = index_shape;
    if (chance(0.15) && !src.empty())
      src.back() += 1; // larger src: torch rejects its gradient
    c.inputs.push_back(array(src, chance(0.92) ? self.dtype : any_dtype()));
  }
  return c;
}

Case CaseGenerator::masked() {
  static const char *ops[] = {"masked_fill_", "masked_fill", "masked_scatter_",
                              "masked_scatter", "masked_select"};
  std::string op = ops[uniform(0, 4)];
  Array self = array(shape(0, 3), chance(0.75) ? float_dtype() : any_dtype());
  Case c = op.back() == '_' ? in_place_base("masked", op, self)
                            : Case{"masked", op, {self}};
  Shape target = target_shape(c);
  Array m = mask(chance(0.8) ? target : broadcastable_to(target));
  if (chance(0.03))
    m.dtype = DType::Int64;
  c.inputs.push_back(m);
  c.scalar = double(uniform(-6, 6)) / 2;
  if (op.rfind("masked_scatter", 0) == 0) {
    Shape source = chance(0.7) || device_safe_ ? target : shape(1, 3);
    c.inputs.push_back(array(source, chance(0.92) ? self.dtype : any_dtype()));
  }
  if (op.rfind("masked_fill", 0) == 0 && chance(0.35))
    c.inputs.push_back(array({}, chance(0.9) ? self.dtype : float_dtype(),
                             runtime::is_floating(self.dtype)));
  return c;
}

Case CaseGenerator::slice_select_scatter() {
  bool slice = chance(0.5);
  Case c{"slice_select_scatter",
         slice ? "slice_scatter" : "select_scatter",
         {array(shape(1, 3), chance(0.8) ? float_dtype() : any_dtype())}};
  Shape target = c.inputs[0].shape;
  std::int64_t n = std::int64_t(target.size());
  std::int64_t dim = dim_of(n);
  std::int64_t size = target[std::size_t(((dim % n) + n) % n)];
  if (slice)
    c.ints = {dim, uniform(-size, size), uniform(-size, size + 1),
              uniform(1, 2)};
  else
    c.ints = {dim, chance(0.05) ? size : uniform(-size, size - 1)};
  Case probe = c;
  probe.op = "view";
  probe.inputs[0].requires_grad = false;
  probe.views = {slice ? ViewStep{ViewKind::Slice, c.ints, {}}
                       : ViewStep{ViewKind::Select, c.ints, {}}};
  Shape src = runtime_shape(probe).value_or(Shape{1});
  if (chance(0.05))
    src.push_back(2);
  c.inputs.push_back(array(src, chance(0.9) ? c.inputs[0].dtype : any_dtype()));
  return c;
}

Case CaseGenerator::arithmetic() {
  static const char *ops[] = {"add", "sub", "mul", "div", "clamp"};
  Case c{"arithmetic", ops[uniform(0, 4)], {}};
  Shape a = shape(0, 3);
  Shape b = chance(0.6) ? broadcastable_to(a) : a;
  if (chance(0.5))
    std::swap(a, b);
  if (chance(0.04))
    b = shape(1, 3);
  c.inputs = {array(a, chance(0.6) ? float_dtype() : any_dtype()),
              array(b, chance(0.6) ? float_dtype() : any_dtype())};
  if (c.op == "div")
    divisor_values(c.inputs[1]);
  return c;
}

Case CaseGenerator::sums() {
  Case c{"sums",
         chance(0.3) ? "sum" : "sum_dims",
         {array(shape(0, 4), chance(0.7) ? float_dtype() : any_dtype())}};
  if (chance(0.2))
    c.views = view_chain(c.inputs[0].shape, 1);
  std::int64_t n = std::int64_t(target_shape(c).size());
  for (std::int64_t k = uniform(1, std::max<std::int64_t>(n, 1)); k > 0; --k)
    c.shape.push_back(dim_of(n));
  c.flag = chance(0.5);
  return c;
}

} // namespace torch_tidy::differential

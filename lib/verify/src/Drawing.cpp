// The drawing vocabulary of the rule verifiers (Drawing.h).
#include "Drawing.h"

namespace torch_tidy::verify::drawing {

Tensor probe_target(const Instance &inst) {
  return rt::zeros(inst.target_shape, {inst.target_dtype});
}
std::vector<Tensor> probe_inputs(const Instance &inst) {
  std::vector<Tensor> in;
  for (const Input &i : inst.inputs)
    in.push_back(rt::from_doubles(i.values, i.shape, {i.dtype}));
  return in;
}

std::vector<TensorIndex> runtime_list(const std::vector<Idx> &list,
                                      const std::vector<Tensor> &in) {
  return programs::index_list<programs::RuntimeIndexing>(
      list, [&](int input) { return in.at(std::size_t(input)); });
}

std::vector<std::optional<Tensor>>
optional_list(const std::vector<Idx> &list, const std::vector<Tensor> &in) {
  return programs::optional_list<std::vector<std::optional<Tensor>>>(
      list, [&](int input) { return in.at(std::size_t(input)); });
}

std::string list_text(const std::vector<Idx> &list, const Instance &inst,
                      bool nullopt_for_slices) {
  return programs::index_text(
      list, [&](int input) { return inst.inputs.at(std::size_t(input)).name; },
      nullopt_for_slices);
}

ViewStep draw_slice(Random &r, std::int64_t dim, std::int64_t size) {
  std::int64_t start = r.uniform(-size, size);
  std::int64_t stop = r.uniform(-size, size + 1);
  return {ViewKind::Slice, {dim, start, stop, r.uniform(1, 3)}};
}
ViewStep draw_narrow(Random &r, std::int64_t dim, std::int64_t size,
                     bool negative_start) {
  if (size == 0)
    return {ViewKind::Narrow, {dim, 0, 0}};
  std::int64_t start = r.uniform(0, size - 1);
  std::int64_t length = r.uniform(0, size - start);
  if (negative_start && r.chance(0.3))
    start -= size;
  return {ViewKind::Narrow, {dim, start, length}};
}

std::optional<ViewStep> draw_view(Random &r, const Shape &s,
                                  bool allow_subscript) {
  std::int64_t n = std::int64_t(s.size());
  for (int attempt = 0; attempt < 8; ++attempt) {
    switch (r.uniform(0, allow_subscript ? 5 : 4)) {
    case 0:
      if (n > 0) {
        std::int64_t d = r.uniform(-n, n - 1);
        return draw_slice(r, d, s[std::size_t(wrap_dim(d, n))]);
      }
      break;
    case 1:
      if (n > 0) {
        std::int64_t d = r.uniform(-n, n - 1);
        return draw_narrow(r, d, s[std::size_t(wrap_dim(d, n))], true);
      }
      break;
    case 2:
      if (n > 1) {
        std::int64_t d = r.uniform(-n, n - 1);
        std::int64_t size = s[std::size_t(wrap_dim(d, n))];
        if (size > 0)
          return ViewStep{ViewKind::Select, {d, r.uniform(-size, size - 1)}};
      }
      break;
    case 3:
      if (n > 1) {
        std::int64_t first = r.uniform(-n, n - 1);
        return ViewStep{ViewKind::Transpose, {first, r.uniform(-n, n - 1)}};
      }
      break;
    case 4:
      if (n < 4)
        return ViewStep{ViewKind::Unsqueeze, {r.uniform(-n - 1, n)}};
      break;
    case 5:
      if (n > 1 && s[0] > 0)
        return ViewStep{ViewKind::Subscript, {r.uniform(-s[0], s[0] - 1)}};
      break;
    }
  }
  return std::nullopt;
}

std::vector<ViewStep> draw_chain(Random &r, const Shape &target, int max_steps,
                                 bool allow_subscript) {
  std::vector<ViewStep> chain;
  Tensor probe = rt::zeros(target);
  int steps = int(r.uniform(0, max_steps));
  for (int i = 0; i < steps; ++i) {
    std::optional<ViewStep> s = draw_view(r, probe.sizes(), allow_subscript);
    if (!s)
      break;
    chain.push_back(*s);
    probe = apply_view(probe, *s);
  }
  return chain;
}

std::vector<Idx> draw_index_list_once(Draw &g, const Shape &s, bool basic,
                                      bool advanced, bool unique) {
  Random &r = g.r;
  std::vector<Idx> list;
  std::int64_t n = std::int64_t(s.size());
  std::int64_t dim = 0; // next dim of s to index
  std::int64_t block = r.uniform(1, 3);
  bool have_tensor = false, have_mask = false;
  int entries = int(r.uniform(1, std::max<std::int64_t>(1, n)));
  for (int k = 0; k < entries; ++k) {
    double pick = r.real01();
    if (basic && pick > 0.93) {
      // An Ellipsis takes the dims left; nothing follows it here.
      list.push_back({IndexKind::Ellipsis});
      break;
    }
    if (basic && pick > 0.85) {
      list.push_back({IndexKind::None});
      continue;
    }
    if (dim >= n)
      break;
    std::int64_t size = s[std::size_t(dim)];
    std::string name = "i" + std::to_string(g.inst.inputs.size());
    if (size == 0) { // nothing to pick from: a full slice
      list.push_back({IndexKind::Slice});
      ++dim;
      continue;
    }
    if (advanced && pick < 0.45 && !have_mask) {
      if (!have_tensor && r.chance(0.2)) {
        // A boolean mask over one or two dims; no tensor may follow it
        // (its length is its number of true elements).
        std::int64_t span = dim + 1 < n && r.chance(0.4) ? 2 : 1;
        Shape ms(s.begin() + dim, s.begin() + dim + span);
        list.push_back({IndexKind::Tensor, 0, {}, {}, 1, g.mask(name, ms)});
        dim += span;
        have_mask = have_tensor = true;
        continue;
      }
      Shape is;
      bool first_unique = unique && !have_tensor;
      if (first_unique) {
        block = std::min(block, size); // distinct positions need room
        is = {block};
      } else {
        is = {r.chance(0.5) ? block : 1};
      }
      list.push_back({IndexKind::Tensor,
                      0,
                      {},
                      {},
                      1,
                      g.index(name, is, size, first_unique, true)});
      have_tensor = true;
      ++dim;
      continue;
    }
    if (!basic || pick < 0.45) {
      list.push_back({IndexKind::Slice}); // a full slice
    } else if (pick < 0.65) {
      list.push_back({IndexKind::Integer, r.uniform(-size, size - 1)});
    } else {
      Idx sl{IndexKind::Slice};
      if (r.chance(0.6))
        sl.start = r.uniform(-size, size);
      if (r.chance(0.6))
        sl.stop = r.uniform(-size, size + 1);
      sl.step = r.uniform(1, 3);
      list.push_back(sl);
    }
    ++dim;
  }
  return list;
}

std::vector<Idx> draw_index_list(Draw &g, const Shape &s, bool basic,
                                 bool advanced, bool need_tensor, bool unique) {
  for (;;) {
    // A list without a tensor added no inputs, so it can be drawn again.
    std::vector<Idx> list = draw_index_list_once(g, s, basic, advanced, unique);
    if (!need_tensor || has_tensor(list))
      return list;
  }
}

Tensor strip_leading_ones(const Tensor &v) {
  Shape s = v.sizes();
  std::size_t lead = 0;
  while (lead < s.size() && s[lead] == 1)
    ++lead;
  return v.view(Shape(s.begin() + std::ptrdiff_t(lead), s.end()));
}

Tensor to_options(const Tensor &v, const Tensor &like) {
  return v.to(like.dtype()).to(like.device());
}

Tensor positions(const Tensor &t) {
  return rt::arange(t.numel(), {DType::Int64, t.device()}).view(t.sizes());
}

Tensor via_positions(const Tensor &t, const Tensor &p, const Tensor &value) {
  return t.reshape({t.numel()}).index_put_list({p}, value).view(t.sizes());
}

} // namespace torch_tidy::verify::drawing

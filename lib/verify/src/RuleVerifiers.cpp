// One instance generator per rule of RewriteRules.def. Each draws a target
// shape and dtype, the indices or views of the write, and a value that
// requires grad, and returns the original write and the rule's rewrite of it
// exactly as the check spells it (see lib/rewrite/src/OutOfPlaceRewrite.cpp),
// as runtime programs.
#include "Drawing.h"
#include "torch_tidy/rules/RuleForms.h"
#include "torch_tidy/verify/RuleVerifier.h"

#include <algorithm>
#include <functional>
#include <sstream>

namespace torch_tidy::verify {

namespace {

using namespace drawing;
using rt::DType;
using rt::Shape;
using rt::Tensor;
using rt::TensorIndex;

// ---------------------------------------------------------------------------
// The rules

Instance index_put_list(Random &r) {
  Draw g(r);
  g.target(1, 4);
  bool accumulate = r.chance(0.35);
  std::vector<Idx> list =
      draw_index_list(g, g.ts(), /*basic=*/false, /*advanced=*/true,
                      /*need_tensor=*/true, /*unique=*/!accumulate);
  Shape result = probe_target(g.inst)
                     .index(runtime_list(list, probe_inputs(g.inst)))
                     .sizes();
  int v = g.value("v", g.broadcastable(result, false), g.inst.target_dtype);
  bool free_function = r.chance(0.3);
  g.inst.original = [=](Tensor &t, const std::vector<Tensor> &in) {
    return t.index_put_list_(optional_list(list, in), in[v], accumulate);
  };
  g.inst.rewrite = [=](Tensor &t, const std::vector<Tensor> &in) {
    return t.index_put_list(optional_list(list, in), in[v], accumulate);
  };
  std::string args =
      list_text(list, g.inst, true) + ", v" + (accumulate ? ", true" : "");
  return g.finish(free_function ? "at::index_put_(t, " + args + ")"
                                : "t.index_put_(" + args + ")");
}

Instance index_put_advanced(Random &r) {
  Draw g(r);
  g.target(1, 4);
  std::vector<Idx> list = draw_index_list(g, g.ts(), /*basic=*/false,
                                          /*advanced=*/true, true);
  Shape result = probe_target(g.inst)
                     .index(runtime_list(list, probe_inputs(g.inst)))
                     .sizes();
  Shape vs = g.broadcastable(result, true);
  int v = g.value("v", vs, g.inst.target_dtype);
  // StrictFixes: the strip is left out only where v's rank is proven no
  // larger than the result's. The default leaves it out: a value with more
  // leading size-1 dims may then make the rewrite throw, never differ.
  bool strict = r.chance(0.5);
  bool strip = strict && (vs.size() > result.size() || r.chance(0.5));
  g.inst.may_throw = !strip && vs.size() > result.size();
  g.inst.original = [=](Tensor &t, const std::vector<Tensor> &in) {
    return t.index_put_(runtime_list(list, in), in[v]);
  };
  // t = t.index_put({nullopt, rows, ...}, v.view(slicePrefix1sSize(...)))
  g.inst.rewrite = [=](Tensor &t, const std::vector<Tensor> &in) {
    return t.index_put_list(optional_list(list, in),
                            strip ? strip_leading_ones(in[v]) : in[v]);
  };
  return g.finish("t.index_put_(" + list_text(list, g.inst) + ", v)");
}

Instance positions_setitem(Random &r) {
  Draw g(r);
  g.target(1, 4);
  std::vector<ViewStep> chain = draw_chain(r, g.ts(), 2, false);
  Shape view = apply_views(probe_target(g.inst), chain).sizes();
  std::vector<Idx> list =
      draw_index_list(g, view, /*basic=*/true, /*advanced=*/r.chance(0.5),
                      /*need_tensor=*/false);
  Shape result = apply_views(probe_target(g.inst), chain)
                     .index(runtime_list(list, probe_inputs(g.inst)))
                     .sizes();
  // Basic indices only: setitem is copy_, which casts; tensor indices need
  // the target's dtype.
  DType dtype = has_tensor(list) ? g.inst.target_dtype : g.float_dtype();
  Shape vs = g.broadcastable(result, true);
  int v = g.value("v", vs, dtype);
  // Left out where proven unneeded: the strip (v's rank is no larger than
  // the result's), the cast (v has the target's dtype).
  bool strip = vs.size() > result.size() || r.chance(0.5);
  bool cast = dtype != g.inst.target_dtype || r.chance(0.5);
  g.inst.original = [=](Tensor &t, const std::vector<Tensor> &in) {
    Tensor view = apply_views(t, chain);
    view.index_put_(runtime_list(list, in), in[v]);
    return t;
  };
  g.inst.rewrite = [=](Tensor &t, const std::vector<Tensor> &in) {
    Tensor p = apply_views(positions(t), chain).index(runtime_list(list, in));
    Tensor value = strip ? strip_leading_ones(in[v]) : in[v];
    return via_positions(t, p, cast ? to_options(value, t) : value);
  };
  return g.finish("t" + view_text(chain) + ".index_put_(" +
                  list_text(list, g.inst) + ", v)");
}

Instance positions_copy(Random &r) {
  Draw g(r);
  g.target(1, 4);
  std::vector<ViewStep> chain = draw_chain(r, g.ts(), 3, true);
  Shape view = apply_views(probe_target(g.inst), chain).sizes();
  // Optionally a basic index() at the end: t.index({...}) = v.
  std::vector<Idx> list;
  if (r.chance(0.3))
    list = draw_index_list(g, view, true, false, false);
  Shape written = list.empty() ? view
                               : apply_views(probe_target(g.inst), chain)
                                     .index(runtime_list(list, {}))
                                     .sizes();
  int form = int(r.uniform(0, 2)); // copy_, fill_, assignment
  Shape vs = form == 1 ? Shape{} : g.broadcastable(written, false);
  DType dtype = g.float_dtype();
  int v = g.value("v", vs, dtype);
  // The cast is left out where v provably has the target's dtype.
  bool cast = dtype != g.inst.target_dtype || r.chance(0.5);
  auto target_view = [=](const Tensor &t, const std::vector<Tensor> &in) {
    Tensor w = apply_views(t, chain);
    return list.empty() ? w : w.index(runtime_list(list, in));
  };
  g.inst.original = [=](Tensor &t, const std::vector<Tensor> &in) {
    Tensor w = target_view(t, in);
    w.copy_(in[v]); // copy_, fill_(0-dim tensor) and operator= alike
    return t;
  };
  g.inst.rewrite = [=](Tensor &t, const std::vector<Tensor> &in) {
    Tensor p = apply_views(positions(t), chain);
    if (!list.empty())
      p = p.index(runtime_list(list, in));
    return via_positions(t, p, cast ? to_options(in[v], t) : in[v]);
  };
  std::string lhs =
      "t" + view_text(chain) +
      (list.empty() ? "" : ".index(" + list_text(list, g.inst) + ")");
  const char *forms[] = {".copy_(v)", ".fill_(v)", " = v"};
  return g.finish(lhs + forms[form]);
}

// The scatter rules: one or two select/slice/narrow steps written back with
// select_scatter/slice_scatter. The last step is written as a view and
// copy_ / fill_ / assignment, or as setitem (index_put_ with a basic list:
// the step's dim spelled by full slices before it, or by an Ellipsis and
// full slices after it for a negative dim). The default fix passes v as
// written: where v is not exactly the region's shape (a broadcast, or
// leading size-1 dims setitem strips) the rewrite may throw but must not
// compute anything else; StrictFixes casts and broadcasts v.
enum class StepKind { Select, Slice, Narrow };

/// The written chain of one step, which the rewrite folds into the step
/// itself (lib/rewrite's foldedSelect): a select spelled as a one-element
/// slice (start >= 0) or narrow and a squeeze, or, along dim 1, as a
/// subscript or select(0, k) of transpose(0, 1); any step after an
/// unsqueeze(e).squeeze(e) pair. Mostly the step as it is.
std::vector<ViewStep> spelling(Random &r, const ViewStep &step,
                               std::int64_t ndim, std::int64_t size) {
  std::vector<ViewStep> out;
  if (r.chance(0.15)) {
    std::int64_t e = r.uniform(-ndim - 1, ndim);
    out.push_back({ViewKind::Unsqueeze, {e}});
    out.push_back({ViewKind::SqueezeDim, {e}});
  }
  if (step.kind != ViewKind::Select || r.chance(0.4)) {
    out.push_back(step);
    return out;
  }
  std::int64_t d = step.ints[0], i = step.ints[1];
  int how = int(r.uniform(0, 2));
  if (how == 2 && wrap_dim(d, ndim) == 1) {
    bool swapped = r.chance(0.5);
    out.push_back({ViewKind::Transpose, {swapped ? 1 : 0, swapped ? 0 : 1}});
    out.push_back(r.chance(0.5) ? ViewStep{ViewKind::Subscript, {i}}
                                : ViewStep{ViewKind::Select, {0, i}});
    return out;
  }
  if (how == 0) { // slice(d, i, i + 1) with i >= 0
    std::int64_t start = i < 0 ? i + size : i;
    out.push_back({ViewKind::Slice, {d, start, start + 1, 1}});
  } else {
    out.push_back({ViewKind::Narrow, {d, i, 1}});
  }
  out.push_back({ViewKind::SqueezeDim, {d}});
  return out;
}

/// The scatter forms' rewrite: value written back through steps (one
/// select_scatter or slice_scatter per step, nested), as the fix spells it.
Tensor scatter_back(const Tensor &base, const std::vector<ViewStep> &steps,
                    const Tensor &value, std::size_t k = 0) {
  const ViewStep &s = steps[k];
  Tensor src = k + 1 == steps.size()
                   ? value
                   : scatter_back(apply_view(base, s), steps, value, k + 1);
  const std::vector<std::int64_t> &a = s.ints;
  if (s.kind == ViewKind::Select)
    return base.select_scatter(src, a[0], a[1]);
  if (s.kind == ViewKind::Narrow) // slice_scatter(v, d, a, a + n)
    return base.slice_scatter(src, a[0], a[1], a[1] + a[2]);
  return base.slice_scatter(src, a[0], a[1], a[2], a[3]);
}

/// narrow(d, a, n) is written slice(d, a, a + n): the same region unless
/// a < 0 and a + n == 0, where slice_scatter throws (the note says so).
bool has_narrow_edge(const std::vector<ViewStep> &steps) {
  return std::any_of(steps.begin(), steps.end(), [](const ViewStep &s) {
    return s.kind == ViewKind::Narrow && s.ints[1] < 0 &&
           s.ints[1] + s.ints[2] == 0;
  });
}

Instance scatter_steps(Random &r, std::vector<StepKind> kinds) {
  Draw g(r);
  g.target(int(kinds.size()), 4);
  bool strict = r.chance(0.4);
  int form = int(r.uniform(0, 3)); // copy_, fill_, assignment, setitem
  if (form == 3 && (strict || kinds.back() == StepKind::Narrow))
    form = 0; // strict setitem is the positions rule; narrow is no index
  std::vector<ViewStep> steps;
  // The steps as the original writes them: their spellings, one per step.
  std::vector<std::vector<ViewStep>> spelled;
  Tensor probe = probe_target(g.inst);
  for (StepKind k : kinds) {
    std::int64_t n = probe.dim();
    std::int64_t d = r.uniform(-n, n - 1);
    std::int64_t size = probe.sizes()[std::size_t(wrap_dim(d, n))];
    ViewStep step;
    if (k == StepKind::Select)
      step = {ViewKind::Select, {d, size ? r.uniform(-size, size - 1) : 0}};
    else if (k == StepKind::Slice)
      step = draw_slice(r, d, size);
    else // a start that may be negative only without StrictFixes
      step = draw_narrow(r, d, size, !strict);
    if (k == StepKind::Select && size == 0)
      throw rt::Error("no element to select"); // drawn again
    steps.push_back(step);
    spelled.push_back(spelling(r, step, n, size));
    probe = apply_view(probe, step);
  }
  auto chain = [&](std::size_t count) {
    std::vector<ViewStep> out;
    for (std::size_t k = 0; k < count; ++k)
      out.insert(out.end(), spelled[k].begin(), spelled[k].end());
    return out;
  };
  std::vector<ViewStep> written_chain = chain(steps.size());
  std::vector<ViewStep> head_chain = chain(steps.size() - 1);
  Shape written = probe.sizes();
  bool fill = form == 1;
  Shape vs = fill ? Shape{}
             : r.chance(0.6)
                 ? written
                 : g.broadcastable(written, /*extra_leading_ones=*/form == 3);
  DType dtype = g.float_dtype();
  int v = g.value("v", vs, dtype);
  bool expand = strict || fill;
  bool cast = strict && (dtype != g.inst.target_dtype || r.chance(0.5));
  // narrow(d, a, n) is written slice(d, a, a + n): the same region unless
  // a < 0 and a + n == 0, where slice_scatter throws (the note says so).
  g.inst.may_throw = (!expand && vs != written) || has_narrow_edge(steps);
  // The basic list that selects the last step's region, for setitem.
  const ViewStep &last = steps.back();
  std::vector<Idx> list;
  if (form == 3) {
    std::int64_t d = last.ints[0];
    Idx elem;
    if (last.kind == ViewKind::Select) {
      elem.integer = last.ints[1];
    } else {
      elem.kind = IndexKind::Slice;
      elem.start = last.ints[1];
      elem.stop = last.ints[2];
      elem.step = last.ints[3];
    }
    Idx full;
    full.kind = IndexKind::Slice;
    if (d >= 0) {
      list.assign(std::size_t(d), full);
      list.push_back(elem);
    } else {
      Idx ellipsis;
      ellipsis.kind = IndexKind::Ellipsis;
      list = {ellipsis, elem};
      list.insert(list.end(), std::size_t(-d - 1), full);
    }
  }
  g.inst.original = [=](Tensor &t, const std::vector<Tensor> &in) {
    if (form == 3)
      apply_views(t, head_chain).index_put_(runtime_list(list, in), in[v]);
    else
      apply_views(t, written_chain).copy_(in[v]); // copy_, fill_, = alike
    return t;
  };
  // t = t.<k>_scatter(<inner>, args): the inner value of the first step is
  // the second step's scatter into t's first view, as the fix nests them.
  g.inst.rewrite = [=](Tensor &t, const std::vector<Tensor> &in) {
    Tensor value = in[v];
    if (cast)
      value = to_options(value, t);
    if (expand)
      value = value.expand(apply_views(t, steps).sizes());
    return scatter_back(t, steps, value);
  };
  std::string lhs = "t" + view_text(head_chain);
  const char *forms[] = {".copy_(v)", ".fill_(v)", " = v"};
  std::string code =
      form == 3 ? lhs + ".index_put_(" + list_text(list, g.inst) + ", v)"
                : "t" + view_text(written_chain) + forms[form];
  return g.finish(code + (strict ? " [StrictFixes]" : ""));
}

Instance slice_scatter(Random &r) {
  return scatter_steps(r,
                       {r.chance(0.35) ? StepKind::Narrow : StepKind::Slice});
}

Instance select_scatter(Random &r) {
  return scatter_steps(r, {StepKind::Select});
}

Instance scatter_nested(Random &r) {
  auto kind = [&r] {
    int k = int(r.uniform(0, 2));
    return k == 0   ? StepKind::Select
           : k == 1 ? StepKind::Slice
                    : StepKind::Narrow;
  };
  StepKind first = kind();
  return scatter_steps(r, {first, kind()});
}

// In-place add_, sub_, mul_, div_ or clamp_ (a tensor min) through one or two
// select/slice/narrow steps (each select possibly spelled as lib/rewrite folds
// it), rewritten as the scatter of the view's out-of-place result: t =
// t.slice_scatter( t.narrow(d, a, n).mul(v), d, a, a + n). The value broadcasts
// to the view, so the result has the view's shape and no draw may throw (but
// the narrow edge the scatter forms share).
Instance scatter_inplace_arith(Random &r) {
  Draw g(r);
  int count = r.chance(0.6) ? 1 : 2;
  g.target(count, 4);
  g.target_values(); // mul_, div_, clamp_ read them
  std::vector<ViewStep> steps;
  std::vector<ViewStep> chain; // as written
  Tensor probe = probe_target(g.inst);
  for (int k = 0; k < count; ++k) {
    std::int64_t n = probe.dim();
    std::int64_t d = r.uniform(-n, n - 1);
    std::int64_t size = probe.sizes()[std::size_t(wrap_dim(d, n))];
    int kind = int(r.uniform(0, 2));
    ViewStep step;
    if (kind == 0) {
      if (size == 0)
        throw rt::Error("no element to select"); // drawn again
      step = {ViewKind::Select, {d, r.uniform(-size, size - 1)}};
    } else if (kind == 1) {
      step = draw_slice(r, d, size);
    } else {
      step = draw_narrow(r, d, size, /*negative_start=*/true);
    }
    steps.push_back(step);
    std::vector<ViewStep> spelled = spelling(r, step, n, size);
    chain.insert(chain.end(), spelled.begin(), spelled.end());
    probe = apply_view(probe, step);
  }
  Shape written = probe.sizes();
  Shape vs = r.chance(0.6) ? written : g.broadcastable(written, false);
  int v = g.value("v", vs, g.float_dtype());
  int op = int(r.uniform(0, 4));
  static const char *const names[] = {"add", "sub", "mul", "div", "clamp"};
  // The in-place op the original calls and the out-of-place one the fix
  // scatters back, per name.
  using InPlace = Tensor &(Tensor::*)(const Tensor &);
  using OutOfPlace = Tensor (Tensor::*)(const Tensor &) const;
  static const InPlace in_place[] = {&Tensor::add_, &Tensor::sub_,
                                     &Tensor::mul_, &Tensor::div_,
                                     &Tensor::clamp_};
  static const OutOfPlace out_of_place[] = {
      &Tensor::add, &Tensor::sub, &Tensor::mul, &Tensor::div, &Tensor::clamp};
  g.inst.may_throw = has_narrow_edge(steps);
  g.inst.original = [=](Tensor &t, const std::vector<Tensor> &in) {
    Tensor view = apply_views(t, chain);
    (view.*in_place[op])(in[v]);
    return t;
  };
  g.inst.rewrite = [=](Tensor &t, const std::vector<Tensor> &in) {
    Tensor view = apply_views(t, steps);
    Tensor value = (view.*out_of_place[op])(in[v]);
    return scatter_back(t, steps, value);
  };
  return g.finish("t" + view_text(chain) + "." + names[op] + "_(v)");
}

Instance index_copy(Random &r) {
  Draw g(r);
  g.target(1, 4);
  std::int64_t n = g.tdim();
  std::int64_t d = r.uniform(-n, n - 1);
  std::int64_t size = g.ts()[std::size_t(wrap_dim(d, n))];
  std::int64_t len = r.chance(0.1) ? 0 : r.uniform(1, size);
  int idx = g.index("idx", {len}, size, /*unique=*/true, /*negative=*/false);
  Shape source = g.ts();
  source[std::size_t(wrap_dim(d, n))] = len;
  int v = g.value("v", source, g.inst.target_dtype);
  g.inst.original = [=](Tensor &t, const std::vector<Tensor> &in) {
    return t.index_copy_(d, in[idx], in[v]);
  };
  g.inst.rewrite = [=](Tensor &t, const std::vector<Tensor> &in) {
    return t.index_copy(d, in[idx], in[v]);
  };
  return g.finish("t.index_copy_(" + std::to_string(d) + ", idx, v)");
}

Instance masked_scatter(Random &r) {
  Draw g(r);
  g.target(1, 4);
  int m = g.mask("mask", g.broadcastable(g.ts(), false));
  std::int64_t count = numel(g.ts()); // enough for any mask
  Shape source = r.chance(0.5) ? g.ts() : Shape{count + r.uniform(0, 2)};
  int v = g.value("v", source, g.inst.target_dtype);
  g.inst.original = [=](Tensor &t, const std::vector<Tensor> &in) {
    return t.masked_scatter_(in[m], in[v]);
  };
  g.inst.rewrite = [=](Tensor &t, const std::vector<Tensor> &in) {
    return t.masked_scatter(in[m], in[v]);
  };
  return g.finish("t.masked_scatter_(mask, v)");
}

Instance scatter(Random &r) {
  Draw g(r);
  g.target(1, 3);
  std::int64_t n = g.tdim();
  std::int64_t d = r.uniform(-n, n - 1);
  std::int64_t wd = wrap_dim(d, n);
  Shape is = g.ts();
  for (std::size_t k = 0; k < is.size(); ++k)
    is[k] = r.uniform(1, is[k]);
  // Distinct positions along d in every fiber: each write lands once.
  Input idx{"idx", is, DType::Int64,
            std::vector<double>(std::size_t(numel(is))), false};
  std::int64_t inner = 1;
  for (std::size_t k = std::size_t(wd) + 1; k < is.size(); ++k)
    inner *= is[k];
  std::int64_t len = is[std::size_t(wd)],
               outer = numel(is) / std::max<std::int64_t>(len * inner, 1);
  std::int64_t size = g.ts()[std::size_t(wd)];
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      std::vector<double> p = r.positions(len, size, /*unique=*/true, 0);
      for (std::int64_t k = 0; k < len; ++k)
        idx.values[std::size_t((o * len + k) * inner + i)] = p[std::size_t(k)];
    }
  int ix = g.add(idx);
  int v = g.value("v", is, g.inst.target_dtype);
  g.inst.original = [=](Tensor &t, const std::vector<Tensor> &in) {
    return t.scatter_(d, in[ix], in[v]);
  };
  g.inst.rewrite = [=](Tensor &t, const std::vector<Tensor> &in) {
    return t.scatter(d, in[ix], in[v]);
  };
  return g.finish("t.scatter_(" + std::to_string(d) + ", idx, v)");
}

Instance masked_fill(Random &r) {
  Draw g(r);
  g.target(1, 4);
  int m = g.mask("mask", g.broadcastable(g.ts(), false));
  int v = g.value("v", {}, g.inst.target_dtype);
  g.inst.original = [=](Tensor &t, const std::vector<Tensor> &in) {
    return t.masked_fill_(in[m], in[v]);
  };
  g.inst.rewrite = [=](Tensor &t, const std::vector<Tensor> &in) {
    return t.masked_fill(in[m], in[v]);
  };
  return g.finish("t.masked_fill_(mask, v)");
}

Instance index_fill(Random &r) {
  Draw g(r);
  g.target(1, 4);
  std::int64_t n = g.tdim();
  std::int64_t d = r.uniform(-n, n - 1);
  std::int64_t size = g.ts()[std::size_t(wrap_dim(d, n))];
  // Non-negative: LibTorch's backward rejects negative indices.
  int idx = g.index("idx", {r.uniform(0, 4)}, size, false, false);
  int v = g.value("v", {}, g.inst.target_dtype);
  g.inst.original = [=](Tensor &t, const std::vector<Tensor> &in) {
    return t.index_fill_(d, in[idx], in[v]);
  };
  g.inst.rewrite = [=](Tensor &t, const std::vector<Tensor> &in) {
    return t.index_fill(d, in[idx], in[v]);
  };
  return g.finish("t.index_fill_(" + std::to_string(d) + ", idx, v)");
}

// torch-index-assign-to-copy: t.index({I}) = v -> t.index_put_({I}, v).
Instance index_assign(Random &r) {
  Draw g(r);
  g.target(1, 4);
  std::vector<Idx> list =
      draw_index_list(g, g.ts(), true, true, /*need_tensor=*/true);
  Shape result = probe_target(g.inst)
                     .index(runtime_list(list, probe_inputs(g.inst)))
                     .sizes();
  int form = int(r.uniform(0, 3)); // = v, .copy_(v), .fill_(s), .zero_()
  double scalar = form == 3 ? 0 : double(r.uniform(-8, 8)) / 4;
  int v = -1;
  if (form < 2)
    v = g.value("v", g.broadcastable(result, false),
                r.chance(0.8) ? g.inst.target_dtype : g.float_dtype(),
                r.chance(0.7));
  auto value = [=](const Tensor &t, const std::vector<Tensor> &in) {
    return v >= 0 ? in[v] : rt::full({}, scalar, {t.dtype(), t.device()});
  };
  g.inst.expect = Expectation::OriginalLosesWrite;
  g.inst.original = [=](Tensor &t, const std::vector<Tensor> &in) {
    Tensor copy = t.index(runtime_list(list, in));
    copy.copy_(value(t, in));
    return t;
  };
  // What the original meant: the value written at the indexed positions.
  g.inst.intended = [=](Tensor &t, const std::vector<Tensor> &in) {
    Tensor p = positions(t).index(runtime_list(list, in));
    return via_positions(t, p, to_options(value(t, in), t));
  };
  g.inst.rewrite = [=](Tensor &t, const std::vector<Tensor> &in) {
    if (v >= 0)
      return t.index_put_(runtime_list(list, in), to_options(in[v], t));
    // index_put_(indices, Scalar) makes the value with t's options.
    return t.index_put_(runtime_list(list, in), value(t, in));
  };
  std::string lhs = "t.index(" + list_text(list, g.inst) + ")";
  const std::string forms[] = {" = v", ".copy_(v)",
                               ".fill_(" + std::to_string(scalar) + ")",
                               ".zero_()"};
  return g.finish(lhs + forms[form]);
}

// torch-inplace-on-grad-leaf: w.<write> -> { torch::NoGradGuard no_grad;
// w.<write>; }, for a leaf w that requires grad.
Instance no_grad_guard(Random &r) {
  Draw g(r);
  g.target(1, 4);
  g.inst.expect = Expectation::OriginalThrowsLeafError;
  int form = int(r.uniform(0, 3));
  std::string code;
  if (form == 0) { // w.copy_(v)
    int v =
        g.value("v", g.broadcastable(g.ts(), false), g.float_dtype(), false);
    g.inst.original = [=](Tensor &t, const std::vector<Tensor> &in) {
      return t.copy_(in[v]);
    };
    code = "w.copy_(v)";
  } else if (form == 1) { // w.fill_(s)
    double s = double(r.uniform(-8, 8)) / 4;
    g.inst.original = [=](Tensor &t, const std::vector<Tensor> &) {
      return t.fill_(s);
    };
    code = "w.fill_(" + std::to_string(s) + ")";
  } else if (form == 2) { // w.slice(...).copy_(v): a view of the leaf
    std::int64_t n = g.tdim();
    std::int64_t d = r.uniform(-n, n - 1);
    ViewStep step = draw_slice(r, d, g.ts()[std::size_t(wrap_dim(d, n))]);
    Shape view = apply_view(probe_target(g.inst), step).sizes();
    int v = g.value("v", g.broadcastable(view, false), g.float_dtype(), false);
    g.inst.original = [=](Tensor &t, const std::vector<Tensor> &in) {
      apply_view(t, step).copy_(in[v]);
      return t;
    };
    code = "w" + view_text({step}) + ".copy_(v)";
  } else { // w.index_put_({...}, v)
    std::vector<Idx> list = draw_index_list(g, g.ts(), true, true, false);
    Shape result = probe_target(g.inst)
                       .index(runtime_list(list, probe_inputs(g.inst)))
                       .sizes();
    int v =
        g.value("v", g.broadcastable(result, true), g.inst.target_dtype, false);
    g.inst.original = [=](Tensor &t, const std::vector<Tensor> &in) {
      return t.index_put_(runtime_list(list, in), in[v]);
    };
    code = "w.index_put_(" + list_text(list, g.inst) + ", v)";
  }
  Program write = g.inst.original;
  g.inst.rewrite = [=](Tensor &t, const std::vector<Tensor> &in) {
    rt::NoGradGuard no_grad;
    write(t, in);
    return t;
  };
  Instance inst = g.finish(code);
  inst.text.replace(0, 1, "w"); // the leaf is w
  return inst;
}

std::vector<RuleVerifier> make_verifiers() {
  return {
      {"index-put-list",
       "at::index_put_ with a List of optional tensors: full slices "
       "(nullopt), int64 tensors (negative, broadcasting, adjacent or "
       "separated), boolean masks over 1-2 dims, accumulate on and off, "
       "values broadcast",
       index_put_list},
      {"index-put-advanced",
       "setitem with full slices and int64 tensors or masks only, values "
       "broadcast and with leading size-1 dims; without the strip (the "
       "default, which may throw on extra leading size-1 dims, never "
       "differ), with it (StrictFixes) unless the value has no more dims "
       "than the result",
       index_put_advanced},
      {"index-put-positions-setitem",
       "setitem on a chain of up to two views (slice with steps and negative "
       "bounds, narrow, select, transpose, unsqueeze) with integers, "
       "slices, None, Ellipsis, int64 tensors and masks; values broadcast, "
       "with leading size-1 dims, cast when only basic indices; without the "
       "strip where the value has no more dims than the result, without the "
       "cast where it has the target's dtype",
       positions_setitem},
      {"index-put-positions-copy",
       "copy_, fill_ (0-dim tensor) and assignment into a chain of up to "
       "three views (incl. subscripts) and a basic index(); values "
       "broadcast and cast, or of the target's dtype without the cast",
       positions_copy},
      {"slice-scatter",
       "slice(d, a, b, step) with negative and out-of-range bounds, "
       "narrow(d, a, n) with negative starts; copy_, fill_, assignment and "
       "setitem (full slices or an Ellipsis before the dim); values of the "
       "region's shape, or broadcast and with leading size-1 dims (the "
       "default fix may throw on those, never differ); StrictFixes: cast "
       "and broadcast",
       slice_scatter},
      {"select-scatter",
       "select(d, i) with negative d and i; copy_, fill_, assignment and "
       "setitem; values as for slice-scatter",
       select_scatter},
      {"scatter-nested",
       "two steps of select, slice and narrow, the second written as a view "
       "or by setitem on the first; values as for slice-scatter",
       scatter_nested},
      {"scatter-inplace-arith",
       "add_, sub_, mul_, div_ and clamp_ (a tensor min) through one or two "
       "select, slice and narrow steps (selects spelled as folded); values "
       "broadcast to the view, float32 and float64",
       scatter_inplace_arith},
      {"index-copy", "negative dims, empty and permuted indices", index_copy},
      {"masked-scatter", "masks broadcast to the target, larger sources",
       masked_scatter},
      {"scatter", "index shapes smaller than the target, distinct positions",
       scatter},
      {"masked-fill", "masks broadcast to the target, 0-dim value tensors",
       masked_fill},
      {"index-fill", "negative dims, repeated indices, 0-dim value tensors",
       index_fill},
      {"index-put-into-copy",
       "t.index({...}) = v, .copy_(v), .fill_(s), .zero_() with tensor or "
       "mask indices and basic ones; values broadcast and of other dtypes",
       index_assign},
      {"no-grad-guard",
       "copy_, fill_, index_put_ and a slice's copy_ into a leaf that "
       "requires grad",
       no_grad_guard},
  };
}

std::vector<RuleVerifier> &registry() {
  static std::vector<RuleVerifier> verifiers = make_verifiers();
  return verifiers;
}

} // namespace

const std::vector<RuleVerifier> &rule_verifiers() { return registry(); }

const RuleVerifier *find_rule_verifier(std::string_view rule_id) {
  for (const RuleVerifier &v : registry())
    if (v.rule_id == rule_id)
      return &v;
  return nullptr;
}

void add_rule_verifier(RuleVerifier verifier) {
  registry().push_back(std::move(verifier));
}

const std::vector<std::string> &rewrite_rule_ids() {
  static const std::vector<std::string> ids = [] {
    std::vector<std::string> out;
    for (const rules::RuleRow &row : rules::rule_rows())
      if (row.style != "Schema" && row.style != "LibTorch")
        out.emplace_back(row.id);
    return out;
  }();
  return ids;
}

bool is_schema_rule(std::string_view rule_id) {
  const rules::RuleRow *row = rules::find_rule_row(rule_id);
  return row && row->style == "Schema";
}

bool is_libtorch_rule(std::string_view rule_id) {
  const rules::RuleRow *row = rules::find_rule_row(rule_id);
  return row && row->style == "LibTorch";
}

} // namespace torch_tidy::verify

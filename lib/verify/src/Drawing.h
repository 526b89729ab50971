// The drawing helpers of the rule verifiers: instances drawn in the shared
// vocabulary of random programs (torch_tidy/programs/Vocabulary.h: index
// lists, view chains, Random), only valid ones (Draw, draw_index_list,
// draw_chain), and the runtime twins of what the rewrites call (positions,
// strip_leading_ones, .to(options)). The per-rule recipes in
// RuleVerifiers.cpp compose them.
#ifndef TORCH_TIDY_VERIFY_DRAWING_H
#define TORCH_TIDY_VERIFY_DRAWING_H

#include "torch_tidy/programs/Vocabulary.h"
#include "torch_tidy/verify/RuleVerifier.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace torch_tidy::verify::drawing {

using programs::has_tensor;
using programs::IndexKind;
using programs::numel;
using programs::ViewKind;
using programs::ViewStep;
using programs::wrap_dim;
using rt::DType;
using rt::Shape;
using rt::Tensor;
using rt::TensorIndex;

// ---------------------------------------------------------------------------
// Drawing inputs

/// Builds one instance: its inputs and its text.
class Draw {
public:
  explicit Draw(Random &r) : r(r) {}

  Random &r;
  Instance inst;
  std::vector<std::string> notes; // "i0 = int64[2]{0,-1}", ...

  Shape shape(int min_dims, int max_dims, int max_size = 4) {
    return r.shape(min_dims, max_dims, max_size);
  }
  DType float_dtype() {
    return r.chance(0.5) ? DType::Float32 : DType::Float64;
  }

  /// The target: zeros of a random shape, created without gradient tracking.
  void target(int min_dims, int max_dims) {
    inst.target_shape = shape(min_dims, max_dims);
    inst.target_dtype = float_dtype();
  }
  /// The target's values: small dyadic numbers instead of zeros.
  void target_values() {
    inst.target_values = dyadic(numel(inst.target_shape));
  }
  const Shape &ts() const { return inst.target_shape; }
  std::int64_t tdim() const { return std::int64_t(inst.target_shape.size()); }

  int add(Input input) {
    std::ostringstream note;
    note << input.name << " = " << rt::name(input.dtype)
         << shape_text(input.shape);
    if (input.values.size() <= 8 && input.dtype != DType::Float32 &&
        input.dtype != DType::Float64) {
      note << '{';
      for (std::size_t i = 0; i < input.values.size(); ++i)
        note << (i ? "," : "") << input.values[i];
      note << '}';
    }
    if (input.requires_grad)
      note << " requires_grad";
    notes.push_back(note.str());
    inst.inputs.push_back(std::move(input));
    return int(inst.inputs.size()) - 1;
  }

  /// A value that requires grad: small dyadic numbers, exact in float32.
  int value(const std::string &name, const Shape &s, DType dtype,
            bool requires_grad = true) {
    return add({name, s, dtype, dyadic(numel(s)), requires_grad});
  }

  /// Nonzero small dyadic numbers, exact in float32.
  std::vector<double> dyadic(std::int64_t count) {
    std::vector<double> values;
    for (std::int64_t i = 0; i < count; ++i)
      values.push_back(double(r.uniform(1, 16)) / 4 * (r.chance(0.5) ? 1 : -1));
    return values;
  }

  /// An int64 index into a dim of `size`: distinct positions when unique,
  /// negative spellings when allowed.
  int index(const std::string &name, const Shape &s, std::int64_t size,
            bool unique, bool negative) {
    return add({name, s, DType::Int64,
                r.positions(numel(s), size, unique, negative ? 0.3 : 0),
                false});
  }

  int mask(const std::string &name, const Shape &s) {
    return add({name, s, DType::Bool, r.mask(numel(s)), false});
  }

  /// A shape that broadcasts to `to` (same or fewer dims, some of size 1),
  /// optionally with extra leading size-1 dims (setitem strips them).
  Shape broadcastable(const Shape &to, bool extra_leading_ones) {
    Shape s = to;
    while (!s.empty() && r.chance(0.25))
      s.erase(s.begin());
    for (auto &d : s)
      if (r.chance(0.25))
        d = 1;
    if (extra_leading_ones && r.chance(0.3))
      s.insert(s.begin(), std::size_t(r.uniform(1, 2)), 1);
    return s;
  }

  std::string text(const std::string &code) const {
    std::ostringstream out;
    out << "t = torch::" << (inst.target_values.empty() ? "zeros" : "values")
        << "(" << shape_text(inst.target_shape) << ", "
        << rt::name(inst.target_dtype) << "); " << code;
    for (const std::string &n : notes)
      out << "; " << n;
    return out.str();
  }

  Instance finish(const std::string &code) {
    inst.text = text(code);
    return std::move(inst);
  }
};

// Probes run on CPU without grad: the runtime as the oracle of shapes.
Tensor probe_target(const Instance &inst);
std::vector<Tensor> probe_inputs(const Instance &inst);

// ---------------------------------------------------------------------------
// Index lists and view chains: the shared vocabulary, whose tensor entries
// are instance inputs (their slot in Instance::inputs)

using Idx = programs::Index<int>;

/// The list on the runtime, its tensors taken from `in`.
std::vector<TensorIndex> runtime_list(const std::vector<Idx> &list,
                                      const std::vector<Tensor> &in);

/// The c10::List<std::optional<Tensor>> form: full slices become nullopt.
std::vector<std::optional<Tensor>> optional_list(const std::vector<Idx> &list,
                                                 const std::vector<Tensor> &in);

/// The list in LibTorch C++, its tensors by their input names.
std::string list_text(const std::vector<Idx> &list, const Instance &inst,
                      bool nullopt_for_slices = false);

using programs::apply_view;
using programs::apply_views;
using programs::view_text;

/// A slice of a dim of `size`: bounds may be negative or past the end
/// (slice clamps them), steps 1 to 3.
ViewStep draw_slice(Random &r, std::int64_t dim, std::int64_t size);
ViewStep draw_narrow(Random &r, std::int64_t dim, std::int64_t size,
                     bool negative_start);

/// A view step valid for `s`, or nothing (then the chain ends).
std::optional<ViewStep> draw_view(Random &r, const Shape &s,
                                  bool allow_subscript);

std::vector<ViewStep> draw_chain(Random &r, const Shape &target, int max_steps,
                                 bool allow_subscript);

/// One draw of draw_index_list, which may hold no tensor.
std::vector<Idx> draw_index_list_once(Draw &g, const Shape &s, bool basic,
                                      bool advanced, bool unique);

/// An index list for a tensor of shape `s`. Basic: integers, slices with
/// steps and negative bounds, None and one Ellipsis. Advanced: int64
/// tensors (adjacent or separated, broadcasting; with `unique` the first is
/// duplicate free, so no position is written twice) and boolean masks.
std::vector<Idx> draw_index_list(Draw &g, const Shape &s, bool basic,
                                 bool advanced, bool need_tensor,
                                 bool unique = true);

Tensor strip_leading_ones(const Tensor &v);

/// t.to(u.options()): dtype and device.
Tensor to_options(const Tensor &v, const Tensor &like);

/// torch::arange(t.numel(), t.options().dtype(torch::kLong)).view(t.sizes()),
/// or the same with at::
Tensor positions(const Tensor &t);

/// t = t.flatten().index_put({P}, value).view(t.sizes())
Tensor via_positions(const Tensor &t, const Tensor &p, const Tensor &value);

} // namespace torch_tidy::verify::drawing

#endif

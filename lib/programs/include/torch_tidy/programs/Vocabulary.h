// The vocabulary of random programs, one for the rule verifiers
// (lib/verify) and the differential suite (test/runtime/differential):
//
//   - Array: host data of one tensor (values as doubles whatever the dtype);
//   - Index: one entry of an index list (x[...], a TensorIndex), whose
//     tensor is an operand of the user's choosing (an input slot, an Array);
//   - ViewStep: one step of a view chain;
//   - Random: the seeded draws both build programs from (shapes, index
//     positions, masks).
//
// A program means the same on every tensor library that spells PyTorch's
// methods: apply_view and index_list are templates instantiated for the
// runtime's tensors and for LibTorch's, and index_text / view_text spell
// them as LibTorch C++ for reports. What programs each suite draws (the
// verifiers only valid ones, the differential suite errors too) stays with
// the suite; the words they are drawn in live here.
#ifndef TORCH_TIDY_PROGRAMS_VOCABULARY_H
#define TORCH_TIDY_PROGRAMS_VOCABULARY_H

#include "torch_tidy/runtime/runtime.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace torch_tidy::programs {

using runtime::DType;
using runtime::Shape;

inline std::int64_t numel(const Shape &s) {
  return std::accumulate(s.begin(), s.end(), std::int64_t(1),
                         std::multiplies<>());
}

/// A dim in [-ndim, ndim) as a position in [0, ndim).
inline std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim) {
  return dim < 0 ? dim + ndim : dim;
}

// ---------------------------------------------------------------------------
// Host arrays

struct Array {
  Shape shape;
  DType dtype = DType::Float32;
  std::vector<double> values;
  bool requires_grad = false;
};

/// The array as a runtime tensor on `device`, a leaf that requires grad
/// when the array says so.
inline runtime::Tensor
to_runtime(const Array &a, runtime::Device device = runtime::Device::CPU) {
  return runtime::from_doubles(a.values, a.shape,
                               {a.dtype, device, a.requires_grad});
}

// ---------------------------------------------------------------------------
// Index lists

enum class IndexKind { Integer, Slice, None, Ellipsis, Tensor };

/// One entry of an index list; `tensor` (an Operand) only for Tensor.
template <class Operand> struct Index {
  IndexKind kind = IndexKind::Integer;
  std::int64_t integer = 0;
  std::optional<std::int64_t> start, stop; // Slice; none is the full range
  std::int64_t step = 1;
  Operand tensor{};
};

template <class Operand>
bool has_tensor(const std::vector<Index<Operand>> &list) {
  return std::any_of(list.begin(), list.end(), [](const Index<Operand> &i) {
    return i.kind == IndexKind::Tensor;
  });
}

/// How the runtime spells the non-tensor entries of a TensorIndex list.
/// LibTorch's spelling (torch::indexing) lives with the one translation
/// unit that includes LibTorch.
struct RuntimeIndexing {
  using TensorIndex = runtime::TensorIndex;
  static TensorIndex slice(std::optional<std::int64_t> start,
                           std::optional<std::int64_t> stop,
                           std::int64_t step) {
    return runtime::Slice{start, stop, step};
  }
  static TensorIndex none() { return runtime::NewAxis{}; }
  static TensorIndex ellipsis() { return runtime::Ellipsis{}; }
};

/// The list as a Spelling::TensorIndex vector; tensor_of(operand) gives the
/// tensor of a Tensor entry.
template <class Spelling, class Operand, class TensorOf>
std::vector<typename Spelling::TensorIndex>
index_list(const std::vector<Index<Operand>> &list, TensorOf tensor_of) {
  std::vector<typename Spelling::TensorIndex> out;
  for (const Index<Operand> &i : list) {
    switch (i.kind) {
    case IndexKind::Integer:
      out.emplace_back(i.integer);
      break;
    case IndexKind::Slice:
      out.push_back(Spelling::slice(i.start, i.stop, i.step));
      break;
    case IndexKind::None:
      out.push_back(Spelling::none());
      break;
    case IndexKind::Ellipsis:
      out.push_back(Spelling::ellipsis());
      break;
    case IndexKind::Tensor:
      out.emplace_back(tensor_of(i.tensor));
      break;
    }
  }
  return out;
}

/// The index_put_ form over optional tensors (c10::List or std::vector of
/// std::optional<Tensor>): every entry but a tensor becomes nullopt, so the
/// lists given to it hold tensors and full slices only.
template <class OptionalList, class Operand, class TensorOf>
OptionalList optional_list(const std::vector<Index<Operand>> &list,
                           TensorOf tensor_of) {
  OptionalList out;
  for (const Index<Operand> &i : list) {
    if (i.kind == IndexKind::Tensor)
      out.push_back(tensor_of(i.tensor));
    else
      out.push_back(std::nullopt);
  }
  return out;
}

/// The list in LibTorch C++ ({0, Slice(None, 2, 1), i0}); name_of(operand)
/// spells a tensor entry. With nullopt_for_slices, the optional-list form.
template <class Operand, class NameOf>
std::string index_text(const std::vector<Index<Operand>> &list, NameOf name_of,
                       bool nullopt_for_slices = false) {
  std::ostringstream out;
  out << '{';
  for (std::size_t k = 0; k < list.size(); ++k) {
    const Index<Operand> &i = list[k];
    out << (k ? ", " : "");
    switch (i.kind) {
    case IndexKind::Integer:
      out << i.integer;
      break;
    case IndexKind::Slice:
      if (nullopt_for_slices) {
        out << "std::nullopt";
        break;
      }
      out << "Slice(" << (i.start ? std::to_string(*i.start) : "None") << ", "
          << (i.stop ? std::to_string(*i.stop) : "None") << ", " << i.step
          << ')';
      break;
    case IndexKind::None:
      out << "None";
      break;
    case IndexKind::Ellipsis:
      out << "\"...\"";
      break;
    case IndexKind::Tensor:
      out << name_of(i.tensor);
      break;
    }
  }
  out << '}';
  return out.str();
}

// ---------------------------------------------------------------------------
// View chains

/// The view ops of a chain; ints holds their integer arguments in
/// PyTorch's order, shape the size list of View and Expand. Subscript is
/// x[i], select(0, i) (the rule verifiers draw it on tensors of two or
/// more dims, where x[i] is a view). The differential suite draws Slice to
/// Expand by number, so a new kind goes after Expand.
enum class ViewKind {
  Slice,
  Narrow,
  Select,
  Transpose,
  Unsqueeze,
  Squeeze,
  SqueezeDim,
  View,
  Expand,
  Subscript
};

struct ViewStep {
  ViewKind kind = ViewKind::Slice;
  std::vector<std::int64_t> ints;
  Shape shape;
};

/// One step on any tensor type with PyTorch's method names.
template <class T> T apply_view(const T &t, const ViewStep &s) {
  const auto &i = s.ints;
  switch (s.kind) {
  case ViewKind::Slice:
    return t.slice(i.at(0), i.at(1), i.at(2), i.at(3));
  case ViewKind::Narrow:
    return t.narrow(i.at(0), i.at(1), i.at(2));
  case ViewKind::Select:
    return t.select(i.at(0), i.at(1));
  case ViewKind::Transpose:
    return t.transpose(i.at(0), i.at(1));
  case ViewKind::Unsqueeze:
    return t.unsqueeze(i.at(0));
  case ViewKind::Squeeze:
    return t.squeeze();
  case ViewKind::SqueezeDim:
    return t.squeeze(i.at(0));
  case ViewKind::View:
    return t.view(s.shape);
  case ViewKind::Expand:
    return t.expand(s.shape);
  case ViewKind::Subscript:
    return t.select(0, i.at(0));
  }
  return t;
}

template <class T> T apply_views(T t, const std::vector<ViewStep> &chain) {
  for (const ViewStep &s : chain)
    t = apply_view(t, s);
  return t;
}

/// Integers between brackets: "[2,3]" by default (shapes in reports), or
/// "{2, 3}" (LibTorch's spelling of a size list), or bare "2, 3".
inline std::string int_list_text(const std::vector<std::int64_t> &v,
                                 const char *open = "[",
                                 const char *separator = ",",
                                 const char *close = "]") {
  std::ostringstream out;
  out << open;
  for (std::size_t k = 0; k < v.size(); ++k)
    out << (k ? separator : "") << v[k];
  out << close;
  return out.str();
}

inline std::string shape_text(const Shape &s) { return int_list_text(s); }

/// The chain in LibTorch C++: ".slice(0, 1, 3, 1).transpose(0, 1)[2]".
inline std::string view_text(const std::vector<ViewStep> &chain) {
  static const char *const method[] = {
      "slice",   "narrow",  "select", "transpose", "unsqueeze",
      "squeeze", "squeeze", "view",   "expand",    ""};
  static_assert(std::size(method) == std::size_t(ViewKind::Subscript) + 1,
                "one method name per ViewKind, in its order");
  std::ostringstream out;
  for (const ViewStep &s : chain) {
    std::string args = int_list_text(s.ints, "", ", ", "");
    if (s.kind == ViewKind::Subscript)
      out << '[' << args << ']';
    else if (s.kind == ViewKind::View || s.kind == ViewKind::Expand)
      out << '.' << method[int(s.kind)] << '('
          << int_list_text(s.shape, "{", ", ", "}") << ')';
    else
      out << '.' << method[int(s.kind)] << '(' << args << ')';
  }
  return out.str();
}

// ---------------------------------------------------------------------------
// Random draws

/// A seeded source of the draws programs are built from. Every draw of a
/// given seed is the same on every machine that has the same standard
/// library (mt19937_64 is exact; the distributions are libstdc++'s).
class Random {
public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  std::int64_t uniform(std::int64_t lo, std::int64_t hi) { // inclusive
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(engine_);
  }
  bool chance(double p) {
    return std::uniform_real_distribution<double>(0, 1)(engine_) < p;
  }
  double real01() {
    return std::uniform_real_distribution<double>(0, 1)(engine_);
  }
  std::mt19937_64 &engine() { return engine_; }

  /// min_dims to max_dims dims of size 1 to max_size; each dim is 0 with
  /// probability zero_size (never drawn when 0).
  Shape shape(int min_dims, int max_dims, std::int64_t max_size = 4,
              double zero_size = 0) {
    Shape s(std::size_t(uniform(min_dims, max_dims)));
    for (auto &d : s)
      d = zero_size > 0 && chance(zero_size) ? 0 : uniform(1, max_size);
    return s;
  }

  /// `count` int64 positions into a dim of `size`: the first `size` are
  /// distinct when `unique` (past those, repeats: callers that need all
  /// distinct keep count <= size); a position is spelled negatively with
  /// probability `negative`, and is out of range (size or -size-1, which
  /// must be rejected) with probability `out_of_range` or when size is 0.
  std::vector<double> positions(std::int64_t count, std::int64_t size,
                                bool unique, double negative,
                                double out_of_range = 0) {
    std::vector<std::int64_t> pool(
        std::size_t(std::max<std::int64_t>(size, 0)));
    std::iota(pool.begin(), pool.end(), 0);
    std::shuffle(pool.begin(), pool.end(), engine_);
    std::vector<double> out;
    for (std::int64_t i = 0; i < count; ++i) {
      std::int64_t v;
      if ((out_of_range > 0 && chance(out_of_range)) || size == 0)
        v = chance(0.5) ? size : -size - 1;
      else if (unique && std::size_t(i) < pool.size())
        v = pool[std::size_t(i)];
      else
        v = uniform(0, size - 1);
      if (negative > 0 && v >= 0 && v < size && chance(negative))
        v -= size;
      out.push_back(double(v));
    }
    return out;
  }

  /// `count` booleans (as 0 and 1), each true with probability one half.
  std::vector<double> mask(std::int64_t count) {
    std::vector<double> out;
    for (std::int64_t i = 0; i < count; ++i)
      out.push_back(chance(0.5) ? 1 : 0);
    return out;
  }

private:
  std::mt19937_64 engine_;
};

} // namespace torch_tidy::programs

#endif // TORCH_TIDY_PROGRAMS_VOCABULARY_H

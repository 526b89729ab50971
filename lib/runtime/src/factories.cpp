// Factories: contiguous tensors filled on the host or by the backend.
#include "internal.h"

#include "torch_tidy/runtime/dtype_dispatch.h"

#include <cmath>
#include <random>

namespace torch_tidy::runtime {

using detail::backend_of;

Tensor empty(const Shape &shape, Options options) {
  Tensor out = detail::empty_strided(shape, detail::contiguous_strides(shape),
                                     options.dtype, options.device);
  // Any byte is a valid float or integer, but a bool must be 0 or 1.
  if (options.dtype == DType::Bool)
    backend_of(out).fill(out.ref(), 0);
  if (options.requires_grad)
    out.set_requires_grad(true);
  return out;
}

Tensor full(const Shape &shape, double value, Options options) {
  Tensor out = empty(shape, {options.dtype, options.device});
  backend_of(out).fill(out.ref(), value);
  if (options.requires_grad)
    out.set_requires_grad(true);
  return out;
}

Tensor zeros(const Shape &shape, Options options) {
  return full(shape, 0, options);
}
Tensor ones(const Shape &shape, Options options) {
  return full(shape, 1, options);
}
Tensor zeros_like(const Tensor &like) {
  return zeros(like.sizes(), {like.dtype(), like.device()});
}

Tensor from_doubles(const std::vector<double> &values, const Shape &shape,
                    Options options) {
  Tensor out = empty(shape, {options.dtype, options.device});
  TT_CHECK(std::int64_t(values.size()) == out.numel(),
           "from_doubles: ", values.size(), " values for shape ",
           detail::to_string(shape));
  dispatch_dtype(options.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<T> host(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
      host[i] = convert<T>(values[i]);
    // std::vector<bool> is packed; go through a plain buffer for bool.
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<unsigned char> bytes(host.begin(), host.end());
      backend_of(out).upload(out.impl().storage->data(), bytes.data(),
                             bytes.size());
    } else {
      backend_of(out).upload(out.impl().storage->data(), host.data(),
                             host.size() * sizeof(T));
    }
  });
  if (options.requires_grad)
    out.set_requires_grad(true);
  return out;
}

Tensor arange(std::int64_t end, Options options) {
  return arange(0, end, 1, options);
}

Tensor arange(std::int64_t start, std::int64_t end, std::int64_t step,
              Options options) {
  TT_CHECK(step != 0, "step must be nonzero");
  TT_CHECK((step > 0 && start <= end) || (step < 0 && start >= end),
           "upper bound and larger bound inconsistent with step sign");
  std::int64_t n = step > 0 ? (end - start + step - 1) / step
                            : (start - end - step - 1) / -step;
  std::vector<double> values(n);
  for (std::int64_t i = 0; i < n; ++i)
    values[i] = double(start + i * step);
  return from_doubles(values, {n}, options);
}

Tensor triu_indices(std::int64_t rows, std::int64_t cols, std::int64_t offset,
                    Device device) {
  TT_CHECK(rows >= 0 && cols >= 0, "row and col must be non-negative");
  std::vector<double> row_index, col_index;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = std::max<std::int64_t>(0, r + offset); c < cols;
         ++c) {
      row_index.push_back(double(r));
      col_index.push_back(double(c));
    }
  std::int64_t n = std::int64_t(row_index.size());
  row_index.insert(row_index.end(), col_index.begin(), col_index.end());
  return from_doubles(row_index, {2, n}, {DType::Int64, device});
}

static std::int64_t n_elements(const Shape &shape) {
  std::int64_t n = 1;
  for (std::int64_t s : shape)
    n *= s;
  return n;
}

Tensor randn(const Shape &shape, std::uint64_t seed, Options options) {
  TT_CHECK(is_floating(options.dtype) || n_elements(shape) == 0,
           "randn: only floating dtypes are supported");
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  std::vector<double> values(std::size_t(n_elements(shape)));
  for (double &v : values)
    v = normal(engine);
  return from_doubles(values, shape, options);
}

} // namespace torch_tidy::runtime

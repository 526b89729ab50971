// The runtime side of the differential suite.
#include "program.h"

#include "torch_tidy/runtime/runtime.h"

namespace torch_tidy::differential {
namespace {

namespace rt = torch_tidy::runtime;

struct RuntimeApi {
  using Tensor = rt::Tensor;
  static inline rt::Device device = rt::Device::CPU;

  static Tensor make(const Array &a) { return programs::to_runtime(a, device); }
  static Array read(const Tensor &t) {
    return {t.sizes(), t.dtype(), t.to_doubles(), false};
  }
  static Shape strides(const Tensor &t) { return t.strides(); }
  static std::int64_t offset(const Tensor &t) { return t.storage_offset(); }
  static bool defined(const Tensor &t) { return t.defined(); }
  static Array zeros_array(const Tensor &like) {
    return {like.sizes(), like.dtype(),
            std::vector<double>(std::size_t(like.numel()), 0.0), false};
  }

  static std::vector<rt::TensorIndex>
  indices(const std::vector<IndexSpec> &specs) {
    return programs::index_list<programs::RuntimeIndexing>(specs, make);
  }
  static std::vector<std::optional<Tensor>>
  optional_indices(const std::vector<IndexSpec> &specs) {
    return programs::optional_list<std::vector<std::optional<Tensor>>>(specs,
                                                                       make);
  }

  static void index_put_(Tensor &t, const Case &c, const Tensor &values) {
    if (c.raw_list)
      t.index_put_list_(optional_indices(c.indices), values, c.flag);
    else
      t.index_put_(indices(c.indices), values, c.flag);
  }
  static Tensor index_put(const Tensor &t, const Case &c,
                          const Tensor &values) {
    if (c.raw_list)
      return t.index_put_list(optional_indices(c.indices), values, c.flag);
    return t.index_put(indices(c.indices), values, c.flag);
  }
  static Tensor sum_dims(const Tensor &t, const Shape &dims, bool keepdim) {
    return t.sum(dims, keepdim);
  }
  static std::vector<Tensor> grad(const Tensor &loss,
                                  const std::vector<Tensor> &inputs) {
    return rt::grad(loss, inputs, /*allow_unused=*/true);
  }

  static Tensor factory(const Case &c) {
    rt::Options options{c.dtype, device};
    const auto &k = c.ints;
    switch (FactoryKind(k[0])) {
    case FactoryKind::Zeros:
      return rt::zeros(c.shape, options);
    case FactoryKind::Ones:
      return rt::ones(c.shape, options);
    case FactoryKind::Full:
      return rt::full(c.shape, c.scalar, options);
    case FactoryKind::Arange:
      return rt::arange(k[1], k[2], k[3], options);
    case FactoryKind::TriuIndices:
      return rt::triu_indices(k[1], k[2], k[3], device);
    case FactoryKind::Empty:
      return rt::empty(c.shape, options);
    case FactoryKind::Randn:
      break;
    }
    return rt::randn(c.shape, 1234, options);
  }

  template <class Kernel>
  static void call_operator(Tensor &argument, Kernel &kernel) {
    rt::call_operator([&] { kernel(argument); });
  }
};

} // namespace

Outcome run_on_runtime(const Case &c, const std::string &device) {
  RuntimeApi::device =
      device == "cuda" ? runtime::Device::CUDA : runtime::Device::CPU;
  return run_case<RuntimeApi>(c);
}

} // namespace torch_tidy::differential

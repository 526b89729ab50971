// The LibTorch side of the differential suite: the only translation unit
// that includes <torch/torch.h> (it takes most of the suite's build time).
#include "program.h"

#include <torch/library.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <functional>

namespace torch_tidy::differential {
namespace {

torch::ScalarType scalar_type(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return torch::kBool;
  case DType::Int64:
    return torch::kLong;
  case DType::Float32:
    return torch::kFloat;
  case DType::Float64:
    break;
  }
  return torch::kDouble;
}

DType dtype_of(torch::ScalarType t) {
  switch (t) {
  case torch::kBool:
    return DType::Bool;
  case torch::kLong:
    return DType::Int64;
  case torch::kFloat:
    return DType::Float32;
  case torch::kDouble:
    return DType::Float64;
  default:
    throw std::logic_error("differential: unexpected LibTorch dtype");
  }
}

// LibTorch's deprecation warnings (writes into expanded tensors) would bury
// the suite's report; the cases mean to do that.
class SilentWarnings : public c10::WarningHandler {
public:
  void process(const c10::Warning &) override {}
};

// How LibTorch spells the non-tensor entries of an index list.
struct LibTorchIndexing {
  using TensorIndex = torch::indexing::TensorIndex;
  static TensorIndex slice(std::optional<std::int64_t> start,
                           std::optional<std::int64_t> stop,
                           std::int64_t step) {
    return torch::indexing::Slice(start, stop, step);
  }
  static TensorIndex none() { return torch::indexing::None; }
  static TensorIndex ellipsis() { return torch::indexing::Ellipsis; }
};

struct LibTorchApi {
  using Tensor = torch::Tensor;
  static inline torch::Device device = torch::kCPU;

  static Tensor make(const Array &a) {
    Tensor host = torch::tensor(a.values, torch::kDouble);
    Tensor t = host.reshape(a.shape)
                   .to(scalar_type(a.dtype))
                   .to(device)
                   .detach()
                   .clone();
    if (a.requires_grad)
      t.set_requires_grad(true);
    return t;
  }
  static Array read(const Tensor &t) {
    Tensor host = t.detach().to(torch::kCPU).to(torch::kDouble).contiguous();
    const double *data = host.data_ptr<double>();
    return {t.sizes().vec(), dtype_of(t.scalar_type()),
            std::vector<double>(data, data + host.numel()), false};
  }
  static Shape strides(const Tensor &t) { return t.strides().vec(); }
  static std::int64_t offset(const Tensor &t) { return t.storage_offset(); }
  static bool defined(const Tensor &t) { return t.defined(); }
  static Array zeros_array(const Tensor &like) {
    return {like.sizes().vec(), dtype_of(like.scalar_type()),
            std::vector<double>(std::size_t(like.numel()), 0.0), false};
  }

  static std::vector<torch::indexing::TensorIndex>
  indices(const std::vector<IndexSpec> &specs) {
    return programs::index_list<LibTorchIndexing>(specs, make);
  }

  // The accumulate form exists only as at::index_put_ over optional tensors
  // (a full slice is nullopt); generators give it nothing else.
  static c10::List<std::optional<Tensor>>
  optional_indices(const std::vector<IndexSpec> &specs) {
    return programs::optional_list<c10::List<std::optional<Tensor>>>(specs,
                                                                     make);
  }

  static void index_put_(Tensor &t, const Case &c, const Tensor &values) {
    if (c.flag || c.raw_list)
      t.index_put_(optional_indices(c.indices), values, c.flag);
    else
      t.index_put_(indices(c.indices), values);
  }
  static Tensor index_put(const Tensor &t, const Case &c,
                          const Tensor &values) {
    if (c.flag || c.raw_list)
      return t.index_put(optional_indices(c.indices), values, c.flag);
    return t.clone().index_put_(indices(c.indices), values);
  }
  static Tensor sum_dims(const Tensor &t, const Shape &dims, bool keepdim) {
    return t.sum(torch::IntArrayRef(dims), keepdim);
  }
  static std::vector<Tensor> grad(const Tensor &loss,
                                  const std::vector<Tensor> &inputs) {
    return torch::autograd::grad({loss}, inputs, {}, false, false,
                                 /*allow_unused=*/true);
  }

  static Tensor factory(const Case &c) {
    auto options =
        torch::TensorOptions().dtype(scalar_type(c.dtype)).device(device);
    const auto &k = c.ints;
    switch (FactoryKind(k[0])) {
    case FactoryKind::Zeros:
      return torch::zeros(c.shape, options);
    case FactoryKind::Ones:
      return torch::ones(c.shape, options);
    case FactoryKind::Full:
      return torch::full(c.shape, c.scalar, options);
    case FactoryKind::Arange:
      return torch::arange(k[1], k[2], k[3], options);
    case FactoryKind::TriuIndices:
      return torch::triu_indices(k[1], k[2], k[3], options.dtype(torch::kLong));
    case FactoryKind::Empty:
      return torch::empty(c.shape, options);
    case FactoryKind::Randn:
      break;
    }
    return torch::randn(c.shape, options);
  }

  // A real operator with a mutable argument, called through the
  // dispatcher; its CompositeImplicitAutograd kernel runs the case's write.
  template <class Kernel>
  static void call_operator(Tensor &argument, Kernel &kernel) {
    static const auto op = c10::Dispatcher::singleton()
                               .findSchemaOrThrow("tt_differential::write_", "")
                               .typed<void(at::Tensor &)>();
    CurrentWrite = [&](at::Tensor &self) { kernel(self); };
    op.call(argument);
    CurrentWrite = nullptr;
  }
  static inline thread_local std::function<void(at::Tensor &)> CurrentWrite;
};

void write_kernel(at::Tensor &self) { LibTorchApi::CurrentWrite(self); }

} // namespace

TORCH_LIBRARY(tt_differential, m) {
  m.def("write_(Tensor(a!) self) -> ()", &write_kernel);
}

Outcome run_on_libtorch(const Case &c, const std::string &device) {
  static SilentWarnings silent;
  c10::WarningUtils::set_warning_handler(&silent);
  LibTorchApi::device = device == "cuda" ? torch::Device(torch::kCUDA)
                                         : torch::Device(torch::kCPU);
  return run_case<LibTorchApi>(c);
}

std::pair<int, int> libtorch_version() {
  return {TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR};
}

std::string device_error(const std::string &device) {
  if (device != "cuda")
    return "";
  try {
    torch::Tensor t = torch::ones({2}, torch::Device(torch::kCUDA));
    (void)t.add(t).sum().item<float>(); // synchronizes: a sticky error shows
  } catch (const std::exception &e) {
    std::string what = e.what();
    return what.substr(0, what.find('\n'));
  }
  return "";
}

} // namespace torch_tidy::differential

// Mock of ATen and c10 (what <ATen/ATen.h> declares): tensors, options,
// factories in at::, indexing, guards. No torch:: frontend.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace c10 {
template <typename T> class ArrayRef {
public:
  ArrayRef() = default;
  ArrayRef(std::initializer_list<T> l) : b(l.begin()), n(l.size()) {}
  ArrayRef(const std::vector<T> &v) : b(v.data()), n(v.size()) {}
  ArrayRef(const T &one) : b(&one), n(1) {}
  const T &operator[](size_t i) const { return b[i]; }
  const T *begin() const { return b; }
  const T *end() const { return b + n; }
  size_t size() const { return n; }
  const T *b = nullptr;
  size_t n = 0;
};
using IntArrayRef = ArrayRef<int64_t>;
template <typename T> using optional = std::optional<T>;
using std::nullopt;
enum class ScalarType : int8_t { Byte, Char, Short, Int, Long, Half, Float, Double, Bool };
enum class DeviceType : int8_t { CPU, CUDA, XPU, Meta };
enum class DispatchKey : uint16_t {
  Undefined, CPU, CUDA, XPU, Meta, AutogradCPU, Autograd, CompositeImplicitAutograd,
  CompositeExplicitAutograd, CompositeExplicitAutogradNonFunctional, Functionalize
};
class DispatchKeySet {
public:
  DispatchKeySet() = default;
};
// TORCH_FN(f): the kernel as a compile-time function pointer.
template <class FuncType, FuncType *func_ptr>
struct CompileTimeFunctionPointer {
  static constexpr FuncType *get() { return func_ptr; }
};
struct Device {
  Device(DeviceType t, int i = -1) : type(t), index(i) {}
  Device(const std::string &) : type(DeviceType::CPU), index(-1) {}
  Device(const char *) : type(DeviceType::CPU), index(-1) {}
  DeviceType type;
  int index;
};
class Scalar {
public:
  Scalar(double) {}
  Scalar(float) {}
  Scalar(int) {}
  Scalar(int64_t) {}
  Scalar(bool) {}
};
enum class Layout : int8_t { Strided, Sparse };
enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast };
} // namespace c10
namespace caffe2 {
class TypeMeta {
public:
  static TypeMeta fromScalarType(c10::ScalarType);
};
} // namespace caffe2
namespace c10 {
// As in c10/core/TensorOptions.h: implicit from each of its parts (a Device
// from anything a Device is made of), setters that return a copy, and
// requires_grad taking an optional<bool>.
struct TensorOptions {
  TensorOptions() = default;
  TensorOptions(ScalarType) {}
  TensorOptions(caffe2::TypeMeta) {}
  TensorOptions(Layout) {}
  TensorOptions(MemoryFormat) {}
  template <typename T,
            typename = std::enable_if_t<std::is_same_v<std::decay_t<T>, Device>>>
  TensorOptions(T &&device) {}
  template <typename... Args,
            typename = std::enable_if_t<std::is_constructible_v<Device, Args &&...>>>
  TensorOptions(Args &&...args) : TensorOptions(Device(args...)) {}
  TensorOptions dtype(std::optional<ScalarType>) const { return *this; }
  TensorOptions dtype(std::optional<caffe2::TypeMeta>) const { return *this; }
  TensorOptions device(std::optional<Device>) const { return *this; }
  TensorOptions device_index(int16_t) const { return *this; }
  TensorOptions layout(std::optional<Layout>) const { return *this; }
  TensorOptions memory_format(std::optional<MemoryFormat>) const {
    return *this;
  }
  TensorOptions pinned_memory(std::optional<bool>) const { return *this; }
  TensorOptions requires_grad(std::optional<bool>) const { return *this; }
  TensorOptions merge_in(TensorOptions) const { return *this; }
  bool requires_grad() const;
};
inline TensorOptions dtype(ScalarType t) { return TensorOptions(t); }
inline TensorOptions dtype(caffe2::TypeMeta t) { return TensorOptions(t); }
inline TensorOptions device(Device d) { return TensorOptions(d); }
inline TensorOptions layout(Layout l) { return TensorOptions(l); }
inline TensorOptions memory_format(MemoryFormat m) { return TensorOptions(m); }
inline TensorOptions requires_grad(bool r = true) {
  return TensorOptions().requires_grad(r);
}
template <typename T> class List {
public:
  List() = default;
  List(std::initializer_list<T>) {}
  void push_back(T) {}
  T get(size_t) const { return T(); }
};
struct AutoGradMode {
  AutoGradMode(bool enabled);
  ~AutoGradMode();
};
struct NoGradGuard : public AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};
struct InferenceMode {
  InferenceMode(bool enabled = true);
  ~InferenceMode();
};
namespace detail {
[[noreturn]] void torchCheckFail(const char *func, const char *file,
                                 uint32_t line, const char *msg);
} // namespace detail
} // namespace c10
namespace c10 {
// c10::MaybeOwned<T>: what Tensor::expect_contiguous returns.
template <class T> class MaybeOwned {
public:
  const T &operator*() const &;
  const T *operator->() const;
};
namespace detail {
[[noreturn]] void torchInternalAssertFail(const char *func, const char *file,
                                          uint32_t line, const char *msg);
} // namespace detail
} // namespace c10
#define TORCH_INTERNAL_ASSERT(cond, ...)                                       \
  if (C10_UNLIKELY(!(cond))) {                                                 \
    ::c10::detail::torchInternalAssertFail(__func__, __FILE__,                 \
                                           static_cast<uint32_t>(__LINE__),    \
                                           #cond);                             \
  }
// c10's TORCH_CHECK: a guard that throws unless cond holds.
#define C10_UNLIKELY(expr) (__builtin_expect(static_cast<bool>(expr), 0))
#define TORCH_CHECK(cond, ...)                                                 \
  if (C10_UNLIKELY(!(cond))) {                                                 \
    ::c10::detail::torchCheckFail(__func__, __FILE__,                          \
                                  static_cast<uint32_t>(__LINE__), #cond);     \
  }

namespace at {
using c10::ArrayRef;
using c10::Device;
using c10::IntArrayRef;
using c10::Scalar;
using c10::ScalarType;
using c10::TensorOptions;
using c10::AutoGradMode;
using c10::NoGradGuard;
using c10::InferenceMode;
using c10::Layout;
using c10::MemoryFormat;
using c10::dtype;
using c10::device;
using c10::layout;
using c10::memory_format;
using c10::requires_grad;
constexpr auto kStrided = c10::Layout::Strided;
constexpr auto kFloat = ScalarType::Float;
constexpr auto kDouble = ScalarType::Double;
constexpr auto kHalf = ScalarType::Half;
constexpr auto kLong = ScalarType::Long;
constexpr auto kInt = ScalarType::Int;
constexpr auto kInt8 = ScalarType::Char;
constexpr auto kBool = ScalarType::Bool;
constexpr auto kCUDA = c10::DeviceType::CUDA;
constexpr auto kCPU = c10::DeviceType::CPU;
class Tensor;
namespace indexing {
struct EllipsisIndexType {};
extern const EllipsisIndexType Ellipsis;
struct Slice {
  Slice(std::optional<int64_t> start = std::nullopt,
        std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt) {}
};
class TensorIndex;
} // namespace indexing

class TensorBase {
public:
  bool requires_grad() const;
  bool defined() const;
  int64_t dim() const;
  int64_t size(int64_t d) const;
  ScalarType scalar_type() const;
  bool is_contiguous(MemoryFormat f = MemoryFormat::Contiguous) const;
  bool is_alias_of(const TensorBase &other) const;
  bool is_same(const TensorBase &other) const;
  MemoryFormat suggest_memory_format() const;
  caffe2::TypeMeta dtype() const;
  Layout layout() const;
  bool is_cuda() const;
  bool is_cpu() const;
  IntArrayRef sizes() const;
  TensorOptions options() const;
  Device device() const;
  int64_t numel() const;
  template <typename T> T *data_ptr() const;
  void *data_ptr() const;
  // Element access as TensorAccessor gives it: [i] drops one dimension,
  // the last one yields a reference to the element.
  template <typename T, size_t N> struct Accessor {
    Accessor<T, N - 1> operator[](int64_t i) const;
  };
  template <typename T> struct Accessor<T, 1> {
    T &operator[](int64_t i) const;
  };
  template <typename T, size_t N> Accessor<T, N> accessor() const;
  template <typename T, size_t N> Accessor<T, N> packed_accessor32() const;
  template <typename T> T *mutable_data_ptr() const;
  template <typename T> const T *const_data_ptr() const;
};

class Tensor : public TensorBase {
public:
  Tensor();
  Tensor(const Tensor &);
  Tensor(Tensor &&);
  Tensor &operator=(const Tensor &) &;
  Tensor &operator=(Tensor &&) &;
  // Assigning into a temporary (t.index(...) = v, t[i] = v) writes in place.
  Tensor &operator=(const Scalar &v) &&;
  Tensor &operator=(const Tensor &rhs) &&;
  Tensor &operator=(Tensor &&rhs) &&;
  Tensor operator[](int64_t index) const;
  Tensor operator[](const Tensor &index) const;
  Tensor index(ArrayRef<indexing::TensorIndex> indices) const;
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor index(const c10::List<std::optional<Tensor>> &indices) const;
  Tensor &index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor &rhs);
  Tensor &index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar &v);
  Tensor &index_put_(std::initializer_list<indexing::TensorIndex> indices,
                     const Tensor &rhs);
  Tensor &index_put_(std::initializer_list<indexing::TensorIndex> indices,
                     const Scalar &v);
  Tensor &index_put_(const c10::List<std::optional<Tensor>> &indices,
                     const Tensor &values, bool accumulate = false) const;
  Tensor index_put(const c10::List<std::optional<Tensor>> &indices,
                   const Tensor &values, bool accumulate = false) const;
  Tensor &copy_(const Tensor &src, bool non_blocking = false) const;
  Tensor &fill_(const Scalar &value) const;
  Tensor &fill_(const Tensor &value) const;
  Tensor &zero_() const;
  Tensor &add_(const Tensor &other, const Scalar &alpha = 1) const;
  Tensor &mul_(const Tensor &other) const;
  Tensor &masked_fill_(const Tensor &mask, const Scalar &value) const;
  Tensor &masked_fill_(const Tensor &mask, const Tensor &value) const;
  Tensor &index_fill_(int64_t dim, const Tensor &index, const Scalar &value) const;
  Tensor &index_fill_(int64_t dim, const Tensor &index, const Tensor &value) const;
  Tensor &index_copy_(int64_t dim, const Tensor &index, const Tensor &source) const;
  Tensor &masked_scatter_(const Tensor &mask, const Tensor &source) const;
  Tensor &scatter_(int64_t dim, const Tensor &index, const Tensor &src) const;
  Tensor &scatter_(int64_t dim, const Tensor &index, const Scalar &value) const;
  Tensor &add_(const Scalar &other, const Scalar &alpha = 1) const;
  Tensor &sub_(const Tensor &other, const Scalar &alpha = 1) const;
  Tensor &sub_(const Scalar &other, const Scalar &alpha = 1) const;
  Tensor &mul_(const Scalar &other) const;
  Tensor &div_(const Scalar &other) const;
  Tensor &div_(const Tensor &other) const;
  Tensor &div_(const Tensor &other,
               std::optional<std::string_view> rounding_mode) const;
  Tensor &clamp_min_(const Scalar &min) const;
  Tensor &clamp_(std::optional<Scalar> min,
                 std::optional<Scalar> max = std::nullopt) const;
  Tensor &clamp_(const std::optional<Tensor> &min,
                 const std::optional<Tensor> &max = {}) const;
  Tensor &pow_(const Tensor &exponent) const;
  Tensor &uniform_(double from = 0, double to = 1) const;
  Tensor &normal_(double mean = 0, double std = 1) const;
  Tensor &detach_() const;
  Tensor &index_add_(int64_t dim, const Tensor &index,
                     const Tensor &source) const;
  Tensor &addcmul_(const Tensor &t1, const Tensor &t2,
                   const Scalar &value = 1) const;
  Tensor &operator+=(const Tensor &other) const;
  Tensor &operator+=(const Scalar &other) const;
  Tensor &operator-=(const Tensor &other) const;
  Tensor &operator-=(const Scalar &other) const;
  Tensor &operator*=(const Tensor &other) const;
  Tensor &operator*=(const Scalar &other) const;
  Tensor &operator/=(const Tensor &other) const;
  Tensor &operator/=(const Scalar &other) const;
  Tensor data() const;
  Tensor grad() const;
  Tensor &requires_grad_(bool requires_grad = true) const;
  Tensor &set_requires_grad(bool requires_grad);
  Tensor slice(int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor transpose(int64_t a, int64_t b) const;
  Tensor unsqueeze(int64_t d) const;
  Tensor squeeze(int64_t d) const;
  Tensor view(IntArrayRef size) const;
  Tensor reshape(IntArrayRef size) const;
  Tensor sqrt() const;
  Tensor &unsqueeze_(int64_t d) const;
  Tensor &squeeze_(int64_t d) const;
  Tensor &transpose_(int64_t a, int64_t b) const;
  const Tensor &resize_(IntArrayRef size) const;
  const Tensor &as_strided_(IntArrayRef size, IntArrayRef stride) const;
  Tensor &set_(const Tensor &source) const;
  void set_data(const Tensor &new_data) const;
  Tensor &t_() const;
  Tensor expand(IntArrayRef size) const;
  Tensor diagonal(int64_t offset = 0, int64_t d1 = 0, int64_t d2 = 1) const;
  Tensor t() const;
  Tensor to(Device d, ScalarType t) const;
  Tensor to(ScalarType t, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> f = std::nullopt) const;
  Tensor to(TensorOptions o = {}, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> f = std::nullopt) const;
  Tensor toType(ScalarType t) const;
  Tensor cuda() const;
  Tensor cpu() const;
  Tensor contiguous(MemoryFormat f = MemoryFormat::Contiguous) const;
  c10::MaybeOwned<Tensor> expect_contiguous(
      MemoryFormat f = MemoryFormat::Contiguous) const &;
  Tensor clone() const;
  Tensor detach() const;
  Tensor sum() const;
  Tensor mul(const Tensor &o) const;
  Tensor add(const Tensor &o) const;
  Tensor sub(const Tensor &o) const;
  Tensor div(const Tensor &o) const;
  Tensor clamp(const std::optional<Tensor> &min,
               const std::optional<Tensor> &max = {}) const;
  Tensor exp() const;
  Tensor gt(const Scalar &o) const;
  Tensor new_zeros(IntArrayRef size, TensorOptions o = {}) const;
  Tensor new_empty(IntArrayRef size, TensorOptions o = {}) const;
  Tensor new_ones(IntArrayRef size, TensorOptions o = {}) const;
  Tensor new_full(IntArrayRef size, const Scalar &v, TensorOptions o = {}) const;
  Tensor index_copy(int64_t dim, const Tensor &index, const Tensor &source) const;
  Tensor masked_scatter(const Tensor &mask, const Tensor &source) const;
  Tensor scatter(int64_t dim, const Tensor &index, const Tensor &src) const;
  Tensor masked_fill(const Tensor &mask, const Tensor &value) const;
  Tensor index_fill(int64_t dim, const Tensor &index, const Tensor &value) const;
  Tensor slice_scatter(const Tensor &src, int64_t dim = 0,
                       std::optional<int64_t> start = std::nullopt,
                       std::optional<int64_t> end = std::nullopt,
                       int64_t step = 1) const;
  Tensor select_scatter(const Tensor &src, int64_t dim, int64_t index) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor view_as(const Tensor &other) const;
  Tensor expand_as(const Tensor &o) const;
  IntArrayRef sizes() const;
  IntArrayRef sym_sizes() const;
  Tensor view_symint(IntArrayRef size) const;
};
Tensor operator+(const Tensor &, const Tensor &);
Tensor operator+(const Tensor &, const Scalar &);
Tensor operator-(const Tensor &, const Tensor &);
Tensor operator*(const Tensor &, const Tensor &);
Tensor operator*(const Tensor &, const Scalar &);
Tensor operator*(const Scalar &, const Tensor &);
Tensor operator-(const Tensor &);
Tensor operator>(const Tensor &, const Scalar &);

namespace indexing {
constexpr std::nullopt_t None = std::nullopt;
inline IntArrayRef slicePrefix1sSize(const IntArrayRef &sizes) { return sizes; }
class TensorIndex {
public:
  TensorIndex(std::nullopt_t);
  TensorIndex(EllipsisIndexType);
  TensorIndex(int64_t integer);
  TensorIndex(int integer);
  TensorIndex(bool boolean);
  TensorIndex(Slice slice);
  TensorIndex(Tensor tensor);
};
} // namespace indexing

// Factories (ATen spellings).
Tensor zeros(IntArrayRef size, TensorOptions options = {});
Tensor ones(IntArrayRef size, TensorOptions options = {});
Tensor empty(IntArrayRef size, TensorOptions options = {});
Tensor full(IntArrayRef size, const Scalar &v, TensorOptions options = {});
Tensor randn(IntArrayRef size, TensorOptions options = {});
Tensor rand(IntArrayRef size, TensorOptions options = {});
Tensor eye(int64_t n, TensorOptions options = {});
Tensor zeros_like(const Tensor &t, TensorOptions options = {});
Tensor ones_like(const Tensor &t, TensorOptions options = {});
Tensor empty_like(const Tensor &t, TensorOptions options = {});
Tensor full_like(const Tensor &t, const Scalar &v, TensorOptions options = {});
Tensor randn_like(const Tensor &t, TensorOptions options = {});
Tensor arange(const Scalar &end, TensorOptions options = {});
Tensor arange(const Scalar &start, const Scalar &end, TensorOptions options = {});
Tensor triu_indices(int64_t row, int64_t col, int64_t offset = 0,
                    TensorOptions options = {});
Tensor tril_indices(int64_t row, int64_t col, int64_t offset = 0,
                    TensorOptions options = {});
Tensor tensor(ArrayRef<double> values, TensorOptions options = {});
Tensor cat(ArrayRef<Tensor> ts, int64_t dim = 0);
Tensor stack(ArrayRef<Tensor> ts, int64_t dim = 0);
Tensor sin(const Tensor &t);
Tensor matmul(const Tensor &a, const Tensor &b);
// In-place free functions.
Tensor &index_put_(Tensor &self, const c10::List<std::optional<Tensor>> &indices,
                   const Tensor &values, bool accumulate = false);
Tensor &fill_(Tensor &self, const Tensor &value);
Tensor &fill_(Tensor &self, const Scalar &value);
Tensor &relu_(Tensor &self);
Tensor &neg_out(Tensor &out, const Tensor &self);
Tensor &neg_outf(const Tensor &self, Tensor &out);
Tensor &addmv_(Tensor &self, const Tensor &mat, const Tensor &vec,
               const Scalar &beta = 1, const Scalar &alpha = 1);
Tensor index_put(const Tensor &self,
                 const c10::List<std::optional<Tensor>> &indices,
                 const Tensor &values, bool accumulate = false);
Tensor slice_scatter(const Tensor &self, const Tensor &src, int64_t dim = 0,
                     std::optional<int64_t> start = std::nullopt,
                     std::optional<int64_t> end = std::nullopt, int64_t step = 1);
Tensor select_scatter(const Tensor &self, const Tensor &src, int64_t dim,
                      int64_t index);
// at::parallel_for runs f over [begin, end) in chunks.
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F &f) {
  f(begin, end);
}
template <typename T, size_t N>
using PackedTensorAccessor32 = TensorBase::Accessor<T, N>;
using TensorList = ArrayRef<Tensor>;
// A reduced-precision element: a class, so p[i] = x calls its operator=.
struct BFloat16 {
  unsigned short bits = 0;
  BFloat16() = default;
  BFloat16(float v);
  operator float() const;
};
// at::vec::Vectorized<T>: loadu reads memory, store writes it.
namespace vec {
template <typename T> struct Vectorized {
  static Vectorized loadu(const void *p);
  void store(void *p) const;
  Vectorized operator+(const Vectorized &o) const;
  static constexpr int size() { return 8; }
};
} // namespace vec
} // namespace at

// AT_DISPATCH_REDUCED_FLOATING_TYPES: the lambda with scalar_t a class.
#define AT_DISPATCH_REDUCED_FLOATING_TYPES(TYPE, NAME, ...)                    \
  [&] {                                                                        \
    using scalar_t = at::BFloat16;                                             \
    return __VA_ARGS__();                                                      \
  }()

// AT_DISPATCH_*: a lambda per dtype with scalar_t bound, calling the body.
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...)                            \
  [&] {                                                                        \
    using scalar_t = float;                                                    \
    return __VA_ARGS__();                                                      \
  }()

// Helpers in namespaces below at:: whose names end in '_' but which are not
// operators (functionalization glue).
namespace at::functionalization::impl {
bool isFunctionalTensor(const at::Tensor &t);
void replace_(const at::Tensor &functional, const at::Tensor &other);
void commit_update(const at::Tensor &functional);
} // namespace at::functionalization::impl

// Writes through raw pointers wrapped in small view structs: a struct built
// from a tensor's writable memory (Strided1D<T>(t.data_ptr<T>(), n)) and
// handed to a method, or to a function whose body is not here, may be
// written through, as a raw pointer handed to such a function is. Read-only
// views (a const pointer) and structs handed to a helper whose body is here
// are not.
// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
#include <torch/torch.h>

#include <cstddef>
#include <cstdint>

template <typename T> struct Strided1D {
  T *data;
  size_t stride;
  Strided1D(T *data, size_t stride) : data(data), stride(stride) {}
};
template <typename T> struct ConstView {
  const T *data;
  size_t n;
  ConstView(const T *data, size_t n) : data(data), n(n) {}
};
struct Span {
  float *data;
  int64_t n;
};

class AllToAll {
public:
  void dispatch(const Strided1D<int32_t> &out, const ConstView<float> &in);
  void combine(const Span &out);
};

void launch_unseen(const Span &out);

void helper_here(const Span &s) { (void)s; }

void dispatch_kernel(int64_t ptr, const at::Tensor &counts,
                     const at::Tensor &x) {
  auto *all_to_all = reinterpret_cast<AllToAll *>(ptr);
  all_to_all->dispatch(
      Strided1D<int32_t>(counts.data_ptr<int32_t>(), counts.numel()),
      ConstView<float>(x.data_ptr<float>(), x.numel()));
  // CHECK-MESSAGES: :[[@LINE-3]]:3: warning: handing its memory, in a 'Strided1D<int32_t>', to 'AllToAll::dispatch' writes into argument 'counts' of operator 'vs::dispatch', which its schema does not declare mutable: {{.*}} [torch-op-undeclared-mutation]
}

void combine_kernel(int64_t ptr, const at::Tensor &out) {
  auto *all_to_all = reinterpret_cast<AllToAll *>(ptr);
  Span view{out.data_ptr<float>(), out.numel()};
  all_to_all->combine(view);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: handing its memory, in a 'Span', to 'AllToAll::combine' writes into argument 'out' of operator 'vs::combine'{{.*}}
}

void unseen_kernel(const at::Tensor &out) {
  launch_unseen(Span{out.data_ptr<float>(), out.numel()});
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: handing its memory, in a 'Span', to 'launch_unseen' writes into argument 'out' of operator 'vs::unseen'{{.*}}
  // CHECK-MESSAGES: :[[@LINE-23]]:32: note: 'launch_unseen' is not defined in this translation unit; its parameter 'out' takes a view of the memory
}

void helper_kernel(const at::Tensor &out) {
  helper_here(Span{out.data_ptr<float>(), out.numel()});
}

TORCH_LIBRARY(vs, m) {
  m.def("dispatch(int ptr, Tensor counts, Tensor x) -> ()");
  m.def("combine(int ptr, Tensor out) -> ()");
  m.def("unseen(Tensor out) -> ()");
  m.def("helper(Tensor out) -> ()");
}
TORCH_LIBRARY_IMPL(vs, CUDA, m) {
  m.impl("dispatch", &dispatch_kernel);
  m.impl("combine", &combine_kernel);
  m.impl("unseen", &unseen_kernel);
  m.impl("helper", &helper_kernel);
}
// The helper whose body is here writes nothing: its operator is reported at
// its schema (returns nothing, declares nothing mutable), not at the call.
// CHECK-MESSAGES: :[[@LINE-10]]:9: warning: operator 'vs::helper' returns nothing

// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
// Writes the way extension kernels write: raw pointers and accessors taken
// inside AT_DISPATCH and at::parallel_for lambdas, pointer arithmetic,
// standard algorithms and C calls with the tensor's memory as destination,
// helpers (and library functions) handed a non-const pointer, and an
// `optional<Tensor>` out argument. The shapes of issue 29's real bugs.
#include <torch/torch.h>
#include <cstring>
#include <numeric>
#include <algorithm>
#include <stdexcept>
#include <vector>

namespace {
// A library function this file only declares: its first parameter is
// writable.
void lib_fill(float *dst, int64_t n);
void lib_read(const float *src, int64_t n);

at::Tensor arange_out(const at::Tensor &t_in, at::Tensor output) {
  int64_t n = t_in.numel();
  AT_DISPATCH_FLOATING_TYPES(t_in.scalar_type(), "arange_out", [&] {
    scalar_t *p = output.mutable_data_ptr<scalar_t>() + 1;
    std::iota(p, p + n, scalar_t(0));
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: std::iota writes into argument 'output' of operator 'raw::arange_out', which its schema does not declare mutable
  });
  return output;
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: the kernel returns argument 'output' of operator 'raw::arange_out'
}

template <typename T> void fill_via_library(at::Tensor &output, int64_t n) {
  lib_fill(output.mutable_data_ptr<T>(), n);
}
at::Tensor lib_out(const at::Tensor &t_in, at::Tensor output) {
  fill_via_library<float>(output, t_in.numel());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: passing its memory to '{{.*}}lib_fill' writes into argument 'output' of operator 'raw::lib_out'
  // CHECK-MESSAGES: :[[@LINE-5]]:3: note: the write is here, in '{{.*}}fill_via_library'
  // CHECK-MESSAGES: :[[@LINE-21]]:22: note: '{{.*}}lib_fill' is not defined in this translation unit; its parameter 'dst' takes a non-const pointer
  return t_in.sum();
}

at::Tensor accumulate(const at::Tensor &x,
                      const c10::optional<at::Tensor> &optional_out) {
  at::Tensor out = optional_out.value().contiguous();
  int64_t n = x.numel();
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "accumulate", [&] {
    scalar_t *o = out.data_ptr<scalar_t>();
    const scalar_t *in = x.const_data_ptr<scalar_t>();
    at::parallel_for(0, n, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        o[i] += in[i];
      // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: a write through data_ptr writes into argument 'out' of operator 'raw::accumulate'
    });
  });
  return x.sum();
}

at::Tensor c_calls(const at::Tensor &src, at::Tensor dst) {
  std::memcpy(dst.data_ptr<float>(), src.const_data_ptr<float>(), 16);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: {{(std::)?}}memcpy writes into argument 'dst' of operator 'raw::c_calls'
  float *d = dst.data_ptr<float>();
  std::memset(d + 4, 0, 16);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'dst' is also written here ({{(std::)?}}memset)
  std::fill(d, d + 2, 1.0f);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'dst' is also written here (std::fill)
  const float *s = src.const_data_ptr<float>();
  std::copy(s, s + 2, d + 2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'dst' is also written here (std::copy)
  return src.sum();
}

void write_rows(float *rows, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    rows[i] = 0.5f;
}
void write_cells(at::PackedTensorAccessor32<float, 2> a) { a[0][1] = 2.0f; }
at::Tensor helpers(const at::Tensor &x, at::Tensor y, at::Tensor z) {
  write_rows(y.data_ptr<float>() + 3, 3);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: a write through data_ptr writes into argument 'y' of operator 'raw::helpers'
  // CHECK-MESSAGES: :[[@LINE-6]]:5: note: the write is here, in '{{.*}}write_rows'
  write_cells(z.packed_accessor32<float, 2>());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: a write through an accessor writes into argument 'z' of operator 'raw::helpers'
  // CHECK-MESSAGES: :[[@LINE-7]]:60: note: the write is here, in '{{.*}}write_cells'
  return x.sum();
}

// Tensor[] arguments: a write into an element.
void lists(at::TensorList device_states, at::TensorList host_states) {
  for (size_t i = 0; i < host_states.size(); ++i)
    host_states[i].copy_(device_states[i]);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: copy_ writes into argument 'host_states' of operator 'raw::lists', which its schema does not declare mutable
}
void lists_ranged(at::TensorList parts, at::TensorList outs) {
  for (const at::Tensor &o : outs)
    o.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: zero_ writes into argument 'outs' of operator 'raw::lists_ranged'
  for (const at::Tensor &p : parts)
    (void)p.sum(); // reads only
}
void lists_declared(at::TensorList outs) { outs[0].zero_(); }

// No warning: reads only.
at::Tensor reads(const at::Tensor &x, at::Tensor y) {
  float *p = y.data_ptr<float>();
  float s = 0;
  for (int i = 0; i < 3; ++i)
    s += *p++;                     // moves the pointer, reads the element
  float *q = y.data_ptr<float>();
  q = nullptr;                     // rebinds the pointer
  const float *c = y.const_data_ptr<float>();
  std::vector<float> copy(3);
  std::copy(c, c + 3, copy.begin()); // y is the source
  std::memcpy(copy.data(), c, 12);   // and here
  lib_read(y.data_ptr<float>(), 3);  // a const pointer parameter
  (void)q;
  return x.sum() + s;
}
at::Tensor fresh(const at::Tensor &x) {
  at::Tensor t = at::zeros_like(x);
  std::iota(t.data_ptr<float>(), t.data_ptr<float>() + 3, 0.0f);
  lib_fill(t.data_ptr<float>(), 3);
  return t;
}
// Returns that cannot run are no aliasing returns.
at::Tensor unsupported(const at::Tensor &input, const at::Tensor &other) {
  TORCH_CHECK(false, "unsupported");
  return input;
}
at::Tensor unsupported_throw(const at::Tensor &input) {
  throw std::runtime_error("unsupported");
  return input;
}
} // namespace

TORCH_LIBRARY(raw, m) {
  m.def("arange_out(Tensor t_in, Tensor output) -> Tensor");
  m.def("lib_out(Tensor t_in, Tensor output) -> Tensor");
  m.def(TORCH_SELECTIVE_SCHEMA(
      "raw::accumulate(Tensor x, Tensor? out=None) -> Tensor"));
  m.def("c_calls(Tensor src, Tensor dst) -> Tensor");
  m.def("helpers(Tensor x, Tensor y, Tensor z) -> Tensor");
  m.def("reads(Tensor x, Tensor y) -> Tensor");
  m.def("fresh(Tensor x) -> Tensor");
  m.def("unsupported(Tensor input, Tensor other) -> Tensor");
  m.def("unsupported_throw(Tensor input) -> Tensor");
  m.def("lists(Tensor[] device_states, Tensor[] host_states) -> ()");
  m.def("lists_ranged(Tensor[] parts, Tensor[] outs) -> ()");
  m.def("lists_declared(Tensor(a!)[] outs) -> ()");
}

TORCH_LIBRARY_IMPL(raw, CPU, m) {
  m.impl("arange_out", &arange_out);
  m.impl("lib_out", &lib_out);
  m.impl(TORCH_SELECTIVE_NAME("raw::accumulate"), TORCH_FN(accumulate));
  m.impl("c_calls", &c_calls);
  m.impl("helpers", &helpers);
  m.impl("reads", &reads);
  m.impl("fresh", &fresh);
  m.impl("unsupported", &unsupported);
  m.impl("unsupported_throw", &unsupported_throw);
  m.impl("lists", &lists);
  m.impl("lists_ranged", &lists_ranged);
  m.impl("lists_declared", &lists_declared);
}

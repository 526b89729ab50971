// Catch-all kernels (m.def(name, fn), m.def(schema, fn), lambdas;
// TORCH_LIBRARY_FRAGMENT too) that write an argument their schema does not
// declare mutable. Through memory (loud: compiling fails, rows
// catchall_raw*; opcheck's test_schema passes on them) they are reported by
// default, wherever the write is: in lambdas handed to the project's own
// helpers (a template, a std::function parameter of a function whose body
// is elsewhere), std::thread, AT_DISPATCH and at::parallel_for. Written
// with ATen ops (traced: the writes are kept) they need CompositeKernels.
// No fix: the remedy is a declaration and a device registration.
//
// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t-all \
// RUN:   --config="{CheckOptions: {torch-op-undeclared-mutation.CompositeKernels: true}}" \
// RUN:   --check-suffix=ALL
//
// A kernel in one file, its operator defined with m.def(name, &fn) in
// another (Inputs/catchall-project): the schema is inferred from fn's
// signature there too.
// RUN: rm -rf %t-cache && mkdir -p %t-cache
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t-cache %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/catchall-project/csrc/gather.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=PROJECT --implicit-check-not=warning:
#include <torch/torch.h>
#include <cstring>
#include <functional>
#include <thread>

template <typename F> void on_pool(F &&f) { f(); }
void submit(std::function<void()> fn);

at::Tensor by_template(at::Tensor input, at::Tensor out) {
  on_pool([&] {
    AT_DISPATCH_FLOATING_TYPES(input.scalar_type(), "t", [&] {
      at::parallel_for(0, 4, 1, [&](int64_t b, int64_t e) {
        input.data_ptr<scalar_t>()[b] = out.data_ptr<scalar_t>()[b];
      });
    });
  });
  return out.clone();
}
// CHECK-MESSAGES: :[[@LINE-6]]:9: warning: a write through data_ptr writes into argument 'input' of operator 'ca::by_template', which its schema does not declare mutable: torch.compile fails at its calls where its catch-all kernel reads or writes tensor data through pointers (loud): {{.*}}; declare it 'Tensor(a!) input' and register the kernel for its device instead of as a catch-all (then opcheck passes and the writes are kept, measured) [torch-op-undeclared-mutation]
// CHECK-MESSAGES-ALL: :[[@LINE-7]]:9: warning: {{.*}} 'ca::by_template'

at::Tensor by_function(at::Tensor input, at::Tensor out) {
  submit([=]() { std::memcpy(input.data_ptr(), out.data_ptr(), 4); });
  return out.clone();
}
// CHECK-MESSAGES: :[[@LINE-3]]:18: warning: memcpy writes into argument 'input' of operator 'ca::by_function', {{.*}} (loud)
// CHECK-MESSAGES-ALL: :[[@LINE-4]]:18: warning: {{.*}} 'ca::by_function'

at::Tensor by_thread(at::Tensor input, at::Tensor out) {
  std::thread t([&] { std::memset(input.data_ptr(), 0, 4); });
  t.join();
  return out.clone();
}
// CHECK-MESSAGES: :[[@LINE-4]]:23: warning: memset writes into argument 'input' of operator 'ca::by_thread', {{.*}} (loud)
// CHECK-MESSAGES-ALL: :[[@LINE-5]]:23: warning: {{.*}} 'ca::by_thread'

// ATen writes in a catch-all kernel: traced, the writes kept.
at::Tensor aten_write(at::Tensor input, at::Tensor out) {
  input.add_(out);
  return out.clone();
}
// CHECK-MESSAGES-ALL: :[[@LINE-3]]:3: warning: add_ writes into argument 'input' of operator 'ca::aten_write', {{.*}} (traced)

// Negative: a catch-all kernel that only reads its arguments' memory.
at::Tensor read_only(at::Tensor input, at::Tensor out) {
  at::Tensor r = at::empty_like(out);
  std::memcpy(r.data_ptr(), input.data_ptr(), 4);
  return r;
}

TORCH_LIBRARY_FRAGMENT(ca, m) {
  m.def("by_template", &by_template);
  m.def("by_function", by_function);
  m.def("by_thread(Tensor input, Tensor out) -> Tensor", &by_thread);
  m.def("aten_write", &aten_write);
  m.def("read_only", &read_only);
  m.def("lambda_write", [](at::Tensor x) {
    std::memset(x.data_ptr(), 0, 4);
    return x.sum();
  });
}
// CHECK-MESSAGES: :[[@LINE-4]]:5: warning: memset writes into argument 'x' of operator 'ca::lambda_write', {{.*}} (loud)
// CHECK-MESSAGES-ALL: :[[@LINE-5]]:5: warning: {{.*}} 'ca::lambda_write'


// PROJECT: gather.cpp:15:9: warning: memcpy writes into argument 'input' of operator 'ca::gather_async', which its schema does not declare mutable: torch.compile fails at its calls where its catch-all kernel reads or writes tensor data through pointers (loud)
// PROJECT: gather.cpp:10:25: note: 'gather_async' is registered as the CompositeImplicitAutograd kernel of 'ca::gather_async' in {{.*}}register.cpp:6
// PROJECT: gather.cpp:15:9: note: no fix: the schema is inferred from the kernel's C++ signature (m.def(name, fn)), which never declares a mutation; define the operator with a schema string

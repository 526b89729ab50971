// CPU kernels written the way vectorised ATen-style kernels are: the element
// type is a class (at::BFloat16 under AT_DISPATCH_REDUCED_FLOATING_TYPES),
// so `p[i] = x` is a call of its operator=, and whole vectors are written
// with at::vec::Vectorized<T>::store(p). Both write the tensor the pointer
// came from (sglang's fused_add_rmsnorm_cpu writes `residual` both ways).
// The operator declares `input` mutable, so the message carries the version
// note measured for that case (docs/ground-truth-registrations.json,
// beside_declared, for one call; docs/found.json, the llama caller of
// fused_add_rmsnorm_cpu, for chained calls).
// Loads, and stores into a local buffer, write no argument.
// RUN: %check_torch_tidy %s torch-op-undeclared-mutation %t
#include <torch/torch.h>

template <typename scalar_t>
void add_rows(const scalar_t *__restrict__ input,
              scalar_t *__restrict__ residual, int64_t n, int64_t h) {
  at::parallel_for(0, n, 0, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      scalar_t *__restrict__ row = residual + i * h;
      for (int64_t d = 0; d < h; ++d)
        row[d] = static_cast<float>(row[d]) + static_cast<float>(input[d]);
    }
  });
}

void element_assign(at::Tensor &input, at::Tensor &residual) {
  AT_DISPATCH_REDUCED_FLOATING_TYPES(input.scalar_type(), "element", [&] {
    add_rows<scalar_t>(input.data_ptr<scalar_t>(),
                       residual.data_ptr<scalar_t>(), input.size(0),
                       input.size(1));
  });
  // CHECK-MESSAGES: :[[@LINE-4]]:5: warning: a write through data_ptr writes into argument 'residual' of operator 'vec::element_assign', which its schema does not declare mutable: {{.*}}inductor computes with the unwritten values, silently (measured on torch 2.8.0 and 2.15.0: on 2.15.0 a single call gave the written values, calls chained through an intermediate of the compiled graph did not)
  // CHECK-MESSAGES: :[[@LINE-12]]:9: note: the write is here, in 'add_rows'
}

template <typename scalar_t>
void store_rows(const scalar_t *input, scalar_t *out, int64_t h) {
  using Vec = at::vec::Vectorized<scalar_t>;
  for (int64_t d = 0; d < h; d += Vec::size()) {
    Vec x = Vec::loadu(input + d);
    (x + x).store(out + d);
  }
}

void vector_store(at::Tensor &input, at::Tensor &out) {
  AT_DISPATCH_REDUCED_FLOATING_TYPES(input.scalar_type(), "store", [&] {
    store_rows<scalar_t>(input.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(),
                         input.size(0));
  });
  // CHECK-MESSAGES: :[[@LINE-3]]:5: warning: a Vectorized store through data_ptr writes into argument 'out' of operator 'vec::vector_store', which its schema does not declare mutable
  // CHECK-MESSAGES: :[[@LINE-10]]:5: note: the write is here, in 'store_rows'
}

// Loads only, and a store into the kernel's own buffer: nothing written.
at::Tensor local_buffer(const at::Tensor &input) {
  at::Tensor result = at::empty_like(input);
  AT_DISPATCH_REDUCED_FLOATING_TYPES(input.scalar_type(), "local", [&] {
    using Vec = at::vec::Vectorized<scalar_t>;
    Vec x = Vec::loadu(input.data_ptr<scalar_t>());
    x.store(result.data_ptr<scalar_t>());
  });
  return result;
}

TORCH_LIBRARY(vec, m) {
  m.def("element_assign(Tensor(a!) input, Tensor residual) -> ()");
  m.def("vector_store(Tensor input, Tensor out) -> ()");
  m.def("local_buffer(Tensor input) -> Tensor");
}
TORCH_LIBRARY_IMPL(vec, CPU, m) {
  m.impl("element_assign", &element_assign);
  m.impl("vector_store", &vector_store);
  m.impl("local_buffer", &local_buffer);
}

// RUN: %check_torch_tidy %s torch-write-into-copy %t
// RUN: %check_torch_tidy --check-suffix=NOREAD '--config={CheckOptions: {torch-write-into-copy.ReadAfterWrite: false}}' %s torch-write-into-copy %t
// Which tensors the code means to update: an argument its schema declares
// mutable, one taken as `Tensor &`, one returned, one read after the write;
// never a fresh local, and never an argument the schema declares
// read-only.
#include <torch/library.h>
#include <torch/torch.h>

void schema_mutable(at::Tensor out, double v) {
  auto c = out.contiguous();
  c.fill_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (fill_) is lost when 'out' is not contiguous: contiguous() then returns a new tensor, and the caller's 'out' is left unchanged; no write-back copies it into the receiver [torch-write-into-copy]
  // CHECK-MESSAGES: :[[@LINE+48]]:3: note: 'out' is declared mutable in the schema of 'wic::schema_mutable'
  // CHECK-MESSAGES-NOREAD: :[[@LINE-3]]:3: warning: write into 'out.contiguous()' (fill_) is lost
}

// The schema says `self` is read only: the kernel does not mean to update
// it (torch-op-undeclared-mutation reports the write where no copy is made).
void schema_read_only(at::Tensor self) {
  auto c = self.contiguous();
  c.mul_(2);
}

at::Tensor returned(at::Tensor out) {
  auto c = out.to(at::kFloat);
  c.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.to(at::kFloat)' (add_) is lost
  // CHECK-MESSAGES: :[[@LINE+2]]:3: note: 'out' is returned
  // CHECK-MESSAGES-NOREAD: :[[@LINE-3]]:3: warning: write into 'out.to(at::kFloat)' (add_) is lost
  return out;
}

at::Tensor read_after(at::Tensor acc) {
  auto c = acc.contiguous();
  c.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'acc.contiguous()' (add_) is lost
  // CHECK-MESSAGES: :[[@LINE+1]]:10: note: 'acc' is read after the write
  return acc.sum();
}

// A helper that takes its tensor by value and writes into its copy: the
// kernel that hands it its mutable argument is what makes it a lost write.
void fill_rows(at::Tensor t, double v) {
  auto c = t.contiguous();
  c.fill_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 't.contiguous()' (fill_) is lost when 't' is not contiguous: contiguous() then returns a new tensor, and 'out' of 'through_helper' is left unchanged; no write-back copies it into the receiver [torch-write-into-copy]
  // CHECK-MESSAGES-NOREAD: :[[@LINE-2]]:3: warning: write into 't.contiguous()' (fill_) is lost
  // CHECK-MESSAGES: :[[@LINE+4]]:3: note: 'out' reaches the copy through this call
  // CHECK-MESSAGES: :[[@LINE+14]]:3: note: 'out' is declared mutable in the schema of 'wic::through_helper'
}
void through_helper(at::Tensor out, double v) {
  fill_rows(out, v);
}

TORCH_LIBRARY(wic, m) {
  m.def("schema_mutable(Tensor(a!) out, float v) -> ()");
  m.def("schema_read_only(Tensor self) -> ()");
  m.def("through_helper(Tensor(a!) out, float v) -> ()");
}
TORCH_LIBRARY_IMPL(wic, CPU, m) {
  m.impl("schema_mutable", &schema_mutable);
  m.impl("schema_read_only", &schema_read_only);
  m.impl("through_helper", &through_helper);
}

// Only its metadata is read after the write: nothing says it is updated.
int64_t metadata_after(const at::Tensor &x) {
  auto c = x.contiguous();
  c.mul_(2);
  return x.size(0) + c.numel();
}

// Fresh locals are never reported: nobody else holds them.
at::Tensor fresh(const at::Tensor &x) {
  auto y = at::zeros_like(x);
  auto c = y.contiguous();
  c.add_(1);
  return y;
}

// The copy itself is what the function returns: nothing is lost.
at::Tensor returns_the_copy(const at::Tensor &x) {
  auto c = x.to(at::kFloat);
  c.add_(1);
  return c;
}

// An optional output argument (`Tensor(a!)? out`, std::optional<Tensor> &).
void optional_out(std::optional<at::Tensor> &out_) {
  auto c = out_.value().contiguous();
  c.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out_.value().contiguous()' (zero_) is lost when 'out_.value()' is not contiguous
  // CHECK-MESSAGES: :[[@LINE-4]]:46: note: 'out_' is taken as a non-const reference
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: no fix: the copy is not made of a named tensor a write-back could name
  // CHECK-MESSAGES-NOREAD: :[[@LINE-4]]:3: warning: write into 'out_.value().contiguous()' (zero_) is lost
}

// A read the write cannot reach is not after it: the other branch of the
// `if` around the helper's call (deepmd-kit's border_op backward calls its
// helper once per dtype, each on the same gradient) reads nothing once the
// helper wrote into its copy, which it returns.
template <typename T> at::Tensor scaled(const at::Tensor &g) {
  auto c = g.contiguous();
  c.mul_(2);
  return c;
}
at::Tensor by_dtype(const at::Tensor &g) {
  if (g.scalar_type() == at::kDouble)
    return scaled<double>(g);
  else
    return scaled<float>(g);
}

// A read the write reaches is: after the `if` around the call.
template <typename T> at::Tensor scaled_too(const at::Tensor &g) {
  auto c = g.contiguous();
  c.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'g.contiguous()' (mul_) is lost when 'g' is not contiguous: contiguous() then returns a new tensor, and 'g' of 'then_read' is left unchanged
  // CHECK-MESSAGES: :[[@LINE+6]]:5: note: 'g' reaches the copy through this call
  // CHECK-MESSAGES: :[[@LINE+6]]:10: note: 'g' is read after the write
  return c;
}
at::Tensor then_read(const at::Tensor &g, bool twice) {
  if (twice)
    scaled_too<float>(g);
  return g + 1;
}

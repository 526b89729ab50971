// RUN: %check_torch_tidy %s torch-write-into-copy %t
// A write-back on every path, or a guard that rules the copy out, makes the
// write safe; a write-back on one path, or a guard on another condition,
// does not.
#include <cassert>
#include <stdexcept>
#include <torch/torch.h>

void write_back_every_path(at::Tensor &out, const at::Tensor &x) {
  auto c = out.contiguous();
  c.copy_(x);
  if (!c.is_alias_of(out))
    out.copy_(c);
}

void write_back_unconditional(at::Tensor &out, const at::Tensor &x) {
  auto c = out.contiguous();
  c.add_(x);
  out.copy_(c);
}

void write_back_tested_on_receiver(at::Tensor &out) {
  auto c = out.contiguous();
  c.mul_(2);
  if (!out.is_contiguous()) {
    out.copy_(c);
  }
}

void write_back_one_path(at::Tensor &out, const at::Tensor &x, bool flag) {
  auto c = out.contiguous();
  c.copy_(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (copy_) is lost when 'out' is not contiguous: contiguous() then returns a new tensor, and the caller's 'out' is left unchanged; the write-back at line 36 runs on one path only [torch-write-into-copy]
  // CHECK-MESSAGES: :[[@LINE-4]]:38: note: 'out' is taken as a non-const reference
  if (flag)
    out.copy_(c);
}

void write_back_before_the_write(at::Tensor &out, const at::Tensor &x) {
  auto c = out.contiguous();
  out.copy_(c);
  c.add_(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (add_) is lost
}

void torch_check(at::Tensor &out) {
  TORCH_CHECK(out.is_contiguous(), "out must be contiguous");
  auto c = out.contiguous();
  c.add_(1);
}

void internal_assert(at::Tensor &out) {
  TORCH_INTERNAL_ASSERT(out.is_contiguous());
  out.contiguous().add_(1);
}

void c_assert(at::Tensor &out) {
  assert(out.is_contiguous());
  out.contiguous().add_(1);
}

void early_error(at::Tensor &out) {
  if (!out.is_contiguous())
    throw std::runtime_error("not contiguous");
  out.contiguous().add_(1);
}

void early_return(at::Tensor &out) {
  if (out.scalar_type() != at::kFloat)
    return;
  out.to(at::kFloat).add_(1);
}

void branch_around(at::Tensor &out) {
  if (out.is_contiguous()) {
    auto c = out.contiguous();
    c.add_(1);
  }
}

void rebinding(at::Tensor &out) {
  out = out.contiguous();
  auto c = out.contiguous();
  c.add_(1);
  out.add_(1);
}

// A guard on another condition: the dtype check does not make out
// contiguous.
void other_condition(at::Tensor &out) {
  TORCH_CHECK(out.scalar_type() == at::kFloat, "float only");
  auto c = out.contiguous();
  c.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (add_) is lost
}

// A guard after the copy does not rule it out.
void guard_too_late(at::Tensor &out) {
  auto c = out.contiguous();
  c.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (add_) is lost
  TORCH_CHECK(out.is_contiguous(), "out must be contiguous");
}

// A guard on another tensor.
void guard_on_other(at::Tensor &out, const at::Tensor &x) {
  TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
  auto c = out.contiguous();
  c.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (add_) is lost
}

// A helper whose caller checks the argument first.
void scale_into(at::Tensor t) {
  auto c = t.contiguous();
  c.mul_(2);
}
void checked_caller(at::Tensor &out) {
  TORCH_CHECK(out.is_contiguous(), "out must be contiguous");
  scale_into(out);
}

// An assignment into a view of the receiver whose right side holds the
// copy writes it back (detectron2's and mmcv's deformable convolution),
// here in the loop that writes.
void assigned_back(at::Tensor &output, const at::Tensor &w,
                   const at::Tensor &cols, int64_t groups) {
  for (int64_t g = 0; g < groups; ++g)
    output[g] = output[g].flatten(1).add_(w).view_as(output[g]);
}

// A write-back in a loop of its own may not run.
void loop_write_back(at::Tensor &out, int64_t n) {
  auto c = out.contiguous();
  c.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (add_) is lost {{.*}} runs on one path only
  for (int64_t i = 0; i < n; ++i)
    out.copy_(c);
}

// A local handle of the argument rebound to its own reshaped copy, written,
// and returned (flash-attention's mha_fwd): the code means the rebound
// tensor, which it returns.
std::vector<at::Tensor> rebound_local(std::optional<at::Tensor> &out_,
                                      bool swapped) {
  at::Tensor out;
  if (out_.has_value()) {
    out = out_.value();
    if (swapped)
      out = out.reshape({2, 3, 1}).transpose(1, 2);
  } else {
    out = at::zeros({3, 2});
  }
  out.zero_();
  return {out};
}

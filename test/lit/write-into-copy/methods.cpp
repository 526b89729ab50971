// RUN: %check_torch_tidy %s torch-write-into-copy %t
// Each method the ground truth measures losing a write into its result when
// the receiver needs the copy (docs/ground-truth-write-into-copy.md), on an
// argument taken as `Tensor &`; and the methods it does not measure so.
#include <torch/torch.h>

void contiguous(at::Tensor &out) {
  auto c = out.contiguous();
  c.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (add_) is lost when 'out' is not contiguous: contiguous() then returns a new tensor, and the caller's 'out' is left unchanged; no write-back copies it into the receiver [torch-write-into-copy]
  // CHECK-MESSAGES: :[[@LINE-4]]:29: note: 'out' is taken as a non-const reference, the convention for an output argument
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: rule: write-back-copy
}

void channels_last(at::Tensor &out) {
  auto c = out.contiguous(at::MemoryFormat::ChannelsLast);
  c.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous(at::MemoryFormat::ChannelsLast)' (add_) is lost when 'out' is not contiguous in that memory format: contiguous() then
}

void expect_contiguous(at::Tensor &out) {
  auto c = out.expect_contiguous();
  c->add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.expect_contiguous()' (add_) is lost when 'out' is not contiguous: expect_contiguous() then
}

void reshape(at::Tensor &out) {
  auto c = out.reshape({-1});
  c.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.reshape({-1})' (add_) is lost when 'out' cannot be viewed in the new shape (a transposed tensor): reshape() then
}

void flatten(at::Tensor &out) {
  auto c = out.flatten();
  c.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.flatten()' (zero_) is lost when 'out' cannot be viewed flat (a transposed tensor): flatten() then
}

void to_dtype(at::Tensor &out) {
  out.to(at::kFloat).clamp_min_(0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.to(at::kFloat)' (clamp_min_) is lost when 'out' has another dtype: to() then
  // CHECK-MESSAGES: :[[@LINE-3]]:27: note: 'out' is taken as a non-const reference
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: rule: check-no-copy
}

void to_half(at::Tensor &out) {
  auto h = out.to(at::kHalf);
  h.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.to(at::kHalf)' (mul_) is lost when 'out' has another dtype: to() then
}

void to_type(at::Tensor &out) {
  auto t = out.toType(at::kDouble);
  t.fill_(0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.toType(at::kDouble)' (fill_) is lost when 'out' has another dtype: toType() then
}

void to_options(at::Tensor &out) {
  auto o = out.to(out.options().memory_format(at::MemoryFormat::ChannelsLast));
  o.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.to(out.options().memory_format(at::MemoryFo...' (add_) is lost when 'out' differs in dtype or memory format: to() then
}

// Not reported: device moves outside a registered kernel (which devices
// reach it is not known; device-moves.cpp), a device move with a dtype (not
// measured), and methods that are not copying methods.
void not_measured(at::Tensor &out, const at::Tensor &other) {
  out.cpu().add_(1);
  out.cuda().add_(1);
  out.to(at::kCPU).add_(1);
  out.to(other.device(), at::kFloat).add_(1);
  out.select(0, 1).add_(1);
  out.view({-1}).add_(1);
  out.detach().add_(1);
  out.clone().add_(1);
}

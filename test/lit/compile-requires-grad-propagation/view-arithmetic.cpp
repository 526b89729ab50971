// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t
// In-place arithmetic through a view of a fresh tensor (issue 39): measured
// in Python (docs/ground-truth.md, path python_view_arith), add_, sub_,
// mul_, div_ and clamp_ with an operand that requires grad lose
// requires_grad under torch.compile on torch 2.8.0 and 2.15.0 when they go
// through narrow, select or a named view; into the whole tensor only on
// 2.8.0, which (as a whole-tensor copy_) is not reported for a fresh local.
// add_, sub_ and mul_ (one tensor operand, a method call) get the scatter of
// the view's out-of-place result (rule scatter-inplace-arith); div_ and
// clamp_ no fix yet (the reference runtime has neither).
#include <torch/torch.h>
#include <torch_tidy/compiled.h>

TORCH_TIDY_COMPILED at::Tensor through_views(const at::Tensor &y) {
  auto buf = torch::zeros({8, 4}, y.options());
  auto rows = buf.narrow(0, 4, 2);
  rows.mul_(y.sum());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place mul_ into 'buf', which was created without gradient tracking, from 'y.sum()', which may require grad: torch.compile loses requires_grad after such writes (measured in Python on torch 2.8.0 and 2.15.0), {{.*}}
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: scatter-inplace-arith
  // CHECK-FIXES: {{^}}  auto buf = torch::zeros({8, 4}, y.options());{{$}}
  // CHECK-FIXES-NEXT: {{^}}  buf = buf.slice_scatter(buf.narrow(0, 4, 2).mul(y.sum()), 0, 4, 6);{{$}}
  buf.select(0, 1).add_(y);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place add_ into 'buf'{{.*}}
  // CHECK-FIXES: {{^}}  buf = buf.select_scatter(buf.select(0, 1).add(y), 0, 1);{{$}}
  buf[2].sub_(y);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place sub_ into 'buf'{{.*}}
  // CHECK-FIXES: {{^}}  buf = buf.select_scatter(buf[2].sub(y), 0, 2);{{$}}
  buf.slice(0, 0, 2).div_(y);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place div_ into 'buf'{{.*}}
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: in-place div_ through a view has no verified rewrite yet
  buf.narrow(1, 0, 1).clamp_(y);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place clamp_ into 'buf', which was created without gradient tracking, from 'y'{{.*}}
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: in-place clamp_ through a view has no verified rewrite yet
  return buf;
}

TORCH_TIDY_COMPILED at::Tensor not_reported(const at::Tensor &y) {
  auto buf = torch::zeros({8, 4}, y.options());
  buf.mul_(y);               // the whole tensor: kept on the newest torch
  buf.narrow(0, 0, 2).pow_(y); // not measured
  auto other = torch::ones({8, 4});
  buf.narrow(0, 0, 2).add_(other); // no grad in the operand
  buf.narrow(0, 0, 2).mul_(2);     // a scalar operand
  return buf;
}

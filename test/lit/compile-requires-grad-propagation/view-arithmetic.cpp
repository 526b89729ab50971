// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.FixColumnLimit: 0}}"
// In-place arithmetic through a view of a fresh tensor (issue 39): measured
// in Python (docs/ground-truth.md, path python_view_arith), add_, sub_,
// mul_, div_ and clamp_ with an operand that requires grad lose
// requires_grad under torch.compile on torch 2.8.0 and 2.15.0 when they go
// through narrow, select or a named view; into the whole tensor only on
// 2.8.0, which (as a whole-tensor copy_) is not reported for a fresh local.
// add_, sub_, mul_, div_ and clamp_ (one tensor operand) get the scatter of
// the view's out-of-place result (rule scatter-inplace-arith); with a
// second operand (add_'s alpha, clamp_'s max) no fix. div_ with a rounding
// mode is another ATen overload (div_.Tensor_mode), not measured: not
// reported.
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
  // CHECK-FIXES: {{^}}  buf = buf.slice_scatter(buf.slice(0, 0, 2).div(y), 0, 0, 2);{{$}}
  buf.narrow(1, 0, 1).clamp_(y);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place clamp_ into 'buf', which was created without gradient tracking, from 'y'{{.*}}
  // CHECK-FIXES: {{^}}  buf = buf.slice_scatter(buf.narrow(1, 0, 1).clamp(y), 1, 0, 1);{{$}}
  buf.narrow(1, 1, 1).clamp_(y, y + 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place clamp_ into 'buf'{{.*}}
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: only 'clamp_(v)' with one operand is rewritten (not alpha, a rounding mode, a max, or the free function)
  return buf;
}

// The compound assignments are the same ops: TensorBody.h defines
// `operator+=` as `return add_(other);`, `-=` as sub_, `*=` as mul_, `/=`
// as div_ (check_claims.py reads it in the installed header).
TORCH_TIDY_COMPILED at::Tensor operator_forms(const at::Tensor &y) {
  auto buf = torch::zeros({8, 4}, y.options());
  auto mid = buf.narrow(0, 2, 2);
  mid += y;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place += into 'buf', which was created without gradient tracking, from 'y', which may require grad{{.*}}
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: scatter-inplace-arith
  // CHECK-FIXES: {{^}}  auto buf = torch::zeros({8, 4}, y.options());{{$}}
  // CHECK-FIXES-NEXT: {{^}}  buf = buf.slice_scatter(buf.narrow(0, 2, 2).add(y), 0, 2, 4);{{$}}
  buf[7] *= y * 2;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place *= into 'buf'{{.*}}
  // CHECK-FIXES: {{^}}  buf = buf.select_scatter(buf[7].mul(y * 2), 0, 7);{{$}}
  buf.select(1, 3) -= y.select(0, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place -= into 'buf'{{.*}}
  // CHECK-FIXES: {{^}}  buf = buf.select_scatter(buf.select(1, 3).sub(y.select(0, 0)), 1, 3);{{$}}
  buf.slice(0, 0, 2) /= y;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place /= into 'buf'{{.*}}
  // CHECK-FIXES: {{^}}  buf = buf.slice_scatter(buf.slice(0, 0, 2).div(y), 0, 0, 2);{{$}}
  buf += y;   // the whole tensor: kept on the newest torch
  buf[0] += 1; // a scalar operand
  return buf;
}

TORCH_TIDY_COMPILED at::Tensor not_reported(const at::Tensor &y) {
  auto buf = torch::zeros({8, 4}, y.options());
  buf.mul_(y);               // the whole tensor: kept on the newest torch
  buf.narrow(0, 0, 2).pow_(y); // not measured
  auto other = torch::ones({8, 4});
  buf.narrow(0, 0, 2).add_(other); // no grad in the operand
  buf.narrow(0, 0, 2).mul_(2);     // a scalar operand
  buf.narrow(0, 0, 2).div_(y, "floor"); // another overload, not measured
  return buf;
}

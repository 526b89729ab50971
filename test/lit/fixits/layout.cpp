// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t \
// RUN:   --check-suffix=DEFAULT
// RUN: %python %S/max_fixed_width.py %s %t.cpp 70
// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t-80 \
// RUN:   --check-suffix=WIDE \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.FixColumnLimit: 80}}"
// RUN: %python %S/max_fixed_width.py %s %t-80.cpp 80
// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t-0 \
// RUN:   --check-suffix=OFF \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.FixColumnLimit: 0}}"
// A fixed statement that would run past FixColumnLimit (70 by default) is
// laid out as clang-format's LLVM style lays it out within the limit, each
// continuation line indented from the statement's own indentation; only
// whitespace differs from the one-line fix (FixColumnLimit: 0). A statement
// that fits stays on its line; one after other code on its line (`if (c)`)
// is laid out from its own column. max_fixed_width.py checks that every
// line the fix wrote is within the limit.
#include <torch/torch.h>
#include <torch_tidy/compiled.h>

TORCH_TIDY_COMPILED at::Tensor nested(const at::Tensor &x) {
  auto out = torch::zeros({4, 3, 2}, x.options());
  auto plane = out.select(2, 1).narrow(0, 1, 2);
  plane.copy_(x);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place copy_ into 'out'
  // CHECK-FIXES-DEFAULT: {{^}}  out = out.select_scatter(out.select(2, 1).slice_scatter(x, 0, 1, 3),{{$}}
  // CHECK-FIXES-DEFAULT-NEXT: {{^}}                           2, 1);{{$}}
  // CHECK-FIXES-DEFAULT-NEXT: {{^}}  plane = out.select(2, 1).narrow(0, 1, 2);{{$}}
  // CHECK-MESSAGES-WIDE: :[[@LINE-5]]:3: warning: in-place copy_ into 'out'
  // CHECK-FIXES-WIDE: {{^}}  out = out.select_scatter(out.select(2, 1).slice_scatter(x, 0, 1, 3), 2, 1);{{$}}
  // CHECK-FIXES-WIDE-NEXT: {{^}}  plane = out.select(2, 1).narrow(0, 1, 2);{{$}}
  // CHECK-MESSAGES-OFF: :[[@LINE-8]]:3: warning: in-place copy_ into 'out'
  // CHECK-FIXES-OFF: {{^}}  out = out.select_scatter(out.select(2, 1).slice_scatter(x, 0, 1, 3), 2, 1);{{$}}
  return out + plane.sum();
}

TORCH_TIDY_COMPILED at::Tensor deep(const at::Tensor &x, bool c) {
  auto m = torch::zeros({4, 4, 4});
  auto activations = torch::zeros({4, 4, 4});
  for (int64_t step = 0; step < 2; ++step) {
    if (c) {
      activations.index({step, torch::indexing::Slice(), 0}).copy_(x);
      // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:7: warning: in-place copy_ into 'activations'
      // CHECK-FIXES-DEFAULT: {{^}}      activations = activations.select_scatter({{$}}
      // CHECK-FIXES-DEFAULT-NEXT: {{^}}          activations[step].select_scatter(x, 1, 0), 0, step);{{$}}
      // CHECK-MESSAGES-WIDE: :[[@LINE-4]]:7: warning: in-place copy_ into 'activations'
      // CHECK-FIXES-WIDE: {{^}}      activations = activations.select_scatter({{$}}
      // CHECK-FIXES-WIDE-NEXT: {{^}}          activations[step].select_scatter(x, 1, 0), 0, step);{{$}}
      // CHECK-MESSAGES-OFF: :[[@LINE-7]]:7: warning: in-place copy_ into 'activations'
      // CHECK-FIXES-OFF: {{^}}      activations = activations.select_scatter(activations[step].select_scatter(x, 1, 0), 0, step);{{$}}
    }
  }
  m.select(0, 3).copy_(x);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:3: warning: in-place copy_ into 'm'
  // CHECK-FIXES-DEFAULT: {{^}}  m = m.select_scatter(x, 0, 3);{{$}}
  // CHECK-MESSAGES-WIDE: :[[@LINE-3]]:3: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES-OFF: :[[@LINE-4]]:3: warning: in-place copy_ into 'm'
  if (c) m.select(0, 2).select(0, 1).slice(0, 1, 3).copy_(x.select(0, 0).select(0, 1));
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:10: warning: in-place copy_ into 'm'
  // CHECK-FIXES-DEFAULT: {{^}}  if (c) m = m.flatten(){{$}}
  // CHECK-FIXES-DEFAULT-NEXT: {{^}}                 .index_put({{$}}
  // CHECK-FIXES-DEFAULT-NEXT: {{^}}                     {torch::arange(m.numel(),{{$}}
  // CHECK-MESSAGES-WIDE: :[[@LINE-5]]:10: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES-OFF: :[[@LINE-6]]:10: warning: in-place copy_ into 'm'
  return m + activations;
}

// The code after the statement on its line (a one-line lambda's ` };`)
// counts toward the limit.
TORCH_TIDY_COMPILED at::Tensor one_line_lambda(const at::Tensor &v) {
  auto m = torch::zeros({4, 4});
  auto put = [&](int64_t i) { m[i] = v * (i + 1); };
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:31: warning: in-place operator[] assignment into 'm'
  // CHECK-FIXES-DEFAULT: {{^}}  auto put = [&](int64_t i) { m = m.select_scatter(v * (i + 1), 0,{{$}}
  // CHECK-FIXES-DEFAULT-NEXT: {{^}}                                                   i); };{{$}}
  // CHECK-MESSAGES-WIDE: :[[@LINE-4]]:31: warning: in-place operator[] assignment into 'm'
  // CHECK-FIXES-WIDE: {{^}}  auto put = [&](int64_t i) { m = m.select_scatter(v * (i + 1), 0, i); };{{$}}
  // CHECK-MESSAGES-OFF: :[[@LINE-6]]:31: warning: in-place operator[] assignment into 'm'
  for (int64_t i = 0; i < 4; ++i)
    put(i);
  return m;
}

// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t
// A lambda in a compiled region that writes a fresh tensor it captures is
// reported at the write. The fix assigns the out-of-place result in the
// lambda only where that reaches the function's variable and runs where the
// write did: a capture by reference, and a lambda called here (directly, or
// through a local that is only ever called). Otherwise the warning says why
// there is no fix.
#include <functional>
#include <torch/torch.h>
#include <torch_tidy/compiled.h>
using torch::indexing::Slice;

void run_later(const std::function<void()> &f);

TORCH_TIDY_COMPILED at::Tensor named_and_called(const at::Tensor &vec,
                                                const at::Tensor &rows) {
  auto m = torch::zeros({4, 4}, vec.device());
  auto fill = [&](int64_t i) {
    m.index_put_({i, rows}, vec);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_put_ into 'm', which was created without gradient tracking, from 'vec', which may require grad
    // CHECK-MESSAGES: :[[@LINE-4]]:12: note: 'm' is created here without requires_grad
    // CHECK-MESSAGES: :[[@LINE-4]]:15: note: the lambda made here captures 'm' by reference
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: rule: index-put-positions
    // CHECK-FIXES: {{^}}    m = m.flatten(){{$}}
    // CHECK-FIXES-NEXT: {{^}}            .index_put({{$}}
  };
  for (int64_t i = 0; i < 4; ++i)
    fill(i);
  return m;
}

TORCH_TIDY_COMPILED at::Tensor invoked_where_made(const at::Tensor &vec,
                                                  const at::Tensor &rows) {
  auto m = torch::zeros({4, 4}, vec.options());
  [&] { m.index_put_({rows}, vec); }();
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'm' is created here
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the lambda made here captures 'm' by reference
  // CHECK-MESSAGES: :[[@LINE-4]]:9: note: rule: index-put-advanced
  // CHECK-FIXES: {{^}}  [&] { m = m.index_put({rows}, vec{{.*}}); }();
  return m;
}

TORCH_TIDY_COMPILED at::Tensor lambda_parameter(const at::Tensor &vec) {
  auto m = torch::zeros({4, 4});
  auto put = [&m](int64_t i, const at::Tensor &row) { m[i] = row; };
  // CHECK-MESSAGES: :[[@LINE-1]]:55: warning: in-place operator[] assignment into 'm'{{.*}} from 'row'
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'm' is created here
  // CHECK-MESSAGES: :[[@LINE-3]]:14: note: the lambda made here captures 'm' by reference
  // CHECK-MESSAGES: :[[@LINE-4]]:55: note: rule:
  put(0, vec);
  return m;
}

TORCH_TIDY_COMPILED at::Tensor by_value(const at::Tensor &vec,
                                        const at::Tensor &rows) {
  auto m = torch::zeros({4, 4});
  auto fill = [=] { m.index_put_({rows}, vec); };
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: in-place index_put_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'm' is created here
  // CHECK-MESSAGES: :[[@LINE-3]]:15: note: the lambda made here captures 'm' by value, a handle that shares its data
  // CHECK-MESSAGES: :[[@LINE-4]]:21: note: no fix: the lambda captures 'm' by value: an assignment there would not change 'm' outside it; capture it by reference to get a fix
  fill();
  return m;
}

TORCH_TIDY_COMPILED at::Tensor handed_on(const at::Tensor &vec) {
  auto m = torch::zeros({4, 4});
  at::parallel_for(0, 4, 1, [&](int64_t b, int64_t e) {
    m.index({Slice(b, e)}) = vec.index({Slice(b, e)});
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index(...) assignment into 'm'
    // CHECK-MESSAGES: :[[@LINE-4]]:12: note: 'm' is created here
    // CHECK-MESSAGES: :[[@LINE-4]]:29: note: the lambda made here captures 'm' by reference
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: no fix: the lambda is handed to 'parallel_for' and may run later or on several threads at once; rewrite the write outside the lambda
  });
  return m;
}

TORCH_TIDY_COMPILED at::Tensor name_escapes(const at::Tensor &vec) {
  auto m = torch::zeros({4, 4});
  auto fill = [&] { m.select(0, 1).copy_(vec); };
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'm' is created here
  // CHECK-MESSAGES: :[[@LINE-3]]:15: note: the lambda made here captures 'm' by reference
  // CHECK-MESSAGES: :[[@LINE-4]]:21: note: no fix: 'fill' is used other than by calling it here, so the lambda may run later or on several threads at once; rewrite the write outside the lambda
  run_later(fill);
  return m;
}

TORCH_TIDY_COMPILED at::Tensor nested(const at::Tensor &vec) {
  auto m = torch::zeros({4, 4});
  auto outer = [&] {
    auto inner = [&] { m.select(0, 1).copy_(vec); };
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: in-place copy_ into 'm'
    // CHECK-MESSAGES: :[[@LINE-4]]:12: note: 'm' is created here
    // CHECK-MESSAGES: :[[@LINE-4]]:16: note: the lambda made here captures 'm' by reference
    // CHECK-MESSAGES: :[[@LINE-4]]:24: note: no fix: the write is in a lambda inside another lambda
    inner();
  };
  outer();
  return m;
}

TORCH_TIDY_COMPILED at::Tensor through_a_view(const at::Tensor &vec) {
  auto m = torch::zeros({4, 4});
  auto row = m.select(0, 1);
  auto fill = [&] { row.copy_(vec); };
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: in-place copy_ into 'm'
  // CHECK-MESSAGES: :[[@LINE-4]]:12: note: 'm' is created here
  // CHECK-MESSAGES: :[[@LINE-3]]:15: note: the lambda made here captures 'row', a view of 'm'
  // CHECK-MESSAGES: :[[@LINE-4]]:21: note: no fix: the lambda does not capture 'm' itself, only 'row', a view of it
  fill();
  return m;
}

// Not reported: a value without grad, a lambda made under no_grad, and the
// lambda's own local, which the lambda's own analysis reports once.
TORCH_TIDY_COMPILED at::Tensor quiet(const at::Tensor &vec) {
  auto m = torch::zeros({4, 4});
  auto a = [&] { m.index_put_({0}, vec.detach()); };
  a();
  {
    torch::NoGradGuard guard;
    auto b = [&] { m.select(0, 1).copy_(vec); };
    b();
  }
  auto c = [&] {
    auto own = torch::zeros({4});
    own.index_put_({0}, vec);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place index_put_ into 'own'
    // CHECK-MESSAGES: :[[@LINE-3]]:16: note: 'own' is created here
    // CHECK-MESSAGES: :[[@LINE-5]]:12: note: the lambda runs inside torch.compile: it is reached from 'quiet' here
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: rule:
    return own;
  };
  return m + c();
}

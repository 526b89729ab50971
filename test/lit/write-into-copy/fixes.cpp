// RUN: %check_torch_tidy %s torch-write-into-copy %t
// The fixes: a write-back after the last write where a local holds the
// copy, else a check before the copy; neither where they cannot be placed.
#include <torch/torch.h>

void write_back(at::Tensor &out, const at::Tensor &x) {
  auto out_c = out.contiguous();
  out_c.add_(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (add_) is lost
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: write-back-copy
  // CHECK-FIXES: out_c.add_(x);
  // CHECK-FIXES-NEXT: out_c.mul_(2);
  out_c.mul_(2);
  // CHECK-FIXES-NEXT: {{^}}  if (!out_c.is_alias_of(out)){{$}}
  // CHECK-FIXES-NEXT: {{^}}    out.copy_(out_c);{{$}}
}

// After the dispatch macro's statement, which holds the last write.
void dispatch(at::Tensor &out) {
  auto c = out.contiguous();
  AT_DISPATCH_FLOATING_TYPES(c.scalar_type(), "fill", [&] {
    scalar_t *p = c.data_ptr<scalar_t>();
    for (int64_t i = 0; i < c.numel(); ++i)
      p[i] = 1;
  });
  // CHECK-MESSAGES: :[[@LINE-2]]:7: warning: write into 'out.contiguous()' (a write through data_ptr) is lost
  // CHECK-MESSAGES: :[[@LINE-2]]:6: note: the fix copies the result back here, after the last write
  // CHECK-MESSAGES: :[[@LINE-4]]:7: note: rule: write-back-copy
  // CHECK-FIXES: {{^}}  });
  // CHECK-FIXES-NEXT: {{^}}  if (!c.is_alias_of(out)){{$}}
  // CHECK-FIXES-NEXT: {{^}}    out.copy_(c);{{$}}
}

// reshape's copy has the new shape: written back as a view of the receiver.
void reshaped(at::Tensor &out) {
  auto flat = out.reshape({-1});
  flat.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.reshape({-1})' (zero_) is lost
  // CHECK-FIXES: if (!flat.is_alias_of(out))
  // CHECK-FIXES-NEXT: out.copy_(flat.view_as(out));
}

// expect_contiguous holds a MaybeOwned<Tensor>.
void maybe_owned(at::Tensor &out) {
  auto c = out.expect_contiguous();
  c->mul_(3);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.expect_contiguous()' (mul_) is lost
  // CHECK-FIXES: if (!c->is_alias_of(out))
  // CHECK-FIXES-NEXT: out.copy_(*c);
}

// Lines stay within 80 columns.
void long_names(at::Tensor &accumulated_output_values) {
  if (true) {
    if (true) {
      auto contiguous_accumulated = accumulated_output_values.contiguous();
      contiguous_accumulated.add_(1);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: write into 'accumulated_output_values.contiguous()' (add_) is lost
      // CHECK-FIXES: {{^}}      if (!contiguous_accumulated.is_alias_of(accumulated_output_values)){{$}}
      // CHECK-FIXES-NEXT: {{^}}        accumulated_output_values.copy_(contiguous_accumulated);{{$}}
    }
  }
}

// A temporary: no local to write back from, so a check before it.
void temporary(at::Tensor &out) {
  out.contiguous().add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (add_) is lost
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: check-no-copy
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: a check, not a write-back, because no local holds the copy: the operator then fails with an error where 'out' is not contiguous, instead of losing the write
  // CHECK-FIXES: TORCH_CHECK(out.is_contiguous(), "'out' must be contiguous");
  // CHECK-FIXES-NEXT: out.contiguous().add_(1);
}

void temporary_dtype(at::Tensor &out) {
  out.to(at::kFloat).clamp_min_(0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.to(at::kFloat)' (clamp_min_) is lost
  // CHECK-FIXES: {{^}}  TORCH_CHECK(out.scalar_type() == at::kFloat,{{$}}
  // CHECK-FIXES-NEXT: {{^}}              "'out' must be of dtype at::kFloat");{{$}}
  // CHECK-FIXES-NEXT: {{^}}  out.to(at::kFloat).clamp_min_(0);
}

// A return between the copy and its last write: a write-back after it
// would not run on that path; the copy is checked instead.
void early_return(at::Tensor &out, bool done) {
  auto c = out.contiguous();
  c.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.contiguous()' (zero_) is lost
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: rule: check-no-copy
  if (done)
    return;
  c.add_(1);
  // CHECK-FIXES: TORCH_CHECK(out.is_contiguous(), "'out' must be contiguous");
  // CHECK-FIXES-NEXT: auto c = out.contiguous();
}

// Neither fits: to(options) may copy for several reasons.
void options(at::Tensor &out) {
  out.to(out.options()).add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: write into 'out.to(out.options())' (add_) is lost
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: no local holds the copy, and to(options) may copy for several reasons a check would have to list
}

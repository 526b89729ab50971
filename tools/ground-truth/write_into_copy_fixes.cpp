// Kernels that write into a copy of their output argument, one per method
// and write form torch-write-into-copy fixes (write_into_copy_fixes.py runs
// the check's --fix on this file, then builds it with its driver against
// LibTorch and runs every kernel on a receiver that needs the copy and one
// that does not). Each kernel adds 1 to every element of `out`.
#include <ATen/ATen.h>

// write-back-copy: a local holds the copy.
void wb_add(at::Tensor &out) {
  auto c = out.contiguous();
  c.add_(1);
}

void wb_raw(at::Tensor &out) {
  auto c = out.contiguous();
  float *p = c.data_ptr<float>();
  for (int64_t i = 0; i < c.numel(); ++i)
    p[i] += 1;
}

void wb_dispatch(at::Tensor &out) {
  at::Tensor c = out.contiguous();
  AT_DISPATCH_FLOATING_TYPES(c.scalar_type(), "wb_dispatch", [&] {
    scalar_t *p = c.data_ptr<scalar_t>();
    for (int64_t i = 0; i < c.numel(); ++i)
      p[i] += 1;
  });
}

void wb_accessor(at::Tensor &out) {
  auto c = out.contiguous();
  auto a = c.accessor<float, 2>();
  for (int64_t i = 0; i < a.size(0); ++i)
    for (int64_t j = 0; j < a.size(1); ++j)
      a[i][j] += 1;
}

void wb_reshape(at::Tensor &out) {
  auto flat = out.reshape({-1});
  flat.add_(1);
}

void wb_flatten(at::Tensor &out) {
  auto flat = out.flatten();
  float *p = flat.data_ptr<float>();
  for (int64_t i = 0; i < flat.numel(); ++i)
    p[i] += 1;
}

void wb_expect(at::Tensor &out) {
  auto c = out.expect_contiguous();
  c->add_(1);
}

void wb_to_float(at::Tensor &out) {
  auto c = out.to(at::kFloat);
  c.add_(1);
}

void wb_to_type(at::Tensor &out) {
  auto c = out.toType(at::kFloat);
  c.add_(1);
}

void wb_channels_last(at::Tensor &out) {
  auto c = out.contiguous(at::MemoryFormat::ChannelsLast);
  c.add_(1);
}

void wb_options(at::Tensor &out) {
  auto c = out.to(out.options(), false, false, at::MemoryFormat::ChannelsLast);
  c.add_(1);
}

// check-no-copy: no local holds the copy.
void ck_add(at::Tensor &out) {
  TORCH_CHECK(out.defined(), "ck_add: no output");
  out.contiguous().add_(1);
}

void ck_to_float(at::Tensor &out) {
  TORCH_CHECK(out.defined(), "ck_to_float: no output");
  out.to(at::kFloat).add_(1);
}

void ck_channels_last(at::Tensor &out) {
  TORCH_CHECK(out.defined(), "ck_channels_last: no output");
  out.contiguous(at::MemoryFormat::ChannelsLast).add_(1);
}

void ck_to_type(at::Tensor &out) {
  TORCH_CHECK(out.defined(), "ck_to_type: no output");
  out.toType(at::kFloat).add_(1);
}

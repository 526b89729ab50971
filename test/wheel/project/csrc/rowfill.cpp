// fill_rows_ writes the rows of `out`, a mutable argument its compiled caller
// owns, from `values` (which may require grad): torch-tidy warns on the
// index_put_ and offers the out-of-place form.
#include <torch/library.h>
#include <torch/torch.h>

void fill_rows_(at::Tensor &out, const at::Tensor &rows,
                const at::Tensor &values) {
  out.index_put_({rows}, values);
}

TORCH_LIBRARY(rowfill, m) {
  m.def("fill_rows_(Tensor(a!) out, Tensor rows, Tensor values) -> ()",
        &fill_rows_);
}

// RUN: %check_torch_tidy %s torch-compile-requires-grad-propagation %t
// A file whose headers declare neither torch::arange nor at::arange gets no
// fix that would need one, and says why.
#include <initializer_list>
#include <torch_tidy/compiled.h>

namespace c10 {
class Scalar {
public:
  Scalar(double) {}
};
} // namespace c10
namespace at {
class Tensor {
public:
  Tensor();
  Tensor(const Tensor &);
  Tensor &operator=(const Tensor &) &;
  Tensor narrow(long dim, long start, long length) const;
  Tensor &copy_(const Tensor &src, bool non_blocking = false) const;
};
Tensor zeros(std::initializer_list<long> size);
} // namespace at

TORCH_TIDY_COMPILED at::Tensor rows(const at::Tensor &v) {
  auto c = at::zeros({4, 3});
  c.narrow(0, 1, 2).copy_(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place copy_ into 'c'
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix: neither torch::arange nor at::arange is declared in this file; include <ATen/ATen.h> to get a fix
  return c;
}

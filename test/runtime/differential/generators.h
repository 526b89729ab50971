// Seeded random case generators, one per op family.
#pragma once

#include "case.h"

namespace torch_tidy::differential {

class CaseGenerator {
public:
  /// device_safe: no out-of-range tensor indices and no order-dependent
  /// duplicate writes. LibTorch's CUDA kernels check indices with device
  /// asserts, which poison the CUDA context instead of raising.
  CaseGenerator(std::uint64_t seed, bool device_safe)
      : random_(seed), op_random_(seed ^ 0x6f70657261746f72ull),
        device_safe_(device_safe) {}

  /// The next case, cycling through the families.
  Case next();

  // One generator per op family (public so tests can target one).
  Case views();
  Case view_writes();
  Case factories();
  Case copy_fill();
  Case advanced_index();
  Case index_put();
  Case index_copy_fill_select();
  Case scatter_gather();
  Case masked();
  Case slice_select_scatter();
  Case arithmetic();
  Case sums();

private:
  // --- random building blocks (the shared vocabulary's draws, plus the
  // out-of-range and mismatched operands both sides must reject) ----------
  std::int64_t uniform(std::int64_t lo, std::int64_t hi) { // inclusive
    return random_.uniform(lo, hi);
  }
  bool chance(double p) { return random_.chance(p); }
  DType any_dtype();
  DType float_dtype();
  Shape shape(int min_dims, int max_dims);
  Array array(const Shape &shape, DType dtype, bool may_require_grad = true);
  /// A divisor: powers of two (and a share of zeros), so quotients of the
  /// dyadic values are exact and gradient sums do not depend on the order
  /// either side adds in (a float32 gradient of a float64 input is compared
  /// at float64's tolerance).
  void divisor_values(Array &a);
  Array index_tensor(const Shape &shape, std::int64_t size, bool unique);
  Array mask(const Shape &shape);
  std::int64_t dim_of(std::int64_t ndim); // sometimes out of range
  std::vector<ViewStep> view_chain(Shape shape, int steps);
  std::vector<IndexSpec> index_expression(const Shape &shape,
                                          bool tensors_and_full_slices_only);
  /// The shape an op gives on the runtime (the generator sizes its other
  /// operands from it); empty optional when the runtime rejects the op.
  std::optional<Shape> runtime_shape(const Case &c);
  /// The shape of what an op of `c` reads or writes: self through c.views.
  Shape target_shape(const Case &c);
  Shape broadcastable_to(const Shape &s);
  Case in_place_base(const std::string &family, const std::string &op,
                     Array self);

  programs::Random random_;
  programs::Random op_random_; ///< only for through_operator
  std::uint64_t counter_ = 0;
  bool device_safe_;
};

} // namespace torch_tidy::differential

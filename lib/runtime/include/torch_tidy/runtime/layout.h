// The explicit memory layout every kernel is written against (ggml-style):
// a base pointer, a dtype, and shape/strides/offset in elements.
#pragma once

#include "torch_tidy/runtime/dtype.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace torch_tidy::runtime {

using Shape = std::vector<std::int64_t>;

/// Kernels take plain-old-data so one struct crosses to CUDA unchanged.
constexpr int kMaxDims = 8;

struct StridedRef {
  void *data = nullptr; // start of the storage, not of the first element
  DType dtype = DType::Float32;
  int ndim = 0;
  std::int64_t sizes[kMaxDims] = {};
  std::int64_t strides[kMaxDims] = {};
  std::int64_t offset = 0; // in elements

  std::int64_t numel() const {
    std::int64_t n = 1;
    for (int d = 0; d < ndim; ++d)
      n *= sizes[d];
    return n;
  }
};

/// An iteration space shared by up to three operands of the same shape, with
/// dimensions merged where every operand is contiguous across them and size-1
/// dimensions dropped. Backends loop over this instead of the raw shapes, so a
/// contiguous tensor becomes one flat loop.
template <int N> struct LoopSpace {
  int ndim = 0;
  std::int64_t sizes[kMaxDims] = {};
  std::int64_t strides[N][kMaxDims] = {};
  std::int64_t offsets[N] = {};
  std::int64_t numel = 1;
};

/// Builds the loop space of operands that all have refs[0]'s sizes.
template <int N> LoopSpace<N> make_loop(const StridedRef *const (&refs)[N]) {
  LoopSpace<N> loop;
  const StridedRef &shape = *refs[0];
  for (int k = 0; k < N; ++k)
    loop.offsets[k] = refs[k]->offset;
  // Walk from the innermost dimension out, merging when possible.
  for (int d = shape.ndim - 1; d >= 0; --d) {
    std::int64_t size = shape.sizes[d];
    loop.numel *= size;
    if (size == 1)
      continue;
    bool merge = loop.ndim > 0;
    for (int k = 0; k < N && merge; ++k) {
      int inner = loop.ndim - 1;
      merge = refs[k]->strides[d] == loop.strides[k][inner] * loop.sizes[inner];
    }
    if (merge) {
      loop.sizes[loop.ndim - 1] *= size;
      continue;
    }
    for (int k = 0; k < N; ++k)
      loop.strides[k][loop.ndim] = refs[k]->strides[d];
    loop.sizes[loop.ndim++] = size;
  }
  // Stored innermost-first above; reverse into the usual outermost-first
  // order.
  for (int a = 0, b = loop.ndim - 1; a < b; ++a, --b) {
    std::swap(loop.sizes[a], loop.sizes[b]);
    for (int k = 0; k < N; ++k)
      std::swap(loop.strides[k][a], loop.strides[k][b]);
  }
  return loop;
}

} // namespace torch_tidy::runtime

// The CPU backend's strided loop: visits every element of a LoopSpace in
// row-major order, passing each operand's element offset.
#pragma once

#include "torch_tidy/runtime/layout.h"

#include <array>
#include <cstdint>

namespace torch_tidy::runtime::cpu {

template <int N, class Fn>
void for_each_offset(const LoopSpace<N> &loop, Fn &&fn) {
  std::array<std::int64_t, N> offsets;
  for (int k = 0; k < N; ++k)
    offsets[k] = loop.offsets[k];
  if (loop.numel == 0)
    return;
  if (loop.ndim == 0) {
    fn(offsets);
    return;
  }
  const int inner = loop.ndim - 1;
  const std::int64_t inner_size = loop.sizes[inner];
  std::int64_t inner_stride[N];
  for (int k = 0; k < N; ++k)
    inner_stride[k] = loop.strides[k][inner];
  std::int64_t counter[kMaxDims] = {};
  for (std::int64_t outer = loop.numel / inner_size; outer > 0; --outer) {
    std::array<std::int64_t, N> at = offsets;
    for (std::int64_t i = 0; i < inner_size; ++i) {
      fn(at);
      for (int k = 0; k < N; ++k)
        at[k] += inner_stride[k];
    }
    // Odometer increment over the outer dimensions.
    for (int d = inner - 1; d >= 0; --d) {
      for (int k = 0; k < N; ++k)
        offsets[k] += loop.strides[k][d];
      if (++counter[d] < loop.sizes[d])
        break;
      for (int k = 0; k < N; ++k)
        offsets[k] -= loop.strides[k][d] * loop.sizes[d];
      counter[d] = 0;
    }
  }
}

/// True when every operand is one dense run (the memcpy-able case).
template <int N> bool is_dense(const LoopSpace<N> &loop) {
  if (loop.ndim > 1)
    return false;
  for (int k = 0; k < N && loop.ndim == 1; ++k)
    if (loop.strides[k][0] != 1)
      return false;
  return true;
}

} // namespace torch_tidy::runtime::cpu

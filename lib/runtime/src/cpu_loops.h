// The CPU backend's strided loop: visits every element of a LoopSpace in
// row-major order, passing each operand's element offset.
#pragma once

#include "torch_tidy/runtime/layout.h"

#include <array>
#include <cstdint>

namespace torch_tidy::runtime::cpu {

/// Calls fn(offsets, n, strides) once per innermost run of the loop: the n
/// elements at offsets[k] + i * strides[k]. Kernels with a contiguous fast
/// path (memcpy-like rows) work on runs; the rest use for_each_offset.
template <int N, class Fn>
void for_each_run(const LoopSpace<N> &loop, Fn &&fn) {
  std::array<std::int64_t, N> offsets;
  std::array<std::int64_t, N> inner_stride{};
  for (int k = 0; k < N; ++k)
    offsets[k] = loop.offsets[k];
  if (loop.numel == 0)
    return;
  if (loop.ndim == 0) {
    fn(offsets, std::int64_t(1), inner_stride);
    return;
  }
  const int inner = loop.ndim - 1;
  const std::int64_t inner_size = loop.sizes[inner];
  for (int k = 0; k < N; ++k)
    inner_stride[k] = loop.strides[k][inner];
  std::int64_t counter[kMaxDims] = {};
  for (std::int64_t outer = loop.numel / inner_size; outer > 0; --outer) {
    fn(offsets, inner_size, inner_stride);
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

/// Calls fn(offsets) for every element, in row-major order.
template <int N, class Fn>
void for_each_offset(const LoopSpace<N> &loop, Fn &&fn) {
  for_each_run(loop, [&](std::array<std::int64_t, N> at, std::int64_t n,
                         const std::array<std::int64_t, N> &stride) {
    for (std::int64_t i = 0; i < n; ++i) {
      fn(at);
      for (int k = 0; k < N; ++k)
        at[k] += stride[k];
    }
  });
}

/// True when a run's strides are exactly `want` (e.g. {1, 0, 1}).
template <int N>
bool run_strides_are(const std::array<std::int64_t, N> &stride,
                     const std::array<std::int64_t, N> &want) {
  return stride == want;
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

// CPU kernels: single-threaded loops over the explicit layout.
#include "cpu_loops.h"

#include "torch_tidy/runtime/backend.h"
#include "torch_tidy/runtime/dtype_dispatch.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace torch_tidy::runtime {
namespace {

using cpu::for_each_offset;
using cpu::for_each_run;
using cpu::is_dense;

template <class T> T *typed(const StridedRef &ref) {
  return static_cast<T *>(ref.data);
}

// A 2-d copy where each side is contiguous along a different dim: walking
// either dim strides through the other side, so copy in cache-sized tiles.
bool is_transpose(const LoopSpace<2> &loop) {
  return loop.ndim == 2 && loop.strides[0][1] == 1 && loop.strides[1][0] == 1;
}

template <class To, class From>
void copy_tiled(const LoopSpace<2> &loop, To *out, const From *in) {
  constexpr std::int64_t tile = 32;
  const std::int64_t rows = loop.sizes[0], cols = loop.sizes[1];
  const std::int64_t out_row = loop.strides[0][0], in_col = loop.strides[1][1];
  out += loop.offsets[0];
  in += loop.offsets[1];
  for (std::int64_t r0 = 0; r0 < rows; r0 += tile)
    for (std::int64_t c0 = 0; c0 < cols; c0 += tile)
      for (std::int64_t r = r0; r < std::min(rows, r0 + tile); ++r)
        for (std::int64_t c = c0; c < std::min(cols, c0 + tile); ++c)
          out[r * out_row + c] = convert<To>(in[r + c * in_col]);
}

class CpuBackend final : public Backend {
public:
  void *allocate(std::size_t nbytes) override {
    // 64-byte alignment for vectorised loops.
    void *data = std::aligned_alloc(64, (nbytes + 63) / 64 * 64);
    if (!data)
      throw std::bad_alloc();
    return data;
  }
  void deallocate(void *data) override { std::free(data); }
  void upload(void *dst, const void *src, std::size_t nbytes) override {
    if (nbytes == 0) // empty vectors may hand over a null pointer
      return;
    std::memcpy(dst, src, nbytes);
  }
  void download(void *dst, const void *src, std::size_t nbytes) override {
    if (nbytes == 0) // empty vectors may hand over a null pointer
      return;
    std::memcpy(dst, src, nbytes);
  }
  void copy_bytes(void *dst, const void *src, std::size_t nbytes) override {
    if (nbytes == 0) // empty vectors may hand over a null pointer
      return;
    std::memcpy(dst, src, nbytes);
  }

  void copy(const StridedRef &dst, const StridedRef &src) override {
    auto loop = make_loop<2>({&dst, &src});
    if (dst.dtype == src.dtype && is_dense(loop)) {
      std::size_t size = element_size(dst.dtype);
      std::memmove(static_cast<char *>(dst.data) + loop.offsets[0] * size,
                   static_cast<char *>(src.data) + loop.offsets[1] * size,
                   loop.numel * size);
      return;
    }
    dispatch_dtype(dst.dtype, [&](auto to) {
      using To = typename decltype(to)::type;
      dispatch_dtype(src.dtype, [&](auto from) {
        using From = typename decltype(from)::type;
        To *out = typed<To>(dst);
        const From *in = typed<From>(src);
        if (is_transpose(loop)) {
          copy_tiled(loop, out, in);
          return;
        }
        for_each_offset(loop,
                        [&](auto o) { out[o[0]] = convert<To>(in[o[1]]); });
      });
    });
  }

  void fill(const StridedRef &dst, double value) override {
    auto loop = make_loop<1>({&dst});
    dispatch_dtype(dst.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T *out = typed<T>(dst);
      const T v = convert<T>(value);
      if (is_dense(loop)) {
        std::fill_n(out + loop.offsets[0], loop.numel, v);
        return;
      }
      for_each_offset(loop, [&](auto o) { out[o[0]] = v; });
    });
  }

  void binary(BinaryOp op, const StridedRef &out, const StridedRef &a,
              const StridedRef &b) override {
    auto loop = make_loop<3>({&out, &a, &b});
    dispatch_dtype(out.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T *o = typed<T>(out);
      const T *x = typed<T>(a);
      const T *y = typed<T>(b);
      for_each_offset(
          loop, [&](auto i) { o[i[0]] = apply_binary(op, x[i[1]], y[i[2]]); });
    });
  }

  void where_fill(const StridedRef &dst, const StridedRef &mask,
                  const StridedRef &value) override {
    auto loop = make_loop<3>({&dst, &mask, &value});
    dispatch_dtype(dst.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T *out = typed<T>(dst);
      const bool *m = typed<bool>(mask);
      const T *v = typed<T>(value);
      // A select, not a branch: a random mask mispredicts every other one.
      for_each_offset(
          loop, [&](auto i) { out[i[0]] = m[i[1]] ? v[i[2]] : out[i[0]]; });
    });
  }

  void accumulate(const StridedRef &dst, const StridedRef &src) override {
    auto loop = make_loop<2>({&dst, &src});
    dispatch_dtype(dst.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T *out = typed<T>(dst);
      const T *in = typed<T>(src);
      for_each_offset(loop,
                      [&](auto o) { out[o[0]] = T(out[o[0]] + in[o[1]]); });
    });
  }

  void gather(const StridedRef &out, const StridedRef &layout,
              const StridedRef &extra, std::int64_t scale) override {
    auto loop = make_loop<3>({&out, &layout, &extra});
    const std::int64_t *plus = typed<std::int64_t>(extra);
    dispatch_dtype(out.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T *o = typed<T>(out);
      const T *in = typed<T>(layout);
      for_each_run(loop, [&](auto at, std::int64_t n, const auto &stride) {
        if (cpu::run_strides_are<3>(stride, {1, 1, 0})) { // a row
          std::copy_n(in + at[1] + plus[at[2]] * scale, n, o + at[0]);
          return;
        }
        for (std::int64_t i = 0; i < n; ++i)
          o[at[0] + i * stride[0]] =
              in[at[1] + i * stride[1] + plus[at[2] + i * stride[2]] * scale];
      });
    });
  }

  void scatter(const StridedRef &layout, const StridedRef &extra,
               std::int64_t scale, const StridedRef &values,
               bool accumulate) override {
    auto loop = make_loop<3>({&layout, &extra, &values});
    const std::int64_t *plus = typed<std::int64_t>(extra);
    dispatch_dtype(layout.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T *out = typed<T>(layout);
      const T *in = typed<T>(values);
      for_each_run(loop, [&](auto at, std::int64_t n, const auto &stride) {
        if (!accumulate && cpu::run_strides_are<3>(stride, {1, 0, 0})) {
          std::fill_n(out + at[0] + plus[at[1]] * scale, n, in[at[2]]);
          return; // a row of one value (index_fill_, masked_fill_)
        }
        if (cpu::run_strides_are<3>(stride, {1, 0, 1})) { // a row
          T *row = out + at[0] + plus[at[1]] * scale;
          const T *from = in + at[2];
          if (accumulate)
            for (std::int64_t i = 0; i < n; ++i)
              row[i] = T(row[i] + from[i]);
          else
            std::copy_n(from, n, row);
          return;
        }
        for (std::int64_t i = 0; i < n; ++i) {
          T &slot =
              out[at[0] + i * stride[0] + plus[at[1] + i * stride[1]] * scale];
          T value = in[at[2] + i * stride[2]];
          slot = accumulate ? T(slot + value) : value;
        }
      });
    });
  }

  void add_index_term(const StridedRef &offsets, const StridedRef &index,
                      std::int64_t dim_size, std::int64_t stride) override {
    auto loop = make_loop<2>({&offsets, &index});
    std::int64_t *out = typed<std::int64_t>(offsets);
    const std::int64_t *in = typed<std::int64_t>(index);
    for_each_offset(loop, [&](auto o) {
      std::int64_t k = in[o[1]];
      out[o[0]] += (k < 0 ? k + dim_size : k) * stride;
    });
  }

  std::int64_t count_nonzero(const StridedRef &mask) override {
    std::int64_t count = 0;
    auto loop = make_loop<1>({&mask});
    dispatch_dtype(mask.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T *in = typed<T>(mask);
      for_each_offset(loop, [&](auto o) { count += in[o[0]] != T(0); });
    });
    return count;
  }

  void nonzero_flat(const StridedRef &mask, std::int64_t *out,
                    std::int64_t total) override {
    // Branch-free compaction: always write, advance only past nonzeros, so
    // a random mask costs no mispredictions. The last write may land one
    // past the count, so it goes through a one-element spill slot.
    auto loop = make_loop<1>({&mask});
    std::int64_t flat = 0, count = 0, spill = 0;
    dispatch_dtype(mask.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T *in = typed<T>(mask);
      for_each_offset(loop, [&](auto o) {
        std::int64_t *slot = count < total ? out + count : &spill;
        *slot = flat++;
        count += in[o[0]] != T(0);
      });
    });
  }

  std::pair<std::int64_t, std::int64_t>
  min_max(const StridedRef &values) override {
    auto loop = make_loop<1>({&values});
    const std::int64_t *in = typed<std::int64_t>(values);
    std::int64_t lo = in[loop.offsets[0]], hi = lo;
    for_each_offset(loop, [&](auto o) {
      lo = std::min(lo, in[o[0]]);
      hi = std::max(hi, in[o[0]]);
    });
    return {lo, hi};
  }
};

} // namespace

Backend &cpu_backend() {
  static CpuBackend backend;
  return backend;
}

} // namespace torch_tidy::runtime

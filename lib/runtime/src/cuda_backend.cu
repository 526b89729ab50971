// CUDA kernels: one thread per element over the same LoopSpace the CPU uses;
// Thrust for the counting, compaction and min/max passes.
#include "torch_tidy/runtime/backend.h"
#include "torch_tidy/runtime/dtype_dispatch.h"

#include <cuda_runtime.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <limits>

namespace torch_tidy::runtime {
namespace {

void check_cuda(cudaError_t status, const char *what) {
  TT_CHECK(status == cudaSuccess, "CUDA error in ", what, ": ",
           cudaGetErrorString(status));
}

// Element offsets of the `linear`-th element (row-major) for each operand.
template <int N>
__host__ __device__ void offsets_of(const LoopSpace<N> &loop,
                                    std::int64_t linear,
                                    std::int64_t (&out)[N]) {
  for (int k = 0; k < N; ++k)
    out[k] = loop.offsets[k];
  for (int d = loop.ndim - 1; d >= 0; --d) {
    std::int64_t i = linear % loop.sizes[d];
    linear /= loop.sizes[d];
    for (int k = 0; k < N; ++k)
      out[k] += i * loop.strides[k][d];
  }
}

template <int N, class Op>
__global__ void elementwise_kernel(LoopSpace<N> loop, Op op) {
  std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
       i < loop.numel; i += step) {
    std::int64_t o[N];
    offsets_of(loop, i, o);
    op(o);
  }
}

template <int N, class Op> void launch(const LoopSpace<N> &loop, Op op) {
  if (loop.numel == 0)
    return;
  constexpr int threads = 256;
  std::int64_t blocks =
      std::min<std::int64_t>((loop.numel + threads - 1) / threads, 65536);
  elementwise_kernel<N><<<unsigned(blocks), threads>>>(loop, op);
  check_cuda(cudaGetLastError(), "kernel launch");
}

// --- per-element operations ----------------------------------------------
template <class To, class From> struct CopyOp {
  To *out;
  const From *in;
  __device__ void operator()(const std::int64_t *o) const {
    out[o[0]] = convert<To>(in[o[1]]);
  }
};

template <class T> struct FillOp {
  T *out;
  T value;
  __device__ void operator()(const std::int64_t *o) const { out[o[0]] = value; }
};

template <class T> struct BinaryOpKernel {
  BinaryOp op;
  T *out;
  const T *a, *b;
  __device__ void operator()(const std::int64_t *o) const {
    out[o[0]] = apply_binary(op, a[o[1]], b[o[2]]);
  }
};

template <class T> struct WhereFillOp {
  T *out;
  const bool *mask;
  const T *value;
  __device__ void operator()(const std::int64_t *o) const {
    if (mask[o[1]])
      out[o[0]] = value[o[2]];
  }
};

// dst (+)= value where several threads may hit one element.
template <class T> __device__ void atomic_accumulate(T *slot, T value) {
  if constexpr (std::is_same_v<T, bool>) {
    if (value)
      *slot = true; // logical or: racing writers all write true
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long *>(slot),
              static_cast<unsigned long long>(value));
  } else {
    atomicAdd(slot, value);
  }
}

template <class T> struct AccumulateOp {
  T *out;
  const T *in;
  __device__ void operator()(const std::int64_t *o) const {
    atomic_accumulate(out + o[0], in[o[1]]);
  }
};

template <class T> struct GatherOp {
  T *out;
  const T *in;
  const std::int64_t *extra;
  std::int64_t scale;
  __device__ void operator()(const std::int64_t *o) const {
    out[o[0]] = in[o[1] + extra[o[2]] * scale];
  }
};

template <class T> struct ScatterOp {
  T *out;
  const std::int64_t *extra;
  std::int64_t scale;
  const T *in;
  bool accumulate;
  __device__ void operator()(const std::int64_t *o) const {
    T *slot = out + o[0] + extra[o[1]] * scale;
    if (accumulate)
      atomic_accumulate(slot, in[o[2]]);
    else
      *slot = in[o[2]];
  }
};

struct IndexTermOp {
  std::int64_t *out;
  const std::int64_t *index;
  std::int64_t dim_size, stride;
  __device__ void operator()(const std::int64_t *o) const {
    std::int64_t k = index[o[1]];
    out[o[0]] += (k < 0 ? k + dim_size : k) * stride;
  }
};

template <class T> struct IsNonzeroAt {
  LoopSpace<1> loop;
  const T *data;
  __device__ bool operator()(std::int64_t linear) const {
    std::int64_t o[1];
    offsets_of(loop, linear, o);
    return data[o[0]] != T(0);
  }
};

struct ValueAt {
  LoopSpace<1> loop;
  const std::int64_t *data;
  __device__ std::int64_t operator()(std::int64_t linear) const {
    std::int64_t o[1];
    offsets_of(loop, linear, o);
    return data[o[0]];
  }
};

template <class T> T *typed(const StridedRef &ref) {
  return static_cast<T *>(ref.data);
}

class CudaBackend final : public Backend {
public:
  void *allocate(std::size_t nbytes) override {
    void *data = nullptr;
    check_cuda(cudaMalloc(&data, nbytes), "cudaMalloc");
    return data;
  }
  void deallocate(void *data) override { cudaFree(data); }
  void upload(void *dst, const void *src, std::size_t nbytes) override {
    check_cuda(cudaMemcpy(dst, src, nbytes, cudaMemcpyHostToDevice), "upload");
  }
  void download(void *dst, const void *src, std::size_t nbytes) override {
    check_cuda(cudaMemcpy(dst, src, nbytes, cudaMemcpyDeviceToHost),
               "download");
  }
  void copy_bytes(void *dst, const void *src, std::size_t nbytes) override {
    check_cuda(cudaMemcpy(dst, src, nbytes, cudaMemcpyDeviceToDevice),
               "copy_bytes");
  }

  void copy(const StridedRef &dst, const StridedRef &src) override {
    auto loop = make_loop<2>({&dst, &src});
    dispatch_dtype(dst.dtype, [&](auto to) {
      using To = typename decltype(to)::type;
      dispatch_dtype(src.dtype, [&](auto from) {
        using From = typename decltype(from)::type;
        launch(loop, CopyOp<To, From>{typed<To>(dst), typed<From>(src)});
      });
    });
  }

  void fill(const StridedRef &dst, double value) override {
    auto loop = make_loop<1>({&dst});
    dispatch_dtype(dst.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      launch(loop, FillOp<T>{typed<T>(dst), convert<T>(value)});
    });
  }

  void binary(BinaryOp op, const StridedRef &out, const StridedRef &a,
              const StridedRef &b) override {
    auto loop = make_loop<3>({&out, &a, &b});
    dispatch_dtype(out.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      launch(loop,
             BinaryOpKernel<T>{op, typed<T>(out), typed<T>(a), typed<T>(b)});
    });
  }

  void where_fill(const StridedRef &dst, const StridedRef &mask,
                  const StridedRef &value) override {
    auto loop = make_loop<3>({&dst, &mask, &value});
    dispatch_dtype(dst.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      launch(loop,
             WhereFillOp<T>{typed<T>(dst), typed<bool>(mask), typed<T>(value)});
    });
  }

  void accumulate(const StridedRef &dst, const StridedRef &src) override {
    auto loop = make_loop<2>({&dst, &src});
    dispatch_dtype(dst.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      launch(loop, AccumulateOp<T>{typed<T>(dst), typed<T>(src)});
    });
  }

  void gather(const StridedRef &out, const StridedRef &layout,
              const StridedRef &extra, std::int64_t scale) override {
    auto loop = make_loop<3>({&out, &layout, &extra});
    dispatch_dtype(out.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      launch(loop, GatherOp<T>{typed<T>(out), typed<T>(layout),
                               typed<std::int64_t>(extra), scale});
    });
  }

  void scatter(const StridedRef &layout, const StridedRef &extra,
               std::int64_t scale, const StridedRef &values,
               bool accumulate) override {
    auto loop = make_loop<3>({&layout, &extra, &values});
    dispatch_dtype(layout.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      launch(loop, ScatterOp<T>{typed<T>(layout), typed<std::int64_t>(extra),
                                scale, typed<T>(values), accumulate});
    });
  }

  void add_index_term(const StridedRef &offsets, const StridedRef &index,
                      std::int64_t dim_size, std::int64_t stride) override {
    auto loop = make_loop<2>({&offsets, &index});
    launch(loop, IndexTermOp{typed<std::int64_t>(offsets),
                             typed<std::int64_t>(index), dim_size, stride});
  }

  std::int64_t count_nonzero(const StridedRef &mask) override {
    auto loop = make_loop<1>({&mask});
    return dispatch_dtype(mask.dtype, [&](auto tag) -> std::int64_t {
      using T = typename decltype(tag)::type;
      thrust::counting_iterator<std::int64_t> first(0);
      return thrust::count_if(thrust::device, first, first + loop.numel,
                              IsNonzeroAt<T>{loop, typed<T>(mask)});
    });
  }

  void nonzero_flat(const StridedRef &mask, std::int64_t *out,
                    std::int64_t) override {
    auto loop = make_loop<1>({&mask});
    dispatch_dtype(mask.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      thrust::counting_iterator<std::int64_t> first(0);
      thrust::copy_if(thrust::device, first, first + loop.numel, out,
                      IsNonzeroAt<T>{loop, typed<T>(mask)});
    });
  }

  std::pair<std::int64_t, std::int64_t>
  min_max(const StridedRef &values) override {
    auto loop = make_loop<1>({&values});
    ValueAt at{loop, typed<std::int64_t>(values)};
    thrust::counting_iterator<std::int64_t> first(0);
    std::int64_t lo =
        thrust::transform_reduce(thrust::device, first, first + loop.numel, at,
                                 std::numeric_limits<std::int64_t>::max(),
                                 thrust::minimum<std::int64_t>());
    std::int64_t hi =
        thrust::transform_reduce(thrust::device, first, first + loop.numel, at,
                                 std::numeric_limits<std::int64_t>::min(),
                                 thrust::maximum<std::int64_t>());
    return {lo, hi};
  }
};

} // namespace

Backend &cuda_backend() {
  static bool available = [] {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  }();
  TT_CHECK(available, "no CUDA device is available to this process");
  static CudaBackend backend;
  return backend;
}

bool cuda_backend_compiled() { return true; }

} // namespace torch_tidy::runtime

// Write-op throughput of the runtime against LibTorch on the same machine:
// per op, the runtime's time as a ratio of LibTorch's throughput (CPU, same
// thread count), and on a GPU each side's effective bandwidth as a fraction
// of the measured device-to-device copy bandwidth.
#include "torch_tidy/runtime/backend.h"
#include "torch_tidy/runtime/runtime.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace rt = torch_tidy::runtime;

namespace {

struct Workload {
  std::string name;
  double bytes; // bytes an ideal kernel reads + writes
  std::function<void()> runtime_op, torch_op;
};

bool on_cuda = false;

void synchronize() {
  if (on_cuda)
    torch::cuda::synchronize();
}

// Best of `reps` timings after one warm-up, in seconds.
double best_time(const std::function<void()> &op, int reps) {
  op();
  synchronize();
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto start = std::chrono::steady_clock::now();
    op();
    synchronize();
    best = std::min(best, std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - start)
                              .count());
  }
  return best;
}

std::vector<double> random_values(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double &x : v)
    x = dist(rng);
  return v;
}

std::vector<double> permutation_prefix(std::int64_t n, std::int64_t k,
                                       std::uint64_t seed) {
  std::vector<double> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), 0.0);
  std::shuffle(p.begin(), p.end(), std::mt19937_64(seed));
  p.resize(std::size_t(k));
  return p;
}

// The same host data as a runtime tensor and a LibTorch tensor.
struct Pair {
  rt::Tensor ours;
  torch::Tensor theirs;
};

Pair make(const std::vector<double> &values, const rt::Shape &shape,
          rt::DType dtype) {
  rt::Device device = on_cuda ? rt::Device::CUDA : rt::Device::CPU;
  torch::ScalarType type = dtype == rt::DType::Float32 ? torch::kFloat
                           : dtype == rt::DType::Int64 ? torch::kLong
                                                       : torch::kBool;
  Pair p;
  p.ours = rt::from_doubles(values, shape, {dtype, device});
  p.theirs = torch::tensor(values, torch::kDouble)
                 .reshape(shape)
                 .to(type)
                 .to(on_cuda ? torch::kCUDA : torch::kCPU);
  return p;
}

} // namespace

int main(int argc, char **argv) {
  std::int64_t rows = 2048, cols = 2048; // 4M float32 elements, 16 MiB
  int reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--device")
      on_cuda = std::string(argv[i + 1]) == "cuda";
    else if (flag == "--rows")
      rows = std::atoll(argv[i + 1]);
    else if (flag == "--cols")
      cols = std::atoll(argv[i + 1]);
    else if (flag == "--reps")
      reps = std::atoi(argv[i + 1]);
  }
  // The runtime's CPU backend is single-threaded: compare like with like.
  torch::set_num_threads(1);
  torch::NoGradGuard torch_no_grad;
  rt::NoGradGuard runtime_no_grad;
  const std::int64_t n = rows * cols, half = rows / 2;
  const double f = 4; // bytes per float32

  Pair dst = make(random_values(n, 1), {rows, cols}, rt::DType::Float32);
  Pair src = make(random_values(n, 2), {rows, cols}, rt::DType::Float32);
  Pair half_src =
      make(random_values(half * cols, 3), {half, cols}, rt::DType::Float32);
  Pair row_index =
      make(permutation_prefix(rows, half, 4), {half}, rt::DType::Int64);
  std::vector<double> repeated(static_cast<std::size_t>(half));
  std::mt19937_64 rng(5);
  for (double &r : repeated)
    r = double(rng() % std::uint64_t(rows));
  Pair row_index_dups = make(repeated, {half}, rt::DType::Int64);
  std::vector<double> bits(static_cast<std::size_t>(n));
  for (double &b : bits)
    b = double(rng() % 2);
  Pair mask = make(bits, {rows, cols}, rt::DType::Bool);
  std::vector<double> column_perm;
  for (std::int64_t r = 0; r < rows; ++r) {
    auto p = permutation_prefix(cols, cols, 100 + std::uint64_t(r));
    column_perm.insert(column_perm.end(), p.begin(), p.end());
  }
  Pair scatter_index = make(column_perm, {rows, cols}, rt::DType::Int64);
  using torch::indexing::TensorIndex;

  std::vector<Workload> workloads = {
      {"copy_", 2 * f * n, [&] { dst.ours.copy_(src.ours); },
       [&] { dst.theirs.copy_(src.theirs); }},
      {"copy_ (transposed src)", 2 * f * n,
       [&] { dst.ours.copy_(src.ours.transpose(0, 1)); },
       [&] { dst.theirs.copy_(src.theirs.t()); }},
      {"fill_", f * n, [&] { dst.ours.fill_(0.5); },
       [&] { dst.theirs.fill_(0.5); }},
      {"index_put_ (rows)", 2 * f * half * cols + 8 * half,
       [&] { dst.ours.index_put_({row_index.ours}, half_src.ours); },
       [&] {
         dst.theirs.index_put_({TensorIndex(row_index.theirs)},
                               half_src.theirs);
       }},
      {"index_put_ accumulate", 3 * f * half * cols + 8 * half,
       [&] { dst.ours.index_put_({row_index_dups.ours}, half_src.ours, true); },
       [&] {
         dst.theirs.index_put_(
             {std::optional<torch::Tensor>(row_index_dups.theirs)},
             half_src.theirs, true);
       }},
      {"index_copy_", 2 * f * half * cols + 8 * half,
       [&] { dst.ours.index_copy_(0, row_index.ours, half_src.ours); },
       [&] { dst.theirs.index_copy_(0, row_index.theirs, half_src.theirs); }},
      {"index_fill_", f * half * cols + 8 * half,
       [&] { dst.ours.index_fill_(0, row_index.ours, 2.0); },
       [&] { dst.theirs.index_fill_(0, row_index.theirs, 2.0); }},
      {"masked_fill_", f * n / 2 + n,
       [&] { dst.ours.masked_fill_(mask.ours, 3.0); },
       [&] { dst.theirs.masked_fill_(mask.theirs, 3.0); }},
      {"masked_scatter_", f * n + n,
       [&] { dst.ours.masked_scatter_(mask.ours, src.ours); },
       [&] { dst.theirs.masked_scatter_(mask.theirs, src.theirs); }},
      {"scatter_", 2 * f * n + 8 * n,
       [&] { dst.ours.scatter_(1, scatter_index.ours, src.ours); },
       [&] { dst.theirs.scatter_(1, scatter_index.theirs, src.theirs); }},
  };

  double copy_bandwidth = 0;
  if (on_cuda) {
    rt::Backend &cuda = rt::backend_for(rt::Device::CUDA);
    void *a = dst.ours.impl().storage->data();
    void *b = src.ours.impl().storage->data();
    double t =
        best_time([&] { cuda.copy_bytes(a, b, std::size_t(f * n)); }, reps);
    copy_bandwidth = 2 * f * n / t;
    std::printf("device-to-device copy bandwidth: %.1f GB/s\n",
                copy_bandwidth / 1e9);
  }
  std::printf("%lld x %lld float32, %s, best of %d, LibTorch threads %d\n",
              (long long)rows, (long long)cols, on_cuda ? "cuda" : "cpu", reps,
              torch::get_num_threads());
  std::printf("%-24s %12s %12s %10s%s\n", "op", "runtime ms", "LibTorch ms",
              "ratio", on_cuda ? "  runtime %copy-bw  LibTorch %copy-bw" : "");
  for (const Workload &w : workloads) {
    double ours = best_time(w.runtime_op, reps);
    double theirs = best_time(w.torch_op, reps);
    std::printf("%-24s %12.3f %12.3f %10.2f", w.name.c_str(), ours * 1e3,
                theirs * 1e3, theirs / ours);
    if (on_cuda)
      std::printf("  %17.0f%%  %17.0f%%", 100 * w.bytes / ours / copy_bandwidth,
                  100 * w.bytes / theirs / copy_bandwidth);
    std::printf("\n");
  }
  return 0;
}

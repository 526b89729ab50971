// Compile-and-run half of the fix-it tests (test/fixits/run_fixits.py).
//
// One translation unit holds the cases twice: the untouched copy in namespace
// `original` and the copy torch-tidy --fix rewrote in namespace `fixed`. For
// every case a driver draws random shapes and dtypes (fixed seed), runs both
// versions on equal inputs whose `v` requires grad, and requires equal
// values, equal gradients w.r.t. `v` and a fixed result that requires grad.
// A draw whose `v` is not exactly the written region's shape (a broadcast,
// or leading size-1 dims that setitem strips) is *unusual*: the default's
// short fixes assume it away and may throw on it, as their notes say, but
// must never give other values; with TT_STRICT=1 (StrictFixes) no throw is
// allowed.
//
//   harness [CASE...]   runs the named cases (all drivers when none given);
//                       a name without a driver is a failure.
//
// The last line is always `N passed, M failed`; the exit status is non-zero
// on any failure.
#define TT_NS original
#include "original/cases.cpp"
#undef TT_NS
#define TT_NS fixed
#include "fixed/cases.cpp"
#undef TT_NS

#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef TT_STRICT
#define TT_STRICT 0
#endif

namespace {

constexpr int DrawsPerCase = 6;
// Set by the drawing helpers when the current draw is unusual (see above);
// counted when a fix throws on it.
bool Unusual = false;
int LoudThrows = 0;
constexpr uint64_t Seed = 20240611;

// Shapes and dtypes come from one std::mt19937 so a failing draw can be
// replayed; tensor contents come from LibTorch's seeded generator.
class Draw {
public:
  explicit Draw(std::mt19937 &Rng, int Index) : Rng(Rng), Index(Index) {}

  int64_t range(int64_t Lo, int64_t Hi) {
    return std::uniform_int_distribution<int64_t>(Lo, Hi)(Rng);
  }
  bool coin() { return range(0, 1) == 1; }
  template <typename T> T pick(std::vector<T> Choices) {
    return Choices[range(0, static_cast<int64_t>(Choices.size()) - 1)];
  }

  // Alternates so every case sees both float dtypes within a few draws.
  at::ScalarType floatType() const {
    return Index % 2 == 0 ? at::kFloat : at::kDouble;
  }
  at::Tensor value(at::IntArrayRef Sizes) {
    return torch::randn(Sizes, torch::dtype(floatType()));
  }
  // K distinct rows of R, some spelled negatively (advanced indexing wraps).
  at::Tensor distinctRows(int64_t K, int64_t R, bool AllowNegative) {
    auto Rows = torch::randperm(R, torch::kLong).slice(0, 0, K);
    if (AllowNegative)
      Rows = torch::where(torch::rand({K}) < 0.5, Rows - R, Rows);
    return Rows;
  }
  at::Tensor rowsWithRepeats(int64_t K, int64_t R) {
    return torch::randint(0, R, {K}, torch::kLong);
  }
  at::Tensor mask(int64_t R, int64_t C) { return torch::rand({R, C}) < 0.5; }

private:
  std::mt19937 &Rng;
  int Index;
};

std::string describe(const at::Tensor &T) {
  std::ostringstream OS;
  OS << T.sizes() << " " << T.scalar_type();
  return OS.str();
}

// The largest difference, when the shapes allow one.
std::string difference(const at::Tensor &A, const at::Tensor &B) {
  if (A.sizes() != B.sizes())
    return "";
  auto Diff = (A.detach().to(at::kDouble) - B.detach().to(at::kDouble)).abs();
  return ", max |difference| " + std::to_string(Diff.max().item<double>());
}

bool close(const at::Tensor &A, const at::Tensor &B) {
  if (A.sizes() != B.sizes() || A.scalar_type() != B.scalar_type())
    return false;
  double Atol = A.scalar_type() == at::kDouble ? 1e-12 : 1e-6;
  return torch::allclose(A, B, /*rtol=*/1e-6, Atol);
}

// Says which side threw: an original that throws means the case's inputs
// (or the case itself) are wrong, not the fix.
template <typename Call> at::Tensor run(const char *Side, Call Fn) {
  try {
    return Fn();
  } catch (const std::exception &E) {
    throw std::runtime_error(std::string(Side) + " throws: " + E.what());
  }
}

// Runs Original and Fixed on a fresh leaf copy of V each and throws on the
// first difference.
template <typename Original, typename Fixed, typename... Args>
void compare(Original RunOriginal, Fixed RunFixed, const at::Tensor &V,
             const Args &...Rest) {
  auto V0 = V.detach().clone().requires_grad_();
  auto V1 = V.detach().clone().requires_grad_();
  at::Tensor Out0 = run("original", [&] { return RunOriginal(V0, Rest...); });
  at::Tensor Out1;
  try {
    Out1 = RunFixed(V1, Rest...);
  } catch (const std::exception &E) {
    if (Unusual && !TT_STRICT) {
      ++LoudThrows; // loud, as the fix's note says; never silent
      return;
    }
    throw std::runtime_error(std::string("fixed throws: ") + E.what());
  }
  if (!close(Out0.detach(), Out1.detach()))
    throw std::runtime_error("values differ: original " + describe(Out0) +
                             ", fixed " + describe(Out1) +
                             difference(Out0, Out1));
  if (!Out1.requires_grad())
    throw std::runtime_error("fixed result does not require grad");
  if (!Out0.requires_grad())
    throw std::runtime_error("original result does not require grad");
  auto W = torch::randn_like(Out0);
  auto G0 = torch::autograd::grad({(Out0 * W).sum()}, {V0})[0];
  auto G1 = torch::autograd::grad({(Out1 * W).sum()}, {V1})[0];
  if (!close(G0, G1))
    throw std::runtime_error("gradients w.r.t. v differ");
}

// Both namespaces' version of one case function, as callables.
#define BOTH(Fn)                                                               \
  [](auto &&...A) { return original::Fn(A...); },                              \
      [](auto &&...A) { return fixed::Fn(A...); }

// Leading size-1 dims on a value are stripped by setitem; drivers whose case
// says so sometimes add one.
at::Tensor maybeLeadingOne(Draw &D, const at::Tensor &V) {
  if (!D.coin())
    return V;
  Unusual = true;
  return V.unsqueeze(0);
}

// A value of the written region's shape, or one of the broadcast shapes
// copy_ accepts (an unusual draw).
at::Tensor regionOrBroadcast(Draw &D, std::vector<int64_t> Region,
                             std::vector<std::vector<int64_t>> Broadcasts) {
  Broadcasts.insert(Broadcasts.begin(), Region);
  auto Shape = D.pick(Broadcasts);
  Unusual |= Shape != Region;
  return D.value(Shape);
}

using Driver = std::function<void(Draw &)>;

// One driver per case function in cases.cpp, each drawing the inputs its
// comment there describes.
const std::map<std::string, Driver> &drivers() {
  static const std::map<std::string, Driver> Drivers = {
      {"skew_symmetric",
       [](Draw &D) {
         int64_t N = D.range(2, 6), B = D.range(1, 4);
         compare(BOTH(skew_symmetric), D.value({B, N * (N - 1) / 2}), N);
       }},
      {"index_put_strip",
       [](Draw &D) {
         int64_t N = D.range(2, 6), B = D.range(1, 4);
         auto V = maybeLeadingOne(D, D.value({B, N * (N - 1) / 2}));
         compare(BOTH(index_put_strip), V, N);
       }},
      {"skew_checked",
       [](Draw &D) {
         int64_t N = D.range(2, 6), B = D.range(1, 4);
         compare(BOTH(skew_checked), D.value({B, N * (N - 1) / 2}), N);
       }},
      {"skew_batched",
       [](Draw &D) {
         int64_t N = D.range(2, 6), B = D.range(1, 4), K = N * (N - 1) / 2;
         auto V = D.pick<std::vector<int64_t>>({{B, K}, {B, 1, K}});
         compare(BOTH(skew_batched), D.value(V), N);
       }},
      {"index_put_gathered",
       [](Draw &D) {
         int64_t N = D.range(1, 6), K = D.range(1, 8);
         compare(BOTH(index_put_gathered), D.value({N}),
                 D.rowsWithRepeats(K, N));
       }},
      {"subscript_tensor",
       [](Draw &D) {
         int64_t R = D.range(1, 6), C = D.range(1, 4);
         auto Row = D.distinctRows(1, R, true).reshape({});
         compare(BOTH(subscript_tensor), regionOrBroadcast(D, {C}, {{1}}), Row,
                 R);
       }},
      {"index_put_list",
       [](Draw &D) {
         int64_t R = D.range(1, 6), K = D.range(1, 8);
         compare(BOTH(index_put_list), D.value({K}), D.rowsWithRepeats(K, R),
                 R);
       }},
      {"at_index_put",
       [](Draw &D) {
         int64_t R = D.range(1, 6), K = D.range(1, R);
         compare(BOTH(at_index_put), D.value({K}), D.distinctRows(K, R, true),
                 R);
       }},
      {"index_put_int",
       [](Draw &D) {
         int64_t R = D.range(2, 5), C = D.range(1, 4);
         compare(BOTH(index_put_int), maybeLeadingOne(D, D.value({C})), R);
       }},
      {"index_assign_step",
       [](Draw &D) {
         // Slice(1, -1, 2) of R rows keeps rows 1, 3, ... < R - 1.
         int64_t R = D.range(3, 8), C = D.range(1, 4), K = (R - 1) / 2;
         // copy_ into the view broadcasts but strips nothing: no [1, K, C].
         compare(BOTH(index_assign_step),
                 regionOrBroadcast(D, {K, C}, {{1, C}, {C}}), R);
       }},
      {"index_put_none",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 4);
         compare(BOTH(index_put_none), D.value({C}), R);
       }},
      {"subscript_int",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 4);
         compare(BOTH(subscript_int), D.value({C}), R);
       }},
      {"named_view_copy",
       [](Draw &D) {
         int64_t R = D.range(2, 5); // narrow(0, 0, 2) needs R >= 2
         compare(BOTH(named_view_copy),
                 regionOrBroadcast(D, {2, 3}, {{3}, {1, 3}}), R);
       }},
      {"view_chain_copy",
       [](Draw &D) {
         int64_t R = D.range(2, 5), C = D.range(1, 5), N = D.range(1, C);
         compare(BOTH(view_chain_copy), D.value({N}), R, C);
       }},
      {"transposed_copy",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 5);
         compare(BOTH(transposed_copy), D.value({C}), R);
       }},
      {"slice_squeeze_copy",
       [](Draw &D) {
         int64_t R = D.range(2, 5), C = D.range(1, 5);
         compare(BOTH(slice_squeeze_copy), D.value({C}), R);
       }},
      {"named_column_copy",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 5), K = D.range(-C, C - 1);
         compare(BOTH(named_column_copy), D.value({R}), C, K);
       }},
      {"named_narrow_squeeze",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 5), I = D.range(-R, R - 1);
         compare(BOTH(named_narrow_squeeze), D.value({C}), R, I);
       }},
      {"transposed_narrow",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 5), N = D.range(1, R);
         compare(BOTH(transposed_narrow), D.value({N}), R, C);
       }},
      {"named_narrow_mul",
       [](Draw &D) {
         int64_t R = D.range(3, 5), C = D.range(1, 5);
         auto V = D.pick<std::vector<int64_t>>({{2, C}, {C}});
         compare(BOTH(named_narrow_mul), D.value(V), R);
       }},
      {"row_add_col_sub",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 5);
         compare(BOTH(row_add_col_sub), D.value({C}), R);
       }},
      {"compound_assign",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 5);
         compare(BOTH(compound_assign), D.value({C}), R);
       }},
      {"div_and_clamp",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 5);
         compare(BOTH(div_and_clamp), D.value({C}), R);
       }},
      {"view_fill",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 5);
         compare(BOTH(view_fill), D.value({}), R, C);
       }},
      {"slice_copy_cast",
       [](Draw &D) {
         int64_t R = D.range(2, 5), C = D.range(1, 4);
         compare(BOTH(slice_copy_cast),
                 regionOrBroadcast(D, {2, C}, {{1, C}, {C}}), R);
       }},
      {"narrow_copy",
       [](Draw &D) {
         int64_t R = D.range(3, 6), C = D.range(1, 4);
         compare(BOTH(narrow_copy),
                 regionOrBroadcast(D, {R - 2, C}, {{1, C}, {C}}), R);
       }},
      {"select_copy",
       [](Draw &D) {
         int64_t R = D.range(2, 5), C = D.range(1, 4);
         // The target's width is v's last size, so [1] is a width-1 target.
         auto V = D.pick<std::vector<int64_t>>({{C}, {1}});
         compare(BOTH(select_copy), D.value(V), R);
       }},
      {"demo_row",
       [](Draw &D) {
         int64_t R = D.range(2, 5), E = D.range(1, 3), Dim = D.range(1, 4);
         compare(BOTH(demo_row), D.value({E, Dim}), R);
       }},
      {"row_slice",
       [](Draw &D) {
         int64_t R = D.range(1, 4), C = D.range(2, 6), N = D.range(1, C - 1);
         compare(BOTH(row_slice), regionOrBroadcast(D, {N}, {{1}}), R, C);
       }},
      {"ellipsis_slice",
       [](Draw &D) {
         int64_t R = D.range(1, 4), C = D.range(1, 6);
         compare(BOTH(ellipsis_slice),
                 maybeLeadingOne(D, D.value({R, (C + 1) / 2})), R, C);
       }},
      {"narrow_variable",
       [](Draw &D) {
         // Starts in [0, R - S] or [-R, -S]: negative ones count from the
         // end, and start + S == 0 is where the short fix throws.
         int64_t R = D.range(1, 5), S = D.range(1, R), C = D.range(1, 3);
         int64_t Start = D.coin() ? D.range(0, R - S) : D.range(-R, -S);
         Unusual |= Start < 0 && Start + S == 0;
         compare(BOTH(narrow_variable), D.value({S, C}), R, Start);
       }},
      {"three_views",
       [](Draw &D) {
         int64_t R = D.range(1, 4), C = D.range(1, 4);
         compare(BOTH(three_views), D.value({C}), R);
       }},
      {"index_copy",
       [](Draw &D) {
         int64_t R = D.range(1, 6), K = D.range(1, R), C = D.range(1, 4);
         compare(BOTH(index_copy), D.value({K, C}), D.distinctRows(K, R, false),
                 R);
       }},
      {"masked_scatter",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 5);
         auto Mask = D.mask(R, C);
         int64_t Extra = D.range(0, 3);
         auto V = D.coin() ? D.value({R, C})
                           : D.value({Mask.sum().item<int64_t>() + Extra});
         compare(BOTH(masked_scatter), V, Mask);
       }},
      {"scatter",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 4);
         // A permutation of the rows per column: no two sources collide.
         auto Idx = torch::rand({R, C}).argsort(/*dim=*/int64_t{0});
         compare(BOTH(scatter), D.value({R, C}), Idx);
       }},
      {"masked_fill",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 5);
         compare(BOTH(masked_fill), D.value({}), D.mask(R, C));
       }},
      {"index_fill",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 4), K = D.range(1, 4);
         compare(BOTH(index_fill), D.value({}), D.rowsWithRepeats(K, R), R, C);
       }},
      {"seed_options_chain",
       [](Draw &D) {
         int64_t N = D.range(2, 6), B = D.range(1, 4);
         compare(BOTH(seed_options_chain), D.value({B, N * (N - 1) / 2}), N);
       }},
      {"options_variable",
       [](Draw &D) {
         int64_t R = D.range(3, 6), C = D.range(1, 4);
         compare(BOTH(options_variable),
                 regionOrBroadcast(D, {R - 2, C}, {{1, C}, {C}}), R);
       }},
      {"lambda_by_reference",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 4);
         auto V = D.pick<std::vector<int64_t>>({{C}, {1}});
         compare(BOTH(lambda_by_reference), D.value(V), R);
       }},
      {"lambda_by_value",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 4);
         compare(BOTH(lambda_by_value), D.value({C}), R);
       }},
      {"result_used",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 4);
         compare(BOTH(result_used), D.value({C}), R);
       }},
      {"aliased",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 4);
         compare(BOTH(aliased), D.value({C}), R);
       }},
      {"aliased_const",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 4);
         compare(BOTH(aliased_const), D.value({C}), R);
       }},
      {"named_view_read_after",
       [](Draw &D) {
         int64_t R = D.range(3, 5); // narrow(0, 1, 2) needs R >= 3
         compare(BOTH(named_view_read_after),
                 regionOrBroadcast(D, {2, 3}, {{3}, {1, 3}}), R);
       }},
      {"two_views_read_after",
       [](Draw &D) {
         int64_t R = D.range(1, 5), C = D.range(1, 4);
         compare(BOTH(two_views_read_after), D.value({C}), R);
       }},
  };
  return Drivers;
}

// Runs every draw of one case; returns the first failure's text, or "".
std::string runCase(const Driver &Drive) {
  std::mt19937 Rng(Seed);
  torch::manual_seed(Seed);
  for (int I = 0; I < DrawsPerCase; ++I) {
    Draw D(Rng, I);
    Unusual = false;
    try {
      Drive(D);
    } catch (const std::exception &E) {
      std::string What = E.what();
      // LibTorch appends a C++ backtrace; its first line says enough.
      What = What.substr(0, What.find('\n'));
      return "draw " + std::to_string(I) + " (" + c10::toString(D.floatType()) +
             "): " + What;
    }
  }
  return "";
}

} // namespace

int main(int Argc, char **Argv) {
  std::vector<std::string> Names(Argv + 1, Argv + Argc);
  if (Names.empty())
    for (const auto &Entry : drivers())
      Names.push_back(Entry.first);
  int Passed = 0, Failed = 0;
  for (const auto &Name : Names) {
    auto It = drivers().find(Name);
    LoudThrows = 0;
    std::string Failure = It == drivers().end()
                              ? "no driver in harness.cpp for this case"
                              : runCase(It->second);
    if (Failure.empty()) {
      ++Passed;
      std::printf("PASS %s (%d draws", Name.c_str(), DrawsPerCase);
      if (LoudThrows)
        std::printf(", the fix threw on %d unusual value(s)", LoudThrows);
      std::printf(")\n");
    } else {
      ++Failed;
      std::printf("FAIL %s: %s\n", Name.c_str(), Failure.c_str());
    }
  }
  std::printf("%d passed, %d failed\n", Passed, Failed);
  return Failed == 0 ? 0 : 1;
}

// Compile-and-run half of test/fixits-more (see run_fixits_more.py): the
// untouched cases in namespace `original`, the --fix output in `fixed`.
// Prints one line per check and `N passed, M failed`; non-zero exit on any
// failure.
#define TT_NS original
#include "original/cases.cpp"
#undef TT_NS
#define TT_NS fixed
#include "fixed/cases.cpp"
#undef TT_NS

#include <cstdio>
#include <functional>
#include <string>

namespace {
int Passed = 0, Failed = 0;

void expect(bool Ok, const std::string &What) {
  std::printf("%s %s\n", Ok ? "ok  " : "FAIL", What.c_str());
  (Ok ? Passed : Failed)++;
}

bool same(const at::Tensor &A, const at::Tensor &B) {
  return A.sizes() == B.sizes() && at::equal(A, B);
}

/// An index-assign case: the original leaves `t` unchanged, the fixed copy
/// gives the reference result (built with explicit element writes).
void indexCase(const std::string &Name,
               const std::function<void(at::Tensor)> &Original,
               const std::function<void(at::Tensor)> &Fixed,
               const at::Tensor &Start, const at::Tensor &Reference) {
  at::Tensor A = Start.clone();
  Original(A);
  expect(same(A, Start), Name + ": original leaves t unchanged");
  at::Tensor B = Start.clone();
  Fixed(B);
  expect(same(B, Reference), Name + ": fixed writes into t as intended");
  expect(!same(Reference, Start), Name + ": the case changes t at all");
}

/// A leaf case: the original throws autograd's leaf error, the fixed copy
/// returns the intended values as a leaf that requires grad and still
/// takes gradients.
void leafCase(const std::string &Name,
              const std::function<at::Tensor()> &Original,
              const std::function<at::Tensor()> &Fixed,
              const at::Tensor &Expected) {
  std::string Message;
  try {
    Original();
  } catch (const c10::Error &E) {
    Message = E.what();
  }
  expect(Message.find("a leaf Variable that requires grad") !=
             std::string::npos,
         Name + ": original throws the leaf error");
  try {
    at::Tensor W = Fixed();
    expect(same(W.detach(), Expected), Name + ": fixed gives the values");
    expect(W.requires_grad() && W.is_leaf(),
           Name + ": fixed result is a leaf that requires grad");
    (W * W).sum().backward();
    expect(W.grad().defined() && at::allclose(W.grad(), 2 * Expected),
           Name + ": gradients flow into it");
  } catch (const c10::Error &E) {
    expect(false,
           Name + ": fixed throws: " + std::string(E.what()).substr(0, 200));
  }
}
} // namespace

int main() {
  torch::manual_seed(7);
  using namespace torch::indexing;
  {
    at::Tensor T = torch::randn({2, 4, 4});
    at::Tensor Rows = torch::tensor({0, 1, 2}, torch::kLong);
    at::Tensor Cols = torch::tensor({1, 2, 3}, torch::kLong);
    at::Tensor V = torch::randn({2, 3});
    at::Tensor Ref = T.clone();
    for (int B = 0; B < 2; ++B)
      for (int K = 0; K < 3; ++K)
        Ref[B][Rows[K].item<int64_t>()][Cols[K].item<int64_t>()].fill_(
            V[B][K].item());
    indexCase(
        "assign_rows_cols",
        [&](at::Tensor X) { original::assign_rows_cols(X, Rows, Cols, V); },
        [&](at::Tensor X) { fixed::assign_rows_cols(X, Rows, Cols, V); }, T,
        Ref);
  }
  at::Tensor T = torch::randn({5, 3});
  at::Tensor Mask = T > 0;
  at::Tensor Idx = torch::tensor({4, 0, 2}, torch::kLong);
  {
    at::Tensor Ref = T.clone();
    for (int I = 0; I < 5; ++I)
      for (int J = 0; J < 3; ++J)
        if (Mask[I][J].item<bool>())
          Ref[I][J].fill_(0);
    indexCase(
        "assign_mask_scalar",
        [&](at::Tensor X) { original::assign_mask_scalar(X, Mask); },
        [&](at::Tensor X) { fixed::assign_mask_scalar(X, Mask); }, T, Ref);
  }
  {
    int64_t N = Mask.sum().item<int64_t>();
    at::Tensor V = torch::arange(N, torch::kFloat) + 10;
    at::Tensor Ref = T.clone();
    int64_t K = 0;
    for (int I = 0; I < 5; ++I)
      for (int J = 0; J < 3; ++J)
        if (Mask[I][J].item<bool>())
          Ref[I][J].fill_(V[K++].item());
    indexCase(
        "copy_mask", [&](at::Tensor X) { original::copy_mask(X, Mask, V); },
        [&](at::Tensor X) { fixed::copy_mask(X, Mask, V); }, T, Ref);
  }
  {
    at::Tensor Ref = T.clone();
    for (int K = 0; K < 3; ++K)
      Ref[Idx[K].item<int64_t>()].fill_(0);
    indexCase(
        "zero_idx", [&](at::Tensor X) { original::zero_idx(X, Idx); },
        [&](at::Tensor X) { fixed::zero_idx(X, Idx); }, T, Ref);
    at::Tensor Ref2 = T.clone();
    for (int K = 0; K < 3; ++K)
      Ref2[Idx[K].item<int64_t>()].fill_(2.5);
    indexCase(
        "fill_idx", [&](at::Tensor X) { original::fill_idx(X, Idx); },
        [&](at::Tensor X) { fixed::fill_idx(X, Idx); }, T, Ref2);
    at::Tensor V = torch::randn({3}, torch::kDouble); // T is float
    at::Tensor Ref3 = T.clone();
    for (int K = 0; K < 3; ++K)
      Ref3[Idx[K].item<int64_t>()].copy_(V);
    indexCase(
        "copy_idx_other_dtype",
        [&](at::Tensor X) { original::copy_idx_other_dtype(X, Idx, V); },
        [&](at::Tensor X) { fixed::copy_idx_other_dtype(X, Idx, V); }, T, Ref3);
  }
  {
    at::Tensor U = torch::randn({2, 3, 5});
    at::Tensor V = torch::randn({3, 3}); // broadcast over the batch dim
    at::Tensor Ref = U.clone();
    for (int B = 0; B < 2; ++B)
      for (int I = 0; I < 3; ++I)
        for (int K = 0; K < 3; ++K)
          Ref[B][I][Idx[K].item<int64_t>()].fill_(V[I][K].item());
    indexCase(
        "assign_last_dim",
        [&](at::Tensor X) { original::assign_last_dim(X, Idx, V); },
        [&](at::Tensor X) { fixed::assign_last_dim(X, Idx, V); }, U, Ref);
  }

  leafCase("leaf_fill", original::leaf_fill, fixed::leaf_fill,
           torch::full({3}, 1.5));
  at::Tensor Src = torch::randn({2, 3});
  leafCase(
      "leaf_copy", [&] { return original::leaf_copy(Src); },
      [&] { return fixed::leaf_copy(Src); }, Src);
  leafCase(
      "leaf_setitem_after_requires_grad",
      [] { return original::leaf_setitem_after_requires_grad(4.0); },
      [] { return fixed::leaf_setitem_after_requires_grad(4.0); },
      torch::tensor({0.0, 4.0, 0.0, 0.0}));
  leafCase("leaf_two_writes", original::leaf_two_writes, fixed::leaf_two_writes,
           torch::full({3}, 3.0));
  at::Tensor Src2 = torch::randn({2, 3});
  at::Tensor Ref = torch::zeros({3, 3});
  Ref.slice(0, 0, 2).copy_(Src2);
  leafCase(
      "leaf_slice_copy", [&] { return original::leaf_slice_copy(Src2); },
      [&] { return fixed::leaf_slice_copy(Src2); }, Ref);

  std::printf("%d passed, %d failed\n", Passed, Failed);
  return Failed ? 1 : 0;
}

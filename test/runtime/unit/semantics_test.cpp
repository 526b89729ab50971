// The rules where torch versions differ (TorchSemantics): each checked under
// 2.8's semantics and the newest's, with the values torch 2.8.0 and 2.15.0
// give (the differential suite compares every random case with both).
#include "test_util.h"

namespace torch_tidy::runtime {
namespace {

using testing::f32;
using testing::iota;
using testing::mask;

const TorchSemantics torch_2_8{2, 8}, torch_2_15{2, 15};

TEST(Semantics, VersionsOfEachRule) {
  EXPECT_FALSE(torch_2_8.mask_takes_each_dim());
  EXPECT_FALSE((TorchSemantics{2, 10}.mask_takes_each_dim()));
  EXPECT_TRUE((TorchSemantics{2, 11}.mask_takes_each_dim()));
  EXPECT_FALSE((TorchSemantics{2, 11}.clamp_splits_ties()));
  EXPECT_TRUE(torch_2_15.clamp_splits_ties());
  EXPECT_TRUE((TorchSemantics{3, 0}.clamp_splits_ties()));
  // 2.8 unless a guard says otherwise; the guard restores it.
  {
    SemanticsGuard newest(torch_2_15);
    EXPECT_EQ(torch_semantics().minor, 15);
  }
  EXPECT_EQ(torch_semantics().minor, 8);
}

// x[mask, ::2] with a 2-dim mask: torch 2.15 applies the slice to the dim
// after the mask's two; torch 2.8 to the mask's second, whose size then no
// longer matches the mask.
TEST(Semantics, IndicesAfterAMultiDimMask) {
  Tensor x = iota({3, 3, 3});
  Tensor m = mask({0, 0, 1, 0, 1, 0, 0, 1, 0}, {3, 3});
  {
    SemanticsGuard newest(torch_2_15);
    Tensor r = x.index({m, Slice{std::nullopt, std::nullopt, 2}});
    EXPECT_EQ(r.sizes(), (Shape{3, 2}));
    EXPECT_EQ(r.to_doubles(), (std::vector<double>{6, 8, 12, 14, 21, 23}));
    // x[mask, 2]: the integer selects dim 2, not the mask's second
    Tensor y = iota({4, 1, 3, 2});
    Tensor r2 = y.index({mask({1, 0, 1, 1}, {4, 1}), 2});
    EXPECT_EQ(r2.to_doubles(), (std::vector<double>{4, 5, 16, 17, 22, 23}));
  }
  SemanticsGuard reference(torch_2_8);
  EXPECT_THROW(x.index({m, Slice{std::nullopt, std::nullopt, 2}}),
               std::exception);
}

// clamp(x, min) with a tensor min, at a tie (x == min): torch 2.8 gives x
// the gradient, torch 2.15 half each (torch.maximum's rule).
TEST(Semantics, ClampGradientAtATie) {
  for (const TorchSemantics &s : {torch_2_8, torch_2_15}) {
    SemanticsGuard follow(s);
    Tensor x = f32({0, 1, 2}, {3}, true), min = f32({1, 1, 1}, {3}, true);
    auto grads = grad(x.clamp(min).sum(), {x, min});
    if (s.clamp_splits_ties()) {
      EXPECT_EQ(grads[0].to_doubles(), (std::vector<double>{0, 0.5, 1}));
      EXPECT_EQ(grads[1].to_doubles(), (std::vector<double>{1, 0.5, 0}));
    } else {
      EXPECT_EQ(grads[0].to_doubles(), (std::vector<double>{0, 1, 1}));
      EXPECT_EQ(grads[1].to_doubles(), (std::vector<double>{1, 0, 0}));
    }
  }
}

} // namespace
} // namespace torch_tidy::runtime

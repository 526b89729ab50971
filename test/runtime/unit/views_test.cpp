#include "test_util.h"

namespace torch_tidy::runtime {
namespace {

using testing::iota;

TEST(Views, SliceSharesStorageWithStepAndOffset) {
  Tensor x = iota({4, 5});
  Tensor s = x.slice(1, 1, 5, 2);
  EXPECT_EQ(s.sizes(), (Shape{4, 2}));
  EXPECT_EQ(s.strides(), (Shape{5, 2}));
  EXPECT_EQ(s.storage_offset(), 1);
  EXPECT_EQ(s.to_doubles(), (std::vector<double>{1, 3, 6, 8, 11, 13, 16, 18}));
  s.fill_(-1);
  EXPECT_EQ(x.to_doubles()[1], -1); // writes go through to the base
}

TEST(Views, NegativeAndClampedSliceBounds) {
  Tensor x = iota({5});
  EXPECT_EQ(x.slice(0, -2, 100).to_doubles(), (std::vector<double>{3, 4}));
  EXPECT_EQ(x.slice(0, 4, 2).numel(), 0);
}

TEST(Views, SelectTransposeUnsqueezeSqueeze) {
  Tensor x = iota({2, 3});
  EXPECT_EQ(x.select(1, -1).to_doubles(), (std::vector<double>{2, 5}));
  Tensor t = x.transpose(0, 1);
  EXPECT_EQ(t.sizes(), (Shape{3, 2}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.to_doubles(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  Tensor u = x.unsqueeze(1);
  EXPECT_EQ(u.sizes(), (Shape{2, 1, 3}));
  EXPECT_EQ(u.squeeze().sizes(), (Shape{2, 3}));
  EXPECT_EQ(u.squeeze(0).sizes(), (Shape{2, 1, 3}));
}

TEST(Views, ViewFollowsStrideCompatibility) {
  Tensor x = iota({2, 3, 4});
  EXPECT_EQ(x.view({6, -1}).sizes(), (Shape{6, 4}));
  Tensor t = x.transpose(1, 2); // [2, 4, 3]
  EXPECT_THROW(t.view({2, 12}), Error);
  EXPECT_EQ(t.view({2, 4, 3}).sizes(), (Shape{2, 4, 3}));
  EXPECT_EQ(t.reshape({2, 12}).to_doubles()[1], 4);
}

TEST(Views, ExpandUsesZeroStrides) {
  Tensor x = iota({3, 1});
  Tensor e = x.expand({2, 3, 4});
  EXPECT_EQ(e.strides(), (Shape{0, 1, 0}));
  EXPECT_EQ(e.sum().item(), 2 * 4 * (0 + 1 + 2));
  EXPECT_THROW(x.expand({3, 2, 2}), Error);
}

TEST(Factories, ArangeTriuIndicesFullRandn) {
  EXPECT_EQ(arange(1, 7, 2).to_doubles(), (std::vector<double>{1, 3, 5}));
  Tensor triu = triu_indices(3, 3, 1);
  EXPECT_EQ(triu.sizes(), (Shape{2, 3}));
  EXPECT_EQ(triu.to_doubles(), (std::vector<double>{0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(full({2}, 2.5, {DType::Int64}).to_doubles(),
            (std::vector<double>{2, 2}));
  Tensor a = randn({8}, 7), b = randn({8}, 7);
  EXPECT_EQ(a.to_doubles(), b.to_doubles()); // seeded
}

} // namespace
} // namespace torch_tidy::runtime

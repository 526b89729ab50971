#include "test_util.h"

namespace torch_tidy::runtime {
namespace {

using testing::f32;
using testing::i64;
using testing::iota;
using testing::mask;

TEST(WriteOps, CopyBroadcastsAndCasts) {
  Tensor x = zeros({2, 3}, {DType::Int64});
  x.copy_(f32({1.5, -2.5, 3}, {3}));
  EXPECT_EQ(x.to_doubles(), (std::vector<double>{1, -2, 3, 1, -2, 3}));
  EXPECT_EQ(x.version(), 1);
}

TEST(WriteOps, IndexPutWithAndWithoutAccumulate) {
  Tensor x = zeros({4});
  Tensor idx = i64({0, 2, 0}, {3});
  x.index_put_({idx}, f32({1, 2, 3}, {3}), /*accumulate=*/true);
  EXPECT_EQ(x.to_doubles(), (std::vector<double>{4, 0, 2, 0}));
  x.index_put_({i64({-1}, {1})}, f32({9}, {1}));
  EXPECT_EQ(x.to_doubles()[3], 9);
}

TEST(WriteOps, IndexCopyIndexFillScatterMasked) {
  Tensor x = zeros({3, 2});
  x.index_copy_(0, i64({2, 0}, {2}), iota({2, 2}));
  EXPECT_EQ(x.to_doubles(), (std::vector<double>{2, 3, 0, 0, 0, 1}));
  x.index_fill_(1, i64({1}, {1}), 7);
  EXPECT_EQ(x.to_doubles(), (std::vector<double>{2, 7, 0, 7, 0, 7}));
  Tensor y = zeros({2, 3});
  y.scatter_(1, i64({2, 0}, {2, 1}), f32({5, 6}, {2, 1}));
  EXPECT_EQ(y.to_doubles(), (std::vector<double>{0, 0, 5, 6, 0, 0}));
  y.masked_fill_(mask({1, 0, 0}, {3}), -1);
  EXPECT_EQ(y.to_doubles(), (std::vector<double>{-1, 0, 5, -1, 0, 0}));
  y.masked_scatter_(mask({0, 1, 1, 0, 0, 1}, {2, 3}), f32({1, 2, 3, 4}, {4}));
  EXPECT_EQ(y.to_doubles(), (std::vector<double>{-1, 1, 2, -1, 0, 3}));
}

TEST(WriteOps, OutOfPlaceTwinsLeaveSelfAlone) {
  Tensor x = zeros({2, 3});
  Tensor s = x.slice_scatter(f32({1, 2}, {2, 1}), 1, 1, 2);
  EXPECT_EQ(s.to_doubles(), (std::vector<double>{0, 1, 0, 0, 2, 0}));
  Tensor t = x.select_scatter(f32({4, 5, 6}, {3}), 0, 1);
  EXPECT_EQ(t.to_doubles(), (std::vector<double>{0, 0, 0, 4, 5, 6}));
  EXPECT_EQ(x.sum().item(), 0);
  EXPECT_EQ(x.version(), 0);
}

TEST(Arithmetic, BroadcastPromotionAndSums) {
  Tensor a = iota({2, 1});
  Tensor b = from_doubles({1, 2, 3}, {3}, {DType::Float64});
  Tensor c = a + b;
  EXPECT_EQ(c.dtype(), DType::Float64);
  EXPECT_EQ(c.to_doubles(), (std::vector<double>{1, 2, 3, 2, 3, 4}));
  EXPECT_EQ(c.sum({0}, true).to_doubles(), (std::vector<double>{3, 5, 7}));
  Tensor flags = from_doubles({1, 0, 1}, {3}, {DType::Bool});
  EXPECT_EQ(flags.sum().dtype(), DType::Int64);
  EXPECT_EQ(flags.sum().item(), 2);
  EXPECT_THROW(flags - flags, Error);
}

} // namespace
} // namespace torch_tidy::runtime

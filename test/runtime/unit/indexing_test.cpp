#include "test_util.h"

namespace torch_tidy::runtime {
namespace {

using testing::i64;
using testing::iota;
using testing::mask;

TEST(Indexing, AdjacentAdvancedIndicesStayInPlace) {
  Tensor x = iota({2, 3, 4});
  Tensor r = x.index({Slice{}, i64({0, 2}, {2}), i64({1, 3}, {2})});
  EXPECT_EQ(r.sizes(), (Shape{2, 2}));
  EXPECT_EQ(r.to_doubles(), (std::vector<double>{1, 11, 13, 23}));
}

TEST(Indexing, SeparatedAdvancedIndicesMoveToTheFront) {
  Tensor x = iota({2, 3, 4});
  Tensor r = x.index({i64({1, 0}, {2}), Slice{}, i64({0, 3}, {2})});
  EXPECT_EQ(r.sizes(), (Shape{2, 3}));
  EXPECT_EQ(r.to_doubles(), (std::vector<double>{12, 16, 20, 3, 7, 11}));
}

TEST(Indexing, BroadcastNegativeNoneAndEllipsis) {
  Tensor x = iota({3, 4});
  Tensor r = x.index({i64({-1, 0}, {2, 1}), i64({1, 2, 3}, {3})});
  EXPECT_EQ(r.sizes(), (Shape{2, 3}));
  EXPECT_EQ(r.to_doubles(), (std::vector<double>{9, 10, 11, 1, 2, 3}));
  EXPECT_EQ(x.index({NewAxis{}, Ellipsis{}, 1}).sizes(), (Shape{1, 3}));
}

TEST(Indexing, BooleanMasksSelectInRowMajorOrder) {
  Tensor x = iota({2, 3});
  Tensor r = x.index({mask({1, 0, 1, 0, 1, 0}, {2, 3})});
  EXPECT_EQ(r.to_doubles(), (std::vector<double>{0, 2, 4}));
  Tensor rows = x.index({mask({0, 1}, {2}), Slice{}});
  EXPECT_EQ(rows.sizes(), (Shape{1, 3}));
}

TEST(Indexing, SetItemStripsLeadingOnesOfTheValue) {
  Tensor x = zeros({2, 3});
  x.index_put_({0}, ones({1, 1, 3}));
  EXPECT_EQ(x.sum().item(), 3);
}

} // namespace
} // namespace torch_tidy::runtime

#include "test_util.h"

namespace torch_tidy::runtime {
namespace {

using testing::f32;
using testing::i64;
using testing::iota;

TEST(Autograd, MulSumGradients) {
  Tensor a = f32({1, 2, 3}, {3}, true);
  Tensor b = f32({4, 5, 6}, {3}, true);
  auto grads = grad((a * b).sum(), {a, b});
  EXPECT_EQ(grads[0].to_doubles(), (std::vector<double>{4, 5, 6}));
  EXPECT_EQ(grads[1].to_doubles(), (std::vector<double>{1, 2, 3}));
}

TEST(Autograd, BroadcastGradientsAreReduced) {
  Tensor a = f32({1, 2}, {2, 1}, true);
  Tensor b = f32({1, 1, 1}, {3}, true);
  auto grads = grad((a + b).sum(), {a, b});
  EXPECT_EQ(grads[0].sizes(), (Shape{2, 1}));
  EXPECT_EQ(grads[0].to_doubles(), (std::vector<double>{3, 3}));
  EXPECT_EQ(grads[1].to_doubles(), (std::vector<double>{2, 2, 2}));
}

TEST(Autograd, WriteIntoViewRebasesTheBase) {
  // The seed shape: a fresh zeros tensor receives a sliced write from a
  // tensor that requires grad; its history becomes CopySlices.
  Tensor m = zeros({2, 3});
  Tensor v = f32({1, 2, 3}, {3}, true);
  EXPECT_FALSE(m.requires_grad());
  m.select(0, 1).copy_(v);
  EXPECT_TRUE(m.requires_grad());
  EXPECT_EQ(m.grad_fn()->name(), "CopySlices");
  Tensor w = iota({2, 3});
  auto grads = grad((m * w).sum(), {v});
  EXPECT_EQ(grads[0].to_doubles(), (std::vector<double>{3, 4, 5}));
}

TEST(Autograd, ViewsSeeTheirBasesNewHistory) {
  Tensor m = zeros({2, 2});
  Tensor row = m.select(0, 0); // created before the write
  Tensor v = f32({1, 1}, {2}, true);
  m.select(0, 0).copy_(v);
  EXPECT_TRUE(row.requires_grad());
  auto grads = grad(row.sum(), {v});
  EXPECT_EQ(grads[0].to_doubles(), (std::vector<double>{1, 1}));
}

TEST(Autograd, OverwrittenSavedTensorIsReported) {
  Tensor a = f32({1, 2}, {2}, true);
  Tensor b = zeros({2});
  Tensor c = a * b;
  b.fill_(1); // b was saved by mul
  EXPECT_THROW(grad(c.sum(), {a}), Error);
}

TEST(Autograd, InPlaceOnLeafThatRequiresGradIsRejected) {
  Tensor a = f32({1, 2}, {2}, true);
  EXPECT_THROW(a.fill_(0), Error);
  EXPECT_THROW(a.select(0, 0).fill_(0), Error);
  NoGradGuard no_grad;
  a.fill_(0); // allowed without grad mode, as in PyTorch
}

TEST(Autograd, IndexPutGradientsToSelfAndValues) {
  Tensor x = f32({1, 2, 3, 4}, {4}, true);
  Tensor y = x.clone();
  Tensor v = f32({10, 20}, {2}, true);
  y.index_put_({i64({3, 0}, {2})}, v);
  auto grads = grad((y * iota({4})).sum(), {x, v});
  EXPECT_EQ(grads[0].to_doubles(), (std::vector<double>{0, 1, 2, 0}));
  EXPECT_EQ(grads[1].to_doubles(), (std::vector<double>{3, 0}));
}

TEST(Autograd, UnusedInputsNeedAllowUnused) {
  Tensor a = f32({1}, {1}, true), b = f32({1}, {1}, true);
  EXPECT_THROW(grad(a.sum(), {b}), Error);
  EXPECT_FALSE(grad(a.sum(), {b}, true)[0].defined());
}

} // namespace
} // namespace torch_tidy::runtime

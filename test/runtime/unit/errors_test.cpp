// Bad input raises Error with a message that says what is wrong.
#include "test_util.h"

#include "torch_tidy/runtime/backend.h"

#include <functional>

namespace torch_tidy::runtime {
namespace {

using testing::f32;
using testing::i64;

void expect_error(const std::function<void()> &fn, const std::string &text) {
  try {
    fn();
    ADD_FAILURE() << "expected an error mentioning '" << text << "'";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(Errors, OutOfRangeIndices) {
  Tensor x = zeros({2, 3});
  expect_error([&] { x.index({i64({3}, {1})}); }, "out of bounds");
  expect_error([&] { x.index({i64({-3}, {1})}); }, "out of bounds");
  expect_error([&] { x.select(1, 3); }, "out of range");
  expect_error([&] { x.index({0, 0, 0}); }, "too many indices");
  expect_error([&] { x.index_copy_(0, i64({-1}, {1}), zeros({1, 3})); },
               "out of bounds");
  expect_error([&] { x.scatter_(0, i64({2}, {1, 1}), zeros({1, 1})); },
               "out of bounds");
}

TEST(Errors, ShapeAndDtypeMismatches) {
  Tensor x = zeros({2, 3});
  expect_error([&] { x.copy_(zeros({4})); }, "must match");
  expect_error(
      [&] { x.index_put_({i64({0}, {1})}, zeros({3}, {DType::Float64})); },
      "dtypes match");
  expect_error([&] { x.index_put_({i64({0, 1}, {2})}, zeros({4})); },
               "shape mismatch");
  expect_error([&] { x.masked_fill_(zeros({2, 3}), 1); }, "boolean");
  expect_error([&] { x.view({4}); }, "invalid for input of size");
  expect_error([&] { x.expand({2}); }, "number of sizes");
}

TEST(Errors, WritesThroughAliasedElements) {
  Tensor x = zeros({1, 3});
  // copy_ checks for aliasing like PyTorch; fill_ (also like PyTorch) does not.
  expect_error([&] { x.expand({2, 3}).copy_(ones({2, 3})); },
               "single memory location");
  x.expand({2, 3}).fill_(1);
  EXPECT_EQ(x.sum().item(), 3);
}

TEST(Errors, CudaWithoutADeviceIsAClearError) {
  if (cuda_backend_compiled()) {
    // Built with nvcc: on a machine without a GPU the message says so.
    try {
      zeros({2}, {DType::Float32, Device::CUDA});
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos);
    }
    return;
  }
  expect_error([&] { zeros({2}, {DType::Float32, Device::CUDA}); },
               "without the CUDA backend");
}

} // namespace
} // namespace torch_tidy::runtime

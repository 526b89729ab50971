// One entry of an indexing expression, as at::indexing::TensorIndex.
#pragma once

#include "torch_tidy/runtime/tensor.h"

#include <cstdint>
#include <optional>
#include <variant>

namespace torch_tidy::runtime {

struct Slice {
  std::optional<std::int64_t> start, stop;
  std::int64_t step = 1;
};
struct NewAxis {}; // None
struct Ellipsis {};

class TensorIndex {
public:
  TensorIndex(std::int64_t integer) : value_(integer) {}
  TensorIndex(int integer) : value_(std::int64_t(integer)) {}
  TensorIndex(Slice slice) : value_(slice) {}
  TensorIndex(NewAxis none) : value_(none) {}
  TensorIndex(Ellipsis ellipsis) : value_(ellipsis) {}
  TensorIndex(Tensor tensor) : value_(std::move(tensor)) {}

  const std::int64_t *integer() const {
    return std::get_if<std::int64_t>(&value_);
  }
  const Slice *slice() const { return std::get_if<Slice>(&value_); }
  bool is_new_axis() const { return std::holds_alternative<NewAxis>(value_); }
  bool is_ellipsis() const { return std::holds_alternative<Ellipsis>(value_); }
  const Tensor *tensor() const { return std::get_if<Tensor>(&value_); }

private:
  std::variant<std::int64_t, Slice, NewAxis, Ellipsis, Tensor> value_;
};

} // namespace torch_tidy::runtime

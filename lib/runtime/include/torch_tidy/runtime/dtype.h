// Element types, devices and the runtime's error type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace torch_tidy::runtime {

enum class DType : std::uint8_t { Bool, Int64, Float32, Float64 };
enum class Device : std::uint8_t { CPU, CUDA };

std::size_t element_size(DType dtype);
const char *name(DType dtype);
const char *name(Device device);
bool is_floating(DType dtype);

/// PyTorch's type promotion for two dimensioned operands (bool < int64 <
/// float32 < float64).
DType promote(DType a, DType b);

/// Every rejected input ends here, so callers can catch one type.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

namespace detail {
template <class... Parts> std::string concat(const Parts &...parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}
} // namespace detail

} // namespace torch_tidy::runtime

/// Checks an argument and throws Error with the message parts concatenated.
#define TT_CHECK(cond, ...)                                                    \
  do {                                                                         \
    if (!(cond))                                                               \
      throw ::torch_tidy::runtime::Error(                                      \
          ::torch_tidy::runtime::detail::concat(__VA_ARGS__));                 \
  } while (0)

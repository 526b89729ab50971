// Runs each kernel of write_into_copy_fixes.cpp (fixed or not) on a
// receiver that needs no copy and one that does, and prints per run:
// kernel <TAB> receiver <TAB> reaches | lost | error.
#include <ATen/ATen.h>

#include <functional>
#include <iostream>
#include <string>
#include <vector>

#define KERNELS(X)                                                             \
  X(wb_add, layout)                                                            \
  X(wb_raw, layout)                                                            \
  X(wb_dispatch, layout)                                                       \
  X(wb_accessor, layout)                                                       \
  X(wb_reshape, layout)                                                        \
  X(wb_flatten, layout)                                                        \
  X(wb_expect, layout)                                                         \
  X(wb_to_float, dtype)                                                        \
  X(wb_to_type, dtype)                                                         \
  X(wb_channels_last, format)                                                  \
  X(wb_options, format)                                                        \
  X(ck_add, layout)                                                            \
  X(ck_to_float, dtype)                                                        \
  X(ck_channels_last, format)                                                  \
  X(ck_to_type, dtype)

#define DECLARE(Name, Kind) void Name(at::Tensor &out);
KERNELS(DECLARE)

namespace {
// The receivers of each kind: one the method returns as it is, one it
// copies (transposed, float64, contiguous 4-D).
std::vector<std::pair<std::string, at::Tensor>>
receivers(const std::string &k) {
  auto base = at::arange(6, at::kFloat);
  if (k == "layout")
    return {{"contiguous", base.view({2, 3}).clone()},
            {"transposed", base.view({3, 2}).clone().t()}};
  if (k == "dtype")
    return {{"float32", base.view({2, 3}).clone()},
            {"float64", base.view({2, 3}).to(at::kDouble)}};
  auto four = at::arange(16, at::kFloat).view({1, 4, 2, 2});
  return {{"channels_last",
           four.clone().contiguous(at::MemoryFormat::ChannelsLast)},
          {"contiguous_4d", four.clone()}};
}

void run(const std::string &name, const std::string &kind,
         const std::function<void(at::Tensor &)> &kernel) {
  for (auto &[receiver, out] : receivers(kind)) {
    at::Tensor want = out.to(at::kDouble) + 1;
    at::Tensor before = out.to(at::kDouble);
    std::string result;
    try {
      kernel(out);
      at::Tensor got = out.to(at::kDouble);
      result = got.equal(want)     ? "reaches"
               : got.equal(before) ? "lost"
                                   : "wrong";
    } catch (const c10::Error &) {
      result = out.to(at::kDouble).equal(before) ? "error" : "wrong";
    }
    std::cout << name << '\t' << receiver << '\t' << result << '\n';
  }
}
} // namespace

int main() {
#define RUN(Name, Kind) run(#Name, #Kind, Name);
  KERNELS(RUN)
  return 0;
}

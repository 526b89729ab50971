#include <torch/library.h>
#include <torch/torch.h>

void encode_to_file(const at::Tensor &samples, int64_t rate) {}
void encode_direct(const at::Tensor &samples, int64_t rate) {}

TORCH_LIBRARY(codec, m) {
  m.def("encode_to_file(Tensor samples, int rate) -> ()");
  m.def("encode_direct(Tensor samples, int rate) -> ()");
}
TORCH_LIBRARY_IMPL(codec, CPU, m) {
  m.impl("encode_to_file", &encode_to_file);
  m.impl("encode_direct", &encode_direct);
}

#pragma once
#include <torch/torch.h>
std::vector<at::Tensor> gather_async(at::Tensor input, at::Tensor out,
                                     int64_t n);
at::Tensor gather_read(at::Tensor input, at::Tensor like);

// A mixture-of-experts style combine step that mirrors Python code run under
// torch.compile, marked so with TORCH_TIDY_COMPILED. Each in-place write
// fills a tensor created without gradient tracking from values that require
// grad; in Python, torch.compile loses requires_grad after such writes
// (torch 2.8.0 for every form, the newest torch for writes through a view).
// torch-tidy rewrites each one to its out-of-place form, which keeps it.
#include <torch/torch.h>
#include <torch_tidy/compiled.h>

using torch::indexing::Slice;

// expert_out: [tokens, experts]; slots: [tokens] distinct rows; mask: bool
// [tokens, experts]; bias: [tokens, (experts + 1) / 2], a gate value per token
// for every second expert.
TORCH_TIDY_COMPILED at::Tensor combine(const at::Tensor &expert_out,
                                       const at::Tensor &slots,
                                       const at::Tensor &mask,
                                       const at::Tensor &bias) {
  const int64_t tokens = expert_out.size(0);
  auto out =
      torch::zeros({tokens, 2 * expert_out.size(1)}, expert_out.options());
  out.index_copy_(0, slots, expert_out.repeat({1, 2}));
  auto gate = torch::zeros_like(expert_out);
  gate.slice(1, 0, expert_out.size(1), 2).copy_(bias);
  gate.masked_fill_(mask, bias.sum());
  auto head = torch::empty({2, tokens}, expert_out.options());
  head.select(0, 0).copy_(bias.mean() * torch::ones({tokens}));
  head[1] = expert_out.select(1, 0);
  return out.sum() + gate.sum() + head.sum();
}

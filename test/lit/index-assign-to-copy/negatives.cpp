// RUN: %check_torch_tidy %s torch-index-assign-to-copy %t
// Basic indexing returns a view; index_put_ writes into t; reading the copy
// is fine.
#include <torch/torch.h>
using torch::indexing::Ellipsis;
using torch::indexing::None;
using torch::indexing::Slice;

at::Tensor negatives(at::Tensor t, const at::Tensor &v, const at::Tensor &rows,
                     const at::Tensor &cols, const at::Tensor &mask,
                     const at::Tensor &idx, int64_t i) {
  t.index({Slice(), 2}) = v;                          // 1: view
  t.index({Slice(1, None, 2), Ellipsis}) = v;         // 2
  t.index({None, 0}) = 1;                             // 3
  t.index({i}).zero_();                               // 4
  t.index({Ellipsis, 1}).copy_(v);                    // 5
  t.index({Slice()}).add_(1);                         // 6
  t.index({true}).fill_(1);                           // 7: bool literal, basic
  t.index_put_({Slice(), rows, cols}, v);             // 8
  t.index_put_({mask}, 0);                            // 9
  auto copy = t.index({idx});                         // 10: a read
  copy.zero_();                                       // 11: a named copy
  at::Tensor sum = t.index({mask}).sum();             // 12
  t[0] = v;                                           // 13
  t[idx] = v;                                         // 14: operator[](Tensor) selects
  t.index({idx}).requires_grad_();                    // 15: not a value write
  t.select(0, 1).index({Slice()}).copy_(v);           // 16
  auto y = t.index({idx}).add(v);                     // 17: out of place
  t.masked_fill_(mask, 0);                            // 18
  return t.index({idx}) + y + sum;                    // 19
}

template <typename T> void dependent(T t, const at::Tensor &idx) {
  t.index({idx}).zero_(); // 20: unresolved in the template
}

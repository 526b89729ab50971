// Fix-it cases: one or more functions per rewrite rule, each the smallest
// real use of its write form. test/fixits/run_fixits.py copies this file,
// lets torch-tidy --fix it, and compiles the original and the fixed copy
// side by side (namespace TT_NS is `original` or `fixed`) against real
// LibTorch; the harness feeds both random inputs and compares values,
// gradients and requires_grad().
//
// Every function is a compiled region (TORCH_TIDY_COMPILED) and takes the
// value that requires grad as `v`. Each is preceded by `// RULE: <id>`
// naming the rule its flagged write must be fixed by; `// RULE: none`
// marks a write that must keep its warning without a fix. The first id is
// FixStyle: index_put's; where the default (FixStyle: auto, also scatter)
// picks another rule the line goes on `auto: <id>`, and where StrictFixes
// picks yet another, the next line reads `// strict: <id>`.
#include <torch/torch.h>
#include <torch_tidy/compiled.h>

#ifndef TT_NS
#define TT_NS original
#endif

namespace TT_NS {
using torch::indexing::Ellipsis;
using torch::indexing::None;
using torch::indexing::Slice;

// v: [B, K] with K = n*(n-1)/2; the seed's skew-symmetric builder.
// RULE: index-put-advanced
TORCH_TIDY_COMPILED at::Tensor skew_symmetric(const at::Tensor &v, int64_t n) {
  auto idx = torch::triu_indices(n, n, 1, v.options().dtype(torch::kLong));
  auto rows = idx[0];
  auto cols = idx[1];
  auto matrix = torch::zeros({v.size(0), n, n}, v.options());
  matrix.index_put_({Slice(), rows, cols}, v);
  return matrix;
}

// v: [B, K] or [1, B, K]: index_put_ with a TensorIndex list is set_item,
// which strips leading size-1 dims of the value.
// RULE: index-put-advanced
TORCH_TIDY_COMPILED at::Tensor index_put_strip(const at::Tensor &v, int64_t n) {
  auto idx = torch::triu_indices(n, n, 1, v.options().dtype(torch::kLong));
  auto rows = idx[0];
  auto cols = idx[1];
  auto m = torch::zeros({v.size(-2), n, n}, v.options());
  m.index_put_({Slice(), rows, cols}, v);
  return m;
}

// v: [B, K]; extension code that checks its input: the guard proves v is
// 2-D, no more dims than the result, so the fix has no strip.
// RULE: index-put-advanced
TORCH_TIDY_COMPILED at::Tensor skew_checked(const at::Tensor &v, int64_t n) {
  TORCH_CHECK(v.dim() == 2, "v must be [B, K]");
  auto idx = torch::triu_indices(n, n, 1, v.options().dtype(torch::kLong));
  auto matrix = torch::zeros({v.size(0), n, n}, v.options());
  matrix.index_put_({Slice(), idx[0], idx[1]}, v);
  return matrix;
}

// v: [N]; idx: int64 positions in [0, N), repeats allowed (a repeat writes
// the same value). The value is an expression (a gather), passed as written
// and evaluated once in both forms; StrictFixes would strip it, evaluating
// it twice, so gives no fix.
// RULE: index-put-advanced
// strict: none
TORCH_TIDY_COMPILED at::Tensor index_put_gathered(const at::Tensor &v,
                                                  const at::Tensor &idx) {
  auto scaled = v * 2;
  auto out = torch::zeros({v.size(0)}, v.options());
  out.index_put_({idx}, scaled.index({idx}));
  return out;
}

// v: [B, K] or [B, 1, K]; indexed by tensors only (the seed workaround's
// own index), with a value reshaped in the function.
// RULE: index-put-advanced
TORCH_TIDY_COMPILED at::Tensor skew_batched(const at::Tensor &v, int64_t n) {
  auto idx = torch::triu_indices(n, n, 1, v.options().dtype(torch::kLong));
  auto batch =
      torch::arange(v.size(0), v.options().dtype(torch::kLong)).unsqueeze(1);
  auto vals = v.reshape({v.size(0), -1});
  auto matrix = torch::zeros({v.size(0), n, n}, v.options());
  matrix.index_put_({batch, idx[0], idx[1]}, vals);
  return matrix;
}

// row: 0-dim int64 in [0, R) (operator[](Tensor) is select(0, row.item()));
// v: broadcastable to [C].
// RULE: index-put-positions-copy
TORCH_TIDY_COMPILED at::Tensor
subscript_tensor(const at::Tensor &v, const at::Tensor &row, int64_t r) {
  auto m = torch::zeros({r, v.size(-1)}, v.options());
  m[row] = v;
  return m;
}

// v: [K]; the List form of index_put_ (no stripping, accumulate kept).
// RULE: index-put-list
TORCH_TIDY_COMPILED at::Tensor
index_put_list(const at::Tensor &v, const at::Tensor &rows, int64_t r) {
  auto m = torch::zeros({r}, v.options());
  m.index_put_(c10::List<c10::optional<at::Tensor>>({rows}), v, true);
  return m;
}

// v: [K]; the at:: spelling.
// RULE: index-put-list
TORCH_TIDY_COMPILED at::Tensor at_index_put(const at::Tensor &v,
                                            const at::Tensor &rows, int64_t r) {
  auto m = torch::zeros({r}, v.options());
  at::index_put_(m, c10::List<c10::optional<at::Tensor>>({rows}), v);
  return m;
}

// v: [C] (or [1, C]); an integer and a full slice.
// RULE: index-put-positions-setitem auto: select-scatter
// strict: index-put-positions-setitem
TORCH_TIDY_COMPILED at::Tensor index_put_int(const at::Tensor &v, int64_t r) {
  auto m = torch::zeros({r, v.size(-1)}, v.options());
  m.index_put_({1, Slice()}, v);
  return m;
}

// v: broadcastable to [floor((R-1)/2), C]; a stepped slice, negative end;
// index(...) = v is copy_ (no stripping).
// RULE: index-put-positions-copy auto: slice-scatter
TORCH_TIDY_COMPILED at::Tensor index_assign_step(const at::Tensor &v,
                                                 int64_t r) {
  auto m = torch::zeros({r, v.size(-1)}, v.options().dtype(torch::kDouble));
  m.index({Slice(1, -1, 2), Ellipsis}) = v;
  return m;
}

// v: [C]; a negative integer, None and a slice.
// RULE: index-put-positions-setitem
TORCH_TIDY_COMPILED at::Tensor index_put_none(const at::Tensor &v, int64_t r) {
  auto m = torch::zeros({r, v.size(-1)}, v.options());
  m.index_put_({-1, None, Slice()}, v);
  return m;
}

// v: [C]; t[i] = v is copy_ into select(0, i).
// RULE: index-put-positions-copy auto: select-scatter
TORCH_TIDY_COMPILED at::Tensor subscript_int(const at::Tensor &v, int64_t r) {
  auto m = torch::zeros({r, v.size(-1)}, v.options());
  m[0] = v;
  return m;
}

// v: [n] broadcast into a narrowed row of a [R, C] target (n <= C).
// RULE: index-put-positions-copy auto: scatter-nested
TORCH_TIDY_COMPILED at::Tensor view_chain_copy(const at::Tensor &v, int64_t r,
                                               int64_t c) {
  auto m = torch::zeros({r, c}, v.options());
  m.select(0, 1).narrow(0, 0, v.size(0)).copy_(v);
  return m;
}

// v: [C]; transpose then select (non-contiguous view): select(1, r - 1) of
// the 2-D target.
// RULE: index-put-positions-copy auto: select-scatter
TORCH_TIDY_COMPILED at::Tensor transposed_copy(const at::Tensor &v, int64_t r) {
  auto m = torch::zeros({v.size(0), r}, v.options());
  m.t().select(0, r - 1).copy_(v);
  return m;
}

// v: [C]; a one-row slice squeezed: select(0, 1).
// RULE: index-put-positions-copy auto: select-scatter
TORCH_TIDY_COMPILED at::Tensor slice_squeeze_copy(const at::Tensor &v,
                                                  int64_t r) {
  auto m = torch::zeros({r, v.size(-1)}, v.options());
  m.slice(0, 1, 2).squeeze(0).copy_(v);
  return m;
}

// v: [R]; a named column of the transposed target, t()[k]: select(1, k)
// (k may be negative).
// RULE: index-put-positions-copy auto: select-scatter
TORCH_TIDY_COMPILED at::Tensor named_column_copy(const at::Tensor &v, int64_t c,
                                                 int64_t k) {
  auto m = torch::zeros({v.size(0), c}, v.options());
  auto col = m.t()[k];
  col.copy_(v);
  return m;
}

// v: [C]; a named one-element narrow squeezed, after a cancelling
// unsqueeze/squeeze pair: select(0, i) (i may be negative).
// RULE: index-put-positions-copy auto: select-scatter
TORCH_TIDY_COMPILED at::Tensor named_narrow_squeeze(const at::Tensor &v,
                                                    int64_t r, int64_t i) {
  auto m = torch::zeros({r, v.size(-1)}, v.options());
  auto row = m.unsqueeze(0).squeeze(0).narrow(0, i, 1).squeeze(0);
  row.copy_(v);
  return m;
}

// v: [N]; transpose(0, 1)[k] then a narrow: two steps once folded.
// RULE: index-put-positions-copy auto: scatter-nested
TORCH_TIDY_COMPILED at::Tensor transposed_narrow(const at::Tensor &v, int64_t r,
                                                 int64_t c) {
  auto m = torch::zeros({r, c}, v.options());
  m.transpose(0, 1)[c - 1].narrow(0, 0, v.size(0)).copy_(v);
  return m;
}

// v: [2, C] or [C]; mul_ through a named narrow of a ones target (the
// gradient is the target's values): the scatter of narrow(...).mul(v).
// RULE: scatter-inplace-arith
TORCH_TIDY_COMPILED at::Tensor named_narrow_mul(const at::Tensor &v,
                                                int64_t r) {
  auto m = torch::ones({r, v.size(-1)}, v.options());
  auto rows = m.narrow(0, 1, 2);
  rows.mul_(v);
  return m;
}

// v: [C]; add_ into a selected row, sub_ from a column of the transpose.
// RULE: scatter-inplace-arith
TORCH_TIDY_COMPILED at::Tensor row_add_col_sub(const at::Tensor &v, int64_t r) {
  auto m = torch::ones({r, v.size(0)}, v.options());
  m.select(0, r - 1).add_(v);
  m.t()[0].sub_(v.narrow(0, 0, 1).expand({r}));
  return m;
}

// v: [C]; the compound assignments (operator+= is add_, -= sub_, *= mul_
// in TensorBody.h) through a named narrow and a selected column.
// RULE: scatter-inplace-arith
TORCH_TIDY_COMPILED at::Tensor compound_assign(const at::Tensor &v, int64_t r) {
  auto m = torch::ones({r, v.size(0)}, v.options());
  auto top = m.narrow(0, 0, 1);
  top += v;
  m.select(1, 0) *= v.sum();
  m[r - 1] -= v;
  return m;
}

// v: [C]; div_ through a named select, clamp_ with a tensor min (which is
// torch.maximum) and /= through narrows, on a target of twos.
// RULE: scatter-inplace-arith
TORCH_TIDY_COMPILED at::Tensor div_and_clamp(const at::Tensor &v, int64_t r) {
  auto m = torch::full({r, v.size(0)}, 2.0, v.options());
  auto last = m.select(0, r - 1);
  last.div_(v);
  m.narrow(0, 0, 1).clamp_(v);
  m.narrow(1, 0, 1) /= v.narrow(0, 0, 1).exp();
  return m;
}

// v: 0-dim; fill_ of a view with a tensor value.
// RULE: index-put-positions-copy auto: select-scatter
TORCH_TIDY_COMPILED at::Tensor view_fill(const at::Tensor &v, int64_t r,
                                         int64_t c) {
  auto m = torch::zeros({r, c}, v.options());
  m.select(1, 0).fill_(v);
  return m;
}

// v: broadcastable to [2, C] (float64 source into a float32 target: copy_
// casts).
// RULE: index-put-positions-copy auto: slice-scatter
TORCH_TIDY_COMPILED at::Tensor slice_copy_cast(const at::Tensor &v, int64_t r) {
  auto m = torch::zeros({r, v.size(-1)}, v.options().dtype(torch::kFloat));
  m.slice(0, 0, 2).copy_(v);
  return m;
}

// v: broadcastable to [r - 2, C]; narrow.
// RULE: index-put-positions-copy auto: slice-scatter
TORCH_TIDY_COMPILED at::Tensor narrow_copy(const at::Tensor &v, int64_t r) {
  auto m = torch::zeros({r, v.size(-1)}, v.options());
  m.narrow(0, 1, r - 2).copy_(v);
  return m;
}

// v: broadcastable to [C]; select with a negative index.
// RULE: index-put-positions-copy auto: select-scatter
TORCH_TIDY_COMPILED at::Tensor select_copy(const at::Tensor &v, int64_t r) {
  auto m = torch::zeros({r, v.size(-1)}, v.options());
  m.select(0, -2).copy_(v);
  return m;
}

// v: broadcastable to [2, R]; a named view written back into its base.
// RULE: index-put-positions-copy
TORCH_TIDY_COMPILED at::Tensor named_view_copy(const at::Tensor &v, int64_t r) {
  auto m = torch::zeros({3, r, 4}, v.options());
  auto plane = m.select(2, 1).t();
  plane.narrow(0, 0, 2).copy_(v);
  return m;
}

// v: broadcastable to [2, 3]; the view written through is read after the
// write (and written again through): bound again to the rewritten target.
// RULE: index-put-positions-copy auto: scatter-nested
TORCH_TIDY_COMPILED at::Tensor named_view_read_after(const at::Tensor &v,
                                                     int64_t r) {
  auto out = torch::zeros({r, 3, 2}, v.options());
  auto plane = out.select(2, 1).narrow(0, 1, 2);
  plane.copy_(v);
  auto total = plane.sum();
  return out * 2 + total;
}

// v: [C]; two views read after the write, one written through.
// RULE: index-put-positions-copy auto: select-scatter
TORCH_TIDY_COMPILED at::Tensor two_views_read_after(const at::Tensor &v,
                                                    int64_t r) {
  auto m = torch::ones({r, v.size(0)}, v.options());
  auto last = m.select(0, r - 1);
  auto col = m.select(1, 0);
  last.copy_(v);
  return m + last.sum() + col.sum();
}

// v: [E, D]; the demo's write, one row of a [R, D] head (R >= 2).
// RULE: index-put-positions-copy auto: select-scatter
TORCH_TIDY_COMPILED at::Tensor demo_row(const at::Tensor &v, int64_t r) {
  auto head = torch::zeros({r, v.size(1)}, v.options());
  head[1] = v.select(0, 0);
  return head;
}

// v: [n] (or broadcastable); two indices: a row, then a slice of it.
// RULE: index-put-positions-copy auto: scatter-nested
TORCH_TIDY_COMPILED at::Tensor row_slice(const at::Tensor &v, int64_t r,
                                         int64_t c) {
  auto m = torch::zeros({r, c}, v.options());
  m.index({r - 1, Slice(1, 1 + v.size(0))}) = v;
  return m;
}

// v: [R, (C + 1) / 2] (or [1, R, (C + 1) / 2]); setitem with an Ellipsis
// and a stepped slice.
// RULE: index-put-positions-setitem auto: slice-scatter
// strict: index-put-positions-setitem
TORCH_TIDY_COMPILED at::Tensor ellipsis_slice(const at::Tensor &v, int64_t r,
                                              int64_t c) {
  auto m = torch::zeros({r, c}, v.options());
  m.index_put_({Ellipsis, Slice(None, None, 2)}, v);
  return m;
}

// v: [s, C]; a narrow whose start is a variable (maybe negative: the
// default's note says where the short fix throws; strict keeps positions).
// RULE: index-put-positions-copy auto: slice-scatter
// strict: index-put-positions-copy
TORCH_TIDY_COMPILED at::Tensor narrow_variable(const at::Tensor &v, int64_t r,
                                               int64_t s) {
  auto m = torch::zeros({r, v.size(1)}, v.options());
  m.narrow(0, s, v.size(0)).copy_(v);
  return m;
}

// v: [C]; three views: the general form, with a note, in every style.
// RULE: index-put-positions-copy
TORCH_TIDY_COMPILED at::Tensor three_views(const at::Tensor &v, int64_t r) {
  auto m = torch::zeros({2, r, v.size(0)}, v.options());
  m[1][r - 1].narrow(0, 0, v.size(0)).copy_(v);
  return m;
}

// idx: int64 [K] distinct rows of a [R, C] target; v: [K, C].
// RULE: index-copy
TORCH_TIDY_COMPILED at::Tensor index_copy(const at::Tensor &v,
                                          const at::Tensor &idx, int64_t r) {
  auto m = torch::zeros({r, v.size(1)}, v.options());
  m.index_copy_(0, idx, v);
  return m;
}

// mask: bool [R, C]; v: at least mask.sum() elements.
// RULE: masked-scatter
TORCH_TIDY_COMPILED at::Tensor masked_scatter(const at::Tensor &v,
                                              const at::Tensor &mask) {
  auto m = torch::zeros(mask.sizes(), v.options());
  m.masked_scatter_(mask, v);
  return m;
}

// idx: int64 [R, C] with values in [0, R) distinct per column; v: [R, C].
// RULE: scatter
TORCH_TIDY_COMPILED at::Tensor scatter(const at::Tensor &v,
                                       const at::Tensor &idx) {
  auto m = torch::zeros(v.sizes(), v.options());
  m.scatter_(0, idx, v);
  return m;
}

// mask: bool [R, C]; v: 0-dim.
// RULE: masked-fill
TORCH_TIDY_COMPILED at::Tensor masked_fill(const at::Tensor &v,
                                           const at::Tensor &mask) {
  auto m = torch::zeros(mask.sizes(), v.options());
  m.masked_fill_(mask, v);
  return m;
}

// idx: int64 [K] rows of a [R, C] target; v: 0-dim.
// RULE: index-fill
TORCH_TIDY_COMPILED at::Tensor
index_fill(const at::Tensor &v, const at::Tensor &idx, int64_t r, int64_t c) {
  auto m = torch::zeros({r, c}, v.options());
  m.index_fill_(0, idx, v);
  return m;
}

// v: [B, K]; the seed's factory spelled with its own options, device and
// dtype taken from v one by one.
// RULE: index-put-advanced
TORCH_TIDY_COMPILED at::Tensor seed_options_chain(const at::Tensor &v,
                                                  int64_t n) {
  auto idx = torch::triu_indices(n, n, 1, v.options().dtype(torch::kLong));
  auto matrix =
      torch::zeros({v.size(0), n, n},
                   torch::TensorOptions().device(v.device()).dtype(v.dtype()));
  matrix.index_put_({Slice(), idx[0], idx[1]}, v);
  return matrix;
}

// v: broadcastable to [R - 2, C]; an options variable built in two steps,
// and a target made with only a device (float32: copy_ casts a float64 v).
// RULE: index-put-positions-copy auto: slice-scatter
TORCH_TIDY_COMPILED at::Tensor options_variable(const at::Tensor &v,
                                                int64_t r) {
  auto opts = torch::dtype(v.dtype());
  opts = opts.device(v.device());
  auto m = torch::zeros({r, v.size(-1)}, opts);
  m.narrow(0, 1, r - 2).copy_(v);
  auto n = torch::zeros({r, v.size(-1)}, v.device());
  n.narrow(0, 1, r - 2).copy_(v);
  return m + n;
}

// v: broadcastable to [C]; a lambda, called here, writes the fresh tensor
// it captures by reference, once per row.
// RULE: index-put-positions-copy auto: select-scatter
TORCH_TIDY_COMPILED at::Tensor lambda_by_reference(const at::Tensor &v,
                                                   int64_t r) {
  auto m = torch::zeros({r, v.size(-1)}, v.options());
  auto put = [&](int64_t i) { m.select(0, i).copy_(v * (i + 1)); };
  for (int64_t i = 0; i < r; ++i)
    put(i);
  return m;
}

// v: [C]; the lambda captures m by value: warning, no fix.
// RULE: none
TORCH_TIDY_COMPILED at::Tensor lambda_by_value(const at::Tensor &v, int64_t r) {
  auto m = torch::zeros({r, v.size(0)}, v.options());
  auto put = [=] { m.select(0, 0).copy_(v); };
  put();
  return m;
}

// v: [C]; the in-place result is used as a value: warning, no fix.
// RULE: none
TORCH_TIDY_COMPILED at::Tensor result_used(const at::Tensor &v, int64_t r) {
  auto m = torch::zeros({r, v.size(0)}, v.options());
  return m.index_put_({0}, v) * 2;
}

// v: [C]; another view of m is read after the write: it is bound again to
// the same view of the rewritten m after the write.
// RULE: index-put-positions-setitem auto: select-scatter
// strict: index-put-positions-setitem
TORCH_TIDY_COMPILED at::Tensor aliased(const at::Tensor &v, int64_t r) {
  auto m = torch::zeros({r, v.size(0)}, v.options());
  auto first = m.select(0, 0);
  m.index_put_({0}, v);
  return first * 3;
}

// v: [C]; a const view of m is read after the write: it cannot be bound
// again, so warning, no fix.
// RULE: none
TORCH_TIDY_COMPILED at::Tensor aliased_const(const at::Tensor &v, int64_t r) {
  auto m = torch::zeros({r, v.size(0)}, v.options());
  const auto first = m.select(0, 0);
  m.index_put_({0}, v);
  return first * 3;
}
} // namespace TT_NS

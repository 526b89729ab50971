// Ground-truth reproducers written with LibTorch's C++ API.
//
// Every form builds a fresh target without gradient tracking, writes a source
// that requires grad into it (in place, or with the out-of-place fix), then
// reads requires_grad() and branches on it, as a kernel author would. The same
// bodies are registered twice:
//   tt_gt::*      as CompositeImplicitAutograd kernels (m.def(schema, fn)): the
//                 body runs above autograd and torch.compile traces through it;
//   tt_gt_cpu::*  as CPU kernels; their autograd formulas are registered from
//                 Python (cpp_ops.py). This is the control: below autograd.
//
// Shapes and index constants must match forms.py, which holds the Python twins.

#include <ATen/ATen.h>
#include <ATen/TensorIndexing.h>
#include <torch/library.h>

#include <string>
#include <tuple>

namespace {

using at::Tensor;
using at::indexing::Slice;
using Observed = std::tuple<Tensor, Tensor, Tensor, Tensor>;

at::TensorOptions longOn(const Tensor &Src) {
  return at::TensorOptions().dtype(at::kLong).device(Src.device());
}

// The target: a factory without requires_grad, like user code would write.
Tensor freshTarget(const Tensor &Src, at::IntArrayRef Sizes) {
  return at::zeros(Sizes, Src.options());
}

// Index constants shared with forms.py. They are computed with factories, not
// at::tensor({...}): that reads host data and fails when torch.compile traces
// the kernel with fake tensors.
Tensor triuIndices(const Tensor &Src) {
  return at::triu_indices(4, 4, 1, longOn(Src));
}
Tensor indexCopyIndex(const Tensor &Src) {
  return at::arange(2, -1, -2, longOn(Src)); // [2, 0]
}
Tensor scatterIndex(const Tensor &Src) {
  // [[0, 2], [1, 3], [2, 0]]
  return (at::arange(6, longOn(Src)).view({3, 2}) * 2 +
          at::arange(3, longOn(Src)).view({3, 1}))
      .remainder(4);
}
Tensor maskedScatterMask(const Tensor &Src) {
  return at::arange(12, longOn(Src)).view({3, 4}).remainder(3).eq(0);
}

// What user code does after the write: read the flag and branch on it. The
// branch is the bug's blast radius: on a stale false it detaches the result.
Observed observe(const Tensor &M) {
  const bool RequiresGrad = M.requires_grad();
  Tensor Y = M * 2;
  Tensor Z;
  bool TookGradBranch = false;
  if (RequiresGrad) {
    Z = Y * 3;
    TookGradBranch = true;
  } else {
    Z = (Y * 3).detach();
  }
  auto BoolOpts = at::TensorOptions().dtype(at::kBool).device(M.device());
  return {Y, Z, at::scalar_tensor(RequiresGrad, BoolOpts),
          at::scalar_tensor(TookGradBranch, BoolOpts)};
}

// In-place forms.

Observed setitemAdv(const Tensor &Src) { // m[:, rows, cols] = src
  Tensor M = freshTarget(Src, {2, 4, 4});
  Tensor RowsCols = triuIndices(Src);
  M.index_put_({Slice(), RowsCols[0], RowsCols[1]}, Src);
  return observe(M);
}

Observed setitemSliceInt(const Tensor &Src) { // m[:, 0] = src
  Tensor M = freshTarget(Src, {3, 4});
  M.index({Slice(), 0}) = Src;
  return observe(M);
}

Observed setitemInt(const Tensor &Src) { // m[0] = src
  Tensor M = freshTarget(Src, {3, 4});
  M[0] = Src;
  return observe(M);
}

Observed narrowCopy(const Tensor &Src) {
  Tensor M = freshTarget(Src, {3, 4});
  M.narrow(0, 1, 2).copy_(Src);
  return observe(M);
}

Observed selectCopy(const Tensor &Src) {
  Tensor M = freshTarget(Src, {3, 4});
  M.select(0, 0).copy_(Src);
  return observe(M);
}

Observed indexCopyInplace(const Tensor &Src) {
  Tensor M = freshTarget(Src, {3, 4});
  M.index_copy_(0, indexCopyIndex(Src), Src);
  return observe(M);
}

Observed maskedScatterInplace(const Tensor &Src) {
  Tensor M = freshTarget(Src, {3, 4});
  M.masked_scatter_(maskedScatterMask(Src), Src);
  return observe(M);
}

Observed scatterInplace(const Tensor &Src) {
  Tensor M = freshTarget(Src, {3, 4});
  M.scatter_(1, scatterIndex(Src), Src);
  return observe(M);
}

Observed viewAliasCopy(const Tensor &Src) { // w = m[1:3]; w.copy_(src)
  Tensor M = freshTarget(Src, {3, 4});
  Tensor W = M.slice(0, 1, 3);
  W.copy_(Src);
  return observe(M);
}

// Out-of-place fix forms.

Observed indexPut(const Tensor &Src) {
  Tensor M = freshTarget(Src, {2, 4, 4});
  Tensor RowsCols = triuIndices(Src);
  Tensor Batch = at::arange(2, longOn(Src)).unsqueeze(1);
  M = M.index_put({Batch, RowsCols[0], RowsCols[1]}, Src);
  return observe(M);
}

Observed sliceScatter(const Tensor &Src) {
  Tensor M = freshTarget(Src, {3, 4});
  M = at::slice_scatter(M, Src, 0, 1, 3);
  return observe(M);
}

Observed selectScatter(const Tensor &Src) {
  Tensor M = freshTarget(Src, {3, 4});
  M = at::select_scatter(M, Src, 1, 0);
  return observe(M);
}

Observed indexCopy(const Tensor &Src) {
  Tensor M = freshTarget(Src, {3, 4});
  M = M.index_copy(0, indexCopyIndex(Src), Src);
  return observe(M);
}

Observed maskedScatter(const Tensor &Src) {
  Tensor M = freshTarget(Src, {3, 4});
  M = M.masked_scatter(maskedScatterMask(Src), Src);
  return observe(M);
}

Observed scatter(const Tensor &Src) {
  Tensor M = freshTarget(Src, {3, 4});
  M = M.scatter(1, scatterIndex(Src), Src);
  return observe(M);
}

// Operator names follow forms.py: the form id with a trailing '_' spelled
// '_inplace' (a trailing '_' in an operator name means in-place to PyTorch).
struct Form {
  const char *Name;
  Observed (*Fn)(const Tensor &);
};
const Form Forms[] = {
    {"setitem_adv_inplace", &setitemAdv},
    {"setitem_slice_int_inplace", &setitemSliceInt},
    {"setitem_int_inplace", &setitemInt},
    {"narrow_copy_inplace", &narrowCopy},
    {"select_copy_inplace", &selectCopy},
    {"index_copy_inplace", &indexCopyInplace},
    {"masked_scatter_inplace", &maskedScatterInplace},
    {"scatter_inplace", &scatterInplace},
    {"view_alias_copy_inplace", &viewAliasCopy},
    {"index_put", &indexPut},
    {"slice_scatter", &sliceScatter},
    {"select_scatter", &selectScatter},
    {"index_copy", &indexCopy},
    {"masked_scatter", &maskedScatter},
    {"scatter", &scatter},
};

std::string schemaOf(const char *Name) {
  return std::string(Name) + "(Tensor src) -> (Tensor, Tensor, Tensor, Tensor)";
}

} // namespace

// m.def(schema, fn): the kernel is CompositeImplicitAutograd.
TORCH_LIBRARY(tt_gt, M) {
  for (const Form &F : Forms)
    M.def(schemaOf(F.Name).c_str(), F.Fn);
}

// The control: schema only, kernel for the CPU key (below autograd).
TORCH_LIBRARY(tt_gt_cpu, M) {
  for (const Form &F : Forms)
    M.def(schemaOf(F.Name).c_str());
}
TORCH_LIBRARY_IMPL(tt_gt_cpu, CPU, M) {
  for (const Form &F : Forms)
    M.impl(F.Name, F.Fn);
}

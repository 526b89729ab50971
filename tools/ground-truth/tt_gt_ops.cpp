// Ground-truth reproducers written with LibTorch's C++ API.
//
// Fresh-local forms: every form builds a fresh target without gradient
// tracking, writes a source that requires grad into it (in place, or with the
// out-of-place fix), then reads requires_grad() and branches on it, as a
// kernel author would. The same bodies are registered twice:
//   tt_gt::*      as CompositeImplicitAutograd kernels (m.def(schema, fn)): the
//                 body runs above autograd and torch.compile traces through it;
//   tt_gt_cpu::*  as CPU kernels; their autograd formulas are registered from
//                 Python (cpp_ops.py). This is the control: below autograd.
//
// Mutable-argument forms: the operator writes the source into its
// `Tensor(a!)` argument, a fresh buffer that the compiled Python caller owns
// and whose requires_grad the caller reads after the call (measure.py). The
// same kernels are registered three ways:
//   tt_gt_mut::*         CompositeImplicitAutograd (m.def(schema, fn));
//   tt_gt_mut_cpu_ag::*  CPU kernels; cpp_ops.py registers an autograd formula
//                        with torch.library.register_autograd where it can;
//   tt_gt_mut_cpu::*     CPU kernels without an autograd formula;
//   tt_gt_mut_cea::*     CompositeExplicitAutograd kernels (every backend,
//                        below autograd), without an autograd formula.
// Each write form also has a functional twin (`(Tensor m, Tensor src) ->
// Tensor`, returning the written copy), registered the same three ways.
// tt_gt_infer::* are registered with m.def(name, fn), so LibTorch infers their
// schemas from the C++ signatures; measure.py records what it infers.
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

// The writes. Each one writes Src into M as one form does; the fresh-local
// forms below apply them to a new zeros tensor, the mutable-argument
// operators (tt_gt_mut*) to their `Tensor(a!)` argument.

void writeSetitemAdv(const Tensor &M,
                     const Tensor &Src) { // m[:, rows, cols] = src
  Tensor RowsCols = triuIndices(Src);
  Tensor Target = M; // index_put_ with a TensorIndex list is non-const
  Target.index_put_({Slice(), RowsCols[0], RowsCols[1]}, Src);
}
void writeSetitemSliceInt(const Tensor &M, const Tensor &Src) { // m[:, 0] = src
  M.index({Slice(), 0}) = Src;
}
void writeSetitemInt(const Tensor &M, const Tensor &Src) { // m[0] = src
  M[0] = Src;
}
void writeNarrowCopy(const Tensor &M, const Tensor &Src) {
  M.narrow(0, 1, 2).copy_(Src);
}
void writeSelectCopy(const Tensor &M, const Tensor &Src) {
  M.select(0, 0).copy_(Src);
}
void writeIndexCopy(const Tensor &M, const Tensor &Src) {
  M.index_copy_(0, indexCopyIndex(Src), Src);
}
void writeMaskedScatter(const Tensor &M, const Tensor &Src) {
  M.masked_scatter_(maskedScatterMask(Src), Src);
}
void writeScatter(const Tensor &M, const Tensor &Src) {
  M.scatter_(1, scatterIndex(Src), Src);
}
void writeViewAliasCopy(const Tensor &M, const Tensor &Src) { // w = m[1:3]
  Tensor W = M.slice(0, 1, 3);
  W.copy_(Src);
}
// Whole-tensor writes: measured for mutable arguments only.
void writeCopy(const Tensor &M, const Tensor &Src) { M.copy_(Src); }
void writeFill(const Tensor &M, const Tensor &Src) { M.fill_(Src); }
void writeAdd(const Tensor &M, const Tensor &Src) { M.add_(Src); }

// The out-of-place fix forms, as the functions the fixes call.
Tensor indexPutResult(const Tensor &M, const Tensor &Src) {
  Tensor RowsCols = triuIndices(Src);
  Tensor Batch = at::arange(2, longOn(Src)).unsqueeze(1);
  return M.index_put({Batch, RowsCols[0], RowsCols[1]}, Src);
}
Tensor sliceScatterResult(const Tensor &M, const Tensor &Src) {
  return at::slice_scatter(M, Src, 0, 1, 3);
}
Tensor selectScatterResult(const Tensor &M, const Tensor &Src) {
  return at::select_scatter(M, Src, 1, 0);
}
Tensor indexCopyResult(const Tensor &M, const Tensor &Src) {
  return M.index_copy(0, indexCopyIndex(Src), Src);
}
Tensor maskedScatterResult(const Tensor &M, const Tensor &Src) {
  return M.masked_scatter(maskedScatterMask(Src), Src);
}
Tensor scatterResult(const Tensor &M, const Tensor &Src) {
  return M.scatter(1, scatterIndex(Src), Src);
}

// Fresh-local forms: the target is made in the kernel (tt_gt, tt_gt_cpu).
template <void (*Write)(const Tensor &, const Tensor &), int64_t... Sizes>
Observed freshInPlace(const Tensor &Src) {
  Tensor M = freshTarget(Src, {Sizes...});
  Write(M, Src);
  return observe(M);
}
template <Tensor (*Result)(const Tensor &, const Tensor &), int64_t... Sizes>
Observed freshOutOfPlace(const Tensor &Src) {
  Tensor M = freshTarget(Src, {Sizes...});
  M = Result(M, Src);
  return observe(M);
}

// Operator names follow forms.py: the form id with a trailing '_' spelled
// '_inplace' (a trailing '_' in an operator name means in-place to PyTorch).
struct Form {
  const char *Name;
  Observed (*Fn)(const Tensor &);
};
const Form Forms[] = {
    {"setitem_adv_inplace", &freshInPlace<writeSetitemAdv, 2, 4, 4>},
    {"setitem_slice_int_inplace", &freshInPlace<writeSetitemSliceInt, 3, 4>},
    {"setitem_int_inplace", &freshInPlace<writeSetitemInt, 3, 4>},
    {"narrow_copy_inplace", &freshInPlace<writeNarrowCopy, 3, 4>},
    {"select_copy_inplace", &freshInPlace<writeSelectCopy, 3, 4>},
    {"index_copy_inplace", &freshInPlace<writeIndexCopy, 3, 4>},
    {"masked_scatter_inplace", &freshInPlace<writeMaskedScatter, 3, 4>},
    {"scatter_inplace", &freshInPlace<writeScatter, 3, 4>},
    {"view_alias_copy_inplace", &freshInPlace<writeViewAliasCopy, 3, 4>},
    {"index_put", &freshOutOfPlace<indexPutResult, 2, 4, 4>},
    {"slice_scatter", &freshOutOfPlace<sliceScatterResult, 3, 4>},
    {"select_scatter", &freshOutOfPlace<selectScatterResult, 3, 4>},
    {"index_copy", &freshOutOfPlace<indexCopyResult, 3, 4>},
    {"masked_scatter", &freshOutOfPlace<maskedScatterResult, 3, 4>},
    {"scatter", &freshOutOfPlace<scatterResult, 3, 4>},
};

std::string schemaOf(const char *Name) {
  return std::string(Name) + "(Tensor src) -> (Tensor, Tensor, Tensor, Tensor)";
}

// Mutable-argument kernels.
template <void (*Write)(const Tensor &, const Tensor &)>
void mutableKernel(Tensor &M, const Tensor &Src) {
  Write(M, Src);
}
void kwonlyOutKernel(const Tensor &Src, Tensor &Out) {
  writeNarrowCopy(Out, Src);
}
Tensor &returnsAliasKernel(Tensor &M, const Tensor &Src) {
  writeNarrowCopy(M, Src);
  return M;
}

struct MutableForm {
  const char *Name;
  void (*Fn)(Tensor &, const Tensor &);
};
const MutableForm MutableForms[] = {
    {"setitem_adv_inplace", &mutableKernel<writeSetitemAdv>},
    {"setitem_slice_int_inplace", &mutableKernel<writeSetitemSliceInt>},
    {"setitem_int_inplace", &mutableKernel<writeSetitemInt>},
    {"narrow_copy_inplace", &mutableKernel<writeNarrowCopy>},
    {"select_copy_inplace", &mutableKernel<writeSelectCopy>},
    {"index_copy_inplace", &mutableKernel<writeIndexCopy>},
    {"masked_scatter_inplace", &mutableKernel<writeMaskedScatter>},
    {"scatter_inplace", &mutableKernel<writeScatter>},
    {"view_alias_copy_inplace", &mutableKernel<writeViewAliasCopy>},
    {"copy_inplace", &mutableKernel<writeCopy>},
    {"fill_inplace", &mutableKernel<writeFill>},
    {"add_inplace", &mutableKernel<writeAdd>},
};

struct FunctionalForm {
  const char *Name;
  Tensor (*Fn)(const Tensor &, const Tensor &);
};
const FunctionalForm FunctionalForms[] = {
    {"index_put", &indexPutResult},
    {"slice_scatter", &sliceScatterResult},
    {"select_scatter", &selectScatterResult},
    {"index_copy", &indexCopyResult},
    {"masked_scatter", &maskedScatterResult},
    {"scatter", &scatterResult},
};

std::string mutableSchemaOf(const char *Name) {
  return std::string(Name) + "(Tensor(a!) m, Tensor src) -> ()";
}
std::string functionalSchemaOf(const char *Name) {
  return std::string(Name) + "(Tensor m, Tensor src) -> Tensor";
}
const char *const KwonlyOutSchema =
    "kwonly_out_inplace(Tensor src, *, Tensor(a!) out) -> ()";
const char *const ReturnsAliasSchema =
    "returns_alias_inplace(Tensor(a!) m, Tensor src) -> Tensor(a!)";

// Registers every mutable and functional form: with their kernels as
// CompositeImplicitAutograd (WithKernels), or as schemas only.
void defineMutableForms(torch::Library &M, bool WithKernels) {
  for (const MutableForm &F : MutableForms)
    WithKernels ? M.def(mutableSchemaOf(F.Name).c_str(), F.Fn)
                : M.def(mutableSchemaOf(F.Name).c_str());
  for (const FunctionalForm &F : FunctionalForms)
    WithKernels ? M.def(functionalSchemaOf(F.Name).c_str(), F.Fn)
                : M.def(functionalSchemaOf(F.Name).c_str());
  if (WithKernels) {
    M.def(KwonlyOutSchema, &kwonlyOutKernel);
    M.def(ReturnsAliasSchema, &returnsAliasKernel);
  } else {
    M.def(KwonlyOutSchema);
    M.def(ReturnsAliasSchema);
  }
}
void implementMutableForms(torch::Library &M) {
  for (const MutableForm &F : MutableForms)
    M.impl(F.Name, F.Fn);
  for (const FunctionalForm &F : FunctionalForms)
    M.impl(F.Name, F.Fn);
  M.impl("kwonly_out_inplace", &kwonlyOutKernel);
  M.impl("returns_alias_inplace", &returnsAliasKernel);
}

// Schema inference (m.def(name, fn)): what LibTorch makes of reference
// parameters and returns.
void inferRefArg(Tensor &M, const Tensor &Src) { M.copy_(Src); }
void inferConstRefArg(const Tensor &M, const Tensor &Src) { M.copy_(Src); }
Tensor &inferReturnsRef(Tensor &M, const Tensor &Src) { return M.copy_(Src); }

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

TORCH_LIBRARY(tt_gt_mut, M) { defineMutableForms(M, /*WithKernels=*/true); }
TORCH_LIBRARY(tt_gt_mut_cpu_ag, M) {
  defineMutableForms(M, /*WithKernels=*/false);
}
TORCH_LIBRARY_IMPL(tt_gt_mut_cpu_ag, CPU, M) { implementMutableForms(M); }
TORCH_LIBRARY(tt_gt_mut_cpu, M) {
  defineMutableForms(M, /*WithKernels=*/false);
}
TORCH_LIBRARY_IMPL(tt_gt_mut_cpu, CPU, M) { implementMutableForms(M); }
TORCH_LIBRARY(tt_gt_mut_cea, M) {
  defineMutableForms(M, /*WithKernels=*/false);
}
TORCH_LIBRARY_IMPL(tt_gt_mut_cea, CompositeExplicitAutograd, M) {
  implementMutableForms(M);
}

TORCH_LIBRARY(tt_gt_infer, M) {
  M.def("ref_arg", &inferRefArg);
  M.def("const_ref_arg", &inferConstRefArg);
  M.def("returns_ref", &inferReturnsRef);
}

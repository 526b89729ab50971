// A differential test case: a small program over host data, run once on the
// runtime and once on LibTorch, with outcomes compared field by field.
#pragma once

#include "torch_tidy/programs/Vocabulary.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace torch_tidy::differential {

using runtime::DType;
using runtime::Shape;

// Arrays, index lists and view chains are the shared vocabulary of random
// programs (torch_tidy/programs/Vocabulary.h); an index tensor here is an
// Array of its own (int64 or bool).
using programs::Array;
using programs::IndexKind;
using IndexSpec = programs::Index<Array>;
using programs::ViewKind;
using programs::ViewStep;

/// Where an in-place op writes: the input itself (a leaf), a clone of it, or
/// a view of a clone (whose base is then the result, as in CopySlices).
enum class WriteInto { Leaf, Clone, ViewOfClone };

struct Case {
  std::string family, op;
  std::vector<Array> inputs; // inputs[0] is self
  std::vector<IndexSpec> indices;
  std::vector<ViewStep> views; // applied to self before the op
  WriteInto write_into = WriteInto::Clone;
  /// The in-place write happens in the kernel of a C++ operator whose
  /// mutable (`Tensor(a!)`) argument is the written tensor (the base, when
  /// writing through a view): a dispatcher call in LibTorch,
  /// runtime::call_operator in the runtime.
  bool through_operator = false;
  std::vector<std::int64_t> ints; // dim, start, end, ... per op
  Shape shape;
  DType dtype = DType::Float32; // of factories
  double scalar = 0;
  bool flag = false;     // accumulate / keepdim
  bool raw_list = false; // index_put through at::index_put_'s optional list
  bool compare_values = true;    // false for empty/randn
  bool compare_layout = false;   // strides and offset, for views
  std::uint64_t weight_seed = 0; // loss = sum(result * weights(seed))
};

struct Outcome {
  bool error = false;
  std::string message;
  Array result;
  Shape strides;
  std::int64_t offset = 0;
  bool result_requires_grad = false;
  bool backward_error = false;
  std::string backward_message;
  std::vector<Array> grads; // per input that requires grad; zeros if unused
};

enum class FactoryKind { Zeros, Ones, Full, Arange, TriuIndices, Empty, Randn };

std::string describe(const Case &c);
/// Each side's executor; `device` is "cpu" or "cuda".
Outcome run_on_runtime(const Case &c, const std::string &device);
Outcome run_on_libtorch(const Case &c, const std::string &device);
/// The version of the LibTorch linked (TORCH_VERSION_MAJOR, _MINOR).
std::pair<int, int> libtorch_version();
/// Empty while `device` works; otherwise the first line of the error a tiny
/// op raises there (a device-side assert poisons a CUDA context for good).
std::string device_error(const std::string &device);

} // namespace torch_tidy::differential

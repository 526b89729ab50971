// The write forms of the seed bug (docs/design.md section 1) as runtime
// programs, keyed by the form ids of docs/ground-truth.json, plus the
// out-of-place twins the fix-its rewrite them to.
#pragma once

#include "torch_tidy/runtime/operator_call.h"
#include "torch_tidy/runtime/tensor.h"

#include <functional>
#include <string>
#include <vector>

namespace torch_tidy::runtime {

struct WriteForm {
  std::string id; // e.g. "setitem_adv_", "index_put"
  bool in_place;
  Shape source_shape;
  /// Writes `source` into `target` (fresh zeros of write_form_target_shape())
  /// and returns the tensor the program continues with: `target` itself for
  /// in-place forms, the new tensor for out-of-place twins.
  std::function<Tensor(Tensor &target, const Tensor &source)> write;
};

const std::vector<WriteForm> &write_forms();
const WriteForm &write_form(const std::string &id);
Shape write_form_target_shape();

/// Where the write happens: in the program itself, or in the kernel of a C++
/// operator that the program calls with m as its mutable argument (an
/// out-of-place form is then the operator's functional twin, and the
/// program takes its result).
enum class WriteSite { Program, Operator };

/// The seed program: m = zeros(...); <write source into m>; optionally the
/// user's branch "if (!m.requires_grad()) m = m.detach();"; loss = sum(m * w).
struct SeedProgramRun {
  bool requires_grad_after_write; // as the current mode reports it
  Tensor result;                  // m after the write (and the branch)
  Tensor loss;
};
SeedProgramRun run_seed_program(const WriteForm &form, const Tensor &source,
                                bool branch_on_requires_grad,
                                WriteSite site = WriteSite::Program);

} // namespace torch_tidy::runtime

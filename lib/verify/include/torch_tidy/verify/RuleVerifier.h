// The rule verifiers: for every rewrite rule of RewriteRules.def, a
// generator of random instances of the rule (the in-place write the check
// flags and the rewrite the rule makes of it, as reference-runtime programs)
// and the runner that proves each instance (docs/design.md section 4):
//
//   - the original runs in eager mode; the rewrite runs in eager and in
//     compiled mode, and gives the same values and gradients, with
//     requires_grad() true in both modes;
//   - the original in compiled mode loses requires_grad (the bug).
//
// Rules of the other checks state their own property (Expectation).
// Nothing here depends on LLVM, so the suite also builds where only the
// runtime does (the GPU machine).
#pragma once

#include "torch_tidy/programs/Vocabulary.h"
#include "torch_tidy/runtime/runtime.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torch_tidy::verify {

namespace rt = torch_tidy::runtime;

/// One input of an instance, made afresh on the device for every run.
struct Input {
  std::string name; // as the instance's text spells it
  rt::Shape shape;
  rt::DType dtype = rt::DType::Float32;
  std::vector<double> values;
  bool requires_grad = false;
};

/// What a rule's rewrite must do.
enum class Expectation {
  /// Out-of-place rewrites: same values and gradients as the original,
  /// requires_grad() restored, and the original loses it when compiled.
  SameAsOriginal,
  /// The original writes into a copy and is lost; the rewrite writes what
  /// the original meant to (torch-index-assign-to-copy).
  OriginalLosesWrite,
  /// The original throws autograd's leaf error; the rewrite writes under
  /// NoGradGuard and the target stays a leaf (torch-inplace-on-grad-leaf).
  OriginalThrowsLeafError,
};

using Program = std::function<rt::Tensor(rt::Tensor &target,
                                         const std::vector<rt::Tensor> &in)>;

/// A random instance of a rule: the target (zeros of target_shape, the
/// tensor created without gradient tracking), the inputs, the original
/// in-place program and the rule's rewrite of it.
struct Instance {
  std::string text; // the instance in LibTorch spelling, for reports
  rt::Shape target_shape;
  rt::DType target_dtype = rt::DType::Float32;
  /// The target's values (created without gradient tracking); empty:
  /// zeros. Rules whose result reads the old values (mul_, div_, clamp_
  /// through a view) draw them, or zeros would hide a wrong op.
  std::vector<double> target_values;
  std::vector<Input> inputs;
  Program original, rewrite;
  Expectation expect = Expectation::SameAsOriginal;
  /// SameAsOriginal: the value is one the short fix assumes away (a value
  /// copy_ or setitem would broadcast or strip): the rewrite may throw
  /// instead, but where it runs it must give the original's values.
  bool may_throw = false;
  /// OriginalLosesWrite: the write the original meant, applied to a fresh
  /// target (the reference the rewrite must match).
  Program intended;
};

/// The seeded draws of the shared random-program vocabulary.
using Random = programs::Random;

struct RuleVerifier {
  std::string rule_id;
  /// What the instances vary, for reports and docs.
  std::string varies;
  std::function<Instance(Random &)> make_instance;
  /// The row of RewriteRules.def whose Forms column (RuleForms.h) gives
  /// the shapes of this rule's replacement texts, which the planner checks
  /// its fixes against too: rule_id's own row where empty (a test's
  /// deliberately wrong rule borrows the row of the rule it breaks).
  std::string forms_row;
};

/// The verifiers, one per rule id.
const std::vector<RuleVerifier> &rule_verifiers();
const RuleVerifier *find_rule_verifier(std::string_view rule_id);
/// Registers an extra verifier (tests compile in deliberately wrong rules).
void add_rule_verifier(RuleVerifier verifier);

/// The rule ids of RewriteRules.def proven on the reference runtime, in
/// table order: every row but the Schema ones.
const std::vector<std::string> &rewrite_rule_ids();
/// A Schema row of RewriteRules.def: the fix edits an operator's schema
/// string or a kernel's return, and is proven against real torch by the
/// op-mutation-fixes ctests instead
/// (docs/checks/torch-op-undeclared-mutation.md).
bool is_schema_rule(std::string_view rule_id);
/// Whether rule_id is a LibTorch row of RewriteRules.def (the fixes of
/// torch-write-into-copy): proven by building the fixed kernels against
/// real LibTorch and running them (the write-into-copy-fixes test).
bool is_libtorch_rule(std::string_view rule_id);

bool device_available(rt::Device device);

/// "[2,3]", as instance texts and reports spell shapes.
using programs::shape_text;

struct RuleReport {
  std::string rule_id;
  rt::Device device = rt::Device::CPU;
  int instances = 0; ///< run
  int failed = 0;
  std::string first_failure; ///< the instance's text and what differed
};

/// Runs `instances` random instances of the rule on the device.
RuleReport verify_rule(const RuleVerifier &verifier, rt::Device device,
                       int instances, std::uint64_t seed);

/// Runs one instance; the failure, or nothing when it is proven.
std::optional<std::string> check_instance(const Instance &instance,
                                          rt::Device device);

} // namespace torch_tidy::verify

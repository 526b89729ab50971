//===- GroundTruth.cpp - What the measurements say ------------------------===//

#include "torch_tidy/analysis/GroundTruth.h"

namespace torch_tidy {
namespace ground_truth {

bool mutableArgumentLossMeasured(llvm::StringRef DispatchKey) {
  return DispatchKey == "CompositeImplicitAutograd" ||
         DispatchKey == "CompositeExplicitAutograd" || DispatchKey == "CPU";
}

bool newestLosesFreshWrite(WriteKind Kind, bool ThroughView) {
  switch (Kind) {
  case WriteKind::Copy:
  case WriteKind::Fill:
  case WriteKind::ViewAssign:
    return true; // always into a view: narrow_copy_, select_copy_, ...
  default:
    return ThroughView;
  }
}

bool freshViewArithmeticMeasured(llvm::StringRef OpName) {
  return OpName == "add_" || OpName == "sub_" || OpName == "mul_" ||
         OpName == "div_" || OpName == "clamp_";
}

} // namespace ground_truth
} // namespace torch_tidy

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

llvm::ArrayRef<CopyingMethod> copyingMethods() {
  // Device moves are here with their target device named (cpu(), cuda(),
  // to(kCPU), to(kCUDA)); to(a device in a variable), to(device, dtype),
  // to(other) and type_as(other) were not measured.
  static const CopyingMethod Methods[] = {
      {"contiguous", "", "contiguous", CopyCondition::Layout,
       "is not contiguous"},
      {"contiguous", "format", "to_memory_format", CopyCondition::MemoryFormat,
       "is not contiguous in that memory format"},
      {"expect_contiguous", "", "expect_contiguous", CopyCondition::Layout,
       "is not contiguous"},
      {"reshape", "", "reshape", CopyCondition::Layout,
       "cannot be viewed in the new shape (a transposed tensor)"},
      {"flatten", "", "flatten", CopyCondition::Layout,
       "cannot be viewed flat (a transposed tensor)"},
      {"to", "dtype", "to_dtype|to_dtype_half", CopyCondition::Dtype,
       "has another dtype"},
      {"toType", "dtype", "toType", CopyCondition::Dtype, "has another dtype"},
      {"to", "options", "to_options_memory_format", CopyCondition::Options,
       "differs in dtype or memory format"},
      {"cpu", "", "cuda_cpu", CopyCondition::Device, "is a CUDA tensor"},
      {"to", "cpu", "cuda_to_cpu", CopyCondition::Device, "is a CUDA tensor"},
      {"cuda", "", "cpu_cuda", CopyCondition::Device, "is a CPU tensor"},
      {"to", "cuda", "cpu_to_cuda", CopyCondition::Device, "is a CPU tensor"},
  };
  return Methods;
}

bool deviceMoveAlwaysCopies(const CopyingMethod &M, llvm::StringRef Key) {
  if (M.Condition != CopyCondition::Device)
    return false;
  bool FromCuda = llvm::StringRef(M.When).contains("CUDA");
  return FromCuda ? (Key == "CUDA" || Key == "AutogradCUDA")
                  : (Key == "CPU" || Key == "AutogradCPU");
}

const CopyingMethod *findCopyingMethod(llvm::StringRef Method,
                                       llvm::StringRef Form) {
  for (const CopyingMethod &M : copyingMethods())
    if (M.Method == Method && M.Form == Form)
      return &M;
  return nullptr;
}

} // namespace ground_truth
} // namespace torch_tidy

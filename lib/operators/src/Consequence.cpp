//===- Consequence.cpp - What torch.compile does with an operator ---------===//

#include "torch_tidy/operators/Consequence.h"

#include "llvm/ADT/STLExtras.h"

namespace torch_tidy {

bool isFakeKey(llvm::StringRef Key) {
  return Key == "Fake" || Key == "Meta" || Key == "CompositeExplicitAutograd" ||
         Key == "CompositeExplicitAutogradNonFunctional";
}

bool isCatchAllKey(llvm::StringRef Key) {
  return Key == "CompositeImplicitAutograd";
}

bool isAutogradKey(llvm::StringRef Key) { return Key.starts_with("Autograd"); }

const KernelSite *fakeSite(llvm::ArrayRef<KernelSite> Sites) {
  // A Python fake or a Meta kernel before a CompositeExplicitAutograd kernel:
  // the note names what a reader recognises as the fake.
  const KernelSite *Best = nullptr;
  for (const KernelSite &S : Sites)
    if (isFakeKey(S.Key) &&
        (!Best || (Best->Key == "CompositeExplicitAutograd" &&
                   S.Key != "CompositeExplicitAutograd")))
      Best = &S;
  return Best;
}

const KernelSite *disallowSite(llvm::ArrayRef<KernelSite> Sites) {
  for (const KernelSite &S : Sites)
    if (S.Key == DisallowInGraphKey)
      return &S;
  return nullptr;
}

Consequence consequenceOf(llvm::ArrayRef<KernelSite> Sites, bool RawCatchAll) {
  if (fakeSite(Sites))
    return Consequence::Silent;
  bool CatchAll = llvm::any_of(
      Sites, [](const KernelSite &S) { return isCatchAllKey(S.Key); });
  bool Backend = llvm::any_of(Sites, [](const KernelSite &S) {
    return !isCatchAllKey(S.Key) && !isFakeKey(S.Key) &&
           S.Key != DisallowInGraphKey;
  });
  // A backend kernel takes the call before a catch-all one; with none, the
  // catch-all kernel is what Dynamo runs on fake tensors.
  if (CatchAll && !Backend)
    return RawCatchAll ? Consequence::Loud : Consequence::Traced;
  return Consequence::GraphBreak;
}

llvm::StringRef consequenceName(Consequence C) {
  switch (C) {
  case Consequence::Silent:
    return "silent";
  case Consequence::GraphBreak:
    return "graph-break";
  case Consequence::Traced:
    return "traced";
  case Consequence::Loud:
    return "loud";
  }
  return "";
}

llvm::ArrayRef<llvm::StringLiteral> registrationRows(Consequence C) {
  static constexpr llvm::StringLiteral Silent[] = {"python_fake", "cpp_meta",
                                                   "composite_explicit"};
  static constexpr llvm::StringLiteral GraphBreak[] = {"backend_only",
                                                       "autograd_mark_dirty"};
  static constexpr llvm::StringLiteral Traced[] = {"catchall_aten"};
  static constexpr llvm::StringLiteral Loud[] = {"catchall_raw"};
  switch (C) {
  case Consequence::Silent:
    return Silent;
  case Consequence::GraphBreak:
    return GraphBreak;
  case Consequence::Traced:
    return Traced;
  case Consequence::Loud:
    return Loud;
  }
  return {};
}

} // namespace torch_tidy

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
  // A Python fake or a Meta kernel before a CompositeExplicitAutograd kernel,
  // and one with a place before one without (torch's registry keeps none
  // for a Meta kernel registered from Python): the note names what a reader
  // recognises as the fake.
  const KernelSite *Best = nullptr;
  auto Rank = [](const KernelSite &S) {
    return (S.Key != "CompositeExplicitAutograd" ? 2 : 0) + (S.Line ? 1 : 0);
  };
  for (const KernelSite &S : Sites)
    if (isFakeKey(S.Key) && (!Best || Rank(S) > Rank(*Best)))
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
  // Fake tensors decompose a catch-all kernel before anything else is
  // asked: whatever else the operator registers (a device kernel beside it,
  // as rwkv's `def(name, fn)` plus `impl(name, kCUDA, fn)`, a Meta kernel),
  // Dynamo runs the catch-all kernel on fake tensors, and torch refuses a
  // Python fake for it (rows catchall_raw_device, catchall_raw_cuda,
  // catchall_raw_meta, catchall_raw_fake, catchall_aten_device).
  if (llvm::any_of(Sites,
                   [](const KernelSite &S) { return isCatchAllKey(S.Key); }))
    return RawCatchAll ? Consequence::Loud : Consequence::Traced;
  if (fakeSite(Sites))
    return Consequence::Silent;
  if (unnamedFakeSite(Sites))
    return Consequence::Unknown;
  return Consequence::GraphBreak;
}

bool backendBesideCatchAll(llvm::ArrayRef<KernelSite> Sites) {
  bool CatchAll = false, Backend = false;
  for (const KernelSite &S : Sites) {
    if (isCatchAllKey(S.Key))
      CatchAll = true;
    else if (!isFakeKey(S.Key) && S.Key != DisallowInGraphKey &&
             S.Key != UnnamedFakeKey && S.Key != NotReadKey &&
             S.Key != OpaqueCallerKey)
      Backend = true;
  }
  return CatchAll && Backend;
}

std::vector<const KernelSite *>
opaqueCallerSites(llvm::ArrayRef<KernelSite> Sites) {
  std::vector<const KernelSite *> Out;
  for (const KernelSite &S : Sites)
    if (S.Key == OpaqueCallerKey)
      Out.push_back(&S);
  return Out;
}

const KernelSite *unnamedFakeSite(llvm::ArrayRef<KernelSite> Sites) {
  // A fake whose operator the index could not name, or a Python
  // registration of this operator whose dispatch key it could not read
  // (`torch.library.impl("ns::op", key)`): either may be its fake.
  for (const KernelSite &S : Sites)
    if (S.Key == UnnamedFakeKey || S.Key == NotReadKey)
      return &S;
  return nullptr;
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
  case Consequence::Unknown:
    return "unknown";
  }
  return "";
}

llvm::ArrayRef<llvm::StringLiteral> registrationRows(Consequence C) {
  // A Python fake counts the same however the project's code reaches
  // register_fake: a call, a loop over names, getattr, a helper, under a
  // condition that holds (measured alike); a condition that does not hold
  // registers none.
  static constexpr llvm::StringLiteral Silent[] = {"python_fake",
                                                   "cpp_meta",
                                                   "composite_explicit",
                                                   "python_fake_loop",
                                                   "python_fake_getattr",
                                                   "python_fake_helper",
                                                   "python_fake_condition_on"};
  static constexpr llvm::StringLiteral GraphBreak[] = {
      "backend_only", "autograd_mark_dirty", "python_fake_condition_off"};
  static constexpr llvm::StringLiteral Traced[] = {"catchall_aten",
                                                   "catchall_aten_device"};
  static constexpr llvm::StringLiteral Loud[] = {
      "catchall_raw", "catchall_raw_cuda", "catchall_raw_device",
      "catchall_raw_meta", "catchall_raw_fake"};
  switch (C) {
  case Consequence::Silent:
    return Silent;
  case Consequence::GraphBreak:
    return GraphBreak;
  case Consequence::Traced:
    return Traced;
  case Consequence::Loud:
    return Loud;
  case Consequence::Unknown:
    // Not a measurement: what the index could not read.
    return {};
  }
  return {};
}

} // namespace torch_tidy

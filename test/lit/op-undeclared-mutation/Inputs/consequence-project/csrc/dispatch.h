// The project's own registration macro, as fbgemm-style projects write it.
#pragma once
#define DISPATCH_TO_META(name, function)                                       \
  m.impl(name, torch::dispatch(c10::DispatchKey::Meta, TORCH_FN(function)))

// The project's dispatch layer, in the shape of ATen's DispatchStub and the
// macros big operator libraries define over it, and a helper that defines
// an operator with the schema LibTorch infers from a function's signature.
#pragma once
#include <torch/library.h>

#include <memory>
#include <type_traits>
#include <utility>

template <typename Fn> struct StubDispatch {
  Fn impl = nullptr;
  template <typename... Args> void operator()(c10::DeviceType, Args &&...args) {
    impl(std::forward<Args>(args)...);
  }
};

#define STUB_DECLARE_DISPATCH(fn_type, name) extern StubDispatch<fn_type> name
#define STUB_DEFINE_DISPATCH(name) decltype(name) name
#define STUB_REGISTER_DISPATCH(name, fn)                                       \
  static const bool name##_registered = (name.impl = fn, true)

template <typename Func>
void define_inferred(const char *name, Func &&, torch::Library &m) {
  std::unique_ptr<c10::FunctionSchema> s =
      c10::detail::inferFunctionSchemaFromFunctor<std::decay_t<Func>>();
  m.def(s->cloneWithName(name, ""));
}

#define STUB_OP_REGISTER_DISPATCH(NAME, Func, Key)                             \
  define_inferred("stub_lib::" NAME, Func, m);                                 \
  m.impl(NAME, Key, Func);

using shrink_fn = void (*)(at::Tensor &, const at::Tensor &, double);
using lora_fn = void (*)(at::Tensor &, const at::Tensor &, double);
STUB_DECLARE_DISPATCH(shrink_fn, shrink_stub);
STUB_DECLARE_DISPATCH(lora_fn, lora_stub);

// A dispatch layer of the project's own, in the shape of ATen's
// DispatchStub and the macros big operator libraries define over it: the
// registered function calls a stub with a device type; the kernel is
// registered to the stub in another file.
#pragma once
#include <torch/torch.h>

#include <utility>

template <typename Fn> struct StubpDispatch {
  Fn impl = nullptr;
  template <typename... Args> void operator()(c10::DeviceType, Args &&...args) {
    impl(std::forward<Args>(args)...);
  }
};

#define STUBP_DECLARE_DISPATCH(fn_type, name) extern StubpDispatch<fn_type> name
#define STUBP_DEFINE_DISPATCH(name) decltype(name) name
#define STUBP_REGISTER_DISPATCH(name, fn)                                      \
  static const bool name##_registered = (name.impl = fn, true)

using shrink_fn = void (*)(at::Tensor &, const at::Tensor &, double);
using expand_fn = void (*)(at::Tensor &, const at::Tensor &);
using scale_fn = void (*)(at::Tensor &, double);
STUBP_DECLARE_DISPATCH(shrink_fn, shrink_stub);
STUBP_DECLARE_DISPATCH(expand_fn, expand_stub);
STUBP_DECLARE_DISPATCH(scale_fn, scale_stub);

// A helper that defines an operator with the schema LibTorch infers from the
// function's C++ signature (no argument mutable), and a registration macro
// over it: the shape of a big CPU library's construct_function_schema_and_
// register and its OP_REGISTER_DISPATCH.
namespace c10 {
namespace detail {
template <typename F> int inferFunctionSchemaFromFunctor();
} // namespace detail
} // namespace c10

template <typename Func>
void stubp_define_inferred(const char *name, Func &&f, torch::Library &m) {
  (void)c10::detail::inferFunctionSchemaFromFunctor<std::decay_t<Func>>();
  (void)name;
  (void)f;
  (void)m;
}

#define STUBP_OP_REGISTER_DISPATCH(NAME, Func, Key)                            \
  stubp_define_inferred("stubp::" NAME, Func, m);                              \
  m.impl("stubp::" NAME, Key, Func);

using lora_fn = void (*)(at::Tensor &, at::Tensor &, at::Tensor &, double);
STUBP_DECLARE_DISPATCH(lora_fn, lora_shrink_stub);

// Mock of <torch/library.h>: torch::Library, torch::dispatch, TORCH_FN and
// the TORCH_LIBRARY* macros, over ATen only (an extension that includes
// <ATen/ATen.h> and <torch/library.h> sees no torch:: factories).
#pragma once
#include "mock_aten.h"

namespace torch {
class CppFunction {
public:
  template <typename Func> explicit CppFunction(Func *f) {}
  template <typename Lambda> explicit CppFunction(Lambda &&l, int = 0) {}
};
template <typename Func> CppFunction dispatch(c10::DispatchKey k, Func &&f) {
  return CppFunction(f);
}
template <typename Func> CppFunction dispatch(c10::DeviceType t, Func &&f) {
  return CppFunction(f);
}
namespace detail {
// TORCH_SELECTIVE_SCHEMA / TORCH_SELECTIVE_NAME wrap the string.
template <bool enabled> class SelectiveStr {
public:
  constexpr explicit SelectiveStr(const char *name) : name_(name) {}
  constexpr operator const char *() const { return name_; }

private:
  const char *name_;
};
} // namespace detail
class Library {
public:
  enum Kind { DEF, IMPL, FRAGMENT };
  Library(Kind kind, std::string ns, std::optional<c10::DispatchKey> k,
          const char *file, uint32_t line);
  Library &def(const char *schema) &;
  template <typename Func> Library &def(const char *schema, Func &&f) & {
    return *this;
  }
  template <typename Func> Library &impl(const char *name, Func &&f) & {
    return *this;
  }
  Library &impl(const char *name, CppFunction &&f) &;
  template <typename Dispatch, typename Func>
  Library &impl(const char *name, Dispatch &&key, Func &&f) & {
    return *this;
  }
  Library &def(detail::SelectiveStr<true> schema) &;
  template <typename Func>
  Library &def(detail::SelectiveStr<true> schema, Func &&f) & {
    return *this;
  }
  template <typename Func>
  Library &impl(detail::SelectiveStr<true> name, Func &&f) & {
    return *this;
  }
};
// The registration API before torch::Library (still in LibTorch 2.x):
// torch::RegisterOperators().op(schema, fn[, options]) and
// .op(RegisterOperators::options().schema(...).kernel<...>(key)).
} // namespace torch
namespace c10 {
class RegisterOperators {
public:
  class Options {
  public:
    Options &&schema(const std::string &schemaOrName) &&;
    template <class FuncType, FuncType *kernel_func>
    Options &&kernel(c10::DispatchKey dispatch_key) &&;
    template <class FuncType>
    Options &&kernel(c10::DispatchKey dispatch_key, FuncType *kernel_func) &&;
    template <class FuncType, FuncType *kernel_func>
    Options &&catchAllKernel() &&;
    template <class FuncType> Options &&catchAllKernel(FuncType *func) &&;
  };
  RegisterOperators();
  static Options options();
  RegisterOperators &&op(Options &&options) &&;
  template <class FuncType>
  RegisterOperators &&op(const std::string &schemaOrName, FuncType *func,
                         Options &&options = RegisterOperators::options()) &&;
  RegisterOperators &&op(const std::string &schemaOrName,
                         Options &&options) &&;
};
} // namespace c10
namespace torch {
using c10::RegisterOperators;
namespace detail {
class TorchLibraryInit final {
  using InitFn = void(Library &);
  Library lib_;

public:
  TorchLibraryInit(Library::Kind kind, InitFn *fn, const char *ns,
                   std::optional<c10::DispatchKey> k, const char *file,
                   uint32_t line)
      : lib_(kind, ns, k, file, line) {
    fn(lib_);
  }
};
} // namespace detail
} // namespace torch

#define TORCH_FN(func)                                                         \
  ::c10::CompileTimeFunctionPointer<                                           \
      std::remove_pointer_t<std::remove_reference_t<decltype(func)>>, func>()
#define TORCH_SELECTIVE_SCHEMA(n) torch::detail::SelectiveStr<true>(n)
#define TORCH_SELECTIVE_NAME(n) torch::detail::SelectiveStr<true>(n)
#define TT_MOCK_CONCAT_(a, b) a##b
#define TT_MOCK_CONCAT(a, b) TT_MOCK_CONCAT_(a, b)
#define TORCH_LIBRARY(ns, m)                                                   \
  static void TORCH_LIBRARY_init_##ns(torch::Library &);                       \
  static const torch::detail::TorchLibraryInit TORCH_LIBRARY_static_init_##ns( \
      torch::Library::DEF, &TORCH_LIBRARY_init_##ns, #ns, std::nullopt,        \
      __FILE__, __LINE__);                                                     \
  void TORCH_LIBRARY_init_##ns(torch::Library &m)
#define TORCH_LIBRARY_FRAGMENT(ns, m)                                          \
  static void TT_MOCK_CONCAT(TORCH_LIBRARY_FRAGMENT_init_##ns##_,              \
                             __LINE__)(torch::Library &);                      \
  static const torch::detail::TorchLibraryInit TT_MOCK_CONCAT(                 \
      TORCH_LIBRARY_FRAGMENT_static_init_##ns##_, __LINE__)(                   \
      torch::Library::FRAGMENT,                                                \
      &TT_MOCK_CONCAT(TORCH_LIBRARY_FRAGMENT_init_##ns##_, __LINE__), #ns,     \
      std::nullopt, __FILE__, __LINE__);                                       \
  void TT_MOCK_CONCAT(TORCH_LIBRARY_FRAGMENT_init_##ns##_,                     \
                      __LINE__)(torch::Library & m)
#define TORCH_LIBRARY_IMPL(ns, k, m)                                           \
  static void TT_MOCK_CONCAT(TORCH_LIBRARY_IMPL_init_##ns##_##k##_,            \
                             __LINE__)(torch::Library &);                      \
  static const torch::detail::TorchLibraryInit TT_MOCK_CONCAT(                 \
      TORCH_LIBRARY_IMPL_static_init_##ns##_##k##_, __LINE__)(                 \
      torch::Library::IMPL,                                                    \
      [] {                                                                     \
        return &TT_MOCK_CONCAT(TORCH_LIBRARY_IMPL_init_##ns##_##k##_,          \
                               __LINE__);                                      \
      }(),                                                                     \
      #ns, std::make_optional(c10::DispatchKey::k), __FILE__, __LINE__);       \
  void TT_MOCK_CONCAT(TORCH_LIBRARY_IMPL_init_##ns##_##k##_,                   \
                      __LINE__)(torch::Library & m)

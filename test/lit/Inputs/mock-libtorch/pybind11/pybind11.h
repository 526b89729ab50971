#pragma once
// The part of pybind11 the tests use: a module that binds functions by
// name.
namespace pybind11 {
class module_ {
public:
  template <typename F, typename... Extra>
  module_ &def(const char *Name, F &&Function, const Extra &...Extras) {
    return *this;
  }
};
} // namespace pybind11
namespace py = pybind11;
#define PYBIND11_MODULE(name, variable)                                        \
  void pybind11_init_##name(::pybind11::module_ &variable)

// LibTorch is C++: no torch-* check runs on a C translation unit (one
// isLanguageVersionSupported in TorchTidyCheck), and all four run on C++.
// The check profile lists the checks that ran.
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' --enable-check-profile %s -- -x c > %t.c.out 2>&1
// RUN: not grep -E "torch-|warning|error|Stack dump" %t.c.out
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' --enable-check-profile %s -- -std=c++17 > %t.cpp.out 2>&1
// RUN: grep -c -E "torch-(compile-requires-grad-propagation|index-assign-to-copy|inplace-on-grad-leaf|op-undeclared-mutation)$" %t.cpp.out | grep -x 4

int first(int *t) {
  t[0] = 1;
  return t[0];
}

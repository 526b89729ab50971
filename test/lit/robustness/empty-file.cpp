// An empty translation unit: exit 0, no output.
// RUN: printf '' > %t.cpp
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' %t.cpp -- -std=c++17 > %t.out 2>&1
// RUN: not grep -E "warning|error|Stack dump" %t.out

// A second --fix run changes nothing, and --export-fixes applied with
// clang-apply-replacements gives the same text as --fix.
// RUN: rm -rf %t && mkdir -p %t/fix %t/export
// RUN: cp %S/index-put-style.cpp %t/fix/a.cpp && cp %S/index-put-style.cpp %t/export/a.cpp
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' --fix %t/fix/a.cpp -- -std=c++17 -isystem %mock_include -I %S/../../../include
// RUN: cp %t/fix/a.cpp %t/once.cpp
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' --fix %t/fix/a.cpp -- -std=c++17 -isystem %mock_include -I %S/../../../include > %t/second.out 2>&1
// RUN: diff %t/once.cpp %t/fix/a.cpp
// RUN: not grep "warning: in-place" %t/second.out
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' --export-fixes=%t/export/fixes.yaml %t/export/a.cpp -- -std=c++17 -isystem %mock_include -I %S/../../../include
// RUN: clang-apply-replacements %t/export
// RUN: diff %t/once.cpp %t/export/a.cpp

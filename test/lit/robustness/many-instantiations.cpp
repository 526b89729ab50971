// 1,000 instantiations of one hazardous function template: one warning (the
// template is analysed once), no crash.
// RUN: %python %inputs/generate_stress.py templates 1000 %t.cpp
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' %fresh_in_kernels %t.cpp -- \
// RUN:   -std=c++17 -isystem %mock_include > %t.out 2>&1
// RUN: grep -c "warning: in-place index_put_ into 'm'" %t.out | grep -x 1
// RUN: not grep -E "Stack dump|PLEASE submit" %t.out

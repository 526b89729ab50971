// Acceptance: torch-index-assign-to-copy and torch-inplace-on-grad-leaf stay
// quiet on the flagship check's lit suite and on the integration generator's
// benign functions, except where the code really is one of their bugs:
//  - index-put-style.cpp's `m.index({Slice(), rows}) = v` is the flagship's
//    documented no-op write into a copy (it checks the flagship ignores it).
// RUN: %python %S/../../integration/generate_real_header_cases.py 24 %t.cpp
// RUN: for f in %S/../compile-requires-grad-propagation/*.cpp %S/../fixits/*.cpp %t.cpp; do \
// RUN:   %clang_tidy --load %torch_tidy_module -checks='-*,torch-index-assign-to-copy,torch-inplace-on-grad-leaf' \
// RUN:     $f -- -std=c++17 -isystem %mock_include -I "$TORCH_TIDY_INCLUDE" 2>&1; \
// RUN: done | FileCheck %s --implicit-check-not='[torch-index-assign-to-copy]' --implicit-check-not='[torch-inplace-on-grad-leaf]'
// CHECK: index-put-style.cpp:24:3: warning: assignment into the result of advanced indexing of 'm'{{.*}}[torch-index-assign-to-copy]

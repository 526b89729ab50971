// Acceptance: torch-index-assign-to-copy and torch-inplace-on-grad-leaf stay
// quiet on the flagship check's lit suite and on the integration generator's
// benign functions, except where the code really is one of their bugs:
//  - targets.cpp writes in place into leaves made with requires_grad(true)
//    (a, b, f, g): the flagship's negatives, but autograd throws there;
//  - index-put-style.cpp's `m.index({Slice(), rows}) = v` is the flagship's
//    documented no-op write into a copy;
//  - the generator's benign `torch::zeros(.., torch::requires_grad())` then
//    index_put_ into it throws the same leaf error.
// RUN: %python %S/../../integration/generate_real_header_cases.py 24 %t.cpp
// RUN: for f in %S/../compile-requires-grad-propagation/*.cpp %S/../fixits/*.cpp %t.cpp; do \
// RUN:   %clang_tidy --load %torch_tidy_module -checks='-*,torch-index-assign-to-copy,torch-inplace-on-grad-leaf' \
// RUN:     $f -- -std=c++17 -isystem %mock_include -I "$TORCH_TIDY_INCLUDE" 2>&1; \
// RUN: done | FileCheck %s --implicit-check-not='[torch-index-assign-to-copy]' --implicit-check-not='[torch-inplace-on-grad-leaf]'
// CHECK: targets.cpp:72:5: warning: in-place write into 'a', a leaf tensor that requires grad{{.*}}[torch-inplace-on-grad-leaf]
// CHECK: targets.cpp:74:5: warning: in-place write into 'b'{{.*}}[torch-inplace-on-grad-leaf]
// CHECK: targets.cpp:84:5: warning: in-place write into 'f'{{.*}}[torch-inplace-on-grad-leaf]
// CHECK: targets.cpp:87:5: warning: in-place write into 'g'{{.*}}[torch-inplace-on-grad-leaf]
// CHECK: index-put-style.cpp:24:3: warning: assignment into the result of advanced indexing of 'm'{{.*}}[torch-index-assign-to-copy]
// CHECK: .cpp.tmp.cpp:61:3: warning: in-place write into 'm', a leaf tensor that requires grad{{.*}}[torch-inplace-on-grad-leaf]

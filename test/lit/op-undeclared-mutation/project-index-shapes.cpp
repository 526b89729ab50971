// REQUIRES: torch-tidy-binary
// torch-tidy --project-index on the registration shapes of
// registration-shapes.cpp: each fake under its operator's name (a loop over
// names, the namespace any: "*"), the condition a fake is registered under
// kept.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TORCH_TIDY_CACHE=%t/cache %torch_tidy_binary --project-index=%S/Inputs/shapes-project \
// RUN:   | FileCheck %s

// CHECK-DAG: "operator": "gemm_nt"
// CHECK-DAG: "operator": "gemm_nn"
// CHECK-DAG: "namespace": "*"
// CHECK-DAG: "condition": "if enable_torch_compile:"

// The torch-tidy binary: with no -checks, no --config and no .clang-tidy
// above the file it runs the torch checks (clang-tidy alone would run
// clang-analyzer-* and no torch check); a .clang-tidy or -checks decides as
// in clang-tidy; --version names torch-tidy and its LLVM.
// REQUIRES: torch-tidy-binary
//
// RUN: rm -rf %t && mkdir -p %t/plain %t/configured/sub
// RUN: cp %s %t/plain/a.cpp && cp %s %t/configured/sub/a.cpp
// RUN: printf "Checks: '-*,bugprone-use-after-move'\n" > %t/configured/.clang-tidy
//
// RUN: cd %t/plain && %torch_tidy_binary --list-checks | FileCheck %s --check-prefix=LIST
// LIST: Enabled checks:
// LIST-NOT: clang-analyzer
// LIST: torch-compile-requires-grad-propagation
// LIST: torch-op-undeclared-mutation
//
// RUN: %torch_tidy_binary %t/plain/a.cpp -- -std=c++17 -isystem %mock_include 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: a.cpp:[[@LINE+13]]:3: warning: mul_ writes into argument 'x' of operator 'dflt::scale'{{.*}}[torch-op-undeclared-mutation]
//
// A .clang-tidy above the file is read: no torch check runs.
// RUN: %torch_tidy_binary %t/configured/sub/a.cpp -- -std=c++17 -isystem %mock_include 2>&1 \
// RUN:   | FileCheck %s --allow-empty --check-prefix=CONFIGURED --implicit-check-not=warning:
// CONFIGURED-NOT: torch-
//
// RUN: %torch_tidy_binary --version | FileCheck %s --check-prefix=VERSION
// VERSION: LLVM version {{[0-9]+\.[0-9]+}}
// VERSION: torch-tidy version {{[0-9]+\.[0-9]+\.[0-9]+}} (the torch-tidy checks, linked into clang-tidy of LLVM {{[0-9]+\.[0-9]+\.[0-9]+}})
#include <torch/torch.h>

at::Tensor scale_cpu(const at::Tensor &x) {
  x.mul_(2);
  return x.sum();
}

TORCH_LIBRARY(dflt, m) { m.def("scale(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(dflt, CPU, m) { m.impl("scale", &scale_cpu); }

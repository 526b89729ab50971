// Options round-trip through --dump-config; a value that is not a bool is
// reported and the default is used.
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-write-into-copy' \
// RUN:   --config="{CheckOptions: {torch-write-into-copy.ReadAfterWrite: false}}" \
// RUN:   --dump-config %s -- | FileCheck %s --check-prefix=DUMP
// DUMP: torch-write-into-copy.ReadAfterWrite: 'false'
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-write-into-copy' --dump-config %s -- \
// RUN:   | FileCheck %s --check-prefix=DEFAULT
// DEFAULT-DAG: torch-write-into-copy.ReadAfterWrite: 'true'
// DEFAULT-DAG: torch-write-into-copy.ProjectRoot: none
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-write-into-copy' \
// RUN:   --config="{CheckOptions: {torch-write-into-copy.ReadAfterWrite: sometimes}}" \
// RUN:   %s -- -std=c++17 -isystem %mock_include 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: invalid configuration value 'sometimes' for option 'ReadAfterWrite'; expected a bool (true or false); using 'true'
// BAD: warning: write into 'acc.contiguous()' (add_) is lost
#include <torch/torch.h>

at::Tensor read_after(at::Tensor acc) {
  auto c = acc.contiguous();
  c.add_(1);
  return acc.sum();
}

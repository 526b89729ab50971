// What an operator registers, read from torch's registry where
// torch-tidy-project imported the project's build
// ($TORCH_TIDY_PROJECT_REGISTRY, issue 58 item 2): the class follows the
// registry, not the index. unnamed-project registers a fake under a name made
// at run time (the index: unknown); the registry knows whether it is
// un::opaque's (silent, the fake's place named) or not (graph break). A
// registry that cannot be read is said, and the index's reading kept.
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed 's|@ROOT@|%S/Inputs/unnamed-project|g' %S/Inputs/registry/fake.json > %t/fake.json
// RUN: sed 's|@ROOT@|%S/Inputs/unnamed-project|g' %S/Inputs/registry/no-fake.json > %t/no-fake.json
// RUN: env TORCH_TIDY_PROJECT_REGISTRY=%t/fake.json TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/unnamed-project/csrc/ops.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=FAKE --implicit-check-not=warning:
// RUN: env TORCH_TIDY_PROJECT_REGISTRY=%t/no-fake.json TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/unnamed-project/csrc/ops.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=NOFAKE --implicit-check-not=warning:
// RUN: env TORCH_TIDY_PROJECT_REGISTRY=%t/missing.json TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/unnamed-project/csrc/ops.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=MISSING --implicit-check-not=warning:

// FAKE: ops.cpp:6:57: warning: copy_ writes into argument 'd' of operator 'un::opaque', which its schema does not declare mutable: its calls vanish under torch.compile (silent): with the fake kernel registered for it
// FAKE: ops.cpp:6:57: note: the fake kernel of 'un::opaque' is registered in {{.*}}unnamed-project/un/fakes.py:4 (register_fake, read from torch's registry)
// FAKE: ops.cpp:6:57: note: what 'un::opaque' registers (its kernels per dispatch key and its fake) is read from torch 2.8.0's registry, where torch-tidy-project imported the project's build

// NOFAKE: ops.cpp:6:57: warning: copy_ writes into argument 'd' of operator 'un::opaque', which its schema does not declare mutable: torch.compile graph-breaks at its calls (graph break): no fake kernel is registered for it
// NOFAKE-NOT: fakes.py
// NOFAKE: note: what 'un::opaque' registers {{.*}} torch 2.8.0's registry

// MISSING: torch-tidy: TORCH_TIDY_PROJECT_REGISTRY: cannot read {{.*}}missing.json: {{.*}}; what the project's operators register is read from its sources only
// MISSING: ops.cpp:6:57: warning: {{.*}} (unknown: the project registers fakes this analysis could not name, {{.*}}fakes.py:4)
// MISSING-NOT: torch's registry

// The project-wide operator index: a kernel file whose schemas live in
// another file of the project (C++ or Python) is judged against them, with
// no set-up. The project is the nearest ancestor holding setup.py (here
// Inputs/ext-project); a schema outside it (Inputs/outside-schemas.cpp) is
// not read. The index is cached under $TORCH_TIDY_CACHE.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/ext-project/csrc/kernels.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=KERNELS --implicit-check-not=warning:
// The cache is written once and read back the second time (same output).
// RUN: ls %t/cache/project-index | FileCheck %s --check-prefix=CACHE
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/ext-project/csrc/kernels.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=KERNELS --implicit-check-not=warning:
//
// The flagship's mutable-argument rule uses the same schemas.
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-compile-requires-grad-propagation' \
// RUN:   %S/Inputs/ext-project/csrc/kernels.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=FLAGSHIP --implicit-check-not=warning:
//
// The schemas file alone: the operator that returns nothing is reported at
// its schema.
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/ext-project/csrc/ops.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=SCHEMAS --implicit-check-not=warning:
//
// ProjectRoot: none (the option wins over the environment), or a root that
// holds no schema: the kernel file alone says nothing.
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' \
// RUN:   --config="{CheckOptions: {ProjectRoot: none}}" \
// RUN:   %S/Inputs/ext-project/csrc/kernels.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=NONE --allow-empty --implicit-check-not=warning:
// RUN: env TORCH_TIDY_CACHE=%t/cache \
// RUN:   %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' \
// RUN:   --config="{CheckOptions: {torch-op-undeclared-mutation.ProjectRoot: '%S/Inputs/ext-project/extp', torch-compile-requires-grad-propagation.ProjectRoot: '%S/Inputs/ext-project/extp'}}" \
// RUN:   %S/Inputs/ext-project/csrc/kernels.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=PYONLY --implicit-check-not=warning:
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' \
// RUN:   --config="{CheckOptions: {ProjectRoot: %S/Inputs/ext-project}}" --dump-config \
// RUN:   %S/Inputs/ext-project/csrc/kernels.cpp -- | FileCheck %s --check-prefix=DUMP
// A root that is not a directory is a configuration error, and the index
// is off.
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-op-undeclared-mutation' \
// RUN:   --config="{CheckOptions: {ProjectRoot: %t/nonexistent}}" \
// RUN:   %S/Inputs/ext-project/csrc/kernels.cpp -- -std=c++17 -isystem %mock_include \
// RUN:   2>&1 | FileCheck %s --check-prefix=BADROOT

// KERNELS: kernels.cpp:7:3: warning: add_ writes into argument 'Dst' of operator 'extp::scatter_first', which its schema does not declare mutable: torch.compile graph-breaks at its calls (graph break): no fake kernel is registered for it in the project, so Dynamo runs them eagerly and fullgraph=True fails; once one is, aot_eager and inductor drop them, silently
// KERNELS: kernels.cpp:32:3: note: the schema of 'extp::scatter_first' is declared in {{.*}}ext-project{{/|\\}}csrc{{/|\\}}ops.cpp:5, with 'Dst' without an alias annotation
// KERNELS: kernels.cpp:7:3: note: no fix: the schema is declared in another file of the project (ops.cpp:5); a fix-it edits only this file
// KERNELS: kernels.cpp:11:3: warning: a write through data_ptr writes into argument 'output' of operator 'extp::norm_out'
// KERNELS: kernels.cpp:17:3: warning: add_ writes into argument 'out' of operator 'extp::accumulate'
// KERNELS: kernels.cpp:34:3: note: the schema of 'extp::accumulate' is declared in {{.*}}ops.py:5, with 'out' without an alias annotation

// CACHE: {{^[0-9A-F]+}}.json

// FLAGSHIP: kernels.cpp:20:57: warning: in-place copy_ into mutable argument 'm' of operator 'extp::declared' from 'v'
// FLAGSHIP: kernels.cpp:35:3: note: 'm' is declared mutable in {{.*}}ops.cpp:7
// FLAGSHIP: kernels.cpp:27:3: warning: in-place index_put_ into mutable argument 'm' of operator 'extp::grad_into' from 'v'
// FLAGSHIP: kernels.cpp:38:3: note: 'm' is declared mutable in {{.*}}ops.py:6

// SCHEMAS: ops.cpp:5:9: warning: operator 'extp::scatter_first' returns nothing and its schema declares no argument mutable

// NONE-NOT: warning:

// PYONLY: kernels.cpp:17:3: warning: add_ writes into argument 'out' of operator 'extp::accumulate'
// PYONLY: kernels.cpp:27:3: warning: in-place index_put_ into mutable argument 'm' of operator 'extp::grad_into'

// DUMP: torch-compile-requires-grad-propagation.ProjectRoot: '{{.*}}ext-project'
// DUMP: torch-op-undeclared-mutation.ProjectRoot: '{{.*}}ext-project'

// BADROOT: warning: invalid configuration value '{{.*}}nonexistent' for option 'ProjectRoot': not a directory; expected 'auto', 'none' or the project's root directory; the project's other files are not read [clang-tidy-config]
// BADROOT-NOT: [torch-op-undeclared-mutation]

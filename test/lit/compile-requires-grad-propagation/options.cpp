// Options round-trip through --dump-config, and a bad regex is reported.
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.RegionMode: all, torch-compile-requires-grad-propagation.CompiledFunctions: 'ns::.*', torch-compile-requires-grad-propagation.FixStyle: scatter, torch-compile-requires-grad-propagation.LibTorchVersion: '1.13', torch-compile-requires-grad-propagation.FreshTargetsInKernels: true, torch-compile-requires-grad-propagation.StrictFixes: true, torch-compile-requires-grad-propagation.FixColumnLimit: 100}}" \
// RUN:   --dump-config %s -- | FileCheck %s --check-prefix=DUMP
// DUMP-DAG: torch-compile-requires-grad-propagation.RegionMode: all
// DUMP-DAG: torch-compile-requires-grad-propagation.CompiledFunctions: 'ns::.*'
// DUMP-DAG: torch-compile-requires-grad-propagation.FixStyle: scatter
// DUMP-DAG: torch-compile-requires-grad-propagation.LibTorchVersion: '1.13'
// DUMP-DAG: torch-compile-requires-grad-propagation.FreshTargetsInKernels: 'true'
// DUMP-DAG: torch-compile-requires-grad-propagation.StrictFixes: 'true'
// DUMP-DAG: torch-compile-requires-grad-propagation.FixColumnLimit: '100'
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' --dump-config %s -- \
// RUN:   | FileCheck %s --check-prefix=DEFAULT
// DEFAULT-DAG: torch-compile-requires-grad-propagation.RegionMode: auto
// DEFAULT-DAG: torch-compile-requires-grad-propagation.CompiledFunctions: ''
// DEFAULT-DAG: torch-compile-requires-grad-propagation.FixStyle: auto
// DEFAULT-DAG: torch-compile-requires-grad-propagation.StrictFixes: 'false'
// DEFAULT-DAG: torch-compile-requires-grad-propagation.LibTorchVersion: auto
// DEFAULT-DAG: torch-compile-requires-grad-propagation.FreshTargetsInKernels: 'false'
// DEFAULT-DAG: torch-compile-requires-grad-propagation.FixColumnLimit: '70'
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.CompiledFunctions: 'a(b'}}" \
// RUN:   %s -- 2>&1 | FileCheck %s --check-prefix=BADRE
// BADRE: invalid regular expression 'a(b' in option 'CompiledFunctions'
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.RegionMode: sometimes}}" \
// RUN:   %s -- 2>&1 | FileCheck %s --check-prefix=BADMODE
// BADMODE: invalid configuration value 'sometimes' for option 'torch-compile-requires-grad-propagation.RegionMode'
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.FixStyle: sideways, torch-compile-requires-grad-propagation.LibTorchVersion: two}}" \
// RUN:   %s -- 2>&1 | FileCheck %s --check-prefix=BADFIX
// BADFIX-DAG: invalid configuration value 'sideways' for option 'torch-compile-requires-grad-propagation.FixStyle'
// BADFIX-DAG: invalid value 'two' for option 'LibTorchVersion'
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.FreshTargetsInKernels: maybe}}" \
// RUN:   %s -- 2>&1 | FileCheck %s --check-prefix=BADBOOL
// BADBOOL: invalid configuration value 'maybe' for option 'FreshTargetsInKernels'; expected a bool (true or false); using 'false'
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.StrictFixes: always}}" \
// RUN:   %s -- 2>&1 | FileCheck %s --check-prefix=BADSTRICT
// BADSTRICT: invalid configuration value 'always' for option 'StrictFixes'; expected a bool (true or false); using 'false'
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.FixColumnLimit: wide}}" \
// RUN:   %s -- 2>&1 | FileCheck %s --check-prefix=BADWIDTH
// BADWIDTH: invalid configuration value 'wide' for option 'torch-compile-requires-grad-propagation.FixColumnLimit'; expected an integer
// Other spellings of a bool are read as clang-tidy reads them.
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.FreshTargetsInKernels: 1}}" \
// RUN:   --dump-config %s -- | FileCheck %s --check-prefix=ONE
// ONE: torch-compile-requires-grad-propagation.FreshTargetsInKernels: 'true'
// RUN: %clang_tidy --load=%torch_tidy_module --list-checks -checks='-*,torch-*' \
// RUN:   | FileCheck %s --check-prefix=LIST
// LIST: torch-compile-requires-grad-propagation
// ProjectRoot: 'auto' by default (lit sets TORCH_TIDY_PROJECT_ROOT=none for
// its other tests; without it the default shows), the environment's value
// where the configuration names none.
// RUN: env -u TORCH_TIDY_PROJECT_ROOT %clang_tidy --load=%torch_tidy_module -checks='-*,torch-compile-requires-grad-propagation' \
// RUN:   --dump-config %s -- | FileCheck %s --check-prefix=ROOT-AUTO
// ROOT-AUTO: torch-compile-requires-grad-propagation.ProjectRoot: auto
// RUN: env TORCH_TIDY_PROJECT_ROOT=none %clang_tidy --load=%torch_tidy_module -checks='-*,torch-compile-requires-grad-propagation' \
// RUN:   --dump-config %s -- | FileCheck %s --check-prefix=ROOT-ENV
// ROOT-ENV: torch-compile-requires-grad-propagation.ProjectRoot: none
int main() { return 0; }

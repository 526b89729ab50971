// Options round-trip through --dump-config, and a bad regex is reported.
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.RegionMode: all, torch-compile-requires-grad-propagation.CompiledFunctions: 'ns::.*'}}" \
// RUN:   --dump-config %s -- | FileCheck %s --check-prefix=DUMP
// DUMP-DAG: torch-compile-requires-grad-propagation.RegionMode: all
// DUMP-DAG: torch-compile-requires-grad-propagation.CompiledFunctions: 'ns::.*'
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' --dump-config %s -- \
// RUN:   | FileCheck %s --check-prefix=DEFAULT
// DEFAULT-DAG: torch-compile-requires-grad-propagation.RegionMode: auto
// DEFAULT-DAG: torch-compile-requires-grad-propagation.CompiledFunctions: ''
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.CompiledFunctions: 'a(b'}}" \
// RUN:   %s -- 2>&1 | FileCheck %s --check-prefix=BADRE
// BADRE: invalid regular expression 'a(b' in option 'CompiledFunctions'
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' \
// RUN:   --config="{CheckOptions: {torch-compile-requires-grad-propagation.RegionMode: sometimes}}" \
// RUN:   %s -- 2>&1 | FileCheck %s --check-prefix=BADMODE
// BADMODE: invalid configuration value 'sometimes' for option 'torch-compile-requires-grad-propagation.RegionMode'
// RUN: %clang_tidy --load=%torch_tidy_module --list-checks -checks='-*,torch-*' \
// RUN:   | FileCheck %s --check-prefix=LIST
// LIST: torch-compile-requires-grad-propagation
int main() { return 0; }

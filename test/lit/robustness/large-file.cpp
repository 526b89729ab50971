// A generated 5,000-line file (every function registered, half of them
// hazardous): exactly the expected warnings, no crash.
// RUN: %python %inputs/generate_stress.py lines 5000 %t.cpp
// RUN: %clang_tidy --load=%torch_tidy_module -checks='-*,torch-*' %fresh_in_kernels %t.cpp -- \
// RUN:   -std=c++17 -isystem %mock_include > %t.out 2>&1
// RUN: grep -c "warning: in-place" %t.out > %t.count
// RUN: %python -c "import sys; got=int(open(sys.argv[1]).read()); want=int(open(sys.argv[2]).read()); sys.exit(0 if got == want else 'got %%d warnings, want %%d' %% (got, want))" %t.count %t.cpp.expected
// RUN: not grep -E "Stack dump|PLEASE submit" %t.out

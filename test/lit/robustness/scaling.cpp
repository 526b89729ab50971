// Regression guard on the analysis's work, with counts rather than timings:
// on generated single functions of 1k, 5k and 20k statements (nested
// branches and loops, many tensor locals) and on files of 1k and 10k
// functions, blocks visited, elements visited and facts carried grow
// linearly with the input (a fixpoint blow-up or a quadratic state shows up
// as a growing ratio).
// RUN: %python %s.py %clang_tidy %torch_tidy_module %mock_include %t

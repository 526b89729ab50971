// Every rule of RewriteRules.def has a lit CHECK-FIXES test in each style it
// applies to (rules marked Both: both styles).
// RUN: %python %s.py %S %S/../../../lib/rules/include/torch_tidy/rules/RewriteRules.def

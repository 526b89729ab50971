// Each seam named by issue 19 has one home: the index-list and view-step
// types, their runtime and LibTorch spellings and the random draws live in
// the shared random-program vocabulary; source text, the requires_grad
// setter test and fix-it construction live in one file each. A copy of one
// of them anywhere else fails here, naming the file and line.
// RUN: %python %s.py %S/../../..

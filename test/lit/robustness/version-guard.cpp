// The module refuses to load into a clang-tidy of another LLVM major version:
// one clear line naming both versions, no crash, and with only torch checks
// requested clang-tidy exits non-zero. Same-version loading stays silent.
// RUN: %python %s.py %torch_tidy_module %llvm_version %s

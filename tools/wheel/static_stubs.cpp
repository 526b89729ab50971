//===- static_stubs.cpp - Definitions the static tools link instead -------===//
//
// torch-tidy and torch-clangd in the wheel link LLVM and Clang statically from
// Debian's static archives. Three symbols those archives reach for would tie
// the binaries to something a wheel cannot carry or a manylinux policy does
// not allow; this file defines them, and only the static tools link it.
//
//  - llvm::CreateZ3Solver: Debian's LLVM is built with Z3, whose library is
//    not shipped statically. The static tools are built as upstream LLVM's
//    default is, without Z3: the definition is the one LLVM itself has
//    then, a fatal error naming the cause. Only clang-analyzer's Z3 options
//    (crosscheck-with-z3, constraints=z3) reach it. The dump methods that
//    share its object file print, as LLVM's do.
//  - getPollyPluginInfo: Debian links Polly into LLVM's pass pipeline, and
//    clang's code generation, which clangd's module scanning links but never
//    runs, refers to it; Polly is not shipped statically. Registered, it
//    adds no pass.
//  - arc4random: libstdc++'s std::random_device uses it where glibc has it
//    (2.36 and later), which would make glibc 2.36 the oldest the wheel runs
//    on. This one reads the kernel's random source (getrandom, glibc 2.25),
//    which is what glibc's does.
//
//===----------------------------------------------------------------------===//

#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/SMTAPI.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <sys/random.h>

llvm::SMTSolverRef llvm::CreateZ3Solver() {
  llvm::report_fatal_error("this torch-tidy is built without Z3 (the "
                           "static build of the wheel): clang-analyzer's Z3 "
                           "options are not available");
}

void llvm::SMTSort::dump() const { print(llvm::errs()); }
void llvm::SMTExpr::dump() const { print(llvm::errs()); }
void llvm::SMTSolver::dump() const { print(llvm::errs()); }
void llvm::SMTSolverStatistics::dump() const { print(llvm::errs()); }

llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Polly (not built in)", "0",
          [](llvm::PassBuilder &) {}};
}

extern "C" uint32_t arc4random() {
  uint32_t Value;
  while (getrandom(&Value, sizeof(Value), 0) != sizeof(Value)) {
  }
  return Value;
}

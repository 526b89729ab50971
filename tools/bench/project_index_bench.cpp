//===- project_index_bench.cpp - What learning a project's operators costs ===//
//
// project-index-bench ROOT CACHE_DIR [RUNS]: builds the operator index of
// the project at ROOT RUNS times with an empty cache (the first lint of a
// project) and RUNS times with the cache written (every later lint), and
// prints the medians in milliseconds with the index's counts. Driven by
// tools/bench/project_index_bench.py.
//
//===----------------------------------------------------------------------===//

#include "torch_tidy/operators/ProjectOperators.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <vector>

using namespace torch_tidy;

static double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return V.empty() ? 0 : V[V.size() / 2];
}

int main(int argc, char **argv) {
  if (argc < 3) {
    llvm::errs() << "usage: project-index-bench ROOT CACHE_DIR [RUNS]\n";
    return 2;
  }
  std::string Root = argv[1], Cache = argv[2];
  int Runs = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
  using Clock = std::chrono::steady_clock;
  std::vector<double> Cold, Warm;
  ProjectIndexStats ColdStats, WarmStats;
  for (int I = 0; I < Runs; ++I) {
    llvm::sys::fs::remove_directories(Cache);
    auto T0 = Clock::now();
    auto Index = ProjectOperators::build(Root, Cache);
    Cold.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - T0).count());
    ColdStats = Index->stats();
    T0 = Clock::now();
    auto Again = ProjectOperators::build(Root, Cache);
    Warm.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - T0).count());
    WarmStats = Again->stats();
  }
  llvm::outs() << "files " << ColdStats.Files << "\n"
               << "schemas " << ColdStats.Schemas << "\n"
               << "cold_read " << ColdStats.Read << "\n"
               << "warm_from_cache " << WarmStats.FromCache << "\n"
               << "warm_read " << WarmStats.Read << "\n"
               << "cold_ms " << median(Cold) << "\n"
               << "warm_ms " << median(Warm) << "\n";
  return 0;
}

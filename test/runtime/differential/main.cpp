// The differential suite: seeded random cases, each run on the runtime and on
// LibTorch in this process. Prints a per-family table, the first failures,
// and "N passed, M failed" as its last line.
#include "compare.h"
#include "generators.h"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>

using namespace torch_tidy::differential;

int main(int argc, char **argv) {
  std::int64_t cases = 12000;
  std::uint64_t seed = 20261122;
  std::string device = "cpu";
  int show = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--cases")
      cases = std::atoll(value.c_str());
    else if (flag == "--seed")
      seed = std::strtoull(value.c_str(), nullptr, 10);
    else if (flag == "--device")
      device = value;
    else if (flag == "--show")
      show = std::atoi(value.c_str());
  }

  CaseGenerator generator(seed, /*device_safe=*/device != "cpu");
  struct Tally {
    std::int64_t passed = 0, failed = 0, errors = 0;
  };
  std::map<std::string, Tally> by_op;
  std::int64_t passed = 0, failed = 0;
  Tally through_operator; // writes from inside an operator's kernel
  auto start = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < cases; ++i) {
    Case c = generator.next();
    Outcome ours = run_on_runtime(c, device);
    Outcome theirs = run_on_libtorch(c, device);
    std::string diff = compare(c, ours, theirs);
    Tally &tally = by_op[c.family + "/" + c.op];
    tally.errors += ours.error && theirs.error;
    if (c.through_operator) {
      through_operator.errors += ours.error && theirs.error;
      ++(diff.empty() ? through_operator.passed : through_operator.failed);
    }
    if (diff.empty()) {
      ++passed;
      ++tally.passed;
      continue;
    }
    ++failed;
    ++tally.failed;
    if (failed <= show) // LibTorch messages carry a backtrace: first line only
      std::cout << "FAIL case " << i << ": " << describe(c) << "\n  "
                << diff.substr(0, diff.find('\n')) << "\n";
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::cout << "\n";
  std::string header = "op (device " + device + ")";
  header.resize(42, ' ');
  std::cout << header << "passed\tfailed\tboth-raised\n";
  for (const auto &[op, t] : by_op) {
    std::string name = op;
    name.resize(std::max<std::size_t>(name.size(), 42), ' ');
    std::cout << name << t.passed << "\t" << t.failed << "\t" << t.errors
              << "\n";
  }
  std::cout << "of which through an operator's mutable argument: "
            << through_operator.passed << " passed, " << through_operator.failed
            << " failed, " << through_operator.errors << " both raised\n";
  std::cout << "seed " << seed << ", " << cases << " cases in " << seconds
            << " s\n";
  std::cout << passed << " passed, " << failed << " failed" << std::endl;
  return failed == 0 ? 0 : 1;
}

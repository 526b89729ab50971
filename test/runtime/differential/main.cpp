// The differential suite: seeded random cases, each run on the runtime and on
// LibTorch in this process. Prints a per-family table, the first failures,
// and "N passed, M failed" as its last line. The runtime follows the
// semantics of the torch it is compared with (TorchSemantics).
//
// On CUDA a device-side assert (an index out of bounds in a LibTorch kernel)
// poisons the process's CUDA context: every later case would fail for it.
// The suite checks the device after each case and stops at the first such
// error, naming the case, exit 2. --inject-device-error N makes the check
// fail at case N (the suite's own test, on CPU).
//
// --check-device-safe: the device-safe generator's cases run through
// LibTorch alone (on CPU); any error that a CUDA kernel raises as a device
// assert (an index out of bounds) fails the run: the generator must not
// make such cases.
#include "compare.h"
#include "generators.h"

#include "torch_tidy/runtime/mode.h"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>

using namespace torch_tidy::differential;

namespace {

bool has(const std::string &text, const char *words) {
  return text.find(words) != std::string::npos;
}

// An index out of bounds through a tensor index, as LibTorch's CPU kernels
// raise it; LibTorch's CUDA kernels give it as a device-side assert. An
// integer index out of bounds is checked on the host (an error on CUDA
// too) in the same words: "index N is out of bounds" where the case has the
// integer N is not counted.
bool index_out_of_bounds(const Case &c, const std::string &message) {
  if (!has(message, "out of bounds") && !has(message, "out of range in self") &&
      !has(message, "index_copy_(): index"))
    return false;
  for (const IndexSpec &spec : c.indices)
    if (spec.kind == IndexKind::Integer &&
        has(message,
            ("index " + std::to_string(spec.integer) + " is out of bounds")
                .c_str()))
      return false;
  return true;
}

// The same, as the runtime words it (check_index_bounds, select()).
bool runtime_index_out_of_bounds(const std::string &message) {
  return has(message, "out of bounds") ||
         (has(message, "index ") &&
          has(message, "out of range for tensor of size"));
}

std::string first_line(const std::string &text) {
  return text.substr(0, text.find('\n'));
}

// The next case; device-safe runs draw again while the runtime (held to
// LibTorch's CPU errors by this suite) indexes out of bounds on CPU: the
// generator sizes tensor indices by an estimate of the dims they index.
Case next_case(CaseGenerator &generator, bool device_safe,
               std::int64_t &redrawn) {
  for (;;) {
    Case c = generator.next();
    if (!device_safe)
      return c;
    Outcome ours = run_on_runtime(c, "cpu");
    if (!(ours.error && runtime_index_out_of_bounds(ours.message)) &&
        !(ours.backward_error &&
          runtime_index_out_of_bounds(ours.backward_message)))
      return c;
    ++redrawn;
  }
}

int check_device_safe(std::uint64_t seed, std::int64_t cases, int show) {
  CaseGenerator generator(seed, /*device_safe=*/true);
  std::int64_t asserting = 0, raised = 0, redrawn = 0;
  for (std::int64_t i = 0; i < cases; ++i) {
    Case c = next_case(generator, true, redrawn);
    Outcome theirs = run_on_libtorch(c, "cpu");
    raised += theirs.error || theirs.backward_error;
    std::string message =
        theirs.error ? theirs.message : theirs.backward_message;
    if ((theirs.error || theirs.backward_error) &&
        index_out_of_bounds(c, message) && ++asserting <= show)
      std::cout << "OUT OF BOUNDS case " << i << ": " << describe(c) << "\n  "
                << first_line(message) << "\n";
  }
  std::cout << "device-safe generator, seed " << seed << ": " << cases
            << " cases on LibTorch (CPU) (" << redrawn << " drawn again), "
            << raised << " raised, " << asserting
            << " indexing out of bounds (through a tensor index, a "
               "device-side assert on CUDA)"
            << std::endl;
  return asserting == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  std::int64_t cases = 12000;
  std::uint64_t seed = 20261122;
  std::string device = "cpu";
  int show = 10;
  std::int64_t inject_device_error = -1;
  bool device_safe_check = false;
  auto [major, minor] = libtorch_version();
  torch_tidy::runtime::TorchSemantics semantics{major, minor};
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--check-device-safe") {
      device_safe_check = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::cerr << "runtime_differential: " << flag << " needs a value\n";
      return 2;
    }
    std::string value = argv[++i];
    if (flag == "--inject-device-error")
      inject_device_error = std::atoll(value.c_str());
    else if (flag == "--cases")
      cases = std::atoll(value.c_str());
    else if (flag == "--seed")
      seed = std::strtoull(value.c_str(), nullptr, 10);
    else if (flag == "--device")
      device = value;
    else if (flag == "--show")
      show = std::atoi(value.c_str());
    else {
      std::cerr << "runtime_differential: unknown option " << flag << "\n";
      return 2;
    }
  }
  torch_tidy::runtime::SemanticsGuard follow(semantics);
  std::cout << "runtime semantics: torch " << semantics.major << "."
            << semantics.minor << " (the LibTorch linked)\n";
  if (device_safe_check)
    return check_device_safe(seed, cases, show);
  const bool device_safe = device != "cpu";
  CaseGenerator generator(seed, device_safe);
  std::int64_t redrawn = 0;
  struct Tally {
    std::int64_t passed = 0, failed = 0, errors = 0;
  };
  std::map<std::string, Tally> by_op;
  std::int64_t passed = 0, failed = 0;
  Tally through_operator; // writes from inside an operator's kernel
  auto start = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < cases; ++i) {
    Case c = next_case(generator, device_safe, redrawn);
    Outcome ours = run_on_runtime(c, device);
    Outcome theirs = run_on_libtorch(c, device);
    std::string lost = i == inject_device_error
                           ? std::string("injected by --inject-device-error")
                           : device_error(device);
    if (lost.empty() &&
        (ours.message.find("device-side assert") != std::string::npos ||
         theirs.message.find("device-side assert") != std::string::npos))
      lost = first_line(ours.error ? ours.message : theirs.message);
    if (!lost.empty()) {
      std::cout << "CUDA context lost at case " << i << ": " << describe(c)
                << "\n  " << lost << "\n"
                << "the run stops here; the " << passed << " passed and "
                << failed << " failed before it stand, nothing after"
                << std::endl;
      return 2;
    }
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
            << " s";
  if (device_safe)
    std::cout << " (device-safe: " << redrawn
              << " drawn again for an index out of bounds)";
  std::cout << "\n";
  std::cout << passed << " passed, " << failed << " failed" << std::endl;
  return failed == 0 ? 0 : 1;
}

// The differential cases on the runtime alone, for the sanitizer build: every
// generated program, valid or not, must end in a value or an Error, never in
// a memory or undefined-behaviour report.
#include "generators.h"

#include <cstdlib>
#include <iostream>

using namespace torch_tidy::differential;

int main(int argc, char **argv) {
  std::int64_t cases = argc > 1 ? std::atoll(argv[1]) : 3000;
  CaseGenerator generator(7, /*device_safe=*/false);
  std::int64_t raised = 0;
  for (std::int64_t i = 0; i < cases; ++i)
    raised += run_on_runtime(generator.next(), "cpu").error;
  std::cout << cases << " runtime-only cases, " << raised
            << " rejected with an Error, no sanitizer report" << std::endl;
  return 0;
}

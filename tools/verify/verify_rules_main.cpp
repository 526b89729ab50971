// torch-tidy-verify-rules: the rule-verification suite. Runs N random
// instances of every rule verifier on the chosen devices and prints one row
// per rule and device; exit 1 if any instance fails.
//
//   torch-tidy-verify-rules [--instances N] [--seed S] [--device cpu|cuda|all]
//                           [--rule ID] [--examples K] [--torch-semantics X.Y]
//
// The runtime proves the rules under one torch's eager semantics where
// versions differ (TorchSemantics: 2.8, the reference, unless
// --torch-semantics names another); the report's first line says which.
//
// --examples K prints K instances of each rule (LibTorch spelling) and exits.
#include "torch_tidy/runtime/backend.h"
#include "torch_tidy/runtime/mode.h"
#include "torch_tidy/verify/RuleVerifier.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace torch_tidy::verify;

int main(int argc, char **argv) {
  int instances = 1000;
  std::uint64_t seed = 20261122;
  std::string device = "cpu", only;
  int examples = 0;
  rt::TorchSemantics semantics; // 2.8
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "error: %s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--instances")
      instances = std::atoi(next().c_str());
    else if (arg == "--seed")
      seed = std::strtoull(next().c_str(), nullptr, 10);
    else if (arg == "--device")
      device = next();
    else if (arg == "--rule")
      only = next();
    else if (arg == "--examples")
      examples = std::atoi(next().c_str());
    else if (arg == "--torch-semantics") {
      std::string version = next();
      if (std::sscanf(version.c_str(), "%d.%d", &semantics.major,
                      &semantics.minor) != 2) {
        std::fprintf(stderr,
                     "error: --torch-semantics takes MAJOR.MINOR, not '%s'\n",
                     version.c_str());
        return 2;
      }
    } else {
      std::fprintf(stderr,
                   "usage: %s [--instances N] [--seed S] "
                   "[--device cpu|cuda|all] [--rule ID] [--examples K] "
                   "[--torch-semantics X.Y]\n",
                   argv[0]);
      return 2;
    }
  }
  if (examples > 0) {
    for (const RuleVerifier &v : rule_verifiers()) {
      if (!only.empty() && v.rule_id != only)
        continue;
      Random random(seed);
      std::printf("%s (%s)\n", v.rule_id.c_str(), v.varies.c_str());
      for (int i = 0; i < examples; ++i) {
        try {
          std::printf("  %s\n", v.make_instance(random).text.c_str());
        } catch (const std::exception &e) {
          std::printf("  (a draw the runtime rejected: %s)\n", e.what());
        }
      }
    }
    return 0;
  }
  if (device != "cpu" && device != "cuda" && device != "all") {
    std::fprintf(stderr, "error: unknown device '%s'\n", device.c_str());
    return 2;
  }
  std::vector<rt::Device> devices;
  if (device != "cuda")
    devices.push_back(rt::Device::CPU);
  if (device != "cpu") {
    if (!device_available(rt::Device::CUDA)) {
      std::printf("SKIPPED rule verification on CUDA: %s\n",
                  rt::cuda_backend_compiled()
                      ? "no CUDA device is available"
                      : "the runtime was built without nvcc");
      if (device == "cuda")
        return 77;
    } else {
      devices.push_back(rt::Device::CUDA);
    }
  }
  // Every rule the checks can emit must have a verifier.
  int missing = 0;
  for (const std::string &id : rewrite_rule_ids())
    if (!find_rule_verifier(id)) {
      std::printf("FAIL %s: no verifier for this rule\n", id.c_str());
      ++missing;
    }
  rt::SemanticsGuard follow(semantics);
  std::printf("semantics: torch %d.%d's eager rules where versions differ "
              "(boolean masks before other indices: %s; clamp's gradient at "
              "a tie: %s)\n",
              semantics.major, semantics.minor,
              semantics.mask_takes_each_dim() ? "one slot per mask dim"
                                              : "one slot per mask",
              semantics.clamp_splits_ties() ? "split" : "to self");
  std::printf("%-30s %-5s %9s %7s %9s\n", "rule", "dev", "instances", "failed",
              "seconds");
  int failed_rules = 0;
  long total = 0;
  for (const RuleVerifier &v : rule_verifiers()) {
    if (!only.empty() && v.rule_id != only)
      continue;
    for (rt::Device d : devices) {
      auto start = std::chrono::steady_clock::now();
      RuleReport report = verify_rule(v, d, instances, seed);
      double secs = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();
      total += report.instances;
      std::printf("%-30s %-5s %9d %7d %9.2f\n", v.rule_id.c_str(), rt::name(d),
                  report.instances, report.failed, secs);
      if (report.failed) {
        ++failed_rules;
        std::printf("  first failure: %s\n", report.first_failure.c_str());
      }
    }
  }
  std::printf("%ld instances, %d rule(s) with failures, %d rule(s) without a "
              "verifier\n",
              total, failed_rules, missing);
  return failed_rules || missing ? 1 : 0;
}

"""Loads the module into the clang-tidy of each supported LLVM (19 and 22)."""
import os
import subprocess
import sys

module, built_major, source = sys.argv[1], int(sys.argv[2]), sys.argv[3]
# A sanitized module needs its runtime preloaded into every clang-tidy.
env = dict(os.environ)
if env.get("TORCH_TIDY_PRELOAD"):
    env["LD_PRELOAD"] = env["TORCH_TIDY_PRELOAD"]
    env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1"
other_versions = 0
for major in (19, 22):
    tidy = f"/usr/lib/llvm-{major}/bin/clang-tidy"
    if not os.path.exists(tidy):
        print(f"version-guard: {tidy} is not installed; skipping it")
        continue
    out = subprocess.run([tidy, f"--load={module}", "-checks=-*,torch-*",
                          "--list-checks"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, env=env)
    text = out.stdout
    if "Stack dump" in text or "AddressSanitizer" in text or out.returncode < 0:
        sys.exit(f"{tidy} crashed:\n{text}")
    guard = [l for l in text.splitlines() if l.startswith("torch-tidy:")]
    if major == built_major:
        if guard or "torch-compile-requires-grad-propagation" not in text:
            sys.exit(f"{tidy}: the module should load silently:\n{text}")
        continue
    other_versions += 1
    want = f"built for LLVM {built_major} but clang-tidy is LLVM {major}."
    if len(guard) != 1 or want not in guard[0] or "not registered" not in guard[0]:
        sys.exit(f"{tidy}: expected one line containing '{want}', got:\n{text}")
    if "torch-compile-requires-grad-propagation" in text:
        sys.exit(f"{tidy}: checks were registered despite the mismatch")
    run = subprocess.run([tidy, f"--load={module}", "-checks=-*,torch-*",
                          source, "--", "-std=c++17"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, env=env)
    if run.returncode <= 0 or "Stack dump" in run.stdout:
        sys.exit(f"{tidy}: expected a clean non-zero exit, got "
                 f"{run.returncode}:\n{run.stdout}")
    print(f"{tidy}: refused cleanly: {guard[0]}")
if other_versions == 0:
    sys.exit("version-guard: no clang-tidy of another supported LLVM version "
             "is installed, so the guard is untested")

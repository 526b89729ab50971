# lit configuration for torch-tidy's check tests. The paths come from
# lit.site.cfg.py, which CMake writes into the build tree.
import os
import lit.formats

config.name = "torch-tidy-" + config.llvm_version + config.name_suffix
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".cpp", ".sycl"]
config.excludes_suffixes = [".py"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.torch_tidy_build_dir, "test", "lit",
                                     "llvm-" + config.llvm_version + config.name_suffix)

for key, value in {
    "TORCH_TIDY_CLANG_TIDY": config.clang_tidy,
    "TORCH_TIDY_MODULE": config.torch_tidy_module,
    "TORCH_TIDY_FILECHECK": config.filecheck,
    "TORCH_TIDY_MOCK_INCLUDE": os.path.join(config.test_source_root, "Inputs",
                                            "mock-libtorch"),
    "TORCH_TIDY_INCLUDE": os.path.join(config.torch_tidy_source_dir, "include"),
}.items():
    config.environment[key] = value
# The tests are files of this repository: no project-wide operator index
# (ProjectRoot: auto would index the whole repository). The tests of the
# index set ProjectRoot themselves.
config.environment["TORCH_TIDY_PROJECT_ROOT"] = "none"
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_bin_dir, config.environment.get("PATH", os.environ["PATH"])])

# A sanitized module: clang-tidy runs with the sanitizer's runtime preloaded
# (LLVM frees little at exit on purpose, so leak checking is off), in
# check_torch_tidy.py and in RUN lines that call %clang_tidy themselves.
clang_tidy_command = config.clang_tidy
if config.preload:
    config.environment["TORCH_TIDY_PRELOAD"] = config.preload
    # One executable path, so that scripts taking %clang_tidy as an argument
    # run the sanitized module too.
    os.makedirs(config.test_exec_root, exist_ok=True)
    clang_tidy_command = os.path.join(config.test_exec_root, "clang-tidy-asan")
    with open(clang_tidy_command, "w") as wrapper:
        wrapper.write("#!/bin/sh\n"
                      f"LD_PRELOAD={config.preload} "
                      "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 "
                      f"exec {config.clang_tidy} \"$@\"\n")
    os.chmod(clang_tidy_command, 0o755)

runner = os.path.join(config.test_source_root, "check_torch_tidy.py")
config.substitutions.append(("%check_torch_tidy", f"{config.python} {runner}"))
# The fresh-local suites exercise the analysis inside registered kernels,
# which are regions only with FreshTargetsInKernels (off by default).
config.substitutions.append(
    ("%fresh_in_kernels",
     "--config=\"{CheckOptions: {torch-compile-requires-grad-propagation."
     "FreshTargetsInKernels: true}}\""))
config.substitutions.append(("%clang_tidy", clang_tidy_command))
config.substitutions.append(("%torch_tidy_module", config.torch_tidy_module))
# Tests of the torch-tidy binary itself: unsupported (said by name) in the
# builds that make the module only.
if os.path.exists(config.torch_tidy_binary) and not config.preload:
    config.available_features.add("torch-tidy-binary")
config.substitutions.append(("%torch_tidy_binary", config.torch_tidy_binary))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%llvm_version", config.llvm_version))
config.substitutions.append(("%mock_include",
                             config.environment["TORCH_TIDY_MOCK_INCLUDE"]))
# torch-tidy-project's stand-ins for the SYCL headers (.sycl sources).
config.substitutions.append(("%sycl_host", os.path.join(
    config.test_source_root, "..", "..", "tools", "torch-tidy",
    "torch_tidy_project", "sycl_host")))
config.substitutions.append(("%inputs",
                             os.path.join(config.test_source_root, "Inputs")))

"""torch-tidy-project and torch-tidy-cdb: a LibTorch operator library linted
whole, with what the run did not see as part of its result.

One module per concern:
  common     errors, the .torch-tidy/ folder, logging, reading files
  torchenv   what the project's Python's torch passes a compiler
  cdb        compile commands for cpp_extension sources (torch-tidy-cdb)
  recorder   setup.py and PEP 517 backends run with setup() and cmake
             stood in for: their extensions, CMake calls, variables read
  pyproject  pyproject.toml: the build backend and scikit-build-core settings
  cmake      configuring a CMake project for its compile database
  flags      the flags of a compile command that decide how a source parses
  nvcc       nvcc entries of a CMake database turned into clang ones
  database   finding or making the database, and saying where it came from
  index      the project index (torch-tidy --project-index) summed up
  pruning    the files where an enabled check can warn
  coverage   per operator: were its kernels analysed, and if not why
  running    torch-tidy over the files, diagnostics and fixes read back
  report     the summary, the JSON document, the exit status
  cli        torch-tidy-project's command line
"""

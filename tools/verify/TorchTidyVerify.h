// torch-tidy-verify's entry point, in a library so a test binary can register
// extra (deliberately wrong) rule verifiers before calling it.
#pragma once

namespace torch_tidy::verify {
int torchTidyVerifyMain(int argc, const char **argv);
} // namespace torch_tidy::verify

#include "TorchTidyVerify.h"

int main(int argc, const char **argv) {
  return torch_tidy::verify::torchTidyVerifyMain(argc, argv);
}

// Mock of LibTorch's generated torch/version.h (what LibTorchVersion: auto
// reads). Included explicitly by tests that need it.
#pragma once
#define TORCH_VERSION_MAJOR 2
#define TORCH_VERSION_MINOR 8
#define TORCH_VERSION_PATCH 0

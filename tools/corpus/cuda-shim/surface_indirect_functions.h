// Empty stand-in: CUDA 13 removed this header, which clang 19's CUDA
// runtime wrapper still includes (host-side parsing only).
#pragma once

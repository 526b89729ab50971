// Marks a function whose body runs inside torch.compile, for torch-tidy.
//
//   TORCH_TIDY_COMPILED at::Tensor my_kernel(const at::Tensor &x) { ... }
//
// Under clang it expands to [[clang::annotate("torch_tidy::compiled")]],
// which torch-tidy reads; other compilers see nothing.
#ifndef TORCH_TIDY_COMPILED_H
#define TORCH_TIDY_COMPILED_H
#if defined(__clang__)
#define TORCH_TIDY_COMPILED [[clang::annotate("torch_tidy::compiled")]]
#else
#define TORCH_TIDY_COMPILED
#endif
#endif

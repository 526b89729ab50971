/* The file clang-tidy --load opens. It links nothing from LLVM, so it can
 * always be loaded; it asks the host for its LLVM version and loads the real
 * module (libTorchTidyChecks.so, beside it) only if the versions match. A
 * module built for another LLVM would otherwise crash, or fail to load with
 * an undefined-symbol message that does not say why. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#ifndef TORCH_TIDY_LLVM_MAJOR
#error "TORCH_TIDY_LLVM_MAJOR must be defined by the build"
#endif

typedef void (*GetVersionFn)(unsigned *, unsigned *, unsigned *);

__attribute__((constructor)) static void torch_tidy_load_module(void) {
  GetVersionFn get_version =
      (GetVersionFn)dlsym(RTLD_DEFAULT, "LLVMGetVersion");
  unsigned major = 0, minor = 0, patch = 0;
  if (!get_version) {
    fprintf(stderr, "torch-tidy: cannot tell which LLVM version this "
                    "clang-tidy uses; torch-* checks are not registered\n");
    return;
  }
  get_version(&major, &minor, &patch);
  if (major != TORCH_TIDY_LLVM_MAJOR) {
    fprintf(stderr,
            "torch-tidy: this module was built for LLVM %d but clang-tidy "
            "is LLVM %u.%u.%u; torch-* checks are not registered (rebuild "
            "torch-tidy with -DTORCH_TIDY_LLVM_VERSION=%u)\n",
            TORCH_TIDY_LLVM_MAJOR, major, minor, patch, major);
    return;
  }
  Dl_info self;
  char path[PATH_MAX];
  if (!dladdr((void *)&torch_tidy_load_module, &self) || !self.dli_fname) {
    fprintf(stderr, "torch-tidy: cannot locate the module's directory\n");
    return;
  }
  snprintf(path, sizeof path, "%s", self.dli_fname);
  char *slash = strrchr(path, '/');
  size_t dir_len = slash ? (size_t)(slash - path + 1) : 0;
  snprintf(path + dir_len, sizeof path - dir_len, "libTorchTidyChecks.so");
  if (!dlopen(path, RTLD_NOW | RTLD_GLOBAL))
    fprintf(stderr, "torch-tidy: cannot load %s: %s\n", path, dlerror());
}

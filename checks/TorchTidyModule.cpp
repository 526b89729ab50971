//===- TorchTidyModule.cpp - The torch-tidy clang-tidy module -------------===//

#include "CompileRequiresGradPropagationCheck.h"
#include "IndexAssignToCopyCheck.h"
#include "InplaceOnGradLeafCheck.h"
#include "OpUndeclaredMutationCheck.h"
#include "WriteIntoCopyCheck.h"

#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"

namespace torch_tidy {

class TorchTidyModule : public clang::tidy::ClangTidyModule {
public:
  void addCheckFactories(
      clang::tidy::ClangTidyCheckFactories &CheckFactories) override {
#define TORCH_TIDY_CHECK(Name, Class, HasFixIts)                               \
  CheckFactories.registerCheck<Class>(Name);
#include "Checks.def"
  }
};

} // namespace torch_tidy

static clang::tidy::ClangTidyModuleRegistry::Add<torch_tidy::TorchTidyModule>
    X("torch-module", "Checks for LibTorch code that torch.compile traces.");

// Referenced by binaries that link the module statically (torch-tidy,
// torch-clangd) to keep the registration above.
volatile int TorchTidyModuleAnchorSource = 0;

// torch-tidy: clang-tidy's own main with every upstream module and the
// torch-tidy checks linked in, so no --load is needed. Same flags, same
// .clang-tidy configuration as clang-tidy.
#include "clang-tidy/tool/ClangTidyMain.h"

int main(int argc, const char **argv) {
  return clang::tidy::clangTidyMain(argc, argv);
}

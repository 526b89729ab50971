// torch-clangd: clangd with the torch-tidy checks linked in, so an LSP
// editor shows their warnings and quick-fixes as you type. clangd only runs
// clang-tidy checks it does not know to be fast when the project's .clangd
// allows them (Diagnostics: ClangTidy: FastCheckFilter: None); see
// docs/editors.md.
namespace clang::clangd {
// Defined in clangd's own tool library (libclangdMain.a), which has no
// public header.
int clangdMain(int argc, char *argv[]);
} // namespace clang::clangd

int main(int argc, char *argv[]) {
  return clang::clangd::clangdMain(argc, argv);
}

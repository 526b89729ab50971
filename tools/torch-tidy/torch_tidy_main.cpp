// torch-tidy: clang-tidy's own main with every upstream module and the
// torch-tidy checks linked in, so no --load is needed. Same flags, same
// .clang-tidy configuration as clang-tidy, with three differences:
//
//   - with no -checks, no --config / --config-file and no .clang-tidy above
//     the files named (or the current directory), it runs the torch checks
//     (-*,torch-*) instead of clang-tidy's default clang-analyzer-*;
//   - --version names torch-tidy's version before LLVM's;
//   - `torch-tidy --project-index=DIR` prints, as JSON, what the project
//     index (lib/operators/ProjectOperators.h) knows of the project at DIR:
//     its operators, kernels by dispatch key and fake registrations. This is
//     what torch-tidy-project's summary counts.
#include "torch_tidy/operators/Consequence.h"
#include "torch_tidy/operators/ProjectOperators.h"

#include "clang-tidy/tool/ClangTidyMain.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

#ifndef TORCH_TIDY_VERSION
#define TORCH_TIDY_VERSION "unknown"
#endif

namespace {

constexpr llvm::StringLiteral DefaultChecks = "--checks=-*,torch-*";

void printVersion(llvm::raw_ostream &OS) {
  OS << "torch-tidy version " << TORCH_TIDY_VERSION
     << " (the torch-tidy checks, linked into clang-tidy of LLVM "
     << LLVM_VERSION_STRING << ")\n";
}

/// Whether Dir or one of its ancestors holds a .clang-tidy file.
bool hasConfigAbove(llvm::StringRef Start) {
  llvm::SmallString<256> Dir(Start);
  llvm::sys::fs::make_absolute(Dir);
  if (!llvm::sys::fs::is_directory(Dir))
    llvm::sys::path::remove_filename(Dir);
  while (!Dir.empty()) {
    llvm::SmallString<256> Config(Dir);
    llvm::sys::path::append(Config, ".clang-tidy");
    if (llvm::sys::fs::exists(Config))
      return true;
    llvm::StringRef Parent = llvm::sys::path::parent_path(Dir);
    if (Parent == Dir)
      break;
    Dir = Parent;
  }
  return false;
}

/// Whether the command line chooses the checks itself: an explicit
/// -checks, a --config or --config-file, or a .clang-tidy file above one of
/// the source files it names (else above the current directory), as
/// clang-tidy would read it.
bool choosesChecks(int Argc, const char **Argv) {
  std::vector<llvm::StringRef> Sources;
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef A(Argv[I]);
    if (A == "--")
      break;
    if (A.starts_with("-")) {
      llvm::StringRef Name = A.ltrim('-').split('=').first;
      if (Name == "checks" || Name == "config" || Name == "config-file")
        return true;
      continue;
    }
    if (llvm::sys::fs::is_regular_file(A))
      Sources.push_back(A);
  }
  if (Sources.empty())
    return hasConfigAbove(".");
  for (llvm::StringRef S : Sources)
    if (hasConfigAbove(S))
      return true;
  return false;
}

int dumpProjectIndex(llvm::StringRef Dir) {
  llvm::SmallString<256> Root(Dir);
  if (llvm::sys::fs::make_absolute(Root) ||
      !llvm::sys::fs::is_directory(Root)) {
    llvm::errs() << "torch-tidy: --project-index: '" << Dir
                 << "' is not a directory\n";
    return 2;
  }
  llvm::sys::path::remove_dots(Root, /*remove_dot_dot=*/true);
  // The files the build compiles that the walk skips
  // ($TORCH_TIDY_PROJECT_FILES, as the checks read them).
  std::vector<std::string> BuildFiles;
  if (std::optional<std::string> Env =
          llvm::sys::Process::GetEnv("TORCH_TIDY_PROJECT_FILES"))
    BuildFiles = torch_tidy::ProjectOperators::readFileList(*Env);
  auto Index = torch_tidy::ProjectOperators::build(
      Root, torch_tidy::ProjectOperators::defaultCacheDir(), BuildFiles);
  llvm::json::Array Operators, Kernels;
  for (const torch_tidy::DeclaredSchema &S : Index->schemas())
    Operators.push_back(llvm::json::Object{{"namespace", S.Namespace},
                                           {"schema", S.Schema},
                                           {"file", S.File},
                                           {"line", S.Line}});
  // Operators a project helper defines with the schema LibTorch infers
  // from a function's signature: the name alone, and the helper.
  for (const torch_tidy::DeclaredKernel &D : Index->inferredDefinitions())
    Operators.push_back(llvm::json::Object{
        {"namespace", D.Namespace},
        {"schema", D.Namespace.empty() ? D.Name : D.Namespace + "::" + D.Name},
        {"file", D.Site.File},
        {"line", D.Site.Line},
        {"inferred_by", D.Site.How},
        {"function", D.Function}});
  for (const torch_tidy::DeclaredKernel &K : Index->allKernels())
    Kernels.push_back(
        llvm::json::Object{{"namespace", K.Namespace},
                           {"operator", K.Name},
                           {"key", K.Site.Key},
                           {"fake", torch_tidy::isFakeKey(K.Site.Key)},
                           {"how", K.Site.How},
                           {"function", K.Function},
                           {"file", K.Site.File},
                           {"line", K.Site.Line},
                           {"condition", K.Site.Condition},
                           {"declares", K.Site.Declares}});
  // The kernels registered to dispatch stubs that a function of the
  // project calls (the checks judge them as its operators' kernels).
  llvm::json::Array Stubs;
  llvm::StringSet<> Called;
  for (const torch_tidy::StubCall &C : Index->stubCalls())
    Called.insert(C.Stub);
  for (const torch_tidy::StubKernel &K : Index->stubKernels())
    if (Called.contains(K.Stub))
      Stubs.push_back(llvm::json::Object{{"stub", K.Stub},
                                         {"function", K.Function},
                                         {"device", K.Device},
                                         {"file", K.File},
                                         {"line", K.Line}});
  // The C++ functions a pybind11 module binds that a Python custom op
  // calls (the check judges their writes against its mutates_args).
  llvm::json::Array Pybind;
  for (const torch_tidy::DeclaredKernel &D : Index->pybindDefs()) {
    llvm::json::Array Callers;
    llvm::StringRef Simple = D.Function;
    if (size_t Colons = Simple.rfind("::"); Colons != llvm::StringRef::npos)
      Simple = Simple.drop_front(Colons + 2);
    for (const torch_tidy::DeclaredKernel *C : Index->pybindCallers(Simple))
      if (llvm::StringRef(C->Function).rsplit('.').second == D.Name)
        Callers.push_back(
            llvm::json::Object{{"operator", C->Namespace + "::" + C->Name},
                               {"call", C->Function},
                               {"file", C->Site.File},
                               {"line", C->Site.Line},
                               {"declares", C->Site.Declares}});
    if (!Callers.empty())
      Pybind.push_back(llvm::json::Object{{"name", D.Name},
                                          {"function", D.Function},
                                          {"file", D.Site.File},
                                          {"line", D.Site.Line},
                                          {"callers", std::move(Callers)}});
  }
  const torch_tidy::ProjectIndexStats &Stats = Index->stats();
  llvm::json::Object Out{{"root", Index->root()},
                         {"files", Stats.Files},
                         {"build_files", Stats.BuildFiles},
                         {"operators", std::move(Operators)},
                         {"kernels", std::move(Kernels)},
                         {"stub_kernels", std::move(Stubs)},
                         {"pybind_callees", std::move(Pybind)}};
  llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(Out)))
               << "\n";
  return 0;
}

} // namespace

int main(int argc, const char **argv) {
  for (int I = 1; I < argc; ++I) {
    llvm::StringRef A(argv[I]);
    if (A.consume_front("--project-index=") ||
        A.consume_front("-project-index="))
      return dumpProjectIndex(A);
  }
  llvm::cl::AddExtraVersionPrinter(printVersion);
  if (choosesChecks(argc, argv))
    return clang::tidy::clangTidyMain(argc, argv);
  std::vector<const char *> Args(argv, argv + argc);
  Args.insert(Args.begin() + 1, DefaultChecks.data());
  return clang::tidy::clangTidyMain(static_cast<int>(Args.size()), Args.data());
}

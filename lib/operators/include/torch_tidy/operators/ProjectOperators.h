//===- ProjectOperators.h - The operators a whole project declares -*- C++
//-*-===//
//
// Real extension projects keep their schemas in one file (a TORCH_LIBRARY
// block of m.def strings, or Python's torch.library) and their kernels in
// others. This index knows every schema the project declares, in any of its
// files, with no set-up: the project is the nearest ancestor directory of
// the linted file that holds `.git`, `setup.py`, `pyproject.toml` or
// `compile_commands.json`, and its C++, CUDA and Python files are read as
// text (lexed, not compiled) for
//
//   - m.def("...") / m.def(TORCH_SELECTIVE_SCHEMA("...")) inside
//     TORCH_LIBRARY / TORCH_LIBRARY_FRAGMENT blocks (and their STABLE_
//     variants), with adjacent literals concatenated;
//   - TORCH_SELECTIVE_SCHEMA("ns::...") anywhere;
//   - torch.library.define("ns::op(...)"), define("ns::op", "(...)"),
//     and the .define("...") of Library("ns", "DEF"/"FRAGMENT") objects;
//
// and for the kernels and fakes registered for each operator, by dispatch
// key:
//
//   - m.impl("op", ...) in TORCH_LIBRARY_IMPL(ns, KEY, m) blocks, with the
//     key named at the call (torch::dispatch(c10::DispatchKey::Meta, f),
//     impl("op", torch::kCUDA, f)) winning; m.def(schema, fn), m.def(name,
//     fn) and m.impl without a key in TORCH_LIBRARY blocks (catch-all:
//     CompositeImplicitAutograd);
//   - a project's own wrapper macros (`#define DISPATCH_TO_META(name, fn)
//     m.impl(name, torch::dispatch(c10::DispatchKey::Meta, ...))`) called
//     with the operator's name in a library block, in any file;
//   - Python: torch.library.register_fake / impl_abstract (calls or
//     decorators, "ns::op" or torch.ops.ns.op), torch.library.impl(...,
//     "Meta"), register_kernel(..., "cuda"), register_autograd, the
//     .impl("op", fn, "Meta") of Library objects, and a project's own
//     function whose body calls register_fake (torchao's
//     @register_custom_op("ns::op")), called with the operator's name;
//     fakes registered in a loop over a literal list of names
//     (`for name in ["a", "b"]: register_fake(prefix(name))`, the
//     namespace from an "ns::{name}" f-string, `torch.ops.ns`, or any when
//     a helper makes it), through getattr(torch.ops.ns, "op"), and under a
//     condition (the `if` is kept for messages). A register_fake whose
//     operator cannot be named is kept as an unnamed fake (UnnamedFakeKey).
//
// and for the dispatch layer between a registered function and the kernel
// that writes: calls of dispatch stubs (`stub(kCPU, out, in)`, with the
// calling function and which of its parameters each argument is) and the
// kernels registered to stubs (REGISTER_DISPATCH and macros of its shape),
// which a check joins by name (OperatorModel::useProject).
//
// What each file says is cached on disk (one JSON file per project: each
// file's path, size, modification time and schemas). A file whose size or
// time changed is read again, new files are read, removed ones dropped.
// Checks ask the index; they never read project files themselves.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_ANALYSIS_PROJECTOPERATORS_H
#define TORCH_TIDY_ANALYSIS_PROJECTOPERATORS_H

#include "torch_tidy/operators/Consequence.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace torch_tidy {

/// One schema a project file declares.
struct DeclaredSchema {
  /// The library's namespace when the schema text does not carry one.
  std::string Namespace;
  /// The schema as written ("op(Tensor x) -> ()" or "ns::op(...) -> ...").
  std::string Schema;
  std::string File; ///< absolute path
  unsigned Line = 0;
};

/// One kernel or fake a project file registers for an operator.
struct DeclaredKernel {
  /// The library's namespace as written (a macro name when the build sets
  /// it: TORCH_EXTENSION_NAME).
  std::string Namespace;
  std::string Name; ///< the operator's name, without an overload
  KernelSite Site;  ///< Site.File is absolute
  /// The kernel function's name as the registration spells it (`&f`,
  /// `TORCH_FN(ns::f)`, `f`: "f"); empty for a lambda or a Python kernel.
  std::string Function;
};

/// A project's own registration macro: `#define NAME(op, fn) ...impl...`
/// whose body names a dispatch key.
/// KernelSite::Key of a call in a Python custom op of a function a pybind11
/// module binds (FileOperatorFacts::PybindCalls).
inline constexpr llvm::StringLiteral PybindCallKey = "PybindCall";
/// What separates the arguments of a PybindCalls entry's Site.How.
inline constexpr char PybindArgumentSeparator = '\x1f';

/// WrapperMacro::Key of a name bound to torch.library's function.
inline constexpr llvm::StringLiteral LibraryAliasPrefix = "torch.library.";

struct WrapperMacro {
  std::string Name;
  /// The key its calls register, or, for a name bound to one of
  /// torch.library's functions, LibraryAliasPrefix + the function (the
  /// calls' own keys).
  std::string Key;
  /// For a Python decorator factory that defines an operator named after
  /// the function it decorates (`lib.define(fn.__name__ + ...)`):
  /// "function name", or "function name without a leading _" where the
  /// helper drops it (`op_name[1:]`). Empty for every other helper.
  std::string Naming;
};

/// A C++ function-like macro of the project whose body registers:
/// `#define DEFINE_OP(name, schema) m.def(#name schema); m.impl(...)`.
struct RegisteringMacro {
  std::string Name;
  std::vector<std::string> Params; ///< "__VA_ARGS__" for `...`
  std::string Body;                ///< the replacement list's text
  std::string File;                ///< absolute; not cached (the entry's)
  /// An object-like alias of a library macro (`#define REGISTER_LIBRARY
  /// TORCH_LIBRARY`, openequivariance): Body is the library macro's name,
  /// and a call's arguments follow it as written.
  bool ObjectLike = false;
};

/// A call of an upper-case macro inside a C++ library block, or at file
/// scope: registrations once the project's definition of that macro is
/// expanded there.
struct MacroCall {
  std::string Macro;
  std::string Namespace; ///< the block's; empty at file scope
  std::string BlockKey;  ///< TORCH_LIBRARY_IMPL's key; empty in TORCH_LIBRARY
  std::string Args;      ///< the text between the call's parentheses
  unsigned Line = 0;
  bool TopLevel = false; ///< at file scope (a namespace's inside included)
  /// At file scope, the text from the call's ')' through the '}' of the
  /// block that follows it, where one does (`REGISTER_LIBRARY(ns, m) {
  /// ... }`): expanded after the macro, its lines kept. Else empty.
  std::string Block;
};

/// A call of a dispatch stub (ATen's DispatchStub, or a project's of that
/// shape): `stub(kCPU, out, in, scale)` inside a function, whose first
/// argument is a device type.
struct StubCall {
  std::string Stub;
  /// The function the call is in, as its definition spells it
  /// (`punica_shrink_cpu`), and its parameter names.
  std::string Caller;
  /// For each argument after the device type: the index of the caller's
  /// parameter it names, or -1 where it is anything else (a temporary, an
  /// expression).
  std::vector<int> ArgParams;
  /// The caller's parameter names, in order ("" where one is unnamed).
  std::vector<std::string> CallerParams;
  /// "CPU" or "CUDA" where the device is literal (kCPU, DeviceType::CUDA),
  /// else empty.
  std::string Device;
  std::string File; ///< absolute
  unsigned Line = 0;
};

/// A kernel registered to a dispatch stub: REGISTER_DISPATCH(stub, &fn),
/// REGISTER_ARCH_DISPATCH(stub, arch, &fn), a project's macro of that shape
/// (IPEX_REGISTER_DISPATCH).
struct StubKernel {
  std::string Stub;
  std::string Function; ///< as written (`fn`, `ns::fn`)
  /// "CUDA" for a CUDA (or HIP) registration macro, else "CPU".
  std::string Device;
  std::string File; ///< absolute
  unsigned Line = 0;
};

/// What the text of one file says about operators.
struct FileOperatorFacts {
  std::vector<DeclaredSchema> Schemas;
  std::vector<DeclaredKernel> Kernels;
  /// Python helpers that register a fake of the operator they are given.
  std::vector<WrapperMacro> Wrappers;
  /// Calls of such a helper: kernels once a wrapper of that name is known
  /// (Site.How is the helper's name, Site.Key empty). For a decorator of an
  /// operator-defining helper, Function is the decorated function and Name
  /// is empty until the helper's Naming gives it.
  std::vector<DeclaredKernel> WrapperCalls;
  std::vector<RegisteringMacro> Macros;
  std::vector<MacroCall> MacroCalls;
  std::vector<StubCall> StubCalls;
  std::vector<StubKernel> StubKernels;
  /// Functions whose body infers a schema from a C++ signature
  /// (c10::detail::inferFunctionSchemaFromFunctor): a project's helper
  /// that defines an operator from the function it is given.
  std::vector<std::string> InferringHelpers;
  /// Calls in library blocks of a function with an operator's name and a
  /// function (`helper("ns::" NAME, Func, m)`): Site.How is the callee,
  /// Function the function passed. Operators with an inferred schema once
  /// the callee is an inferring helper.
  std::vector<DeclaredKernel> HelperDefs;
  /// Functions a pybind11 module binds by name (`m.def("fill", &fill)`):
  /// Name the Python name, Function the C++ function as written, Namespace
  /// the module's name where PYBIND11_MODULE writes it (else empty: the
  /// build's TORCH_EXTENSION_NAME).
  std::vector<DeclaredKernel> PybindDefs;
  /// Calls of an imported module's function inside a Python custom op's
  /// body (`_C.fill(out, x)` under `@torch.library.custom_op("ns::op",
  /// mutates_args=())`): Namespace and Name the custom op's, Function the
  /// module's own name and the called name (`_C.fill`), Site.Key PybindCallKey,
  /// Site.How the call's arguments as written (joined by
  /// PybindArgumentSeparator), Site.Declares per argument as an OpaqueCaller
  /// site's.
  std::vector<DeclaredKernel> PybindCalls;
};

/// The registrations a project's macro makes where it is called: its body
/// with the call's arguments substituted (`#` and `##` too), or nothing when
/// the arguments do not fit its parameters. Exposed for tests.
std::optional<std::string> expandMacro(const RegisteringMacro &M,
                                       llvm::StringRef Args);

/// What one file's text declares and registers (Path's extension says
/// whether it is Python). Exposed for tests and the benchmark.
FileOperatorFacts scanOperatorFile(llvm::StringRef Path, llvm::StringRef Text);
/// The schemas alone.
std::vector<DeclaredSchema> scanOperatorSchemas(llvm::StringRef Path,
                                                llvm::StringRef Text);

/// How the index was built, for the benchmark and tests.
struct ProjectIndexStats {
  unsigned Files = 0;     ///< C++, CUDA and Python files in the project
  unsigned Read = 0;      ///< read this time (new or changed)
  unsigned FromCache = 0; ///< taken from the cache unchanged
  unsigned Schemas = 0;
  unsigned Kernels = 0; ///< kernels and fakes, wrapper calls resolved
  /// Schemas and kernels found by expanding the project's own macros.
  unsigned FromMacros = 0;
  /// Files of the build the walk does not read (ProjectOperators::build's
  /// BuildFiles), indexed beside the project's.
  unsigned BuildFiles = 0;
  bool CacheWritten = false;
};

class ProjectOperators {
public:
  /// The project root for File. Setting is the ProjectRoot option: "none"
  /// turns the index off; a path names the root; "auto" (or empty) finds
  /// the nearest ancestor of File holding .git, setup.py, pyproject.toml or
  /// compile_commands.json.
  static std::optional<std::string> findRoot(llvm::StringRef File,
                                             llvm::StringRef Setting);

  /// The index of the project at Root, read through the cache under
  /// CacheDir (no cache when CacheDir is empty). Memoised per process and
  /// root: a process that lints many files reads the project once.
  ///
  /// BuildFiles names a file listing, one absolute path a line, the files
  /// the project's build compiles ($TORCH_TIDY_PROJECT_FILES, written by
  /// torch-tidy-project from its database): those the walk of Root does not
  /// read (vendored code under third_party/, sources the build generates in
  /// its build folder, files outside Root) are indexed too.
  static std::shared_ptr<const ProjectOperators>
  load(llvm::StringRef Root, llvm::StringRef CacheDir,
       llvm::StringRef Registry = "", llvm::StringRef BuildFiles = "");

  /// The absolute paths a BuildFiles list names (none where it cannot be
  /// read).
  static std::vector<std::string> readFileList(llvm::StringRef Path);

  /// Reads what torch's registry holds for the project's operators, as
  /// torch-tidy-project writes it once the project's build is imported
  /// ($TORCH_TIDY_PROJECT_REGISTRY): {"torch": VERSION, "operators":
  /// {"ns::op": [{"key", "file", "line", "how"}]}}, overloads together.
  /// The error, or none.
  std::optional<std::string> readRegistry(llvm::StringRef Path);

  /// Every kernel and fake the project registers for Ns::Name, File's own
  /// left out unless IncludeFile (the file being linted, whose own
  /// registrations its parse gives). Where torch's registry was read and holds
  /// a C++ kernel of the operator, its registrations are the registry's (what
  /// the build compiled and the import registered: a fake registered under a
  /// name the index cannot evaluate, a kernel left out by the build), with the
  /// index's marks beside them; else the index's, with the fakes of the
  /// file's package it could not name.
  std::vector<KernelSite> projectSites(llvm::StringRef Ns, llvm::StringRef Name,
                                       llvm::StringRef File,
                                       bool IncludeFile = false) const;

  /// The registry's registrations of Ns::Name, or null where no registry
  /// was read or it does not hold the operator with a C++ kernel.
  const std::vector<KernelSite> *registrySites(llvm::StringRef Ns,
                                               llvm::StringRef Name) const;
  /// The torch version whose registry was read; empty where none was.
  const std::string &registryTorch() const { return RegistryTorch; }
  /// Why the registry given to load() could not be read; empty otherwise.
  const std::string &registryError() const { return RegistryError; }

  /// The default cache directory: $TORCH_TIDY_CACHE/project-index, else
  /// $XDG_CACHE_HOME/torch-tidy/project-index, else
  /// ~/.cache/torch-tidy/project-index.
  static std::string defaultCacheDir();

  /// Builds the index of Root (reading through the cache, updating it);
  /// exposed for tests and the benchmark.
  static std::unique_ptr<ProjectOperators>
  build(llvm::StringRef Root, llvm::StringRef CacheDir,
        llvm::ArrayRef<std::string> BuildFiles = {});

  /// The schemas declared for operator Ns::Name (every overload).
  std::vector<const DeclaredSchema *> find(llvm::StringRef Ns,
                                           llvm::StringRef Name) const;

  /// The kernels and fakes registered for operator Ns::Name, in any file.
  std::vector<const DeclaredKernel *> kernels(llvm::StringRef Ns,
                                              llvm::StringRef Name) const;

  /// Says that the caller looked for kernels registered with a function
  /// named Function (through allKernels()): with find(), kernels() and
  /// unnamedFakesFor(), what torch-tidy-project's incremental runs learn
  /// a file's findings read ($TORCH_TIDY_INDEX_READS).
  void noteFunctionRead(llvm::StringRef Function) const;

  /// Python fake registrations whose operator the index could not name.
  const std::vector<const DeclaredKernel *> &unnamedFakes() const {
    return UnnamedFakes;
  }
  /// The unnamed fakes of File's package: its nearest ancestor (up to the
  /// root) holding setup.py, pyproject.toml, build.toml or flake.nix. A
  /// monorepo of packages (kernels-community: a build.toml per kernel)
  /// has several; a project has one, its root.
  std::vector<KernelSite> unnamedFakesFor(llvm::StringRef File) const;

  /// Where Ns::Name is defined by a project helper that infers its schema
  /// from a function's C++ signature (IPEX's
  /// construct_function_schema_and_register): that call (Function, and
  /// Site.How the helper); null where it is not.
  const DeclaredKernel *inferredDefinition(llvm::StringRef Ns,
                                           llvm::StringRef Name) const;
  const std::vector<DeclaredKernel> &inferredDefinitions() const {
    return InferredDefs;
  }

  /// The calls inside Python custom ops of the C++ function named Function
  /// (its simple name: a pybind11 module binds it, under the name called):
  /// PybindCalls, the custom op's in Namespace and Name.
  std::vector<const DeclaredKernel *>
  pybindCallers(llvm::StringRef Function) const;
  const std::vector<DeclaredKernel> &pybindDefs() const { return PybindDefs; }
  const std::vector<DeclaredKernel> &pybindCalls() const { return PybindCalls; }
  bool hasPybindCalls() const {
    return !PybindCalls.empty() && !PybindDefs.empty();
  }

  /// The dispatch-stub calls and stub kernels of the project's files.
  const std::vector<StubCall> &stubCalls() const { return StubCalls; }
  const std::vector<StubKernel> &stubKernels() const { return StubKernels; }

  const std::vector<DeclaredSchema> &schemas() const { return Schemas; }
  const std::vector<DeclaredKernel> &allKernels() const { return Kernels; }
  const ProjectIndexStats &stats() const { return Stats; }
  const std::string &root() const { return Root; }

private:
  void indexSchemas();
  void indexKernels(std::vector<WrapperMacro> Wrappers,
                    std::vector<DeclaredKernel> Calls);
  /// Expands each macro call with the project's definition (the calling
  /// file's own first), adding what the expansion registers.
  void expandMacroCalls(const std::vector<RegisteringMacro> &Macros,
                        std::vector<std::pair<std::string, MacroCall>> Calls);

  std::string Root;
  std::vector<DeclaredSchema> Schemas;
  std::vector<DeclaredKernel> Kernels;
  std::vector<StubCall> StubCalls;
  std::vector<StubKernel> StubKernels;
  /// The helper calls of the files and of macro expansions, and those
  /// whose callee infers a schema (indexInferred).
  std::vector<DeclaredKernel> HelperDefs, InferredDefs;
  std::vector<DeclaredKernel> PybindDefs, PybindCalls;
  /// The names of the project's Python modules (file stems, packages).
  llvm::StringSet<> PythonModules;
  void indexInferred(const llvm::StringSet<> &Helpers);
  /// "ns::name" to indices in Schemas and Kernels.
  llvm::StringMap<std::vector<size_t>> ByName, KernelsByName;
  std::vector<const DeclaredKernel *> UnnamedFakes;
  ProjectIndexStats Stats;
  /// "ns::name" to what torch's registry holds (readRegistry).
  llvm::StringMap<std::vector<KernelSite>> Registry;
  std::string RegistryTorch, RegistryError;
};

} // namespace torch_tidy

#endif

//===- OperatorModel.h - The operators a file registers ---------*- C++ -*-===//
//
// Reads every operator registration in the user's code of one translation
// unit: TORCH_LIBRARY / TORCH_LIBRARY_FRAGMENT / TORCH_LIBRARY_IMPL blocks
// (and helper functions they pass their torch::Library to), with m.def(schema),
// m.def(schema, fn), m.def(name, fn), m.impl(name, fn),
// m.impl(name, torch::dispatch(key, fn)), m.impl(name, key, fn), TORCH_FN and
// lambdas. Each operator gets its parsed schema (when the schema string is a
// literal written here) and the kernel registered for each dispatch key, with
// the kernel's parameters mapped to the schema's arguments.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_ANALYSIS_OPERATORMODEL_H
#define TORCH_TIDY_ANALYSIS_OPERATORMODEL_H

#include "torch_tidy/operators/Consequence.h"
#include "torch_tidy/operators/OperatorSchema.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
} // namespace clang

namespace torch_tidy {

class ProjectOperators;

/// One kernel registered for an operator.
struct KernelRegistration {
  /// The dispatch key: the one named at the call (torch::dispatch(k, f),
  /// impl(name, k, f)), else the library's (TORCH_LIBRARY_IMPL(ns, k, m)),
  /// else "CompositeImplicitAutograd" (a catch-all kernel).
  std::string DispatchKey;
  /// The kernel as the registration names it (a declaration, a template
  /// specialisation or a lambda's call operator).
  const clang::FunctionDecl *Kernel = nullptr;
  /// The def or impl call.
  const clang::CXXMemberCallExpr *Site = nullptr;
  /// The kernel takes a c10::DispatchKeySet first, which the dispatcher
  /// passes and the schema does not list.
  bool TakesDispatchKeySet = false;
  /// For a kernel defined here but registered in another file of the
  /// project (a .cu kernel registered from a .cpp; Site is null): where.
  std::string RegisteredIn;
  unsigned RegisteredLine = 0;
  /// How it is registered there ("m.def", "TORCH_LIBRARY_IMPL", ...).
  std::string RegisteredBy;
  /// A kernel behind a dispatch stub: the registered function (Caller, in
  /// CallerFile at CallerLine) calls Stub, to which this file registers
  /// Kernel. ParamMap gives, for each of Kernel's parameters, the index of
  /// the registered function's parameter the call passes it (-1: none).
  struct StubPath {
    std::string Stub, Caller, CallerFile;
    unsigned CallerLine = 0;
    std::vector<int> ParamMap;
    std::vector<std::string> CallerParams;
  };
  std::optional<StubPath> Through;
  /// The kernel's parameters it hands to a dispatch stub that has a kernel
  /// in the project (which may write them): parameter index to "stub
  /// 'X' (its kernel 'f' is registered in FILE:LINE)".
  std::map<unsigned, std::string> HandedToStub;

  /// Where a note about the registration goes: the def or impl call, else
  /// (registered in another file) the kernel.
  clang::SourceLocation where() const {
    return Site ? Site->getBeginLoc() : Kernel->getLocation();
  }
};

/// An operator with what this translation unit says about it.
struct RegisteredOperator {
  std::string Namespace, Name, Overload; ///< Name is empty when not literal
  /// The schema: parsed from m.def's string literal, or, for m.def(name, fn),
  /// inferred from the kernel's parameters as LibTorch does (no argument is
  /// mutable; see docs/ground-truth.md).
  std::optional<OperatorSchema> Schema;
  bool SchemaInferred = false;
  /// The string literal the schema was parsed from, if any.
  const clang::StringLiteral *SchemaLiteral = nullptr;
  /// Where the schema was found when no file of this translation unit
  /// declares it (the project index: another file of the project).
  std::string SchemaFile;
  unsigned SchemaLine = 0;
  /// A schema a project helper infers from a function's C++ signature
  /// (SchemaInferred; SchemaFile and SchemaLine are the helper's call): the
  /// helper's name and the function's.
  std::string SchemaHelper, SchemaFunction;
  const clang::CXXMemberCallExpr *DefSite = nullptr;
  std::vector<KernelRegistration> Kernels;
  /// The kernels and fakes the project's other files register for it
  /// (useProject), in C++ and Python.
  std::vector<KernelSite> ProjectSites;
  /// The torch version of the registry ProjectSites were read from (torch
  /// -tidy-project imported the project's build); empty where the project
  /// index gave them.
  std::string RegistryTorch;

  /// "ns::name" (".overload" when there is one).
  std::string qualifiedName() const;
  /// The schema argument that receives the kernel's parameter ParamIndex;
  /// none when the kernel's parameters do not line up with the schema.
  std::optional<unsigned> schemaArgumentOf(const KernelRegistration &K,
                                           unsigned ParamIndex) const;
};

/// A schema string literal that does not parse.
struct SchemaProblem {
  const clang::StringLiteral *Literal = nullptr;
  const clang::CXXMemberCallExpr *Site = nullptr;
  SchemaError Error;
};

class OperatorModel {
public:
  /// Walks the user's code of TU (isUserDecl) for the facts below
  /// and calls finish(). The one walk that finds registrations.
  void collect(const clang::TranslationUnitDecl *TU);

  /// Facts, as the user-code walk finds them.
  void addLibraryInit(const clang::VarDecl *TorchLibraryInitVar);
  void addLibraryCall(const clang::CXXMemberCallExpr *DefOrImpl,
                      const clang::FunctionDecl *EnclosingFunction);

  /// Builds the operators from the facts; call once, after the walk.
  void finish();

  /// Gives each operator this translation unit registers kernels for but
  /// does not declare the schema the project declares for it elsewhere
  /// (the overload named at the registration), and every operator the
  /// kernels and fakes the project's files other than MainFile register
  /// for it. Call after collect().
  /// Functions defined here that another file registers as kernels (by
  /// name) become kernels of their operators too. Call after collect().
  void useProject(const ProjectOperators &Project, llvm::StringRef MainFile);

  const std::vector<RegisteredOperator> &operators() const { return Operators; }
  const std::vector<SchemaProblem> &schemaProblems() const { return Problems; }

  /// The functions that a kernel argument of def/impl names (function
  /// pointers, TORCH_FN(f), lambdas, torch::dispatch(key, f)).
  static std::vector<const clang::FunctionDecl *>
  kernelsIn(const clang::Expr *Arg);

  /// The string literal an argument spells, through SelectiveStr,
  /// std::string, torch::schema(...) and conversions; null if none.
  static const clang::StringLiteral *stringLiteralIn(const clang::Expr *Arg);

  /// Where byte Offset of a schema literal is written.
  static clang::SourceLocation locationInLiteral(const clang::StringLiteral *L,
                                                 size_t Offset,
                                                 const clang::ASTContext &Ctx);

private:
  struct LibraryInfo {
    enum Kind { Def, Impl, Fragment } K = Def;
    std::string Namespace;
    std::optional<std::string> Key; ///< TORCH_LIBRARY_IMPL's dispatch key
  };
  void resolveHelpers();
  /// For an operator Op defined in another file by `m.def(name, fn)` with
  /// fn defined here: the schema LibTorch infers from fn.
  static void inferFromDefElsewhere(RegisteredOperator &Op);
  /// A schema a project helper infers (ProjectOperators::
  /// inferredDefinition): from the function's signature where this file
  /// declares it, else from a stub kernel's parameters at the places the
  /// registered function passes them.
  void inferFromHelper(const ProjectOperators &Project, RegisteredOperator &Op);
  /// Functions defined here that the project registers to a dispatch stub
  /// (REGISTER_DISPATCH) that a registered kernel calls in another file:
  /// kernels of that kernel's operators, through the stub.
  void addStubKernels(const ProjectOperators &Project, llvm::StringRef Main);
  /// Marks the parameters this file's kernels hand to dispatch stubs
  /// (KernelRegistration::HandedToStub).
  void noteStubHandOffs(const ProjectOperators &Project);
  void addKernelsRegisteredElsewhere(const ProjectOperators &Project,
                                     llvm::StringRef Main);
  void addCall(const clang::CXXMemberCallExpr *Call, const LibraryInfo *Lib);
  RegisteredOperator &operatorNamed(const std::string &Ns,
                                    const OperatorSchema &Name);

  llvm::DenseMap<const clang::FunctionDecl *, std::vector<LibraryInfo>>
      Libraries;
  std::vector<
      std::pair<const clang::CXXMemberCallExpr *, const clang::FunctionDecl *>>
      Calls;
  const clang::TranslationUnitDecl *TU = nullptr;
  std::vector<RegisteredOperator> Operators;
  /// Index into Operators by qualified name (named operators only).
  llvm::StringMap<size_t> OperatorIndex;
  std::vector<SchemaProblem> Problems;
};

} // namespace torch_tidy

#endif

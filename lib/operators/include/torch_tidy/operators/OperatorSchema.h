//===- OperatorSchema.h - LibTorch operator schema strings -----*- C++ -*-===//
//
// Parses the schema strings that torch::Library::def takes, such as
//
//   "mylib::put_rows_(Tensor(a!) m, Tensor v, *, int dim=0) -> ()"
//
// into the operator's name, overload, arguments and returns with their types,
// alias annotations (`(a)`, `(a!)`, `(a -> *)`, `(a|b)`), defaults and
// keyword-only markers, keeping the offset of every part in the string so
// that diagnostics can point into the literal. The grammar follows PyTorch's
// function schema parser (torch/csrc/jit/frontend/function_schema_parser.cpp);
// no LibTorch code is used.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_ANALYSIS_OPERATORSCHEMA_H
#define TORCH_TIDY_ANALYSIS_OPERATORSCHEMA_H

#include "llvm/ADT/StringRef.h"
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace torch_tidy {

/// An alias annotation: the sets before `->` (`a`, `b`, `*`), whether the
/// value is written (`!`), and the sets after `->`, if any.
struct AliasAnnotation {
  std::vector<std::string> Sets;
  std::vector<std::string> AfterSets;
  bool IsWrite = false;
  /// Whether `->` was written. Without it the value leaves in the sets it
  /// came in (AfterSets then stays empty; see afterSets()).
  bool Arrow = false;
  /// Written before a list's brackets (`Tensor(a!)[]`): on the elements.
  bool OnElements = false;
  /// The sets after the call, as torch reads them.
  const std::vector<std::string> &afterSets() const {
    return Arrow ? AfterSets : Sets;
  }
  /// Offsets of '(' and one past ')' in the schema string.
  size_t Begin = 0, End = 0;
};

/// One argument or return of a schema.
struct SchemaArgument {
  /// The type as written without its alias annotation: "Tensor", "Tensor?",
  /// "Tensor[]", "int[2]", "SymInt", "Dict(str, Tensor)".
  std::string Type;
  /// The base type name: "Tensor", "int", "Dict", ...
  std::string BaseType;
  bool IsOptional = false; ///< a '?' anywhere after the base type
  bool IsList = false;     ///< a '[...]' after the base type
  /// The alias annotation, on the type or on a list's elements.
  std::optional<AliasAnnotation> Alias;
  std::string Name; ///< empty for unnamed returns
  std::optional<std::string> Default;
  bool KeywordOnly = false;
  /// Offsets of the argument's first character and of its name.
  size_t Begin = 0, NameBegin = 0;

  /// A single tensor (`Tensor`, `Tensor?`), not a list of them.
  bool isTensor() const { return BaseType == "Tensor" && !IsList; }
  /// Declared written: an alias annotation with '!'.
  bool isMutable() const { return Alias && Alias->IsWrite; }
};

struct OperatorSchema {
  std::string Namespace; ///< "" when the name is unqualified
  std::string Name;
  std::string Overload; ///< "" for the default overload
  std::vector<SchemaArgument> Arguments;
  std::vector<SchemaArgument> Returns;
  /// True when only a name was given (m.def(name, fn)): LibTorch infers the
  /// arguments from the kernel; Arguments and Returns are empty.
  bool NameOnly = false;
  bool VarArgs = false; ///< a "..." among the arguments
  bool VarRets = false; ///< a "..." among the returns

  /// "ns::name" or "name", with ".overload" when there is one.
  std::string qualifiedName() const;
  /// The index in Arguments of the argument called Name, if any.
  std::optional<size_t> argumentIndex(llvm::StringRef ArgName) const;
};

/// "ns::name" or "name", with ".overload" when there is one.
std::string qualifiedOperatorName(llvm::StringRef Namespace,
                                  llvm::StringRef Name,
                                  llvm::StringRef Overload);

/// Why a schema string could not be parsed, and where.
struct SchemaError {
  std::string Message;
  size_t Offset = 0;
};

/// The result of parsing: a schema or an error, never both.
struct SchemaParseResult {
  std::optional<OperatorSchema> Schema;
  std::optional<SchemaError> Error;
  explicit operator bool() const { return Schema.has_value(); }
};

/// Parses a schema string. A string that is a bare (possibly qualified)
/// operator name, as m.def(name, fn) takes, parses with NameOnly set.
SchemaParseResult parseOperatorSchema(llvm::StringRef Text);

/// Parses an operator name as m.impl takes it: "name", "ns::name",
/// "name.overload". The result has NameOnly set.
SchemaParseResult parseOperatorName(llvm::StringRef Text);

} // namespace torch_tidy

#endif

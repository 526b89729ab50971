//===- OperatorSchema.cpp - LibTorch operator schema strings --------------===//

#include "torch_tidy/operators/OperatorSchema.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

namespace torch_tidy {

std::string qualifiedOperatorName(llvm::StringRef Namespace,
                                  llvm::StringRef Name,
                                  llvm::StringRef Overload) {
  std::string Q =
      Namespace.empty() ? Name.str() : (Namespace + "::" + Name).str();
  if (!Overload.empty())
    Q += ("." + Overload).str();
  return Q;
}

std::string OperatorSchema::qualifiedName() const {
  return qualifiedOperatorName(Namespace, Name, Overload);
}

std::optional<size_t>
OperatorSchema::argumentIndex(llvm::StringRef ArgName) const {
  for (size_t I = 0; I < Arguments.size(); ++I)
    if (Arguments[I].Name == ArgName)
      return I;
  return std::nullopt;
}

namespace {

/// Types whose parentheses hold type arguments, not an alias annotation.
bool takesTypeArguments(llvm::StringRef Base) {
  static const llvm::StringSet<> Names = {
      "Dict", "Tuple", "Future", "Union", "Optional", "List", "RRef", "Await"};
  return Names.contains(Base);
}

bool isIdentStart(char C) { return llvm::isAlpha(C) || C == '_'; }
bool isIdentChar(char C) { return llvm::isAlnum(C) || C == '_'; }

class Parser {
public:
  explicit Parser(llvm::StringRef Text) : Text(Text) {}

  SchemaParseResult parseSchema(bool NameOnlyAllowed, bool NameOnlyRequired) {
    OperatorSchema S;
    skipSpace();
    if (!parseName(S))
      return failure();
    skipSpace();
    if (atEnd()) {
      if (!NameOnlyAllowed)
        return fail("expected '(' after the operator name");
      S.NameOnly = true;
      return success(std::move(S));
    }
    if (NameOnlyRequired)
      return fail("unexpected '" + std::string(1, peek()) +
                  "' after the operator name");
    if (!expect('(', "after the operator name") ||
        !parseArguments(S.Arguments, S.VarArgs, /*AreReturns=*/false) ||
        !expect(')', "after the arguments"))
      return failure();
    skipSpace();
    if (!Text.substr(Pos).starts_with("->"))
      return fail("expected '->' after the arguments");
    Pos += 2;
    skipSpace();
    if (!parseReturns(S))
      return failure();
    skipSpace();
    if (!atEnd())
      return fail("unexpected '" + std::string(1, peek()) +
                  "' after the returns");
    return success(std::move(S));
  }

private:
  llvm::StringRef Text;
  size_t Pos = 0;
  unsigned FreshSets = 0; ///< alias sets made for `Tensor!`
  std::optional<SchemaError> Error;

  bool atEnd() const { return Pos >= Text.size(); }
  char peek() const { return atEnd() ? '\0' : Text[Pos]; }
  void skipSpace() {
    while (!atEnd() && llvm::isSpace(Text[Pos]))
      ++Pos;
  }
  bool consume(char C) {
    skipSpace();
    if (peek() != C)
      return false;
    ++Pos;
    return true;
  }
  bool setError(std::string Message) {
    if (!Error)
      Error = SchemaError{std::move(Message), std::min(Pos, Text.size())};
    return false;
  }
  /// The token at the cursor, for messages.
  std::string found() const {
    if (atEnd())
      return "the end of the schema";
    return "'" + std::string(1, Text[Pos]) + "'";
  }
  bool expect(char C, llvm::StringRef Where) {
    if (consume(C))
      return true;
    return setError("expected '" + std::string(1, C) + "' " + Where.str() +
                    ", found " + found());
  }
  SchemaParseResult fail(std::string Message) {
    setError(std::move(Message));
    return failure();
  }
  SchemaParseResult failure() {
    SchemaParseResult R;
    R.Error = Error.value_or(SchemaError{"cannot parse the schema", Pos});
    return R;
  }
  static SchemaParseResult success(OperatorSchema S) {
    SchemaParseResult R;
    R.Schema = std::move(S);
    return R;
  }

  std::optional<std::string> identifier() {
    skipSpace();
    if (!isIdentStart(peek()))
      return std::nullopt;
    size_t Begin = Pos;
    while (!atEnd() && isIdentChar(Text[Pos]))
      ++Pos;
    return Text.slice(Begin, Pos).str();
  }

  bool parseName(OperatorSchema &S) {
    auto First = identifier();
    if (!First)
      return setError("expected an operator name, found " + found());
    if (Text.substr(Pos).starts_with("::")) {
      Pos += 2;
      auto Second = identifier();
      if (!Second)
        return setError("expected an operator name after '::', found " +
                        found());
      S.Namespace = *First;
      S.Name = *Second;
    } else {
      S.Name = *First;
    }
    if (peek() == '.') {
      ++Pos;
      auto Overload = identifier();
      if (!Overload)
        return setError("expected an overload name after '.', found " +
                        found());
      S.Overload = *Overload;
    }
    return true;
  }

  bool parseAlias(SchemaArgument &A) {
    AliasAnnotation Alias;
    Alias.Begin = Pos;
    ++Pos; // '('
    auto ParseSets = [&](std::vector<std::string> &Sets) {
      do {
        skipSpace();
        if (peek() == '*') {
          ++Pos;
          Sets.push_back("*");
        } else if (auto Set = identifier()) {
          Sets.push_back(*Set);
        } else {
          return setError("expected an alias set such as 'a' or '*', found " +
                          found());
        }
        skipSpace();
      } while (consume('|'));
      return true;
    };
    if (!ParseSets(Alias.Sets))
      return false;
    if (consume('!'))
      Alias.IsWrite = true;
    skipSpace();
    if (Text.substr(Pos).starts_with("->")) {
      Pos += 2;
      Alias.Arrow = true;
      skipSpace();
      if (peek() == ')') { // `(a! -> )`: leaves in no set
        ++Pos;
        Alias.End = Pos;
        if (A.Alias)
          return setError("a second alias annotation on one type");
        A.Alias = std::move(Alias);
        return true;
      }
      if (!ParseSets(Alias.AfterSets))
        return false;
      if (consume('!'))
        Alias.IsWrite = true;
    }
    if (!expect(')', "to close the alias annotation"))
      return false;
    Alias.End = Pos;
    if (A.Alias)
      return setError("a second alias annotation on one type");
    A.Alias = std::move(Alias);
    return true;
  }

  /// A type with its suffixes: base ['(' alias ')'] { '[' [N] ']' | '?' }.
  /// The alias annotation may follow the base type or the list brackets.
  bool parseType(SchemaArgument &A) {
    skipSpace();
    if (peek() == '(')
      return parseTupleType(A) && parseSuffixes(A);
    auto Base = identifier();
    if (!Base)
      return setError("expected a type, found " + found());
    // A class type: `__torch__.torch.classes.ns.Name`.
    while (peek() == '.' && Pos + 1 < Text.size() &&
           isIdentStart(Text[Pos + 1])) {
      ++Pos;
      *Base += "." + *identifier();
    }
    A.BaseType = *Base;
    A.Type = *Base;
    if (takesTypeArguments(*Base) && peek() == '(' &&
        !parseTypeList(A.Type, "between type arguments"))
      return false;
    return parseSuffixes(A);
  }

  /// A tuple type, `(str, int)` or `(Tensor, (int, int))`.
  bool parseTupleType(SchemaArgument &A) {
    A.BaseType = "Tuple";
    return parseTypeList(A.Type, "between tuple element types");
  }

  /// `(T1, T2, ...)` at the cursor, appended to Type.
  bool parseTypeList(std::string &Type, llvm::StringRef Between) {
    ++Pos; // '('
    Type += "(";
    bool First = true;
    while (true) {
      skipSpace();
      if (peek() == ')')
        break;
      if (!First) {
        if (!expect(',', Between))
          return false;
        Type += ", ";
      }
      SchemaArgument Inner;
      if (!parseType(Inner))
        return false;
      Type += Inner.Type;
      First = false;
    }
    ++Pos; // ')'
    Type += ")";
    return true;
  }

  /// What may follow a type: alias annotations, list brackets, '?', '!'.
  bool parseSuffixes(SchemaArgument &A) {
    std::string Type = std::move(A.Type);
    while (true) {
      char C = peek();
      if (C == '(') {
        if (!parseAlias(A))
          return false;
      } else if (C == '[') {
        size_t Open = Pos++;
        while (!atEnd() && llvm::isDigit(Text[Pos]))
          ++Pos;
        if (peek() != ']')
          return setError("expected ']' to close the list type, found " +
                          found());
        ++Pos;
        Type += Text.slice(Open, Pos).str();
        A.IsList = true;
        if (A.Alias) // `Tensor(a!)[]`: the annotation is on the elements
          A.Alias->OnElements = true;
      } else if (C == '?') {
        ++Pos;
        Type += "?";
        A.IsOptional = true;
      } else if (C == '!') {
        // `Tensor!`: a written value in an alias set of its own, as torch's
        // parser reads it (`Tensor($0! -> )`).
        if (A.Alias)
          return setError("a second alias annotation on one type");
        AliasAnnotation Alias;
        Alias.Sets.push_back("$" + std::to_string(FreshSets++));
        Alias.IsWrite = true;
        Alias.Arrow = true; // `($0! -> )`
        Alias.Begin = Pos;
        Alias.End = ++Pos;
        A.Alias = std::move(Alias);
      } else {
        break;
      }
    }
    A.Type = std::move(Type);
    return true;
  }

  /// A default value: everything up to the next ',' or ')' outside brackets
  /// and quotes.
  bool parseDefault(SchemaArgument &A) {
    skipSpace();
    size_t Begin = Pos;
    int Depth = 0;
    while (!atEnd()) {
      char C = Text[Pos];
      if (C == '"' || C == '\'') {
        size_t Close = Pos + 1;
        while (Close < Text.size() && Text[Close] != C)
          Close += Text[Close] == '\\' ? 2 : 1;
        if (Close >= Text.size())
          return setError("unterminated string in a default value");
        Pos = Close + 1;
        continue;
      }
      if (C == '[' || C == '(')
        ++Depth;
      else if ((C == ']' || C == ')') && Depth > 0)
        --Depth;
      else if ((C == ',' || C == ')') && Depth == 0)
        break;
      ++Pos;
    }
    llvm::StringRef Value = Text.slice(Begin, Pos).trim();
    if (Value.empty())
      return setError("expected a default value after '='");
    A.Default = Value.str();
    return true;
  }

  bool parseArgument(SchemaArgument &A, bool NameRequired) {
    skipSpace();
    A.Begin = Pos;
    if (!parseType(A))
      return false;
    skipSpace();
    A.NameBegin = Pos;
    if (auto Name = identifier())
      A.Name = *Name;
    else if (NameRequired)
      return setError("expected an argument name after the type '" + A.Type +
                      "', found " + found());
    if (consume('=')) {
      if (!parseDefault(A))
        return false;
    }
    return true;
  }

  /// Arguments (AreReturns false) or the returns inside parentheses, whose
  /// names are optional and which have no keyword-only marker.
  bool parseArguments(std::vector<SchemaArgument> &Args, bool &VarArgs,
                      bool AreReturns) {
    skipSpace();
    if (peek() == ')')
      return true;
    bool KeywordOnly = false;
    while (true) {
      skipSpace();
      if (!AreReturns && peek() == '*') {
        if (KeywordOnly)
          return setError("a second '*' in the arguments");
        ++Pos;
        KeywordOnly = true;
      } else if (Text.substr(Pos).starts_with("...")) {
        Pos += 3;
        VarArgs = true;
      } else {
        SchemaArgument A;
        if (!parseArgument(A, /*NameRequired=*/!AreReturns))
          return false;
        A.KeywordOnly = KeywordOnly;
        Args.push_back(std::move(A));
      }
      skipSpace();
      if (peek() == ')')
        return true;
      if (!expect(',', "between arguments"))
        return false;
    }
  }

  bool parseReturns(OperatorSchema &S) {
    skipSpace();
    if (peek() == '(') {
      ++Pos;
      return parseArguments(S.Returns, S.VarRets, /*AreReturns=*/true) &&
             expect(')', "after the returns");
    }
    if (Text.substr(Pos).starts_with("...")) {
      Pos += 3;
      S.VarRets = true;
      return true;
    }
    SchemaArgument A;
    if (!parseArgument(A, /*NameRequired=*/false))
      return false;
    S.Returns.push_back(std::move(A));
    return true;
  }
};

} // namespace

SchemaParseResult parseOperatorSchema(llvm::StringRef Text) {
  return Parser(Text).parseSchema(/*NameOnlyAllowed=*/true,
                                  /*NameOnlyRequired=*/false);
}

SchemaParseResult parseOperatorName(llvm::StringRef Text) {
  return Parser(Text).parseSchema(/*NameOnlyAllowed=*/true,
                                  /*NameOnlyRequired=*/true);
}

} // namespace torch_tidy

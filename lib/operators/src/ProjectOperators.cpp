//===- ProjectOperators.cpp - The operators a whole project declares ------===//

#include "torch_tidy/operators/ProjectOperators.h"

#include "clang/Basic/LangOptions.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <array>
#include <chrono>
#include <mutex>
#include <set>
#include <tuple>

using namespace llvm;

namespace torch_tidy {
namespace {

constexpr int CacheVersion = 29;
/// Files larger than this are not read (generated or vendored code).
constexpr uint64_t MaxFileSize = 4 << 20;
/// A project with more files than this is indexed up to this many.
constexpr unsigned MaxFiles = 50000;

bool isPythonPath(StringRef Path) {
  return sys::path::extension(Path) == ".py";
}

bool isIndexedPath(StringRef Path) {
  static const StringSet<> Exts = {".cpp", ".cc",  ".cxx",  ".c++", ".cu",
                                   ".cuh", ".h",   ".hpp",  ".hh",  ".hxx",
                                   ".inl", ".ipp", ".sycl", ".py"};
  return Exts.contains(sys::path::extension(Path));
}

/// Directories that hold no schema of the project itself: version control,
/// build trees, installed packages, vendored code.
bool isSkippedDirectory(StringRef Name) {
  static const StringSet<> Names = {
      "build",       "dist",     "node_modules", "third_party",
      "third-party", "3rdparty", "external",     "site-packages",
      "__pycache__", "venv",     "CMakeFiles",   "_deps"};
  return Name.starts_with(".") || Name.starts_with("build") ||
         Names.contains(Name);
}

/// The file a cache or index entry names: a path below Root, or an absolute
/// one (a file of the build outside the root or in a folder the walk skips).
SmallString<256> entryPath(StringRef Root, StringRef Rel) {
  if (sys::path::is_absolute(Rel))
    return SmallString<256>(Rel);
  SmallString<256> Abs(Root);
  sys::path::append(Abs, Rel);
  return Abs;
}

/// Line number (1-based) of Offset, counting from a remembered position.
class LineCounter {
public:
  explicit LineCounter(StringRef Text) : Text(Text) {}
  unsigned lineOf(size_t Offset) {
    if (Offset < Pos) {
      Pos = 0;
      Line = 1;
    }
    Line += Text.slice(Pos, Offset).count('\n');
    Pos = Offset;
    return Line;
  }

private:
  StringRef Text;
  size_t Pos = 0;
  unsigned Line = 1;
};

// --- C++ and CUDA ------------------------------------------------------------

struct Token {
  clang::tok::TokenKind Kind;
  StringRef Text;
  size_t Offset;
  bool StartOfLine = false;
  bool isIdent(StringRef S) const {
    return Kind == clang::tok::raw_identifier && Text == S;
  }
  bool is(clang::tok::TokenKind K) const { return Kind == K; }
  bool isString() const { return clang::tok::isStringLiteral(Kind); }
};

/// The value of a C++ string literal token: "..." with simple escapes,
/// R"d(...)d", with an encoding prefix.
std::string cxxStringValue(StringRef Tok) {
  size_t Quote = Tok.find('"');
  if (Quote == StringRef::npos)
    return "";
  StringRef Prefix = Tok.take_front(Quote);
  StringRef Body = Tok.drop_front(Quote + 1).drop_back(1);
  if (Prefix.ends_with("R")) {
    size_t Open = Body.find('(');
    if (Open == StringRef::npos)
      return "";
    StringRef Delim = Body.take_front(Open);
    Body = Body.drop_front(Open + 1);
    return Body.drop_back(Delim.size() + 1).str();
  }
  std::string Out;
  for (size_t I = 0; I < Body.size(); ++I) {
    char C = Body[I];
    if (C == '\\' && I + 1 < Body.size()) {
      char N = Body[++I];
      Out += N == 'n' ? '\n' : N == 't' ? '\t' : N;
    } else {
      Out += C;
    }
  }
  return Out;
}

std::vector<Token> lexCxx(const std::string &Buf) {
  clang::LangOptions LO;
  LO.CPlusPlus = LO.CPlusPlus11 = LO.CPlusPlus14 = LO.CPlusPlus17 = true;
  clang::Lexer L(clang::SourceLocation(), LO, Buf.data(), Buf.data(),
                 Buf.data() + Buf.size());
  std::vector<Token> Out;
  clang::Token T;
  while (true) {
    L.LexFromRawLexer(T);
    if (T.is(clang::tok::eof))
      break;
    size_t Offset = L.getCurrentBufferOffset() - T.getLength();
    Out.push_back({T.getKind(), StringRef(Buf.data() + Offset, T.getLength()),
                   Offset, T.isAtStartOfLine()});
  }
  return Out;
}

/// The schema text an m.def argument spells from token I: adjacent string
/// literals, optionally inside TORCH_SELECTIVE_SCHEMA(...) or
/// torch::schema(...). Empty when it is not a literal.
std::string schemaAt(const std::vector<Token> &T, size_t I) {
  // torch::schema("...", ...), c10::... prefixes.
  while (I + 1 < T.size() && T[I].is(clang::tok::raw_identifier) &&
         T[I + 1].is(clang::tok::coloncolon))
    I += 2;
  if (I + 1 < T.size() &&
      (T[I].isIdent("TORCH_SELECTIVE_SCHEMA") ||
       T[I].isIdent("TORCH_SELECTIVE_NAME") || T[I].isIdent("schema")) &&
      T[I + 1].is(clang::tok::l_paren))
    I += 2;
  std::string Text;
  while (I < T.size() && T[I].isString())
    Text += cxxStringValue(T[I++].Text);
  return Text;
}

/// TORCH_LIBRARY and its fragments, the stable-ABI spellings, and the
/// wrappers projects define to expand a macro namespace first (vLLM's
/// TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, m)).
bool isLibraryMacro(const Token &T) {
  return T.isIdent("TORCH_LIBRARY") || T.isIdent("TORCH_LIBRARY_FRAGMENT") ||
         T.isIdent("STABLE_TORCH_LIBRARY") ||
         T.isIdent("STABLE_TORCH_LIBRARY_FRAGMENT") ||
         T.isIdent("TORCH_LIBRARY_EXPAND") ||
         T.isIdent("TORCH_LIBRARY_FRAGMENT_EXPAND") ||
         T.isIdent("STABLE_TORCH_LIBRARY_EXPAND") ||
         T.isIdent("STABLE_TORCH_LIBRARY_FRAGMENT_EXPAND");
}

/// TORCH_LIBRARY_IMPL and its spellings: (ns, KEY, m).
bool isImplMacro(const Token &T) {
  return T.isIdent("TORCH_LIBRARY_IMPL") ||
         T.isIdent("STABLE_TORCH_LIBRARY_IMPL") ||
         T.isIdent("TORCH_LIBRARY_IMPL_EXPAND") ||
         T.isIdent("STABLE_TORCH_LIBRARY_IMPL_EXPAND");
}

/// The namespace argument of a library macro at T[J]: an identifier, or a
/// call of a token-pasting macro (a name with CONCAT, CAT or PASTE in it)
/// on identifiers, pasted (CONCAT(_C, _ascend): "_C_ascend"). J is left
/// after it.
std::optional<std::string> namespaceArgument(const std::vector<Token> &T,
                                             size_t &J) {
  if (J >= T.size() || !T[J].is(clang::tok::raw_identifier))
    return std::nullopt;
  if (J + 1 >= T.size() || !T[J + 1].is(clang::tok::l_paren))
    return T[J++].Text.str();
  StringRef Macro = T[J].Text;
  if (!Macro.contains("CAT") && !Macro.contains("PASTE"))
    return std::nullopt;
  std::string Pasted;
  size_t K = J + 2;
  for (; K < T.size() && !T[K].is(clang::tok::r_paren); ++K) {
    if (T[K].is(clang::tok::raw_identifier))
      Pasted += T[K].Text.str();
    else if (!T[K].is(clang::tok::comma))
      return std::nullopt;
  }
  if (K >= T.size() || Pasted.empty())
    return std::nullopt;
  J = K + 1;
  return Pasted;
}

/// The index of the token that closes the parenthesis opened at Open.
size_t closingParen(const std::vector<Token> &T, size_t Open) {
  int Depth = 0;
  for (size_t J = Open; J < T.size(); ++J) {
    if (T[J].is(clang::tok::l_paren))
      ++Depth;
    else if (T[J].is(clang::tok::r_paren) && --Depth == 0)
      return J;
  }
  return T.size();
}

/// The first comma in tokens [From, Close), or Close: where a registration
/// call's first argument (its name or schema) ends.
size_t firstComma(const std::vector<Token> &T, size_t From, size_t Close) {
  while (From < Close && !T[From].is(clang::tok::comma))
    ++From;
  return From;
}

/// The dispatch key tokens [B, E) name: c10::DispatchKey::X (as
/// torch::dispatch and impl(name, key, fn) take it) or a device type
/// (torch::kCUDA, c10::DeviceType::CUDA).
std::optional<std::string> keyIn(const std::vector<Token> &T, size_t B,
                                 size_t E) {
  for (size_t J = B; J + 2 < E && J + 2 < T.size(); ++J)
    if ((T[J].isIdent("DispatchKey") || T[J].isIdent("DeviceType")) &&
        T[J + 1].is(clang::tok::coloncolon) &&
        T[J + 2].is(clang::tok::raw_identifier))
      return T[J + 2].Text.str();
  static const StringMap<StringRef> Devices = {{"kCPU", "CPU"},
                                               {"kCUDA", "CUDA"},
                                               {"kXPU", "XPU"},
                                               {"kHIP", "HIP"},
                                               {"kMPS", "MPS"},
                                               {"kMeta", "Meta"},
                                               {"kPrivateUse1", "PrivateUse1"}};
  for (size_t J = B; J < E && J < T.size(); ++J)
    if (T[J].is(clang::tok::raw_identifier))
      if (auto It = Devices.find(T[J].Text); It != Devices.end())
        return It->second.str();
  return std::nullopt;
}

/// ("ns" or "", "op") from "ns::op.overload(...)", "op", "op.overload".
std::pair<std::string, std::string> operatorNameOf(StringRef S) {
  StringRef Name = S.take_until([](char C) { return C == '('; }).trim();
  std::string Ns;
  if (size_t Colons = Name.find("::"); Colons != StringRef::npos) {
    Ns = Name.take_front(Colons).str();
    Name = Name.drop_front(Colons + 2);
  }
  return {Ns, Name.take_until([](char C) { return C == '.'; }).str()};
}

/// The kernel function tokens [B, E) name: after `&` or inside TORCH_FN(),
/// else the last argument, with the qualifiers written (`ns::f`,
/// `Cls::Create` of `&Cls::Create<T>`); empty for a lambda.
std::string kernelFunctionIn(const std::vector<Token> &T, size_t B, size_t E) {
  size_t Start = B;
  for (size_t J = B; J < E && J < T.size(); ++J) {
    if (T[J].is(clang::tok::l_square))
      return "";
    if (T[J].is(clang::tok::amp) || (T[J].isIdent("TORCH_FN") && J + 1 < E &&
                                     T[J + 1].is(clang::tok::l_paren))) {
      Start = J + (T[J].is(clang::tok::amp) ? 1 : 2);
      break;
    }
    if (T[J].is(clang::tok::comma))
      Start = J + 1;
  }
  // ns::f, ::f: the chain, as written.
  size_t J = Start;
  while (J < E && T[J].is(clang::tok::coloncolon))
    ++J;
  std::string Qualifiers;
  while (J + 2 < E && T[J].is(clang::tok::raw_identifier) &&
         T[J + 1].is(clang::tok::coloncolon)) {
    Qualifiers += T[J].Text.str() + "::";
    J += 2;
  }
  if (J < E && T[J].is(clang::tok::raw_identifier) &&
      (J + 1 >= T.size() || !T[J + 1].is(clang::tok::l_paren)))
    return Qualifiers + T[J].Text.str();
  return "";
}

/// Whether the member call at token J is part of a chain that starts at
/// a `class_<...>(...)` (a TorchScript custom class's `.def` of a method or
/// constructor): the tokens back to the statement's start name `class_`.
/// Returns the `class_` token's index, or 0 where there is none.
size_t customClassChainHead(const std::vector<Token> &T, size_t J) {
  int Depth = 0;
  for (size_t K = J; K-- > 0;) {
    if (T[K].is(clang::tok::r_paren) || T[K].is(clang::tok::r_square))
      ++Depth;
    else if (T[K].is(clang::tok::l_paren) || T[K].is(clang::tok::l_square)) {
      if (Depth-- == 0)
        return 0; // inside an argument list: not a chain's head
    } else if (Depth == 0 &&
               (T[K].is(clang::tok::semi) || T[K].is(clang::tok::l_brace) ||
                T[K].is(clang::tok::r_brace)))
      return 0;
    else if (T[K].isIdent("class_"))
      return K;
  }
  return 0;
}

/// The name a `class_<T>(...)` at token K registers: its last string
/// argument (`class_<T>("ns", "Name")` or `class_<T>("Name")`), else the
/// C++ type between the angle brackets.
std::string customClassName(const std::vector<Token> &T, size_t K) {
  std::string Type;
  size_t J = K + 1;
  if (J < T.size() && T[J].is(clang::tok::less))
    for (++J; J < T.size() && !T[J].is(clang::tok::greater); ++J)
      Type += T[J].Text.str();
  if (J + 1 >= T.size() || !T[J + 1].is(clang::tok::l_paren))
    return Type;
  size_t Close = closingParen(T, J + 1);
  std::string Name;
  for (size_t I = J + 2; I < Close && I < T.size(); ++I)
    if (T[I].isString())
      Name = cxxStringValue(T[I].Text);
  return Name.empty() ? Type : Name;
}

/// Macros of torch, its libraries and test frameworks: never a project's
/// registration macro.
bool isForeignMacro(StringRef S) {
  return S.starts_with("TORCH_") || S.starts_with("C10_") ||
         S.starts_with("AT_") || S.starts_with("PYBIND11_") ||
         S.starts_with("TEST") || S.starts_with("TYPED_TEST") ||
         S.starts_with("INSTANTIATE_") || S.starts_with("CUDA_") ||
         S.starts_with("EXPECT_") || S.starts_with("ASSERT_");
}

/// The longest argument text of a file-scope macro call kept for expansion.
constexpr size_t MaxMacroArguments = 4096;
/// The most text of a block after a file-scope macro call that is kept.
constexpr size_t MaxMacroBlock = 1 << 20;

bool isUpperMacroName(StringRef S) {
  return S.size() > 2 && isUpper(S[0]) && S.find_if([](char C) {
    return !(isUpper(C) || isDigit(C) || C == '_');
  }) == StringRef::npos;
}

/// Whether tokens [B, E) call .def( or .impl( on something (m.def,
/// lib->impl): a registration.
bool registersIn(const std::vector<Token> &T, size_t B, size_t E) {
  for (size_t J = B + 1; J + 1 < E; ++J)
    if ((T[J].isIdent("def") || T[J].isIdent("impl")) &&
        (T[J - 1].is(clang::tok::period) || T[J - 1].is(clang::tok::arrow)) &&
        T[J + 1].is(clang::tok::l_paren))
      return true;
  return false;
}

/// The top-level argument ranges [B, E) of the call whose '(' is at Open
/// and whose ')' is at Close.
std::vector<std::pair<size_t, size_t>>
callArguments(const std::vector<Token> &T, size_t Open, size_t Close) {
  std::vector<std::pair<size_t, size_t>> Args;
  int Depth = 0;
  size_t Start = Open + 1;
  for (size_t J = Open + 1; J < Close; ++J) {
    if (T[J].is(clang::tok::l_paren) || T[J].is(clang::tok::l_square) ||
        T[J].is(clang::tok::l_brace) || T[J].is(clang::tok::less))
      ++Depth;
    else if (T[J].is(clang::tok::r_paren) || T[J].is(clang::tok::r_square) ||
             T[J].is(clang::tok::r_brace) || T[J].is(clang::tok::greater))
      Depth = std::max(0, Depth - 1);
    else if (T[J].is(clang::tok::greatergreater))
      Depth = std::max(0, Depth - 2);
    else if (Depth == 0 && T[J].is(clang::tok::comma)) {
      Args.push_back({Start, J});
      Start = J + 1;
    }
  }
  if (Start < Close)
    Args.push_back({Start, Close});
  return Args;
}

/// The function whose body holds token At: (its name's token, its
/// parameter list's '(' and ')'), found by walking out through the blocks
/// around At (control statements' and lambdas' bodies are passed through).
std::optional<std::array<size_t, 3>>
enclosingFunction(const std::vector<Token> &T, size_t At) {
  int Depth = 0;
  for (size_t J = At; J-- > 0;) {
    if (T[J].is(clang::tok::r_brace)) {
      ++Depth;
      continue;
    }
    if (!T[J].is(clang::tok::l_brace))
      continue;
    if (Depth > 0) {
      --Depth;
      continue;
    }
    // A block around At: what opens it? `) {`, `) const {`,
    // `) noexcept {`, `) -> T {`.
    size_t K = J;
    while (K > 0 &&
           (T[K - 1].is(clang::tok::raw_identifier) ||
            T[K - 1].is(clang::tok::coloncolon) ||
            T[K - 1].is(clang::tok::arrow) || T[K - 1].is(clang::tok::amp) ||
            T[K - 1].is(clang::tok::star)) &&
           !T[K - 1].isIdent("else") && !T[K - 1].isIdent("do") &&
           !T[K - 1].isIdent("try"))
      --K;
    if (K == 0 || !T[K - 1].is(clang::tok::r_paren))
      continue;
    size_t Close = K - 1, Open = Close;
    int P = 0;
    for (size_t Q = Close + 1; Q-- > 0;) {
      if (T[Q].is(clang::tok::r_paren))
        ++P;
      else if (T[Q].is(clang::tok::l_paren) && --P == 0) {
        Open = Q;
        break;
      }
    }
    if (Open == Close || Open == 0)
      return std::nullopt;
    const Token &Name = T[Open - 1];
    if (Name.is(clang::tok::r_square))
      continue; // a lambda's body: its enclosing function's
    if (!Name.is(clang::tok::raw_identifier))
      return std::nullopt;
    static const StringSet<> Control = {"if",     "for",   "while",
                                        "switch", "catch", "AT_DISPATCH"};
    if (Control.contains(Name.Text) || (Name.Text.starts_with("AT_DISPATCH") ||
                                        Name.Text.starts_with("VLLM_DISPATCH")))
      continue;
    // A call's result is no definition (`f(x) {` does not occur in C++
    // outside a definition, but `.method(x) {` in a macro might).
    if (Open >= 2 && (T[Open - 2].is(clang::tok::period) ||
                      T[Open - 2].is(clang::tok::arrow)))
      return std::nullopt;
    return std::array<size_t, 3>{Open - 1, Open, Close};
  }
  return std::nullopt;
}

/// The dispatch-stub calls and stub registrations of a C++ file's tokens.
void scanStubs(StringRef Path, const std::vector<Token> &T, LineCounter &Lines,
               FileOperatorFacts &Out) {
  auto DeviceOf = [&](size_t B, size_t E) -> std::optional<std::string> {
    std::optional<std::string> Key = keyIn(T, B, E);
    if (Key)
      return *Key == "HIP" ? std::string("CUDA") : *Key;
    for (size_t J = B; J < E; ++J)
      if (T[J].isIdent("device_type") || T[J].isIdent("DeviceType") ||
          (T[J].isIdent("type") && J > B && T[J - 1].is(clang::tok::period) &&
           J >= B + 4 && T[J - 2].is(clang::tok::r_paren) &&
           T[J - 4].isIdent("device")))
        return std::string();
    return std::nullopt;
  };
  for (size_t I = 0; I + 1 < T.size(); ++I) {
    if (!T[I].is(clang::tok::raw_identifier) ||
        !T[I + 1].is(clang::tok::l_paren))
      continue;
    StringRef Name = T[I].Text;
    bool InDefine = false;
    for (size_t J = I; J-- > 0;) {
      if (T[J].is(clang::tok::hash) && T[J].StartOfLine) {
        InDefine = J + 1 < T.size() && T[J + 1].isIdent("define");
        break;
      }
      if (T[J].StartOfLine && !T[J].is(clang::tok::hash))
        break;
    }
    if (InDefine)
      continue;
    size_t Close = closingParen(T, I + 1);
    if (Close >= T.size())
      continue;
    auto Args = callArguments(T, I + 1, Close);
    // REGISTER_DISPATCH(stub, &fn), REGISTER_ARCH_DISPATCH(stub, arch, fn),
    // IPEX_REGISTER_DISPATCH(stub, &fn): the stub a single name.
    if (Name.contains("REGISTER") && Name.ends_with("DISPATCH") &&
        Args.size() >= 2 && Args[0].second == Args[0].first + 1 &&
        T[Args[0].first].is(clang::tok::raw_identifier)) {
      std::string Fn =
          kernelFunctionIn(T, Args.back().first, Args.back().second);
      if (!Fn.empty())
        Out.StubKernels.push_back(
            {T[Args[0].first].Text.str(), Fn,
             Name.contains("CUDA") || Name.contains("HIP") ? "CUDA" : "CPU",
             Path.str(), Lines.lineOf(T[I].Offset)});
      I = Close;
      continue;
    }
    // stub(kCPU, a, b): a call (not a member's) whose first argument is a
    // device type.
    if (Args.size() < 2 || (I > 0 && (T[I - 1].is(clang::tok::period) ||
                                      T[I - 1].is(clang::tok::arrow))))
      continue;
    std::optional<std::string> Device = DeviceOf(Args[0].first, Args[0].second);
    if (!Device)
      continue;
    std::optional<std::array<size_t, 3>> Fn = enclosingFunction(T, I);
    if (!Fn)
      continue;
    std::vector<std::string> Params;
    for (auto [B, E] : callArguments(T, (*Fn)[1], (*Fn)[2])) {
      std::string P;
      for (size_t J = B; J < E && !T[J].is(clang::tok::equal); ++J)
        if (T[J].is(clang::tok::raw_identifier))
          P = T[J].Text.str();
      Params.push_back(P);
    }
    StubCall C{Name.str(), T[(*Fn)[0]].Text.str(),   {}, Params, *Device,
               Path.str(), Lines.lineOf(T[I].Offset)};
    for (size_t A = 1; A < Args.size(); ++A) {
      int Index = -1;
      if (Args[A].second == Args[A].first + 1 &&
          T[Args[A].first].is(clang::tok::raw_identifier))
        for (size_t P = 0; P < Params.size(); ++P)
          if (Params[P] == T[Args[A].first].Text)
            Index = static_cast<int>(P);
      C.ArgParams.push_back(Index);
    }
    if (llvm::any_of(C.ArgParams, [](int X) { return X >= 0; }))
      Out.StubCalls.push_back(std::move(C));
  }
}

/// The functions of a C++ file's tokens whose bodies infer a schema from a
/// C++ signature as LibTorch does.
void scanInferringHelpers(const std::vector<Token> &T, FileOperatorFacts &Out) {
  for (size_t J = 0; J < T.size(); ++J) {
    if (!(T[J].isIdent("inferFunctionSchemaFromFunctor") ||
          T[J].isIdent("inferFunctionSchemaSingleReturn") ||
          T[J].isIdent("inferFunctionSchemaFlattenedReturns") ||
          T[J].isIdent("make_function_schema")))
      continue;
    if (std::optional<std::array<size_t, 3>> Fn = enclosingFunction(T, J)) {
      std::string Name = T[(*Fn)[0]].Text.str();
      if (!llvm::is_contained(Out.InferringHelpers, Name))
        Out.InferringHelpers.push_back(std::move(Name));
    }
  }
}

/// The functions a pybind11 module binds by name (`m.def("fill", &fill)`,
/// `m.def("fill", ns::fill, "doc")`): PybindDefs (Name the Python name,
/// Function the C++ function as written). A lambda or a cast is not read.
void scanPybindDefs(StringRef Path, const std::vector<Token> &T,
                    LineCounter &Lines, FileOperatorFacts &Out) {
  // The module of the PYBIND11_MODULE the defs are in, where its name is
  // written (`PYBIND11_MODULE(_qattn, m)`); empty for TORCH_EXTENSION_NAME,
  // which the build sets.
  std::string Module;
  for (size_t I = 0; I + 4 < T.size(); ++I) {
    if (T[I].isIdent("PYBIND11_MODULE") && T[I + 1].is(clang::tok::l_paren) &&
        T[I + 2].is(clang::tok::raw_identifier))
      Module =
          T[I + 2].Text == "TORCH_EXTENSION_NAME" ? "" : T[I + 2].Text.str();
    if (!T[I].is(clang::tok::period) || !T[I + 1].isIdent("def") ||
        !T[I + 2].is(clang::tok::l_paren) || !T[I + 3].isString() ||
        !T[I + 4].is(clang::tok::comma))
      continue;
    size_t J = I + 5;
    if (J < T.size() && T[J].is(clang::tok::amp))
      ++J;
    std::string Function;
    while (J < T.size() && (T[J].is(clang::tok::raw_identifier) ||
                            T[J].is(clang::tok::coloncolon))) {
      Function += T[J].Text.str();
      ++J;
    }
    if (Function.empty() || J >= T.size() ||
        !(T[J].is(clang::tok::comma) || T[J].is(clang::tok::r_paren)))
      continue;
    std::string Name = cxxStringValue(T[I + 3].Text);
    if (Name.empty() || isDigit(Name[0]) ||
        !llvm::all_of(Name, [](char C) { return isAlnum(C) || C == '_'; }))
      continue;
    Out.PybindDefs.push_back({Module, Name,
                              KernelSite{"", "pybind11 def", Path.str(),
                                         Lines.lineOf(T[I + 1].Offset), ""},
                              Function});
  }
}

void scanCxx(StringRef Path, StringRef Text, FileOperatorFacts &Out) {
  bool Defines = Text.contains("#define") &&
                 (Text.contains("impl") || Text.contains("def(") ||
                  Text.contains("TORCH_LIBRARY"));
  // Files without these are read for file-scope macro calls only (a
  // project's macro may expand to a whole library block).
  bool Registers = Text.contains("TORCH_LIBRARY") ||
                   Text.contains("TORCH_SELECTIVE_SCHEMA") ||
                   Text.contains("RegisterOperators") || Defines;
  if (!Registers && !Text.contains('('))
    return;
  std::string Buf = Text.str(); // the lexer reads up to a NUL
  std::vector<Token> T = lexCxx(Buf);
  LineCounter Lines(Buf);
  if (Text.contains("DISPATCH") || Text.contains("_stub") ||
      Text.contains("DeviceType") || Text.contains("kCPU") ||
      Text.contains("kCUDA") || Text.contains("device_type")) {
    scanStubs(Path, T, Lines, Out); // (Lines goes back to 0 by itself)
  }
  if (Text.contains("FunctionSchema") || Text.contains("function_schema"))
    scanInferringHelpers(T, Out);
  if (Text.contains("PYBIND11_MODULE") || Text.contains("pybind11::module") ||
      Text.contains("py::module"))
    scanPybindDefs(Path, T, Lines, Out);
  DenseSet<size_t> Seen; // offsets of recorded literals
  // A template's placeholder (`{{ optimizer }}`, FBGEMM's Jinja code
  // generators) names no operator: the generated file registers it.
  auto Templated = [](StringRef S) {
    return S.contains("{{") || S.contains("{%");
  };
  auto Record = [&](StringRef Ns, size_t At, std::string Schema) {
    if (Schema.empty() || Schema.find('(') == std::string::npos ||
        Templated(Schema) || !Seen.insert(At).second)
      return;
    Out.Schemas.push_back(
        {Ns.str(), std::move(Schema), Path.str(), Lines.lineOf(T[At].Offset)});
  };
  // A kernel registered at token At, by a call whose arguments end at
  // token Close.
  auto Kernel = [&](StringRef BlockNs, StringRef Written, std::string Key,
                    std::string How, size_t At, size_t Close,
                    std::vector<DeclaredKernel> *To = nullptr) {
    auto [Ns, Name] = operatorNameOf(Written);
    if (Name.empty() || Templated(Written))
      return;
    size_t Args = firstComma(T, At + 2, Close);
    // torch::CppFunction::makeFallthrough(): the call passes on to the next
    // dispatch key; there is no kernel there to analyse (torch's registry
    // marks it "fallthrough", the compiler's harvest has none).
    for (size_t J = Args + 1; J < Close && J < T.size(); ++J)
      if (T[J].isIdent("makeFallthrough"))
        return;
    (To ? *To : Out.Kernels)
        .push_back({Ns.empty() ? BlockNs.str() : Ns, Name,
                    KernelSite{std::move(Key), std::move(How), Path.str(),
                               Lines.lineOf(T[At].Offset)},
                    kernelFunctionIn(T, Args + 1, Close)});
  };
  // Variables that hold a custom class (`auto c = m.class_<T>("T");`):
  // their .def calls are its methods.
  StringMap<std::string> ClassVars; // variable: the class's name
  for (size_t I = 0; I + 2 < T.size(); ++I)
    if (T[I].is(clang::tok::raw_identifier) && T[I + 1].is(clang::tok::equal))
      for (size_t K = I + 2; K < T.size() && !T[K].is(clang::tok::semi); ++K)
        if (T[K].isIdent("class_")) {
          ClassVars[T[I].Text] = customClassName(T, K);
          break;
        }
  // The registrations of a library block whose '{' is token Open; returns
  // the index of its '}'. BlockKey: TORCH_LIBRARY_IMPL's key.
  auto Block = [&](size_t Open, StringRef Ns,
                   std::optional<std::string> BlockKey) {
    int Depth = 0;
    size_t J = Open;
    for (; J < T.size(); ++J) {
      if (T[J].is(clang::tok::l_brace))
        ++Depth;
      else if (T[J].is(clang::tok::r_brace) && --Depth == 0)
        break;
      // x.def( / x.impl(, or x->..., chained or not.
      // helper("ns::" NAME, Func, m): an operator a project's helper may
      // define from Func's signature (kept until the helper is known).
      if (T[J].is(clang::tok::raw_identifier) && J + 2 < T.size() &&
          T[J + 1].is(clang::tok::l_paren) && T[J + 2].isString() &&
          !(J > 0 && (T[J - 1].is(clang::tok::period) ||
                      T[J - 1].is(clang::tok::arrow)))) {
        size_t Close = closingParen(T, J + 1);
        auto Args = callArguments(T, J + 1, Close);
        std::string Written = schemaAt(T, J + 2);
        if (Close < T.size() && Args.size() >= 2 && !Written.empty() &&
            Written.find('(') == std::string::npos) {
          auto [OpNs, OpName] = operatorNameOf(Written);
          std::string Fn = kernelFunctionIn(T, Args[1].first, Args[1].second);
          if (!OpName.empty() && !Fn.empty())
            Out.HelperDefs.push_back(
                {OpNs.empty() ? Ns.str() : OpNs, OpName,
                 KernelSite{"", T[J].Text.str(), Path.str(),
                            Lines.lineOf(T[J].Offset)},
                 Fn});
        }
      }
      bool Member =
          J > 0 && J + 1 < T.size() &&
          (T[J - 1].is(clang::tok::period) || T[J - 1].is(clang::tok::arrow)) &&
          T[J + 1].is(clang::tok::l_paren);
      size_t Head =
          Member && T[J].isIdent("def") ? customClassChainHead(T, J) : 0;
      if (Member && T[J].isIdent("def") &&
          (Head || (J >= 2 && ClassVars.contains(T[J - 2].Text)))) {
        // m.class_<T>("Name").def("method", ...): a TorchScript custom
        // class's method, not an operator; kept apart (CustomClassMethodKey,
        // named "Class.method") so that coverage can list it.
        size_t Close = closingParen(T, J + 1);
        std::string Class =
            Head ? customClassName(T, Head) : ClassVars[T[J - 2].Text];
        std::string Method = schemaAt(T, J + 2);
        if (Method.empty())
          Method = "__init__"; // .def(torch::init<...>())
        size_t Args = firstComma(T, J + 2, Close);
        Out.Kernels.push_back(
            {Ns.str(), Class + "." + Method,
             KernelSite{CustomClassMethodKey.str(), "class_.def", Path.str(),
                        Lines.lineOf(T[J].Offset)},
             Method == "__init__" || Args >= Close
                 ? ""
                 : kernelFunctionIn(T, Args + 1, Close)});
        J = Close;
        continue;
      }
      if (Member && T[J].isIdent("def")) {
        size_t K = J + 2;
        std::string S = schemaAt(T, K);
        while (K < T.size() && !T[K].isString())
          ++K;
        if (K < T.size())
          Record(Ns, K, S);
        // m.def(schema, fn) / m.def(name, fn): a catch-all kernel, unless
        // the second argument is a list of tags.
        size_t Close = closingParen(T, J + 1);
        for (size_t C = K + 1; C < Close; ++C)
          if (T[C].is(clang::tok::comma)) {
            if (C + 1 < Close && !T[C + 1].is(clang::tok::l_brace) &&
                !S.empty())
              Kernel(Ns, S,
                     keyIn(T, C, Close).value_or("CompositeImplicitAutograd"),
                     "m.def", J, Close);
            break;
          }
      } else if (Member && T[J].isIdent("impl")) {
        size_t Close = closingParen(T, J + 1);
        std::string Name = schemaAt(T, J + 2);
        if (!Name.empty())
          Kernel(Ns, Name,
                 keyIn(T, J + 2, Close)
                     .value_or(BlockKey.value_or("CompositeImplicitAutograd")),
                 BlockKey ? "TORCH_LIBRARY_IMPL" : "m.impl", J, Close);
      } else if (T[J].is(clang::tok::raw_identifier) &&
                 isUpperMacroName(T[J].Text) && J + 1 < T.size() &&
                 T[J + 1].is(clang::tok::l_paren) &&
                 !T[J].Text.starts_with("TORCH_")) {
        // A project's macro (DEFINE_OP(name, ...)): what it registers is
        // known once its definition, here or in another file, is expanded
        // with these arguments. The tokens inside are still read.
        size_t Close = closingParen(T, J + 1);
        if (Close < T.size()) {
          size_t From = T[J + 1].Offset + 1;
          Out.MacroCalls.push_back({T[J].Text.str(), Ns.str(),
                                    BlockKey.value_or(""),
                                    Buf.substr(From, T[Close].Offset - From),
                                    Lines.lineOf(T[J].Offset)});
        }
      }
    }
    return J;
  };
  // Function-like macros of the file; those that register, directly or
  // through another macro of the file that does, are kept.
  struct Candidate {
    RegisteringMacro M;
    bool Registers;
    std::vector<std::string> Calls;
  };
  std::vector<Candidate> Candidates;
  // The braces open around token I: true for a namespace's or an
  // `extern "C"`'s, whose inside is still file scope.
  std::vector<bool> Scopes;
  bool NamespaceNext = false;
  for (size_t I = 0; I < T.size(); ++I) {
    if (T[I].isIdent("namespace") ||
        (T[I].isIdent("extern") && I + 1 < T.size() && T[I + 1].isString()))
      NamespaceNext = true;
    else if (T[I].is(clang::tok::semi))
      NamespaceNext = false;
    else if (T[I].is(clang::tok::l_brace)) {
      Scopes.push_back(NamespaceNext);
      NamespaceNext = false;
    } else if (T[I].is(clang::tok::r_brace) && !Scopes.empty())
      Scopes.pop_back();
    // A project's macro called at file scope (FBGEMM_OP_DISPATCH(CUDA,
    // "op", fn), whose body is a TORCH_LIBRARY_IMPL block): expanded once
    // its definition is known.
    if (T[I].StartOfLine && T[I].is(clang::tok::raw_identifier) &&
        isUpperMacroName(T[I].Text) && I + 1 < T.size() &&
        T[I + 1].is(clang::tok::l_paren) && !isLibraryMacro(T[I]) &&
        !isImplMacro(T[I]) && !isForeignMacro(T[I].Text) &&
        llvm::all_of(Scopes, [](bool Namespace) { return Namespace; })) {
      size_t Close = closingParen(T, I + 1);
      if (Close < T.size()) {
        size_t From = T[I + 1].Offset + 1;
        // A block right after the call: a library block behind a macro
        // of the project's own (`REGISTER_LIBRARY(ns, m) { ... }`).
        size_t End = Close;
        if (Close + 1 < T.size() && T[Close + 1].is(clang::tok::l_brace)) {
          int Depth = 0;
          for (size_t J = Close + 1; J < T.size(); ++J) {
            if (T[J].is(clang::tok::l_brace))
              ++Depth;
            else if (T[J].is(clang::tok::r_brace) && --Depth == 0) {
              End = J;
              break;
            }
          }
        }
        if (T[Close].Offset - From <= MaxMacroArguments &&
            T[End].Offset - T[Close].Offset <= MaxMacroBlock)
          Out.MacroCalls.push_back(
              {T[I].Text.str(), "", "",
               Buf.substr(From, T[Close].Offset - From),
               Lines.lineOf(T[I].Offset), true,
               End == Close ? std::string()
                            : Buf.substr(T[Close].Offset + 1,
                                         T[End].Offset - T[Close].Offset)});
        I = End;
        continue;
      }
    }
    // #define NAME TORCH_LIBRARY (or another library macro): an alias,
    // expanded where a file calls it with a block.
    if (T[I].is(clang::tok::hash) && T[I].StartOfLine && I + 3 < T.size() &&
        T[I + 1].isIdent("define") && T[I + 2].is(clang::tok::raw_identifier) &&
        (isLibraryMacro(T[I + 3]) || isImplMacro(T[I + 3])) &&
        T[I + 3].Offset != T[I + 2].Offset + T[I + 2].Text.size() &&
        !T[I + 3].StartOfLine && (I + 4 == T.size() || T[I + 4].StartOfLine)) {
      RegisteringMacro M{
          T[I + 2].Text.str(), {}, T[I + 3].Text.str(), Path.str()};
      M.ObjectLike = true;
      Out.Macros.push_back(std::move(M));
      I += 3;
      continue;
    }
    if (!Registers)
      continue;
    // #define NAME(params) <a body that registers>: expanded where a
    // library block calls it (ProjectOperators::expandMacroCalls).
    if (Defines && T[I].is(clang::tok::hash) && T[I].StartOfLine &&
        I + 3 < T.size() && T[I + 1].isIdent("define") &&
        T[I + 2].is(clang::tok::raw_identifier) &&
        T[I + 3].is(clang::tok::l_paren) &&
        T[I + 3].Offset == T[I + 2].Offset + T[I + 2].Text.size()) {
      size_t E = I + 4;
      while (E < T.size() && !T[E].StartOfLine)
        ++E;
      RegisteringMacro M{T[I + 2].Text.str(), {}, "", Path.str()};
      size_t P = I + 4;
      for (; P < E && !T[P].is(clang::tok::r_paren); ++P)
        if (T[P].is(clang::tok::raw_identifier))
          M.Params.push_back(T[P].Text.str());
        else if (T[P].is(clang::tok::ellipsis))
          M.Params.push_back("__VA_ARGS__");
      if (P + 1 < E) {
        size_t From = T[P + 1].Offset;
        M.Body =
            Buf.substr(From, T[E - 1].Offset + T[E - 1].Text.size() - From);
        // A body that registers, or one that is a library block's head
        // (`#define MY_LIB(ns) TORCH_LIBRARY_FRAGMENT(ns, m)`): the block
        // after its call is the library's.
        bool Head = P + 2 < E && T[E - 1].is(clang::tok::r_paren) &&
                    (isLibraryMacro(T[P + 1]) || isImplMacro(T[P + 1])) &&
                    closingParen(T, P + 2) == E - 1;
        Candidate C{std::move(M), Head || registersIn(T, P + 1, E), {}};
        for (size_t J = P + 1; J + 1 < E; ++J)
          if (T[J].is(clang::tok::raw_identifier) &&
              isUpperMacroName(T[J].Text) && T[J + 1].is(clang::tok::l_paren))
            C.Calls.push_back(T[J].Text.str());
        Candidates.push_back(std::move(C));
      }
      I = E - 1;
      continue;
    }
    if ((isLibraryMacro(T[I]) || isImplMacro(T[I])) && I + 1 < T.size() &&
        T[I + 1].is(clang::tok::l_paren)) {
      // (ns, m) or (ns, KEY, m); ns an identifier or a token-pasting macro
      // call of identifiers (vllm-ascend's CONCAT(_C, _ascend)).
      size_t J = I + 2;
      std::optional<std::string> Ns = namespaceArgument(T, J);
      bool Impl = isImplMacro(T[I]);
      std::optional<std::string> Key;
      if (Ns && Impl && J + 1 < T.size() && T[J].is(clang::tok::comma) &&
          T[J + 1].is(clang::tok::raw_identifier)) {
        Key = T[J + 1].Text.str();
        J += 2;
      }
      if (Ns && (!Impl || Key) && J + 3 < T.size() &&
          T[J].is(clang::tok::comma) &&
          T[J + 1].is(clang::tok::raw_identifier) &&
          T[J + 2].is(clang::tok::r_paren) &&
          T[J + 3].is(clang::tok::l_brace)) {
        I = Block(J + 3, *Ns, Key);
        continue;
      }
    }
    // torch::RegisterOperators().op("ns::op(...)", fn) and
    // .op(RegisterOperators::options().schema("ns::op(...)")...), up to the
    // end of the statement.
    if (T[I].isIdent("RegisterOperators")) {
      // Each registration with a function is a catch-all kernel (LibTorch
      // infers the schema of a bare name from the function's signature).
      auto Registered = [&](size_t At) {
        size_t Close = closingParen(T, At + 1);
        std::string Name = schemaAt(T, At + 2);
        bool Function = firstComma(T, At + 2, Close) + 1 < Close;
        if (!Name.empty() && Function &&
            StringRef(Name)
                .take_until([](char C) { return C == '('; })
                .contains("::"))
          Kernel("", Name, "CompositeImplicitAutograd",
                 "torch::RegisterOperators", At, Close);
      };
      if (I + 2 < T.size() && T[I + 1].is(clang::tok::l_paren) &&
          T[I + 2].isString())
        Registered(I);
      int Depth = 0;
      size_t J = I + 1;
      for (; J < T.size(); ++J) {
        if (T[J].is(clang::tok::l_paren) || T[J].is(clang::tok::l_brace))
          ++Depth;
        else if (T[J].is(clang::tok::r_paren) || T[J].is(clang::tok::r_brace))
          --Depth;
        else if (Depth <= 0 && T[J].is(clang::tok::semi))
          break;
        if ((T[J].isIdent("op") || T[J].isIdent("schema")) &&
            T[J - 1].is(clang::tok::period) && J + 2 < T.size() &&
            T[J + 1].is(clang::tok::l_paren) && T[J + 2].isString()) {
          std::string S = schemaAt(T, J + 2);
          size_t Paren = S.find('(');
          if (Paren != std::string::npos &&
              StringRef(S).take_front(Paren).contains("::"))
            Record("", J + 2, std::move(S));
          if (T[J].isIdent("op"))
            Registered(J);
        }
      }
      I = J;
      continue;
    }
    // TORCH_SELECTIVE_SCHEMA("ns::op(...)") anywhere (a helper that takes
    // the library, a wrapper macro's argument).
    if (T[I].isIdent("TORCH_SELECTIVE_SCHEMA") && I + 2 < T.size() &&
        T[I + 1].is(clang::tok::l_paren) && T[I + 2].isString()) {
      std::string S = schemaAt(T, I);
      size_t Paren = S.find('(');
      if (Paren != std::string::npos &&
          StringRef(S).take_front(Paren).contains("::"))
        Record("", I + 2, std::move(S));
    }
  }
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (Candidate &C : Candidates)
      if (!C.Registers && llvm::any_of(C.Calls, [&](const std::string &Name) {
            return llvm::any_of(Candidates, [&](const Candidate &D) {
              return D.Registers && D.M.Name == Name;
            });
          }))
        C.Registers = Changed = true;
  }
  for (Candidate &C : Candidates)
    if (C.Registers)
      Out.Macros.push_back(std::move(C.M));
}

// --- Python ------------------------------------------------------------------

/// Reads the Python string literals (adjacent ones concatenated) at Pos,
/// after whitespace; advances Pos past them. Empty when there is none.
std::optional<std::string> pythonStrings(StringRef Text, size_t &Pos) {
  std::optional<std::string> Out;
  while (true) {
    size_t P = Pos;
    while (P < Text.size() && isSpace(Text[P]))
      ++P;
    bool Raw = false;
    while (P < Text.size() && StringRef("rRuUbB").contains(Text[P])) {
      Raw |= Text[P] == 'r' || Text[P] == 'R';
      ++P;
    }
    if (P >= Text.size() || (Text[P] != '"' && Text[P] != '\''))
      return Out;
    char Q = Text[P];
    bool Triple = Text.substr(P, 3) == std::string(3, Q);
    P += Triple ? 3 : 1;
    std::string S;
    while (P < Text.size()) {
      if (Triple ? Text.substr(P, 3) == std::string(3, Q) : Text[P] == Q)
        break;
      if (!Triple && Text[P] == '\n')
        return Out; // unterminated
      if (Text[P] == '\\' && !Raw && P + 1 < Text.size()) {
        char N = Text[P + 1];
        S += N == 'n' ? '\n' : N;
        P += 2;
        continue;
      }
      S += Text[P++];
    }
    if (P >= Text.size())
      return Out;
    Pos = P + (Triple ? 3 : 1);
    Out = Out.value_or("") + S;
  }
}

/// The identifier that ends just before Pos (skipping spaces), if any.
StringRef identifierBefore(StringRef Text, size_t Pos) {
  size_t E = Pos;
  while (E > 0 && Text[E - 1] == ' ')
    --E;
  size_t B = E;
  while (B > 0 && (isAlnum(Text[B - 1]) || Text[B - 1] == '_'))
    --B;
  return Text.slice(B, E);
}

/// The string literals and the text of the first argument of the Python
/// call whose '(' is at Open; Pos ends after its ')'.
struct PythonCall {
  std::vector<std::string> Strings;
  StringRef FirstArgument;
};
PythonCall pythonCall(StringRef Text, size_t Open) {
  PythonCall Out;
  int Depth = 0;
  size_t FirstEnd = StringRef::npos;
  for (size_t P = Open; P < Text.size();) {
    char C = Text[P];
    if (C == '"' || C == '\'') {
      size_t Q = P;
      if (std::optional<std::string> S = pythonStrings(Text, Q); S && Q > P) {
        Out.Strings.push_back(*S);
        P = Q;
        continue;
      }
      ++P;
      continue;
    }
    if (C == '#') { // a comment, to the end of the line
      P = Text.find('\n', P);
      continue;
    }
    if (C == '(' || C == '[' || C == '{')
      ++Depth;
    else if (C == ')' || C == ']' || C == '}') {
      if (--Depth == 0) {
        if (FirstEnd == StringRef::npos)
          FirstEnd = P;
        break;
      }
    } else if (C == ',' && Depth == 1 && FirstEnd == StringRef::npos)
      FirstEnd = P;
    ++P;
  }
  if (FirstEnd != StringRef::npos)
    Out.FirstArgument = Text.slice(Open + 1, FirstEnd).trim();
  return Out;
}

/// The dispatch key a Python registration names: a key ("Meta",
/// "CompositeExplicitAutograd") or a device type ("cpu", "cuda").
std::optional<std::string> pythonKey(StringRef S) {
  static const StringMap<StringRef> Devices = {
      {"cpu", "CPU"}, {"cuda", "CUDA"}, {"xpu", "XPU"},        {"meta", "Meta"},
      {"mps", "MPS"}, {"hip", "HIP"},   {"npu", "PrivateUse1"}};
  if (auto It = Devices.find(S.lower()); It != Devices.end())
    return It->second.str();
  if (!S.empty() && isUpper(S[0]) &&
      S.find_if([](char C) { return !isAlnum(C); }) == StringRef::npos)
    return S.str();
  return std::nullopt;
}

/// ("ns", "op") from torch.ops.ns.op[.overload].
std::optional<std::pair<std::string, std::string>> opsAttribute(StringRef Arg) {
  if (!Arg.consume_front("torch.ops."))
    return std::nullopt;
  auto [Ns, Rest] = Arg.split('.');
  StringRef Name = Rest.take_until([](char C) { return C == '.'; });
  if (Ns.empty() || Name.empty())
    return std::nullopt;
  return std::make_pair(Ns.str(), Name.str());
}

/// Whether S is a Python identifier (an operator's bare name).
/// WrapperMacro::Naming of a helper that drops the function's leading _.
constexpr StringLiteral DropUnderscoreNaming =
    "function name without a leading _";

bool isIdentifier(StringRef S) {
  return !S.empty() && !isDigit(S[0]) && S.find_if_not([](char C) {
    return isAlnum(C) || C == '_';
  }) == StringRef::npos;
}

/// The start of the line holding Pos, and that line's indentation.
std::pair<size_t, size_t> lineAndIndent(StringRef Text, size_t Pos) {
  size_t Start = Text.rfind('\n', Pos);
  Start = Start == StringRef::npos ? 0 : Start + 1;
  size_t Indent = Start;
  while (Indent < Text.size() && (Text[Indent] == ' ' || Text[Indent] == '\t'))
    ++Indent;
  return {Start, Indent - Start};
}

/// Whether a block header opens a function (`def f(...):`, `async def`).
bool isDefHeader(StringRef Header) {
  return Header.starts_with("def ") || Header.starts_with("async def ");
}

/// The headers of the Python blocks enclosing Pos, innermost first, up to
/// the enclosing `def` or `class` (included): each line above Pos indented
/// less than everything after it.
std::vector<StringRef> enclosingHeaders(StringRef Text, size_t Pos) {
  std::vector<StringRef> Out;
  auto [Start, Indent] = lineAndIndent(Text, Pos);
  while (Start > 0 && Indent > 0) {
    size_t PrevEnd = Start - 1; // the '\n' ending the previous line
    // The previous line's start; a blank line is read with the line above
    // it (lineAndIndent of a position at a line break would be that line's).
    size_t LastStart = PrevEnd == 0 ? 0 : Text.rfind('\n', PrevEnd - 1);
    LastStart =
        LastStart == StringRef::npos || PrevEnd == 0 ? 0 : LastStart + 1;
    // A header over several lines (`for op in [\n    "a",\n]:`) starts
    // where the brackets that close on its last line open.
    int Depth = 0;
    size_t P = PrevEnd;
    while (P > 0) {
      char C = Text[P - 1];
      if (C == ')' || C == ']' || C == '}')
        ++Depth;
      else if ((C == '(' || C == '[' || C == '{') && Depth > 0)
        --Depth;
      --P;
      if (P <= LastStart && Depth == 0)
        break;
    }
    size_t FirstStart = lineAndIndent(Text, P).first;
    StringRef First = Text.slice(FirstStart, PrevEnd);
    StringRef Code = First.ltrim(" \t");
    StringRef Last = Text.slice(LastStart, PrevEnd).split('#').first.rtrim();
    size_t LineIndent = First.size() - Code.size();
    Start = FirstStart;
    if (Code.empty() || Code.starts_with("#") || LineIndent >= Indent)
      continue;
    Indent = LineIndent;
    // Only a line that ends a block header with ':' opens a block.
    if (!Last.ends_with(":"))
      continue;
    StringRef Header = Text.slice(
        FirstStart + LineIndent, static_cast<size_t>(Last.end() - Text.data()));
    Out.push_back(Header);
    if (isDefHeader(Header) || Header.starts_with("class "))
      break;
  }
  return Out;
}

/// Whether Arg mentions identifier Var.
bool mentionsIdentifier(StringRef Arg, StringRef Var) {
  for (size_t At = Arg.find(Var); At != StringRef::npos;
       At = Arg.find(Var, At + 1)) {
    bool Before = At > 0 && (isAlnum(Arg[At - 1]) || Arg[At - 1] == '_');
    size_t E = At + Var.size();
    bool After = E < Arg.size() && (isAlnum(Arg[E]) || Arg[E] == '_');
    if (!Before && !After)
      return true;
  }
  return false;
}

/// The names a `for VAR in [...]:` (or a tuple) enclosing Pos iterates
/// over, when the loop variable is mentioned by Arg and every element is a
/// string literal: the loop a project registers its fakes in (deep-gemm's
/// `for _op in [...]: @register_fake(add_op_namespace_prefix(_op))`).
std::optional<std::vector<std::string>> loopNames(StringRef Text, size_t Pos,
                                                  StringRef Arg) {
  for (StringRef Header : enclosingHeaders(Text, Pos)) {
    if (!Header.consume_front("for "))
      continue;
    auto [Var, Rest] = Header.split(" in ");
    Var = Var.trim();
    if (!mentionsIdentifier(Arg, Var))
      return std::nullopt;
    // The iterable, read from the file to its bracket's end (Header is a
    // slice of Text; the list may span many lines).
    size_t InAt = static_cast<size_t>(Rest.data() - Text.data());
    size_t Open = InAt;
    while (Open < Text.size() && isSpace(Text[Open]))
      ++Open;
    // `for op in none_return_ops:` (sglang): the list assigned to that name
    // last before the loop, `none_return_ops = [...]`.
    StringRef Iterable = Rest.trim().drop_back().rtrim(); // without ':'
    if (isIdentifier(Iterable)) {
      std::string Assign = (Iterable + " = ").str();
      size_t At = Text.take_front(InAt).rfind(Assign);
      while (
          At != StringRef::npos && At > 0 &&
          (isAlnum(Text[At - 1]) || Text[At - 1] == '_' || Text[At - 1] == '.'))
        At = Text.take_front(At).rfind(Assign);
      if (At == StringRef::npos)
        return std::nullopt;
      Open = At + Assign.size();
    }
    if (Open >= Text.size() || (Text[Open] != '[' && Text[Open] != '('))
      return std::nullopt;
    PythonCall List = pythonCall(Text, Open);
    if (List.Strings.empty())
      return std::nullopt;
    return List.Strings;
  }
  return std::nullopt;
}

/// The condition a Python registration at Pos is made under: the innermost
/// enclosing `if` / `elif` / `else` header, else empty.
std::string conditionOf(StringRef Text, size_t Pos) {
  for (StringRef Header : enclosingHeaders(Text, Pos))
    if (Header.starts_with("if ") || Header.starts_with("elif ") ||
        Header.starts_with("else"))
      return Header.str();
  return "";
}

/// The (name, alias) pairs of a line `from torch.library import a as b,
/// c` (the alias empty where none is given); none for any other line.
SmallVector<std::pair<StringRef, StringRef>, 4>
torchLibraryImports(StringRef Code) {
  SmallVector<std::pair<StringRef, StringRef>, 4> Out;
  StringRef Imports = Code;
  if (!Imports.consume_front("from"))
    return Out;
  Imports = Imports.ltrim();
  if (!Imports.consume_front("torch.library"))
    return Out;
  Imports = Imports.ltrim();
  if (!Imports.consume_front("import"))
    return Out;
  SmallVector<StringRef, 4> Names;
  Imports.trim().trim("()").split(Names, ',');
  for (StringRef N : Names) {
    auto [Imported, Alias] = N.trim().split(" as ");
    Out.push_back({Imported.trim(), Alias.trim()});
  }
  return Out;
}

/// The code of Text's logical lines (comments dropped, trimmed on the
/// left): a line whose brackets are still open goes on with the next ones,
/// joined with a space (DGL's `fake = (\n torch.library.impl_abstract\n if
/// old else torch.library.register_fake\n)`).
std::vector<std::string> pythonLogicalLines(StringRef Text) {
  std::vector<std::string> Out;
  std::string Pending;
  int Depth = 0;
  StringRef Rest = Text;
  while (!Rest.empty()) {
    auto [Line, Next] = Rest.split('\n');
    Rest = Next;
    StringRef Code = Line.ltrim(" \t").split('#').first.rtrim();
    if (!Pending.empty())
      Pending += ' ';
    Pending += Code.str();
    for (char C : Code)
      Depth += C == '(' || C == '[' || C == '{'   ? 1
               : C == ')' || C == ']' || C == '}' ? -1
                                                  : 0;
    if (Depth <= 0) {
      Out.push_back(std::move(Pending));
      Pending.clear();
      Depth = 0;
    }
  }
  if (!Pending.empty())
    Out.push_back(std::move(Pending));
  return Out;
}

/// Names bound to register_fake or impl_abstract themselves, not to a
/// call's result (`fake = torch.library.impl_abstract if old else
/// torch.library.register_fake`, `fake = getattr(torch.library,
/// "register_fake", None) or torch.library.impl_abstract`): their calls
/// register fakes as the functions do.
void pythonFakeAliases(StringRef Text, std::vector<WrapperMacro> &Out) {
  for (const std::string &Logical : pythonLogicalLines(Text)) {
    StringRef Code = Logical;
    size_t NameEnd = 0;
    while (NameEnd < Code.size() &&
           (isAlnum(Code[NameEnd]) || Code[NameEnd] == '_'))
      ++NameEnd;
    StringRef Name = Code.take_front(NameEnd);
    StringRef Value = Code.drop_front(NameEnd).ltrim();
    if (Name == "from") {
      // from torch.library import register_fake as fake, impl_abstract as x
      for (auto [Imported, Alias] : torchLibraryImports(Code))
        if ((Imported == "register_fake" || Imported == "impl_abstract") &&
            isIdentifier(Alias) &&
            llvm::none_of(
                Out, [&](const WrapperMacro &W) { return W.Name == Alias; }))
          Out.push_back({Alias.str(), "Fake"});
      continue;
    }
    if (Name.empty() || isDigit(Name.front()) || !Value.consume_front("=") ||
        Value.starts_with("="))
      continue;
    Value = Value.trim();
    bool Names = mentionsIdentifier(Value, "register_fake") ||
                 mentionsIdentifier(Value, "impl_abstract");
    // A call's result (register_fake("ns::op")) is a decorator for one
    // operator, not the function: left to the calls' scan.
    if (Names && !Value.contains("register_fake(") &&
        !Value.contains("impl_abstract(") &&
        llvm::none_of(Out,
                      [&](const WrapperMacro &W) { return W.Name == Name; }))
      Out.push_back({Name.str(), "Fake"});
  }
}

/// torch.library functions a file calls under another name: `impl =
/// torch.library.impl`, `from torch.library import custom_op as cop`,
/// `op = getattr(torch.library, "custom_op")` ({alias: function}).
/// register_fake and impl_abstract under other names are
/// pythonFakeAliases' (their conditional choices too).
StringMap<std::string> pythonLibraryAliases(StringRef Text) {
  static const char *const Functions[] = {
      "custom_op", "impl", "register_kernel", "register_autograd"};
  auto Known = [](StringRef F) { return llvm::is_contained(Functions, F); };
  StringMap<std::string> Out;
  for (const std::string &Logical : pythonLogicalLines(Text)) {
    StringRef Code = Logical;
    if (Code.starts_with("from ")) {
      // `from torch.library import impl` binds impl itself: an alias of
      // its own name (the bare name is otherwise read as a project's).
      for (auto [Imported, Alias] : torchLibraryImports(Code))
        if (StringRef Bound = Alias.empty() ? Imported : Alias;
            Known(Imported) && isIdentifier(Bound))
          Out[Bound] = Imported.str();
      continue;
    }
    auto [Name, Value] = Code.split('=');
    Name = Name.trim();
    Value = Value.trim();
    while (Value.starts_with("(") && Value.ends_with(")"))
      Value = Value.drop_front().drop_back().trim();
    if (!isIdentifier(Name) || Value.empty() || Value.starts_with("="))
      continue;
    if (Value.consume_front("torch.library.") && Known(Value))
      Out[Name] = Value.str();
    else if (Value.consume_front("getattr(")) {
      auto [Owner, Attr] = Value.split(',');
      size_t Pos = 0;
      Attr = Attr.ltrim();
      if (Owner.trim() == "torch.library")
        if (std::optional<std::string> F = pythonStrings(Attr, Pos))
          if (Known(*F))
            Out[Name] = *F;
    }
  }
  return Out;
}

/// The torch.library function a call at Open calls through getattr
/// (`getattr(torch.library, "register_fake")("ns::op")`), or empty.
std::string getattrLibraryFunction(StringRef Text, size_t Open) {
  if (Open == 0 || Text[Open - 1] != ')')
    return "";
  // Back to the bracket that the ')' closes (no strings with brackets in
  // a getattr's arguments).
  int Depth = 0;
  size_t P = Open - 1;
  for (;; --P) {
    if (Text[P] == ')')
      ++Depth;
    else if (Text[P] == '(' && --Depth == 0)
      break;
    if (P == 0)
      return "";
  }
  if (identifierBefore(Text, P) != "getattr")
    return "";
  StringRef Args = Text.slice(P + 1, Open - 1);
  auto [Owner, Attr] = Args.split(',');
  if (Owner.trim() != "torch.library")
    return "";
  size_t Pos = 0;
  Attr = Attr.ltrim();
  std::optional<std::string> F = pythonStrings(Attr, Pos);
  return F ? *F : "";
}

/// A project's own functions that register a fake for the name they are
/// given (`def register_custom_op(name): ... torch.library.register_fake(
/// f"{name}")(func)`, as torchao writes it): a `def` whose body (the lines
/// indented below it) calls register_fake or impl_abstract.
/// How a decorator factory names the operator it defines, or none: a
/// top-level `def F(lib, ...)` whose body defines on its first parameter
/// (`lib.define(schema)`) a schema made from the decorated function's
/// `__name__` (torchao's `_register_custom_op(lib)`). "function name", or
/// "function name without a leading _" where the body drops one
/// (`op_name[1:]`, `lstrip("_")`, `removeprefix("_")`).
std::optional<std::string> operatorDecoratorNaming(StringRef Def) {
  StringRef Params = Def.split('(').second.split(')').first;
  StringRef Lib = Params.split(',').first.split(':').first.split('=').first;
  Lib = Lib.trim();
  if (!isIdentifier(Lib) || !Def.contains("__name__") ||
      !Def.contains((Lib + ".define(").str()))
    return std::nullopt;
  if (Def.contains("[1:]") || Def.contains("lstrip(\"_\")") ||
      Def.contains("removeprefix(\"_\")"))
    return std::string(DropUnderscoreNaming);
  return std::string("function name");
}

void pythonFakeWrappers(StringRef Text, std::vector<WrapperMacro> &Out) {
  for (size_t At = Text.find("def "); At != StringRef::npos;
       At = Text.find("def ", At + 4)) {
    size_t LineStart = Text.rfind('\n', At);
    LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
    StringRef Indent = Text.slice(LineStart, At);
    if (!Indent.ltrim(" \t").empty())
      continue; // not at the start of a line
    size_t NameAt = At + 4;
    size_t NameEnd = NameAt;
    while (NameEnd < Text.size() &&
           (isAlnum(Text[NameEnd]) || Text[NameEnd] == '_'))
      ++NameEnd;
    StringRef Name = Text.slice(NameAt, NameEnd);
    if (Name.empty())
      continue;
    // The body: the following lines indented deeper than the def (blank
    // lines and comments included).
    size_t End = Text.find('\n', At);
    while (End != StringRef::npos && End + 1 < Text.size()) {
      size_t Next = Text.find('\n', End + 1);
      StringRef Line = Text.slice(End + 1, Next);
      StringRef Code = Line.ltrim(" \t");
      if (!Code.empty() && !Code.starts_with("#") &&
          Line.size() - Code.size() <= Indent.size())
        break;
      End = Next;
    }
    StringRef Body = Text.slice(At, End);
    if (Body.contains("register_fake(") || Body.contains("impl_abstract("))
      Out.push_back({Name.str(), "Fake"});
    else if (std::optional<std::string> N = operatorDecoratorNaming(Body))
      Out.push_back({Name.str(), CustomOpKey.str(), *N});
  }
  pythonFakeAliases(Text, Out);
}

/// The position of the bracket closing the one at Open (strings and
/// comments skipped), or npos.
size_t closingBracket(StringRef Text, size_t Open) {
  int Depth = 0;
  for (size_t P = Open; P < Text.size();) {
    char C = Text[P];
    if (C == '"' || C == '\'') {
      size_t Q = P;
      if (pythonStrings(Text, Q) && Q > P) {
        P = Q;
        continue;
      }
    } else if (C == '#') {
      P = Text.find('\n', P);
      if (P == StringRef::npos)
        return P;
      continue;
    } else if (C == '(' || C == '[' || C == '{') {
      ++Depth;
    } else if ((C == ')' || C == ']' || C == '}') && --Depth == 0) {
      return P;
    }
    ++P;
  }
  return StringRef::npos;
}

/// The top-level comma-separated parts of Text[Open + 1, Close).
std::vector<StringRef> pythonArguments(StringRef Text, size_t Open,
                                       size_t Close) {
  std::vector<StringRef> Out;
  size_t Start = Open + 1;
  for (size_t P = Open + 1; P < Close;) {
    char C = Text[P];
    if (C == '(' || C == '[' || C == '{') {
      size_t E = closingBracket(Text, P);
      P = E == StringRef::npos || E > Close ? Close : E + 1;
      continue;
    }
    if (C == '"' || C == '\'') {
      size_t Q = P;
      if (pythonStrings(Text, Q) && Q > P) {
        P = Q;
        continue;
      }
    }
    if (C == ',') {
      Out.push_back(Text.slice(Start, P).trim());
      Start = P + 1;
    }
    ++P;
  }
  StringRef Last = Text.slice(Start, Close).trim();
  if (!Last.empty())
    Out.push_back(Last);
  return Out;
}

/// The Python custom op whose body holds Pos: a def decorated
/// `@torch.library.custom_op("ns::outer", mutates_args=(...))` (other
/// decorators beside it), with the names its mutates_args lists (none where
/// it could not be read) or "unknown".
struct EnclosingCustomOp {
  std::string Outer;
  std::optional<std::vector<std::string>> Mutates;
  bool Unknown = false;            // mutates_args="unknown"
  std::vector<std::string> Params; // the def's parameters, by name
};
std::optional<EnclosingCustomOp> customOpAround(StringRef Text, size_t Pos,
                                                ArrayRef<std::string> Names) {
  std::vector<StringRef> Headers = enclosingHeaders(Text, Pos);
  if (Headers.empty() || !isDefHeader(Headers.back()))
    return std::nullopt;
  size_t DefAt = lineAndIndent(Text, Headers.back().data() - Text.data()).first;
  // The decorator: the last custom_op( (or a name bound to it) before the
  // def, with only other decorators and blank lines between its call and
  // the def.
  size_t Deco = StringRef::npos, NameSize = 0;
  for (const std::string &N : Names) {
    size_t At = Text.take_front(DefAt).rfind(N + "(");
    if (At != StringRef::npos &&
        (At == 0 || !(isAlnum(Text[At - 1]) || Text[At - 1] == '_')) &&
        (Deco == StringRef::npos || At > Deco)) {
      Deco = At;
      NameSize = N.size();
    }
  }
  if (Deco == StringRef::npos)
    return std::nullopt;
  StringRef Before = Text.take_front(Deco);
  for (StringRef Prefix : {"torch.library.", "library."})
    if (Before.ends_with(Prefix)) {
      Before = Before.drop_back(Prefix.size());
      break;
    }
  size_t DecoOpen = Deco + NameSize;
  size_t DecoClose = closingBracket(Text, DecoOpen);
  if (!Before.ends_with("@") || DecoClose == StringRef::npos ||
      DecoClose > DefAt)
    return std::nullopt;
  for (StringRef Line : llvm::split(Text.slice(DecoClose + 1, DefAt), '\n'))
    if (!Line.trim().empty() && !Line.trim().starts_with("@"))
      return std::nullopt;
  size_t NamePos = DecoOpen + 1;
  std::optional<std::string> Outer = pythonStrings(Text, NamePos);
  if (!Outer)
    return std::nullopt;
  EnclosingCustomOp Out{*Outer, std::nullopt, false, {}};
  size_t Header = Headers.back().data() - Text.data();
  if (size_t Paren = Text.find('(', Header); Paren != StringRef::npos)
    if (size_t End = closingBracket(Text, Paren); End != StringRef::npos)
      for (StringRef P : pythonArguments(Text, Paren, End)) {
        P = P.split(':').first.split('=').first.trim().ltrim('*');
        if (isIdentifier(P))
          Out.Params.push_back(P.str());
      }
  // mutates_args=("m", ...) (a tuple, list or set of names); else unknown.
  for (StringRef Arg : pythonArguments(Text, DecoOpen, DecoClose)) {
    StringRef Value = Arg;
    if (!Value.consume_front("mutates_args"))
      continue;
    Value = Value.ltrim();
    if (!Value.consume_front("="))
      continue;
    Value = Value.trim();
    size_t Q = Value.data() - Text.data();
    if (std::optional<std::string> Literal = pythonStrings(Text, Q);
        Literal && *Literal == "unknown") {
      Out.Unknown = true;
      break;
    }
    if (Value.empty() || !StringRef("([{").contains(Value.front()))
      break;
    size_t Base = Value.data() - Text.data();
    size_t End = closingBracket(Text, Base);
    if (End == StringRef::npos)
      break;
    std::vector<std::string> Names;
    bool AllStrings = true;
    for (StringRef Item : pythonArguments(Text, Base, End)) {
      size_t Q = Item.data() - Text.data();
      std::optional<std::string> Name = pythonStrings(Text, Q);
      if (!Name || Q != size_t(Item.end() - Text.data()))
        AllStrings = false;
      else
        Names.push_back(*Name);
    }
    if (AllStrings)
      Out.Mutates = std::move(Names);
  }
  return Out;
}

/// Per argument of the call Text[Open, Close] inside custom op C: '1' a
/// name its mutates_args lists, '0' a name it does not, 'u' any argument
/// under mutates_args="unknown", '?' what was not read (an expression, a
/// keyword argument, a mutates_args not read).
std::string declaresOf(StringRef Text, size_t Open, size_t Close,
                       const EnclosingCustomOp &C) {
  std::string Declares;
  for (StringRef Arg : pythonArguments(Text, Open, Close)) {
    if (C.Unknown)
      Declares += Arg.contains('=') ? '?' : 'u';
    else if (!C.Mutates || Arg.contains('=') || !isIdentifier(Arg))
      Declares += C.Mutates && isIdentifier(Arg) ? '0' : '?';
    else
      Declares += llvm::is_contained(*C.Mutates, Arg.str()) ? '1' : '0';
  }
  return Declares;
}

/// The names a Python file binds to modules it imports (`import ext`,
/// `import pkg._C as C`, `from pkg import _C`, `from . import _ext as e`),
/// each with the module's own name (`_C`, `_ext`): where a compiled
/// extension's functions are called from.
StringMap<std::string> importedNames(StringRef Text) {
  StringMap<std::string> Out;
  for (const std::string &Logical : pythonLogicalLines(Text)) {
    StringRef Code = Logical;
    StringRef Names;
    if (Code.consume_front("import "))
      Names = Code;
    else if (Code.consume_front("from ") && Code.contains(" import "))
      Names = Code.split(" import ").second;
    else
      continue;
    SmallVector<StringRef, 4> Parts;
    Names.trim().trim("()").split(Parts, ',');
    for (StringRef P : Parts) {
      auto [Name, Alias] = P.trim().split(" as ");
      Name = Name.trim();
      bool Aliased = !Alias.trim().empty();
      // `import a.b` binds a; `import a.b as x` and `from p import b as x`
      // bind the last module named.
      StringRef Bound = Aliased ? Alias.trim() : Name.split('.').first;
      StringRef Module = Aliased ? Name.rsplit('.').second : Bound;
      if (Module.empty())
        Module = Name;
      if (isIdentifier(Bound) && Bound != "torch")
        Out[Bound] = Module.str();
    }
  }
  return Out;
}

/// Calls of an operator (`torch.ops.ns.op(m, v)`, `.default(`) in the body
/// of a Python function decorated `@torch.library.custom_op("ns::outer",
/// mutates_args=(...))`: OpaqueCaller sites of the called operator, with
/// which of the call's arguments the custom op declares mutated. Calls of
/// an imported module's function there (`_C.fill(out, x)`): PybindCalls,
/// joined to the C++ function a pybind11 module binds under that name.
void scanCustomOpCallers(StringRef Path, StringRef Text, LineCounter &Lines,
                         const StringMap<std::string> &Aliases,
                         FileOperatorFacts &Facts) {
  if (!Text.contains("custom_op"))
    return;
  // custom_op, and names bound to it (flash-attn's
  // `_torch_custom_op_wrapper = torch.library.custom_op`).
  std::vector<std::string> Names{"custom_op"};
  for (const auto &A : Aliases)
    if (A.second == "custom_op")
      Names.push_back(A.first().str());
  for (size_t At = Text.find("torch.ops."); At != StringRef::npos;
       At = Text.find("torch.ops.", At + 1)) {
    size_t Open = At;
    while (Open < Text.size() &&
           (isAlnum(Text[Open]) || Text[Open] == '_' || Text[Open] == '.'))
      ++Open;
    if (Open >= Text.size() || Text[Open] != '(')
      continue;
    std::optional<std::pair<std::string, std::string>> Op =
        opsAttribute(Text.slice(At, Open));
    size_t Close = closingBracket(Text, Open);
    if (!Op || Close == StringRef::npos)
      continue;
    std::optional<EnclosingCustomOp> C = customOpAround(Text, At, Names);
    if (!C)
      continue;
    KernelSite Site{OpaqueCallerKey.str(),
                    "the Python custom op '" + C->Outer + "'", Path.str(),
                    Lines.lineOf(At), conditionOf(Text, At)};
    Site.Declares = declaresOf(Text, Open, Close, *C);
    Facts.Kernels.push_back({Op->first, Op->second, std::move(Site), ""});
  }
  StringMap<std::string> Modules = importedNames(Text);
  for (const auto &M : Modules) {
    std::string Prefix = (M.first() + ".").str();
    for (size_t At = Text.find(Prefix); At != StringRef::npos;
         At = Text.find(Prefix, At + 1)) {
      if (At > 0 &&
          (isAlnum(Text[At - 1]) || Text[At - 1] == '_' || Text[At - 1] == '.'))
        continue;
      size_t NameAt = At + Prefix.size();
      size_t Open = NameAt;
      while (Open < Text.size() && (isAlnum(Text[Open]) || Text[Open] == '_'))
        ++Open;
      if (Open == NameAt || Open >= Text.size() || Text[Open] != '(')
        continue;
      size_t Close = closingBracket(Text, Open);
      if (Close == StringRef::npos)
        continue;
      std::optional<EnclosingCustomOp> C = customOpAround(Text, At, Names);
      if (!C)
        continue;
      auto [Ns, Outer] = operatorNameOf(C->Outer);
      std::string Args;
      for (StringRef A : pythonArguments(Text, Open, Close))
        Args += (Args.empty() ? "" : std::string(1, PybindArgumentSeparator)) +
                A.str();
      KernelSite Site{PybindCallKey.str(), Args, Path.str(), Lines.lineOf(At),
                      conditionOf(Text, At)};
      Site.Declares = declaresOf(Text, Open, Close, *C);
      // 'l': a name that is not the custom op's parameter (a tensor its
      // body made): the write stays inside.
      size_t I = 0;
      for (StringRef A : pythonArguments(Text, Open, Close)) {
        if (I < Site.Declares.size() && Site.Declares[I] == '0' &&
            !llvm::is_contained(C->Params, A.str()))
          Site.Declares[I] = 'l';
        ++I;
      }
      Facts.PybindCalls.push_back(
          {Ns, Outer, std::move(Site),
           M.second + "." + Text.slice(NameAt, Open).str()});
    }
  }
}

/// Functions decorated by a helper given a Library of this file
/// (`@_register_custom_op(quant_lib)`, or `@register` after `register =
/// _register_custom_op(quant_lib)`): calls that define an operator named
/// after the function where the helper is one that does (resolved
/// project-wide; Function is the decorated function, Namespace the
/// library's).
void scanOperatorDecorators(StringRef Path, StringRef Text, LineCounter &Lines,
                            const StringMap<std::string> &Libraries,
                            FileOperatorFacts &Facts) {
  if (Libraries.empty())
    return;
  // The helper and the library of `@helper(lib, ...)` or of the name bound
  // by `name = helper(lib, ...)`.
  auto HelperCall =
      [&](StringRef Expr) -> std::optional<std::pair<StringRef, StringRef>> {
    auto [Helper, Args] = Expr.split('(');
    Helper = Helper.trim();
    StringRef Lib = Args.split(',').first.split(')').first.trim();
    if (!isIdentifier(Helper) || !Libraries.count(Lib))
      return std::nullopt;
    return std::make_pair(Helper, Lib);
  };
  StringMap<std::pair<StringRef, StringRef>> Bound;
  StringRef Rest = Text;
  while (!Rest.empty()) {
    auto [Line, Next] = Rest.split('\n');
    Rest = Next;
    auto [Name, Value] = Line.split('=');
    Name = Name.trim();
    Value = Value.split('#').first.trim();
    if (!isIdentifier(Name) || Line.starts_with(" ") || !Value.contains("(") ||
        Value.starts_with("="))
      continue;
    if (auto H = HelperCall(Value))
      Bound[Name] = *H;
  }
  for (size_t At = Text.find('@'); At != StringRef::npos;
       At = Text.find('@', At + 1)) {
    size_t LineStart = Text.rfind('\n', At);
    LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
    if (!Text.slice(LineStart, At).ltrim(" \t").empty())
      continue;
    StringRef Deco = Text.drop_front(At + 1).split('\n').first;
    Deco = Deco.split('#').first.trim();
    std::optional<std::pair<StringRef, StringRef>> H;
    if (Deco.contains("("))
      H = HelperCall(Deco);
    else if (auto B = Bound.find(Deco); B != Bound.end())
      H = B->second;
    if (!H)
      continue;
    // The def it decorates, past other decorators.
    StringRef After = Text.drop_front(At).split('\n').second;
    while (!(After = After.ltrim()).empty() && After.starts_with("@"))
      After = After.split('\n').second;
    if (!After.consume_front("def ") && !After.consume_front("async def "))
      continue;
    StringRef Fn =
        After.take_while([](char C) { return isAlnum(C) || C == '_'; });
    if (Fn.empty())
      continue;
    Facts.WrapperCalls.push_back(
        {Libraries.lookup(H->second), "",
         KernelSite{"", H->first.str(), Path.str(), Lines.lineOf(At),
                    conditionOf(Text, At)},
         Fn.str()});
  }
}

void scanPython(StringRef Path, StringRef Text, FileOperatorFacts &Facts) {
  std::vector<DeclaredSchema> &Out = Facts.Schemas;
  bool Registers =
      Text.contains("register_fake") || Text.contains("impl_abstract") ||
      Text.contains("register_kernel") || Text.contains("register_autograd") ||
      Text.contains("disallow_in_graph") || Text.contains(".impl(") ||
      Text.contains("::");
  if (!(Text.contains("define") && Text.contains("library")) &&
      !Text.contains("Library(") && !Registers)
    return;
  LineCounter Lines(Text);
  // lib = torch.library.Library("ns", "DEF") (or FRAGMENT, IMPL, with a
  // dispatch key third: Library("ns", "IMPL", "Meta")).
  StringMap<std::string> Libraries;
  StringMap<std::pair<std::string, std::string>> ImplLibraries; // ns, key
  for (size_t At = Text.find("Library("); At != StringRef::npos;
       At = Text.find("Library(", At + 1)) {
    size_t Pos = At + 8;
    std::optional<std::string> Ns = pythonStrings(Text, Pos);
    while (Pos < Text.size() && (isSpace(Text[Pos]) || Text[Pos] == ','))
      ++Pos;
    std::optional<std::string> Kind = pythonStrings(Text, Pos);
    if (!Ns || !Kind ||
        (*Kind != "DEF" && *Kind != "FRAGMENT" && *Kind != "IMPL"))
      continue;
    while (Pos < Text.size() && (isSpace(Text[Pos]) || Text[Pos] == ','))
      ++Pos;
    std::optional<std::string> LibKey = pythonStrings(Text, Pos);
    // Back over "torch.library." and "name = ".
    size_t B = At;
    for (StringRef Prefix : {"torch.library.", "library."})
      if (Text.take_front(B).ends_with(Prefix)) {
        B -= Prefix.size();
        break;
      }
    while (B > 0 && Text[B - 1] == ' ')
      --B;
    if (B == 0 || Text[B - 1] != '=')
      continue;
    StringRef Var = identifierBefore(Text, B - 1);
    if (Var.empty())
      continue;
    ImplLibraries[Var] = {*Ns, LibKey ? *LibKey : ""};
    if (*Kind != "IMPL")
      Libraries[Var] = *Ns;
  }
  for (size_t At = Text.find("define("); At != StringRef::npos;
       At = Text.find("define(", At + 1)) {
    if (At > 0 && (isAlnum(Text[At - 1]) || Text[At - 1] == '_'))
      continue; // redefine(, my_define(
    size_t Pos = At + 7;
    std::optional<std::string> First = pythonStrings(Text, Pos);
    if (!First)
      continue;
    StringRef Before = Text.take_front(At);
    std::string Ns;
    if (Before.ends_with("torch.library.") || Before.ends_with("library.")) {
      // torch.library.define("ns::op(...)") or ("ns::op", "(...) -> ...").
      while (Pos < Text.size() && (isSpace(Text[Pos]) || Text[Pos] == ','))
        ++Pos;
      if (std::optional<std::string> Second = pythonStrings(Text, Pos))
        *First += *Second;
    } else if (Before.ends_with(".")) {
      auto It = Libraries.find(identifierBefore(Text, At - 1));
      if (It == Libraries.end())
        continue;
      Ns = It->second;
    } else {
      continue;
    }
    if (First->find('(') == std::string::npos)
      continue;
    Out.push_back({Ns, *First, Path.str(), Lines.lineOf(At)});
  }
  // torch.library functions under other names ({alias: function}).
  StringMap<std::string> Aliases = pythonLibraryAliases(Text);
  scanCustomOpCallers(Path, Text, Lines, Aliases, Facts);
  scanOperatorDecorators(Path, Text, Lines, Libraries, Facts);
  if (!Registers)
    return;
  pythonFakeWrappers(Text, Facts.Wrappers);
  // Names this file binds to torch.library's functions are the functions
  // where other files import and call them (bitsandbytes' `register_kernel
  // = torch.library.register_kernel` in its _ops.py): resolved
  // project-wide, keys from each call.
  for (const auto &A : Aliases)
    if (A.second != "custom_op")
      Facts.Wrappers.push_back(
          {A.first().str(), (LibraryAliasPrefix + A.second).str()});
  // A call of a name with an operator's name first: a wrapper call,
  // resolved project-wide; the dispatch keys its other strings name,
  // comma-joined, for a name bound to torch.library's function.
  auto WrapperCall = [&](StringRef Verb, size_t At, StringRef First) {
    auto [Ns, Name] = operatorNameOf(First);
    std::string Keys;
    PythonCall Call = pythonCall(Text, At);
    for (size_t I = 1; I < Call.Strings.size(); ++I)
      if (std::optional<std::string> K = pythonKey(Call.Strings[I]))
        Keys += (Keys.empty() ? "" : ",") + *K;
    Facts.WrapperCalls.push_back(
        {Ns, Name,
         KernelSite{Keys, Verb.str(), Path.str(),
                    Lines.lineOf(At - Verb.size()), conditionOf(Text, At)},
         ""});
  };
  // Functions a torch.library.custom_op made operators of ({function:
  // (ns, op)}): their register_fake, register_kernel and
  // register_autograd methods register for that operator.
  StringMap<std::pair<std::string, std::string>> CustomOps;
  // Kernels and fakes: torch.library.register_fake("ns::op") (a call or a
  // decorator; also imported bare), impl_abstract, register_kernel,
  // register_autograd, torch.library.impl("ns::op", "Meta"),
  // lib.impl("op", fn, "Meta") of a Library object, and
  // torch._dynamo.disallow_in_graph(torch.ops.ns.op.default), which keeps
  // the calls of what it returns out of the graph (a mark, not a kernel).
  static const StringMap<StringRef> Verbs = {
      {"register_fake", "Fake"},
      {"impl_abstract", "Fake"},
      {"register_autograd", "Autograd"},
      {"disallow_in_graph", DisallowInGraphKey},
      {"register_kernel", ""},
      {"custom_op", CustomOpKey},
      {"impl", ""}};
  for (size_t At = 0; At < Text.size(); ++At) {
    At = Text.find('(', At);
    if (At == StringRef::npos)
      break;
    StringRef Verb = identifierBefore(Text, At);
    // A torch.library function under another name, or through getattr:
    // read as torch.library's own.
    std::string Through = getattrLibraryFunction(Text, At);
    bool Aliased = !Through.empty();
    if (auto A = Aliases.find(Verb); !Aliased && A != Aliases.end()) {
      size_t B = At - Verb.size();
      if (B == 0 || Text[B - 1] != '.') {
        Through = A->second;
        Aliased = true;
      }
    }
    if (Aliased)
      Verb = Through;
    auto V = Verbs.find(Verb);
    if (V == Verbs.end() && !Aliased) {
      // A call of a project's own function with an operator's name first
      // (`@register_custom_op("ns::op")`): a fake if the project defines
      // that function as a wrapper of register_fake (resolved project-wide).
      size_t Pos = At + 1;
      std::optional<std::string> First = pythonStrings(Text, Pos);
      // A helper of this file, called with a bare name or a loop's variable
      // (`for n in ["a", "b"]: register(n)`): any namespace, by name.
      bool OwnWrapper =
          !Verb.empty() && llvm::any_of(Facts.Wrappers, [&](const auto &W) {
            return W.Name == Verb;
          });
      if (OwnWrapper && (!First || First->find("::") == std::string::npos) &&
          (!Text.take_front(At - Verb.size()).rtrim().ends_with("def"))) {
        std::vector<std::string> Names;
        if (First && isIdentifier(*First))
          Names.push_back(*First);
        else if (!First)
          if (std::optional<std::vector<std::string>> L =
                  loopNames(Text, At, pythonCall(Text, At).FirstArgument))
            Names = *L;
        for (const std::string &N : Names)
          Facts.WrapperCalls.push_back(
              {"*", N,
               KernelSite{"", Verb.str(), Path.str(),
                          Lines.lineOf(At - Verb.size()),
                          conditionOf(Text, At)},
               ""});
        continue;
      }
      if (!Verb.empty() && First && First->find("::") != std::string::npos &&
          First->find('(') == std::string::npos)
        WrapperCall(Verb, At, *First);
      continue;
    }
    if (V == Verbs.end())
      continue;
    // Where the call's name starts (the getattr's bracket for a call
    // through getattr).
    size_t VerbAt = At - identifierBefore(Text, At).size();
    while (VerbAt > 0 && Text[VerbAt - 1] == ' ')
      --VerbAt;
    StringRef Before = Text.take_front(VerbAt);
    std::string LibNs, LibKey; // a Library object's: lib.impl(...)
    if (Before.ends_with(".") && !Aliased) {
      StringRef Owner = identifierBefore(Text, VerbAt - 1);
      // `@my_op.register_fake`, `my_op.register_kernel("cpu")` of a
      // function torch.library.custom_op made an operator of.
      if (auto C = CustomOps.find(Owner);
          C != CustomOps.end() &&
          (Verb == "register_fake" || Verb == "register_kernel" ||
           Verb == "register_autograd")) {
        PythonCall Call = pythonCall(Text, At);
        std::vector<std::string> Keys;
        if (Verb == "register_kernel") {
          for (const std::string &S : Call.Strings)
            if (std::optional<std::string> K = pythonKey(S))
              Keys.push_back(*K);
          if (Keys.empty())
            Keys.push_back("CompositeExplicitAutograd");
        } else {
          Keys.push_back(V->second.str());
        }
        for (const std::string &K : Keys)
          Facts.Kernels.push_back(
              {C->second.first, C->second.second,
               KernelSite{K, ("custom_op." + Verb).str(), Path.str(),
                          Lines.lineOf(VerbAt), conditionOf(Text, VerbAt)}});
        continue;
      }
    }
    if (Before.ends_with(".") && !Aliased) {
      StringRef Owner = identifierBefore(Text, VerbAt - 1);
      bool TorchLibrary = Owner == "library" &&
                          (Before.ends_with("torch.library.") ||
                           Before.size() == Owner.size() + 1 ||
                           Before[Before.size() - Owner.size() - 2] != '.');
      if (Verb == "disallow_in_graph") {
        if (Owner != "_dynamo")
          continue;
      } else if (!TorchLibrary) {
        auto It = ImplLibraries.find(Owner);
        if (It == ImplLibraries.end() || Verb != "impl")
          continue;
        std::tie(LibNs, LibKey) = It->second;
      }
    } else if (Aliased && Before.rtrim().ends_with("def")) {
      continue; // a function of the project's own of the alias's name
    } else if (Aliased) {
      // torch.library's function under another name: read as its own.
    } else if (Verb == "impl" || Verb == "register_kernel" ||
               (!Before.empty() &&
                (isAlnum(Before.back()) || Before.back() == '_'))) {
      // A function of the project's own named impl(...), or torch.library's
      // imported from the project's module that binds it (a wrapper call
      // where an operator's name comes first).
      size_t Pos = At + 1;
      std::optional<std::string> First = pythonStrings(Text, Pos);
      bool Bare =
          Before.empty() || !(isAlnum(Before.back()) || Before.back() == '_');
      bool OwnDef = Text.contains(("def " + Verb + "(").str());
      if (Bare && !OwnDef && First && First->find("::") != std::string::npos &&
          First->find('(') == std::string::npos)
        WrapperCall(Verb, At, *First);
      continue;
    } else if (Before.rtrim().ends_with("def")) {
      continue; // its definition
    }
    PythonCall Call = pythonCall(Text, At);
    std::string Ns, Name;
    std::vector<std::string> Keys;
    bool IsFake = V->second == "Fake";
    if (std::optional<std::pair<std::string, std::string>> A =
            opsAttribute(Call.FirstArgument))
      std::tie(Ns, Name) = *A;
    // getattr(torch.ops.ns, "op") (or a name from a loop, below).
    StringRef Getattr = Call.FirstArgument;
    if (Name.empty() && Getattr.consume_front("getattr(")) {
      StringRef Owner = Getattr.split(',').first.trim();
      if (Owner.consume_front("torch.ops."))
        Ns = Owner.str();
      if (!Call.Strings.empty() && !pythonKey(Call.Strings.front()))
        Name = Call.Strings.front();
    }
    // A key the call computes (torch-harmonics'
    // `torch.library.impl("ns::op", f"Autocast{device_type.upper()}")`):
    // kept as written, a key of no kind this index knows (never a fake).
    bool KeyNotRead = false;
    for (const std::string &S : Call.Strings) {
      if (Name.empty() && (S.find("::") != std::string::npos ||
                           (!LibNs.empty() && !pythonKey(S)))) {
        auto [N, Op] = operatorNameOf(S);
        Ns = N.empty() ? LibNs : N;
        Name = Op;
      } else if (std::optional<std::string> K = pythonKey(S)) {
        Keys.push_back(*K);
      } else if (!Name.empty() && S.find('{') != std::string::npos &&
                 (Verb == "impl" || Verb == "register_kernel")) {
        Keys.push_back(S);
      }
    }
    // torch.library.impl(qualname, types): types given by an expression.
    if (Keys.empty() && Verb == "impl" && LibNs.empty() &&
        Call.FirstArgument.data() >= Text.data() &&
        Call.FirstArgument.end() <= Text.end()) {
      StringRef Rest = Text.drop_front(Call.FirstArgument.end() - Text.data())
                           .ltrim(" \t\n");
      KeyNotRead = Rest.starts_with(",") &&
                   !Rest.drop_front().ltrim(" \t\n").starts_with(")");
    }
    unsigned Line = Lines.lineOf(VerbAt);
    std::string Condition = conditionOf(Text, VerbAt);
    std::string FakeHow = ("torch.library." + Verb).str();
    // A fake whose operator the call does not spell out: an f-string
    // ("ns::{name}") or a helper's result, named by a loop around it, or
    // else kept as one this index could not name.
    if (IsFake && (Name.empty() || Name.find('{') != std::string::npos)) {
      if (Ns.empty() || Ns.find('{') != std::string::npos)
        Ns = "*"; // set by code the index does not evaluate: any, by name
      // A helper given the bare name (kernel-builder's
      // `register_fake(add_op_namespace_prefix("op"))`).
      if (Call.Strings.size() == 1 && isIdentifier(Call.Strings.front()) &&
          Call.FirstArgument.contains("(")) {
        Facts.Kernels.push_back(
            {Ns, Call.Strings.front(),
             KernelSite{"Fake", FakeHow, Path.str(), Line, Condition}});
        continue;
      }
      if (std::optional<std::vector<std::string>> Names =
              loopNames(Text, VerbAt, Call.FirstArgument)) {
        for (const std::string &N : *Names)
          Facts.Kernels.push_back(
              {Ns, N,
               KernelSite{"Fake", FakeHow + " (in a loop over names)",
                          Path.str(), Line, Condition}});
        continue;
      }
      std::vector<StringRef> Headers = enclosingHeaders(Text, VerbAt);
      bool InDef = !Headers.empty() && isDefHeader(Headers.back());
      // Inside a def: a helper called with the name (resolved at its
      // calls); elsewhere, a fake of an operator nobody here can name.
      if (!InDef)
        Facts.Kernels.push_back({"", "",
                                 KernelSite{UnnamedFakeKey.str(), FakeHow,
                                            Path.str(), Line, Condition}});
      continue;
    }
    if (Name.empty())
      continue;
    if (Verb == "custom_op") {
      // The function it makes an operator of: the def it decorates, the
      // function it is given, or the name its result is bound to.
      size_t Close = closingBracket(Text, At);
      StringRef After =
          Close == StringRef::npos ? StringRef() : Text.drop_front(Close + 1);
      StringRef Fn;
      while (!(After = After.ltrim()).empty() && After.starts_with("@"))
        After = After.split('\n').second; // other decorators
      if (After.consume_front("def ") || After.consume_front("async def "))
        Fn = After.take_while([](char C) { return isAlnum(C) || C == '_'; });
      StringRef Assigned = Text.take_front(VerbAt).rtrim();
      if (Assigned.consume_back("torch.library."))
        Assigned = Assigned.rtrim();
      if (Assigned.consume_back("=") && !Assigned.ends_with("="))
        Fn = identifierBefore(Assigned.rtrim(), Assigned.rtrim().size());
      if (!Fn.empty())
        CustomOps[Fn] = {Ns, Name};
    }
    // torch.library.impl(lib, "op", ...) names the library as a variable.
    if (Ns.empty())
      if (auto It = ImplLibraries.find(Call.FirstArgument);
          It != ImplLibraries.end())
        Ns = It->second.first;
    if (!V->second.empty())
      Keys = {V->second.str()};
    else if (KeyNotRead)
      Keys = {std::string(NotReadKey)};
    else if (Keys.empty() && Aliased && Verb == "impl")
      continue; // torch.library.impl needs its dispatch key: not a call of it
    else if (Keys.empty())
      // Library.impl with no key takes the library's, else is a catch-all
      // kernel; register_kernel with no device types registers for every
      // device.
      Keys = {LibNs.empty()     ? "CompositeExplicitAutograd"
              : !LibKey.empty() ? LibKey
                                : "CompositeImplicitAutograd"};
    std::string How = Verb == "disallow_in_graph"
                          ? "torch._dynamo.disallow_in_graph"
                      : Verb == "custom_op" ? "torch.library.custom_op"
                      : LibNs.empty()       ? ("torch.library." + Verb).str()
                                            : "Library.impl";
    for (const std::string &K : Keys)
      Facts.Kernels.push_back(
          {Ns, Name, KernelSite{K, How, Path.str(), Line, Condition}});
  }
  // `@my_op.register_fake` as a decorator without a call.
  for (const auto &C : CustomOps) {
    std::string Deco = ("@" + C.first() + ".register_fake").str();
    for (size_t At = Text.find(Deco); At != StringRef::npos;
         At = Text.find(Deco, At + 1)) {
      StringRef After = Text.drop_front(At + Deco.size());
      if (!After.split('\n').first.split('#').first.trim().empty())
        continue; // a call: read above
      Facts.Kernels.push_back(
          {C.second.first, C.second.second,
           KernelSite{"Fake", "custom_op.register_fake", Path.str(),
                      Lines.lineOf(At), conditionOf(Text, At)}});
    }
  }
}

// --- the cache ---------------------------------------------------------------

struct FileEntry {
  uint64_t Size = 0;
  int64_t MTime = 0;
  FileOperatorFacts Facts;
};

json::Array kernelsJson(const std::vector<DeclaredKernel> &Kernels) {
  json::Array A;
  for (const DeclaredKernel &K : Kernels)
    A.push_back(json::Object{{"ns", K.Namespace},
                             {"name", K.Name},
                             {"key", K.Site.Key},
                             {"how", K.Site.How},
                             {"line", K.Site.Line},
                             {"cond", K.Site.Condition},
                             {"decl", K.Site.Declares},
                             {"fn", K.Function}});
  return A;
}

void readKernels(const json::Object &FO, StringRef Field, StringRef File,
                 std::vector<DeclaredKernel> &Out) {
  if (const json::Array *A = FO.getArray(Field))
    for (const json::Value &V : *A)
      if (const json::Object *O = V.getAsObject())
        Out.push_back(
            {O->getString("ns").value_or("").str(),
             O->getString("name").value_or("").str(),
             KernelSite{
                 O->getString("key").value_or("").str(),
                 O->getString("how").value_or("").str(), File.str(),
                 static_cast<unsigned>(O->getInteger("line").value_or(0)),
                 O->getString("cond").value_or("").str(),
                 O->getString("decl").value_or("").str()},
             O->getString("fn").value_or("").str()});
}

std::string cachePath(StringRef CacheDir, StringRef Root) {
  SmallString<256> P(CacheDir);
  sys::path::append(P, utohexstr(xxh3_64bits(Root)) + ".json");
  return std::string(P);
}

StringMap<FileEntry> readCache(StringRef Path, StringRef Root) {
  StringMap<FileEntry> Files;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return Files;
  Expected<json::Value> V = json::parse((*Buf)->getBuffer());
  if (!V) {
    consumeError(V.takeError());
    return Files;
  }
  const json::Object *O = V->getAsObject();
  if (!O || O->getInteger("version") != CacheVersion ||
      O->getString("root") != Root)
    return Files;
  const json::Array *A = O->getArray("files");
  if (!A)
    return Files;
  for (const json::Value &F : *A) {
    const json::Object *FO = F.getAsObject();
    if (!FO)
      continue;
    std::optional<StringRef> P = FO->getString("path");
    std::optional<int64_t> Size = FO->getInteger("size");
    std::optional<int64_t> MTime = FO->getInteger("mtime");
    if (!P || !Size || !MTime)
      continue;
    FileEntry E{static_cast<uint64_t>(*Size), *MTime, {}};
    SmallString<256> Abs = entryPath(Root, *P);
    if (const json::Array *S = FO->getArray("schemas"))
      for (const json::Value &D : *S) {
        const json::Object *DO = D.getAsObject();
        if (!DO)
          continue;
        E.Facts.Schemas.push_back(
            {DO->getString("ns").value_or("").str(),
             DO->getString("schema").value_or("").str(), std::string(Abs),
             static_cast<unsigned>(DO->getInteger("line").value_or(0))});
      }
    readKernels(*FO, "kernels", Abs, E.Facts.Kernels);
    readKernels(*FO, "wrapper_calls", Abs, E.Facts.WrapperCalls);
    if (const json::Array *W = FO->getArray("wrappers"))
      for (const json::Value &V : *W)
        if (const json::Object *O = V.getAsObject())
          E.Facts.Wrappers.push_back(
              {O->getString("name").value_or("").str(),
               O->getString("key").value_or("").str(),
               O->getString("naming").value_or("").str()});
    if (const json::Array *Ms = FO->getArray("macros"))
      for (const json::Value &V : *Ms)
        if (const json::Object *O = V.getAsObject()) {
          RegisteringMacro M{O->getString("name").value_or("").str(),
                             {},
                             O->getString("body").value_or("").str(),
                             std::string(Abs)};
          if (const json::Array *Ps = O->getArray("params"))
            for (const json::Value &P : *Ps)
              M.Params.push_back(P.getAsString().value_or("").str());
          M.ObjectLike = O->getBoolean("object").value_or(false);
          E.Facts.Macros.push_back(std::move(M));
        }
    if (const json::Array *Cs = FO->getArray("macro_calls"))
      for (const json::Value &V : *Cs)
        if (const json::Object *O = V.getAsObject())
          E.Facts.MacroCalls.push_back(
              {O->getString("macro").value_or("").str(),
               O->getString("ns").value_or("").str(),
               O->getString("key").value_or("").str(),
               O->getString("args").value_or("").str(),
               static_cast<unsigned>(O->getInteger("line").value_or(0)),
               O->getBoolean("top").value_or(false),
               O->getString("block").value_or("").str()});
    if (const json::Array *Cs = FO->getArray("stub_calls"))
      for (const json::Value &V : *Cs)
        if (const json::Object *O = V.getAsObject()) {
          StubCall C{O->getString("stub").value_or("").str(),
                     O->getString("caller").value_or("").str(),
                     {},
                     {},
                     O->getString("device").value_or("").str(),
                     std::string(Abs),
                     static_cast<unsigned>(O->getInteger("line").value_or(0))};
          if (const json::Array *Ps = O->getArray("args"))
            for (const json::Value &P : *Ps)
              C.ArgParams.push_back(
                  static_cast<int>(P.getAsInteger().value_or(-1)));
          if (const json::Array *Ps = O->getArray("params"))
            for (const json::Value &P : *Ps)
              C.CallerParams.push_back(P.getAsString().value_or("").str());
          E.Facts.StubCalls.push_back(std::move(C));
        }
    if (const json::Array *Ks = FO->getArray("stub_kernels"))
      for (const json::Value &V : *Ks)
        if (const json::Object *O = V.getAsObject())
          E.Facts.StubKernels.push_back(
              {O->getString("stub").value_or("").str(),
               O->getString("function").value_or("").str(),
               O->getString("device").value_or("").str(), std::string(Abs),
               static_cast<unsigned>(O->getInteger("line").value_or(0))});
    readKernels(*FO, "helper_defs", Abs, E.Facts.HelperDefs);
    readKernels(*FO, "pybind_defs", Abs, E.Facts.PybindDefs);
    readKernels(*FO, "pybind_calls", Abs, E.Facts.PybindCalls);
    if (const json::Array *Hs = FO->getArray("inferring_helpers"))
      for (const json::Value &H : *Hs)
        E.Facts.InferringHelpers.push_back(H.getAsString().value_or("").str());
    Files[*P] = std::move(E);
  }
  return Files;
}

bool writeCache(StringRef Path, StringRef Root,
                const std::vector<std::pair<std::string, FileEntry>> &Files) {
  json::Array A;
  for (const auto &[Rel, E] : Files) {
    json::Array S, W;
    for (const DeclaredSchema &D : E.Facts.Schemas)
      S.push_back(json::Object{
          {"ns", D.Namespace}, {"schema", D.Schema}, {"line", D.Line}});
    for (const WrapperMacro &M : E.Facts.Wrappers)
      W.push_back(
          json::Object{{"name", M.Name}, {"key", M.Key}, {"naming", M.Naming}});
    json::Object F{{"path", Rel},
                   {"size", static_cast<int64_t>(E.Size)},
                   {"mtime", E.MTime},
                   {"schemas", std::move(S)}};
    if (!E.Facts.Kernels.empty())
      F["kernels"] = kernelsJson(E.Facts.Kernels);
    if (!E.Facts.WrapperCalls.empty())
      F["wrapper_calls"] = kernelsJson(E.Facts.WrapperCalls);
    if (!W.empty())
      F["wrappers"] = std::move(W);
    if (!E.Facts.Macros.empty()) {
      json::Array Ms;
      for (const RegisteringMacro &M : E.Facts.Macros) {
        json::Array Ps;
        for (const std::string &P : M.Params)
          Ps.push_back(P);
        Ms.push_back(json::Object{{"name", M.Name},
                                  {"params", std::move(Ps)},
                                  {"body", M.Body},
                                  {"object", M.ObjectLike}});
      }
      F["macros"] = std::move(Ms);
    }
    if (!E.Facts.MacroCalls.empty()) {
      json::Array Cs;
      for (const MacroCall &C : E.Facts.MacroCalls)
        Cs.push_back(json::Object{{"macro", C.Macro},
                                  {"ns", C.Namespace},
                                  {"key", C.BlockKey},
                                  {"args", C.Args},
                                  {"line", C.Line},
                                  {"top", C.TopLevel},
                                  {"block", C.Block}});
      F["macro_calls"] = std::move(Cs);
    }
    if (!E.Facts.StubCalls.empty()) {
      json::Array Cs;
      for (const StubCall &C : E.Facts.StubCalls) {
        json::Array Ps;
        for (int P : C.ArgParams)
          Ps.push_back(P);
        Cs.push_back(json::Object{{"stub", C.Stub},
                                  {"caller", C.Caller},
                                  {"args", std::move(Ps)},
                                  {"params", json::Array(C.CallerParams)},
                                  {"device", C.Device},
                                  {"line", C.Line}});
      }
      F["stub_calls"] = std::move(Cs);
    }
    if (!E.Facts.StubKernels.empty()) {
      json::Array Ks;
      for (const StubKernel &K : E.Facts.StubKernels)
        Ks.push_back(json::Object{{"stub", K.Stub},
                                  {"function", K.Function},
                                  {"device", K.Device},
                                  {"line", K.Line}});
      F["stub_kernels"] = std::move(Ks);
    }
    if (!E.Facts.HelperDefs.empty())
      F["helper_defs"] = kernelsJson(E.Facts.HelperDefs);
    if (!E.Facts.PybindDefs.empty())
      F["pybind_defs"] = kernelsJson(E.Facts.PybindDefs);
    if (!E.Facts.PybindCalls.empty())
      F["pybind_calls"] = kernelsJson(E.Facts.PybindCalls);
    if (!E.Facts.InferringHelpers.empty())
      F["inferring_helpers"] = json::Array(E.Facts.InferringHelpers);
    A.push_back(std::move(F));
  }
  json::Object O{
      {"version", CacheVersion}, {"root", Root}, {"files", std::move(A)}};
  if (sys::fs::create_directories(sys::path::parent_path(Path)))
    return false;
  // Written aside and renamed: a concurrent reader sees the old or the new.
  std::string Tmp =
      (Path + ".tmp." + Twine(sys::Process::getProcessId())).str();
  {
    std::error_code EC;
    raw_fd_ostream OS(Tmp, EC);
    if (EC)
      return false;
    OS << json::Value(std::move(O));
    if (OS.has_error()) {
      OS.clear_error();
      sys::fs::remove(Tmp);
      return false;
    }
  }
  if (sys::fs::rename(Tmp, Path)) {
    sys::fs::remove(Tmp);
    return false;
  }
  return true;
}

} // namespace

FileOperatorFacts scanOperatorFile(StringRef Path, StringRef Text) {
  FileOperatorFacts Out;
  if (isPythonPath(Path))
    scanPython(Path, Text, Out);
  else
    scanCxx(Path, Text, Out);
  return Out;
}

std::vector<DeclaredSchema> scanOperatorSchemas(StringRef Path,
                                                StringRef Text) {
  return scanOperatorFile(Path, Text).Schemas;
}

std::optional<std::string> expandMacro(const RegisteringMacro &M,
                                       StringRef Args) {
  // The arguments, split at the commas outside parentheses (as the
  // preprocessor splits them), each as written.
  std::string ArgBuf = Args.str();
  std::vector<Token> A = lexCxx(ArgBuf);
  std::vector<std::string> Values;
  size_t Start = 0;
  int Depth = 0;
  auto Take = [&](size_t End) {
    if (Start == End) {
      Values.emplace_back();
      return;
    }
    size_t From = A[Start].Offset;
    Values.push_back(
        ArgBuf.substr(From, A[End - 1].Offset + A[End - 1].Text.size() - From));
  };
  for (size_t I = 0; I < A.size(); ++I) {
    if (A[I].is(clang::tok::l_paren))
      ++Depth;
    else if (A[I].is(clang::tok::r_paren))
      --Depth;
    else if (Depth == 0 && A[I].is(clang::tok::comma)) {
      Take(I);
      Start = I + 1;
    }
  }
  if (!A.empty())
    Take(A.size());
  bool Variadic = !M.Params.empty() && M.Params.back() == "__VA_ARGS__";
  size_t Fixed = M.Params.size() - (Variadic ? 1 : 0);
  if (Variadic) {
    if (Values.size() < Fixed)
      return std::nullopt;
    std::string Rest;
    for (size_t I = Fixed; I < Values.size(); ++I)
      Rest += (I > Fixed ? ", " : "") + Values[I];
    Values.resize(Fixed);
    Values.push_back(Rest);
  } else if (Values.size() != M.Params.size() &&
             !(M.Params.empty() && Values.size() == 1 && Values[0].empty())) {
    return std::nullopt;
  }
  auto ValueOf = [&](const Token &T) -> std::optional<std::string> {
    if (T.is(clang::tok::raw_identifier))
      for (size_t I = 0; I < M.Params.size(); ++I)
        if (T.Text == M.Params[I])
          return Values[I];
    return std::nullopt;
  };
  std::string Body = M.Body;
  std::vector<Token> B = lexCxx(Body);
  std::string Out;
  for (size_t I = 0; I < B.size(); ++I) {
    if (!Out.empty())
      Out += ' ';
    if (B[I].is(clang::tok::hash) && I + 1 < B.size())
      if (std::optional<std::string> V = ValueOf(B[I + 1])) {
        // #param: the argument as a string literal.
        Out += '"';
        for (char C : *V) {
          if (C == '"' || C == '\\')
            Out += '\\';
          Out += C;
        }
        Out += '"';
        ++I;
        continue;
      }
    // a ## b ## ...: the spellings pasted into one token.
    std::string Piece = ValueOf(B[I]).value_or(B[I].Text.str());
    while (I + 2 < B.size() && B[I + 1].is(clang::tok::hashhash)) {
      Piece += ValueOf(B[I + 2]).value_or(B[I + 2].Text.str());
      I += 2;
    }
    Out += Piece;
  }
  return Out;
}

std::optional<std::string> ProjectOperators::findRoot(StringRef File,
                                                      StringRef Setting) {
  if (Setting == "none")
    return std::nullopt;
  if (!Setting.empty() && Setting != "auto") {
    SmallString<256> Dir(Setting);
    if (sys::fs::make_absolute(Dir) || !sys::fs::is_directory(Dir))
      return std::nullopt;
    sys::path::remove_dots(Dir, true);
    return std::string(Dir);
  }
  SmallString<256> Path(File);
  if (sys::fs::make_absolute(Path))
    return std::nullopt;
  sys::path::remove_dots(Path, true);
  StringRef Dir = sys::path::parent_path(Path);
  while (!Dir.empty()) {
    for (const char *Marker :
         {".git", "setup.py", "pyproject.toml", "compile_commands.json"}) {
      SmallString<256> M(Dir);
      sys::path::append(M, Marker);
      if (sys::fs::exists(M))
        return Dir.str();
    }
    StringRef Parent = sys::path::parent_path(Dir);
    if (Parent == Dir)
      break;
    Dir = Parent;
  }
  return std::nullopt;
}

std::string ProjectOperators::defaultCacheDir() {
  SmallString<256> P;
  if (std::optional<std::string> C = sys::Process::GetEnv("TORCH_TIDY_CACHE");
      C && !C->empty()) {
    P = *C;
  } else if (std::optional<std::string> X =
                 sys::Process::GetEnv("XDG_CACHE_HOME");
             X && !X->empty()) {
    P = *X;
    sys::path::append(P, "torch-tidy");
  } else if (sys::path::home_directory(P)) {
    sys::path::append(P, ".cache", "torch-tidy");
  } else {
    return "";
  }
  sys::path::append(P, "project-index");
  return std::string(P);
}

std::vector<std::string> ProjectOperators::readFileList(StringRef Path) {
  std::vector<std::string> Out;
  if (Path.empty())
    return Out;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return Out;
  SmallVector<StringRef, 64> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, false);
  for (StringRef L : Lines) {
    L = L.trim();
    if (!L.empty() && sys::path::is_absolute(L))
      Out.push_back(L.str());
  }
  return Out;
}

std::unique_ptr<ProjectOperators>
ProjectOperators::build(StringRef Root, StringRef CacheDir,
                        ArrayRef<std::string> BuildFiles) {
  auto Index = std::make_unique<ProjectOperators>();
  Index->Root = Root.str();
  std::string Cache = CacheDir.empty() ? "" : cachePath(CacheDir, Root);
  StringMap<FileEntry> Cached;
  if (!Cache.empty())
    Cached = readCache(Cache, Root);

  std::vector<std::pair<std::string, FileEntry>> Files;
  // A file's facts: the cache's while its size and time are the same, else
  // read again. Rel names it in the cache and the index.
  auto add = [&](StringRef Path, std::string Rel,
                 const sys::fs::file_status &St) {
    int64_t MTime = St.getLastModificationTime().time_since_epoch().count();
    auto C = Cached.find(Rel);
    if (C != Cached.end() && C->second.Size == St.getSize() &&
        C->second.MTime == MTime) {
      ++Index->Stats.FromCache;
      Files.emplace_back(std::move(Rel), std::move(C->second));
      return;
    }
    ++Index->Stats.Read;
    FileEntry E{St.getSize(), MTime, {}};
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
            MemoryBuffer::getFile(Path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false))
      E.Facts = scanOperatorFile(Path, (*Buf)->getBuffer());
    Files.emplace_back(std::move(Rel), std::move(E));
  };
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(Root, EC, false), End;
       It != End && !EC && Files.size() < MaxFiles; It.increment(EC)) {
    StringRef Path = It->path();
    sys::fs::file_type Type = It->type();
    if (Type == sys::fs::file_type::directory_file) {
      if (isSkippedDirectory(sys::path::filename(Path)))
        It.no_push();
      continue;
    }
    if (Type != sys::fs::file_type::regular_file || !isIndexedPath(Path))
      continue;
    sys::fs::file_status St;
    if (sys::fs::status(Path, St) || St.getSize() > MaxFileSize)
      continue;
    add(Path, Path.drop_front(Root.size()).ltrim("/").str(), St);
  }
  // Files the build compiles that the walk does not read: vendored code
  // (third_party/) and sources the build generates (build folders), or
  // files outside the root. Below the root they keep their relative name.
  StringSet<> Seen;
  for (const auto &F : Files)
    Seen.insert(F.first);
  for (const std::string &Path : BuildFiles) {
    if (!isIndexedPath(Path) || Files.size() >= MaxFiles)
      continue;
    StringRef RootRef(Root);
    std::string Rel = Path;
    if (StringRef(Path).starts_with(RootRef) &&
        StringRef(Path).drop_front(RootRef.size()).starts_with("/"))
      Rel = StringRef(Path).drop_front(RootRef.size()).ltrim("/").str();
    if (!Seen.insert(Rel).second)
      continue;
    sys::fs::file_status St;
    if (sys::fs::status(Path, St) ||
        St.type() != sys::fs::file_type::regular_file ||
        St.getSize() > MaxFileSize)
      continue;
    ++Index->Stats.BuildFiles;
    add(Path, Rel, St);
  }
  Index->Stats.Files = Files.size();
  // Rewrite the cache when a file was read or one went away.
  if (!Cache.empty() &&
      (Index->Stats.Read > 0 || Cached.size() != Index->Stats.FromCache))
    Index->Stats.CacheWritten = writeCache(Cache, Root, Files);
  std::vector<WrapperMacro> Wrappers;
  std::vector<DeclaredKernel> Calls;
  std::vector<RegisteringMacro> Macros;
  std::vector<std::pair<std::string, MacroCall>> MacroCalls;
  StringSet<> Helpers;
  for (auto &[Rel, E] : Files) {
    SmallString<256> Abs = entryPath(Root, Rel);
    if (isPythonPath(Abs)) {
      StringRef Stem = sys::path::stem(Abs);
      Index->PythonModules.insert(
          Stem == "__init__" ? sys::path::filename(sys::path::parent_path(Abs))
                             : Stem);
    }
    for (DeclaredSchema &D : E.Facts.Schemas)
      Index->Schemas.push_back(std::move(D));
    for (DeclaredKernel &K : E.Facts.Kernels)
      Index->Kernels.push_back(std::move(K));
    for (WrapperMacro &W : E.Facts.Wrappers)
      Wrappers.push_back(std::move(W));
    for (DeclaredKernel &K : E.Facts.WrapperCalls)
      Calls.push_back(std::move(K));
    for (RegisteringMacro &M : E.Facts.Macros) {
      M.File = std::string(Abs);
      Macros.push_back(std::move(M));
    }
    for (MacroCall &C : E.Facts.MacroCalls)
      MacroCalls.emplace_back(std::string(Abs), std::move(C));
    for (StubCall &C : E.Facts.StubCalls)
      Index->StubCalls.push_back(std::move(C));
    for (StubKernel &K : E.Facts.StubKernels)
      Index->StubKernels.push_back(std::move(K));
    for (DeclaredKernel &K : E.Facts.HelperDefs)
      Index->HelperDefs.push_back(std::move(K));
    for (DeclaredKernel &K : E.Facts.PybindDefs)
      Index->PybindDefs.push_back(std::move(K));
    for (DeclaredKernel &K : E.Facts.PybindCalls)
      Index->PybindCalls.push_back(std::move(K));
    for (const std::string &H : E.Facts.InferringHelpers)
      Helpers.insert(H);
  }
  Index->expandMacroCalls(Macros, std::move(MacroCalls));
  Index->indexInferred(Helpers);
  Index->indexSchemas();
  Index->indexKernels(std::move(Wrappers), std::move(Calls));
  return Index;
}

void ProjectOperators::expandMacroCalls(
    const std::vector<RegisteringMacro> &Macros,
    std::vector<std::pair<std::string, MacroCall>> Calls) {
  if (Macros.empty() || Calls.empty())
    return;
  StringMap<std::vector<const RegisteringMacro *>> ByMacro;
  for (const RegisteringMacro &M : Macros)
    ByMacro[M.Name].push_back(&M);
  // What the files register already, by file and line: an expansion that
  // repeats it (a macro whose argument holds the m.def) adds nothing.
  std::set<std::string> Known;
  auto SchemaKey = [](const DeclaredSchema &D) {
    return D.File + ":" + std::to_string(D.Line) + ":" + D.Schema;
  };
  auto KernelKey = [](const DeclaredKernel &K) {
    return K.Site.File + ":" + std::to_string(K.Site.Line) + ":" + K.Namespace +
           "::" + K.Name + "@" + K.Site.Key;
  };
  for (const DeclaredSchema &D : Schemas)
    Known.insert(SchemaKey(D));
  for (const DeclaredKernel &K : Kernels)
    Known.insert(KernelKey(K));
  // Nested macros are expanded too, up to a depth.
  constexpr unsigned MaxDepth = 4;
  std::vector<std::tuple<std::string, MacroCall, unsigned>> Work;
  for (auto &[File, C] : Calls)
    Work.emplace_back(std::move(File), std::move(C), 0);
  for (size_t W = 0; W < Work.size(); ++W) {
    auto [File, C, Depth] = Work[W];
    auto It = ByMacro.find(C.Macro);
    if (It == ByMacro.end())
      continue;
    // The calling file's own definition first, else the project's first.
    const RegisteringMacro *Def = It->second.front();
    for (const RegisteringMacro *M : It->second)
      if (M->File == File) {
        Def = M;
        break;
      }
    // An alias of a library macro takes the call's arguments as written
    // (their lines kept).
    std::optional<std::string> Body =
        Def->ObjectLike
            ? std::optional<std::string>(Def->Body + "(" + C.Args + ")")
            : expandMacro(*Def, C.Args);
    if (!Body)
      continue;
    std::string Block =
        C.TopLevel
            ? *Body + C.Block + "\n"
            : (C.BlockKey.empty() ? "TORCH_LIBRARY(" + C.Namespace + ", m) {\n"
                                  : "TORCH_LIBRARY_IMPL(" + C.Namespace + ", " +
                                        C.BlockKey + ", m) {\n") +
                  *Body + "\n}\n";
    FileOperatorFacts F;
    scanCxx(File, Block, F);
    // A block after the call keeps its lines (the expansion starts on the
    // call's); a macro's body is all at the call's line.
    auto LineOf = [&](unsigned InExpansion) {
      return C.Block.empty() ? C.Line : C.Line + InExpansion - 1;
    };
    for (DeclaredSchema &D : F.Schemas) {
      D.Line = LineOf(D.Line);
      if (Known.insert(SchemaKey(D)).second) {
        Schemas.push_back(std::move(D));
        ++Stats.FromMacros;
      }
    }
    for (DeclaredKernel &K : F.Kernels) {
      K.Site.Line = LineOf(K.Site.Line);
      // Named after the macro; a catch-all registration keeps its kind
      // (an m.def with a function may define the operator by itself).
      K.Site.How =
          K.Site.How == "m.def" || K.Site.How == "torch::RegisterOperators"
              ? C.Macro + ": " + K.Site.How
              : C.Macro;
      if (Known.insert(KernelKey(K)).second) {
        Kernels.push_back(std::move(K));
        ++Stats.FromMacros;
      }
    }
    for (DeclaredKernel &K : F.HelperDefs) {
      K.Site.Line = LineOf(K.Site.Line);
      HelperDefs.push_back(std::move(K));
    }
    if (Depth + 1 < MaxDepth)
      for (MacroCall &N : F.MacroCalls) {
        N.Line = C.Line;
        Work.emplace_back(File, std::move(N), Depth + 1);
      }
  }
}

std::vector<const DeclaredKernel *>
ProjectOperators::pybindCallers(StringRef Function) const {
  std::vector<const DeclaredKernel *> Out;
  for (const DeclaredKernel &D : PybindDefs) {
    if (StringRef(D.Function).rsplit("::").second != Function &&
        D.Function != Function)
      continue;
    for (const DeclaredKernel &C : PybindCalls) {
      // A module of the project's own Python files (`from grouped_gemm
      // import backend`, a wrapper whose gmm has parameters of its own) is
      // not the extension.
      auto [Module, Called] = StringRef(C.Function).rsplit('.');
      if (Called == D.Name && !PythonModules.contains(Module) &&
          (D.Namespace.empty() || D.Namespace == Module) &&
          !llvm::is_contained(Out, &C))
        Out.push_back(&C);
    }
  }
  return Out;
}

void ProjectOperators::indexInferred(const StringSet<> &Helpers) {
  for (DeclaredKernel &K : HelperDefs)
    if (Helpers.contains(K.Site.How))
      InferredDefs.push_back(K);
}

const DeclaredKernel *
ProjectOperators::inferredDefinition(StringRef Ns, StringRef Name) const {
  for (const DeclaredKernel &K : InferredDefs)
    if (K.Name == Name && (K.Namespace == Ns || Ns.empty()))
      return &K;
  return nullptr;
}

void ProjectOperators::indexKernels(std::vector<WrapperMacro> Wrappers,
                                    std::vector<DeclaredKernel> Calls) {
  StringMap<const WrapperMacro *> Of;
  for (WrapperMacro &W : Wrappers)
    Of[W.Name] = &W;
  for (DeclaredKernel &C : Calls) {
    auto It = Of.find(C.Site.How);
    if (It == Of.end())
      continue;
    const WrapperMacro &W = *It->second;
    // torch.library's function under a name the project binds: the call's
    // own keys (register_kernel's default: every device; impl has none).
    if (StringRef Fn = W.Key; Fn.consume_front(LibraryAliasPrefix)) {
      if (!C.Function.empty())
        continue;
      SmallVector<StringRef, 2> Keys;
      StringRef(C.Site.Key).split(Keys, ',', -1, false);
      if (Fn == "register_autograd")
        Keys = {"Autograd"};
      else if (Keys.empty() && Fn == "register_kernel")
        Keys = {"CompositeExplicitAutograd"};
      std::string How =
          W.Name == Fn ? W.Key + " (imported)" : W.Key + " (as " + W.Name + ")";
      for (StringRef K : Keys) {
        DeclaredKernel Copy = C;
        Copy.Site.Key = K.str();
        Copy.Site.How = How;
        Kernels.push_back(std::move(Copy));
      }
      continue;
    }
    // A decorator (`@name`) is a call of an operator-defining helper only;
    // the operator is named after the function it decorates.
    if (C.Function.empty() != W.Naming.empty())
      continue;
    if (!W.Naming.empty()) {
      C.Name = std::move(C.Function);
      C.Function.clear(); // a Python kernel
      if (W.Naming == DropUnderscoreNaming &&
          StringRef(C.Name).starts_with("_"))
        C.Name.erase(0, 1);
      C.Site.How = W.Name + ": Library.define (schema inferred)";
    }
    C.Site.Key = W.Key;
    Kernels.push_back(std::move(C));
  }
  for (size_t I = 0; I < Kernels.size(); ++I) {
    if (Kernels[I].Site.Key == UnnamedFakeKey) {
      UnnamedFakes.push_back(&Kernels[I]);
      continue;
    }
    KernelsByName[Kernels[I].Namespace + "::" + Kernels[I].Name].push_back(I);
  }
  Stats.Kernels = Kernels.size();
}

void ProjectOperators::indexSchemas() {
  for (size_t I = 0; I < Schemas.size(); ++I) {
    StringRef S = Schemas[I].Schema;
    StringRef Name = S.take_until([](char C) { return C == '('; }).trim();
    std::string Ns = Schemas[I].Namespace;
    if (size_t Colons = Name.find("::"); Colons != StringRef::npos) {
      Ns = Name.take_front(Colons).str();
      Name = Name.drop_front(Colons + 2);
    }
    Name = Name.take_until([](char C) { return C == '.'; });
    ByName[Ns + "::" + Name.str()].push_back(I);
  }
  Stats.Schemas = Schemas.size();
}

namespace {
/// The entries of Map for Ns::Name. A library whose namespace is a macro
/// (TORCH_LIBRARY(TORCH_EXTENSION_NAME, m)) is set by the build: its entries
/// match any namespace by name, when the namespace itself has none.
template <typename T>
std::vector<const T *> lookUp(const StringMap<std::vector<size_t>> &Map,
                              const std::vector<T> &Items, StringRef Ns,
                              StringRef Name, bool MacroNamespaces) {
  std::vector<const T *> Out;
  auto It = Map.find((Ns + "::" + Name).str());
  if (It != Map.end())
    for (size_t I : It->second)
      Out.push_back(&Items[I]);
  if (!Out.empty() && !MacroNamespaces)
    return Out;
  for (const auto &[Key, Indices] : Map) {
    auto [KNs, KName] = Key.split("::");
    if (KName != Name || KNs.empty() || KNs == Ns ||
        KNs.find_if([](char C) { return isLower(C); }) != StringRef::npos)
      continue;
    for (size_t I : Indices)
      Out.push_back(&Items[I]);
  }
  return Out;
}
} // namespace

namespace {
std::string packageOf(StringRef File, StringRef Root) {
  SmallString<256> Dir(sys::path::parent_path(File));
  while (Dir.size() > Root.size() && StringRef(Dir).starts_with(Root)) {
    for (const char *Marker :
         {"setup.py", "pyproject.toml", "build.toml", "flake.nix"}) {
      SmallString<256> P(Dir);
      sys::path::append(P, Marker);
      if (sys::fs::exists(P))
        return std::string(Dir);
    }
    Dir = sys::path::parent_path(Dir);
  }
  return Root.str();
}
} // namespace

namespace {
/// The index facts one process asked for, written at exit to the file
/// $TORCH_TIDY_INDEX_READS names: one line per operator name ("operator
/// NAME"), kernel function name ("function NAME") or "unnamed-fakes" looked
/// up. torch-tidy-project keys a file's cached findings by what these facts
/// are (docs/incremental.md); a process that never asks writes an empty
/// file, one that crashes none.
class IndexReadLog {
public:
  IndexReadLog() {
    if (std::optional<std::string> P =
            sys::Process::GetEnv("TORCH_TIDY_INDEX_READS"))
      Path = *P;
  }
  ~IndexReadLog() {
    if (Path.empty())
      return;
    std::error_code EC;
    raw_fd_ostream OS(Path, EC, sys::fs::OF_Text);
    if (EC)
      return;
    for (const std::string &K : Keys)
      OS << K << "\n";
  }
  void note(StringRef Kind, StringRef Name) {
    if (Path.empty())
      return;
    std::lock_guard<std::mutex> Guard(Lock);
    Keys.insert((Kind + " " + Name).str());
  }

private:
  std::string Path;
  std::mutex Lock;
  std::set<std::string> Keys;
};
// At namespace scope, so that a process that sets the variable writes the
// file even when it asks for nothing.
IndexReadLog TheReadLog;
} // namespace

void ProjectOperators::noteFunctionRead(StringRef Function) const {
  TheReadLog.note("function", Function);
}

std::vector<KernelSite>
ProjectOperators::unnamedFakesFor(StringRef File) const {
  TheReadLog.note("unnamed-fakes", "");
  std::vector<KernelSite> Out;
  if (UnnamedFakes.empty())
    return Out;
  std::string Package = packageOf(File, Root);
  for (const DeclaredKernel *K : UnnamedFakes)
    if (packageOf(K->Site.File, Root) == Package)
      Out.push_back(K->Site);
  return Out;
}

std::vector<const DeclaredSchema *>
ProjectOperators::find(StringRef Ns, StringRef Name) const {
  TheReadLog.note("operator", Name);
  return lookUp(ByName, Schemas, Ns, Name, /*MacroNamespaces=*/false);
}

std::vector<const DeclaredKernel *>
ProjectOperators::kernels(StringRef Ns, StringRef Name) const {
  TheReadLog.note("operator", Name);
  // Kernels are often registered under a macro namespace beside a literal
  // one (TORCH_LIBRARY(ns, m) with TORCH_LIBRARY_IMPL(TORCH_EXTENSION_NAME,
  // CUDA, m)): both count.
  return lookUp(KernelsByName, Kernels, Ns, Name, /*MacroNamespaces=*/true);
}

std::optional<std::string> ProjectOperators::readRegistry(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return "cannot read " + Path.str() + ": " + Buf.getError().message();
  Expected<json::Value> V = json::parse((*Buf)->getBuffer());
  if (!V)
    return Path.str() + " is not JSON: " + toString(V.takeError());
  const json::Object *O = V->getAsObject();
  const json::Object *Ops = O ? O->getObject("operators") : nullptr;
  if (!Ops)
    return Path.str() + " holds no \"operators\" object";
  Registry.clear();
  RegistryTorch = O->getString("torch").value_or("").str();
  for (const auto &[Op, Sites] : *Ops) {
    std::vector<KernelSite> &Out = Registry[Op.str()];
    if (const json::Array *A = Sites.getAsArray())
      for (const json::Value &S : *A)
        if (const json::Object *SO = S.getAsObject())
          Out.push_back(
              {SO->getString("key").value_or("").str(),
               SO->getString("how").value_or("").str(),
               SO->getString("file").value_or("").str(),
               static_cast<unsigned>(SO->getInteger("line").value_or(0))});
  }
  return std::nullopt;
}

const std::vector<KernelSite> *
ProjectOperators::registrySites(StringRef Ns, StringRef Name) const {
  if (Registry.empty())
    return nullptr;
  if (auto It = Registry.find((Ns + "::" + Name).str()); It != Registry.end())
    return &It->second;
  // A namespace the build sets (TORCH_EXTENSION_NAME): the one operator of
  // that name.
  if (!isUpperMacroName(Ns))
    return nullptr;
  const std::vector<KernelSite> *Found = nullptr;
  for (const auto &E : Registry)
    if (StringRef(E.first()).ends_with(("::" + Name).str())) {
      if (Found)
        return nullptr;
      Found = &E.second;
    }
  return Found;
}

std::vector<KernelSite> ProjectOperators::projectSites(StringRef Ns,
                                                       StringRef Name,
                                                       StringRef File,
                                                       bool IncludeFile) const {
  std::vector<KernelSite> Out;
  const std::vector<KernelSite> *FromRegistry = registrySites(Ns, Name);
  auto Elsewhere = [&](StringRef F) { return IncludeFile || F != File; };
  for (const DeclaredKernel *K : kernels(Ns, Name))
    if (Elsewhere(K->Site.File) &&
        (!FromRegistry || K->Site.Key == DisallowInGraphKey ||
         K->Site.Key == OpaqueCallerKey))
      Out.push_back(K->Site);
  if (FromRegistry) {
    for (const KernelSite &S : *FromRegistry)
      if (Elsewhere(S.File))
        Out.push_back(S);
    return Out;
  }
  // A fake the index could not name may be this operator's.
  std::vector<KernelSite> Unnamed = unnamedFakesFor(File);
  Out.insert(Out.end(), Unnamed.begin(), Unnamed.end());
  return Out;
}

std::shared_ptr<const ProjectOperators>
ProjectOperators::load(StringRef Root, StringRef CacheDir, StringRef Registry,
                       StringRef BuildFiles) {
  // One index per root and process, checked against the files again when
  // older than a few seconds (a language server lives long; a clang-tidy
  // run over many files reads the project once).
  struct Memo {
    std::shared_ptr<const ProjectOperators> Index;
    std::chrono::steady_clock::time_point Built;
  };
  static std::mutex Lock;
  static StringMap<Memo> Memos;
  std::lock_guard<std::mutex> Guard(Lock);
  auto Now = std::chrono::steady_clock::now();
  std::string Key = (Root + "\n" + Registry + "\n" + BuildFiles).str();
  auto It = Memos.find(Key);
  if (It != Memos.end() && Now - It->second.Built < std::chrono::seconds(5))
    return It->second.Index;
  std::unique_ptr<ProjectOperators> Built =
      build(Root, CacheDir, readFileList(BuildFiles));
  if (!Registry.empty())
    if (std::optional<std::string> Error = Built->readRegistry(Registry))
      Built->RegistryError = std::move(*Error);
  std::shared_ptr<const ProjectOperators> Index = std::move(Built);
  Memos[Key] = {Index, Now};
  return Index;
}

} // namespace torch_tidy

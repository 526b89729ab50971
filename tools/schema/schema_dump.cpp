//===- schema_dump.cpp - torch-tidy's reading of operator schemas ---------===//
//
// Reads one operator schema per line (a file, or stdin) and prints, per
// line, a JSON object with what torch-tidy's schema parser
// (lib/operators/OperatorSchema) reads from it: the qualified name, overload,
// and for every argument and return its name, whether it is a tensor, the
// alias sets and whether it is written, keyword-only and default. The
// schema-grammar ctests (tools/schema/schema_grammar.py) compare it with
// torch._C.parse_schema over every schema torch registers.
//
//===----------------------------------------------------------------------===//

#include "torch_tidy/operators/OperatorSchema.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace torch_tidy;

static llvm::json::Array argumentsJson(llvm::ArrayRef<SchemaArgument> Args) {
  llvm::json::Array Out;
  for (const SchemaArgument &A : Args) {
    llvm::json::Array Sets, After;
    // torch's Python API shows only a list's own annotation: for one on
    // the elements (`Tensor(a!)[]`) it has no sets, only the write.
    if (A.Alias && !A.Alias->OnElements) {
      for (const std::string &S : A.Alias->Sets)
        Sets.push_back(S);
      for (const std::string &S : A.Alias->afterSets())
        After.push_back(S);
    }
    Out.push_back(llvm::json::Object{{"name", A.Name},
                                     {"tensor", A.isTensor()},
                                     {"write", A.isMutable()},
                                     {"sets", std::move(Sets)},
                                     {"after", std::move(After)},
                                     {"kwarg", A.KeywordOnly},
                                     {"default", A.Default.has_value()}});
  }
  return Out;
}

int main(int Argc, char **Argv) {
  auto Buffer = Argc > 1 ? llvm::MemoryBuffer::getFile(Argv[1])
                         : llvm::MemoryBuffer::getSTDIN();
  if (!Buffer) {
    llvm::errs() << "torch-tidy-schema-dump: cannot read "
                 << (Argc > 1 ? Argv[1] : "stdin") << ": "
                 << Buffer.getError().message() << "\n";
    return 2;
  }
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  (*Buffer)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Line : Lines) {
    SchemaParseResult R = parseOperatorSchema(Line);
    llvm::json::Object O{{"schema", Line}};
    if (!R) {
      O["ok"] = false;
      O["error"] = R.Error->Message;
      O["offset"] = static_cast<int64_t>(R.Error->Offset);
    } else {
      const OperatorSchema &S = *R.Schema;
      O["ok"] = true;
      O["name"] = S.Namespace.empty() ? S.Name : S.Namespace + "::" + S.Name;
      O["overload"] = S.Overload;
      O["args"] = argumentsJson(S.Arguments);
      O["rets"] = argumentsJson(S.Returns);
      O["varargs"] = S.VarArgs;
      O["varrets"] = S.VarRets;
    }
    llvm::outs() << llvm::json::Value(std::move(O)) << "\n";
  }
  return 0;
}

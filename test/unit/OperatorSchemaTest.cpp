//===- OperatorSchemaTest.cpp - The schema parser -------------------------===//

#include "torch_tidy/operators/OperatorSchema.h"

#include <gtest/gtest.h>

using namespace torch_tidy;

namespace {

OperatorSchema parsed(llvm::StringRef Text) {
  SchemaParseResult R = parseOperatorSchema(Text);
  EXPECT_TRUE(R) << Text.str() << ": "
                 << (R.Error ? R.Error->Message : std::string());
  return R ? *R.Schema : OperatorSchema();
}

SchemaError error(llvm::StringRef Text) {
  SchemaParseResult R = parseOperatorSchema(Text);
  EXPECT_FALSE(R) << Text.str() << " parsed";
  EXPECT_TRUE(R.Error.has_value());
  return R.Error.value_or(SchemaError());
}

TEST(OperatorSchema, MutableArgumentAndEmptyReturns) {
  OperatorSchema S = parsed("put_rows_(Tensor(a!) m, Tensor v) -> ()");
  EXPECT_EQ(S.Namespace, "");
  EXPECT_EQ(S.Name, "put_rows_");
  EXPECT_EQ(S.Overload, "");
  ASSERT_EQ(S.Arguments.size(), 2u);
  const SchemaArgument &M = S.Arguments[0];
  EXPECT_EQ(M.Name, "m");
  EXPECT_EQ(M.Type, "Tensor");
  EXPECT_TRUE(M.isTensor());
  ASSERT_TRUE(M.Alias.has_value());
  EXPECT_TRUE(M.isMutable());
  EXPECT_EQ(M.Alias->Sets, std::vector<std::string>{"a"});
  // The annotation's offsets point at "(a!)" in the string.
  EXPECT_EQ(M.Alias->Begin, 16u);
  EXPECT_EQ(M.Alias->End, 20u);
  EXPECT_EQ(M.NameBegin, 21u);
  EXPECT_FALSE(S.Arguments[1].isMutable());
  EXPECT_FALSE(S.Arguments[1].Alias.has_value());
  EXPECT_TRUE(S.Returns.empty());
  EXPECT_FALSE(S.NameOnly);
}

TEST(OperatorSchema, QualifiedNameOverloadAndKeywordOnly) {
  OperatorSchema S = parsed("mylib::scale.out(Tensor self, Scalar alpha=1, *, "
                            "Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(S.Namespace, "mylib");
  EXPECT_EQ(S.Name, "scale");
  EXPECT_EQ(S.Overload, "out");
  EXPECT_EQ(S.qualifiedName(), "mylib::scale.out");
  ASSERT_EQ(S.Arguments.size(), 3u);
  EXPECT_FALSE(S.Arguments[0].KeywordOnly);
  EXPECT_EQ(S.Arguments[1].Default, std::optional<std::string>("1"));
  EXPECT_TRUE(S.Arguments[2].KeywordOnly);
  EXPECT_TRUE(S.Arguments[2].isMutable());
  EXPECT_EQ(S.argumentIndex("out"), std::optional<size_t>(2));
  EXPECT_EQ(S.argumentIndex("nope"), std::nullopt);
  ASSERT_EQ(S.Returns.size(), 1u);
  EXPECT_TRUE(S.Returns[0].isMutable());
  EXPECT_EQ(S.Returns[0].Name, "");
}

TEST(OperatorSchema, TypesListsOptionalsAndDefaults) {
  OperatorSchema S = parsed(
      "f(Tensor? bias, int[2] stride=[1, 1], SymInt[] size, float eps=1e-05, "
      "str reduce=\"mean\", ScalarType? dtype=None, Dict(str, Tensor) d, "
      "Tensor[] xs, bool flag=False) -> (Tensor out, Tensor)");
  ASSERT_EQ(S.Arguments.size(), 9u);
  EXPECT_EQ(S.Arguments[0].Type, "Tensor?");
  EXPECT_TRUE(S.Arguments[0].IsOptional);
  EXPECT_TRUE(S.Arguments[0].isTensor());
  EXPECT_EQ(S.Arguments[1].Type, "int[2]");
  EXPECT_TRUE(S.Arguments[1].IsList);
  EXPECT_EQ(S.Arguments[1].Default, std::optional<std::string>("[1, 1]"));
  EXPECT_EQ(S.Arguments[2].Type, "SymInt[]");
  EXPECT_EQ(S.Arguments[3].Default, std::optional<std::string>("1e-05"));
  EXPECT_EQ(S.Arguments[4].Default, std::optional<std::string>("\"mean\""));
  EXPECT_EQ(S.Arguments[5].Type, "ScalarType?");
  EXPECT_EQ(S.Arguments[6].Type, "Dict(str, Tensor)");
  EXPECT_EQ(S.Arguments[6].BaseType, "Dict");
  EXPECT_EQ(S.Arguments[7].Type, "Tensor[]");
  EXPECT_FALSE(S.Arguments[7].isTensor()); // a list, not a tensor
  ASSERT_EQ(S.Returns.size(), 2u);
  EXPECT_EQ(S.Returns[0].Name, "out");
  EXPECT_EQ(S.Returns[1].Name, "");
}

TEST(OperatorSchema, AliasForms) {
  OperatorSchema S =
      parsed("g(Tensor(a) self, Tensor(b!)[] outs, Tensor(a -> *) w, "
             "Tensor(c|d!) u, Tensor(*) any) -> Tensor(a)");
  ASSERT_EQ(S.Arguments.size(), 5u);
  EXPECT_FALSE(S.Arguments[0].isMutable()); // an alias, not written
  EXPECT_TRUE(S.Arguments[1].isMutable());
  EXPECT_TRUE(S.Arguments[1].IsList);
  EXPECT_EQ(S.Arguments[2].Alias->AfterSets, std::vector<std::string>{"*"});
  EXPECT_FALSE(S.Arguments[2].isMutable());
  EXPECT_EQ(S.Arguments[3].Alias->Sets, (std::vector<std::string>{"c", "d"}));
  EXPECT_TRUE(S.Arguments[3].isMutable());
  EXPECT_EQ(S.Arguments[4].Alias->Sets, std::vector<std::string>{"*"});
  EXPECT_EQ(S.Returns[0].Alias->Sets, std::vector<std::string>{"a"});
}

TEST(OperatorSchema, SingleUnnamedReturnAndVarArgs) {
  OperatorSchema S = parsed("  h ( Tensor x , ... ) ->  Tensor  ");
  EXPECT_EQ(S.Name, "h");
  EXPECT_TRUE(S.VarArgs);
  ASSERT_EQ(S.Arguments.size(), 1u);
  ASSERT_EQ(S.Returns.size(), 1u);
  EXPECT_EQ(S.Returns[0].Type, "Tensor");
}

TEST(OperatorSchema, NameOnlyForInferredSchemas) {
  SchemaParseResult R = parseOperatorSchema("mylib::infer_me");
  ASSERT_TRUE(R);
  EXPECT_TRUE(R.Schema->NameOnly);
  EXPECT_EQ(R.Schema->Namespace, "mylib");
  EXPECT_EQ(R.Schema->Name, "infer_me");

  SchemaParseResult N = parseOperatorName("op.overload");
  ASSERT_TRUE(N);
  EXPECT_EQ(N.Schema->Name, "op");
  EXPECT_EQ(N.Schema->Overload, "overload");
  // m.impl takes a name, not a schema.
  EXPECT_FALSE(parseOperatorName("op(Tensor x) -> Tensor"));
}

TEST(OperatorSchema, MalformedSchemasGiveAnErrorWithAnOffset) {
  SchemaError E = error("bad(Tensor(a! m) -> ()");
  EXPECT_NE(E.Message.find("alias annotation"), std::string::npos) << E.Message;
  EXPECT_EQ(E.Offset, 14u);

  E = error("f(Tensor x) Tensor");
  EXPECT_NE(E.Message.find("'->'"), std::string::npos) << E.Message;

  E = error("f(Tensor) -> ()");
  EXPECT_NE(E.Message.find("argument name"), std::string::npos) << E.Message;

  E = error("f(Tensor x -> ()");
  EXPECT_NE(E.Message.find("between arguments"), std::string::npos)
      << E.Message;

  E = error("f(int[2 x) -> ()");
  EXPECT_NE(E.Message.find("']'"), std::string::npos) << E.Message;

  E = error("f(Tensor x, *, *, Tensor y) -> ()");
  EXPECT_NE(E.Message.find("second '*'"), std::string::npos) << E.Message;

  E = error("f(str s=\"open) -> ()");
  EXPECT_NE(E.Message.find("unterminated"), std::string::npos) << E.Message;

  E = error("f(Tensor x) -> () trailing");
  EXPECT_NE(E.Message.find("after the returns"), std::string::npos)
      << E.Message;

  E = error("");
  EXPECT_NE(E.Message.find("operator name"), std::string::npos) << E.Message;
  EXPECT_EQ(E.Offset, 0u);

  E = error("ns::(Tensor x) -> ()");
  EXPECT_NE(E.Message.find("after '::'"), std::string::npos) << E.Message;
}

// Never a crash, whatever the input: every prefix of valid schemas and a
// set of byte strings parse to a schema or an error with an in-range offset.
TEST(OperatorSchema, PrefixesAndGarbageNeverCrash) {
  const char *Valid[] = {
      "mylib::scale.out(Tensor self, Scalar alpha=1, *, Tensor(a!) out) -> "
      "Tensor(a!)",
      "f(Tensor? bias, int[2] stride=[1, 1], Dict(str, Tensor) d) -> (Tensor "
      "a, Tensor b)",
      "g(Tensor(a -> *)[] xs, str r='x') -> ..."};
  for (llvm::StringRef V : Valid)
    for (size_t N = 0; N <= V.size(); ++N) {
      llvm::StringRef Prefix = V.take_front(N);
      SchemaParseResult R = parseOperatorSchema(Prefix);
      EXPECT_NE(R.Schema.has_value(), R.Error.has_value());
      if (R.Error)
        EXPECT_LE(R.Error->Offset, Prefix.size());
    }
  unsigned Seed = 12345;
  for (int I = 0; I < 2000; ++I) {
    std::string S;
    int Len = (Seed = Seed * 1103515245 + 12345) % 40;
    for (int J = 0; J < Len; ++J) {
      static const char Alphabet[] = "Tensor(a!)[]?*,.:-> =\"'x1";
      S.push_back(Alphabet[(Seed = Seed * 1103515245 + 12345) % 25]);
    }
    SchemaParseResult R = parseOperatorSchema(S);
    EXPECT_NE(R.Schema.has_value(), R.Error.has_value()) << S;
  }
}

} // namespace

namespace {
// `Tensor!` (vLLM's and sglang's spelling): written, in an alias set of its
// own, as torch._C.parse_schema reads it (`Tensor($0! -> )`).
TEST(OperatorSchema, BareWriteMarker) {
  OperatorSchema S =
      parsed("rot(Tensor positions, Tensor! query, Tensor!? key, "
             "Tensor[]! outs, Tensor output) -> ()");
  ASSERT_EQ(S.Arguments.size(), 5u);
  EXPECT_FALSE(S.Arguments[0].isMutable());
  EXPECT_TRUE(S.Arguments[1].isMutable());
  EXPECT_TRUE(S.Arguments[2].isMutable());
  EXPECT_TRUE(S.Arguments[2].IsOptional);
  EXPECT_TRUE(S.Arguments[3].isMutable());
  EXPECT_TRUE(S.Arguments[3].IsList);
  EXPECT_FALSE(S.Arguments[4].isMutable());
  // Each `!` is a set of its own: no two arguments share one.
  EXPECT_NE(S.Arguments[1].Alias->Sets, S.Arguments[2].Alias->Sets);
  EXPECT_EQ(S.Arguments[1].Name, "query");
  EXPECT_EQ(error("f(Tensor(a)! x) -> ()").Message,
            "a second alias annotation on one type");
}
} // namespace

namespace {
// The rest of torch's grammar (issue 31), each form found among the schemas
// torch registers or in extension projects; tools/schema/schema_grammar.py
// compares the whole registry with torch._C.parse_schema.
TEST(OperatorSchema, TupleTypes) {
  // pyg-lib's hetero operators: a list of tuples, a false "cannot parse".
  OperatorSchema S = parsed("hetero(Tensor x, (str, str, str)[] edge_types, "
                            "(Tensor, (int, int))? pair) -> ((str, Tensor))");
  ASSERT_EQ(S.Arguments.size(), 3u);
  EXPECT_EQ(S.Arguments[1].Type, "(str, str, str)[]");
  EXPECT_EQ(S.Arguments[1].BaseType, "Tuple");
  EXPECT_TRUE(S.Arguments[1].IsList);
  EXPECT_EQ(S.Arguments[1].Name, "edge_types");
  EXPECT_EQ(S.Arguments[2].Type, "(Tensor, (int, int))?");
  EXPECT_TRUE(S.Arguments[2].IsOptional);
  ASSERT_EQ(S.Returns.size(), 1u);
  EXPECT_EQ(S.Returns[0].Type, "(str, Tensor)");
}

TEST(OperatorSchema, ClassTypesAndEscapedDefaults) {
  OperatorSchema S = parsed("set_stream(__torch__.torch.classes.cuda.Stream "
                            "stream, str a=\"\\\"'\\\\\","
                            " str b='x,y') -> ()");
  ASSERT_EQ(S.Arguments.size(), 3u);
  EXPECT_EQ(S.Arguments[0].BaseType, "__torch__.torch.classes.cuda.Stream");
  EXPECT_EQ(S.Arguments[0].Name, "stream");
  EXPECT_EQ(*S.Arguments[1].Default, "\"\\\"'\\\\\"");
  EXPECT_EQ(*S.Arguments[2].Default, "'x,y'");
}

TEST(OperatorSchema, AliasSetsAfterTheCall) {
  OperatorSchema S = parsed("f(Tensor(a) x, str(b -> *) k, Tensor(c! -> ) y, "
                            "Tensor(d!)[] outs, int[](e) l) -> Tensor(a)");
  // Without `->` a value leaves in the sets it came in.
  EXPECT_EQ(S.Arguments[0].Alias->afterSets(), std::vector<std::string>{"a"});
  EXPECT_EQ(S.Arguments[1].Alias->afterSets(), std::vector<std::string>{"*"});
  EXPECT_TRUE(S.Arguments[2].Alias->afterSets().empty());
  EXPECT_TRUE(S.Arguments[2].isMutable());
  // Before the brackets: on the elements; after: on the list.
  EXPECT_TRUE(S.Arguments[3].Alias->OnElements);
  EXPECT_TRUE(S.Arguments[3].isMutable());
  EXPECT_FALSE(S.Arguments[4].Alias->OnElements);
}
} // namespace

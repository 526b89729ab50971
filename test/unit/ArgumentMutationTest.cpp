// ArgumentMutationAnalysis on small translation units built in memory: the
// copying call a write lands in (ArgumentWrite::Copy, what
// torch-write-into-copy reports), and summaries that stay small along
// chains of helpers.
#include "torch_tidy/analysis/ArgumentMutation.h"
#include "torch_tidy/analysis/GroundTruth.h"
#include "torch_tidy/analysis/SourceText.h"

#include "clang/AST/ASTContext.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

using namespace torch_tidy;

namespace {

const char *const Tensor =
    "namespace at {\n"
    "enum class ScalarType { Float, Double };\n"
    "class Tensor {\n"
    "public:\n"
    "  Tensor &add_(int) const;\n"
    "  Tensor contiguous() const;\n"
    "  Tensor to(ScalarType, bool = false, bool = false) const;\n"
    "  Tensor cpu() const;\n"
    "};\n"
    "}\n";

std::unique_ptr<clang::ASTUnit> parse(const std::string &Code) {
  return clang::tooling::buildASTFromCodeWithArgs(Tensor + Code,
                                                  {"-std=c++17"});
}

const clang::FunctionDecl *function(clang::ASTUnit &AST, llvm::StringRef Name) {
  for (const clang::Decl *D :
       AST.getASTContext().getTranslationUnitDecl()->decls())
    if (const auto *F = llvm::dyn_cast<clang::FunctionDecl>(D);
        F && F->getName() == Name && F->hasBody())
      return F;
  return nullptr;
}

TEST(ArgumentMutation, AWriteIntoACopyNamesTheCopyingCall) {
  auto AST = parse("void k(at::Tensor &out) {\n"
                   "  auto c = out.contiguous();\n"
                   "  int *p = nullptr;\n"
                   "  c.add_(1);\n"
                   "  out.to(at::ScalarType::Float).add_(1);\n"
                   "  out.cpu().add_(1);\n"
                   "  out.add_(1);\n"
                   "}\n");
  ASSERT_TRUE(AST);
  ArgumentMutationAnalysis A;
  const ArgumentMutationResult &R = A.analyse(function(*AST, "k"));
  ASSERT_EQ(R.Writes.size(), 4u);
  std::vector<std::string> Methods;
  for (const ArgumentWrite &W : R.Writes) {
    const ground_truth::CopyingMethod *M =
        W.Copy ? copyingMethodOf(W.Copy) : nullptr;
    Methods.push_back(M ? M->Method.str() + "/" + M->Form.str() : "none");
  }
  // cpu() copies a CUDA tensor (measured on a GPU,
  // docs/ground-truth-device-moves.json): a write through it names the move.
  EXPECT_EQ(Methods, (std::vector<std::string>{"contiguous/", "to/dtype",
                                               "cpu/", "none"}));
}

TEST(ArgumentMutation, ARebindingToTheCopyIsNotACopy) {
  auto AST = parse("void k(at::Tensor &out) {\n"
                   "  out = out.contiguous();\n"
                   "  out.add_(1);\n"
                   "}\n");
  ASSERT_TRUE(AST);
  ArgumentMutationAnalysis A;
  const ArgumentMutationResult &R = A.analyse(function(*AST, "k"));
  ASSERT_EQ(R.Writes.size(), 1u);
  EXPECT_EQ(R.Writes[0].Copy, nullptr);
}

// h0 writes its argument; each h<k> calls h<k-1> eight times. A summary that
// kept one entry per path would hold 8^9 entries at h9; the writes that
// differ only in the call they came through are one.
TEST(ArgumentMutation, SummariesStaySmallAlongChainsOfHelpers) {
  std::string Code = "void h0(at::Tensor t) { t.contiguous().add_(1); }\n";
  for (int K = 1; K <= 9; ++K) {
    Code += "void h" + std::to_string(K) + "(at::Tensor t) {";
    for (int C = 0; C < 8; ++C)
      Code += " h" + std::to_string(K - 1) + "(t);";
    Code += " }\n";
  }
  auto AST = parse(Code);
  ASSERT_TRUE(AST);
  ArgumentMutationAnalysis A;
  const ArgumentMutationResult &R = A.analyse(function(*AST, "h9"));
  // One write per call of h8, each through that call, into h0's copy.
  ASSERT_EQ(R.Writes.size(), 8u);
  for (const ArgumentWrite &W : R.Writes) {
    EXPECT_NE(W.Via, nullptr);
    EXPECT_NE(W.Copy, nullptr);
  }
}

// identifierSpellings: what a rename of a local must cover (rule
// metadata-to-local): the name's own spellings, a dropped macro argument's
// included; members, qualified names, comments and strings left out.
TEST(SourceText, IdentifierSpellingsAreTheNamesOwnTokens) {
  auto AST = parse("#define DROP(c)\n"
                   "namespace n { int s; }\n"
                   "struct P { int s; };\n"
                   "int k(const at::Tensor &s, P p, P *q) {\n"
                   "  s.contiguous();\n"
                   "  DROP(s);\n"
                   "  // s in a comment\n"
                   "  const char *t = \"s\";\n"
                   "  return p.s + q->s + n::s + sizeof(s);\n"
                   "}\n");
  ASSERT_TRUE(AST);
  const clang::FunctionDecl *F = function(*AST, "k");
  ASSERT_TRUE(F);
  clang::ASTContext &Ctx = AST->getASTContext();
  const clang::SourceManager &SM = Ctx.getSourceManager();
  std::vector<clang::SourceLocation> Found = identifierSpellings(
      F->getBody()->getBeginLoc(), F->getBody()->getEndLoc(), "s", Ctx);
  std::vector<unsigned> Lines;
  for (clang::SourceLocation L : Found)
    Lines.push_back(SM.getSpellingLineNumber(L));
  // The Tensor prelude's lines come first (Tensor has 10).
  EXPECT_EQ(Lines, (std::vector<unsigned>{15, 16, 19})) << Found.size();
  // Not locations of one file: nothing.
  EXPECT_TRUE(identifierSpellings(F->getBody()->getEndLoc(),
                                  F->getBody()->getBeginLoc(), "s", Ctx)
                  .empty());
}

} // namespace

//===- ProjectOperatorsTest.cpp - The project-wide operator index ---------===//

#include "torch_tidy/operators/ProjectOperators.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace torch_tidy;

namespace {

std::vector<std::string> schemasOf(llvm::StringRef Path, llvm::StringRef Text) {
  std::vector<std::string> Out;
  for (const DeclaredSchema &D : scanOperatorSchemas(Path, Text))
    Out.push_back(D.Namespace + "|" + D.Schema + "|" + std::to_string(D.Line));
  return Out;
}

TEST(ScanSchemas, CxxLibraryBlocks) {
  const char *Text = R"cpp(#include <torch/library.h>
// m.def("commented(Tensor x) -> ()");
TORCH_LIBRARY(ns, m) {
  m.def("a(Tensor Dst, Tensor Src) -> ()");
  m.def("b(Tensor x, "
        "Tensor y) -> Tensor");
  m.def(TORCH_SELECTIVE_SCHEMA("ns::c(Tensor? out=None) -> Tensor"));
  m.def(R"(d(Tensor x, str s="a)b") -> Tensor)");
  m.def("name_only", &f);
  /* m.def("in_block_comment(Tensor x) -> ()"); */
  m.def("e(Tensor x) -> Tensor").def("f(Tensor x) -> Tensor");
  m.def(torch::schema("g(Tensor(a!) x) -> ()", c10::AliasAnalysisKind::FROM_SCHEMA));
  m.def("h(str s=\"q\") -> ()");
}
TORCH_LIBRARY_FRAGMENT(other, lib) { lib.def("i(Tensor x) -> ()"); }
void helper(torch::Library &m) {
  m.def(TORCH_SELECTIVE_SCHEMA("third::j(Tensor x) -> ()"));
  m.def("unqualified_outside_a_block(Tensor x) -> ()");
}
)cpp";
  EXPECT_EQ(schemasOf("/p/ops.cpp", Text),
            (std::vector<std::string>{
                "ns|a(Tensor Dst, Tensor Src) -> ()|4",
                "ns|b(Tensor x, Tensor y) -> Tensor|5",
                "ns|ns::c(Tensor? out=None) -> Tensor|7",
                "ns|d(Tensor x, str s=\"a)b\") -> Tensor|8",
                "ns|e(Tensor x) -> Tensor|11",
                "ns|f(Tensor x) -> Tensor|11",
                "ns|g(Tensor(a!) x) -> ()|12",
                "ns|h(str s=\"q\") -> ()|13",
                "other|i(Tensor x) -> ()|15",
                "|third::j(Tensor x) -> ()|17",
            }));
}

TEST(ScanSchemas, WrapperMacros) {
  // vLLM's spelling: a wrapper that expands the namespace macro first.
  EXPECT_EQ(
      schemasOf("/p/b.cpp",
                "TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, m) {\n"
                "  m.def(\"moe_sum(Tensor! input, Tensor output) -> ()\");\n"
                "}\n"),
      (std::vector<std::string>{"TORCH_EXTENSION_NAME|moe_sum(Tensor! input, "
                                "Tensor output) -> ()|2"}));
}

TEST(ScanSchemas, RegisterOperators) {
  // The older API: schemas qualified in the string, to the statement's end.
  EXPECT_EQ(
      schemasOf("/p/c.cpp",
                "static auto r = torch::RegisterOperators()\n"
                "  .op(\"ro::a(Tensor x) -> Tensor\", &a)\n"
                "  .op(torch::RegisterOperators::options()\n"
                "      .schema(\"ro::b(Tensor(a!) x) -> ()\")\n"
                "      .kernel<decltype(b), &b>(c10::DispatchKey::CPU));\n"
                "void f() { g.op(\"ro::not_registered(Tensor x) -> ()\"); }\n"),
      (std::vector<std::string>{"|ro::a(Tensor x) -> Tensor|2",
                                "|ro::b(Tensor(a!) x) -> ()|4"}));
}

TEST(ScanSchemas, CxxWithoutLibraries) {
  EXPECT_TRUE(schemasOf("/p/a.cpp", "int main() { return 0; }").empty());
  // Malformed text is read as far as it goes, without a crash.
  EXPECT_TRUE(
      schemasOf("/p/a.cpp", "TORCH_LIBRARY(ns, m) { m.def(\"x(").empty());
  EXPECT_TRUE(schemasOf("/p/a.cpp", "TORCH_LIBRARY(").empty());
}

TEST(ScanSchemas, Python) {
  const char *Text = R"py(import torch
lib = torch.library.Library("pyns", "DEF")
lib.define("op(Tensor x) -> ()")
impl = torch.library.Library("pyns", "IMPL", "CPU")
impl.define("not_a_definition(Tensor x) -> ()")
torch.library.define("pyns::two(Tensor(a!) x) -> ()", lib=lib)
torch.library.define("pyns::split", "(Tensor x) -> Tensor")
frag = Library('pyns', 'FRAGMENT')
frag.define(
    "multi(Tensor x, "
    "Tensor y) -> ()")
def redefine(x): pass
)py";
  EXPECT_EQ(schemasOf("/p/ops.py", Text),
            (std::vector<std::string>{
                "pyns|op(Tensor x) -> ()|3",
                "|pyns::two(Tensor(a!) x) -> ()|6",
                "|pyns::split(Tensor x) -> Tensor|7",
                "pyns|multi(Tensor x, Tensor y) -> ()|9",
            }));
}

std::vector<std::string> kernelsOf(const std::vector<DeclaredKernel> &Ks) {
  std::vector<std::string> Out;
  for (const DeclaredKernel &K : Ks)
    Out.push_back(K.Namespace + "::" + K.Name + "|" + K.Site.Key + "|" +
                  K.Site.How + "|" + std::to_string(K.Site.Line));
  return Out;
}

TEST(ScanKernels, Cxx) {
  const char *Text = R"cpp(#include <torch/library.h>
#define DISPATCH_TO_META(name, function) \
  m.impl(name, torch::dispatch(c10::DispatchKey::Meta, TORCH_FN(function)))
#define NOT_A_WRAPPER(x) x
TORCH_LIBRARY(ns, m) {
  m.def("a(Tensor x) -> ()");
  m.def("b(Tensor x) -> ()", &b_kernel);
  m.def("named", &named_kernel);
  m.def("tagged(Tensor x) -> ()", {at::Tag::pt2_compliant_tag});
  m.impl("c", &c_kernel);
  m.def("d(Tensor x) -> ()", torch::dispatch(c10::DispatchKey::CPU, &d));
}
TORCH_LIBRARY_IMPL(ns, CUDA, m) {
  m.impl("a", &a_cuda);
  m.impl(TORCH_SELECTIVE_NAME("ns::b.out"), TORCH_FN(b_cuda));
  m.impl("c", torch::dispatch(c10::DispatchKey::Meta, &c_meta));
  m.impl("d", torch::kCPU, &d_cpu);
  DISPATCH_TO_META("e", e_meta);
}
TORCH_LIBRARY_IMPL_EXPAND(TORCH_EXTENSION_NAME, Meta, m) { m.impl("f", &f); }
)cpp";
  FileOperatorFacts F = scanOperatorFile("/p/ops.cpp", Text);
  EXPECT_EQ(kernelsOf(F.Kernels),
            (std::vector<std::string>{
                "ns::b|CompositeImplicitAutograd|m.def|7",
                "ns::named|CompositeImplicitAutograd|m.def|8",
                "ns::c|CompositeImplicitAutograd|m.impl|10",
                "ns::d|CPU|m.def|11",
                "ns::a|CUDA|TORCH_LIBRARY_IMPL|14",
                "ns::b|CUDA|TORCH_LIBRARY_IMPL|15",
                "ns::c|Meta|TORCH_LIBRARY_IMPL|16",
                "ns::d|CPU|TORCH_LIBRARY_IMPL|17",
                "TORCH_EXTENSION_NAME::f|Meta|TORCH_LIBRARY_IMPL|20",
            }));
  std::vector<std::string> Functions;
  for (const DeclaredKernel &K : F.Kernels)
    Functions.push_back(K.Function);
  EXPECT_EQ(Functions, (std::vector<std::string>{
                           "b_kernel", "named_kernel", "c_kernel", "d",
                           "a_cuda", "b_cuda", "c_meta", "d_cpu", "f"}));
  // The macro that registers is kept for expansion; the one that does not
  // is not. Its call is kept with the block it is in.
  ASSERT_EQ(F.Macros.size(), 1u);
  EXPECT_EQ(F.Macros[0].Name, "DISPATCH_TO_META");
  EXPECT_EQ(F.Macros[0].Params, (std::vector<std::string>{"name", "function"}));
  ASSERT_EQ(F.MacroCalls.size(), 1u);
  EXPECT_EQ(F.MacroCalls[0].Macro, "DISPATCH_TO_META");
  EXPECT_EQ(F.MacroCalls[0].Namespace, "ns");
  EXPECT_EQ(F.MacroCalls[0].BlockKey, "CUDA");
  EXPECT_EQ(F.MacroCalls[0].Args, "\"e\", e_meta");
  EXPECT_EQ(F.MacroCalls[0].Line, 18u);
}

// deepmd-kit's edge_force_virial.cu: a fallthrough for Autograd is no
// kernel (torch's registry marks it so; the compiler's harvest has none).
TEST(ScanKernels, FallthroughIsNoKernel) {
  const char *Text = R"cpp(#include <torch/library.h>
TORCH_LIBRARY_IMPL(ns, Autograd, m) {
  m.impl("a", torch::CppFunction::makeFallthrough());
  m.impl("b",
         torch::CppFunction::makeFallthrough());
  m.impl("c", &c_autograd);
}
)cpp";
  FileOperatorFacts F = scanOperatorFile("/p/ops.cu", Text);
  EXPECT_EQ(kernelsOf(F.Kernels), (std::vector<std::string>{
                                      "ns::c|Autograd|TORCH_LIBRARY_IMPL|6",
                                  }));
}

TEST(ExpandMacro, StringifiesPastesAndTakesTheRest) {
  RegisteringMacro M{
      "DEFINE_OP",
      {"name", "__VA_ARGS__"},
      "m.def(#name __VA_ARGS__); \\\n  m.impl(#name, &name##_cpu)",
      "/p/ops.h"};
  EXPECT_EQ(expandMacro(M, "gather, \"(Tensor x) -> Tensor\""),
            "m . def ( \"gather\" \"(Tensor x) -> Tensor\" ) ; m . impl ( "
            "\"gather\" , & gather_cpu )");
  // A call whose arguments do not fit the parameters is not expanded.
  RegisteringMacro Two{"TWO", {"a", "b"}, "m.def(#a)", "/p/ops.h"};
  EXPECT_FALSE(expandMacro(Two, "only_one").has_value());
  EXPECT_TRUE(expandMacro(Two, "f(x, y), z").has_value());
  // Quotes in a stringified argument are escaped.
  RegisteringMacro Q{"Q", {"s"}, "m.def(#s)", "/p/ops.h"};
  EXPECT_EQ(expandMacro(Q, "\"a\""), "m . def ( \"\\\"a\\\"\" )");
}

TEST(ScanKernels, TemplatePlaceholdersNameNoOperator) {
  // A code generator's template (FBGEMM's Jinja sources): the generated
  // file registers the operator, not the template.
  const char *Text = R"cpp(TORCH_LIBRARY_FRAGMENT(fbgemm, m) {
  m.def("split_{{ optimizer }}_cpu(Tensor x) -> Tensor");
  m.impl("{{ op_name }}", torch::dispatch(c10::DispatchKey::CPU, TORCH_FN(f)));
  m.def("real(Tensor x) -> Tensor");
}
)cpp";
  FileOperatorFacts F = scanOperatorFile("/p/embedding_template.cpp", Text);
  ASSERT_EQ(F.Schemas.size(), 1u);
  EXPECT_EQ(F.Schemas[0].Schema, "real(Tensor x) -> Tensor");
  EXPECT_TRUE(F.Kernels.empty());
}

TEST(ScanKernels, PastedNamespaces) {
  // vllm-ascend: the namespace of a library block pasted by a macro.
  const char *Text = R"cpp(#define CONCAT(a, b) a##b
TORCH_LIBRARY_EXPAND(CONCAT(_C, _ascend), ops) {
  ops.def("store(Tensor key, Tensor cache) -> ()");
}
TORCH_LIBRARY_IMPL_EXPAND(CONCAT(_C, _ascend), Meta, ops) {
  ops.impl("store", &store_meta);
}
TORCH_LIBRARY(NAMESPACE_OF(a, b), m) { m.def("skipped(Tensor x) -> ()"); }
)cpp";
  FileOperatorFacts F = scanOperatorFile("/p/binding.cpp", Text);
  ASSERT_EQ(F.Schemas.size(), 1u);
  EXPECT_EQ(F.Schemas[0].Namespace, "_C_ascend");
  EXPECT_EQ(kernelsOf(F.Kernels),
            (std::vector<std::string>{"_C_ascend::store|Meta|"
                                      "TORCH_LIBRARY_IMPL|6"}));
}

TEST(ScanKernels, StableExpandAndDisallowInGraph) {
  // vLLM's FlashAttention fork: the stable-ABI blocks behind a macro name.
  const char *Cxx =
      R"cpp(STABLE_TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("varlen_fwd(Tensor! q, Tensor k) -> Tensor[]");
}
STABLE_TORCH_LIBRARY_IMPL_EXPAND(TORCH_EXTENSION_NAME, CUDA, ops) {
  ops.impl("varlen_fwd", TORCH_BOX(&mha_varlen_fwd));
}
)cpp";
  FileOperatorFacts F = scanOperatorFile("/p/flash_api_torch_lib.cpp", Cxx);
  ASSERT_EQ(F.Schemas.size(), 1u);
  EXPECT_EQ(F.Schemas[0].Namespace, "TORCH_EXTENSION_NAME");
  ASSERT_EQ(F.Kernels.size(), 1u);
  EXPECT_EQ(F.Kernels[0].Site.Key, "CUDA");
  // torchcodec: torch._dynamo.disallow_in_graph marks, not kernels or fakes.
  const char *Py = R"py(import torch
encode = torch._dynamo.disallow_in_graph(
    torch.ops.codec_ns.encode.default
)
other = my_module.disallow_in_graph(torch.ops.codec_ns.other.default)
)py";
  FileOperatorFacts P = scanOperatorFile("/p/ops.py", Py);
  EXPECT_EQ(kernelsOf(P.Kernels),
            (std::vector<std::string>{"codec_ns::encode|DisallowInGraph|"
                                      "torch._dynamo.disallow_in_graph|2"}));
}

TEST(ScanKernels, RegisterOperators) {
  // pytorch_scatter and spconv v1: bare names and functions, catch-all
  // kernels with inferred schemas; FasterTransformer's constructor form.
  const char *Text = R"cpp(static auto registry = torch::RegisterOperators()
    .op("torch_scatter::scatter_sum", &scatter_sum)
    .op("torch_scatter::cuda_version(int x) -> int", &cuda_version);
static auto one = torch::RegisterOperators("ft::find_dups", &torch_ext::find_dups);
)cpp";
  FileOperatorFacts F = scanOperatorFile("/p/scatter.cpp", Text);
  ASSERT_EQ(F.Schemas.size(), 1u);
  EXPECT_EQ(kernelsOf(F.Kernels),
            (std::vector<std::string>{
                "torch_scatter::scatter_sum|CompositeImplicitAutograd|"
                "torch::RegisterOperators|2",
                "torch_scatter::cuda_version|CompositeImplicitAutograd|"
                "torch::RegisterOperators|3",
                "ft::find_dups|CompositeImplicitAutograd|"
                "torch::RegisterOperators|4"}));
  ASSERT_EQ(F.Kernels.size(), 3u);
  EXPECT_EQ(F.Kernels[0].Function, "scatter_sum");
  EXPECT_EQ(F.Kernels[2].Function, "torch_ext::find_dups"); // as written
}

TEST(ScanKernels, Python) {
  const char *Text = R"py(import torch
from torch.library import register_fake, impl_abstract
lib = torch.library.Library("pyns", "IMPL")

@torch.library.register_fake("pyns::a")
def _(x): return x
register_fake("pyns::b.out")(lambda x: x)
@impl_abstract("pyns::c")
def _c(x): return x
torch.library.register_fake(torch.ops.pyns.d.default)(lambda x: x)
@torch.library.impl("pyns::e", "Meta")
def _e(x): return x
lib.impl("f", lambda x: x, "Meta")
lib.impl("g", lambda x: x, dispatch_key="CPU")
torch.library.register_kernel("pyns::h", ("cpu", "cuda"))(lambda x: x)
torch.library.register_autograd("pyns::i", backward)
@register_fake_op("pyns::not_a_fake")
def _n(x): return x
def register_fake(name): pass
other.impl("not_a_library", f, "Meta")
meta_lib = torch.library.Library("pyns", "IMPL", "Meta")
meta_lib.impl("j", lambda x: x)
@torch.library.impl("pyns::k", f"Autocast{device_type.upper()}")
def _k(x): return x
torch.library.impl("pyns::l", key)(_k)
)py";
  EXPECT_EQ(kernelsOf(scanOperatorFile("/p/fakes.py", Text).Kernels),
            (std::vector<std::string>{
                "pyns::a|Fake|torch.library.register_fake|5",
                "pyns::b|Fake|torch.library.register_fake|7",
                "pyns::c|Fake|torch.library.impl_abstract|8",
                "pyns::d|Fake|torch.library.register_fake|10",
                "pyns::e|Meta|torch.library.impl|11",
                "pyns::f|Meta|Library.impl|13",
                "pyns::g|CPU|Library.impl|14",
                "pyns::h|CPU|torch.library.register_kernel|15",
                "pyns::h|CUDA|torch.library.register_kernel|15",
                "pyns::i|Autograd|torch.library.register_autograd|16",
                "pyns::j|Meta|Library.impl|22",
                "pyns::k|Autocast{device_type.upper()}|torch.library.impl|23",
                "pyns::l|(key not read)|torch.library.impl|25",
            }));
}

// Issue 58 item 3: torch.library's functions under other names and through
// getattr, and torch.library.custom_op's operators with their fakes and
// kernels.
TEST(ScanKernels, PythonLibraryAliasesAndCustomOps) {
  const char *Text = R"py(import torch
from torch.library import custom_op as cop, impl as limpl
my_op = torch.library.custom_op
impl = torch.library.impl
kern = getattr(torch.library, "register_kernel")

@torch.library.custom_op("cns::a", mutates_args=())
def a(x: torch.Tensor) -> torch.Tensor:
    return x.clone()

@a.register_fake
def _(x):
    return torch.empty_like(x)

@my_op("cns::b", mutates_args=())
def b(x: torch.Tensor) -> torch.Tensor:
    return x.clone()
b.register_fake(lambda x: torch.empty_like(x))
@b.register_kernel("cuda")
def _(x): return x
@cop("cns::c", mutates_args=())
@some_other_decorator
def c(x: torch.Tensor) -> torch.Tensor:
    return x
d = torch.library.custom_op("cns::d", d_impl, mutates_args=())
d.register_autograd(backward)
@impl("cns::e", "Meta")
def _e(x): return x
@limpl("cns::f", "Meta")
def _f(x): return x
getattr(torch.library, "register_fake")("cns::g")(lambda x: x)
kern("cns::h", "cpu")(lambda x: x)
not_a.register_fake
def impl(x): pass
def cop(name="cns::not_an_op", mutates_args=()): pass
)py";
  EXPECT_EQ(kernelsOf(scanOperatorFile("/p/custom.py", Text).Kernels),
            (std::vector<std::string>{
                "cns::a|CustomOp|torch.library.custom_op|7",
                "cns::b|CustomOp|torch.library.custom_op|15",
                "cns::b|Fake|custom_op.register_fake|18",
                "cns::b|CUDA|custom_op.register_kernel|19",
                "cns::c|CustomOp|torch.library.custom_op|21",
                "cns::d|CustomOp|torch.library.custom_op|25",
                "cns::d|Autograd|custom_op.register_autograd|26",
                "cns::e|Meta|torch.library.impl|27",
                "cns::f|Meta|torch.library.impl|29",
                "cns::g|Fake|torch.library.register_fake|31",
                "cns::h|CPU|torch.library.register_kernel|32",
                "cns::a|Fake|custom_op.register_fake|11",
            }));
}

TEST(ScanKernels, PythonLoopsGetattrConditionsAndUnnamed) {
  // deep-gemm's loop (the namespace made by a helper: any, "*"), an
  // f-string's namespace, getattr, a condition (kept), an else branch, a
  // helper's own body (resolved at its calls, not unnamed) and a fake whose
  // operator nobody can name here.
  const char *Text = R"py(import torch
for _op in [
    "gemm_nt",  # a comment
    "gemm_nn",
]:

    @torch.library.register_fake(add_op_namespace_prefix(_op))
    def _fake(*args, **kwargs):
        pass
for name in ("a", "b"):
    torch.library.register_fake(f"lp::{name}")(lambda x: None)
torch.library.register_fake(getattr(torch.ops.ga, "op"))(lambda x: None)
if enable_torch_compile:
    torch.library.register_fake("cd::op")(lambda x: None)
else:
    torch.library.register_fake("cd::other")(lambda x: None)
def helper(name):
    torch.library.register_fake(f"hp::{name}")(lambda x: None)
torch.library.register_fake(spec.name)(spec.fn)
)py";
  FileOperatorFacts F = scanOperatorFile("/p/fakes.py", Text);
  EXPECT_EQ(kernelsOf(F.Kernels),
            (std::vector<std::string>{
                "*::gemm_nt|Fake|torch.library.register_fake (in a loop over "
                "names)|7",
                "*::gemm_nn|Fake|torch.library.register_fake (in a loop over "
                "names)|7",
                "lp::a|Fake|torch.library.register_fake (in a loop over "
                "names)|11",
                "lp::b|Fake|torch.library.register_fake (in a loop over "
                "names)|11",
                "ga::op|Fake|torch.library.register_fake|12",
                "cd::op|Fake|torch.library.register_fake|14",
                "cd::other|Fake|torch.library.register_fake|16",
                "::|UnnamedFake|torch.library.register_fake|19",
            }));
  std::vector<std::string> Conditions;
  for (const DeclaredKernel &K : F.Kernels)
    Conditions.push_back(K.Site.Condition);
  EXPECT_EQ(Conditions,
            (std::vector<std::string>{
                "", "", "", "", "", "if enable_torch_compile:", "else:", ""}));
}

TEST(ScanKernels, PythonLoopOverANamedList) {
  // sglang's register_fake_ops: a helper of the file that registers
  // f"sgl_kernel::{op_name}", called in a loop over a list named above.
  const char *Text = R"py(import torch
def register_cpu_compile_fake(op_name: str):
    return torch.library.register_fake(f"sgl_kernel::{op_name}")
def register_fake_ops(tp_size: int):
    none_return_ops = [
        "fused_add_rmsnorm_cpu",
        "decode_attention_cpu",
    ]
    for op in none_return_ops:

        @register_cpu_compile_fake(op)
        def _(*args, **kwargs):
            return
)py";
  FileOperatorFacts F = scanOperatorFile("/p/runner.py", Text);
  EXPECT_TRUE(F.Kernels.empty());
  EXPECT_EQ(kernelsOf(F.WrapperCalls),
            (std::vector<std::string>{
                "*::fused_add_rmsnorm_cpu||register_cpu_compile_fake|11",
                "*::decode_attention_cpu||register_cpu_compile_fake|11"}));
}

TEST(ScanKernels, PythonFakeOfAHelpersName) {
  // kernel-builder projects: the namespace is made at build time by a
  // helper given the bare name.
  const char *Text = R"py(import torch
@register_fake(add_op_namespace_prefix("marlin_gemm"))
def _(x): return x
torch.library.register_fake(prefix(name))(f)
)py";
  EXPECT_EQ(kernelsOf(scanOperatorFile("/p/fakes.py", Text).Kernels),
            (std::vector<std::string>{
                "*::marlin_gemm|Fake|torch.library.register_fake|2",
                "::|UnnamedFake|torch.library.register_fake|4"}));
}

TEST(ScanKernels, PythonHelperCalledWithBareNames) {
  // A helper of the file called with a bare name and with a loop's
  // variable: wrapper calls of any namespace, by name.
  const char *Text = R"py(import torch
def _register(name):
    torch.library.register_fake(f"sp::{name}")(lambda a: None)
_register("one")
for n in ["two", "three"]:
    _register(n)
other("not_a_call_of_a_helper")
)py";
  FileOperatorFacts F = scanOperatorFile("/p/fakes.py", Text);
  EXPECT_TRUE(F.Kernels.empty());
  ASSERT_EQ(F.Wrappers.size(), 1u);
  EXPECT_EQ(
      kernelsOf(F.WrapperCalls),
      (std::vector<std::string>{"*::one||_register|4", "*::two||_register|6",
                                "*::three||_register|6"}));
}

class ProjectIndex : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> Dir;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tt-project-index", Dir));
    Root = std::string(Dir);
    Cache = Root + "-cache";
    write("setup.py", "");
    write("csrc/ops.cpp",
          "TORCH_LIBRARY(ext, m) { m.def(\"op(Tensor x) -> ()\"); }\n");
    write("csrc/kernels.cpp", "void k() {}\n");
    write("ext/ops.py", "import torch\ntorch.library.define(\"ext::py(Tensor "
                        "x) -> Tensor\")\n");
    write("build/gen.cpp",
          "TORCH_LIBRARY(ext, m) { m.def(\"built(Tensor x) -> ()\"); }\n");
    write(".hidden/x.cpp",
          "TORCH_LIBRARY(ext, m) { m.def(\"hidden(Tensor x) -> ()\"); }\n");
  }
  void TearDown() override {
    llvm::sys::fs::remove_directories(Root);
    llvm::sys::fs::remove_directories(Cache);
  }
  void write(llvm::StringRef Rel, llvm::StringRef Text) {
    llvm::SmallString<128> P(Root);
    llvm::sys::path::append(P, Rel);
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(P));
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC);
    ASSERT_FALSE(EC);
    OS << Text;
  }
  std::string path(llvm::StringRef Rel) {
    llvm::SmallString<128> P(Root);
    llvm::sys::path::append(P, Rel);
    return std::string(P);
  }
  std::string Root, Cache;
};

TEST_F(ProjectIndex, FindsRoot) {
  EXPECT_EQ(ProjectOperators::findRoot(path("csrc/kernels.cpp"), "auto"), Root);
  EXPECT_EQ(ProjectOperators::findRoot(path("csrc/kernels.cpp"), ""), Root);
  EXPECT_EQ(ProjectOperators::findRoot(path("csrc/kernels.cpp"), "none"),
            std::nullopt);
  EXPECT_EQ(ProjectOperators::findRoot(path("csrc/kernels.cpp"), path("ext")),
            path("ext"));
  EXPECT_EQ(
      ProjectOperators::findRoot(path("csrc/kernels.cpp"), path("no-such-dir")),
      std::nullopt);
  // A nested project (its own pyproject.toml) is its own root.
  write("sub/pyproject.toml", "");
  write("sub/a.cpp", "");
  EXPECT_EQ(ProjectOperators::findRoot(path("sub/a.cpp"), "auto"), path("sub"));
}

TEST_F(ProjectIndex, IndexesAndCaches) {
  auto First = ProjectOperators::build(Root, Cache);
  // setup.py, ops.cpp, kernels.cpp, ops.py; build/ and .hidden/ skipped.
  EXPECT_EQ(First->stats().Files, 4u);
  EXPECT_EQ(First->stats().Read, 4u);
  EXPECT_TRUE(First->stats().CacheWritten);
  ASSERT_EQ(First->find("ext", "op").size(), 1u);
  EXPECT_EQ(First->find("ext", "op")[0]->File, path("csrc/ops.cpp"));
  EXPECT_EQ(First->find("ext", "op")[0]->Line, 1u);
  EXPECT_EQ(First->find("ext", "py").size(), 1u);
  EXPECT_TRUE(First->find("ext", "built").empty());
  EXPECT_TRUE(First->find("ext", "hidden").empty());
  EXPECT_TRUE(First->find("other", "op").empty());

  // Unchanged: everything from the cache, nothing rewritten.
  auto Second = ProjectOperators::build(Root, Cache);
  EXPECT_EQ(Second->stats().Read, 0u);
  EXPECT_EQ(Second->stats().FromCache, 4u);
  EXPECT_FALSE(Second->stats().CacheWritten);
  EXPECT_EQ(Second->find("ext", "op").size(), 1u);
  EXPECT_EQ(Second->find("ext", "py").size(), 1u);

  // A changed file is read again; a new one is read; a removed one is gone.
  write("csrc/ops.cpp", "TORCH_LIBRARY(ext, m) {\n m.def(\"op2(Tensor x) -> "
                        "()\"); }\n");
  write("csrc/more.cu", "TORCH_LIBRARY_FRAGMENT(ext, m) { m.def(\"cu(Tensor "
                        "x) -> ()\"); }\n");
  llvm::sys::fs::remove(path("ext/ops.py"));
  auto Third = ProjectOperators::build(Root, Cache);
  EXPECT_EQ(Third->stats().Read, 2u);
  EXPECT_EQ(Third->stats().FromCache, 2u);
  EXPECT_TRUE(Third->find("ext", "op").empty());
  ASSERT_EQ(Third->find("ext", "op2").size(), 1u);
  EXPECT_EQ(Third->find("ext", "op2")[0]->Line, 2u);
  EXPECT_EQ(Third->find("ext", "cu").size(), 1u);
  EXPECT_TRUE(Third->find("ext", "py").empty());
}

TEST_F(ProjectIndex, FilesTheBuildCompilesAreReadWhereverTheyAre) {
  // The build compiles a generated source in build/, a vendored one under
  // third_party/ and one outside the root; the walk reads none of them.
  write("third_party/fa/api.cpp",
        "TORCH_LIBRARY(fa, m) { m.def(\"fwd(Tensor x) -> ()\"); }\n"
        "TORCH_LIBRARY_IMPL(fa, CUDA, m) { m.impl(\"fwd\", &fwd); }\n");
  write("third_party/fa/unbuilt.cpp",
        "TORCH_LIBRARY(fa, m) { m.def(\"unbuilt(Tensor x) -> ()\"); }\n");
  llvm::SmallString<128> Outside;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tt-outside", Outside));
  std::string Gen = std::string(Outside) + "/gen_lookup.cpp";
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Gen, EC);
    ASSERT_FALSE(EC);
    OS << "TORCH_LIBRARY_FRAGMENT(ext, m) {\n"
          "  m.def(\"lookup(Tensor(a!) x) -> ()\");\n}\n";
  }
  std::string List = Root + "-files.txt";
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(List, EC);
    ASSERT_FALSE(EC);
    // A relative line is not a path the build names: left out.
    OS << path("build/gen.cpp") << "\n"
       << path("third_party/fa/api.cpp") << "\n"
       << path("csrc/ops.cpp") << "\n"
       << Gen << "\n"
       << "relative/x.cpp\n"
       << path("no-such.cpp") << "\n";
  }
  std::vector<std::string> Files = ProjectOperators::readFileList(List);
  EXPECT_EQ(Files.size(), 5u);
  for (int Pass = 0; Pass < 2; ++Pass) {
    auto Index = ProjectOperators::build(Root, Cache, Files);
    // build/gen.cpp, third_party/fa/api.cpp and the outside file; ops.cpp
    // is the walk's already, the missing file is nothing.
    EXPECT_EQ(Index->stats().BuildFiles, 3u) << "pass " << Pass;
    EXPECT_EQ(Index->stats().Files, 7u) << "pass " << Pass;
    EXPECT_EQ(Index->stats().Read, Pass ? 0u : 7u) << "pass " << Pass;
    ASSERT_EQ(Index->find("ext", "built").size(), 1u);
    EXPECT_EQ(Index->find("ext", "built")[0]->File, path("build/gen.cpp"));
    ASSERT_EQ(Index->find("fa", "fwd").size(), 1u);
    EXPECT_EQ(Index->kernels("fa", "fwd").size(), 1u);
    EXPECT_TRUE(Index->find("fa", "unbuilt").empty());
    ASSERT_EQ(Index->find("ext", "lookup").size(), 1u);
    EXPECT_EQ(Index->find("ext", "lookup")[0]->File, Gen);
    EXPECT_EQ(Index->find("ext", "lookup")[0]->Line, 2u);
    EXPECT_EQ(Index->find("ext", "op").size(), 1u);
  }
  // Without the list, the walk's files alone (the cache drops the others).
  auto Alone = ProjectOperators::build(Root, Cache);
  EXPECT_EQ(Alone->stats().BuildFiles, 0u);
  EXPECT_TRUE(Alone->find("fa", "fwd").empty());
  EXPECT_TRUE(Alone->find("ext", "lookup").empty());
  EXPECT_TRUE(Alone->stats().CacheWritten);
  // load() takes the list's path ($TORCH_TIDY_PROJECT_FILES).
  auto Loaded = ProjectOperators::load(Root, Cache, "", List);
  EXPECT_EQ(Loaded->find("fa", "fwd").size(), 1u);
  EXPECT_TRUE(ProjectOperators::readFileList(Root + "-no-list").empty());
  llvm::sys::fs::remove(List);
  llvm::sys::fs::remove_directories(Outside);
}

TEST_F(ProjectIndex, BadCacheIsRebuilt) {
  ProjectOperators::build(Root, Cache);
  std::error_code EC;
  llvm::sys::fs::directory_iterator It(Cache, EC);
  ASSERT_FALSE(EC);
  ASSERT_NE(It, llvm::sys::fs::directory_iterator());
  {
    llvm::raw_fd_ostream OS(It->path(), EC);
    OS << "{ not json";
  }
  auto Again = ProjectOperators::build(Root, Cache);
  EXPECT_EQ(Again->stats().Read, 4u);
  EXPECT_EQ(Again->find("ext", "op").size(), 1u);
  // No cache directory at all: still indexed.
  auto NoCache = ProjectOperators::build(Root, "");
  EXPECT_EQ(NoCache->find("ext", "op").size(), 1u);
  EXPECT_FALSE(NoCache->stats().CacheWritten);
}

TEST_F(ProjectIndex, KernelsAcrossFilesAndTheCache) {
  write("csrc/dispatch.h",
        "#define DISPATCH_TO_META(name, fn) \\\n"
        "  m.impl(name, torch::dispatch(c10::DispatchKey::Meta, "
        "TORCH_FN(fn)))\n");
  write("csrc/meta.cpp", "#include \"dispatch.h\"\n"
                         "TORCH_LIBRARY_IMPL(ext, Meta, m) {\n"
                         "  DISPATCH_TO_META(\"op\", op_meta);\n}\n");
  write("ext/fakes.py", "import torch\n"
                        "@torch.library.register_fake(\"ext::op\")\n"
                        "def _(x): return None\n");
  for (int Pass = 0; Pass < 2; ++Pass) {
    auto Index = ProjectOperators::build(Root, Cache);
    EXPECT_EQ(Index->stats().FromCache, Pass ? Index->stats().Files : 0u);
    std::vector<std::string> Got;
    for (const DeclaredKernel *K : Index->kernels("ext", "op"))
      Got.push_back(K->Site.Key + "|" + K->Site.How + "|" +
                    llvm::sys::path::filename(K->Site.File).str() + ":" +
                    std::to_string(K->Site.Line));
    std::sort(Got.begin(), Got.end());
    EXPECT_EQ(Got, (std::vector<std::string>{
                       "Fake|torch.library.register_fake|fakes.py:2",
                       "Meta|DISPATCH_TO_META|meta.cpp:3"}))
        << "pass " << Pass;
  }
}

TEST_F(ProjectIndex, DecoratorsThatDefineOperatorsAfterTheFunction) {
  // torchao's _register_custom_op(lib): the helper in one file defines an
  // operator named after the function it decorates (a leading _ dropped);
  // its uses in another, bound to a name or called at the decorator. A
  // helper that keeps the name, and decorators that define nothing.
  write("ext/utils.py",
        "def _register_custom_op(lib, decomposed=True):\n"
        "    def decorator(fn):\n"
        "        op_name = fn.__name__\n"
        "        if op_name[0] == \"_\":\n"
        "            op_name = op_name[1:]\n"
        "        lib.define(op_name + infer_schema(fn, mutates_args={}))\n"
        "        lib.impl(op_name, fn, \"CompositeImplicitAutograd\")\n"
        "        return fn\n"
        "    return decorator\n"
        "def keep_name(lib):\n"
        "    def d(fn):\n"
        "        lib.define(fn.__name__ + \"(Tensor x) -> Tensor\")\n"
        "        return fn\n"
        "    return d\n"
        "def other(lib):\n"
        "    return lambda fn: fn\n");
  write("ext/prims.py",
        "import torch\n"
        "from ext.utils import _register_custom_op, keep_name, other\n"
        "qlib = torch.library.Library(\"qx\", \"FRAGMENT\")\n"
        "register = _register_custom_op(qlib)\n"
        "@register\n"
        "def _quantize(x: torch.Tensor) -> torch.Tensor:\n"
        "    return x\n"
        "@_register_custom_op(qlib, False)\n"
        "@torch.no_grad()\n"
        "def _dequantize(x: torch.Tensor) -> torch.Tensor:\n"
        "    return x\n"
        "@keep_name(qlib)\n"
        "def _kept(x): return x\n"
        "@other(qlib)\n"
        "def _not_an_op(x): return x\n"
        "@register_elsewhere\n"
        "def _nor_this(x): return x\n");
  for (int Pass = 0; Pass < 2; ++Pass) {
    auto Index = ProjectOperators::build(Root, Cache);
    std::vector<std::string> Got;
    for (const char *Op : {"quantize", "dequantize", "_kept", "not_an_op",
                           "_not_an_op", "nor_this", "_quantize"})
      for (const DeclaredKernel *K : Index->kernels("qx", Op))
        Got.push_back(K->Name + "|" + K->Site.Key + "|" + K->Site.How + "|" +
                      std::to_string(K->Site.Line));
    EXPECT_EQ(Got,
              (std::vector<std::string>{
                  "quantize|CustomOp|_register_custom_op: Library.define "
                  "(schema inferred)|5",
                  "dequantize|CustomOp|_register_custom_op: Library.define "
                  "(schema inferred)|8",
                  "_kept|CustomOp|keep_name: Library.define (schema "
                  "inferred)|12"}))
        << "pass " << Pass;
  }
}

TEST_F(ProjectIndex, TorchsRegistryGivesTheSites) {
  // Where torch's registry was read, an operator's registrations are its
  // (an unnamed fake of the index no longer counts), with the index's
  // marks beside them; a macro namespace finds the one operator of the
  // name; an operator the registry does not hold keeps the index's.
  write("csrc/meta.cpp", "TORCH_LIBRARY_IMPL(ext, Meta, m) {\n"
                         "  m.impl(\"op\", &op_meta);\n}\n");
  write("ext/fakes.py", "import torch\n"
                        "for s in specs():\n"
                        "    torch.library.register_fake(s.name)(s.f)\n"
                        "torch._dynamo.disallow_in_graph(torch.ops.ext.op)\n");
  write("registry.json",
        "{\"torch\": \"2.8.0\", \"operators\": {\"ext::op\": ["
        "{\"key\": \"CPU\", \"file\": \"/b/ops.cpp\", \"line\": 3, "
        "\"how\": \"read from torch's registry\"}]}}");
  write("bad.json", "{\"operators\": [");
  auto Index = ProjectOperators::build(Root, Cache);
  auto Keys = [](const std::vector<KernelSite> &Sites) {
    std::vector<std::string> Out;
    for (const KernelSite &S : Sites)
      Out.push_back(S.Key);
    std::sort(Out.begin(), Out.end());
    return Out;
  };
  std::string Main = path("csrc/ops.cpp");
  EXPECT_EQ(
      Keys(Index->projectSites("ext", "op", Main)),
      (std::vector<std::string>{"DisallowInGraph", "Meta", "UnnamedFake"}));
  EXPECT_EQ(Index->registrySites("ext", "op"), nullptr);
  EXPECT_FALSE(Index->readRegistry(path("registry.json")).has_value());
  EXPECT_EQ(Index->registryTorch(), "2.8.0");
  EXPECT_EQ(Keys(Index->projectSites("ext", "op", Main)),
            (std::vector<std::string>{"CPU", "DisallowInGraph"}));
  ASSERT_NE(Index->registrySites("TORCH_EXTENSION_NAME", "op"), nullptr);
  EXPECT_EQ(Index->registrySites("other", "op"), nullptr);
  EXPECT_EQ(Keys(Index->projectSites("ext", "absent", Main)),
            (std::vector<std::string>{"UnnamedFake"}));
  std::optional<std::string> Bad = Index->readRegistry(path("bad.json"));
  ASSERT_TRUE(Bad.has_value());
  EXPECT_NE(Bad->find("is not JSON"), std::string::npos) << *Bad;
  EXPECT_NE(Index->readRegistry(path("none.json"))->find("cannot read"),
            std::string::npos);
}

TEST_F(ProjectIndex, AliasesOfLibraryMacros) {
  // openequivariance: `#define REGISTER_LIBRARY TORCH_LIBRARY` in the .cpp
  // that includes a header whose file-scope blocks call the alias; the
  // registrations are read at their own lines. A function-like macro that
  // expands to a library head takes its block too; an alias that nothing
  // calls, and a block after a macro that is no alias, register nothing.
  write("ext/lib.cpp", "#define REGISTER_LIBRARY TORCH_LIBRARY\n"
                       "#define REGISTER_LIBRARY_IMPL TORCH_LIBRARY_IMPL\n"
                       "#define MY_LIB(ns) TORCH_LIBRARY_FRAGMENT(ns, m)\n"
                       "#define UNUSED_ALIAS TORCH_LIBRARY\n"
                       "#include \"core.hpp\"\n");
  write("ext/core.hpp",
        "REGISTER_LIBRARY(tp,\n"
        "                 m) {\n"
        "  m.def(\"f(Tensor x) -> Tensor\");\n"
        "  m.def(\"g(Tensor x) -> Tensor\", &g_impl);\n"
        "}\n"
        "REGISTER_LIBRARY_IMPL(tp, CUDA, m) { m.impl(\"f\", &f_cuda); }\n"
        "MY_LIB(tp) {\n  m.def(\"h(Tensor x) -> ()\");\n}\n"
        "NOT_AN_ALIAS(tp, m) { m.def(\"no(Tensor x) -> ()\"); }\n");
  for (int Pass = 0; Pass < 2; ++Pass) {
    auto Index = ProjectOperators::build(Root, Cache);
    std::vector<std::string> Got;
    for (const DeclaredSchema &D : Index->schemas())
      if (D.Namespace == "tp" || llvm::StringRef(D.Schema).contains("no("))
        Got.push_back(D.Namespace + "|" + D.Schema + "|" +
                      llvm::sys::path::filename(D.File).str() + ":" +
                      std::to_string(D.Line));
    for (const char *Op : {"f", "g"})
      for (const DeclaredKernel *K : Index->kernels("tp", Op))
        Got.push_back(K->Name + "|" + K->Site.Key + "|" + K->Site.How + "|" +
                      std::to_string(K->Site.Line) + "|" + K->Function);
    EXPECT_EQ(Got, (std::vector<std::string>{
                       "tp|f(Tensor x) -> Tensor|core.hpp:3",
                       "tp|g(Tensor x) -> Tensor|core.hpp:4",
                       "tp|h(Tensor x) -> ()|core.hpp:8",
                       "f|CUDA|REGISTER_LIBRARY_IMPL|6|f_cuda",
                       "g|CompositeImplicitAutograd|REGISTER_LIBRARY: "
                       "m.def|4|g_impl"}))
        << "pass " << Pass;
  }
}

TEST_F(ProjectIndex, MacroRegistrationsAreExpanded) {
  // A library's own macro, defined in a header, registers the schema and
  // the kernels of each operator it is called with: CPU in the library
  // block, Meta in an impl block, a nested macro, and a call that names
  // no registering macro.
  write("csrc/registration.h",
        "#pragma once\n"
        "#define DEFINE_OP(name, schema) \\\n"
        "  m.def(#name schema);          \\\n"
        "  m.impl(#name, torch::dispatch(c10::DispatchKey::CPU, "
        "TORCH_FN(name##_cpu)))\n"
        "#define META_OP(name) m.impl(#name, &ops::name##_meta)\n"
        "#define TWICE(a, b) META_OP(a); META_OP(b)\n"
        "#define NOT_REGISTERING(x) (x)\n"
        "#define REG(name) m.def(#name, &name)\n");
  write("csrc/ops.cpp",
        "#include \"registration.h\"\n"
        "TORCH_LIBRARY(ext, m) {\n"
        "  DEFINE_OP(gather, \"(Tensor x) -> Tensor\");\n"
        "  DEFINE_OP(scatter, \"(Tensor(a!) x, Tensor y) -> ()\");\n"
        "  m.def(\"plain(Tensor x) -> Tensor\", &plain);\n"
        "  REG(solo);\n"
        "}\n"
        "TORCH_LIBRARY_IMPL(ext, Meta, m) {\n"
        "  META_OP(gather);\n"
        "  TWICE(scatter, plain);\n"
        "  NOT_REGISTERING(1);\n"
        "}\n");
  for (int Pass = 0; Pass < 2; ++Pass) { // read, then from the cache
    auto Index = ProjectOperators::build(Root, Cache);
    std::vector<std::string> Schemas;
    for (const DeclaredSchema &D : Index->schemas())
      if (llvm::StringRef(D.File).ends_with(".cpp"))
        Schemas.push_back(D.Schema + "|" +
                          llvm::sys::path::filename(D.File).str() + ":" +
                          std::to_string(D.Line));
    std::sort(Schemas.begin(), Schemas.end());
    EXPECT_EQ(Schemas, (std::vector<std::string>{
                           "gather(Tensor x) -> Tensor|ops.cpp:3",
                           "plain(Tensor x) -> Tensor|ops.cpp:5",
                           "scatter(Tensor(a!) x, Tensor y) -> ()|ops.cpp:4"}))
        << "pass " << Pass;
    std::vector<std::string> Got;
    for (const DeclaredKernel &K : Index->allKernels())
      Got.push_back(K.Namespace + "::" + K.Name + "|" + K.Site.Key + "|" +
                    K.Site.How + "|" + K.Function + "|" +
                    std::to_string(K.Site.Line));
    std::sort(Got.begin(), Got.end());
    EXPECT_EQ(Got,
              (std::vector<std::string>{
                  "ext::gather|CPU|DEFINE_OP|gather_cpu|3",
                  "ext::gather|Meta|META_OP|ops::gather_meta|9",
                  "ext::plain|CompositeImplicitAutograd|m.def|plain|5",
                  "ext::plain|Meta|META_OP|ops::plain_meta|10",
                  "ext::scatter|CPU|DEFINE_OP|scatter_cpu|4",
                  "ext::scatter|Meta|META_OP|ops::scatter_meta|10",
                  "ext::solo|CompositeImplicitAutograd|REG: m.def|solo|6"}))
        << "pass " << Pass;
    EXPECT_EQ(Index->stats().FromMacros, 8u) << "pass " << Pass;
    EXPECT_EQ(Index->find("ext", "gather").size(), 1u);
  }
}

TEST_F(ProjectIndex, FileScopeMacroCallsAreExpanded) {
  // FBGEMM's FBGEMM_OP_DISPATCH(KEY, "name", fn): a whole impl block per
  // call, at file scope or in a namespace, in a file that names no
  // TORCH_LIBRARY itself. A call inside a function is not at file scope.
  write("include/ops_utils.h",
        "#define OP_DISPATCH(KEY, NAME, FN)                 \\\n"
        "  TORCH_LIBRARY_IMPL(ext, KEY, m) {                \\\n"
        "    m.impl(NAME, torch::dispatch(c10::DispatchKey::KEY, "
        "TORCH_FN(FN))); \\\n"
        "  }\n");
  write("src/quantize_gpu.cpp",
        "#include \"ops_utils.h\"\n"
        "namespace ext {\n"
        "at::Tensor q_cuda(const at::Tensor &x);\n"
        "}\n"
        "OP_DISPATCH(CUDA, \"quantize\", ext::q_cuda);\n"
        "namespace ext {\n"
        "OP_DISPATCH(\n"
        "    Meta,\n"
        "    \"quantize\",\n"
        "    q_meta);\n"
        "void f() { OP_DISPATCH(CPU, \"not_here\", g); }\n"
        "} // namespace ext\n");
  for (int Pass = 0; Pass < 2; ++Pass) {
    auto Index = ProjectOperators::build(Root, Cache);
    std::vector<std::string> Got;
    for (const DeclaredKernel &K : Index->allKernels())
      if (K.Namespace == "ext")
        Got.push_back(K.Name + "|" + K.Site.Key + "|" + K.Site.How + "|" +
                      K.Function + "|" +
                      llvm::sys::path::filename(K.Site.File).str() + ":" +
                      std::to_string(K.Site.Line));
    std::sort(Got.begin(), Got.end());
    EXPECT_EQ(Got, (std::vector<std::string>{
                       "quantize|CUDA|OP_DISPATCH|ext::q_cuda|"
                       "quantize_gpu.cpp:5",
                       "quantize|Meta|OP_DISPATCH|q_meta|quantize_gpu.cpp:7"}))
        << "pass " << Pass;
  }
}

TEST_F(ProjectIndex, SyclSourcesAreRead) {
  // An XPU library keeps its kernels and their registration in .sycl
  // sources, which its build compiles.
  write("csrc/xpu/op.sycl", "#include <sycl/sycl.hpp>\n"
                            "at::Tensor op_xpu(const at::Tensor &x);\n"
                            "TORCH_LIBRARY_IMPL(ext, XPU, m) {\n"
                            "  m.impl(\"op\", &op_xpu);\n}\n");
  auto Index = ProjectOperators::build(Root, Cache);
  std::vector<std::string> Got;
  for (const DeclaredKernel *K : Index->kernels("ext", "op"))
    Got.push_back(K->Site.Key + "|" +
                  llvm::sys::path::filename(K->Site.File).str() + ":" +
                  std::to_string(K->Site.Line));
  EXPECT_EQ(Got, (std::vector<std::string>{"XPU|op.sycl:4"}));
}

TEST_F(ProjectIndex, PythonFakeWrappers) {
  // torchao's spelling: a decorator of the project's own that calls
  // register_fake with the name it is given; flashinfer's identity
  // decorator registers nothing.
  write("ext/utils.py",
        "import torch\n"
        "def register_custom_op(name):\n"
        "    def decorator(func):\n"
        "        # the fake\n"
        "        return torch.library.register_fake(f\"{name}\")(func)\n"
        "    return decorator\n"
        "def register_fake_op(name):\n"
        "    def decorator(func):\n"
        "        return func\n"
        "    return decorator\n");
  write("ext/ops2.py",
        "from ext.utils import register_custom_op, register_fake_op\n"
        "@register_custom_op(\"ext::wrapped\")\n"
        "def _(x): return x\n"
        "@register_fake_op(\"ext::identity\")\n"
        "def _(x): return x\n");
  auto Index = ProjectOperators::build(Root, "");
  std::vector<const DeclaredKernel *> Wrapped =
      Index->kernels("ext", "wrapped");
  ASSERT_EQ(Wrapped.size(), 1u);
  EXPECT_EQ(Wrapped[0]->Site.Key, "Fake");
  EXPECT_EQ(Wrapped[0]->Site.How, "register_custom_op");
  EXPECT_EQ(Wrapped[0]->Site.Line, 2u);
  EXPECT_TRUE(Index->kernels("ext", "identity").empty());
}

TEST_F(ProjectIndex, PythonFakeAliases) {
  // A name bound to register_fake or impl_abstract (by torch version, or
  // whichever exists) registers fakes where it is called; a name bound to
  // something else, or to one call's result, does not make an alias.
  write("ext/compat.py",
        "import torch\n"
        "if torch.__version__ >= '2.4':\n"
        "    fake = torch.library.register_fake\n"
        "else:\n"
        "    fake = torch.library.impl_abstract\n"
        "old_or_new = torch.library.impl_abstract if OLD else "
        "torch.library.register_fake  # either\n"
        "_fake = getattr(torch.library, 'register_fake', None) or "
        "torch.library.impl_abstract\n"
        "fake_tensor = torch.empty(2)\n"
        "one = torch.library.register_fake('ext::one')\n");
  write("ext/imported.py",
        "from torch.library import register_fake as reg, impl as meta\n"
        "@reg(\"ext::imported\")\n"
        "def _(x): return x\n"
        "meta('ext::not_imported_as_fake')\n");
  write("ext/ops.py", "from ext.compat import fake, old_or_new, _fake, "
                      "fake_tensor\n"
                      "@fake(\"ext::aliased\")\n"
                      "def _(x): return x\n"
                      "old_or_new('ext::conditional')(lambda x: x)\n"
                      "@_fake('ext::either')\n"
                      "def _(x): return x\n"
                      "fake_tensor('ext::not_a_fake')\n");
  auto Index = ProjectOperators::build(Root, "");
  for (const char *Op : {"aliased", "conditional", "either"}) {
    std::vector<const DeclaredKernel *> K = Index->kernels("ext", Op);
    ASSERT_EQ(K.size(), 1u) << Op;
    EXPECT_EQ(K[0]->Site.Key, "Fake") << Op;
    EXPECT_EQ(llvm::sys::path::filename(K[0]->Site.File), "ops.py") << Op;
  }
  EXPECT_EQ(Index->kernels("ext", "aliased")[0]->Site.How, "fake");
  EXPECT_EQ(Index->kernels("ext", "aliased")[0]->Site.Line, 2u);
  EXPECT_TRUE(Index->kernels("ext", "not_a_fake").empty());
  // Imported under another name.
  ASSERT_EQ(Index->kernels("ext", "imported").size(), 1u);
  EXPECT_EQ(Index->kernels("ext", "imported")[0]->Site.Key, "Fake");
  EXPECT_EQ(Index->kernels("ext", "imported")[0]->Site.How, "reg");
  EXPECT_TRUE(Index->kernels("ext", "not_imported_as_fake").empty());
  // The call's result bound to a name is the fake of ext::one itself.
  ASSERT_EQ(Index->kernels("ext", "one").size(), 1u);
  EXPECT_EQ(Index->kernels("ext", "one")[0]->Site.How,
            "torch.library.register_fake");
}

TEST_F(ProjectIndex, LibraryFunctionsBoundInAnotherModule) {
  // bitsandbytes: `register_kernel = torch.library.register_kernel` in its
  // _ops.py, imported by each backend's module; DGL: a fake decorator
  // chosen by torch version over several lines; `from torch.library import
  // impl` used bare.
  write("pkg/_ops.py", "import torch\n"
                       "register_kernel = torch.library.register_kernel\n"
                       "@register_kernel(\"pkg::own\", \"default\")\n"
                       "def _(x): return x\n");
  write("pkg/backends/cpu.py",
        "from ..._ops import register_kernel\n"
        "@register_kernel(\"pkg::gemv\", \"cpu\")\n"
        "def _(x): return x\n"
        "register_kernel(\"pkg::update\", (\"cpu\", \"cuda\"))(f)\n"
        "register_kernel(\"pkg::anywhere\")(f)\n");
  write("pkg/base.py", "import torch\n"
                       "if NEW:\n"
                       "    torch_fake_decorator = (\n"
                       "        torch.library.impl_abstract\n"
                       "        if OLD\n"
                       "        else torch.library.register_fake\n"
                       "    )\n"
                       "    @torch_fake_decorator(\"pkg::expand\")\n"
                       "    def _(x): return x\n");
  write("pkg/meta.py", "from torch.library import impl\n"
                       "@impl(\"pkg::gemv\", \"Meta\")\n"
                       "def _(x): return x\n");
  // A function of the project's own named register_kernel, in a project
  // that binds no such name, registers nothing.
  write("other/x.py", "def impl(name, key): pass\n"
                      "impl(\"other::op\", \"cpu\")\n");
  auto Index = ProjectOperators::build(Root, "");
  auto KeysOf = [&](const char *Ns, const char *Op) {
    std::vector<std::string> Out;
    for (const DeclaredKernel *K : Index->kernels(Ns, Op))
      Out.push_back(K->Site.Key + "|" + K->Site.How + "|" +
                    llvm::sys::path::filename(K->Site.File).str() + ":" +
                    std::to_string(K->Site.Line));
    std::sort(Out.begin(), Out.end());
    return Out;
  };
  EXPECT_EQ(KeysOf("pkg", "own"),
            std::vector<std::string>{
                "CompositeExplicitAutograd|torch.library.register_kernel|"
                "_ops.py:3"});
  EXPECT_EQ(KeysOf("pkg", "gemv"),
            (std::vector<std::string>{
                "CPU|torch.library.register_kernel (imported)|cpu.py:2",
                "Meta|torch.library.impl|meta.py:2"}));
  EXPECT_EQ(KeysOf("pkg", "update"),
            (std::vector<std::string>{
                "CPU|torch.library.register_kernel (imported)|cpu.py:4",
                "CUDA|torch.library.register_kernel (imported)|cpu.py:4"}));
  EXPECT_EQ(KeysOf("pkg", "anywhere"),
            std::vector<std::string>{
                "CompositeExplicitAutograd|torch.library.register_kernel "
                "(imported)|cpu.py:5"});
  EXPECT_EQ(KeysOf("pkg", "expand"),
            std::vector<std::string>{"Fake|torch_fake_decorator|base.py:8"});
  EXPECT_TRUE(Index->kernels("other", "op").empty());
}

TEST_F(ProjectIndex, CustomClassMethodsAreNotOperators) {
  // TorchScript custom classes register methods with .def on class_<T>:
  // not operators (eight classes' `wait` were once one "operator").
  write("csrc/classes.cpp",
        "TORCH_LIBRARY(cc, m) {\n"
        "  m.class_<Work>(\"Work\")\n"
        "      .def(torch::init<int64_t>())\n"
        "      .def(\"wait\", &Work::wait)\n"
        "      .def(\"result\", [](const c10::intrusive_ptr<Work> &w) {\n"
        "        return w->result(); });\n"
        "  auto other = m.class_<Other>(\"Other\");\n"
        "  other.def(\"wait\", &Other::wait);\n"
        "  m.def(\"run(Tensor x) -> Tensor\", &run);\n"
        "}\n");
  auto Index = ProjectOperators::build(Root, "");
  EXPECT_TRUE(Index->kernels("cc", "wait").empty());
  EXPECT_TRUE(Index->kernels("cc", "result").empty());
  EXPECT_EQ(Index->find("cc", "run").size(), 1u);
  EXPECT_EQ(Index->kernels("cc", "run").size(), 1u);
  // Listed apart, as "Class.method", with the function each names.
  std::vector<std::string> Methods;
  for (const DeclaredKernel &K : Index->allKernels())
    if (K.Site.Key == CustomClassMethodKey)
      Methods.push_back(K.Namespace + "::" + K.Name + "|" + K.Function + "|" +
                        std::to_string(K.Site.Line));
  EXPECT_EQ(Methods, (std::vector<std::string>{
                         "cc::Work.__init__||3",
                         "cc::Work.wait|Work::wait|4",
                         "cc::Work.result||5",
                         "cc::Other.wait|Other::wait|8",
                     }));
}

TEST_F(ProjectIndex, MacroNamespaceMatchesByName) {
  write("csrc/macro.cpp", "TORCH_LIBRARY(TORCH_EXTENSION_NAME, m) { "
                          "m.def(\"viamacro(Tensor x) -> ()\"); }\n");
  auto Index = ProjectOperators::build(Root, "");
  EXPECT_EQ(Index->find("my_ext", "viamacro").size(), 1u);
  EXPECT_TRUE(Index->find("my_ext", "op").empty()); // a lower-case namespace
}

} // namespace

// Issue 80: the dispatch layer between a registered function and the
// kernel that writes. A stub call's arguments map to the caller's
// parameters (a temporary to none); a call in a lambda or an `if` belongs
// to the enclosing function; a member call or a call whose first argument
// is no device type is not a stub call.
TEST(ScanOperatorFile, DispatchStubCallsAndKernels) {
  FileOperatorFacts F = scanOperatorFile("/p/ops.cpp", R"cpp(
at::Tensor shrink_cpu(at::Tensor &out, const at::Tensor &in,
                      double scale = 1.0) {
  if (out.defined()) {
    auto run = [&]() { shrink_stub(kCPU, out, in, scale); };
    run();
  }
  at::Tensor tmp = in.clone();
  other_stub(c10::DeviceType::CUDA, tmp, out);
  x.to(kCPU, out);
  plain(out, in);
  return out;
}
void by_type(at::Tensor a) { any_stub(a.device().type(), a); }
REGISTER_DISPATCH(shrink_stub, &shrink_kernel);
IPEX_REGISTER_DISPATCH(
    other_stub,
    &ns::other_kernel);
REGISTER_CUDA_DISPATCH(other_stub, &other_cuda);
REGISTER_ARCH_DISPATCH(any_stub, DEFAULT, &any_kernel);
IPEX_OP_REGISTER_DISPATCH("op", fn, c10::DispatchKey::CPU);
#define MY_REGISTER_DISPATCH(name, fn) REGISTER_DISPATCH(name, fn)
)cpp");
  ASSERT_EQ(F.StubCalls.size(), 3u);
  EXPECT_EQ(F.StubCalls[0].Stub, "shrink_stub");
  EXPECT_EQ(F.StubCalls[0].Caller, "shrink_cpu");
  EXPECT_EQ(F.StubCalls[0].ArgParams, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(F.StubCalls[0].CallerParams,
            (std::vector<std::string>{"out", "in", "scale"}));
  EXPECT_EQ(F.StubCalls[0].Device, "CPU");
  EXPECT_EQ(F.StubCalls[0].Line, 5u);
  EXPECT_EQ(F.StubCalls[1].Stub, "other_stub");
  EXPECT_EQ(F.StubCalls[1].ArgParams, (std::vector<int>{-1, 0}));
  EXPECT_EQ(F.StubCalls[1].Device, "CUDA");
  EXPECT_EQ(F.StubCalls[2].Caller, "by_type");
  EXPECT_EQ(F.StubCalls[2].Device, "");
  ASSERT_EQ(F.StubKernels.size(), 4u);
  EXPECT_EQ(F.StubKernels[0].Stub, "shrink_stub");
  EXPECT_EQ(F.StubKernels[0].Function, "shrink_kernel");
  EXPECT_EQ(F.StubKernels[0].Device, "CPU");
  EXPECT_EQ(F.StubKernels[1].Function, "ns::other_kernel");
  EXPECT_EQ(F.StubKernels[1].Line, 16u);
  EXPECT_EQ(F.StubKernels[2].Device, "CUDA");
  EXPECT_EQ(F.StubKernels[3].Stub, "any_stub");
  EXPECT_EQ(F.StubKernels[3].Function, "any_kernel");
}

// A helper whose body infers a schema from a function's signature, and the
// calls in library blocks that define an operator through it.
TEST(ScanOperatorFile, SchemaInferringHelpers) {
  FileOperatorFacts F = scanOperatorFile("/p/reg.h", R"cpp(
template <typename Func>
void construct_function_schema_and_register(const char *name, Func &&func,
                                            torch::Library &m) {
  auto s = c10::detail::inferFunctionSchemaFromFunctor<std::decay_t<Func>>();
  m.def(std::move(*s));
}
TORCH_LIBRARY_FRAGMENT(torch_ipex, m) {
  ns::construct_function_schema_and_register("torch_ipex::" "shrink",
                                             ns::shrink_cpu, m);
  m.impl("shrink", c10::DispatchKey::CPU, ns::shrink_cpu);
}
)cpp");
  EXPECT_EQ(F.InferringHelpers, (std::vector<std::string>{
                                    "construct_function_schema_and_register"}));
  ASSERT_EQ(F.HelperDefs.size(), 1u);
  EXPECT_EQ(F.HelperDefs[0].Namespace, "torch_ipex");
  EXPECT_EQ(F.HelperDefs[0].Name, "shrink");
  EXPECT_EQ(F.HelperDefs[0].Function, "ns::shrink_cpu");
  EXPECT_EQ(F.HelperDefs[0].Site.How, "construct_function_schema_and_register");
}

TEST(ScanOperatorFile, PybindDefsAndCustomOpCalls) {
  FileOperatorFacts Cxx = scanOperatorFile(
      "ext.cpp", "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
                 "  m.def(\"fill\", &ns::fill_rows, \"doc\");\n"
                 "  m.def(\"plain\", plain);\n"
                 "  m.def(\"lambda\", [](int x) { return x; });\n"
                 "  m.def(\"cast\", py::overload_cast<int>(&f));\n"
                 "}\n");
  ASSERT_EQ(Cxx.PybindDefs.size(), 2u);
  EXPECT_EQ(Cxx.PybindDefs[0].Name, "fill");
  EXPECT_EQ(Cxx.PybindDefs[0].Function, "ns::fill_rows");
  EXPECT_EQ(Cxx.PybindDefs[0].Site.Line, 2u);
  EXPECT_EQ(Cxx.PybindDefs[1].Function, "plain");
  FileOperatorFacts Py = scanOperatorFile(
      "ops.py", "import torch\n"
                "import pkg._C as ext\n"
                "from pkg import _C\n"
                "@torch.library.custom_op('pw::f', mutates_args=('a',))\n"
                "def f(a: torch.Tensor, b: torch.Tensor, n: int) -> None:\n"
                "    t = torch.empty_like(a)\n"
                "    _C.fill(a, b, t, b.contiguous(), n=n)\n"
                "    ext.plain(b)\n"
                "    torch.sum(a)\n"
                "def g(a):\n"
                "    _C.fill(a)\n");
  ASSERT_EQ(Py.PybindCalls.size(), 2u);
  const DeclaredKernel *Fill = &Py.PybindCalls[0], *Plain = &Py.PybindCalls[1];
  if (Fill->Function != "_C.fill")
    std::swap(Fill, Plain);
  EXPECT_EQ(Fill->Namespace, "pw");
  EXPECT_EQ(Fill->Name, "f");
  EXPECT_EQ(Fill->Function, "_C.fill");
  EXPECT_EQ(Fill->Site.Line, 7u);
  // a listed, b a parameter not listed, t the body's own, an expression and
  // a keyword argument not read.
  EXPECT_EQ(Fill->Site.Declares, "10l??");
  EXPECT_EQ(Plain->Function, "_C.plain");
  EXPECT_EQ(Plain->Site.Declares, "0");
  // custom_op under a name bound to it (flash-attn's wrapper, chosen by
  // torch version).
  FileOperatorFacts Aliased = scanOperatorFile(
      "fa.py", "import torch\n"
               "import flash_attn_2_cuda as flash_attn_gpu\n"
               "if NEW:\n"
               "    _torch_custom_op_wrapper = torch.library.custom_op\n"
               "@_torch_custom_op_wrapper(\"fa::fwd\", mutates_args=(),\n"
               "                          device_types=\"cuda\")\n"
               "def _fwd(q: torch.Tensor, out: torch.Tensor) -> None:\n"
               "    flash_attn_gpu.fwd(q, out)\n");
  ASSERT_EQ(Aliased.PybindCalls.size(), 1u);
  EXPECT_EQ(Aliased.PybindCalls[0].Namespace, "fa");
  EXPECT_EQ(Aliased.PybindCalls[0].Name, "fwd");
  EXPECT_EQ(Aliased.PybindCalls[0].Function, "flash_attn_2_cuda.fwd");
  EXPECT_EQ(Aliased.PybindCalls[0].Site.Declares, "00");
}

TEST_F(ProjectIndex, PybindCallersAreCallsOfTheExtension) {
  // A custom op's call of the project's own Python wrapper (grouped_gemm's
  // `from grouped_gemm import backend; backend.gmm(a, b, sizes)`, whose gmm
  // has parameters of its own) is not a call of the bound C++ gmm.
  write("csrc/ops.cpp", "void gmm(at::Tensor a, at::Tensor b, at::Tensor c) "
                        "{}\n"
                        "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
                        "  m.def(\"gmm\", &gmm);\n"
                        "}\n");
  write("pkg/backend.py", "import gg_backend\n"
                          "def gmm(a, b, sizes):\n"
                          "    return gg_backend.gmm(a, b, sizes)\n");
  write("pkg/ops.py",
        "import torch\n"
        "from pkg import backend\n"
        "import gg_backend as ext\n"
        "@torch.library.custom_op('gg::gmm', mutates_args=())\n"
        "def gmm(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> None:\n"
        "    backend.gmm(a, b, c)\n"
        "    ext.gmm(a, b, c)\n");
  auto Index = ProjectOperators::build(Root, "");
  std::vector<const DeclaredKernel *> Callers = Index->pybindCallers("gmm");
  ASSERT_EQ(Callers.size(), 1u);
  EXPECT_EQ(Callers[0]->Function, "gg_backend.gmm");
  EXPECT_EQ(Callers[0]->Site.Line, 7u);
  EXPECT_EQ(Callers[0]->Site.Declares, "000");
  // A module whose name PYBIND11_MODULE writes binds for calls of that
  // module only (apex's modules each bind "forward").
  write("csrc/other.cpp", "void other_gmm(at::Tensor a) {}\n"
                          "PYBIND11_MODULE(other_ext, m) {\n"
                          "  m.def(\"gmm\", &other_gmm);\n"
                          "}\n");
  Index = ProjectOperators::build(Root, "");
  EXPECT_TRUE(Index->pybindCallers("other_gmm").empty());
  EXPECT_EQ(Index->pybindCallers("gmm").size(), 1u);
}

TEST(Consequence, ClassesFollowTheMeasuredRows) {
  auto Of = [](std::vector<std::string> Keys, bool Raw = true) {
    std::vector<KernelSite> Sites;
    for (const std::string &K : Keys)
      Sites.push_back(KernelSite{K, "", "", 0});
    return consequenceName(consequenceOf(Sites, Raw)).str();
  };
  // A catch-all kernel decides, whatever is beside it (rows
  // catchall_raw_cuda, catchall_raw_device, catchall_raw_meta,
  // catchall_raw_fake, catchall_aten_device).
  EXPECT_EQ(Of({"CompositeImplicitAutograd", "CUDA"}), "loud");
  EXPECT_EQ(Of({"CompositeImplicitAutograd", "Meta"}), "loud");
  EXPECT_EQ(Of({"CompositeImplicitAutograd", "Fake"}), "loud");
  EXPECT_EQ(Of({"CompositeImplicitAutograd", "CPU"}, false), "traced");
  EXPECT_EQ(Of({"CPU", "Fake"}), "silent");
  EXPECT_EQ(Of({"CPU", "CUDA"}), "graph-break");
  // A fake nobody could name: unknown, unless a named fake decides.
  EXPECT_EQ(Of({"CPU", UnnamedFakeKey.str()}), "unknown");
  EXPECT_EQ(Of({"CPU", UnnamedFakeKey.str(), "Meta"}), "silent");
  // A Python registration whose key was not read may be the fake; one
  // whose key is computed from a known prefix (Autocast{...}) is not.
  EXPECT_EQ(Of({"CPU", NotReadKey.str()}), "unknown");
  EXPECT_EQ(Of({"CPU", NotReadKey.str(), "Fake"}), "silent");
  EXPECT_EQ(Of({"CPU", "Autocast{device_type.upper()}"}), "graph-break");
}

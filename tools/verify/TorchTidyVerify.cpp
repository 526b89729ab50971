//===- TorchTidyVerify.cpp - Verify the fixes of an export-fixes file -----===//
//
// torch-tidy-verify FIXES.yaml [--json] [--instances N] [--device D]
//
// Reads the YAML that `clang-tidy --export-fixes` writes and, for every fix
// of a torch-tidy check, reports whether it is verified: the diagnostic names
// its rule (`rule: <id>` note), the rule has a verifier, every replacement
// has the rule's form, and the rule's random instances are all proven on the
// reference runtime (lib/verify) on each device. The user's code is never
// compiled or run: a rule is proven on the runtime's own instances.
//
// Exit status: 0 when every torch-tidy fix is verified (or there is none),
// 1 when any is not, 2 when the input cannot be read or parsed, or on a bad
// option.
//
//===----------------------------------------------------------------------===//

#include "TorchTidyVerify.h"

#include "ExportFixes.h"

#include "torch_tidy/rules/RuleForms.h"
#include "torch_tidy/runtime/backend.h"
#include "torch_tidy/verify/RuleVerifier.h"

#include "clang/Tooling/Core/Diagnostic.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace llvm;
namespace tooling = clang::tooling;

namespace torch_tidy::verify {
namespace {

cl::OptionCategory Category("torch-tidy-verify options");
cl::opt<std::string> InputPath(cl::Positional, cl::desc("<FIXES.yaml>"),
                               cl::Required, cl::cat(Category));
cl::opt<bool> Json("json", cl::desc("Print one JSON object instead of text"),
                   cl::cat(Category));
cl::opt<unsigned> Instances(
    "instances",
    cl::desc("Random instances of each rule, per device (default 1000)"),
    cl::init(1000), cl::cat(Category));
cl::opt<std::string>
    DeviceOpt("device",
              cl::desc("auto (CPU, and CUDA where a device is present), cpu "
                       "or cuda"),
              cl::init("auto"), cl::cat(Category));
cl::opt<unsigned long long> Seed("seed", cl::desc("Seed of the instances"),
                                 cl::init(20261122), cl::cat(Category));

/// Whether R deletes exactly one declaration of a single name
/// (`auto col = buf.t()[2];`, its indentation and line break included), as
/// a fix that writes through a named view removes that view: the
/// named-view-declaration part of RewriteRules.def.
bool isNamedViewRemoval(const tooling::Replacement &R) {
  if (!R.getReplacementText().empty() || R.getLength() == 0)
    return false;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getFile(R.getFilePath());
  if (!Buf || R.getOffset() + R.getLength() > (*Buf)->getBufferSize())
    return false;
  return rules::is_named_view_declaration(
      (*Buf)->getBuffer().substr(R.getOffset(), R.getLength()));
}

/// Whether the file before Offset declares Name (`auto`, `at::Tensor` or
/// `torch::Tensor`, possibly a reference) as `Name = Init;`.
bool declaresBefore(StringRef Before, StringRef Name, StringRef Init) {
  std::string Tail = (Name + " = " + Init + ";").str();
  for (size_t At = Before.find(Tail); At != StringRef::npos;
       At = Before.find(Tail, At + 1)) {
    if (At > 0 && (isAlnum(Before[At - 1]) || Before[At - 1] == '_'))
      continue;
    StringRef Type = Before.substr(0, At).rtrim(" \t&").rtrim(" \t");
    if (Type.ends_with("auto") || Type.ends_with("at::Tensor") ||
        Type.ends_with("torch::Tensor"))
      return true;
  }
  return false;
}

/// Whether R inserts, after a rewritten write, statements that bind named
/// views again (`\n  plane = out.select(2, 1);`): lines of the
/// named-view-rebind part of RewriteRules.def, each `NAME = INIT;` where the
/// file declares `auto NAME = INIT;` (or at::Tensor, torch::Tensor) before R
/// with the same INIT: the view re-taken of the rewritten target, whose
/// values the rule's proof covers whole.
bool isNamedViewRebind(const tooling::Replacement &R) {
  StringRef Text = R.getReplacementText();
  if (R.getLength() != 0 || !Text.starts_with("\n"))
    return false;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getFile(R.getFilePath());
  if (!Buf || R.getOffset() > (*Buf)->getBufferSize())
    return false;
  StringRef Before = (*Buf)->getBuffer().substr(0, R.getOffset());
  while (!Text.empty()) {
    size_t Next = Text.find('\n', 1);
    std::string Name, Init;
    if (!rules::is_named_view_rebind_line(Text.substr(0, Next), &Name, &Init) ||
        !declaresBefore(Before, Name, Init))
      return false;
    Text = Next == StringRef::npos ? StringRef() : Text.substr(Next);
  }
  return true;
}

struct Fix {
  std::string Check, File, Rule;
  unsigned Offset = 0;
  std::vector<tooling::Replacement> Replacements;
  bool Verified = false;
  std::string Reason;
  std::vector<RuleReport> Runs;
};

void collect(const tooling::DiagnosticMessage &Message,
             std::vector<tooling::Replacement> &Out) {
  for (const auto &Entry : Message.Fix)
    for (const tooling::Replacement &R : Entry.second)
      Out.push_back(R);
}

std::string deviceList(const std::vector<rt::Device> &Devices) {
  std::string S;
  for (rt::Device D : Devices)
    S += (S.empty() ? "" : ", ") + std::string(rt::name(D));
  return S;
}

} // namespace

int torchTidyVerifyMain(int argc, const char **argv) {
  cl::HideUnrelatedOptions(Category);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "Verifies the torch-tidy fixes of a clang-tidy --export-fixes file "
          "on the reference runtime.\n\nExit status: 0 all verified, 1 some "
          "unverified, 2 unreadable input or bad options.\n",
          &errs()))
    return 2;
  if (DeviceOpt != "auto" && DeviceOpt != "cpu" && DeviceOpt != "cuda") {
    errs() << "torch-tidy-verify: error: --device must be auto, cpu or cuda, "
              "not '"
           << DeviceOpt << "'\n";
    return 2;
  }
  if (Instances == 0) {
    errs() << "torch-tidy-verify: error: --instances must be at least 1\n";
    return 2;
  }
  std::vector<rt::Device> Devices;
  std::string CudaNote;
  if (DeviceOpt != "cuda")
    Devices.push_back(rt::Device::CPU);
  if (DeviceOpt != "cpu") {
    if (device_available(rt::Device::CUDA))
      Devices.push_back(rt::Device::CUDA);
    else if (DeviceOpt == "cuda") {
      errs() << "torch-tidy-verify: error: --device cuda, but "
             << (rt::cuda_backend_compiled()
                     ? "no CUDA device is available"
                     : "this build's runtime has no CUDA backend")
             << "\n";
      return 2;
    } else {
      CudaNote = rt::cuda_backend_compiled()
                     ? "no CUDA device is available"
                     : "this build's runtime has no CUDA backend";
    }
  }

  auto Read = readExportFixes(InputPath);
  if (!Read) {
    errs() << "torch-tidy-verify: error: " << toString(Read.takeError())
           << "\n";
    return 2;
  }
  const std::vector<tooling::TranslationUnitDiagnostics> &Documents = *Read;

  // The fixes of torch-tidy checks.
  std::vector<Fix> Fixes;
  unsigned OtherChecks = 0, WithoutFix = 0;
  for (const tooling::TranslationUnitDiagnostics &TU : Documents)
    for (const tooling::Diagnostic &D : TU.Diagnostics) {
      if (!StringRef(D.DiagnosticName).starts_with("torch-")) {
        ++OtherChecks;
        continue;
      }
      Fix F;
      F.Check = D.DiagnosticName;
      F.File = D.Message.FilePath;
      F.Offset = D.Message.FileOffset;
      collect(D.Message, F.Replacements);
      for (const tooling::DiagnosticMessage &Note : D.Notes) {
        collect(Note, F.Replacements);
        StringRef M = Note.Message;
        if (M.consume_front("rule: "))
          F.Rule = M.trim().str();
      }
      if (F.Replacements.empty()) {
        ++WithoutFix;
        continue;
      }
      llvm::sort(F.Replacements, [](const auto &A, const auto &B) {
        return std::make_pair(A.getFilePath(), A.getOffset()) <
               std::make_pair(B.getFilePath(), B.getOffset());
      });
      Fixes.push_back(std::move(F));
    }

  // Prove each rule once per device.
  std::map<std::string, std::vector<RuleReport>> Proven;
  for (Fix &F : Fixes) {
    if (F.Rule.empty()) {
      F.Reason = "the diagnostic has no 'rule: <id>' note, so which rewrite "
                 "it makes is not known";
      continue;
    }
    if (is_schema_rule(F.Rule)) {
      F.Reason = "rule '" + F.Rule +
                 "' edits an operator's schema or a kernel's return: it is "
                 "proven against real torch by the op-mutation-fixes tests, "
                 "not on the reference runtime";
      continue;
    }
    if (is_libtorch_rule(F.Rule)) {
      F.Reason = "rule '" + F.Rule +
                 "' adds a write-back or a check to a kernel: it is proven "
                 "against real LibTorch by the write-into-copy-fixes test, "
                 "not on the reference runtime";
      continue;
    }
    const RuleVerifier *V = find_rule_verifier(F.Rule);
    const rules::RuleRow *Row = rules::find_rule_row(
        V && !V->forms_row.empty() ? V->forms_row : F.Rule);
    if (!V || !Row) {
      F.Reason = "no verifier for rule '" + F.Rule +
                 "' (not a rule of this torch-tidy-verify's rule table)";
      continue;
    }
    // A fix may also delete the declaration of a named view it writes
    // through (`auto col = buf.t()[2];`, removed with the write where it has
    // no other use), or bind named views read after the write again to the
    // rewritten target: not part of the rule's form. Every other
    // replacement is the rule's.
    std::vector<const tooling::Replacement *> Rewrites;
    for (const tooling::Replacement &R : F.Replacements)
      if (!isNamedViewRemoval(R) && !isNamedViewRebind(R))
        Rewrites.push_back(&R);
    // The forms come from RewriteRules.def, the table the planner spells
    // from and checks its fixes against.
    std::vector<std::string> Texts;
    for (const tooling::Replacement *R : Rewrites)
      Texts.push_back(R->getReplacementText().str());
    if (!rules::matches_rule_forms(Row->forms, Texts)) {
      std::string Counts;
      for (const std::vector<std::string> &Alt : rules::split_forms(Row->forms))
        Counts += (Counts.empty() ? "" : " or ") + std::to_string(Alt.size());
      if (llvm::none_of(rules::split_forms(Row->forms), [&](const auto &Alt) {
            return Alt.size() == Texts.size();
          }))
        F.Reason = "rule '" + F.Rule + "' makes " + Counts +
                   " replacement(s), the fix has " +
                   std::to_string(Texts.size()) +
                   (Rewrites.size() != F.Replacements.size()
                        ? " besides removing or re-binding named views"
                        : "");
      else
        F.Reason =
            "the replacement" + std::string(Texts.size() > 1 ? "s" : "") +
            " '" + llvm::join(Texts, "', '") + "' do" +
            (Texts.size() > 1 ? "" : "es") + " not have the form of rule '" +
            F.Rule + "' (RewriteRules.def: " + std::string(Row->forms) + ")";
    }
    if (!F.Reason.empty())
      continue;
    auto It = Proven.find(F.Rule);
    if (It == Proven.end()) {
      std::vector<RuleReport> Runs;
      for (rt::Device D : Devices)
        Runs.push_back(verify_rule(*V, D, int(Instances), Seed));
      It = Proven.emplace(F.Rule, std::move(Runs)).first;
    }
    F.Runs = It->second;
    for (const RuleReport &R : F.Runs)
      if (R.failed && F.Reason.empty())
        F.Reason = "rule '" + F.Rule + "' failed on " + rt::name(R.device) +
                   " in " + std::to_string(R.failed) + " of " +
                   std::to_string(R.instances) +
                   " instances; first: " + R.first_failure;
    F.Verified = F.Reason.empty();
  }

  SourceLines Lines;
  unsigned Verified =
      llvm::count_if(Fixes, [](const Fix &F) { return F.Verified; });
  unsigned Unverified = unsigned(Fixes.size()) - Verified;

  if (Json) {
    json::OStream J(outs(), 2);
    J.object([&] {
      J.attribute("input", InputPath);
      J.attributeArray("devices", [&] {
        for (rt::Device D : Devices)
          J.value(rt::name(D));
      });
      if (!CudaNote.empty())
        J.attribute("cuda", CudaNote);
      J.attribute("instances_per_rule", int64_t(Instances));
      J.attributeArray("fixes", [&] {
        for (const Fix &F : Fixes)
          J.object([&] {
            auto [Line, Column] = Lines.lineColumn(F.File, F.Offset);
            J.attribute("check", F.Check);
            J.attribute("file", F.File);
            J.attribute("offset", int64_t(F.Offset));
            if (Line) {
              J.attribute("line", int64_t(Line));
              J.attribute("column", int64_t(Column));
            }
            J.attribute("rule", F.Rule.empty() ? json::Value(nullptr)
                                               : json::Value(F.Rule));
            J.attribute("status", F.Verified ? "verified" : "unverified");
            if (!F.Verified)
              J.attribute("reason", F.Reason);
            J.attributeArray("replacements", [&] {
              for (const tooling::Replacement &R : F.Replacements)
                J.object([&] {
                  J.attribute("file", R.getFilePath());
                  J.attribute("offset", int64_t(R.getOffset()));
                  J.attribute("length", int64_t(R.getLength()));
                  J.attribute("text", R.getReplacementText());
                });
            });
            J.attributeArray("runs", [&] {
              for (const RuleReport &R : F.Runs)
                J.object([&] {
                  J.attribute("device", rt::name(R.device));
                  J.attribute("instances", int64_t(R.instances));
                  J.attribute("failed", int64_t(R.failed));
                });
            });
          });
      });
      J.attributeObject("summary", [&] {
        J.attribute("fixes", int64_t(Fixes.size()));
        J.attribute("verified", int64_t(Verified));
        J.attribute("unverified", int64_t(Unverified));
        J.attribute("torch_tidy_diagnostics_without_fix", int64_t(WithoutFix));
        J.attribute("other_checks_skipped", int64_t(OtherChecks));
      });
    });
    outs() << "\n";
  } else {
    for (const Fix &F : Fixes) {
      auto [Line, Column] = Lines.lineColumn(F.File, F.Offset);
      outs() << F.File << ":";
      if (Line)
        outs() << Line << ":" << Column;
      else
        outs() << "offset " << F.Offset;
      outs() << ": ";
      if (F.Verified)
        outs() << "verified [" << F.Check << ", rule " << F.Rule
               << "]: " << Instances << " instances proven on "
               << deviceList(Devices) << "\n";
      else
        outs() << "UNVERIFIED [" << F.Check
               << (F.Rule.empty() ? "" : ", rule " + F.Rule)
               << "]: " << F.Reason << "\n";
    }
    outs() << Fixes.size() << " torch-tidy fix(es): " << Verified
           << " verified, " << Unverified << " unverified";
    if (OtherChecks)
      outs() << "; " << OtherChecks << " diagnostic(s) of other checks skipped";
    outs() << "\n";
    if (!CudaNote.empty())
      outs() << "CUDA: not verified here (" << CudaNote << ")\n";
  }
  return Unverified ? 1 : 0;
}

} // namespace torch_tidy::verify

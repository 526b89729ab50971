"""Checks that each named piece of code has one home (see one-home.cpp).

Usage: one-home.cpp.py REPOSITORY_ROOT
Each row: what it is, the regular expression that finds it, the files
allowed to hold it, and the folders searched. Exits 1 listing every match
outside its home, and every home that no longer holds its piece (so the
table cannot go stale).
"""
import os
import re
import sys

VOCABULARY = "lib/programs/include/torch_tidy/programs/Vocabulary.h"
RANDOM_PROGRAM_USERS = ["lib/verify", "lib/programs", "test/runtime/differential",
                        "tools/verify", "test/verify"]
TOOL_CODE = ["lib", "checks", "tools", "test/runtime", "test/verify"]

ROWS = [
    ("the index-list entry type",
     r"enum class IndexKind\b|struct IndexSpec\b|struct Idx\b|struct Index\b",
     [VOCABULARY], TOOL_CODE),
    ("the view-step type",
     r"enum class ViewKind\b|struct ViewStep\b",
     [VOCABULARY], TOOL_CODE),
    ("the runtime spelling of an index list",
     r"\b(rt|runtime)::(Slice|NewAxis|Ellipsis)\{",
     [VOCABULARY], RANDOM_PROGRAM_USERS),
    ("the LibTorch spelling of an index list",
     r"indexing::Slice\(",
     ["test/runtime/differential/libtorch_api.cpp"], RANDOM_PROGRAM_USERS),
    ("the random draws (integers, chances, reals, shuffles)",
     r"uniform_int_distribution<|bernoulli_distribution|"
     r"uniform_real_distribution|std::shuffle\(|std::mt19937",
     [VOCABULARY], RANDOM_PROGRAM_USERS),
    ("applying a view step",
     r"\.transpose\(i(\.at\(0\)|\[0\])|\.transpose\(s\.a\b",
     [VOCABULARY], RANDOM_PROGRAM_USERS),
    ("the LibTorch text of index lists and view chains",
     r'"Slice\(|"\.slice\(|"slice",',
     [VOCABULARY], RANDOM_PROGRAM_USERS),
    ("the text of a shape or int list",
     r"std::string (shape_text|int_list_text)\(",
     [VOCABULARY], RANDOM_PROGRAM_USERS),
    ("the text of a source range",
     r"Lexer::getSourceText",
     ["lib/analysis/src/SourceText.cpp"], ["lib", "checks"]),
    ("the requires_grad setter test",
     r'== "requires_grad_"|== "set_requires_grad"',
     ["lib/libtorch/src/LibTorchApi.cpp"], ["lib", "checks"]),
    ("fix-it construction",
     r"FixItHint::Create",
     ["checks/TorchTidyCheck.cpp"], ["lib", "checks"]),
    ("the system-header test of user code",
     r"isInSystemHeader",
     ["lib/libtorch/src/UserCode.cpp"], ["lib", "checks"]),
]

SUFFIXES = (".h", ".cpp", ".cu", ".def")


def files_under(root, folders):
    for folder in folders:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if name.endswith(SUFFIXES):
                    path = os.path.join(dirpath, name)
                    yield os.path.relpath(path, root).replace(os.sep, "/")


def main():
    root = sys.argv[1]
    problems = []
    for what, pattern, homes, folders in ROWS:
        regex = re.compile(pattern)
        found = set()
        for rel in sorted(set(files_under(root, folders))):
            with open(os.path.join(root, rel), encoding="utf-8",
                      errors="replace") as f:
                for number, line in enumerate(f, 1):
                    if regex.search(line):
                        found.add(rel)
                        if rel not in homes:
                            problems.append(
                                f"{rel}:{number}: {what} outside its home "
                                f"({', '.join(homes)}): {line.strip()}")
        for home in homes:
            if home not in found:
                problems.append(f"{home}: no longer holds {what} "
                                f"(/{pattern}/); update the table")
    for p in problems:
        print(p)
    print(f"{len(ROWS)} pieces checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

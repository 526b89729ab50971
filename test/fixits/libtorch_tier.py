"""What the fix-it runners share: the arguments naming a LibTorch tier, the
skip line when its headers are missing, and the compiler command that builds
a harness against it."""
import os


def add_tier_arguments(ap):
    ap.add_argument("--tier", required=True)
    ap.add_argument("--clang-tidy", required=True)
    ap.add_argument("--module", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--include", action="append", default=[])
    ap.add_argument("--lib-dir", required=True)
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--out", default=".")


def headers_missing(args, name):
    """Prints the skip line and returns True when the tier is not installed."""
    if any(os.path.exists(os.path.join(d, "torch", "torch.h"))
           for d in args.include):
        return False
    print(f"SKIPPED {name}: <torch/torch.h> of {args.tier} not found in "
          f"{args.include}")
    return True


def isystem(args):
    flags = []
    for d in args.include:
        flags += ["-isystem", d]
    return flags


def harness_command(args, source, output, include_dirs):
    """g++ at -O0 (the TU is large), linked against the tier with an rpath."""
    cmd = [args.cxx, "-std=c++17", "-O0", "-D_GLIBCXX_USE_CXX11_ABI=1"]
    cmd += [f"-I{d}" for d in include_dirs] + isystem(args)
    return cmd + [source, "-o", output, f"-L{args.lib_dir}",
                  f"-Wl,-rpath,{args.lib_dir}", "-ltorch", "-ltorch_cpu",
                  "-lc10"]

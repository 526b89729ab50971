#!/usr/bin/env python3
"""Does a write into x.cpu(), x.cuda(), x.to("cpu") or x.to("cuda") reach x?
Measured eager and compiled (aot_eager, inductor) on a GPU machine, one row
per receiver device, call and backend, in the format of
docs/ground-truth-device-moves.json (torch-write-into-copy's device moves).

  device_moves.py --out ROWS.json          measure (needs CUDA; exit 77 without)
  device_moves.py --check ROWS.json        compare with the committed table:
                                           exit 1 where a committed row differs

Each compiled run starts from torch._dynamo.reset(), so no run falls back
to eager at Dynamo's recompile limit (the 2026-12-04 run's last rows did).
"""
import argparse
import json
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "..", "..", "docs", "ground-truth-device-moves.json")
SKIP = 77

# row name, receiver device, the call as the table spells it, the write
CASES = [
    ("cuda_cpu", "cuda", "x.cpu().add_(1)", lambda x: x.cpu().add_(1)),
    ("cuda_cpu", "cpu", "x.cpu().add_(1)", lambda x: x.cpu().add_(1)),
    ("cpu_cuda", "cpu", "x.cuda().add_(1)", lambda x: x.cuda().add_(1)),
    ("cpu_cuda", "cuda", "x.cuda().add_(1)", lambda x: x.cuda().add_(1)),
    ("cpu_to_cuda", "cpu", 'x.to("cuda").add_(1)', lambda x: x.to("cuda").add_(1)),
    ("cpu_to_cuda", "cuda", 'x.to("cuda").add_(1)', lambda x: x.to("cuda").add_(1)),
    ("cuda_to_cpu", "cuda", 'x.to("cpu").add_(1)', lambda x: x.to("cpu").add_(1)),
    ("cuda_to_cpu", "cpu", 'x.to("cpu").add_(1)', lambda x: x.to("cpu").add_(1)),
]
BACKENDS = ("eager", "aot_eager", "inductor")


def copies(row, device):
    """Whether the call copies a receiver on `device`."""
    target = "cpu" if row in ("cuda_cpu", "cuda_to_cpu") else "cuda"
    return device != target


def measure():
    import torch
    import torch._dynamo
    warnings.filterwarnings("ignore")
    if not torch.cuda.is_available():
        print(f"SKIPPED device moves: torch {torch.__version__} sees no CUDA device")
        sys.exit(SKIP)
    rows = []
    for row, device, call, write in CASES:
        for backend in BACKENDS:
            torch._dynamo.reset()
            x = torch.zeros(4, device=device)

            def f(x):
                write(x)
                return x * 1

            g = f if backend == "eager" else torch.compile(f, backend=backend)
            try:
                g(x)
                torch.cuda.synchronize()
                cell = "reaches" if float(x.sum()) == 4 else "lost"
            except Exception as e:  # recorded with its first line
                cell = f"error: {type(e).__name__}: {str(e).splitlines()[0][:160]}"
            rows.append([row, device, call, "copy" if copies(row, device) else "same",
                         backend, cell])
            print("  ".join(map(str, rows[-1])), flush=True)
    return {"torch": torch.__version__, "device": torch.cuda.get_device_name(0),
            "rows": rows}


def check(path):
    with open(path) as f:
        fresh = {tuple(r[:5]): r[5] for r in json.load(f)["rows"]}
    with open(TABLE) as f:
        committed = json.load(f)["rows"]
    problems = 0
    for r in committed:
        backend = r[4].split(" ")[0]  # "aot_eager (ran eager: ...)" -> aot_eager
        got = fresh.get((r[0], r[1], r[2], r[3], backend))
        if got is None:
            continue
        if got != r[5]:
            problems += 1
            print(f"DIFFERS {r[0]} on {r[1]} ({backend}): committed {r[5]}, measured {got}")
    print(f"device moves: {len(committed)} committed rows checked against {path}, "
          f"{problems} differ")
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    ap.add_argument("--check")
    args = ap.parse_args()
    if args.check:
        return check(args.check)
    doc = measure()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

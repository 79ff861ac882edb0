#!/usr/bin/env python3
"""symcut benchmark: the exact memory budget against torch 2.13's, on the zoo.

    bench/bench_budget_zoo.py [--symcut BUILD/symcut] [--budgets 0.05,0.15,...]
                              [MODEL...]

For every zoo joint (examples/zoo/NAME.joint.txt) with torch 2.13's
decisions under activation_memory_budget recorded in
tests/data/budget-2.13/NAME.json (tools/oracle/budget.py made them; no
torch is needed here), and each budget (default ten: 0.05, 0.15, ...,
0.95):

  - torch's saved set at that budget is scored by symcut
    (`symcut partition --policy exact --saved NAMES`): its saved bytes and
    its recompute cost (doc/graph.md, "Cost") and FLOPs;
  - symcut's exact decision at torch's bytes
    (`--policy exact --memory-budget BYTES`) is scored the same way.

Both run with torch's static inputs as parameters and its hints.  Prints
one row per (model, budget) and a summary: how often symcut's cost is
lower, equal, or higher (higher would contradict exactness), and the total
recompute FLOPs of both.  Budgets where torch failed are left out; where
torch's set is not a valid decision for symcut (it recomputes a random op,
which the exact frontier never does, so its bytes can be below the least
valid decision's) the row says "not compared" and why.
"""
import argparse
import json
import pathlib
import subprocess
import sys

SRC = pathlib.Path(__file__).resolve().parent.parent


def run(symcut, *args):
    r = subprocess.run([symcut, *map(str, args)], capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise RuntimeError("symcut %s: %s" % (" ".join(map(str, args)),
                                              r.stderr.strip()))
    return json.loads(r.stdout)


def names(saved):
    return [s["name"] if isinstance(s, dict) else s for s in saved]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--symcut", default=str(SRC / "build" / "symcut"))
    ap.add_argument("--budgets",
                    default=",".join("%.2f" % (0.05 + 0.1 * i)
                                     for i in range(10)))
    ap.add_argument("models", nargs="*")
    a = ap.parse_args()
    budgets = [float(b) for b in a.budgets.split(",")]
    data = sorted((SRC / "tests" / "data" / "budget-2.13").glob("*.json"))
    data = [d for d in data if (SRC / "examples" / "zoo" /
                                (d.stem + ".joint.txt")).exists()]
    if a.models:
        data = [d for d in data if d.stem in a.models]
    lower = equal = higher = 0
    fl_torch = fl_mine = 0
    print("%-30s %6s %12s %14s %12s %12s %14s %12s" % (
        "model", "budget", "torch bytes", "torch cost", "torch flops",
        "symcut bytes", "symcut cost", "symcut flops"))
    for d in data:
        rec = json.loads(d.read_text())
        joint = SRC / "examples" / "zoo" / (d.stem + ".joint.txt")
        common = ["--policy", "exact", "--no-timings", "--format", "json"]
        if rec.get("static_inputs"):
            common += ["--params",
                       ",".join(map(str, rec["static_inputs"])) + ","]
        if rec.get("num_fwd_outputs") is not None:
            common += ["--num-fwd-outputs", rec["num_fwd_outputs"]]
        for k, v in rec.get("hints", {}).items():
            common += ["--hint", "%s=%s" % (k, v)]
        for b in rec["budgets"]:
            if not any(abs(b["budget"] - x) < 1e-9 for x in budgets):
                continue
            if "error" in b:
                continue
            theirs = ",".join(b["saved_tensors"] + b["saved_symints"])
            try:
                t = run(a.symcut, "partition", joint, *common,
                        "--saved", theirs)
                mine = run(a.symcut, "partition", joint, *common,
                           "--memory-budget", t["saved_bytes"])
                m = run(a.symcut, "partition", joint, *common, "--saved",
                        ",".join(names(mine["saved_tensors"]) +
                                 names(mine["saved_symints"])))
            except RuntimeError as e:
                # e.g. torch's set recomputes a random op, which the
                # exact frontier never does: not comparable
                print("%-30s %6.2f  not compared: %s" % (
                    d.stem, b["budget"],
                    str(e).splitlines()[-1].split(": ")[-1][:70]))
                continue
            print("%-30s %6.2f %12d %14d %12d %12d %14d %12d" % (
                d.stem, b["budget"], t["saved_bytes"], t["recompute_cost"],
                t["recompute_flops"], m["saved_bytes"], m["recompute_cost"],
                m["recompute_flops"]))
            fl_torch += t["recompute_flops"]
            fl_mine += m["recompute_flops"]
            if m["recompute_cost"] < t["recompute_cost"]:
                lower += 1
            elif m["recompute_cost"] == t["recompute_cost"]:
                equal += 1
            else:
                higher += 1
    print("\nsymcut's exact decision at torch's bytes: lower cost %d, equal "
          "%d, higher %d; recompute FLOPs torch %d, symcut %d"
          % (lower, equal, higher, fl_torch, fl_mine))
    return 1 if higher else 0


if __name__ == "__main__":
    sys.exit(main())

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
    (`--policy exact --memory-budget BYTES`) is scored the same way;
  - the peak memory of both decisions, forward then backward, measured by
    the interpreter at the hints (`symcut pareto --compare FILE
    --measure-peak`, one run per model with every decision in FILE);
    where the interpreter cannot run the model's graphs, the peaks
    predicted from the sizes (the same run without --measure-peak),
    marked * and counted.

Both run with torch's static inputs as parameters and its hints.  Prints
one row per (model, budget) and a summary: how often symcut's saved
bytes, recompute cost and peak are lower, equal or higher than torch's
(more bytes or cost would contradict exactness), and the total recompute
FLOPs of both.  Budgets where torch failed are left out; where torch's
set is not a valid decision for symcut (e.g. it recomputes an op that
writes an argument, or a random op, which torch re-draws) the row says
"not compared" and why.  Exit status 1 when symcut's decision is worse
than torch's in bytes, cost or peak at any budget.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

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
    peaks = [0, 0, 0]  # symcut's peak lower, equal, higher
    nbytes = [0, 0, 0]  # symcut's saved bytes fewer, equal, more
    predicted = 0       # peaks predicted (not measured)
    fl_torch = fl_mine = 0
    print("%-30s %6s %12s %14s %12s %12s %12s %14s %12s %12s" % (
        "model", "budget", "torch bytes", "torch cost", "torch flops",
        "torch peak", "symcut bytes", "symcut cost", "symcut flops",
        "symcut peak"))
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
        rows = []
        for b in rec["budgets"]:
            if not any(abs(b["budget"] - x) < 1e-9 for x in budgets):
                continue
            if "error" in b:
                continue
            theirs = ",".join(b["saved_tensors"] + b["saved_symints"])
            try:
                t = run(a.symcut, "partition", joint, *common,
                        "--saved", theirs)
                if not t["valid"]:
                    # e.g. torch's set recomputes a random op (torch
                    # re-draws it) or an op that writes an argument
                    raise RuntimeError(": torch's set is not a valid "
                                       "decision, it recomputes %s"
                                       % t["invalid_node"])
                mine = run(a.symcut, "partition", joint, *common,
                           "--memory-budget", t["saved_bytes"])
                m = run(a.symcut, "partition", joint, *common, "--saved",
                        ",".join(names(mine["saved_tensors"]) +
                                 names(mine["saved_symints"])))
            except RuntimeError as e:
                # e.g. torch's set recomputes an op that writes an
                # argument, or a random op: not comparable
                print("%-30s %6.2f  not compared: %s" % (
                    d.stem, b["budget"],
                    str(e).splitlines()[-1].split(": ")[-1][:70]))
                continue
            rows.append((b["budget"], t, m, theirs,
                         ",".join(names(mine["saved_tensors"]) +
                                  names(mine["saved_symints"]))))
        # the measured peaks of every decision of the model, in one run
        peak = {}
        if rows:
            with tempfile.NamedTemporaryFile("w", suffix=".compare") as cf:
                for r in rows:
                    cf.write("torch %.2f: %s\n" % (r[0], r[3]))
                    cf.write("symcut %.2f: %s\n" % (r[0], r[4]))
                cf.flush()
                pc = [c for c in common if c != "--no-timings"]
                try:
                    pj = run(a.symcut, "pareto", joint, *pc, "--compare",
                             cf.name, "--measure-peak")
                    for c in pj["compare"]:
                        peak[c["label"]] = c.get("measured_peak_bytes")
                except RuntimeError as e:
                    # the prediction instead (marked *), e.g. where the
                    # interpreter cannot run the graphs
                    print("%-30s  peaks predicted, not measured: %s" % (
                        d.stem, str(e).splitlines()[-1].split(": ")[-1][:70]))
                    pj = run(a.symcut, "pareto", joint, *pc, "--compare",
                             cf.name)
                    for c in pj["compare"]:
                        if "peak_bytes" in c:
                            peak[c["label"]] = "%d*" % c["peak_bytes"]
                            predicted += 1
        for bud, t, m, _, _ in rows:
            tp = peak.get("torch %.2f" % bud)
            mp = peak.get("symcut %.2f" % bud)
            print("%-30s %6.2f %12d %14d %12d %12s %12d %14d %12d %12s" % (
                d.stem, bud, t["saved_bytes"], t["recompute_cost"],
                t["recompute_flops"], "-" if tp is None else tp,
                m["saved_bytes"], m["recompute_cost"], m["recompute_flops"],
                "-" if mp is None else mp))
            if tp is not None and mp is not None:
                tv, mv = int(str(tp).rstrip("*")), int(str(mp).rstrip("*"))
                peaks[0 if mv < tv else 1 if mv == tv else 2] += 1
            nbytes[0 if m["saved_bytes"] < t["saved_bytes"] else
                   1 if m["saved_bytes"] == t["saved_bytes"] else 2] += 1
            fl_torch += t["recompute_flops"]
            fl_mine += m["recompute_flops"]
            if m["recompute_cost"] < t["recompute_cost"]:
                lower += 1
            elif m["recompute_cost"] == t["recompute_cost"]:
                equal += 1
            else:
                higher += 1
    print("\nsymcut's exact decision at torch's bytes: saved bytes fewer "
          "%d, equal %d, more %d" % tuple(nbytes))
    print("recompute cost lower %d, equal %d, higher %d; recompute FLOPs "
          "torch %d, symcut %d" % (lower, equal, higher, fl_torch, fl_mine))
    print("peak, symcut's against torch's: lower %d, equal %d, higher %d "
          "(%d of the peaks predicted, marked *; the rest measured)"
          % (*peaks, predicted))
    return 1 if higher or nbytes[2] or peaks[2] else 0


if __name__ == "__main__":
    sys.exit(main())

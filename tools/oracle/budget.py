"""torch 2.13's saved set under a memory budget, for symcut's pytorch-2.13
memory budget (partition/budget-2.13.c) to be compared with.

For each joint graph it runs torch's min_cut_rematerialization_partition
through tools/oracle/oracle.py's decide() with
torch._functorch.config.activation_memory_budget patched to each budget
(the defaults otherwise: the "dp" solver, the "flops" runtime estimator),
and records the saved tensors and SymInts the forward returns, plus the
knapsack torch solved (its candidates in torch's order, their normalized
memories and estimated runtimes, the capacity and the items it saved).

    /work/venv/bin/python tools/oracle/budget.py --zoo examples/zoo \
        -o tests/data/budget-2.13          # every zoo joint
    /work/venv/bin/python tools/oracle/budget.py GRAPH.txt [--hint s0=8]
        [--static-inputs 0,2] [--num-fwd-outputs N] [--budgets 0.1,0.5]
    /work/venv/bin/python tools/oracle/budget.py --runtimes GRAPH.txt \
        [--hint s0=8]      # torch's runtime estimate of every call node

Output per graph NAME: NAME.json (what tests/check_budget.c reads; fields
in tests/data/budget-2.13/README); with a single GRAPH and no -o, the
JSON on stdout.
"""
import argparse
import json
import os
import pathlib
import sys

import torch
from torch._functorch import config, partitioners

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402

BUDGETS = [round(0.05 * k, 2) for k in range(0, 21)]


class Capture:
    """Wraps partitioners._optimize_runtime_with_given_memory (looked up
    by name at each call) to record the knapsack torch solves."""

    def __init__(self):
        self.calls = []
        self.orig = partitioners._optimize_runtime_with_given_memory

    def __call__(self, joint_graph, memory, runtimes, max_memory, node_info,
                 nodes):
        r = self.orig(joint_graph, memory, runtimes, max_memory, node_info,
                      nodes)
        self.calls.append({
            "candidates": [oracle.name_of(n) for n in nodes],
            "memory": list(map(float, memory)),
            "runtime": list(map(float, runtimes)),
            "capacity": float(max_memory),
            "solver": str(config.activation_memory_budget_solver),
            "saved_items": list(r[1]),
        })
        return r


def decide_at(text, budget, hints, static_inputs, num_fwd_outputs):
    cap = Capture()
    partitioners._optimize_runtime_with_given_memory = cap
    try:
        with config.patch(activation_memory_budget=budget):
            dec, _, _ = oracle.decide(text, hints, None, static_inputs,
                                      num_fwd_outputs)
    except oracle.OracleError:
        raise
    except Exception as e:  # torch's partitioner failed
        return {"budget": budget,
                "error": "%s: %s" % (type(e).__name__,
                                     str(e).splitlines()[0] if str(e) else "")}
    finally:
        partitioners._optimize_runtime_with_given_memory = cap.orig
    out = {"budget": budget, "saved_tensors": dec["saved_tensors"],
           "saved_symints": dec["saved_symints"],
           "recomputed": dec["recomputed"]}
    if cap.calls:
        out["knapsack"] = cap.calls[-1]
    return out


def runtimes(text, hints):
    """torch's runtime estimate (partitioners.estimate_runtime, the
    configured estimator) of every call node of the graph, by name."""
    b = oracle.Builder(text, dict(oracle.parse_directives(text)["hint"],
                                  **hints))
    graph = b.build()
    out = {}
    with b.mode:
        for n in graph.nodes:
            if n.op == "call_function" and \
                    isinstance(n.target, torch._ops.OpOverload):
                out[oracle.name_of(n)] = float(partitioners.estimate_runtime(n))
    return {"torch_version": torch.__version__.split("+")[0],
            "runtime_estimator":
                str(config.activation_memory_budget_runtime_estimator),
            "hints": hints, "runtime": out}


def run_graph(text, budgets, hints, static_inputs, num_fwd_outputs):
    default = decide_at(text, 1.0, hints, static_inputs, num_fwd_outputs)
    res = [decide_at(text, b, hints, static_inputs, num_fwd_outputs)
           for b in budgets]
    return {"torch_version": torch.__version__.split("+")[0],
            "solver": str(config.activation_memory_budget_solver),
            "runtime_estimator":
                str(config.activation_memory_budget_runtime_estimator),
            "hints": hints, "static_inputs": static_inputs,
            "num_fwd_outputs": num_fwd_outputs,
            "default": default, "budgets": res}


def write(outdir, name, d):
    outdir.mkdir(parents=True, exist_ok=True)
    with open(outdir / (name + ".json"), "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")


def parse_hints(s):
    h = {}
    for item in (s or "").split(","):
        item = item.strip()
        if item:
            k, v = item.split("=")
            h[k.strip()] = int(v)
    return h


def zoo_models(zoo):
    for p in sorted(zoo.glob("*.joint.txt")):
        name = p.name[:-len(".joint.txt")]
        meta = json.loads((zoo / (name + ".pytorch.json")).read_text())
        hp = zoo / (name + ".hints")
        hints = parse_hints(hp.read_text()) if hp.exists() else {}
        mc = meta["min_cut"]
        yield (name, p.read_text(), hints,
               list(mc["static_lifetime_input_indices"]),
               int(mc["num_fwd_outputs"]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graph", nargs="?")
    ap.add_argument("--zoo")
    ap.add_argument("-o", "--outdir")
    ap.add_argument("--only", help="comma-separated zoo model names")
    ap.add_argument("--hint", default="")
    ap.add_argument("--static-inputs")
    ap.add_argument("--num-fwd-outputs", type=int)
    ap.add_argument("--budgets")
    ap.add_argument("--runtimes", action="store_true",
                    help="print torch's runtime estimate of each call node "
                    "of GRAPH instead")
    a = ap.parse_args(argv)
    budgets = BUDGETS if not a.budgets else [
        float(x) for x in a.budgets.split(",")]
    if a.zoo:
        only = set(a.only.split(",")) if a.only else None
        for name, text, hints, st, nfo in zoo_models(pathlib.Path(a.zoo)):
            if only and name not in only:
                continue
            d = run_graph(text, budgets, hints, st, nfo)
            write(pathlib.Path(a.outdir or "."), name, d)
            print(name, file=sys.stderr)
        return 0
    if not a.graph:
        ap.error("a GRAPH or --zoo DIR")
    text = pathlib.Path(a.graph).read_text()
    if a.runtimes:
        print(json.dumps(runtimes(text, parse_hints(a.hint)), indent=1))
        return 0
    st = None if a.static_inputs is None else [
        int(x) for x in a.static_inputs.split(",") if x]
    d = run_graph(text, budgets, parse_hints(a.hint), st, a.num_fwd_outputs)
    if d["static_inputs"] is None:
        d["static_inputs"] = []
    if a.outdir:
        write(pathlib.Path(a.outdir), pathlib.Path(a.graph).name.split(".")[0],
              d)
    else:
        print(json.dumps(d, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

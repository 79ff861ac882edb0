#!/usr/bin/env python3
"""symcut's partition against torch 2.13's min_cut_rematerialization_partition
on the same joint graphs, in one run.

    /work/venv/bin/python bench/bench_torch_partition.py [--symcut build/symcut]
        [--quick] [--repeat N]

The joints: the committed examples (examples/*.joint.txt and, when present,
examples/zoo/*.joint.txt), and joints traced here with torch (aot_function,
the joint captured inside partition_fn): a 24-layer transformer encoder
stack, a 500-block residual MLP, and residual MLPs of about 1e4 to 1e5
nodes.  torch's time is min_cut_rematerialization_partition on the FX joint
(a fresh copy per run, best of --repeat); symcut's is the `total` of
`symcut partition --format json` (all phases, reading the text excluded;
best of --repeat); the ratio is torch / symcut.  Both decide with the same
policy (pytorch-2.13) and the script says whether the saved sets agree.
"""
import argparse
import copy
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn as nn
from functorch.compile import aot_function
from torch._functorch import partitioners

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "oracle"))
import oracle  # noqa: E402


def capture(fn, args):
    """The joint graph module of fn on args, and its num_fwd_outputs."""
    got = {}

    def partition_fn(joint, inputs, *, num_fwd_outputs, **kw):
        got["joint"] = copy.deepcopy(joint)
        got["nfwd"] = num_fwd_outputs
        return partitioners.default_partition(
            joint, inputs, num_fwd_outputs=num_fwd_outputs, **kw)
    c = aot_function(fn, fw_compiler=lambda g, _: g, bw_compiler=lambda g, _: g,
                     partition_fn=partition_fn)
    c(*args)
    return got["joint"], got["nfwd"]


def model_joint(model, x):
    params = [p for p in model.parameters()]
    names = [n for n, _ in model.named_parameters()]

    def fn(*a):
        ps = dict(zip(names, a[:len(names)]))
        out = torch.func.functional_call(model, ps, (a[len(names)],))
        return (out.sum(),)
    return capture(fn, params + [x]) + (len(params),)


class Residual(nn.Module):
    def __init__(self, blocks, width):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(blocks))

    def forward(self, x):
        for l in self.layers:
            x = x + torch.relu(l(x))
        return x


def traced(quick):
    torch.manual_seed(0)
    out = []
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(
        32, 4, 64, dropout=0.0, batch_first=True), 24 if not quick else 2,
        enable_nested_tensor=False)
    out.append(("transformer-24", *model_joint(enc, torch.randn(2, 8, 32))))
    for blocks in ((500, 1500, 5000) if not quick else (20,)):
        out.append(("residual-mlp-%d" % blocks,
                    *model_joint(Residual(blocks, 16), torch.randn(4, 16))))
    return out


def time_torch(gm, nfwd, params, repeat):
    best = None
    for _ in range(repeat):
        g = copy.deepcopy(gm)
        t = time.perf_counter()
        partitioners.min_cut_rematerialization_partition(
            g, None, num_fwd_outputs=nfwd,
            static_lifetime_input_indices=list(range(params)))
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return best


def time_symcut(exe, path, repeat, extra=()):
    best, saved = None, None
    for _ in range(repeat):
        r = subprocess.run([exe, "partition", str(path), "--policy",
                            "pytorch-2.13", "--format", "json", *extra],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return None, r.stderr.strip().splitlines()[-1:]
        d = json.loads(r.stdout)
        dt = d["timings"]["total"]
        saved = d["saved_tensors"]
        best = dt if best is None else min(best, dt)
    return best, saved


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--symcut", default=str(ROOT / "build" / "symcut"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    rows = []
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-torch-partition-"))
    texts = sorted((ROOT / "examples").glob("*.joint.txt")) + \
        sorted((ROOT / "examples" / "zoo").glob("*.joint.txt"))
    for p in texts:
        text = p.read_text()
        try:
            b = oracle.Builder(text, oracle.parse_directives(text)["hint"])
            graph = b.build()
        except Exception as e:
            print("skip %s: %s" % (p.name, e), file=sys.stderr)
            continue
        gm = torch.fx.GraphModule(torch.nn.Module(), graph)
        nprim = sum(1 for n in b.placeholders if n.target.startswith("primals"))
        nfwd = len(list(graph.nodes)[-1].args[0]) - nprim
        with b.mode:
            tt = time_torch(gm, nfwd, 0, a.repeat)
        ts, _ = time_symcut(a.symcut, p, a.repeat)
        rows.append((p.name.replace(".joint.txt", ""), len(graph.nodes), tt, ts))
    for name, gm, nfwd, params in traced(a.quick):
        path = tmp / (name + ".joint.txt")
        path.write_text("# symcut: params %d\n" % params +
                        gm.print_readable(print_output=False,
                                          include_stride=True,
                                          include_device=True))
        tt = time_torch(gm, nfwd, params, a.repeat)
        ts, _ = time_symcut(a.symcut, path, a.repeat,
                            ("--num-fwd-outputs", str(nfwd)))
        rows.append((name, len(gm.graph.nodes), tt, ts))
    print("| graph | nodes | torch 2.13 s | symcut s | torch/symcut |")
    print("|---|---|---|---|---|")
    for name, n, tt, ts in rows:
        print("| %s | %d | %.4f | %s | %s |" % (
            name, n, tt, "%.4f" % ts if ts is not None else "failed",
            "%.0f" % (tt / ts) if ts else "-"))


if __name__ == "__main__":
    main()

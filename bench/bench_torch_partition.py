#!/usr/bin/env python3
"""symcut's partition against torch 2.13's min_cut_rematerialization_partition
on the same joint graphs, in one run.

    nice -n 19 /work/venv/bin/python bench/bench_torch_partition.py \
        [--symcut build/symcut] [--quick] [--repeat N] [--no-examples] \
        [--blocks 500] [--sizes 10000,100000]

The joints: the committed examples (examples/*.joint.txt and, when present,
examples/zoo/*.joint.txt, named zoo/NAME); joints traced here with torch (aot_function,
the joint captured inside partition_fn): a 24-layer transformer encoder
stack and residual MLPs of --blocks blocks (18 joint nodes a block;
tracing costs about 0.3 s a block on a loaded machine, so the large
graphs are not traced); and joints of about --sizes nodes (1e4 and 1e5 by
default): a chain of residual blocks (t, mm, relu, add) that `symcut
joint` differentiates, rebuilt as an FX graph for torch with fake tensors
by the oracle's Builder (the same path as the examples).  torch's time is
the min_cut_rematerialization_partition call
on the FX joint (a fresh copy per run, best of --repeat; one run above
20,000 nodes); symcut's is the whole command `symcut partition GRAPH
--policy pytorch-2.13 --fw F --bw B -o REPORT` on the joint's text (wall
clock: starting the process, reading the text, partitioning, writing both
graphs and the report; best of --repeat), and beside it the partitioner's
own phases (the report's `timings.total`).  The ratio is torch / symcut's
command.  `same` says whether symcut's saved tensors and SymInts equal
torch's, in order.
"""
import argparse
import contextlib
import copy
import json
import os
import pathlib
import re
import shutil
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


def traced(quick, blocks):
    """(name, joint module, num_fwd_outputs, parameters), one at a time."""
    torch.manual_seed(0)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(
        32, 4, 64, dropout=0.0, batch_first=True), 24 if not quick else 2,
        enable_nested_tensor=False)
    yield ("transformer-24" if not quick else "transformer-2",
           *model_joint(enc, torch.randn(2, 8, 32)))
    for b in (blocks if not quick else (20,)):
        yield ("residual-mlp-%d" % b,
               *model_joint(Residual(b, 16), torch.randn(4, 16)))


def mlp_forward(calls):
    """The forward text of a chain of calls // 4 residual blocks (x = x +
    relu(x @ w.t()), one weight), as bench/bench-lib.sh writes it."""
    sx, sw, st = ('"f32[8, 16][16, 1]cpu"', '"f32[16, 16][16, 1]cpu"',
                  '"f32[16, 16][1, 16]cpu"')
    out = ["class forward_fn(torch.nn.Module):",
           "    def forward(self, primals):",
           "        arg0_1: %s; arg1_1: %s; " % (sx, sw), "    ",
           "        arg0_1, arg1_1, = fx_pytree.tree_flatten_spec([primals], "
           "self._in_spec)"]
    x = "arg0_1"
    for i in range(calls // 4):
        k = "_%d" % i if i else ""
        out += ["        t%s: %s = torch.ops.aten.t.default(arg1_1)" % (k, st),
                "        mm%s: %s = torch.ops.aten.mm.default(%s, t%s)"
                % (k, sx, x, k),
                "        relu%s: %s = torch.ops.aten.relu.default(mm%s)"
                % (k, sx, k),
                "        add%s: %s = torch.ops.aten.add.Tensor(relu%s, %s)"
                % (k, sx, k, x)]
        x = "add" + k
    out.append("        return pytree.tree_unflatten([%s], self._out_spec)"
               % x)
    return "\n".join(out) + "\n"


def mlp_joint(exe, nodes, tmp):
    """The path of a joint text of about `nodes` nodes (symcut joint of
    mlp_forward), the joint nodes per forward call measured on a small
    one first."""
    def joint(calls, path):
        fwd = path.with_suffix(".fwd.txt")
        fwd.write_text(mlp_forward(calls))
        subprocess.run([exe, "joint", str(fwd), "-o", str(path)], check=True,
                       capture_output=True)
        fwd.unlink()
        return sum(1 for line in path.read_text().splitlines()
                   if re.match(r'\s+\w+(: "[^"]*")? = ', line)) + 3
    probe = pathlib.Path(tmp) / "probe.joint.txt"
    per_call = joint(400, probe) / 400.0
    probe.unlink()
    path = pathlib.Path(tmp) / ("mlp-%d.joint.txt" % nodes)
    joint(max(4, int(nodes / per_call) // 4 * 4), path)
    return path


def time_torch(gm, nfwd, params, repeat, mode=None):
    """(best seconds of the partition call, saved names in order)."""
    best, saved = None, None
    for _ in range(repeat):
        g = copy.deepcopy(gm)
        ctx = mode if mode is not None else contextlib.nullcontext()
        with ctx:
            t = time.perf_counter()
            fw, _ = partitioners.min_cut_rematerialization_partition(
                g, None, num_fwd_outputs=nfwd,
                static_lifetime_input_indices=list(range(params)))
            dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
        out = list(fw.graph.nodes)[-1].args[0][nfwd:]
        saved = [a.meta.get("symcut_name", a.name) for a in out
                 if a is not None]
    return best, saved


def time_symcut(exe, path, repeat, tmp, extra=()):
    """(best wall seconds of the whole command, best phase total, saved
    names in order) or (None, None, why); the graphs and the report go to
    the directory tmp."""
    best, phases, saved = None, None, None
    out = str(pathlib.Path(tmp) / pathlib.Path(path).name)
    for _ in range(repeat):
        t = time.perf_counter()
        r = subprocess.run([exe, "partition", str(path), "--policy",
                            "pytorch-2.13", "--format", "json",
                            "--fw", out + ".fw.txt", "--bw", out + ".bw.txt",
                            "-o", out + ".json", *extra],
                           capture_output=True, text=True)
        dt = time.perf_counter() - t
        if r.returncode != 0:
            return None, None, r.stderr.strip().splitlines()[-1:]
        d = json.loads(pathlib.Path(out + ".json").read_text())
        saved = d["saved_tensors"] + d["saved_symints"]
        best = dt if best is None else min(best, dt)
        ph = d["timings"]["total"]
        phases = ph if phases is None else min(phases, ph)
    return best, phases, saved


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--symcut", default=str(ROOT / "build" / "symcut"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-examples", action="store_true")
    ap.add_argument("--blocks", default="500")
    ap.add_argument("--sizes", default="10000,100000")
    a = ap.parse_args()
    blocks = [int(x) for x in a.blocks.split(",") if x]
    sizes = [int(float(x)) for x in a.sizes.split(",") if x]
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 100000))
    # warm-up: torch's first partition imports and initializes what later
    # calls reuse (seconds); it is not timed
    wgm, wnfwd, wparams = model_joint(Residual(2, 4), torch.randn(2, 4))
    time_torch(wgm, wnfwd, wparams, 1)
    rows = []
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-torch-partition-"))
    texts = [] if a.no_examples else \
        sorted((ROOT / "examples").glob("*.joint.txt")) + \
        sorted((ROOT / "examples" / "zoo").glob("*.joint.txt"))

    def row(name, n, tt, tsaved, sc, ph, ssaved):
        rows.append((name, n, tt, sc, ph,
                     "yes" if sc is not None and tsaved == ssaved else "no"))
        print("%s: %d nodes, torch %.4f s, symcut %s s, same saved set: %s"
              % (name, n, tt, "%.4f" % sc if sc is not None else ssaved,
                 rows[-1][-1]), file=sys.stderr, flush=True)

    for p in texts:
        text = p.read_text()
        hints = oracle.parse_directives(text)["hint"]
        hfile = p.with_name(p.name.replace(".joint.txt", ".hints"))
        if hfile.exists():  # the zoo's dynamic graphs
            for item in hfile.read_text().replace(",", " ").split():
                k, v = item.split("=")
                hints[k] = int(v)
        try:
            b = oracle.Builder(text, hints)
            graph = b.build()
        except Exception as e:
            print("skip %s: %s" % (p.name, e), file=sys.stderr)
            continue
        gm = torch.fx.GraphModule(torch.nn.Module(), graph)
        nprim = sum(1 for n in b.placeholders if n.target.startswith("primals"))
        nfwd = len(list(graph.nodes)[-1].args[0]) - nprim
        try:
            tt, tsaved = time_torch(gm, nfwd, 0, a.repeat, b.mode)
        except Exception as e:
            print("skip %s: torch: %s" % (p.name, str(e).splitlines()[:1]),
                  file=sys.stderr)
            continue
        sc, ph, ssaved = time_symcut(a.symcut, p, a.repeat, tmp,
                                     ("--num-fwd-outputs", str(nfwd),
                                      "--params", "0") +
                                     (("--hint", ",".join(
                                         "%s=%d" % kv for kv in hints.items()))
                                      if hints else ()))
        row(("zoo/" if p.parent.name == "zoo" else "") +
            p.name.replace(".joint.txt", ""), len(graph.nodes), tt, tsaved,
            sc, ph, ssaved)
    for name, gm, nfwd, params in traced(a.quick, blocks):
        path = tmp / (name + ".joint.txt")
        path.write_text("# symcut: params %d\n" % params +
                        gm.print_readable(print_output=False,
                                          include_stride=True,
                                          include_device=True))
        n = len(gm.graph.nodes)
        rep = a.repeat if n <= 20000 else 1
        tt, tsaved = time_torch(gm, nfwd, params, rep)
        sc, ph, ssaved = time_symcut(a.symcut, path, rep, tmp,
                                     ("--num-fwd-outputs", str(nfwd)))
        row(name, n, tt, tsaved, sc, ph, ssaved)
        del gm
    for size in (sizes if not a.quick else (2000,)):
        path = mlp_joint(a.symcut, size, tmp)
        text = path.read_text()
        t0 = time.perf_counter()
        b = oracle.Builder(text, oracle.parse_directives(text)["hint"])
        graph = b.build()
        print("mlp-%d: rebuilt for torch in %.1f s" % (
            size, time.perf_counter() - t0), file=sys.stderr, flush=True)
        gm = torch.fx.GraphModule(torch.nn.Module(), graph)
        nprim = sum(1 for n in b.placeholders
                    if n.target.startswith("primals"))
        nfwd = len(list(graph.nodes)[-1].args[0]) - nprim
        n = len(graph.nodes)
        rep = a.repeat if n <= 20000 else 1
        tt, tsaved = time_torch(gm, nfwd, 0, rep, b.mode)
        sc, ph, ssaved = time_symcut(a.symcut, path, rep, tmp,
                                     ("--num-fwd-outputs", str(nfwd),
                                      "--params", "0"))
        row("mlp-joint-%d" % size, n, tt, tsaved, sc, ph, ssaved)
        del gm, graph, b
    shutil.rmtree(tmp, ignore_errors=True)
    print("| graph | nodes | torch 2.13 s | symcut command s | symcut phases s "
          "| torch/symcut | same |")
    print("|---|---|---|---|---|---|---|")
    for name, n, tt, sc, ph, same in rows:
        print("| %s | %d | %.4f | %s | %s | %s | %s |" % (
            name, n, tt, "%.4f" % sc if sc is not None else "failed",
            "%.4f" % ph if ph is not None else "-",
            "%.1f" % (tt / sc) if sc else "-", same))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""symcut validate on a GPT-2-small block's joint graph against PyTorch eager
executing the same joint graph, side by side (one thread each).

    /work/venv/bin/python bench/bench_validate_eager.py [--symcut build/symcut]
        [--batch 8] [--seq 512] [--d 768] [--heads 12] [--repeat 3] [--keep DIR]

The joint is traced here with torch 2.13 (the block of tools/zoo/models.py,
GPT2Block, at d=768 and 12 heads, float32, on x[batch, seq, d]): the
partition function of aot_autograd receives the joint module, whose
print_readable text is written to a temporary folder (--keep DIR: there).
Then, timed as whole processes / calls:
  * torch eager: the joint GraphModule called on the real inputs and
    seeded tangents with torch.set_num_threads(1) (the same aten ops the
    text names, through PyTorch's CPU kernels);
  * symcut run JOINT (one execution of the joint on random inputs);
  * symcut validate JOINT (partition, then the joint and the forward +
    backward executed and compared: two executions).
Prints the best of --repeat wall and CPU times (CPU: this process for
torch, the finished child for symcut; on a loaded shared machine the CPU
time is the fairer figure) and the ratios (symcut / torch).  A benchmark,
never a test: the numbers depend on the machine and its load.
"""
import argparse
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func
from torch._functorch.partitioners import min_cut_rematerialization_partition

TOP = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TOP / "tools" / "zoo"))
from models import GPT2Block  # noqa: E402


def trace_joint(model, x):
    got = {}

    def partition_fn(joint, joint_inputs, **kw):
        got["joint"] = joint
        return min_cut_rematerialization_partition(joint, joint_inputs, **kw)

    def compiler(gm, example_inputs):
        return make_boxed_func(gm.forward)

    be = aot_autograd(fw_compiler=compiler, bw_compiler=compiler,
                      partition_fn=partition_fn)
    torch._dynamo.reset()
    f = torch.compile(model, backend=be, fullgraph=True, dynamic=False)
    f(x).sum().backward()
    return got["joint"]


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def best(fn, repeat, child):
    """(best wall seconds, best CPU seconds) of repeat calls: CPU time of
    this process (torch) or of the finished children (symcut), so that a
    loaded shared machine shows in the wall time only."""
    walls, cpus = [], []
    for _ in range(repeat):
        c0 = child_cpu() if child else time.process_time()
        t0 = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append((child_cpu() if child else time.process_time()) - c0)
    return min(walls), min(cpus)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--symcut", default=str(TOP / "build" / "symcut"))
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--d", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep")
    a = ap.parse_args()
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(1234)
    torch.manual_seed(1234)
    model = GPT2Block(d=a.d, heads=a.heads)
    x = torch.randn(a.batch, a.seq, a.d, generator=gen)
    joint = trace_joint(model, x)
    tmp = a.keep or tempfile.mkdtemp(prefix="bench_validate_eager.")
    os.makedirs(tmp, exist_ok=True)
    path = os.path.join(tmp, "gpt2_small_block.joint.txt")
    text = joint.print_readable(print_output=False, include_stride=True,
                                include_device=True)
    with open(path, "w") as fh:
        fh.write(text)

    # the joint's inputs: parameters and x as primals, seeded tangents
    ph = [n for n in joint.graph.nodes if n.op == "placeholder"]
    args = []
    tg = torch.Generator().manual_seed(1235)
    for n in ph:
        v = n.meta["val"]
        args.append(torch.randn(v.shape, generator=tg, dtype=v.dtype)
                    if v.dtype.is_floating_point else torch.zeros(v.shape, dtype=v.dtype))
    flops = 0
    for n in joint.graph.nodes:
        if n.op == "call_function" and "mm" in str(n.target):
            v = n.meta["val"]
            a0 = n.args[-2].meta["val"]
            flops += 2 * v.numel() * a0.shape[-1]

    def eager():
        with torch.no_grad():
            joint(*args)

    eager()  # warm-up
    t_eager = best(eager, a.repeat, False)

    def sc(cmd):
        def go():
            r = subprocess.run([a.symcut, cmd, path], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
            if r.returncode != 0 or (cmd == "validate" and "PASS" not in r.stdout):
                sys.exit("symcut %s failed: %s%s" % (cmd, r.stdout[-500:], r.stderr[-500:]))
        return go

    t_run = best(sc("run"), a.repeat, True)
    t_val = best(sc("validate"), a.repeat, True)
    print("GPT-2 block joint: d=%d heads=%d x[%d, %d, %d]; %d nodes; matmul work %.1f GFLOP"
          % (a.d, a.heads, a.batch, a.seq, a.d, len(joint.graph.nodes), flops / 1e9))
    print("%-34s %9s %8s %9s %8s" % ("", "wall s", "ratio", "CPU s", "ratio"))
    for name, t in (("torch eager, joint (1 thread)", t_eager),
                    ("symcut run joint", t_run),
                    ("symcut validate (2 executions)", t_val)):
        print("%-34s %9.2f %8.2f %9.2f %8.2f"
              % (name, t[0], t[0] / t_eager[0], t[1], t[1] / t_eager[1]))
    print("joint text: %s" % path)
    if not a.keep:
        import shutil
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()

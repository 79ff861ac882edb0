"""partition_fn time: symcut.torch.partition_fn against torch 2.13's
min_cut_rematerialization_partition on the same joint modules (captured
from torch.compile), in one process, both called the same way on fresh
copies of the joint module.  Models: zoo models (tools/zoo/models.py), a
24-layer transformer (the zoo's GPT-2 block, stacked: transformer24) and
a 500-block residual MLP (mlp500); `transformerN` and `mlpN` give other
depths.  Prints both times (median of --repeat), the ratio torch/symcut
(above 1: symcut is faster) and whether symcut decided or fell back;
symcut's time includes PyTorch's preparation and extraction, which both
share.

    SYMCUT_LIB=build/.libs/libsymcut.so nice -n 19 /work/venv/bin/python \
        bench/bench_python_partition.py [--repeat 5] [--policy P] [MODEL...]
"""
import argparse
import copy
import pathlib
import statistics
import sys
import time
import warnings

SRC = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(SRC / "python"))
sys.path.insert(0, str(SRC / "tools" / "zoo"))
import torch  # noqa: E402
import symcut  # noqa: E402
import symcut.torch as st  # noqa: E402
import models  # noqa: E402
from torch._functorch.partitioners import \
    min_cut_rematerialization_partition as torch_pf  # noqa: E402

DEFAULT = ["mlp_gelu", "cnn", "gpt2_block", "embedding_ce", "resnet",
           "gpt2_block_dyn", "transformer4", "mlp50", "transformer24",
           "mlp500"]


class Stack(torch.nn.Module):
    def __init__(self, blocks, head=None):
        super().__init__()
        self.blocks = torch.nn.ModuleList(blocks)
        self.head = head

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x if self.head is None else self.head(x)


class ResBlock(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = torch.nn.Linear(d, d)

    def forward(self, x):
        return x + torch.relu(self.fc(x))


def build(name, gen):
    """(model, inputs, dynamic) of a zoo name, transformerN or mlpN."""
    if name.startswith("transformer") and name[11:].isdigit():
        torch.manual_seed(1234)
        return (Stack([models.GPT2Block() for _ in range(int(name[11:]))]),
                (torch.randn(2, 8, 32, generator=gen),), False)
    if name.startswith("mlp") and name[3:].isdigit():
        torch.manual_seed(1234)
        return (Stack([ResBlock(32) for _ in range(int(name[3:]))],
                      torch.nn.Linear(32, 1)),
                (torch.randn(8, 32, generator=gen),), False)
    case = models.BY_NAME[name]
    model, inputs = case.build(gen)
    return model, inputs, case.dynamic


def capture(name):
    """The joint modules (and partition_fn arguments) of one model."""
    gen = torch.Generator().manual_seed(1234)
    model, inputs, dynamic = build(name, gen)
    got = []

    def pf(joint, joint_inputs, compiler="inductor", **kw):
        got.append((copy.deepcopy(joint), joint_inputs, compiler, kw))
        return torch_pf(joint, joint_inputs, compiler, **kw)

    from torch._dynamo.backends.common import aot_autograd
    from torch._dynamo.backends.debugging import boxed_nop
    torch._dynamo.reset()
    fn = torch.compile(model, dynamic=dynamic, fullgraph=True,
                       backend=aot_autograd(fw_compiler=boxed_nop,
                                            partition_fn=pf))
    out = fn(*inputs)
    (out[0] if isinstance(out, tuple) else out).float().sum().backward()
    return got


def timed(fn, joint, args, repeat):
    """(median seconds, the last result)."""
    ts = []
    for _ in range(repeat):
        j = copy.deepcopy(joint)
        t0 = time.perf_counter()
        res = fn(j, args[0], args[1], **args[2])
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--policy", default="pytorch-2.13")
    ap.add_argument("--memory-budget", default=None,
                    help="symcut's memory_budget (both sides get it as "
                    "activation_memory_budget when it is a ratio)")
    ap.add_argument("models", nargs="*", default=DEFAULT)
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    from torch._functorch import config as fconfig
    budget = a.memory_budget
    ratio = 1.0
    if budget is not None:
        kind, v = symcut.parse_memory_budget(budget)
        ratio = v if kind == 2 else 1.0
        budget = v if kind == 2 else budget
    print("library: %s, policy %s, memory budget %s, median of %d"
          % (symcut.library_path, a.policy, budget, a.repeat))
    print("symcut ms = text ms (print_readable) + lib ms (read, partition "
          "in libsymcut) + PyTorch's preparation and extraction")
    print("%-16s %6s %10s %10s %7s %8s %8s %5s  %s" % (
        "model", "nodes", "torch ms", "symcut ms", "ratio", "text ms",
        "lib ms", "same", "symcut"))

    def theirs(j, ji, c, **kw):
        with fconfig.patch(activation_memory_budget=ratio):
            return torch_pf(j, ji, c, **kw)

    real_decide, real_text = st.decide, st.joint_text

    def decide(*args, **kw):
        t0 = time.perf_counter()
        try:
            return real_decide(*args, **kw)
        finally:
            ours.c_time += time.perf_counter() - t0

    def joint_text(gm):
        t0 = time.perf_counter()
        try:
            return real_text(gm)
        finally:
            ours.text_time += time.perf_counter() - t0

    def ours(j, ji, c, **kw):
        ours.c_time = ours.text_time = 0.0
        fw, bw = st.partition_fn(j, ji, c, policy=a.policy,
                                 memory_budget=budget, **kw)
        ours.fallback = fw.meta.get("symcut", {}).get("fallback")
        return fw, bw
    st.decide, st.joint_text = decide, joint_text

    for name in a.models:
        for k, (joint, ji, comp, kw) in enumerate(capture(name)):
            tt, (tfw, _) = timed(theirs, joint, (ji, comp, kw), a.repeat)
            ts, (fw, _) = timed(ours, joint, (ji, comp, kw), a.repeat)
            n = kw["num_fwd_outputs"]
            same = st.saved_values(fw, n) == st.saved_values(tfw, n)
            print("%-16s %6d %10.1f %10.1f %7.2f %8.1f %8.1f %5s  %s" % (
                name + ("" if k == 0 else "#%d" % k),
                len(joint.graph.nodes), tt * 1e3, ts * 1e3, tt / ts,
                ours.text_time * 1e3, (ours.c_time - ours.text_time) * 1e3,
                "yes" if same else "NO",
                "fallback: " + ours.fallback[:50] if ours.fallback
                else "decided"), flush=True)


if __name__ == "__main__":
    main()

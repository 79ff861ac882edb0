"""partition_fn time: symcut.torch.partition_fn against torch 2.13's
min_cut_rematerialization_partition on the same joint modules (captured
from torch.compile of zoo models), in one process, both called the same
way on fresh copies.  Prints both times (median of --repeat) and the
ratio.

    SYMCUT_LIB=build/.libs/libsymcut.so /work/venv/bin/python \
        bench/bench_python_partition.py [--repeat 5] [MODEL...]
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
           "gpt2_block_dyn"]


def capture(name):
    """The joint modules (and partition_fn arguments) of one model."""
    case = models.BY_NAME[name]
    gen = torch.Generator().manual_seed(1234)
    model, inputs = case.build(gen)
    got = []

    def pf(joint, joint_inputs, compiler="inductor", **kw):
        got.append((copy.deepcopy(joint), joint_inputs, compiler, kw))
        return torch_pf(joint, joint_inputs, compiler, **kw)

    from torch._dynamo.backends.common import aot_autograd
    from torch._dynamo.backends.debugging import boxed_nop
    torch._dynamo.reset()
    fn = torch.compile(model, dynamic=case.dynamic, fullgraph=True,
                       backend=aot_autograd(fw_compiler=boxed_nop,
                                            partition_fn=pf))
    out = fn(*inputs)
    (out[0] if isinstance(out, tuple) else out).float().sum().backward()
    return got


def timed(fn, joint, args, repeat):
    ts = []
    for _ in range(repeat):
        j = copy.deepcopy(joint)
        t0 = time.perf_counter()
        fn(j, args[0], args[1], **args[2])
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--policy", default=("pytorch-2.13" if "pytorch-2.13"
                                         in symcut.policies() else "pytorch"))
    ap.add_argument("models", nargs="*", default=DEFAULT)
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    print("library: %s, policy %s, median of %d" % (symcut.library_path,
                                                   a.policy, a.repeat))
    print("%-22s %6s %12s %12s %7s  %s" % ("model", "nodes", "torch ms",
                                          "symcut ms", "ratio", "symcut"))

    def ours(j, ji, c, **kw):
        fw, _ = st.partition_fn(j, ji, c, policy=a.policy, **kw)
        ours.fallback = fw.meta.get("symcut", {}).get("fallback")

    for name in a.models:
        for k, (joint, ji, comp, kw) in enumerate(capture(name)):
            tt = timed(torch_pf, joint, (ji, comp, kw), a.repeat)
            ts = timed(ours, joint, (ji, comp, kw), a.repeat)
            print("%-22s %6d %12.2f %12.2f %7.2f  %s" % (
                name + ("" if k == 0 else "#%d" % k),
                len(joint.graph.nodes), tt * 1e3, ts * 1e3, tt / ts,
                "fallback: " + ours.fallback[:60] if ours.fallback
                else "decided"))


if __name__ == "__main__":
    main()

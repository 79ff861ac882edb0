"""Write the joint graphs torch 2.13's AOTAutograd builds for one op each.

For every case below, the op is traced with aot_function (no decompositions,
the default partitioner) and the joint graph it hands the partitioner is
written, as torch prints it (print_readable with strides and devices), to
OUT/<name>.joint.txt.  tests/check_autodiff.c cuts the forward part out of
each, builds symcut's joint graph from it and compares the backward ops
with torch's.

    /work/venv/bin/python tools/autodiff/gen_joints.py tests/data/autodiff-2.13
"""
import os
import sys

import torch
from torch._functorch.aot_autograd import aot_function
from torch._functorch.partitioners import default_partition
from functorch.compile import make_boxed_func

aten = torch.ops.aten


def cases():
    g = torch.Generator().manual_seed(0)

    def rnd(*s, grad=True):
        return torch.randn(*s, generator=g).requires_grad_(grad)

    x4 = rnd(2, 3, 4, 4)
    w3, b3 = rnd(3), rnd(3)
    rm, rv = torch.randn(3, generator=g), torch.rand(3, generator=g) + 0.5
    yield ("bn_no_training",
           lambda x, w, b, m, v: aten._native_batch_norm_legit_no_training(
               x, w, b, m, v, 0.1, 1e-5)[0],
           (x4, w3, b3, rm, rv))
    yield ("bn_no_stats",
           lambda x, w, b: aten._native_batch_norm_legit.no_stats(
               x, w, b, True, 0.1, 1e-5)[0],
           (rnd(4, 3, 2), w3, b3))
    yield ("adaptive_avg_pool2d",
           lambda x: aten._adaptive_avg_pool2d(x, [2, 3]), (rnd(2, 3, 5, 7),))
    yield ("var_mean_dim",
           lambda x: aten.var_mean.correction(x, [1], correction=1),
           (rnd(3, 4),))
    yield ("var_mean_all", lambda x: aten.var_mean.correction(x), (rnd(3, 4),))
    yield ("var_mean_var_only",
           lambda x: aten.var_mean.correction(x, [0], correction=0,
                                              keepdim=True)[0],
           (rnd(3, 4),))
    mask = torch.rand(3, 4, generator=g) > 0.5
    yield ("masked_scatter",
           lambda x, s, m: aten.masked_scatter(x, m, s),
           (rnd(3, 4), rnd(3, 5), mask))
    idx = torch.tensor([0, 2])
    yield ("index_put",
           lambda x, v, i: aten.index_put(x, [i], v), (rnd(4, 3), rnd(2, 3), idx))
    yield ("index_put_accumulate",
           lambda x, v, i: aten.index_put(x, [i], v, True),
           (rnd(4, 3), rnd(3), torch.tensor([0, 2, 2, 1, 0])))


def main(out, only=None):
    os.makedirs(out, exist_ok=True)
    for name, fn, args in cases():
        if only is not None and name != only:
            continue
        texts = []

        def part(joint, joint_inputs, **kw):
            texts.append(joint.print_readable(print_output=False,
                                              include_stride=True,
                                              include_device=True))
            return default_partition(joint, joint_inputs, **kw)

        def keep(gm, _):
            return make_boxed_func(gm.forward)

        f = aot_function(fn, fw_compiler=keep, bw_compiler=keep,
                         partition_fn=part)
        f(*args)
        with open(os.path.join(out, name + ".joint.txt"), "w") as fh:
            fh.write(texts[0])
        if only is None:
            print(name)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/autodiff-2.13")

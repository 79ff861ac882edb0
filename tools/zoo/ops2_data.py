"""Reference graphs and data for the indexing and prims ops of the op table
(tests/check_ops2.c), produced with torch 2.13.

For every case: the function's aten graph as make_fx traces it (fake
tensors: the annotations are torch's meta functions') and
print_readable prints it (sizes, strides, device) in CASE.txt, and in
CASE.data/ its inputs (<placeholder>.npy) and torch's outputs
(out_K.npy), every file float32, int64, int32 or bool (bfloat16 values are
converted inside the graph).  The C test reads each text (symcut's shape
rules must give torch's sizes and strides on every node), runs it on the
inputs and compares every output with torch's bit for bit.

    /work/venv/bin/python tools/zoo/ops2_data.py [--out tests/data/ops2]
"""
import argparse
import pathlib
import shutil

import numpy as np
import torch
from torch.fx.experimental.proxy_tensor import make_fx

prims = torch.ops.prims


def cases(gen):
    def randn(*s):
        return torch.randn(*s, generator=gen)

    idx = torch.tensor([3, 0, 3, 1, 5, 3])
    out = {}

    def index_select(x, i, i0):
        return (torch.index_select(x, 1, i), torch.index_select(x.t(), 0, i),
                torch.index_select(x, 0, i0))
    out["index_select"] = (index_select, (randn(6, 5), idx[:4], torch.tensor(2)))

    def index_add(x, i, s0, s1):
        return (torch.index_add(x, 0, i, s0, alpha=2.5),
                torch.index_add(x, 1, i[:4].int(), s1))
    out["index_add"] = (index_add, (randn(6, 5), idx, randn(6, 5), randn(6, 4)))

    def index_add_bf16(x, i, s):
        return (torch.index_add(x.bfloat16(), 0, i, s.bfloat16()).float(),
                torch.index_add(x.bfloat16(), 0, i, s.bfloat16(), alpha=0.3).float())
    out["index_add_bf16"] = (index_add_bf16, (randn(6, 5), idx, randn(6, 5)))

    def masked_scatter(x, m, m1, s):
        return (torch.masked_scatter(x, m, s),
                torch.masked_scatter(x.t(), m1, s))
    x = randn(4, 6)
    out["masked_scatter"] = (masked_scatter, (
        x, torch.rand(4, 6, generator=gen) > 0.4,
        torch.rand(4, generator=gen) > 0.5, randn(30)))

    def scatter(x, i, i1, s):
        return (torch.ops.aten.scatter.value(x, 1, i, 2.5),
                torch.ops.aten.scatter.src(x, 0, i1, s),
                torch.ops.aten.scatter.src(x.t(), 1, i1.t(), s.t()))
    out["scatter"] = (scatter, (
        randn(4, 6), torch.randint(0, 6, (3, 4), generator=gen),
        torch.stack([torch.randperm(4, generator=gen)[:3] for _ in range(6)], 1),
        randn(4, 6)))

    def batch_norm(x, w, b, rm, rv):
        a = torch.ops.aten
        r0 = a._native_batch_norm_legit_no_training.default(x, w, b, rm, rv, 0.1, 1e-5)
        r1 = a._native_batch_norm_legit.no_stats(x, w, b, True, 0.1, 1e-5)
        r2 = a._native_batch_norm_legit_no_training.default(
            x.bfloat16(), w, b, rm, rv, 0.1, 1e-5)
        return (r0[0], r1[0], r1[1], r1[2], r2[0].float())
    out["batch_norm"] = (batch_norm, (
        randn(3, 4, 5, 2), randn(4), randn(4), randn(4),
        torch.rand(4, generator=gen) + 0.5))

    def adaptive_avg_pool2d(x, g):
        a = torch.ops.aten
        cl = x.contiguous(memory_format=torch.channels_last)
        y = a._adaptive_avg_pool2d.default(x, [3, 2])
        return (y, a._adaptive_avg_pool2d.default(cl, [4, 3]),
                a._adaptive_avg_pool2d.default(x[0], [2, 4]),
                a._adaptive_avg_pool2d.default(x.bfloat16(), [3, 2]).float(),
                a._adaptive_avg_pool2d_backward.default(g, x))
    out["adaptive_avg_pool2d"] = (adaptive_avg_pool2d, (randn(2, 3, 7, 5), randn(2, 3, 3, 2)))

    def index(x, i, j):
        a = torch.ops.aten.index.Tensor
        xt = x.transpose(0, 2)
        return (a(x, [i]), a(x, [None, i, j]), a(x, [i, None, j]),
                a(xt, [None, j]), a(xt, [j, None, i]), a(x.permute(1, 2, 0), [None, None, i]))
    out["index"] = (index, (randn(5, 4, 3), torch.tensor([[3], [-1]]),
                            torch.tensor([2, 0, -3])))

    def index_put(x, i, j, v, w):
        a = torch.ops.aten.index_put.default
        return (a(x, [i, None, j], v), a(x, [None, i], w, True),
                a(x.transpose(0, 1), [j], w[:, 0, 0], True))
    out["index_put"] = (index_put, (randn(5, 4, 3), torch.tensor([[3], [1]]),
                                    torch.tensor([2, 0, 2]), randn(4),
                                    randn(5, 2, 1, 3)))

    def var_mean(x):
        a = torch.ops.aten.var_mean.correction
        return (a(x, [1], keepdim=True) + a(x, None, correction=0) +
                a(x.t(), [0, 1], correction=2) + a(x, [-1]))
    out["var_mean"] = (var_mean, (randn(6, 7) * 3 + 1,))

    def convert(x):
        b = prims.convert_element_type.default(x.t(), torch.bfloat16)
        return (prims.convert_element_type.default(b, torch.float32),
                prims.convert_element_type.default(x * 1000, torch.int32),
                prims.transpose.default(x, [1, 0]) * 2)
    out["convert_element_type"] = (convert, (randn(4, 6) * 3,))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    top = pathlib.Path(__file__).resolve().parents[2]
    ap.add_argument("--out", default=str(top / "tests" / "data" / "ops2"))
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(2013)
    for name, (fn, args) in cases(gen).items():
        gm = make_fx(fn, tracing_mode="fake")(*args)
        text = gm.print_readable(print_output=False, include_stride=True,
                                 include_device=True)
        (out / ("%s.txt" % name)).write_text(text)
        d = out / ("%s.data" % name)
        if d.exists():
            shutil.rmtree(d)
        d.mkdir()
        phs = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
        for p, x in zip(phs, args):
            np.save(d / ("%s.npy" % p), x.numpy())
        res = gm(*args)
        if not isinstance(res, (tuple, list)):
            res = (res,)
        for k, r in enumerate(res):
            assert r.dtype != torch.bfloat16, name
            np.save(d / ("out_%d.npy" % k), r.contiguous().numpy())
        print("ops2: %s: %d inputs, %d outputs" % (name, len(phs), len(res)))


if __name__ == "__main__":
    main()

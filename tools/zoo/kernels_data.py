"""Reference graphs and data for bit-exactness rows of tests/check_kernels.c,
produced with torch 2.13 (CPU, one thread).

For every case: the function's aten graph as make_fx traces it (fake
tensors) and print_readable prints it, in tests/data/kernels/CASE/graph.txt,
its inputs (<placeholder>.npy) and torch's outputs (out_K.npy, all float32).
The C test runs each graph on the inputs and compares every output with
torch's bit for bit.

    /work/venv/bin/python tools/zoo/kernels_data.py [--out tests/data/kernels]

Cases:
  batch_norm_f32  _native_batch_norm_legit_functional (training: output,
                  saved mean and invstd, new running mean and var),
                  _native_batch_norm_legit_no_training (eval), both on a
                  [3, 64, 7, 9] input, and native_batch_norm in training on a
                  2-d [37, 24] input (a plane of one element).
"""
import argparse
import pathlib
import shutil

import numpy as np
import torch
from torch.fx.experimental.proxy_tensor import make_fx


def cases(gen):
    def randn(*s):
        return torch.randn(*s, generator=gen)

    def rand(*s):
        return torch.rand(*s, generator=gen)

    out = {}

    def batch_norm(x, w, b, rm, rv, x2, w2, b2, rm2, rv2):
        a = torch.ops.aten
        r0 = a._native_batch_norm_legit_functional.default(
            x, w, b, rm, rv, True, 0.1, 1e-5)
        r1 = a._native_batch_norm_legit_no_training.default(
            x, w, b, rm, rv, 0.1, 1e-5)
        r2 = a.native_batch_norm.default(x2, w2, b2, rm2, rv2, True, 0.1, 1e-5)
        return (r0[0], r0[1], r0[2], r0[3], r0[4], r1[0], r2[0], r2[1], r2[2])
    out["batch_norm_f32"] = (batch_norm, (
        randn(3, 64, 7, 9) * 3 + 0.7, randn(64), randn(64), randn(64),
        rand(64) + 0.5,
        randn(37, 24) * 2 - 0.3, randn(24), randn(24), randn(24),
        rand(24) + 0.5))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    top = pathlib.Path(__file__).resolve().parents[2]
    ap.add_argument("--out", default=str(top / "tests" / "data" / "kernels"))
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(2013)
    for name, (fn, args) in cases(gen).items():
        d = out / name
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        gm = make_fx(fn, tracing_mode="fake")(*[x.clone() for x in args])
        text = gm.print_readable(print_output=False, include_stride=True,
                                 include_device=True)
        (d / "graph.txt").write_text(text)
        phs = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
        for p, x in zip(phs, args):
            np.save(d / ("%s.npy" % p), x.numpy())
        res = fn(*[x.clone() for x in args])
        for k, r in enumerate(res):
            assert r.dtype == torch.float32, name
            np.save(d / ("out_%d.npy" % k), r.contiguous().numpy())
        print("kernels: %s: %d inputs, %d outputs" % (name, len(phs), len(res)))


if __name__ == "__main__":
    main()

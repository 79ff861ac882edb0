"""Reference graphs and data for the prims of decomposed graphs
(prims.broadcast_in_dim, iota, device_put, add, mul, sum; also
convert_element_type and transpose), produced with torch 2.13, for
tests/check_prims.c and tests/prims_cli.sh.

Each case is a function traced by make_fx on fake CPU tensors (so every
annotation is torch's prims meta function's), either under
torch._prims.context.TorchRefsMode (torch's own decompositions of aten
calls into prims: torch.add with broadcasting becomes broadcast_in_dim and
prims.add, torch.arange becomes iota) or calling torch.ops.prims directly.
(`dynamic` is traced with symbolic sizes.)  print_readable writes CASE.txt (sizes, strides, device); CASE.data/ holds
the inputs (<placeholder>.npy) and torch's outputs (out_K.npy) of the
traced module run eagerly on one thread, every file float32, float64,
int64, int32 or bool (bfloat16 values are converted inside the graph).

    /work/venv/bin/python tools/meta/gen_prims_data.py [--out tests/data/ops-prims]
"""
import argparse
import pathlib
import shutil

import numpy as np
import torch
from torch._prims.context import TorchRefsMode
from torch.fx.experimental.proxy_tensor import make_fx

prims = torch.ops.prims
cpu = torch.device("cpu")


def refs(fn):
    """fn traced under TorchRefsMode: its torch calls become prims."""
    def wrapped(*args):
        with TorchRefsMode():
            return fn(*args)
    wrapped.__name__ = fn.__name__
    return wrapped


def cases(gen):
    def randn(*s):
        return torch.randn(*s, generator=gen)

    out = {}

    # torch's decompositions: broadcasting add/mul become broadcast_in_dim
    # (stride 0 on new and broadcast dims) and same-shape prims.add/mul.
    def broadcast_add(x, y, z, w):
        return (torch.add(x, y), torch.mul(z, x), torch.add(w, x),
                torch.mul(x.t().unsqueeze(0), 3.0))
    out["broadcast_add"] = (refs(broadcast_add), (
        randn(4, 3), randn(3), randn(4, 1), randn(2, 1, 3)))

    # prims.broadcast_in_dim called directly: size-1 dims kept (their
    # stride), new size-1 dims (stride * size of the next dim, or 1 after
    # the last), a transposed input.
    def broadcast_in_dim(x, y):
        b = prims.broadcast_in_dim.default
        return (prims.mul.default(b(x, [2, 4, 3], [1, 2]),
                                  b(y, [2, 4, 3], [0, 2])),
                prims.add.default(b(x.t(), [1, 3, 5, 4], [1, 3]), 0.5),
                prims.mul.default(b(y, [2, 1, 3, 1], [0, 2]), 2.0),
                prims.add.default(b(x[:1], [1, 6, 3], [0, 2]), 1.0))
    out["broadcast_in_dim"] = (broadcast_in_dim, (randn(4, 3), randn(1, 3)))

    # prims.add / prims.mul: permuted and channels-last operands (the
    # elementwise stride order), a 0-d CPU tensor, numbers, int64, bool,
    # float64 and bfloat16.
    def elementwise(x, y, c, i, j, s, b):
        xt, yt = x.permute(2, 0, 1), y.permute(2, 0, 1)
        cl = c.contiguous(memory_format=torch.channels_last)
        xb = prims.convert_element_type.default(x, torch.bfloat16)
        return (prims.add.default(xt, yt), prims.mul.default(xt, y.transpose(1, 2).permute(1, 0, 2)),
                prims.add.default(cl, cl), prims.mul.default(cl, c),
                prims.mul.default(x, s), prims.add.default(s, x),
                prims.add.default(i, j), prims.mul.default(i, 7),
                prims.add.default(b, b.logical_not()), prims.mul.default(b, b),
                prims.add.default(x.double(), y.double()),
                prims.convert_element_type.default(
                    prims.mul.default(prims.add.default(xb, xb), 0.1),
                    torch.float32))
    out["elementwise"] = (elementwise, (
        randn(3, 4, 5), randn(3, 4, 5), randn(2, 3, 4, 2),
        torch.randint(-2**40, 2**40, (5, 2), generator=gen),
        torch.randint(-2**40, 2**40, (5, 2), generator=gen),
        randn(()), torch.rand(6, generator=gen) > 0.5))

    # prims.sum: over one dim (inner, outer, middle), several, all,
    # transposed inputs, lengths that take torch's vectorized and scalar
    # loops and the cascade's levels, float64, integers (prims.sum with
    # output_dtype does not run in torch: its aten implementation,
    # torch.sum, has no such argument).
    def sums(x, y, z, i):
        s = prims.sum.default
        return (s(x, [1]), s(x, [0]), s(x, [0, 1]), s(x.t(), [0]),
                s(x.t(), [1]), s(y, [0, 2]), s(y, [1]), s(y.permute(2, 0, 1), [1, 2]),
                s(z, [0]), s(z, [0]), s(z.view(100, 3), [0]), s(z.view(3, 100), [1]),
                s(x.double(), [1]), s(i, [0]),
                s(y[:, :, 1:], [2]))
    out["sum"] = (sums, (randn(37, 21) * 3, randn(5, 7, 40), randn(300), 
                         torch.randint(-2**40, 2**40, (6, 3), generator=gen)))

    # torch's decomposition of sums: of bfloat16 (through float32), with
    # keepdim, of a broadcast.
    def sum_refs(x, y):
        xb = x.bfloat16()
        return (torch.sum(xb, 1).float(), torch.sum(x, 0, keepdim=True),
                torch.sum(x + y, [0, 1]))
    out["sum_refs"] = (refs(sum_refs), (randn(6, 50), randn(50)))

    # iota: torch.arange decomposed, and prims.iota with negative steps and
    # int32.
    def iota(x):
        a = torch.arange(6)
        b = torch.arange(2, 20, 3)
        return (a, b, x + torch.arange(x.shape[0]))
    out["iota_refs"] = (refs(iota), (torch.randint(0, 9, (5,), generator=gen),))

    def iota_direct():
        i = prims.iota.default
        return (i(5, start=2, step=3, dtype=torch.int64, device=cpu, requires_grad=False),
                i(7, start=10, step=-4, dtype=torch.int32, device=cpu, requires_grad=False),
                i(0, start=0, step=1, dtype=torch.int64, device=cpu, requires_grad=False))
    out["iota"] = (iota_direct, ())

    # device_put keeps a's strides (TensorMeta of a), transposed and
    # expanded inputs.
    def device_put(x, y):
        d = prims.device_put.default
        return (d(x, cpu), prims.mul.default(d(x.t(), cpu), 2.0),
                prims.add.default(d(prims.broadcast_in_dim.default(y, [4, 3], [1]), cpu), x))
    out["device_put"] = (device_put, (randn(4, 3), randn(3)))

    # dynamic sizes (make_fx's symbolic mode): broadcast_in_dim to
    # SymInt sizes, prims.sum and iota of a symbolic length.
    def dynamic(x, y):
        return (torch.add(x, y).sum(0), torch.mul(x, y.unsqueeze(0)).sum(1),
                torch.arange(x.shape[0]))
    out["dynamic"] = (refs(dynamic), (randn(6, 20), randn(20)), "symbolic")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    top = pathlib.Path(__file__).resolve().parents[2]
    ap.add_argument("--out", default=str(top / "tests" / "data" / "ops-prims"))
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(2013)
    for name, (fn, args, *mode) in cases(gen).items():
        gm = make_fx(fn, tracing_mode=mode[0] if mode else "fake")(*args)
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
        print("ops-prims: %s: %d inputs, %d outputs" % (name, len(phs), len(res)))


if __name__ == "__main__":
    main()

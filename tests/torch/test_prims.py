"""The prims of decomposed graphs against torch 2.13, on random cases:
prims.sum over random dims of random (transposed, sliced) float32 and
float64 tensors, broadcast_in_dim to random shapes, and prims.add/mul of
permuted operands.  Each case is traced by make_fx on fake tensors (torch's
meta functions annotate it), read by symcut (which checks every annotation
against its shape rule, strides included) and run with `symcut run
--expect --rtol 0 --atol 0` against torch's eager outputs: bit for bit.

Seed and case count from SYMCUT_SEED / SYMCUT_CASES (printed)."""
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

from conftest import cases_from_env, seed_from_env  # noqa: E402

prims = torch.ops.prims


def random_case(rng):
    nd = rng.randint(1, 4)
    sizes = [rng.choice([1, 2, 3, 5, 8, 9, 17, 33, 40, 70]) for _ in range(nd)]
    while np.prod(sizes) > 30000:
        sizes[rng.randrange(nd)] = rng.randint(1, 9)
    perm = list(range(nd))
    rng.shuffle(perm)
    dtype = rng.choice([torch.float32, torch.float32, torch.float64])
    dims = sorted(rng.sample(range(nd), rng.randint(1, nd)))
    sliced = rng.random() < 0.3 and sizes[perm[-1]] > 2
    # broadcast_in_dim of the sum: new dims of size 1 or 3 around it
    out_nd = nd - len(dims)
    extra = rng.randint(0, 2)
    new = set(rng.sample(range(out_nd + extra), extra))
    bshape, bdims = [], []
    for i in range(out_nd + extra):
        if i in new:
            bshape.append(rng.choice([1, 3]))
        else:
            bdims.append(i)
            bshape.append(None)
    return sizes, perm, dtype, dims, sliced, bshape, bdims


def build(sizes, perm, dims, sliced, bshape, bdims):
    def fn(x, y):
        t = prims.transpose.default(x, perm)
        if sliced:
            t = t[..., 1:]
        s = prims.sum.default(t, dims)
        shape = list(bshape)
        j = 0
        for i, d in enumerate(shape):
            if d is None:
                shape[i] = s.shape[j]
                j += 1
        b = prims.broadcast_in_dim.default(s, shape, bdims)
        return (s, prims.mul.default(prims.add.default(t, y), 0.5),
                prims.add.default(b, 1.0))
    return fn


def test_prims_random(symcut, tmp_path):
    seed = seed_from_env(2013)
    ncases = cases_from_env(40)
    print("test_prims_random: SYMCUT_SEED=%d SYMCUT_CASES=%d" % (seed, ncases))
    rng = random.Random(seed)
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(seed)
    failures = []
    for case in range(ncases):
        sizes, perm, dtype, dims, sliced, bshape, bdims = random_case(rng)
        x = torch.randn(*sizes, generator=gen, dtype=dtype)
        t = x.permute(perm)
        if sliced:
            t = t[..., 1:]
        # y: the permuted operand's shape, laid out another way
        y = torch.randn(*reversed(t.shape), generator=gen, dtype=dtype)
        y = y.permute(*reversed(range(t.ndim)))
        fn = build(sizes, perm, dims, sliced, bshape, bdims)
        gm = make_fx(fn, tracing_mode="fake")(x, y)
        d = tmp_path / ("case%d" % case)
        d.mkdir()
        (d / "g.txt").write_text(gm.print_readable(
            print_output=False, include_stride=True, include_device=True))
        phs = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
        np.save(d / ("%s.npy" % phs[0]), x.numpy())
        np.save(d / ("%s.npy" % phs[1]), y.contiguous().numpy())
        for k, r in enumerate(gm(x, y)):
            np.save(d / ("out_%d.npy" % k), r.contiguous().numpy())
        r = symcut("run", d / "g.txt", "--inputs", d, "--expect", d,
                   "--rtol", "0", "--atol", "0")
        if r.returncode != 0:
            failures.append("case %d (sizes %s perm %s %s dims %s sliced %s "
                            "broadcast %s at %s): exit %d\n%s" % (
                                case, sizes, perm, dtype, dims, sliced,
                                bshape, bdims, r.returncode, r.stderr))
    assert not failures, "%d of %d cases differ:\n%s" % (
        len(failures), ncases, "\n".join(failures[:5]))

#!/usr/bin/env python3
"""Write tests/data/kernels/index/{in,out}/ and {in2,out2}/: inputs and
torch 2.13's outputs of tests/data/kernels/index/graph.txt (linear, gather,
max.dim, masked_select, diagonal, movedim) and graph2.txt (slice_scatter,
select_scatter, constant_pad_nd, baddbmm), which the golden cases
run/index-expect and run/scatter-expect check with `symcut run --inputs
--expect`.

Usage: gen_index_case.py DIR        (DIR: tests/data/kernels/index)
"""
import os
import sys

import numpy as np
import torch


def main(d):
    os.makedirs(os.path.join(d, "in"), exist_ok=True)
    os.makedirs(os.path.join(d, "out"), exist_ok=True)
    torch.manual_seed(0)
    x = torch.randn(3, 4)
    x[2, 1] = x[2, 3] = 5.0   # a tie: the first index wins
    w, b = torch.randn(5, 4), torch.randn(5)
    i = torch.randint(0, 4, (3, 2))
    m = torch.randn(3, 4) > 0
    y = torch.randn(2, 3, 4)
    for n, t in dict(x=x, w=w, b=b, i=i, m=m, y=y).items():
        np.save(os.path.join(d, "in", n + ".npy"), t.numpy())
    aten = torch.ops.aten
    v, ix = aten.max.dim(x, 1, True)
    outs = [aten.linear(x, w, b), aten.gather(x, 1, i), v, ix,
            aten.masked_select(x, m), aten.diagonal(y, 1, 1, 2).clone(),
            aten.movedim.int(y, 0, 2).contiguous()]
    for k, t in enumerate(outs):
        np.save(os.path.join(d, "out", "out_%d.npy" % k),
                t.contiguous().numpy())
    os.makedirs(os.path.join(d, "in2"), exist_ok=True)
    os.makedirs(os.path.join(d, "out2"), exist_ok=True)
    x, s, r, b = (torch.randn(4, 6), torch.randn(4, 2), torch.randn(6),
                  torch.randn(3))
    p, q = torch.randn(2, 3, 5), torch.randn(2, 5, 3)
    for n, t in dict(x=x, s=s, r=r, b=b, p=p, q=q).items():
        np.save(os.path.join(d, "in2", n + ".npy"), t.numpy())
    outs = [aten.slice_scatter(x, s, 1, 1, 5, 2),
            aten.select_scatter(x, r, 0, -1),
            aten.constant_pad_nd(x, [1, 2, -1, 0], 0.5),
            aten.baddbmm(b, p, q, beta=0.5, alpha=2)]
    for k, t in enumerate(outs):
        np.save(os.path.join(d, "out2", "out_%d.npy" % k),
                t.contiguous().numpy())


if __name__ == "__main__":
    main(sys.argv[1])

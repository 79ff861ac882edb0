#!/usr/bin/env python3
"""Write tests/data/kernels/sdpa/{in,out}/: inputs and torch 2.13's outputs
of tests/data/kernels/sdpa/graph.txt (CPU attention forward, causal and
with a scale, its backward, and _safe_softmax with a row of -inf), which
the golden case run/sdpa-expect checks with `symcut run --inputs --expect`.

Usage: gen_sdpa_case.py DIR        (DIR: tests/data/kernels/sdpa)
"""
import os
import sys

import numpy as np
import torch


def main(d):
    os.makedirs(os.path.join(d, "in"), exist_ok=True)
    os.makedirs(os.path.join(d, "out"), exist_ok=True)
    torch.manual_seed(0)
    q, k, v, go = (torch.randn(2, 2, 5, 4) for _ in range(4))
    x = torch.randn(3, 4)
    x[1] = float("-inf")
    for n, t in dict(q=q, k=k, v=v, go=go, x=x).items():
        np.save(os.path.join(d, "in", n + ".npy"), t.numpy())
    aten = torch.ops.aten
    o, lse = aten._scaled_dot_product_flash_attention_for_cpu(
        q, k, v, 0.0, True)
    dq, dk, dv = aten._scaled_dot_product_flash_attention_for_cpu_backward(
        go, q, k, v, o, lse, 0.0, True)
    o2, _ = aten._scaled_dot_product_flash_attention_for_cpu(
        q, k, v, 0.0, False, scale=0.3)
    s = aten._safe_softmax(x, 1)
    for i, t in enumerate([o, lse, dq, dk, dv, o2, s]):
        np.save(os.path.join(d, "out", "out_%d.npy" % i),
                t.contiguous().numpy())


if __name__ == "__main__":
    main(sys.argv[1])

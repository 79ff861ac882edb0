#!/usr/bin/env python3
"""Write tests/data/ops2/sdpa_efficient.txt and sdpa_efficient.data/: the
memory-efficient attention of torch 2.13 (with an additive attn_bias and a
scale, its backward with the bias's gradient, and a causal call without
bias or log-sum-exp) as make_fx traces it on fake CPU tensors (the
annotations are torch's meta functions': torch has no CPU kernel for these
ops), with reference outputs from torch's math attention on the CPU
(aten._scaled_dot_product_attention_math and autograd, in float64, then
rounded to float32), which tests/check_ops2.c compares symcut's kernels
with.  The log-sum-exp is compared on its first L columns only (torch
leaves its padding to a multiple of 32 uninitialized).

Usage: /work/venv/bin/python tools/meta/gen_sdpa_efficient_case.py \\
           [--out tests/data/ops2]
"""
import argparse
import pathlib
import shutil

import numpy as np
import torch
from torch.fx.experimental.proxy_tensor import make_fx

aten = torch.ops.aten
SCALE = 0.3


def traced(q, k, v, bias, go):
    qt = q.transpose(1, 2)
    o, lse, seed, off = aten._scaled_dot_product_efficient_attention(
        qt, k, v, bias, True, 0.0, False, scale=SCALE)
    dq, dk, dv, db = aten._scaled_dot_product_efficient_attention_backward(
        go, qt, k, v, bias, o, lse, seed, off, 0.0, [True, True, True, True],
        False, scale=SCALE)
    o2 = aten._scaled_dot_product_efficient_attention(
        qt, k, v, None, False, 0.0, True)[0]
    return o, lse[:, :, :qt.size(2)], dq, dk, dv, db, o2


def reference(q, k, v, bias, go):
    q, k, v, bias, go = (t.double().requires_grad_() for t in
                         (q, k, v, bias, go))
    qt = q.transpose(1, 2)
    o = aten._scaled_dot_product_attention_math(
        qt, k, v, attn_mask=bias, scale=SCALE)[0]
    lse = torch.logsumexp(qt @ k.transpose(-2, -1) * SCALE + bias, -1)
    dq, dk, dv, db = torch.autograd.grad(o, (qt, k, v, bias), go)
    o2 = aten._scaled_dot_product_attention_math(qt, k, v, is_causal=True)[0]
    return [t.detach().float() for t in (o, lse, dq, dk, dv, db, o2)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/data/ops2")
    out = pathlib.Path(ap.parse_args().out)
    gen = torch.Generator().manual_seed(15)
    B, H, L, S, E, Ev = 2, 3, 5, 7, 4, 6
    args = (torch.randn(B, L, H, E, generator=gen),
            torch.randn(B, H, S, E, generator=gen),
            torch.randn(B, H, S, Ev, generator=gen),
            torch.randn(B, H, L, S, generator=gen),
            torch.randn(B, H, L, Ev, generator=gen))
    gm = make_fx(traced, tracing_mode="fake")(*args)
    text = gm.print_readable(print_output=False, include_stride=True,
                             include_device=True)
    (out / "sdpa_efficient.txt").write_text(text)
    d = out / "sdpa_efficient.data"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    names = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    for name, t in zip(names, args):
        np.save(d / (name + ".npy"), t.numpy())
    for i, t in enumerate(reference(*args)):
        np.save(d / ("out_%d.npy" % i), t.contiguous().numpy())


if __name__ == "__main__":
    main()

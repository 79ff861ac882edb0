#!/usr/bin/env python3
"""symcut's CPU flash attention against torch's, bit for bit.

    /work/venv/bin/python tools/attention/compare.py [--symcut build/symcut]
        [--seed N] [--cases N] [--dtype float32|bfloat16] [--shape B,H,L,S,E,Ev]
        [--causal 0|1] [--mask none|float] [--scale X]

Each case draws q, k, v, grad_out (randn) and writes one graph text that
runs _scaled_dot_product_flash_attention_for_cpu and its backward (on the
forward's own out and logsumexp); torch (one thread) executes the same ops
eagerly, symcut runs the text (`symcut run --inputs --save`), and every
result (out, logsumexp, dq, dk, dv) is compared element by element.
Prints per case the number of differing elements of each result and
exits 1 when any differ.  Random shapes unless --shape; seed from --seed
or SYMCUT_SEED, count from --cases or SYMCUT_CASES.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

NAMES = ["out", "lse", "dq", "dk", "dv"]
SHORT = {torch.float32: "f32", torch.bfloat16: "bf16"}


def graph_text(shape, dt, causal, mask, scale):
    B, H, L, S, E, Ev = shape
    t = SHORT[dt]

    def ann(d, sizes):
        strides, acc = [], 1
        for s in reversed(sizes):
            strides.insert(0, acc)
            acc *= s
        return '"%s[%s][%s]cpu"' % (d, ", ".join(map(str, sizes)),
                                    ", ".join(map(str, strides)))
    ins = [("q", [B, H, L, E]), ("k", [B, H, S, E]), ("v", [B, H, S, Ev]),
           ("go", [B, H, L, Ev])]
    if mask != "none":
        ins.append(("m", [L, S]))
    sig = ", ".join("%s: %s" % (n, ann("f32", s)) for n, s in ins)
    lines = ["class f(torch.nn.Module):",
             "    def forward(self, %s):" % sig]
    x = {}
    for n, _ in ins:
        if dt == torch.float32:
            x[n] = n
        else:
            lines.append("        %s_c = torch.ops.aten._to_copy.default(%s, "
                         "dtype = torch.bfloat16)" % (n, n))
            x[n] = n + "_c"
    extra = ""
    if mask != "none":
        extra += ", attn_mask = %s" % x["m"]
    if scale is not None:
        extra += ", scale = %r" % scale
    lines.append("        a = torch.ops.aten._scaled_dot_product_flash_attention"
                 "_for_cpu.default(%s, %s, %s, 0.0, %s%s)"
                 % (x["q"], x["k"], x["v"], causal, extra))
    lines.append("        o = a[0]")
    lines.append("        l = a[1]")
    lines.append("        b = torch.ops.aten._scaled_dot_product_flash_attention"
                 "_for_cpu_backward.default(%s, %s, %s, %s, o, l, 0.0, %s%s)"
                 % (x["go"], x["q"], x["k"], x["v"], causal, extra))
    outs = ["o", "l"]
    for i, n in enumerate(["dq", "dk", "dv"]):
        lines.append("        %s = b[%d]" % (n, i))
        outs.append(n)
    if dt != torch.float32:
        for n in ["o", "dq", "dk", "dv"]:
            lines.append("        %s_f = torch.ops.aten._to_copy.default(%s, "
                         "dtype = torch.float32)" % (n, n))
        outs = [n if n == "l" else n + "_f" for n in outs]
    lines.append("        return (%s)" % ", ".join(outs))
    return "\n".join(lines) + "\n"


def torch_run(inputs, dt, causal, mask, scale):
    q, k, v, go = [inputs[n].to(dt) for n in ("q", "k", "v", "go")]
    kw = {}
    if mask != "none":
        kw["attn_mask"] = inputs["m"].to(dt)
    if scale is not None:
        kw["scale"] = scale
    o, lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
        q, k, v, 0.0, causal, **kw)[:2]
    dq, dk, dv = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward(
        go, q, k, v, o, lse, 0.0, causal, **kw)
    return [x.float().numpy() for x in (o, lse, dq, dk, dv)]


def run_case(symcut, shape, dt, causal, mask, scale, gen, values=False):
    """One case on inputs drawn from gen: the counts of differing
    elements of each result and the results' sizes, or with values the
    two lists of results (symcut's, torch's) as float32 arrays."""
    B, H, L, S, E, Ev = shape
    inputs = {"q": torch.randn(B, H, L, E, generator=gen),
              "k": torch.randn(B, H, S, E, generator=gen),
              "v": torch.randn(B, H, S, Ev, generator=gen),
              "go": torch.randn(B, H, L, Ev, generator=gen)}
    if mask == "float":
        inputs["m"] = torch.randn(L, S, generator=gen)
    want = torch_run(inputs, dt, causal, mask, scale)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "g.txt")
        with open(path, "w") as f:
            f.write(graph_text(shape, dt, causal, mask, scale))
        os.mkdir(os.path.join(tmp, "in"))
        for n, t in inputs.items():
            np.save(os.path.join(tmp, "in", n + ".npy"), t.numpy())
        r = subprocess.run([symcut, "run", path, "--inputs",
                            os.path.join(tmp, "in"), "--save",
                            os.path.join(tmp, "out")],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("symcut run failed: " + r.stderr)
        got = [np.load(os.path.join(tmp, "out", "out_%d.npy" % i))
               for i in range(5)]
    if values:
        return got, want
    diffs = []
    for g, w in zip(got, want):
        same = (g == w) | (np.isnan(g) & np.isnan(w))
        diffs.append(int((~same).sum()))
    return diffs, [w.size for w in want]


def random_shape(rng):
    B = int(rng.integers(1, 3))
    H = int(rng.integers(1, 3))
    L = int(rng.choice([1, 7, 8, 16, 33, 64, 100, 200, 300]))
    S = L if rng.random() < 0.6 else int(rng.choice([5, 16, 40, 130, 520, 700]))
    E = int(rng.choice([4, 8, 16, 24, 32, 64]))
    Ev = E  # torch requires the same head size for q, k and v
    return (B, H, L, S, E, Ev)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--symcut", default="build/symcut")
    ap.add_argument("--seed", type=int,
                    default=int(os.environ.get("SYMCUT_SEED", "1")))
    ap.add_argument("--cases", type=int,
                    default=int(os.environ.get("SYMCUT_CASES", "10")))
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--shape")
    ap.add_argument("--causal", type=int)
    ap.add_argument("--mask")
    ap.add_argument("--scale", type=float)
    args = ap.parse_args()
    torch.set_num_threads(1)
    dt = getattr(torch, args.dtype)
    rng = np.random.default_rng(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    print("seed %d, cases %d, %s" % (args.seed, args.cases, args.dtype))
    bad = 0
    for c in range(args.cases):
        shape = tuple(map(int, args.shape.split(","))) if args.shape \
            else random_shape(rng)
        causal = bool(args.causal) if args.causal is not None \
            else bool(rng.random() < 0.5)
        mask = args.mask or str(rng.choice(["none", "float"]))
        diffs, sizes = run_case(args.symcut, shape, dt, causal, mask,
                                args.scale, gen)
        flag = "" if sum(diffs) == 0 else "  DIFFERS"
        bad += sum(diffs) != 0
        print("case %d: shape %s causal %s mask %s: %s%s" % (
            c, shape, causal, mask,
            ", ".join("%s %d/%d" % (n, d, s)
                      for n, d, s in zip(NAMES, diffs, sizes)), flag))
    print("%d of %d cases differ" % (bad, args.cases))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

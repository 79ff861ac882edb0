#!/usr/bin/env python3
"""Graphs and torch 2.13's results for tests/check_attention.c.

    /work/venv/bin/python tools/attention/attention_data.py [--out DIR]

Writes, per case, DIR/<case>/graph.txt (compare.py's graph: the CPU flash
attention forward, then its backward on the forward's own out and
logsumexp), DIR/<case>/<placeholder>.npy (the inputs, float32, seeded)
and DIR/<case>/out_K.npy (torch's five results, eager on one thread,
bfloat16 ones as float32).  DIR defaults to tests/data/attention.
"""
import argparse
import os
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import compare  # noqa: E402

# name: (B, H, L, S, E, Ev), dtype, causal, mask, scale
CASES = {
    # several query blocks (64 rows), two key blocks (512 + 88), a
    # product over 512 keys in two halves, fully masked keys skipped
    "f32_blocks": ((1, 1, 600, 600, 8, 8), torch.float32, True, "none", None),
    # a float mask (scale and mask fused), E = 24 (scale not a power of 2)
    "f32_mask": ((1, 2, 100, 130, 24, 24), torch.float32, False, "float",
                 None),
    # an explicit scale, key blocks over 32 (the backward scales K first)
    "f32_scale": ((2, 1, 64, 64, 48, 48), torch.float32, False, "none", 0.3),
    # the zoo's bfloat16 blocks' attention (gpt2_block_bf16)
    "bf16_small": ((2, 4, 8, 8, 8, 8), torch.bfloat16, True, "none", None),
}


def main():
    ap = argparse.ArgumentParser()
    top = pathlib.Path(__file__).resolve().parent.parent.parent
    ap.add_argument("--out", default=str(top / "tests" / "data" / "attention"))
    args = ap.parse_args()
    torch.set_num_threads(1)
    for name, (shape, dt, causal, mask, scale) in CASES.items():
        B, H, L, S, E, Ev = shape
        gen = torch.Generator().manual_seed(2026)
        inputs = {"q": torch.randn(B, H, L, E, generator=gen),
                  "k": torch.randn(B, H, S, E, generator=gen),
                  "v": torch.randn(B, H, S, Ev, generator=gen),
                  "go": torch.randn(B, H, L, Ev, generator=gen)}
        if mask == "float":
            inputs["m"] = torch.randn(L, S, generator=gen)
        want = compare.torch_run(inputs, dt, causal, mask, scale)
        d = os.path.join(args.out, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "graph.txt"), "w") as f:
            f.write(compare.graph_text(shape, dt, causal, mask, scale))
        for n, t in inputs.items():
            np.save(os.path.join(d, n + ".npy"), t.numpy())
        for i, w in enumerate(want):
            np.save(os.path.join(d, "out_%d.npy" % i),
                    np.ascontiguousarray(w, dtype=np.float32))
        print(name, shape, dt, "causal" if causal else "", mask)
    return 0


if __name__ == "__main__":
    sys.exit(main())

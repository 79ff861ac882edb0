"""symcut's CPU flash attention (kernels/attention.c) against torch 2.13's
(tools/attention/compare.py runs the forward and the backward on one
graph text and compares every element of out, logsumexp, dq, dk, dv).

- test_attention_bits: shapes where symcut reproduces torch's BLAS
  (doc/kernels.md, "Attention"), bit for bit;
- test_attention_random: random float32 shapes, causal or not, with or
  without a float mask: every element within 2e-5 relative (1e-6
  absolute) of torch's, and the count of differing elements printed.
Seed and case count from SYMCUT_SEED / SYMCUT_CASES (printed).
"""
import sys

import numpy as np
import pytest
import torch

from conftest import SRCDIR, BUILDDIR, cases_from_env, seed_from_env

sys.path.insert(0, str(SRCDIR / "tools" / "attention"))
import compare  # noqa: E402

# (B, H, L, S, E), dtype, causal, mask
EXACT = [
    ((2, 4, 8, 8, 8), torch.float32, True, "none"),     # the zoo's blocks
    ((2, 4, 8, 8, 8), torch.bfloat16, True, "none"),    # ... in bfloat16
    ((1, 2, 200, 200, 64), torch.float32, True, "none"),
    ((1, 1, 512, 512, 64), torch.float32, True, "none"),  # a GPT-2 head
    ((1, 1, 600, 600, 24), torch.float32, True, "none"),
    ((1, 1, 300, 300, 8), torch.float32, True, "none"),
    ((1, 1, 64, 64, 48), torch.float32, True, "none"),
    ((2, 2, 300, 300, 24), torch.float32, True, "float"),
    ((1, 1, 128, 700, 16), torch.float32, True, "none"),
    ((1, 2, 100, 100, 64), torch.float32, False, "float"),
]


@pytest.mark.parametrize("shape,dt,causal,mask", EXACT)
def test_attention_bits(shape, dt, causal, mask):
    torch.set_num_threads(1)
    seed = seed_from_env(1)
    print("seed %d" % seed)
    gen = torch.Generator().manual_seed(seed)
    diffs, sizes = compare.run_case(str(BUILDDIR / "symcut"),
                                    shape + (shape[-1],), dt, causal, mask,
                                    None, gen)
    if dt == torch.bfloat16:
        diffs[1] = 0  # the float32 logsumexp of bfloat16 inputs: not exact
    assert sum(diffs) == 0, "differing elements (out, lse, dq, dk, dv): %s " \
        "of %s" % (diffs, sizes)


def test_attention_random():
    seed = seed_from_env(20261202)
    cases = cases_from_env(12)
    print("seed %d, cases %d" % (seed, cases))
    torch.set_num_threads(1)
    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    exact = 0
    for c in range(cases):
        shape = compare.random_shape(rng)
        causal = bool(rng.random() < 0.5)
        mask = "float" if rng.random() < 0.3 else "none"
        got, want = compare.run_case(str(BUILDDIR / "symcut"), shape,
                                     torch.float32, causal, mask, None, gen,
                                     values=True)
        counts = []
        for name, g, w in zip(compare.NAMES, got, want):
            ok = np.isclose(g, w, rtol=2e-5, atol=1e-6, equal_nan=True)
            assert ok.all(), "case %d %s causal %s mask %s: %s differs " \
                "beyond tolerance" % (c, shape, causal, mask, name)
            counts.append(int((g != w).sum()))
        exact += sum(counts) == 0
        print("case %d %s causal %s mask %s: differing bits %s" % (
            c, shape, causal, mask, counts))
    print("%d of %d cases bit for bit" % (exact, cases))

"""bf16 convolution weight and bias gradients: symcut against torch 2.13.

Each case is a graph text (float32 inputs cast to bf16, then
convolution_backward with the weight and bias gradients, cast back to
float32) run by `symcut run --inputs DIR --save OUT`; torch computes the
same convolution_backward on the same bf16 values (one thread) and the two
must agree bit for bit.  The inputs are random with a wide range of
magnitudes (so that the order of the float sums shows in the bf16
result), and some cases are cancellation probes (a large value, its
negation and a small one at random output positions), where any other
summation order than torch's gives another answer.  The shapes cover
rows of up to 100 output positions (several chunks per row), odd widths,
stride 2, dilation 2, groups, and 1-d and 3-d convolutions.

The order modelled is what torch's CPU build runs for bf16 on this
machine (oneDNN's AMX backward-weights kernel, see doc/kernels.md); on a
CPU without AMX torch takes another kernel and the test is skipped.

SYMCUT_SEED (default 15) and SYMCUT_CASES (default 24) set the random
cases; the seed is printed.
"""
import os
import random

import numpy as np
import pytest
import torch

from conftest import cases_from_env, seed_from_env

SHAPES = [
    # (N, C_in, C_out, spatial, kernel, stride, padding, groups, dilation)
    (4, 3, 8, (16, 16), 3, 1, 1, 1, 1),
    (2, 3, 8, (4, 40), 3, 1, 1, 1, 1),
    (2, 4, 8, (3, 66), 3, 1, 1, 1, 1),
    (2, 3, 4, (2, 100), 3, 1, 1, 1, 1),
    (2, 3, 8, (5, 17), 3, 1, 0, 1, 1),
    (2, 8, 16, (8, 9), 3, 2, 1, 1, 1),
    (2, 4, 8, (6, 12), 3, 1, 1, 2, 1),
    (3, 4, 6, (50,), 3, 1, 1, 1, 1),
    (2, 3, 8, (12, 20), 3, 1, 2, 1, 2),
    (2, 3, 4, (4, 5, 40), 3, 1, 1, 1, 1),
]


def amx():
    flags = open('/proc/cpuinfo').read() if os.path.exists(
        '/proc/cpuinfo') else ''
    return ' amx_bf16' in flags


def ann(dtype, t):
    sizes = ', '.join(map(str, t.shape))
    strides = ', '.join(map(str, t.stride()))
    return '"%s[%s][%s]cpu"' % (dtype, sizes, strides)


def graph_text(x, w, go, stride, pad, groups, dil=1):
    nsp = x.dim() - 2
    ints = lambda v: '[' + ', '.join([str(v)] * nsp) + ']'
    gw, gb = w, torch.empty(w.shape[0])
    return (
        'def forward(self, x: %s, w: %s, go: %s):\n'
        '    xb: %s = torch.ops.aten._to_copy.default(x, dtype = torch.bfloat16)\n'
        '    wb: %s = torch.ops.aten._to_copy.default(w, dtype = torch.bfloat16)\n'
        '    gob: %s = torch.ops.aten._to_copy.default(go, dtype = torch.bfloat16)\n'
        '    cb = torch.ops.aten.convolution_backward.default(gob, xb, wb, [%d], '
        '%s, %s, %s, False, %s, %d, [False, True, True])\n'
        '    gw: %s = cb[1]\n'
        '    gb: %s = cb[2]\n'
        '    gwf: %s = torch.ops.aten._to_copy.default(gw, dtype = torch.float32)\n'
        '    gbf: %s = torch.ops.aten._to_copy.default(gb, dtype = torch.float32)\n'
        '    return (gwf, gbf)\n'
        % (ann('f32', x), ann('f32', w), ann('f32', go), ann('bf16', x),
           ann('bf16', w), ann('bf16', go), w.shape[0], ints(stride),
           ints(pad), ints(dil), ints(0), groups, ann('bf16', gw),
           ann('bf16', gb), ann('f32', gw), ann('f32', gb)))


def inputs(rng, shape, probe):
    n, cin, cout, sp, k, stride, pad, groups, dil = shape
    out = [(s + 2 * pad - dil * (k - 1) - 1) // stride + 1 for s in sp]
    g = torch.Generator().manual_seed(rng.randrange(1 << 30))
    x = torch.randn(n, cin, *sp, generator=g)
    w = torch.randn(cout, cin // groups, *([k] * len(sp)), generator=g)
    if probe:
        x = torch.ones_like(x)
        go = torch.zeros(n, cout, *out)
        flat = go.view(-1)
        big = 2.0 ** 25
        for v in (big, -big, 1.0, 2.0, -1.0, 0.5):
            flat[rng.randrange(flat.numel())] = v
    else:
        scale = torch.exp2(torch.randint(-8, 9, (n, cout, *out),
                                         generator=g).float())
        go = torch.randn(n, cout, *out, generator=g) * scale
    bf = lambda t: t.to(torch.bfloat16).float()
    return bf(x), bf(w), bf(go)


def torch_grads(x, w, go, stride, pad, groups, dil):
    nsp = x.dim() - 2
    torch.set_num_threads(1)
    r = torch.ops.aten.convolution_backward.default(
        go.bfloat16(), x.bfloat16(), w.bfloat16(), [w.shape[0]],
        [stride] * nsp, [pad] * nsp, [dil] * nsp, False, [0] * nsp, groups,
        [False, True, True])
    return r[1].float().numpy(), r[2].float().numpy()


@pytest.mark.skipif(not amx(), reason='torch runs bf16 convolutions on '
                    'another oneDNN kernel without AMX')
def test_bf16_weight_gradient_bits(symcut, tmp_path):
    seed = seed_from_env(15)
    cases = cases_from_env(24)
    print('test_conv_bf16: SYMCUT_SEED=%d SYMCUT_CASES=%d' % (seed, cases))
    rng = random.Random(seed)
    bad = []
    for case in range(cases):
        shape = SHAPES[case % len(SHAPES)]
        probe = case % 3 == 2
        x, w, go = inputs(rng, shape, probe)
        stride, pad, groups, dil = shape[5:9]
        d = tmp_path / ('case%d' % case)
        d.mkdir()
        (d / 'g.txt').write_text(graph_text(x, w, go, stride, pad, groups,
                                            dil))
        for name, t in (('x', x), ('w', w), ('go', go)):
            np.save(d / (name + '.npy'), t.numpy())
        r = symcut('run', d / 'g.txt', '--inputs', d, '--save', d / 'out')
        assert r.returncode == 0, r.stderr
        want_w, want_b = torch_grads(x, w, go, stride, pad, groups, dil)
        got_w = np.load(d / 'out' / 'out_0.npy')
        got_b = np.load(d / 'out' / 'out_1.npy')
        nw = int((got_w.view(np.uint32) != want_w.view(np.uint32)).sum())
        nb = int((got_b.view(np.uint32) != want_b.view(np.uint32)).sum())
        if nw or nb:
            bad.append('case %d %s%s: %d of %d weight-gradient and %d of %d '
                       'bias-gradient elements differ'
                       % (case, shape, ' (probe)' if probe else '', nw,
                          want_w.size, nb, want_b.size))
    assert not bad, '\n'.join(bad)

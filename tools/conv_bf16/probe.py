#!/usr/bin/env python3
"""How torch computes a bf16 convolution's weight and bias gradients on
this CPU: the backend, oneDNN's kernel, and the summation order.

    /work/venv/bin/python tools/conv_bf16/probe.py [--widths 16,17,40,66]
        [--data examples/zoo/cnn_bf16.data --graph examples/zoo/cnn_bf16.joint.txt]

Prints
  - the backend torch._C._select_conv_backend picks for a bf16 2-d
    convolution like the zoo's (Mkldnn here) and the oneDNN kernel that
    runs it (from ONEDNN_VERBOSE=1 in a child process);
  - per output-row width W, where the row's chunks start, found with
    cancellation probes: x = 1, grad_output 2^25 at offset a, -2^25 at
    a + 1 (the even and the odd running sum of a chunk) and 1 at offset c;
    the 1 survives exactly when c is in a later chunk than a;
  - the even/odd split inside a chunk: with 2^25 at a and -2^25 at a + 2
    (the same parity) a 1 at an odd offset survives;
  - with --data/--graph: the weight gradient of convolution_backward_1 of
    the committed cnn_bf16 inputs by torch, against the model symcut
    implements (kernels/conv.c: wgrad_bf16) and a plain running float sum,
    as the count of elements that differ from torch.
One thread.  Needs torch 2.13 (CPU) and numpy.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import torch

torch.set_num_threads(1)
BIG = 2.0 ** 25


def wgrad(go, x, w, pad=1):
    return torch.ops.aten.convolution_backward.default(
        go, x, w, [w.shape[0]], [1, 1], [pad, pad], [1, 1], False, [0, 0],
        1, [False, True, False])[1]


def backend():
    x = torch.zeros(4, 3, 16, 16, dtype=torch.bfloat16)
    w = torch.zeros(8, 3, 3, 3, dtype=torch.bfloat16)
    b = torch._C._select_conv_backend(x, w, None, [1, 1], [1, 1], [1, 1],
                                      False, [0, 0], 1, [8])
    code = ('import torch; torch.set_num_threads(1); '
            'x = torch.zeros(4, 3, 16, 16, dtype=torch.bfloat16); '
            'w = torch.zeros(8, 3, 3, 3, dtype=torch.bfloat16); '
            'g = torch.zeros(4, 8, 16, 16, dtype=torch.bfloat16); '
            'torch.ops.aten.convolution_backward.default(g, x, w, [8], '
            '[1, 1], [1, 1], [1, 1], False, [0, 0], 1, [False, True, True])')
    env = dict(os.environ, ONEDNN_VERBOSE='1')
    out = subprocess.run([sys.executable, '-c', code], env=env,
                         capture_output=True, text=True).stdout
    impl = [ln.split(',')[6] for ln in out.splitlines()
            if ',exec,' in ln and 'backward_weights' in ln]
    return b, impl


def row_probe(width, terms):
    x = torch.zeros(2, 3, 3, width, dtype=torch.bfloat16)
    x[:, 0] = 1
    w = torch.zeros(8, 3, 3, 3, dtype=torch.bfloat16)
    go = torch.zeros(2, 8, 3, width)
    for i, v in terms:
        go[0, 0, 1, i] = v
    return wgrad(go.bfloat16(), x, w)[0, 0, 1, 1].item()


def chunk_starts(width):
    starts = [0]
    while starts[-1] < width - 1:
        a = starts[-1]
        c = a + 2
        while c < width and row_probe(width, [(a, BIG), (a + 1, -BIG),
                                              (c, 1.0)]) != 1.0:
            c += 1
        starts.append(c)
    return starts


def model_chunks(width):
    n = (width + 31) // 32
    size = (width + n - 1) // n
    size += size % 2
    return list(range(0, width, size)) + [width]


def zoo_check(graph, data):
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'zoo'))
    import node_diff
    places, nodes, _ = node_diff.parse(graph)
    vals = node_diff.torch_run(places, nodes, data)
    go, x, w = vals['getitem_18'], vals['_to_copy_2'], vals['_to_copy_1']
    ref = vals['getitem_22'].float().numpy()
    g, xs = go.float().numpy(), x.float().numpy()
    n, oc, oh, ow = g.shape
    cols = torch.nn.functional.unfold(torch.from_numpy(xs), (3, 3),
                                      padding=1).numpy()
    cols = cols.reshape(n, -1, oh, ow)
    bounds = model_chunks(ow)
    model = np.zeros((oc, cols.shape[1]), np.float32)
    plain = np.zeros_like(model)
    for b in range(n):
        for r in range(oh):
            for s, e in zip(bounds[:-1], bounds[1:]):
                ev = np.zeros_like(model)
                od = np.zeros_like(model)
                for o in range(s, e):
                    p = np.outer(g[b, :, r, o], cols[b, :, r, o]).astype(
                        np.float32)
                    plain = plain + p
                    if (o - s) % 2 == 0:
                        ev = ev + p
                    else:
                        od = od + p
                model = model + (ev + od)
    bf = lambda a: torch.from_numpy(a.reshape(ref.shape)).bfloat16(). \
        float().numpy()
    return int((bf(model) != ref).sum()), int((bf(plain) != ref).sum()), \
        ref.size


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--widths', default='16,17,33,40,50,66,100')
    ap.add_argument('--graph')
    ap.add_argument('--data')
    a = ap.parse_args()
    b, impl = backend()
    print('backend:', b, '; oneDNN backward-weights kernel:',
          ', '.join(impl) or '(none reported)')
    for width in map(int, a.widths.split(',')):
        got = chunk_starts(width)
        print('W %3d: chunks start at %s (model %s)%s'
              % (width, got[:-1], model_chunks(width)[:-1],
                 '' if got == model_chunks(width) else '  DIFFERS'))
    same = row_probe(16, [(0, BIG), (2, -BIG), (1, 1.0)])
    print('2^25 at 0, -2^25 at 2, 1 at 1 (other parity): %g '
          '(1: separate even and odd sums)' % same)
    if a.graph and a.data:
        m, p, n = zoo_check(a.graph, a.data)
        print('cnn_bf16 convolution_backward_1 weight gradient, elements '
              'that differ from torch: model %d, running sum %d (of %d)'
              % (m, p, n))


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
"""Find the first node where symcut's kernels and torch's differ.

    /work/venv/bin/python tools/zoo/node_diff.py GRAPH.joint.txt DATA_DIR \
        [--symcut build/symcut] [--rtol 1e-4] [--atol 1e-5] [--all] [--keep DIR]

Runs the graph text twice on the inputs of DATA_DIR (<placeholder>.npy):
  - with torch (eager, one thread): every line of the printed graph is
    executed as Python, in order, and every tensor value is kept;
  - with symcut: the same text with its return replaced by every tensor
    node (bf16/f16 ones through an added _to_copy to float32, as .npy has
    no bf16), through `symcut run --inputs DATA_DIR --save TMP`.
Then compares node by node in graph order and prints the first node whose
values differ beyond rtol/atol (--all: every differing node), with its
line, the number of differing elements and the largest error (--bits:
also the nodes that differ in bits but within the tolerance), and
whether its inputs agreed bit for bit (so the node itself computes
differently, rather than inheriting a difference).

Also checks that torch's run of the text reproduces the committed
reference outputs (DATA_DIR/out_K.npy) bit for bit, so the text executed
is the graph the data came from.
"""
import argparse
import math
import operator
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch

LINE = re.compile(r'^\s+(\w+)(?:: "([^"]*)")? = (.*)$')
PLACEHOLDER = re.compile(r'^\s+(\w+): "([^"]*)"\s*(#.*)?$')


def parse(path):
    """(placeholders, node lines [(name, annotation, line)], output names)."""
    lines = open(path).read().split('\n')
    places, nodes, outs = [], [], []
    in_return = False
    for ln in lines:
        s = ln.strip()
        if in_return:
            if s.startswith(']'):
                break
            name = s.split(',')[0].split('#')[0].strip()
            outs.append(name)
            continue
        if s.startswith('return'):
            rest = s[len('return'):].strip()
            if rest.startswith('pytree.tree_unflatten(['):
                rest = rest[len('pytree.tree_unflatten(['):]
                if not rest:
                    in_return = True
                    continue
            rest = rest.strip('()[]')
            rest = rest.split(']')[0]
            outs = [x.strip() for x in rest.split(',') if x.strip()]
            break
        m = LINE.match(ln)
        if m:
            nodes.append((m.group(1), m.group(2) or '', ln))
            continue
        m = PLACEHOLDER.match(ln)
        if m and not s.startswith('#'):
            places.append((m.group(1), m.group(2)))
    return places, nodes, outs


def load(path):
    a = np.load(path)
    return torch.from_numpy(a.copy())


def torch_run(places, nodes, data):
    ns = {'torch': torch, 'operator': operator, 'math': math,
          'inf': math.inf, 'nan': math.nan, 'device': torch.device}
    for name, ann in places:
        t = load(os.path.join(data, name + '.npy'))
        if ann.startswith('Sym('):
            t = t.item()
        ns[name] = t
    vals = {}
    for name, ann, ln in nodes:
        exec(ln.strip(), ns)
        vals[name] = ns[name]
    return vals


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('graph')
    ap.add_argument('data')
    ap.add_argument('--symcut', default='build/symcut')
    ap.add_argument('--rtol', type=float, default=1e-4)
    ap.add_argument('--atol', type=float, default=1e-5)
    ap.add_argument('--all', action='store_true')
    ap.add_argument('--bits', action='store_true',
                    help='also print nodes that differ in bits within the tolerance')
    ap.add_argument('--keep')
    a = ap.parse_args()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)

    places, nodes, outs = parse(a.graph)
    tv = torch_run(places, nodes, a.data)

    # torch's run of the text against the committed reference outputs
    for k, o in enumerate(outs):
        p = os.path.join(a.data, 'out_%d.npy' % k)
        if o == 'None' or not os.path.exists(p) or o not in tv:
            continue
        ref = np.load(p)
        got = tv[o]
        if isinstance(got, torch.Tensor):
            g = got.float().numpy() if got.dtype in (torch.bfloat16, torch.float16) else got.numpy()
            if ref.shape != g.shape or not np.array_equal(ref.astype(g.dtype), g, equal_nan=True):
                print('note: torch running the text differs from out_%d.npy (%s)' % (k, o))

    # symcut: every tensor node an output
    text = open(a.graph).read().split('\n')
    ridx = next(i for i, ln in enumerate(text) if ln.strip().startswith('return'))
    indent = re.match(r'^\s*', text[ridx]).group(0)
    extra, rets = [], []
    for name, ann, ln in nodes:
        v = tv[name]
        if not isinstance(v, torch.Tensor) or not ann or ann.startswith('Sym('):
            continue
        if ann.startswith(('bf16[', 'f16[')):
            dbg = 'dbg_' + name
            extra.append('%s%s = torch.ops.aten._to_copy.default(%s, dtype = torch.float32)'
                         % (indent, dbg, name))
            rets.append((name, dbg))
        else:
            rets.append((name, name))
    # drop the "x = None" deletions so every node stays alive to the end
    body = [re.sub(r';\s+(\w+\s*=\s*)+None\s*$', '', ln) for ln in text[:ridx]]
    new = body + extra + [indent + 'return [' + ', '.join(r for _, r in rets) + ']', '']
    tmp = a.keep or tempfile.mkdtemp(prefix='node_diff.')
    os.makedirs(tmp, exist_ok=True)
    gpath = os.path.join(tmp, 'all_nodes.txt')
    open(gpath, 'w').write('\n'.join(new))
    save = os.path.join(tmp, 'save')
    r = subprocess.run([a.symcut, 'run', gpath, '--inputs', a.data, '--save', save],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit('symcut run failed: ' + r.stderr.strip())

    lines = {name: ln.strip() for name, _, ln in nodes}
    bad_names = set()
    found = 0
    for k, (name, _) in enumerate(rets):
        s = np.load(os.path.join(save, 'out_%d.npy' % k))
        t = tv[name]
        t = (t.float() if t.dtype in (torch.bfloat16, torch.float16) else t).numpy()
        if s.shape != t.shape:
            print('%s: shape %s vs torch %s' % (name, s.shape, t.shape))
            continue
        if s.dtype.kind in 'fc':
            d = np.abs(s.astype(np.float64) - t.astype(np.float64))
            tol = a.atol + a.rtol * np.abs(t.astype(np.float64))
            bad = ~((d <= tol) | (np.isnan(s) & np.isnan(t)))
        else:
            bad = s != t
            d = np.abs(s.astype(np.float64) - t.astype(np.float64))
        if np.array_equal(s, t, equal_nan=True) if s.dtype.kind in 'fc' else np.array_equal(s, t):
            continue
        rhs = lines[name].split('=', 1)[1]
        m = re.match(r'\s*(\w+)\[\d+\]\s*$', rhs.split(';')[0])
        if m:  # getitem of a tuple node: that node's inputs
            rhs = lines.get(m.group(1), rhs).split('=', 1)[1]
        exact_inputs = not any(re.search(r'\b%s\b' % re.escape(b), rhs.split(';')[0])
                               for b in bad_names)
        bad_names.add(name)
        if not bad.any():
            if a.bits:
                print('%s: bits differ (within tolerance, max abs error %.3g); inputs %s'
                      % (name, float(d.max()), 'bit-identical' if exact_inputs else 'already differ'))
                print('    ' + lines[name][:300])
            continue  # differs in bits only, within tolerance
        found += 1
        i = int(np.argmax(d.reshape(-1)))
        print('%s: %d of %d elements differ, max abs error %.3g (symcut %.9g, torch %.9g at flat %d); inputs %s'
              % (name, int(bad.sum()), bad.size, float(d.reshape(-1)[i]),
                 float(s.reshape(-1)[i]), float(t.reshape(-1)[i]), i,
                 'bit-identical' if exact_inputs else 'already differ'))
        print('    ' + lines[name][:300])
        if not a.all:
            break
    if not found:
        print('no node differs beyond rtol %g atol %g' % (a.rtol, a.atol))
    if not a.keep:
        import shutil
        shutil.rmtree(tmp)


if __name__ == '__main__':
    main()

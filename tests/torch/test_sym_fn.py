"""torch.sym_float, sym_int, sym_ite, sym_sqrt and sym_sum: torch 2.13's
graphs through symcut.

Each function is traced by make_fx (tracing_mode="symbolic") inside a
small program, and the graph text torch prints is given to `symcut run`
at several input sizes; the outputs must equal torch's (eager, on the same
input) bit for bit.  The annotations of nodes whose value is a SymFloat or
a Piecewise (`Sym(ToFloat(s75))`, `Sym(OpaqueUnaryFn_sqrt(...))`,
`Sym(TruncToInt(...))`, `Piecewise`) are dropped before: symcut's
expressions have no floats or conditionals, so those annotations do not
read (doc/interp.md, SymFloats); make_fx's math_trunc is spelled
torch.sym_int (Dynamo's spelling), as noted below; every other line is
torch's.

SYMCUT_SEED (default 3) seeds the inputs; printed.
"""
import re

import numpy as np
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from conftest import seed_from_env


def f_float(x):
    return x * torch.sym_float(x.shape[0])


def f_sqrt(x):
    return x * torch.sym_sqrt(torch.sym_float(x.shape[0]))


def f_ite(x):
    n, m = x.shape
    return x.new_zeros(torch.sym_ite(n > m, n, m)) + 1


def f_sum(x):
    n, m = x.shape
    return x.new_zeros(torch.sym_sum([n, m, 3])) + 2


def f_int(x):
    return x.new_zeros(torch.sym_int(torch.sym_sqrt(
        torch.sym_float(x.shape[0])))) + 3


FUNCTIONS = [f_float, f_sqrt, f_ite, f_sum, f_int]
SIZES = [(6, 4), (3, 5), (1, 1), (9, 2)]
UNREADABLE = re.compile(r'^(\s+\w+): "[^"]*(ToFloat|Piecewise|Opaque|'
                        r'TruncToInt)[^"]*"', re.M)


def graph_text(fn):
    g = make_fx(fn, tracing_mode='symbolic')(torch.randn(6, 4))
    text = g.print_readable(print_output=False)
    return UNREADABLE.sub(r'\1', text)


def test_sym_functions(symcut, tmp_path):
    seed = seed_from_env(3)
    print('test_sym_fn: SYMCUT_SEED=%d' % seed)
    gen = torch.Generator().manual_seed(seed)
    bad = []
    for fn in FUNCTIONS:
        text = graph_text(fn)
        assert 'torch.sym_' in text or 'torch._sym_' in text, text
        # make_fx records sym_int of a SymFloat as math.trunc (printed
        # `math_trunc(...)`, a target symcut's op lookup does not take);
        # Dynamo's graphs print the call itself, torch.sym_int(...)
        text = text.replace('math_trunc(', 'torch.sym_int(')
        path = tmp_path / (fn.__name__ + '.txt')
        path.write_text(text)
        for sizes in SIZES:
            x = torch.randn(*sizes, generator=gen)
            d = tmp_path / ('%s_%d_%d' % ((fn.__name__,) + sizes))
            d.mkdir()
            np.save(d / 'x_1.npy', x.numpy())
            r = symcut('run', path, '--inputs', d, '--save', d / 'out')
            if r.returncode != 0:
                bad.append('%s %s: %s' % (fn.__name__, sizes, r.stderr))
                continue
            want = fn(x).numpy()
            got = np.load(d / 'out' / 'out_0.npy')
            if got.shape != want.shape or got.dtype != want.dtype or \
                    (got.view(np.uint32) != want.view(np.uint32)).any():
                bad.append('%s %s: symcut %s %s, torch %s %s'
                           % (fn.__name__, sizes, got.dtype, got.shape,
                              want.dtype, want.shape))
    assert not bad, '\n'.join(bad)

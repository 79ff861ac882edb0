"""Python numbers at Tensor arguments: torch 2.13's graphs through symcut.

PyTorch wraps a Python number given where a schema says Tensor
(`mul.Tensor(x, 0.1)`) as a "wrapped number": it takes part in type
promotion as a number (an int64 tensor times 0.1 is float32) and keeps
its double value in the computation (an f64 tensor times 0.1 is
multiplied by the double 0.1); for an f16/bf16 tensor, add and sub take
the number (and a 0-d operand, and alpha) in the tensor's dtype.  The
inputs have 1024 elements: torch computes the last numel % 32 elements
of a reduced-float add with alpha != 1 in its scalar loop, in half
precision (doc/kernels.md), which symcut does not copy.  Each function below is traced by make_fx,
and `symcut run --expect` must give torch's eager outputs bit for bit
(rtol 0, atol 0) on random inputs.

SYMCUT_SEED (default 5) seeds the inputs; printed.
"""
import numpy as np
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from conftest import seed_from_env

FUNCTIONS = [
    ('f64_mul', torch.float64, lambda x: x * 0.1),
    ('f64_add_sub', torch.float64, lambda x: (x + 0.3) - 1e-17),
    ('f64_div', torch.float64, lambda x: x / 3.3),
    ('f32_mul', torch.float32, lambda x: x * 0.1),
    # bf16 and f16 inside the graph (.npy has no bfloat16): add and sub
    # take the number in the tensor's dtype (bf16(0.7)), mul and div in
    # float
    ('bf16_mul_add', torch.float32,
     lambda x: (x.to(torch.bfloat16) * 0.1 + 0.7).to(torch.float32)),
    ('bf16_sub_rsub_div', torch.float32,
     lambda x: (0.3 - (x.to(torch.bfloat16) - 0.3) / 3.3).to(torch.float32)),
    ('f16_add_alpha', torch.float32,
     lambda x: torch.add(x.to(torch.float16), 0.7, alpha=1.1).to(torch.float32)),
    ('bf16_add_0d', torch.float32,
     lambda x: (x.to(torch.bfloat16) + x.sum()).to(torch.float32)),
    ('i64_mul', torch.int64, lambda x: x * 0.1),
    ('f64_where', torch.float64, lambda x: torch.where(x > 0, x, 0.1)),
    ('f64_prims_add', torch.float64,
     lambda x: torch.ops.prims.add.default(x, 0.1)),
]


def test_number_args(symcut, tmp_path):
    seed = seed_from_env(5)
    print('test_number_args: SYMCUT_SEED=%d' % seed)
    gen = torch.Generator().manual_seed(seed)
    bad = []
    for name, dtype, fn in FUNCTIONS:
        if dtype.is_floating_point:
            x = torch.randn(16, 64, generator=gen, dtype=torch.float64).to(dtype)
        else:
            x = torch.randint(-50, 50, (16, 64), generator=gen, dtype=dtype)
        g = make_fx(fn)(x)
        path = tmp_path / (name + '.txt')
        path.write_text(g.print_readable(print_output=False))
        d = tmp_path / name
        d.mkdir()
        want = fn(x)
        np.save(d / 'x_1.npy', x.numpy())
        np.save(d / 'out_0.npy', want.numpy())
        r = symcut('run', path, '--inputs', d, '--expect', d,
                   '--rtol', '0', '--atol', '0')
        if r.returncode != 0:
            bad.append('%s: %s%s' % (name, r.stdout, r.stderr))
    assert not bad, '\n'.join(bad)

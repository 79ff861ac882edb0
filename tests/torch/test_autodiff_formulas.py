"""symcut's derivative formulas against torch 2.13, per op.

For every case of tools/autodiff/gen_joints.py (batch norm without
training or without running statistics, _adaptive_avg_pool2d,
var_mean.correction, masked_scatter, index_put with and without
accumulation; masked_select with make_fx only):

- the joint graph torch 2.13 builds today is the committed
  tests/data/autodiff-2.13/<case>.joint.txt (which the C suite compares
  symcut's joint graph with);
- make_fx's forward graph of the op, differentiated by `symcut joint`
  (the primals torch does not differentiate given to --no-grad), run by
  `symcut run --inputs --expect` on the case's inputs and random tangents,
  gives torch's outputs and torch.autograd's gradients (rtol 1e-4);
- var_mean.correction traced by make_fx with symbolic sizes: symcut's
  joint, run at other sizes than the trace's, gives the same.

The tangents are drawn from SYMCUT_SEED (printed).
"""
import importlib.util
import re
import sys

import numpy as np
import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from conftest import SRCDIR, seed_from_env


def _gen():
    spec = importlib.util.spec_from_file_location(
        "gen_joints", SRCDIR / "tools" / "autodiff" / "gen_joints.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


GEN = _gen()
CASES = {name: (fn, args) for name, fn, args in GEN.cases()}


def _masked_select_cases():
    """masked_select's output size depends on the mask: AOTAutograd's fake
    tensors cannot trace it alone (the zoo's data_dependent model has its
    joint), but make_fx on real tensors can."""
    g = torch.Generator().manual_seed(1)
    x = torch.randn(3, 4, generator=g).requires_grad_(True)
    yield ("masked_select", lambda x, m: torch.ops.aten.masked_select(x, m),
           (x, torch.rand(3, 4, generator=g) > 0.5))
    yield ("masked_select_broadcast_mask",
           lambda x, m: torch.ops.aten.masked_select(x, m),
           (x, torch.rand(4, generator=g) > 0.3))
    yield ("masked_select_broadcast_self",
           lambda x, m: torch.ops.aten.masked_select(x, m),
           (torch.randn(4, generator=g).requires_grad_(True),
            torch.rand(2, 4, generator=g) > 0.3))


NUMERIC = dict(CASES)
NUMERIC.update({name: (fn, args) for name, fn, args in _masked_select_cases()})


@pytest.mark.parametrize("name", sorted(CASES))
def test_committed_joint_is_torchs(name, tmp_path):
    GEN.main(str(tmp_path), only=name)
    got = (tmp_path / (name + ".joint.txt")).read_text()
    want = (SRCDIR / "tests" / "data" / "autodiff-2.13" /
            (name + ".joint.txt")).read_text()
    assert got == want


def _outputs(res):
    return list(res) if isinstance(res, (tuple, list)) else [res]


@pytest.mark.parametrize("name", sorted(NUMERIC))
def test_gradients_match_torch(name, tmp_path, symcut):
    seed = seed_from_env(1234)
    print("SYMCUT_SEED=%d" % seed)
    fn, args = NUMERIC[name]
    plain = [a.detach() for a in args]
    gm = make_fx(fn)(*plain)
    fwd = tmp_path / "fwd.txt"
    fwd.write_text(gm.print_readable(print_output=False, include_stride=True,
                                     include_device=True))
    names = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    no_grad = [nm for nm, a in zip(names, args)
               if a.is_floating_point() and not a.requires_grad]
    joint = tmp_path / "joint.txt"
    cmd = ["joint", fwd, "-o", joint]
    if no_grad:
        cmd += ["--no-grad", ",".join(no_grad)]
    r = symcut(*cmd)
    assert r.returncode == 0, r.stderr

    leaves = [a.detach().clone().requires_grad_(a.requires_grad)
              for a in args]
    outs = _outputs(fn(*leaves))
    g = torch.Generator().manual_seed(seed)
    tangents = [torch.randn(o.shape, generator=g) for o in outs]
    wrt = [a for a in leaves if a.requires_grad]
    grads = torch.autograd.grad(outs, wrt, tangents)

    inputs, expect = tmp_path / "in", tmp_path / "expect"
    inputs.mkdir()
    expect.mkdir()
    for k, a in enumerate(plain):
        np.save(inputs / ("primals_%d.npy" % (k + 1)), a.numpy())
    for k, t in enumerate(tangents):
        np.save(inputs / ("tangents_%d.npy" % (k + 1)), t.numpy())
    k = 0
    for o in outs:
        np.save(expect / ("out_%d.npy" % k), o.detach().numpy())
        k += 1
    it = iter(grads)
    for a in leaves:
        if a.requires_grad:
            np.save(expect / ("out_%d.npy" % k), next(it).numpy())
        k += 1
    r = symcut("run", joint, "--inputs", inputs, "--expect", expect,
               "--rtol", "1e-4", "--atol", "1e-5")
    assert r.returncode == 0, r.stdout + r.stderr


# var_mean.correction traced by make_fx with symbolic sizes (the
# dynamic=True graph); symcut's joint of it, run at sizes other than the
# trace's, gives torch's outputs and torch.autograd's gradients.
VAR_MEAN_SYMBOLIC = [
    ("dim1", [1], 1, False, (3, 5), (4, 7)),
    ("dims02_keepdim_c0", [0, 2], 0, True, (2, 3, 4), (5, 3, 6)),
    ("all_default", None, None, False, (3, 2), (6, 5)),
]


@pytest.mark.parametrize("case", VAR_MEAN_SYMBOLIC, ids=lambda c: c[0])
def test_var_mean_symbolic(case, tmp_path, symcut):
    seed = seed_from_env(1234)
    print("SYMCUT_SEED=%d" % seed)
    _, dim, corr, keepdim, trace_shape, run_shape = case

    def fn(x):
        return torch.ops.aten.var_mean.correction(
            x, dim, correction=corr, keepdim=keepdim)

    g = torch.Generator().manual_seed(seed)
    gm = make_fx(fn, tracing_mode="symbolic")(
        torch.randn(trace_shape, generator=g))
    text = gm.print_readable(print_output=False, include_stride=True,
                             include_device=True)
    assert re.search(r'x_1: "f32\[s\d+', text), text  # symbolic sizes
    fwd, joint = tmp_path / "fwd.txt", tmp_path / "joint.txt"
    fwd.write_text(text)
    r = symcut("joint", fwd, "-o", joint)
    assert r.returncode == 0, r.stderr

    x = torch.randn(run_shape, generator=g).requires_grad_(True)
    outs = list(fn(x))
    tangents = [torch.randn(o.shape, generator=g) for o in outs]
    (gx,) = torch.autograd.grad(outs, [x], tangents)
    inputs, expect = tmp_path / "in", tmp_path / "expect"
    inputs.mkdir()
    expect.mkdir()
    np.save(inputs / "primals_1.npy", x.detach().numpy())
    for k, t in enumerate(tangents):
        np.save(inputs / ("tangents_%d.npy" % (k + 1)), t.numpy())
    for k, o in enumerate(outs + [gx]):
        np.save(expect / ("out_%d.npy" % k), o.detach().numpy())
    r = symcut("run", joint, "--inputs", inputs, "--expect", expect,
               "--rtol", "1e-4", "--atol", "1e-5")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "sizes: " in r.stdout, r.stdout

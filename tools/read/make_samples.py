"""Write the reader's test texts with torch 2.13 (see README.md).

Runs a small torch.compile'd training step (an MLP, static shapes, and a
function of a dynamic-shaped input whose graph takes SymInt inputs) with
TORCH_LOGS=aot_graphs,aot_joint_graph and TORCH_TRACE, and traces a few
functions with make_fx whose printed graphs hold the constructs the
reader must accept (a lambda's class, a constant get_attr, the nested
submodules of torch.cond, SymInt arithmetic).

    /work/venv/bin/python tools/read/make_samples.py OUTDIR

writes OUTDIR/train.torch_logs.txt, OUTDIR/train.trace.log,
OUTDIR/constructs.txt and OUTDIR/code.txt (a GraphModule's `.code`, which
has no annotations).
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

STEP = r'''
import torch, torch.nn as nn
torch.manual_seed(0)
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(8, 16)
        self.l2 = nn.Linear(16, 4)
    def forward(self, x):
        return self.l2(torch.relu(self.l1(x))).sum()
m = MLP()
torch.compile(m, backend="aot_eager")(torch.randn(3, 8)).backward()
def scaled(a, b):
    return (a * b.shape[0]).sin().sum()
a = torch.randn(5, 4, requires_grad=True)
torch.compile(scaled, backend="aot_eager", dynamic=True)(a, a.detach()).backward()
'''

CONSTRUCTS = r'''
import torch
from torch.fx.experimental.proxy_tensor import make_fx
x = torch.randn(4, 3)
def show(title, gm):
    print("# " + title)
    print(gm.print_readable(print_output=False))
show("lambda", make_fx(lambda a: a.relu() + 1)(x))
def const(a):
    return a + torch.tensor([1.0, 2.0, 3.0])
show("get_attr", make_fx(const)(x))
def branch(a):
    return torch.cond(a.sum() > 0, lambda t: t.sin(), lambda t: t.cos(), (a,))
show("cond", make_fx(branch)(x))
def sym(a):
    n = a.shape[0]
    return a.view(n * a.shape[1]), torch.sym_max(n, 2)
show("symint", make_fx(sym, tracing_mode="symbolic")(x))
'''

CODE = r'''
import torch
from torch.fx.experimental.proxy_tensor import make_fx
print(make_fx(lambda a, b: (a @ b).relu().sum())(torch.randn(4, 3),
                                                  torch.randn(3, 2)).code)
'''


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp()
    try:
        env = dict(os.environ, TORCH_LOGS="aot_graphs,aot_joint_graph",
                   TORCH_TRACE=os.path.join(tmp, "trace"))
        script = os.path.join(tmp, "step.py")
        with open(script, "w") as f:
            f.write(STEP)
        r = subprocess.run([sys.executable, script], env=env,
                           capture_output=True, text=True, check=True)
        with open(os.path.join(out, "train.torch_logs.txt"), "w") as f:
            f.write(r.stderr)
        (trace,) = glob.glob(os.path.join(tmp, "trace", "*.log"))
        shutil.copy(trace, os.path.join(out, "train.trace.log"))
        r = subprocess.run([sys.executable, "-c", CONSTRUCTS],
                           capture_output=True, text=True, check=True)
        with open(os.path.join(out, "constructs.txt"), "w") as f:
            f.write(r.stdout)
        r = subprocess.run([sys.executable, "-c", CODE],
                           capture_output=True, text=True, check=True)
        with open(os.path.join(out, "code.txt"), "w") as f:
            f.write(r.stdout)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()

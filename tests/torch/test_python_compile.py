"""symcut.torch inside torch.compile: training steps of every zoo model
(tools/zoo/models.py: 29, the static ones and their dynamic=True
variants), with symcut's backend: losses and gradients match eager, and
symcut's saved values equal those of PyTorch's own partitioner on the same
joint modules (policy pytorch-2.13).  The larger models' ids end in
"-big": they take most of the file's time, so they are skipped unless
SYMCUT_TORCH_BIG=1 (`-k big` then selects them alone); a
selective-activation-checkpointing step checks that the recompute tags
reach symcut."""
import copy
import os
import pathlib
import sys
import warnings

import pytest
import torch

SRC = pathlib.Path(os.environ.get("SYMCUT_SRCDIR",
                                  pathlib.Path(__file__).resolve().parents[2]))
BUILD = pathlib.Path(os.environ.get("SYMCUT_BUILDDIR", SRC / "build"))
os.environ.setdefault("SYMCUT_LIB", str(BUILD / ".libs" / "libsymcut.so"))
sys.path.insert(0, str(SRC / "python"))
sys.path.insert(0, str(SRC / "tools" / "zoo"))
import symcut  # noqa: E402
import symcut.torch as st  # noqa: E402
import models  # noqa: E402
from torch._functorch.partitioners import \
    min_cut_rematerialization_partition  # noqa: E402
from torch.fx.experimental.symbolic_shapes import \
    optimization_hint  # noqa: E402

HAS_213 = "pytorch-2.13" in symcut.policies()
POLICY = "pytorch-2.13" if HAS_213 else "pytorch"
# the models whose step takes longest to compile (ids "NAME-big")
BIG = ("gpt2_block", "llama_block", "resnet", "mobilenetv2",
       "transformer_encoder_layer", "lstm", "gru")
RUN_BIG = os.environ.get("SYMCUT_TORCH_BIG", "0") == "1"
CASES = [pytest.param(n, id=n + "-big", marks=pytest.mark.skipif(
                          not RUN_BIG, reason="a -big model: set "
                                              "SYMCUT_TORCH_BIG=1 to run it"))
         if models.BY_NAME[n].group in BIG else pytest.param(n, id=n)
         for n in models.BY_NAME]


def build(name):
    case = models.BY_NAME[name]
    gen = torch.Generator().manual_seed(1234)
    torch.manual_seed(1234)
    model, inputs = case.build(gen)
    return case, model, inputs


def loss_of(out):
    if isinstance(out, (tuple, list)):
        out = out[0]
    return out.float().sum()


def step(model, inputs, case=None):
    """One training step on copies of the inputs (a model may write its
    inputs), seeded (dropout draws the same in eager and compiled runs),
    under bfloat16 autocast for the _bf16 models."""
    model.zero_grad(set_to_none=True)
    inputs = [x.clone() if isinstance(x, torch.Tensor) else x
              for x in inputs]
    torch.manual_seed(4321)
    if case is not None and case.autocast_bf16:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = model(*inputs)
    else:
        out = model(*inputs)
    loss = loss_of(out)
    loss.backward()
    return loss.detach(), {k.replace("_orig_mod.", ""): p.grad.detach().clone()
                           for k, p in model.named_parameters()
                           if p.grad is not None}


def saved_tensor_bytes(fw_module, num_fwd_outputs):
    """numel * itemsize of the tensors a forward module saves (at the
    hints of its symbols)."""
    out = next(n for n in fw_module.graph.nodes if n.op == "output")
    total = 0
    for a in out.args[0][num_fwd_outputs:]:
        v = getattr(a, "meta", {}).get("val")
        if isinstance(v, torch.Tensor):
            numel = 1
            for d in v.shape:
                # an unbacked size (nonzero's) at the partitioner's own
                # fallback
                numel *= optimization_hint(d, fallback=4096)
            total += numel * v.element_size()
    return total


def compiled_step(name, policy=None, torch_budget=1.0, **backend_kw):
    """(eager, compiled, records): records holds, per joint graph, symcut's
    saved values and PyTorch's on a copy of the same joint module (PyTorch
    with activation_memory_budget=torch_budget)."""
    from torch._functorch import config as fconfig
    case, model, inputs = build(name)
    cmodel = copy.deepcopy(model)
    records = []

    def pf(joint, joint_inputs, compiler="inductor", **kw):
        ref = copy.deepcopy(joint)
        with fconfig.patch(activation_memory_budget=torch_budget):
            tfw, _ = min_cut_rematerialization_partition(ref, joint_inputs,
                                                         compiler, **kw)
        fw, bw = st.partition_fn(joint, joint_inputs, compiler,
                                 policy=policy or POLICY, **backend_kw, **kw)
        n = kw["num_fwd_outputs"]
        records.append({"symcut": st.saved_values(fw, n),
                        "pytorch": st.saved_values(tfw, n),
                        "bytes": saved_tensor_bytes(fw, n),
                        "torch_bytes": saved_tensor_bytes(tfw, n),
                        "meta": fw.meta.get("symcut")})
        return fw, bw

    from torch._dynamo.backends.common import aot_autograd
    from torch._dynamo.backends.debugging import boxed_nop
    be = aot_autograd(fw_compiler=boxed_nop, partition_fn=pf,
                      keep_inference_input_mutations=True)
    torch._dynamo.reset()
    fn = torch.compile(cmodel, backend=be, dynamic=case.dynamic,
                       fullgraph=True)
    # as tools/zoo traces them: nonzero's sizes and .item() in the graph,
    # nn.LSTM without mkldnn (its mkldnn_rnn_layer joint does not run
    # without inductor)
    dyn = torch._dynamo.config
    with dyn.patch(capture_scalar_outputs=True,
                   capture_dynamic_output_shape_ops=True, allow_rnn=True), \
            torch.backends.mkldnn.flags(enabled=not case.no_mkldnn):
        eager = step(model, inputs, case)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.filterwarnings("ignore", "var_to_val is deprecated")
            comp = step(fn, inputs, case)
            comp2 = step(fn, inputs, case)   # the compiled artifact reused
    return eager, comp, comp2, records, case


@pytest.mark.parametrize("name", CASES)
def test_training_step_matches_eager_and_pytorch(name):
    (el, eg), (cl, cg), (cl2, cg2), records, case = compiled_step(name)
    assert records, "the partition_fn was not called"
    # float32 tolerances; bfloat16 autocast rounds each op's result to 8
    # bits of mantissa, in whatever order the graphs run them
    tol = dict(rtol=1.6e-2, atol=1e-2) if case.autocast_bf16 else \
        dict(rtol=1e-5, atol=1e-5)
    gtol = tol if case.autocast_bf16 else dict(rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(cl, el, **tol)
    torch.testing.assert_close(cl2, el, **tol)
    assert eg.keys() == cg.keys()
    for k in eg:
        torch.testing.assert_close(cg[k], eg[k], **gtol)
    for r in records:
        print(name, r["meta"])
    if not HAS_213:
        pytest.xfail("libsymcut has no pytorch-2.13 policy yet")
    for r in records:
        assert r["meta"]["fallback"] is None, r["meta"]["fallback"]
        assert r["symcut"] == r["pytorch"]


def test_backend_runs_and_strict_raises():
    case, model, inputs = build("mlp_gelu")
    torch._dynamo.reset()
    be = st.backend(policy=POLICY)
    fn = torch.compile(copy.deepcopy(model), backend=be, fullgraph=True)
    el, eg = step(model, inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cl, cg = step(fn, inputs)
    torch.testing.assert_close(cl, el)
    assert be.records and be.records[0]["fallback"] is None
    # a budget the policy cannot honour (pytorch-1.13 has none; a library
    # without memory budgets has none for any policy): one warning, and
    # PyTorch's partitioner decides
    torch._dynamo.reset()
    be = st.backend(policy="pytorch-1.13", memory_budget=0.5)
    fn = torch.compile(copy.deepcopy(model), backend=be)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        cl, _ = step(fn, inputs)
    mine = [x for x in w if str(x.message).startswith("symcut:")]
    assert len(mine) == 1 and "memory budget" in str(mine[0].message)
    assert be.records[0]["fallback"]
    torch.testing.assert_close(cl, el)
    torch._dynamo.reset()
    fn = torch.compile(copy.deepcopy(model),
                       backend=st.backend(policy="pytorch-1.13",
                                          memory_budget=0.5, strict=True))
    with pytest.raises(Exception) as ei:
        step(fn, inputs)
    assert "memory budget" in str(ei.value)
    with pytest.raises(ValueError):
        st.backend(policy="nonsense")
    with pytest.raises(ValueError, match="memory_budget"):
        st.backend(memory_budget="lots")
    with pytest.raises(ValueError, match="compiler"):
        st.backend(compiler="tvm")
    with pytest.raises(TypeError):
        st.backend(policy=POLICY, no_such_rule=1)


def _need_budget():
    if not symcut.has_memory_budget():
        pytest.skip("libsymcut has no memory budget (%s)"
                    % symcut.library_path)


@pytest.mark.parametrize("name", ["mlp_gelu", "gpt2_block", "gpt2_block_dyn"])
@pytest.mark.parametrize("ratio", [0.0, 0.5])
def test_memory_budget_ratio_is_pytorchs(name, ratio):
    """pytorch-2.13 with PyTorch's activation_memory_budget: the step
    matches eager and the saved values are those of PyTorch's partitioner
    under the same budget."""
    _need_budget()
    (el, eg), (cl, cg), _, records, _ = compiled_step(
        name, policy="pytorch-2.13", torch_budget=ratio, memory_budget=ratio)
    torch.testing.assert_close(cl, el, rtol=1e-5, atol=1e-5)
    for k in eg:
        torch.testing.assert_close(cg[k], eg[k], rtol=1e-4, atol=1e-5)
    for r in records:
        print(name, ratio, r["meta"])
        assert r["meta"]["fallback"] is None, r["meta"]["fallback"]
        assert r["meta"]["memory_budget"] == ratio
        assert r["symcut"] == r["pytorch"]
        assert r["bytes"] == r["torch_bytes"]


@pytest.mark.parametrize("name", ["mlp_gelu", "gpt2_block"])
def test_memory_budget_bytes_exact(name):
    """exact with a budget in bytes between the least memory and the
    default cut: the step matches eager and the saved tensors fit."""
    _need_budget()
    lo = compiled_step(name, policy="exact", memory_budget=0.0)[3]
    hi = compiled_step(name, policy="exact")[3]
    budget = (lo[0]["bytes"] + hi[0]["bytes"]) // 2
    print(name, "least", lo[0]["bytes"], "default", hi[0]["bytes"],
          "budget", budget)
    assert lo[0]["bytes"] <= hi[0]["bytes"]
    (el, eg), (cl, cg), _, records, _ = compiled_step(
        name, policy="exact", memory_budget=max(budget, 2))
    torch.testing.assert_close(cl, el, rtol=1e-5, atol=1e-5)
    for k in eg:
        torch.testing.assert_close(cg[k], eg[k], rtol=1e-4, atol=1e-5)
    r = records[0]
    assert r["meta"]["fallback"] is None, r["meta"]["fallback"]
    assert r["bytes"] <= max(budget, 2)
    assert r["meta"]["saved_bytes"] == r["bytes"]


def test_inductor_training_step(monkeypatch):
    """backend(compiler="inductor"): Inductor compiles both graphs, symcut
    partitions after Inductor's joint passes; loss and gradients match
    eager within Inductor's float32 tolerances, and symcut's saved values
    equal PyTorch's own partitioner's on the same joint module."""
    pytest.importorskip("torch._inductor")
    seen = []
    real = st.partition_fn

    def checked(joint, joint_inputs, compiler="inductor", **kw):
        opts = {k: kw.pop(k) for k in ("policy", "memory_budget", "strict")
                if k in kw}
        ref = copy.deepcopy(joint)
        tfw, _ = min_cut_rematerialization_partition(ref, joint_inputs,
                                                     compiler, **kw)
        fw, bw = real(joint, joint_inputs, compiler, **opts, **kw)
        n = kw["num_fwd_outputs"]
        seen.append((st.saved_values(fw, n), st.saved_values(tfw, n)))
        return fw, bw
    monkeypatch.setattr(st, "partition_fn", checked)
    case, model, inputs = build("mlp_gelu")
    torch._dynamo.reset()
    be = st.backend(policy=POLICY, compiler="inductor")
    fn = torch.compile(copy.deepcopy(model), backend=be, fullgraph=True)
    el, eg = step(model, inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cl, cg = step(fn, inputs)
        cl2, _ = step(fn, inputs)
    assert be.records and be.records[0]["fallback"] is None, be.records
    torch.testing.assert_close(cl, el, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(cl2, el, rtol=1e-4, atol=1e-4)
    assert eg.keys() == cg.keys()
    for k in eg:
        torch.testing.assert_close(cg[k], eg[k], rtol=1e-4, atol=1e-4)
    assert seen and all(a == b for a, b in seen), seen


def test_selective_checkpointing_tags_reach_symcut():
    """A checkpointed region with a selective-checkpointing policy (the
    matmuls saved, the rest recomputed): both kinds of recompute tag on
    the joint's nodes reach symcut (as `# symcut:` lines), symcut takes
    the graph without falling back, its saved values are PyTorch's, and
    loss and gradients match eager."""
    import functools
    from torch.utils.checkpoint import (CheckpointPolicy, checkpoint,
                                        create_selective_checkpoint_contexts)

    # nn.Linear traces to addmm (with a bias) or mm: both are "the matmul"
    matmuls = (torch.ops.aten.mm.default, torch.ops.aten.addmm.default)

    def policy(ctx, op, *args, **kwargs):
        return CheckpointPolicy.MUST_SAVE if op in matmuls \
            else CheckpointPolicy.PREFER_RECOMPUTE

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Linear(16, 32)
            self.b = torch.nn.Linear(32, 16)

        def body(self, x):
            return self.b(torch.sin(self.a(x)).cos())

        def forward(self, x):
            return checkpoint(self.body, x, use_reentrant=False,
                              context_fn=functools.partial(
                                  create_selective_checkpoint_contexts,
                                  policy)).sum()

    torch.manual_seed(0)
    model, x = M(), torch.randn(8, 16)
    records = []

    def pf(joint, joint_inputs, compiler="inductor", **kw):
        ref = copy.deepcopy(joint)
        tfw, _ = min_cut_rematerialization_partition(ref, joint_inputs,
                                                     compiler, **kw)
        text = st.meta_directives(joint)
        fw, bw = st.partition_fn(joint, joint_inputs, compiler,
                                 policy=POLICY, **kw)
        n = kw["num_fwd_outputs"]
        records.append((st.saved_values(fw, n), st.saved_values(tfw, n),
                        text, fw.meta.get("symcut")))
        return fw, bw

    from torch._dynamo.backends.common import aot_autograd
    from torch._dynamo.backends.debugging import boxed_nop
    torch._dynamo.reset()
    fn = torch.compile(copy.deepcopy(model), fullgraph=True,
                       backend=aot_autograd(fw_compiler=boxed_nop,
                                            partition_fn=pf))
    el, eg = step(model, [x])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cl, cg = step(fn, [x])
    torch.testing.assert_close(cl, el, rtol=1e-5, atol=1e-5)
    for k in eg:
        torch.testing.assert_close(cg[k], eg[k], rtol=1e-4, atol=1e-5)
    assert len(records) == 1
    mine, theirs, text, meta = records[0]
    assert "# symcut: prefer_recompute" in text, text
    assert "# symcut: must_save" in text, text
    assert meta["fallback"] is None, meta
    assert mine == theirs

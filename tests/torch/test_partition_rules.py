"""torch 2.13's partitioner rules on the joints of tests/data/partition/rules
(with_effects calls and force_save_effectful_ops; random ops tagged to
recompute and functionalize_rng_ops; the placement of copy_ writes of an
input, _must_be_in_forward / _must_be_in_backward; a SymFloat, never
banned and weighed 4): symcut's partition under
--policy pytorch-2.13 against torch's min_cut_rematerialization_partition
(tools/oracle), live, and the committed records (tools/oracle/record.py,
which tests/check_partition.c reads) are still torch's decisions.  Plus a
joint traced here by torch.compile around the oracle's effectful test op.

functionalize_rng_ops rewrites each random op tagged to recompute that
both of torch's graphs hold: torch's forward has two nodes (two calls)
more per such op, its backward one input more; symcut's graphs keep the
op.  The comparison adds these to symcut's counts, and the ops to torch's
recomputed list.
"""
import copy
import json
import re
import sys

import pytest

from conftest import SRCDIR

sys.path.insert(0, str(SRCDIR / "tools" / "oracle"))
import oracle  # noqa: E402

DIR = SRCDIR / "tests" / "data" / "partition" / "rules"
NAMES = sorted(p.name[:-len(".joint.txt")] for p in DIR.glob("*.joint.txt"))
RECORDED = ["saved_tensors", "saved_symints", "rng_states", "forward_nodes",
            "forward_calls", "backward_nodes", "backward_calls", "recomputed"]
RANDOM = re.compile(r"^\s+(\w+)(?:: \"[^\"]*\")? = torch\.ops\.aten\."
                    r"(?:rand_like|randn_like|native_dropout|bernoulli|rand|"
                    r"randn)\.", re.M)


def symcut_json(symcut, path):
    r = symcut("partition", path, "--policy", "pytorch-2.13", "--format",
               "json", "--no-timings")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def compare(mine, theirs, text):
    """The differences between symcut's report and torch's decision, with
    torch's functionalize_rng_ops rewrite accounted for."""
    n = len(theirs["rng_states"])
    mine = dict(mine)
    mine["forward_nodes"] += 2 * n
    mine["forward_calls"] += 2 * n
    mine["backward_nodes"] += n
    random_ops = set(RANDOM.findall(text))
    rewritten = [x for x in mine["recomputed"] if x in random_ops]
    assert len(rewritten) <= n, (rewritten, n)
    mine["recomputed"] = [x for x in mine["recomputed"]
                          if x not in random_ops]
    return [(k, theirs[k], mine[k]) for k in
            ["saved_tensors", "saved_symints", "forward_nodes",
             "forward_calls", "backward_nodes", "backward_calls",
             "recomputed"] if theirs[k] != mine[k]]


@pytest.mark.parametrize("name", NAMES)
def test_record_is_torchs(name):
    text = (DIR / (name + ".joint.txt")).read_text()
    live, _, _ = oracle.decide(text)
    rec = json.loads((DIR / (name + ".torch.json")).read_text())
    assert {k: live[k] for k in RECORDED} == {k: rec[k] for k in RECORDED}


@pytest.mark.parametrize("name", NAMES)
def test_symcut_equals_torch(symcut, name):
    path = DIR / (name + ".joint.txt")
    text = path.read_text()
    theirs, _, _ = oracle.decide(text)
    diffs = compare(symcut_json(symcut, path), theirs, text)
    assert not diffs, diffs


def test_rules_exercised():
    """The records show the rules at work (else the cases test nothing)."""
    rec = {n: json.loads((DIR / (n + ".torch.json")).read_text())
           for n in NAMES}
    # functionalize_rng_ops rewrote ops, once and twice
    assert len(rec["rng-recompute-mul"]["rng_states"]) == 1
    assert len(rec["rng-recompute"]["rng_states"]) == 2
    assert rec["rng"]["rng_states"] == []
    # the untagged write reading a tangent is in neither graph: its
    # destination is not saved; tagged must_be_in_backward, the forward's
    # write moves to the backward
    assert rec["copy-untagged"]["saved_tensors"] == ["primals_1"]
    assert rec["copy-backward-tag"]["forward_calls"] == 1
    # force_save_effectful_ops overrides the getitem's recompute tag (the
    # decision is the untagged one); with the call tagged too, both are
    # recomputed
    assert rec["effects-getitem-recompute"]["saved_tensors"] == \
        rec["effects"]["saved_tensors"]
    assert "with_effects" in rec["effects-recompute"]["recomputed"]
    # a SymFloat is never banned: the backward recomputes it from the
    # primal it saves anyway
    assert rec["symfloat"]["saved_symints"] == []
    assert rec["symfloat"]["recomputed"] == ["_local_scalar_dense"]


def test_traced_effects(symcut, tmp_path):
    """A joint torch.compile traces around the effectful op: symcut's
    decision on its print equals the one torch's own partition_fn made."""
    import torch
    from torch._functorch import partitioners
    from torch._dynamo.backends.common import aot_autograd
    got = {}

    def pf(joint, inputs, **kw):
        got["joint"] = copy.deepcopy(joint)
        got["kw"] = kw
        fw, bw = partitioners.min_cut_rematerialization_partition(
            joint, inputs, **kw)
        got["saved"] = [a.name for a in
                        list(fw.graph.nodes)[-1].args[0][kw["num_fwd_outputs"]:]]
        return fw, bw

    def f(x, w):
        y = torch.ops.symcut_oracle.effectful(torch.cos(x))
        return (torch.tanh(y @ w) * y).sum()

    torch._dynamo.reset()
    be = aot_autograd(fw_compiler=lambda g, _: g, bw_compiler=lambda g, _: g,
                      partition_fn=pf)
    x = torch.randn(3, 5, requires_grad=True)
    w = torch.randn(5, 5, requires_grad=True)
    torch.compile(f, backend=be, fullgraph=True)(x, w).backward()
    text = got["joint"].print_readable(print_output=False, include_stride=True,
                                       include_device=True)
    assert "with_effects" in text
    path = tmp_path / "traced.joint.txt"
    path.write_text("# symcut: num_fwd_outputs %d\n" %
                    got["kw"]["num_fwd_outputs"] + text)
    mine = symcut_json(symcut, path)
    assert mine["saved_tensors"] + mine["saved_symints"] == got["saved"]

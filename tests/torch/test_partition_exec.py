"""torch 2.13 executes symcut's partition: for the example joints, the zoo
joints and random joints (`symcut random`), symcut's decision (policy
pytorch-2.13, through symcut.torch.partition_fn, which builds the forward
and backward modules with torch's own extraction) is run on real inputs
and every output (the forward outputs and the gradients) is compared bit
for bit with torch running its own min_cut_rematerialization_partition on
the same joint, and with the joint run eagerly.  The saved set the library
chose is also required to be `symcut partition`'s on the joint text.

Inputs are float32 (the graphs' own dtypes) drawn from a fixed generator at
the symbols' hints; random ops draw from torch.manual_seed(0) before each
forward.  A joint whose forward/backward torch itself cannot build (the
cases test_partition_diff counts apart: symbols torch specializes, SymInt
nodes of constant value) or whose eager run fails on the drawn inputs is
counted apart, not compared.  SYMCUT_CASES (default 200) random graphs from
SYMCUT_SEED, SYMCUT_JOBS worker processes (default 2).
"""
import concurrent.futures
import json
import multiprocessing
import os
import pathlib
import random
import subprocess
import sys
import warnings

import pytest
import torch
import torch.fx as fx

from conftest import BUILDDIR, SRCDIR, cases_from_env, seed_from_env

os.environ.setdefault("SYMCUT_LIB", str(BUILDDIR / ".libs" / "libsymcut.so"))
sys.path.insert(0, str(SRCDIR / "python"))
sys.path.insert(0, str(SRCDIR / "tools" / "oracle"))
import oracle  # noqa: E402
import symcut.torch as st  # noqa: E402
from torch._functorch import partitioners  # noqa: E402
from torch.fx.experimental.symbolic_shapes import guarding_hint_or_throw  # noqa: E402

FEATURES = ["broadcast", "views", "multi_output", "random", "data_dependent",
            "reductions", "matmul", "creation", "symints", "unused_inputs",
            "several_outputs", "norms", "join"]


class Unbuildable(Exception):
    """torch cannot rebuild or partition the joint (counted apart)."""


def zoo_options(path):
    """What the zoo records beside a joint text (examples/zoo/NAME.hints,
    NAME.pytorch.json): the hints, num_fwd_outputs and
    static_lifetime_input_indices torch partitioned with; {} elsewhere."""
    path = pathlib.Path(path)
    name = path.name[:-len(".joint.txt")]
    rec = path.with_name(name + ".pytorch.json")
    if path.parent.name != "zoo" or not rec.exists():
        return {}
    mc = json.loads(rec.read_text())["min_cut"]
    opts = {"num_fwd_outputs": mc["num_fwd_outputs"],
            "static": list(mc["static_lifetime_input_indices"]), "hints": {}}
    hints = path.with_name(name + ".hints")
    if hints.exists():
        for item in hints.read_text().replace(",", " ").split():
            k, v = item.split("=")
            opts["hints"][k] = int(v)
    return opts


def joint_of(text, opts):
    """A fresh FX joint module of the text (fake meta), its builder, the
    number of forward outputs and the static (parameter) input indices."""
    d = oracle.parse_directives(text)
    hints = dict(d["hint"])
    hints.update(opts.get("hints", {}))
    b = oracle.Builder(text, hints)
    graph = b.build()
    oracle.apply_meta(b, d)
    nprim = sum(1 for p in b.placeholders if p.target.startswith("primals"))
    nout = len(list(graph.nodes)[-1].args[0])
    nfwd = int(d["num_fwd_outputs"]) if "num_fwd_outputs" in d \
        else nout - nprim
    if "static_inputs" in d:
        static = [int(x) for x in d["static_inputs"].replace(",", " ").split()]
    else:
        static = list(range(int(d.get("params", 0))))
    nfwd = opts.get("num_fwd_outputs", nfwd)
    static = opts.get("static", static)
    return fx.GraphModule(torch.nn.Module(), graph), b, nfwd, static


def concrete(v):
    return guarding_hint_or_throw(v) if isinstance(v, torch.SymInt) else v


def real_inputs(b, seed):
    """{placeholder name: real value} at the hints."""
    gen = torch.Generator().manual_seed(seed)
    out = {}
    for p in b.placeholders:
        v = p.meta["val"]
        if isinstance(v, torch.Tensor):
            size = [concrete(s) for s in v.shape]
            stride = [concrete(s) for s in v.stride()]
            t = torch.empty_strided(size, stride, dtype=v.dtype)
            if v.dtype.is_floating_point or v.dtype.is_complex:
                t.copy_(torch.randn(size, generator=gen, dtype=v.dtype))
            elif v.dtype == torch.bool:
                t.copy_(torch.randint(0, 2, size, generator=gen).bool())
            else:
                t.copy_(torch.randint(0, 2, size, generator=gen))
            out[p.name] = t
        else:
            out[p.name] = concrete(v)
    return out


def run_fw_bw(fw, bw, inputs, nfwd):
    """Run a forward/backward pair the way AOTAutograd wires them: the
    forward on the primals, the backward on the saved values (matched by
    name: the extraction keeps the joint's names) and the tangents."""
    fw_in = [inputs[n.name] for n in fw.graph.find_nodes(op="placeholder")]
    torch.manual_seed(0)
    fw_out = fw(*fw_in)
    out_node = next(iter(fw.graph.find_nodes(op="output")))
    names = [getattr(a, "name", None) for a in out_node.args[0]]
    saved = dict(zip(names[nfwd:], fw_out[nfwd:]))
    bw_in = []
    for n in bw.graph.find_nodes(op="placeholder"):
        if n.name in saved:
            bw_in.append(saved[n.name])
        elif n.name in inputs:
            bw_in.append(inputs[n.name])
        else:
            raise AssertionError("backward input %s is neither saved nor a "
                                 "tangent" % n.name)
    grads = bw(*bw_in)
    return list(fw_out[:nfwd]) + list(grads)


def bits(v):
    """A comparable image of an output, bit for bit."""
    if isinstance(v, torch.Tensor):
        # a fresh dense copy (contiguous() keeps a size-1 dimension's
        # stride, which a dtype view refuses)
        dense = torch.empty(v.shape, dtype=v.dtype).copy_(v.detach())
        raw = dense.reshape(-1).view(torch.uint8)
        return ("tensor", str(v.dtype), tuple(v.shape), raw.numpy().tobytes())
    if isinstance(v, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        return ("sym", repr(v))
    return ("value", repr(v))


def first_difference(a, b):
    if len(a) != len(b):
        return "%d outputs against %d" % (len(a), len(b))
    for i, (x, y) in enumerate(zip(a, b)):
        if bits(x) != bits(y):
            return "output %d differs" % i
    return None


def cli_saved(symcut_run, path, opts):
    extra = []
    if opts.get("hints"):
        extra += ["--hint", ",".join("%s=%d" % kv
                                     for kv in opts["hints"].items())]
    if "num_fwd_outputs" in opts:
        extra += ["--num-fwd-outputs", opts["num_fwd_outputs"]]
    if opts.get("static"):
        # a list has a comma ("3," is the single index 3)
        extra += ["--params", ",".join(map(str, opts["static"])) + ","]
    r = symcut_run("partition", path, "--policy", "pytorch-2.13", "--format",
                   "json", "--no-timings", *extra)
    if r.returncode != 0:
        raise AssertionError("symcut partition %s failed: %s" % (path,
                                                                 r.stderr))
    d = json.loads(r.stdout)
    return d["saved_tensors"] + d["saved_symints"]


def check(symcut_run, path, seed=0):
    """Run one joint three ways; returns (kind, message): "same", "eager"
    (torch's and symcut's partitions agree bit for bit and both differ
    from the eager joint), "differs", "apart" (torch cannot build or run
    it)."""
    text = pathlib.Path(path).read_text()
    opts = zoo_options(path)
    try:
        gm_t, b_t, nfwd, static = joint_of(text, opts)
    except oracle.OracleError as e:
        return "apart", "the oracle cannot rebuild it: %s" % e
    # symcut's copy of the joint: the same nodes, names and meta (both
    # partitioners rewrite the graph they are given)
    g = fx.Graph()
    g.output(g.graph_copy(gm_t.graph, {}))
    gm_s = fx.GraphModule(torch.nn.Module(), g)
    b_s = b_t
    inputs = real_inputs(b_t, seed)
    flat = [inputs[p.name] for p in b_t.placeholders]
    try:
        torch.manual_seed(0)
        eager = list(gm_t(*flat))
    except Exception as e:
        return "apart", "the eager joint fails on the drawn inputs: %s" % (
            str(e).splitlines()[:1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with b_t.mode:
                tfw, tbw = partitioners.min_cut_rematerialization_partition(
                    gm_t, None, num_fwd_outputs=nfwd,
                    static_lifetime_input_indices=static)
        except Exception as e:
            # the cases test_partition_diff counts apart: SymInt nodes of
            # constant value, symbols torch specialized
            return "apart", "torch's partitioner fails (constant SymInt " \
                "nodes %s): %s" % (b_t.constant_nodes, str(e).splitlines()[:1])
        with b_s.mode:
            sfw, sbw = st.partition_fn(gm_s, None, num_fwd_outputs=nfwd,
                                       static_lifetime_input_indices=static,
                                       strict=True)
    rec = sfw.meta.get("symcut")
    if not rec or rec.get("fallback"):
        return "differs", "symcut did not decide: %s" % rec
    fx_to_text = {n.name: oracle.name_of(n) for n in gm_s.graph.nodes}
    lib = [fx_to_text.get(n, n) for n in rec["saved_tensors"] +
           rec["saved_symints"]]
    cli = cli_saved(symcut_run, path, opts)
    if lib != cli:
        return "differs", "libsymcut on torch's print saved %s, symcut " \
            "partition on the text %s" % (lib, cli)
    theirs = run_fw_bw(tfw, tbw, inputs, nfwd)
    mine = run_fw_bw(sfw, sbw, inputs, nfwd)
    d = first_difference(mine, theirs)
    if d:
        return "differs", "symcut's partition against torch's: %s" % d
    d = first_difference(mine, eager)
    if d:
        return "eager", "both partitions against the eager joint: %s" % d
    return "same", ""


def joints(sub):
    return sorted(p.name[:-len(".joint.txt")]
                  for p in (SRCDIR / sub).glob("*.joint.txt"))


@pytest.mark.parametrize("name", joints("examples"))
def test_examples(symcut, name):
    kind, msg = check(symcut, SRCDIR / "examples" / (name + ".joint.txt"))
    assert kind == "same", "%s: %s: %s" % (name, kind, msg)


@pytest.mark.parametrize("name", joints("examples/zoo"))
def test_zoo(symcut, name):
    kind, msg = check(symcut, SRCDIR / "examples" / "zoo" /
                      (name + ".joint.txt"))
    if kind == "apart":
        pytest.skip(msg)
    assert kind == "same", "%s: %s: %s" % (name, kind, msg)


def draw(rng):
    k = rng.randint(1, 4)
    feats = sorted(rng.sample(FEATURES, k)) if rng.random() < 0.7 else ["all"]
    return (rng.randint(0, 2**31 - 1), rng.randint(3, 30),
            rng.random() < 0.5, ",".join(feats))


def run_symcut(*args):
    return subprocess.run([str(BUILDDIR / "symcut"), *map(str, args)],
                          capture_output=True, text=True)


def run_case(case):
    tmp, index, (s, nodes, sym, feats) = case
    args = ["random", "--seed", s, "--nodes", nodes, "--features", feats]
    if sym:
        args.append("--symbolic")
    replay = "symcut " + " ".join(map(str, args))
    path = pathlib.Path(tmp) / ("joint-%d.txt" % index)
    try:
        r = run_symcut(*args, "-o", path)
        if r.returncode == 2:
            return "skipped", replay
        if r.returncode != 0:
            return "error", "%s: %s" % (replay, r.stderr)
        if "tangents_1" not in path.read_text():
            return "skipped", replay
        try:
            kind, msg = check(run_symcut, path, seed=s)
        except Exception as e:
            return "error", "%s: %s: %s" % (replay, type(e).__name__,
                                            str(e).splitlines()[:1])
        return kind, "%s: %s" % (replay, msg)
    finally:
        if path.exists():
            path.unlink()


def jobs_from_env():
    n = int(os.environ.get("SYMCUT_JOBS", 0))
    return n if n > 0 else max(1, min(2, os.cpu_count() or 1))


def test_random(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    seed = seed_from_env(216)
    n = cases_from_env(200)
    jobs = jobs_from_env()
    print("test_random: SYMCUT_SEED=%d SYMCUT_CASES=%d SYMCUT_JOBS=%d" % (
        seed, n, jobs))
    rng = random.Random(seed)
    cases = [(str(tmp_path), i, draw(rng)) for i in range(n)]
    if jobs == 1:
        results = list(map(run_case, cases))
    else:
        ctx = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=ctx) as ex:
            results = list(ex.map(run_case, cases, chunksize=8))
    by = {}
    for kind, msg in results:
        by.setdefault(kind, []).append(msg)
    print("test_random: %d joints, %d bit for bit the same as torch's "
          "partition and the eager joint, %d the same as torch's partition "
          "but not the eager joint, %d differ from torch's partition, %d "
          "errors, %d counted apart (torch cannot build or run them); %d "
          "random graphs without a joint" % (
              n - len(by.get("skipped", [])), len(by.get("same", [])),
              len(by.get("eager", [])), len(by.get("differs", [])),
              len(by.get("error", [])), len(by.get("apart", [])),
              len(by.get("skipped", []))))
    for k in ("eager", "apart"):
        for m in by.get(k, [])[:5]:
            print("  %s: %s" % (k, m))
    bad = by.get("differs", []) + by.get("error", [])
    assert not bad, "\n".join(bad[:20])

"""Differential test: symcut's partition under --policy pytorch-2.13 against
torch 2.13's own min_cut_rematerialization_partition (tools/oracle), on the
example joints and on random joint graphs from `symcut random` (every
feature mix, symbolic and concrete sizes).  Identical decisions: saved
tensors and SymInts in order, forward/backward node and call counts, the
recomputed nodes.  A mismatch names the `symcut random` command that
replays it.  SYMCUT_CASES (default 2000) random graphs from SYMCUT_SEED,
run by SYMCUT_JOBS worker processes (default: 2, or the CPU count if
smaller), each importing torch once and running torch's partitioner in
process; the cases, their order and the report do not depend on the
number of workers.
"""
import concurrent.futures
import json
import multiprocessing
import os
import pathlib
import random
import subprocess
import sys

import pytest

from conftest import BUILDDIR, SRCDIR, cases_from_env, seed_from_env

sys.path.insert(0, str(SRCDIR / "tools" / "oracle"))
import oracle  # noqa: E402

FIELDS = ["saved_tensors", "saved_symints", "forward_nodes", "forward_calls",
          "backward_nodes", "backward_calls", "recomputed"]
FEATURES = ["broadcast", "views", "multi_output", "random", "data_dependent",
            "reductions", "matmul", "creation", "symints", "unused_inputs",
            "several_outputs", "norms", "join"]


def compare(symcut, path, text, extra=()):
    r = symcut("partition", path, "--policy", "pytorch-2.13", "--format",
               "json", "--no-timings", *extra)
    assert r.returncode == 0, "symcut partition %s failed: %s" % (path, r.stderr)
    mine = json.loads(r.stdout)
    theirs, _, _ = oracle.decide(text)
    compare.specialized = theirs["specialized"]
    # symcut saves a sym_size it synthesizes only where torch leaves a
    # backward symbol unbound (no binding node in the joint): not a decision
    nsyn = len(mine.get("synthesized_symints", []))
    mine = dict(mine)
    mine["forward_nodes"] -= nsyn
    mine["forward_calls"] -= nsyn
    mine["backward_nodes"] -= nsyn
    return [(k, theirs[k], mine[k]) for k in FIELDS if theirs[k] != mine[k]]


@pytest.mark.parametrize("name", sorted(
    p.name[:-len(".joint.txt")] for p in (SRCDIR / "examples").glob("*.joint.txt")))
def test_examples(symcut, name):
    path = SRCDIR / "examples" / (name + ".joint.txt")
    diffs = compare(symcut, path, path.read_text())
    assert not diffs, "%s: %s" % (name, diffs)


def draw(rng):
    k = rng.randint(1, 4)
    feats = sorted(rng.sample(FEATURES, k)) if rng.random() < 0.7 else ["all"]
    return (rng.randint(0, 2**31 - 1), rng.randint(3, 30),
            rng.random() < 0.5, ",".join(feats))


def run_symcut(*args):
    return subprocess.run([str(BUILDDIR / "symcut"), *map(str, args)],
                          capture_output=True, text=True)


def run_case(case):
    """One random case, in a worker: (kind, message) with kind "skipped",
    "same", "specialized" (differs where torch specializes a symbol the
    text keeps), "constant" (torch fails on a SymInt node of constant
    value), "differs", "unreadable" (the oracle cannot rebuild it) or
    "torch" (torch's partitioner failed)."""
    tmp, index, (s, nodes, sym, feats) = case
    args = ["random", "--seed", s, "--nodes", nodes, "--features", feats]
    if sym:
        args.append("--symbolic")
    replay = "symcut " + " ".join(map(str, args))
    path = pathlib.Path(tmp) / ("joint-%d.txt" % index)
    try:
        r = run_symcut(*args, "-o", path)
        if r.returncode == 2:  # no derivative formula: no joint graph
            return "skipped", replay
        if r.returncode != 0:
            return "error", "%s: %s" % (replay, r.stderr)
        text = path.read_text()
        if "tangents_1" not in text:  # no tangents: not a joint graph
            return "skipped", replay
        try:
            diffs = compare(run_symcut, path, text)
        except AssertionError as e:
            return "error", "%s: %s" % (replay, e)
        except oracle.OracleError as e:
            return "unreadable", "%s: the oracle cannot rebuild it: %s" % (
                replay, e)
        except Exception as e:  # torch's partitioner itself failed
            if getattr(e, "symcut_specialized", None):
                return "specialized", "%s: %s specialized: torch failed: %s" % (
                    replay, e.symcut_specialized, str(e).splitlines()[:1])
            if getattr(e, "symcut_constant", None):
                # a SymInt node of a constant value (`Sym(2)` = 2 * 1),
                # which torch's partitioner cannot read and torch's tracer
                # never prints
                return "constant", "%s: nodes %s are constants: torch " \
                    "failed: %s" % (replay, e.symcut_constant,
                                    str(e).splitlines()[:1])
            return "torch", "%s: torch failed: %s: %s" % (
                replay, type(e).__name__, str(e).splitlines()[:1])
        if diffs and compare.specialized:
            # torch's fake tensors specialize a symbol part way through the
            # graph while symcut's text keeps it symbolic after that point
            # (`Sym(s0)` nodes): a graph torch itself never prints, whose
            # SymInt nodes torch then reads as plain ints
            return "specialized", "%s: %s specialized: %s" % (
                replay, compare.specialized, diffs)
        if diffs:
            return "differs", "%s: %s" % (replay, diffs)
        return "same", replay
    finally:
        if path.exists():
            path.unlink()


def jobs_from_env():
    n = int(os.environ.get("SYMCUT_JOBS", 0))
    return n if n > 0 else max(1, min(2, os.cpu_count() or 1))


def test_random(tmp_path, monkeypatch):
    # torch's partitioner writes min_cut_failed_graph*.txt into the working
    # directory when it fails: keep them in the test's own directory
    # (the workers start there)
    monkeypatch.chdir(tmp_path)
    seed = seed_from_env(213)
    n = cases_from_env(2000)
    jobs = jobs_from_env()
    print("test_random: SYMCUT_SEED=%d SYMCUT_CASES=%d SYMCUT_JOBS=%d" % (
        seed, n, jobs))
    if not (BUILDDIR / "symcut").exists():
        pytest.fail("no symcut binary at %s (build first)" % BUILDDIR)
    rng = random.Random(seed)
    cases = [(str(tmp_path), i, draw(rng)) for i in range(n)]
    if jobs == 1:
        results = list(map(run_case, cases))
    else:
        # spawned workers: each imports torch and the oracle once
        ctx = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=ctx) as ex:
            results = list(ex.map(run_case, cases, chunksize=8))
    by = {}
    for kind, msg in results:
        by.setdefault(kind, []).append(msg)
    errors = by.get("error", [])
    assert not errors, "\n".join(errors[:20])
    specialized = by.get("specialized", [])
    failures = by.get("differs", []) + by.get("unreadable", []) + \
        by.get("torch", [])
    constant = by.get("constant", [])
    print("test_random: %d joints compared, %d identical, %d differ where "
          "torch specializes a symbol the text keeps, %d have SymInt nodes "
          "of constant value that torch cannot partition, %d failures; %d "
          "random graphs without a joint" % (
              n - len(by.get("skipped", [])), len(by.get("same", [])),
              len(specialized), len(constant), len(failures),
              len(by.get("skipped", []))))
    for s in specialized[:5]:
        print("  specialized:", s)
    for s in constant[:5]:
        print("  constant:", s)
    assert not failures, "\n".join(failures[:20])

"""Differential test: symcut's partition under --policy pytorch-2.13 against
torch 2.13's own min_cut_rematerialization_partition (tools/oracle), on the
example joints and on random joint graphs from `symcut random` (every
feature mix, symbolic and concrete sizes).  Identical decisions: saved
tensors and SymInts in order, forward/backward node and call counts, the
recomputed nodes.  A mismatch names the `symcut random` command that
replays it.  SYMCUT_CASES (default 300) random graphs from SYMCUT_SEED.
"""
import json
import random
import sys

import pytest

from conftest import SRCDIR, cases_from_env, seed_from_env

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


def test_random(symcut, tmp_path):
    seed = seed_from_env(213)
    n = cases_from_env(300)
    print("test_random: SYMCUT_SEED=%d SYMCUT_CASES=%d" % (seed, n))
    rng = random.Random(seed)
    path = tmp_path / "joint.txt"
    done = skipped = 0
    failures, specialized = [], []
    for _ in range(n):
        s, nodes, sym, feats = draw(rng)
        args = ["random", "--seed", s, "--nodes", nodes, "--features", feats]
        if sym:
            args.append("--symbolic")
        replay = "symcut " + " ".join(map(str, args))
        r = symcut(*args, "-o", path)
        if r.returncode == 2:  # no derivative formula: no joint graph
            skipped += 1
            continue
        assert r.returncode == 0, "%s: %s" % (replay, r.stderr)
        text = path.read_text()
        if "tangents_1" not in text:  # no tangents: not a joint graph
            skipped += 1
            continue
        try:
            diffs = compare(symcut, path, text)
        except oracle.OracleError as e:
            failures.append("%s: the oracle cannot rebuild it: %s" % (replay, e))
            continue
        except Exception as e:  # torch's partitioner itself failed
            if getattr(e, "symcut_specialized", None):
                specialized.append("%s: %s specialized: torch failed: %s" % (
                    replay, e.symcut_specialized, str(e).splitlines()[:1]))
                continue
            failures.append("%s: torch failed: %s: %s" % (
                replay, type(e).__name__, str(e).splitlines()[:1]))
            continue
        done += 1
        if diffs and compare.specialized:
            # torch's fake tensors specialize a symbol part way through the
            # graph while symcut's text keeps it symbolic after that point
            # (`Sym(s0)` nodes): a graph torch itself never prints, whose
            # SymInt nodes torch then reads as plain ints
            specialized.append("%s: %s specialized: %s" % (
                replay, compare.specialized, diffs))
        elif diffs:
            failures.append("%s: %s" % (replay, diffs))
    same = done - len(specialized) - sum(1 for f in failures if ": [" in f)
    print("test_random: %d joints compared, %d identical, %d differ where "
          "torch specializes a symbol the text keeps, %d failures; %d "
          "random graphs without a joint" % (
              done + sum(1 for f in failures if ": [" not in f), same,
              len(specialized), len(failures), skipped))
    for s in specialized[:5]:
        print("  specialized:", s)
    assert not failures, "\n".join(failures[:20])

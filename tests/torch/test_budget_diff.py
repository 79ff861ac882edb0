"""Differential test: `symcut partition --policy pytorch-2.13
--memory-budget R` against torch 2.13's own partitioner under
torch._functorch.config.activation_memory_budget = R (tools/oracle/budget.py,
live): the saved tensors and SymInts, in order.

* test_zoo: every zoo joint at one budget drawn from SYMCUT_SEED among
  0, 0.01, ..., 1 (the committed expectations of tests/data/budget-2.13
  cover 0, 0.05, ..., 1 without torch: make check).
* test_random: SYMCUT_CASES (default 100) random joints from the random
  partition differential's generator (test_partition_diff.draw, `symcut
  random`, with matmul added to six feature sets in ten), each at a budget
  drawn from the seed (0.01 to 0.1 half the time, to 0.3 three times in
  ten, to 1 else; 0 one time in twenty): where torch's knapsack decides
  more often; joints torch's default
  partitioner cannot take (see test_partition_diff) are skipped, as are
  budgets where torch's partitioner fails.  A mismatch names the command
  that replays it.  One kind of mismatch is counted and printed, not
  failed: at budget 0 (torch saves every input, then drops those its
  backward graph does not read), torch keeping a primal that only feeds
  impure ops (rand_like...) its backward graph holds until its last
  reordering, which symcut's extraction (partition/extract.c) drops.
"""
import json
import pathlib
import random
import sys

import pytest

from conftest import BUILDDIR, SRCDIR, cases_from_env, seed_from_env

sys.path.insert(0, str(SRCDIR / "tools" / "oracle"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import budget  # noqa: E402
import oracle  # noqa: E402
from test_partition_diff import draw, run_symcut  # noqa: E402

ZOO = SRCDIR / "examples" / "zoo"


def symcut_saved(path, ratio, extra=()):
    r = run_symcut("partition", path, "--policy", "pytorch-2.13",
                   "--memory-budget", "%.2f" % ratio, "--format", "json",
                   "--no-timings", *extra)
    if r.returncode != 0:
        return None, r.stderr
    d = json.loads(r.stdout)
    return (d["saved_tensors"], d["saved_symints"]), None


def zoo_names():
    return sorted(p.name[:-len(".joint.txt")] for p in ZOO.glob("*.joint.txt"))


@pytest.mark.parametrize("name", zoo_names())
def test_zoo(name):
    seed = seed_from_env(2013)
    rng = random.Random("%d:%s" % (seed, name))
    drawn = rng.randint(0, 100) / 100
    print("test_zoo[%s]: SYMCUT_SEED=%d, budget %.2f" % (name, seed, drawn))
    (_, text, hints, static, nfo), = [
        m for m in budget.zoo_models(ZOO) if m[0] == name]
    # a list of indices has a comma (a lone number is a count)
    params = ",".join(map(str, static * 2 if len(static) == 1 else static))
    extra = ["--num-fwd-outputs", nfo, "--params", params or "0"]
    if hints:
        extra += ["--hint", ",".join("%s=%d" % kv for kv in hints.items())]
    for ratio in (drawn,):
        theirs = budget.decide_at(text, ratio, hints, static, nfo)
        mine, err = symcut_saved(ZOO / (name + ".joint.txt"), ratio, extra)
        if "error" in theirs:
            print("  %.2f: torch fails (%s); symcut: %s" % (
                ratio, theirs["error"], err or "decides"))
            continue
        assert err is None, "%s at %.2f: symcut failed: %s" % (name, ratio, err)
        assert mine == (theirs["saved_tensors"], theirs["saved_symints"]), \
            "%s at %.2f: torch saves %s, symcut %s" % (
                name, ratio, (theirs["saved_tensors"],
                              theirs["saved_symints"]), mine)


def test_random(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # torch's failure dumps stay here
    seed = seed_from_env(1913)
    n = cases_from_env(100)
    print("test_random: SYMCUT_SEED=%d SYMCUT_CASES=%d" % (seed, n))
    if not (BUILDDIR / "symcut").exists():
        pytest.fail("no symcut binary at %s (build first)" % BUILDDIR)
    rng = random.Random(seed)
    counts = {"same": 0, "skipped": 0, "torch": 0, "knapsack": 0}
    extraction = []
    failures = []
    for i in range(n):
        s, nodes, sym, feats = draw(rng)
        if feats != "all" and "matmul" not in feats and rng.random() < 0.6:
            # compute-intensive ops: the aggressive cut's bans, torch's
            # knapsack items
            feats = ",".join(sorted(feats.split(",") + ["matmul"]))
        u = rng.random()
        ratio = rng.randint(1, 10 if u < 0.5 else 30 if u < 0.8 else 100) / 100
        if rng.random() < 0.05:
            ratio = 0.0
        args = ["random", "--seed", s, "--nodes", nodes, "--features", feats]
        if sym:
            args.append("--symbolic")
        replay = "symcut %s (budget %.2f)" % (" ".join(map(str, args)), ratio)
        path = tmp_path / ("joint-%d.txt" % i)
        r = run_symcut(*args, "-o", path)
        if r.returncode != 0 or "tangents_1" not in path.read_text():
            counts["skipped"] += 1
            continue
        text = path.read_text()
        try:
            default, _, _ = oracle.decide(text)
        except Exception:  # not a graph torch partitions (test_partition_diff)
            counts["skipped"] += 1
            continue
        if default["specialized"] or default["constant_nodes"]:
            counts["skipped"] += 1
            continue
        theirs = budget.decide_at(text, ratio, {}, None, None)
        if "error" in theirs:
            counts["torch"] += 1
            continue
        mine, err = symcut_saved(path, ratio)
        want = (theirs["saved_tensors"], theirs["saved_symints"])
        if (err is None and ratio == 0 and mine[1] == want[1] and
                set(mine[0]) < set(want[0]) and
                all(t.startswith("primals_") for t in set(want[0]) - set(mine[0]))):
            extraction.append("%s: torch also keeps %s" % (
                replay, sorted(set(want[0]) - set(mine[0]))))
        elif err is not None or mine != want:
            failures.append("%s: torch saves %s, symcut %s" % (
                replay, want, err or mine))
        else:
            counts["same"] += 1
            counts["knapsack"] += "knapsack" in theirs
        path.unlink()
    print("test_random: %d equal (%d through torch's knapsack), %d differ, "
          "%d differ at budget 0 by primals torch's extraction keeps, %d "
          "where torch's partitioner fails, %d skipped" % (
              counts["same"], counts["knapsack"], len(failures),
              len(extraction), counts["torch"], counts["skipped"]))
    for s in extraction[:5]:
        print("  extraction:", s)
    assert not failures, "\n".join(failures[:20])

"""symcut's shape environment against PyTorch 2.13's ShapeEnv.

Random `symcut env` scripts (tools/shapeenv/gen_env.py) run through
`symcut env` and through ShapeEnv (tools/shapeenv/oracle.py); every answer
is compared (tools/shapeenv/differ.py says how) and eight sampled `test`
lines per script compare the final guard sets on concrete sizes.  A
mismatch fails with the seed and the script.

By default the test runs the regression seeds listed in
tools/shapeenv/ci-seeds.txt: seeds that had mismatches once (or were
measured clean) and are clean now, SYMCUT_CASES scripts each (default 250:
seven seeds, 0.5 to 1.8 minutes a seed on the shared machine).  These
seeds are regressions, not a proof: a random seed can still find
mismatches (tools/shapeenv/README.md gives the last measured rate).  SYMCUT_SEED=N runs the single seed N instead (printed), which is
how a random seed is tried or a failure replayed.
"""
import os
import random
import sys

from conftest import BUILDDIR, SRCDIR, cases_from_env

sys.path.insert(0, str(SRCDIR / "tools" / "shapeenv"))

import differ  # noqa: E402
import gen_env  # noqa: E402


def ci_seeds():
    path = SRCDIR / "tools" / "shapeenv" / "ci-seeds.txt"
    seeds = []
    for line in path.read_text().split("\n"):
        line = line.split("#", 1)[0].strip()
        if line:
            seeds.append(int(line))
    return seeds


def run_seed(symcut, seed, cases):
    rng = random.Random(seed)
    res = differ.Result()
    for _ in range(cases):
        sc = gen_env.generate(rng)
        sc += "\n".join(differ.sample_tests(sc, rng, 8)) + "\n"
        differ.compare(sc, symcut, res)
    cats = {}
    for k, v in res.counts.items():
        cats[k.split("/")[0]] = cats.get(k.split("/")[0], 0) + v
    print("  SYMCUT_SEED=%d SYMCUT_CASES=%d: %s" % (
        seed, cases, ", ".join("%s %d" % kv for kv in sorted(cats.items()))))
    for ex in res.more_examples[:2]:
        print("    symcut decides more: " + ex.replace("\n", "\n      "))
    return cats, res.mismatches


def test_shapeenv_differential():
    symcut = str(BUILDDIR / "symcut")
    assert os.path.exists(symcut), "build symcut first"
    if "SYMCUT_SEED" in os.environ:
        seeds = [int(os.environ["SYMCUT_SEED"])]
        cases = cases_from_env(250)
    else:
        seeds = ci_seeds()
        cases = cases_from_env(250)
    print("\nshapeenv differential: seeds %s, %d scripts each"
          % (" ".join(map(str, seeds)), cases))
    failures = []
    same = 0
    for seed in seeds:
        cats, mism = run_seed(symcut, seed, cases)
        same += cats.get("same", 0)
        if mism:
            failures.append("SYMCUT_SEED=%d: %d mismatches; the first:\n%s"
                            % (seed, len(mism), mism[0]))
    assert same > 0
    assert not failures, "\n".join(failures)

"""symcut's shape environment against PyTorch 2.13's ShapeEnv.

Random `symcut env` scripts (tools/shapeenv/gen_env.py) run through
`symcut env` and through ShapeEnv (tools/shapeenv/oracle.py); every answer
is compared (tools/shapeenv/differ.py says how) and eight sampled `test`
lines per script compare the final guard sets on concrete sizes.  A
mismatch fails with the seed and the script.  SYMCUT_SEED replays,
SYMCUT_CASES sets the number of scripts (default 250, about 2-3 minutes on
the shared CI machine).
"""
import os
import random
import sys

from conftest import BUILDDIR, SRCDIR, cases_from_env, seed_from_env

sys.path.insert(0, str(SRCDIR / "tools" / "shapeenv"))

import differ  # noqa: E402
import gen_env  # noqa: E402


def test_shapeenv_differential():
    seed = seed_from_env(random.randrange(1 << 30))
    cases = cases_from_env(250)
    print("\nshapeenv differential: SYMCUT_SEED=%d SYMCUT_CASES=%d"
          % (seed, cases))
    symcut = str(BUILDDIR / "symcut")
    assert os.path.exists(symcut), "build symcut first"
    rng = random.Random(seed)
    res = differ.Result()
    for i in range(cases):
        sc = gen_env.generate(rng)
        sc += "\n".join(differ.sample_tests(sc, rng, 8)) + "\n"
        differ.compare(sc, symcut, res)
    cats = {}
    for k, v in sorted(res.counts.items()):
        print("  %-34s %d" % (k, v))
        cats[k.split("/")[0]] = cats.get(k.split("/")[0], 0) + v
    print("  by category: " + ", ".join("%s %d" % kv
                                         for kv in sorted(cats.items())))
    for ex in res.more_examples[:5]:
        print("  symcut decides more: " + ex.replace("\n", "\n    "))
    assert cats.get("same", 0) > 0
    assert not res.mismatches, (
        "SYMCUT_SEED=%d: %d mismatches; the first:\n%s"
        % (seed, len(res.mismatches), res.mismatches[0]))

"""The stride differential: every node's sizes and strides as symcut's
shape rules infer them (`symcut graph --print` on the graph with its call
annotations removed) equal torch 2.13's meta tensors
(tools/meta/compare_symcut.py), over the zoo's graphs (examples/zoo/ and
examples/*.txt; under FakeTensorMode, the mode torch.compile printed them
in) and over seeded `symcut random` graphs (on the meta device).

SYMCUT_SEED (default 1) is the first random graph's seed, SYMCUT_CASES
(default 40) the number of random graphs.
"""
import pathlib
import sys

import pytest

from conftest import SRCDIR, cases_from_env, seed_from_env

sys.path.insert(0, str(SRCDIR / "tools" / "meta"))
import compare_symcut  # noqa: E402


def zoo_graphs():
    files = sorted((SRCDIR / "examples").glob("*.txt"))
    files += sorted((SRCDIR / "examples" / "zoo").rglob("*.txt"))
    return [f for f in files if "torch_logs" not in f.name]


def report(name, n, bad, skipped, err):
    print("%s: %d values compared, %d differ, %d skipped by torch%s" % (
        name, n, len(bad), skipped, ", symcut: " + err if err else ""))


def test_zoo(symcut):
    exe = symcut("--version").args[0]
    total, read = 0, 0
    for f in zoo_graphs():
        n, bad, skipped, err = compare_symcut.compare(exe, f.read_text(),
                                                      fake=True)
        report(f.name, n, bad, skipped, err)
        assert not bad, "%s: %s" % (f, "; ".join(bad[:5]))
        total += n
        read += err is None
    print("zoo: %d graphs, %d read, %d values compared" % (
        len(zoo_graphs()), read, total))
    assert total > 0


def test_random(symcut, tmp_path):
    exe = symcut("--version").args[0]
    seed = seed_from_env(1)
    cases = cases_from_env(40)
    print("random graphs: SYMCUT_SEED=%d SYMCUT_CASES=%d" % (seed, cases))
    total = 0
    for s in range(seed, seed + cases):
        path = tmp_path / ("r%d.txt" % s)
        args = ["random", "--seed", s, "--nodes", 14, "-o", path]
        if s % 2 == 0:
            args.append("--symbolic")
        r = symcut(*args)
        assert r.returncode == 0, r.stderr
        n, bad, skipped, err = compare_symcut.compare(exe, path.read_text())
        report("seed %d" % s, n, bad, skipped, err)
        assert err is None, "seed %d: symcut cannot read its own graph: %s" \
            % (s, err)
        assert not bad, "seed %d: %s" % (s, "; ".join(bad[:5]))
        total += n
    assert total > 0

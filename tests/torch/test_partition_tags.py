"""Differential test of the recompute tags and the meta torch 2.13's
partitioner reads from a joint's nodes: symcut's partition under --policy
pytorch-2.13 against torch's min_cut_rematerialization_partition
(tools/oracle), on random joints (`symcut random`) with
selective-activation-checkpointing tags drawn on them: regions of forward
calls tagged must_recompute or prefer_recompute with increasing
ac_graph_id (cleanup_recompute_tags saves the last node of a region that
feeds a later one), has_backward_hook on some tagged nodes, must_save and
prefer_save on others.  Identical decisions, as in test_partition_diff;
plus hand-written joints for the write-back of an input in both the
forward and the backward (force_save_bw_mutation_src).  Random ops are
never tagged to recompute (torch then rewrites them with
functionalize_rng_ops, which symcut does not reproduce).  SYMCUT_CASES
(default 150) random graphs from SYMCUT_SEED.
"""
import pathlib
import random
import re
import subprocess

import pytest

from conftest import BUILDDIR, SRCDIR, cases_from_env, seed_from_env
import test_partition_diff as diff

RANDOM_OPS = re.compile(r"rand|dropout|bernoulli|normal|uniform|multinomial")
CALL = re.compile(r"^\s+(\w+)(?:: \"[^\"]*\")? = (torch\.ops\.[\w.]+|operator\.\w+)")


def calls_of(text):
    """[(name, target, mentions a tangent)] of the call lines, in order."""
    out = []
    for line in text.splitlines():
        m = CALL.match(line)
        if m:
            out.append((m.group(1), m.group(2), "tangents_" in line))
    return out


def draw_tags(rng, text):
    """`# symcut:` lines with tags, ac_graph_id and has_backward_hook on
    the forward calls (the calls before the first one that reads a
    tangent)."""
    calls = calls_of(text)
    fwd = []
    for name, target, tangent in calls:
        if tangent:
            break
        fwd.append((name, target))
    if not fwd:
        return []
    lines = []
    tags = {"must_recompute": [], "prefer_recompute": [], "must_save": [],
            "prefer_save": []}
    ac, hooks = [], []
    # regions: contiguous runs of forward calls, one ac_graph_id each
    pos, region = 0, 1
    while pos < len(fwd):
        n = rng.randint(1, max(1, len(fwd) // 2))
        run = fwd[pos:pos + n]
        pos += n
        if rng.random() < 0.6:
            tag = rng.choice(["must_recompute", "prefer_recompute"])
            for name, target in run:
                if RANDOM_OPS.search(target) or rng.random() < 0.1:
                    continue
                tags[tag].append(name)
                if rng.random() < 0.8:
                    ac.append("%s=%d" % (name, region))
                if rng.random() < 0.1:
                    hooks.append(name)
            region += 1
        else:
            for name, _ in run:
                if rng.random() < 0.15:
                    tags[rng.choice(["must_save", "prefer_save"])].append(name)
    for k, names in tags.items():
        if names:
            lines.append("# symcut: %s %s" % (k, ", ".join(names)))
    if ac:
        lines.append("# symcut: ac_graph_id %s" % ", ".join(ac))
    if hooks:
        lines.append("# symcut: has_backward_hook %s" % ", ".join(hooks))
    return lines


def run_symcut(*args):
    return subprocess.run([str(BUILDDIR / "symcut"), *map(str, args)],
                          capture_output=True, text=True)


def test_random_tags(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    seed = seed_from_env(1613)
    n = cases_from_env(150)
    print("test_random_tags: SYMCUT_SEED=%d SYMCUT_CASES=%d" % (seed, n))
    rng = random.Random(seed)
    counts = {"same": 0, "apart": 0, "untagged": 0, "skipped": 0}
    failures = []
    for i in range(n):
        s, nodes, sym, feats = diff.draw(rng)
        feats = ",".join(f for f in feats.split(",") if f != "random") or \
            "broadcast"
        if feats == "all":
            feats = ",".join(f for f in diff.FEATURES if f != "random")
        args = ["random", "--seed", s, "--nodes", nodes, "--features", feats]
        if sym:
            args.append("--symbolic")
        tag_seed = rng.randint(0, 2**31 - 1)
        replay = "symcut %s, tags drawn with random.Random(%d)" % (
            " ".join(map(str, args)), tag_seed)
        path = tmp_path / ("joint-%d.txt" % i)
        r = run_symcut(*args, "-o", path)
        if r.returncode == 2 or (r.returncode == 0 and
                                 "tangents_1" not in path.read_text()):
            counts["skipped"] += 1
            continue
        assert r.returncode == 0, "%s: %s" % (replay, r.stderr)
        text = path.read_text()
        lines = draw_tags(random.Random(tag_seed), text)
        if not lines:
            counts["untagged"] += 1
        text = "\n".join(lines + [text])
        path.write_text(text)
        try:
            diffs = diff.compare(run_symcut, path, text)
        except AssertionError as e:
            failures.append("%s: %s" % (replay, e))
            continue
        except diff.oracle.OracleError as e:
            failures.append("%s: the oracle cannot rebuild it: %s" % (replay,
                                                                     e))
            continue
        except Exception as e:
            if getattr(e, "symcut_specialized", None) or \
                    getattr(e, "symcut_constant", None):
                counts["apart"] += 1  # as test_partition_diff counts them
                continue
            failures.append("%s: torch failed: %s" % (replay,
                                                      str(e).splitlines()[:1]))
            continue
        if diffs and diff.compare.specialized:
            counts["apart"] += 1
        elif diffs:
            failures.append("%s:\n%s\n%s" % (replay, "\n".join(lines), diffs))
        else:
            counts["same"] += 1
        path.unlink()
    print("test_random_tags: %d identical (%d of them drew no tag), %d "
          "counted apart as in test_partition_diff, %d failures; %d random "
          "graphs without a joint" % (counts["same"], counts["untagged"],
                                      counts["apart"], len(failures),
                                      counts["skipped"]))
    assert not failures, "\n".join(failures[:10])


MUTATION = """\
{directives}
class joint_fn(torch.nn.Module):
    def forward(self, primals, tangents):
        primals_1: "f32[4][1]cpu"; primals_2: "f32[4][1]cpu"; tangents_1: "f32[4][1]cpu";

        primals_1, primals_2, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
        sin: "f32[4][1]cpu" = torch.ops.aten.sin.default(primals_1)
        mul: "f32[4][1]cpu" = torch.ops.aten.mul.Tensor(primals_1, 2)
        cos: "f32[4][1]cpu" = torch.ops.aten.cos.default(primals_1)
        mul_1: "f32[4][1]cpu" = torch.ops.aten.mul.Tensor(tangents_1, cos)
        add: "f32[4][1]cpu" = torch.ops.aten.add.Tensor(mul_1, mul)
        copy_: "f32[4][1]cpu" = torch.ops.aten.copy_.default(primals_2, mul)
        copy__1: "f32[4][1]cpu" = torch.ops.aten.copy_.default(primals_2, add)
        return pytree.tree_unflatten([sin, add, None], self._out_spec)
"""


@pytest.mark.parametrize("directives,saved", [
    # a forward write of primals_2 that the backward writes again: its
    # source mul is saved, not recomputed
    ("# symcut: must_be_in_forward copy_\n"
     "# symcut: must_be_in_backward copy__1", ["primals_1", "primals_2",
                                               "mul"]),
    # the backward alone writes it: mul is recomputed
    ("# symcut: must_be_in_backward copy__1", ["primals_1", "primals_2"]),
])
def test_mutation_source_saved(symcut, tmp_path, directives, saved):
    text = MUTATION.format(directives=directives)
    path = tmp_path / "mutation.joint.txt"
    path.write_text(text)
    diffs = diff.compare(symcut, path, text)
    assert not diffs, diffs
    assert diff.oracle.decide(text)[0]["saved_tensors"] == saved

"""The graph reader against what torch 2.13 prints now.

A small training step is compiled with TORCH_LOGS=aot_graphs,aot_joint_graph
and TORCH_TRACE (tools/read/make_samples.py); symcut must list every AOT
graph of both logs with its compile id and kind, read each of them, and
re-print it stably; the static inputs the log records become the
static_inputs directive of the joint and forward graphs; the backward
graph reads with no forward outputs.
"""
import re
import subprocess
import sys

import pytest


@pytest.fixture(scope="module")
def samples(srcdir, tmp_path_factory):
    out = tmp_path_factory.mktemp("read")
    subprocess.run([sys.executable,
                    str(srcdir / "tools" / "read" / "make_samples.py"),
                    str(out)], check=True)
    return out


EXPECTED = ["0/0:joint", "0/0:forward", "0/0:backward",
            "1/0:joint", "1/0:forward", "1/0:backward"]

# Graphs whose SymInt inputs reach a Tensor argument (mul.Tensor(x, s)):
# the op table's binder refuses them today.
SYMINT_AS_TENSOR = {"1/0:joint", "1/0:forward", "1/0:backward"}


def listed_names(symcut, path):
    r = symcut("graph", path)
    assert r.returncode == 0, r.stderr
    return [line.split()[1] for line in r.stdout.splitlines()[2:]]


@pytest.mark.parametrize("log", ["train.torch_logs.txt", "train.trace.log"])
def test_lists_every_aot_graph(symcut, samples, log):
    assert listed_names(symcut, samples / log) == EXPECTED


@pytest.mark.parametrize("log", ["train.torch_logs.txt", "train.trace.log"])
def test_reads_and_reprints(symcut, samples, log, tmp_path):
    for name in EXPECTED:
        r = symcut("graph", "--print", "--graph", name, samples / log)
        if name in SYMINT_AS_TENSOR and r.returncode != 0:
            assert "must be Tensor, not a SymInt" in r.stderr
            continue
        assert r.returncode == 0, (name, r.stderr)
        first = tmp_path / "a.txt"
        first.write_text(r.stdout)
        again = symcut("graph", "--print", first)
        assert again.returncode == 0, (name, again.stderr)
        assert again.stdout == r.stdout, name
        summary = symcut("graph", "--graph", name, samples / log).stdout
        kind = name.split(":")[1]
        assert "role: %s\n" % kind in summary, (name, summary)
        if kind == "backward":
            assert re.search(r"outputs: \d+ \(0 forward", summary), summary
        if name.startswith("0/0:") and kind != "backward":
            assert "# symcut: static_inputs 0,1,3,4\n" in r.stdout, name


def test_choices_are_named(symcut, samples):
    r = symcut("partition", samples / "train.trace.log")
    assert r.returncode == 1
    for name in EXPECTED:
        assert name in r.stderr

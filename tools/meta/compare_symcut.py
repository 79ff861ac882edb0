#!/usr/bin/env python3
"""The stride differential: symcut's shape rules against torch 2.13's meta
tensors, node by node.

Usage: compare_symcut.py SYMCUT GRAPH... [--hint s0=5,...] [--fake] [-v]

For each GRAPH: meta_strides.strip() removes the call nodes' annotations
(placeholders keep sizes, gain dense strides), `SYMCUT graph --print` on
that text prints every node's sizes and strides as symcut's rules infer
them, meta_strides.rebuild() computes them with torch meta tensors, and
every tensor value both sides know is compared (sizes, strides, dtype) at
the hints.  Prints one line per disagreement and a summary line per graph:

    GRAPH: N values compared, M differ, K skipped by torch[, symcut error]

Exit status 1 when a value differs or symcut fails on a graph.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import meta_strides  # noqa: E402

CALL = re.compile(r'^\s*(\w+)\s*:\s*"([^"]*)"\s+=\s+(.*)$')


def symcut_values(symcut, text, hints, default_hint):
    """{name: (sizes, strides, dtype)} from `symcut graph --print`, or a
    string (symcut's error)."""
    ex = meta_strides.Expr(hints, default_hint)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(meta_strides.strip(text, hints, default_hint))
        path = f.name
    try:
        places, _, _ = meta_strides.parse_graph(text)
        syms = sorted(set(re.findall(r"\b(s\d+)\b",
                                     " ".join(a for _, a in places)))
                      - set(text_hints(text)))
        args = [symcut, "graph", "--print", path]
        if syms:
            args += ["--hint", ",".join("%s=%d" % (s, hints.get(
                s, default_hint)) for s in syms)]
        r = subprocess.run(args, capture_output=True, text=True)
    finally:
        os.unlink(path)
    if r.returncode != 0:
        return r.stderr.strip().splitlines()[0] if r.stderr else "failed"
    vals = {}
    for line in r.stdout.splitlines():
        m = CALL.match(line)
        if not m:
            continue
        try:
            a = meta_strides.parse_ann(m.group(2), ex)
        except Exception:  # noqa: BLE001 (an expression it cannot evaluate)
            a = None
        if a and a[0] == "tensor":
            code = meta_strides.DTYPE_CODES[a[1]]
            vals[m.group(1)] = (a[2], a[3], code)
    return vals


def text_hints(text):
    """The hints of `# symcut: hint s0=7 s1=2` lines."""
    out = {}
    for m in re.finditer(r"^\s*# symcut: hint (.*)$", text, re.M):
        for kv in m.group(1).split():
            k, _, v = kv.partition("=")
            if v.lstrip("-").isdigit():
                out[k] = int(v)
    return out


def torch_values(text, hints, default_hint, fake=False):
    lines, _ = meta_strides.rebuild(text, hints, default_hint, fake)
    vals, skipped = {}, 0
    for line in lines:
        parts = line.split(" ", 1)
        if parts[1].startswith("skip"):
            skipped += 1
            continue
        m = re.fullmatch(r"(\S+) (\[.*?\]) (\[.*?\]) (\w+)", line)
        if m:
            vals[m.group(1)] = (eval(m.group(2)), eval(m.group(3)),
                                m.group(4))
    return vals, skipped


def getitem_names(text):
    """{getitem node: 'tuple.K'} for `x = y[K]` lines, so that tuple
    elements compare under both names."""
    out = {}
    for m in re.finditer(r'^\s*(\w+)(?:\s*:\s*"[^"]*")?\s+=\s+(\w+)\[(\d+)\]',
                         text, re.M):
        out[m.group(1)] = "%s.%s" % (m.group(2), m.group(3))
    return out


def compare(symcut, text, hints=None, default_hint=3, fake=False):
    """(compared, [disagreements], skipped, symcut error or None); fake:
    torch's values under FakeTensorMode (as torch.compile traced)."""
    hints = {**text_hints(text), **(hints or {})}
    sv = symcut_values(symcut, text, hints, default_hint)
    tv, skipped = torch_values(text, hints, default_hint, fake)
    if isinstance(sv, str):
        return 0, [], skipped, sv
    gi = getitem_names(text)
    compared, bad = 0, []
    for name, (sizes, strides, dt) in sv.items():
        t = tv.get(name) or tv.get(gi.get(name, ""))
        if t is None or strides is None:
            continue
        compared += 1
        if list(sizes) != list(t[0]) or list(strides) != list(t[1]) \
                or dt != t[2]:
            bad.append("%s: symcut %s[%s][%s], torch %s[%s][%s]" % (
                name, dt, ", ".join(map(str, sizes)),
                ", ".join(map(str, strides)), t[2],
                ", ".join(map(str, t[0])), ", ".join(map(str, t[1]))))
    return compared, bad, skipped, None


def main(argv):
    verbose = "-v" in argv
    fake = "--fake" in argv
    argv = [a for a in argv if a not in ("-v", "--fake")]
    hints = {}
    if "--hint" in argv:
        i = argv.index("--hint")
        hints = meta_strides.parse_hints(argv[i + 1])
        del argv[i:i + 2]
    symcut, graphs = argv[0], argv[1:]
    rc = 0
    totals = [0, 0, 0, 0]
    for g in graphs:
        with open(g) as f:
            text = f.read()
        n, bad, skipped, err = compare(symcut, text, hints, fake=fake)
        totals[0] += n
        totals[1] += len(bad)
        totals[2] += skipped
        totals[3] += bool(err)
        for b in bad:
            print("%s: %s" % (g, b))
        if verbose or bad or err:
            print("%s: %d values compared, %d differ, %d skipped by torch%s"
                  % (g, n, len(bad), skipped,
                     ", symcut error: " + err if err else ""))
        if bad or err:
            rc = 1
    print("total: %d graphs, %d values compared, %d differ, %d skipped by "
          "torch, %d symcut errors" % (len(graphs), *totals))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

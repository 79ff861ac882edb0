#!/usr/bin/env python3
"""Rebuild every node of a graph text with torch meta tensors and print its
sizes and strides, one line per tensor value:

    NAME SIZES STRIDES          mm [4, 8] [8, 1]
    NAME.K SIZES STRIDES        native_layer_norm.1 [4, 1] [1, 1]
    NAME = VALUE                sym_size = 5   (an integer)
    NAME skip REASON            the node could not be rebuilt

Usage: meta_strides.py GRAPH [--hint s0=5,...] [--default-hint N]
                       [--fake] [--strip OUT]

GRAPH is a graph text as PyTorch's print_readable (or `symcut graph
--print`) writes it.  Placeholders are meta tensors of their annotation's
sizes and strides (dense when it has none) at the hints; SymInt
placeholders are their hint.  A symbol without --hint takes
--default-hint (3).  Each call is evaluated by torch 2.13 on the meta
device; a node that fails (data-dependent ops, ops torch cannot run on
meta) and every node using it are skipped, saying why.

--fake evaluates under torch's FakeTensorMode (the mode in which
torch.compile traced the graphs it prints) instead of on the meta device.
The two agree but for a few ops whose fake implementation is a Python
decomposition (the saved statistics of a batch norm of a bfloat16 input:
bfloat16 under fake tensors, float32 on the meta device).

--strip OUT writes GRAPH with the call nodes' annotations removed and the
placeholders' annotations given strides, so that `symcut graph --print OUT`
prints symcut's own rules' results for every node.

The graph text is trusted input: the right-hand sides are evaluated as
Python expressions (in a namespace holding only torch, operator and the
graph's values).
"""
import argparse
import math
import operator
import re
import sys

import torch

ANN = re.compile(r'"([^"]*)"')
DTYPES = {
    "f32": torch.float32, "f64": torch.float64, "f16": torch.float16,
    "bf16": torch.bfloat16, "i64": torch.int64, "i32": torch.int32,
    "i16": torch.int16, "i8": torch.int8, "u8": torch.uint8, "b8": torch.bool,
    "c64": torch.complex64, "c128": torch.complex128,
}
DTYPE_CODES = {v: k for k, v in DTYPES.items()}


def split_top(s, sep=","):
    """Split s at top-level occurrences of sep (outside brackets/quotes)."""
    out, depth, cur, q = [], 0, [], None
    for ch in s:
        if q:
            cur.append(ch)
            if ch == q:
                q = None
            continue
        if ch in "'\"":
            q = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur))
    return [x.strip() for x in out]


class Expr:
    """Evaluation of PyTorch's size expressions at the hints."""

    def __init__(self, hints, default):
        self.hints = dict(hints)
        self.default = default
        self.ns = {
            "Max": max, "Min": min, "Mod": operator.mod,
            "FloorDiv": operator.floordiv,
            "CeilDiv": lambda a, b: -(-a // b),
            "PythonMod": operator.mod, "IntTrueDiv": operator.truediv,
            "sym_max": max, "sym_min": min,
        }

    def value(self, text):
        text = text.strip()
        for sym in re.findall(r"\b([su]\d+)\b", text):
            if sym not in self.hints:
                self.hints[sym] = self.default
        return int(eval(text, {"__builtins__": {}}, {**self.ns,
                                                      **self.hints}))


def parse_ann(text, ex):
    """('sym', value) or ('tensor', dtype, sizes, strides|None) or None."""
    text = text.strip()
    m = re.fullmatch(r"Sym\((.*)\)", text)
    if m:
        return ("sym", ex.value(m.group(1)))
    m = re.fullmatch(r"(\w+)\[(.*?)\](?:\[(.*?)\])?(\w*(?::\d+)?)?", text)
    if not m or m.group(1) not in DTYPES:
        return None
    sizes = [ex.value(x) for x in split_top(m.group(2))]
    strides = None
    if m.group(3) is not None:
        strides = [ex.value(x) for x in split_top(m.group(3))]
    return ("tensor", DTYPES[m.group(1)], sizes, strides)


def dense(sizes):
    st, acc = [], 1
    for s in reversed(sizes):
        st.append(acc)
        acc *= max(s, 1)
    return list(reversed(st))


def make_placeholder(ann, device="meta"):
    if ann[0] == "sym":
        return ann[1]
    _, dtype, sizes, strides = ann
    return torch.empty_strided(sizes, strides or dense(sizes), dtype=dtype,
                               device=device)


def parse_graph(text):
    """(placeholders [(name, ann text)], calls [(name, ann, rhs, line)],
    outputs [names])."""
    places, calls, outs = [], [], []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        s = line.strip()
        m = re.match(r"def forward\(self,?(.*)\):\s*$", s)
        if m:
            for p in split_top(m.group(1)):
                pm = re.match(r'(\w+)\s*:\s*"([^"]*)"', p)
                if pm:
                    places.append((pm.group(1), pm.group(2)))
            continue
        if re.match(r'^\w+: "[^"]*";', s):
            for p in s.split(";"):
                pm = re.match(r'\s*(\w+)\s*:\s*"([^"]*)"', p)
                if pm:
                    places.append((pm.group(1), pm.group(2)))
            continue
        if s.startswith("return "):
            body = s[len("return "):]
            m = re.match(r"pytree\.tree_unflatten\(\[(.*)\], self\._out_spec\)",
                         body)
            body = m.group(1) if m else body.strip("()[]")
            outs = [x for x in split_top(body) if x]
            continue
        m = re.match(r'^(\w+)(?:\s*:\s*("[^"]*"|[\w\[\], ()]+?))?\s+=\s+(.*)$',
                     s)
        if not m or s.startswith("#") or "fx_pytree" in s or "=" not in s:
            continue
        rhs = m.group(3)
        rhs = re.split(r";\s+\w+ = ", rhs)[0].rstrip(";").strip()
        rhs = re.sub(r";\s*(\w+\s*=\s*)+None\s*$", "", rhs)
        ann = m.group(2).strip('"') if m.group(2) else None
        calls.append((m.group(1), ann, rhs, i + 1))
    return places, calls, outs


def namespace(values, device="meta"):
    ns = {"torch": torch, "operator": operator, "inf": math.inf,
          "nan": math.nan, "device": lambda *a, **k: torch.device(device),
          "None": None, "True": True, "False": False}
    ns.update(values)
    return ns


def fmt(v):
    return "[" + ", ".join(str(int(x)) for x in v) + "]"


def describe(name, v, out):
    if isinstance(v, torch.Tensor):
        out.append("%s %s %s %s" % (name, fmt(v.shape), fmt(v.stride()),
                                    DTYPE_CODES.get(v.dtype, str(v.dtype))))
    elif isinstance(v, (tuple, list)):
        for k, x in enumerate(v):
            if isinstance(x, (torch.Tensor, tuple, list)):
                describe("%s.%d" % (name, k), x, out)
    elif isinstance(v, (bool,)) or v is None:
        pass
    elif isinstance(v, int):
        out.append("%s = %d" % (name, v))


def rebuild(text, hints, default_hint, fake=False):
    ex = Expr(hints, default_hint)
    places, calls, _ = parse_graph(text)
    values, out = {}, []
    if fake:
        from torch._subclasses.fake_tensor import FakeTensorMode
        mode, device = FakeTensorMode(), "cpu"
    else:
        mode, device = torch.device("meta"), "meta"
    with mode:
        for name, ann in places:
            a = parse_ann(ann, ex)
            if a is None:
                out.append("%s skip unreadable annotation %r" % (name, ann))
                continue
            values[name] = make_placeholder(a, device)
            describe(name, values[name], out)
        bad = set()
        for name, _, rhs, _ in calls:
            used = set(re.findall(r"\b\w+\b", rhs))
            dep = used & bad
            if dep:
                bad.add(name)
                out.append("%s skip uses %s" % (name, sorted(dep)[0]))
                continue
            try:
                v = eval(rhs, {"__builtins__": {"slice": slice}},
                         namespace(values, device))
            except Exception as e:  # noqa: BLE001 (any torch failure)
                bad.add(name)
                msg = str(e).splitlines()[0] if str(e) else ""
                out.append("%s skip %s: %s" % (name, type(e).__name__,
                                               msg[:120]))
                continue
            if isinstance(v, torch.SymInt):
                v = int(v)
            values[name] = v
            describe(name, v, out)
    return out, ex.hints


def strip(text, hints, default_hint):
    """The text with call annotations removed and placeholder annotations
    given dense strides (when they have none)."""
    ex = Expr(hints, default_hint)
    out = []

    def with_strides(m):
        ann = m.group(1)
        mm = re.fullmatch(r"(\w+)\[([^\]]*)\](\w*(?::\d+)?)", ann)
        if not mm or mm.group(1) not in DTYPES:
            return m.group(0)
        sizes = split_top(mm.group(2))
        st, acc = [], "1"
        for s in reversed(sizes):
            st.append(acc)
            try:
                one = ex.value(s) <= 1 and re.fullmatch(r"\d+", s)
            except Exception:  # noqa: BLE001
                one = False
            f = "1" if one else s
            acc = f if acc == "1" else (acc if f == "1" else
                                        "%s*%s" % (f, acc))
        st.reverse()
        return '"%s[%s][%s]%s"' % (mm.group(1), ", ".join(sizes),
                                   ", ".join(st), mm.group(3) or "cpu")

    for line in text.splitlines():
        s = line.strip()
        if s.startswith("def forward(") or re.match(r'^\w+: "[^"]*";', s):
            line = ANN.sub(with_strides, line)
        else:
            line = re.sub(r'^(\s*\w+)\s*:\s*"[^"]*"(\s+=\s+)', r"\1\2", line)
        out.append(line)
    return "\n".join(out) + "\n"


def parse_hints(text):
    hints = {}
    for part in (text or "").split(","):
        if part.strip():
            k, v = part.split("=")
            hints[k.strip()] = int(v)
    return hints


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graph")
    ap.add_argument("--hint", action="append", default=[])
    ap.add_argument("--default-hint", type=int, default=3)
    ap.add_argument("--strip")
    ap.add_argument("--fake", action="store_true")
    a = ap.parse_args(argv)
    hints = {}
    for h in a.hint:
        hints.update(parse_hints(h))
    with open(a.graph) as f:
        text = f.read()
    if a.strip:
        with open(a.strip, "w") as f:
            f.write(strip(text, hints, a.default_hint))
        return 0
    lines, used = rebuild(text, hints, a.default_hint, a.fake)
    print("hints " + ",".join("%s=%d" % kv for kv in sorted(used.items())))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

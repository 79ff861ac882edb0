#!/usr/bin/env python3
"""symcut's partition oracle: run torch's own min_cut_rematerialization_partition
on a joint graph written as symcut (or PyTorch's print_readable) prints it, and
print torch's decision as JSON in the field names of `symcut partition --json`.

    python tools/oracle/oracle.py GRAPH.txt [--hint s0=8,...] [--params N]
           [--static-inputs 0,1] [--num-fwd-outputs N] [--tag NODE=TAG]
           [--fw FILE] [--bw FILE]

The graph text is parsed with Python's ast (it is Python code), rebuilt as an
FX graph node for node (same names, same targets, same arguments), and every
node's meta["val"] is computed by torch's fake tensors: the placeholders are
fake tensors with the annotated sizes and strides, symbolic sizes are symbols
of a ShapeEnv named as in the text and backed by the hints, and every call is
run on the fake values (so unbacked symbols come from the ops themselves).
Tags (`# symcut: must_save a, b` and --tag) go to meta["recompute"] as
torch's CheckpointPolicy.  See tools/oracle/README.
"""
import argparse
import ast
import json
import math
import operator
import re
import sys

import torch
import torch.fx as fx
from torch._functorch import partitioners
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import (
    DimDynamic, ShapeEnv, compute_unbacked_bindings)
from torch._dynamo.source import ConstantSource
from torch.utils.checkpoint import CheckpointPolicy

DTYPES = {
    "f32": torch.float32, "f64": torch.float64, "f16": torch.float16,
    "bf16": torch.bfloat16, "i64": torch.int64, "i32": torch.int32,
    "i16": torch.int16, "i8": torch.int8, "u8": torch.uint8, "b8": torch.bool,
    "c64": torch.complex64, "c128": torch.complex128,
}
TAGS = {
    "must_save": CheckpointPolicy.MUST_SAVE,
    "prefer_save": CheckpointPolicy.PREFER_SAVE,
    "must_recompute": CheckpointPolicy.MUST_RECOMPUTE,
    "prefer_recompute": CheckpointPolicy.PREFER_RECOMPUTE,
}
BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Div: operator.truediv, ast.Pow: operator.pow,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
}
CMPOPS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
    ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
}
UNOPS = {ast.USub: operator.neg, ast.Not: operator.not_, ast.UAdd: operator.pos}


class OracleError(Exception):
    pass


def _register_test_ops():
    """symcut_oracle::effectful(Tensor x) -> Tensor (2x + 1), a custom op
    registered as effectful (ordered), so that joints with a with_effects
    call whose result the backward reads can be traced and rebuilt here
    (tests/torch/test_partition_rules.py): torch.ops.symcut_oracle.
    effectful.default.  Its gradient is 2 * grad."""
    from torch._library.effects import EffectType

    @torch.library.custom_op("symcut_oracle::effectful", mutates_args=())
    def effectful(x: torch.Tensor) -> torch.Tensor:
        return x * 2 + 1

    @effectful.register_fake
    def _(x):
        return torch.empty_like(x)

    effectful.register_autograd(lambda ctx, g: g * 2)
    effectful.register_effect(EffectType.ORDERED)


_register_test_ops()


def parse_directives(text):
    """The `# symcut: KEY VALUE` lines: hints, params, static_inputs, tags."""
    d = {"hint": {}, "tags": {}}
    for line in text.splitlines():
        m = re.match(r"\s*# symcut:\s*(\S+)\s*(.*)$", line)
        if not m:
            continue
        key, val = m.group(1), m.group(2).strip()
        if key == "hint":
            for item in re.split(r"[\s,]+", val):
                if item:
                    k, v = item.split("=")
                    d["hint"][k] = int(v)
        elif key in TAGS:
            for name in re.split(r"[\s,]+", val):
                if name:
                    d["tags"][name] = key
        else:
            d[key] = val
    return d


def split_annotation(s):
    """'f32[s0, 4][4, 1]cpu' -> (dtype, [sizes], [strides] or None, device);
    'Sym(s0)' -> ('sym', expr)."""
    s = s.strip()
    m = re.match(r"Sym\((.*)\)$", s)
    if m:
        return ("sym", m.group(1))
    m = re.match(r"([a-z0-9]+)\[([^\]]*)\](?:\[([^\]]*)\])?(.*)$", s)
    if not m:
        raise OracleError("cannot read the annotation %r" % s)
    dt = DTYPES.get(m.group(1))
    if dt is None:
        raise OracleError("unknown dtype %r" % m.group(1))

    def items(x):
        return [t.strip() for t in x.split(",") if t.strip()] if x else []
    sizes = items(m.group(2))
    strides = items(m.group(3)) if m.group(3) is not None else None
    dev = m.group(4).strip() or "cpu"
    if dev.startswith("cuda"):
        dev = "cpu"
    return (dt, sizes, strides, dev)


class Builder:
    def __init__(self, text, hints):
        self.text = text
        self.hints = dict(hints)
        self.shape_env = ShapeEnv(duck_shape=False, specialize_zero_one=False)
        self.mode = FakeTensorMode(shape_env=self.shape_env,
                                   allow_non_fake_inputs=True)
        # every graph has a ShapeEnv of its own, so the fake-tensor cache's
        # entries (keyed on its symbols) seldom hit, and making them costs
        # a quarter of the rebuild; the values are the same without it
        self.mode.cache_enabled = False
        self.syms = {}
        self.constant_nodes = []
        self.graph = fx.Graph()
        self.nodes = {}
        self.placeholders = []

    # ---- symbols ----------------------------------------------------------
    def make_symbols(self):
        names = set(re.findall(r"\b([sS]\d+)\b", self.text_annotations))
        idx = sorted(int(n[1:]) for n in names if n[0] == "s")
        top = idx[-1] + 1 if idx else 0
        # symbols are named by the number their source name gives
        # (ShapeEnv hashes it); here the text's own number
        # (other sources, such as the RNG state functionalize_rng_ops
        # fakes, keep ShapeEnv's own numbering)
        own = self.shape_env._generate_unique_id
        self.shape_env._generate_unique_id = \
            lambda src: int(src[1:]) if re.fullmatch(r"s\d+", src) \
            else own(src)
        for i in range(top):
            name = "s%d" % i
            hint = self.hints.get(name, 8)
            sym = self.shape_env.create_symbol(
                hint, ConstantSource(name), dynamic_dim=DimDynamic.DYNAMIC)
            if str(sym) != name:
                raise OracleError("symbol %s came out as %s" % (name, sym))
            self.syms[name] = self.shape_env.create_symintnode(sym, hint=hint)

    def value_of(self, expr):
        env = dict(self.syms)
        env["sympy_floor"] = math.floor
        try:
            return eval(expr, {"__builtins__": {}}, env)
        except Exception as e:
            raise OracleError("cannot evaluate the size %r: %s" % (expr, e))

    def fake_placeholder(self, ann):
        a = split_annotation(ann)
        if a[0] == "sym":
            return self.value_of(a[1])
        dt, sizes, strides, dev = a
        sz = [self.value_of(x) for x in sizes]
        with self.mode:
            if strides is not None and len(strides) == len(sizes):
                st = [self.value_of(x) for x in strides]
                return torch.empty_strided(sz, st, dtype=dt, device=dev)
            return torch.empty(sz, dtype=dt, device=dev)

    # ---- parsing ----------------------------------------------------------
    def resolve(self, node):
        """An attribute chain such as torch.ops.aten.mm.default."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            raise OracleError("cannot resolve %s" % ast.dump(node))
        parts.append(node.id)
        parts.reverse()
        base = {"torch": torch, "operator": operator, "math": math}.get(parts[0])
        if base is None:
            raise OracleError("unknown name %s" % ".".join(parts))
        obj = base
        for p in parts[1:]:
            obj = getattr(obj, p)
        return obj

    def arg(self, a):
        if isinstance(a, ast.Name):
            if a.id in self.nodes:
                return self.nodes[a.id]
            if a.id in ("None", "True", "False"):
                return {"None": None, "True": True, "False": False}[a.id]
            if a.id in ("inf", "nan"):
                return float(a.id)
            raise OracleError("unknown name %s" % a.id)
        if isinstance(a, ast.Constant):
            return a.value
        if isinstance(a, ast.List):
            return [self.arg(x) for x in a.elts]
        if isinstance(a, ast.Tuple):
            return tuple(self.arg(x) for x in a.elts)
        if isinstance(a, ast.UnaryOp) and isinstance(a.op, ast.USub) and \
                isinstance(a.operand, ast.Constant):
            return -a.operand.value
        if isinstance(a, ast.UnaryOp) and isinstance(a.operand, ast.Name) and \
                a.operand.id == "inf":
            return -math.inf
        if isinstance(a, ast.Attribute):
            return self.resolve(a)
        if isinstance(a, ast.Call) and isinstance(a.func, ast.Name) and \
                a.func.id == "device":
            kw = {k.arg: self.arg(k.value) for k in a.keywords}
            return torch.device("cpu")
        raise OracleError("cannot read the argument %s" % ast.unparse(a))

    def call_of(self, v):
        """(target, args, kwargs) of a node's right-hand side."""
        if isinstance(v, ast.Call):
            target = self.resolve(v.func)
            args = tuple(self.arg(a) for a in v.args)
            kwargs = {k.arg: self.arg(k.value) for k in v.keywords}
            return target, args, kwargs
        if isinstance(v, ast.Subscript):
            return operator.getitem, (self.arg(v.value), self.arg(v.slice)), {}
        if isinstance(v, ast.BinOp) and type(v.op) in BINOPS:
            return BINOPS[type(v.op)], (self.arg(v.left), self.arg(v.right)), {}
        if isinstance(v, ast.Compare) and len(v.ops) == 1 and \
                type(v.ops[0]) in CMPOPS:
            return CMPOPS[type(v.ops[0])], (self.arg(v.left),
                                            self.arg(v.comparators[0])), {}
        if isinstance(v, ast.UnaryOp) and type(v.op) in UNOPS:
            return UNOPS[type(v.op)], (self.arg(v.operand),), {}
        raise OracleError("cannot read the node %s" % ast.unparse(v))

    def build(self):
        start = self.text.find("class ")
        if start < 0:
            raise OracleError("no class line")
        tree = ast.parse(self.text[start:])
        cls = tree.body[0]
        fwd = [f for f in cls.body if isinstance(f, ast.FunctionDef)
               and f.name == "forward"][0]
        anns = []
        for a in fwd.args.args[1:]:
            if a.annotation is not None:
                anns.append((a.arg, a.annotation.value))
        for st in fwd.body:
            if isinstance(st, ast.AnnAssign) and st.value is None:
                anns.append((st.target.id, st.annotation.value))
        self.text_annotations = self.text
        self.make_symbols()
        for name, ann in anns:
            n = self.graph.placeholder(name)
            n.meta["symcut_name"] = name
            n.meta["val"] = self.fake_placeholder(ann)
            self.nodes[name] = n
            self.placeholders.append(n)
        outputs = None
        for st in fwd.body:
            if isinstance(st, ast.AnnAssign) and st.value is not None:
                self.add_node(st.target.id, st.value)
            elif isinstance(st, ast.Assign):
                if isinstance(st.targets[0], ast.Tuple):
                    continue  # the pytree flattening of the inputs
                tname = st.targets[0].id
                if isinstance(st.value, ast.Constant) and st.value.value is None:
                    continue  # `x = None`: a deletion
                self.add_node(tname, st.value)
            elif isinstance(st, ast.Return):
                v = st.value
                if isinstance(v, ast.Call) and v.args:
                    v = v.args[0]
                outputs = self.arg(v)
        if outputs is None:
            raise OracleError("no return statement")
        self.graph.output(list(outputs))
        return self.graph

    def add_node(self, name, value):
        target, args, kwargs = self.call_of(value)
        n = self.graph.create_node("call_function", target, args, kwargs,
                                   name=name)
        # FX renames nodes that shadow a builtin (sum -> sum_1), here and
        # when it copies them into the forward and backward graphs: the
        # text's name rides along in the meta
        n.meta["symcut_name"] = name
        self.nodes[name] = n

        def val(x):
            return x.meta["val"] if isinstance(x, fx.Node) else x
        fargs = torch.utils._pytree.tree_map(val, args)
        fkwargs = torch.utils._pytree.tree_map(val, kwargs)
        try:
            with self.mode:
                r = target(*fargs, **fkwargs)
        except Exception as e:
            raise OracleError("fake run of %s (%s) failed: %s" % (
                name, target, str(e).splitlines()[0] if str(e) else type(e)))
        n.meta["val"] = r
        if isinstance(r, (bool, int, float)):
            # a node whose value is a plain number (symcut's text can hold
            # `Sym(2)` nodes such as `2 * 1`): torch's tracer folds these,
            # so a graph torch prints never has one
            self.constant_nodes.append(name)
        b = compute_unbacked_bindings(self.shape_env, r)
        if b:
            n.meta["unbacked_bindings"] = b


def name_of(n):
    return n.meta.get("symcut_name", n.name)


def sym_of(n):
    return isinstance(n.meta.get("val"), (torch.SymInt, torch.SymBool,
                                          torch.SymFloat))


# `# symcut:` lines for node meta that a printed graph does not carry:
# directive -> (meta key, value of an item NAME or NAME=V)
META_DIRECTIVES = {
    "ac_graph_id": ("ac_graph_id", int),
    "has_backward_hook": ("has_backward_hook", None),
    "must_be_in_forward": ("partitioner_tag", "must_be_in_forward"),
    "must_be_in_backward": ("partitioner_tag", "must_be_in_backward"),
}


def apply_meta(b, d, tags=None):
    """The tags (`# symcut: must_save a, b`, and tags {name: tag}) and the
    META_DIRECTIVES of directives d onto builder b's nodes."""
    t = dict(d["tags"])
    t.update(tags or {})
    for name, tag in t.items():
        if name not in b.nodes:
            raise OracleError("tag on an unknown node %s" % name)
        b.nodes[name].meta["recompute"] = TAGS[tag]
    for key, (meta, kind) in META_DIRECTIVES.items():
        for item in re.split(r"[\s,]+", d.get(key, "")):
            if not item:
                continue
            name, _, v = item.partition("=")
            if name not in b.nodes:
                raise OracleError("%s on an unknown node %s" % (key, name))
            if kind is int:
                b.nodes[name].meta[meta] = int(v)
            elif kind is None:
                b.nodes[name].meta[meta] = True
            else:
                b.nodes[name].meta[meta] = kind


def decide(text, hints=None, params=None, static_inputs=None,
           num_fwd_outputs=None, tags=None):
    """Run torch's partitioner on the graph text; return (decision, fw, bw)."""
    d = parse_directives(text)
    h = dict(d["hint"])
    h.update(hints or {})
    b = Builder(text, h)
    graph = b.build()
    apply_meta(b, d, tags)
    primals = [p for p in b.placeholders if p.target.startswith("primals")]
    if static_inputs is None and "static_inputs" in d:
        static_inputs = [int(x) for x in re.split(r"[\s,]+", d["static_inputs"])
                         if x]
    if static_inputs is None:
        np_ = params if params is not None else int(d.get("params", 0))
        static_inputs = list(range(np_))
    nout = len(list(graph.nodes)[-1].args[0])
    if num_fwd_outputs is None:
        num_fwd_outputs = int(d["num_fwd_outputs"]) if "num_fwd_outputs" in d \
            else nout - len(primals)
    gm = fx.GraphModule(torch.nn.Module(), graph)
    joint_names = [name_of(n) for n in gm.graph.nodes if n.op != "output"]
    specialized = sorted(str(k) for k, v in b.shape_env.replacements.items()
                         if str(k) in b.syms and v.is_number)
    try:
        with b.mode:
            fw, bw = partitioners.min_cut_rematerialization_partition(
                gm, None, num_fwd_outputs=num_fwd_outputs,
                static_lifetime_input_indices=list(static_inputs))
    except Exception as e:
        e.symcut_specialized = specialized
        e.symcut_constant = list(b.constant_nodes)
        raise
    fw_out = list(fw.graph.nodes)[-1].args[0]
    saved = [a for a in fw_out[num_fwd_outputs:] if a is not None]
    # the RNG states functionalize_rng_ops adds to the forward's outputs
    # (getitem 0 of run_and_save_rng_state) are not of the min cut's
    # saved set: listed apart
    rng = torch.ops.higher_order.run_and_save_rng_state
    rng_states = [a for a in saved if a.op == "call_function" and
                  a.target is operator.getitem and
                  getattr(a.args[0], "target", None) is rng]
    saved = [a for a in saved if a not in rng_states]

    def count(g, what):
        return sum(1 for n in g.graph.nodes
                   if n.op in what)
    fw_calls = set(name_of(n) for n in fw.graph.nodes
                   if n.op == "call_function")
    bw_calls = set(name_of(n) for n in bw.graph.nodes
                   if n.op == "call_function")
    dec = {
        "policy": "torch-" + torch.__version__.split("+")[0],
        "saved_tensors": [name_of(a) for a in saved if not sym_of(a)],
        "saved_symints": [name_of(a) for a in saved if sym_of(a)],
        "forward_nodes": count(fw, ("placeholder", "call_function")),
        "forward_calls": count(fw, ("call_function",)),
        "backward_nodes": count(bw, ("placeholder", "call_function")),
        "backward_calls": count(bw, ("call_function",)),
        "recomputed": [n for n in joint_names if n in fw_calls and n in bw_calls],
        "rng_states": [name_of(a) for a in rng_states],
        "params": sorted(static_inputs),
        "num_fwd_outputs": num_fwd_outputs,
        # symbols of the text that torch's fake tensors specialized to a
        # constant while rebuilding the graph (a graph torch would have
        # printed with the constant from there on)
        "specialized": specialized,
        # nodes whose value is a plain number (see Builder.add_node)
        "constant_nodes": list(b.constant_nodes),
    }
    return dec, fw, bw


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graph")
    ap.add_argument("--hint", action="append", default=[])
    ap.add_argument("--params", type=int)
    ap.add_argument("--static-inputs")
    ap.add_argument("--num-fwd-outputs", type=int)
    ap.add_argument("--tag", action="append", default=[])
    ap.add_argument("--fw")
    ap.add_argument("--bw")
    a = ap.parse_args(argv)
    hints = {}
    for h in a.hint:
        for item in h.split(","):
            k, v = item.split("=")
            hints[k.strip()] = int(v)
    tags = dict(t.split("=", 1) for t in a.tag)
    static = None
    if a.static_inputs is not None:
        static = [int(x) for x in a.static_inputs.split(",") if x]
    try:
        with open(a.graph) as f:
            text = f.read()
        dec, fw, bw = decide(text, hints, a.params, static,
                             a.num_fwd_outputs, tags)
    except (OracleError, OSError, SyntaxError) as e:
        print("oracle: %s: %s" % (a.graph, e), file=sys.stderr)
        return 2
    if a.fw:
        with open(a.fw, "w") as f:
            f.write(fw.print_readable(print_output=False))
    if a.bw:
        with open(a.bw, "w") as f:
            f.write(bw.print_readable(print_output=False))
    print(json.dumps(dec, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

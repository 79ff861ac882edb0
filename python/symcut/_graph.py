"""Graphs (PyTorch's text), partitions and validation."""
import ctypes
import json

from . import _lib
from ._lib import lib, P
from . import _tensor
from ._core import (_Handle, _check, _enc, _raise, Context, Expr,
                    STATUS_NAMES, _ERROR_CLASSES)

_RESULT_KINDS = ("unknown", "none", "tensor", "symint", "symbool", "tuple")
READ_NO_LIVENESS_CHECK, READ_STRICT = 1, 2
INTERP_NO_META_CHECK = 1
WRITE_NO_LIVENESS, WRITE_NO_DIRECTIVES = 1, 2
PARTITION_NO_CSE, PARTITION_NO_GRAPHS = 1, 2
RULES = {"used_far_apart": 1, "long_fusible_chains": 2,
         "materialized_backward": 4, "not_in_allowlist": 8, "reductions": 16}
AGGRESSIVE = 0xf
_CLASS_BITS = ("required_fw", "tangent_closure", "required_bw", "bw_output",
               "fw_output", "materialized")


def _names(fn, limit=64):
    out = []
    for i in range(limit):
        n = fn(i)
        if not n:
            break
        out.append(n.decode())
    return out


def policies():
    """The partition policies the library has, by name."""
    return _names(lib.sc_partition_policy_name)


def policy_id(name):
    out = ctypes.c_int()
    if not lib.sc_partition_policy_from_name(_enc(name), ctypes.byref(out)):
        raise ValueError("unknown policy %r (the library has: %s)"
                         % (name, ", ".join(policies())))
    return out.value


KINDS = [lib.sc_graph_kind_name(i).decode() for i in range(5)]


def kind_id(name):
    out = ctypes.c_int()
    b = _enc(name)
    if not lib.sc_graph_kind_from_name(b, len(b), ctypes.byref(out)):
        raise ValueError("unknown graph kind %r (kinds: %s)"
                         % (name, ", ".join(KINDS)))
    return out.value


def list_graphs(text, file=None):
    """The graphs a text holds (a TORCH_LOGS log, a TORCH_TRACE log, or one
    graph), as Graph.read_text's graph= can choose them: a list of dicts
    with index, name, kind, compile_id, title, class_name, line,
    static_inputs (a list of ints, or None) and trace (the text is a
    TORCH_TRACE log)."""
    data = text.encode() if isinstance(text, str) else bytes(text)
    out = ctypes.c_void_p()
    err = _lib.Error()
    _check(lib.sc_graph_list_text(data, len(data), _enc(file),
                                  ctypes.byref(out), ctypes.byref(err)), err)
    try:
        trace = bool(lib.sc_graph_listing_is_trace(out))
        res = []
        for i in range(lib.sc_graph_listing_count(out)):
            e = _lib.ListingEntry()
            lib.sc_graph_listing_entry_get(out, i, ctypes.byref(e))
            si = e.static_inputs
            res.append({"index": i, "name": e.name.decode(),
                        "kind": KINDS[e.kind] if e.kind < len(KINDS)
                        else "unknown",
                        "compile_id": e.compile_id.decode(),
                        "title": e.title.decode(),
                        "class_name": e.class_name.decode(),
                        "line": e.line,
                        "static_inputs": None if si is None else
                        [int(x) for x in si.decode().split(",") if x],
                        "trace": trace})
        return res
    finally:
        lib.sc_graph_listing_free(out)


def list_graphs_file(path):
    with open(path, "rb") as f:
        return list_graphs(f.read(), str(path))


PLACES = _names(lib.sc_partition_place_name)
BANS = _names(lib.sc_partition_ban_name)
TAGS = _names(lib.sc_partition_tag_name)
PHASES = _names(lib.sc_partition_phase_name)


def _take_text(fn, *args):
    out = ctypes.c_void_p()
    n = ctypes.c_size_t()
    err = _lib.Error()
    _check(fn(*args, ctypes.byref(out), ctypes.byref(n), ctypes.byref(err)),
           err)
    return _lib.take_string(out.value)


_UNITS = {"b": 1, "kb": 10 ** 3, "mb": 10 ** 6, "gb": 10 ** 9,
          "tb": 10 ** 12, "kib": 2 ** 10, "mib": 2 ** 20, "gib": 2 ** 30,
          "tib": 2 ** 40}


def parse_memory_budget(value):
    """(SC_PARTITION_BUDGET_BYTES, bytes) or (SC_PARTITION_BUDGET_RATIO,
    ratio) of a memory budget: a float or a text number with a '.', or a
    number in [0, 1] without unit, is a ratio (PyTorch's
    activation_memory_budget, in [0, 1]); an int > 1, or a number with a
    unit (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), is bytes.  ValueError
    naming the value otherwise."""
    import math
    import re
    if isinstance(value, bool):
        raise ValueError("memory_budget %r: not a number" % (value,))
    if isinstance(value, float):
        ratio = value
    elif isinstance(value, int):
        if value < 0:
            raise ValueError("memory_budget %r: negative" % (value,))
        if value > 1:
            if value >= 2 ** 64:
                raise ValueError("memory_budget %r: too large" % (value,))
            return _lib.BUDGET_BYTES, value
        ratio = float(value)
    elif isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*"
                         r"([A-Za-z]*)\s*", value)
        if not m:
            raise ValueError("memory_budget %r: not a number with an "
                             "optional unit (1234567, 40MB, 1.5GiB, 0.5)"
                             % (value,))
        num, unit = m.group(1), m.group(2).lower()
        if unit:
            if unit not in _UNITS:
                raise ValueError("memory_budget %r: unknown unit %r (units: "
                                 "B KB MB GB TB KiB MiB GiB TiB)"
                                 % (value, m.group(2)))
            from fractions import Fraction
            b = Fraction(num) * _UNITS[unit]
            if b.denominator != 1 and unit == "b":
                raise ValueError("memory_budget %r: a fraction of a byte"
                                 % (value,))
            b = int(b)
            if b >= 2 ** 64:
                raise ValueError("memory_budget %r: too large" % (value,))
            return _lib.BUDGET_BYTES, b
        if "." in num:
            ratio = float(num)
        else:
            return parse_memory_budget(int(num))
    else:
        raise ValueError("memory_budget %r: not a number" % (value,))
    if not (math.isfinite(ratio) and 0.0 <= ratio <= 1.0):
        raise ValueError("memory_budget %r: a ratio must be in [0, 1]"
                         % (value,))
    return _lib.BUDGET_RATIO, ratio


_BUDGET_PROBE = []


def has_memory_budget():
    """Whether the library honours sc_partition_options' memory budget:
    asked once, by partitioning a small joint graph with pytorch-1.13 and
    a ratio, which such a library refuses ("pytorch-1.13 has no memory
    budget") and one without the budget fields ignores."""
    if not _BUDGET_PROBE:
        with Context() as ctx:
            g = Graph.random(seed=1, nodes=4, ctx=ctx).joint()
            o, buf = _lib.init_padded(_lib.PartitionOptions,
                                      lib.sc_partition_options_init)
            o.policy = policy_id("pytorch-1.13")
            o.memory_budget_kind = _lib.BUDGET_RATIO
            o.memory_budget_ratio = 0.5
            try:
                g._run_partition(buf).close()
                _BUDGET_PROBE.append(False)
            except _ERROR_CLASSES["ERR_INVALID"] as e:
                _BUDGET_PROBE.append("budget" in str(e))
    return _BUDGET_PROBE[0]


class Node:
    """One node of a graph (a read-only view)."""

    __slots__ = ("graph", "id")

    def __init__(self, graph, nid):
        self.graph, self.id = graph, nid

    def _g(self):
        return self.graph._alive()

    @property
    def name(self):
        return lib.sc_graph_node_name(self._g(), self.id).decode()

    @property
    def kind(self):
        return ("placeholder", "call")[lib.sc_graph_node_kind(self._g(),
                                                              self.id)]

    @property
    def role(self):
        return ("none", "primal", "tangent")[lib.sc_graph_node_role(
            self._g(), self.id)]

    @property
    def target(self):
        t = lib.sc_graph_node_target(self._g(), self.id)
        return t.decode() if t else None

    @property
    def op_class(self):
        t = lib.sc_graph_node_class(self._g(), self.id)
        return t.decode() if t else None

    @property
    def line(self):
        return lib.sc_graph_node_line(self._g(), self.id)

    @property
    def users(self):
        n = ctypes.c_size_t()
        p = lib.sc_graph_node_users(self._g(), self.id, ctypes.byref(n))
        return [Node(self.graph, p[i]) for i in range(n.value)]

    @property
    def meta(self):
        """{"kind": ..., and for a tensor "dtype", "sizes", "strides"
        (Exprs or None), "device"; for a SymInt/SymBool "expr"}."""
        r = _lib.Result()
        lib.sc_graph_node_result(self._g(), self.id, ctypes.byref(r))
        ctx = self.graph.ctx
        out = {"kind": _RESULT_KINDS[r.kind]}
        if r.kind == 2:
            t = r.tensor
            out["dtype"] = lib.sc_dtype_torch_name(t.dtype).decode()
            out["sizes"] = [Expr(ctx, t.sizes[i]) for i in range(t.ndim)]
            out["strides"] = ([Expr(ctx, t.strides[i]) for i in range(t.ndim)]
                              if t.has_strides else None)
            out["device"] = (lib.sc_device_type_name(t.device.type).decode()
                             if t.has_device else None)
        elif r.kind in (3, 4):
            out["expr"] = Expr(ctx, r.expr)
        elif r.kind == 5:
            out["count"] = r.count
        return out

    def __repr__(self):
        return "<Node %s>" % self.name


class Graph(_Handle):
    """A graph read from PyTorch's text (or built by the library)."""

    _free = staticmethod(lib.sc_graph_free)

    def __init__(self, ctx, ptr, keep=()):
        self.ctx = ctx
        self._keep = tuple(keep)
        self._own(ptr, ctx)

    @classmethod
    def read_text(cls, text, filename=None, ctx=None, *, num_fwd_outputs=None,
                  hints=None, liveness_check=True, graph=None, env=None,
                  kind=None, input_types=None, strict=False):
        """Read PyTorch's print_readable text (or one graph of a TORCH_LOGS
        or TORCH_TRACE log).  hints: {symbol name: value}, overriding
        `# symcut: hint` lines; graph: which graph of a log (an index of
        list_graphs, a name "0/0:joint", a compile id, a kind); kind:
        "joint", "forward", ... instead of detecting it; input_types:
        {placeholder: "f32[8, 16]"} for a `.code` graph without
        annotations; strict: an unknown op is an error, not a warning.
        Errors carry file:line:column."""
        return cls._read(text, filename, ctx, num_fwd_outputs, hints,
                         liveness_check, graph, env, kind, input_types,
                         strict, from_file=False)

    @classmethod
    def read_file(cls, path, ctx=None, *, num_fwd_outputs=None, hints=None,
                  liveness_check=True, graph=None, env=None, kind=None,
                  input_types=None, strict=False):
        return cls._read(str(path), None, ctx, num_fwd_outputs, hints,
                         liveness_check, graph, env, kind, input_types,
                         strict, from_file=True)

    @classmethod
    def _read(cls, text, filename, ctx, nfwd, hints, liveness, graph, env,
              kind, input_types, strict, from_file):
        ctx = ctx or (env.ctx if env is not None else Context())
        o, buf = _lib.init_padded(_lib.ReadOptions,
                                  lib.sc_graph_read_options_init)
        keep = []
        if kind is not None:
            o.kind = kind_id(kind)
        if input_types:
            names = (ctypes.c_char_p * len(input_types))(
                *[_enc(k) for k in input_types])
            types = (ctypes.c_char_p * len(input_types))(
                *[_enc(v) for v in input_types.values()])
            keep += [names, types]
            o.ninputs = len(input_types)
            o.input_names = ctypes.cast(names, P(ctypes.c_char_p))
            o.input_types = ctypes.cast(types, P(ctypes.c_char_p))
        if strict:
            o.flags |= READ_STRICT
        if nfwd is not None:
            o.num_fwd_outputs = nfwd
        if not liveness:
            o.flags |= READ_NO_LIVENESS_CHECK
        hints = dict(hints or {})
        syms = (ctypes.c_void_p * max(len(hints), 1))(
            *[ctx.symbol(k)._p for k in hints])
        vals = (ctypes.c_int64 * max(len(hints), 1))(*hints.values())
        o.nhints = len(hints)
        o.hint_symbols = ctypes.cast(syms, P(ctypes.c_void_p))
        o.hint_values = ctypes.cast(vals, P(ctypes.c_int64))
        if env is not None:
            o.env = env._alive()
        gsel = None
        if graph is not None:
            gsel = _enc(graph)
            o.graph = gsel
        out = ctypes.c_void_p()
        err = _lib.Error()
        if from_file:
            st = lib.sc_graph_read_file(ctx._alive(), _enc(text), buf,
                                        ctypes.byref(out), ctypes.byref(err))
        else:
            data = text.encode()
            st = lib.sc_graph_read_text(ctx._alive(), data, len(data),
                                        _enc(filename), buf,
                                        ctypes.byref(out), ctypes.byref(err))
        _check(st, err)
        return cls(ctx, out.value, keep=(env,) if env is not None else ())

    @classmethod
    def random(cls, seed=0, nodes=8, symbolic=False, features=0,
               exclude=(), ctx=None):
        """A random forward graph of the op table (doc/random.md)."""
        ctx = ctx or Context()
        o = _lib.RandomOptions()
        lib.sc_graph_random_options_init(ctypes.byref(o))
        o.seed, o.nodes, o.symbolic, o.features = seed, nodes, symbolic, \
            features
        ex = (ctypes.c_char_p * max(len(exclude), 1))(
            *[_enc(x) for x in exclude])
        o.nexclude = len(exclude)
        o.exclude = ctypes.cast(ex, P(ctypes.c_char_p))
        out = ctypes.c_void_p()
        err = _lib.Error()
        _check(lib.sc_graph_new_random(ctx._alive(), ctypes.byref(o),
                                       ctypes.byref(out), ctypes.byref(err)),
               err)
        return cls(ctx, out.value)

    def joint(self, requires_grad=None):
        """The joint forward/backward graph of this forward graph."""
        o = _lib.JointOptions()
        lib.sc_joint_options_init(ctypes.byref(o))
        if requires_grad is not None:
            arr = (ctypes.c_bool * max(len(requires_grad), 1))(*requires_grad)
            o.nrequires_grad = len(requires_grad)
            o.requires_grad = ctypes.cast(arr, P(ctypes.c_bool))
        out = ctypes.c_void_p()
        err = _lib.Error()
        _check(lib.sc_graph_new_joint(self._alive(), ctypes.byref(o),
                                      ctypes.byref(out), ctypes.byref(err)),
               err)
        return Graph(self.ctx, out.value, keep=(self,))

    # ---- queries
    def __len__(self):
        return lib.sc_graph_node_count(self._alive())

    @property
    def nodes(self):
        return [Node(self, i) for i in range(len(self))]

    def node(self, name):
        i = lib.sc_graph_find(self._alive(), _enc(name))
        if i < 0:
            raise KeyError(name)
        return Node(self, i)

    def __contains__(self, name):
        return lib.sc_graph_find(self._alive(), _enc(name)) >= 0

    primal_count = property(lambda s: lib.sc_graph_primal_count(s._alive()))
    tangent_count = property(lambda s: lib.sc_graph_tangent_count(s._alive()))
    placeholder_count = property(
        lambda s: lib.sc_graph_placeholder_count(s._alive()))
    fwd_output_count = property(
        lambda s: lib.sc_graph_fwd_output_count(s._alive()))

    @property
    def class_name(self):
        c = lib.sc_graph_class_name(self._alive())
        return c.decode() if c else None

    @property
    def outputs(self):
        """Output node names (None for a None output)."""
        p = self._alive()
        ids = [lib.sc_graph_output(p, i)
               for i in range(lib.sc_graph_output_count(p))]
        return [None if i < 0 else lib.sc_graph_node_name(p, i).decode()
                for i in ids]

    @property
    def symbols(self):
        p = self._alive()
        n = lib.sc_graph_symbols(p, None, 0)
        arr = (ctypes.c_void_p * max(n, 1))()
        lib.sc_graph_symbols(p, arr, n)
        return [Expr(self.ctx, arr[i]) for i in range(n)]

    @property
    def hints(self):
        """{symbol name: hint} for the symbols with one."""
        out = {}
        v = ctypes.c_int64()
        for s in self.symbols:
            if lib.sc_graph_get_hint(self._ptr, s._p, ctypes.byref(v)):
                out[s.name] = v.value
        return out

    def set_hint(self, symbol, value):
        err = _lib.Error()
        _check(lib.sc_graph_set_hint(self._alive(),
                                     self.ctx.expr(symbol)._p
                                     if not isinstance(symbol, str)
                                     else self.ctx.symbol(symbol)._p,
                                     value, ctypes.byref(err)), err)

    def directive(self, key):
        d = lib.sc_graph_directive(self._alive(), _enc(key))
        return d.decode() if d is not None else None

    def set_directive(self, key, value):
        err = _lib.Error()
        _check(lib.sc_graph_set_directive(self._alive(), _enc(key),
                                          _enc(value), ctypes.byref(err)),
               err)

    @property
    def warnings(self):
        p = self._alive()
        return [lib.sc_graph_warning(p, i).decode()
                for i in range(lib.sc_graph_warning_count(p))]

    @property
    def env(self):
        """The graph's shape environment as a read-only view, or None."""
        p = lib.sc_graph_env(self._alive())
        return p or None

    def equal(self, other, lenient_meta=False, ignore_names=False):
        """(equal, reason)."""
        why = ctypes.create_string_buffer(512)
        ok = lib.sc_graph_equal(self._alive(), other._alive(),
                                (1 if lenient_meta else 0) |
                                (2 if ignore_names else 0), why, len(why))
        return ok, why.value.decode()

    def to_text(self, liveness=True, directives=True, class_name=None):
        o = _lib.WriteOptions()
        lib.sc_graph_write_options_init(ctypes.byref(o))
        o.flags = (0 if liveness else WRITE_NO_LIVENESS) | \
            (0 if directives else WRITE_NO_DIRECTIVES)
        cn = _enc(class_name)
        if cn:
            o.class_name = cn
        return _take_text(lib.sc_graph_write_text, self._alive(),
                          ctypes.byref(o))

    def to_dot(self):
        return _take_text(lib.sc_graph_write_dot, self._alive(), None)

    __str__ = to_text

    # ---- partition, validation
    def partition(self, policy="pytorch", *, params=None, param_indices=None,
                  num_fwd_outputs=None, hints=None, unbacked_fallback=None,
                  tags=None, cse=True, graphs=True, rules_off=(),
                  aggressive_recomputation=False, max_dist_from_bw=None,
                  long_chain_limit=None, memory_budget=None,
                  replay_random=False):
        """Partition this joint graph; returns a Partition.

        policy: a name of policies(); params: the first N primals are
        parameters; param_indices: which primals are (PyTorch's
        static_lifetime_input_indices); tags: {node name: "must_save" |
        "must_recompute" | "prefer_recompute"}; rules_off: names of
        RULES; max_dist_from_bw, long_chain_limit: PyTorch's knobs;
        hints: {symbol name: value} set on this graph first (set_hint:
        they stay, as the graph's); memory_budget: bytes (an int > 1, or
        "40MB", "1.5GiB") or
        PyTorch's ratio (a float in [0, 1], or "0.5"), see
        parse_memory_budget; UnsupportedError when the library has no
        memory budget (has_memory_budget); replay_random: under exact with
        a budget, random ops may be recomputed (symcut's interpreter
        replays their draws; torch would re-draw them)."""
        buf, keep = self._options(
            policy, params, param_indices, num_fwd_outputs, hints,
            unbacked_fallback, tags, cse, graphs, rules_off,
            aggressive_recomputation, max_dist_from_bw, long_chain_limit,
            memory_budget, replay_random)
        return self._run_partition(buf)

    def _options(self, policy, params, param_indices, num_fwd_outputs, hints,
                 unbacked_fallback, tags, cse, graphs, rules_off,
                 aggressive_recomputation, max_dist_from_bw,
                 long_chain_limit, memory_budget, replay_random=False):
        """sc_partition_options in a buffer, and the arrays it points
        into (kept alive by the caller)."""
        Opts = _lib.PartitionOptions
        o, buf = _lib.init_padded(Opts, lib.sc_partition_options_init)
        o.policy = policy_id(policy)
        if params is not None:
            o.num_params = params
        keep = []
        if param_indices is not None:
            idx = sorted(set(int(i) for i in param_indices))
            if idx:
                arr = (ctypes.c_size_t * len(idx))(*idx)
                keep.append(arr)
                o.nparam_indices = len(idx)
                o.param_indices = ctypes.cast(arr, P(ctypes.c_size_t))
            else:
                o.num_params = 0
        if num_fwd_outputs is not None:
            o.num_fwd_outputs = num_fwd_outputs
        # The graph's shape environment is the one home of hints: they
        # are set on the graph (and stay), as the C API asks.
        for k, v in dict(hints or {}).items():
            self.set_hint(k, v)
        if unbacked_fallback is not None:
            o.unbacked_fallback = unbacked_fallback
        tags = dict(tags or {})
        if tags:
            for t in tags.values():
                if t not in TAGS:
                    raise ValueError("unknown tag %r (tags: %s)"
                                     % (t, ", ".join(TAGS)))
            names = (ctypes.c_char_p * len(tags))(*[_enc(n) for n in tags])
            tv = (ctypes.c_int * len(tags))(*[TAGS.index(t)
                                               for t in tags.values()])
            keep += [names, tv]
            o.ntags = len(tags)
            o.tag_nodes = ctypes.cast(names, P(ctypes.c_char_p))
            o.tags = ctypes.cast(tv, P(ctypes.c_int))
        o.flags = (0 if cse else PARTITION_NO_CSE) | \
            (0 if graphs else PARTITION_NO_GRAPHS)
        off = AGGRESSIVE if aggressive_recomputation else 0
        for r in rules_off:
            if r not in RULES:
                raise ValueError("unknown rule %r (rules: %s)"
                                 % (r, ", ".join(RULES)))
            off |= RULES[r]
        o.rules_off = off
        if max_dist_from_bw is not None:
            o.max_dist_from_bw = max_dist_from_bw if max_dist_from_bw else -1
        if long_chain_limit is not None:
            o.long_chain_limit = long_chain_limit if long_chain_limit else -1
        if memory_budget is not None:
            kind, value = parse_memory_budget(memory_budget)
            if not has_memory_budget():
                raise _ERROR_CLASSES["ERR_UNSUPPORTED"](
                    "ERR_UNSUPPORTED", "memory_budget %r: this libsymcut "
                    "has no memory budget (%s)" % (memory_budget, _lib.path))
            o.memory_budget_kind = kind
            if kind == _lib.BUDGET_BYTES:
                o.memory_budget_bytes = value
            else:
                o.memory_budget_ratio = value
        o.memory_budget_replay_random = bool(replay_random)
        return buf, keep

    def _run_partition(self, buf):
        out = ctypes.c_void_p()
        err = _lib.Error()
        _check(lib.sc_partition_run(self._alive(), buf, ctypes.byref(out),
                                    ctypes.byref(err)), err)
        return Partition(self, out.value)

    # ---- running
    @property
    def kind(self):
        """"joint", "forward", "backward", "inference" or "unknown"."""
        return KINDS[lib.sc_graph_get_kind(self._alive())]

    @property
    def placeholders(self):
        """The placeholder names, in order (the inputs of run)."""
        p = self._alive()
        return [lib.sc_graph_node_name(p, i).decode()
                for i in range(lib.sc_graph_placeholder_count(p))]

    def preflight(self):
        """UnsupportedError naming every op without a kernel and every
        dtype no kernel supports; None when every node can run."""
        err = _lib.Error()
        _check(lib.sc_interp_preflight(self._alive(), ctypes.byref(err)),
               err)

    def _inputs(self, inputs):
        """Tensors for the placeholders, from a list or {name: value}."""
        names = self.placeholders
        if isinstance(inputs, dict):
            unknown = [k for k in inputs if k not in names]
            missing = [k for k in names if k not in inputs]
            if unknown or missing:
                raise ValueError("inputs: %s" % "; ".join(
                    ([("not placeholders: " + ", ".join(unknown))]
                     if unknown else []) +
                    ([("missing: " + ", ".join(missing))]
                     if missing else [])))
            inputs = [inputs[k] for k in names]
        inputs = list(inputs)
        if len(inputs) != len(names):
            raise ValueError("%d inputs for %d placeholders (%s)"
                             % (len(inputs), len(names), ", ".join(names)))
        made = []
        ts = []
        try:
            for v in inputs:
                t = _tensor.Tensor.of(v)
                if t is not v:
                    made.append(t)
                ts.append(t)
        except BaseException:
            for t in made:
                t.close()
            raise
        return ts, made

    def random_inputs(self, seed=0, sizes=None, int_high=None):
        """Random inputs for the placeholders (Tensors) at the hints, or
        at sizes ({symbol: value}): floats uniform in [-1, 1), integers
        in [0, int_high) (default 2), SymInts their value."""
        p = self._alive()
        m = self.ctx._symmap(sizes) if sizes else None
        binding = lib.sc_symmap_new(self.ctx._alive())
        n = lib.sc_graph_placeholder_count(p)
        arr = (_tensor.PT * max(n, 1))()
        err = _lib.Error()
        try:
            _check(lib.sc_interp_bind_sizes(p, m, binding,
                                            ctypes.byref(err)), err)
            _check(lib.sc_interp_random_inputs(p, binding, seed,
                                               int_high or 0, arr,
                                               ctypes.byref(err)), err)
        finally:
            lib.sc_symmap_free(binding)
            if m:
                lib.sc_symmap_free(m)
        return [_tensor.Tensor(arr[i]) for i in range(n)]

    def run(self, inputs=None, *, seed=0, sizes=None, meta_check=True,
            boundary=None, int_high=None):
        """Execute the graph on the CPU kernels.  inputs: one value per
        placeholder (a list, or {name: value}): Tensors, NumPy arrays,
        torch tensors, nested lists, ints for SymInt placeholders; None:
        random_inputs(seed, sizes).  Tensors given are kept, and ops that
        mutate an input write into them (arrays are copied first).
        sizes: symbols bound before the inputs are read; boundary: a node
        name or "forward" (the stats' boundary bytes).  A RunResult:
        outputs (Tensor, int for a SymInt output, bool for a SymBool, or
        None) and stats."""
        p = self._alive()
        if inputs is None:
            ts = made = self.random_inputs(seed, sizes, int_high)
        else:
            ts, made = self._inputs(inputs)
        o, buf = _lib.init_padded(_lib.InterpOptions,
                                  lib.sc_interp_options_init)
        o.seed = seed
        if not meta_check:
            o.flags |= INTERP_NO_META_CHECK
        if boundary == "forward":
            o.boundary = -2
        elif boundary is not None:
            o.boundary = self.node(boundary).id
        m = self.ctx._symmap(sizes) if sizes else None
        o.sizes = m
        n_in = len(ts)
        ins = (_tensor.PT * max(n_in, 1))(*[t._alive() for t in ts])
        n_out = lib.sc_graph_output_count(p)
        outs = (_tensor.PT * max(n_out, 1))()
        stats = _lib.InterpStats()
        err = _lib.Error()
        try:
            _check(lib.sc_interp_run(p, ins, buf, outs, ctypes.byref(stats),
                                     ctypes.byref(err)), err)
        finally:
            if m:
                lib.sc_symmap_free(m)
            for t in made:
                t.close()
        res = []
        r = _lib.Result()
        for i in range(n_out):
            if not outs[i]:
                res.append(None)
                continue
            t = _tensor.Tensor(outs[i])
            nid = lib.sc_graph_output(p, i)
            lib.sc_graph_node_result(p, nid, ctypes.byref(r))
            if r.kind in (3, 4):
                v = t.item()
                t.close()
                t = bool(v) if r.kind == 4 else int(v)
            res.append(t)
        return RunResult(res, self._stats(stats))

    def _stats(self, s):
        def name(i):
            if i < 0:
                return None
            return lib.sc_graph_node_name(self._alive(), i).decode()
        return {"peak_bytes": s.peak_bytes, "peak_node": name(s.peak_node),
                "boundary_bytes": s.boundary_bytes,
                "boundary_input_bytes": s.boundary_input_bytes,
                "boundary_node": name(s.boundary_node),
                "output_bytes": s.output_bytes,
                "kernel_calls": s.kernel_calls}

    def validate(self, forward, backward, seed=0, sizes=None,
                 predicted_saved_bytes=None, int_high=None, inputs=None):
        """Run this joint graph and the forward/backward pair on random
        inputs (or inputs: one value per placeholder of this graph, as
        for run; not modified) and compare bit for bit; a
        ValidateReport."""
        o, buf = _lib.init_padded(_lib.ValidateOptions,
                                  lib.sc_validate_options_init)
        o.seed = seed
        made = []
        if inputs is not None:
            ts, made = self._inputs(inputs)
            arr = (_tensor.PT * max(len(ts), 1))(*[t._alive() for t in ts])
            o.inputs = ctypes.cast(arr, P(_tensor.PT))
        m = self.ctx._symmap(sizes) if sizes else None
        o.sizes = m
        if predicted_saved_bytes is not None:
            o.predicted_saved_bytes = predicted_saved_bytes
        if int_high is not None:
            o.int_high = int_high
        rep = _lib.ValidateReport()
        err = _lib.Error()
        try:
            _check(lib.sc_validate_run(self._alive(), forward._alive(),
                                       backward._alive(), buf,
                                       ctypes.byref(rep), ctypes.byref(err)),
                   err)
        finally:
            if m:
                lib.sc_symmap_free(m)
            for t in made:
                t.close()
        return ValidateReport(rep, self, forward, backward)

    def gradcheck(self, seed=0, eps=None, atol=None, rtol=None,
                  max_per_input=None, sizes=None):
        """Gradients against central finite differences (float64); a
        dict with passed, message, checked, failures, worst_*."""
        o, buf = _lib.init_padded(_lib.GradcheckOptions,
                                  lib.sc_gradcheck_options_init)
        o.seed = seed
        for k, v in (("eps", eps), ("atol", atol), ("rtol", rtol),
                     ("max_per_input", max_per_input)):
            if v is not None:
                setattr(o, k, v)
        m = self.ctx._symmap(sizes) if sizes else None
        o.sizes = m
        rep = _lib.GradcheckReport()
        err = _lib.Error()
        try:
            _check(lib.sc_gradcheck_run(self._alive(), buf, ctypes.byref(rep),
                                        ctypes.byref(err)), err)
        finally:
            if m:
                lib.sc_symmap_free(m)
        return {f: (getattr(rep, f).decode() if f == "message"
                    else getattr(rep, f)) for f, _ in rep._fields_}


class RunResult:
    """What Graph.run returns: outputs (one per graph output) and stats
    (peak_bytes, peak_node, boundary_bytes, boundary_input_bytes,
    boundary_node, output_bytes, kernel_calls).  Iterating gives the
    outputs; close() frees their tensors now."""

    def __init__(self, outputs, stats):
        self.outputs, self.stats = outputs, stats

    def __iter__(self):
        return iter(self.outputs)

    def __len__(self):
        return len(self.outputs)

    def __getitem__(self, i):
        return self.outputs[i]

    def numpy(self):
        """The outputs with every Tensor as a NumPy array."""
        return [o.numpy() if isinstance(o, _tensor.Tensor) else o
                for o in self.outputs]

    def close(self):
        for o in self.outputs:
            if isinstance(o, _tensor.Tensor):
                o.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class ValidateReport:
    """The verdict of Graph.validate."""

    KINDS = ("ok", "structure", "run_error", "forward_output", "gradient",
             "mutated_input", "saved_bytes")

    def __init__(self, r, joint=None, forward=None, backward=None):
        self.passed = r.passed
        self.kind = self.KINDS[r.kind] if r.kind < len(self.KINDS) else r.kind
        self.message = r.message.decode(errors="replace")
        self.compared, self.mismatches = r.compared, r.mismatches
        self.max_abs_error, self.max_rel_error = r.max_abs_error, \
            r.max_rel_error
        self.saved_count, self.saved_bytes = r.saved_count, r.saved_bytes
        self.peak_bytes = {"joint": r.joint_stats.peak_bytes,
                           "forward": r.fw_stats.peak_bytes,
                           "backward": r.bw_stats.peak_bytes}
        self.predicted_saved_bytes = (None if r.predicted_saved_bytes < 0
                                      else r.predicted_saved_bytes)
        # the names point into the graphs: copied while they live
        self.index = r.index
        self.joint_node = r.joint_node.decode() if r.joint_node else None
        self.part_node = r.part_node.decode() if r.part_node else None
        self.stats = {}
        for key, st, g in (("joint", r.joint_stats, joint),
                           ("forward", r.fw_stats, forward),
                           ("backward", r.bw_stats, backward)):
            if g is not None and not g.closed:
                self.stats[key] = g._stats(st)

    def __bool__(self):
        return bool(self.passed)

    def __repr__(self):
        return "<ValidateReport %s%s>" % (
            "passed" if self.passed else "FAILED",
            "" if self.passed else ": " + self.message)


class Partition(_Handle):
    """The result of Graph.partition: decisions, totals, reports and the
    forward and backward graphs."""

    _free = staticmethod(lib.sc_partition_free)

    def __init__(self, joint, ptr):
        self.joint = joint
        self._own(ptr, joint)
        self._fw = self._bw = None

    def _names(self, count, at):
        p = self._alive()
        g = self.joint._alive()
        return [lib.sc_graph_node_name(g, at(p, i)).decode()
                for i in range(count(p))]

    @property
    def policy(self):
        return lib.sc_partition_policy_name(
            lib.sc_partition_policy_in_force(self._alive())).decode()

    saved_tensors = property(lambda s: s._names(
        lib.sc_partition_saved_tensor_count, lib.sc_partition_saved_tensor))
    saved_symints = property(lambda s: s._names(
        lib.sc_partition_saved_symint_count, lib.sc_partition_saved_symint))
    recomputed = property(lambda s: s._names(
        lib.sc_partition_recomputed_count, lib.sc_partition_recomputed))

    @property
    def synthesized_symints(self):
        p = self._alive()
        g = self.joint._alive()
        out = []
        for i in range(lib.sc_partition_synth_symint_count(p)):
            s = _lib.Synth()
            lib.sc_partition_synth_symint(p, i, ctypes.byref(s))
            out.append({"name": s.name.decode(),
                        "source": lib.sc_graph_node_name(g, s.src).decode(),
                        "dim": s.dim,
                        "symbol": str(Expr(self.joint.ctx, s.sym))})
        return out

    saved_bytes = property(lambda s: lib.sc_partition_saved_bytes(
        s._alive()))
    trivial_bytes = property(lambda s: lib.sc_partition_trivial_bytes(
        s._alive()))
    cut_value = property(lambda s: lib.sc_partition_cut_value(s._alive()))
    unbacked_fallback = property(lambda s: lib.sc_partition_unbacked_fallback(
        s._alive()))
    dead_count = property(lambda s: lib.sc_partition_dead_count(s._alive()))
    folded_count = property(lambda s: lib.sc_partition_folded_count(
        s._alive()))

    @property
    def saved_bytes_formula(self):
        return Expr(self.joint.ctx,
                    lib.sc_partition_saved_bytes_expr(self._alive()))

    @property
    def trivial_bytes_formula(self):
        return Expr(self.joint.ctx,
                    lib.sc_partition_trivial_bytes_expr(self._alive()))

    @property
    def network(self):
        p = self._alive()
        return {"vertices": lib.sc_partition_network_vertex_count(p),
                "edges": lib.sc_partition_network_edge_count(p),
                "cut_value": lib.sc_partition_cut_value(p)}

    @property
    def recompute_flops(self):
        """(FLOPs at the hints, nodes without a FLOP formula)."""
        unknown = ctypes.c_size_t()
        f = lib.sc_partition_recompute_flops(self._alive(),
                                             ctypes.byref(unknown))
        return f, unknown.value

    @property
    def rules(self):
        off, dist, chain = ctypes.c_uint(), ctypes.c_int32(), ctypes.c_int32()
        lib.sc_partition_rules(self._alive(), ctypes.byref(off),
                               ctypes.byref(dist), ctypes.byref(chain))
        out = {r: not (off.value & bit) for r, bit in RULES.items()}
        out["max_dist_from_bw"] = dist.value
        out["long_chain_limit"] = chain.value
        return out

    @property
    def warnings(self):
        p = self._alive()
        return [lib.sc_partition_warning(p, i).decode()
                for i in range(lib.sc_partition_warning_count(p))]

    @property
    def timings(self):
        p = self._alive()
        return {n: lib.sc_partition_phase_seconds(p, i)
                for i, n in enumerate(PHASES)}

    def node(self, name):
        """Where a joint node ended up and why: place, reason, ban, tag,
        class, distance, bytes, weight, representative."""
        p = self._alive()
        i = self.joint.node(name).id
        cls = lib.sc_partition_node_class(p, i)
        rep = lib.sc_partition_node_representative(p, i)
        return {"place": PLACES[lib.sc_partition_node_place(p, i)],
                "reason": lib.sc_partition_node_reason(p, i).decode(),
                "ban": BANS[lib.sc_partition_node_ban(p, i)],
                "tag": TAGS[lib.sc_partition_node_tag(p, i)],
                "class": [c for b, c in enumerate(_CLASS_BITS)
                          if cls & (1 << b)],
                "distance": lib.sc_partition_node_distance(p, i),
                "bytes": lib.sc_partition_node_bytes(p, i),
                "weight": lib.sc_partition_node_weight(p, i),
                "representative": lib.sc_graph_node_name(
                    self.joint._ptr, rep).decode()}

    def _take(self, fn, attr):
        g = getattr(self, attr)
        if g is None or g.closed:
            ptr = fn(self._alive())
            if not ptr:
                return None
            g = Graph(self.joint.ctx, ptr, keep=(self.joint,))
            setattr(self, attr, g)
        return g

    @property
    def forward(self):
        """The forward Graph (None when partitioned with graphs=False)."""
        return self._take(lib.sc_partition_take_forward, "_fw")

    @property
    def backward(self):
        return self._take(lib.sc_partition_take_backward, "_bw")

    def to_text(self, timings=False):
        return _take_text(lib.sc_partition_write_text, self._alive(),
                          0 if timings else 1)

    def to_json(self, timings=False):
        """The JSON report (doc/partition.md) as a dict."""
        return json.loads(_take_text(lib.sc_partition_write_json,
                                     self._alive(), 0 if timings else 1))

    def to_dot(self):
        return _take_text(lib.sc_partition_write_dot, self._alive(), 1)

    def validate(self, seed=0, sizes=None):
        """Graph.validate of the joint against this partition's graphs,
        checking the predicted saved bytes too."""
        return self.joint.validate(self.forward, self.backward, seed=seed,
                                   sizes=sizes,
                                   predicted_saved_bytes=None if sizes
                                   else self.saved_bytes)


# ---- the frontier ------------------------------------------------------------


def pareto(graph, *, points=0, keep_bans=False, milp_seconds=0.0,
           replay_random=False, policy="exact", **options):
    """The exact memory/recompute frontier of a joint graph (a Frontier):
    the lower convex hull of (saved bytes, recompute cost), and with
    points > 0 that many budgets between its ends solved exactly.
    keep_bans: PyTorch's heuristic bans stay constraints; milp_seconds:
    the time limit of one budget's MILP (0: the library's);
    replay_random: under exact, random ops may be recomputed (symcut's
    interpreter replays their draws; torch would re-draw them); policy:
    exact or pytorch-2.13 (its classification, bans and default cut);
    options: Graph.partition's (memory_budget is ignored).
    UnsupportedError when the library has no frontier."""
    if not _lib.HAS_FRONTIER:
        raise _ERROR_CLASSES["ERR_UNSUPPORTED"](
            "ERR_UNSUPPORTED", "this libsymcut has no frontier (%s)"
            % _lib.path)
    options["policy"] = policy
    return Frontier(graph, points, keep_bans, milp_seconds, options,
                    replay_random)


class Frontier(_Handle):
    """What pareto returns: points (dicts, in increasing saved bytes),
    breakpoints (Fractions: bytes per unit of cost between hull
    vertices), default_cut, policy, solve(budget), score(names),
    partition(i), partition_saved(names), torch_budget(ratio)."""

    _free = staticmethod(getattr(lib, "sc_frontier_free", None))

    def __init__(self, joint, points, keep_bans, milp_seconds, options,
                 replay_random=False):
        self.joint = joint
        args = dict(policy="exact", params=None, param_indices=None,
                    num_fwd_outputs=None, hints=None, unbacked_fallback=None,
                    tags=None, cse=True, graphs=True, rules_off=(),
                    aggressive_recomputation=False, max_dist_from_bw=None,
                    long_chain_limit=None, memory_budget=None)
        unknown = set(options) - set(args)
        if unknown:
            raise TypeError("unknown option(s): %s"
                            % ", ".join(sorted(unknown)))
        args.update(options)
        args["memory_budget"] = None
        buf, keep = joint._options(**args)
        fo = _lib.FrontierOptions()
        lib.sc_frontier_options_init(ctypes.byref(fo))
        fo.points = points
        fo.keep_bans = keep_bans
        fo.replay_random = bool(replay_random)
        if milp_seconds:
            fo.milp_seconds = milp_seconds
        out = ctypes.c_void_p()
        err = _lib.Error()
        _check(lib.sc_frontier_compute(joint._alive(), buf, ctypes.byref(fo),
                                       ctypes.byref(out), ctypes.byref(err)),
               err)
        self._own(out.value, joint)

    def _names(self, ids, n):
        g = self.joint._alive()
        return [lib.sc_graph_node_name(g, ids[i]).decode() for i in range(n)]

    def _point(self, pt, saved=None):
        d = {f: getattr(pt, f) for f, _ in pt._fields_
             if f not in ("invalid_node",)}
        d["invalid_node"] = (None if pt.invalid_node < 0 else
                             lib.sc_graph_node_name(self.joint._alive(),
                                                    pt.invalid_node).decode())
        if saved is not None:
            d["saved"] = saved
        return d

    def __len__(self):
        return lib.sc_frontier_point_count(self._alive())

    @property
    def points(self):
        """Each point: saved_bytes, recompute_cost, recompute_flops,
        lower_bound, budget, saved_tensors, saved_symints (counts),
        hull_vertex, optimal, valid, saved (the joint's node names), and
        replayed_random (how many random ops its backward recomputes,
        replaying the forward's draws: exact with replay_random only)."""
        f = self._alive()
        out = []
        for i in range(lib.sc_frontier_point_count(f)):
            pt = _lib.FrontierPoint()
            lib.sc_frontier_point_get(f, i, ctypes.byref(pt))
            n = lib.sc_frontier_point_saved(f, i, None, 0)
            ids = (ctypes.c_int32 * max(n, 1))()
            lib.sc_frontier_point_saved(f, i, ids, n)
            d = self._point(pt, self._names(ids, n))
            d["replayed_random"] = lib.sc_frontier_point_replayed_random(f, i)
            out.append(d)
        return out

    @property
    def policy(self):
        """The policy the frontier was computed under."""
        return lib.sc_partition_policy_name(
            lib.sc_frontier_policy(self._alive())).decode()

    @property
    def breakpoints(self):
        from fractions import Fraction
        f = self._alive()
        out = []
        for i in range(lib.sc_frontier_breakpoint_count(f)):
            num, den = ctypes.c_uint64(), ctypes.c_uint64()
            lib.sc_frontier_breakpoint(f, i, ctypes.byref(num),
                                       ctypes.byref(den))
            out.append(Fraction(num.value, den.value))
        return out

    @property
    def default_cut(self):
        pt = _lib.FrontierPoint()
        lib.sc_frontier_default_cut(self._alive(), ctypes.byref(pt))
        return self._point(pt)

    @property
    def maxflow_count(self):
        return lib.sc_frontier_maxflow_count(self._alive())

    def solve(self, budget, seconds=0.0):
        """The least recompute cost within budget bytes (an int or a text
        with a unit, as memory_budget): a point with saved names.
        InvalidError below the least possible bytes."""
        kind, value = parse_memory_budget(budget)
        if kind != _lib.BUDGET_BYTES:
            raise ValueError("budget %r: the frontier solves bytes" % budget)
        pt = _lib.FrontierPoint()
        ids = P(ctypes.c_int32)()
        n = ctypes.c_size_t()
        err = _lib.Error()
        _check(lib.sc_frontier_solve(self._alive(), value, seconds,
                                     ctypes.byref(pt), ctypes.byref(ids),
                                     ctypes.byref(n), ctypes.byref(err)),
               err)
        try:
            names = self._names(ids, n.value)
        finally:
            _lib.free(ctypes.cast(ids, ctypes.c_void_p))
        return self._point(pt, names)

    def score(self, saved):
        """Score a saved set given by node names: valid, saved_bytes,
        recompute_cost, lower_bound at its bytes, invalid_node."""
        ids = [self.joint.node(n).id for n in saved]
        arr = (ctypes.c_int32 * max(len(ids), 1))(*ids)
        pt = _lib.FrontierPoint()
        err = _lib.Error()
        _check(lib.sc_frontier_score(self._alive(), arr, len(ids),
                                     ctypes.byref(pt), ctypes.byref(err)),
               err)
        return self._point(pt)

    def _ids(self, saved):
        ids = [self.joint.node(n).id for n in saved]
        return (ctypes.c_int32 * max(len(ids), 1))(*ids), len(ids)

    def partition_saved(self, saved, graphs=True):
        """The Partition that saves exactly these joint nodes (names; a
        valid set: InvalidError naming the node otherwise), under the
        frontier's options."""
        arr, n = self._ids(saved)
        out = ctypes.c_void_p()
        err = _lib.Error()
        _check(lib.sc_frontier_partition_saved(
            self._alive(), arr, n, 0 if graphs else PARTITION_NO_GRAPHS,
            ctypes.byref(out), ctypes.byref(err)), err)
        return Partition(self.joint, out.value)

    def torch_budget(self, ratio):
        """torch 2.13's own memory-budget decision at ratio (its
        activation_memory_budget in [0, 1]) scored against the frontier:
        a point with saved names (its budget is its saved bytes).
        InvalidError for a ratio outside [0, 1]."""
        pt = _lib.FrontierPoint()
        ids = P(ctypes.c_int32)()
        n = ctypes.c_size_t()
        err = _lib.Error()
        _check(lib.sc_frontier_torch_budget(
            self._alive(), float(ratio), ctypes.byref(pt), ctypes.byref(ids),
            ctypes.byref(n), ctypes.byref(err)), err)
        try:
            names = self._names(ids, n.value)
        finally:
            _lib.free(ctypes.cast(ids, ctypes.c_void_p))
        return self._point(pt, names)

    def partition(self, i, graphs=True):
        """The Partition of point i's decision (under pytorch-2.13 run
        under exact with the same saved set)."""
        if not 0 <= i < len(self):
            raise IndexError(i)
        out = ctypes.c_void_p()
        err = _lib.Error()
        _check(lib.sc_frontier_point_partition(
            self._alive(), i, 0 if graphs else PARTITION_NO_GRAPHS,
            ctypes.byref(out), ctypes.byref(err)), err)
        return Partition(self.joint, out.value)

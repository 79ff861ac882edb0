#!/usr/bin/env python3
"""Run a `symcut env` script through PyTorch 2.13's ShapeEnv.

    python tools/shapeenv/oracle.py [--tag] [SCRIPT | -]

Every command of the script (doc/guards.md, "The `symcut env` script") is
carried out with torch's own API, the way PyTorch code reaches it:

  sym      ShapeEnv.create_symbol (a LocalSource per source text; duck
           sizing and 0/1 specialization as torch does them; `range` is a
           StrictMinMaxConstraint; `int` is an integer input:
           create_unspecified_symbol, DimDynamic.DYNAMIC)
  unbacked create_unbacked_symint; `size` is _constrain_range_for_size,
           a range is constrain_symbol_range
  guard    bool(SymBool)                    int  int(SymInt) (guard_int)
  known    statically_known_true / statically_known_false
  or_false, or_true  guard_or_false / guard_or_true
  oblivious  guard_size_oblivious
  check    torch._check (a guard, or a deferred runtime assertion)
  simplify ShapeEnv.simplify            range  ShapeEnv.bound_sympy
  hint     ShapeEnv.size_hint           guards produce_guards
  asserts  ShapeEnv.deferred_runtime_asserts
  test     the produce_guards expressions evaluated on the given sizes, in
           order; a guard that raises (a division by zero) fails, as in
           Dynamo's guard function

Expressions are evaluated on SymInts (so `s0 // 8` is SymInt floor
division, `Mod(a, b)` is `a % b`, `CeilDiv(a, b)` is `-(-a // b)`, `Max`
is torch.sym_max, `and` is SymBool `&`).  The results are printed in the
script's own format, one line per command (`guards` and `asserts` one line
per item), with the script's symbol names, so that the output can be
compared line by line with `symcut env`.  Errors print
`error: line N: KIND: message`, KIND one of `data-dependent`, `failed`
(torch._check false), `constraint` (a size outside its range) or the
exception's class name.  A command with no ShapeEnv counterpart (`cguards`)
prints `skip: no counterpart`; an expression torch produced that the
script syntax cannot spell prints `skip: unprintable ...`.

--tag prefixes every output line with `LINE<TAB>` (the script line that
produced it), which is how tests/torch/test_shapeenv_diff.py aligns the
two outputs.
"""
import ast
import io
import os
import sys
import warnings

warnings.filterwarnings("ignore")
os.environ.setdefault("TORCHDYNAMO_EXTENDED_ADVICE", "0")

import sympy  # noqa: E402
import torch  # noqa: E402
from torch._dynamo.source import LocalSource  # noqa: E402
from torch.fx.experimental import symbolic_shapes as ss  # noqa: E402
from torch.fx.experimental.symbolic_shapes import (  # noqa: E402
    DimDynamic, GuardOnDataDependentSymNode, ShapeEnv, StrictMinMaxConstraint)
from torch.utils._sympy import functions as F  # noqa: E402
from torch.utils._sympy.numbers import int_oo  # noqa: E402
from torch.utils._sympy.value_ranges import ValueRanges  # noqa: E402


class ScriptError(Exception):
    """A bad line of the script (the oracle's own parse errors)."""


class Unprintable(Exception):
    pass


# ---------------------------------------------------------------- printing

def _is_inf(v):
    return v in (int_oo, sympy.oo) or v == int_oo


def _is_ninf(v):
    return v in (-int_oo, -sympy.oo) or v == -int_oo


def bound_text(v):
    if _is_inf(v):
        return "inf"
    if _is_ninf(v):
        return "-inf"
    return str(int(v))


class Printer:
    """sympy (torch's functions) -> the script's expression syntax, fully
    parenthesized, symbols renamed to the script's names."""

    def __init__(self, names):
        self.names = names      # sympy.Symbol -> script name

    def __call__(self, e):
        return self.p(e)

    def p(self, e):
        if e is sympy.true or e is True:
            return "True"
        if e is sympy.false or e is False:
            return "False"
        if isinstance(e, bool):
            return "True" if e else "False"
        if isinstance(e, int):
            return str(e)
        if isinstance(e, sympy.Integer):
            return str(int(e))
        if isinstance(e, sympy.Symbol):
            if e not in self.names:
                raise Unprintable("symbol %s" % e)
            return self.names[e]
        if e.is_number and not e.is_Integer:
            raise Unprintable(str(e))
        a = e.args
        if isinstance(e, sympy.Add):
            return "(" + " + ".join(self.p(x) for x in a) + ")"
        if isinstance(e, sympy.Mul):
            return "(" + "*".join(self.p(x) for x in a) + ")"
        if isinstance(e, sympy.Pow) or isinstance(e, F.PowByNatural):
            if not a[1].is_Integer or int(a[1]) < 0:
                raise Unprintable(str(e))
            return "(%s**%s)" % (self.p(a[0]), self.p(a[1]))
        if isinstance(e, F.FloorDiv):       # CleanDiv too
            return "FloorDiv(%s, %s)" % (self.p(a[0]), self.p(a[1]))
        if isinstance(e, F.CeilDiv):
            return "CeilDiv(%s, %s)" % (self.p(a[0]), self.p(a[1]))
        if isinstance(e, (F.Mod, F.PythonMod, sympy.Mod)):
            return "Mod(%s, %s)" % (self.p(a[0]), self.p(a[1]))
        if isinstance(e, F.ModularIndexing):
            return "Mod(FloorDiv(%s, %s), %s)" % tuple(self.p(x) for x in a)
        if isinstance(e, (F.Max, sympy.Max)):
            return self._fold("Max", a)
        if isinstance(e, (F.Min, sympy.Min)):
            return self._fold("Min", a)
        rel = {sympy.Eq: "Eq", sympy.Ne: "Ne", sympy.Lt: "Lt", sympy.Le: "Le",
               sympy.Gt: "Gt", sympy.Ge: "Ge"}
        for cls, name in rel.items():
            if isinstance(e, cls):
                return "%s(%s, %s)" % (name, self.p(a[0]), self.p(a[1]))
        if isinstance(e, sympy.And):
            return "(" + " and ".join(self.p(x) for x in a) + ")"
        if isinstance(e, sympy.Or):
            return "(" + " or ".join(self.p(x) for x in a) + ")"
        if isinstance(e, sympy.Not):
            return "(not %s)" % self.p(a[0])
        raise Unprintable(type(e).__name__)

    def _fold(self, name, args):
        args = [self.p(x) for x in args]
        out = args[0]
        for x in args[1:]:
            out = "%s(%s, %s)" % (name, out, x)
        return out


# ---------------------------------------------------------------- expressions

def _sym_bool(v):
    return isinstance(v, (bool, torch.SymBool))


def _and(a, b):
    if isinstance(a, bool) and isinstance(b, bool):
        return a and b
    if a is False or b is False:
        return False
    if a is True:
        return b
    if b is True:
        return a
    return a & b


def _or(a, b):
    if isinstance(a, bool) and isinstance(b, bool):
        return a or b
    if a is True or b is True:
        return True
    if a is False:
        return b
    if b is False:
        return a
    return a | b


def _not(a):
    return (not a) if isinstance(a, bool) else torch.sym_not(a)


def _int(v):
    if _sym_bool(v) or not isinstance(v, (int, torch.SymInt)):
        raise ScriptError("expected an integer expression")
    return v


def _bool(v):
    if not _sym_bool(v):
        raise ScriptError("expected a boolean expression")
    return v


def _ceildiv(a, b):
    return -((-a) // b)


def _pow(a, b):
    if not isinstance(b, int) or b < 0:
        raise ScriptError("only constant natural exponents")
    return a ** b


CMP = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
       ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
       ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}

FUNCS = {
    "Eq": (2, lambda a, b: _int(a) == _int(b)),
    "Ne": (2, lambda a, b: _int(a) != _int(b)),
    "Lt": (2, lambda a, b: _int(a) < _int(b)),
    "Le": (2, lambda a, b: _int(a) <= _int(b)),
    "Gt": (2, lambda a, b: _int(a) > _int(b)),
    "Ge": (2, lambda a, b: _int(a) >= _int(b)),
    "Mod": (2, lambda a, b: _int(a) % _int(b)),
    "PythonMod": (2, lambda a, b: _int(a) % _int(b)),
    "FloorDiv": (2, lambda a, b: _int(a) // _int(b)),
    "CeilDiv": (2, lambda a, b: _ceildiv(_int(a), _int(b))),
    "Max": (None, lambda *a: _fold(torch.sym_max, a)),
    "Min": (None, lambda *a: _fold(torch.sym_min, a)),
    "Pow": (2, lambda a, b: _pow(_int(a), _int(b))),
    "And": (None, lambda *a: _fold(_and, [_bool(x) for x in a])),
    "Or": (None, lambda *a: _fold(_or, [_bool(x) for x in a])),
    "Not": (1, lambda a: _not(_bool(a))),
}


def _fold(f, args):
    if not args:
        raise ScriptError("needs arguments")
    out = args[0]
    for x in args[1:]:
        out = f(out, x)
    return out


def evaluate(text, names):
    """The script expression `text` as a SymInt/SymBool/int/bool, names
    mapping script symbols to their values."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        raise ScriptError("syntax error: %s" % e.msg)

    def ev(n):
        if isinstance(n, ast.Constant):
            if isinstance(n.value, bool) or isinstance(n.value, int):
                return n.value
            raise ScriptError("bad constant")
        if isinstance(n, ast.Name):
            if n.id in ("True", "False"):
                return n.id == "True"
            if n.id not in names:
                raise ScriptError("unknown symbol '%s'" % n.id)
            return names[n.id]
        if isinstance(n, ast.UnaryOp):
            v = ev(n.operand)
            if isinstance(n.op, ast.USub):
                return -_int(v)
            if isinstance(n.op, ast.UAdd):
                return _int(v)
            if isinstance(n.op, (ast.Not, ast.Invert)):
                # `~` is sympy's Not, as sympy prints it (booleans only)
                return _not(_bool(v))
        if isinstance(n, ast.BinOp) and isinstance(n.op,
                                                   (ast.BitAnd, ast.BitOr)):
            # `&` and `|`: sympy's And and Or (booleans only)
            a, b = _bool(ev(n.left)), _bool(ev(n.right))
            return (_and if isinstance(n.op, ast.BitAnd) else _or)(a, b)
        if isinstance(n, ast.BinOp):
            a, b = _int(ev(n.left)), _int(ev(n.right))
            op = type(n.op)
            if op is ast.Add:
                return a + b
            if op is ast.Sub:
                return a - b
            if op is ast.Mult:
                return a * b
            if op is ast.FloorDiv:
                return a // b
            if op is ast.Mod:
                return a % b
            if op is ast.Pow:
                return _pow(a, b)
            raise ScriptError("unsupported operator")
        if isinstance(n, ast.BoolOp):
            vals = [_bool(ev(v)) for v in n.values]
            return _fold(_and if isinstance(n.op, ast.And) else _or, vals)
        if isinstance(n, ast.Compare):
            out = True
            left = _int(ev(n.left))
            for op, right in zip(n.ops, n.comparators):
                r = _int(ev(right))
                if type(op) not in CMP:
                    raise ScriptError("unsupported comparison")
                out = _and(out, CMP[type(op)](left, r))
                left = r
            return out
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            if n.func.id not in FUNCS or n.keywords:
                raise ScriptError("unknown function '%s'" % n.func.id)
            arity, f = FUNCS[n.func.id]
            args = [ev(a) for a in n.args]
            if arity is not None and len(args) != arity:
                raise ScriptError("%s takes %d arguments" % (n.func.id, arity))
            return f(*args)
        raise ScriptError("unsupported syntax")

    return ev(tree.body)


def sym_expr(v):
    """The sympy expression of a SymInt/SymBool/int/bool."""
    if isinstance(v, (torch.SymInt, torch.SymBool)):
        return v.node.expr
    if isinstance(v, bool):
        return sympy.true if v else sympy.false
    if isinstance(v, sympy.Basic):
        return v
    return sympy.Integer(v)


def raw_expr(v):
    """What a source was given when it was created (before any later
    replacement), as symcut's `test` matches symbols."""
    if isinstance(v, torch.SymInt):
        return v.node._expr
    return sympy.Integer(v)


# ---------------------------------------------------------------- the runner

def parse_range(text):
    if ".." not in text:
        raise ScriptError("expected a range LO..HI, got '%s'" % text)
    lo, hi = text.split("..", 1)
    lo = int(lo) if lo else None
    hi = int(hi) if hi else None
    if lo is not None and hi is not None and lo > hi:
        raise ScriptError("empty range '%s'" % text)
    return lo, hi


class Oracle:
    def __init__(self, out, tag=False):
        self.env = ShapeEnv()
        self.out = out
        self.tag = tag
        self.line = 0
        self.values = {}        # script name -> SymInt / int
        self.names = {}         # sympy symbol -> script name
        self.sources = []       # [source text, local name, value, hint]
        self.source_index = {}
        self.skipped = 0

    # output
    def put(self, s):
        if self.tag:
            self.out.write("%d\t%s\n" % (self.line, s))
        else:
            self.out.write(s + "\n")

    def error(self, kind, msg):
        msg = " ".join(str(msg).split("\n")[0].split())
        self.put("error: line %d: %s: %s" % (self.line, kind, msg))

    def show(self, v):
        """Print a value (SymInt, int, SymBool, bool)."""
        e = sym_expr(v)
        self.put(Printer(self.names)(e))

    # commands
    def cmd_sym(self, args):
        toks = args.split()
        if not toks:
            raise ScriptError("usage: sym [NAME =] HINT ...")
        name = None
        if len(toks) >= 3 and toks[1] == "=":
            name, hint, rest = toks[0], toks[2], toks[3:]
        elif "=" in toks[0]:
            name, hint = toks[0].split("=", 1)
            rest = toks[1:]
            if not hint:
                hint, rest = rest[0], rest[1:]
        else:
            hint, rest = toks[0], toks[1:]
        try:
            hint = int(hint)
        except ValueError:
            raise ScriptError("expected an integer hint, got '%s'" % hint)
        source = None
        no01 = noduck = is_int = False
        rng = None
        i = 0
        while i < len(rest):
            t = rest[i]
            if t == "source":
                source = rest[i + 1]
                i += 1
            elif t == "no01":
                no01 = True
            elif t == "noduck":
                noduck = True
            elif t == "int":
                is_int = True
            elif t == "range":
                rng = parse_range(rest[i + 1])
                i += 1
            else:
                raise ScriptError("unknown option '%s' of sym" % t)
            i += 1
        if source is None:
            source = name if name else "s%d" % len(self.sources)
        if source in self.source_index:
            raise ScriptError("source '%s' already has a size" % source)
        if name is not None and name in self.values:
            raise ScriptError("symbol '%s' already exists" % name)
        local = "t%d" % len(self.sources)
        src = LocalSource(local)
        if is_int:
            dyn = DimDynamic.DYNAMIC
            cons = None
            if rng is not None:
                cons = StrictMinMaxConstraint(
                    vr=ValueRanges(-int_oo if rng[0] is None else rng[0],
                                   int_oo if rng[1] is None else rng[1]),
                    warn_only=False)
            e = self.env.create_unspecified_symbol(
                hint, source=src, dynamic_dim=dyn, constraint_dim=cons)
        else:
            if hint < 0:
                raise ScriptError("a size hint must be >= 0")
            cons = None
            dyn = DimDynamic.DYNAMIC if noduck else DimDynamic.DUCK
            if rng is not None:
                cons = StrictMinMaxConstraint(
                    vr=ValueRanges(0 if rng[0] is None else rng[0],
                                   int_oo if rng[1] is None else rng[1]),
                    warn_only=False)
            e = self.env.create_symbol(hint, src, dynamic_dim=dyn,
                                       constraint_dim=cons,
                                       do_not_specialize_zero_one=no01)
        v = self.env.create_symintnode(e, hint=hint, source=src)
        if isinstance(e, sympy.Symbol) and e not in self.names:
            self.names[e] = name if name else "s%d" % len(self.names)
        self.sources.append([source, local, v, hint])
        self.source_index[source] = len(self.sources) - 1
        if name is not None:
            self.values[name] = v
        if isinstance(e, sympy.Symbol):
            self.values.setdefault(self.names[e], v)
        # What create_symbol gave: a new symbol, a shared one (duck
        # sizing) or a constant; not what a replacement made of it since.
        self.show(e)

    def cmd_unbacked(self, args):
        name = None
        size = False
        rng = None
        toks = args.split()
        i = 0
        while i < len(toks):
            t = toks[i]
            if t == "size":
                size = True
            elif t == "range":
                rng = parse_range(toks[i + 1])
                i += 1
            elif name is None:
                name = t
            else:
                raise ScriptError("unknown option '%s' of unbacked" % t)
            i += 1
        if name is not None and name in self.values:
            raise ScriptError("symbol '%s' already exists" % name)
        v = self.env.create_unbacked_symint()
        e = v.node.expr
        if size:
            lo = 0 if rng is None or rng[0] is None else max(rng[0], 0)
            hi = None if rng is None else rng[1]
            self.env._constrain_range_for_size(e, min=lo, max=hi)
        elif rng is not None:
            self.env.constrain_symbol_range(
                e, compiler_min=-int_oo if rng[0] is None else rng[0],
                compiler_max=int_oo if rng[1] is None else rng[1])
        if name is None:
            name = "u%d" % sum(1 for s in self.names if str(s)[0] == "u")
        self.names[e] = name
        self.values[name] = v
        self.show(v)

    def expr(self, text):
        if not text.strip():
            raise ScriptError("missing expression")
        return evaluate(text, self.values)

    def placeholders(self):
        return [s[2] for s in self.sources]

    def guard_strings(self):
        if not self.sources:
            return []
        return self.env.produce_guards(
            self.placeholders(), [LocalSource(s[1]) for s in self.sources])

    def pretty_guard(self, g):
        for s in self.sources:
            g = g.replace("L['%s']" % s[1], s[0])
        return g

    def cmd_guards(self):
        gs = self.guard_strings()
        if not gs:
            self.put("(no guards)")
        for g in gs:
            self.put(self.pretty_guard(g))

    def cmd_asserts(self):
        ras = [ra for lst in self.env.deferred_runtime_asserts.values()
               for ra in lst]
        if not ras:
            self.put("(no runtime assertions)")
        for ra in ras:
            try:
                self.put(Printer(self.names)(ra.expr))
            except Unprintable as e:
                self.skipped += 1
                self.put("skip: unprintable %s" % e)

    def cmd_test(self, args):
        vals = {s[1]: s[3] for s in self.sources}
        for tok in args.replace(",", " ").split():
            if "=" not in tok:
                raise ScriptError("expected NAME=VALUE, got '%s'" % tok)
            name, _, val = tok.rpartition("=")
            try:
                val = int(val)
            except ValueError:
                raise ScriptError("bad value '%s' for %s" % (val, name))
            found = False
            if name in self.source_index:
                vals[self.sources[self.source_index[name]][1]] = val
                found = True
            elif name in self.values:
                target = raw_expr(self.values[name])
                for s in self.sources:
                    if raw_expr(s[2]) == target:
                        vals[s[1]] = val
                        found = True
            if not found:
                raise ScriptError("'%s' is neither a source nor the symbol "
                                  "of one" % name)
        gs = self.guard_strings()
        for g in gs:
            try:
                ok = eval(g, dict(ss.SYMPY_INTERP), {"L": vals})
            except ZeroDivisionError:
                # Dynamo runs the shape guards as one lambda guard; an
                # exception in it is a failed check (RootGuardManager.check
                # of a lambda raising ZeroDivisionError returns False).
                ok = False
            if not ok:
                self.put("fail: " + self.pretty_guard(g))
                return
        self.put("pass")

    def cmd_known(self, v):
        v = _bool(v)
        if isinstance(v, bool):
            self.show(v)
        elif ss.statically_known_true(v):
            self.put("True")
        elif ss.statically_known_false(v):
            self.put("False")
        else:
            self.put("unknown")

    def cmd_simplify(self, v):
        e = sym_expr(v)
        r = self.env.simplify(e)
        self.put(Printer(self.names)(r))

    def cmd_range(self, v):
        v = _int(v)
        e = sym_expr(v)
        r1 = self.env.bound_sympy(e)
        r2 = self.env.bound_sympy(self.env.simplify(e))
        r = r1 & r2
        self.put("[%s, %s]" % (bound_text(r.lower), bound_text(r.upper)))

    def run_line(self, raw):
        line = raw.split("#", 1)[0].strip()
        if not line:
            return
        cmd, _, rest = line.partition(" ")
        rest = rest.strip()
        env = self.env
        try:
            if cmd == "sym":
                self.cmd_sym(rest)
            elif cmd == "unbacked":
                self.cmd_unbacked(rest)
            elif cmd == "guards":
                self.cmd_guards()
            elif cmd == "cguards":
                self.skipped += 1
                self.put("skip: no counterpart")
            elif cmd == "asserts":
                self.cmd_asserts()
            elif cmd == "test":
                self.cmd_test(rest)
            elif cmd == "guard":
                self.show(bool(_bool(self.expr(rest))))
            elif cmd == "or_false":
                self.show(ss.guard_or_false(_bool(self.expr(rest))))
            elif cmd == "or_true":
                self.show(ss.guard_or_true(_bool(self.expr(rest))))
            elif cmd == "oblivious":
                self.show(ss.guard_size_oblivious(_bool(self.expr(rest))))
            elif cmd == "known":
                self.cmd_known(self.expr(rest))
            elif cmd == "check":
                torch._check(_bool(self.expr(rest)))
                self.put("ok")
            elif cmd == "int":
                self.put(str(int(_int(self.expr(rest)))))
            elif cmd == "hint":
                self.put(str(int(env.size_hint(sym_expr(
                    _int(self.expr(rest)))))))
            elif cmd == "simplify":
                self.cmd_simplify(self.expr(rest))
            elif cmd == "range":
                self.cmd_range(self.expr(rest))
            else:
                raise ScriptError("unknown command '%s'" % cmd)
        except ScriptError as e:
            self.error("script", e)
        except Unprintable as e:
            self.skipped += 1
            self.put("skip: unprintable %s" % e)
        except GuardOnDataDependentSymNode as e:
            self.error("data-dependent", e)
        except ss.ConstraintViolationError as e:
            self.error("constraint", e)
        except RuntimeError as e:
            kind = "failed" if cmd == "check" else type(e).__name__
            self.error(kind, e)
        except Exception as e:      # torch's own failures, reported
            self.error(type(e).__name__, e)

    def run(self, text):
        for i, raw in enumerate(text.split("\n")):
            self.line = i + 1
            self.run_line(raw.rstrip("\r"))


def run_text(text, tag=False):
    """Run a script; returns (output text, number of skip markers)."""
    out = io.StringIO()
    o = Oracle(out, tag)
    o.run(text)
    return out.getvalue(), o.skipped


def main(argv):
    tag = False
    args = argv[1:]
    if args and args[0] == "--tag":
        tag = True
        args = args[1:]
    if len(args) > 1:
        sys.stderr.write(__doc__)
        return 1
    if not args or args[0] == "-":
        text = sys.stdin.read()
    else:
        with open(args[0]) as f:
            text = f.read()
    out, _ = run_text(text, tag)
    sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Random `symcut env` scripts, seeded.

    python tools/shapeenv/gen_env.py SEED [COUNT]

prints COUNT scripts (default 1), separated by a line `#---`.  The same
seed gives the same scripts (random.Random(seed), no other source of
randomness).  Every command kind of the script language appears: backed
sizes (`sym` with hints that repeat for duck sizing, 0 and 1 for
specialization, `no01`, `noduck`, `range`, and `int` for integer inputs
with negative or huge hints), unbacked symbols (size-like or not, with
ranges), the questions `guard`, `int`, `known`, `or_false`, `or_true`,
`oblivious`, `check`, `simplify`, `range`, `hint`, and `guards`,
`cguards`, `asserts`, `test`.

The relations are built to be undecided often: an expression's value at
the hints (which the generator computes with Python's integers) is
compared with a constant near it, so that guards narrow ranges, solve
equations and record divisibility.  Divisors are positive constants or
backed sizes (never 0).  tests/torch/test_shapeenv_diff.py uses
`generate(rng)`.
"""
import random
import sys

SMALL_HINTS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 24, 32, 64]


class Sym:
    def __init__(self, name, hint, kind, lo=None, hi=None):
        self.name = name
        self.hint = hint        # None for unbacked
        self.kind = kind        # "size", "int", "unbacked", "usize"
        self.lo = lo
        self.hi = hi


def _floordiv(a, b):
    return a // b


class Expr:
    """An expression's text and its value at the hints (None when it
    mentions an unbacked symbol)."""

    def __init__(self, text, value, prec=9):
        self.text = text
        self.value = value
        self.prec = prec        # 9 atom, 3 sum, 4 product, 5 power

    def paren(self, prec):
        return self.text if self.prec >= prec else "(%s)" % self.text


def _v2(f, a, b):
    if a.value is None or b.value is None:
        return None
    try:
        return f(a.value, b.value)
    except (ZeroDivisionError, OverflowError):
        return None


class Gen:
    def __init__(self, rng):
        self.r = rng
        self.syms = []
        self.nsizes = 0
        self.nunbacked = 0
        self.sources = []
        self.lines = []

    # ---- symbols
    def new_sym(self):
        r = self.r
        name = "s%d" % self.nsizes
        self.nsizes += 1
        src = "x%d.size(%d)" % (r.randrange(3), len(self.sources))
        opts = []
        if r.random() < 0.12:
            # an integer input: any sign, sometimes beyond int64_t
            hint = r.choice([-5, -1, 0, 1, 3, 7, 100, -(2 ** 40),
                             2 ** 64 + 3, -(2 ** 70)])
            opts.append("int")
            kind = "int"
            src = "n%d" % len(self.sources)
        else:
            known = [s.hint for s in self.syms if s.kind == "size"]
            if known and r.random() < 0.3:
                hint = r.choice(known)
            else:
                hint = r.choice(SMALL_HINTS)
            kind = "size"
            if r.random() < 0.15:
                opts.append("no01")
            if r.random() < 0.15:
                opts.append("noduck")
        lo = hi = None
        if r.random() < 0.15:
            base = hint if kind == "int" else max(hint, 0)
            lo = base - r.randrange(0, 4)
            if kind == "size":
                lo = max(lo, 0)
            hi = base + r.randrange(0, 40)
            if r.random() < 0.2:
                hi = lo         # a single value
                lo = hint if r.random() < 0.7 else lo
                hi = lo
            if r.random() < 0.3:
                opts.append("range %d.." % lo)
                hi = None
            else:
                opts.append("range %d..%d" % (lo, hi))
        text = "sym %s = %d source %s" % (name, hint, src)
        if opts:
            text += " " + " ".join(opts)
        self.sources.append(src)
        self.syms.append(Sym(name, hint, kind, lo, hi))
        self.lines.append(text)

    def new_unbacked(self):
        r = self.r
        name = "u%d" % self.nunbacked
        self.nunbacked += 1
        parts = ["unbacked", name]
        kind = "unbacked"
        if r.random() < 0.6:
            parts.append("size")
            kind = "usize"
        if r.random() < 0.3:
            lo = r.randrange(0, 6) if kind == "usize" else r.randrange(-6, 6)
            hi = lo + r.randrange(0, 30)
            if r.random() < 0.4:
                parts.append("range %d.." % lo)
            else:
                parts.append("range %d..%d" % (lo, hi))
        self.syms.append(Sym(name, None, kind))
        self.lines.append(" ".join(parts))

    # ---- expressions
    def atom(self, backed_only=False):
        r = self.r
        pool = [s for s in self.syms
                if not backed_only or s.hint is not None]
        if pool and r.random() < 0.8:
            s = r.choice(pool)
            return Expr(s.name, s.hint)
        c = r.choice([0, 1, 2, 3, 4, 5, 7, 8, 16, -1, -2])
        return Expr(str(c), c, 9 if c >= 0 else 3)

    def int_expr(self, depth=0, backed_only=False):
        r = self.r
        if depth >= 3 or r.random() < 0.35:
            return self.atom(backed_only)
        k = r.random()
        a = self.int_expr(depth + 1, backed_only)
        if k < 0.25:
            b = self.int_expr(depth + 1, backed_only)
            return Expr("%s + %s" % (a.paren(3), b.paren(4)),
                        _v2(lambda x, y: x + y, a, b), 3)
        if k < 0.38:
            b = self.int_expr(depth + 1, backed_only)
            return Expr("%s - %s" % (a.paren(3), b.paren(4)),
                        _v2(lambda x, y: x - y, a, b), 3)
        if k < 0.55:
            if r.random() < 0.6:
                c = r.choice([2, 3, 4, 8, -1, 16])
                b = Expr(str(c), c, 9 if c >= 0 else 3)
            else:
                b = self.int_expr(depth + 1, backed_only)
            return Expr("%s*%s" % (a.paren(4), b.paren(5)),
                        _v2(lambda x, y: x * y, a, b), 4)
        d = self.divisor()
        if k < 0.70:
            return Expr("%s // %s" % (a.paren(4), d.paren(5)),
                        _v2(_floordiv, a, d), 4)
        if k < 0.80:
            return Expr("Mod(%s, %s)" % (a.text, d.text),
                        _v2(lambda x, y: x % y, a, d))
        if k < 0.85:
            return Expr("CeilDiv(%s, %s)" % (a.text, d.text),
                        _v2(lambda x, y: -(-x // y), a, d))
        b = self.int_expr(depth + 1, backed_only)
        if k < 0.92:
            return Expr("Max(%s, %s)" % (a.text, b.text), _v2(max, a, b))
        if k < 0.98:
            return Expr("Min(%s, %s)" % (a.text, b.text), _v2(min, a, b))
        return Expr("%s**2" % a.paren(9), _v2(lambda x, y: x * x, a, a), 5)

    def divisor(self):
        r = self.r
        sizes = [s for s in self.syms
                 if s.kind == "size" and s.hint is not None and s.hint >= 2
                 and "no01" not in s.name]
        if sizes and r.random() < 0.2:
            s = r.choice(sizes)
            return Expr(s.name, s.hint)
        c = r.choice([2, 2, 3, 4, 4, 8, 16, 5, 6])
        return Expr(str(c), c)

    def near(self, v):
        r = self.r
        if v is None:
            return r.choice([0, 1, 2, 3, 4, 5, 8, 10, 16, -1])
        return v + r.choice([0, 0, 1, -1, 2, -2, 3, 5, -5])

    def rel(self, backed_only=False):
        r = self.r
        a = self.int_expr(backed_only=backed_only)
        if r.random() < 0.25:
            b = self.int_expr(backed_only=backed_only)
        else:
            c = self.near(a.value)
            b = Expr(str(c), c, 9 if c >= 0 else 3)
        k = r.random()
        if k < 0.25:
            text = "Eq(%s, %s)" % (a.text, b.text)
        elif k < 0.35:
            text = "Ne(%s, %s)" % (a.text, b.text)
        elif k < 0.45 and r.random() < 0.5:
            d = r.choice([2, 4, 8, 3])
            text = "Eq(Mod(%s, %d), 0)" % (a.text, d)
        else:
            op = r.choice(["<", "<=", ">", ">=", "==", "!="])
            text = "%s %s %s" % (a.paren(3), op, b.paren(3))
        if r.random() < 0.07:
            other = self.rel(backed_only)
            text = "%s %s %s" % (text, r.choice(["and", "or"]), other)
        elif r.random() < 0.05:
            text = "not (%s)" % text
        return text

    # ---- the script
    def test_line(self):
        r = self.r
        if not self.sources:
            return None
        items = []
        for i, src in enumerate(self.sources):
            s = self.syms_by_source(i)
            big = s is not None and s.hint is not None and \
                abs(s.hint) >= 2 ** 62
            if big or r.random() < 0.6:
                base = s.hint if s and s.hint is not None else 4
                v = base + r.choice([0, 1, -1, 2, -2, 5, 8, -8, 100])
                if s is not None and s.kind == "int":
                    v = max(min(v, 2 ** 62), -(2 ** 62))
                items.append("%s=%d" % (src, v))
        return "test " + " ".join(items) if items else "test"

    def syms_by_source(self, i):
        backed = [s for s in self.syms if s.kind in ("size", "int")]
        return backed[i] if i < len(backed) else None

    def script(self):
        r = self.r
        for _ in range(r.randrange(1, 5)):
            self.new_sym()
        for _ in range(r.randrange(0, 3)):
            self.new_unbacked()
        for _ in range(r.randrange(4, 22)):
            k = r.random()
            if k < 0.05:
                self.new_sym()
            elif k < 0.08:
                self.new_unbacked()
            elif k < 0.26:
                self.lines.append("guard " + self.rel())
            elif k < 0.31:
                self.lines.append("int " + self.int_expr().text)
            elif k < 0.39:
                self.lines.append("known " + self.rel())
            elif k < 0.45:
                self.lines.append("or_false " + self.rel())
            elif k < 0.50:
                self.lines.append("or_true " + self.rel())
            elif k < 0.55:
                self.lines.append("oblivious " + self.rel())
            elif k < 0.68:
                self.lines.append("check " + self.rel())
            elif k < 0.76:
                self.lines.append("simplify " + self.int_expr().text)
            elif k < 0.84:
                self.lines.append("range " + self.int_expr().text)
            elif k < 0.88:
                self.lines.append("hint " + self.int_expr().text)
            elif k < 0.91:
                self.lines.append("guards")
            elif k < 0.93:
                self.lines.append("cguards")
            elif k < 0.95:
                self.lines.append("asserts")
            else:
                t = self.test_line()
                if t:
                    self.lines.append(t)
        self.lines.append("guards")
        self.lines.append("asserts")
        return "\n".join(self.lines) + "\n"


def generate(rng):
    """One random script from the random.Random rng."""
    return Gen(rng).script()


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write(__doc__)
        return 1
    rng = random.Random(int(argv[1]))
    n = int(argv[2]) if len(argv) == 3 else 1
    for i in range(n):
        if i:
            sys.stdout.write("#---\n")
        sys.stdout.write(generate(rng))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

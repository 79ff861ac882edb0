#!/usr/bin/env python3
"""symcut -- symint against sympy and SymEngine on the same corpus.

    python3 bench/bench_engines.py [--build DIR] [--seconds S] [CORPUS...]

For each corpus (default: bench/exprs.txt and bench/exprs_products.txt;
one expression a line, '#' comments and blank lines skipped) it measures,
in one run, the CPU time of this thread (time.thread_time; for symcut the
thread CPU time bench/bench_symint reports) per expression of:

  build+print   the text turned into the engine's canonical expression and
                printed back.  symcut: sc_expr_parse + sc_expr_to_str in a
                fresh context per round (bench_symint's "parse+canonicalize
                +print, fresh ctx"), and in a warm one.  sympy and
                SymEngine: the text run by Python's parser with the
                engine's constructors (Mod, Max, Min, Eq, Ne, And, Or,
                FloorDiv as //, CeilDiv as -((-a)//b)), then str();
                sympy's cache cleared every round (fresh), and, for sympy,
                also its own parser (sympy.sympify) with the cache warm.
  eval          every expression at the binding s0..s5 = 8, 512, 64, 3,
                224, 16.  symcut: sc_expr_eval (exact, GMP).  sympy:
                expr.xreplace(binding).  SymEngine: expr.subs(binding).
  compiled      symcut: sc_prog_eval (int64 bytecode, one program for the
                corpus).  sympy: sympy.lambdify(..., "math") called (exact
                Python ints).  SymEngine: Lambdify(backend="lambda")
                called (doubles).  Compilation is not timed.

and prints per-engine nanoseconds per expression and the ratios to symcut
(how many times slower the engine is).  The engines' canonical forms
differ: symcut expands every product of sums, sympy and SymEngine keep
products factored, so on bench/exprs_products.txt symcut does more work
per expression.  Each engine's values are checked against symcut's
(bench_symint evaluates the corpus too; here sympy's exact values are
compared with symcut's, from `symcut expr eval -f`).

Needs a built bench/bench_symint (`make bench` in DIR, default ./build or
$SYMCUT_BUILD) and, for the engines, sympy and symengine in the Python
running this (/work/venv/bin/python has both; an engine that is missing
is skipped, saying so).  Speed figures vary with the machine's load;
compare ratios from one run.
"""
import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
SYMS = ["s0", "s1", "s2", "s3", "s4", "s5"]
VALUES = [8, 512, 64, 3, 224, 16]


def read_corpus(path):
    out = []
    with open(path) as f:
        for line in f:
            t = line.strip()
            if t and not t.startswith("#"):
                out.append(t)
    return out


def per_item_ns(fn, n_items, seconds):
    """Run fn() (one round over n_items) until `seconds` of thread CPU
    time; returns CPU nanoseconds per item."""
    fn()  # warm-up (imports, first-call costs)
    rounds = 0
    t0 = time.thread_time()
    while True:
        fn()
        rounds += 1
        t = time.thread_time() - t0
        if t >= seconds:
            break
    return t * 1e9 / (rounds * n_items)


def run_symcut(build, corpus, seconds):
    exe = os.path.join(build, "bench", "bench_symint")
    if not os.access(exe, os.X_OK):
        sys.exit("bench_engines: %s not found: run `make bench` in %s "
                 "(or pass --build DIR)" % (exe, build))
    out = subprocess.run([exe, corpus, str(seconds)], check=True,
                         capture_output=True, text=True).stdout
    ns = {}
    for line in out.splitlines():
        m = re.match(r"^(\S.*?)\s{2,}[\d,]+\s+[\d,]+\s+([\d.]+)", line)
        if m:
            ns[m.group(1).strip()] = float(m.group(2))
    want = {
        "build+print": "parse+canonicalize+print, fresh ctx",
        "build+print warm": "parse+canonicalize+print, warm ctx",
        "eval": "eval (sc_expr_eval, GMP)",
        "compiled": "compiled eval (sc_prog_eval)",
    }
    res = {}
    for k, phase in want.items():
        if phase not in ns:
            sys.exit("bench_engines: bench_symint printed no '%s' phase"
                     % phase)
        res[k] = ns[phase]
    return res


def sympy_engine(texts, seconds):
    import sympy
    from sympy.core.cache import clear_cache

    syms = sympy.symbols(" ".join(SYMS), integer=True)
    ns = {n: s for n, s in zip(SYMS, syms)}
    ns.update(Mod=sympy.Mod, Max=sympy.Max, Min=sympy.Min, Eq=sympy.Eq,
              Ne=sympy.Ne, And=sympy.And, Or=sympy.Or,
              FloorDiv=lambda a, b: a // b,
              CeilDiv=lambda a, b: -((-a) // b))
    codes = [compile(t, "<corpus>", "eval") for t in texts]

    def build_print():
        clear_cache()
        for c in codes:
            str(eval(c, ns))

    def sympify_print():
        for t in texts:
            str(sympy.sympify(t, locals=ns))

    exprs = [eval(c, ns) for c in codes]
    binding = {s: sympy.Integer(v) for s, v in zip(syms, VALUES)}

    def evaluate():
        for e in exprs:
            e.xreplace(binding)

    funcs = [sympy.lambdify(syms, e, "math") for e in exprs]

    def compiled():
        for f in funcs:
            f(*VALUES)

    values = [e.xreplace(binding) for e in exprs]
    return {
        "build+print": per_item_ns(build_print, len(texts), seconds),
        "build+print (sympify, warm)": per_item_ns(sympify_print,
                                                   len(texts), seconds),
        "eval": per_item_ns(evaluate, len(texts), seconds),
        "compiled": per_item_ns(compiled, len(texts), seconds),
    }, values


def symengine_engine(texts, seconds):
    import symengine as se

    syms = se.symbols(" ".join(SYMS))
    ns = {n: s for n, s in zip(SYMS, syms)}
    ns.update(Mod=lambda a, b: a % b, Max=se.Max, Min=se.Min, Eq=se.Eq,
              Ne=se.Ne, And=getattr(se, "And", None),
              Or=getattr(se, "Or", None),
              FloorDiv=lambda a, b: a // b,
              CeilDiv=lambda a, b: -((-a) // b))
    if ns["And"] is None:
        from symengine.lib.symengine_wrapper import logical_and, logical_or
        ns["And"] = lambda *a: logical_and(a)
        ns["Or"] = lambda *a: logical_or(a)
    codes = [compile(t, "<corpus>", "eval") for t in texts]

    def build_print():
        for c in codes:
            str(eval(c, ns))

    exprs = [eval(c, ns) for c in codes]
    binding = {s: se.Integer(v) for s, v in zip(syms, VALUES)}

    def evaluate():
        for e in exprs:
            e.subs(binding)

    funcs = []
    for e in exprs:
        try:
            funcs.append(se.Lambdify(list(syms), [e], backend="lambda"))
        except (RuntimeError, TypeError):
            funcs.append(None)  # a boolean: not compiled
    ok_funcs = [f for f in funcs if f is not None]

    def compiled():
        for f in ok_funcs:
            f(VALUES)

    values = [e.subs(binding) for e in exprs]
    res = {
        "build+print": per_item_ns(build_print, len(texts), seconds),
        "eval": per_item_ns(evaluate, len(texts), seconds),
    }
    if ok_funcs:
        res["compiled"] = per_item_ns(compiled, len(ok_funcs), seconds)
    res["_compiled_count"] = len(ok_funcs)
    return res, values


def symcut_values(build, corpus):
    """The corpus evaluated by `symcut expr eval -f` (one line per input
    line; the comments and blank lines give empty lines)."""
    exe = os.path.join(build, "symcut")
    bind = ",".join("%s=%d" % sv for sv in zip(SYMS, VALUES))
    out = subprocess.run([exe, "expr", "eval", "--bind", bind, "-f", corpus],
                         check=True, capture_output=True, text=True).stdout
    return [v for v in out.split("\n")[:-1] if v]


def same_value(a, b):
    try:
        return int(a) == int(b)
    except (TypeError, ValueError):
        return str(a) == str(b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.environ.get("SYMCUT_BUILD",
                                                      "build"))
    ap.add_argument("--seconds", type=float, default=0.5,
                    help="CPU seconds per phase and engine (default 0.5)")
    ap.add_argument("corpus", nargs="*",
                    default=[os.path.join(HERE, "exprs.txt"),
                             os.path.join(HERE, "exprs_products.txt")])
    a = ap.parse_args()

    print("symint vs sympy and SymEngine: CPU ns per expression (this "
          "thread), ratio = engine / symcut")
    try:
        import sympy
        print("  sympy %s" % sympy.__version__)
    except ImportError:
        print("  sympy: not installed, skipped")
    try:
        import symengine
        print("  symengine %s" % symengine.__version__)
    except ImportError:
        print("  symengine: not installed, skipped")
    print("  python %s; symcut: %s" % (sys.version.split()[0],
                                        os.path.join(a.build, "bench",
                                                     "bench_symint")))
    for corpus in a.corpus:
        texts = read_corpus(corpus)
        sc = run_symcut(a.build, corpus, a.seconds)
        rows = []
        try:
            sp, sp_vals = sympy_engine(texts, a.seconds)
        except ImportError:
            sp, sp_vals = {}, None
        try:
            se, se_vals = symengine_engine(texts, a.seconds)
        except ImportError:
            se, se_vals = {}, None
        sc_vals = symcut_values(a.build, corpus)
        agree = []
        for name, vals in (("sympy", sp_vals), ("SymEngine", se_vals)):
            if vals is not None:
                same = sum(1 for x, y in zip(sc_vals, vals)
                           if same_value(x, y))
                if len(sc_vals) != len(vals):
                    same = 0
                agree.append("%s %d/%d" % (name, same, len(texts)))
        agree = "values equal to symcut's: " + (", ".join(agree) or "-")
        print("\n%s: %d expressions; %s" % (os.path.relpath(corpus),
                                            len(texts), agree))
        print("%-28s %10s %10s %10s %10s %10s" %
              ("phase", "symcut", "sympy", "x", "symengine", "x"))
        for phase, sck in [("build+print", "build+print"),
                           ("build+print (sympify, warm)", "build+print"),
                           ("eval", "eval"), ("compiled", "compiled")]:
            s = sc[sck]
            p = sp.get(phase)
            e = se.get(phase)
            rows.append((phase, s, p, e))
            print("%-28s %10.0f %10s %10s %10s %10s" % (
                phase, s,
                "%.0f" % p if p else "-", "%.0f" % (p / s) if p else "-",
                "%.0f" % e if e else "-", "%.0f" % (e / s) if e else "-"))
        print("%-28s %10.0f   (symcut, every node already interned)" %
              ("build+print warm", sc["build+print warm"]))
        if se and se.get("_compiled_count", len(texts)) < len(texts):
            print("  (SymEngine Lambdify compiled %d of %d: not the "
                  "booleans)" % (se["_compiled_count"], len(texts)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

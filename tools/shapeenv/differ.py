"""The comparison of `symcut env` with PyTorch's ShapeEnv on one script.

Used by tests/torch/test_shapeenv_diff.py (and by `python
tools/shapeenv/differ.py SYMCUT SEED [COUNT]` to look at a few scripts by
hand).  compare(script, symcut_path) runs the script through both, aligns
the outputs by script line and classifies every answer:

  same        the two answers are equal (an error on both sides counts as
              equal when both are the same kind of error)
  more-guarded
              symcut rewrote the question to backed symbols only and
              guarded on that, where PyTorch answered without a guard
              (a data-dependent error, or the default of
              guard_or_false/true, which may equal symcut's answer)
  more        symcut decides more: PyTorch has no answer (a data-dependent
              error, the default of guard_or_false/true, `unknown`, a wider
              range, a non-constant simplification) and symcut's answer is
              confirmed: symcut's own `known` on the same prefix of the
              script proves it (decisions), or it is a sub-range (ranges),
              or a constant (simplification)
  skip        PyTorch has no counterpart (`cguards`), or the guard and
              assertion texts, which are compared through `test` instead
  forms       both simplified, to different forms, which agree at the
              hints (when backed); counted with which one is shorter
  torch-positive-assumption
              PyTorch's size symbols are sympy-positive even with 0/1
              specialization off: its answer is false at a size of 0, or
              symcut gives the same answer once those sizes are declared
              >= 1 (range 1..) and not before, or its guard_int returned
              v for a size at hint 0 while its own Eq(e, v) is False
              (it recorded no guard), or it rejects a check true at its
              own hints with such a size at 0, or its guard set rejects
              the trace's own sizes with such a size at 0
  torch-size-like-floor
              a size-oblivious answer where a runtime assertion bounds a
              size-like symbol by 1: PyTorch keeps its range at least
              [0, 2] (_update_var_to_range) and answers with it >= 2,
              symcut's `known` proves the opposite from the assertion
  assert-contradicts-hints
              a runtime assertion cannot hold at the hints (a `check`
              false at the hints for every value of its unbacked symbols
              on a box, or a guard whose value at the hints is the
              opposite of what symcut's `known` proves): PyTorch answers
              from the hints, symcut gives an error (a contradiction), or
              symcut's `known` answers from that assertion where PyTorch
              does not know; or such a `check` itself, which PyTorch
              rejects while tracing and symcut defers to run time
  error-where-torch-dde
              PyTorch raises a data-dependent error, symcut another error
              (a contradiction with what it learned): an error on both
              sides, never a different answer
  mismatch    anything else: a failure of the differential

After a `check` that symcut proves false while PyTorch accepts it, the two
environments know different things; the rest of the script is not
compared (counted as `cut`).
"""
import ast
import os
import re
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import gen_env  # noqa: E402
# Loaded by path under its own name: tools/oracle/oracle.py (the
# partitioner's oracle) is also "oracle", and both run in one pytest process.
import importlib.util  # noqa: E402
_spec = importlib.util.spec_from_file_location(
    "shapeenv_oracle", os.path.join(HERE, "oracle.py"))
oracle = importlib.util.module_from_spec(_spec)
sys.modules["shapeenv_oracle"] = oracle
_spec.loader.exec_module(oracle)

SENTINEL = 777777777777
MULTI = ("guards", "asserts", "cguards")


def command_of(line):
    s = line.split("#", 1)[0].strip()
    if not s:
        return None, None
    cmd, _, rest = s.partition(" ")
    return cmd, rest.strip()


def with_sentinels(script):
    out = []
    for line in script.split("\n"):
        out.append(line)
        if command_of(line)[0] in MULTI:
            out.append("hint %d" % SENTINEL)
    return "\n".join(out)


def run_symcut(symcut, script):
    p = subprocess.run([symcut, "env", "-"], input=script, text=True,
                       capture_output=True)
    if p.returncode not in (0, 2, 3):
        raise RuntimeError("symcut env exited %d: %s" % (p.returncode,
                                                         p.stderr[-2000:]))
    return p.stdout


def split_symcut(script, out):
    """{script line number: [output lines]}."""
    lines = out.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    res = {}
    i = 0
    for n, line in enumerate(script.split("\n"), 1):
        cmd, _ = command_of(line)
        if cmd is None:
            continue
        if cmd in MULTI:
            got = []
            while i < len(lines) and lines[i] != str(SENTINEL):
                got.append(lines[i])
                i += 1
            res[n] = got
        else:
            if i >= len(lines):
                raise RuntimeError("symcut printed too few lines")
            res[n] = [lines[i]]
            i += 1
    if i != len(lines):
        raise RuntimeError("symcut printed too many lines")
    return res


def split_tagged(out):
    res = {}
    for line in out.split("\n"):
        if not line:
            continue
        n, _, text = line.partition("\t")
        res.setdefault(int(n), []).append(text)
    return res


def err_kind_symcut(s):
    if not s.startswith("error:"):
        return None
    if "data-dependent" in s:
        return "dde"
    if "false given what is known" in s or "contradicts what is known" in s:
        return "contradiction"
    if "fails at the hints" in s:
        return "failed"
    return "other"


def err_kind_torch(s):
    if not s.startswith("error:"):
        return None
    kind = s.split(": ", 3)[2] if s.count(": ") >= 2 else "other"
    return {"data-dependent": "dde", "failed": "failed"}.get(kind, kind)


def parse_range(s):
    if not (s.startswith("[") and s.endswith("]")):
        return None
    lo, hi = s[1:-1].split(", ")
    conv = {"-inf": -float("inf"), "inf": float("inf")}
    return (conv[lo] if lo in conv else int(lo),
            conv[hi] if hi in conv else int(hi))


def py_eval(text, values):
    """An expression of the script syntax on Python integers (None when a
    name has no value or the evaluation fails)."""
    env = {"Eq": lambda a, b: a == b, "Ne": lambda a, b: a != b,
           "Lt": lambda a, b: a < b, "Le": lambda a, b: a <= b,
           "Gt": lambda a, b: a > b, "Ge": lambda a, b: a >= b,
           "Mod": lambda a, b: a % b, "PythonMod": lambda a, b: a % b,
           "FloorDiv": lambda a, b: a // b,
           "CeilDiv": lambda a, b: -(-a // b),
           "Max": lambda *a: max(a), "Min": lambda *a: min(a),
           "And": lambda *a: all(a), "Or": lambda *a: any(a),
           "Not": lambda a: not a, "True": True, "False": False}
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return None
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id not in env and n.id not in values:
            return None
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow):
            if not isinstance(n.right, ast.Constant):
                return None
    try:
        return eval(compile(tree, "<expr>", "eval"),
                    {"__builtins__": {}}, dict(env, **values))
    except Exception:
        return None


def hints_of(script):
    """Script names of backed symbols -> hints (from the sym lines)."""
    h = {}
    for line in script.split("\n"):
        cmd, rest = command_of(line)
        if cmd == "sym":
            t = rest.replace("=", " = ").split()
            if len(t) >= 3 and t[1] == "=":
                try:
                    h[t[0]] = int(t[2])
                except ValueError:
                    pass
    return h


class Result:
    def __init__(self):
        self.counts = {}
        self.more_examples = []
        self.mismatches = []

    def add(self, cat, cmd, detail=None):
        key = "%s/%s" % (cat, cmd)
        self.counts[key] = self.counts.get(key, 0) + 1
        if cat == "more" and detail and len(self.more_examples) < 400:
            self.more_examples.append(detail)
        if cat == "mismatch":
            self.mismatches.append(detail + "\n--- script:\n" +
                                   getattr(self, "script", ""))


def canon_many(symcut, texts):
    """`symcut expr simplify` of each text (None where it fails)."""
    if not texts:
        return []
    p = subprocess.run([symcut, "expr", "simplify", "--"] + list(texts),
                       text=True, capture_output=True)
    out = p.stdout.split("\n")[:-1]
    if p.returncode == 0 and len(out) == len(texts):
        return out
    res = []
    for t in texts:
        p = subprocess.run([symcut, "expr", "simplify", "--", t], text=True,
                           capture_output=True)
        res.append(p.stdout.strip() if p.returncode == 0 else None)
    return res


def known_at(symcut, script_lines, n, expr):
    """symcut's `known EXPR` after the script's lines before line n."""
    prefix = "\n".join(script_lines[:n - 1])
    out = run_symcut(symcut, prefix + "\nknown " + expr + "\n")
    return out.rstrip("\n").split("\n")[-1]


def oblivious_known_at(symcut, script_lines, n, expr, size_like):
    """symcut's `known EXPR` after the script's lines before line n and
    the size-oblivious assumption made explicit: a `check NAME >= 2` for
    each size-like symbol of expr (what guard_size_oblivious assumes)."""
    prefix = "\n".join(script_lines[:n - 1] +
                       ["check %s >= 2" % x for x in
                        sorted(set(ast_names(expr)) & size_like)])
    out = run_symcut(symcut, prefix + "\nknown " + expr + "\n")
    return out.rstrip("\n").split("\n")[-1]


def torch_guard_at(script_lines, n, expr):
    """PyTorch's `guard EXPR` after the script's lines up to line n (a
    separate run: what it records does not matter)."""
    prefix = "\n".join(script_lines[:n])
    out, _ = oracle.run_text(prefix + "\nguard " + expr + "\n")
    return out.rstrip("\n").split("\n")[-1]


def size_like_below_two(symcut, script_lines, n, expr, size_like):
    """Does symcut's range of a size-like symbol of expr, after the lines
    before n, lie below 2?"""
    for name in sorted(set(ast_names(expr)) & size_like):
        prefix = "\n".join(script_lines[:n - 1])
        out = run_symcut(symcut, prefix + "\nrange " + name + "\n")
        r = parse_range(out.rstrip("\n").split("\n")[-1])
        if r is not None and r[1] < 2:
            return True
    return False


def eval_any_unbacked(text, hints, unbacked, box=range(-12, 13)):
    """py_eval of text at the hints, the unbacked symbols it names tried
    on a small box (at most two of them): the set of values it takes, or
    None when it cannot be evaluated."""
    names = [x for x in sorted(set(ast_names(text))) if x in unbacked]
    if len(names) > 2:
        return None
    seen = set()
    grid = [()] if not names else \
        [(a,) for a in box] if len(names) == 1 else \
        [(a, b) for a in box for b in box]
    for vals in grid:
        v = py_eval(text, dict(hints, **dict(zip(names, vals))))
        if v is None:
            continue
        seen.add(v)
    return seen or None


def earlier_checks(lines, n, unbacked):
    """The expressions of the `check` lines before line n that name an
    unbacked symbol (the runtime assertions PyTorch defers)."""
    res = []
    for line in lines[:n - 1]:
        c, r = command_of(line)
        if c == "check" and set(ast_names(r)) & unbacked:
            res.append(r)
    return res


def positive_sizes(symcut, script_lines, n, hints):
    """symcut's answer at line n when every 0/1-unspecialized size without
    a declared range (and a non-zero hint) is declared >= 1, as PyTorch's
    sympy-positive size symbols assume; None when there is none."""
    changed = False
    out_lines = []
    for line in script_lines[:n]:
        c, r = command_of(line)
        toks = r.split() if c == "sym" else []
        if c == "sym" and "no01" in toks and "range" not in toks and \
                "int" not in toks and hints.get(toks[0]) not in (0, None):
            line = line.split("#", 1)[0].rstrip() + " range 1.."
            changed = True
        out_lines.append(line)
    if not changed:
        return None
    out = run_symcut(symcut, "\n".join(out_lines) + "\n")
    return out.rstrip("\n").split("\n")[-1]


def backed_rewrite(symcut, script_lines, n, expr, hints, answer, cmd):
    """Does symcut's `simplify` of expr, after the lines before n, mention
    backed symbols only, with the value `answer` at the hints?"""
    prefix = "\n".join(script_lines[:n - 1])
    out = run_symcut(symcut, prefix + "\nsimplify " + expr + "\n")
    text = out.rstrip("\n").split("\n")[-1]
    if text.startswith("error:"):
        return False
    v = py_eval(text, hints)
    if v is None:
        return False
    if cmd == "int" or cmd == "hint":
        return str(v) == answer
    return ("True" if v else "False") == answer


def source_hints(script_lines, hints):
    """Sources of backed symbols -> their hints."""
    out = {}
    for line in script_lines:
        c, r = command_of(line)
        if c == "sym" and "source" in r.split():
            toks = r.replace("=", " = ").split()
            if toks[0] in hints:
                out[toks[toks.index("source") + 1]] = hints[toks[0]]
    return out


def test_at_hints(test_args, src_hints):
    """Does a `test` line set only sources, each to its own hint?"""
    toks = test_args.split()
    return all(t.rpartition("=")[0] in src_hints and
               t.rpartition("=")[2] == str(src_hints[t.rpartition("=")[0]])
               for t in toks)


def assert_impossible_at_hints(script_lines, n, hints, unbacked, size_like):
    """Is a `check` before line n false at the hints for every value of
    its unbacked symbols on a box (0..24 for size-like ones, -12..12 for
    the others; at most two of them)?  Then the traced program fails
    that assertion at these sizes."""
    for line in script_lines[:n - 1]:
        c, r = command_of(line)
        if c == "check" and impossible_at_hints(r, hints, unbacked,
                                                size_like):
            return True
    return False


def impossible_at_hints(r, hints, unbacked, size_like):
    """Is the assertion r false at the hints for every value of its
    unbacked symbols on the box of assert_impossible_at_hints?"""
    names = [x for x in sorted(set(ast_names(r))) if x in unbacked]
    if len(names) > 2:
        return False
    boxes = [range(0, 25) if x in size_like else range(-12, 13)
             for x in names]
    grid = [()] if not names else [(a,) for a in boxes[0]] \
        if len(names) == 1 else [(a, b) for a in boxes[0]
                                 for b in boxes[1]]
    vals = set()
    for v in grid:
        x = py_eval(r, dict(hints, **dict(zip(names, v))))
        if x is None:
            return False
        vals.add(bool(x))
    return vals == {False}


def zero_no01(test_args, no01_sources):
    return any(tok.rpartition("=")[0] in no01_sources and
               tok.rpartition("=")[2] == "0" for tok in test_args.split())


def ast_names(text):
    try:
        return [n.id for n in ast.walk(ast.parse(text.strip(), mode="eval"))
                if isinstance(n, ast.Name)]
    except SyntaxError:
        return []


def compare(script, symcut, res):
    res.script = script
    script = with_sentinels(script)
    lines = script.split("\n")
    t_out, _ = oracle.run_text(script, tag=True)
    t = split_tagged(t_out)
    s = split_symcut(script, run_symcut(symcut, script))
    hints = hints_of(script)
    simp = []       # (n, cmd, expr, torch text, symcut text)
    guards_diverged = False
    mixed_assert = False
    unbacked_names = set()
    size_like_names = set()
    no01_sources = set()
    zero_no01_names = set()
    for line in lines:
        c, r = command_of(line)
        if c == "sym" and "no01" in r.split() and \
                hints.get(r.split()[0]) == 0:
            zero_no01_names.add(r.split()[0])
        if c == "sym" and "no01" in r.split() and "source" in r.split():
            toks = r.split()
            no01_sources.add(toks[toks.index("source") + 1])
        if c == "unbacked":
            unbacked_names.update(x for x in r.split()
                                  if x[:1] == "u" and x[1:].isdigit())
            if "size" in r.split():
                size_like_names.update(x for x in r.split()
                                       if x[:1] == "u" and x[1:].isdigit())
    for n, line in enumerate(lines, 1):
        cmd, rest = command_of(line)
        if cmd is None:
            continue
        if cmd == "hint" and rest == str(SENTINEL):
            continue
        tl = t.get(n, [])
        sl = s.get(n, [])
        where = "line %d: %s" % (n, line.strip())

        def mismatch(why):
            nonlocal guards_diverged
            if zero_no01_names and len(tl) == 1 and len(sl) == 1 and \
                    tl[0] in ("True", "False") and \
                    cmd in ("guard", "or_false", "or_true", "oblivious",
                            "known"):
                v = py_eval(rest, hints)
                if v is None:
                    vs = eval_any_unbacked(rest, hints, unbacked_names)
                    if vs is not None and len({bool(x) for x in vs}) == 1:
                        v = vs.pop()   # the unbacked symbols cancel
                if v is not None and bool(v) != (tl[0] == "True") and \
                        (sl[0] == "unknown" or
                         bool(v) == (sl[0] == "True")):
                    # PyTorch's size symbols are sympy-positive even with
                    # 0/1 specialization off: with a size at 0 its answer
                    # is false at the hints.  symcut's is not; the guard
                    # sets differ from here on.
                    res.add("torch-positive-assumption", cmd)
                    guards_diverged = True
                    return
            if cmd in ("known", "or_false", "or_true", "guard",
                       "oblivious") and \
                    len(tl) == 1 and len(sl) == 1 and \
                    tl[0] in ("True", "False") and \
                    (sl[0] == "unknown" or sl[0].startswith("error:") or
                     cmd in ("or_false", "or_true")) and \
                    positive_sizes(symcut, lines, n, hints) == tl[0]:
                # Decided by symcut too once the 0/1-unspecialized sizes
                # are >= 1, which PyTorch's sympy assumes (positive=True)
                # although such a size may be 0 at run time.
                res.add("torch-positive-assumption", cmd)
                guards_diverged = True
                return
            res.add("mismatch", cmd, "%s\n  torch:  %s\n  symcut: %s\n  (%s)"
                    % (where, " | ".join(tl), " | ".join(sl), why))

        if cmd in MULTI:
            res.add("skip", cmd)
            continue
        if len(tl) != 1 or len(sl) != 1:
            mismatch("line counts differ")
            return
        T, S = tl[0], sl[0]
        if T.startswith("skip:"):
            res.add("skip", cmd)
            continue
        tk, sk = err_kind_torch(T), err_kind_symcut(S)
        if cmd in ("sym", "unbacked"):
            if T == S or (tk and sk):
                res.add("same", cmd)
            else:
                mismatch("different symbols")
                return
            continue
        if cmd == "test":
            if guards_diverged:
                res.add("cut", cmd)
            elif "does not fit in int64_t" in S:
                res.add("skip-bigint", cmd)
            elif (T == "pass") == (S == "pass") and (not tk) == (not sk):
                res.add("same", cmd)
            elif mixed_assert and not tk and not sk:
                # A runtime assertion on unbacked and backed symbols: what
                # each system carries from it into the guard set differs
                # (symcut's learned consequences, doc/guards.md; PyTorch's
                # range refinement), so the sets may differ on sizes that
                # would fail the assertion at run time.
                res.add("assert-consequence", cmd)
            elif T.startswith("fail:") and S == "pass" and \
                    zero_no01_names and \
                    test_at_hints(rest, source_hints(lines, hints)):
                # PyTorch's guard set rejects the very sizes it was traced
                # with, a 0/1-unspecialized size among them at 0: sympy
                # took that size as positive (dropping an Eq(s1, 0) from
                # an assertion, say) and the guard it kept is false at 0.
                res.add("torch-positive-assumption", cmd)
            elif T == "pass" and S.startswith("fail:") and \
                    zero_no01(rest, no01_sources):
                # PyTorch's size symbols are sympy-positive even with 0/1
                # specialization off, so sympy decides Eq(0, -4*s1) False
                # without a guard; symcut records Ne(s1, 0).
                res.add("torch-positive-assumption", cmd)
            else:
                mismatch("the guard sets disagree on these sizes")
            continue
        if tk and tk not in ("dde", "failed", "script", "constraint"):
            # PyTorch failed internally (an AssertionError of its own);
            # its state is not to be trusted afterwards.
            res.add("torch-internal-error", cmd)
            for m in range(n + 1, len(lines) + 1):
                c = command_of(lines[m - 1])[0]
                if c is not None:
                    res.add("cut", c)
            return
        m = re.match(r"error: line \d+: (.*) contradicts what is known$", S)
        if m and not tk and cmd not in ("check",) and \
                eval_any_unbacked(m.group(1), hints, unbacked_names) == \
                {False}:
            # A runtime assertion PyTorch deferred is impossible at the
            # hints (no value of the unbacked symbols satisfies it on a
            # box): symcut finds out when a later guard fixes the sizes.
            res.add("more", cmd, "%s\n  torch: %s\n  symcut: %s"
                    % (where, T, S))
            for m2 in range(n + 1, len(lines) + 1):
                c = command_of(lines[m2 - 1])[0]
                if c is not None:
                    res.add("cut", c)
            return
        if re.match(r"error: line \d+: .* is (true|false) at the hints but "
                    r"(true|false) given what is known", S) and not tk and \
                any(eval_any_unbacked(c, hints, unbacked_names) == {False}
                    for c in earlier_checks(lines, n, unbacked_names)):
            # symcut decided a backed question from a runtime assertion
            # that no value of the unbacked symbols satisfies at the hints
            # (PyTorch deferred it) and says so instead of answering.
            res.add("more", cmd, "%s\n  torch: %s\n  symcut: %s"
                    % (where, T, S))
            for m2 in range(n + 1, len(lines) + 1):
                c = command_of(lines[m2 - 1])[0]
                if c is not None:
                    res.add("cut", c)
            return
        if tk and sk:
            if tk == sk or {tk, sk} <= {"failed", "contradiction"}:
                res.add("same", cmd)
            elif tk == "dde" and sk != "dde":
                # A data-dependent error in PyTorch may be an error or a
                # proven answer in symcut, never a different answer.
                res.add("error-where-torch-dde", cmd, "%s\n  torch: %s\n"
                        "  symcut: %s" % (where, T, S))
            elif tk == "dde" or sk == "dde":
                mismatch("different errors")
            else:
                res.add("same-error", cmd)
            continue
        if cmd == "check":
            if T == "ok" and S == "ok":
                res.add("same", cmd)
                names = set(ast_names(rest))
                if names & unbacked_names and names - unbacked_names:
                    mixed_assert = True
            elif T == "ok" and sk == "contradiction":
                v = known_at(symcut, lines, n, rest)
                res.add("more", cmd, "%s\n  torch: ok; symcut: %s "
                        "(known: %s)" % (where, S, v))
                # The environments now know different things.
                for m in range(n + 1, len(lines) + 1):
                    if command_of(lines[m - 1])[0] is not None:
                        res.add("cut", command_of(lines[m - 1])[0])
                return
            elif tk == "failed" and S == "ok" and \
                    set(ast_names(rest)) & zero_no01_names and \
                    py_eval(rest, hints) is True:
                # PyTorch rejects an assertion that holds at its own
                # hints, a 0/1-unspecialized size at 0 among them: sympy
                # takes that size as positive.
                res.add("torch-positive-assumption", cmd)
                guards_diverged = True
            elif tk == "failed" and S == "ok" and \
                    set(ast_names(rest)) & unbacked_names and \
                    impossible_at_hints(rest, hints, unbacked_names,
                                        size_like_names):
                # The assertion cannot hold at the hints for any value of
                # its unbacked symbols: PyTorch rejects it while tracing
                # (its ranges, sizes taken positive, decide it false),
                # symcut defers it to run time, where it fails.
                res.add("assert-contradicts-hints", cmd, "%s\n  torch: %s\n"
                        "  symcut: ok (deferred; false at the hints for every "
                        "value of its unbacked symbols)" % (where, T))
                guards_diverged = True
            elif T == "ok" and sk == "failed" and \
                    backed_rewrite(symcut, lines, n, rest, hints, "False",
                                   cmd):
                # symcut rewrote the assertion to backed symbols only,
                # false at the hints; PyTorch deferred it.
                res.add("more-guarded", cmd, "%s\n  torch: ok\n  symcut: %s"
                        % (where, S))
                guards_diverged = True
            else:
                mismatch("check")
            continue
        if cmd == "oblivious" and {T, S} == {"True", "False"} and \
                size_like_below_two(symcut, lines, n, rest,
                                    size_like_names) and \
                known_at(symcut, lines, n, rest) == S:
            # PyTorch refuses to narrow a size-like symbol below [0, 2]
            # (_update_var_to_range) and answers size-oblivious questions
            # with it >= 2 even when a runtime assertion bounds it by 1;
            # symcut proves its answer from that assertion.
            res.add("torch-size-like-floor", cmd, "%s\n  torch: %s\n  "
                    "symcut: %s" % (where, T, S))
            continue
        if cmd in ("guard", "oblivious", "int", "hint"):
            if T == S and cmd == "int" and \
                    set(ast_names(rest)) & zero_no01_names and \
                    torch_guard_at(lines, n, "Eq(%s, %s)" % (rest, T)) == \
                    "False":
                # PyTorch's own Eq(e, v) is False for the value v it just
                # returned: a 0/1-unspecialized size at hint 0 is
                # sympy-positive, so Eq(s2, 0) is False and guard_int
                # records no guard (its guard set accepts sizes the trace
                # specialized away).  symcut records Eq(s2, 0).
                res.add("torch-positive-assumption", cmd)
                guards_diverged = True
            elif T == S:
                res.add("same", cmd)
            elif not tk and (sk == "contradiction" or
                             "cannot hold at these hints" in S) and \
                    (("cannot hold at these hints" in S and
                      T in ("True", "False") and
                      py_eval(rest, hints) is not None and
                      bool(py_eval(rest, hints)) == (T == "True") and
                      known_at(symcut, lines, n, rest) ==
                      ("False" if T == "True" else "True")) or
                     assert_impossible_at_hints(lines, n, hints,
                                                unbacked_names,
                                                size_like_names)):
                # What is known (runtime assertions) proves the opposite of
                # the value at the hints: the assertions cannot hold at
                # these hints.  PyTorch guards on the hint value; symcut
                # refuses.  The environments differ from here on.
                res.add("assert-contradicts-hints", cmd, "%s\n  torch: %s\n"
                        "  symcut: %s" % (where, T, S))
                guards_diverged = True
            elif tk == "dde" and not sk:
                e = rest if cmd != "int" and cmd != "hint" else \
                    "Eq(%s, %s)" % (rest, S)
                if cmd == "hint":
                    res.add("more", cmd, "%s\n  torch: %s\n  symcut: %s"
                            % (where, T, S))
                    continue
                v = known_at(symcut, lines, n, e)
                want = "True" if cmd == "int" else S
                if v != want and cmd == "oblivious":
                    # proven with the size-like symbols >= 2
                    v = oblivious_known_at(symcut, lines, n, e,
                                           size_like_names)
                if v == want:
                    res.add("more", cmd, "%s\n  torch: %s\n  symcut: %s"
                            % (where, T, S))
                elif backed_rewrite(symcut, lines, n, rest, hints, S, cmd):
                    # symcut rewrote it to backed symbols only and guarded
                    # on that: an extra guard PyTorch does not have.
                    res.add("more-guarded", cmd, "%s\n  torch: %s\n  "
                            "symcut: %s (guarded on its backed rewrite)"
                            % (where, T, S))
                    guards_diverged = True
                else:
                    mismatch("symcut answered where PyTorch could not, but "
                             "its `known` says %s" % v)
            else:
                mismatch("different answers")
            continue
        if cmd in ("or_false", "or_true"):
            dflt = "True" if cmd == "or_true" else "False"
            if T == S and T == dflt and \
                    set(ast_names(rest)) & unbacked_names and \
                    known_at(symcut, lines, n, rest) != S and \
                    backed_rewrite(symcut, lines, n, rest, hints, S, cmd):
                # The same answer, but PyTorch's is its default (unbacked
                # symbols, nothing recorded) while symcut rewrote the
                # question to backed symbols only and guarded on that: its
                # guard set has a guard PyTorch's lacks.
                res.add("more-guarded", cmd, "%s\n  torch: %s (default)\n"
                        "  symcut: %s (guarded on its backed rewrite)"
                        % (where, T, S))
                guards_diverged = True
            elif T == S:
                res.add("same", cmd)
            elif T == dflt and S in ("True", "False") and not tk:
                v = known_at(symcut, lines, n, rest)
                if v == S:
                    res.add("more", cmd, "%s\n  torch: %s\n  symcut: %s"
                            % (where, T, S))
                elif backed_rewrite(symcut, lines, n, rest, hints, S, cmd):
                    res.add("more-guarded", cmd, "%s\n  torch: %s\n  "
                            "symcut: %s (guarded on its backed rewrite)"
                            % (where, T, S))
                    guards_diverged = True
                else:
                    mismatch("symcut's `known` says %s" % v)
            else:
                mismatch("different answers")
            continue
        if cmd == "known":
            if T == S:
                res.add("same", cmd)
            elif T == "unknown" and S in ("True", "False"):
                backed = py_eval(rest, hints)
                if backed is not None and bool(backed) != (S == "True") and \
                        assert_impossible_at_hints(lines, n, hints,
                                                   unbacked_names,
                                                   size_like_names):
                    # An earlier runtime assertion cannot hold at the
                    # hints; symcut's `known` answers from what it
                    # implies (the opposite of the hint value), PyTorch
                    # does not know.  The environments differ from here.
                    res.add("assert-contradicts-hints", cmd, "%s\n  torch: "
                            "unknown\n  symcut: %s" % (where, S))
                    guards_diverged = True
                elif backed is not None and bool(backed) != (S == "True"):
                    mismatch("symcut's answer is false at the hints")
                else:
                    res.add("more", cmd, "%s\n  torch: unknown\n  symcut: %s"
                            % (where, S))
            else:
                mismatch("different answers")
            continue
        if cmd == "range":
            tr, sr = parse_range(T), parse_range(S)
            if tk or sk or tr is None or sr is None:
                mismatch("range")
                continue
            if tr == sr:
                res.add("same", cmd)
            elif tr[0] <= sr[0] and sr[1] <= tr[1]:
                if sr[0] > sr[1]:
                    mismatch("empty range")
                else:
                    res.add("more", cmd, "%s\n  torch: %s\n  symcut: %s"
                            % (where, T, S))
            elif sr[0] <= tr[0] and tr[1] <= sr[1]:
                res.add("gap", cmd, None)
                res.mismatches.append(
                    "GAP %s\n  torch: %s\n  symcut: %s" % (where, T, S)) \
                    if os.environ.get("SYMCUT_SHAPEENV_STRICT") else None
                res.gaps = getattr(res, "gaps", [])
                if len(res.gaps) < 200:
                    res.gaps.append("%s\n  torch: %s\n  symcut: %s"
                                    % (where, T, S))
            elif max(tr[0], sr[0]) > min(tr[1], sr[1]):
                mismatch("disjoint ranges")
            else:
                res.add("crossed", cmd)
            continue
        if cmd == "simplify":
            simp.append((n, where, rest, T, S))
            continue
        mismatch("unknown command")
    if simp:
        canon = canon_many(symcut, [x[3] for x in simp] + [x[4] for x in simp])
        k = len(simp)
        for i, (n, where, rest, T, S) in enumerate(simp):
            ct, cs = canon[i], canon[k + i]
            detail = "%s\n  torch: %s\n  symcut: %s" % (where, T, S)
            if ct is None or cs is None:
                res.add("mismatch", "simplify", detail + "\n  (unparsable)")
                continue
            tconst = py_eval(ct, {}) if ct.lstrip("-").isdigit() else None
            sconst = py_eval(cs, {}) if cs.lstrip("-").isdigit() else None
            if ct == cs:
                res.add("same", "simplify")
            elif tconst is not None and sconst is not None:
                res.add("mismatch", "simplify", detail + "\n  (constants)")
            elif sconst is not None:
                res.add("more", "simplify", detail)
            elif tconst is not None:
                res.add("gap", "simplify")
                res.gaps = getattr(res, "gaps", [])
                if len(res.gaps) < 200:
                    res.gaps.append(detail)
            else:
                vt, vs = py_eval(ct, hints), py_eval(cs, hints)
                if vt is not None and vs is not None and vt != vs:
                    res.add("mismatch", "simplify",
                            detail + "\n  (differ at the hints)")
                else:
                    res.add("forms-" + ("symcut-shorter" if len(cs) < len(ct)
                                        else "torch-shorter" if len(ct) < len(cs)
                                        else "equal-length"), "simplify")


def sample_tests(script, rng, k):
    """k `test` lines over the sources of the script."""
    srcs = []
    for line in script.split("\n"):
        cmd, rest = command_of(line)
        if cmd == "sym":
            t = rest.replace("=", " = ").split()
            if "source" in t and len(t) >= 3:
                try:
                    h = int(t[2])
                except ValueError:
                    continue
                src = t[t.index("source") + 1]
                if src not in [x[0] for x in srcs]:
                    srcs.append((src, h, "int" in t))
    out = []
    for _ in range(k if srcs else 0):
        items = []
        base = rng.choice([0, 0, 1, 2])
        for src, h, is_int in srcs:
            if rng.random() < 0.25 and abs(h) < 2 ** 62:
                continue
            if base == 0:
                v = h + rng.choice([0, 0, 1, -1, 2, -2])
            elif base == 1:
                v = rng.randrange(0, max(2 * abs(h), 4) + 10)
            else:
                v = rng.choice([0, 1, 2, 3, h, h + 8, 2 * h, 1000])
            if is_int:
                v = max(min(v, 2 ** 62), -(2 ** 62))
                if rng.random() < 0.3:
                    v = -v
            elif v < 0:
                v = 0
            items.append("%s=%d" % (src, v))
        out.append("test " + " ".join(items))
    return out


def main(argv):
    symcut, seed = argv[1], int(argv[2])
    n = int(argv[3]) if len(argv) > 3 else 5
    rng = random.Random(seed)
    res = Result()
    for _ in range(n):
        sc = gen_env.generate(rng)
        sc += "\n".join(sample_tests(sc, rng, 8)) + "\n"
        compare(sc, symcut, res)
    for k in sorted(res.counts):
        print("%-28s %d" % (k, res.counts[k]))
    for m in res.mismatches:
        print("MISMATCH", m)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

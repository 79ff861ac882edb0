"""The shape environment, its guard set and the compiled checker."""
import ctypes

from . import _lib
from ._lib import lib
from ._core import (_Handle, _Mpz, _CRange, _check, _enc, Context, Expr)

SPECIALIZE_01_OFF, DUCK_OFF, SIZE_LIKE = 1, 2, 4


class ShapeEnv(_Handle):
    """PyTorch's ShapeEnv: backed symbols with hints and sources, unbacked
    symbols, guards, runtime assertions, and the guard set."""

    _free = staticmethod(lib.sc_env_free)

    def __init__(self, ctx=None, specialize_zero_one=True, duck_shape=True):
        self.ctx = ctx or Context()
        opts = _lib.EnvOptions()
        lib.sc_env_options_init(ctypes.byref(opts))
        opts.specialize_zero_one = specialize_zero_one
        opts.duck_shape = duck_shape
        out = ctypes.c_void_p()
        err = _lib.Error()
        _check(lib.sc_env_new(self.ctx._alive(), ctypes.byref(opts),
                              ctypes.byref(out), ctypes.byref(err)), err)
        self._own(out.value, self.ctx)

    def _e(self, e):
        self._alive()
        return self.ctx.expr(e)

    def create_symbol(self, hint, source=None, name=None, range=None,
                      specialize_zero_one=True, duck=True):
        """The symbol of a backed size (or a constant when specialized, or
        a shared symbol under duck sizing)."""
        flags = (0 if specialize_zero_one else SPECIALIZE_01_OFF) | \
            (0 if duck else DUCK_OFF)
        out = ctypes.c_void_p()
        err = _lib.Error()
        with _Mpz(hint) as h, _CRange(range) as r:
            _check(lib.sc_env_create_backed(
                self._alive(), ctypes.byref(h.z), _enc(source), _enc(name),
                ctypes.byref(r.r) if range is not None else None, flags,
                ctypes.byref(out), ctypes.byref(err)), err)
        return Expr(self.ctx, out.value)

    def create_unbacked(self, name=None, range=None, size_like=False):
        out = ctypes.c_void_p()
        err = _lib.Error()
        with _CRange(range) as r:
            _check(lib.sc_env_create_unbacked(
                self._alive(), _enc(name),
                ctypes.byref(r.r) if range is not None else None,
                SIZE_LIKE if size_like else 0, ctypes.byref(out),
                ctypes.byref(err)), err)
        return Expr(self.ctx, out.value)

    @property
    def symbols(self):
        p = self._alive()
        return [Expr(self.ctx, lib.sc_env_symbol(p, i))
                for i in range(lib.sc_env_symbol_count(p))]

    def is_backed(self, sym):
        return lib.sc_env_is_backed(self._alive(), self._e(sym)._p)

    def is_size_like(self, sym):
        return lib.sc_env_is_size_like(self._alive(), self._e(sym)._p)

    def has_symbol(self, sym):
        return lib.sc_env_has_symbol(self._alive(), self._e(sym)._p)

    def source_of(self, sym):
        s = lib.sc_env_symbol_source(self._alive(), self._e(sym)._p)
        return s.decode() if s else None

    def replacement(self, sym):
        r = lib.sc_env_replacement(self._alive(), self._e(sym)._p)
        return Expr(self.ctx, r) if r else None

    @property
    def sources(self):
        """[(source text, its expression, its hint)] in creation order."""
        p = self._alive()
        return [(lib.sc_env_source(p, i).decode(),
                 Expr(self.ctx, lib.sc_env_source_expr(p, i)),
                 int(Expr(self.ctx, lib.sc_env_source_hint(p, i))))
                for i in range(lib.sc_env_source_count(p))]

    def statically_known(self, cond, oblivious=False):
        """True, False, or None (unknown); records nothing."""
        out = ctypes.c_int()
        err = _lib.Error()
        _check(lib.sc_env_statically_known(
            self._alive(), self._e(cond)._p, 1 if oblivious else 0,
            ctypes.byref(out), ctypes.byref(err)), err)
        return {0: False, 1: True}.get(out.value)

    def _ask(self, fn, cond, *extra):
        out = ctypes.c_bool()
        err = _lib.Error()
        _check(fn(self._alive(), self._e(cond)._p, *extra,
                  ctypes.byref(out), ctypes.byref(err)), err)
        return out.value

    def guard(self, cond):
        """bool(SymBool): the answer, recording a guard when needed;
        DataDependentError for unbacked symbols."""
        return self._ask(lib.sc_env_guard, cond)

    def guard_or(self, cond, default):
        return self._ask(lib.sc_env_guard_or, cond, bool(default))

    def size_oblivious(self, cond):
        return self._ask(lib.sc_env_size_oblivious, cond)

    def check(self, cond):
        """torch._check(cond): a guard or a deferred runtime assertion;
        GuardError / ContradictionError when it cannot hold."""
        err = _lib.Error()
        _check(lib.sc_env_assert(self._alive(), self._e(cond)._p,
                                 ctypes.byref(err)), err)

    def guard_int(self, e):
        err = _lib.Error()
        with _Mpz() as z:
            _check(lib.sc_env_guard_int(self._alive(), self._e(e)._p,
                                        ctypes.byref(z.z), ctypes.byref(err)),
                   err)
            return z.value()

    def hint(self, e):
        err = _lib.Error()
        with _Mpz() as z:
            _check(lib.sc_env_hint(self._alive(), self._e(e)._p,
                                   ctypes.byref(z.z), ctypes.byref(err)), err)
            return z.value()

    def simplify(self, e):
        out = ctypes.c_void_p()
        err = _lib.Error()
        _check(lib.sc_env_simplify(self._alive(), self._e(e)._p,
                                   ctypes.byref(out), ctypes.byref(err)), err)
        return Expr(self.ctx, out.value)

    def range(self, e):
        err = _lib.Error()
        with _CRange() as r:
            _check(lib.sc_env_range(self._alive(), self._e(e)._p,
                                    ctypes.byref(r.r), ctypes.byref(err)),
                   err)
            return r.value()

    @property
    def guards(self):
        p = self._alive()
        return [Expr(self.ctx, lib.sc_env_guard_at(p, i))
                for i in range(lib.sc_env_guard_count(p))]

    @property
    def runtime_asserts(self):
        p = self._alive()
        return [Expr(self.ctx, lib.sc_env_runtime_assert(p, i))
                for i in range(lib.sc_env_runtime_assert_count(p))]

    def produce_guards(self):
        """The minimal GuardSet over the sources."""
        out = ctypes.c_void_p()
        err = _lib.Error()
        _check(lib.sc_env_produce_guards(self._alive(), ctypes.byref(out),
                                         ctypes.byref(err)), err)
        return GuardSet(self.ctx, out.value)


class GuardSet(_Handle):
    """The guards over the sources, as text, expressions and C; check()
    decides concrete sizes."""

    _free = staticmethod(lib.sc_guard_set_free)

    def __init__(self, ctx, ptr):
        self.ctx = ctx
        self._own(ptr, ctx)
        self._checker = None

    def __len__(self):
        return lib.sc_guard_set_count(self._alive())

    @property
    def texts(self):
        p = self._alive()
        return [lib.sc_guard_set_text(p, i).decode() for i in range(len(self))]

    @property
    def exprs(self):
        p = self._alive()
        return [Expr(self.ctx, lib.sc_guard_set_expr(p, i))
                for i in range(len(self))]

    @property
    def sources(self):
        p = self._alive()
        return [lib.sc_guard_set_source(p, i).decode()
                for i in range(lib.sc_guard_set_source_count(p))]

    @property
    def variables(self):
        p = self._alive()
        return [lib.sc_guard_set_var(p, i).decode()
                for i in range(lib.sc_guard_set_source_count(p))]

    def to_c(self):
        out = ctypes.c_void_p()
        err = _lib.Error()
        _check(lib.sc_guard_set_to_c(self._alive(), ctypes.byref(out),
                                     ctypes.byref(err)), err)
        return _lib.take_string(out.value)

    def compile(self):
        out = ctypes.c_void_p()
        err = _lib.Error()
        _check(lib.sc_guard_set_compile(self._alive(), ctypes.byref(out),
                                        ctypes.byref(err)), err)
        return GuardChecker(self, out.value)

    def check(self, values):
        """The index of the first guard that fails for these sizes
        (a list in source order, or {source: size}), or None when all
        hold."""
        if self._checker is None or self._checker.closed:
            self._checker = self.compile()
        return self._checker.check(values)

    def __iter__(self):
        return iter(self.texts)


class GuardChecker(_Handle):
    _free = staticmethod(lib.sc_guard_checker_free)

    def __init__(self, gs, ptr):
        self.guard_set = gs
        self._own(ptr, gs)

    def __len__(self):
        return lib.sc_guard_checker_count(self._alive())

    def check(self, values):
        p = self._alive()
        n = lib.sc_guard_checker_source_count(p)
        if isinstance(values, dict):
            srcs = self.guard_set.sources
            missing = [s for s in srcs if s not in values]
            if missing:
                raise ValueError("no size for source %s" % missing[0])
            values = [values[s] for s in srcs]
        values = list(values)
        if len(values) != n:
            raise ValueError("%d sizes given for %d sources"
                             % (len(values), n))
        arr = (ctypes.c_int64 * max(n, 1))(*values)
        first = ctypes.c_size_t()
        err = _lib.Error()
        _check(lib.sc_guard_checker_check(p, arr, ctypes.byref(first),
                                          ctypes.byref(err)), err)
        return None if first.value >= len(self) else first.value

"""The objects of the binding: errors, expressions, the shape environment,
graphs and partitions.  Every C object is owned by exactly one Python
object, freed by its close() (also by `with`) or, at the latest, by its
finalizer; an object that others depend on closes them first."""
import ctypes
import json
import weakref

from . import _lib
from ._lib import lib, P

# ---- errors ----------------------------------------------------------------


class SymcutError(Exception):
    """An error of libsymcut: status (its name, "ERR_PARSE"), message,
    file, line and column (0 when the error is not about text)."""

    def __init__(self, status, message, file=None, line=0, column=0):
        self.status = status
        self.message = message
        self.file = file or None
        self.line = line
        self.column = column
        super().__init__(self._format())

    def _format(self):
        loc = ""
        if self.file:
            loc = self.file + ":"
        if self.line:
            loc += "%d:" % self.line
            if self.column:
                loc += "%d:" % self.column
        return (loc + " " if loc else "") + self.message


_ERROR_CLASSES = {}


def _status_names():
    names = []
    for i in range(64):
        n = lib.sc_status_name(i).decode()
        if n == "UNKNOWN":
            break
        names.append(n)
    return names


STATUS_NAMES = _status_names()
_BASES = {"ERR_NOMEM": (MemoryError,), "ERR_INVALID": (ValueError,),
          "ERR_PARSE": (ValueError,), "ERR_TYPE": (TypeError,),
          "ERR_DIV_ZERO": (ZeroDivisionError,), "ERR_IO": (OSError,),
          "ERR_OVERFLOW": (OverflowError,)}
for _n in STATUS_NAMES[1:]:
    _cls_name = "".join(w.capitalize() for w in _n[4:].split("_")) + "Error"
    _ERROR_CLASSES[_n] = type(_cls_name, (SymcutError,) + _BASES.get(_n, ()),
                              {"__doc__": "symcut's %s (%s)." % (
                                  _n, lib.sc_status_str(
                                      STATUS_NAMES.index(_n)).decode())})
globals().update({c.__name__: c for c in _ERROR_CLASSES.values()})


class ClosedError(ValueError):
    """Use of an object that was closed (or whose owner was)."""


def _raise(err):
    name = lib.sc_status_name(err.code).decode()
    msg = err.message.decode(errors="replace") or \
        lib.sc_status_str(err.code).decode()
    cls = _ERROR_CLASSES.get(name, SymcutError)
    raise cls(name, msg, err.file.decode(errors="replace"), err.line,
              err.column)


def _check(status, err):
    if status != 0:
        if err.code == 0:
            err.code = status
        _raise(err)


def _enc(s):
    return None if s is None else str(s).encode()


# ---- ownership ---------------------------------------------------------------

_live = weakref.WeakSet()


def live_objects():
    """The number of binding objects that still own a C object (handles
    not yet closed or finalized)."""
    return sum(1 for h in list(_live) if h._ptr)


class _Handle:
    """An owned C pointer, freed by close() or the finalizer; the handles
    that depend on it (children) are closed first."""

    _free = None

    def _own(self, ptr, parent=None):
        self._ptr = ptr
        self._children = weakref.WeakSet()
        self._parent = parent
        if parent is not None:
            parent._alive()
            parent._children.add(self)
        self._fin = weakref.finalize(self, type(self)._free, ptr)
        _live.add(self)

    def _alive(self):
        if not getattr(self, "_ptr", None):
            raise ClosedError("%s is closed" % type(self).__name__)
        return self._ptr

    def close(self):
        """Free the C object now (and every object depending on it).
        Closing twice is a no-op."""
        if not getattr(self, "_ptr", None):
            return
        for child in list(self._children):
            child.close()
        self._ptr = None
        self._fin()

    @property
    def closed(self):
        return not getattr(self, "_ptr", None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ---- integers (GMP) ------------------------------------------------------------


class _Mpz:
    def __init__(self, value=None):
        self.z = _lib.Mpz()
        _lib.mpz_init(ctypes.byref(self.z))
        if value is not None:
            _lib.mpz_set_str(ctypes.byref(self.z),
                                    str(int(value)).encode(), 10)

    def value(self):
        return int(_lib.take_string(
            _lib.mpz_get_str(None, 10, ctypes.byref(self.z))))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _lib.mpz_clear(ctypes.byref(self.z))


class Range:
    """An interval of the integers; lo/hi None mean -inf/+inf."""

    __slots__ = ("lo", "hi")

    def __init__(self, lo=None, hi=None):
        self.lo, self.hi = lo, hi

    def __iter__(self):
        return iter((self.lo, self.hi))

    def __eq__(self, other):
        return tuple(self) == tuple(other)

    def __contains__(self, v):
        return (self.lo is None or v >= self.lo) and \
            (self.hi is None or v <= self.hi)

    def __repr__(self):
        return "[%s, %s]" % ("-inf" if self.lo is None else self.lo,
                             "inf" if self.hi is None else self.hi)

    @classmethod
    def _from_c(cls, r):
        def val(z):
            return int(_lib.take_string(
                _lib.mpz_get_str(None, 10, ctypes.byref(z))))
        return cls(None if r.lo_inf else val(r.lo),
                   None if r.hi_inf else val(r.hi))


class _CRange:
    """A caller-embedded sc_range, cleared on exit."""

    def __init__(self, rng=None):
        self.r = _lib.Range()
        lib.sc_range_init(ctypes.byref(self.r))
        if rng is not None:
            lo, hi = rng
            if lo is not None:
                _lib.mpz_set_str(ctypes.byref(self.r.lo),
                                        str(int(lo)).encode(), 10)
            if hi is not None:
                _lib.mpz_set_str(ctypes.byref(self.r.hi),
                                        str(int(hi)).encode(), 10)
            self.r.lo_inf = lo is None
            self.r.hi_inf = hi is None

    def value(self):
        return Range._from_c(self.r)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        lib.sc_range_clear(ctypes.byref(self.r))


# ---- expressions ----------------------------------------------------------------


class Context(_Handle):
    """A symint context: expressions are interned in it and live as long
    as it does."""

    _free = staticmethod(lib.sc_ctx_free)

    def __init__(self):
        ptr = lib.sc_ctx_new()
        if not ptr:
            raise MemoryError("symcut: sc_ctx_new failed")
        self._own(ptr)

    def _wrap(self, ptr):
        if not ptr:
            err = _lib.Error()
            lib.sc_ctx_take_error(self._ptr, ctypes.byref(err))
            if err.code == 0:
                err.code = STATUS_NAMES.index("ERR_INTERNAL")
            _raise(err)
        return Expr(self, ptr)

    def parse(self, text, file=None, line=1):
        """The expression of text (PyTorch's spelling); ParseError with
        line and column."""
        out = ctypes.c_void_p()
        err = _lib.Error()
        _check(lib.sc_expr_parse(self._alive(), _enc(text), _enc(file), line,
                                 ctypes.byref(out), ctypes.byref(err)), err)
        return Expr(self, out.value)

    def symbol(self, name):
        return self._wrap(lib.sc_expr_symbol(self._alive(), _enc(name)))

    def symbols(self, names):
        return [self.symbol(n) for n in names.replace(",", " ").split()]

    def int(self, value):
        return self._wrap(lib.sc_expr_int_str(self._alive(),
                                              str(int(value)).encode()))

    def bool(self, value):
        return self._wrap(lib.sc_expr_bool(self._alive(), bool(value)))

    def expr(self, value):
        """value as an expression of this context: an Expr, an int, a
        bool, or a text to parse."""
        if isinstance(value, Expr):
            if value.ctx is not self:
                raise ValueError("expression of another context")
            return value
        if isinstance(value, bool):
            return self.bool(value)
        if isinstance(value, int):
            return self.int(value)
        if isinstance(value, str):
            return self.parse(value)
        raise TypeError("not an expression: %r" % (value,))

    @property
    def node_count(self):
        return lib.sc_ctx_node_count(self._alive())

    @property
    def expand_limit(self):
        return lib.sc_ctx_expand_limit(self._alive())

    @expand_limit.setter
    def expand_limit(self, n):
        lib.sc_ctx_set_expand_limit(self._alive(), n)

    @property
    def all_symbols(self):
        c = self._alive()
        return [Expr(self, lib.sc_ctx_symbol(c, i))
                for i in range(lib.sc_ctx_symbol_count(c))]

    def _bounds(self, bounds):
        """A new sc_bounds from {symbol or name: (lo, hi)} (caller frees),
        or None."""
        if not bounds:
            return None
        b = lib.sc_bounds_new(self._alive())
        if not b:
            raise MemoryError("symcut: sc_bounds_new failed")
        try:
            for sym, rng in bounds.items():
                sym = self.symbol(sym) if isinstance(sym, str) else \
                    self.expr(sym)
                err = _lib.Error()
                with _CRange(rng) as r:
                    _check(lib.sc_bounds_set(b, sym._p, ctypes.byref(r.r),
                                             ctypes.byref(err)), err)
        except BaseException:
            lib.sc_bounds_free(b)
            raise
        return b

    def _symmap(self, values):
        m = lib.sc_symmap_new(self._alive())
        if not m:
            raise MemoryError("symcut: sc_symmap_new failed")
        try:
            for sym, v in (values or {}).items():
                sym = self.symbol(sym) if isinstance(sym, str) else \
                    self.expr(sym)
                err = _lib.Error()
                _check(lib.sc_symmap_set(m, sym._p, self.expr(v)._p,
                                         ctypes.byref(err)), err)
        except BaseException:
            lib.sc_symmap_free(m)
            raise
        return m


_KINDS = ("Int", "Symbol", "Add", "Mul", "FloorDiv", "CeilDiv", "Mod", "Min",
          "Max", "True", "False", "Eq", "Ne", "Le", "And", "Or")


class Expr:
    """An interned expression.  == and hash are structural (pointer)
    equality; <, <=, >, >= build relations, as do eq() and ne(); & | ~
    build And/Or/Not."""

    __slots__ = ("ctx", "_ptr")

    def __init__(self, ctx, ptr):
        self.ctx = ctx
        self._ptr = ptr

    @property
    def _p(self):
        self.ctx._alive()
        return self._ptr

    def _other(self, o):
        return self.ctx.expr(o)._p

    def _bin(self, fn, o, swap=False):
        a, b = self._p, self._other(o)
        if swap:
            a, b = b, a
        return self.ctx._wrap(fn(self.ctx._ptr, a, b))

    __add__ = lambda s, o: s._bin(lib.sc_expr_add, o)
    __radd__ = lambda s, o: s._bin(lib.sc_expr_add, o, True)
    __sub__ = lambda s, o: s._bin(lib.sc_expr_sub, o)
    __rsub__ = lambda s, o: s._bin(lib.sc_expr_sub, o, True)
    __mul__ = lambda s, o: s._bin(lib.sc_expr_mul, o)
    __rmul__ = lambda s, o: s._bin(lib.sc_expr_mul, o, True)
    __floordiv__ = lambda s, o: s._bin(lib.sc_expr_floordiv, o)
    __rfloordiv__ = lambda s, o: s._bin(lib.sc_expr_floordiv, o, True)
    __mod__ = lambda s, o: s._bin(lib.sc_expr_mod, o)
    __rmod__ = lambda s, o: s._bin(lib.sc_expr_mod, o, True)
    __lt__ = lambda s, o: s._bin(lib.sc_expr_lt, o)
    __le__ = lambda s, o: s._bin(lib.sc_expr_le, o)
    __gt__ = lambda s, o: s._bin(lib.sc_expr_gt, o)
    __ge__ = lambda s, o: s._bin(lib.sc_expr_ge, o)
    __and__ = lambda s, o: s._bin(lib.sc_expr_and, o)
    __rand__ = lambda s, o: s._bin(lib.sc_expr_and, o, True)
    __or__ = lambda s, o: s._bin(lib.sc_expr_or, o)
    __ror__ = lambda s, o: s._bin(lib.sc_expr_or, o, True)
    eq = lambda s, o: s._bin(lib.sc_expr_eq, o)
    ne = lambda s, o: s._bin(lib.sc_expr_ne, o)
    ceildiv = lambda s, o: s._bin(lib.sc_expr_ceildiv, o)

    def __neg__(self):
        return self.ctx._wrap(lib.sc_expr_neg(self.ctx._ptr, self._p))

    def __invert__(self):
        return self.ctx._wrap(lib.sc_expr_not(self.ctx._ptr, self._p))

    def __pow__(self, n):
        if not isinstance(n, int) or n < 0:
            raise ValueError("the exponent must be a natural number")
        return self.ctx._wrap(lib.sc_expr_pow(self.ctx._ptr, self._p, n))

    def __eq__(self, other):
        return isinstance(other, Expr) and other.ctx is self.ctx and \
            other._ptr == self._ptr

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return lib.sc_expr_hash(self._p)

    def __bool__(self):
        raise TypeError("the truth of an expression is a question for a "
                        "ShapeEnv (guard) or eval(); use == for identity")

    def __str__(self):
        return _lib.take_string(lib.sc_expr_to_str(self.ctx._ptr, self._p))

    def __repr__(self):
        return "Expr(%s)" % self

    def __int__(self):
        if not lib.sc_expr_is_int(self._p):
            raise TypeError("%s is not an integer constant" % self)
        with _Mpz() as z:
            lib.sc_expr_value_mpz(self._p, ctypes.byref(z.z))
            return z.value()

    __index__ = __int__

    @property
    def kind(self):
        return _KINDS[lib.sc_expr_node_kind(self._p)]

    @property
    def is_bool(self):
        return lib.sc_expr_is_bool(self._p)

    @property
    def is_int(self):
        return lib.sc_expr_is_int(self._p)

    @property
    def is_symbol(self):
        return lib.sc_expr_is_symbol(self._p)

    @property
    def name(self):
        if not lib.sc_expr_is_symbol(self._p):
            raise TypeError("%s is not a symbol" % self)
        return lib.sc_expr_symbol_name(self._p).decode()

    @property
    def args(self):
        p = self._p
        return tuple(Expr(self.ctx, lib.sc_expr_arg(p, i))
                     for i in range(lib.sc_expr_arg_count(p)))

    @property
    def degree(self):
        return lib.sc_expr_degree(self._p)

    @property
    def size(self):
        return lib.sc_expr_size(self._p)

    @property
    def free_symbols(self):
        p = self._p
        n = lib.sc_expr_free_symbols(p, None, 0)
        arr = (ctypes.c_void_p * max(n, 1))()
        lib.sc_expr_free_symbols(p, arr, n)
        return [Expr(self.ctx, arr[i]) for i in range(n)]

    def has_symbol(self, sym):
        return lib.sc_expr_has_symbol(self._p, self._other(sym))

    def cmp(self, other):
        """The canonical total order: <0, 0, >0."""
        return lib.sc_expr_cmp(self._p, self._other(other))

    def subs(self, mapping=None, **kw):
        """The expression with symbols replaced ({symbol or name: value})."""
        m = self.ctx._symmap({**(mapping or {}), **kw})
        try:
            return self.ctx._wrap(lib.sc_expr_subst(self.ctx._ptr, self._p, m))
        finally:
            lib.sc_symmap_free(m)

    def simplify(self, bounds=None):
        """Simplified over the symbols' bounds ({symbol: (lo, hi)}, None
        for infinity)."""
        b = self.ctx._bounds(bounds)
        try:
            return self.ctx._wrap(lib.sc_expr_simplify(self.ctx._ptr,
                                                       self._p, b))
        finally:
            if b:
                lib.sc_bounds_free(b)

    def range(self, bounds=None):
        """The Range of the expression given the symbols' bounds."""
        b = self.ctx._bounds(bounds)
        try:
            err = _lib.Error()
            with _CRange() as r:
                _check(lib.sc_expr_range(self.ctx._ptr, self._p, b,
                                         ctypes.byref(r.r),
                                         ctypes.byref(err)), err)
                return r.value()
        finally:
            if b:
                lib.sc_bounds_free(b)

    def eval(self, values=None, **kw):
        """The exact value with every symbol bound (an int, or a bool for
        a boolean expression).  UnboundError names a missing symbol."""
        m = self.ctx._symmap({**(values or {}), **kw})
        try:
            err = _lib.Error()
            with _Mpz() as z:
                _check(lib.sc_expr_eval(self.ctx._ptr, self._p, m,
                                        ctypes.byref(z.z),
                                        ctypes.byref(err)), err)
                v = z.value()
        finally:
            lib.sc_symmap_free(m)
        return bool(v) if self.is_bool else v

    def to_c(self, bounds=None):
        """A C expression over int64_t (helpers: symcut.c_prelude())."""
        b = self.ctx._bounds(bounds)
        out = ctypes.c_void_p()
        err = _lib.Error()
        try:
            _check(lib.sc_expr_to_c(self.ctx._ptr, self._p, b,
                                    ctypes.byref(out), ctypes.byref(err)),
                   err)
        finally:
            if b:
                lib.sc_bounds_free(b)
        return _lib.take_string(out.value)


def c_prelude():
    return lib.sc_expr_c_prelude().decode()


def _nary(fn, ctx, args):
    if not args:
        raise ValueError("at least one argument")
    ctx = ctx or next((a.ctx for a in args if isinstance(a, Expr)), None)
    if ctx is None:
        raise TypeError("at least one argument must be an Expr")
    acc = ctx.expr(args[0])
    for a in args[1:]:
        acc = acc._bin(fn, a)
    return acc


def Min(*args):
    return _nary(lib.sc_expr_min, None, args)


def Max(*args):
    return _nary(lib.sc_expr_max, None, args)


def Mod(a, b):
    return _nary(lib.sc_expr_mod, None, (a, b))


def FloorDiv(a, b):
    return _nary(lib.sc_expr_floordiv, None, (a, b))


def CeilDiv(a, b):
    return _nary(lib.sc_expr_ceildiv, None, (a, b))


def Eq(a, b):
    return _nary(lib.sc_expr_eq, None, (a, b))


def Ne(a, b):
    return _nary(lib.sc_expr_ne, None, (a, b))


def And(*args):
    return _nary(lib.sc_expr_and, None, args)


def Or(*args):
    return _nary(lib.sc_expr_or, None, args)


def Not(a):
    return ~a


def parse(text, ctx=None, file=None, line=1):
    """Parse text in ctx (a new Context when None)."""
    return (ctx or Context()).parse(text, file, line)

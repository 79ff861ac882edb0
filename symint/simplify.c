/* symcut — transformations: substitution of expressions for symbols, and
 * simplification under symbol ranges.
 *
 * Both rebuild the expression bottom-up through the public constructors
 * (which canonicalise), memoised per call on shared subtrees, with an
 * explicit stack (one frame per level), so deep expressions are safe.  A
 * node whose children did not change is kept as it is: it is already
 * canonical.
 *
 * Simplification then applies, to every rebuilt node, the rules that the
 * ranges justify (each one sound for every binding inside the bounds):
 *  - a node whose range is one value is that constant (this decides
 *    FloorDiv/CeilDiv with a pinned quotient, Min/Max, relations, ...);
 *  - Mod(a, d) whose quotient floor(a / d) is one value q is a - q*d;
 *  - Min/Max drop an argument that another one dominates by range.
 * Where the original expression has no value (a zero divisor) the result
 * may have one. */
#include <string.h>

#include "symint/expr.h"


typedef struct sframe {
    sc_expr *e;
    uint32_t i; /* next child to look at */
} sframe;

typedef struct simp {
    sc_ctx *ctx;
    const sc_symmap *map;  /* substitution: the replacements */
    sc__ranger *ranger;    /* simplification: ranges; NULL otherwise */
    sc__memo *memo;        /* node -> index in res */
    sc_expr **res;
    size_t nres, res_cap;
    sframe *stack;
    size_t sp, stack_cap;
    sc_expr **buf;         /* arguments of the node being rebuilt */
    size_t buf_cap;
    sc_range q;            /* a quotient range */
} simp;

static sc_expr *nomem(simp *s)
{
    return sc__ctx_fail(s->ctx, SC_ERR_NOMEM, "out of memory");
}

/* Record a failure of the ranger (its message in err) in the context. */
static sc_expr *ranger_failed(simp *s, const sc_error *err)
{
    return sc__ctx_fail(s->ctx, err->code, "%s", err->message);
}

static bool reserve_buf(simp *s, size_t n)
{
    void *p = s->buf;
    if (!sc__grow(&p, &s->buf_cap, n, sizeof *s->buf))
        return false;
    s->buf = p;
    return true;
}

static sc_expr *int_node(sc_ctx *ctx, const sc__int *v)
{
    return v->big ? sc_expr_int_mpz(ctx, v->big)
                  : sc_expr_int_si(ctx, v->small);
}

static sc_expr *result(const simp *s, const sc_expr *e)
{
    return s->res[sc__memo_get(s->memo, e)];
}

/* e rebuilt from the results of its children (all in the memo). */
static sc_expr *rebuild(simp *s, sc_expr *e)
{
    sc_ctx *ctx = s->ctx;
    uint32_t i, n = e->nargs;
    bool changed = false;
    sc_expr *x, *zero;

    for (i = 0; i < n; i++)
        if (result(s, e->args[i]) != e->args[i])
            changed = true;
    if (!changed)
        return e;
    if (!reserve_buf(s, (size_t)n + 1))
        return nomem(s);
    switch ((sc_expr_kind)e->kind) {
    case SC_EXPR_ADD:
        s->buf[0] = int_node(ctx, &e->u.value);
        if (!s->buf[0])
            return NULL;
        for (i = 0; i < n; i++) {
            const sc__int *c = &e->coefs[i];
            x = result(s, e->args[i]);
            if (!c->big && c->small == 1)
                s->buf[i + 1] = x;
            else if (!c->big)
                s->buf[i + 1] = sc_expr_mul_si(ctx, x, c->small);
            else
                s->buf[i + 1] = sc_expr_mul(ctx, sc_expr_int_mpz(ctx, c->big),
                                            x);
            if (!s->buf[i + 1])
                return NULL;
        }
        return sc_expr_add_n(ctx, (size_t)n + 1, s->buf);
    case SC_EXPR_MUL:
        for (i = 0; i < n; i++) {
            x = result(s, e->args[i]);
            s->buf[i] = e->exps[i] == 1 ? x : sc_expr_pow(ctx, x, e->exps[i]);
            if (!s->buf[i])
                return NULL;
        }
        return sc_expr_mul_n(ctx, n, s->buf);
    case SC_EXPR_FLOORDIV:
    case SC_EXPR_CEILDIV:
    case SC_EXPR_MOD:
        x = result(s, e->args[1]);
        /* A divisor that is 0 wherever the bounds hold: the node has no
         * value there; keep the divisor's spelling rather than fail. */
        if (s->ranger && x->kind == SC_EXPR_INT && !x->u.value.big &&
            x->u.value.small == 0)
            x = e->args[1];
        if (e->kind == SC_EXPR_FLOORDIV)
            return sc_expr_floordiv(ctx, result(s, e->args[0]), x);
        if (e->kind == SC_EXPR_CEILDIV)
            return sc_expr_ceildiv(ctx, result(s, e->args[0]), x);
        return sc_expr_mod(ctx, result(s, e->args[0]), x);
    case SC_EXPR_EQ:
    case SC_EXPR_NE:
    case SC_EXPR_LE:
        zero = sc_expr_int_si(ctx, 0);
        x = result(s, e->args[0]);
        if (e->kind == SC_EXPR_EQ)
            return sc_expr_eq(ctx, x, zero);
        if (e->kind == SC_EXPR_NE)
            return sc_expr_ne(ctx, x, zero);
        return sc_expr_le(ctx, x, zero);
    case SC_EXPR_MIN:
    case SC_EXPR_MAX:
    case SC_EXPR_AND:
    case SC_EXPR_OR:
        for (i = 0; i < n; i++)
            s->buf[i] = result(s, e->args[i]);
        if (e->kind == SC_EXPR_MIN)
            return sc_expr_min_n(ctx, n, s->buf);
        if (e->kind == SC_EXPR_MAX)
            return sc_expr_max_n(ctx, n, s->buf);
        if (e->kind == SC_EXPR_AND)
            return sc_expr_and_n(ctx, n, s->buf);
        return sc_expr_or_n(ctx, n, s->buf);
    default:
        return e;
    }
}

static bool is_point(const sc_range *r)
{
    return !r->lo_inf && !r->hi_inf && mpz_cmp(r->lo, r->hi) == 0;
}

/* hi(a) <= lo(b): a <= b for every binding. */
static bool below(const sc_range *a, const sc_range *b)
{
    return !a->hi_inf && !b->lo_inf && mpz_cmp(a->hi, b->lo) <= 0;
}

/* Compare upper bounds (+inf largest), lower bounds (-inf smallest). */
static int cmp_hi(const sc_range *a, const sc_range *b)
{
    if (a->hi_inf || b->hi_inf)
        return (int)a->hi_inf - (int)b->hi_inf;
    return mpz_cmp(a->hi, b->hi);
}

static int cmp_lo(const sc_range *a, const sc_range *b)
{
    if (a->lo_inf || b->lo_inf)
        return (int)b->lo_inf - (int)a->lo_inf;
    return mpz_cmp(a->lo, b->lo);
}

/* Min/Max without the arguments that another one dominates: for Min, the
 * argument m of least upper bound is kept, and every other x with hi(m) <=
 * lo(x) goes (Max dually).  Returns r when nothing goes. */
static sc_expr *drop_dominated(simp *s, sc_expr *r)
{
    bool is_min = r->kind == SC_EXPR_MIN;
    const sc_range *rm = NULL, *ri;
    uint32_t i, m = 0;
    size_t kept = 0;
    sc_error err;

    for (i = 0; i < r->nargs; i++) {
        if (sc__ranger_range(s->ranger, r->args[i], &ri, &err) != SC_OK)
            return ranger_failed(s, &err);
        /* Min: least upper bound, then least lower bound (so that the
         * others tied with it can go when they are single values). */
        if (!rm ||
            (is_min ? cmp_hi(ri, rm) < 0 ||
                          (cmp_hi(ri, rm) == 0 && cmp_lo(ri, rm) < 0)
                    : cmp_lo(ri, rm) > 0 ||
                          (cmp_lo(ri, rm) == 0 && cmp_hi(ri, rm) > 0))) {
            rm = ri;
            m = i;
        }
    }
    if (!reserve_buf(s, r->nargs))
        return nomem(s);
    for (i = 0; i < r->nargs; i++) {
        if (sc__ranger_range(s->ranger, r->args[i], &ri, &err) != SC_OK)
            return ranger_failed(s, &err);
        if (i == m || !(is_min ? below(rm, ri) : below(ri, rm)))
            s->buf[kept++] = r->args[i];
    }
    if (kept == r->nargs)
        return r;
    return is_min ? sc_expr_min_n(s->ctx, kept, s->buf)
                  : sc_expr_max_n(s->ctx, kept, s->buf);
}

/* Mod(a, d) whose quotient is one value q: a - q*d. */
static sc_expr *mod_pinned(simp *s, sc_expr *r)
{
    sc_expr *a = r->args[0], *d = r->args[1], *qd;
    sc_error err;

    if (sc__ranger_floordiv(s->ranger, a, d, &s->q, &err) != SC_OK)
        return ranger_failed(s, &err);
    if (!is_point(&s->q))
        return r;
    if (mpz_sgn(s->q.lo) == 0)
        return a;
    qd = sc_expr_mul(s->ctx, sc_expr_int_mpz(s->ctx, s->q.lo), d);
    return sc_expr_sub(s->ctx, a, qd);
}

/* The range rules applied to the rebuilt node r. */
static sc_expr *refine(simp *s, sc_expr *r)
{
    const sc_range *rr;
    sc_error err;

    switch ((sc_expr_kind)r->kind) {
    case SC_EXPR_INT:
    case SC_EXPR_TRUE:
    case SC_EXPR_FALSE:
        return r;
    default:
        break;
    }
    if (sc__ranger_range(s->ranger, r, &rr, &err) != SC_OK)
        return ranger_failed(s, &err);
    if (sc_range_is_empty(rr))
        return r; /* no binding satisfies the bounds */
    if (is_point(rr)) {
        if (r->is_bool)
            return sc_expr_bool(s->ctx, mpz_sgn(rr->lo) != 0);
        return sc_expr_int_mpz(s->ctx, rr->lo);
    }
    switch ((sc_expr_kind)r->kind) {
    case SC_EXPR_MOD:
        return mod_pinned(s, r);
    case SC_EXPR_MIN:
    case SC_EXPR_MAX:
        return drop_dominated(s, r);
    default:
        return r;
    }
}

/* The new expression for e, whose children are all done. */
static sc_expr *transform(simp *s, sc_expr *e)
{
    sc_expr *r = e;

    if (e->kind == SC_EXPR_SYMBOL && s->map) {
        r = sc_symmap_get(s->map, e);
        if (!r)
            r = e;
    } else if (e->nargs) {
        r = rebuild(s, e);
    }
    if (r && s->ranger)
        r = refine(s, r);
    return r;
}

static bool spush(simp *s, sc_expr *e)
{
    if (s->sp == s->stack_cap) {
        void *p = s->stack;
        if (!sc__grow(&p, &s->stack_cap, s->sp + 1, sizeof *s->stack))
            return false;
        s->stack = p;
    }
    s->stack[s->sp].e = e;
    s->stack[s->sp++].i = 0;
    return true;
}

static sc_expr *run(simp *s, sc_expr *root)
{
    if (!spush(s, root))
        return nomem(s);
    while (s->sp) {
        sframe *f = &s->stack[s->sp - 1];
        sc_expr *e = f->e, *r;

        while (f->i < e->nargs &&
               sc__memo_get(s->memo, e->args[f->i]) != SC__MEMO_NONE)
            f->i++;
        if (f->i < e->nargs) {
            if (!spush(s, e->args[f->i]))
                return nomem(s);
            continue;
        }
        r = transform(s, e);
        if (!r)
            return NULL;
        if (s->nres == s->res_cap) {
            void *p = s->res;
            if (!sc__grow(&p, &s->res_cap, s->nres + 1, sizeof *s->res))
                return nomem(s);
            s->res = p;
        }
        s->res[s->nres] = r;
        if (!sc__memo_put(s->memo, e, s->nres))
            return nomem(s);
        s->nres++;
        s->sp--;
    }
    return result(s, root);
}

static sc_expr *transform_root(sc_ctx *ctx, sc_expr *e,
                               const sc_symmap *map, bool simplify,
                               const sc_bounds *bounds)
{
    simp s;
    sc_expr *r = NULL;

    if (!ctx || !e)
        return NULL;
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    s.map = map;
    sc_range_init(&s.q); /* GMP >= 6.2: allocates nothing */
    s.memo = sc__memo_new();
    if (simplify)
        s.ranger = sc__ctx_ranger(ctx, bounds);
    if (!s.memo || (simplify && !s.ranger))
        nomem(&s);
    else
        r = run(&s, e);
    sc__ctx_ranger_done(ctx, s.ranger);
    sc__memo_free(s.memo);
    sc__free(s.res);
    sc__free(s.stack);
    sc__free(s.buf);
    sc_range_clear(&s.q);
    return r;
}

/* e with every symbol mapped in `map` replaced, re-canonicalised through
 * the constructors.  NULL on failure, recorded in ctx (e.g. a divisor that
 * becomes the constant 0).  Time: linear in the distinct nodes of e times
 * the cost of the constructors. */
sc_expr *sc_expr_subst(sc_ctx *ctx, sc_expr *e, const sc_symmap *map)
{
    if (!map)
        return e;
    return transform_root(ctx, e, map, false, NULL);
}

/* e simplified under bounds (NULL: every symbol unbounded); see the top
 * of this file for the rules.  NULL on failure, recorded in ctx. */
sc_expr *sc_expr_simplify(sc_ctx *ctx, sc_expr *e, const sc_bounds *bounds)
{
    return transform_root(ctx, e, NULL, true, bounds);
}

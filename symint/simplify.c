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
 *  - Min/Max drop an argument that another one dominates by range, or
 *    whose difference with another has a sign (FloorDiv terms rewritten
 *    with Mod: Max(x, 8*(x//8)) is x);
 *  - FloorDiv/Mod of a sum g*Q + R by d whose rest R has a range inside
 *    one block of g (g | d): (8*x + y)//16 is x//2 for 0 <= y < 8.
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

/* ---- FloorDiv and Mod of a sum with a bounded rest -------------------------
 * For a constant d > 0 and a sum a = g*Q + R where g (1 < g <= d, g | d)
 * divides the coefficients of Q's terms and the range of R lies in
 * [g*t, g*t + g - 1]: a == g*(Q + t) + (R - g*t) with 0 <= R - g*t < g,
 * so FloorDiv(a, d) == FloorDiv(Q + t, d/g) and Mod(a, d) == g*Mod(Q + t,
 * d/g) + R - g*t for every binding inside the bounds (floor((g*P + f) /
 * (g*m)) == floor(P / m) for integers P, m > 0 and 0 <= f < g).  With g ==
 * d the quotient is Q + t: a floor division by a large constant that
 * depends on one term only. */

static sc_expr *refine(simp *s, sc_expr *r);

/* refine for a node the constructors just built (NULL: failed). */
static sc_expr *refine_new(simp *s, sc_expr *r)
{
    return r ? refine(s, r) : NULL;
}

/* k * x for an integer k. */
static sc_expr *scaled(sc_ctx *ctx, const sc__int *k, sc_expr *x)
{
    if (!k->big)
        return sc_expr_mul_si(ctx, x, k->small);
    return sc_expr_mul(ctx, sc_expr_int_mpz(ctx, k->big), x);
}

/* The terms of the sum a whose coefficients g divides (in_q), each
 * divided by g, plus the constant c; or the other terms plus a's constant
 * (!in_q). */
static sc_expr *part_sum(simp *s, sc_expr *a, const sc__int *g, bool in_q,
                         const sc__int *c)
{
    sc_ctx *ctx = s->ctx;
    sc__int k;
    uint32_t i;
    size_t n = 0;
    bool divisible;

    if (!reserve_buf(s, (size_t)a->nargs + 1))
        return nomem(s);
    s->buf[n++] = sc__expr_int(ctx, in_q ? c : &a->u.value);
    if (!s->buf[0])
        return NULL;
    for (i = 0; i < a->nargs; i++) {
        if (!sc__int_divisible(ctx, &divisible, &a->coefs[i], g))
            return NULL;
        if (divisible != in_q)
            continue;
        k = a->coefs[i];
        if (in_q && !sc__int_divexact(ctx, &k, &k, g))
            return NULL;
        s->buf[n] = scaled(ctx, &k, a->args[i]);
        if (!s->buf[n++])
            return NULL;
    }
    return sc_expr_add_n(ctx, n, s->buf);
}

/* The next candidate factor below *best (0: none yet): the largest
 * gcd(k_i, d) > 1 under it.  False when there is none. */
static bool next_factor(sc_ctx *ctx, sc_expr *a, const sc__int *d,
                        sc__int *best, bool *failed)
{
    sc__int k, g;
    uint32_t i;
    bool found = false;

    *failed = false;
    for (i = 0; i < a->nargs; i++) {
        if (!sc__int_gcd(ctx, &k, &a->coefs[i], d)) {
            *failed = true;
            return false;
        }
        if (sc__int_cmp_si(&k, 1) > 0 &&
            (sc__int_sgn(best) == 0 || sc__int_cmp(&k, best) < 0) &&
            (!found || sc__int_cmp(&k, &g) > 0)) {
            g = k;
            found = true;
        }
    }
    if (found)
        *best = g;
    return found;
}

static sc_expr *div_bounded_rest_at(simp *s, sc_expr *r)
{
    sc_ctx *ctx = s->ctx;
    sc_expr *a = r->args[0], *b = r->args[1], *rest, *q, *m;
    const sc__int *d = &b->u.value;
    const sc_range *rr;
    sc_error err;
    sc__int g, t, lo, hi, top, zero, mq;
    uint32_t j;
    bool failed, divisible;

    sc__int_set_si(&g, 0);
    sc__int_set_si(&zero, 0);
    while (next_factor(ctx, a, d, &g, &failed)) {
        /* Some term must stay in the rest. */
        for (j = 0; j < a->nargs; j++) {
            if (!sc__int_divisible(ctx, &divisible, &a->coefs[j], &g))
                return NULL;
            if (!divisible)
                break;
        }
        if (j == a->nargs)
            continue;
        rest = part_sum(s, a, &g, false, &zero);
        if (!rest)
            return NULL;
        if (sc__ranger_range(s->ranger, rest, &rr, &err) != SC_OK)
            return ranger_failed(s, &err);
        if (rr->lo_inf || rr->hi_inf || sc_range_is_empty(rr))
            continue;
        sc__int_view_mpz(&lo, rr->lo);
        sc__int_view_mpz(&hi, rr->hi);
        /* t = floor(lo / g); the rest minus g*t must stay below g */
        if (!sc__int_floordiv(ctx, &t, &lo, &g) ||
            !sc__int_mul(ctx, &top, &t, &g) ||
            !sc__int_add(ctx, &top, &top, &g))
            return NULL;
        if (sc__int_cmp(&hi, &top) >= 0)
            continue;
        if (!sc__int_divexact(ctx, &mq, d, &g))
            return NULL;
        q = part_sum(s, a, &g, true, &t);
        m = q ? sc__expr_int(ctx, &mq) : NULL;
        if (!m)
            return NULL;
        if (r->kind == SC_EXPR_FLOORDIV)
            return refine_new(s, sc_expr_floordiv(ctx, q, m));
        q = refine_new(s, sc_expr_mod(ctx, q, m));
        if (!q || !sc__int_mul(ctx, &top, &t, &g) ||
            !sc__int_neg(ctx, &top, &top))
            return NULL;
        q = scaled(ctx, &g, q);
        m = sc__expr_int(ctx, &top);
        return q && m ? sc_expr_add(ctx, q, sc_expr_add(ctx, rest, m)) : NULL;
    }
    return failed ? NULL : r;
}

static sc_expr *div_bounded_rest(simp *s, sc_expr *r)
{
    sc__mark mark;
    sc_expr *x;

    if (r->args[1]->kind != SC_EXPR_INT || r->args[0]->kind != SC_EXPR_ADD ||
        sc__int_cmp_si(&r->args[1]->u.value, 1) <= 0 ||
        r->args[0]->nargs < 2)
        return r;
    mark = sc__ctx_mark(s->ctx);
    x = div_bounded_rest_at(s, r);
    sc__ctx_release(s->ctx, mark);
    return x;
}

/* ---- Min/Max of arguments whose difference has a sign ----------------------
 * x - y is rewritten with k*FloorDiv(u, d) as (k/d)*(u - Mod(u, d)) for a
 * constant d dividing k, so that x and a rounded multiple of x differ by
 * Mod terms whose ranges are known: Max(x, 8*(x//8)) is x for every x,
 * Min(x, 8*((x + 7)//8)) is x. */

/* x - y with the FloorDiv terms rewritten so. */
static sc_expr *diff_with_mods(simp *s, sc_expr *x, sc_expr *y)
{
    sc_ctx *ctx = s->ctx;
    sc_expr *e = sc_expr_sub(ctx, x, y), *t, *u;
    sc__int k;
    uint32_t i;
    size_t n = 0;
    bool divisible;

    if (!e || e->kind != SC_EXPR_ADD)
        return e;
    if (!reserve_buf(s, (size_t)e->nargs + 1))
        return nomem(s);
    s->buf[n++] = sc__expr_int(ctx, &e->u.value);
    if (!s->buf[0])
        return NULL;
    for (i = 0; i < e->nargs; i++) {
        t = e->args[i];
        k = e->coefs[i];
        if (t->kind == SC_EXPR_FLOORDIV && t->args[1]->kind == SC_EXPR_INT) {
            if (!sc__int_divisible(ctx, &divisible, &k, &t->args[1]->u.value))
                return NULL;
            if (divisible) {
                if (!sc__int_divexact(ctx, &k, &k, &t->args[1]->u.value))
                    return NULL;
                u = sc_expr_sub(ctx, t->args[0],
                                sc_expr_mod(ctx, t->args[0], t->args[1]));
                t = u;
                if (!t)
                    return NULL;
            }
        }
        s->buf[n] = scaled(ctx, &k, t);
        if (!s->buf[n++])
            return NULL;
    }
    return sc_expr_add_n(ctx, n, s->buf);
}

/* The sign of x - y over the bounds: 1 (>= 0), -1 (<= 0), 0 unknown; 2 on
 * failure (recorded). */
static int diff_sign(simp *s, sc_expr *x, sc_expr *y)
{
    sc__mark mark = sc__ctx_mark(s->ctx);
    sc_expr *e = diff_with_mods(s, x, y);
    const sc_range *rr;
    sc_error err;
    int sign = 2;

    sc__ctx_release(s->ctx, mark);
    if (!e)
        return 2;
    if (sc__ranger_range(s->ranger, e, &rr, &err) != SC_OK) {
        ranger_failed(s, &err);
        return 2;
    }
    if (!rr->lo_inf && mpz_sgn(rr->lo) >= 0)
        sign = 1;
    else if (!rr->hi_inf && mpz_sgn(rr->hi) <= 0)
        sign = -1;
    else
        sign = 0;
    return sign;
}

#define PAIRWISE_MAX 8 /* Min/Max with more arguments skip the pairs */

static sc_expr *drop_by_difference(simp *s, sc_expr *r)
{
    bool is_min = r->kind == SC_EXPR_MIN, drop[PAIRWISE_MAX] = {false};
    sc_expr *args[PAIRWISE_MAX];
    uint32_t i, j, n = r->nargs;
    size_t kept = 0;
    int sg;

    if (n < 2 || n > PAIRWISE_MAX)
        return r;
    memcpy(args, r->args, n * sizeof *args);
    for (i = 0; i < n; i++) {
        for (j = i + 1; j < n && !drop[i]; j++) {
            if (drop[j])
                continue;
            sg = diff_sign(s, args[i], args[j]);
            if (sg == 2)
                return NULL;
            /* sg 1: args[i] >= args[j] */
            if (sg == 1)
                drop[is_min ? i : j] = true;
            else if (sg == -1)
                drop[is_min ? j : i] = true;
        }
    }
    for (i = 0; i < n; i++)
        if (!drop[i])
            args[kept++] = args[i];
    if (kept == n)
        return r;
    return is_min ? sc_expr_min_n(s->ctx, kept, args)
                  : sc_expr_max_n(s->ctx, kept, args);
}

/* The range rules applied to the rebuilt node r. */
static sc_expr *refine(simp *s, sc_expr *r)
{
    const sc_range *rr;
    sc_expr *x;
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
        x = mod_pinned(s, r);
        return x == r ? div_bounded_rest(s, r) : x;
    case SC_EXPR_FLOORDIV:
        return div_bounded_rest(s, r);
    case SC_EXPR_MIN:
    case SC_EXPR_MAX:
        x = drop_dominated(s, r);
        if (x && (x->kind == SC_EXPR_MIN || x->kind == SC_EXPR_MAX))
            x = drop_by_difference(s, x);
        return x;
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

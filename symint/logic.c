/* symcut — boolean constructors: True/False, the relations (normalized to
 * `e == 0`, `e != 0`, `e <= 0`), And, Or, and Not (pushed inwards, so that
 * no Not node exists). */
#include <stdlib.h>
#include <string.h>

#include "symint/expr.h"

sc_expr *sc_expr_true(sc_ctx *ctx) { return ctx->true_; }
sc_expr *sc_expr_false(sc_ctx *ctx) { return ctx->false_; }

sc_expr *sc_expr_bool(sc_ctx *ctx, bool value)
{
    return value ? ctx->true_ : ctx->false_;
}

static sc_expr *type_error(sc_ctx *ctx, const char *op, bool want_bool)
{
    return sc__ctx_fail(ctx, SC_ERR_TYPE, "%s: %s where %s is expected", op,
                        want_bool ? "an integer" : "a boolean",
                        want_bool ? "a boolean" : "an integer");
}

/* ---- Relations ----------------------------------------------------------- */

static sc_expr *rel_node(sc_ctx *ctx, sc_expr_kind kind, sc_expr *e)
{
    sc_expr p;
    memset(&p, 0, sizeof p);
    p.kind = (uint8_t)kind;
    p.is_bool = 1;
    p.nargs = 1;
    p.args = &e;
    return sc__intern(ctx, &p);
}

/* The canonical `e kind 0`: coefficients divided by their gcd g (Le rounds
 * the constant up: g*f + c <= 0 iff f + ceil(c/g) <= 0), and for Eq/Ne a
 * positive leading coefficient. */
static sc_expr *rel_norm(sc_ctx *ctx, sc_expr_kind kind, sc_expr *e)
{
    sc__int g, c, one;
    uint32_t i;
    bool div;

    if (!e)
        return NULL;
    if (e->kind == SC_EXPR_INT) {
        int s = sc__int_sgn(&e->u.value);
        bool v = kind == SC_EXPR_EQ ? s == 0 : kind == SC_EXPR_NE ? s != 0
                                                                  : s <= 0;
        return v ? ctx->true_ : ctx->false_;
    }
    sc__int_set_si(&one, 1);
    if (e->kind == SC_EXPR_ADD) {
        g = e->coefs[0];
        if (!sc__int_abs(ctx, &g, &g))
            return NULL;
        for (i = 1; i < e->nargs && !sc__int_is_si(&g, 1); i++)
            if (!sc__int_gcd(ctx, &g, &g, &e->coefs[i]))
                return NULL;
        c = e->u.value;
        if (!sc__int_is_si(&g, 1)) {
            if (kind == SC_EXPR_LE) {
                if (!sc__int_ceildiv(ctx, &c, &c, &g))
                    return NULL;
                e = sc__expr_affine(ctx, e, &one, &g, &c);
            } else {
                if (!sc__int_divisible(ctx, &div, &c, &g))
                    return NULL;
                if (!div)
                    return kind == SC_EXPR_EQ ? ctx->false_ : ctx->true_;
                e = sc__expr_scale(ctx, e, &one, &g);
            }
            if (!e)
                return NULL;
        }
        if (kind != SC_EXPR_LE && e->kind == SC_EXPR_ADD &&
            sc__int_sgn(&e->coefs[0]) < 0) {
            sc__int_set_si(&one, -1);
            e = sc__expr_scale(ctx, e, &one, NULL);
            if (!e)
                return NULL;
        }
    }
    return rel_node(ctx, kind, e);
}

/* kind(ka*a + kb*b + c, 0) for the public relation constructors. */
static sc_expr *relation(sc_ctx *ctx, const char *op, sc_expr_kind kind,
                         sc_expr *a, int64_t ka, sc_expr *b, int64_t kb,
                         int64_t c)
{
    sc__mark mark;
    sc_expr *r;

    if (!a || !b)
        return NULL;
    if (a->is_bool || b->is_bool)
        return type_error(ctx, op, false);
    mark = sc__ctx_mark(ctx);
    r = rel_norm(ctx, kind, sc__expr_lin(ctx, a, ka, b, kb, c));
    sc__ctx_release(ctx, mark);
    return r;
}

static sc_expr *eq_uncached(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    return relation(ctx, "Eq", SC_EXPR_EQ, a, 1, b, -1, 0);
}

static sc_expr *ne_uncached(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    return relation(ctx, "Ne", SC_EXPR_NE, a, 1, b, -1, 0);
}

/* a < b  iff  a - b + 1 <= 0 */
static sc_expr *lt_uncached(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    return relation(ctx, "Lt", SC_EXPR_LE, a, 1, b, -1, 1);
}

static sc_expr *le_uncached(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    return relation(ctx, "Le", SC_EXPR_LE, a, 1, b, -1, 0);
}

/* a > b  iff  b - a + 1 <= 0 */
static sc_expr *gt_uncached(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    return relation(ctx, "Gt", SC_EXPR_LE, b, 1, a, -1, 1);
}

static sc_expr *ge_uncached(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    return relation(ctx, "Ge", SC_EXPR_LE, b, 1, a, -1, 0);
}

/* ---- And, Or, Not -------------------------------------------------------- */

static int cmp_expr_ptr(const void *a, const void *b)
{
    return sc_expr_cmp(*(sc_expr *const *)a, *(sc_expr *const *)b);
}

/* Is Le(y) the negation of Le(x), i.e. x + y == 1? */
static bool le_complementary(sc_ctx *ctx, const sc_expr *x, const sc_expr *y)
{
    sc__int c, n;
    const sc_expr *ex = x->args[0], *ey = y->args[0];
    uint32_t i;

    if (ex->kind == SC_EXPR_ADD && ey->kind == SC_EXPR_ADD) {
        if (ex->nargs != ey->nargs)
            return false;
        for (i = 0; i < ex->nargs; i++) {
            if (ex->args[i] != ey->args[i] ||
                !sc__int_neg(ctx, &n, &ey->coefs[i]) ||
                !sc__int_eq(&ex->coefs[i], &n))
                return false;
        }
        return sc__int_add(ctx, &c, &ex->u.value, &ey->u.value) &&
               sc__int_is_si(&c, 1);
    }
    /* x == t (coefficient 1, constant 0): y must be 1 - t. */
    if (ey->kind == SC_EXPR_ADD) {
        const sc_expr *t = ex;
        ex = ey;
        ey = t;
    }
    return ex->kind == SC_EXPR_ADD && ex->nargs == 1 && ex->args[0] == ey &&
           sc__int_is_si(&ex->coefs[0], -1) && sc__int_is_si(&ex->u.value, 1);
}

static bool complementary(sc_ctx *ctx, const sc_expr *x, const sc_expr *y)
{
    if ((x->kind == SC_EXPR_EQ && y->kind == SC_EXPR_NE) ||
        (x->kind == SC_EXPR_NE && y->kind == SC_EXPR_EQ))
        return x->args[0] == y->args[0];
    if (x->kind == SC_EXPR_LE && y->kind == SC_EXPR_LE)
        return le_complementary(ctx, x, y);
    return false;
}

#define COMPLEMENT_CHECK_MAX 32

/* Absorption: And(p, Or(p, q)) == p and Or(p, And(p, q)) == p.  Drops the
 * arguments of v (sorted, distinct) that are the dual junction of a list
 * containing another argument; returns the new count. */
static size_t drop_absorbed(sc_expr_kind kind, sc_expr **v, size_t m)
{
    sc_expr_kind dual = kind == SC_EXPR_AND ? SC_EXPR_OR : SC_EXPR_AND;
    size_t i, j, k, n = 0;
    bool drop;

    for (i = 0; i < m; i++) {
        drop = false;
        if (v[i]->kind == dual)
            for (j = 0; j < m && !drop; j++)
                for (k = 0; k < v[i]->nargs && !drop; k++)
                    drop = j != i && v[j] && v[i]->args[k] == v[j];
        if (drop)
            v[i] = NULL;
    }
    for (i = 0; i < m; i++)
        if (v[i])
            v[n++] = v[i];
    return n;
}

/* And / Or of n booleans: flattened, constants absorbed, sorted,
 * deduplicated; a relation together with its negation decides it. */
static sc_expr *junction(sc_ctx *ctx, sc_expr_kind kind, size_t n,
                         sc_expr *const *args)
{
    const char *name = kind == SC_EXPR_AND ? "And" : "Or";
    sc_expr *absorb = kind == SC_EXPR_AND ? ctx->false_ : ctx->true_;
    sc_expr *unit = kind == SC_EXPR_AND ? ctx->true_ : ctx->false_;
    sc__mark mark;
    sc_expr **v, *x, p, *r = NULL;
    size_t i, j, m = 0, k, total = 0;

    for (i = 0; i < n; i++)
        if (!args[i])
            return NULL;
    for (i = 0; i < n; i++)
        if (!args[i]->is_bool)
            return type_error(ctx, name, true);
    for (i = 0; i < n; i++)
        total += args[i]->kind == kind ? args[i]->nargs : 1;
    mark = sc__ctx_mark(ctx);
    v = total > SIZE_MAX / sizeof *v ? NULL
                                      : sc__ctx_scratch(ctx, (total + 1) *
                                                                 sizeof *v);
    if (!v) {
        sc__ctx_nomem(ctx);
        goto out;
    }
    for (i = 0; i < n; i++) {
        size_t cnt = args[i]->kind == kind ? args[i]->nargs : 1;
        for (j = 0; j < cnt; j++) {
            x = args[i]->kind == kind ? args[i]->args[j] : args[i];
            if (x == absorb) {
                r = absorb;
                goto out;
            }
            if (x != unit)
                v[m++] = x;
        }
    }
    if (m > 1)
        qsort(v, m, sizeof *v, cmp_expr_ptr);
    for (i = 0, k = 0; i < m; i++)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    m = k;
    if (m <= COMPLEMENT_CHECK_MAX) {
        for (i = 0; i < m; i++)
            for (j = i + 1; j < m; j++)
                if (complementary(ctx, v[i], v[j])) {
                    r = absorb;
                    goto out;
                }
        m = drop_absorbed(kind, v, m);
    }
    if (m == 0) {
        r = unit;
    } else if (m == 1) {
        r = v[0];
    } else if (m > UINT32_MAX) {
        sc__ctx_fail(ctx, SC_ERR_LIMIT, "too many arguments");
    } else {
        memset(&p, 0, sizeof p);
        p.kind = (uint8_t)kind;
        p.is_bool = 1;
        p.nargs = (uint32_t)m;
        p.args = v;
        r = sc__intern(ctx, &p);
    }
out:
    sc__ctx_release(ctx, mark);
    return r;
}

static sc_expr *and_uncached(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *v[2] = {a, b};
    return junction(ctx, SC_EXPR_AND, 2, v);
}

static sc_expr *or_uncached(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *v[2] = {a, b};
    return junction(ctx, SC_EXPR_OR, 2, v);
}

sc_expr *sc_expr_and_n(sc_ctx *ctx, size_t n, sc_expr *const *args)
{
    return junction(ctx, SC_EXPR_AND, n, args);
}

sc_expr *sc_expr_or_n(sc_ctx *ctx, size_t n, sc_expr *const *args)
{
    return junction(ctx, SC_EXPR_OR, n, args);
}

static sc_expr *not_core(sc_ctx *ctx, sc_expr *a)
{
    sc__mark mark;
    sc_expr **v, *r = NULL;
    uint32_t i;

    switch (a->kind) {
    case SC_EXPR_TRUE:
        return ctx->false_;
    case SC_EXPR_FALSE:
        return ctx->true_;
    case SC_EXPR_EQ:
        return rel_node(ctx, SC_EXPR_NE, a->args[0]);
    case SC_EXPR_NE:
        return rel_node(ctx, SC_EXPR_EQ, a->args[0]);
    case SC_EXPR_LE: /* not (e <= 0)  iff  1 - e <= 0 */
        return rel_norm(ctx, SC_EXPR_LE,
                        sc__expr_lin(ctx, a->args[0], -1, NULL, 0, 1));
    case SC_EXPR_AND:
    case SC_EXPR_OR:
        mark = sc__ctx_mark(ctx);
        v = sc__ctx_scratch(ctx, a->nargs * sizeof *v);
        if (v) {
            for (i = 0; i < a->nargs; i++)
                if (!(v[i] = not_core(ctx, a->args[i])))
                    break;
            if (i == a->nargs)
                r = junction(ctx,
                             a->kind == SC_EXPR_AND ? SC_EXPR_OR : SC_EXPR_AND,
                             a->nargs, v);
        }
        sc__ctx_release(ctx, mark);
        return r;
    default:
        return type_error(ctx, "Not", true);
    }
}

static sc_expr *not_uncached(sc_ctx *ctx, sc_expr *a)
{
    sc__mark mark;
    sc_expr *r;

    if (!a)
        return NULL;
    if (!a->is_bool)
        return type_error(ctx, "Not", true);
    mark = sc__ctx_mark(ctx);
    r = not_core(ctx, a);
    sc__ctx_release(ctx, mark);
    return r;
}

/* ---- Cached entry points (the context's operation cache, ctx.c) ---- */

sc_expr *sc_expr_eq(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *r;
    if (!ctx || !a || !b)
        return eq_uncached(ctx, a, b);
    if ((r = sc__opc_get(ctx, SC__OP_EQ, a, b)) != NULL)
        return r;
    r = eq_uncached(ctx, a, b);
    sc__opc_put(ctx, SC__OP_EQ, a, b, r);
    return r;
}

sc_expr *sc_expr_ne(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *r;
    if (!ctx || !a || !b)
        return ne_uncached(ctx, a, b);
    if ((r = sc__opc_get(ctx, SC__OP_NE, a, b)) != NULL)
        return r;
    r = ne_uncached(ctx, a, b);
    sc__opc_put(ctx, SC__OP_NE, a, b, r);
    return r;
}

sc_expr *sc_expr_lt(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *r;
    if (!ctx || !a || !b)
        return lt_uncached(ctx, a, b);
    if ((r = sc__opc_get(ctx, SC__OP_LT, a, b)) != NULL)
        return r;
    r = lt_uncached(ctx, a, b);
    sc__opc_put(ctx, SC__OP_LT, a, b, r);
    return r;
}

sc_expr *sc_expr_le(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *r;
    if (!ctx || !a || !b)
        return le_uncached(ctx, a, b);
    if ((r = sc__opc_get(ctx, SC__OP_LE, a, b)) != NULL)
        return r;
    r = le_uncached(ctx, a, b);
    sc__opc_put(ctx, SC__OP_LE, a, b, r);
    return r;
}

sc_expr *sc_expr_gt(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *r;
    if (!ctx || !a || !b)
        return gt_uncached(ctx, a, b);
    if ((r = sc__opc_get(ctx, SC__OP_GT, a, b)) != NULL)
        return r;
    r = gt_uncached(ctx, a, b);
    sc__opc_put(ctx, SC__OP_GT, a, b, r);
    return r;
}

sc_expr *sc_expr_ge(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *r;
    if (!ctx || !a || !b)
        return ge_uncached(ctx, a, b);
    if ((r = sc__opc_get(ctx, SC__OP_GE, a, b)) != NULL)
        return r;
    r = ge_uncached(ctx, a, b);
    sc__opc_put(ctx, SC__OP_GE, a, b, r);
    return r;
}

sc_expr *sc_expr_and(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *r;
    if (!ctx || !a || !b)
        return and_uncached(ctx, a, b);
    if ((r = sc__opc_get(ctx, SC__OP_AND, a, b)) != NULL)
        return r;
    r = and_uncached(ctx, a, b);
    sc__opc_put(ctx, SC__OP_AND, a, b, r);
    return r;
}

sc_expr *sc_expr_or(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *r;
    if (!ctx || !a || !b)
        return or_uncached(ctx, a, b);
    if ((r = sc__opc_get(ctx, SC__OP_OR, a, b)) != NULL)
        return r;
    r = or_uncached(ctx, a, b);
    sc__opc_put(ctx, SC__OP_OR, a, b, r);
    return r;
}

sc_expr *sc_expr_not(sc_ctx *ctx, sc_expr *a)
{
    sc_expr *r;
    if (!ctx || !a)
        return not_uncached(ctx, a);
    if ((r = sc__opc_get(ctx, SC__OP_NOT, a, NULL)) != NULL)
        return r;
    r = not_uncached(ctx, a);
    sc__opc_put(ctx, SC__OP_NOT, a, NULL, r);
    return r;
}

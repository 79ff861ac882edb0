/* symcut — integer constructors and their canonical forms: Add, Mul, Pow,
 * FloorDiv, CeilDiv, Mod, Min, Max.
 *
 * Every public constructor takes a scratch mark, works on arrays and
 * scratch integers of the context, interns its result and releases the
 * mark; on failure the reason is in the context and nothing was inserted
 * half-way. */
#include <stdlib.h>
#include <string.h>

#include "symint/expr.h"

/* coefficient * term (term is neither INT nor ADD), or base ** exponent. */
typedef struct term {
    sc_expr *t;
    sc__int k;
} term;

typedef struct power {
    sc_expr *b;
    uint64_t e;
} power;

/* Any integer expression seen as constant + sum k[i] * t[i]. */
typedef struct sum_view {
    sc__int c;
    size_t n;
    sc_expr *const *t;
    const sc__int *k;
    sc_expr *one_t;
} sum_view;

static const sc__int one_int = {1, NULL};
static const sc__int minus_one_int = {-1, NULL};

static void view_sum(sum_view *v, sc_expr *e)
{
    if (e->kind == SC_EXPR_ADD) {
        v->c = e->u.value;
        v->n = e->nargs;
        v->t = e->args;
        v->k = e->coefs;
    } else if (e->kind == SC_EXPR_INT) {
        v->c = e->u.value;
        v->n = 0;
        v->t = NULL;
        v->k = NULL;
    } else {
        sc__int_set_si(&v->c, 0);
        v->n = 1;
        v->one_t = e;
        v->t = &v->one_t;
        v->k = &one_int;
    }
}

static size_t nterms(const sc_expr *e)
{
    if (e->kind == SC_EXPR_ADD)
        return e->nargs;
    return e->kind != SC_EXPR_INT;
}

static sc_expr *type_error(sc_ctx *ctx, const char *op)
{
    return sc__ctx_fail(ctx, SC_ERR_TYPE,
                        "%s: a boolean where an integer is expected", op);
}

static inline void *scratch_array(sc_ctx *ctx, size_t n, size_t size)
{
    if (n > SIZE_MAX / size) {
        sc__ctx_nomem(ctx);
        return NULL;
    }
    return sc__ctx_scratch(ctx, n * size);
}

/* ---- Sums ---------------------------------------------------------------- */

/* The order of Add terms: total degree descending, then sc_expr_cmp. */
static int term_cmp(const sc_expr *a, const sc_expr *b)
{
    if (a == b)
        return 0;
    if (a->degree != b->degree)
        return a->degree > b->degree ? -1 : 1;
    return sc_expr_cmp(a, b);
}

static bool sort_terms(sc_ctx *ctx, term *v, size_t n)
{
    size_t i, j, w, lo, mid, hi, a, b, o;
    term x, *src, *dst, *tmp;

    for (i = 1; i < n; i++)
        if (term_cmp(v[i - 1].t, v[i].t) > 0)
            break;
    if (i >= n)
        return true;
    if (n <= 32) {
        for (; i < n; i++) {
            x = v[i];
            for (j = i; j > 0 && term_cmp(v[j - 1].t, x.t) > 0; j--)
                v[j] = v[j - 1];
            v[j] = x;
        }
        return true;
    }
    /* Bottom-up merge sort (stable). */
    tmp = scratch_array(ctx, n, sizeof *tmp);
    if (!tmp)
        return false;
    src = v;
    dst = tmp;
    for (w = 1; w < n; w *= 2) {
        for (lo = 0; lo < n; lo += 2 * w) {
            mid = lo + w < n ? lo + w : n;
            hi = lo + 2 * w < n ? lo + 2 * w : n;
            a = lo;
            b = mid;
            o = lo;
            while (a < mid && b < hi)
                dst[o++] = term_cmp(src[b].t, src[a].t) < 0 ? src[b++]
                                                            : src[a++];
            while (a < mid)
                dst[o++] = src[a++];
            while (b < hi)
                dst[o++] = src[b++];
        }
        tmp = src;
        src = dst;
        dst = tmp;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
    return true;
}

/* Sort v, combine like terms, drop zero coefficients. */
static bool normalize_terms(sc_ctx *ctx, term *v, size_t *n)
{
    size_t i, j = 0, m = 0;

    if (!sort_terms(ctx, v, *n))
        return false;
    for (i = 0; i < *n; i++) {
        if (j > 0 && v[j - 1].t == v[i].t) {
            if (!sc__int_add(ctx, &v[j - 1].k, &v[j - 1].k, &v[i].k))
                return false;
        } else {
            v[j++] = v[i];
        }
    }
    for (i = 0; i < j; i++)
        if (sc__int_sgn(&v[i].k) != 0)
            v[m++] = v[i];
    *n = m;
    return true;
}

#define SMALL_NODE 8 /* arguments of a prototype kept on the stack */

/* The node c + sum v[i] for normalized terms v. */
static sc_expr *make_sum(sc_ctx *ctx, const sc__int *c, const term *v,
                         size_t n)
{
    sc__mark mark;
    sc_expr p, **args, *r, *args_buf[SMALL_NODE];
    sc__int *coefs, coefs_buf[SMALL_NODE];
    size_t i;

    if (n == 0)
        return sc__expr_int(ctx, c);
    if (n == 1 && sc__int_sgn(c) == 0 && sc__int_is_si(&v[0].k, 1))
        return v[0].t;
    if (n > UINT32_MAX)
        return sc__ctx_fail(ctx, SC_ERR_LIMIT, "too many terms in a sum");
    mark = sc__ctx_mark(ctx);
    if (n <= SMALL_NODE) {
        args = args_buf;
        coefs = coefs_buf;
    } else {
        args = scratch_array(ctx, n, sizeof *args);
        coefs = scratch_array(ctx, n, sizeof *coefs);
    }
    if (!args || !coefs) {
        sc__ctx_release(ctx, mark);
        return NULL;
    }
    for (i = 0; i < n; i++) {
        args[i] = v[i].t;
        coefs[i] = v[i].k;
    }
    memset(&p, 0, sizeof p);
    p.kind = SC_EXPR_ADD;
    p.nargs = (uint32_t)n;
    p.args = args;
    p.coefs = coefs;
    p.u.value = *c;
    r = sc__intern(ctx, &p);
    sc__ctx_release(ctx, mark);
    return r;
}

/* Append s * e to the terms v[*n...] and the constant *c (s NULL: 1). */
static bool push_scaled(sc_ctx *ctx, term *v, size_t *n, sc__int *c,
                        sc_expr *e, const sc__int *s)
{
    sum_view sv;
    sc__int x;
    size_t i;

    view_sum(&sv, e);
    if (sc__int_sgn(&sv.c) != 0) {
        if (s && !sc__int_mul(ctx, &x, &sv.c, s))
            return false;
        if (!sc__int_add(ctx, c, c, s ? &x : &sv.c))
            return false;
    }
    for (i = 0; i < sv.n; i++) {
        v[*n].t = sv.t[i];
        if (s) {
            if (!sc__int_mul(ctx, &v[*n].k, &sv.k[i], s))
                return false;
        } else {
            v[*n].k = sv.k[i];
        }
        (*n)++;
    }
    return true;
}

static sc_expr *add_core(sc_ctx *ctx, size_t n, sc_expr *const *a,
                         const sc__int *s, const sc__int *c0);

/* c + sum v with k*d*FloorDiv(x, d) + k*Mod(x, d) replaced by k*x (for a
 * constant d: x == d*(x // d) + x % d for every integer x). */
static sc_expr *recombine_divmod(sc_ctx *ctx, term *v, size_t n,
                                 const sc__int *c)
{
    size_t i, j, m;
    sc__int kd;
    sc_expr **args, *mod, *div;
    sc__int *scale;

    for (i = 0; i < n; i++) {
        mod = v[i].t;
        if (mod->kind != SC_EXPR_MOD || mod->args[1]->kind != SC_EXPR_INT)
            continue;
        if (!sc__int_mul(ctx, &kd, &v[i].k, &mod->args[1]->u.value))
            return NULL;
        for (j = 0; j < n; j++) {
            div = v[j].t;
            if (div->kind == SC_EXPR_FLOORDIV && div->args[0] == mod->args[0] &&
                div->args[1] == mod->args[1] && sc__int_eq(&v[j].k, &kd))
                break;
        }
        if (j == n)
            continue;
        args = scratch_array(ctx, n, sizeof *args);
        scale = scratch_array(ctx, n, sizeof *scale);
        if (!args || !scale)
            return NULL;
        for (m = 0, j = 0; j < n; j++) {
            if (v[j].t == div)
                continue;
            args[m] = v[j].t == mod ? mod->args[0] : v[j].t;
            scale[m++] = v[j].k;
        }
        return add_core(ctx, m, args, scale, c);
    }
    return make_sum(ctx, c, v, n);
}

/* c0 + sum s[i] * a[i] (s NULL: all 1; c0 NULL: 0). */
static sc_expr *add_core(sc_ctx *ctx, size_t n, sc_expr *const *a,
                         const sc__int *s, const sc__int *c0)
{
    size_t i, total = 0, m = 0;
    sc__int c;
    term *v;

    for (i = 0; i < n; i++)
        total += nterms(a[i]);
    v = scratch_array(ctx, total ? total : 1, sizeof *v);
    if (!v)
        return NULL;
    if (c0)
        c = *c0;
    else
        sc__int_set_si(&c, 0);
    for (i = 0; i < n; i++)
        if (!push_scaled(ctx, v, &m, &c, a[i], s ? &s[i] : NULL))
            return NULL;
    if (!normalize_terms(ctx, v, &m))
        return NULL;
    for (i = 0; i < m; i++)
        if (v[i].t->kind == SC_EXPR_MOD)
            return recombine_divmod(ctx, v, m, &c);
    return make_sum(ctx, &c, v, m);
}

/* x + k for a node x and a small k (x's constant small), when that needs
 * no sorting or combining: the terms of x stay as they are (x has no Mod
 * term, so recombine_divmod has nothing to do); what add_core would build,
 * without its scratch arrays.  NULL with nothing recorded when the fast
 * path does not apply (*applies false) or on failure (*applies true). */
static sc_expr *add_const_fast(sc_ctx *ctx, sc_expr *x, int64_t k,
                               bool *applies)
{
    sc_expr p;
    sc__int c;
    int64_t xc = 0, sum;
    uint32_t i;

    *applies = false;
    if (x->kind == SC_EXPR_INT || x->kind == SC_EXPR_ADD) {
        if (x->u.value.big)
            return NULL;
        xc = x->u.value.small;
    }
    if (__builtin_add_overflow(xc, k, &sum))
        return NULL;
    sc__int_set_si(&c, sum);
    if (x->kind == SC_EXPR_INT) {
        *applies = true;
        return sc__expr_int(ctx, &c);
    }
    if (x->kind != SC_EXPR_ADD) {
        *applies = true;
        if (sum == 0)
            return x;
        memset(&p, 0, sizeof p);
        p.kind = SC_EXPR_ADD;
        p.nargs = 1;
        p.args = &x;
        p.coefs = (sc__int *)&one_int;
        p.u.value = c;
        return sc__intern(ctx, &p);
    }
    for (i = 0; i < x->nargs; i++)
        if (x->args[i]->kind == SC_EXPR_MOD)
            return NULL;
    *applies = true;
    if (x->nargs == 1 && sum == 0 && sc__int_is_si(&x->coefs[0], 1))
        return x->args[0];
    p = *x;
    p.chain = NULL;
    p.u.value = c;
    return sc__intern(ctx, &p);
}

sc_expr *sc__expr_lin(sc_ctx *ctx, sc_expr *a, int64_t ka, sc_expr *b,
                      int64_t kb, int64_t c)
{
    sc_expr *args[2];
    sc__int s[2], cc;
    sc__mark mark;
    sc_expr *r;
    bool applies;
    int64_t k;

    /* a + k*INT + c and INT + b + c: a constant added to a node. */
    if (ka == 1 && (!b || (b->kind == SC_EXPR_INT && !b->u.value.big))) {
        if ((!b || !__builtin_mul_overflow(b->u.value.small, kb, &k)) &&
            !__builtin_add_overflow(b ? k : 0, c, &k)) {
            r = add_const_fast(ctx, a, k, &applies);
            if (applies)
                return r;
        }
    } else if (kb == 1 && a->kind == SC_EXPR_INT && !a->u.value.big &&
               !__builtin_mul_overflow(a->u.value.small, ka, &k) &&
               !__builtin_add_overflow(k, c, &k)) {
        r = add_const_fast(ctx, b, k, &applies);
        if (applies)
            return r;
    }
    mark = sc__ctx_mark(ctx);

    args[0] = a;
    args[1] = b;
    sc__int_set_si(&s[0], ka);
    sc__int_set_si(&s[1], kb);
    sc__int_set_si(&cc, c);
    r = add_core(ctx, b ? 2 : 1, args, ka == 1 && kb == 1 ? NULL : s, &cc);
    sc__ctx_release(ctx, mark);
    return r;
}

sc_expr *sc__expr_add_signed(sc_ctx *ctx, size_t n, sc_expr *const *args,
                             const bool *neg)
{
    sc__mark mark;
    sc__int *s;
    sc_expr *r = NULL;
    size_t i;
    unsigned op = n == 3 ? SC__OP_SUM3 + 2u * neg[1] + neg[2] : 0;
    sc_expr *x = NULL;
    int64_t k = 0, v;
    bool applies;

    /* Constants and at most one other (added) term: that term plus one
     * constant, without the scratch arrays and the sort. */
    for (i = 0; i < n; i++) {
        if (args[i]->kind != SC_EXPR_INT) {
            if (x || neg[i])
                break;
            x = args[i];
        } else if (args[i]->u.value.big ||
                   (neg[i] ? __builtin_sub_overflow(k, args[i]->u.value.small,
                                                    &v)
                           : __builtin_add_overflow(k, args[i]->u.value.small,
                                                    &v))) {
            break;
        } else {
            k = v;
        }
    }
    if (i == n) {
        if (!x) {
            sc__int c;
            sc__int_set_si(&c, k);
            return sc__expr_int(ctx, &c);
        }
        r = add_const_fast(ctx, x, k, &applies);
        if (applies)
            return r;
    }
    if (n == 3 && !neg[0] && (r = sc__opc_get3(ctx, op, args[0], args[1],
                                               args[2])) != NULL)
        return r;
    mark = sc__ctx_mark(ctx);
    s = scratch_array(ctx, n, sizeof *s);
    if (s) {
        for (i = 0; i < n; i++)
            s[i] = neg[i] ? minus_one_int : one_int;
        r = add_core(ctx, n, args, s, NULL);
    }
    sc__ctx_release(ctx, mark);
    if (n == 3 && !neg[0])
        sc__opc_put3(ctx, op, args[0], args[1], args[2], r);
    return r;
}

sc_expr *sc__expr_affine(sc_ctx *ctx, sc_expr *e, const sc__int *m,
                         const sc__int *d, const sc__int *c)
{
    sc__mark mark;
    sum_view sv;
    term *v;
    sc_expr *r = NULL;
    size_t i;

    if (sc__int_sgn(m) == 0)
        return sc__expr_int(ctx, c);
    mark = sc__ctx_mark(ctx);
    view_sum(&sv, e);
    v = scratch_array(ctx, sv.n ? sv.n : 1, sizeof *v);
    if (!v)
        goto out;
    for (i = 0; i < sv.n; i++) {
        v[i].t = sv.t[i];
        if (!sc__int_mul(ctx, &v[i].k, &sv.k[i], m) ||
            (d && !sc__int_divexact(ctx, &v[i].k, &v[i].k, d)))
            goto out;
    }
    /* Scaling by a nonzero factor keeps the order and no term vanishes. */
    r = make_sum(ctx, c, v, sv.n);
out:
    sc__ctx_release(ctx, mark);
    return r;
}

sc_expr *sc_expr_add_terms_divexact(sc_ctx *ctx, sc_expr *e, mpz_srcptr d)
{
    sc__int di, one, zero;
    sc__mark mark;
    bool ok = true;
    uint32_t i;

    if (!ctx || !e)
        return NULL;
    if (e->kind != SC_EXPR_ADD)
        return sc__ctx_fail(ctx, SC_ERR_INVALID, "not a sum");
    if (mpz_sgn(d) == 0)
        return sc__ctx_fail(ctx, SC_ERR_DIV_ZERO, "division by zero");
    sc__int_view_mpz(&di, d);
    mark = sc__ctx_mark(ctx);
    for (i = 0; i < e->nargs && ok; i++)
        if (!sc__int_divisible(ctx, &ok, &e->coefs[i], &di)) {
            sc__ctx_release(ctx, mark);
            return NULL;
        }
    sc__ctx_release(ctx, mark);
    if (!ok)
        return sc__ctx_fail(ctx, SC_ERR_INVALID,
                            "the divisor does not divide every coefficient");
    sc__int_set_si(&one, 1);
    sc__int_set_si(&zero, 0);
    return sc__expr_affine(ctx, e, &one, mpz_cmp_ui(d, 1) == 0 ? NULL : &di,
                           &zero);
}

sc_expr *sc__expr_scale(sc_ctx *ctx, sc_expr *e, const sc__int *m,
                        const sc__int *d)
{
    sc__mark mark;
    sc__int c;
    sc_expr *r = NULL;

    if (sc__int_is_si(m, 1) && (!d || sc__int_is_si(d, 1)))
        return e;
    mark = sc__ctx_mark(ctx);
    if (e->kind == SC_EXPR_ADD || e->kind == SC_EXPR_INT)
        c = e->u.value;
    else
        sc__int_set_si(&c, 0);
    if (sc__int_mul(ctx, &c, &c, m) &&
        (!d || sc__int_divexact(ctx, &c, &c, d)))
        r = sc__expr_affine(ctx, e, m, d, &c);
    sc__ctx_release(ctx, mark);
    return r;
}

bool sc__expr_content(sc_ctx *ctx, sc__int *g, const sc_expr *e)
{
    uint32_t i;

    if (e->kind == SC_EXPR_INT)
        return sc__int_abs(ctx, g, &e->u.value);
    if (e->kind != SC_EXPR_ADD) {
        sc__int_set_si(g, 1);
        return true;
    }
    if (!sc__int_abs(ctx, g, &e->u.value))
        return false;
    for (i = 0; i < e->nargs && !sc__int_is_si(g, 1); i++)
        if (!sc__int_gcd(ctx, g, g, &e->coefs[i]))
            return false;
    return true;
}

/* ---- Public sums --------------------------------------------------------- */

#define CHECK_INT1(a, op)                                                    \
    do {                                                                     \
        if (!(a))                                                            \
            return NULL;                                                     \
        if ((a)->is_bool)                                                    \
            return type_error(ctx, op);                                      \
    } while (0)

#define CHECK_INT2(a, b, op)                                                 \
    do {                                                                     \
        if (!(a) || !(b))                                                    \
            return NULL;                                                     \
        if ((a)->is_bool || (b)->is_bool)                                    \
            return type_error(ctx, op);                                      \
    } while (0)

static sc_expr *add_uncached(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    CHECK_INT2(a, b, "+");
    return sc__expr_lin(ctx, a, 1, b, 1, 0);
}

static sc_expr *sub_uncached(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    CHECK_INT2(a, b, "-");
    return sc__expr_lin(ctx, a, 1, b, -1, 0);
}

sc_expr *sc_expr_add_si(sc_ctx *ctx, sc_expr *a, int64_t b)
{
    CHECK_INT1(a, "+");
    if (b == 0)
        return a;
    return sc__expr_lin(ctx, a, 1, NULL, 0, b);
}

static sc_expr *neg_uncached(sc_ctx *ctx, sc_expr *a)
{
    sc__int m;
    CHECK_INT1(a, "-");
    sc__int_set_si(&m, -1);
    return sc__expr_scale(ctx, a, &m, NULL);
}

sc_expr *sc_expr_mul_si(sc_ctx *ctx, sc_expr *a, int64_t b)
{
    sc__int m;
    CHECK_INT1(a, "*");
    sc__int_set_si(&m, b);
    return sc__expr_scale(ctx, a, &m, NULL);
}

sc_expr *sc_expr_add_n(sc_ctx *ctx, size_t n, sc_expr *const *args)
{
    sc__mark mark;
    sc_expr *r;
    size_t i;

    for (i = 0; i < n; i++)
        if (!args[i])
            return NULL;
    for (i = 0; i < n; i++)
        if (args[i]->is_bool)
            return type_error(ctx, "+");
    mark = sc__ctx_mark(ctx);
    r = add_core(ctx, n, args, NULL, NULL);
    sc__ctx_release(ctx, mark);
    return r;
}

/* ---- Products ------------------------------------------------------------ */

static bool exp_mul(sc_ctx *ctx, uint64_t *r, uint64_t a, uint64_t b)
{
    if (__builtin_mul_overflow(a, b, r) || *r > SC__MAX_EXPONENT) {
        sc__ctx_fail(ctx, SC_ERR_LIMIT,
                     "exponent too large (the limit is 2**32)");
        return false;
    }
    return true;
}

/* Append base ** e for a monomial base: a Mul's bases, or the atom. */
static bool push_mono(sc_ctx *ctx, power *v, size_t *n, sc_expr *x,
                      uint64_t e)
{
    uint32_t i;
    if (x->kind != SC_EXPR_MUL) {
        v[*n].b = x;
        v[(*n)++].e = e;
        return true;
    }
    for (i = 0; i < x->nargs; i++) {
        v[*n].b = x->args[i];
        if (!exp_mul(ctx, &v[*n].e, x->exps[i], e))
            return false;
        (*n)++;
    }
    return true;
}

/* The monomial prod v[i].b ** v[i].e (sorted and combined here). */
static sc_expr *make_mono(sc_ctx *ctx, power *v, size_t n)
{
    size_t i, j, m = 0;
    power x;
    sc_expr p, **args, *args_buf[SMALL_NODE];
    uint64_t *exps, exps_buf[SMALL_NODE];
    sc__mark mark;
    sc_expr *r;

    for (i = 1; i < n; i++) {
        x = v[i];
        for (j = i; j > 0 && sc_expr_cmp(v[j - 1].b, x.b) > 0; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
    for (i = 0; i < n; i++) {
        if (m > 0 && v[m - 1].b == v[i].b) {
            v[m - 1].e += v[i].e;
            if (v[m - 1].e > SC__MAX_EXPONENT || v[m - 1].e < v[i].e)
                return sc__ctx_fail(ctx, SC_ERR_LIMIT,
                                    "exponent too large (the limit is 2**32)");
        } else {
            v[m++] = v[i];
        }
    }
    if (m == 0)
        return ctx->one;
    if (m == 1 && v[0].e == 1)
        return v[0].b;
    if (m > UINT32_MAX)
        return sc__ctx_fail(ctx, SC_ERR_LIMIT, "too many factors");
    mark = sc__ctx_mark(ctx);
    if (m <= SMALL_NODE) {
        args = args_buf;
        exps = exps_buf;
    } else {
        args = scratch_array(ctx, m, sizeof *args);
        exps = scratch_array(ctx, m, sizeof *exps);
    }
    if (!args || !exps) {
        sc__ctx_release(ctx, mark);
        return NULL;
    }
    for (i = 0; i < m; i++) {
        args[i] = v[i].b;
        exps[i] = v[i].e;
    }
    memset(&p, 0, sizeof p);
    p.kind = SC_EXPR_MUL;
    p.nargs = (uint32_t)m;
    p.args = args;
    p.exps = exps;
    r = sc__intern(ctx, &p);
    sc__ctx_release(ctx, mark);
    return r;
}

/* x * y for monomials (NULL stands for 1). */
static sc_expr *mono_mul(sc_ctx *ctx, sc_expr *x, sc_expr *y)
{
    sc__mark mark;
    power *v;
    size_t n = 0;
    sc_expr *r = NULL;

    if (!x)
        return y;
    if (!y)
        return x;
    mark = sc__ctx_mark(ctx);
    v = scratch_array(ctx, (x->kind == SC_EXPR_MUL ? x->nargs : 1) +
                               (y->kind == SC_EXPR_MUL ? y->nargs : 1),
                      sizeof *v);
    if (v && push_mono(ctx, v, &n, x, 1) && push_mono(ctx, v, &n, y, 1))
        r = make_mono(ctx, v, n);
    sc__ctx_release(ctx, mark);
    return r;
}

/* k * m for a monomial m (ctx->one for 1). */
static sc_expr *coef_mono(sc_ctx *ctx, const sc__int *k, sc_expr *m)
{
    term t;
    sc__int zero;

    if (!m)
        return NULL;
    if (m == ctx->one || sc__int_sgn(k) == 0)
        return sc__expr_int(ctx, k);
    sc__int_set_si(&zero, 0);
    t.t = m;
    t.k = *k;
    return make_sum(ctx, &zero, &t, 1);
}

/* The number of terms of a sum, its constant included. */
static size_t sum_terms(const sc_expr *a)
{
    return a->nargs + (sc__int_sgn(&a->u.value) != 0);
}

static bool expand_too_large(sc_ctx *ctx, size_t limit)
{
    sc__ctx_fail(ctx, SC_ERR_LIMIT,
                 "product too large to expand (more than %zu terms)", limit);
    return false;
}

/* The limits of one product's expansion (see mul_core). */
typedef struct expand_limits {
    size_t terms;  /* terms after a step */
    size_t raw;    /* products formed in one step */
    size_t budget; /* products formed in all, what is left */
    size_t bases;  /* bases of the product monomials in one step */
    size_t bases_budget; /* the same in all, what is left */
} expand_limits;

/* The bases of a term (a product's factors; 1 for an atom). */
static size_t term_bases(const sc_expr *t)
{
    return t->kind == SC_EXPR_MUL ? t->nargs : 1;
}

/* The 64-bit words of big coefficients a step P * A forms at most:
 * products times the words of a product of the largest coefficients of
 * each side (constants included); 0 when those fit 128 bits (no product
 * is big enough to matter); SIZE_MAX when it does not fit. */
static size_t step_words(const term *pv, size_t pn, const sc__int *pc,
                         const sum_view *av)
{
    size_t bp = sc__int_bits(pc), ba = sc__int_bits(&av->c), i, b, out;

    for (i = 0; i < pn; i++)
        if ((b = sc__int_bits(&pv[i].k)) > bp)
            bp = b;
    for (i = 0; i < av->n; i++)
        if ((b = sc__int_bits(&av->k[i])) > ba)
            ba = b;
    if (bp + ba <= 128)
        return 0;
    if (__builtin_mul_overflow((pn + 1) * (av->n + 1), (bp + ba) / 64 + 1,
                               &out))
        return SIZE_MAX;
    return out;
}

/* The bases the products of a step P * A form in all, sum over i, j of
 * bases(P_i) + bases(A_j) (the constants have none): known before the
 * step; SIZE_MAX when it does not fit. */
static size_t step_bases(const term *pv, size_t pn, const sum_view *av)
{
    size_t bp = 0, ba = 0, i, x, y;

    for (i = 0; i < pn; i++)
        bp += term_bases(pv[i].t);
    for (i = 0; i < av->n; i++)
        ba += term_bases(av->t[i]);
    if (__builtin_mul_overflow(bp, av->n + 1, &x) ||
        __builtin_mul_overflow(ba, pn + 1, &y) ||
        __builtin_add_overflow(x, y, &x))
        return SIZE_MAX;
    return x;
}

/* P * A for a term list P (with constant *pc) and a sum A, normalized;
 * fails (SC_ERR_LIMIT) when the step would form more than lim->raw
 * products or more than are left in lim->budget (a product with a big
 * coefficient counting one more per 64-bit word), or monomials with more
 * than lim->bases bases in all or more than are left in
 * lim->bases_budget, or, by the largest coefficients, possibly more than
 * lim->raw words of big coefficients (these three decided before the
 * step: a product of big sums of long monomials or of huge coefficients
 * fails without forming them), or its result has more than lim->terms
 * terms. */
static bool expand_step(sc_ctx *ctx, term **pv, size_t *pn, sc__int *pc,
                        sc_expr *a, expand_limits *lim)
{
    sum_view av;
    term *q;
    size_t i, j, n = 0, nbases;
    sc__int qc, k;
    sc_expr *t;

    view_sum(&av, a);
    if ((*pn + 1) > lim->raw / (av.n + 1) ||
        (*pn + 1) * (av.n + 1) > lim->budget)
        return expand_too_large(ctx, lim->terms);
    nbases = step_bases(*pv, *pn, &av);
    if (nbases > lim->bases || nbases > lim->bases_budget ||
        step_words(*pv, *pn, pc, &av) > lim->raw)
        return expand_too_large(ctx, lim->terms);
    lim->budget -= (*pn + 1) * (av.n + 1);
    lim->bases_budget -= nbases;
    q = scratch_array(ctx, (*pn + 1) * (av.n + 1), sizeof *q);
    if (!q)
        return false;
    sc__int_set_si(&qc, 0);
    for (i = 0; i <= *pn; i++) {
        const sc__int *ik = i < *pn ? &(*pv)[i].k : pc;
        sc_expr *it = i < *pn ? (*pv)[i].t : NULL;
        if (sc__int_sgn(ik) == 0)
            continue;
        for (j = 0; j <= av.n; j++) {
            const sc__int *jk = j < av.n ? &av.k[j] : &av.c;
            sc_expr *jt = j < av.n ? av.t[j] : NULL;
            if (sc__int_sgn(jk) == 0)
                continue;
            if (!sc__int_mul(ctx, &k, ik, jk))
                return false;
            /* a big coefficient costs its size in 64-bit words */
            if (k.big) {
                size_t words = sc__int_bits(&k) / 64;
                if (words > lim->budget)
                    return expand_too_large(ctx, lim->terms);
                lim->budget -= words;
            }
            if (!it && !jt) {
                if (!sc__int_add(ctx, &qc, &qc, &k))
                    return false;
                continue;
            }
            t = mono_mul(ctx, it, jt);
            if (!t)
                return false;
            q[n].t = t;
            q[n++].k = k;
        }
    }
    if (!normalize_terms(ctx, q, &n))
        return false;
    if (n + (sc__int_sgn(&qc) != 0) > lim->terms)
        return expand_too_large(ctx, lim->terms);
    *pv = q;
    *pn = n;
    *pc = qc;
    return true;
}

/* x * y for nodes x and y (sums), expanded within the limits. */
static sc_expr *expand_mul2(sc_ctx *ctx, sc_expr *x, sc_expr *y,
                            expand_limits *lim)
{
    sum_view xv;
    term *pv;
    size_t i, pn;
    sc__int pc;

    view_sum(&xv, x);
    pv = scratch_array(ctx, xv.n ? xv.n : 1, sizeof *pv);
    if (!pv)
        return NULL;
    for (i = 0; i < xv.n; i++) {
        pv[i].t = xv.t[i];
        pv[i].k = xv.k[i];
    }
    pn = xv.n;
    pc = xv.c;
    if (!expand_step(ctx, &pv, &pn, &pc, y, lim))
        return NULL;
    return make_sum(ctx, &pc, pv, pn);
}

/* a ** e (e > 1) for a sum a, expanded by repeated squaring, so that a
 * power too large to expand fails after a few steps. */
static sc_expr *sum_pow(sc_ctx *ctx, sc_expr *a, uint64_t e,
                        expand_limits *lim)
{
    sc_expr *acc = NULL, *base = a;

    for (;;) {
        if (e & 1) {
            acc = acc ? expand_mul2(ctx, acc, base, lim) : base;
            if (!acc)
                return NULL;
        }
        e >>= 1;
        if (!e)
            return acc;
        base = expand_mul2(ctx, base, base, lim);
        if (!base)
            return NULL;
    }
}

/* The order in which a product's sums are multiplied out: fewest terms
 * first, then sc_expr_cmp (so that whether a product is too large to
 * expand does not depend on the order of its factors). */
static int sum_order(const power *x, const power *y)
{
    size_t tx = sum_terms(x->b), ty = sum_terms(y->b);

    if (tx != ty)
        return tx < ty ? -1 : 1;
    return sc_expr_cmp(x->b, y->b);
}

/* prod f[i] ** fe[i] (fe NULL: exponents 1). */
static sc_expr *mul_core(sc_ctx *ctx, size_t n, sc_expr *const *f,
                         const uint64_t *fe)
{
    sc__int coef, p;
    power *bases, *sums;
    size_t i, nb = 0, ns = 0, cap = 0, limit;
    uint64_t e;
    expand_limits lim;
    sc_expr *x;

    for (i = 0; i < n; i++) {
        x = f[i];
        if (x->kind == SC_EXPR_ADD && x->nargs == 1 &&
            sc__int_sgn(&x->u.value) == 0)
            x = x->args[0];
        cap += x->kind == SC_EXPR_MUL ? x->nargs : 1;
    }
    bases = scratch_array(ctx, cap + 1, sizeof *bases);
    sums = scratch_array(ctx, n + 1, sizeof *sums);
    if (!bases || !sums)
        return NULL;
    sc__int_set_si(&coef, 1);
    for (i = 0; i < n; i++) {
        x = f[i];
        e = fe ? fe[i] : 1;
        if (e == 0)
            continue;
        if (x->kind == SC_EXPR_INT) {
            if (e == 1)
                p = x->u.value;
            else if (!sc__int_pow_ui(ctx, &p, &x->u.value, e))
                return NULL;
            if (!sc__int_mul(ctx, &coef, &coef, &p))
                return NULL;
        } else if (x->kind == SC_EXPR_ADD && x->nargs == 1 &&
                   sc__int_sgn(&x->u.value) == 0) {
            if (!sc__int_pow_ui(ctx, &p, &x->coefs[0], e) ||
                !sc__int_mul(ctx, &coef, &coef, &p) ||
                !push_mono(ctx, bases, &nb, x->args[0], e))
                return NULL;
        } else if (x->kind == SC_EXPR_ADD) {
            size_t j;
            for (j = 0; j < ns && sums[j].b != x; j++)
                ;
            if (j < ns) {
                if (__builtin_add_overflow(sums[j].e, e, &sums[j].e) ||
                    sums[j].e > SC__MAX_EXPONENT)
                    return sc__ctx_fail(ctx, SC_ERR_LIMIT,
                                        "exponent too large (the limit is "
                                        "2**32)");
            } else {
                sums[ns].b = x;
                sums[ns++].e = e;
            }
        } else if (!push_mono(ctx, bases, &nb, x, e)) {
            return NULL;
        }
    }
    if (sc__int_sgn(&coef) == 0)
        return ctx->zero;
    if (ns == 0)
        return coef_mono(ctx, &coef, make_mono(ctx, bases, nb));
    if (ns == 1 && sums[0].e == 1 && nb == 0)
        return sc__expr_scale(ctx, sums[0].b, &coef, NULL);

    /* Every product of sums is multiplied out (the one canonical form: a
     * polynomial in the atoms has one expanded form, whatever the order or
     * grouping of its factors, while a factored form does not), within
     * limits: with L the expand limit and T = max(L, terms of the largest
     * sum), at most T terms after each step, at most max(16*L, L*L/4, 2*T
     * + 2) products formed in one step and 4 times that in all (a big
     * coefficient counting its 64-bit words), their monomials at most
     * twice as many bases as that in all, at most as many words of big
     * coefficients in one step as products (the last three decided
     * before each step), at most T sums (a sum's power is made by
     * repeated squaring first). */
    limit = ctx->expand_limit ? ctx->expand_limit : 1;
    lim.raw = limit <= SIZE_MAX / 16 ? 16 * limit : SIZE_MAX;
    if (limit < ((size_t)1 << (sizeof(size_t) * 4)) &&
        limit * limit / 4 > lim.raw)
        lim.raw = limit * limit / 4;
    for (i = 0; i < ns; i++)
        if (sum_terms(sums[i].b) > limit)
            limit = sum_terms(sums[i].b);
    if (limit < SIZE_MAX / 2 - 1 && lim.raw < 2 * limit + 2)
        lim.raw = 2 * limit + 2;
    lim.terms = limit;
    lim.budget = lim.raw <= SIZE_MAX / 4 ? 4 * lim.raw : SIZE_MAX;
    lim.bases = lim.raw <= SIZE_MAX / 2 ? 2 * lim.raw : SIZE_MAX;
    lim.bases_budget = lim.budget <= SIZE_MAX / 2 ? 2 * lim.budget : SIZE_MAX;
    if (ns > limit) { /* each sum is a step */
        expand_too_large(ctx, limit);
        return NULL;
    }
    for (i = 1; i < ns; i++) {
        power y = sums[i];
        size_t j;
        for (j = i; j > 0 && sum_order(&sums[j - 1], &y) > 0; j--)
            sums[j] = sums[j - 1];
        sums[j] = y;
    }
    {
        term *pv;
        size_t pn = 0;
        sc__int pc;
        pv = scratch_array(ctx, 1, sizeof *pv);
        if (!pv)
            return NULL;
        if (nb == 0) {
            pc = coef;
        } else {
            sc__int_set_si(&pc, 0);
            pv[0].t = make_mono(ctx, bases, nb);
            pv[0].k = coef;
            if (!pv[0].t)
                return NULL;
            pn = 1;
        }
        for (i = 0; i < ns; i++) {
            x = sums[i].e == 1 ? sums[i].b
                               : sum_pow(ctx, sums[i].b, sums[i].e, &lim);
            if (!x || !expand_step(ctx, &pv, &pn, &pc, x, &lim))
                return NULL;
        }
        return make_sum(ctx, &pc, pv, pn);
    }
}

static sc_expr *mul_uncached(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *f[2], *r;
    sc__mark mark;

    CHECK_INT2(a, b, "*");
    if (a->kind == SC_EXPR_INT)
        return sc__expr_scale(ctx, b, &a->u.value, NULL);
    if (b->kind == SC_EXPR_INT)
        return sc__expr_scale(ctx, a, &b->u.value, NULL);
    f[0] = a;
    f[1] = b;
    mark = sc__ctx_mark(ctx);
    r = mul_core(ctx, 2, f, NULL);
    sc__ctx_release(ctx, mark);
    return r;
}

static sc_expr *mul_n_uncached(sc_ctx *ctx, size_t n, sc_expr *const *args)
{
    sc__mark mark;
    sc_expr *r;
    size_t i;

    for (i = 0; i < n; i++)
        if (!args[i])
            return NULL;
    for (i = 0; i < n; i++)
        if (args[i]->is_bool)
            return type_error(ctx, "*");
    mark = sc__ctx_mark(ctx);
    r = mul_core(ctx, n, args, NULL);
    sc__ctx_release(ctx, mark);
    return r;
}

sc_expr *sc_expr_pow(sc_ctx *ctx, sc_expr *base, uint64_t exponent)
{
    sc__mark mark;
    sc_expr *r = NULL;
    sc__int v;

    CHECK_INT1(base, "**");
    if (exponent == 0)
        return ctx->one;
    if (exponent == 1)
        return base;
    mark = sc__ctx_mark(ctx);
    if (base->kind == SC_EXPR_INT) {
        if (sc__int_pow_ui(ctx, &v, &base->u.value, exponent))
            r = sc__expr_int(ctx, &v);
    } else if (exponent > SC__MAX_EXPONENT) {
        sc__ctx_fail(ctx, SC_ERR_LIMIT,
                     "exponent too large (the limit is 2**32)");
    } else {
        r = mul_core(ctx, 1, &base, &exponent);
    }
    sc__ctx_release(ctx, mark);
    return r;
}

/* ---- FloorDiv, CeilDiv, Mod ---------------------------------------------- */

enum { OP_FLOOR, OP_CEIL, OP_MOD };

static const char *const div_names[] = {"FloorDiv", "CeilDiv", "Mod"};
static const sc_expr_kind div_kinds[] = {SC_EXPR_FLOORDIV, SC_EXPR_CEILDIV,
                                         SC_EXPR_MOD};

static sc_expr *div_node(sc_ctx *ctx, int op, sc_expr *a, sc_expr *b)
{
    sc_expr p, *args[2];
    memset(&p, 0, sizeof p);
    args[0] = a;
    args[1] = b;
    p.kind = (uint8_t)div_kinds[op];
    p.nargs = 2;
    p.args = args;
    return sc__intern(ctx, &p);
}

static sc_expr *div_core(sc_ctx *ctx, int op, sc_expr *a, sc_expr *b);

/* a op d for a constant d (|d| > 1, gcd(content(a), d) == 1): split off
 * the terms of a (and the multiple of d in its constant) divisible by d,
 * or NULL with *done false when nothing splits. */
static sc_expr *div_split(sc_ctx *ctx, int op, sc_expr *a, sc_expr *b,
                          bool *done)
{
    const sc__int *d = &b->u.value;
    sum_view av;
    term *qv, *rv;
    size_t i, nq = 0, nr = 0;
    sc__int cq, cr, rem;
    sc_expr *q, *r;

    *done = false;
    view_sum(&av, a);
    qv = scratch_array(ctx, av.n + 1, sizeof *qv);
    rv = scratch_array(ctx, av.n + 1, sizeof *rv);
    if (!qv || !rv)
        goto fail;
    for (i = 0; i < av.n; i++) {
        if (!sc__int_mod(ctx, &rem, &av.k[i], d))
            goto fail;
        if (sc__int_sgn(&rem) == 0) {
            qv[nq].t = av.t[i];
            if (!sc__int_divexact(ctx, &qv[nq++].k, &av.k[i], d))
                goto fail;
        } else {
            rv[nr++] = (term){av.t[i], av.k[i]};
        }
    }
    if (!sc__int_floordiv(ctx, &cq, &av.c, d) ||
        !sc__int_mod(ctx, &cr, &av.c, d))
        goto fail;
    if (nq == 0 && sc__int_sgn(&cq) == 0)
        return NULL; /* nothing to split; *done stays false */
    *done = true;
    r = make_sum(ctx, &cr, rv, nr);
    if (!r)
        return NULL;
    r = div_core(ctx, op, r, b);
    if (!r || op == OP_MOD)
        return r;
    q = make_sum(ctx, &cq, qv, nq);
    if (!q)
        return NULL;
    return sc__expr_lin(ctx, q, 1, r, 1, 0);
fail:
    *done = true;
    return NULL;
}

/* The exponent of the base x in the monomial t (an atom or a Mul). */
static uint64_t mono_exp(const sc_expr *t, const sc_expr *x)
{
    uint32_t i;

    if (t == x)
        return 1;
    if (t->kind != SC_EXPR_MUL)
        return 0;
    for (i = 0; i < t->nargs; i++)
        if (t->args[i] == x)
            return t->exps[i];
    return 0;
}

/* The monomial that divides every term of a and of b (neither with a
 * constant term): its bases and exponents in *pv, their count in *pn (0:
 * none but 1). */
static bool common_mono(sc_ctx *ctx, sc_expr *a, sc_expr *b, power **pv,
                        size_t *pn)
{
    sum_view av, bv;
    sc_expr *t0;
    power *v;
    size_t i, j, n, m = 0;
    uint64_t e;

    *pn = 0;
    view_sum(&av, a);
    view_sum(&bv, b);
    if (av.n == 0 || bv.n == 0 || sc__int_sgn(&av.c) != 0 ||
        sc__int_sgn(&bv.c) != 0)
        return true;
    t0 = av.t[0];
    n = t0->kind == SC_EXPR_MUL ? t0->nargs : 1;
    v = scratch_array(ctx, n, sizeof *v);
    if (!v)
        return false;
    for (i = 0; i < n; i++) {
        v[i].b = t0->kind == SC_EXPR_MUL ? t0->args[i] : t0;
        v[i].e = t0->kind == SC_EXPR_MUL ? t0->exps[i] : 1;
        for (j = 0; j < av.n + bv.n && v[i].e > 0; j++) {
            e = mono_exp(j < av.n ? av.t[j] : bv.t[j - av.n], v[i].b);
            if (e < v[i].e)
                v[i].e = e;
        }
        if (v[i].e > 0)
            v[m++] = v[i];
    }
    *pv = v;
    *pn = m;
    return true;
}

/* The sum a (terms all divisible by the monomial v) divided by it. */
static sc_expr *sum_mono_div(sc_ctx *ctx, sc_expr *a, const power *v,
                             size_t nv)
{
    sum_view av;
    term *q;
    power *f;
    size_t i, j, l, n = 0, nf;
    sc__int c;
    sc_expr *t, *mono;

    view_sum(&av, a);
    q = scratch_array(ctx, av.n ? av.n : 1, sizeof *q);
    if (!q)
        return NULL;
    sc__int_set_si(&c, 0);
    for (i = 0; i < av.n; i++) {
        t = av.t[i];
        nf = t->kind == SC_EXPR_MUL ? t->nargs : 1;
        f = scratch_array(ctx, nf, sizeof *f);
        if (!f)
            return NULL;
        for (j = 0, l = 0; j < nf; j++) {
            f[l].b = t->kind == SC_EXPR_MUL ? t->args[j] : t;
            f[l].e = t->kind == SC_EXPR_MUL ? t->exps[j] : 1;
            for (size_t k = 0; k < nv; k++)
                if (v[k].b == f[l].b)
                    f[l].e -= v[k].e;
            if (f[l].e > 0)
                l++;
        }
        mono = make_mono(ctx, f, l);
        if (!mono)
            return NULL;
        if (mono == ctx->one) {
            if (!sc__int_add(ctx, &c, &c, &av.k[i]))
                return NULL;
            continue;
        }
        q[n].t = mono;
        q[n++].k = av.k[i];
    }
    if (!normalize_terms(ctx, q, &n))
        return NULL;
    return make_sum(ctx, &c, q, n);
}

/* Monomial cancellation: (m*A) op (m*B) == A op B and Mod(m*A, m*B) ==
 * m*Mod(A, B) for every nonzero m (floor(m*A / (m*B)) == floor(A / B)).
 * NULL with *done false when a and b share no monomial factor. */
static sc_expr *div_mono_content(sc_ctx *ctx, int op, sc_expr *a,
                                 sc_expr *b, bool *done)
{
    power *v = NULL;
    size_t nv;
    sc_expr *ma, *mb, *r, *m;

    *done = true;
    if (!common_mono(ctx, a, b, &v, &nv))
        return NULL;
    if (nv == 0) {
        *done = false;
        return NULL;
    }
    ma = sum_mono_div(ctx, a, v, nv);
    mb = ma ? sum_mono_div(ctx, b, v, nv) : NULL;
    if (!mb)
        return NULL;
    r = div_core(ctx, op, ma, mb);
    if (!r || op != OP_MOD)
        return r;
    m = make_mono(ctx, v, nv);
    return m ? mul_uncached(ctx, r, m) : NULL;
}

/* a == c*Mod(u, b) + rest, where c*u cancels terms of rest: a is
 * -c*b*(u // b) + R with R = rest + c*u (u - Mod(u, b) == b*(u // b) for
 * every u and b != 0), so FloorDiv(a, b) == -c*(u // b) + FloorDiv(R, b),
 * CeilDiv likewise, Mod(a, b) == Mod(R, b).  NULL with *done false when a
 * has no such term. */
static sc_expr *div_mod_term(sc_ctx *ctx, int op, sc_expr *a, sc_expr *b,
                             bool *done)
{
    sc_expr *args[3], *t, *R, *q;
    sc__int s[3];
    uint32_t i;

    *done = false;
    if (a->kind != SC_EXPR_ADD)
        return NULL;
    for (i = 0; i < a->nargs; i++) {
        t = a->args[i];
        if (t->kind != SC_EXPR_MOD || t->args[1] != b)
            continue;
        args[0] = a;
        args[1] = t->args[0];
        args[2] = t;
        sc__int_set_si(&s[0], 1);
        s[1] = a->coefs[i];
        *done = true;
        if (!sc__int_neg(ctx, &s[2], &a->coefs[i]))
            return NULL;
        R = add_core(ctx, 3, args, s, NULL);
        if (!R)
            return NULL;
        if (nterms(R) + 1 >= a->nargs) {
            *done = false; /* nothing cancelled: not simpler */
            continue;
        }
        if (op == OP_MOD)
            return div_core(ctx, op, R, b);
        q = div_core(ctx, OP_FLOOR, t->args[0], b);
        R = q ? div_core(ctx, op, R, b) : NULL;
        if (!R)
            return NULL;
        args[0] = q;
        args[1] = R;
        s[1] = one_int;
        if (!sc__int_neg(ctx, &s[0], &a->coefs[i]))
            return NULL;
        return add_core(ctx, 2, args, s, NULL);
    }
    return NULL;
}

/* a op d for a constant d > 0 and a sum a = g*Q + c whose terms'
 * coefficients share the factor g with d (1 < g < d), c not a multiple
 * of g: with c = g*c1 + c0 (0 < c0 < g), FloorDiv(a, d) == FloorDiv(Q +
 * c1, d/g) and Mod(a, d) == g*Mod(Q + c1, d/g) + c0, for every value (Q
 * + c0/g lies in [Q, Q + 1)).  NULL with *done false when it does not
 * apply (and for CeilDiv). */
static sc_expr *div_common_factor(sc_ctx *ctx, int op, sc_expr *a,
                                  sc_expr *b, bool *done)
{
    const sc__int *d = &b->u.value;
    sc__int g, c1, c0, m;
    sc_expr *q, *r;
    uint32_t i;

    *done = false;
    if (op == OP_CEIL || a->kind != SC_EXPR_ADD || sc__int_sgn(d) <= 0)
        return NULL;
    g = *d;
    for (i = 0; i < a->nargs && sc__int_cmp_si(&g, 1) > 0; i++)
        if (!sc__int_gcd(ctx, &g, &g, &a->coefs[i]))
            goto fail;
    if (sc__int_cmp_si(&g, 1) <= 0 || sc__int_cmp(&g, d) >= 0)
        return NULL;
    if (!sc__int_floordiv(ctx, &c1, &a->u.value, &g) ||
        !sc__int_mod(ctx, &c0, &a->u.value, &g) ||
        !sc__int_divexact(ctx, &m, d, &g))
        goto fail;
    if (sc__int_sgn(&c0) == 0)
        return NULL; /* the gcd cancellation's case */
    *done = true;
    q = sc__expr_affine(ctx, a, &one_int, &g, &c1);
    r = q ? sc__expr_int(ctx, &m) : NULL;
    r = r ? div_core(ctx, op, q, r) : NULL;
    if (!r || op == OP_FLOOR)
        return r;
    return add_core(ctx, 1, &r, &g, &c0);
fail:
    *done = true;
    return NULL;
}

/* FloorDiv(FloorDiv(x, a1) + R, c) == FloorDiv(x + a1*R, a1*c) for
 * constants a1 != 0 and c > 0 and every integer R (FloorDiv(x, a1) + R is
 * FloorDiv(x + a1*R, a1), and floor(floor(y / a1) / c) == floor(y / (a1*c))
 * for c > 0).  The FloorDiv term is the first one with coefficient 1 and
 * a constant divisor.  NULL with *done false when there is none. */
static sc_expr *div_nested_offset(sc_ctx *ctx, int op, sc_expr *a,
                                  sc_expr *b, bool *done)
{
    sc_expr *v[3], *t, *y, *dv;
    sc__int k[3], ad;
    uint32_t i;

    *done = false;
    if (op != OP_FLOOR || a->kind != SC_EXPR_ADD ||
        sc__int_sgn(&b->u.value) <= 0)
        return NULL;
    for (i = 0; i < a->nargs; i++) {
        t = a->args[i];
        if (t->kind == SC_EXPR_FLOORDIV && t->args[1]->kind == SC_EXPR_INT &&
            sc__int_is_si(&a->coefs[i], 1))
            break;
    }
    if (i == a->nargs)
        return NULL;
    *done = true;
    /* y = x + a1*(a - t) */
    v[0] = t->args[0];
    v[1] = a;
    v[2] = t;
    sc__int_set_si(&k[0], 1);
    k[1] = t->args[1]->u.value;
    if (!sc__int_neg(ctx, &k[2], &t->args[1]->u.value))
        return NULL;
    y = add_core(ctx, 3, v, k, NULL);
    if (!y || !sc__int_mul(ctx, &ad, &t->args[1]->u.value, &b->u.value))
        return NULL;
    dv = sc__expr_int(ctx, &ad);
    return dv ? div_core(ctx, op, y, dv) : NULL;
}

static sc_expr *div_core(sc_ctx *ctx, int op, sc_expr *a, sc_expr *b)
{
    sc__int g, h, v;
    sc_expr *r, *ga, *gb;
    bool ok, done;

    if (b->kind == SC_EXPR_INT && sc__int_sgn(&b->u.value) == 0)
        return sc__ctx_fail(ctx, SC_ERR_DIV_ZERO, "%s: division by zero",
                            div_names[op]);
    if (a->kind == SC_EXPR_INT && b->kind == SC_EXPR_INT) {
        if (op == OP_FLOOR)
            ok = sc__int_floordiv(ctx, &v, &a->u.value, &b->u.value);
        else if (op == OP_CEIL)
            ok = sc__int_ceildiv(ctx, &v, &a->u.value, &b->u.value);
        else
            ok = sc__int_mod(ctx, &v, &a->u.value, &b->u.value);
        return ok ? sc__expr_int(ctx, &v) : NULL;
    }
    if (a == ctx->zero)
        return ctx->zero;
    if (a == b)
        return op == OP_MOD ? ctx->zero : ctx->one;

    /* gcd cancellation: (g*a) op (g*b) == a op b, g*Mod(a, b) for Mod. */
    if (!sc__expr_content(ctx, &g, a) || !sc__expr_content(ctx, &h, b) ||
        !sc__int_gcd(ctx, &g, &g, &h))
        return NULL;
    if (sc__int_cmp_si(&g, 1) > 0) {
        ga = sc__expr_scale(ctx, a, &one_int, &g);
        gb = sc__expr_scale(ctx, b, &one_int, &g);
        if (!ga || !gb)
            return NULL;
        r = div_core(ctx, op, ga, gb);
        if (!r || op != OP_MOD)
            return r;
        return sc__expr_scale(ctx, r, &g, NULL);
    }
    r = div_mod_term(ctx, op, a, b, &done);
    if (done)
        return r;
    if (b->kind != SC_EXPR_INT) {
        r = a->kind == SC_EXPR_INT ? NULL
                                   : div_mono_content(ctx, op, a, b, &done);
        if (a->kind != SC_EXPR_INT && done)
            return r;
        return div_node(ctx, op, a, b);
    }

    if (sc__int_is_si(&b->u.value, 1))
        return op == OP_MOD ? ctx->zero : a;
    if (sc__int_is_si(&b->u.value, -1))
        return op == OP_MOD ? ctx->zero
                            : sc__expr_scale(ctx, a, &minus_one_int, NULL);
    /* (x // c1) // c2 == x // (c1*c2) for c2 > 0; likewise CeilDiv. */
    if (op != OP_MOD && a->kind == div_kinds[op] &&
        a->args[1]->kind == SC_EXPR_INT && sc__int_sgn(&b->u.value) > 0) {
        if (!sc__int_mul(ctx, &v, &a->args[1]->u.value, &b->u.value))
            return NULL;
        gb = sc__expr_int(ctx, &v);
        return gb ? div_core(ctx, op, a->args[0], gb) : NULL;
    }
    /* Mod(Mod(x, m), d) == Mod(x, d) when d divides m. */
    if (op == OP_MOD && a->kind == SC_EXPR_MOD &&
        a->args[1]->kind == SC_EXPR_INT) {
        if (!sc__int_divisible(ctx, &ok, &a->args[1]->u.value, &b->u.value))
            return NULL;
        if (ok)
            return div_core(ctx, op, a->args[0], b);
    }
    r = div_nested_offset(ctx, op, a, b, &done);
    if (done)
        return r;
    r = div_common_factor(ctx, op, a, b, &done);
    if (done)
        return r;
    r = div_split(ctx, op, a, b, &done);
    if (done)
        return r;
    return div_node(ctx, op, a, b);
}

static sc_expr *div_public(sc_ctx *ctx, int op, sc_expr *a, sc_expr *b)
{
    sc__mark mark;
    sc_expr *r;

    CHECK_INT2(a, b, div_names[op]);
    mark = sc__ctx_mark(ctx);
    r = div_core(ctx, op, a, b);
    sc__ctx_release(ctx, mark);
    return r;
}

static sc_expr *floordiv_uncached(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    return div_public(ctx, OP_FLOOR, a, b);
}

static sc_expr *ceildiv_uncached(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    return div_public(ctx, OP_CEIL, a, b);
}

static sc_expr *mod_uncached(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    return div_public(ctx, OP_MOD, a, b);
}

/* ---- Min, Max ------------------------------------------------------------ */

static int cmp_expr_ptr(const void *a, const void *b)
{
    return sc_expr_cmp(*(sc_expr *const *)a, *(sc_expr *const *)b);
}

/* Does x - y reduce to a constant?  Then store it in *diff. */
static bool differ_by_constant(sc_ctx *ctx, sc_expr *x, sc_expr *y,
                               sc__int *diff, bool *ok)
{
    sum_view xv, yv;
    size_t i;

    *ok = true;
    view_sum(&xv, x);
    view_sum(&yv, y);
    if (xv.n != yv.n)
        return false;
    for (i = 0; i < xv.n; i++)
        if (xv.t[i] != yv.t[i] || !sc__int_eq(&xv.k[i], &yv.k[i]))
            return false;
    *ok = sc__int_sub(ctx, diff, &xv.c, &yv.c);
    return *ok;
}

#define MINMAX_OFFSET_MAX 32

/* Among arguments that differ by a constant only the largest (Max) or
 * smallest (Min) matters: Max(a, a + 1) == a + 1.  v[0..*m-1) are the
 * non-constant arguments; the count includes the constant slot. */
static bool drop_offsets(sc_ctx *ctx, sc_expr_kind kind, sc_expr **v,
                         size_t *m)
{
    size_t n = *m - 1, i, j, k;
    sc__int d;
    bool ok, removed = false;

    for (i = 0; i < n; i++) {
        if (!v[i])
            continue;
        for (j = i + 1; j < n && v[i]; j++) {
            if (!v[j])
                continue;
            if (!differ_by_constant(ctx, v[i], v[j], &d, &ok)) {
                if (!ok)
                    return false;
                continue;
            }
            /* d = v[i] - v[j] != 0 (they are distinct nodes) */
            if ((sc__int_sgn(&d) > 0) == (kind == SC_EXPR_MAX))
                v[j] = NULL;
            else
                v[i] = NULL;
            removed = true;
        }
    }
    if (removed) {
        for (i = 0, k = 0; i < n; i++)
            if (v[i])
                v[k++] = v[i];
        *m = k + 1;
    }
    return true;
}

static sc_expr *minmax(sc_ctx *ctx, sc_expr_kind kind, size_t n,
                       sc_expr *const *args)
{
    const char *name = kind == SC_EXPR_MIN ? "Min" : "Max";
    sc__mark mark;
    sc_expr **v, *x, p, *r = NULL;
    size_t i, j, total = 0, m = 0, k;
    sc__int c;
    bool have_c = false;

    for (i = 0; i < n; i++)
        if (!args[i])
            return NULL;
    for (i = 0; i < n; i++)
        if (args[i]->is_bool)
            return type_error(ctx, name);
    if (n == 0)
        return sc__ctx_fail(ctx, SC_ERR_INVALID, "%s of no arguments", name);
    for (i = 0; i < n; i++)
        total += args[i]->kind == kind ? args[i]->nargs : 1;
    mark = sc__ctx_mark(ctx);
    v = scratch_array(ctx, total + 1, sizeof *v);
    if (!v)
        goto out;
    m = 1; /* v[0] is kept for the constant */
    for (i = 0; i < n; i++) {
        size_t cnt = args[i]->kind == kind ? args[i]->nargs : 1;
        for (j = 0; j < cnt; j++) {
            x = args[i]->kind == kind ? args[i]->args[j] : args[i];
            if (x->kind != SC_EXPR_INT) {
                v[m++] = x;
            } else if (!have_c ||
                       (sc__int_cmp(&x->u.value, &c) < 0) ==
                           (kind == SC_EXPR_MIN)) {
                c = x->u.value;
                have_c = true;
            }
        }
    }
    if (m > 2)
        qsort(v + 1, m - 1, sizeof *v, cmp_expr_ptr);
    for (i = 1, k = 1; i < m; i++)
        if (k == 1 || v[k - 1] != v[i])
            v[k++] = v[i];
    m = k;
    if (m - 1 <= MINMAX_OFFSET_MAX && !drop_offsets(ctx, kind, v + 1, &m))
        goto out;
    if (have_c) {
        v[0] = sc__expr_int(ctx, &c);
        if (!v[0])
            goto out;
    } else {
        v++;
        m--;
    }
    if (m == 1) {
        r = v[0];
        goto out;
    }
    if (m > UINT32_MAX) {
        sc__ctx_fail(ctx, SC_ERR_LIMIT, "too many arguments");
        goto out;
    }
    memset(&p, 0, sizeof p);
    p.kind = (uint8_t)kind;
    p.nargs = (uint32_t)m;
    p.args = v;
    r = sc__intern(ctx, &p);
out:
    sc__ctx_release(ctx, mark);
    return r;
}

static sc_expr *min_uncached(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *v[2] = {a, b};
    return minmax(ctx, SC_EXPR_MIN, 2, v);
}

static sc_expr *max_uncached(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *v[2] = {a, b};
    return minmax(ctx, SC_EXPR_MAX, 2, v);
}

/* n-ary Min/Max: 2 or 3 arguments go through the operation cache (under
 * the binary operation's key for 2: the same computation). */
static sc_expr *minmax_n(sc_ctx *ctx, sc_expr_kind kind, size_t n,
                         sc_expr *const *args)
{
    unsigned op = kind == SC_EXPR_MIN ? SC__OP_MIN : SC__OP_MAX;
    sc_expr *r;

    if (!ctx || !args || (n != 2 && n != 3) || !args[0] || !args[1] ||
        (n == 3 && !args[2]))
        return minmax(ctx, kind, n, args);
    r = sc__opc_get3(ctx, op, args[0], args[1], n == 3 ? args[2] : NULL);
    if (r)
        return r;
    r = minmax(ctx, kind, n, args);
    sc__opc_put3(ctx, op, args[0], args[1], n == 3 ? args[2] : NULL, r);
    return r;
}

sc_expr *sc_expr_min_n(sc_ctx *ctx, size_t n, sc_expr *const *args)
{
    return minmax_n(ctx, SC_EXPR_MIN, n, args);
}

sc_expr *sc_expr_max_n(sc_ctx *ctx, size_t n, sc_expr *const *args)
{
    return minmax_n(ctx, SC_EXPR_MAX, n, args);
}

/* ---- Cached entry points (the context's operation cache, ctx.c) ---- */

sc_expr *sc_expr_add(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *r;
    if (!ctx || !a || !b)
        return add_uncached(ctx, a, b);
    if ((r = sc__opc_get(ctx, SC__OP_ADD, a, b)) != NULL)
        return r;
    r = add_uncached(ctx, a, b);
    sc__opc_put(ctx, SC__OP_ADD, a, b, r);
    return r;
}

sc_expr *sc_expr_sub(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *r;
    if (!ctx || !a || !b)
        return sub_uncached(ctx, a, b);
    if ((r = sc__opc_get(ctx, SC__OP_SUB, a, b)) != NULL)
        return r;
    r = sub_uncached(ctx, a, b);
    sc__opc_put(ctx, SC__OP_SUB, a, b, r);
    return r;
}

sc_expr *sc_expr_neg(sc_ctx *ctx, sc_expr *a)
{
    sc_expr *r;
    if (!ctx || !a)
        return neg_uncached(ctx, a);
    if ((r = sc__opc_get(ctx, SC__OP_NEG, a, NULL)) != NULL)
        return r;
    r = neg_uncached(ctx, a);
    sc__opc_put(ctx, SC__OP_NEG, a, NULL, r);
    return r;
}

sc_expr *sc_expr_mul(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *r;
    if (!ctx || !a || !b)
        return mul_uncached(ctx, a, b);
    if ((r = sc__opc_get(ctx, SC__OP_MUL, a, b)) != NULL)
        return r;
    r = mul_uncached(ctx, a, b);
    sc__opc_put(ctx, SC__OP_MUL, a, b, r);
    return r;
}

sc_expr *sc_expr_floordiv(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *r;
    if (!ctx || !a || !b)
        return floordiv_uncached(ctx, a, b);
    if ((r = sc__opc_get(ctx, SC__OP_FLOORDIV, a, b)) != NULL)
        return r;
    r = floordiv_uncached(ctx, a, b);
    sc__opc_put(ctx, SC__OP_FLOORDIV, a, b, r);
    return r;
}

sc_expr *sc_expr_ceildiv(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *r;
    if (!ctx || !a || !b)
        return ceildiv_uncached(ctx, a, b);
    if ((r = sc__opc_get(ctx, SC__OP_CEILDIV, a, b)) != NULL)
        return r;
    r = ceildiv_uncached(ctx, a, b);
    sc__opc_put(ctx, SC__OP_CEILDIV, a, b, r);
    return r;
}

sc_expr *sc_expr_mod(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *r;
    if (!ctx || !a || !b)
        return mod_uncached(ctx, a, b);
    if ((r = sc__opc_get(ctx, SC__OP_MOD, a, b)) != NULL)
        return r;
    r = mod_uncached(ctx, a, b);
    sc__opc_put(ctx, SC__OP_MOD, a, b, r);
    return r;
}

sc_expr *sc_expr_min(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *r;
    if (!ctx || !a || !b)
        return min_uncached(ctx, a, b);
    if ((r = sc__opc_get(ctx, SC__OP_MIN, a, b)) != NULL)
        return r;
    r = min_uncached(ctx, a, b);
    sc__opc_put(ctx, SC__OP_MIN, a, b, r);
    return r;
}

sc_expr *sc_expr_max(sc_ctx *ctx, sc_expr *a, sc_expr *b)
{
    sc_expr *r;
    if (!ctx || !a || !b)
        return max_uncached(ctx, a, b);
    if ((r = sc__opc_get(ctx, SC__OP_MAX, a, b)) != NULL)
        return r;
    r = max_uncached(ctx, a, b);
    sc__opc_put(ctx, SC__OP_MAX, a, b, r);
    return r;
}

sc_expr *sc_expr_mul_n(sc_ctx *ctx, size_t n, sc_expr *const *args)
{
    sc_expr *r;

    if (!ctx || !args || (n != 2 && n != 3) || !args[0] || !args[1] ||
        (n == 3 && !args[2]))
        return mul_n_uncached(ctx, n, args);
    r = sc__opc_get3(ctx, SC__OP_MUL_N, args[0], args[1],
                     n == 3 ? args[2] : NULL);
    if (r)
        return r;
    r = mul_n_uncached(ctx, n, args);
    sc__opc_put3(ctx, SC__OP_MUL_N, args[0], args[1], n == 3 ? args[2] : NULL,
                 r);
    return r;
}

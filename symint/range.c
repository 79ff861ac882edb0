/* symcut — value ranges: intervals of the integers extended with -inf and
 * +inf, symbol bounds, and the range of an expression computed bottom-up
 * by interval arithmetic (exact, with GMP).
 *
 * Soundness is the rule: every value an expression takes when its symbols
 * lie in their bounds lies in its range.  Values whose size would exceed
 * RANGE_MAX_BITS bits (products and powers only) are rounded outwards: a
 * huge positive lower bound becomes 2^RANGE_MAX_BITS, a huge positive
 * upper bound +inf, and symmetrically for negative values.  An expression
 * that cannot be evaluated at all (its divisor is always 0) gets the
 * unbounded range, which is vacuously sound. */
#include <string.h>

#include "symint/expr.h"
#include "symint/interval.h"


#define RANGE_MAX_BITS (1UL << 18)

/* ---- sc_range ---------------------------------------------------------- */

void sc_range_init(sc_range *r)
{
    mpz_init(r->lo);
    mpz_init(r->hi);
    r->lo_inf = r->hi_inf = true;
}

void sc_range_clear(sc_range *r)
{
    mpz_clear(r->lo);
    mpz_clear(r->hi);
}

void sc_range_set(sc_range *dst, const sc_range *src)
{
    if (dst == src)
        return;
    mpz_set(dst->lo, src->lo);
    mpz_set(dst->hi, src->hi);
    dst->lo_inf = src->lo_inf;
    dst->hi_inf = src->hi_inf;
}

void sc_range_set_si(sc_range *r, int64_t lo, int64_t hi)
{
    sc__mpz_set_i64(r->lo, lo);
    sc__mpz_set_i64(r->hi, hi);
    r->lo_inf = r->hi_inf = false;
}

void sc_range_set_unbounded(sc_range *r)
{
    mpz_set_ui(r->lo, 0);
    mpz_set_ui(r->hi, 0);
    r->lo_inf = r->hi_inf = true;
}

bool sc_range_contains_mpz(const sc_range *r, mpz_srcptr v)
{
    return (r->lo_inf || mpz_cmp(r->lo, v) <= 0) &&
           (r->hi_inf || mpz_cmp(v, r->hi) <= 0);
}

bool sc_range_is_empty(const sc_range *r)
{
    return !r->lo_inf && !r->hi_inf && mpz_cmp(r->lo, r->hi) > 0;
}

/* Write the endpoint at p; returns the end of what was written. */
static char *put_end(char *p, bool inf, const char *inf_text, mpz_srcptr v)
{
    if (inf) {
        strcpy(p, inf_text);
    } else {
        mpz_get_str(p, 10, v);
    }
    return p + strlen(p);
}

/* "[lo, hi]" with "-inf" / "inf"; malloc'ed, NULL on exhaustion. */
char *sc_range_to_str(const sc_range *r)
{
    size_t n = 16 + (r->lo_inf ? 0 : mpz_sizeinbase(r->lo, 10)) +
               (r->hi_inf ? 0 : mpz_sizeinbase(r->hi, 10));
    char *s = sc__malloc(n), *p;
    sc__gmp_guard g;

    if (!s)
        return NULL;
    sc__gmp_push(&g);
    if (setjmp(g.env)) {
        sc__gmp_pop(&g);
        sc__free(s);
        return NULL;
    }
    p = s;
    *p++ = '[';
    p = put_end(p, r->lo_inf, "-inf", r->lo);
    *p++ = ',';
    *p++ = ' ';
    p = put_end(p, r->hi_inf, "inf", r->hi);
    *p++ = ']';
    *p = '\0';
    sc__gmp_pop(&g);
    return s;
}

/* ---- Bounds ------------------------------------------------------------
 * A dense array indexed by symbol index; every range in it is
 * initialised, `present` says which are set. */

struct sc_bounds {
    sc_ctx *ctx;
    sc_range *ranges;
    bool *present;
    size_t cap;
    uint64_t stamp; /* this version of these bounds (see sc_ctx) */
};

/* A new stamp: called before every change of b. */
static void bounds_touch(sc_bounds *b)
{
    b->stamp = ++b->ctx->bounds_stamp;
}

sc_bounds *sc_bounds_new(sc_ctx *ctx)
{
    sc_bounds *b;

    if (!ctx)
        return NULL;
    b = sc__malloc(sizeof *b);
    if (!b)
        return NULL;
    b->ctx = ctx;
    b->ranges = NULL;
    b->present = NULL;
    b->cap = 0;
    bounds_touch(b);
    return b;
}

void sc_bounds_free(sc_bounds *b)
{
    size_t i;

    if (!b)
        return;
    for (i = 0; i < b->cap; i++)
        sc_range_clear(&b->ranges[i]);
    sc__free(b->ranges);
    sc__free(b->present);
    sc__free(b);
}

/* Make room for index idx; false on exhaustion (b unchanged). */
static bool bounds_reserve(sc_bounds *b, size_t idx)
{
    size_t ncap, i;
    sc_range *nr;
    bool *np;

    if (idx < b->cap)
        return true;
    ncap = b->cap ? b->cap : 8;
    while (ncap <= idx) {
        if (ncap > SIZE_MAX / 2 / sizeof *nr)
            return false;
        ncap *= 2;
    }
    nr = sc__realloc(b->ranges, ncap * sizeof *nr);
    if (!nr)
        return false;
    b->ranges = nr; /* the first cap entries moved intact */
    np = sc__realloc(b->present, ncap * sizeof *np);
    if (!np)
        return false; /* ranges is larger than needed; harmless */
    b->present = np;
    for (i = b->cap; i < ncap; i++) {
        sc_range_init(&b->ranges[i]); /* GMP >= 6.2: allocates nothing */
        b->present[i] = false;
    }
    b->cap = ncap;
    return true;
}

/* Set the range of sym (NULL r: unbounded).  Errors: SC_ERR_INVALID when
 * sym is not a symbol of the bounds' context, SC_ERR_NOMEM. */
sc_status sc_bounds_set(sc_bounds *b, sc_expr *sym, const sc_range *r,
                        sc_error *err)
{
    size_t idx;
    sc__gmp_guard g;

    if (!b)
        return sc__error_set(err, SC_ERR_INVALID, "NULL bounds");
    if (!sc__ctx_has_symbol(b->ctx, sym))
        return sc__error_set(err, SC_ERR_INVALID,
                             "bounds key is not a symbol of its context");
    idx = sym->u.sym.index;
    bounds_touch(b);
    if (!r) {
        if (idx < b->cap)
            b->present[idx] = false;
        return SC_OK;
    }
    if (!bounds_reserve(b, idx))
        return sc__error_nomem(err);
    sc__gmp_push(&g);
    if (setjmp(g.env)) {
        sc__gmp_pop(&g);
        b->present[idx] = false;
        return sc__error_nomem(err);
    }
    sc_range_set(&b->ranges[idx], r);
    sc__gmp_pop(&g);
    b->present[idx] = true;
    return SC_OK;
}

sc_status sc_bounds_set_si(sc_bounds *b, sc_expr *sym, bool lo_inf,
                           int64_t lo, bool hi_inf, int64_t hi, sc_error *err)
{
    size_t idx;
    sc_range *r;

    if (!b)
        return sc__error_set(err, SC_ERR_INVALID, "NULL bounds");
    if (!sc__ctx_has_symbol(b->ctx, sym))
        return sc__error_set(err, SC_ERR_INVALID,
                             "bounds key is not a symbol of its context");
    idx = sym->u.sym.index;
    bounds_touch(b);
    if (!bounds_reserve(b, idx))
        return sc__error_nomem(err);
    /* Small values: mpz_set_si into an initialised mpz cannot exhaust
     * memory beyond the one limb GMP allocates; guard it anyway. */
    r = &b->ranges[idx];
    {
        sc__gmp_guard g;
        sc__gmp_push(&g);
        if (setjmp(g.env)) {
            sc__gmp_pop(&g);
            b->present[idx] = false;
            return sc__error_nomem(err);
        }
        sc__mpz_set_i64(r->lo, lo_inf ? 0 : lo);
        sc__mpz_set_i64(r->hi, hi_inf ? 0 : hi);
        sc__gmp_pop(&g);
    }
    r->lo_inf = lo_inf;
    r->hi_inf = hi_inf;
    b->present[idx] = true;
    return SC_OK;
}

const sc_range *sc_bounds_get(const sc_bounds *b, const sc_expr *sym)
{
    size_t idx;

    if (!b || !sym || sym->kind != SC_EXPR_SYMBOL)
        return NULL;
    idx = sym->u.sym.index;
    if (idx >= b->cap || !b->present[idx] ||
        b->ctx->symbols[idx] != sym)
        return NULL;
    return &b->ranges[idx];
}

/* Copy src's entries into dst, which has room for all of them. */
static void bounds_copy_present(sc_bounds *dst, const sc_bounds *src)
{
    size_t i;
    for (i = 0; i < src->cap; i++) {
        if (!src->present[i])
            continue;
        sc_range_set(&dst->ranges[i], &src->ranges[i]);
        dst->present[i] = true;
    }
}

/* Make dst a copy of src (dst's earlier entries are dropped).  Errors:
 * SC_ERR_INVALID for bounds of different contexts, SC_ERR_NOMEM (then dst
 * holds a subset of src). */
sc_status sc_bounds_copy(sc_bounds *dst, const sc_bounds *src, sc_error *err)
{
    size_t i, last = 0;
    bool any = false;
    sc__gmp_guard g;

    if (!dst || !src)
        return sc__error_set(err, SC_ERR_INVALID, "NULL bounds");
    if (dst == src)
        return SC_OK;
    if (dst->ctx != src->ctx)
        return sc__error_set(err, SC_ERR_INVALID,
                             "bounds of different contexts");
    bounds_touch(dst);
    for (i = 0; i < src->cap; i++)
        if (src->present[i]) {
            last = i;
            any = true;
        }
    for (i = 0; i < dst->cap; i++)
        dst->present[i] = false;
    if (!any)
        return SC_OK;
    if (!bounds_reserve(dst, last))
        return sc__error_nomem(err);
    sc__gmp_push(&g);
    if (setjmp(g.env)) {
        sc__gmp_pop(&g);
        return sc__error_nomem(err);
    }
    bounds_copy_present(dst, src);
    sc__gmp_pop(&g);
    return SC_OK;
}

/* ---- Extended endpoints -----------------------------------------------
 * An endpoint is (inf, v): inf is -1 (-inf), +1 (+inf) or 0 (v finite).
 * Corner computations produce a pair of candidates: `l` for a lower bound
 * and `h` for an upper bound; they differ only when a value had to be
 * rounded outwards or a corner stands for a set of values. */

typedef struct ep {
    int inf;
    mpz_t v;
} ep;

static void ep_set_si(ep *e, long v)
{
    e->inf = 0;
    mpz_set_si(e->v, v);
}

static int ep_cmp(const ep *a, const ep *b)
{
    if (a->inf || b->inf)
        return (a->inf > b->inf) - (a->inf < b->inf);
    return mpz_cmp(a->v, b->v);
}

/* The candidates for a value of the given sign too large to compute. */
static void ep_huge(ep *l, ep *h, int sign)
{
    if (sign > 0) {
        l->inf = 0;
        mpz_set_ui(l->v, 0);
        mpz_setbit(l->v, RANGE_MAX_BITS);
        h->inf = 1;
    } else {
        l->inf = -1;
        h->inf = 0;
        mpz_set_ui(h->v, 0);
        mpz_setbit(h->v, RANGE_MAX_BITS);
        mpz_neg(h->v, h->v);
    }
}

static int end_sgn(int inf, mpz_srcptr v)
{
    return inf ? inf : mpz_sgn(v);
}

/* x * y, with 0 * inf = 0 (sound for products of interval bounds). */
static void ep_mul(ep *l, ep *h, int xinf, mpz_srcptr x, int yinf,
                   mpz_srcptr y)
{
    int sx = end_sgn(xinf, x), sy = end_sgn(yinf, y);

    if (sx == 0 || sy == 0) {
        ep_set_si(l, 0);
        ep_set_si(h, 0);
    } else if (xinf || yinf) {
        l->inf = h->inf = sx * sy;
    } else if (mpz_sizeinbase(x, 2) + mpz_sizeinbase(y, 2) >
               RANGE_MAX_BITS + 1) {
        ep_huge(l, h, sx * sy);
    } else {
        l->inf = h->inf = 0;
        mpz_mul(l->v, x, y);
        mpz_set(h->v, l->v);
    }
}

/* x ** n, n >= 1. */
static void ep_pow(ep *l, ep *h, int xinf, mpz_srcptr x, uint64_t n)
{
    int sign = (n % 2 == 0) ? 1 : end_sgn(xinf, x);
    size_t bits;

    if (xinf) {
        l->inf = h->inf = sign;
        return;
    }
    bits = mpz_sizeinbase(x, 2);
    if (mpz_cmpabs_ui(x, 1) <= 0) {
        /* 0, 1, -1 */
        ep_set_si(l, mpz_sgn(x) == 0 ? 0 : sign);
        ep_set_si(h, mpz_sgn(x) == 0 ? 0 : sign);
        return;
    }
    /* |x| >= 2^(bits-1), so |x|^n >= 2^((bits-1) n). */
    if (n >= (RANGE_MAX_BITS + (bits - 1) - 1) / (bits - 1)) {
        ep_huge(l, h, sign);
        return;
    }
    l->inf = h->inf = 0;
    mpz_pow_ui(l->v, x, (unsigned long)n);
    mpz_set(h->v, l->v);
}

/* floor(x / y), y nonzero; a corner at infinity stands for the limit of
 * the values near it. */
static void ep_fdiv(ep *l, ep *h, int xinf, mpz_srcptr x, int yinf,
                    mpz_srcptr y)
{
    int sy = end_sgn(yinf, y);

    if (xinf && yinf) {
        if (xinf == sy) {
            ep_set_si(l, 0);
            h->inf = 1;
        } else {
            l->inf = -1;
            ep_set_si(h, -1);
        }
    } else if (xinf) {
        l->inf = h->inf = xinf * sy;
    } else if (yinf) {
        int sx = mpz_sgn(x);
        long q = (sx == 0 || sx == sy) ? 0 : -1;
        ep_set_si(l, q);
        ep_set_si(h, q);
    } else {
        l->inf = h->inf = 0;
        mpz_fdiv_q(l->v, x, y);
        mpz_set(h->v, l->v);
    }
}

/* ---- Interval operations ----------------------------------------------
 * They work on scratch state owned by the ranger, so that a GMP
 * exhaustion (a long jump) leaks nothing. */

enum { NEP = 4, NTMP = 6 };

typedef struct ifun {
    ep lo, hi;       /* running bounds */
    ep l, h;         /* candidates */
    mpz_t t;
    sc_range tmp[NTMP];
} ifun;

static void rng_set_empty(sc_range *r)
{
    mpz_set_ui(r->lo, 1);
    mpz_set_ui(r->hi, 0);
    r->lo_inf = r->hi_inf = false;
}

static void rng_set_si(sc_range *r, long lo, long hi)
{
    mpz_set_si(r->lo, lo);
    mpz_set_si(r->hi, hi);
    r->lo_inf = r->hi_inf = false;
}

static void rng_store_lo(sc_range *r, const ep *e)
{
    if (e->inf) {
        /* A lower bound of +inf cannot arise from non-empty intervals;
         * -inf is sound in any case. */
        r->lo_inf = true;
        mpz_set_ui(r->lo, 0);
    } else {
        r->lo_inf = false;
        mpz_set(r->lo, e->v);
    }
}

static void rng_store_hi(sc_range *r, const ep *e)
{
    if (e->inf) {
        r->hi_inf = true;
        mpz_set_ui(r->hi, 0);
    } else {
        r->hi_inf = false;
        mpz_set(r->hi, e->v);
    }
}

/* Start a min/max accumulation over candidates. */
static void acc_start(ifun *f)
{
    f->lo.inf = 1; /* min of nothing */
    f->hi.inf = -1;
}

static void acc_take(ifun *f)
{
    if (ep_cmp(&f->l, &f->lo) < 0) {
        f->lo.inf = f->l.inf;
        mpz_set(f->lo.v, f->l.v);
    }
    if (ep_cmp(&f->h, &f->hi) > 0) {
        f->hi.inf = f->h.inf;
        mpz_set(f->hi.v, f->h.v);
    }
}

static void acc_store(ifun *f, sc_range *out)
{
    rng_store_lo(out, &f->lo);
    rng_store_hi(out, &f->hi);
}

#define LO(r) ((r)->lo_inf ? -1 : 0), (r)->lo
#define HI(r) ((r)->hi_inf ? 1 : 0), (r)->hi

/* out = hull(out, x); *have says whether out holds anything yet. */
static void rng_hull(sc_range *out, const sc_range *x, bool *have)
{
    if (!*have) {
        sc_range_set(out, x);
        *have = true;
        return;
    }
    if (!out->lo_inf && (x->lo_inf || mpz_cmp(x->lo, out->lo) < 0)) {
        out->lo_inf = x->lo_inf;
        mpz_set(out->lo, x->lo);
    }
    if (!out->hi_inf && (x->hi_inf || mpz_cmp(x->hi, out->hi) > 0)) {
        out->hi_inf = x->hi_inf;
        mpz_set(out->hi, x->hi);
    }
}

/* out = -x (out may be x). */
static void rng_neg(sc_range *out, const sc_range *x)
{
    bool li = x->hi_inf, hi = x->lo_inf;
    if (out != x)
        sc_range_set(out, x);
    mpz_swap(out->lo, out->hi);
    mpz_neg(out->lo, out->lo);
    mpz_neg(out->hi, out->hi);
    out->lo_inf = li;
    out->hi_inf = hi;
}

/* acc += c * x, c nonzero. */
static void rng_addmul(sc_range *acc, const sc_range *x, mpz_srcptr c)
{
    bool pos = mpz_sgn(c) > 0;
    bool l_inf = pos ? x->lo_inf : x->hi_inf;
    bool h_inf = pos ? x->hi_inf : x->lo_inf;
    mpz_srcptr l = pos ? x->lo : x->hi, h = pos ? x->hi : x->lo;

    if (!acc->lo_inf) {
        if (l_inf) {
            acc->lo_inf = true;
            mpz_set_ui(acc->lo, 0);
        } else {
            mpz_addmul(acc->lo, l, c);
        }
    }
    if (!acc->hi_inf) {
        if (h_inf) {
            acc->hi_inf = true;
            mpz_set_ui(acc->hi, 0);
        } else {
            mpz_addmul(acc->hi, h, c);
        }
    }
}

/* out = x * y (out may alias x or y). */
static void rng_mul(ifun *f, sc_range *out, const sc_range *x,
                    const sc_range *y)
{
    acc_start(f);
    ep_mul(&f->l, &f->h, LO(x), LO(y));
    acc_take(f);
    ep_mul(&f->l, &f->h, LO(x), HI(y));
    acc_take(f);
    ep_mul(&f->l, &f->h, HI(x), LO(y));
    acc_take(f);
    ep_mul(&f->l, &f->h, HI(x), HI(y));
    acc_take(f);
    acc_store(f, out);
}

/* out = x ** n, n >= 1 (out may alias x). */
static void rng_pow(ifun *f, sc_range *out, const sc_range *x, uint64_t n)
{
    bool lo_nonneg = !x->lo_inf && mpz_sgn(x->lo) >= 0;
    bool hi_nonpos = !x->hi_inf && mpz_sgn(x->hi) <= 0;

    if (n == 1) {
        sc_range_set(out, x);
        return;
    }
    acc_start(f);
    if (n % 2 == 1 || lo_nonneg || hi_nonpos) {
        /* Monotone on x: the two ends give the bounds. */
        ep_pow(&f->l, &f->h, LO(x), n);
        acc_take(f);
        ep_pow(&f->l, &f->h, HI(x), n);
        acc_take(f);
    } else {
        /* Even power over an interval containing 0. */
        ep_set_si(&f->l, 0);
        ep_set_si(&f->h, 0);
        acc_take(f);
        ep_pow(&f->l, &f->h, LO(x), n);
        f->l.inf = 0;
        mpz_set_ui(f->l.v, 0);
        acc_take(f);
        ep_pow(&f->l, &f->h, HI(x), n);
        f->l.inf = 0;
        mpz_set_ui(f->l.v, 0);
        acc_take(f);
    }
    acc_store(f, out);
}

/* The positive (sign > 0) or negative part of d; false if empty. */
static bool rng_part(sc_range *out, const sc_range *d, int sign)
{
    sc_range_set(out, d);
    if (sign > 0) {
        if (!d->hi_inf && mpz_sgn(d->hi) <= 0)
            return false;
        if (d->lo_inf || mpz_sgn(d->lo) <= 0) {
            out->lo_inf = false;
            mpz_set_ui(out->lo, 1);
        }
    } else {
        if (!d->lo_inf && mpz_sgn(d->lo) >= 0)
            return false;
        if (d->hi_inf || mpz_sgn(d->hi) >= 0) {
            out->hi_inf = false;
            mpz_set_si(out->hi, -1);
        }
    }
    return true;
}

/* out = floor(a / p), p a divisor range of one sign. */
static void rng_fdiv_part(ifun *f, sc_range *out, const sc_range *a,
                          const sc_range *p)
{
    acc_start(f);
    ep_fdiv(&f->l, &f->h, LO(a), LO(p));
    acc_take(f);
    ep_fdiv(&f->l, &f->h, LO(a), HI(p));
    acc_take(f);
    ep_fdiv(&f->l, &f->h, HI(a), LO(p));
    acc_take(f);
    ep_fdiv(&f->l, &f->h, HI(a), HI(p));
    acc_take(f);
    acc_store(f, out);
}

/* out = floor(a / d) (Python); uses tmp[0..1]. */
static void rng_floordiv(ifun *f, sc_range *out, const sc_range *a,
                         const sc_range *d)
{
    bool have = false;
    int sign;

    for (sign = -1; sign <= 1; sign += 2) {
        if (!rng_part(&f->tmp[0], d, sign))
            continue;
        rng_fdiv_part(f, &f->tmp[1], a, &f->tmp[0]);
        rng_hull(out, &f->tmp[1], &have);
    }
    if (!have)
        sc_range_set_unbounded(out); /* the divisor is always 0 */
}

/* out = ceil(a / d) = -floor(-a / d); uses tmp[0..2]. */
static void rng_ceildiv(ifun *f, sc_range *out, const sc_range *a,
                        const sc_range *d)
{
    rng_neg(&f->tmp[2], a);
    rng_floordiv(f, out, &f->tmp[2], d);
    rng_neg(out, out);
}

/* The range of a - q * p for the constant q (in out); p one-signed. */
static void rng_sub_mul(sc_range *out, const sc_range *a, mpz_srcptr q,
                        const sc_range *p, mpz_ptr t)
{
    sc_range_set(out, a);
    if (mpz_sgn(q) == 0)
        return;
    mpz_neg(t, q);
    rng_addmul(out, p, t);
}

/* out = a mod d (Python: the sign of d); uses tmp[0..4]. */
static void rng_mod(ifun *f, sc_range *out, const sc_range *a,
                    const sc_range *d)
{
    sc_range *part = &f->tmp[0], *q = &f->tmp[1], *res = &f->tmp[3],
             *s = &f->tmp[4];
    bool have = false;
    int sign;

    for (sign = -1; sign <= 1; sign += 2) {
        if (!rng_part(part, d, sign))
            continue;
        if (sign > 0) {
            /* [0, max d - 1], and <= a when a >= 0 */
            res->lo_inf = false;
            mpz_set_ui(res->lo, 0);
            res->hi_inf = part->hi_inf;
            if (!part->hi_inf)
                mpz_sub_ui(res->hi, part->hi, 1);
            if (!a->lo_inf && mpz_sgn(a->lo) >= 0 && !a->hi_inf &&
                (res->hi_inf || mpz_cmp(a->hi, res->hi) < 0)) {
                res->hi_inf = false;
                mpz_set(res->hi, a->hi);
            }
        } else {
            /* [min d + 1, 0], and >= a when a <= 0 */
            res->hi_inf = false;
            mpz_set_ui(res->hi, 0);
            res->lo_inf = part->lo_inf;
            if (!part->lo_inf)
                mpz_add_ui(res->lo, part->lo, 1);
            if (!a->hi_inf && mpz_sgn(a->hi) <= 0 && !a->lo_inf &&
                (res->lo_inf || mpz_cmp(a->lo, res->lo) > 0)) {
                res->lo_inf = false;
                mpz_set(res->lo, a->lo);
            }
        }
        /* When the quotient is one value q, a mod d = a - q d. */
        rng_fdiv_part(f, q, a, part);
        if (!q->lo_inf && !q->hi_inf && mpz_cmp(q->lo, q->hi) == 0) {
            rng_sub_mul(s, a, q->lo, part, f->t);
            sc__rng_intersect(res, s);
        }
        rng_hull(out, res, &have);
    }
    if (!have)
        sc_range_set_unbounded(out);
}

/* ---- The ranger --------------------------------------------------------
 * Ranges live in blocks (stable addresses), indexed through a memo table
 * keyed by node.  The traversal keeps an explicit stack (one frame per
 * level of the expression), so deep expressions do not use the C stack. */

enum { RBLOCK = 64 };

typedef struct rframe {
    sc_expr *e;
    size_t i; /* next child to look at */
} rframe;

struct sc__ranger {
    const sc_bounds *bounds;
    sc__memo *memo;
    sc_range **blocks;
    size_t nblocks, blocks_cap;
    size_t count; /* ranges in use */
    rframe *stack;
    size_t sp, stack_cap;
    ifun f;
    bool failed; /* exhausted memory earlier: state unusable */
};

sc__ranger *sc__ranger_new(const sc_bounds *bounds)
{
    sc__ranger *r = sc__calloc(1, sizeof *r);
    int i;

    if (!r)
        return NULL;
    r->bounds = bounds;
    r->memo = sc__memo_new();
    if (!r->memo) {
        sc__free(r);
        return NULL;
    }
    mpz_init(r->f.lo.v);
    mpz_init(r->f.hi.v);
    mpz_init(r->f.l.v);
    mpz_init(r->f.h.v);
    mpz_init(r->f.t);
    for (i = 0; i < NTMP; i++)
        sc_range_init(&r->f.tmp[i]);
    return r;
}

void sc__ranger_free(sc__ranger *r)
{
    size_t i, j;

    if (!r)
        return;
    for (i = 0; i < r->nblocks; i++) {
        for (j = 0; j < RBLOCK; j++)
            sc_range_clear(&r->blocks[i][j]);
        sc__free(r->blocks[i]);
    }
    sc__free(r->blocks);
    sc__free(r->stack);
    sc__memo_free(r->memo);
    mpz_clear(r->f.lo.v);
    mpz_clear(r->f.hi.v);
    mpz_clear(r->f.l.v);
    mpz_clear(r->f.h.v);
    mpz_clear(r->f.t);
    for (i = 0; i < NTMP; i++)
        sc_range_clear(&r->f.tmp[i]);
    sc__free(r);
}

/* Ranges kept by the context's cached ranger before it starts afresh
 * (bounds its memory; a range is smaller than the node it belongs to, so
 * below this the workspace is never more than the nodes themselves).  It
 * must stay large: a caller that asks for the ranges of a big expression
 * node by node (the C printer) relies on the earlier ones being kept. */
#define RCACHE_MAX_RANGES ((size_t)1 << 20)

sc__ranger *sc__ctx_ranger(sc_ctx *ctx, const sc_bounds *bounds)
{
    sc__ranger *r;
    uint64_t stamp = bounds ? bounds->stamp : 0;

    if (!ctx || ctx->rcache_busy || (bounds && bounds->ctx != ctx))
        return sc__ranger_new(bounds);
    r = ctx->rcache;
    if (r && (r->failed || r->count > RCACHE_MAX_RANGES)) {
        sc__ranger_free(r);
        ctx->rcache = r = NULL;
    }
    if (!r) {
        r = sc__ranger_new(bounds);
        if (!r)
            return NULL;
        ctx->rcache = r;
    } else if (ctx->rcache_stamp != stamp || r->bounds != bounds) {
        /* Another set of bounds, or these bounds changed: start afresh,
         * keeping the initialised ranges and the tables. */
        r->bounds = bounds;
        r->count = 0;
        r->sp = 0;
        sc__memo_clear(r->memo);
    }
    ctx->rcache_stamp = stamp;
    ctx->rcache_busy = true;
    return r;
}

void sc__ctx_ranger_done(sc_ctx *ctx, sc__ranger *r)
{
    if (ctx && r && r == ctx->rcache)
        ctx->rcache_busy = false;
    else
        sc__ranger_free(r);
}

static sc_range *slot(const sc__ranger *r, size_t idx)
{
    return &r->blocks[idx / RBLOCK][idx % RBLOCK];
}

/* A fresh slot (its index in *idx), or NULL on exhaustion. */
static sc_range *new_slot(sc__ranger *r, size_t *idx)
{
    if (r->count == r->nblocks * RBLOCK) {
        void *p = r->blocks;
        sc_range *b;
        size_t j;
        if (!sc__grow(&p, &r->blocks_cap, r->nblocks + 1, sizeof *r->blocks))
            return NULL;
        r->blocks = p;
        b = sc__malloc(RBLOCK * sizeof *b);
        if (!b)
            return NULL;
        for (j = 0; j < RBLOCK; j++)
            sc_range_init(&b[j]);
        r->blocks[r->nblocks++] = b;
    }
    *idx = r->count++;
    return slot(r, *idx);
}

static const sc_range *child(const sc__ranger *r, const sc_expr *c)
{
    return slot(r, sc__memo_get(r->memo, c));
}

static bool any_empty_child(const sc__ranger *r, const sc_expr *e)
{
    uint32_t i;
    for (i = 0; i < e->nargs; i++)
        if (sc_range_is_empty(child(r, e->args[i])))
            return true;
    return false;
}

static void int_set_mpz(mpz_ptr out, const sc__int *v)
{
    if (v->big)
        mpz_set(out, v->big);
    else
        sc__mpz_set_i64(out, v->small);
}

/* The range of e, whose children all have ranges. */
static void compute(sc__ranger *r, const sc_expr *e, sc_range *out)
{
    ifun *f = &r->f;
    const sc_range *x;
    uint32_t i;

    if (e->nargs && any_empty_child(r, e)) {
        rng_set_empty(out);
        return;
    }
    switch ((sc_expr_kind)e->kind) {
    case SC_EXPR_INT:
        int_set_mpz(out->lo, &e->u.value);
        mpz_set(out->hi, out->lo);
        out->lo_inf = out->hi_inf = false;
        break;
    case SC_EXPR_SYMBOL:
        x = sc_bounds_get(r->bounds, e);
        if (x)
            sc_range_set(out, x);
        else
            sc_range_set_unbounded(out);
        break;
    case SC_EXPR_ADD:
        int_set_mpz(out->lo, &e->u.value);
        mpz_set(out->hi, out->lo);
        out->lo_inf = out->hi_inf = false;
        for (i = 0; i < e->nargs; i++) {
            int_set_mpz(f->t, &e->coefs[i]);
            rng_addmul(out, child(r, e->args[i]), f->t);
        }
        break;
    case SC_EXPR_MUL:
        rng_pow(f, out, child(r, e->args[0]), e->exps[0]);
        for (i = 1; i < e->nargs; i++) {
            rng_pow(f, &f->tmp[5], child(r, e->args[i]), e->exps[i]);
            rng_mul(f, out, out, &f->tmp[5]);
        }
        break;
    case SC_EXPR_FLOORDIV:
        rng_floordiv(f, out, child(r, e->args[0]), child(r, e->args[1]));
        break;
    case SC_EXPR_CEILDIV:
        rng_ceildiv(f, out, child(r, e->args[0]), child(r, e->args[1]));
        break;
    case SC_EXPR_MOD:
        rng_mod(f, out, child(r, e->args[0]), child(r, e->args[1]));
        break;
    case SC_EXPR_MIN:
    case SC_EXPR_MAX: {
        bool is_min = e->kind == SC_EXPR_MIN;
        sc_range_set(out, child(r, e->args[0]));
        for (i = 1; i < e->nargs; i++) {
            x = child(r, e->args[i]);
            /* min: both ends are minima; max: both ends are maxima */
            if (is_min) {
                if (!x->lo_inf &&
                    !out->lo_inf && mpz_cmp(x->lo, out->lo) < 0)
                    mpz_set(out->lo, x->lo);
                else if (x->lo_inf && !out->lo_inf) {
                    out->lo_inf = true;
                    mpz_set_ui(out->lo, 0);
                }
                if (!x->hi_inf &&
                    (out->hi_inf || mpz_cmp(x->hi, out->hi) < 0)) {
                    out->hi_inf = false;
                    mpz_set(out->hi, x->hi);
                }
            } else {
                if (!x->hi_inf &&
                    !out->hi_inf && mpz_cmp(x->hi, out->hi) > 0)
                    mpz_set(out->hi, x->hi);
                else if (x->hi_inf && !out->hi_inf) {
                    out->hi_inf = true;
                    mpz_set_ui(out->hi, 0);
                }
                if (!x->lo_inf &&
                    (out->lo_inf || mpz_cmp(x->lo, out->lo) > 0)) {
                    out->lo_inf = false;
                    mpz_set(out->lo, x->lo);
                }
            }
        }
        break;
    }
    case SC_EXPR_TRUE:
        rng_set_si(out, 1, 1);
        break;
    case SC_EXPR_FALSE:
        rng_set_si(out, 0, 0);
        break;
    case SC_EXPR_EQ:
    case SC_EXPR_NE: {
        bool always0, never0;
        x = child(r, e->args[0]);
        always0 = !x->lo_inf && !x->hi_inf && mpz_sgn(x->lo) == 0 &&
                  mpz_sgn(x->hi) == 0;
        never0 = (!x->lo_inf && mpz_sgn(x->lo) > 0) ||
                 (!x->hi_inf && mpz_sgn(x->hi) < 0);
        if (always0 || never0) {
            bool v = (e->kind == SC_EXPR_EQ) == always0;
            rng_set_si(out, v, v);
        } else {
            rng_set_si(out, 0, 1);
        }
        break;
    }
    case SC_EXPR_LE:
        x = child(r, e->args[0]);
        if (!x->hi_inf && mpz_sgn(x->hi) <= 0)
            rng_set_si(out, 1, 1);
        else if (!x->lo_inf && mpz_sgn(x->lo) > 0)
            rng_set_si(out, 0, 0);
        else
            rng_set_si(out, 0, 1);
        break;
    case SC_EXPR_AND:
    case SC_EXPR_OR: {
        /* AND: false if one is false, true if all are true; OR dually. */
        bool is_and = e->kind == SC_EXPR_AND, all = true, one = false;
        for (i = 0; i < e->nargs; i++) {
            x = child(r, e->args[i]);
            bool is_true = !x->lo_inf && mpz_sgn(x->lo) > 0;
            bool is_false = !x->hi_inf && mpz_sgn(x->hi) <= 0;
            if (is_and ? is_false : is_true)
                one = true;
            if (!(is_and ? is_true : is_false))
                all = false;
        }
        if (one)
            rng_set_si(out, !is_and, !is_and);
        else if (all)
            rng_set_si(out, is_and, is_and);
        else
            rng_set_si(out, 0, 1);
        break;
    }
    default:
        sc_range_set_unbounded(out);
        break;
    }
}

static sc_status ranger_run(sc__ranger *r, sc_expr *root, sc_error *err)
{
    r->sp = 0;
    if (r->stack_cap == 0) {
        void *p = r->stack;
        if (!sc__grow(&p, &r->stack_cap, 16, sizeof *r->stack))
            return sc__error_nomem(err);
        r->stack = p;
    }
    r->stack[r->sp].e = root;
    r->stack[r->sp++].i = 0;
    while (r->sp) {
        rframe *fr = &r->stack[r->sp - 1];
        sc_expr *e = fr->e;
        sc_range *out;
        size_t idx;

        while (fr->i < e->nargs &&
               sc__memo_get(r->memo, e->args[fr->i]) != SC__MEMO_NONE)
            fr->i++;
        if (fr->i < e->nargs) {
            sc_expr *c = e->args[fr->i];
            if (r->sp == r->stack_cap) {
                void *p = r->stack;
                if (!sc__grow(&p, &r->stack_cap, r->sp + 1,
                              sizeof *r->stack))
                    return sc__error_nomem(err);
                r->stack = p;
            }
            r->stack[r->sp].e = c;
            r->stack[r->sp++].i = 0;
            continue;
        }
        out = new_slot(r, &idx);
        if (!out)
            return sc__error_nomem(err);
        compute(r, e, out);
        if (!sc__memo_put(r->memo, e, idx))
            return sc__error_nomem(err);
        r->sp--;
    }
    return SC_OK;
}

sc_status sc__ranger_range(sc__ranger *r, sc_expr *e, const sc_range **out,
                           sc_error *err)
{
    sc__gmp_guard g;
    sc_status status;
    size_t idx;

    if (r->failed)
        return sc__error_nomem(err);
    idx = sc__memo_get(r->memo, e);
    if (idx == SC__MEMO_NONE) {
        sc__gmp_push(&g);
        if (setjmp(g.env)) {
            sc__gmp_pop(&g);
            r->failed = true;
            return sc__error_nomem(err);
        }
        status = ranger_run(r, e, err);
        sc__gmp_pop(&g);
        SC_CHECK(status);
        idx = sc__memo_get(r->memo, e);
    }
    *out = slot(r, idx);
    return SC_OK;
fail:
    r->failed = true;
    return status;
}

sc_status sc__ranger_floordiv(sc__ranger *r, sc_expr *a, sc_expr *d,
                              sc_range *out, sc_error *err)
{
    const sc_range *ra, *rd;
    sc__gmp_guard g;

    SC_TRY(sc__ranger_range(r, a, &ra, err));
    SC_TRY(sc__ranger_range(r, d, &rd, err));
    sc__gmp_push(&g);
    if (setjmp(g.env)) {
        sc__gmp_pop(&g);
        r->failed = true;
        return sc__error_nomem(err);
    }
    if (sc_range_is_empty(ra) || sc_range_is_empty(rd))
        rng_set_empty(out);
    else
        rng_floordiv(&r->f, out, ra, rd);
    sc__gmp_pop(&g);
    return SC_OK;
}

/* out = res under a GMP out-of-memory guard. */
static sc_status range_copy(sc_range *out, const sc_range *res, sc_error *err)
{
    sc__gmp_guard g;

    sc__gmp_push(&g);
    if (setjmp(g.env)) {
        sc__gmp_pop(&g);
        return sc__error_nomem(err);
    }
    sc_range_set(out, res);
    sc__gmp_pop(&g);
    return SC_OK;
}

/* The range of e under bounds: one memoised bottom-up pass, linear in the
 * number of distinct nodes of e.  Errors: SC_ERR_INVALID (NULL e, bounds
 * of another context), SC_ERR_NOMEM. */
sc_status sc_expr_range(sc_ctx *ctx, sc_expr *e, const sc_bounds *bounds,
                        sc_range *out, sc_error *err)
{
    sc__ranger *r;
    const sc_range *res;
    sc_status status = SC_OK;

    if (!e)
        return sc__error_set(err, SC_ERR_INVALID, "NULL expression");
    if (bounds && ctx && bounds->ctx != ctx)
        return sc__error_set(err, SC_ERR_INVALID,
                             "bounds belong to another context");
    r = sc__ctx_ranger(ctx, bounds);
    if (!r)
        return sc__error_nomem(err);
    SC_CHECK(sc__ranger_range(r, e, &res, err));
    SC_CHECK(range_copy(out, res, err));
fail:
    sc__ctx_ranger_done(ctx, r);
    return status;
}

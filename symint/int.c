/* symcut — exact integers with a small fast path (sc__int), and the
 * integer constant constructors.
 *
 * Every operation first tries int64_t arithmetic with overflow detection;
 * only when that overflows (or an operand is big) does it fall back to GMP,
 * computing into a scratch mpz of the context under a GMP out-of-memory
 * guard.  A result that fits in int64_t is always stored small. */
#include <limits.h>
#include <string.h>

#include "symint/expr.h"
#include "symint/pydiv.h"

/* ---- Conversions --------------------------------------------------------- */

static void mpz_set_i64(mpz_ptr r, int64_t v)
{
#if LONG_MAX >= INT64_MAX
    mpz_set_si(r, (long)v);
#else
    uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
    mpz_import(r, 1, 1, sizeof u, 0, 0, &u);
    if (v < 0)
        mpz_neg(r, r);
#endif
}

/* Does a fit in int64_t?  Then store it in *out. */
static bool mpz_get_i64(mpz_srcptr a, int64_t *out)
{
#if LONG_MAX >= INT64_MAX
    if (!mpz_fits_slong_p(a))
        return false;
    *out = (int64_t)mpz_get_si(a);
    return true;
#else
    uint64_t u = 0;
    if (mpz_sizeinbase(a, 2) > 64)
        return false;
    mpz_export(&u, NULL, 1, sizeof u, 0, 0, a);
    if (mpz_sgn(a) >= 0) {
        if (u > (uint64_t)INT64_MAX)
            return false;
        *out = (int64_t)u;
    } else {
        if (u > (uint64_t)INT64_MAX + 1)
            return false;
        *out = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
    }
    return true;
#endif
}

/* Store the value of t (a scratch mpz) in r, small when it fits. */
static void normalise(sc__int *r, mpz_ptr t)
{
    int64_t v;
    if (mpz_get_i64(t, &v)) {
        r->small = v;
        r->big = NULL;
    } else {
        r->big = t;
    }
}

void sc__int_view_mpz(sc__int *r, mpz_srcptr v)
{
    int64_t s;
    if (mpz_get_i64(v, &s)) {
        r->small = s;
        r->big = NULL;
    } else {
        r->small = 0;
        r->big = (mpz_ptr)v;
    }
}

void sc__int_get_mpz(const sc__int *a, mpz_ptr out)
{
    if (a->big)
        mpz_set(out, a->big);
    else
        mpz_set_i64(out, a->small);
}

/* ---- Comparisons --------------------------------------------------------- */


int sc__int_cmp(const sc__int *a, const sc__int *b)
{
    if (!a->big && !b->big)
        return (a->small > b->small) - (a->small < b->small);
    if (a->big && b->big) {
        int c = mpz_cmp(a->big, b->big);
        return (c > 0) - (c < 0);
    }
    /* A big value lies outside the int64_t range. */
    if (a->big)
        return mpz_sgn(a->big);
    return -mpz_sgn(b->big);
}

int sc__int_cmp_si(const sc__int *a, int64_t v)
{
    if (a->big)
        return mpz_sgn(a->big);
    return (a->small > v) - (a->small < v);
}



size_t sc__int_bits(const sc__int *a)
{
    uint64_t u;
    size_t n = 0;
    if (a->big)
        return mpz_sizeinbase(a->big, 2);
    u = a->small < 0 ? -(uint64_t)a->small : (uint64_t)a->small;
    while (u) {
        n++;
        u >>= 1;
    }
    return n;
}

#define mix64 sc__mix64

uint64_t sc__int_hash_big(const sc__int *a)
{
    uint64_t h;
    size_t i, n;
    n = mpz_size(a->big);
    h = mix64(UINT64_C(0x51ed270b27c3f1a5) + (uint64_t)mpz_sgn(a->big));
    for (i = 0; i < n; i++)
        h = mix64(h ^ (uint64_t)mpz_getlimbn(a->big, i));
    return h;
}

/* ---- The GMP slow path --------------------------------------------------- */

static bool nomem(sc_ctx *ctx)
{
    sc__ctx_nomem(ctx);
    return false;
}

typedef void (*binop_fn)(mpz_ptr, mpz_srcptr, mpz_srcptr);

/* One GMP computation, run under an out-of-memory guard.  Small operands
 * are converted inside the guard, into scratch mpz's (ta, tb). */
typedef struct gmp_call {
    enum { CALL_BINOP, CALL_POW, CALL_SET, CALL_SET_STR } kind;
    binop_fn f;
    mpz_ptr r, ta, tb;
    const sc__int *a, *b;
    mpz_srcptr src;
    unsigned long e;
    const char *str;
    bool neg;
} gmp_call;

static mpz_srcptr operand(const sc__int *a, mpz_ptr t)
{
    if (a->big)
        return a->big;
    mpz_set_i64(t, a->small);
    return t;
}

static void run_call(const gmp_call *c)
{
    switch (c->kind) {
    case CALL_BINOP:
        c->f(c->r, operand(c->a, c->ta), operand(c->b, c->tb));
        break;
    case CALL_POW:
        mpz_pow_ui(c->r, operand(c->a, c->ta), c->e);
        break;
    case CALL_SET:
        mpz_set(c->r, c->src);
        break;
    case CALL_SET_STR:
        mpz_set_str(c->r, c->str, 10);
        if (c->neg)
            mpz_neg(c->r, c->r);
        break;
    }
}

/* A GMP function that runs out of memory may leave its destination
 * inconsistent (mpz_mul, for one, sets the new size before allocating).
 * So every destination starts empty (no limbs allocated), and after a
 * failure one that still has no limbs of its own is reset, while one that
 * got limbs is consistent. */
static void make_empty(mpz_ptr m)
{
    if (m && m->_mp_alloc != 0) {
        mpz_clear(m);
        mpz_init(m); /* allocates nothing with GMP >= 6.2 */
    }
}

static void repair(mpz_ptr m, mp_limb_t *d0)
{
    if (m && m->_mp_d == d0)
        mpz_init(m);
}

/* Run c; false (SC_ERR_NOMEM recorded) when GMP ran out of memory. */
static bool guarded(sc_ctx *ctx, const gmp_call *c)
{
    sc__gmp_guard g;
    mp_limb_t *d0[3];

    make_empty(c->r);
    make_empty(c->ta);
    make_empty(c->tb);
    d0[0] = c->r->_mp_d;
    d0[1] = c->ta ? c->ta->_mp_d : NULL;
    d0[2] = c->tb ? c->tb->_mp_d : NULL;
    sc__gmp_push(&g);
    if (setjmp(g.env)) {
        sc__gmp_pop(&g);
        repair(c->r, d0[0]);
        repair(c->ta, d0[1]);
        repair(c->tb, d0[2]);
        return nomem(ctx);
    }
    run_call(c);
    sc__gmp_pop(&g);
    return true;
}

bool sc__mpz_init_set(sc_ctx *ctx, mpz_ptr m, mpz_srcptr v)
{
    gmp_call c;
    memset(&c, 0, sizeof c);
    c.kind = CALL_SET;
    c.src = v;
    c.r = m;
    mpz_init(m);
    return guarded(ctx, &c);
}

/* Scratch mpz's for c's result and its small operands.  The operands'
 * ones are given back (ctx->ntmps_used) after the call by the caller. */
static bool call_tmps(sc_ctx *ctx, gmp_call *c, size_t *keep)
{
    c->r = sc__ctx_tmp(ctx);
    if (!c->r)
        return false;
    *keep = ctx->ntmps_used;
    if (c->a && !c->a->big && !(c->ta = sc__ctx_tmp(ctx)))
        return false;
    if (c->b && !c->b->big && !(c->tb = sc__ctx_tmp(ctx)))
        return false;
    return true;
}

/* r = f(a, b) computed with GMP into a fresh scratch mpz. */
static bool slow_binop(sc_ctx *ctx, sc__int *r, const sc__int *a,
                       const sc__int *b, binop_fn f)
{
    gmp_call c;
    size_t keep;

    memset(&c, 0, sizeof c);
    c.kind = CALL_BINOP;
    c.f = f;
    c.a = a;
    c.b = b;
    if (!call_tmps(ctx, &c, &keep) || !guarded(ctx, &c))
        return false;
    ctx->ntmps_used = keep;
    normalise(r, c.r);
    return true;
}

bool sc__int_set_mpz(sc_ctx *ctx, sc__int *r, mpz_srcptr v)
{
    gmp_call c;
    size_t keep;
    int64_t s;

    if (mpz_get_i64(v, &s)) {
        sc__int_set_si(r, s);
        return true;
    }
    memset(&c, 0, sizeof c);
    c.kind = CALL_SET;
    c.src = v;
    if (!call_tmps(ctx, &c, &keep) || !guarded(ctx, &c))
        return false;
    r->big = c.r;
    return true;
}

/* ---- Arithmetic ---------------------------------------------------------- */

bool sc__int_add(sc_ctx *ctx, sc__int *r, const sc__int *a, const sc__int *b)
{
    int64_t s;
    if (SC__LIKELY(!a->big && !b->big) &&
        !__builtin_add_overflow(a->small, b->small, &s)) {
        sc__int_set_si(r, s);
        return true;
    }
    return slow_binop(ctx, r, a, b, mpz_add);
}

bool sc__int_sub(sc_ctx *ctx, sc__int *r, const sc__int *a, const sc__int *b)
{
    int64_t s;
    if (SC__LIKELY(!a->big && !b->big) &&
        !__builtin_sub_overflow(a->small, b->small, &s)) {
        sc__int_set_si(r, s);
        return true;
    }
    return slow_binop(ctx, r, a, b, mpz_sub);
}

bool sc__int_mul(sc_ctx *ctx, sc__int *r, const sc__int *a, const sc__int *b)
{
    int64_t s;
    if (SC__LIKELY(!a->big && !b->big) &&
        !__builtin_mul_overflow(a->small, b->small, &s)) {
        sc__int_set_si(r, s);
        return true;
    }
    return slow_binop(ctx, r, a, b, mpz_mul);
}

bool sc__int_neg(sc_ctx *ctx, sc__int *r, const sc__int *a)
{
    sc__int zero = {0, NULL};
    if (!a->big && a->small != INT64_MIN) {
        sc__int_set_si(r, -a->small);
        return true;
    }
    return slow_binop(ctx, r, &zero, a, mpz_sub);
}

bool sc__int_abs(sc_ctx *ctx, sc__int *r, const sc__int *a)
{
    if (sc__int_sgn(a) < 0)
        return sc__int_neg(ctx, r, a);
    *r = *a;
    return true;
}

bool sc__int_floordiv(sc_ctx *ctx, sc__int *r, const sc__int *a,
                      const sc__int *b)
{
    int64_t q;
    if (SC__LIKELY(!a->big && !b->big) &&
        sc__i64_floordiv(a->small, b->small, &q)) {
        sc__int_set_si(r, q);
        return true;
    }
    return slow_binop(ctx, r, a, b, mpz_fdiv_q);
}

bool sc__int_ceildiv(sc_ctx *ctx, sc__int *r, const sc__int *a,
                     const sc__int *b)
{
    int64_t q;
    if (SC__LIKELY(!a->big && !b->big) &&
        sc__i64_ceildiv(a->small, b->small, &q)) {
        sc__int_set_si(r, q);
        return true;
    }
    return slow_binop(ctx, r, a, b, mpz_cdiv_q);
}

bool sc__int_mod(sc_ctx *ctx, sc__int *r, const sc__int *a, const sc__int *b)
{
    if (SC__LIKELY(!a->big && !b->big)) {
        sc__int_set_si(r, sc__i64_mod(a->small, b->small));
        return true;
    }
    return slow_binop(ctx, r, a, b, mpz_fdiv_r);
}

bool sc__int_divexact(sc_ctx *ctx, sc__int *r, const sc__int *a,
                      const sc__int *b)
{
    if (SC__LIKELY(!a->big && !b->big) &&
        !(a->small == INT64_MIN && b->small == -1)) {
        sc__int_set_si(r, a->small / b->small);
        return true;
    }
    return slow_binop(ctx, r, a, b, mpz_divexact);
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

bool sc__int_gcd(sc_ctx *ctx, sc__int *r, const sc__int *a, const sc__int *b)
{
    if (SC__LIKELY(!a->big && !b->big)) {
        uint64_t ua = a->small < 0 ? -(uint64_t)a->small : (uint64_t)a->small;
        uint64_t ub = b->small < 0 ? -(uint64_t)b->small : (uint64_t)b->small;
        uint64_t g = gcd_u64(ua, ub);
        if (g <= (uint64_t)INT64_MAX) {
            sc__int_set_si(r, (int64_t)g);
            return true;
        }
    }
    return slow_binop(ctx, r, a, b, mpz_gcd);
}

bool sc__int_divisible(sc_ctx *ctx, bool *out, const sc__int *a,
                       const sc__int *b)
{
    sc__int m;
    if (sc__int_sgn(b) == 0) {
        *out = sc__int_sgn(a) == 0;
        return true;
    }
    if (!sc__int_mod(ctx, &m, a, b))
        return false;
    *out = sc__int_sgn(&m) == 0;
    return true;
}

bool sc__int_pow_ui(sc_ctx *ctx, sc__int *r, const sc__int *a, uint64_t e)
{
    gmp_call c;
    size_t bits = sc__int_bits(a), keep;
    int64_t acc = 1, base;

    if (e == 0) {
        sc__int_set_si(r, 1);
        return true;
    }
    if (bits <= 1 || e == 1) { /* 0, 1, -1, or the value itself */
        if (!a->big && (a->small == 1 || a->small == 0 || e == 1))
            *r = *a;
        else if (!a->big) /* -1 */
            sc__int_set_si(r, (e & 1) ? -1 : 1);
        else
            *r = *a;
        return true;
    }
    if ((bits - 1) > SC__POW_MAX_BITS / e) {
        sc__ctx_fail(ctx, SC_ERR_LIMIT,
                     "power too large (about %zu bits times %llu)", bits,
                     (unsigned long long)e);
        return false;
    }
    memset(&c, 0, sizeof c);
    c.kind = CALL_POW;
    if (!a->big) {
        uint64_t k = e;
        bool ok = true;
        base = a->small;
        while (ok && k) {
            if (k & 1)
                ok = !__builtin_mul_overflow(acc, base, &acc);
            k >>= 1;
            if (k && ok)
                ok = !__builtin_mul_overflow(base, base, &base);
        }
        if (ok) {
            sc__int_set_si(r, acc);
            return true;
        }
    }
    c.a = a;
    c.e = (unsigned long)e;
    if (!call_tmps(ctx, &c, &keep) || !guarded(ctx, &c))
        return false;
    ctx->ntmps_used = keep;
    normalise(r, c.r);
    return true;
}

/* ---- Integer constants --------------------------------------------------- */

sc_expr *sc__expr_int(sc_ctx *ctx, const sc__int *v)
{
    sc_expr p, *r;
    sc_expr **slot = NULL;
    if (!v->big && v->small >= SC__SMALL_MIN && v->small < SC__SMALL_MAX) {
        slot = &ctx->small_ints[v->small - SC__SMALL_MIN];
        if (*slot)
            return *slot;
    }
    memset(&p, 0, sizeof p);
    p.kind = SC_EXPR_INT;
    p.u.value = *v;
    r = sc__intern(ctx, &p);
    if (slot)
        *slot = r;
    return r;
}

sc_expr *sc_expr_int_si(sc_ctx *ctx, int64_t value)
{
    sc__int v;
    sc__int_set_si(&v, value);
    return sc__expr_int(ctx, &v);
}

sc_expr *sc_expr_int_mpz(sc_ctx *ctx, mpz_srcptr value)
{
    sc__int v;
    if (!value)
        return NULL;
    sc__int_view_mpz(&v, value);
    return sc__expr_int(ctx, &v);
}

sc_expr *sc_expr_int_str(sc_ctx *ctx, const char *decimal)
{
    const char *s = decimal, *digits;
    gmp_call c;
    size_t keep;
    sc__mark m;
    sc_expr *r;
    int64_t acc = 0;
    bool neg = false, small = true;
    int d;

    if (!decimal)
        return NULL;
    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    digits = s;
    if (!*s)
        return sc__ctx_fail(ctx, SC_ERR_PARSE, "not a decimal integer: '%s'",
                            decimal);
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return sc__ctx_fail(ctx, SC_ERR_PARSE,
                                "not a decimal integer: '%s'", decimal);
        d = *s - '0';
        if (small && (__builtin_mul_overflow(acc, 10, &acc) ||
                      __builtin_sub_overflow(acc, d, &acc)))
            small = false;
    }
    /* acc accumulated the negated value, so INT64_MIN is reachable. */
    if (small && (neg || acc != INT64_MIN))
        return sc_expr_int_si(ctx, neg ? acc : -acc);
    m = sc__ctx_mark(ctx);
    memset(&c, 0, sizeof c);
    c.kind = CALL_SET_STR;
    c.str = digits;
    c.neg = neg;
    r = call_tmps(ctx, &c, &keep) && guarded(ctx, &c)
            ? sc_expr_int_mpz(ctx, c.r)
            : NULL;
    sc__ctx_release(ctx, m);
    return r;
}

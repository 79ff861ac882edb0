/* symcut — interval helpers over sc_range (symint/interval.h). */
#include <config.h>

#include "symint/interval.h"

void sc__rng_intersect(sc_range *dst, const sc_range *b)
{
    if (!b->lo_inf && (dst->lo_inf || mpz_cmp(b->lo, dst->lo) > 0)) {
        mpz_set(dst->lo, b->lo);
        dst->lo_inf = false;
    }
    if (!b->hi_inf && (dst->hi_inf || mpz_cmp(b->hi, dst->hi) < 0)) {
        mpz_set(dst->hi, b->hi);
        dst->hi_inf = false;
    }
}

bool sc__rng_equal(const sc_range *a, const sc_range *b)
{
    if (a->lo_inf != b->lo_inf || a->hi_inf != b->hi_inf)
        return false;
    if (!a->lo_inf && mpz_cmp(a->lo, b->lo) != 0)
        return false;
    if (!a->hi_inf && mpz_cmp(a->hi, b->hi) != 0)
        return false;
    return true;
}

bool sc__rng_singleton(const sc_range *r, mpz_ptr v)
{
    if (r->lo_inf || r->hi_inf || mpz_cmp(r->lo, r->hi) != 0)
        return false;
    if (v)
        mpz_set(v, r->lo);
    return true;
}

bool sc__rng_is_full(const sc_range *r)
{
    return r->lo_inf && r->hi_inf;
}

void sc__rng_set_mpz(sc_range *r, mpz_srcptr v)
{
    mpz_set(r->lo, v);
    mpz_set(r->hi, v);
    r->lo_inf = r->hi_inf = false;
}

void sc__rng_set_lo(sc_range *r, mpz_srcptr lo)
{
    mpz_set(r->lo, lo);
    r->lo_inf = false;
    r->hi_inf = true;
}

void sc__rng_set_hi(sc_range *r, mpz_srcptr hi)
{
    mpz_set(r->hi, hi);
    r->hi_inf = false;
    r->lo_inf = true;
}

bool sc__rng_subset(const sc_range *r, const sc_range *s)
{
    if (sc_range_is_empty(r))
        return true;
    if (!s->lo_inf && (r->lo_inf || mpz_cmp(r->lo, s->lo) < 0))
        return false;
    if (!s->hi_inf && (r->hi_inf || mpz_cmp(r->hi, s->hi) > 0))
        return false;
    return true;
}

void sc__rng_affine(sc_range *dst, const sc_range *src, mpz_srcptr c,
                    mpz_srcptr a)
{
    int sgn = mpz_sgn(a);
    const bool lo_inf = src->lo_inf, hi_inf = src->hi_inf;

    if (sgn == 0) {
        sc__rng_set_mpz(dst, c);
        return;
    }
    if (sgn > 0) {
        if (!lo_inf) {
            mpz_mul(dst->lo, src->lo, a);
            mpz_add(dst->lo, dst->lo, c);
        }
        if (!hi_inf) {
            mpz_mul(dst->hi, src->hi, a);
            mpz_add(dst->hi, dst->hi, c);
        }
        dst->lo_inf = lo_inf;
        dst->hi_inf = hi_inf;
    } else {
        if (!hi_inf) {
            mpz_mul(dst->lo, src->hi, a);
            mpz_add(dst->lo, dst->lo, c);
        }
        if (!lo_inf) {
            mpz_mul(dst->hi, src->lo, a);
            mpz_add(dst->hi, dst->hi, c);
        }
        dst->lo_inf = hi_inf;
        dst->hi_inf = lo_inf;
    }
}

void sc__rng_add(sc_range *dst, const sc_range *a, const sc_range *b)
{
    bool lo_inf = a->lo_inf || b->lo_inf, hi_inf = a->hi_inf || b->hi_inf;
    if (!lo_inf)
        mpz_add(dst->lo, a->lo, b->lo);
    if (!hi_inf)
        mpz_add(dst->hi, a->hi, b->hi);
    dst->lo_inf = lo_inf;
    dst->hi_inf = hi_inf;
}

void sc__rng_solve(sc_range *dst, const sc_range *src, mpz_srcptr c,
                   mpz_srcptr a)
{
    /* c + a*L >= lo  <=>  a*L >= lo - c; divide, rounding inwards. */
    const bool lo_inf = src->lo_inf, hi_inf = src->hi_inf;

    if (mpz_sgn(a) > 0) {
        if (!lo_inf) {
            mpz_sub(dst->lo, src->lo, c);
            mpz_cdiv_q(dst->lo, dst->lo, a);
        }
        if (!hi_inf) {
            mpz_sub(dst->hi, src->hi, c);
            mpz_fdiv_q(dst->hi, dst->hi, a);
        }
        dst->lo_inf = lo_inf;
        dst->hi_inf = hi_inf;
    } else {
        if (!hi_inf) {
            mpz_sub(dst->lo, src->hi, c);
            mpz_cdiv_q(dst->lo, dst->lo, a);
        }
        if (!lo_inf) {
            mpz_sub(dst->hi, src->lo, c);
            mpz_fdiv_q(dst->hi, dst->hi, a);
        }
        dst->lo_inf = hi_inf;
        dst->hi_inf = lo_inf;
    }
}

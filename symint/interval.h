/* symcut — interval helpers over sc_range (integers extended with -inf
 * and +inf): intersection, comparison, affine images and their inverse.
 * The one copy of these rules, used by symint/range.c and by the shape
 * environment.
 *
 * Included by symint/ and guards/ only. */
#ifndef SYMCUT_SYMINT_INTERVAL_H
#define SYMCUT_SYMINT_INTERVAL_H

#include <stdbool.h>

#include <symcut/symint.h>

/* dst = dst intersected with b. */
void sc__rng_intersect(sc_range *dst, const sc_range *b);
/* Same ends (an infinite end's value is not compared). */
bool sc__rng_equal(const sc_range *a, const sc_range *b);
/* Is r one value?  Then store it in v (if non-NULL). */
bool sc__rng_singleton(const sc_range *r, mpz_ptr v);
/* dst = c + a * src (a may be 0 or negative).  dst must not be src. */
void sc__rng_affine(sc_range *dst, const sc_range *src, mpz_srcptr c,
                    mpz_srcptr a);
/* dst = a + b */
void sc__rng_add(sc_range *dst, const sc_range *a, const sc_range *b);
/* dst = the L with c + a*L in src (a != 0), over the integers.  dst must
 * not be src. */
void sc__rng_solve(sc_range *dst, const sc_range *src, mpz_srcptr c,
                   mpz_srcptr a);
/* Is r a subset of s? */
bool sc__rng_subset(const sc_range *r, const sc_range *s);
/* r = [v, v]. */
void sc__rng_set_mpz(sc_range *r, mpz_srcptr v);
void sc__rng_set_lo(sc_range *r, mpz_srcptr lo);   /* hi unbounded */
void sc__rng_set_hi(sc_range *r, mpz_srcptr hi);   /* lo unbounded */
/* Is r (-inf, +inf)? */
bool sc__rng_is_full(const sc_range *r);

#endif /* SYMCUT_SYMINT_INTERVAL_H */

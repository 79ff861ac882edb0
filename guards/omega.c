/* symcut — Pugh's Omega test (guards/omega.h): the exact integer decision
 * of the minimality pass, within its caps. */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "guards/omega.h"
#include "util/internal.h"

#define OM_NODE_LIMIT 4096     /* systems one question may solve */
#define OM_WORK_LIMIT 262144   /* rows one question may derive or rewrite */

static int64_t om_gcd(int64_t a, int64_t b)
{
    if (a < 0)
        a = -a;
    if (b < 0)
        b = -b;
    while (b != 0) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Divide row r (nv coefficients, then b) by the gcd of its coefficients,
 * rounding b down.  0: a row; 1: 0 <= b with b >= 0 (always true); 2:
 * 0 <= b with b < 0 (no solution); 3: a coefficient is INT64_MIN. */
int sc__omega_normalize(int64_t *r, size_t nv)
{
    int64_t g = 0, b = r[nv], q;
    size_t i;
    bool unit = false, any = false;

    for (i = 0; i < nv; i++) {
        if (r[i] == INT64_MIN)
            return 3;
        unit = unit || r[i] == 1 || r[i] == -1;
        any = any || r[i] != 0;
    }
    if (unit)
        return 0;
    for (i = 0; i < nv && any && g != 1; i++)
        g = om_gcd(g, r[i]);
    if (g == 0)
        return b >= 0 ? 1 : 2;
    if (g == 1)
        return 0;
    for (i = 0; i < nv; i++)
        r[i] /= g;
    q = b / g;
    if (b % g != 0 && b < 0)
        q--;
    r[nv] = q;
    return 0;
}

/* ---- The Omega test (om_solve) ----
 * Does a system of rows sum c*x <= b over nv symbols have an integer
 * solution?  Pugh's Omega test, exact within the caps:
 *  - every row is divided by the gcd of its coefficients, its constant
 *    rounded down; rows with the same coefficients keep the smaller
 *    constant; a row and its opposite with constants summing to < 0 have
 *    no solution, to 0 they are an equality;
 *  - an equality is eliminated exactly: by substitution when a coefficient
 *    is +-1, else by Pugh's step (k the symbol of smallest |a_k|, m =
 *    |a_k| + 1, a new symbol s with m*s = sum (a_i mod^ m) x_i takes x_k's
 *    place; the equality's coefficients shrink until one is +-1);
 *  - a symbol bounded on one side only goes with its rows;
 *  - a symbol whose lower (or upper) bounds all have coefficient 1 is
 *    eliminated by Fourier-Motzkin, which is exact over the integers then;
 *  - otherwise: if the real shadow (Fourier-Motzkin to the end, with the
 *    rounding above) is infeasible, so is the system; if the dark shadow
 *    (each pair a*U - b*L >= (a-1)*(b-1)) has an integer point, so does
 *    the system; else every integer point lies on a splinter: for each
 *    lower bound L <= a*x, with m the largest upper coefficient, a*x = L
 *    + i for i = 0 .. floor((m*a - a - m)/m) (or the same with the roles
 *    of the sides exchanged when that gives fewer), each solved in turn.
 * Each recursion removes a symbol, so the depth is at most nv.  Every
 * product and sum is checked; an overflow, more than SC__OMEGA_MAX_ROWS rows in
 * one system, OM_NODE_LIMIT systems or OM_WORK_LIMIT rows for one
 * question answer OM_UNKNOWN. */

enum {
    OM_FEASIBLE = SC__INT_FEASIBLE,
    OM_INFEASIBLE = SC__INT_INFEASIBLE,
    OM_UNKNOWN = SC__INT_UNKNOWN
};

static int64_t *om_level(sc__omega *c, unsigned level)
{
    return c->buf + (size_t)level * SC__OMEGA_STRIDE;
}

/* A new generation of the dedup table (entries of older ones are free). */
static uint64_t om_next_gen(sc__omega *c)
{
    if (++c->gen > 0xffffffffu) {
        memset(c->hash, 0, 4 * SC__OMEGA_MAX_ROWS * sizeof *c->hash);
        c->gen = 1;
    }
    return c->gen;
}

/* The row of buf with the coefficients of key, entered in generation
 * gen: its index, or SIZE_MAX (then *slot is where it would go). */
static size_t om_lookup(const sc__omega *c, const int64_t *buf,
                        const int64_t *key, uint64_t gen, size_t *slot)
{
    const size_t nv = c->nv, w = nv + 1, mask = 4 * SC__OMEGA_MAX_ROWS - 1;
    uint64_t h = 1469598103934665603ULL;
    size_t i, s;

    for (i = 0; i < nv; i++)
        h = (h ^ (uint64_t)key[i]) * 1099511628211ULL;
    for (s = (size_t)(h ^ (h >> 29)) & mask;; s = (s + 1) & mask) {
        uint64_t e = c->hash[s];
        size_t r;
        if (e >> 32 != gen)
            break;
        r = (size_t)(e & 0xffffffffu) - 1;
        if (memcmp(buf + r * w, key, nv * sizeof *key) == 0)
            return r;
    }
    *slot = s;
    return SIZE_MAX;
}

/* Insert row src (normalized) into buf[0..*n): a row with the same
 * coefficients keeps the smaller b.  false: SC__OMEGA_MAX_ROWS reached. */
static bool om_insert(sc__omega *c, int64_t *buf, size_t *n, const int64_t *src,
                      uint64_t gen)
{
    const size_t nv = c->nv, w = nv + 1;
    size_t slot, r = om_lookup(c, buf, src, gen, &slot);

    if (r != SIZE_MAX) {
        if (src[nv] < buf[r * w + nv])
            buf[r * w + nv] = src[nv];
        return true;
    }
    if (*n >= SC__OMEGA_MAX_ROWS)
        return false;
    memmove(buf + *n * w, src, w * sizeof *src);
    c->hash[slot] = (gen << 32) | (uint64_t)(*n + 1);
    (*n)++;
    return true;
}

/* Into B: the rows of A without x_j, and for every upper bound b*x_j <= U
 * and lower bound L <= a*x_j of A, a*U - b*L >= 0 (the real shadow) or,
 * when dark, >= (a-1)*(b-1) (the dark shadow), normalized.  OM_FEASIBLE:
 * built; OM_INFEASIBLE: a row is 0 <= b < 0; OM_UNKNOWN: a cap. */
static int om_shadow(sc__omega *c, const int64_t *A, size_t n, size_t j,
                     bool dark, int64_t *B, size_t *nb)
{
    const size_t nv = c->nv, w = nv + 1;
    int64_t row[SC__OMEGA_MAX_VARS + 1];
    uint64_t gen = om_next_gen(c);
    size_t i, k, t;

    *nb = 0;
    for (i = 0; i < n; i++)
        if (A[i * w + j] == 0 && !om_insert(c, B, nb, A + i * w, gen))
            return OM_UNKNOWN;
    for (i = 0; i < n; i++) {
        const int64_t *P = A + i * w;
        if (P[j] <= 0)
            continue;
        for (k = 0; k < n; k++) {
            const int64_t *N = A + k * w;
            int64_t a, b, g, x, y, d;
            if (N[j] >= 0)
                continue;
            if (++c->work > OM_WORK_LIMIT || N[j] == INT64_MIN)
                return OM_UNKNOWN;
            a = -N[j];
            b = P[j];
            g = om_gcd(a, b);
            for (t = 0; t <= nv; t++)
                if (__builtin_mul_overflow(a / g, P[t], &x) ||
                    __builtin_mul_overflow(b / g, N[t], &y) ||
                    __builtin_add_overflow(x, y, &row[t]))
                    return OM_UNKNOWN;
            row[j] = 0;
            if (dark && a > 1 && b > 1) {
                /* g*row <= g*b' - (a-1)(b-1): row <= b' - ceil(that / g) */
                if (__builtin_mul_overflow(a - 1, b - 1, &d) ||
                    __builtin_add_overflow(d, g - 1, &d) ||
                    __builtin_sub_overflow(row[nv], d / g, &row[nv]))
                    return OM_UNKNOWN;
            }
            switch (sc__omega_normalize(row, nv)) {
            case 1: continue;
            case 2: return OM_INFEASIBLE;
            case 3: return OM_UNKNOWN;
            default: break;
            }
            if (!om_insert(c, B, nb, row, gen))
                return OM_UNKNOWN;
        }
    }
    return OM_FEASIBLE;
}

/* The real shadow to the end (Fourier-Motzkin with the rounding of
 * sc__omega_normalize) over A, with B as scratch (both overwritten):
 * OM_INFEASIBLE when a row 0 <= b < 0 appears (then there is no integer
 * solution), else OM_FEASIBLE (a real one) or OM_UNKNOWN. */
static int om_real(sc__omega *c, int64_t *A, int64_t *B, size_t n)
{
    const size_t nv = c->nv, w = nv + 1;

    for (;;) {
        size_t best = SIZE_MAX, i, j, nb;
        int64_t best_cost = INT64_MAX, *T;
        int st;
        for (j = 0; j < nv; j++) {
            int64_t np = 0, nn = 0, cost;
            for (i = 0; i < n; i++) {
                np += A[i * w + j] > 0;
                nn += A[i * w + j] < 0;
            }
            if (np + nn == 0)
                continue;
            cost = np * nn - np - nn;
            if (cost < best_cost) {
                best_cost = cost;
                best = j;
            }
        }
        if (best == SIZE_MAX)
            return OM_FEASIBLE;
        st = om_shadow(c, A, n, best, false, B, &nb);
        if (st != OM_FEASIBLE)
            return st;
        T = A;
        A = B;
        B = T;
        n = nb;
    }
}

/* a mod^ m = a - m*floor(a/m + 1/2), in [-m/2, m/2) (m >= 2) */
static int64_t om_modhat(int64_t a, int64_t m)
{
    int64_t r = a % m;

    if (r < 0)
        r += m;
    return 2 * r < m ? r : r - m;
}

/* Eliminate the equality e (sum e_i*x_i = e[nv]) from the rows A[0..n),
 * exactly over the integers (see above).  OM_FEASIBLE: done, the rows
 * rewritten (not normalized); OM_INFEASIBLE; OM_UNKNOWN. */
static int om_equality(sc__omega *c, int64_t *A, size_t n, int64_t *e)
{
    const size_t nv = c->nv, w = nv + 1;
    int64_t d[SC__OMEGA_MAX_VARS + 1];
    size_t i, t, k, iter;

    for (iter = 0;; iter++) {
        int64_t g = 0, m, s, ek, d0, f, x;
        if (iter > 64 || (c->work += n + 1) > OM_WORK_LIMIT)
            return OM_UNKNOWN;
        for (t = 0; t <= nv; t++)
            if (e[t] == INT64_MIN)
                return OM_UNKNOWN;
        for (t = 0; t < nv; t++)
            g = om_gcd(g, e[t]);
        if (g == 0)
            return e[nv] == 0 ? OM_FEASIBLE : OM_INFEASIBLE;
        if (e[nv] % g != 0)
            return OM_INFEASIBLE;
        for (t = 0; t <= nv; t++)
            e[t] /= g;
        k = SIZE_MAX;
        for (t = 0; t < nv; t++)
            if (e[t] != 0 && (k == SIZE_MAX ||
                              (e[t] < 0 ? -e[t] : e[t]) <
                              (e[k] < 0 ? -e[k] : e[k])))
                k = t;
        s = e[k] > 0 ? 1 : -1;
        ek = e[k];
        if (ek == 1 || ek == -1) {
            /* x_k = s*(e[nv] - sum_{t != k} e_t x_t) */
            for (i = 0; i < n; i++) {
                int64_t *R = A + i * w;
                if (R[k] == 0)
                    continue;
                if (__builtin_mul_overflow(R[k], s, &f))
                    return OM_UNKNOWN;
                for (t = 0; t <= nv; t++) {
                    if (t == k)
                        continue;
                    if (__builtin_mul_overflow(f, e[t], &x) ||
                        __builtin_sub_overflow(R[t], x, &R[t]))
                        return OM_UNKNOWN;
                }
                R[k] = 0;
            }
            return OM_FEASIBLE;
        }
        /* Pugh: x_k = sum_{t != k} d_t x_t + d_k*sigma + d0, sigma in
         * x_k's place, where d_t = s*(e_t mod^ m), d_k = -s*m and d0 =
         * s*((-e[nv]) mod^ m) */
        if (s * ek > INT64_MAX / 4)
            return OM_UNKNOWN;
        m = s * ek + 1;
        for (t = 0; t < nv; t++)
            d[t] = t == k ? -s * m : s * om_modhat(e[t], m);
        d0 = s * om_modhat(-e[nv], m);
        for (i = 0; i < n; i++) {
            int64_t *R = A + i * w;
            if (R[k] == 0)
                continue;
            f = R[k];
            for (t = 0; t < nv; t++) {
                if (t == k)
                    continue;
                if (__builtin_mul_overflow(f, d[t], &x) ||
                    __builtin_add_overflow(R[t], x, &R[t]))
                    return OM_UNKNOWN;
            }
            if (__builtin_mul_overflow(f, d0, &x) ||
                __builtin_sub_overflow(R[nv], x, &R[nv]) ||
                __builtin_mul_overflow(f, d[k], &R[k]))
                return OM_UNKNOWN;
        }
        for (t = 0; t < nv; t++) {
            if (t == k)
                continue;
            if (__builtin_mul_overflow(ek, d[t], &x) ||
                __builtin_add_overflow(e[t], x, &e[t]))
                return OM_UNKNOWN;
        }
        if (__builtin_mul_overflow(ek, d0, &x) ||
            __builtin_sub_overflow(e[nv], x, &e[nv]) ||
            __builtin_mul_overflow(ek, d[k], &e[k]))
            return OM_UNKNOWN;
    }
}

/* Normalize the rows of A in place, keep one row per coefficients (the
 * smallest b), and look for a row and its opposite: OM_INFEASIBLE when
 * their constants sum to < 0; when they sum to 0, both go and *has_eq is
 * set, e the equality.  OM_FEASIBLE: done; OM_UNKNOWN: a cap. */
static int om_tidy(sc__omega *c, int64_t *A, size_t *np, int64_t *e,
                   bool *has_eq)
{
    const size_t nv = c->nv, w = nv + 1;
    int64_t neg[SC__OMEGA_MAX_VARS + 1], sum;
    size_t n = *np, i, t, out = 0, r, slot;
    uint64_t gen = om_next_gen(c);

    *has_eq = false;
    if ((c->work += n) > OM_WORK_LIMIT)
        return OM_UNKNOWN;
    for (i = 0; i < n; i++) {
        int64_t *R = A + i * w;
        switch (sc__omega_normalize(R, nv)) {
        case 1: continue;
        case 2: return OM_INFEASIBLE;
        case 3: return OM_UNKNOWN;
        default: break;
        }
        if (!om_insert(c, A, &out, R, gen))
            return OM_UNKNOWN;
    }
    *np = out;
    for (i = 0; i < out; i++) {
        const int64_t *R = A + i * w;
        for (t = 0; t < nv; t++)
            neg[t] = -R[t];   /* no INT64_MIN after sc__omega_normalize */
        r = om_lookup(c, A, neg, gen, &slot);
        if (r == SIZE_MAX)
            continue;
        if (__builtin_add_overflow(R[nv], A[r * w + nv], &sum)) {
            if (R[nv] < 0)
                return OM_INFEASIBLE;
            continue;
        }
        if (sum < 0)
            return OM_INFEASIBLE;
        if (sum > 0)
            continue;
        memcpy(e, R, w * sizeof *e);
        *has_eq = true;
        /* remove rows i and r (the dedup table is stale from here on) */
        for (t = 0, n = 0; t < out; t++)
            if (t != i && t != r)
                memmove(A + n++ * w, A + t * w, w * sizeof *A);
        *np = n;
        return OM_FEASIBLE;
    }
    return OM_FEASIBLE;
}

/* The splinters of x_j in A: side_m[0] the largest upper coefficient,
 * side_m[1] the largest lower one (negated); count[0] the splinters over
 * the lower bounds, count[1] over the upper ones.  false: an overflow. */
static bool om_splinters(const sc__omega *c, const int64_t *A, size_t n,
                         size_t j, int64_t *side_m, int64_t *count)
{
    const size_t w = c->nv + 1;
    size_t i;
    int side;

    side_m[0] = side_m[1] = 0;
    for (i = 0; i < n; i++) {
        int64_t a = A[i * w + j];
        if (a > side_m[0])
            side_m[0] = a;
        if (-a > side_m[1])
            side_m[1] = -a;
    }
    count[0] = count[1] = 0;
    for (side = 0; side < 2; side++) {
        int64_t m = side_m[side], a, k;
        for (i = 0; i < n; i++) {
            a = side == 0 ? -A[i * w + j] : A[i * w + j];
            if (a <= 0)
                continue;
            if (__builtin_mul_overflow(m, a - 1, &k))
                return false;
            /* m*(a-1) - a >= -1, and -1 (a = 1) gives none */
            k = k - a < 0 ? 0 : (k - a) / m + 1;
            if (__builtin_add_overflow(count[side], k, &count[side]))
                return false;
        }
    }
    return true;
}

/* Has the system in om_level(c, level)[0..n), plus the equality eq when
 * non-NULL, an integer solution?  The buffer is this call's to change;
 * the deeper levels are its scratch. */
static int om_solve(sc__omega *c, unsigned level, size_t n, const int64_t *eq)
{
    const size_t nv = c->nv, w = nv + 1;
    int64_t *A = om_level(c, level), *B, e[SC__OMEGA_MAX_VARS + 1];
    bool has_eq = eq != NULL;
    size_t i, j;
    int st;

    if (level + 3 > SC__OMEGA_LEVELS || ++c->nodes > OM_NODE_LIMIT)
        return OM_UNKNOWN;
    if (eq)
        memcpy(e, eq, w * sizeof *e);
    for (;;) {
        int64_t side_m[2], splinters[2], cost, best_cost = INT64_MAX;
        int64_t best_spl = INT64_MAX;
        size_t best = SIZE_MAX, nb;
        bool best_exact = false, changed = false;
        int side;
        if (has_eq) {
            st = om_equality(c, A, n, e);
            if (st != OM_FEASIBLE)
                return st;
        }
        st = om_tidy(c, A, &n, e, &has_eq);
        if (st != OM_FEASIBLE)
            return st;
        if (has_eq)
            continue;
        /* a symbol bounded on one side only: its rows go */
        for (j = 0; j < nv; j++) {
            size_t np = 0, nn = 0, out;
            for (i = 0; i < n; i++) {
                np += A[i * w + j] > 0;
                nn += A[i * w + j] < 0;
            }
            if (np + nn == 0 || (np > 0 && nn > 0))
                continue;
            for (i = 0, out = 0; i < n; i++)
                if (A[i * w + j] == 0)
                    memmove(A + out++ * w, A + i * w, w * sizeof *A);
            n = out;
            changed = true;
        }
        if (changed)
            continue;
        /* the symbol to eliminate: an exact one if any (the fewest new
         * rows), else the one with the fewest splinters (then rows) */
        for (j = 0; j < nv; j++) {
            int64_t np = 0, nn = 0, spl = 0;
            bool lo1 = true, hi1 = true, exact;
            for (i = 0; i < n; i++) {
                int64_t a = A[i * w + j];
                np += a > 0;
                nn += a < 0;
                hi1 = hi1 && a <= 1;
                lo1 = lo1 && a >= -1;
            }
            if (np + nn == 0)
                continue;
            exact = lo1 || hi1;
            cost = np * nn - np - nn;
            if (!exact) {
                if (!om_splinters(c, A, n, j, side_m, splinters))
                    return OM_UNKNOWN;
                spl = splinters[splinters[1] < splinters[0]];
            }
            if (best == SIZE_MAX || (exact && !best_exact) ||
                (exact == best_exact &&
                 (spl < best_spl || (spl == best_spl && cost < best_cost)))) {
                best = j;
                best_cost = cost;
                best_spl = spl;
                best_exact = exact;
            }
        }
        if (best == SIZE_MAX)
            return OM_FEASIBLE;   /* no symbol left, every row 0 <= b */
        j = best;
        B = om_level(c, level + 1);
        if (best_exact) {
            st = om_shadow(c, A, n, j, false, B, &nb);
            return st != OM_FEASIBLE ? st : om_solve(c, level + 1, nb, NULL);
        }
        /* the real shadow: infeasible, so is the system */
        st = om_shadow(c, A, n, j, false, B, &nb);
        if (st == OM_INFEASIBLE)
            return st;
        if (st == OM_FEASIBLE &&
            om_real(c, B, om_level(c, level + 2), nb) == OM_INFEASIBLE)
            return OM_INFEASIBLE;
        /* the dark shadow: an integer point there is one here */
        st = om_shadow(c, A, n, j, true, B, &nb);
        if (st == OM_UNKNOWN)
            return st;
        if (st == OM_FEASIBLE) {
            st = om_solve(c, level + 1, nb, NULL);
            if (st != OM_INFEASIBLE)
                return st;
        }
        /* the splinters, on the side that gives fewer: side 0 takes the
         * lower bounds (coefficient < 0), side 1 the upper ones */
        if (!om_splinters(c, A, n, j, side_m, splinters))
            return OM_UNKNOWN;
        side = splinters[1] < splinters[0];
        if ((unsigned long)splinters[side] > OM_NODE_LIMIT)
            return OM_UNKNOWN;
        for (i = 0; i < n; i++) {
            const int64_t *R = A + i * w;
            int64_t m = side_m[side], a, k, q;
            a = side == 0 ? -R[j] : R[j];
            if (a <= 0)
                continue;
            k = (m * (a - 1) - a) / m;   /* < 0 only when it is -1/m */
            if (m * (a - 1) - a < 0)
                continue;
            for (q = 0; q <= k; q++) {
                /* the row tight up to q: sum R_t x_t = R[nv] - q */
                memcpy(e, R, w * sizeof *e);
                if (__builtin_sub_overflow(R[nv], q, &e[nv]))
                    return OM_UNKNOWN;
                memcpy(B, A, n * w * sizeof *A);
                st = om_solve(c, level + 1, n, e);
                if (st != OM_INFEASIBLE)
                    return st;
            }
        }
        return OM_INFEASIBLE;
    }
}

/* om_solve on rows[0..n) of nv + 1 entries, with a fresh budget. */
int sc__omega_run(sc__omega *c, size_t nv, const int64_t *rows, size_t n)
{
    if (n > SC__OMEGA_MAX_ROWS || nv > SC__OMEGA_MAX_VARS)
        return OM_UNKNOWN;
    c->nv = nv;
    c->nodes = c->work = 0;
    if (rows != om_level(c, 0))
        memcpy(om_level(c, 0), rows, n * (nv + 1) * sizeof *rows);
    return om_solve(c, 0, n, NULL);
}

bool sc__omega_init(sc__omega *c)
{
    c->buf = sc__malloc(SC__OMEGA_LEVELS * SC__OMEGA_STRIDE * sizeof *c->buf);
    c->hash = sc__calloc(4 * SC__OMEGA_MAX_ROWS, sizeof *c->hash);
    return c->buf && c->hash;
}

void sc__omega_destroy(sc__omega *c)
{
    sc__free(c->buf);
    sc__free(c->hash);
    memset(c, 0, sizeof *c);
}

int64_t *sc__omega_start(sc__omega *c, size_t nv)
{
    c->nv = nv;
    om_next_gen(c);
    return om_level(c, 0);
}

bool sc__omega_add(sc__omega *c, size_t *n, const int64_t *row)
{
    return om_insert(c, om_level(c, 0), n, row, c->gen);
}

int sc__int_feasible(const int64_t *rows, size_t n, size_t nv)
{
    sc__omega c;
    int st;

    memset(&c, 0, sizeof c);
    if (!sc__omega_init(&c)) {
        sc__omega_destroy(&c);
        return -1;
    }
    st = sc__omega_run(&c, nv, rows, n);
    sc__omega_destroy(&c);
    return st;
}

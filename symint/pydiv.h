/* symcut — Python's integer floor division, ceiling division and modulo
 * on int64_t: the one copy of these rules, for the evaluators of symint/
 * and the symbolic-integer kernels.
 *
 * Included by symint/, graph/ and kernels/ only (and by white-box tests). */
#ifndef SYMCUT_SYMINT_PYDIV_H
#define SYMCUT_SYMINT_PYDIV_H

#include <stdbool.h>
#include <stdint.h>

#include "util/internal.h"

/* *q = a // b (rounded toward -inf); b != 0.  false on overflow
 * (INT64_MIN // -1), then *q is unchanged. */
static inline bool sc__i64_floordiv(int64_t a, int64_t b, int64_t *q)
{
    int64_t d, r;
    if (SC__UNLIKELY(b == -1)) {
        if (a == INT64_MIN)
            return false;
        *q = -a;
        return true;
    }
    d = a / b;
    r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
        d--;
    *q = d;
    return true;
}

/* *q = ceil(a / b) (rounded toward +inf); b != 0.  false on overflow
 * (INT64_MIN / -1), then *q is unchanged. */
static inline bool sc__i64_ceildiv(int64_t a, int64_t b, int64_t *q)
{
    int64_t d, r;
    if (SC__UNLIKELY(b == -1)) {
        if (a == INT64_MIN)
            return false;
        *q = -a;
        return true;
    }
    d = a / b;
    r = a % b;
    if (r != 0 && ((r < 0) == (b < 0)))
        d++;
    *q = d;
    return true;
}

/* a % b with the sign of b (Python's modulo); b != 0.  Never overflows
 * (INT64_MIN % -1 is 0). */
static inline int64_t sc__i64_mod(int64_t a, int64_t b)
{
    int64_t r;
    if (SC__UNLIKELY(b == -1))
        return 0;
    r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return r;
}

/* The same two for a divisor b > 0 (no overflow, fewer tests). */
static inline int64_t sc__i64_floordiv_pos(int64_t a, int64_t b)
{
    return a / b - (a % b < 0);
}

static inline int64_t sc__i64_mod_pos(int64_t a, int64_t b)
{
    int64_t r = a % b;
    return r < 0 ? r + b : r;
}

#endif /* SYMCUT_SYMINT_PYDIV_H */

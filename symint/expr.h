/* symcut — the private layout of expression nodes and the context.
 * Shared by the files of symint/ only (and by white-box tests). */
#ifndef SYMCUT_SYMINT_EXPR_H
#define SYMCUT_SYMINT_EXPR_H

#include <symcut/symint.h>

#include "util/internal.h"

/* An exact integer with a small fast path: when big is NULL the value is
 * `small`; otherwise it is *big and `small` is unused.  A value that fits
 * in int64_t is always stored small (so equality of values is equality of
 * representations).  Big values in nodes are owned by the context. */
typedef struct sc__int {
    int64_t small;
    mpz_ptr big;
} sc__int;

struct sc_expr {
    uint8_t kind;        /* sc_expr_kind */
    uint8_t is_bool;     /* boolean-valued */
    uint32_t nargs;      /* number of args (and coefs / exps) */
    uint32_t degree;     /* total degree: INT 0, atoms 1, Mul sum of exps,
                            Add max over terms; orders Add terms */
    uint32_t depth;      /* 1 + max depth of args (INT/SYMBOL: 1) */
    uint64_t hash;       /* content hash (stable across runs) */
    sc_expr *chain;      /* next node in the intern table bucket */
    sc_expr **args;      /* children, canonical order */
    sc__int *coefs;      /* ADD: coefficient of args[i] (never 0) */
    uint64_t *exps;      /* MUL: exponent of args[i] (>= 1) */
    union {
        sc__int value;   /* INT: the value; ADD: the constant */
        struct {
            const char *name;
            size_t index;
        } sym;           /* SYMBOL */
    } u;
};

/* Shapes, by kind:
 *  INT       u.value
 *  SYMBOL    u.sym
 *  ADD       u.value (constant) + sum coefs[i] * args[i]; nargs >= 1, and
 *            nargs == 1 implies (constant != 0 or coefs[0] != 1); args[i] is
 *            neither INT nor ADD
 *  MUL       prod args[i] ** exps[i]; nargs >= 2 or exps[0] >= 2; args[i] is
 *            neither INT nor MUL (an ADD base only when not expanded)
 *  FLOORDIV, CEILDIV, MOD   args[0], args[1]
 *  MIN, MAX  args[0..nargs), nargs >= 2, at most one INT (first)
 *  EQ, NE, LE  args[0] compared with 0
 *  AND, OR   args[0..nargs), nargs >= 2, no TRUE/FALSE among them
 *  TRUE, FALSE  nothing
 */

struct sc_ctx {
    sc__arena arena;
    sc_expr **table;         /* intern table, power-of-two buckets */
    size_t table_size;
    size_t count;            /* interned nodes */
    sc_expr **symbols;       /* by index */
    size_t nsymbols, symbols_cap;
    mpz_ptr *bigs;           /* big integers owned by nodes (to clear) */
    size_t nbigs, bigs_cap;
    size_t expand_limit;
    sc_error error;          /* recorded by failing constructors */
    sc_expr *true_, *false_, *zero, *one, *minus_one;
};

/* Record an error in the context and return NULL (for constructors). */
sc_expr *sc__ctx_fail(sc_ctx *ctx, sc_status code, const char *fmt, ...)
    SC__PRINTF(3, 4);

/* ---- sc__int arithmetic (symint/int.c) --------------------------------
 * Results that are big are allocated in scratch mpz's owned by the caller
 * (`tmp`, initialised) or, for node storage, by the context. */
static inline bool sc__int_is_small(const sc__int *a) { return !a->big; }
int sc__int_sgn(const sc__int *a);
int sc__int_cmp(const sc__int *a, const sc__int *b);
bool sc__int_is_si(const sc__int *a, int64_t v);
void sc__int_get_mpz(const sc__int *a, mpz_ptr out);

#endif /* SYMCUT_SYMINT_EXPR_H */

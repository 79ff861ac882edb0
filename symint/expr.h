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
    uint64_t text;       /* a lower bound of the printed length: the
                            characters of its symbols' names and of its
                            integers' digits, counted at each occurrence
                            in the tree (at most SC__TEXT_LIMIT) */
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

/* The largest tree a node may stand for, counted as in sc_expr.text: a
 * node whose printed form would be longer is refused with SC_ERR_LIMIT
 * (interned nodes share subtrees, but their printed forms do not, so
 * nested expansions can make a short input print to gigabytes). */
#define SC__TEXT_LIMIT ((uint64_t)1 << 20)

#define SC__NAME_CACHE 64 /* a power of two */
#define SC__SMALL_MIN (-64)
#define SC__SMALL_MAX 1024

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
    /* Appended by the symint core (ctx.c): scratch memory with a stack
     * discipline (sc__ctx_mark / sc__ctx_release), so that a failing or
     * long-jumping constructor leaks nothing. */
    struct sc__scratch_block *scratch_first, *scratch_cur;
    mpz_ptr *tmps;           /* scratch mpz's, initialised, reused */
    size_t ntmps_used, ntmps, tmps_cap;
    /* Range cache (range.c): one ranger kept between calls of
     * sc_expr_range / sc_expr_simplify while the bounds it was made for
     * are unchanged.  Every sc_bounds of the context carries a stamp, new
     * at its creation and at each change (bounds_stamp counts them), so a
     * stamp names one version of one bounds object; 0 is "no bounds". */
    struct sc__ranger *rcache;
    uint64_t rcache_stamp;
    bool rcache_busy;
    uint64_t bounds_stamp;
    struct sc__opc_entry *opc; /* operation cache (NULL until first use) */
    unsigned opc_bits;         /* it has 2**opc_bits entries */
    size_t opc_puts;           /* results stored since it was last resized */
    /* Symbols by name for sc__symbol_find: direct-mapped on the length
     * and the first and last characters, filled as they are looked up. */
    sc_expr *name_cache[SC__NAME_CACHE];
    /* INT nodes of the values [SC__SMALL_MIN, SC__SMALL_MAX), filled as
     * they are first made (sc__expr_int). */
    sc_expr *small_ints[SC__SMALL_MAX - SC__SMALL_MIN];
};

/* The sort key of a symbol's name, stored just before the name of an
 * interned symbol, so that sc_expr_cmp orders symbols without scanning
 * their names: the length of the part before the trailing digits, and
 * those digits as a number when they fit (leading zeros ignored); and the
 * length of the whole name (for the printer). */
typedef struct sc__sym_key {
    size_t len;         /* strlen(name) */
    uint32_t plen;      /* length before the trailing digits */
    uint8_t has_digits; /* the name ends with digits */
    uint8_t num_ok;     /* num holds them (at most 19 significant) */
    uint64_t num;
} sc__sym_key;

static inline const sc__sym_key *sc__sym_key_of(const sc_expr *e)
{
    return (const sc__sym_key *)(const void *)(e->u.sym.name -
                                               sizeof(sc__sym_key));
}

/* strlen of an interned symbol's name. */
static inline size_t sc__symbol_len(const sc_expr *e)
{
    return sc__sym_key_of(e)->len;
}

/* The interned symbol named by the len bytes at name (no NUL needed), or
 * NULL when there is none (no error is recorded: sc_expr_symbol makes and
 * validates new symbols).  Found symbols go to ctx->name_cache. */
sc_expr *sc__symbol_find(sc_ctx *ctx, const char *name, size_t len);

/* Record an error in the context and return NULL (for constructors). */
sc_expr *sc__ctx_fail(sc_ctx *ctx, sc_status code, const char *fmt, ...)
    SC__PRINTF(3, 4);

/* ---- sc__int arithmetic (symint/int.c) --------------------------------
 * Results that are big live in the context's scratch mpz's (sc__ctx_tmp,
 * released with sc__ctx_mark/sc__ctx_release) or, for node storage, in
 * mpz's the context owns. */
static inline bool sc__int_is_small(const sc__int *a) { return !a->big; }
static inline int sc__int_sgn(const sc__int *a)
{
    if (a->big)
        return mpz_sgn(a->big);
    return (a->small > 0) - (a->small < 0);
}
int sc__int_cmp(const sc__int *a, const sc__int *b);
static inline bool sc__int_is_si(const sc__int *a, int64_t v)
{
    return !a->big && a->small == v;
}
void sc__int_get_mpz(const sc__int *a, mpz_ptr out);

/* ---- Appended by the symint core (int.c, ctx.c, arith.c, logic.c) ------
 *
 * Error convention of the sc__ functions below that return bool or a
 * pointer: false / NULL means failure, and the reason (SC_ERR_NOMEM,
 * SC_ERR_LIMIT, ...) is recorded in the context as by sc__ctx_fail.
 *
 * Scratch memory.  Constructors take a mark, allocate temporaries (arrays,
 * mpz's) from the context, and release to the mark before returning; an
 * sc__int whose `big` points to a scratch mpz is valid until the release.
 * Nothing allocated this way survives the release: interning copies. */
typedef struct sc__mark {
    struct sc__scratch_block *block;
    size_t used;
    size_t ntmps;
} sc__mark;

struct sc__scratch_block {
    struct sc__scratch_block *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
};
static inline sc__mark sc__ctx_mark(const sc_ctx *ctx)
{
    sc__mark m;
    m.block = ctx->scratch_cur;
    m.used = ctx->scratch_cur->used;
    m.ntmps = ctx->ntmps_used;
    return m;
}
static inline void sc__ctx_release(sc_ctx *ctx, sc__mark mark)
{
    ctx->scratch_cur = mark.block;
    mark.block->used = mark.used;
    ctx->ntmps_used = mark.ntmps;
}
void *sc__ctx_scratch_slow(sc_ctx *ctx, size_t size);
/* size bytes aligned to 16, valid until the release of an earlier mark. */
static inline void *sc__ctx_scratch(sc_ctx *ctx, size_t size)
{
    struct sc__scratch_block *b = ctx->scratch_cur;
    size_t n = (size + 15) & ~(size_t)15;
    if (n != 0 && n >= size && b->size - b->used >= n) {
        void *p = b->data + b->used;
        b->used += n;
        return p;
    }
    return sc__ctx_scratch_slow(ctx, size);
}
/* An initialised scratch mpz (value unspecified). */
mpz_ptr sc__ctx_tmp(sc_ctx *ctx);
/* Record SC_ERR_NOMEM and return NULL. */
sc_expr *sc__ctx_nomem(sc_ctx *ctx);

/* The interned node equal to the prototype p (kind, is_bool, nargs, args,
 * coefs, exps, u filled in; the other fields are computed).  p's arrays
 * and big integers may be scratch: a new node gets copies.  NULL on
 * exhaustion (nothing is half-inserted). */
sc_expr *sc__intern(sc_ctx *ctx, const sc_expr *p);

/* ---- sc__int (int.c) ----------------------------------------------------
 * r may alias a or b.  A big result lives in a scratch mpz of ctx. */
static inline void sc__int_set_si(sc__int *r, int64_t v)
{
    r->small = v;
    r->big = NULL;
}
/* r refers to v without copying it (v must outlive r); normalised. */
void sc__int_view_mpz(sc__int *r, mpz_srcptr v);
/* mpz_init(m) and copy v into it; m is initialised even on failure. */
bool sc__mpz_init_set(sc_ctx *ctx, mpz_ptr m, mpz_srcptr v);
/* r = a copy of v in a scratch mpz (or small). */
bool sc__int_set_mpz(sc_ctx *ctx, sc__int *r, mpz_srcptr v);
static inline bool sc__int_eq(const sc__int *a, const sc__int *b)
{
    if (!a->big && !b->big)
        return a->small == b->small;
    if (a->big && b->big)
        return mpz_cmp(a->big, b->big) == 0;
    return false;
}
int sc__int_cmp_si(const sc__int *a, int64_t v);
/* Number of bits of |a| (0 for 0). */
size_t sc__int_bits(const sc__int *a);
static inline uint64_t sc__mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    return h;
}
uint64_t sc__int_hash_big(const sc__int *a);
static inline uint64_t sc__int_hash(const sc__int *a)
{
    /* 1 (the usual coefficient) and 0 hash to constants the compiler
     * folds. */
    if (!a->big && a->small == 1)
        return sc__mix64(UINT64_C(1) ^ UINT64_C(0x9e3779b97f4a7c15));
    if (!a->big && a->small == 0)
        return sc__mix64(UINT64_C(0x9e3779b97f4a7c15));
    if (!a->big)
        return sc__mix64((uint64_t)a->small ^ UINT64_C(0x9e3779b97f4a7c15));
    return sc__int_hash_big(a);
}
bool sc__int_add(sc_ctx *ctx, sc__int *r, const sc__int *a, const sc__int *b);
bool sc__int_sub(sc_ctx *ctx, sc__int *r, const sc__int *a, const sc__int *b);
bool sc__int_mul(sc_ctx *ctx, sc__int *r, const sc__int *a, const sc__int *b);
bool sc__int_neg(sc_ctx *ctx, sc__int *r, const sc__int *a);
bool sc__int_abs(sc_ctx *ctx, sc__int *r, const sc__int *a);
/* Python semantics; b != 0 (not checked). */
bool sc__int_floordiv(sc_ctx *ctx, sc__int *r, const sc__int *a,
                      const sc__int *b);
bool sc__int_ceildiv(sc_ctx *ctx, sc__int *r, const sc__int *a,
                     const sc__int *b);
bool sc__int_mod(sc_ctx *ctx, sc__int *r, const sc__int *a, const sc__int *b);
/* b divides a exactly, b != 0. */
bool sc__int_divexact(sc_ctx *ctx, sc__int *r, const sc__int *a,
                      const sc__int *b);
/* Non-negative gcd; gcd(0, 0) == 0. */
bool sc__int_gcd(sc_ctx *ctx, sc__int *r, const sc__int *a, const sc__int *b);
/* *out = (b divides a); b == 0 divides only 0. */
bool sc__int_divisible(sc_ctx *ctx, bool *out, const sc__int *a,
                       const sc__int *b);
/* a ** e; SC_ERR_LIMIT when the result would exceed SC__POW_MAX_BITS. */
#define SC__POW_MAX_BITS ((size_t)1 << 20)
bool sc__int_pow_ui(sc_ctx *ctx, sc__int *r, const sc__int *a, uint64_t e);

/* The INT node of value v (v may be scratch). */
sc_expr *sc__expr_int(sc_ctx *ctx, const sc__int *v);

/* ---- Arithmetic helpers (arith.c) -------------------------------------- */
/* ka*a + kb*b + c (b may be NULL); a, b integer-valued, non-NULL. */
sc_expr *sc__expr_lin(sc_ctx *ctx, sc_expr *a, int64_t ka, sc_expr *b,
                      int64_t kb, int64_t c);
/* The sum of args[i], negated where neg[i] (n >= 1), in one step: the
 * canonical form that folding sc_expr_add / sc_expr_sub from the left
 * builds, when no argument is boolean, Mod, or a sum with a Mod term (so
 * that no step recombines FloorDiv and Mod terms, which makes folding and
 * summing at once agree).  For the parser's chains of + and -, without
 * their intermediate sums. */
sc_expr *sc__expr_add_signed(sc_ctx *ctx, size_t n, sc_expr *const *args,
                             const bool *neg);
/* Is e an integer expression that sc__expr_add_signed accepts? */
static inline bool sc__expr_sum_safe(const sc_expr *e)
{
    uint32_t i;
    if (e->is_bool || e->kind == SC_EXPR_MOD)
        return false;
    if (e->kind == SC_EXPR_ADD)
        for (i = 0; i < e->nargs; i++)
            if (e->args[i]->kind == SC_EXPR_MOD)
                return false;
    return true;
}

/* e * m / d for an integer-valued e (d NULL: 1); d must divide every
 * coefficient and the constant of e exactly.  m == 0 gives 0. */
sc_expr *sc__expr_scale(sc_ctx *ctx, sc_expr *e, const sc__int *m,
                        const sc__int *d);
/* The same with e's constant replaced: (e - const(e)) * m / d + c (only
 * e's coefficients need be divisible by d). */
sc_expr *sc__expr_affine(sc_ctx *ctx, sc_expr *e, const sc__int *m,
                         const sc__int *d, const sc__int *c);
/* The gcd of e's coefficients (an Add) and constant; 1 for a non-Add
 * non-constant, |v| for a constant v. */
bool sc__expr_content(sc_ctx *ctx, sc__int *g, const sc_expr *e);

/* Exponent limit for a non-constant base. */
#define SC__MAX_EXPONENT ((uint64_t)1 << 32)


/* ---- Traversal helpers shared by symmap.c, range.c, simplify.c, eval.c
 * and prog.c ------------------------------------------------------------ */
#define SC__MEMO_NONE ((size_t)-1)
/* A map from node pointers to size_t values for the duration of one
 * traversal (nodes are interned, so the pointer is the identity). */
typedef struct sc__memo sc__memo;
sc__memo *sc__memo_new(void);
void sc__memo_free(sc__memo *m);
/* The value stored for e, or SC__MEMO_NONE. */
size_t sc__memo_get(const sc__memo *m, const sc_expr *e);
/* Store (or replace) e -> value; storing SC__MEMO_NONE forgets e.  False
 * on exhaustion (then m is unchanged). */
bool sc__memo_put(sc__memo *m, const sc_expr *e, size_t value);
/* Is e a symbol interned in ctx? */
bool sc__ctx_has_symbol(const sc_ctx *ctx, const sc_expr *e);
void sc__mpz_set_i64(mpz_ptr z, int64_t v);
bool sc__mpz_get_i64(mpz_srcptr z, int64_t *out);
/* Memoised range computation over one set of bounds (symint/range.c). */
typedef struct sc__ranger sc__ranger;
sc__ranger *sc__ranger_new(const sc_bounds *bounds);
void sc__ranger_free(sc__ranger *r);
/* The range of e; *out stays valid until the ranger is freed. */
sc_status sc__ranger_range(sc__ranger *r, sc_expr *e, const sc_range **out,
                           sc_error *err);
/* The range of floor(a / d) (out initialised by the caller), without
 * building the node. */
sc_status sc__ranger_floordiv(sc__ranger *r, sc_expr *a, sc_expr *d,
                              sc_range *out, sc_error *err);

/* The context's cached ranger for bounds (valid while they are unchanged),
 * or a fresh one when the cache is in use or ctx is NULL; NULL on
 * exhaustion.  Give it back with sc__ctx_ranger_done. */
sc__ranger *sc__ctx_ranger(sc_ctx *ctx, const sc_bounds *bounds);
void sc__ctx_ranger_done(sc_ctx *ctx, sc__ranger *r);

/* The operation cache: remembers the results of the binary (and unary)
 * public constructors, keyed by (operation, operands), so that building
 * the same operation again is one lookup.  Direct-mapped, allocated at
 * the first store; a store overwrites.  Results are interned nodes, and a
 * constructor's result depends only on its operands and the expand limit
 * (sc_ctx_set_expand_limit empties the cache), so a hit returns exactly
 * what the constructor would build.  Failures are never stored. */
enum {
    SC__OP_NONE,
    SC__OP_ADD,
    SC__OP_SUB,
    SC__OP_NEG,
    SC__OP_MUL,
    SC__OP_FLOORDIV,
    SC__OP_CEILDIV,
    SC__OP_MOD,
    SC__OP_MIN,
    SC__OP_MAX,
    SC__OP_EQ,
    SC__OP_NE,
    SC__OP_LT,
    SC__OP_LE,
    SC__OP_GT,
    SC__OP_GE,
    SC__OP_AND,
    SC__OP_OR,
    SC__OP_NOT,
    SC__OP_MUL_N, /* sc_expr_mul_n of 2 or 3 factors */
    SC__OP_SUM3,  /* sc__expr_add_signed of 3: SUM3 + 2*neg[1] + neg[2] */
    SC__OP_SUM3_LAST = SC__OP_SUM3 + 3,
};
/* Operation cache: 2**SC__OPC_MIN_BITS entries at first, doubled (emptied)
 * each time 4x as many results as it has entries have been stored (misses
 * keep storing, so a busy context grows it until its operations fit), up
 * to 2**SC__OPC_MAX_BITS: small for short-lived contexts, large for busy
 * ones.  Lookups and stores are inline (they are on every constructor's
 * path); allocating and growing is sc__opc_put_slow (ctx.c). */
#define SC__OPC_MIN_BITS 10
#define SC__OPC_MAX_BITS 14

struct sc__opc_entry {
    const sc_expr *a, *b, *c;
    sc_expr *r;
    unsigned op;
};

static inline size_t sc__opc_slot(unsigned bits, unsigned op,
                                  const sc_expr *a, const sc_expr *b,
                                  const sc_expr *c)
{
    uint64_t h = a->hash * UINT64_C(0x9e3779b97f4a7c15);
    h ^= (b ? b->hash : 0) * UINT64_C(0xc2b2ae3d27d4eb4f);
    h ^= (c ? c->hash : 0) * UINT64_C(0x27d4eb2f165667c5);
    h ^= (uint64_t)op * UINT64_C(0x165667b19e3779f9);
    return (size_t)(h >> (64 - bits));
}

/* Three operands (the n-ary constructors with n <= 3; c NULL for 2). */
static inline sc_expr *sc__opc_get3(sc_ctx *ctx, unsigned op,
                                    const sc_expr *a, const sc_expr *b,
                                    const sc_expr *c)
{
    const struct sc__opc_entry *x;
    if (!ctx->opc)
        return NULL;
    x = &ctx->opc[sc__opc_slot(ctx->opc_bits, op, a, b, c)];
    return x->op == op && x->a == a && x->b == b && x->c == c ? x->r : NULL;
}

static inline sc_expr *sc__opc_get(sc_ctx *ctx, unsigned op,
                                   const sc_expr *a, const sc_expr *b)
{
    return sc__opc_get3(ctx, op, a, b, NULL);
}

/* Allocate or grow the cache (emptying it), then store. */
void sc__opc_put_slow(sc_ctx *ctx, unsigned op, const sc_expr *a,
                      const sc_expr *b, const sc_expr *c, sc_expr *r);

static inline void sc__opc_put3(sc_ctx *ctx, unsigned op, const sc_expr *a,
                                const sc_expr *b, const sc_expr *c,
                                sc_expr *r)
{
    struct sc__opc_entry *x;
    if (!r)
        return;
    if (SC__UNLIKELY(!ctx->opc ||
                     (ctx->opc_bits < SC__OPC_MAX_BITS &&
                      ++ctx->opc_puts > ((size_t)4 << ctx->opc_bits)))) {
        sc__opc_put_slow(ctx, op, a, b, c, r);
        return;
    }
    x = &ctx->opc[sc__opc_slot(ctx->opc_bits, op, a, b, c)];
    x->op = op;
    x->a = a;
    x->b = b;
    x->c = c;
    x->r = r;
}

static inline void sc__opc_put(sc_ctx *ctx, unsigned op, const sc_expr *a,
                               const sc_expr *b, sc_expr *r)
{
    sc__opc_put3(ctx, op, a, b, NULL, r);
}

/* Forget every entry (the table keeps or shrinks its memory). */
void sc__memo_clear(sc__memo *m);

/* From symint/eval.c: exact evaluation with symbols bound to int64_t
 * values (syms sorted by index). */
sc_status sc__expr_eval_vals(sc_ctx *ctx, sc_expr *e, size_t n,
                             sc_expr *const *syms, const int64_t *vals,
                             mpz_ptr out, int64_t *out_si, sc_error *err);

#endif /* SYMCUT_SYMINT_EXPR_H */

/* symcut — exact evaluation of an expression under a binding, with Python
 * integer semantics.
 *
 * Errors propagate strictly through every node except And/Or: a false
 * argument makes an And false (a true one an Or true) whatever errors the
 * other arguments raise, and only an undecided And/Or raises the first
 * error of its arguments.  This makes the result independent of the
 * order of the arguments (canonical forms reorder them), so that
 * simplification never introduces an error, and an evaluation in any
 * short-circuit order that succeeds agrees with this one.
 *
 * Two evaluators give identical results.  The fast one works on int64_t
 * with checked arithmetic, walks the expression as a tree (no memo) with
 * a small fixed stack and a visit budget, and gives up on overflow, on a
 * big constant, on depth, on a large DAG, or on an error inside an
 * And/Or.  The general one is exact (GMP), memoises shared subtrees and
 * keeps an explicit stack, so it is linear in the number of distinct
 * nodes and safe at any depth. */
#include <stdlib.h>
#include <string.h>

#include "symint/expr.h"
#include "symint/pydiv.h"


/* Intermediate values larger than this many bits are SC_ERR_LIMIT (the
 * constructors' limit for constant powers). */
#define EVAL_MAX_BITS SC__POW_MAX_BITS

/* ---- Errors ------------------------------------------------------------ */

static sc_status fail_div_zero(sc_ctx *ctx, const sc_expr *e, sc_error *err)
{
    char *s = ctx ? sc_expr_to_str(ctx, e) : NULL;
    sc_status st;

    if (s) {
        st = sc__error_set(err, SC_ERR_DIV_ZERO, "division by zero in %s", s);
        free(s);
    } else {
        st = sc__error_set(err, SC_ERR_DIV_ZERO, "division by zero");
    }
    return st;
}

static sc_status fail_unbound(const sc_expr *sym, sc_error *err)
{
    return sc__error_set(err, SC_ERR_UNBOUND, "unbound symbol %s",
                         sym->u.sym.name);
}

static sc_status fail_not_constant(const sc_expr *sym, sc_error *err)
{
    return sc__error_set(err, SC_ERR_INVALID,
                         "symbol %s is bound to a non-constant expression",
                         sym->u.sym.name);
}

/* ---- Where symbol values come from ------------------------------------
 * A symbol map (the public API) or an array of int64_t values for symbols
 * sorted by index (compiled programs). */

typedef struct bsrc {
    const sc_symmap *map;
    size_t n;
    sc_expr *const *syms;
    const int64_t *vals;
} bsrc;

/* The value of sym: *big when it is big, else *small (with *big NULL). */
static sc_status lookup(const bsrc *b, const sc_expr *sym, int64_t *small,
                        mpz_srcptr *big, sc_error *err)
{
    const sc_expr *val;

    *big = NULL;
    if (b->syms) {
        size_t lo = 0, hi = b->n, idx = sym->u.sym.index;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (b->syms[mid]->u.sym.index < idx)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == b->n || b->syms[lo] != sym)
            return fail_unbound(sym, err);
        *small = b->vals[lo];
        return SC_OK;
    }
    val = sc_symmap_get(b->map, sym);
    if (!val)
        return fail_unbound(sym, err);
    if (val->kind != SC_EXPR_INT)
        return fail_not_constant(sym, err);
    if (val->u.value.big)
        *big = val->u.value.big;
    else
        *small = val->u.value.small;
    return SC_OK;
}

/* ---- int64 helpers (division and modulo: symint/pydiv.h) --------------- */

static bool i64_pow(int64_t b, uint64_t e, int64_t *out)
{
    int64_t r = 1;

    if (e == 0) {
        *out = 1;
        return true;
    }
    if (b == 0 || b == 1) {
        *out = b;
        return true;
    }
    if (b == -1) {
        *out = (e & 1) ? -1 : 1;
        return true;
    }
    if (e >= 64)
        return false;
    for (;;) {
        if ((e & 1) && __builtin_mul_overflow(r, b, &r))
            return false;
        e >>= 1;
        if (!e)
            break;
        if (__builtin_mul_overflow(b, b, &b))
            return false;
    }
    *out = r;
    return true;
}

/* ---- The fast evaluator ------------------------------------------------ */

enum { FAST_DEPTH = 48, FAST_BUDGET = 4096 };

typedef enum fast_result { FAST_OK, FAST_GIVE_UP, FAST_ERROR } fast_result;

typedef struct fframe {
    const sc_expr *e;
    uint32_t i;   /* the child being evaluated */
    int64_t acc;  /* running value (binary operators: the left operand) */
} fframe;

/* The int64 value of a leaf; FAST_GIVE_UP for big values. */
static fast_result fast_leaf(const sc_expr *e, const bsrc *b,
                             int64_t *v, sc_status *st, sc_error *err)
{
    mpz_srcptr big;

    switch ((sc_expr_kind)e->kind) {
    case SC_EXPR_INT:
        if (e->u.value.big)
            return FAST_GIVE_UP;
        *v = e->u.value.small;
        return FAST_OK;
    case SC_EXPR_SYMBOL:
        *st = lookup(b, e, v, &big, err);
        if (*st != SC_OK)
            return FAST_ERROR;
        return big ? FAST_GIVE_UP : FAST_OK;
    case SC_EXPR_TRUE:
        *v = 1;
        return FAST_OK;
    default: /* SC_EXPR_FALSE */
        *v = 0;
        return FAST_OK;
    }
}

static bool is_leaf(const sc_expr *e)
{
    return e->kind == SC_EXPR_INT || e->kind == SC_EXPR_SYMBOL ||
           e->kind == SC_EXPR_TRUE || e->kind == SC_EXPR_FALSE;
}

/* Is an And/Or among the frames?  Then an error may not be the result:
 * the general evaluator decides. */
static bool under_andor(const fframe *stack, int sp)
{
    int i;
    for (i = 0; i < sp; i++)
        if (stack[i].e->kind == SC_EXPR_AND || stack[i].e->kind == SC_EXPR_OR)
            return true;
    return false;
}

/* On FAST_ERROR the status is in *st and err is filled. */
static fast_result fast_eval(sc_ctx *ctx, const sc_expr *root,
                             const bsrc *b, int64_t *out,
                             sc_status *st, sc_error *err)
{
    fframe stack[FAST_DEPTH];
    int sp = 0;
    unsigned budget = FAST_BUDGET;
    const sc_expr *e = root;
    fframe *f;
    int64_t v, t;
    fast_result fr;

descend:
    if (--budget == 0)
        return FAST_GIVE_UP;
    if (is_leaf(e)) {
        fr = fast_leaf(e, b, &v, st, err);
        if (fr == FAST_ERROR && under_andor(stack, sp))
            return FAST_GIVE_UP;
        if (fr != FAST_OK)
            return fr;
        goto deliver;
    }
    if (sp == FAST_DEPTH)
        return FAST_GIVE_UP;
    f = &stack[sp++];
    f->e = e;
    f->i = 0;
    switch ((sc_expr_kind)e->kind) {
    case SC_EXPR_ADD:
        if (e->u.value.big)
            return FAST_GIVE_UP;
        f->acc = e->u.value.small;
        break;
    case SC_EXPR_MUL:
    case SC_EXPR_AND:
        f->acc = 1;
        break;
    default:
        f->acc = 0;
        break;
    }
    e = e->args[0];
    goto descend;

deliver:
    if (sp == 0) {
        *out = v;
        return FAST_OK;
    }
    f = &stack[sp - 1];
    e = f->e;
    switch ((sc_expr_kind)e->kind) {
    case SC_EXPR_ADD: {
        const sc__int *c = &e->coefs[f->i];
        if (c->big || __builtin_mul_overflow(v, c->small, &t) ||
            __builtin_add_overflow(f->acc, t, &f->acc))
            return FAST_GIVE_UP;
        break;
    }
    case SC_EXPR_MUL:
        if (!i64_pow(v, e->exps[f->i], &t) ||
            __builtin_mul_overflow(f->acc, t, &f->acc))
            return FAST_GIVE_UP;
        break;
    case SC_EXPR_FLOORDIV:
    case SC_EXPR_CEILDIV:
    case SC_EXPR_MOD:
        if (f->i == 0) {
            f->acc = v;
            break;
        }
        if (v == 0) {
            if (under_andor(stack, sp))
                return FAST_GIVE_UP;
            *st = fail_div_zero(ctx, e, err);
            return FAST_ERROR;
        }
        if (e->kind == SC_EXPR_MOD)
            f->acc = sc__i64_mod(f->acc, v);
        else if (!(e->kind == SC_EXPR_FLOORDIV
                       ? sc__i64_floordiv(f->acc, v, &f->acc)
                       : sc__i64_ceildiv(f->acc, v, &f->acc)))
            return FAST_GIVE_UP;
        break;
    case SC_EXPR_MIN:
        if (f->i == 0 || v < f->acc)
            f->acc = v;
        break;
    case SC_EXPR_MAX:
        if (f->i == 0 || v > f->acc)
            f->acc = v;
        break;
    case SC_EXPR_EQ:
        f->acc = v == 0;
        break;
    case SC_EXPR_NE:
        f->acc = v != 0;
        break;
    case SC_EXPR_LE:
        f->acc = v <= 0;
        break;
    case SC_EXPR_AND:
        if (!v) {
            sp--;
            v = 0;
            goto deliver;
        }
        break;
    case SC_EXPR_OR:
        if (v) {
            sp--;
            v = 1;
            goto deliver;
        }
        break;
    default:
        return FAST_GIVE_UP;
    }
    if (++f->i < e->nargs) {
        e = e->args[f->i];
        goto descend;
    }
    v = f->acc;
    sp--;
    goto deliver;
}

/* ---- The general evaluator ---------------------------------------------
 * Every node evaluated gets a slot: its value, or the error it raised and
 * the node that caused it (messages are made once, at the end). */

typedef struct gframe {
    sc_expr *e;
    uint32_t i;
    sc_status err_st;       /* And/Or: first error among the arguments */
    const sc_expr *err_at;
} gframe;

typedef struct gslot {
    mpz_t v;
    sc_status st;
    const sc_expr *cause;   /* the node that raised st */
} gslot;

typedef struct gstate {
    sc_ctx *ctx;
    const bsrc *binding;
    sc__memo *memo;   /* node -> index in slots */
    gslot *slots;     /* slots[0..nslots) initialised */
    size_t nslots, slots_cap;
    gframe *stack;
    size_t sp, stack_cap;
    size_t root;      /* index of the result */
    mpz_t t;
} gstate;

static void gstate_free(gstate *g)
{
    size_t i;
    for (i = 0; i < g->nslots; i++)
        mpz_clear(g->slots[i].v);
    sc__free(g->slots);
    sc__free(g->stack);
    sc__memo_free(g->memo);
    mpz_clear(g->t);
}

static mpz_srcptr gval(const gstate *g, const sc_expr *e)
{
    return g->slots[sc__memo_get(g->memo, e)].v;
}

static sc_status limit(sc_error *err)
{
    return sc__error_set(err, SC_ERR_LIMIT,
                         "intermediate value exceeds %lu bits",
                         (unsigned long)EVAL_MAX_BITS);
}

/* r = r * b**n with the size limit; b is not r. */
static sc_status gmul_pow(gstate *g, mpz_ptr r, mpz_srcptr b, uint64_t n)
{
    size_t bits;

    if (mpz_sgn(r) == 0)
        return SC_OK;
    if (mpz_cmpabs_ui(b, 1) <= 0) {
        if (mpz_sgn(b) == 0)
            mpz_set_ui(r, 0);
        else if (mpz_sgn(b) < 0 && (n & 1))
            mpz_neg(r, r);
        return SC_OK;
    }
    bits = mpz_sizeinbase(b, 2);
    /* |b|^n >= 2^((bits-1) n) */
    if (n > EVAL_MAX_BITS / (bits - 1))
        return SC_ERR_LIMIT;
    mpz_pow_ui(g->t, b, (unsigned long)n);
    if (mpz_sizeinbase(r, 2) + mpz_sizeinbase(g->t, 2) > EVAL_MAX_BITS + 1)
        return SC_ERR_LIMIT;
    mpz_mul(r, r, g->t);
    return SC_OK;
}

/* Compute e (not And/Or) into r, its children having values.  Returns
 * the error e raises itself, if any (no message). */
static sc_status gcompute(gstate *g, sc_expr *e, mpz_ptr r)
{
    mpz_srcptr a, b;
    int64_t small;
    uint32_t i;

    switch ((sc_expr_kind)e->kind) {
    case SC_EXPR_INT:
        if (e->u.value.big)
            mpz_set(r, e->u.value.big);
        else
            sc__mpz_set_i64(r, e->u.value.small);
        return SC_OK;
    case SC_EXPR_SYMBOL:
        SC_TRY(lookup(g->binding, e, &small, &a, NULL));
        if (a)
            mpz_set(r, a);
        else
            sc__mpz_set_i64(r, small);
        return SC_OK;
    case SC_EXPR_ADD:
        if (e->u.value.big)
            mpz_set(r, e->u.value.big);
        else
            sc__mpz_set_i64(r, e->u.value.small);
        for (i = 0; i < e->nargs; i++) {
            const sc__int *c = &e->coefs[i];
            if (c->big) {
                mpz_addmul(r, c->big, gval(g, e->args[i]));
            } else {
                sc__mpz_set_i64(g->t, c->small);
                mpz_addmul(r, g->t, gval(g, e->args[i]));
            }
        }
        return SC_OK;
    case SC_EXPR_MUL:
        mpz_set_ui(r, 1);
        for (i = 0; i < e->nargs; i++) {
            SC_TRY(gmul_pow(g, r, gval(g, e->args[i]), e->exps[i]));
        }
        return SC_OK;
    case SC_EXPR_FLOORDIV:
    case SC_EXPR_CEILDIV:
    case SC_EXPR_MOD:
        a = gval(g, e->args[0]);
        b = gval(g, e->args[1]);
        if (mpz_sgn(b) == 0)
            return SC_ERR_DIV_ZERO;
        if (e->kind == SC_EXPR_FLOORDIV)
            mpz_fdiv_q(r, a, b);
        else if (e->kind == SC_EXPR_CEILDIV)
            mpz_cdiv_q(r, a, b);
        else
            mpz_fdiv_r(r, a, b);
        return SC_OK;
    case SC_EXPR_MIN:
    case SC_EXPR_MAX:
        mpz_set(r, gval(g, e->args[0]));
        for (i = 1; i < e->nargs; i++) {
            a = gval(g, e->args[i]);
            if ((e->kind == SC_EXPR_MIN) == (mpz_cmp(a, r) < 0))
                mpz_set(r, a);
        }
        return SC_OK;
    case SC_EXPR_TRUE:
        mpz_set_ui(r, 1);
        return SC_OK;
    case SC_EXPR_FALSE:
        mpz_set_ui(r, 0);
        return SC_OK;
    case SC_EXPR_EQ:
        mpz_set_ui(r, mpz_sgn(gval(g, e->args[0])) == 0);
        return SC_OK;
    case SC_EXPR_NE:
        mpz_set_ui(r, mpz_sgn(gval(g, e->args[0])) != 0);
        return SC_OK;
    case SC_EXPR_LE:
        mpz_set_ui(r, mpz_sgn(gval(g, e->args[0])) <= 0);
        return SC_OK;
    default:
        return SC_ERR_INTERNAL;
    }
}

static bool gpush(gstate *g, sc_expr *e)
{
    gframe *f;
    if (g->sp == g->stack_cap) {
        void *p = g->stack;
        if (!sc__grow(&p, &g->stack_cap, g->sp + 1, sizeof *g->stack))
            return false;
        g->stack = p;
    }
    f = &g->stack[g->sp++];
    f->e = e;
    f->i = 0;
    f->err_st = SC_OK;
    f->err_at = NULL;
    return true;
}

/* Evaluate root into g->slots[g->root] (a value or an error).  Children
 * are evaluated left to right; a node whose child fails fails the same
 * way, except And/Or: a false (true) argument decides, whatever errors
 * the others raise; otherwise their first error is the result.  Returns
 * only the errors that cannot be part of a result (exhaustion). */
static sc_status gmp_eval(gstate *g, sc_expr *root)
{
    if (!gpush(g, root))
        return SC_ERR_NOMEM;
    while (g->sp) {
        gframe *f = &g->stack[g->sp - 1];
        sc_expr *e = f->e;
        bool is_andor = e->kind == SC_EXPR_AND || e->kind == SC_EXPR_OR;
        bool decided = false;
        sc_status st = SC_OK;
        const sc_expr *cause = NULL;
        size_t ci, idx;
        gslot *slot;

        while (f->i < e->nargs) {
            ci = sc__memo_get(g->memo, e->args[f->i]);
            if (ci == SC__MEMO_NONE)
                break;
            if (g->slots[ci].st != SC_OK) {
                if (!is_andor) {
                    st = g->slots[ci].st;
                    cause = g->slots[ci].cause;
                    break;
                }
                if (f->err_st == SC_OK) {
                    f->err_st = g->slots[ci].st;
                    f->err_at = g->slots[ci].cause;
                }
            } else if (is_andor && (mpz_sgn(g->slots[ci].v) != 0) ==
                                       (e->kind == SC_EXPR_OR)) {
                decided = true;
                break;
            }
            f->i++;
        }
        if (st == SC_OK && !decided && f->i < e->nargs) {
            if (!gpush(g, e->args[f->i]))
                return SC_ERR_NOMEM;
            continue;
        }
        if (g->nslots == g->slots_cap) {
            void *p = g->slots;
            if (!sc__grow(&p, &g->slots_cap, g->nslots + 1,
                          sizeof *g->slots))
                return SC_ERR_NOMEM;
            g->slots = p;
        }
        idx = g->nslots;
        slot = &g->slots[g->nslots++];
        mpz_init(slot->v);
        if (st == SC_OK && is_andor) {
            if (decided) {
                mpz_set_ui(slot->v, e->kind == SC_EXPR_OR);
            } else {
                st = f->err_st;
                cause = f->err_at;
                mpz_set_ui(slot->v, e->kind == SC_EXPR_AND);
            }
        } else if (st == SC_OK) {
            st = gcompute(g, e, slot->v);
            cause = e;
            if (st == SC_ERR_INTERNAL)
                return st;
        }
        slot->st = st;
        slot->cause = cause;
        if (!sc__memo_put(g->memo, e, idx))
            return SC_ERR_NOMEM;
        g->sp--;
    }
    g->root = sc__memo_get(g->memo, root);
    return SC_OK;
}

/* The message for an error raised by node `at`. */
static sc_status report(sc_ctx *ctx, sc_status st, const sc_expr *at,
                        sc_error *err)
{
    switch (st) {
    case SC_ERR_DIV_ZERO:
        return fail_div_zero(ctx, at, err);
    case SC_ERR_UNBOUND:
        return fail_unbound(at, err);
    case SC_ERR_INVALID:
        return fail_not_constant(at, err);
    case SC_ERR_LIMIT:
        return limit(err);
    case SC_ERR_NOMEM:
        return sc__error_nomem(err);
    default:
        return sc__error_set(err, st, "evaluation failed");
    }
}

/* The general evaluator: the value goes to out_mpz, or to *out_si (then
 * SC_ERR_OVERFLOW when it does not fit). */
static sc_status eval_general(sc_ctx *ctx, sc_expr *e,
                              const bsrc *binding, mpz_ptr out_mpz,
                              int64_t *out_si, sc_error *err)
{
    gstate g;
    sc__gmp_guard guard;
    sc_status st;
    const gslot *r;

    memset(&g, 0, sizeof g);
    g.ctx = ctx;
    g.binding = binding;
    mpz_init(g.t);
    g.memo = sc__memo_new();
    if (!g.memo) {
        gstate_free(&g);
        return sc__error_nomem(err);
    }
    sc__gmp_push(&guard);
    if (setjmp(guard.env)) {
        sc__gmp_pop(&guard);
        gstate_free(&g);
        return sc__error_nomem(err);
    }
    st = gmp_eval(&g, e);
    if (st != SC_OK) {
        st = report(ctx, st, e, err);
    } else {
        r = &g.slots[g.root];
        if (r->st != SC_OK)
            st = report(ctx, r->st, r->cause, err);
        else if (out_mpz)
            mpz_set(out_mpz, r->v);
        else if (!sc__mpz_get_i64(r->v, out_si))
            st = sc__error_set(err, SC_ERR_OVERFLOW,
                               "value does not fit in int64_t");
    }
    sc__gmp_pop(&guard);
    gstate_free(&g);
    return st;
}

/* Evaluate with the fast evaluator, then if needed the general one. */
static sc_status eval_any(sc_ctx *ctx, sc_expr *e, const bsrc *b,
                          mpz_ptr out, int64_t *out_si, sc_error *err)
{
    int64_t v;
    sc_status st = SC_OK;
    sc__gmp_guard guard;

    if (!e)
        return sc__error_set(err, SC_ERR_INVALID, "NULL expression");
    switch (fast_eval(ctx, e, b, &v, &st, err)) {
    case FAST_OK:
        if (!out) {
            *out_si = v;
            return SC_OK;
        }
        sc__gmp_push(&guard);
        if (setjmp(guard.env)) {
            sc__gmp_pop(&guard);
            return sc__error_nomem(err);
        }
        sc__mpz_set_i64(out, v);
        sc__gmp_pop(&guard);
        return SC_OK;
    case FAST_ERROR:
        return st;
    case FAST_GIVE_UP:
        break;
    }
    return eval_general(ctx, e, b, out, out_si, err);
}

/* Evaluate e with syms[0..n) (sorted by index) bound to vals[0..n): into
 * out, or when out is NULL into *out_si (SC_ERR_OVERFLOW if it does not
 * fit).  For compiled programs (symint/prog.c). */
sc_status sc__expr_eval_vals(sc_ctx *ctx, sc_expr *e, size_t n,
                             sc_expr *const *syms, const int64_t *vals,
                             mpz_ptr out, int64_t *out_si, sc_error *err);

sc_status sc__expr_eval_vals(sc_ctx *ctx, sc_expr *e, size_t n,
                             sc_expr *const *syms, const int64_t *vals,
                             mpz_ptr out, int64_t *out_si, sc_error *err)
{
    static sc_expr *const none[1] = {NULL};
    bsrc b = {NULL, n, n ? syms : none, vals};
    return eval_any(ctx, e, &b, out, out_si, err);
}

/* ---- Public ------------------------------------------------------------ */

/* Exact value of e under binding (Python semantics; booleans 0/1).
 * Errors: SC_ERR_UNBOUND (naming the symbol), SC_ERR_INVALID (a symbol
 * bound to a non-constant), SC_ERR_DIV_ZERO, SC_ERR_LIMIT (an
 * intermediate value beyond 2^20 bits), SC_ERR_NOMEM.  Time: linear in
 * the distinct nodes of e; no allocation for small expressions whose
 * intermediate values fit in int64_t. */
sc_status sc_expr_eval(sc_ctx *ctx, sc_expr *e, const sc_symmap *binding,
                       mpz_ptr out, sc_error *err)
{
    bsrc b = {binding, 0, NULL, NULL};
    return eval_any(ctx, e, &b, out, NULL, err);
}

sc_status sc_expr_eval_si(sc_ctx *ctx, sc_expr *e, const sc_symmap *binding,
                          int64_t *out, sc_error *err)
{
    bsrc b = {binding, 0, NULL, NULL};
    return eval_any(ctx, e, &b, NULL, out, err);
}

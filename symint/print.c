/* symcut — printing expressions in the spelling PyTorch (sympy) prints.
 *
 * The text is Python: sc_expr_parse reads it back to the same node.  The
 * conventions (see the public header for the contract):
 *  - Add: the terms in storage order, then the constant; a negative
 *    coefficient becomes " - " (`s0 - 2*s1 + 3`), a negative leading term
 *    prints `-s0`; coefficients 1 and -1 are omitted.
 *  - Mul: factors joined by `*`, powers as `**` (`s0**2*s1`).
 *  - FloorDiv: `a//b`; the left operand in parentheses when it is a sum, a
 *    product of several factors or a floor division (`(s0 + 1)//8`,
 *    `(s0*s1)//8`, but `s0**2//8`), the right one unless it is a symbol or
 *    a nonnegative integer (`s0//(-2)`, `s0//(s1*s2)`); a floor division
 *    that is a factor, has a coefficient or is negated is parenthesized:
 *    `2*(s0//8)`, `(s0//8)*s1`, `-(s0//8)`.
 *  - Function spellings: `Mod(a, b)`, `CeilDiv(a, b)`, `Min(a, b, ...)`,
 *    `Max(...)`, `Eq(lhs, rhs)`, `Ne(lhs, rhs)`, `And(...)`, `Or(...)`,
 *    `True`, `False`.
 *  - Relations are split into two sides: the terms whose coefficient has
 *    the sign of the leading term stay on the left, the others and the
 *    constant move to the right.  For e <= 0 the operator is `<=` when the
 *    leading coefficient is positive and `>=` (the mirrored form) when it
 *    is negative: `s0 <= 1024`, `s0 >= 2`, `s0 <= s1`, `s0 >= s1 + 1`.
 */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "symint/expr.h"

/* Deeper trees are refused rather than risking the C stack (the parser
 * reads back at most 1000 levels of nesting anyway). */
#define PRINT_DEPTH_MAX 20000

/* Where a node is printed; decides the parentheses. */
typedef enum place {
    AT_TOP,     /* whole text, function argument, side of a relation */
    AT_TERM,    /* a term of a sum with coefficient 1 (after + or -) */
    AT_NEG,     /* operand of a unary minus */
    AT_FACTOR,  /* operand of `*` */
    AT_BASE,    /* base of `**` */
    AT_FD_LEFT, /* left operand of `//` */
    AT_FD_RIGHT /* right operand of `//` */
} place;

static void print_node(sc__buf *b, const sc_expr *e, place at);

/* ---- Output --------------------------------------------------------------
 * Appends with an inline fast path (no NUL written: print_to_buf ends the
 * string); the slow path grows the buffer through sc__buf. */

/* memcpy for the short pieces of text (names, digits): fixed-size copies
 * that overlap, which compile to a few moves instead of a call. */
static inline void copy_short(char *d, const char *s, size_t n)
{
    if (n >= 8) {
        if (n > 16) {
            memcpy(d, s, n);
            return;
        }
        memcpy(d, s, 8);
        memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else if (n >= 2) {
        memcpy(d, s, 2);
        memcpy(d + n - 2, s + n - 2, 2);
    } else if (n == 1) {
        d[0] = s[0];
    }
}

static inline void out_n(sc__buf *b, const char *s, size_t n)
{
    if (SC__LIKELY(b->len + n < b->cap)) {
        copy_short(b->data + b->len, s, n);
        b->len += n;
    } else {
        sc__buf_putn(b, s, n);
    }
}

static inline void out_c(sc__buf *b, char c)
{
    if (SC__LIKELY(b->len + 1 < b->cap))
        b->data[b->len++] = c;
    else
        sc__buf_putc(b, c);
}

static inline void out_s(sc__buf *b, const char *s) { out_n(b, s, strlen(s)); }

/* A string literal (an array, not a pointer). */
#define OUT_LIT(b, lit) out_n((b), "" lit, sizeof("" lit) - 1)

/* ---- Integers ----------------------------------------------------------- */

static int int_sgn(const sc__int *v)
{
    if (v->big)
        return mpz_sgn(v->big);
    return (v->small > 0) - (v->small < 0);
}

static bool int_is_unit(const sc__int *v)
{
    return !v->big && (v->small == 1 || v->small == -1);
}

/* The decimal digits of |v| (the sign is the caller's). */
static void put_u64(sc__buf *b, uint64_t u)
{
    char tmp[24];

    if (u < 10 && SC__LIKELY(b->len + 1 < b->cap)) {
        b->data[b->len++] = (char)('0' + u);
        return;
    }
    char *p = tmp + sizeof tmp;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    out_n(b, p, (size_t)(tmp + sizeof tmp - p));
}

static uint64_t abs_u64(int64_t v)
{
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

/* A big integer in decimal, without its sign when `absolute`. */
static void put_big(sc__buf *b, mpz_srcptr z, bool absolute)
{
    sc__gmp_guard guard;
    size_t size = mpz_sizeinbase(z, 10) + 2;
    char *s = sc__malloc(size);
    const char *p;

    if (!s) {
        b->failed = true;
        return;
    }
    sc__gmp_push(&guard);
    if (setjmp(guard.env)) {
        sc__gmp_pop(&guard);
        sc__free(s);
        b->failed = true;
        return;
    }
    mpz_get_str(s, 10, z);
    sc__gmp_pop(&guard);
    p = s;
    if (absolute && *p == '-')
        p++;
    out_s(b, p);
    sc__free(s);
}

static void put_int(sc__buf *b, const sc__int *v)
{
    if (v->big) {
        put_big(b, v->big, false);
        return;
    }
    if (v->small < 0)
        out_c(b, '-');
    put_u64(b, abs_u64(v->small));
}

static void put_int_abs(sc__buf *b, const sc__int *v)
{
    if (v->big)
        put_big(b, v->big, true);
    else
        put_u64(b, abs_u64(v->small));
}

/* print_node for a child, with the leaves that never take parentheses (a
 * symbol, a nonnegative small integer) written without the call. */
static inline void print_child(sc__buf *b, const sc_expr *e, place at)
{
    if (e->kind == SC_EXPR_SYMBOL) {
        if (!b->failed)
            out_n(b, e->u.sym.name, sc__symbol_len(e));
        return;
    }
    if (e->kind == SC_EXPR_INT && !e->u.value.big && e->u.value.small >= 0) {
        if (!b->failed)
            put_u64(b, (uint64_t)e->u.value.small);
        return;
    }
    print_node(b, e, at);
}

/* ---- Parentheses -------------------------------------------------------- */

static bool needs_parens(const sc_expr *e, place at)
{
    switch ((sc_expr_kind)e->kind) {
    case SC_EXPR_INT:
        return int_sgn(&e->u.value) < 0 &&
               (at == AT_NEG || at == AT_FACTOR || at == AT_BASE ||
                at == AT_FD_RIGHT);
    case SC_EXPR_SYMBOL:
    case SC_EXPR_TRUE:
    case SC_EXPR_FALSE:
        return false;
    case SC_EXPR_ADD:
        return at != AT_TOP && at != AT_TERM;
    case SC_EXPR_MUL: /* a pure power is tighter than `//` */
        return at == AT_BASE || at == AT_FD_RIGHT ||
               (at == AT_FD_LEFT && e->nargs > 1);
    case SC_EXPR_FLOORDIV:
        return at != AT_TOP && at != AT_TERM;
    case SC_EXPR_LE:
        return at != AT_TOP;
    default: /* function spellings: Mod(...), Max(...), Eq(...), ... */
        return at == AT_FD_RIGHT;
    }
}

/* ---- Sums --------------------------------------------------------------- */

/* coef * t, with |coef| shown (the sign is the caller's); `leading_neg`
 * says that a unary minus precedes a unit coefficient. */
static void print_scaled(sc__buf *b, const sc__int *coef, const sc_expr *t,
                         bool leading_neg)
{
    uint32_t i;

    if (int_is_unit(coef)) {
        print_child(b, t, leading_neg ? AT_NEG : AT_TERM);
        return;
    }
    put_int_abs(b, coef);
    out_c(b, '*');
    if (t->kind != SC_EXPR_MUL) {
        print_child(b, t, AT_FACTOR);
        return;
    }
    for (i = 0; i < t->nargs; i++) {
        if (i)
            out_c(b, '*');
        if (t->exps[i] == 1) {
            print_child(b, t->args[i], AT_FACTOR);
        } else {
            print_child(b, t->args[i], AT_BASE);
            OUT_LIT(b, "**");
            put_u64(b, t->exps[i]);
        }
    }
}

static void print_add(sc__buf *b, const sc_expr *e)
{
    uint32_t i;
    int sgn;

    for (i = 0; i < e->nargs; i++) {
        sgn = int_sgn(&e->coefs[i]);
        if (i == 0) {
            if (sgn < 0)
                out_c(b, '-');
        } else {
            out_n(b, sgn < 0 ? " - " : " + ", 3);
        }
        print_scaled(b, &e->coefs[i], e->args[i], i == 0 && sgn < 0);
    }
    sgn = int_sgn(&e->u.value);
    if (sgn != 0) {
        out_n(b, sgn < 0 ? " - " : " + ", 3);
        put_int_abs(b, &e->u.value);
    }
}

/* One side of a relation over the linear form e (an Add, or any other node
 * read as 1*e): the terms whose coefficient has sign `sign`, shown with
 * positive coefficients, then `cmul` times the constant (cmul 0: none).
 * "0" when nothing else is printed. */
static void print_side(sc__buf *b, const sc_expr *e, int sign, int cmul)
{
    bool any = false;
    uint32_t i;
    int csgn;

    if (e->kind != SC_EXPR_ADD) {
        if (sign > 0) {
            print_child(b, e, AT_TOP);
            any = true;
        }
    } else {
        for (i = 0; i < e->nargs; i++) {
            if (int_sgn(&e->coefs[i]) != sign)
                continue;
            if (any)
                OUT_LIT(b, " + ");
            print_scaled(b, &e->coefs[i], e->args[i], false);
            any = true;
        }
        csgn = int_sgn(&e->u.value) * cmul;
        if (csgn != 0) {
            if (any)
                out_n(b, csgn < 0 ? " - " : " + ", 3);
            else if (csgn < 0)
                out_c(b, '-');
            put_int_abs(b, &e->u.value);
            any = true;
        }
    }
    if (!any)
        out_c(b, '0');
}

/* The sign of the leading coefficient of a linear form. */
static int leading_sign(const sc_expr *e)
{
    if (e->kind == SC_EXPR_ADD)
        return int_sgn(&e->coefs[0]);
    return 1;
}

/* Eq/Ne: `Eq(lhs, rhs)`; Le: `lhs <= rhs` or the mirrored `lhs >= rhs`. */
static void print_relation(sc__buf *b, const sc_expr *e)
{
    const sc_expr *x = e->args[0];
    int s = leading_sign(x);

    if (e->kind == SC_EXPR_LE) {
        print_side(b, x, s, 0);
        out_n(b, s > 0 ? " <= " : " >= ", 4);
        print_side(b, x, -s, -s);
        return;
    }
    out_n(b, e->kind == SC_EXPR_EQ ? "Eq(" : "Ne(", 3);
    print_side(b, x, s, 0);
    OUT_LIT(b, ", ");
    print_side(b, x, -s, -s);
    out_c(b, ')');
}

/* ---- Everything else ---------------------------------------------------- */

static void print_call(sc__buf *b, const char *name, const sc_expr *e)
{
    uint32_t i;

    out_s(b, name);
    out_c(b, '(');
    for (i = 0; i < e->nargs; i++) {
        if (i)
            OUT_LIT(b, ", ");
        print_child(b, e->args[i], AT_TOP);
    }
    out_c(b, ')');
}

static void print_mul(sc__buf *b, const sc_expr *e)
{
    uint32_t i;

    for (i = 0; i < e->nargs; i++) {
        if (i)
            out_c(b, '*');
        if (e->exps[i] == 1) {
            print_child(b, e->args[i], AT_FACTOR);
        } else {
            print_child(b, e->args[i], AT_BASE);
            OUT_LIT(b, "**");
            put_u64(b, e->exps[i]);
        }
    }
}

static void print_floordiv(sc__buf *b, const sc_expr *e)
{
    print_child(b, e->args[0], AT_FD_LEFT);
    OUT_LIT(b, "//");
    print_child(b, e->args[1], AT_FD_RIGHT);
}

static void print_node(sc__buf *b, const sc_expr *e, place at)
{
    bool parens;

    if (b->failed)
        return;
    parens = needs_parens(e, at);
    if (parens)
        out_c(b, '(');
    switch ((sc_expr_kind)e->kind) {
    case SC_EXPR_INT:
        put_int(b, &e->u.value);
        break;
    case SC_EXPR_SYMBOL:
        out_n(b, e->u.sym.name, sc__symbol_len(e));
        break;
    case SC_EXPR_ADD:
        print_add(b, e);
        break;
    case SC_EXPR_MUL:
        print_mul(b, e);
        break;
    case SC_EXPR_FLOORDIV:
        print_floordiv(b, e);
        break;
    case SC_EXPR_CEILDIV:
        print_call(b, "CeilDiv", e);
        break;
    case SC_EXPR_MOD:
        print_call(b, "Mod", e);
        break;
    case SC_EXPR_MIN:
        print_call(b, "Min", e);
        break;
    case SC_EXPR_MAX:
        print_call(b, "Max", e);
        break;
    case SC_EXPR_TRUE:
        OUT_LIT(b, "True");
        break;
    case SC_EXPR_FALSE:
        OUT_LIT(b, "False");
        break;
    case SC_EXPR_EQ:
    case SC_EXPR_NE:
    case SC_EXPR_LE:
        print_relation(b, e);
        break;
    case SC_EXPR_AND:
        print_call(b, "And", e);
        break;
    case SC_EXPR_OR:
        print_call(b, "Or", e);
        break;
    }
    if (parens)
        out_c(b, ')');
}

/* Print e into b (initialised): SC_ERR_NOMEM when an append failed,
 * SC_ERR_LIMIT when e is too deep to print recursively. */
static sc_status print_to_buf(sc__buf *b, const sc_expr *e)
{
    if (e->depth > PRINT_DEPTH_MAX)
        return SC_ERR_LIMIT;
    /* Most texts are short: one allocation up front. */
    b->data = sc__malloc(128);
    if (b->data) {
        b->cap = 128;
        b->data[0] = '\0';
    } else {
        b->failed = true;
    }
    print_node(b, e, AT_TOP);
    if (b->failed)
        return SC_ERR_NOMEM;
    b->data[b->len] = '\0';
    return SC_OK;
}

char *sc_expr_to_str(sc_ctx *ctx, const sc_expr *e)
{
    sc__buf b;
    sc_status status;

    if (!e)
        return NULL;
    sc__buf_init(&b);
    status = print_to_buf(&b, e);
    if (status == SC_ERR_LIMIT) {
        sc__buf_free(&b);
        sc__ctx_fail(ctx, status, "expression nested deeper than %d levels "
                     "cannot be printed", PRINT_DEPTH_MAX);
        return NULL;
    }
    if (status != SC_OK) {
        sc__buf_free(&b);
        sc__ctx_fail(ctx, SC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    return sc__buf_take(&b);
}

sc_status sc_expr_fprint(FILE *out, const sc_expr *e, sc_error *err)
{
    sc__buf b;
    sc_status status;
    size_t n, len;

    if (!out || !e)
        return sc__error_set(err, SC_ERR_INVALID,
                             "sc_expr_fprint: NULL stream or expression");
    sc__buf_init(&b);
    status = print_to_buf(&b, e);
    if (status != SC_OK) {
        sc__buf_free(&b);
        if (status == SC_ERR_LIMIT)
            return sc__error_set(err, status,
                                 "expression nested deeper than %d levels "
                                 "cannot be printed", PRINT_DEPTH_MAX);
        return sc__error_nomem(err);
    }
    len = b.len;
    n = fwrite(b.data, 1, len, out);
    sc__buf_free(&b);
    if (n != len || ferror(out))
        return sc__error_set(err, SC_ERR_IO, "cannot write expression");
    return SC_OK;
}

/* symcut — what the shape environment knows: rewriting through
 * replacements and divisibility facts, deciding relations from ranges and
 * facts, and learning new facts (replacements, ranges, divisibility,
 * bounds on expressions, disjunctions).
 *
 * Relations are handled in one normal form: a relation on X is a relation
 * on c + a*L, where L has no constant, a positive leading coefficient and
 * coprime coefficients.  Facts about L are kept in the symbol's range when
 * L is a symbol, else in a "form" keyed by L (interned, so lookup is one
 * hash probe) and indexed by L's symbols. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "guards/env.h"

static sc_status contradiction(sc_env *env, sc_expr *fact, sc_error *err)
{
    char *text = fact ? sc_expr_to_str(env->ctx, fact) : NULL;
    sc_status st = sc__error_set(err, SC_ERR_CONTRADICTION,
                                 "%s contradicts what is known",
                                 text ? text : "a fact");
    free(text);
    return st;
}

/* ---- Divisibility ---------------------------------------------------------- */

static bool divisible(const sc_env *env, const sc_expr *x, const sc_expr *k)
{
    uint64_t id;
    bool found = false;

    if (env->ndivs_alive == 0 || !sc__gmap_get(&env->div_of, sc__gmap_ptr(x), &id))
        return false;
    for (; id != SIZE_MAX && !found; id = env->divs[id].next) {
        const sc__env_div *d = &env->divs[id];
        int64_t a, b;
        if (d->dead)
            continue;
        if (d->k == k)
            found = true;
        else if (sc_expr_value_si(d->k, &a) && sc_expr_value_si(k, &b) &&
                 b != 0)
            /* Big divisors are only matched exactly: sound, not complete. */
            found = b == -1 || a % b == 0;
    }
    return found;
}

typedef struct rewriter {
    sc_env *env;
    sc__gmap *memo;   /* env->memo */
    const sc_bounds *bounds;
    sc_error *err;
    sc_status st;     /* a failed range computation (SC_OK: none) */
    bool nomem;
} rewriter;

static sc_expr *rw(rewriter *w, sc_expr *e);
static sc_expr *drop_factor(sc_ctx *ctx, sc_expr *t, sc_expr *f);

/* N / f for an atom f that is a factor of every term of N (an Add
 * without constant, a term, or 0), else NULL. */
static sc_expr *divide_terms(sc_env *env, sc_expr *N, sc_expr *f)
{
    SC__TMP_SAVE(env);
    sc_ctx *ctx = env->ctx;
    mpz_ptr c = sc__tz(env);
    sc_expr *acc = NULL;
    size_t i, n;

    if (sc_expr_is_int(N)) {
        sc_expr_value_mpz(N, c);
        SC__TMP_RETURN(env, sc_expr *, mpz_sgn(c) == 0 ? N : NULL);
    }
    if (sc_expr_node_kind(N) != SC_EXPR_ADD)
        SC__TMP_RETURN(env, sc_expr *, drop_factor(ctx, N, f));
    sc_expr_add_constant(N, c);
    if (mpz_sgn(c) != 0)
        SC__TMP_RETURN(env, sc_expr *, NULL);
    acc = sc_expr_int_si(ctx, 0);
    n = sc_expr_arg_count(N);
    for (i = 0; i < n && acc; i++) {
        sc_expr *d = drop_factor(ctx, sc_expr_arg(N, i), f);
        if (!d) {
            acc = NULL;
            break;
        }
        sc_expr_add_coef(N, i, c);
        acc = sc_expr_add(ctx, acc, sc_expr_mul(ctx, sc_expr_int_mpz(ctx, c), d));
    }
    SC__TMP_RESTORE(env);
    return acc;
}

/* Is the range of e (under w's bounds) >= lo (nonzero: lo == 0 asks for
 * e != 0 by its range)? */
static bool rw_range_ok(rewriter *w, sc_expr *e, long lo)
{
    SC__TMP_SAVE(w->env);
    sc_range *r = sc__tr(w->env);
    bool ok = false;

    if (w->st == SC_OK) {
        w->st = sc__env_expr_range(w->env, e, w->bounds, r, w->err);
        if (w->st == SC_OK && !sc_range_is_empty(r))
            ok = lo > 0 ? !r->lo_inf && mpz_cmp_si(r->lo, lo) >= 0
                        : (!r->lo_inf && mpz_sgn(r->lo) > 0) ||
                              (!r->hi_inf && mpz_sgn(r->hi) < 0);
    }
    SC__TMP_RESTORE(w->env);
    return ok;
}

/* FloorDiv(N, D) and Mod(N, D) by the values of their operands:
 * FloorDiv(FloorDiv(x, k), D) = FloorDiv(x, k*D) for k, D >= 1; a factor
 * f != 0 of D and of every term of N cancels: FloorDiv(N, D) =
 * FloorDiv(N/f, D/f), CeilDiv likewise, and Mod(N, D) = f*Mod(N/f, D/f) (exact identities
 * of Python's floor division; PyTorch's FloorDiv and Mod cancel the gcd
 * of their operands the same way: (s0//4)//s0 = s0//(4*s0) = 0,
 * Mod(3*s0, s0) = 0).  NULL: no rule applies. */
static sc_expr *rw_division(rewriter *w, sc_expr_kind kind, sc_expr *N,
                            sc_expr *D)
{
    SC__TMP_SAVE(w->env);
    sc_ctx *ctx = w->env->ctx;
    mpz_ptr k = sc__tz(w->env);
    sc_expr *T = D;
    size_t i, n;

    if (kind == SC_EXPR_FLOORDIV && sc_expr_node_kind(N) == SC_EXPR_FLOORDIV &&
        rw_range_ok(w, sc_expr_arg(N, 1), 1) && rw_range_ok(w, D, 1))
        SC__TMP_RETURN(w->env, sc_expr *,
                       sc_expr_floordiv(ctx, sc_expr_arg(N, 0),
                                        sc_expr_mul(ctx, sc_expr_arg(N, 1), D)));
    /* D = k*T, T a term */
    mpz_set_ui(k, 1);
    if (sc_expr_node_kind(D) == SC_EXPR_ADD) {
        sc_expr_add_constant(D, k);
        if (mpz_sgn(k) != 0 || sc_expr_arg_count(D) != 1)
            SC__TMP_RETURN(w->env, sc_expr *, NULL);
        sc_expr_add_coef(D, 0, k);
        T = sc_expr_arg(D, 0);
    }
    if (sc_expr_is_int(T))
        SC__TMP_RETURN(w->env, sc_expr *, NULL);
    n = sc_expr_node_kind(T) == SC_EXPR_MUL ? sc_expr_arg_count(T) : 1;
    for (i = 0; i < n; i++) {
        sc_expr *f = sc_expr_node_kind(T) == SC_EXPR_MUL ? sc_expr_arg(T, i) : T;
        sc_expr *q, *d;
        if (sc_expr_is_int(f) || !(q = divide_terms(w->env, N, f)) ||
            !rw_range_ok(w, f, 0))
            continue;
        d = drop_factor(ctx, T, f);
        if (!d)
            continue;
        d = sc_expr_mul(ctx, sc_expr_int_mpz(ctx, k), d);
        SC__TMP_RESTORE(w->env);
        if (kind == SC_EXPR_FLOORDIV)
            return sc_expr_floordiv(ctx, q, d);
        if (kind == SC_EXPR_CEILDIV)
            return sc_expr_ceildiv(ctx, q, d);
        return sc_expr_mul(ctx, f, sc_expr_mod(ctx, q, d));
    }
    SC__TMP_RESTORE(w->env);
    return NULL;
}

/* An Add term coef*t where t is FloorDiv(x, k) (or a product with such a
 * factor), x divisible by k and k | coef: (coef/k) * x * (other factors). */
static sc_expr *rw_exact_term(rewriter *w, mpz_srcptr coef, sc_expr *t)
{
    SC__TMP_SAVE(w->env);
    sc_ctx *ctx = w->env->ctx;
    sc_expr *fd = NULL, *rest = NULL, *res = NULL;
    size_t i, n;
    mpz_ptr k = sc__tz(w->env), q = sc__tz(w->env);

    if (sc_expr_node_kind(t) == SC_EXPR_FLOORDIV) {
        fd = t;
    } else if (sc_expr_node_kind(t) == SC_EXPR_MUL) {
        n = sc_expr_arg_count(t);
        for (i = 0; i < n; i++) {
            sc_expr *b = sc_expr_arg(t, i);
            if (sc_expr_node_kind(b) == SC_EXPR_FLOORDIV &&
                sc_expr_mul_exponent(t, i) == 1 &&
                sc_expr_is_int(sc_expr_arg(b, 1)) &&
                divisible(w->env, sc_expr_arg(b, 0), sc_expr_arg(b, 1))) {
                fd = b;
                break;
            }
        }
        if (!fd)
            SC__TMP_RETURN(w->env, sc_expr *, NULL);
    } else {
        SC__TMP_RETURN(w->env, sc_expr *, NULL);
    }
    if (!sc_expr_is_int(sc_expr_arg(fd, 1)) ||
        !divisible(w->env, sc_expr_arg(fd, 0), sc_expr_arg(fd, 1)))
        SC__TMP_RETURN(w->env, sc_expr *, NULL);
    sc_expr_value_mpz(sc_expr_arg(fd, 1), k);
    if (mpz_sgn(k) != 0 && mpz_divisible_p(coef, k)) {
        mpz_divexact(q, coef, k);
        rest = sc_expr_arg(fd, 0);
        if (fd != t) {
            n = sc_expr_arg_count(t);
            for (i = 0; i < n && rest; i++) {
                sc_expr *b = sc_expr_arg(t, i);
                uint64_t ex = sc_expr_mul_exponent(t, i);
                if (b == fd) {
                    if (ex == 1)
                        continue;
                    ex--;
                }
                rest = sc_expr_mul(ctx, rest, sc_expr_pow(ctx, b, ex));
            }
        }
        res = sc_expr_mul(ctx, sc_expr_int_mpz(ctx, q), rest);
    }
    SC__TMP_RESTORE(w->env);
    return res;
}

/* A product containing FloorDiv(x, k) and k (symbolic), x divisible by k. */
static sc_expr *rw_exact_mul(rewriter *w, sc_expr *m)
{
    sc_ctx *ctx = w->env->ctx;
    size_t i, j, n = sc_expr_arg_count(m);
    sc_expr *res;

    for (i = 0; i < n; i++) {
        sc_expr *b = sc_expr_arg(m, i), *k;
        if (sc_expr_node_kind(b) != SC_EXPR_FLOORDIV ||
            sc_expr_mul_exponent(m, i) != 1)
            continue;
        k = sc_expr_arg(b, 1);
        if (sc_expr_is_int(k) || !divisible(w->env, sc_expr_arg(b, 0), k))
            continue;
        for (j = 0; j < n; j++)
            if (sc_expr_arg(m, j) == k)
                break;
        if (j == n)
            continue;
        res = sc_expr_arg(b, 0);
        for (j = 0; j < n && res; j++) {
            sc_expr *c = sc_expr_arg(m, j);
            uint64_t ex = sc_expr_mul_exponent(m, j);
            if (j == i)
                continue;
            if (c == k)
                ex--;
            if (ex > 0)
                res = sc_expr_mul(ctx, res, sc_expr_pow(ctx, c, ex));
        }
        return res;
    }
    return NULL;
}

/* Rebuild e with its children rewritten.  Scratch arrays live on
 * env->stk (indices from `base`), so that a long jump leaks nothing. */
/* Absorption: an argument Min(.., a, ..) of a Max that also has the
 * argument a is at most a and drops (Max(a, Min(a, b)) = a); Max inside
 * Min likewise.  The number of arguments kept (args compacted). */
static size_t absorb(sc_expr_kind kind, sc_expr **args, size_t n)
{
    sc_expr_kind inner = kind == SC_EXPR_MAX ? SC_EXPR_MIN : SC_EXPR_MAX;
    size_t i, j, k, m = 0;

    for (i = 0; i < n; i++) {
        bool drop = false;
        if (sc_expr_node_kind(args[i]) == inner)
            for (j = 0; j < n && !drop; j++)
                for (k = 0; j != i && k < sc_expr_arg_count(args[i]); k++)
                    if (sc_expr_arg(args[i], k) == args[j]) {
                        drop = true;
                        break;
                    }
        if (!drop)
            args[m++] = args[i];
    }
    return m;
}

static sc_expr *rw_node(rewriter *w, sc_expr *e)
{
    sc_env *env = w->env;
    sc_ctx *ctx = env->ctx;
    sc_expr_kind kind = sc_expr_node_kind(e);
    const size_t n = sc_expr_arg_count(e), base = env->stk.n;
    size_t i;
    sc_expr *res = NULL, **args;
    bool changed = false;
    SC__TMP_SAVE(env);
    mpz_ptr c = sc__tz(env);

    for (i = 0; i < n; i++) {
        sc_expr *a = rw(w, sc_expr_arg(e, i));
        if (!a)
            goto done;
        sc__stk_push(env, a);
        if (a != sc_expr_arg(e, i))
            changed = true;
    }
    switch (kind) {
    case SC_EXPR_ADD: {
        bool all = true;
        for (i = 0; i < n; i++) {
            sc_expr *t, *a = env->stk.items[base + i];
            sc_expr_add_coef(e, i, c);
            t = rw_exact_term(w, c, a);
            if (t)
                changed = true;
            else
                t = sc_expr_mul(ctx, sc_expr_int_mpz(ctx, c), a);
            all = all && t;
            sc__stk_push(env, t);
        }
        sc_expr_add_constant(e, c);
        sc__stk_push(env, sc_expr_int_mpz(ctx, c));
        if (!changed)
            res = e;
        else if (all && env->stk.items[base + 2 * n])
            res = sc_expr_add_n(ctx, n + 1, env->stk.items + base + n);
        break;
    }
    case SC_EXPR_MUL: {
        sc_expr *m = e;
        args = env->stk.items + base;
        if (changed) {
            m = sc_expr_int_si(ctx, 1);
            for (i = 0; i < n && m; i++)
                m = sc_expr_mul(ctx, m,
                                sc_expr_pow(ctx, args[i],
                                            sc_expr_mul_exponent(e, i)));
        }
        if (m && sc_expr_node_kind(m) == SC_EXPR_MUL) {
            sc_expr *x = rw_exact_mul(w, m);
            if (x)
                m = x;
        }
        res = m;
        break;
    }
    case SC_EXPR_MOD:
        args = env->stk.items + base;
        if (divisible(env, args[0], args[1]))
            res = sc_expr_int_si(ctx, 0);
        else if (!(res = rw_division(w, kind, args[0], args[1])))
            res = changed ? sc_expr_mod(ctx, args[0], args[1]) : e;
        break;
    case SC_EXPR_FLOORDIV:
        args = env->stk.items + base;
        if (!(res = rw_division(w, kind, args[0], args[1])))
            res = changed ? sc_expr_floordiv(ctx, args[0], args[1]) : e;
        break;
    case SC_EXPR_CEILDIV:
        args = env->stk.items + base;
        if (!(res = rw_division(w, kind, args[0], args[1])))
            res = changed ? sc_expr_ceildiv(ctx, args[0], args[1]) : e;
        break;
    default: {
        size_t m = n;
        args = env->stk.items + base;
        if (kind == SC_EXPR_MIN || kind == SC_EXPR_MAX) {
            m = absorb(kind, args, n);
            changed = changed || m != n;
        }
        if (!changed) {
            res = e;
            break;
        }
        switch (kind) {
        case SC_EXPR_MIN: res = sc_expr_min_n(ctx, m, args); break;
        case SC_EXPR_MAX: res = sc_expr_max_n(ctx, m, args); break;
        case SC_EXPR_EQ: res = sc_expr_eq(ctx, args[0], sc_expr_int_si(ctx, 0)); break;
        case SC_EXPR_NE: res = sc_expr_ne(ctx, args[0], sc_expr_int_si(ctx, 0)); break;
        case SC_EXPR_LE: res = sc_expr_le(ctx, args[0], sc_expr_int_si(ctx, 0)); break;
        case SC_EXPR_AND: res = sc_expr_and_n(ctx, n, args); break;
        case SC_EXPR_OR: res = sc_expr_or_n(ctx, n, args); break;
        default: res = e; break;
        }
    }
    }
done:
    env->stk.n = base;
    SC__TMP_RESTORE(env);
    return res;
}

static sc_expr *rw(rewriter *w, sc_expr *e)
{
    uint64_t v;
    sc_expr *res;

    if (sc_expr_arg_count(e) == 0)
        return e;
    if (sc__gmap_get(w->memo, sc__gmap_ptr(e), &v))
        return (sc_expr *)(uintptr_t)v;
    res = rw_node(w, e);
    if (res && !sc__gmap_put(w->memo, sc__gmap_ptr(e), sc__gmap_ptr(res))) {
        w->nomem = true;
        return NULL;
    }
    return res;
}

static sc_status rewrite_divisible(sc_env *env, sc_expr *e,
                                   const sc_bounds *bounds, sc_expr **out,
                                   sc_error *err)
{
    rewriter w;
    sc_expr *res;

    w.env = env;
    w.nomem = false;
    w.bounds = bounds;
    w.err = err;
    w.st = SC_OK;
    sc__gmap_clear(&env->memo);
    w.memo = &env->memo;
    res = rw(&w, e);
    if (w.st != SC_OK)
        return w.st;
    if (!res)
        return w.nomem ? sc__error_nomem(err) : sc__env_ctx_error(env, err);
    *out = res;
    return SC_OK;
}

sc_status sc__env_rewrite(sc_env *env, sc_expr *e, const sc_bounds *bounds,
                          sc_expr **out, sc_error *err)
{
    sc_expr *r = e, *r2;

    if (env->nrepl > 0) {
        r = sc_expr_subst(env->ctx, r, env->repl);
        SC_TRY(sc__env_built(env, r, err));
    }
    SC_TRY(rewrite_divisible(env, r, bounds, &r, err));
    r = sc_expr_simplify(env->ctx, r, bounds);
    SC_TRY(sc__env_built(env, r, err));
    SC_TRY(rewrite_divisible(env, r, bounds, &r2, err));
    if (r2 != r) {
        r = sc_expr_simplify(env->ctx, r2, bounds);
        SC_TRY(sc__env_built(env, r, err));
    }
    *out = r;
    return SC_OK;
}

/* ---- The normal form of relations ----------------------------------------- */

sc_status sc__env_normalize(sc_env *env, sc_expr *X, mpz_ptr c, mpz_ptr a,
                            sc_expr **L, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_ctx *ctx = env->ctx;
    sc_status status = SC_OK;
    size_t n, i;
    mpz_ptr g = sc__tz(env), t = sc__tz(env);

    if (sc_expr_is_int(X)) {
        sc_expr_value_mpz(X, c);
        mpz_set_ui(a, 0);
        *L = NULL;
        SC__TMP_RETURN(env, sc_status, SC_OK);
    }
    if (sc_expr_node_kind(X) != SC_EXPR_ADD) {
        mpz_set_ui(c, 0);
        mpz_set_ui(a, 1);
        *L = X;
        SC__TMP_RETURN(env, sc_status, SC_OK);
    }
    sc_expr_add_constant(X, c);
    n = sc_expr_arg_count(X);
    if (n == 1) {
        sc_expr_add_coef(X, 0, a);
        *L = sc_expr_arg(X, 0);
        SC__TMP_RETURN(env, sc_status, SC_OK);
    }
    mpz_set_ui(g, 0);
    for (i = 0; i < n; i++) {
        sc_expr_add_coef(X, i, t);
        mpz_gcd(g, g, t);
    }
    sc_expr_add_coef(X, 0, t);
    if (mpz_sgn(t) < 0)
        mpz_neg(g, g);
    mpz_set(a, g);
    if (mpz_cmp_ui(a, 1) == 0 && mpz_sgn(c) == 0) {
        *L = X;
    } else {
        /* L = (X - c) / a in one step (the terms keep their order). */
        *L = sc_expr_add_terms_divexact(ctx, X, a);
    }
    if (!*L)
        status = sc__env_ctx_error(env, err);
    SC__TMP_RESTORE(env);
    return status;
}

/* ---- Ranges of expressions ------------------------------------------------- */

static sc__env_form *form_of(const sc_env *env, const sc_expr *L)
{
    uint64_t id;
    if (env->nforms == 0 || !sc__gmap_get(&env->form_of, sc__gmap_ptr(L), &id))
        return NULL;
    return env->forms[id].dead ? NULL : &env->forms[id];
}

/* The range of L from the bounds and, when there is one, its form. */
static sc_status base_range(sc_env *env, sc_expr *L, const sc_bounds *bounds,
                            sc_range *out, sc_error *err)
{
    sc__env_form *f;

    if (sc_expr_is_symbol(L)) {
        const sc_range *r = sc_bounds_get(bounds, L);
        if (r)
            sc_range_set(out, r);
        else
            sc_range_set_unbounded(out);
        return SC_OK;
    }
    SC_TRY(sc_expr_range(env->ctx, L, bounds, out, err));
    f = form_of(env, L);
    if (f)
        sc__rng_intersect(out, &f->r);
    return SC_OK;
}

/* The range of any integer expression from the bounds and the form of its
 * normal form (no combination of facts). */
static sc_status range_one_step(sc_env *env, sc_expr *D,
                                const sc_bounds *bounds, sc_range *out,
                                sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_status status = SC_OK;
    sc_expr *L;
    sc_range *r = sc__tr(env);
    mpz_ptr c = sc__tz(env), a = sc__tz(env);

    SC_CHECK(sc__env_normalize(env, D, c, a, &L, err));
    if (!L) {
        sc__rng_set_mpz(out, c);
    } else {
        SC_CHECK(base_range(env, L, bounds, r, err));
        sc__rng_affine(out, r, c, a);
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

#define HEURISTIC_SCAN 16
#define HEURISTIC_SYMS 8

/* Tighten the range of L with the facts about forms F that share a
 * symbol with it: L = F + (L - F) and L = -F + (L + F), where the range of
 * the rest comes from the bounds and its own form (one step, so that
 * u0 <= u1 and u1 <= u2 give u0 <= u2).  At most HEURISTIC_SCAN facts are
 * looked at, newest first: the cost does not grow with the number of
 * facts. */
static sc_status combine_forms(sc_env *env, sc_expr *L, const sc_bounds *bounds,
                               sc_range *out, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_expr *syms[HEURISTIC_SYMS];
    size_t n = sc_expr_free_symbols(L, syms, HEURISTIC_SYMS), i, k;
    size_t scanned = 0;
    sc_status status = SC_OK;
    sc_range *rd = sc__tr(env), *t = sc__tr(env);
    mpz_ptr zero = sc__tz(env), minus = sc__tz(env);

    if (n < 1 || n > HEURISTIC_SYMS || env->nforms == 0)
        SC__TMP_RETURN(env, sc_status, SC_OK);
    mpz_set_si(minus, -1);
    for (k = 0; k < n && scanned < HEURISTIC_SCAN; k++) {
        sc__env_sym *s = sc__env_sym_of(env, syms[k]);
        if (!s)
            continue;
        for (i = s->nfacts; i-- > 0 && scanned < HEURISTIC_SCAN;) {
            uint64_t entry = s->facts[i];
            sc__env_form *f;
            int sgn;
            if (SC__FACT_KIND(entry) != SC__FACT_FORM)
                continue;
            f = &env->forms[SC__FACT_ID(entry)];
            if (f->dead || f->L == L || sc__rng_is_full(&f->r))
                continue;
            scanned++;
            for (sgn = 1; sgn >= -1; sgn -= 2) {
                sc_expr *D = sgn > 0 ? sc_expr_sub(env->ctx, L, f->L)
                                     : sc_expr_add(env->ctx, L, f->L);
                SC_CHECK(sc__env_built(env, D, err));
                if (sc_expr_is_int(D)) {
                    sc_expr_value_mpz(D, zero);
                    sc__rng_set_mpz(rd, zero);
                    mpz_set_ui(zero, 0);
                } else {
                    SC_CHECK(range_one_step(env, D, bounds, rd, err));
                }
                if (sgn > 0) {
                    sc__rng_add(t, &f->r, rd);
                } else {
                    sc__rng_affine(t, &f->r, zero, minus);
                    sc__rng_add(t, t, rd);
                }
                sc__rng_intersect(out, t);
            }
        }
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

/* ---- Polynomials over the ranges --------------------------------------------
 * Interval arithmetic bounds s0**2 - s0 by [4, inf) - [2, inf) = (-inf, inf)
 * when s0 >= 2.  Shifting each symbol to the origin of its range first
 * (s0 = 2 + t, t >= 0) and expanding gives t**2 + 3*t + 2, whose
 * coefficients are all >= 0: the same interval arithmetic now says
 * [2, inf).  (PyTorch's _maybe_evaluate_static shifts size-like symbols in
 * the same way before bounding.) */
#define POLY_MAX_SYMS 8
#define POLY_MAX_ATOMS 8

/* An atom of a polynomial: a symbol, or an integer-valued node that is
 * not a sum, product or constant (CeilDiv(s2, 3), Min(5, s1)). */
static bool poly_atom(const sc_expr *a)
{
    switch (sc_expr_node_kind(a)) {
    case SC_EXPR_SYMBOL:
    case SC_EXPR_FLOORDIV:
    case SC_EXPR_CEILDIV:
    case SC_EXPR_MOD:
    case SC_EXPR_MIN:
    case SC_EXPR_MAX:
        return true;
    default:
        return false;
    }
}

static bool poly_term_ok(const sc_expr *t)
{
    size_t i;
    if (poly_atom(t))
        return true;
    if (sc_expr_node_kind(t) != SC_EXPR_MUL)
        return false;
    for (i = 0; i < sc_expr_arg_count(t); i++)
        if (!poly_atom(sc_expr_arg(t, i)))
            return false;
    return true;
}

/* Is every factor of the monomial t one of vars[0..n)? */
static bool poly_term_known(const sc_expr *t, sc_expr *const *vars, size_t n)
{
    bool mul = sc_expr_node_kind(t) == SC_EXPR_MUL;
    size_t nb = mul ? sc_expr_arg_count(t) : 1, i, j;

    for (i = 0; i < nb; i++) {
        const sc_expr *b = mul ? sc_expr_arg(t, i) : t;
        for (j = 0; j < n && vars[j] != b; j++)
            ;
        if (j == n)
            return false;
    }
    return true;
}

/* Is e a polynomial in symbols, of degree >= 2? */
static bool poly_nonlinear(const sc_expr *e)
{
    size_t i;
    if (sc_expr_degree(e) < 2)
        return false;
    if (sc_expr_node_kind(e) == SC_EXPR_MUL)
        return poly_term_ok(e);
    if (sc_expr_node_kind(e) != SC_EXPR_ADD)
        return false;
    for (i = 0; i < sc_expr_arg_count(e); i++)
        if (!poly_term_ok(sc_expr_arg(e, i)))
            return false;
    return true;
}

/* Are the terms' coefficients of one sign and every symbol >= 0?  Then e
 * is monotone in each symbol over the box and interval arithmetic is
 * already exact: the shift cannot help. */
static bool poly_monotone(const sc_expr *e, sc_expr *const *syms, size_t n,
                          const sc_bounds *bounds)
{
    size_t i;

    for (i = 0; i < n; i++) {
        const sc_range *sr = sc_bounds_get(bounds, syms[i]);
        if (!sr || sr->lo_inf || mpz_sgn(sr->lo) < 0)
            return false;
    }
    if (sc_expr_node_kind(e) == SC_EXPR_ADD) {
        int sg = sc_expr_add_coef_sign(e, 0);
        for (i = 1; i < sc_expr_arg_count(e); i++)
            if (sc_expr_add_coef_sign(e, i) != sg)
                return false;
    }
    return true;
}

/* The maximum of the monomial t (a symbol or a product of symbols, each
 * t_i in [0, w[i]]) into m; false when it is unbounded. */
static bool poly_monomial_max(sc_expr *const *syms, mpz_srcptr const *w,
                              size_t n, const sc_expr *t, mpz_ptr m, mpz_ptr x)
{
    bool mul = sc_expr_node_kind(t) == SC_EXPR_MUL;
    size_t nb = mul ? sc_expr_arg_count(t) : 1, i, j;

    mpz_set_ui(m, 1);
    for (i = 0; i < nb; i++) {
        const sc_expr *b = mul ? sc_expr_arg(t, i) : t;
        uint64_t e = mul ? sc_expr_mul_exponent(t, i) : 1;
        for (j = 0; j < n && syms[j] != b; j++)
            ;
        if (j == n || !w[j])
            return false;
        if (mpz_cmp_ui(w[j], 1) <= 0) {
            if (mpz_sgn(w[j]) == 0) {
                mpz_set_ui(m, 0);
                return true;
            }
            continue;
        }
        if (e > 256)
            return false;   /* not worth the memory: unbounded is sound */
        mpz_pow_ui(x, w[j], (unsigned long)e);
        mpz_mul(m, m, x);
    }
    return true;
}

/* A lower bound of e from a square: the canonical form expands
 * (u0 - u1)**2 to u0**2 - 2*u0*u1 + u1**2, which interval arithmetic
 * cannot bound below.  R is a sum of +-sqrt(c)*m over e's terms c*m**2 (c
 * a perfect square, m a monomial, at most 6 such terms: 32 sign choices,
 * the first one +).  When D = e - R**2 is a constant, e >= D; when D =
 * 2*k*R + d (k from the coefficient of R's first monomial in D), e = (R +
 * k)**2 + d - k**2 >= d - k**2.  Comparisons are pointer equality of the
 * interned expressions.  Sound; a square not of this shape is missed. */
#define SQUARE_MAX_TERMS 6

static sc_status poly_square_bound(sc_env *env, sc_expr *e, bool *found,
                                   mpz_ptr lower, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_ctx *ctx = env->ctx;
    sc_status status = SC_OK;
    sc_expr *mono[SQUARE_MAX_TERMS];
    mpz_ptr rc[SQUARE_MAX_TERMS];
    mpz_ptr c = sc__tz(env), k = sc__tz(env);
    size_t nt, i, j, n = 0;
    bool add = sc_expr_node_kind(e) == SC_EXPR_ADD;
    unsigned long signs;

    *found = false;
    nt = add ? sc_expr_arg_count(e) : 1;
    for (i = 0; i < nt; i++) {
        sc_expr *t = add ? sc_expr_arg(e, i) : e, *m = NULL;
        bool mul = sc_expr_node_kind(t) == SC_EXPR_MUL;
        size_t nb = mul ? sc_expr_arg_count(t) : 1;
        bool even = true;

        if (add)
            sc_expr_add_coef(e, i, c);
        else
            mpz_set_ui(c, 1);
        for (j = 0; j < nb && even; j++)
            even = (mul ? sc_expr_mul_exponent(t, j) : 1) % 2 == 0;
        if (!even || mpz_sgn(c) <= 0 || !mpz_perfect_square_p(c))
            continue;
        if (n == SQUARE_MAX_TERMS)
            goto fail;
        for (j = 0; j < nb; j++) {
            sc_expr *b = sc_expr_pow(ctx, sc_expr_arg(t, j),
                                     sc_expr_mul_exponent(t, j) / 2);
            m = m ? sc_expr_mul(ctx, m, b) : b;
        }
        SC_CHECK(sc__env_built(env, m, err));
        mono[n] = m;
        rc[n] = sc__tz(env);
        mpz_sqrt(rc[n], c);
        n++;
    }
    for (signs = 0; n > 0 && signs < (1ul << (n - 1)) && !*found; signs++) {
        sc_expr *R = NULL, *D;
        for (i = 0; i < n; i++) {
            sc_expr *t = sc_expr_mul(ctx, mono[i], sc_expr_int_mpz(ctx, rc[i]));
            if (i > 0 && ((signs >> (i - 1)) & 1))
                t = sc_expr_neg(ctx, t);
            R = R ? sc_expr_add(ctx, R, t) : t;
        }
        D = sc_expr_sub(ctx, e, sc_expr_pow(ctx, R, 2));
        SC_CHECK(sc__env_built(env, D, err));
        if (sc_expr_node_kind(D) == SC_EXPR_INT) {
            sc_expr_value_mpz(D, lower);
            *found = true;
            break;
        }
        /* the coefficient of mono[0] in D is 2*k*rc[0] */
        mpz_set_ui(c, 0);
        if (D == mono[0]) {
            mpz_set_ui(c, 1);
        } else if (sc_expr_node_kind(D) == SC_EXPR_ADD) {
            for (j = 0; j < sc_expr_arg_count(D); j++)
                if (sc_expr_arg(D, j) == mono[0])
                    sc_expr_add_coef(D, j, c);
        }
        mpz_mul_ui(k, rc[0], 2);
        if (mpz_sgn(c) == 0 || !mpz_divisible_p(c, k))
            continue;
        mpz_divexact(k, c, k);
        mpz_mul_ui(c, k, 2);
        D = sc_expr_sub(ctx, D, sc_expr_mul(ctx, R, sc_expr_int_mpz(ctx, c)));
        SC_CHECK(sc__env_built(env, D, err));
        if (sc_expr_node_kind(D) != SC_EXPR_INT)
            continue;
        sc_expr_value_mpz(D, lower);
        mpz_mul(k, k, k);
        mpz_sub(lower, lower, k);
        *found = true;
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

sc_status sc__env_poly_range(sc_env *env, sc_expr *e, const sc_bounds *bounds,
                             bool facts, sc_range *out, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_ctx *ctx = env->ctx;
    sc_expr *syms[POLY_MAX_SYMS + POLY_MAX_ATOMS], *q;
    sc_expr *atoms[POLY_MAX_ATOMS];
    mpz_srcptr w[POLY_MAX_SYMS + POLY_MAX_ATOMS];
    size_t nv, nat = 0;
    sc_range *r = sc__tr(env);
    mpz_ptr m = sc__tz(env), x = sc__tz(env), c = sc__tz(env);
    sc_status status = SC_OK;
    size_t n, i, nt;
    bool lo_inf = false, hi_inf = false;

    if (!bounds)
        SC__TMP_RETURN(env, sc_status, SC_OK);
    /* squares of sums of any terms (CeilDiv(s2, 3) + s0)**2 included */
    if ((sc_expr_node_kind(e) == SC_EXPR_ADD ||
         sc_expr_node_kind(e) == SC_EXPR_MUL) && sc_expr_degree(e) >= 2) {
        bool square;
        SC_CHECK(poly_square_bound(env, e, &square, c, err));
        if (square) {
            sc_range_set_unbounded(r);
            mpz_set(r->lo, c);
            r->lo_inf = false;
            sc__rng_intersect(out, r);
        }
    }
    if (!poly_nonlinear(e))
        SC__TMP_RETURN(env, sc_status, SC_OK);
    n = sc_expr_free_symbols(e, syms, POLY_MAX_SYMS);
    if (n > POLY_MAX_SYMS)
        SC__TMP_RETURN(env, sc_status, SC_OK);
    nt = sc_expr_node_kind(e) == SC_EXPR_ADD ? sc_expr_arg_count(e) : 1;
    for (i = 0; i < nt; i++)
        if (!poly_term_known(sc_expr_node_kind(e) == SC_EXPR_ADD
                                 ? sc_expr_arg(e, i) : e, syms, n))
            break;
    if (i == nt && poly_monotone(e, syms, n, bounds))
        SC__TMP_RETURN(env, sc_status, SC_OK);
    if (!env->poly_map && !(env->poly_map = sc_symmap_new(ctx))) {
        SC__TMP_RESTORE(env);
        return sc__error_nomem(err);
    }
    sc_symmap_clear(env->poly_map);
    for (i = 0; i < n; i++) {
        const sc_range *sr = sc_bounds_get(bounds, syms[i]);
        sc_expr *v, *k;
        /* a symbol unbounded on both sides: give up (sound) */
        if (!sr || sc_range_is_empty(sr) || (sr->lo_inf && sr->hi_inf))
            goto fail;
        /* x = lo + t with 0 <= t <= hi - lo, or x = hi - t, 0 <= t */
        k = sc_expr_int_mpz(ctx, sr->lo_inf ? sr->hi : sr->lo);
        v = sr->lo_inf ? sc_expr_sub(ctx, k, syms[i]) : sc_expr_add(ctx, syms[i], k);
        SC_CHECK(sc__env_built(env, v, err));
        SC_CHECK(sc_symmap_set(env->poly_map, syms[i], v, err));
        if (sr->lo_inf || sr->hi_inf) {
            w[i] = NULL;
        } else {
            mpz_ptr d = sc__tz(env);
            mpz_sub(d, sr->hi, sr->lo);
            w[i] = d;
        }
    }
    /* Atoms other than symbols stay variables of their own, each in
     * [0, hi] (its range under the bounds; one below 0: give up); they
     * are matched after the shift as their own shifted forms. */
    nv = n;
    nt = sc_expr_node_kind(e) == SC_EXPR_ADD ? sc_expr_arg_count(e) : 1;
    for (i = 0; i < nt; i++) {
        sc_expr *t = sc_expr_node_kind(e) == SC_EXPR_ADD ? sc_expr_arg(e, i) : e;
        bool mul = sc_expr_node_kind(t) == SC_EXPR_MUL;
        size_t nb = mul ? sc_expr_arg_count(t) : 1, j, l;
        for (j = 0; j < nb; j++) {
            sc_expr *b = mul ? sc_expr_arg(t, j) : t, *b2;
            sc_range *ar = sc__tr(env);
            if (sc_expr_is_symbol(b))
                continue;
            for (l = 0; l < nat && atoms[l] != b; l++)
                ;
            if (l < nat)
                continue;
            if (nv == POLY_MAX_SYMS + POLY_MAX_ATOMS)
                goto fail;
            if (facts)
                SC_CHECK(sc__env_expr_range(env, b, bounds, ar, err));
            else
                SC_CHECK(sc_expr_range(ctx, b, bounds, ar, err));
            if (sc_range_is_empty(ar) || ar->lo_inf || mpz_sgn(ar->lo) < 0)
                goto fail;
            b2 = sc_expr_subst(ctx, b, env->poly_map);
            SC_CHECK(sc__env_built(env, b2, err));
            atoms[nat++] = b;
            syms[nv] = b2;
            w[nv] = ar->hi_inf ? NULL : ar->hi;
            nv++;
        }
    }
    q = sc_expr_subst(ctx, e, env->poly_map);
    SC_CHECK(sc__env_built(env, q, err));
    /* q = c + sum a_j * t_j over monomials t_j in [0, max_j]:
     * q in [c + sum_{a_j < 0} a_j max_j, c + sum_{a_j > 0} a_j max_j] */
    mpz_set_ui(c, 0);
    if (sc_expr_node_kind(q) == SC_EXPR_INT) {
        sc_expr_value_mpz(q, c);
        nt = 0;
    } else if (sc_expr_node_kind(q) == SC_EXPR_ADD) {
        sc_expr_add_constant(q, c);
        nt = sc_expr_arg_count(q);
    } else {
        nt = 1;
    }
    mpz_set(r->lo, c);
    mpz_set(r->hi, c);
    for (i = 0; i < nt; i++) {
        sc_expr *t =
            sc_expr_node_kind(q) == SC_EXPR_ADD ? sc_expr_arg(q, i) : q;
        int sg;
        if (!poly_term_known(t, syms, nv))
            goto fail;   /* an unexpanded factor, an atom changed */
        if (sc_expr_node_kind(q) == SC_EXPR_ADD)
            sc_expr_add_coef(q, i, x);
        else
            mpz_set_ui(x, 1);
        sg = mpz_sgn(x);
        if (!poly_monomial_max(syms, w, nv, t, m, c)) {
            if (sg < 0)
                lo_inf = true;
            else
                hi_inf = true;
            continue;
        }
        mpz_mul(m, m, x);
        mpz_add(sg < 0 ? r->lo : r->hi, sg < 0 ? r->lo : r->hi, m);
    }
    r->lo_inf = lo_inf;
    r->hi_inf = hi_inf;
    sc__rng_intersect(out, r);
fail:
    if (env->poly_map)
        sc_symmap_clear(env->poly_map);
    SC__TMP_RESTORE(env);
    return status;
}

/* The range of L (a normal-form expression) and the values it is known
 * not to take (*excl, may be NULL). */
static sc_status common_factor(sc_env *env, sc_expr *L, const sc_bounds *bounds,
                               sc_expr **q, sc_range *fr, sc_error *err);

/* dst = f*q for a factor f that is never 0 (f >= 1 or f <= -1) and any
 * q: interval multiplication, which the expanded sum cannot do
 * (Max(u0, 8*s1)*s0*(s1 - 1) >= 32 for sizes s0, s1 >= 2, where the
 * expansion's terms cancel each other's bounds). */
static void mul_by_signed(sc_env *env, sc_range *dst, const sc_range *f,
                          const sc_range *q)
{
    SC__TMP_SAVE(env);
    sc_range *nf, *nq;
    if (!f->lo_inf && mpz_sgn(f->lo) > 0) {
        /* lo: q.lo >= 0 ? q.lo*f.lo : q.lo*f.hi */
        dst->lo_inf = q->lo_inf || (mpz_sgn(q->lo) < 0 && f->hi_inf);
        if (!dst->lo_inf)
            mpz_mul(dst->lo, q->lo, mpz_sgn(q->lo) >= 0 ? f->lo : f->hi);
        /* hi: q.hi <= 0 ? q.hi*f.lo : q.hi*f.hi */
        dst->hi_inf = q->hi_inf || (mpz_sgn(q->hi) > 0 && f->hi_inf);
        if (!dst->hi_inf)
            mpz_mul(dst->hi, q->hi, mpz_sgn(q->hi) <= 0 ? f->lo : f->hi);
        SC__TMP_RESTORE(env);
        return;
    }
    /* f <= -1: f*q = (-f)*(-q) */
    nf = sc__tr(env);
    nq = sc__tr(env);
    nf->lo_inf = f->hi_inf;
    nf->hi_inf = f->lo_inf;
    if (!f->hi_inf)
        mpz_neg(nf->lo, f->hi);
    if (!f->lo_inf)
        mpz_neg(nf->hi, f->lo);
    nq->lo_inf = q->hi_inf;
    nq->hi_inf = q->lo_inf;
    if (!q->hi_inf)
        mpz_neg(nq->lo, q->hi);
    if (!q->lo_inf)
        mpz_neg(nq->hi, q->lo);
    mul_by_signed(env, dst, nf, nq);
    SC__TMP_RESTORE(env);
}

/* The range of a sum L without constant whose terms share an atom factor
 * f that is never 0, as range(f)*range(L/f), intersected into out; L/f
 * is bounded the same way in turn (two levels in all). */
static sc_status factored_range(sc_env *env, sc_expr *L, const sc_bounds *bounds,
                                sc_range *out, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_status status = SC_OK;
    sc_range *fr = sc__tr(env), *qr = sc__tr(env), *pr = sc__tr(env);
    sc_expr *q = NULL;

    if (env->factor_depth >= 2 || sc_expr_node_kind(L) != SC_EXPR_ADD ||
        sc_expr_arg_count(L) < 2 || sc_expr_arg_count(L) > 16 ||
        (!out->lo_inf && !out->hi_inf))
        goto fail;
    env->factor_depth++;
    status = common_factor(env, L, bounds, &q, fr, err);
    if (status == SC_OK && q)
        status = sc__env_expr_range(env, q, bounds, qr, err);
    env->factor_depth--;
    SC_CHECK(status);
    if (!q || sc_range_is_empty(qr))
        goto fail;
    mul_by_signed(env, pr, fr, qr);
    sc__rng_intersect(out, pr);
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static sc_status form_range(sc_env *env, sc_expr *L, const sc_bounds *bounds,
                            sc_range *out, const sc__exprvec **excl,
                            sc_error *err)
{
    *excl = NULL;
    SC_TRY(base_range(env, L, bounds, out, err));
    if (sc_expr_is_symbol(L)) {
        sc__env_sym *s = sc__env_sym_of(env, L);
        if (s)
            *excl = &s->excluded;
        return SC_OK;
    } else {
        sc__env_form *f = form_of(env, L);
        if (f)
            *excl = &f->excluded;
    }
    SC_TRY(sc__env_poly_range(env, L, bounds, true, out, err));
    SC_TRY(factored_range(env, L, bounds, out, err));
    return combine_forms(env, L, bounds, out, err);
}

/* Is v among the excluded values (interned constants: compare pointers)?
 * Exhaustion answers false, which is sound. */
static bool excluded_has(sc_env *env, const sc__exprvec *excl, mpz_srcptr v)
{
    sc_expr *e;
    size_t i;

    if (!excl || excl->n == 0)
        return false;
    e = sc_expr_int_mpz(env->ctx, v);
    if (!e) {
        sc_ctx_take_error(env->ctx, NULL);
        return false;
    }
    for (i = 0; i < excl->n; i++)
        if (excl->items[i] == e)
            return true;
    return false;
}

sc_status sc__env_expr_range(sc_env *env, sc_expr *e, const sc_bounds *bounds,
                             sc_range *out, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_status status = SC_OK;
    const sc__exprvec *excl;
    sc_expr *L;
    sc_range *r = sc__tr(env);
    mpz_ptr c = sc__tz(env), a = sc__tz(env);

    SC_CHECK(sc__env_normalize(env, e, c, a, &L, err));
    if (!L) {
        sc__rng_set_mpz(out, c);
    } else {
        SC_CHECK(form_range(env, L, bounds, r, &excl, err));
        sc__rng_affine(out, r, c, a);
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

/* ---- Congruences -------------------------------------------------------------
 * e == r (mod m) for every value of its symbols; m == 0: e == r exactly;
 * m == 1: nothing known.  A sum adds the residues and takes the gcd of the
 * moduli times the coefficients, a product (r1 + m1*i)*(r2 + m2*j) has
 * modulus gcd(r1*m2, r2*m1, m1*m2), and Min/Max is one of its arguments:
 * gcd of the moduli and the residues' differences (Min(2*s0*s2, 4*x) is
 * even, as sympy's parity of a Min).  Anything else is m == 1. */
#define CONGRUENCE_DEPTH 8

static void congruence(sc_env *env, const sc_expr *e, mpz_ptr m, mpz_ptr r,
                       int depth)
{
    SC__TMP_SAVE(env);
    mpz_ptr m2 = sc__tz(env), r2 = sc__tz(env), t = sc__tz(env);
    size_t i, n = sc_expr_arg_count(e);
    uint64_t k;

    mpz_set_ui(m, 1);
    mpz_set_ui(r, 0);
    if (sc_expr_is_int(e)) {
        mpz_set_ui(m, 0);
        sc_expr_value_mpz(e, r);
        goto done;
    }
    if (depth <= 0)
        goto done;
    switch (sc_expr_node_kind(e)) {
    case SC_EXPR_ADD:
        sc_expr_add_constant(e, r);
        mpz_set_ui(m, 0);
        for (i = 0; i < n && mpz_cmp_ui(m, 1) != 0; i++) {
            congruence(env, sc_expr_arg(e, i), m2, r2, depth - 1);
            sc_expr_add_coef(e, i, t);
            mpz_mul(m2, m2, t);
            mpz_mul(r2, r2, t);
            mpz_gcd(m, m, m2);
            mpz_add(r, r, r2);
        }
        break;
    case SC_EXPR_MUL: {
        mpz_ptr g = sc__tz(env);
        mpz_set_ui(m, 0);
        mpz_set_ui(r, 1);
        /* no early stop at m == 1: a later factor that is 0 (mod m2)
         * makes the product 0 (mod m2) whatever the others are
         * ((s0//18)*Max(0, 2*s1) is even) */
        for (i = 0; i < n; i++) {
            congruence(env, sc_expr_arg(e, i), m2, r2, depth - 1);
            k = sc_expr_mul_exponent(e, i);
            if (k > 64) {
                mpz_set_ui(m, 1);
                break;
            }
            for (; k > 0; k--) {
                /* (r + m*a)*(r2 + m2*b): modulus gcd(r*m2, r2*m, m*m2) */
                mpz_mul(t, r, m2);
                mpz_mul(g, r2, m);
                mpz_gcd(t, t, g);
                mpz_mul(g, m, m2);
                mpz_gcd(m, t, g);
                mpz_mul(r, r, r2);
                if (mpz_sgn(m) != 0)
                    mpz_fdiv_r(r, r, m);
            }
        }
        break;
    }
    case SC_EXPR_MIN:
    case SC_EXPR_MAX:
        congruence(env, sc_expr_arg(e, 0), m, r, depth - 1);
        for (i = 1; i < n && mpz_cmp_ui(m, 1) != 0; i++) {
            congruence(env, sc_expr_arg(e, i), m2, r2, depth - 1);
            mpz_gcd(m, m, m2);
            mpz_sub(t, r, r2);
            mpz_gcd(m, m, t);
        }
        break;
    default:
        break;
    }
    if (mpz_cmp_ui(m, 1) == 0)
        mpz_set_ui(r, 0);
    else if (mpz_sgn(m) != 0)
        mpz_fdiv_r(r, r, m);
done:
    SC__TMP_RESTORE(env);
}

/* ---- Deciding ---------------------------------------------------------------- */

/* t (a term: an atom or a product) divided by the atom f, or NULL when f
 * is not one of its factors. */
static sc_expr *drop_factor(sc_ctx *ctx, sc_expr *t, sc_expr *f)
{
    size_t i, n;
    sc_expr *res;
    bool found = false;

    if (t == f)
        return sc_expr_int_si(ctx, 1);
    if (sc_expr_node_kind(t) != SC_EXPR_MUL)
        return NULL;
    n = sc_expr_arg_count(t);
    res = sc_expr_int_si(ctx, 1);
    for (i = 0; i < n && res; i++) {
        sc_expr *b = sc_expr_arg(t, i);
        uint64_t ex = sc_expr_mul_exponent(t, i);
        if (b == f && !found) {
            found = true;
            ex--;
        }
        if (ex > 0)
            res = sc_expr_mul(ctx, res, sc_expr_pow(ctx, b, ex));
    }
    return found ? res : NULL;
}

/* L (an Add without constant, or a product) divided by an atom factor of
 * every term into *q (NULL: none found), with that factor's range in *fr. */
static sc_status common_factor(sc_env *env, sc_expr *L, const sc_bounds *bounds,
                               sc_expr **q, sc_range *fr, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_ctx *ctx = env->ctx;
    sc_status status = SC_OK;
    bool add = sc_expr_node_kind(L) == SC_EXPR_ADD;
    sc_expr *first = add ? sc_expr_arg(L, 0) : L;
    size_t nf, j, i, n = add ? sc_expr_arg_count(L) : 1;
    mpz_ptr c = sc__tz(env);

    *q = NULL;
    if (add) {
        sc_expr_add_constant(L, c);
        if (mpz_sgn(c) != 0)
            SC__TMP_RETURN(env, sc_status, SC_OK);
    }
    nf = sc_expr_node_kind(first) == SC_EXPR_MUL ? sc_expr_arg_count(first) : 1;
    for (j = 0; j < nf && !*q; j++) {
        sc_expr *f = nf > 1 || sc_expr_node_kind(first) == SC_EXPR_MUL
                         ? sc_expr_arg(first, j) : first;
        sc_expr *acc = sc_expr_int_si(ctx, 0);
        if (sc_expr_is_int(f) || f == L)
            continue;
        SC_CHECK(sc__env_expr_range(env, f, bounds, fr, err));
        if (sc_range_is_empty(fr) ||
            !((!fr->lo_inf && mpz_sgn(fr->lo) > 0) ||
              (!fr->hi_inf && mpz_sgn(fr->hi) < 0)))
            continue;
        for (i = 0; i < n && acc; i++) {
            sc_expr *t = add ? sc_expr_arg(L, i) : L;
            sc_expr *d = drop_factor(ctx, t, f);
            if (!d) {
                acc = NULL;
                break;
            }
            if (add)
                sc_expr_add_coef(L, i, c);
            else
                mpz_set_ui(c, 1);
            acc = sc_expr_add(ctx, acc, sc_expr_mul(ctx, sc_expr_int_mpz(ctx, c), d));
            SC_CHECK(sc__env_built(env, acc, err));
        }
        *q = acc;
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static sc_status decide_relation(sc_env *env, sc_expr *s,
                                 const sc_bounds *bounds, sc_tri *out,
                                 sc_error *err);

/* c + a*L (c == 0) compared with 0 where every term of L has a factor f
 * that is never 0: f*Q == 0 iff Q == 0, and f*Q <= 0 iff Q <= 0 (f > 0)
 * or Q >= 0 (f < 0), so that s0*(2*u0 - 7) == 0 is false for s0 >= 2
 * (sympy's "a product is zero iff a factor is"). */
static sc_status decide_by_factor(sc_env *env, sc_expr_kind kind,
                                  sc_expr *L, mpz_srcptr a,
                                  const sc_bounds *bounds, int depth,
                                  sc_tri *out, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_ctx *ctx = env->ctx;
    sc_status status = SC_OK;
    sc_range *fr = sc__tr(env);
    sc_expr *q, *z, *rel;
    bool neg;

    *out = SC_TRI_UNKNOWN;
    if (depth <= 0)
        SC__TMP_RETURN(env, sc_status, SC_OK);
    SC_CHECK(common_factor(env, L, bounds, &q, fr, err));
    if (!q)
        goto fail;
    neg = (!fr->hi_inf && mpz_sgn(fr->hi) < 0) != (mpz_sgn(a) < 0);
    z = sc_expr_int_si(ctx, 0);
    rel = kind == SC_EXPR_EQ ? sc_expr_eq(ctx, q, z)
          : kind == SC_EXPR_NE ? sc_expr_ne(ctx, q, z)
          : neg ? sc_expr_ge(ctx, q, z) : sc_expr_le(ctx, q, z);
    SC_CHECK(sc__env_built(env, rel, err));
    if (sc_expr_node_kind(rel) == SC_EXPR_TRUE)
        *out = SC_TRI_TRUE;
    else if (sc_expr_node_kind(rel) == SC_EXPR_FALSE)
        *out = SC_TRI_FALSE;
    else if (sc_expr_node_kind(rel) == SC_EXPR_EQ ||
             sc_expr_node_kind(rel) == SC_EXPR_NE ||
             sc_expr_node_kind(rel) == SC_EXPR_LE)
        SC_CHECK(decide_relation(env, rel, bounds, out, err));
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static sc_status decide_relation(sc_env *env, sc_expr *s,
                                 const sc_bounds *bounds, sc_tri *out,
                                 sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_expr_kind kind = sc_expr_node_kind(s);
    sc_status status = SC_OK;
    const sc__exprvec *excl = NULL;
    sc_expr *L;
    sc_range *r = sc__tr(env), *x = sc__tr(env);
    mpz_ptr c = sc__tz(env), a = sc__tz(env), w = sc__tz(env);
    sc_tri eq = SC_TRI_UNKNOWN;

    *out = SC_TRI_UNKNOWN;
    SC_CHECK(sc__env_normalize(env, sc_expr_arg(s, 0), c, a, &L, err));
    if (!L) {
        int sg = mpz_sgn(c);
        bool v = kind == SC_EXPR_EQ ? sg == 0 : kind == SC_EXPR_NE ? sg != 0
                                                                    : sg <= 0;
        *out = v ? SC_TRI_TRUE : SC_TRI_FALSE;
        goto fail;
    }
    SC_CHECK(form_range(env, L, bounds, r, &excl, err));
    sc__rng_affine(x, r, c, a);
    if (sc_range_is_empty(x)) {
        /* Nothing is consistent with the facts; say nothing. */
        goto fail;
    }
    if (kind == SC_EXPR_LE) {
        if (!x->hi_inf && mpz_sgn(x->hi) <= 0)
            *out = SC_TRI_TRUE;
        else if (!x->lo_inf && mpz_sgn(x->lo) > 0)
            *out = SC_TRI_FALSE;
        goto factor;
    }
    /* Eq / Ne: is c + a*L == 0? */
    mpz_set_ui(w, 0);
    if (!sc_range_contains_mpz(x, w)) {
        eq = SC_TRI_FALSE;
    } else if (sc__rng_singleton(x, NULL)) {
        eq = SC_TRI_TRUE;
    } else {
        mpz_neg(w, c);
        if (!mpz_divisible_p(w, a))
            eq = SC_TRI_FALSE;
        else {
            mpz_divexact(w, w, a);
            if (excluded_has(env, excl, w))
                eq = SC_TRI_FALSE;
            else {
                /* L == w needs w == r (mod m) */
                mpz_ptr m = sc__tz(env), rr = sc__tz(env);
                congruence(env, L, m, rr, CONGRUENCE_DEPTH);
                if (mpz_cmp_ui(m, 1) > 0) {
                    mpz_sub(rr, w, rr);
                    if (!mpz_divisible_p(rr, m))
                        eq = SC_TRI_FALSE;
                }
            }
        }
    }
    if (eq != SC_TRI_UNKNOWN)
        *out = kind == SC_EXPR_EQ ? eq
                                  : (eq == SC_TRI_TRUE ? SC_TRI_FALSE
                                                       : SC_TRI_TRUE);
factor:
    if (*out == SC_TRI_UNKNOWN && mpz_sgn(c) == 0 &&
        (sc_expr_node_kind(L) == SC_EXPR_ADD ||
         sc_expr_node_kind(L) == SC_EXPR_MUL))
        SC_CHECK(decide_by_factor(env, kind, L, a, bounds, 8, out, err));
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static bool or_known(const sc_env *env, const sc_expr *e)
{
    uint64_t id;
    if (env->nors_alive == 0 || !sc__gmap_get(&env->or_of, sc__gmap_ptr(e), &id))
        return false;
    return !env->ors[id].dead;
}

sc_status sc__env_decide(sc_env *env, sc_expr *s, const sc_bounds *bounds,
                         sc_tri *out, sc_error *err)
{
    size_t i, n;
    bool all, any;

    switch (sc_expr_node_kind(s)) {
    case SC_EXPR_TRUE:
        *out = SC_TRI_TRUE;
        return SC_OK;
    case SC_EXPR_FALSE:
        *out = SC_TRI_FALSE;
        return SC_OK;
    default:
        break;
    }
    if (env->nors_alive > 0) {
        sc_expr *neg;
        if (or_known(env, s)) {
            *out = SC_TRI_TRUE;
            return SC_OK;
        }
        neg = sc_expr_not(env->ctx, s);
        if (!neg)
            return sc__env_ctx_error(env, err);
        if (or_known(env, neg)) {
            *out = SC_TRI_FALSE;
            return SC_OK;
        }
    }
    switch (sc_expr_node_kind(s)) {
    case SC_EXPR_EQ:
    case SC_EXPR_NE:
    case SC_EXPR_LE:
        return decide_relation(env, s, bounds, out, err);
    case SC_EXPR_AND:
    case SC_EXPR_OR: {
        bool is_and = sc_expr_node_kind(s) == SC_EXPR_AND;
        n = sc_expr_arg_count(s);
        all = true;
        any = false;
        for (i = 0; i < n; i++) {
            sc_tri t;
            SC_TRY(sc__env_decide(env, sc_expr_arg(s, i), bounds, &t, err));
            if (t == (is_and ? SC_TRI_FALSE : SC_TRI_TRUE)) {
                *out = t;
                return SC_OK;
            }
            if (t == SC_TRI_UNKNOWN)
                all = false;
            else
                any = true;
        }
        (void)any;
        *out = all ? (is_and ? SC_TRI_TRUE : SC_TRI_FALSE) : SC_TRI_UNKNOWN;
        return SC_OK;
    }
    default:
        *out = SC_TRI_UNKNOWN;
        return SC_OK;
    }
}

/* Whether s mentions a backed size whose range passes INT64_MAX (in b). */
static bool has_capped(const sc_env *env, const sc_expr *s,
                       const sc_bounds *b)
{
    sc_expr *syms[16];
    size_t n = sc_expr_free_symbols(s, syms, 16), i;

    if (n > 16)
        return true; /* not listed: asking again is still sound */
    for (i = 0; i < n; i++) {
        const sc__env_sym *x = sc__env_sym_of(env, syms[i]);
        const sc_range *r = sc_bounds_get(b, syms[i]);
        if (x && r && x->backed && x->size_like &&
            (r->hi_inf || mpz_cmp_si(r->hi, INT64_MAX) > 0) &&
            (r->lo_inf || mpz_cmp_si(r->lo, INT64_MAX) <= 0))
            return true;
    }
    return false;
}

sc_status sc__env_known(sc_env *env, sc_expr *cond, bool oblivious,
                        sc_expr **simplified, sc_tri *out, sc_error *err)
{
    const sc_bounds *b = oblivious ? env->obl_bounds : env->bounds;
    sc_expr *s;

    if (!cond)
        return sc__error_set(err, SC_ERR_INVALID, "no expression");
    if (!sc_expr_is_bool(cond))
        return sc__error_set(err, SC_ERR_TYPE,
                             "expected a boolean expression");
    SC_TRY(sc__env_rewrite(env, cond, b, &s, err));
    SC_TRY(sc__env_check_symbols(env, s, NULL, err));
    SC_TRY(sc__env_decide(env, s, b, out, err));
    /* Left open: ask again with every backed size capped at INT64_MAX
     * (a tensor dimension is an int64_t), when a size of s is unbounded
     * above.  Sound: the cap leaves out only sizes no tensor has.  It
     * decides what numbers beyond int64_t take part in (an integer input
     * near 2**64 against a size), as PyTorch's value ranges do, which
     * make such a product infinite. */
    if (*out == SC_TRI_UNKNOWN && env->ncapped > 0 && has_capped(env, s, b))
        SC_TRY(sc__env_decide(env, s,
                              oblivious ? env->cap_obl_bounds
                                        : env->cap_bounds,
                              out, err));
    if (simplified)
        *simplified = s;
    return SC_OK;
}

/* ---- Learning ---------------------------------------------------------------- */

static sc_status push(sc_env *env, sc_expr *fact, sc_error *err)
{
    if (!fact)
        return sc__env_ctx_error(env, err);
    if (!sc__exprvec_push(&env->pending, fact))
        return sc__error_nomem(err);
    return SC_OK;
}

static sc_status add_replacement(sc_env *env, sc__env_sym *x, sc_expr *E,
                                 sc_error *err);
static sc_status try_replace(sc_env *env, sc_expr *X, bool *done,
                             sc_error *err);
static sc_status add_div(sc_env *env, sc_expr *x, sc_expr *k, sc_error *err);

/* Push the facts "lo <= e <= hi" (finite sides) and "e != v". */
static sc_status push_range_facts(sc_env *env, sc_expr *e, const sc_range *r,
                                  const sc__exprvec *excl, sc_error *err)
{
    sc_ctx *ctx = env->ctx;
    size_t i;

    if (r && sc__rng_singleton(r, NULL)) {
        SC_TRY(push(env, sc_expr_eq(ctx, e, sc_expr_int_mpz(ctx, r->lo)), err));
        r = NULL;
    }
    if (r && !r->lo_inf)
        SC_TRY(push(env, sc_expr_ge(ctx, e, sc_expr_int_mpz(ctx, r->lo)), err));
    if (r && !r->hi_inf)
        SC_TRY(push(env, sc_expr_le(ctx, e, sc_expr_int_mpz(ctx, r->hi)), err));
    for (i = 0; excl && i < excl->n; i++)
        SC_TRY(push(env, sc_expr_ne(ctx, e, excl->items[i]), err));
    return SC_OK;
}

/* Tighten a symbol's candidate range with its divisibility facts and its
 * excluded values, until stable. */
static void tighten_sym_range(sc_env *env, sc__env_sym *s, sc_range *r)
{
    SC__TMP_SAVE(env);
    bool changed = true;
    uint64_t id;
    mpz_ptr k = sc__tz(env), t = sc__tz(env);

    while (changed && !sc_range_is_empty(r)) {
        changed = false;
        if (env->ndivs_alive > 0 &&
            sc__gmap_get(&env->div_of, sc__gmap_ptr(s->sym), &id)) {
            for (; id != SIZE_MAX; id = env->divs[id].next) {
                sc__env_div *d = &env->divs[id];
                if (d->dead || !sc_expr_is_int(d->k))
                    continue;
                sc_expr_value_mpz(d->k, k);
                mpz_abs(k, k);
                if (mpz_sgn(k) == 0)
                    continue;
                if (!r->lo_inf) {
                    mpz_cdiv_q(t, r->lo, k);
                    mpz_mul(t, t, k);
                    if (mpz_cmp(t, r->lo) != 0) {
                        mpz_set(r->lo, t);
                        changed = true;
                    }
                }
                if (!r->hi_inf) {
                    mpz_fdiv_q(t, r->hi, k);
                    mpz_mul(t, t, k);
                    if (mpz_cmp(t, r->hi) != 0) {
                        mpz_set(r->hi, t);
                        changed = true;
                    }
                }
            }
        }
        if (!r->lo_inf && excluded_has(env, &s->excluded, r->lo)) {
            mpz_add_ui(r->lo, r->lo, 1);
            changed = true;
        }
        if (!r->hi_inf && !sc_range_is_empty(r) &&
            excluded_has(env, &s->excluded, r->hi)) {
            mpz_sub_ui(r->hi, r->hi, 1);
            changed = true;
        }
    }
    SC__TMP_RESTORE(env);
}

/* Narrow a symbol's range to r (intersected with what is known). */
static sc_status narrow_symbol(sc_env *env, sc__env_sym *s, const sc_range *r,
                               sc_expr *why, sc_error *err)
{
    SC__TMP_SAVE(env);
    const sc_range *cur = sc__env_sym_range(env, s);
    sc_status status = SC_OK;
    sc_range *nr = sc__tr(env);
    mpz_ptr v = sc__tz(env);

    if (cur)
        sc_range_set(nr, cur);
    if (r)
        sc__rng_intersect(nr, r);
    tighten_sym_range(env, s, nr);
    if (sc_range_is_empty(nr)) {
        status = contradiction(env, why, err);
        goto fail;
    }
    if (!cur || !sc__rng_equal(nr, cur)) {
        SC_CHECK(sc__env_set_range(env, s, nr, err));
        if (sc__rng_singleton(nr, v) && !s->replaced) {
            sc_expr *c = sc_expr_int_mpz(env->ctx, v);
            if (!c) {
                status = sc__env_ctx_error(env, err);
                goto fail;
            }
            SC_CHECK(add_replacement(env, s, c, err));
        }
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static sc_status get_form(sc_env *env, sc_expr *L, sc__env_form **out,
                          sc_error *err)
{
    sc_status status;
    sc__env_form *f;
    uint64_t id;

    if (sc__gmap_get(&env->form_of, sc__gmap_ptr(L), &id) &&
        !env->forms[id].dead) {
        *out = &env->forms[id];
        return SC_OK;
    }
    if (env->nforms == env->forms_cap) {
        void *p = env->forms;
        if (!sc__grow(&p, &env->forms_cap, env->nforms + 1,
                      sizeof *env->forms))
            return sc__error_nomem(err);
        env->forms = p;
    }
    if (env->nforms > 0xffffffffu)
        return sc__error_set(err, SC_ERR_LIMIT, "too many facts");
    if (!sc__gmap_put(&env->form_of, sc__gmap_ptr(L), env->nforms))
        return sc__error_nomem(err);
    f = &env->forms[env->nforms];
    memset(f, 0, sizeof *f);
    f->L = L;
    sc_range_init(&f->r);
    env->nforms++;
    status = sc__env_index_fact(env, L, SC__FACT_ENTRY(SC__FACT_FORM,
                                                       env->nforms - 1), err);
    *out = f;
    return status;
}

static void tighten_form_range(sc_env *env, sc__env_form *f)
{
    bool changed = true;
    while (changed && !sc_range_is_empty(&f->r)) {
        changed = false;
        if (!f->r.lo_inf && excluded_has(env, &f->excluded, f->r.lo)) {
            mpz_add_ui(f->r.lo, f->r.lo, 1);
            changed = true;
        }
        if (!f->r.hi_inf && excluded_has(env, &f->excluded, f->r.hi)) {
            mpz_sub_ui(f->r.hi, f->r.hi, 1);
            changed = true;
        }
    }
}

/* L = c + sum of a_i*t_i lies in r: every t_i that is a symbol of the
 * environment lies in (r - c - the range of the other terms)/a_i
 * (PyTorch's range refinement, for guards and runtime assertions alike:
 * `u0 + 2*u1 <= 12` with `u1 >= 2` gives `u0 <= 8`).  A term
 * FloorDiv(Y, k) or CeilDiv(Y, k) with a constant k >= 1 bounds Y the
 * same way, and Y, a symbol or a sum, is narrowed in turn (depth
 * levels): `s1 <= (u0 + Mod(s1, 8))//16` with `s1 >= 2` gives
 * `(u0 + Mod(s1, 8))//16 >= 2`, `u0 + Mod(s1, 8) >= 32`, `u0 >= 25`.
 * Sums of at most 8 terms; r is the form's interval (a copy). */
static sc_status propagate_sum(sc_env *env, sc_expr *L, const sc_range *r,
                               sc_expr *why, int depth, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_status status = SC_OK;
    sc_range *tr = sc__tr(env), *term = sc__tr(env), *rest = sc__tr(env);
    sc_range *xr = sc__tr(env), *yr = sc__tr(env);
    mpz_ptr a = sc__tz(env), zero = sc__tz(env), m1 = sc__tz(env);
    mpz_ptr c = sc__tz(env), k = sc__tz(env);
    size_t i, j, n;

    if (sc_expr_node_kind(L) != SC_EXPR_ADD)
        goto fail;
    n = sc_expr_arg_count(L);
    if (n < 1 || n > 8)
        goto fail;
    mpz_set_si(zero, 0);
    mpz_set_si(m1, -1);
    sc_expr_add_constant(L, c);
    for (i = 0; i < n; i++) {
        sc_expr *x = sc_expr_arg(L, i), *y = NULL;
        sc_expr_kind kx = sc_expr_node_kind(x);
        sc__env_sym *s = NULL;
        if (kx == SC_EXPR_SYMBOL) {
            s = sc__env_sym_of(env, x);
            if (!s || s->replaced)
                continue;
        } else if ((kx == SC_EXPR_FLOORDIV || kx == SC_EXPR_CEILDIV) &&
                   depth > 0 && sc_expr_is_int(sc_expr_arg(x, 1))) {
            sc_expr_value_mpz(sc_expr_arg(x, 1), k);
            if (mpz_sgn(k) <= 0)
                continue;
            y = sc_expr_arg(x, 0);
            if (sc_expr_node_kind(y) == SC_EXPR_SYMBOL) {
                s = sc__env_sym_of(env, y);
                if (!s || s->replaced)
                    continue;
            } else if (sc_expr_node_kind(y) != SC_EXPR_ADD) {
                continue;
            }
        } else {
            continue;
        }
        sc__rng_set_mpz(rest, c);
        for (j = 0; j < n; j++) {
            if (j == i)
                continue;
            SC_CHECK(sc_expr_range(env->ctx, sc_expr_arg(L, j), env->bounds,
                                   term, err));
            sc_expr_add_coef(L, j, a);
            sc__rng_affine(tr, term, zero, a);
            sc__rng_add(term, rest, tr);
            sc_range_set(rest, term);
        }
        if (rest->lo_inf && rest->hi_inf)
            continue;
        /* a_i*x = L - rest, in r - rest. */
        sc__rng_affine(tr, rest, zero, m1);
        sc__rng_add(term, r, tr);
        if (term->lo_inf && term->hi_inf)
            continue;
        sc_expr_add_coef(L, i, a);
        sc__rng_solve(xr, term, zero, a);
        if (sc_range_is_empty(xr))
            continue;   /* the caller finds the contradiction */
        if (y) {
            /* FloorDiv(Y, k) in [lo, hi]: Y in [k*lo, k*hi + k - 1];
             * CeilDiv(Y, k) in [lo, hi]: Y in [k*lo - k + 1, k*hi]. */
            sc_range_set(yr, xr);
            if (!xr->lo_inf) {
                mpz_mul(yr->lo, xr->lo, k);
                if (kx == SC_EXPR_CEILDIV) {
                    mpz_sub(yr->lo, yr->lo, k);
                    mpz_add_ui(yr->lo, yr->lo, 1);
                }
            }
            if (!xr->hi_inf) {
                mpz_mul(yr->hi, xr->hi, k);
                if (kx == SC_EXPR_FLOORDIV) {
                    mpz_add(yr->hi, yr->hi, k);
                    mpz_sub_ui(yr->hi, yr->hi, 1);
                }
            }
            if (s)
                SC_CHECK(narrow_symbol(env, s, yr, why, err));
            else
                SC_CHECK(propagate_sum(env, y, yr, why, depth - 1, err));
            continue;
        }
        SC_CHECK(narrow_symbol(env, s, xr, why, err));
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

/* Record L in r as a fact about the form L. */
static sc_status form_fact(sc_env *env, sc_expr *L, const sc_range *r,
                           sc_expr *why, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_status status = SC_OK;
    sc__env_form *f;
    sc_range *br = sc__tr(env);

    SC_CHECK(get_form(env, L, &f, err));
    sc__rng_intersect(&f->r, r);
    tighten_form_range(env, f);
    if (sc_range_is_empty(&f->r)) {
        status = contradiction(env, why, err);
        goto fail;
    }
    SC_CHECK(sc_expr_range(env->ctx, L, env->bounds, br, err));
    sc__rng_intersect(br, &f->r);
    if (sc_range_is_empty(br)) {
        status = contradiction(env, why, err);
        goto fail;
    }
    if (sc__rng_singleton(&f->r, NULL)) {
        /* L == v: solve it for a symbol if possible; otherwise the terms
         * are bounded below (3*(s0//3) + 12*(s0//12) + (s0//3)*(s0//12)
         * == 0 gives s0 <= 2). */
        sc_expr *X = sc_expr_sub(env->ctx, L, sc_expr_int_mpz(env->ctx, f->r.lo));
        bool done;
        SC_CHECK(sc__env_built(env, X, err));
        SC_CHECK(try_replace(env, X, &done, err));
        if (done)
            goto fail;
    } else if (sc__rng_singleton(br, NULL)) {
        /* The facts and L's own range leave one value v (Mod(x, 2) <= 0
         * makes Mod(x, 2) == 0): solve L == v for a symbol, or record
         * Mod(x, k) == 0 as the divisibility fact it is, so that the
         * rewrite replaces it everywhere (a replacement 2 - Mod(x, 2) of
         * a size >= 2 is then 2). */
        sc_expr *X = sc_expr_sub(env->ctx, L, sc_expr_int_mpz(env->ctx, br->lo));
        bool done;
        SC_CHECK(sc__env_built(env, X, err));
        SC_CHECK(try_replace(env, X, &done, err));
        if (done)
            goto fail;
        if (mpz_sgn(br->lo) == 0 && sc_expr_node_kind(L) == SC_EXPR_MOD) {
            status = add_div(env, sc_expr_arg(L, 0), sc_expr_arg(L, 1), err);
            goto fail;
        }
    }
    /* Learning may move the form table: f is not used after this. */
    sc_range_set(br, &f->r);
    SC_CHECK(propagate_sum(env, L, br, why, 2, err));
fail:
    SC__TMP_RESTORE(env);
    return status;
}

/* L = a*F + rest, with F = FloorDiv(N, k) or CeilDiv(N, k) the only
 * division term of L (k >= 2 a constant, a = +1 or -1), lies in R: with
 * Q = a*L - F, F lies in a*R - Q, and a bound on F moves to N exactly
 * (PyTorch's try_solve on a floor division): F >= m <=> N >= k*m
 * (CeilDiv: N >= k*m - k + 1), F <= m <=> N <= k*m + k - 1 (CeilDiv:
 * N <= k*m).  So `(u0 - s2)//2 >= u0` is `u0 - s2 >= 2*u0`, which
 * repeated range refinement of the sum would only reach at its fixpoint.
 * The linear facts are queued; L keeps its own fact. */
static sc_status solve_division_term(sc_env *env, sc_expr *L,
                                     const sc_range *R, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_ctx *ctx = env->ctx;
    sc_status status = SC_OK;
    sc_range *A = sc__tr(env);
    mpz_ptr a = sc__tz(env), k = sc__tz(env), zero = sc__tz(env);
    size_t i, n = sc_expr_arg_count(L), fi = SIZE_MAX;
    sc_expr *F, *N, *Q, *kk;
    bool ceil;

    for (i = 0; i < n; i++) {
        sc_expr_kind kx = sc_expr_node_kind(sc_expr_arg(L, i));
        if (kx != SC_EXPR_FLOORDIV && kx != SC_EXPR_CEILDIV)
            continue;
        if (fi != SIZE_MAX)
            goto fail;   /* two divisions: left to the form's fact */
        fi = i;
    }
    if (fi == SIZE_MAX)
        goto fail;
    F = sc_expr_arg(L, fi);
    if (!sc_expr_is_int(sc_expr_arg(F, 1)))
        goto fail;
    sc_expr_value_mpz(sc_expr_arg(F, 1), k);
    sc_expr_add_coef(L, fi, a);
    if (mpz_cmp_ui(k, 2) < 0 || mpz_cmpabs_ui(a, 1) != 0)
        goto fail;
    ceil = sc_expr_node_kind(F) == SC_EXPR_CEILDIV;
    N = sc_expr_arg(F, 0);
    kk = sc_expr_int_mpz(ctx, k);
    Q = sc_expr_sub(ctx, sc_expr_mul(ctx, sc_expr_int_mpz(ctx, a), L), F);
    SC_CHECK(sc__env_built(env, Q, err));
    mpz_set_ui(zero, 0);
    sc__rng_affine(A, R, zero, a);
    if (!A->lo_inf) {
        /* N >= k*(lo - Q) (+ 1 - k) */
        mpz_set(zero, A->lo);
        if (ceil) {
            mpz_mul(zero, zero, k);
            mpz_sub(zero, zero, k);
            mpz_add_ui(zero, zero, 1);
        } else {
            mpz_mul(zero, zero, k);
        }
        SC_CHECK(push(env, sc_expr_ge(ctx, sc_expr_add(ctx, N,
                                                       sc_expr_mul(ctx, kk, Q)),
                                      sc_expr_int_mpz(ctx, zero)), err));
    }
    if (!A->hi_inf) {
        /* N <= k*(hi - Q) (+ k - 1) */
        mpz_mul(zero, A->hi, k);
        if (!ceil) {
            mpz_add(zero, zero, k);
            mpz_sub_ui(zero, zero, 1);
        }
        SC_CHECK(push(env, sc_expr_le(ctx, sc_expr_add(ctx, N,
                                                       sc_expr_mul(ctx, kk, Q)),
                                      sc_expr_int_mpz(ctx, zero)), err));
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static sc_status constrain(sc_env *env, sc_expr *X, const sc_range *R,
                           sc_expr *why, sc_error *err);

/* L (normal form) lies in R. */
static sc_status constrain_form(sc_env *env, sc_expr *L, const sc_range *R,
                                sc_expr *why, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_expr_kind kind = sc_expr_node_kind(L);
    sc_status status = SC_OK;
    sc_range *r2 = sc__tr(env);
    mpz_ptr k = sc__tz(env);
    size_t i, n;

    if (kind == SC_EXPR_SYMBOL) {
        sc__env_sym *s = sc__env_sym_of(env, L);
        if (!s)
            SC__TMP_RETURN(env, sc_status, sc__error_set(err, SC_ERR_UNBOUND, "unknown symbol '%s'",
                                 sc_expr_symbol_name(L)));
        SC__TMP_RETURN(env, sc_status, narrow_symbol(env, s, R, why, err));
    }
    if ((kind == SC_EXPR_FLOORDIV || kind == SC_EXPR_CEILDIV) &&
        sc_expr_is_int(sc_expr_arg(L, 1))) {
        sc_expr_value_mpz(sc_expr_arg(L, 1), k);
        if (mpz_sgn(k) > 0) {
            /* FloorDiv(Y, k) in [lo, hi]  <=>  Y in [k*lo, k*hi + k - 1];
             * CeilDiv(Y, k) in [lo, hi]   <=>  Y in [k*lo - k + 1, k*hi]. */
            r2->lo_inf = R->lo_inf;
            r2->hi_inf = R->hi_inf;
            if (!R->lo_inf) {
                mpz_mul(r2->lo, R->lo, k);
                if (kind == SC_EXPR_CEILDIV) {
                    mpz_sub(r2->lo, r2->lo, k);
                    mpz_add_ui(r2->lo, r2->lo, 1);
                }
            }
            if (!R->hi_inf) {
                mpz_mul(r2->hi, R->hi, k);
                if (kind == SC_EXPR_FLOORDIV) {
                    mpz_add(r2->hi, r2->hi, k);
                    mpz_sub_ui(r2->hi, r2->hi, 1);
                }
            }
            status = constrain(env, sc_expr_arg(L, 0), r2, why, err);
            goto fail;
        }
    }
    if (kind == SC_EXPR_FLOORDIV && !sc_expr_is_int(sc_expr_arg(L, 1)) &&
        (!R->lo_inf || !R->hi_inf)) {
        /* FloorDiv(Y, b) with b >= 1: >= lo <=> Y - lo*b >= 0, and
         * <= hi <=> Y - (hi + 1)*b <= -1 (PyTorch's try_solve on a floor
         * division by a positive divisor: (s2 + s0)//s0 >= 28 gives
         * s2 >= 27*s0).  Both are queued; L keeps its own fact too. */
        sc_ctx *ctx = env->ctx;
        sc_expr *Y = sc_expr_arg(L, 0), *b = sc_expr_arg(L, 1);
        SC_CHECK(sc__env_expr_range(env, b, env->bounds, r2, err));
        if (!r2->lo_inf && mpz_cmp_ui(r2->lo, 1) >= 0) {
            if (!R->lo_inf) {
                sc_expr *t = sc_expr_mul(ctx, sc_expr_int_mpz(ctx, R->lo), b);
                SC_CHECK(push(env, sc_expr_ge(ctx, Y, t), err));
            }
            if (!R->hi_inf) {
                sc_expr *t;
                mpz_add_ui(k, R->hi, 1);
                t = sc_expr_mul(ctx, sc_expr_int_mpz(ctx, k), b);
                SC_CHECK(push(env, sc_expr_lt(ctx, Y, t), err));
            }
        }
    }
    if ((kind == SC_EXPR_MAX && !R->hi_inf) ||
        (kind == SC_EXPR_MIN && !R->lo_inf)) {
        /* Max(args) <= hi: every argument is; Min(args) >= lo likewise.
         * The other side stays a fact about L.  Queued, not applied here:
         * the first argument may solve a symbol that the next mentions. */
        sc_ctx *ctx = env->ctx;
        bool is_max = kind == SC_EXPR_MAX;
        sc_expr *bound = sc_expr_int_mpz(ctx, is_max ? R->hi : R->lo);
        n = sc_expr_arg_count(L);
        for (i = 0; i < n; i++) {
            sc_expr *a = sc_expr_arg(L, i);
            SC_CHECK(push(env, is_max ? sc_expr_le(ctx, a, bound)
                                      : sc_expr_ge(ctx, a, bound), err));
        }
        if (is_max ? !R->lo_inf : !R->hi_inf) {
            sc_expr *other = sc_expr_int_mpz(ctx, is_max ? R->lo : R->hi);
            SC_CHECK(push(env, is_max ? sc_expr_ge(ctx, L, other)
                                      : sc_expr_le(ctx, L, other), err));
        }
        goto fail;
    }
    if (kind == SC_EXPR_ADD)
        SC_CHECK(solve_division_term(env, L, R, err));
    status = form_fact(env, L, R, why, err);
fail:
    SC__TMP_RESTORE(env);
    return status;
}

/* The integer expression X lies in R. */
static sc_status constrain(sc_env *env, sc_expr *X, const sc_range *R,
                           sc_expr *why, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_status status = SC_OK;
    sc_expr *L;
    sc_range *rl = sc__tr(env);
    mpz_ptr c = sc__tz(env), a = sc__tz(env);

    SC_CHECK(sc__env_normalize(env, X, c, a, &L, err));
    if (!L) {
        if (!sc_range_contains_mpz(R, c))
            status = contradiction(env, why, err);
        goto fail;
    }
    sc__rng_solve(rl, R, c, a);
    if (sc_range_is_empty(rl)) {
        status = contradiction(env, why, err);
        goto fail;
    }
    if (sc__rng_is_full(rl))
        goto fail;
    status = constrain_form(env, L, rl, why, err);
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static bool exclude_push(sc__exprvec *v, sc_expr *value, bool *nomem)
{
    size_t i;
    for (i = 0; i < v->n; i++)
        if (v->items[i] == value)
            return false;
    if (!sc__exprvec_push(v, value)) {
        *nomem = true;
        return false;
    }
    return true;
}

/* X != 0. */
static sc_status exclude(sc_env *env, sc_expr *X, sc_expr *why, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_status status = SC_OK;
    sc_expr *L, *wv;
    sc_range *r = sc__tr(env);
    mpz_ptr c = sc__tz(env), a = sc__tz(env), w = sc__tz(env);
    bool nomem = false;

    SC_CHECK(sc__env_normalize(env, X, c, a, &L, err));
    if (!L) {
        if (mpz_sgn(c) == 0)
            status = contradiction(env, why, err);
        goto fail;
    }
    mpz_neg(w, c);
    if (!mpz_divisible_p(w, a))
        goto fail;
    mpz_divexact(w, w, a);
    wv = sc_expr_int_mpz(env->ctx, w);
    if (!wv) {
        status = sc__env_ctx_error(env, err);
        goto fail;
    }
    if (sc_expr_is_symbol(L)) {
        sc__env_sym *s = sc__env_sym_of(env, L);
        const sc_range *cur;
        if (!s) {
            status = sc__error_set(err, SC_ERR_UNBOUND, "unknown symbol '%s'",
                                   sc_expr_symbol_name(L));
            goto fail;
        }
        cur = sc__env_sym_range(env, s);
        if (cur && !sc_range_contains_mpz(cur, w))
            goto fail;
        if (exclude_push(&s->excluded, wv, &nomem))
            status = narrow_symbol(env, s, NULL, why, err);
        else if (nomem)
            status = sc__error_nomem(err);
    } else {
        sc__env_form *f;
        SC_CHECK(sc_expr_range(env->ctx, L, env->bounds, r, err));
        if (!sc_range_contains_mpz(r, w))
            goto fail;
        SC_CHECK(get_form(env, L, &f, err));
        if (!sc_range_contains_mpz(&f->r, w))
            goto fail;
        if (exclude_push(&f->excluded, wv, &nomem)) {
            tighten_form_range(env, f);
            if (sc_range_is_empty(&f->r))
                status = contradiction(env, why, err);
        } else if (nomem) {
            status = sc__error_nomem(err);
        }
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static sc_status add_div(sc_env *env, sc_expr *x, sc_expr *k, sc_error *err)
{
    sc__env_div *d;
    uint64_t first;
    size_t id;

    if (divisible(env, x, k))
        return SC_OK;
    if (env->ndivs == env->divs_cap) {
        void *p = env->divs;
        if (!sc__grow(&p, &env->divs_cap, env->ndivs + 1, sizeof *env->divs))
            return sc__error_nomem(err);
        env->divs = p;
    }
    if (!sc__gmap_get(&env->div_of, sc__gmap_ptr(x), &first))
        first = SIZE_MAX;
    id = env->ndivs;
    if (!sc__gmap_put(&env->div_of, sc__gmap_ptr(x), id))
        return sc__error_nomem(err);
    d = &env->divs[id];
    d->x = x;
    d->k = k;
    d->next = (size_t)first;
    d->dead = false;
    env->ndivs++;
    env->ndivs_alive++;
    SC_TRY(sc__env_index_fact(env, x, SC__FACT_ENTRY(SC__FACT_DIV, id), err));
    SC_TRY(sc__env_index_fact(env, k, SC__FACT_ENTRY(SC__FACT_DIV, id), err));
    if (sc_expr_is_symbol(x) && sc_expr_is_int(k)) {
        sc__env_sym *s = sc__env_sym_of(env, x);
        if (s)
            return narrow_symbol(env, s, NULL, NULL, err);
    }
    return SC_OK;
}

static sc_status add_or(sc_env *env, sc_expr *e, sc_error *err)
{
    size_t id;

    if (or_known(env, e))
        return SC_OK;
    if (env->nors == env->ors_cap) {
        void *p = env->ors;
        if (!sc__grow(&p, &env->ors_cap, env->nors + 1, sizeof *env->ors))
            return sc__error_nomem(err);
        env->ors = p;
    }
    id = env->nors;
    if (!sc__gmap_put(&env->or_of, sc__gmap_ptr(e), id))
        return sc__error_nomem(err);
    env->ors[id].e = e;
    env->ors[id].dead = false;
    env->nors++;
    env->nors_alive++;
    return sc__env_index_fact(env, e, SC__FACT_ENTRY(SC__FACT_OR, id), err);
}

/* May x (solved for) be replaced by E?  A backed symbol only by backed
 * ones (guards must stay checkable on the inputs).  An unbacked symbol only
 * by symbols bound before it at run time: backed symbols (bound from the
 * inputs before any unbacked value exists) and unbacked symbols created
 * before it -- never by a later unbacked symbol. */
static bool replacement_allowed(sc_env *env, sc__env_sym *x, sc_expr *E)
{
    sc_expr *small[16], **syms = small;
    size_t n, i;
    bool ok = true;

    n = sc_expr_free_symbols(E, small, 16);
    if (n > 16) {
        syms = sc__malloc(n * sizeof *syms);
        if (!syms)
            return false;
        sc_expr_free_symbols(E, syms, n);
    }
    for (i = 0; i < n && ok; i++) {
        sc__env_sym *y = sc__env_sym_of(env, syms[i]);
        if (!y || y == x || y->replaced)
            ok = false;
        else if (x->backed)
            ok = y->backed;
        else
            ok = y->backed || y < x;
    }
    if (syms != small)
        sc__free(syms);
    return ok;
}

/* Eq(X, 0): solve for the newest symbol that appears once, linearly, with
 * coefficient +-1, and whose solution is allowed. */
static sc_status try_replace(sc_env *env, sc_expr *X, bool *done,
                             sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_ctx *ctx = env->ctx;
    sc__env_sym *best = NULL;
    sc_expr *bestE = NULL;
    size_t n, i, j;
    mpz_ptr coef = sc__tz(env);

    *done = false;
    if (sc_expr_is_symbol(X)) {
        sc__env_sym *s = sc__env_sym_of(env, X);
        sc_expr *zero = sc_expr_int_si(ctx, 0);
        if (!zero)
            SC__TMP_RETURN(env, sc_status, sc__env_ctx_error(env, err));
        if (!s || s->replaced)
            SC__TMP_RETURN(env, sc_status, SC_OK);
        *done = true;
        SC__TMP_RETURN(env, sc_status, add_replacement(env, s, zero, err));
    }
    if (sc_expr_node_kind(X) != SC_EXPR_ADD)
        SC__TMP_RETURN(env, sc_status, SC_OK);
    n = sc_expr_arg_count(X);
    for (i = 0; i < n; i++) {
        sc_expr *t = sc_expr_arg(X, i), *E;
        sc__env_sym *s;
        if (!sc_expr_is_symbol(t))
            continue;
        s = sc__env_sym_of(env, t);
        if (!s || s->replaced || (best && s < best))
            continue;
        sc_expr_add_coef(X, i, coef);
        if (mpz_cmpabs_ui(coef, 1) != 0)
            continue;
        for (j = 0; j < n; j++)
            if (j != i && sc_expr_has_symbol(sc_expr_arg(X, j), t))
                break;
        if (j < n)
            continue;
        E = mpz_sgn(coef) > 0 ? sc_expr_sub(ctx, t, X) : sc_expr_add(ctx, X, t);
        if (!E) {
            SC__TMP_RESTORE(env);
            return sc__env_ctx_error(env, err);
        }
        if (replacement_allowed(env, s, E)) {
            best = s;
            bestE = E;
        }
    }
    SC__TMP_RESTORE(env);
    if (!best)
        SC__TMP_RETURN(env, sc_status, SC_OK);
    *done = true;
    SC__TMP_RETURN(env, sc_status, add_replacement(env, best, bestE, err));
}

/* Rewrite the other replacements that mention x through env->scratch
 * (x -> its replacement). */
static sc_status substitute_replacements(sc_env *env, const sc__env_sym *x,
                                         sc_error *err)
{
    size_t i;

    for (i = 0; i < env->nsyms; i++) {
        sc__env_sym *y = &env->syms[i];
        sc_expr *F;
        if (!y->replaced || y == x || !sc_expr_has_symbol(y->repl, x->sym))
            continue;
        F = sc_expr_subst(env->ctx, y->repl, env->scratch);
        SC_TRY(sc__env_built(env, F, err));
        y->repl = F;
        SC_TRY(sc_symmap_set(env->repl, y->sym, F, err));
    }
    return SC_OK;
}

static sc_status add_replacement(sc_env *env, sc__env_sym *x, sc_expr *E,
                                 sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_ctx *ctx = env->ctx;
    sc_status status = SC_OK;
    const sc_range *r;
    size_t i;

    if (x->replaced) {
        status = sc__error_set(err, SC_ERR_INTERNAL, "symbol replaced twice");
        goto fail;
    }
    if (sc_expr_is_int(E)) {
        mpz_ptr v = sc__tz(env);
        bool ok;
        sc_expr_value_mpz(E, v);
        r = sc__env_sym_range(env, x);
        ok = (!r || sc_range_contains_mpz(r, v)) &&
             !excluded_has(env, &x->excluded, v);
        if (!ok) {
            status = contradiction(env, sc_expr_eq(ctx, x->sym, E), err);
            goto fail;
        }
    }
    SC_CHECK(sc_symmap_set(env->repl, x->sym, E, err));
    x->replaced = true;
    x->repl = E;
    env->nrepl++;
    /* Keep every replacement in free symbols. */
    SC_CHECK(sc_symmap_set(env->scratch, x->sym, E, err));
    status = substitute_replacements(env, x, err);
    sc_symmap_clear(env->scratch);
    SC_CHECK(status);

    /* What was known about x is now known about E. */
    SC_CHECK(push_range_facts(env, E, sc__env_sym_range(env, x), &x->excluded,
                              err));
    for (i = 0; i < x->nfacts; i++) {
        uint64_t entry = x->facts[i];
        size_t id = SC__FACT_ID(entry);
        switch (SC__FACT_KIND(entry)) {
        case SC__FACT_FORM: {
            sc__env_form *f = &env->forms[id];
            if (f->dead)
                break;
            f->dead = true;
            SC_CHECK(push_range_facts(env, f->L, &f->r, &f->excluded, err));
            break;
        }
        case SC__FACT_DIV: {
            sc__env_div *d = &env->divs[id];
            if (d->dead)
                break;
            d->dead = true;
            env->ndivs_alive--;
            SC_CHECK(push(env, sc_expr_eq(ctx, sc_expr_mod(ctx, d->x, d->k),
                                          sc_expr_int_si(ctx, 0)),
                          err));
            break;
        }
        case SC__FACT_OR: {
            sc__env_or *o = &env->ors[id];
            if (o->dead)
                break;
            o->dead = true;
            env->nors_alive--;
            SC_CHECK(push(env, o->e, err));
            break;
        }
        default:
            break;
        }
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

/* A disjunction s: drop the disjuncts known false; one left is a plain
 * fact, none a contradiction with fact. */
static sc_status learn_or(sc_env *env, sc_expr *s, sc_expr *fact,
                          sc_error *err)
{
    const size_t base = env->stk.n, n = sc_expr_arg_count(s);
    sc_status status = SC_OK;
    size_t nk = 0, i;
    sc_expr **keep;
    sc_tri t;

    for (i = 0; i < n; i++) {
        SC_CHECK(sc__env_decide(env, sc_expr_arg(s, i), env->bounds, &t, err));
        if (t != SC_TRI_FALSE) {
            sc__stk_push(env, sc_expr_arg(s, i));
            nk++;
        }
    }
    keep = env->stk.items + base;
    if (nk == 0)
        status = contradiction(env, fact, err);
    else if (nk == 1)
        status = push(env, keep[0], err);
    else if (nk < n)
        status = push(env, sc_expr_or_n(env->ctx, nk, keep), err);
    else
        status = add_or(env, s, err);
fail:
    env->stk.n = base;
    return status;
}

static sc_status learn_one(sc_env *env, sc_expr *fact, bool undecided,
                           sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_status status = SC_OK;
    sc_expr *s, *X, *L;
    sc_tri t;
    size_t i, n;
    bool done;
    mpz_ptr c = sc__tz(env), a = sc__tz(env);

    status = sc__env_rewrite(env, fact, env->bounds, &s, err);
    if (status == SC_ERR_DIV_ZERO) {
        /* what is known makes a divisor of the fact 0: it cannot hold */
        status = contradiction(env, fact, err);
        goto fail;
    }
    SC_CHECK(status);
    if (undecided && s == fact)
        t = SC_TRI_UNKNOWN; /* decided just before, nothing changed since */
    else
        SC_CHECK(sc__env_decide(env, s, env->bounds, &t, err));
    if (t == SC_TRI_TRUE)
        goto fail;
    if (t == SC_TRI_FALSE) {
        status = contradiction(env, fact, err);
        goto fail;
    }
    switch (sc_expr_node_kind(s)) {
    case SC_EXPR_AND:
        n = sc_expr_arg_count(s);
        for (i = 0; i < n; i++)
            SC_CHECK(push(env, sc_expr_arg(s, i), err));
        break;
    case SC_EXPR_OR:
        status = learn_or(env, s, fact, err);
        break;
    case SC_EXPR_EQ:
        X = sc_expr_arg(s, 0);
        SC_CHECK(try_replace(env, X, &done, err));
        if (done)
            break;
        SC_CHECK(sc__env_normalize(env, X, c, a, &L, err));
        if (L && mpz_sgn(c) == 0 && sc_expr_node_kind(L) == SC_EXPR_MOD) {
            status = add_div(env, sc_expr_arg(L, 0), sc_expr_arg(L, 1), err);
        } else {
            sc_range *z = sc__tr(env);
            sc_range_set_si(z, 0, 0);
            status = constrain(env, X, z, fact, err);
        }
        break;
    case SC_EXPR_LE: {
        sc_range *z = sc__tr(env);
        sc_range_set_si(z, 0, 0);
        z->lo_inf = true;
        status = constrain(env, sc_expr_arg(s, 0), z, fact, err);
        break;
    }
    case SC_EXPR_NE:
        status = exclude(env, sc_expr_arg(s, 0), fact, err);
        break;
    default:
        break;
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static sc_status learn(sc_env *env, sc_expr *fact, bool undecided,
                       sc_error *err)
{
    sc_status status = SC_OK;
    bool first = true;

    SC_CHECK(push(env, fact, err));
    while (env->pending.n > 0) {
        sc_expr *f = env->pending.items[--env->pending.n];
        SC_CHECK(learn_one(env, f, first && undecided, err));
        first = false;
    }
fail:
    env->pending.n = 0;
    return status;
}

sc_status sc__env_learn(sc_env *env, sc_expr *fact, sc_error *err)
{
    return learn(env, fact, false, err);
}

sc_status sc__env_learn_undecided(sc_env *env, sc_expr *fact, sc_error *err)
{
    return learn(env, fact, true, err);
}

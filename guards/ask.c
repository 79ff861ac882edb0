/* symcut — the questions of the shape environment: statically known,
 * guard, guard_or_false/true, size-oblivious, assert (torch._check),
 * guard_int, and simplify/range/hint. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "guards/env.h"

/* "u0, u1" for the unbacked symbols of e (size_like: only those). */
static void unbacked_names(sc_env *env, sc_expr *e, bool size_like,
                           sc__buf *b)
{
    sc_expr *small[16], **syms = small;
    size_t n, i, k = 0;

    n = sc_expr_free_symbols(e, small, 16);
    if (n > 16) {
        syms = sc__malloc(n * sizeof *syms);
        if (!syms) {
            b->failed = true;
            return;
        }
        sc_expr_free_symbols(e, syms, n);
    }
    for (i = 0; i < n; i++) {
        sc__env_sym *s = sc__env_sym_of(env, syms[i]);
        if (!s || s->backed || (size_like && !s->size_like))
            continue;
        if (k++)
            sc__buf_puts(b, ", ");
        sc__buf_puts(b, sc_expr_symbol_name(syms[i]));
    }
    if (k == 0)
        sc__buf_puts(b, "none");
    if (syms != small)
        sc__free(syms);
}

/* SC_ERR_DATA_DEPENDENT in PyTorch's words. */
static sc_status data_dependent(sc_env *env, const char *what, sc_expr *s,
                                sc_error *err)
{
    char *text = sc_expr_to_str(env->ctx, s);
    sc__buf un, sl;
    sc_status st;

    sc__buf_init(&un);
    sc__buf_init(&sl);
    unbacked_names(env, s, false, &un);
    unbacked_names(env, s, true, &sl);
    st = sc__error_set(err, SC_ERR_DATA_DEPENDENT,
                       "Could not %s data-dependent expression %s "
                       "(unhinted: %s).  (Size-like symbols: %s)",
                       what, text ? text : "?",
                       un.data && !un.failed ? un.data : "?",
                       sl.data && !sl.failed ? sl.data : "?");
    free(text);
    sc__buf_free(&un);
    sc__buf_free(&sl);
    return st;
}

/* The symbols of a question's expression must all be the environment's,
 * even where the rewriting would drop them (`s0*8 != 908` holds for every
 * integer, but an unknown s0 is still an error). */
static sc_status own_symbols(sc_env *env, sc_expr *e, sc_error *err)
{
    if (!e)
        return sc__error_set(err, SC_ERR_INVALID, "no expression");
    return sc__env_check_symbols(env, e, NULL, err);
}

static sc_status statically_known_impl(sc_env *env, sc_expr *cond, unsigned flags,
                                  sc_tri *out, sc_error *err)
{
    SC_TRY(own_symbols(env, cond, err));
    return sc__env_known(env, cond, (flags & SC_ENV_OBLIVIOUS) != 0, NULL,
                         out, err);
}

sc_status sc_env_statically_known(sc_env *env, sc_expr *cond, unsigned flags,
                                  sc_tri *out, sc_error *err)
{
    sc_status status;
    SC__ENV_ENTER(env, err);
    status = statically_known_impl(env, cond, flags, out, err);
    SC__ENV_LEAVE(env);
    return status;
}

/* Record the guard g (true at the hints) and learn it. */
static sc_status record_guard(sc_env *env, sc_expr *g, sc_error *err)
{
    if (!g)
        return sc__env_ctx_error(env, err);
    if (!sc__exprvec_push(&env->guards, g))
        return sc__error_nomem(err);
    return sc__env_learn(env, g, err);
}

/* The same for g just returned undecided by sc__env_known (rewritten),
 * with nothing learnt since: learning does not decide it a second time. */
static sc_status record_undecided_guard(sc_env *env, sc_expr *g,
                                        sc_error *err)
{
    if (!sc__exprvec_push(&env->guards, g))
        return sc__error_nomem(err);
    return sc__env_learn_undecided(env, g, err);
}

/* ---- Divisors that may be 0 ---------------------------------------------
 * A division by 0 raises in Python (and in PyTorch's FloorDiv, CeilDiv
 * and Mod), so the traced program could compute the question's
 * expression only at sizes where its divisors are not 0; the ranges
 * take every division as defined.  An answer the ranges give therefore
 * holds only where the divisors are not 0: every recording question also
 * guards each divisor of its expression that has only backed symbols and
 * may be 0 (`Ne(s0, 0)` for `16 // s0` with 0/1 specialization off), so
 * that the guard set rejects the sizes where the program raises.  Those
 * with unbacked symbols cannot be checked on the inputs and are left to
 * the division itself at run time. */

#define DIVISORS_MAX 16     /* divisors looked at per question */
#define DIVISOR_NODES_MAX 4096 /* nodes visited per question */

typedef struct divisors {
    sc_expr *d[DIVISORS_MAX];
    size_t n, visited;
} divisors;

static void collect_divisors(sc_expr *e, divisors *dv)
{
    size_t i, n;
    sc_expr_kind k;

    if (dv->n == DIVISORS_MAX || ++dv->visited > DIVISOR_NODES_MAX)
        return;
    k = sc_expr_node_kind(e);
    if (k == SC_EXPR_INT || k == SC_EXPR_SYMBOL)
        return;
    n = sc_expr_arg_count(e);
    if ((k == SC_EXPR_FLOORDIV || k == SC_EXPR_CEILDIV || k == SC_EXPR_MOD) &&
        n == 2 && !sc_expr_is_int(sc_expr_arg(e, 1))) {
        sc_expr *d = sc_expr_arg(e, 1);
        for (i = 0; i < dv->n && dv->d[i] != d; i++)
            ;
        if (i == dv->n)
            dv->d[dv->n++] = d;
    }
    for (i = 0; i < n; i++)
        collect_divisors(sc_expr_arg(e, i), dv);
}

static sc_status record_guard(sc_env *env, sc_expr *g, sc_error *err);

/* Guard Ne(d, 0) for every divisor d of e with only backed symbols that
 * what is known does not already make nonzero (and that is not 0 at the
 * hints, where the traced program computed it). */
static sc_status guard_divisors(sc_env *env, sc_expr *e, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_status status = SC_OK;
    mpz_ptr v = sc__tz(env);
    divisors dv;
    size_t i, nunbacked;
    sc_error e2;

    dv.n = dv.visited = 0;
    collect_divisors(e, &dv);
    for (i = 0; i < dv.n; i++) {
        sc_expr *ne;
        sc_tri t;

        SC_CHECK(sc__env_check_symbols(env, dv.d[i], &nunbacked, err));
        if (nunbacked > 0)
            continue;
        sc_error_init(&e2);
        if (sc_expr_eval(env->ctx, dv.d[i], env->hints, v, &e2) != SC_OK ||
            mpz_sgn(v) == 0)
            continue;
        ne = sc_expr_ne(env->ctx, dv.d[i], sc_expr_int_si(env->ctx, 0));
        SC_CHECK(sc__env_built(env, ne, err));
        SC_CHECK(sc__env_known(env, ne, false, &ne, &t, err));
        if (t == SC_TRI_UNKNOWN)
            SC_CHECK(record_guard(env, ne, err));
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static sc_status eval_hint_bool(sc_env *env, sc_expr *s, bool *out,
                                sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_status status = SC_OK;
    mpz_ptr v = sc__tz(env);

    SC_CHECK(sc_expr_eval(env->ctx, s, env->hints, v, err));
    *out = mpz_sgn(v) != 0;
fail:
    SC__TMP_RESTORE(env);
    return status;
}

/* A backed question decided statically must have the answer the hints
 * give; otherwise what is known (a runtime assertion on backed symbols)
 * cannot hold at the hints, and answering would follow a branch the traced
 * program never takes: SC_ERR_CONTRADICTION. */
static sc_status static_at_hints(sc_env *env, sc_expr *cond, bool known,
                                 sc_error *err)
{
    size_t nunbacked;
    sc_error e2;
    bool v;

    SC_TRY(sc__env_check_symbols(env, cond, &nunbacked, err));
    if (nunbacked > 0 || eval_hint_bool(env, cond, &v, &e2) != SC_OK ||
        v == known)
        return SC_OK;
    {
        char *text = sc_expr_to_str(env->ctx, cond);
        sc_status st = sc__error_set(
            err, SC_ERR_CONTRADICTION,
            "%s is %s at the hints but %s given what is known (a runtime "
            "assertion cannot hold at these hints)",
            text ? text : "the condition", v ? "true" : "false",
            known ? "true" : "false");
        free(text);
        return st;
    }
}

/* guard, after the static check failed to decide the rewritten s. */
static sc_status guard_rewritten(sc_env *env, sc_expr *s, bool *out,
                                 sc_error *err)
{
    size_t nunbacked;
    bool v;

    SC_TRY(sc__env_check_symbols(env, s, &nunbacked, err));
    if (nunbacked > 0)
        return data_dependent(env, "guard on", s, err);
    SC_TRY(eval_hint_bool(env, s, &v, err));
    SC_TRY(v ? record_undecided_guard(env, s, err)
             : record_guard(env, sc_expr_not(env->ctx, s), err));
    *out = v;
    return SC_OK;
}

static sc_status guard_impl(sc_env *env, sc_expr *cond, bool *out, sc_error *err)
{
    sc_expr *s;
    sc_tri t;

    SC_TRY(own_symbols(env, cond, err));
    SC_TRY(sc__env_known(env, cond, false, &s, &t, err));
    if (t != SC_TRI_UNKNOWN) {
        SC_TRY(static_at_hints(env, cond, t == SC_TRI_TRUE, err));
        *out = t == SC_TRI_TRUE;
        return guard_divisors(env, cond, err);
    }
    SC_TRY(guard_rewritten(env, s, out, err));
    return guard_divisors(env, cond, err);
}

sc_status sc_env_guard(sc_env *env, sc_expr *cond, bool *out, sc_error *err)
{
    sc_status status;
    SC__ENV_ENTER(env, err);
    status = guard_impl(env, cond, out, err);
    SC__ENV_LEAVE(env);
    return status;
}

static sc_status guard_or_impl(sc_env *env, sc_expr *cond, bool dflt, bool *out,
                          sc_error *err)
{
    size_t nunbacked;
    sc_expr *s;
    sc_tri t;

    SC_TRY(own_symbols(env, cond, err));
    SC_TRY(sc__env_known(env, cond, false, &s, &t, err));
    if (t != SC_TRI_UNKNOWN) {
        SC_TRY(static_at_hints(env, cond, t == SC_TRI_TRUE, err));
        *out = t == SC_TRI_TRUE;
        return guard_divisors(env, cond, err);
    }
    SC_TRY(sc__env_check_symbols(env, s, &nunbacked, err));
    if (nunbacked > 0) {
        *out = dflt;
        return SC_OK;
    }
    SC_TRY(guard_rewritten(env, s, out, err));
    return guard_divisors(env, cond, err);
}

sc_status sc_env_guard_or(sc_env *env, sc_expr *cond, bool dflt, bool *out,
                          sc_error *err)
{
    sc_status status;
    SC__ENV_ENTER(env, err);
    status = guard_or_impl(env, cond, dflt, out, err);
    SC__ENV_LEAVE(env);
    return status;
}

static sc_status size_oblivious_impl(sc_env *env, sc_expr *cond, bool *out,
                                sc_error *err)
{
    sc_tri t;

    SC_TRY(own_symbols(env, cond, err));
    SC_TRY(sc__env_known(env, cond, true, NULL, &t, err));
    if (t != SC_TRI_UNKNOWN) {
        SC_TRY(static_at_hints(env, cond, t == SC_TRI_TRUE, err));
        *out = t == SC_TRI_TRUE;
        return guard_divisors(env, cond, err);
    }
    return sc_env_guard(env, cond, out, err);
}

sc_status sc_env_size_oblivious(sc_env *env, sc_expr *cond, bool *out,
                                sc_error *err)
{
    sc_status status;
    SC__ENV_ENTER(env, err);
    status = size_oblivious_impl(env, cond, out, err);
    SC__ENV_LEAVE(env);
    return status;
}

static sc_status assert_impl(sc_env *env, sc_expr *cond, sc_error *err)
{
    sc_status status;
    size_t nunbacked;
    sc_expr *s;
    sc_tri t;
    bool v;

    SC_TRY(own_symbols(env, cond, err));
    SC_TRY(sc__env_known(env, cond, false, &s, &t, err));
    if (t == SC_TRI_TRUE) { /* and not false at the hints (then no value
                             * of the unbacked symbols satisfies what is
                             * known there: the traced program failed
                             * before) */
        SC_TRY(static_at_hints(env, cond, true, err));
        return guard_divisors(env, cond, err);
    }
    if (t == SC_TRI_FALSE) {
        char *text = sc_expr_to_str(env->ctx, cond);
        status = sc__error_set(err, SC_ERR_CONTRADICTION,
                               "assertion %s is false given what is known",
                               text ? text : "?");
        free(text);
        return status;
    }
    SC_TRY(sc__env_check_symbols(env, s, &nunbacked, err));
    if (nunbacked == 0) {
        SC_TRY(eval_hint_bool(env, s, &v, err));
        if (!v) {
            /* As PyTorch: deciding the check at the hints is a guard on
             * its negation (the sizes for which tracing fails), then the
             * failure. */
            char *text = sc_expr_to_str(env->ctx, s);
            status = record_guard(env, sc_expr_not(env->ctx, s), err);
            if (status == SC_OK)
                status = sc__error_set(err, SC_ERR_GUARD,
                                       "assertion %s fails at the hints",
                                       text ? text : "?");
            free(text);
            return status;
        }
        SC_TRY(record_undecided_guard(env, s, err));
        return guard_divisors(env, cond, err);
    }
    if (!sc__exprvec_push(&env->asserts, s))
        return sc__error_nomem(err);
    return sc__env_learn_undecided(env, s, err);
}

sc_status sc_env_assert(sc_env *env, sc_expr *cond, sc_error *err)
{
    sc_status status;
    SC__ENV_ENTER(env, err);
    status = assert_impl(env, cond, err);
    SC__ENV_LEAVE(env);
    return status;
}

/* The rewritten integer expression, type-checked. */
static sc_status rewrite_int(sc_env *env, sc_expr *e, sc_expr **out,
                             sc_error *err)
{
    if (!e)
        return sc__error_set(err, SC_ERR_INVALID, "no expression");
    if (sc_expr_is_bool(e))
        return sc__error_set(err, SC_ERR_TYPE,
                             "expected an integer expression");
    SC_TRY(sc__env_rewrite(env, e, env->bounds, out, err));
    return sc__env_check_symbols(env, *out, NULL, err);
}

/* A constant when the range of the rewritten s is one value. */
static sc_status int_constant(sc_env *env, sc_expr *s, sc_expr **out,
                              sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_status status = SC_OK;
    sc_range *r = sc__tr(env);
    mpz_ptr v = sc__tz(env);

    *out = NULL;
    if (sc_expr_is_int(s)) {
        *out = s;
        goto fail;
    }
    SC_CHECK(sc__env_expr_range(env, s, env->bounds, r, err));
    if (sc__rng_singleton(r, v)) {
        *out = sc_expr_int_mpz(env->ctx, v);
        SC_CHECK(sc__env_built(env, *out, err));
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static sc_status guard_int_impl(sc_env *env, sc_expr *e, mpz_ptr out,
                           sc_error *err)
{
    size_t nunbacked;
    sc_expr *s, *c;

    SC_TRY(own_symbols(env, e, err));
    SC_TRY(rewrite_int(env, e, &s, err));
    SC_TRY(int_constant(env, s, &c, err));
    if (c) {
        sc_expr_value_mpz(c, out);
        return guard_divisors(env, e, err);
    }
    SC_TRY(sc__env_check_symbols(env, s, &nunbacked, err));
    if (nunbacked > 0)
        return data_dependent(env, "extract specialized integer from", s,
                              err);
    SC_TRY(sc_expr_eval(env->ctx, s, env->hints, out, err));
    SC_TRY(record_guard(env,
                        sc_expr_eq(env->ctx, s,
                                   sc_expr_int_mpz(env->ctx, out)),
                        err));
    return guard_divisors(env, e, err);
}

sc_status sc_env_guard_int(sc_env *env, sc_expr *e, mpz_ptr out,
                           sc_error *err)
{
    sc_status status;
    SC__ENV_ENTER(env, err);
    status = guard_int_impl(env, e, out, err);
    SC__ENV_LEAVE(env);
    return status;
}

static sc_status guard_int_si_impl(sc_env *env, sc_expr *e, int64_t *out,
                              sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_status status = SC_OK;
    size_t nunbacked;
    sc_expr *s, *c, *ve;
    mpz_ptr v = sc__tz(env);

    SC_CHECK(own_symbols(env, e, err));
    SC_CHECK(rewrite_int(env, e, &s, err));
    SC_CHECK(int_constant(env, s, &c, err));
    if (c) {
        if (!sc_expr_value_si(c, out))
            status = sc__error_set(err, SC_ERR_OVERFLOW,
                                   "the value does not fit in int64_t");
        else
            status = guard_divisors(env, e, err);
        goto fail;
    }
    SC_CHECK(sc__env_check_symbols(env, s, &nunbacked, err));
    if (nunbacked > 0) {
        status = data_dependent(env, "extract specialized integer from", s,
                                err);
        goto fail;
    }
    SC_CHECK(sc_expr_eval(env->ctx, s, env->hints, v, err));
    ve = sc_expr_int_mpz(env->ctx, v);
    SC_CHECK(sc__env_built(env, ve, err));
    if (!sc_expr_value_si(ve, out)) {
        status = sc__error_set(err, SC_ERR_OVERFLOW,
                               "the value does not fit in int64_t");
        goto fail;
    }
    SC_CHECK(record_guard(env, sc_expr_eq(env->ctx, s, ve), err));
    SC_CHECK(guard_divisors(env, e, err));
fail:
    SC__TMP_RESTORE(env);
    return status;
}

sc_status sc_env_guard_int_si(sc_env *env, sc_expr *e, int64_t *out,
                              sc_error *err)
{
    sc_status status;
    SC__ENV_ENTER(env, err);
    status = guard_int_si_impl(env, e, out, err);
    SC__ENV_LEAVE(env);
    return status;
}

static sc_status simplify_impl(sc_env *env, sc_expr *e, sc_expr **out,
                          sc_error *err)
{
    sc_expr *s, *c;
    sc_tri t;

    SC_TRY(own_symbols(env, e, err));
    if (!e)
        return sc__error_set(err, SC_ERR_INVALID, "no expression");
    if (sc_expr_is_bool(e)) {
        SC_TRY(sc__env_known(env, e, false, &s, &t, err));
        if (t != SC_TRI_UNKNOWN) {
            s = sc_expr_bool(env->ctx, t == SC_TRI_TRUE);
            if (!s)
                return sc__env_ctx_error(env, err);
        }
        *out = s;
        return SC_OK;
    }
    SC_TRY(rewrite_int(env, e, &s, err));
    SC_TRY(int_constant(env, s, &c, err));
    *out = c ? c : s;
    return SC_OK;
}

sc_status sc_env_simplify(sc_env *env, sc_expr *e, sc_expr **out,
                          sc_error *err)
{
    sc_status status;
    SC__ENV_ENTER(env, err);
    status = simplify_impl(env, e, out, err);
    SC__ENV_LEAVE(env);
    return status;
}

static sc_status range_impl(sc_env *env, sc_expr *e, sc_range *out, sc_error *err)
{
    sc_expr *s;

    SC_TRY(own_symbols(env, e, err));
    SC_TRY(rewrite_int(env, e, &s, err));
    return sc__env_expr_range(env, s, env->bounds, out, err);
}

sc_status sc_env_range(sc_env *env, sc_expr *e, sc_range *out, sc_error *err)
{
    sc_status status;
    SC__ENV_ENTER(env, err);
    status = range_impl(env, e, out, err);
    SC__ENV_LEAVE(env);
    return status;
}

/* *one: whether s with the backed symbols at their hints has a range of
 * one value under what is known (then *out is it). */
static sc_status hint_by_range(sc_env *env, sc_expr *s, mpz_ptr out,
                               bool *one, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_status status = SC_OK;
    sc_range *r = sc__tr(env);
    sc_expr *h = sc_expr_subst(env->ctx, s, env->hints);

    *one = false;
    SC_CHECK(sc__env_built(env, h, err));
    SC_CHECK(sc__env_expr_range(env, h, env->bounds, r, err));
    *one = sc__rng_singleton(r, out);
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static sc_status hint_impl(sc_env *env, sc_expr *e, mpz_ptr out, sc_error *err)
{
    size_t nunbacked;
    sc_expr *s = e;

    SC_TRY(own_symbols(env, e, err));
    if (!e)
        return sc__error_set(err, SC_ERR_INVALID, "no expression");
    if (env->nrepl > 0) {
        s = sc_expr_subst(env->ctx, e, env->repl);
        if (!s)
            return sc__env_ctx_error(env, err);
    }
    SC_TRY(sc__env_check_symbols(env, s, &nunbacked, err));
    if (nunbacked > 0) {
        /* As PyTorch's size_hint: the backed symbols at their hints, and
         * a value when the ranges of the unbacked ones leave only one
         * (Max(2*s0 + 16, -s1 - u0) with u0 >= 0). */
        bool one;
        SC_TRY(hint_by_range(env, s, out, &one, err));
        if (one)
            return SC_OK;
        return data_dependent(env, "compute the hint of", s, err);
    }
    return sc_expr_eval(env->ctx, s, env->hints, out, err);
}

sc_status sc_env_hint(sc_env *env, sc_expr *e, mpz_ptr out, sc_error *err)
{
    sc_status status;
    SC__ENV_ENTER(env, err);
    status = hint_impl(env, e, out, err);
    SC__ENV_LEAVE(env);
    return status;
}

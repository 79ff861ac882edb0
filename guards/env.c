/* symcut — the shape environment: lifetime, symbols, sources, accessors. */
#include <config.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guards/env.h"

void sc_env_options_init(sc_env_options *opts)
{
    opts->specialize_zero_one = true;
    opts->duck_shape = true;
}

sc_status sc_env_new(sc_ctx *ctx, const sc_env_options *opts, sc_env **out,
                     sc_error *err)
{
    sc_env *env;

    *out = NULL;
    if (!ctx)
        return sc__error_set(err, SC_ERR_INVALID, "no context");
    env = sc__calloc(1, sizeof *env);
    if (!env)
        return sc__error_nomem(err);
    env->ctx = ctx;
    if (opts)
        env->opts = *opts;
    else
        sc_env_options_init(&env->opts);
    sc__gmap_init(&env->sym_of);
    sc__gmap_init(&env->duck);
    sc__gmap_init(&env->source_of);
    sc__gmap_init(&env->form_of);
    sc__gmap_init(&env->div_of);
    sc__gmap_init(&env->or_of);
    sc__gmap_init(&env->memo);
    env->bounds = sc_bounds_new(ctx);
    env->obl_bounds = sc_bounds_new(ctx);
    env->cap_bounds = sc_bounds_new(ctx);
    env->cap_obl_bounds = sc_bounds_new(ctx);
    env->repl = sc_symmap_new(ctx);
    env->hints = sc_symmap_new(ctx);
    env->scratch = sc_symmap_new(ctx);
    if (!env->bounds || !env->obl_bounds || !env->cap_bounds ||
        !env->cap_obl_bounds || !env->repl || !env->hints || !env->scratch) {
        sc_env_free(env);
        return sc__error_nomem(err);
    }
    *out = env;
    return SC_OK;
}

void sc_env_free(sc_env *env)
{
    size_t i;

    if (!env)
        return;
    for (i = 0; i < env->nsyms; i++) {
        sc__exprvec_free(&env->syms[i].excluded);
        sc__free(env->syms[i].facts);
    }
    sc__free(env->syms);
    for (i = 0; i < env->nsources; i++)
        sc__free(env->sources[i].text);
    sc__free(env->sources);
    for (i = 0; i < env->nforms; i++) {
        sc_range_clear(&env->forms[i].r);
        sc__exprvec_free(&env->forms[i].excluded);
    }
    sc__free(env->forms);
    sc__free(env->divs);
    sc__free(env->ors);
    sc__gmap_destroy(&env->sym_of);
    sc__gmap_destroy(&env->duck);
    sc__gmap_destroy(&env->source_of);
    sc__gmap_destroy(&env->form_of);
    sc__gmap_destroy(&env->div_of);
    sc__gmap_destroy(&env->or_of);
    sc_bounds_free(env->bounds);
    sc_bounds_free(env->obl_bounds);
    sc_bounds_free(env->cap_bounds);
    sc_bounds_free(env->cap_obl_bounds);
    sc_symmap_free(env->repl);
    sc_symmap_free(env->hints);
    sc_symmap_free(env->scratch);
    sc_symmap_free(env->poly_map);
    sc__exprvec_free(&env->guards);
    sc__exprvec_free(&env->asserts);
    sc__exprvec_free(&env->pending);
    sc__exprvec_free(&env->stk);
    sc__gmap_destroy(&env->memo);
    for (i = 0; i < env->tz_cap / SC__TMP_BLOCK; i++) {
        size_t j;
        for (j = 0; j < SC__TMP_BLOCK; j++)
            mpz_clear(env->tz[i][j]);
        sc__free(env->tz[i]);
    }
    sc__free(env->tz);
    for (i = 0; i < env->tr_cap / SC__TMP_BLOCK; i++) {
        size_t j;
        for (j = 0; j < SC__TMP_BLOCK; j++)
            sc_range_clear(&env->tr[i][j]);
        sc__free(env->tr[i]);
    }
    sc__free(env->tr);
    sc__free(env);
}

void sc__env_oom(sc_env *env)
{
    if (env->jmp)
        longjmp(*env->jmp, 1);
    abort(); /* unreachable: every caller runs under an entry point */
}

void sc__stk_push(sc_env *env, sc_expr *e)
{
    if (!sc__exprvec_push(&env->stk, e))
        sc__env_oom(env);
}

mpz_ptr sc__tz(sc_env *env)
{
    size_t i;
    if (env->ntz == env->tz_cap) {
        size_t nb = env->tz_cap / SC__TMP_BLOCK;
        mpz_t **blocks = sc__realloc(env->tz, (nb + 1) * sizeof *blocks);
        mpz_t *block;
        if (!blocks)
            sc__env_oom(env);
        env->tz = blocks;
        block = sc__malloc(SC__TMP_BLOCK * sizeof *block);
        if (!block)
            sc__env_oom(env);
        for (i = 0; i < SC__TMP_BLOCK; i++)
            mpz_init(block[i]); /* no allocation (GMP >= 6.2 is lazy) */
        env->tz[nb] = block;
        env->tz_cap += SC__TMP_BLOCK;
    }
    i = env->ntz++;
    mpz_set_ui(env->tz[i / SC__TMP_BLOCK][i % SC__TMP_BLOCK], 0); /* no allocation */
    return env->tz[i / SC__TMP_BLOCK][i % SC__TMP_BLOCK];
}

sc_range *sc__tr(sc_env *env)
{
    sc_range *r;
    size_t i;
    if (env->ntr == env->tr_cap) {
        size_t nb = env->tr_cap / SC__TMP_BLOCK;
        sc_range **blocks = sc__realloc(env->tr, (nb + 1) * sizeof *blocks);
        sc_range *block;
        if (!blocks)
            sc__env_oom(env);
        env->tr = blocks;
        block = sc__malloc(SC__TMP_BLOCK * sizeof *block);
        if (!block)
            sc__env_oom(env);
        for (i = 0; i < SC__TMP_BLOCK; i++)
            sc_range_init(&block[i]);
        env->tr[nb] = block;
        env->tr_cap += SC__TMP_BLOCK;
    }
    i = env->ntr++;
    r = &env->tr[i / SC__TMP_BLOCK][i % SC__TMP_BLOCK];
    sc_range_set_unbounded(r);
    return r;
}

sc_ctx *sc_env_ctx(const sc_env *env)
{
    return env->ctx;
}

/* ---- Internal helpers ------------------------------------------------- */

sc__env_sym *sc__env_sym_of(const sc_env *env, const sc_expr *sym)
{
    uint64_t id;
    if (!sym || !sc_expr_is_symbol(sym))
        return NULL;
    if (!sc__gmap_get(&env->sym_of, sc_expr_symbol_index(sym), &id))
        return NULL;
    return &env->syms[id];
}

sc_status sc__env_ctx_error(sc_env *env, sc_error *err)
{
    SC_TRY(sc_ctx_take_error(env->ctx, err));
    return sc__error_set(err, SC_ERR_INTERNAL,
                         "expression constructor failed without a reason");
}

sc_status sc__env_built(sc_env *env, const sc_expr *e, sc_error *err)
{
    return e ? SC_OK : sc__env_ctx_error(env, err);
}

const sc_range *sc__env_sym_range(const sc_env *env, const sc__env_sym *s)
{
    /* Every environment symbol gets a range when it is created. */
    return sc_bounds_get(env->bounds, s->sym);
}

/* Whether the backed size s has a range r that passes INT64_MAX above
 * while leaving a value at or below it (then its capped range differs). */
static bool size_cappable(const sc__env_sym *s, const sc_range *r)
{
    if (!s->backed || !s->size_like)
        return false;
    if (!r->lo_inf && mpz_cmp_si(r->lo, INT64_MAX) > 0)
        return false; /* the cap would leave nothing: never applied */
    return r->hi_inf || mpz_cmp_si(r->hi, INT64_MAX) > 0;
}

sc_status sc__env_set_range(sc_env *env, sc__env_sym *s, const sc_range *r,
                            sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_status status = SC_OK;
    sc_range *obl = sc__tr(env), *cap = sc__tr(env);
    const sc_range *old = sc_bounds_get(env->bounds, s->sym);
    bool was = old && size_cappable(s, old), is = size_cappable(s, r);

    SC_CHECK(sc_bounds_set(env->bounds, s->sym, r, err));
    /* The capped copies: a backed size is an int64_t dimension in PyTorch
     * (sc__env_known asks them when the plain bounds leave a question
     * open). */
    sc_range_set(cap, r);
    if (is) {
        mpz_set_si(cap->hi, INT64_MAX);
        cap->hi_inf = false;
    }
    SC_CHECK(sc_bounds_set(env->cap_bounds, s->sym, cap, err));
    if (was != is)
        env->ncapped += is ? 1 : (size_t)-1;
    if (!s->size_like || s->backed) {
        SC_CHECK(sc_bounds_set(env->obl_bounds, s->sym, r, err));
        SC_CHECK(sc_bounds_set(env->cap_obl_bounds, s->sym, cap, err));
        goto fail;
    }
    /* Size-oblivious: a size-like unbacked symbol is assumed >= 2, unless
     * its range leaves no such value. */
    sc_range_set(obl, r);
    if (obl->hi_inf || mpz_cmp_si(obl->hi, 2) >= 0) {
        if (obl->lo_inf || mpz_cmp_si(obl->lo, 2) < 0) {
            mpz_set_si(obl->lo, 2);
            obl->lo_inf = false;
        }
    }
    SC_CHECK(sc_bounds_set(env->obl_bounds, s->sym, obl, err));
    SC_CHECK(sc_bounds_set(env->cap_obl_bounds, s->sym, obl, err));
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static sc_status sym_add_fact(sc__env_sym *s, uint64_t entry, sc_error *err)
{
    if (s->nfacts > 0 && s->facts[s->nfacts - 1] == entry)
        return SC_OK;
    if (s->nfacts == s->facts_cap) {
        void *p = s->facts;
        if (!sc__grow(&p, &s->facts_cap, s->nfacts + 1, sizeof *s->facts))
            return sc__error_nomem(err);
        s->facts = p;
    }
    s->facts[s->nfacts++] = entry;
    return SC_OK;
}

sc_status sc__env_index_fact(sc_env *env, sc_expr *e, uint64_t entry,
                             sc_error *err)
{
    sc_expr *small[16], **syms = small;
    size_t n, i;
    sc_status status = SC_OK;

    n = sc_expr_free_symbols(e, small, 16);
    if (n > 16) {
        syms = sc__malloc(n * sizeof *syms);
        if (!syms)
            return sc__error_nomem(err);
        sc_expr_free_symbols(e, syms, n);
    }
    for (i = 0; i < n; i++) {
        sc__env_sym *s = sc__env_sym_of(env, syms[i]);
        if (s)
            SC_CHECK(sym_add_fact(s, entry, err));
    }
fail:
    if (syms != small)
        sc__free(syms);
    return status;
}

sc_status sc__env_check_symbols(sc_env *env, sc_expr *e, size_t *nunbacked,
                                sc_error *err)
{
    sc_expr *small[16], **syms = small;
    size_t n, i, nu = 0;
    sc_status status = SC_OK;

    n = sc_expr_free_symbols(e, small, 16);
    if (n > 16) {
        syms = sc__malloc(n * sizeof *syms);
        if (!syms)
            return sc__error_nomem(err);
        sc_expr_free_symbols(e, syms, n);
    }
    for (i = 0; i < n; i++) {
        sc__env_sym *s = sc__env_sym_of(env, syms[i]);
        if (!s) {
            status = sc__error_set(err, SC_ERR_UNBOUND,
                                   "unknown symbol '%s' (not created in the "
                                   "shape environment)",
                                   sc_expr_symbol_name(syms[i]));
            break;
        }
        if (!s->backed)
            nu++;
    }
    if (syms != small)
        sc__free(syms);
    if (nunbacked)
        *nunbacked = nu;
    return status;
}

/* ---- Symbols ------------------------------------------------------------- */

static sc_status new_sym(sc_env *env, sc_expr *sym, sc__env_sym **out,
                         sc_error *err)
{
    sc__env_sym *s;

    if (env->nsyms == env->syms_cap) {
        void *p = env->syms;
        if (!sc__grow(&p, &env->syms_cap, env->nsyms + 1, sizeof *env->syms))
            return sc__error_nomem(err);
        env->syms = p;
    }
    if (!sc__gmap_put(&env->sym_of, sc_expr_symbol_index(sym), env->nsyms))
        return sc__error_nomem(err);
    s = &env->syms[env->nsyms++];
    memset(s, 0, sizeof *s);
    s->sym = sym;
    s->first_source = SIZE_MAX;
    *out = s;
    return SC_OK;
}

/* The symbol for a new environment symbol: the caller's name, which must
 * not be taken, or the next free prefix<k>. */
static sc_status pick_symbol(sc_env *env, const char *name, char prefix,
                             size_t *counter, sc_expr **out, sc_error *err)
{
    sc_expr *sym;
    char buf[32];

    if (name) {
        sym = sc_expr_symbol(env->ctx, name);
        if (!sym)
            return sc__env_ctx_error(env, err);
        if (sc__env_sym_of(env, sym))
            return sc__error_set(err, SC_ERR_INVALID,
                                 "symbol '%s' already exists in the shape "
                                 "environment", name);
        *out = sym;
        return SC_OK;
    }
    for (;;) {
        snprintf(buf, sizeof buf, "%c%zu", prefix, (*counter)++);
        sym = sc_expr_symbol(env->ctx, buf);
        if (!sym)
            return sc__env_ctx_error(env, err);
        if (!sc__env_sym_of(env, sym))
            break;
    }
    *out = sym;
    return SC_OK;
}

static sc__env_source *find_source(const sc_env *env, const char *text,
                                   uint64_t h)
{
    uint64_t id;
    if (!sc__gmap_get(&env->source_of, h, &id))
        return NULL;
    while (id != SIZE_MAX) {
        if (strcmp(env->sources[id].text, text) == 0)
            return &env->sources[id];
        id = env->sources[id].next_same_hash;
    }
    return NULL;
}

static sc_status add_source(sc_env *env, const char *text, sc_expr *expr,
                            sc_expr *hint, sc_error *err)
{
    uint64_t h = sc__str_hash(text), first;
    sc__env_source *src;
    char *copy;

    if (env->nsources == env->sources_cap) {
        void *p = env->sources;
        if (!sc__grow(&p, &env->sources_cap, env->nsources + 1,
                      sizeof *env->sources))
            return sc__error_nomem(err);
        env->sources = p;
    }
    copy = sc__strdup(text);
    if (!copy)
        return sc__error_nomem(err);
    if (!sc__gmap_get(&env->source_of, h, &first))
        first = SIZE_MAX;
    if (!sc__gmap_put(&env->source_of, h, env->nsources)) {
        sc__free(copy);
        return sc__error_nomem(err);
    }
    src = &env->sources[env->nsources];
    src->text = copy;
    src->expr = expr;
    src->hint = hint;
    src->next_same_hash = (size_t)first;
    if (sc_expr_is_symbol(expr)) {
        sc__env_sym *s = sc__env_sym_of(env, expr);
        if (s && s->first_source == SIZE_MAX)
            s->first_source = env->nsources;
    }
    env->nsources++;
    return SC_OK;
}

static sc_status source_taken(const char *source, sc_error *err)
{
    return sc__error_set(err, SC_ERR_INVALID, "source '%s' already has a size",
                         source);
}

static sc_status create_backed_impl(sc_env *env, mpz_srcptr hint,
                               const char *source, const char *name,
                               const sc_range *range, unsigned flags,
                               sc_expr **out, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_status status = SC_OK;
    sc_expr *hint_e, *sym = NULL;
    sc__env_sym *s;
    sc_range *r = sc__tr(env);
    uint64_t id;
    bool integer = (flags & SC_ENV_INTEGER) != 0;
    bool duck = env->opts.duck_shape && !(flags & SC_ENV_NO_DUCK) &&
                !integer;
    bool spec01 = env->opts.specialize_zero_one &&
                  !(flags & SC_ENV_NO_SPECIALIZE_01) && !integer;
    bool one_value = range && !range->lo_inf && !range->hi_inf &&
                     mpz_cmp(range->lo, range->hi) == 0;

    *out = NULL;
    if (!integer && mpz_sgn(hint) < 0) {
        status = sc__error_set(err, SC_ERR_INVALID,
                               "a size hint must be >= 0 (got a negative one)");
        goto fail;
    }
    if (range && !sc_range_contains_mpz(range, hint)) {
        status = sc__error_set(err, SC_ERR_INVALID,
                               "the hint lies outside the given range");
        goto fail;
    }
    if (source && find_source(env, source, sc__str_hash(source))) {
        status = source_taken(source, err);
        goto fail;
    }
    hint_e = sc_expr_int_mpz(env->ctx, hint);
    SC_CHECK(sc__env_built(env, hint_e, err));

    /* 0/1 specialization, or a declared range of one value (PyTorch's
     * static dimension): the size is that constant. */
    if ((spec01 && mpz_cmp_ui(hint, 1) <= 0) || one_value) {
        char auto_source[40];
        if (!source && name)
            source = name;
        if (!source) {
            snprintf(auto_source, sizeof auto_source, "size%zu",
                     env->nsources);
            source = auto_source;
        }
        if (find_source(env, source, sc__str_hash(source))) {
            status = source_taken(source, err);
            goto fail;
        }
        SC_CHECK(add_source(env, source, hint_e, hint_e, err));
        *out = hint_e;
        goto fail;
    }
    /* Duck sizing: an existing symbol with the same hint. */
    if (duck && !range && sc__gmap_get(&env->duck, sc__gmap_ptr(hint_e), &id)) {
        sym = env->syms[id].sym;
        if (!source)
            source = sc_expr_symbol_name(sym);
        if (find_source(env, source, sc__str_hash(source))) {
            status = source_taken(source, err);
            goto fail;
        }
        SC_CHECK(add_source(env, source, sym, hint_e, err));
        *out = sym;
        goto fail;
    }

    SC_CHECK(pick_symbol(env, name, 's', &env->next_s, &sym, err));
    if (!source)
        source = sc_expr_symbol_name(sym);
    if (find_source(env, source, sc__str_hash(source))) {
        status = source_taken(source, err);
        goto fail;
    }
    SC_CHECK(sc_symmap_set(env->hints, sym, hint_e, err));
    SC_CHECK(new_sym(env, sym, &s, err));
    s->backed = true;
    s->size_like = !integer;
    s->hint = hint_e;
    sc_range_set_si(r, (spec01 && mpz_cmp_ui(hint, 2) >= 0) ? 2 : 0, 0);
    r->hi_inf = true;
    if (integer)
        sc_range_set_unbounded(r);
    if (range)
        sc__rng_intersect(r, range);
    if ((!r->lo_inf && !(s->decl_lo = sc_expr_int_mpz(env->ctx, r->lo))) ||
        (!r->hi_inf && !(s->decl_hi = sc_expr_int_mpz(env->ctx, r->hi)))) {
        status = sc__env_ctx_error(env, err);
        goto fail;
    }
    SC_CHECK(sc__env_set_range(env, s, r, err));
    if (duck && !range &&
        !sc__gmap_put(&env->duck, sc__gmap_ptr(hint_e), env->nsyms - 1)) {
        status = sc__error_nomem(err);
        goto fail;
    }
    SC_CHECK(add_source(env, source, sym, hint_e, err));
    *out = sym;
fail:
    SC__TMP_RESTORE(env);
    return status;
}

sc_status sc_env_create_backed(sc_env *env, mpz_srcptr hint,
                               const char *source, const char *name,
                               const sc_range *range, unsigned flags,
                               sc_expr **out, sc_error *err)
{
    sc_status status;
    SC__ENV_ENTER(env, err);
    status = create_backed_impl(env, hint, source, name, range, flags, out, err);
    SC__ENV_LEAVE(env);
    return status;
}

static sc_status create_backed_si_impl(sc_env *env, int64_t hint,
                                  const char *source, const char *name,
                                  const sc_range *range, unsigned flags,
                                  sc_expr **out, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_status status;
    mpz_ptr h = sc__tz(env);
    if (hint >= LONG_MIN && hint <= LONG_MAX)
        mpz_set_si(h, (long)hint);
    else {
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", (long long)hint);
        mpz_set_str(h, buf, 10);
    }
    status = sc_env_create_backed(env, h, source, name, range, flags, out,
                                  err);
    SC__TMP_RESTORE(env);
    return status;
}

sc_status sc_env_create_backed_si(sc_env *env, int64_t hint,
                                  const char *source, const char *name,
                                  const sc_range *range, unsigned flags,
                                  sc_expr **out, sc_error *err)
{
    sc_status status;
    SC__ENV_ENTER(env, err);
    status = create_backed_si_impl(env, hint, source, name, range, flags, out, err);
    SC__ENV_LEAVE(env);
    return status;
}

static sc_status create_unbacked_impl(sc_env *env, const char *name,
                                 const sc_range *range, unsigned flags,
                                 sc_expr **out, sc_error *err)
{
    SC__TMP_SAVE(env);
    sc_status status = SC_OK;
    sc_expr *sym;
    sc__env_sym *s;
    sc_range *r = sc__tr(env);

    *out = NULL;
    if (flags & SC_ENV_SIZE_LIKE) {
        mpz_set_ui(r->lo, 0);
        r->lo_inf = false;
    }
    if (range)
        sc__rng_intersect(r, range);
    if (sc_range_is_empty(r)) {
        status = sc__error_set(err, SC_ERR_INVALID,
                               "the range of an unbacked symbol is empty");
        goto fail;
    }
    SC_CHECK(pick_symbol(env, name, 'u', &env->next_u, &sym, err));
    SC_CHECK(new_sym(env, sym, &s, err));
    s->backed = false;
    s->size_like = (flags & SC_ENV_SIZE_LIKE) != 0;
    SC_CHECK(sc__env_set_range(env, s, r, err));
    *out = sym;
fail:
    SC__TMP_RESTORE(env);
    return status;
}

sc_status sc_env_create_unbacked(sc_env *env, const char *name,
                                 const sc_range *range, unsigned flags,
                                 sc_expr **out, sc_error *err)
{
    sc_status status;
    SC__ENV_ENTER(env, err);
    status = create_unbacked_impl(env, name, range, flags, out, err);
    SC__ENV_LEAVE(env);
    return status;
}

/* ---- Accessors ----------------------------------------------------------- */

size_t sc_env_symbol_count(const sc_env *env) { return env->nsyms; }

sc_expr *sc_env_symbol(const sc_env *env, size_t i)
{
    return i < env->nsyms ? env->syms[i].sym : NULL;
}

bool sc_env_has_symbol(const sc_env *env, const sc_expr *sym)
{
    return sc__env_sym_of(env, sym) != NULL;
}

bool sc_env_is_backed(const sc_env *env, const sc_expr *sym)
{
    sc__env_sym *s = sc__env_sym_of(env, sym);
    return s && s->backed;
}

bool sc_env_is_size_like(const sc_env *env, const sc_expr *sym)
{
    sc__env_sym *s = sc__env_sym_of(env, sym);
    return s && s->size_like;
}

const char *sc_env_symbol_source(const sc_env *env, const sc_expr *sym)
{
    sc__env_sym *s = sc__env_sym_of(env, sym);
    if (!s || s->first_source == SIZE_MAX)
        return NULL;
    return env->sources[s->first_source].text;
}

bool sc_env_symbol_hint(const sc_env *env, const sc_expr *sym,
                        int64_t *out)
{
    sc__env_sym *s = sc__env_sym_of(env, sym);
    sc_expr *v = s ? (s->backed ? s->hint : s->value) : NULL;
    int64_t x;
    if (!v || !sc_expr_value_si(v, &x))
        return false;
    if (out)
        *out = x;
    return true;
}

sc_status sc_env_set_hint(sc_env *env, sc_expr *sym, int64_t value,
                          sc_error *err)
{
    sc__env_sym *s = sc__env_sym_of(env, sym);
    const sc_range *r;
    sc_expr *v;
    uint64_t id;
    size_t i;

    if (!s)
        return sc__error_set(err, SC_ERR_UNBOUND,
                             "%s is not a symbol of the environment",
                             sym && sc_expr_is_symbol(sym)
                                 ? sc_expr_symbol_name(sym)
                                 : "the expression");
    r = sc__env_sym_range(env, s);
    if (s->backed && r &&
        ((!r->lo_inf && mpz_cmp_si(r->lo, value) > 0) ||
         (!r->hi_inf && mpz_cmp_si(r->hi, value) < 0)))
        return sc__error_set(err, SC_ERR_INVALID,
                             "the hint %lld of %s lies outside its range",
                             (long long)value, sc_expr_symbol_name(sym));
    v = sc_expr_int_si(env->ctx, value);
    SC_TRY(sc__env_built(env, v, err));
    if (s->backed && s->hint != v &&
        sc__gmap_get(&env->duck, sc__gmap_ptr(s->hint), &id) &&
        env->syms[id].sym == sym)
        return sc__error_set(err, SC_ERR_INVALID,
                             "the hint of %s is shared by duck sizing and "
                             "cannot change",
                             sc_expr_symbol_name(sym));
    if (!s->backed) {
        s->value = v;
        env->hint_changes++;
        return SC_OK;
    }
    SC_TRY(sc_symmap_set(env->hints, sym, v, err));
    s->hint = v;
    env->hint_changes++;
    for (i = 0; i < env->nsources; i++)
        if (env->sources[i].expr == sym)
            env->sources[i].hint = v;
    return SC_OK;
}

sc_expr *sc_env_replacement(const sc_env *env, const sc_expr *sym)
{
    sc__env_sym *s = sc__env_sym_of(env, sym);
    return s ? s->repl : NULL;
}

size_t sc_env_source_count(const sc_env *env) { return env->nsources; }

const char *sc_env_source(const sc_env *env, size_t i)
{
    return i < env->nsources ? env->sources[i].text : NULL;
}

sc_expr *sc_env_source_expr(const sc_env *env, size_t i)
{
    return i < env->nsources ? env->sources[i].expr : NULL;
}

sc_expr *sc_env_source_hint(const sc_env *env, size_t i)
{
    return i < env->nsources ? env->sources[i].hint : NULL;
}

size_t sc_env_guard_count(const sc_env *env) { return env->guards.n; }

size_t sc_env_hint_change_count(const sc_env *env)
{
    return env->hint_changes;
}

sc_expr *sc_env_guard_at(const sc_env *env, size_t i)
{
    return i < env->guards.n ? env->guards.items[i] : NULL;
}

size_t sc_env_runtime_assert_count(const sc_env *env)
{
    return env->asserts.n;
}

sc_expr *sc_env_runtime_assert(const sc_env *env, size_t i)
{
    return i < env->asserts.n ? env->asserts.items[i] : NULL;
}

/* symcut — producing the guard set of a shape environment
 * (sc_env_produce_guards): a variable per source, a line per source that
 * is not a free symbol of its own, and the learned facts that the
 * minimality pass (guards/minimal.c) keeps, in PyTorch's spelling over
 * the sources and as expressions over the variables. */
#include <config.h>

#include <ctype.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guards/produce.h"

static const char *const c_keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do",
    "double", "else", "enum", "extern", "float", "for", "goto", "if",
    "inline", "int", "long", "register", "restrict", "return", "short",
    "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
    "unsigned", "void", "volatile", "while", "bool", "true", "false",
    "int64_t", NULL};

static bool is_c_keyword(const char *s)
{
    size_t i;
    for (i = 0; c_keywords[i]; i++)
        if (strcmp(s, c_keywords[i]) == 0)
            return true;
    return false;
}

/* `x.size(0)` -> `x_size_0`. */
static char *sanitize(const char *src)
{
    size_t n = strlen(src), i, k = 0;
    char *out = sc__malloc(n + 8);
    if (!out)
        return NULL;
    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)src[i];
        if (isalnum(ch) && ch < 128)
            out[k++] = (char)ch;
        else if (k > 0 && out[k - 1] != '_')
            out[k++] = '_';
    }
    while (k > 0 && out[k - 1] == '_')
        k--;
    out[k] = '\0';
    if (k == 0 || isdigit((unsigned char)out[0])) {
        memmove(out + 2, out, k + 1);
        out[0] = 'v';
        out[1] = '_';
    }
    return out;
}

static bool var_taken(const sc_guard_set *gs, size_t upto, const char *name)
{
    size_t i;
    for (i = 0; i < upto; i++)
        if (strcmp(gs->vars[i], name) == 0)
            return true;
    return false;
}

/* Name and create the variable of source i. */
static sc_status make_var(producer *p, size_t i)
{
    sc_guard_set *gs = p->gs;
    char *base = sanitize(gs->sources[i]), *name;
    size_t len, k;
    sc_expr *sym = NULL;

    if (!base)
        return sc__error_nomem(p->err);
    len = strlen(base);
    name = sc__malloc(len + 32);
    if (!name) {
        sc__free(base);
        return sc__error_nomem(p->err);
    }
    strcpy(name, base);
    for (k = 1;; k++) {
        if (k > 1)
            snprintf(name, len + 32, "%s_%zu", base, k);
        if (is_c_keyword(name) || var_taken(gs, i, name))
            continue;
        sym = sc_expr_symbol(gs->ctx, name);
        if (sym)
            break;
        /* A reserved word of the expression syntax: try another name. */
        sc_ctx_take_error(gs->ctx, NULL);
        if (k > 1000) {
            sc__free(base);
            sc__free(name);
            return sc__error_set(p->err, SC_ERR_INTERNAL,
                                 "cannot name the variable of a source");
        }
    }
    sc__free(base);
    gs->vars[i] = name;
    gs->var_exprs[i] = sym;
    return SC_OK;
}

static sc_status add_item(producer *p, char *text, sc_expr *expr)
{
    sc_guard_set *gs = p->gs;
    if (!text)
        return sc__error_nomem(p->err);
    if (!expr) {
        sc__free(text);
        return sc__env_ctx_error(p->env, p->err);
    }
    if (gs->nitems == gs->items_cap) {
        void *q = gs->items;
        if (!sc__grow(&q, &gs->items_cap, gs->nitems + 1, sizeof *gs->items)) {
            sc__free(text);
            return sc__error_nomem(p->err);
        }
        gs->items = q;
    }
    gs->items[gs->nitems].text = text;
    gs->items[gs->nitems].expr = expr;
    gs->nitems++;
    return SC_OK;
}

static const char *source_of_sym(const producer *p, const sc__env_sym *s)
{
    return p->env->sources[s->first_source].text;
}

/* Print e with every symbol name replaced by its source text. */
static void print_mapped(producer *p, const sc_expr *e, sc__buf *b)
{
    char *text = sc_expr_to_str(p->env->ctx, e);
    const char *q;

    if (!text) {
        b->failed = true;
        return;
    }
    for (q = text; *q;) {
        if (isalpha((unsigned char)*q) || *q == '_') {
            const char *start = q;
            char save;
            uint64_t id;
            char *tok;
            while (isalnum((unsigned char)*q) || *q == '_')
                q++;
            tok = (char *)start;
            save = *q;
            *(char *)q = '\0';
            if (sc__gmap_get(&p->name_of, sc__str_hash(tok), &id) &&
                strcmp(sc_expr_symbol_name(p->env->syms[id].sym), tok) == 0 &&
                p->env->syms[id].first_source != SIZE_MAX)
                sc__buf_puts(b, source_of_sym(p, &p->env->syms[id]));
            else
                sc__buf_puts(b, tok);
            *(char *)q = save;
        } else if (isdigit((unsigned char)*q)) {
            while (isalnum((unsigned char)*q))
                sc__buf_putc(b, *q++);
        } else {
            sc__buf_putc(b, *q++);
        }
    }
    free(text);
}

static char *mapped(producer *p, const sc_expr *e)
{
    sc__buf b;
    sc__buf_init(&b);
    print_mapped(p, e, &b);
    return sc__buf_take(&b);
}

static sc_expr *to_vars(producer *p, sc_expr *e)
{
    return e ? sc_expr_subst(p->env->ctx, e, p->to_vars) : NULL;
}

/* Print an integer constant (symint prints under its own GMP guard). */
static void put_int(producer *p, sc__buf *b, sc_expr *v)
{
    char *s = v ? sc_expr_to_str(p->env->ctx, v) : NULL;
    if (!s) {
        b->failed = true;
        return;
    }
    sc__buf_puts(b, s);
    free(s);
}

/* `lo <= X <= hi` (one side when the other is infinite) as text and as an
 * expression over the variables; `Eq(X, v)` when lo == hi. */
static sc_status add_bounds(producer *p, sc_expr *X, const char *xtext,
                            const sc_range *r)
{
    sc_ctx *ctx = p->env->ctx;
    sc_expr *e = sc_expr_true(ctx), *lo = NULL, *hi = NULL;
    sc__buf b;

    if (!r->lo_inf && !(lo = sc_expr_int_mpz(ctx, r->lo)))
        return sc__env_ctx_error(p->env, p->err);
    if (!r->hi_inf && !(hi = sc_expr_int_mpz(ctx, r->hi)))
        return sc__env_ctx_error(p->env, p->err);
    if (lo && lo == hi) {
        sc_expr *eq = sc_expr_eq(ctx, X, lo);
        if (!eq)
            return sc__env_ctx_error(p->env, p->err);
        return add_item(p, mapped(p, eq), to_vars(p, eq));
    }
    /* Built over the symbols first: the environment has usually interned
     * these relations already, so only the substitution is new. */
    sc__buf_init(&b);
    if (lo) {
        put_int(p, &b, lo);
        sc__buf_puts(&b, " <= ");
        e = sc_expr_and(ctx, e, sc_expr_le(ctx, lo, X));
    }
    sc__buf_puts(&b, xtext);
    if (hi) {
        sc__buf_puts(&b, " <= ");
        put_int(p, &b, hi);
        e = sc_expr_and(ctx, e, sc_expr_le(ctx, X, hi));
    }
    return add_item(p, sc__buf_take(&b), to_vars(p, e));
}

static sc_status produce_sources(producer *p)
{
    sc_env *env = p->env;
    sc_ctx *ctx = env->ctx;
    size_t j;

    for (j = 0; j < env->nsources; j++) {
        sc__env_source *src = &env->sources[j];
        sc_expr *E = src->expr, *ev;
        sc__buf b;
        if (sc_expr_is_symbol(E)) {
            sc__env_sym *s = sc__env_sym_of(env, E);
            if (!s->replaced && s->first_source == j)
                continue;
            if (s->replaced)
                E = s->repl;
        }
        ev = to_vars(p, E);
        sc__buf_init(&b);
        sc__buf_puts(&b, src->text);
        sc__buf_puts(&b, " == ");
        print_mapped(p, E, &b);
        SC_TRY(add_item(p, sc__buf_take(&b),
                        ev ? sc_expr_eq(ctx, p->gs->var_exprs[j], ev) : NULL));
    }
    return SC_OK;
}

/* ---- Writing the lines ---- */

static sc_status emit_excluded(producer *p, sc_expr *X, size_t off, size_t n)
{
    sc_ctx *ctx = p->env->ctx;
    size_t i;

    for (i = off; i < off + n; i++) {
        sc_expr *ne;
        if (p->mz.nes[i].drop)
            continue;
        ne = sc_expr_ne(ctx, X, p->mz.nes[i].v);
        if (!ne)
            return sc__env_ctx_error(p->env, p->err);
        SC_TRY(add_item(p, mapped(p, ne), to_vars(p, ne)));
    }
    return SC_OK;
}

static sc_status emit_symbols(producer *p)
{
    SC__TMP_SAVE(p->env);
    sc_env *env = p->env;
    sc_status status = SC_OK;
    sc_range *r = sc__tr(env);
    size_t i;

    for (i = 0; i < p->mz.nsyms; i++) {
        const mz_sym *y = &p->mz.syms[i];
        sc__env_sym *s = &env->syms[y->id];
        sc_range_set(r, sc__env_sym_range(env, s));
        if (y->drop_lo) {
            r->lo_inf = !s->decl_lo;
            if (s->decl_lo)
                sc_expr_value_mpz(s->decl_lo, r->lo);
        }
        if (y->drop_hi) {
            r->hi_inf = !s->decl_hi;
            if (s->decl_hi)
                sc_expr_value_mpz(s->decl_hi, r->hi);
        }
        if (!sc__rng_is_full(r))
            SC_CHECK(add_bounds(p, s->sym, source_of_sym(p, s), r));
        SC_CHECK(emit_excluded(p, s->sym, y->ne_off, y->ne_n));
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static sc_status emit_divs(producer *p)
{
    sc_ctx *ctx = p->env->ctx;
    size_t i;

    for (i = 0; i < p->mz.ndivs; i++) {
        const mz_div *d = &p->mz.divs[i];
        sc_expr *g;
        if (d->drop)
            continue;
        g = sc_expr_eq(ctx, sc_expr_mod(ctx, d->x, d->k),
                       sc_expr_int_si(ctx, 0));
        if (!g)
            return sc__env_ctx_error(p->env, p->err);
        SC_TRY(add_item(p, mapped(p, g), to_vars(p, g)));
    }
    return SC_OK;
}

static sc_status emit_forms(producer *p)
{
    SC__TMP_SAVE(p->env);
    sc_env *env = p->env;
    sc_status status = SC_OK;
    sc_range *r = sc__tr(env);
    size_t i;

    for (i = 0; i < p->mz.nforms; i++) {
        const mz_form *f = &p->mz.forms[i];
        sc__env_form *ef = &env->forms[f->id];
        sc_range_set(r, &ef->r);
        r->lo_inf = !f->has_lo || f->drop_lo;
        r->hi_inf = !f->has_hi || f->drop_hi;
        if (!sc__rng_is_full(r)) {
            char *text = mapped(p, ef->L);
            if (!text) {
                status = sc__error_nomem(p->err);
                goto fail;
            }
            status = add_bounds(p, ef->L, text, r);
            sc__free(text);
            SC_CHECK(status);
        }
        SC_CHECK(emit_excluded(p, ef->L, f->ne_off, f->ne_n));
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static sc_status emit_ors(producer *p)
{
    size_t i;

    for (i = 0; i < p->mz.nors; i++) {
        sc_expr *e = p->mz.ors[i].e;
        if (p->mz.ors[i].drop)
            continue;
        SC_TRY(add_item(p, mapped(p, e), to_vars(p, e)));
    }
    return SC_OK;
}

static sc_status produce_minimal(producer *p)
{
    SC_TRY(sc__minimal_decide(p));
    SC_TRY(emit_symbols(p));
    SC_TRY(emit_divs(p));
    SC_TRY(emit_forms(p));
    return emit_ors(p);
}

static void producer_free(producer *p)
{
    sc_symmap_free(p->to_vars);
    sc__gmap_destroy(&p->name_of);
    sc_guard_set_free(p->gs);
    sc__minimal_free(&p->mz);
    sc__free(p);
}

static sc_status produce_impl(producer *p)
{
    sc_env *env = p->env;
    sc_error *err = p->err;
    sc_guard_set *gs = p->gs;
    size_t i;

    gs->ctx = env->ctx;
    if (env->nsources > 0) {
        gs->sources = sc__calloc(env->nsources, sizeof *gs->sources);
        gs->vars = sc__calloc(env->nsources, sizeof *gs->vars);
        gs->var_exprs = sc__calloc(env->nsources, sizeof *gs->var_exprs);
        if (!gs->sources || !gs->vars || !gs->var_exprs)
            return sc__error_nomem(err);
    }
    gs->nsources = env->nsources;
    for (i = 0; i < env->nsources; i++) {
        gs->sources[i] = sc__strdup(env->sources[i].text);
        if (!gs->sources[i])
            return sc__error_nomem(err);
        SC_TRY(make_var(p, i));
    }
    for (i = 0; i < env->nsyms; i++) {
        sc__env_sym *s = &env->syms[i];
        if (!s->backed || s->first_source == SIZE_MAX)
            continue;
        if (!sc__gmap_put(&p->name_of,
                          sc__str_hash(sc_expr_symbol_name(s->sym)), i))
            return sc__error_nomem(err);
        SC_TRY(sc_symmap_set(p->to_vars, s->sym,
                             gs->var_exprs[s->first_source], err));
    }
    SC_TRY(produce_sources(p));
    return produce_minimal(p);
}

sc_status sc_env_produce_guards(sc_env *env, sc_guard_set **out,
                                sc_error *err)
{
    sc_status status;
    producer *p;

    *out = NULL;
    p = sc__calloc(1, sizeof *p);
    if (!p)
        return sc__error_nomem(err);
    p->env = env;
    p->err = err;
    sc__gmap_init(&p->name_of);
    sc__gmap_init(&p->mz.group);
    p->gs = sc__calloc(1, sizeof *p->gs);
    p->to_vars = sc_symmap_new(env->ctx);
    if (!p->gs || !p->to_vars) {
        producer_free(p);
        return sc__error_nomem(err);
    }
    /* The guard set in progress is freed when GMP runs out of memory. */
    SC__ENV_ENTER_CLEANUP(env, err, producer_free(p));
    status = produce_impl(p);
    SC__ENV_LEAVE(env);
    SC_CHECK(status);
    *out = p->gs;
    p->gs = NULL;
fail:
    producer_free(p);
    return status;
}

/* symcut — producing the guard set of a shape environment, printing it
 * (PyTorch's spelling over the sources, and C), and compiling it into a
 * checker. */
#include <config.h>

#include <ctype.h>
#include <stdlib.h>
#include <setjmp.h>
#include <string.h>

#include "guards/env.h"

typedef struct gs_item {
    char *text;
    sc_expr *expr;   /* over the source variables */
    bool fixed;      /* never dropped by the minimality pass */
} gs_item;

struct sc_guard_set {
    sc_ctx *ctx;
    gs_item *items;
    size_t nitems, items_cap;
    size_t nsources;
    char **sources;
    char **vars;
    sc_expr **var_exprs;
};

struct sc_guard_checker {
    sc_prog *prog;
    size_t count;          /* guards */
    size_t nsources;
    size_t ninputs;
    size_t *input_source;  /* program input i is values[input_source[i]] */
};

/* ---- The guard set object ------------------------------------------------ */

void sc_guard_set_free(sc_guard_set *gs)
{
    size_t i;
    if (!gs)
        return;
    for (i = 0; i < gs->nitems; i++)
        sc__free(gs->items[i].text);
    sc__free(gs->items);
    for (i = 0; i < gs->nsources; i++) {
        if (gs->sources)
            sc__free(gs->sources[i]);
        if (gs->vars)
            sc__free(gs->vars[i]);
    }
    sc__free(gs->sources);
    sc__free(gs->vars);
    sc__free(gs->var_exprs);
    sc__free(gs);
}

size_t sc_guard_set_count(const sc_guard_set *gs) { return gs->nitems; }

const char *sc_guard_set_text(const sc_guard_set *gs, size_t i)
{
    return i < gs->nitems ? gs->items[i].text : NULL;
}

sc_expr *sc_guard_set_expr(const sc_guard_set *gs, size_t i)
{
    return i < gs->nitems ? gs->items[i].expr : NULL;
}

size_t sc_guard_set_source_count(const sc_guard_set *gs)
{
    return gs->nsources;
}

const char *sc_guard_set_source(const sc_guard_set *gs, size_t i)
{
    return i < gs->nsources ? gs->sources[i] : NULL;
}

const char *sc_guard_set_var(const sc_guard_set *gs, size_t i)
{
    return i < gs->nsources ? gs->vars[i] : NULL;
}

sc_expr *sc_guard_set_var_expr(const sc_guard_set *gs, size_t i)
{
    return i < gs->nsources ? gs->var_exprs[i] : NULL;
}

/* ---- Producing ------------------------------------------------------------- */

typedef struct producer {
    sc_env *env;
    sc_guard_set *gs;
    sc_symmap *to_vars;   /* free backed symbol -> its source variable */
    sc__gmap name_of;     /* hash of a symbol name -> env symbol id */
    bool fixed;           /* the items being added are never dropped */
    sc_error *err;
} producer;

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
    gs->items[gs->nitems].fixed = p->fixed;
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

static bool all_backed(const sc_env *env, const sc_expr *e)
{
    sc_expr *small[16], **syms = small;
    size_t n, i;
    bool ok = true;

    n = sc_expr_free_symbols(e, small, 16);
    if (n > 16) {
        syms = sc__malloc(n * sizeof *syms);
        if (!syms)
            return false;
        sc_expr_free_symbols(e, syms, n);
    }
    for (i = 0; i < n && ok; i++) {
        sc__env_sym *s = sc__env_sym_of(env, syms[i]);
        ok = s && s->backed && !s->replaced && s->first_source != SIZE_MAX;
    }
    if (syms != small)
        sc__free(syms);
    return ok;
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
    sc_expr *e = sc_expr_true(ctx), *xv = to_vars(p, X), *lo = NULL, *hi = NULL;
    sc__buf b;

    if (!xv)
        return sc__env_ctx_error(p->env, p->err);
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
    sc__buf_init(&b);
    if (lo) {
        put_int(p, &b, lo);
        sc__buf_puts(&b, " <= ");
        e = sc_expr_and(ctx, e, sc_expr_le(ctx, lo, xv));
    }
    sc__buf_puts(&b, xtext);
    if (hi) {
        sc__buf_puts(&b, " <= ");
        put_int(p, &b, hi);
        e = sc_expr_and(ctx, e, sc_expr_le(ctx, xv, hi));
    }
    return add_item(p, sc__buf_take(&b), e);
}

static sc_status add_excluded(producer *p, sc_expr *X, const sc__exprvec *ex,
                              const sc_range *r)
{
    SC__TMP_SAVE(p->env);
    sc_ctx *ctx = p->env->ctx;
    sc_status status = SC_OK;
    size_t i;
    mpz_ptr v = sc__tz(p->env);

    for (i = 0; i < ex->n && status == SC_OK; i++) {
        sc_expr *ne;
        sc_expr_get_mpz(ex->items[i], v);
        if (!sc_range_contains_mpz(r, v))
            continue;
        ne = sc_expr_ne(ctx, X, ex->items[i]);
        if (!ne)
            status = sc__env_ctx_error(p->env, p->err);
        else
            status = add_item(p, mapped(p, ne), to_vars(p, ne));
    }
    SC__TMP_RESTORE(p->env);
    return status;
}

static sc_status produce_sources(producer *p)
{
    sc_env *env = p->env;
    sc_ctx *ctx = env->ctx;
    sc_status status = SC_OK;
    size_t j;

    for (j = 0; j < env->nsources && status == SC_OK; j++) {
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
        status = add_item(p, sc__buf_take(&b),
                          ev ? sc_expr_eq(ctx, p->gs->var_exprs[j], ev) : NULL);
    }
    return status;
}

static sc_status produce_symbols(producer *p)
{
    sc_env *env = p->env;
    sc_status status = SC_OK;
    size_t i;

    for (i = 0; i < env->nsyms && status == SC_OK; i++) {
        sc__env_sym *s = &env->syms[i];
        const sc_range *r;
        if (!s->backed || s->replaced || s->first_source == SIZE_MAX)
            continue;
        r = sc__env_sym_range(env, s);
        if (!r)
            continue;
        p->fixed = true;
        if (!sc__rng_is_full(r))
            status = add_bounds(p, s->sym, source_of_sym(p, s), r);
        p->fixed = false;
        if (status == SC_OK)
            status = add_excluded(p, s->sym, &s->excluded, r);
    }
    return status;
}

static sc_status produce_divs(producer *p)
{
    sc_env *env = p->env;
    sc_ctx *ctx = env->ctx;
    sc_status status = SC_OK;
    size_t i;

    for (i = 0; i < env->ndivs && status == SC_OK; i++) {
        sc__env_div *d = &env->divs[i];
        sc_expr *g, *sg;
        if (d->dead || !all_backed(env, d->x) || !all_backed(env, d->k))
            continue;
        g = sc_expr_eq(ctx, sc_expr_mod(ctx, d->x, d->k), sc_expr_int_si(ctx, 0));
        sg = g ? sc_expr_simplify(ctx, g, env->bounds) : NULL;
        if (!sg)
            return sc__env_ctx_error(env, p->err);
        if (sc_expr_get_kind(sg) == SC_EXPR_TRUE)
            continue;
        status = add_item(p, mapped(p, g), to_vars(p, g));
    }
    return status;
}

static sc_status produce_forms(producer *p)
{
    SC__TMP_SAVE(p->env);
    sc_env *env = p->env;
    sc_status status = SC_OK;
    sc_range *base = sc__tr(p->env), *r = sc__tr(p->env);
    size_t i;

    for (i = 0; i < env->nforms && status == SC_OK; i++) {
        sc__env_form *f = &env->forms[i];
        char *text;
        if (f->dead || !all_backed(env, f->L))
            continue;
        status = sc_expr_range(env->ctx, f->L, env->bounds, base, p->err);
        if (status != SC_OK)
            break;
        sc_range_set(r, &f->r);
        /* Leave out the sides the ranges of the symbols already imply. */
        if (!r->lo_inf && !base->lo_inf && mpz_cmp(base->lo, r->lo) >= 0)
            r->lo_inf = true;
        if (!r->hi_inf && !base->hi_inf && mpz_cmp(base->hi, r->hi) <= 0)
            r->hi_inf = true;
        if (!sc__rng_is_full(r)) {
            text = mapped(p, f->L);
            if (!text) {
                status = sc__error_nomem(p->err);
                break;
            }
            status = add_bounds(p, f->L, text, r);
            sc__free(text);
        }
        if (status == SC_OK) {
            sc__rng_intersect(base, &f->r);
            status = add_excluded(p, f->L, &f->excluded, base);
        }
    }
    SC__TMP_RESTORE(p->env);
    return status;
}

static sc_status produce_ors(producer *p)
{
    sc_env *env = p->env;
    sc_status status = SC_OK;
    size_t i;

    for (i = 0; i < env->nors && status == SC_OK; i++) {
        sc__env_or *o = &env->ors[i];
        sc_expr *sg;
        if (o->dead || !all_backed(env, o->e))
            continue;
        sg = sc_expr_simplify(env->ctx, o->e, env->bounds);
        if (!sg)
            return sc__env_ctx_error(env, p->err);
        if (sc_expr_get_kind(sg) == SC_EXPR_TRUE)
            continue;
        status = add_item(p, mapped(p, o->e), to_vars(p, o->e));
    }
    return status;
}

/* ---- Minimality ----------------------------------------------------------
 * The set written from the learned state leaves out what one fact or the
 * ranges imply, but not what several facts imply together (`s0 <= s1`,
 * `s1 <= s2` and `s0 <= s2`; `Eq(Mod(s0, 4), 0)` and `Eq(Mod(s0, 2), 0)`;
 * `s0 <= 4`, `s1 <= 6` and `s0 + s1 <= 10`).  This pass drops them: from
 * the last item to the first, an item is dropped when a scratch
 * environment, holding the symbols with their current ranges and the
 * remaining items that share a symbol with it, knows it statically true.
 * Each drop keeps the set equivalent (the item follows from the items that
 * remain at that moment), so the result decides exactly the same sizes.
 * Source equalities and range lines are never dropped (the ranges take
 * part in every question instead).  Cost: at most MIN_NEIGHBORS related
 * items per question, so linear in the size of the set. */

#define MIN_NEIGHBORS 8

typedef struct minimizer {
    size_t *voff;       /* item i's symbols: vars[voff[i] .. voff[i+1]) */
    size_t *vars, nvars, vars_cap;
    size_t *loff;       /* symbol k's items: list[loff[k] .. loff[k+1]) */
    size_t *list;
    size_t *item_mark, *sym_mark;
    size_t *nb, *vs;    /* one question's neighbors and symbols */
    bool *dropped;
} minimizer;

static void minimizer_free(minimizer *m)
{
    sc__free(m->voff);
    sc__free(m->vars);
    sc__free(m->loff);
    sc__free(m->list);
    sc__free(m->item_mark);
    sc__free(m->sym_mark);
    sc__free(m->nb);
    sc__free(m->vs);
    sc__free(m->dropped);
}

static void sort_sizes(size_t *a, size_t n)
{
    size_t i, j;
    for (i = 1; i < n; i++) {
        size_t x = a[i];
        for (j = i; j > 0 && a[j - 1] > x; j--)
            a[j] = a[j - 1];
        a[j] = x;
    }
}

/* The environment symbol ids of the free variables of item i. */
static sc_status item_symbols(producer *p, minimizer *m, sc__gmap *sym_of_var,
                              size_t i)
{
    sc_expr *small[16], **syms = small;
    size_t n, k;

    n = sc_expr_free_symbols(p->gs->items[i].expr, small, 16);
    if (n > 16) {
        syms = sc__malloc(n * sizeof *syms);
        if (!syms)
            return sc__error_nomem(p->err);
        sc_expr_free_symbols(p->gs->items[i].expr, syms, n);
    }
    for (k = 0; k < n; k++) {
        uint64_t id;
        if (!sc__gmap_get(sym_of_var, sc__gmap_ptr(syms[k]), &id))
            continue;   /* not the variable of a free symbol: cannot be */
        if (m->nvars == m->vars_cap) {
            void *q = m->vars;
            if (!sc__grow(&q, &m->vars_cap, m->nvars + 1, sizeof *m->vars)) {
                if (syms != small)
                    sc__free(syms);
                return sc__error_nomem(p->err);
            }
            m->vars = q;
        }
        m->vars[m->nvars++] = (size_t)id;
    }
    if (syms != small)
        sc__free(syms);
    return SC_OK;
}

/* Is item i statically true in a scratch environment holding the symbols
 * vs[0..nv) with their ranges and the items nb[0..nn)?  Any error but
 * exhaustion answers no. */
static sc_status implied(producer *p, minimizer *m, size_t i, size_t nn,
                         size_t nv, bool *out)
{
    sc_env *env = p->env;
    sc_guard_set *gs = p->gs;
    sc_env *scratch = NULL;
    sc_error e;
    sc_status st;
    sc_tri t = SC_TRI_UNKNOWN;
    size_t k;

    *out = false;
    sc_error_init(&e);
    st = sc_env_new(env->ctx, NULL, &scratch, &e);
    for (k = 0; k < nv && st == SC_OK; k++) {
        sc__env_sym *s = &env->syms[m->vs[k]];
        sc_expr *var = gs->var_exprs[s->first_source], *got = NULL;
        st = sc_env_create_unbacked(scratch, sc_expr_symbol_name(var),
                                    sc__env_sym_range(env, s), 0, &got, &e);
        if (st == SC_OK && got != var)
            st = SC_ERR_INTERNAL;
    }
    for (k = 0; k < nn && st == SC_OK; k++)
        st = sc_env_assert(scratch, gs->items[m->nb[k]].expr, &e);
    if (st == SC_OK)
        st = sc_env_statically_known(scratch, gs->items[i].expr, 0, &t, &e);
    sc_env_free(scratch);
    if (st == SC_ERR_NOMEM)
        return sc__error_nomem(p->err);
    *out = st == SC_OK && t == SC_TRI_TRUE;
    return SC_OK;
}

static sc_status minimize_with(producer *p, minimizer *m)
{
    sc_env *env = p->env;
    sc_guard_set *gs = p->gs;
    const size_t n = gs->nitems, nsyms = env->nsyms;
    sc__gmap sym_of_var;
    sc_status status = SC_OK;
    size_t i, k, j, w;

    sc__gmap_init(&sym_of_var);
    m->voff = sc__calloc(n + 1, sizeof *m->voff);
    m->loff = sc__calloc(nsyms + 1, sizeof *m->loff);
    m->item_mark = sc__calloc(n, sizeof *m->item_mark);
    m->sym_mark = sc__calloc(nsyms + 1, sizeof *m->sym_mark);
    m->dropped = sc__calloc(n, sizeof *m->dropped);
    m->nb = sc__malloc(MIN_NEIGHBORS * sizeof *m->nb);
    if (!m->voff || !m->loff || !m->item_mark || !m->sym_mark ||
        !m->dropped || !m->nb) {
        status = sc__error_nomem(p->err);
        goto fail;
    }
    for (k = 0; k < nsyms; k++) {
        sc__env_sym *s = &env->syms[k];
        if (!s->backed || s->replaced || s->first_source == SIZE_MAX)
            continue;
        if (!sc__gmap_put(&sym_of_var,
                          sc__gmap_ptr(gs->var_exprs[s->first_source]), k)) {
            status = sc__error_nomem(p->err);
            goto fail;
        }
    }
    /* The symbols of every droppable item, and the droppable items of
     * every symbol, in item order. */
    for (i = 0; i < n; i++) {
        m->voff[i] = m->nvars;
        if (!gs->items[i].fixed)
            SC_CHECK(item_symbols(p, m, &sym_of_var, i));
    }
    m->voff[n] = m->nvars;
    for (k = 0; k < m->nvars; k++)
        m->loff[m->vars[k] + 1]++;
    for (k = 0; k < nsyms; k++)
        m->loff[k + 1] += m->loff[k];
    if (m->nvars > 0) {
        m->list = sc__malloc(m->nvars * sizeof *m->list);
        m->vs = sc__malloc(m->nvars * sizeof *m->vs);
        if (!m->list || !m->vs) {
            status = sc__error_nomem(p->err);
            goto fail;
        }
    }
    {
        size_t *fill = m->sym_mark;   /* reused as fill counters */
        for (i = 0; i < n; i++)
            for (k = m->voff[i]; k < m->voff[i + 1]; k++) {
                size_t v = m->vars[k];
                m->list[m->loff[v] + fill[v]++] = i;
            }
        memset(fill, 0, (nsyms + 1) * sizeof *fill);
    }
    for (i = n; i-- > 0;) {
        size_t nn = 0, nv = 0;
        bool drop;
        if (gs->items[i].fixed || m->voff[i] == m->voff[i + 1])
            continue;
        m->item_mark[i] = i + 1;
        for (k = m->voff[i]; k < m->voff[i + 1] && nn < MIN_NEIGHBORS; k++) {
            size_t v = m->vars[k];
            for (j = m->loff[v]; j < m->loff[v + 1] && nn < MIN_NEIGHBORS; j++) {
                size_t it = m->list[j];
                if (m->dropped[it] || m->item_mark[it] == i + 1)
                    continue;
                m->item_mark[it] = i + 1;
                m->nb[nn++] = it;
            }
        }
        if (nn == 0)
            continue;   /* the ranges alone: the producer has seen to it */
        sort_sizes(m->nb, nn);
        for (j = 0; j <= nn; j++) {
            size_t it = j < nn ? m->nb[j] : i;
            for (k = m->voff[it]; k < m->voff[it + 1]; k++) {
                size_t v = m->vars[k];
                if (m->sym_mark[v] == i + 1)
                    continue;
                m->sym_mark[v] = i + 1;
                m->vs[nv++] = v;
            }
        }
        sort_sizes(m->vs, nv);
        SC_CHECK(implied(p, m, i, nn, nv, &drop));
        m->dropped[i] = drop;
    }
    for (i = w = 0; i < n; i++) {
        if (m->dropped[i])
            sc__free(gs->items[i].text);
        else
            gs->items[w++] = gs->items[i];
    }
    gs->nitems = w;
fail:
    sc__gmap_destroy(&sym_of_var);
    return status;
}

static sc_status minimize(producer *p)
{
    minimizer m;
    sc_status status;

    memset(&m, 0, sizeof m);
    status = minimize_with(p, &m);
    minimizer_free(&m);
    return status;
}

static void producer_free(producer *p)
{
    sc_symmap_free(p->to_vars);
    sc__gmap_destroy(&p->name_of);
    sc_guard_set_free(p->gs);
    sc__free(p);
}

static sc_status produce_impl(producer *p)
{
    sc_env *env = p->env;
    sc_error *err = p->err;
    sc_status status = SC_OK;
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
        SC_CHECK(make_var(p, i));
    }
    for (i = 0; i < env->nsyms; i++) {
        sc__env_sym *s = &env->syms[i];
        if (!s->backed || s->first_source == SIZE_MAX)
            continue;
        if (!sc__gmap_put(&p->name_of,
                          sc__str_hash(sc_expr_symbol_name(s->sym)), i))
            return sc__error_nomem(err);
        SC_CHECK(sc_symmap_set(p->to_vars, s->sym,
                               gs->var_exprs[s->first_source], err));
    }
    p->fixed = true;
    SC_CHECK(produce_sources(p));
    p->fixed = false;
    SC_CHECK(produce_symbols(p));
    SC_CHECK(produce_divs(p));
    SC_CHECK(produce_forms(p));
    SC_CHECK(produce_ors(p));
    SC_CHECK(minimize(p));
fail:
    return status;
}

sc_status sc_env_produce_guards(sc_env *env, sc_guard_set **out,
                                sc_error *err)
{
    const size_t tz = env->ntz, tr = env->ntr, stk = env->stk.n;
    jmp_buf *const prev = env->jmp;
    sc__gmp_guard g;
    sc_status status;
    producer *p;

    *out = NULL;
    p = sc__calloc(1, sizeof *p);
    if (!p)
        return sc__error_nomem(err);
    p->env = env;
    p->err = err;
    sc__gmap_init(&p->name_of);
    p->gs = sc__calloc(1, sizeof *p->gs);
    p->to_vars = sc_symmap_new(env->ctx);
    if (!p->gs || !p->to_vars) {
        producer_free(p);
        return sc__error_nomem(err);
    }
    /* The entry-point guard, by hand: the guard set in progress must be
     * freed when GMP runs out of memory. */
    sc__gmp_push(&g);
    if (setjmp(g.env)) {
        sc__gmp_pop(&g);
        env->jmp = prev;
        env->ntz = tz;
        env->ntr = tr;
        env->stk.n = stk;
        producer_free(p);
        return sc__error_nomem(err);
    }
    env->jmp = &g.env;
    status = produce_impl(p);
    sc__gmp_pop(&g);
    env->jmp = prev;
    env->ntz = tz;
    env->ntr = tr;
    env->stk.n = stk;
    if (status == SC_OK) {
        *out = p->gs;
        p->gs = NULL;
    }
    producer_free(p);
    return status;
}

/* ---- C ----------------------------------------------------------------------- */

sc_status sc_guard_set_to_c(const sc_guard_set *gs, char **out, sc_error *err)
{
    sc_status status = SC_OK;
    sc__buf b;
    size_t i;

    *out = NULL;
    sc__buf_init(&b);
    if (gs->nitems == 0)
        sc__buf_puts(&b, "1");
    for (i = 0; i < gs->nitems; i++) {
        char *c = NULL;
        status = sc_expr_to_c(gs->ctx, gs->items[i].expr, NULL, &c, err);
        if (status != SC_OK) {
            sc__buf_free(&b);
            return status;
        }
        if (i > 0)
            sc__buf_puts(&b, " &&\n");
        sc__buf_putc(&b, '(');
        sc__buf_puts(&b, c);
        sc__buf_putc(&b, ')');
        free(c);
    }
    *out = sc__buf_take(&b);
    if (!*out)
        return sc__error_nomem(err);
    return SC_OK;
}

/* ---- The checker --------------------------------------------------------------- */

void sc_guard_checker_free(sc_guard_checker *chk)
{
    if (!chk)
        return;
    sc_prog_free(chk->prog);
    sc__free(chk->input_source);
    sc__free(chk);
}

size_t sc_guard_checker_source_count(const sc_guard_checker *chk)
{
    return chk->nsources;
}

size_t sc_guard_checker_count(const sc_guard_checker *chk)
{
    return chk->count;
}

sc_status sc_guard_set_compile(const sc_guard_set *gs, sc_guard_checker **out,
                               sc_error *err)
{
    sc_status status = SC_OK;
    sc_guard_checker *chk;
    sc_expr **exprs = NULL;
    size_t i, j;

    *out = NULL;
    chk = sc__calloc(1, sizeof *chk);
    if (!chk)
        return sc__error_nomem(err);
    chk->count = gs->nitems;
    chk->nsources = gs->nsources;
    if (gs->nitems > 0) {
        exprs = sc__malloc(gs->nitems * sizeof *exprs);
        if (!exprs) {
            status = sc__error_nomem(err);
            goto fail;
        }
        for (i = 0; i < gs->nitems; i++)
            exprs[i] = gs->items[i].expr;
    }
    SC_CHECK(sc_prog_new(gs->ctx, gs->nitems, exprs, &chk->prog, err));
    chk->ninputs = sc_prog_num_inputs(chk->prog);
    if (chk->ninputs > 0) {
        chk->input_source = sc__malloc(chk->ninputs * sizeof *chk->input_source);
        if (!chk->input_source) {
            status = sc__error_nomem(err);
            goto fail;
        }
    }
    for (i = 0; i < chk->ninputs; i++) {
        sc_expr *in = sc_prog_input(chk->prog, i);
        for (j = 0; j < gs->nsources; j++)
            if (gs->var_exprs[j] == in)
                break;
        if (j == gs->nsources) {
            status = sc__error_set(err, SC_ERR_INTERNAL,
                                   "a guard mentions '%s', which is not a "
                                   "source", sc_expr_symbol_name(in));
            goto fail;
        }
        chk->input_source[i] = j;
    }
    sc__free(exprs);
    *out = chk;
    return SC_OK;
fail:
    sc__free(exprs);
    sc_guard_checker_free(chk);
    return status;
}

#define CHECK_STACK_INPUTS 128

sc_status sc_guard_checker_check(const sc_guard_checker *chk,
                                 const int64_t *values,
                                 size_t *first_failing, sc_error *err)
{
    int64_t stack[CHECK_STACK_INPUTS] = {0}, *in = stack;
    sc_status status;
    size_t i;

    if (chk->ninputs > CHECK_STACK_INPUTS) {
        in = sc__malloc(chk->ninputs * sizeof *in);
        if (!in)
            return sc__error_nomem(err);
    }
    for (i = 0; i < chk->ninputs; i++)
        in[i] = values[chk->input_source[i]];
    status = sc_prog_first_false(chk->prog, in, first_failing, err);
    if (in != stack)
        sc__free(in);
    return status;
}

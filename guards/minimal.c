/* symcut — the minimality pass of the guard producer: which of the
 * learned lines the guard set may leave out (difference constraints,
 * bounds on forms, excluded values, disjunctions, linear implication). */
#include <config.h>

#include <limits.h>
#include <string.h>

#include "guards/produce.h"

#define MZ_SEARCH_LIMIT 4096   /* nodes one shortest-path search settles */
#define MZ_PARTNER_LIMIT 64    /* bounds combined with one linear bound */
#define FM_MAX_VARS SC__OMEGA_MAX_VARS   /* symbols of one question */
#define FM_MAX_LINES 10        /* multi-symbol lines of one question */

/* ---- Minimality ------------------------------------------------------------
 * The set written from the learned state leaves out what one fact or the
 * ranges imply, but not what several facts imply together.  Before the
 * lines are written, this pass decides which of them to leave out, from
 * their structure (no scratch environment, no learning):
 *
 *  A. Orders.  The range sides of the symbols and the bounds on differences
 *     `x - y` form a system of difference constraints, a graph with a node
 *     per symbol and one for the constant 0 (an edge u -> v of weight w is
 *     x_v - x_u <= w).  A side is implied by the others exactly when a path
 *     that avoids it is no longer than it (shortest paths, Dijkstra on the
 *     weights reduced by the hints, which satisfy every edge).  The sides
 *     are tried from the last line to the first, the bounds on differences
 *     before the range sides; a range side may only go back to the
 *     symbol's declared side (`2 <= x`), which is never dropped.
 *  B. The remaining system gives every symbol its tightest bounds (the
 *     box).  A bound on another linear form is dropped when the box
 *     implies it, or the box and one other linear bound combined with a
 *     positive factor (one Fourier-Motzkin step); a bound on a non-linear
 *     form, an excluded value and a disjunction when the box implies it;
 *     an excluded value of a symbol also when a divisibility fact does.
 *     Step B never drops a line that step A or the box rely on.
 *  C. Divisibility facts on the same expression are merged into one by
 *     their least common multiple (`4 | x` and `6 | x` is `12 | x`).
 *  D. Every linear line left (range sides, differences, other linear
 *     forms) that the other linear lines near it imply over the integers
 *     is dropped (decided exactly by the Omega test within its caps; see
 *     mz_linear_closure and guards/omega.c).
 * A bound on a non-linear form is also left out when the ranges (or the
 * box) imply it after the shift of sc__env_poly_range.
 *
 * Each drop leaves out a line that the lines present at that moment
 * imply, so the set accepts exactly the sizes it accepted before.  Cost:
 * one bounded shortest-path search per order side, at most
 * MZ_PARTNER_LIMIT combinations per linear bound, and one bounded Omega
 * test per linear line (FM_MAX_LINES, FM_MAX_VARS, and the caps and
 * budget of guards/omega.h).
 * doc/guards.md says what the pass finds and what it does not. */

void sc__minimal_free(mz_state *mz)
{
    sc__free(mz->syms);
    sc__free(mz->local);
    sc__free(mz->forms);
    sc__free(mz->tv);
    sc__free(mz->tc);
    sc__free(mz->nes);
    sc__free(mz->divs);
    sc__free(mz->ors);
    sc__free(mz->edges);
    sc__free(mz->out_off);
    sc__free(mz->out_e);
    sc__free(mz->in_off);
    sc__free(mz->in_e);
    sc__free(mz->dist);
    sc__free(mz->dstamp);
    sc__free(mz->done);
    sc__free(mz->hd);
    sc__free(mz->hn);
    sc__free(mz->row_off);
    sc__free(mz->rows);
    sc__free(mz->rstamp);
    sc__free(mz->mv);
    sc__free(mz->mc);
    if (mz->box)
        sc_bounds_free(mz->box);
    sc__gmap_destroy(&mz->group);
    sc__free(mz->ordered);
    sc__free(mz->frows);
    sc__free(mz->fv);
    sc__free(mz->fc);
    sc__free(mz->fsym_off);
    sc__free(mz->fsym_rows);
    sc__free(mz->fvar);
    sc__free(mz->fvstamp);
    sc__free(mz->frstamp);
    sc__free(mz->fsub);
    sc__free(mz->fsv);
    sc__omega_destroy(&mz->om);
    sc__free(mz->frelax);
    memset(mz, 0, sizeof *mz);
}

static bool mz_get_i64(mpz_srcptr z, int64_t *out)
{
    long v;
    if (!mpz_fits_slong_p(z))
        return false;
    v = mpz_get_si(z);
    *out = (int64_t)v;
    return true;
}

static bool mz_push_ne(producer *p, sc_expr *v)
{
    mz_state *mz = &p->mz;
    if (mz->nnes == mz->nes_cap) {
        void *q = mz->nes;
        if (!sc__grow(&q, &mz->nes_cap, mz->nnes + 1, sizeof *mz->nes))
            return false;
        mz->nes = q;
    }
    mz->nes[mz->nnes].v = v;
    mz->nes[mz->nnes].drop = false;
    mz->nnes++;
    return true;
}

/* The excluded values in r of a symbol or form, appended to nes. */
static sc_status mz_collect_ne(producer *p, const sc__exprvec *ex,
                               const sc_range *r, size_t *off, size_t *n)
{
    SC__TMP_SAVE(p->env);
    mpz_ptr v = sc__tz(p->env);
    size_t i;

    *off = p->mz.nnes;
    for (i = 0; i < ex->n; i++) {
        sc_expr_value_mpz(ex->items[i], v);
        if (!sc_range_contains_mpz(r, v))
            continue;
        if (!mz_push_ne(p, ex->items[i])) {
            SC__TMP_RESTORE(p->env);
            return sc__error_nomem(p->err);
        }
    }
    *n = p->mz.nnes - *off;
    SC__TMP_RESTORE(p->env);
    return SC_OK;
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

static bool is_free_backed(const sc__env_sym *s)
{
    return s->backed && !s->replaced && s->first_source != SIZE_MAX;
}

static sc_status mz_collect_syms(producer *p)
{
    sc_env *env = p->env;
    mz_state *mz = &p->mz;
    size_t i;

    mz->local = sc__malloc((env->nsyms + 1) * sizeof *mz->local);
    mz->syms = sc__calloc(env->nsyms + 1, sizeof *mz->syms);
    if (!mz->local || !mz->syms)
        return sc__error_nomem(p->err);
    for (i = 0; i < env->nsyms; i++) {
        sc__env_sym *s = &env->syms[i];
        mz_sym *y;
        const sc_range *r;
        mz->local[i] = SIZE_MAX;
        /* (no range: a creation that ran out of memory half way) */
        if (!is_free_backed(s) || !(r = sc__env_sym_range(env, s)))
            continue;
        y = &mz->syms[mz->nsyms];
        y->id = i;
        y->hint_ok = sc_expr_value_si(s->hint, &y->hint);
        y->lo_inf = r->lo_inf || !mz_get_i64(r->lo, &y->lo);
        y->hi_inf = r->hi_inf || !mz_get_i64(r->hi, &y->hi);
        mz->local[i] = mz->nsyms++;
    }
    for (i = 0; i < mz->nsyms; i++) {
        sc__env_sym *s = &env->syms[mz->syms[i].id];
        SC_TRY(mz_collect_ne(p, &s->excluded, sc__env_sym_range(env, s),
                                   &mz->syms[i].ne_off, &mz->syms[i].ne_n));
    }
    return SC_OK;
}

/* Divisibility facts, merged per expression (constant divisors only). */
static sc_status mz_collect_divs(producer *p)
{
    SC__TMP_SAVE(p->env);
    sc_env *env = p->env;
    sc_ctx *ctx = env->ctx;
    mz_state *mz = &p->mz;
    sc__gmap *group = &mz->group;
    sc_status status = SC_OK;
    mpz_ptr a = sc__tz(env), b = sc__tz(env), l = sc__tz(env);
    size_t i;

    mz->divs = sc__calloc(env->ndivs + 1, sizeof *mz->divs);
    if (!mz->divs) {
        status = sc__error_nomem(p->err);
        goto fail;
    }
    for (i = 0; i < env->ndivs; i++) {
        sc__env_div *d = &env->divs[i];
        uint64_t gi;
        mz_div *g;
        if (d->dead || !all_backed(env, d->x) || !all_backed(env, d->k))
            continue;
        if (!sc_expr_is_int(d->k) ||
            !sc__gmap_get(group, sc__gmap_ptr(d->x), &gi)) {
            if (sc_expr_is_int(d->k) &&
                !sc__gmap_put(group, sc__gmap_ptr(d->x), mz->ndivs)) {
                status = sc__error_nomem(p->err);
                goto fail;
            }
            mz->divs[mz->ndivs].x = d->x;
            mz->divs[mz->ndivs].k = d->k;
            mz->ndivs++;
            continue;
        }
        g = &mz->divs[gi];
        sc_expr_value_mpz(g->k, a);
        sc_expr_value_mpz(d->k, b);
        mpz_abs(a, a);
        mpz_abs(b, b);
        mpz_lcm(l, a, b);
        if (mpz_cmp(l, a) == 0)
            continue;
        if (mpz_cmp(l, b) == 0)
            g->k = d->k;
        else if (!(g->k = sc_expr_int_mpz(ctx, l))) {
            status = sc__env_ctx_error(env, p->err);
            goto fail;
        }
    }
    for (i = 0; i < mz->ndivs; i++) {
        mz_div *g = &mz->divs[i];
        sc_expr *e, *se;
        e = sc_expr_eq(ctx, sc_expr_mod(ctx, g->x, g->k),
                       sc_expr_int_si(ctx, 0));
        se = e ? sc_expr_simplify(ctx, e, env->bounds) : NULL;
        if (!se) {
            status = sc__env_ctx_error(env, p->err);
            goto fail;
        }
        g->drop = sc_expr_node_kind(se) == SC_EXPR_TRUE;
        if (!g->drop && sc_expr_is_symbol(g->x) && sc_expr_is_int(g->k)) {
            sc__env_sym *s = sc__env_sym_of(env, g->x);
            size_t li = s ? p->mz.local[s - env->syms] : SIZE_MAX;
            if (li != SIZE_MAX)
                mz->syms[li].div = g->k;
        }
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static bool mz_push_term(producer *p, size_t v, int64_t c)
{
    mz_state *mz = &p->mz;
    if (mz->nterms == mz->tv_cap || mz->nterms == mz->tc_cap) {
        void *q = mz->tv, *r = mz->tc;
        if (!sc__grow(&q, &mz->tv_cap, mz->nterms + 1, sizeof *mz->tv))
            return false;
        mz->tv = q;
        if (!sc__grow(&r, &mz->tc_cap, mz->nterms + 1, sizeof *mz->tc))
            return false;
        mz->tc = r;
    }
    mz->tv[mz->nterms] = v;
    mz->tc[mz->nterms] = c;
    mz->nterms++;
    return true;
}

/* Room for n terms in the scratch combination. */
static bool mz_scratch(producer *p, size_t n)
{
    mz_state *mz = &p->mz;
    void *q;
    if (n <= mz->mv_cap && n <= mz->mc_cap)
        return true;
    q = mz->mv;
    if (!sc__grow(&q, &mz->mv_cap, n, sizeof *mz->mv))
        return false;
    mz->mv = q;
    q = mz->mc;
    if (!sc__grow(&q, &mz->mc_cap, n, sizeof *mz->mc))
        return false;
    mz->mc = q;
    return true;
}

/* If L is a sum of free symbols with int64_t coefficients, its terms
 * (sorted by symbol) into tv/tc; f->nt stays 0 otherwise. */
static sc_status mz_linear(producer *p, mz_form *f, sc_expr *L)
{
    SC__TMP_SAVE(p->env);
    mz_state *mz = &p->mz;
    mpz_ptr c = sc__tz(p->env);
    size_t n = sc_expr_arg_count(L), i, j;

    f->toff = mz->nterms;
    f->nt = 0;
    if (sc_expr_node_kind(L) != SC_EXPR_ADD)
        SC__TMP_RETURN(p->env, sc_status, SC_OK);
    sc_expr_add_constant(L, c);
    if (mpz_sgn(c) != 0)
        SC__TMP_RETURN(p->env, sc_status, SC_OK);
    for (i = 0; i < n; i++) {
        sc_expr *t = sc_expr_arg(L, i);
        sc__env_sym *s = sc_expr_is_symbol(t) ? sc__env_sym_of(p->env, t) : NULL;
        size_t li = s ? mz->local[s - p->env->syms] : SIZE_MAX;
        int64_t k;
        sc_expr_add_coef(L, i, c);
        if (li == SIZE_MAX || !mz_get_i64(c, &k) || k == 0 || k == INT64_MIN) {
            mz->nterms = f->toff;
            SC__TMP_RETURN(p->env, sc_status, SC_OK);
        }
        if (!mz_push_term(p, li, k)) {
            SC__TMP_RESTORE(p->env);
            return sc__error_nomem(p->err);
        }
    }
    SC__TMP_RESTORE(p->env);
    /* sort by symbol (a few terms) */
    for (i = f->toff + 1; i < mz->nterms; i++) {
        size_t v = mz->tv[i];
        int64_t k = mz->tc[i];
        for (j = i; j > f->toff && mz->tv[j - 1] > v; j--) {
            mz->tv[j] = mz->tv[j - 1];
            mz->tc[j] = mz->tc[j - 1];
        }
        mz->tv[j] = v;
        mz->tc[j] = k;
    }
    if (!mz_scratch(p, 2 * n))
        return sc__error_nomem(p->err);
    f->nt = n;
    f->diff = n == 2 && ((mz->tc[f->toff] == 1 && mz->tc[f->toff + 1] == -1) ||
                         (mz->tc[f->toff] == -1 && mz->tc[f->toff + 1] == 1));
    return SC_OK;
}

/* max of sum c[i] * x_v[i] over the box; false when unbounded or on
 * overflow. */
static bool mz_box_max(const mz_state *mz, const size_t *v, const int64_t *c,
                       size_t n, int64_t *out)
{
    int64_t sum = 0, t;
    size_t i;

    for (i = 0; i < n; i++) {
        const mz_sym *y = &mz->syms[v[i]];
        if (c[i] == 0)
            continue;
        if (c[i] > 0 ? y->hi_inf : y->lo_inf)
            return false;
        if (__builtin_mul_overflow(c[i], c[i] > 0 ? y->hi : y->lo, &t) ||
            __builtin_add_overflow(sum, t, &sum))
            return false;
    }
    *out = sum;
    return true;
}

static void mz_set_i64(mpz_ptr z, int64_t v)
{
    if (v >= LONG_MIN && v <= LONG_MAX) {
        mpz_set_si(z, (long)v);
        return;
    }
    /* v = hi * 2^32 + lo, with 0 <= lo < 2^32 */
    mpz_set_si(z, (long)(v >> 32));
    mpz_mul_2exp(z, z, 32);
    mpz_add_ui(z, z, (unsigned long)((uint64_t)v & 0xffffffffu));
}

/* The range of a linear form over the box (the symbols' ranges before
 * step B): exact, or a side infinite when it does not fit int64_t. */
static void mz_linear_range(mz_state *mz, const mz_form *f, sc_range *out)
{
    int64_t m;
    size_t i;

    for (i = 0; i < f->nt; i++) {
        mz->mv[i] = mz->tv[f->toff + i];
        mz->mc[i] = mz->tc[f->toff + i];
    }
    out->hi_inf = !mz_box_max(mz, mz->mv, mz->mc, f->nt, &m);
    if (!out->hi_inf)
        mz_set_i64(out->hi, m);
    for (i = 0; i < f->nt; i++)
        mz->mc[i] = -mz->mc[i];
    out->lo_inf = !mz_box_max(mz, mz->mv, mz->mc, f->nt, &m) || m == INT64_MIN;
    if (!out->lo_inf)
        mz_set_i64(out->lo, -m);
}

static sc_status mz_collect_forms(producer *p)
{
    SC__TMP_SAVE(p->env);
    sc_env *env = p->env;
    mz_state *mz = &p->mz;
    sc_status status = SC_OK;
    sc_range *base = sc__tr(env), *r = sc__tr(env);
    size_t i;

    mz->forms = sc__calloc(env->nforms + 1, sizeof *mz->forms);
    if (!mz->forms) {
        status = sc__error_nomem(p->err);
        goto fail;
    }
    for (i = 0; i < env->nforms; i++) {
        sc__env_form *f = &env->forms[i];
        mz_form *m;
        if (f->dead || !all_backed(env, f->L))
            continue;
        m = &mz->forms[mz->nforms++];
        m->id = i;
        SC_CHECK(mz_linear(p, m, f->L));
        if (m->nt > 0) {
            mz_linear_range(mz, m, base);
        } else {
            SC_CHECK(sc_expr_range(env->ctx, f->L, env->bounds, base, p->err));
            /* a polynomial: also shifted to the origin of the ranges */
            SC_CHECK(sc__env_poly_range(env, f->L, env->bounds, false, base,
                                        p->err));
        }
        sc_range_set(r, &f->r);
        /* Leave out the sides the ranges of the symbols already imply. */
        m->has_lo = !r->lo_inf && (base->lo_inf || mpz_cmp(base->lo, r->lo) < 0);
        m->has_hi = !r->hi_inf && (base->hi_inf || mpz_cmp(base->hi, r->hi) > 0);
        m->lo_ok = m->has_lo && mz_get_i64(r->lo, &m->lo);
        m->hi_ok = m->has_hi && mz_get_i64(r->hi, &m->hi);
        sc__rng_intersect(base, &f->r);
        SC_CHECK(mz_collect_ne(p, &f->excluded, base, &m->ne_off, &m->ne_n));
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static sc_status mz_collect_ors(producer *p)
{
    sc_env *env = p->env;
    mz_state *mz = &p->mz;
    size_t i;

    mz->ors = sc__calloc(env->nors + 1, sizeof *mz->ors);
    if (!mz->ors)
        return sc__error_nomem(p->err);
    for (i = 0; i < env->nors; i++) {
        sc__env_or *o = &env->ors[i];
        sc_expr *sg;
        if (o->dead || !all_backed(env, o->e))
            continue;
        sg = sc_expr_simplify(env->ctx, o->e, env->bounds);
        if (!sg)
            return sc__env_ctx_error(env, p->err);
        if (sc_expr_node_kind(sg) == SC_EXPR_TRUE)
            continue;
        mz->ors[mz->nors].e = o->e;
        mz->ors[mz->nors].drop = false;
        mz->nors++;
    }
    return SC_OK;
}

/* ---- A: the difference constraints ---- */

static int64_t mz_pot(const mz_state *mz, size_t node)
{
    return node == 0 ? 0 : mz->syms[node - 1].hint;
}

/* Add x_v - x_u <= w, unless a hint or the reduced weight does not fit
 * (then the constraint is neither used nor dropped). */
static sc_status mz_add_edge(producer *p, size_t u, size_t v, int64_t w,
                             int owner, size_t idx)
{
    mz_state *mz = &p->mz;
    int64_t rw;
    mz_edge *e;

    if ((u && !mz->syms[u - 1].hint_ok) || (v && !mz->syms[v - 1].hint_ok))
        return SC_OK;
    if (__builtin_add_overflow(w, mz_pot(mz, u), &rw) ||
        __builtin_sub_overflow(rw, mz_pot(mz, v), &rw) || rw < 0)
        return SC_OK;
    if (mz->nedges == mz->edges_cap) {
        void *q = mz->edges;
        if (!sc__grow(&q, &mz->edges_cap, mz->nedges + 1, sizeof *mz->edges))
            return sc__error_nomem(p->err);
        mz->edges = q;
    }
    e = &mz->edges[mz->nedges++];
    e->u = u;
    e->v = v;
    e->rw = rw;
    e->owner = owner;
    e->idx = idx;
    e->alive = true;
    return SC_OK;
}

/* The range sides of symbol i: the declared ones (kept), and the current
 * ones when narrower (droppable). */
static sc_status mz_sym_edges(producer *p, size_t i)
{
    SC__TMP_SAVE(p->env);
    sc_env *env = p->env;
    const sc__env_sym *s = &env->syms[p->mz.syms[i].id];
    const sc_range *r = sc__env_sym_range(env, s);
    mpz_ptr d = sc__tz(env);
    sc_status status = SC_OK;
    int64_t v;

    if (s->decl_lo && sc_expr_value_si(s->decl_lo, &v) && v != INT64_MIN)
        SC_CHECK(mz_add_edge(p, i + 1, 0, -v, MZ_DECL, i));
    if (s->decl_hi && sc_expr_value_si(s->decl_hi, &v))
        SC_CHECK(mz_add_edge(p, 0, i + 1, v, MZ_DECL, i));
    if (!r->lo_inf && mz_get_i64(r->lo, &v) && v != INT64_MIN) {
        if (s->decl_lo)
            sc_expr_value_mpz(s->decl_lo, d);
        if (!s->decl_lo || mpz_cmp(r->lo, d) > 0)
            SC_CHECK(mz_add_edge(p, i + 1, 0, -v, MZ_SYM_LO, i));
    }
    if (!r->hi_inf && mz_get_i64(r->hi, &v)) {
        if (s->decl_hi)
            sc_expr_value_mpz(s->decl_hi, d);
        if (!s->decl_hi || mpz_cmp(r->hi, d) < 0)
            SC_CHECK(mz_add_edge(p, 0, i + 1, v, MZ_SYM_HI, i));
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static void mz_heap_push(mz_state *mz, int64_t d, size_t n)
{
    size_t i = mz->hsize++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (mz->hd[up] <= d)
            break;
        mz->hd[i] = mz->hd[up];
        mz->hn[i] = mz->hn[up];
        i = up;
    }
    mz->hd[i] = d;
    mz->hn[i] = n;
}

static void mz_heap_pop(mz_state *mz, int64_t *d, size_t *n)
{
    int64_t ld;
    size_t ln, i = 0, last;

    *d = mz->hd[0];
    *n = mz->hn[0];
    last = --mz->hsize;
    ld = mz->hd[last];
    ln = mz->hn[last];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= last)
            break;
        if (c + 1 < last && mz->hd[c + 1] < mz->hd[c])
            c++;
        if (mz->hd[c] >= ld)
            break;
        mz->hd[i] = mz->hd[c];
        mz->hn[i] = mz->hn[c];
        i = c;
    }
    mz->hd[i] = ld;
    mz->hn[i] = ln;
}

/* Is there a path src -> dst (dst -> src along the edges when reverse)
 * over the live edges whose reduced length is at most budget?  Any such
 * path answers; the search settles at most limit nodes (false beyond).
 * With dst == SIZE_MAX and no limit: every node's shortest distance from
 * src, in dist[] where done[] == stamp. */
static bool mz_path(mz_state *mz, size_t src, size_t dst, bool reverse,
                    int64_t budget, size_t limit)
{
    const size_t *off = reverse ? mz->in_off : mz->out_off;
    const size_t *adj = reverse ? mz->in_e : mz->out_e;
    size_t settled = 0, cur = ++mz->stamp;

    mz->hsize = 0;
    mz->dist[src] = 0;
    mz->dstamp[src] = cur;
    mz_heap_push(mz, 0, src);
    while (mz->hsize > 0) {
        int64_t d;
        size_t x, k;
        mz_heap_pop(mz, &d, &x);
        if (mz->done[x] == cur || d > mz->dist[x])
            continue;
        if (d > budget)
            return false;
        mz->done[x] = cur;
        if (x == dst)
            return true;
        if (++settled > limit)
            return false;
        for (k = off[x]; k < off[x + 1]; k++) {
            const mz_edge *e = &mz->edges[adj[k]];
            size_t y = reverse ? e->u : e->v;
            int64_t nd;
            if (!e->alive || mz->done[y] == cur ||
                __builtin_add_overflow(d, e->rw, &nd) || nd > budget)
                continue;
            if (y == dst)
                return true;
            if (mz->dstamp[y] == cur && mz->dist[y] <= nd)
                continue;
            mz->dist[y] = nd;
            mz->dstamp[y] = cur;
            mz_heap_push(mz, nd, y);
        }
    }
    return false;
}

static sc_status mz_build_graph(producer *p)
{
    mz_state *mz = &p->mz;
    const size_t nn = mz->nsyms + 1;
    size_t i;

    for (i = 0; i < mz->nsyms; i++)
        SC_TRY(mz_sym_edges(p, i));
    for (i = 0; i < mz->nforms; i++) {
        mz_form *f = &mz->forms[i];
        size_t a, b;
        if (!f->diff)
            continue;
        a = mz->tc[f->toff] == 1 ? mz->tv[f->toff] : mz->tv[f->toff + 1];
        b = mz->tc[f->toff] == 1 ? mz->tv[f->toff + 1] : mz->tv[f->toff];
        /* lo <= x_a - x_b <= hi */
        if (f->lo_ok && f->lo != INT64_MIN)
            SC_TRY(mz_add_edge(p, a + 1, b + 1, -f->lo, MZ_FORM_LO, i));
        if (f->hi_ok)
            SC_TRY(mz_add_edge(p, b + 1, a + 1, f->hi, MZ_FORM_HI, i));
    }
    mz->out_off = sc__calloc(nn + 1, sizeof *mz->out_off);
    mz->in_off = sc__calloc(nn + 1, sizeof *mz->in_off);
    mz->out_e = sc__malloc((mz->nedges + 1) * sizeof *mz->out_e);
    mz->in_e = sc__malloc((mz->nedges + 1) * sizeof *mz->in_e);
    mz->dist = sc__malloc(nn * sizeof *mz->dist);
    mz->dstamp = sc__calloc(nn, sizeof *mz->dstamp);
    mz->done = sc__calloc(nn, sizeof *mz->done);
    mz->hd = sc__malloc((mz->nedges + 1) * sizeof *mz->hd);
    mz->hn = sc__malloc((mz->nedges + 1) * sizeof *mz->hn);
    if (!mz->out_off || !mz->in_off || !mz->out_e || !mz->in_e || !mz->dist ||
        !mz->dstamp || !mz->done || !mz->hd || !mz->hn)
        return sc__error_nomem(p->err);
    for (i = 0; i < mz->nedges; i++) {
        mz->out_off[mz->edges[i].u + 1]++;
        mz->in_off[mz->edges[i].v + 1]++;
    }
    for (i = 0; i < nn; i++) {
        mz->out_off[i + 1] += mz->out_off[i];
        mz->in_off[i + 1] += mz->in_off[i];
    }
    for (i = 0; i < mz->nedges; i++) {
        mz_edge *e = &mz->edges[i];
        /* dist/dstamp double as fill counters here */
        mz->out_e[mz->out_off[e->u] + mz->dstamp[e->u]++] = i;
    }
    memset(mz->dstamp, 0, nn * sizeof *mz->dstamp);
    for (i = 0; i < mz->nedges; i++) {
        mz_edge *e = &mz->edges[i];
        mz->in_e[mz->in_off[e->v] + mz->dstamp[e->v]++] = i;
    }
    memset(mz->dstamp, 0, nn * sizeof *mz->dstamp);
    return SC_OK;
}

/* Drop the order sides implied by the others, from the last to the
 * first (the edges were added symbols first, then forms). */
static void mz_orders(mz_state *mz)
{
    size_t i;

    for (i = mz->nedges; i-- > 0;) {
        mz_edge *e = &mz->edges[i];
        bool implied;
        if (e->owner == MZ_DECL)
            continue;
        e->alive = false;
        implied = e->u != 0
                      ? mz_path(mz, e->u, e->v, false, e->rw, MZ_SEARCH_LIMIT)
                      : mz_path(mz, e->v, e->u, true, e->rw, MZ_SEARCH_LIMIT);
        if (!implied) {
            e->alive = true;
            continue;
        }
        switch (e->owner) {
        case MZ_SYM_LO: mz->syms[e->idx].drop_lo = true; break;
        case MZ_SYM_HI: mz->syms[e->idx].drop_hi = true; break;
        case MZ_FORM_LO: mz->forms[e->idx].drop_lo = true; break;
        default: mz->forms[e->idx].drop_hi = true; break;
        }
    }
}

/* The box: each symbol's range, narrowed by the shortest paths from and
 * to the constant node through the remaining orders (two full searches). */
static void mz_box_side(mz_state *mz, bool hi)
{
    size_t i;

    mz_path(mz, 0, SIZE_MAX, !hi, INT64_MAX, SIZE_MAX);
    for (i = 0; i < mz->nsyms; i++) {
        mz_sym *y = &mz->syms[i];
        int64_t b;
        if (!mz->ordered[i] || mz->done[i + 1] != mz->stamp)
            continue;
        /* reduced d = real + pot(from) - pot(to) */
        if (hi && !__builtin_add_overflow(mz->dist[i + 1], y->hint, &b) &&
            (y->hi_inf || b < y->hi)) {
            y->hi = b;
            y->hi_inf = false;
            y->tight = true;
        }
        if (!hi && !__builtin_sub_overflow(y->hint, mz->dist[i + 1], &b) &&
            (y->lo_inf || b > y->lo)) {
            y->lo = b;
            y->lo_inf = false;
            y->tight = true;
        }
    }
}

static sc_status mz_box(producer *p)
{
    sc_env *env = p->env;
    mz_state *mz = &p->mz;
    bool any = false;
    size_t i;

    mz->ordered = sc__calloc(mz->nsyms + 1, sizeof *mz->ordered);
    if (!mz->ordered)
        return sc__error_nomem(p->err);
    for (i = 0; i < mz->nedges; i++) {
        const mz_edge *e = &mz->edges[i];
        if (e->alive && (e->owner == MZ_FORM_LO || e->owner == MZ_FORM_HI))
            mz->ordered[e->u - 1] = mz->ordered[e->v - 1] = any = true;
    }
    if (!any)
        return SC_OK;
    mz_box_side(mz, true);
    mz_box_side(mz, false);
    any = false;
    for (i = 0; i < mz->nsyms; i++)
        any = any || mz->syms[i].tight;
    if (!any)
        return SC_OK;
    mz->box = sc_bounds_new(env->ctx);
    if (!mz->box)
        return sc__error_nomem(p->err);
    SC_TRY(sc_bounds_copy(mz->box, env->bounds, p->err));
    for (i = 0; i < mz->nsyms; i++) {
        mz_sym *y = &mz->syms[i];
        if (y->tight)
            SC_TRY(sc_bounds_set_si(mz->box, env->syms[y->id].sym, y->lo_inf,
                                    y->lo, y->hi_inf, y->hi, p->err));
    }
    return SC_OK;
}

/* ---- B: bounds on forms, excluded values, disjunctions ---- */

/* Does a symbol of e have a box narrower than its range? */
static bool mz_any_tight(producer *p, const sc_expr *e)
{
    sc_expr *small[16], **syms = small;
    size_t n, i;
    bool any = false;

    if (!p->mz.box)
        return false;
    n = sc_expr_free_symbols(e, small, 16);
    if (n > 16) {
        syms = sc__malloc(n * sizeof *syms);
        if (!syms)
            return false;   /* not asking is always sound */
        sc_expr_free_symbols(e, syms, n);
    }
    for (i = 0; i < n && !any; i++) {
        sc__env_sym *s = sc__env_sym_of(p->env, syms[i]);
        size_t li = s ? p->mz.local[s - p->env->syms] : SIZE_MAX;
        any = li != SIZE_MAX && p->mz.syms[li].tight;
    }
    if (syms != small)
        sc__free(syms);
    return any;
}

static bool mz_row_alive(const mz_form *f, bool hi)
{
    return hi ? f->hi_ok && !f->drop_hi : f->lo_ok && !f->drop_lo;
}

/* Row (form j, side hi): sum a.x <= c, where a is the form's terms
 * (negated for the lower side). */
static int64_t mz_row_bound(const mz_form *f, bool hi)
{
    return hi ? f->hi : -f->lo;
}

/* Is row (f, hi) implied by the box and row (g, ghi) times a_k / b_k
 * (both of the same sign: the coefficients of one symbol cancel)? */
static bool mz_combine(mz_state *mz, const mz_form *f, bool hi,
                       const mz_form *g, bool ghi, int64_t a_k, int64_t b_k)
{
    int64_t sa = hi ? 1 : -1, sb = ghi ? 1 : -1, pm, qm, x, y, lhs, rhs, m;
    int64_t ga = a_k < 0 ? -a_k : a_k, gb = b_k < 0 ? -b_k : b_k, gg;
    size_t i = 0, j = 0, n = 0;

    /* a_k, b_k != INT64_MIN (mz_linear), so ga, gb > 0 */
    x = ga;
    y = gb;
    while (y != 0) {
        int64_t t = x % y;
        x = y;
        y = t;
    }
    gg = x;
    pm = ga / gg;   /* q*a - p*b, with q = |b_k|/g, p = |a_k|/g */
    qm = gb / gg;
    while (i < f->nt || j < g->nt) {
        size_t vi = i < f->nt ? mz->tv[f->toff + i] : SIZE_MAX;
        size_t vj = j < g->nt ? mz->tv[g->toff + j] : SIZE_MAX;
        int64_t ca = 0, cb = 0, c;
        size_t v;
        if (vi <= vj) {
            ca = sa * mz->tc[f->toff + i++];
            v = vi;
        } else {
            v = vj;
        }
        if (vj == v) {
            cb = sb * mz->tc[g->toff + j++];
        }
        if (__builtin_mul_overflow(qm, ca, &ca) ||
            __builtin_mul_overflow(pm, cb, &cb) ||
            __builtin_sub_overflow(ca, cb, &c))
            return false;
        if (c != 0) {
            mz->mv[n] = v;
            mz->mc[n++] = c;
        }
    }
    if (!mz_box_max(mz, mz->mv, mz->mc, n, &m) ||
        __builtin_mul_overflow(qm, mz_row_bound(f, hi), &lhs) ||
        __builtin_mul_overflow(pm, mz_row_bound(g, ghi), &rhs) ||
        __builtin_add_overflow(rhs, m, &rhs))
        return false;
    return rhs <= lhs;
}

/* Is row (f, hi) implied by the box and row (g, ghi), scaled to cancel
 * one of the symbols they share (each is tried)? */
static bool mz_partner(mz_state *mz, const mz_form *f, bool hi,
                       const mz_form *g, bool ghi)
{
    int64_t sa = hi ? 1 : -1, sb = ghi ? 1 : -1;
    size_t i = 0, j = 0;

    while (i < f->nt && j < g->nt) {
        size_t vi = mz->tv[f->toff + i], vj = mz->tv[g->toff + j];
        if (vi < vj) {
            i++;
        } else if (vj < vi) {
            j++;
        } else {
            int64_t a_k = sa * mz->tc[f->toff + i++];
            int64_t b_k = sb * mz->tc[g->toff + j++];
            if ((a_k > 0) == (b_k > 0) &&
                mz_combine(mz, f, hi, g, ghi, a_k, b_k))
                return true;
        }
    }
    return false;
}

/* Is one side of the linear form fi implied by the box (only asked when
 * the box is narrower than the ranges the producer already used), or by
 * the box and one live linear bound sharing a symbol with it? */
static bool mz_linear_implied(mz_state *mz, size_t fi, bool hi, bool tight)
{
    const mz_form *f = &mz->forms[fi];
    int64_t sa = hi ? 1 : -1, m;
    size_t i, k, tried = 0, cur = ++mz->rcur;

    if (tight) {
        for (i = 0; i < f->nt; i++) {
            mz->mv[i] = mz->tv[f->toff + i];
            mz->mc[i] = sa * mz->tc[f->toff + i];
        }
        if (mz_box_max(mz, mz->mv, mz->mc, f->nt, &m) &&
            m <= mz_row_bound(f, hi))
            return true;
    }
    for (i = 0; i < f->nt && tried < MZ_PARTNER_LIMIT; i++) {
        size_t v = mz->tv[f->toff + i];
        for (k = mz->row_off[v]; k < mz->row_off[v + 1] &&
                                 tried < MZ_PARTNER_LIMIT; k++) {
            size_t row = mz->rows[k], gi = row / 2;
            bool ghi = row % 2 == 1;
            if (gi == fi || mz->rstamp[row] == cur ||
                !mz_row_alive(&mz->forms[gi], ghi))
                continue;
            mz->rstamp[row] = cur;
            tried++;
            if (mz_partner(mz, f, hi, &mz->forms[gi], ghi))
                return true;
        }
    }
    return false;
}

static sc_status mz_rows(producer *p)
{
    mz_state *mz = &p->mz;
    size_t i, k, maxnt = 1, *fill;

    mz->row_off = sc__calloc(mz->nsyms + 1, sizeof *mz->row_off);
    mz->rstamp = sc__calloc(2 * mz->nforms + 1, sizeof *mz->rstamp);
    if (!mz->row_off || !mz->rstamp)
        return sc__error_nomem(p->err);
    for (i = 0; i < mz->nforms; i++) {
        mz_form *f = &mz->forms[i];
        int nrows = mz_row_alive(f, false) + mz_row_alive(f, true);
        if (f->nt > maxnt)
            maxnt = f->nt;
        for (k = 0; k < f->nt && nrows > 0; k++)
            mz->row_off[mz->tv[f->toff + k] + 1] += (size_t)nrows;
    }
    for (i = 0; i < mz->nsyms; i++)
        mz->row_off[i + 1] += mz->row_off[i];
    mz->rows = sc__malloc((mz->row_off[mz->nsyms] + 1) * sizeof *mz->rows);
    fill = sc__calloc(mz->nsyms + 1, sizeof *fill);
    if (!mz->rows || !fill || !mz_scratch(p, 2 * maxnt)) {
        sc__free(fill);
        return sc__error_nomem(p->err);
    }
    for (i = 0; i < mz->nforms; i++) {
        mz_form *f = &mz->forms[i];
        int hi;
        for (hi = 0; hi <= 1; hi++) {
            if (!mz_row_alive(f, hi))
                continue;
            for (k = 0; k < f->nt; k++) {
                size_t v = mz->tv[f->toff + k];
                mz->rows[mz->row_off[v] + fill[v]++] = 2 * i + (size_t)hi;
            }
        }
    }
    sc__free(fill);
    return SC_OK;
}

/* A bound side of a non-linear form (or one not fitting int64_t): the
 * box's range of L. */
static sc_status mz_range_implied(producer *p, const sc__env_form *ef,
                                  bool hi, bool *out)
{
    SC__TMP_SAVE(p->env);
    sc_range *r = sc__tr(p->env);
    sc_status status = SC_OK;

    *out = false;
    SC_CHECK(sc_expr_range(p->env->ctx, ef->L, p->mz.box, r, p->err));
    SC_CHECK(sc__env_poly_range(p->env, ef->L, p->mz.box, false, r,
                                p->err));
    *out = hi ? !r->hi_inf && mpz_cmp(r->hi, ef->r.hi) <= 0
              : !r->lo_inf && mpz_cmp(r->lo, ef->r.lo) >= 0;
fail:
    SC__TMP_RESTORE(p->env);
    return status;
}

static sc_status mz_bounds(producer *p)
{
    mz_state *mz = &p->mz;
    size_t i;

    SC_TRY(mz_rows(p));
    for (i = mz->nforms; i-- > 0;) {
        mz_form *f = &mz->forms[i];
        const sc__env_form *ef = &p->env->forms[f->id];
        bool tight, implied;
        int hi;
        if (f->diff || (!f->has_lo && !f->has_hi))
            continue;
        tight = mz_any_tight(p, ef->L);
        for (hi = 1; hi >= 0; hi--) {
            if (!(hi ? f->has_hi : f->has_lo))
                continue;
            implied = false;
            if (f->nt > 0 && (hi ? f->hi_ok : f->lo_ok))
                implied = mz_linear_implied(mz, i, hi, tight);
            else if (tight)
                SC_TRY(mz_range_implied(p, ef, hi, &implied));
            if (implied) {
                if (hi)
                    f->drop_hi = true;
                else
                    f->drop_lo = true;
            }
        }
    }
    return SC_OK;
}

static sc_status mz_excluded(producer *p)
{
    SC__TMP_SAVE(p->env);
    sc_env *env = p->env;
    mz_state *mz = &p->mz;
    sc_status status = SC_OK;
    mpz_ptr v = sc__tz(env), k = sc__tz(env);
    sc_range *r = sc__tr(env);
    size_t i, j;

    for (i = 0; i < mz->nsyms; i++) {
        const mz_sym *y = &mz->syms[i];
        for (j = y->ne_off; j < y->ne_off + y->ne_n; j++) {
            mz_ne *ne = &mz->nes[j];
            int64_t vi;
            sc_expr_value_mpz(ne->v, v);
            if (y->div) {
                sc_expr_value_mpz(y->div, k);
                if (mpz_sgn(k) != 0 && !mpz_divisible_p(v, k))
                    ne->drop = true;
            }
            if (y->tight && mz_get_i64(v, &vi) &&
                ((!y->lo_inf && vi < y->lo) || (!y->hi_inf && vi > y->hi)))
                ne->drop = true;
        }
    }
    for (i = 0; i < mz->nforms; i++) {
        const mz_form *f = &mz->forms[i];
        const sc__env_form *ef = &env->forms[f->id];
        if (f->ne_n == 0 || !mz_any_tight(p, ef->L))
            continue;
        SC_CHECK(sc_expr_range(env->ctx, ef->L, mz->box, r, p->err));
        sc__rng_intersect(r, &ef->r);
        for (j = f->ne_off; j < f->ne_off + f->ne_n; j++) {
            sc_expr_value_mpz(mz->nes[j].v, v);
            if (!sc_range_contains_mpz(r, v))
                mz->nes[j].drop = true;
        }
    }
    for (i = 0; i < mz->nors; i++) {
        sc_expr *sg;
        if (!mz_any_tight(p, mz->ors[i].e))
            continue;
        sg = sc_expr_simplify(env->ctx, mz->ors[i].e, mz->box);
        if (!sg) {
            status = sc__env_ctx_error(env, p->err);
            goto fail;
        }
        mz->ors[i].drop = sc_expr_node_kind(sg) == SC_EXPR_TRUE;
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

/* ---- D: implications between linear lines (the Omega test) ----
 * Every linear line still present is a row sum c*x <= b over the symbols:
 * the range sides (the declared ones, never dropped, and the narrowed
 * ones), the bounds on differences and the bounds on other linear forms
 * (an equality is two rows).  A row is implied by the others when they
 * and its negation sum c*x >= b + 1 have no integer solution, which
 * fm_presolve and the Omega test (guards/omega.c) decide exactly over a
 * subsystem: the lines that
 * share a symbol with the row, the lines that share a symbol with those,
 * the lines between the symbols so taken (FM_MAX_LINES lines and
 * FM_MAX_VARS symbols at most, breadth first, in line order), and the
 * range rows of every symbol they mention.  A smaller subsystem
 * only finds fewer implications.  Arithmetic is on int64_t with overflow
 * checked; an overflow, more than SC__OMEGA_MAX_ROWS rows in a system, the
 * question's budget (guards/omega.h) or a question too
 * large answers "not implied". */

static sc_status fm_add_row(producer *p, int owner, size_t idx,
                            const size_t *v, const int64_t *c, size_t n,
                            bool negate, int64_t b)
{
    mz_state *mz = &p->mz;
    fm_row *r;
    size_t i;

    if (mz->nfrows == mz->frows_cap) {
        void *q = mz->frows;
        if (!sc__grow(&q, &mz->frows_cap, mz->nfrows + 1, sizeof *mz->frows))
            return sc__error_nomem(p->err);
        mz->frows = q;
    }
    if (mz->nft + n > mz->fv_cap || mz->nft + n > mz->fc_cap) {
        void *q = mz->fv, *w = mz->fc;
        if (!sc__grow(&q, &mz->fv_cap, mz->nft + n, sizeof *mz->fv))
            return sc__error_nomem(p->err);
        mz->fv = q;
        if (!sc__grow(&w, &mz->fc_cap, mz->nft + n, sizeof *mz->fc))
            return sc__error_nomem(p->err);
        mz->fc = w;
    }
    r = &mz->frows[mz->nfrows++];
    r->off = mz->nft;
    r->n = n;
    r->b = b;
    r->owner = owner;
    r->idx = idx;
    r->alive = true;
    r->slack_ok = true;
    r->slack = b;
    for (i = 0; i < n; i++) {
        const mz_sym *y = &mz->syms[v[i]];
        int64_t k = negate ? -c[i] : c[i], t;
        mz->fv[mz->nft] = v[i];
        mz->fc[mz->nft++] = k;
        if (!y->hint_ok || __builtin_mul_overflow(k, y->hint, &t) ||
            __builtin_sub_overflow(r->slack, t, &r->slack))
            r->slack_ok = false;
    }
    r->slack_ok = r->slack_ok && r->slack >= 0;
    return SC_OK;
}

/* The rows of the lines present, and each symbol's rows.  *any: is there
 * a bound on a linear form that is not a difference? */
static sc_status fm_build(producer *p, bool *any)
{
    SC__TMP_SAVE(p->env);
    sc_env *env = p->env;
    mz_state *mz = &p->mz;
    sc_status status = SC_OK;
    mpz_ptr d = sc__tz(env);
    const int64_t one = 1;
    size_t i, k, nn;
    int64_t v;

    *any = false;
    for (i = 0; i < mz->nforms; i++) {
        const mz_form *f = &mz->forms[i];
        if (f->nt > 0 && !f->diff &&
            ((f->has_lo && f->lo_ok && !f->drop_lo) ||
             (f->has_hi && f->hi_ok && !f->drop_hi)))
            *any = true;
    }
    if (!*any)
        goto fail;
    for (i = 0; i < mz->nsyms; i++) {
        const mz_sym *y = &mz->syms[i];
        const sc__env_sym *s = &env->syms[y->id];
        const sc_range *r = sc__env_sym_range(env, s);
        if (s->decl_lo && sc_expr_value_si(s->decl_lo, &v) && v != INT64_MIN)
            SC_CHECK(fm_add_row(p, MZ_DECL, i, &i, &one, 1, true, -v));
        if (!y->drop_lo && !r->lo_inf && mz_get_i64(r->lo, &v) &&
            v != INT64_MIN) {
            if (s->decl_lo)
                sc_expr_value_mpz(s->decl_lo, d);
            if (!s->decl_lo || mpz_cmp(r->lo, d) > 0)
                SC_CHECK(fm_add_row(p, MZ_SYM_LO, i, &i, &one, 1, true, -v));
        }
        if (s->decl_hi && sc_expr_value_si(s->decl_hi, &v))
            SC_CHECK(fm_add_row(p, MZ_DECL, i, &i, &one, 1, false, v));
        if (!y->drop_hi && !r->hi_inf && mz_get_i64(r->hi, &v)) {
            if (s->decl_hi)
                sc_expr_value_mpz(s->decl_hi, d);
            if (!s->decl_hi || mpz_cmp(r->hi, d) < 0)
                SC_CHECK(fm_add_row(p, MZ_SYM_HI, i, &i, &one, 1, false, v));
        }
    }
    for (i = 0; i < mz->nforms; i++) {
        const mz_form *f = &mz->forms[i];
        if (f->nt == 0)
            continue;
        if (f->has_lo && f->lo_ok && !f->drop_lo && f->lo != INT64_MIN)
            SC_CHECK(fm_add_row(p, MZ_FORM_LO, i, mz->tv + f->toff,
                                mz->tc + f->toff, f->nt, true, -f->lo));
        if (f->has_hi && f->hi_ok && !f->drop_hi)
            SC_CHECK(fm_add_row(p, MZ_FORM_HI, i, mz->tv + f->toff,
                                mz->tc + f->toff, f->nt, false, f->hi));
    }
    nn = mz->nsyms;
    mz->fsym_off = sc__calloc(nn + 2, sizeof *mz->fsym_off);
    mz->fsym_rows = sc__malloc((mz->nft + 1) * sizeof *mz->fsym_rows);
    mz->fvar = sc__calloc(nn + 1, sizeof *mz->fvar);
    mz->fvstamp = sc__calloc(nn + 1, sizeof *mz->fvstamp);
    mz->frstamp = sc__calloc(mz->nfrows + 1, sizeof *mz->frstamp);
    mz->fsub = sc__malloc((FM_MAX_LINES + 4 * FM_MAX_VARS + 1) *
                          sizeof *mz->fsub);
    mz->fsv = sc__malloc((FM_MAX_VARS + 1) * sizeof *mz->fsv);
    if (!sc__omega_init(&mz->om) || !mz->fsym_off || !mz->fsym_rows ||
        !mz->fvar || !mz->fvstamp || !mz->frstamp || !mz->fsub || !mz->fsv) {
        status = sc__error_nomem(p->err);
        goto fail;
    }
    for (k = 0; k < mz->nft; k++)
        mz->fsym_off[mz->fv[k] + 2]++;
    for (i = 0; i < nn; i++)
        mz->fsym_off[i + 2] += mz->fsym_off[i + 1];
    for (k = 0; k < mz->nfrows; k++) {
        const fm_row *r = &mz->frows[k];
        for (i = 0; i < r->n; i++)
            mz->fsym_rows[mz->fsym_off[mz->fv[r->off + i] + 1]++] = k;
    }
fail:
    SC__TMP_RESTORE(env);
    return status;
}

static bool fm_nondiff(const mz_state *mz, const fm_row *r)
{
    return r->n > 1 && (r->owner == MZ_FORM_LO || r->owner == MZ_FORM_HI) &&
           !mz->forms[r->idx].diff;
}

/* Add the symbols of row k that are new (depth: their distance from the
 * question), unless that makes more than FM_MAX_VARS. */
static bool fm_take_vars(mz_state *mz, size_t k, unsigned char *depth,
                         unsigned char dep)
{
    const fm_row *r = &mz->frows[k];
    size_t i, fresh = 0;

    for (i = 0; i < r->n; i++)
        fresh += mz->fvstamp[mz->fv[r->off + i]] != mz->fcur;
    if (mz->nfsv + fresh > FM_MAX_VARS)
        return false;
    for (i = 0; i < r->n; i++) {
        size_t v = mz->fv[r->off + i];
        if (mz->fvstamp[v] == mz->fcur)
            continue;
        mz->fvstamp[v] = mz->fcur;
        mz->fvar[v] = mz->nfsv;
        depth[mz->nfsv] = dep;
        mz->fsv[mz->nfsv++] = v;
    }
    return true;
}

/* The subsystem of the question "is row k implied?" (described above).
 * Returns whether it has a bound on a non-difference linear form (the
 * question itself included). */
static bool fm_gather(mz_state *mz, size_t k)
{
    const size_t cap = FM_MAX_LINES + 4 * FM_MAX_VARS;
    unsigned char depth[FM_MAX_VARS + 1];
    size_t q, j, i, lines = 0;
    bool mixed = fm_nondiff(mz, &mz->frows[k]);

    mz->fcur++;
    mz->nfsv = mz->nfsub = 0;
    mz->frstamp[k] = mz->fcur;
    if (!fm_take_vars(mz, k, depth, 0))
        return false;
    /* breadth first: the lines of the symbols at depth 0 and 1 (which may
     * bring new symbols), those of the symbols at depth 2 over symbols
     * already taken, and every one-symbol row of a symbol taken */
    for (q = 0; q < mz->nfsv; q++) {
        size_t v = mz->fsv[q];
        for (j = mz->fsym_off[v]; j < mz->fsym_off[v + 1]; j++) {
            size_t ri = mz->fsym_rows[j];
            fm_row *r = &mz->frows[ri];
            if (!r->alive || mz->frstamp[ri] == mz->fcur || mz->nfsub >= cap)
                continue;
            if (r->n > 1) {
                if (lines >= FM_MAX_LINES)
                    continue;
                if (depth[q] >= 2) {
                    for (i = 0; i < r->n; i++)
                        if (mz->fvstamp[mz->fv[r->off + i]] != mz->fcur)
                            break;
                    if (i < r->n)
                        continue;
                } else if (!fm_take_vars(mz, ri, depth,
                                         (unsigned char)(depth[q] + 1))) {
                    continue;
                }
                lines++;
                mixed = mixed || fm_nondiff(mz, r);
            }
            mz->frstamp[ri] = mz->fcur;
            mz->fsub[mz->nfsub++] = ri;
        }
    }
    return mixed;
}

/* The first elimination steps, done in place: a symbol that the
 * question does not mention and that every row of two or more symbols
 * has with the same sign is eliminated by its tightest opposite bound
 * (after normalization a one-symbol row is a bound, and only the tightest
 * of each side is kept), which is the Fourier-Motzkin step for it:
 * x + y <= 9 with y >= 2 becomes x <= 7, and without a lower bound on y
 * the row goes.  0: go on; 1: no solution; 2: give up. */
static int fm_presolve(mz_state *mz, const fm_row *q, int64_t *A,
                       size_t *np, uint32_t *gone)
{
    const size_t nv = mz->nfsv, w = nv + 1;
    uint32_t ask = 0;
    size_t n = *np, i, j, t;
    bool again = true;

    for (t = 0; t < q->n; t++)
        ask |= 1u << mz->fvar[mz->fv[q->off + t]];
    while (again) {
        again = false;
        for (j = 0; j < nv; j++) {
            size_t pos = 0, neg = 0, out;
            bool has_lo = false, has_hi = false;
            int64_t L = 0, U = 0;   /* x_j >= L, x_j <= U */
            if ((ask | *gone) & (1u << j))
                continue;
            for (i = 0; i < n; i++) {
                const int64_t *R = A + i * w;
                size_t nz = 0;
                if (R[j] == 0)
                    continue;
                for (t = 0; t < nv && nz < 2; t++)
                    nz += R[t] != 0;
                if (nz == 2)
                    *(R[j] > 0 ? &pos : &neg) += 1;
                else if (R[j] > 0 && (!has_hi || R[nv] < U)) {
                    U = R[nv];       /* x <= b (normalized: coefficient 1) */
                    has_hi = true;
                } else if (R[j] < 0 && (!has_lo || -R[nv] > L)) {
                    if (R[nv] == INT64_MIN)
                        return 2;
                    L = -R[nv];      /* -x <= b */
                    has_lo = true;
                }
            }
            if (pos > 0 && neg > 0)
                continue;
            if (has_lo && has_hi && L > U)
                return 1;
            /* eliminate x_j: a row a*x_j + rest <= b takes x_j = L when
             * a > 0, x_j = U when a < 0 (rest <= b - a*L is what remains
             * of it); with no such bound the row goes, and so do x_j's
             * own bounds */
            for (i = 0, out = 0; i < n; i++) {
                int64_t *R = A + i * w, d;
                size_t nz = 0;
                if (R[j] != 0) {
                    for (t = 0; t < nv && nz < 2; t++)
                        nz += R[t] != 0;
                    if (nz == 1 || !(R[j] > 0 ? has_lo : has_hi))
                        continue;
                    if (__builtin_mul_overflow(R[j], R[j] > 0 ? L : U, &d) ||
                        __builtin_sub_overflow(R[nv], d, &R[nv]))
                        return 2;
                    R[j] = 0;
                    switch (sc__omega_normalize(R, nv)) {
                    case 1: continue;
                    case 2: return 1;
                    case 3: return 2;
                    default: break;
                    }
                }
                if (out != i)
                    memmove(A + out * w, R, w * sizeof *R);
                out++;
            }
            n = out;
            *gone |= 1u << j;
            again = true;
        }
    }
    *np = n;
    return 0;
}

/* Do the subsystem and the negation of row k have no integer solution?
 * fm_presolve, then the Omega test (sc__omega_run); its "unknown" (a cap or
 * an overflow) answers "not implied". */
static bool fm_implied(mz_state *mz, size_t k)
{
    const size_t nv = mz->nfsv, w = nv + 1;
    sc__omega *c = &mz->om;
    int64_t *A = sc__omega_start(c, nv), row[FM_MAX_VARS + 1];
    size_t n = 0, i, t;
    uint32_t gone = 0;

    for (i = 0; i <= mz->nfsub; i++) {
        const fm_row *r = &mz->frows[i < mz->nfsub ? mz->fsub[i] : k];
        memset(row, 0, w * sizeof *row);
        for (t = 0; t < r->n; t++)
            row[mz->fvar[mz->fv[r->off + t]]] = mz->fc[r->off + t];
        row[nv] = r->b;
        if (i == mz->nfsub) {
            /* sum c*x >= b + 1, i.e. sum -c*x <= -b - 1 */
            if (r->b == INT64_MAX)
                return false;
            for (t = 0; t < nv; t++)
                row[t] = -row[t];
            row[nv] = -(r->b + 1); /* b < INT64_MAX: no overflow, even
                                       for b = INT64_MIN */
        }
        /* the lines' coefficients are coprime already (normal forms) */
        if (!sc__omega_add(c, &n, row))
            return false;
    }
    switch (fm_presolve(mz, &mz->frows[k], A, &n, &gone)) {
    case 1: return true;
    case 2: return false;
    default: break;
    }
    return sc__omega_run(c, nv, A, n) == SC__INT_INFEASIBLE;
}

/* A cheap proof that row k is not implied: from the hints (where every
 * row holds), first move every other symbol as fm_relax says (which only
 * makes rows looser), then move along a direction d over the row's
 * symbols (its own coefficients, or one of its symbols alone) by the
 * largest integer step lambda that keeps every other row true; when the
 * row is then false, that point satisfies every line present but not the
 * row.  (Rows that mention none of the row's symbols stay true.)  false:
 * no such point found. */
static bool fm_witness(mz_state *mz, size_t k)
{
    const fm_row *q = &mz->frows[k];
    /* direction 0: the coefficients; direction 1 + i: sign(c_i) e_i */
    int64_t lambda[FM_MAX_VARS + 1], gain[FM_MAX_VARS + 1], t, slack;
    int64_t dots[FM_MAX_VARS + 1] = {0};
    size_t nd = q->n + 1, i, j, a, dir;

    if (!q->slack_ok || q->n > FM_MAX_VARS)
        return false;
    gain[0] = 0;
    for (i = 0; i < q->n; i++) {
        int64_t c = mz->fc[q->off + i];
        if (__builtin_mul_overflow(c, c, &t) ||
            __builtin_add_overflow(gain[0], t, &gain[0]))
            return false;
        gain[1 + i] = c > 0 ? c : -c;
    }
    for (dir = 0; dir < nd; dir++)
        lambda[dir] = INT64_MAX;
    for (i = 0; i < q->n; i++) {
        size_t v = mz->fv[q->off + i];
        for (j = mz->fsym_off[v]; j < mz->fsym_off[v + 1]; j++) {
            const fm_row *r = &mz->frows[mz->fsym_rows[j]];
            int64_t dot0 = 0;
            size_t ia = 0;
            if (!r->alive || mz->fsym_rows[j] == k)
                continue;
            if (!r->slack_ok)
                return false;
            slack = r->slack;
            /* r . d for every direction (both term lists are sorted); the
             * other symbols moved as fm_relax says */
            for (a = 0; a < r->n; a++) {
                size_t rv = mz->fv[r->off + a];
                int64_t c, rc = mz->fc[r->off + a], dot;
                while (ia < q->n && mz->fv[q->off + ia] < rv)
                    ia++;
                if (ia == q->n || mz->fv[q->off + ia] != rv) {
                    /* x_rv moves by -frelax (its sign as rc's) */
                    if (__builtin_mul_overflow(rc, mz->frelax[rv], &t) ||
                        __builtin_add_overflow(slack, t, &slack))
                        return false;
                    continue;
                }
                c = mz->fc[q->off + ia];
                if (__builtin_mul_overflow(rc, c, &t) ||
                    __builtin_add_overflow(dot0, t, &dot0))
                    return false;
                dot = c > 0 ? rc : -rc;
                dots[1 + ia] = dot;
            }
            for (a = 0; a < q->n; a++) {
                if (dots[1 + a] > 0 && slack / dots[1 + a] < lambda[1 + a])
                    lambda[1 + a] = slack / dots[1 + a];
                dots[1 + a] = 0;
            }
            if (dot0 > 0 && slack / dot0 < lambda[0])
                lambda[0] = slack / dot0;
        }
    }
    /* a.(h + lambda d) = a.h + lambda gain > c, i.e. lambda gain > slack */
    for (dir = 0; dir < nd; dir++)
        if (lambda[dir] > 0 &&
            (__builtin_mul_overflow(lambda[dir], gain[dir], &t) ||
             t > q->slack))
            return true;
    return false;
}

/* frelax[v]: how far symbol v may move from its hint so that every row
 * that has it gets looser: down to its tightest lower bound when every
 * row of two or more symbols has it with a coefficient > 0, up to its
 * upper bound when < 0 (stored negated), else 0.  Rows dropped later only
 * make this more true, and the bounds used stay satisfied when a range
 * side goes back to the declared one (which is looser). */
static void fm_relax(mz_state *mz)
{
    size_t v, j;

    for (v = 0; v < mz->nsyms; v++) {
        const mz_sym *y = &mz->syms[v];
        bool pos = false, neg = false, has_lo = false, has_hi = false;
        int64_t lo = 0, hi = 0, d;
        mz->frelax[v] = 0;
        if (!y->hint_ok)
            continue;
        for (j = mz->fsym_off[v]; j < mz->fsym_off[v + 1]; j++) {
            const fm_row *r = &mz->frows[mz->fsym_rows[j]];
            size_t a;
            if (!r->alive)
                continue;
            for (a = 0; a < r->n && mz->fv[r->off + a] != v; a++)
                ;
            if (r->n > 1) {
                *(mz->fc[r->off + a] > 0 ? &pos : &neg) = true;
            } else if (mz->fc[r->off + a] < 0) {   /* -x <= b */
                if (r->b != INT64_MIN && (!has_lo || -r->b > lo)) {
                    lo = -r->b;
                    has_lo = true;
                }
            } else if (!has_hi || r->b < hi) {
                hi = r->b;
                has_hi = true;
            }
        }
        if (pos && neg)
            continue;
        if (pos && has_lo && !__builtin_sub_overflow(y->hint, lo, &d) && d > 0)
            mz->frelax[v] = d;
        else if (neg && has_hi && !__builtin_sub_overflow(y->hint, hi, &d) &&
                 d < 0)
            mz->frelax[v] = d;
    }
}

/* Drop the linear lines that the others imply: the bounds on
 * non-difference forms from the last to the first, then the bounds on
 * differences, then the narrowed range sides (which go back to the
 * declared ones).  A difference bound or a range side is only asked about
 * when its subsystem has a non-difference line (A decided the rest). */
static sc_status mz_linear_closure(producer *p)
{
    mz_state *mz = &p->mz;
    bool any;
    int pass;
    size_t k;

    SC_TRY(fm_build(p, &any));
    if (!any)
        return SC_OK;
    mz->frelax = sc__malloc((mz->nsyms + 1) * sizeof *mz->frelax);
    if (!mz->frelax)
        return sc__error_nomem(p->err);
    fm_relax(mz);
    for (pass = 0; pass < 3; pass++) {
        for (k = mz->nfrows; k-- > 0;) {
            fm_row *r = &mz->frows[k];
            bool form = r->owner == MZ_FORM_LO || r->owner == MZ_FORM_HI;
            bool mixed;
            if (!r->alive || r->owner == MZ_DECL ||
                (pass == 0) != fm_nondiff(mz, r) ||
                (pass == 1 && !(form && mz->forms[r->idx].diff)) ||
                (pass == 2 && form))
                continue;
            if (fm_witness(mz, k))
                continue;
            r->alive = false;
            mixed = fm_gather(mz, k);
            if (!mixed || mz->nfsv == 0 || !fm_implied(mz, k)) {
                r->alive = true;
                continue;
            }
            switch (r->owner) {
            case MZ_SYM_LO: mz->syms[r->idx].drop_lo = true; break;
            case MZ_SYM_HI: mz->syms[r->idx].drop_hi = true; break;
            case MZ_FORM_LO: mz->forms[r->idx].drop_lo = true; break;
            default: mz->forms[r->idx].drop_hi = true; break;
            }
        }
    }
    return SC_OK;
}

sc_status sc__minimal_decide(producer *p)
{
    SC_TRY(mz_collect_syms(p));
    SC_TRY(mz_collect_divs(p));
    SC_TRY(mz_collect_forms(p));
    SC_TRY(mz_collect_ors(p));
    SC_TRY(mz_build_graph(p));
    mz_orders(&p->mz);
    SC_TRY(mz_box(p));
    SC_TRY(mz_bounds(p));
    SC_TRY(mz_excluded(p));
    return mz_linear_closure(p);
}

/* symcut — partitioner phase 4: which nodes run in which graph, the
 * forward and backward graphs built through the graph builder, and the
 * totals (saved bytes, trivial partition, recompute FLOPs). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph-view.h"
#include "graph/ops.h"
#include "partition/partition-internal.h"

/* Scratch marks, reusing the place byte of canonical call nodes would be
 * confusing: use a separate array.  M_BAD: an argument is not valid. */
enum { M_VALID = 1, M_NEEDED = 2, M_BAD = 4 };

typedef struct walk {
    sc_partition *p;
    uint8_t *mark;
    bool all_valid;
    uint8_t bit;
    sc_node_id bad; /* first invalid argument */
} walk;

static void check_valid(sc_node_id id, void *u)
{
    walk *w = u;
    sc_node_id r = w->p->nodes[id].rep;
    if (!(w->mark[r] & M_VALID)) {
        if (w->all_valid)
            w->bad = r;
        w->all_valid = false;
    }
}

static void visit_args(const sc_partition *p, sc_node_id id,
                       sc__node_visit_fn fn, void *u)
{
    sc__partition_visit_args(p, id, fn, u);
}

/* The passes below go over the users of the CSE'd joint (p->uoff,
 * p->users: a compact index, read in order) rather than over the
 * arguments of the joint's nodes (scattered in its arena): a node is
 * needed when a user that propagates is (its users come after it, so a
 * backward pass sees them decided), invalid when an argument is (pushed
 * forward to its users). */

/* Does canonical node i have a user u with (mark[u] & want) == want? */
static bool some_user(const sc_partition *p, size_t i, const uint8_t *mark,
                      uint8_t want)
{
    size_t k;
    for (k = p->uoff[i]; k < p->uoff[i + 1]; k++)
        if ((mark[p->users[k]] & want) == want)
            return true;
    return false;
}

static void remove_unused_saved(sc__idlist *l, sc__pnode *nodes,
                                const uint8_t *mark)
{
    size_t i, k = 0;
    for (i = 0; i < l->n; i++) {
        if (mark[l->ids[i]] & M_NEEDED)
            l->ids[k++] = l->ids[i];
        else
            nodes[l->ids[i]].flags &=
                (uint16_t)~(SC__PN_SAVED | SC__PN_BW_INPUT);
    }
    l->n = k;
}

/* torch 2.13 keeps the impure calls its dead-code elimination keeps: in
 * the forward the required-forward ones (need 0); in the backward those
 * that depend on a tangent (need M_VALID).  (torch's
 * reordering_to_mimic_autograd_engine keeps the backward's impure calls
 * from the first user of a tangent on; in a joint whose forward comes
 * first, as AOT's do, these are the same nodes, and this reading does not
 * depend on the order of the nodes.) */
static void mark_impure(const sc_partition *p, uint8_t *mark, uint8_t need)
{
    size_t i;
    for (i = 0; i < p->n; i++) {
        const sc__pnode *pn = &p->nodes[i];
        if (!(pn->flags & SC__PN_CANON) ||
            p->g->nodes[i].kind != SC_NODE_CALL ||
            (need ? (mark[i] & need) != need ||
                        !(pn->cls & SC_PARTITION_TANGENT_CLOSURE)
                  : !(pn->cls & SC_PARTITION_REQUIRED_FW)) ||
            !sc__partition_impure_2_13(
                sc_graph_node_target(p->g, (sc_node_id)i)))
            continue;
        mark[i] |= M_NEEDED;
    }
}

/* The backward's nodes: valid (computable from the saved values and the
 * tangents) and needed by the gradients. */
static sc_status backward_set(sc_partition *p, uint8_t *mark, sc_error *err)
{
    const sc_graph *g = p->g;
    size_t i, k, nout = sc_graph_output_count(g);
    walk w;

    /* M_NEEDED here: needed and not a backward input (it propagates) */
    enum { M_PROP = 8 };

    w.p = p;
    w.mark = mark;
    memset(mark, 0, p->n);
    for (i = 0; i < p->n; i++) {
        sc__pnode *pn = &p->nodes[i];
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (pn->flags & (SC__PN_SAVED | SC__PN_TANGENT)) {
            pn->flags |= SC__PN_BW_INPUT;
            mark[i] |= M_VALID;
            continue;
        }
        pn->flags &= (uint16_t)~SC__PN_BW_INPUT;
        /* torch 2.13's extraction: a node that must be in the forward
         * (a write the partitioner tags do not send to the backward) is
         * never computed by the backward, nor is what depends on it */
        if (!(pn->flags & SC__PN_PRIMAL) && !(mark[i] & M_BAD) &&
            !(p->policy == SC_PARTITION_PYTORCH_2_13 &&
              (pn->ptag & SC__PT_FW))) {
            mark[i] |= M_VALID;
            continue;
        }
        for (k = p->uoff[i]; k < p->uoff[i + 1]; k++)
            mark[p->users[k]] |= M_BAD;
    }
    for (i = p->nfwd_out; i < nout; i++) {
        sc_node_id o = sc_graph_output(g, i);
        if (o != SC_NODE_NONE)
            mark[p->nodes[o].rep] |= M_NEEDED;
    }
    if (p->policy == SC_PARTITION_PYTORCH_2_13)
        mark_impure(p, mark, M_VALID);
    for (i = p->n; i-- > 0;) {
        sc__pnode *pn = &p->nodes[i];
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (!(mark[i] & M_NEEDED) && some_user(p, i, mark, M_PROP))
            mark[i] |= M_NEEDED;
        if (!(mark[i] & M_NEEDED))
            continue;
        if (!(mark[i] & M_VALID)) {
            sc_node_id bad = (sc_node_id)i;
            w.all_valid = true;
            visit_args(p, (sc_node_id)i, check_valid, &w);
            if (!w.all_valid)
                bad = w.bad;
            return sc__error_set(err, SC_ERR_INTERNAL,
                                 "the backward cannot compute %s: %s is "
                                 "neither saved nor recomputable from the "
                                 "saved values",
                                 sc_graph_node_name(g, (sc_node_id)i),
                                 sc_graph_node_name(g, bad));
        }
        if (!(pn->flags & SC__PN_BW_INPUT))
            mark[i] |= M_PROP;
    }
    for (i = 0; i < p->n; i++)
        mark[i] &= M_VALID | M_NEEDED;
    return SC_OK;
}

static void forward_set(sc_partition *p, uint8_t *fmark)
{
    size_t i;
    memset(fmark, 0, p->n);
    for (i = 0; i < p->nfwd_out; i++) {
        sc_node_id o = sc_graph_output(p->g, i);
        if (o != SC_NODE_NONE)
            fmark[p->nodes[o].rep] |= M_NEEDED;
    }
    for (i = 0; i < p->saved_tensors.n; i++)
        fmark[p->saved_tensors.ids[i]] |= M_NEEDED;
    for (i = 0; i < p->saved_symints.n; i++)
        fmark[p->saved_symints.ids[i]] |= M_NEEDED;
    if (p->policy == SC_PARTITION_PYTORCH_2_13)
        mark_impure(p, fmark, 0);
    for (i = p->n; i-- > 0;)
        if ((p->nodes[i].flags & SC__PN_CANON) && !(fmark[i] & M_NEEDED) &&
            some_user(p, i, fmark, M_NEEDED))
            fmark[i] |= M_NEEDED;
}

/* ---- Symbols the backward binds -------------------------------------------
 * The backward graph runs on its inputs alone: every symbol it mentions (in
 * an input's metadata, a node's metadata or a SymInt argument) must be
 * bindable from its inputs: standing alone as a tensor size or a saved
 * SymInt, or solvable from a composite size once the others are bound, as
 * the interpreter solves `c + k*x` (s1 from a tangent f32[s1 - 3], s1 from
 * f32[s0*s1] when s0 is bound); a symbol only the nodes mention may also
 * be the shape environment's replacement of bound ones (the interpreter
 * applies them before running the nodes).  A symbol that is not (a tangent
 * f32[s0*s1] and nothing else) gets a SymInt saved for it, as PyTorch's
 * _extract_fwd_bwd_modules saves a binding sym node for the free symbols
 * of the backward's inputs (PyTorch does so for every free symbol it has a
 * binding placeholder for; symcut only where the backward needs one):
 * a SymInt node of the joint whose value is the symbol when one is
 * computable in the forward, else a new `sym_size.int` of the first
 * primal (then forward value) with the symbol as a dim.  The saved
 * SymInts are then ordered as PyTorch orders them: the binding
 * placeholders first, then the new bindings (by backward input, each
 * input's symbols sorted by name), then the other saved SymInts. */

typedef struct sym_entry {
    sc_expr *sym;      /* the symbol (new bindings), NULL otherwise */
    sc_node_id joint;  /* a joint node, or SC_NODE_NONE: synthesized */
    sc_node_id src;    /* synthesized: sym_size.int(src, dim) */
    size_t dim;
    char name[40];     /* synthesized: its name in both graphs */
} sym_entry;

typedef struct sym_plan {
    sym_entry *e;      /* the saved SymInts in output order */
    size_t n, nsynth;
    size_t nadded;     /* joint nodes saved for a binding */
    size_t nfw_calls, nbw_calls; /* call nodes of the graphs (counted once
                                    placed) */
} sym_plan;

typedef struct sym_set {
    sc_expr **v;
    size_t n, cap;
} sym_set;

static bool set_has(const sym_set *s, const sc_expr *x)
{
    size_t i;
    for (i = 0; i < s->n; i++)
        if (s->v[i] == x)
            return true;
    return false;
}

static bool set_add(sym_set *s, sc_expr *x)
{
    if (set_has(s, x))
        return true;
    if (s->n == s->cap &&
        !sc__grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v))
        return false;
    s->v[s->n++] = x;
    return true;
}

static int by_name(const void *a, const void *b)
{
    const sc_expr *x = *(sc_expr *const *)a, *y = *(sc_expr *const *)b;
    return strcmp(sc_expr_symbol_name(x), sc_expr_symbol_name(y));
}

/* Add the free symbols of e (sorted by name) to need unless bound. */
static bool need_expr(sc_expr *e, const sym_set *bound, sym_set *need)
{
    sc_expr *buf[16], **syms = buf;
    size_t n, i;
    bool ok = true;
    if (!e)
        return true;
    n = sc_expr_free_symbols(e, buf, 16);
    if (n > 16) {
        syms = sc__malloc(n * sizeof *syms);
        if (!syms)
            return false;
        sc_expr_free_symbols(e, syms, n);
    }
    qsort(syms, n, sizeof *syms, by_name);
    for (i = 0; i < n && ok; i++)
        if (!set_has(bound, syms[i]))
            ok = set_add(need, syms[i]);
    if (syms != buf)
        sc__free(syms);
    return ok;
}

/* The symbols of a node's metadata, in one expression per size/stride. */
static bool need_meta(const sc_graph *g, sc_node_id id, const sym_set *bound,
                      sym_set *need)
{
    sc_result r;
    size_t d;
    bool ok = true;
    sc_graph_node_result(g, id, &r);
    if (r.kind == SC_RESULT_SYMINT || r.kind == SC_RESULT_SYMBOOL)
        return need_expr(r.expr, bound, need);
    if (r.kind != SC_RESULT_TENSOR)
        return true;
    for (d = 0; d < r.tensor.ndim && ok; d++) {
        ok = need_expr(r.tensor.sizes[d], bound, need);
        if (ok && r.tensor.has_strides)
            ok = need_expr(r.tensor.strides[d], bound, need);
    }
    return ok;
}

static bool need_value(const sc_value *v, const sym_set *bound,
                       sym_set *need)
{
    size_t i;
    if (v->kind == SC_VALUE_SYMINT)
        return need_expr(v->u.expr, bound, need);
    if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE)
        for (i = 0; i < v->u.list.n; i++)
            if (!need_value(&v->u.list.items[i], bound, need))
                return false;
    return true;
}

/* The symbols a backward input binds: its sizes that are bare symbols,
 * or its value when it is a SymInt equal to a symbol. */
static bool add_bound(const sc_graph *g, sc_node_id id, sym_set *bound)
{
    sc_result r;
    size_t d;
    sc_graph_node_result(g, id, &r);
    if (r.kind == SC_RESULT_SYMINT)
        return !r.expr || !sc_expr_is_symbol(r.expr) ||
               set_add(bound, r.expr);
    if (r.kind != SC_RESULT_TENSOR)
        return true;
    for (d = 0; d < r.tensor.ndim; d++)
        if (sc_expr_is_symbol(r.tensor.sizes[d]) &&
            !set_add(bound, r.tensor.sizes[d]))
            return false;
    return true;
}

/* Can the symbols of e be solved for from e's value once the symbols in
 * bound are known, the way the interpreter binds an input's composite
 * size (kernels/interp.c, solve_for): exactly one unbound symbol x, and e
 * with the others at their hints is x or c + k*x?  *x is that symbol. */
static sc_status solvable(sc_partition *p, sc_expr *e, const sym_set *bound,
                          sc_symmap *vals, sc_expr **x, sc_error *err)
{
    sc_expr *buf[16], *r;
    size_t n, i;
    *x = NULL;
    if (!e)
        return SC_OK;
    n = sc_expr_free_symbols(e, buf, 16);
    if (n > 16)
        return SC_OK;
    for (i = 0; i < n; i++) {
        if (set_has(bound, buf[i]))
            continue;
        if (*x) {
            *x = NULL;
            return SC_OK;
        }
        *x = buf[i];
    }
    if (!*x)
        return SC_OK;
    sc_symmap_clear(vals);
    for (i = 0; i < n; i++) {
        sc_expr *v = buf[i] == *x ? NULL : sc_symmap_get(p->binding, buf[i]);
        if (buf[i] == *x)
            continue;
        if (!v) {
            *x = NULL;
            return SC_OK;
        }
        SC_TRY(sc_symmap_set(vals, buf[i], v, err));
    }
    r = sc_expr_subst(p->ctx, e, vals);
    if (!r) {
        sc_error tmp;
        *x = NULL; /* e.g. a division by zero at the hints: not solvable */
        sc_ctx_take_error(p->ctx, &tmp);
        return tmp.code == SC_ERR_NOMEM ? sc__error_nomem(err) : SC_OK;
    }
    if (!(sc_expr_is_symbol(r) ||
          (sc_expr_node_kind(r) == SC_EXPR_ADD && sc_expr_arg_count(r) == 1 &&
           sc_expr_is_symbol(sc_expr_arg(r, 0)))))
        *x = NULL;
    return SC_OK;
}

/* Grow bound with the symbols the interpreter solves for from the
 * composite sizes of the backward inputs (ids), until nothing moves. */
static sc_status solve_bound(sc_partition *p, const sc__idlist *ids,
                             sym_set *bound, sc_error *err)
{
    sc_symmap *vals = sc_symmap_new(p->ctx);
    bool progress = true;
    sc_status status = SC_OK;
    size_t i, d;
    if (!vals)
        return sc__error_nomem(err);
    while (progress) {
        progress = false;
        for (i = 0; i < ids->n; i++) {
            sc_result r;
            sc_expr *x;
            sc_graph_node_result(p->g, ids->ids[i], &r);
            if (r.kind == SC_RESULT_SYMINT) {
                SC_CHECK(solvable(p, r.expr, bound, vals, &x, err));
                if (x) {
                    progress = true;
                    if (!set_add(bound, x))
                        SC_CHECK(sc__error_nomem(err));
                }
                continue;
            }
            if (r.kind != SC_RESULT_TENSOR)
                continue;
            for (d = 0; d < r.tensor.ndim; d++) {
                SC_CHECK(solvable(p, r.tensor.sizes[d], bound, vals, &x, err));
                if (x) {
                    progress = true;
                    if (!set_add(bound, x))
                        SC_CHECK(sc__error_nomem(err));
                }
            }
        }
    }
fail:
    sc_symmap_free(vals);
    return status;
}

/* Grow bound with the symbols the shape environment replaces by an
 * expression of bound ones (s0 -> s2 after a guard s0 == s2), as the
 * interpreter binds them before running the nodes (check_env). */
static bool replacement_closure(const sc_partition *p, sym_set *bound)
{
    size_t i, k, n = p->env ? sc_env_symbol_count(p->env) : 0;
    bool progress = true;
    while (progress) {
        progress = false;
        for (i = 0; i < n; i++) {
            sc_expr *sym = sc_env_symbol(p->env, i), *buf[16];
            sc_expr *r = sc_env_replacement(p->env, sym);
            size_t nf;
            bool all = true;
            if (!r || r == sym || set_has(bound, sym))
                continue;
            nf = sc_expr_free_symbols(r, buf, 16);
            if (nf > 16)
                continue;
            for (k = 0; k < nf && all; k++)
                all = set_has(bound, buf[k]);
            if (!all)
                continue;
            if (!set_add(bound, sym))
                return false;
            progress = true;
        }
    }
    return true;
}

/* Is node id a binding node in PyTorch's sense (is_symbol_binding_fx_node:
 * a SymInt whose value is a bare symbol, and a placeholder or an unbacked
 * symbol, `u` and a number as PyTorch names them)?  The symbol, or NULL. */
static sc_expr *binding_symbol(const sc_graph *g, sc_node_id id)
{
    sc_result r;
    const char *name;
    sc_graph_node_result(g, id, &r);
    if (r.kind != SC_RESULT_SYMINT || !r.expr || !sc_expr_is_symbol(r.expr))
        return NULL;
    if (sc_graph_node_kind(g, id) == SC_NODE_PLACEHOLDER)
        return r.expr;
    name = sc_expr_symbol_name(r.expr);
    return name && name[0] == 'u' && name[1] >= '0' && name[1] <= '9'
               ? r.expr
               : NULL;
}

static bool binding_placeholder(const sc_graph *g, sc_node_id id)
{
    return binding_symbol(g, id) != NULL;
}

typedef struct fw_ok {
    const sc_partition *p;
    const uint8_t *fmark;
    bool ok;
} fw_ok;

static void check_in_forward(sc_node_id id, void *u)
{
    fw_ok *f = u;
    sc_node_id r = f->p->nodes[id].rep;
    if (r == SC_NODE_NONE ||
        (!(f->p->nodes[r].flags & SC__PN_PRIMAL) && !(f->fmark[r] & M_NEEDED)))
        f->ok = false;
}

/* Where the forward can take symbol sym from: an existing SymInt node of
 * the joint (*joint) whose arguments the forward has anyway, else a
 * tensor dim (*src, *dim) of a primal or of a forward value. */
static bool find_source(const sc_partition *p, const uint8_t *fmark,
                        sc_expr *sym, sc_node_id *joint, sc_node_id *src,
                        size_t *dim)
{
    const sc_graph *g = p->g;
    size_t i, d, pass;
    *joint = *src = SC_NODE_NONE;
    for (i = 0; i < p->n; i++) {
        const sc__pnode *pn = &p->nodes[i];
        sc_result r;
        fw_ok f;
        if (!(pn->flags & SC__PN_CANON) || pn->vkind != SC__PV_SYMINT ||
            (pn->flags & SC__PN_TANGENT) ||
            (pn->cls & SC_PARTITION_TANGENT_CLOSURE))
            continue;
        sc_graph_node_result(g, (sc_node_id)i, &r);
        if (r.kind != SC_RESULT_SYMINT || r.expr != sym)
            continue;
        f.p = p;
        f.fmark = fmark;
        f.ok = true;
        visit_args(p, (sc_node_id)i, check_in_forward, &f);
        if (f.ok) {
            *joint = (sc_node_id)i;
            return true;
        }
    }
    for (pass = 0; pass < 2; pass++)
        for (i = 0; i < p->n; i++) {
            const sc__pnode *pn = &p->nodes[i];
            sc_result r;
            if (!(pn->flags & SC__PN_CANON) || pn->vkind != SC__PV_TENSOR)
                continue;
            if (pass == 0 ? !(pn->flags & SC__PN_PRIMAL)
                          : ((pn->flags & SC__PN_PRIMAL) ||
                             !(fmark[i] & M_NEEDED) ||
                             (pn->cls & SC_PARTITION_TANGENT_CLOSURE)))
                continue;
            sc_graph_node_result(g, (sc_node_id)i, &r);
            for (d = 0; d < r.tensor.ndim; d++)
                if (r.tensor.sizes[d] == sym) {
                    *src = (sc_node_id)i;
                    *dim = d;
                    return true;
                }
        }
    return false;
}

static void synth_name(const sc_partition *p, const sym_plan *pl,
                       char *out, size_t cap)
{
    size_t k, j;
    for (k = 0;; k++) {
        bool taken;
        if (k)
            snprintf(out, cap, "sym_size_%zu", k);
        else
            snprintf(out, cap, "sym_size");
        taken = sc_graph_find(p->g, out) != SC_NODE_NONE;
        for (j = 0; j < pl->n && !taken; j++)
            taken = pl->e[j].joint == SC_NODE_NONE &&
                    strcmp(pl->e[j].name, out) == 0;
        if (!taken)
            return;
    }
}

static bool plan_push(sym_plan *pl, size_t *cap, const sym_entry *e)
{
    if (pl->n == *cap &&
        !sc__grow((void **)&pl->e, cap, pl->n + 1, sizeof *pl->e))
        return false;
    pl->e[pl->n++] = *e;
    return true;
}

/* torch 2.13's rule (_extract_fwd_bwd_modules): for the free symbols of
 * the derived saved SymInts, the saved tensors and the tangents, in that
 * order (each node's symbols sorted by name), that no saved binding node
 * binds, save the joint's first binding node of the symbol (in joint
 * order), whether the backward needs it or not; a symbol without one is
 * left alone.  The added nodes join p->saved_symints after the others,
 * among the binding nodes (plan_bindings orders them). */
static sc_status bind_like_2_13(sc_partition *p, const uint8_t *fmark,
                                size_t nsyms, sc_error *err)
{
    const sc_graph *g = p->g;
    size_t i, k, nph = sc_graph_placeholder_count(g);
    sym_set saved = {NULL, 0, 0}, fresh = {NULL, 0, 0};
    sc_node_id *first = NULL;
    sc_expr **syms = NULL;
    sc__idlist from = {NULL, 0, 0};
    sc_status status = SC_OK;
    bool ok = true;

    (void)nsyms;
    for (i = 0; i < p->saved_symints.n && ok; i++) {
        sc_expr *s = binding_symbol(g, p->saved_symints.ids[i]);
        if (s)
            ok = set_add(&saved, s);
    }
    for (i = 0; i < p->saved_symints.n && ok; i++)
        if (!binding_symbol(g, p->saved_symints.ids[i]))
            ok = sc__idlist_push(&from, p->saved_symints.ids[i]);
    for (i = 0; i < p->saved_tensors.n && ok; i++)
        ok = sc__idlist_push(&from, p->saved_tensors.ids[i]);
    for (i = 0; i < nph && ok; i++)
        if (p->nodes[i].flags & SC__PN_TANGENT)
            ok = sc__idlist_push(&from, (sc_node_id)i);
    if (!ok)
        SC_CHECK(sc__error_nomem(err));
    for (i = 0; i < from.n; i++) {
        fresh.n = 0;
        if (!need_meta(g, from.ids[i], &saved, &fresh))
            SC_CHECK(sc__error_nomem(err));
        if (fresh.n > 1)
            qsort(fresh.v, fresh.n, sizeof *fresh.v, by_name);
        for (k = 0; k < fresh.n; k++) {
            sc_node_id b = SC_NODE_NONE;
            size_t j;
            for (j = 0; j < p->n && b == SC_NODE_NONE; j++)
                if ((p->nodes[j].flags & SC__PN_CANON) &&
                    binding_symbol(g, (sc_node_id)j) == fresh.v[k])
                    b = (sc_node_id)j;
            if (!set_add(&saved, fresh.v[k]))
                SC_CHECK(sc__error_nomem(err));
            if (b == SC_NODE_NONE || (p->nodes[b].flags & SC__PN_SAVED) ||
                (!(p->nodes[b].flags & SC__PN_PRIMAL) && !(fmark[b] & M_NEEDED)))
                continue;
            p->nodes[b].flags |= SC__PN_SAVED | SC__PN_BW_INPUT | SC__PN_BINDING;
            if (!sc__idlist_push(&p->saved_symints, b))
                SC_CHECK(sc__error_nomem(err));
        }
    }
fail:
    sc__idlist_free(&from);
    sc__free(first);
    sc__free(syms);
    sc__free(saved.v);
    sc__free(fresh.v);
    return status;
}

/* The symbols the backward needs and cannot bind, their sources, and the
 * order of the saved SymInts (pl).  Existing joint nodes chosen as
 * sources join p->saved_symints. */
static sc_status plan_bindings(sc_partition *p, const uint8_t *mark,
                               const uint8_t *fmark, size_t nsyms,
                               sym_plan *pl, sc_error *err)
{
    const sc_graph *g = p->g;
    size_t i, k, nph = sc_graph_placeholder_count(g), cap = 0;
    sym_set bound = {NULL, 0, 0}, need = {NULL, 0, 0};
    sym_set bound_all = {NULL, 0, 0};
    sc__idlist ordered = {NULL, 0, 0}, inputs = {NULL, 0, 0};
    sc_status status = SC_OK;
    bool ok = true, scan;
    sym_entry e;

    memset(pl, 0, sizeof *pl);
    for (i = 0; i < p->saved_symints.n && ok; i++)
        ok = add_bound(g, p->saved_symints.ids[i], &bound);
    for (i = 0; i < p->saved_tensors.n && ok; i++)
        ok = add_bound(g, p->saved_tensors.ids[i], &bound);
    for (i = 0; i < nph && ok; i++)
        if (p->nodes[i].flags & SC__PN_TANGENT)
            ok = add_bound(g, (sc_node_id)i, &bound);
    for (i = 0; i < p->saved_symints.n && ok; i++)
        ok = sc__idlist_push(&inputs, p->saved_symints.ids[i]);
    for (i = 0; i < p->saved_tensors.n && ok; i++)
        ok = sc__idlist_push(&inputs, p->saved_tensors.ids[i]);
    for (i = 0; i < nph && ok; i++)
        if (p->nodes[i].flags & SC__PN_TANGENT)
            ok = sc__idlist_push(&inputs, (sc_node_id)i);
    if (!ok)
        SC_CHECK(sc__error_nomem(err));
    if (bound.n < nsyms)
        SC_CHECK(solve_bound(p, &inputs, &bound, err));
    /* PyTorch's order: derived saved SymInts, saved tensors, tangents;
     * then (symcut) the backward's own nodes.  Nothing to look for once
     * every symbol of the graph is bound or needed. */
    scan = bound.n < nsyms;
    for (i = 0; scan && i < p->saved_symints.n && ok; i++)
        if (!binding_placeholder(g, p->saved_symints.ids[i]))
            ok = need_meta(g, p->saved_symints.ids[i], &bound, &need);
    for (i = 0; scan && i < p->saved_tensors.n && ok; i++)
        ok = need_meta(g, p->saved_tensors.ids[i], &bound, &need);
    for (i = 0; scan && i < nph && ok; i++)
        if (p->nodes[i].flags & SC__PN_TANGENT)
            ok = need_meta(g, (sc_node_id)i, &bound, &need);
    /* the nodes' symbols may also come from the environment's
     * replacements, which the interpreter applies once the inputs are
     * bound (an input's own sizes may not) */
    for (i = 0; scan && i < bound.n && ok; i++)
        ok = set_add(&bound_all, bound.v[i]);
    if (scan && ok)
        ok = replacement_closure(p, &bound_all);
    for (i = nph; scan && i < p->n && ok && bound_all.n + need.n < nsyms;
         i++) {
        size_t na, j;
        if (!(p->nodes[i].flags & SC__PN_CANON) || !(mark[i] & M_NEEDED) ||
            (p->nodes[i].flags & SC__PN_BW_INPUT))
            continue;
        /* under pytorch-2.13 a symbol the backward computes itself (a
         * call whose value is the bare symbol, as _local_scalar_dense's
         * unbacked one) is bound (itself included): torch binds only
         * the backward's inputs' symbols */
        if (p->policy == SC_PARTITION_PYTORCH_2_13) {
            sc_result r;
            sc_graph_node_result(g, (sc_node_id)i, &r);
            if (r.kind == SC_RESULT_SYMINT && r.expr &&
                sc_expr_is_symbol(r.expr) && !set_has(&bound_all, r.expr) &&
                !set_has(&need, r.expr))
                ok = set_add(&bound_all, r.expr);
        }
        ok = ok && need_meta(g, (sc_node_id)i, &bound_all, &need);
        na = sc_graph_node_arg_count(g, (sc_node_id)i);
        for (j = 0; j < na && ok; j++)
            ok = need_value(sc_graph_node_arg(g, (sc_node_id)i, j),
                            &bound_all, &need);
    }
    if (!ok)
        SC_CHECK(sc__error_nomem(err));

    for (i = 0; i < p->saved_symints.n; i++)
        if (binding_placeholder(g, p->saved_symints.ids[i])) {
            memset(&e, 0, sizeof e);
            e.joint = p->saved_symints.ids[i];
            if (!plan_push(pl, &cap, &e))
                SC_CHECK(sc__error_nomem(err));
        }
    for (k = 0; k < need.n; k++) {
        memset(&e, 0, sizeof e);
        e.sym = need.v[k];
        if (!find_source(p, fmark, e.sym, &e.joint, &e.src, &e.dim))
            continue; /* nothing in the forward has it: left as it was */
        if (e.joint != SC_NODE_NONE) {
            if (p->nodes[e.joint].flags & SC__PN_SAVED)
                continue;
            p->nodes[e.joint].flags |=
                SC__PN_SAVED | SC__PN_BW_INPUT | SC__PN_BINDING;
            pl->nadded++;
            if (!sc__partition_warn(
                    p, "the backward cannot bind %s from its inputs: %s is "
                       "saved for it",
                    sc_expr_symbol_name(e.sym),
                    sc_graph_node_name(g, e.joint)))
                SC_CHECK(sc__error_nomem(err));
        } else {
            synth_name(p, pl, e.name, sizeof e.name);
            pl->nsynth++;
            if (!sc__partition_warn(
                    p, "the backward cannot bind %s from its inputs: the "
                       "forward saves %s = sym_size(%s, %zu), which the "
                       "joint graph does not have",
                    sc_expr_symbol_name(e.sym), e.name,
                    sc_graph_node_name(g, e.src), e.dim))
                SC_CHECK(sc__error_nomem(err));
        }
        if (!plan_push(pl, &cap, &e))
            SC_CHECK(sc__error_nomem(err));
    }
    for (i = 0; i < p->saved_symints.n; i++)
        if (!binding_placeholder(g, p->saved_symints.ids[i])) {
            memset(&e, 0, sizeof e);
            e.joint = p->saved_symints.ids[i];
            if (!plan_push(pl, &cap, &e))
                SC_CHECK(sc__error_nomem(err));
        }
    for (i = 0; i < pl->n; i++)
        if (pl->e[i].joint != SC_NODE_NONE &&
            !sc__idlist_push(&ordered, pl->e[i].joint))
            SC_CHECK(sc__error_nomem(err));
    sc__idlist_free(&p->saved_symints);
    p->saved_symints = ordered; /* moved: the cleanup below frees nothing */
    ordered.ids = NULL;
    ordered.n = ordered.cap = 0;
fail:
    sc__idlist_free(&ordered);
    sc__idlist_free(&inputs);
    sc__free(bound_all.v);
    sc__free(bound.v);
    sc__free(need.v);
    return status;
}

/* Record the synthesized SymInts of the plan in p->synth. */
static sc_status record_synth(sc_partition *p, const sym_plan *pl,
                              sc_error *err)
{
    size_t i, k = 0;
    sc__synth_binding *rec;

    sc__free(p->synth);
    p->synth = NULL;
    p->nsynth = 0;
    if (pl->nsynth == 0)
        return SC_OK;
    rec = sc__malloc(pl->nsynth * sizeof *rec);
    if (!rec)
        return sc__error_nomem(err);
    for (i = 0; i < pl->n; i++) {
        const sym_entry *e = &pl->e[i];
        if (e->joint != SC_NODE_NONE)
            continue;
        memcpy(rec[k].name, e->name, sizeof rec[k].name);
        rec[k].src = e->src;
        rec[k].dim = e->dim;
        rec[k].sym = e->sym;
        k++;
    }
    p->synth = rec;
    p->nsynth = k;
    return SC_OK;
}

/* ---- Building the graphs --------------------------------------------------- */

typedef struct builder {
    const sc_partition *p;
    sc_node_id *map;   /* joint id -> new id */
    sc_expr **syms; /* the joint's symbols (one scan for both graphs) */
    size_t nsyms;
    const sym_plan *plan; /* the saved SymInts, in order */
    sc_node_id *synth_fw; /* plan entry -> synthesized forward node */
} builder;

/* Copy call node id into ng with its arguments renumbered through map.
 * The node keeps the joint's name, target and metadata, which the joint's
 * builder already validated (names, schema, shape rules): the trusted
 * copy is used. */
static sc_status copy_call(builder *b, sc_graph *ng, sc_node_id id,
                           sc_error *err)
{
    return sc__graph_append_copy_mapped(ng, b->p->g, id, b->map, &b->map[id],
                                        err);
}

/* Node i of the joint is not copied into the graph being built: when CSE
 * folded it into another node, it stands for that one (whose map entry
 * is set, the representative coming first), so that the copies read
 * their arguments' map entries directly. */
static void map_folded(builder *b, size_t i)
{
    sc_node_id r = b->p->nodes[i].rep;
    if (r != SC_NODE_NONE && r != (sc_node_id)i)
        b->map[i] = b->map[r];
}

static sc_status add_input(builder *b, sc_graph *ng, sc_node_id id,
                           sc_role role, sc_error *err)
{
    return sc__graph_append_copy(ng, b->p->g, id, role, NULL, NULL,
                                 &b->map[id], err);
}

static sc_status copy_hints(const sc_partition *p, const builder *b,
                            sc_graph *ng, sc_error *err)
{
    size_t nsym = b->nsyms, i;
    sc_expr **syms = b->syms;
    for (i = 0; i < nsym; i++) {
        int64_t v;
        if (sc_graph_get_hint(p->g, syms[i], &v))
            SC_TRY(sc_graph_set_hint(ng, syms[i], v, err));
    }
    return SC_OK;
}

static sc_graph *new_graph(const sc_partition *p, const builder *b,
                           const char *cls, sc_error *err)
{
    sc_graph *ng = sc_graph_new(p->ctx);
    if (!ng) {
        sc__error_nomem(err);
        return NULL;
    }
    if (sc_graph_env(p->g))
        sc_graph_set_env(ng, sc_graph_env(p->g));
    if (sc_graph_set_class_name(ng, cls, err) != SC_OK ||
        copy_hints(p, b, ng, err) != SC_OK) {
        sc_graph_free(ng);
        return NULL;
    }
    return ng;
}

static sc_status build_forward(sc_partition *p, builder *b, sc_error *err)
{
    const sc_graph *g = p->g;
    size_t i, nph = sc_graph_placeholder_count(g), nout = 0;
    sc_node_id *outs;
    sc_graph *ng;
    sc_status status;

    ng = new_graph(p, b, "forward_fn", err);
    if (!ng)
        return err ? err->code : SC_ERR_NOMEM;
    outs = sc__malloc((p->nfwd_out + p->saved_tensors.n + b->plan->n + 1) *
                      sizeof *outs);
    if (!outs) {
        sc_graph_free(ng);
        return sc__error_nomem(err);
    }
    SC_CHECK(sc__graph_reserve(ng, sc_graph_primal_count(g) +
                                       b->plan->nfw_calls + b->plan->nsynth,
                               err));
    for (i = 0; i < nph; i++) {
        if (!(p->nodes[i].flags & SC__PN_PRIMAL))
            continue;
        SC_CHECK(add_input(b, ng, (sc_node_id)i, SC_ROLE_PRIMAL, err));
    }
    for (i = nph; i < p->n; i++) {
        if (!(p->nodes[i].flags & SC__PN_IN_FW)) {
            map_folded(b, i);
            continue;
        }
        SC_CHECK(copy_call(b, ng, (sc_node_id)i, err));
    }
    for (i = 0; i < b->plan->n; i++) {
        const sym_entry *e = &b->plan->e[i];
        sc_value a[2];
        sc_result m;
        if (e->joint != SC_NODE_NONE)
            continue;
        a[0] = sc_value_node(b->map[e->src]);
        a[1] = sc_value_int((int64_t)e->dim);
        sc_result_init(&m);
        m.kind = SC_RESULT_SYMINT;
        m.expr = e->sym;
        SC_CHECK(sc_graph_add_call(ng, e->name, "torch.ops.aten.sym_size.int",
                                   2, a, 0, NULL, NULL, &m, &b->synth_fw[i],
                                   err));
    }
    for (i = 0; i < p->nfwd_out; i++) {
        sc_node_id o = sc_graph_output(g, i);
        outs[nout++] = o == SC_NODE_NONE ? SC_NODE_NONE
                                         : b->map[p->nodes[o].rep];
    }
    for (i = 0; i < p->saved_tensors.n; i++)
        outs[nout++] = b->map[p->saved_tensors.ids[i]];
    for (i = 0; i < b->plan->n; i++) {
        const sym_entry *e = &b->plan->e[i];
        outs[nout++] = e->joint != SC_NODE_NONE ? b->map[e->joint]
                                                : b->synth_fw[i];
    }
    SC_CHECK(sc_graph_set_outputs(ng, nout, outs, nout, err));
    SC_CHECK(sc_graph_finish(ng, err));
    sc__free(outs);
    p->fw = ng;
    return SC_OK;
fail:
    sc__free(outs);
    sc_graph_free(ng);
    return status;
}

static sc_status build_backward(sc_partition *p, builder *b, sc_error *err)
{
    const sc_graph *g = p->g;
    size_t i, nph = sc_graph_placeholder_count(g), nout = 0;
    size_t ntotal = sc_graph_output_count(g);
    sc_node_id *outs;
    sc_graph *ng;
    sc_status status;

    ng = new_graph(p, b, "backward_fn", err);
    if (!ng)
        return err ? err->code : SC_ERR_NOMEM;
    outs = sc__malloc((ntotal + 1) * sizeof *outs);
    if (!outs) {
        sc_graph_free(ng);
        return sc__error_nomem(err);
    }
    SC_CHECK(sc__graph_reserve(ng, b->plan->n + p->saved_tensors.n +
                                       sc_graph_tangent_count(g) +
                                       b->plan->nbw_calls,
                               err));
    for (i = 0; i < b->plan->n; i++) {
        const sym_entry *e = &b->plan->e[i];
        sc_result m;
        if (e->joint != SC_NODE_NONE) {
            SC_CHECK(add_input(b, ng, e->joint, SC_ROLE_PRIMAL, err));
        } else {
            sc_result_init(&m);
            m.kind = SC_RESULT_SYMINT;
            m.expr = e->sym;
            SC_CHECK(sc_graph_add_placeholder(ng, e->name, SC_ROLE_PRIMAL,
                                              &m, NULL, err));
        }
    }
    for (i = 0; i < p->saved_tensors.n; i++) {
        SC_CHECK(add_input(b, ng, p->saved_tensors.ids[i], SC_ROLE_PRIMAL,
                           err));
    }
    for (i = 0; i < nph; i++) {
        if (!(p->nodes[i].flags & SC__PN_TANGENT))
            continue;
        SC_CHECK(add_input(b, ng, (sc_node_id)i, SC_ROLE_TANGENT, err));
    }
    for (i = nph; i < p->n; i++) {
        if (!(p->nodes[i].flags & SC__PN_IN_BW)) {
            map_folded(b, i);
            continue;
        }
        SC_CHECK(copy_call(b, ng, (sc_node_id)i, err));
    }
    for (i = p->nfwd_out; i < ntotal; i++) {
        sc_node_id o = sc_graph_output(g, i);
        outs[nout++] = o == SC_NODE_NONE ? SC_NODE_NONE
                                         : b->map[p->nodes[o].rep];
    }
    SC_CHECK(sc_graph_set_outputs(ng, nout, outs, 0, err));
    SC_CHECK(sc_graph_finish(ng, err));
    sc__free(outs);
    p->bw = ng;
    return SC_OK;
fail:
    sc__free(outs);
    sc_graph_free(ng);
    return status;
}

static sc_status build_graphs(sc_partition *p, const sym_plan *plan,
                              sc_expr **syms, size_t nsyms, sc_error *err)
{
    builder b;
    sc_status status = SC_OK;
    memset(&b, 0, sizeof b);
    b.p = p;
    b.plan = plan;
    b.map = sc__malloc((p->n ? p->n : 1) * sizeof *b.map);
    sc__prefault(b.map, p->n * sizeof *b.map);
    b.synth_fw = sc__malloc((plan->n ? plan->n : 1) * sizeof *b.synth_fw);
    if (!b.map || !b.synth_fw)
        SC_CHECK(sc__error_nomem(err));
    b.syms = syms;
    b.nsyms = nsyms;
    SC_CHECK(build_forward(p, &b, err));
    SC_CHECK(build_backward(p, &b, err));
fail:
    sc__free(b.map);
    sc__free(b.synth_fw);
    return status;
}

/* ---- Totals --------------------------------------------------------------- */

/* The bytes of the tensors of l at the hints and as one expression:
 * constant terms summed exactly in int64 (when they fit), the others
 * added in one n-ary sum (linear in the number of terms, where adding
 * one term at a time re-normalizes a growing sum). */
static sc_status sum_bytes(sc_partition *p, const sc__idlist *l,
                           int64_t *bytes, sc_expr **expr, sc_error *err)
{
    size_t i, k = 0;
    sc_expr *e, **terms;
    int64_t s = 0, c = 0;
    terms = sc__malloc((l->n ? l->n : 1) * sizeof *terms);
    if (!terms)
        return sc__error_nomem(err);
    for (i = 0; i < l->n; i++) {
        const sc__pnode *pn = &p->nodes[l->ids[i]];
        int64_t v, sum;
        if (pn->vkind != SC__PV_TENSOR)
            continue;
        s += pn->bytes;
        if (sc_expr_value_si(pn->bytes_expr, &v) &&
            !__builtin_add_overflow(c, v, &sum)) {
            c = sum;
            continue;
        }
        terms[k++] = pn->bytes_expr;
    }
    e = k ? sc_expr_add_n(p->ctx, k, terms) : sc_expr_int_si(p->ctx, 0);
    if (e && c)
        e = sc_expr_add_si(p->ctx, e, c);
    sc__free(terms);
    if (!e)
        return sc_ctx_take_error(p->ctx, err);
    *bytes = s;
    *expr = e;
    return SC_OK;
}

/* The trivial partition (1.13's default_partition, which runs on the joint
 * graph before CSE): every forward value the backward reads is saved.
 * T_LIVE: alive (the pull passes below set it). */
enum { T_F = 1, T_B = 2, T_SAVE = 4, T_LIVE = 8 };

static void mark_t_f(sc_node_id id, void *u)
{
    uint8_t *m = u;
    m[id] |= T_F;
}

static void mark_t_b(sc_node_id id, void *u)
{
    uint8_t *m = u;
    m[id] |= T_B;
}

/* The marks by pushing along the joint's arguments (a graph without a
 * users index). */
static void trivial_push(sc_partition *p, uint8_t *m)
{
    const sc_graph *g = p->g;
    size_t i, k, nu;

    for (i = p->n; i-- > 0;) {
        const sc__pnode *pn = &p->nodes[i];
        if (pn->rep == SC_NODE_NONE)
            continue;
        if (pn->flags & SC__PN_PRIMAL) {
            m[i] |= T_F;
            continue;
        }
        if (p->nodes[pn->rep].cls & SC_PARTITION_TANGENT_CLOSURE)
            m[i] &= (uint8_t)~T_F;
        if (m[i] & T_F)
            visit_args(p, (sc_node_id)i, mark_t_f, m);
    }
    for (i = p->nfwd_out; i < sc_graph_output_count(g); i++) {
        sc_node_id o = sc_graph_output(g, i);
        if (o != SC_NODE_NONE) {
            m[o] |= T_B;
            if (m[o] & T_F)
                m[o] |= T_SAVE;
        }
    }
    for (i = p->n; i-- > 0;)
        if (p->nodes[i].rep != SC_NODE_NONE && (m[i] & T_B) &&
            !(m[i] & T_F))
            visit_args(p, (sc_node_id)i, mark_t_b, m);
    for (i = 0; i < p->n; i++) {
        const sc_node_id *us;
        if (!(m[i] & T_F) || p->nodes[i].rep == SC_NODE_NONE)
            continue;
        us = sc_graph_node_users(g, (sc_node_id)i, &nu);
        for (k = 0; k < nu; k++)
            if ((m[us[k]] & T_B) && !(m[us[k]] & T_F) &&
                p->nodes[us[k]].rep != SC_NODE_NONE)
                m[i] |= T_SAVE;
    }
}

/* Has node i of the joint a user u with (m[u] & (want | not)) == want? */
static bool joint_user(const sc_graph *g, size_t i, const uint8_t *m,
                       uint8_t want, uint8_t not)
{
    uint32_t k;
    for (k = g->user_off[i]; k < g->user_off[i + 1]; k++)
        if ((m[g->users[k]] & (want | not)) == want)
            return true;
    return false;
}

/* The same marks by pulling from the users (the joint's users index, read
 * in order, instead of its nodes' arguments): a node's users come after
 * it, so a backward pass sees them final.  A value reaches T_F when a
 * live user is T_F, T_B when a live user is T_B and not T_F (and is then
 * saved when it is T_F). */
static void trivial_pull(sc_partition *p, uint8_t *m)
{
    const sc_graph *g = p->g;
    size_t i, nout = sc_graph_output_count(g);

    for (i = p->n; i-- > 0;) {
        const sc__pnode *pn = &p->nodes[i];
        if (pn->rep == SC_NODE_NONE)
            continue;
        m[i] |= T_LIVE;
        if (pn->flags & SC__PN_PRIMAL) {
            m[i] |= T_F;
            continue;
        }
        if (!(m[i] & T_F) && joint_user(g, i, m, T_LIVE | T_F, 0))
            m[i] |= T_F;
        if (p->nodes[pn->rep].cls & SC_PARTITION_TANGENT_CLOSURE)
            m[i] &= (uint8_t)~T_F;
    }
    for (i = p->nfwd_out; i < nout; i++) {
        sc_node_id o = sc_graph_output(g, i);
        if (o != SC_NODE_NONE) {
            m[o] |= T_B;
            if (m[o] & T_F)
                m[o] |= T_SAVE;
        }
    }
    for (i = p->n; i-- > 0;) {
        if (!(m[i] & T_LIVE) ||
            !joint_user(g, i, m, T_LIVE | T_B, T_F))
            continue;
        m[i] |= T_B;
        if (m[i] & T_F)
            m[i] |= T_SAVE;
    }
}

static sc_status trivial(sc_partition *p, uint8_t *m, sc_error *err)
{
    const sc_graph *g = p->g;
    size_t i, k, nu;
    sc__idlist l = {NULL, 0, 0};
    sc_status status = SC_OK;

    memset(m, 0, p->n);
    for (i = 0; i < p->nfwd_out; i++) {
        sc_node_id o = sc_graph_output(g, i);
        if (o != SC_NODE_NONE)
            m[o] |= T_F;
    }
    if (g->users_valid)
        trivial_pull(p, m);
    else
        trivial_push(p, m);
    for (i = 0; i < p->n; i++) {
        const sc__pnode *pn;
        const sc_node_id *us;
        if (!(m[i] & T_SAVE))
            continue;
        pn = &p->nodes[p->nodes[i].rep];
        if (pn->vkind != SC__PV_TUPLE) {
            if (!sc__idlist_push(&l, p->nodes[i].rep))
                SC_CHECK(sc__error_nomem(err));
            continue;
        }
        us = sc_graph_node_users(g, (sc_node_id)i, &nu);
        for (k = 0; k < nu; k++)
            if ((m[us[k]] & T_B) && !(m[us[k]] & T_F) &&
                !sc__idlist_push(&l, p->nodes[us[k]].rep))
                SC_CHECK(sc__error_nomem(err));
    }
    SC_CHECK(sum_bytes(p, &l, &p->trivial_bytes, &p->trivial_expr, err));
fail:
    sc__idlist_free(&l);
    return status;
}

static bool arg_size(sc_partition *p, sc_node_id id, size_t arg, size_t dim,
                     int64_t *out)
{
    const sc_value *v;
    sc_result r;
    if (arg >= sc_graph_node_arg_count(p->g, id))
        return false;
    v = sc_graph_node_arg(p->g, id, arg);
    if (v->kind != SC_VALUE_NODE)
        return false;
    sc_graph_node_result(p->g, v->u.node, &r);
    if (r.kind != SC_RESULT_TENSOR || dim >= r.tensor.ndim)
        return false;
    return sc__partition_eval(p, r.tensor.sizes[dim], out, NULL) == SC_OK;
}

static bool arg_numel(sc_partition *p, sc_node_id id, size_t arg,
                      int64_t *out)
{
    const sc_value *v;
    const sc__pnode *pn;
    sc_result r;
    if (arg >= sc_graph_node_arg_count(p->g, id))
        return false;
    v = sc_graph_node_arg(p->g, id, arg);
    if (v->kind != SC_VALUE_NODE)
        return false;
    pn = &p->nodes[p->nodes[v->u.node].rep];
    if (pn->vkind != SC__PV_TENSOR)
        return false;
    sc_graph_node_result(p->g, v->u.node, &r);
    *out = pn->bytes / (int64_t)sc_dtype_itemsize(r.tensor.dtype);
    return true;
}

/* FLOPs of one node at the hints from the op table's formula name. */
static bool node_flops(sc_partition *p, sc_node_id id, int64_t *out)
{
    int op = sc__graph_node_op(p->g, id);
    const sc__pnode *pn = &p->nodes[id];
    int64_t n, m, k, b;
    sc_result r;
    if (op < 0)
        return false;
    switch (sc__op_get((sc__op)op)->flops) {
    case SC_FLOPS_ELEMENTWISE:
        if (pn->vkind != SC__PV_TENSOR)
            return false;
        sc_graph_node_result(p->g, id, &r);
        *out = pn->bytes / (int64_t)sc_dtype_itemsize(r.tensor.dtype);
        return true;
    case SC_FLOPS_REDUCTION:
        return arg_numel(p, id, 0, out);
    case SC_FLOPS_NORMALIZATION:
        if (!arg_numel(p, id, 0, &n))
            return false;
        *out = 5 * n;
        return true;
    case SC_FLOPS_MM:
        if (!arg_size(p, id, 0, 0, &n) || !arg_size(p, id, 0, 1, &k) ||
            !arg_size(p, id, 1, 1, &m))
            return false;
        *out = 2 * n * k * m;
        return true;
    case SC_FLOPS_ADDMM:
        if (!arg_size(p, id, 1, 0, &n) || !arg_size(p, id, 1, 1, &k) ||
            !arg_size(p, id, 2, 1, &m))
            return false;
        *out = 2 * n * k * m + n * m;
        return true;
    case SC_FLOPS_BMM:
        if (!arg_size(p, id, 0, 0, &b) || !arg_size(p, id, 0, 1, &n) ||
            !arg_size(p, id, 0, 2, &k) || !arg_size(p, id, 1, 2, &m))
            return false;
        *out = 2 * b * n * k * m;
        return true;
    default:
        return false;
    }
}

/* ---- Placement ------------------------------------------------------------ */

sc_status sc__partition_extract(sc_partition *p, sc_error *err)
{
    uint8_t *mark = NULL, *fmark = NULL;
    size_t i, nsyms;
    sc_expr **syms = NULL;
    sc_status status = SC_OK;
    sym_plan plan;

    memset(&plan, 0, sizeof plan);
    mark = sc__malloc(p->n ? p->n : 1);
    fmark = sc__malloc(p->n ? p->n : 1);
    /* the joint's symbols, in one scan (the context's symbol count bounds
     * the graph's) */
    nsyms = sc_ctx_symbol_count(p->ctx);
    syms = sc__malloc((nsyms ? nsyms : 1) * sizeof *syms);
    if (!mark || !fmark || !syms)
        SC_CHECK(sc__error_nomem(err));
    sc__prefault(mark, p->n);
    sc__prefault(fmark, p->n);
    nsyms = sc_graph_symbols(p->g, syms, nsyms);
    SC_CHECK(backward_set(p, mark, err));
    remove_unused_saved(&p->saved_tensors, p->nodes, mark);
    remove_unused_saved(&p->saved_symints, p->nodes, mark);
    forward_set(p, fmark);
    if (p->policy == SC_PARTITION_PYTORCH_2_13) {
        SC_CHECK(bind_like_2_13(p, fmark, nsyms, err));
        forward_set(p, fmark);
    }
    SC_CHECK(plan_bindings(p, mark, fmark, nsyms, &plan, err));
    SC_CHECK(record_synth(p, &plan, err));
    if (plan.nadded)
        forward_set(p, fmark);

    for (i = 0; i < p->n; i++) {
        sc__pnode *pn = &p->nodes[i];
        bool call = p->g->nodes[i].kind == SC_NODE_CALL;
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (call && (fmark[i] & M_NEEDED)) {
            pn->flags |= SC__PN_IN_FW;
            plan.nfw_calls++;
        }
        if (call && (mark[i] & M_NEEDED) && !(pn->flags & SC__PN_BW_INPUT)) {
            pn->flags |= SC__PN_IN_BW;
            plan.nbw_calls++;
        }
        if (pn->flags & SC__PN_SAVED)
            pn->place = SC_PARTITION_PLACE_SAVED;
        else if (pn->flags & SC__PN_PRIMAL)
            pn->place = SC_PARTITION_PLACE_FORWARD;
        else if (pn->flags & SC__PN_TANGENT)
            pn->place = SC_PARTITION_PLACE_BACKWARD;
        else if ((pn->flags & SC__PN_IN_FW) && (pn->flags & SC__PN_IN_BW))
            pn->place = SC_PARTITION_PLACE_RECOMPUTED;
        else if (pn->flags & SC__PN_IN_FW)
            pn->place = SC_PARTITION_PLACE_FORWARD;
        else if (pn->flags & SC__PN_IN_BW)
            pn->place = SC_PARTITION_PLACE_BACKWARD;
        else
            pn->place = SC_PARTITION_PLACE_UNUSED;
        /* functionalize_rng_ops rewrites a random op tagged to
         * recompute that is in both of torch's graphs: the forward, and
         * the backward as its extraction leaves it (an impure op stays
         * wherever its inputs are, needed or not) */
        if ((pn->flags & SC__PN_IN_FW) && (mark[i] & M_VALID) &&
            !(pn->flags & SC__PN_BW_INPUT) &&
            p->policy == SC_PARTITION_PYTORCH_2_13 &&
            (pn->tag == SC_PARTITION_TAG_MUST_RECOMPUTE ||
             pn->tag == SC_PARTITION_TAG_PREFER_RECOMPUTE) &&
            sc__partition_seeded_2_13(
                sc_graph_node_target(p->g, (sc_node_id)i)))
            p->nrng++;
        if (pn->place == SC_PARTITION_PLACE_RECOMPUTED) {
            int64_t f;
            if (!sc__idlist_push(&p->recomputed, (sc_node_id)i))
                SC_CHECK(sc__error_nomem(err));
            if (node_flops(p, (sc_node_id)i, &f))
                p->flops += f;
            else
                p->flops_unknown++;
        }
    }
    SC_CHECK(sum_bytes(p, &p->saved_tensors, &p->saved_bytes, &p->saved_expr,
                       err));
    SC_CHECK(trivial(p, fmark, err));
    if (!(p->flags & SC_PARTITION_NO_GRAPHS))
        SC_CHECK(build_graphs(p, &plan, syms, nsyms, err));
fail:
    sc__free(syms);
    sc__free(plan.e);
    sc__free(mark);
    sc__free(fmark);
    return status;
}

size_t sc__partition_rng_functionalized(const sc_partition *p)
{
    return p->nrng;
}

/* symcut — partitioner phase 4: which nodes run in which graph, the
 * forward and backward graphs built through the graph builder, and the
 * totals (saved bytes, trivial partition, recompute FLOPs). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "graph/graph-internal.h"
#include "graph/ops.h"
#include "partition/partition-internal.h"

/* Scratch marks, reusing the place byte of canonical call nodes would be
 * confusing: use a separate array. */
enum { M_VALID = 1, M_NEEDED = 2 };

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

static void set_bit(sc_node_id id, void *u)
{
    walk *w = u;
    w->mark[w->p->nodes[id].rep] |= w->bit;
}

static void visit_args(const sc_partition *p, sc_node_id id,
                       sc__node_visit_fn fn, void *u)
{
    size_t j, na;
    if (sc_graph_node_kind(p->g, id) != SC_NODE_CALL)
        return;
    na = sc_graph_node_num_args(p->g, id);
    for (j = 0; j < na; j++)
        sc__value_visit_nodes(sc_graph_node_arg(p->g, id, j), fn, u);
}

static void remove_unused_saved(sc__idlist *l, sc__pnode *nodes,
                                const uint8_t *mark)
{
    size_t i, k = 0;
    for (i = 0; i < l->n; i++) {
        if (mark[l->ids[i]] & M_NEEDED)
            l->ids[k++] = l->ids[i];
        else
            nodes[l->ids[i]].flags &= (uint16_t)~SC__PN_SAVED;
    }
    l->n = k;
}

/* The backward's nodes: valid (computable from the saved values and the
 * tangents) and needed by the gradients. */
static sc_status backward_set(sc_partition *p, uint8_t *mark, sc_error *err)
{
    const sc_graph *g = p->g;
    size_t i, nout = sc_graph_num_outputs(g);
    walk w;

    w.p = p;
    w.mark = mark;
    for (i = 0; i < p->n; i++) {
        sc__pnode *pn = &p->nodes[i];
        mark[i] = 0;
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (pn->flags & (SC__PN_SAVED | SC__PN_TANGENT)) {
            pn->flags |= SC__PN_BW_INPUT;
            mark[i] = M_VALID;
            continue;
        }
        pn->flags &= (uint16_t)~SC__PN_BW_INPUT;
        if (pn->flags & SC__PN_PRIMAL)
            continue;
        w.all_valid = true;
        visit_args(p, (sc_node_id)i, check_valid, &w);
        if (w.all_valid)
            mark[i] = M_VALID;
    }
    for (i = p->nfwd_out; i < nout; i++) {
        sc_node_id o = sc_graph_output(g, i);
        if (o != SC_NODE_NONE)
            mark[p->nodes[o].rep] |= M_NEEDED;
    }
    w.bit = M_NEEDED;
    for (i = p->n; i-- > 0;) {
        sc__pnode *pn = &p->nodes[i];
        if (!(pn->flags & SC__PN_CANON) || !(mark[i] & M_NEEDED))
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
            visit_args(p, (sc_node_id)i, set_bit, &w);
    }
    return SC_OK;
}

static void forward_set(sc_partition *p, uint8_t *fmark)
{
    size_t i;
    walk w;
    w.p = p;
    w.mark = fmark;
    w.bit = M_NEEDED;
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
    for (i = p->n; i-- > 0;)
        if ((p->nodes[i].flags & SC__PN_CANON) && (fmark[i] & M_NEEDED))
            visit_args(p, (sc_node_id)i, set_bit, &w);
}

/* ---- Building the graphs --------------------------------------------------- */

typedef struct builder {
    const sc_partition *p;
    sc_node_id *map;   /* joint id -> new id */
    sc__arena scratch;
    sc_expr **syms; /* the joint's symbols (one scan for both graphs) */
    size_t nsyms;
} builder;

static bool remap(builder *b, const sc_value *v, sc_value *out)
{
    size_t i;
    *out = *v;
    if (v->kind == SC_VALUE_NODE) {
        out->u.node = b->map[b->p->nodes[v->u.node].rep];
    } else if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE) {
        sc_value *items;
        if (v->u.list.n == 0)
            return true;
        items = sc__arena_alloc(&b->scratch, v->u.list.n * sizeof *items);
        if (!items)
            return false;
        for (i = 0; i < v->u.list.n; i++)
            if (!remap(b, &v->u.list.items[i], &items[i]))
                return false;
        out->u.list.items = items;
    }
    return true;
}

/* Copy call node id into ng with its arguments remapped.  The node keeps
 * the joint's name, target and metadata, which the joint's builder already
 * validated (names, schema, shape rules): the trusted copy is used. */
static sc_status copy_call(builder *b, sc_graph *ng, sc_node_id id,
                           sc_error *err)
{
    const sc_graph *g = b->p->g;
    size_t na = sc_graph_node_num_args(g, id);
    size_t npos = sc_graph_node_num_positional(g, id), i;
    sc_value *vals = NULL;
    const char **kws = NULL;
    sc_status status;

    if (na) {
        vals = sc__arena_alloc(&ng->arena, na * sizeof *vals);
        if (!vals)
            return sc__error_nomem(err);
    }
    if (na > npos) {
        kws = sc__arena_alloc(&ng->arena, (na - npos) * sizeof *kws);
        if (!kws)
            return sc__error_nomem(err);
    }
    for (i = 0; i < na; i++) {
        const sc_value *v = sc_graph_node_arg(g, id, i);
        if (v->kind == SC_VALUE_NODE) {
            vals[i] = *v;
            vals[i].u.node = b->map[b->p->nodes[v->u.node].rep];
        } else {
            sc_value tmp;
            if (!remap(b, v, &tmp))
                return sc__error_nomem(err);
            status = sc__graph_copy_value(ng, &tmp, &vals[i], 0, err);
            if (status != SC_OK)
                return status;
        }
        if (i >= npos) {
            const char *kw = sc_graph_node_kwname(g, id, i);
            kws[i - npos] = sc__arena_strdup(&ng->arena, kw, strlen(kw));
            if (!kws[i - npos])
                return sc__error_nomem(err);
        }
    }
    return sc__graph_append_copy(ng, g, id, SC_ROLE_NONE, vals, kws,
                                 &b->map[id], err);
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
    size_t nsym = b->nsyms, i, k;
    sc_expr **syms = b->syms;
    sc_status status = SC_OK;
    for (i = 0; i < nsym && status == SC_OK; i++) {
        int64_t v;
        bool have = sc_graph_get_hint(p->g, syms[i], &v);
        for (k = 0; p->opts && k < p->opts->nhints; k++)
            if (p->opts->hint_symbols[k] == syms[i]) {
                v = p->opts->hint_values[k];
                have = true;
            }
        if (have)
            status = sc_graph_set_hint(ng, syms[i], v, err);
    }
    return status;
}

/* The number of nodes in [from, to) with flag set. */
static size_t count_flagged(const sc_partition *p, unsigned flag,
                            size_t from, size_t to)
{
    size_t i, n = 0;
    for (i = from; i < to; i++)
        n += (p->nodes[i].flags & flag) != 0;
    return n;
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
    size_t i, nph = sc_graph_num_placeholders(g), nout = 0;
    sc_node_id *outs;
    sc_graph *ng;
    sc_status status;

    ng = new_graph(p, b, "forward_fn", err);
    if (!ng)
        return err ? err->code : SC_ERR_NOMEM;
    outs = sc__malloc((p->nfwd_out + p->saved_tensors.n +
                       p->saved_symints.n + 1) * sizeof *outs);
    if (!outs) {
        sc_graph_free(ng);
        return sc__error_nomem(err);
    }
    status = sc__graph_reserve(ng, count_flagged(p, SC__PN_PRIMAL, 0, nph) +
                                       count_flagged(p, SC__PN_IN_FW, nph,
                                                     p->n),
                               err);
    if (status != SC_OK)
        goto fail;
    for (i = 0; i < nph; i++) {
        if (!(p->nodes[i].flags & SC__PN_PRIMAL))
            continue;
        status = add_input(b, ng, (sc_node_id)i, SC_ROLE_PRIMAL, err);
        if (status != SC_OK)
            goto fail;
    }
    for (i = nph; i < p->n; i++) {
        if (!(p->nodes[i].flags & SC__PN_IN_FW))
            continue;
        status = copy_call(b, ng, (sc_node_id)i, err);
        if (status != SC_OK)
            goto fail;
    }
    for (i = 0; i < p->nfwd_out; i++) {
        sc_node_id o = sc_graph_output(g, i);
        outs[nout++] = o == SC_NODE_NONE ? SC_NODE_NONE
                                         : b->map[p->nodes[o].rep];
    }
    for (i = 0; i < p->saved_tensors.n; i++)
        outs[nout++] = b->map[p->saved_tensors.ids[i]];
    for (i = 0; i < p->saved_symints.n; i++)
        outs[nout++] = b->map[p->saved_symints.ids[i]];
    status = sc_graph_set_outputs(ng, nout, outs, nout, err);
    if (status != SC_OK)
        goto fail;
    status = sc_graph_finish(ng, err);
    if (status != SC_OK)
        goto fail;
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
    size_t i, nph = sc_graph_num_placeholders(g), nout = 0;
    size_t ntotal = sc_graph_num_outputs(g);
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
    status = sc__graph_reserve(ng, p->saved_symints.n + p->saved_tensors.n +
                                       count_flagged(p, SC__PN_TANGENT, 0,
                                                     nph) +
                                       count_flagged(p, SC__PN_IN_BW, nph,
                                                     p->n),
                               err);
    if (status != SC_OK)
        goto fail;
    for (i = 0; i < p->saved_symints.n; i++) {
        status = add_input(b, ng, p->saved_symints.ids[i], SC_ROLE_PRIMAL,
                           err);
        if (status != SC_OK)
            goto fail;
    }
    for (i = 0; i < p->saved_tensors.n; i++) {
        status = add_input(b, ng, p->saved_tensors.ids[i], SC_ROLE_PRIMAL,
                           err);
        if (status != SC_OK)
            goto fail;
    }
    for (i = 0; i < nph; i++) {
        if (!(p->nodes[i].flags & SC__PN_TANGENT))
            continue;
        status = add_input(b, ng, (sc_node_id)i, SC_ROLE_TANGENT, err);
        if (status != SC_OK)
            goto fail;
    }
    for (i = nph; i < p->n; i++) {
        if (!(p->nodes[i].flags & SC__PN_IN_BW))
            continue;
        status = copy_call(b, ng, (sc_node_id)i, err);
        if (status != SC_OK)
            goto fail;
    }
    for (i = p->nfwd_out; i < ntotal; i++) {
        sc_node_id o = sc_graph_output(g, i);
        outs[nout++] = o == SC_NODE_NONE ? SC_NODE_NONE
                                         : b->map[p->nodes[o].rep];
    }
    status = sc_graph_set_outputs(ng, nout, outs, 0, err);
    if (status != SC_OK)
        goto fail;
    status = sc_graph_finish(ng, err);
    if (status != SC_OK)
        goto fail;
    sc__free(outs);
    p->bw = ng;
    return SC_OK;
fail:
    sc__free(outs);
    sc_graph_free(ng);
    return status;
}

static sc_status build_graphs(sc_partition *p, sc_error *err)
{
    builder b;
    sc_status status;
    memset(&b, 0, sizeof b);
    b.p = p;
    b.map = sc__malloc((p->n ? p->n : 1) * sizeof *b.map);
    if (!b.map)
        return sc__error_nomem(err);
    sc__arena_init(&b.scratch);
    /* one scan: the context's symbol count bounds the graph's */
    b.nsyms = sc_ctx_symbol_count(sc_graph_ctx(p->g));
    if (b.nsyms) {
        b.syms = sc__malloc(b.nsyms * sizeof *b.syms);
        if (!b.syms) {
            sc__free(b.map);
            return sc__error_nomem(err);
        }
        b.nsyms = sc_graph_symbols(p->g, b.syms, b.nsyms);
    }
    status = build_forward(p, &b, err);
    if (status == SC_OK)
        status = build_backward(p, &b, err);
    sc__arena_destroy(&b.scratch);
    sc__free(b.syms);
    sc__free(b.map);
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
        if (sc_expr_get_si(pn->bytes_expr, &v) &&
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
 * graph before CSE): every forward value the backward reads is saved. */
enum { T_F = 1, T_B = 2, T_SAVE = 4 };

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

static sc_status trivial(sc_partition *p, uint8_t *m, sc_error *err)
{
    const sc_graph *g = p->g;
    size_t i, k, nu, nout = sc_graph_num_outputs(g);
    sc__idlist l = {NULL, 0, 0};
    sc_status status;

    memset(m, 0, p->n);
    for (i = 0; i < p->nfwd_out; i++) {
        sc_node_id o = sc_graph_output(g, i);
        if (o != SC_NODE_NONE)
            m[o] |= T_F;
    }
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
    for (i = p->nfwd_out; i < nout; i++) {
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
    for (i = 0; i < p->n; i++) {
        const sc__pnode *pn;
        const sc_node_id *us;
        if (!(m[i] & T_SAVE))
            continue;
        pn = &p->nodes[p->nodes[i].rep];
        if (pn->vkind != SC__PV_TUPLE) {
            if (!sc__idlist_push(&l, p->nodes[i].rep))
                goto nomem;
            continue;
        }
        us = sc_graph_node_users(g, (sc_node_id)i, &nu);
        for (k = 0; k < nu; k++)
            if ((m[us[k]] & T_B) && !(m[us[k]] & T_F) &&
                !sc__idlist_push(&l, p->nodes[us[k]].rep))
                goto nomem;
    }
    status = sum_bytes(p, &l, &p->trivial_bytes, &p->trivial_expr, err);
    sc__idlist_free(&l);
    return status;
nomem:
    sc__idlist_free(&l);
    return sc__error_nomem(err);
}

static bool arg_size(sc_partition *p, sc_node_id id, size_t arg, size_t dim,
                     int64_t *out)
{
    const sc_value *v;
    sc_result r;
    if (arg >= sc_graph_node_num_args(p->g, id))
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
    if (arg >= sc_graph_node_num_args(p->g, id))
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
    int op = sc_graph_node_op(p->g, id);
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
    size_t i;
    sc_status status;

    mark = sc__malloc(p->n ? p->n : 1);
    fmark = sc__malloc(p->n ? p->n : 1);
    if (!mark || !fmark) {
        status = sc__error_nomem(err);
        goto done;
    }
    status = backward_set(p, mark, err);
    if (status != SC_OK)
        goto done;
    remove_unused_saved(&p->saved_tensors, p->nodes, mark);
    remove_unused_saved(&p->saved_symints, p->nodes, mark);
    forward_set(p, fmark);

    for (i = 0; i < p->n; i++) {
        sc__pnode *pn = &p->nodes[i];
        bool call = sc_graph_node_kind(p->g, (sc_node_id)i) == SC_NODE_CALL;
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (call && (fmark[i] & M_NEEDED))
            pn->flags |= SC__PN_IN_FW;
        if (call && (mark[i] & M_NEEDED) && !(pn->flags & SC__PN_BW_INPUT))
            pn->flags |= SC__PN_IN_BW;
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
        if (pn->place == SC_PARTITION_PLACE_RECOMPUTED) {
            int64_t f;
            if (!sc__idlist_push(&p->recomputed, (sc_node_id)i)) {
                status = sc__error_nomem(err);
                goto done;
            }
            if (node_flops(p, (sc_node_id)i, &f))
                p->flops += f;
            else
                p->flops_unknown++;
        }
    }
    status = sum_bytes(p, &p->saved_tensors, &p->saved_bytes, &p->saved_expr,
                       err);
    if (status != SC_OK)
        goto done;
    status = trivial(p, fmark, err);
    if (status != SC_OK)
        goto done;
    if (!(p->flags & SC_PARTITION_NO_GRAPHS))
        status = build_graphs(p, err);
done:
    sc__free(mark);
    sc__free(fmark);
    return status;
}

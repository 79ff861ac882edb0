/* symcut — partitioner phase 0: dead-code elimination, common-subexpression
 * elimination, the users of the folded graph, and every node's size in
 * bytes at the hints. */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/guards.h>

#include "graph/ops.h"
#include "partition/partition-internal.h"

/* ---- Values ------------------------------------------------------------- */

void sc__value_visit_nodes(const sc_value *v, sc__node_visit_fn fn,
                           void *user)
{
    size_t i;
    if (v->kind == SC_VALUE_NODE)
        fn(v->u.node, user);
    else if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE)
        for (i = 0; i < v->u.list.n; i++)
            sc__value_visit_nodes(&v->u.list.items[i], fn, user);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
    while (*s)
        h = mix(h, (unsigned char)*s++);
    return mix(h, 0);
}

static uint64_t hash_value(const sc__pnode *pn, const sc_value *v)
{
    uint64_t h = (uint64_t)v->kind + 1;
    size_t i;
    switch (v->kind) {
    case SC_VALUE_NONE:
        break;
    case SC_VALUE_NODE:
        h = mix(h, (uint64_t)pn[v->u.node].rep);
        break;
    case SC_VALUE_INT:
        h = mix(h, (uint64_t)v->u.i);
        break;
    case SC_VALUE_SYMINT:
        h = mix(h, sc_expr_hash(v->u.expr));
        break;
    case SC_VALUE_FLOAT: {
        double d = v->u.f.value == 0.0 ? 0.0 : v->u.f.value;
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        h = mix(h, bits);
        break;
    }
    case SC_VALUE_BOOL:
        h = mix(h, v->u.b);
        break;
    case SC_VALUE_STRING:
        h = hash_str(h, v->u.str);
        break;
    case SC_VALUE_DTYPE:
        h = mix(h, (uint64_t)v->u.dtype);
        break;
    case SC_VALUE_DEVICE:
        h = mix(mix(h, (uint64_t)v->u.device.type),
                (uint64_t)(int64_t)v->u.device.index);
        break;
    case SC_VALUE_LAYOUT:
        h = mix(h, (uint64_t)v->u.layout);
        break;
    case SC_VALUE_MEMORY_FORMAT:
        h = mix(h, (uint64_t)v->u.memory_format);
        break;
    case SC_VALUE_LIST:
    case SC_VALUE_TUPLE:
        for (i = 0; i < v->u.list.n; i++)
            h = mix(h, hash_value(pn, &v->u.list.items[i]));
        break;
    }
    return h;
}

static bool value_equal(const sc__pnode *pn, const sc_value *a,
                        const sc_value *b)
{
    size_t i;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case SC_VALUE_NONE:
        return true;
    case SC_VALUE_NODE:
        return pn[a->u.node].rep == pn[b->u.node].rep;
    case SC_VALUE_INT:
        return a->u.i == b->u.i;
    case SC_VALUE_SYMINT:
        return a->u.expr == b->u.expr;
    case SC_VALUE_FLOAT:
        return a->u.f.value == b->u.f.value;
    case SC_VALUE_BOOL:
        return a->u.b == b->u.b;
    case SC_VALUE_STRING:
        return strcmp(a->u.str, b->u.str) == 0;
    case SC_VALUE_DTYPE:
        return a->u.dtype == b->u.dtype;
    case SC_VALUE_DEVICE:
        return a->u.device.type == b->u.device.type &&
               a->u.device.index == b->u.device.index;
    case SC_VALUE_LAYOUT:
        return a->u.layout == b->u.layout;
    case SC_VALUE_MEMORY_FORMAT:
        return a->u.memory_format == b->u.memory_format;
    case SC_VALUE_LIST:
    case SC_VALUE_TUPLE:
        if (a->u.list.n != b->u.list.n)
            return false;
        for (i = 0; i < a->u.list.n; i++)
            if (!value_equal(pn, &a->u.list.items[i], &b->u.list.items[i]))
                return false;
        return true;
    }
    return false;
}

/* ---- DCE ------------------------------------------------------------------ */

static void mark_alive(sc_node_id id, void *user)
{
    sc__pnode *pn = user;
    pn[id].flags |= SC__PN_ALIVE;
}

static void dead_code(sc_partition *p)
{
    const sc_graph *g = p->g;
    size_t i, j, nout = sc_graph_num_outputs(g);
    size_t nph = sc_graph_num_placeholders(g);

    for (i = 0; i < nout; i++) {
        sc_node_id o = sc_graph_output(g, i);
        if (o != SC_NODE_NONE)
            p->nodes[o].flags |= SC__PN_ALIVE;
    }
    for (i = 0; i < nph; i++)
        p->nodes[i].flags |= SC__PN_ALIVE;
    for (i = p->n; i-- > nph;) {
        size_t na;
        if (!(p->nodes[i].flags & SC__PN_ALIVE))
            continue;
        na = sc_graph_node_num_args(g, (sc_node_id)i);
        for (j = 0; j < na; j++)
            sc__value_visit_nodes(sc_graph_node_arg(g, (sc_node_id)i, j),
                                  mark_alive, p->nodes);
    }
    for (i = 0; i < p->n; i++) {
        if (p->nodes[i].flags & SC__PN_ALIVE) {
            p->nodes[i].rep = (sc_node_id)i;
        } else {
            p->nodes[i].rep = SC_NODE_NONE;
            p->nodes[i].place = SC_PARTITION_PLACE_DEAD;
            p->ndead++;
        }
    }
}

/* ---- CSE ------------------------------------------------------------------ */

/* Does the op write into an argument (in-place or `mutates:`)?  Unknown
 * ops: an overload packet whose name ends in '_'. */
static bool node_mutates(const sc_graph *g, sc_node_id id)
{
    int op = sc_graph_node_op(g, id);
    if (op >= 0) {
        const sc__op_info *info = sc__op_get((sc__op)op);
        return info->nmutates > 0 || info->is_inplace;
    }
    if (op == SC_OP_UNKNOWN) {
        const char *t = sc_graph_node_target(g, id), *dot;
        if (!t)
            return false;
        dot = strrchr(t, '.');
        return dot && dot > t && dot[-1] == '_' &&
               strncmp(t, "torch.ops.", 10) == 0;
    }
    return false;
}

static bool node_random(const sc_graph *g, sc_node_id id)
{
    int op = sc_graph_node_op(g, id);
    if (op >= 0) {
        const sc__op_info *info = sc__op_get((sc__op)op);
        return info->cls == SC_CLASS_RANDOM || info->functorch_random;
    }
    return false;
}

/* May node id be merged with an equal earlier node? */
static bool cse_candidate(const sc_graph *g, sc_node_id id)
{
    const sc_node_id *us;
    size_t nu, k;
    if (node_random(g, id) || node_mutates(g, id))
        return false;
    /* A value an op writes into must stay distinct (two empty_like buffers
     * filled by bernoulli_). */
    us = sc_graph_node_users(g, id, &nu);
    for (k = 0; k < nu; k++)
        if (node_mutates(g, us[k]))
            return false;
    return true;
}

static uint64_t hash_node(const sc_partition *p, sc_node_id id)
{
    const sc_graph *g = p->g;
    size_t i, na = sc_graph_node_num_args(g, id);
    /* targets are interned in the graph: equal strings, equal pointers */
    uint64_t h = mix(0x51ed, (uint64_t)(uintptr_t)sc_graph_node_target(g, id));
    h = mix(h, sc_graph_node_num_positional(g, id));
    for (i = 0; i < na; i++) {
        const char *kw = sc_graph_node_kwname(g, id, i);
        if (kw)
            h = hash_str(h, kw);
        h = mix(h, hash_value(p->nodes, sc_graph_node_arg(g, id, i)));
    }
    return h;
}

static bool node_equal(const sc_partition *p, sc_node_id a, sc_node_id b)
{
    const sc_graph *g = p->g;
    size_t i, na = sc_graph_node_num_args(g, a);
    if (sc_graph_node_target(g, a) != sc_graph_node_target(g, b) ||
        na != sc_graph_node_num_args(g, b) ||
        sc_graph_node_num_positional(g, a) !=
            sc_graph_node_num_positional(g, b))
        return false;
    for (i = 0; i < na; i++) {
        const char *ka = sc_graph_node_kwname(g, a, i);
        const char *kb = sc_graph_node_kwname(g, b, i);
        if ((ka == NULL) != (kb == NULL) || (ka && strcmp(ka, kb) != 0))
            return false;
        if (!value_equal(p->nodes, sc_graph_node_arg(g, a, i),
                         sc_graph_node_arg(g, b, i)))
            return false;
    }
    return true;
}

/* One slot of the CSE table: the node and 32 bits of its hash, compared
 * before node_equal (one cache line holds both). */
typedef struct cse_slot {
    sc_node_id id;
    uint32_t hash;
} cse_slot;

static sc_status cse(sc_partition *p, sc_error *err)
{
    const sc_graph *g = p->g;
    size_t nph = sc_graph_num_placeholders(g), i, cap = 16;
    cse_slot *table;

    while (cap < (p->n - nph) + (p->n - nph) / 2 + 2)
        cap *= 2;
    table = sc__malloc(cap * sizeof *table);
    if (!table)
        return sc__error_nomem(err);
    for (i = 0; i < cap; i++)
        table[i].id = SC_NODE_NONE;
    for (i = nph; i < p->n; i++) {
        sc_node_id id = (sc_node_id)i;
        size_t slot;
        uint64_t h;
        uint32_t h32;
        if (!(p->nodes[i].flags & SC__PN_ALIVE) || !cse_candidate(g, id))
            continue;
        h = hash_node(p, id);
        h32 = (uint32_t)(h >> 32);
        slot = (size_t)(h ^ (h >> 29)) & (cap - 1);
        while (table[slot].id != SC_NODE_NONE) {
            if (table[slot].hash == h32 && node_equal(p, table[slot].id, id))
                break;
            slot = (slot + 1) & (cap - 1);
        }
        if (table[slot].id == SC_NODE_NONE) {
            table[slot].id = id;
            table[slot].hash = h32;
        } else {
            p->nodes[i].rep = table[slot].id;
            p->nodes[i].place = SC_PARTITION_PLACE_FOLDED;
            p->nfolded++;
        }
    }
    sc__free(table);
    return SC_OK;
}

/* ---- Users of the folded graph ------------------------------------------ */

typedef struct users_ctx {
    sc_partition *p;
    sc_node_id user;
    sc_node_id *stamp; /* last user recorded per node */
    bool fill;
} users_ctx;

static void add_user(sc_node_id arg, void *u)
{
    users_ctx *c = u;
    sc_node_id r = c->p->nodes[arg].rep;
    if (c->stamp[r] == c->user)
        return;
    c->stamp[r] = c->user;
    if (c->fill)
        c->p->users[c->p->uoff[r]++] = c->user;
    else
        c->p->uoff[r + 1]++;
}

static sc_status build_users(sc_partition *p, sc_error *err)
{
    const sc_graph *g = p->g;
    size_t i, j, pass, nph = sc_graph_num_placeholders(g);
    users_ctx c;

    p->uoff = sc__calloc(p->n + 2, sizeof *p->uoff);
    c.stamp = sc__malloc((p->n ? p->n : 1) * sizeof *c.stamp);
    if (!p->uoff || !c.stamp) {
        sc__free(c.stamp);
        return sc__error_nomem(err);
    }
    c.p = p;
    for (pass = 0; pass < 2; pass++) {
        c.fill = pass == 1;
        for (i = 0; i < p->n; i++)
            c.stamp[i] = SC_NODE_NONE;
        if (pass == 1) {
            for (i = 0; i < p->n; i++)
                p->uoff[i + 1] += p->uoff[i];
            p->users = sc__malloc((p->uoff[p->n] ? p->uoff[p->n] : 1) *
                                  sizeof *p->users);
            if (!p->users) {
                sc__free(c.stamp);
                return sc__error_nomem(err);
            }
        }
        for (i = nph; i < p->n; i++) {
            size_t na;
            if (!(p->nodes[i].flags & SC__PN_CANON))
                continue;
            c.user = (sc_node_id)i;
            na = sc_graph_node_num_args(g, (sc_node_id)i);
            for (j = 0; j < na; j++)
                sc__value_visit_nodes(sc_graph_node_arg(g, (sc_node_id)i, j),
                                      add_user, &c);
        }
    }
    /* The fill pass advanced uoff[r] to the end of r's range: shift back. */
    for (i = p->n; i > 0; i--)
        p->uoff[i] = p->uoff[i - 1];
    p->uoff[0] = 0;
    sc__free(c.stamp);
    return SC_OK;
}

/* ---- Sizes at the hints ----------------------------------------------------- */

sc_status sc__partition_eval(sc_partition *p, sc_expr *e, int64_t *out,
                             sc_error *err)
{
    if (sc_expr_get_si(e, out))
        return SC_OK;
    return sc_expr_eval_si(p->ctx, e, p->binding, out, err);
}

static sc_status make_binding(sc_partition *p,
                              const sc_partition_options *opts,
                              sc_error *err)
{
    const sc_graph *g = p->g;
    /* one scan of the graph: the context's symbol count bounds the
     * graph's */
    size_t nsym = sc_ctx_symbol_count(sc_graph_ctx(g)), i, k;
    sc_expr **syms = NULL;
    sc_status status = SC_OK;

    p->binding = sc_symmap_new(p->ctx);
    if (!p->binding) /* sc_symmap_new records nothing in the context */
        return sc__error_nomem(err);
    if (nsym == 0)
        return SC_OK;
    syms = sc__malloc(nsym * sizeof *syms);
    if (!syms)
        return sc__error_nomem(err);
    nsym = sc_graph_symbols(g, syms, nsym);
    for (i = 0; i < nsym; i++) {
        int64_t v = 0;
        bool have = false;
        for (k = 0; k < opts->nhints; k++)
            if (opts->hint_symbols[k] == syms[i]) {
                v = opts->hint_values[k];
                have = true;
            }
        if (!have)
            have = sc_graph_get_hint(g, syms[i], &v);
        if (!have) {
            sc_range r;
            bool finite = false;
            sc_range_init(&r);
            if (p->env && sc_env_has_symbol(p->env, syms[i]) &&
                sc_env_range(p->env, syms[i], &r, NULL) == SC_OK &&
                !r.hi_inf && mpz_fits_slong_p(r.hi) &&
                mpz_get_si(r.hi) <= p->unbacked_fallback) {
                v = mpz_get_si(r.hi);
                finite = true;
            }
            sc_range_clear(&r);
            if (!finite)
                v = p->unbacked_fallback;
            if (!sc__partition_warn(
                    p, "%s has no hint: weighed as %lld (%s)",
                    sc_expr_symbol_name(syms[i]), (long long)v,
                    finite ? "the upper end of its range"
                           : "the unbacked fallback")) {
                status = sc__error_nomem(err);
                break;
            }
        }
        status = sc_symmap_set_si(p->binding, syms[i], v, err);
        if (status != SC_OK)
            break;
    }
    sc__free(syms);
    return status;
}

/* A direct-mapped cache of sizes by shape: most nodes share the shape of
 * some earlier node, and the size's expression (interned, so the same
 * pointer either way) and value only depend on the dtype and the interned
 * dimension expressions. */
#define SIZE_CACHE 256
#define SIZE_CACHE_MAXDIM 6

typedef struct size_entry {
    sc_expr *dims[SIZE_CACHE_MAXDIM];
    sc_expr *expr;
    int64_t bytes;
    uint8_t ndim, dtype, used;
} size_entry;

static size_entry *size_lookup(size_entry *cache, const sc_result *r)
{
    uint64_t h = mix(r->tensor.dtype, r->tensor.ndim);
    size_t d;
    for (d = 0; d < r->tensor.ndim; d++)
        h = mix(h, (uint64_t)(uintptr_t)r->tensor.sizes[d]);
    return &cache[(h ^ (h >> 32)) & (SIZE_CACHE - 1)];
}

static bool size_hit(const size_entry *e, const sc_result *r)
{
    size_t d;
    if (!e->used || e->ndim != r->tensor.ndim || e->dtype != r->tensor.dtype)
        return false;
    for (d = 0; d < r->tensor.ndim; d++)
        if (e->dims[d] != r->tensor.sizes[d])
            return false;
    return true;
}

static sc_status node_sizes(sc_partition *p, sc_error *err)
{
    const sc_graph *g = p->g;
    size_t i;
    sc_status status;
    size_entry *cache = sc__calloc(SIZE_CACHE, sizeof *cache);

    if (!cache)
        return sc__error_nomem(err);
    for (i = 0; i < p->n; i++) {
        sc__pnode *pn = &p->nodes[i];
        sc_result r;
        pn->bytes = -1;
        if (!(pn->flags & SC__PN_CANON))
            continue;
        sc_graph_node_result(g, (sc_node_id)i, &r);
        switch (r.kind) {
        case SC_RESULT_TENSOR: {
            size_entry *ce = NULL;
            sc_expr *e;
            size_t d;
            pn->vkind = SC__PV_TENSOR;
            if (r.tensor.ndim <= SIZE_CACHE_MAXDIM) {
                ce = size_lookup(cache, &r);
                if (size_hit(ce, &r)) {
                    pn->bytes_expr = ce->expr;
                    pn->bytes = ce->bytes;
                    break;
                }
            }
            e = sc_expr_int_si(p->ctx,
                               (int64_t)sc_dtype_itemsize(r.tensor.dtype));
            for (d = 0; d < r.tensor.ndim && e; d++)
                e = sc_expr_mul(p->ctx, e, r.tensor.sizes[d]);
            if (!e) {
                sc__free(cache);
                return sc_ctx_take_error(p->ctx, err);
            }
            pn->bytes_expr = e;
            status = sc__partition_eval(p, e, &pn->bytes, err);
            if (status != SC_OK) {
                sc__free(cache);
                return status;
            }
            if (pn->bytes < 0)
                pn->bytes = 0;
            if (ce) {
                for (d = 0; d < r.tensor.ndim; d++)
                    ce->dims[d] = r.tensor.sizes[d];
                ce->ndim = (uint8_t)r.tensor.ndim;
                ce->dtype = (uint8_t)r.tensor.dtype;
                ce->expr = e;
                ce->bytes = pn->bytes;
                ce->used = 1;
            }
            break;
        }
        case SC_RESULT_SYMINT:
        case SC_RESULT_SYMBOOL:
            pn->vkind = SC__PV_SYMINT;
            break;
        case SC_RESULT_TUPLE:
            pn->vkind = SC__PV_TUPLE;
            break;
        default:
            pn->vkind = SC__PV_OTHER;
            break;
        }
    }
    sc__free(cache);
    return SC_OK;
}

sc_status sc__partition_prepare(sc_partition *p,
                                const sc_partition_options *opts,
                                sc_error *err)
{
    const sc_graph *g = p->g;
    size_t i, nout = sc_graph_num_outputs(g);
    sc_status status;

    dead_code(p);
    if (!(opts->flags & SC_PARTITION_NO_CSE)) {
        status = cse(p, err);
        if (status != SC_OK)
            return status;
    }
    for (i = 0; i < p->n; i++) {
        sc__pnode *pn = &p->nodes[i];
        if (pn->rep == (sc_node_id)i)
            pn->flags |= SC__PN_CANON;
        if (sc_graph_node_kind(g, (sc_node_id)i) == SC_NODE_PLACEHOLDER) {
            if (sc_graph_node_role(g, (sc_node_id)i) == SC_ROLE_TANGENT)
                pn->flags |= SC__PN_TANGENT;
            else
                pn->flags |= SC__PN_PRIMAL;
        }
    }
    for (i = 0; i < nout; i++) {
        sc_node_id o = sc_graph_output(g, i);
        if (o == SC_NODE_NONE)
            continue;
        o = p->nodes[o].rep;
        p->nodes[o].flags |= SC__PN_OUT_USED;
        p->nodes[o].cls |= i < p->nfwd_out ? SC_PARTITION_FW_OUTPUT
                                           : SC_PARTITION_BW_OUTPUT;
    }
    status = build_users(p, err);
    if (status != SC_OK)
        return status;
    status = make_binding(p, opts, err);
    if (status != SC_OK)
        return status;
    return node_sizes(p, err);
}

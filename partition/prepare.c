/* symcut — partitioner phase 0: dead-code elimination, common-subexpression
 * elimination, the users of the folded graph, and every node's size in
 * bytes at the hints. */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/guards.h>

#include "graph/graph-view.h"
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

void sc__partition_visit_args(const sc_partition *p, sc_node_id id,
                              sc__node_visit_fn fn, void *user)
{
    const sc__node *n = &p->g->nodes[id];
    size_t j;
    for (j = 0; j < n->nargs; j++) {
        const sc_value *v = &n->args[j];
        if (v->kind == SC_VALUE_NODE)
            fn(v->u.node, user);
        else if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE)
            sc__value_visit_nodes(v, fn, user);
    }
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

static uint64_t hash_value(const sc_node_id *rep, const sc_value *v)
{
    uint64_t h = (uint64_t)v->kind + 1;
    size_t i;
    switch (v->kind) {
    case SC_VALUE_NONE:
        break;
    case SC_VALUE_NODE:
        h = mix(h, (uint64_t)rep[v->u.node]);
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
            h = mix(h, hash_value(rep, &v->u.list.items[i]));
        break;
    }
    return h;
}

static bool value_equal(const sc_node_id *rep, const sc_value *a,
                        const sc_value *b)
{
    size_t i;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case SC_VALUE_NONE:
        return true;
    case SC_VALUE_NODE:
        return rep[a->u.node] == rep[b->u.node];
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
            if (!value_equal(rep, &a->u.list.items[i], &b->u.list.items[i]))
                return false;
        return true;
    }
    return false;
}

/* ---- Ops that write or draw ------------------------------------------------ */

/* Does the op write into an argument (in-place or `mutates:`)?  Unknown
 * ops: an overload packet whose name ends in '_'. */
static bool node_mutates(const sc__node *n)
{
    if (n->op >= 0) {
        const sc__op_info *info = sc__op_get((sc__op)n->op);
        return info->nmutates > 0 || info->is_inplace;
    }
    if (n->op == SC_OP_UNKNOWN && n->kind == SC_NODE_CALL) {
        const char *t = n->target, *dot;
        if (!t)
            return false;
        dot = strrchr(t, '.');
        return dot && dot > t && dot[-1] == '_' &&
               strncmp(t, "torch.ops.", 10) == 0;
    }
    return false;
}

static bool node_random(const sc__node *n)
{
    if (n->op >= 0) {
        const sc__op_info *info = sc__op_get((sc__op)n->op);
        return info->cls == SC_CLASS_RANDOM || info->functorch_random;
    }
    return false;
}

static void mark_written(sc_node_id id, void *user)
{
    sc__pnode *pn = user;
    pn[id].flags |= SC__PN_WRITTEN;
}

/* torch 2.13's CSE leaves alone every tensor node that shares its storage
 * with a tensor output (a view chain from a common base: the op table's
 * view class, and getitem of a view op's tuple) and aten.empty: marked
 * SC__PN_WRITTEN, they neither fold nor take folds.  A tuple (unbind,
 * split) has no storage of its own in torch's check, so it folds even when
 * its elements alias an output.  Reads the graph before CSE, as torch
 * does. */
static sc_status output_aliases_2_13(sc_partition *p, sc_error *err)
{
    const sc_graph *g = p->g;
    size_t i, nout = g->noutputs;
    sc_node_id *base = sc__malloc((p->n ? p->n : 1) * (sizeof *base + 1));
    uint8_t *is_out_base;
    if (!base)
        return sc__error_nomem(err);
    is_out_base = (uint8_t *)(base + p->n);
    for (i = 0; i < p->n; i++) {
        const sc__node *nd = &g->nodes[i];
        base[i] = (sc_node_id)i;
        is_out_base[i] = 0;
        if (nd->kind != SC_NODE_CALL || nd->nargs == 0 ||
            nd->args[0].kind != SC_VALUE_NODE)
            continue;
        if (nd->op == SC_OP_GETITEM) {
            const sc__node *t = &g->nodes[nd->args[0].u.node];
            if (t->op >= 0 && sc__op_get((sc__op)t->op)->cls == SC_CLASS_VIEW &&
                t->nargs > 0 && t->args[0].kind == SC_VALUE_NODE)
                base[i] = base[t->args[0].u.node];
        } else if (nd->op >= 0 &&
                   sc__op_get((sc__op)nd->op)->cls == SC_CLASS_VIEW) {
            base[i] = base[nd->args[0].u.node];
        }
    }
    for (i = 0; i < nout; i++)
        if (g->outputs[i] != SC_NODE_NONE &&
            g->nodes[g->outputs[i]].rkind == SC_RESULT_TENSOR)
            is_out_base[base[g->outputs[i]]] = 1;
    for (i = 0; i < p->n; i++) {
        const char *t = g->nodes[i].target;
        if ((is_out_base[base[i]] &&
             g->nodes[i].rkind == SC_RESULT_TENSOR) ||
            (t && strcmp(t, "torch.ops.aten.empty.memory_format") == 0))
            p->nodes[i].flags |= SC__PN_WRITTEN;
    }
    sc__free(base);
    return SC_OK;
}

/* ---- DCE ------------------------------------------------------------------ */

/* The graph's nodes are read directly (graph/graph-internal.h): this phase
 * touches every argument of every node, and the accessors' checks and
 * calls cost more than the work at a million nodes. */

/* Compact copies of what the passes of this phase read at random (the
 * arguments' liveness and representatives) instead of p->nodes (40 bytes
 * a node): over a million nodes the passes then stay in the cache. */
enum { LIVE = 1, LIVE_CANON = 2 };

typedef struct prep {
    uint8_t *live;   /* LIVE, LIVE_CANON */
    sc_node_id *rep; /* p->nodes[i].rep */
} prep;

static void mark_alive(sc_node_id id, void *user)
{
    uint8_t *live = user;
    live[id] = LIVE;
}

/* Marks the live nodes (those an output needs, and the placeholders) in
 * q->live, in a backward pass.  writes: also mark (SC__PN_WRITTEN) the
 * nodes some op writes into, the arguments of the mutating nodes, dead
 * or alive, for CSE (in the same pass).  dead_code_node sets the rest. */
static void dead_code(sc_partition *p, prep *q, bool writes)
{
    const sc_graph *g = p->g;
    const sc__node *nodes = g->nodes;
    sc__pnode *pn = p->nodes;
    uint8_t *live = q->live;
    size_t i, j, nout = g->noutputs;
    size_t nph = g->nplaceholders;
    /* per op: 0 not known, 1 pure, 2 impure, for the (interned) target
     * in impure_target */
    uint8_t impure_op[SC_OP_COUNT_];
    const char *impure_target[SC_OP_COUNT_];
    bool impure;

    memset(impure_op, 0, sizeof impure_op);
    memset(live, 0, p->n);
    for (i = 0; i < nout; i++) {
        sc_node_id o = g->outputs[i];
        if (o != SC_NODE_NONE)
            live[o] = LIVE;
    }
    for (i = 0; i < nph; i++)
        live[i] = LIVE;
    for (i = p->n; i-- > nph;) {
        const sc__node *nd = &nodes[i];
        if (writes && node_mutates(nd))
            for (j = 0; j < nd->nargs; j++)
                sc__value_visit_nodes(&nd->args[j], mark_written, pn);
        if (!live[i] && p->policy == SC_PARTITION_PYTORCH_2_13 &&
            nd->kind == SC_NODE_CALL) {
            /* impure by the target's name: once per known op */
            int op = nd->op;
            bool known = op >= 0 && op < (int)SC_OP_COUNT_;
            if (!known || !impure_op[op] || impure_target[op] != nd->target)
                impure = sc__partition_impure_2_13(nd->target);
            else
                impure = impure_op[op] == 2;
            if (known) {
                impure_op[op] = impure ? 2 : 1;
                impure_target[op] = nd->target;
            }
            if (impure)
                live[i] = LIVE;
        }
        if (!live[i])
            continue;
        for (j = 0; j < nd->nargs; j++) {
            const sc_value *v = &nd->args[j];
            if (v->kind == SC_VALUE_NODE)
                live[v->u.node] = LIVE;
            else if (v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE)
                sc__value_visit_nodes(v, mark_alive, live);
        }
    }
}

/* Node i's representative, itself or SC_NODE_NONE (dead), and the flags
 * that only depend on the node: alive, canonical (CSE clears it on the
 * duplicates), primal, tangent. */
static void dead_code_node(sc_partition *p, prep *q, size_t i)
{
    const sc__node *nd = &p->g->nodes[i];
    sc__pnode *pn = &p->nodes[i];
    if (q->live[i]) {
        q->live[i] = LIVE | LIVE_CANON;
        q->rep[i] = (sc_node_id)i;
        pn->rep = (sc_node_id)i;
        pn->flags |= SC__PN_ALIVE | SC__PN_CANON;
    } else {
        q->rep[i] = SC_NODE_NONE;
        pn->rep = SC_NODE_NONE;
        pn->place = SC_PARTITION_PLACE_DEAD;
        p->ndead++;
    }
    if (nd->kind == SC_NODE_PLACEHOLDER)
        pn->flags |= nd->role == SC_ROLE_TANGENT ? SC__PN_TANGENT
                                                 : SC__PN_PRIMAL;
}

/* ---- Sizes at the hints ----------------------------------------------------- */

sc_status sc__partition_eval(sc_partition *p, sc_expr *e, int64_t *out,
                             sc_error *err)
{
    if (sc_expr_value_si(e, out))
        return SC_OK;
    return sc_expr_eval_si(p->ctx, e, p->binding, out, err);
}

/* torch 2.13 weighs a symbol without a hint as its _size_of fallback
 * (4096, or the options') moved into the symbol's range: raised to its
 * lower end, then lowered to its upper end. */
static sc_status fallback_2_13(sc_partition *p, sc_expr *sym, int64_t *v,
                               sc_error *err)
{
    sc_range r;
    int64_t x = p->unbacked_fallback;
    sc_range_init(&r);
    if (p->env && sc_env_has_symbol(p->env, sym) &&
        sc_env_range(p->env, sym, &r, NULL) == SC_OK) {
        if (!r.lo_inf && mpz_fits_slong_p(r.lo) && mpz_get_si(r.lo) > x)
            x = mpz_get_si(r.lo);
        if (!r.hi_inf && mpz_fits_slong_p(r.hi) && mpz_get_si(r.hi) < x)
            x = mpz_get_si(r.hi);
    }
    sc_range_clear(&r);
    *v = x;
    if (!sc__partition_warn(p, "%s has no hint: weighed as %lld (torch "
                               "2.13's size fallback, within its range)",
                            sc_expr_symbol_name(sym), (long long)x))
        return sc__error_nomem(err);
    return SC_OK;
}

static sc_status make_binding(sc_partition *p,
                              const sc_partition_options *opts,
                              sc_error *err)
{
    const sc_graph *g = p->g;
    /* one scan of the graph: the context's symbol count bounds the
     * graph's */
    size_t nsym = sc_ctx_symbol_count(sc_graph_ctx(g)), i;
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
        bool have = sc_graph_get_hint(g, syms[i], &v);
        if (!have && p->policy == SC_PARTITION_PYTORCH_2_13 &&
            sc__partition_float_symbol(syms[i])) {
            /* a float symbol (a SymFloat's value) is in no size: torch
             * weighs its node 4, whatever its value */
            v = 0;
            have = true;
        }
        if (!have && p->policy == SC_PARTITION_PYTORCH_2_13) {
            SC_CHECK(fallback_2_13(p, syms[i], &v, err));
            have = true;
        }
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
                           : "the unbacked fallback"))
                SC_CHECK(sc__error_nomem(err));
        }
        SC_CHECK(sc_symmap_set_si(p->binding, syms[i], v, err));
    }
fail:
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

static size_entry *size_lookup(size_entry *cache, const sc__node *n)
{
    uint64_t h = mix(n->dtype, n->ndim);
    size_t d;
    for (d = 0; d < n->ndim; d++)
        h = mix(h, (uint64_t)(uintptr_t)n->meta.dims[d]);
    return &cache[(h ^ (h >> 32)) & (SIZE_CACHE - 1)];
}

static bool size_hit(const size_entry *e, const sc__node *n)
{
    size_t d;
    if (!e->used || e->ndim != n->ndim || e->dtype != n->dtype)
        return false;
    for (d = 0; d < n->ndim; d++)
        if (e->dims[d] != n->meta.dims[d])
            return false;
    return true;
}

/* Node id's value kind and, for a tensor, its size at the hints (bytes
 * and expression) when it is canonical; bytes -1 otherwise. */
static sc_status node_size(sc_partition *p, size_entry *cache, size_t id,
                           sc_error *err)
{
    sc__pnode *pn = &p->nodes[id];
    const sc__node *n = &p->g->nodes[id];

    pn->bytes = -1;
    if (!(pn->flags & SC__PN_CANON))
        return SC_OK;
    switch ((sc_result_kind)n->rkind) {
    case SC_RESULT_TENSOR: {
        size_entry *ce = NULL;
        sc_expr *e;
        size_t d;
        pn->vkind = SC__PV_TENSOR;
        if (n->ndim <= SIZE_CACHE_MAXDIM) {
            ce = size_lookup(cache, n);
            if (size_hit(ce, n)) {
                pn->bytes_expr = ce->expr;
                pn->bytes = ce->bytes;
                break;
            }
        }
        e = sc_expr_int_si(p->ctx,
                           (int64_t)sc_dtype_itemsize((sc_dtype)n->dtype));
        for (d = 0; d < n->ndim && e; d++)
            e = sc_expr_mul(p->ctx, e, n->meta.dims[d]);
        if (!e)
            return sc_ctx_take_error(p->ctx, err);
        pn->bytes_expr = e;
        SC_TRY(sc__partition_eval(p, e, &pn->bytes, err));
        if (pn->bytes < 0)
            pn->bytes = 0;
        if (ce) {
            for (d = 0; d < n->ndim; d++)
                ce->dims[d] = n->meta.dims[d];
            ce->ndim = (uint8_t)n->ndim;
            ce->dtype = (uint8_t)n->dtype;
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
    return SC_OK;
}

/* ---- CSE ------------------------------------------------------------------ */

/* May node id be merged with an equal earlier node?  Not when it is
 * random or writes into an argument; nor when it is written into (two
 * empty_like buffers filled by bernoulli_ stay distinct), which the
 * caller checks (SC__PN_WRITTEN). */
static bool cse_candidate(const sc_partition *p, sc_node_id id)
{
    const sc__node *n = &p->g->nodes[id];
    return !node_random(n) && !node_mutates(n);
}

static uint64_t hash_node(const sc_partition *p, const sc_node_id *rep,
                          sc_node_id id)
{
    const sc__node *n = &p->g->nodes[id];
    size_t i;
    /* targets are interned in the graph: equal strings, equal pointers */
    uint64_t h = mix(0x51ed, (uint64_t)(uintptr_t)n->target);
    h = mix(h, n->npos);
    for (i = 0; i < n->nargs; i++) {
        const sc_value *v = &n->args[i];
        if (i >= n->npos && n->kwnames[i - n->npos])
            h = hash_str(h, n->kwnames[i - n->npos]);
        if (v->kind == SC_VALUE_NODE) /* hash_value's, inline */
            h = mix(h, mix((uint64_t)SC_VALUE_NODE + 1,
                           (uint64_t)rep[v->u.node]));
        else
            h = mix(h, hash_value(rep, v));
    }
    return h;
}

static bool node_equal(const sc_partition *p, const sc_node_id *rep,
                       sc_node_id a, sc_node_id b)
{
    const sc__node *x = &p->g->nodes[a], *y = &p->g->nodes[b];
    size_t i;
    if (x->target != y->target || x->nargs != y->nargs || x->npos != y->npos)
        return false;
    for (i = 0; i < x->nargs; i++) {
        if (i >= x->npos) {
            const char *ka = x->kwnames[i - x->npos];
            const char *kb = y->kwnames[i - y->npos];
            if ((ka == NULL) != (kb == NULL) || (ka && strcmp(ka, kb) != 0))
                return false;
        }
        if (!value_equal(rep, &x->args[i], &y->args[i]))
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

/* The rest of DCE (dead_code_node), CSE (when cse) and the sizes
 * (node_size), in one pass over the nodes: a node's CSE decision only
 * depends on the nodes before it.  Clears the SC__PN_WRITTEN marks.  *table: the CSE table's block (the caller frees
 * it, or reuses its pages), NULL without CSE. */
static sc_status fold_and_size(sc_partition *p, prep *q, bool cse,
                               void **table_out, sc_error *err)
{
    size_t nph = p->g->nplaceholders, i, cap = 16;
    cse_slot *table = NULL;
    size_entry *cache;
    sc_status status = SC_OK;

    *table_out = NULL;
    cache = sc__calloc(SIZE_CACHE, sizeof *cache);
    if (!cache)
        return sc__error_nomem(err);
    if (cse) {
        while (cap < (p->n - nph) + (p->n - nph) / 2 + 2)
            cap *= 2;
        table = sc__malloc(cap * sizeof *table);
        if (!table) {
            sc__free(cache);
            return sc__error_nomem(err);
        }
        sc__prefault(table, cap * sizeof *table);
        for (i = 0; i < cap; i++)
            table[i].id = SC_NODE_NONE;
        *table_out = table;
    }
    for (i = 0; i < p->n; i++) {
        sc_node_id id = (sc_node_id)i;
        sc__pnode *pn = &p->nodes[i];
        bool written = (pn->flags & SC__PN_WRITTEN) != 0;
        pn->flags &= (uint16_t)~SC__PN_WRITTEN;
        dead_code_node(p, q, i);
        if (cse && i >= nph && q->live[i] && !written &&
            cse_candidate(p, id)) {
            uint64_t h = hash_node(p, q->rep, id);
            uint32_t h32 = (uint32_t)(h >> 32);
            size_t slot = (size_t)(h ^ (h >> 29)) & (cap - 1);
            while (table[slot].id != SC_NODE_NONE) {
                if (table[slot].hash == h32 &&
                    node_equal(p, q->rep, table[slot].id, id))
                    break;
                slot = (slot + 1) & (cap - 1);
            }
            if (table[slot].id == SC_NODE_NONE) {
                table[slot].id = id;
                table[slot].hash = h32;
            } else {
                pn->rep = q->rep[i] = table[slot].id;
                q->live[i] = LIVE;
                pn->flags &= (uint16_t)~SC__PN_CANON;
                pn->place = SC_PARTITION_PLACE_FOLDED;
                p->nfolded++;
            }
        }
        SC_CHECK(node_size(p, cache, i, err));
    }
fail:
    sc__free(cache);
    return status;
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

/* A folded node and its representative, to list each class's members. */
typedef struct member {
    sc_node_id rep, id;
} member;

static int member_cmp(const void *a, const void *b)
{
    const member *x = a, *y = b;
    if (x->rep != y->rep)
        return x->rep < y->rep ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int id_cmp(const void *a, const void *b)
{
    sc_node_id x = *(const sc_node_id *)a, y = *(const sc_node_id *)b;
    return x < y ? -1 : x > y;
}

/* The users of the folded graph from the graph's users index (increasing,
 * each once): the users of canonical node r are the canonical users of r
 * and of the duplicates folded into it, merged.  One pass over the index
 * instead of two over every argument. */
static sc_status users_from_index(sc_partition *p, const prep *q,
                                  void *reuse, sc_error *err)
{
    const sc_graph *g = p->g;
    const sc_node_id *rep = q->rep;
    const uint8_t *live = q->live;
    size_t i, k, m = 0, nm = 0, total = 0, cap = g->user_off[p->n];
    member *members = NULL;

    if (p->nfolded) {
        members = sc__malloc(p->nfolded * sizeof *members);
        if (!members) {
            sc__free(reuse);
            return sc__error_nomem(err);
        }
        for (i = 0; i < p->n && nm < p->nfolded; i++)
            if (rep[i] != SC_NODE_NONE && rep[i] != (sc_node_id)i) {
                members[nm].rep = rep[i];
                members[nm++].id = (sc_node_id)i;
            }
        qsort(members, nm, sizeof *members, member_cmp);
    }
    /* the offsets take the pages of the CSE table, which are mapped */
    p->uoff = reuse ? sc__realloc(reuse, (p->n + 2) * sizeof *p->uoff)
                    : sc__malloc((p->n + 2) * sizeof *p->uoff);
    if (!p->uoff)
        sc__free(reuse);
    p->users = sc__malloc((cap ? cap : 1) * sizeof *p->users);
    if (!p->uoff || !p->users) {
        sc__free(members);
        return sc__error_nomem(err);
    }
    /* (the users take at most cap entries: the dead and folded nodes'
     * are not there; no prefaulting) */
    if (!reuse)
        sc__prefault(p->uoff, (p->n + 2) * sizeof *p->uoff);
    for (i = 0; i < p->n; i++) {
        size_t start = total;
        bool merged = false;
        p->uoff[i] = total;
        if (!(live[i] & LIVE_CANON))
            continue;
        for (k = g->user_off[i]; k < g->user_off[i + 1]; k++)
            if (live[g->users[k]] & LIVE_CANON)
                p->users[total++] = g->users[k];
        for (; m < nm && members[m].rep == (sc_node_id)i; m++) {
            sc_node_id x = members[m].id;
            for (k = g->user_off[x]; k < g->user_off[x + 1]; k++)
                if (live[g->users[k]] & LIVE_CANON)
                    p->users[total++] = g->users[k];
            merged = true;
        }
        if (merged && total - start > 1) {
            size_t w = start + 1;
            qsort(p->users + start, total - start, sizeof *p->users, id_cmp);
            for (k = start + 1; k < total; k++)
                if (p->users[k] != p->users[w - 1])
                    p->users[w++] = p->users[k];
            total = w;
        }
    }
    p->uoff[p->n] = p->uoff[p->n + 1] = total;
    sc__free(members);
    return SC_OK;
}

/* reuse: a block for the caller to free, whose pages the index may take
 * over. */
static sc_status build_users(sc_partition *p, const prep *q, void *reuse,
                             sc_error *err)
{
    const sc_graph *g = p->g;
    size_t i, j, pass, nph = g->nplaceholders;
    users_ctx c;

    if (g->users_valid)
        return users_from_index(p, q, reuse, err);
    sc__free(reuse);
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
            const sc__node *nd = &g->nodes[i];
            if (!(p->nodes[i].flags & SC__PN_CANON))
                continue;
            c.user = (sc_node_id)i;
            for (j = 0; j < nd->nargs; j++)
                sc__value_visit_nodes(&nd->args[j], add_user, &c);
        }
    }
    /* The fill pass advanced uoff[r] to the end of r's range: shift back. */
    for (i = p->n; i > 0; i--)
        p->uoff[i] = p->uoff[i - 1];
    p->uoff[0] = 0;
    sc__free(c.stamp);
    return SC_OK;
}

sc_status sc__partition_prepare(sc_partition *p,
                                const sc_partition_options *opts,
                                sc_error *err)
{
    const sc_graph *g = p->g;
    size_t i, nout = g->noutputs;
    bool cse = !(opts->flags & SC_PARTITION_NO_CSE);
    void *table = NULL;
    sc_status status;
    prep q;

    /* passes over the nodes: liveness (with the nodes ops write into),
     * backward; the rest of DCE, CSE and the sizes at the hints; the
     * users.  Every page of p->nodes is touched (all fresh in a large
     * graph): map them at once */
    sc__prefault(p->nodes, p->n * sizeof *p->nodes);
    q.rep = sc__malloc((p->n ? p->n : 1) * (sizeof *q.rep + 1));
    if (!q.rep)
        return sc__error_nomem(err);
    sc__prefault(q.rep, p->n * (sizeof *q.rep + 1));
    q.live = (uint8_t *)(q.rep + p->n);
    dead_code(p, &q, cse && g->users_valid);
    if (cse && p->policy == SC_PARTITION_PYTORCH_2_13)
        SC_CHECK(output_aliases_2_13(p, err));
    SC_CHECK(make_binding(p, opts, err));
    SC_CHECK(fold_and_size(p, &q, cse, &table, err));
    for (i = 0; i < nout; i++) {
        sc_node_id o = g->outputs[i];
        if (o == SC_NODE_NONE)
            continue;
        o = p->nodes[o].rep;
        p->nodes[o].flags |= SC__PN_OUT_USED;
        p->nodes[o].cls |= i < p->nfwd_out ? SC_PARTITION_FW_OUTPUT
                                           : SC_PARTITION_BW_OUTPUT;
    }
    status = build_users(p, &q, table, err);
    sc__free(q.rep);
    return status;
fail:
    sc__free(table);
    sc__free(q.rep);
    return status;
}

/* symcut — the graph builder: node names (checks, automatic names), copying
 * values and metadata into the graph's arena, adding placeholders and call
 * nodes, trusted copies from another graph, outputs. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "graph/graph-internal.h"
#include "graph/graph-names.h"
#include "graph/ops.h"

/* ---- Names ------------------------------------------------------------- */

/* Insert node id, the last node (whose name is set), into the name table,
 * with the copies before it; the table has room (see reserve_node). */
static void name_table_insert(sc_graph *g, sc_node_id id)
{
    sc__graph_index_names(g);
    (void)id;
}

/* Whether s is one of list's words (each followed by a NUL, the list by
 * another). */
static bool one_of(const char *s, const char *list)
{
    for (; *list; list += strlen(list) + 1)
        if (strcmp(s, list) == 0)
            return true;
    return false;
}

/* Python's keywords and the names the printed code uses (torch, operator,
 * device, pytree, fx_pytree, self, inf, nan), by first letter: every
 * automatic name is checked, most bases reach no comparison. */
static bool is_reserved_name(const char *s)
{
    switch (s[0]) {
    case 'N': return strcmp(s, "None") == 0;
    case 'T': return strcmp(s, "True") == 0;
    case 'F': return strcmp(s, "False") == 0;
    case 'a': return one_of(s, "and\0as\0assert\0async\0await\0");
    case 'b': return strcmp(s, "break") == 0;
    case 'c': return one_of(s, "class\0continue\0");
    case 'd': return one_of(s, "def\0del\0device\0");
    case 'e': return one_of(s, "else\0elif\0except\0");
    case 'f': return one_of(s, "for\0from\0finally\0fx_pytree\0");
    case 'g': return strcmp(s, "global") == 0;
    case 'i': return one_of(s, "if\0in\0is\0import\0inf\0");
    case 'l': return strcmp(s, "lambda") == 0;
    case 'n': return one_of(s, "not\0nonlocal\0nan\0");
    case 'o': return one_of(s, "or\0operator\0");
    case 'p': return one_of(s, "pass\0pytree\0");
    case 'r': return one_of(s, "return\0raise\0");
    case 's': return strcmp(s, "self") == 0;
    case 't': return one_of(s, "try\0torch\0");
    case 'w': return one_of(s, "while\0with\0");
    case 'y': return strcmp(s, "yield") == 0;
    default: return false;
    }
}

static sc_status check_new_name(const sc_graph *g, const char *name,
                                sc_error *err)
{
    if (!sc__graph_is_identifier(name))
        return sc__error_set(err, SC_ERR_INVALID,
                             "node name '%s' is not an identifier", name);
    if (is_reserved_name(name))
        return sc__error_set(err, SC_ERR_INVALID,
                             "node name '%s' is a reserved word", name);
    if (sc_graph_find(g, name) != SC_NODE_NONE)
        return sc__error_set(err, SC_ERR_INVALID,
                             "duplicate node name '%s'", name);
    return SC_OK;
}

/* The base of an automatic name: the op's name without namespace and
 * overload ("torch.ops.aten.mm.default" -> "mm"), or the last component
 * of a dotted target. */
static void auto_name_base(const char *target, char *buf, size_t size)
{
    const char *s = target, *start, *end;
    size_t n;

    if (strncmp(s, "torch.ops.", 10) == 0) {
        s += 10;
        start = strchr(s, '.'); /* skip the namespace */
        start = start ? start + 1 : s;
        end = strchr(start, '.');
        if (!end)
            end = start + strlen(start);
    } else {
        start = strrchr(s, '.');
        start = start ? start + 1 : s;
        end = start + strlen(start);
    }
    n = (size_t)(end - start);
    if (n >= size)
        n = size - 1;
    memcpy(buf, start, n);
    buf[n] = '\0';
    while (n > 0 && buf[n - 1] == '_' && n > 1 && buf[0] != '_')
        buf[--n] = '\0'; /* "and_" -> "and" */
    if (!sc__graph_is_identifier(buf) || is_reserved_name(buf))
        snprintf(buf, size, "%s", "node");
}

/* base, base_1, ... (no base_k is a reserved word: none has a digit). */
static char *make_auto_name(sc_graph *g, const char *target)
{
    char base[64];

    auto_name_base(target, base, sizeof base);
    return sc__graph_auto_name(g, base);
}

/* ---- Copying values and metadata into the arena ------------------------ */

sc_status sc__graph_copy_value(sc_graph *g, const sc_value *src,
                               sc_value *dst, int depth, sc_error *err)
{
    size_t i;
    sc_value *items;

    *dst = *src;
    switch (src->kind) {
    case SC_VALUE_NONE:
    case SC_VALUE_INT:
    case SC_VALUE_BOOL:
        return SC_OK;
    case SC_VALUE_NODE:
        if (src->u.node < 0 || (size_t)src->u.node >= g->nnodes)
            return sc__error_set(err, SC_ERR_INVALID,
                                 "argument refers to node %ld, which does "
                                 "not precede the node",
                                 (long)src->u.node);
        return SC_OK;
    case SC_VALUE_SYMINT:
        if (!src->u.expr)
            return sc__error_set(err, SC_ERR_INVALID,
                                 "symbolic argument without expression");
        return SC_OK;
    case SC_VALUE_FLOAT:
        if (src->u.f.repr) {
            dst->u.f.repr = sc__arena_strdup(&g->arena, src->u.f.repr,
                                             strlen(src->u.f.repr));
            if (!dst->u.f.repr)
                return sc__error_nomem(err);
        }
        return SC_OK;
    case SC_VALUE_STRING:
        if (!src->u.str)
            return sc__error_set(err, SC_ERR_INVALID, "NULL string value");
        dst->u.str = sc__arena_strdup(&g->arena, src->u.str,
                                      strlen(src->u.str));
        return dst->u.str ? SC_OK : sc__error_nomem(err);
    case SC_VALUE_DTYPE:
        return (unsigned)src->u.dtype < SC_DTYPE_COUNT_
                   ? SC_OK
                   : sc__error_set(err, SC_ERR_INVALID, "invalid dtype");
    case SC_VALUE_DEVICE:
        return (unsigned)src->u.device.type < SC_DEVICE_TYPE_COUNT_ &&
                       src->u.device.index >= -1 &&
                       src->u.device.index <= 32767
                   ? SC_OK
                   : sc__error_set(err, SC_ERR_INVALID, "invalid device");
    case SC_VALUE_LAYOUT:
        return (unsigned)src->u.layout < SC_LAYOUT_COUNT_
                   ? SC_OK
                   : sc__error_set(err, SC_ERR_INVALID, "invalid layout");
    case SC_VALUE_MEMORY_FORMAT:
        return (unsigned)src->u.memory_format < SC_MEMORY_FORMAT_COUNT_
                   ? SC_OK
                   : sc__error_set(err, SC_ERR_INVALID,
                                   "invalid memory format");
    case SC_VALUE_LIST:
    case SC_VALUE_TUPLE:
        if (depth >= SC__GRAPH_MAX_DEPTH)
            return sc__error_set(err, SC_ERR_LIMIT,
                                 "lists nested deeper than %d",
                                 SC__GRAPH_MAX_DEPTH);
        if (src->u.list.n == 0) {
            dst->u.list.items = NULL;
            return SC_OK;
        }
        if (!src->u.list.items || src->u.list.n > UINT32_MAX)
            return sc__error_set(err, SC_ERR_INVALID, "invalid list value");
        items = sc__arena_alloc(&g->arena, src->u.list.n * sizeof *items);
        if (!items)
            return sc__error_nomem(err);
        for (i = 0; i < src->u.list.n; i++) {
            SC_TRY(sc__graph_copy_value(g, &src->u.list.items[i],
                                        &items[i], depth + 1, err));
        }
        dst->u.list.items = items;
        return SC_OK;
    }
    return sc__error_set(err, SC_ERR_INVALID, "invalid value kind %d",
                         (int)src->kind);
}

/* A copy in g's arena of the nd dimension expressions dims, shared with
 * the nodes added before with the same ones (most nodes have one of a
 * few shapes; dimension arrays are never written once set); NULL on
 * exhaustion. */
static sc_expr **shared_dims(sc_graph *g, sc_expr *const *dims, size_t nd)
{
    uint64_t h = nd;
    size_t d, k;
    sc_expr **copy;

    for (d = 0; d < nd; d++)
        h = (h ^ (uint64_t)(uintptr_t)dims[d]) * 0x9e3779b97f4a7c15ull;
    k = (size_t)(h >> 40) & (SC__GRAPH_COPY_CACHE - 1);
    copy = g->copy_dims[k];
    if (copy && g->copy_dims_n[k] == nd) {
        for (d = 0; d < nd && copy[d] == dims[d]; d++)
            ;
        if (d == nd)
            return copy;
    }
    copy = sc__arena_alloc(&g->arena, nd * sizeof *copy);
    if (!copy)
        return NULL;
    memcpy(copy, dims, nd * sizeof *copy);
    if (nd <= UINT32_MAX) {
        g->copy_dims[k] = copy;
        g->copy_dims_n[k] = (uint32_t)nd;
    }
    return copy;
}

#define SET_META_BUF 16

sc_status sc__graph_set_meta(sc_graph *g, sc__node *n, const sc_result *meta,
                             sc_error *err)
{
    size_t i, nd;
    sc_expr **dims, *buf[SET_META_BUF];

    n->rkind = SC_RESULT_UNKNOWN;
    n->ndim = 0;
    n->flags = 0;
    n->dtype = 0;
    n->dev_type = 0;
    n->dev_index = -1;
    n->meta.dims = NULL;
    if (!meta)
        return SC_OK;
    switch (meta->kind) {
    case SC_RESULT_UNKNOWN:
    case SC_RESULT_NONE:
        break;
    case SC_RESULT_TENSOR: {
        const sc_tensor_meta *t = &meta->tensor;
        if ((unsigned)t->dtype >= SC_DTYPE_COUNT_)
            return sc__error_set(err, SC_ERR_INVALID, "invalid dtype");
        if (t->ndim > 4096)
            return sc__error_set(err, SC_ERR_LIMIT,
                                 "tensor of rank %zu (at most 4096)",
                                 t->ndim);
        if (t->has_device &&
            ((unsigned)t->device.type >= SC_DEVICE_TYPE_COUNT_ ||
             t->device.index < -1 || t->device.index > 32767))
            return sc__error_set(err, SC_ERR_INVALID, "invalid device");
        nd = t->ndim * (t->has_strides ? 2 : 1);
        dims = NULL;
        if (nd) {
            /* checked into a buffer, then shared with the nodes of the
             * same shape (a graph has few): less memory, and the
             * passes over the nodes' sizes find them in the cache */
            dims = nd <= SET_META_BUF ? buf
                                      : sc__arena_alloc(&g->arena,
                                                        nd * sizeof *dims);
            if (!dims)
                return sc__error_nomem(err);
            for (i = 0; i < t->ndim; i++) {
                if (!t->sizes || !t->sizes[i] || sc_expr_is_bool(t->sizes[i]))
                    return sc__error_set(err, SC_ERR_INVALID,
                                         "size %zu is not an integer "
                                         "expression", i);
                dims[i] = t->sizes[i];
                if (t->has_strides) {
                    if (!t->strides || !t->strides[i] ||
                        sc_expr_is_bool(t->strides[i]))
                        return sc__error_set(err, SC_ERR_INVALID,
                                             "stride %zu is not an integer "
                                             "expression", i);
                    dims[t->ndim + i] = t->strides[i];
                }
            }
            if (dims == buf) {
                dims = shared_dims(g, buf, nd);
                if (!dims)
                    return sc__error_nomem(err);
            }
        }
        n->meta.dims = dims;
        n->ndim = (uint32_t)t->ndim;
        n->dtype = (uint8_t)t->dtype;
        n->flags = (uint8_t)((t->has_strides ? SC__NODE_HAS_STRIDES : 0) |
                             (t->has_device ? SC__NODE_HAS_DEVICE : 0));
        if (t->has_device) {
            n->dev_type = (uint8_t)t->device.type;
            n->dev_index = (int16_t)t->device.index;
        }
        break;
    }
    case SC_RESULT_SYMINT:
    case SC_RESULT_SYMBOOL:
        if (!meta->expr ||
            sc_expr_is_bool(meta->expr) != (meta->kind == SC_RESULT_SYMBOOL))
            return sc__error_set(err, SC_ERR_INVALID,
                                 "a Sym%s result needs %s expression",
                                 meta->kind == SC_RESULT_SYMBOOL ? "Bool"
                                                                 : "Int",
                                 meta->kind == SC_RESULT_SYMBOOL
                                     ? "a boolean"
                                     : "an integer");
        n->meta.expr = meta->expr;
        break;
    case SC_RESULT_TUPLE:
        if (meta->count > UINT32_MAX)
            return sc__error_set(err, SC_ERR_LIMIT, "tuple too long");
        n->ndim = (uint32_t)meta->count;
        break;
    default:
        return sc__error_set(err, SC_ERR_INVALID, "invalid result kind %d",
                             (int)meta->kind);
    }
    n->rkind = (uint8_t)meta->kind;
    return SC_OK;
}

/* ---- Builder ----------------------------------------------------------- */

/* The node array's pages are populated in one call a chunk ahead of the
 * nodes added (sc__prefault: a first touch one page at a time costs about
 * twice as much here), so that room reserved and never filled (a joint's
 * three nodes per forward node when few need a gradient, a reader's
 * estimate from the line count) is never touched: nodes below
 * g->prefaulted are populated or written. */
#define PREFAULT_AHEAD ((size_t)1 << 16) /* nodes: 4 MB */

static void prefault_ahead(sc_graph *g)
{
    size_t end = g->nnodes + PREFAULT_AHEAD, from;
    if (end > g->cap)
        end = g->cap;
    from = g->prefaulted > g->nnodes ? g->prefaulted : g->nnodes;
    if (end > from)
        sc__prefault(g->nodes + from, (end - from) * sizeof *g->nodes);
    if (end > g->prefaulted)
        g->prefaulted = end;
}

/* Make room for one more node and its name-table entry. */
static sc_status reserve_node(sc_graph *g, sc_error *err)
{
    void *items = g->nodes;
    if (g->nnodes >= (size_t)INT32_MAX - 1)
        return sc__error_set(err, SC_ERR_LIMIT, "too many nodes");
    if (!sc__grow(&items, &g->cap, g->nnodes + 1, sizeof(sc__node)))
        return sc__error_nomem(err);
    if (items != g->nodes)
        g->prefaulted = g->nnodes; /* a new block */
    g->nodes = items;
    if ((g->nnodes + 1) * 2 > g->name_cap && !sc__graph_name_table_grow(g))
        return sc__error_nomem(err);
    if (g->nnodes >= g->prefaulted)
        prefault_ahead(g);
    return SC_OK;
}

sc_status sc__graph_reserve(sc_graph *g, size_t nnodes, sc_error *err)
{
    size_t ncap;
    sc__node *nodes;

    if (nnodes >= (size_t)INT32_MAX - 1)
        return sc__error_set(err, SC_ERR_LIMIT, "too many nodes");
    if (nnodes > g->cap) {
        nodes = sc__realloc(g->nodes, nnodes * sizeof *nodes);
        if (!nodes)
            return sc__error_nomem(err);
        if (nodes != g->nodes)
            g->prefaulted = g->nnodes; /* a new block */
        g->nodes = nodes;
        g->cap = nnodes;
        prefault_ahead(g); /* the rest as the nodes come */
    }
    /* the name table stays at most half full (see reserve_node) */
    ncap = g->name_cap ? g->name_cap : 64;
    while (ncap < nnodes * 2)
        ncap *= 2;
    if (ncap > g->name_cap && !sc__graph_name_table_resize(g, ncap))
        return sc__error_nomem(err);
    return SC_OK;
}

/* The index of target (an interned string of another graph) in
 * g->targets, interning it when new; SIZE_MAX on exhaustion.  A cache by
 * the string's address spares the hashing (a hit is checked with
 * strcmp: the address may have been another string's). */
static size_t copy_target_index(sc_graph *g, const char *target)
{
    size_t k = ((uintptr_t)target >> 4) & (SC__GRAPH_COPY_CACHE - 1), ti;
    if (g->copy_target_src[k] == target &&
        g->copy_target_index[k] < g->ntargets &&
        strcmp(g->targets[g->copy_target_index[k]], target) == 0)
        return g->copy_target_index[k];
    ti = sc__graph_intern_target_index(g, target);
    if (ti != SIZE_MAX) {
        g->copy_target_src[k] = target;
        g->copy_target_index[k] = (uint32_t)ti;
    }
    return ti;
}

/* Copy the metadata of node s into n (of g) as sc_graph_node_result and
 * sc__graph_set_meta would: dimensions into g's arena; a placeholder
 * (call false) drops the schema's tuple flag. */
static sc_status copy_node_meta(sc_graph *g, sc__node *n, const sc__node *s,
                                bool call, sc_error *err)
{
    size_t nd;
    sc_expr **dims;

    n->rkind = s->rkind;
    n->ndim = 0;
    n->flags = 0;
    n->dtype = 0;
    n->dev_type = 0;
    n->dev_index = -1;
    n->meta.dims = NULL;
    switch ((sc_result_kind)s->rkind) {
    case SC_RESULT_TENSOR:
        n->ndim = s->ndim;
        n->dtype = s->dtype;
        n->flags = (uint8_t)(s->flags & (SC__NODE_HAS_STRIDES |
                                         SC__NODE_HAS_DEVICE));
        if (s->flags & SC__NODE_HAS_DEVICE) {
            n->dev_type = s->dev_type;
            n->dev_index = s->dev_index;
        }
        nd = (size_t)s->ndim * (s->flags & SC__NODE_HAS_STRIDES ? 2 : 1);
        if (nd) {
            dims = shared_dims(g, s->meta.dims, nd);
            if (!dims)
                return sc__error_nomem(err);
            n->meta.dims = dims;
        }
        break;
    case SC_RESULT_SYMINT:
    case SC_RESULT_SYMBOOL:
        n->meta.expr = s->meta.expr;
        break;
    case SC_RESULT_TUPLE:
        n->ndim = s->ndim;
        if (call)
            n->flags = (uint8_t)(s->flags & SC__NODE_TUPLE_FIXED);
        break;
    default:
        break;
    }
    return SC_OK;
}

/* The common part of the trusted copies: n (a call's target, op,
 * arguments set) takes the metadata and the name of node s of another
 * graph and becomes g's next node; g has room for it. */
static sc_status append_copied(sc_graph *g, sc__node *n, const sc__node *s,
                               bool call, sc_node_id *out, sc_error *err)
{
    size_t nid = g->nnodes;

    SC_TRY(copy_node_meta(g, n, s, call, err));
    n->name = sc__arena_strdup_fast(&g->arena, s->name, strlen(s->name));
    if (!n->name)
        return sc__error_nomem(err);
    g->nodes[nid] = *n;
    g->nnodes++;
    /* the name enters the table lazily (sc__graph_index_names) */
    if (g->users_valid || g->user_off || g->users || g->output_uses)
        sc__graph_invalidate_users(g);
    if (out)
        *out = (sc_node_id)nid;
    return SC_OK;
}

/* Room for one more node, checked inline (reserve_node when short). */
static inline sc_status room_for_node(sc_graph *g, sc_error *err)
{
    if (SC__LIKELY(g->nnodes < g->cap && (g->nnodes + 1) * 2 <= g->name_cap)) {
        if (SC__UNLIKELY(g->nnodes >= g->prefaulted))
            prefault_ahead(g);
        return SC_OK;
    }
    return reserve_node(g, err);
}

sc_status sc__graph_append_copy(sc_graph *g, const sc_graph *src,
                                sc_node_id id, sc_role role, sc_value *args,
                                const char **kwnames, sc_node_id *out,
                                sc_error *err)
{
    const sc__node *s;
    sc__node n;
    size_t ti;
    bool call = role == SC_ROLE_NONE;

    if (id < 0 || (size_t)id >= src->nnodes)
        return sc__error_set(err, SC_ERR_INVALID, "no node %ld",
                             (long)id);
    s = &src->nodes[id];
    if (call && s->kind != SC_NODE_CALL)
        return sc__error_set(err, SC_ERR_INVALID,
                             "node '%s' is not a call node", s->name);
    if (!call && g->nplaceholders != g->nnodes)
        return sc__error_set(err, SC_ERR_INVALID,
                             "placeholder '%s' after a call node", s->name);
    if (!call && role != SC_ROLE_PRIMAL && role != SC_ROLE_TANGENT)
        return sc__error_set(err, SC_ERR_INVALID,
                             "a placeholder is a primal or a tangent");
    SC_TRY(room_for_node(g, err));
    memset(&n, 0, sizeof n);
    if (call) {
        ti = copy_target_index(g, s->target);
        if (ti == SIZE_MAX)
            return sc__error_nomem(err);
        n.kind = SC_NODE_CALL;
        n.role = SC_ROLE_NONE;
        n.target = g->targets[ti];
        n.op = s->op;
        n.npos = s->npos;
        n.nargs = s->nargs;
        n.args = s->nargs ? args : NULL;
        n.kwnames = s->nargs > s->npos ? kwnames : NULL;
    } else {
        n.kind = SC_NODE_PLACEHOLDER;
        n.role = (uint8_t)role;
        n.op = SC_OP_UNKNOWN;
    }
    SC_TRY(append_copied(g, &n, s, call, out, err));
    if (!call) {
        g->nplaceholders++;
        if (role == SC_ROLE_PRIMAL)
            g->nprimals++;
        else
            g->ntangents++;
    }
    return SC_OK;
}

/* A copy of string str in g's arena, shared with the equal string copied
 * last through the same cache entry; NULL on exhaustion. */
static const char *copy_string(sc_graph *g, const char *str)
{
    size_t k = ((uintptr_t)str >> 3) & (SC__GRAPH_COPY_CACHE - 1);
    const char *c = g->copy_str[k];
    if (c && (c == str || strcmp(c, str) == 0))
        return c;
    c = sc__arena_strdup_fast(&g->arena, str, strlen(str));
    if (c)
        g->copy_str[k] = c;
    return c;
}

/* Copy value v of a checked graph into g's arena, its nodes renumbered
 * through map. */
static sc_status copy_value_mapped(sc_graph *g, const sc_value *v,
                                   sc_value *dst, const sc_node_id *map,
                                   sc_error *err)
{
    size_t i;
    sc_value *items;

    *dst = *v;
    switch (v->kind) {
    case SC_VALUE_NODE:
        dst->u.node = map[v->u.node];
        return SC_OK;
    case SC_VALUE_FLOAT:
        if (v->u.f.repr) {
            dst->u.f.repr = copy_string(g, v->u.f.repr);
            if (!dst->u.f.repr)
                return sc__error_nomem(err);
        }
        return SC_OK;
    case SC_VALUE_STRING:
        dst->u.str = copy_string(g, v->u.str);
        return dst->u.str ? SC_OK : sc__error_nomem(err);
    case SC_VALUE_LIST:
    case SC_VALUE_TUPLE:
        if (v->u.list.n == 0) {
            dst->u.list.items = NULL;
            return SC_OK;
        }
        items = sc__arena_alloc_fast(&g->arena,
                                     v->u.list.n * sizeof *items);
        if (!items)
            return sc__error_nomem(err);
        for (i = 0; i < v->u.list.n; i++) {
            const sc_value *x = &v->u.list.items[i];
            if (x->kind == SC_VALUE_NODE) {
                items[i] = *x;
                items[i].u.node = map[x->u.node];
            } else {
                SC_TRY(copy_value_mapped(g, x, &items[i], map, err));
            }
        }
        dst->u.list.items = items;
        return SC_OK;
    default:
        return SC_OK;
    }
}

sc_status sc__graph_append_copy_mapped(sc_graph *g, const sc_graph *src,
                                       sc_node_id id, const sc_node_id *map,
                                       sc_node_id *out, sc_error *err)
{
    const sc__node *s;
    sc__node n;
    sc_value *args = NULL;
    const char **kws = NULL;
    size_t i, na, ti;

    if (id < 0 || (size_t)id >= src->nnodes ||
        src->nodes[id].kind != SC_NODE_CALL)
        return sc__error_set(err, SC_ERR_INVALID,
                             "node %ld is not a call node", (long)id);
    s = &src->nodes[id];
    SC_TRY(room_for_node(g, err));
    na = s->nargs;
    if (na) {
        args = sc__arena_alloc_fast(&g->arena, na * sizeof *args);
        if (!args)
            return sc__error_nomem(err);
        for (i = 0; i < na; i++) {
            const sc_value *v = &s->args[i];
            if (v->kind == SC_VALUE_NODE) {
                args[i] = *v;
                args[i].u.node = map[v->u.node];
            } else {
                SC_TRY(copy_value_mapped(g, v, &args[i], map, err));
            }
        }
    }
    if (na > s->npos) {
        kws = sc__arena_alloc_fast(&g->arena, (na - s->npos) * sizeof *kws);
        if (!kws)
            return sc__error_nomem(err);
        for (i = 0; i < na - s->npos; i++) {
            kws[i] = s->kwnames[i] ? copy_string(g, s->kwnames[i]) : NULL;
            if (s->kwnames[i] && !kws[i])
                return sc__error_nomem(err);
        }
    }
    ti = copy_target_index(g, s->target);
    if (ti == SIZE_MAX)
        return sc__error_nomem(err);
    memset(&n, 0, sizeof n);
    n.kind = SC_NODE_CALL;
    n.role = SC_ROLE_NONE;
    n.target = g->targets[ti];
    n.op = s->op;
    n.npos = s->npos;
    n.nargs = s->nargs;
    n.args = args;
    n.kwnames = kws;
    return append_copied(g, &n, s, true, out, err);
}

sc_status sc_graph_add_placeholder(sc_graph *g, const char *name,
                                   sc_role role, const sc_result *meta,
                                   sc_node_id *out, sc_error *err)
{
    sc__node *n;
    size_t mark_nodes = g->nnodes;

    if (role != SC_ROLE_PRIMAL && role != SC_ROLE_TANGENT)
        return sc__error_set(err, SC_ERR_INVALID,
                             "a placeholder is a primal or a tangent");
    if (!name)
        return sc__error_set(err, SC_ERR_INVALID, "a placeholder needs a "
                                                  "name");
    if (g->nplaceholders != g->nnodes)
        return sc__error_set(err, SC_ERR_INVALID,
                             "placeholder '%s' after a call node", name);
    sc__graph_index_names(g);
    /* On failure, arena bytes already taken stay with the graph (freed
     * with it). */
    SC_TRY(check_new_name(g, name, err));
    SC_TRY(reserve_node(g, err));
    n = &g->nodes[g->nnodes];
    memset(n, 0, sizeof *n);
    n->kind = SC_NODE_PLACEHOLDER;
    n->role = (uint8_t)role;
    n->op = SC_OP_UNKNOWN;
    SC_TRY(sc__graph_set_meta(g, n, meta, err));
    n->name = sc__arena_strdup(&g->arena, name, strlen(name));
    if (!n->name)
        return sc__error_nomem(err);
    g->nnodes++;
    name_table_insert(g, (sc_node_id)mark_nodes);
    g->nplaceholders++;
    if (role == SC_ROLE_PRIMAL)
        g->nprimals++;
    else
        g->ntangents++;
    sc__graph_invalidate_users(g);
    if (out)
        *out = (sc_node_id)mark_nodes;
    return SC_OK;
}

static sc_status check_kwname(const char *kw, sc_error *err)
{
    if (!kw || !sc__graph_is_identifier(kw))
        return sc__error_set(err, SC_ERR_INVALID,
                             "keyword argument name '%s' is not an "
                             "identifier",
                             kw ? kw : "(null)");
    return SC_OK;
}

/* Identifiers joined by dots ("torch.ops.aten.mm.default"): checked for
 * every call added, so by a loop over the letters with one test in the
 * common case. */
static bool is_dotted_name(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    bool need = true;
    if (!s || !*s)
        return false;
    for (; *p; p++) {
        unsigned char c = *p;
        if ((unsigned char)((c | 0x20) - 'a') < 26 || c == '_') {
            need = false;
        } else if (c == '.') {
            if (need)
                return false;
            need = true;
        } else if (need || (unsigned char)(c - '0') >= 10) {
            return false;
        }
    }
    return !need;
}

sc_status sc__graph_append_call(sc_graph *g, const char *name,
                                const char *target, size_t npos,
                                size_t nargs, sc_value *args,
                                const char **kwnames, const sc_result *meta,
                                int line, sc_node_id *out, sc_error *err)
{
    sc__node n;
    size_t id = g->nnodes, ti;

    memset(&n, 0, sizeof n);
    if (nargs > UINT32_MAX || npos > nargs)
        return sc__error_set(err, SC_ERR_LIMIT, "too many arguments");
    if (npos > SC__GRAPH_MAX_POSITIONAL)
        return sc__error_set(err, SC_ERR_LIMIT,
                             "%zu positional arguments (at most %d)", npos,
                             SC__GRAPH_MAX_POSITIONAL);
    sc__graph_index_names(g);
    if (name)
        SC_TRY(check_new_name(g, name, err));
    SC_TRY(reserve_node(g, err));
    n.kind = SC_NODE_CALL;
    n.role = SC_ROLE_NONE;
    ti = sc__graph_intern_target_index(g, target);
    if (ti == SIZE_MAX)
        return sc__error_nomem(err);
    n.target = g->targets[ti];
    n.op = (int16_t)g->target_ops[ti];
    n.npos = (uint16_t)npos;
    n.nargs = (uint32_t)nargs;
    n.args = nargs ? args : NULL;
    n.kwnames = nargs > npos ? kwnames : NULL;
    n.line = line > 0 ? (uint32_t)line : 0;
    SC_TRY(sc__graph_set_meta(g, &n, meta, err));
    SC_TRY(sc__graph_check_call(g, &n, err));
    n.name = name ? sc__arena_strdup(&g->arena, name, strlen(name))
                  : make_auto_name(g, target);
    if (!n.name)
        return sc__error_nomem(err);
    g->nodes[id] = n;
    g->nnodes++;
    name_table_insert(g, (sc_node_id)id);
    sc__graph_invalidate_users(g);
    if (out)
        *out = (sc_node_id)id;
    return SC_OK;
}

sc_status sc_graph_add_call(sc_graph *g, const char *name,
                            const char *target, size_t npos,
                            const sc_value *args, size_t nkw,
                            const char *const *kwnames,
                            const sc_value *kwargs, const sc_result *meta,
                            sc_node_id *out, sc_error *err)
{
    sc_status status;
    sc_value *vals = NULL;
    const char **kws = NULL;
    size_t i, nargs = npos + nkw;
    sc_node_id id;

    if (!is_dotted_name(target))
        return sc__error_set(err, SC_ERR_INVALID,
                             "call target '%s' is not a dotted name",
                             target ? target : "(null)");
    if (nargs > UINT32_MAX || nargs < npos)
        return sc__error_set(err, SC_ERR_LIMIT, "too many arguments");
    if ((npos && !args) || (nkw && (!kwargs || !kwnames)))
        return sc__error_set(err, SC_ERR_INVALID, "missing argument array");
    sc__graph_index_names(g);
    if (name)
        SC_TRY(check_new_name(g, name, err));
    for (i = 0; i < nkw; i++) {
        size_t j;
        SC_TRY(check_kwname(kwnames[i], err));
        for (j = 0; j < i; j++)
            if (strcmp(kwnames[i], kwnames[j]) == 0)
                return sc__error_set(err, SC_ERR_INVALID,
                                     "keyword argument '%s' repeated",
                                     kwnames[i]);
    }
    if (nargs) {
        vals = sc__arena_alloc(&g->arena, nargs * sizeof *vals);
        if (!vals)
            return sc__error_nomem(err);
        for (i = 0; i < npos; i++)
            SC_TRY(sc__graph_copy_value(g, &args[i], &vals[i], 0, err));
        for (i = 0; i < nkw; i++)
            SC_TRY(sc__graph_copy_value(g, &kwargs[i], &vals[npos + i], 0,
                                        err));
    }
    if (nkw) {
        kws = sc__arena_alloc(&g->arena, nkw * sizeof *kws);
        if (!kws)
            return sc__error_nomem(err);
        for (i = 0; i < nkw; i++) {
            kws[i] = sc__arena_strdup(&g->arena, kwnames[i],
                                      strlen(kwnames[i]));
            if (!kws[i])
                return sc__error_nomem(err);
        }
    }
    SC_TRY(sc__graph_append_call(g, name, target, npos, nargs, vals, kws,
                                 meta, 0, &id, err));
    /* The op's shape rule: a result that contradicts the given metadata
     * is an error (and the node is taken back); no metadata takes the
     * inferred one. */
    SC_CHECK(sc__shape_check_node(g, id,
                                  meta && meta->kind != SC_RESULT_UNKNOWN,
                                  err));
    if (out)
        *out = id;
    return SC_OK;
fail:
    sc__graph_name_table_remove(g, id);
    g->nnodes--;
    sc__graph_invalidate_users(g);
    return status;
}

sc_status sc_graph_set_outputs(sc_graph *g, size_t n, const sc_node_id *ids,
                               size_t num_fwd_outputs, sc_error *err)
{
    sc_node_id *outs = NULL;
    size_t i;

    if (num_fwd_outputs > n)
        return sc__error_set(err, SC_ERR_INVALID,
                             "%zu forward outputs, but only %zu outputs",
                             num_fwd_outputs, n);
    if (n && !ids)
        return sc__error_set(err, SC_ERR_INVALID, "missing output array");
    for (i = 0; i < n; i++)
        if (ids[i] != SC_NODE_NONE &&
            (ids[i] < 0 || (size_t)ids[i] >= g->nnodes))
            return sc__error_set(err, SC_ERR_INVALID,
                                 "output %zu refers to node %ld, which does "
                                 "not exist",
                                 i, (long)ids[i]);
    if (n) {
        outs = sc__malloc(n * sizeof *outs);
        if (!outs)
            return sc__error_nomem(err);
        memcpy(outs, ids, n * sizeof *outs);
    }
    sc__free(g->outputs);
    g->outputs = outs;
    g->noutputs = n;
    g->num_fwd_outputs = num_fwd_outputs;
    sc__graph_invalidate_users(g);
    return SC_OK;
}

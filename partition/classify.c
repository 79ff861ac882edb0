/* symcut — partitioner phase 1: which nodes the forward requires, which
 * depend on a tangent, each forward node's distance to the backward, the
 * ban rules and the weights, per policy. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ops.h"
#include "partition/partition-internal.h"

#define DIST_INF 1000000000

/* PyTorch 1.13's default (compiler="nvfuser") recomputable overload
 * packets, for ops the op table does not know (it knows the flag of every
 * op it has).  Sorted for bsearch. */
static const char *const nvfuser_packets[] = {
    "__and__", "__lshift__", "__or__", "__rshift__", "__xor__",
    "_grad_sum_to_size", "_to_copy", "abs", "acos", "add", "addcmul",
    "alias", "amax", "asin", "atan", "atan2", "atanh", "bitwise_not",
    "ceil", "clamp", "cos", "cosh", "div", "eq", "erf", "erfc", "exp",
    "expm1", "floor", "fmod", "frac", "ge", "gelu", "gelu_backward", "gt",
    "le", "lerp", "lgamma", "log", "log10", "log1p", "log2", "lt", "max",
    "mean", "min", "mul", "ne", "neg", "pow", "reciprocal", "relu",
    "remainder", "round", "rsqrt", "rsub", "sigmoid", "silu", "sin", "sinh",
    "softplus", "sqrt", "squeeze", "sub", "sum", "sum_to_size", "tan",
    "tanh", "threshold", "threshold_backward", "to", "trunc", "type_as",
    "unsqueeze", "where"};

static int cmp_name(const void *key, const void *elem)
{
    const char *k = key;
    const char *const *e = elem;
    return strcmp(k, *e);
}

/* "torch.ops.aten.atan2.default" -> is "atan2" in the 1.13 list? */
static bool unknown_in_nvfuser_list(const char *target)
{
    char buf[128];
    const char *s, *dot;
    if (!target || strncmp(target, "torch.ops.aten.", 15) != 0)
        return false;
    s = target + 15;
    dot = strchr(s, '.');
    if (!dot)
        dot = s + strlen(s);
    if ((size_t)(dot - s) >= sizeof buf)
        return false;
    memcpy(buf, s, (size_t)(dot - s));
    buf[dot - s] = '\0';
    return bsearch(buf, nvfuser_packets,
                   sizeof nvfuser_packets / sizeof nvfuser_packets[0],
                   sizeof nvfuser_packets[0], cmp_name) != NULL;
}

bool sc__partition_recomputable(const sc_partition *p, sc_node_id id)
{
    int op;
    if (sc_graph_node_kind(p->g, id) != SC_NODE_CALL)
        return false;
    op = sc_graph_node_op(p->g, id);
    if (op < 0)
        return p->policy == SC_PARTITION_PYTORCH_1_13 &&
               unknown_in_nvfuser_list(sc_graph_node_target(p->g, id));
    if (op == SC_OP_GETITEM)
        return true;
    if (p->policy == SC_PARTITION_PYTORCH_1_13)
        return sc__op_get((sc__op)op)->nvfuser_recomputable;
    switch (sc__op_get((sc__op)op)->cls) {
    case SC_CLASS_POINTWISE:
    case SC_CLASS_VIEW:
    case SC_CLASS_REDUCTION:
    case SC_CLASS_CREATION:
    case SC_CLASS_SYMBOLIC:
        return true;
    default:
        return false;
    }
}

bool sc__partition_fusible(const sc_partition *p, sc_node_id id)
{
    int op;
    if (sc__partition_recomputable(p, id))
        return true;
    op = sc_graph_node_op(p->g, id);
    return op >= 0 && sc__op_get((sc__op)op)->functorch_random;
}

static bool is_view(const sc_partition *p, sc_node_id id)
{
    int op = sc_graph_node_op(p->g, id);
    return op >= 0 && sc__op_get((sc__op)op)->cls == SC_CLASS_VIEW;
}

static const sc_node_id *users_of(const sc_partition *p, sc_node_id id,
                                  size_t *n)
{
    *n = p->uoff[id + 1] - p->uoff[id];
    return p->users + p->uoff[id];
}

/* ---- Classification ------------------------------------------------------ */

static void mark_needed(sc_node_id id, void *user)
{
    sc_partition *p = user;
    p->nodes[p->nodes[id].rep].flags |= SC__PN_IN_FW; /* scratch: needed */
}

static sc_status classify_nodes(sc_partition *p, sc_error *err)
{
    const sc_graph *g = p->g;
    size_t i, j, k, nu;

    /* The tangent closure, in topological order. */
    for (i = 0; i < p->n; i++) {
        sc__pnode *pn = &p->nodes[i];
        const sc_node_id *us;
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (pn->flags & SC__PN_TANGENT)
            pn->cls |= SC_PARTITION_TANGENT_CLOSURE;
        if (!(pn->cls & SC_PARTITION_TANGENT_CLOSURE))
            continue;
        us = users_of(p, (sc_node_id)i, &nu);
        for (k = 0; k < nu; k++)
            p->nodes[us[k]].cls |= SC_PARTITION_TANGENT_CLOSURE;
    }
    /* Required by the forward: the primals, and the ancestors of the
     * forward outputs that do not depend on a tangent. */
    for (i = 0; i < p->nfwd_out; i++) {
        sc_node_id o = sc_graph_output(g, i);
        if (o == SC_NODE_NONE)
            continue;
        o = p->nodes[o].rep;
        if (p->nodes[o].cls & SC_PARTITION_TANGENT_CLOSURE)
            return sc__error_set(err, SC_ERR_INVALID,
                                 "forward output %zu (%s) depends on a "
                                 "tangent",
                                 i, sc_graph_node_name(g, o));
        p->nodes[o].flags |= SC__PN_IN_FW;
    }
    for (i = p->n; i-- > 0;) {
        sc__pnode *pn = &p->nodes[i];
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (pn->flags & SC__PN_PRIMAL) {
            pn->cls |= SC_PARTITION_REQUIRED_FW;
            continue;
        }
        if (!(pn->flags & SC__PN_IN_FW) ||
            (pn->cls & SC_PARTITION_TANGENT_CLOSURE))
            continue;
        pn->cls |= SC_PARTITION_REQUIRED_FW;
        if (sc_graph_node_kind(g, (sc_node_id)i) == SC_NODE_CALL) {
            size_t na = sc_graph_node_num_args(g, (sc_node_id)i);
            for (j = 0; j < na; j++)
                sc__value_visit_nodes(sc_graph_node_arg(g, (sc_node_id)i, j),
                                      mark_needed, p);
        }
    }
    for (i = 0; i < p->n; i++)
        p->nodes[i].flags &= (uint16_t)~SC__PN_IN_FW;
    return SC_OK;
}

/* ---- Distances ------------------------------------------------------------ */

static void distances(sc_partition *p)
{
    size_t i, k, nu;
    int32_t out_dist = p->policy == SC_PARTITION_PYTORCH_1_13 ? 0 : DIST_INF;

    for (i = p->n; i-- > 0;) {
        sc__pnode *pn = &p->nodes[i];
        const sc_node_id *us;
        int32_t d = DIST_INF;
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (!(pn->cls & SC_PARTITION_REQUIRED_FW)) {
            pn->dist = 0;
            continue;
        }
        if ((pn->flags & SC__PN_OUT_USED) && out_dist + 1 < d)
            d = out_dist + 1;
        us = users_of(p, (sc_node_id)i, &nu);
        for (k = 0; k < nu; k++)
            if (p->nodes[us[k]].dist + 1 < d)
                d = p->nodes[us[k]].dist + 1;
        pn->dist = d;
    }
}

/* ---- Bans ------------------------------------------------------------------- */

/* _size_of as the 4x rule uses it. */
static int64_t size_of(const sc_partition *p, sc_node_id id)
{
    const sc__pnode *pn = &p->nodes[id];
    size_t k, nu;
    const sc_node_id *us;
    int64_t s = 0;
    switch (pn->vkind) {
    case SC__PV_TENSOR:
        return pn->bytes;
    case SC__PV_SYMINT:
        return 1;
    case SC__PV_TUPLE:
        us = users_of(p, id, &nu);
        for (k = 0; k < nu; k++)
            if (sc_graph_node_op(p->g, us[k]) == SC_OP_GETITEM &&
                p->nodes[us[k]].bytes > 0)
                s += p->nodes[us[k]].bytes;
        return s;
    default:
        return 0;
    }
}

static bool reduction_rule(const sc_partition *p, sc_node_id id)
{
    size_t i, npos = sc_graph_node_num_positional(p->g, id);
    int64_t in = 0;
    for (i = 0; i < npos; i++) {
        const sc_value *v = sc_graph_node_arg(p->g, id, i);
        if (v->kind == SC_VALUE_NODE)
            in += size_of(p, p->nodes[v->u.node].rep);
    }
    return size_of(p, id) * 4 < in;
}

static bool materialized(const sc_partition *p, sc_node_id id)
{
    size_t k, nu;
    const sc_node_id *us;
    if (sc_graph_node_kind(p->g, id) == SC_NODE_PLACEHOLDER ||
        (p->nodes[id].flags & SC__PN_OUT_USED))
        return true;
    if (!sc__partition_fusible(p, id))
        return users_of(p, id, &nu), nu > 0;
    us = users_of(p, id, &nu);
    for (k = 0; k < nu; k++)
        if (!sc__partition_fusible(p, us[k]))
            return true;
    return false;
}

/* Current PyTorch: is the node (or a view of it) used by a backward op
 * that cannot fuse it, so that recomputing it costs a materialization? */
static bool materialized_backward(const sc_partition *p, sc_node_id id,
                                  sc__idlist *stack)
{
    size_t k, nu;
    const sc_node_id *us;
    if (is_view(p, id))
        return false;
    stack->n = 0;
    if (!sc__idlist_push(stack, id))
        return false;
    while (stack->n > 0) {
        sc_node_id cur = stack->ids[--stack->n];
        if (p->nodes[cur].flags & SC__PN_OUT_USED)
            return true;
        us = users_of(p, cur, &nu);
        for (k = 0; k < nu; k++) {
            sc_node_id u = us[k];
            if (!(p->nodes[u].cls & SC_PARTITION_REQUIRED_FW) &&
                !(sc__partition_fusible(p, cur) &&
                  sc__partition_fusible(p, u)))
                return true;
            if (is_view(p, u) && !sc__idlist_push(stack, u))
                return false;
        }
    }
    return false;
}

static sc_partition_ban op_ban(const sc_partition *p, sc_node_id id)
{
    int op = sc_graph_node_op(p->g, id);
    if (op >= 0) {
        const sc__op_info *info = sc__op_get((sc__op)op);
        if (info->cls == SC_CLASS_RANDOM || info->functorch_random)
            return SC_PARTITION_BAN_RANDOM;
        if (info->nmutates > 0 || info->is_inplace)
            return SC_PARTITION_BAN_MUTATES;
        if (sc__partition_recomputable(p, id))
            return SC_PARTITION_BAN_NONE;
        if (info->cls == SC_CLASS_COMPUTE_INTENSIVE)
            return SC_PARTITION_BAN_COMPUTE_INTENSIVE;
        return SC_PARTITION_BAN_NOT_RECOMPUTABLE;
    }
    return sc__partition_recomputable(p, id)
               ? SC_PARTITION_BAN_NONE
               : SC_PARTITION_BAN_NOT_RECOMPUTABLE;
}

static sc_status bans(sc_partition *p, sc_error *err)
{
    size_t i;
    sc__idlist stack = {NULL, 0, 0};
    bool modern = p->policy != SC_PARTITION_PYTORCH_1_13;

    for (i = 0; i < p->n; i++) {
        sc__pnode *pn = &p->nodes[i];
        sc_node_id id = (sc_node_id)i;
        sc_partition_ban b = SC_PARTITION_BAN_NONE;
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (pn->flags & SC__PN_PRIMAL) {
            pn->ban = SC_PARTITION_BAN_PRIMAL;
            continue;
        }
        if (!(pn->cls & SC_PARTITION_REQUIRED_FW) ||
            sc_graph_node_kind(p->g, id) != SC_NODE_CALL)
            continue;
        if (pn->tag == SC_PARTITION_TAG_MUST_SAVE) {
            pn->ban = SC_PARTITION_BAN_MUST_SAVE;
            continue;
        }
        b = op_ban(p, id);
        /* Writes and random draws are never repeated, whatever a tag
         * says. */
        if (b == SC_PARTITION_BAN_RANDOM || b == SC_PARTITION_BAN_MUTATES) {
            pn->ban = (uint8_t)b;
            continue;
        }
        if (modern && pn->tag != SC_PARTITION_TAG_NONE)
            continue; /* must_recompute / prefer_recompute: never banned */
        if (sc_graph_node_op(p->g, id) == SC_OP_GETITEM)
            continue;
        if (b == SC_PARTITION_BAN_NONE && modern) {
            bool mb = materialized_backward(p, id, &stack);
            if (stack.cap && !stack.ids) {
                sc__idlist_free(&stack);
                return sc__error_nomem(err);
            }
            if (mb)
                b = SC_PARTITION_BAN_MATERIALIZED_BACKWARD;
        }
        if (b == SC_PARTITION_BAN_NONE && reduction_rule(p, id))
            b = SC_PARTITION_BAN_REDUCTION;
        pn->ban = (uint8_t)b;
    }
    sc__idlist_free(&stack);
    return SC_OK;
}

/* ---- Weights ------------------------------------------------------------- */

/* int(bytes * 1.1 ** max(min(dist, 100), 1)), in doubles exactly as
 * Python computes it: PyTorch's capacity is this integer. */
static int64_t heuristic_weight(int64_t bytes, int32_t dist)
{
    int k = dist > 100 ? 100 : dist < 1 ? 1 : dist;
    double w = (double)bytes * pow(1.1, (double)k);
    if (w >= 9007199254740992.0)
        return INT64_MAX / 4;
    return (int64_t)w;
}

static void weights(sc_partition *p)
{
    size_t i;
    for (i = 0; i < p->n; i++) {
        sc__pnode *pn = &p->nodes[i];
        sc_node_id id = (sc_node_id)i;
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (pn->flags & SC__PN_IN_SINK) {
            pn->weight = 0;
            continue;
        }
        if (pn->vkind == SC__PV_SYMINT) {
            pn->weight = p->policy == SC_PARTITION_PYTORCH_1_13 ? -1
                         : p->policy == SC_PARTITION_EXACT      ? 8
                                                                : 1;
            continue;
        }
        if (pn->vkind != SC__PV_TENSOR) {
            pn->weight = -1;
            continue;
        }
        if ((pn->flags & SC__PN_PARAM) &&
            p->policy != SC_PARTITION_PYTORCH_1_13) {
            pn->weight = 0;
            continue;
        }
        if (p->policy == SC_PARTITION_EXACT) {
            pn->weight = pn->bytes;
            continue;
        }
        pn->weight = heuristic_weight(pn->bytes, pn->dist);
        if (!materialized(p, id))
            pn->weight *= 2;
        else
            pn->cls |= SC_PARTITION_MATERIALIZED;
    }
}

sc_status sc__partition_classify(sc_partition *p, sc_error *err)
{
    size_t i;
    sc_status status = classify_nodes(p, err);
    if (status != SC_OK)
        return status;
    distances(p);
    status = bans(p, err);
    if (status != SC_OK)
        return status;
    for (i = 0; i < p->n; i++) {
        sc__pnode *pn = &p->nodes[i];
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (pn->cls & SC_PARTITION_TANGENT_CLOSURE) {
            pn->cls |= SC_PARTITION_REQUIRED_BW;
            pn->flags |= SC__PN_IN_SINK;
            continue;
        }
        if (p->policy != SC_PARTITION_PYTORCH_1_13) {
            if (pn->tag == SC_PARTITION_TAG_MUST_RECOMPUTE &&
                sc_graph_node_kind(p->g, (sc_node_id)i) == SC_NODE_CALL &&
                pn->ban != SC_PARTITION_BAN_RANDOM &&
                pn->ban != SC_PARTITION_BAN_MUTATES) {
                pn->flags |= SC__PN_IN_SINK;
                continue;
            }
            if (pn->cls & SC_PARTITION_BW_OUTPUT) {
                pn->cls |= SC_PARTITION_REQUIRED_BW;
                pn->flags |= SC__PN_OUT_SINK;
            }
        }
        if (pn->ban != SC_PARTITION_BAN_NONE)
            pn->flags |= SC__PN_SRC;
    }
    weights(p);
    return SC_OK;
}

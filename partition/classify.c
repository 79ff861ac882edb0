/* symcut — partitioner phase 1: which nodes the forward requires, which
 * depend on a tangent, each forward node's distance to the backward, the
 * ban rules and the weights, per policy.
 *
 * The pytorch and exact policies follow current PyTorch's solve_min_cut
 * (torch/_functorch/partitioners.py) rule by rule, with its config knobs
 * as sc_partition_options fields (doc/partition.md, "Ban rules"). */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ops.h"
#include "partition/partition-internal.h"

#define DIST_INF 1000000000

/* The ban rules in force (the options, or PyTorch's defaults). */
typedef struct rules {
    bool modern;         /* pytorch or exact: current PyTorch's rules */
    unsigned off;        /* SC_PARTITION_RULE_* bits turned off */
    int32_t max_dist;    /* config.max_dist_from_bw */
    int32_t chain_limit; /* the long-fusible-chain length */
    const uint8_t *props; /* per node: P_* bits (sc__partition_classify) */
} rules;

/* Per-node properties the rules test on every use edge, in one byte a node
 * (the joint's 64-byte nodes, read once in order, stay out of the walks). */
enum {
    P_FUSIBLE = 1, /* canonical, and the policy's fusible op */
    P_CAT = 2,     /* aten.cat: current PyTorch fuses anything into it */
    P_VIEW = 4,    /* the op table's view class */
    OP_PROPS_KNOWN = 0x80 /* (per-op cache of sc__partition_classify) */
};

static bool rule_on(const rules *r, unsigned bit)
{
    return r->modern && !(r->off & bit);
}

static void rules_init(rules *r, const sc_partition *p)
{
    memset(r, 0, sizeof *r);
    r->modern = p->policy != SC_PARTITION_PYTORCH_1_13;
    /* the options with their defaults resolved (run.c) */
    sc_partition_rules(p, &r->off, &r->max_dist, &r->chain_limit);
}

/* PyTorch 1.13's default (compiler="nvfuser") recomputable overload
 * packets: its recomputable_ops list, by name, as the 1.13.1 release
 * (functorch/_src/partitioners.py) has it, the release that made the
 * examples' decisions (it reproduces their flow networks edge for edge).
 * 1.13 decides per packet (aten.add covers add.Tensor and add.Scalar),
 * so the pytorch-1.13 policy looks every call up here by the packet of
 * its target, known to the op table or not.  It has softmax, _softmax
 * and _softmax_backward_data (later releases moved them to the
 * compute-intensive list) and not _to_copy or rsub (later additions).
 * Sorted for bsearch. */
static const char *const nvfuser_packets[] = {
    "__and__", "__lshift__", "__or__", "__rshift__", "__xor__",
    "_grad_sum_to_size", "_softmax", "_softmax_backward_data", "abs",
    "acos", "add", "addcmul", "alias", "amax", "asin", "atan", "atan2",
    "atanh", "bitwise_not", "ceil", "clamp", "cos", "cosh", "div", "eq",
    "erf", "erfc", "exp", "expm1", "floor", "fmod", "frac", "ge", "gelu",
    "gelu_backward", "gt", "le", "lerp", "lgamma", "log", "log10", "log1p",
    "log2", "lt", "max", "mean", "min", "mul", "ne", "neg", "pow",
    "reciprocal", "relu", "remainder", "round", "rsqrt", "sigmoid", "silu",
    "sin", "sinh", "softmax", "softplus", "sqrt", "squeeze", "sub", "sum",
    "sum_to_size", "tan", "tanh", "threshold", "threshold_backward", "to",
    "trunc", "type_as", "unsqueeze", "where"};

static int cmp_name(const void *key, const void *elem)
{
    const char *k = key;
    const char *const *e = elem;
    return strcmp(k, *e);
}

/* "torch.ops.aten.atan2.default" -> is "atan2" in the 1.13 list?  (Other
 * targets, such as operator.mul for SymInt arithmetic, are not: 1.13
 * compares the target object itself.) */
static bool in_nvfuser_list(const char *target)
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

/* torch 2.13 decides per packet too (get_aten_target): the target
 * "torch.ops.aten.add.Tensor" is looked up as "torch.ops.aten.add";
 * other targets ("operator.mul", "torch.sym_max") as they are. */
unsigned sc__partition_oplist_2_13(const char *target)
{
    char buf[160];
    const char *key = target;
    size_t lo = 0, hi = sc__oplist_2_13_count;
    if (!target)
        return 0;
    if (strcmp(target, "operator.getitem") == 0)
        return SC__OPL_RECOMPUTABLE;
    if (strncmp(target, "torch.ops.", 10) == 0) {
        const char *ns_end = strchr(target + 10, '.');
        const char *name_end = ns_end ? strchr(ns_end + 1, '.') : NULL;
        if (name_end) {
            if ((size_t)(name_end - target) >= sizeof buf)
                return 0;
            memcpy(buf, target, (size_t)(name_end - target));
            buf[name_end - target] = '\0';
            key = buf;
        }
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(key, sc__oplist_2_13[mid].packet);
        if (c == 0)
            return sc__oplist_2_13[mid].bits;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return 0;
}

static int cmp_str(const void *key, const void *elem)
{
    return strcmp((const char *)key, *(const char *const *)elem);
}

bool sc__partition_impure_2_13(const char *target)
{
    return target &&
           bsearch(target, sc__impure_2_13, sc__impure_2_13_count,
                   sizeof sc__impure_2_13[0], cmp_str) != NULL;
}

bool sc__partition_seeded_2_13(const char *target)
{
    return target &&
           bsearch(target, sc__seeded_2_13, sc__seeded_2_13_count,
                   sizeof sc__seeded_2_13[0], cmp_str) != NULL;
}

bool sc__partition_mutable_2_13(const char *target)
{
    return sc__partition_impure_2_13(target) &&
           bsearch(target, sc__impure_unwritten_2_13,
                   sc__impure_unwritten_2_13_count,
                   sizeof sc__impure_unwritten_2_13[0], cmp_str) == NULL;
}

static unsigned oplist_bits(const sc_partition *p, sc_node_id id)
{
    if (sc_graph_node_kind(p->g, id) != SC_NODE_CALL)
        return 0;
    return sc__partition_oplist_2_13(sc_graph_node_target(p->g, id));
}

bool sc__partition_recomputable(const sc_partition *p, sc_node_id id)
{
    int op;
    if (sc_graph_node_kind(p->g, id) != SC_NODE_CALL)
        return false;
    op = sc__graph_node_op(p->g, id);
    if (op == SC_OP_GETITEM)
        return true;
    if (p->policy == SC_PARTITION_PYTORCH_2_13)
        return (oplist_bits(p, id) & SC__OPL_RECOMPUTABLE) != 0;
    if (p->policy == SC_PARTITION_PYTORCH_1_13)
        return in_nvfuser_list(sc_graph_node_target(p->g, id));
    if (op < 0)
        return false;
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
    if (p->policy == SC_PARTITION_PYTORCH_2_13)
        return (oplist_bits(p, id) & SC__OPL_RANDOM) != 0;
    op = sc__graph_node_op(p->g, id);
    return op >= 0 && sc__op_get((sc__op)op)->functorch_random;
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
        /* torch 2.13's classify_nodes: a node that must be in the
         * backward is required by it like a tangent */
        if ((pn->flags & SC__PN_TANGENT) || (pn->ptag & SC__PT_BW))
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
    if (p->policy == SC_PARTITION_PYTORCH_2_13) {
        /* impure by the target's name: once per known op */
        /* per op: 0 not known, 1 pure, 2 impure, for the (interned)
         * target in impure_target */
        uint8_t impure_op[SC_OP_COUNT_];
        const char *impure_target[SC_OP_COUNT_];
        memset(impure_op, 0, sizeof impure_op);
        for (i = 0; i < p->n; i++) {
            int op;
            bool known, impure;
            const char *t;
            if (!(p->nodes[i].flags & SC__PN_CANON) ||
                (p->nodes[i].cls & SC_PARTITION_TANGENT_CLOSURE) ||
                sc_graph_node_kind(g, (sc_node_id)i) != SC_NODE_CALL)
                continue;
            op = sc__graph_node_op(g, (sc_node_id)i);
            t = sc_graph_node_target(g, (sc_node_id)i);
            known = op >= 0 && op < (int)SC_OP_COUNT_;
            if (!known || !impure_op[op] || impure_target[op] != t)
                impure = sc__partition_impure_2_13(t);
            else
                impure = impure_op[op] == 2;
            if (known) {
                impure_op[op] = impure ? 2 : 1;
                impure_target[op] = t;
            }
            if (impure)
                p->nodes[i].flags |= SC__PN_IN_FW;
        }
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
            size_t na = sc_graph_node_arg_count(g, (sc_node_id)i);
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
            if (sc__graph_node_op(p->g, us[k]) == SC_OP_GETITEM &&
                p->nodes[us[k]].bytes > 0)
                s += p->nodes[us[k]].bytes;
        return s;
    default:
        return 0;
    }
}

static bool reduction_rule(const sc_partition *p, sc_node_id id)
{
    size_t i, npos = sc_graph_node_positional_count(p->g, id);
    int64_t in = 0;
    for (i = 0; i < npos; i++) {
        const sc_value *v = sc_graph_node_arg(p->g, id, i);
        if (v->kind == SC_VALUE_NODE)
            in += size_of(p, p->nodes[v->u.node].rep);
    }
    return size_of(p, id) * 4 < in;
}

/* torch 2.13: the allowlist alone; a write is an op like any other (its
 * joint graphs are functional, and the in-place variants of pointwise
 * ops are in its list). */
static sc_partition_ban op_ban_2_13(const sc_partition *p, sc_node_id id)
{
    unsigned bits = oplist_bits(p, id);
    if (sc__graph_node_op(p->g, id) == SC_OP_GETITEM ||
        (bits & SC__OPL_RECOMPUTABLE))
        return SC_PARTITION_BAN_NONE;
    if (bits & SC__OPL_RANDOM)
        return SC_PARTITION_BAN_RANDOM;
    if (bits & SC__OPL_COMPUTE_INTENSIVE)
        return SC_PARTITION_BAN_COMPUTE_INTENSIVE;
    return SC_PARTITION_BAN_NOT_RECOMPUTABLE;
}

static sc_partition_ban op_ban(const sc_partition *p, sc_node_id id)
{
    int op = sc__graph_node_op(p->g, id);
    if (p->policy == SC_PARTITION_PYTORCH_2_13)
        return op_ban_2_13(p, id);
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

/* is_fusible(a, b) of the policy: both ops fusible; current PyTorch also
 * fuses anything into a cat consumer ("memory fusion"). */
static bool fusible_edge(const sc_partition *p, const rules *r,
                         const uint8_t *fus, sc_node_id a, sc_node_id b)
{
    (void)p;
    if (r->modern && (fus[b] & P_CAT))
        return true;
    return (fus[a] & fus[b] & P_FUSIBLE) != 0;
}

/* PyTorch's view_ops: never banned, and see-through for the
 * materialized-backward rule.  Here the op table's view class, consistent
 * with the class-based recomputable list: PyTorch's own list (squeeze,
 * unsqueeze, alias, view, slice, t, expand, as_strided, permute, select,
 * split) lacks transpose, reshape, _unsafe_view, _reshape_alias, detach,
 * unbind, split_with_sizes, which its decompositions remove before
 * partitioning but which are views (and recomputable) here. */
static bool is_view(const sc_partition *p, const rules *r, sc_node_id id)
{
    (void)p;
    return (r->props[id] & P_VIEW) != 0;
}

/* PyTorch's is_materialized: a placeholder, an output, or a node with a
 * user it cannot fuse into (then its weight is not doubled). */
static bool materialized(const sc_partition *p, const rules *r,
                         const uint8_t *fus, sc_node_id id)
{
    size_t k, nu;
    const sc_node_id *us;
    if (sc_graph_node_kind(p->g, id) == SC_NODE_PLACEHOLDER ||
        (p->nodes[id].flags & SC__PN_OUT_USED))
        return true;
    us = users_of(p, id, &nu);
    for (k = 0; k < nu; k++)
        if (!fusible_edge(p, r, fus, id, us[k]))
            return true;
    return false;
}

/* Current PyTorch's is_materialized_backwards: is the node (or a view of
 * it) used by a backward op that cannot fuse it, so that recomputing it
 * costs a materialization?  A view never is.  *nomem on exhaustion. */
static bool materialized_backward(const sc_partition *p, const rules *r,
                                  const uint8_t *fus, sc_node_id id,
                                  sc__idlist *stack, bool *nomem)
{
    size_t k, nu;
    const sc_node_id *us;
    if (is_view(p, r, id))
        return false;
    stack->n = 0;
    if (!sc__idlist_push(stack, id))
        return *nomem = true, false;
    while (stack->n > 0) {
        sc_node_id cur = stack->ids[--stack->n];
        if (p->nodes[cur].flags & SC__PN_OUT_USED)
            return true; /* the output node: not required-forward, and
                            nothing fuses into it */
        us = users_of(p, cur, &nu);
        for (k = 0; k < nu; k++) {
            sc_node_id u = us[k];
            if (!(p->nodes[u].cls & SC_PARTITION_REQUIRED_FW) &&
                !fusible_edge(p, r, fus, cur, u))
                return true;
            if (is_view(p, r, u) && !sc__idlist_push(stack, u))
                return *nomem = true, false;
        }
    }
    return false;
}

/* aten.lift_fresh_copy.default and aten.lift_fresh.default, which torch
 * 2.13 never bans */
static bool lift_fresh(const sc_partition *p, sc_node_id id)
{
    const char *t = sc_graph_node_target(p->g, id);
    return t && (strcmp(t, "torch.ops.aten.lift_fresh_copy.default") == 0 ||
                 strcmp(t, "torch.ops.aten.lift_fresh.default") == 0);
}

static bool recompute_tagged(const sc__pnode *pn)
{
    return pn->tag == SC_PARTITION_TAG_MUST_RECOMPUTE ||
           pn->tag == SC_PARTITION_TAG_PREFER_RECOMPUTE;
}

/* torch's float symbols are named zfN (backed) and zufN (unbacked). */
bool sc__partition_float_symbol(const sc_expr *e)
{
    const char *n;
    if (!e || !sc_expr_is_symbol(e))
        return false;
    n = sc_expr_symbol_name(e);
    return n && (strncmp(n, "zf", 2) == 0 || strncmp(n, "zuf", 3) == 0);
}

/* Under pytorch-2.13, is the node a SymFloat (its value a float symbol,
 * as `_local_scalar_dense: "Sym(zf85)"` of a floating tensor)?  torch
 * never bans one and weighs it 4 (sym_node_size). */
static bool symfloat_2_13(const sc_partition *p, sc_node_id id)
{
    sc_result r;
    if (p->policy != SC_PARTITION_PYTORCH_2_13 ||
        p->nodes[id].vkind != SC__PV_SYMINT)
        return false;
    sc_graph_node_result(p->g, id, &r);
    return r.kind == SC_RESULT_SYMINT && sc__partition_float_symbol(r.expr);
}

/* PyTorch's ban_recomputation_if_allowed: never a view, never a node
 * tagged must_recompute or prefer_recompute (nor, under pytorch-2.13, a
 * SymFloat).  (Nodes already banned keep
 * their first reason.) */
static void ban_if_allowed(sc_partition *p, const rules *r, sc_node_id id,
                           sc_partition_ban why)
{
    sc__pnode *pn = &p->nodes[id];
    if (pn->ban != SC_PARTITION_BAN_NONE || is_view(p, r, id) ||
        recompute_tagged(pn) || symfloat_2_13(p, id))
        return;
    pn->ban = (uint8_t)why;
}

/* PyTorch 1.13's rules: not recomputable, the 4x reduction rule; must_save;
 * random and mutating ops. */
static sc_partition_ban ban_1_13(const sc_partition *p, sc_node_id id)
{
    const sc__pnode *pn = &p->nodes[id];
    sc_partition_ban b;
    if (pn->tag == SC_PARTITION_TAG_MUST_SAVE)
        return SC_PARTITION_BAN_MUST_SAVE;
    b = op_ban(p, id);
    if (b != SC_PARTITION_BAN_NONE ||
        sc__graph_node_op(p->g, id) == SC_OP_GETITEM)
        return b;
    return reduction_rule(p, id) ? SC_PARTITION_BAN_REDUCTION
                                 : SC_PARTITION_BAN_NONE;
}

/* Current PyTorch's should_ban_recomputation, filtered through
 * ban_recomputation_if_allowed. */
static sc_partition_ban ban_modern(const sc_partition *p, const rules *r,
                                   const uint8_t *fus, sc_node_id id,
                                   sc__idlist *stack, bool *nomem)
{
    const sc__pnode *pn = &p->nodes[id];
    sc_partition_ban b = op_ban(p, id);
    int op = sc__graph_node_op(p->g, id);
    /* A write is never repeated, whatever a tag says (PyTorch's joint
     * graphs are functional; it force-saves mutation sources).  The
     * reason stays op_ban's: bernoulli_ is a random op first. */
    if (p->policy != SC_PARTITION_PYTORCH_2_13 && op >= 0 &&
        (sc__op_get((sc__op)op)->nmutates > 0 ||
         sc__op_get((sc__op)op)->is_inplace))
        return b;
    if (recompute_tagged(pn) || sc__graph_node_op(p->g, id) == SC_OP_GETITEM ||
        is_view(p, r, id))
        return SC_PARTITION_BAN_NONE;
    if (pn->tag == SC_PARTITION_TAG_MUST_SAVE)
        return SC_PARTITION_BAN_MUST_SAVE;
    if (p->policy == SC_PARTITION_PYTORCH_2_13 && lift_fresh(p, id))
        return SC_PARTITION_BAN_NONE;
    if (!rule_on(r, SC_PARTITION_RULE_NOT_IN_ALLOWLIST) &&
        b == SC_PARTITION_BAN_NOT_RECOMPUTABLE)
        b = SC_PARTITION_BAN_NONE; /* a denylist: random, compute-intensive */
    if (b != SC_PARTITION_BAN_NONE)
        return b;
    if (rule_on(r, SC_PARTITION_RULE_MATERIALIZED_BACKWARD) &&
        materialized_backward(p, r, fus, id, stack, nomem))
        return SC_PARTITION_BAN_MATERIALIZED_BACKWARD;
    if (pn->dist < 1000 && pn->dist > r->max_dist)
        return SC_PARTITION_BAN_FAR_FROM_BACKWARD;
    if (rule_on(r, SC_PARTITION_RULE_REDUCTIONS) && reduction_rule(p, id))
        return SC_PARTITION_BAN_REDUCTION;
    return SC_PARTITION_BAN_NONE;
}

static sc_status bans(sc_partition *p, const rules *r, const uint8_t *fus,
                      sc_error *err)
{
    size_t i;
    sc__idlist stack = {NULL, 0, 0};
    bool nomem = false;

    for (i = 0; i < p->n && !nomem; i++) {
        sc__pnode *pn = &p->nodes[i];
        sc_node_id id = (sc_node_id)i;
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (pn->flags & SC__PN_PRIMAL) {
            pn->ban = SC_PARTITION_BAN_PRIMAL;
            continue;
        }
        if (!(pn->cls & SC_PARTITION_REQUIRED_FW) ||
            sc_graph_node_kind(p->g, id) != SC_NODE_CALL ||
            symfloat_2_13(p, id))
            continue;
        pn->ban = (uint8_t)(r->modern
                                ? ban_modern(p, r, fus, id, &stack, &nomem)
                                : ban_1_13(p, id));
    }
    sc__idlist_free(&stack);
    return nomem ? sc__error_nomem(err) : SC_OK;
}

/* ---- Used far apart, long fusible chains -------------------------------- */

/* order[i]: PyTorch's fw_order, the index of i among the required-forward
 * nodes in joint order (primals included); -1 for the others.  Node ids
 * increase with it. */
static int32_t *forward_order(const sc_partition *p)
{
    int32_t *order = sc__malloc((p->n ? p->n : 1) * sizeof *order);
    int32_t k = 0;
    size_t i;
    if (!order)
        return NULL;
    for (i = 0; i < p->n; i++)
        order[i] = (p->nodes[i].flags & SC__PN_CANON) &&
                           (p->nodes[i].cls & SC_PARTITION_REQUIRED_FW)
                       ? k++
                       : -1;
    return order;
}

/* ban_recompute_used_far_apart.  PyTorch, for each required-forward node
 * N with forward users, finds first = find_first_unfusible(users, max
 * user order): a heap walk from N's forward users along fusible edges, in
 * forward order, stopping at the first node reached by a non-fusible edge
 * (else the last user's order); then bans every forward user of N ordered
 * after `first` that N fuses into: recomputing it would recompute N next
 * to a use it cannot fuse with.
 *
 * The walk pops in increasing order and every edge increases the order, so
 * its answer is min(max user order, min over N's users S of reach(S)),
 * where reach(Z) = min over Z's forward users W of (order(W) if Z -> W is
 * not fusible, else reach(W)): one reverse sweep computes every reach in
 * linear time, where the walk per node is quadratic on long fusible
 * regions. */
static sc_status used_far_apart(sc_partition *p, const rules *r,
                                const uint8_t *fus, const int32_t *order,
                                sc_error *err)
{
    int32_t *reach = sc__malloc((p->n ? p->n : 1) * sizeof *reach);
    size_t i, k, nu;
    const sc_node_id *us;

    if (!reach)
        return sc__error_nomem(err);
    for (i = p->n; i-- > 0;) {
        int32_t best = INT32_MAX;
        if (order[i] < 0)
            continue;
        us = users_of(p, (sc_node_id)i, &nu);
        for (k = 0; k < nu; k++) {
            sc_node_id u = us[k];
            int32_t v;
            if (order[u] < 0)
                continue;
            v = fusible_edge(p, r, fus, (sc_node_id)i, u) ? reach[u]
                                                          : order[u];
            if (v < best)
                best = v;
        }
        reach[i] = best;
    }
    for (i = 0; i < p->n; i++) {
        int32_t last = -1, first = INT32_MAX;
        if (order[i] < 0)
            continue;
        us = users_of(p, (sc_node_id)i, &nu);
        for (k = 0; k < nu; k++) {
            sc_node_id u = us[k];
            if (order[u] < 0)
                continue;
            if (order[u] > last)
                last = order[u];
            if (reach[u] < first)
                first = reach[u];
        }
        if (last < 0)
            continue;
        if (first > last)
            first = last;
        for (k = 0; k < nu; k++) {
            sc_node_id u = us[k];
            if (order[u] > first && fusible_edge(p, r, fus, (sc_node_id)i, u))
                ban_if_allowed(p, r, u, SC_PARTITION_BAN_USED_FAR_APART);
        }
    }
    sc__free(reach);
    return SC_OK;
}

/* A binary min-heap of node ids (duplicates kept, as Python's heapq). */
typedef struct idheap {
    sc_node_id *v;
    size_t n, cap;
} idheap;

static bool heap_push(idheap *h, sc_node_id x)
{
    size_t i;
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 64;
        sc_node_id *v = sc__realloc(h->v, cap * sizeof *v);
        if (!v)
            return false;
        h->v = v;
        h->cap = cap;
    }
    i = h->n++;
    while (i > 0 && h->v[(i - 1) / 2] > x) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = x;
    return true;
}

static sc_node_id heap_pop(idheap *h)
{
    sc_node_id top = h->v[0], x = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->v[c + 1] < h->v[c])
            c++;
        if (h->v[c] >= x)
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n > 0)
        h->v[i] = x;
    return top;
}

/* ban_recompute_long_fusible_chains, as PyTorch walks it: from each
 * required-forward node in joint order, a heap walk in forward order along
 * fusible edges into forward users not banned (so far), skipping nodes any
 * earlier walk visited; when the node just popped is more than
 * chain_limit forward nodes after the start and nothing else is pending
 * (every branch has joined in it), it is banned (if allowed) and the walk
 * stops.  Linear but for the heap: each node is expanded once. */
static sc_status long_fusible_chains(sc_partition *p, const rules *r,
                                     const uint8_t *fus,
                                     const int32_t *order, sc_error *err)
{
    uint8_t *visited = sc__calloc(p->n ? p->n : 1, 1);
    idheap h = {NULL, 0, 0};
    size_t s, k, nu;
    const sc_node_id *us;
    sc_status status = SC_OK;

    if (!visited)
        return sc__error_nomem(err);
    for (s = 0; s < p->n; s++) {
        if (order[s] < 0)
            continue;
        h.n = 0;
        if (!heap_push(&h, (sc_node_id)s))
            SC_CHECK(sc__error_nomem(err));
        while (h.n > 0) {
            sc_node_id cur = heap_pop(&h);
            if (visited[cur])
                continue;
            visited[cur] = 1;
            if ((int64_t)order[cur] > (int64_t)order[s] + r->chain_limit &&
                h.n == 0) {
                ban_if_allowed(p, r, cur, SC_PARTITION_BAN_LONG_FUSIBLE_CHAIN);
                break;
            }
            us = users_of(p, cur, &nu);
            for (k = 0; k < nu; k++) {
                sc_node_id u = us[k];
                if (order[u] >= 0 && fusible_edge(p, r, fus, cur, u) &&
                    p->nodes[u].ban == SC_PARTITION_BAN_NONE &&
                    !heap_push(&h, u))
                    SC_CHECK(sc__error_nomem(err));
            }
        }
    }
fail:
    sc__free(h.v);
    sc__free(visited);
    return status;
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

static void weights(sc_partition *p, const rules *r, const uint8_t *fus)
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
            pn->weight = symfloat_2_13(p, id)                ? 4
                         : p->policy == SC_PARTITION_PYTORCH_1_13 ? -1
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
        if (!materialized(p, r, fus, id))
            pn->weight *= 2;
        else
            pn->cls |= SC_PARTITION_MATERIALIZED;
    }
}

/* ---- torch 2.13's passes on the tags, before classification -------------
 * The joint module's meta that the printed text does not carry comes from
 * `# symcut:` lines: `ac_graph_id NODE=N, ...` (the activation-checkpoint
 * region a node was traced in), `has_backward_hook NODE, ...`, and the
 * partitioner tags `must_be_in_forward NODE, ...` and `must_be_in_backward
 * NODE, ...` of the copy_ nodes that write an input back.  As torch's CSE
 * keeps the first node and its meta, a name that CSE folded into another
 * node, or a dead node, is ignored. */

enum { M_HAS_AC = 1, M_HOOK = 2, M_FW = 4, M_BW = 8 };

/* Calls fn(p, id, value, user) for every item of directive key ("NODE" or
 * "NODE=INT"), id the canonical node (SC_NODE_NONE: folded or dead). */
static sc_status each_item(sc_partition *p, const char *key, bool valued,
                           sc_status (*fn)(sc_partition *, sc_node_id,
                                           long long, void *),
                           void *user, sc_error *err)
{
    const char *s = sc_graph_directive(p->g, key);
    char buf[256];
    while (s && *s) {
        const char *start, *eq = NULL;
        size_t len;
        long long v = 0;
        sc_node_id id;
        while (*s && (*s == ' ' || *s == '\t' || *s == ','))
            s++;
        start = s;
        while (*s && *s != ' ' && *s != '\t' && *s != ',') {
            if (*s == '=' && !eq)
                eq = s;
            s++;
        }
        if (s == start)
            break;
        len = (size_t)((eq ? eq : s) - start);
        if (valued) {
            char *end;
            if (!eq || eq + 1 == s)
                return sc__error_set(err, SC_ERR_INVALID,
                                     "# symcut: %s: '%.*s' is not NODE=N", key,
                                     (int)(s - start), start);
            v = strtoll(eq + 1, &end, 10);
            if (end != s)
                return sc__error_set(err, SC_ERR_INVALID,
                                     "# symcut: %s: '%.*s' is not NODE=N", key,
                                     (int)(s - start), start);
        } else if (eq) {
            return sc__error_set(err, SC_ERR_INVALID,
                                 "# symcut: %s: '%.*s' is not a node name",
                                 key, (int)(s - start), start);
        }
        if (len >= sizeof buf)
            return sc__error_set(err, SC_ERR_INVALID,
                                 "# symcut: %s: node name too long", key);
        memcpy(buf, start, len);
        buf[len] = '\0';
        id = sc_graph_find(p->g, buf);
        if (id == SC_NODE_NONE)
            return sc__error_set(err, SC_ERR_INVALID,
                                 "# symcut: %s: no node named '%s' in the "
                                 "graph", key, buf);
        if (!(p->nodes[id].flags & SC__PN_CANON))
            id = SC_NODE_NONE;
        SC_TRY(fn(p, id, v, user));
    }
    return SC_OK;
}

typedef struct meta_scratch {
    uint8_t *bits;     /* M_* per node */
    long long *ac;     /* ac_graph_id per node */
    unsigned want;     /* the bit a valueless directive sets */
} meta_scratch;

static sc_status set_meta(sc_partition *p, sc_node_id id, long long v,
                          void *user)
{
    meta_scratch *m = user;
    (void)p;
    if (id == SC_NODE_NONE)
        return SC_OK;
    m->bits[id] |= (uint8_t)m->want;
    if (m->want == M_HAS_AC)
        m->ac[id] = v;
    return SC_OK;
}

static bool is_target(const sc_partition *p, sc_node_id id,
                      const char *target)
{
    const char *t = sc_graph_node_target(p->g, id);
    return t && strcmp(t, target) == 0;
}

static bool is_copy_(const sc_partition *p, sc_node_id id)
{
    return is_target(p, id, "torch.ops.aten.copy_.default");
}

/* force_save_effectful_ops' walk: every getitem user of id, recursively;
 * those whose value is not a tuple are tagged must_save. */
static sc_status save_effect_outputs(sc_partition *p, sc_node_id id,
                                     sc_error *err)
{
    sc__idlist stack = {NULL, 0, 0};
    size_t k;
    sc_status status = SC_OK;
    if (!sc__idlist_push(&stack, id))
        return sc__error_nomem(err);
    while (stack.n > 0) {
        sc_node_id x = stack.ids[--stack.n];
        for (k = p->uoff[x]; k < p->uoff[x + 1]; k++) {
            sc_node_id u = p->users[k];
            if (sc__graph_node_op(p->g, u) != SC_OP_GETITEM)
                continue;
            if (!sc__idlist_push(&stack, u))
                SC_CHECK(sc__error_nomem(err));
            if (p->nodes[u].vkind != SC__PV_TUPLE)
                p->nodes[u].tag = SC_PARTITION_TAG_MUST_SAVE;
        }
    }
fail:
    sc__idlist_free(&stack);
    return status;
}

/* The canonical node argument k of node id refers to, or SC_NODE_NONE. */
static sc_node_id node_arg(const sc_partition *p, sc_node_id id, size_t k)
{
    const sc_value *v;
    if (k >= sc_graph_node_positional_count(p->g, id))
        return SC_NODE_NONE;
    v = sc_graph_node_arg(p->g, id, k);
    if (!v || v->kind != SC_VALUE_NODE)
        return SC_NODE_NONE;
    return p->nodes[v->u.node].rep != SC_NODE_NONE ? p->nodes[v->u.node].rep
                                                   : v->u.node;
}

/* torch 2.13's cleanup_recompute_tags (is_default_partition False) and
 * force_save_bw_mutation_src, on the tags run.c applied. */
static sc_status tag_passes_2_13(sc_partition *p, sc_error *err)
{
    meta_scratch m = {NULL, NULL, 0};
    size_t i, k;
    bool any = false;
    sc__idlist bw_written = {NULL, 0, 0};
    sc_status status = SC_OK;
    m.bits = sc__calloc(p->n ? p->n : 1, 1);
    m.ac = sc__calloc(p->n ? p->n : 1, sizeof *m.ac);
    if (!m.bits || !m.ac)
        SC_CHECK(sc__error_nomem(err));
    m.want = M_HAS_AC;
    SC_CHECK(each_item(p, "ac_graph_id", true, set_meta, &m, err));
    m.want = M_HOOK;
    SC_CHECK(each_item(p, "has_backward_hook", false, set_meta, &m, err));
    m.want = M_FW;
    SC_CHECK(each_item(p, "must_be_in_forward", false, set_meta, &m, err));
    m.want = M_BW;
    SC_CHECK(each_item(p, "must_be_in_backward", false, set_meta, &m, err));
    for (i = 0; i < p->n; i++)
        if ((p->nodes[i].flags & SC__PN_CANON) && recompute_tagged(&p->nodes[i]))
            any = true;
    /* cleanup_recompute_tags, when a node is tagged to recompute: the
     * last node of a checkpointed region that feeds a later region, and
     * a region's output with a backward hook, are saved.  Users come
     * after the node, so the tags this loop rewrites are never read
     * again. */
    for (i = 0; any && i < p->n; i++) {
        sc__pnode *pn = &p->nodes[i];
        bool user_tagged = false;
        if (!(pn->flags & SC__PN_CANON) || !recompute_tagged(pn))
            continue;
        for (k = p->uoff[i]; k < p->uoff[i + 1]; k++) {
            sc_node_id u = p->users[k];
            if (!recompute_tagged(&p->nodes[u]))
                continue;
            user_tagged = true;
            if ((m.bits[u] & M_HAS_AC) && (m.bits[i] & M_HAS_AC) &&
                m.ac[u] > m.ac[i])
                pn->tag = SC_PARTITION_TAG_MUST_SAVE;
        }
        if ((m.bits[i] & M_HOOK) && !user_tagged)
            pn->tag = SC_PARTITION_TAG_MUST_SAVE;
    }
    /* force_save_effectful_ops: the leaf getitems of a with_effects call
     * that is not tagged to recompute are saved (a getitem is never
     * banned, so this only overrides a recompute tag on them). */
    for (i = 0; i < p->n; i++)
        if ((p->nodes[i].flags & SC__PN_CANON) &&
            is_target(p, (sc_node_id)i, "torch.ops.higher_order.with_effects") &&
            !recompute_tagged(&p->nodes[i]))
            SC_CHECK(save_effect_outputs(p, (sc_node_id)i, err));
    /* force_save_bw_mutation_src: from the end of the joint, over the
     * copy_ nodes there (the joint writes inputs back last), the source
     * of a forward write of an input the backward also writes is saved. */
    for (i = p->n; i-- > 0;) {
        sc_node_id dst, src;
        if (!(p->nodes[i].flags & SC__PN_ALIVE))
            continue;
        if (!is_copy_(p, (sc_node_id)i))
            break;
        dst = node_arg(p, (sc_node_id)i, 0);
        if (dst == SC_NODE_NONE)
            continue;
        if (m.bits[i] & M_BW) {
            if (!sc__idlist_push(&bw_written, dst))
                SC_CHECK(sc__error_nomem(err));
        }
        if (m.bits[i] & M_FW) {
            for (k = 0; k < bw_written.n; k++)
                if (bw_written.ids[k] == dst)
                    break;
            src = node_arg(p, (sc_node_id)i, 1);
            if (k < bw_written.n && src != SC_NODE_NONE)
                p->nodes[src].tag = SC_PARTITION_TAG_MUST_SAVE;
        }
    }
    /* _must_be_in_forward, _must_be_in_backward (the is_backward tag
     * is not read: a printed graph does not say which nodes the
     * backward traced) */
    for (i = 0; i < p->n; i++) {
        sc__pnode *pn = &p->nodes[i];
        if (!(pn->flags & SC__PN_CANON) ||
            sc_graph_node_kind(p->g, (sc_node_id)i) != SC_NODE_CALL)
            continue;
        if (m.bits[i] & M_BW)
            pn->ptag = SC__PT_BW;
        else if ((m.bits[i] & M_FW) ||
                 sc__partition_mutable_2_13(
                     sc_graph_node_target(p->g, (sc_node_id)i)))
            pn->ptag = SC__PT_FW;
    }
fail:
    sc__idlist_free(&bw_written);
    sc__free(m.bits);
    sc__free(m.ac);
    return status;
}

sc_status sc__partition_classify(sc_partition *p, sc_error *err)
{
    size_t i;
    rules r;
    uint8_t *fus = NULL, op_props[SC_OP_COUNT_];
    const char *op_target[SC_OP_COUNT_];
    int32_t *order = NULL;
    sc_status status = SC_OK;
    if (p->policy == SC_PARTITION_PYTORCH_2_13)
        SC_TRY(tag_passes_2_13(p, err));
    SC_TRY(classify_nodes(p, err));
    rules_init(&r, p);
    distances(p);
    fus = sc__malloc(p->n ? p->n : 1);
    if (!fus)
        return sc__error_nomem(err);
    /* fusible and view depend on the call's target alone: looked up (by
     * name, under pytorch-2.13) once per known op and interned target */
    memset(op_props, 0, sizeof op_props);
    for (i = 0; i < p->n; i++) {
        int op = sc__graph_node_op(p->g, (sc_node_id)i);
        bool known = op >= 0 && op < (int)SC_OP_COUNT_ &&
                     sc_graph_node_kind(p->g, (sc_node_id)i) == SC_NODE_CALL;
        const char *t = known ? sc_graph_node_target(p->g, (sc_node_id)i)
                              : NULL;
        uint8_t props;
        if (known && op_props[op] && op_target[op] == t) {
            props = op_props[op];
        } else {
            props = OP_PROPS_KNOWN;
            if (sc__partition_fusible(p, (sc_node_id)i))
                props |= P_FUSIBLE;
            if (p->policy == SC_PARTITION_PYTORCH_2_13
                    ? (oplist_bits(p, (sc_node_id)i) & SC__OPL_VIEW) != 0
                    : op >= 0 && sc__op_get((sc__op)op)->cls == SC_CLASS_VIEW)
                props |= P_VIEW;
            if (known) {
                op_props[op] = props;
                op_target[op] = t;
            }
        }
        fus[i] = props & P_VIEW;
        if ((p->nodes[i].flags & SC__PN_CANON) && (props & P_FUSIBLE))
            fus[i] |= P_FUSIBLE;
        if (op == SC_OP_CAT)
            fus[i] |= P_CAT;
    }
    r.props = fus;
    SC_CHECK(bans(p, &r, fus, err));
    if (rule_on(&r, SC_PARTITION_RULE_USED_FAR_APART) ||
        rule_on(&r, SC_PARTITION_RULE_LONG_FUSIBLE_CHAINS)) {
        order = forward_order(p);
        if (!order)
            SC_CHECK(sc__error_nomem(err));
        if (rule_on(&r, SC_PARTITION_RULE_USED_FAR_APART))
            SC_CHECK(used_far_apart(p, &r, fus, order, err));
        if (rule_on(&r, SC_PARTITION_RULE_LONG_FUSIBLE_CHAINS))
            SC_CHECK(long_fusible_chains(p, &r, fus, order, err));
        sc__free(order);
        order = NULL;
    }
    for (i = 0; i < p->n; i++) {
        sc__pnode *pn = &p->nodes[i];
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (pn->cls & SC_PARTITION_TANGENT_CLOSURE) {
            pn->cls |= SC_PARTITION_REQUIRED_BW;
            pn->flags |= SC__PN_IN_SINK;
            continue;
        }
        if (r.modern) {
            /* must_recompute and prefer_recompute alike (PyTorch's
             * must_recompute()), random ops included; a tagged node is
             * banned only when it writes an argument (ban_modern). */
            if (recompute_tagged(pn) &&
                (p->policy == SC_PARTITION_PYTORCH_2_13 ||
                 (sc_graph_node_kind(p->g, (sc_node_id)i) == SC_NODE_CALL &&
                  pn->ban == SC_PARTITION_BAN_NONE))) {
                pn->ban = SC_PARTITION_BAN_NONE;
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
    weights(p, &r, fus);
fail:
    sc__free(order);
    sc__free(fus);
    return status;
}

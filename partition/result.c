/* symcut — the partitioner's result: the names of its enums and the
 * accessors of an sc_partition (saved sets, per-node facts, totals,
 * rules, timings, the forward and backward graphs). */
#include <config.h>

#include <string.h>

#include "graph/graph-view.h"
#include "partition/partition-internal.h"

/* ---- Names ----------------------------------------------------------------- */

static const char *const policy_names[] = {
#define SC__X(name, str) str,
    SC_PARTITION_POLICY_MAP(SC__X)
#undef SC__X
};
static const char *const tag_names[] = {
#define SC__X(name, str) str,
    SC_PARTITION_TAG_MAP(SC__X)
#undef SC__X
};
static const char *const place_names[] = {
#define SC__X(name, str) str,
    SC_PARTITION_PLACE_MAP(SC__X)
#undef SC__X
};
static const char *const ban_names[] = {
#define SC__X(name, str) str,
    SC_PARTITION_BAN_MAP(SC__X)
#undef SC__X
};
static const char *const saved_ban_reasons[] = {
#define SC__X(name, str) "saved: banned from recomputation (" str ")",
    SC_PARTITION_BAN_MAP(SC__X)
#undef SC__X
};
static const char *const phase_names[] = {
#define SC__X(name, str) str,
    SC_PARTITION_PHASE_MAP(SC__X)
#undef SC__X
};

const char *sc_partition_policy_name(sc_partition_policy policy)
{
    return (unsigned)policy < SC_PARTITION_POLICY_COUNT_
               ? policy_names[policy]
               : NULL;
}

bool sc_partition_policy_from_name(const char *name, sc_partition_policy *out)
{
    size_t i;
    if (!name)
        return false;
    for (i = 0; i < SC_PARTITION_POLICY_COUNT_; i++)
        if (strcmp(name, policy_names[i]) == 0) {
            *out = (sc_partition_policy)i;
            return true;
        }
    if (strcmp(name, "pytorch") == 0 || strcmp(name, "pytorch_2_13") == 0 ||
        strcmp(name, "2.13") == 0) {
        *out = SC_PARTITION_PYTORCH;
        return true;
    }
    if (strcmp(name, "pytorch_1_13") == 0 || strcmp(name, "1.13") == 0) {
        *out = SC_PARTITION_PYTORCH_1_13;
        return true;
    }
    return false;
}

const char *sc_partition_tag_name(sc_partition_tag tag)
{
    return (unsigned)tag < SC_PARTITION_TAG_COUNT_ ? tag_names[tag] : NULL;
}

const char *sc_partition_place_name(sc_partition_place place)
{
    return (unsigned)place < SC_PARTITION_PLACE_COUNT_ ? place_names[place]
                                                        : NULL;
}

const char *sc_partition_ban_name(sc_partition_ban ban)
{
    return (unsigned)ban < SC_PARTITION_BAN_COUNT_ ? ban_names[ban] : NULL;
}

const char *sc_partition_phase_name(sc_partition_phase phase)
{
    return (unsigned)phase < SC_PARTITION_PHASE_COUNT_ ? phase_names[phase]
                                                        : NULL;
}

/* ---- Accessors --------------------------------------------------------------- */

void sc_partition_rules(const sc_partition *p, unsigned *rules_off,
                        int32_t *max_dist_from_bw,
                        int32_t *long_chain_limit)
{
    if (rules_off)
        *rules_off = p->rules_off;
    if (max_dist_from_bw)
        *max_dist_from_bw = p->max_dist_from_bw;
    if (long_chain_limit)
        *long_chain_limit = p->long_chain_limit;
}

int64_t sc_partition_unbacked_fallback(const sc_partition *p)
{
    return p->unbacked_fallback;
}


const sc_graph *sc_partition_joint(const sc_partition *p) { return p->g; }
sc_partition_policy sc_partition_policy_in_force(const sc_partition *p)
{
    return p->policy;
}

size_t sc_partition_saved_tensor_count(const sc_partition *p)
{
    return p->saved_tensors.n;
}
sc_node_id sc_partition_saved_tensor(const sc_partition *p, size_t i)
{
    return i < p->saved_tensors.n ? p->saved_tensors.ids[i] : SC_NODE_NONE;
}
size_t sc_partition_saved_symint_count(const sc_partition *p)
{
    return p->saved_symints.n;
}
sc_node_id sc_partition_saved_symint(const sc_partition *p, size_t i)
{
    return i < p->saved_symints.n ? p->saved_symints.ids[i] : SC_NODE_NONE;
}
size_t sc_partition_recomputed_count(const sc_partition *p)
{
    return p->recomputed.n;
}
sc_node_id sc_partition_recomputed(const sc_partition *p, size_t i)
{
    return i < p->recomputed.n ? p->recomputed.ids[i] : SC_NODE_NONE;
}

size_t sc_partition_synth_symint_count(const sc_partition *p)
{
    return p->nsynth;
}

bool sc_partition_synth_symint(const sc_partition *p, size_t i,
                               sc_partition_synth *out)
{
    if (i >= p->nsynth)
        return false;
    out->name = p->synth[i].name;
    out->src = p->synth[i].src;
    out->dim = p->synth[i].dim;
    out->sym = p->synth[i].sym;
    return true;
}

static const sc__pnode *pnode(const sc_partition *p, sc_node_id id)
{
    static const sc__pnode none = {SC_NODE_NONE, 0, -1, 0, NULL, 0, 0, 0,
                                   0, 0, SC_PARTITION_PLACE_DEAD, 0};
    return id >= 0 && (size_t)id < p->n ? &p->nodes[id] : &none;
}

sc_partition_place sc_partition_node_place(const sc_partition *p,
                                           sc_node_id id)
{
    return (sc_partition_place)pnode(p, id)->place;
}
sc_node_id sc_partition_node_representative(const sc_partition *p,
                                            sc_node_id id)
{
    return pnode(p, id)->rep;
}
unsigned sc_partition_node_class(const sc_partition *p, sc_node_id id)
{
    return pnode(p, id)->cls;
}
sc_partition_ban sc_partition_node_ban(const sc_partition *p, sc_node_id id)
{
    return (sc_partition_ban)pnode(p, id)->ban;
}
sc_partition_tag sc_partition_node_tag(const sc_partition *p, sc_node_id id)
{
    return (sc_partition_tag)pnode(p, id)->tag;
}
int32_t sc_partition_node_distance(const sc_partition *p, sc_node_id id)
{
    return pnode(p, id)->dist;
}
int64_t sc_partition_node_bytes(const sc_partition *p, sc_node_id id)
{
    return pnode(p, id)->bytes;
}
int64_t sc_partition_node_weight(const sc_partition *p, sc_node_id id)
{
    return pnode(p, id)->weight;
}

const char *sc_partition_node_reason(const sc_partition *p, sc_node_id id)
{
    const sc__pnode *pn = pnode(p, id);
    switch ((sc_partition_place)pn->place) {
    case SC_PARTITION_PLACE_DEAD:
        return "dead code: no output needs it";
    case SC_PARTITION_PLACE_FOLDED:
        return "a duplicate: merged into its CSE representative";
    case SC_PARTITION_PLACE_SAVED:
        if (pn->flags & SC__PN_PRIMAL)
            return "saved: a primal the backward reads";
        if (pn->flags & SC__PN_BINDING)
            return "saved: the backward binds a symbol from it";
        if (pn->ban != SC_PARTITION_BAN_NONE && pn->ban < SC_PARTITION_BAN_COUNT_)
            return saved_ban_reasons[pn->ban];
        if (pn->weight == 0)
            return "saved: free to save (weight 0)";
        return "saved: on the minimum cut";
    case SC_PARTITION_PLACE_RECOMPUTED:
        if (pn->tag == SC_PARTITION_TAG_MUST_RECOMPUTE &&
            p->policy != SC_PARTITION_PYTORCH_1_13)
            return "recomputed: tagged must_recompute";
        return "recomputed: behind the minimum cut, cheaper than saving";
    case SC_PARTITION_PLACE_FORWARD:
        if (pn->flags & SC__PN_PRIMAL)
            return "forward: a primal input";
        return "forward: only the forward needs it";
    case SC_PARTITION_PLACE_BACKWARD:
        if (pn->flags & SC__PN_TANGENT)
            return "backward: a tangent input";
        if (pn->cls & SC_PARTITION_TANGENT_CLOSURE)
            return "backward: depends on a tangent";
        return "backward: only the backward needs it";
    case SC_PARTITION_PLACE_UNUSED:
    default:
        return "unused: neither graph needs it";
    }
}

int64_t sc_partition_saved_bytes(const sc_partition *p)
{
    return p->saved_bytes;
}
sc_expr *sc_partition_saved_bytes_expr(const sc_partition *p)
{
    return p->saved_expr;
}
int64_t sc_partition_trivial_bytes(const sc_partition *p)
{
    return p->trivial_bytes;
}
sc_expr *sc_partition_trivial_bytes_expr(const sc_partition *p)
{
    return p->trivial_expr;
}
int64_t sc_partition_cut_value(const sc_partition *p) { return p->cut_value; }
size_t sc_partition_network_vertex_count(const sc_partition *p)
{
    return p->net_vertices;
}
size_t sc_partition_network_edge_count(const sc_partition *p)
{
    return p->net_edges;
}
int64_t sc_partition_recompute_flops(const sc_partition *p, size_t *unknown)
{
    if (unknown)
        *unknown = p->flops_unknown;
    return p->flops;
}
size_t sc_partition_dead_count(const sc_partition *p) { return p->ndead; }
size_t sc_partition_folded_count(const sc_partition *p) { return p->nfolded; }
size_t sc_partition_warning_count(const sc_partition *p)
{
    return p->nwarnings;
}
const char *sc_partition_warning(const sc_partition *p, size_t i)
{
    return i < p->nwarnings ? p->warnings[i] : NULL;
}
double sc_partition_phase_seconds(const sc_partition *p,
                                  sc_partition_phase phase)
{
    return (unsigned)phase < SC_PARTITION_PHASE_COUNT_ ? p->seconds[phase]
                                                        : 0.0;
}
const sc_graph *sc_partition_forward(const sc_partition *p) { return p->fw; }
const sc_graph *sc_partition_backward(const sc_partition *p) { return p->bw; }
/* The graphs were built by trusted copies whose names enter the name
 * table lazily: a caller that takes one gets it indexed. */
sc_graph *sc_partition_take_forward(sc_partition *p)
{
    sc_graph *g = p->fw;
    p->fw = NULL;
    if (g)
        sc__graph_index_names(g);
    return g;
}
sc_graph *sc_partition_take_backward(sc_partition *p)
{
    sc_graph *g = p->bw;
    p->bw = NULL;
    if (g)
        sc__graph_index_names(g);
    return g;
}

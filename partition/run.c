/* symcut — the partitioner: options, the run, and the result's
 * accessors. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* ---- Small helpers --------------------------------------------------------- */

bool sc__idlist_push(sc__idlist *l, sc_node_id id)
{
    if (l->n == l->cap &&
        !sc__grow((void **)&l->ids, &l->cap, l->n + 1, sizeof *l->ids))
        return false;
    l->ids[l->n++] = id;
    return true;
}

void sc__idlist_free(sc__idlist *l)
{
    sc__free(l->ids);
    l->ids = NULL;
    l->n = l->cap = 0;
}

double sc__partition_now(void)
{
    struct timespec ts;
    /* CPU time of the calling thread: the partitioner is single-threaded,
     * and on a loaded machine wall-clock time says little. */
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool sc__partition_warn(sc_partition *p, const char *fmt, ...)
{
    va_list ap;
    sc__buf b;
    char *s;
    if (p->nwarnings == p->warnings_cap &&
        !sc__grow((void **)&p->warnings, &p->warnings_cap, p->nwarnings + 1,
                  sizeof *p->warnings))
        return false;
    sc__buf_init(&b);
    va_start(ap, fmt);
    {
        char tmp[512];
        vsnprintf(tmp, sizeof tmp, fmt, ap);
        sc__buf_puts(&b, tmp);
    }
    va_end(ap);
    s = sc__buf_take(&b);
    if (!s)
        return false;
    p->warnings[p->nwarnings++] = s;
    return true;
}

void sc_partition_options_init(sc_partition_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->policy = SC_PARTITION_PYTORCH;
    opts->num_params = -1;
    opts->num_fwd_outputs = -1;
}

/* ---- Options that come from the graph ----------------------------------- */

/* Pass 0 tags the nodes named that are their own CSE representative;
 * pass 1 the folded duplicates, whose tag goes to the representative only
 * when that has none of its own (PyTorch's CSE keeps the first node and
 * its meta, the duplicate's "recompute" tag is dropped; without this, the
 * last tag won, and a view tagged must_recompute could end up saved
 * because its backward duplicate was tagged must_save: issue 8). */
static sc_status tag_node(sc_partition *p, const char *name, size_t len,
                          sc_partition_tag tag, int pass, sc_error *err)
{
    char buf[256];
    sc_node_id id;
    if (len >= sizeof buf)
        return sc__error_set(err, SC_ERR_INVALID, "tag: name too long");
    memcpy(buf, name, len);
    buf[len] = '\0';
    id = sc_graph_find(p->g, buf);
    if (id == SC_NODE_NONE)
        return sc__error_set(err, SC_ERR_INVALID,
                             "%s: no node named '%s' in the graph",
                             sc_partition_tag_name(tag), buf);
    if (p->nodes[id].rep != SC_NODE_NONE && p->nodes[id].rep != id) {
        if (pass == 0)
            return SC_OK;
        id = p->nodes[id].rep;
        if (p->nodes[id].tag != SC_PARTITION_TAG_NONE)
            return SC_OK;
    } else if (pass == 1) {
        return SC_OK;
    }
    p->nodes[id].tag = (uint8_t)tag;
    return SC_OK;
}

static sc_status apply_tags_pass(sc_partition *p,
                                 const sc_partition_options *o, int pass,
                                 sc_error *err)
{
    size_t t, i;
    sc_status status;
    for (t = SC_PARTITION_TAG_MUST_SAVE; t < SC_PARTITION_TAG_COUNT_; t++) {
        const char *s = sc_graph_directive(p->g, tag_names[t]);
        while (s && *s) {
            const char *start;
            while (*s && (isspace((unsigned char)*s) || *s == ','))
                s++;
            start = s;
            while (*s && !isspace((unsigned char)*s) && *s != ',')
                s++;
            if (s > start) {
                status = tag_node(p, start, (size_t)(s - start),
                                  (sc_partition_tag)t, pass, err);
                if (status != SC_OK)
                    return status;
            }
        }
    }
    for (i = 0; i < o->ntags; i++) {
        if ((unsigned)o->tags[i] >= SC_PARTITION_TAG_COUNT_ || !o->tag_nodes[i])
            return sc__error_set(err, SC_ERR_INVALID, "bad tag %zu", i);
        status = tag_node(p, o->tag_nodes[i], strlen(o->tag_nodes[i]),
                          o->tags[i], pass, err);
        if (status != SC_OK)
            return status;
    }
    return SC_OK;
}

static sc_status apply_tags(sc_partition *p, const sc_partition_options *o,
                            sc_error *err)
{
    sc_status status = apply_tags_pass(p, o, 0, err);
    return status != SC_OK ? status : apply_tags_pass(p, o, 1, err);
}

static sc_status setup(sc_partition *p, const sc_partition_options *o,
                       sc_error *err)
{
    const sc_graph *g = p->g;
    size_t nout = sc_graph_num_outputs(g), i, k;
    long params = o->num_params;

    if ((unsigned)o->policy >= SC_PARTITION_POLICY_COUNT_)
        return sc__error_set(err, SC_ERR_INVALID, "unknown policy %d",
                             (int)o->policy);
    if (o->num_fwd_outputs >= 0) {
        if ((size_t)o->num_fwd_outputs > nout)
            return sc__error_set(err, SC_ERR_INVALID,
                                 "%ld forward outputs requested, but the "
                                 "graph returns %zu values",
                                 o->num_fwd_outputs, nout);
        p->nfwd_out = (size_t)o->num_fwd_outputs;
    } else {
        p->nfwd_out = sc_graph_num_fwd_outputs(g);
    }
    if (sc_graph_num_tangents(g) == 0)
        return sc__error_set(err, SC_ERR_INVALID,
                             "not a joint graph: it has no tangent inputs");
    if (params < 0) {
        const char *d = sc_graph_directive(g, "params");
        params = 0;
        if (d) {
            char *end;
            errno = 0;
            params = strtol(d, &end, 10);
            while (*end && isspace((unsigned char)*end))
                end++;
            if (end == d || *end || errno || params < 0)
                return sc__error_set(err, SC_ERR_INVALID,
                                     "'# symcut: params %s': expected a "
                                     "non-negative integer",
                                     d);
        }
    }
    if ((size_t)params > sc_graph_num_primals(g))
        return sc__error_set(err, SC_ERR_INVALID,
                             "%ld parameters, but the graph has %zu primals",
                             params, sc_graph_num_primals(g));
    p->nparams = (size_t)params;
    for (i = 0, k = 0; i < sc_graph_num_placeholders(g); i++)
        if (sc_graph_node_role(g, (sc_node_id)i) == SC_ROLE_PRIMAL &&
            k++ < p->nparams)
            p->nodes[i].flags |= SC__PN_PARAM;
    p->unbacked_fallback = o->unbacked_fallback > 0 ? o->unbacked_fallback
                                                    : 8192;
    return SC_OK;
}

/* ---- Running --------------------------------------------------------------- */

/* The fields' 0 is PyTorch's default, a negative value the value 0;
 * pytorch-1.13 has only the allowlist and the reduction rule. */
static void resolve_rules(sc_partition *p, const sc_partition_options *o)
{
    if (o->policy == SC_PARTITION_PYTORCH_1_13) {
        p->rules_off = SC_PARTITION_RULE_MATERIALIZED_BACKWARD |
                       SC_PARTITION_RULE_USED_FAR_APART |
                       SC_PARTITION_RULE_LONG_FUSIBLE_CHAINS;
        p->max_dist_from_bw = 1000;
        p->long_chain_limit = 100;
        return;
    }
    p->rules_off = o->rules_off & (SC_PARTITION_RULES_AGGRESSIVE |
                                   SC_PARTITION_RULE_REDUCTIONS);
    p->max_dist_from_bw = o->max_dist_from_bw == 0  ? 1000
                          : o->max_dist_from_bw < 0 ? 0
                                                    : o->max_dist_from_bw;
    p->long_chain_limit = o->long_chain_limit == 0  ? 100
                          : o->long_chain_limit < 0 ? 0
                                                    : o->long_chain_limit;
}

void sc_partition_get_rules(const sc_partition *p, unsigned *rules_off,
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

sc_status sc_partition_run(const sc_graph *joint,
                           const sc_partition_options *opts,
                           sc_partition **out, sc_error *err)
{
    sc_partition_options dflt;
    sc_partition *p;
    sc_status status;
    double t;

    *out = NULL;
    if (!opts) {
        sc_partition_options_init(&dflt);
        opts = &dflt;
    }
    if (!joint)
        return sc__error_set(err, SC_ERR_INVALID, "no graph");
    p = sc__calloc(1, sizeof *p);
    if (!p)
        return sc__error_nomem(err);
    resolve_rules(p, opts);
    p->g = joint;
    p->ctx = sc_graph_ctx(joint);
    p->env = sc_graph_env(joint);
    p->policy = opts->policy;
    p->flags = opts->flags;
    p->opts = opts;
    p->n = sc_graph_num_nodes(joint);
    p->nodes = sc__calloc(p->n ? p->n : 1, sizeof *p->nodes);
    if (!p->nodes) {
        status = sc__error_nomem(err);
        goto fail;
    }

    t = sc__partition_now();
    status = setup(p, opts, err);
    if (status != SC_OK)
        goto fail;
    status = sc__partition_prepare(p, opts, err);
    if (status != SC_OK)
        goto fail;
    status = apply_tags(p, opts, err);
    if (status != SC_OK)
        goto fail;
    p->seconds[SC_PARTITION_PHASE_PREPARE] = sc__partition_now() - t;

    t = sc__partition_now();
    status = sc__partition_classify(p, err);
    if (status != SC_OK)
        goto fail;
    p->seconds[SC_PARTITION_PHASE_CLASSIFY] = sc__partition_now() - t;

    status = sc__partition_cut(p, err);
    if (status != SC_OK)
        goto fail;

    t = sc__partition_now();
    status = sc__partition_extract(p, err);
    if (status != SC_OK)
        goto fail;
    p->seconds[SC_PARTITION_PHASE_EXTRACT] = sc__partition_now() - t;
    p->opts = NULL;
    *out = p;
    return SC_OK;
fail:
    sc_partition_free(p);
    return status;
}

void sc_partition_free(sc_partition *p)
{
    size_t i;
    if (!p)
        return;
    sc__free(p->nodes);
    sc__free(p->uoff);
    sc__free(p->users);
    sc__free(p->synth);
    if (p->binding)
        sc_symmap_free(p->binding);
    sc__idlist_free(&p->saved_tensors);
    sc__idlist_free(&p->saved_symints);
    sc__idlist_free(&p->recomputed);
    for (i = 0; i < p->nwarnings; i++)
        free(p->warnings[i]);
    sc__free(p->warnings);
    sc_graph_free(p->fw);
    sc_graph_free(p->bw);
    sc__free(p);
}

/* ---- Accessors --------------------------------------------------------------- */

const sc_graph *sc_partition_joint(const sc_partition *p) { return p->g; }
sc_partition_policy sc_partition_get_policy(const sc_partition *p)
{
    return p->policy;
}

size_t sc_partition_num_saved_tensors(const sc_partition *p)
{
    return p->saved_tensors.n;
}
sc_node_id sc_partition_saved_tensor(const sc_partition *p, size_t i)
{
    return i < p->saved_tensors.n ? p->saved_tensors.ids[i] : SC_NODE_NONE;
}
size_t sc_partition_num_saved_symints(const sc_partition *p)
{
    return p->saved_symints.n;
}
sc_node_id sc_partition_saved_symint(const sc_partition *p, size_t i)
{
    return i < p->saved_symints.n ? p->saved_symints.ids[i] : SC_NODE_NONE;
}
size_t sc_partition_num_recomputed(const sc_partition *p)
{
    return p->recomputed.n;
}
sc_node_id sc_partition_recomputed(const sc_partition *p, size_t i)
{
    return i < p->recomputed.n ? p->recomputed.ids[i] : SC_NODE_NONE;
}

size_t sc_partition_num_synth_symints(const sc_partition *p)
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
                                   0, 0, SC_PARTITION_PLACE_DEAD};
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
size_t sc_partition_network_vertices(const sc_partition *p)
{
    return p->net_vertices;
}
size_t sc_partition_network_edges(const sc_partition *p)
{
    return p->net_edges;
}
int64_t sc_partition_recompute_flops(const sc_partition *p, size_t *unknown)
{
    if (unknown)
        *unknown = p->flops_unknown;
    return p->flops;
}
size_t sc_partition_num_dead(const sc_partition *p) { return p->ndead; }
size_t sc_partition_num_folded(const sc_partition *p) { return p->nfolded; }
size_t sc_partition_num_warnings(const sc_partition *p)
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

/* symcut — the partitioner's driver: the options, the tags and settings
 * read from the graph, and sc_partition_run, which runs the phases
 * (prepare.c, classify.c, network.c, extract.c) in order and times them;
 * sc_partition_free. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "partition/frontier.h"
#include "partition/partition-internal.h"
#include "partition/budget-2.13.h"

void sc_partition_options_init(sc_partition_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->policy = SC_PARTITION_PYTORCH;
    opts->num_params = -1;
    opts->num_fwd_outputs = -1;
}

/* ---- Options that come from the graph ----------------------------------- */

/* Pass 0 tags the nodes named that are their own CSE representative;
 * pass 1 the folded duplicates.  torch 2.13's CSE keeps the first node
 * and its meta: a duplicate's "recompute" tag is dropped (so a view
 * tagged must_recompute is not saved because its backward duplicate is
 * tagged must_save, and an untagged node whose duplicate is tagged counts
 * as untagged in cleanup_recompute_tags).  Under the other policies the
 * duplicate's tag goes to the representative when that has none of its
 * own. */
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
        if (pass == 0 || p->policy == SC_PARTITION_PYTORCH_2_13)
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
    for (t = SC_PARTITION_TAG_MUST_SAVE; t < SC_PARTITION_TAG_COUNT_; t++) {
        const char *s = sc_graph_directive(
            p->g, sc_partition_tag_name((sc_partition_tag)t));
        while (s && *s) {
            const char *start;
            while (*s && (isspace((unsigned char)*s) || *s == ','))
                s++;
            start = s;
            while (*s && !isspace((unsigned char)*s) && *s != ',')
                s++;
            if (s > start) {
                SC_TRY(tag_node(p, start, (size_t)(s - start),
                                (sc_partition_tag)t, pass, err));
            }
        }
    }
    for (i = 0; i < o->ntags; i++) {
        if ((unsigned)o->tags[i] >= SC_PARTITION_TAG_COUNT_ || !o->tag_nodes[i])
            return sc__error_set(err, SC_ERR_INVALID, "bad tag %zu", i);
        SC_TRY(tag_node(p, o->tag_nodes[i], strlen(o->tag_nodes[i]),
                        o->tags[i], pass, err));
    }
    return SC_OK;
}

static sc_status apply_tags(sc_partition *p, const sc_partition_options *o,
                            sc_error *err)
{
    SC_TRY(apply_tags_pass(p, o, 0, err));
    return apply_tags_pass(p, o, 1, err);
}

/* Mark primal number k (0-based among the primals) a parameter. */
static sc_status mark_param(sc_partition *p, size_t k, sc_error *err)
{
    size_t i, j;
    for (i = 0, j = 0; i < sc_graph_placeholder_count(p->g); i++)
        if (sc_graph_node_role(p->g, (sc_node_id)i) == SC_ROLE_PRIMAL &&
            j++ == k) {
            if (!(p->nodes[i].flags & SC__PN_PARAM))
                p->nparams++;
            p->nodes[i].flags |= SC__PN_PARAM;
            return SC_OK;
        }
    return sc__error_set(err, SC_ERR_INVALID,
                         "parameter index %zu, but the graph has %zu primals",
                         k, sc_graph_primal_count(p->g));
}

/* Parameters by index: the options', else `# symcut: static_inputs
 * 0,2,...` (PyTorch's static_lifetime_input_indices). */
static sc_status setup_static_inputs(sc_partition *p,
                                     const sc_partition_options *o,
                                     sc_error *err)
{
    size_t i;
    const char *d, *s;
    p->nparams = 0;
    if (o->nparam_indices > 0) {
        for (i = 0; i < o->nparam_indices; i++)
            SC_TRY(mark_param(p, o->param_indices[i], err));
    } else {
        d = sc_graph_directive(p->g, "static_inputs");
        for (s = d; *s;) {
            char *end;
            unsigned long v;
            while (*s == ' ' || *s == ',' || *s == '\t')
                s++;
            if (!*s)
                break;
            errno = 0;
            v = (*s >= '0' && *s <= '9') ? strtoul(s, &end, 10) : 0;
            if (!(*s >= '0' && *s <= '9') || errno || v > 1u << 30 ||
                (*end && *end != ',' && *end != ' ' && *end != '\t'))
                return sc__error_set(err, SC_ERR_INVALID,
                                     "'# symcut: static_inputs %s': expected "
                                     "comma-separated input indices",
                                     d);
            SC_TRY(mark_param(p, (size_t)v, err));
            s = end;
        }
    }
    p->unbacked_fallback = o->unbacked_fallback > 0 ? o->unbacked_fallback
                           : p->policy == SC_PARTITION_PYTORCH_2_13 ? 4096
                                                                    : 8192;
    return SC_OK;
}

static sc_status setup(sc_partition *p, const sc_partition_options *o,
                       sc_error *err)
{
    const sc_graph *g = p->g;
    size_t nout = sc_graph_output_count(g), i, k;
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
    } else if (sc_graph_directive(g, "num_fwd_outputs")) {
        /* `# symcut: num_fwd_outputs N` (the oracle's directive) */
        const char *d = sc_graph_directive(g, "num_fwd_outputs");
        char *end;
        long v;
        errno = 0;
        v = strtol(d, &end, 10);
        while (*end && isspace((unsigned char)*end))
            end++;
        if (end == d || *end || errno || v < 0 || (unsigned long)v > nout)
            return sc__error_set(err, SC_ERR_INVALID,
                                 "'# symcut: num_fwd_outputs %s': expected "
                                 "an integer from 0 to %zu (the graph's "
                                 "outputs)",
                                 d, nout);
        p->nfwd_out = (size_t)v;
    } else {
        p->nfwd_out = sc_graph_fwd_output_count(g);
    }
    if (sc_graph_tangent_count(g) == 0)
        return sc__error_set(err, SC_ERR_INVALID,
                             "not a joint graph: it has no tangent inputs");
    if (o->nparam_indices > 0 ||
        (params < 0 && sc_graph_directive(g, "static_inputs")))
        return setup_static_inputs(p, o, err);
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
    if ((size_t)params > sc_graph_primal_count(g))
        return sc__error_set(err, SC_ERR_INVALID,
                             "%ld parameters, but the graph has %zu primals",
                             params, sc_graph_primal_count(g));
    p->nparams = (size_t)params;
    for (i = 0, k = 0; i < sc_graph_placeholder_count(g); i++)
        if (sc_graph_node_role(g, (sc_node_id)i) == SC_ROLE_PRIMAL &&
            k++ < p->nparams)
            p->nodes[i].flags |= SC__PN_PARAM;
    p->unbacked_fallback = o->unbacked_fallback > 0 ? o->unbacked_fallback
                           : p->policy == SC_PARTITION_PYTORCH_2_13 ? 4096
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

/* One progress call: phases done of the run's four. */
#define PROGRESS_PHASE "partitioning the joint graph"

static void progress(const sc_partition_options *opts, size_t done)
{
    if (opts->progress)
        opts->progress(opts->progress_user, PROGRESS_PHASE, done, 4);
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
    p->n = sc_graph_node_count(joint);
    p->nodes = sc__calloc(p->n ? p->n : 1, sizeof *p->nodes);
    if (!p->nodes) {
        status = sc__error_nomem(err);
        goto fail;
    }

    progress(opts, 0);
    t = sc__partition_now();
    SC_CHECK(setup(p, opts, err));
    SC_CHECK(sc__partition_prepare(p, opts, err));
    SC_CHECK(apply_tags(p, opts, err));
    p->seconds[SC_PARTITION_PHASE_PREPARE] = sc__partition_now() - t;
    progress(opts, 1);

    t = sc__partition_now();
    SC_CHECK(sc__partition_classify(p, err));
    p->seconds[SC_PARTITION_PHASE_CLASSIFY] = sc__partition_now() - t;
    progress(opts, 2);
    SC_CHECK(sc__budget_2_13(p, opts, err)); /* pytorch-2.13 budget */

    if (opts->memory_budget_kind != SC_PARTITION_BUDGET_NONE &&
        p->policy != SC_PARTITION_PYTORCH_2_13)
        SC_CHECK(sc__frontier_budget_cut(p, err));
    else
        SC_CHECK(sc__partition_cut(p, err));
    progress(opts, 3);

    t = sc__partition_now();
    SC_CHECK(sc__partition_extract(p, err));
    p->seconds[SC_PARTITION_PHASE_EXTRACT] = sc__partition_now() - t;
    progress(opts, 4);
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

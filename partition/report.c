/* symcut — partitioner reports: text, JSON (jansson) and DOT. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "partition/partition-internal.h"

/* ---- Shared -------------------------------------------------------------- */

typedef struct counts {
    size_t fw_nodes, fw_calls, bw_nodes, bw_calls;
    int64_t saved_primal_bytes;
} counts;

static void count_nodes(const sc_partition *p, counts *c)
{
    size_t i;
    memset(c, 0, sizeof *c);
    for (i = 0; i < p->n; i++) {
        const sc__pnode *pn = &p->nodes[i];
        if (!(pn->flags & SC__PN_CANON))
            continue;
        if (pn->flags & SC__PN_PRIMAL)
            c->fw_nodes++;
        if (pn->flags & SC__PN_IN_FW) {
            c->fw_nodes++;
            c->fw_calls++;
        }
        if (pn->flags & SC__PN_BW_INPUT)
            c->bw_nodes++;
        if (pn->flags & SC__PN_IN_BW) {
            c->bw_nodes++;
            c->bw_calls++;
        }
        if ((pn->flags & SC__PN_SAVED) && (pn->flags & SC__PN_PRIMAL) &&
            pn->bytes > 0)
            c->saved_primal_bytes += pn->bytes;
    }
}

/* "f32[s0, 64]", "Sym(s0)", "tuple" into b. */
static void put_type(sc__buf *b, const sc_partition *p, sc_node_id id)
{
    sc_result r;
    size_t d;
    sc_graph_node_result(p->g, id, &r);
    switch (r.kind) {
    case SC_RESULT_TENSOR:
        sc__buf_puts(b, sc_dtype_code(r.tensor.dtype));
        sc__buf_putc(b, '[');
        for (d = 0; d < r.tensor.ndim; d++) {
            char *s = sc_expr_to_str(p->ctx, r.tensor.sizes[d]);
            if (d)
                sc__buf_puts(b, ", ");
            if (!s) {
                b->failed = true;
                return;
            }
            sc__buf_puts(b, s);
            free(s);
        }
        sc__buf_putc(b, ']');
        break;
    case SC_RESULT_SYMINT:
    case SC_RESULT_SYMBOOL: {
        char *s = sc_expr_to_str(p->ctx, r.expr);
        if (!s) {
            b->failed = true;
            return;
        }
        sc__buf_printf(b, "Sym(%s)", s);
        free(s);
        break;
    }
    case SC_RESULT_TUPLE:
        sc__buf_puts(b, "tuple");
        break;
    default:
        sc__buf_puts(b, "?");
        break;
    }
}

/* The ban rules, in doc/partition.md's order: spelling in the text report
 * (and on the command line), JSON field. */
static const struct {
    unsigned bit;
    const char *text, *json;
} rule_names[] = {
    {SC_PARTITION_RULE_NOT_IN_ALLOWLIST, "not-in-allowlist",
     "not_in_allowlist"},
    {SC_PARTITION_RULE_MATERIALIZED_BACKWARD, "materialized-backward",
     "materialized_backward"},
    {SC_PARTITION_RULE_REDUCTIONS, "reductions", "reductions"},
    {SC_PARTITION_RULE_USED_FAR_APART, "used-far-apart", "used_far_apart"},
    {SC_PARTITION_RULE_LONG_FUSIBLE_CHAINS, "long-fusible-chains",
     "long_fusible_chains"}};
#define NRULES (sizeof rule_names / sizeof rule_names[0])

/* "ban rules: not-in-allowlist, ...; off: ...; max-dist-from-bw ...". */
static void put_rules(sc__buf *b, const sc_partition *p)
{
    unsigned off;
    int32_t max_dist, limit;
    size_t k, n;
    int pass;

    sc_partition_rules(p, &off, &max_dist, &limit);
    sc__buf_puts(b, "ban rules: ");
    for (pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            if (p->policy == SC_PARTITION_PYTORCH_1_13) {
                sc__buf_puts(b, " (pytorch-1.13 has no others)\n");
                return;
            }
            sc__buf_puts(b, "; off: ");
        }
        for (k = 0, n = 0; k < NRULES; k++) {
            if (((off & rule_names[k].bit) != 0) != (pass == 1))
                continue;
            sc__buf_printf(b, "%s%s", n++ ? ", " : "", rule_names[k].text);
            if (rule_names[k].bit == SC_PARTITION_RULE_LONG_FUSIBLE_CHAINS &&
                pass == 0)
                sc__buf_printf(b, " (limit %ld)", (long)limit);
        }
        if (!n)
            sc__buf_puts(b, "none");
    }
    sc__buf_printf(b, "; max-dist-from-bw %ld%s\n", (long)max_dist,
                   max_dist >= 999 ? " (bans nothing)" : "");
}

static char *expr_str(const sc_partition *p, sc_expr *e)
{
    return e ? sc_expr_to_str(p->ctx, e) : NULL;
}

static sc_status finish(sc__buf *b, char **out, size_t *len, sc_error *err)
{
    size_t n = b->len;
    *out = sc__buf_take(b);
    if (!*out)
        return sc__error_nomem(err);
    if (len)
        *len = n;
    return SC_OK;
}

/* ---- Text ------------------------------------------------------------------ */

static void put_list(sc__buf *b, const sc_partition *p, const char *title,
                     const sc__idlist *l, bool with_bytes)
{
    size_t i;
    sc__buf_printf(b, "%s (%zu):\n", title, l->n);
    for (i = 0; i < l->n; i++) {
        sc_node_id id = l->ids[i];
        size_t mark;
        sc__buf_printf(b, "  %-24s ", sc_graph_node_name(p->g, id));
        mark = b->len;
        put_type(b, p, id);
        while (b->len < mark + 22 && !b->failed)
            sc__buf_putc(b, ' ');
        if (with_bytes)
            sc__buf_printf(b, " %12lld B  ", (long long)p->nodes[id].bytes);
        else
            sc__buf_puts(b, " ");
        sc__buf_printf(b, "%s\n", sc_partition_node_reason(p, id));
    }
}

sc_status sc_partition_write_text(const sc_partition *p, unsigned flags,
                                  char **out, size_t *len, sc_error *err)
{
    sc__buf b;
    counts c;
    char *saved_f, *triv_f;
    size_t i, unknown;
    int64_t flops;

    *out = NULL;
    count_nodes(p, &c);
    sc__buf_init(&b);
    sc__buf_printf(&b, "policy: %s\n", sc_partition_policy_name(p->policy));
    put_rules(&b, p);
    sc__buf_printf(&b,
                   "joint: %zu nodes (%zu primals, %zu tangents, %zu "
                   "outputs, %zu forward), %zu dead, %zu folded by CSE\n",
                   p->n, sc_graph_primal_count(p->g),
                   sc_graph_tangent_count(p->g), sc_graph_output_count(p->g),
                   p->nfwd_out, p->ndead, p->nfolded);
    if (p->nparams > 0 && p->policy != SC_PARTITION_PYTORCH_1_13) {
        const char *sep = "";
        sc__buf_printf(&b, "parameters (free to save):");
        for (i = 0; i < sc_graph_placeholder_count(p->g); i++)
            if (p->nodes[i].flags & SC__PN_PARAM) {
                sc__buf_printf(&b, "%s %s", sep,
                               sc_graph_node_name(p->g, (sc_node_id)i));
                sep = ",";
            }
        sc__buf_printf(&b, "\n");
    }
    sc__buf_printf(&b, "forward: %zu nodes (%zu calls)\n", c.fw_nodes,
                   c.fw_calls);
    sc__buf_printf(&b, "backward: %zu nodes (%zu calls)\n", c.bw_nodes,
                   c.bw_calls);
    sc__buf_printf(&b,
                   "flow network: %zu vertices, %zu edges, minimum cut "
                   "%lld\n",
                   p->net_vertices, p->net_edges, (long long)p->cut_value);
    put_list(&b, p, "saved tensors", &p->saved_tensors, true);
    put_list(&b, p, "saved symints", &p->saved_symints, false);
    if (p->nsynth)
        sc__buf_printf(&b, "synthesized symints (%zu):\n", p->nsynth);
    for (i = 0; i < p->nsynth; i++) {
        const sc__synth_binding *s = &p->synth[i];
        char *sym = expr_str(p, s->sym);
        sc__buf_printf(&b, "  %-24s sym_size.int(%s, %zu), binds %s\n",
                       s->name, sc_graph_node_name(p->g, s->src), s->dim,
                       sym ? sym : "?");
        free(sym);
    }
    sc__buf_printf(&b, "recomputed (%zu):", p->recomputed.n);
    for (i = 0; i < p->recomputed.n; i++)
        sc__buf_printf(&b, " %s",
                       sc_graph_node_name(p->g, p->recomputed.ids[i]));
    sc__buf_putc(&b, '\n');
    saved_f = expr_str(p, p->saved_expr);
    triv_f = expr_str(p, p->trivial_expr);
    sc__buf_printf(&b, "saved bytes: %lld = %s (primals %lld)\n",
                   (long long)p->saved_bytes, saved_f ? saved_f : "?",
                   (long long)c.saved_primal_bytes);
    sc__buf_printf(&b, "trivial partition: %lld bytes = %s\n",
                   (long long)p->trivial_bytes, triv_f ? triv_f : "?");
    free(saved_f);
    free(triv_f);
    flops = sc_partition_recompute_flops(p, &unknown);
    sc__buf_printf(&b,
                   "recompute cost: %zu nodes, %lld FLOPs (%zu without a "
                   "formula)\n",
                   p->recomputed.n, (long long)flops, unknown);
    for (i = 0; i < p->nwarnings; i++)
        sc__buf_printf(&b, "warning: %s\n", p->warnings[i]);
    if (!(flags & SC_PARTITION_REPORT_NO_TIMINGS)) {
        double total = 0;
        sc__buf_puts(&b, "timings:");
        for (i = 0; i < SC_PARTITION_PHASE_COUNT_; i++) {
            sc__buf_printf(&b, " %s %.6f s", sc_partition_phase_name((sc_partition_phase)i),
                           p->seconds[i]);
            total += p->seconds[i];
        }
        sc__buf_printf(&b, "; total %.6f s\n", total);
    }
    return finish(&b, out, len, err);
}

/* ---- JSON -------------------------------------------------------------------- */

static json_t *name_array(const sc_partition *p, const sc__idlist *l)
{
    json_t *a = json_array();
    size_t i;
    for (i = 0; a && i < l->n; i++)
        if (json_array_append_new(
                a, json_string(sc_graph_node_name(p->g, l->ids[i]))) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *expr_json(const sc_partition *p, sc_expr *e)
{
    char *s = expr_str(p, e);
    json_t *j = s ? json_string(s) : NULL;
    free(s);
    return j;
}

static json_t *type_json(const sc_partition *p, sc_node_id id)
{
    sc__buf b;
    char *s;
    json_t *j;
    sc__buf_init(&b);
    put_type(&b, p, id);
    s = sc__buf_take(&b);
    if (!s)
        return NULL;
    j = json_string(s);
    free(s);
    return j;
}

/* json_object_set_new that remembers a failure. */
static void set(json_t *o, const char *k, json_t *v, bool *ok)
{
    if (!v || !o || json_object_set_new(o, k, v) != 0)
        *ok = false;
}

static json_t *saved_details(const sc_partition *p, const sc__idlist *l,
                             bool *ok)
{
    json_t *a = json_array();
    size_t i;
    for (i = 0; a && i < l->n; i++) {
        sc_node_id id = l->ids[i];
        const sc__pnode *pn = &p->nodes[id];
        json_t *o = json_object();
        set(o, "name", json_string(sc_graph_node_name(p->g, id)), ok);
        set(o, "type", type_json(p, id), ok);
        if (pn->vkind == SC__PV_TENSOR) {
            set(o, "bytes", json_integer(pn->bytes), ok);
            set(o, "bytes_formula", expr_json(p, pn->bytes_expr), ok);
        }
        set(o, "weight", json_integer(pn->weight), ok);
        set(o, "reason", json_string(sc_partition_node_reason(p, id)), ok);
        if (!o || json_array_append_new(a, o) != 0)
            *ok = false;
    }
    if (!a)
        *ok = false;
    return a;
}

static json_t *class_json(unsigned cls)
{
    static const struct {
        unsigned bit;
        const char *name;
    } bits[] = {{SC_PARTITION_REQUIRED_FW, "required_fw"},
                {SC_PARTITION_TANGENT_CLOSURE, "tangent_closure"},
                {SC_PARTITION_REQUIRED_BW, "required_bw"},
                {SC_PARTITION_BW_OUTPUT, "bw_output"},
                {SC_PARTITION_FW_OUTPUT, "fw_output"},
                {SC_PARTITION_MATERIALIZED, "materialized"}};
    json_t *a = json_array();
    size_t i;
    for (i = 0; a && i < sizeof bits / sizeof bits[0]; i++)
        if ((cls & bits[i].bit) &&
            json_array_append_new(a, json_string(bits[i].name)) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* [{name, source, dim, symbol}] of the synthesized SymInts. */
static json_t *synth_json(const sc_partition *p, bool *ok)
{
    json_t *a = json_array();
    size_t i;
    for (i = 0; a && i < p->nsynth && *ok; i++) {
        const sc__synth_binding *s = &p->synth[i];
        json_t *o = json_object();
        set(o, "name", json_string(s->name), ok);
        set(o, "source", json_string(sc_graph_node_name(p->g, s->src)), ok);
        set(o, "dim", json_integer((json_int_t)s->dim), ok);
        set(o, "symbol", expr_json(p, s->sym), ok);
        if (!o || json_array_append_new(a, o) != 0)
            *ok = false;
    }
    if (!a)
        *ok = false;
    return a;
}

static json_t *nodes_json(const sc_partition *p, bool *ok)
{
    json_t *a = json_array();
    size_t i;
    for (i = 0; a && i < p->n && *ok; i++) {
        const sc__pnode *pn = &p->nodes[i];
        sc_node_id id = (sc_node_id)i;
        json_t *o = json_object();
        set(o, "name", json_string(sc_graph_node_name(p->g, id)), ok);
        set(o, "place",
            json_string(sc_partition_place_name(
                (sc_partition_place)pn->place)),
            ok);
        set(o, "reason", json_string(sc_partition_node_reason(p, id)), ok);
        if (pn->rep != id && pn->rep != SC_NODE_NONE)
            set(o, "representative",
                json_string(sc_graph_node_name(p->g, pn->rep)), ok);
        if (pn->flags & SC__PN_CANON) {
            set(o, "class", class_json(pn->cls), ok);
            if (pn->ban != SC_PARTITION_BAN_NONE)
                set(o, "ban",
                    json_string(sc_partition_ban_name(
                        (sc_partition_ban)pn->ban)),
                    ok);
            if (pn->tag != SC_PARTITION_TAG_NONE)
                set(o, "tag",
                    json_string(sc_partition_tag_name(
                        (sc_partition_tag)pn->tag)),
                    ok);
            set(o, "distance", json_integer(pn->dist), ok);
            set(o, "bytes", json_integer(pn->bytes), ok);
            set(o, "weight", json_integer(pn->weight), ok);
        }
        if (!o || json_array_append_new(a, o) != 0)
            *ok = false;
    }
    if (!a)
        *ok = false;
    return a;
}

sc_status sc_partition_write_json(const sc_partition *p, unsigned flags,
                                  char **out, size_t *len, sc_error *err)
{
    json_t *root = json_object(), *o;
    counts c;
    bool ok = true;
    size_t i, unknown;
    int64_t flops;
    char *s;

    *out = NULL;
    count_nodes(p, &c);
    set(root, "policy", json_string(sc_partition_policy_name(p->policy)),
        &ok);
    {
        unsigned off;
        int32_t max_dist, limit;
        sc_partition_rules(p, &off, &max_dist, &limit);
        o = json_object();
        for (i = 0; i < NRULES; i++)
            set(o, rule_names[i].json,
                json_boolean(!(off & rule_names[i].bit)), &ok);
        set(o, "max_dist_from_bw", json_integer(max_dist), &ok);
        set(o, "long_chain_limit", json_integer(limit), &ok);
        set(root, "rules", o, &ok);
    }
    set(root, "unbacked_fallback", json_integer(p->unbacked_fallback), &ok);
    o = json_object();
    set(o, "nodes", json_integer((json_int_t)p->n), &ok);
    set(o, "primals", json_integer((json_int_t)sc_graph_primal_count(p->g)),
        &ok);
    set(o, "tangents",
        json_integer((json_int_t)sc_graph_tangent_count(p->g)), &ok);
    set(o, "outputs", json_integer((json_int_t)sc_graph_output_count(p->g)),
        &ok);
    set(o, "fwd_outputs", json_integer((json_int_t)p->nfwd_out), &ok);
    set(o, "params", json_integer((json_int_t)p->nparams), &ok);
    {
        json_t *pa = json_array();
        size_t k;
        for (k = 0; pa && k < sc_graph_placeholder_count(p->g); k++)
            if ((p->nodes[k].flags & SC__PN_PARAM) &&
                json_array_append_new(
                    pa, json_string(sc_graph_node_name(p->g, (sc_node_id)k))) !=
                    0) {
                json_decref(pa);
                pa = NULL;
            }
        set(o, "param_names", pa, &ok);
    }
    set(o, "dead", json_integer((json_int_t)p->ndead), &ok);
    set(o, "folded", json_integer((json_int_t)p->nfolded), &ok);
    set(root, "joint", o, &ok);
    set(root, "saved_tensors", name_array(p, &p->saved_tensors), &ok);
    set(root, "saved_symints", name_array(p, &p->saved_symints), &ok);
    set(root, "synthesized_symints", synth_json(p, &ok), &ok);
    set(root, "saved_bytes", json_integer(p->saved_bytes), &ok);
    set(root, "saved_bytes_formula", expr_json(p, p->saved_expr), &ok);
    set(root, "saved_bytes_excluding_primals",
        json_integer(p->saved_bytes - c.saved_primal_bytes), &ok);
    set(root, "trivial_bytes", json_integer(p->trivial_bytes), &ok);
    set(root, "trivial_bytes_formula", expr_json(p, p->trivial_expr), &ok);
    set(root, "recomputed", name_array(p, &p->recomputed), &ok);
    set(root, "forward_nodes", json_integer((json_int_t)c.fw_nodes), &ok);
    set(root, "forward_calls", json_integer((json_int_t)c.fw_calls), &ok);
    set(root, "backward_nodes", json_integer((json_int_t)c.bw_nodes), &ok);
    set(root, "backward_calls", json_integer((json_int_t)c.bw_calls), &ok);
    flops = sc_partition_recompute_flops(p, &unknown);
    o = json_object();
    set(o, "nodes", json_integer((json_int_t)p->recomputed.n), &ok);
    set(o, "flops", json_integer(flops), &ok);
    set(o, "nodes_without_formula", json_integer((json_int_t)unknown), &ok);
    set(root, "recompute_cost", o, &ok);
    o = json_object();
    set(o, "vertices", json_integer((json_int_t)p->net_vertices), &ok);
    set(o, "edges", json_integer((json_int_t)p->net_edges), &ok);
    set(o, "cut_value", json_integer(p->cut_value), &ok);
    set(root, "network", o, &ok);
    set(root, "saved", saved_details(p, &p->saved_tensors, &ok), &ok);
    set(root, "saved_symint_details", saved_details(p, &p->saved_symints, &ok),
        &ok);
    o = json_array();
    for (i = 0; o && i < p->nwarnings; i++)
        if (json_array_append_new(o, json_string(p->warnings[i])) != 0)
            ok = false;
    set(root, "warnings", o, &ok);
    set(root, "nodes", nodes_json(p, &ok), &ok);
    if (!(flags & SC_PARTITION_REPORT_NO_TIMINGS)) {
        double total = 0;
        o = json_object();
        for (i = 0; i < SC_PARTITION_PHASE_COUNT_; i++) {
            set(o, sc_partition_phase_name((sc_partition_phase)i),
                json_real(p->seconds[i]), &ok);
            total += p->seconds[i];
        }
        set(o, "total", json_real(total), &ok);
        set(root, "timings", o, &ok);
    }
    if (!ok || !root) {
        json_decref(root);
        return sc__error_nomem(err);
    }
    s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!s)
        return sc__error_nomem(err);
    {
        size_t n = strlen(s);
        char *copy = malloc(n + 2);
        if (!copy) {
            free(s);
            return sc__error_nomem(err);
        }
        memcpy(copy, s, n);
        copy[n] = '\n';
        copy[n + 1] = '\0';
        free(s);
        *out = copy;
        if (len)
            *len = n + 1;
    }
    return SC_OK;
}

/* ---- DOT ---------------------------------------------------------------------- */

static const char *place_color(const sc_graph *g, sc_node_id id, void *user)
{
    const sc_partition *p = user;
    const sc__pnode *pn = &p->nodes[id];
    (void)g;
    switch ((sc_partition_place)pn->place) {
    case SC_PARTITION_PLACE_SAVED:
        return "#ffd92f";
    case SC_PARTITION_PLACE_RECOMPUTED:
        return "#b2df8a";
    case SC_PARTITION_PLACE_FORWARD:
        return pn->ban != SC_PARTITION_BAN_NONE &&
                       pn->ban != SC_PARTITION_BAN_PRIMAL
                   ? "#6baed6"
                   : "#c6dbef";
    case SC_PARTITION_PLACE_BACKWARD:
        return "#fb9a99";
    default:
        return "#eeeeee";
    }
}

sc_status sc_partition_write_dot(const sc_partition *p, unsigned flags,
                                 char **out, size_t *len, sc_error *err)
{
    sc_graph_dot_options o;
    char title[128];
    (void)flags;
    sc_graph_dot_options_init(&o);
    o.color = place_color;
    o.user = (void *)p;
    snprintf(title, sizeof title,
             "%s partition: forward (blue; dark: banned), saved (yellow), "
             "recomputed (green), backward (red), dead/folded (grey)",
             sc_partition_policy_name(p->policy));
    o.title = title;
    return sc_graph_write_dot(p->g, &o, out, len, err);
}

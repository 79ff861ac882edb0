/* symcut — partitioner reports: text, JSON (jansson) and DOT, each with
 * an optional context (sc_partition_report_info: the input, the memory
 * budget's outcome, the DOT view); the stable codes of bans, reasons and
 * solvers. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "graph/dot-internal.h"
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


/* ---- Codes ------------------------------------------------------------------ */

/* Stable codes of the bans, in SC_PARTITION_BAN_MAP's order (written out:
 * a code must not change when an enum constant is renamed). */
static const char *const ban_codes[] = {
    "none",           "primal",           "not_recomputable",
    "compute_intensive", "random",        "mutates",
    "reduction",      "materialized_backward", "must_save",
    "used_far_apart", "long_fusible_chain", "far_from_backward"};
_Static_assert(sizeof ban_codes / sizeof ban_codes[0] ==
                   SC_PARTITION_BAN_COUNT_,
               "a code for every ban");

const char *sc_partition_ban_code(sc_partition_ban ban)
{
    return (unsigned)ban < SC_PARTITION_BAN_COUNT_ ? ban_codes[ban] : NULL;
}

static const char *const solver_codes[] = {
#define SC__X(name, code, prose) code,
    SC_PARTITION_SOLVER_MAP(SC__X)
#undef SC__X
};
static const char *const solver_texts[] = {
#define SC__X(name, code, prose) prose,
    SC_PARTITION_SOLVER_MAP(SC__X)
#undef SC__X
};

const char *sc_partition_solver_code(sc_partition_solver solver)
{
    return (unsigned)solver < SC_PARTITION_SOLVER_COUNT_
               ? solver_codes[solver]
               : NULL;
}

const char *sc_partition_solver_text(sc_partition_solver solver)
{
    return (unsigned)solver < SC_PARTITION_SOLVER_COUNT_
               ? solver_texts[solver]
               : NULL;
}

/* Is the ban one the exact frontier prices instead of obeying
 * (partition/frontier.c's heuristic bans)? */
static bool heuristic_ban(unsigned ban)
{
    switch ((sc_partition_ban)ban) {
    case SC_PARTITION_BAN_NOT_RECOMPUTABLE:
    case SC_PARTITION_BAN_COMPUTE_INTENSIVE:
    case SC_PARTITION_BAN_REDUCTION:
    case SC_PARTITION_BAN_MATERIALIZED_BACKWARD:
    case SC_PARTITION_BAN_USED_FAR_APART:
    case SC_PARTITION_BAN_LONG_FUSIBLE_CHAIN:
    case SC_PARTITION_BAN_FAR_FROM_BACKWARD:
        return true;
    default:
        return false;
    }
}

static bool exact_budget(const sc_partition_budget_outcome *b)
{
    return b && (b->solver == SC_PARTITION_SOLVER_EXACT_HULL ||
                 b->solver == SC_PARTITION_SOLVER_EXACT_MILP);
}

/* The code of the reason sc_partition_node_reason gives (the same
 * decisions, in the same order, as partition/result.c). */
static const char *reason_code(const sc_partition *p, const sc__pnode *pn)
{
    switch ((sc_partition_place)pn->place) {
    case SC_PARTITION_PLACE_DEAD:
        return "dead";
    case SC_PARTITION_PLACE_FOLDED:
        return "folded";
    case SC_PARTITION_PLACE_SAVED:
        if (pn->flags & SC__PN_PRIMAL)
            return "saved_primal";
        if (pn->flags & SC__PN_BINDING)
            return "saved_binding";
        if (pn->ban != SC_PARTITION_BAN_NONE &&
            pn->ban < SC_PARTITION_BAN_COUNT_)
            return "saved_banned";
        if (pn->weight == 0)
            return "saved_free";
        return "saved_min_cut";
    case SC_PARTITION_PLACE_RECOMPUTED:
        if (pn->tag == SC_PARTITION_TAG_MUST_RECOMPUTE &&
            p->policy != SC_PARTITION_PYTORCH_1_13)
            return "recomputed_tagged";
        return "recomputed_min_cut";
    case SC_PARTITION_PLACE_FORWARD:
        return pn->flags & SC__PN_PRIMAL ? "forward_primal" : "forward_only";
    case SC_PARTITION_PLACE_BACKWARD:
        if (pn->flags & SC__PN_TANGENT)
            return "backward_tangent";
        if (pn->cls & SC_PARTITION_TANGENT_CLOSURE)
            return "backward_tangent_closure";
        return "backward_only";
    case SC_PARTITION_PLACE_UNUSED:
    default:
        return "unused";
    }
}

const char *sc_partition_report_reason(const sc_partition *p,
                                       const sc_partition_budget_outcome *b,
                                       sc_node_id id, const char **code)
{
    static const sc__pnode none = {.rep = SC_NODE_NONE, .bytes = -1,
                                   .place = SC_PARTITION_PLACE_DEAD};
    const sc__pnode *pn =
        id >= 0 && (size_t)id < p->n ? &p->nodes[id] : &none;
    const char *c = reason_code(p, pn);

    if (exact_budget(b)) {
        bool priced = heuristic_ban(pn->ban);
        if (strcmp(c, "saved_banned") == 0 && priced) {
            *code = "saved_budget";
            return "saved: the least recompute cost within the memory "
                   "budget saves it (its heuristic ban is a price there, "
                   "not a rule)";
        }
        if (strcmp(c, "saved_min_cut") == 0) {
            *code = "saved_budget";
            return "saved: the least recompute cost within the memory "
                   "budget saves it";
        }
        if (strcmp(c, "recomputed_min_cut") == 0) {
            *code = "recomputed_budget";
            return priced ? "recomputed: the least recompute cost within "
                            "the memory budget recomputes it (its heuristic "
                            "ban is a price there, not a rule)"
                          : "recomputed: the least recompute cost within "
                            "the memory budget recomputes it";
        }
    }
    *code = c;
    return sc_partition_node_reason(p, id);
}

void sc_partition_report_info_init(sc_partition_report_info *info)
{
    memset(info, 0, sizeof *info);
    info->around = SC_NODE_NONE;
    info->around_depth = 2;
}

/* The reason's prose (code ignored). */
static const char *reason_of(const sc_partition *p,
                             const sc_partition_report_info *info,
                             sc_node_id id, const char **code)
{
    const char *dummy;
    return sc_partition_report_reason(p, info ? info->budget : NULL, id,
                                      code ? code : &dummy);
}

/* ---- Text ------------------------------------------------------------------ */

static void put_list(sc__buf *b, const sc_partition *p,
                     const sc_partition_report_info *info, const char *title,
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
        sc__buf_printf(b, "%s\n", reason_of(p, info, id, NULL));
    }
}

/* "memory budget: ..." lines of the text report. */
static void put_budget(sc__buf *b, const sc_partition_budget_outcome *o)
{
    if (o->kind == SC_PARTITION_BUDGET_BYTES)
        sc__buf_printf(b, "memory budget: %llu bytes",
                       (unsigned long long)o->asked_bytes);
    else
        sc__buf_printf(b, "memory budget: ratio %g", o->asked_ratio);
    if (o->kind == SC_PARTITION_BUDGET_RATIO && o->has_budget_bytes)
        sc__buf_printf(b, " = %llu bytes (from the least, %llu, to the "
                          "default cut, %llu)",
                       (unsigned long long)o->budget_bytes,
                       (unsigned long long)o->least_bytes,
                       (unsigned long long)o->default_bytes);
    else if (!o->has_budget_bytes)
        sc__buf_puts(b, " (torch's normalization)");
    sc__buf_printf(b, "\nsolver: %s (%s)\n",
                   sc_partition_solver_code(o->solver),
                   sc_partition_solver_text(o->solver));
    if (!o->valid) {
        sc__buf_puts(b, "exact frontier: the decision recomputes what no "
                        "valid decision may; no bound\n");
        return;
    }
    sc__buf_printf(b, "exact frontier: recompute cost %llu (%llu FLOPs); ",
                   (unsigned long long)o->recompute_cost,
                   (unsigned long long)o->recompute_flops);
    if (o->optimal)
        sc__buf_printf(b, "optimal (proven; the hull's bound %llu)\n",
                       (unsigned long long)o->hull_bound);
    else
        sc__buf_printf(b,
                       "not proven optimal: lower bound %llu (the hull's%s), "
                       "gap %llu\n",
                       (unsigned long long)o->lower_bound,
                       o->has_budget_bytes ? "" : ", at its saved bytes",
                       (unsigned long long)o->gap);
}

static sc_status write_text(const sc_partition *p,
                            const sc_partition_report_info *info,
                            unsigned flags, char **out, size_t *len,
                            sc_error *err)
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
    put_list(&b, p, info, "saved tensors", &p->saved_tensors, true);
    put_list(&b, p, info, "saved symints", &p->saved_symints, false);
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
    if (info && info->budget && info->budget->kind != SC_PARTITION_BUDGET_NONE)
        put_budget(&b, info->budget);
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

sc_status sc_partition_write_text(const sc_partition *p, unsigned flags,
                                  char **out, size_t *len, sc_error *err)
{
    return write_text(p, NULL, flags, out, len, err);
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

static json_t *saved_details(const sc_partition *p,
                             const sc_partition_report_info *info,
                             const sc__idlist *l, bool *ok)
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
        {
            const char *code;
            const char *r = reason_of(p, info, id, &code);
            set(o, "reason_code", json_string(code), ok);
            set(o, "reason", json_string(r), ok);
        }
        if (pn->ban != SC_PARTITION_BAN_NONE) {
            set(o, "ban", json_string(ban_codes[pn->ban]), ok);
            set(o, "ban_text",
                json_string(sc_partition_ban_name((sc_partition_ban)pn->ban)),
                ok);
        }
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

/* A node's op: the target of a call ("torch.ops.aten.mm.default"),
 * "placeholder" for an input. */
static json_t *op_json(const sc_partition *p, sc_node_id id)
{
    const char *t = sc_graph_node_target(p->g, id);
    return json_string(t ? t : "placeholder");
}

/* [{symbol, value, source}]: every symbol of the joint and the value it
 * weighed as (a hint, or a fallback for an unbacked symbol). */
static json_t *hints_json(const sc_partition *p, bool *ok)
{
    json_t *a = json_array();
    sc_expr **syms = NULL;
    size_t n = sc_graph_symbols(p->g, NULL, 0), i;

    if (n && !(syms = malloc(n * sizeof *syms)))
        *ok = false;
    if (syms)
        n = sc_graph_symbols(p->g, syms, n);
    for (i = 0; a && syms && i < n && *ok; i++) {
        json_t *o = json_object();
        sc_expr *v = p->binding ? sc_symmap_get(p->binding, syms[i]) : NULL;
        int64_t x, h;
        set(o, "symbol", json_string(sc_expr_symbol_name(syms[i])), ok);
        if (v && sc_expr_value_si(v, &x))
            set(o, "value", json_integer(x), ok);
        else
            set(o, "value", json_null(), ok);
        set(o, "source",
            json_string(sc_graph_get_hint(p->g, syms[i], &h) ? "hint"
                                                              : "fallback"),
            ok);
        if (!o || json_array_append_new(a, o) != 0)
            *ok = false;
    }
    free(syms);
    if (!a)
        *ok = false;
    return a;
}

/* The "memory_budget" object (null without a budget). */
static json_t *budget_json(const sc_partition_budget_outcome *b, bool *ok)
{
    json_t *o;
    if (!b || b->kind == SC_PARTITION_BUDGET_NONE)
        return json_null();
    o = json_object();
    set(o, "kind",
        json_string(b->kind == SC_PARTITION_BUDGET_BYTES ? "bytes" : "ratio"),
        ok);
    if (b->kind == SC_PARTITION_BUDGET_BYTES)
        set(o, "asked_bytes", json_integer((json_int_t)b->asked_bytes), ok);
    else
        set(o, "asked_ratio", json_real(b->asked_ratio), ok);
    set(o, "budget_bytes",
        b->has_budget_bytes ? json_integer((json_int_t)b->budget_bytes)
                            : json_null(),
        ok);
    set(o, "solver", json_string(sc_partition_solver_code(b->solver)), ok);
    set(o, "solver_text", json_string(sc_partition_solver_text(b->solver)),
        ok);
    set(o, "optimal", json_boolean(b->optimal), ok);
    set(o, "valid", json_boolean(b->valid), ok);
    if (b->valid) {
        set(o, "saved_bytes", json_integer((json_int_t)b->saved_bytes), ok);
        set(o, "recompute_cost", json_integer((json_int_t)b->recompute_cost),
            ok);
        set(o, "recompute_flops",
            json_integer((json_int_t)b->recompute_flops), ok);
        set(o, "lower_bound", json_integer((json_int_t)b->lower_bound), ok);
        set(o, "hull_bound", json_integer((json_int_t)b->hull_bound), ok);
        set(o, "hull_bound_at",
            json_string(b->has_budget_bytes ? "budget" : "saved_bytes"), ok);
        set(o, "gap", json_integer((json_int_t)b->gap), ok);
        set(o, "relative_gap",
            json_real(b->recompute_cost
                          ? (double)b->gap / (double)b->recompute_cost
                          : 0.0),
            ok);
    }
    set(o, "least_bytes", json_integer((json_int_t)b->least_bytes), ok);
    set(o, "default_bytes", json_integer((json_int_t)b->default_bytes), ok);
    return o;
}

static json_t *nodes_json(const sc_partition *p,
                          const sc_partition_report_info *info, bool *ok)
{
    json_t *a = json_array();
    size_t i;
    for (i = 0; a && i < p->n && *ok; i++) {
        const sc__pnode *pn = &p->nodes[i];
        sc_node_id id = (sc_node_id)i;
        json_t *o = json_object();
        const char *code, *reason = reason_of(p, info, id, &code);
        set(o, "name", json_string(sc_graph_node_name(p->g, id)), ok);
        set(o, "op", op_json(p, id), ok);
        set(o, "type", type_json(p, id), ok);
        set(o, "place",
            json_string(sc_partition_place_name(
                (sc_partition_place)pn->place)),
            ok);
        set(o, "reason_code", json_string(code), ok);
        set(o, "reason", json_string(reason), ok);
        if (pn->rep != id && pn->rep != SC_NODE_NONE)
            set(o, "representative",
                json_string(sc_graph_node_name(p->g, pn->rep)), ok);
        if (pn->flags & SC__PN_CANON) {
            set(o, "class", class_json(pn->cls), ok);
            if (pn->ban != SC_PARTITION_BAN_NONE && pn->ban < SC_PARTITION_BAN_COUNT_) {
                set(o, "ban", json_string(ban_codes[pn->ban]), ok);
                set(o, "ban_text",
                    json_string(sc_partition_ban_name(
                        (sc_partition_ban)pn->ban)),
                    ok);
            }
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

static sc_status write_json(const sc_partition *p,
                            const sc_partition_report_info *info,
                            unsigned flags, char **out, size_t *len,
                            sc_error *err)
{
    json_t *root = json_object(), *o;
    counts c;
    bool ok = true;
    size_t i, unknown;
    int64_t flops;
    char *s;

    *out = NULL;
    count_nodes(p, &c);
    set(root, "format_version",
        json_integer(SC_PARTITION_REPORT_FORMAT_VERSION), &ok);
    o = json_object();
    set(o, "file",
        info && info->input ? json_string(info->input) : json_null(), &ok);
    set(o, "forward", json_boolean(info && info->forward), &ok);
    set(root, "input", o, &ok);
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
    set(root, "hints", hints_json(p, &ok), &ok);
    set(root, "memory_budget", budget_json(info ? info->budget : NULL, &ok),
        &ok);
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
    /* torch 2.13's functionalize_rng_ops: the random ops it rewrites */
    set(root, "rng_functionalized", json_integer((json_int_t)p->nrng), &ok);
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
    set(root, "saved", saved_details(p, info, &p->saved_tensors, &ok), &ok);
    set(root, "saved_symint_details",
        saved_details(p, info, &p->saved_symints, &ok), &ok);
    o = json_array();
    for (i = 0; o && i < p->nwarnings; i++)
        if (json_array_append_new(o, json_string(p->warnings[i])) != 0)
            ok = false;
    set(root, "warnings", o, &ok);
    set(root, "nodes", nodes_json(p, info, &ok), &ok);
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

sc_status sc_partition_write_json(const sc_partition *p, unsigned flags,
                                  char **out, size_t *len, sc_error *err)
{
    return write_json(p, NULL, flags, out, len, err);
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

static const sc__dot_legend_entry place_legend[] = {
    {"#c6dbef", NULL, "forward only"},
    {"#6baed6", NULL, "forward only, banned from recomputation"},
    {"#ffd92f", NULL, "saved (forward to backward)"},
    {"#b2df8a", NULL, "recomputed (in both graphs)"},
    {"#fb9a99", NULL, "backward only"},
    {"#eeeeee", NULL, "dead, folded by CSE, or unused"},
    {"white", "dashed", "call of an op the op table does not know"}};

/* Clusters of the picture, by place. */
static const char *const place_clusters[] = {
    "forward graph only", "saved", "recomputed: in both graphs",
    "backward graph only"};

static int8_t place_cluster(sc_partition_place place)
{
    switch (place) {
    case SC_PARTITION_PLACE_FORWARD:
        return 0;
    case SC_PARTITION_PLACE_SAVED:
        return 1;
    case SC_PARTITION_PLACE_RECOMPUTED:
        return 2;
    case SC_PARTITION_PLACE_BACKWARD:
        return 3;
    default:
        return -1;
    }
}

static sc_status write_dot(const sc_partition *p,
                           const sc_partition_report_info *info,
                           char **out, size_t *len, sc_error *err)
{
    sc_graph_dot_options o;
    sc__dot_ext ext;
    char title[160], note[256];
    int8_t *cluster = NULL;
    bool *keep = NULL;
    sc_status status = SC_OK;
    size_t i;

    *out = NULL;
    sc_graph_dot_options_init(&o);
    o.color = place_color;
    o.user = (void *)p;
    snprintf(title, sizeof title, "%s partition of %s",
             sc_partition_policy_name(p->policy),
             info && info->input ? info->input : "the joint graph");
    o.title = title;
    memset(&ext, 0, sizeof ext);
    ext.legend = place_legend;
    ext.nlegend = sizeof place_legend / sizeof place_legend[0];
    cluster = sc__malloc(p->n ? p->n : 1);
    if (!cluster)
        SC_CHECK(sc__error_nomem(err));
    for (i = 0; i < p->n; i++)
        cluster[i] = place_cluster((sc_partition_place)p->nodes[i].place);
    ext.cluster = cluster;
    ext.nclusters = sizeof place_clusters / sizeof place_clusters[0];
    ext.cluster_labels = place_clusters;
    if (info && info->around != SC_NODE_NONE)
        SC_CHECK(sc__graph_dot_around(p->g, info->around, info->around_depth,
                                      &ext, &keep, note, sizeof note, err));
    SC_CHECK(sc__graph_write_dot_ext(p->g, &o, &ext, out, len, err));
fail:
    sc__free(cluster);
    sc__free(keep);
    return status;
}

sc_status sc_partition_write_dot(const sc_partition *p, unsigned flags,
                                 char **out, size_t *len, sc_error *err)
{
    (void)flags;
    return write_dot(p, NULL, out, len, err);
}

sc_status sc_partition_write_report(const sc_partition *p,
                                    const sc_partition_report_info *info,
                                    sc_partition_report_format format,
                                    unsigned flags, char **out, size_t *len,
                                    sc_error *err)
{
    *out = NULL;
    switch (format) {
    case SC_PARTITION_REPORT_TEXT:
        return write_text(p, info, flags, out, len, err);
    case SC_PARTITION_REPORT_JSON:
        return write_json(p, info, flags, out, len, err);
    case SC_PARTITION_REPORT_DOT:
        return write_dot(p, info, out, len, err);
    default:
        return sc__error_set(err, SC_ERR_INVALID, "unknown report format %d",
                             (int)format);
    }
}

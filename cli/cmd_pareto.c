/* symcut pareto — the exact memory/recompute frontier of a joint graph
 * (doc/partition.md, "Frontier").
 *
 *   symcut pareto GRAPH [--policy P] [--points N] [--keep-bans]
 *                 [--replay-random]
 *                 [--time-limit S] [--no-peak | --measure-peak]
 *                 [--compare FILE]
 *                 [--hint s0=8,...] [--num-fwd-outputs N]
 *                 [--params N|I,J,...] [--format text|json|csv|svg] [-o FILE]
 *
 * The output is produced before it is written, atomically: nothing is
 * written when the run fails. */
#include <config.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>
#include <symcut/interp.h>
#include <symcut/partition.h>

#include "cli/cli.h"
#include "cli/decision-peak.h"
#include "cli/load.h"

int cli_cmd_pareto(int argc, char **argv);

static void usage(FILE *out)
{
    fputs("Usage: symcut pareto GRAPH [--policy P] [--points N]\n"
          "                     [--keep-bans] [--replay-random] [--time-limit S]\n"
          "                     [--no-peak | --measure-peak] [--compare FILE]\n"
          "                     [--hint s0=8,...] [--params N|I,J,...]\n"
          "                     [--num-fwd-outputs N]\n"
          "                     [--format text|json|csv|svg] [-o FILE]\n"
          "\n"
          "The exact memory/recompute frontier of a joint graph: every\n"
          "vertex of its lower convex hull (saved bytes against recompute\n"
          "cost, by parametric min cut), and with --points N that many\n"
          "budgets between the ends solved exactly (GLPK), each with the\n"
          "hull's lower bound; the default cut and both ends.\n"
          "\n"
          "Options:\n"
          "  --policy P          exact (default), pytorch-2.13 (also torch\n"
          "                      2.13's own budget decisions at 0.05, 0.10,\n"
          "                      ..., 0.95) or pytorch-1.13: that policy's\n"
          "                      validity rules and default cut\n"
          "  --points N          N budgets evenly spaced from the least\n"
          "                      bytes to the least recompute (default 0:\n"
          "                      the hull vertices only; at most 1000)\n"
          "  --keep-bans         keep the policy's heuristic bans as\n"
          "                      constraints (compare like with like)\n"
          "  --replay-random     (exact) random ops may be recomputed: the\n"
          "                      interpreter replays their draws exactly\n"
          "                      (torch would draw again: not for torch)\n"
          "  --time-limit S      seconds per budget in the MILP (default 10)\n"
          "  --compare FILE      also score the decisions of FILE, one a line\n"
          "                      ('LABEL: NAME, NAME ...' or the names), e.g.\n"
          "                      PyTorch's at its budgets\n"
          "  --no-peak           leave out the predicted peak memory of each\n"
          "                      decision (forward then backward)\n"
          "  --measure-peak      also measure it: run forward then backward\n"
          "                      in the interpreter at the hints\n"
          "  --hint s0=8,s1=64   hints of symbols; repeatable\n"
          "  --params N|I,J,...  the first N primals, or primals number I,\n"
          "                      J, ... (from 0), are parameters\n"
          "  --num-fwd-outputs N the number of forward outputs (default: the\n"
          "                      graph's)\n"
          "  --format F          text (default), json, csv, svg (a plot: saved\n"
          "                      MB against recompute GFLOPs)\n"
          "  -o FILE             write to FILE (atomically)\n"
          "\n"
          "Exit status: 0 success; 1 bad command line; 2 the graph could not\n"
          "be read or partitioned, or an error writing.\n",
          out);
}

/* ---- A growing text buffer ------------------------------------------------ */

typedef struct buf {
    char *s;
    size_t n, cap;
    bool nomem;
} buf;

static void bprintf(buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void bprintf(buf *b, const char *fmt, ...)
{
    va_list ap;
    int k;
    if (b->nomem)
        return;
    for (;;) {
        size_t room = b->cap - b->n;
        va_start(ap, fmt);
        k = vsnprintf(b->s ? b->s + b->n : NULL, room, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->nomem = true;
            return;
        }
        if ((size_t)k < room) {
            b->n += (size_t)k;
            return;
        }
        {
            size_t nc = (b->cap ? 2 * b->cap : 1024) + (size_t)k;
            char *ns = realloc(b->s, nc);
            if (!ns) {
                b->nomem = true;
                return;
            }
            b->s = ns;
            b->cap = nc;
        }
    }
}

/* ---- Peak memory ----------------------------------------------------------- */

/* a decision's peak memory (cli/decision-peak.h) */
typedef cli_peak peak;

/* cli/decision-peak.h */
int cli_decision_peak(const sc_frontier *f, const sc_graph *g, long point,
                      const sc_node_id *ids, size_t n, bool measure,
                      cli_peak *out)
{
    sc_partition *part = NULL;
    sc_peak_report rep;
    sc_symmap *m = NULL;
    sc_expr *syms[256];
    size_t ns, k;
    sc_error err;
    int rc = CLI_EXIT_INPUT;

    memset(out, 0, sizeof *out);
    if ((point >= 0 ? sc_frontier_point_partition(f, (size_t)point, 0, &part,
                                                  &err)
                    : sc_frontier_partition_saved(f, ids, n, 0, &part,
                                                  &err)) != SC_OK)
        goto fail;
    m = sc_symmap_new(sc_graph_ctx(g));
    if (!m) {
        cli_errorf("out of memory");
        goto done;
    }
    ns = sc_graph_symbols(g, syms, sizeof syms / sizeof syms[0]);
    for (k = 0; k < ns && k < sizeof syms / sizeof syms[0]; k++) {
        int64_t v;
        if (sc_graph_get_hint(g, syms[k], &v) &&
            sc_symmap_set_si(m, syms[k], v, &err) != SC_OK)
            goto fail;
    }
    if (sc_peak_predict(sc_partition_forward(part),
                        sc_partition_backward(part), m, 0, &rep,
                        &err) != SC_OK)
        goto fail;
    out->have = true;
    out->exact = rep.unknown_elements == 0;
    out->bytes = rep.peak_bytes;
    if (measure) {
        sc_peak_options po;
        sc_peak_options_init(&po);
        po.sizes = m;
        if (sc_peak_measure(sc_partition_forward(part),
                            sc_partition_backward(part), &po, &rep,
                            &err) != SC_OK)
            goto fail;
        out->have_measured = true;
        out->measured = rep.peak_bytes;
    }
    rc = 0;
    goto done;
fail:
    cli_report(&err);
done:
    if (m)
        sc_symmap_free(m);
    sc_partition_free(part);
    return rc;
}

/* The figure the monotony check reads: measured where measured. */
static bool peak_figure(const peak *p, uint64_t *v)
{
    if (p->have_measured)
        *v = p->measured;
    else if (p->have)
        *v = p->bytes;
    else
        return false;
    return true;
}

/* ---- Output ---------------------------------------------------------------- */

static void json_peak(buf *b, const peak *pk)
{
    if (!pk || !pk->have)
        return;
    bprintf(b, ", \"peak_bytes\": %" PRIu64 ", \"peak_exact\": %s", pk->bytes,
            pk->exact ? "true" : "false");
    if (pk->have_measured)
        bprintf(b, ", \"measured_peak_bytes\": %" PRIu64, pk->measured);
}

/* replayed: the point's replayed random ops, < 0 to leave out. */
static void json_point(buf *b, const sc_frontier_point *p, long replayed,
                       const peak *pk, bool flag_peak)
{
    bprintf(b,
            "{\"saved_bytes\": %" PRIu64 ", \"recompute_cost\": %" PRIu64
            ", \"recompute_flops\": %" PRIu64 ", \"hull_vertex\": %s, "
            "\"optimal\": %s, \"lower_bound\": %" PRIu64
            ", \"budget\": %" PRIu64 ", \"saved_tensors\": %zu, "
            "\"saved_symints\": %zu",
            p->saved_bytes, p->recompute_cost, p->recompute_flops,
            p->hull_vertex ? "true" : "false", p->optimal ? "true" : "false",
            p->lower_bound, p->budget, p->saved_tensors, p->saved_symints);
    if (replayed >= 0)
        bprintf(b, ", \"replayed_random\": %ld", replayed);
    json_peak(b, pk);
    if (pk && pk->have && flag_peak)
        bprintf(b, ", \"peak_not_monotone\": true");
    bprintf(b, "}");
}

static void json_string(buf *b, const char *s)
{
    bprintf(b, "\"");
    for (; *s; s++)
        if (*s == '"' || *s == '\\')
            bprintf(b, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            bprintf(b, "\\u%04x", (unsigned)*s);
        else
            bprintf(b, "%c", *s);
    bprintf(b, "\"");
}

/* ---- Decisions to compare (--compare FILE; torch 2.13's budgets) ----- */

typedef struct cmp_item {
    char label[64];
    double ratio;        /* torch 2.13's budget; < 0: from --compare */
    char error[SC_ERROR_MESSAGE_MAX]; /* torch's algorithm failed at ratio
                                         (pt unset) */
    sc_frontier_point pt;
    sc_node_id *ids;
    size_t nids;
    peak pk;
} cmp_item;

typedef struct cmp_list {
    cmp_item *items;
    size_t n;
} cmp_list;

static void cmp_list_free(cmp_list *cl)
{
    size_t i;
    for (i = 0; i < cl->n; i++)
        free(cl->items[i].ids);
    free(cl->items);
    cl->items = NULL;
    cl->n = 0;
}

static cmp_item *cmp_push(cmp_list *cl)
{
    cmp_item *ni = realloc(cl->items, (cl->n + 1) * sizeof *ni);
    if (!ni) {
        cli_errorf("out of memory");
        return NULL;
    }
    cl->items = ni;
    ni = &cl->items[cl->n];
    memset(ni, 0, sizeof *ni);
    ni->ratio = -1;
    return ni;
}

/* FILE: one decision a line, `LABEL: NAME, NAME ...` or the names alone
 * (labelled by the line number); blank lines and `#` comments skipped.
 * Each is scored against the frontier. */
static int load_compare(const char *path, const sc_graph *g,
                        const sc_frontier *f, cmp_list *out)
{
    sc_error err;
    size_t len, line = 0;
    char *text = cli_read_file(path, &len, &err), *s, *next;
    int rc = CLI_EXIT_INPUT;

    if (!text) {
        cli_report(&err);
        return CLI_EXIT_INPUT;
    }
    for (s = text; s && *s; s = next) {
        char *colon, *names, *tok, *save = NULL;
        size_t cap = 0;
        cmp_item *ni;
        line++;
        next = strchr(s, '\n');
        if (next)
            *next++ = '\0';
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '#' || *s == '\r')
            continue;
        if (!(ni = cmp_push(out)))
            goto done;
        out->n++; /* owned by the list from here on */
        colon = strchr(s, ':');
        if (colon) {
            size_t l = (size_t)(colon - s);
            if (l >= sizeof ni->label)
                l = sizeof ni->label - 1;
            memcpy(ni->label, s, l);
            ni->label[l] = '\0';
            names = colon + 1;
        } else {
            snprintf(ni->label, sizeof ni->label, "line %zu", line);
            names = s;
        }
        for (tok = strtok_r(names, ", \t\r", &save); tok;
             tok = strtok_r(NULL, ", \t\r", &save)) {
            sc_node_id id = sc_graph_find(g, tok);
            if (id == SC_NODE_NONE) {
                cli_errorf("%s:%zu:%zu: no node '%s' in the graph", path, line,
                           (size_t)(tok - s) + 1, tok);
                goto done;
            }
            if (ni->nids == cap) {
                size_t nc = cap ? 2 * cap : 16;
                sc_node_id *nn = realloc(ni->ids, nc * sizeof *nn);
                if (!nn) {
                    cli_errorf("out of memory");
                    goto done;
                }
                ni->ids = nn;
                cap = nc;
            }
            ni->ids[ni->nids++] = id;
        }
        if (sc_frontier_score(f, ni->ids, ni->nids, &ni->pt, &err) != SC_OK) {
            cli_report(&err);
            goto done;
        }
    }
    rc = 0;
done:
    free(text);
    return rc;
}

/* torch 2.13's own memory-budget decisions at 0.05, 0.10, ..., 0.95, each
 * scored against the frontier; a ratio where its algorithm fails keeps
 * the message. */
#define TORCH_RATIOS 19

static int load_torch(const sc_frontier *f, cmp_list *out)
{
    size_t i;
    for (i = 1; i <= TORCH_RATIOS; i++) {
        cmp_item *ni = cmp_push(out);
        sc_error err;
        if (!ni)
            return CLI_EXIT_INPUT;
        out->n++;
        ni->ratio = (double)i / 20;
        snprintf(ni->label, sizeof ni->label, "torch-2.13 at %.2f",
                 ni->ratio);
        if (sc_frontier_torch_budget(f, ni->ratio, &ni->pt, &ni->ids,
                                     &ni->nids, &err) != SC_OK) {
            if (err.code == SC_ERR_NOMEM) {
                cli_report(&err);
                return CLI_EXIT_INPUT;
            }
            snprintf(ni->error, sizeof ni->error, "%s", err.message);
        }
    }
    return 0;
}

static void svg_escape(buf *b, const char *s)
{
    for (; *s; s++)
        bprintf(b, *s == '<' ? "&lt;" : *s == '&' ? "&amp;" : "%c", *s);
}

/* The frontier as a plot: saved MB across, recompute GFLOPs up; the hull
 * vertices joined (filled), the budgets' points (hollow), the default cut
 * (a square), compared decisions (orange triangles), torch 2.13's budgets
 * (green diamonds). */
static void svg_plot(buf *b, const sc_frontier *f, const char *file,
                     const cmp_list *cl)
{
    const double W = 640, H = 420, L = 70, R = 20, T = 30, B = 50;
    size_t n = sc_frontier_point_count(f), i;
    sc_frontier_point pt, d;
    double xmin, xmax, ymax = 0, x, y;
    bool any_cmp = false, any_torch = false;

    sc_frontier_default_cut(f, &d);
    sc_frontier_point_get(f, 0, &pt);
    xmin = (double)pt.saved_bytes / 1e6;
    sc_frontier_point_get(f, n - 1, &pt);
    xmax = (double)pt.saved_bytes / 1e6;
    if ((double)d.saved_bytes / 1e6 > xmax)
        xmax = (double)d.saved_bytes / 1e6;
    for (i = 0; i < n; i++) {
        sc_frontier_point_get(f, i, &pt);
        if ((double)pt.recompute_flops / 1e9 > ymax)
            ymax = (double)pt.recompute_flops / 1e9;
    }
    if ((double)d.recompute_flops / 1e9 > ymax)
        ymax = (double)d.recompute_flops / 1e9;
    for (i = 0; i < cl->n; i++) {
        const sc_frontier_point *c = &cl->items[i].pt;
        if (cl->items[i].error[0] || !c->valid)
            continue;
        if ((double)c->saved_bytes / 1e6 > xmax)
            xmax = (double)c->saved_bytes / 1e6;
        if ((double)c->saved_bytes / 1e6 < xmin)
            xmin = (double)c->saved_bytes / 1e6;
        if ((double)c->recompute_flops / 1e9 > ymax)
            ymax = (double)c->recompute_flops / 1e9;
    }
    if (xmax <= xmin)
        xmax = xmin + 1e-6;
    if (ymax <= 0)
        ymax = 1e-9;
#define PX(v) (L + ((v) - xmin) / (xmax - xmin) * (W - L - R))
#define PY(v) (H - B - (v) / ymax * (H - T - B))
    bprintf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
               "height=\"%.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
            W, H);
    bprintf(b, "<title>");
    svg_escape(b, file);
    bprintf(b, ": memory/recompute frontier</title>\n");
    bprintf(b, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    bprintf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
               "stroke=\"black\"/>\n",
            L, H - B, W - R, H - B);
    bprintf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
               "stroke=\"black\"/>\n",
            L, T, L, H - B);
    for (i = 0; i <= 4; i++) {
        double vx = xmin + (xmax - xmin) * (double)i / 4, vy = ymax * i / 4;
        bprintf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
                   "%.4g</text>\n",
                PX(vx), H - B + 16, vx);
        bprintf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">"
                   "%.4g</text>\n",
                L - 6, PY(vy) + 4, vy);
    }
    bprintf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">saved "
               "(MB)</text>\n",
            (L + W - R) / 2, H - 12);
    bprintf(b, "<text x=\"14\" y=\"%.1f\" transform=\"rotate(-90 14 %.1f)\" "
               "text-anchor=\"middle\">recomputed (GFLOPs)</text>\n",
            (T + H - B) / 2, (T + H - B) / 2);
    bprintf(b, "<polyline fill=\"none\" stroke=\"#1f77b4\" points=\"");
    for (i = 0; i < n; i++) {
        sc_frontier_point_get(f, i, &pt);
        if (pt.hull_vertex)
            bprintf(b, "%.1f,%.1f ", PX((double)pt.saved_bytes / 1e6),
                    PY((double)pt.recompute_flops / 1e9));
    }
    bprintf(b, "\"/>\n");
    for (i = 0; i < n; i++) {
        sc_frontier_point_get(f, i, &pt);
        x = PX((double)pt.saved_bytes / 1e6);
        y = PY((double)pt.recompute_flops / 1e9);
        bprintf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" stroke=\"#1f77b4\" "
                   "fill=\"%s\"><title>%" PRIu64 " bytes, cost %" PRIu64
                   "%s</title></circle>\n",
                x, y, pt.hull_vertex ? "#1f77b4" : "white", pt.saved_bytes,
                pt.recompute_cost, pt.optimal ? " (optimal)" : "");
    }
    x = PX((double)d.saved_bytes / 1e6);
    y = PY((double)d.recompute_flops / 1e9);
    bprintf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\" "
               "fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"><title>"
               "default cut: %" PRIu64 " bytes, cost %" PRIu64
               "</title></rect>\n",
            x - 4.5, y - 4.5, d.saved_bytes, d.recompute_cost);
    for (i = 0; i < cl->n; i++) {
        const cmp_item *it = &cl->items[i];
        const sc_frontier_point *c = &it->pt;
        if (it->error[0] || !c->valid)
            continue;
        x = PX((double)c->saved_bytes / 1e6);
        y = PY((double)c->recompute_flops / 1e9);
        if (it->ratio >= 0) {
            any_torch = true;
            bprintf(b, "<path d=\"M%.1f %.1f l5 5 l-5 5 l-5 -5 z\" "
                       "fill=\"none\" stroke=\"#2ca02c\" stroke-width=\"2\">"
                       "<title>",
                    x, y - 5);
        } else {
            any_cmp = true;
            bprintf(b, "<path d=\"M%.1f %.1f l5 9 h-10 z\" fill=\"none\" "
                       "stroke=\"#ff7f0e\" stroke-width=\"2\"><title>",
                    x, y - 5);
        }
        svg_escape(b, it->label);
        bprintf(b, ": %" PRIu64 " bytes, cost %" PRIu64 "</title></path>\n",
                c->saved_bytes, c->recompute_cost);
    }
    bprintf(b, "<text x=\"%.1f\" y=\"%.1f\">filled: hull vertices; hollow: "
               "budgets between them; red square: the default cut%s%s</text>\n",
            L + 6, T - 10, any_cmp ? "; orange: compared" : "",
            any_torch ? "; green: torch 2.13's budgets" : "");
    bprintf(b, "</svg>\n");
#undef PX
#undef PY
}

int cli_pareto_write_svg(FILE *out, const sc_frontier *f, const char *title)
{
    cmp_list cl = {NULL, 0};
    buf b = {0};
    int rc = CLI_EXIT_INPUT;

    if (!f || sc_frontier_point_count(f) == 0) {
        cli_errorf("no frontier to plot");
        return CLI_EXIT_INPUT;
    }
    if (sc_frontier_policy(f) == SC_PARTITION_PYTORCH_2_13 &&
        load_torch(f, &cl) != 0)
        goto done;
    svg_plot(&b, f, title ? title : "", &cl);
    if (b.nomem) {
        cli_errorf("out of memory");
        goto done;
    }
    if (fwrite(b.s, 1, b.n, out) != b.n) {
        cli_errorf("%s: error writing the plot", title ? title : "svg");
        goto done;
    }
    rc = 0;
done:
    free(b.s);
    cmp_list_free(&cl);
    return rc;
}

typedef struct pareto_args {
    const char *file, *out_path, *format, *compare;
    long points, nfwd;
    cli_params params;
    double time_limit;
    bool keep_bans, no_peak, measure_peak, replay_random;
    sc_partition_policy policy;
    cli_hints hints;
    cli_reading reading;
} pareto_args;

static int parse_args(sc_ctx *ctx, int argc, char **argv, pareto_args *a)
{
    static const char *const formats[] = {"text", "json", "csv", "svg",
                                         NULL};
    const cli_opt opts[] = {
        {.name = "--policy", .kind = CLI_OPT_CALL, .dest = &a->policy,
         .fn = cli_policy_option,
         .bad = "unknown policy '%s' (exact, pytorch-2.13, pytorch-1.13)"},
        {.name = "--points", .kind = CLI_OPT_COUNT, .dest = &a->points,
         .bad = "--points needs a count from 0 to 1000, not '%s'"},
        {.name = "--params", .kind = CLI_OPT_CALL, .dest = &a->params,
         .fn = cli_params_option},
        {.name = "--time-limit", .kind = CLI_OPT_NUMBER, .dest = &a->time_limit,
         .min = 1, .bad = "--time-limit needs a positive number of seconds, "
                          "not '%s'"},
        {.name = "--keep-bans", .kind = CLI_OPT_FLAG, .dest = &a->keep_bans},
        {.name = "--replay-random", .kind = CLI_OPT_FLAG,
         .dest = &a->replay_random},
        {.name = "--no-peak", .kind = CLI_OPT_FLAG, .dest = &a->no_peak},
        {.name = "--num-fwd-outputs", .kind = CLI_OPT_COUNT, .dest = &a->nfwd,
         .bad = "--num-fwd-outputs needs a non-negative integer, not '%s'"},
        {.name = "--measure-peak", .kind = CLI_OPT_FLAG,
         .dest = &a->measure_peak},
        {.name = "--compare", .kind = CLI_OPT_TEXT, .dest = &a->compare},
        {.name = "--hint", .kind = CLI_OPT_HINTS, .dest = &a->hints},
        {.name = "--format", .kind = CLI_OPT_CHOICE, .dest = &a->format,
         .choices = formats, .bad = "unknown format '%s' (text, json, csv, svg)"},
        {.short_name = "-o", .kind = CLI_OPT_TEXT, .dest = &a->out_path},
        CLI_READING_OPTIONS(&a->reading),
    };
    const cli_syntax syn = {.cmd = "pareto", .usage = usage, .opts = opts,
                            .nopts = CLI_NOPTS(opts), .ctx = ctx,
                            .max_args = 1, .too_many = "more than one GRAPH"};
    cli_args args;
    int rc = cli_parse_options(&syn, argc, argv, 1, &args);
    if (rc != CLI_PARSED)
        return rc;
    if (!args.nargs)
        return cli_usage_error("pareto", "no GRAPH given");
    a->file = args.args[0];
    if (a->points > 1000)
        return cli_usage_error("pareto",
                               "--points needs a count from 0 to 1000, not "
                               "'%ld'",
                               a->points);
    if (a->replay_random && a->policy != SC_PARTITION_EXACT)
        return cli_usage_error("pareto", "--replay-random: random ops are "
                                         "replayed under the exact policy "
                                         "only");
    if (a->no_peak && a->measure_peak)
        return cli_usage_error("pareto", "--no-peak and --measure-peak "
                                         "contradict each other");
    return CLI_PARSED;
}

static void json_compare(buf *b, const sc_graph *g, const cmp_list *cl,
                         bool torch)
{
    size_t i;
    bool first = true;
    bprintf(b, ",\n  \"%s\": [", torch ? "torch_budgets" : "compare");
    for (i = 0; i < cl->n; i++) {
        const cmp_item *it = &cl->items[i];
        const sc_frontier_point *c = &it->pt;
        if ((it->ratio >= 0) != torch)
            continue;
        bprintf(b, "%s\n    {", first ? "" : ",");
        first = false;
        if (torch)
            bprintf(b, "\"ratio\": %.2f", it->ratio);
        else {
            bprintf(b, "\"label\": ");
            json_string(b, it->label);
        }
        if (it->error[0]) {
            bprintf(b, ", \"error\": ");
            json_string(b, it->error);
            bprintf(b, "}");
            continue;
        }
        bprintf(b, ", \"valid\": %s", c->valid ? "true" : "false");
        if (!c->valid) {
            bprintf(b, ", \"invalid_node\": ");
            json_string(b, sc_graph_node_name(g, c->invalid_node));
        }
        bprintf(b, ", \"saved_bytes\": %" PRIu64
                   ", \"recompute_cost\": %" PRIu64
                   ", \"recompute_flops\": %" PRIu64
                   ", \"lower_bound\": %" PRIu64 ", \"on_frontier\": %s"
                   ", \"saved_tensors\": %zu, \"saved_symints\": %zu",
                c->saved_bytes, c->recompute_cost,
                c->recompute_flops, c->lower_bound,
                c->valid && c->optimal ? "true" : "false", c->saved_tensors,
                c->saved_symints);
        json_peak(b, &it->pk);
        bprintf(b, "}");
    }
    bprintf(b, "%s]", first ? "" : "\n  ");
}

static void csv_label(buf *b, const char *prefix, const char *s)
{
    bprintf(b, "\"%s", prefix);
    for (; *s; s++)
        bprintf(b, *s == '"' ? "\"\"" : "%c", *s);
    bprintf(b, "\"");
}

static void csv_peak(buf *b, const pareto_args *a, const peak *pk, bool flag)
{
    if (a->no_peak)
        return;
    if (pk->have)
        bprintf(b, ",%" PRIu64, pk->bytes);
    else
        bprintf(b, ",");
    if (a->measure_peak) {
        if (pk->have_measured)
            bprintf(b, ",%" PRIu64, pk->measured);
        else
            bprintf(b, ",");
    }
    bprintf(b, ",%d", flag);
}

static void text_peak(buf *b, const pareto_args *a, const peak *pk)
{
    if (a->no_peak || !pk->have)
        return;
    bprintf(b, "; peak %" PRIu64, pk->bytes);
    if (pk->have_measured)
        bprintf(b, ", measured %" PRIu64, pk->measured);
}

static int report(const pareto_args *a, const sc_graph *g,
                  const sc_frontier *f, cmp_list *cl, buf *b)
{
    size_t n = sc_frontier_point_count(f), i, nb;
    sc_frontier_point pt, d;
    peak *pk = calloc(n ? n : 1, sizeof *pk);
    bool *flag = calloc(n ? n : 1, sizeof *flag);
    bool svg = strcmp(a->format, "svg") == 0;
    const char *pol = sc_partition_policy_name(sc_frontier_policy(f));
    int rc = 0;

    if (!pk || !flag) {
        free(pk);
        free(flag);
        cli_errorf("out of memory");
        return CLI_EXIT_INPUT;
    }
    for (i = 0; i < n && !a->no_peak && !svg; i++)
        if ((rc = cli_decision_peak(f, g, (long)i, NULL, 0,
                                    a->measure_peak, &pk[i])) != 0)
            goto done;
    for (i = 0; i < cl->n && !a->no_peak && !svg; i++) {
        cmp_item *it = &cl->items[i];
        if (!it->error[0] && it->pt.valid &&
            (rc = cli_decision_peak(f, g, -1, it->ids, it->nids,
                                    a->measure_peak, &it->pk)) != 0)
            goto done;
    }
    /* peak memory should grow with the saved bytes: flag a point whose
     * peak (measured where measured) is above a later (more saving)
     * point's */
    for (i = 0; i + 1 < n && !a->no_peak; i++) {
        size_t j;
        uint64_t vi, vj;
        for (j = i + 1; j < n; j++)
            if (peak_figure(&pk[i], &vi) && peak_figure(&pk[j], &vj) &&
                vi > vj)
                flag[i] = true;
    }
    sc_frontier_default_cut(f, &d);
    nb = sc_frontier_breakpoint_count(f);
    if (strcmp(a->format, "json") == 0) {
        bprintf(b, "{\n  \"graph\": ");
        json_string(b, a->file);
        bprintf(b, ",\n  \"policy\": \"%s\",\n  \"keep_bans\": %s,\n", pol,
                a->keep_bans ? "true" : "false");
        bprintf(b, "  \"replay_random\": %s,\n",
                a->replay_random ? "true" : "false");
        bprintf(b, "  \"maxflows\": %zu,\n  \"breakpoints\": [",
                sc_frontier_maxflow_count(f));
        for (i = 0; i < nb; i++) {
            uint64_t num, den;
            sc_frontier_breakpoint(f, i, &num, &den);
            bprintf(b, "%s{\"bytes_per_cost\": \"%" PRIu64 "/%" PRIu64 "\"}",
                    i ? ", " : "", num, den);
        }
        bprintf(b, "],\n  \"default_cut\": ");
        json_point(b, &d, -1, NULL, false);
        sc_frontier_point_get(f, 0, &pt);
        bprintf(b, ",\n  \"least_memory\": ");
        json_point(b, &pt, (long)sc_frontier_point_replayed_random(f, 0),
                   &pk[0], flag[0]);
        sc_frontier_point_get(f, n - 1, &pt);
        bprintf(b, ",\n  \"least_recompute\": ");
        json_point(b, &pt,
                   (long)sc_frontier_point_replayed_random(f, n - 1),
                   &pk[n - 1], flag[n - 1]);
        bprintf(b, ",\n  \"points\": [\n");
        for (i = 0; i < n; i++) {
            sc_frontier_point_get(f, i, &pt);
            bprintf(b, "    ");
            json_point(b, &pt, (long)sc_frontier_point_replayed_random(f, i),
                       &pk[i], flag[i]);
            bprintf(b, "%s\n", i + 1 < n ? "," : "");
        }
        bprintf(b, "  ]");
        if (a->compare)
            json_compare(b, g, cl, false);
        if (sc_frontier_policy(f) == SC_PARTITION_PYTORCH_2_13)
            json_compare(b, g, cl, true);
        bprintf(b, "\n}\n");
    } else if (svg) {
        svg_plot(b, f, a->file, cl);
    } else if (strcmp(a->format, "csv") == 0) {
        bprintf(b, "saved_bytes,recompute_cost,recompute_flops,hull_vertex,"
                   "optimal,lower_bound,budget,saved_tensors,saved_symints,"
                   "replayed_random%s%s%s,decision\n",
                a->no_peak ? "" : ",peak_bytes",
                a->measure_peak ? ",measured_peak_bytes" : "",
                a->no_peak ? "" : ",peak_not_monotone");
        for (i = 0; i < n; i++) {
            sc_frontier_point_get(f, i, &pt);
            bprintf(b,
                    "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d,%d,%" PRIu64
                    ",%" PRIu64 ",%zu,%zu,%zu",
                    pt.saved_bytes, pt.recompute_cost, pt.recompute_flops,
                    pt.hull_vertex, pt.optimal, pt.lower_bound, pt.budget,
                    pt.saved_tensors, pt.saved_symints,
                    sc_frontier_point_replayed_random(f, i));
            csv_peak(b, a, &pk[i], flag[i]);
            bprintf(b, ",frontier\n");
        }
        /* the compared decisions and torch's budgets that are valid:
         * optimal says whether they are on the frontier */
        for (i = 0; i < cl->n; i++) {
            const cmp_item *it = &cl->items[i];
            const sc_frontier_point *c = &it->pt;
            char r[32];
            if (it->error[0] || !c->valid)
                continue;
            bprintf(b,
                    "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",0,%d,%" PRIu64
                    ",%" PRIu64 ",%zu,%zu,",
                    c->saved_bytes, c->recompute_cost, c->recompute_flops,
                    c->optimal, c->lower_bound, c->budget, c->saved_tensors,
                    c->saved_symints);
            csv_peak(b, a, &it->pk, false);
            bprintf(b, ",");
            if (it->ratio >= 0) {
                snprintf(r, sizeof r, "%.2f", it->ratio);
                csv_label(b, "torch-2.13:", r);
            } else
                csv_label(b, "compare:", it->label);
            bprintf(b, "\n");
        }
    } else {
        bprintf(b, "frontier of %s (%s%s%s): %zu points, %zu hull "
                   "breakpoints, %zu max-flows\n",
                a->file, pol, a->keep_bans ? ", heuristic bans kept" : "",
                a->replay_random ? ", random ops replayed" : "", n, nb,
                sc_frontier_maxflow_count(f));
        bprintf(b, "default cut: %" PRIu64 " bytes, recompute cost %" PRIu64
                   "%s\n",
                d.saved_bytes, d.recompute_cost,
                d.optimal ? " (on the frontier)" : "");
        bprintf(b, "%14s %16s %16s %5s %8s %16s %6s%s%s\n", "saved_bytes",
                "recompute_cost", "recompute_flops", "hull", "optimal",
                "lower_bound", "saved", a->no_peak ? "" : "       peak_bytes",
                a->measure_peak ? "    measured_peak" : "");
        for (i = 0; i < n; i++) {
            sc_frontier_point_get(f, i, &pt);
            bprintf(b,
                    "%14" PRIu64 " %16" PRIu64 " %16" PRIu64 " %5s %8s %16" PRIu64
                    " %6zu",
                    pt.saved_bytes, pt.recompute_cost, pt.recompute_flops,
                    pt.hull_vertex ? "yes" : "no", pt.optimal ? "yes" : "no",
                    pt.lower_bound, pt.saved_tensors + pt.saved_symints);
            if (!a->no_peak)
                bprintf(b, " %16" PRIu64, pk[i].bytes);
            if (a->measure_peak)
                bprintf(b, " %16" PRIu64, pk[i].measured);
            if (flag[i])
                bprintf(b, " (peak not monotone)");
            if (sc_frontier_point_replayed_random(f, i))
                bprintf(b, " (replays %zu random op%s)",
                        sc_frontier_point_replayed_random(f, i),
                        sc_frontier_point_replayed_random(f, i) == 1 ? ""
                                                                    : "s");
            bprintf(b, "\n");
        }
        for (i = 0; i < cl->n; i++) {
            const cmp_item *it = &cl->items[i];
            const sc_frontier_point *c = &it->pt;
            const char *what = it->ratio >= 0 ? "decision of" : "compared";
            if (it->error[0])
                bprintf(b, "%s %s: failed: %s\n", what, it->label, it->error);
            else if (!c->valid)
                bprintf(b, "%s %s: not valid: it recomputes %s\n", what,
                        it->label, sc_graph_node_name(g, c->invalid_node));
            else {
                bprintf(b,
                        "%s %s: %" PRIu64 " bytes, recompute cost %" PRIu64
                        "; the frontier's least cost at its bytes %" PRIu64
                        "%s",
                        what, it->label, c->saved_bytes, c->recompute_cost,
                        c->lower_bound,
                        c->optimal ? " (on the frontier)" : " or more");
                text_peak(b, a, &it->pk);
                bprintf(b, "\n");
            }
        }
    }
    if (b->nomem) {
        cli_errorf("out of memory");
        rc = CLI_EXIT_INPUT;
    }
done:
    free(pk);
    free(flag);
    return rc;
}

int cli_cmd_pareto(int argc, char **argv)
{
    pareto_args a;
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL, *fwd = NULL;
    sc_frontier *f = NULL;
    sc_frontier_options fo;
    sc_partition_options po;
    cli_load load;
    sc_error err;
    buf b = {0};
    cmp_list cl = {NULL, 0};
    int rc;

    if (!ctx) {
        cli_errorf("out of memory");
        return CLI_EXIT_INPUT;
    }
    memset(&a, 0, sizeof a);
    a.format = "text";
    a.params.count = -1;
    a.nfwd = -1;
    a.policy = SC_PARTITION_EXACT;
    if ((rc = parse_args(ctx, argc, argv, &a)) != CLI_PARSED)
        goto done;
    cli_load_init(&load, "pareto");
    load.hints = &a.hints;
    if ((rc = cli_load_graph_reading(ctx, a.file, &load, &a.reading, &g,
                                     &fwd)) != 0)
        goto done;
    if ((rc = cli_params_check("pareto", &a.params,
                               sc_graph_primal_count(g))) != 0)
        goto done;
    rc = CLI_EXIT_INPUT;
    sc_partition_options_init(&po);
    po.policy = a.policy;
    po.num_fwd_outputs = a.nfwd;
    cli_params_apply(&a.params, &po);
    sc_frontier_options_init(&fo);
    fo.points = (size_t)a.points;
    fo.keep_bans = a.keep_bans;
    fo.replay_random = a.replay_random;
    fo.milp_seconds = a.time_limit;
    if (sc_frontier_compute(g, &po, &fo, &f, &err) != SC_OK) {
        cli_report(&err);
        goto done;
    }
    if (a.compare && (rc = load_compare(a.compare, g, f, &cl)) != 0)
        goto done;
    if (a.policy == SC_PARTITION_PYTORCH_2_13 &&
        (rc = load_torch(f, &cl)) != 0)
        goto done;
    if ((rc = report(&a, g, f, &cl, &b)) != 0)
        goto done;
    rc = CLI_EXIT_INPUT;
    if (cli_write_file(a.out_path, b.s ? b.s : "", b.n, &err) != SC_OK) {
        cli_report(&err);
        goto done;
    }
    rc = CLI_EXIT_OK;
done:
    free(b.s);
    cmp_list_free(&cl);
    sc_frontier_free(f);
    cli_hints_free(&a.hints);
    cli_reading_free(&a.reading);
    sc_graph_free(g);
    sc_graph_free(fwd);
    sc_ctx_free(ctx);
    return rc;
}

/* symcut partition — split a joint graph into a forward and a backward
 * graph with the min-cut partitioner and report the decision.
 *
 *   symcut partition GRAPH [--forward] [--policy P] [--hint s0=8,...]
 *                    [--params N] [--num-fwd-outputs N] [--tag NODE=TAG] [--no-cse]
 *                    [--rule-off NAME] [--aggressive-recomputation]
 *                    [--max-dist-from-bw N] [--long-chain-limit N]
 *                    [--unbacked-fallback N] [--memory-budget B]
 *                    [--saved NAMES|FILE [--no-peak | --measure-peak]]
 *                    [--replay-random]
 *                    [--fw FILE] [--bw FILE]
 *                    [--format text|json|dot|html]
 *                    [--around NODE [--depth K]] [--no-timings] [-o FILE]
 *
 * Every output is produced before any is written, and each is written
 * atomically: nothing is written when the run fails. */
#include <config.h>

#include <errno.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>
#include <symcut/partition.h>

#include "cli/progress.h"
#include "cli/cli.h"
#include "cli/decision-peak.h"
#include "cli/html.h"
#include "cli/load.h"

static void usage(FILE *out)
{
    fputs("Usage: symcut partition GRAPH [--forward] [--policy P]\n"
          "                        [--hint s0=8,...] [--params N]\n"
          "                        [--num-fwd-outputs N]\n"
          "                        [--tag NODE=TAG] [--no-cse]\n"
          "                        [--rule-off NAME] [--aggressive-recomputation]\n"
          "                        [--max-dist-from-bw N] [--long-chain-limit N]\n"
          "                        [--unbacked-fallback N]\n"
          "                        [--memory-budget B] [--replay-random]\n"
          "                        [--saved NAMES|FILE\n"
          "                         [--no-peak | --measure-peak]]\n"
          "                        [--fw FILE] [--bw FILE]\n"
          "                        [--format text|json|dot|html]\n"
          "                        [--around NODE [--depth K]] [--no-timings]\n"
          "                        [-o FILE]\n"
          "\n"
          "Partition a joint forward/backward graph (PyTorch's text; '-' is\n"
          "standard input) with the min-cut partitioner: choose what the\n"
          "forward saves and what the backward recomputes, and report it.\n"
          "\n"
          "Options:\n"
          "  --forward             GRAPH is a forward graph: build its joint\n"
          "                        graph first (as 'symcut joint' does)\n"
          "  --policy P            pytorch-2.13 (torch 2.13.0's partitioner,\n"
          "                        exactly; 'pytorch', the default, is the\n"
          "                        newest release reproduced), pytorch-1.13\n"
          "                        (PyTorch 1.13's functorch partitioner,\n"
          "                        exactly), exact (2.13's rules on the op\n"
          "                        table's classes, weights in bytes)\n"
          "  --hint s0=8,s1=64     hints of symbols (override '# symcut: hint'\n"
          "                        lines); repeatable\n"
          "  --params N|I,J,...    the first N primals, or primals number I,\n"
          "                        J, ... (from 0; '3,' is primal 3 alone),\n"
          "                        are parameters (free to save); default\n"
          "                        '# symcut: static_inputs I,J,...', then\n"
          "                        '# symcut: params N', else none\n"
          "  --num-fwd-outputs N   the number of forward outputs\n"
          "  --tag NODE=TAG        tag a node must_save, must_recompute or\n"
          "                        prefer_recompute; repeatable\n"
          "  --no-cse              skip common-subexpression elimination\n"
          "  --memory-budget B     save at most B: bytes (1234567, 40MB,\n"
          "                        1.5GiB) or PyTorch's ratio (0.5: a '.' and\n"
          "                        no unit; 0 the least memory, 1 the default\n"
          "                        cut).  exact: the least recompute cost\n"
          "                        within B; pytorch-2.13: torch 2.13's\n"
          "                        memory-budget solver\n"
          "  --replay-random       exact with --memory-budget, and --saved:\n"
          "                        random ops may be recomputed (symcut's\n"
          "                        interpreter replays their draws exactly;\n"
          "                        torch would re-draw them)\n"
          "  --saved NAMES|FILE    score a saved set given from outside (names,\n"
          "                        comma-separated, or a FILE of names):\n"
          "                        validity, saved bytes, recompute cost, and\n"
          "                        the exact frontier's least cost at its\n"
          "                        bytes, and (valid) its peak memory of\n"
          "                        forward then backward, predicted at the\n"
          "                        hints (as 'symcut pareto')\n"
          "  --no-peak             --saved: leave the peak out\n"
          "  --measure-peak        --saved: also measure it (the interpreter\n"
          "                        runs both graphs on generated inputs)\n",
          out);
    cli_partition_rules_help(out);
    fputs("  --fw FILE, --bw FILE  write the forward / backward graph\n"
          "  --format F            the report: text (default), json (fields in\n"
          "                        doc/partition.md), dot (Graphviz), html (one\n"
          "                        self-contained page: decision, reasons, the\n"
          "                        graph as SVG when Graphviz's dot is installed)\n"
          "  --around NODE         dot, html: draw only the nodes near NODE\n"
          "  --depth K             ... at most K edges away (default 2)\n"
          "  --no-timings          leave the timings out of the report\n"
          "  -o FILE               write the report to FILE (atomically)\n"
          "\n"
          "Exit status: 0 success; 1 bad command line; 2 the graph could not\n"
          "be read or partitioned, or an error writing (standard output\n"
          "included).\n",
          out);
}

/* The --tag options: node names (malloc'ed) and their tags. */
typedef struct tag_list {
    char **nodes;
    sc_partition_tag *tags;
    size_t n, cap;
} tag_list;

static void tag_list_free(tag_list *t)
{
    size_t k;
    for (k = 0; k < t->n; k++)
        free(t->nodes[k]);
    free(t->nodes);
    free(t->tags);
}

/* --tag NODE=TAG, appended to the tag_list o->dest. */
static int tag_option(const cli_syntax *syn, const cli_opt *o,
                      const char *value)
{
    tag_list *t = o->dest;
    const char *eq = strchr(value, '=');
    sc_partition_tag tag = SC_PARTITION_TAG_NONE;
    int j;

    for (j = 1; eq && j < SC_PARTITION_TAG_COUNT_; j++)
        if (strcmp(eq + 1, sc_partition_tag_name((sc_partition_tag)j)) == 0)
            tag = (sc_partition_tag)j;
    if (!eq || eq == value || tag == SC_PARTITION_TAG_NONE)
        return cli_usage_error(syn->cmd, "--tag needs NODE=must_save, "
                                         "NODE=must_recompute or "
                                         "NODE=prefer_recompute");
    if (t->n == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 8;
        char **nodes = realloc(t->nodes, nc * sizeof *nodes);
        sc_partition_tag *tags;
        if (nodes)
            t->nodes = nodes;
        tags = nodes ? realloc(t->tags, nc * sizeof *tags) : NULL;
        if (!tags) {
            cli_errorf("out of memory");
            return CLI_EXIT_INPUT;
        }
        t->tags = tags;
        t->cap = nc;
    }
    t->nodes[t->n] = strndup(value, (size_t)(eq - value));
    if (!t->nodes[t->n]) {
        cli_errorf("out of memory");
        return CLI_EXIT_INPUT;
    }
    t->tags[t->n++] = tag;
    return 0;
}

/* --memory-budget B: bytes or a ratio (doc/partition.md, "Memory
 * budget").  B is DIGITS[.DIGITS][UNIT], no sign, no exponent.  With a
 * unit (B; kB, MB, GB, TB: powers of 1000; KiB, MiB, GiB, TiB: powers of
 * 1024; the letters in any case, K for k) it is bytes and must come to a
 * whole number of bytes below 2^63.  Without a unit it is a ratio when it
 * has a '.' or is 0 or 1 (it must then lie in [0, 1]), else bytes. */
static int budget_option(const cli_syntax *syn, const cli_opt *o,
                         const char *value)
{
    static const struct {
        const char *name;
        uint64_t scale;
    } units[] = {{"b", 1},
                 {"kb", 1000},
                 {"mb", 1000000},
                 {"gb", 1000000000},
                 {"tb", 1000000000000},
                 {"kib", 1ull << 10},
                 {"mib", 1ull << 20},
                 {"gib", 1ull << 30},
                 {"tib", 1ull << 40}};
    sc_partition_options *opts = o->dest;
    const char *s = value, *unit;
    unsigned __int128 whole = 0, frac = 0, fden = 1, bytes;
    uint64_t scale = 0;
    size_t k, nd = 0, nf = 0;
    bool dot = false;
    char low[8];

    for (; *s >= '0' && *s <= '9'; s++, nd++)
        if ((whole = whole * 10 + (unsigned)(*s - '0')) > (1ull << 63))
            goto huge;
    if (*s == '.') {
        dot = true;
        for (s++; *s >= '0' && *s <= '9'; s++, nf++)
            if (nf < 18) {
                frac = frac * 10 + (unsigned)(*s - '0');
                fden *= 10;
            } else if (*s != '0') {
                goto bad;
            }
    }
    if (nd + nf == 0)
        goto bad;
    unit = s;
    if (*unit) {
        size_t len = strlen(unit);
        if (len >= sizeof low)
            goto bad;
        for (k = 0; k <= len; k++)
            low[k] = (char)(unit[k] >= 'A' && unit[k] <= 'Z'
                                ? unit[k] - 'A' + 'a'
                                : unit[k]);
        for (k = 0; k < sizeof units / sizeof units[0]; k++)
            if (strcmp(low, units[k].name) == 0)
                scale = units[k].scale;
        if (!scale)
            goto bad;
    } else if (dot || (whole <= 1 && nf == 0)) {
        double r = strtod(value, NULL);
        if (whole > 1 || (whole == 1 && frac != 0))
            return cli_usage_error(syn->cmd,
                                   "--memory-budget %s: a ratio (a number "
                                   "with a '.' and no unit) must be in [0, "
                                   "1]; bytes take a unit (B, MB, GiB, ...)",
                                   value);
        opts->memory_budget_kind = SC_PARTITION_BUDGET_RATIO;
        opts->memory_budget_ratio = r;
        opts->memory_budget_bytes = 0;
        return 0;
    } else {
        scale = 1;
    }
    bytes = whole * scale;
    if (bytes > (1ull << 63) || frac * scale / fden > (1ull << 63))
        goto huge;
    if ((frac * scale) % fden != 0)
        return cli_usage_error(syn->cmd,
                               "--memory-budget %s: not a whole number of "
                               "bytes",
                               value);
    bytes += frac * scale / fden;
    if (bytes >= (1ull << 63))
        goto huge;
    opts->memory_budget_kind = SC_PARTITION_BUDGET_BYTES;
    opts->memory_budget_bytes = (uint64_t)bytes;
    opts->memory_budget_ratio = 0;
    return 0;
huge:
    return cli_usage_error(syn->cmd,
                           "--memory-budget %s: more than 2^63 bytes", value);
bad:
    return cli_usage_error(syn->cmd,
                           "--memory-budget needs bytes (1234567, 40MB, "
                           "1.5GiB; units B kB MB GB TB KiB MiB GiB TiB) or "
                           "a ratio in [0, 1] (0.5), not '%s'",
                           value);
}

typedef struct partition_args {
    const char *file, *out_path, *fw_path, *bw_path, *format, *saved;
    const char *around;
    long nfwd, depth;
    cli_params params;
    bool forward, replay_random, no_peak, measure_peak;
    unsigned report_flags;
    cli_hints hints;
    tag_list tags;
    sc_partition_options opts;
    cli_rules rules;
    cli_reading reading;
} partition_args;

static int parse_args(sc_ctx *ctx, int argc, char **argv, partition_args *a)
{
    static const char *const formats[] = {"text", "json", "dot", "html",
                                          NULL};
    const cli_opt opts[] = {
        CLI_PARTITION_RULE_OPTIONS(&a->rules),
        {.name = "--forward", .kind = CLI_OPT_FLAG, .dest = &a->forward},
        {.name = "--no-cse", .kind = CLI_OPT_BITS, .dest = &a->opts.flags,
         .bits = SC_PARTITION_NO_CSE},
        {.name = "--no-timings", .kind = CLI_OPT_BITS,
         .dest = &a->report_flags, .bits = SC_PARTITION_REPORT_NO_TIMINGS},
        {.name = "--policy", .kind = CLI_OPT_CALL, .dest = &a->opts.policy,
         .fn = cli_policy_option,
         .bad = "unknown policy '%s' (pytorch-2.13, pytorch (the newest), "
                "pytorch-1.13, exact)"},
        {.name = "--hint", .kind = CLI_OPT_HINTS, .dest = &a->hints},
        {.name = "--params", .kind = CLI_OPT_CALL, .dest = &a->params,
         .fn = cli_params_option},
        {.name = "--num-fwd-outputs", .kind = CLI_OPT_COUNT, .dest = &a->nfwd,
         .bad = "--num-fwd-outputs needs a non-negative integer"},
        {.name = "--fw", .kind = CLI_OPT_TEXT, .dest = &a->fw_path},
        {.name = "--bw", .kind = CLI_OPT_TEXT, .dest = &a->bw_path},
        {.name = "--format", .kind = CLI_OPT_CHOICE, .dest = &a->format,
         .choices = formats,
         .bad = "unknown format '%s' (text, json, dot, html)"},
        {.name = "--around", .kind = CLI_OPT_TEXT, .dest = &a->around},
        {.name = "--depth", .kind = CLI_OPT_COUNT, .dest = &a->depth,
         .bad = "--depth needs a non-negative integer"},
        {.name = "--tag", .kind = CLI_OPT_CALL, .dest = &a->tags,
         .fn = tag_option},
        {.name = "--memory-budget", .kind = CLI_OPT_CALL, .dest = &a->opts,
         .fn = budget_option},
        {.name = "--saved", .kind = CLI_OPT_TEXT, .dest = &a->saved},
        {.name = "--replay-random", .kind = CLI_OPT_FLAG,
         .dest = &a->replay_random},
        {.name = "--no-peak", .kind = CLI_OPT_FLAG, .dest = &a->no_peak},
        {.name = "--measure-peak", .kind = CLI_OPT_FLAG,
         .dest = &a->measure_peak},
        {.short_name = "-o", .kind = CLI_OPT_TEXT, .dest = &a->out_path},
        CLI_READING_OPTIONS(&a->reading),
    };
    const cli_syntax syn = {.cmd = "partition", .usage = usage, .opts = opts,
                            .nopts = CLI_NOPTS(opts), .ctx = ctx,
                            .max_args = 1, .too_many = "more than one GRAPH"};
    cli_args args;
    int rc = cli_parse_options(&syn, argc, argv, 1, &args);

    if (rc != CLI_PARSED)
        return rc;
    if (!args.nargs)
        return cli_usage_error("partition", "no GRAPH given");
    a->file = args.args[0];
    if (cli_check_partition_rules("partition", &a->rules) != 0)
        return CLI_EXIT_USAGE;
    if (a->opts.memory_budget_kind != SC_PARTITION_BUDGET_NONE &&
        a->opts.policy == SC_PARTITION_PYTORCH_1_13)
        return cli_usage_error("partition", "--memory-budget: pytorch-1.13 "
                                            "has no memory budget (use "
                                            "--policy exact or "
                                            "pytorch-2.13)");
    if (a->saved && (a->fw_path || a->bw_path ||
                     a->opts.memory_budget_kind != SC_PARTITION_BUDGET_NONE ||
                     strcmp(a->format, "dot") == 0 ||
                     strcmp(a->format, "html") == 0))
        return cli_usage_error("partition", "--saved scores a decision: not "
                                            "with --fw, --bw, "
                                            "--memory-budget or --format "
                                            "dot or html");
    if ((a->no_peak || a->measure_peak) && !a->saved)
        return cli_usage_error("partition", "--no-peak and --measure-peak "
                                            "are for --saved");
    if (a->no_peak && a->measure_peak)
        return cli_usage_error("partition", "--no-peak and --measure-peak "
                                            "contradict each other");
    /* as 'symcut pareto': under exact only (--saved scores on the exact
     * frontier whatever the policy) */
    if (a->replay_random && !a->saved &&
        (a->opts.policy != SC_PARTITION_EXACT ||
         a->opts.memory_budget_kind == SC_PARTITION_BUDGET_NONE))
        return cli_usage_error("partition", "--replay-random: random ops "
                                            "are replayed under the exact "
                                            "policy with --memory-budget, "
                                            "or in --saved's scoring, only");
    a->opts.memory_budget_replay_random = a->replay_random;
    if (a->around && strcmp(a->format, "dot") != 0 &&
        strcmp(a->format, "html") != 0)
        return cli_usage_error("partition", "--around draws part of the "
                                            "graph: with --format dot or "
                                            "html");
    if (a->depth >= 0 && !a->around)
        return cli_usage_error("partition", "--depth is the reach of "
                                            "--around NODE: give --around "
                                            "too");
    if (a->forward && a->nfwd >= 0)
        return cli_usage_error("partition", "--num-fwd-outputs is for a "
                                            "joint graph, not with "
                                            "--forward");
    return CLI_PARSED;
}

/* The graphs asked for and the report (produced first), written all or
 * nothing: the report's file, when it fails, takes the graphs' files with
 * it.  0 or the exit status after printing the error. */
static int write_outputs(const partition_args *a, const sc_partition *part,
                         const char *report, size_t rlen)
{
    char *graphs[2] = {NULL, NULL};
    const char *paths[3], *data[3];
    size_t lens[3], nf = 0;
    sc_error err;
    sc_status status = SC_OK;

    if (a->fw_path) {
        SC_CHECK(sc_graph_write_text(sc_partition_forward(part), NULL,
                                     &graphs[0], &lens[nf], &err));
        paths[nf] = a->fw_path;
        data[nf++] = graphs[0];
    }
    if (a->bw_path) {
        SC_CHECK(sc_graph_write_text(sc_partition_backward(part), NULL,
                                     &graphs[1], &lens[nf], &err));
        paths[nf] = a->bw_path;
        data[nf++] = graphs[1];
    }
    paths[nf] = a->out_path;
    data[nf] = report;
    lens[nf++] = rlen;
    SC_CHECK(cli_write_files(nf, paths, data, lens, &err));
fail:
    free(graphs[0]);
    free(graphs[1]);
    if (status != SC_OK)
        cli_report(&err);
    return status == SC_OK ? CLI_EXIT_OK : CLI_EXIT_INPUT;
}

/* The report in the format asked for, with what the command knows
 * beside the result: the input, the budget's outcome, the picture's view. */
static sc_status write_report(const partition_args *a, const sc_graph *g,
                              const sc_partition *part,
                              const sc_partition_budget_outcome *budget,
                              char **report, size_t *rlen, sc_error *err)
{
    sc_partition_report_info info;

    sc_partition_report_info_init(&info);
    info.input = a->file;
    info.forward = a->forward;
    info.budget = budget->kind != SC_PARTITION_BUDGET_NONE ? budget : NULL;
    if (a->around) {
        info.around = sc_graph_find(g, a->around);
        if (a->depth >= 0)
            info.around_depth = (size_t)a->depth;
    }
    if (strcmp(a->format, "html") == 0) {
        const char *dot = getenv("SYMCUT_DOT");
        cli_html_page page = {.joint = g, .opts = &a->opts, .part = part,
                              .info = &info,
                              .report_flags = a->report_flags,
                              .dot = dot ? dot : "dot"};
        return cli_partition_html(&page, report, rlen, err);
    }
    return sc_partition_write_report(
        part, &info,
        strcmp(a->format, "json") == 0  ? SC_PARTITION_REPORT_JSON
        : strcmp(a->format, "dot") == 0 ? SC_PARTITION_REPORT_DOT
                                        : SC_PARTITION_REPORT_TEXT,
        a->report_flags, report, rlen, err);
}

/* The values of options that must name something of the graph g: 0, or
 * the usage exit status after naming the option and the value.  With
 * --num-fwd-outputs, a file (not standard input) is first read with none
 * to count its outputs, so that a count the graph cannot have is a
 * command-line error and not a reader's. */
static int check_nfwd(sc_ctx *ctx, const partition_args *a)
{
    sc_graph_read_options ro;
    sc_graph *g = NULL;
    sc_error err;
    size_t n;

    if (a->nfwd < 0 || strcmp(a->file, "-") == 0)
        return 0;
    sc_graph_read_options_init(&ro);
    ro.num_fwd_outputs = 0;
    if (sc_graph_read_file(ctx, a->file, &ro, &g, &err) != SC_OK)
        return 0; /* the real read reports it */
    n = sc_graph_output_count(g);
    sc_graph_free(g);
    if ((size_t)a->nfwd <= n)
        return 0;
    return cli_usage_error("partition",
                           "--num-fwd-outputs %ld: the graph returns %zu "
                           "values (the forward outputs are the first N)",
                           a->nfwd, n);
}

static int check_graph_options(const sc_graph *g, const partition_args *a)
{
    size_t k, np = sc_graph_primal_count(g);

    if (a->around && sc_graph_find(g, a->around) == SC_NODE_NONE)
        return cli_usage_error("partition",
                               "--around %s: the graph has no node '%s'",
                               a->around, a->around);
    for (k = 0; k < a->tags.n; k++)
        if (sc_graph_find(g, a->tags.nodes[k]) == SC_NODE_NONE)
            return cli_usage_error("partition",
                                   "--tag %s=%s: the graph has no node '%s'",
                                   a->tags.nodes[k],
                                   sc_partition_tag_name(a->tags.tags[k]),
                                   a->tags.nodes[k]);
    return cli_params_check("partition", &a->params, np);
}

/* --saved NAMES|FILE: a file that exists is read (names separated by
 * blanks, commas or new lines), else the value is the comma-separated
 * names.  The set is scored against the exact frontier (random ops
 * replayed with --replay-random), and a valid set's peak memory is
 * predicted (and measured) as 'symcut pareto' does. */
static int score_saved(const partition_args *a, const sc_graph *g)
{
    char *text = NULL, *s, *tok, *save = NULL;
    sc_node_id *ids = NULL;
    size_t n = 0, cap = 0, len;
    FILE *fp = fopen(a->saved, "r");
    sc_frontier *f = NULL;
    sc_frontier_point pt, lo;
    sc_frontier_options fo;
    sc_partition_options po = a->opts;
    cli_peak pk;
    char peak_json[160] = "", peak_text[160] = "";
    sc_error err;
    char out[2048];
    int rc = CLI_EXIT_INPUT, k;

    if (fp) {
        fclose(fp);
        if (!(text = cli_read_file(a->saved, &len, &err))) {
            cli_report(&err);
            return CLI_EXIT_INPUT;
        }
    } else if (!(text = strdup(a->saved))) {
        cli_errorf("out of memory");
        return CLI_EXIT_INPUT;
    }
    for (s = text; (tok = strtok_r(s, ", \t\r\n", &save)); s = NULL) {
        sc_node_id id = sc_graph_find(g, tok);
        if (id == SC_NODE_NONE) {
            rc = cli_usage_error("partition",
                                 "--saved: the graph has no node '%s'", tok);
            goto done;
        }
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 16;
            sc_node_id *ni = realloc(ids, nc * sizeof *ni);
            if (!ni) {
                cli_errorf("out of memory");
                goto done;
            }
            ids = ni;
            cap = nc;
        }
        ids[n++] = id;
    }
    po.policy = SC_PARTITION_EXACT;
    po.flags |= SC_PARTITION_NO_GRAPHS;
    po.memory_budget_replay_random = false;
    sc_frontier_options_init(&fo);
    fo.replay_random = a->replay_random;
    if (sc_frontier_compute(g, &po, &fo, &f, &err) != SC_OK ||
        sc_frontier_score(f, ids, n, &pt, &err) != SC_OK) {
        cli_report(&err);
        goto done;
    }
    sc_frontier_point_get(f, 0, &lo);
    memset(&pk, 0, sizeof pk);
    if (pt.valid && !a->no_peak &&
        (rc = cli_decision_peak(f, g, -1, ids, n, a->measure_peak, &pk)) !=
            0)
        goto done;
    rc = CLI_EXIT_INPUT;
    if (pk.have) {
        snprintf(peak_json, sizeof peak_json,
                 ",\n  \"peak_bytes\": %llu,\n  \"peak_exact\": %s",
                 (unsigned long long)pk.bytes, pk.exact ? "true" : "false");
        snprintf(peak_text, sizeof peak_text,
                 "peak memory (forward then backward): %llu bytes "
                 "(predicted%s)\n",
                 (unsigned long long)pk.bytes, pk.exact ? "" : ", a bound");
    }
    if (pk.have_measured) {
        size_t lj = strlen(peak_json), lt = strlen(peak_text);
        snprintf(peak_json + lj, sizeof peak_json - lj,
                 ",\n  \"measured_peak_bytes\": %llu",
                 (unsigned long long)pk.measured);
        snprintf(peak_text + lt, sizeof peak_text - lt,
                 "measured peak: %llu bytes\n",
                 (unsigned long long)pk.measured);
    }
    if (strcmp(a->format, "json") == 0)
        k = snprintf(out, sizeof out,
                     "{\n  \"saved\": %zu,\n  \"valid\": %s,\n"
                     "  \"invalid_node\": %s%s%s,\n"
                     "  \"saved_bytes\": %llu,\n  \"saved_tensors\": %zu,\n"
                     "  \"saved_symints\": %zu,\n"
                     "  \"recompute_cost\": %llu,\n"
                     "  \"recompute_flops\": %llu,\n"
                     "  \"least_bytes\": %llu,\n  \"lower_bound\": %s%llu,\n"
                     "  \"on_frontier\": %s,\n"
                     "  \"replay_random\": %s%s\n}\n",
                     n, pt.valid ? "true" : "false", pt.valid ? "" : "\"",
                     pt.valid ? "null"
                              : sc_graph_node_name(g, pt.invalid_node),
                     pt.valid ? "" : "\"",
                     (unsigned long long)pt.saved_bytes, pt.saved_tensors,
                     pt.saved_symints,
                     (unsigned long long)pt.recompute_cost,
                     (unsigned long long)pt.recompute_flops,
                     (unsigned long long)lo.saved_bytes, "",
                     (unsigned long long)pt.lower_bound,
                     pt.optimal ? "true" : "false",
                     a->replay_random ? "true" : "false", peak_json);
    else if (!pt.valid)
        k = snprintf(out, sizeof out,
                     "saved set of %zu names: not valid: the backward would "
                     "recompute %s, which may not be recomputed\n",
                     n, sc_graph_node_name(g, pt.invalid_node));
    else
        k = snprintf(out, sizeof out,
                     "saved set of %zu names: valid\n"
                     "saved bytes: %llu (%zu tensors, %zu symints)\n"
                     "recompute cost: %llu (%llu FLOPs)\n"
                     "frontier at %llu bytes: least recompute cost %llu%s\n"
                     "least bytes of any valid decision: %llu\n%s",
                     n, (unsigned long long)pt.saved_bytes, pt.saved_tensors,
                     pt.saved_symints, (unsigned long long)pt.recompute_cost,
                     (unsigned long long)pt.recompute_flops,
                     (unsigned long long)pt.saved_bytes,
                     (unsigned long long)pt.lower_bound,
                     pt.optimal ? " (this set is on the frontier)"
                                : " or more (the hull's bound)",
                     (unsigned long long)lo.saved_bytes, peak_text);
    if (k < 0 || (size_t)k >= sizeof out) {
        cli_errorf("report too long");
        goto done;
    }
    if (cli_write_file(a->out_path, out, (size_t)k, &err) != SC_OK) {
        cli_report(&err);
        goto done;
    }
    rc = CLI_EXIT_OK;
done:
    sc_frontier_free(f);
    free(ids);
    free(text);
    return rc;
}

int cli_cmd_partition(int argc, char **argv)
{
    partition_args a = {0};
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL, *fwd = NULL;
    sc_partition *part = NULL;
    sc_partition_budget_outcome budget;
    cli_load load;
    sc_error err;
    char *report = NULL;
    size_t rlen = 0;
    int rc;

    if (!ctx) {
        cli_errorf("out of memory");
        return CLI_EXIT_INPUT;
    }
    a.format = "text";
    a.nfwd = a.params.count = a.depth = -1;
    sc_partition_options_init(&a.opts);
    a.rules.opts = &a.opts;
    if ((rc = parse_args(ctx, argc, argv, &a)) != CLI_PARSED)
        goto done;
    cli_load_init(&load, "partition");
    load.num_fwd_outputs = a.nfwd;
    load.hints = &a.hints;
    load.forward = a.forward;
    if ((rc = check_nfwd(ctx, &a)) != 0 ||
        (rc = cli_load_graph_reading(ctx, a.file, &load, &a.reading, &g,
                                     &fwd)) != 0 ||
        (rc = check_graph_options(g, &a)) != 0)
        goto done;
    rc = CLI_EXIT_INPUT;
    cli_params_apply(&a.params, &a.opts);
    a.opts.ntags = a.tags.n;
    a.opts.tag_nodes = (const char *const *)a.tags.nodes;
    a.opts.tags = a.tags.tags;
    if (a.saved) {
        rc = score_saved(&a, g);
        goto done;
    }
    if (!a.fw_path && !a.bw_path)
        a.opts.flags |= SC_PARTITION_NO_GRAPHS;
    a.opts.progress = cli_progress;
    if (sc_partition_run(g, &a.opts, &part, &err) != SC_OK ||
        sc_partition_budget_explain(g, &a.opts, part, &budget, &err) !=
            SC_OK ||
        write_report(&a, g, part, &budget, &report, &rlen, &err) != SC_OK) {
        cli_report(&err);
        goto done;
    }
    rc = write_outputs(&a, part, report, rlen);
done:
    free(report);
    cli_hints_free(&a.hints);
    cli_reading_free(&a.reading);
    tag_list_free(&a.tags);
    sc_partition_free(part);
    sc_graph_free(g);
    sc_graph_free(fwd);
    sc_ctx_free(ctx);
    return rc;
}

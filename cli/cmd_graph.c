/* symcut graph — read a PyTorch graph text, summarize it, re-print it in
 * the newer print_readable style, or write it as Graphviz DOT.
 *
 *   symcut graph FILE [--print | --dot [--around NODE [--depth K]] | --cost]
 *                [--hint s0=8,...]
 *                [--num-fwd-outputs N] [--graph N|NAME] [--role R]
 *                [--strict] [--input-type NAME=ANN] [-o OUT]
 *
 * A file holding several graphs (a TORCH_LOGS or TORCH_TRACE log) without
 * --graph: the list of its graphs.
 * Output goes to OUT atomically (nothing is written when reading fails),
 * or to standard output. */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>
#include <symcut/guards.h>

#include "cli/load.h"

static void usage(FILE *out)
{
    fputs("Usage: symcut graph FILE [--print | --dot [--around NODE [--depth K]]\n"
          "                    | --cost] [--hint s0=8,...]\n"
          "                    [--num-fwd-outputs N] [--graph N|NAME] [--role R]\n"
          "                    [--strict] [--input-type NAME=ANN] [-o OUT]\n"
          "\n"
          "Read a graph as PyTorch prints it (print_readable, TORCH_LOGS=\n"
          "aot_graphs,aot_joint_graph, a TORCH_TRACE log; '-' is standard\n"
          "input) and print a summary: its role, nodes by op and by recompute\n"
          "class, inputs, outputs, symbols with their hints, guards, unknown\n"
          "ops.  A file holding several graphs: without --graph, the list of\n"
          "them (number, name, role, line, class).\n"
          "\n"
          "Options:\n"
          "  --print               re-print the graph in the newer style\n"
          "                        (quoted annotations with strides and device)\n"
          "  --dot                 write the graph as Graphviz DOT\n"
          "  --around NODE         --dot: draw only the nodes near NODE\n"
          "  --depth K             ... at most K edges away, either way\n"
          "                        (default 2)\n"
          "  --cost                the recompute cost of every call node at\n"
          "                        the hints: FLOPs, bytes read and written,\n"
          "                        cost = 8 * FLOPs + bytes + 1 (doc/graph.md,\n"
          "                        \"Cost\"), and the totals\n"
          "  --hint s0=8,s1=64     hints of symbols (override '# symcut: hint'\n"
          "                        lines); repeatable.  A symbol without a\n"
          "                        hint is unbacked\n"
          "  --num-fwd-outputs N   the number of forward outputs (default: the\n"
          "                        outputs minus one gradient per primal)\n"
          "  -o OUT                write to OUT (atomically) instead of\n"
          "                        standard output\n",
          out);
    cli_reading_help(out);
    fputs("\n"
          "Exit status: 0 success; 1 bad command line; 2 the graph could not\n"
          "be read, or an error writing (standard output included).\n",
          out);
}

typedef struct op_count {
    const char *target;
    const char *cls;
    size_t count;
} op_count;

static int cmp_op_count(const void *a, const void *b)
{
    const op_count *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->target, y->target);
}

static const char *short_target(const char *t)
{
    return strncmp(t, "torch.ops.", 10) == 0 ? t + 10 : t;
}

static void buf_printf(char **buf, size_t *len, size_t *cap, bool *failed,
                       const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static void buf_printf(char **buf, size_t *len, size_t *cap, bool *failed,
                       const char *fmt, ...)
{
    va_list ap;
    int n;
    if (*failed)
        return;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        *failed = true;
        return;
    }
    if (*len + (size_t)n + 1 > *cap) {
        size_t ncap = *cap ? *cap : 4096;
        char *p;
        while (ncap < *len + (size_t)n + 1)
            ncap *= 2;
        p = realloc(*buf, ncap);
        if (!p) {
            *failed = true;
            return;
        }
        *buf = p;
        *cap = ncap;
    }
    va_start(ap, fmt);
    vsnprintf(*buf + *len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    *len += (size_t)n;
}

#define OUT(...) buf_printf(&text, &len, &cap, &failed, __VA_ARGS__)

/* The summary as text (malloc'ed), or NULL on exhaustion. */
static char *summary(const sc_graph *g, const char *file, size_t *lenp)
{
    char *text = NULL;
    size_t len = 0, cap = 0, i, j, nops = 0, ncalls, nsyms, nnone = 0;
    bool failed = false;
    op_count *ops = NULL;
    sc_expr **syms = NULL;
    sc_env *env = sc_graph_env(g);
    size_t nn = sc_graph_node_count(g), nph = sc_graph_placeholder_count(g);
    size_t nout = sc_graph_output_count(g);
    size_t nfwd = sc_graph_fwd_output_count(g);
    size_t nunknown = 0;
    static const char *const classes[] = {
        "pointwise", "view", "reduction", "compute_intensive", "random",
        "creation", "symbolic", "other"};
    size_t class_counts[sizeof classes / sizeof classes[0] + 1] = {0};

    ncalls = nn - nph;
    OUT("graph %s (class %s)\n", file, sc_graph_class_name(g));
    OUT("role: %s\n", sc_graph_kind_name(sc_graph_get_kind(g)));
    OUT("nodes: %zu (%zu placeholder%s, %zu call%s)\n", nn, nph,
        nph == 1 ? "" : "s", ncalls, ncalls == 1 ? "" : "s");
    OUT("inputs: %zu primal%s, %zu tangent%s\n", sc_graph_primal_count(g),
        sc_graph_primal_count(g) == 1 ? "" : "s", sc_graph_tangent_count(g),
        sc_graph_tangent_count(g) == 1 ? "" : "s");
    for (i = 0; i < nout; i++)
        if (sc_graph_output(g, i) == SC_NODE_NONE)
            nnone++;
    OUT("outputs: %zu (%zu forward, %zu gradient%s, %zu None)\n", nout, nfwd,
        nout - nfwd, nout - nfwd == 1 ? "" : "s", nnone);

    ops = calloc(ncalls ? ncalls : 1, sizeof *ops);
    if (!ops) {
        free(text);
        return NULL;
    }
    for (i = nph; i < nn; i++) {
        const char *t = sc_graph_node_target(g, (sc_node_id)i);
        const char *cls = sc_graph_node_class(g, (sc_node_id)i);
        for (j = 0; j < nops && strcmp(ops[j].target, t) != 0; j++)
            ;
        if (j == nops) {
            ops[nops].target = t;
            ops[nops].cls = cls;
            nops++;
        }
        ops[j].count++;
        for (j = 0; cls && j < sizeof classes / sizeof classes[0]; j++)
            if (strcmp(cls, classes[j]) == 0)
                break;
        class_counts[cls ? j : sizeof classes / sizeof classes[0]]++;
    }
    qsort(ops, nops, sizeof *ops, cmp_op_count);
    OUT("ops: %zu distinct\n", nops);
    for (i = 0; i < nops; i++) {
        OUT("  %6zu  %-44s %s\n", ops[i].count, short_target(ops[i].target),
            ops[i].cls ? ops[i].cls : "(unknown op)");
        if (!ops[i].cls && strcmp(ops[i].target, "operator.getitem") != 0)
            nunknown++;
    }
    OUT("recompute classes:");
    for (i = 0; i <= sizeof classes / sizeof classes[0]; i++)
        if (class_counts[i])
            OUT(" %s %zu",
                i < sizeof classes / sizeof classes[0] ? classes[i]
                                                       : "unknown",
                class_counts[i]);
    OUT("\n");

    nsyms = sc_graph_symbols(g, NULL, 0);
    if (nsyms) {
        syms = calloc(nsyms, sizeof *syms);
        if (!syms) {
            free(ops);
            free(text);
            return NULL;
        }
        nsyms = sc_graph_symbols(g, syms, nsyms);
    }
    OUT("symbols: %zu\n", nsyms);
    for (i = 0; i < nsyms; i++) {
        int64_t hint;
        const char *src = env ? sc_env_symbol_source(env, syms[i]) : NULL;
        if (sc_graph_get_hint(g, syms[i], &hint))
            OUT("  %-8s hint %lld%s%s%s\n", sc_expr_symbol_name(syms[i]),
                (long long)hint, src ? " (" : "", src ? src : "",
                src ? ")" : "");
        else
            OUT("  %-8s unbacked (no hint)\n", sc_expr_symbol_name(syms[i]));
    }
    OUT("guards: %zu recorded while inferring shapes\n",
        env ? sc_env_guard_count(env) : (size_t)0);
    for (i = 0; env && i < sc_env_guard_count(env); i++) {
        char *gs = sc_expr_to_str(sc_graph_ctx(g), sc_env_guard_at(env, i));
        OUT("  %s\n", gs ? gs : "?");
        free(gs);
    }
    if (nunknown) {
        OUT("unknown ops: %zu (kept as opaque nodes)\n", nunknown);
    } else {
        OUT("unknown ops: none\n");
    }
    for (i = 0; i < sc_graph_warning_count(g); i++)
        OUT("warning: %s\n", sc_graph_warning(g, i));
    free(syms);
    free(ops);
    if (failed) {
        free(text);
        return NULL;
    }
    *lenp = len;
    return text;
}

/* The --cost table as text (malloc'ed); NULL with err set when a size has
 * no value or a figure is too large, NULL with err->code SC_ERR_NOMEM on
 * exhaustion. */
static char *cost_table(const sc_graph *g, const char *file, size_t *lenp,
                        sc_error *err)
{
    char *text = NULL;
    size_t len = 0, cap = 0, i, nsyms, nn = sc_graph_node_count(g), nrun = 0;
    bool failed = false;
    sc_expr **syms = NULL;
    sc_symmap *m = sc_symmap_new(sc_graph_ctx(g));
    unsigned long long tf = 0, tb = 0, tc = 0;

    sc_error_init(err);
    if (!m)
        goto nomem;
    nsyms = sc_graph_symbols(g, NULL, 0);
    if (nsyms) {
        syms = calloc(nsyms, sizeof *syms);
        if (!syms)
            goto nomem;
        nsyms = sc_graph_symbols(g, syms, nsyms);
    }
    for (i = 0; i < nsyms; i++) {
        int64_t hint;
        if (sc_graph_get_hint(g, syms[i], &hint) &&
            sc_symmap_set_si(m, syms[i], hint, err) != SC_OK)
            goto fail;
    }
    OUT("cost of %s at the hints (cost = %d * flops + bytes + 1 per node "
        "that runs)\n",
        file, SC_NODE_COST_FLOP_WEIGHT);
    OUT("  %-24s %-40s %16s %16s %18s\n", "NODE", "OP", "FLOPS", "BYTES",
        "COST");
    for (i = sc_graph_placeholder_count(g); i < nn; i++) {
        sc_node_cost c;
        if (sc_node_cost_eval(g, (sc_node_id)i, m, &c, err) != SC_OK)
            goto fail;
        OUT("  %-24s %-40s %16llu %16llu %18llu\n",
            sc_graph_node_name(g, (sc_node_id)i),
            short_target(sc_graph_node_target(g, (sc_node_id)i)),
            (unsigned long long)c.flops, (unsigned long long)c.bytes,
            (unsigned long long)c.cost);
        if (c.cost)
            nrun++;
        /* each figure is below 2^63, their sums over a graph's nodes
         * (< 2^31 of them) stay below 2^64 only in practice: saturate */
        tf = tf + c.flops < tf ? ~0ULL : tf + c.flops;
        tb = tb + c.bytes < tb ? ~0ULL : tb + c.bytes;
        tc = tc + c.cost < tc ? ~0ULL : tc + c.cost;
    }
    OUT("total: %zu nodes that run, %llu flops, %llu bytes, cost %llu\n",
        nrun, tf, tb, tc);
    free(syms);
    sc_symmap_free(m);
    if (failed) {
        free(text);
        sc_error_init(err);
        err->code = SC_ERR_NOMEM;
        return NULL;
    }
    *lenp = len;
    return text;
nomem:
    sc_error_init(err);
    err->code = SC_ERR_NOMEM;
fail:
    free(syms);
    sc_symmap_free(m);
    free(text);
    return NULL;
}

typedef struct graph_args {
    const char *file, *out_path;
    bool print, dot, cost;
    const char *around;
    long nfwd, depth;
    cli_hints hints;
    cli_reading reading;
} graph_args;

static int parse_args(sc_ctx *ctx, int argc, char **argv, graph_args *a)
{
    const cli_opt opts[] = {
        {.name = "--print", .kind = CLI_OPT_FLAG, .dest = &a->print},
        {.name = "--dot", .kind = CLI_OPT_FLAG, .dest = &a->dot},
        {.name = "--cost", .kind = CLI_OPT_FLAG, .dest = &a->cost},
        {.name = "--around", .kind = CLI_OPT_TEXT, .dest = &a->around},
        {.name = "--depth", .kind = CLI_OPT_COUNT, .dest = &a->depth,
         .bad = "--depth needs a non-negative integer"},
        {.name = "--hint", .kind = CLI_OPT_HINTS, .dest = &a->hints},
        {.short_name = "-o", .kind = CLI_OPT_TEXT, .dest = &a->out_path},
        {.name = "--num-fwd-outputs", .kind = CLI_OPT_COUNT, .dest = &a->nfwd,
         .bad = "--num-fwd-outputs needs a non-negative integer"},
        CLI_READING_OPTIONS(&a->reading),
    };
    const cli_syntax syn = {.cmd = "graph", .usage = usage, .opts = opts,
                            .nopts = CLI_NOPTS(opts), .ctx = ctx,
                            .max_args = 1, .too_many = "more than one FILE"};
    cli_args args;
    int rc = cli_parse_options(&syn, argc, argv, 1, &args);

    if (rc != CLI_PARSED)
        return rc;
    if (!args.nargs)
        return cli_usage_error("graph", "no FILE given");
    a->file = args.args[0];
    if (a->print && a->dot)
        return cli_usage_error("graph", "--print and --dot exclude each "
                                        "other");
    if (a->cost && (a->print || a->dot))
        return cli_usage_error("graph", "--cost excludes --print and --dot");
    if (a->around && !a->dot)
        return cli_usage_error("graph", "--around draws part of the graph: "
                                        "with --dot");
    if (a->depth >= 0 && !a->around)
        return cli_usage_error("graph", "--depth is the reach of --around "
                                        "NODE: give --around too");
    return CLI_PARSED;
}

/* The list of the graphs of a file holding several: text (malloc'ed),
 * NULL when the file holds one graph (or cannot be listed: the reader
 * then reports why). */
static char *listing(const char *file, size_t *lenp)
{
    sc_error err;
    sc_graph_listing *l = NULL;
    size_t n = 0, i, len = 0, cap = 0;
    char *data, *text = NULL;
    const char *name = file;
    bool failed = false;

    if (strcmp(file, "-") == 0) /* read once, by the loader */
        return NULL;
    data = cli_read_file(file, &n, &err);
    if (!data)
        return NULL;
    if (sc_graph_list_text(data, n, name, &l, &err) != SC_OK ||
        sc_graph_listing_count(l) < 2) {
        sc_graph_listing_free(l);
        free(data);
        return NULL;
    }
    OUT("%s holds %zu graphs%s (choose one with --graph N or NAME):\n", name,
        sc_graph_listing_count(l),
        sc_graph_listing_is_trace(l) ? " (a TORCH_TRACE log)" : "");
    OUT("  %3s  %-28s %-10s %6s  %s\n", "N", "NAME", "ROLE", "LINE",
        "CLASS");
    for (i = 0; i < sc_graph_listing_count(l); i++) {
        sc_graph_listing_entry e;
        sc_graph_listing_entry_get(l, i, &e);
        OUT("  %3zu  %-28s %-10s %6d  %s", i, e.name,
            e.kind == SC_GRAPH_KIND_UNKNOWN ? "-" : sc_graph_kind_name(e.kind),
            e.line, e.class_name[0] ? e.class_name : "-");
        if (e.static_inputs && e.static_inputs[0])
            OUT("  (static inputs %s)", e.static_inputs);
        OUT("\n");
    }
    sc_graph_listing_free(l);
    free(data);
    if (failed) {
        free(text);
        return NULL;
    }
    *lenp = len;
    return text;
}

int cli_cmd_graph(int argc, char **argv)
{
    graph_args a = {0};
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL, *unused;
    cli_load load;
    sc_error err;
    char *text = NULL;
    size_t len = 0;
    sc_status st;
    int rc;

    if (!ctx) {
        cli_errorf("out of memory");
        return CLI_EXIT_INPUT;
    }
    a.nfwd = -1;
    a.depth = -1;
    if ((rc = parse_args(ctx, argc, argv, &a)) != CLI_PARSED)
        goto done;
    if (!a.print && !a.dot && !a.cost && !a.reading.graph &&
        (text = listing(a.file, &len)) != NULL) {
        rc = CLI_EXIT_INPUT;
        if (cli_write_file(a.out_path, text, len, &err) != SC_OK) {
            cli_report(&err);
            goto done;
        }
        rc = CLI_EXIT_OK;
        goto done;
    }
    cli_load_init(&load, "graph");
    load.num_fwd_outputs = a.nfwd;
    load.hints = &a.hints;
    if ((rc = cli_load_graph_reading(ctx, a.file, &load, &a.reading, &g,
                                     &unused)) != 0)
        goto done;
    rc = CLI_EXIT_INPUT;
    if (a.cost) {
        text = cost_table(g, strcmp(a.file, "-") == 0 ? "<stdin>" : a.file,
                          &len, &err);
        if (!text) {
            if (err.code == SC_ERR_NOMEM)
                cli_errorf("out of memory");
            else
                cli_errorf("--cost: %s%s", err.message,
                           err.code == SC_ERR_UNBOUND
                               ? " (give its value with --hint)"
                               : "");
            goto done;
        }
        st = SC_OK;
    } else if (!a.print && !a.dot) {
        text = summary(g, strcmp(a.file, "-") == 0 ? "<stdin>" : a.file,
                       &len);
        if (!text) {
            cli_errorf("out of memory");
            goto done;
        }
        st = SC_OK;
    } else if (a.print) {
        st = sc_graph_write_text(g, NULL, &text, &len, &err);
    } else {
        sc_graph_dot_options dopts;
        sc_graph_dot_options_init(&dopts);
        if (a.around) {
            dopts.around = sc_graph_find(g, a.around);
            if (dopts.around == SC_NODE_NONE) {
                rc = cli_usage_error("graph",
                                     "--around %s: the graph has no node "
                                     "'%s'",
                                     a.around, a.around);
                goto done;
            }
            if (a.depth >= 0)
                dopts.around_depth = (size_t)a.depth;
        }
        st = sc_graph_write_dot(g, &dopts, &text, &len, &err);
    }
    if (st != SC_OK || cli_write_file(a.out_path, text, len, &err) != SC_OK) {
        cli_report(&err);
        goto done;
    }
    rc = CLI_EXIT_OK;
done:
    free(text);
    cli_hints_free(&a.hints);
    cli_reading_free(&a.reading);
    sc_graph_free(g);
    sc_ctx_free(ctx);
    return rc;
}

/* symcut gradcheck — check a joint graph's gradients against central
 * finite differences in float64 (sc_gradcheck_run).
 *
 *   symcut gradcheck GRAPH [--forward] [--seed N] [--sizes s0=17,...]
 *                    [--eps E] [--atol A] [--rtol R] [--max-per-input N] */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>
#include <symcut/interp.h>

#include "cli/cli.h"
#include "cli/load.h"
#include "cli/progress.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: symcut gradcheck GRAPH [--forward] [--seed N]\n"
            "                        [--sizes s0=17,...] [--eps E] [--atol A]\n"
            "                        [--rtol R] [--max-per-input N]\n"
            "\n"
            "Check the gradients a joint graph computes against central finite\n"
            "differences, in float64 (every floating dtype of the graph becomes\n"
            "f64): draw random inputs and tangents, run the joint graph for the\n"
            "gradients of F = sum over forward outputs of <tangent, output>, and\n"
            "for each checked element x of each primal with a gradient compare\n"
            "it with (F(x + eps) - F(x - eps)) / (2 eps).  An element passes\n"
            "when |analytic - numeric| <= atol + rtol * |numeric|.  Prints one\n"
            "line per primal as soon as it is checked, the worst element, and\n"
            "PASS or FAIL.\n"
            "\n"
            "Options:\n"
            "  --forward           GRAPH is a forward graph: build its joint\n"
            "                      graph first (as 'symcut joint' does)\n"
            "  --seed N            seed of the inputs, tangents, sampled elements\n"
            "                      and random ops (default 0)\n"
            "  --sizes s0=17,...   values of the symbols (default: their hints);\n"
            "                      repeatable, a later value of a symbol\n"
            "                      replaces an earlier one\n"
            "  --eps E             the finite-difference step (default 1e-06)\n"
            "  --atol A            absolute tolerance (default 1e-05)\n"
            "  --rtol R            relative tolerance (default 0.001)\n"
            "  --max-per-input N   check at most N elements of each primal, a\n"
            "                      seeded sample (default %d; 0: all)\n"
            "  --progress          show the progress on standard error even\n"
            "                      when it is not a terminal (one line per\n"
            "                      tenth of each phase); --no-progress: never\n"
            "\n"
            "Exit status: 0 PASS; 1 bad command line; 2 bad input (a graph that\n"
            "could not be read or run), or an error reading or writing\n"
            "(standard output included); 3 FAIL.\n",
            SC_GRADCHECK_MAX_PER_INPUT);
}

/* "f32[16, 32]" from the placeholder's annotation. */
static void print_meta(const sc_graph *g, sc_node_id id)
{
    sc_result r;
    size_t d;
    sc_graph_node_result(g, id, &r);
    if (r.kind == SC_RESULT_SYMINT) {
        printf("SymInt");
        return;
    }
    if (r.kind != SC_RESULT_TENSOR) {
        printf("?");
        return;
    }
    printf("%s[", sc_dtype_code(r.tensor.dtype));
    for (d = 0; d < r.tensor.ndim; d++) {
        char *s = sc_expr_to_str(sc_graph_ctx(g), r.tensor.sizes[d]);
        printf("%s%s", d ? ", " : "", s ? s : "?");
        free(s);
    }
    printf("]");
}

static void print_sizes(const sc_graph *g, const sc_symmap *sizes)
{
    size_t ns = sc_graph_symbols(g, NULL, 0), j;
    sc_expr **syms = ns ? calloc(ns, sizeof *syms) : NULL;
    if (!syms)
        return;
    ns = sc_graph_symbols(g, syms, ns);
    printf("sizes:");
    for (j = 0; j < ns; j++) {
        sc_expr *e = sc_symmap_get(sizes, syms[j]);
        int64_t v;
        if (e && sc_expr_value_si(e, &v))
            printf(" %s=%lld", sc_expr_symbol_name(syms[j]), (long long)v);
        else if (sc_graph_get_hint(g, syms[j], &v))
            printf(" %s=%lld", sc_expr_symbol_name(syms[j]), (long long)v);
    }
    printf("\n");
    free(syms);
}

typedef struct gradcheck_args {
    const char *file;
    cli_list sizes;
    bool forward;
    uint64_t seed, max_per_input;
    sc_gradcheck_options go;
    cli_reading reading;
} gradcheck_args;

static int parse_args(int argc, char **argv, gradcheck_args *a)
{
    const cli_opt opts[] = {
        {.name = "--forward", .kind = CLI_OPT_FLAG, .dest = &a->forward},
        {.name = "--seed", .kind = CLI_OPT_UINT, .dest = &a->seed,
         .max = UINT64_MAX, .bad = "bad seed '%s'"},
        {.name = "--sizes", .kind = CLI_OPT_LIST, .dest = &a->sizes},
        {.name = "--eps", .kind = CLI_OPT_NUMBER, .dest = &a->go.eps,
         .min = 1, .bad = "--eps needs a positive number, not '%s'"},
        {.name = "--atol", .kind = CLI_OPT_NUMBER, .dest = &a->go.atol,
         .bad = "--atol needs a non-negative number, not '%s'"},
        {.name = "--rtol", .kind = CLI_OPT_NUMBER, .dest = &a->go.rtol,
         .bad = "--rtol needs a non-negative number, not '%s'"},
        {.name = "--max-per-input", .kind = CLI_OPT_UINT,
         .dest = &a->max_per_input, .max = SIZE_MAX, .bad = "bad count '%s'"},
        CLI_READING_OPTIONS(&a->reading),
        CLI_READING_NFWD_OPTION(&a->reading),
    };
    const cli_syntax syn = {.cmd = "gradcheck", .usage = usage, .opts = opts,
                            .nopts = CLI_NOPTS(opts),
                            .needs_value = "'%s' needs a value",
                            .max_args = 1,
                            .too_many = "more than one graph"};
    cli_args args;
    int rc;

    sc_gradcheck_options_init(&a->go);
    a->max_per_input = SC_GRADCHECK_MAX_PER_INPUT;
    rc = cli_parse_options(&syn, argc, argv, 1, &args);
    if (rc != CLI_PARSED)
        return rc;
    if (!args.nargs)
        return cli_usage_error("gradcheck", "no graph given");
    a->file = args.args[0];
    return CLI_PARSED;
}

/* What the per-primal lines need (sc_gradcheck_options.input_done). */
typedef struct stream {
    const gradcheck_args *a;
    const sc_graph *joint;
    bool header; /* the header lines are out */
    bool ran, checked; /* -v: the phase lines printed */
} stream;

/* The header lines, once: before the first primal's line (a check that
 * fails before any primal is done prints nothing on standard output). */
static void print_header(stream *s)
{
    const gradcheck_args *a = s->a;
    const sc_gradcheck_options *go = &a->go;
    if (s->header)
        return;
    s->header = true;
    printf("gradcheck %s%s: f64, seed %llu, eps %g, atol %g, rtol %g, ",
           a->file, a->forward ? " (joint built from the forward graph)" : "",
           (unsigned long long)a->seed, go->eps, go->atol, go->rtol);
    if (go->max_per_input)
        printf("at most %zu elements per input\n", go->max_per_input);
    else
        printf("every element\n");
    print_sizes(s->joint, go->sizes);
}

/* One primal's line, as soon as it is checked (flushed: a long check
 * shows each input's result as it comes). */
static void print_input(void *user, size_t i, const sc_gradcheck_input *r)
{
    stream *s = user;
    (void)i;
    cli_progress_clear(); /* standard output may be the same terminal */
    print_header(s);
    printf("  %s ", sc_graph_node_name(s->joint, r->node));
    print_meta(s->joint, r->node);
    if (r->skipped)
        printf(": skipped (%s)\n", r->skipped);
    else
        printf(": %zu of %zu elements checked, %zu failed\n", r->checked,
               r->numel, r->failures);
    fflush(stdout);
}

/* The progress reports, and -v's phase lines as the phases end. */
static void progress(void *user, const char *phase, size_t done,
                     size_t total)
{
    stream *s = user;
    if (strcmp(phase, "checking gradients") == 0 && done == 0 &&
        !s->ran) {
        s->ran = true;
        cli_phasef("ran the joint graph and its forward part in f64");
    }
    cli_progress(NULL, phase, done, total);
    if (strcmp(phase, "checking gradients") == 0 && done == total &&
        !s->checked) {
        s->checked = true;
        cli_phasef("checked %zu elements (%zu forward runs)", total,
                   2 * total);
    }
}

static void print_report(stream *s, const sc_gradcheck_report *rep)
{
    const sc_graph *joint = s->joint;
    const sc_gradcheck_options *go = &s->a->go;

    print_header(s);
    printf("checked %zu elements of %zu inputs (%zu graph runs)\n",
           rep->checked, rep->inputs_checked, rep->runs);
    if (rep->worst_input != SIZE_MAX)
        printf("worst: %s[%zu]: analytic %.6g, numeric %.6g, abs error %.3g "
               "(%.3g of the tolerance)\n",
               sc_graph_node_name(joint, go->per_input[rep->worst_input].node),
               rep->worst_index, rep->worst_analytic, rep->worst_numeric,
               rep->worst_abs_error, rep->worst_ratio);
    if (rep->passed)
        printf("PASS\n");
    else
        printf("FAIL: %s\n", rep->message);
    fflush(stdout);
}

int cli_cmd_gradcheck(int argc, char **argv)
{
    gradcheck_args a = {0};
    stream out = {0};
    sc_gradcheck_report rep;
    sc_gradcheck_input *recs = NULL;
    sc_ctx *ctx = NULL;
    sc_graph *g = NULL, *joint = NULL;
    sc_symmap *sizes = NULL;
    cli_load load;
    sc_error err;
    int rc = parse_args(argc, argv, &a);

    if (rc != CLI_PARSED)
        goto done;
    rc = CLI_EXIT_INPUT;
    ctx = sc_ctx_new();
    sizes = ctx ? sc_symmap_new(ctx) : NULL;
    if (!ctx || !sizes) {
        cli_errorf("out of memory");
        goto done;
    }
    if (a.sizes.text &&
        cli_parse_bindings(ctx, a.sizes.text, sizes, &err) != SC_OK) {
        rc = cli_usage_error("gradcheck", "--sizes: %s", err.message);
        goto done;
    }
    cli_load_init(&load, "gradcheck");
    load.sizes_text = a.sizes.text;
    load.forward = a.forward;
    if ((rc = cli_load_graph_reading(ctx, a.file, &load, &a.reading, &joint,
                                     &g)) != 0)
        goto done;
    rc = CLI_EXIT_INPUT;
    if (!a.forward && sc_graph_tangent_count(joint) == 0) {
        cli_errorf("%s: the graph has no tangents: not a joint graph "
                   "(for a forward graph, use --forward)",
                   strcmp(a.file, "-") == 0 ? "<stdin>" : a.file);
        goto done;
    }
    recs = calloc(sc_graph_primal_count(joint) + 1, sizeof *recs);
    if (!recs) {
        cli_errorf("out of memory");
        goto done;
    }
    a.go.seed = a.seed;
    a.go.sizes = sizes;
    a.go.max_per_input = (size_t)a.max_per_input;
    a.go.per_input = recs;
    out.a = &a;
    out.joint = joint;
    a.go.input_done = print_input;
    a.go.input_done_user = &out;
    a.go.progress = progress;
    a.go.progress_user = &out;
    if (sc_gradcheck_run(joint, &a.go, &rep, &err) != SC_OK) {
        cli_locate_error(a.forward ? g : joint, a.file, &err);
        cli_report(&err);
        goto done;
    }
    cli_progress_done();
    print_report(&out, &rep);
    rc = rep.passed ? CLI_EXIT_OK : CLI_EXIT_CHECK;
done:
    cli_list_free(&a.sizes);
    free(recs);
    sc_graph_free(joint);
    sc_graph_free(g);
    sc_symmap_free(sizes);
    cli_reading_free(&a.reading);
    sc_ctx_free(ctx);
    return rc;
}

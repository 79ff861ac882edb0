/* symcut gradcheck — check a joint graph's gradients against central
 * finite differences in float64 (sc_gradcheck).
 *
 *   symcut gradcheck GRAPH [--forward] [--seed N] [--sizes s0=17,...]
 *                    [--eps E] [--atol A] [--rtol R] [--max-per-input N] */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>
#include <symcut/kernels.h>

#include "cli/cli.h"

/* cli/cmd_joint.c */

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
            "line per primal, the worst element, and PASS or FAIL.\n"
            "\n"
            "Options:\n"
            "  --forward           GRAPH is a forward graph: build its joint\n"
            "                      graph first (as 'symcut joint' does)\n"
            "  --seed N            seed of the inputs, tangents, sampled elements\n"
            "                      and random ops (default 0)\n"
            "  --sizes s0=17,...   values of the symbols (default: their hints)\n"
            "  --eps E             the finite-difference step (default 1e-06)\n"
            "  --atol A            absolute tolerance (default 1e-05)\n"
            "  --rtol R            relative tolerance (default 0.001)\n"
            "  --max-per-input N   check at most N elements of each primal, a\n"
            "                      seeded sample (default %d; 0: all)\n"
            "\n"
            "Exit status: 0 PASS; 1 bad command line; 2 FAIL, or a graph that\n"
            "could not be read or run.\n",
            SC_GRADCHECK_MAX_PER_INPUT);
}

static bool parse_u64(const char *s, unsigned long long *out)
{
    char *end;
    if (!s[0] || s[0] == '-')
        return false;
    errno = 0;
    *out = strtoull(s, &end, 0);
    return !*end && !errno;
}

static bool parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return s[0] && !*end && !errno && isfinite(*out) && *out >= 0;
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
        if (e && sc_expr_get_si(e, &v))
            printf(" %s=%lld", sc_expr_symbol_name(syms[j]), (long long)v);
        else if (sc_graph_get_hint(g, syms[j], &v))
            printf(" %s=%lld", sc_expr_symbol_name(syms[j]), (long long)v);
    }
    printf("\n");
    free(syms);
}

int cli_cmd_gradcheck(int argc, char **argv)
{
    const char *file = NULL, *sizes_text = NULL;
    bool forward = false;
    unsigned long long seed = 0, maxper = SC_GRADCHECK_MAX_PER_INPUT;
    sc_gradcheck_options go;
    sc_gradcheck_report rep;
    sc_gradcheck_input *recs = NULL;
    sc_ctx *ctx = NULL;
    sc_graph *g = NULL, *joint = NULL;
    sc_symmap *sizes = NULL;
    sc_error err;
    size_t i, np;
    int rc = CLI_EXIT_INPUT, k;

    sc_gradcheck_options_init(&go);
    for (k = 1; k < argc; k++) {
        const char *a = argv[k];
        if (cli_is_help(a)) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if (strcmp(a, "--forward") == 0) {
            forward = true;
        } else if (strcmp(a, "--seed") == 0 || strcmp(a, "--sizes") == 0 ||
                   strcmp(a, "--eps") == 0 || strcmp(a, "--atol") == 0 ||
                   strcmp(a, "--rtol") == 0 ||
                   strcmp(a, "--max-per-input") == 0) {
            const char *v;
            if (k + 1 >= argc)
                return cli_usage_error("gradcheck", "'%s' needs a value", a);
            v = argv[++k];
            if (strcmp(a, "--seed") == 0) {
                if (!parse_u64(v, &seed))
                    return cli_usage_error("gradcheck", "bad seed '%s'", v);
            } else if (strcmp(a, "--sizes") == 0) {
                sizes_text = v;
            } else if (strcmp(a, "--max-per-input") == 0) {
                if (!parse_u64(v, &maxper) || maxper > SIZE_MAX)
                    return cli_usage_error("gradcheck", "bad count '%s'", v);
            } else {
                double d;
                if (!parse_double(v, &d) ||
                    (strcmp(a, "--eps") == 0 && d == 0))
                    return cli_usage_error("gradcheck",
                                           "%s needs a %s number, not '%s'",
                                           a,
                                           strcmp(a, "--eps") == 0
                                               ? "positive"
                                               : "non-negative",
                                           v);
                if (strcmp(a, "--eps") == 0)
                    go.eps = d;
                else if (strcmp(a, "--atol") == 0)
                    go.atol = d;
                else
                    go.rtol = d;
            }
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("gradcheck", "unknown option '%s'", a);
        } else if (file) {
            return cli_usage_error("gradcheck", "more than one graph");
        } else {
            file = a;
        }
    }
    if (!file)
        return cli_usage_error("gradcheck", "no graph given");

    ctx = sc_ctx_new();
    sizes = ctx ? sc_symmap_new(ctx) : NULL;
    if (!ctx || !sizes) {
        cli_errorf("out of memory");
        goto done;
    }
    if (sizes_text && cli_parse_bindings(ctx, sizes_text, sizes, &err) !=
                          SC_OK) {
        sc_symmap_free(sizes);
        sc_ctx_free(ctx);
        return cli_usage_error("gradcheck", "--sizes: %s", err.message);
    }
    g = cli_read_graph(ctx, file, NULL);
    if (!g)
        goto done;
    if (sizes_text &&
        cli_check_symbol_names(g, "gradcheck", "--sizes", sizes_text)) {
        rc = CLI_EXIT_USAGE;
        goto done;
    }
    if (forward) {
        joint = cli_joint_of_forward(g, file, NULL);
        if (!joint)
            goto done;
    } else {
        joint = g;
        g = NULL;
        if (sc_graph_num_tangents(joint) == 0) {
            cli_errorf("%s: the graph has no tangents: not a joint graph "
                       "(for a forward graph, use --forward)",
                       strcmp(file, "-") == 0 ? "<stdin>" : file);
            goto done;
        }
    }
    np = sc_graph_num_primals(joint);
    recs = calloc(np + 1, sizeof *recs);
    if (!recs) {
        cli_errorf("out of memory");
        goto done;
    }
    go.seed = seed;
    go.sizes = sizes;
    go.max_per_input = (size_t)maxper;
    go.per_input = recs;
    if (sc_gradcheck(joint, &go, &rep, &err) != SC_OK) {
        cli_locate_error(forward ? g : joint, file, &err);
        cli_report(&err);
        goto done;
    }

    printf("gradcheck %s%s: f64, seed %llu, eps %g, atol %g, rtol %g, ",
           file, forward ? " (joint built from the forward graph)" : "", seed,
           go.eps, go.atol, go.rtol);
    if (go.max_per_input)
        printf("at most %zu elements per input\n", go.max_per_input);
    else
        printf("every element\n");
    print_sizes(joint, sizes);
    for (i = 0; i < np; i++) {
        const sc_gradcheck_input *r = &recs[i];
        printf("  %s ", sc_graph_node_name(joint, r->node));
        print_meta(joint, r->node);
        if (r->skipped)
            printf(": skipped (%s)\n", r->skipped);
        else
            printf(": %zu of %zu elements checked, %zu failed\n", r->checked,
                   r->numel, r->failures);
    }
    printf("checked %zu elements of %zu inputs (%zu graph runs)\n",
           rep.checked, rep.inputs_checked, rep.runs);
    if (rep.worst_input != SIZE_MAX)
        printf("worst: %s[%zu]: analytic %.6g, numeric %.6g, abs error %.3g "
               "(%.3g of the tolerance)\n",
               sc_graph_node_name(joint, recs[rep.worst_input].node),
               rep.worst_index, rep.worst_analytic, rep.worst_numeric,
               rep.worst_abs_error, rep.worst_ratio);
    if (rep.passed) {
        printf("PASS\n");
        rc = CLI_EXIT_OK;
    } else {
        printf("FAIL: %s\n", rep.message);
    }
    fflush(stdout);
done:
    free(recs);
    sc_graph_free(joint);
    sc_graph_free(g);
    sc_symmap_free(sizes);
    sc_ctx_free(ctx);
    return rc;
}

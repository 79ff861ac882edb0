/* symcut run — execute a graph with the CPU kernels and summarize its
 * outputs.
 *
 *   symcut run GRAPH [--inputs DIR] [--seed N] [--sizes s0=17,...]
 *              [--hint s0=8,...] [--save DIR]
 *              [--expect DIR [--rtol R] [--atol A]] */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <symcut/graph.h>
#include <symcut/interp.h>

#include "cli/cli.h"
#include "cli/progress.h"
#include "cli/load.h"

static void usage(FILE *out)
{
    fputs("Usage: symcut run GRAPH [--inputs DIR] [--seed N] [--sizes s0=17,...]\n"
          "                  [--hint s0=8,...] [--save DIR]\n"
          "                  [--expect DIR [--rtol R] [--atol A]]\n"
          "\n"
          "Execute a graph (PyTorch's graph text) with symcut's CPU kernels and\n"
          "print, per output, its node, dtype and shape and two checksums (the\n"
          "sum of its elements as float64, and the FNV-1a 64 hash of its bytes\n"
          "in C order), then the peak memory held.  A graph with an op that has\n"
          "no kernel or a dtype the kernels do not support is refused before\n"
          "anything runs, naming all of them; a graph naming CUDA (or other)\n"
          "devices runs on the CPU, saying so on standard error.\n"
          "\n"
          "Options:\n"
          "  --inputs DIR        read each input from DIR/<placeholder>.npy\n"
          "                      (primals_1.npy, ..., tangents_1.npy); without\n"
          "                      it, inputs are random (floats in [-1, 1),\n"
          "                      integers in {0, 1}) at the sizes\n"
          "  --seed N            seed of the random inputs and of the random\n"
          "                      ops (default 0)\n"
          "  --sizes s0=17,...   values of the symbols (default: their hints);\n"
          "                      with --inputs, the inputs must agree\n"
          "  --hint s0=8,...     hints of symbols (override '# symcut: hint'\n"
          "                      lines): the default sizes; repeatable\n"
          "  --save DIR          write output K to DIR/out_K.npy (atomically),\n"
          "                      creating DIR\n"
          "  --expect DIR        compare output K with DIR/out_K.npy (same\n"
          "                      shape; |out - expected| <= atol + rtol *\n"
          "                      |expected| elementwise, NaN equal to NaN)\n"
          "  --rtol R            relative tolerance of --expect (default 1e-4)\n"
          "  --atol A            absolute tolerance of --expect (default 1e-5)\n"
          "\n"
          CLI_EXIT_HELP "; 3 an output differs from --expect.\n",
          out);
}

static uint64_t fnv1a(const unsigned char *p, size_t n, uint64_t h)
{
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* "f32[32, 64]" */
static void print_shape(const sc_tensor *t)
{
    size_t d;
    printf("%s[", sc_dtype_code(t->dtype));
    for (d = 0; d < t->ndim; d++)
        printf("%s%lld", d ? ", " : "", (long long)t->sizes[d]);
    printf("]");
}

static int print_output(size_t k, const char *node, const sc_tensor *t)
{
    sc_tensor *c = NULL;
    sc_error err;
    double sum = 0;
    size_t n, i;

    printf("out_%zu %s ", k, node);
    if (!t) {
        printf("None\n");
        return 0;
    }
    if (sc_tensor_clone(t, &c, &err) != SC_OK) {
        cli_report(&err);
        return -1;
    }
    n = sc_tensor_numel(c);
    for (i = 0; i < n; i++)
        sum += sc_tensor_item_double(c, i);
    print_shape(t);
    printf(" sum=%.9g fnv=%016llx\n", sum,
           (unsigned long long)fnv1a(sc_tensor_data(c), sc_tensor_nbytes(c),
                                     0xcbf29ce484222325ULL));
    sc_tensor_free(c);
    return 0;
}

/* The symbols that are a whole size of an input, from the inputs (for
 * the summary; the interpreter checks them). */
static void bind_from_inputs(const sc_graph *g, sc_tensor *const *inputs,
                             sc_symmap *binding)
{
    size_t np = sc_graph_placeholder_count(g), k, d;
    for (k = 0; k < np; k++) {
        sc_result r;
        sc_graph_node_result(g, (sc_node_id)k, &r);
        if (r.kind != SC_RESULT_TENSOR || r.tensor.ndim != inputs[k]->ndim)
            continue;
        for (d = 0; d < r.tensor.ndim; d++)
            if (sc_expr_is_symbol(r.tensor.sizes[d]) &&
                !sc_symmap_get(binding, r.tensor.sizes[d]))
                sc_symmap_set_si(binding, r.tensor.sizes[d],
                                 inputs[k]->sizes[d], NULL);
    }
}

static char *path_join(const char *dir, const char *name, const char *ext)
{
    size_t n = strlen(dir) + strlen(name) + strlen(ext) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s%s", dir, name, ext);
    return p;
}

typedef struct run_args {
    const char *file, *inputs_dir, *sizes_text, *save_dir, *expect_dir;
    cli_list sizes; /* every --sizes; sizes_text is its text */
    uint64_t seed;
    double rtol, atol;
    bool rtol_given, atol_given;
    cli_hints hints;
    cli_reading reading;
} run_args;

static int parse_args(sc_ctx *ctx, int argc, char **argv, run_args *a)
{
    const cli_opt opts[] = {
        {.name = "--inputs", .kind = CLI_OPT_TEXT, .dest = &a->inputs_dir},
        {.name = "--seed", .kind = CLI_OPT_UINT, .dest = &a->seed,
         .max = UINT64_MAX, .bad = "bad seed '%s'"},
        {.name = "--sizes", .kind = CLI_OPT_LIST, .dest = &a->sizes},
        {.name = "--save", .kind = CLI_OPT_TEXT, .dest = &a->save_dir},
        CLI_READING_OPTIONS(&a->reading),
        CLI_READING_NFWD_OPTION(&a->reading),
        {.name = "--hint", .kind = CLI_OPT_HINTS, .dest = &a->hints},
        {.name = "--expect", .kind = CLI_OPT_TEXT, .dest = &a->expect_dir},
        {.name = "--rtol", .kind = CLI_OPT_NUMBER, .dest = &a->rtol,
         .seen = &a->rtol_given,
         .bad = "--rtol needs a non-negative number, not '%s'"},
        {.name = "--atol", .kind = CLI_OPT_NUMBER, .dest = &a->atol,
         .seen = &a->atol_given,
         .bad = "--atol needs a non-negative number, not '%s'"},
    };
    const cli_syntax syn = {.cmd = "run", .usage = usage, .opts = opts,
                            .nopts = CLI_NOPTS(opts), .ctx = ctx,
                            .needs_value = "'%s' needs a value",
                            .max_args = 1,
                            .too_many = "more than one graph"};
    cli_args args;
    int rc = cli_parse_options(&syn, argc, argv, 1, &args);

    if (rc != CLI_PARSED)
        return rc;
    if (!args.nargs)
        return cli_usage_error("run", "no graph file given");
    if ((a->rtol_given || a->atol_given) && !a->expect_dir)
        return cli_usage_error("run", "%s needs --expect",
                               a->rtol_given ? "--rtol" : "--atol");
    if (!a->rtol_given)
        a->rtol = 1e-4;
    if (!a->atol_given)
        a->atol = 1e-5;
    a->file = args.args[0];
    return CLI_PARSED;
}

/* Sizes are int64_t (>= 0): say so before anything runs.  false after
 * printing the error. */
static bool check_sizes(const sc_graph *g, const sc_symmap *sizes)
{
    size_t ns = sc_graph_symbols(g, NULL, 0), j;
    sc_expr **syms = calloc(ns + 1, sizeof *syms);
    bool ok = true;

    if (!syms) {
        cli_errorf("out of memory");
        return false;
    }
    ns = sc_graph_symbols(g, syms, ns);
    for (j = 0; j < ns && ok; j++) {
        sc_expr *v = sc_symmap_get(sizes, syms[j]);
        int64_t x;
        if (v && (!sc_expr_value_si(v, &x) || x < 0)) {
            cli_errorf("--sizes: the size of %s must be an integer in "
                       "[0, 2**63)", sc_expr_symbol_name(syms[j]));
            ok = false;
        }
    }
    free(syms);
    return ok;
}

/* The inputs: read from DIR/<placeholder>.npy, or random at the sizes.
 * false after printing the error. */
static bool make_inputs(const sc_graph *g, const run_args *a,
                        const sc_symmap *sizes, sc_symmap *binding,
                        sc_tensor **inputs)
{
    size_t np = sc_graph_placeholder_count(g), k;
    sc_error err;

    if (!a->inputs_dir) {
        if (sc_interp_bind_sizes(g, sizes, binding, &err) != SC_OK ||
            sc_interp_random_inputs(g, binding, a->seed, 0, inputs, &err) !=
                SC_OK) {
            cli_report(&err);
            return false;
        }
        return true;
    }
    for (k = 0; k < np; k++) {
        char *p = path_join(a->inputs_dir,
                            sc_graph_node_name(g, (sc_node_id)k), ".npy");
        sc_status s;
        if (!p) {
            cli_errorf("out of memory");
            return false;
        }
        s = sc_npy_read(p, &inputs[k], &err);
        free(p);
        if (s != SC_OK) {
            cli_report(&err);
            return false;
        }
    }
    return true;
}

/* The summary of the run: false after printing an error. */
static bool print_run(const sc_graph *g, const run_args *a,
                      const sc_symmap *sizes, const sc_symmap *binding,
                      sc_tensor *const *outputs, const sc_interp_stats *st)
{
    size_t no = sc_graph_output_count(g), k;
    size_t ns = sc_graph_symbols(g, NULL, 0), j;
    sc_expr **syms;

    printf("graph %s: %zu nodes, %zu inputs (%s", a->file,
           sc_graph_node_count(g), sc_graph_placeholder_count(g),
           a->inputs_dir ? "from " : "random, seed ");
    if (a->inputs_dir)
        printf("%s)\n", a->inputs_dir);
    else
        printf("%llu)\n", (unsigned long long)a->seed);
    syms = calloc(ns + 1, sizeof *syms);
    if (ns && syms) {
        ns = sc_graph_symbols(g, syms, ns);
        printf("sizes:");
        for (j = 0; j < ns; j++) {
            int64_t v = 0;
            sc_expr *e = sc_symmap_get(binding, syms[j]);
            if (!e)
                e = sc_symmap_get(sizes, syms[j]);
            if (e && sc_expr_value_si(e, &v))
                printf(" %s=%lld", sc_expr_symbol_name(syms[j]),
                       (long long)v);
        }
        printf("\n");
    }
    free(syms);
    for (k = 0; k < no; k++) {
        sc_node_id o = sc_graph_output(g, k);
        if (print_output(k, o == SC_NODE_NONE ? "-"
                                              : sc_graph_node_name(g, o),
                         outputs[k]) != 0)
            return false;
    }
    printf("peak memory: %zu bytes (at node %s)\n", st->peak_bytes,
           st->peak_node == SC_NODE_NONE
               ? "-"
               : sc_graph_node_name(g, st->peak_node));
    if (st->boundary_node != SC_NODE_NONE)
        printf("held after the forward (node %s): %zu bytes, %zu of them "
               "inputs\n",
               sc_graph_node_name(g, st->boundary_node), st->boundary_bytes,
               st->boundary_input_bytes);
    printf("outputs: %zu bytes; kernel calls: %zu\n", st->output_bytes,
           st->kernel_calls);
    return true;
}

/* DIR for --save: created when missing (its parent must exist); false
 * after printing the error. */
static bool make_dir(const char *dir)
{
    struct stat st;
    if (mkdir(dir, 0777) == 0)
        return true;
    if (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return true;
    cli_errorf("--save: cannot create the directory '%s': %s", dir,
               errno == EEXIST ? "a file of that name exists"
                               : strerror(errno));
    return false;
}

/* Output K to DIR/out_K.npy (DIR exists): false after printing the
 * error. */
static bool save_outputs(const char *dir, size_t no,
                         sc_tensor *const *outputs)
{
    size_t k;
    sc_error err;


    for (k = 0; k < no; k++) {
        char name[32], *p;
        sc_status s;
        if (!outputs[k])
            continue;
        snprintf(name, sizeof name, "out_%zu", k);
        p = path_join(dir, name, ".npy");
        if (!p) {
            cli_errorf("out of memory");
            return false;
        }
        s = sc_npy_write(outputs[k], p, &err);
        free(p);
        if (s != SC_OK) {
            cli_report(&err);
            return false;
        }
    }
    return true;
}

/* Compare output k with expected (same shape; tolerances): the number of
 * differing elements, or -1 after printing an error.  *max_abs and
 * *max_rel get the largest errors. */
static long compare_output(size_t k, const sc_tensor *out,
                           const sc_tensor *want, const run_args *a,
                           double *max_abs, double *max_rel)
{
    sc_tensor *co = NULL, *cw = NULL;
    sc_error err;
    size_t n, i, d;
    long bad = 0;

    *max_abs = *max_rel = 0;
    if (out->ndim != want->ndim) {
        printf("expect out_%zu: rank %zu, expected %zu\n", k, out->ndim,
               want->ndim);
        return 1;
    }
    for (d = 0; d < out->ndim; d++)
        if (out->sizes[d] != want->sizes[d]) {
            printf("expect out_%zu: size of dim %zu is %lld, expected "
                   "%lld\n", k, d, (long long)out->sizes[d],
                   (long long)want->sizes[d]);
            return 1;
        }
    if (sc_tensor_clone(out, &co, &err) != SC_OK ||
        sc_tensor_clone(want, &cw, &err) != SC_OK) {
        sc_tensor_free(co);
        cli_report(&err);
        return -1;
    }
    n = sc_tensor_numel(co);
    for (i = 0; i < n; i++) {
        double x = sc_tensor_item_double(co, i);
        double y = sc_tensor_item_double(cw, i);
        double e = fabs(x - y);
        if (isnan(x) && isnan(y))
            continue;
        if (x == y)
            continue;
        if (!(e <= a->atol + a->rtol * fabs(y)))
            bad++;
        if (isnan(e) || e > *max_abs)
            *max_abs = e;
        if (y != 0 && (isnan(e) || e / fabs(y) > *max_rel))
            *max_rel = e / fabs(y);
    }
    sc_tensor_free(co);
    sc_tensor_free(cw);
    return bad;
}

/* --expect: every output against DIR/out_K.npy (a None output has no
 * file).  1 when all agree, 0 when one differs, -1 after an error. */
static int expect_outputs(const run_args *a, size_t no,
                          sc_tensor *const *outputs)
{
    size_t k, differ = 0;
    sc_error err;

    for (k = 0; k < no; k++) {
        char name[32], *p;
        sc_tensor *want = NULL;
        double ea, er;
        long bad;
        if (!outputs[k])
            continue;
        snprintf(name, sizeof name, "out_%zu", k);
        p = path_join(a->expect_dir, name, ".npy");
        if (!p) {
            cli_errorf("out of memory");
            return -1;
        }
        if (sc_npy_read(p, &want, &err) != SC_OK) {
            free(p);
            cli_report(&err);
            return -1;
        }
        free(p);
        bad = compare_output(k, outputs[k], want, a, &ea, &er);
        sc_tensor_free(want);
        if (bad < 0)
            return -1;
        if (bad > 0) {
            differ++;
            printf("expect out_%zu: %ld of %zu elements differ (max abs "
                   "error %.3g, max rel error %.3g; rtol %g, atol %g)\n",
                   k, bad, sc_tensor_numel(outputs[k]), ea, er, a->rtol,
                   a->atol);
        }
    }
    printf("expect %s: %s (rtol %g, atol %g)\n", a->expect_dir,
           differ ? "outputs differ" : "every output agrees", a->rtol,
           a->atol);
    return differ ? 0 : 1;
}

/* One line on stderr when the graph names devices other than the CPU. */
static void note_devices(const sc_graph *g)
{
    sc_device d;
    size_t n = sc_interp_foreign_devices(g, &d);
    if (n == 0)
        return;
    if (d.index >= 0)
        cli_noticef("note: the graph names device %s:%d (%zu "
                    "node%s); running on the CPU", sc_device_type_name(d.type),
                    d.index, n, n == 1 ? "" : "s");
    else
        cli_noticef("note: the graph names device %s (%zu "
                    "node%s); running on the CPU", sc_device_type_name(d.type),
                    n, n == 1 ? "" : "s");
}

int cli_cmd_run(int argc, char **argv)
{
    run_args a = {0};
    sc_ctx *ctx = NULL;
    sc_graph *g = NULL, *unused;
    sc_symmap *sizes = NULL, *binding = NULL;
    sc_tensor **inputs = NULL, **outputs = NULL;
    sc_interp_options io;
    sc_interp_stats st;
    sc_error err;
    cli_load load;
    size_t np = 0, no = 0, k;
    int rc;

    ctx = sc_ctx_new();
    if (!ctx) {
        cli_errorf("out of memory");
        return CLI_EXIT_INPUT;
    }
    rc = parse_args(ctx, argc, argv, &a);
    if (rc != CLI_PARSED)
        goto done;
    rc = CLI_EXIT_INPUT;
    a.sizes_text = a.sizes.text;
    sizes = sc_symmap_new(ctx);
    binding = sc_symmap_new(ctx);
    if (!sizes || !binding) {
        cli_errorf("out of memory");
        goto done;
    }
    if (a.sizes_text &&
        cli_parse_bindings(ctx, a.sizes_text, sizes, &err) != SC_OK) {
        rc = cli_usage_error("run", "--sizes: %s", err.message);
        goto done;
    }
    cli_load_init(&load, "run");
    load.plain_path = true;
    load.sizes_text = a.sizes_text;
    load.hints = &a.hints;
    if ((rc = cli_load_graph_reading(ctx, a.file, &load, &a.reading, &g,
                                     &unused)) != 0)
        goto done;
    rc = CLI_EXIT_INPUT;
    if (a.sizes_text && !check_sizes(g, sizes))
        goto done;
    np = sc_graph_placeholder_count(g);
    no = sc_graph_output_count(g);
    inputs = calloc(np + 1, sizeof *inputs);
    outputs = calloc(no + 1, sizeof *outputs);
    if (!inputs || !outputs) {
        cli_errorf("out of memory");
        goto done;
    }
    if (sc_interp_preflight(g, &err) != SC_OK) {
        cli_report(&err);
        goto done;
    }
    if (a.save_dir && !make_dir(a.save_dir))
        goto done;
    note_devices(g);
    if (!make_inputs(g, &a, sizes, binding, inputs))
        goto done;

    sc_interp_options_init(&io);
    io.seed = a.seed;
    io.sizes = sizes;
    if (sc_graph_tangent_count(g) > 0 && sc_graph_fwd_output_count(g) > 0)
        io.boundary = SC_INTERP_BOUNDARY_FORWARD;
    cli_progress_phase("running the graph");
    if (sc_interp_run(g, inputs, &io, outputs, &st, &err) != SC_OK) {
        cli_report(&err);
        goto done;
    }
    cli_phasef("ran the graph: %zu nodes", sc_graph_node_count(g));
    cli_progress_done();
    if (a.inputs_dir)
        bind_from_inputs(g, inputs, binding);
    if (!print_run(g, &a, sizes, binding, outputs, &st))
        goto done;
    if (a.save_dir && !save_outputs(a.save_dir, no, outputs))
        goto done;
    if (a.expect_dir) {
        int e = expect_outputs(&a, no, outputs);
        if (e < 0)
            goto done;
        if (e == 0) {
            rc = CLI_EXIT_CHECK; /* the run worked; the comparison failed */
            goto done;
        }
    }
    if (fflush(stdout) != 0) {
        cli_errorf("cannot write the output");
        goto done;
    }
    rc = CLI_EXIT_OK;
done:
    if (inputs)
        for (k = 0; k < np; k++)
            sc_tensor_free(inputs[k]);
    if (outputs)
        for (k = 0; k < no; k++)
            sc_tensor_free(outputs[k]);
    free(inputs);
    free(outputs);
    sc_graph_free(g);
    sc_symmap_free(sizes);
    sc_symmap_free(binding);
    cli_reading_free(&a.reading);
    cli_hints_free(&a.hints);
    sc_ctx_free(ctx);
    cli_list_free(&a.sizes);
    return rc;
}

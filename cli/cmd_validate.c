/* symcut validate — check that a forward and a backward graph compute
 * exactly what their joint graph computes.
 *
 *   symcut validate GRAPH [--forward]
 *                   [--fw FILE --bw FILE | --policy P [--hint ...]
 *                    [--rule-off NAME] [--max-dist-from-bw N] ...]
 *                   [--sizes s0=17,...] [--seed N] [--saved-bytes N] */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>
#include <symcut/interp.h>
#include <symcut/partition.h>

#include "cli/cli.h"
#include "cli/progress.h"
#include "cli/load.h"

static void usage(FILE *out)
{
    fputs("Usage: symcut validate GRAPH [--forward]\n"
          "                       [--fw FILE --bw FILE | --policy P]\n"
          "                       [--hint s0=8,...] [--rule-off NAME]\n"
          "                       [--aggressive-recomputation]\n"
          "                       [--max-dist-from-bw N] [--long-chain-limit N]\n"
          "                       [--unbacked-fallback N] [--sizes s0=17,...]\n"
          "                       [--seed N] [--saved-bytes N]\n"
          "\n"
          "Validate a partition of the joint graph GRAPH into a forward graph\n"
          "(primals -> forward outputs, then the saved values) and a backward\n"
          "graph (saved values, then tangents -> one gradient per primal),\n"
          "given as files or made by 'symcut partition' with the policy P:\n"
          "draw random inputs, run the joint graph, the forward graph and the\n"
          "backward graph with symcut's CPU kernels, and compare every forward\n"
          "output, every gradient and every mutated input bit for bit.\n"
          "Prints PASS or FAIL with the first difference.\n"
          "\n"
          "Options:\n"
          "  --forward           GRAPH is a forward graph: build its joint\n"
          "                      graph first (as 'symcut joint' does)\n"
          "  --fw FILE           the forward graph\n"
          "  --bw FILE           the backward graph\n"
          "  --policy P          without --fw/--bw: partition GRAPH with P\n"
          "                      (pytorch, pytorch-1.13, exact; default\n"
          "                      pytorch) and validate its graphs; its saved\n"
          "                      bytes at the sizes are the prediction\n"
          "  --hint s0=8,...     hints the partitioner weighs with (default:\n"
          "                      the graph's, else --sizes); repeatable\n"
          "  The partitioner's ban-rule options, as for 'symcut partition'\n"
          "  (without --fw/--bw):\n",
          out);
    cli_partition_rules_help(out);
    fputs("  --sizes s0=17,...   values of the symbols to run at (default:\n"
          "                      the --hint values, else the graph's\n"
          "                      hints); repeatable, a later value of a\n"
          "                      symbol replaces an earlier one\n"
          "  --seed N            seed of the inputs and random ops (default 0)\n"
          "  --saved-bytes N     the predicted bytes of the saved tensors;\n"
          "                      a different measurement fails\n"
          "\n"
          "Exit status: 0 PASS; 1 bad command line; 2 bad input, or an error\n"
          "reading or writing (standard output included); 3 FAIL.\n",
          out);
}

static const char *kind_name(sc_validate_kind k)
{
    switch (k) {
    case SC_VALIDATE_OK: return "ok";
    case SC_VALIDATE_STRUCTURE: return "structure";
    case SC_VALIDATE_RUN_ERROR: return "run error";
    case SC_VALIDATE_FORWARD_OUTPUT: return "forward output";
    case SC_VALIDATE_GRADIENT: return "gradient";
    case SC_VALIDATE_MUTATED_INPUT: return "mutated input";
    case SC_VALIDATE_SAVED_BYTES: return "saved bytes";
    }
    return "?";
}

/* Set the hints joint is partitioned at: the hints given, and for a
 * symbol without a hint its size (an unbacked symbol keeps it as its
 * example value in the environment).  Then partition joint with the
 * policy. */
static sc_status partition(sc_graph *joint, const sc_partition_options *base,
                           const sc_symmap *hints, const sc_symmap *sizes,
                           sc_partition **out, sc_error *err)
{
    size_t ns = sc_graph_symbols(joint, NULL, 0), j;
    sc_expr **syms = calloc(ns + 1, sizeof *syms);
    sc_status status = SC_OK;

    if (!syms) {
        err->code = SC_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "out of memory");
        return SC_ERR_NOMEM;
    }
    ns = sc_graph_symbols(joint, syms, ns);
    for (j = 0; j < ns && status == SC_OK; j++) {
        sc_expr *e = sc_symmap_get(hints, syms[j]);
        int64_t v;
        if (!e && !sc_graph_get_hint(joint, syms[j], NULL))
            e = sc_symmap_get(sizes, syms[j]);
        if (e && sc_expr_value_si(e, &v))
            status = sc_graph_set_hint(joint, syms[j], v, err);
    }
    free(syms);
    if (status == SC_OK)
        status = sc_partition_run(joint, base, out, err);
    return status;
}

typedef struct validate_args {
    const char *file, *fw_file, *bw_file;
    cli_list sizes;
    cli_hints hints;
    bool forward, policy_given, have_saved, hint_given;
    uint64_t seed, saved;
    sc_partition_options popts;
    cli_rules rules;
    cli_reading reading;
} validate_args;

static int parse_args(sc_ctx *ctx, int argc, char **argv, validate_args *a)
{
    const cli_opt opts[] = {
        CLI_PARTITION_RULE_OPTIONS(&a->rules),
        {.name = "--forward", .kind = CLI_OPT_FLAG, .dest = &a->forward},
        {.name = "--fw", .kind = CLI_OPT_TEXT, .dest = &a->fw_file},
        {.name = "--bw", .kind = CLI_OPT_TEXT, .dest = &a->bw_file},
        {.name = "--sizes", .kind = CLI_OPT_LIST, .dest = &a->sizes},
        {.name = "--seed", .kind = CLI_OPT_UINT, .dest = &a->seed,
         .max = UINT64_MAX, .bad = "bad seed '%s'"},
        {.name = "--saved-bytes", .kind = CLI_OPT_UINT, .dest = &a->saved,
         .max = INT64_MAX, .bad = "bad byte count '%s'",
         .seen = &a->have_saved},
        {.name = "--policy", .kind = CLI_OPT_CALL, .dest = &a->popts.policy,
         .fn = cli_policy_option, .bad = "unknown policy '%s'",
         .seen = &a->policy_given},
        {.name = "--hint", .kind = CLI_OPT_HINTS, .dest = &a->hints,
         .seen = &a->hint_given},
        CLI_READING_OPTIONS(&a->reading),
        CLI_READING_NFWD_OPTION(&a->reading),
    };
    const cli_syntax syn = {.cmd = "validate", .usage = usage, .opts = opts,
                            .nopts = CLI_NOPTS(opts), .ctx = ctx,
                            .needs_value = "'%s' needs a value",
                            .max_args = 1,
                            .too_many = "more than one joint graph"};
    cli_args args;
    int rc;

    sc_partition_options_init(&a->popts);
    a->rules.opts = &a->popts;
    rc = cli_parse_options(&syn, argc, argv, 1, &args);
    if (rc != CLI_PARSED)
        return rc;
    if (!args.nargs)
        return cli_usage_error("validate", "no joint graph given");
    a->file = args.args[0];
    if (!a->fw_file != !a->bw_file)
        return cli_usage_error("validate",
                               "give both the forward and the backward graph "
                               "(--fw FILE --bw FILE), or neither");
    if (a->fw_file && (a->policy_given || a->hint_given || a->rules.any))
        return cli_usage_error("validate",
                               "%s applies when validate partitions the "
                               "graph: not with --fw/--bw",
                               a->policy_given ? "--policy"
                               : a->hint_given ? "--hint"
                                               : a->rules.any);
    if (cli_check_partition_rules("validate", &a->rules) != 0)
        return CLI_EXIT_USAGE;
    return CLI_PARSED;
}

/* The forward and backward graphs: read from --fw/--bw, or made by the
 * partitioner (*part).  0 or the exit status after printing the error. */
static int split(sc_ctx *ctx, const validate_args *a, sc_graph *joint,
                 const sc_symmap *hints, const sc_symmap *sizes,
                 sc_graph **fw, sc_graph **bw, sc_partition **part,
                 const sc_graph **fwp, const sc_graph **bwp)
{
    sc_graph *unused;
    sc_error err;
    cli_load load;
    int rc;

    if (!a->fw_file) {
        cli_progress_phase("partitioning the joint graph");
        if (partition(joint, &a->popts, hints, sizes, part, &err) != SC_OK) {
            cli_report(&err);
            return CLI_EXIT_INPUT;
        }
        *fwp = sc_partition_forward(*part);
        *bwp = sc_partition_backward(*part);
        cli_phasef("partitioned the joint graph: forward %zu nodes, "
                   "backward %zu nodes",
                   sc_graph_node_count(*fwp), sc_graph_node_count(*bwp));
        return 0;
    }
    cli_load_init(&load, "validate");
    load.plain_path = true;
    if ((rc = cli_load_graph(ctx, a->fw_file, &load, fw, &unused)) != 0)
        return rc;
    load.num_fwd_outputs = 0;
    if ((rc = cli_load_graph(ctx, a->bw_file, &load, bw, &unused)) != 0)
        return rc;
    *fwp = *fw;
    *bwp = *bw;
    return 0;
}

static void print_report(const validate_args *a, const sc_graph *joint,
                         const sc_partition *part, const sc_symmap *binding,
                         const sc_validate_report *rep)
{
    size_t ns = sc_graph_symbols(joint, NULL, 0), j;
    sc_expr **syms;

    if (a->forward)
        printf("joint graph built from the forward graph %s\n", a->file);
    if (a->fw_file)
        printf("validate %s (forward %s, backward %s), seed %llu\n", a->file,
               a->fw_file, a->bw_file, (unsigned long long)a->seed);
    else
        printf("validate %s (partitioned with policy %s: %zu saved tensors, "
               "%zu recomputed nodes), seed %llu\n",
               a->file, sc_partition_policy_name(a->popts.policy),
               sc_partition_saved_tensor_count(part),
               sc_partition_recomputed_count(part),
               (unsigned long long)a->seed);
    syms = calloc(ns + 1, sizeof *syms);
    if (ns && syms) {
        ns = sc_graph_symbols(joint, syms, ns);
        printf("sizes:");
        for (j = 0; j < ns; j++) {
            int64_t v;
            sc_expr *e = sc_symmap_get(binding, syms[j]);
            if (e && sc_expr_value_si(e, &v))
                printf(" %s=%lld", sc_expr_symbol_name(syms[j]),
                       (long long)v);
        }
        printf("\n");
    }
    free(syms);
    if (rep->kind != SC_VALIDATE_STRUCTURE &&
        rep->kind != SC_VALIDATE_RUN_ERROR) {
        printf("saved: %zu values, %zu bytes", rep->saved_count,
               rep->saved_bytes);
        if (rep->predicted_saved_bytes >= 0)
            printf(" (predicted %lld)", (long long)rep->predicted_saved_bytes);
        printf("\n");
        printf("peak memory: joint %zu bytes, forward %zu, backward %zu\n",
               rep->joint_stats.peak_bytes, rep->fw_stats.peak_bytes,
               rep->bw_stats.peak_bytes);
        printf("compared: %zu values, %zu differ\n", rep->compared,
               rep->mismatches);
    }
    if (rep->passed)
        printf("PASS\n");
    else
        printf("FAIL (%s): %s\n", kind_name(rep->kind), rep->message);
    fflush(stdout);
}

/* The files validate reads must not be directories: 0, or the exit
 * status after saying so. */
static int check_inputs(const validate_args *a)
{
    const char *files[3] = {a->file, a->fw_file, a->bw_file};
    sc_error err;
    size_t i;

    for (i = 0; i < 3; i++)
        if (files[i] && cli_check_input_file(files[i], &err) != SC_OK) {
            cli_report(&err);
            return CLI_EXIT_INPUT;
        }
    return 0;
}

int cli_cmd_validate(int argc, char **argv)
{
    validate_args a = {0};
    sc_partition *part = NULL;
    const sc_graph *fwp, *bwp;
    sc_ctx *ctx = NULL;
    sc_graph *joint = NULL, *fw = NULL, *bw = NULL, *fwd_graph = NULL;
    sc_symmap *sizes = NULL, *binding = NULL, *hints = NULL;
    sc_validate_options vo;
    sc_validate_report rep;
    sc_error err;
    cli_load load;
    size_t i;
    int rc = CLI_EXIT_INPUT;

    ctx = sc_ctx_new();
    sizes = ctx ? sc_symmap_new(ctx) : NULL;
    binding = ctx ? sc_symmap_new(ctx) : NULL;
    hints = ctx ? sc_symmap_new(ctx) : NULL;
    if (!ctx || !sizes || !binding || !hints) {
        cli_errorf("out of memory");
        goto done;
    }
    if ((rc = parse_args(ctx, argc, argv, &a)) != CLI_PARSED ||
        (rc = check_inputs(&a)) != 0)
        goto done;
    if (a.sizes.text &&
        cli_parse_bindings(ctx, a.sizes.text, sizes, &err) != SC_OK) {
        rc = cli_usage_error("validate", "--sizes: %s", err.message);
        goto done;
    }
    /* --hint values are also the default sizes to run at. */
    for (i = 0; i < a.hints.n; i++)
        if (sc_symmap_set_si(hints, a.hints.syms[i], a.hints.values[i],
                             &err) != SC_OK ||
            (!sc_symmap_get(sizes, a.hints.syms[i]) &&
             sc_symmap_set_si(sizes, a.hints.syms[i], a.hints.values[i],
                              &err) != SC_OK)) {
            cli_report(&err);
            rc = CLI_EXIT_INPUT;
            goto done;
        }
    cli_load_init(&load, "validate");
    load.plain_path = true;
    load.sizes_text = a.sizes.text;
    load.forward = a.forward;
    if ((rc = cli_load_graph_reading(ctx, a.file, &load, &a.reading, &joint,
                                     &fwd_graph)) != 0 ||
        (a.hints.n &&
         (rc = cli_check_hint_names(a.forward ? fwd_graph : joint, "validate",
                                    &a.hints)) != 0) ||
        (rc = split(ctx, &a, joint, hints, sizes, &fw, &bw, &part, &fwp,
                    &bwp)) != 0)
        goto done;
    rc = CLI_EXIT_INPUT;
    if (sc_interp_bind_sizes(joint, sizes, binding, &err) != SC_OK) {
        cli_report(&err);
        goto done;
    }
    if (part && !a.have_saved) {
        sc_expr *e = sc_partition_saved_bytes_expr(part);
        int64_t v;
        if (e && sc_expr_eval_si(ctx, e, binding, &v, &err) == SC_OK) {
            a.saved = (uint64_t)v;
            a.have_saved = true;
        }
    }
    sc_validate_options_init(&vo);
    vo.seed = a.seed;
    vo.sizes = sizes;
    if (a.have_saved)
        vo.predicted_saved_bytes = (int64_t)a.saved;
    cli_progress_phase("validating: running the joint, forward and "
                       "backward graphs");
    if (sc_validate_run(joint, fwp, bwp, &vo, &rep, &err) != SC_OK) {
        cli_report(&err);
        goto done;
    }
    cli_phasef("ran the joint, forward and backward graphs: %zu values "
               "compared", rep.compared);
    cli_progress_done();
    print_report(&a, joint, part, binding, &rep);
    rc = rep.passed ? CLI_EXIT_OK : CLI_EXIT_CHECK;
done:
    cli_list_free(&a.sizes);
    cli_hints_free(&a.hints);
    sc_partition_free(part);
    sc_symmap_free(hints);
    sc_graph_free(joint);
    sc_graph_free(fwd_graph);
    sc_graph_free(fw);
    sc_graph_free(bw);
    sc_symmap_free(sizes);
    sc_symmap_free(binding);
    cli_reading_free(&a.reading);
    sc_ctx_free(ctx);
    return rc;
}

/* symcut validate — check that a forward and a backward graph compute
 * exactly what their joint graph computes.
 *
 *   symcut validate GRAPH [--forward]
 *                   [--fw FILE --bw FILE | --policy P [--hint ...]
 *                    [--rule-off NAME] [--max-dist-from-bw N] ...]
 *                   [--sizes s0=17,...] [--seed N] [--saved-bytes N] */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>
#include <symcut/kernels.h>
#include <symcut/partition.h>

#include "cli/cli.h"

/* cli/cmd_joint.c */

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
          "                      the graph's, else --sizes)\n"
          "  The partitioner's ban-rule options, as for 'symcut partition'\n"
          "  (without --fw/--bw):\n",
          out);
    cli_partition_rules_help(out);
    fputs("  --sizes s0=17,...   values of the symbols to run at (default:\n"
          "                      their hints)\n"
          "  --seed N            seed of the inputs and random ops (default 0)\n"
          "  --saved-bytes N     the predicted bytes of the saved tensors;\n"
          "                      a different measurement fails\n"
          "\n"
          "Exit status: 0 PASS; 1 bad command line; 2 FAIL or bad input.\n",
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

/* Partition joint with the policy, weighing at the hints given (else the
 * graph's hints, else the sizes). */
static sc_status partition(const sc_graph *joint,
                           const sc_partition_options *base,
                           const sc_symmap *hints, const sc_symmap *sizes,
                           sc_partition **out, sc_error *err)
{
    sc_partition_options po = *base;
    size_t ns = sc_graph_symbols(joint, NULL, 0), j, n = 0;
    sc_expr **syms = calloc(ns + 1, sizeof *syms);
    int64_t *vals = calloc(ns + 1, sizeof *vals);
    sc_status status;

    if (!syms || !vals) {
        free(syms);
        free(vals);
        err->code = SC_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "out of memory");
        return SC_ERR_NOMEM;
    }
    ns = sc_graph_symbols(joint, syms, ns);
    for (j = 0; j < ns; j++) {
        sc_expr *e = sc_symmap_get(hints, syms[j]);
        int64_t v, h;
        if (!e && !sc_graph_get_hint(joint, syms[j], &h))
            e = sc_symmap_get(sizes, syms[j]);
        if (e && sc_expr_get_si(e, &v)) {
            syms[n] = syms[j];
            vals[n++] = v;
        }
    }
    po.nhints = n;
    po.hint_symbols = syms;
    po.hint_values = vals;
    status = sc_partition_run(joint, &po, out, err);
    free(syms);
    free(vals);
    return status;
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

int cli_cmd_validate(int argc, char **argv)
{
    const char *file = NULL, *fw_file = NULL, *bw_file = NULL,
               *sizes_text = NULL, *policy_text = NULL, *hint_text = NULL;
    sc_partition_options popts;
    const char *rule_given = NULL, *rule_any = NULL;
    sc_partition *part = NULL;
    const sc_graph *fwp, *bwp;
    sc_symmap *hints = NULL;
    unsigned long long seed = 0, saved = 0;
    bool have_saved = false;
    sc_ctx *ctx = NULL;
    sc_graph *joint = NULL, *fw = NULL, *bw = NULL, *fwd_graph = NULL;
    bool forward = false;
    sc_symmap *sizes = NULL, *binding = NULL;
    sc_graph_read_options ro;
    sc_validate_options vo;
    sc_validate_report rep;
    sc_error err;
    int rc = CLI_EXIT_INPUT, i;

    sc_partition_options_init(&popts);
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = cli_partition_rule_option("validate", argc, argv, &i, &popts,
                                          &rule_given);
        if (r < 0)
            return CLI_EXIT_USAGE;
        if (r > 0) {
            if (!rule_any)
                rule_any = a;
            continue;
        }
        if (cli_is_help(a)) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if (strcmp(a, "--forward") == 0) {
            forward = true;
            continue;
        }
        if (strcmp(a, "--fw") == 0 || strcmp(a, "--bw") == 0 ||
            strcmp(a, "--sizes") == 0 || strcmp(a, "--seed") == 0 ||
            strcmp(a, "--saved-bytes") == 0 || strcmp(a, "--policy") == 0 ||
            strcmp(a, "--hint") == 0) {
            const char *v;
            if (i + 1 >= argc)
                return cli_usage_error("validate", "'%s' needs a value", a);
            v = argv[++i];
            if (strcmp(a, "--fw") == 0)
                fw_file = v;
            else if (strcmp(a, "--bw") == 0)
                bw_file = v;
            else if (strcmp(a, "--sizes") == 0)
                sizes_text = v;
            else if (strcmp(a, "--hint") == 0)
                hint_text = v;
            else if (strcmp(a, "--policy") == 0) {
                policy_text = v;
                if (!sc_partition_policy_from_name(v, &popts.policy))
                    return cli_usage_error("validate", "unknown policy '%s'",
                                           v);
            } else if (strcmp(a, "--seed") == 0) {
                if (!parse_u64(v, &seed))
                    return cli_usage_error("validate", "bad seed '%s'", v);
            } else {
                if (!parse_u64(v, &saved) || saved > INT64_MAX)
                    return cli_usage_error("validate", "bad byte count '%s'",
                                           v);
                have_saved = true;
            }
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("validate", "unknown option '%s'", a);
        } else if (file) {
            return cli_usage_error("validate", "more than one joint graph");
        } else {
            file = a;
        }
    }
    if (!file)
        return cli_usage_error("validate", "no joint graph given");
    if (!fw_file != !bw_file)
        return cli_usage_error("validate",
                               "give both the forward and the backward graph "
                               "(--fw FILE --bw FILE), or neither");
    if (fw_file && (policy_text || hint_text || rule_any))
        return cli_usage_error("validate",
                               "%s applies when validate partitions the "
                               "graph: not with --fw/--bw",
                               policy_text ? "--policy"
                               : hint_text ? "--hint"
                                           : rule_any);
    if (cli_check_partition_rules("validate", &popts, rule_given) != 0)
        return CLI_EXIT_USAGE;

    ctx = sc_ctx_new();
    sizes = ctx ? sc_symmap_new(ctx) : NULL;
    binding = ctx ? sc_symmap_new(ctx) : NULL;
    hints = ctx ? sc_symmap_new(ctx) : NULL;
    if (!ctx || !sizes || !binding || !hints) {
        cli_errorf("out of memory");
        goto done;
    }
    if ((sizes_text &&
         cli_parse_bindings(ctx, sizes_text, sizes, &err) != SC_OK) ||
        (hint_text && cli_parse_bindings(ctx, hint_text, hints, &err) !=
                          SC_OK)) {
        sc_symmap_free(sizes);
        sc_symmap_free(binding);
        sc_symmap_free(hints);
        sc_ctx_free(ctx);
        return cli_usage_error("validate", "%s: %s",
                               sizes_text ? "--sizes/--hint" : "--hint",
                               err.message);
    }
    if (sc_graph_read_file(ctx, file, NULL, &joint, &err) != SC_OK) {
        cli_report(&err);
        goto done;
    }
    if ((sizes_text &&
         cli_check_symbol_names(joint, "validate", "--sizes", sizes_text)) ||
        (hint_text &&
         cli_check_symbol_names(joint, "validate", "--hint", hint_text))) {
        rc = CLI_EXIT_USAGE;
        goto done;
    }
    if (forward) {
        fwd_graph = joint;
        joint = cli_joint_of_forward(fwd_graph, file, NULL);
        if (!joint)
            goto done;
    }
    if (fw_file) {
        if (sc_graph_read_file(ctx, fw_file, NULL, &fw, &err) != SC_OK) {
            cli_report(&err);
            goto done;
        }
        sc_graph_read_options_init(&ro);
        ro.num_fwd_outputs = 0;
        if (sc_graph_read_file(ctx, bw_file, &ro, &bw, &err) != SC_OK) {
            cli_report(&err);
            goto done;
        }
        fwp = fw;
        bwp = bw;
    } else {
        if (partition(joint, &popts, hints, sizes, &part, &err) != SC_OK) {
            cli_report(&err);
            goto done;
        }
        fwp = sc_partition_forward(part);
        bwp = sc_partition_backward(part);
    }
    if (sc_interp_bind_sizes(joint, sizes, binding, &err) != SC_OK) {
        cli_report(&err);
        goto done;
    }
    if (part && !have_saved) {
        sc_expr *e = sc_partition_saved_bytes_expr(part);
        int64_t v;
        if (e && sc_expr_eval_si(ctx, e, binding, &v, &err) == SC_OK) {
            saved = (unsigned long long)v;
            have_saved = true;
        }
    }

    sc_validate_options_init(&vo);
    vo.seed = seed;
    vo.sizes = sizes;
    if (have_saved)
        vo.predicted_saved_bytes = (int64_t)saved;
    if (sc_validate(joint, fwp, bwp, &vo, &rep, &err) != SC_OK) {
        cli_report(&err);
        goto done;
    }

    if (forward)
        printf("joint graph built from the forward graph %s\n", file);
    if (fw_file)
        printf("validate %s (forward %s, backward %s), seed %llu\n", file,
               fw_file, bw_file, seed);
    else
        printf("validate %s (partitioned with policy %s: %zu saved tensors, "
               "%zu recomputed nodes), seed %llu\n",
               file, sc_partition_policy_name(popts.policy),
               sc_partition_num_saved_tensors(part),
               sc_partition_num_recomputed(part), seed);
    {
        size_t ns = sc_graph_symbols(joint, NULL, 0), j;
        sc_expr **syms = calloc(ns + 1, sizeof *syms);
        if (ns && syms) {
            ns = sc_graph_symbols(joint, syms, ns);
            printf("sizes:");
            for (j = 0; j < ns; j++) {
                int64_t v;
                sc_expr *e = sc_symmap_get(binding, syms[j]);
                if (e && sc_expr_get_si(e, &v))
                    printf(" %s=%lld", sc_expr_symbol_name(syms[j]),
                           (long long)v);
            }
            printf("\n");
        }
        free(syms);
    }
    if (rep.kind != SC_VALIDATE_STRUCTURE &&
        rep.kind != SC_VALIDATE_RUN_ERROR) {
        printf("saved: %zu values, %zu bytes", rep.saved_count,
               rep.saved_bytes);
        if (rep.predicted_saved_bytes >= 0)
            printf(" (predicted %lld)", (long long)rep.predicted_saved_bytes);
        printf("\n");
        printf("peak memory: joint %zu bytes, forward %zu, backward %zu\n",
               rep.joint_stats.peak_bytes, rep.fw_stats.peak_bytes,
               rep.bw_stats.peak_bytes);
        printf("compared: %zu values, %zu differ\n", rep.compared,
               rep.mismatches);
    }
    if (rep.passed) {
        printf("PASS\n");
        rc = CLI_EXIT_OK;
    } else {
        printf("FAIL (%s): %s\n", kind_name(rep.kind), rep.message);
        rc = CLI_EXIT_INPUT;
    }
    fflush(stdout);
done:
    sc_partition_free(part);
    sc_symmap_free(hints);
    sc_graph_free(joint);
    sc_graph_free(fwd_graph);
    sc_graph_free(fw);
    sc_graph_free(bw);
    sc_symmap_free(sizes);
    sc_symmap_free(binding);
    sc_ctx_free(ctx);
    return rc;
}

/* symcut partition — split a joint graph into a forward and a backward
 * graph with the min-cut partitioner and report the decision.
 *
 *   symcut partition GRAPH [--forward] [--policy P] [--hint s0=8,...]
 *                    [--params N] [--num-fwd-outputs N] [--tag NODE=TAG] [--no-cse]
 *                    [--rule-off NAME] [--aggressive-recomputation]
 *                    [--max-dist-from-bw N] [--long-chain-limit N]
 *                    [--unbacked-fallback N]
 *                    [--fw FILE] [--bw FILE] [--format text|json|dot]
 *                    [--no-timings] [-o FILE]
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

#include "cli/cli.h"

/* cli/cmd_joint.c */

static void usage(FILE *out)
{
    fputs("Usage: symcut partition GRAPH [--forward] [--policy P]\n"
          "                        [--hint s0=8,...] [--params N]\n"
          "                        [--num-fwd-outputs N]\n"
          "                        [--tag NODE=TAG] [--no-cse]\n"
          "                        [--rule-off NAME] [--aggressive-recomputation]\n"
          "                        [--max-dist-from-bw N] [--long-chain-limit N]\n"
          "                        [--unbacked-fallback N]\n"
          "                        [--fw FILE] [--bw FILE]\n"
          "                        [--format text|json|dot] [--no-timings]\n"
          "                        [-o FILE]\n"
          "\n"
          "Partition a joint forward/backward graph (PyTorch's text; '-' is\n"
          "standard input) with the min-cut partitioner: choose what the\n"
          "forward saves and what the backward recomputes, and report it.\n"
          "\n"
          "Options:\n"
          "  --forward             GRAPH is a forward graph: build its joint\n"
          "                        graph first (as 'symcut joint' does)\n"
          "  --policy P            pytorch (current PyTorch rules, default),\n"
          "                        pytorch-1.13 (PyTorch 1.13's functorch\n"
          "                        partitioner, exactly), exact (fewest saved\n"
          "                        bytes at the hints)\n"
          "  --hint s0=8,s1=64     hints of symbols (override '# symcut: hint'\n"
          "                        lines); repeatable\n"
          "  --params N            the first N primals are parameters (free to\n"
          "                        save); default '# symcut: params N' or 0\n"
          "  --num-fwd-outputs N   the number of forward outputs\n"
          "  --tag NODE=TAG        tag a node must_save, must_recompute or\n"
          "                        prefer_recompute; repeatable\n"
          "  --no-cse              skip common-subexpression elimination\n",
          out);
    cli_partition_rules_help(out);
    fputs("  --fw FILE, --bw FILE  write the forward / backward graph\n"
          "  --format F            the report: text (default), json, dot\n"
          "  --no-timings          leave the timings out of the report\n"
          "  -o FILE               write the report to FILE (atomically)\n"
          "\n"
          "Exit status: 0 success; 1 bad command line; 2 the graph could not\n"
          "be read or partitioned.\n",
          out);
}

typedef struct growable {
    void *items;
    size_t n, cap;
} growable;

static bool grow(growable *g, size_t elem)
{
    if (g->n == g->cap) {
        size_t nc = g->cap ? 2 * g->cap : 8;
        void *p = realloc(g->items, nc * elem);
        if (!p)
            return false;
        g->items = p;
        g->cap = nc;
    }
    return true;
}

static bool parse_count(const char *s, long *out)
{
    char *endp;
    errno = 0;
    *out = strtol(s, &endp, 10);
    return !(*endp || endp == s || errno || *out < 0);
}

int cli_cmd_partition(int argc, char **argv)
{
    const char *file = NULL, *out_path = NULL, *fw_path = NULL,
               *bw_path = NULL, *format = "text", *rule_given = NULL;
    long nfwd = -1, params = -1;
    growable tag_nodes = {0}, tags = {0};
    cli_hints hints = {0};
    sc_partition_options opts;
    sc_graph_read_options ropts;
    sc_ctx *ctx = NULL;
    sc_graph *g = NULL, *fwd = NULL;
    sc_partition *part = NULL;
    bool forward = false;
    sc_error err;
    unsigned rflags = 0;
    char msg[256], *report = NULL, *fw_text = NULL, *bw_text = NULL;
    size_t rlen = 0, fwlen = 0, bwlen = 0, k;
    int i, status = CLI_EXIT_USAGE;

    sc_partition_options_init(&opts);
    ctx = sc_ctx_new();
    if (!ctx) {
        cli_errorf("out of memory");
        return CLI_EXIT_INPUT;
    }
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = cli_partition_rule_option("partition", argc, argv, &i, &opts,
                                          &rule_given);
        if (r < 0)
            goto done;
        if (r > 0)
            continue;
        if (cli_is_help(a)) {
            usage(stdout);
            status = CLI_EXIT_OK;
            goto done;
        } else if (strcmp(a, "--forward") == 0) {
            forward = true;
        } else if (strcmp(a, "--no-cse") == 0) {
            opts.flags |= SC_PARTITION_NO_CSE;
        } else if (strcmp(a, "--no-timings") == 0) {
            rflags |= SC_PARTITION_REPORT_NO_TIMINGS;
        } else if (strcmp(a, "--policy") == 0 || strcmp(a, "--hint") == 0 ||
                   strcmp(a, "--params") == 0 ||
                   strcmp(a, "--num-fwd-outputs") == 0 ||
                   strcmp(a, "--fw") == 0 || strcmp(a, "--bw") == 0 ||
                   strcmp(a, "--format") == 0 || strcmp(a, "--tag") == 0 ||
                   strcmp(a, "-o") == 0) {
            const char *v;
            if (i + 1 >= argc) {
                status = cli_usage_error("partition", "%s needs a value", a);
                goto done;
            }
            v = argv[++i];
            if (strcmp(a, "--policy") == 0) {
                if (!sc_partition_policy_from_name(v, &opts.policy)) {
                    status = cli_usage_error("partition",
                                             "unknown policy '%s' (pytorch, "
                                             "pytorch-1.13, exact)",
                                             v);
                    goto done;
                }
            } else if (strcmp(a, "--hint") == 0) {
                if (!cli_parse_hints(ctx, v, &hints, msg, sizeof msg)) {
                    status = cli_usage_error("partition", "--hint: %s", msg);
                    goto done;
                }
            } else if (strcmp(a, "--params") == 0) {
                if (!parse_count(v, &params)) {
                    status = cli_usage_error("partition", "--params needs a "
                                             "non-negative integer");
                    goto done;
                }
            } else if (strcmp(a, "--num-fwd-outputs") == 0) {
                if (!parse_count(v, &nfwd)) {
                    status = cli_usage_error("partition", "--num-fwd-outputs "
                                             "needs a non-negative integer");
                    goto done;
                }
            } else if (strcmp(a, "--tag") == 0) {
                const char *eq = strchr(v, '=');
                sc_partition_tag t = SC_PARTITION_TAG_NONE;
                int j;
                for (j = 1; eq && j < SC_PARTITION_TAG_COUNT_; j++)
                    if (strcmp(eq + 1,
                               sc_partition_tag_name((sc_partition_tag)j)) ==
                        0)
                        t = (sc_partition_tag)j;
                if (!eq || eq == v || t == SC_PARTITION_TAG_NONE) {
                    status = cli_usage_error(
                        "partition", "--tag needs NODE=must_save, "
                                     "NODE=must_recompute or "
                                     "NODE=prefer_recompute");
                    goto done;
                }
                if (!grow(&tag_nodes, sizeof(char *)) ||
                    !grow(&tags, sizeof(sc_partition_tag))) {
                    cli_errorf("out of memory");
                    status = CLI_EXIT_INPUT;
                    goto done;
                }
                ((char **)tag_nodes.items)[tag_nodes.n] =
                    strndup(v, (size_t)(eq - v));
                if (!((char **)tag_nodes.items)[tag_nodes.n]) {
                    cli_errorf("out of memory");
                    status = CLI_EXIT_INPUT;
                    goto done;
                }
                tag_nodes.n++;
                ((sc_partition_tag *)tags.items)[tags.n++] = t;
            } else if (strcmp(a, "--fw") == 0) {
                fw_path = v;
            } else if (strcmp(a, "--bw") == 0) {
                bw_path = v;
            } else if (strcmp(a, "--format") == 0) {
                if (strcmp(v, "text") != 0 && strcmp(v, "json") != 0 &&
                    strcmp(v, "dot") != 0) {
                    status = cli_usage_error("partition",
                                             "unknown format '%s' (text, "
                                             "json, dot)",
                                             v);
                    goto done;
                }
                format = v;
            } else {
                out_path = v;
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            status = cli_usage_error("partition", "unknown option '%s'", a);
            goto done;
        } else if (file) {
            status = cli_usage_error("partition", "more than one GRAPH");
            goto done;
        } else {
            file = a;
        }
    }
    if (!file) {
        status = cli_usage_error("partition", "no GRAPH given");
        goto done;
    }
    if (cli_check_partition_rules("partition", &opts, rule_given) != 0)
        goto done;
    if (forward && nfwd >= 0) {
        status = cli_usage_error("partition", "--num-fwd-outputs is for a "
                                              "joint graph, not with "
                                              "--forward");
        goto done;
    }

    status = CLI_EXIT_INPUT;
    sc_graph_read_options_init(&ropts);
    ropts.num_fwd_outputs = nfwd;
    ropts.nhints = hints.n;
    ropts.hint_symbols = hints.syms;
    ropts.hint_values = hints.values;
    g = cli_read_graph(ctx, file, &ropts);
    if (!g)
        goto done;
    if (cli_check_hint_names(g, "partition", &hints) != 0) {
        status = CLI_EXIT_USAGE;
        goto done;
    }
    if (forward) {
        fwd = g;
        g = cli_joint_of_forward(fwd, file, NULL);
        if (!g)
            goto done;
    }
    opts.num_params = params;
    opts.ntags = tags.n;
    opts.tag_nodes = (const char *const *)tag_nodes.items;
    opts.tags = tags.items;
    if (!fw_path && !bw_path)
        opts.flags |= SC_PARTITION_NO_GRAPHS;
    if (sc_partition_run(g, &opts, &part, &err) != SC_OK) {
        cli_report(&err);
        goto done;
    }
    if ((strcmp(format, "json") == 0
             ? sc_partition_write_json(part, rflags, &report, &rlen, &err)
         : strcmp(format, "dot") == 0
             ? sc_partition_write_dot(part, rflags, &report, &rlen, &err)
             : sc_partition_write_text(part, rflags, &report, &rlen, &err)) !=
        SC_OK) {
        cli_report(&err);
        goto done;
    }
    if ((fw_path && sc_graph_write_text(sc_partition_forward(part), NULL,
                                        &fw_text, &fwlen, &err) != SC_OK) ||
        (bw_path && sc_graph_write_text(sc_partition_backward(part), NULL,
                                        &bw_text, &bwlen, &err) != SC_OK)) {
        cli_report(&err);
        goto done;
    }
    {
        /* all or nothing: the report's file, when it fails, takes the
         * graphs' files with it */
        const char *paths[3], *data[3];
        size_t lens[3], nf = 0;
        if (fw_path) {
            paths[nf] = fw_path;
            data[nf] = fw_text;
            lens[nf++] = fwlen;
        }
        if (bw_path) {
            paths[nf] = bw_path;
            data[nf] = bw_text;
            lens[nf++] = bwlen;
        }
        paths[nf] = out_path;
        data[nf] = report;
        lens[nf++] = rlen;
        if (cli_write_files(nf, paths, data, lens, &err) != SC_OK) {
            cli_report(&err);
            goto done;
        }
    }
    status = CLI_EXIT_OK;
done:
    free(report);
    free(fw_text);
    free(bw_text);
    cli_hints_free(&hints);
    for (k = 0; k < tag_nodes.n; k++)
        free(((char **)tag_nodes.items)[k]);
    free(tag_nodes.items);
    free(tags.items);
    sc_partition_free(part);
    sc_graph_free(g);
    sc_graph_free(fwd);
    sc_ctx_free(ctx);
    return status;
}

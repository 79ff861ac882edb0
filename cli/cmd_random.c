/* symcut random — print a random graph drawn from the op table.
 *
 *   symcut random [--seed S] [--nodes N] [--symbolic] [--forward]
 *                 [--features LIST] [-o OUT]
 *
 * The forward graph comes from sc_graph_new_random; without --forward it goes
 * through sc_graph_new_joint and the joint graph is printed.  Output goes to
 * OUT atomically, or to standard output.  doc/random.md. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>

#include "cli/cli.h"
#include "cli/progress.h"
#include "cli/write-graph.h"

static const struct {
    const char *name;
    unsigned bit;
} features[] = {
    {"broadcast", SC_RANDOM_BROADCAST},
    {"views", SC_RANDOM_VIEWS},
    {"multi_output", SC_RANDOM_MULTI_OUTPUT},
    {"random", SC_RANDOM_RANDOM_OPS},
    {"data_dependent", SC_RANDOM_DATA_DEPENDENT},
    {"reductions", SC_RANDOM_REDUCTIONS},
    {"matmul", SC_RANDOM_MATMUL},
    {"creation", SC_RANDOM_CREATION},
    {"symints", SC_RANDOM_SYMINTS},
    {"unused_inputs", SC_RANDOM_UNUSED_INPUTS},
    {"several_outputs", SC_RANDOM_SEVERAL_OUTPUTS},
    {"norms", SC_RANDOM_NORMS},
    {"join", SC_RANDOM_JOIN},
    {"all", SC_RANDOM_ALL},
};
#define NFEATURES (sizeof features / sizeof features[0])

static void usage(FILE *out)
{
    size_t i;
    fputs("Usage: symcut random [--seed S] [--nodes N] [--symbolic]\n"
          "                     [--forward] [--features LIST] [-o OUT]\n"
          "\n"
          "Draw a random forward graph from the op table (deterministic in\n"
          "the options) and print its joint forward/backward graph, or the\n"
          "forward graph itself, in PyTorch's print_readable text.\n"
          "\n"
          "Options:\n"
          "  --seed S          the seed (default 0)\n"
          "  --nodes N         call nodes to aim for (default 8)\n"
          "  --symbolic        symbolic sizes s0, s1, ... with hints\n"
          "  --forward         print the forward graph, not the joint graph\n"
          "  --features LIST   comma-separated op families (default all):\n"
          "                   ",
          out);
    {
        size_t col = 19;
        for (i = 0; i < NFEATURES; i++) {
            size_t n = strlen(features[i].name) + 1;
            if (col + n > 78) {
                fputs("\n                   ", out);
                col = 19;
            }
            fprintf(out, " %s", features[i].name);
            col += n;
        }
    }
    fputs("\n"
          "  -o OUT            write to OUT (atomically) instead of standard\n"
          "                    output\n"
          "  --progress        show the progress on standard error even when\n"
          "                    it is not a terminal (one line per tenth of\n"
          "                    each phase); --no-progress: never\n"
          "\n"
          "Exit status: 0 success; 1 bad command line; 2 the joint graph\n"
          "could not be built (an op without a derivative formula), or an\n"
          "error writing (standard output included).\n",
          out);
}

static bool parse_features(const char *text, unsigned *out)
{
    const char *p = text;
    unsigned bits = 0;
    while (*p) {
        size_t n = strcspn(p, ","), i;
        for (i = 0; i < NFEATURES; i++)
            if (strlen(features[i].name) == n &&
                strncmp(features[i].name, p, n) == 0)
                break;
        if (i == NFEATURES)
            return false;
        bits |= features[i].bit;
        p += n;
        if (*p == ',')
            p++;
    }
    if (!bits)
        return false;
    *out = bits;
    return true;
}

/* --features LIST into *(unsigned *)o->dest. */
static int features_option(const cli_syntax *syn, const cli_opt *o,
                           const char *value)
{
    if (!parse_features(value, o->dest))
        return cli_usage_error(syn->cmd, "bad --features '%s' (see --help)",
                               value);
    return 0;
}

#define MAX_EXCLUDED 64

/* The op named in sc_graph_new_joint's "node 'x': op NAME has no derivative
 * formula" (malloc'ed), or NULL. */
static char *failing_op(const char *msg)
{
    const char *p = strstr(msg, ": op ");
    size_t n;
    char *s;
    if (!p || !strstr(msg, "derivative"))
        return NULL;
    p += 5;
    n = strcspn(p, " ");
    if (n == 0 || !(s = malloc(n + 1)))
        return NULL;
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

typedef struct random_args {
    sc_graph_random_options ro;
    const char *out_path;
    bool forward;
} random_args;

static int parse_args(int argc, char **argv, random_args *a)
{
    uint64_t nodes;
    bool nodes_given = false;
    const cli_opt opts[] = {
        {.name = "--symbolic", .kind = CLI_OPT_FLAG, .dest = &a->ro.symbolic},
        {.name = "--forward", .kind = CLI_OPT_FLAG, .dest = &a->forward},
        {.name = "--seed", .kind = CLI_OPT_UINT, .dest = &a->ro.seed,
         .max = UINT64_MAX,
         .bad = "--seed must be a non-negative integer, not '%s'"},
        {.name = "--nodes", .kind = CLI_OPT_UINT, .dest = &nodes, .min = 1,
         .max = 10000000, .seen = &nodes_given,
         .bad = "--nodes must be an integer in 1..10000000, not '%s'"},
        {.name = "--features", .kind = CLI_OPT_CALL, .dest = &a->ro.features,
         .fn = features_option},
        {.short_name = "-o", .kind = CLI_OPT_TEXT, .dest = &a->out_path},
    };
    const cli_syntax syn = {.cmd = "random", .usage = usage, .opts = opts,
                            .nopts = CLI_NOPTS(opts),
                            .unknown = "unexpected argument '%s'",
                            .too_many = "unexpected argument '%s'"};
    cli_args args;
    int rc;

    sc_graph_random_options_init(&a->ro);
    rc = cli_parse_options(&syn, argc, argv, 1, &args);
    if (nodes_given)
        a->ro.nodes = (size_t)nodes;
    return rc;
}

int cli_cmd_random(int argc, char **argv)
{
    random_args a = {0};
    sc_joint_options jo;
    sc_ctx *ctx = NULL;
    sc_graph *fwd = NULL, *joint = NULL;
    sc_error err;
    size_t k;
    char *excluded[MAX_EXCLUDED + 1];
    size_t nexcl = 0;
    int rc = parse_args(argc, argv, &a);

    if (rc != CLI_PARSED)
        return rc;
    rc = CLI_EXIT_INPUT;
    ctx = sc_ctx_new();
    if (!ctx) {
        cli_errorf("out of memory");
        return CLI_EXIT_INPUT;
    }
    sc_joint_options_init(&jo);
    jo.progress = cli_progress;
    a.ro.progress = cli_progress;
    /* Without --forward: when the joint fails on an op without a
     * derivative formula, draw again (same seed) without that op. */
    for (;;) {
        if (sc_graph_new_random(ctx, &a.ro, &fwd, &err) != SC_OK) {
            cli_report(&err);
            goto done;
        }
        cli_phasef("drew the forward graph: %zu nodes",
                   sc_graph_node_count(fwd));
        if (a.forward || sc_graph_new_joint(fwd, &jo, &joint, &err) == SC_OK)
            break;
        if (err.code != SC_ERR_UNSUPPORTED || nexcl == MAX_EXCLUDED ||
            !(excluded[nexcl] = failing_op(err.message))) {
            cli_report(&err);
            goto done;
        }
        a.ro.exclude = (const char *const *)excluded;
        a.ro.nexclude = ++nexcl;
        sc_graph_free(fwd);
        fwd = NULL;
    }
    if (joint)
        cli_phasef("built the joint graph: %zu nodes",
                   sc_graph_node_count(joint));
    if (nexcl && cli_verbosity() >= 0) {
        cli_progress_clear();
        fprintf(stderr, "symcut: note: drawn without");
        for (k = 0; k < nexcl; k++)
            fprintf(stderr, " %s", excluded[k]);
        fprintf(stderr, " (no derivative formula)\n");
    }
    cli_progress_phase(a.forward ? "printing the forward graph"
                                 : "printing the joint graph");
    if (cli_write_graph(a.out_path, a.forward ? fwd : joint, NULL, &err) !=
        SC_OK) {
        cli_report(&err);
        goto done;
    }
    rc = CLI_EXIT_OK;
done:
    for (k = 0; k < nexcl; k++)
        free(excluded[k]);
    sc_graph_free(joint);
    sc_graph_free(fwd);
    sc_ctx_free(ctx);
    return rc;
}

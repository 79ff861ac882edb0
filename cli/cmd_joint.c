/* symcut joint — build the joint forward/backward graph of a forward graph
 * (sc_graph_new_joint) and print it in PyTorch's text.
 *
 *   symcut joint FWD_FILE [--no-grad NAME,...] [--hint s0=8,...] [-o FILE]
 *
 * Also cli_joint_of_forward, the step `--forward` of gradcheck, partition
 * and validate shares. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>

#include "cli/cli.h"
#include "cli/load.h"
#include "cli/progress.h"
#include "cli/write-graph.h"

static void usage(FILE *out)
{
    fputs("Usage: symcut joint FWD_FILE [--no-grad NAME,...] [--hint s0=8,...]\n"
          "                    [-o FILE]\n"
          "\n"
          "Build the joint graph of a forward graph (PyTorch's text; '-' is\n"
          "standard input; its placeholders are the primals, its outputs the\n"
          "forward outputs) the way AOTAutograd does, from the derivative\n"
          "formulas of the op table: one tangent per differentiable forward\n"
          "output, outputs the forward outputs then one gradient per primal\n"
          "(None where none is needed), and print it in PyTorch's text.\n"
          "\n"
          "Options:\n"
          "  --no-grad NAME,...  primals that do not require grad (default:\n"
          "                      every floating-point tensor primal does)\n"
          "  --hint s0=8,...     hints of symbols (override '# symcut: hint'\n"
          "                      lines): integers from 2 to 2**63-1;\n"
          "                      repeatable\n"
          "  -o FILE             write the joint graph to FILE instead of\n"
          "                      standard output (a regular file is replaced\n"
          "                      atomically; a device or FIFO is written to)\n"
          "  --progress          show the progress on standard error even\n"
          "                      when it is not a terminal (one line per\n"
          "                      tenth of each phase); --no-progress: never\n"
          "\n"
          "Exit status: 0 success; 1 bad command line; 2 the graph could not\n"
          "be read or differentiated (e.g. an op without a derivative\n"
          "formula, or a graph that already has tangents), or an error\n"
          "reading or writing (standard output included).\n",
          out);
}

/* Give an error about graph g read from file a location when it has none:
 * the file, and the line of the node the message names ("node 'mm': ...",
 * "node mm (...)"), if g has such a node read from text. */
void cli_locate_error(const sc_graph *g, const char *file, sc_error *err)
{
    const char *p = strstr(err->message, "node ");
    if (err->file[0] || err->line > 0)
        return;
    snprintf(err->file, sizeof err->file, "%s",
             strcmp(file, "-") == 0 ? "<stdin>" : file);
    if (p) {
        char name[128];
        size_t n = 0;
        p += 5;
        if (*p == '\'')
            p++;
        while (n + 1 < sizeof name &&
               ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                (*p >= '0' && *p <= '9') || *p == '_'))
            name[n++] = *p++;
        name[n] = '\0';
        if (n && sc_graph_find(g, name) != SC_NODE_NONE)
            err->line = sc_graph_node_line(g, sc_graph_find(g, name));
    }
}

/* Is name one of the comma-separated names of list? */
static bool in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    const char *p = list;
    while (p && *p) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        p = c ? c + 1 : NULL;
    }
    return false;
}

/* The joint graph of fwd (read from file; sharing its context), with the
 * primals named in
 * no_grad (comma-separated; NULL: none) not requiring grad and the other
 * floating-point tensor primals requiring it.  Hints and the `params`
 * directive carry over.  On failure prints a located error and returns
 * NULL. */
sc_graph *cli_joint_of_forward(const sc_graph *fwd, const char *file,
                               const char *no_grad)
{
    size_t np = sc_graph_placeholder_count(fwd), i;
    bool *rg = NULL;
    sc_joint_options jo;
    sc_graph *joint = NULL;
    const char *params;
    sc_error err;

    cli_phasef("parsed the forward graph: %zu nodes",
               sc_graph_node_count(fwd));
    for (i = 0; i < np; i++)
        if (sc_graph_node_role(fwd, (sc_node_id)i) == SC_ROLE_TANGENT) {
            cli_errorf("%s:%d: input %s is a tangent: this is a joint graph, "
                       "not a forward graph",
                       strcmp(file, "-") == 0 ? "<stdin>" : file,
                       sc_graph_node_line(fwd, (sc_node_id)i),
                       sc_graph_node_name(fwd, (sc_node_id)i));
            return NULL;
        }
    sc_joint_options_init(&jo);
    if (no_grad) {
        const char *p = no_grad;
        rg = calloc(np + 1, sizeof *rg);
        if (!rg) {
            cli_errorf("out of memory");
            return NULL;
        }
        for (i = 0; i < np; i++) {
            sc_result r;
            sc_graph_node_result(fwd, (sc_node_id)i, &r);
            rg[i] = r.kind == SC_RESULT_TENSOR &&
                    sc_dtype_kind(r.tensor.dtype) == 'f' &&
                    !in_list(no_grad, sc_graph_node_name(fwd, (sc_node_id)i));
        }
        while (*p) { /* every name must be a primal */
            const char *c = strchr(p, ',');
            size_t len = c ? (size_t)(c - p) : strlen(p);
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)len, p);
            if (len >= sizeof name || len == 0 ||
                sc_graph_find(fwd, name) == SC_NODE_NONE ||
                sc_graph_node_kind(fwd, sc_graph_find(fwd, name)) !=
                    SC_NODE_PLACEHOLDER) {
                cli_errorf("--no-grad: '%s' is not an input of the graph",
                           name);
                free(rg);
                return NULL;
            }
            p = c ? c + 1 : p + len;
        }
        jo.nrequires_grad = np;
        jo.requires_grad = rg;
    }
    jo.progress = cli_progress;
    if (sc_graph_new_joint(fwd, &jo, &joint, &err) != SC_OK) {
        cli_locate_error(fwd, file, &err);
        cli_report(&err);
        free(rg);
        return NULL;
    }
    free(rg);
    cli_phasef("built the joint graph: %zu nodes", sc_graph_node_count(joint));
    params = sc_graph_directive(fwd, "params");
    if (params && !sc_graph_directive(joint, "params") &&
        sc_graph_set_directive(joint, "params", params, &err) != SC_OK) {
        cli_report(&err);
        sc_graph_free(joint);
        return NULL;
    }
    return joint;
}

typedef struct joint_args {
    const char *file, *out_path, *no_grad;
    cli_hints hints;
    cli_reading reading;
} joint_args;

static int parse_args(sc_ctx *ctx, int argc, char **argv, joint_args *a)
{
    const cli_opt opts[] = {
        {.short_name = "-o", .kind = CLI_OPT_TEXT, .dest = &a->out_path},
        {.name = "--no-grad", .kind = CLI_OPT_TEXT, .dest = &a->no_grad},
        {.name = "--hint", .kind = CLI_OPT_HINTS, .dest = &a->hints},
        CLI_READING_OPTIONS(&a->reading),
    };
    const cli_syntax syn = {.cmd = "joint", .usage = usage, .opts = opts,
                            .nopts = CLI_NOPTS(opts), .ctx = ctx,
                            .needs_value = "'%s' needs a value",
                            .max_args = 1,
                            .too_many = "more than one forward graph"};
    cli_args args;
    int rc = cli_parse_options(&syn, argc, argv, 1, &args);

    if (rc != CLI_PARSED)
        return rc;
    if (!args.nargs)
        return cli_usage_error("joint", "no forward graph given");
    a->file = args.args[0];
    return CLI_PARSED;
}

int cli_cmd_joint(int argc, char **argv)
{
    joint_args a = {0};
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *fwd = NULL, *joint = NULL;
    cli_load load;
    sc_error err;
    int rc;

    if (!ctx) {
        cli_errorf("out of memory");
        return CLI_EXIT_INPUT;
    }
    if ((rc = parse_args(ctx, argc, argv, &a)) != CLI_PARSED)
        goto done;
    cli_load_init(&load, "joint");
    load.hints = &a.hints;
    load.forward = true;
    load.no_grad = a.no_grad;
    if ((rc = cli_load_graph_reading(ctx, a.file, &load, &a.reading, &joint,
                                     &fwd)) != 0)
        goto done;
    rc = CLI_EXIT_INPUT;
    cli_progress_phase("printing the joint graph");
    if (cli_write_graph(a.out_path, joint, NULL, &err) != SC_OK) {
        cli_report(&err);
        goto done;
    }
    rc = CLI_EXIT_OK;
done:
    cli_hints_free(&a.hints);
    cli_reading_free(&a.reading);
    sc_graph_free(joint);
    sc_graph_free(fwd);
    sc_ctx_free(ctx);
    return rc;
}

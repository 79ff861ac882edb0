/* symcut joint — build the joint forward/backward graph of a forward graph
 * (sc_graph_joint) and print it in PyTorch's text.
 *
 *   symcut joint FWD_FILE [--no-grad NAME,...] [--hint s0=8,...] [-o FILE]
 *
 * Also cli_joint_of_forward, the step `--forward` of gradcheck, partition
 * and validate shares. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>

#include "cli/cli.h"

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
          "                      lines)\n"
          "  -o FILE             write the joint graph to FILE (atomically)\n"
          "                      instead of standard output\n"
          "\n"
          "Exit status: 0 success; 1 bad command line; 2 the graph could not\n"
          "be read or differentiated (e.g. an op without a derivative\n"
          "formula, or a graph that already has tangents).\n",
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
    size_t np = sc_graph_num_placeholders(fwd), i;
    bool *rg = NULL;
    sc_joint_options jo;
    sc_graph *joint = NULL;
    const char *params;
    sc_error err;

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
    if (sc_graph_joint(fwd, &jo, &joint, &err) != SC_OK) {
        cli_locate_error(fwd, file, &err);
        cli_report(&err);
        free(rg);
        return NULL;
    }
    free(rg);
    params = sc_graph_directive(fwd, "params");
    if (params && !sc_graph_directive(joint, "params") &&
        sc_graph_set_directive(joint, "params", params, &err) != SC_OK) {
        cli_report(&err);
        sc_graph_free(joint);
        return NULL;
    }
    return joint;
}

int cli_cmd_joint(int argc, char **argv)
{
    const char *file = NULL, *out_path = NULL, *no_grad = NULL;
    cli_hints hints = {0};
    sc_graph_read_options ro;
    sc_ctx *ctx = NULL;
    sc_graph *fwd = NULL, *joint = NULL;
    char msg[256], *text = NULL;
    size_t len = 0;
    sc_error err;
    int i, rc = CLI_EXIT_USAGE;

    ctx = sc_ctx_new();
    if (!ctx) {
        cli_errorf("out of memory");
        return CLI_EXIT_INPUT;
    }
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            usage(stdout);
            rc = CLI_EXIT_OK;
            goto done;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--no-grad") == 0 ||
                   strcmp(a, "--hint") == 0) {
            if (i + 1 >= argc) {
                rc = cli_usage_error("joint", "'%s' needs a value", a);
                goto done;
            }
            if (strcmp(a, "-o") == 0) {
                out_path = argv[++i];
            } else if (strcmp(a, "--no-grad") == 0) {
                no_grad = argv[++i];
            } else if (!cli_parse_hints(ctx, argv[++i], &hints, msg,
                                        sizeof msg)) {
                rc = cli_usage_error("joint", "--hint: %s", msg);
                goto done;
            }
        } else if (a[0] == '-' && a[1]) {
            rc = cli_usage_error("joint", "unknown option '%s'", a);
            goto done;
        } else if (file) {
            rc = cli_usage_error("joint", "more than one forward graph");
            goto done;
        } else {
            file = a;
        }
    }
    if (!file) {
        rc = cli_usage_error("joint", "no forward graph given");
        goto done;
    }

    rc = CLI_EXIT_INPUT;
    sc_graph_read_options_init(&ro);
    ro.nhints = hints.n;
    ro.hint_symbols = hints.syms;
    ro.hint_values = hints.values;
    fwd = cli_read_graph(ctx, file, &ro);
    if (!fwd)
        goto done;
    if (cli_check_hint_names(fwd, "joint", &hints) != 0) {
        rc = CLI_EXIT_USAGE;
        goto done;
    }
    joint = cli_joint_of_forward(fwd, file, no_grad);
    if (!joint)
        goto done;
    if (sc_graph_write_text(joint, NULL, &text, &len, &err) != SC_OK ||
        cli_write_file(out_path, text, len, &err) != SC_OK) {
        cli_report(&err);
        goto done;
    }
    rc = CLI_EXIT_OK;
done:
    free(text);
    cli_hints_free(&hints);
    sc_graph_free(joint);
    sc_graph_free(fwd);
    sc_ctx_free(ctx);
    return rc;
}

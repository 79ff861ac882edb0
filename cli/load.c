/* symcut — reading a command's graph: the file, the reader's options
 * (hints, the number of forward outputs), the check of the symbol names
 * the options give, and the joint graph of a forward graph. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>

#include "cli/cli.h"

void cli_load_init(cli_load *l, const char *cmd)
{
    memset(l, 0, sizeof *l);
    l->cmd = cmd;
    l->num_fwd_outputs = -1;
}

/* Read the file: NULL after printing the error. */
static sc_graph *read_graph(sc_ctx *ctx, const char *file, const cli_load *l)
{
    sc_graph_read_options ro;
    sc_graph *g = NULL;
    sc_error err;

    sc_graph_read_options_init(&ro);
    ro.num_fwd_outputs = l->num_fwd_outputs;
    if (l->hints) {
        ro.nhints = l->hints->n;
        ro.hint_symbols = l->hints->syms;
        ro.hint_values = l->hints->values;
    }
    if (!l->plain_path)
        return cli_read_graph(ctx, file, &ro);
    if (sc_graph_read_file(ctx, file, &ro, &g, &err) != SC_OK) {
        cli_report(&err);
        return NULL;
    }
    return g;
}

/* The symbol names of the options: 0, or the usage exit status. */
static int check_names(const sc_graph *g, const cli_load *l)
{
    if (l->hints && cli_check_hint_names(g, l->cmd, l->hints) != 0)
        return CLI_EXIT_USAGE;
    if (l->sizes_text &&
        cli_check_symbol_names(g, l->cmd, "--sizes", l->sizes_text) != 0)
        return CLI_EXIT_USAGE;
    if (l->hint_text &&
        cli_check_symbol_names(g, l->cmd, "--hint", l->hint_text) != 0)
        return CLI_EXIT_USAGE;
    return 0;
}

int cli_load_graph(sc_ctx *ctx, const char *file, const cli_load *l,
                   sc_graph **graph, sc_graph **read)
{
    sc_graph *g = read_graph(ctx, file, l);
    int rc;

    *graph = NULL;
    *read = NULL;
    if (!g)
        return CLI_EXIT_INPUT;
    if ((rc = check_names(g, l)) != 0) {
        sc_graph_free(g);
        return rc;
    }
    if (!l->forward) {
        *graph = g;
        return 0;
    }
    *graph = cli_joint_of_forward(g, file, l->no_grad);
    if (!*graph) {
        sc_graph_free(g);
        return CLI_EXIT_INPUT;
    }
    *read = g;
    return 0;
}

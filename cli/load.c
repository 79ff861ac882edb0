/* symcut — reading a command's graph: the file, the reader's options
 * (hints, the number of forward outputs, the graph of a log, its role,
 * strictness, input types), the check of the symbol names the options
 * give, the graph's warnings, and the joint graph of a forward graph. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>

#include "cli/progress.h"
#include "cli/load.h"

const char *const cli_role_choices[] = {"joint", "forward", "backward",
                                        "inference", NULL};

void cli_reading_help(FILE *out)
{
    fputs("  --graph N|NAME        which graph of a file holding several (a\n"
          "                        TORCH_LOGS or TORCH_TRACE log): its number or\n"
          "                        name as 'symcut graph FILE' lists them\n"
          "                        (0/0:joint, 1/0:backward, backward, 1/0)\n"
          "  --role R              the graph's role: joint, forward, backward,\n"
          "                        inference (default: detected)\n"
          "  --strict              an op the op table does not know is an error\n"
          "  --input-type N=ANN    the type of an unannotated input, as PyTorch\n"
          "                        annotates (primals_1=f32[8, 16]); repeatable\n",
          out);
}

void cli_reading_free(cli_reading *r)
{
    size_t i;
    for (i = 0; i < r->ninputs; i++) {
        free(r->input_names[i]);
        free(r->input_types[i]);
    }
    free(r->input_names);
    free(r->input_types);
    r->input_names = r->input_types = NULL;
    r->ninputs = r->inputs_cap = 0;
}

static bool push_input(cli_reading *r, const char *name, size_t nlen,
                       const char *type, size_t tlen)
{
    char *n, *t;
    if (r->ninputs == r->inputs_cap) {
        size_t cap = r->inputs_cap ? r->inputs_cap * 2 : 4;
        char **a = realloc(r->input_names, cap * sizeof *a), **b;
        if (!a)
            return false;
        r->input_names = a;
        b = realloc(r->input_types, cap * sizeof *b);
        if (!b)
            return false;
        r->input_types = b;
        r->inputs_cap = cap;
    }
    n = malloc(nlen + 1);
    t = malloc(tlen + 1);
    if (!n || !t) {
        free(n);
        free(t);
        return false;
    }
    memcpy(n, name, nlen);
    n[nlen] = '\0';
    memcpy(t, type, tlen);
    t[tlen] = '\0';
    r->input_names[r->ninputs] = n;
    r->input_types[r->ninputs] = t;
    r->ninputs++;
    return true;
}

int cli_input_type_option(const cli_syntax *syn, const cli_opt *o,
                          const char *value)
{
    cli_reading *r = o->dest;
    const char *p = value;

    while (*p) {
        const char *eq = strchr(p, '='), *semi = strchr(p, ';'), *e;
        const char *n = p;
        e = semi ? semi : p + strlen(p);
        while (n < e && *n == ' ')
            n++;
        if (!eq || eq > e || eq == n)
            return cli_usage_error(syn->cmd,
                                   "--input-type: expected NAME=ANNOTATION "
                                   "(primals_1=f32[8, 16]), not '%s'",
                                   value);
        if (!push_input(r, n, (size_t)(eq - n), eq + 1,
                        (size_t)(e - eq - 1))) {
            cli_errorf("out of memory");
            return CLI_EXIT_INPUT;
        }
        p = semi ? semi + 1 : e;
    }
    return 0;
}

void cli_load_init(cli_load *l, const char *cmd)
{
    memset(l, 0, sizeof *l);
    l->cmd = cmd;
    l->num_fwd_outputs = -1;
}

/* Read the file: NULL after printing the error, with *rc the exit
 * status (a usage error for a bad --graph or --input-type). */
static sc_graph *read_graph(sc_ctx *ctx, const char *file, const cli_load *l,
                            const cli_reading *r, int *rc)
{
    sc_graph_read_options ro;
    sc_graph *g = NULL;
    sc_error err;
    sc_status st;

    *rc = CLI_EXIT_INPUT;
    sc_graph_read_options_init(&ro);
    ro.num_fwd_outputs = l->num_fwd_outputs;
    ro.progress = cli_progress;
    if (l->hints) {
        ro.nhints = l->hints->n;
        ro.hint_symbols = l->hints->syms;
        ro.hint_values = l->hints->values;
    }
    if (r) {
        ro.graph = r->graph;
        if (r->num_fwd_outputs_given)
            ro.num_fwd_outputs = r->num_fwd_outputs;
        if (r->role)
            sc_graph_kind_from_name(r->role, strlen(r->role), &ro.kind);
        if (r->strict)
            ro.flags |= SC_GRAPH_READ_STRICT;
        ro.ninputs = r->ninputs;
        ro.input_names = (const char *const *)r->input_names;
        ro.input_types = (const char *const *)r->input_types;
    }
    if (!l->plain_path) {
        size_t len = 0;
        char *text = cli_read_file(file, &len, &err);
        if (!text) {
            cli_report(&err);
            return NULL;
        }
        st = sc_graph_read_text(ctx, text, len,
                                strcmp(file, "-") == 0 ? "<stdin>" : file,
                                &ro, &g, &err);
        free(text);
    } else {
        st = sc_graph_read_file(ctx, file, &ro, &g, &err);
    }
    if (st != SC_OK) {
        cli_report(&err);
        if (st == SC_ERR_INVALID)
            *rc = CLI_EXIT_USAGE;
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
    return cli_load_graph_reading(ctx, file, l, NULL, graph, read);
}

int cli_load_graph_reading(sc_ctx *ctx, const char *file, const cli_load *l,
                           const cli_reading *r, sc_graph **graph,
                           sc_graph **read)
{
    sc_graph *g;
    int rc;
    size_t i;

    *graph = NULL;
    *read = NULL;
    g = read_graph(ctx, file, l, r, &rc);
    if (!g)
        return rc;
    if (!l->cmd || strcmp(l->cmd, "graph") != 0)
        for (i = 0; i < sc_graph_warning_count(g); i++)
            cli_errorf("warning: %s: %s",
                       strcmp(file, "-") == 0 ? "<stdin>" : file,
                       sc_graph_warning(g, i));
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

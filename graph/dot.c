/* symcut — Graphviz DOT output of a graph: one box per node (name, op,
 * shape), an edge per producer -> user, and the output node. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "graph/graph-internal.h"
#include "graph/ops.h"

/* Above this many nodes the layout's iterations are bounded. */
#define SC__DOT_BIG_GRAPH 300

void sc_graph_dot_options_init(sc_graph_dot_options *opts)
{
    memset(opts, 0, sizeof *opts);
}

/* Text inside a DOT double-quoted string. */
static void put_escaped(sc__buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            sc__buf_putc(b, '\\');
        if (*s == '\n') {
            sc__buf_puts(b, "\\n");
            continue;
        }
        sc__buf_putc(b, *s);
    }
}

static void put_expr_escaped(sc__buf *b, sc_ctx *ctx, const sc_expr *e)
{
    int64_t v;
    char *s;
    if (sc_expr_value_si(e, &v)) {
        sc__buf_printf(b, "%lld", (long long)v);
        return;
    }
    s = sc_expr_to_str(ctx, e);
    if (!s) {
        b->failed = true;
        return;
    }
    put_escaped(b, s);
    free(s);
}

/* The shape line of a node's label. */
static void put_shape(sc__buf *b, const sc_graph *g, const sc__node *n)
{
    uint32_t i;
    switch ((sc_result_kind)n->rkind) {
    case SC_RESULT_TENSOR:
        sc__buf_printf(b, "%s[", sc_dtype_code((sc_dtype)n->dtype));
        for (i = 0; i < n->ndim; i++) {
            if (i)
                sc__buf_puts(b, ", ");
            put_expr_escaped(b, g->ctx, n->meta.dims[i]);
        }
        sc__buf_putc(b, ']');
        break;
    case SC_RESULT_SYMINT:
    case SC_RESULT_SYMBOOL:
        sc__buf_puts(b, "Sym(");
        put_expr_escaped(b, g->ctx, n->meta.expr);
        sc__buf_putc(b, ')');
        break;
    case SC_RESULT_TUPLE:
        if (n->ndim)
            sc__buf_printf(b, "tuple of %u", (unsigned)n->ndim);
        else
            sc__buf_puts(b, "tuple");
        break;
    case SC_RESULT_NONE:
        sc__buf_puts(b, "None");
        break;
    default:
        sc__buf_puts(b, "?");
        break;
    }
}

/* The op's short name: "torch.ops.aten.mm.default" -> "aten.mm.default". */
static const char *short_target(const char *t)
{
    return strncmp(t, "torch.ops.", 10) == 0 ? t + 10 : t;
}

static bool is_color(const char *c)
{
    size_t i;
    if (!c || !*c || strlen(c) > 32)
        return false;
    for (i = 0; c[i]; i++)
        if (!((c[i] >= 'a' && c[i] <= 'z') || (c[i] >= 'A' && c[i] <= 'Z') ||
              (c[i] >= '0' && c[i] <= '9') || c[i] == '#' || c[i] == ' ' ||
              c[i] == '.' || c[i] == ','))
            return false;
    return true;
}

static void edges_of(sc__buf *b, const sc_value *v, size_t user,
                     int32_t *stamp, int depth)
{
    size_t i;
    if (v->kind == SC_VALUE_NODE) {
        if (stamp[v->u.node] != (int32_t)user) {
            stamp[v->u.node] = (int32_t)user;
            sc__buf_printf(b, "  n%ld -> n%zu;\n", (long)v->u.node, user);
        }
    } else if ((v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE) &&
               depth < SC__GRAPH_MAX_DEPTH) {
        for (i = 0; i < v->u.list.n; i++)
            edges_of(b, &v->u.list.items[i], user, stamp, depth + 1);
    }
}

sc_status sc_graph_write_dot(const sc_graph *g,
                             const sc_graph_dot_options *opts, char **out,
                             size_t *len, sc_error *err)
{
    sc_graph_dot_options defaults;
    sc__buf b;
    size_t i, j, n;
    int32_t *stamp;

    *out = NULL;
    if (len)
        *len = 0;
    if (!opts) {
        sc_graph_dot_options_init(&defaults);
        opts = &defaults;
    }
    stamp = sc__malloc((g->nnodes + 1) * sizeof *stamp);
    if (!stamp)
        return sc__error_nomem(err);
    for (i = 0; i < g->nnodes; i++)
        stamp[i] = -1;
    sc__buf_init(&b);
    sc__buf_puts(&b, "digraph \"");
    put_escaped(&b, opts->title ? opts->title : sc_graph_class_name(g));
    sc__buf_puts(&b, "\" {\n"
                     "  rankdir=TB;\n"
                     "  node [shape=box, style=\"rounded,filled\", "
                     "fontname=\"Helvetica\", fontsize=10, "
                     "fillcolor=\"white\"];\n"
                     "  edge [arrowsize=0.6];\n");
    /* Graphviz's network-simplex ranking and crossing minimization take
     * minutes on a few hundred nodes (lstm_module's joint: over 14
     * minutes); bounding their iterations renders it in under a minute,
     * with a layout only a little less tidy. */
    if (g->nnodes > SC__DOT_BIG_GRAPH)
        sc__buf_puts(&b, "  nslimit=2;\n  nslimit1=2;\n  mclimit=0.1;\n");
    for (i = 0; i < g->nnodes && !b.failed; i++) {
        const sc__node *nd = &g->nodes[i];
        const char *color = NULL;
        if (opts->color)
            color = opts->color(g, (sc_node_id)i, opts->user);
        if (!color && nd->kind == SC_NODE_PLACEHOLDER)
            color = nd->role == SC_ROLE_TANGENT ? "#f8d7da" : "#cfe2ff";
        sc__buf_printf(&b, "  n%zu [label=\"", i);
        put_escaped(&b, nd->name);
        sc__buf_puts(&b, "\\n");
        if (nd->kind == SC_NODE_PLACEHOLDER)
            sc__buf_puts(&b, nd->role == SC_ROLE_TANGENT ? "tangent"
                                                         : "primal");
        else
            put_escaped(&b, short_target(nd->target));
        sc__buf_puts(&b, "\\n");
        put_shape(&b, g, nd);
        sc__buf_putc(&b, '"');
        if (is_color(color))
            sc__buf_printf(&b, ", fillcolor=\"%s\"", color);
        if (nd->op == SC_OP_UNKNOWN && nd->kind == SC_NODE_CALL)
            sc__buf_puts(&b, ", style=\"rounded,filled,dashed\"");
        sc__buf_puts(&b, "];\n");
    }
    for (i = 0; i < g->nnodes && !b.failed; i++)
        for (j = 0; j < g->nodes[i].nargs; j++)
            edges_of(&b, &g->nodes[i].args[j], i, stamp, 0);
    sc__buf_printf(&b, "  output [label=\"output\\n%zu value%s, %zu "
                       "forward\", shape=ellipse];\n",
                   g->noutputs, g->noutputs == 1 ? "" : "s",
                   g->num_fwd_outputs);
    for (i = 0; i < g->noutputs; i++)
        if (g->outputs[i] != SC_NODE_NONE)
            sc__buf_printf(&b, "  n%ld -> output [label=\"%zu\"%s];\n",
                           (long)g->outputs[i], i,
                           i < g->num_fwd_outputs ? ", style=bold" : "");
    sc__buf_puts(&b, "}\n");
    sc__free(stamp);
    n = b.len;
    *out = sc__buf_take(&b);
    if (!*out)
        return sc__error_nomem(err);
    if (len)
        *len = n;
    return SC_OK;
}

/* symcut — Graphviz DOT output of a graph: one box per node (name, op,
 * shape), an edge per producer -> user, the output node and a drawn
 * legend; optionally clusters and a subset of the nodes (dot-internal.h). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/dot-internal.h"
#include "graph/graph-internal.h"
#include "graph/ops.h"

/* Above this many drawn nodes the layout is the fast one (straight
 * edges, bounded iterations). */
#define SC__DOT_BIG_GRAPH 300
#define SC__DOT_HUGE_GRAPH 1000
#ifndef SC__DOT_FAR_LEVELS
#define SC__DOT_FAR_LEVELS 8
#endif

void sc_graph_dot_options_init(sc_graph_dot_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->around = SC_NODE_NONE;
    opts->around_depth = 2;
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

/* What the node and edge writers share: the nodes kept, and for a big
 * picture each node's level (1 + the largest level of its drawn
 * arguments) so that an edge spanning more than SC__DOT_FAR levels is
 * named in its user's label instead of drawn. */
#define SC__DOT_FAR SC__DOT_FAR_LEVELS
typedef struct dot_view {
    const bool *keep;
    int32_t *level; /* NULL: every edge drawn */
} dot_view;

static bool drawn_node(const dot_view *w, sc_node_id id)
{
    return !w->keep || w->keep[id];
}

static bool far_edge(const dot_view *w, sc_node_id from, size_t to)
{
    return w->level && w->level[to] - w->level[from] > SC__DOT_FAR;
}

static void edges_of(sc__buf *b, const sc_value *v, size_t user,
                     int32_t *stamp, int depth, const dot_view *w)
{
    size_t i;
    if (v->kind == SC_VALUE_NODE) {
        if (!drawn_node(w, v->u.node) || far_edge(w, v->u.node, user))
            return;
        if (stamp[v->u.node] != (int32_t)user) {
            stamp[v->u.node] = (int32_t)user;
            sc__buf_printf(b, "  n%ld -> n%zu;\n", (long)v->u.node, user);
        }
    } else if ((v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE) &&
               depth < SC__GRAPH_MAX_DEPTH) {
        for (i = 0; i < v->u.list.n; i++)
            edges_of(b, &v->u.list.items[i], user, stamp, depth + 1, w);
    }
}

/* Text inside an HTML-like label (the legend). */
static void put_html_escaped(sc__buf *b, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '&':
            sc__buf_puts(b, "&amp;");
            break;
        case '<':
            sc__buf_puts(b, "&lt;");
            break;
        case '>':
            sc__buf_puts(b, "&gt;");
            break;
        case '"':
            sc__buf_puts(b, "&quot;");
            break;
        case '\n':
            sc__buf_puts(b, "<br/>");
            break;
        default:
            sc__buf_putc(b, *s);
        }
}

static const sc__dot_legend_entry role_legend[] = {
    {"#cfe2ff", NULL, "primal"},
    {"#f8d7da", NULL, "tangent"},
    {"white", NULL, "call"},
    {"white", "dashed", "call of an op the op table does not know"}};

/* The legend: a plaintext node holding a table (Graphviz draws it; the
 * graph's ID, where older versions put the title, is never drawn). */
static void put_legend(sc__buf *b, const char *title, const char *note,
                       const sc__dot_legend_entry *e, size_t n)
{
    size_t i;
    sc__buf_puts(b, "  legend [shape=plaintext, style=\"\", margin=0, "
                    "label=<<table border=\"0\" cellborder=\"1\" "
                    "cellspacing=\"0\" cellpadding=\"4\">");
    sc__buf_puts(b, "<tr><td colspan=\"2\"><b>");
    put_html_escaped(b, title);
    sc__buf_puts(b, "</b></td></tr>");
    if (note) {
        sc__buf_puts(b, "<tr><td colspan=\"2\">");
        put_html_escaped(b, note);
        sc__buf_puts(b, "</td></tr>");
    }
    for (i = 0; i < n; i++) {
        sc__buf_puts(b, "<tr><td");
        if (is_color(e[i].color))
            sc__buf_printf(b, " bgcolor=\"%s\"", e[i].color);
        if (e[i].style && strcmp(e[i].style, "dashed") == 0)
            sc__buf_puts(b, " style=\"dashed\"");
        sc__buf_puts(b, " width=\"24\"></td><td align=\"left\">");
        put_html_escaped(b, e[i].label);
        sc__buf_puts(b, "</td></tr>");
    }
    sc__buf_puts(b, "</table>>];\n");
}

/* *lvl = max(*lvl, 1 + the level of each node v refers to). */
static void level_of(const sc_value *v, const int32_t *level, int32_t *lvl,
                     int depth)
{
    size_t i;
    if (v->kind == SC_VALUE_NODE) {
        if (level[v->u.node] + 1 > *lvl)
            *lvl = level[v->u.node] + 1;
    } else if ((v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE) &&
               depth < SC__GRAPH_MAX_DEPTH) {
        for (i = 0; i < v->u.list.n; i++)
            level_of(&v->u.list.items[i], level, lvl, depth + 1);
    }
}

/* Names of the far arguments of user (each once, at most 3 named). */
static void far_names(sc__buf *b, const sc_graph *g, const sc_value *v,
                      size_t user, const dot_view *w, int32_t *stamp,
                      size_t *n, int depth)
{
    size_t i;
    if (v->kind == SC_VALUE_NODE) {
        if (!drawn_node(w, v->u.node) || !far_edge(w, v->u.node, user) ||
            stamp[v->u.node] == (int32_t)user)
            return;
        stamp[v->u.node] = (int32_t)user;
        if (*n < 3) {
            sc__buf_puts(b, *n ? ", " : "\\nfrom far: ");
            put_escaped(b, g->nodes[v->u.node].name);
        }
        ++*n;
    } else if ((v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE) &&
               depth < SC__GRAPH_MAX_DEPTH) {
        for (i = 0; i < v->u.list.n; i++)
            far_names(b, g, &v->u.list.items[i], user, w, stamp, n,
                      depth + 1);
    }
}

static void put_node(sc__buf *b, const sc_graph *g,
                     const sc_graph_dot_options *opts, size_t i,
                     const char *indent, const dot_view *w, int32_t *stamp)
{
    const sc__node *nd = &g->nodes[i];
    const char *color = NULL;
    if (opts->color)
        color = opts->color(g, (sc_node_id)i, opts->user);
    if (!color && nd->kind == SC_NODE_PLACEHOLDER)
        color = nd->role == SC_ROLE_TANGENT ? "#f8d7da" : "#cfe2ff";
    sc__buf_printf(b, "%sn%zu [label=\"", indent, i);
    put_escaped(b, nd->name);
    sc__buf_puts(b, "\\n");
    if (nd->kind == SC_NODE_PLACEHOLDER)
        sc__buf_puts(b, nd->role == SC_ROLE_TANGENT ? "tangent" : "primal");
    else
        put_escaped(b, short_target(nd->target));
    sc__buf_puts(b, "\\n");
    put_shape(b, g, nd);
    if (w->level) {
        size_t j, nfar = 0;
        for (j = 0; j < nd->nargs; j++)
            far_names(b, g, &nd->args[j], i, w, stamp, &nfar, 0);
        if (nfar > 3)
            sc__buf_printf(b, " and %zu more", nfar - 3);
    }
    sc__buf_putc(b, '"');
    if (is_color(color))
        sc__buf_printf(b, ", fillcolor=\"%s\"", color);
    if (nd->op == SC_OP_UNKNOWN && nd->kind == SC_NODE_CALL)
        sc__buf_puts(b, ", style=\"rounded,filled,dashed\"");
    sc__buf_puts(b, "];\n");
}

sc_status sc__graph_dot_around(const sc_graph *g, sc_node_id id,
                               size_t depth, sc__dot_ext *ext, bool **keep,
                               char *note, size_t note_size, sc_error *err)
{
    size_t i, nkeep = 0;

    *keep = NULL;
    if (id < 0 || (size_t)id >= g->nnodes)
        return sc__error_set(err, SC_ERR_INVALID,
                             "DOT around node %ld: the graph has %zu nodes",
                             (long)id, g->nnodes);
    *keep = sc__calloc(g->nnodes ? g->nnodes : 1, sizeof **keep);
    if (!*keep)
        return sc__error_nomem(err);
    SC_TRY(sc__graph_dot_neighbourhood(g, id, depth, *keep, err));
    for (i = 0; i < g->nnodes; i++)
        nkeep += (*keep)[i];
    snprintf(note, note_size,
             "the %zu of %zu nodes at most %zu edge%s from %s", nkeep,
             g->nnodes, depth, depth == 1 ? "" : "s",
             sc_graph_node_name(g, id));
    ext->keep = *keep;
    ext->note = note;
    return SC_OK;
}

sc_status sc_graph_write_dot(const sc_graph *g,
                             const sc_graph_dot_options *opts, char **out,
                             size_t *len, sc_error *err)
{
    sc__dot_ext ext;
    bool *keep = NULL;
    char note[256];
    sc_status status;

    if (!opts || opts->around == SC_NODE_NONE)
        return sc__graph_write_dot_ext(g, opts, NULL, out, len, err);
    *out = NULL;
    if (len)
        *len = 0;
    memset(&ext, 0, sizeof ext);
    status = sc__graph_dot_around(g, opts->around, opts->around_depth, &ext,
                                  &keep, note, sizeof note, err);
    if (status == SC_OK)
        status = sc__graph_write_dot_ext(g, opts, &ext, out, len, err);
    sc__free(keep);
    return status;
}

sc_status sc__graph_write_dot_ext(const sc_graph *g,
                                  const sc_graph_dot_options *opts,
                                  const sc__dot_ext *ext, char **out,
                                  size_t *len, sc_error *err)
{
    sc_graph_dot_options defaults;
    sc__dot_ext none;
    sc__buf b;
    size_t i, j, k, n, drawn = 0, nfar_out = 0;
    int32_t *stamp, *fstamp = NULL, top = 0;
    bool output_used = false, clusters = ext && ext->cluster;
    dot_view w = {NULL, NULL};

    *out = NULL;
    if (len)
        *len = 0;
    if (!opts) {
        sc_graph_dot_options_init(&defaults);
        opts = &defaults;
    }
    if (!ext) {
        memset(&none, 0, sizeof none);
        ext = &none;
    }
    stamp = sc__malloc((g->nnodes + 1) * sizeof *stamp);
    if (!stamp)
        return sc__error_nomem(err);
    for (i = 0; i < g->nnodes; i++) {
        stamp[i] = -1;
        if (!ext->keep || ext->keep[i])
            drawn++;
    }
    w.keep = ext->keep;
    if (drawn > SC__DOT_BIG_GRAPH) {
        w.level = sc__calloc(g->nnodes + 1, sizeof *w.level);
        fstamp = sc__malloc((g->nnodes + 1) * sizeof *fstamp);
        if (!w.level || !fstamp) {
            sc__free(stamp);
            sc__free(w.level);
            sc__free(fstamp);
            return sc__error_nomem(err);
        }
        for (i = 0; i < g->nnodes; i++) {
            fstamp[i] = -1;
            for (j = 0; j < g->nodes[i].nargs; j++)
                level_of(&g->nodes[i].args[j], w.level, &w.level[i], 0);
            if (w.level[i] > top)
                top = w.level[i];
        }
        w.level[g->nnodes] = top + 1; /* the output node */
    }
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
     * minutes); bounding their iterations renders it in under a minute.
     * Past a thousand nodes the x coordinates' network simplex dominates
     * (a 4,000-node joint: 62 s at 2 iterations per node, 4 s at 0.05);
     * straight edges spare the spline router (doc/partition.md, "DOT"). */
    if (drawn > SC__DOT_HUGE_GRAPH)
        sc__buf_puts(&b, "  nslimit=0.05;\n  nslimit1=2;\n  mclimit=0.1;\n"
                         "  searchsize=10;\n  splines=line;\n");
    else if (drawn > SC__DOT_BIG_GRAPH)
        sc__buf_puts(&b, "  nslimit=2;\n  nslimit1=2;\n  mclimit=0.1;\n"
                         "  splines=line;\n");
    if (ext->nlegend)
        put_legend(&b, opts->title ? opts->title : sc_graph_class_name(g),
                   ext->note, ext->legend, ext->nlegend);
    else
        put_legend(&b, opts->title ? opts->title : sc_graph_class_name(g),
                   ext->note, role_legend,
                   sizeof role_legend / sizeof role_legend[0]);
    /* clusters make Graphviz rank each apart and then merge: on a big
     * picture that stretches edges over thousands of ranks (4,000 nodes:
     * 383,000 virtual nodes, not 27,000), so a big picture has none */
    if (drawn > SC__DOT_BIG_GRAPH)
        clusters = false;
    for (k = 0; k < (clusters ? ext->nclusters : 0) && !b.failed; k++) {
        bool open = false;
        for (i = 0; i < g->nnodes && !b.failed; i++) {
            if (ext->cluster[i] != (int8_t)k || (ext->keep && !ext->keep[i]))
                continue;
            if (!open) {
                sc__buf_printf(&b, "  subgraph cluster_%zu {\n    label=\"",
                               k);
                put_escaped(&b, ext->cluster_labels[k]);
                sc__buf_puts(&b, "\";\n    style=\"rounded,dashed\";\n"
                                 "    fontname=\"Helvetica\";\n");
                open = true;
            }
            put_node(&b, g, opts, i, "    ", &w, fstamp);
        }
        if (open)
            sc__buf_puts(&b, "  }\n");
    }
    for (i = 0; i < g->nnodes && !b.failed; i++)
        if ((!ext->keep || ext->keep[i]) &&
            (!clusters || ext->cluster[i] < 0 ||
             (size_t)ext->cluster[i] >= ext->nclusters))
            put_node(&b, g, opts, i, "  ", &w, fstamp);
    for (i = 0; i < g->nnodes && !b.failed; i++) {
        if (ext->keep && !ext->keep[i])
            continue;
        for (j = 0; j < g->nodes[i].nargs; j++)
            edges_of(&b, &g->nodes[i].args[j], i, stamp, 0, &w);
    }
    for (i = 0; i < g->noutputs; i++)
        if (g->outputs[i] != SC_NODE_NONE && drawn_node(&w, g->outputs[i])) {
            output_used = true;
            if (far_edge(&w, g->outputs[i], g->nnodes))
                nfar_out++;
        }
    if (output_used || !g->noutputs) {
        sc__buf_printf(&b, "  output [label=\"output\\n%zu value%s, %zu "
                           "forward",
                       g->noutputs, g->noutputs == 1 ? "" : "s",
                       g->num_fwd_outputs);
        if (nfar_out)
            sc__buf_printf(&b, "\\n%zu from far nodes (not drawn)",
                           nfar_out);
        sc__buf_puts(&b, "\", shape=ellipse];\n");
        for (i = 0; i < g->noutputs; i++)
            if (g->outputs[i] != SC_NODE_NONE &&
                drawn_node(&w, g->outputs[i]) &&
                !far_edge(&w, g->outputs[i], g->nnodes))
                sc__buf_printf(&b, "  n%ld -> output [label=\"%zu\"%s];\n",
                               (long)g->outputs[i], i,
                               i < g->num_fwd_outputs ? ", style=bold" : "");
    }
    sc__buf_puts(&b, "}\n");
    sc__free(stamp);
    sc__free(fstamp);
    sc__free(w.level);
    n = b.len;
    *out = sc__buf_take(&b);
    if (!*out)
        return sc__error_nomem(err);
    if (len)
        *len = n;
    return SC_OK;
}

/* The nodes a value refers to, pushed on a queue at depth d. */
typedef struct bfs {
    sc_node_id *queue;
    size_t *depth;
    size_t head, tail;
    bool *keep;
} bfs;

static void bfs_push(bfs *q, sc_node_id id, size_t d)
{
    if (q->keep[id])
        return;
    q->keep[id] = true;
    q->queue[q->tail] = id;
    q->depth[q->tail++] = d;
}

static void bfs_value(bfs *q, const sc_value *v, size_t d, int level)
{
    size_t i;
    if (v->kind == SC_VALUE_NODE)
        bfs_push(q, v->u.node, d);
    else if ((v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE) &&
             level < SC__GRAPH_MAX_DEPTH)
        for (i = 0; i < v->u.list.n; i++)
            bfs_value(q, &v->u.list.items[i], d, level + 1);
}

sc_status sc__graph_dot_neighbourhood(const sc_graph *g, sc_node_id id,
                                      size_t depth, bool *keep,
                                      sc_error *err)
{
    bfs q;
    if (id < 0 || (size_t)id >= g->nnodes)
        return sc__error_set(err, SC_ERR_INVALID, "no node %ld", (long)id);
    q.queue = sc__malloc((g->nnodes ? g->nnodes : 1) * sizeof *q.queue);
    q.depth = sc__malloc((g->nnodes ? g->nnodes : 1) * sizeof *q.depth);
    if (!q.queue || !q.depth) {
        sc__free(q.queue);
        sc__free(q.depth);
        return sc__error_nomem(err);
    }
    q.head = q.tail = 0;
    q.keep = keep;
    bfs_push(&q, id, 0);
    while (q.head < q.tail) {
        sc_node_id v = q.queue[q.head];
        size_t d = q.depth[q.head++], j, nu = 0;
        const sc_node_id *users;
        if (d >= depth)
            continue;
        for (j = 0; j < g->nodes[v].nargs; j++)
            bfs_value(&q, &g->nodes[v].args[j], d + 1, 0);
        users = sc_graph_node_users(g, v, &nu);
        for (j = 0; j < nu; j++)
            bfs_push(&q, users[j], d + 1);
    }
    sc__free(q.queue);
    sc__free(q.depth);
    return SC_OK;
}

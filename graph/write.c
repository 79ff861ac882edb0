/* symcut — the writer of PyTorch's graph text, in the newer
 * print_readable style (quoted annotations with strides and device), with
 * the liveness suffixes PyTorch computes (`;  x = None` after a value's
 * last use), so that symcut's graphs diff cleanly against PyTorch's. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph-internal.h"

void sc_graph_write_options_init(sc_graph_write_options *opts)
{
    memset(opts, 0, sizeof *opts);
}

/* ---- Appending -------------------------------------------------------- */

/* sc__buf_putn with the common case (room left) inline: the writer
 * appends a few bytes at a time, hundreds of millions of times. */
static inline void put_n(sc__buf *b, const char *s, size_t n)
{
    if (SC__LIKELY(b->len + n < b->cap && !b->failed)) {
        memcpy(b->data + b->len, s, n);
        b->len += n;
        b->data[b->len] = '\0';
        return;
    }
    sc__buf_putn(b, s, n);
}

static inline void put_s(sc__buf *b, const char *s)
{
    put_n(b, s, strlen(s));
}

static inline void put_c(sc__buf *b, char c)
{
    put_n(b, &c, 1);
}

/* A decimal integer, as printf's %lld. */
static void put_int(sc__buf *b, long long v)
{
    char tmp[24], *p = tmp + sizeof tmp;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v
                                 : (unsigned long long)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    put_n(b, p, (size_t)(tmp + sizeof tmp - p));
}

/* ---- Pieces ------------------------------------------------------------- */

static void put_expr(sc__buf *b, sc_ctx *ctx, const sc_expr *e)
{
    int64_t v;
    char *s;
    if (sc_expr_value_si(e, &v)) {
        put_int(b, (long long)v);
        return;
    }
    s = sc_expr_to_str(ctx, e);
    if (!s) {
        b->failed = true;
        return;
    }
    put_s(b, s);
    free(s);
}

/* Python's repr of a float when the text was not kept: the shortest
 * %.{p}g that reads back exactly, with ".0" when it looks like an int. */
static void put_float(sc__buf *b, double v)
{
    char tmp[40];
    int p;
    if (isnan(v)) {
        put_s(b, "nan");
        return;
    }
    if (isinf(v)) {
        put_s(b, v < 0 ? "-inf" : "inf");
        return;
    }
    for (p = 1; p <= 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*g", p, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    put_s(b, tmp);
    if (!strpbrk(tmp, ".eEn"))
        put_s(b, ".0");
}

/* Python's repr of a string. */
static void put_string(sc__buf *b, const char *s)
{
    if (s[0] == SC_VALUE_CALLABLE_MARK) { /* a callable: its dotted name */
        put_s(b, s + 1);
        return;
    }
    char q = (strchr(s, '\'') && !strchr(s, '"')) ? '"' : '\'';
    put_c(b, q);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\\' || c == (unsigned char)q) {
            put_c(b, '\\');
            put_c(b, (char)c);
        } else if (c == '\n') {
            put_s(b, "\\n");
        } else if (c == '\t') {
            put_s(b, "\\t");
        } else if (c == '\r') {
            put_s(b, "\\r");
        } else if (c < 0x20 || c == 0x7f) {
            sc__buf_printf(b, "\\x%02x", c);
        } else {
            put_c(b, (char)c);
        }
    }
    put_c(b, q);
}

static void put_value(sc__buf *b, const sc_graph *g, const sc_value *v,
                      int depth)
{
    size_t i;
    switch (v->kind) {
    case SC_VALUE_NONE:
        put_s(b, "None");
        break;
    case SC_VALUE_NODE:
        put_s(b, g->nodes[v->u.node].name);
        break;
    case SC_VALUE_INT:
        put_int(b, (long long)v->u.i);
        break;
    case SC_VALUE_SYMINT:
        put_expr(b, g->ctx, v->u.expr);
        break;
    case SC_VALUE_FLOAT:
        if (v->u.f.repr)
            put_s(b, v->u.f.repr);
        else
            put_float(b, v->u.f.value);
        break;
    case SC_VALUE_BOOL:
        put_s(b, v->u.b ? "True" : "False");
        break;
    case SC_VALUE_STRING:
        put_string(b, v->u.str);
        break;
    case SC_VALUE_DTYPE:
        put_s(b, "torch.");
        put_s(b, sc_dtype_torch_name(v->u.dtype));
        break;
    case SC_VALUE_DEVICE:
        if (v->u.device.index >= 0)
            sc__buf_printf(b, "device(type='%s', index=%d)",
                           sc_device_type_name(v->u.device.type),
                           v->u.device.index);
        else
            sc__buf_printf(b, "device(type='%s')",
                           sc_device_type_name(v->u.device.type));
        break;
    case SC_VALUE_LAYOUT:
        sc__buf_printf(b, "torch.%s", sc_layout_name(v->u.layout));
        break;
    case SC_VALUE_MEMORY_FORMAT:
        sc__buf_printf(b, "torch.%s",
                       sc_memory_format_name(v->u.memory_format));
        break;
    case SC_VALUE_LIST:
    case SC_VALUE_TUPLE:
        put_c(b, v->kind == SC_VALUE_LIST ? '[' : '(');
        for (i = 0; i < v->u.list.n && depth < SC__GRAPH_MAX_DEPTH; i++) {
            if (i)
                put_s(b, ", ");
            put_value(b, g, &v->u.list.items[i], depth + 1);
        }
        if (v->kind == SC_VALUE_TUPLE && v->u.list.n == 1)
            put_c(b, ',');
        put_c(b, v->kind == SC_VALUE_LIST ? ']' : ')');
        break;
    }
}

/* The annotation of node n, with quotes; nothing for a node without
 * one (tuples, unknown). */
static bool put_annotation(sc__buf *b, const sc_graph *g, const sc__node *n)
{
    uint32_t i;
    switch ((sc_result_kind)n->rkind) {
    case SC_RESULT_TENSOR:
        put_c(b, '"');
        put_s(b, sc_dtype_code((sc_dtype)n->dtype));
        put_c(b, '[');
        for (i = 0; i < n->ndim; i++) {
            if (i)
                put_s(b, ", ");
            put_expr(b, g->ctx, n->meta.dims[i]);
        }
        put_c(b, ']');
        if (n->flags & SC__NODE_HAS_STRIDES) {
            put_c(b, '[');
            for (i = 0; i < n->ndim; i++) {
                if (i)
                    put_s(b, ", ");
                put_expr(b, g->ctx, n->meta.dims[n->ndim + i]);
            }
            put_c(b, ']');
        }
        if (n->flags & SC__NODE_HAS_DEVICE) {
            put_s(b, sc_device_type_name((sc_device_type)n->dev_type));
            if (n->dev_index >= 0)
                sc__buf_printf(b, ":%d", n->dev_index);
        }
        put_c(b, '"');
        return true;
    case SC_RESULT_SYMINT:
    case SC_RESULT_SYMBOOL:
        put_s(b, "\"Sym(");
        put_expr(b, g->ctx, n->meta.expr);
        put_s(b, ")\"");
        return true;
    default:
        return false;
    }
}

static void put_rhs(sc__buf *b, const sc_graph *g, const sc__node *n)
{
    const char *infix;
    uint32_t i;

    /* Only operator.* targets print otherwise than as a call (and
     * self.* attribute reads): the aten ops skip the comparisons. */
    if (n->nargs == n->npos && (n->target[0] == 'o' || n->target[0] == 's')) {
        infix = sc__graph_infix_symbol(n->target);
        if (strcmp(n->target, "operator.getitem") == 0 && n->npos == 2 &&
            n->args[0].kind == SC_VALUE_NODE) {
            put_value(b, g, &n->args[0], 0);
            put_c(b, '[');
            put_value(b, g, &n->args[1], 0);
            put_c(b, ']');
            return;
        }
        if (infix && n->npos == 2) {
            put_value(b, g, &n->args[0], 0);
            put_c(b, ' ');
            put_s(b, infix);
            put_c(b, ' ');
            put_value(b, g, &n->args[1], 0);
            return;
        }
        if (strcmp(n->target, "operator.neg") == 0 && n->npos == 1 &&
            n->args[0].kind == SC_VALUE_NODE) {
            put_c(b, '-');
            put_value(b, g, &n->args[0], 0);
            return;
        }
        if (strcmp(n->target, "operator.not_") == 0 && n->npos == 1 &&
            n->args[0].kind == SC_VALUE_NODE) {
            put_s(b, "not ");
            put_value(b, g, &n->args[0], 0);
            return;
        }
        if (n->npos == 0 && strncmp(n->target, "self.", 5) == 0) {
            put_s(b, n->target); /* get_attr */
            return;
        }
    }
    put_s(b, n->target);
    put_c(b, '(');
    for (i = 0; i < n->nargs; i++) {
        if (i)
            put_s(b, ", ");
        if (i >= n->npos)
        {
            put_s(b, n->kwnames[i - n->npos]);
            put_n(b, " = ", 3);
        }
        put_value(b, g, &n->args[i], 0);
    }
    put_c(b, ')');
}

/* ---- Liveness ---------------------------------------------------------- */

/* For each call node, the values whose last use it is (PyTorch's rule:
 * walking the nodes backwards, a value's first use seen is its last; the
 * output list comes last, so returned values are never released; a call
 * without users releases itself). */
typedef struct liveness {
    uint32_t *start, *count; /* per node, into freed */
    sc_node_id *freed;
    size_t nfreed, cap;
} liveness;

static bool live_push(liveness *lv, sc_node_id id)
{
    void *items = lv->freed;
    if (!sc__grow(&items, &lv->cap, lv->nfreed + 1, sizeof *lv->freed))
        return false;
    lv->freed = items;
    lv->freed[lv->nfreed++] = id;
    return true;
}

static bool live_walk(liveness *lv, unsigned char *seen, const sc_value *v,
                      int depth)
{
    size_t i;
    if (v->kind == SC_VALUE_NODE) {
        if (!seen[v->u.node]) {
            seen[v->u.node] = 1;
            return live_push(lv, v->u.node);
        }
        return true;
    }
    if ((v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE) &&
        depth < SC__GRAPH_MAX_DEPTH)
        for (i = 0; i < v->u.list.n; i++)
            if (!live_walk(lv, seen, &v->u.list.items[i], depth + 1))
                return false;
    return true;
}

/* Mark every node v refers to (through lists) as used. */
static void mark_nested(unsigned char *used, const sc_value *v, int depth)
{
    size_t i;
    if (v->kind == SC_VALUE_NODE)
        used[v->u.node] = 1;
    else if ((v->kind == SC_VALUE_LIST || v->kind == SC_VALUE_TUPLE) &&
             depth < SC__GRAPH_MAX_DEPTH)
        for (i = 0; i < v->u.list.n; i++)
            mark_nested(used, &v->u.list.items[i], depth + 1);
}

static sc_status compute_liveness(const sc_graph *g, liveness *lv,
                                  sc_error *err)
{
    unsigned char *seen = NULL, *used = NULL;
    size_t i, j;

    memset(lv, 0, sizeof *lv);
    seen = sc__calloc(g->nnodes + 1, 1);
    used = sc__calloc(g->nnodes + 1, 1);
    lv->start = sc__calloc(g->nnodes + 1, sizeof *lv->start);
    lv->count = sc__calloc(g->nnodes + 1, sizeof *lv->count);
    if (!seen || !used || !lv->start || !lv->count)
        goto nomem;
    for (i = 0; i < g->noutputs; i++)
        if (g->outputs[i] != SC_NODE_NONE)
            seen[g->outputs[i]] = used[g->outputs[i]] = 1;
    for (i = 0; i < g->nnodes; i++)
        for (j = 0; j < g->nodes[i].nargs; j++)
            mark_nested(used, &g->nodes[i].args[j], 0);
    for (i = g->nnodes; i-- > 0;) {
        const sc__node *n = &g->nodes[i];
        lv->start[i] = (uint32_t)lv->nfreed;
        if (n->kind != SC_NODE_CALL)
            continue;
        for (j = 0; j < n->nargs; j++)
            if (!live_walk(lv, seen, &n->args[j], 0))
                goto nomem;
        if (!used[i] && !live_push(lv, (sc_node_id)i))
            goto nomem;
        lv->count[i] = (uint32_t)(lv->nfreed - lv->start[i]);
    }
    sc__free(seen);
    sc__free(used);
    return SC_OK;
nomem:
    sc__free(seen);
    sc__free(used);
    sc__free(lv->start);
    sc__free(lv->count);
    sc__free(lv->freed);
    memset(lv, 0, sizeof *lv);
    return sc__error_nomem(err);
}

static void liveness_free(liveness *lv)
{
    sc__free(lv->start);
    sc__free(lv->count);
    sc__free(lv->freed);
}

/* ---- The text ----------------------------------------------------------- */

static void put_directives(sc__buf *b, const sc_graph *g)
{
    size_t i;
    sc_graph_kind kind = sc_graph_get_kind(g);

    /* the kind, when the text alone would say another */
    if (kind != SC_GRAPH_KIND_UNKNOWN &&
        kind != sc__graph_guess_kind(g, g->noutputs))
        sc__buf_printf(b, "# symcut: role %s\n", sc_graph_kind_name(kind));
    if (g->nhints) {
        put_s(b, "# symcut: hint");
        for (i = 0; i < g->nhints; i++) {
            int64_t v = g->hints[i].value;
            (void)sc_graph_get_hint(g, g->hints[i].sym, &v);
            sc__buf_printf(b, " %s=%lld",
                           sc_expr_symbol_name(g->hints[i].sym),
                           (long long)v);
        }
        put_c(b, '\n');
    }
    for (i = 0; i < g->ndirectives; i++)
        if (g->directives[i].key[0] != '.')
            sc__buf_printf(b, "# symcut: %s %s\n", g->directives[i].key,
                           g->directives[i].value);
}

/* PyTorch prints a forward, backward or inference graph with flat typed
 * parameters and a tuple return; a joint graph (and one read in that
 * form) with the pytree unpacking. */
static bool flat_style(const sc_graph *g)
{
    sc_graph_kind k = sc_graph_get_kind(g);
    if (sc__graph_note(g, ".pytree"))
        return false;
    return k == SC_GRAPH_KIND_FORWARD || k == SC_GRAPH_KIND_BACKWARD ||
           k == SC_GRAPH_KIND_INFERENCE;
}

static void put_flat_signature(sc__buf *b, const sc_graph *g)
{
    size_t i;
    put_s(b, "    def forward(self");
    for (i = 0; i < g->nplaceholders; i++) {
        sc__buf_printf(b, ", %s", g->nodes[i].name);
        {
            size_t mark = b->len;
            put_s(b, ": ");
            if (!put_annotation(b, g, &g->nodes[i]) && !b->failed) {
                b->len = mark;
                b->data[mark] = '\0';
            }
        }
    }
    put_s(b, "):\n");
}

/* The comment lines kept before node i (each indented), if the next
 * entry of the ".comments" note (*cursor, "ID\x01TEXT\x02...", by
 * increasing ID) is node i's; the cursor moves past it. */
static void put_comments(sc__buf *b, const char **cursor, size_t i,
                         const char *ind)
{
    const char *c = *cursor, *t, *end, *e;
    char *num_end;
    unsigned long long id;

    if (!c || !*c)
        return;
    id = strtoull(c, &num_end, 10);
    if (*num_end != '\x01' || id != i)
        return;
    t = num_end + 1;
    end = strchr(t, '\x02');
    if (!end)
        end = t + strlen(t);
    while (t <= end) {
        e = memchr(t, '\n', (size_t)(end - t));
        if (!e)
            e = end;
        put_s(b, ind);
        sc__buf_putn(b, t, (size_t)(e - t));
        put_c(b, '\n');
        t = e + 1;
    }
    *cursor = *end ? end + 1 : end;
}

/* The nested submodule classes kept as text, after the return. */
static void put_subgraphs(sc__buf *b, const sc_graph *g)
{
    const char *c = sc__graph_note(g, ".sub"), *e;
    if (!c)
        return;
    put_c(b, '\n');
    while (*c) {
        e = strchr(c, '\n');
        if (!e)
            e = c + strlen(c);
        if (e > c) {
            put_s(b, "    ");
            sc__buf_putn(b, c, (size_t)(e - c));
        }
        put_c(b, '\n');
        c = *e ? e + 1 : e;
    }
}

/* Where the text goes when it is not kept whole: b is handed to flush
 * and emptied each time it holds SINK_CHUNK bytes at the end of a
 * statement, so that a large graph's text never sits in memory at once
 * (its pages would be touched once for nothing: about 110 bytes a node). */
#define SINK_CHUNK ((size_t)1 << 20)

typedef struct text_sink {
    bool (*flush)(void *user, const char *data, size_t len);
    void *user;
    bool failed; /* flush returned false: nothing more is written */
} text_sink;

static void sink_drain(sc__buf *b, text_sink *sink)
{
    if (!b->failed && !sink->failed && b->len &&
        !sink->flush(sink->user, b->data, b->len))
        sink->failed = true;
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

/* The text of g into b, or through sink (NULL: all of it into b; else
 * what is left in b at the end is the caller's to drain). */
static sc_status write_text(const sc_graph *g,
                            const sc_graph_write_options *opts, sc__buf *b,
                            text_sink *sink, sc_error *err)
{
    liveness lv;
    size_t i, j;
    bool any_annotated = false, flat = flat_style(g);
    const char *comments = sc__graph_note(g, ".comments");
    const char *ind = "        ";

    memset(&lv, 0, sizeof lv);
    if (!(opts->flags & SC_GRAPH_WRITE_NO_LIVENESS)) {
        SC_TRY(compute_liveness(g, &lv, err));
    }
    if (!(opts->flags & SC_GRAPH_WRITE_NO_DIRECTIVES))
        put_directives(b, g);
    sc__buf_printf(b, "class %s(torch.nn.Module):\n",
                   opts->class_name ? opts->class_name
                                    : sc_graph_class_name(g));
    if (flat)
        put_flat_signature(b, g);
    else
        sc__buf_printf(b, "    def forward(self, primals%s):\n",
                       g->ntangents ? ", tangents" : "");
    for (i = 0; i < g->nplaceholders && !flat; i++)
        if (g->nodes[i].rkind == SC_RESULT_TENSOR ||
            g->nodes[i].rkind == SC_RESULT_SYMINT ||
            g->nodes[i].rkind == SC_RESULT_SYMBOOL)
            any_annotated = true;
    if (any_annotated) {
        put_s(b, ind);
        for (i = 0; i < g->nplaceholders; i++) {
            size_t mark = b->len;
            put_s(b, g->nodes[i].name);
            put_n(b, ": ", 2);
            if (put_annotation(b, g, &g->nodes[i]))
                put_s(b, "; ");
            else if (!b->failed) { /* not annotated: unpacking only */
                b->len = mark;
                b->data[mark] = '\0';
            }
        }
        put_s(b, "\n    \n");
    }
    if (g->nplaceholders && !flat) {
        put_s(b, ind);
        for (i = 0; i < g->nplaceholders; i++)
        {
            put_s(b, g->nodes[i].name);
            put_n(b, ", ", 2);
        }
        sc__buf_printf(b, "= fx_pytree.tree_flatten_spec([primals%s], "
                          "self._in_spec)\n",
                       g->ntangents ? ", tangents" : "");
    }
    if (g->nnodes > g->nplaceholders && !comments) {
        put_s(b, ind);
        put_s(b, "# No stacktrace found for following nodes\n");
    }
    for (i = g->nplaceholders;
         i < g->nnodes && !b->failed && !(sink && sink->failed); i++) {
        const sc__node *n = &g->nodes[i];
        if (sink && b->len >= SINK_CHUNK)
            sink_drain(b, sink);
        put_comments(b, &comments, i, ind);
        put_s(b, ind);
        put_s(b, n->name);
        {
            size_t mark = b->len;
            put_s(b, ": ");
            if (!put_annotation(b, g, n) && !b->failed) {
                b->len = mark;
                b->data[mark] = '\0';
            }
        }
        put_s(b, " = ");
        put_rhs(b, g, n);
        if (lv.count && lv.count[i]) {
            put_s(b, ";  ");
            for (j = 0; j < lv.count[i]; j++)
            {
                put_s(b, g->nodes[lv.freed[lv.start[i] + j]].name);
                put_n(b, " = ", 3);
            }
            put_s(b, "None");
        }
        put_c(b, '\n');
    }
    put_s(b, ind);
    put_s(b, flat ? "return (" : "return pytree.tree_unflatten([");
    for (i = 0; i < g->noutputs; i++) {
        if (i)
            put_s(b, ", ");
        put_s(b, g->outputs[i] == SC_NODE_NONE
                            ? "None"
                            : g->nodes[g->outputs[i]].name);
    }
    if (flat)
        put_s(b, g->noutputs == 1 ? ",)\n" : ")\n");
    else
        put_s(b, "], self._out_spec)\n");
    put_subgraphs(b, g);
    put_s(b, ind);
    put_c(b, '\n');
    liveness_free(&lv);
    if (b->failed)
        return sc__error_nomem(err);
    return SC_OK;
}

sc_status sc_graph_write_text(const sc_graph *g,
                              const sc_graph_write_options *opts, char **out,
                              size_t *len, sc_error *err)
{
    sc_graph_write_options defaults;
    sc__buf b;
    sc_status status;
    size_t n;

    *out = NULL;
    if (len)
        *len = 0;
    if (!opts) {
        sc_graph_write_options_init(&defaults);
        opts = &defaults;
    }
    if (opts->class_name && !*opts->class_name)
        return sc__error_set(err, SC_ERR_INVALID, "empty class name");
    sc__buf_init(&b);
    SC_CHECK(write_text(g, opts, &b, NULL, err));
    n = b.len;
    *out = sc__buf_take(&b);
    if (!*out)
        return sc__error_nomem(err);
    if (len)
        *len = n;
    return SC_OK;
fail:
    sc__buf_free(&b);
    return status;
}

static bool flush_stream(void *user, const char *data, size_t len)
{
    return fwrite(data, 1, len, (FILE *)user) == len;
}

sc_status sc_graph_write_stream(const sc_graph *g,
                                const sc_graph_write_options *opts,
                                FILE *stream, sc_error *err)
{
    sc_graph_write_options defaults;
    text_sink sink = {flush_stream, stream, false};
    sc__buf b;
    sc_status status;

    if (!opts) {
        sc_graph_write_options_init(&defaults);
        opts = &defaults;
    }
    if (opts->class_name && !*opts->class_name)
        return sc__error_set(err, SC_ERR_INVALID, "empty class name");
    sc__buf_init(&b);
    SC_CHECK(write_text(g, opts, &b, &sink, err));
    sink_drain(&b, &sink);
    if (b.failed) {
        status = sc__error_nomem(err);
        goto fail;
    }
    if (sink.failed || fflush(stream) != 0) {
        status = sc__error_set(err, SC_ERR_IO, "cannot write the graph");
        goto fail;
    }
    sc__buf_free(&b);
    return SC_OK;
fail:
    sc__buf_free(&b);
    return status;
}

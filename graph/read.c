/* symcut — the reader of PyTorch's graph text (print_readable, as
 * TORCH_LOGS=aot_joint_graph and tlparse show it).  See doc/graph.md for
 * the accepted syntax.
 *
 * One pass over the tokens: the class header, the forward signature, the
 * placeholder declarations and the unpacking line, one statement per
 * node, the return.  Values parsed for a node go straight into the graph's
 * arena; lists are assembled on a reusable value stack.  Recursion is
 * bounded (SC__GRAPH_MAX_DEPTH); every length is checked. */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/frame.h"
#include "graph/lex.h"
#include "graph/ops.h"

/* A placeholder declared on the annotation line, waiting for the
 * unpacking line. */
typedef struct pending_ph {
    const char *name; /* arena */
    sc_result meta;   /* dims in the arena */
    int line, col;
} pending_ph;

/* A quoted annotation read before: its text and what it parsed to (a
 * graph has few distinct ones; expressions are interned, so the result
 * depends on the text alone). */
typedef struct ann_cached {
    char *block;    /* sc__malloc: the dims (sizes, strides), then text */
    const char *text;
    size_t len;
    sc_result meta; /* its dims in block */
} ann_cached;

#define ANN_CACHE 1024 /* entries, direct-mapped by the text's hash */

typedef struct reader {
    sc__lexer lx;
    sc__token tok;
    sc_graph *g;
    sc_ctx *ctx;
    const sc_graph_read_options *opts;
    sc_error *err;
    const char *file;

    bool pytree;       /* def forward(self, primals[, tangents]) */
    bool has_tangents; /* the signature has `tangents` */
    pending_ph *pending;
    size_t npending, pending_cap;
    uint32_t *pending_slots; /* hash set of pending indexes + 1 */
    size_t pending_slots_cap;
    bool placeholders_done;

    sc_value *vstack; /* values being parsed */
    size_t vlen, vcap;
    const char **kwstack;
    size_t kwlen, kwcap;
    sc_expr **dims; /* annotation sizes then strides */
    size_t dims_cap;
    uint32_t *released; /* per node: line of its `= None`, 0 if live */
    size_t released_cap;
    size_t progress_next; /* the frame offset of the next progress call */
    /* the nodes the current statement's operands named, most of the
     * names of its '; x = None' suffix */
    sc_node_id used[8];
    unsigned nused;
    sc__buf scratch;
    int ret_line, ret_col; /* of the return statement */
    const char **unknown; /* unknown targets (interned), in first-seen order */
    int *unknown_line;    /* the line and column of each one's first use */
    int *unknown_col;
    size_t nunknown, unknown_cap, unknown_line_cap, unknown_col_cap;
    const char *all_text; /* the whole text (directives are read from it) */
    size_t all_len;
    const sc__frame *frame; /* the graph read */
    bool flat;              /* the signature lists typed parameters */
    sc_graph_kind directive_kind; /* of a `# symcut: role` line */
    sc__buf comments;             /* the ".comments" note being made */
    sc__buf name;   /* the name of the statement being read */
    sc__buf target; /* the target of the call being read */
    ann_cached *ann; /* ANN_CACHE entries, or NULL until the first */
} reader;

/* ---- Errors and tokens --------------------------------------------------- */

static sc_status error_at(reader *r, int line, int col, const char *fmt, ...)
    SC__PRINTF(4, 5);

static sc_status error_at(reader *r, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sc__error_vset(r->err, SC_ERR_PARSE, fmt, ap);
    va_end(ap);
    if (r->err) {
        snprintf(r->err->file, sizeof r->err->file, "%s", r->file);
        r->err->line = line;
        r->err->column = col;
    }
    return SC_ERR_PARSE;
}

/* Re-locate an error that a builder call reported without location. */
static sc_status locate(reader *r, sc_status st, int line, int col)
{
    if (st != SC_OK && r->err && r->err->line == 0) {
        snprintf(r->err->file, sizeof r->err->file, "%s", r->file);
        r->err->line = line;
        r->err->column = col;
    }
    return st;
}

static const char *tok_desc(const sc__token *t, char *buf, size_t size)
{
    switch (t->kind) {
    case SC__TOK_EOF:
        return "the end of the file";
    case SC__TOK_NEWLINE:
        return "the end of the line";
    default:
        snprintf(buf, size, "'%.*s'", (int)(t->len > 40 ? 40 : t->len),
                 t->start);
        return buf;
    }
}

static sc_status unexpected(reader *r, const char *expected)
{
    char buf[64];
    return error_at(r, r->tok.line, r->tok.col, "expected %s, found %s",
                    expected, tok_desc(&r->tok, buf, sizeof buf));
}

static sc_status advance(reader *r)
{
    return sc__lex_next(&r->lx, &r->tok);
}

/* Is the current token the operator (name) of n bytes at w?  at_op and
 * at_name take the length at the call site: a literal's is a constant,
 * and most tokens differ in length from the word asked. */
static inline bool at_op_n(const reader *r, const char *op, size_t n)
{
    return r->tok.kind == SC__TOK_OP && r->tok.len == n &&
           memcmp(r->tok.start, op, n) == 0;
}

static inline bool at_name_n(const reader *r, const char *w, size_t n)
{
    return r->tok.kind == SC__TOK_NAME && r->tok.len == n &&
           memcmp(r->tok.start, w, n) == 0;
}

#define at_op(r, op) at_op_n((r), (op), strlen(op))
#define at_name(r, w) at_name_n((r), (w), strlen(w))

static sc_status expect_op(reader *r, const char *op)
{
    char what[16];
    if (!at_op(r, op)) {
        snprintf(what, sizeof what, "'%s'", op);
        return unexpected(r, what);
    }
    return advance(r);
}

static sc_status expect_name(reader *r, const char *w)
{
    char what[48];
    if (!at_name(r, w)) {
        snprintf(what, sizeof what, "'%s'", w);
        return unexpected(r, what);
    }
    return advance(r);
}

static sc_status expect_newline(reader *r)
{
    if (r->tok.kind != SC__TOK_NEWLINE)
        return unexpected(r, "the end of the line");
    return advance(r);
}

/* A NUL-terminated copy of the current NAME token in the scratch buffer. */
static const char *tok_text(reader *r)
{
    sc__buf_reset(&r->scratch);
    sc__buf_putn(&r->scratch, r->tok.start, r->tok.len);
    return r->scratch.failed ? NULL : r->scratch.data;
}

/* ---- Stacks ------------------------------------------------------------ */

static sc_status push_value(reader *r, const sc_value *v)
{
    void *items = r->vstack;
    if (!sc__grow(&items, &r->vcap, r->vlen + 1, sizeof *r->vstack))
        return sc__error_nomem(r->err);
    r->vstack = items;
    r->vstack[r->vlen++] = *v;
    return SC_OK;
}

static sc_status push_kwname(reader *r, const char *kw)
{
    void *items = r->kwstack;
    if (!sc__grow(&items, &r->kwcap, r->kwlen + 1, sizeof *r->kwstack))
        return sc__error_nomem(r->err);
    r->kwstack = items;
    r->kwstack[r->kwlen++] = kw;
    return SC_OK;
}

/* Move the top n values of the stack into the arena. */
static sc_status pop_values(reader *r, size_t n, sc_value **out)
{
    sc_value *items = NULL;
    if (n) {
        if (n > UINT32_MAX)
            return error_at(r, r->tok.line, r->tok.col, "list too long");
        items = sc__arena_alloc(&r->g->arena, n * sizeof *items);
        if (!items)
            return sc__error_nomem(r->err);
        memcpy(items, r->vstack + r->vlen - n, n * sizeof *items);
    }
    r->vlen -= n;
    *out = items;
    return SC_OK;
}

static sc_status grow_dims(reader *r, size_t need)
{
    void *items = r->dims;
    if (!sc__grow(&items, &r->dims_cap, need, sizeof *r->dims))
        return sc__error_nomem(r->err);
    r->dims = items;
    return SC_OK;
}

/* ---- Annotations ------------------------------------------------------- */

static size_t hash_span(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    size_t i;
    for (i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return (size_t)h;
}

static bool is_space(char c) { return c == ' ' || c == '\t'; }

static bool is_name_start_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_continue_char(char c)
{
    return is_name_start_char(c) || (c >= '0' && c <= '9');
}

static bool all_digits(const char *s, size_t n)
{
    size_t i;
    if (n == 0 || n > 18)
        return false;
    for (i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

static bool is_simple_name(const char *s, size_t n)
{
    size_t i;
    if (n == 0 || n > 64 ||
        !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
          s[0] == '_'))
        return false;
    for (i = 1; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return false;
    return true;
}

/* Parse the symbolic integer expression s[0..n) at line/col. */
static sc_status parse_expr(reader *r, const char *s, size_t n, int line,
                            int col, sc_expr **out)
{
    sc_status st;
    sc_error e;
    char *copy;

    while (n && is_space(*s)) {
        s++;
        n--;
        col++;
    }
    while (n && is_space(s[n - 1]))
        n--;
    if (n == 0)
        return error_at(r, line, col, "expected a size expression");
    if (n <= 18 && all_digits(s, n)) { /* fits in int64_t */
        int64_t v = 0;
        size_t i;
        for (i = 0; i < n; i++)
            v = v * 10 + (s[i] - '0');
        *out = sc_expr_int_si(r->ctx, v);
    } else if (is_simple_name(s, n) && !(n == 4 && memcmp(s, "True", 4) == 0) &&
               !(n == 5 && memcmp(s, "False", 5) == 0)) {
        sc__buf_reset(&r->scratch);
        sc__buf_putn(&r->scratch, s, n);
        if (r->scratch.failed)
            return sc__error_nomem(r->err);
        *out = sc_expr_symbol(r->ctx, r->scratch.data);
    } else {
        copy = sc__strndup(s, n);
        if (!copy)
            return sc__error_nomem(r->err);
        sc_error_init(&e);
        st = sc_expr_parse(r->ctx, copy, r->file, line, out, &e);
        sc__free(copy);
        if (st != SC_OK) {
            if (r->err) {
                *r->err = e;
                snprintf(r->err->file, sizeof r->err->file, "%s", r->file);
                r->err->line = line;
                r->err->column = col + (e.column > 0 ? e.column - 1 : 0);
            }
            return st;
        }
        return SC_OK;
    }
    if (!*out) {
        sc_status cs = sc_ctx_take_error(r->ctx, r->err);
        return locate(r, cs != SC_OK ? cs : SC_ERR_INTERNAL, line, col);
    }
    return SC_OK;
}

/* Parse a bracketed list of expressions starting at s[*i] == '[' into
 * r->dims[base..]; *count gets their number.  s[0..n) is the annotation,
 * whose first character is at column col. */
static sc_status parse_dim_list(reader *r, const char *s, size_t n, size_t *i,
                                int line, int col, size_t base, size_t *count)
{
    size_t k = *i + 1, start, depth = 0, b, e;
    int64_t small;

    *count = 0;
    while (k < n && is_space(s[k]))
        k++;
    if (k < n && s[k] == ']') {
        *i = k + 1;
        return SC_OK;
    }
    start = *i + 1;
    for (; k < n; k++) {
        char c = s[k];
        if (c == '(' || c == '[')
            depth++;
        else if ((c == ')' || c == ']') && depth > 0)
            depth--;
        else if ((c == ',' || c == ']') && depth == 0) {
            if (*count > 4096)
                return error_at(r, line, col + (int)k,
                                "more than 4096 dimensions");
            SC_TRY(grow_dims(r, base + *count + 1));
            SC_TRY(parse_expr(r, s + start, k - start, line, col + (int)start,
                              &r->dims[base + *count]));
            if (sc_expr_is_bool(r->dims[base + *count]))
                return error_at(r, line, col + (int)start,
                                "a size must be an integer expression");
            b = start;
            e = k;
            while (b < e && is_space(s[b]))
                b++;
            while (e > b && is_space(s[e - 1]))
                e--;
            if (sc_expr_is_int(r->dims[base + *count]) &&
                !sc_expr_value_si(r->dims[base + *count], &small)) {
                error_at(r, line, col + (int)b,
                         "%s %.*s%s does not fit in int64_t",
                         base ? "stride" : "size",
                         (int)(e - b > 40 ? 40 : e - b), s + b,
                         e - b > 40 ? "..." : "");
                if (r->err)
                    r->err->code = SC_ERR_OVERFLOW;
                return SC_ERR_OVERFLOW;
            }
            if (base == 0 &&
                sc_expr_value_si(r->dims[base + *count], &small) && small < 0)
                return error_at(r, line, col + (int)b,
                                "a size must be >= 0 (got %lld)",
                                (long long)small);
            (*count)++;
            start = k + 1;
            if (c == ']') {
                *i = k + 1;
                return SC_OK;
            }
        }
    }
    return error_at(r, line, col + (int)n, "expected ']' to close the list "
                                           "of sizes");
}

/* Parse an annotation s[0..n) (the text inside the quotes, or the
 * unquoted text) whose first character is at line/col.  The tensor's dims
 * stay in r->dims until the next annotation. */
static sc_status parse_annotation(reader *r, const char *s, size_t n,
                                  int line, int col, sc_result *out)
{
    size_t i = 0, ndim = 0, nstr = 0;
    sc_dtype dtype;

    sc_result_init(out);
    if (n >= 5 && memcmp(s, "Sym(", 4) == 0) {
        sc_expr *e;
        if (s[n - 1] != ')')
            return error_at(r, line, col + (int)n - 1,
                            "expected ')' to close 'Sym('");
        SC_TRY(parse_expr(r, s + 4, n - 5, line, col + 4, &e));
        out->kind = sc_expr_is_bool(e) ? SC_RESULT_SYMBOOL : SC_RESULT_SYMINT;
        out->expr = e;
        return SC_OK;
    }
    while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
        i++;
    if (i == 0 || i >= n || s[i] != '[') {
        if (i > 0 && !sc_dtype_from_code(s, i, &dtype))
            return error_at(r, line, col, "unknown dtype code '%.*s'",
                            (int)(i > 20 ? 20 : i), s);
        return error_at(r, line, col + (int)i,
                        "expected an annotation like \"f32[s0, 32][32, 1]cpu\" "
                        "or \"Sym(s0)\"");
    }
    if (!sc_dtype_from_code(s, i, &dtype))
        return error_at(r, line, col, "unknown dtype code '%.*s'",
                        (int)(i > 20 ? 20 : i), s);
    SC_TRY(parse_dim_list(r, s, n, &i, line, col, 0, &ndim));
    out->kind = SC_RESULT_TENSOR;
    out->tensor.dtype = dtype;
    out->tensor.ndim = ndim;
    if (i < n && s[i] == '[') {
        SC_TRY(parse_dim_list(r, s, n, &i, line, col, ndim, &nstr));
        if (nstr != ndim)
            return error_at(r, line, col, "%zu sizes but %zu strides", ndim,
                            nstr);
        out->tensor.has_strides = true;
    }
    if (i < n) {
        size_t d = i, colon;
        sc_device_type dt;
        while (d < n && ((s[d] >= 'a' && s[d] <= 'z') || s[d] == '_' ||
                         (s[d] >= '0' && s[d] <= '9')))
            d++;
        colon = d;
        if (!sc_device_type_from_name(s + i, d - i, &dt))
            return error_at(r, line, col + (int)i,
                            "unknown device '%.*s' in annotation",
                            (int)(n - i > 20 ? 20 : n - i), s + i);
        out->tensor.has_device = true;
        out->tensor.device.type = dt;
        out->tensor.device.index = -1;
        if (colon < n && s[colon] == ':') {
            long idx = 0;
            d = colon + 1;
            if (d >= n || s[d] < '0' || s[d] > '9')
                return error_at(r, line, col + (int)d,
                                "expected a device index");
            while (d < n && s[d] >= '0' && s[d] <= '9') {
                idx = idx * 10 + (s[d] - '0');
                if (idx > 32767)
                    return error_at(r, line, col + (int)colon + 1,
                                    "device index too large");
                d++;
            }
            out->tensor.device.index = (int)idx;
        }
        if (d != n)
            return error_at(r, line, col + (int)d,
                            "unexpected '%c' at the end of the annotation",
                            s[d]);
    }
    /* A 0-d tensor has no sizes and no strides (and r->dims may not be
     * allocated yet: no pointer arithmetic on it). */
    out->tensor.sizes = ndim ? r->dims : NULL;
    out->tensor.strides =
        out->tensor.has_strides && ndim ? r->dims + ndim : NULL;
    return SC_OK;
}

/* Keep annotation s[0..n) and its result meta in cache entry c (when
 * memory allows: the cache is only a shortcut); meta's dims then point
 * into the entry. */
static void ann_remember(ann_cached *c, const char *s, size_t n,
                         sc_result *meta)
{
    size_t nd = 0;
    char *block;
    sc_expr **dims;

    if (meta->kind == SC_RESULT_TENSOR)
        nd = meta->tensor.ndim * (meta->tensor.has_strides ? 2 : 1);
    if (nd > 64 || n > 4096)
        return;
    block = sc__malloc(nd * sizeof *dims + n + 1);
    if (!block)
        return;
    dims = (sc_expr **)(void *)block;
    if (nd) {
        memcpy(dims, meta->tensor.sizes,
               meta->tensor.ndim * sizeof *dims);
        if (meta->tensor.has_strides)
            memcpy(dims + meta->tensor.ndim, meta->tensor.strides,
                   meta->tensor.ndim * sizeof *dims);
        meta->tensor.sizes = dims;
        meta->tensor.strides =
            meta->tensor.has_strides ? dims + meta->tensor.ndim : NULL;
    }
    memcpy(block + nd * sizeof *dims, s, n);
    block[nd * sizeof *dims + n] = '\0';
    sc__free(c->block);
    c->block = block;
    c->text = block + nd * sizeof *dims;
    c->len = n;
    c->meta = *meta;
}

/* After ':' — the current token is the first of the annotation.  Quoted:
 * a STRING token.  Unquoted: raw text up to the annotation's end (the
 * lexer is repositioned after it). */
static sc_status read_annotation(reader *r, sc_result *out)
{
    int line = r->tok.line, col = r->tok.col;

    if (r->tok.kind == SC__TOK_STRING) {
        const char *s = r->tok.start + 1;
        size_t n = r->tok.len - 2;
        ann_cached *c = NULL;
        if (r->ann || (r->ann = sc__calloc(ANN_CACHE, sizeof *r->ann))) {
            c = &r->ann[hash_span(s, n) & (ANN_CACHE - 1)];
            if (c->block && c->len == n && memcmp(c->text, s, n) == 0) {
                *out = c->meta;
                return advance(r);
            }
        }
        if (memchr(r->tok.start, '\\', r->tok.len))
            return error_at(r, line, col,
                            "escape sequences are not allowed in an "
                            "annotation");
        SC_TRY(parse_annotation(r, s, n, line, col + 1, out));
        if (c)
            ann_remember(c, s, n, out);
        return advance(r);
    }
    if (r->tok.kind == SC__TOK_NAME) {
        /* Unquoted (older style): dtype code, brackets, maybe a device. */
        const char *s = r->tok.start, *q = s, *end = r->lx.end;
        int depth = 0;
        while (q < end && *q != '\n') {
            char c = *q;
            if (c == '[' || c == '(')
                depth++;
            else if (c == ']' || c == ')') {
                if (depth == 0)
                    break;
                depth--;
            } else if (depth == 0 &&
                       (c == ' ' || c == '=' || c == ';' || c == ',' ||
                        c == '\t' || c == '\r'))
                break;
            q++;
        }
        if (depth != 0)
            return error_at(r, line, col, "unbalanced brackets in the "
                                          "annotation");
        SC_TRY(parse_annotation(r, s, (size_t)(q - s), line, col, out));
        r->lx.p = q;
        r->lx.last_newline = false;
        return advance(r);
    }
    return unexpected(r, "an annotation (\"f32[...]\" or \"Sym(...)\")");
}

/* ---- Names and liveness ------------------------------------------------- */

/* A bound on the number of nodes of the graph f of a text of len bytes:
 * its lines (the frame scan counted them), but no more than one per 8
 * bytes. */
static size_t presize_count(const sc__frame *f, size_t len)
{
    size_t lines = f->end_line >= f->line ? (size_t)(f->end_line - f->line) + 1
                                          : 1;
    size_t bytes = (size_t)(f->end - f->start);
    (void)len;
    return lines < bytes / 8 + 1 ? lines : bytes / 8 + 1;
}

static sc_status grow_released(reader *r)
{
    size_t old = r->released_cap;
    void *items = r->released;

    if (SC__LIKELY(r->g->nnodes < old))
        return SC_OK;
    if (!sc__grow(&items, &r->released_cap, r->g->nnodes + 1,
                  sizeof *r->released))
        return sc__error_nomem(r->err);
    r->released = items;
    memset(r->released + old, 0, (r->released_cap - old) * sizeof *r->released);
    return SC_OK;
}

/* The node named by the current NAME token, for a use. */
static sc_status resolve_use(reader *r, sc_node_id *out)
{
    const char *name, *tn = r->tok.start;
    sc_node_id id;
    size_t last = r->g->nnodes, n = r->tok.len;
    int def;

    /* most uses name the node just defined */
    if (last && strncmp(r->g->nodes[last - 1].name, tn, n) == 0 &&
        r->g->nodes[last - 1].name[n] == '\0')
        id = (sc_node_id)(last - 1);
    else
        id = sc__graph_find_span(r->g, tn, n);
    if (SC__LIKELY(id != SC_NODE_NONE &&
                   ((r->opts->flags & SC_GRAPH_READ_NO_LIVENESS_CHECK) ||
                    (size_t)id >= r->released_cap || !r->released[id]))) {
        r->used[r->nused++ & 7] = id;
        *out = id;
        return SC_OK;
    }
    name = tok_text(r);
    if (!name)
        return sc__error_nomem(r->err);
    if (id == SC_NODE_NONE) {
        def = sc__lex_find_definition(&r->lx, r->tok.start, r->tok.len);
        if (def)
            return error_at(r, r->tok.line, r->tok.col,
                            "'%s' is used before its definition at line %d",
                            name, def);
        return error_at(r, r->tok.line, r->tok.col, "undefined name '%s'",
                        name);
    }
    if (!(r->opts->flags & SC_GRAPH_READ_NO_LIVENESS_CHECK) &&
        (size_t)id < r->released_cap && r->released[id])
        return error_at(r, r->tok.line, r->tok.col,
                        "'%s' is used after line %u released it "
                        "('%s = None')",
                        name, (unsigned)r->released[id], name);
    *out = id;
    return SC_OK;
}

/* The node the current NAME token names among the statement's operands
 * (SC_NODE_NONE: not one of the last eight). */
static sc_node_id used_find(const reader *r)
{
    unsigned k, n = r->nused < 8 ? r->nused : 8;
    size_t len = r->tok.len;
    for (k = 0; k < n; k++) {
        const char *name = r->g->nodes[r->used[k]].name;
        if (strncmp(name, r->tok.start, len) == 0 && name[len] == '\0')
            return r->used[k];
    }
    return SC_NODE_NONE;
}

/* `;  a = b = None` after a statement (the current token follows ';'). */
static sc_status read_liveness(reader *r, int line)
{
    sc_node_id id;
    const char *name;

    if (r->tok.kind == SC__TOK_NEWLINE)
        return SC_OK;
    for (;;) {
        if (at_name(r, "None"))
            break;
        if (r->tok.kind != SC__TOK_NAME)
            return unexpected(r, "a name or None (a '; x = None' suffix)");
        id = used_find(r);
        if (id == SC_NODE_NONE)
            id = sc__graph_find_span(r->g, r->tok.start, r->tok.len);
        if (id == SC_NODE_NONE) {
            name = tok_text(r);
            if (!name)
                return sc__error_nomem(r->err);
            return error_at(r, r->tok.line, r->tok.col,
                            "undefined name '%s' in a '= None' suffix", name);
        }
        SC_TRY(grow_released(r));
        r->released[id] = (uint32_t)line;
        SC_TRY(advance(r));
        SC_TRY(expect_op(r, "="));
    }
    SC_TRY(advance(r));
    if (at_op(r, ";"))
        return advance(r);
    return SC_OK;
}

/* ---- Values ------------------------------------------------------------ */

static sc_status parse_value(reader *r, int depth, sc_value *out);

static sc_status parse_int_token(reader *r, bool negative, sc_value *out)
{
    const sc__token *t = &r->tok;

    if (t->len < 19) {
        int64_t v = 0;
        size_t i;
        for (i = 0; i < t->len; i++)
            v = v * 10 + (t->start[i] - '0');
        *out = sc_value_int(negative ? -v : v);
        return advance(r);
    }
    /* Big: an exact constant expression. */
    {
        char *s = sc__malloc(t->len + 2);
        sc_expr *e;
        if (!s)
            return sc__error_nomem(r->err);
        s[0] = '-';
        memcpy(s + 1, t->start, t->len);
        s[t->len + 1] = '\0';
        e = sc_expr_int_str(r->ctx, negative ? s : s + 1);
        sc__free(s);
        if (!e)
            return locate(r, sc_ctx_take_error(r->ctx, r->err), t->line,
                          t->col);
        if (sc_expr_value_si(e, &out->u.i)) {
            *out = sc_value_int(out->u.i);
        } else {
            *out = sc_value_none();
            out->kind = SC_VALUE_SYMINT;
            out->u.expr = e;
        }
        return advance(r);
    }
}

static sc_status make_float(reader *r, const char *text, size_t n,
                            bool negative, int line, int col, sc_value *out)
{
    char *repr = sc__arena_alloc(&r->g->arena, n + 2);
    double v;
    char *endp;

    if (!repr)
        return sc__error_nomem(r->err);
    repr[0] = '-';
    memcpy(repr + 1, text, n);
    repr[n + 1] = '\0';
    if (n == 3 && memcmp(text, "inf", 3) == 0)
        v = INFINITY;
    else if (n == 3 && memcmp(text, "nan", 3) == 0)
        v = NAN;
    else {
        errno = 0;
        v = strtod(repr + 1, &endp);
        if (*endp != '\0')
            return error_at(r, line, col, "malformed float '%s'", repr + 1);
    }
    *out = sc_value_float(negative ? -v : v, negative ? repr : repr + 1);
    return SC_OK;
}

static sc_status read_dotted(reader *r, int max_parts);

static int count_dots(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '.';
    return n;
}

/* torch.<name>: a dtype, layout or memory format; torch.ops.<op>: an op
 * passed as an argument. */
static sc_status parse_torch_constant(reader *r, sc_value *out)
{
    sc_dtype dt;
    int i;

    SC_TRY(advance(r)); /* torch */
    SC_TRY(expect_op(r, "."));
    if (r->tok.kind != SC__TOK_NAME)
        return unexpected(r, "a dtype, layout or memory format after "
                             "'torch.'");
    *out = sc_value_none();
    if (sc__tok_is(&r->tok, "ops")) {
        /* an op overload passed as an argument */
        char *s;
        int line = r->tok.line, col = r->tok.col;
        SC_TRY(read_dotted(r, 8));
        if (count_dots(r->scratch.data) < 2) /* ops.NAMESPACE.OP */
            return error_at(r, line, col,
                            "expected an op after 'torch.ops.' "
                            "(torch.ops.NAMESPACE.OP[.OVERLOAD])");
        s = sc__arena_alloc(&r->g->arena, r->scratch.len + 7);
        if (!s)
            return sc__error_nomem(r->err);
        s[0] = SC_VALUE_CALLABLE_MARK;
        memcpy(s + 1, "torch.", 6);
        memcpy(s + 7, r->scratch.data, r->scratch.len + 1);
        out->kind = SC_VALUE_STRING;
        out->u.str = s;
        return SC_OK;
    }
    if (sc_dtype_from_torch_name(r->tok.start, r->tok.len, &dt)) {
        out->kind = SC_VALUE_DTYPE;
        out->u.dtype = dt;
        return advance(r);
    }
    for (i = 0; i < SC_LAYOUT_COUNT_; i++)
        if (sc__tok_is(&r->tok, sc_layout_name((sc_layout)i))) {
            out->kind = SC_VALUE_LAYOUT;
            out->u.layout = (sc_layout)i;
            return advance(r);
        }
    for (i = 0; i < SC_MEMORY_FORMAT_COUNT_; i++)
        if (sc__tok_is(&r->tok, sc_memory_format_name((sc_memory_format)i))) {
            out->kind = SC_VALUE_MEMORY_FORMAT;
            out->u.memory_format = (sc_memory_format)i;
            return advance(r);
        }
    return error_at(r, r->tok.line, r->tok.col,
                    "unknown dtype, layout or memory format 'torch.%.*s'",
                    (int)(r->tok.len > 40 ? 40 : r->tok.len), r->tok.start);
}

/* device(type='cuda', index=0), device('cpu'), device('cuda:0') */
static sc_status parse_device(reader *r, sc_value *out)
{
    sc_device dev;
    bool have_type = false;
    int line = r->tok.line, col = r->tok.col;

    dev.type = SC_DEVICE_CPU;
    dev.index = -1;
    SC_TRY(advance(r)); /* device */
    SC_TRY(expect_op(r, "("));
    while (!at_op(r, ")")) {
        bool is_index = false;
        if (r->tok.kind == SC__TOK_NAME &&
            (sc__tok_is(&r->tok, "type") || sc__tok_is(&r->tok, "index"))) {
            is_index = sc__tok_is(&r->tok, "index");
            SC_TRY(advance(r));
            SC_TRY(expect_op(r, "="));
        } else if (have_type) {
            is_index = true;
        }
        if (!is_index) {
            const char *s, *colon;
            size_t n;
            if (r->tok.kind != SC__TOK_STRING)
                return unexpected(r, "a device type string ('cpu')");
            s = sc__lex_string(&r->lx, &n);
            if (!s)
                return sc__error_nomem(r->err);
            colon = memchr(s, ':', n);
            if (!sc_device_type_from_name(s, colon ? (size_t)(colon - s) : n,
                                          &dev.type))
                return error_at(r, r->tok.line, r->tok.col,
                                "unknown device type '%.*s'",
                                (int)(n > 20 ? 20 : n), s);
            if (colon) {
                char *endp;
                long v = strtol(colon + 1, &endp, 10);
                if (endp == colon + 1 || *endp || v < 0 || v > 32767)
                    return error_at(r, r->tok.line, r->tok.col,
                                    "malformed device index");
                dev.index = (int)v;
            }
            have_type = true;
        } else {
            int64_t v = 0;
            size_t i;
            if (r->tok.kind != SC__TOK_INT || r->tok.len > 5)
                return unexpected(r, "a device index");
            for (i = 0; i < r->tok.len; i++)
                v = v * 10 + (r->tok.start[i] - '0');
            if (v > 32767)
                return error_at(r, r->tok.line, r->tok.col,
                                "device index too large");
            dev.index = (int)v;
        }
        SC_TRY(advance(r));
        if (at_op(r, ","))
            SC_TRY(advance(r));
        else if (!at_op(r, ")"))
            return unexpected(r, "',' or ')'");
    }
    if (!have_type)
        return error_at(r, line, col, "device(...) without a type");
    *out = sc_value_none();
    out->kind = SC_VALUE_DEVICE;
    out->u.device = dev;
    return advance(r);
}

/* [a, 1, ...] or (a, 1, ...): items on the value stack, then moved. */
static sc_status parse_sequence(reader *r, int depth, sc_value *out)
{
    bool tuple = at_op(r, "(");
    const char *close = tuple ? ")" : "]";
    size_t base = r->vlen, n;
    bool trailing_comma = false;
    sc_value v, *items;

    if (depth >= SC__GRAPH_MAX_DEPTH)
        return error_at(r, r->tok.line, r->tok.col,
                        "lists nested deeper than %d", SC__GRAPH_MAX_DEPTH);
    SC_TRY(advance(r));
    while (!at_op(r, close)) {
        SC_TRY(parse_value(r, depth + 1, &v));
        SC_TRY(push_value(r, &v));
        trailing_comma = false;
        if (at_op(r, ",")) {
            trailing_comma = true;
            SC_TRY(advance(r));
        } else if (!at_op(r, close)) {
            return unexpected(r, tuple ? "',' or ')'" : "',' or ']'");
        }
    }
    n = r->vlen - base;
    if (tuple && n == 1 && !trailing_comma) {
        /* A parenthesized value, not a tuple. */
        *out = r->vstack[--r->vlen];
        return advance(r);
    }
    SC_TRY(pop_values(r, n, &items));
    *out = sc_value_list(n, items);
    if (tuple)
        out->kind = SC_VALUE_TUPLE;
    return advance(r);
}

static sc_status parse_value(reader *r, int depth, sc_value *out)
{
    sc_node_id id;
    int line = r->tok.line, col = r->tok.col;

    switch (r->tok.kind) {
    case SC__TOK_INT:
        return parse_int_token(r, false, out);
    case SC__TOK_FLOAT:
        SC_TRY(make_float(r, r->tok.start, r->tok.len, false, line, col,
                          out));
        return advance(r);
    case SC__TOK_STRING: {
        size_t n = 0;
        const char *d = sc__lex_string(&r->lx, &n);
        char *s = d ? sc__arena_strdup(&r->g->arena, d, n) : NULL;
        if (!s)
            return sc__error_nomem(r->err);
        *out = sc_value_none();
        out->kind = SC_VALUE_STRING;
        out->u.str = s;
        return advance(r);
    }
    case SC__TOK_OP:
        if (at_op(r, "-")) {
            SC_TRY(advance(r));
            if (r->tok.kind == SC__TOK_INT)
                return parse_int_token(r, true, out);
            if (r->tok.kind == SC__TOK_FLOAT ||
                at_name(r, "inf") || at_name(r, "nan")) {
                SC_TRY(make_float(r, r->tok.start, r->tok.len, true, line,
                                  col, out));
                return advance(r);
            }
            return unexpected(r, "a number after '-'");
        }
        if (at_op(r, "[") || at_op(r, "("))
            return parse_sequence(r, depth, out);
        return unexpected(r, "a value");
    case SC__TOK_NAME:
        if (at_name(r, "None")) {
            *out = sc_value_none();
            return advance(r);
        }
        if (at_name(r, "True") || at_name(r, "False")) {
            *out = sc_value_bool(at_name(r, "True"));
            return advance(r);
        }
        if (at_name(r, "inf") || at_name(r, "nan")) {
            SC_TRY(make_float(r, r->tok.start, r->tok.len, false, line, col,
                              out));
            return advance(r);
        }
        if (at_name(r, "torch"))
            return parse_torch_constant(r, out);
        if (at_name(r, "device"))
            return parse_device(r, out);
        SC_TRY(resolve_use(r, &id));
        *out = sc_value_node(id);
        return advance(r);
    default:
        return unexpected(r, "a value");
    }
}

/* ---- Statements -------------------------------------------------------- */

/* A dotted name starting at the current NAME token, into the scratch
 * buffer. */
static sc_status read_dotted(reader *r, int max_parts)
{
    int parts = 1;
    const char *q = r->tok.start + r->tok.len, *end = r->lx.end;

    sc__buf_reset(&r->scratch);
    /* A call's target as PyTorch prints it, `torch.ops.aten.mm.default(`:
     * one run of names and dots up to the '(', taken from the text at
     * once (the token-wise loop below reads the same name). */
    if (r->tok.kind == SC__TOK_NAME) {
        while (q + 1 < end && *q == '.' && is_name_start_char(q[1])) {
            q += 2;
            while (q < end && is_name_continue_char(*q))
                q++;
            parts++;
        }
        if (q < end && *q == '(' && parts <= max_parts) {
            sc__buf_putn(&r->scratch, r->tok.start,
                         (size_t)(q - r->tok.start));
            if (r->scratch.failed)
                return sc__error_nomem(r->err);
            r->lx.p = q;
            return advance(r);
        }
    }
    parts = 0;
    for (;;) {
        if (r->tok.kind != SC__TOK_NAME)
            return unexpected(r, "a name");
        if (++parts > max_parts)
            return error_at(r, r->tok.line, r->tok.col, "dotted name too "
                                                        "long");
        sc__buf_putn(&r->scratch, r->tok.start, r->tok.len);
        SC_TRY(advance(r));
        if (!at_op(r, "."))
            break;
        sc__buf_putc(&r->scratch, '.');
        SC_TRY(advance(r));
    }
    return r->scratch.failed ? sc__error_nomem(r->err) : SC_OK;
}

static sc_status note_unknown(reader *r, const char *target, int line,
                              int col)
{
    size_t i;
    void *items = r->unknown, *lines = r->unknown_line, *cols;
    for (i = 0; i < r->nunknown; i++)
        if (r->unknown[i] == target)
            return SC_OK;
    if (!sc__grow(&items, &r->unknown_cap, r->nunknown + 1,
                  sizeof *r->unknown))
        return sc__error_nomem(r->err);
    r->unknown = items;
    if (!sc__grow(&lines, &r->unknown_line_cap, r->nunknown + 1,
                  sizeof *r->unknown_line))
        return sc__error_nomem(r->err);
    r->unknown_line = lines;
    cols = r->unknown_col;
    if (!sc__grow(&cols, &r->unknown_col_cap, r->nunknown + 1,
                  sizeof *r->unknown_col))
        return sc__error_nomem(r->err);
    r->unknown_col = cols;
    r->unknown_line[r->nunknown] = line;
    r->unknown_col[r->nunknown] = col;
    r->unknown[r->nunknown++] = target;
    return SC_OK;
}

/* Append a call node; args are the top (npos + nkw) values of the stack
 * and the keyword names the top nkw of the kw stack. */
static sc_status append_node(reader *r, const char *name, const char *target,
                             size_t npos, size_t nkw, const sc_result *meta,
                             int line, int col)
{
    sc_value *args;
    const char **kws = NULL;
    sc_node_id id;
    const char *tgt;

    tgt = sc__graph_intern_target(r->g, target);
    if (!tgt)
        return sc__error_nomem(r->err);
    SC_TRY(pop_values(r, npos + nkw, &args));
    if (nkw) {
        kws = sc__arena_alloc(&r->g->arena, nkw * sizeof *kws);
        if (!kws)
            return sc__error_nomem(r->err);
        memcpy(kws, r->kwstack + r->kwlen - nkw, nkw * sizeof *kws);
        r->kwlen -= nkw;
    }
    SC_TRY(locate(r,
                  sc__graph_append_call(r->g, name, tgt, npos, npos + nkw,
                                        args, kws, meta, line, &id, r->err),
                  line, col));
    if (r->g->nodes[id].op == SC_OP_UNKNOWN &&
        strcmp(tgt, "operator.getitem") != 0 &&
        strncmp(tgt, "self.", 5) != 0) {
        SC_TRY(note_unknown(r, tgt, line, col));
    }
    /* The shape rules against the annotation: a mismatch is an error at
     * this line; no annotation takes the inferred result. */
    SC_TRY(locate(r,
                  sc__shape_check_node(r->g, id,
                                       meta->kind != SC_RESULT_UNKNOWN,
                                       r->err),
                  line, col));
    return grow_released(r);
}

/* getitem bookkeeping: the indexed node becomes a tuple of at least
 * index + 1 elements when it has no annotation. */
static void note_getitem(reader *r, sc_node_id of, int64_t index)
{
    sc__node *n = &r->g->nodes[of];
    if (index < 0 || index >= (int64_t)UINT32_MAX)
        return;
    if (n->rkind == SC_RESULT_UNKNOWN) {
        n->rkind = SC_RESULT_TUPLE;
        n->ndim = 0;
    }
    if (n->rkind == SC_RESULT_TUPLE && (uint64_t)index >= n->ndim &&
        n->kind == SC_NODE_CALL && !(n->flags & SC__NODE_TUPLE_FIXED))
        n->ndim = (uint32_t)index + 1;
}

/* An operand of infix arithmetic: a node name or a number. */
static sc_status parse_operand(reader *r, sc_value *out)
{
    if (r->tok.kind == SC__TOK_NAME || r->tok.kind == SC__TOK_INT ||
        r->tok.kind == SC__TOK_FLOAT || at_op(r, "-"))
        return parse_value(r, 0, out);
    return unexpected(r, "a name or a number");
}

static bool at_infix(const reader *r)
{
    return (r->tok.kind == SC__TOK_OP &&
            sc__graph_infix_target(r->tok.start, r->tok.len) != NULL) ||
           at_name(r, "and") || at_name(r, "or");
}

/* The target of the infix operator at the current token. */
static const char *infix_target(const reader *r)
{
    if (at_name(r, "and"))
        return "operator.and_";
    if (at_name(r, "or"))
        return "operator.or_";
    return sc__graph_infix_target(r->tok.start, r->tok.len);
}

/* A positional argument of a call (after nkw keyword arguments), pushed
 * on the reader's value stack. */
static sc_status parse_positional(reader *r, size_t nkw)
{
    sc_value v;
    if (nkw)
        return error_at(r, r->tok.line, r->tok.col,
                        "positional argument after a keyword argument");
    SC_TRY(parse_value(r, 0, &v));
    return push_value(r, &v);
}

/* The arguments of a call, from its '(' through its ')', pushed on the
 * reader's value and keyword-name stacks; *npos and *nkw count them. */
static sc_status parse_call_args(reader *r, size_t *npos, size_t *nkw)
{
    sc_value v;

    SC_TRY(advance(r));
    while (!at_op(r, ")")) {
        const char *after = r->tok.start + r->tok.len;
        while (after < r->lx.end && is_space(*after))
            after++;
        if (r->tok.kind == SC__TOK_NAME && after < r->lx.end &&
            (*after == ',' || *after == ')')) {
            /* a name right before ',' or ')': positional, no look-ahead */
            SC_TRY(parse_positional(r, *nkw));
            (*npos)++;
        } else if (r->tok.kind == SC__TOK_NAME) {
            /* keyword? look ahead for '=' (not '==') */
            sc__lex_mark lsave;
            sc__token tsave = r->tok;
            const char *kw;
            sc__lex_save(&r->lx, &lsave);
            SC_TRY(advance(r));
            if (at_op(r, "=")) {
                kw = sc__arena_strdup(&r->g->arena, tsave.start, tsave.len);
                if (!kw)
                    return sc__error_nomem(r->err);
                SC_TRY(advance(r));
                SC_TRY(parse_value(r, 0, &v));
                SC_TRY(push_value(r, &v));
                SC_TRY(push_kwname(r, kw));
                (*nkw)++;
            } else {
                sc__lex_restore(&r->lx, &lsave);
                r->tok = tsave;
                SC_TRY(parse_positional(r, *nkw));
                (*npos)++;
            }
        } else {
            SC_TRY(parse_positional(r, *nkw));
            (*npos)++;
        }
        if (at_op(r, ","))
            SC_TRY(advance(r));
        else if (!at_op(r, ")"))
            return unexpected(r, "',' or ')'");
    }
    return advance(r); /* ')' */
}

/* name = target(args) with the target read into r->scratch, the reader
 * at the '('.  On failure the arguments pushed are dropped. */
static sc_status parse_call(reader *r, const char *name, int line, int col,
                            const sc_result *meta)
{
    sc_status status;
    size_t base = r->vlen, kwbase = r->kwlen, npos = 0, nkw = 0;
    const char *target;

    sc__buf_reset(&r->target);
    sc__buf_putn(&r->target, r->scratch.data, r->scratch.len);
    if (r->target.failed)
        return sc__error_nomem(r->err);
    target = r->target.data;
    SC_CHECK(parse_call_args(r, &npos, &nkw));
    SC_CHECK(append_node(r, name, target, npos, nkw, meta, line, col));
    if (strcmp(target, "operator.getitem") == 0 && npos == 2 && nkw == 0) {
        const sc__node *n = &r->g->nodes[r->g->nnodes - 1];
        if (n->args[0].kind == SC_VALUE_NODE &&
            n->args[1].kind == SC_VALUE_INT)
            note_getitem(r, n->args[0].u.node, n->args[1].u.i);
    }
    return SC_OK;
fail:
    r->vlen = base;
    r->kwlen = kwbase;
    return status;
}

/* name[: annotation] = rhs [; liveness] NEWLINE; the name token and the
 * annotation have been read. */
static sc_status parse_node_rhs(reader *r, const char *name, int line, int col,
                                const sc_result *meta)
{
    sc_value v;

    if (r->tok.kind == SC__TOK_NAME && !at_name(r, "None") &&
        !at_name(r, "True") && !at_name(r, "False") && !at_name(r, "inf") &&
        !at_name(r, "nan")) {
        /* A call, an index, or infix arithmetic starting with a name. */
        sc__token first = r->tok;
        sc__lex_mark save;
        sc__lex_save(&r->lx, &save);

        if (at_name(r, "not")) {
            /* not x */
            SC_TRY(advance(r));
            SC_TRY(parse_operand(r, &v));
            SC_TRY(push_value(r, &v));
            SC_TRY(append_node(r, name, "operator.not_", 1, 0, meta, line,
                               col));
            goto tail;
        }
        SC_TRY(read_dotted(r, 16));
        if (at_op(r, "(")) {
            SC_TRY(parse_call(r, name, line, col, meta));
        } else if (strncmp(r->scratch.data, "self.", 5) == 0) {
            /* a get_attr node: a constant or a submodule of the class */
            char *target = sc__strdup(r->scratch.data);
            sc_status st;
            if (!target)
                return sc__error_nomem(r->err);
            st = append_node(r, name, target, 0, 0, meta, line, col);
            sc__free(target);
            SC_TRY(st);
        } else {
            /* Not a call: restart at the first name as an operand. */
            if (strchr(r->scratch.data, '.') != NULL)
                return error_at(r, first.line, first.col,
                                "expected a call after the dotted name "
                                "'%s'", r->scratch.data);
            sc__lex_restore(&r->lx, &save);
            r->tok = first;
            SC_TRY(parse_operand(r, &v));
            if (at_op(r, "[")) {
                /* x[0] */
                sc_value idx;
                if (v.kind != SC_VALUE_NODE)
                    return error_at(r, first.line, first.col,
                                    "only a node can be indexed");
                SC_TRY(advance(r));
                if (r->tok.kind != SC__TOK_INT &&
                    !(at_op(r, "-")))
                    return unexpected(r, "an integer index");
                SC_TRY(parse_value(r, 0, &idx));
                if (idx.kind != SC_VALUE_INT)
                    return error_at(r, first.line, first.col,
                                    "index out of range");
                SC_TRY(expect_op(r, "]"));
                SC_TRY(push_value(r, &v));
                SC_TRY(push_value(r, &idx));
                SC_TRY(append_node(r, name, "operator.getitem", 2, 0, meta,
                                   line, col));
                note_getitem(r, v.u.node, idx.u.i);
            } else if (at_infix(r)) {
                const char *tgt =
                    infix_target(r);
                sc_value rhs;
                SC_TRY(advance(r));
                SC_TRY(parse_operand(r, &rhs));
                SC_TRY(push_value(r, &v));
                SC_TRY(push_value(r, &rhs));
                SC_TRY(append_node(r, name, tgt, 2, 0, meta, line, col));
            } else {
                return unexpected(r, "a call, an index or an operator");
            }
        }
    } else if (at_op(r, "-") || r->tok.kind == SC__TOK_INT ||
               r->tok.kind == SC__TOK_FLOAT) {
        /* -x, or a number op x */
        sc_value lhs, rhs;
        if (at_op(r, "-")) {
            sc__lex_mark save;
            sc__token minus = r->tok;
            sc__lex_save(&r->lx, &save);
            SC_TRY(advance(r));
            if (r->tok.kind == SC__TOK_NAME && !at_name(r, "inf") &&
                !at_name(r, "nan")) {
                SC_TRY(parse_operand(r, &lhs));
                SC_TRY(push_value(r, &lhs));
                SC_TRY(append_node(r, name, "operator.neg", 1, 0, meta,
                                   line, col));
                goto tail;
            }
            sc__lex_restore(&r->lx, &save);
            r->tok = minus;
        }
        SC_TRY(parse_operand(r, &lhs));
        if (!at_infix(r))
            return unexpected(r, "an operator");
        {
            const char *tgt = infix_target(r);
            SC_TRY(advance(r));
            SC_TRY(parse_operand(r, &rhs));
            SC_TRY(push_value(r, &lhs));
            SC_TRY(push_value(r, &rhs));
            SC_TRY(append_node(r, name, tgt, 2, 0, meta, line, col));
        }
    } else {
        return unexpected(r, "a call, an index or an operator");
    }
tail:
    if (at_op(r, ";")) {
        SC_TRY(advance(r));
        SC_TRY(read_liveness(r, line));
    }
    return expect_newline(r);
}

/* ---- Placeholders ------------------------------------------------------- */

static sc_status placeholders_known(reader *r);

static sc_role role_of(const reader *r, const char *name)
{
    if (strncmp(name, "tangents", 8) == 0 && (!r->pytree || r->has_tangents))
        return SC_ROLE_TANGENT;
    return SC_ROLE_PRIMAL;
}

static sc_status add_placeholder(reader *r, const char *name,
                                 const sc_result *meta, int line, int col)
{
    sc_node_id id;
    sc_result given;
    size_t i;

    for (i = 0; i < r->opts->ninputs; i++)
        if (strcmp(r->opts->input_names[i], name) == 0) {
            const char *t = r->opts->input_types[i];
            if (meta->kind != SC_RESULT_UNKNOWN)
                return error_at(r, line, col,
                                "'%s' is annotated in the text: its type "
                                "cannot be given as an input type",
                                name);
            SC_TRY(parse_annotation(r, t, strlen(t), line, col, &given));
            meta = &given;
        }

    if (sc_graph_find(r->g, name) != SC_NODE_NONE)
        return error_at(r, line, col, "duplicate definition of '%s'", name);
    SC_TRY(locate(r,
                  sc_graph_add_placeholder(r->g, name, role_of(r, name), meta,
                                           &id, r->err),
                  line, col));
    r->g->nodes[id].line = (uint32_t)line;
    return grow_released(r);
}

/* The slot of pending name (name, len) in the hash set: its entry, or
 * the empty slot where it would go.  The set has room. */
static size_t pending_slot(const reader *r, const char *name, size_t len)
{
    size_t mask = r->pending_slots_cap - 1, j = hash_span(name, len) & mask;
    while (r->pending_slots[j]) {
        const char *q = r->pending[r->pending_slots[j] - 1].name;
        if (strncmp(q, name, len) == 0 && q[len] == '\0')
            return j;
        j = (j + 1) & mask;
    }
    return j;
}

/* The index of pending name, or npending. */
static size_t pending_find(const reader *r, const char *name)
{
    uint32_t i1;
    if (!r->npending)
        return 0;
    i1 = r->pending_slots[pending_slot(r, name, strlen(name))];
    return i1 ? i1 - 1 : r->npending;
}

/* Room in the hash set for one more pending name. */
static bool pending_slots_grow(reader *r)
{
    size_t ncap, i, j;
    uint32_t *slots;
    if ((r->npending + 1) * 2 <= r->pending_slots_cap)
        return true;
    ncap = r->pending_slots_cap ? r->pending_slots_cap * 2 : 64;
    slots = sc__calloc(ncap, sizeof *slots);
    if (!slots)
        return false;
    for (i = 0; i < r->npending; i++) {
        j = hash_span(r->pending[i].name, strlen(r->pending[i].name)) &
            (ncap - 1);
        while (slots[j])
            j = (j + 1) & (ncap - 1);
        slots[j] = (uint32_t)i + 1;
    }
    sc__free(r->pending_slots);
    r->pending_slots = slots;
    r->pending_slots_cap = ncap;
    return true;
}

static void pending_clear(reader *r)
{
    r->npending = 0;
    if (r->pending_slots)
        memset(r->pending_slots, 0,
               r->pending_slots_cap * sizeof *r->pending_slots);
}

static sc_status add_pending(reader *r, const char *name, size_t len,
                             const sc_result *meta, int line, int col)
{
    void *items = r->pending;
    pending_ph *p;
    size_t nd, slot;

    if (r->npending >= UINT32_MAX - 1 || !pending_slots_grow(r))
        return sc__error_nomem(r->err);
    slot = pending_slot(r, name, len);
    if (r->pending_slots[slot])
        return error_at(r, line, col, "duplicate definition of '%.*s'",
                        (int)len, name);
    if (!sc__grow(&items, &r->pending_cap, r->npending + 1, sizeof *p))
        return sc__error_nomem(r->err);
    r->pending = items;
    p = &r->pending[r->npending];
    p->name = sc__arena_strdup(&r->g->arena, name, len);
    if (!p->name)
        return sc__error_nomem(r->err);
    p->meta = *meta;
    p->line = line;
    p->col = col;
    if (meta->kind == SC_RESULT_TENSOR && meta->tensor.ndim) {
        sc_expr **dims;
        nd = meta->tensor.ndim * (meta->tensor.has_strides ? 2 : 1);
        dims = sc__arena_alloc(&r->g->arena, nd * sizeof *dims);
        if (!dims)
            return sc__error_nomem(r->err);
        memcpy(dims, meta->tensor.sizes,
               meta->tensor.ndim * sizeof *dims);
        if (meta->tensor.has_strides)
            memcpy(dims + meta->tensor.ndim, meta->tensor.strides,
                   meta->tensor.ndim * sizeof *dims);
        p->meta.tensor.sizes = dims;
        p->meta.tensor.strides =
            meta->tensor.has_strides ? dims + meta->tensor.ndim : NULL;
    }
    r->pending_slots[slot] = (uint32_t)r->npending + 1;
    r->npending++;
    return SC_OK;
}

/* Declared placeholders that no unpacking line listed become nodes in
 * declaration order. */
static sc_status flush_pending(reader *r)
{
    size_t i;
    for (i = 0; i < r->npending; i++) {
        SC_TRY(add_placeholder(r, r->pending[i].name, &r->pending[i].meta,
                               r->pending[i].line, r->pending[i].col));
    }
    pending_clear(r);
    return placeholders_known(r);
}

/* `a: "f32[..]"; b: "..."; ` — the first name and ':' have been read and
 * the current token starts the first annotation. */
static sc_status parse_declarations(reader *r, sc__token first)
{
    sc_result meta;
    sc__token name = first;

    if (r->placeholders_done || !r->pytree)
        return error_at(r, first.line, first.col,
                        "a placeholder declaration after the graph's inputs "
                        "were defined");
    for (;;) {
        SC_TRY(read_annotation(r, &meta));
        SC_TRY(add_pending(r, name.start, name.len, &meta, name.line,
                           name.col));
        if (at_op(r, ";")) {
            SC_TRY(advance(r));
        } else if (r->tok.kind != SC__TOK_NEWLINE) {
            return unexpected(r, "';' or the end of the line");
        }
        if (r->tok.kind == SC__TOK_NEWLINE)
            return advance(r);
        if (r->tok.kind != SC__TOK_NAME)
            return unexpected(r, "a placeholder name");
        name = r->tok;
        SC_TRY(advance(r));
        SC_TRY(expect_op(r, ":"));
    }
}

/* `a, b, c, = fx_pytree.tree_flatten_spec([primals, tangents],
 * self._in_spec)` — the first name has been read (first). */
static sc_status parse_unpacking(reader *r, sc__token first)
{
    sc_status status;
    sc__token *names = NULL;
    size_t n = 0, cap = 0, i, j, next;
    void *items;
    int depth;

    if (r->placeholders_done)
        return error_at(r, first.line, first.col,
                        "an unpacking line after the graph's inputs were "
                        "defined");
    items = NULL;
    if (!sc__grow(&items, &cap, 1, sizeof *names))
        return sc__error_nomem(r->err);
    names = items;
    names[n++] = first;
    while (at_op(r, ",")) {
        SC_CHECK(advance(r));
        if (at_op(r, "="))
            break;
        if (r->tok.kind != SC__TOK_NAME) {
            status = unexpected(r, "a placeholder name");
            goto fail;
        }
        items = names;
        if (!sc__grow(&items, &cap, n + 1, sizeof *names)) {
            status = sc__error_nomem(r->err);
            goto fail;
        }
        names = items;
        names[n++] = r->tok;
        SC_CHECK(advance(r));
    }
    SC_CHECK(expect_op(r, "="));
    SC_CHECK(read_dotted(r, 4));
    if (strcmp(r->scratch.data, "fx_pytree.tree_flatten_spec") != 0) {
        status = error_at(r, first.line, first.col,
                          "expected 'fx_pytree.tree_flatten_spec(...)' to "
                          "unpack the inputs");
        goto fail;
    }
    if (!at_op(r, "(")) {
        status = unexpected(r, "'('");
        goto fail;
    }
    /* Skip the balanced arguments. */
    depth = 0;
    do {
        if (r->tok.kind == SC__TOK_EOF) {
            status = unexpected(r, "')'");
            goto fail;
        }
        if (at_op(r, "(") || at_op(r, "["))
            depth++;
        else if (at_op(r, ")") || at_op(r, "]"))
            depth--;
        SC_CHECK(advance(r));
    } while (depth > 0);
    SC_CHECK(expect_newline(r));
    /* The declared placeholders must appear in the unpacking line in
     * their order; names not declared have no annotation. */
    next = 0;
    for (i = 0; i < n; i++) {
        const sc_result *meta = NULL;
        sc_result unknown;
        char *name = sc__strndup(names[i].start, names[i].len);
        if (!name) {
            status = sc__error_nomem(r->err);
            goto fail;
        }
        sc_result_init(&unknown);
        meta = &unknown;
        j = pending_find(r, name);
        if (j < r->npending) {
            if (j != next) {
                status = error_at(r, names[i].line, names[i].col,
                                  "'%s' is declared at another position "
                                  "on the declaration line",
                                  name);
                sc__free(name);
                goto fail;
            }
            meta = &r->pending[j].meta;
            next++;
        }
        status = add_placeholder(r, name, meta, names[i].line, names[i].col);
        sc__free(name);
        SC_CHECK(status);
    }
    if (next < r->npending) {
        status = error_at(r, r->pending[next].line, r->pending[next].col,
                          "'%s' is declared but not unpacked",
                          r->pending[next].name);
        goto fail;
    }
    pending_clear(r);
    status = placeholders_known(r);
fail:
    sc__free(names);
    return status;
}

/* ---- Return ------------------------------------------------------------ */

static sc_status parse_output_list(reader *r, const char *close,
                                   sc_node_id **outs, size_t *n, size_t *cap)
{
    sc_node_id id;
    void *items;

    while (!at_op(r, close)) {
        if (at_name(r, "None")) {
            id = SC_NODE_NONE;
        } else if (r->tok.kind == SC__TOK_NAME) {
            SC_TRY(resolve_use(r, &id));
        } else {
            return unexpected(r, "a node name or None in the output list");
        }
        items = *outs;
        if (!sc__grow(&items, cap, *n + 1, sizeof **outs))
            return sc__error_nomem(r->err);
        *outs = items;
        (*outs)[(*n)++] = id;
        SC_TRY(advance(r));
        if (at_op(r, ","))
            SC_TRY(advance(r));
        else if (!at_op(r, close))
            return unexpected(r, close[0] == ']' ? "',' or ']'" : "',' or ')'");
    }
    return advance(r);
}

/* The graph's kind: the caller's, a `# symcut: role` line's, the
 * framing's, or from the signature and names (nout: the number of
 * outputs). */
static sc_graph_kind detect_kind(const reader *r, size_t nout)
{
    if (r->opts->kind != SC_GRAPH_KIND_UNKNOWN)
        return r->opts->kind;
    if (r->directive_kind != SC_GRAPH_KIND_UNKNOWN)
        return r->directive_kind;
    if (r->frame && r->frame->kind != SC_GRAPH_KIND_UNKNOWN)
        return r->frame->kind;
    return sc__graph_guess_kind(r->g, nout);
}

static sc_status parse_return(reader *r)
{
    sc_status status;
    sc_node_id *outs = NULL, id;
    size_t n = 0, cap = 0, nfwd;
    sc_graph_kind kind;
    int line = r->tok.line, col = r->tok.col;

    r->ret_line = line;
    r->ret_col = col;
    SC_TRY(advance(r)); /* return */
    if (at_name(r, "pytree")) {
        SC_CHECK(read_dotted(r, 4));
        if (strcmp(r->scratch.data, "pytree.tree_unflatten") != 0) {
            status = error_at(r, line, col,
                              "expected 'pytree.tree_unflatten([...], "
                              "self._out_spec)'");
            goto fail;
        }
        SC_CHECK(expect_op(r, "("));
        SC_CHECK(expect_op(r, "["));
        SC_CHECK(parse_output_list(r, "]", &outs, &n, &cap));
        SC_CHECK(expect_op(r, ","));
        SC_CHECK(read_dotted(r, 4));
        if (strcmp(r->scratch.data, "self._out_spec") != 0) {
            status = unexpected(r, "'self._out_spec'");
            goto fail;
        }
        SC_CHECK(expect_op(r, ")"));
    } else if (at_op(r, "[")) {
        SC_CHECK(advance(r));
        SC_CHECK(parse_output_list(r, "]", &outs, &n, &cap));
    } else if (at_op(r, "(")) {
        SC_CHECK(advance(r));
        SC_CHECK(parse_output_list(r, ")", &outs, &n, &cap));
    } else if (r->tok.kind == SC__TOK_NAME) {
        id = SC_NODE_NONE;
        if (!at_name(r, "None"))
            SC_CHECK(resolve_use(r, &id));
        outs = sc__malloc(sizeof *outs);
        if (!outs) {
            status = sc__error_nomem(r->err);
            goto fail;
        }
        outs[n++] = id;
        SC_CHECK(advance(r));
    } else {
        status = unexpected(r, "the outputs after 'return'");
        goto fail;
    }
    if (r->tok.kind != SC__TOK_NEWLINE && r->tok.kind != SC__TOK_EOF) {
        status = unexpected(r, "the end of the line");
        goto fail;
    }
    kind = detect_kind(r, n);
    if (r->opts->num_fwd_outputs >= 0) {
        if ((size_t)r->opts->num_fwd_outputs > n) {
            status = error_at(r, line, col,
                              "%ld forward outputs requested, but the graph "
                              "returns %zu values",
                              r->opts->num_fwd_outputs, n);
            goto fail;
        }
        nfwd = (size_t)r->opts->num_fwd_outputs;
    } else if (kind == SC_GRAPH_KIND_BACKWARD) {
        nfwd = 0;
    } else if (kind == SC_GRAPH_KIND_JOINT) {
        if (n < r->g->nprimals) {
            status = error_at(r, line, col,
                              "a joint graph returns its forward outputs "
                              "and one gradient per primal, but this one "
                              "returns %zu values for %zu primals (give the "
                              "number of forward outputs)",
                              n, r->g->nprimals);
            goto fail;
        }
        nfwd = n - r->g->nprimals;
    } else {
        nfwd = n;
    }
    status = sc_graph_set_outputs(r->g, n, outs, nfwd, r->err);
    status = locate(r, status, line, col);
    if (status == SC_OK)
        status = sc_graph_set_kind(r->g, kind, r->err);
    if (status == SC_OK && !r->flat)
        status = sc__graph_set_note(r->g, ".pytree", "1", r->err);
fail:
    sc__free(outs);
    return status;
}

/* ---- Header and body --------------------------------------------------- */

/* def forward(self, ...): */
static sc_status parse_signature(reader *r)
{
    sc_status st;
    bool any_annotated = false, only_pytree = true;
    size_t nparams = 0;
    sc__token params[2];
    int line = r->tok.line;

    SC_TRY(expect_name(r, "def"));
    SC_TRY(expect_name(r, "forward"));
    SC_TRY(expect_op(r, "("));
    SC_TRY(expect_name(r, "self"));
    /* First pass over a copy of the lexer: which form is it? */
    {
        sc__lex_mark save;
        sc__lex_save(&r->lx, &save);
        sc__token tsave = r->tok;
        int depth = 0;
        while (r->tok.kind != SC__TOK_EOF) {
            if (depth == 0 && at_op(r, ")"))
                break;
            if (at_op(r, "(") || at_op(r, "["))
                depth++;
            else if (at_op(r, ")") || at_op(r, "]"))
                depth--;
            else if (depth == 0 && at_op(r, ":"))
                any_annotated = true;
            else if (depth == 0 && r->tok.kind == SC__TOK_NAME &&
                     !(r->tok.len == 7 && memcmp(r->tok.start, "primals", 7) == 0) &&
                     !(r->tok.len == 8 && memcmp(r->tok.start, "tangents", 8) == 0))
                only_pytree = false;
            else if (depth == 0 && r->tok.kind == SC__TOK_NAME && nparams < 2)
                params[nparams++] = r->tok;
            SC_TRY(advance(r));
        }
        sc__lex_restore(&r->lx, &save);
        r->tok = tsave;
    }
    r->pytree = !any_annotated && only_pytree && nparams > 0;
    r->flat = !r->pytree;
    if (r->pytree) {
        r->has_tangents = nparams == 2 && sc__tok_is(&params[1], "tangents");
        if (!sc__tok_is(&params[0], "primals") ||
            (nparams == 2 && !r->has_tangents))
            return error_at(r, params[0].line, params[0].col,
                            "expected 'def forward(self, primals, "
                            "tangents):' or 'def forward(self, primals):'");
    }
    while (at_op(r, ",")) {
        sc__token name;
        sc_result meta;
        char *s;
        SC_TRY(advance(r));
        if (at_op(r, ")"))
            break;
        if (r->tok.kind != SC__TOK_NAME)
            return unexpected(r, "a parameter name");
        name = r->tok;
        SC_TRY(advance(r));
        if (r->pytree)
            continue;
        sc_result_init(&meta);
        if (at_op(r, ":")) {
            SC_TRY(advance(r));
            SC_TRY(read_annotation(r, &meta));
        }
        s = sc__strndup(name.start, name.len);
        if (!s)
            return sc__error_nomem(r->err);
        st = add_placeholder(r, s, &meta, name.line, name.col);
        sc__free(s);
        SC_TRY(st);
    }
    SC_TRY(expect_op(r, ")"));
    if (at_op(r, "->")) {
        /* a return annotation: skip to ':' */
        while (r->tok.kind != SC__TOK_EOF && r->tok.kind != SC__TOK_NEWLINE &&
               !at_op(r, ":")) {
            SC_TRY(advance(r));
        }
    }
    SC_TRY(expect_op(r, ":"));
    SC_TRY(expect_newline(r));
    (void)line;
    return r->pytree ? SC_OK : placeholders_known(r);
}

static sc_status parse_class_header(reader *r)
{
    const char *name;

    SC_TRY(expect_name(r, "class"));
    if (at_op(r, "<")) {
        /* class <lambda>(torch.nn.Module): */
        int line = r->tok.line, col = r->tok.col;
        char buf[72];
        SC_TRY(advance(r));
        if (r->tok.kind != SC__TOK_NAME || r->tok.len > 64)
            return unexpected(r, "a class name");
        snprintf(buf, sizeof buf, "<%.*s>", (int)r->tok.len, r->tok.start);
        SC_TRY(advance(r));
        if (!at_op(r, ">"))
            return unexpected(r, "'>'");
        SC_TRY(locate(r, sc_graph_set_class_name(r->g, buf, r->err), line,
                      col));
        SC_TRY(advance(r));
        goto bases;
    }
    if (r->tok.kind != SC__TOK_NAME)
        return unexpected(r, "a class name");
    name = tok_text(r);
    if (!name)
        return sc__error_nomem(r->err);
    SC_TRY(locate(r, sc_graph_set_class_name(r->g, name, r->err),
                  r->tok.line, r->tok.col));
    SC_TRY(advance(r));
bases:
    if (at_op(r, "(")) {
        SC_TRY(advance(r));
        SC_TRY(read_dotted(r, 8));
        SC_TRY(expect_op(r, ")"));
    }
    SC_TRY(expect_op(r, ":"));
    return expect_newline(r);
}

/* The comment lines right before the statement starting at token t
 * (`# File: ...`, `# No stacktrace found ...`; not `# symcut:` ones) are
 * kept for the node just made: "ID\x01TEXT\x02" appended to
 * r->comments (the ".comments" note, sc__graph_set_note). */
static sc_status keep_comments(reader *r, const sc__token *t)
{
    const char *ls = t->start - (t->col - 1), *lo = r->frame->line_start;
    const char *first = NULL, *p, *q;
    sc__buf *b = &r->comments;

    /* walk back over the comment lines */
    p = ls;
    while (p > lo) {
        const char *prev = p - 1, *c;
        while (prev > lo && prev[-1] != '\n')
            prev--;
        c = sc__lex_skip_log_prefix(prev, p - 1);
        while (c < p - 1 && (*c == ' ' || *c == '\t'))
            c++;
        if (c >= p - 1 || *c != '#')
            break;
        q = c + 1;
        while (q < p - 1 && *q == ' ')
            q++;
        if ((size_t)(p - 1 - q) >= 7 && memcmp(q, "symcut:", 7) == 0)
            break;
        first = prev;
        p = prev;
    }
    if (!first)
        return SC_OK;
    sc__buf_printf(b, "%zu\x01", r->g->nnodes - 1);
    for (p = first; p < ls;) {
        const char *e = memchr(p, '\n', (size_t)(ls - p)), *c;
        if (!e)
            e = ls;
        c = sc__lex_skip_log_prefix(p, e);
        while (c < e && (*c == ' ' || *c == '\t'))
            c++;
        q = e;
        while (q > c && (q[-1] == '\r' || q[-1] == ' '))
            q--;
        if (p != first)
            sc__buf_putc(b, '\n');
        for (; c < q; c++) /* the note's separators stay separators */
            sc__buf_putc(b, *c == '\x01' || *c == '\x02' ? '?' : *c);
        p = e + 1;
    }
    sc__buf_putc(b, '\x02');
    return b->failed ? sc__error_nomem(r->err) : SC_OK;
}

/* The progress of the read, in bytes of the graph's text: a call each
 * time the statements parsed pass another PROGRESS_STEP bytes. */
#define PROGRESS_STEP ((size_t)64 * 1024)
#define PROGRESS_PHASE "reading the graph"

static void progress_report(reader *r)
{
    size_t done = (size_t)(r->lx.p - r->frame->start);
    if (done < r->progress_next)
        return;
    r->opts->progress(r->opts->progress_user, PROGRESS_PHASE, done,
                      (size_t)(r->frame->end - r->frame->start));
    r->progress_next = done - done % PROGRESS_STEP + PROGRESS_STEP;
}

static sc_status parse_body(reader *r)
{
    size_t ncomments = SIZE_MAX;

    for (;;) {
        sc__token first = r->tok;
        const char *name;
        sc_result meta;
        sc_node_id dup;
        bool maybe_comments = r->lx.ncomments != ncomments;

        ncomments = r->lx.ncomments;
        r->nused = 0;
        if (SC__UNLIKELY(r->opts->progress != NULL))
            progress_report(r);

        if (r->tok.kind == SC__TOK_EOF)
            return error_at(r, r->tok.line, r->tok.col,
                            "unexpected end of file (expected a 'return' "
                            "statement)");
        if (at_name(r, "return")) {
            if (!r->placeholders_done) {
                SC_TRY(flush_pending(r));
            }
            return parse_return(r);
        }
        if (r->tok.kind != SC__TOK_NAME)
            return unexpected(r, "a statement");
        SC_TRY(advance(r));
        if (at_op(r, ",")) {
            SC_TRY(parse_unpacking(r, first));
            continue;
        }
        sc_result_init(&meta);
        if (at_op(r, ":")) {
            SC_TRY(advance(r));
            if (r->pytree && !r->placeholders_done) {
                /* A declaration line, or the first node statement. */
                sc__lex_mark save;
        sc__lex_save(&r->lx, &save);
                sc__token tsave = r->tok;
                SC_TRY(read_annotation(r, &meta));
                if (!at_op(r, "=")) {
                    sc__lex_restore(&r->lx, &save);
                    r->tok = tsave;
                    SC_TRY(parse_declarations(r, first));
                    continue;
                }
            } else {
                SC_TRY(read_annotation(r, &meta));
            }
        }
        if (!at_op(r, "="))
            return unexpected(r, "'=' (a statement 'name: \"annotation\" = "
                                 "call(...)')");
        SC_TRY(advance(r));
        if (!r->placeholders_done) {
            SC_TRY(flush_pending(r));
        }
        sc__buf_reset(&r->name);
        sc__buf_putn(&r->name, first.start, first.len);
        if (r->name.failed)
            return sc__error_nomem(r->err);
        name = r->name.data;
        dup = sc__graph_find_span(r->g, first.start, first.len);
        if (dup != SC_NODE_NONE)
            return error_at(r, first.line, first.col,
                            "duplicate definition of '%s' (first defined at "
                            "line %d)",
                            name, sc_graph_node_line(r->g, dup));
        /* The annotation's dims must survive until the node is made:
         * they live in r->dims, which only annotations write. */
        SC_TRY(parse_node_rhs(r, name, first.line, first.col, &meta));
        /* comment lines before the statement: only if the lexer skipped
         * a comment since the previous statement began */
        if (maybe_comments)
            SC_TRY(keep_comments(r, &first));
    }
}

/* ---- Directives, hints and the environment ----------------------------- */

static sc_status apply_directive(reader *r, const sc__lex_directive *d)
{
    const char *s = d->text, *end = d->text + d->len, *k;
    sc_status st;
    int col = d->col;

    while (s < end && is_space(*s))
        s++;
    k = s;
    while (s < end && !is_space(*s))
        s++;
    if (s == k)
        return error_at(r, d->line, col, "empty '# symcut:' directive");
    if (s - k == 4 && memcmp(k, "hint", 4) == 0) {
        /* hint s0=8 s1=64 (or with commas) */
        for (;;) {
            const char *name, *val;
            size_t nlen;
            int64_t v = 0;
            char buf[80];
            sc_expr *sym;
            while (s < end && (is_space(*s) || *s == ',' || *s == '\r'))
                s++;
            if (s >= end)
                break;
            name = s;
            while (s < end && *s != '=' && !is_space(*s) && *s != ',')
                s++;
            nlen = (size_t)(s - name);
            if (!is_simple_name(name, nlen) || s >= end || *s != '=')
                return error_at(r, d->line, d->col + (int)(name - d->text),
                                "expected 'SYMBOL=VALUE' in a hint "
                                "directive");
            val = ++s;
            while (s < end && *s >= '0' && *s <= '9') {
                if (v > (INT64_MAX - 9) / 10)
                    return error_at(r, d->line, d->col + (int)(val - d->text),
                                    "hint too large");
                v = v * 10 + (*s - '0');
                s++;
            }
            if (s == val || (s < end && !is_space(*s) && *s != ',' &&
                             *s != '\r'))
                return error_at(r, d->line, d->col + (int)(val - d->text),
                                "expected a non-negative integer hint");
            snprintf(buf, sizeof buf, "%.*s", (int)nlen, name);
            sym = sc_expr_symbol(r->ctx, buf);
            if (!sym)
                return locate(r, sc_ctx_take_error(r->ctx, r->err), d->line,
                              d->col + (int)(name - d->text));
            SC_TRY(locate(r, sc_graph_set_hint(r->g, sym, v, r->err),
                          d->line, d->col));
        }
        return SC_OK;
    }
    if (s - k == 4 && memcmp(k, "role", 4) == 0) {
        const char *v = s, *e = end;
        while (v < e && is_space(*v))
            v++;
        while (e > v && (is_space(e[-1]) || e[-1] == '\r'))
            e--;
        if (!sc_graph_kind_from_name(v, (size_t)(e - v), &r->directive_kind))
            return error_at(r, d->line, d->col + (int)(v - d->text),
                            "expected joint, forward, backward or inference "
                            "after 'role'");
        return SC_OK;
    }
    {
        char key[64];
        const char *v = s;
        size_t vlen;
        char *value;
        if (s - k >= (ptrdiff_t)sizeof key)
            return error_at(r, d->line, col, "directive name too long");
        memcpy(key, k, (size_t)(s - k));
        key[s - k] = '\0';
        while (v < end && is_space(*v))
            v++;
        vlen = (size_t)(end - v);
        while (vlen && (is_space(v[vlen - 1]) || v[vlen - 1] == '\r'))
            vlen--;
        value = sc__strndup(v, vlen);
        if (!value)
            return sc__error_nomem(r->err);
        st = sc_graph_set_directive(r->g, key, value, r->err);
        sc__free(value);
        return locate(r, st, d->line, d->col + (int)(k - d->text));
    }
}

/* ---- After the return: nested submodules ------------------------------- */

static size_t lead_ws(const char *c, const char *e)
{
    const char *q = c;
    while (q < e && (*q == ' ' || *q == '\t'))
        q++;
    return (size_t)(q - c);
}

/* The lines after the return statement, up to the end of the graph:
 * blank lines, comments, and nested `class NAME(torch.nn.Module):` blocks
 * (the bodies of higher-order ops), kept dedented as the ".sub" note. */
static sc_status parse_trailer(reader *r)
{
    const char *p = r->lx.p, *end = r->lx.end;
    int line = r->lx.line;
    sc__buf b;
    sc_status status = SC_OK;

    if (p > r->lx.line_start && p[-1] != '\n') {
        /* the return ended the text without a newline */
        return SC_OK;
    }
    sc__buf_init(&b);
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p)), *c;
        size_t ind;
        if (!e)
            e = end;
        c = sc__lex_skip_log_prefix(p, e);
        ind = lead_ws(c, e);
        if (c + ind >= e || c[ind] == '#' || c[ind] == '\r') {
            p = e < end ? e + 1 : e;
            line++;
            continue;
        }
        if (!((size_t)(e - c - ind) > 6 &&
              memcmp(c + ind, "class ", 6) == 0)) {
            status = error_at(r, line, (int)(c + ind - p) + 1,
                              "unexpected text after the return statement");
            goto fail;
        }
        /* a nested class: through the lines indented deeper */
        for (;;) {
            const char *t = e;
            size_t k = lead_ws(c, e);
            k = k < ind ? k : ind;
            while (t > c + k && (t[-1] == '\r' || t[-1] == ' '))
                t--;
            if (b.len || t > c + k)
                sc__buf_putn(&b, c + k, (size_t)(t - c - k));
            sc__buf_putc(&b, '\n');
            p = e < end ? e + 1 : e;
            line++;
            if (p >= end)
                break;
            e = memchr(p, '\n', (size_t)(end - p));
            if (!e)
                e = end;
            c = sc__lex_skip_log_prefix(p, e);
            if (c + lead_ws(c, e) < e && c[lead_ws(c, e)] != '\r' &&
                lead_ws(c, e) <= ind)
                break;
        }
    }
    /* trailing blank lines out */
    while (b.len >= 2 && b.data[b.len - 1] == '\n' &&
           b.data[b.len - 2] == '\n')
        b.data[--b.len] = '\0';
    if (b.failed) {
        status = sc__error_nomem(r->err);
        goto fail;
    }
    if (b.len)
        status = sc__graph_set_note(r->g, ".sub", b.data, r->err);
fail:
    sc__buf_free(&b);
    return status;
}

void sc_graph_read_options_init(sc_graph_read_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->num_fwd_outputs = -1;
}

/* Whether some '#' of [p, end) is followed by spaces and "symcut:", as
 * every directive's is (most texts have a '#' or two: memchr finds them
 * at memory speed). */
static bool may_hold_directive(const char *p, const char *end)
{
    while (p < end && (p = memchr(p, '#', (size_t)(end - p))) != NULL) {
        p++;
        while (p < end && is_space(*p))
            p++;
        if (end - p >= 7 && memcmp(p, "symcut:", 7) == 0)
            return true;
    }
    return false;
}

/* `# symcut:` directives, from every full-line comment of the text (so
 * that hints are known before the first shape rule runs), then the
 * caller's hints, which win. */
static sc_status scan_directives(reader *r)
{
    const char *p = r->all_text, *end = r->all_text + r->all_len, *eol, *q;
    int line = 1;
    size_t i;

    /* no line can hold a directive otherwise */
    if (!may_hold_directive(p, end))
        p = end;
    while (p < end) {
        eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        q = sc__lex_skip_log_prefix(p, eol);
        while (q < eol && (is_space(*q) || *q == '\r'))
            q++;
        if (q < eol && *q == '#') {
            q++;
            while (q < eol && is_space(*q))
                q++;
            if (eol - q >= 7 && memcmp(q, "symcut:", 7) == 0) {
                sc__lex_directive d;
                d.text = q + 7;
                d.len = (size_t)(eol - d.text);
                d.line = line;
                d.col = (int)(d.text - p) + 1;
                SC_TRY(apply_directive(r, &d));
            }
        }
        p = eol + 1;
        line++;
    }
    for (i = 0; i < r->opts->nhints; i++) {
        SC_TRY(sc_graph_set_hint(r->g, r->opts->hint_symbols[i],
                                 r->opts->hint_values[i], r->err));
    }
    return SC_OK;
}

/* The placeholders are known: register their symbols in the environment
 * (with their sources) before the shape rules see them. */
static sc_status placeholders_known(reader *r)
{
    sc_status st;
    r->placeholders_done = true;
    st = sc__graph_bind_env(r->g, r->opts->env, r->err);
    return st == SC_ERR_NOMEM ? st : locate(r, st, r->tok.line, r->tok.col);
}

/* Validate the graph read and bind its symbols to the environment. */
static sc_status finish_graph(reader *r)
{
    SC_TRY(sc_graph_finish(r->g, r->err));
    return sc__graph_bind_env(r->g, r->opts->env, r->err);
}

static sc_status finish_read(reader *r)
{
    sc_status st;
    size_t i;

    for (i = 0; i < r->opts->ninputs; i++)
        if (sc_graph_find(r->g, r->opts->input_names[i]) == SC_NODE_NONE ||
            sc_graph_node_kind(r->g, sc_graph_find(r->g,
                                                   r->opts->input_names[i])) !=
                SC_NODE_PLACEHOLDER)
            return sc__error_set(r->err, SC_ERR_INVALID,
                                 "input type for '%s': the graph has no "
                                 "such placeholder",
                                 r->opts->input_names[i]);

    if (r->nunknown && (r->opts->flags & SC_GRAPH_READ_STRICT)) {
        const char *t = r->unknown[0];
        st = error_at(r, r->unknown_line[0], r->unknown_col[0],
                      "'%s' is not in the op table (an unknown op is an "
                      "error with --strict)",
                      strncmp(t, "torch.ops.", 10) == 0 ? t + 10 : t);
        if (r->err)
            r->err->code = SC_ERR_UNSUPPORTED;
        return SC_ERR_UNSUPPORTED;
    }
    if (r->nunknown) {
        sc__buf b;
        sc__buf_init(&b);
        for (i = 0; i < r->nunknown; i++) {
            const char *t = r->unknown[i];
            if (strncmp(t, "torch.ops.", 10) == 0)
                t += 10;
            sc__buf_printf(&b, "%s%s", i ? ", " : "", t);
        }
        if (b.failed || !sc__graph_warn(r->g, "%zu op%s not in the op table, "
                                              "kept as opaque nodes: %s",
                                        r->nunknown,
                                        r->nunknown == 1 ? "" : "s", b.data)) {
            sc__buf_free(&b);
            return sc__error_nomem(r->err);
        }
        sc__buf_free(&b);
    }
    /* Errors here (none expected from text the parser accepted) are
     * located at the return statement. */
    st = finish_graph(r);
    return st == SC_ERR_NOMEM ? st : locate(r, st, r->ret_line, r->ret_col);
}

sc_status sc_graph_read_text(sc_ctx *ctx, const char *text, size_t len,
                             const char *filename,
                             const sc_graph_read_options *opts,
                             sc_graph **out, sc_error *err)
{
    reader r;
    sc_graph_read_options defaults;
    sc_status status;
    const char *nul;
    sc__frame_list frames;
    size_t which = 0;

    *out = NULL;
    sc_error_init(err);
    if (!opts) {
        sc_graph_read_options_init(&defaults);
        opts = &defaults;
    }
    if (!ctx || (!text && len))
        return sc__error_set(err, SC_ERR_INVALID, "no context or no text");
    memset(&r, 0, sizeof r);
    memset(&frames, 0, sizeof frames);
    r.all_text = text ? text : "";
    r.all_len = len;
    r.file = filename ? filename : "<text>";
    r.ctx = ctx;
    r.opts = opts;
    r.err = err;
    sc__buf_init(&r.scratch);
    sc__buf_init(&r.comments);
    sc__buf_init(&r.name);
    sc__buf_init(&r.target);
    sc__lex_init(&r.lx, text ? text : "", len, r.file, err);
    nul = len ? memchr(text, '\0', len) : NULL;
    if (nul) {
        int line = 1;
        const char *p, *ls = text;
        for (p = text; p < nul; p++)
            if (*p == '\n') {
                line++;
                ls = p + 1;
            }
        status = error_at(&r, line, (int)(nul - ls) + 1,
                          "NUL byte in the text");
        goto fail;
    }
    r.g = sc_graph_new(ctx);
    if (!r.g) {
        status = sc__error_nomem(err);
        goto fail;
    }
    SC_CHECK(scan_directives(&r));
    SC_CHECK(sc__frame_scan(text, len, r.file, &frames, err));
    SC_CHECK(sc__frame_select(&frames, opts->graph, r.file, &which, err));
    r.frame = &frames.items[which];
    /* At most one node a line of the graph, and a node line is longer
     * than 8 bytes: size the graph once. */
    SC_CHECK(sc__graph_reserve(r.g, presize_count(r.frame, len), err));
    r.lx.p = r.frame->start;
    r.lx.line_start = r.frame->line_start;
    r.lx.line = r.frame->line;
    r.lx.end = r.frame->end;
    if (opts->progress) {
        opts->progress(opts->progress_user, PROGRESS_PHASE, 0,
                       (size_t)(r.frame->end - r.frame->start));
        r.progress_next = PROGRESS_STEP;
    }
    SC_CHECK(advance(&r));
    if (at_name(&r, "class"))
        SC_CHECK(parse_class_header(&r));
    SC_CHECK(parse_signature(&r));
    SC_CHECK(parse_body(&r));
    SC_CHECK(parse_trailer(&r));
    if (r.frame->static_inputs && r.frame->static_inputs[0] &&
        !sc_graph_directive(r.g, "static_inputs"))
        SC_CHECK(sc_graph_set_directive(r.g, "static_inputs",
                                        r.frame->static_inputs, err));
    if (r.comments.len)
        SC_CHECK(sc__graph_set_note(r.g, ".comments", r.comments.data, err));
    status = finish_read(&r);
    if (status == SC_OK && opts->progress)
        opts->progress(opts->progress_user, PROGRESS_PHASE,
                       (size_t)(r.frame->end - r.frame->start),
                       (size_t)(r.frame->end - r.frame->start));
fail:
    if (status == SC_OK) {
        *out = r.g;
    } else {
        sc_graph_free(r.g);
        if (err && err->code == SC_OK)
            sc__error_set(err, status, NULL);
    }
    sc__lex_destroy(&r.lx);
    sc__buf_free(&r.scratch);
    sc__buf_free(&r.comments);
    sc__buf_free(&r.name);
    sc__buf_free(&r.target);
    if (r.ann) {
        size_t k;
        for (k = 0; k < ANN_CACHE; k++)
            sc__free(r.ann[k].block);
        sc__free(r.ann);
    }
    sc__free(r.pending);
    sc__free(r.pending_slots);
    sc__free(r.vstack);
    sc__free(r.kwstack);
    sc__free(r.dims);
    sc__free(r.released);
    sc__free(r.unknown);
    sc__free(r.unknown_line);
    sc__free(r.unknown_col);
    sc__frame_list_free(&frames);
    return status;
}

sc_status sc_graph_read_file(sc_ctx *ctx, const char *path,
                             const sc_graph_read_options *opts,
                             sc_graph **out, sc_error *err)
{
    FILE *f;
    char *buf = NULL, *p;
    size_t n = 0, cap = 0, got;
    sc_status st;

    *out = NULL;
    sc_error_init(err);
    f = fopen(path, "rb");
    if (!f)
        return sc__error_set(err, SC_ERR_IO, "cannot open '%s': %s", path,
                             strerror(errno));
    /* a seekable file: one buffer of its size (and room to see the end)
     * instead of doubling copies */
    if (fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        if (fseek(f, 0, SEEK_SET) != 0) {
            fclose(f);
            return sc__error_set(err, SC_ERR_IO, "cannot read '%s'", path);
        }
        if (size > 0 && (unsigned long)size < SIZE_MAX / 2) {
            cap = (size_t)size + 4096;
            buf = sc__malloc(cap);
            if (!buf) {
                fclose(f);
                return sc__error_nomem(err);
            }
        }
    }
    for (;;) {
        if (cap - n < 4096) {
            size_t ncap = cap ? cap * 2 : 65536;
            p = sc__realloc(buf, ncap);
            if (!p) {
                fclose(f);
                sc__free(buf);
                return sc__error_nomem(err);
            }
            buf = p;
            cap = ncap;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        fclose(f);
        sc__free(buf);
        return sc__error_set(err, SC_ERR_IO, "cannot read '%s'", path);
    }
    fclose(f);
    st = sc_graph_read_text(ctx, buf, n, path, opts, out, err);
    sc__free(buf);
    return st;
}

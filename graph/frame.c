/* symcut — finding the graphs of a text (see graph/frame.h).
 *
 * A plain text or a TORCH_LOGS log is read line by line, each line after
 * its log prefix: `TRACED GRAPH` and `===== TITLE =====` banners name the
 * graph that follows; a graph starts at a `class NAME(...):` (possibly
 * after a file path or `<eval_with_key>.N ...`) or a `def forward` line
 * and ends before the first line indented less than its `def forward`;
 * everything else is unrelated text.  A TORCH_TRACE log is a sequence of
 * JSON records, each on one line after a glog prefix, the payload of a
 * record on the following lines, each starting with a tab. */
#include <config.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/frame.h"
#include "graph/lex.h"

typedef struct scanner {
    const char *text, *end, *file;
    int other_line, other_col; /* the first unrelated line (0: none) */
    sc_error *err;
    sc__frame_list *out;
    /* static input indices seen, by compile id */
    struct {
        char id[64];
        char *indices;
    } *statics;
    size_t nstatics, statics_cap;
} scanner;

static sc_status scan_error(const scanner *s, int line, int col,
                            const char *fmt, ...) SC__PRINTF(4, 5);

static sc_status scan_error(const scanner *s, int line, int col,
                            const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sc__error_vset(s->err, SC_ERR_PARSE, fmt, ap);
    va_end(ap);
    if (s->err) {
        snprintf(s->err->file, sizeof s->err->file, "%s", s->file);
        s->err->line = line;
        s->err->column = col;
    }
    return SC_ERR_PARSE;
}

static const char *eol_of(const char *p, const char *end)
{
    const char *e = memchr(p, '\n', (size_t)(end - p));
    return e ? e : end;
}

static bool is_blank(const char *p, const char *e)
{
    for (; p < e; p++)
        if (*p != ' ' && *p != '\t' && *p != '\r')
            return false;
    return true;
}

static const char *skip_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

static bool word_at(const char *p, const char *e, const char *w)
{
    size_t n = strlen(w);
    return (size_t)(e - p) >= n && memcmp(p, w, n) == 0 &&
           ((size_t)(e - p) == n || !(isalnum((unsigned char)p[n]) ||
                                      p[n] == '_'));
}

static void copy_span(char *dst, size_t size, const char *p, const char *e)
{
    size_t n = (size_t)(e - p);
    if (n >= size)
        n = size - 1;
    memcpy(dst, p, n);
    dst[n] = '\0';
}

/* The content of the line at p (after a log prefix; in a trace, after
 * the payload's tab). */
static const char *content_of(const scanner *s, const char *p, const char *e)
{
    if (s->out->trace)
        return p < e && *p == '\t' ? p + 1 : p;
    return sc__lex_skip_log_prefix(p, e);
}

/* The compile id tag of a log prefix, `[0/0]` or `[1/0_1]`, into id. */
static void prefix_compile_id(const char *p, const char *content, char *id,
                              size_t size)
{
    const char *q, *r;
    id[0] = '\0';
    for (q = p; q < content; q++) {
        if (*q != '[' || q + 1 >= content || !isdigit((unsigned char)q[1]))
            continue;
        for (r = q + 1; r < content && (isdigit((unsigned char)*r) ||
                                        *r == '/' || *r == '_');
             r++)
            ;
        if (r < content && *r == ']' && memchr(q, '/', (size_t)(r - q))) {
            copy_span(id, size, q + 1, r);
            return;
        }
    }
}

/* Whether the text q..k before a class keyword is what PyTorch puts
 * there: nothing, a file path (`/.../_lazy_graph_module.py `), or
 * `<eval_with_key>.N ` (possibly `from FILE:LINE in wrapped `). */
static bool class_prefix_ok(const char *q, const char *k)
{
    const char *w = q;
    if (q == k)
        return true;
    if (*q == '<')
        return (size_t)(k - q) > 15 && memcmp(q, "<eval_with_key>", 15) == 0;
    while (w < k && *w != ' ')
        w++;
    return w - q > 3 && memcmp(w - 3, ".py", 3) == 0 && skip_ws(w, k) == k;
}

/* The `class` keyword of a class line (`class NAME(...):`, possibly after
 * a file path or `<eval_with_key>.N from F:L in wrapped`), or NULL. */
static const char *class_keyword(const char *q, const char *e)
{
    const char *k, *t = e, *n;
    if (word_at(q, e, "class")) /* the reader says what is wrong with it */
        return q;
    while (t > q && (t[-1] == ' ' || t[-1] == '\r' || t[-1] == '\t'))
        t--;
    if (t == q || t[-1] != ':')
        return NULL;
    for (k = q; k + 6 <= t; k++) {
        if ((k != q && k[-1] != ' ') || memcmp(k, "class ", 6) != 0)
            continue;
        n = skip_ws(k + 6, t);
        if (n < t && *n == '<') /* <lambda> */
            while (n < t && *n != '>')
                n++;
        else
            while (n < t && (isalnum((unsigned char)*n) || *n == '_'))
                n++;
        if (n < t && n[0] == '>')
            n++;
        if (n < t && *n == '(' && class_prefix_ok(q, k))
            return k;
        return NULL;
    }
    return NULL;
}



static int indent_of(const char *q, const char *e)
{
    int n = 0;
    for (; q < e && (*q == ' ' || *q == '\t'); q++)
        n += *q == '\t' ? 8 - n % 8 : 1;
    return n;
}

static sc_status push_frame(scanner *s, sc__frame *f)
{
    void *items = s->out->items;
    if (!sc__grow(&items, &s->out->cap, s->out->n + 1, sizeof *f))
        return sc__error_nomem(s->err);
    s->out->items = items;
    s->out->items[s->out->n++] = *f;
    return SC_OK;
}

/* A graph starts at line p (number line): find its end and record it.
 * kw is the class or def keyword.  *next is the line after the graph. */
static sc_status take_graph(scanner *s, const char *p, int *line,
                            const char *kw, sc__frame *f, const char **next)
{
    const char *e = eol_of(p, s->end), *q, *c;
    int d, ln = *line;
    bool is_def = word_at(kw, e, "def");

    f->start = kw;
    f->line_start = p;
    f->line = ln;
    if (!is_def) {
        const char *n = skip_ws(kw + 5, e), *m = n;
        if (m < e && *m == '<') {
            while (m < e && *m != '>')
                m++;
            if (m < e)
                m++;
        } else {
            while (m < e && (isalnum((unsigned char)*m) || *m == '_'))
                m++;
        }
        copy_span(f->class_name, sizeof f->class_name, n, m);
    }
    /* the def line's indentation */
    d = -1;
    if (is_def) {
        c = content_of(s, p, e);
        d = indent_of(c, kw);
    } else {
        q = e < s->end ? e + 1 : e;
        ln++;
        while (q < s->end) {
            const char *qe = eol_of(q, s->end);
            c = content_of(s, q, qe);
            if (!is_blank(c, qe)) {
                const char *w = skip_ws(c, qe);
                if (word_at(w, qe, "def"))
                    d = indent_of(c, w) - 1;
                break;
            }
            q = qe < s->end ? qe + 1 : qe;
            ln++;
        }
        if (d < 0) {
            /* a class without a def: the reader reports it */
            d = 0;
        }
    }
    /* lines until one indented at most d (content after the prefix) */
    q = e < s->end ? e + 1 : e;
    ln = *line + 1;
    while (q < s->end) {
        const char *qe = eol_of(q, s->end);
        c = content_of(s, q, qe);
        if (s->out->trace && (q >= qe || *q != '\t'))
            break;
        if (!is_blank(c, qe) && indent_of(c, qe) <= d)
            break;
        q = qe < s->end ? qe + 1 : qe;
        ln++;
    }
    /* trailing blank lines stay outside */
    f->end = q;
    f->end_line = ln;
    *next = q;
    *line = ln;
    return push_frame(s, f);
}

/* `static_input_indices=[0, 1, 3]` on the line p..e (the list may go on
 * over the following lines, after their prefixes or tabs, as a
 * pretty-printed payload does): record it for id. */
static sc_status note_statics(scanner *s, const char *id, const char *p,
                              const char *e)
{
    static const char key[] = "static_input_indices=[";
    const char *q, *r;
    size_t n = sizeof key - 1;
    int lines = 0;
    sc__buf b;
    void *items = s->statics;

    for (q = p; q + n <= e; q++)
        if (memcmp(q, key, n) == 0)
            break;
    if (q + n > e)
        return SC_OK;
    sc__buf_init(&b);
    sc__buf_putn(&b, "", 0);
    for (r = q + n; r < s->end && *r != ']'; r++) {
        if (*r == '\n') {
            const char *le = eol_of(r + 1, s->end);
            if (++lines > 100000) /* not a list: ignore */
                break;
            r = content_of(s, r + 1, le) - 1;
        } else if (isdigit((unsigned char)*r) || *r == ',') {
            sc__buf_putc(&b, *r);
        } else if (*r != ' ' && *r != '\t' && *r != '\r') {
            break;
        }
    }
    if (r >= s->end || *r != ']') {
        sc__buf_free(&b);
        return SC_OK; /* not a list of integers: ignore */
    }
    if (b.failed ||
        !sc__grow(&items, &s->statics_cap, s->nstatics + 1,
                  sizeof *s->statics)) {
        sc__buf_free(&b);
        return sc__error_nomem(s->err);
    }
    s->statics = items;
    snprintf(s->statics[s->nstatics].id, sizeof s->statics[0].id, "%s", id);
    s->statics[s->nstatics].indices = sc__buf_take(&b);
    if (!s->statics[s->nstatics].indices)
        return sc__error_nomem(s->err);
    s->nstatics++;
    return SC_OK;
}

static sc_graph_kind kind_of_title(const char *t)
{
    if (strncmp(t, "Joint graph", 11) == 0)
        return SC_GRAPH_KIND_JOINT;
    if (strncmp(t, "Forward graph", 13) == 0)
        return SC_GRAPH_KIND_FORWARD;
    if (strncmp(t, "Backward graph", 14) == 0)
        return SC_GRAPH_KIND_BACKWARD;
    if (strncmp(t, "Inference graph", 15) == 0)
        return SC_GRAPH_KIND_INFERENCE;
    return SC_GRAPH_KIND_UNKNOWN;
}

/* ---- Plain texts and TORCH_LOGS ---------------------------------------- */

static sc_status scan_logs(scanner *s)
{
    const char *p = s->text;
    int line = 1, banner_line = 0, banner_col = 0;
    sc__frame pending;

    memset(&pending, 0, sizeof pending);
    while (p < s->end) {
        const char *e = eol_of(p, s->end), *c = content_of(s, p, e);
        const char *q = skip_ws(c, e), *kw;
        char id[64];

        prefix_compile_id(p, c, id, sizeof id);
        if (is_blank(q, e) || *q == '#') {
            /* blank or a comment */
        } else if (word_at(q, e, "TRACED") && banner_line == 0) {
            memset(&pending, 0, sizeof pending);
            banner_line = line;
            banner_col = (int)(q - p) + 1;
        } else if (e - q >= 5 && memcmp(q, "=====", 5) == 0) {
            const char *t = q, *te = e;
            while (t < te && *t == '=')
                t++;
            while (te > t && (te[-1] == '=' || te[-1] == ' ' ||
                              te[-1] == '\r'))
                te--;
            t = skip_ws(t, te);
            memset(&pending, 0, sizeof pending);
            copy_span(pending.title, sizeof pending.title, t, te);
            pending.kind = kind_of_title(pending.title);
            banner_line = line;
            banner_col = (int)(q - p) + 1;
        } else if ((kw = class_keyword(q, e)) != NULL ||
                   (word_at(q, e, "def") && (kw = q) != NULL)) {
            sc__frame f = pending;
            const char *next;
            snprintf(f.compile_id, sizeof f.compile_id, "%s", id);
            SC_TRY(take_graph(s, p, &line, kw, &f, &next));
            memset(&pending, 0, sizeof pending);
            banner_line = 0;
            p = next;
            continue;
        } else if (banner_line) {
            return scan_error(s, banner_line, banner_col,
                              "the banner is not followed by a graph "
                              "(line %d is not 'class NAME(...):' or "
                              "'def forward(...):')",
                              line);
        } else {
            if (!s->other_line) {
                s->other_line = line;
                s->other_col = (int)(q - p) + 1;
            }
            SC_TRY(note_statics(s, id, q, e));
        }
        p = e < s->end ? e + 1 : e;
        line++;
    }
    if (banner_line)
        return scan_error(s, banner_line, banner_col,
                          "the banner is not followed by a graph (the "
                          "text ends)");
    return SC_OK;
}

/* ---- TORCH_TRACE ------------------------------------------------------- */

typedef struct json {
    const scanner *s;
    const char *p, *e, *line_start;
    int line;
} json;

static sc_status json_error(json *j, const char *what)
{
    char found[24];
    if (j->p >= j->e)
        snprintf(found, sizeof found, "the end of the line");
    else
        snprintf(found, sizeof found, "'%c'",
                 isprint((unsigned char)*j->p) ? *j->p : '?');
    return scan_error(j->s, j->line, (int)(j->p - j->line_start) + 1,
                      "bad JSON in a trace record: expected %s, found %s",
                      what, found);
}

static void json_ws(json *j)
{
    while (j->p < j->e && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r'))
        j->p++;
}

/* A string; its raw content in [*a, *b) when a is non-NULL. */
static sc_status json_string(json *j, const char **a, const char **b)
{
    if (j->p >= j->e || *j->p != '"')
        return json_error(j, "a string");
    j->p++;
    if (a)
        *a = j->p;
    while (j->p < j->e && *j->p != '"') {
        if (*j->p == '\\') {
            j->p++;
            if (j->p >= j->e || !strchr("\"\\/bfnrtu", *j->p))
                return json_error(j, "an escape");
        } else if ((unsigned char)*j->p < 0x20) {
            return json_error(j, "'\"'");
        }
        j->p++;
    }
    if (j->p >= j->e)
        return json_error(j, "'\"'");
    if (b)
        *b = j->p;
    j->p++;
    return SC_OK;
}

static sc_status json_value(json *j, int depth, int64_t *num);

/* An object; calls back on each key with the value's position. */
typedef sc_status (*json_key_fn)(json *j, const char *k, const char *ke,
                                 int depth, void *user);

static sc_status json_object(json *j, int depth, json_key_fn fn, void *user)
{
    if (depth > 64)
        return json_error(j, "less nesting");
    j->p++; /* { */
    json_ws(j);
    if (j->p < j->e && *j->p == '}') {
        j->p++;
        return SC_OK;
    }
    for (;;) {
        const char *k, *ke;
        json_ws(j);
        SC_TRY(json_string(j, &k, &ke));
        json_ws(j);
        if (j->p >= j->e || *j->p != ':')
            return json_error(j, "':'");
        j->p++;
        json_ws(j);
        if (fn)
            SC_TRY(fn(j, k, ke, depth, user));
        else
            SC_TRY(json_value(j, depth + 1, NULL));
        json_ws(j);
        if (j->p < j->e && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->e && *j->p == '}') {
            j->p++;
            return SC_OK;
        }
        return json_error(j, "',' or '}'");
    }
}

static sc_status json_value(json *j, int depth, int64_t *num)
{
    if (depth > 64)
        return json_error(j, "less nesting");
    if (j->p >= j->e)
        return json_error(j, "a value");
    switch (*j->p) {
    case '{':
        return json_object(j, depth, NULL, NULL);
    case '[':
        j->p++;
        json_ws(j);
        if (j->p < j->e && *j->p == ']') {
            j->p++;
            return SC_OK;
        }
        for (;;) {
            json_ws(j);
            SC_TRY(json_value(j, depth + 1, NULL));
            json_ws(j);
            if (j->p < j->e && *j->p == ',') {
                j->p++;
                continue;
            }
            if (j->p < j->e && *j->p == ']') {
                j->p++;
                return SC_OK;
            }
            return json_error(j, "',' or ']'");
        }
    case '"':
        return json_string(j, NULL, NULL);
    default:
        break;
    }
    if (word_at(j->p, j->e, "true") || word_at(j->p, j->e, "null")) {
        j->p += 4;
        return SC_OK;
    }
    if (word_at(j->p, j->e, "false")) {
        j->p += 5;
        return SC_OK;
    }
    if (*j->p == '-' || isdigit((unsigned char)*j->p)) {
        const char *q = j->p;
        int64_t v = 0;
        bool neg = *q == '-', ok = true;
        if (neg)
            q++;
        if (q >= j->e || !isdigit((unsigned char)*q))
            return json_error(j, "a number");
        while (q < j->e && isdigit((unsigned char)*q)) {
            if (v < INT64_MAX / 10 - 10)
                v = v * 10 + (*q - '0');
            else
                ok = false;
            q++;
        }
        if (q < j->e && (*q == '.' || *q == 'e' || *q == 'E')) {
            ok = false;
            q++;
            while (q < j->e && (isdigit((unsigned char)*q) || *q == '+' ||
                                *q == '-' || *q == 'e' || *q == 'E'))
                q++;
        }
        j->p = q;
        if (num)
            *num = ok ? (neg ? -v : v) : -1;
        return SC_OK;
    }
    return json_error(j, "a value");
}

typedef struct record {
    char kind[64];
    char artifact[64];
    int64_t frame_id, frame_compile_id, attempt;
    bool has_payload, compiled_autograd;
} record;

static bool key_is(const char *k, const char *ke, const char *w)
{
    size_t n = strlen(w);
    return (size_t)(ke - k) == n && memcmp(k, w, n) == 0;
}

static sc_status artifact_key(json *j, const char *k, const char *ke,
                              int depth, void *user)
{
    record *r = user;
    if (key_is(k, ke, "name") && j->p < j->e && *j->p == '"') {
        const char *a, *b;
        SC_TRY(json_string(j, &a, &b));
        copy_span(r->artifact, sizeof r->artifact, a, b);
        return SC_OK;
    }
    return json_value(j, depth + 1, NULL);
}

static sc_status record_key(json *j, const char *k, const char *ke,
                            int depth, void *user)
{
    record *r = user;
    int64_t *num = NULL;
    if (!r->kind[0])
        copy_span(r->kind, sizeof r->kind, k, ke);
    if (key_is(k, ke, "artifact") && j->p < j->e && *j->p == '{')
        return json_object(j, depth + 1, artifact_key, r);
    if (key_is(k, ke, "frame_id"))
        num = &r->frame_id;
    else if (key_is(k, ke, "frame_compile_id"))
        num = &r->frame_compile_id;
    else if (key_is(k, ke, "attempt"))
        num = &r->attempt;
    else if (key_is(k, ke, "has_payload"))
        r->has_payload = true;
    else if (key_is(k, ke, "compiled_autograd_id"))
        r->compiled_autograd = true;
    return json_value(j, depth + 1, num);
}

static sc_graph_kind kind_of_record(const char *k, bool *graph)
{
    sc_graph_kind kind = SC_GRAPH_KIND_UNKNOWN;
    *graph = sc_graph_kind_from_name(k, strlen(k), &kind) &&
             strncmp(k, "aot_", 4) == 0;
    return kind;
}

/* "F/C" or "F/C_A" (attempt A > 0), as tlparse names compiles; "" when
 * the record has no frame. */
static void record_compile_id(const record *r, char *id, size_t size)
{
    id[0] = '\0';
    if (r->frame_id < 0 || r->frame_compile_id < 0)
        return;
    if (r->attempt > 0)
        snprintf(id, size, "%lld/%lld_%lld", (long long)r->frame_id,
                 (long long)r->frame_compile_id, (long long)r->attempt);
    else
        snprintf(id, size, "%lld/%lld", (long long)r->frame_id,
                 (long long)r->frame_compile_id);
}

static sc_status scan_trace(scanner *s)
{
    const char *p = s->text;
    int line = 1;

    while (p < s->end) {
        const char *e = eol_of(p, s->end), *c;
        record r;
        json j;
        bool is_graph;
        sc_graph_kind kind;
        int rline = line;

        if (is_blank(p, e)) {
            p = e < s->end ? e + 1 : e;
            line++;
            continue;
        }
        if (*p == '\t')
            return scan_error(s, line, 1, "a payload line without a "
                                          "record before it");
        c = sc__lex_skip_log_prefix(p, e);
        memset(&r, 0, sizeof r);
        r.frame_id = r.frame_compile_id = -1;
        j.s = s;
        j.p = c;
        j.e = e;
        j.line_start = p;
        j.line = line;
        if (c >= e || *c != '{')
            return json_error(&j, "'{' (a trace record)");
        SC_TRY(json_object(&j, 0, record_key, &r));
        json_ws(&j);
        if (j.p < e)
            return json_error(&j, "the end of the record");
        p = e < s->end ? e + 1 : e;
        line++;
        if (r.has_payload && (p >= s->end || *p != '\t'))
            return scan_error(s, rline, (int)(c - j.line_start) + 1,
                              "the trace record '%s' announces a payload "
                              "but no payload line follows",
                              r.kind);
        kind = kind_of_record(r.kind, &is_graph);
        if (r.compiled_autograd)
            is_graph = false;
        if (is_graph && r.has_payload) {
            sc__frame f;
            const char *pe = eol_of(p, s->end), *q = skip_ws(p + 1, pe);
            const char *kw = class_keyword(q, pe);
            const char *next;
            memset(&f, 0, sizeof f);
            if (!kw && word_at(q, pe, "def"))
                kw = q;
            if (!kw)
                return scan_error(s, line, (int)(q - p) + 1,
                                  "the payload of '%s' does not start "
                                  "with 'class NAME(...):' or 'def'",
                                  r.kind);
            f.kind = kind;
            snprintf(f.title, sizeof f.title, "%s", r.kind);
            record_compile_id(&r, f.compile_id, sizeof f.compile_id);
            SC_TRY(take_graph(s, p, &line, kw, &f, &next));
            p = next;
        }
        if (strstr(r.artifact, "fw_metadata")) {
            char id[64];
            record_compile_id(&r, id, sizeof id);
            while (p < s->end && *p == '\t') {
                const char *pe = eol_of(p, s->end);
                SC_TRY(note_statics(s, id, p, pe));
                p = pe < s->end ? pe + 1 : pe;
                line++;
            }
        }
        while (p < s->end && *p == '\t') { /* another payload */
            const char *pe = eol_of(p, s->end);
            p = pe < s->end ? pe + 1 : pe;
            line++;
        }
    }
    return SC_OK;
}

/* Is the text a TORCH_TRACE log: its first line a JSON record after a
 * glog prefix? */
static bool looks_like_trace(const char *text, const char *end)
{
    const char *p = text, *e, *c;
    while (p < end) {
        e = eol_of(p, end);
        if (!is_blank(p, e)) {
            c = sc__lex_skip_log_prefix(p, e);
            return c != p && c < e && *c == '{';
        }
        p = e < end ? e + 1 : e;
    }
    return false;
}

/* ---- Names -------------------------------------------------------------- */

static void name_frames(scanner *s)
{
    size_t i, k;
    sc__frame_list *l = s->out;

    for (i = 0; i < l->n; i++) {
        sc__frame *f = &l->items[i];
        const char *what = f->kind != SC_GRAPH_KIND_UNKNOWN
                               ? sc_graph_kind_name(f->kind)
                           : f->title[0]      ? f->title
                           : f->class_name[0] ? f->class_name
                                              : "graph";
        if (f->compile_id[0])
            snprintf(f->name, sizeof f->name, "%s:%s", f->compile_id, what);
        else
            snprintf(f->name, sizeof f->name, "%s", what);
        for (k = 0; k < s->nstatics; k++)
            if (strcmp(s->statics[k].id, f->compile_id) == 0 &&
                (f->kind == SC_GRAPH_KIND_JOINT ||
                 f->kind == SC_GRAPH_KIND_FORWARD ||
                 f->kind == SC_GRAPH_KIND_INFERENCE) &&
                !f->static_inputs)
                f->static_inputs = sc__strdup(s->statics[k].indices);
    }
    /* repeated names get their index */
    for (i = 0; i < l->n; i++)
        for (k = 0; k < l->n; k++)
            if (k != i && strcmp(l->items[i].name, l->items[k].name) == 0) {
                size_t m;
                for (m = 0; m < l->n; m++) {
                    size_t len = strlen(l->items[m].name);
                    if (m != i &&
                        strcmp(l->items[m].name, l->items[i].name) == 0 &&
                        len + 8 < sizeof l->items[m].name)
                        snprintf(l->items[m].name + len,
                                 sizeof l->items[m].name - len, "#%zu", m);
                }
                break;
            }
}

sc_status sc__frame_scan(const char *text, size_t len, const char *file,
                         sc__frame_list *out, sc_error *err)
{
    scanner s;
    sc_status status;
    size_t i;

    memset(out, 0, sizeof *out);
    memset(&s, 0, sizeof s);
    s.text = text ? text : "";
    s.end = s.text + len;
    s.file = file;
    s.err = err;
    s.out = out;
    out->trace = looks_like_trace(s.text, s.end);
    status = out->trace ? scan_trace(&s) : scan_logs(&s);
    if (status == SC_OK && out->n == 0 && s.other_line)
        status = scan_error(&s, s.other_line, s.other_col,
                            "expected 'class NAME(torch.nn.Module):' or "
                            "'def forward(...):' to start the graph");
    else if (status == SC_OK && out->n == 0)
        status = scan_error(&s, 1, 1,
                            out->trace
                                ? "no graph found in the trace (no "
                                  "aot_joint_graph, aot_forward_graph, "
                                  "aot_backward_graph or aot_inference_graph "
                                  "record)"
                                : "no graph found (expected 'class "
                                  "NAME(torch.nn.Module):' or 'def "
                                  "forward(...):')");
    if (status == SC_OK)
        name_frames(&s);
    for (i = 0; i < s.nstatics; i++)
        sc__free(s.statics[i].indices);
    sc__free(s.statics);
    if (status != SC_OK)
        sc__frame_list_free(out);
    return status;
}

void sc__frame_list_free(sc__frame_list *l)
{
    size_t i;
    for (i = 0; i < l->n; i++)
        sc__free(l->items[i].static_inputs);
    sc__free(l->items);
    memset(l, 0, sizeof *l);
}

/* ---- Selection ---------------------------------------------------------- */

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

static bool kind_matches(const sc__frame *f, const char *w, size_t n)
{
    sc_graph_kind k;
    if (sc_graph_kind_from_name(w, n, &k))
        return k == f->kind;
    return (strlen(f->title) == n && memcmp(f->title, w, n) == 0) ||
           (strlen(f->class_name) == n && memcmp(f->class_name, w, n) == 0);
}

static bool frame_matches(const sc__frame *f, const char *sel)
{
    const char *colon = strchr(sel, ':');
    if (strcmp(f->name, sel) == 0)
        return true;
    if (colon)
        return strlen(f->compile_id) == (size_t)(colon - sel) &&
               memcmp(f->compile_id, sel, (size_t)(colon - sel)) == 0 &&
               kind_matches(f, colon + 1, strlen(colon + 1));
    if (strchr(sel, '/'))
        return strcmp(f->compile_id, sel) == 0;
    return kind_matches(f, sel, strlen(sel));
}

static void list_choices(const sc__frame_list *l, sc__buf *b)
{
    size_t i;
    for (i = 0; i < l->n; i++)
        sc__buf_printf(b, "%s%zu (%s, line %d)", i ? ", " : "", i,
                       l->items[i].name, l->items[i].line);
}

sc_status sc__frame_select(const sc__frame_list *l, const char *selector,
                           const char *file, size_t *index, sc_error *err)
{
    size_t i, nmatch = 0, found = 0;
    sc__buf b;
    sc_status st;

    if (!selector || !*selector) {
        if (l->n == 1) {
            *index = 0;
            return SC_OK;
        }
    } else if (all_digits(selector)) {
        unsigned long long v = strtoull(selector, NULL, 10);
        if (v < l->n) {
            *index = (size_t)v;
            return SC_OK;
        }
    } else {
        for (i = 0; i < l->n; i++)
            if (frame_matches(&l->items[i], selector)) {
                if (!nmatch)
                    found = i;
                nmatch++;
            }
        if (nmatch == 1) {
            *index = found;
            return SC_OK;
        }
    }
    sc__buf_init(&b);
    if (!selector || !*selector)
        sc__buf_printf(&b, "this text holds %zu graphs; choose one with "
                           "--graph: ", l->n);
    else if (nmatch > 1)
        sc__buf_printf(&b, "--graph '%s' is ambiguous in %s: ", selector,
                       file);
    else
        sc__buf_printf(&b, "--graph '%s': no such graph in %s, which holds ",
                       selector, file);
    list_choices(l, &b);
    if (b.failed) {
        sc__buf_free(&b);
        return sc__error_nomem(err);
    }
    /* With no selector the text itself is ambiguous: the error points at
     * the second graph, where a one-graph reading would have stopped. */
    if ((!selector || !*selector) && l->n > 1)
        st = sc__error_set_at(err, SC_ERR_INVALID, file, l->items[1].line, 1,
                              "%s", b.data);
    else
        st = sc__error_set(err, SC_ERR_INVALID, "%s", b.data);
    sc__buf_free(&b);
    return st;
}

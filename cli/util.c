/* symcut — helpers shared by the subcommands: messages, files, and the
 * `name=value` argument syntax. */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

void cli_errorf(const char *fmt, ...)
{
    va_list ap;
    fputs("symcut: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void cli_report(const sc_error *err)
{
    char buf[SC_ERROR_MESSAGE_MAX + SC_ERROR_FILE_MAX + 64];
    sc_error_format(err, buf, sizeof buf);
    fprintf(stderr, "symcut: %s\n", buf);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fputs("symcut: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'symcut %s --help'.\n", cmd);
    return CLI_EXIT_USAGE;
}

bool cli_is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

char *cli_read_file(const char *path, size_t *len, sc_error *err)
{
    FILE *f;
    char *buf = NULL, *p;
    size_t cap = 0, n = 0, got;
    bool is_stdin = strcmp(path, "-") == 0;

    sc_error_init(err);
    f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        err->code = SC_ERR_IO;
        snprintf(err->message, sizeof err->message, "cannot open '%s': %s",
                 path, strerror(errno));
        return NULL;
    }
    for (;;) {
        if (cap - n < 4096) {
            cap = cap ? cap * 2 : 65536;
            p = realloc(buf, cap + 1);
            if (!p) {
                err->code = SC_ERR_NOMEM;
                snprintf(err->message, sizeof err->message,
                         "out of memory reading '%s'", path);
                goto fail;
            }
            buf = p;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        err->code = SC_ERR_IO;
        snprintf(err->message, sizeof err->message, "cannot read '%s'", path);
        goto fail;
    }
    if ((p = memchr(buf, '\0', n)) != NULL) {
        const char *q, *ls = buf;
        err->code = SC_ERR_PARSE;
        err->line = 1;
        for (q = buf; q < p; q++)
            if (*q == '\n') {
                err->line++;
                ls = q + 1;
            }
        err->column = (int)(p - ls) + 1;
        snprintf(err->file, sizeof err->file, "%s",
                 is_stdin ? "<stdin>" : path);
        snprintf(err->message, sizeof err->message,
                 "NUL byte: not a text file");
        goto fail;
    }
    buf[n] = '\0';
    if (!is_stdin)
        fclose(f);
    if (len)
        *len = n;
    return buf;
fail:
    if (!is_stdin)
        fclose(f);
    free(buf);
    return NULL;
}

/* Write data to a new temporary file beside path; *tmp receives its
 * malloc'ed name.  Nothing is left behind on failure. */
static sc_status stage_file(const char *path, const char *data, size_t len,
                            char **tmp, sc_error *err)
{
    FILE *f = NULL;
    int fd;

    *tmp = malloc(strlen(path) + 16);
    if (!*tmp) {
        err->code = SC_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "out of memory");
        return SC_ERR_NOMEM;
    }
    sprintf(*tmp, "%s.tmpXXXXXX", path);
    fd = mkstemp(*tmp);
    if (fd < 0 || !(f = fdopen(fd, "wb"))) {
        err->code = SC_ERR_IO;
        snprintf(err->message, sizeof err->message,
                 "cannot create a file beside '%s': %s", path,
                 strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(*tmp);
        }
        free(*tmp);
        *tmp = NULL;
        return SC_ERR_IO;
    }
    if (fwrite(data, 1, len, f) != len || fflush(f) != 0 || fclose(f) != 0) {
        err->code = SC_ERR_IO;
        snprintf(err->message, sizeof err->message, "cannot write '%s': %s",
                 path, strerror(errno));
        unlink(*tmp);
        free(*tmp);
        *tmp = NULL;
        return SC_ERR_IO;
    }
    return SC_OK;
}

static sc_status write_stdout(const char *data, size_t len, sc_error *err)
{
    if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
        err->code = SC_ERR_IO;
        snprintf(err->message, sizeof err->message,
                 "cannot write to standard output: %s", strerror(errno));
        return SC_ERR_IO;
    }
    return SC_OK;
}

sc_status cli_write_file(const char *path, const char *data, size_t len,
                         sc_error *err)
{
    return cli_write_files(1, &path, &data, &len, err);
}

sc_status cli_write_files(size_t n, const char *const *paths,
                          const char *const *data, const size_t *lens,
                          sc_error *err)
{
    char **tmp;
    size_t i;
    sc_status status = SC_OK;

    sc_error_init(err);
    tmp = calloc(n ? n : 1, sizeof *tmp);
    if (!tmp) {
        err->code = SC_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "out of memory");
        return SC_ERR_NOMEM;
    }
    /* every file first to a temporary beside it; the first failure
     * removes them all */
    for (i = 0; i < n; i++)
        if (paths[i] && strcmp(paths[i], "-") != 0)
            SC_CHECK(stage_file(paths[i], data[i], lens[i], &tmp[i], err));
    for (i = 0; i < n; i++) {
        if (!tmp[i])
            continue;
        if (rename(tmp[i], paths[i]) != 0) {
            err->code = status = SC_ERR_IO;
            snprintf(err->message, sizeof err->message,
                     "cannot write '%s': %s", paths[i], strerror(errno));
            goto fail;
        }
        free(tmp[i]);
        tmp[i] = NULL;
    }
    /* standard output last */
    for (i = 0; i < n; i++)
        if (!paths[i] || strcmp(paths[i], "-") == 0)
            SC_CHECK(write_stdout(data[i], lens[i], err));
fail:
    for (i = 0; i < n; i++)
        if (tmp[i]) {
            unlink(tmp[i]);
            free(tmp[i]);
        }
    free(tmp);
    return status;
}

/* Split "a=b,c=d" items; calls fn(name, value) for each.  The text is
 * copied so that it can be cut in place.  A failing item's error is
 * located at line 1, column of the item in the text. */
typedef sc_status (*item_fn)(sc_ctx *ctx, const char *name, const char *value,
                             void *arg, sc_error *err);

static sc_status for_each_item(sc_ctx *ctx, const char *text, item_fn fn,
                               void *arg, sc_error *err)
{
    char *copy = strdup(text), *item, *save = NULL, *eq;
    sc_status status = SC_OK;

    sc_error_init(err);
    if (!copy) {
        err->code = SC_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "out of memory");
        return SC_ERR_NOMEM;
    }
    for (item = strtok_r(copy, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        while (*item == ' ')
            item++;
        eq = strchr(item, '=');
        if (!eq || eq == item) {
            err->code = status = SC_ERR_PARSE;
            snprintf(err->message, sizeof err->message,
                     "expected NAME=VALUE, got '%s'", item);
        } else {
            *eq = '\0';
            status = fn(ctx, item, eq + 1, arg, err);
        }
        if (status != SC_OK) {
            err->code = status;
            err->line = 1;
            err->column = (int)(item - copy) + 1;
            break;
        }
    }
    free(copy);
    return status;
}

static sc_status bind_item(sc_ctx *ctx, const char *name, const char *value,
                           void *arg, sc_error *err)
{
    sc_expr *sym = sc_expr_symbol(ctx, name);
    sc_expr *v = sym ? sc_expr_int_str(ctx, value) : NULL;
    if (!sym || !v) {
        sc_status code = sc_ctx_take_error(ctx, err);
        if (code == SC_ERR_NOMEM)
            return code;
        err->code = SC_ERR_PARSE;
        snprintf(err->message, sizeof err->message,
                 "bad binding '%s=%s': expected a symbol name and an integer",
                 name, value);
        return SC_ERR_PARSE;
    }
    if (sc_symmap_get(arg, sym)) {
        err->code = SC_ERR_INVALID;
        snprintf(err->message, sizeof err->message, "'%s' is bound twice",
                 name);
        return SC_ERR_INVALID;
    }
    return sc_symmap_set(arg, sym, v, err);
}

sc_status cli_parse_bindings(sc_ctx *ctx, const char *text, sc_symmap *map,
                             sc_error *err)
{
    return for_each_item(ctx, text, bind_item, map, err);
}

typedef struct names_arg {
    sc_expr **syms; /* the graph's symbols */
    size_t n;
} names_arg;

static sc_status name_item(sc_ctx *ctx, const char *name, const char *value,
                           void *arg, sc_error *err)
{
    const names_arg *a = arg;
    sc_expr *sym = sc_expr_symbol(ctx, name);
    size_t i;

    (void)value;
    if (!sym)
        return sc_ctx_take_error(ctx, err);
    for (i = 0; i < a->n; i++)
        if (a->syms[i] == sym)
            return SC_OK;
    err->code = SC_ERR_INVALID;
    snprintf(err->message, sizeof err->message,
             "'%s' is not a symbol of the graph", name);
    return SC_ERR_INVALID;
}

/* Add the free symbols of e to the set a (a short list: graphs have few
 * symbols); false when out of memory. */
static bool add_symbols(names_arg *a, size_t *cap, const sc_expr *e)
{
    sc_expr *buf[16], **syms = buf;
    size_t n, i, j;
    bool ok = true;

    if (!e || sc_expr_is_int(e))
        return true;
    n = sc_expr_free_symbols(e, buf, 16);
    if (n > 16) {
        syms = malloc(n * sizeof *syms);
        if (!syms)
            return false;
        sc_expr_free_symbols(e, syms, n);
    }
    for (i = 0; ok && i < n; i++) {
        for (j = 0; j < a->n && a->syms[j] != syms[i]; j++)
            ;
        if (j < a->n)
            continue;
        if (a->n == *cap) {
            void *p = realloc(a->syms, (2 * *cap + 8) * sizeof *a->syms);
            if (!p) {
                ok = false;
                break;
            }
            a->syms = p;
            *cap = 2 * *cap + 8;
        }
        a->syms[a->n++] = syms[i];
    }
    if (syms != buf)
        free(syms);
    return ok;
}

/* The symbols of g's metadata (not those that only have a hint: a hint
 * option registers its symbol in the graph). */
static bool metadata_symbols(const sc_graph *g, names_arg *a)
{
    size_t cap = 0, i, d, n = sc_graph_node_count(g);
    bool ok = true;

    a->syms = NULL;
    a->n = 0;
    for (i = 0; ok && i < n; i++) {
        sc_result r;
        sc_graph_node_result(g, (sc_node_id)i, &r);
        if (r.kind == SC_RESULT_TENSOR) {
            for (d = 0; ok && d < r.tensor.ndim; d++)
                ok = add_symbols(a, &cap, r.tensor.sizes[d]) &&
                     (!r.tensor.strides ||
                      add_symbols(a, &cap, r.tensor.strides[d]));
        } else if (r.kind == SC_RESULT_SYMINT || r.kind == SC_RESULT_SYMBOOL) {
            ok = add_symbols(a, &cap, r.expr);
        }
    }
    return ok;
}

/* The first of the names (text, or else the n symbols of hints) that is
 * not in a: SC_ERR_INVALID with its message in err. */
static sc_status find_unknown(const sc_graph *g, const char *text,
                              sc_expr *const *hints, size_t n, names_arg *a,
                              sc_error *err)
{
    size_t i;

    if (text)
        return for_each_item(sc_graph_ctx(g), text, name_item, a, err);
    for (i = 0; i < n; i++)
        SC_TRY(name_item(sc_graph_ctx(g), sc_expr_symbol_name(hints[i]), NULL,
                         a, err));
    return SC_OK;
}

/* Check the names (text, or else the n symbols of hints) against the
 * symbols of g's metadata; 0, or the exit status after printing the
 * error. */
static int check_names(const sc_graph *g, const char *cmd, const char *opt,
                       const char *text, sc_expr *const *hints, size_t n)
{
    names_arg a;
    sc_error err;
    char list[256] = "";
    size_t i, len = 0;
    sc_status st;

    sc_error_init(&err);
    if (!metadata_symbols(g, &a)) {
        free(a.syms);
        cli_errorf("out of memory");
        return CLI_EXIT_INPUT;
    }
    st = find_unknown(g, text, hints, n, &a, &err);
    if (st == SC_OK || st == SC_ERR_NOMEM) {
        free(a.syms);
        if (st == SC_OK)
            return 0;
        cli_errorf("out of memory");
        return CLI_EXIT_INPUT;
    }
    for (i = 0; i < a.n; i++) {
        int k = snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                         sc_expr_symbol_name(a.syms[i]));
        if (k < 0 || (size_t)k >= sizeof list - len - 4) {
            /* cut the list at a whole name */
            snprintf(list + len, sizeof list - len, "%s...", i ? ", " : "");
            break;
        }
        len += (size_t)k;
    }
    free(a.syms);
    return cli_usage_error(cmd, "%s: %s (its symbols: %s)", opt, err.message,
                           a.n ? list : "none");
}

int cli_check_symbol_names(const sc_graph *g, const char *cmd,
                           const char *opt, const char *text)
{
    return check_names(g, cmd, opt, text, NULL, 0);
}

int cli_check_hint_names(const sc_graph *g, const char *cmd,
                         const cli_hints *h)
{
    return check_names(g, cmd, "--hint", NULL, h->syms, h->n);
}

static sc_status range_item(sc_ctx *ctx, const char *name, const char *value,
                            void *arg, sc_error *err)
{
    const char *dots = strstr(value, "..");
    sc_expr *sym = sc_expr_symbol(ctx, name), *lo = NULL, *hi = NULL;
    sc_range r;
    sc_status status;
    char *lo_text;

    if (!sym) {
        sc_ctx_take_error(ctx, err);
        return err->code;
    }
    if (!dots) {
        err->code = SC_ERR_PARSE;
        snprintf(err->message, sizeof err->message,
                 "bad range '%s=%s': expected NAME=LO..HI (a side may be empty)",
                 name, value);
        return SC_ERR_PARSE;
    }
    lo_text = strndup(value, (size_t)(dots - value));
    if (!lo_text) {
        err->code = SC_ERR_NOMEM;
        return SC_ERR_NOMEM;
    }
    if (*lo_text)
        lo = sc_expr_int_str(ctx, lo_text);
    if (dots[2])
        hi = sc_expr_int_str(ctx, dots + 2);
    if ((*lo_text && !lo) || (dots[2] && !hi)) {
        free(lo_text);
        sc_ctx_take_error(ctx, err);
        snprintf(err->message, sizeof err->message,
                 "bad range '%s=%s': the bounds must be integers", name, value);
        return err->code;
    }
    free(lo_text);
    sc_range_init(&r);
    r.lo_inf = !lo;
    r.hi_inf = !hi;
    if (lo)
        sc_expr_value_mpz(lo, r.lo);
    if (hi)
        sc_expr_value_mpz(hi, r.hi);
    if (sc_range_is_empty(&r)) {
        sc_range_clear(&r);
        err->code = SC_ERR_INVALID;
        snprintf(err->message, sizeof err->message,
                 "empty range '%s=%s'", name, value);
        return SC_ERR_INVALID;
    }
    status = sc_bounds_set(arg, sym, &r, err);
    sc_range_clear(&r);
    return status;
}

sc_status cli_parse_ranges(sc_ctx *ctx, const char *text, sc_bounds *bounds,
                           sc_error *err)
{
    return for_each_item(ctx, text, range_item, bounds, err);
}

sc_graph *cli_read_graph(sc_ctx *ctx, const char *path,
                         const sc_graph_read_options *opts)
{
    sc_error err;
    sc_graph *g = NULL;
    size_t len = 0;
    char *text = cli_read_file(path, &len, &err);

    if (!text) {
        cli_report(&err);
        return NULL;
    }
    if (sc_graph_read_text(ctx, text, len,
                           strcmp(path, "-") == 0 ? "<stdin>" : path, opts,
                           &g, &err) != SC_OK) {
        cli_report(&err);
        g = NULL;
    }
    free(text);
    return g;
}

bool cli_parse_hints(sc_ctx *ctx, const char *text, cli_hints *h, char *msg,
                     size_t msgsize)
{
    const char *p = text;
    while (*p) {
        const char *name = p, *eq;
        char buf[128], *endp;
        long long v;
        sc_expr *sym;
        size_t i;

        eq = strchr(p, '=');
        if (!eq || eq == name || (size_t)(eq - name) >= sizeof buf) {
            snprintf(msg, msgsize, "expected SYMBOL=VALUE in '%s'", text);
            return false;
        }
        memcpy(buf, name, (size_t)(eq - name));
        buf[eq - name] = '\0';
        errno = 0;
        v = strtoll(eq + 1, &endp, 10);
        if (endp == eq + 1 || (*endp && *endp != ',') || errno || v < 0) {
            snprintf(msg, msgsize, "the hint of %s must be a non-negative "
                                   "integer", buf);
            return false;
        }
        sym = sc_expr_symbol(ctx, buf);
        if (!sym) {
            snprintf(msg, msgsize, "'%s' is not a symbol name", buf);
            sc_ctx_take_error(ctx, NULL);
            return false;
        }
        for (i = 0; i < h->n && h->syms[i] != sym; i++)
            ;
        if (i == h->n) {
            if (h->n == h->cap) {
                size_t ncap = h->cap ? 2 * h->cap : 8;
                sc_expr **s = realloc(h->syms, ncap * sizeof *s);
                int64_t *vv;
                if (!s) {
                    snprintf(msg, msgsize, "out of memory");
                    return false;
                }
                h->syms = s;
                vv = realloc(h->values, ncap * sizeof *vv);
                if (!vv) {
                    snprintf(msg, msgsize, "out of memory");
                    return false;
                }
                h->values = vv;
                h->cap = ncap;
            }
            h->n++;
        }
        h->syms[i] = sym;
        h->values[i] = v;
        p = *endp ? endp + 1 : endp;
    }
    return true;
}

void cli_hints_free(cli_hints *h)
{
    free(h->syms);
    free(h->values);
    h->syms = NULL;
    h->values = NULL;
    h->n = h->cap = 0;
}

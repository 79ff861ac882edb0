/* symcut — the shape-environment script of `symcut env`: one command a
 * line, `#` starts a comment; every command prints one result line
 * (`guards` one line per guard).  A failing command prints
 * `error: line N: message` in place of its result and the script goes
 * on.  The language is described in doc/guards.md. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/envscript.h"

typedef struct env_script {
    sc_ctx *ctx;
    sc_env *env;
    sc_symmap *alias;   /* script name -> what the environment gave */
    size_t naliases;
    FILE *out;
    int line;
    const char *line_start; /* of the current line, for columns */
    sc_error *first;        /* the first failure (code SC_OK while none) */
    sc_status status;
} env_script;

static int column_of(const env_script *sc, const char *at)
{
    return at && sc->line_start ? (int)(at - sc->line_start) + 1 : 0;
}

/* Record the first failure (line, column, message). */
static void record(env_script *sc, sc_status code, int col, const char *msg)
{
    if (sc->status != SC_OK)
        return;
    sc->status = code;
    if (sc->first) {
        sc_error_init(sc->first);
        sc->first->code = code;
        sc->first->line = sc->line;
        sc->first->column = col;
        snprintf(sc->first->message, sizeof sc->first->message, "%s", msg);
    }
}

/* A failure at `at` (a pointer into the current line, or NULL): prints
 * `error: line N: message`. */
static void fail_line(env_script *sc, sc_status code, const char *at,
                      const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static void fail_line(env_script *sc, sc_status code, const char *at,
                      const char *fmt, ...)
{
    char msg[SC_ERROR_MESSAGE_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(sc->out, "error: line %d: %s\n", sc->line, msg);
    record(sc, code, column_of(sc, at), msg);
}

/* A library error; err->column (if set) is a column of the line, else the
 * error is located at `at`. */
static void fail_err(env_script *sc, const sc_error *err, const char *at)
{
    const char *msg = err->message[0] ? err->message : sc_status_str(err->code);
    sc_status code = err->code != SC_OK ? err->code : SC_ERR_INTERNAL;

    if (err->column > 0) {
        fprintf(sc->out, "error: line %d: column %d: %s\n", sc->line,
                err->column, msg);
        record(sc, code, err->column, msg);
    } else {
        fprintf(sc->out, "error: line %d: %s\n", sc->line, msg);
        record(sc, code, column_of(sc, at), msg);
    }
}

static char *next_token(char **p)
{
    char *s = *p, *start;
    while (isspace((unsigned char)*s))
        s++;
    if (!*s) {
        *p = s;
        return NULL;
    }
    start = s;
    while (*s && !isspace((unsigned char)*s))
        s++;
    if (*s)
        *s++ = '\0';
    *p = s;
    return start;
}

/* Every name of text that is not a function must be a symbol the script
 * created: the constructors fold some expressions to constants (`s0*8 !=
 * 908` is True for every integer), which would otherwise answer a
 * question about a symbol that does not exist. */
static bool names_known(env_script *sc, const char *text)
{
    static const char *const words[] = {"and", "or", "not", "True",
                                        "False"};
    const char *p = text;

    while (*p) {
        const char *start = p;
        size_t n, i;
        bool word = false;
        char name[128];
        sc_expr *sym;

        if (isdigit((unsigned char)*p)) {
            while (isalnum((unsigned char)*p) || *p == '_')
                p++;
            continue;
        }
        if (!isalpha((unsigned char)*p) && *p != '_') {
            p++;
            continue;
        }
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        n = (size_t)(p - start);
        {
            const char *q = p;
            while (isspace((unsigned char)*q))
                q++;
            if (*q == '(')
                continue; /* a function; the parser checks its name */
        }
        for (i = 0; i < sizeof words / sizeof words[0]; i++)
            if (strlen(words[i]) == n && strncmp(words[i], start, n) == 0)
                word = true;
        if (word || n >= sizeof name)
            continue; /* a longer name is no symbol the script made */
        memcpy(name, start, n);
        name[n] = '\0';
        sym = sc_expr_symbol(sc->ctx, name);
        if (!sym) {
            sc_ctx_take_error(sc->ctx, NULL);
            continue;
        }
        if ((sc->naliases > 0 && sc_symmap_get(sc->alias, sym)) ||
            sc_env_has_symbol(sc->env, sym))
            continue;
        fail_line(sc, SC_ERR_UNBOUND, start,
                  "unknown symbol '%s' (not created in the shape "
                  "environment)", name);
        return false;
    }
    return true;
}

/* Parse an expression from text (a part of the current line) and map the
 * script's aliases. */
static bool parse_expr(env_script *sc, const char *text, sc_expr **out)
{
    sc_error err;
    sc_expr *e;

    sc_error_init(&err);
    while (isspace((unsigned char)*text))
        text++;
    if (!*text) {
        fail_line(sc, SC_ERR_PARSE, text, "missing expression");
        return false;
    }
    if (sc_expr_parse(sc->ctx, text, NULL, sc->line, &e, &err) != SC_OK) {
        if (err.column > 0)
            err.column += column_of(sc, text) - 1;
        fail_err(sc, &err, text);
        return false;
    }
    if (!names_known(sc, text))
        return false;
    if (sc->naliases > 0) {
        e = sc_expr_subst(sc->ctx, e, sc->alias);
        if (!e) {
            sc_ctx_take_error(sc->ctx, &err);
            fail_err(sc, &err, text);
            return false;
        }
    }
    *out = e;
    return true;
}

static void put_line(env_script *sc, const char *s)
{
    fputs(s, sc->out);
    fputc('\n', sc->out);
}

static void print_expr(env_script *sc, sc_expr *e)
{
    char *s = sc_expr_to_str(sc->ctx, e);
    if (!s) {
        sc_ctx_take_error(sc->ctx, NULL);
        fail_line(sc, SC_ERR_NOMEM, NULL, "out of memory");
        return;
    }
    put_line(sc, s);
    free(s);
}

static void print_mpz(env_script *sc, mpz_srcptr v)
{
    char *s = mpz_get_str(NULL, 10, v);
    if (!s) {
        fail_line(sc, SC_ERR_NOMEM, NULL, "out of memory");
        return;
    }
    put_line(sc, s);
    free(s);
}

/* An optionally signed decimal integer (mpz_set_str also takes blanks
 * inside, which the script does not). */
static bool set_decimal(mpz_ptr v, const char *s)
{
    const char *p = s + (*s == '-' || *s == '+');
    if (!*p)
        return false;
    for (; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    return mpz_set_str(v, s + (*s == '+'), 10) == 0;
}

/* "LO..HI" with empty sides meaning infinity. */
static bool parse_range(env_script *sc, const char *text, sc_range *r)
{
    const char *dots = strstr(text, "..");
    char buf[256];
    size_t n;

    if (!dots) {
        fail_line(sc, SC_ERR_PARSE, text, "expected a range LO..HI, got '%s'",
                  text);
        return false;
    }
    sc_range_set_unbounded(r);
    n = (size_t)(dots - text);
    if (n >= sizeof buf || strlen(dots + 2) >= sizeof buf) {
        fail_line(sc, SC_ERR_LIMIT, text, "range too long");
        return false;
    }
    if (n > 0) {
        memcpy(buf, text, n);
        buf[n] = '\0';
        if (!set_decimal(r->lo, buf)) {
            fail_line(sc, SC_ERR_PARSE, text, "bad lower bound '%s'", buf);
            return false;
        }
        r->lo_inf = false;
    }
    if (dots[2]) {
        if (!set_decimal(r->hi, dots + 2)) {
            fail_line(sc, SC_ERR_PARSE, dots + 2, "bad upper bound '%s'",
                      dots + 2);
            return false;
        }
        r->hi_inf = false;
    }
    if (sc_range_is_empty(r)) {
        fail_line(sc, SC_ERR_INVALID, text, "empty range '%s'", text);
        return false;
    }
    return true;
}

static void set_alias(env_script *sc, const char *name, sc_expr *value)
{
    sc_error err;
    sc_expr *sym;

    sc_error_init(&err);
    if (!name)
        return;
    sym = sc_expr_symbol(sc->ctx, name);
    if (!sym) {
        sc_ctx_take_error(sc->ctx, NULL);
        return;
    }
    if (sym == value)
        return;
    if (sc_symmap_set(sc->alias, sym, value, &err) == SC_OK)
        sc->naliases++;
}

static void cmd_sym(env_script *sc, char *args, const char *cmd)
{
    char *tok, *name = NULL, *hint_text = NULL, *source = NULL, *eq;
    unsigned flags = 0;
    bool have_range = false;
    sc_expr *out;
    sc_range r;
    sc_error err;
    mpz_t hint;

    sc_range_init(&r);
    mpz_init(hint);
    sc_error_init(&err);
    tok = next_token(&args);
    if (!tok) {
        fail_line(sc, SC_ERR_PARSE, cmd,
                  "usage: sym [NAME =] HINT [source SRC] [no01] "
                  "[noduck] [int] [range LO..HI]");
        goto done;
    }
    if ((eq = strchr(tok, '=')) != NULL) {
        *eq = '\0';
        name = tok;
        hint_text = eq[1] ? eq + 1 : next_token(&args);
    } else {
        char *q = args;
        while (isspace((unsigned char)*q))
            q++;
        if (*q == '=') {
            name = tok;
            args = q + 1;
            hint_text = next_token(&args);
        } else {
            hint_text = tok;
        }
    }
    if (!hint_text || !set_decimal(hint, hint_text)) {
        fail_line(sc, SC_ERR_PARSE, hint_text ? hint_text : args,
                  "expected an integer hint, got '%s'",
                  hint_text ? hint_text : "");
        goto done;
    }
    while ((tok = next_token(&args)) != NULL) {
        if (strcmp(tok, "source") == 0) {
            source = next_token(&args);
            if (!source) {
                fail_line(sc, SC_ERR_PARSE, tok, "'source' needs a text");
                goto done;
            }
        } else if (strcmp(tok, "no01") == 0) {
            flags |= SC_ENV_NO_SPECIALIZE_01;
        } else if (strcmp(tok, "noduck") == 0) {
            flags |= SC_ENV_NO_DUCK;
        } else if (strcmp(tok, "int") == 0) {
            flags |= SC_ENV_INTEGER;
        } else if (strcmp(tok, "range") == 0) {
            char *what = tok;
            tok = next_token(&args);
            if (!tok) {
                fail_line(sc, SC_ERR_PARSE, what, "'range' needs LO..HI");
                goto done;
            }
            if (!parse_range(sc, tok, &r))
                goto done;
            have_range = true;
        } else {
            fail_line(sc, SC_ERR_PARSE, tok, "unknown option '%s' of sym",
                      tok);
            goto done;
        }
    }
    /* Sizes are int64_t in PyTorch; an integer input is a Python int. */
    if (!(flags & SC_ENV_INTEGER) && mpz_sizeinbase(hint, 2) > 63) {
        fail_line(sc, SC_ERR_OVERFLOW, hint_text,
                  "the hint %.40s%s does not fit in int64_t", hint_text,
                  strlen(hint_text) > 40 ? "..." : "");
        goto done;
    }
    if (sc_env_create_backed(sc->env, hint, source, name,
                             have_range ? &r : NULL, flags, &out,
                             &err) != SC_OK) {
        fail_err(sc, &err, name ? name : hint_text);
        goto done;
    }
    set_alias(sc, name, out);
    print_expr(sc, out);
done:
    sc_range_clear(&r);
    mpz_clear(hint);
}

static void cmd_unbacked(env_script *sc, char *args, const char *cmd)
{
    char *tok, *name = NULL;
    unsigned flags = 0;
    bool have_range = false;
    sc_expr *out;
    sc_range r;
    sc_error err;

    sc_range_init(&r);
    sc_error_init(&err);
    while ((tok = next_token(&args)) != NULL) {
        if (strcmp(tok, "size") == 0) {
            flags |= SC_ENV_SIZE_LIKE;
        } else if (strcmp(tok, "range") == 0) {
            char *what = tok;
            tok = next_token(&args);
            if (!tok) {
                fail_line(sc, SC_ERR_PARSE, what, "'range' needs LO..HI");
                goto done;
            }
            if (!parse_range(sc, tok, &r))
                goto done;
            have_range = true;
        } else if (!name) {
            name = tok;
        } else {
            fail_line(sc, SC_ERR_PARSE, tok,
                      "unknown option '%s' of unbacked", tok);
            goto done;
        }
    }
    if (sc_env_create_unbacked(sc->env, name, have_range ? &r : NULL, flags,
                               &out, &err) != SC_OK) {
        fail_err(sc, &err, name ? name : cmd);
        goto done;
    }
    print_expr(sc, out);
done:
    sc_range_clear(&r);
}

static void cmd_guards(env_script *sc, bool as_c, const char *cmd)
{
    sc_guard_set *gs;
    sc_error err;
    size_t i;

    sc_error_init(&err);
    if (sc_env_produce_guards(sc->env, &gs, &err) != SC_OK) {
        fail_err(sc, &err, cmd);
        return;
    }
    if (as_c) {
        char *c;
        if (sc_guard_set_to_c(gs, &c, &err) != SC_OK)
            fail_err(sc, &err, cmd);
        else {
            put_line(sc, c);
            free(c);
        }
    } else if (sc_guard_set_count(gs) == 0) {
        put_line(sc, "(no guards)");
    } else {
        for (i = 0; i < sc_guard_set_count(gs); i++)
            put_line(sc, sc_guard_set_text(gs, i));
    }
    sc_guard_set_free(gs);
}

static void cmd_asserts(env_script *sc)
{
    size_t i, n = sc_env_runtime_assert_count(sc->env);
    if (n == 0)
        put_line(sc, "(no runtime assertions)");
    for (i = 0; i < n; i++)
        print_expr(sc, sc_env_runtime_assert(sc->env, i));
}

/* test NAME=V ...: sizes by source text or by symbol. */
static void cmd_test(env_script *sc, char *args, const char *cmd)
{
    size_t n = sc_env_source_count(sc->env), i, first;
    int64_t *values = calloc(n ? n : 1, sizeof *values);
    bool *given = NULL;
    sc_guard_set *gs = NULL;
    sc_guard_checker *chk = NULL;
    sc_error err;
    char *tok, *save = NULL;

    sc_error_init(&err);
    if (!values) {
        fail_line(sc, SC_ERR_NOMEM, NULL, "out of memory");
        return;
    }
    given = calloc(n ? n : 1, sizeof *given);
    if (!given) {
        fail_line(sc, SC_ERR_NOMEM, NULL, "out of memory");
        goto done;
    }
    /* A source keeps its hint unless named; an integer input's hint may
     * not fit in int64_t, which is an error only when it is kept. */
    for (i = 0; i < n; i++)
        given[i] = sc_expr_value_si(sc_env_source_hint(sc->env, i),
                                    &values[i]);
    for (tok = strtok_r(args, " \t\v\f\r,", &save); tok != NULL;
         tok = strtok_r(NULL, " \t\v\f\r,", &save)) {
        char *eq = strrchr(tok, '='), *end;
        long long v;
        bool found = false;
        if (!eq || eq == tok) {
            fail_line(sc, SC_ERR_PARSE, tok, "expected NAME=VALUE, got '%s'",
                      tok);
            goto done;
        }
        *eq = '\0';
        errno = 0;
        v = strtoll(eq + 1, &end, 10);
        if (errno || !eq[1] || *end) {
            fail_line(sc, errno == ERANGE ? SC_ERR_OVERFLOW : SC_ERR_PARSE,
                      eq + 1, "bad value '%s' for %s", eq + 1, tok);
            goto done;
        }
        for (i = 0; i < n; i++)
            if (strcmp(sc_env_source(sc->env, i), tok) == 0) {
                values[i] = v;
                given[i] = found = true;
            }
        if (!found) {
            sc_expr *sym = sc_expr_symbol(sc->ctx, tok), *target = sym;
            if (sym && sc->naliases > 0)
                target = sc_expr_subst(sc->ctx, sym, sc->alias);
            for (i = 0; target && i < n; i++)
                if (sc_env_source_expr(sc->env, i) == target) {
                    values[i] = v;
                    given[i] = found = true;
                }
            if (!sym || !target)
                sc_ctx_take_error(sc->ctx, NULL);
        }
        if (!found) {
            fail_line(sc, SC_ERR_INVALID, tok,
                      "'%s' is neither a source nor the symbol of one", tok);
            goto done;
        }
    }
    for (i = 0; i < n; i++)
        if (!given[i]) {
            fail_line(sc, SC_ERR_OVERFLOW, cmd,
                      "the hint of %s does not fit in int64_t (give it a "
                      "value)", sc_env_source(sc->env, i));
            goto done;
        }
    if (sc_env_produce_guards(sc->env, &gs, &err) != SC_OK ||
        sc_guard_set_compile(gs, &chk, &err) != SC_OK ||
        sc_guard_checker_check(chk, values, &first, &err) != SC_OK) {
        fail_err(sc, &err, cmd);
        goto done;
    }
    if (first == sc_guard_set_count(gs))
        put_line(sc, "pass");
    else
        fprintf(sc->out, "fail: %s\n", sc_guard_set_text(gs, first));
done:
    sc_guard_checker_free(chk);
    sc_guard_set_free(gs);
    free(given);
    free(values);
}

static void run_line(env_script *sc, char *line)
{
    char *hash = strchr(line, '#'), *p = line, *cmd, *rest, *at;
    sc_error err;
    sc_expr *e, *r;
    sc_tri t;
    bool b;

    sc_error_init(&err);
    sc->line_start = line;
    if (hash)
        *hash = '\0';
    cmd = next_token(&p);
    if (!cmd)
        return;
    rest = p;
    for (at = rest; isspace((unsigned char)*at); at++)
        ;

    if (strcmp(cmd, "sym") == 0) {
        cmd_sym(sc, rest, cmd);
    } else if (strcmp(cmd, "unbacked") == 0) {
        cmd_unbacked(sc, rest, cmd);
    } else if (strcmp(cmd, "guards") == 0) {
        cmd_guards(sc, false, cmd);
    } else if (strcmp(cmd, "cguards") == 0) {
        cmd_guards(sc, true, cmd);
    } else if (strcmp(cmd, "asserts") == 0) {
        cmd_asserts(sc);
    } else if (strcmp(cmd, "test") == 0) {
        cmd_test(sc, rest, cmd);
    } else if (strcmp(cmd, "guard") == 0 || strcmp(cmd, "or_false") == 0 ||
               strcmp(cmd, "or_true") == 0 || strcmp(cmd, "oblivious") == 0) {
        sc_status st;
        if (!parse_expr(sc, rest, &e))
            return;
        if (cmd[0] == 'g')
            st = sc_env_guard(sc->env, e, &b, &err);
        else if (cmd[0] == 'o' && cmd[1] == 'b')
            st = sc_env_size_oblivious(sc->env, e, &b, &err);
        else
            st = sc_env_guard_or(sc->env, e, strcmp(cmd, "or_true") == 0, &b,
                                 &err);
        if (st != SC_OK)
            fail_err(sc, &err, at);
        else
            put_line(sc, b ? "True" : "False");
    } else if (strcmp(cmd, "known") == 0) {
        if (!parse_expr(sc, rest, &e))
            return;
        if (sc_env_statically_known(sc->env, e, 0, &t, &err) != SC_OK)
            fail_err(sc, &err, at);
        else
            put_line(sc, t == SC_TRI_TRUE    ? "True"
                         : t == SC_TRI_FALSE ? "False"
                                             : "unknown");
    } else if (strcmp(cmd, "check") == 0) {
        if (!parse_expr(sc, rest, &e))
            return;
        if (sc_env_assert(sc->env, e, &err) != SC_OK)
            fail_err(sc, &err, at);
        else
            put_line(sc, "ok");
    } else if (strcmp(cmd, "int") == 0 || strcmp(cmd, "hint") == 0) {
        mpz_t v;
        sc_status st;
        if (!parse_expr(sc, rest, &e))
            return;
        mpz_init(v);
        st = cmd[0] == 'i' ? sc_env_guard_int(sc->env, e, v, &err)
                           : sc_env_hint(sc->env, e, v, &err);
        if (st != SC_OK)
            fail_err(sc, &err, at);
        else
            print_mpz(sc, v);
        mpz_clear(v);
    } else if (strcmp(cmd, "simplify") == 0) {
        if (!parse_expr(sc, rest, &e))
            return;
        if (sc_env_simplify(sc->env, e, &r, &err) != SC_OK)
            fail_err(sc, &err, at);
        else
            print_expr(sc, r);
    } else if (strcmp(cmd, "range") == 0) {
        sc_range rg;
        if (!parse_expr(sc, rest, &e))
            return;
        sc_range_init(&rg);
        if (sc_env_range(sc->env, e, &rg, &err) != SC_OK) {
            fail_err(sc, &err, at);
        } else {
            char *s = sc_range_to_str(&rg);
            if (s)
                put_line(sc, s);
            else
                fail_line(sc, SC_ERR_NOMEM, NULL, "out of memory");
            free(s);
        }
        sc_range_clear(&rg);
    } else {
        fail_line(sc, SC_ERR_PARSE, cmd, "unknown command '%s'", cmd);
    }
}

sc_status cli_envscript_run(const char *text, size_t len, FILE *out,
                            sc_error *first)
{
    env_script sc;
    sc_error err;
    const char *nul;
    char *copy, *line, *next;
    size_t n;

    memset(&sc, 0, sizeof sc);
    sc.out = out;
    sc.first = first;
    if (first)
        sc_error_init(first);
    nul = memchr(text, '\0', len);
    if (nul) {
        const char *p, *ls = text;
        sc.line = 1;
        for (p = text; p < nul; p++)
            if (*p == '\n') {
                sc.line++;
                ls = p + 1;
            }
        sc.line_start = ls;
        fail_line(&sc, SC_ERR_PARSE, nul,
                  "NUL byte in the script (it is not a text file)");
        return sc.status;
    }
    copy = malloc(len + 1);
    if (!copy) {
        fail_line(&sc, SC_ERR_NOMEM, NULL, "out of memory");
        return sc.status;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    sc.ctx = sc_ctx_new();
    sc.alias = sc.ctx ? sc_symmap_new(sc.ctx) : NULL;
    if (!sc.alias || sc_env_new(sc.ctx, NULL, &sc.env, &err) != SC_OK) {
        fail_line(&sc, SC_ERR_NOMEM, NULL, "out of memory");
        goto done;
    }
    for (line = copy; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        n = strlen(line);
        if (n && line[n - 1] == '\r')
            line[n - 1] = '\0';
        sc.line++;
        run_line(&sc, line);
    }
    if (fflush(out) != 0 || ferror(out)) {
        sc.line_start = NULL;
        sc.line = 0;
        record(&sc, SC_ERR_IO, 0, "cannot write the output");
        if (sc.status == SC_OK)
            sc.status = SC_ERR_IO;
    }
done:
    sc_env_free(sc.env);
    sc_symmap_free(sc.alias);
    sc_ctx_free(sc.ctx);
    free(copy);
    return sc.status;
}

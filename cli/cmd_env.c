/* symcut env — run a shape-environment script.
 *
 *   symcut env [FILE | -]
 *
 * One command a line, `#` starts a comment; every command prints one
 * result line (`guards` one line per guard).  An error prints
 * `error: line N: message` on standard output, in place of the result, and
 * the script goes on; the exit status is then 2.  The language is
 * described in doc/guards.md. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

typedef struct env_script {
    sc_ctx *ctx;
    sc_env *env;
    sc_symmap *alias;   /* script name -> what the environment gave */
    size_t naliases;
    int line;
    bool failed;
} env_script;

static void usage(FILE *out)
{
    fputs("Usage: symcut env [FILE | -]\n"
          "\n"
          "Run a shape-environment script (standard input when FILE is\n"
          "missing or '-'): create backed and unbacked symbols, ask guard\n"
          "questions, make assertions, and print the resulting guard set.\n"
          "One command a line; '#' starts a comment.\n"
          "\n"
          "Commands (EXPR in PyTorch's spelling: s0*s1 + 2, s0 // 8,\n"
          "Mod(s0, 8), Eq(s0, s1), s0 >= 2, ...):\n"
          "  sym [NAME =] HINT [source SRC] [no01] [noduck] [range LO..HI]\n"
          "                      a backed size -> its symbol (or constant)\n"
          "  unbacked [NAME] [range LO..HI] [size]\n"
          "                      an unbacked symbol (LO or HI empty: infinity)\n"
          "  guard EXPR          guard -> True | False (records a guard)\n"
          "  int EXPR            guard_int -> the value (records Eq(EXPR, v))\n"
          "  known EXPR          statically known -> True | False | unknown\n"
          "  or_false EXPR       guard_or_false -> True | False\n"
          "  or_true EXPR        guard_or_true -> True | False\n"
          "  oblivious EXPR      guard_size_oblivious -> True | False\n"
          "  check EXPR          torch._check -> ok\n"
          "  simplify EXPR       -> the simplified expression\n"
          "  range EXPR          -> [lo, hi]\n"
          "  hint EXPR           -> the value at the hints\n"
          "  guards              the guard set over the sources, one a line\n"
          "  cguards             the guard set as one C expression\n"
          "  asserts             the deferred runtime assertions, one a line\n"
          "  test NAME=V ...     check the guard set with these sizes (NAME a\n"
          "                      source or a symbol; others keep their hint)\n"
          "                      -> pass | fail: GUARD\n"
          "\n"
          "Exit status: 0 success; 1 bad command line; 2 a command failed.\n",
          out);
}

static void fail_line(env_script *sc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void fail_line(env_script *sc, const char *fmt, ...)
{
    va_list ap;
    printf("error: line %d: ", sc->line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    sc->failed = true;
}

static void fail_err(env_script *sc, const sc_error *err)
{
    const char *msg = err->message[0] ? err->message : sc_status_str(err->code);
    if (err->column > 0)
        fail_line(sc, "column %d: %s", err->column, msg);
    else
        fail_line(sc, "%s", msg);
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

/* Parse an expression from text (column offset `col0` in the line) and
 * map the script's aliases. */
static bool parse_expr(env_script *sc, const char *text, int col0,
                       sc_expr **out)
{
    sc_error err;
    sc_expr *e;

    sc_error_init(&err);
    while (isspace((unsigned char)*text)) {
        text++;
        col0++;
    }
    if (!*text) {
        fail_line(sc, "missing expression");
        return false;
    }
    if (sc_expr_parse(sc->ctx, text, NULL, sc->line, &e, &err) != SC_OK) {
        if (err.column > 0)
            err.column += col0;
        fail_err(sc, &err);
        return false;
    }
    if (sc->naliases > 0) {
        e = sc_expr_subst(sc->ctx, e, sc->alias);
        if (!e) {
            sc_ctx_take_error(sc->ctx, &err);
            fail_err(sc, &err);
            return false;
        }
    }
    *out = e;
    return true;
}

static void print_expr(env_script *sc, sc_expr *e)
{
    char *s = sc_expr_to_str(sc->ctx, e);
    if (!s) {
        fail_line(sc, "out of memory");
        return;
    }
    puts(s);
    free(s);
}

static void print_mpz(mpz_srcptr v)
{
    char *s = mpz_get_str(NULL, 10, v);
    puts(s ? s : "?");
    free(s);
}

/* "LO..HI" with empty sides meaning infinity. */
static bool parse_range(env_script *sc, const char *text, sc_range *r)
{
    const char *dots = strstr(text, "..");
    char buf[256];
    size_t n;

    if (!dots) {
        fail_line(sc, "expected a range LO..HI, got '%s'", text);
        return false;
    }
    sc_range_set_unbounded(r);
    n = (size_t)(dots - text);
    if (n >= sizeof buf || strlen(dots + 2) >= sizeof buf) {
        fail_line(sc, "range too long");
        return false;
    }
    if (n > 0) {
        memcpy(buf, text, n);
        buf[n] = '\0';
        if (mpz_set_str(r->lo, buf, 10) != 0) {
            fail_line(sc, "bad lower bound '%s'", buf);
            return false;
        }
        r->lo_inf = false;
    }
    if (dots[2]) {
        if (mpz_set_str(r->hi, dots + 2, 10) != 0) {
            fail_line(sc, "bad upper bound '%s'", dots + 2);
            return false;
        }
        r->hi_inf = false;
    }
    if (sc_range_is_empty(r)) {
        fail_line(sc, "empty range '%s'", text);
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
    if (!sym || sym == value)
        return;
    if (sc_symmap_set(sc->alias, sym, value, &err) == SC_OK)
        sc->naliases++;
}

static void cmd_sym(env_script *sc, char *args)
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
        fail_line(sc, "usage: sym [NAME =] HINT [source SRC] [no01] "
                      "[noduck] [range LO..HI]");
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
    if (!hint_text || mpz_set_str(hint, hint_text, 10) != 0) {
        fail_line(sc, "expected an integer hint, got '%s'",
                  hint_text ? hint_text : "");
        goto done;
    }
    while ((tok = next_token(&args)) != NULL) {
        if (strcmp(tok, "source") == 0) {
            source = next_token(&args);
            if (!source) {
                fail_line(sc, "'source' needs a text");
                goto done;
            }
        } else if (strcmp(tok, "no01") == 0) {
            flags |= SC_ENV_NO_SPECIALIZE_01;
        } else if (strcmp(tok, "noduck") == 0) {
            flags |= SC_ENV_NO_DUCK;
        } else if (strcmp(tok, "range") == 0) {
            tok = next_token(&args);
            if (!tok) {
                fail_line(sc, "'range' needs LO..HI");
                goto done;
            }
            if (!parse_range(sc, tok, &r))
                goto done;
            have_range = true;
        } else {
            fail_line(sc, "unknown option '%s' of sym", tok);
            goto done;
        }
    }
    if (sc_env_create_backed(sc->env, hint, source, name,
                             have_range ? &r : NULL, flags, &out,
                             &err) != SC_OK) {
        fail_err(sc, &err);
        goto done;
    }
    set_alias(sc, name, out);
    print_expr(sc, out);
done:
    sc_range_clear(&r);
    mpz_clear(hint);
}

static void cmd_unbacked(env_script *sc, char *args)
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
            tok = next_token(&args);
            if (!tok) {
                fail_line(sc, "'range' needs LO..HI");
                goto done;
            }
            if (!parse_range(sc, tok, &r))
                goto done;
            have_range = true;
        } else if (!name) {
            name = tok;
        } else {
            fail_line(sc, "unknown option '%s' of unbacked", tok);
            goto done;
        }
    }
    if (sc_env_create_unbacked(sc->env, name, have_range ? &r : NULL, flags,
                               &out, &err) != SC_OK) {
        fail_err(sc, &err);
        goto done;
    }
    print_expr(sc, out);
done:
    sc_range_clear(&r);
}

static void cmd_guards(env_script *sc, bool as_c)
{
    sc_guard_set *gs;
    sc_error err;
    size_t i;

    sc_error_init(&err);
    if (sc_env_produce_guards(sc->env, &gs, &err) != SC_OK) {
        fail_err(sc, &err);
        return;
    }
    if (as_c) {
        char *c;
        if (sc_guard_set_to_c(gs, &c, &err) != SC_OK)
            fail_err(sc, &err);
        else {
            puts(c);
            free(c);
        }
    } else if (sc_guard_set_count(gs) == 0) {
        puts("(no guards)");
    } else {
        for (i = 0; i < sc_guard_set_count(gs); i++)
            puts(sc_guard_set_text(gs, i));
    }
    sc_guard_set_free(gs);
}

static void cmd_asserts(env_script *sc)
{
    size_t i, n = sc_env_runtime_assert_count(sc->env);
    if (n == 0)
        puts("(no runtime assertions)");
    for (i = 0; i < n; i++)
        print_expr(sc, sc_env_runtime_assert(sc->env, i));
}

/* test NAME=V ...: sizes by source text or by symbol. */
static void cmd_test(env_script *sc, char *args)
{
    size_t n = sc_env_source_count(sc->env), i, first;
    int64_t *values = calloc(n ? n : 1, sizeof *values);
    sc_guard_set *gs = NULL;
    sc_guard_checker *chk = NULL;
    sc_error err;
    char *tok;

    sc_error_init(&err);
    if (!values) {
        fail_line(sc, "out of memory");
        return;
    }
    for (i = 0; i < n; i++) {
        if (!sc_expr_get_si(sc_env_source_hint(sc->env, i), &values[i])) {
            fail_line(sc, "the hint of %s does not fit in int64_t",
                      sc_env_source(sc->env, i));
            goto done;
        }
    }
    for (tok = args; (tok = strtok(tok, " \t,")) != NULL; tok = NULL) {
        char *eq = strrchr(tok, '='), *end;
        long long v;
        bool found = false;
        if (!eq || eq == tok) {
            fail_line(sc, "expected NAME=VALUE, got '%s'", tok);
            goto done;
        }
        *eq = '\0';
        errno = 0;
        v = strtoll(eq + 1, &end, 10);
        if (errno || !eq[1] || *end) {
            fail_line(sc, "bad value '%s' for %s", eq + 1, tok);
            goto done;
        }
        for (i = 0; i < n; i++)
            if (strcmp(sc_env_source(sc->env, i), tok) == 0) {
                values[i] = v;
                found = true;
            }
        if (!found) {
            sc_expr *sym = sc_expr_symbol(sc->ctx, tok), *target = sym;
            if (sym && sc->naliases > 0)
                target = sc_expr_subst(sc->ctx, sym, sc->alias);
            for (i = 0; target && i < n; i++)
                if (sc_env_source_expr(sc->env, i) == target) {
                    values[i] = v;
                    found = true;
                }
            if (!sym)
                sc_ctx_take_error(sc->ctx, NULL);
        }
        if (!found) {
            fail_line(sc, "'%s' is neither a source nor the symbol of one",
                      tok);
            goto done;
        }
    }
    if (sc_env_produce_guards(sc->env, &gs, &err) != SC_OK ||
        sc_guard_set_compile(gs, &chk, &err) != SC_OK ||
        sc_guard_checker_check(chk, values, &first, &err) != SC_OK) {
        fail_err(sc, &err);
        goto done;
    }
    if (first == sc_guard_set_count(gs))
        puts("pass");
    else
        printf("fail: %s\n", sc_guard_set_text(gs, first));
done:
    sc_guard_checker_free(chk);
    sc_guard_set_free(gs);
    free(values);
}

static void run_line(env_script *sc, char *line)
{
    char *hash = strchr(line, '#'), *p = line, *cmd, *rest;
    sc_error err;
    sc_expr *e, *r;
    sc_tri t;
    bool b;
    int col0;

    sc_error_init(&err);
    if (hash)
        *hash = '\0';
    cmd = next_token(&p);
    if (!cmd)
        return;
    rest = p;
    col0 = (int)(rest - line);

    if (strcmp(cmd, "sym") == 0) {
        cmd_sym(sc, rest);
    } else if (strcmp(cmd, "unbacked") == 0) {
        cmd_unbacked(sc, rest);
    } else if (strcmp(cmd, "guards") == 0) {
        cmd_guards(sc, false);
    } else if (strcmp(cmd, "cguards") == 0) {
        cmd_guards(sc, true);
    } else if (strcmp(cmd, "asserts") == 0) {
        cmd_asserts(sc);
    } else if (strcmp(cmd, "test") == 0) {
        cmd_test(sc, rest);
    } else if (strcmp(cmd, "guard") == 0 || strcmp(cmd, "or_false") == 0 ||
               strcmp(cmd, "or_true") == 0 || strcmp(cmd, "oblivious") == 0) {
        sc_status st;
        if (!parse_expr(sc, rest, col0, &e))
            return;
        if (cmd[0] == 'g')
            st = sc_env_guard(sc->env, e, &b, &err);
        else if (cmd[0] == 'o' && cmd[1] == 'b')
            st = sc_env_size_oblivious(sc->env, e, &b, &err);
        else
            st = sc_env_guard_or(sc->env, e, strcmp(cmd, "or_true") == 0, &b,
                                 &err);
        if (st != SC_OK)
            fail_err(sc, &err);
        else
            puts(b ? "True" : "False");
    } else if (strcmp(cmd, "known") == 0) {
        if (!parse_expr(sc, rest, col0, &e))
            return;
        if (sc_env_statically_known(sc->env, e, 0, &t, &err) != SC_OK)
            fail_err(sc, &err);
        else
            puts(t == SC_TRI_TRUE ? "True" : t == SC_TRI_FALSE ? "False"
                                                               : "unknown");
    } else if (strcmp(cmd, "check") == 0) {
        if (!parse_expr(sc, rest, col0, &e))
            return;
        if (sc_env_assert(sc->env, e, &err) != SC_OK)
            fail_err(sc, &err);
        else
            puts("ok");
    } else if (strcmp(cmd, "int") == 0 || strcmp(cmd, "hint") == 0) {
        mpz_t v;
        sc_status st;
        if (!parse_expr(sc, rest, col0, &e))
            return;
        mpz_init(v);
        st = cmd[0] == 'i' ? sc_env_guard_int(sc->env, e, v, &err)
                           : sc_env_hint(sc->env, e, v, &err);
        if (st != SC_OK)
            fail_err(sc, &err);
        else
            print_mpz(v);
        mpz_clear(v);
    } else if (strcmp(cmd, "simplify") == 0) {
        if (!parse_expr(sc, rest, col0, &e))
            return;
        if (sc_env_simplify(sc->env, e, &r, &err) != SC_OK)
            fail_err(sc, &err);
        else
            print_expr(sc, r);
    } else if (strcmp(cmd, "range") == 0) {
        sc_range rg;
        if (!parse_expr(sc, rest, col0, &e))
            return;
        sc_range_init(&rg);
        if (sc_env_range(sc->env, e, &rg, &err) != SC_OK) {
            fail_err(sc, &err);
        } else {
            char *s = sc_range_to_str(&rg);
            puts(s ? s : "?");
            free(s);
        }
        sc_range_clear(&rg);
    } else {
        fail_line(sc, "unknown command '%s'", cmd);
    }
}

int cli_cmd_env(int argc, char **argv)
{
    const char *path = "-";
    env_script sc;
    sc_error err;
    char *text, *line, *next;
    int i, status;

    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            return cli_usage_error("env", "unknown option '%s'", argv[i]);
        if (i != argc - 1)
            return cli_usage_error("env", "expected one script file");
        path = argv[i];
    }
    text = cli_read_file(path, NULL, &err);
    if (!text) {
        cli_report(&err);
        return CLI_EXIT_INPUT;
    }
    memset(&sc, 0, sizeof sc);
    sc.ctx = sc_ctx_new();
    sc.alias = sc.ctx ? sc_symmap_new(sc.ctx) : NULL;
    if (!sc.alias || sc_env_new(sc.ctx, NULL, &sc.env, &err) != SC_OK) {
        cli_errorf("out of memory");
        sc_symmap_free(sc.alias);
        sc_ctx_free(sc.ctx);
        free(text);
        return CLI_EXIT_INPUT;
    }
    for (line = text; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (*line && line[strlen(line) - 1] == '\r')
            line[strlen(line) - 1] = '\0';
        sc.line++;
        run_line(&sc, line);
    }
    status = sc.failed ? CLI_EXIT_INPUT : CLI_EXIT_OK;
    if (fflush(stdout) != 0) {
        cli_errorf("cannot write the output");
        status = CLI_EXIT_INPUT;
    }
    sc_env_free(sc.env);
    sc_symmap_free(sc.alias);
    sc_ctx_free(sc.ctx);
    free(text);
    return status;
}

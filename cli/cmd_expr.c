/* symcut expr — simplify, evaluate or bound symbolic integer expressions.
 *
 *   symcut expr simplify [--range s0=2..1024,...] EXPR... | -f FILE
 *   symcut expr eval --bind s0=5,s1=7 EXPR... | -f FILE
 *   symcut expr range [--range s0=2..] EXPR... | -f FILE
 *
 * One result a line; an expression that fails prints a located error on
 * stderr.  With -f FILE every line of FILE prints one line, so results
 * line up with the input: the result, "error: " and the located message
 * for a line that fails (the message also on stderr), an empty line for
 * a blank or comment line (first non-blank character '#').  The other
 * expressions still run, and the exit status is 2 when any failed. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

typedef enum { MODE_SIMPLIFY, MODE_EVAL, MODE_RANGE } expr_mode;

typedef struct expr_job {
    sc_ctx *ctx;
    expr_mode mode;
    sc_symmap *binding;
    sc_bounds *bounds;
    bool from_file; /* the expressions are lines of -f FILE */
} expr_job;

static void usage(FILE *out)
{
    fputs("Usage: symcut expr simplify [--range RANGES] (EXPR... | -f FILE)\n"
          "       symcut expr eval --bind BINDINGS (EXPR... | -f FILE)\n"
          "       symcut expr range [--range RANGES] (EXPR... | -f FILE)\n"
          "\n"
          "Canonicalize and simplify, evaluate, or bound symbolic integer\n"
          "expressions written as PyTorch prints them (s0*s1 + 2, s0//8,\n"
          "Mod(s0, 8), Max(1, s1), Eq(s0, s1), s0 >= 2; also %, **, ==, !=,\n"
          "and/or/not).  Arithmetic is exact, with Python's floor division.\n"
          "\n"
          "Options:\n"
          "  --bind s0=5,s1=7      values of the symbols (eval)\n"
          "  --range s0=2..1024    ranges of the symbols; an empty side is\n"
          "                        infinity (s0=2..); repeatable\n"
          "  -f FILE               read one expression a line ('-' is stdin;\n"
          "                        a blank line or one starting with # prints\n"
          "                        an empty line)\n"
          "  --                    the remaining arguments are expressions\n"
          "\n"
          "Prints one result a line; errors (on standard error) name the line\n"
          "and column.  With -f, every line of FILE prints one line, so results\n"
          "line up with the input: an error prints 'error: ' and the message\n"
          "there too, a blank or comment line an empty line.\n"
          "Exit status: 0 all ok; 1 bad command line; 2 an expression failed,\n"
          "or an error writing (standard output included).\n",
          out);
}

/* An expression's error: on stderr, and, for a line of -f FILE, as its
 * result line on stdout. */
static void report(const expr_job *job, const sc_error *err)
{
    char buf[SC_ERROR_MESSAGE_MAX + SC_ERROR_FILE_MAX + 64];

    cli_report(err);
    if (!job->from_file)
        return;
    sc_error_format(err, buf, sizeof buf);
    printf("error: %s\n", buf);
}

/* Run one expression; prints its result or its error.  Returns true on
 * success. */
static bool run_one(expr_job *job, const char *text, const char *file,
                    int line)
{
    sc_expr *e = NULL, *r;
    sc_error err;
    sc_range range;
    mpz_t value;
    char *s;
    bool ok = false;

    if (sc_expr_parse(job->ctx, text, file, line, &e, &err) != SC_OK) {
        report(job, &err);
        return false;
    }
    switch (job->mode) {
    case MODE_SIMPLIFY:
        r = sc_expr_simplify(job->ctx, e, job->bounds);
        s = r ? sc_expr_to_str(job->ctx, r) : NULL;
        if (!s)
            break;
        puts(s);
        free(s);
        ok = true;
        break;
    case MODE_EVAL:
        mpz_init(value);
        if (sc_expr_eval(job->ctx, e, job->binding, value, &err) == SC_OK) {
            if (sc_expr_is_bool(e))
                puts(mpz_sgn(value) ? "True" : "False");
            else {
                mpz_out_str(stdout, 10, value);
                putchar('\n');
            }
            ok = true;
        } else {
            err.line = line;
            snprintf(err.file, sizeof err.file, "%s", file);
            report(job, &err);
            mpz_clear(value);
            return false;
        }
        mpz_clear(value);
        break;
    case MODE_RANGE:
        sc_range_init(&range);
        if (sc_expr_range(job->ctx, e, job->bounds, &range, &err) == SC_OK) {
            s = sc_range_to_str(&range);
            if (s) {
                puts(s);
                free(s);
                ok = true;
            }
        } else {
            err.line = line;
            snprintf(err.file, sizeof err.file, "%s", file);
            report(job, &err);
            sc_range_clear(&range);
            return false;
        }
        sc_range_clear(&range);
        break;
    }
    if (!ok) {
        sc_ctx_take_error(job->ctx, &err);
        err.line = line;
        snprintf(err.file, sizeof err.file, "%s", file);
        report(job, &err);
    }
    return ok;
}

/* Every non-blank, non-comment line of a file is an expression; every
 * line prints one line. */
static bool run_file(expr_job *job, const char *path)
{
    sc_error err;
    char *text = cli_read_file(path, NULL, &err), *p, *nl;
    const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    bool ok = true;
    int line = 0;

    if (!text) {
        cli_report(&err);
        return false;
    }
    for (p = text; *p; p = nl ? nl + 1 : p + strlen(p)) {
        const char *q;
        nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        line++;
        for (q = p; *q == ' ' || *q == '\t' || *q == '\r'; q++)
            ;
        if (*q == '\0' || *q == '#') {
            putchar('\n');
        } else if (!run_one(job, p, name, line)) {
            ok = false;
        }
        if (!nl)
            break;
    }
    free(text);
    return ok;
}

/* --bind s0=5,... (eval) into the job o->dest. */
static int bind_option(const cli_syntax *syn, const cli_opt *o,
                       const char *value)
{
    expr_job *job = o->dest;
    sc_error err;

    if (job->mode != MODE_EVAL)
        return cli_usage_error(syn->cmd, "--bind is for eval");
    if (cli_parse_bindings(job->ctx, value, job->binding, &err) != SC_OK)
        return cli_usage_error(syn->cmd, "--bind: %s", err.message);
    return 0;
}

/* --range s0=2..1024,... (simplify, range) into the job o->dest. */
static int range_option(const cli_syntax *syn, const cli_opt *o,
                        const char *value)
{
    expr_job *job = o->dest;
    sc_error err;

    if (job->mode == MODE_EVAL)
        return cli_usage_error(syn->cmd, "--range is for simplify and range");
    if (cli_parse_ranges(job->ctx, value, job->bounds, &err) != SC_OK)
        return cli_usage_error(syn->cmd, "--range: %s", err.message);
    return 0;
}

/* The options after the action; *file the -f FILE, *first the index of
 * the first expression of argv. */
static int parse_args(int argc, char **argv, expr_job *job, const char **file,
                      int *first)
{
    const cli_opt opts[] = {
        {.name = "--bind", .kind = CLI_OPT_CALL, .dest = job,
         .fn = bind_option},
        {.name = "--range", .kind = CLI_OPT_CALL, .dest = job,
         .fn = range_option},
        {.short_name = "-f", .kind = CLI_OPT_TEXT, .dest = file},
    };
    const cli_syntax syn = {.cmd = "expr", .usage = usage, .opts = opts,
                            .nopts = CLI_NOPTS(opts), .options_first = true};
    cli_args args;
    int rc = cli_parse_options(&syn, argc, argv, 2, &args), nexpr;

    if (rc != CLI_PARSED)
        return rc;
    *first = args.rest;
    nexpr = argc - args.rest;
    if (*file && nexpr > 0)
        return cli_usage_error("expr", "give expressions or -f FILE, "
                                       "not both");
    if (!*file && nexpr == 0)
        return cli_usage_error("expr", "no expression given");
    return CLI_PARSED;
}

/* The action argv[1]: false if it is none. */
static bool parse_mode(const char *a, expr_mode *mode)
{
    if (strcmp(a, "simplify") == 0)
        *mode = MODE_SIMPLIFY;
    else if (strcmp(a, "eval") == 0)
        *mode = MODE_EVAL;
    else if (strcmp(a, "range") == 0)
        *mode = MODE_RANGE;
    else
        return false;
    return true;
}

int cli_cmd_expr(int argc, char **argv)
{
    expr_job job = {0};
    const char *file = NULL;
    int i, first = argc, rc;
    bool ok = true;
    char label[32];

    if (argc < 2 || cli_is_help(argv[1])) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
    }
    if (!parse_mode(argv[1], &job.mode))
        return cli_usage_error("expr", "unknown action '%s' (expected "
                               "simplify, eval or range)", argv[1]);
    rc = CLI_EXIT_INPUT;
    job.ctx = sc_ctx_new();
    job.binding = job.ctx ? sc_symmap_new(job.ctx) : NULL;
    job.bounds = job.ctx ? sc_bounds_new(job.ctx) : NULL;
    if (!job.binding || !job.bounds) {
        cli_errorf("out of memory");
        goto done;
    }
    if ((rc = parse_args(argc, argv, &job, &file, &first)) != CLI_PARSED)
        goto done;
    job.from_file = file != NULL;
    if (file)
        ok = run_file(&job, file);
    for (i = first; i < argc; i++) {
        snprintf(label, sizeof label, "argument %d", i - first + 1);
        if (!run_one(&job, argv[i], label, 1))
            ok = false;
    }
    if (fflush(stdout) != 0) {
        cli_errorf("cannot write to standard output");
        ok = false;
    }
    rc = ok ? CLI_EXIT_OK : CLI_EXIT_INPUT;
done:
    sc_bounds_free(job.bounds);
    sc_symmap_free(job.binding);
    sc_ctx_free(job.ctx);
    return rc;
}

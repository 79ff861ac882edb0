/* symcut env — run a shape-environment script.
 *
 *   symcut env [FILE | -]
 *
 * One command a line, `#` starts a comment; every command prints one
 * result line (`guards` one line per guard).  An error prints
 * `error: line N: message` on standard output, in place of the result, and
 * the script goes on; the exit status is then 2.  A `test` that prints
 * `fail: GUARD` makes it 3 when no command failed.  The language is
 * described in doc/guards.md; the interpreter is cli/envscript.c. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/envscript.h"

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
          "Exit status: 0 success; 1 bad command line; 2 a command failed (an\n"
          "error line), or an error reading or writing (standard output\n"
          "included); 3 no command failed but a 'test' printed fail.\n",
          out);
}

/* Does a line of out[0..len) start with "fail: " (the result of a test
 * that fails; no other result line starts so)? */
static bool has_failed_test(const char *out, size_t len)
{
    const char *p = out, *end = out + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if ((size_t)(end - p) >= 6 && memcmp(p, "fail: ", 6) == 0)
            return true;
        p = nl ? nl + 1 : end;
    }
    return false;
}

int cli_cmd_env(int argc, char **argv)
{
    const cli_syntax syn = {.cmd = "env", .usage = usage, .max_args = 1,
                            .too_many = "expected one script file",
                            .args_last = true};
    const char *path;
    cli_args args;
    sc_error err;
    sc_status st;
    char *text, *out = NULL;
    size_t len = 0, outlen = 0;
    FILE *mem;
    int rc = cli_parse_options(&syn, argc, argv, 1, &args);

    if (rc != CLI_PARSED)
        return rc;
    path = args.nargs ? args.args[0] : "-";
    text = cli_read_file(path, &len, &err);
    if (!text) {
        cli_report(&err);
        return CLI_EXIT_INPUT;
    }
    /* the results are collected (the whole script is read first anyway)
     * to see whether a test failed, then written */
    mem = open_memstream(&out, &outlen);
    if (!mem) {
        free(text);
        cli_errorf("out of memory");
        return CLI_EXIT_INPUT;
    }
    st = cli_envscript_run(text, len, mem, &err);
    free(text);
    if (fclose(mem) != 0) {
        free(out);
        cli_errorf("out of memory");
        return CLI_EXIT_INPUT;
    }
    if (fwrite(out, 1, outlen, stdout) != outlen || fflush(stdout) != 0) {
        cli_errorf("cannot write to standard output: %s", strerror(errno));
        free(out);
        return CLI_EXIT_INPUT;
    }
    rc = st == SC_OK && has_failed_test(out, outlen) ? CLI_EXIT_CHECK
         : st == SC_OK                               ? CLI_EXIT_OK
                                                     : CLI_EXIT_INPUT;
    free(out);
    if (st == SC_ERR_NOMEM && err.line == 0)
        cli_errorf("out of memory");
    return rc;
}

/* symcut — the shape-environment script language of `symcut env`
 * (doc/guards.md), as a function that the command, the tests and the
 * fuzz target share.
 *
 * Included by cli/cmd_env.c, cli/envscript.c, tests/check_badinput.c and
 * the fuzz target. */
#ifndef SYMCUT_CLI_ENVSCRIPT_H
#define SYMCUT_CLI_ENVSCRIPT_H

#include <stddef.h>
#include <stdio.h>

#include <symcut.h>

/* Run the script text[0..len) in a new context and shape environment.
 * Every command writes its result line(s) to out; a failing command
 * writes `error: line N: message` to out in its place and the script goes
 * on.  Returns SC_OK when every command succeeded; otherwise the status
 * of the first failure, whose message, line and column (0: the whole
 * line) are stored in *first (may be NULL).  A NUL byte in the text is an
 * error at its position, and then no command runs.  An output write error
 * is SC_ERR_IO. */
sc_status cli_envscript_run(const char *text, size_t len, FILE *out,
                            sc_error *first);

#endif /* SYMCUT_CLI_ENVSCRIPT_H */

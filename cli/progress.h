/* symcut — the command-line tool's progress reports on standard error:
 * the sc_progress_fn the commands give the library, and the phases the
 * commands announce themselves.
 *
 * Included by cli/ sources only.
 *
 * When progress shows (cli_progress_option):
 *   - default: only when standard error is a terminal and not -q, once the
 *     command has run for about a second;
 *   - --progress: always (unless -q), from the start;
 *   - --no-progress: never.
 * On a terminal the report is one line, "symcut: PHASE: 42%", rewritten
 * in place at most ten times a second and erased when the phase ends or
 * before any other message (cli_progress_clear).  Anywhere else (a pipe,
 * a file: --progress only) it is whole lines, one at the start of each
 * phase and one at each tenth of it, "symcut: PHASE: 0%" ... "100%": no
 * times, so the same run prints the same lines. */
#ifndef SYMCUT_CLI_PROGRESS_H
#define SYMCUT_CLI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

/* --progress, --no-progress: true when arg was one (cli_parse_options
 * takes them anywhere in a command's options, as -q and -v). */
bool cli_progress_option(const char *arg);

/* Start the clock of "about a second" (main does, before the command). */
void cli_progress_start(void);

/* Whether progress reports print at all (the options, -q, whether
 * standard error is a terminal). */
bool cli_progress_enabled(void);

/* The library's progress callback (an sc_progress_fn; user unused: NULL). */
void cli_progress(void *user, const char *phase, size_t done, size_t total);

/* A phase of unknown length that the command itself runs ("validating"):
 * on a terminal "symcut: PHASE..." until the next report or message; in
 * the line form one line "symcut: PHASE" (the name is copied). */
void cli_progress_phase(const char *phase);

/* The current phase ended: erase the terminal line. */
void cli_progress_done(void);

/* Erase the terminal line, if one shows, before something else is
 * printed on standard error or on the same terminal; the next report
 * draws it again. */
void cli_progress_clear(void);

#endif /* SYMCUT_CLI_PROGRESS_H */

/* symcut — the command-line tool: shared declarations of the subcommands
 * and their helpers. */
#ifndef SYMCUT_CLI_H
#define SYMCUT_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include <symcut.h>

/* Exit statuses, documented in the README and in `symcut --help`. */
enum {
    CLI_EXIT_OK = 0,    /* success */
    CLI_EXIT_USAGE = 1, /* bad command line */
    CLI_EXIT_INPUT = 2  /* bad input, or a check that failed */
};

/* A subcommand: argv[0] is the subcommand's name. */
typedef int (*cli_command_fn)(int argc, char **argv);

int cli_cmd_expr(int argc, char **argv);
int cli_cmd_env(int argc, char **argv);
int cli_cmd_graph(int argc, char **argv);
int cli_cmd_partition(int argc, char **argv);
int cli_cmd_run(int argc, char **argv);
int cli_cmd_validate(int argc, char **argv);

/* "symcut: <message>" on stderr. */
void cli_errorf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* "symcut: file:line:col: message" on stderr. */
void cli_report(const sc_error *err);
/* A usage error: prints the message and "try 'symcut CMD --help'"; returns
 * CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
bool cli_is_help(const char *arg);

/* Read a whole file ("-" is stdin) into a NUL-terminated malloc'ed buffer;
 * NULL with err filled on failure (also for a file containing NUL bytes). */
char *cli_read_file(const char *path, size_t *len, sc_error *err);

/* Read a graph file ("-" is stdin) with the reader options (NULL:
 * defaults); on failure print the located error and return NULL. */
sc_graph *cli_read_graph(sc_ctx *ctx, const char *path,
                         const sc_graph_read_options *opts);

/* Write data to path atomically (a temporary file in the same directory,
 * then rename), or to stdout when path is NULL or "-".  On failure nothing
 * is left at path and err is filled. */
sc_status cli_write_file(const char *path, const char *data, size_t len,
                         sc_error *err);

/* Parse "name=value,name=value" assignments of integers (value may be any
 * size) into the binding, creating the symbols in ctx. */
sc_status cli_parse_bindings(sc_ctx *ctx, const char *text, sc_symmap *map,
                             sc_error *err);
/* Parse "name=LO..HI[,name=LO..HI]" (an empty side is infinity) into
 * bounds. */
sc_status cli_parse_ranges(sc_ctx *ctx, const char *text, sc_bounds *bounds,
                           sc_error *err);

#endif /* SYMCUT_CLI_H */

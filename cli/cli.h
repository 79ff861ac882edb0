/* symcut — the command-line tool: shared declarations of the subcommands
 * and their helpers. */
#ifndef SYMCUT_CLI_H
#define SYMCUT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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
int cli_cmd_joint(int argc, char **argv);
int cli_cmd_gradcheck(int argc, char **argv);
int cli_cmd_random(int argc, char **argv);

/* The joint graph of a forward graph read from file (the step --forward
 * of partition, validate and gradcheck): no_grad (may be NULL) is a
 * comma-separated list of primals that need no gradient.  NULL after
 * reporting the error. */
sc_graph *cli_joint_of_forward(const sc_graph *fwd, const char *file,
                               const char *no_grad);
/* Give err the line of the node of g its message names, in file. */
void cli_locate_error(const sc_graph *g, const char *file, sc_error *err);

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
/* Write n files at once (paths[i] NULL or "-": standard output, written
 * after the files): each first to a temporary file beside it, and only
 * when all of them are written are they renamed into place; on failure
 * nothing is left at any path (short of a rename failing after another
 * succeeded). */
sc_status cli_write_files(size_t n, const char *const *paths,
                          const char *const *data, const size_t *lens,
                          sc_error *err);

/* Parse "name=value,name=value" assignments of integers (value may be any
 * size) into the binding, creating the symbols in ctx. */
sc_status cli_parse_bindings(sc_ctx *ctx, const char *text, sc_symmap *map,
                             sc_error *err);

/* The --hint values of a command: syms[i] = values[i], in the form the
 * graph reader's options take them.  Zero-initialise; free with
 * cli_hints_free. */
typedef struct cli_hints {
    sc_expr **syms;
    int64_t *values;
    size_t n, cap;
} cli_hints;

/* Append "s0=8,s1=64" to h (a later value for a symbol replaces the
 * earlier one).  false with a message in msg on a malformed item. */
bool cli_parse_hints(sc_ctx *ctx, const char *text, cli_hints *h, char *msg,
                     size_t msgsize);
void cli_hints_free(cli_hints *h);

/* Check that every NAME of a "NAME=...,NAME=..." option text (--hint,
 * --sizes) is a symbol of g: 0 if so, else print a usage error naming
 * the first unknown one and the graph's symbols, and return the usage
 * exit status. */
int cli_check_symbol_names(const sc_graph *g, const char *cmd,
                           const char *opt, const char *text);
/* The same for the symbols of parsed --hint options. */
int cli_check_hint_names(const sc_graph *g, const char *cmd,
                         const cli_hints *h);
/* Parse "name=LO..HI[,name=LO..HI]" (an empty side is infinity) into
 * bounds. */
sc_status cli_parse_ranges(sc_ctx *ctx, const char *text, sc_bounds *bounds,
                           sc_error *err);

/* The partitioner's ban-rule options, shared by partition and validate:
 * --rule-off NAME[,NAME] (repeatable), --aggressive-recomputation,
 * --max-dist-from-bw N, --long-chain-limit N, --unbacked-fallback N.
 * If argv[*i] is one of them, parse it (and its value, advancing *i) into
 * opts and return 1; 0 if it is not one; -1 after printing a usage error
 * (unknown rule name, a number that is not a plain decimal in range).
 * *given (may be NULL) receives the first rule option seen (not
 * --unbacked-fallback, which applies to every policy). */
int cli_partition_rule_option(const char *cmd, int argc, char **argv, int *i,
                              sc_partition_options *opts,
                              const char **given);
/* After parsing: a usage error (returned) if a rule option was given with
 * the pytorch-1.13 policy, which has none of those rules; else 0. */
int cli_check_partition_rules(const char *cmd,
                              const sc_partition_options *opts,
                              const char *given);
/* The --help lines of those options. */
void cli_partition_rules_help(FILE *out);

#endif /* SYMCUT_CLI_H */
